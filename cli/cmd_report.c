/* SPDX-License-Identifier: MIT */
/*
 * perfkit report: perf report --stdio's text of a perf.data file, or on a
 * terminal its browser (report_tui.c); the progress of reading on stderr
 * when that is a terminal.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/annotate.h>
#include <perfkit/perfdata.h>
#include <perfkit/report.h>
#include <perfkit/session.h>
#include "cli.h"
#include "report_tui.h"
#include "tui.h"

struct rep {
	const char *input;
	struct pk_report_new_opts o;
	struct pk_report_print_opts po;
	int children;           /* -1: as the file has callchains */
	int caller;             /* -1: caller with children */
	bool chain_none;
	bool chain_asked;       /* -g (not none) or -G given */
	bool header, header_only, stats;
	int tui;                /* 1 --tui, 0 --stdio, -1 on a terminal,
				   2 on a terminal that is one */
	uint64_t base, size, done; /* progress: the data's offset and size,
				      read so far */
	int pct;                /* the percentage shown, -1: none yet */
	struct pk_annotate *an; /* the browser's a */
	struct cli_stats st;
	struct pk_perfdata *pd;
	struct pk_report *r;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit report [--stdio] [-i FILE] [options]\n"
		"  -i, --input FILE        perf.data file (default perf.data)\n"
		"      --stdio             text output (the default when stdout is\n"
		"                          not a terminal)\n"
		"      --tui               the browser (the default on a terminal)\n"
		"      --children          add callees' periods to their callers (default\n"
		"                          with callchains); --no-children: self only\n"
		"  -g, --call-graph MODE[,THRESHOLD[,ORDER[,function[,percent]]]]\n"
		"                          MODE graph, fractal or none; ORDER caller|callee\n"
		"  -G, --inverted          callchains from the callers down\n"
		"  -s, --sort KEYS         comm,pid,dso,sym (default comm,dso,sym)\n"
		"  -n, --show-nr-samples   a Samples column\n"
		"      --show-total-period a Period column\n"
		"      --percent-limit PCT hide entries under PCT percent\n"
		"      --max-stack N       callchain frames to use (127)\n"
		"      --comm, --dso, --symbols, --pid, --tid LIST  only these\n"
		"      --percentage relative|absolute  of the filtered or of all\n"
		"      --header, --header-only  the file's header first, or only\n"
		"      --stats             the counts of the records only\n");
}

static const char *const refused[] = {
	"fields", "cpu", "time", "threads", "tasks", "mmaps", "gtk",
};

/* -g's argument as perf reads it: words for the mode, order, key and
 * value; the first number the threshold, the second the print limit. */
static int parse_chain(struct rep *c, const char *arg)
{
	static const struct { const char *w; int mode; } modes[] = {
		{ "graph", PK_REPORT_CHAIN_GRAPH },
		{ "fractal", PK_REPORT_CHAIN_FRACTAL },
		{ "flat", PK_REPORT_CHAIN_FLAT },
		{ "folded", PK_REPORT_CHAIN_FOLDED },
		{ "none", PK_REPORT_CHAIN_NONE },
	};
	char buf[256], *save = NULL, *t, *end;
	bool pct_set = false;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t m;

		for (m = 0; m < sizeof(modes) / sizeof(modes[0]) &&
			    strcmp(t, modes[m].w); m++)
			;
		if (m < sizeof(modes) / sizeof(modes[0])) {
			c->chain_none = modes[m].mode == PK_REPORT_CHAIN_NONE;
			if (!c->chain_none)
				c->po.chain = modes[m].mode;
		} else if (!strcmp(t, "caller") || !strcmp(t, "callee")) {
			c->caller = t[5] == 'r';
		} else if (!strcmp(t, "function") || !strcmp(t, "percent")) {
			;
		} else if (!pct_set && (c->po.chain_percent = strtod(t, &end),
					end != t && !*end)) {
			pct_set = true;
		} else if (pct_set && (c->po.print_limit =
				       (unsigned)strtoul(t, &end, 0),
				       end != t && !*end)) {
			;
		} else {
			cli_error("report", "-g %s: '%s' is not supported yet",
				  arg, t);
			return -EINVAL;
		}
	}
	return 0;
}

