/* SPDX-License-Identifier: MIT */
/* perfkit stat output: perf's human layout, CSV (-x) and JSON (-j), and
 * the run statistics (-r) behind it. */
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "stat.h"

void stats_update(struct stats *s, double v)
{
	double d = v - s->mean;

	s->n += 1;
	s->mean += d / s->n;
	s->m2 += d * (v - s->mean);
}

double stats_stddev_mean(const struct stats *s)
{
	if (s->n < 2)
		return 0;
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

bool stat_is_tool(struct pk_evsel *e)
{
	return pk_evsel_tool(e) != PK_TOOL_NONE;
}

/* A derived value printed after '#', as perf's shadow metrics. */
struct metric {
	const char *fmt;  /* printf format for the value, 8 columns wide */
	const char *unit;
	double val;
};

static bool is_clock(struct pk_evsel *e)
{
	const struct perf_event_attr *a = pk_evsel_attr(e);

	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_TASK_CLOCK ||
		a->config == PERF_COUNT_SW_CPU_CLOCK);
}

static bool is_hw(struct pk_evsel *e, unsigned long long config)
{
	const struct perf_event_attr *a = pk_evsel_attr(e);

	return a->type == PERF_TYPE_HARDWARE && (a->config & 0xff) == config;
}

static double value_of(const struct pk_counts *c, bool repeated,
		       const struct ev_res *res)
{
	if (repeated)
		return res->runs.mean;
	return (double)pk_counts_scaled(c, NULL);
}

/* The value of the first counted event matching PRED in unit U, or NAN. */
static double find_value(struct stat_run *r, int u, bool (*pred)(struct pk_evsel *, unsigned long long),
			 unsigned long long arg)
{
	bool rep = r->cfg->repeat > 1;

	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i);
		struct ev_res *res = &r->res[i];

		if (res->status == EV_OK && res->cur[u].run && pred(e, arg))
			return value_of(&res->cur[u], rep, res);
	}
	return NAN;
}

static bool pred_clock(struct pk_evsel *e, unsigned long long arg)
{
	(void)arg;
	return is_clock(e);
}

