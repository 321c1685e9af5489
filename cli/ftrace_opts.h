/* SPDX-License-Identifier: MIT */
/*
 * The options of the ftrace commands that trace (record, live) and of the
 * tools (stack, profile, extract, stat, snapshot): one table, one parser,
 * one result. What each option means is the same in every command that
 * takes it:
 *   -p PID[,PID]  existing processes; repeated -p add up, each pid once
 *                 (trace-cmd's -P; a bad pid is an error, not pid 0)
 *   -C CPUS       a CPU list; the last -C counts (trace-cmd's -M mask)
 *   -e, -l, -n, -g FUNC, -O   lists, as long as given
 *   -b KB         a number (trace-cmd takes atoi's 0 for "abc"; not here)
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
	CLI_FT_EXTRACT, CLI_FT_STAT, CLI_FT_SNAPSHOT,
};

/* A NULL-terminated list of option arguments (v NULL while empty). */
struct cli_strv {
	const char **v;
	int n;
};

struct cli_ftrace_opts {
	enum cli_ft_cmd cmd;
	const char *name;              /* "ftrace record": error lines */
	struct cli_strv events;        /* -e EVENT */
	struct cli_strv event_filters; /* -f FILTER of each -e (NULL: none) */
	struct cli_strv event_triggers;/* -R TRIGGER(s) of each -e (NULL: none;
					  several joined by newlines) */
	struct cli_strv dynevents;     /* --probe DEF */
	struct cli_strv owned;         /* strings made here (freed at fini) */
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
	bool all, top_level, tsc2nsec;
	bool graph_times;              /* profile's -g: function_graph */
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

/* The usage of CMD on F. */
void cli_ftrace_usage(enum cli_ft_cmd cmd, FILE *f);
#endif
