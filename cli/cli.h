/* SPDX-License-Identifier: MIT */
/* The perfkit command: one file per subcommand, public API only. */
#ifndef PK_CLI_H
#define PK_CLI_H
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>
#include <perfkit/perfkit.h>

/* Every subcommand: argv[0] is its name. Returns the exit status. Usage
 * errors exit 2. */
int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_pt(int argc, char **argv);
/* perfkit pt decode (cmd_pt_decode.c), called from cmd_pt. */
int cmd_pt_decode(int argc, char **argv);
int cmd_ftrace(int argc, char **argv);
/* ftrace subcommands (cli/cmd_ftrace_record.c) */
int cmd_ftrace_record(int argc, char **argv);
int cmd_ftrace_reset(int argc, char **argv);
int cmd_ftrace_extract(int argc, char **argv);
int cmd_ftrace_show(int argc, char **argv);
/* cli/cmd_ftrace_list.c, cmd_ftrace_stat.c, cmd_ftrace_tools.c */
int cmd_ftrace_list(int argc, char **argv);
int cmd_ftrace_stat(int argc, char **argv);
int cmd_ftrace_snapshot(int argc, char **argv);
int cmd_ftrace_stack(int argc, char **argv);
int cmd_ftrace_profile(int argc, char **argv);
/* The merged function profile as a table (cmd_ftrace_stat.c). */
void cli_ftrace_print_profile(FILE *f, const struct pk_func_profile *p,
			      int n, bool has_time);
/* kernel-text report and live streaming (cli/cmd_ftrace_live.c) */
int cmd_ftrace_report_kernel(int argc, char **argv);
/* ftrace commands' helper: a CPU list "1,3-5" appended to CPUS[N..MAX)
 * (the new count, or -1 when malformed or too long). */
int cli_parse_cpus(const char *s, int *cpus, int max, int n);
/* SIGINT/SIGTERM/SIGHUP set cli_ftrace_sig; a second one restores T and
 * ends the process with that signal. T NULL: only the flag from now on. */
struct pk_tracefs;
extern volatile sig_atomic_t cli_ftrace_sig;
void cli_ftrace_catch_signals(struct pk_tracefs *t);
int cmd_ftrace_live(int argc, char **argv);

/* pk_open_attempt_fn for stat and record (cli/open_trace.c): with VERBOSE
 * >= 2 perf's -vv trace of each attempt on CPUS x THREADS (FLAGS as given
 * to perf_event_open), with VERBOSE >= 1 perf's warning before a retry. */
struct cli_open_trace {
	int verbose;
	struct pk_cpu_map *cpus;
	struct pk_thread_map *threads;
	unsigned long flags;
};
void cli_open_attempt(void *ctx, struct pk_evsel *e,
		      const struct perf_event_attr *tried, int err,
		      const char *retry);

/* Prints "perfkit CMD: message" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Library diagnostics at or below this level reach stderr (-v raises it). */
extern int cli_verbose;
#endif
