// SPDX-License-Identifier: MIT
/*
 * perf report's browser over a report: one event's entries in the order
 * and with the lines --stdio prints (print.c lays them out, for the zoom
 * of the browser), and their callchains as rows of a tree (print_chain.c
 * sorts them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"

struct pk_report_view {
	struct pk_report *r;
	unsigned ev;
	struct pk_report_print_opts po;
	struct rp_entry **v;      /* the entries, in order */
	uint32_t n;
	char *text;               /* the lines, each NUL-ended */
	const char **line;        /* title, header, then the entries' */
	char *zdso, *zsym;        /* the zoom's copies */
	uint64_t total;           /* what percentages are of */
	uint64_t min_abs;         /* the callchain threshold */
	uint32_t *root_entry;     /* per node: entry index + 1 (roots) */
	uint32_t *koff, *kn;      /* per node: rows in pool (koff + 1) */
	uint32_t *pool, npool, cappool;
};

uint64_t pk_report_nr_samples(const struct pk_report *r, unsigned event)
{
	return event < r->nh ? r->h[event].nr_samples : 0;
}

bool pk__rp_in_zoom(const struct pk_report *r, const struct rp_entry *e)
{
	const struct rp_sym *s = &r->sym[e->sym];

	if (r->zoom.dso && (!s->dso || strcmp(s->dso, r->zoom.dso)))
		return false;
	if (r->zoom.thread && e->tid != r->zoom.tid)
		return false;
	return !r->zoom.sym || (s->name && strstr(s->name, r->zoom.sym));
}

/* The entries print_hists() prints, in its order. */
static int collect(struct pk_report_view *v)
{
	struct pk_report *r = v->r;
	struct rp_hists *h = &r->h[v->ev];
	uint64_t total = v->po.relative ? h->total_shown : h->total;
	int err;

	v->v = pk__malloc((h->n + 1) * sizeof(*v->v));
	if (!v->v)
		return -ENOMEM;
	for (uint32_t i = 0; i < h->n; i++)
		v->v[i] = &h->e[i];
	err = pk__rp_order(r, v->v, h->n);
	for (uint32_t i = 0; i < h->n && !err; i++) {
		const struct rp_entry *e = v->v[i];
		uint64_t p = r->o.children ? e->acc : e->self;

		if (!e->shown || (v->po.top && !p) ||
		    (total && p * 100.0 / total < v->po.percent_limit))
			continue;
		v->v[v->n++] = v->v[i];
	}
	return err;
}

/* The lines for the zoom now set: title, header, entries. */
static int lay_out(struct pk_report_view *v)
{
	struct pk_report *r = v->r;
	const struct rp_hists *h = &r->h[v->ev];
	uint64_t nr = v->po.relative ? h->nr_shown : h->nr_samples;
	char *buf = NULL, *p, *nl, empty[8] = "";
	char *head[6] = { empty, empty, empty, empty, empty, empty };
	size_t len = 0;
	FILE *f;

	v->total = v->po.relative ? h->total_shown : h->total;
	/* perf sorted the callchains before any zoom */
	v->min_abs = (uint64_t)(v->total * (v->po.chain_percent / 100));
	if (v->po.relative && (r->zoom.dso || r->zoom.thread || r->zoom.sym)) {
		/* perf counts the entries' own samples shown */
		nr = v->total = 0;
		for (uint32_t i = 0; i < v->n; i++)
			if (pk__rp_in_zoom(r, v->v[i]))
				nr += v->v[i]->nr_self, v->total += v->v[i]->self;
	}
	if (!(f = open_memstream(&buf, &len)))
		return -ENOMEM;
	pk__rp_put_lines(r, f, v->ev, v->v, v->n, nr, v->total, &v->po);
	if (fclose(f) || !buf)
		return -ENOMEM;
	free(v->text);
	v->text = buf;
	/* "# Samples...", "# Event count...", "#", header, dots, "#", rows */
	p = buf;
	for (uint32_t k = 0; k < v->n + 6 && (nl = strchr(p, '\n'));
	     k++, p = nl + 1) {
		*nl = '\0';
		if (k < 6)
			head[k] = p[0] == '#' && p[1] == ' ' ? p + 2 : p;
		else
			v->line[k - 4] = p;
	}
	/* the title: the first two lines as one */
	p = head[0] + strlen(head[0]);
	memmove(p + 2, head[1], strlen(head[1]) + 1);
	memcpy(p, ", ", 2);
	for (p = head[3] + strlen(head[3]); p > head[3] && p[-1] == ' '; p--)
		p[-1] = '\0';
	v->line[0] = head[0];
	v->line[1] = head[3];
	if (v->koff)
		memset(v->koff, 0, r->nnode * sizeof(*v->koff));
	v->npool = 0;
	return 0;
}

