/* SPDX-License-Identifier: MIT */
/*
 * --time on the instruction trace, as perf 6.1's intel-pt.c applies it:
 * the ranges made TSC (the first TSC that converts to the start or
 * later, the last that converts to the end or earlier), each queue
 * fast-forwarded to the last PSB before a range's start (the last buffer
 * whose first PSB is earlier, then that buffer's PSBs), every decoder
 * state out of the ranges left without samples, decoding stopped past
 * the last range. Timeless traces are decoded whole (perf sets no range).
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "itrace/itrace_int.h"
#include "pt/flow_int.h"

int pk_itrace_set_time_ranges(struct pk_itrace *it,
			      const struct pk_itrace_time_range *r, size_t n)
{
	struct pk_itrace_time_range *c = NULL;

	if (!it || (n && !r) || it->tr_done)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if ((r[i].end && r[i].end < r[i].start) ||
		    (i + 1 < n && r[i].end >= r[i + 1].start))
			return -EINVAL;
	if (n && !(c = pk__calloc(n, sizeof(*c))))
		return -ENOMEM;
	if (n)
		memcpy(c, r, n * sizeof(*c));
	pk__free(it->tr_ns);
	it->tr_ns = c;
	it->ntr = n;
	return 0;
}

void pk__it_ranges_free(struct pk_itrace *it)
{
	pk__free(it->tr_ns);
	pk__free(it->tr);
	for (size_t i = 0; i < it->nq; i++)
		pk__free(it->q[i].bufs);
}

int pk__it_note_buf(struct it_queue *q, size_t off, uint64_t reference)
{
	if (!pk__grow((void **)&q->bufs, &q->capbufs, q->nbufs, 1,
		      sizeof(*q->bufs)))
		return -ENOMEM;
	q->bufs[q->nbufs].off = off;
	q->bufs[q->nbufs++].ref = reference;
	return 0;
}

/* ---- perf times to TSC ---- */

#define STEPS (1u << 16)

/* perf's perf_time_to_tsc. */
static uint64_t ns_to_tsc(const struct it_info *in, uint64_t ns)
{
	uint64_t shift = in->time_shift & 63, t = ns - in->time_zero;

	return ((t / in->time_mult) << shift) +
	       ((t % in->time_mult) << shift) / in->time_mult;
}

/* The first TSC that converts to NS or later (intel_pt_tsc_start; in
 * perf's wrapping arithmetic: time_zero may stand for a negative time).
 * The steps are few where the conversion is sane; a bounded number
 * else (the first guess then). */
static uint64_t tsc_start(const struct it_info *in, uint64_t ns)
{
	uint64_t tsc = ns_to_tsc(in, ns), guess = tsc;
	unsigned n = 0;

	while (pk__it_tsc_to_perf(in, tsc) >= ns && ++n < STEPS)
		tsc--;
	while (pk__it_tsc_to_perf(in, tsc) < ns && ++n < STEPS)
		tsc++;
	return n < STEPS ? tsc : guess;
}

/* The last TSC that converts to NS or earlier (intel_pt_tsc_end). */
static uint64_t tsc_end(const struct it_info *in, uint64_t ns)
{
	uint64_t tsc = ns_to_tsc(in, ns), guess = tsc;
	unsigned n = 0;

	while (pk__it_tsc_to_perf(in, tsc) <= ns && ++n < STEPS)
		tsc++;
	while (pk__it_tsc_to_perf(in, tsc) > ns && ++n < STEPS)
		tsc--;
	return n < STEPS ? tsc : guess;
}

/* The ranges in TSC, once (AUXTRACE_INFO read): 0 or -ENOMEM. */
static int convert(struct pk_itrace *it)
{
	if (it->tr_done)
		return 0;
	it->tr_done = true;
	if (!it->ntr || it->timeless || !it->info.time_mult)
		return 0;
	it->tr = pk__calloc(it->ntr, sizeof(*it->tr));
	if (!it->tr)
		return -ENOMEM;
	for (size_t i = 0; i < it->ntr; i++) {
		const struct pk_itrace_time_range *r = &it->tr_ns[i];

		it->tr[i].start = r->start ? tsc_start(&it->info, r->start) : 0;
		it->tr[i].end = r->end ? tsc_end(&it->info, r->end) : 0;
	}
	return 0;
}

