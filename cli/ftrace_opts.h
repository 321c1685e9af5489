/* SPDX-License-Identifier: MIT */
/*
 * The options of the ftrace commands that trace (record, live) and of the
 * tools (stack, profile, stat, snapshot): one table, one parser,
 * one result. What each option means is the same in every command that
 * takes it:
 *   -p PID[,PID]  existing processes; repeated -p add up, each pid once
 *                 (trace-cmd's -P; a bad pid is an error, not pid 0)
 *   -C CPUS       a CPU list; the last -C counts (trace-cmd's -M mask)
 *   -e, -l, -n, -g FUNC, -O   lists, as long as given
 *   -b KB         a number (trace-cmd takes atoi's 0 for "abc"; not here)
 * record and live also take trace-cmd record's spellings: -P PID (= -p),
 * -M HEXMASK, -F, -c, -v, -R, -i, -k, -s, -m, -d, -D, -G, -B (record),
 * --max-graph-depth, --func-stack, --nosplice, --verbose, --module,
 * --cmdlines-size, --ts-offset, -q (record). Where a
 * trace-cmd letter means something else here the perf-style meaning
 * stays and trace-cmd's is a long option: -p PID (trace-cmd's -p
 * tracer: -t/--tracer/--plugin), -C CPUS (trace-cmd's -C clock: --clock),
 * -t TRACER (trace-cmd's -t: TCP to a listener, not supported), -N HOST
 * (network: refused), -a (every process, trace-cmd's -a: all formats,
 * always what a glob or "all" saves).
 */
#ifndef PK_CLI_FTRACE_OPTS_H
#define PK_CLI_FTRACE_OPTS_H
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct pk_cpu_map;
struct pk_thread_map;
struct pk_ftrace_rec_opts;

/* The command the options are parsed for: each takes its own subset. */
enum cli_ft_cmd {
	CLI_FT_RECORD, CLI_FT_LIVE, CLI_FT_STACK, CLI_FT_PROFILE,
	CLI_FT_STAT, CLI_FT_SNAPSHOT,
	CLI_FT_START,           /* trace-cmd start: record's set-up, kept */
};

/* A NULL-terminated list of option arguments (v NULL while empty). */
struct cli_strv {
	const char **v;
	int n;
};

/* The events of one buffer with their per-event options (trace-cmd
 * record's: each -f/-R belongs to the -e before it, -v to every -e after
 * it, -M to the buffer). */
struct cli_ft_evlist {
	const char *name;              /* -B NAME (NULL: the main buffer) */
	struct cli_strv events;        /* -e EVENT */
	struct cli_strv filters;       /* -f FILTER of each -e (NULL: none) */
	struct cli_strv triggers;      /* -R TRIGGER(s) of each -e (NULL: none;
					  several joined by newlines) */
	bool *exclude;                 /* each -e: after a -v */
	const char *cpumask;           /* -M MASK (NULL: none) */
};

struct cli_ftrace_opts {
	enum cli_ft_cmd cmd;
	const char *name;              /* "ftrace record": error lines */
	struct cli_ft_evlist main;     /* the main buffer's events */
	struct cli_ft_evlist *bufs;    /* record -B NAME: its events */
	int nr_bufs;
	bool excluding;                /* a -v was given */
	struct cli_strv dynevents;     /* --probe DEF */
	bool set_thresh;               /* --thresh given */
	unsigned long long thresh_us, hwlat_width, hwlat_window;
	struct cli_strv filters;       /* -l FUNC (set_ftrace_filter) */
	struct cli_strv notrace;       /* -n FUNC (set_ftrace_notrace) */
	struct cli_strv graph;         /* record's -g FUNC (set_graph_function) */
	struct cli_strv options;       /* -O [no]OPTION */
	struct pk_cpu_map *cpus;       /* -C (NULL: every online CPU) */
	struct pk_thread_map *pids;    /* -p (NULL: none given) */
	const char *output;            /* -o (NULL: the command's default) */
	const char *clock, *tracer, *compression, *instance;
	int buffer_kb;                 /* -b (0: not given) */
	unsigned subbuf_kb;            /* --subbuf-size (0: not given) */
	int snap_cpu;                  /* snapshot --cpu N (-1: none) */
	int *notrace_pids;             /* --notrace-pid PID... */
	int nr_notrace_pids;
	bool all, top_level, tsc2nsec;
	bool graph_times;              /* profile's -g: function_graph */
	bool only_cmd, children;       /* -F, -c */
	bool keep, ignore_missing;     /* -k, -i */
	bool no_splice, no_ftrace;     /* --nosplice, -D */
	bool sleep_set;                /* -s USECS given */
	unsigned sleep_us;
	unsigned long long max_kb;     /* -m KiB (0: none) */
	const char *max_graph_depth;   /* --max-graph-depth N */
	const char *cmdlines_size;     /* --cmdlines-size N */
	const char *module;            /* --module MOD */
	long long ts_offset;           /* --ts-offset N */
	bool quiet;                    /* -q: no per-CPU summary */
	bool fork;                     /* start --fork: the command not waited for */
	const char *temp_dir;          /* --temp DIR */
	int rt_priority;               /* -r PRIO */
	struct cli_strv owned;         /* strings made here (--module, -R) */
	struct pk_ftrace_rec_buffer *rec_bufs;  /* cli_ftrace_opts_rec's */
	char **args;                   /* what follows the options
					  (NULL-terminated, maybe empty) */
	int nr_args;
	int *rec_cpus, *rec_pids;      /* cli_ftrace_opts_rec's arrays */
};

/*
 * Parses ARGV of the ftrace command CMD (NAME in error lines) into *O
 * (which cli_ftrace_opts_fini() then frees, whatever this returns). True
 * to go on; false when the command should exit with *RC: 0 after -h (the
 * usage on stdout), 2 after an error (one line naming the option and its
 * argument, or getopt's line and the usage, on stderr).
 */
bool cli_ftrace_opts_parse(struct cli_ftrace_opts *o, enum cli_ft_cmd cmd,
			   const char *name, int argc, char **argv, int *rc);
void cli_ftrace_opts_fini(struct cli_ftrace_opts *o);

/*
 * The recorder's options from *O: events, CPUs, pids (and CMD_PID when >
 * 0, the command started), clock, buffer size, top level, tracer and its
 * lists. The arrays stay owned by *O (until cli_ftrace_opts_fini). 0 or
 * -ENOMEM.
 */
int cli_ftrace_opts_rec(struct cli_ftrace_opts *o, pid_t cmd_pid,
			struct pk_ftrace_rec_opts *ro);

/* Whether *O names events (in any buffer). */
bool cli_ftrace_opts_has_events(const struct cli_ftrace_opts *o);

/* The usage of CMD on F. */
void cli_ftrace_usage(enum cli_ft_cmd cmd, FILE *f);
#endif
