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
enum { K_CLOCK = 256, K_TSC2NSEC, K_TOP, K_PROBE, K_THRESH, K_HWWIDTH,
       K_HWWINDOW };

#define R (1u << CLI_FT_RECORD)
#define L (1u << CLI_FT_LIVE)
#define S (1u << CLI_FT_STACK)
#define P (1u << CLI_FT_PROFILE)
#define X (1u << CLI_FT_EXTRACT)
#define T (1u << CLI_FT_STAT)
#define N (1u << CLI_FT_SNAPSHOT)

static const struct ft_opt {
	const char *name;       /* long name (NULL: none) */
	int key;                /* the letter, or a K_ key (long only) */
	int arg;                /* no_argument or required_argument */
	unsigned cmds;          /* the commands that take it */
} table[] = {
	{ "event", 'e', required_argument, R | L },
	{ "event-filter", 'f', required_argument, R | L },  /* trace-cmd's -f */
	{ "output", 'o', required_argument, R | X },
	{ "buffer-size", 'b', required_argument, R | L },
	{ "cpus", 'C', required_argument, R | L },
	{ "clock", K_CLOCK, required_argument, R | L },
	{ "pid", 'p', required_argument, R | L },
	{ "tracer", 't', required_argument, R | L },
	{ "filter", 'l', required_argument, R | S | P },
	{ "notrace", 'n', required_argument, R },
	{ "graph", 'g', required_argument, R },
	{ NULL, 'g', no_argument, P },          /* profile: the graph tracer */
	{ "option", 'O', required_argument, R | L },
	{ "stacktrace", 'T', no_argument, R | L },   /* trace-cmd's -T */
	{ "all", 'a', no_argument, R },
	{ "tsc2nsec", K_TSC2NSEC, no_argument, R },
	{ "top", K_TOP, no_argument, R | L },
	{ "top-level", K_TOP, no_argument, R },
	{ "compression", 'z', required_argument, R | X },
	{ "instance", 'B', required_argument, X | T | N },
	/* issue 15 parts 2-3: triggers, dynamic events, latency tracers */
	{ "trigger", 'R', required_argument, R },   /* trace-cmd's -R */
	{ "probe", K_PROBE, required_argument, R },
	{ "thresh", K_THRESH, required_argument, R },
	{ "hwlat-width", K_HWWIDTH, required_argument, R },
	{ "hwlat-window", K_HWWINDOW, required_argument, R },
	{ "help", 'h', no_argument, R | L | S | P | X | T | N },
};
#define NR_OPTS (sizeof(table) / sizeof(table[0]))

/* Commands whose options end at the first other word (their command). */
#define STOP_AT_COMMAND (R | L | S | P)

