/* SPDX-License-Identifier: MIT */
/*
 * perfkit record: sample events into a perf.data file that Linux perf
 * reads. The file is usable at every flush, so a killed recorder loses
 * only what was still in the rings.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/synth.h>
#include "cli.h"
#include "record.h"

static volatile sig_atomic_t stop_sig, snapshot_req;

static void on_stop(int sig) { stop_sig = sig; }
static void on_usr2(int sig) { (void)sig; snapshot_req = 1; }
static void on_chld(int sig) { (void)sig; }

static void usage(FILE *f)
{
	fprintf(f,
"usage: perfkit record [options] [-- command [args]]\n"
"  -e, --event EV          event(s) to sample (default: cycles, or cpu-clock\n"
"                          where the CPU has no counters)\n"
"  -F, --freq HZ           sample at HZ (default 4000)\n"
"  -c, --count N           sample every N events\n"
"  -g                      frame-pointer call graphs\n"
"      --call-graph MODE   fp, dwarf[,SIZE] or lbr\n"
"  -a, --all-cpus          every CPU   -C, --cpu CPUS   only these CPUs\n"
"  -p, --pid PIDS          attach      -t, --tid TIDS   attach to threads\n"
"  -o, --output FILE       default perf.data ('-' for a pipe)\n"
"      --kcore             FILE is a directory: FILE/data and a copy of\n"
"                          /proc/kcore's code, kallsyms and modules\n"
"  -m, --mmap-pages N[,A]  ring pages per CPU (power of two), A: AUX area's\n"
"  -S, --snapshot[=[e]SZ]  AUX area snapshots on SIGUSR2 (e: and at the end)\n"
"      --switch-events     record context switches\n"
"      --no-switch-events  no context switches (Intel PT adds them)\n"
"  -d, --data              sample data addresses\n"
"  -i, --no-inherit        children are not sampled\n"
"  -z, --compression-level[=N]  zstd-compress records (default level 1)\n"
"      --filter FILTER     tracepoint filter for the preceding -e\n"
"  -R, --raw-samples       raw tracepoint data in every sample\n"
"      --sample-cpu        record the CPU in samples\n"
"      --overwrite         flight recorder: keep the newest data, dump on\n"
"                          SIGUSR2 and at the end\n"
"  -k, --clockid CLOCK     timestamps from CLOCK (monotonic, monotonic_raw,\n"
"                          realtime, boottime, tai or a number)\n"
"      --namespaces        record namespace information of tasks\n"
"      --all-cgroups       record cgroup ids in samples and CGROUP events\n"
"  -b, -j, --branch-filter LIST  branch stacks (any, any_call, u, k, ...)\n"
"      --group  -n  -P  -W  -s  -T  --phys-data  --data-page-size\n"
"      --code-page-size  --running-time  --sample-identifier  --all-user\n"
"      --all-kernel  --user-callchains  --kernel-callchains  --no-buffering\n"
"  -I, --intr-regs[=REGS]  --user-regs[=REGS]  ('?' lists the registers)\n"
"  -D, --delay MS          start the events MS ms after the command\n"
"      --strict-freq       refuse an -F above the kernel's limit (-F max)\n"
"      --exclude-perf      leave the recorder out of the preceding tracepoint\n"
"  -B, --no-buildid  --buildid-all  --buildid-mmap  --no-bpf-event\n"
"      --max-size SIZE  --timestamp-filename  --dry-run  -r, --realtime PRIO\n"
"  -q, --quiet   -v, --verbose (-vv: every perf_event_attr)\n"
"docs/record-options.md lists every perf record option and its status.\n");
}

enum { OPT_CG = 256, OPT_SWITCH, OPT_FILTER, OPT_SAMPLE_CPU, OPT_OVERWRITE,
       OPT_NS, OPT_CGROUPS, OPT_NO_BPF, OPT_GROUP, OPT_NO_BUF, OPT_USER_REGS,
       OPT_PHYS, OPT_DPAGE, OPT_CPAGE, OPT_UCHAIN, OPT_KCHAIN, OPT_TRANS,
       OPT_STRICT, OPT_RUNTIME, OPT_SAMPLE_ID, OPT_ALL_USER, OPT_ALL_KERNEL,
       OPT_BUILDID_MMAP, OPT_BUILDID_ALL, OPT_MAX_SIZE, OPT_TS_FILE,
       OPT_DRY_RUN, OPT_IGNORED, OPT_REFUSED, OPT_OFF_CPU, OPT_TS_BOUNDARY,
       OPT_SYNTH, OPT_EXCL_PERF, OPT_PER_THREAD, OPT_NO_SWITCH,
       OPT_KCORE, OPT_AUX_SAMPLE };

/* perf record options that change only how perf writes (threads,
 * asynchronous I/O, flush batching) or where it looks for files: the
 * file perfkit writes is the same without them. */
#define IGNORED(name, arg) { name, arg, NULL, OPT_IGNORED }
/* perf record options perfkit does not have: refused, never ignored. */
#define REFUSED(name, arg) { name, arg, NULL, OPT_REFUSED }

