/* SPDX-License-Identifier: MIT */
/*
 * The instruction trace of a perf.data: AUXTRACE_INFO read, AUXTRACE
 * buffers queued by their index (one queue per thread or CPU), each queue
 * decoded when perf decodes it in timeless mode: when its thread exits,
 * else at the end of the file.
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "base/bytes.h"
#include "itrace/itrace_int.h"

/* (records in host byte order) */
#define RD64(p, o) pk_ld64((const uint8_t *)(p) + (o), false)
#define RD32(p, o) pk_ld32((const uint8_t *)(p) + (o), false)

/* perf's branches_filter: which branch samples c and r keep. */
static uint32_t branch_filter(const struct pk_itrace_opts *o)
{
	uint32_t f = 0;

	if (o->calls)
		f |= PK_IP_FLAG_CALL | PK_IP_FLAG_ASYNC |
		     PK_IP_FLAG_TRACE_END;
	if (o->returns)
		f |= PK_IP_FLAG_RETURN | PK_IP_FLAG_TRACE_BEGIN;
	return f;
}

struct pk_itrace *pk_itrace_new(struct pk_perfdata *pd,
				struct pk_session *sess,
				const struct pk_itrace_opts *opts,
				pk_itrace_cb cb, void *ctx)
{
	struct pk_itrace *it;

	if (!pd || !sess || !cb || (opts && opts->sz < sizeof(*opts))) {
		errno = EINVAL;
		return NULL;
	}
	it = pk__zalloc(sizeof(*it));
	if (!it) {
		errno = ENOMEM;
		return NULL;
	}
	it->pd = pd;
	it->sess = sess;
	it->cb = cb;
	it->ctx = ctx;
	it->pt_attr = -1;
	it->sw_attr = -1;
	for (int k = 0; k < PK_ITRACE_NR_KINDS; k++)
		it->attr[k] = -1;
	if (opts && opts->set) {
		it->opts = *opts;
	} else {
		pk_itrace_set_default(&it->opts, true);
		it->opts.thread_stack = opts && opts->thread_stack;
		it->opts.insn_bytes = opts && opts->insn_bytes;
		it->opts.shown = opts && opts->shown;
	}
	it->opts.sz = sizeof(it->opts);
	it->branches_filter = branch_filter(&it->opts);
	return it;
}

void pk_itrace_free(struct pk_itrace *it)
{
	if (!it)
		return;
	pk__it_ranges_free(it);
	pk__it_sched_free(it);
	for (size_t i = 0; i < it->nq; i++) {
		pk__it_walk_free(&it->q[i]);
		pk__free(it->q[i].data);
		pk__free(it->q[i].prev);
	}
	pk__free(it->sids);
	pk__it_ts_free(it);
	pk__free(it->late);
	pk__free(it->late_br);
	pk__free(it->run_ips);
	pk__free(it->run_addrs);
	pk__free(it->run_flags);
	pk__free(it->run_lens);
	for (size_t i = 0; i < it->nimgs; i++)
		pk_pt_image_free(it->imgs[i].img);
	pk_pt_image_free(it->gimg);
	pk__free(it->imgs);
	pk__free(it->bad);
	for (size_t i = 0; i < it->ntried; i++)
		pk__free(it->tried[i]);
	pk__free(it->tried);
	pk__free(it->q);
	pk__free(it->th);
	pk__free(it);
}

void pk_itrace_set_run_cb(struct pk_itrace *it, pk_itrace_run_cb cb)
{
	if (it)
		it->run_cb = cb;
}

bool pk_itrace_timeless(const struct pk_itrace *it)
{
	return it->timeless;
}

int pk_itrace_kind_attr(const struct pk_itrace *it, int kind)
{
	return kind >= 0 && kind < PK_ITRACE_NR_KINDS ? it->attr[kind] : -1;
}

/* The attr perf's intel_pt_synth_events gives its events: the traced
 * event's sample_type and exclude bits, IP|TID|PERIOD, TIME unless
 * timeless, CPU only with per-CPU buffers. */
