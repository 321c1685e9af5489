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

void pk_report_decay(struct pk_report *r)
{
	for (unsigned a = 0; a < r->nh; a++) {
		struct rp_hists *h = &r->h[a];

		for (uint32_t i = 0; i < h->n; i++) {
			struct rp_entry *e = &h->e[i];
			uint64_t lost = e->self - aged(e->self);

			h->total -= lost;   /* what the filters let by is
					       summed when printing */
			e->self -= lost;
			e->acc = aged(e->acc);
			e->nr_self = aged(e->nr_self);
			e->nr_acc = aged(e->nr_acc);
		}
	}
	for (uint32_t i = 0; r->node && i < r->nnode; i++)
		r->node[i].hit = aged(r->node[i].hit);
	r->cumul_stale = true;   /* the nodes' sums follow their hits */
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
	fputs("Overhead", f);
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

/* The rows of V (N) into F, each cut to WIDTH - 1 characters (0: whole). */
static int put_rows(struct pk_report *r, FILE *f, struct rp_entry **v,
		    uint32_t n, uint64_t total,
		    const struct pk_report_top_opts *o)
{
	PK_OPTS(pk_report_print_opts, po, .chain = PK_REPORT_CHAIN_NONE,
		.show_nr_samples = o->show_nr_samples);
	struct rp_cols c;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	unsigned shown = 0;

	if (!m)
		return -ENOMEM;
	top_widths(r, v, o->rows && o->rows < n ? o->rows : n, &c, o->fit);
	if (o->fit)
		put_header(r, m, &c, o);
	for (uint32_t i = 0; i < n && (!o->rows || shown < o->rows); i++) {
		uint64_t p = r->o.children ? v[i]->acc : v[i]->self;

		if (total && p * 100.0 / (double)total < o->percent_limit)
			continue;
		pk__rp_put_row(r, m, v[i], &c, total, &po);
		shown++;
	}
	if (fclose(m)) {
		pk__free(buf);
		return -ENOMEM;
	}
	for (char *l = buf, *nl; l < buf + len; l = nl + 1) {
		nl = strchr(l, '\n');
		if (o->width && nl - l > (long)o->width - 1)
			fwrite(l, 1, o->width - 1, f), fputc('\n', f);
		else
			fwrite(l, 1, (size_t)(nl - l) + 1, f);
	}
	free(buf);
	return ferror(f) ? -EIO : 0;
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
	err = pk__rp_order(r, v, n);
	if (!err) {
		uint32_t k = 0;

		for (uint32_t i = 0; i < n; i++)
			if (top_row(r, v[i]))
				v[k++] = v[i];
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
