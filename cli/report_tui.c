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
	uint64_t sample_freq;   /* the event's (perf's annotate title) */
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

/* BUF's tabs to spaces, to the next column of 8 (a UTF-8 character one
 * column), in place within SIZE bytes. */
static void untab(char *buf, size_t size)
{
	char tmp[2048];
	size_t o = 0, col = 0;

	for (const char *q = buf; *q && o + 9 < sizeof(tmp); q++) {
		if (*q == '\t') {
			do
				tmp[o++] = ' ';
			while (++col % 8);
			continue;
		}
		tmp[o++] = *q;
		col += (*q & 0xc0) != 0x80;
	}
	tmp[o] = '\0';
	snprintf(buf, size, "%s", tmp);
}

/* perf's annotate browser over AN: the percent column (its name on the
 * first row on screen where that row has none), a bar, the browser's
 * text of each line (pk_annotation_browser_text); the hottest line
 * selected, half a screen below the top; the selected jump's arrow
 * drawn to where it lands. */
struct aview {
	struct tui_lines l;     /* first: the lines' callbacks take it */
	const struct pk_annotation *an;
	int col;                /* the arrow's column in the text */
};

/* Sets cell COL of LINE (cells of one character each, UTF-8) to CH,
 * padding with spaces. */
static void put_cell(char *line, size_t size, int col, const char *ch)
{
	char *p = line, *end;
	int c = 0;
	size_t tail;

	while (*p && c < col) {
		p++;
		while ((*p & 0xc0) == 0x80)
			p++;
		c++;
	}
	while (c < col && (size_t)(p - line) + 2 < size) {
		*p++ = ' ', *p = '\0';
		c++;
	}
	if (c < col)
		return;
	end = p;
	if (*end) {
		end++;
		while ((*end & 0xc0) == 0x80)
			end++;
	}
	tail = strlen(end) + 1;
	if ((size_t)(p - line) + strlen(ch) + tail > size)
		return;
	memmove(p + strlen(ch), end, tail);
	memcpy(p, ch, strlen(ch));
}

#define ULCORN "\xe2\x94\x8c"
#define LLCORN "\xe2\x94\x94"
#define HLINE "\xe2\x94\x80"
#define VLINE "\xe2\x94\x82"
#define RARROW "\xe2\x86\x92"

/* perf's __ui_browser__line_arrow: what row R (on screen) shows of the
 * arrow from row FROM to row TO (indexes), in cells COL.. of LINE. */
static void jump_arrow(char *line, size_t size, const struct tui_frame *f,
		       int from, int to, int col)
{
	int r = f->idx - f->top, rows = f->rows, row, end;
	const char *c[3] = { NULL, NULL, NULL };

	if (from < to) {
		row = from >= f->top ? from - f->top : -1;
		if (row >= 0 && r == row)
			c[0] = ULCORN, c[1] = c[2] = HLINE;
		row = row >= 0 ? row + 1 : 0;
		end = to >= f->top + rows ? rows - 1 : to - f->top;
		if (r >= row && r <= end && !c[0])
			c[0] = VLINE;
		if (to < f->top + rows && r == end)
			c[0] = LLCORN, c[1] = HLINE, c[2] = RARROW;
	} else {
		row = from < f->top + rows ? from - f->top : rows;
		if (row < rows && r == row)
			c[0] = LLCORN, c[1] = c[2] = HLINE;
		if (row < rows && row == 0)
			goto put;
		row = row < rows ? row - 1 : rows - 1;
		end = to > f->top ? to - f->top : 0;
		if (r >= end && r <= row && !c[0])
			c[0] = VLINE;
		if (to >= f->top && r == end)
			c[0] = ULCORN, c[1] = HLINE, c[2] = RARROW;
	}
put:
	for (int k = 0; k < 3; k++)
		if (c[k])
			put_cell(line, size, col + k, c[k]);
}

#define LTEE "\xe2\x94\x9c"

