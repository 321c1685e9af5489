/* SPDX-License-Identifier: MIT */
/*
 * perfkit diff: perf diff --stdio's comparison of perf.data files (the
 * first the baseline), each read into a report (lib/report) and paired
 * there by pk_report_diff_print().
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/perfdata.h>
#include <perfkit/report.h>
#include <perfkit/session.h>
#include "cli.h"

struct dfile {
	const char *path;
	struct pk_perfdata *pd;
	struct pk_session *s;
	struct pk_report *r;
	const char *cpu_list;     /* --cpu, checked against each file */
	uint64_t cpus[1024 / 64];
	unsigned idx;             /* the file's place in the list */
	struct cli_time_ranges tr; /* --time, this file's */
};

struct dopts {
	struct pk_report_new_opts o;
	struct pk_report_diff_opts po;
	const char *cpu_list;
	const char *time_str;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit diff [options] [OLD [NEW...]]\n"
		"  (default perf.data.old against perf.data; one file: perf.data.old\n"
		"  against it)\n"
		"  -c, --compute delta|delta-abs|ratio|wdiff:W1,W2  (default delta-abs)\n"
		"  -o, --order N           sort by file N's column first (default 1)\n"
		"  -p, --period            the periods beside\n"
		"  -F, --formula           each entry's formula\n"
		"  -b, --baseline-only     only entries of the baseline that pair\n"
		"  -s, --sort KEYS         comm,pid,dso,sym (default dso,sym)\n"
		"  -d, --dsos, -S, --symbols, -C, --comms, --pid, --tid LIST  only these\n"
		"      --cpu LIST          only samples of these CPUs\n"
		"      --time RANGES       only samples in these time ranges: percentages of\n"
		"                          each file's span (10%%/2, 0%%-10%%), or S,E seconds\n"
		"                          for all files, or per file separated by ':'\n"
		"      --percentage relative|absolute  of the filtered or of all\n"
		"  -q, --quiet             the entries only\n"
		"      --stdio             text output (the only one)\n");
}

static const char *const refused[] = {
	"field-separator", "stream", "percent-limit",
	"cycles-hist", "kallsyms", "symfs", "modules", "dump-raw-trace",
	"force", "verbose",
};

/* -c's argument: perf's names, wdiff with its two weights. */
static int parse_compute(struct dopts *c, const char *arg)
{
	static const struct { const char *w; int c; } names[] = {
		{ "delta", PK_REPORT_DELTA }, { "delta-abs", PK_REPORT_DELTA_ABS },
		{ "ratio", PK_REPORT_RATIO }, { "wdiff", PK_REPORT_WDIFF },
	};
	size_t len = strcspn(arg, ":");

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].w) != len || strncmp(arg, names[i].w, len))
			continue;
		c->po.compute = names[i].c;
		if (names[i].c != PK_REPORT_WDIFF && !arg[len])
			return 0;
		if (names[i].c != PK_REPORT_WDIFF)
			break;
		char *end;
		const char *w = arg + len + (arg[len] == ':');

		c->po.w1 = strtoll(w, &end, 10);
		if (*end == ',' && end[1])
			c->po.w2 = strtoll(end + 1, NULL, 10);
		if (arg[len] && c->po.w1 && c->po.w2)
			return 0;
		cli_error("diff", "-c %s: wrong weights, use 'wdiff:W1,W2' (not 0)",
			  arg);
		return -EINVAL;
	}
	cli_error("diff", "-c %s: not a computation (delta, delta-abs, ratio or wdiff:W1,W2)",
		  arg);
	return -EINVAL;
}

static int sample(void *ctx, struct pk_session *s,
		  const struct pk_session_sample *sm)
{
	struct dfile *d = ctx;

	(void)s;
	/* perf: samples of other CPUs count nowhere */
	if (d->cpu_list && !cli_cpu_in(d->cpus, sm->sample->cpu))
		return 0;
	if (d->tr.n && cli_time_ranges_skip(&d->tr, sm->sample->time))
		return 0;
	return pk_report_add(d->r, sm);
}

static int record(void *ctx, struct pk_session *s, const struct pk_record *rec)
{
	struct dfile *d = ctx;

	(void)s;
	return pk_report_record(d->r, rec);
}

