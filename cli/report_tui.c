/* SPDX-License-Identifier: MIT */
/*
 * perfkit report's browser: the terminal browser (tui.h) over a report
 * view (pk_report_view_*): perf's title, column header and entry lines,
 * callchain rows under each entry, d/t zoom and / search by symbol, a
 * annotating the entry's symbol (pk_annotation, as annotate --stdio
 * prints it).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/annotate.h>
#include <perfkit/perfdata.h>
#include <perfkit/report.h>
#include "cli.h"
#include "report_tui.h"
#include "tui.h"

struct rtui {
	struct tui_model m;
	struct pk_report_view *v;
	struct pk_annotate *an;
	unsigned event;
	const char *event_name;
	bool pid_key;           /* threads shown as comm(tid) */
	bool zoom[TUI_NR_ZOOMS];  /* the sort keys have the DSO, thread */
	char **tkey;            /* per entry: its thread's zoom key */
	const char *err;        /* what failed in a callback */
};

/* Rows: entry I is (I + 1) << 1, callchain row N is N << 1 | 1. */
static void *entry_row(uint32_t i)
{
	return (void *)(((uintptr_t)i + 1) << 1);
}

static bool is_entry(const void *row)
{
	return !((uintptr_t)row & 1);
}

static uint32_t row_id(const void *row)
{
	return (uint32_t)((uintptr_t)row >> 1) - is_entry(row);
}

static int nr_children(void *ctx, void *row)
{
	struct rtui *b = ctx;
	const uint32_t *rows;
	int n;

	if (!row)
		return (int)pk_report_view_nr(b->v);
	n = is_entry(row) ? pk_report_view_chain(b->v, row_id(row), 0, &rows)
			  : pk_report_view_chain(b->v, 0, row_id(row), &rows);
	return n < 0 ? 0 : n;
}

static void *child(void *ctx, void *row, int i)
{
	struct rtui *b = ctx;
	const uint32_t *rows;
	int n;

	if (!row)
		return entry_row((uint32_t)i);
	n = is_entry(row) ? pk_report_view_chain(b->v, row_id(row), 0, &rows)
			  : pk_report_view_chain(b->v, 0, row_id(row), &rows);
	if (i >= n)
		return NULL;
	return (void *)(((uintptr_t)rows[i] << 1) | 1);
}

static void text(void *ctx, void *row, char *buf, size_t size)
{
	struct rtui *b = ctx;
	const char *l;

	if (!is_entry(row)) {
		if (pk_report_view_chain_line(b->v, row_id(row), buf, size) < 0)
			snprintf(buf, size, "?");
		return;
	}
	/* the --stdio line: the browser draws the mark over its margin */
	l = pk_report_view_line(b->v, row_id(row));
	snprintf(buf, size, "%s", l && strlen(l) > 2 ? l + 2 : "");
}

/* perf indents each callchain level three columns. */
static int indent(void *ctx, void *row, int depth)
{
	struct rtui *b = ctx;
	char buf[8];
	int lvl;

	if (is_entry(row))
		return 0;
	lvl = pk_report_view_chain_line(b->v, row_id(row), buf, sizeof(buf));
	return 3 * (lvl < 0 ? depth : lvl);
}

static const char *zoom_key(void *ctx, void *row, enum tui_zoom z)
{
	struct rtui *b = ctx;
	struct pk_report_entry e = { .sz = sizeof(e) };

	if (!b->zoom[z] || !is_entry(row) ||
	    pk_report_view_entry(b->v, row_id(row), &e))
		return NULL;
	if (z == TUI_ZOOM_DSO)
		return e.dso ? e.dso : "[unknown]";
	return b->tkey[row_id(row)];
}

static bool match(void *ctx, void *row, const char *needle)
{
	struct rtui *b = ctx;
	struct pk_report_entry e = { .sz = sizeof(e) };

	return is_entry(row) && !pk_report_view_entry(b->v, row_id(row), &e) &&
	       e.sym && strstr(e.sym, needle);
}

static void set_view(void *ctx, const struct tui_view *tv)
{
	struct rtui *b = ctx;
	struct pk_report_entry e = { .sz = sizeof(e) };
	const char *tk = tv->zoom[TUI_ZOOM_THREAD];
	uint32_t n = pk_report_view_nr(b->v), i;

	/* the thread: the first entry with that key */
	for (i = 0; tk && i < n && strcmp(b->tkey[i], tk); i++)
		;
	if (tk && i < n)
		pk_report_view_entry(b->v, i, &e);
	if (pk_report_view_zoom(b->v, tv->zoom[TUI_ZOOM_DSO], tk && i < n,
				e.tid, tv->filter))
		b->err = "out of memory";
	b->m.title = pk_report_view_title(b->v);
	b->m.header = pk_report_view_header(b->v);
}

/* Tabs to spaces (every 8 columns), into a new string. */
static char *untab(const char *s)
{
	size_t n = 0, col = 0;
	char *o, *p;

	for (const char *q = s; *q; q++)
		n += *q == '\t' ? 8 : 1;
	if (!(o = p = malloc(n + 1)))
		return NULL;
	for (; *s; s++) {
		if (*s == '\t') {
			do
				*p++ = ' ';
			while (++col % 8);
		} else {
			*p++ = *s, col++;
		}
	}
	*p = '\0';
	return o;
}

/* The annotate view of AN: annotate --stdio's lines, its first (the
 * "Source code & Disassembly of ..." one) the title. */