static const struct option long_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "call-graph", required_argument, NULL, OPT_CG },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "switch-events", no_argument, NULL, OPT_SWITCH },
	{ "no-switch-events", no_argument, NULL, OPT_NO_SWITCH },
	{ "data", no_argument, NULL, 'd' },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "compression-level", optional_argument, NULL, 'z' },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "raw-samples", no_argument, NULL, 'R' },
	{ "sample-cpu", no_argument, NULL, OPT_SAMPLE_CPU },
	{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
	{ "clockid", required_argument, NULL, 'k' },
	{ "namespaces", no_argument, NULL, OPT_NS },
	{ "all-cgroups", no_argument, NULL, OPT_CGROUPS },
	{ "branch-any", no_argument, NULL, 'b' },
	{ "branch-filter", required_argument, NULL, 'j' },
	{ "no-bpf-event", no_argument, NULL, OPT_NO_BPF },
	{ "group", no_argument, NULL, OPT_GROUP },
	{ "no-samples", no_argument, NULL, 'n' },
	{ "period", no_argument, NULL, 'P' },
	{ "no-buffering", no_argument, NULL, OPT_NO_BUF },
	{ "weight", no_argument, NULL, 'W' },
	{ "intr-regs", optional_argument, NULL, 'I' },
	{ "user-regs", optional_argument, NULL, OPT_USER_REGS },
	{ "phys-data", no_argument, NULL, OPT_PHYS },
	{ "data-page-size", no_argument, NULL, OPT_DPAGE },
	{ "code-page-size", no_argument, NULL, OPT_CPAGE },
	{ "stat", no_argument, NULL, 's' },
	{ "user-callchains", no_argument, NULL, OPT_UCHAIN },
	{ "kernel-callchains", no_argument, NULL, OPT_KCHAIN },
	{ "timestamp", no_argument, NULL, 'T' },
	{ "delay", required_argument, NULL, 'D' },
	{ "transaction", no_argument, NULL, OPT_TRANS },
	{ "strict-freq", no_argument, NULL, OPT_STRICT },
	{ "running-time", no_argument, NULL, OPT_RUNTIME },
	{ "sample-identifier", no_argument, NULL, OPT_SAMPLE_ID },
	{ "all-user", no_argument, NULL, OPT_ALL_USER },
	{ "all-kernel", no_argument, NULL, OPT_ALL_KERNEL },
	{ "no-buildid", no_argument, NULL, 'B' },
	{ "no-buildid-cache", no_argument, NULL, 'N' },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "buildid-all", no_argument, NULL, OPT_BUILDID_ALL },
	{ "buildid-mmap", no_argument, NULL, OPT_BUILDID_MMAP },
	{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
	{ "timestamp-filename", no_argument, NULL, OPT_TS_FILE },
	{ "timestamp-boundary", no_argument, NULL, OPT_TS_BOUNDARY },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "realtime", required_argument, NULL, 'r' },
	{ "off-cpu", no_argument, NULL, OPT_OFF_CPU },
	{ "synth", required_argument, NULL, OPT_SYNTH },
	IGNORED("aio", optional_argument),
	IGNORED("affinity", required_argument),
	IGNORED("mmap-flush", required_argument),
	IGNORED("threads", optional_argument),
	IGNORED("num-thread-synthesize", required_argument),
	IGNORED("proc-map-timeout", required_argument),
	IGNORED("vmlinux", required_argument),
	IGNORED("debuginfod", optional_argument),
	{ "snapshot", optional_argument, NULL, 'S' },
	{ "aux-sample", optional_argument, NULL, OPT_AUX_SAMPLE },
	REFUSED("cgroup", required_argument),
	REFUSED("uid", required_argument),
	REFUSED("control", required_argument),
	{ "kcore", no_argument, NULL, OPT_KCORE },
	REFUSED("switch-output", optional_argument),
	REFUSED("switch-output-event", required_argument),
	REFUSED("switch-max-files", required_argument),
	REFUSED("tail-synthesize", no_argument),
	{ "exclude-perf", no_argument, NULL, OPT_EXCL_PERF },
	REFUSED("clang-path", required_argument),
	REFUSED("clang-opt", required_argument),
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_u64(const char *opt, const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (errno || end == s || *end || !*v) {
		cli_error("record", "option %s: invalid number '%s'", opt, s);
		return -1;
	}
	return 0;
}

static int parse_callgraph(struct rec_cfg *c, const char *s)
{
	if (!strcmp(s, "fp")) {
		c->cg = CG_FP;
	} else if (!strcmp(s, "lbr")) {
		c->cg = CG_LBR;
	} else if (!strncmp(s, "dwarf", 5) && (!s[5] || s[5] == ',')) {
		uint64_t v = 8192;

		c->cg = CG_DWARF;
		if (s[5] && parse_u64("--call-graph", s + 6, &v))
			return -1;
		if (v > 65528) {
			cli_error("record", "--call-graph dwarf: stack size %s is "
				  "larger than 65528", s + 6);
			return -1;
		}
		c->dwarf_size = (unsigned int)((v + 7) & ~7ull);
	} else {
		cli_error("record", "--call-graph: unknown mode '%s' (fp, dwarf[,SIZE], lbr)", s);
		return -1;
	}
	return 0;
}

static int parse_clockid(struct rec_cfg *c, const char *s)
{
	static const struct { const char *name; int id; } clocks[] = {
		{ "monotonic", CLOCK_MONOTONIC }, { "mono", CLOCK_MONOTONIC },
		{ "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "raw", CLOCK_MONOTONIC_RAW },
		{ "realtime", CLOCK_REALTIME }, { "real", CLOCK_REALTIME },
		{ "boottime", CLOCK_BOOTTIME }, { "boot", CLOCK_BOOTTIME },
		{ "tai", CLOCK_TAI },
	};
	char *end;
	long v;

	if (!strncasecmp(s, "CLOCK_", 6))
		s += 6;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcasecmp(s, clocks[i].name)) {
			c->clockid = clocks[i].id;
			return 0;
		}
	v = strtol(s, &end, 0);
	if (end == s || *end || v < 0 || v > 64) {
		cli_error("record", "-k: unknown clock '%s'", s);
		return -1;
	}
	c->clockid = (int)v;
	return 0;
}

/* --filter and --exclude-perf add to the preceding -e's filter, joined
 * as perf joins them: "(old) && (new)". */
static int add_filter(struct rec_cfg *c, const char *opt, const char *f)
{
	char **slot, *n;

	if (!c->nr_events) {
		cli_error("record", "%s must follow an -e event", opt);
		return -1;
	}
	slot = (char **)&c->filters[c->nr_events - 1];
	if (*slot ? asprintf(&n, "(%s) && (%s)", *slot, f) < 0 : !(n = strdup(f))) {
		cli_error("record", "%s: out of memory", opt);
		return -1;
	}
	free(*slot);
	*slot = n;
	return 0;
}

static int exclude_perf(struct rec_cfg *c)
{
	char f[48];

	snprintf(f, sizeof(f), "common_pid != %d", (int)getpid());
	if (c->nr_events)
		c->excl_perf[c->nr_events - 1] = true;
	return add_filter(c, "--exclude-perf", f);
}

static void free_filters(struct rec_cfg *c)
{
	for (int i = 0; c->filters && i < c->nr_events; i++)
		free((char *)c->filters[i]);
	free(c->filters);
	free(c->excl_perf);
}

static int refuse(const char *opt)
{
	cli_error("record", "option %s is not supported by perfkit record", opt);
	return -1;
}

