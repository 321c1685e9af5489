/* SPDX-License-Identifier: MIT */
/* perfkit stat: shared state between counting (stat.c) and output
 * (stat_out.c). */
#ifndef PK_CLI_STAT_H
#define PK_CLI_STAT_H
#include <stdbool.h>
#include <stdio.h>
#include <perfkit/perfkit.h>

enum aggr_mode { AGGR_GLOBAL, AGGR_CPU, AGGR_THREAD };

enum ev_status {
	EV_OK,
	EV_UNSUPPORTED, /* the kernel/hardware cannot count it */
	EV_NOT_COUNTED, /* never ran (its group could not be opened) */
};

struct stat_cfg {
	const char **events;
	int nr_events;
	const char *pids, *tids, *cpu_list, *cgroup, *output;
	bool system_wide, no_inherit, json, big;
	enum aggr_mode aggr;
	const char *sep;     /* CSV separator, NULL for human output */
	int interval_ms, repeat, delay_ms, verbose;
	char **argv;         /* the command, or NULL */
};

/* A running mean and variance (Welford). */
struct stats {
	double n, mean, m2;
};
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
	struct ev_res *res;      /* per event */
	int nr_units;
	char **unit_names;       /* per-thread: "comm-tid" */
	FILE *out;
	double wall_ns;          /* elapsed time of the (last) run */
	struct stats wall_runs;  /* elapsed seconds over -r runs */
	double utime, stime;     /* child's rusage, seconds */
	bool have_rusage;
	int run_idx;
};

/* Prints the whole result (or one interval when TS_NS >= 0 with deltas). */
void stat_print(struct stat_run *r, double ts_ns);
/* The interval header line, when the format has one. */
void stat_print_interval_header(struct stat_run *r);
#endif