/* perf diff's --time for file D: seconds "S,E" for all files, or per
 * file separated by ':' (the D->idx-th), percentages of the file's own
 * span. 0, or 1 with the message given. */
static int time_ranges(struct dfile *d, const char *arg)
{
	uint64_t first = 0, last = 0;
	const char *p = arg;
	char part[512];
	size_t n;

	if (strchr(arg, ':') && !strchr(arg, '%'))
		for (unsigned i = 0; i < d->idx && p; i++)
			if ((p = strchr(p, ':')))
				p++;
	n = p ? strcspn(p, strchr(arg, '%') ? "" : ":") : 0;
	if (!p || !n || n >= sizeof(part)) {
		cli_error("diff", "--time %s: no time range for %s (one per file, separated by ':')",
			  arg, d->path);
		return 1;
	}
	memcpy(part, p, n);
	part[n] = 0;
	if (strchr(part, '%') &&
	    (pk_perfdata_feat_u64(d->pd, PK_HEADER_SAMPLE_TIME, 0, &first) ||
	     pk_perfdata_feat_u64(d->pd, PK_HEADER_SAMPLE_TIME, 1, &last))) {
		cli_error("diff", "%s: --time %s: percentages need the file's sample times",
			  d->path, arg);
		return 1;
	}
	if (cli_time_ranges_parse(&d->tr, part, first, last)) {
		cli_error("diff", "--time %s: not a time range", arg);
		return 1;
	}
	return 0;
}

/* Opens and reads D->path into a report. 0, or 1 with the message given. */
static int load(struct dfile *d, const struct dopts *c)
{
	PK_OPTS(pk_tool, tool, .sample = sample, .record = record);
	int err;

	if (cli_perfdata_check(d->path, false))
		return 1;
	d->pd = pk_perfdata_open(d->path, NULL);
	if (!d->pd) {
		cli_error("diff", "%s: %s", d->path, errno == EPROTO ?
			  pk_perfdata_open_error() : strerror(errno));
		return 1;
	}
	if (pk_perfdata_has_feat(d->pd, PK_HEADER_GROUP_DESC) ||
	    pk_perfdata_has_feat(d->pd, PK_HEADER_AUXTRACE) ||
	    pk_perfdata_has_feat(d->pd, PK_HEADER_BRANCH_STACK)) {
		cli_error("diff", "%s: event groups, branch stacks and AUX area traces are not supported yet",
			  d->path);
		return 1;
	}
	d->cpu_list = c->cpu_list;
	if (c->cpu_list && cli_cpu_mask("diff", c->cpu_list, d->path, d->pd,
					d->cpus))
		return 1;
	if (c->time_str && time_ranges(d, c->time_str))
		return 1;
	d->s = pk_session_new(NULL);
	if (!d->s) {
		cli_error("diff", "%s", strerror(ENOMEM));
		return 1;
	}
	d->r = pk_report_new(d->s, d->pd, &c->o);
	if (!d->r) {
		cli_error("diff", "--sort %s: unknown or unsupported key (or an empty filter list)",
			  c->o.sort);
		return 1;
	}
	err = pk_session_run(d->s, d->pd, &tool, d);
	if (err) {
		cli_error("diff", "%s: %s (%s)", d->path, pk_perfdata_errmsg(d->pd),
			  pk_strerror(err));
		return 1;
	}
	return 0;
}

static void unload(struct dfile *d)
{
	pk_report_free(d->r);
	pk_session_free(d->s);
	pk_perfdata_free(d->pd);
}