/* The options beyond the first set: attr bits, build ids, output. */
static int parse_opt2(struct rec_cfg *c, int o, const char *name)
{
	switch (o) {
	case 'b': c->branch_mode = PERF_SAMPLE_BRANCH_ANY; return 0;
	case 'j': return rec_parse_branch(c, optarg);
	case OPT_NO_BPF: c->no_bpf_event = true; return 0;
	case OPT_GROUP: c->group = true; return 0;
	case 'n': c->no_samples = true; return 0;
	case 'P': c->sample_period_bit = true; return 0;
	case OPT_NO_BUF: c->no_buffering = true; return 0;
	case 'W': c->weight = true; return 0;
	case 'I': return rec_parse_regs("--intr-regs", optarg, &c->intr_regs);
	case OPT_USER_REGS: return rec_parse_regs("--user-regs", optarg, &c->user_regs);
	case OPT_PHYS: c->phys_data = true; return 0;
	case OPT_DPAGE: c->data_page_size = true; return 0;
	case OPT_CPAGE: c->code_page_size = true; return 0;
	case 's': c->inherit_stat = true; return 0;
	case OPT_UCHAIN: c->user_callchains = true; return 0;
	case OPT_KCHAIN: c->kernel_callchains = true; return 0;
	case 'T': return 0;         /* TIME is always sampled */
	case OPT_TRANS: return 0;   /* perf 6.1 sets no bit for it either */
	case 'D': return rec_parse_delay(c, optarg);
	case OPT_STRICT: c->strict_freq = true; return 0;
	case OPT_RUNTIME: c->running_time = true; return 0;
	case OPT_SAMPLE_ID: c->sample_identifier = true; return 0;
	case OPT_ALL_USER: c->all_user = true; return 0;
	case OPT_ALL_KERNEL: c->all_kernel = true; return 0;
	case 'B': c->no_buildid = true; return 0;
	case 'N': c->no_buildid_cache = true; return 0;
	case OPT_BUILDID_ALL: c->buildid_all = true; return 0;
	case OPT_BUILDID_MMAP: c->buildid_mmap = true; return 0;
	case OPT_MAX_SIZE: return rec_parse_size("--max-size", optarg, &c->max_size);
	case OPT_TS_FILE: c->timestamp_filename = true; return 0;
	case OPT_TS_BOUNDARY: return 0; /* SAMPLE_TIME is always written */
	case OPT_DRY_RUN: c->dry_run = true; return 0;
	case 'r': {
		uint64_t v;

		if (parse_u64("-r", optarg, &v) || v > 99) {
			cli_error("record", "-r: priority must be 1..99");
			return -1;
		}
		c->rt_prio = (int)v;
		return 0;
	}
	case OPT_OFF_CPU:
		if (!c->quiet)
			fprintf(stderr, " Warning: option `off-cpu' is being "
				"ignored: perfkit has no BPF off-CPU profiler\n");
		return 0;
	case OPT_SYNTH:
		return strcmp(optarg, "all") ? refuse("--synth (other than all)") : 0;
	case OPT_EXCL_PERF: return exclude_perf(c);
	case OPT_PER_THREAD: c->per_thread = true; return 0;
	case OPT_KCORE: c->kcore = true; return 0;
	case OPT_IGNORED: return 0;
	case OPT_REFUSED: return refuse(name);
	case 'S': return rec_parse_snapshot(c, optarg);
	case OPT_AUX_SAMPLE: c->aux_sample = optarg ? optarg : ""; return 0;
	case 'G': return refuse("-G/--cgroup");
	case 'u': return refuse("-u/--uid");
	case 'h': usage(stdout); exit(0);
	default: usage(stderr); return -1;
	}
}

static int parse_opt(struct rec_cfg *c, int o, const char *name)
{
	switch (o) {
	case 'e': c->events[c->nr_events++] = optarg; return 0;
	case 'F':
		c->freq_arg = optarg;
		c->freq_set = true;
		return strcmp(optarg, "max") ? parse_u64("-F", optarg, &c->freq) : 0;
	case 'c':
		if (parse_u64("-c", optarg, &c->period))
			return -1;
		c->period_set = true;
		return 0;
	case 'g': c->cg = CG_FP; return 0;
	case OPT_CG: return parse_callgraph(c, optarg);
	case 'a': c->system_wide = true; return 0;
	case 'C': c->cpu_list = optarg; return 0;
	case 'p': c->pids = optarg; return 0;
	case 't': c->tids = optarg; return 0;
	case 'o': c->output = optarg; return 0;
	case 'm': return rec_parse_mmap_pages(c, optarg);
	case OPT_SWITCH: c->switch_events = true; return 0;
	case OPT_NO_SWITCH:
		c->switch_events = false;
		c->no_switch_events = true;
		return 0;
	case 'd': c->data_addr = true; return 0;
	case 'i': c->no_inherit = true; return 0;
	case 'z':
		c->comp_level = optarg ? atoi(optarg) : 1;
		if (c->comp_level < 1 || c->comp_level > 22) {
			cli_error("record", "-z: level must be 1..22");
			return -1;
		}
		return 0;
	case OPT_FILTER:
		return add_filter(c, "--filter", optarg);
	case 'R': c->raw = true; return 0;
	case OPT_SAMPLE_CPU: c->sample_cpu = true; return 0;
	case OPT_OVERWRITE: c->overwrite = true; return 0;
	case 'k': return parse_clockid(c, optarg);
	case OPT_NS: c->namespaces = true; return 0;
	case OPT_CGROUPS: c->all_cgroups = true; return 0;
	case 'q': c->quiet = true; return 0;
	case 'v': c->verbose++; return 0;
	default: return parse_opt2(c, o, name);
	}
}

static int parse_args(struct rec_cfg *c, int argc, char **argv)
{
	int o, li = -1;
	char name[64];

	optind = 1;
	while ((o = cli_getopt(argc, argv, "+e:F:c:gaC:p:t:o:m:diz::Rk:qvhbj:nPWI::sTD:BNr:S::G:u:",
				long_opts, &li)) != -1) {
		snprintf(name, sizeof(name), "--%s", li >= 0 ? long_opts[li].name : "?");
		if (parse_opt(c, o, name))
			return -1;
		li = -1;
	}
	if (optind < argc)
		c->argv = argv + optind;
	if (!c->argv && !c->pids && !c->tids && !c->system_wide && !c->cpu_list) {
		cli_error("record", "nothing to record: give a command, -p, -t, -a or -C");
		usage(stderr);
		return -1;
	}
	if ((c->pids || c->tids) && (c->system_wide || c->cpu_list)) {
		cli_error("record", "-p/-t cannot be combined with -a/-C");
		return -1;
	}
	if (c->freq_set && c->period_set) {
		cli_error("record", "-F and -c cannot be combined");
		return -1;
	}
	if (!c->output)
		c->output = "perf.data";
	c->mmap_set = c->mmap_pages != 0;
	if (!c->mmap_pages)
		c->mmap_pages = 128;
	if (!c->freq_set)
		c->freq = 4000;
	return rec_resolve_freq(c);
}

