/* SPDX-License-Identifier: MIT */
/*
 * perfkit report: perf report --stdio's text of a perf.data file, or on a
 * terminal its browser (report_tui.c); the progress of reading on stderr
 * when that is a terminal.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/annotate.h>
#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include <perfkit/report.h>
#include <perfkit/session.h>
#include "cli.h"
#include "report_tasks.h"
#include "report_export.h"
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
	bool header, header_only, stats, dump, tasks, mmaps;
	bool force;             /* -f: files other users own too */
	bool show_info;         /* -I: the header's topology in full */
	int tui;                /* 1 --tui, 0 --stdio, -1 on a terminal,
				   2 on a terminal that is one */
	uint64_t base, size, done; /* progress: the data's offset and size,
				      read so far */
	int pct;                /* the percentage shown, -1: none yet */
	struct pk_annotate *an; /* the browser's a */
	char sortbuf[512];      /* -s with the parent key -p adds */
	const char *cpu_list, *time_str;
	uint64_t cpus[1024 / 64]; /* --cpu's bitmap */
	struct cli_time_ranges tr;
	bool threads;           /* -T */
	int branch;             /* -b 1, --no-branch-stack 0, -1: as the
				   file's header says */
	uint64_t kept;          /* samples --cpu and --time let through */
	uint64_t reads;         /* PERF_RECORD_READ records (-T's rows) */
	struct cli_stats st;
	struct pk_perfdata *pd;
	struct pk_report *r;
	struct export_opts x;   /* --format */
	/* the instruction trace: --itrace (set: letters given),
	 * --no-itrace, and its decoder */
	struct pk_itrace_opts itrace;
	bool itrace_given, no_itrace;
	struct pk_itrace *it;
	struct pk_session *sess;
	const char *guest_kallsyms; /* --guestkallsyms */
	bool guest_code;            /* --guest-code */
	char gcomm[32];             /* a guest code thread's name */
	/* --switch-on, --switch-off: events (attr indexes, -1: none) that
	 * start and stop the samples taken; discarding until the first */
	const char *on_name, *off_name;
	int on_attr, off_attr;
	bool discarding, show_onoff;
	bool quiet;             /* -q: no comment lines */
	bool raw_trace;         /* --raw-trace: the trace key's raw fields */
	bool prefix, prefix_strip;
	bool total_cycles;      /* --total-cycles: perf's block view */
	const char *kallsyms;   /* --kallsyms: the kernel's symbols */
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
		"  -s, --sort KEYS         comm,pid,dso,sym,cpu,socket,period,weight,\n"
		"                          local_weight,srcfile,srcline,trace,parent\n"
		"                          (default comm,dso,sym)\n"
		"  -F, --fields FIELDS     output fields: overhead, overhead_sys, overhead_us,\n"
		"                          overhead_children, sample, period, sort keys\n"
		"      --group, --no-group event groups in one table (the default), or apart\n"
		"  -C, --cpu LIST          only samples of these CPUs\n"
		"      --time RANGES       only samples in these times (S,E ...; 10%%/2; 0%%-10%%,...)\n"
		"  -b, --branch-stack      an entry per branch of the samples' branch stacks\n"
		"                          (the default when the file's header lists them;\n"
		"                          --no-branch-stack: per sample)\n"
		"      --mem-mode          memory accesses: each sample weighs its weight;\n"
		"                          keys mem, snoop, tlb, locked, blocked,\n"
		"                          symbol_daddr, dso_daddr, local_ins_lat\n"
		"  -T, --threads           the per-thread counts table after the report\n"
		"  -p, --parent REGEX      the parent key's functions (adds the key)\n"
		"  -n, --show-nr-samples   a Samples column\n"
		"      --show-total-period a Period column\n"
		"      --percent-limit PCT hide entries under PCT percent\n"
		"      --max-stack N       callchain frames to use (127)\n"
		"  -c, --comm(s), -d, --dso(s), -S, --symbols, --pid, --tid LIST\n"
		"                          only these\n"
		"      --symbol-filter TEXT  of the first event, only the symbols\n"
		"                          holding TEXT\n"
		"      --socket-filter N   only the entries of processor socket N\n"
		"  -U, --hide-unresolved   drop the samples (and frames) of no symbol\n"
		"  -x, --exclude-other     only the entries with a parent (-p)\n"
		"      --switch-on EVENT, --switch-off EVENT  only the samples after\n"
		"                          EVENT's first, or before (--show-on-off-events:\n"
		"                          EVENT's own samples too)\n"
		"  -q, --quiet             the entries alone, no comment lines\n"
		"  -t, --field-separator SEP  columns separated by SEP\n"
		"      --show-cpu-utilization  sys and usr columns\n"
		"      --group-sort-idx N  a group's rows by member N's values\n"
		"      --kallsyms FILE     kernel symbols from FILE\n"
		"      perf's --percent-type, --ns, --pretty, --samples, --time-quantum,\n"
		"      --total-cycles, --raw-trace (without the trace key), --skip-empty,\n"
		"      --show-ref-call-graph, -f, --disable-order, --[no-]demangle,\n"
		"      --demangle-kernel, --[no-]inline, --full-source-path, --prefix,\n"
		"      --prefix-strip, --symfs /, -m, --ignore-vmlinux, --stitch-lbr,\n"
		"      --objdump, --asm-raw, -M, --[no-]source, --stdio-color never|auto\n"
		"                          are accepted: they leave --stdio's report as it is\n"
		"      --percentage relative|absolute  of the filtered or of all\n"
		"      --header, --header-only  the file's header first, or only\n"
		"  -I, --show-info         the header's topology (CPUs, NUMA nodes, caches,\n"
		"                          memory) in full\n"
		"      --stats             the counts of the records only\n"
		"  -D, --dump-raw-trace    every record, raw and decoded (as script -D)\n"
		"      --tasks, --mmaps    the threads' tree (and their mappings)\n"
		"      --format=FORMAT     folded (collapsed stacks, as FlameGraph's\n"
		"                          stackcollapse-perf.pl makes of perf script)\n"
		"                          or flamegraph (an interactive SVG; with -G an\n"
		"                          icicle graph, with -s pid a root per thread)\n"
		"                          or pprof (gzipped profile.proto for go tool\n"
		"                          pprof and the profilers that read it),\n"
		"                          speedscope (its JSON: a profile per thread) or\n"
		"                          perfetto (Chrome trace-event JSON: a track per\n"
		"                          thread, each sample an instant with its stack)\n"
		"  -o, --output FILE       --format's output (default standard output)\n"
		"      --base FILE         --format=flamegraph: coloured by the change\n"
		"                          from FILE's profile (red grew, blue shrank)\n"
		"      --guestkallsyms FILE  the (default) guest's kallsyms: guest\n"
		"                          kernel samples resolve there, the code from\n"
		"                          the kcore beside it (perf kvm --guest --host\n"
		"                          --guestkallsyms FILE report)\n"
		"      --guest-code        a VM's code is its process's, at the same\n"
		"                          addresses (perf kvm --guest-code --guest\n"
		"                          --host report)\n");
}

