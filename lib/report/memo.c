// SPDX-License-Identifier: MIT
/*
 * The report's memo of samples: what a sample did to the entries and
 * their callchain trees depends only on its event, command name, level,
 * symbol and resolved callchain (and on its process and thread where the
 * sort keys or the filters look at them). Samples repeat these a lot (a
 * hot loop's callchain), so the first sample of each kind records the
 * entries it went to and the node each callchain ended at, and the
 * samples like it add their period there without walking the trees.
 * Node totals (cumul) are summed from the ends when the report is read.
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"
#include <perfkit/perfdata.h>
#include <linux/perf_event.h>

/* The pool stops growing here (memory for the report's own sake). */
enum { MEMO_POOL_MAX = 1u << 25 };

struct rp_memo {
	const char *comm;
	int32_t pid, tid;
	uint32_t sym, attr;
	uint32_t n, chain_off;     /* the callchain, in the pool */
	uint32_t nents, ents_off;  /* (entry, end node) pairs, in the pool */
	char level;
	bool shown;
};

/* Whether the entries depend only on what the memo keys by. */
static bool memo_on(const struct pk_report *r)
{
	return !r->memo_off &&
	       !(r->keymask & ~(unsigned)(RK_COMM | RK_PID | RK_DSO | RK_SYM));
}

static bool by_thread(const struct pk_report *r)
{
	return (r->keymask & RK_PID) || r->pids.n || r->tids.n;
}

static uint64_t memo_hash(const struct pk_report *r, unsigned attr,
			  const struct rp_entry *t, const uint32_t *chain,
			  uint32_t n)
{
	uint64_t k = pk__rp_mix(attr, (uintptr_t)t->comm);

	k = pk__rp_mix(k, ((uint64_t)t->sym << 8) | (uint8_t)t->level);
	if (by_thread(r))
		k = pk__rp_mix(k, ((uint64_t)(uint32_t)t->pid << 32) |
			       (uint32_t)t->tid);
	for (uint32_t i = 0; i < n; i++) {
		k = (k ^ chain[i]) * 0x9e3779b97f4a7c15ull;
		k ^= k >> 29;
	}
	return k;
}

static bool memo_same(const struct pk_report *r, const struct rp_memo *m,
		      unsigned attr, const struct rp_entry *t,
		      const uint32_t *chain, uint32_t n)
{
	if (m->attr != attr || m->comm != t->comm || m->sym != t->sym ||
	    m->level != t->level || m->n != n)
		return false;
	if (by_thread(r) && (m->pid != t->pid || m->tid != t->tid))
		return false;
	return !n || !memcmp(r->memo_pool + m->chain_off, chain,
			   n * sizeof(*chain));
}

static void replay(struct pk_report *r, struct rp_hists *h,
		   const struct rp_memo *m, uint64_t period)
{
	const uint32_t *p = r->memo_pool + m->ents_off;

	for (uint32_t i = 0; i < m->nents; i++, p += 2) {
		struct rp_entry *e = &h->e[p[0]];

		/* an entry keeps the filter verdict of the sample that made
		 * it (perf's) */
		if (!i) {
			e->self += period;
			e->nr_self++;
			if (m->level == 'k')
				e->sys += period;
			else
				e->us += period;
		}
		e->acc += period;
		e->nr_acc++;
		if (p[1])
			r->node[p[1]].hit += period;
	}
}

int pk__rp_memo_replay(struct pk_report *r, struct rp_hists *h,
		       unsigned attr, const struct rp_entry *t, uint32_t n,
		       uint64_t period)
{
	uint64_t k;
	uint64_t *v;
	struct rp_memo *m;

	r->memo_rec = false;
	r->memo_last = UINT32_MAX;
	if (!memo_on(r))
		return 0;
	k = memo_hash(r, attr, t, r->chain, n);
	v = pk__hash_get(&r->memo_idx, k);
	if (v) {
		m = &r->memo[*v];
		if (!memo_same(r, m, attr, t, r->chain, n))
			return 0; /* another kind in that slot: not memoized */
		replay(r, h, m, period);
		r->cumul_stale = true;
		r->memo_last = *v;
		return 1;
	}
	if (r->npool + n > MEMO_POOL_MAX ||
	    pk__rp_grow((void **)&r->memo, &r->capmemo, r->nmemo,
			sizeof(*r->memo), 1024))
		return 0;
	/* the sample goes the long way; its steps are noted */
	r->memo_hash = k;
	r->memo_rec = true;
	m = &r->memo[r->nmemo];
	*m = (struct rp_memo){ .comm = t->comm, .pid = t->pid,
			       .tid = t->tid, .sym = t->sym, .attr = attr,
			       .n = n, .level = t->level, .shown = t->shown };
	if (pk__rp_memo_push(r, r->chain, n))
		return 0;
	m->chain_off = (uint32_t)(r->npool - n);
	m->ents_off = (uint32_t)r->npool;
	return 0;
}