/* perf's targets: CPUs (-a, -C), existing tasks (-p, -t), or neither:
 * then perfkit runs the command and follows it alone from its exec. */
static bool has_cpu(const struct rec_cfg *c)
{
	return c->system_wide || c->cpu_list;
}

static bool has_task(const struct rec_cfg *c)
{
	return c->pids || c->tids;
}

static bool target_none(const struct rec_cfg *c)
{
	return !has_cpu(c) && !has_task(c);
}

/* --per-thread without CPUs: every fd on CPU -1, which rules out
 * inheritance (perf turns it off for such a map). */
static bool any_cpu_map(const struct rec_cfg *c)
{
	return c->per_thread && !has_cpu(c);
}

static bool is_tracepoint(struct pk_evsel *e)
{
	return pk_evsel_attr(e)->type == PERF_TYPE_TRACEPOINT;
}

/* The sample settings every sampled event gets, as perf record sets them. */
static void config_sampling(const struct rec_cfg *c, struct perf_event_attr *a,
			    bool tracepoint)
{
	a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	/* perf leaves TIME out when nothing is inherited and nothing is per CPU */
	if (!any_cpu_map(c))
		a->sample_type |= PERF_SAMPLE_TIME;
	if (a->sample_period && !a->freq) {
		/* a period term in the event string wins */
	} else if (c->period_set) {
		a->sample_period = c->period;
		a->freq = 0;
	} else if (tracepoint && !c->freq_set) {
		a->sample_period = 1;
		a->freq = 0;
		a->sample_type |= PERF_SAMPLE_PERIOD;
	} else {
		a->freq = 1;
		a->sample_freq = c->freq;
		a->sample_type |= PERF_SAMPLE_PERIOD;
	}
	if (tracepoint || c->raw)
		a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_CPU;
	if (has_cpu(c) || c->sample_cpu)
		a->sample_type |= PERF_SAMPLE_CPU;
	if (c->data_addr)
		a->sample_type |= PERF_SAMPLE_ADDR;
	switch (c->cg) {
	case CG_FP:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		break;
	case CG_DWARF:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER | PERF_SAMPLE_ADDR |
				  PERF_SAMPLE_DATA_SRC;
		/* x86-64: every GPR, ip, sp; with --user-regs only sp and ip
		 * here (the unwinder's minimum), the rest from the option */
		a->sample_regs_user = c->user_regs ? 0x180 : 0xff0fff;
		a->sample_stack_user = c->dwarf_size ? c->dwarf_size : 8192;
		a->exclude_callchain_user = 1;
		break;
	case CG_LBR:
		a->sample_type |= PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER |
					PERF_SAMPLE_BRANCH_CALL_STACK |
					PERF_SAMPLE_BRANCH_NO_CYCLES |
					PERF_SAMPLE_BRANCH_NO_FLAGS |
					PERF_SAMPLE_BRANCH_HW_INDEX;
		break;
	default:
		break;
	}
}

/* Side-band tracking: the one event that reports mmaps, comms, tasks. */
static void config_tracking(const struct rec_cfg *c, struct perf_event_attr *a)
{
	a->mmap = 1;
	a->comm = 1;
	a->task = 1;
	a->mmap2 = pk_feature_has(PK_FEAT_MMAP2);
	a->comm_exec = pk_feature_has(PK_FEAT_COMM_EXEC);
	a->ksymbol = pk_feature_has(PK_FEAT_KSYMBOL);
	a->bpf_event = pk_feature_has(PK_FEAT_BPF_EVENT) && !c->no_bpf_event;
	a->context_switch = c->switch_events;
	a->mmap_data = c->data_addr || c->cg == CG_DWARF;
	a->namespaces = c->namespaces;
	a->cgroup = c->all_cgroups;
}

/* Events wait for the command's exec only when it is the target (group
 * members follow their leader: record_attr.c). */
static void config_common(const struct rec_cfg *c, struct perf_event_attr *a)
{
	a->read_format = PERF_FORMAT_ID |
			 (pk_feature_has(PK_FEAT_READ_LOST) ? PERF_FORMAT_LOST : 0);
	a->disabled = 1;
	/* -t follows just the threads named (perf turns inheritance off) */
	a->inherit = !c->no_inherit && !any_cpu_map(c) && !c->tids;
	a->enable_on_exec = c->argv && target_none(c);
	a->sample_id_all = 1;
	a->write_backward = c->overwrite;
	if (c->clockid >= 0) {
		a->use_clockid = 1;
		a->clockid = c->clockid;
	}
	if (c->all_cgroups)
		a->sample_type |= PERF_SAMPLE_CGROUP;
}

static int add_tracking_dummy(struct rec *r)
{
	struct perf_event_attr a;
	int idx;

	rec_dummy_attr(&a);
	a.exclude_guest = pk_feature_has(PK_FEAT_EXCLUDE_GUEST);
	idx = pk_evlist_add(r->evlist, &a, "dummy:HG");
	return idx;
}

/* Events [FROM, TO) get FILTER (--filter applies to the -e before it). */
static int grow_filters(struct rec *r, int to, const char *filter, int from)
{
	const char **f = realloc(r->ev_filter, (size_t)to * sizeof(*f));

	if (!f)
		return -1;
	for (int j = r->nr_ev_filter; j < to; j++)
		f[j] = NULL;
	for (int j = from; j < to; j++)
		f[j] = filter;
	r->ev_filter = f;
	if (to > r->nr_ev_filter)
		r->nr_ev_filter = to;
	return 0;
}

/* perf's default event counts user space alone, named cycles:u, when
 * this process may not count in the kernel (no fallback warning then). */
static void default_user_only(struct rec *r)
{
	struct pk_evsel *e = pk_evlist_evsel(r->evlist, 0);

	pk_evsel_attr(e)->exclude_kernel = 1;
	pk_evsel_set_name(e, "cycles:u");
}

