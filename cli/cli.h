/* SPDX-License-Identifier: MIT */
/*
 * The perfkit command: the subcommands' entry points and the helpers they
 * share (cli/cli.c). One file (or a few) per subcommand, public API only.
 */
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
int cmd_inject(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_pt(int argc, char **argv);
/* perfkit pt decode (cmd_pt_decode.c), called from cmd_pt. */
int cmd_pt_decode(int argc, char **argv);
int cmd_ftrace(int argc, char **argv);
/* cli/buildid_list.c, cli/buildid_cache.c */
int cmd_buildid_list(int argc, char **argv);
int cmd_buildid_cache(int argc, char **argv);
/* The browser of cli/tui.h on a text tree: a hidden test driver
 * (cli/cmd_tui_demo.c). */
int cmd_tui_demo(int argc, char **argv);
/* ftrace subcommands, dispatched by cmd_ftrace (cli/cmd_ftrace.c):
 * record/start/extract/state (cmd_ftrace_record.c), stop/restart/reset
 * (cmd_ftrace_state.c), list, stat,
 * snapshot/stack/profile (cmd_ftrace_tools.c), report --format=kernel and
 * live (cmd_ftrace_live.c) */
int cmd_ftrace_record(int argc, char **argv);
int cmd_ftrace_reset(int argc, char **argv);
int cmd_ftrace_stop(int argc, char **argv);
int cmd_ftrace_restart(int argc, char **argv);
int cmd_ftrace_start(int argc, char **argv);
int cmd_ftrace_extract(int argc, char **argv);
/* cmd_ftrace_restore.c */
int cmd_ftrace_restore(int argc, char **argv);
int cmd_ftrace_show(int argc, char **argv);
int cmd_ftrace_state(int argc, char **argv);
int cmd_ftrace_list(int argc, char **argv);
int cmd_ftrace_stat(int argc, char **argv);
int cmd_ftrace_bufstat(int argc, char **argv);
int cmd_ftrace_snapshot(int argc, char **argv);
int cmd_ftrace_free_buffer(int argc, char **argv);
int cmd_ftrace_stack(int argc, char **argv);
int cmd_ftrace_profile(int argc, char **argv);
/* trace-cmd's file commands: split (cmd_ftrace_split.c), */
int cmd_ftrace_split(int argc, char **argv);
/* dump (cmd_ftrace_dump.c) */
int cmd_ftrace_dump(int argc, char **argv);
/* check-events (cmd_ftrace_check.c) */
int cmd_ftrace_check_events(int argc, char **argv);
/* probe (dynamic events) and hist (an event's hist file), in
 * cmd_ftrace_probe.c */
int cmd_ftrace_probe(int argc, char **argv);
int cmd_ftrace_hist(int argc, char **argv);
/* Runs ARGV to its end, or waits for SIGINT without one (SIGINT ends the
 * command, not perfkit); cmd_ftrace_tools.c. 0 or -errno (said). */
int cli_ftrace_run_cmd(char **argv);
/* The merged function profile as a table (cmd_ftrace_stat.c). */
void cli_ftrace_print_profile(FILE *f, const struct pk_func_profile *p,
			      int n, bool has_time);
int cmd_ftrace_report_kernel(int argc, char **argv);
int cmd_ftrace_live(int argc, char **argv);

/* pk_open_attempt_fn for stat and record (cli/open_trace.c): with VERBOSE
 * >= 2 perf's -vv trace of each attempt on CPUS x THREADS (FLAGS as given
 * to perf_event_open), with VERBOSE >= 1 perf's warning before a retry. */
struct cli_open_trace {
	int verbose;
	struct pk_cpu_map *cpus;
	struct pk_thread_map *threads;
	unsigned long flags;
	bool block_per_cpu;	/* stat: the attr block again before each CPU */
};
void cli_open_attempt(void *ctx, struct pk_evsel *e,
		      const struct perf_event_attr *tried, int err,
		      const char *retry, int level);
/* Opens sampling event E on CPUS x THREADS with perf record's and perf
 * top's fallbacks (a :P event walks precise_ip down, cycles become
 * cpu-clock, kernel counting user space at paranoid 2; the trace with
 * VERBOSE); on failure "perfkit CMD: cannot open 'E': why" on stderr
 * (nothing when CMD is NULL: the caller words it). 0 or -errno. */
int cli_open_sampling(const char *cmd, struct pk_evsel *e,
		      struct pk_cpu_map *cpus, struct pk_thread_map *threads,
		      int verbose);

/*
 * getopt_long(3) for every command's option loop (LO may be NULL: short
 * options only), plus what a tool people package offers: `CMD --list-opts`
 * prints the long options on one line and exits 0 (bash completion), and
 * an unknown long option gets "perfkit CMD: did you mean '--NAME'?" after
 * getopt's message when one is close (CMD: argv[0]).
 */
struct option;
int cli_getopt(int argc, char **argv, const char *optstring,
	       const struct option *lo, int *li);
/* "perfkit CMD: did you mean 'EVENT'?" when the parser found a near name. */
void cli_event_hint(const char *cmd, const struct pk_parse_error *pe);
/*
 * TOOL WORD, where WORD is none of the N NAMES: perf's message on stderr,
 * "Did you mean this?" and the nearest name when one is close. Returns the
 * exit status (2).
 */
int cli_unknown_command(const char *tool, const char *word,
			const char *const *names, int n);

/* The N bytes of S as a quoted JSON string (pk_json_str), allocated;
 * NULL when out of memory. */
char *cli_json_quoted(const char *s, size_t n);

/*
 * The shared helpers (cli/cli.c).
 */
/* Prints "perfkit CMD: message" on stderr. */
void cli_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* kcore_dir.c: a perf.data directory's kcore that cannot be read, said in
 * one line (perf record --kcore's DIR/kcore_dir). */
void cli_kcore_dir_check(const char *cmd, const struct pk_perfdata *pd);
/* perf inject's output when its input is a directory: the directory OUT
 * (made), its perf.data path OUT/data into DATA; 0, or -1 said. */
int cli_kcore_dir_out(const char *cmd, const char *out, char *data,
		      size_t len);
/* DIR/kcore_dir's files copied into OUT/kcore_dir (perf inject's copy):
 * 0, or -1 said in one line. */
int cli_kcore_dir_copy(const char *cmd, const char *dir, const char *out);
/* Library diagnostics at or below this level reach stderr (-v raises it). */
extern int cli_verbose;
/* A CPU list "1,3-5" appended to CPUS[N..MAX) (the new count, or -1 when
 * malformed, empty or too long). */
int cli_parse_cpus(const char *s, int *cpus, int max, int n);
/* perf's --cpu LIST against the file PD (its samples must carry a CPU,
 * each CPU one the recording had): the bitmap of CPUs 0..1023 into MASK,
 * 0; or -EINVAL after a line naming CMD and INPUT. */
struct pk_perfdata;
int cli_cpu_mask(const char *cmd, const char *list, const char *input,
		 struct pk_perfdata *pd, uint64_t mask[1024 / 64]);
static inline bool cli_cpu_in(const uint64_t *mask, uint32_t cpu)
{
	return cpu < 1024 && (mask[cpu / 64] & (1ull << (cpu % 64)));
}
/* Whether any event of PD samples any of BITS (PERF_SAMPLE_*). */
bool cli_any_sample_type(struct pk_perfdata *pd, uint64_t bits);
/* time_range.c: "SECS[.FRACTION]" (N bytes at S) to ns, "" to 0 (an open
 * side); 0 or -EINVAL. */
int cli_parse_ns(const char *s, size_t n, uint64_t *out);
#define CLI_MAX_TIME_RANGES 64
/* perf's --time: ranges [start, end] in ns (0: open). */
struct cli_time_ranges {
	uint64_t r[CLI_MAX_TIME_RANGES][2];
	unsigned n;
};
/* Parses ARG (seconds "S,E" separated by spaces, or percentages of the
 * FIRST..LAST sample times: "10%/2", "0%-10%", comma-separated): 0 or
 * -EINVAL. */
int cli_time_ranges_parse(struct cli_time_ranges *t, const char *arg,
			  uint64_t first, uint64_t last);
/* Whether a sample at TIME falls in none of T's ranges. */
bool cli_time_ranges_skip(const struct cli_time_ranges *t, uint64_t time);
/* perf's checks before it reads a perf.data FILE (exists, owned by the
 * user or root unless FORCE, not empty), its messages on stderr; 0 or
 * the exit status (255). */
int cli_perfdata_check(const char *file, bool force);
/* Whether KEYS (-s, comma-separated) names only comm, pid, dso, sym
 * (symbol): the keys diff's and top's layouts were checked with. */
bool cli_basic_sort_keys(const char *keys);
/* perf's --header view of PD (read from file INPUT, "-": a pipe): the
 * "# ========" block of its feature sections (cli/perfdata_header.c);
 * FULL: -I's, the topology features in full. */
struct pk_perfdata;
void cli_perfdata_header(struct pk_perfdata *pd, const char *input, bool full);
/* --header-only of a pipe: its features as perf prints them while reading
 * it, in the order of their FEATURE records (reads every record). */
void cli_perfdata_pipe_features(struct pk_perfdata *pd, bool full);
/* perf's "Aggregated stats:" of the records of a perf.data, counted one
 * record at a time (cli/perfdata_stats.c). */
struct pk_record;
struct cli_stats {
	uint64_t counts[PK_RECORD_USER_MAX];
	uint64_t total;
	uint64_t *attr_samples;   /* SAMPLE, LOST_SAMPLES records per attr */
	unsigned nr_attr_samples;
	bool report;              /* report --stats: a branch stack is one
				     sample, lost samples per event */
};
/* Counts REC (each record as the reader gives it). 0 or -ENOMEM. */
int cli_stats_count(struct cli_stats *s, struct pk_perfdata *pd,
		    const struct pk_record *rec);
void cli_stats_print(const struct cli_stats *s, struct pk_perfdata *pd);
void cli_stats_fini(struct cli_stats *s);
/* FN catches SIGINT, SIGTERM and SIGHUP (each blocked while it runs),
 * with sigaction's SA_FLAGS. */
void cli_catch_stop(void (*fn)(int), int sa_flags);
/*
 * ftrace record and live: SIGINT, SIGTERM and SIGHUP, however many, only
 * ask for the orderly end (the file written, tracefs put back).
 * cli_stop_sig is the first of them (0: none yet). SA_RESTART: they cut
 * no write.
 */
extern volatile sig_atomic_t cli_stop_sig;
void cli_catch_stop_orderly(void);
/*
 * After cli_catch_stop_orderly: waits for the end of the started command
 * *CHILD (then set to 0; every stop signal is passed on to it as it comes)
 * and returns its wait status; without a command (*CHILD <= 0), for the
 * first stop signal or the end of all processes PIDS (NULL or none: the
 * signal only).
 */
struct pk_thread_map;
int cli_wait_stop(pid_t *child, const struct pk_thread_map *pids);
/* Exit status RC, or 128 + the stop signal for SIGTERM and SIGHUP (ftrace
 * record and live without a command). */
int cli_stop_exit(int rc);

/* --itrace=ARG of command CMD into *O (zeroed, sz set; ARG NULL: the bare
 * option): perf's letters, those perfkit cannot synthesize at all
 * refused. 0, or -EINVAL after a one-line error. */
struct pk_itrace_opts;
int cli_itrace_opts(const char *cmd, const char *arg,
		    struct pk_itrace_opts *o);
/* After a decode: says once what the trace held that perf would have
 * made samples of and perfkit does not yet (pk_itrace_unsynthesized). */
struct pk_itrace;
/* itrace_late.c: G and L: IN with the call chain and branch stack the
 * decoder IT gives it (O's letters) in *OUT (its arrays borrowed until
 * the next call): 1, or 0 (nothing to add; *OUT untouched). */
struct pk_sample;
int cli_itrace_late(struct pk_itrace *it, const struct pk_itrace_opts *o,
		    const struct pk_sample *in, struct pk_sample *out);
void cli_itrace_unsynthesized(const char *cmd, const char *input,
			      const struct pk_itrace *it);
/* perf's note that the kernel's symbols were not found for its build id
 * (once, on stderr), when session S wanted them. */
struct pk_session;
void cli_kernel_unresolved(struct pk_session *s);
#endif
