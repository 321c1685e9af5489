/* SPDX-License-Identifier: MIT */
/*
 * The ftrace commands' options (cli/ftrace_opts.h): one table says which
 * command takes which option, one getopt loop fills one struct, CPU and
 * pid lists go through the library's maps. The usage texts live here too.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/ftrace.h>
#include <perfkit/map.h>
#include "cli.h"
#include "ftrace_opts.h"

/* Long-only options' keys (above every letter). */
enum { K_CLOCK = 256, K_TSC2NSEC, K_TOP, K_DEPTH, K_FSTACK, K_NOSPLICE,
       K_VERBOSE, K_PLUGIN, K_CMDLINES, K_MODULE, K_TSOFF, K_TEMP,
       K_PROBE, K_THRESH, K_HWWIDTH, K_HWWINDOW, K_FORK, K_SUBBUF, K_SNAPCPU,
       K_NTPID };

#define R (1u << CLI_FT_RECORD)
#define L (1u << CLI_FT_LIVE)
#define S (1u << CLI_FT_STACK)
#define P (1u << CLI_FT_PROFILE)
#define T (1u << CLI_FT_STAT)
#define N (1u << CLI_FT_SNAPSHOT)
#define A (1u << CLI_FT_START)

static const struct ft_opt {
	const char *name;       /* long name (NULL: none) */
	int key;                /* the letter, or a K_ key (long only) */
	int arg;                /* no_argument or required_argument */
	unsigned cmds;          /* the commands that take it */
} table[] = {
	{ "event", 'e', required_argument, R | L | A },
	{ "event-filter", 'f', required_argument, R | L | A },  /* trace-cmd's -f */
	{ "output", 'o', required_argument, R },
	{ "buffer-size", 'b', required_argument, R | L | A },
	{ "cpus", 'C', required_argument, R | L | A },
	{ "clock", K_CLOCK, required_argument, R | L | A },
	{ "pid", 'p', required_argument, R | L | A },
	{ "tracer", 't', required_argument, R | L | A },
	{ "filter", 'l', required_argument, R | S | P | A },
	{ "notrace", 'n', required_argument, R | A },
	{ "graph", 'g', required_argument, R | A },
	{ NULL, 'g', no_argument, P },          /* profile: the graph tracer */
	{ "option", 'O', required_argument, R | L | A },
	{ "stacktrace", 'T', no_argument, R | L | A },   /* trace-cmd's -T */
	/* trace-cmd record's, with its meanings */
	{ "trigger", 'R', required_argument, R | L | A },
	{ NULL, 'P', required_argument, R | L | A },      /* = -p */
	{ "plugin", K_PLUGIN, required_argument, R | L | A }, /* its -p: -t */
	{ "cpumask", 'M', required_argument, R | L | A },
	{ "only-command", 'F', no_argument, R | L | A },
	{ "children", 'c', no_argument, R | L | A },
	{ "exclude", 'v', no_argument, R | L | A },
	{ "ignore-missing", 'i', no_argument, R | L | A },
	{ "keep", 'k', no_argument, R | L },
	{ "sleep", 's', required_argument, R },
	{ "cpu", K_SNAPCPU, required_argument, N },
	{ "notrace-pid", K_NTPID, required_argument, R | L | A },
	{ "max-kb", 'm', required_argument, R },
	{ "no-function-trace", 'd', no_argument, R | L | A },
	{ "no-ftrace", 'D', no_argument, R | L | A },
	{ NULL, 'N', required_argument, R },         /* refused */
	{ NULL, 'G', no_argument, R | A },               /* --profile only */
	{ "max-graph-depth", K_DEPTH, required_argument, R | L | A },
	{ "func-stack", K_FSTACK, no_argument, R | L | A },
	{ "nosplice", K_NOSPLICE, no_argument, R },
	{ "verbose", K_VERBOSE, no_argument, R | L | A },
	{ "quiet", 'q', no_argument, R },
	{ "cmdlines-size", K_CMDLINES, required_argument, R | L | A },
	{ "subbuf-size", K_SUBBUF, required_argument, R | L | A },
	{ "module", K_MODULE, required_argument, R | A },
	{ "ts-offset", K_TSOFF, required_argument, R },
	{ "temp", K_TEMP, required_argument, R },
	{ "priority", 'r', required_argument, R },
	{ "all", 'a', no_argument, R },
	{ "tsc2nsec", K_TSC2NSEC, no_argument, R },
	{ "top", K_TOP, no_argument, R | L },
	{ "top-level", K_TOP, no_argument, R },
	{ "compression", 'z', required_argument, R },
	{ "instance", 'B', required_argument, R | T | N | A },
	/* dynamic events, latency tracers */
	{ "probe", K_PROBE, required_argument, R | L | A },
	{ "thresh", K_THRESH, required_argument, R | A },
	{ "hwlat-width", K_HWWIDTH, required_argument, R | A },
	{ "hwlat-window", K_HWWINDOW, required_argument, R | A },
	{ "help", 'h', no_argument, R | L | S | P | T | N | A },
};
#define NR_OPTS (sizeof(table) / sizeof(table[0]))

