// SPDX-License-Identifier: MIT
/*
 * perf's order of report entries (hists__output_resort): the entries, in
 * the order of perf's tree of entries (the sort keys ascending), go one by
 * one into a red-black tree by perf's output comparison, equals to the
 * right. That comparison is not transitive (a caller goes above its callee
 * of equal period only within one thread), so the tree's shape decides:
 * this is the same insertion with the same rebalancing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/rbidx.h"
#include "report/report_int.h"

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

/* perf's _sort__sym_cmp of the OLD entry's symbol against the NEW one's:
 * an inlined function (its start and end its caller's) by name, one
 * function when the ranges meet (here: the same caller); else by start. */
static int64_t sym_cmp(const struct rp_sym *sn, const struct rp_sym *so)
{
	if (sn->inlined || so->inlined) {
		int c = strcmp(so->name, sn->name);

		if (c || sn->start == so->start)
			return c;
	}
	return (int64_t)(sn->start - so->start);
}

/* perf's sort__sym_cmp of the OLD entry against the NEW one. */
static int64_t sym_key_cmp(const struct pk_report *r, const struct rp_entry *nw,
			   const struct rp_entry *old)
{
	const struct rp_sym *sn = &r->sym[nw->sym], *so = &r->sym[old->sym];

	if (!sn->name && !so->name)
		return (int64_t)(nw->addr - old->addr);
	if (sn->dso != so->dso)
		return pk__rp_cmp_key(r, RK_DSO, nw, old);
	if (!sn->name || !so->name)
		return !sn->name - !so->name;
	return sym_cmp(sn, so);
}

/* The sort key KEY of A against B: negative when A goes first. */
int pk__rp_cmp_key(const struct pk_report *r, int key, const struct rp_entry *a,
		   const struct rp_entry *b)
{
	const struct rp_sym *sa = &r->sym[a->sym], *sb = &r->sym[b->sym];

	switch (key) {
	case RK_COMM:
		return strcmp(a->comm, b->comm);
	case RK_PID:
		return a->tid < b->tid ? -1 : a->tid > b->tid;
	case RK_DSO:
		if (!sa->dso || !sb->dso)
			return !sa->dso - !sb->dso;
		return strcmp(sa->dso, sb->dso);
	case RK_SYM:
		if (!sa->name || !sb->name)
			return !sa->name - !sb->name;
		return strcmp(sa->name, sb->name);
	case RF_IPC: {
		int64_t c = sym_key_cmp(r, b, a);

		return c > 0 ? -1 : c < 0;
	}
	default:
		return pk__rp_key_cmp(r, (unsigned)key, a, b);
	}
}

/* Entry E's value of field F (an RF_*); in a group, member M's. */
static uint64_t value(const struct pk_report *r, uint32_t f,
		      const struct rp_entry *e, unsigned m)
{
	const struct rp_grp_rows *g = r->gp;

	if (g)
		e = g->mem[(size_t)(e - g->rows) * g->nmem + m];
	if (!e)
		return 0;
	switch (f) {
	case RF_CHILDREN: return e->acc;
	case RF_SYS: return e->sys;
	case RF_US: return e->us;
	case RF_SAMPLE: return e->nr_self;
	default: return e->self;
	}
}

/* Field F of A against B: in a group, each member's in turn. */
static int value_cmp(const struct pk_report *r, uint32_t f,
		     const struct rp_entry *a, const struct rp_entry *b)
{
	unsigned n = r->gp ? r->gp->nmem : 1;
	int c = 0;

	/* perf's --group-sort-idx: that member alone (the leader when
	 * there is no such member) */
	if (r->gp && r->gp->sort_idx)
		n = r->gp->sort_idx < n ? r->gp->sort_idx + 1 : 1;
	for (unsigned m = r->gp && r->gp->sort_idx < n ? r->gp->sort_idx : 0;
	     !c && m < n; m++)
		c = cmp_u64(value(r, f, a, m), value(r, f, b, m));
	return c;
}

/* The children periods of A and B: perf puts a caller above its callee
 * of the same period. */
static int children_cmp(const struct pk_report *r, const struct rp_entry *a,
			const struct rp_entry *b)
{
	/* perf compares a group's leader alone here */
	int c = cmp_u64(value(r, RF_CHILDREN, a, 0), value(r, RF_CHILDREN, b, 0));

	if (!c && r->o.callchain && a->tid == b->tid)
		c = r->o.caller ? cmp_u64(a->max_depth, b->max_depth) :
				  cmp_u64(b->max_depth, a->max_depth);
	return c;
}

/* One of -F's fields (or sort keys) of A against B. */
static int field_cmp(const struct pk_report *r, uint32_t f,
		     const struct rp_entry *a, const struct rp_entry *b)
{
	if (f == RF_CHILDREN)
		return children_cmp(r, a, b);
	if (f >= RF_OVERHEAD)
		return value_cmp(r, f, a, b);
	return pk__rp_cmp_key(r, (int)f, a, b);
}