static const char *const refused[] = {
	"gtk", "hierarchy", "ignore-callees", "column-widths", "verbose",
	"branch-history",
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

/* perf's --switch-on and --switch-off (its evswitch): whether a sample
 * of event ATTR is left out. */
static bool switched_off(struct rep *c, int attr)
{
	if (c->on_attr >= 0 && c->discarding) {
		if (attr != c->on_attr)
			return true;
		c->discarding = false;
		return !c->show_onoff;
	}
	if (c->off_attr >= 0 && !c->discarding && attr == c->off_attr) {
		c->discarding = true;
		return !c->show_onoff;
	}
	return false;
}

static int sample(void *ctx, struct pk_session *s,
		  const struct pk_session_sample *sm)
{
	struct rep *c = ctx;
	const struct pk_sample *p = sm->sample;

	(void)s;
	/* perf: samples out of --cpu and --time count nowhere */
	if (c->tr.n && p->time && cli_time_ranges_skip(&c->tr, p->time))
		return 0;	/* (perf keeps a sample without a time) */
	if (switched_off(c, sm->attr))
		return 0;
	if (c->cpu_list && !cli_cpu_in(c->cpus, p->cpu))
		return 0;
	c->kept++;
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

/* A recorded sample: with G or L its chain and branches from the
 * decoded trace (perf's intel_pt_process_event), then as any. */
static int recorded(void *ctx, struct pk_session *s,
		    const struct pk_session_sample *ss)
{
	struct rep *c = ctx;
	struct pk_session_sample late = *ss;
	struct pk_sample sm;

	if (c->it && cli_itrace_late(c->it, &c->itrace, ss->sample, &sm))
		late.sample = &sm;
	return sample(ctx, s, &late);
}

static int record(void *ctx, struct pk_session *s, const struct pk_record *rec)
{
	struct rep *c = ctx;
	int err;

	(void)s;
	if (c->size)
		progress(c, rec->offset + rec->size);
	c->reads += rec->type == PERF_RECORD_READ;
	if (c->it && (err = pk_itrace_record(c->it, rec)))
		return err;
	return pk_report_record(c->r, rec);
}

static int count(void *ctx, struct pk_session *s, const struct pk_record *rec)
{
	struct rep *c = ctx;

	(void)s;
	return cli_stats_count(&c->st, c->pd, rec);
}

/* A pass of TOOL over the file in a session of no symbols, kept in *SP
 * (NULL when out of memory); a failure said in one line. */
static int pass(struct rep *c, struct pk_perfdata *pd,
		const struct pk_tool *tool, struct pk_session **sp)
{
	PK_OPTS(pk_session_opts, so, .kallsyms = "");
	int err;

	*sp = pk_session_new(&so);
	if (!*sp)
		return -ENOMEM;
	err = pk_session_run(*sp, pd, tool, c);
	if (err)
		cli_error("report", "%s (%s)", err == -ENOMEM ? c->input :
			  pk_perfdata_errmsg(pd), pk_strerror(err));
	return err;
}

/* --tasks, --mmaps: the threads' tree (and mappings), no report. */
static int tasks(struct rep *c, struct pk_perfdata *pd)
{
	PK_OPTS(pk_tool, tool);
	struct pk_session *s;
	int err = pass(c, pd, &tool, &s);

	if (!err && (err = report_tasks_print(s, stdout, c->mmaps)))
		cli_error("report", "%s: %s", c->input, err == -ENOENT ?
			  "a thread's parent is not among the threads" :
			  pk_strerror(err));
	pk_session_free(s);
	return err;
}

/* --stats: perf's counts of the records, no report. */
static int stats(struct rep *c, struct pk_perfdata *pd)
{
	PK_OPTS(pk_tool, tool, .record = count);
	struct pk_session *s = NULL;
	int err;

	if (pk_perfdata_has_feat(pd, PK_HEADER_AUXTRACE)) {
		/* perf counts the samples it synthesizes from the trace */
		cli_error("report", "%s: AUX area traces are not supported yet",
			  c->input);
		return -EINVAL;
	}
	c->pd = pd;
	c->st.report = true;
	err = pass(c, pd, &tool, &s);
	if (!err && c->st.counts[PK_RECORD_AUXTRACE_INFO]) {
		/* a pipe's AUX trace shows only in its records */
		cli_error("report", "%s: AUX area traces are not supported yet",
			  c->input);
		err = -EINVAL;
	} else if (!err) {
		cli_stats_print(&c->st, pd);
	}
	cli_stats_fini(&c->st);
	pk_session_free(s);
	return err;
}

/* What perf reports another way (groups side by side, branch mode,
 * synthesized AUX samples): a one-line refusal, or NULL. */
/* perf report's default letters: instructions every 100 us and the
 * rest, call chains on them and on the recorded events, no branches. */
static void itrace_default(struct rep *c)
{
	struct pk_itrace_opts *o = &c->itrace;

	if (c->itrace_given && o->set)
		return;
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	pk_itrace_set_default(o, false);
	o->set = true;
	o->branches = false;
	o->callchain = o->add_callchain = true;
}

/* A synthesized sample into the report, as a sample of its event. */
static int itrace_sample(void *ctx, const struct pk_itrace_sample *is)
{
	struct rep *c = ctx;
	struct pk_sample sm;
	struct pk_record rec;
	struct pk_session_sample ss;
	struct perf_branch_entry one;

	if (is->attr < 0)
		return 0;	/* errors: perf counts them, shows none */
	memset(&sm, 0, sizeof(sm));
	memset(&rec, 0, sizeof(rec));
	pk_itrace_sample_fill(is, pk_perfdata_attr(c->pd,
				(unsigned)is->attr)->sample_type, &sm);
	if (is->kind == PK_ITRACE_BRANCHES && c->itrace.last_branch &&
	    c->o.branch) {
		/* perf's branch mode takes a branch sample as a stack of its
		 * own branch (intel_pt_synth_branch_sample with l) */
		memset(&one, 0, sizeof(one));
		one.from = is->ip;
		one.to = is->addr;
		sm.sample_type |= PERF_SAMPLE_BRANCH_STACK;
		sm.branch.nr = 1;
		sm.branch.hw_idx = UINT64_MAX;
		sm.branch.has_hw_idx = true;
		sm.branch.entries = &one;
	}
	rec.type = PERF_RECORD_SAMPLE;
	rec.misc = is->cpumode;
	rec.attr = is->attr;
	ss.rec = &rec;
	ss.sample = &sm;
	ss.attr = is->attr;
	/* a guest's sample: perf's new thread of the guest machine */
	ss.comm = (c->guest_kallsyms || c->guest_code) &&
		  (is->cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
		   is->cpumode == PERF_RECORD_MISC_GUEST_USER) ?
		  pk_session_guest_comm(c->sess, (uint32_t)is->pid, c->gcomm,
					sizeof(c->gcomm)) :
		  pk_session_comm(c->sess, (uint32_t)is->tid);
	return sample(c, c->sess, &ss);
}

/* Whether the -s list has KEY. */
static bool has_key(const char *sort, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = sort; p && *p; p += strcspn(p, ","), p += *p == ',')
		if (!strncmp(p, key, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Sort keys perf shows another way with these options: why, or NULL. */
static const char *sort_unsupported(const struct rep *c, bool cc,
				    struct pk_perfdata *pd)
{
	if (has_key(c->o.sort, "parent") && !cc)
		return "--sort parent needs callchains (record with -g)";
	if (c->raw_trace && has_key(c->o.sort ? c->o.sort : c->o.fields,
				    "trace"))
		return "--raw-trace with the trace key is not supported yet";
	if (c->total_cycles && c->o.branch)
		return "--total-cycles with branch stacks (perf's block view) is not supported yet";
	if (c->po.group_sort && !pk_perfdata_has_feat(pd, PK_HEADER_GROUP_DESC))
		return "--group-sort-idx given, but the file has no event groups";
	/* perf's srclines of unwound frames come from its inline lists:
	 * not matched */
	if (c->o.children && (has_key(c->o.sort, "srcline") ||
			      has_key(c->o.sort, "srcfile")) &&
	    cli_any_sample_type(pd, PERF_SAMPLE_STACK_USER))
		return "--sort srcline or srcfile with --children is not supported yet on DWARF callchains (use --no-children)";
	return NULL;
}

/* -p: the regex, and the parent key after the others. */
static int parent_opt(struct rep *c, const char *arg)
{
	const char *sort = c->o.sort ? c->o.sort : "comm,dso,sym";

	c->o.parent = arg;
	if (has_key(sort, "parent"))
		return 0;
	if ((size_t)snprintf(c->sortbuf, sizeof(c->sortbuf), "%s,parent",
			     sort) >= sizeof(c->sortbuf)) {
		cli_error("report", "--sort %s: too long", sort);
		return -EINVAL;
	}
	c->o.sort = c->sortbuf;
	return 0;
}

/* --cpu and --time against the file, as perf checks them: 0 or -EINVAL
 * (said). */
static int sample_filters(struct rep *c, struct pk_perfdata *pd)
{
	uint64_t first = 0, last = 0;

	if (c->cpu_list && cli_cpu_mask("report", c->cpu_list, c->input, pd,
					c->cpus))
		return -EINVAL;
	if (!c->time_str)
		return 0;
	if (strchr(c->time_str, '%') &&
	    (pk_perfdata_feat_u64(pd, PK_HEADER_SAMPLE_TIME, 0, &first) ||
	     pk_perfdata_feat_u64(pd, PK_HEADER_SAMPLE_TIME, 1, &last))) {
		cli_error("report", "%s: --time %s: percentages need the file's sample times",
			  c->input, c->time_str);
		return -EINVAL;
	}
	if (cli_time_ranges_parse(&c->tr, c->time_str, first, last)) {
		cli_error("report", "--time %s: not a time range", c->time_str);
		return -EINVAL;
	}
	c->po.time_slices = c->time_str;
	return 0;
}

/* --time on the instruction trace: decoded for the ranges as perf's
 * intel-pt.c does (fast forward to each, stopped past the last). */
static int itrace_times(struct rep *c)
{
	struct pk_itrace_time_range r[CLI_MAX_TIME_RANGES];

	if (!c->it || !c->time_str)
		return 0;
	for (unsigned i = 0; i < c->tr.n; i++) {
		r[i].start = c->tr.r[i][0];
		r[i].end = c->tr.r[i][1];
	}
	if (pk_itrace_set_time_ranges(c->it, r, c->tr.n)) {
		cli_error("report", "--time %s: not a time range", c->time_str);
		return -EINVAL;
	}
	return 0;
}

/* --switch-on's or --switch-off's event NAME: its attr index, or -1
 * (said) when no event of the file has that name. */
static int switch_attr(const struct rep *c, struct pk_perfdata *pd,
		       const char *opt, const char *name)
{
	for (unsigned a = 0; a < pk_perfdata_nr_attrs(pd); a++) {
		const char *n = pk_perfdata_attr_name(pd, a);

		if (n && !strcmp(n, name))
			return (int)a;
	}
	cli_error("report", "%s: %s: no such event (perfkit evlist lists them)",
		  c->input, opt);
	return -1;
}

/* --switch-on, --switch-off against the file: 0 or -EINVAL (said). */
static int switches(struct rep *c, struct pk_perfdata *pd)
{
	c->on_attr = c->off_attr = -1;
	if (c->on_name &&
	    (c->on_attr = switch_attr(c, pd, "--switch-on", c->on_name)) < 0)
		return -EINVAL;
	if (c->off_name &&
	    (c->off_attr = switch_attr(c, pd, "--switch-off", c->off_name)) < 0)
		return -EINVAL;
	c->discarding = c->on_attr >= 0;
	return 0;
}

/* What comes before the report: the file's header or the hint. */
static void head(const struct rep *c, struct pk_perfdata *pd)
{
	if (c->quiet)
		return;
	if (c->header)
		cli_perfdata_header(pd, c->input, c->show_info);
	else
		printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
}

/* Why the browser cannot show what perf's would, or NULL. */
static const char *no_browser(const struct rep *c, struct pk_perfdata *pd)
{
	const void *data;
	uint64_t size;
	uint32_t nr = 0;

	if (!c->po.no_group &&
	    !pk_perfdata_feat_raw(pd, PK_HEADER_GROUP_DESC, &data, &size) &&
	    size >= sizeof(nr) && (memcpy(&nr, data, sizeof(nr)), nr))
		return "event groups";
	if (c->po.chain == PK_REPORT_CHAIN_FLAT ||
	    c->po.chain == PK_REPORT_CHAIN_FOLDED)
		return "-g flat and folded";
	if (c->header)
		return "--header";
	if (c->threads)
		return "-T's per-thread tables";
	if (c->o.branch)
		return "branch stacks (-b)";
	if (c->o.mem)
		return "--mem-mode";
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
	/* perf zooms by -s's keys only: none with -F alone */
	err = report_browse(c->r, a, name ? name : "",
			    pk_perfdata_attr(pd, a)->sample_freq, &c->po, c->an,
			    c->o.fields && !c->o.sort ? "" : c->o.sort);
	if (err)
		cli_error("report", "%s: the browser: %s", c->input,
			  strerror(-err));
	return err;
}

/* perf's branch mode (-b, or by default when the file's header lists
 * branch stacks) and memory mode (--mem-mode) against the file: a pipe's
 * attrs come later, perf does not check them then; neither mode with
 * callchains yet. 0 or -EINVAL (said). */
static int sample_modes(struct rep *c, struct pk_perfdata *pd, bool cc)
{
	struct pk_perfdata_info in;
	const char *why = NULL;

	pk_perfdata_info(pd, &in);
	/* (perf: with l or L the samples have branch stacks) */
	bool itrace_br = c->itrace.set && (c->itrace.last_branch ||
					   c->itrace.add_last_branch);

	c->o.branch = c->branch < 0 ?
		pk_perfdata_has_feat(pd, PK_HEADER_BRANCH_STACK) || itrace_br :
		c->branch;
	if (c->o.branch && !in.pipe && !itrace_br &&
	    !cli_any_sample_type(pd, PERF_SAMPLE_BRANCH_STACK))
		why = "-b given, but the samples have no branch stacks (record with -b)";
	else if (c->o.branch && cc)
		why = "branch stacks with callchains are not supported yet (use --no-branch-stack)";
	else if (c->o.mem && c->o.branch)
		why = "--mem-mode with branch stacks is not supported yet (use --no-branch-stack)";
	else if (c->o.mem && !in.pipe &&
		 !cli_any_sample_type(pd, PERF_SAMPLE_DATA_SRC))
		why = "--mem-mode given, but the samples have no data sources (record with -d)";
	else if (c->o.mem && cc)
		why = "--mem-mode with callchains is not supported yet";
	if (why)
		cli_error("report", "%s: %s", c->input, why);
	return why ? -EINVAL : 0;
}

/* The session of a report given up before its run, with the trace's
 * decoder over it. */
static void drop_session(struct rep *c, struct pk_session *s)
{
	pk_itrace_free(c->it);
	c->it = NULL;
	pk_session_free(s);
}

/* Whether any event got a sample. */
static bool any_samples(const struct rep *c, struct pk_perfdata *pd)
{
	for (unsigned i = 0; i < pk_perfdata_nr_attrs(pd); i++)
		if (pk_report_nr_samples(c->r, i))
			return true;
	return false;
}

static int run(struct rep *c, struct pk_perfdata *pd)
{
	PK_OPTS(pk_tool, tool, .sample = recorded, .record = record);
	PK_OPTS(pk_session_opts, so, .guest_kallsyms = c->guest_kallsyms,
		.guest_code = c->guest_code, .kallsyms = c->kallsyms);
	struct pk_session *s = pk_session_new(&so);
	const char *why;
	bool cc;
	int err;

	if (!s)
		return -ENOMEM;
	itrace_default(c);
	/* the trace's decoder first: its events join the file's (with call
	 * chains for g) when it reads the trace ahead */
	c->pd = pd;
	c->sess = s;
	if (pk_perfdata_has_feat(pd, PK_HEADER_AUXTRACE) && !c->no_itrace &&
	    !(c->it = pk_itrace_new(pd, s, &c->itrace, itrace_sample, c)) &&
	    errno == ENOMEM) {
		pk_session_free(s);
		return -ENOMEM;
	}
	if (c->it && pk_itrace_read_ahead(c->it))
		cli_error("report", "%s: cannot read the AUX area trace ahead: "
			  "decoding it as it comes", c->input);
	/* (G: perf gives every event call chains) */
	cc = cli_any_sample_type(pd, PERF_SAMPLE_CALLCHAIN) ||
	     (c->it && c->itrace.add_callchain);
	if ((err = sample_modes(c, pd, cc))) {
		drop_session(c, s);
		return err;
	}
	if (c->o.branch || c->o.mem)
		cc = false;
	c->o.children = c->children < 0 ? cc : c->children && cc;
	c->o.callchain = cc && !c->chain_none;
	c->o.caller = c->caller < 0 ? c->o.children : c->caller;
	if (c->chain_asked && !c->chain_none && !cc) {
		/* perf: its first lines, then the complaint */
		head(c, pd);
		cli_error("report", "%s: -g or -G given, but the samples have no callchains (record with -g)",
			  c->input);
		drop_session(c, s);
		return -EINVAL;
	}
	if (!c->o.callchain)
		c->po.chain = PK_REPORT_CHAIN_NONE;
	if (sample_filters(c, pd) || itrace_times(c) || switches(c, pd)) {
		drop_session(c, s);
		return -EINVAL;
	}
	if ((why = sort_unsupported(c, cc, pd))) {
		cli_error("report", "%s: %s", c->input, why);
		drop_session(c, s);
		return -EINVAL;
	}
	if (c->tui && (why = no_browser(c, pd))) {
		if (c->tui > 0) {
			cli_error("report", "--tui: %s in the browser are not supported yet (use --stdio)",
				  why);
			drop_session(c, s);
			return -EINVAL;
		}
		c->tui = 0;
	}
	if (c->tui < 0)
		c->tui = tui_available() ? 2 : 0;
	if (c->tui && !(c->an = pk_annotate_new(s))) {
		drop_session(c, s);
		return -ENOMEM;
	}
	c->r = pk_report_new(s, pd, &c->o);
	if (!c->r) {
		pk_annotate_free(c->an);
		drop_session(c, s);
		cli_error("report", "%s%s: unknown or unsupported key%s%s",
			  c->o.fields ? "--fields " : "--sort ",
			  c->o.fields ? c->o.fields : c->o.sort ? c->o.sort :
			  "comm,dso,sym", c->o.parent ? ", or a bad --parent regex " : "",
			  c->o.parent ? c->o.parent : "");
		return -EINVAL;
	}
	progress_start(c, pd);
	err = pk_session_run(s, pd, &tool, c);
	if (!err && c->it)
		err = pk_itrace_flush(c->it);
	progress_end(c);
	cli_kernel_unresolved(s);
	if (!err && c->it && pk_itrace_nr_errors(c->it))  /* perf's closing one */
		fprintf(stderr, "Warning:\n%" PRIu64 " instruction trace errors\n",
			pk_itrace_nr_errors(c->it));
	if (!err)
		cli_itrace_unsynthesized("report", c->input, c->it);
	if (err)
		cli_error("report", "%s (%s)", err == -ENOMEM ? c->input :
			  pk_perfdata_errmsg(pd), pk_strerror(err));
	if (!err && c->threads && c->reads) {
		cli_error("report", "%s: -T of a file with PERF_RECORD_READ records is not supported yet",
			  c->input);
		err = -EINVAL;
	}
	if (!err && c->tui && !c->kept && c->tr.n)
		c->tui = 0;	/* --time left nothing: the hint lines */
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
		/* perf: nothing more when --time left no sample */
		if (!c->kept && c->tr.n)
			goto out;
		if (!any_samples(c, pd)) {	/* perf's hists have no entry */
			fprintf(stderr, "Error:\nThe %s data has no samples!\n",
				c->input);
			goto out;
		}
		err = pk_report_print(c->r, stdout, &c->po);
		if (!err && c->threads)
			/* perf's per-thread counts of PERF_RECORD_READ */
			printf("# PID  TID\n");
	}
out:
	pk_itrace_free(c->it);
	pk_report_free(c->r);
	pk_annotate_free(c->an);
	pk_session_free(s);
	return err;
}

/* perf's --time-quantum: a number of ns, us, ms or s (ns without a
 * unit), not 0. */
static int time_quantum(const char *arg)
{
	static const char *const units[] = { "", "ns", "us", "ms", "s" };
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);

	if (end == arg)
		goto bad;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i])) {
			if (v)
				return 0;
			cli_error("report", "--time-quantum %s: cannot be 0", arg);
			return -EINVAL;
		}