static void synth_base(const struct pk_itrace *it, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = (it->pt.sample_type | PERF_SAMPLE_IP |
			  PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD);
	if (it->timeless)
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_TIME;
	else
		a->sample_type |= PERF_SAMPLE_TIME;
	if (!it->info.per_cpu_mmaps)
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_CPU;
	a->exclude_user = it->pt.exclude_user;
	a->exclude_kernel = it->pt.exclude_kernel;
	a->exclude_hv = it->pt.exclude_hv;
	a->exclude_host = it->pt.exclude_host;
	a->exclude_guest = it->pt.exclude_guest;
	a->sample_id_all = it->pt.sample_id_all;
	a->read_format = it->pt.read_format;
	a->sample_period = 1;
}

/* Adds one synthesized event (KIND -1: one perf adds that samples
 * nothing here, for the name column's width). */
static int add_synth(struct pk_itrace *it, int kind,
		     const struct perf_event_attr *a, const char *name)
{
	unsigned nr;
	const uint64_t *ids = pk_perfdata_attr_ids(it->pd, (unsigned)it->pt_attr,
						   &nr);
	uint64_t id = (ids ? ids[0] : 0) + 1000000000ull + it->nr_synth++;
	int idx = pk_perfdata_add_attr(it->pd, a, name, id);

	if (idx < 0)
		return idx;
	if (kind >= 0)
		it->attr[kind] = idx;
	return 0;
}

/* The instructions event's period in its attr: perf's, in instructions
 * or TSC ticks (nanoseconds made ticks; a file without a time
 * multiplier counts it 1). */
static uint64_t attr_period(const struct pk_itrace *it)
{
	struct it_info in = it->info;

	if (it->opts.period_type != PK_ITRACE_PERIOD_NANOSECS)
		return it->opts.period;
	if (!in.time_mult)
		in.time_mult = 1;
	return pk__it_ns_to_ticks(&in, it->opts.period);
}

/* perf's intel_pt_setup_pebs_events: with o, the first event recorded
 * with aux_output (and ids) gets the samples of the PEBS records in the
 * trace (with several, perf's records without a hardware id match go to
 * that one too). */
static void pebs_event(struct pk_itrace *it)
{
	unsigned n = pk_perfdata_nr_attrs(it->pd), nr;

	if (!it->opts.other_events)
		return;
	for (unsigned i = 0; i < n; i++)
		if (pk_perfdata_attr(it->pd, i)->aux_output &&
		    pk_perfdata_attr_ids(it->pd, i, &nr) && nr) {
			it->attr[PK_ITRACE_PEBS] = (int)i;
			return;
		}
}

/* perf's intel_pt_synth_events: the events of the options, in perf's
 * order, added to the file's list. */