struct pk_report_view *pk_report_view_new(struct pk_report *r, unsigned event,
					  const struct pk_report_print_opts *opts)
{
	PK_OPTS(pk_report_print_opts, def, .chain = PK_REPORT_CHAIN_GRAPH,
		.chain_percent = 0.5);
	struct pk_report_view *v;
	int err;

	if (!PK_OPTS_VALID(opts, pk_report_print_opts) || event >= r->nh ||
	    !r->h[event].nr_samples) {
		errno = EINVAL;
		return NULL;
	}
	if (!(v = pk__zalloc(sizeof(*v)))) {
		errno = ENOMEM;
		return NULL;
	}
	v->r = r;
	v->ev = event;
	memcpy(&v->po, opts ? opts : &def,
	       opts && opts->sz < sizeof(v->po) ? opts->sz : sizeof(v->po));
	v->po.sz = sizeof(v->po);
	if (v->po.top) {	/* live: no collapse, totals as aged */
		pk__rp_cumul(r);
		err = 0;
	} else {
		err = pk__rp_settle(r);
		pk__rp_count_shown(&r->h[event]);
	}
	if (!err)
		err = collect(v);
	if (!err && !(v->line = pk__calloc(v->n + 2, sizeof(*v->line))))
		err = -ENOMEM;
	if (!err && r->nnode &&
	    (!(v->root_entry = pk__calloc(r->nnode, sizeof(uint32_t))) ||
	     !(v->koff = pk__calloc(r->nnode, sizeof(uint32_t))) ||
	     !(v->kn = pk__calloc(r->nnode, sizeof(uint32_t)))))
		err = -ENOMEM;
	for (uint32_t i = 0; i < v->n && !err; i++)
		if (v->v[i]->root)
			v->root_entry[v->v[i]->root] = i + 1;
	memset(&r->zoom, 0, sizeof(r->zoom));
	if (!err)
		err = lay_out(v);
	if (err) {
		pk_report_view_free(v);
		errno = -err;
		return NULL;
	}
	return v;
}

void pk_report_view_free(struct pk_report_view *v)
{
	if (!v)
		return;
	memset(&v->r->zoom, 0, sizeof(v->r->zoom));
	pk__free(v->v);
	free(v->text);
	pk__free(v->line);
	pk__free(v->zdso);
	pk__free(v->zsym);
	pk__free(v->root_entry);
	pk__free(v->koff);
	pk__free(v->kn);
	pk__free(v->pool);
	pk__free(v);
}

/* *TO: a copy of S (NULL stays NULL). 0 or -ENOMEM. */
static int set_copy(char **to, const char *s)
{
	char *c = s ? pk__strdup(s) : NULL;

	if (s && !c)
		return -ENOMEM;
	pk__free(*to);
	*to = c;
	return 0;
}

int pk_report_view_zoom(struct pk_report_view *v, const char *dso,
			bool thread, int32_t tid, const char *sym)
{
	struct rp_zoom *z = &v->r->zoom;

	if (set_copy(&v->zdso, dso) || set_copy(&v->zsym, sym && *sym ? sym :
						NULL))
		return -ENOMEM;
	z->dso = v->zdso;
	z->sym = v->zsym;
	z->thread = thread;
	z->tid = tid;
	return lay_out(v);
}

const char *pk_report_view_title(const struct pk_report_view *v)
{
	return v->line[0];
}

const char *pk_report_view_header(const struct pk_report_view *v)
{
	return v->line[1];
}

uint32_t pk_report_view_nr(const struct pk_report_view *v)
{
	return v->n;
}

const char *pk_report_view_line(const struct pk_report_view *v, uint32_t i)
{
	return i < v->n ? v->line[i + 2] : NULL;
}

int pk_report_view_entry(const struct pk_report_view *v, uint32_t i,
			 struct pk_report_entry *out)
{
	struct pk_report_entry o = { .sz = sizeof(o) };
	const struct rp_entry *e;
	const struct rp_sym *s;

	if (i >= v->n || !out || out->sz < sizeof(out->sz))
		return -EINVAL;
	e = v->v[i];
	s = &v->r->sym[e->sym];
	o.comm = pk__rp_thread_comm(v->r, e);
	o.pid = e->pid;
	o.tid = e->tid;
	o.dso = s->dso;
	o.sym = s->name;
	o.start = s->name ? s->start : e->addr;
	o.level = e->level;
	o.self = e->self;
	o.children = e->acc;
	o.nr_self = e->nr_self;
	o.nr_children = e->nr_acc;
	o.callchain = e->root && v->r->node[e->root].child &&
		      v->po.chain != PK_REPORT_CHAIN_NONE;
	memcpy(out, &o, out->sz < sizeof(o) ? out->sz : sizeof(o));
	out->sz = o.sz < out->sz ? o.sz : out->sz;
	return 0;
}

bool pk_report_view_shown(const struct pk_report_view *v, uint32_t i)
{
	return i < v->n && pk__rp_in_zoom(v->r, v->v[i]);
}

