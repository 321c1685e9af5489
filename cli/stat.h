/* SPDX-License-Identifier: MIT */
/* perfkit stat: shared state between options (stat_opts.c), counting
 * (stat.c) and output (stat_out.c). */
#ifndef PK_CLI_STAT_H
#define PK_CLI_STAT_H
#include <stdbool.h>
#include <stdio.h>
#include <perfkit/perfkit.h>

enum aggr_mode {
	AGGR_GLOBAL, AGGR_CPU, AGGR_THREAD, AGGR_CORE, AGGR_DIE, AGGR_SOCKET,
	AGGR_NODE,
};

enum ev_status {
	EV_OK,
	EV_UNSUPPORTED, /* the kernel/hardware cannot count it */
	EV_NOT_COUNTED, /* never ran (its group could not be opened) */
};

struct stat_cfg {
	const char **events;
	const char **filters; /* per -e: its --filter, or NULL */
	int nr_events;
	const char *pids, *tids, *cpu_list, *cgroup, *output;
	const char *metrics, *pre, *post, *control, *cgroup_list;
	bool system_wide, no_inherit, json;
	int big;             /* -B: 1, --no-big-num: 0, neither: -1 */
	enum aggr_mode aggr;
	const char *sep;     /* CSV separator, NULL for human output */
	int interval_ms, repeat, delay_ms, verbose;
	int detailed, interval_count, timeout_ms, log_fd, td_level;
	bool null_run, group, sync, interval_clear, repeat_set, forever, table;
	bool append, quiet, metric_only, summary, no_csv_summary;
	bool all_user, all_kernel, no_scale;
	char **argv;         /* the command, or NULL */
};

/* Parses and checks the options (stat_opts.c); -1 when refused (the
 * message is printed). */
int stat_parse_args(struct stat_cfg *c, int argc, char **argv);

/* A running mean and variance (Welford). */
struct stats {
	double n, mean, m2;
};
/* (cli/stat_out.c) */
void stats_update(struct stats *s, double v);
/* Standard deviation of the mean, as perf reports noise. */
double stats_stddev_mean(const struct stats *s);

struct ev_res {
	enum ev_status status;
	struct pk_counts *cur;   /* cumulative counts per aggregation unit */
	struct pk_counts *prev;  /* at the previous interval */
	struct stats runs;       /* scaled global value over -r runs */
};

struct stat_run {
	struct stat_cfg *cfg;
	struct pk_evlist *evlist;
	struct pk_cpu_map *cpus;
	struct pk_thread_map *threads;
	struct pk_cpu_map *tool_cpus;       /* tool events: CPU 0 ... */
	struct pk_thread_map *tool_threads; /* ... and every thread, as perf */
	struct ev_res *res;      /* per event */
	int nr_units;
	char **unit_names;       /* per-thread: "comm-tid" */
	struct pk_cpu_topo *unit_topo; /* --per-core etc.: each unit's id */
	int *unit_cpus;          /* per unit: CPUs aggregated (--per-core...) */
	int *cpu_unit;           /* per CPU index: its unit */
	FILE *out;
	double wall_ns;          /* elapsed time of the (last) run */
	struct stats wall_runs;  /* elapsed seconds over -r runs */
	double utime, stime;     /* child's rusage, seconds */
	bool have_rusage;        /* user/sys lines: the command is the target */
	int run_idx;
	double *run_walls;       /* --table: each run's elapsed seconds */
	bool summary;            /* printing the --summary block */
};

/* Prints the whole result (or one interval when TS_NS >= 0 with deltas). */
void stat_print(struct stat_run *r, double ts_ns);
/* The interval header line, when the format has one. */
void stat_print_interval_header(struct stat_run *r);
/* True for perf's tool events (duration_time, user_time, system_time)
 * (cli/stat_out.c). */
bool stat_is_tool(struct pk_evsel *e);
#endif