static bool compute_metric(struct stat_run *r, struct pk_evsel *e, int u,
			   double v, double wall_ns, struct metric *m)
{
	double clock = find_value(r, u, pred_clock, 0), base;

	if (is_clock(e)) {
		*m = (struct metric){ "%8.3f", "CPUs utilized",
				      wall_ns > 0 ? v / wall_ns : 0 };
		return true;
	}
	if (is_hw(e, PERF_COUNT_HW_INSTRUCTIONS)) {
		base = find_value(r, u, is_hw, PERF_COUNT_HW_CPU_CYCLES);
		if (!isnan(base)) {
			*m = (struct metric){ "%7.2f ", "insn per cycle",
					      base ? v / base : 0 };
			return true;
		}
	}
	if (is_hw(e, PERF_COUNT_HW_BRANCH_MISSES)) {
		base = find_value(r, u, is_hw, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
		if (!isnan(base)) {
			*m = (struct metric){ "%7.2f%%", "of all branches",
					      base ? 100 * v / base : 0 };
			return true;
		}
	}
	if (is_hw(e, PERF_COUNT_HW_CACHE_MISSES)) {
		base = find_value(r, u, is_hw, PERF_COUNT_HW_CACHE_REFERENCES);
		if (!isnan(base)) {
			*m = (struct metric){ "%7.2f%%", "of all cache refs",
					      base ? 100 * v / base : 0 };
			return true;
		}
	}
	if (isnan(clock))
		return false;
	if (is_hw(e, PERF_COUNT_HW_CPU_CYCLES)) {
		*m = (struct metric){ "%8.3f", "GHz", clock ? v / clock : 0 };
		return true;
	}
	v = clock ? v * 1e9 / clock : 0;
	*m = (struct metric){ "%8.3f", "/sec", v };
	if (v >= 1e9)
		m->unit = "G/sec", m->val = v / 1e9;
	else if (v >= 1e6)
		m->unit = "M/sec", m->val = v / 1e6;
	else if (v >= 1e3)
		m->unit = "K/sec", m->val = v / 1e3;
	return true;
}

struct line {
	struct pk_evsel *e;
	struct ev_res *res;
	int unit;
	double ts_ns;          /* interval timestamp, or -1 */
	const char *status;    /* "<not counted>" etc., or NULL */
	double val;            /* in display units (msec for clocks) */
	const char *vunit;     /* "msec" or "" */
	struct pk_counts c;
	bool has_metric;
	struct metric m;
	double noise_pct;      /* -r only */
};

/* --per-core/die/socket/node: the unit's id and CPU count, as perf
 * prints them (padded for humans, bare in CSV). */
static void print_topo_id(struct stat_run *r, int u, bool csv)
{
	const struct pk_cpu_topo *t = &r->unit_topo[u];
	const char *s = csv ? r->cfg->sep : " ";
	int w = csv ? 0 : -8, wn = csv ? 0 : 4, ws = csv ? 0 : -5;
	FILE *o = r->out;

	switch (r->cfg->aggr) {
	case AGGR_CORE:
		fprintf(o, "S%d-D%d-C%*d%s", t->socket, t->die, w, t->core, s);
		break;
	case AGGR_DIE:
		fprintf(o, "S%d-D%*d%s", t->socket, w, t->die, s);
		break;
	case AGGR_SOCKET:
		fprintf(o, "S%*d%s", ws, t->socket, s);
		break;
	default:
		fprintf(o, "N%*d%s", ws, t->node, s);
		break;
	}
	fprintf(o, "%*d%s", wn, r->unit_cpus[u], s);
}

static void print_topo_json(struct stat_run *r, int u)
{
	const struct pk_cpu_topo *t = &r->unit_topo[u];
	FILE *o = r->out;

	switch (r->cfg->aggr) {
	case AGGR_CORE:
		fprintf(o, "\"core\" : \"S%d-D%d-C%d\"", t->socket, t->die,
			t->core);
		break;
	case AGGR_DIE:
		fprintf(o, "\"die\" : \"S%d-D%d\"", t->socket, t->die);
		break;
	case AGGR_SOCKET:
		fprintf(o, "\"socket\" : \"S%d\"", t->socket);
		break;
	default:
		fprintf(o, "\"node\" : \"N%d\"", t->node);
		break;
	}
	fprintf(o, ", \"aggregate-number\" : %d, ", r->unit_cpus[u]);
}

static void print_prefix_human(struct stat_run *r, const struct line *l)
{
	FILE *o = r->out;

	if (l->ts_ns >= 0)
		fprintf(o, "%6lu.%09lu ", (unsigned long)(l->ts_ns / 1e9),
			(unsigned long)fmod(l->ts_ns, 1e9));
	if (r->cfg->aggr == AGGR_CPU)
		fprintf(o, "CPU%-7d ", pk_cpu_map_cpu(r->cpus, l->unit));
	else if (r->cfg->aggr >= AGGR_CORE)
		print_topo_id(r, l->unit, false);
	else if (r->cfg->aggr == AGGR_THREAD) {
		const char *n = r->unit_names && r->unit_names[l->unit] ?
				r->unit_names[l->unit] : "?";
		const char *dash = strrchr(n, '-');
		int clen = dash ? (int)(dash - n) : (int)strlen(n);

		fprintf(o, "%16.*s-%-8s ", clen, n, dash ? dash + 1 : "");
	}
}

static void print_human(struct stat_run *r, const struct line *l)
{
	FILE *o = r->out;
	char mval[64];

	print_prefix_human(r, l);
	if (l->status)
		fprintf(o, "%18s", l->status);
	else
		fprintf(o, is_clock(l->e) ? "%18.2f" : "%18.0f", l->val);
	/* perf pads a name to 25 columns on status lines, 32 on counts */
	fprintf(o, " %-4s %-*s", l->vunit, l->status ? 25 : 32,
		pk_evsel_name(l->e));
	if (l->has_metric && !l->status) {
		snprintf(mval, sizeof(mval), l->m.fmt, l->m.val);
		fprintf(o, " # %8s %-23s", mval, l->m.unit);
	} else {
		fprintf(o, "%*s", 35, "");
	}
	if (r->cfg->repeat > 1 && l->noise_pct != 0 && !l->status)
		fprintf(o, "  ( +-%6.2f%% )", l->noise_pct);
	if (!l->status && l->c.run && l->c.run < l->c.ena)
		fprintf(o, "  (%.2f%%)", 100.0 * (double)l->c.run /
			(double)l->c.ena);
	fputc('\n', o);
}

static double pcnt(const struct pk_counts *c)
{
	return c->ena ? 100.0 * (double)c->run / (double)c->ena : 100.0;
}

static void print_csv(struct stat_run *r, const struct line *l)
{
	FILE *o = r->out;
	const char *s = r->cfg->sep;

	if (l->ts_ns >= 0)
		fprintf(o, "%6lu.%09lu%s", (unsigned long)(l->ts_ns / 1e9),
			(unsigned long)fmod(l->ts_ns, 1e9), s);
	if (l->ts_ns < 0 && r->summary && !r->cfg->no_csv_summary)
		fprintf(o, "%16s%s", "summary", s);
	if (r->cfg->aggr == AGGR_CPU)
		fprintf(o, "CPU%d%s", pk_cpu_map_cpu(r->cpus, l->unit), s);
	else if (r->cfg->aggr >= AGGR_CORE)
		print_topo_id(r, l->unit, true);
	else if (r->cfg->aggr == AGGR_THREAD)
		fprintf(o, "%s%s", r->unit_names && r->unit_names[l->unit] ?
			r->unit_names[l->unit] : "?", s);
	if (l->status)
		fprintf(o, "%s", l->status);
	else
		fprintf(o, is_clock(l->e) ? "%.2f" : "%.0f", l->val);
	fprintf(o, "%s%s%s%s", s, l->vunit, s, pk_evsel_name(l->e));
	if (r->cfg->repeat > 1)
		fprintf(o, "%s%.2f%%", s, l->noise_pct);
	fprintf(o, "%s%llu%s%.2f%s", s, (unsigned long long)l->c.run, s,
		pcnt(&l->c), s);
	if (l->has_metric && !l->status)
		fprintf(o, "%.3f%s%s", l->m.val, s, l->m.unit);
	else
		fprintf(o, "%s", s);
	fputc('\n', o);
}

static void json_str(FILE *o, const char *s)
{
	pk_json_str(o, s, strlen(s));
}

static void print_json(struct stat_run *r, const struct line *l)
{
	FILE *o = r->out;

	fputc('{', o);
	if (l->ts_ns >= 0)
		fprintf(o, "\"interval\" : %.9f, ", l->ts_ns / 1e9);
	if (r->cfg->aggr == AGGR_CPU)
		fprintf(o, "\"cpu\" : \"%d\", ", pk_cpu_map_cpu(r->cpus, l->unit));
	else if (r->cfg->aggr >= AGGR_CORE)
		print_topo_json(r, l->unit);
	else if (r->cfg->aggr == AGGR_THREAD) {
		fputs("\"thread\" : ", o);
		json_str(o, r->unit_names && r->unit_names[l->unit] ?
			 r->unit_names[l->unit] : "?");
		fputs(", ", o);
	}
	fputs("\"counter-value\" : ", o);
	if (l->status)
		fprintf(o, "\"%s\"", l->status);
	else
		fprintf(o, "\"%f\"", l->val);
	fprintf(o, ", \"unit\" : \"%s\", \"event\" : ", l->vunit);
	json_str(o, pk_evsel_name(l->e));
	if (r->cfg->repeat > 1)
		fprintf(o, ", \"variance\" : %.2f", l->noise_pct);
	fprintf(o, ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f, "
		"\"metric-value\" : %f, \"metric-unit\" : \"%s\"}\n",
		(unsigned long long)l->c.run, pcnt(&l->c),
		l->has_metric && !l->status ? l->m.val : 0.0,
		l->has_metric && !l->status ? l->m.unit : "(null)");
}

static void fill_line(struct stat_run *r, struct line *l, int i, int u,
		      double ts_ns)
{
	bool rep = r->cfg->repeat > 1 && ts_ns < 0;
	double wall = ts_ns >= 0 ? (double)r->cfg->interval_ms * 1e6 :
		      rep ? r->wall_runs.mean * 1e9 : r->wall_ns;
	double raw;

	memset(l, 0, sizeof(*l));
	l->e = pk_evlist_evsel(r->evlist, i);
	l->res = &r->res[i];
	l->unit = u;
	l->ts_ns = ts_ns;
	l->c = l->res->cur[u];
	l->vunit = is_clock(l->e) ? "msec" : stat_is_tool(l->e) ? "ns" : "";
	if (l->res->status == EV_UNSUPPORTED)
		l->status = "<not supported>";
	else if (l->res->status == EV_NOT_COUNTED || !l->c.run)
		l->status = "<not counted>";
	raw = value_of(&l->c, rep, l->res);
	l->val = is_clock(l->e) ? raw / 1e6 : raw;
	if (rep && l->res->runs.mean != 0)
		l->noise_pct = 100.0 * stats_stddev_mean(&l->res->runs) /
			       l->res->runs.mean;
	if (!l->status)
		l->has_metric = compute_metric(r, l->e, u, raw, wall, &l->m);
}

static void print_header(struct stat_run *r)
{
	const struct stat_cfg *c = r->cfg;
	FILE *o = r->out;

	fputs("\n Performance counter stats for ", o);
	if (c->system_wide) {
		fputs("'system wide'", o);
	} else if (c->cpu_list) {
		fprintf(o, "'CPU(s) %s'", c->cpu_list);
	} else if (c->pids) {
		fprintf(o, "process id '%s'", c->pids);
	} else if (c->tids) {
		fprintf(o, "thread id '%s'", c->tids);
	} else {
		fputc('\'', o);
		for (char **a = c->argv; *a; a++)
			fprintf(o, "%s%s", a == c->argv ? "" : " ", *a);
		fputc('\'', o);
	}
	if (c->repeat > 1)
		fprintf(o, " (%d runs)", c->repeat);
	fputs(":\n\n", o);
}

static int precision_for(double sd)
{
	int p;

	if (sd > 1)
		return 2;
	if (sd <= 0)
		return 9;
	p = (int)lround(ceil(-log10(sd))) + 2;
	return p > 9 ? 9 : p;
}

/* --table: each run's elapsed time against the mean, perf's bars. */
static void print_table(struct stat_run *r, int p, double avg)
{
	char tmp[64];
	int indent = 0;
	FILE *o = r->out;

	snprintf(tmp, sizeof(tmp), " %17.*f", p, avg);
	while (tmp[indent] == ' ')
		indent++;
	fprintf(o, "%*s# Table of individual measurements:\n", indent, "");
	for (int i = 0; i < r->cfg->repeat; i++) {
		double run = r->run_walls[i];
		int n = 1 + abs((int)(100.0 * (run - avg) / run) / 5);

		fprintf(o, " %17.*f (%+.*f) ", p, run, p, run - avg);
		for (int h = 0; h < n; h++)
			fputc('#', o);
		fputc('\n', o);
	}
	fprintf(o, "\n%*s# Final result:\n", indent, "");
}

static void print_footer(struct stat_run *r)
{
	const struct stat_cfg *c = r->cfg;
	FILE *o = r->out;

	if (!c->null_run)
		fputc('\n', o);
	if (c->repeat > 1) {
		double avg = r->wall_runs.mean;
		double sd = stats_stddev_mean(&r->wall_runs);
		int p = precision_for(sd);

		if (r->run_walls)
			print_table(r, p, avg);
		fprintf(o, " %17.*f +- %.*f seconds time elapsed", p, avg,
			p, sd);
		if (avg != 0 && sd != 0)
			fprintf(o, "  ( +-%6.2f%% )", 100.0 * sd / avg);
	} else {
		fprintf(o, " %17.9f seconds time elapsed", r->wall_ns / 1e9);
		if (r->have_rusage)
			fprintf(o, "\n\n %17.9f seconds user\n %17.9f seconds sys\n",
				r->utime, r->stime);
	}
	fputs("\n\n", o);
}

void stat_print_interval_header(struct stat_run *r)
{
	const char *unit_col = r->cfg->aggr == AGGR_CPU ? "CPU        " :
			       r->cfg->aggr == AGGR_THREAD ?
			       "            comm-pid      " : "";

	static const char *const cols[] = {
		[AGGR_CORE] = "core            cpus ",
		[AGGR_DIE] = "die          cpus ",
		[AGGR_SOCKET] = "socket cpus ",
		[AGGR_NODE] = "node   cpus ",
	};

	if (r->cfg->sep || r->cfg->json || !r->out)
		return;
	if (r->cfg->aggr >= AGGR_CORE)
		unit_col = cols[r->cfg->aggr];
	fprintf(r->out, "#           time %s            counts unit events\n",
		unit_col);
}

/* --metric-only: perf prints only metrics a user may want alone, none of
 * the /sec, CPUs utilized and ratio metrics, which are all this machine's
 * events have: a metric header line and a value line, both empty. */
static void print_metric_only(struct stat_run *r)
{
	fputs(r->cfg->json ? "{}\n\n" : "\n\n", r->out);
}

void stat_print(struct stat_run *r, double ts_ns)
{
	const struct stat_cfg *c = r->cfg;
	bool human = !c->sep && !c->json;
	struct line l;

	if (!r->out)
		return;
	if (human && ts_ns < 0)
		print_header(r);
	if (c->metric_only)
		print_metric_only(r);
	for (int i = 0; !c->metric_only && i < pk_evlist_nr(r->evlist); i++) {
		for (int u = 0; u < r->nr_units; u++) {
			fill_line(r, &l, i, u, ts_ns);
			if (c->json)
				print_json(r, &l);
			else if (c->sep)
				print_csv(r, &l);
			else
				print_human(r, &l);
		}
	}
	if (human && ts_ns < 0)
		print_footer(r);
	fflush(r->out);
}
