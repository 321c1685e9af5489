/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace: the dispatcher of the ftrace subcommands (report,
 * record, start, stop, restart, reset, extract, restore, show, list,
 * stat, snapshot, stack, profile, live, split, dump, check-events) and
 * trace-cmd's report of a trace.dat file (--format=kernel is
 * in cmd_ftrace_live.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include <perfkit/map.h>
#include "cli.h"
#include "ftrace_export.h"

static void report_usage(FILE *f)
{
	fprintf(f, "usage: perfkit ftrace report [-i FILE] [--cpu N[,M..]] "
		   "[-F FILTER] [-v] [-t] [-l] [-R]\n"
		   "       [--ts-diff] [-q] [-P] [-E] [--events] "
		   "[--first-event] [--last-event] [--cpus]\n"
		   "       [--pid P] [--comm C] [-T] [--event RE] [-p] "
		   "[--raw-ts] [--nodate] [--align-ts]\n"
		   "       [--ts2secs HZ] [--ts-offset NS] [--ts-check]\n"
		   "       [-w] [--stat] [--uname] [--version] [-e] [-f] "
		   "[--profile [-G]] [-I] [-S]\n"
		   "       [--format=trace-cmd|kernel|perfetto|folded|"
		   "flamegraph|pprof|speedscope] [-o FILE]\n"
		   "       [--inverted] [--engine=auto|tep] [--stats] "
		   "[--verbose] [FILE]\n"
		   "  trace-cmd report's options, with its meaning:\n"
		   "  -F FILTER     'EVENTS[:EXPR]' (libtraceevent filter "
		   "syntax); several allowed\n"
		   "  -v            the -F filters after it leave out what "
		   "they match\n"
		   "  -t            full nanosecond timestamps\n"
		   "  -l            latency columns (irqs-off, need-resched, "
		   "irq context, preempt depth)\n"
		   "  -R            raw: every field as name=value\n"
		   "  --ts-diff     the time since the record before\n"
		   "  -P / -E       the printk formats / the events of "
		   "the file\n"
		   "  --events      the event formats\n"
		   "  --first-event, --last-event, --cpus  per-CPU data "
		   "summary\n"
		   "  -q            quiet (accepted; nothing to quiet)\n"
		   "  -w            wake-up latency after each sched_switch "
		   "to a woken task, summary\n"
		   "  --stat        the buffer statistics stored in the file\n"
		   "  --uname, --version  the recording's uname, trace-cmd "
		   "version\n"
		   "  -e / -f       the file's byte order / its kallsyms "
		   "functions\n"
		   "  --profile     per task: event counts and the times "
		   "between paired events\n"
		   "  -G            (--profile) irqs and softirqs per CPU, "
		   "not per task\n"
		   "  -I / -S       leave out records made in a hard / "
		   "soft interrupt\n"
		   "  --pid P[,P..], --comm NAME  only these tasks' records "
		   "(one more -F)\n"
		   "  -T            print the filters as libtraceevent reads "
		   "them, nothing else\n"
		   "  --event RE    the formats of the events RE names "
		   "(SYS:EVENT or one RE)\n"
		   "  -p            the file's and the host's page size\n"
		   "  --raw-ts, --nodate, --align-ts, --ts2secs HZ, "
		   "--ts-offset NS  times: raw\n"
		   "                counts; without the DATE option; from the "
		   "first event; a\n"
		   "                counter of HZ; NS later (also with one "
		   "file)\n"
		   "  --ts-check    say each record older than the one "
		   "before it\n"
		   "  perfkit's own:\n"
		   "  --engine=tep  format every record with libtraceevent "
		   "(reference)\n"
		   "  --stats       print formatter coverage to stderr\n"
		   "  --format=perfetto  Chrome trace-event JSON: thread "
		   "states, wake-ups, events\n"
		   "  --format=folded|flamegraph|pprof|speedscope  the "
		   "kernel stack traces\n"
		   "                (record -T); --inverted: icicle "
		   "(was -G)\n"
		   "  --verbose     name the events left to libtraceevent "
		   "(was -v)\n");
}

/* --format=perfetto|folded|flamegraph|pprof [-o FILE]: TD's timeline or
 * stacks (TD freed). */
