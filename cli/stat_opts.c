/* SPDX-License-Identifier: MIT */
/*
 * perfkit stat: command-line options, checked in the order perf 6.1 checks
 * them, with its messages for the combinations it refuses.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "stat.h"

/* perf's help line of each option that an error message points at. */
static const struct opt_help {
	const char *name, *text;
} opt_helps[] = {
	{ "p", "    -p, --pid <pid>       stat events on existing process id" },
	{ "t", "    -t, --tid <tid>       stat events on existing thread id" },
	{ "r", "    -r, --repeat <n>      repeat command and print average + stddev (max: 100, forever: 0)" },
	{ "table", "        --table           display details about each run (only with -r option)" },
	{ "timeout", "        --timeout <n>     stop workload and print counts after a timeout period in ms (>= 10ms)" },
	{ "interval-count", "        --interval-count <n>\n                          print counts for fixed number of times" },
	{ "I", "    -I, --interval-print <n>\n                          print counts at regular interval in ms (overhead is possible for values <= 100ms)" },
	{ "o", "    -o, --output <file>   output file name" },
	{ "log-fd", "        --log-fd <n>      log output to fd, instead of stderr" },
	{ "B", "    -B, --big-num         print large numbers with thousands' separators" },
	{ "x", "    -x, --field-separator <separator>\n                          print counts with custom separator" },
	{ "G", "    -G, --cgroup <name>   monitor event in cgroup name only" },
	{ "A", "    -A, --no-aggr         disable CPU count aggregation" },
	{ "a", "    -a, --all-cpus        system-wide collection from all CPUs" },
	{ "for-each-cgroup", "        --for-each-cgroup <name>\n                          expand events for each cgroup" },
	{ "interval-clear", "        --interval-clear  clear screen in between new interval" },
	{ "iostat", "        --iostat[=<default>]\n                          measure I/O performance metrics provided by arch/platform" },
	{ "cputype", "        --cputype <hybrid cpu type>\n                          Only enable events on applying cpu with this type for hybrid platform (e.g. core or atom)" },
};

/* perf's parse_options_usage: a usage header when HEADER, then the help
 * lines of the options named in the space-separated list NAMES. */
static void opt_usage(bool header, const char *names)
{
	char buf[128], *save = NULL;

	if (header)
		fputs("\n Usage: perfkit stat [<options>] [<command>]\n\n", stderr);
	snprintf(buf, sizeof(buf), "%s", names);
	for (char *n = strtok_r(buf, " ", &save); n; n = strtok_r(NULL, " ", &save))
		for (size_t i = 0; i < sizeof(opt_helps) / sizeof(opt_helps[0]); i++)
			if (!strcmp(opt_helps[i].name, n))
				fprintf(stderr, "%s\n", opt_helps[i].text);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: perfkit stat [options] [-- command [args]]\n"
"  -e, --event EV        event(s) to count (repeatable; {a,b} groups)\n"
"      --filter F        tracepoint filter for the last -e event\n"
"  -p, --pid PIDS        attach to processes (comma list)\n"
"  -t, --tid TIDS        attach to threads (comma list)\n"
"  -a, --all-cpus        system-wide on every CPU\n"
"  -C, --cpu CPUS        only these CPUs (e.g. 0-2,5)\n"
"  -A, --no-aggr         one line per CPU\n"
"      --per-thread / --per-core / --per-die / --per-socket / --per-node\n"
"  -d, --detailed        add cache events (-dd, -ddd: more)\n"
"  -n, --null            count nothing, time the command\n"
"  -g, --group           put the counters into one group\n"
"  -S, --sync            sync() before each run\n"
"  -I, --interval-print MS  print deltas every MS milliseconds\n"
"      --interval-count N   stop after N intervals; --summary: totals too\n"
"      --timeout MS      stop the command after MS milliseconds\n"
"  -r, --repeat N        run the command N times: mean and +- stddev %%\n"
"      --table           with -r: each run's elapsed time\n"
"  -x, --field-separator SEP  CSV output (perf's field order)\n"
"  -j, --json-output     JSON, one object per line\n"
"  -o, --output FILE     write the results to FILE (--append: add to it)\n"
"      --log-fd FD       write the results to FD\n"
"      --quiet           print no counts\n"
"      --metric-only     print only the metrics\n"
"      --all-user / --all-kernel  count only in user / kernel mode\n"
"      --pre CMD / --post CMD     shell commands around each run\n"
"  -i, --no-inherit      do not count child tasks\n"
"  -G, --cgroup NAME     count only tasks in this cgroup (with -a)\n"
"  -D, --delay MS        start counting MS ms after the command starts\n"
"  -v, --verbose         more detail (-vv: every perf_event_attr)\n");
}