/* The entry index of trie node N's tree, or -1. */
static int64_t entry_of(const struct pk_report_view *v, uint32_t n)
{
	const struct pk_report *r = v->r;

	if (!n || n >= r->nnode)
		return -1;
	while (r->node[n].parent)
		n = r->node[n].parent;
	return v->root_entry[n] ? (int64_t)v->root_entry[n] - 1 : -1;
}

/* The rows under node P of entry E (cached per node). */
static int rows_of(struct pk_report_view *v, const struct rp_entry *e,
		   uint32_t p, const uint32_t **rows)
{
	uint32_t *kids;
	int n;

	if (!v->koff[p]) {
		n = pk__rp_chain_rows(v->r, e, p, v->min_abs, &v->po, &kids);
		if (n < 0)
			return n;
		if (n && pk__rp_grow((void **)&v->pool, &v->cappool,
				     v->npool + (uint32_t)n - 1,
				     sizeof(*v->pool), 256)) {
			pk__free(kids);
			return -ENOMEM;
		}
		if (n)
			memcpy(v->pool + v->npool, kids, n * sizeof(*kids));
		pk__free(kids);
		v->koff[p] = v->npool + 1;
		v->kn[p] = (uint32_t)n;
		v->npool += (uint32_t)n;
	}
	*rows = v->pool + v->koff[p] - 1;
	return (int)v->kn[p];
}

int pk_report_view_chain(struct pk_report_view *v, uint32_t i, uint32_t row,
			 const uint32_t **rows)
{
	int64_t e = row ? entry_of(v, row) : (int64_t)i;

	*rows = NULL;
	if (e < 0 || (uint64_t)e >= v->n || (row && row == v->v[e]->root))
		return -EINVAL;
	if (v->po.chain == PK_REPORT_CHAIN_NONE || !v->v[e]->root)
		return 0;
	return rows_of(v, v->v[e], row ? row : v->v[e]->root, rows);
}

/* The first frame of row N's merged node. */
static uint32_t run_first(const struct pk_report *r, const struct rp_entry *e,
			  uint32_t n)
{
	while (pk__rp_in_run(r, e, r->node[n].parent))
		n = r->node[n].parent;
	return n;
}

/* Whether first frame F and its siblings show percentages (perf: when
 * more than one, or one not worth all of its parent's). 0, 1, -ENOMEM. */
static int need_pct(struct pk_report_view *v, const struct rp_entry *e,
		    uint32_t f)
{
	const struct rp_node *p = &v->r->node[v->r->node[f].parent];
	const uint32_t *sib;
	int n = rows_of(v, e, v->r->node[f].parent, &sib);
	uint64_t all = p == &v->r->node[e->root] ?
		       (v->r->o.children ? e->acc : e->self) : p->cumul - p->hit;

	if (n < 0)
		return n;
	if (n > 1 && sib[1] == v->r->node[sib[0]].child)
		n = 1;	/* a lone top node's frames */
	return n > 1 || v->r->node[f].cumul != all;
}

/* perf's level of first frame F: its parent's, one more, two more below
 * a merged node with percentages (its frames are one level in). */
static int first_level(struct pk_report_view *v, const struct rp_entry *e,
		       uint32_t f)
{
	uint32_t p = v->r->node[f].parent, a;
	int la, np;

	if (p == e->root)
		return 1;
	a = run_first(v->r, e, p);
	if ((la = first_level(v, e, a)) < 0 || (np = need_pct(v, e, a)) < 0)
		return la < 0 ? la : np;
	return la + (np && a != p ? 2 : 1);
}

int pk_report_view_chain_line(struct pk_report_view *v, uint32_t row,
			      char *buf, size_t size)
{
	const struct pk_report *r = v->r;
	int64_t i = entry_of(v, row);
	const struct rp_entry *e;
	const struct rp_node *n, *p;
	uint32_t f;
	uint64_t base;
	int len = 0, np, lvl;
	FILE *f_;

	if (i < 0 || row == v->v[i]->root || !size)
		return -EINVAL;
	e = v->v[i];
	n = &r->node[row];
	p = &r->node[n->parent];
	f = run_first(r, e, row);
	if ((np = need_pct(v, e, f)) < 0 || (lvl = first_level(v, e, f)) < 0)
		return np < 0 ? np : lvl;
	if (f != row)
		lvl += np;
	buf[0] = '\0';
	if (np && f == row) {
		base = v->po.chain != PK_REPORT_CHAIN_FRACTAL ? r->h[v->ev].total :
		       n->parent == e->root ? (r->o.children ? e->acc : e->self) :
		       p->cumul - p->hit;
		len = snprintf(buf, size, "%.2f%% ",
			       base ? n->cumul * 100.0 / (double)base : 0.0);
		if (len < 0 || (size_t)len >= size)
			return lvl;
	}
	if (size - (size_t)len < 2)
		return lvl;
	if (!(f_ = fmemopen(buf + len, size - (size_t)len - 1, "w")))
		return -ENOMEM;
	setbuf(f_, NULL);
	pk__rp_chain_name(r, n->sym, f_);
	buf[len + ftell(f_)] = '\0';
	fclose(f_);
	return lvl;
}