static int64_t block_index(struct walk *w, uint64_t ip);

/* ---- perf's time filter (intel_pt_next_time, intel_pt_time_filter) ---- */

/* The bound after SEL: false when none is left. */
static bool next_time(struct pk_itrace *it, struct it_rwalk *g)
{
	if (g->sel_start) {
		g->sel_start = false;
		g->sel = it->tr[g->idx].end;
		return true;
	}
	if (g->idx + 1 < it->ntr) {
		g->sel_start = true;
		g->sel = it->tr[++g->idx].start;
		return true;
	}
	return false;
}

/* Whether a decoder state at TSC falls outside the ranges (the filter
 * moved on to the bound that decides it). */
static bool outside(struct walk *w, uint64_t tsc)
{
	struct it_rwalk *g = &w->rg;

	if (g->stop)
		return true;
	for (;;) {
		if (!g->sel)
			return false;	/* a start passed, no end */
		if (g->sel_start) {
			if (tsc >= g->sel) {
				next_time(w->it, g);
				continue;
			}
			if (g->sel > g->ff_done && !g->ff) {
				g->ff = true;	/* before the start */
				g->ff_cnt = w->cnt;
				g->ff_carry = g->carry;
			}
			return true;
		}
		if (tsc <= g->sel)
			return false;
		if (!next_time(w->it, g)) {
			g->stop = true;	/* past the last range */
			w->done = true;
			return true;
		}
	}
}

/* perf's cbr_seen moves only with the CBR samples it makes: one left
 * out comes at the next state kept (a PSB+'s, with the flags of the
 * branch perf walked last when its FUP is that branch's target). */
static void cbr_sample(struct walk *w, struct pk_itrace_sample *s, bool out)
{
	if (out) {
		w->rg.cbr_ratio = s->u.cbr.cbr;
		w->cbr = -1;
		w->rg.cbr_unseen = true;
		return;
	}
	if (w->rg.cbr_unseen && w->blocks && w->pend.size &&
	    block_index(w, s->ip) == 0)
		s->flags = pk__it_branch_flags(&w->pend);
	w->rg.cbr_unseen = false;
}

/* The CBR sample left out, made at the state kept now (perf's
 * intel_pt_prep_p_sample: the state's from/to IPs, its flags unless it
 * has no from IP), before the state's own samples. */
static void pending_cbr(struct walk *w, uint64_t tsc, uint64_t from,
			uint64_t to, uint32_t flags)
{
	struct pk_itrace_sample s;
	struct pk_pt_event at;

	if (!w->rg.cbr_unseen || !w->it->opts.pwr_events)
		return;
	w->rg.cbr_unseen = false;
	w->cbr = w->rg.cbr_ratio;
	memset(&at, 0, sizeof(at));
	at.tsc = tsc;
	at.has_tsc = true;
	pk__it_base(w, &s, PK_ITRACE_CBR, &at);
	s.ip = from;
	s.addr = to;
	s.flags = from ? flags : 0;
	s.u.cbr.cbr = (uint8_t)w->cbr;
	s.u.cbr.freq_khz = (uint32_t)(w->cbr * w->cbr2khz);
	s.u.cbr.max_nonturbo = (uint8_t)w->it->info.max_non_turbo_ratio;
	pk__it_emit(w, &s);
}

bool pk__it_range_drop(struct walk *w, struct pk_itrace_sample *s)
{
	struct it_rwalk *g = &w->rg;
	bool out, was = g->ff;

	if (s->kind == PK_ITRACE_ERROR)
		return false;	/* (perf makes errors unfiltered) */
	out = outside(w, w->tsc);
	if (s->kind == PK_ITRACE_CBR)
		cbr_sample(w, s, out);
	if (s->kind != PK_ITRACE_INSTRUCTIONS)
		return out;
	/* perf's period: instructions since its last instruction sample */
	if (out) {
		g->carry += s->period;
		if (!was && g->ff)
			g->ff_carry = g->carry;	/* this sample's counted */
	} else {
		pending_cbr(w, w->tsc, s->ip, s->addr, s->flags);
		s->period += g->carry;
		g->carry = 0;
	}
	return out;
}

bool pk__it_range_out(struct walk *w, uint64_t tsc, bool has_tsc)
{
	uint64_t t = has_tsc ? tsc : w->t_now;

	if (t < w->tsc)
		t = w->tsc;	/* (perf's timestamp only moves forward) */
	return outside(w, t);
}

