// SPDX-License-Identifier: MIT
/*
 * A report kept live, as perf top keeps its entries: aged between two
 * displays, shown as the rows of perf top's --stdio screen (the first
 * entries only, the columns as wide as those rows need, lines cut to the
 * terminal).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"

/* perf's decay: 7/8 of what was (integer division). */
static uint64_t aged(uint64_t v)
{
	return v * 7 / 8;
}

/* perf's hists__decay_entry: the entry's periods aged; one that had no
 * period of its own (a caller only, with children) or ages to none is
 * deleted: emptied here, its callchain dropped (a sample makes it anew).
 * Whether it was. */
static bool decay_entry(struct rp_hists *h, struct rp_entry *e)
{
	uint64_t lost = e->self - aged(e->self);

	if (e->self) {
		h->total -= lost;   /* what the filters let by is summed
				       when printing */
		e->self -= lost;
		e->acc = aged(e->acc);
		e->nr_self = aged(e->nr_self);
		e->nr_acc = aged(e->nr_acc);
		if (e->self)
			return false;
	}
	e->self = e->acc = e->nr_self = e->nr_acc = 0;
	e->max_depth = 0;
	if (!e->root)
		return false;
	e->root = 0;
	return true;
}

/* Room for the aging's notes of every node. 0 or -ENOMEM. */
static int bias_room(struct pk_report *r)
{
	int64_t *b = pk__realloc(r->node_bias, (r->nnode + 1) * sizeof(*b));
	uint8_t *s;

	if (!b)
		return -ENOMEM;
	r->node_bias = b;
	s = pk__realloc(r->node_split, r->nnode + 1);
	if (!s)
		return -ENOMEM;
	r->node_split = s;
	memset(b + r->nbias, 0, (r->nnode - r->nbias) * sizeof(*b));
	memset(s + r->nbias, 0, r->nnode - r->nbias);
	r->nbias = r->nnode;
	return 0;
}

/*
 * perf's decay_callchain: each of its nodes (a run of the trie's) keeps
 * 7/8 of its hit, and its children_hit becomes the sum of its children's
 * hits only (what came to their children is forgotten until new samples
 * add to it). The trie's hits are aged; each node's difference from
 * that sum is noted for pk__rp_cumul.
 */
static int age_nodes(struct pk_report *r)
{
	int err = bias_room(r);

	if (err)
		return err;
	for (uint32_t i = 1; i < r->nnode; i++) {
		r->node_split[i] |= r->node[i].hit != 0;
		r->node[i].hit = aged(r->node[i].hit);
	}
	r->nbias = 0;               /* the trie's own sums first */
	r->cumul_stale = true;
	pk__rp_cumul(r);
	r->nbias = r->nnode;
	for (uint32_t i = 1; i < r->nnode; i++) {
		/* a root has no frames: its children are its own */
		uint32_t end = r->node[i].parent ? pk__rp_run_end(r, i) : i;
		uint64_t v = r->node[end].hit;

		for (uint32_t c = r->node[end].child; c; c = r->node[c].next)
			v += r->node[pk__rp_run_end(r, c)].hit;
		r->node_bias[i] = (int64_t)(v - r->node[i].cumul);
	}
	r->cumul_stale = true;
	return 0;
}

/* Drops the nodes that no entry reaches (deleted entries' callchains);
 * the others keep their order (siblings are ordered by their making).
 * The memos name nodes: they go. 0 or -ENOMEM. */