/* Commands whose options end at the first other word (their command). */
#define STOP_AT_COMMAND (R | L | S | P | A)

static const char *const usages[] = {
	[CLI_FT_RECORD] =
	"usage: perfkit ftrace record [-e EVENT [-f FILTER] [-R TRIGGER]]... "
	"[-v] [-i] [-B NAME]...\n"
	"         [-o FILE] [-b KB] [-C CPUS] [-M MASK] [--clock C] [-F] [-c] "
	"[-k] [-s US] [-m KIB]\n"
	"         [-p PID]... [-a] [-t TRACER] [-l FUNC]... [-n FUNC]... "
	"[-g FUNC]... [-O [no]OPTION]...\n"
	"         [-T] [--top] [--tsc2nsec] [-z zstd|zlib|none] [-- COMMAND...]\n"
	"  -t  tracer (function, function_graph, ...): in the private "
	"instance when it\n"
	"      supports tracers, else in the top-level buffer\n"
	"  -l/-n  set_ftrace_filter / set_ftrace_notrace (globs, "
	"FUNC:mod:MOD, FUNC:CMD[:ARG])\n"
	"  -g  set_graph_function; -O  trace option; -a  every process, "
	"also with a command\n"
	"  -T  a kernel stack trace after each event (-O stacktrace, "
	"trace-cmd's -T)\n"
	"  -f  the filter of the -e before it (trace-cmd's -f), e.g. "
	"'common_pid != 0'\n"
	"trace-cmd record's options, with its meanings:\n"
	"  -e NAME  a system or an event of any system (globs); -R TRIGGER "
	"of the -e before\n"
	"      (several allowed): traceon, traceoff, stacktrace, snapshot, "
	"enable_event:SYS:EV,\n"
	"      disable_event:SYS:EV, hist:keys=...[:vals=...][:sort=...] "
	"([:COUNT] [if FILTER])\n"
	"  -v  the -e after it are disabled (a -R still set); -i  missing "
	"events ignored\n"
	"  -P PID (= -p); -F  the command alone, not its children; -c  "
	"children too\n"
	"  -B NAME  an instance recorded too: the -e, -f, -R, -M after it "
	"are its own\n"
	"  -M HEXMASK  tracing_cpumask (-1: all); -k  keep the settings "
	"and instances\n"
	"  -s USECS  reader wake-up; -m KIB  at most about KIB a CPU "
	"(newest kept)\n"
	"  -d  function-trace off; -D  and kernel.ftrace_enabled 0; "
	"--func-stack\n"
	"  --max-graph-depth N; --nosplice; --verbose; -G ignored (its "
	"--profile's)\n"
	"  --module MOD (-l/-n in MOD); --cmdlines-size N; --ts-offset N; "
	"-q  no summary\n"
	"  --subbuf-size KB  buffer_subbuf_size_kb of every buffer "
	"(newer trace-cmd's)\n"
	"  --temp DIR  the per-CPU files; -r PRIO  readers at SCHED_FIFO "
	"PRIO\n"
	"  not theirs: -p PID (tracer: -t/--plugin), -C CPUS (clock: "
	"--clock), -a every\n"
	"  process (trace-cmd: all formats), -N HOST:PORT refused\n"
	"  --probe DEF  a dynamic event, recorded and removed at the end, "
	"in the kernel's\n"
	"      syntax: 'p[:[GRP/]EV] SYMBOL[+OFF] [ARGS]', 'r...' (kprobe"
	"/kretprobe),\n"
	"      'p[:[GRP/]EV] PATH:OFFSET[%return] [ARGS]' (uprobe), "
	"'e[:[GRP/]EV] SYS.EVENT\n"
	"      [ARGS]' (eprobe), 'NAME TYPE FIELD[; ...]' or "
	"'s:[GRP/]EV ...' (synthetic)\n"
	"  --thresh US  tracing_thresh for latency tracers (irqsoff, "
	"preemptoff,\n"
	"      preemptirqsoff, wakeup, wakeup_rt, wakeup_dl: their max-latency "
	"trace is saved)\n"
	"  --hwlat-width US, --hwlat-window US  the hwlat tracer's sampling\n",
	[CLI_FT_LIVE] =
	"usage: perfkit ftrace live [-e EVENT [-f FILTER] [-R TRIGGER]]... "
	"[-v] [-i] [-t TRACER] [-p PID]...\n"
	"         [-F] [-c] [-M MASK] [-C CPUS] [--clock C] [-O OPTION]... "
	"[-T] [-k] [-d] [-D]\n"
	"         [-b KB (16384)] [--top] [--probe DEF]... [-- COMMAND...]\n"
	"  the options mean what they mean for ftrace record\n"
	"Streams events as trace_pipe prints them, from a private "
	"instance, until Ctrl-C\nor COMMAND ends; tracefs is put back "
	"as it was.\n",
	[CLI_FT_STACK] =
	"usage: perfkit ftrace stack [-l FUNC]... [-- COMMAND...]\n"
	"  without a command: the stack tracer's current maximum; with one: "
	"its maximum\n"
	"  while the command runs (stack_trace_filter from -l)\n",
	[CLI_FT_PROFILE] =
	"usage: perfkit ftrace profile [-l FUNC]... [-g] [-- COMMAND...]\n"
	"  runs the function profiler around COMMAND (or until SIGINT) and "
	"prints\n"
	"  trace_stat/function* merged across CPUs; -l limits it "
	"(set_ftrace_filter),\n"
	"  -g sets the function_graph tracer for times\n",
	[CLI_FT_STAT] = "usage: perfkit ftrace bufstat [--instance NAME]\n",
	[CLI_FT_START] =
	"usage: perfkit ftrace start [record's options but -o -z -s -m -q -k "
	"-a --top ...] [--fork]\n"
	"         [-- COMMAND...]\n"
	"  trace-cmd start: tracing in the top level (and the -B instances) "
	"set up as\n"
	"  ftrace record would (its tracer, events, filters, triggers, "
	"sizes, clock, ...)\n"
	"  after trace-cmd's \"disable all tracing\" (tracing off, tracer "
	"nop, events off,\n"
	"  system filters, set_ftrace_pid, buffer cleared), then turned on "
	"and left so:\n"
	"  nothing is recorded or put back (ftrace stop, extract, reset "
	"follow). With a\n"
	"  command: it runs and is waited for (--fork: not waited for)\n",
	[CLI_FT_SNAPSHOT] =
	"usage: perfkit ftrace snapshot [take|show|clear|free] "
	"[--instance NAME] [--cpu N]\n"
	"  --cpu N: that CPU's snapshot file (per_cpu/cpuN/snapshot; take "
	"swaps that CPU\n"
	"  alone where the kernel allows it; free only without --cpu)\n"
	"  take: swap the buffer into the snapshot and print it (a snapshot "
	"buffer\n"
	"  allocated for it is freed again at the end)\n",
};