enum {
	O_PER_THREAD = 256, O_PER_CORE, O_PER_DIE, O_PER_SOCKET, O_PER_NODE,
	O_FILTER, O_INTERVAL_COUNT, O_INTERVAL_CLEAR, O_TIMEOUT, O_TABLE,
	O_APPEND, O_LOG_FD, O_PRE, O_POST, O_QUIET, O_METRIC_ONLY, O_SUMMARY,
	O_NO_CSV_SUMMARY, O_ALL_USER, O_ALL_KERNEL, O_SCALE, O_NO_SCALE,
	O_NO_MERGE, O_HYBRID_MERGE, O_METRIC_NO_GROUP, O_METRIC_NO_MERGE,
	O_TOPDOWN, O_TD_LEVEL, O_SMI_COST, O_IOSTAT, O_CPUTYPE, O_CONTROL,
	O_FOR_EACH_CGROUP, O_PERCORE_SHOW_THREAD, O_NO_BIG_NUM,
};

static const struct option long_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, O_FILTER },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "no-aggr", no_argument, NULL, 'A' },
	{ "per-thread", no_argument, NULL, O_PER_THREAD },
	{ "per-core", no_argument, NULL, O_PER_CORE },
	{ "per-die", no_argument, NULL, O_PER_DIE },
	{ "per-socket", no_argument, NULL, O_PER_SOCKET },
	{ "per-node", no_argument, NULL, O_PER_NODE },
	{ "detailed", no_argument, NULL, 'd' },
	{ "null", no_argument, NULL, 'n' },
	{ "group", no_argument, NULL, 'g' },
	{ "sync", no_argument, NULL, 'S' },
	{ "transaction", no_argument, NULL, 'T' },
	{ "metrics", required_argument, NULL, 'M' },
	{ "interval-print", required_argument, NULL, 'I' },
	{ "interval-count", required_argument, NULL, O_INTERVAL_COUNT },
	{ "interval-clear", no_argument, NULL, O_INTERVAL_CLEAR },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "repeat", required_argument, NULL, 'r' },
	{ "table", no_argument, NULL, O_TABLE },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "json-output", no_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "append", no_argument, NULL, O_APPEND },
	{ "log-fd", required_argument, NULL, O_LOG_FD },
	{ "pre", required_argument, NULL, O_PRE },
	{ "post", required_argument, NULL, O_POST },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "metric-only", no_argument, NULL, O_METRIC_ONLY },
	{ "metric-no-group", no_argument, NULL, O_METRIC_NO_GROUP },
	{ "metric-no-merge", no_argument, NULL, O_METRIC_NO_MERGE },
	{ "summary", no_argument, NULL, O_SUMMARY },
	{ "no-csv-summary", no_argument, NULL, O_NO_CSV_SUMMARY },
	{ "all-user", no_argument, NULL, O_ALL_USER },
	{ "all-kernel", no_argument, NULL, O_ALL_KERNEL },
	{ "scale", no_argument, NULL, O_SCALE },
	{ "no-scale", no_argument, NULL, O_NO_SCALE },
	{ "no-merge", no_argument, NULL, O_NO_MERGE },
	{ "hybrid-merge", no_argument, NULL, O_HYBRID_MERGE },
	{ "topdown", no_argument, NULL, O_TOPDOWN },
	{ "td-level", required_argument, NULL, O_TD_LEVEL },
	{ "smi-cost", no_argument, NULL, O_SMI_COST },
	{ "iostat", optional_argument, NULL, O_IOSTAT },
	{ "cputype", required_argument, NULL, O_CPUTYPE },
	{ "control", required_argument, NULL, O_CONTROL },
	{ "for-each-cgroup", required_argument, NULL, O_FOR_EACH_CGROUP },
	{ "percore-show-thread", no_argument, NULL, O_PERCORE_SHOW_THREAD },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "delay", required_argument, NULL, 'D' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "big-num", no_argument, NULL, 'B' },
	{ "no-big-num", no_argument, NULL, O_NO_BIG_NUM },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_int(const char *opt, const char *s, int min, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > 1000000000) {
		cli_error("stat", "option %s: invalid number '%s'", opt, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* Options perf 6.1 refuses on this machine's kind of CPU (no PMU, not
 * hybrid, no uncore IIO), with its message. -1 when refused. */
static int refuse_hw_option(int o, const char *arg)
{
	switch (o) {
	case 'T':
		fputs("Cannot set up transaction events\n", stderr);
		return -1;
	case O_TOPDOWN:
		fputs("top down event configuration requires system-wide mode (-a)\n",
		      stderr);
		return -1;
	case O_SMI_COST:
		fputs("freeze_on_smi is not supported.\n", stderr);
		return -1;
	case O_IOSTAT:
		fputs("Unsupported uncore pmu configuration\n", stderr);
		opt_usage(true, "iostat");
		return -1;
	case O_CPUTYPE:
		fprintf(stderr, "--cputype %s is not supported!\n", arg);
		opt_usage(true, "cputype");
		return -1;
	default:
		return 0;
	}
}

static int set_aggr(struct stat_cfg *c, enum aggr_mode m)
{
	c->aggr = m;
	return 0;
}

/* One option; -1 when it is invalid (reported). */
static int parse_one(struct stat_cfg *c, int o)
{
	switch (o) {
	case 'e': c->events[c->nr_events++] = optarg; return 0;
	case O_FILTER:
		if (!c->nr_events) {
			fputs("--filter option should follow a -e tracepoint or HW tracer option\n",
			      stderr);
			return -1;
		}
		c->filters[c->nr_events - 1] = optarg;
		return 0;
	case 'p': c->pids = optarg; return 0;
	case 't': c->tids = optarg; return 0;
	case 'a': c->system_wide = true; return 0;
	case 'C': c->cpu_list = optarg; return 0;
	case 'A': case O_NO_MERGE: return set_aggr(c, AGGR_CPU);
	case O_PER_THREAD: return set_aggr(c, AGGR_THREAD);
	case O_PER_CORE: return set_aggr(c, AGGR_CORE);
	case O_PER_DIE: return set_aggr(c, AGGR_DIE);
	case O_PER_SOCKET: return set_aggr(c, AGGR_SOCKET);
	case O_PER_NODE: return set_aggr(c, AGGR_NODE);
	case 'd': c->detailed++; return 0;
	case 'n': c->null_run = true; return 0;
	case 'g': c->group = true; return 0;
	case 'S': c->sync = true; return 0;
	case 'M': c->metrics = optarg; return 0;
	case 'I': return parse_int("-I", optarg, 1, &c->interval_ms);
	case O_INTERVAL_COUNT:
		return parse_int("--interval-count", optarg, 0, &c->interval_count);
	case O_INTERVAL_CLEAR: c->interval_clear = true; return 0;
	case O_TIMEOUT: return parse_int("--timeout", optarg, 0, &c->timeout_ms);
	case 'r': c->repeat_set = true;
		  return parse_int("-r", optarg, 0, &c->repeat);
	case O_TABLE: c->table = true; return 0;
	case 'x': c->sep = strcmp(optarg, "\\t") ? optarg : "\t"; return 0;
	case 'j': c->json = true; return 0;
	case 'o': c->output = optarg; return 0;
	case O_APPEND: c->append = true; return 0;
	case O_LOG_FD: return parse_int("--log-fd", optarg, -1000000, &c->log_fd);
	case O_PRE: c->pre = optarg; return 0;
	case O_POST: c->post = optarg; return 0;
	case O_QUIET: c->quiet = true; return 0;
	case O_METRIC_ONLY: c->metric_only = true; return 0;
	case O_SUMMARY: c->summary = true; return 0;
	case O_NO_CSV_SUMMARY: c->no_csv_summary = true; return 0;
	case O_ALL_USER: c->all_user = true; return 0;
	case O_ALL_KERNEL: c->all_kernel = true; return 0;
	case O_SCALE: c->no_scale = false; return 0;
	case O_NO_SCALE: c->no_scale = true; return 0;
	case O_TD_LEVEL: return parse_int("--td-level", optarg, 0, &c->td_level);
	case O_HYBRID_MERGE: case O_METRIC_NO_GROUP: case O_METRIC_NO_MERGE:
	case O_PERCORE_SHOW_THREAD:
		return 0; /* nothing to merge or group without PMU metrics */
	case O_CONTROL: c->control = optarg; return 0;
	case O_FOR_EACH_CGROUP: c->cgroup_list = optarg; return 0;
	case 'i': c->no_inherit = true; return 0;
	case 'G': c->cgroup = optarg; return 0;
	case 'D': return parse_int("-D", optarg, -1, &c->delay_ms);
	case 'v': c->verbose++; return 0;
	case 'B': c->big = 1; return 0;
	case O_NO_BIG_NUM: c->big = 0; return 0;
	case 'h': usage(stdout); exit(0);
	default:
		if (refuse_hw_option(o, optarg))
			return -1;
		usage(stderr);
		return -1;
	}
}

/* The combinations perf refuses, in perf's order and words. */
static int check_combinations(struct stat_cfg *c)
{
	if (c->output && c->log_fd) {
		fputs("cannot use both --output and --log-fd\n", stderr);
		opt_usage(true, "o log-fd");
		return -1;
	}
	if (c->metric_only && c->aggr == AGGR_THREAD) {
		fputs("--metric-only is not supported with --per-thread\n", stderr);
		return -1;
	}
	if (c->metric_only && c->repeat > 1) {
		fputs("--metric-only is not supported with -r\n", stderr);
		return -1;
	}
	if (c->table && c->repeat <= 1) {
		fputs("--table is only supported with -r\n", stderr);
		opt_usage(true, "r table");
		return -1;
	}
	if (c->log_fd < 0) {
		fputs("argument to --log-fd must be a > 0\n", stderr);
		opt_usage(true, "log-fd");
		return -1;
	}
	if (c->interval_clear && !c->output && !c->log_fd && !isatty(2)) {
		fputs("--interval-clear does not work with output\n", stderr);
		opt_usage(true, "o log-fd interval-clear");
		return -1;
	}
	if (c->sep && c->big == 1) {
		fputs("-B option not supported with -x\n", stderr);
		opt_usage(true, "B x");
		return -1;
	}
	if (c->aggr == AGGR_THREAD && !c->pids && !c->tids &&
	    (!c->system_wide || c->cpu_list)) {
		fputs("The --per-thread option is only available when monitoring "
		      "via -p -t -a options or only --per-thread.\n", stderr);
		opt_usage(false, "p t");
		return -1;
	}
	if (((c->aggr != AGGR_GLOBAL && c->aggr != AGGR_THREAD) || c->cgroup ||
	     c->cgroup_list) && !c->system_wide && !c->cpu_list) {
		fputs("both cgroup and no-aggregation modes only available in "
		      "system-wide mode\n", stderr);
		opt_usage(true, "G A a for-each-cgroup");
		return -1;
	}
	if (c->cgroup_list && c->cgroup) {
		fputs("--cgroup and --for-each-cgroup cannot be used together\n",
		      stderr);
		opt_usage(true, "G for-each-cgroup");
		return -1;
	}
	if (c->interval_count && !c->interval_ms) {
		fputs("interval-count option should be used together with "
		      "interval-print.\n", stderr);
		opt_usage(true, "interval-count");
		opt_usage(true, "I");
		return -1;
	}
	if (c->timeout_ms && c->timeout_ms < 10) {
		fputs("timeout must be >= 10ms.\n", stderr);
		opt_usage(true, "timeout");
		return -1;
	}
	if (c->timeout_ms && c->timeout_ms < 100)
		fputs("timeout < 100ms. The overhead percentage could be high in "
		      "some cases. Please proceed with caution.\n", stderr);
	if (c->timeout_ms && c->interval_ms) {
		fputs("timeout option is not supported with interval-print.\n",
		      stderr);
		opt_usage(true, "timeout");
		opt_usage(true, "I");
		return -1;
	}
	return 0;
}

/* perfkit's own limits, where perf would misbehave or cannot be matched. */
static int check_perfkit_limits(struct stat_cfg *c)
{
	if ((c->pids || c->tids) && (c->system_wide || c->cpu_list)) {
		cli_error("stat", "-p/-t cannot be combined with -a/-C");
		return -1;
	}
	if (c->forever && !c->argv) {
		cli_error("stat", "-r 0 needs a command to repeat");
		return -1;
	}
	if (c->repeat > 1 && !c->argv) {
		cli_error("stat", "-r needs a command to repeat");
		return -1;
	}
	if (c->sep && c->json) {
		cli_error("stat", "-x and -j cannot be combined");
		return -1;
	}
	if (c->control) {
		cli_error("stat", "--control '%s': not supported by perfkit",
			  c->control);
		return -1;
	}
	if (c->cgroup_list) {
		cli_error("stat", "--for-each-cgroup '%s': not supported by perfkit",
			  c->cgroup_list);
		return -1;
	}
	return 0;
}

int stat_parse_args(struct stat_cfg *c, int argc, char **argv)
{
	int o;

	optind = 1;
	c->big = -1;
	while ((o = cli_getopt(argc, argv, "+e:p:t:aC:AdngSTM:I:r:x:jo:iG:D:vBh",
				long_opts, NULL)) != -1)
		if (parse_one(c, o))
			return -1;
	if (optind < argc)
		c->argv = argv + optind;
	if (!c->argv && !c->pids && !c->tids && !c->system_wide &&
	    !c->cpu_list) {
		cli_error("stat", "nothing to count: give a command, -p, -t, -a or -C");
		usage(stderr);
		return -1;
	}
	if (c->repeat_set && c->repeat == 0) {
		c->forever = true;
		c->repeat = 1;
	}
	if (!c->repeat)
		c->repeat = 1;
	if (check_combinations(c) || check_perfkit_limits(c))
		return -1;
	if (c->cgroup)
		c->system_wide = c->system_wide || !c->cpu_list;
	return 0;
}