static int option(struct dopts *c, int ch, const char *arg, int li,
		  const struct option *lo)
{
	char *end;

	switch (ch) {
	case 'c': return parse_compute(c, arg);
	case 'o':
		c->po.order = (unsigned)strtoul(arg, &end, 0);
		if (*end || !*arg) {
			cli_error("diff", "-o %s: a file number", arg);
			return -EINVAL;
		}
		return 0;
	case 'p': c->po.period = true; return 0;
	case 'F': c->po.formula = true; return 0;
	case 'b': c->po.baseline_only = true; return 0;
	case 'q': c->po.quiet = true; return 0;
	case 's':
		if (!cli_basic_sort_keys(arg)) {
			cli_error("diff", "--sort %s: only comm, pid, dso and sym are supported yet",
				  arg);
			return -1;
		}
		c->o.sort = arg;
		return 0;
	case 'd': c->o.dsos = arg; return 0;
	case 'S': c->o.syms = arg; return 0;
	case 'C': c->o.comms = arg; return 0;
	case 303: c->o.pids = arg; return 0;
	case 304: c->o.tids = arg; return 0;
	case 305: c->cpu_list = arg; return 0;
	case 306: c->time_str = arg; return 0;
	case 300: return 0;
	case 301:
		if (strcmp(arg, "relative") && strcmp(arg, "absolute")) {
			cli_error("diff", "--percentage %s: relative or absolute",
				  arg);
			return -EINVAL;
		}
		c->po.relative = arg[0] == 'r';
		return 0;
	case 302:
		cli_error("diff", "--%s is not supported yet", lo[li].name);
		return -EINVAL;
	case 'h': usage(stdout); exit(0);
	default: usage(stderr); return -EINVAL;
	}
}

static int run(struct dfile *df, unsigned n, struct dopts *c)
{
	struct pk_report *r[n];
	const char *names[n];
	int err;

	for (unsigned i = 0; i < n; i++) {
		if (load(&df[i], c))
			return 1;
		r[i] = df[i].r;
		names[i] = df[i].path;
	}
	c->po.names = names;
	err = pk_report_diff_print(r, n, stdout, &c->po);
	if (err == -ENOTSUP)
		cli_error("diff", "not supported yet: kernel modules among the entries, or (--sort %s) unresolved addresses of several DSOs in one entry",
			  c->o.sort);
	else if (err)
		cli_error("diff", "%s", pk_strerror(err));
	return err ? 1 : 0;
}

int cmd_diff(int argc, char **argv)
{
	static struct option longopts[64] = {
		{ "compute", required_argument, NULL, 'c' },
		{ "order", required_argument, NULL, 'o' },
		{ "period", no_argument, NULL, 'p' },
		{ "formula", no_argument, NULL, 'F' },
		{ "baseline-only", no_argument, NULL, 'b' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "sort", required_argument, NULL, 's' },
		{ "dsos", required_argument, NULL, 'd' },
		{ "symbols", required_argument, NULL, 'S' },
		{ "comms", required_argument, NULL, 'C' },
		{ "stdio", no_argument, NULL, 300 },
		{ "percentage", required_argument, NULL, 301 },
		{ "pid", required_argument, NULL, 303 },
		{ "tid", required_argument, NULL, 304 },
		{ "cpu", required_argument, NULL, 305 },
		{ "time", required_argument, NULL, 306 },
		{ "help", no_argument, NULL, 'h' },
	};
	static const char *defaults[] = { "perf.data.old", "perf.data" };
	struct dopts c = { .o = { .sz = sizeof(c.o), .sort = "dso,sym" },
			   .po = { .sz = sizeof(c.po), .order = 1 } };
	struct dfile *df;
	int ch, li = 0, ret, n = 0;
	unsigned nf;

	while (longopts[n].name)
		n++;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		longopts[n++] = (struct option){ refused[i], optional_argument,
						 NULL, 302 };
	optind = 1;
	while ((ch = cli_getopt(argc, argv, "c:o:pFbqs:d:S:C:htvDfm", longopts,
				&li)) != -1) {
		if (ch < 256 && ch && strchr("tvDfm", ch)) {
			cli_error("diff", "-%c is not supported yet", ch);
			return 2;
		}
		if (option(&c, ch, optarg, li, longopts))
			return 2;
	}
	nf = argc - optind < 2 ? 2 : (unsigned)(argc - optind);
	if (c.po.order >= nf) {
		cli_error("diff", "-o %u: out of range (%u files)", c.po.order,
			  nf);
		return 2;
	}
	df = calloc(nf, sizeof(*df));
	if (!df)
		return 1;
	for (unsigned i = 0; i < nf; i++)
		df[i].idx = i;
	for (unsigned i = 0; i < nf; i++)
		df[i].path = argc - optind >= 2 ? argv[optind + i] :
			     i == 1 && argc - optind == 1 ? argv[optind] :
			     defaults[i];
	ret = run(df, nf, &c);
	for (unsigned i = 0; i < nf; i++)
		unload(&df[i]);
	free(df);
	return ret;
}
