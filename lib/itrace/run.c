/* SPDX-License-Identifier: MIT */
/*
 * Running a queue's decoding: the flow decoder set up from AUXTRACE_INFO
 * (MTC frequency, TSC:CTC, max non-turbo ratio), the walk begun, stepped
 * up to the time asked (samples past it held, then delivered with the
 * task the CPU runs by then), the walk freed.
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "itrace/itrace_int.h"
#include "pt/flow_int.h"

static void config(const struct pk_itrace *it, struct pk_pt_config *c)
{
	const struct it_info *in = &it->info;

	memset(c, 0, sizeof(*c));
	c->sz = sizeof(*c);
	if (in->mtc_freq_bits)
		c->mtc_freq = (uint8_t)((it->pt.config & in->mtc_freq_bits) >>
					__builtin_ctzll(in->mtc_freq_bits));
	c->nom_freq = (uint8_t)in->max_non_turbo_ratio;
	c->cpuid_0x15_eax = (uint32_t)in->tsc_ctc_d;
	c->cpuid_0x15_ebx = (uint32_t)in->tsc_ctc_n;
	c->perf_packets = 1;	/* (PEBS via Intel PT: block packets) */
}

/* perf's intel_pt_alloc_queue: i periods in instructions as given; in
 * ns made TSC ticks, in ticks as given, then rounded down to a power of
 * two (intel_pt_lower_power_of_2); none left: every instruction. */
static void periods(const struct pk_itrace *it, struct walk *w)
{
	const struct pk_itrace_opts *o = &it->opts;
	uint64_t t = o->period;

	if (o->period_type == PK_ITRACE_PERIOD_INSTRUCTIONS) {
		w->period = t ? t : 1;
		return;
	}
	if (o->period_type == PK_ITRACE_PERIOD_NANOSECS)
		t = pk__it_ns_to_ticks(&it->info, t);
	if (!t) {
		w->period = 1;	/* i0ns: every instruction */
		return;
	}
	while (t & (t - 1))
		t &= t - 1;	/* the highest bit alone */
	w->tick = true;
	w->period = 1;		/* (every instruction is looked at) */
	w->ticks = t;
	w->tick_mask = ~(t - 1);
}

static int start(struct pk_itrace *it, struct it_queue *q)
{
	struct walk *w = pk__zalloc(sizeof(*w));
	struct pk_pt_config cfg;
	PK_OPTS(pk_pt_insn_opts, io, .psb_events = 1, .perf_binding = 1,
		.cyc_events = it->opts.ipc,
		.iflags_events = it->info.cap_event_trace ? 1 :
				 it->opts.intr_events ? 2 : 0);

	if (!w)
		return -ENOMEM;
	q->w = w;
	w->it = it;
	w->q = q;
	w->cbr = -1;
	w->lean = -1;
	w->tid = q->tid;
	w->pid = pk__it_pid(it, q->tid);
	w->cpu = q->cpu;
	if (it->opts.instructions)
		periods(it, w);
	if (it->sampling) {
		w->cnt = q->carry_cnt;
		w->unsampled = q->carry_unsampled;
		w->cbr = q->carry_cbr;
		w->pts = q->carry_pts;
		w->pts_insn = q->carry_pts_insn;
		w->last_masked = q->carry_masked;
	}
	if (it->info.max_non_turbo_ratio)
		w->cbr2khz = pk__it_ns_to_ticks(&it->info, 1000000000ull) /
			     it->info.max_non_turbo_ratio / 1000;
	config(it, &cfg);
	/* every instruction seen only for time periods (each instruction
	 * may be the one the time allows) */
	w->blocks = !w->tick;
	if (it->opts.callchain) {
		w->chain = pk__calloc(it->opts.callchain_sz + 2, sizeof(uint64_t));
		if (!w->chain)
			return -ENOMEM;
	}
	w->cur_ts = -1;
	if (pk__it_lbr_init(w) || pk__it_ts_switch(w))
		return -ENOMEM;
	w->img = pk__it_image(it, w->pid, w->tid);
	if (!w->img)
		return -ENOMEM;
	w->dec = pk_pt_insn_decoder_new(q->data, q->len, &cfg, w->img, &io);
	if (!w->dec)
		return -ENOMEM;
	if (it->opts.quick &&
	    !(w->qk = pk__it_quick_new(q->data, q->len, &cfg,
				       it->opts.quick > 1)))
		return -ENOMEM;
	w->status = pk_pt_insn_sync_forward(w->dec);
	if (w->status == PK_ERR_EOS)
		w->done = true;
	pk__it_range_start(w);
	return 0;
}