int pk__rp_memo_push(struct pk_report *r, const uint32_t *v, uint32_t n)
{
	if (!r->memo_rec || !n)
		return 0;
	if (r->npool + n > r->cappool) {
		size_t c = r->cappool ? r->cappool * 2 : 1 << 16;
		uint32_t *p;

		while (c < r->npool + n)
			c *= 2;
		p = pk__realloc(r->memo_pool, c * sizeof(*p));
		if (!p) {
			r->memo_rec = false;
			return -ENOMEM;
		}
		r->memo_pool = p;
		r->cappool = c;
	}
	memcpy(r->memo_pool + r->npool, v, n * sizeof(*v));
	r->npool += n;
	return 0;
}

void pk__rp_memo_note(struct pk_report *r, const struct rp_hists *h,
		      const struct rp_entry *e, uint32_t end)
{
	uint32_t pair[2] = { (uint32_t)(e - h->e), end };

	pk__rp_memo_push(r, pair, 2);
}

void pk__rp_memo_done(struct pk_report *r)
{
	struct rp_memo *m = &r->memo[r->nmemo];
	bool added = false;
	uint64_t *v;

	if (!r->memo_rec)
		return;
	r->memo_rec = false;
	v = pk__hash_put(&r->memo_idx, r->memo_hash, &added);
	if (!v || !added)
		return;
	m->nents = (uint32_t)((r->npool - m->ents_off) / 2);
	r->memo_last = r->nmemo;
	*v = r->nmemo++;
}

/*
 * The raw memo, in front of that one: samples with the same addresses in
 * the same maps (process, map generations, command name, cpumode, ip,
 * kernel callchain) resolve the same, so they replay the memo the first
 * one reached without resolving anything. Unwound user stacks (dwarf)
 * depend on the stack's bytes: not for them.
 */

static bool raw_on(const struct pk_report *r, const struct pk_sample *sm)
{
	return memo_on(r) &&
	       (sm->sample_type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)) !=
	       (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER);
}

/* The sample's raw key into *K (its callchain counts when used). */
static void raw_key(struct pk_report *r, const struct pk_session_sample *ss,
		    const char *comm, struct rp_raw *k)
{
	const struct pk_sample *sm = ss->sample;
	bool chain = (r->o.callchain || r->o.children) &&
		     (sm->sample_type & PERF_SAMPLE_CALLCHAIN);

	*k = (struct rp_raw){
		.ip = sm->ip, .comm = comm, .attr = (uint32_t)ss->attr,
		.pid = (int32_t)sm->pid, .tid = (int32_t)sm->tid,
		.mode = ss->rec->misc & PERF_RECORD_MISC_CPUMODE_MASK,
		.genu = pk__rp_generation(r, sm->pid, PERF_RECORD_MISC_USER),
		.genk = pk__rp_generation(r, sm->pid, PERF_RECORD_MISC_KERNEL),
		.nr = chain ? (uint32_t)sm->callchain.nr : 0,
	};
}