void cli_ftrace_usage(enum cli_ft_cmd cmd, FILE *f)
{
	fputs(usages[cmd], f);
}

/* Appends ARG to *L. 0 or -ENOMEM. */
static int strv_push(struct cli_strv *l, const char *arg)
{
	const char **v = realloc(l->v, (size_t)(l->n + 2) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	v[l->n++] = arg;
	v[l->n] = NULL;
	l->v = v;
	return 0;
}

/* getopt's short and long tables for CMD from the one table. */
static void getopt_tables(enum cli_ft_cmd cmd, char *s, struct option *lo)
{
	unsigned bit = 1u << cmd;

	if (bit & STOP_AT_COMMAND)
		*s++ = '+';
	for (size_t i = 0; i < NR_OPTS; i++) {
		if (!(table[i].cmds & bit))
			continue;
		if (table[i].key < 256) {
			*s++ = (char)table[i].key;
			if (table[i].arg == required_argument)
				*s++ = ':';
		}
		if (table[i].name)
			*lo++ = (struct option){ table[i].name, table[i].arg,
						 NULL, table[i].key };
	}
	*s = 0;
	*lo = (struct option){ NULL, 0, NULL, 0 };
}

/* The pids of every -p so far. */
struct pid_vec {
	int *v, n;
};

/* -p ARG: existing process ids added to *PV, each once. 0 or -1 after
 * the error line. */
static int add_pids(struct cli_ftrace_opts *o, const char *arg,
		    struct pid_vec *pv)
{
	struct pk_thread_map *m = pk_thread_map_new_tids(arg);
	int n = m ? pk_thread_map_nr(m) : 0, *v;

	if (!m) {
		if (errno == ESRCH)
			cli_error(o->name, "-p %s: no such process", arg);
		else
			cli_error(o->name, "-p '%s': not a process id (a tracer "
				  "is -t TRACER)", arg);
		return -1;
	}
	v = realloc(pv->v, (size_t)(pv->n + n + 1) * sizeof(int));
	if (v) {
		pv->v = v;
		for (int i = 0; i < n; i++) {
			int pid = pk_thread_map_tid(m, i), k = 0;
			while (k < pv->n && v[k] != pid)
				k++;
			if (k == pv->n)
				v[pv->n++] = pid;
		}
	}
	pk_thread_map_put(m);
	if (!v)
		cli_error(o->name, "-p %s: %s", arg, strerror(ENOMEM));
	return v ? 0 : -1;
}

/* -C ARG replaces the CPU list. 0 or -1 after the error line. */
static int set_cpus(struct cli_ftrace_opts *o, const char *arg)
{
	struct pk_cpu_map *m = *arg ? pk_cpu_map_new(arg) : NULL;

	if (!m) {
		cli_error(o->name, "-C '%s': not a CPU list (like 0,2-3)", arg);
		return -1;
	}
	pk_cpu_map_put(o->cpus);
	o->cpus = m;
	return 0;
}

/* -b ARG: kilobytes, a whole number. 0 or -1 after the error line. */
static int set_kb(struct cli_ftrace_opts *o, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > INT_MAX) {
		cli_error(o->name, "-b '%s': not a buffer size in KB", arg);
		return -1;
	}
	o->buffer_kb = (int)v;
	return 0;
}