/* perf's ui_browser__mark_fused: the instruction BACK rows above the
 * jump at FROM (to TO) tied to its arrow. */
static void fused_mark(char *line, size_t size, const struct tui_frame *f,
		       int from, int to, int back, int col)
{
	int r = f->idx - f->top, at = from - back - f->top;

	if (from - back < f->top)
		return;
	if (r == at) {
		put_cell(line, size, col, to > from ? ULCORN : LTEE);
		put_cell(line, size, col + 1, HLINE);
		put_cell(line, size, col + 2, HLINE);
	} else if (to > from && r == at + 1) {
		put_cell(line, size, col, LTEE);
	}
}

static void aview_text(void *ctx, void *row, const struct tui_frame *f,
		       char *buf, size_t size)
{
	struct aview *a = ctx;
	int i = (int)(uintptr_t)row - 1, to;
	struct pk_annotation_line l;
	char text[1024];
	int n;

	if (pk_annotation_line(a->an, i, &l) ||
	    pk_annotation_browser_text(a->an, i, text, sizeof(text))) {
		snprintf(buf, size, "%s", "");
		return;
	}
	if (l.insn && l.percent != 0.0)
		n = snprintf(buf, size, "%6.2f ", l.percent);
	else
		n = snprintf(buf, size, "%-7s", f->idx == f->top ? "Percent" : "");
	if (n < 0 || (size_t)n >= size)
		return;
	snprintf(buf + n, size - (size_t)n, VLINE "%s", text);
	untab(buf, size);
	to = pk_annotation_jump_target(a->an, f->sel);
	if (to < 0)
		return;
	jump_arrow(buf, size, f, f->sel, to, 8 + a->col);
	n = pk_annotation_fused(a->an, f->sel);
	if (n > 0)
		fused_mark(buf, size, f, f->sel, to, n, 8 + a->col);
}

/* A line with no frame (the / search's text). */
static void aview_plain(void *ctx, void *row, char *buf, size_t size)
{
	struct aview *a = ctx;

	if (pk_annotation_browser_text(a->an, (int)(uintptr_t)row - 1, buf,
				       size))
		snprintf(buf, size, "%s", "");
}

static int show_annotation(struct tui *t, const struct pk_annotation *an,
			   const char *title, const char *header)
{
	struct aview a = { .an = an, .col = pk_annotation_arrow_column(an) };
	int hot = pk_annotation_hottest(an);

	tui_lines_init(&a.l, title, NULL, pk_annotation_nr_lines(an));
	a.l.model.ctx = &a;
	a.l.model.header = header;
	a.l.model.no_marks = true;
	a.l.model.text = aview_plain;
	a.l.model.text_at = aview_text;
	a.l.model.start_centered = true;
	a.l.model.nav_arms = true;
	a.l.model.start_row = hot > 0 ? hot : 0;
	a.l.model.status = "Press 'h' for help on key bindings";
	return tui_browse(t, &a.l.model);
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
	{
		/* perf's: the report's title with the frequency, then the
		 * symbol, its DSO and the kind of percentages */
		char title[512], header[1024];
		const char *t0 = b->m.title ? b->m.title : "";
		const char *at = strstr(t0, "', Event count");

		if (at)
			snprintf(title, sizeof(title), "%.*s', %d Hz,%s",
				 (int)(at - t0), t0, (int)b->sample_freq,
				 at + 2);
		else
			snprintf(title, sizeof(title), "%s", t0);
		snprintf(header, sizeof(header),
			 "%s  %s [Percent: local period]", s.name, s.dso);
		err = show_annotation(t, an, title, header);
	}
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
		  uint64_t sample_freq, const struct pk_report_print_opts *po,
		  struct pk_annotate *an, const char *sort)
{
	struct rtui b = {
		.m = { .nr_children = nr_children, .child = child,
		       .text = text, .indent = indent, .zoom_key = zoom_key,
		       .match = match, .annotate = annotate,
		       .set_view = set_view },
		.an = an, .event = event, .event_name = name,
		.sample_freq = sample_freq,
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
