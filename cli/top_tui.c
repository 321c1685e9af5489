// SPDX-License-Identifier: MIT
/*
 * perfkit top's browser: cli/tui.h's list over the report's entries. The
 * model's refresh reads the rings every tenth of a second and, every -d
 * seconds, takes the entries as they stand (perf top's rows), then ages
 * the report as the text screen does.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "top.h"
#include "tui.h"

/*
 * -g: each row (an entry or a callchain row) has an id kept across
 * refreshes by what it shows (the entry's keys; a callchain row's
 * parent and function), so that, as in perf, an expanded entry stays
 * expanded while its place in the list changes. A display's rows are
 * a snapshot (nodes) taken from a view of the report, freed before the
 * report takes more samples.
 */
struct ids {
	char **key;             /* by id */
	uint32_t n, cap;
	uint32_t *slot;         /* id + 1, open addressing */
	uint32_t nslot;
};

struct node {
	uint32_t id;
	uint32_t text;          /* offset in the pool */
	int level;              /* 0: an entry */
	uint32_t kid0, nkid;    /* its rows: nodes kid0 .. kid0 + nkid */
};

struct top_view {
	struct top *t;
	char *text;             /* the rows, newline-separated */
	char **lines;
	int n, cap;
	char title[320];
	char hdr[256];
	const char *header;
	char *filter;           /* the browser's / text, NULL: none */
	bool chains;            /* -g */
	struct ids ids;
	struct node *node;      /* entries first, in order */
	uint32_t nnode, capnode;
	char *pool;
	size_t npool, cappool;
	uint32_t *at;           /* by id: node + 1, 0: not shown */
	uint32_t capat;
};

/* Ids beyond this many keys start over (expansions are forgotten). */
#define IDS_MAX (1u << 20)

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static void ids_free(struct ids *d)
{
	for (uint32_t i = 0; i < d->n; i++)
		free(d->key[i]);
	free(d->key);
	free(d->slot);
	memset(d, 0, sizeof(*d));
}