/* The buffer the -e, -f, -R and -M given now belong to. */
static struct cli_ft_evlist *cur_list(struct cli_ftrace_opts *o)
{
	return o->nr_bufs ? &o->bufs[o->nr_bufs - 1] : &o->main;
}

/* -e ARG into the current buffer's list (with empty -f and -R slots and
 * the -v state). 0 or -1 after the error line. */
static int add_event(struct cli_ftrace_opts *o, const char *arg)
{
	struct cli_ft_evlist *l = cur_list(o);
	bool *x = realloc(l->exclude, (size_t)(l->events.n + 1) * sizeof(*x));

	if (x)
		l->exclude = x;
	if (!x || strv_push(&l->filters, NULL) ||
	    strv_push(&l->triggers, NULL) || strv_push(&l->events, arg)) {
		cli_error(o->name, "-e %s: %s", arg, strerror(ENOMEM));
		return -1;
	}
	x[l->events.n - 1] = o->excluding;
	return 0;
}

/* Trigger ARG after *SLOT's (several -R: joined by newlines). 0 or -1
 * after the error line. */
static int join_trigger(struct cli_ftrace_opts *o, const char **slot,
			const char *arg)
{
	char *j = NULL;

	if (!*slot) {
		*slot = arg;
		return 0;
	}
	if (asprintf(&j, "%s\n%s", *slot, arg) < 0)
		j = NULL;
	if (!j || strv_push(&o->owned, j)) {
		free(j);
		cli_error(o->name, "-R %s: %s", arg, strerror(ENOMEM));
		return -1;
	}
	*slot = j;
	return 0;
}