bad:
	cli_error("report", "--time-quantum %s: not a time (N, Nns, Nus, Nms or Ns)",
		  arg);
	return -EINVAL;
}

/* A whole number option's value into *V: 0 or -EINVAL (said). */
static int number(const char *opt, const char *arg, long min, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(arg, &end, 0);
	if (end == arg || *end || errno || *v < min) {
		cli_error("report", "--%s %s: %s", opt, arg, min < 0 ?
			  "not a number" : "not a number of 0 or more");
		return -EINVAL;
	}
	return 0;
}

/* perf's options of annotation, symbol sources and the like, that do not
 * change --stdio's report here: checked as perf checks them. */
static int accepted(struct rep *c, int ch, const char *arg)
{
	static const char *const ptypes[] = { "local-period", "global-period",
					      "local-hits", "global-hits" };
	long v;

	switch (ch) {
	case 366:
		for (size_t i = 0; i < sizeof(ptypes) / sizeof(ptypes[0]); i++)
			if (!strcmp(arg, ptypes[i]))
				return 0;
		cli_error("report", "--percent-type %s: local-period, global-period, local-hits or global-hits",
			  arg);
		return -EINVAL;
	case 373: return time_quantum(arg);
	case 375: return number("samples", arg, 0, &v);
	case 394:
		if (!strcmp(arg, "always")) {
			cli_error("report", "--stdio-color always is not supported yet");
			return -EINVAL;
		}
		if (strcmp(arg, "never") && strcmp(arg, "auto"))
			fprintf(stderr, "bad config value for 'color.ui', ignoring...\n");
		return 0;
	case 383:
		if (*arg && strcmp(arg, "/")) {
			cli_error("report", "--symfs %s: other roots than / are not supported yet",
				  arg);
			return -EINVAL;
		}
		return 0;
	case 'k':
	case 384:
		if (access(arg, R_OK)) {
			cli_error("report", "%s %s: invalid file", ch == 'k' ?
				  "--vmlinux" : "--kallsyms", arg);
			return -EINVAL;
		}
		if (ch == 'k') {
			cli_error("report", "--vmlinux is not supported yet (kernel symbols come from kallsyms)");
			return -EINVAL;
		}
		c->kallsyms = arg;
		return 0;
	case 374: c->total_cycles = true; return 0;
	case 379: c->prefix = true; return 0;
	case 380: c->prefix_strip = true; return 0;
	default: return 0;
	}
}

