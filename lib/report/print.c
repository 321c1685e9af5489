// SPDX-License-Identifier: MIT
/*
 * perf report --stdio's text of a report: the header comments, the
 * column headers with their dotted lines, the entries sorted as perf
 * sorts them, each with its callchain.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"
#include <perfkit/perfdata.h>

static bool elided1(const struct pk_report *r, int key)
{
	return (key == RK_COMM && r->comms.n == 1) ||
	       (key == RK_DSO && (r->dsos.n == 1 || r->zoom.dso)) ||
	       (key == RK_SYM && r->syms.n == 1);
}

struct cols {
	int comm, pid, dso, sym;
};

/* perf elides the column of a key filtered to one value (not all). */
static bool elided(const struct pk_report *r, int key)
{
	unsigned k;

	for (k = 0; k < r->nkeys; k++)
		if (!elided1(r, r->keys[k]))
			break;
	return k < r->nkeys && elided1(r, key);
}

static const char *dso_name(const struct rp_sym *s)
{
	return s->dso ? s->dso : "[unknown]";
}

static int sym_len(const struct rp_sym *s)
{
	return s->name ? (int)strlen(s->name) + 4 : 16 + 4 + 2;
}

static int max_i(int a, int b)
{
	return a > b ? a : b;
}

/* perf's column widths: the longest value or the header. */
static void widths(struct pk_report *r, const struct rp_hists *h,
		   struct cols *c)
{
	c->comm = 7, c->pid = 11, c->dso = 13, c->sym = 6;
	if (r->zoom.dso || r->zoom.thread || r->zoom.sym)
		/* perf's browser, zoomed: the values' widths only */
		c->comm = c->pid = c->dso = c->sym = 0;
	for (uint32_t i = 0; i < h->n; i++) {
		const struct rp_entry *e = &h->e[i];
		const struct rp_sym *s = &r->sym[e->sym];
		const char *comm = pk_session_comm(r->sess, (uint32_t)e->tid);
		int cl = (int)strlen(comm ? comm : e->comm);

		if (!e->shown || !pk__rp_in_zoom(r, e))
			continue;
		c->comm = max_i(c->comm, cl);
		c->sym = max_i(c->sym, sym_len(s));
		if (s->dso)
			c->dso = max_i(c->dso, (int)strlen(s->dso));
		else
			c->dso = max_i(c->dso, 16);
	}
	c->pid = max_i(c->pid, c->comm + 8);
}

static void put_header(struct pk_report *r, FILE *f, const struct cols *c,
		       const struct pk_report_print_opts *po)
{
	fputs("# ", f);
	if (r->o.children)
		fputs("Children      Self", f);
	else
		fputs("Overhead", f);
	if (po->show_nr_samples)
		fputs("       Samples", f);
	if (po->show_period)
		fputs("        Period", f);
	for (unsigned k = 0; k < r->nkeys; k++) {
		if (elided(r, r->keys[k]))
			continue;
		switch (r->keys[k]) {
		case RK_COMM: fprintf(f, "  %-*.*s", c->comm, c->comm, "Command"); break;
		case RK_PID: fprintf(f, "  %*.*s", c->pid, c->pid, "Pid:Command"); break;
		case RK_DSO: fprintf(f, "  %-*.*s", c->dso, c->dso, "Shared Object"); break;
		default: fprintf(f, "  %-*.*s", c->sym, c->sym, "Symbol"); break;
		}
	}
	fputs("\n# ", f);
	fputs(r->o.children ? "........  ........" : "........", f);
	if (po->show_nr_samples)
		fputs("  ............", f);
	if (po->show_period)
		fputs("  ............", f);
	for (unsigned k = 0; k < r->nkeys; k++) {
		int w = r->keys[k] == RK_COMM ? c->comm : r->keys[k] == RK_PID ?
			c->pid : r->keys[k] == RK_DSO ? c->dso : c->sym;

		if (elided(r, r->keys[k]))
			continue;
		fputs("  ", f);
		for (int i = 0; i < w; i++)
			fputc('.', f);
	}
	fputs("\n#\n", f);
}

static void put_sym(const struct rp_sym *s, const struct rp_entry *e, FILE *f,
		    int w, bool last)
{
	char b[64];
	int n;

	if (s->name)
		n = fprintf(f, "[%c] %s%s", e->level, s->name,
			    s->inlined ? " (inlined)" : "");
	else {
		snprintf(b, sizeof(b), "%#.*" PRIx64, 16, e->addr);
		n = fprintf(f, "[%c] %-16s", e->level, b);
	}
	if (!last && n < w)
		fprintf(f, "%*s", w - n, "");
}

