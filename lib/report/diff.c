// SPDX-License-Identifier: MIT
/*
 * perf diff's text: the entries of several reports paired by their sort
 * keys (symbols by name, so that a rebuilt binary's functions pair), the
 * baseline's percentage and per other report a delta, ratio or weighted
 * difference. perf's steps are kept, as its output depends on them: each
 * report's entries collapse by name; the others' entries pair with the
 * baseline's or join it as "dummies" (no baseline period); the baseline's
 * total is then recounted from its entries (what -b removed is gone from
 * it) while the computations used the totals of the samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"
#include <perfkit/perfdata.h>
#include <linux/perf_event.h>

/* One collapsed entry: what perf's hist entry keeps of its first sample,
 * and the sum of the periods. */
struct df_ent {
	struct rp_entry re;         /* its report's entry (sym: not used) */
	struct rp_sym s;            /* and symbol */
	const char *wcomm;          /* the thread's last name (widths) */
	uint64_t period;
	bool shown, dummy;
	uint32_t idx;               /* collapsed order */
};

/* A pair's values, per baseline entry and report. */
struct df_val {
	bool has;
	uint64_t period;
	double delta, ratio;
	int64_t wdiff;
};

struct df {
	struct pk_report *const *r;
	unsigned n;
	const struct pk_report_diff_opts *o;
	struct df_ent *b;           /* the baseline's entries */
	uint32_t nb, capb;
	struct df_val *v;           /* nb x n */
	uint64_t *total;            /* per report: its samples' total */
	uint64_t base_total;        /* the baseline's, recounted */
};

/* The sort key KEY of A against B as lib/report compares keys (names, not
 * addresses): negative when A goes first. */
static int key_cmp(int key, const struct df_ent *a, const struct df_ent *b)
{
	struct rp_sym two[2] = { a->s, b->s };
	struct pk_report view = { .sym = two };
	struct rp_entry ea = a->re, eb = b->re;

	ea.sym = 0;
	eb.sym = 1;
	return pk__rp_cmp_key(&view, key, &ea, &eb);
}

static int keys_cmp(const struct pk_report *r, const struct df_ent *a,
		    const struct df_ent *b)
{
	int c = 0;

	for (unsigned k = 0; !c && k < r->nkeys; k++)
		c = key_cmp(r->keys[k], a, b);
	return c;
}