static int sample(void *ctx, struct pk_session *s,
		  const struct pk_session_sample *sm)
{
	struct rep *c = ctx;

	(void)s;
	if (c->an && pk_annotate_add(c->an, sm))
		return -ENOMEM;
	return pk_report_add(c->r, sm);
}

/* The share of the file read, on stderr, when it changes. */
static void progress(struct rep *c, uint64_t offset)
{
	int pct;

	if (offset <= c->base + c->done)
		return;
	c->done = offset - c->base;
	pct = (int)(c->done * 100 / c->size);
	if (pct != c->pct) {
		c->pct = pct;
		fprintf(stderr, "\rperfkit report: reading %s: %3d%%", c->input,
			pct > 100 ? 100 : pct);
	}
}

static int record(void *ctx, struct pk_session *s, const struct pk_record *rec)
{
	struct rep *c = ctx;

	(void)s;
	if (c->size)
		progress(c, rec->offset + rec->size);
	return pk_report_record(c->r, rec);
}

static int count(void *ctx, struct pk_session *s, const struct pk_record *rec)
{
	struct rep *c = ctx;

	(void)s;
	return cli_stats_count(&c->st, c->pd, rec);
}

/* --stats: perf's counts of the records, no report. */
static int stats(struct rep *c, struct pk_perfdata *pd)
{
	PK_OPTS(pk_tool, tool, .record = count);
	PK_OPTS(pk_session_opts, so, .kallsyms = "");
	struct pk_session *s = pk_session_new(&so);
	int err;

	if (!s)
		return -ENOMEM;
	if (pk_perfdata_has_feat(pd, PK_HEADER_AUXTRACE)) {
		/* perf counts the samples it synthesizes from the trace */
		cli_error("report", "%s: AUX area traces are not supported yet",
			  c->input);
		pk_session_free(s);
		return -EINVAL;
	}
	c->pd = pd;
	c->st.report = true;
	err = pk_session_run(s, pd, &tool, c);
	if (err)
		cli_error("report", "%s (%s)", err == -ENOMEM ? c->input :
			  pk_perfdata_errmsg(pd), pk_strerror(err));
	else
		cli_stats_print(&c->st, pd);
	cli_stats_fini(&c->st);
	pk_session_free(s);
	return err;
}

static bool any_sample_type(struct pk_perfdata *pd, uint64_t bits)
{
	for (unsigned a = 0; a < pk_perfdata_nr_attrs(pd); a++)
		if (pk_perfdata_attr(pd, a)->sample_type & bits)
			return true;
	return false;
}

/* What perf reports another way (groups side by side, branch mode,
 * synthesized AUX samples): a one-line refusal, or NULL. */
static const char *unsupported(struct pk_perfdata *pd)
{
	if (pk_perfdata_has_feat(pd, PK_HEADER_GROUP_DESC))
		return "event groups are not supported yet";
	if (any_sample_type(pd, PERF_SAMPLE_BRANCH_STACK))
		return "branch stacks (perf's branch mode) are not supported yet";
	if (pk_perfdata_has_feat(pd, PK_HEADER_AUXTRACE))
		return "AUX area traces are not supported yet";
	return NULL;
}

/* What comes before the report: the file's header or the hint. */
static void head(const struct rep *c, struct pk_perfdata *pd)
{
	if (c->header)
		cli_perfdata_header(pd, c->input);
	else
		printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
}

/* Why the browser cannot show what perf's would, or NULL. */
static const char *no_browser(const struct rep *c)
{
	if (c->po.chain == PK_REPORT_CHAIN_FLAT ||
	    c->po.chain == PK_REPORT_CHAIN_FOLDED)
		return "-g flat and folded";
	if (c->header)
		return "--header";
	return NULL;
}

/* Whether more than one event has samples. */
static bool several(const struct rep *c, struct pk_perfdata *pd)
{
	unsigned n = 0;

	for (unsigned a = 0; a < pk_perfdata_nr_attrs(pd); a++)
		n += pk_report_nr_samples(c->r, a) > 0;
	return n > 1;
}

/* Progress on stderr when it is a terminal and the input a file. */
static void progress_start(struct rep *c, struct pk_perfdata *pd)
{
	struct pk_perfdata_info in;

	c->pct = -1;
	pk_perfdata_info(pd, &in);
	if (isatty(STDERR_FILENO) && !in.pipe && in.data_size) {
		c->base = in.data_offset;
		c->size = in.data_size;
	}
}