static uint64_t raw_hash(const struct rp_raw *k, const uint64_t *ips)
{
	uint64_t h = ((uint64_t)(uint32_t)k->pid << 32 | (uint32_t)k->tid) ^
		     (uintptr_t)k->comm;

	h = (h ^ k->ip) * 0x9e3779b97f4a7c15ull;
	h = (h ^ k->genu ^ (k->genk << 20) ^ ((uint64_t)k->mode << 48) ^
	     k->attr) * 0xc2b2ae3d27d4eb4full;
	for (uint32_t i = 0; i < k->nr; i++) {
		h = (h ^ ips[i]) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h;
}

static bool raw_same(const struct pk_report *r, const struct rp_raw *a,
		     const struct rp_raw *b, const uint64_t *ips)
{
	return a->ip == b->ip && a->comm == b->comm && a->pid == b->pid &&
	       a->tid == b->tid && a->attr == b->attr && a->mode == b->mode &&
	       a->genu == b->genu && a->genk == b->genk && a->nr == b->nr &&
	       (!b->nr ||
		!memcmp(r->raw_pool + a->ips_off, ips, b->nr * sizeof(*ips)));
}

int pk__rp_raw_replay(struct pk_report *r, struct rp_hists *h,
		      const struct pk_session_sample *ss, const char *comm,
		      uint64_t period)
{
	const struct pk_sample *sm = ss->sample;
	const struct rp_memo *m;
	struct rp_raw k;
	uint64_t *v;

	r->raw_pending = false;
	if (!raw_on(r, sm))
		return 0;
	raw_key(r, ss, comm, &k);
	r->raw_hash = raw_hash(&k, sm->callchain.ips);
	v = pk__hash_get(&r->raw_idx, r->raw_hash);
	if (!v) {
		r->raw_cur = k;
		r->raw_ips = sm->callchain.ips;
		r->raw_pending = true;
		return 0;
	}
	if (!raw_same(r, &r->raw[*v], &k, sm->callchain.ips))
		return 0;
	m = &r->memo[r->raw[*v].memo];
	h->nr_samples++;
	h->total += period;
	if (m->shown) {
		h->nr_shown++;
		h->total_shown += period;
	}
	replay(r, h, m, period);
	r->cumul_stale = true;
	return 1;
}

void pk__rp_raw_done(struct pk_report *r)
{
	struct rp_raw *k = &r->raw_cur;
	bool added = false;
	uint64_t *v;

	if (!r->raw_pending || r->memo_last == UINT32_MAX)
		return;
	r->raw_pending = false;
	if (r->nraw_ips + k->nr > MEMO_POOL_MAX)
		return;
	if (r->nraw_ips + k->nr > r->capraw_ips) {
		size_t c = r->capraw_ips ? r->capraw_ips * 2 : 1 << 14;
		uint64_t *p;

		while (c < r->nraw_ips + k->nr)
			c *= 2;
		if (!(p = pk__realloc(r->raw_pool, c * sizeof(*p))))
			return;
		r->raw_pool = p;
		r->capraw_ips = c;
	}
	if (pk__rp_grow((void **)&r->raw, &r->capraw, r->nraw,
			sizeof(*r->raw), 1024))
		return;
	v = pk__hash_put(&r->raw_idx, r->raw_hash, &added);
	if (!v || !added)
		return;
	if (k->nr)
		memcpy(r->raw_pool + r->nraw_ips, r->raw_ips,
		       k->nr * sizeof(uint64_t));
	k->ips_off = (uint32_t)r->nraw_ips;
	k->memo = r->memo_last;
	r->nraw_ips += k->nr;
	r->raw[r->nraw] = *k;
	*v = r->nraw++;
}

void pk__rp_memo_fini(struct pk_report *r)
{
	pk__free(r->memo);
	pk__free(r->memo_pool);
	pk__hash_fini(&r->memo_idx);
	pk__free(r->raw);
	pk__free(r->raw_pool);
	pk__hash_fini(&r->raw_idx);
}

void pk__rp_memo_reset(struct pk_report *r)
{
	pk__rp_memo_fini(r);
	r->memo = NULL;
	r->memo_pool = NULL;
	r->raw = NULL;
	r->raw_pool = NULL;
	memset(&r->memo_idx, 0, sizeof(r->memo_idx));
	memset(&r->raw_idx, 0, sizeof(r->raw_idx));
	r->nmemo = r->capmemo = 0;
	r->npool = r->cappool = 0;
	r->nraw = r->capraw = 0;
	r->nraw_ips = r->capraw_ips = 0;
	r->memo_rec = r->raw_pending = false;
	r->memo_last = UINT32_MAX;
}

void pk__rp_cumul(struct pk_report *r)
{
	if (!r->cumul_stale)
		return;
	for (uint32_t i = 1; i < r->nnode; i++)
		r->node[i].cumul = 0;
	/* a node is made after its parent: children come later */
	for (uint32_t i = r->nnode; i-- > 1;) {
		struct rp_node *n = &r->node[i];

		n->cumul += n->hit;
		if (n->parent)
			r->node[n->parent].cumul += n->cumul;
	}
	/* perf's sums of aged nodes (top) */
	for (uint32_t i = 1; i < r->nbias; i++)
		r->node[i].cumul += (uint64_t)r->node_bias[i];
	r->cumul_stale = false;
}