static int synth_events(struct pk_itrace *it)
{
	const struct pk_itrace_opts *o = &it->opts;
	struct perf_event_attr a;
	int err = 0;

	synth_base(it, &a);
	if (o->branches) {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
		a.sample_type |= PERF_SAMPLE_ADDR;
		err = add_synth(it, PK_ITRACE_BRANCHES, &a, NULL);
		a.sample_type &= ~(uint64_t)PERF_SAMPLE_ADDR;
	}
	if (o->callchain)	/* the events after branches carry chains */
		a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->last_branch) {	/* ... and branch stacks (with perf's
				 * hw_idx, which it leaves 0) */
		a.sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a.branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX;
	}
	if (!err && o->instructions) {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_INSTRUCTIONS;
		a.sample_period = attr_period(it);
		err = add_synth(it, PK_ITRACE_INSTRUCTIONS, &a, NULL);
	}
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	a.sample_period = 1;
	if (!err && o->transactions) {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_INSTRUCTIONS;
		err = add_synth(it, PK_ITRACE_TRANSACTIONS, &a,
				"transactions");
	}
	a.type = 0x80000000u;	/* PERF_TYPE_SYNTH */
	a.sample_type |= PERF_SAMPLE_RAW;
	/* (with or without the ptw config bit, as perf) */
	if (!err && o->ptwrites) {
		a.config = 0;	/* PERF_SYNTH_INTEL_PTWRITE */
		err = add_synth(it, PK_ITRACE_PTWRITE, &a, "ptwrite");
	}
	if (!err && o->pwr_events) {
		a.config = 5;	/* PERF_SYNTH_INTEL_CBR */
		err = add_synth(it, PK_ITRACE_CBR, &a, "cbr");
		a.config = 6;	/* PERF_SYNTH_INTEL_PSB */
		if (!err)
			err = add_synth(it, PK_ITRACE_PSB, &a, "psb");
	}
	if (!err && o->pwr_events && (it->pt.config & (1u << 4))) {
		static const char *const pwr[] = { "mwait", "pwre", "exstop",
						   "pwrx" };

		for (int k = 0; k < 4 && !err; k++) {
			a.config = (uint64_t)k + 1;
			err = add_synth(it, PK_ITRACE_MWAIT + k, &a, pwr[k]);
		}
	}
	if (!err && o->intr_events && (it->pt.config & (1ull << 31))) {
		a.config = 7;	/* PERF_SYNTH_INTEL_EVT */
		err = add_synth(it, PK_ITRACE_EVT, &a, "evt");
	}
	if (!err && o->intr_events && it->info.cap_event_trace) {
		a.config = 8;	/* PERF_SYNTH_INTEL_IFLAG_CHG */
		err = add_synth(it, PK_ITRACE_IFLAG, &a, "iflag");
	} else if (!err && o->intr_events) {
		/* perf 6.1 makes the sample all the same (its state at a
		 * FUP after a MODE.Exec), with id 0: the first event's */
		it->attr[PK_ITRACE_IFLAG] = 0;
	}
	return err;
}

