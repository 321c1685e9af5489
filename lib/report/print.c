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

/* Whether the browser is zoomed (view.c). */
static bool zoomed(const struct pk_report *r)
{
	return r->zoom.dso || r->zoom.thread || r->zoom.sym;
}

static bool elided1(const struct pk_report *r, int key)
{
	return (key == RK_COMM && r->comms.n == 1) ||
	       (key == RK_DSO && (r->dsos.n == 1 || r->zoom.dso)) ||
	       (key == RK_SYM && r->syms.n == 1);
}

/* perf elides the column of a key filtered to one value (not all). */
static bool elided(const struct pk_report *r, int key)
{
	unsigned k;

	for (k = 0; k < r->nkeys; k++)
		if (!elided1(r, r->keys[k]))
			break;
	return k < r->nkeys && elided1(r, key);
}

bool pk__rp_elided(const struct pk_report *r, int key)
{
	return elided(r, key);
}

const char *pk__rp_dso_name(const struct rp_sym *s)
{
	return s->dso ? s->dso : "[unknown]";
}

/* The DSO column's text: perf top names the kernel "[kernel]". */
const char *pk__rp_dso_of(const struct pk_report *r, const struct rp_sym *s)
{
	if (r->kernel_dso && s->dso && s->level == 'k')
		return r->kernel_dso;
	return pk__rp_dso_name(s);
}

int pk__rp_sym_len(const struct rp_sym *s)
{
	if (s->name && s->namelen)
		return (int)s->namelen + 4;
	return s->name ? (int)strlen(s->name) + 4 : 16 + 4 + 2;
}

int pk__rp_max(int a, int b)
{
	return a > b ? a : b;
}

struct prefix_ctx {
	const struct pk_report *r;
	unsigned nk;
};

/* The sort keys before the trace key, of A against B. */
static int prefix_cmp(const void *a, const void *b, void *arg)
{
	const struct prefix_ctx *x = arg;
	const struct rp_entry *ea = *(const struct rp_entry *const *)a;
	const struct rp_entry *eb = *(const struct rp_entry *const *)b;
	int c = 0;

	for (unsigned k = 0; !c && k < x->nk; k++)
		c = pk__rp_cmp_key(x->r, (int)x->r->keys[k], ea, eb);
	return c;
}

/* perf makes an entry's trace text when its trace key is first compared,
 * and sizes the column before it prints: entries of one sample that no
 * other entry matches on the keys before "trace" do not count (their
 * text is cut to the width). The widest of the others, else 0. */
static int trace_width(const struct pk_report *r, const struct rp_hists *h,
		       unsigned kt)
{
	struct prefix_ctx x = { r, kt };
	const struct rp_entry **v = pk__malloc((h->n + 1) * sizeof(*v));
	int w = 0;

	if (!v)
		return 0;
	for (uint32_t i = 0; i < h->n; i++)
		v[i] = &h->e[i];
	qsort_r(v, h->n, sizeof(*v), prefix_cmp, &x);
	for (uint32_t i = 0; i < h->n; i++) {
		bool known = v[i]->nr_self >= 2 || v[i]->nr_acc >= 2 ||
			     (i && !prefix_cmp(&v[i - 1], &v[i], &x)) ||
			     (i + 1 < h->n && !prefix_cmp(&v[i], &v[i + 1], &x));

		if (known && v[i]->shown && pk__rp_in_zoom(r, v[i]))
			w = pk__rp_max(w, pk__rp_key_width(r, RK_TRACE, v[i]));
	}
	pk__free(v);
	return w;
}