static int build_events(struct rec *r)
{
	struct rec_cfg *c = r->cfg;
	struct pk_parse_error pe;
	int n, first;

	r->evlist = pk_evlist_new();
	if (!r->evlist)
		return -ENOMEM;
	for (int i = 0; i < (c->nr_events ? c->nr_events : 1); i++) {
		const char *s = c->nr_events ? c->events[i] : "cycles:P";

		memset(&pe, 0, sizeof(pe));
		pe.pos = -1;
		first = pk_evlist_nr(r->evlist);
		n = !c->nr_events ? (pk_evlist_add_default(r->evlist) < 0 ?
				     -ENOMEM : 1)
				  : pk_evlist_parse(r->evlist, s, &pe);
		if (n < 0) {
			cli_error("record", "invalid event '%s': %s", s,
				  pe.msg[0] ? pe.msg : pk_strerror(n));
			if (pe.pos >= 0)
				fprintf(stderr, "    %s\n    %*s^\n", s, pe.pos, "");
			cli_event_hint("record", &pe);
			return n;
		}
		if (!c->nr_events && !pk_can_profile_kernel())
			default_user_only(r);
		if (c->nr_events && c->excl_perf[i] &&
		    !is_tracepoint(pk_evlist_evsel(r->evlist, first))) {
			cli_error("record", "--exclude-perf must follow a "
				  "tracepoint -e (not '%s')", s);
			return -EINVAL;
		}
		if (c->nr_events && c->filters[i] &&
		    grow_filters(r, first + n, c->filters[i], first))
			return -ENOMEM;
	}
	n = pk_evlist_nr(r->evlist);
	if (c->group && n > 1 && pk_evlist_group(r->evlist, 0, n)) {
		cli_error("record", "--group: the events are already in groups");
		return -EINVAL;
	}
	/* perf 6.1 adds a tracking dummy for -D and CPU-wide targets, so
	 * side-band is seen from the start whatever the events do. */
	r->tracking = 0;
	n = rec_pt_setup(r);
	if (n)
		return n;
	if (r->pt < 0 && (c->delay_ms > 0 || has_cpu(c))) {
		int err = add_tracking_dummy(r);

		if (err < 0)
			return err;
		r->tracking = err;
		r->has_dummy = true;
	}
	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i);
		struct perf_event_attr *a = pk_evsel_attr(e);

		config_sampling(c, a, is_tracepoint(e));
		config_common(c, a);
		if (i == r->tracking)
			config_tracking(c, a);
	}
	rec_config_options(r);
	rec_pt_config(r);
	return 0;
}

static int make_maps(struct rec *r)
{
	struct rec_cfg *c = r->cfg;

	r->cpus = any_cpu_map(c) ? pk_cpu_map_new_any() : pk_cpu_map_new(c->cpu_list);
	if (!r->cpus) {
		cli_error("record", "invalid CPU list '%s'", c->cpu_list);
		return -1;
	}
	if (c->pids)
		r->threads = pk_thread_map_new_pids(c->pids);
	else if (c->tids)
		r->threads = pk_thread_map_new_tids(c->tids);
	else if (c->argv && !has_cpu(c))
		r->threads = pk_thread_map_new_array(1, &r->wl.pid);
	else
		r->threads = pk_thread_map_new_any();
	if (!r->threads) {
		cli_error("record", "%s '%s': %s", c->pids ? "pid" : "tid",
			  c->pids ? c->pids : c->tids ? c->tids : "",
			  errno == ESRCH ? "no such process" : strerror(errno));
		return -1;
	}
	return 0;
}

/* Event I's CPUs as perf's map propagation gives them: every CPU for the
 * immediate dummies, the PMU's own (cpumask) CPUs unless -C names CPUs,
 * else the target's. */
static struct pk_cpu_map *event_cpus(struct rec *r, int i)
{
	struct pk_cpu_map *own = pk_evsel_own_cpus(pk_evlist_evsel(r->evlist, i));

	if (r->sys_wide & (1ULL << i))
		return r->all_cpus;
	return own && !r->cfg->cpu_list ? own : r->cpus;
}

/* Each event as perf opens it: a :P event walks precise_ip down, cycles
 * fall back to cpu-clock, kernel counting to user space at paranoid 2;
 * -vv shows every try (cli/open_trace.c). */
static int open_events(struct rec *r)
{
	if (r->sys_wide) {
		r->any_threads = pk_thread_map_new_any();
		r->all_cpus = pk_cpu_map_new(NULL);
		if (!r->any_threads || !r->all_cpus)
			return -ENOMEM;
	}
	if (rec_addr_filters(r))
		return -EINVAL;
	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i);
		bool sw = r->sys_wide & (1ULL << i);
		int err = cli_open_sampling(i == r->pt ? NULL : "record", e,
					    event_cpus(r, i),
					    sw ? r->any_threads : r->threads,
					    r->cfg->verbose);

		if (err && i == r->pt && !rec_pt_open_error(r, i, err))
			cli_error("record", "cannot open '%s': %s",
				  pk_evsel_name(e), pk_strerror(err));
		if (err)
			return err;
		if (i < r->nr_ev_filter && r->ev_filter[i]) {
			err = pk_evsel_set_filter(e, r->ev_filter[i]);
			if (err) {
				cli_error("record", "filter '%s' for '%s': %s",
					  r->ev_filter[i], pk_evsel_name(e),
					  err == -EINVAL ? "the kernel rejected it" :
					  pk_strerror(err));
				return err;
			}
		}
	}
	return rec_open_bpf_sideband(r);
}

/* Adds every event's attr with the ids of all its fds (on its own maps:
 * perf's immediate dummies are on every CPU, whatever the target). */
static int add_attrs(struct rec *r)
{
	int err = 0;

	for (int i = 0; !err && i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i);
		int nc = pk_cpu_map_nr(pk_evsel_cpus(e));
		int nt = pk_thread_map_nr(pk_evsel_threads(e)), n = 0;
		uint64_t *ids = calloc((size_t)(nc * nt) + 1, sizeof(*ids));

		if (!ids)
			return -ENOMEM;
		for (int ci = 0; ci < nc; ci++)
			for (int ti = 0; ti < nt; ti++)
				if (!pk_evsel_id(e, ci, ti, &ids[n]))
					n++;
		err = pk_pdwriter_add_attr(r->w, pk_evsel_attr(e), ids,
					   (unsigned)n, pk_evsel_name(e));
		err = err < 0 ? err : 0;
		free(ids);
	}
	return err;
}

static int synth_cb_plain(const struct perf_event_header *h, void *arg)
{
	return rec_write(arg, h);
}