/* -f or -R (KEY) ARG: the filter or a trigger of the -e before it (the
 * last -f counts; every -R is added). 0 or -1 after the error line. */
static int event_option(struct cli_ftrace_opts *o, int key, const char *arg)
{
	struct cli_ft_evlist *l = cur_list(o);

	if (!l->events.n) {
		cli_error(o->name, "-%c %s: no -e before it (the %s is the "
			  "preceding event's)", key, arg,
			  key == 'f' ? "filter" : "trigger");
		return -1;
	}
	if (key == 'R')
		return join_trigger(o, &l->triggers.v[l->events.n - 1], arg);
	l->filters.v[l->events.n - 1] = arg;
	return 0;
}

/* -B NAME: a new buffer; the -e after it are its own. */
static int add_buffer(struct cli_ftrace_opts *o, const char *arg)
{
	struct cli_ft_evlist *v;

	if (o->cmd != CLI_FT_RECORD && o->cmd != CLI_FT_START) {
		o->instance = arg;
		return 0;
	}
	if (!*arg || strchr(arg, '/')) {
		cli_error(o->name, "-B '%s': not an instance name", arg);
		return -1;
	}
	for (int i = 0; i < o->nr_bufs; i++)
		if (!strcmp(o->bufs[i].name, arg)) {
			cli_error(o->name, "-B %s: given twice", arg);
			return -1;
		}
	if (!(v = realloc(o->bufs, (size_t)(o->nr_bufs + 1) * sizeof(*v)))) {
		cli_error(o->name, "-B %s: %s", arg, strerror(ENOMEM));
		return -1;
	}
	o->bufs = v;
	v[o->nr_bufs++] = (struct cli_ft_evlist){ .name = arg };
	return 0;
}

/* -M MASK: hex as tracing_cpumask takes it (commas between 32-bit
 * groups), or -1. 0 or -1 after the error line. */
static int set_mask(struct cli_ftrace_opts *o, const char *arg)
{
	const char *p = arg;

	if (strcmp(arg, "-1")) {
		if (!strncmp(p, "0x", 2) || !strncmp(p, "0X", 2))
			p += 2;
		if (!*p || p[strspn(p, "0123456789abcdefABCDEF,")]) {
			cli_error(o->name, "-M '%s': not a hex CPU mask (like "
				  "3, or -1 for all)", arg);
			return -1;
		}
	}
	cur_list(o)->cpumask = p;
	return 0;
}

/* The most microseconds --thresh and --hwlat-* take (the kernel keeps
 * nanoseconds in 64 bits). */
#define US_MAX (ULLONG_MAX / 1000)

/* A whole number of at most MAX from ARG of option OPT. 0 or -1 after
 * the error line. */
static int number(struct cli_ftrace_opts *o, const char *opt, const char *arg,
		  unsigned long long max, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-' || *v > max) {
		cli_error(o->name, "%s '%s': not a number (0..%llu)", opt, arg,
			  max);
		return -1;
	}
	return 0;
}

/* The list option KEY takes ARG. 0 or -1 after the error line. */
static int push(struct cli_ftrace_opts *o, int key, const char *arg)
{
	struct cli_strv *l = key == 'l' ? &o->filters :
			     key == 'n' ? &o->notrace : key == 'g' ? &o->graph :
			     &o->options;

	if (strv_push(l, arg) == 0)
		return 0;
	cli_error(o->name, "-%c %s: %s", key, arg, strerror(ENOMEM));
	return -1;
}