static int option(struct rep *c, int ch, const char *arg, int li,
		  const struct option *lo)
{
	long v;

	switch (ch) {
	case 360: c->o.symbol_filter = arg; return 0;
	case 'U': c->o.hide_unresolved = true; return 0;
	case 361:
		if (number("socket-filter", arg, LONG_MIN, &v))
			return -EINVAL;
		c->o.by_socket = v >= 0;	/* perf: -1 is none */
		c->o.socket = (int32_t)v;
		return 0;
	case 'x': c->o.exclude_other = true; return 0;
	case 'q': c->quiet = c->po.quiet = true; return 0;
	case 't':
		if (!strcmp(arg, ".")) {
			cli_error("report", "-t .: '.' is the only separator perf refuses");
			return -EINVAL;
		}
		c->po.field_sep = arg;
		return 0;
	case 365: c->po.cpu_util = true; return 0;
	case 367:
		if (number("group-sort-idx", arg, 0, &v))
			return -EINVAL;
		c->po.group_sort = (unsigned)v;
		return 0;
	case 371: c->raw_trace = true; return 0;
	case 376: c->on_name = arg; return 0;
	case 377: c->off_name = arg; return 0;
	case 378: c->show_onoff = true; return 0;
	case 'f': c->force = c->x.force = true; return 0;
	case 366: case 368: case 369: case 370: case 373: case 375:
	case 379: case 380: case 381: case 382: case 383: case 384:
	case 385: case 386: case 388: case 389: case 390: case 391:
	case 392: case 393: case 394: case 364: case 374:
	case 'k': case 'm': case 'M':
		return accepted(c, ch, arg);
	case 'i': c->input = arg; return 0;
	case 303: c->tui = 0; return 0;
	case 319: c->tui = 1; return 0;
	case 300: c->children = 1; return 0;
	case 301: c->children = 0; return 0;
	case 'g': c->chain_asked = true; return parse_chain(c, arg);
	case 'G':
		c->chain_asked = true;
		c->caller = 1;
		c->x.inverted = true;
		return 0;
	case 320:
		if (!report_export_known(arg)) {
			cli_error("report", "--format %s: folded, flamegraph, "
				  "pprof, speedscope or perfetto", arg);
			return -EINVAL;
		}
		c->x.format = arg;
		return 0;
	case 'o': c->x.output = arg; return 0;
	case 321: c->x.base = arg; return 0;
	case 'F': c->o.fields = arg; return 0;
	case 'C': c->cpu_list = arg; return 0;
	case 317: c->po.no_group = false; return 0;
	case 318: c->po.no_group = true; return 0;
	case 'T': c->threads = true; return 0;
	case 316: c->time_str = arg; return 0;
	case 's':
		c->o.sort = arg;
		return c->o.parent ? parent_opt(c, c->o.parent) : 0;
	case 'p': return parent_opt(c, arg);
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
	case 'I': c->show_info = true; return 0;
	case 315: c->stats = true; return 0;
	case 'D': c->dump = true; return 0;
	case 350:
		c->itrace_given = true;
		return cli_itrace_opts("report", arg, &c->itrace);
	case 351: c->no_itrace = true; return 0;
	case 352: c->guest_kallsyms = c->x.guest_kallsyms = arg; return 0;
	case 353: c->guest_code = c->x.guest_code = true; return 0;
	case 'b': c->branch = 1; return 0;
	case 343: c->o.mem = true; return 0;
	case 342: c->branch = 0; return 0;
	case 340: c->tasks = true; return 0;
	case 341: c->mmaps = true; return 0;
	case 302:
		cli_error("report", "--%s is not supported yet", lo[li].name);
		return -EINVAL;
	case 'h': usage(stdout); exit(0);
	default: usage(stderr); return -EINVAL;
	}
}

