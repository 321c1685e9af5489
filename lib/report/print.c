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
	       (key == RK_DSO && r->dsos.n == 1) ||
	       (key == RK_SYM && r->syms.n == 1);
}

struct cols {
	int comm, pid, dso, sym;
	int w[RP_MAX_KEYS];     /* the extended keys' widths, by position */
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
	for (unsigned k = 0; k < r->nkeys; k++)
		c->w[k] = pk__rp_key_min_width(r->keys[k]);
	for (uint32_t i = 0; i < h->n; i++) {
		const struct rp_entry *e = &h->e[i];
		const struct rp_sym *s = &r->sym[e->sym];
		const char *comm = pk_session_comm(r->sess, (uint32_t)e->tid);
		int cl = (int)strlen(comm ? comm : e->comm);

		if (!e->shown)
			continue;
		c->comm = max_i(c->comm, cl);
		for (unsigned k = 0; k < r->nkeys; k++)
			if (r->keys[k] > RK_SYM)
				c->w[k] = max_i(c->w[k],
						pk__rp_key_width(r->keys[k], e));
		c->sym = max_i(c->sym, sym_len(s));
		if (s->dso)
			c->dso = max_i(c->dso, (int)strlen(s->dso));
		else
			c->dso = max_i(c->dso, 16);
	}
	c->pid = max_i(c->pid, c->comm + 8);
}

/* perf right-aligns the headers of these numbers */
static bool right_header(unsigned key)
{
	return key == RK_CPU || key == RK_SOCKET || key == RK_PERIOD;
}

static int col_width(const struct pk_report *r, const struct cols *c,
		     unsigned k)
{
	switch (r->keys[k]) {
	case RK_COMM: return c->comm;
	case RK_PID: return c->pid;
	case RK_DSO: return c->dso;
	case RK_SYM: return c->sym;
	default: return c->w[k];
	}
}

/* Where KEY is among the sort keys. */
static unsigned key_pos(const struct pk_report *r, uint32_t key)
{
	unsigned k;

	for (k = 0; k < r->nkeys && r->keys[k] != key; k++)
		;
	return k;
}

static bool listed(const uint32_t *v, unsigned n, uint32_t f)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == f || (f == RK_PERIOD && v[i] == RF_PERIOD))
			return true;
	return false;
}

/* perf's columns: -F's fields, or the overheads, -n's Samples and
 * --show-total-period's Period; then the sort keys not among them (one
 * Period for both); the keys filtered to one value elided. */
static unsigned columns(const struct pk_report *r,
			const struct pk_report_print_opts *po, uint32_t *v)
{
	unsigned n = 0;

	if (r->nfields) {
		for (unsigned i = 0; i < r->nfields; i++)
			if (r->fields[i] >= RF_OVERHEAD ||
			    !elided(r, (int)r->fields[i]))
				v[n++] = r->fields[i];
	} else {
		if (r->o.children)
			v[n++] = RF_CHILDREN;
		v[n++] = RF_OVERHEAD;
		if (po->show_nr_samples)
			v[n++] = RF_SAMPLE;
		if (po->show_period)
			v[n++] = RF_PERIOD;
	}
	for (unsigned k = 0; k < r->nkeys; k++)
		if (!listed(v, n, r->keys[k]) && !elided(r, r->keys[k]))
			v[n++] = r->keys[k];
	return n;
}

/* A column's header, its width, whether right-aligned. */
static const char *col_header(const struct pk_report *r, const struct cols *c,
			      uint32_t f, int *w, bool *right)
{
	*right = true;
	*w = 8;
	switch (f) {
	case RF_OVERHEAD:
		return r->o.children && !r->nfields ? "Self" : "Overhead";
	case RF_CHILDREN: return "Children";
	case RF_SYS: return "sys";
	case RF_US: return "usr";
	case RF_SAMPLE: *w = 12; return "Samples";
	case RF_PERIOD: *w = 12; return "Period";
	default: break;
	}
	*w = col_width(r, c, key_pos(r, f));
	if (f == RF_CHILDREN)
		*w = 8;
	*right = f == RK_PID || right_header(f);
	return f == RK_COMM ? "Command" : f == RK_PID ? "Pid:Command" :
	       f == RK_DSO ? "Shared Object" : f == RK_SYM ? "Symbol" :
	       pk__rp_key_header(f);
}