static int report_formats(struct pk_tracedat *td, const char *in,
			   const char *output, const char *format,
			   bool inverted, const int *cpus, int nr_cpus)
{
	FILE *out = stdout;
	int err;

	if (!format) {
		cli_error("ftrace report", "-o goes with --format=perfetto, "
			  "folded, flamegraph, pprof or speedscope (the text "
			  "goes to standard output)");
		pk_tracedat_free(td);
		return 2;
	}
	if (!output && !strcmp(format, "pprof") && isatty(1)) {
		cli_error("ftrace report", "--format=pprof writes a binary "
			  "file: give -o FILE (or a pipe)");
		pk_tracedat_free(td);
		return 2;
	}
	if (output && !(out = fopen(output, "w"))) {
		cli_error("ftrace report", "-o %s: %s", output, strerror(errno));
		pk_tracedat_free(td);
		return 1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	err = !strcmp(format, "perfetto") ?
	      ftrace_export(td, in, out, cpus, nr_cpus) :
	      ftrace_export_stacks(td, in, out, format, inverted, cpus,
				   nr_cpus);
	if ((out != stdout ? fclose(out) : fflush(out)) && !err)
		err = -EIO;
	pk_tracedat_free(td);
	if (err) {
		cli_error("ftrace report", "%s: %s", err == -EIO ?
			  (output ? output : "standard output") : in,
			  pk_strerror(err));
		return 1;
	}
	return 0;
}

enum {
	OPT_FORMAT = 256, OPT_ENGINE, OPT_STATS, OPT_VERBOSE, OPT_INVERTED,
	OPT_EVENTS, OPT_TS_DIFF, OPT_FIRST, OPT_LAST, OPT_CPUS, OPT_CPU,
	OPT_STAT, OPT_UNAME, OPT_VERSION, OPT_PROFILE, OPT_PID, OPT_COMM,
	OPT_EVENT, OPT_TS_OFFSET, OPT_TS2SECS, OPT_TS_CHECK, OPT_RAW_TS,
	OPT_ALIGN_TS, OPT_NODATE,
};

/* trace-cmd report's task and time options, gathered for the library. */
struct rep_sel {
	int pids[256], nr_pids;
	const char *comms[256];
	int nr_comms;
	const char *event;
	struct pk_tracedat_time time;
	bool page_size;
};

/* A --pid list ("P[,P...]") into SEL. 0, or 2 after saying why not. */
static int add_pids(struct rep_sel *sel, const char *arg)
{
	char *buf = strdup(arg), *save = NULL;
	int r = buf ? 0 : 1;

	for (char *t = buf ? strtok_r(buf, ",", &save) : NULL; t && !r;
	     t = strtok_r(NULL, ",", &save)) {
		char *end;
		long v = strtol(t, &end, 10);

		if (*end || end == t || sel->nr_pids == 256) {
			cli_error("ftrace report", "--pid: bad pid '%s'", t);
			r = 2;
		} else {
			sel->pids[sel->nr_pids++] = (int)v;
		}
	}
	free(buf);
	return r;
}

/* The task and time options (C with OPTARG) into SEL: 1 when C is not
 * one of them, 2 after saying what is wrong, else 0. */
static int rep_sel_opt(struct rep_sel *sel, int c, const char *arg)
{
	char *end = NULL;

	switch (c) {
	case OPT_PID: return add_pids(sel, arg);
	case OPT_COMM:
		if (sel->nr_comms == 256)
			return cli_error("ftrace report", "too many --comm"), 2;
		sel->comms[sel->nr_comms++] = arg;
		return 0;
	case OPT_EVENT: sel->event = arg; return 0;
	case 'p': sel->page_size = true; return 0;
	case OPT_TS_OFFSET:
		sel->time.offset = strtoll(arg, &end, 0);
		break;
	case OPT_TS2SECS:
		sel->time.hz = strtoull(arg, &end, 0);
		if (!*end && !sel->time.hz)
			end = (char *)"0";
		break;
	case OPT_RAW_TS: sel->time.flags |= PK_TD_TIME_RAW; return 0;
	case OPT_ALIGN_TS: sel->time.flags |= PK_TD_TIME_ALIGN; return 0;
	case OPT_NODATE: sel->time.flags |= PK_TD_TIME_NODATE; return 0;
	default: return 1;
	}
	if (*end || end == arg) {
		cli_error("ftrace report", "--%s '%s': not a number",
			  c == OPT_TS2SECS ? "ts2secs" : "ts-offset", arg);
		return 2;
	}
	return 0;
}

/* What trace-cmd report prints instead of the records (-P, -E, --cpus,
 * --first-event, --last-event), or -1. */
static int report_info_of(int c)
{
	switch (c) {
	case 'P': return PK_REPORT_INFO_PRINTK;
	case 'E': return PK_REPORT_INFO_EVENTS;
	case OPT_CPUS: return PK_REPORT_INFO_CPUS;
	case OPT_FIRST: return PK_REPORT_INFO_FIRST;
	case OPT_LAST: return PK_REPORT_INFO_LAST;
	case OPT_STAT: return PK_REPORT_INFO_STAT;
	case OPT_UNAME: return PK_REPORT_INFO_UNAME;
	case OPT_VERSION: return PK_REPORT_INFO_VERSION;
	case 'e': return PK_REPORT_INFO_ENDIAN;
	case 'f': return PK_REPORT_INFO_FUNCS;
	default: return -1;
	}
}

static int ftrace_report(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "cpus", no_argument, NULL, OPT_CPUS },
		{ "events", no_argument, NULL, OPT_EVENTS },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "inverted", no_argument, NULL, OPT_INVERTED },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "stats", no_argument, NULL, OPT_STATS },
		/* trace-cmd's, not --stats' prefix */
		{ "stat", no_argument, NULL, OPT_STAT },
		{ "uname", no_argument, NULL, OPT_UNAME },
		{ "profile", no_argument, NULL, OPT_PROFILE },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "verbose", no_argument, NULL, OPT_VERBOSE },
		{ "ts-diff", no_argument, NULL, OPT_TS_DIFF },
		{ "first-event", no_argument, NULL, OPT_FIRST },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "filter-test", no_argument, NULL, 'T' },
		{ "ts-offset", required_argument, NULL, OPT_TS_OFFSET },
		{ "ts2secs", required_argument, NULL, OPT_TS2SECS },
		{ "ts-check", no_argument, NULL, OPT_TS_CHECK },
		{ "raw-ts", no_argument, NULL, OPT_RAW_TS },
		{ "align-ts", no_argument, NULL, OPT_ALIGN_TS },
		{ "nodate", no_argument, NULL, OPT_NODATE },
		{ "last-event", no_argument, NULL, OPT_LAST },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *in = "trace.dat", *output = NULL, *stacks = NULL;
	bool perfetto = false, inverted = false, invert = false;
	static int cpus[4096];
	static struct pk_report_filter filters[64];
	int nr_cpus = 0, c, nr_filters = 0, info = -1;
	bool events = false, stats = false, profile = false;
	unsigned profile_flags = 0;
	int engine = PK_REPORT_AUTO;
	long n;
	unsigned flags = 0;
	struct pk_report_stats st = { 0 };
	struct pk_tracedat *td;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--format=kernel") ||
		    (!strcmp(argv[i], "--format") && i + 1 < argc &&
		     !strcmp(argv[i + 1], "kernel")))
			return cmd_ftrace_report_kernel(argc, argv);
	optind = 1;
	static struct rep_sel sel;
	int sr;

	sel.time.sz = sizeof(sel.time);
	while ((c = cli_getopt(argc, argv, "i:o:F:vtlRqPEGwefISTph", lo, NULL)) != -1) {
		if ((sr = rep_sel_opt(&sel, c, optarg)) != 1) {
			if (sr)
				return sr;
			continue;
		}
		switch (c) {
		case 'i': in = optarg; break;
		case OPT_CPU:
			nr_cpus = cli_parse_cpus(optarg, cpus, 4096, nr_cpus);
			if (nr_cpus < 0) {
				cli_error("ftrace report", "bad cpu list '%s'",
					  optarg);
				return 2;
			}
			break;
		case OPT_EVENTS: events = true; break;
		case OPT_INVERTED: inverted = true; break;
		case 'G': profile_flags |= PK_PROFILE_GLOBAL; break;
		case OPT_PROFILE: profile = true; break;
		case 'F':
			if (nr_filters == 64) {
				cli_error("ftrace report", "too many -F");
				return 2;
			}
			filters[nr_filters++] = (struct pk_report_filter){
				optarg, invert };
			break;
		case 'v': invert = true; break;
		case 't': flags |= PK_REPORT_FULL_TS; break;
		case 'l': flags |= PK_REPORT_LATENCY; break;
		case 'R': flags |= PK_REPORT_RAW; break;
		case OPT_TS_DIFF: flags |= PK_REPORT_TS_DIFF; break;
		case OPT_TS_CHECK: flags |= PK_REPORT_TS_CHECK; break;
		case 'T': flags |= PK_REPORT_FILTER_TEST; break;
		case 'w': flags |= PK_REPORT_WAKEUP; break;
		case 'I': flags |= PK_REPORT_NO_IRQS; break;
		case 'S': flags |= PK_REPORT_NO_SOFTIRQS; break;
		case 'q': break;
		case OPT_FORMAT:
			perfetto = !strcmp(optarg, "perfetto");
			if (!strcmp(optarg, "folded") ||
			    !strcmp(optarg, "flamegraph") ||
			    !strcmp(optarg, "pprof") ||
			    !strcmp(optarg, "speedscope")) {
				stacks = optarg;
			} else if (strcmp(optarg, "trace-cmd") && !perfetto) {
				cli_error("ftrace report", "unknown format '%s' "
					  "(trace-cmd, kernel, perfetto, folded, "
					  "flamegraph, pprof, speedscope)", optarg);
				return 2;
			}
			break;
		case 'o': output = optarg; break;
		case OPT_STATS: stats = true; break;
		case OPT_VERBOSE: cli_verbose++; break;
		case OPT_ENGINE:
			if (!strcmp(optarg, "tep")) {
				engine = PK_REPORT_TEP;
			} else if (strcmp(optarg, "auto")) {
				cli_error("ftrace report", "unknown engine '%s'",
					  optarg);
				return 2;
			}
			break;
		case 'h': report_usage(stdout); return 0;
		case 'P': case 'E': case OPT_CPUS: case OPT_FIRST:
		case OPT_LAST: case OPT_STAT: case OPT_UNAME:
		case OPT_VERSION: case 'e': case 'f':
			info = report_info_of(c);
			break;
		default: report_usage(stderr); return 2;
		}
	}
	if (optind < argc)
		in = argv[optind];
	if (!(td = pk_tracedat_open(in))) {
		cli_error("ftrace report", "%s: %s", in, pk_strerror(-errno));
		return 1;
	}
	if (sel.page_size) {	/* -p: trace-cmd says it and stops */
		printf("file page size is %d, and host page size is %d\n",
		       pk_tracedat_page_size(td), getpagesize());
		pk_tracedat_free(td);
		return 0;
	}
	if ((sel.time.flags || sel.time.offset || sel.time.hz) &&
	    (n = pk_tracedat_set_time(td, &sel.time)) < 0) {
		cli_error("ftrace report", "%s: %s", in, pk_strerror((int)n));
		pk_tracedat_free(td);
		return 1;
	}
	if (perfetto || output || stacks)
		return report_formats(td, in, output, perfetto ? "perfetto" :
				       stacks, inverted, nr_cpus ? cpus : NULL,
				       nr_cpus);
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (info >= 0) {
		n = pk_tracedat_report_info(td, stdout, info, in);
	} else if (profile) {
		n = pk_tracedat_report_profile(td, stdout,
					       nr_cpus ? cpus : NULL, nr_cpus,
					       profile_flags | flags);
	} else {
		PK_OPTS(pk_report_opts, o, .cpus = nr_cpus ? cpus : NULL,
			.nr_cpus = nr_cpus, .events = events || sel.event,
			.engine = engine,
			.stats = &st, .flags = flags, .filters = filters,
			.nr_filters = nr_filters, .pids = sel.pids,
			.nr_pids = sel.nr_pids, .comms = sel.comms,
			.nr_comms = sel.nr_comms,
			.events_match = sel.event);
		n = pk_tracedat_report(td, stdout, &o);
	}
	fflush(stdout);
	if (stats)
		fprintf(stderr, "records: %ld compiled formatter, %ld "
			"libtraceevent; formats: %d compiled, %d "
			"libtraceevent\n", st.fast, st.fallback,
			st.formats_fast, st.formats_fallback);
	pk_tracedat_free(td);
	if (n < 0) {
		cli_error("ftrace report", "%s: %s", in, pk_strerror((int)n));
		return 1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: perfkit ftrace COMMAND [ARGS]\n\n"
		   "  report   print a trace.dat file like trace-cmd report\n"
		   "  record   record events into a trace.dat file\n"
		   "  split    cut a trace.dat file into pieces, as trace-cmd "
		   "split\n"
		   "  dump     a trace.dat file's metadata, as trace-cmd dump\n"
		   "  check-events  parse every event format of tracefs, as "
		   "trace-cmd check-events\n"
		   "  extract  save what a buffer holds now into a trace.dat file\n"
		   "  restore  a trace.dat from a crashed record's per-CPU "
		   "files (trace-cmd restore)\n"
		   "  start    set tracing up as record would, leave it "
		   "running (trace-cmd start)\n"
		   "  stop     tracing_on 0 (trace-cmd stop)\n"
		   "  restart  tracing_on 1 (trace-cmd restart)\n"
		   "  reset    what killed perfkit runs left, then trace-cmd "
		   "reset (--stale:\n"
		   "           only the former)\n"
		   "  show     a live buffer's text (or a control file), as "
		   "trace-cmd show\n"
		   "  state    print the current tracefs state (was show)\n"
		   "  list     tracers, events, functions, options [GLOB]\n"
		   "  stat     what is set in tracefs, as trace-cmd stat\n"
		   "  bufstat  per-CPU buffer statistics, function profile "
		   "(was stat)\n"
		   "  snapshot take/show/clear/free the snapshot buffer "
		   "(--cpu N: one CPU's)\n"
		   "  free-buffer  free a buffer as closing free_buffer does "
		   "(--disable-on-free)\n"
		   "  stack    the stack tracer's maximum stack\n"
		   "  profile  the function profiler around a command\n"
		   "  live     stream events as trace_pipe prints them\n"
		   "  probe    list dynamic events (record --probe makes "
		   "them)\n"
		   "  hist     an event's hist file, around a command with "
		   "-R 'hist:...'\n");
}