static void progress_end(struct rep *c)
{
	if (c->pct >= 0)
		fputs("\r\033[K", stderr);
	c->size = 0;
}

/* The report on the terminal: its first event with samples. */
static int browse(struct rep *c, struct pk_perfdata *pd)
{
	unsigned a = 0, n = pk_perfdata_nr_attrs(pd);
	const char *name;
	int err;

	while (a + 1 < n && !pk_report_nr_samples(c->r, a))
		a++;
	name = pk_perfdata_attr_name(pd, a);
	err = report_browse(c->r, a, name ? name : "", &c->po, c->an,
			    c->o.sort);
	if (err)
		cli_error("report", "%s: the browser: %s", c->input,
			  strerror(-err));
	return err;
}

static int run(struct rep *c, struct pk_perfdata *pd)
{
	PK_OPTS(pk_tool, tool, .sample = sample, .record = record);
	struct pk_session *s = pk_session_new(NULL);
	bool cc = any_sample_type(pd, PERF_SAMPLE_CALLCHAIN);
	const char *why = unsupported(pd);
	int err;

	if (!s)
		return -ENOMEM;
	if (why) {
		cli_error("report", "%s: %s", c->input, why);
		pk_session_free(s);
		return -EINVAL;
	}
	c->o.children = c->children < 0 ? cc : c->children && cc;
	c->o.callchain = cc && !c->chain_none;
	c->o.caller = c->caller < 0 ? c->o.children : c->caller;
	if (c->chain_asked && !c->chain_none && !cc) {
		/* perf: its first lines, then the complaint */
		head(c, pd);
		cli_error("report", "%s: -g or -G given, but the samples have no callchains (record with -g)",
			  c->input);
		pk_session_free(s);
		return -EINVAL;
	}
	if (!c->o.callchain)
		c->po.chain = PK_REPORT_CHAIN_NONE;
	if (c->o.children && (c->o.comms || c->o.dsos || c->o.syms ||
			      c->o.pids || c->o.tids)) {
		cli_error("report", "--comm, --dso, --symbols, --pid and --tid are not supported yet with --children (use --no-children)");
		pk_session_free(s);
		return -EINVAL;
	}
	if (c->tui && (why = no_browser(c))) {
		if (c->tui > 0) {
			cli_error("report", "--tui: %s in the browser are not supported yet (use --stdio)",
				  why);
			pk_session_free(s);
			return -EINVAL;
		}
		c->tui = 0;
	}
	if (c->tui < 0)
		c->tui = tui_available() ? 2 : 0;
	if (c->tui && !(c->an = pk_annotate_new(s))) {
		pk_session_free(s);
		return -ENOMEM;
	}
	c->r = pk_report_new(s, pd, &c->o);
	if (!c->r) {
		pk_annotate_free(c->an);
		pk_session_free(s);
		cli_error("report", "--sort %s: unknown or unsupported key",
			  c->o.sort);
		return -EINVAL;
	}
	progress_start(c, pd);
	err = pk_session_run(s, pd, &tool, c);
	progress_end(c);
	if (err)
		cli_error("report", "%s (%s)", err == -ENOMEM ? c->input :
			  pk_perfdata_errmsg(pd), pk_strerror(err));
	if (!err && c->tui && several(c, pd)) {
		if (c->tui == 1) {	/* perf: a menu of the events first */
			cli_error("report", "--tui: several events with samples in the browser are not supported yet (use --stdio)");
			err = -EINVAL;
		}
		c->tui = 0;
	}
	if (!err && c->tui) {
		err = browse(c, pd);
	} else if (!err) {
		head(c, pd);
		err = pk_report_print(c->r, stdout, &c->po);
	}
	pk_report_free(c->r);
	pk_annotate_free(c->an);
	pk_session_free(s);
	return err;
}