/* One option KEY with ARG into *O. 0, or -1 after the error line. */
static int apply(struct cli_ftrace_opts *o, int key, const char *arg,
		 struct pid_vec *pv)
{
	switch (key) {
	case 'p': return add_pids(o, arg, pv);
	case 'C': return set_cpus(o, arg);
	case 'b': return set_kb(o, arg);
	case 'g':
		if (o->cmd == CLI_FT_PROFILE) {
			o->graph_times = true;
			return 0;
		}
		return push(o, key, arg);
	case 'e': return add_event(o, arg);
	case 'f': case 'R': return event_option(o, key, arg);
	case 'B': return add_buffer(o, arg);
	case 'M': return set_mask(o, arg);
	case 'P': return add_pids(o, arg, pv);
	case 'l': case 'n': case 'O': return push(o, key, arg);
	case 'T': return push(o, 'O', "stacktrace");
	case 'd': return push(o, 'O', "nofunction-trace");
	case K_FSTACK: return push(o, 'O', "func_stack_trace");
	case K_SNAPCPU: {
		unsigned long long v;
		if (number(o, "--cpu", arg, 4095, &v))
			return -1;
		o->snap_cpu = (int)v;
		return 0;
	}
	case K_NTPID: {
		unsigned long long v;
		int *nv;
		if (number(o, "--notrace-pid", arg, INT_MAX, &v))
			return -1;
		if (!(nv = realloc(o->notrace_pids, (size_t)(o->nr_notrace_pids
						     + 1) * sizeof(*nv)))) {
			cli_error(o->name, "--notrace-pid: %s", strerror(ENOMEM));
			return -1;
		}
		o->notrace_pids = nv;
		nv[o->nr_notrace_pids++] = (int)v;
		return 0;
	}
	case 's': case 'm': case K_DEPTH: {
		unsigned long long v;
		const char *opt = key == 's' ? "-s" : key == 'm' ? "-m"
				  : "--max-graph-depth";
		if (number(o, opt, arg, key == 's' ? UINT_MAX / 2 :
			   key == 'm' ? ULLONG_MAX / 1024 : INT_MAX, &v))
			return -1;
		if (key == 's') {
			o->sleep_us = (unsigned)v;
			o->sleep_set = true;
		} else if (key == 'm') {
			o->max_kb = v;
		} else {
			o->max_graph_depth = arg;
		}
		return 0;
	}
	case K_SUBBUF: {
		unsigned long long v;
		if (number(o, "--subbuf-size", arg, 1u << 20, &v))
			return -1;
		o->subbuf_kb = (unsigned)v;
		return 0;
	}
	case K_CMDLINES: {
		unsigned long long v;
		if (number(o, "--cmdlines-size", arg, INT_MAX, &v))
			return -1;
		o->cmdlines_size = arg;
		return 0;
	}
	case K_TSOFF: {
		char *end;
		errno = 0;
		o->ts_offset = strtoll(arg, &end, 0);
		if (errno || end == arg || *end) {
			cli_error(o->name, "--ts-offset '%s': not a number", arg);
			return -1;
		}
		return 0;
	}
	case 'r': {
		unsigned long long v;
		if (number(o, "-r", arg, 99, &v))
			return -1;
		o->rt_priority = (int)v;
		return 0;
	}
	case K_TEMP: o->temp_dir = arg; break;
	case K_MODULE: o->module = arg; break;
	case 'q': o->quiet = true; break;
	case K_FORK: o->fork = true; break;
	case 'N':
		cli_error(o->name, "-N %s: recording to a trace-cmd listener "
			  "is not supported (-o FILE)", arg);
		return -1;
	case 'v': o->excluding = true; break;
	case 'F': o->only_cmd = true; break;
	case 'c': o->children = true; break;
	case 'i': o->ignore_missing = true; break;
	case 'k': o->keep = true; break;
	case 'D': o->no_ftrace = true; break;
	case K_NOSPLICE: o->no_splice = true; break;
	case K_VERBOSE: cli_verbose++; break;
	case 'G': break;        /* trace-cmd: only with --profile */
	case 'o': o->output = arg; break;
	case 't': case K_PLUGIN: o->tracer = arg; break;
	case 'z': o->compression = arg; break;
	case K_CLOCK: o->clock = arg; break;
	case 'a': o->all = true; break;
	case K_TSC2NSEC: o->tsc2nsec = true; break;
	case K_TOP: o->top_level = true; break;
	case K_PROBE:
		if (strv_push(&o->dynevents, arg) == 0)
			return 0;
		cli_error(o->name, "--probe %s: %s", arg, strerror(ENOMEM));
		return -1;
	case K_THRESH:
		o->set_thresh = true;
		return number(o, "--thresh", arg, US_MAX, &o->thresh_us);
	case K_HWWIDTH:
		return number(o, "--hwlat-width", arg, US_MAX, &o->hwlat_width);
	case K_HWWINDOW:
		return number(o, "--hwlat-window", arg, US_MAX,
			      &o->hwlat_window);
	}
	return 0;
}