static int collapse_cmp(const void *pa, const void *pb, void *r)
{
	const struct df_ent *a = pa, *b = pb;
	int c = keys_cmp(r, a, b);

	/* perf's collapsed entry is the first of its tree of entries, where
	 * unresolved addresses go up */
	if (!c && !a->s.name && !b->s.name && a->re.addr != b->re.addr)
		return a->re.addr < b->re.addr ? -1 : 1;
	return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

/* collapse_cmp for the entries of one report: of the entries whose keys
 * are equal (a name at several addresses: libc's "@plt"), perf's
 * collapsed entry is the first of its tree of entries, which keeps its
 * filter (-C, -d: the row hidden or shown). */
static int first_cmp(const void *pa, const void *pb, void *r)
{
	const struct df_ent *a = pa, *b = pb;
	int c = keys_cmp(r, a, b);
	int64_t t;

	if (c || (!a->s.name && !b->s.name))
		return collapse_cmp(pa, pb, r);
	t = pk__rp_entries_cmp(r, &a->re, &b->re);
	if (t)
		return t < 0 ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static int grow_ents(struct df_ent **v, uint32_t *cap, uint32_t n)
{
	return pk__rp_grow((void **)v, cap, n, sizeof(**v), 64);
}

/* R's entries of event A collapsed by the sort keys, in perf's order of
 * its collapsed tree: *OUT, *NOUT. 0, -ENOMEM, or -ENOTSUP when perf's
 * text is not matched (kernel modules, the address shown). */
static int collapse(const struct pk_report *r, unsigned a,
		    struct df_ent **out, uint32_t *nout)
{
	const struct rp_hists *h = a < r->nh ? &r->h[a] : NULL;
	struct df_ent *v = NULL;
	uint32_t cap = 0, n = 0;

	for (uint32_t i = 0; h && i < h->n; i++) {
		const struct rp_entry *e = &h->e[i];
		const struct rp_sym *s = &r->sym[e->sym];
		const char *wc = pk__rp_thread_comm(r, e);

		if (e->gone)
			continue;

		if (grow_ents(&v, &cap, n))
			goto nomem;
		v[n] = (struct df_ent){ .re = *e, .s = *s,
					.wcomm = wc,
					.period = e->self,
					.shown = e->shown, .idx = n };
		n++;
	}
	if (n)
		qsort_r(v, n, sizeof(*v), first_cmp, (void *)r);
	uint32_t m = 0;

	/* without the DSO key perf's tree of entries orders unresolved
	 * addresses of several DSOs by no rule (its comparison is not
	 * transitive there): which one a shown entry keeps is not matched */
	bool mixed = false, any = false;

	for (uint32_t i = 0; i < n; i++) {
		if (m && !keys_cmp(r, &v[m - 1], &v[i])) {
			mixed |= !v[i].s.name && !(r->keymask & RK_DSO) &&
				 v[i].s.dso != v[m - 1].s.dso;
			any |= v[i].shown;
			/* perf's collapsed entry keeps its first's filter */
			v[m - 1].period += v[i].period;
			continue;
		}
		if (mixed && any)
			goto unmatched;
		/* perf names kernel modules "[name]" with module-relative
		 * addresses: pk_location has neither yet */
		if (v[i].shown && v[i].re.level == 'k' && v[i].s.dso &&
		    v[i].s.dso[0] != '[' && (r->keymask & (RK_DSO | RK_SYM)))
			goto unmatched;
		mixed = false;
		any = v[i].shown;
		v[m] = v[i];
		v[m].idx = m;
		m++;
	}
	if (mixed && any)
		goto unmatched;
	*out = v;
	*nout = m;
	return 0;
unmatched:
	pk__free(v);
	return -ENOTSUP;
nomem:
	pk__free(v);
	return -ENOMEM;
}

/* The event of report R like the baseline's event A: its index, or -1. */
static int match_attr(const struct df *d, unsigned i, unsigned a)
{
	const struct perf_event_attr *x = pk_perfdata_attr(d->r[0]->pd, a);
	struct pk_perfdata *pd = d->r[i]->pd;

	for (unsigned k = 0; k < pk_perfdata_nr_attrs(pd); k++) {
		const struct perf_event_attr *y = pk_perfdata_attr(pd, k);

		if (y->type == x->type && y->config == x->config)
			return (int)k;
	}
	return -1;
}

static struct df_val *val(const struct df *d, uint32_t e, unsigned i)
{
	return &d->v[(size_t)e * d->n + i];
}

/* KEY's place among the first N (sorted) baseline entries, or -1. */
static int bsearch_ent(const struct df *d, uint32_t n, const struct df_ent *key)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = keys_cmp(d->r[0], &d->b[mid], key);

		if (!c)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Re-sorts the baseline's entries (dummies appended) and their values. */
static int resort_base(struct df *d)
{
	struct df_val *nv = pk__calloc((size_t)d->nb * d->n + 1, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->nb; i++)
		d->b[i].idx = i;
	if (d->nb)
		qsort_r(d->b, d->nb, sizeof(*d->b), collapse_cmp,
			(void *)d->r[0]);
	for (uint32_t i = 0; i < d->nb; i++) {
		uint32_t old = d->b[i].idx;

		if (d->v && old < d->nb)
			memcpy(&nv[(size_t)i * d->n], &d->v[(size_t)old * d->n],
			       d->n * sizeof(*nv));
		d->b[i].idx = i;
	}
	pk__free(d->v);
	d->v = nv;
	return 0;
}

/* Pairs report I's entries L with the baseline's; the unpaired join the
 * baseline as dummies (not with -b). */
static int pair_with(struct df *d, unsigned i, const struct df_ent *l,
		     uint32_t nl)
{
	uint32_t nb0 = d->nb;
	struct df_val *nv;

	for (uint32_t k = 0; k < nl; k++) {
		int at = bsearch_ent(d, nb0, &l[k]);

		if (at < 0 && d->o->baseline_only)
			continue;
		if (at < 0) {
			if (grow_ents(&d->b, &d->capb, d->nb))
				return -ENOMEM;
			d->b[d->nb] = l[k];
			d->b[d->nb].period = 0;
			d->b[d->nb].dummy = true;
			d->b[d->nb].idx = d->nb;
			at = (int)d->nb++;
		}
		if ((uint32_t)at >= nb0) {
			nv = pk__realloc(d->v, ((size_t)d->nb * d->n + 1) *
					 sizeof(*nv));
			if (!nv)
				return -ENOMEM;
			memset(&nv[(size_t)(d->nb - 1) * d->n], 0,
			       d->n * sizeof(*nv));
			d->v = nv;
		}
		*val(d, (uint32_t)at, i) = (struct df_val){ .has = true,
							    .period = l[k].period };
	}
	return d->nb > nb0 ? resort_base(d) : 0;
}

static bool has_pairs(const struct df *d, uint32_t e)
{
	for (unsigned i = 1; i < d->n; i++)
		if (val(d, e, i)->has)
			return true;
	return false;
}

/* -b: the baseline's entries that paired with none. */
static void baseline_only(struct df *d)
{
	uint32_t m = 0;

	for (uint32_t e = 0; e < d->nb; e++) {
		if (!has_pairs(d, e))
			continue;
		d->b[m] = d->b[e];
		d->b[m].idx = m;
		memmove(val(d, m, 0), val(d, e, 0), d->n * sizeof(*d->v));
		m++;
	}
	d->nb = m;
}

static uint64_t hists_total(const struct pk_report *r, int a, bool relative)
{
	if (a < 0 || (unsigned)a >= r->nh)
		return 0;
	return relative ? r->h[a].total_shown : r->h[a].total;
}

static void compute(struct df *d)
{
	const struct pk_report_diff_opts *o = d->o;

	for (uint32_t e = 0; e < d->nb; e++) {
		uint64_t old = d->b[e].period;

		for (unsigned i = 1; i < d->n; i++) {
			struct df_val *p = val(d, e, i);

			if (!p->has)
				continue;
			p->delta = (p->period * 100.0) / d->total[i] -
				   (old * 100.0) / d->total[0];
			p->ratio = (double)p->period / (double)(old ? old : 1);
			p->wdiff = (int64_t)(p->period * (uint64_t)o->w2 -
					     old * (uint64_t)o->w1);
		}
	}
}

static int cmp_dbl(double a, double b)
{
	return a > b ? -1 : a < b;
}

/* Report I's value of A against B's: negative when A goes above. */
static int value_cmp(const struct df *d, const struct df_val *a,
		     const struct df_val *b)
{
	switch (d->o->compute) {
	case PK_REPORT_DELTA:
		return cmp_dbl(a->delta, b->delta);
	case PK_REPORT_DELTA_ABS:
		return cmp_dbl(fabs(a->delta), fabs(b->delta));
	case PK_REPORT_RATIO:
		return cmp_dbl(a->ratio, b->ratio);
	default:
		return a->wdiff > b->wdiff ? -1 : a->wdiff < b->wdiff;
	}
}

/* Those with a pair in report I first, then by the value. */
static int pair_cmp(const struct df *d, uint32_t a, uint32_t b, unsigned i)
{
	const struct df_val *pa = val(d, a, i), *pb = val(d, b, i);

	if (!pa->has || !pb->has)
		return !pa->has - !pb->has;
	return value_cmp(d, pa, pb);
}

/* -o's first comparison: ratios and weighted differences of dummies below. */
static int order_cmp(const struct df *d, uint32_t a, uint32_t b)
{
	unsigned i = d->o->order;
	const struct df_val *pa = val(d, a, i), *pb = val(d, b, i);

	if (!pa->has || !pb->has)
		return !pa->has - !pb->has;
	if (d->o->compute == PK_REPORT_RATIO || d->o->compute == PK_REPORT_WDIFF) {
		if (d->b[a].dummy || d->b[b].dummy)
			return d->b[a].dummy - d->b[b].dummy;
	}
	return value_cmp(d, pa, pb);
}

/* perf diff's output order: -o's column, the baseline's period, each
 * report's column (entries with any pair first), the sort keys; then
 * the collapsed order. */
static int out_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct df *d = ctx;
	const struct df_ent *ea = pa, *eb = pb;
	uint32_t a = ea->idx, b = eb->idx;
	int c = d->o->order ? order_cmp(d, a, b) : 0;

	if (!c)
		c = ea->period > eb->period ? -1 : ea->period < eb->period;
	for (unsigned i = 1; !c && i < d->n; i++) {
		bool ha = has_pairs(d, a), hb = has_pairs(d, b);

		c = ha != hb ? hb - ha : pair_cmp(d, a, b, i);
	}
	if (!c)
		c = keys_cmp(d->r[0], ea, eb);
	return c ? c : (a > b) - (a < b);
}

struct df_cols {
	int comm, pid, dso, sym;
	int w0, wp0, wc, wf, wp;    /* baseline, base period, compute, formula, period */
};

static const char *const compute_title[] = {
	[PK_REPORT_DELTA_ABS] = "Delta Abs", [PK_REPORT_DELTA] = "Delta",
	[PK_REPORT_RATIO] = "Ratio", [PK_REPORT_WDIFF] = "Weighted diff",
};

/* A column's title: NAME, "/I" after it with more than two reports. */
static int title(const struct df *d, char *buf, size_t sz, const char *name,
		 unsigned i)
{
	if (d->n > 2)
		return snprintf(buf, sz, "%s/%u", name, i);
	return snprintf(buf, sz, "%s", name);
}

static void widths(const struct df *d, struct df_cols *c)
{
	const struct pk_report *r = d->r[0];
	char b[64];
	bool dso_list = r->dsos.n > 0;

	c->comm = 7, c->pid = 15, c->dso = 13, c->sym = 6;
	for (uint32_t i = 0; i < d->nb; i++) {
		const struct df_ent *e = &d->b[i];

		if (!e->shown)
			continue;
		c->comm = pk__rp_max(c->comm, (int)strlen(e->wcomm));
		if (e->s.dso)
			c->dso = pk__rp_max(c->dso, (int)strlen(e->s.dso));
		c->sym = pk__rp_max(c->sym, pk__rp_sym_len(&e->s));
		/* perf: an unresolved symbol widens the DSO column */
		if ((!e->s.name || !e->s.dso) && !dso_list)
			c->dso = pk__rp_max(c->dso, 16);
	}
	c->pid = pk__rp_max(c->pid, c->comm + 8);
	c->w0 = pk__rp_max(8, title(d, b, sizeof(b), "Baseline", 0));
	c->wp0 = pk__rp_max(14, title(d, b, sizeof(b), "Base period", 0));
	c->wc = d->o->compute <= PK_REPORT_DELTA ? 7 : 14;
	c->wf = 70;
	c->wp = 14;
}

/* Whether report I's columns include column T (0 compute, 1 formula,
 * 2 period), and its title. */
static bool has_col(const struct df *d, int t)
{
	return !t || (t == 1 && d->o->formula) || (t == 2 && d->o->period);
}

static const char *col_name(const struct df *d, int t)
{
	return !t ? compute_title[d->o->compute] : t == 1 ? "Formula" : "Period";
}

/* The width of report I's column T. */
static int col_width(const struct df *d, const struct df_cols *c, unsigned i,
		     int t)
{
	char b[64];
	int w = t == 0 ? c->wc : t == 1 ? c->wf : c->wp;

	return pk__rp_max(w, title(d, b, sizeof(b), col_name(d, t), i));
}

static void dots(FILE *f, int w)
{
	while (w-- > 0)
		fputc('.', f);
}

static void put_dots(FILE *f, int w)
{
	fputs("  ", f);
	dots(f, w);
}

static int key_width(const struct df_cols *c, int key)
{
	return key == RK_COMM ? c->comm : key == RK_PID ? c->pid :
	       key == RK_DSO ? c->dso : c->sym;
}

static void header(const struct df *d, FILE *f, const struct df_cols *c)
{
	const struct pk_report *r = d->r[0];
	char b[64];

	title(d, b, sizeof(b), "Baseline", 0);
	fprintf(f, "# %*s", c->w0, b);
	if (d->o->period && title(d, b, sizeof(b), "Base period", 0))
		fprintf(f, "  %*s", c->wp0, b);
	for (unsigned i = 1; i < d->n; i++)
		for (int t = 0; t < 3; t++)
			if (has_col(d, t) && title(d, b, sizeof(b),
						   col_name(d, t), i))
				fprintf(f, "  %*s", col_width(d, c, i, t), b);
	for (unsigned k = 0; k < r->nkeys; k++) {
		static const char *const names[] = {
			[RK_COMM] = "Command", [RK_PID] = "    Pid:Command",
			[RK_DSO] = "Shared Object", [RK_SYM] = "Symbol" };

		if (!pk__rp_elided(r, r->keys[k]))
			fprintf(f, "  %-*s", key_width(c, r->keys[k]),
				names[r->keys[k]]);
	}
	fputs("\n# ", f);
	dots(f, c->w0);
	if (d->o->period)
		put_dots(f, c->wp0);
	for (unsigned i = 1; i < d->n; i++)
		for (int t = 0; t < 3; t++)
			if (has_col(d, t))
				put_dots(f, col_width(d, c, i, t));
	for (unsigned k = 0; k < r->nkeys; k++)
		if (!pk__rp_elided(r, r->keys[k]))
			put_dots(f, key_width(c, r->keys[k]));
	fputs("\n#\n", f);
}

/* Report I's cell T (0 compute, 1 formula, 2 period) of baseline entry E. */
static void cell(const struct df *d, const struct df_ent *e, unsigned i,
		 int t, char *buf, size_t sz)
{
	const struct df_val *p = val(d, e->idx, i);
	const struct pk_report_diff_opts *o = d->o;
	uint64_t old = e->period;

	snprintf(buf, sz, " ");
	if (!p->has)
		return;
	if (t == 2) {
		snprintf(buf, sz, "%" PRIu64, p->period);
	} else if (t == 1 && o->compute <= PK_REPORT_DELTA) {
		snprintf(buf, sz, "(%" PRIu64 " * 100 / %" PRIu64 ") - (%"
			 PRIu64 " * 100 / %" PRIu64 ")", p->period,
			 d->total[i], old, d->base_total);
	} else if (t == 1 && o->compute == PK_REPORT_RATIO) {
		snprintf(buf, sz, "%.0F / %.0F", (double)p->period, (double)old);
	} else if (t == 1) {
		snprintf(buf, sz, "(%" PRIu64 " * %" PRId64 ") - (%" PRIu64
			 " * %" PRId64 ")", p->period, o->w2, old, o->w1);
	} else if (o->compute <= PK_REPORT_DELTA) {
		snprintf(buf, sz, "%+4.2f%%", p->delta);
	} else if (e->dummy) {
		snprintf(buf, sz, "N/A");
	} else if (o->compute == PK_REPORT_RATIO) {
		snprintf(buf, sz, "%14.6f", p->ratio);
	} else if (o->compute == PK_REPORT_WDIFF) {
		snprintf(buf, sz, "%14" PRId64, p->wdiff);
	}
}

static void put_keys(const struct df *d, FILE *f, const struct df_ent *e,
		     const struct df_cols *c)
{
	const struct pk_report *r = d->r[0];
	unsigned last = r->nkeys - 1;

	while (last && pk__rp_elided(r, r->keys[last]))
		last--;
	for (unsigned k = 0; k < r->nkeys; k++) {
		if (pk__rp_elided(r, r->keys[k]))
			continue;
		switch (r->keys[k]) {
		case RK_COMM:
			fprintf(f, "  %-*.*s", c->comm, c->comm, e->re.comm);
			break;
		case RK_PID:
			/* perf: the thread's last name */
			fprintf(f, "  %7d:%-*.*s", e->re.tid, c->pid - 8,
				c->pid - 8, e->wcomm);
			break;
		case RK_DSO:
			fprintf(f, "  %-*.*s", c->dso, c->dso,
				pk__rp_dso_name(&e->s));
			break;
		default:
			fputs("  ", f);
			pk__rp_put_sym(&e->s, &e->re, f, c->sym, k == last);
		}
	}
	fputc('\n', f);
}

static void row(const struct df *d, FILE *f, const struct df_ent *e,
		const struct df_cols *c)
{
	char b[80];

	if (e->dummy)
		b[0] = 0;
	else
		snprintf(b, sizeof(b), "%6.2f%%", 100.0 * e->period /
			 d->base_total);
	fprintf(f, "  %*s", c->w0, b);
	if (d->o->period)
		fprintf(f, "  %*" PRIu64, c->wp0, e->period);
	for (unsigned i = 1; i < d->n; i++) {
		for (int t = 0; t < 3; t++) {
			if (!has_col(d, t))
				continue;
			/* perf's cells are 70 bytes */
			cell(d, e, i, t, b, 70);
			/* perf: weighted differences 14 wide, then padded to
			 * the title's width */
			if (!t && d->o->compute == PK_REPORT_WDIFF &&
			    !e->dummy && val(d, e->idx, i)->has)
				fprintf(f, "  %-*s", col_width(d, c, i, t), b);
			else
				fprintf(f, "  %*s", col_width(d, c, i, t), b);
		}
	}
	put_keys(d, f, e, c);
}

static void reset(struct df *d)
{
	pk__free(d->b);
	pk__free(d->v);
	d->b = NULL;
	d->v = NULL;
	d->nb = d->capb = 0;
}

/* Event A of the baseline: its entries, paired, computed, sorted. */
static int build(struct df *d, unsigned a)
{
	int err = collapse(d->r[0], a, &d->b, &d->nb);

	d->capb = d->nb;
	if (!err)
		err = resort_base(d);
	d->total[0] = hists_total(d->r[0], (int)a, d->o->relative);
	for (unsigned i = 1; i < d->n && !err; i++) {
		int ai = match_attr(d, i, a);
		struct df_ent *l = NULL;
		uint32_t nl = 0;

		/* perf: none of that report's entries pair with this event's */
		if (ai < 0)
			continue;
		d->total[i] = hists_total(d->r[i], ai, d->o->relative);
		err = collapse(d->r[i], (unsigned)ai, &l, &nl);
		if (!err)
			err = pair_with(d, i, l, nl);
		pk__free(l);
	}
	if (err)
		return err;
	if (d->o->baseline_only)
		baseline_only(d);
	compute(d);
	d->base_total = 0;
	for (uint32_t e = 0; e < d->nb; e++)
		if (d->b[e].shown || !d->o->relative)
			d->base_total += d->b[e].period;
	if (d->nb)
		qsort_r(d->b, d->nb, sizeof(*d->b), out_cmp, d);
	return 0;
}

static void print_event(struct df *d, FILE *f, unsigned a, bool first)
{
	struct df_cols c;

	if (!d->o->quiet)
		fprintf(f, "%s# Event '%s'\n#\n", first ? "" : "\n",
			pk_perfdata_attr_name(d->r[0]->pd, a));
	if (d->n > 2 && !d->o->quiet && d->o->names) {
		fputs("# Data files:\n", f);
		for (unsigned i = 0; i < d->n; i++)
			fprintf(f, "#  [%u] %s %s\n", i, d->o->names[i],
				i ? "" : "(Baseline)");
		fputs("#\n", f);
	}
	widths(d, &c);
	if (!d->o->quiet)
		header(d, f, &c);
	for (uint32_t e = 0; e < d->nb; e++)
		if (d->b[e].shown)
			row(d, f, &d->b[e], &c);
}

int pk_report_diff_print(struct pk_report *const *r, unsigned n, FILE *f,
			 const struct pk_report_diff_opts *opts)
{
	struct df d = { .r = r, .n = n, .o = opts };
	int err = 0;

	if (!PK_OPTS_VALID(opts, pk_report_diff_opts) || !opts || !r || n < 2 ||
	    opts->order >= n || (opts->compute == PK_REPORT_WDIFF &&
				 (!opts->w1 || !opts->w2)))
		return -EINVAL;
	d.total = pk__calloc(n, sizeof(*d.total));
	if (!d.total)
		return -ENOMEM;
	/* all built first: an error prints nothing */
	for (int pass = 0; pass < 2 && !err; pass++)
		for (unsigned a = 0; a < pk_perfdata_nr_attrs(r[0]->pd) && !err;
		     a++) {
			err = build(&d, a);
			if (!err && pass)
				print_event(&d, f, a, !a);
			reset(&d);
		}
	pk__free(d.total);
	if (!err && ferror(f))
		err = -EIO;
	return err;
}