int cmd_ftrace(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "report"))
		return ftrace_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "record"))
		return cmd_ftrace_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "start"))
		return cmd_ftrace_start(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stop"))
		return cmd_ftrace_stop(argc - 1, argv + 1);
	if (!strcmp(argv[1], "restart"))
		return cmd_ftrace_restart(argc - 1, argv + 1);
	if (!strcmp(argv[1], "reset"))
		return cmd_ftrace_reset(argc - 1, argv + 1);
	if (!strcmp(argv[1], "extract"))
		return cmd_ftrace_extract(argc - 1, argv + 1);
	if (!strcmp(argv[1], "restore"))
		return cmd_ftrace_restore(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return cmd_ftrace_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "state"))
		return cmd_ftrace_state(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return cmd_ftrace_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stat"))
		return cmd_ftrace_stat(argc - 1, argv + 1);
	if (!strcmp(argv[1], "bufstat"))
		return cmd_ftrace_bufstat(argc - 1, argv + 1);
	if (!strcmp(argv[1], "snapshot"))
		return cmd_ftrace_snapshot(argc - 1, argv + 1);
	if (!strcmp(argv[1], "free-buffer"))
		return cmd_ftrace_free_buffer(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stack"))
		return cmd_ftrace_stack(argc - 1, argv + 1);
	if (!strcmp(argv[1], "profile"))
		return cmd_ftrace_profile(argc - 1, argv + 1);
	if (!strcmp(argv[1], "split"))
		return cmd_ftrace_split(argc - 1, argv + 1);
	if (!strcmp(argv[1], "dump"))
		return cmd_ftrace_dump(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check-events"))
		return cmd_ftrace_check_events(argc - 1, argv + 1);
	if (!strcmp(argv[1], "probe"))
		return cmd_ftrace_probe(argc - 1, argv + 1);
	if (!strcmp(argv[1], "hist"))
		return cmd_ftrace_hist(argc - 1, argv + 1);
	if (!strcmp(argv[1], "live"))
		return cmd_ftrace_live(argc - 1, argv + 1);
	cli_error("ftrace", "unknown subcommand '%s'", argv[1]);
	usage(stderr);
	return 2;
}
