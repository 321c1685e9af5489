// SPDX-License-Identifier: MIT
/*
 * Callchains below a report entry, as perf report --stdio draws them:
 * graph (percentages of the total) and fractal (of the parent), flat and
 * folded. The trie's runs of one child and no hits print as one node.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"

struct gctx {
	struct pk_report *r;
	FILE *f;
	const struct pk_report_print_opts *po;
	uint64_t min_abs;     /* graph: the threshold in period */
};

uint32_t pk__rp_run_end(const struct pk_report *r, uint32_t n)
{
	while (!pk__rp_node_ends(r, n) && r->node[n].child &&
	       !r->node[r->node[n].child].next)
		n = r->node[n].child;
	return n;
}

static const struct pk_report *sort_r;

/* perf orders by DSO address: none lowest, then the kernel's (made
 * first), then the others as they came. */
static uint32_t dso_rank(const struct rp_sym *s)
{
	if (!s->dso)
		return 0;
	return s->level == 'k' ? 1 : s->dso_idx + 2;
}

/* perf's tree of a node's children as they are made (match_chain): an
 * inlined function against another by name, else by DSO and symbol
 * start; the greater goes left. */
static bool kid_left(const void *ctx, const void *nw, const void *old)
{
	const struct pk_report *r = ctx;
	const struct rp_sym *sn = &r->sym[r->node[(uintptr_t)nw].sym];
	const struct rp_sym *so = &r->sym[r->node[(uintptr_t)old].sym];
	uint32_t dn = dso_rank(sn), dold = dso_rank(so);
	int c;

	if (sn->name && so->name && (sn->inlined || so->inlined) &&
	    (c = strcmp(so->name, sn->name)))
		return c < 0;
	if (dold != dn)
		return dold < dn;
	return so->start < sn->start;
}

uint32_t *pk__rp_kids_in_order(const struct pk_report *r, uint32_t p,
			       uint32_t *n)
{
	uint32_t k = 0;
	void **v;
	uint32_t *u;

	*n = 0;
	for (uint32_t c = r->node[p].child; c; c = r->node[c].next)
		k++;
	if (!k || !(v = pk__malloc(k * sizeof(*v))))
		return NULL;
	/* made in this order (the list is newest first) */
	*n = k;
	for (uint32_t c = r->node[p].child; c; c = r->node[c].next)
		v[--k] = (void *)(uintptr_t)c;
	if (pk__rp_rb_sort(v, *n, kid_left, r)) {
		pk__free(v);
		*n = 0;
		return NULL;
	}
	u = (uint32_t *)v;
	for (uint32_t i = 0; i < *n; i++)
		u[i] = (uint32_t)(uintptr_t)v[i];
	return u;
}

static const struct pk_report *sort_r;

/* Heavier first, equals in the order given (their place in the array:
 * qsort is not stable). */