static const char *const usages[] = {
	[CLI_FT_RECORD] =
	"usage: perfkit ftrace record [-e EVENT [-f FILTER]]... [-o FILE] [-b KB] "
	"[-C CPUS] [--clock C]\n"
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
	"  -R  a trigger of the -e before it (trace-cmd's -R; several "
	"allowed): traceon,\n"
	"      traceoff, stacktrace, snapshot, enable_event:SYS:EV, "
	"disable_event:SYS:EV,\n"
	"      hist:keys=...[:vals=...][:sort=...] ([:COUNT] [if FILTER])\n"
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
	"usage: perfkit ftrace live [-e EVENT]... [-t TRACER] [-p PID]... "
	"[-C CPUS] [--clock C] [-O OPTION]...\n"
	"                           [-b KB (16384)] [--top] [-- COMMAND...]\n"
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
	[CLI_FT_EXTRACT] =
	"usage: perfkit ftrace extract [--instance NAME] [-o FILE] "
	"[-z zstd|zlib|none]\n",
	[CLI_FT_STAT] = "usage: perfkit ftrace bufstat [--instance NAME]\n",
	[CLI_FT_SNAPSHOT] =
	"usage: perfkit ftrace snapshot [take|show|clear|free] "
	"[--instance NAME]\n"
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

/* The list option KEY takes ARG. 0 or -1 after the error line. */
static int push(struct cli_ftrace_opts *o, int key, const char *arg)
{
	struct cli_strv *l = key == 'e' ? &o->events : key == 'l' ? &o->filters :
			     key == 'n' ? &o->notrace : key == 'g' ? &o->graph :
			     &o->options;

	if (strv_push(l, arg) == 0)
		return 0;
	cli_error(o->name, "-%c %s: %s", key, arg, strerror(ENOMEM));
	return -1;
}

/* -R ARG: a trigger of the -e before it (newline-joined when several).
 * 0 or -1 after the error line. */
static int add_trigger(struct cli_ftrace_opts *o, const char *arg)
{
	const char *old;
	char *j;

	if (!o->events.n) {
		cli_error(o->name, "-R %s: no -e before it (the trigger is "
			  "the preceding event's)", arg);
		return -1;
	}
	old = o->event_triggers.v[o->events.n - 1];
	if (!old) {
		o->event_triggers.v[o->events.n - 1] = arg;
		return 0;
	}
	if (asprintf(&j, "%s\n%s", old, arg) < 0 ||
	    strv_push(&o->owned, j)) {
		cli_error(o->name, "-R %s: %s", arg, strerror(ENOMEM));
		return -1;
	}
	o->event_triggers.v[o->events.n - 1] = j;
	return 0;
}

/* A number of microseconds into *V. 0 or -1 after the error line. */
static int set_us(struct cli_ftrace_opts *o, const char *opt,
		  const char *arg, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || *arg == '-') {
		cli_error(o->name, "%s '%s': not a number of microseconds",
			  opt, arg);
		return -1;
	}
	return 0;
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
	case 'e':
		if (strv_push(&o->event_filters, NULL) ||
		    strv_push(&o->event_triggers, NULL)) {
			cli_error(o->name, "-e %s: %s", arg, strerror(ENOMEM));
			return -1;
		}
		return push(o, key, arg);
	case 'f':	/* the filter of the -e before it, as trace-cmd's */
		if (!o->events.n) {
			cli_error(o->name, "-f %s: no -e before it (the filter "
				  "is the preceding event's)", arg);
			return -1;
		}
		o->event_filters.v[o->events.n - 1] = arg;
		return 0;
	case 'l': case 'n': case 'O': return push(o, key, arg);
	case 'T': return push(o, 'O', "stacktrace");
	case 'o': o->output = arg; break;
	case 't': o->tracer = arg; break;
	case 'z': o->compression = arg; break;
	case 'B': o->instance = arg; break;
	case K_CLOCK: o->clock = arg; break;
	case 'a': o->all = true; break;
	case K_TSC2NSEC: o->tsc2nsec = true; break;
	case K_TOP: o->top_level = true; break;
	case 'R': return add_trigger(o, arg);
	case K_PROBE:
		if (strv_push(&o->dynevents, arg) == 0)
			return 0;
		cli_error(o->name, "--probe %s: %s", arg, strerror(ENOMEM));
		return -1;
	case K_THRESH:
		o->set_thresh = true;
		return set_us(o, "--thresh", arg, &o->thresh_us);
	case K_HWWIDTH: return set_us(o, "--hwlat-width", arg, &o->hwlat_width);
	case K_HWWINDOW:
		return set_us(o, "--hwlat-window", arg, &o->hwlat_window);
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

	*o = (struct cli_ftrace_opts){ .cmd = cmd, .name = name };
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

void cli_ftrace_opts_fini(struct cli_ftrace_opts *o)
{
	free(o->events.v);
	free(o->event_filters.v);
	free(o->event_triggers.v);
	free(o->dynevents.v);
	for (int i = 0; i < o->owned.n; i++)
		free((char *)o->owned.v[i]);
	free(o->owned.v);
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
	ro->events = o->events.v ? o->events.v : no_events;
	ro->event_filters = o->event_filters.v;
	ro->event_triggers = o->event_triggers.v;
	ro->dynevents = o->dynevents.v;
	ro->set_thresh = o->set_thresh;
	ro->thresh_us = o->thresh_us;
	ro->hwlat_width_us = o->hwlat_width;
	ro->hwlat_window_us = o->hwlat_window;
	if (o->output)
		ro->output = o->output;
	ro->buffer_kb = o->buffer_kb;
	ro->clock = o->clock;
	ro->tracer = o->tracer;
	ro->compression = o->compression;
	ro->top_level = o->top_level;
	ro->tsc2nsec = o->tsc2nsec;
	ro->filters = o->filters.v;
	ro->notrace = o->notrace.v;
	ro->graph = o->graph.v;
	ro->options = o->options.v;
	if (cmd_pid > 0) {      /* only the command and its children */
		v[n++] = cmd_pid;
		ro->follow_fork = true;
	}
	ro->pids = n ? o->rec_pids : NULL;
	ro->nr_pids = n;
	return rec_cpus(o, ro);
}
