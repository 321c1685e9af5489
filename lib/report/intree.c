// SPDX-License-Identifier: MIT
/*
 * perf's tree of entries (hists->entries_in), searched as perf searches
 * it. Its comparison orders inlined functions by name and the others by
 * address: no total order, so a search can pass the entry it looks for
 * and make a second one, a twin. perf's collapse then merges the twins
 * its own search finds (the first keeps its callchain depth, which
 * orders entries of equal period) and shows the others twice.
 * Entries of frames that are all real functions compare totally and need
 * none of this: the tree is made when the first inlined frame is seen,
 * from the entries so far in the order perf made them (no twin yet).
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "base/rbidx.h"
#include "report/report_int.h"

/* Room in H's tree for its entries. 0 or -ENOMEM. */
static int tree_room(struct rp_hists *h)
{
	uint32_t cap = h->tcap;

	if (h->n < cap)
		return 0;
	if (pk__rp_grow((void **)&h->t, &cap, h->n, sizeof(*h->t), 256))
		return -ENOMEM;
	h->tcap = cap;
	return 0;
}

/* Where TMPL goes in H's tree: the node (index + 1) it equals, or 0 with
 * the parent and side in *PARENT, *LEFT. */
static uint32_t tree_walk(const struct pk_report *r, const struct rp_hists *h,
			  const struct rp_entry *tmpl, uint32_t *parent,
			  bool *left)
{
	uint32_t link = h->root;

	*parent = 0;
	*left = false;
	while (link) {
		int64_t c = pk__rp_entries_cmp(r, tmpl, &h->e[link - 1]);

		if (!c)
			return link;
		*parent = link;
		*left = c < 0;
		link = *left ? h->t[link - 1].l : h->t[link - 1].r;
	}
	return 0;
}

/* The entries made before the tree, into it in their order. */
static int tree_catch_up(const struct pk_report *r, struct rp_hists *h)
{
	if (tree_room(h))
		return -ENOMEM;
	for (; h->tn < h->n; h->tn++) {
		uint32_t parent;
		bool left;

		tree_walk(r, h, &h->e[h->tn], &parent, &left);
		pk__rbi_insert(h->t, &h->root, h->tn, parent, left);
	}
	return 0;
}

struct rp_entry *pk__rp_intree_get(struct pk_report *r, struct rp_hists *h,
				   const struct rp_entry *tmpl)
{
	uint32_t at, parent;
	bool left;
	struct rp_entry *e;

	if (tree_catch_up(r, h))
		return NULL;
	at = tree_walk(r, h, tmpl, &parent, &left);
	if (at)
		return &h->e[at - 1];
	e = pk__rp_entry_push(r, h, tmpl);
	if (!e || tree_room(h))
		return NULL;
	pk__rbi_insert(h->t, &h->root, h->tn++, parent, left);
	return e;
}

/* Node P's paths of E's callchain (P's own frames in PATH[0..N)) into
 * the entry INTO, as perf's callchain_merge: P's hits, then its
 * children in perf's tree order. 0 or -ENOMEM. */
static int merge_paths(struct pk_report *r, struct rp_entry *into,
		       uint32_t p, uint32_t **path, uint32_t *cap, uint32_t n)
{
	uint32_t nk, *kids;
	int err = 0;

	if (r->node[p].sym != UINT32_MAX) {
		if (pk__rp_grow((void **)path, cap, n, sizeof(**path), 64))
			return -ENOMEM;
		(*path)[n++] = r->node[p].sym;
	}
	if (r->node[p].hit && n &&
	    pk__rp_chain_append(r, into, *path, n, r->node[p].hit))
		return -ENOMEM;
	kids = pk__rp_kids_in_order(r, p, &nk);
	if (nk && !kids)
		return -ENOMEM;
	for (uint32_t i = 0; i < nk && !err; i++)
		err = merge_paths(r, into, kids[i], path, cap, n);
	pk__free(kids);
	return err;
}

/* E's periods and callchain into its twin INTO (he_stat__add_stat,
 * callchain_merge: INTO keeps its depth). 0 or -ENOMEM. */
int pk__rp_merge(struct pk_report *r, struct rp_entry *into,
		 struct rp_entry *e)
{
	uint32_t depth = into->max_depth, *path = NULL, cap = 0;
	int err = 0;

	into->self += e->self;
	into->acc += e->acc;
	into->nr_self += e->nr_self;
	into->nr_acc += e->nr_acc;
	into->sys += e->sys;
	into->us += e->us;
	into->wsum += e->wsum;
	if (e->root)
		err = merge_paths(r, into, e->root, &path, &cap, 0);
	pk__free(path);
	into->max_depth = depth;
	e->self = e->acc = e->nr_self = e->nr_acc = e->sys = e->us = 0;
	e->shown = false;
	e->gone = true;
	r->cumul_stale = true;
	return err;
}

static void in_order(const struct pk_rbi *t, uint32_t n, uint32_t *out,
		     uint32_t *k)
{
	while (n) {
		in_order(t, t[n - 1].l, out, k);
		out[(*k)++] = n - 1;
		n = t[n - 1].r;
	}
}

/* perf's collapse of H: its entries in the tree's order into a second
 * tree, each merging into the one there its search finds. */
static int collapse(struct pk_report *r, struct rp_hists *h)
{
	uint32_t *seq = pk__malloc((h->n + 1) * sizeof(*seq)), k = 0;
	struct pk_rbi *t = pk__calloc(h->n + 1, sizeof(*t));
	uint32_t root = 0;
	int err = seq && t ? tree_catch_up(r, h) : -ENOMEM;

	if (!err)
		in_order(h->t, h->root, seq, &k);
	for (uint32_t i = 0; i < k && !err; i++) {
		struct rp_entry *e = &h->e[seq[i]];
		uint32_t link = root, parent = 0;
		bool left = false;
		int64_t c = 1;

		while (link) {
			c = pk__rp_entries_cmp(r, e, &h->e[link - 1]);
			if (!c)
				break;
			parent = link;
			left = c < 0;
			link = left ? t[link - 1].l : t[link - 1].r;
		}
		if (link)
			err = pk__rp_merge(r, &h->e[link - 1], e);
		else
			pk__rbi_insert(t, &root, seq[i], parent, left);
	}
	pk__free(seq);
	pk__free(t);
	h->collapsed = !err;
	return err;
}

int pk__rp_settle(struct pk_report *r)
{
	int err = 0;

	for (unsigned a = 0; a < r->nh && !err; a++)
		if (r->intree && pk__rp_need_collapse(r) &&
		    !r->h[a].collapsed && r->h[a].n)
			err = collapse(r, &r->h[a]);
	pk__rp_cumul(r);
	return err;
}