static void put_header(struct pk_report *r, FILE *f, const struct cols *c,
		       const struct pk_report_print_opts *po)
{
	uint32_t v[RP_MAX_FIELDS + RP_MAX_KEYS];
	unsigned n = columns(r, po, v);
	int w[RP_MAX_FIELDS + RP_MAX_KEYS];
	bool right;

	fputs("# ", f);
	for (unsigned i = 0; i < n; i++) {
		const char *h = col_header(r, c, v[i], &w[i], &right);

		fprintf(f, "%s%*s", i ? "  " : "", right ? w[i] : -w[i], h);
	}
	fputs("\n# ", f);
	for (unsigned i = 0; i < n; i++) {
		fputs(i ? "  " : "", f);
		for (int j = 0; j < w[i]; j++)
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

static void put_col(struct pk_report *r, FILE *f, const struct rp_entry *e,
		    const struct cols *c, double t, uint32_t col, bool last)
{
	const struct rp_sym *s = &r->sym[e->sym];
	unsigned k = key_pos(r, col);

	switch (col) {
	case RF_OVERHEAD: fprintf(f, "%7.2f%%", e->self * 100.0 / t); break;
	case RF_CHILDREN:
		if (r->o.children)
			fprintf(f, "%7.2f%%", e->acc * 100.0 / t);
		else
			fprintf(f, "%8s", "N/A");
		break;
	case RF_SYS: fprintf(f, "%7.2f%%", e->sys * 100.0 / t); break;
	case RF_US: fprintf(f, "%7.2f%%", e->us * 100.0 / t); break;
	case RF_SAMPLE: fprintf(f, "%12" PRIu64, e->nr_self); break;
	case RF_PERIOD: fprintf(f, "%12" PRIu64, e->self); break;
	case RK_COMM: fprintf(f, "%-*.*s", c->comm, c->comm, e->comm); break;
	case RK_PID:
		fprintf(f, "%7d:%-*.*s", e->tid, c->pid - 8, c->pid - 8, e->comm);
		break;
	case RK_DSO: fprintf(f, "%-*s", c->dso, dso_name(s)); break;
	case RK_SYM: put_sym(s, e, f, c->sym, last); break;
	default: pk__rp_key_print(col, e, f, c->w[k], last); break;
	}
}

static void put_row(struct pk_report *r, FILE *f, const struct rp_entry *e,
		    const struct cols *c, uint64_t total,
		    const struct pk_report_print_opts *po)
{
	uint32_t v[RP_MAX_FIELDS + RP_MAX_KEYS];
	unsigned n = columns(r, po, v);
	double t = total ? (double)total : 1;

	for (unsigned i = 0; i < n; i++) {
		fputs("  ", f);
		put_col(r, f, e, c, t, v[i], i + 1 == n);
	}
	fputc('\n', f);
}

static void samples_line(struct pk_report *r, FILE *f, unsigned a,
			 const struct rp_hists *h,
			 const struct pk_report_print_opts *po)
{
	bool relative = po->relative;
	unsigned long n = relative ? h->nr_shown : h->nr_samples;
	uint64_t total = relative ? h->total_shown : h->total;
	char unit = ' ';
	const char *name = pk_perfdata_attr_name(r->pd, a);

	if (n > 1000)
		n /= 1000, unit = 'K';
	if (n > 1000)
		n /= 1000, unit = 'M';
	if (n > 1000)
		n /= 1000, unit = 'G';
	fprintf(f, "# Samples: %lu%c of event '%s'", n, unit, name ? name : "");
	if (po->time_slices)
		fprintf(f, " (time slices: %s)", po->time_slices);
	fputc('\n', f);
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
	uint64_t total;

	/* perf: what the filters let by is the self periods of the entries
	 * they let by */
	h->total_shown = h->nr_shown = 0;
	for (uint32_t i = 0; i < h->n; i++)
		if (h->e[i].shown) {
			h->total_shown += h->e[i].self;
			h->nr_shown += h->e[i].nr_self;
		}
	total = po->relative ? h->total_shown : h->total;

	samples_line(r, f, a, h, po);
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

		if (r->keys[k] != RK_PID && r->keys[k] <= RK_SYM &&
		    elided1(r, r->keys[k]))
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