bool pk__it_range_branch(struct walk *w, const struct pk_pt_event *ev,
			 uint32_t flags, uint64_t from, uint64_t to)
{
	struct it_rwalk *g = &w->rg;
	uint64_t t = ev && ev->has_tsc ? ev->tsc : w->t_now;

	if (pk__it_range_out(w, ev ? ev->tsc : 0, ev && ev->has_tsc))
		return true;
	pending_cbr(w, t > w->tsc ? t : w->tsc, from, to, flags);
	if (g->ts_nr < 0) {
		g->ts_nr = g->trace_nr;	/* the thread stack begins */
	} else if (g->ts_nr != g->trace_nr) {
		if (g->ts_nr)
			w->ts_n = 0;	/* a new trace: perf flushes it */
		g->ts_nr = g->trace_nr;
	}
	return false;
}

void pk__it_range_block(struct walk *w, const struct pk_pt_block *blk)
{
	w->rg.blk_ip = blk->ip;
	w->rg.blk_end = blk->end_ip;
	w->rg.blk_mode = blk->mode;
	w->rg.blk_cnt = w->cnt;
}

/* How many instructions of the block walked come before IP: -1 if it
 * is not one of them. */
static int64_t block_index(struct walk *w, uint64_t ip)
{
	struct pk_pt_insn in;
	uint64_t at = w->rg.blk_ip;
	int64_t k = 0;

	if (ip < at || ip > w->rg.blk_end)
		return -1;
	while (at < ip) {
		if (pk_pt_insn_at(w->dec, at, (enum pk_pt_exec_mode)w->rg.blk_mode,
				  &in) < 0 || !in.size)
			return -1;
		at += in.size;
		k++;
	}
	return at == ip ? k : -1;
}

bool pk__it_range_psb(struct walk *w, const struct pk_pt_event *ev)
{
	struct it_rwalk *g = &w->rg;
	bool was = g->ff, out = pk__it_range_out(w, ev->tsc, ev->has_tsc);
	int64_t k;

	/* perf's state at the PSB+'s FUP: the instructions before it
	 * count, the block's later ones not (the samples among them were
	 * made in order: the carry stands) */
	if (out && !was && g->ff && w->blocks && w->period && !ev->ip_suppressed &&
	    (k = block_index(w, ev->ip)) >= 0)
		g->ff_cnt = (g->blk_cnt + (uint64_t)k) % w->period;
	return out;
}

/* ---- the fast forward (intel_pt_fast_forward) ---- */

/* The offset of the first PSB in Q's data from FROM, before END. */
static bool psb_at(const struct it_queue *q, size_t from, size_t end,
		   size_t *at)
{
	static const uint8_t psb[16] = {
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
		0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	};
	const uint8_t *p;

	if (from >= end || end - from < sizeof(psb))
		return false;
	p = memmem(q->data + from, end - from, psb, sizeof(psb));
	if (!p)
		return false;
	*at = (size_t)(p - q->data);
	return true;
}

/* The TSC of the PSB+ at AT (before its PSBEND and END), made whole with
 * the upper byte of REF (intel_pt_next_tsc, intel_pt_8b_tsc). */
static bool psb_tsc(struct pk_pt_decoder *pd, size_t at, size_t end,
		    uint64_t ref, uint64_t *tsc)
{
	struct pk_pt_packet pkt;
	uint64_t off = at, t;

	if (pk_pt_sync_set(pd, at) < 0)
		return false;
	while (off < end && pk_pt_next(pd, &pkt) > 0 &&
	       pkt.type != PK_PT_PSBEND) {
		if (pkt.type == PK_PT_TSC) {
			t = pkt.u.tsc.tsc | (ref & (0xffull << 56));
			if (t < ref && ref - t > (1ull << 55))
				t += 1ull << 56;
			else if (t > ref && t - ref > (1ull << 55))
				t -= 1ull << 56;
			*tsc = t;
			return true;
		}
		pk_pt_offset(pd, &off);
	}
	return false;
}

static size_t buf_end(const struct it_queue *q, size_t i)
{
	return i + 1 < q->nbufs ? q->bufs[i + 1].off : q->len;
}