static int show_annotation(struct tui *t, const struct pk_annotation *an,
			   const char *event)
{
	PK_OPTS(pk_annotation_print_opts, po, .event = event);
	char *buf = NULL, **lines = NULL, *p, *nl;
	size_t len = 0, n = 0, cap = 0;
	struct tui_lines l;
	FILE *f = open_memstream(&buf, &len);
	int err = 0;

	if (!f)
		return -ENOMEM;
	err = pk_annotation_print(an, f, &po);
	if (fclose(f) || !buf)
		return -ENOMEM;
	for (p = buf; !err && (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		if (n == cap) {
			char **nv = realloc(lines, (cap = cap * 2 + 64) *
					    sizeof(*lines));

			if (!nv) {
				err = -ENOMEM;
				break;
			}
			lines = nv;
		}
		if (!(lines[n++] = untab(p)))
			err = -ENOMEM;
	}
	if (!err && n > 2) {
		char *title = strstr(lines[0], "Source code");

		tui_lines_init(&l, title ? title : lines[0],
			       (const char *const *)lines + 2, (int)n - 2);
		err = tui_browse(t, &l.model);
	}
	while (n)
		free(lines[--n]);
	free(lines);
	free(buf);
	return err;
}

static int annotate(void *ctx, void *row, struct tui *t)
{
	struct rtui *b = ctx;
	struct pk_report_entry e = { .sz = sizeof(e) };
	struct pk_annotate_sym s;
	struct pk_annotation *an;
	int n = b->an ? pk_annotate_nr_syms(b->an) : 0, i, err;

	if (!is_entry(row) || pk_report_view_entry(b->v, row_id(row), &e) ||
	    !e.sym || !e.dso)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!pk_annotate_sym(b->an, i, &s) && s.attr == (int)b->event &&
		    !strcmp(s.name, e.sym) && !strcmp(s.dso_short, e.dso))
			break;
	if (i == n)
		return -ENODATA;	/* no samples of its own (callees' only) */
	an = pk_annotation_new(b->an, i, NULL);
	if (!an)
		return -errno;
	err = show_annotation(t, an, b->event_name);
	pk_annotation_free(an);
	return err;
}

/* Entries by comm, then thread (thread_keys' sort). */
struct tk {
	const char *comm;
	int32_t tid;
	uint32_t i;
};

static int by_comm(const void *x, const void *y)
{
	const struct tk *a = x, *b = y;
	int c = strcmp(a->comm, b->comm);

	return c ? c : a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* The thread keys: "comm", or "comm(tid)" when sorting by pid or when
 * other threads have that comm (perf shows the comm, zooms the thread). */
static int thread_keys(struct rtui *b)
{
	uint32_t n = pk_report_view_nr(b->v), i, j;
	struct pk_report_entry e = { .sz = sizeof(e) };
	struct tk *v = calloc(n + 1, sizeof(*v));

	if (!v || !(b->tkey = calloc(n + 1, sizeof(*b->tkey)))) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		pk_report_view_entry(b->v, i, &e);
		v[i] = (struct tk){ e.comm, e.tid, i };
	}
	qsort(v, n, sizeof(*v), by_comm);
	for (i = 0; i < n; i = j) {
		bool other = b->pid_key;
		char buf[64];

		for (j = i + 1; j < n && !strcmp(v[j].comm, v[i].comm); j++)
			other |= v[j].tid != v[i].tid;
		for (uint32_t k = i; k < j; k++) {
			if (other)
				snprintf(buf, sizeof(buf), "%s(%d)", v[k].comm,
					 v[k].tid);
			else
				snprintf(buf, sizeof(buf), "%s", v[k].comm);
			if (!(b->tkey[v[k].i] = strdup(buf))) {
				free(v);
				return -ENOMEM;
			}
		}
	}
	free(v);
	return 0;
}

/* Whether the sort keys SORT (NULL: comm,dso,sym) hold WORD. */
static bool sort_has(const char *sort, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = sort ? sort : "comm,dso,sym"; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (!strncmp(p, word, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

int report_browse(struct pk_report *r, unsigned event, const char *name,
		  const struct pk_report_print_opts *po,
		  struct pk_annotate *an, const char *sort)
{
	struct rtui b = {
		.m = { .nr_children = nr_children, .child = child,
		       .text = text, .indent = indent, .zoom_key = zoom_key,
		       .match = match, .annotate = annotate,
		       .set_view = set_view },
		.an = an, .event = event, .event_name = name,
		.pid_key = sort_has(sort, "pid"),
		.zoom = { sort_has(sort, "dso"),
			  sort_has(sort, "pid") || sort_has(sort, "comm") },
	};
	struct tui *t;
	int err;

	b.m.ctx = &b;
	b.m.no_marks = !po || po->chain == PK_REPORT_CHAIN_NONE;
	if (!(b.v = pk_report_view_new(r, event, po)))
		return -errno;
	b.m.title = pk_report_view_title(b.v);
	b.m.header = pk_report_view_header(b.v);
	err = thread_keys(&b);
	if (!err && !(t = tui_open()))
		err = -errno;
	if (!err) {
		err = tui_browse(t, &b.m);
		tui_close(t);
	}
	if (!err && b.err)
		err = -ENOMEM;
	for (uint32_t i = 0; b.tkey && i < pk_report_view_nr(b.v); i++)
		free(b.tkey[i]);
	free(b.tkey);
	pk_report_view_free(b.v);
	return err < 0 ? err : 0;
}