/* --format: the samples (the filters of a sample applied) in another
 * tool's format. */
static int export(struct rep *c)
{
	struct export_opts *x = &c->x;
	const char *s = c->o.sort;

	if (c->o.dsos || c->o.syms || c->o.fields || c->threads ||
	    c->o.branch || c->o.mem || c->o.parent) {
		cli_error("report", "--format %s: --dso, --symbols, -F, -T, -p, "
			  "-b and --mem-mode are not applied to exports yet",
			  x->format);
		return 2;
	}
	if (x->base && strcmp(x->format, "flamegraph")) {
		cli_error("report", "--base: only with --format=flamegraph");
		return 2;
	}
	x->input = c->input;
	x->comms = c->o.comms;
	x->pids = c->o.pids;
	x->tids = c->o.tids;
	x->cpus = c->cpu_list;
	x->time = c->time_str;
	x->max_stack = c->o.max_stack ? (int)c->o.max_stack : -1;
	/* a root per thread when the keys split threads */
	x->threads = s && (!strncmp(s, "pid", 3) || strstr(s, ",pid"));
	return report_export(x);
}

int cmd_report(int argc, char **argv)
{
	static struct option longopts[128] = {
		{ "input", required_argument, NULL, 'i' },
		{ "stdio", no_argument, NULL, 303 },
		{ "tui", no_argument, NULL, 319 },
		{ "children", no_argument, NULL, 300 },
		{ "no-children", no_argument, NULL, 301 },
		{ "call-graph", required_argument, NULL, 'g' },
		{ "inverted", no_argument, NULL, 'G' },
		{ "sort", required_argument, NULL, 's' },
		{ "fields", required_argument, NULL, 'F' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "group", no_argument, NULL, 317 },
		{ "no-group", no_argument, NULL, 318 },
		{ "threads", no_argument, NULL, 'T' },
		{ "time", required_argument, NULL, 316 },
		{ "parent", required_argument, NULL, 'p' },
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
		{ "show-info", no_argument, NULL, 'I' },
		{ "stats", no_argument, NULL, 315 },
		{ "dump-raw-trace", no_argument, NULL, 'D' },
		{ "branch-stack", no_argument, NULL, 'b' },
		{ "mem-mode", no_argument, NULL, 343 },
		{ "no-branch-stack", no_argument, NULL, 342 },
		{ "tasks", no_argument, NULL, 340 },
		{ "mmaps", no_argument, NULL, 341 },
		{ "format", required_argument, NULL, 320 },
		{ "output", required_argument, NULL, 'o' },
		{ "base", required_argument, NULL, 321 },
		{ "itrace", optional_argument, NULL, 350 },
		{ "no-itrace", no_argument, NULL, 351 },
		{ "guestkallsyms", required_argument, NULL, 352 },
		{ "guest-code", no_argument, NULL, 353 },
		{ "help", no_argument, NULL, 'h' },
		{ "comms", required_argument, NULL, 307 },
		{ "dsos", required_argument, NULL, 308 },
		{ "symbol-filter", required_argument, NULL, 360 },
		{ "hide-unresolved", no_argument, NULL, 'U' },
		{ "socket-filter", required_argument, NULL, 361 },
		{ "exclude-other", no_argument, NULL, 'x' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "field-separator", required_argument, NULL, 't' },
		{ "skip-empty", no_argument, NULL, 364 },
		{ "show-cpu-utilization", no_argument, NULL, 365 },
		{ "percent-type", required_argument, NULL, 366 },
		{ "group-sort-idx", required_argument, NULL, 367 },
		{ "show-ref-call-graph", no_argument, NULL, 368 },
		{ "pretty", required_argument, NULL, 369 },
		{ "ns", no_argument, NULL, 370 },
		{ "raw-trace", no_argument, NULL, 371 },
		{ "time-quantum", required_argument, NULL, 373 },
		{ "total-cycles", no_argument, NULL, 374 },
		{ "samples", required_argument, NULL, 375 },
		{ "switch-on", required_argument, NULL, 376 },
		{ "switch-off", required_argument, NULL, 377 },
		{ "show-on-off-events", no_argument, NULL, 378 },
		{ "prefix", required_argument, NULL, 379 },
		{ "prefix-strip", required_argument, NULL, 380 },
		{ "full-source-path", no_argument, NULL, 381 },
		{ "inline", no_argument, NULL, 382 },
		{ "no-inline", no_argument, NULL, 382 },
		{ "symfs", required_argument, NULL, 383 },
		{ "vmlinux", required_argument, NULL, 'k' },
		{ "kallsyms", required_argument, NULL, 384 },
		{ "modules", no_argument, NULL, 'm' },
		{ "ignore-vmlinux", no_argument, NULL, 385 },
		{ "demangle", no_argument, NULL, 386 },
		{ "no-demangle", no_argument, NULL, 386 },
		{ "demangle-kernel", no_argument, NULL, 388 },
		{ "no-demangle-kernel", no_argument, NULL, 388 },
		{ "force", no_argument, NULL, 'f' },
		{ "disable-order", no_argument, NULL, 389 },
		{ "stitch-lbr", no_argument, NULL, 390 },
		{ "objdump", required_argument, NULL, 391 },
		{ "asm-raw", no_argument, NULL, 392 },
		{ "disassembler-style", required_argument, NULL, 'M' },
		{ "source", no_argument, NULL, 393 },
		{ "no-source", no_argument, NULL, 393 },
		{ "stdio-color", required_argument, NULL, 394 },
	};
	struct rep c = { .input = "perf.data", .children = -1, .caller = -1,
			 .branch = -1,
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
	while ((ch = cli_getopt(argc, argv, "+i:g:Gs:p:nhF:TC:c:d:S:Dbo:IUxqt:w:vk:mfM:",
				longopts, &li)) != -1) {
		if (ch == 'c' || ch == 'd' || ch == 'S')
			ch = ch == 'c' ? 307 : ch == 'd' ? 308 : 309;
		if (ch < 256 && ch && strchr("wv", ch)) {
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
	if (c.prefix_strip && !c.prefix) {
		cli_error("report", "--prefix-strip requires --prefix");
		return 2;
	}
	if (c.x.format)
		return export(&c);
	if (c.x.output || c.x.base) {
		cli_error("report", "%s needs --format", c.x.output ?
			  "-o" : "--base");
		return 2;
	}
	if (c.dump) { /* perf report -D: the records as script -D dumps them */
		char *sa[8] = { "script", "--report-dump", "-i",
				(char *)c.input };
		int n = 4;

		if (c.force)
			sa[n++] = "-f";
		if (c.header)
			sa[n++] = "--header";
		if (c.header && c.show_info)
			sa[n++] = "--show-info";
		return cmd_script(n, sa);
	}
	if ((ret = cli_perfdata_check(c.input, c.force)))
		return ret;
	pd = pk_perfdata_open(c.input, NULL);
	if (!pd) {
		cli_error("report", "%s: %s", c.input, errno == EPROTO ?
			  pk_perfdata_open_error() : strerror(errno));
		return 1;
	}
	cli_kcore_dir_check("report", pd);
	if (c.header || c.header_only) {
		struct pk_perfdata_info in;

		pk_perfdata_info(pd, &in);
		if (in.pipe && !c.header_only) {
			/* perf shows the features the stream brings (as
			 * --header-only does) amid its report */
			/* perf names events from what the stream brings */
			cli_error("report", "%s: --header and --stats of pipe-mode data are not supported yet",
				  c.input);
			pk_perfdata_free(pd);
			return 1;
		}
	}
	if (c.header_only) {
		cli_perfdata_header(pd, c.input, c.show_info);
		cli_perfdata_pipe_features(pd, c.show_info);
	}
	ret = c.header_only ? 0 : c.stats ? stats(&c, pd) :
	      c.tasks || c.mmaps ? tasks(&c, pd) : run(&c, pd);
	pk_perfdata_free(pd);
	return ret ? 1 : 0;
}
