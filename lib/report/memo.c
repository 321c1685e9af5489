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

/* The pool stops growing here (memory for the report's own sake). */
enum { MEMO_POOL_MAX = 1u << 25 };

struct rp_memo {
	uint64_t hash;
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
	for (uint32_t i = 0; i < n; i++)
		k = pk__rp_mix(k, chain[i]);
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
	return !memcmp(r->memo_pool + m->chain_off, chain, n * sizeof(*chain));
}

static void replay(struct pk_report *r, struct rp_hists *h,
		   const struct rp_memo *m, uint64_t period)
{
	const uint32_t *p = r->memo_pool + m->ents_off;

	for (uint32_t i = 0; i < m->nents; i++, p += 2) {
		struct rp_entry *e = &h->e[p[0]];

		e->shown |= m->shown;
		if (!i) {
			e->self += period;
			e->nr_self++;
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
	*m = (struct rp_memo){ .hash = k, .comm = t->comm, .pid = t->pid,
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
	if (!r->memo_rec)
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
	*v = r->nmemo++;
}

void pk__rp_memo_fini(struct pk_report *r)
{
	pk__free(r->memo);
	pk__free(r->memo_pool);
	pk__hash_fini(&r->memo_idx);
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
	r->cumul_stale = false;
}