static int compact_nodes(struct pk_report *r)
{
	uint32_t *map = pk__calloc(r->nnode + 1, sizeof(*map)), k = 1, nb = 0;

	if (!map)
		return -ENOMEM;
	for (unsigned a = 0; a < r->nh; a++)
		for (uint32_t i = 0; i < r->h[a].n; i++)
			if (r->h[a].e[i].root)
				map[r->h[a].e[i].root] = 1;
	/* a node is made after its parent: one pass marks the trees */
	for (uint32_t i = 1; i < r->nnode; i++)
		if (r->node[i].parent && map[r->node[i].parent])
			map[i] = 1;
	for (uint32_t i = 1; i < r->nnode; i++)
		if (map[i])
			map[i] = k++;
	for (uint32_t i = 1; i < r->nnode; i++) {
		struct rp_node n = r->node[i];

		if (!map[i])
			continue;
		n.parent = map[n.parent];
		n.child = map[n.child];
		n.next = map[n.next];
		n.hint = map[n.hint];
		r->node[map[i]] = n;
		if (i < r->nbias) {
			r->node_bias[map[i]] = r->node_bias[i];
			r->node_split[map[i]] = r->node_split[i];
			nb = map[i] + 1;
		}
	}
	for (unsigned a = 0; a < r->nh; a++)
		for (uint32_t i = 0; i < r->h[a].n; i++)
			r->h[a].e[i].root = map[r->h[a].e[i].root];
	r->nnode = k;
	r->nbias = nb;
	r->last_end = 0;
	r->cumul_stale = true;
	pk__free(map);
	pk__rp_memo_reset(r);
	return pk__rp_reindex_nodes(r);
}

int pk_report_decay(struct pk_report *r)
{
	bool dropped = false;

	for (unsigned a = 0; a < r->nh; a++) {
		struct rp_hists *h = &r->h[a];

		for (uint32_t i = 0; i < h->n; i++)
			dropped |= decay_entry(h, &h->e[i]);
	}
	if (dropped) {
		int err = compact_nodes(r);

		if (err)
			return err;
	}
	return r->nnode > 1 ? age_nodes(r) : 0;
}

/* Whether E is a row of top's display: let by the filters, not aged to
 * nothing. */
static bool top_row(const struct pk_report *r, const struct rp_entry *e)
{
	return e->shown && (r->o.children ? e->acc : e->self);
}

/* perf top's widths: the headers', grown by the first ROWS rows only; an
 * unresolved symbol widens the DSO column to an address's width. */
static void top_widths(struct pk_report *r, struct rp_entry **v, uint32_t n,
		       struct rp_cols *c, bool fit)
{
	if (fit)
		c->comm = c->pid = c->dso = c->sym = 0;
	else
		c->comm = 7, c->pid = 11, c->dso = 13, c->sym = 6;
	memset(c->w, 0, sizeof(c->w));   /* no other key (print_top) */
	for (uint32_t i = 0; i < n; i++) {
		const struct rp_sym *s = &r->sym[v[i]->sym];

		c->comm = pk__rp_max(c->comm, (int)strlen(v[i]->comm));
		c->sym = pk__rp_max(c->sym, pk__rp_sym_len(s));
		c->dso = pk__rp_max(c->dso, (int)strlen(pk__rp_dso_of(r, s)));
		if (!s->name)
			c->dso = pk__rp_max(c->dso, 16);
	}
	c->pid = pk__rp_max(c->pid, c->comm + 8);
}

/* The browser's column titles, each cut to its column (perf's TUI). */
static void put_header(struct pk_report *r, FILE *f, const struct rp_cols *c,
		       const struct pk_report_top_opts *o)
{
	fputs(r->o.children ? "Children      Self" : "Overhead", f);
	if (o->show_nr_samples)
		fputs("       Samples", f);
	for (unsigned k = 0; k < r->nkeys; k++) {
		int key = r->keys[k];
		int w = key == RK_COMM ? c->comm : key == RK_PID ? c->pid :
			key == RK_DSO ? c->dso : c->sym;
		const char *t = key == RK_COMM ? "Command" : key == RK_PID ?
			"Pid:Command" : key == RK_DSO ? "Shared Object" : "Symbol";

		if (k + 1 == r->nkeys)
			fprintf(f, "  %.*s", w, t);
		else
			fprintf(f, "  %-*.*s", w, w, t);
	}
	fputc('\n', f);
}

/* The lines of BUF (LEN) into F, each cut to WIDTH - 1 characters (0:
 * whole). */