static size_t id_hdr_size(const struct perf_event_attr *a)
{
	uint64_t bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
			PERF_SAMPLE_IDENTIFIER;

	return 8 * (size_t)__builtin_popcountll(a->sample_type & bits);
}

/* Tracepoint formats, so readers can decode the raw payloads. */
static int add_tracing_data(struct rec *r)
{
	void *data;
	long n;
	int err, any = 0;

	for (int i = 0; i < pk_evlist_nr(r->evlist); i++)
		any |= is_tracepoint(pk_evlist_evsel(r->evlist, i));
	if (!any)
		return 0;
	n = pk_tracing_data_build(r->evlist, &data);
	if (n < 0)
		return (int)n;
	err = pk_pdwriter_feat_raw(r->w, PK_HEADER_TRACING_DATA, data, (size_t)n);
	free(data);
	return err;
}

static int synth_cb(const struct perf_event_header *h, void *arg)
{
	struct rec *r = arg;
	int err = rec_write(r, h);

	/* --namespaces: each process's namespaces after its first COMM */
	if (!err && r->cfg->namespaces && h->type == PERF_RECORD_COMM) {
		const uint32_t *u = (const uint32_t *)(h + 1);
		PK_OPTS(pk_synth_opts, o, .id_hdr_size = r->id_hdr);

		if (u[0] == u[1])
			err = pk_synth_namespaces((pid_t)u[0], synth_cb_plain, r, &o);
		if (err == -ESRCH)
			err = 0;
	}
	return err;
}

/*
 * What existed before the recording, in perf's order: CPU-wide, every
 * process (FORK then COMM per thread, then its mappings); otherwise a COMM
 * per followed thread and its process's mappings, plus each process whose
 * leader is not followed itself. A forked command is still perfkit until
 * it execs: its COMM alone, after the rest with -a, -C, -p or -t too
 * (perf writes no mappings for it either; left
 * in, they make perf's DWARF unwinder take the old image's lowest mapping
 * of a shared library as its base and stop).
 */
static int synth_tasks(struct rec *r, struct pk_synth_opts *o)
{
	int nr = pk_thread_map_nr(r->threads);
	pid_t *tids = calloc((size_t)nr, sizeof(*tids));
	int err;

	if (!tids)
		return -ENOMEM;
	for (int i = 0; i < nr; i++)
		tids[i] = pk_thread_map_tid(r->threads, i);
	err = pk_synth_threads(nr, tids, synth_cb, r, o);
	free(tids);
	return err;
}

/* perf writes the kernel's mapping unless no event counts the kernel */
static bool all_exclude_kernel(struct rec *r)
{
	for (int i = 0; i < pk_evlist_nr(r->evlist); i++)
		if (!pk_evsel_attr(pk_evlist_evsel(r->evlist, i))->exclude_kernel)
			return false;
	return true;
}

/* perf's loaded BPF programs, after the maps; their infos and BTF go to
 * the header (none in a pipe: its features went out first) */
static int synth_bpf(struct rec *r, struct pk_synth_opts *o)
{
	int err;

	r->bpf = pk_bpf_progs_new();
	if (!r->bpf)
		return -ENOMEM;
	o->no_bpf_event = r->cfg->no_bpf_event;
	err = pk_synth_bpf(r->bpf, synth_cb_plain, r, o);
	o->no_bpf_event = false;
	return err;
}

static int synthesize(struct rec *r)
{
	PK_OPTS(pk_synth_opts, o, .id_hdr_size = id_hdr_size(
			pk_evsel_attr(pk_evlist_evsel(r->evlist, r->tracking))),
		.data_mmaps = r->cfg->data_addr);

	r->id_hdr = o.id_hdr_size;
	struct rec_cfg *c = r->cfg;
	int err = all_exclude_kernel(r) ? 0 : pk_synth_kernel(synth_cb, r, &o);

	if (!err)
		err = rec_event_updates(r);
	if (!err)
		err = rec_maps(r);
	if (!err)
		err = synth_bpf(r, &o);
	if (!err && c->all_cgroups)
		err = pk_synth_cgroups(synth_cb, r, &o);
	if (err)
		return err;
	if (has_cpu(c))
		err = pk_synth_all_processes(synth_cb, r, &o);
	else if (has_task(c))
		err = synth_tasks(r, &o);
	if (err || !c->argv)
		return err;
	/* perf's COMM of the forked command last, whatever the target */
	o.no_maps = true;
	return pk_synth_threads(1, &r->wl.pid, synth_cb, r, &o);
}

