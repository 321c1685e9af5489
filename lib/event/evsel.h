/* SPDX-License-Identifier: MIT */
/*
 * Internal: the event objects. The event layer builds them (parser,
 * pk_evlist_add); the counter layer fills the open state (fd table over
 * cpus x threads); sampling layers above add their own state beside it.
 */
#ifndef PK_EVENT_EVSEL_H
#define PK_EVENT_EVSEL_H

#include <perfkit/event.h>
#include <perfkit/map.h>

struct pk_evsel {
	struct perf_event_attr attr;
	char *name;              /* display name, owned */
	char *pmu_name;          /* owned, "" when unknown */
	int idx;                 /* position in the evlist */
	struct pk_evsel *leader; /* self when leading or alone */
	int nr_members;          /* group size when leader, else 0 */
	unsigned int flags;      /* enum pk_evsel_flag */
	char *filter;            /* tracepoint filter to set at open, owned */
	struct pk_cpu_map *pmu_cpus; /* the PMU's own cpumask, or NULL */
	char *unit;              /* perf's unit ("msec", a PMU alias's), owned */
	double scale;            /* its scale, 1 when none */
	unsigned int terms;      /* enum pk_evsel_term: fields set by terms */
	uint64_t fmt_given;      /* the PMU's format terms given (bit: the
				    format's index, the first 64) */
	bool exclude_GH;         /* a G or H modifier was given (perf's rule
				    for later group modifiers) */
	uint64_t max_events;     /* nr= term, 0 when none */
	int tool;                /* enum pk_evsel_tool */
	char *group_name;        /* "name" of name{a,b}, leaders only, owned */
	char *aux_action;        /* the aux-action term's text, owned */

	/* open state (counter layer) */
	struct pk_cpu_map *cpus;
	struct pk_thread_map *threads;
	int *fds;                /* [cpu_idx * nr_threads + thread_idx], -1 */
	int open_errno;
};

struct pk_evlist {
	struct pk_evsel **entries;
	int nr, cap;
};

/* Allocates a zeroed event with its own leadership and no fds; a clock
 * (cpu-clock, task-clock) gets unit "msec" and scale 1e-6 as perf's
 * evsel__new_idx gives them, any other event "" and 1. */
struct pk_evsel *pk__evsel_new(const struct perf_event_attr *attr,
			       const char *name);
/* Closes fds, drops maps, frees. NULL is fine. */
void pk__evsel_free(struct pk_evsel *evsel);
/* Closes every fd and drops the open maps (state back to closed). */
void pk__evsel_close_fds(struct pk_evsel *evsel);
/* Appends EVSEL (ownership moves to the list). 0 or -ENOMEM. */
int pk__evlist_append(struct pk_evlist *evlist, struct pk_evsel *evsel);
/* Pointer to the fd slot for (cpu_idx, thread_idx), or NULL. */
int *pk__evsel_fd_slot(const struct pk_evsel *evsel, int cpu_idx,
		       int thread_idx);

#endif
