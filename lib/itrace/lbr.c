/* SPDX-License-Identifier: MIT */
/*
 * The last branches of a decoded flow (--itrace=l) as perf keeps them:
 * its thread stack's ring of branches (thread_stack__update_br_stack),
 * every branch the decoder reports (trace begins and ends, interrupts)
 * entered whatever the sample filters, emptied where the trace breaks,
 * and copied the latest first into the samples made after the branches
 * (thread_stack__br_sample). Also s N: the first N samples perf makes
 * are dropped (intel_pt_skip_event).
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "itrace/itrace_int.h"

/* The ring's size: l's; with L (branches to match to recorded samples
 * that come some time after their event) 1024 more when the kernel is
 * traced, else 1 (perf's br_stack_sz_plus). Each task's ring is made
 * when its stack is (tstack.c). */
int pk__it_lbr_init(struct walk *w)
{
	struct pk_itrace *it = w->it;
	const struct pk_itrace_opts *o = &it->opts;

	if ((!o->last_branch && !o->add_last_branch) || !o->last_branch_sz)
		return 0;
	it->lbr_ring = o->last_branch_sz;
	if (o->add_last_branch)
		it->lbr_ring += it->pt.exclude_kernel ? 1 : 1024;
	w->lbr_sz = it->lbr_ring;
	if (!o->last_branch)
		return 0;
	w->lbr_out = pk__calloc(o->last_branch_sz, sizeof(*w->lbr_out));
	return w->lbr_out ? 0 : -ENOMEM;
}

void pk__it_lbr_free(struct walk *w)
{
	pk__free(w->lbr_out);
	w->lbr = w->lbr_out = NULL;	/* (the ring is its task's) */
}

/* An entry's flags word: perf sets in_tx and abort from the sample flags
 * and nothing else (no mispredictions, no cycles). */
static void entry_flags(struct perf_branch_entry *e, uint32_t flags)
{
	memset((char *)e + 16, 0, 8);
	e->in_tx = !!(flags & PK_IP_FLAG_IN_TX);
	e->abort = !!(flags & PK_IP_FLAG_TX_ABORT);
}

static void ring_add(struct walk *w, uint32_t flags, uint64_t from,
		     uint64_t to, uint64_t tsc)
{
	struct perf_branch_entry *e;

	if (!w->lbr)
		return;
	w->lbr_pos = (w->lbr_pos ? w->lbr_pos : w->lbr_sz) - 1;
	if (w->lbr_tsc)
		w->lbr_tsc[w->lbr_pos] = tsc;
	e = &w->lbr[w->lbr_pos];
	e->from = from;
	e->to = to;
	entry_flags(e, flags);
	if (w->lbr_nr < w->lbr_sz)
		w->lbr_nr++;
}

/* L alone (no sample copies the ring as it is made): a branch past the
 * time decoded up to waits in the queue as the samples do, for the ring
 * of the task the CPU runs when perf gets to it (pk__it_lbr_replay). */
static bool held(struct walk *w, uint32_t flags, uint64_t from, uint64_t to,
		 uint64_t tsc)
{
	const struct pk_itrace_opts *o = &w->it->opts;
	struct it_pend *p;

	if (o->last_branch || !o->add_last_branch || w->it->timeless ||
	    (w->npend <= w->pend_head && tsc <= w->limit))
		return false;
	if (!pk__grow((void **)&w->pendq, &w->cappend, w->npend, 1,
		      sizeof(*w->pendq))) {
		w->err = -ENOMEM;
		return true;
	}
	p = &w->pendq[w->npend++];
	memset(p, 0, sizeof(*p));
	p->s.kind = PK_ITRACE_NR_KINDS;	/* (a branch, not a sample) */
	p->s.ip = from;
	p->s.addr = to;
	p->s.flags = flags;
	p->tsc = tsc;
	return true;
}

void pk__it_lbr_branch(struct walk *w, uint32_t flags, uint64_t from,
		       uint64_t to, const struct pk_pt_event *ev)
{
	/* its time, as a sample's (decode.c's base) */
	uint64_t t = ev && ev->has_tsc ? ev->tsc : w->t_now;

	if (t < w->tsc)
		t = w->tsc;
	if (w->lbr && !held(w, flags, from, to, t))
		ring_add(w, flags, from, to, t);
}

void pk__it_lbr_replay(struct walk *w, const struct it_pend *p)
{
	struct pk_itrace *it = w->it;

	if (pk__it_cpu_task(it, w->q) && it->cpu_tid[w->cpu].set) {
		w->pid = it->cpu_tid[w->cpu].pid;
		w->tid = it->cpu_tid[w->cpu].tid;
	}
	if (pk__it_ts_switch(w))
		w->err = -ENOMEM;
	else
		ring_add(w, p->s.flags, p->s.ip, p->s.addr, p->tsc);
}

void pk__it_lbr_sample(struct walk *w, struct pk_itrace_sample *s)
{
	unsigned head;

	unsigned nr = w->lbr_nr;

	if (!w->lbr || !w->lbr_out || !nr)
		return;
	if (nr > w->it->opts.last_branch_sz)	/* (a ring for L too) */
		nr = w->it->opts.last_branch_sz;
	/* from the latest to the end of the ring, then its start */
	head = w->lbr_sz - w->lbr_pos;
	if (head > nr)
		head = nr;
	memcpy(w->lbr_out, w->lbr + w->lbr_pos, head * sizeof(*w->lbr));
	if (nr > head)
		memcpy(w->lbr_out + head, w->lbr, (nr - head) * sizeof(*w->lbr));
	s->brstack = w->lbr_out;
	s->nr_brstack = nr;
}

int pk__it_lbr_keep(struct it_pend *p)
{
	size_t n = p->s.nr_brstack * sizeof(*p->br);

	p->br = NULL;
	if (!p->s.nr_brstack)
		return 0;
	p->br = pk__malloc(n);
	if (!p->br)
		return -ENOMEM;
	memcpy(p->br, p->s.brstack, n);
	p->s.brstack = p->br;
	return 0;
}

/* A CBR sample is not counted and waits until 4 samples are left to
 * skip (perf's intel_pt_skip_cbr_event). */
bool pk__it_skip_cbr(struct walk *w)
{
	struct pk_itrace *it = w->it;

	return it->opts.initial_skip &&
	       it->nr_events + 4 < it->opts.initial_skip;
}

/* perf counts every sample it makes but the errors. The instructions of
 * skipped i samples go to the first one made (perf's period is the count
 * since the last sample made). */
bool pk__it_skip(struct walk *w, struct pk_itrace_sample *s)
{
	struct pk_itrace *it = w->it;

	if (!it->opts.initial_skip || s->kind == PK_ITRACE_ERROR)
		return false;
	if (s->kind == PK_ITRACE_CBR)
		return pk__it_skip_cbr(w);
	if (it->nr_events++ < it->opts.initial_skip) {
		/* (q: every period is 1, nothing carried) */
		if (s->kind == PK_ITRACE_INSTRUCTIONS && !w->qk)
			w->skipped_insn += s->period;
		return true;
	}
	if (s->kind == PK_ITRACE_INSTRUCTIONS) {
		s->period += w->skipped_insn;
		w->skipped_insn = 0;
	}
	return false;
}