static int by_cumul(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	uint64_t cx = sort_r->node[*x].cumul, cy = sort_r->node[*y].cumul;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The children of trie node P worth MIN_HIT or more, sorted: a new array
 * (NULL when none or out of memory), the count in *N. */
static uint32_t *sorted_kids(const struct pk_report *r, uint32_t p,
			     uint64_t min_hit, uint32_t *n)
{
	uint32_t k, *v = pk__rp_kids_in_order(r, p, &k);

	*n = 0;
	for (uint32_t i = 0; i < k; i++)
		if (r->node[v[i]].cumul >= min_hit)
			v[(*n)++] = v[i];
	sort_r = r;
	if (*n)
		qsort(v, *n, sizeof(*v), by_cumul);
	return v;
}

static void sym_name(const struct pk_report *r, uint32_t sym, FILE *f)
{
	const struct rp_sym *s = &r->sym[sym];

	if (s->name)
		fprintf(f, "%s%s", s->name, s->inlined ? " (inlined)" : "");
	else
		fprintf(f, "%#" PRIx64, s->start);
}

static void margin(FILE *f, int lm)
{
	fprintf(f, "            %*s", lm, "");
}

static void graph_line(struct gctx *g, int depth, int mask, int lm)
{
	margin(g->f, lm);
	for (int i = 0; i < depth; i++)
		fputs(mask & (1 << i) ? "|          " : "           ", g->f);
	fputc('\n', g->f);
}

/* One frame line: the branches, the percentage on the first (SYM
 * UINT32_MAX: perf's "[...]" of the rest). */
static void graph_frame(struct gctx *g, uint64_t cumul, uint32_t sym,
			int depth, int mask, int first, uint64_t total, int lm)
{
	margin(g->f, lm);
	for (int i = 0; i < depth; i++) {
		fputc(mask & (1 << i) ? '|' : ' ', g->f);
		if (first && i == depth - 1)
			fprintf(g->f, "--%.2f%%--", cumul * 100.0 / total);
		else
			fputs("          ", g->f);
	}
	if (sym == UINT32_MAX)
		fputs("[...]", g->f);
	else
		sym_name(g->r, sym, g->f);
	fputc('\n', g->f);
}

static uint64_t kid_min(struct gctx *g, uint32_t p)
{
	const struct rp_node *n = &g->r->node[p];

	if (g->po->chain != PK_REPORT_CHAIN_FRACTAL)
		return g->min_abs;
	return (uint64_t)ceil((double)(n->cumul - n->hit) *
			      (g->po->chain_percent / 100.0));
}

/* perf's __callchain__fprintf_graph: the children of trie node P at
 * DEPTH. Returns the lines printed or -ENOMEM. */
static int graph_level(struct gctx *g, uint32_t p, uint64_t total, int depth,
		       int mask, int lm)
{
	const struct pk_report *r = g->r;
	bool rel = g->po->chain == PK_REPORT_CHAIN_FRACTAL;
	uint32_t nk, *kids = sorted_kids(r, p, kid_min(g, p), &nk);
	uint64_t remaining = total;
	int newmask = mask, lines = 0;
	uint32_t i;

	if (!kids && r->node[p].child)
		return -ENOMEM;
	for (i = 0; i < nk; i++) {
		uint32_t c = kids[i], end = pk__rp_run_end(r, c), at = c;
		int sub;

		remaining -= r->node[c].cumul;
		if (i + 1 == nk && (!rel || !remaining))
			newmask &= ~(1 << (depth - 1));
		graph_line(g, depth, mask, lm);
		for (int k = 0;; k++, at = r->node[at].child) {
			graph_frame(g, r->node[c].cumul, r->node[at].sym, depth,
				    newmask, !k, total, lm);
			lines += 2;
			if (at == end)
				break;
		}
		sub = graph_level(g, end, rel ? r->node[end].cumul -
				  r->node[end].hit : total, depth + 1,
				  newmask | (1 << depth), lm);
		if (sub < 0) {
			pk__free(kids);
			return sub;
		}
		lines += sub;
		if (g->po->print_limit && i + 1 == g->po->print_limit)
			break;
	}
	pk__free(kids);
	if (rel && remaining && remaining != total) {
		newmask &= ~(1 << (depth - 1));
		graph_frame(g, remaining, UINT32_MAX, depth, newmask, 1, total,
			    lm);
		lines++;
	}
	return lines;
}

/* The stem perf draws for a lone top node: its frames after "---". */
static int stem(struct gctx *g, uint32_t top, bool skip_first, int *lm)
{
	const struct pk_report *r = g->r;
	uint32_t end = pk__rp_run_end(r, top), printed = 0;
	int lines = 0;

	for (uint32_t at = top, k = 0;; at = r->node[at].child, k++) {
		if (!(k == 0 && skip_first)) {
			margin(g->f, *lm);
			if (!lines) {
				fputs("|\n", g->f);
				margin(g->f, *lm);
				fputs("---", g->f);
				*lm += 3;
			}
			lines++;
			sym_name(r, r->node[at].sym, g->f);
			fputc('\n', g->f);
			if (++printed == g->po->print_limit)
				break;
		}
		if (at == end)
			break;
	}
	return lines;
}

/* perf's callchain__fprintf_graph. */
static int graph(struct gctx *g, const struct rp_entry *e, uint64_t total,
		 uint64_t parent, bool skip_first)
{
	const struct pk_report *r = g->r;
	uint32_t nk, *kids = sorted_kids(r, e->root, kid_min(g, e->root), &nk);
	uint32_t p = e->root;
	int lm = 0, lines = 0, sub;

	if (!kids && r->node[p].child)
		return -ENOMEM;
	/* a lone top node that holds all of the entry's period: a stem */
	if (nk == 1 && r->node[kids[0]].cumul == parent) {
		lines = stem(g, kids[0], skip_first, &lm);
		p = pk__rp_run_end(r, kids[0]);
	}
	pk__free(kids);
	if (g->po->chain == PK_REPORT_CHAIN_FRACTAL)
		total = parent;
	sub = graph_level(g, p, total, 1, 1, lm);
	if (sub < 0)
		return sub;
	if (lines + sub)
		fputc('\n', g->f);
	return 0;
}

/* Appends the nodes under P where chains end, worth MIN_HIT or more, in
 * the order perf's flat sort meets them: children in the unsorted tree's
 * order, then the node. */
static int ends(const struct pk_report *r, uint32_t p, uint64_t min_hit,
		uint32_t **v, uint32_t *n, uint32_t *cap)
{
	uint32_t nk, *kids = pk__rp_kids_in_order(r, p, &nk);
	int err = 0;

	if (r->node[p].child && !kids)
		return -ENOMEM;
	for (uint32_t i = 0; i < nk && !err; i++)
		err = ends(r, kids[i], min_hit, v, n, cap);
	pk__free(kids);
	if (err || !r->node[p].hit || r->node[p].hit < min_hit)
		return err;
	if (pk__rp_grow((void **)v, cap, *n, sizeof(**v), 64))
		return -ENOMEM;
	(*v)[(*n)++] = p;
	return 0;
}

/* Heavier first, equals in the order met (their place in the array:
 * qsort is not stable). */
static int by_hit(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	uint64_t hx = sort_r->node[*x].hit, hy = sort_r->node[*y].hit;

	if (hx != hy)
		return hx > hy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* One end's path from the top: flat's lines or folded's fields. */
static void path(const struct pk_report *r, FILE *f, uint32_t n, bool folded)
{
	if (r->node[r->node[n].parent].parent) {
		path(r, f, r->node[n].parent, folded);
		if (folded)
			fputc(';', f);
	}
	if (!folded)
		fputs("                ", f);
	sym_name(r, r->node[n].sym, f);
	if (!folded)
		fputc('\n', f);
}

/* perf's callchain__fprintf_flat and _folded. */
static int flat(struct gctx *g, const struct rp_entry *e, uint64_t total)
{
	const struct pk_report *r = g->r;
	bool folded = g->po->chain == PK_REPORT_CHAIN_FOLDED;
	uint32_t n = 0, cap = 0, *v = NULL;
	int err = ends(r, e->root, g->min_abs, &v, &n, &cap);

	if (!err && n) {
		sort_r = r;
		qsort(v, n, sizeof(*v), by_hit);
	}
	for (uint32_t i = 0; i < n && !err; i++) {
		/* sorted by hits, flat shows what passes through */
		fprintf(g->f, folded ? "%.2f%% " : "           %.2f%%\n",
			(folded ? r->node[v[i]].hit : r->node[v[i]].cumul) *
			100.0 / total);
		path(r, g->f, v[i], folded);
		fputc('\n', g->f);
		if (i + 1 == g->po->print_limit)
			break;
	}
	pk__free(v);
	return err;
}

int pk__rp_print_chain(struct pk_report *r, FILE *f, const struct rp_entry *e,
		       uint64_t total, uint64_t base,
		       const struct pk_report_print_opts *po)
{
	struct gctx g = { .r = r, .f = f, .po = po,
			  .min_abs = (uint64_t)(base * (po->chain_percent / 100)) };

	if (!e->root)
		return 0;
	if (po->chain == PK_REPORT_CHAIN_FLAT || po->chain == PK_REPORT_CHAIN_FOLDED)
		return flat(&g, e, total);
	return graph(&g, e, total, r->o.children ? e->acc : e->self,
		     r->nkeys && (r->keys[0] == RK_SYM ||
				  r->keys[0] == RK_SYMSIZE) && !r->nfields);
}

/* The frames of the merged node that starts at N, all of them (FIRST 0)
 * or those after FIRST, into a new array *V. The count or -ENOMEM. */
static int run_rows(const struct pk_report *r, uint32_t n, uint32_t first,
		    uint32_t **v)
{
	uint32_t end = pk__rp_run_end(r, n), k = 0;

	for (uint32_t c = n;; c = r->node[c].child) {
		k += c != first;
		if (c == end)
			break;
	}
	if (!(*v = pk__malloc(k * sizeof(**v))))
		return -ENOMEM;
	k = 0;
	for (uint32_t c = n;; c = r->node[c].child) {
		if (c != first)
			(*v)[k++] = c;
		if (c == end)
			break;
	}
	return (int)k;
}

/* Whether E's callchain starts with one merged node of several frames
 * worth MIN_HIT, alone (perf lists its frames as the top rows). */
static bool lone_top(const struct pk_report *r, const struct rp_entry *e,
		     uint64_t min_hit)
{
	uint32_t one = 0, n = 0;

	for (uint32_t c = r->node[e->root].child; c; c = r->node[c].next)
		if (r->node[c].cumul >= min_hit)
			one = c, n++;
	return n == 1 && pk__rp_in_run(r, e, one);
}

bool pk__rp_in_run(const struct pk_report *r, const struct rp_entry *e,
		   uint32_t n)
{
	const struct rp_node *x = &r->node[n];

	return n != e->root && !x->hit && x->child && !r->node[x->child].next;
}

int pk__rp_chain_rows(const struct pk_report *r, const struct rp_entry *e,
		      uint32_t p, uint64_t min_abs,
		      const struct pk_report_print_opts *po, uint32_t **v)
{
	struct gctx g = { .r = (struct pk_report *)r, .po = po,
			  .min_abs = min_abs };
	uint32_t nk = 0;

	*v = NULL;
	if (!r->node[p].child)
		return 0;
	if (pk__rp_in_run(r, e, p)) {
		/* a merged node's first frame: the others; a middle one,
		 * or a lone top node's first (perf folds it not): none */
		if (pk__rp_in_run(r, e, r->node[p].parent) ||
		    (r->node[p].parent == e->root &&
		     lone_top(r, e, kid_min(&g, e->root))))
			return 0;
		return run_rows(r, p, p, v);
	}
	if (p == e->root && lone_top(r, e, kid_min(&g, p))) {
		uint32_t c = r->node[p].child;

		while (r->node[c].cumul < kid_min(&g, p))
			c = r->node[c].next;
		return run_rows(r, c, 0, v);
	}
	*v = sorted_kids(r, p, kid_min(&g, p), &nk);
	return *v ? (int)nk : -ENOMEM;
}

void pk__rp_chain_name(const struct pk_report *r, uint32_t sym, FILE *f)
{
	sym_name(r, sym, f);
}