static int ids_grow(struct ids *d)
{
	uint32_t ns = d->nslot ? d->nslot * 2 : 1024;
	uint32_t *slot = calloc(ns, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (uint32_t id = 0; id < d->n; id++) {
		uint32_t i = (uint32_t)str_hash(d->key[id]) & (ns - 1);

		while (slot[i])
			i = (i + 1) & (ns - 1);
		slot[i] = id + 1;
	}
	free(d->slot);
	d->slot = slot;
	d->nslot = ns;
	return 0;
}

/* KEY's id, a new one for a key not seen; UINT32_MAX: no memory. */
static uint32_t ids_of(struct ids *d, const char *key)
{
	uint32_t i;

	if ((d->n + 1) * 2 > d->nslot && ids_grow(d))
		return UINT32_MAX;
	for (i = (uint32_t)str_hash(key) & (d->nslot - 1); d->slot[i];
	     i = (i + 1) & (d->nslot - 1))
		if (!strcmp(d->key[d->slot[i] - 1], key))
			return d->slot[i] - 1;
	if (d->n == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 1024;
		char **k = realloc(d->key, cap * sizeof(*k));

		if (!k)
			return UINT32_MAX;
		d->key = k;
		d->cap = cap;
	}
	if (!(d->key[d->n] = strdup(key)))
		return UINT32_MAX;
	d->slot[i] = d->n + 1;
	return d->n++;
}

static void *id_row(uint32_t id)
{
	return (void *)((uintptr_t)id + 1);
}

/* The node shown as ROW this display, or NULL. */
static const struct node *row_node(const struct top_view *v, void *row)
{
	uint32_t id = (uint32_t)((uintptr_t)row - 1);

	return id < v->capat && v->at[id] ? &v->node[v->at[id] - 1] : NULL;
}

static int nr_children(void *ctx, void *row)
{
	struct top_view *v = ctx;
	const struct node *nd;

	if (!row)
		return v->n;
	if (!v->chains)
		return 0;
	nd = row_node(v, row);
	return nd ? (int)nd->nkid : 0;
}

/* Without -g the rows are their positions (1-based): the selection
 * stays in place. */
static void *child(void *ctx, void *row, int i)
{
	struct top_view *v = ctx;
	const struct node *nd;

	if (!v->chains)
		return row ? NULL : (void *)(uintptr_t)(i + 1);
	if (!row)
		return i < v->n && (uint32_t)i < v->nnode ?
			id_row(v->node[i].id) : NULL;
	nd = row_node(v, row);
	return nd && (uint32_t)i < nd->nkid ?
		id_row(v->node[nd->kid0 + (uint32_t)i].id) : NULL;
}

static void text(void *ctx, void *row, char *buf, size_t size)
{
	struct top_view *v = ctx;
	const struct node *nd = v->chains ? row_node(v, row) : NULL;
	int i = (int)(uintptr_t)row - 1;
	const char *l = "";

	if (nd && nd->level) {
		snprintf(buf, size, "%s", v->pool + nd->text);
		return;
	}
	if (nd)
		i = (int)(nd - v->node);
	if (i >= 0 && i < v->n)
		l = v->lines[i];
	/* the browser draws a mark and a space where the text has two */
	snprintf(buf, size, "%s", strncmp(l, "  ", 2) ? l : l + 2);
}

/* perf indents each callchain level three columns. */
static int indent(void *ctx, void *row, int depth)
{
	struct top_view *v = ctx;
	const struct node *nd = v->chains ? row_node(v, row) : NULL;

	return 3 * (nd ? nd->level : depth);
}

/* A node for ID (its text copied) at the end of the snapshot. */
static int add_node(struct top_view *v, uint32_t id, const char *text,
		    int level)
{
	size_t len = strlen(text) + 1;

	if (v->nnode == v->capnode) {
		uint32_t cap = v->capnode ? v->capnode * 2 : 256;
		struct node *p = realloc(v->node, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		v->node = p;
		v->capnode = cap;
	}
	if (v->npool + len > v->cappool) {
		size_t cap = v->cappool ? v->cappool * 2 : 4096;
		char *p;

		while (cap < v->npool + len)
			cap *= 2;
		if (!(p = realloc(v->pool, cap)))
			return -ENOMEM;
		v->pool = p;
		v->cappool = cap;
	}
	if (id >= v->capat) {
		uint32_t cap = v->capat ? v->capat : 1024;
		uint32_t *p;

		while (cap <= id)
			cap *= 2;
		if (!(p = realloc(v->at, cap * sizeof(*p))))
			return -ENOMEM;
		memset(p + v->capat, 0, (cap - v->capat) * sizeof(*p));
		v->at = p;
		v->capat = cap;
	}
	memcpy(v->pool + v->npool, text, len);
	v->node[v->nnode] = (struct node){ .id = id, .level = level,
					   .text = (uint32_t)v->npool };
	v->npool += len;
	v->at[id] = ++v->nnode;
	return 0;
}

static bool sort_has(const char *sort, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = sort; p && *p; p += strcspn(p, ","), p += !!*p)
		if (!strncmp(p, key, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Entry I's id: by what its sort keys show. */
static uint32_t entry_id(struct top_view *v, struct pk_report_view *rv,
			 uint32_t i)
{
	const char *sort = v->t->c.sort ? v->t->c.sort : "dso,sym";
	struct pk_report_entry e = { .sz = sizeof(e) };
	char key[1024];

	if (pk_report_view_entry(rv, i, &e))
		return UINT32_MAX;
	snprintf(key, sizeof(key), "e%s\x1f%d\x1f%s\x1f%s\x1f%llx\x1f%c",
		 sort_has(sort, "comm") ? e.comm : "",
		 sort_has(sort, "pid") ? (int)e.tid : 0, e.dso ? e.dso : "",
		 e.sym ? e.sym : "", (unsigned long long)e.start, e.level);
	return ids_of(&v->ids, key);
}

/* A callchain row's function: its text without the percentage. */
static const char *chain_fn(const char *text)
{
	const char *p = text + strspn(text, "0123456789.");

	return p > text && p[0] == '%' && p[1] == ' ' ? p + 2 : text;
}

/* The callchain rows under node Q (view row VROW[Q]; an entry's when Q
 * is one) appended as Q's children. */
static int add_kids(struct top_view *v, struct pk_report_view *rv,
		    uint32_t q, uint32_t **vrow, uint32_t *capv)
{
	const uint32_t *rows;
	uint32_t *kids;
	char buf[1024], key[1100];
	int n = q < (uint32_t)v->n ?
		pk_report_view_chain(rv, (*vrow)[q], 0, &rows) :
		pk_report_view_chain(rv, 0, (*vrow)[q], &rows);
	int err = 0;

	if (n <= 0)
		return n;
	if (!(kids = malloc((size_t)n * sizeof(*kids))))
		return -ENOMEM;
	memcpy(kids, rows, (size_t)n * sizeof(*kids));
	v->node[q].kid0 = v->nnode;
	v->node[q].nkid = (uint32_t)n;
	for (int k = 0; k < n && !err; k++) {
		int lvl = pk_report_view_chain_line(rv, kids[k], buf,
						    sizeof(buf));
		const char *fn = chain_fn(buf);
		unsigned dup = 0;
		uint32_t id;

		if (lvl < 0) {
			err = lvl;
			break;
		}
		/* siblings of one name (unresolved addresses): by rank */
		for (uint32_t j = v->node[q].kid0; j < v->nnode; j++)
			dup += !strcmp(chain_fn(v->pool + v->node[j].text), fn);
		snprintf(key, sizeof(key), "c%u\x1f%s\x1f%u",
			 (unsigned)v->node[q].id, fn, dup);
		if ((id = ids_of(&v->ids, key)) == UINT32_MAX)
			err = -ENOMEM;
		else if (v->nnode >= *capv) {
			uint32_t cap = *capv ? *capv * 2 : 256;
			uint32_t *p = realloc(*vrow, cap * sizeof(*p));

			if (!p)
				err = -ENOMEM;
			else
				*vrow = p, *capv = cap;
		}
		if (!err) {
			(*vrow)[v->nnode] = kids[k];
			err = add_node(v, id, buf, lvl);
		}
	}
	free(kids);
	return err;
}

/* -g: this display's entries and callchain rows, from a view of the
 * report freed before it returns. */
static int take_chains(struct top_view *v)
{
	PK_OPTS(pk_report_print_opts, o, .chain = PK_REPORT_CHAIN_GRAPH,
		.chain_percent = 0.5, .percent_limit = v->t->c.percent_limit,
		.top = true);
	struct pk_report_view *rv;
	uint32_t *vrow = NULL, capv = 0;
	int err = 0;

	if (v->ids.n > IDS_MAX)
		ids_free(&v->ids);	/* expansions are forgotten */
	if (v->at)
		memset(v->at, 0, v->capat * sizeof(*v->at));
	v->nnode = 0;
	v->npool = 0;
	if (!v->n)
		return 0;
	if (!(rv = pk_report_view_new(v->t->rep, 0, &o)))
		return -errno;
	if (v->filter)
		err = pk_report_view_zoom(rv, NULL, false, 0, v->filter);
	/* the view's entries shown are the rows */
	for (uint32_t i = 0; i < pk_report_view_nr(rv) && !err; i++) {
		uint32_t id;

		if (!pk_report_view_shown(rv, i))
			continue;
		if (v->nnode == (uint32_t)v->n) {
			err = -EPROTO;	/* the view and the rows disagree */
			break;
		}
		id = entry_id(v, rv, i);
		err = id == UINT32_MAX ? -ENOMEM : add_node(v, id, "", 0);
		if (!err && v->nnode > capv) {
			uint32_t cap = capv ? capv * 2 : 256;
			uint32_t *p = realloc(vrow, cap * sizeof(*p));

			if (!p)
				err = -ENOMEM;
			else
				vrow = p, capv = cap;
		}
		if (!err)
			vrow[v->nnode - 1] = i;
	}
	if (!err && v->nnode != (uint32_t)v->n)
		err = -EPROTO;
	for (uint32_t q = 0; q < v->nnode && !err; q++)
		err = add_kids(v, rv, q, &vrow, &capv);
	free(vrow);
	pk_report_view_free(rv);
	return err;
}

static void set_title(struct top_view *v)
{
	struct top *t = v->t;
	const struct perf_event_attr *a = pk_evsel_attr(t->ev);
	unsigned long long n = t->nr_samples;
	char unit = ' ';

	if (n > 1000)
		n /= 1000, unit = 'K';
	if (n > 1000)
		n /= 1000, unit = 'M';
	snprintf(v->title, sizeof(v->title),
		 "Samples: %llu%c of event '%s', %llu%s, Event count (approx.): "
		 "%llu lost: %llu/%llu drop: 0/0", n, unit, pk_evsel_name(t->ev),
		 (unsigned long long)a->sample_period, a->freq ? " Hz" : "",
		 (unsigned long long)pk_report_total_period(t->rep, 0),
		 (unsigned long long)t->lost, (unsigned long long)t->lost_total);
}

/* The report's rows as they stand, split into lines. */
static int take_rows(struct top_view *v)
{
	PK_OPTS(pk_report_top_opts, o, .percent_limit = v->t->c.percent_limit,
		.show_nr_samples = v->t->c.show_nr, .fit = true,
		.sym = v->filter);
	size_t len = 0;
	char *buf = NULL;
	FILE *m = open_memstream(&buf, &len);
	int err = m ? pk_report_print_top(v->t->rep, m, &o) : -ENOMEM;

	if (m && fclose(m) && !err)
		err = -ENOMEM;
	free(v->text);
	v->text = buf;
	v->n = 0;
	v->header = NULL;
	for (char *l = buf, *nl; !err && l && l < buf + len; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!v->header) {	/* the column titles come first */
			*nl = '\0';
			snprintf(v->hdr, sizeof(v->hdr), "%s", l);
			v->header = v->hdr;
			continue;
		}
		if (v->n == v->cap) {
			int cap = v->cap ? 2 * v->cap : 256;
			char **p = realloc(v->lines, (size_t)cap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			v->lines = p;
			v->cap = cap;
		}
		*nl = '\0';
		v->lines[v->n++] = l;
	}
	set_title(v);
	if (!err && v->chains)
		err = take_chains(v);
	return err;
}

/* The browser's / filter: the rows are those it lets through, the
 * columns as wide as they need (as perf's after a filter). */
static void set_view(void *ctx, const struct tui_view *tv)
{
	struct top_view *v = ctx;
	const char *f = tv->filter && *tv->filter ? tv->filter : NULL;

	if (!f == !v->filter && (!f || !strcmp(f, v->filter)))
		return;
	free(v->filter);
	v->filter = f ? strdup(f) : NULL;
	if (take_rows(v))	/* the next refresh says what failed */
		v->n = 0;
}

static int refresh(void *ctx)
{
	struct top_view *v = ctx;
	struct top *t = v->t;
	int err = top_drain(t);

	if (err || top_now_ms() < t->next_ms)
		return err;
	err = take_rows(v);
	if (!err)
		err = top_next_period(t);
	t->next_ms = top_now_ms() + (uint64_t)t->c.delay_secs * 1000;
	return err;
}

int top_tui(struct top *t)
{
	struct top_view v = { .t = t, .chains = t->c.callchain };
	struct tui_model m = {
		.ctx = &v, .title = v.title, .header = v.hdr,
		.nr_children = nr_children,
		.child = child, .text = text, .refresh = refresh,
		.refresh_ms = 100, .indent = v.chains ? indent : NULL,
		.set_view = set_view, .nav_arms = true,
	};
	struct tui *term;
	int err = take_rows(&v);

	t->next_ms = top_now_ms() + (uint64_t)t->c.delay_secs * 1000;
	term = err ? NULL : tui_open();
	if (!err && !term)
		err = -errno;
	if (!err) {
		err = tui_browse(term, &m);
		tui_close(term);
	}
	free(v.text);
	free(v.lines);
	free(v.node);
	free(v.pool);
	free(v.at);
	ids_free(&v.ids);
	free(v.filter);
	return err < 0 ? err : 0;
}