/* perf's column widths: the longest value or the header. */
static void widths(struct pk_report *r, const struct rp_hists *h,
		   struct rp_cols *c)
{
	c->comm = 7, c->pid = 15, c->dso = 13, c->sym = 6;
	for (unsigned k = 0; k < r->nkeys; k++)
		c->w[k] = pk__rp_key_min_width(r->keys[k]);
	if (zoomed(r))
		/* perf's browser, zoomed: the values' widths only */
		c->comm = c->pid = c->dso = c->sym = 0;
	for (uint32_t i = 0; i < h->n; i++) {
		const struct rp_entry *e = &h->e[i];
		const struct rp_sym *s = &r->sym[e->sym];
		int cl = (int)strlen(pk__rp_thread_comm(r, e));

		if (!e->shown || !pk__rp_in_zoom(r, e))
			continue;
		c->comm = pk__rp_max(c->comm, cl);
		for (unsigned k = 0; k < r->nkeys; k++)
			if (r->keys[k] > RK_SYM && r->keys[k] != RK_TRACE &&
			    r->keys[k] != RF_IPC)
				c->w[k] = pk__rp_max(c->w[k],
						pk__rp_key_width(r, r->keys[k], e));
		c->sym = pk__rp_max(c->sym, pk__rp_sym_len(s));
		if (s->dso)
			c->dso = pk__rp_max(c->dso, (int)strlen(s->dso));
		if (!s->name && !r->dsos.n)
			/* perf widens for an unresolved address (in a DSO or
			 * none), but not with a --dso list */
			c->dso = pk__rp_max(c->dso, 16);
	}
	c->pid = pk__rp_max(c->pid, c->comm + 8);
	for (unsigned k = 0; k < r->nkeys; k++)
		if (r->keys[k] == RK_TRACE)
			c->w[k] = pk__rp_max(c->w[k], trace_width(r, h, k));
}

/* perf right-aligns the headers of these numbers */
static bool right_header(unsigned key)
{
	return key == RK_CPU || key == RK_SOCKET || key == RK_PERIOD ||
	       key == RK_SYMSIZE;
}

static int col_width(const struct pk_report *r, const struct rp_cols *c,
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
		if (po->cpu_util) {
			v[n++] = RF_SYS;
			v[n++] = RF_US;
		}
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
static const char *col_header1(const struct pk_report *r,
			       const struct rp_cols *c, uint32_t f, int *w,
			       bool *right)
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
	case RF_IPC: *w = 20; *right = false; return "IPC   [IPC Coverage]";
	default: break;
	}
	*w = col_width(r, c, key_pos(r, f));
	if (f == RF_CHILDREN)
		*w = 8;
	/* perf's header is "    Pid:Command", left-aligned (zoomed: the
	 * values' width, the name to the right) */
	if (f == RK_PID && !zoomed(r)) {
		*right = false;
		return "    Pid:Command";
	}
	*right = f == RK_PID || right_header(f);
	return f == RK_COMM ? "Command" : f == RK_PID ? "Pid:Command" :
	       f == RK_DSO ? "Shared Object" : f == RK_SYM ? "Symbol" :
	       pk__rp_key_header(f);
}

/* In a group each number column has a field per member. */
static const char *col_header(const struct pk_report *r,
			      const struct rp_cols *c, uint32_t f, int *w,
			      bool *right)
{
	const char *h = col_header1(r, c, f, w, right);

	if (r->gp && f >= RF_OVERHEAD && f != RF_IPC)
		*w *= (int)r->gp->nmem;
	return h;
}