static int open_output(struct rec *r)
{
	PK_OPTS(pk_pdwriter_opts, o, .pipe = false);
	const char *path = r->cfg->output;
	char data[4352];
	struct stat st;

	if (!strcmp(path, "-")) {
		r->pipe = true;
		o.pipe = true;
		r->w = pk_pdwriter_open_fd(STDOUT_FILENO, &o);
	} else if (r->cfg->kcore) {
		if (rec_kcore_output(r, data, sizeof(data)))
			return -1;
		r->w = pk_pdwriter_open(data, &o);
	} else {
		if (!stat(path, &st) && st.st_size > 0) {
			char old[4096];

			snprintf(old, sizeof(old), "%s.old", path);
			rename(path, old);
		}
		r->w = pk_pdwriter_open(path, &o);
	}
	if (!r->w) {
		cli_error("record", "cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* -z: the ring's size, perf's mmap_len in HEADER_COMPRESSED */
static uint32_t comp_mmap_len(struct rec *r)
{
	return (uint32_t)((r->cfg->mmap_pages + 1) *
			  (size_t)sysconf(_SC_PAGESIZE));
}

/* -z: perf compresses what it reads from the rings; the records it
 * synthesized up to FINISHED_INIT stay plain. */
static int start_compression(struct rec *r)
{
	int err;

	if (!r->cfg->comp_level)
		return 0;
	err = pk_pdwriter_set_compression(r->w, r->cfg->comp_level,
					  comp_mmap_len(r));
	if (err)
		cli_error("record", "-z: zstd level %d refused", r->cfg->comp_level);
	return err;
}

static bool child_exited(struct rec *r, int *status)
{
	if (r->wl.pid <= 0 || waitpid(r->wl.pid, status, WNOHANG) != r->wl.pid)
		return false;
	r->wl.pid = -1;
	return true;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* -D: the events start DELAY ms after the command did; until then only
 * the tracking dummy runs. Returns the poll timeout to use. */
static int delay_step(struct rec *r, uint64_t start, bool *pending)
{
	uint64_t t = now_ms(), due = start + (uint64_t)r->cfg->delay_ms;

	if (!*pending)
		return 100;
	if (t < due)
		return due - t < 100 ? (int)(due - t) : 100;
	*pending = false;
	pk_evlist_enable(r->evlist);
	if (!r->cfg->quiet)
		fprintf(stderr, "Events enabled\n");
	return 100;
}

/* Enables what runs from the start: everything, or under -D only the
 * tracking dummy (the events wait for delay_step). */
static void start_events(struct rec *r)
{
	if (r->cfg->delay_ms <= 0) {
		pk_evlist_enable(r->evlist);
		return;
	}
	pk_evsel_enable(pk_evlist_evsel(r->evlist, r->tracking), false);
	if (!r->cfg->quiet)
		fprintf(stderr, "Events disabled\n");
}

/* --max-size: perf stops the session once the file reaches the size. */
static bool size_reached(struct rec *r)
{
	if (!r->cfg->max_size || r->bytes < r->cfg->max_size)
		return false;
	r->size_stop = true;
	if (!r->cfg->quiet)
		fprintf(stderr, "[ perfkit record: size limit reached (%llu KB), "
			"stopping session ]\n",
			(unsigned long long)(r->bytes / 1024));
	return true;
}

static void set_realtime(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	if (prio && sched_setscheduler(0, SCHED_FIFO, &sp))
		cli_error("record", "-r %d: cannot use SCHED_FIFO: %s", prio,
			  strerror(errno));
}

/* Polls and drains until the workload ends, the targets go, or a signal. */
static int record_loop(struct rec *r, int *status)
{
	int hup = 0, n, err = 0, nfds, timeout = 100;
	bool done = false, pending = r->cfg->delay_ms > 0;
	uint64_t start = now_ms();

	set_realtime(r->cfg->rt_prio);
	nfds = pk_evlist_nr(r->evlist) * pk_cpu_map_nr(r->cpus) *
	       pk_thread_map_nr(r->threads);
	while (!done && !err) {
		timeout = delay_step(r, start, &pending);
		bool snap;

		n = pk_rings_poll(r->rings, timeout, &hup);
		(void)n; /* data or not, the rings are drained on every wake */
		snap = snapshot_req;
		snapshot_req = 0;
		if (!r->cfg->overwrite || snap)
			err = rec_drain(r);
		if (!err)
			err = rec_bpf_sideband_drain(r);
		if (!err && snap && r->cfg->aux_snapshot)
			err = rec_pt_snapshot(r);
		done = stop_sig || child_exited(r, status) || size_reached(r) ||
		       (!r->cfg->argv && (r->cfg->pids || r->cfg->tids) &&
			hup >= nfds);
	}
	return err;
}

/*
 * Samples the kernel dropped for want of ring space, from each fd's
 * PERF_FORMAT_LOST count: exact even for the last losses, which the kernel
 * reports in a LOST record only once space frees up again.
 */
static uint64_t read_lost(struct rec *r)
{
	uint64_t lost = 0;

	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i);

		if (!(pk_evsel_attr(e)->read_format & PERF_FORMAT_LOST))
			return 0;
		for (int ci = 0; ci < pk_cpu_map_nr(pk_evsel_cpus(e)); ci++)
			for (int ti = 0; ti < pk_thread_map_nr(pk_evsel_threads(e)); ti++) {
				struct pk_counts c;

				if (!pk_evsel_read(e, ci, ti, &c))
					lost += c.lost;
			}
	}
	return lost;
}

static void print_summary(struct rec *r)
{
	uint64_t lost = r->lost_read > r->lost ? r->lost_read : r->lost;

	if (r->cfg->quiet)
		return;
	if (lost || r->lost_samples)
		cli_error("record", "lost %llu samples (%llu reported in LOST "
			  "records, %llu in LOST_SAMPLES); a larger -m or a "
			  "lower -F keeps them",
			  (unsigned long long)(lost + r->lost_samples),
			  (unsigned long long)r->lost,
			  (unsigned long long)r->lost_samples);
	fprintf(stderr, "[ perfkit record: Woken up %llu times to write data ]\n",
		(unsigned long long)r->wakeups);
	fprintf(stderr, "[ perfkit record: Captured and wrote %.3f MB %s (%llu samples) ]\n",
		(double)r->bytes / (1024.0 * 1024.0),
		r->pipe ? "(pipe)" : r->cfg->output,
		(unsigned long long)r->samples);
}

static void install_signals(void)
{
	struct sigaction sa;

	workload_catch_signals(on_stop, on_chld);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
}

/* CLOCKID (the clock's resolution) and CLOCK_DATA (the clock against
 * wall time at one moment), so readers can convert -k timestamps. */
static int add_clock_data(int clockid, struct pk_pdwriter *w)
{
	struct timespec res, wall, clk;
	uint64_t v[4], r;
	int err;

	if (clock_getres(clockid, &res) || clock_gettime(CLOCK_REALTIME, &wall) ||
	    clock_gettime(clockid, &clk))
		return 0; /* the kernel opened the events: only the header is lost */
	r = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	err = pk_pdwriter_feat_u64(w, PK_HEADER_CLOCKID, &r, 1);
	v[0] = 1;
	v[1] = (uint64_t)clockid;
	v[2] = (uint64_t)wall.tv_sec * 1000000000ull + (uint64_t)wall.tv_nsec;
	v[3] = (uint64_t)clk.tv_sec * 1000000000ull + (uint64_t)clk.tv_nsec;
	return err ? err : pk_pdwriter_feat_u64(w, PK_HEADER_CLOCK_DATA, v, 4);
}

/* The header features perf record writes: at the end of a file, ahead
 * of the records in a pipe (then SAMPLE_TIME is 0/0, as perf's). */
static int features(struct rec *r)
{
	uint64_t t[2] = { r->first_time, r->last_time };
	int err = pk_pdwriter_feat_host(r->w);

	if (!err)
		err = pk_pdwriter_feat_cmdline(r->w, r->cfg->argc + 1,
					       r->cfg->orig_argv - 1);
	if (!err)
		err = rec_pmu_features(r);
	if (!err)	/* perf's, 0 without samples */
		err = pk_pdwriter_feat_u64(r->w, PK_HEADER_SAMPLE_TIME, t, 2);
	if (!err && r->cfg->clockid >= 0)
		err = add_clock_data(r->cfg->clockid, r->w);
	/* a pipe's features go ahead of the data: ratio unknown (perf's 0) */
	if (!err && r->pipe && r->cfg->comp_level)
		err = pk_pdwriter_feat_compressed(r->w, r->cfg->comp_level, 0,
						  comp_mmap_len(r));
	return err;
}

static int finish(struct rec *r, int err)
{
	int e2;

	if (!err && !r->pipe)
		err = rec_add_build_ids(r);
	if (!err && !r->pipe)
		err = features(r);
	e2 = pk_pdwriter_close(r->w);
	r->w = NULL;
	if (!err && !e2)
		e2 = rec_timestamp_rename(r);
	if (err || e2)
		cli_error("record", "writing '%s': %s", r->cfg->output,
			  pk_strerror(err ? err : e2));
	return err ? err : e2;
}

static int run(struct rec *r)
{
	int status = 0, err;

	if (r->cfg->argv) {
		/* perf's pipe mode: the data owns stdout, the command's
		 * output goes to stderr */
		r->wl.out_to_err = !strcmp(r->cfg->output, "-");
		err = workload_prepare(&r->wl, r->cfg->argv);
		if (err) {
			cli_error("record", "cannot start '%s': %s",
				  r->cfg->argv[0], strerror(-err));
			return -1;
		}
	}
	if (make_maps(r) || open_events(r))
		return -1;
	{
		PK_OPTS(pk_rings_opts, ro, .pages = r->cfg->mmap_pages,
			.overwrite = r->cfg->overwrite,
			.aux_pages = r->pt >= 0 ? r->cfg->aux_pages : 0,
			.aux_overwrite = r->cfg->aux_snapshot || r->pt_sample);

		r->rings = pk_rings_new(r->evlist, &ro);
	}
	if (!r->rings && r->pt >= 0) {
		rec_pt_mmap_error(r, errno);
		return -1;
	}
	if (!r->rings) {
		cli_error("record", "cannot map the ring buffers (%zu pages "
			  "per CPU): %s%s", r->cfg->mmap_pages, strerror(errno),
			  errno == EPERM ? "; lower -m or raise "
			  "/proc/sys/kernel/perf_event_mlock_kb" : "");
		return -1;
	}
	if (open_output(r) || rec_kcore_readable(r) || rec_kcore_copy(r) ||
	    add_attrs(r))
		return -1;
	err = rec_pt_refs(r);
	if (!err)
		err = add_tracing_data(r);
	if (!err && r->pipe && !(err = features(r)))
		err = pk_pdwriter_write_features(r->w);
	if (!err)
		err = rec_time_conv(r);
	if (!err)
		err = rec_id_index(r);
	if (!err)
		err = rec_pt_info(r);
	if (err) {
		cli_error("record", "reading tracepoint formats: %s", pk_strerror(err));
		return finish(r, err), -1;
	}
	err = synthesize(r);
	if (err) {
		cli_error("record", "synthesizing side-band: %s", pk_strerror(err));
		return finish(r, err), -1;
	}
	pk_pdwriter_flush(r->w);
	install_signals();
	if (r->cfg->argv) {
		/* following existing tasks or CPUs: from now, not from the
		 * command's exec */
		if (!target_none(r->cfg))
			start_events(r);
		else if (r->cfg->delay_ms > 0 && !r->cfg->quiet)
			fprintf(stderr, "Events disabled\n");
		err = workload_go(&r->wl);
		if (err) {
			cli_error("record", "cannot run '%s': %s",
				  r->cfg->argv[0], strerror(-err));
			r->wl.pid = -1;
			finish(r, 0);
			return 127;
		}
	} else {
		start_events(r);
	}
	err = rec_finished_init(r);
	if (!err)
		err = start_compression(r);
	if (!err)
		err = record_loop(r, &status);
	if (!err && r->cfg->aux_snapshot && r->cfg->snapshot_on_exit)
		err = rec_pt_snapshot(r);
	pk_evlist_disable(r->evlist);
	if (!err)
		err = rec_drain(r);
	if (!err)
		err = rec_bpf_sideband_drain(r);
	r->lost_read = read_lost(r);
	if (r->wl.pid > 0) {
		kill(r->wl.pid, stop_sig ? stop_sig : SIGTERM);
		waitpid(r->wl.pid, &status, 0);
		r->wl.pid = -1;
	}
	err = finish(r, err);
	print_summary(r);
	if (err)
		return -1;
	/* perf ends a session it stopped at --max-size with success */
	return r->cfg->argv && !r->size_stop ? workload_exit_code(status) : 0;
}

int cmd_record(int argc, char **argv)
{
	struct rec_cfg cfg = { .argc = argc, .orig_argv = argv, .clockid = -1 };
	struct rec r = { .cfg = &cfg, .last_hit = -1, .pt = -1,
			 .wl = { .pid = -1, .go_fd = -1, .err_fd = -1 } };
	int ret;

	cfg.events = calloc((size_t)argc + 1, sizeof(char *));
	cfg.filters = calloc((size_t)argc + 1, sizeof(char *));
	cfg.excl_perf = calloc((size_t)argc + 1, sizeof(bool));
	if (!cfg.events || !cfg.filters || !cfg.excl_perf ||
	    parse_args(&cfg, argc, argv)) {
		free(cfg.events);
		free_filters(&cfg);
		return 2;
	}
	cli_verbose = cfg.verbose > 1 ? 2 : cfg.verbose;
	/* the build ids are in the MMAP2s; perf -z collects none either */
	if (cfg.buildid_mmap || cfg.comp_level)
		cfg.no_buildid = true;
	if (build_events(&r)) {
		ret = 2;
		goto out;
	}
	ret = cfg.dry_run ? 0 : run(&r);
	if (ret < 0)
		ret = 1;
out:
	if (r.wl.pid > 0)
		workload_abort(&r.wl);
	if (r.w)
		pk_pdwriter_close(r.w);
	pk_rings_free(r.rings);
	rec_close_bpf_sideband(&r);
	pk_bpf_progs_free(r.bpf);
	pk_evlist_free(r.evlist);
	pk_cpu_map_put(r.cpus);
	pk_thread_map_put(r.threads);
	pk_cpu_map_put(r.all_cpus);
	pk_thread_map_put(r.any_threads);
	rec_free_maps(&r);
	free(r.ev_filter);
	free(r.pt_filter);
	free(cfg.events);
	free_filters(&cfg);
	return ret;
}
