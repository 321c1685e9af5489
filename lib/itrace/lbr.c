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

int pk__it_lbr_init(struct walk *w)
{
	const struct pk_itrace_opts *o = &w->it->opts;

	if (!o->last_branch || !o->last_branch_sz)
		return 0;
	w->lbr_sz = o->last_branch_sz;
	w->lbr = pk__calloc(w->lbr_sz, sizeof(*w->lbr));
	w->lbr_out = pk__calloc(w->lbr_sz, sizeof(*w->lbr_out));
	return w->lbr && w->lbr_out ? 0 : -ENOMEM;
}

void pk__it_lbr_free(struct walk *w)
{
	pk__free(w->lbr);
	pk__free(w->lbr_out);
	w->lbr = w->lbr_out = NULL;
}

/* An entry's flags word: perf sets in_tx and abort from the sample flags
 * and nothing else (no mispredictions, no cycles). */
static void entry_flags(struct perf_branch_entry *e, uint32_t flags)
{
	memset((char *)e + 16, 0, 8);
	e->in_tx = !!(flags & PK_IP_FLAG_IN_TX);
	e->abort = !!(flags & PK_IP_FLAG_TX_ABORT);
}

void pk__it_lbr_branch(struct walk *w, uint32_t flags, uint64_t from,
		       uint64_t to)
{
	struct perf_branch_entry *e;

	if (!w->lbr)
		return;
	w->lbr_pos = (w->lbr_pos ? w->lbr_pos : w->lbr_sz) - 1;
	e = &w->lbr[w->lbr_pos];
	e->from = from;
	e->to = to;
	entry_flags(e, flags);
	if (w->lbr_nr < w->lbr_sz)
		w->lbr_nr++;
}

void pk__it_lbr_reset(struct walk *w)
{
	w->lbr_pos = w->lbr_nr = 0;
}

void pk__it_lbr_sample(struct walk *w, struct pk_itrace_sample *s)
{
	unsigned head;

	if (!w->lbr || !w->lbr_nr)
		return;
	/* from the latest to the end of the ring, then its start */
	head = w->lbr_sz - w->lbr_pos;
	if (head > w->lbr_nr)
		head = w->lbr_nr;
	memcpy(w->lbr_out, w->lbr + w->lbr_pos, head * sizeof(*w->lbr));
	if (w->lbr_nr > head)
		memcpy(w->lbr_out + head, w->lbr,
		       (w->lbr_nr - head) * sizeof(*w->lbr));
	s->brstack = w->lbr_out;
	s->nr_brstack = w->lbr_nr;
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
		if (s->kind == PK_ITRACE_INSTRUCTIONS)
			w->skipped_insn += s->period;
		return true;
	}
	if (s->kind == PK_ITRACE_INSTRUCTIONS) {
		s->period += w->skipped_insn;
		w->skipped_insn = 0;
	}
	return false;
}