void pk__it_walk_free(struct it_queue *q)
{
	struct walk *w = q->w;

	if (!w)
		return;
	pk__it_ts_save(w);	/* (the stack is its task's) */
	q->carry_cnt = w->cnt;
	q->carry_unsampled = w->unsampled;
	q->carry_cbr = w->cbr;
	q->carry_pts = w->pts;
	q->carry_pts_insn = w->pts_insn;
	q->carry_masked = w->last_masked;
	for (size_t i = w->pend_head; i < w->npend; i++) {
		pk__free(w->pendq[i].chain);
		pk__free(w->pendq[i].br);
		pk__free(w->pendq[i].pebs);
	}
	pk__it_lbr_free(w);
	pk__free(w->pendq);
	pk__free(w->chain);
	pk__free(w->szc);
	pk_pt_insn_decoder_free(w->dec);
	pk__it_quick_free(w->qk);
	pk__free(w);
	q->w = NULL;
}

bool pk__it_walk_at_end(const struct walk *w)
{
	return w->done && (w->qk || w->status == PK_ERR_EOS ||
			   (w->status >= 0 && (w->status & PK_PT_STS_EOS)));
}

int pk__it_walk_go_on(struct it_queue *q)
{
	struct walk *w = q->w;
	int err = pk__pt_fl_extend(w->dec, q->data, q->len);

	if (!err && w->qk)
		err = pk__it_quick_extend(w->qk, q->data, q->len);
	if (err)
		return err;
	w->done = false;
	if (w->qk)
		return 0;
	w->status = w->dec->synced ? pk__pt_fl_status(w->dec) :
		    pk_pt_insn_sync_forward(w->dec);
	return 0;
}

/* The samples waiting that fall at or before LIMIT, in order. */
static void deliver(struct walk *w, uint64_t limit)
{
	struct pk_itrace *it = w->it;

	while (!w->err && w->pend_head < w->npend &&
	       w->pendq[w->pend_head].tsc <= limit) {
		struct pk_itrace_sample *s = &w->pendq[w->pend_head].s;

		/* perf makes it now: the task the CPU runs now */
		if (pk__it_cpu_task(it, w->q) && it->cpu_tid[w->cpu].set) {
			s->pid = it->cpu_tid[w->cpu].pid;
			s->tid = it->cpu_tid[w->cpu].tid;
		}
		if (s->kind == PK_ITRACE_NR_KINDS)	/* L: a branch held */
			pk__it_lbr_replay(w, &w->pendq[w->pend_head]);
		else
			w->err = it->cb(it->ctx, s);
		pk__free(w->pendq[w->pend_head].chain);
		w->pendq[w->pend_head].chain = NULL;
		pk__free(w->pendq[w->pend_head].br);
		w->pendq[w->pend_head].br = NULL;
		pk__free(w->pendq[w->pend_head].pebs);
		w->pendq[w->pend_head].pebs = NULL;
		w->pend_head++;
	}
	if (w->pend_head == w->npend)
		w->pend_head = w->npend = 0;
}

/* The task the queue's CPU runs now (per-CPU buffers), and its code. */
static void current_task(struct pk_itrace *it, struct walk *w)
{
	struct pk_pt_image *img;

	if (pk__it_cpu_task(it, w->q) && it->cpu_tid[w->cpu].set) {
		w->pid = it->cpu_tid[w->cpu].pid;
		w->tid = it->cpu_tid[w->cpu].tid;
	}
	if (pk__it_ts_switch(w))
		w->err = -ENOMEM;
	img = pk__it_image(it, w->pid, w->tid);
	if (img && img != w->img) {
		w->img = img;
		pk_pt_insn_set_image(w->dec, img);
	}
}

int pk__it_run(struct pk_itrace *it, struct it_queue *q, uint64_t limit)
{
	struct walk *w;
	int err;

	if (!q->w && q->len && (err = start(it, q)))
		return err;
	if (!(w = q->w))
		return 0;
	w->limit = limit;
	deliver(w, limit);
	if (w->npend || w->done || w->err)
		return w->err;
	current_task(it, w);
	while (!w->done && !w->err && !w->npend) {
		uint64_t t;

		/* up to the time: where the flow stands now (the first
		 * PSB+'s TSC before anything is decoded) */
		if (w->qk ? !it->timeless && (w->tsc > limit ||
			    (!pk__it_quick_time(w->qk, &t) && t > limit)) :
		    pk__it_past_limit(w))
			break;
		if (w->rg.ff) {
			pk__it_range_ff(w);
			continue;
		}
		pk__it_step(w);
	}
	return w->err;
}