static void put_row(struct pk_report *r, FILE *f, const struct rp_entry *e,
		    const struct cols *c, uint64_t total,
		    const struct pk_report_print_opts *po)
{
	const struct rp_sym *s = &r->sym[e->sym];
	double t = total ? (double)total : 1;

	if (r->o.children)
		fprintf(f, "%9.2f%%  %7.2f%%", e->acc * 100.0 / t,
			e->self * 100.0 / t);
	else
		fprintf(f, "%9.2f%%", e->self * 100.0 / t);
	if (po->show_nr_samples)
		fprintf(f, "  %12" PRIu64, e->nr_self);
	if (po->show_period)
		fprintf(f, "  %12" PRIu64, e->self);
	unsigned lastk = r->nkeys - 1;

	while (lastk && elided(r, r->keys[lastk]))
		lastk--;
	for (unsigned k = 0; k < r->nkeys; k++) {
		bool last = k == lastk;

		if (elided(r, r->keys[k]))
			continue;
		switch (r->keys[k]) {
		case RK_COMM: fprintf(f, "  %-*.*s", c->comm, c->comm, e->comm); break;
		case RK_PID: fprintf(f, "  %7d:%-*.*s", e->tid, c->pid - 8, c->pid - 8,
				     e->comm); break;
		case RK_DSO: fprintf(f, "  %-*s", c->dso, dso_name(s)); break;
		default: fputs("  ", f); put_sym(s, e, f, c->sym, last); break;
		}
	}
	fputc('\n', f);
}

/* "# Samples: N of event 'E'" and the event count, of N samples worth
 * TOTAL. */
static void samples_line(struct pk_report *r, FILE *f, unsigned a,
			 unsigned long n, uint64_t total)
{
	char unit = ' ';
	const char *name = pk_perfdata_attr_name(r->pd, a);

	if (n > 1000)
		n /= 1000, unit = 'K';
	if (n > 1000)
		n /= 1000, unit = 'M';
	if (n > 1000)
		n /= 1000, unit = 'G';
	fprintf(f, "# Samples: %lu%c of event '%s'\n", n, unit,
		name ? name : "");
	fprintf(f, "# Event count (approx.): %" PRIu64 "\n#\n", total);
}

static int print_hists(struct pk_report *r, FILE *f, unsigned a,
		       const struct pk_report_print_opts *po)
{
	struct rp_hists *h = &r->h[a];
	struct rp_entry **v = pk__malloc((h->n + 1) * sizeof(*v));
	struct cols c;
	int err = 0;

	if (!v)
		return -ENOMEM;
	uint64_t total = po->relative ? h->total_shown : h->total;

	pk__rp_cumul(r);

	samples_line(r, f, a, po->relative ? h->nr_shown : h->nr_samples,
		     total);
	widths(r, h, &c);
	put_header(r, f, &c, po);
	for (uint32_t i = 0; i < h->n; i++)
		v[i] = &h->e[i];
	err = pk__rp_order(r, v, h->n);
	for (uint32_t i = 0; i < h->n && !err; i++) {
		uint64_t p = r->o.children ? v[i]->acc : v[i]->self;

		if (!v[i]->shown ||
		    (total && p * 100.0 / total < po->percent_limit))
			continue;
		put_row(r, f, v[i], &c, total, po);
		if (po->chain != PK_REPORT_CHAIN_NONE)
			err = pk__rp_print_chain(r, f, v[i], h->total, total,
						 po);
	}
	fputs("\n\n", f);
	pk__free(v);
	return err;
}

int pk_report_print(struct pk_report *r, FILE *f,
		    const struct pk_report_print_opts *opts)
{
	PK_OPTS(pk_report_print_opts, def, .chain = PK_REPORT_CHAIN_NONE);
	const struct pk_report_print_opts *po = opts ? opts : &def;
	int err = 0;

	if (!PK_OPTS_VALID(opts, pk_report_print_opts))
		return -EINVAL;
	for (unsigned k = 0; k < r->nkeys; k++) {
		const struct rp_list *l = r->keys[k] == RK_COMM ? &r->comms :
			r->keys[k] == RK_DSO ? &r->dsos : &r->syms;

		if (r->keys[k] != RK_PID && elided1(r, r->keys[k]))
			fprintf(f, "# %s: %s\n", r->keys[k] == RK_COMM ? "comm" :
				r->keys[k] == RK_DSO ? "dso" : "symbol", l->w[0]);
	}
	fprintf(f, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", r->lost);
	for (unsigned a = 0; a < r->nh && !err; a++)
		if (r->h[a].nr_samples)
			err = print_hists(r, f, a, po);
	if (!err && po->tip)
		fprintf(f, "#\n# (%s)\n#\n", po->tip);
	if (!err && ferror(f))
		err = -EIO;
	return err;
}

void pk__rp_put_lines(struct pk_report *r, FILE *f, unsigned a,
		      struct rp_entry *const *v, uint32_t n,
		      uint64_t nr_samples, uint64_t total,
		      const struct pk_report_print_opts *po)
{
	struct cols c;

	samples_line(r, f, a, (unsigned long)nr_samples, total);
	widths(r, &r->h[a], &c);
	put_header(r, f, &c, po);
	for (uint32_t i = 0; i < n; i++)
		put_row(r, f, v[i], &c, total, po);
}