/* The buffer holding offset OFF. */
static size_t buf_of(const struct it_queue *q, uint64_t off)
{
	size_t i = 0;

	while (i + 1 < q->nbufs && q->bufs[i + 1].off <= off)
		i++;
	return i;
}

/* The last buffer after CUR (SIZE_MAX: from the first) whose first PSB
 * is earlier than TARGET, up to the first one that is not; SIZE_MAX when
 * none is. */
static size_t ff_buffer(const struct it_queue *q, struct pk_pt_decoder *pd,
			size_t cur, uint64_t target)
{
	size_t found = SIZE_MAX;

	for (size_t i = cur == SIZE_MAX ? 0 : cur + 1; i < q->nbufs; i++) {
		size_t at, end = buf_end(q, i);
		uint64_t t;

		if (!psb_at(q, q->bufs[i].off, end, &at) ||
		    !psb_tsc(pd, at, end, q->bufs[i].ref, &t))
			continue;
		if (t >= target)
			break;
		found = i;
	}
	return found;
}

/* The last PSB of buffer B from FROM on whose TSC is earlier than
 * TARGET, walked while they are; SIZE_MAX when the first is not. */
static size_t ff_psb(const struct it_queue *q, struct pk_pt_decoder *pd,
		     size_t b, size_t from, uint64_t target)
{
	size_t end = buf_end(q, b), at, found = SIZE_MAX;
	uint64_t t;

	while (psb_at(q, from, end, &at) &&
	       psb_tsc(pd, at, end, q->bufs[b].ref, &t) && t < target) {
		found = at;
		from = at + 1;
	}
	return found;
}

/* The walk taken up at the PSB at AT: what waited for the trace left
 * there is dropped (perf's decoder repositioned: no IP, no state). */
static void reposition(struct walk *w, size_t at)
{
	w->have_pend = false;
	w->isamp = false;
	w->ndef = 0;
	w->lost = w->resync = false;
	w->next_ip = 0;
	w->status = pk__pt_fl_sync_at(w->dec, at);
	if (w->status == PK_ERR_EOS)
		w->done = true;
}

/* Fast forward towards TARGET; SETUP: before anything was decoded (no
 * buffer is current: the first buffer is where decoding begins unless a
 * later one is chosen). Whether the walk moved. */
static bool fast_forward(struct walk *w, uint64_t target, bool setup)
{
	struct it_queue *q = w->q;
	struct pk_pt_decoder *pd;
	uint64_t off = 0;
	size_t cur = SIZE_MAX, b, from, at;

	if (!q->nbufs || !(pd = pk_pt_decoder_new(q->data, q->len, NULL)))
		return false;
	if (!setup && !pk_pt_insn_offset(w->dec, &off))
		cur = buf_of(q, off);
	b = ff_buffer(q, pd, cur, target);
	if (b != SIZE_MAX) {
		from = q->bufs[b].off;
		/* perf's trace number: the first buffer's when it is the first
		 * loaded, 0 for a buffer that follows another */
		w->rg.trace_nr = setup && b == 0 ? 1 : 0;
	} else if (setup || cur == SIZE_MAX) {
		pk_pt_decoder_free(pd);
		return false;
	} else {
		b = cur;
		from = (size_t)off;
	}
	at = ff_psb(q, pd, b, from, target);
	pk_pt_decoder_free(pd);
	if (at == SIZE_MAX)
		return false;
	reposition(w, at);
	return true;
}

void pk__it_range_ff(struct walk *w)
{
	w->rg.ff = false;
	w->rg.ff_done = w->rg.sel;
	if (!fast_forward(w, w->rg.sel, false))
		return;
	/* perf moved on at once: the instructions walked since, not */
	w->cnt = w->rg.ff_cnt;
	w->rg.carry = w->rg.ff_carry;
}

void pk__it_range_start(struct walk *w)
{
	struct pk_itrace *it = w->it;
	struct it_rwalk *g = &w->rg;

	memset(g, 0, sizeof(*g));
	g->ts_nr = -1;
	g->trace_nr = 1;
	if (convert(it) || !it->tr)
		return;
	g->on = true;
	g->sel = it->tr[0].start;
	g->sel_start = g->sel != 0;
	if (!g->sel_start)
		g->sel = it->tr[0].end;
	if (g->sel_start) {
		g->ff_done = g->sel;
		fast_forward(w, g->sel, true);
	}
}