/* perf's output comparison, negated: negative when A goes above B. */
static int output_cmp(const struct pk_report *r, const struct rp_entry *a,
		      const struct rp_entry *b)
{
	int c = 0;

	if (r->norder) {
		for (unsigned i = 0; !c && i < r->norder; i++)
			c = field_cmp(r, r->order[i], a, b);
		return c;
	}
	if (r->o.children)
		c = children_cmp(r, a, b);
	if (!c)
		c = value_cmp(r, RF_OVERHEAD, a, b);
	for (unsigned k = 0; !c && k < r->nkeys; k++)
		c = pk__rp_cmp_key(r, r->keys[k], a, b);
	return c;
}

/* (hist_entry__cmp and __collapse) Unresolved addresses compare by their
 * difference as a signed number, as perf's. */
int64_t pk__rp_entries_cmp(const struct pk_report *r,
			   const struct rp_entry *nw,
			   const struct rp_entry *old)
{
	int64_t c = 0;

	for (unsigned k = 0; !c && k < r->nkeys; k++) {
		if (r->keys[k] == RF_IPC)
			c = sym_key_cmp(r, nw, old);
		else if (pk__rp_key_family(r->keys[k]))
			c = pk__rp_key_family(r->keys[k])->cmp(r, r->keys[k],
							       old, nw);
		else if (r->keys[k] != RK_SYM)
			c = pk__rp_cmp_key(r, r->keys[k], nw, old);
		else
			c = sym_key_cmp(r, nw, old);
	}
	return c;
}

static bool entries_left(const void *ctx, const void *nw, const void *old)
{
	return pk__rp_entries_cmp(ctx, nw, old) < 0;
}

static bool output_left(const void *ctx, const void *nw, const void *old)
{
	return output_cmp(ctx, nw, old) < 0;
}

static void in_order(const struct pk_rbi *t, uint32_t n, void **in, void **out,
		     uint32_t *k)
{
	while (n) {
		in_order(t, t[n - 1].l, in, out, k);
		out[(*k)++] = in[n - 1];
		n = t[n - 1].r;
	}
}

/* V's N items, in this order, into a red-black tree by LEFT (equals to
 * the right); then V in the tree's order. */
static void tree_sort(void **v, uint32_t n, struct pk_rbi *t, void **in,
		      pk__rp_left_fn left, const void *ctx)
{
	uint32_t root = 0, k = 0;

	memcpy(in, v, n * sizeof(*v));
	memset(t, 0, n * sizeof(*t));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t link = root, parent = 0;
		bool l = false;

		while (link) {
			parent = link;
			l = left(ctx, in[i], in[parent - 1]);
			link = l ? t[parent - 1].l : t[parent - 1].r;
		}
		pk__rbi_insert(t, &root, i, parent, l);
	}
	in_order(t, root, in, v, &k);
}

int pk__rp_rb_sort(void **v, uint32_t n, pk__rp_left_fn left, const void *ctx)
{
	struct pk_rbi *t = pk__calloc(n + 1, sizeof(*t));
	void **in = pk__malloc((n + 1) * sizeof(*in));

	if (t && in)
		tree_sort(v, n, t, in, left, ctx);
	pk__free(t);
	pk__free(in);
	return t && in ? 0 : -ENOMEM;
}

/* perf: entries go into its tree as made, then into the collapsed tree
 * in that tree's order, then into the output tree. */
/* perf collapses its entries (a second tree) when a sort key has a
 * collapse function of its own: of the keys here, comm. */
bool pk__rp_need_collapse(const struct pk_report *r)
{
	return (r->keymask & RK_COMM) != 0;
}

/* V's N entries with those merged into a twin (gone) moved last, in
 * order: how many are not. IN: room for N. */
static uint32_t gone_last(struct rp_entry **v, uint32_t n, void **in)
{
	uint32_t m = 0, k;

	for (uint32_t i = 0; i < n; i++)
		if (!v[i]->gone)
			in[m++] = v[i];
	k = m;
	for (uint32_t i = 0; i < n; i++)
		if (v[i]->gone)
			in[k++] = v[i];
	memcpy(v, in, n * sizeof(*v));
	return m;
}

int pk__rp_order(const struct pk_report *r, struct rp_entry **v, uint32_t n)
{
	struct pk_rbi *t = pk__calloc(n + 1, sizeof(*t));
	void **in = pk__malloc((n + 1) * sizeof(*in));
	uint32_t m;

	if (!t || !in) {
		pk__free(t);
		pk__free(in);
		return -ENOMEM;
	}
	tree_sort((void **)v, n, t, in, entries_left, r);
	/* the twins perf's collapse merged are in its first tree only */
	m = gone_last(v, n, in);
	if (pk__rp_need_collapse(r))
		tree_sort((void **)v, m, t, in, entries_left, r);
	tree_sort((void **)v, m, t, in, output_left, r);
	pk__free(t);
	pk__free(in);
	return 0;
}