void pk_itrace_sample_fill(const struct pk_itrace_sample *is,
			   uint64_t sample_type, struct pk_sample *sm)
{
	sm->sample_type = sample_type;
	sm->pid = (uint32_t)is->pid;
	sm->tid = (uint32_t)is->tid;
	sm->cpu = (uint32_t)is->cpu;
	sm->time = is->time;
	sm->ip = is->ip;
	sm->addr = is->addr;
	sm->period = is->period;
	sm->callchain.nr = is->nr_callchain;
	sm->callchain.ips = is->callchain;
	sm->branch.nr = is->nr_brstack;
	sm->branch.hw_idx = 0;
	sm->branch.has_hw_idx = true;
	sm->branch.entries = is->brstack;
	if (is->kind == PK_ITRACE_PEBS && is->u.pebs) {
		const struct pk_itrace_pebs *pb = is->u.pebs;

		sm->weight = pb->weight;
		if (sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
			sm->weight = (uint32_t)pb->weight |
				     (uint64_t)pb->ins_lat << 32;
		sm->transaction = pb->transaction;
		sm->data_src = 0;
		sm->regs_intr.abi = pb->has_regs ? pb->regs_abi : 0;
		sm->regs_intr.mask = pb->regs_mask;
		sm->regs_intr.nr = pb->nr_regs;
		sm->regs_intr.regs = pb->has_regs ? pb->regs : NULL;
	} else {	/* (none of a PEBS sample's fields: SM may be reused) */
		sm->weight = sm->transaction = sm->data_src = 0;
		memset(&sm->regs_intr, 0, sizeof(sm->regs_intr));
	}
}

unsigned pk_itrace_unsynthesized(const struct pk_itrace *it)
{
	return it->unsynth;
}

uint64_t pk_itrace_nr_errors(const struct pk_itrace *it)
{
	return it->nr_errors;
}

/* perf's intel_pt_timeless_decoding: no usable time on some event, or
 * no TSC in the trace. */
static bool timeless(struct pk_itrace *it)
{
	unsigned n = pk_perfdata_nr_attrs(it->pd);

	if (it->opts.timeless || !it->info.tsc_bit ||
	    !it->info.cap_user_time_zero || !(it->pt.config & it->info.tsc_bit))
		return true;
	for (unsigned i = 0; i < n; i++)
		if (!(pk_perfdata_attr(it->pd, i)->sample_type &
		      PERF_SAMPLE_TIME))
			return true;
	return false;
}

/* perf's cap_event_trace: the u64 after the filter string (its length
 * at priv[16], the string NUL-padded to 8 bytes), when the record has
 * one. */
static bool cap_event_trace(const struct pk_record *rec)
{
	size_t n = (rec->size - 16) / 8, at;
	uint64_t len;

	if (n < 17)
		return false;
	len = RD64(rec->hdr, 16 + 8 * 16);
	if (len > 8 * n)
		return false;
	at = 17 + (len ? (size_t)(len + 8) / 8 : 0);
	return at < n && RD64(rec->hdr, 16 + 8 * at);
}

static int auxtrace_info(struct pk_itrace *it, const struct pk_record *rec)
{
	uint64_t *f = &it->info.pmu_type;
	size_t n;
	unsigned na = pk_perfdata_nr_attrs(it->pd);

	if (it->info.seen || rec->size < 16 ||
	    RD32(rec->hdr, 8) != 1) /* PERF_AUXTRACE_INTEL_PT */
		return 0;	/* (a reader may show it ahead, then again) */
	n = (rec->size - 16) / 8;
	if (n < 10)
		return 0;
	if (n > 16)
		n = 16;
	for (size_t i = 0; i < n; i++)
		f[i] = RD64(rec->hdr, 16 + 8 * i);
	it->info.nr = (unsigned)n;
	it->info.cap_event_trace = cap_event_trace(rec);
	for (unsigned i = 0; i < na; i++)
		if (pk_perfdata_attr(it->pd, i)->type == it->info.pmu_type) {
			it->pt_attr = (int)i;
			it->pt = *pk_perfdata_attr(it->pd, i);
			break;
		}
	/* read ahead in a pipe, before its attrs: taken again when the
	 * records bring it, after them */
	if (it->pt_attr < 0 && !na)
		return 0;
	it->info.seen = true;
	it->timeless = timeless(it);
	/* perf: timeless without a multiplier, a tick a nanosecond (ns
	 * periods); the max non-turbo ratio, when not given, the TSC
	 * frequency / 100 MHz (CBR samples' frequency and percentage) */
	if (it->timeless && !it->info.time_mult)
		it->info.time_mult = 1;
	if (it->info.time_mult && !it->info.max_non_turbo_ratio)
		it->info.max_non_turbo_ratio =
			(pk__it_ns_to_ticks(&it->info, 1000000000ull) +
			 50000000) / 100000000;
	if (it->pt_attr < 0)
		return 0;	/* perf synthesizes nothing, silently */
	pebs_event(it);
	pk__it_sched_setup(it);
	it->sampling = pk__it_sampling_mode(it);
	return synth_events(it);
}

struct it_queue *pk__it_queue(struct pk_itrace *it, uint32_t idx)
{
	struct it_queue *q;

	for (size_t i = 0; i < it->nq; i++)
		if (it->q[i].idx == idx)
			return &it->q[i];
	if (!pk__grow((void **)&it->q, &it->capq, it->nq, 1, sizeof(*q)))
		return NULL;
	q = &it->q[it->nq++];
	memset(q, 0, sizeof(*q));
	q->idx = idx;
	q->tid = -1;
	q->cpu = -1;
	q->carry_cbr = -1;
	return q;
}

/* a buffer's bytes queued, as decoding goes on from the last one */
static int append(struct it_queue *q, const uint8_t *p, uint64_t size,
		  uint64_t ref)
{
	if (!pk__grow((void **)&q->data, &q->cap, q->len, size, 1) ||
	    pk__it_note_buf(q, q->len, ref))
		return -ENOMEM;
	memcpy(q->data + q->len, p, size);
	q->len += size;
	q->decoded = false;
	return 0;
}

/* Sample mode: the buffer goes on from the last one, whose decoding
 * reached its end: perf's decoder reads on (no restart at a PSB). */
static int go_on(struct it_queue *q, const uint8_t *p, uint64_t size,
		 uint64_t ref)
{
	int err = append(q, p, size, ref);

	return err ? err : pk__it_walk_go_on(q);
}

/* A snapshot: what it repeats of the queue's last one left out (perf's
 * intel_pt_do_fix_overlap); nothing new, nothing queued. Where it does
 * not go on from the last one perf's decoder starts afresh at its first
 * PSB: so here with FRESH (sample mode: the queue's decoding so far is
 * dropped; where the buffer goes on from the last one, the decoding
 * reads on into it), else the bytes follow the last ones (the junction
 * resyncs).
 * The bytes queued: 0 when none. */
long pk__it_snapshot(struct pk_itrace *it, struct it_queue *q,
		     const uint8_t *p, uint64_t size, uint64_t ref, bool fresh)
{
	bool have_tsc = it->info.tsc_bit && (it->pt.config & it->info.tsc_bit);
	bool consecutive = false;
	size_t from = 0;
	int err;

	if (q->prev)
		from = pk__it_overlap(q->prev, q->prev_len, p, size, have_tsc,
				      &consecutive);
	if (from == size)
		return 0;
	if (fresh && consecutive && q->w && pk__it_walk_at_end(q->w))
		err = go_on(q, p + from, size - from, ref);
	else {
		if (fresh) {
			pk__it_walk_free(q);
			q->psb_base += q->len;
			q->len = 0;
			q->nbufs = 0;
		}
		err = append(q, p + from, size - from, ref);
	}
	if (err)
		return err;
	if (!pk__grow((void **)&q->prev, &q->prev_cap, 0, size, 1))
		return -ENOMEM;
	memcpy(q->prev, p, size);
	q->prev_len = size;
	return (long)(size - from);
}

static int auxtrace(struct pk_itrace *it, const struct pk_record *rec)
{
	struct it_queue *q;
	uint64_t size, offset;

	if (rec->size < 48)
		return 0;
	size = RD64(rec->hdr, 8);
	offset = RD64(rec->hdr, 16);
	q = pk__it_queue(it, RD32(rec->hdr, 32));
	if (!q)
		return -ENOMEM;
	q->tid = (int32_t)RD32(rec->hdr, 36);
	q->cpu = (int32_t)RD32(rec->hdr, 40);
	if (size > rec->extra_size)
		size = rec->extra_size;
	if (!size)
		return 0;
	q->next_offset = offset + size;
	if (it->info.snapshot_mode) {
		long n = pk__it_snapshot(it, q, rec->extra, size,
					 RD64(rec->hdr, 24), false);

		return n < 0 ? (int)n : 0;
	}
	return append(q, rec->extra, size, RD64(rec->hdr, 24));
}

static int note_thread(struct pk_itrace *it, int32_t pid, int32_t tid)
{
	if (pid == -1)	/* the kernel's maps (perf's machine, no thread) */
		return 0;
	for (size_t i = 0; i < it->nth; i++)
		if (it->th[i].tid == tid) {
			it->th[i].pid = pid;
			return 0;
		}
	if (!pk__grow((void **)&it->th, &it->capth, it->nth, 1,
		      sizeof(*it->th)))
		return -ENOMEM;
	it->th[it->nth].pid = pid;
	it->th[it->nth++].tid = tid;
	return 0;
}

/* The task a sample names, as perf's tool learns it after the trace's
 * handler (machine__findnew_thread: a thread known with pid -1 gets the
 * sample's pid). */
static int sample_task(struct pk_itrace *it, const struct pk_record *rec)
{
	struct pk_sample sm;

	if (it->sw_attr < 0 || pk_sample_parse(it->pd, rec, &sm) ||
	    !(sm.sample_type & PERF_SAMPLE_TID) || (int32_t)sm.pid == -1)
		return 0;
	for (size_t i = 0; i < it->nth; i++)
		if (it->th[i].tid == (int32_t)sm.tid) {
			if (it->th[i].pid == -1)
				it->th[i].pid = (int32_t)sm.pid;
			return 0;
		}
	return note_thread(it, (int32_t)sm.pid, (int32_t)sm.tid);
}

int32_t pk__it_switch_pid(struct pk_itrace *it, int32_t tid)
{
	for (size_t i = 0; i < it->nth; i++)
		if (it->th[i].tid == tid)
			return it->th[i].pid;
	if (tid == 0)		/* perf's idle thread, 0/0 */
		return 0;
	return note_thread(it, -1, tid) ? tid : -1;
}

int32_t pk__it_pid(const struct pk_itrace *it, int32_t tid)
{
	for (size_t i = 0; i < it->nth; i++)
		if (it->th[i].tid == tid)
			return it->th[i].pid;
	return tid;
}

/* Timeless: a thread's queue is decoded when it exits. */
static int thread_exit(struct pk_itrace *it, int32_t tid)
{
	int err;

	for (size_t i = 0; i < it->nq; i++) {
		struct it_queue *q = &it->q[i];

		if (q->tid == tid && q->len &&
		    (err = pk__it_run(it, q, UINT64_MAX)))
			return err;
	}
	return 0;
}

/* perf's perf_time_to_tsc. */
static uint64_t perf_to_tsc(const struct it_info *in, uint64_t ns)
{
	uint64_t shift = in->time_shift & 63, t, quot, rem;

	if (!in->time_mult)
		return ns;
	t = ns - in->time_zero;
	quot = t / in->time_mult;
	rem = t % in->time_mult;
	return (quot << shift) + (rem << shift) / in->time_mult;
}

uint64_t pk__it_perf_to_tsc(const struct it_info *in, uint64_t ns)
{
	return perf_to_tsc(in, ns);
}

/* With timestamps: every queue decoded up to the time of the record
 * about to be processed (perf's intel_pt_process_queues), so that the
 * synthesized samples fall among the recorded ones in time order. */
static int run_queues(struct pk_itrace *it, uint64_t time)
{
	uint64_t limit = perf_to_tsc(&it->info, time);
	int err;

	for (size_t i = 0; i < it->nq; i++)
		if (it->q[i].len && (err = pk__it_run(it, &it->q[i], limit)))
			return err;
	return 0;
}

/* The task a CPU runs, from a context switch (the task switched to:
 * SWITCH_CPU_WIDE out names it) or ITRACE_START (perf's
 * machine__set_current_tid). */
static void set_cpu_task(struct pk_itrace *it, const struct pk_record *rec,
			 int32_t pid, int32_t tid)
{
	struct pk_sample sm;

	if (pk_sample_parse(it->pd, rec, &sm) ||
	    !(sm.sample_type & PERF_SAMPLE_CPU) || sm.cpu >= 4096)
		return;
	it->cpu_tid[sm.cpu].pid = pid;
	it->cpu_tid[sm.cpu].tid = tid;
	it->cpu_tid[sm.cpu].set = true;
}

/* perf's intel_pt_lost: an AUX record saying the kernel lost trace
 * data is a "Lost trace data" error at once, with the record's task,
 * CPU and time and no IP. */
static int lost_data(struct pk_itrace *it, const struct pk_record *rec)
{
	struct pk_itrace_sample s;
	struct pk_sample sm;

	if (!it->opts.errors || it->opts.error_minus_lost)
		return 0;
	it->nr_errors++;
	memset(&s, 0, sizeof(s));
	memset(&sm, 0, sizeof(sm));
	pk_sample_parse(it->pd, rec, &sm);
	s.kind = PK_ITRACE_ERROR;
	s.attr = -1;
	s.pid = (sm.sample_type & PERF_SAMPLE_TID) ? (int32_t)sm.pid : -1;
	s.tid = (sm.sample_type & PERF_SAMPLE_TID) ? (int32_t)sm.tid : -1;
	s.cpu = (sm.sample_type & PERF_SAMPLE_CPU) ? (int32_t)sm.cpu : -1;
	/* perf's sample time when the record has none: (u64)-1 */
	s.time = (sm.sample_type & PERF_SAMPLE_TIME) ? sm.time : UINT64_MAX;
	s.has_time = s.time != 0;
	s.u.error.type = 1;
	s.u.error.code = 8;
	s.u.error.msg = "Lost trace data";
	return it->cb(it->ctx, &s);
}

int pk_itrace_record(struct pk_itrace *it, const struct pk_record *rec)
{
	const struct perf_event_header *h = rec->hdr;
	int err;

	if (it->pt_attr >= 0 && !it->timeless && it->prequeued && rec->time &&
	    (err = run_queues(it, rec->time)))
		return err;
	switch (rec->type) {
	case PK_RECORD_AUXTRACE_INFO:
		return auxtrace_info(it, rec);
	case PK_RECORD_AUXTRACE:
		return it->prequeued ? 0 : auxtrace(it, rec);
	case PERF_RECORD_SAMPLE:
		if (it->sw_attr >= 0 && rec->attr == it->sw_attr)
			pk__it_sched_switch(it, rec);
		if ((err = sample_task(it, rec)))
			return err;
		if (it->sampling && it->pt_attr >= 0)
			return pk__it_aux_sample(it, rec);
		return 0;
	case PK_RECORD_ID_INDEX:
		return it->prequeued ? 0 : pk__it_id_index(it, rec);
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if ((rec->misc & PERF_RECORD_MISC_SWITCH_OUT) && rec->size >= 16)
			set_cpu_task(it, rec, (int32_t)RD32(h, 8),
				     (int32_t)RD32(h, 12));
		return 0;
	case PERF_RECORD_ITRACE_START:
		if (rec->size >= 16)
			set_cpu_task(it, rec, (int32_t)RD32(h, 8),
				     (int32_t)RD32(h, 12));
		/* fall through */
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (it->pt_attr >= 0 && (err = pk__it_mmap(it, rec)))
			return err;
		/* fall through */
	case PERF_RECORD_COMM:
		if (rec->size >= 16)
			return note_thread(it, (int32_t)RD32(h, 8),
					   (int32_t)RD32(h, 12));
		return 0;
	case PERF_RECORD_FORK:
		if (rec->size >= 16)
			return note_thread(it, (int32_t)RD32(h, 8),
					   (int32_t)RD32(h, 16));
		return 0;
	case PERF_RECORD_EXIT:
		/* (perf's intel_pt_process_timeless_queues: timeless only) */
		if (rec->size >= 24 && it->pt_attr >= 0 && !it->sampling &&
		    it->timeless)
			return thread_exit(it, (int32_t)RD32(h, 16));
		return 0;
	case PERF_RECORD_AUX:
		/* flags at 24: the kernel lost trace (the buffer was full) */
		if (rec->size >= 32 && (RD64(h, 24) & PERF_AUX_FLAG_TRUNCATED) &&
		    it->pt_attr >= 0)
			return lost_data(it, rec);
		return 0;
	default:
		return 0;
	}
}

int pk_itrace_flush(struct pk_itrace *it)
{
	int err;

	if (it->pt_attr < 0)
		return 0;
	for (size_t i = 0; i < it->nq; i++)
		if (it->q[i].len && (err = pk__it_run(it, &it->q[i], UINT64_MAX)))
			return err;
	return 0;
}

int pk_itrace_read_ahead(struct pk_itrace *it)
{
	PK_OPTS(pk_perfdata_opts, o, .file_order = true);
	struct pk_perfdata *pd = pk_perfdata_reopen(it->pd, &o);
	struct pk_record rec;
	int err;

	if (!pd)
		return -errno;
	while (!(err = pk_perfdata_next(pd, &rec))) {
		if (rec.type == PK_RECORD_AUXTRACE_INFO)
			err = auxtrace_info(it, &rec);
		else if (rec.type == PK_RECORD_AUXTRACE)
			err = auxtrace(it, &rec);
		else if (rec.type == PK_RECORD_ID_INDEX)
			err = pk__it_id_index(it, &rec);
		else if (it->sampling && !it->timeless)
			err = pk__it_aux_sample_queue(it, &rec);
		if (err)
			break;
	}
	pk_perfdata_free(pd);
	if (err && err != PK_ERR_EOS)
		return err;
	it->prequeued = true;
	return 0;
}