static int option(struct rep *c, int ch, const char *arg, int li,
		  const struct option *lo)
{
	switch (ch) {
	case 'i': c->input = arg; return 0;
	case 303: c->tui = 0; return 0;
	case 316: c->tui = 1; return 0;
	case 300: c->children = 1; return 0;
	case 301: c->children = 0; return 0;
	case 'g': c->chain_asked = true; return parse_chain(c, arg);
	case 'G': c->chain_asked = true; c->caller = 1; return 0;
	case 's': c->o.sort = arg; return 0;
	case 'n': c->po.show_nr_samples = true; return 0;
	case 304: c->po.show_period = true; return 0;
	case 305:
		c->po.percent_limit = strtod(arg, NULL);
		c->po.chain_percent = c->po.percent_limit;
		return 0;
	case 306: c->o.max_stack = (unsigned)strtoul(arg, NULL, 0); return 0;
	case 307: c->o.comms = arg; return 0;
	case 308: c->o.dsos = arg; return 0;
	case 309: c->o.syms = arg; return 0;
	case 310: c->o.pids = arg; return 0;
	case 311: c->o.tids = arg; return 0;
	case 312:
		if (strcmp(arg, "relative") && strcmp(arg, "absolute")) {
			cli_error("report", "--percentage %s: relative or absolute",
				  arg);
			return -EINVAL;
		}
		c->po.relative = arg[0] == 'r';
		return 0;
	case 313: c->header = true; return 0;
	case 314: c->header_only = true; return 0;
	case 315: c->stats = true; return 0;
	case 302:
		cli_error("report", "--%s is not supported yet", lo[li].name);
		return -EINVAL;
	case 'h': usage(stdout); exit(0);
	default: usage(stderr); return -EINVAL;
	}
}

int cmd_report(int argc, char **argv)
{
	static struct option longopts[64] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stdio", no_argument, NULL, 303 },
		{ "tui", no_argument, NULL, 316 },
		{ "children", no_argument, NULL, 300 },
		{ "no-children", no_argument, NULL, 301 },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "inverted", no_argument, NULL, 'G' },
		{ "sort", required_argument, NULL, 's' },
		{ "show-nr-samples", no_argument, NULL, 'n' },
		{ "show-total-period", no_argument, NULL, 304 },
		{ "percent-limit", required_argument, NULL, 305 },
		{ "max-stack", required_argument, NULL, 306 },
		{ "comm", required_argument, NULL, 307 },
		{ "dso", required_argument, NULL, 308 },
		{ "symbols", required_argument, NULL, 309 },
		{ "pid", required_argument, NULL, 310 },
		{ "tid", required_argument, NULL, 311 },
		{ "percentage", required_argument, NULL, 312 },
		{ "header", no_argument, NULL, 313 },
		{ "header-only", no_argument, NULL, 314 },
		{ "stats", no_argument, NULL, 315 },
		{ "help", no_argument, NULL, 'h' },
	};
	struct rep c = { .input = "perf.data", .children = -1, .caller = -1,
			 .tui = -1 };
	struct pk_perfdata *pd;
	int ch, li = 0, ret, n = 0;

	while (longopts[n].name)
		n++;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		longopts[n++] = (struct option){ refused[i], optional_argument,
						 NULL, 302 };
	c.o.sz = sizeof(c.o);
	c.po.sz = sizeof(c.po);
	c.po.chain = PK_REPORT_CHAIN_GRAPH;
	c.po.chain_percent = 0.5;
	c.po.tip = "Tip: perfkit report --no-children shows each function's own time";
	optind = 1;
	while ((ch = cli_getopt(argc, argv, "+i:g:Gs:nhF:TC:d:", longopts,
				&li)) != -1) {
		if (ch < 256 && ch && strchr("FTCd", ch)) {
			cli_error("report", "-%c is not supported yet", ch);
			return 2;
		}
		if (option(&c, ch, optarg, li, longopts))
			return 2;
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if ((ret = cli_perfdata_check(c.input, false)))
		return ret;
	pd = pk_perfdata_open(c.input, NULL);
	if (!pd) {
		cli_error("report", "%s: %s", c.input, errno == EPROTO ?
			  pk_perfdata_open_error() : strerror(errno));
		return 1;
	}
	if (c.header || c.header_only || c.stats) {
		struct pk_perfdata_info in;

		pk_perfdata_info(pd, &in);
		if (in.pipe) {
			/* perf shows the features the stream brings */
			/* perf names events from what the stream brings */
			cli_error("report", "%s: --header and --stats of pipe-mode data are not supported yet",
				  c.input);
			pk_perfdata_free(pd);
			return 1;
		}
	}
	if (c.header_only)
		cli_perfdata_header(pd, c.input);
	ret = c.header_only ? 0 : c.stats ? stats(&c, pd) : run(&c, pd);
	pk_perfdata_free(pd);
	return ret ? 1 : 0;
}