static void put_header(struct pk_report *r, FILE *f, const struct rp_cols *c,
		       const struct pk_report_print_opts *po)
{
	uint32_t v[RP_MAX_FIELDS + RP_MAX_KEYS];
	unsigned n = columns(r, po, v);
	int w[RP_MAX_FIELDS + RP_MAX_KEYS];
	bool right;

	const char *sep = po->field_sep && *po->field_sep ? po->field_sep : NULL;

	if (po->quiet)
		return;
	fputs("# ", f);
	for (unsigned i = 0; i < n; i++) {
		const char *h = col_header(r, c, v[i], &w[i], &right);

		/* zoomed, perf's browser cuts the titles to the values */
		fprintf(f, "%s%*.*s", i ? sep ? sep : "  " : "",
			right ? w[i] : -w[i], zoomed(r) ? w[i] : -1, h);
	}
	if (sep) {	/* perf: no dotted line with -t */
		fputc('\n', f);
		return;
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

void pk__rp_put_sym(const struct rp_sym *s, const struct rp_entry *e, FILE *f,
		    int w, bool last)
{
	put_sym(s, e, f, w, last);
}

/* A number column of a group's row E: each member's value. */
static void put_group_col(struct pk_report *r, FILE *f,
			  const struct rp_entry *e, uint32_t col)
{
	const struct rp_grp_rows *g = r->gp;
	size_t row = (size_t)(e - g->rows);

	for (unsigned m = 0; m < g->nmem; m++) {
		const struct rp_entry *me = g->mem[row * g->nmem + m];
		const struct rp_hists *h = &r->h[g->lead + m];
		uint64_t total = g->relative ? h->total_shown : h->total;
		double t = total ? (double)total : 1;
		uint64_t self = me ? me->self : 0;

		switch (col) {
		case RF_OVERHEAD: fprintf(f, "%7.2f%%", self * 100.0 / t); break;
		case RF_CHILDREN:
			fprintf(f, "%7.2f%%", (me ? me->acc : 0) * 100.0 / t);
			break;
		case RF_SAMPLE: fprintf(f, "%12" PRIu64, me ? me->nr_self : 0); break;
		case RF_PERIOD: fprintf(f, "%12" PRIu64, self); break;
		case RF_SYS: fprintf(f, "%7.2f%%", (me ? me->sys : 0) * 100.0 / t); break;
		default: fprintf(f, "%7.2f%%", (me ? me->us : 0) * 100.0 / t); break;
		}
	}
}

/* A percentage; in perf top's colors on a terminal (red from 5%, green
 * above 0.5%: the escapes count in its line's width). */
static void put_pct(const struct pk_report *r, FILE *f, double pct)
{
	const char *c = !r->color ? NULL : pct >= 5.0 ? "\033[31m" :
			pct > 0.5 ? "\033[32m" : NULL;

	if (c)
		fprintf(f, "%s%7.2f%%\033[m", c, pct);
	else
		fprintf(f, "%7.2f%%", pct);
}

static void put_col(struct pk_report *r, FILE *f, const struct rp_entry *e,
		    const struct rp_cols *c, double t, uint32_t col, bool last)
{
	const struct rp_sym *s = &r->sym[e->sym];
	unsigned k = key_pos(r, col);
	const char *tc;

	if (col == RF_IPC) {
		fprintf(f, "%-20s", "-      -");
		return;
	}
	if (r->gp && col >= RF_OVERHEAD) {
		put_group_col(r, f, e, col);
		return;
	}
	switch (col) {
	case RF_OVERHEAD: put_pct(r, f, e->self * 100.0 / t); break;
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
	case RK_PID: /* perf: the thread's last comm */
		tc = pk__rp_thread_comm(r, e);
		fprintf(f, "%7d:%-*.*s", e->tid, c->pid - 8, c->pid - 8, tc);
		break;
	case RK_DSO: fprintf(f, "%-*s", c->dso, pk__rp_dso_of(r, s)); break;
	case RK_SYM: put_sym(s, e, f, c->sym, last); break;
	default: pk__rp_key_print(r, col, e, f, c->w[k], last); break;
	}
}

/* With -t, number column COL of E (each member's in a group) as perf
 * prints it: " VALUE" each, unpadded. */
static void sep_number(struct pk_report *r, const struct rp_entry *e,
		       double t, uint32_t col, char *b, size_t size)
{
	const struct rp_grp_rows *g = r->gp;
	unsigned nm = g ? g->nmem : 1;
	size_t len = 0;

	b[0] = 0;
	for (unsigned m = 0; m < nm && len < size; m++) {
		const struct rp_entry *me = e;
		double tt = t;

		if (g) {
			const struct rp_hists *h = &r->h[g->lead + m];
			uint64_t total = g->relative ? h->total_shown : h->total;

			me = g->mem[(size_t)(e - g->rows) * g->nmem + m];
			tt = total ? (double)total : 1;
		}
		uint64_t self = me ? me->self : 0, nr = me ? me->nr_self : 0;
		double pct = !me ? 0 : col == RF_CHILDREN ? (double)me->acc :
			     col == RF_SYS ? (double)me->sys :
			     col == RF_US ? (double)me->us : (double)self;

		if (col == RF_SAMPLE || col == RF_PERIOD)
			len += (size_t)snprintf(b + len, size - len, " %" PRIu64,
						col == RF_SAMPLE ? nr : self);
		else
			len += (size_t)snprintf(b + len, size - len, " %.2f%%",
						pct * 100.0 / tt);
	}
}

/* E's row with perf's -t separator SEP: numbers unpadded, then
 * left-aligned to their width (but the last). */
static void put_row_sep(struct pk_report *r, FILE *f, const struct rp_entry *e,
			const struct rp_cols *c, double t, const char *sep,
			const uint32_t *v, unsigned n)
{
	char b[512];
	bool right;
	int w;

	for (unsigned i = 0; i < n; i++) {
		fputs(i ? sep : "", f);
		if (v[i] < RF_OVERHEAD || v[i] == RF_IPC) {
			put_col(r, f, e, c, t, v[i], i + 1 == n);
			continue;
		}
		col_header(r, c, v[i], &w, &right);
		sep_number(r, e, t, v[i], b, sizeof(b));
		fprintf(f, "%-*s", i + 1 == n ? 0 : w, b);
	}
	fputc('\n', f);
}

void pk__rp_put_row(struct pk_report *r, FILE *f, const struct rp_entry *e,
		    const struct rp_cols *c, uint64_t total,
		    const struct pk_report_print_opts *po)
{
	uint32_t v[RP_MAX_FIELDS + RP_MAX_KEYS];
	unsigned n = columns(r, po, v);
	double t = total ? (double)total : 1;

	if (po->field_sep && *po->field_sep) {
		put_row_sep(r, f, e, c, t, po->field_sep, v, n);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		fputs("  ", f);
		put_col(r, f, e, c, t, v[i], i + 1 == n);
	}
	fputc('\n', f);
}

/* perf's "# Samples:" line: N samples (K, M, G past a thousand) of the
 * event NAME, the event count TOTAL. */
static void samples_line(const struct pk_report *r, FILE *f, unsigned long n,
			 const char *what, const char *name, uint64_t total,
			 const struct pk_report_print_opts *po)
{
	char unit = ' ';

	if (n > 1000)
		n /= 1000, unit = 'K';
	if (n > 1000)
		n /= 1000, unit = 'M';
	if (n > 1000)
		n /= 1000, unit = 'G';
	if (po->quiet)
		return;
	fprintf(f, "# Samples: %lu%c of %s '%s'", n, unit, what, name);
	if (po->time_slices)
		fprintf(f, " (time slices: %s)", po->time_slices);
	fputc('\n', f);
	/* memory mode: weights, and the sort keys as given */
	if (r->o.mem)
		fprintf(f, "# Total weight : %" PRIu64 "\n# Sort order   : %s%s\n#\n",
			total, r->sort_str, r->ipc ? ",ipc_null" : "");
	else
		fprintf(f, "# Event count (approx.): %" PRIu64 "\n", total);
	if (!r->o.mem && r->o.by_socket)
		fprintf(f, "# Processor Socket: %d\n", (int)r->o.socket);
	if (!r->o.mem)
		fputs("#\n", f);
}

/* perf: what the filters let by is the self periods of the entries they
 * let by. */
void pk__rp_count_shown(struct rp_hists *h)
{
	h->total_shown = h->nr_shown = 0;
	for (uint32_t i = 0; i < h->n; i++)
		if (h->e[i].shown) {
			h->total_shown += h->e[i].self;
			h->nr_shown += h->e[i].nr_self;
		} else if (h->e[i].unlisted) {
			h->nr_shown += h->e[i].nr_self;
		}
}

/* The header, then the N entries of V (of H, whose totals count) in
 * perf's order, each with its callchain. */
static int print_rows(struct pk_report *r, FILE *f, const struct rp_hists *h,
		      struct rp_entry **v, uint32_t n,
		      const struct pk_report_print_opts *po)
{
	uint64_t total = po->relative ? h->total_shown : h->total;
	struct rp_hists rows = { .e = v[0], .n = n };
	struct rp_cols c;
	int err;

	widths(r, &rows, &c);
	put_header(r, f, &c, po);
	err = pk__rp_order(r, v, n);
	for (uint32_t i = 0; i < n && !err; i++) {
		uint64_t p = r->o.children ? v[i]->acc : v[i]->self;

		if (!v[i]->shown ||
		    (total && p * 100.0 / total < po->percent_limit))
			continue;
		pk__rp_put_row(r, f, v[i], &c, total, po);
		if (po->chain != PK_REPORT_CHAIN_NONE)
			err = pk__rp_print_chain(r, f, v[i], h->total, total,
						 po);
	}
	fputs("\n\n", f);
	return err;
}

static int print_hists(struct pk_report *r, FILE *f, unsigned a,
		       const struct pk_report_print_opts *po)
{
	struct rp_hists *h = &r->h[a];
	struct rp_entry **v = pk__malloc((h->n + 1) * sizeof(*v));
	const char *name = pk_perfdata_attr_name(r->pd, a);
	const struct rp_group *g = pk__rp_group_of(r, a);
	int err;

	if (!v)
		return -ENOMEM;
	pk__rp_count_shown(h);
	/* perf says "events" for a group's leader shown alone */
	samples_line(r, f, po->relative ? h->nr_shown : h->nr_samples,
		     g && g->lead == a ? "events" : "event", name ? name : "",
		     po->relative ? h->total_shown : h->total, po);
	for (uint32_t i = 0; i < h->n; i++)
		v[i] = &h->e[i];
	err = print_rows(r, f, h, v, h->n, po);
	pk__free(v);
	return err;
}

/* The row of G's first N rows that E (of member M) goes to, or N. */
static uint32_t row_of(struct pk_report *r, struct rp_grp_rows *g,
		       uint32_t n, uint32_t nlead, const struct rp_entry *e)
{
	const struct rp_entry *le = pk__rp_entry_find(r, &r->h[g->lead], e);

	if (le)
		return (uint32_t)(le - r->h[g->lead].e);
	for (uint32_t i = nlead; i < n; i++)
		if (pk__rp_same(r, &g->rows[i], e))
			return i;
	return n;
}

/* G's rows: the leader's entries, then what only members have. */
static uint32_t group_rows(struct pk_report *r, struct rp_grp_rows *g,
			   struct rp_entry *rows)
{
	const struct rp_hists *lh = &r->h[g->lead];
	uint32_t n = 0;

	for (; n < lh->n; n++) {
		rows[n] = lh->e[n];
		g->mem[(size_t)n * g->nmem] = &lh->e[n];
	}
	for (unsigned m = 1; m < g->nmem; m++) {
		const struct rp_hists *mh = &r->h[g->lead + m];

		for (uint32_t i = 0; i < mh->n; i++) {
			uint32_t k = row_of(r, g, n, lh->n, &mh->e[i]);

			if (k == n) {
				/* perf's dummy leader entry */
				rows[n] = mh->e[i];
				rows[n].self = rows[n].acc = 0;
				rows[n].nr_self = rows[n].nr_acc = 0;
				rows[n].sys = rows[n].us = 0;
				rows[n].root = rows[n].max_depth = 0;
				n++;
			}
			g->mem[(size_t)k * g->nmem + m] = &mh->e[i];
		}
	}
	return n;
}

static bool group_samples(const struct pk_report *r, const struct rp_group *g)
{
	for (unsigned m = 0; m < g->nr; m++)
		if (r->h[g->lead + m].nr_samples)
			return true;
	return false;
}

/* perf's group view: one table for GRP's events, each number column a
 * field per member. */
static int print_group(struct pk_report *r, FILE *f, const struct rp_group *grp,
		       const struct pk_report_print_opts *po)
{
	struct rp_grp_rows g = { .lead = grp->lead, .nmem = grp->nr,
				 .relative = po->relative,
				 .sort_idx = po->group_sort };
	struct rp_entry *rows, **v;
	uint64_t nr = 0, total = 0;
	size_t cap = 1, len = 0;
	uint32_t n;
	char *name;
	int err;

	for (unsigned m = 0; m < grp->nr; m++) {
		struct rp_hists *h = &r->h[grp->lead + m];

		pk__rp_count_shown(h);
		cap += h->n;
		nr += po->relative ? h->nr_shown : h->nr_samples;
		total += po->relative ? h->total_shown : h->total;
		len += strlen(pk_perfdata_attr_name(r->pd, grp->lead + m) ?: "") + 2;
	}
	rows = pk__calloc(cap, sizeof(*rows));
	v = pk__calloc(cap, sizeof(*v));
	g.mem = pk__calloc(cap * grp->nr, sizeof(*g.mem));
	name = pk__malloc(len + strlen(grp->name) + 16);
	if (!rows || !v || !g.mem || !name) {
		err = -ENOMEM;
		goto out;
	}
	strcpy(name, strcmp(grp->name, "{anon_group}") && *grp->name ?
	       grp->name : "anon group");
	for (unsigned m = 0; m < grp->nr; m++) {
		strcat(name, m ? ", " : " { ");
		strcat(name, pk_perfdata_attr_name(r->pd, grp->lead + m) ?: "");
	}
	strcat(name, " }");
	g.rows = rows;
	n = group_rows(r, &g, rows);
	for (uint32_t i = 0; i < n; i++)
		v[i] = &rows[i];
	samples_line(r, f, (unsigned long)nr, "events", name, total, po);
	r->gp = &g;
	err = print_rows(r, f, &r->h[grp->lead], v, n, po);
	r->gp = NULL;
out:
	pk__free(rows);
	pk__free(v);
	pk__free(g.mem);
	pk__free(name);
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
	if ((err = pk__rp_settle(r)))
		return err;
	pk__rp_filters_late(r);
	for (unsigned k = 0; k < r->nkeys; k++) {
		const struct rp_list *l = r->keys[k] == RK_COMM ? &r->comms :
			r->keys[k] == RK_DSO ? &r->dsos : &r->syms;

		if (r->keys[k] != RK_PID && r->keys[k] <= RK_SYM &&
		    elided1(r, r->keys[k]))
			fprintf(f, "# %s: %s\n", r->keys[k] == RK_COMM ? "comm" :
				r->keys[k] == RK_DSO ? "dso" : "symbol", l->w[0]);
	}
	if (!po->quiet)
		fprintf(f, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", r->lost);
	if ((err = pk__rp_load_groups(r)))
		return err;
	for (unsigned a = 0; a < r->nh && !err; a++) {
		const struct rp_group *g = po->no_group ? NULL :
					   pk__rp_group_of(r, a);

		if (g && g->lead == a && pk__rp_hists_of(r, (int)(a + g->nr - 1)))
			err = group_samples(r, g) ? print_group(r, f, g, po) : 0;
		else if (!g && r->h[a].nr_samples)
			err = print_hists(r, f, a, po);
	}
	if (!err && po->tip && !po->quiet)
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
	const char *name = pk_perfdata_attr_name(r->pd, a);
	const struct rp_group *g = pk__rp_group_of(r, a);
	struct rp_cols c;

	samples_line(r, f, (unsigned long)nr_samples,
		     g && g->lead == a ? "events" : "event", name ? name : "",
		     total, po);
	widths(r, &r->h[a], &c);
	put_header(r, f, &c, po);
	for (uint32_t i = 0; i < n; i++)
		pk__rp_put_row(r, f, v[i], &c, total, po);
}
