/* SPDX-License-Identifier: MIT */
/*
 * perf's thread stacks belong to threads, not to trace queues: a queue of
 * a CPU's trace walks several tasks, each with its own call stack and
 * ring of last branches (the idle task one per CPU). The walk works on
 * the stack of the task it decodes (its fields w->ts, w->lbr...), loaded
 * from and saved to the table here when the task changes. G and L read
 * them for the recorded samples (thread_stack__sample_late and
 * thread_stack__br_sample_late).
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "itrace/itrace_int.h"

/* perf's thread_stack__per_cpu: the idle task (pid = tid = 0). */
static int32_t key_cpu(int32_t pid, int32_t tid, int32_t cpu)
{
	return !pid && !tid ? (cpu < 0 ? 0 : cpu) : -1;
}

static struct it_tstack *find(struct pk_itrace *it, int32_t pid, int32_t tid,
			      int32_t cpu)
{
	int32_t kc = key_cpu(pid, tid, cpu);

	for (size_t i = 0; i < it->ntstk; i++)
		if (it->tstk[i].tid == tid && it->tstk[i].cpu == kc)
			return &it->tstk[i];
	return NULL;
}

static struct it_tstack *findnew(struct pk_itrace *it, int32_t pid,
				 int32_t tid, int32_t cpu)
{
	struct it_tstack *t = find(it, pid, tid, cpu);

	if (t)
		return t;
	if (!pk__grow((void **)&it->tstk, &it->captstk, it->ntstk, 1,
		      sizeof(*it->tstk)))
		return NULL;
	t = &it->tstk[it->ntstk++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->cpu = key_cpu(pid, tid, cpu);
	return t;
}

void pk__it_ts_save(struct walk *w)
{
	struct it_tstack *t;

	if (w->cur_ts < 0)
		return;
	t = &w->it->tstk[w->cur_ts];
	t->ent = w->ts;
	t->n = w->ts_n;
	t->cap = w->ts_cap;
	t->lbr = w->lbr;
	t->lbr_tsc = w->lbr_tsc;
	t->lbr_pos = w->lbr_pos;
	t->lbr_nr = w->lbr_nr;
}

int pk__it_ts_switch(struct walk *w)
{
	struct it_tstack *t;

	if (w->cur_ts >= 0) {
		t = &w->it->tstk[w->cur_ts];
		if (t->tid == w->tid &&
		    t->cpu == key_cpu(w->pid, w->tid, w->cpu))
			return 0;
	}
	pk__it_ts_save(w);
	t = findnew(w->it, w->pid, w->tid, w->cpu);
	if (!t)
		return -ENOMEM;
	if (w->lbr_sz && !t->lbr) {
		t->lbr = pk__calloc(w->lbr_sz, sizeof(*t->lbr));
		if (!t->lbr)
			return -ENOMEM;
	}
	if (w->lbr_sz && w->it->opts.add_last_branch && !t->lbr_tsc) {
		t->lbr_tsc = pk__calloc(w->lbr_sz, sizeof(*t->lbr_tsc));
		if (!t->lbr_tsc)
			return -ENOMEM;
	}
	w->cur_ts = (int)(t - w->it->tstk);
	w->ts = t->ent;
	w->ts_n = t->n;
	w->ts_cap = t->cap;
	w->lbr = t->lbr;
	w->lbr_tsc = t->lbr_tsc;
	w->lbr_pos = t->lbr_pos;
	w->lbr_nr = t->lbr_nr;
	return 0;
}

void pk__it_ts_free(struct pk_itrace *it)
{
	for (size_t i = 0; i < it->ntstk; i++) {
		pk__free(it->tstk[i].ent);
		pk__free(it->tstk[i].lbr);
		pk__free(it->tstk[i].lbr_tsc);
	}
	pk__free(it->tstk);
	it->tstk = NULL;
	it->ntstk = it->captstk = 0;
}

static uint64_t context(uint64_t ip)
{
	return ip >> 63 ? (uint64_t)PERF_CONTEXT_KERNEL :
			  (uint64_t)PERF_CONTEXT_USER;
}

/* perf's thread_stack__sample_late: the stack's return addresses from
 * the first user one (or the sample's own ip: the kernel entries after
 * the event are not its), a context marker where the context changes,
 * at most SZ entries; none: the sample's context and ip. */
static unsigned chain_late(const struct it_tstack *t, uint64_t *out,
			   unsigned sz, uint64_t ip)
{
	uint64_t sctx = context(ip), last = ip, ctx, r;
	size_t j = 1;
	unsigned nr = 0;

	if (sz < 2)
		return 0;
	for (; t && j <= t->n; j++) {
		r = t->ent[t->n - j].ret;
		ctx = context(r);
		if (ctx == PERF_CONTEXT_USER || (ctx == sctx && r == ip))
			break;
	}
	for (; t && nr < sz && j <= t->n; nr++, j++) {
		r = t->ent[t->n - j].ret;
		ctx = context(r);
		if (ctx != last) {	/* (the ip stands for no context) */
			if (nr >= sz - 1)
				break;
			out[nr++] = ctx;
			last = ctx;
		}
		out[nr] = r;
	}
	if (nr)
		return nr;
	out[0] = sctx;
	out[1] = ip;
	return 2;
}

/* Whether the copy starts at entry E (perf's us_start / ks_start): a
 * user sample from the first branch into user space; a kernel one from
 * where its ip falls between two branches, or the first user branch. */
static bool br_start(const struct perf_branch_entry *e,
		     const struct perf_branch_entry *newer, uint64_t ip)
{
	bool to_user = e->to && !(e->to >> 63);

	if (!(ip >> 63))
		return to_user;
	return (newer && ip >= e->to && ip <= newer->from) ||
	       !(e->from >> 63) || to_user;
}

/* perf's thread_stack__br_sample_late: the ring from the latest branch,
 * copied from where the sample's ip shows it belongs, at most SZ. The
 * branches at or after the sample's time TSC perf has not decoded yet
 * (it decodes a queue up to the time of the record it meets). */
static unsigned br_late(const struct it_tstack *t, unsigned ring,
			struct perf_branch_entry *out, unsigned sz, uint64_t ip,
			uint64_t tsc)
{
	const struct perf_branch_entry *newer = NULL, *e;
	bool start = false;
	unsigned nr = 0, k = 0;

	if (!t || !t->lbr || !t->lbr_nr)
		return 0;
	while (tsc && t->lbr_tsc && k < t->lbr_nr &&
	       t->lbr_tsc[(t->lbr_pos + k) % ring] >= tsc)
		k++;
	for (; k < t->lbr_nr && nr < sz; k++) {
		e = &t->lbr[(t->lbr_pos + k) % ring];
		if (!start)
			start = br_start(e, newer, ip);
		if (start)
			out[nr++] = *e;
		newer = e;
	}
	return nr;
}

int pk_itrace_late(struct pk_itrace *it, const struct pk_sample *sm,
		   const uint64_t **chain, unsigned *nr_chain,
		   const struct perf_branch_entry **br, unsigned *nr_br)
{
	const struct it_tstack *t;
	int32_t cpu = (sm->sample_type & PERF_SAMPLE_CPU) ? (int32_t)sm->cpu : -1;
	unsigned csz = it->opts.callchain_sz + 1, bsz = it->opts.last_branch_sz;

	*nr_chain = *nr_br = 0;
	*chain = NULL;
	*br = NULL;
	if (!it->opts.add_callchain && !it->opts.add_last_branch)
		return 0;
	for (size_t i = 0; i < it->nq; i++)	/* the stacks walked now */
		if (it->q[i].w)
			pk__it_ts_save(it->q[i].w);
	t = find(it, (int32_t)sm->pid, (int32_t)sm->tid, cpu);
	if (it->opts.add_callchain) {
		if (it->nlate < csz) {
			pk__free(it->late);
			it->late = pk__calloc(csz, sizeof(*it->late));
			it->nlate = it->late ? csz : 0;
			if (!it->late)
				return -ENOMEM;
		}
		*nr_chain = chain_late(t, it->late, csz, sm->ip);
		*chain = it->late;
	}
	if (it->opts.add_last_branch && bsz) {
		if (!it->late_br) {
			it->late_br = pk__calloc(bsz, sizeof(*it->late_br));
			if (!it->late_br)
				return -ENOMEM;
		}
		uint64_t tsc = !it->timeless &&
			       (sm->sample_type & PERF_SAMPLE_TIME) ?
			       pk__it_perf_to_tsc(&it->info, sm->time) : 0;

		*nr_br = br_late(t, it->lbr_ring, it->late_br, bsz, sm->ip,
				 tsc);
		*br = it->late_br;
	}
	return 0;
}