static void put_cut(FILE *f, const char *buf, size_t len, unsigned width)
{
	for (const char *l = buf, *nl; l < buf + len; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(buf + len - l));
		if (!nl)
			nl = buf + len;
		if (width && nl - l > (long)width - 1)
			fwrite(l, 1, width - 1, f), fputc('\n', f);
		else
			fwrite(l, 1, (size_t)(nl - l), f), fputc('\n', f);
	}
}

/* The rows of V (N) into F, each cut to WIDTH - 1 characters (0: whole),
 * each with its callchain (whole, as perf's) when asked. */
static int put_rows(struct pk_report *r, FILE *f, struct rp_entry **v,
		    uint32_t n, uint64_t total,
		    const struct pk_report_top_opts *o)
{
	PK_OPTS(pk_report_print_opts, po, .chain = PK_REPORT_CHAIN_NONE,
		.show_nr_samples = o->show_nr_samples);
	PK_OPTS(pk_report_print_opts, co, .chain = o->chain,
		.chain_percent = o->chain_percent);
	struct rp_cols c;
	char *buf = NULL;
	size_t len = 0, done = 0;
	FILE *m = open_memstream(&buf, &len);
	unsigned shown = 0;
	int err = 0;

	if (!m)
		return -ENOMEM;
	top_widths(r, v, o->rows && o->rows < n ? o->rows : n, &c, o->fit);
	if (o->fit)
		put_header(r, m, &c, o);
	for (uint32_t i = 0; i < n && !err && (!o->rows || shown < o->rows);
	     i++) {
		uint64_t p = r->o.children ? v[i]->acc : v[i]->self;

		if (total && p * 100.0 / (double)total < o->percent_limit)
			continue;
		pk__rp_put_row(r, m, v[i], &c, total, &po);
		shown++;
		if (o->chain == PK_REPORT_CHAIN_NONE)
			continue;
		if (fflush(m)) {
			err = -ENOMEM;
			break;
		}
		put_cut(f, buf + done, len - done - 1, o->width);
		done = len;
		err = pk__rp_print_chain(r, f, v[i], total, total, &co);
	}
	if (fclose(m)) {
		pk__free(buf);
		return -ENOMEM;
	}
	if (len > done)
		put_cut(f, buf + done, len - done - 1, o->width);
	free(buf);
	return err ? err : ferror(f) ? -EIO : 0;
}

int pk_report_print_top(struct pk_report *r, FILE *f,
			const struct pk_report_top_opts *opts)
{
	PK_OPTS(pk_report_top_opts, def);
	const struct pk_report_top_opts *o = opts ? opts : &def;
	struct rp_hists *h;
	struct rp_entry **v;
	uint32_t n = 0;
	int err;

	if (!PK_OPTS_VALID(opts, pk_report_top_opts))
		return -EINVAL;
	if (r->keymask & ~(unsigned)(RK_COMM | RK_PID | RK_DSO | RK_SYM) ||
	    r->nfields)
		return -ENOTSUP;
	if (o->attr >= r->nh)
		return 0;
	h = &r->h[o->attr];
	v = pk__malloc((h->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->n; i++)
		v[n++] = &h->e[i];
	pk__rp_cumul(r);
	err = pk__rp_order(r, v, n);
	if (!err) {
		uint32_t k = 0;

		for (uint32_t i = 0; i < n; i++) {
			const char *name = r->sym[v[i]->sym].name;

			if (top_row(r, v[i]) &&
			    (!o->sym || (name && strstr(name, o->sym))))
				v[k++] = v[i];
		}
		r->kernel_dso = "[kernel]";
		r->color = o->color;
		err = put_rows(r, f, v, k, h->total, o);
		r->kernel_dso = NULL;
		r->color = false;
	}
	pk__free(v);
	return err;
}

uint64_t pk_report_total_period(const struct pk_report *r, unsigned attr)
{
	return attr < r->nh ? r->h[attr].total : 0;
}
