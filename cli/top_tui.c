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

struct top_view {
	struct top *t;
	char *text;             /* the rows, newline-separated */
	char **lines;
	int n, cap;
	char title[320];
	char hdr[256];
	const char *header;
};

static int nr_children(void *ctx, void *row)
{
	struct top_view *v = ctx;

	return row ? 0 : v->n;
}

/* Rows are their positions (1-based): the selection stays in place. */
static void *child(void *ctx, void *row, int i)
{
	(void)ctx, (void)row;
	return (void *)(uintptr_t)(i + 1);
}

static void text(void *ctx, void *row, char *buf, size_t size)
{
	struct top_view *v = ctx;
	int i = (int)(uintptr_t)row - 1;
	const char *l = i >= 0 && i < v->n ? v->lines[i] : "";

	/* the browser draws a mark and a space where the text has two */
	snprintf(buf, size, "%s", strncmp(l, "  ", 2) ? l : l + 2);
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
		.show_nr_samples = v->t->c.show_nr, .fit = true);
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
	return err;
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
	struct top_view v = { .t = t };
	struct tui_model m = {
		.ctx = &v, .title = v.title, .header = v.hdr,
		.nr_children = nr_children,
		.child = child, .text = text, .refresh = refresh,
		.refresh_ms = 100,
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
	return err < 0 ? err : 0;
}