/* --module MOD as trace-cmd applies it: each -l and -n function gets
 * ":mod:MOD" (filter commands, with their ':', stay); with neither, -l
 * ":mod:MOD" (every function of MOD). 0 or -1 after the error line. */
static int apply_module(struct cli_ftrace_opts *o)
{
	struct cli_strv *lists[2] = { &o->filters, &o->notrace };
	char *s = NULL;

	if (!o->filters.n && !o->notrace.n) {
		if (asprintf(&s, ":mod:%s", o->module) < 0 ||
		    strv_push(&o->owned, s)) {
			free(s);
			cli_error(o->name, "--module: %s", strerror(ENOMEM));
			return -1;
		}
		return push(o, 'l', s);
	}
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < lists[k]->n; i++) {
			if (strchr(lists[k]->v[i], ':'))
				continue;
			s = NULL;
			if (asprintf(&s, "%s:mod:%s", lists[k]->v[i],
				     o->module) < 0 || strv_push(&o->owned, s)) {
				free(s);
				cli_error(o->name, "--module: %s",
					  strerror(ENOMEM));
				return -1;
			}
			lists[k]->v[i] = s;
		}
	}
	return 0;
}

bool cli_ftrace_opts_parse(struct cli_ftrace_opts *o, enum cli_ft_cmd cmd,
			   const char *name, int argc, char **argv, int *rc)
{
	char shorts[2 * NR_OPTS + 2];
	struct option lo[NR_OPTS + 1];
	struct pid_vec pv = { NULL, 0 };
	int c, status = 2;

	*o = (struct cli_ftrace_opts){ .cmd = cmd, .name = name,
				       .snap_cpu = -1 };
	getopt_tables(cmd, shorts, lo);
	optind = 1;
	while ((c = cli_getopt(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == 'h' || c == '?') {
			cli_ftrace_usage(cmd, c == 'h' ? stdout : stderr);
			status = c == 'h' ? 0 : 2;
			break;
		}
		if (apply(o, c, optarg, &pv))
			break;
	}
	if (c == -1 && o->module && apply_module(o))
		c = 0;
	if (c == -1 && pv.n && !(o->pids = pk_thread_map_new_array(pv.n, pv.v))) {
		cli_error(name, "-p: %s", strerror(errno));
		c = 0;
	}
	free(pv.v);
	o->args = argv + optind;
	o->nr_args = argc - optind;
	if (c != -1)    /* *RC only when the command is to end */
		*rc = status;
	return c == -1;
}

bool cli_ftrace_opts_has_events(const struct cli_ftrace_opts *o)
{
	for (int i = 0; i < o->nr_bufs; i++)
		if (o->bufs[i].events.n)
			return true;
	return o->main.events.n > 0;
}

static void evlist_fini(struct cli_ft_evlist *l)
{
	free(l->events.v);
	free(l->filters.v);
	free(l->triggers.v);
	free(l->exclude);
}

void cli_ftrace_opts_fini(struct cli_ftrace_opts *o)
{
	for (int i = 0; i < o->owned.n; i++)
		free((char *)o->owned.v[i]);
	free(o->owned.v);
	evlist_fini(&o->main);
	for (int i = 0; i < o->nr_bufs; i++)
		evlist_fini(&o->bufs[i]);
	free(o->bufs);
	free(o->rec_bufs);
	free(o->notrace_pids);
	free(o->dynevents.v);
	free(o->filters.v);
	free(o->notrace.v);
	free(o->graph.v);
	free(o->options.v);
	pk_cpu_map_put(o->cpus);
	pk_thread_map_put(o->pids);
	free(o->rec_cpus);
	free(o->rec_pids);
}

/* O's CPU list as an array for the recorder (NULL: none given). 0 or
 * -ENOMEM. */
static int rec_cpus(struct cli_ftrace_opts *o, struct pk_ftrace_rec_opts *ro)
{
	int n = o->cpus ? pk_cpu_map_nr(o->cpus) : 0;

	if (!n)
		return 0;
	free(o->rec_cpus);
	if (!(o->rec_cpus = malloc((size_t)n * sizeof(int))))
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		o->rec_cpus[i] = pk_cpu_map_cpu(o->cpus, i);
	ro->cpus = o->rec_cpus;
	ro->nr_cpus = n;
	return 0;
}

int cli_ftrace_opts_rec(struct cli_ftrace_opts *o, pid_t cmd_pid,
			struct pk_ftrace_rec_opts *ro)
{
	static const char *const no_events[] = { NULL };
	int n = o->pids ? pk_thread_map_nr(o->pids) : 0;
	int *v = malloc((size_t)(n + 1) * sizeof(int));

	if (!v)
		return -ENOMEM;
	free(o->rec_pids);
	o->rec_pids = v;
	for (int i = 0; i < n; i++)
		v[i] = pk_thread_map_tid(o->pids, i);
	ro->events = o->main.events.v ? o->main.events.v : no_events;
	ro->event_filters = o->main.filters.v;
	ro->event_triggers = o->main.triggers.v;
	ro->event_exclude = o->main.exclude;
	ro->cpumask = o->main.cpumask;
	ro->ignore_missing = o->ignore_missing;
	ro->sleep_us = o->sleep_us;
	ro->sleep_set = o->sleep_set;
	ro->max_kb = o->max_kb;
	ro->no_splice = o->no_splice;
	ro->no_ftrace = o->no_ftrace;
	ro->max_graph_depth = o->max_graph_depth;
	ro->cmdlines_size = o->cmdlines_size;
	ro->ts_offset = o->ts_offset;
	ro->temp_dir = o->temp_dir;
	ro->rt_priority = o->rt_priority;
	ro->copy_marker = true;
	ro->dynevents = o->dynevents.v;
	ro->set_thresh = o->set_thresh;
	ro->thresh_us = o->thresh_us;
	ro->hwlat_width_us = o->hwlat_width;
	ro->hwlat_window_us = o->hwlat_window;
	if (o->nr_bufs) {
		free(o->rec_bufs);
		o->rec_bufs = calloc((size_t)o->nr_bufs, sizeof(*o->rec_bufs));
		if (!o->rec_bufs)
			return -ENOMEM;
		for (int i = 0; i < o->nr_bufs; i++) {
			struct cli_ft_evlist *l = &o->bufs[i];
			o->rec_bufs[i] = (struct pk_ftrace_rec_buffer){
				.name = l->name,
				.events = l->events.v ? l->events.v : no_events,
				.event_filters = l->filters.v,
				.event_triggers = l->triggers.v,
				.event_exclude = l->exclude,
				.cpumask = l->cpumask,
			};
		}
		ro->buffers = o->rec_bufs;
		ro->nr_buffers = o->nr_bufs;
	}
	if (o->output)
		ro->output = o->output;
	ro->buffer_kb = o->buffer_kb;
	ro->subbuf_kb = o->subbuf_kb;
	ro->notrace_pids = o->notrace_pids;
	ro->nr_notrace_pids = o->nr_notrace_pids;
	ro->clock = o->clock;
	ro->tracer = o->tracer;
	ro->compression = o->compression;
	ro->top_level = o->top_level;
	ro->tsc2nsec = o->tsc2nsec;
	ro->filters = o->filters.v;
	ro->notrace = o->notrace.v;
	ro->graph = o->graph.v;
	ro->options = o->options.v;
	if (cmd_pid > 0) {      /* the command, its children unless -F */
		v[n++] = cmd_pid;
		ro->follow_fork = !o->only_cmd || o->children;
	} else if (n && o->children) {      /* -P PID -c */
		ro->follow_fork = true;
	}
	ro->pids = n ? o->rec_pids : NULL;
	ro->nr_pids = n;
	return rec_cpus(o, ro);
}
