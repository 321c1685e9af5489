/* SPDX-License-Identifier: MIT */
/*
 * perfkit counting: open the events of a pk_evlist on CPUs x threads, control
 * them and read their counts (every read_format, multiplexing scaling).
 *
 * Each event holds one fd per (cpu index, thread index) pair of the maps it
 * was opened on. Group members pass their leader's fd for the same pair as
 * group_fd. Every fd is opened with PERF_FLAG_FD_CLOEXEC.
 */
#ifndef PERFKIT_COUNTER_H
#define PERFKIT_COUNTER_H

#include <stdint.h>
#include <stdbool.h>
#include <perfkit/common.h>
#include <perfkit/event.h>
#include <perfkit/map.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- opening ---- */

/* Changes pk_evsel_open may make to an event the kernel refuses, each as
 * perf makes it, before retrying (pk_open_opts.fallbacks). */
enum pk_open_fallback {
	/* EACCES at perf_event_paranoid > 1 for an event that counts in the
	 * kernel and not user-only (no :k): count user space only
	 * (exclude_kernel and exclude_hv set) and append "u" to the name
	 * (":u" when it has no ':' or '/'). */
	PK_OPEN_FALLBACK_USER   = 1u << 0,
	/* ENOENT, ENXIO or ENODEV for hardware cycles: software cpu-clock
	 * instead, named "cpu-clock" plus the modifiers of its attribute. */
	PK_OPEN_FALLBACK_CYCLES = 1u << 1,
	/* Any error for an event asked for at its highest precision (the 'P'
	 * modifier, PK_EVSEL_PRECISE_MAX): precise_ip one lower, down to 0;
	 * past 0 it goes back to where it began and the other fallbacks
	 * follow (perf's walk). Its note is perf's debug line (level 2). */
	PK_OPEN_FALLBACK_PRECISE = 1u << 2,
};

/*
 * Called after each open attempt: TRIED is the attribute as given to that
 * attempt, ERR its result (0: open, every fd readable by pk_evsel_fd; else
 * the fds are closed). RETRY is NULL when this was the last attempt, else
 * the fallback made before the next one, in perf's words (one line, no
 * newline); LEVEL says which kind perf prints: 1 a warning (perf -v), 2 a
 * debug note (perf -vv).
 */
typedef void (*pk_open_attempt_fn)(void *ctx, struct pk_evsel *evsel,
				   const struct perf_event_attr *tried,
				   int err, const char *retry, int level);

struct pk_open_opts {
	size_t sz;
	/* Extra PERF_FLAG_* bits (FD_CLOEXEC is always set). */
	unsigned long flags;
	/* Count only tasks in this cgroup (a path under the cgroup mount, or
	 * a path relative to it): the pid argument becomes the cgroup's fd
	 * with PERF_FLAG_PID_CGROUP. Needs a CPU map of real CPUs. */
	const char *cgroup;
	/* enum pk_open_fallback bits: what may change in an event the kernel
	 * refuses before the open is retried (perf's fallbacks). */
	unsigned int fallbacks;
	/* Called after every attempt (see pk_open_attempt_fn), or NULL. */
	pk_open_attempt_fn attempt;
	void *attempt_ctx;
};
#define pk_open_opts__last_field attempt_ctx

/*
 * Opens EVSEL on every (cpu, thread) pair. Members of a group must be opened
 * after their leader, on the same maps. Returns 0, or -errno from
 * perf_event_open (the event's fds are then all closed; pk_evsel_open_errno
 * keeps it). OPTS may be NULL.
 *
 * When the kernel answers EINVAL, features it lacks (see perfkit/features.h)
 * are cleared from the event's attribute one at a time, newest first, and
 * the open retried, as perf does; the attribute then shows what was opened.
 * An attribute larger than the kernel's struct is shrunk when the extra
 * bytes are zero (else -E2BIG). Errors besides the kernel's: -EBUSY (already
 * open), -EINVAL (bad OPTS, empty maps, a member on other maps than its
 * leader, a cgroup without real CPUs), the leader's open error (or -EBADF)
 * for a member whose leader is not open, -ENOENT etc. from opening the
 * cgroup, -ENOMEM. -EMFILE (out of fds) is returned as such.
 *
 * With OPTS->fallbacks, an error that one of them answers changes the
 * event's attribute (and name) and the open is retried, each fallback at
 * most once (PRECISE once per level); the error returned is the last
 * attempt's.
 */
PK_API int pk_evsel_open(struct pk_evsel *evsel, struct pk_cpu_map *cpus,
			 struct pk_thread_map *threads,
			 const struct pk_open_opts *opts);

/*
 * Opens every event in order. With KEEP_GOING an event that fails is left
 * closed (its error kept) and the others are still opened; otherwise the
 * first failure closes all and is returned. Returns the number of events
 * opened, or a negative error.
 */
PK_API int pk_evlist_open(struct pk_evlist *evlist, struct pk_cpu_map *cpus,
			  struct pk_thread_map *threads,
			  const struct pk_open_opts *opts, bool keep_going);

/* Closes every fd of the event (safe on a closed event). */
PK_API void pk_evsel_close(struct pk_evsel *evsel);
PK_API void pk_evlist_close(struct pk_evlist *evlist);

/* True once pk_evsel_open succeeded and until closed. */
PK_API bool pk_evsel_is_open(const struct pk_evsel *evsel);
/* The -errno of the last failed open, or 0. */
PK_API int pk_evsel_open_errno(const struct pk_evsel *evsel);
/* The fd for (cpu index, thread index), or -EINVAL / -EBADF when closed. */
PK_API int pk_evsel_fd(const struct pk_evsel *evsel, int cpu_idx,
		       int thread_idx);
PK_API struct pk_cpu_map *pk_evsel_cpus(const struct pk_evsel *evsel);
PK_API struct pk_thread_map *pk_evsel_threads(const struct pk_evsel *evsel);

/*
 * Explains ERR, an error from opening an event with ATTR, in one line for
 * users (no trailing newline) into BUF: for EACCES/EPERM the rule that
 * refused it with the current /proc/sys/kernel/perf_event_paranoid value
 * (CPU_WIDE: the event was opened on every thread of a CPU), for EMFILE
 * the open-file limit, for ENOENT/ENODEV/EOPNOTSUPP that the event is not
 * supported here, ... Returns the length the text needs (like snprintf).
 */
PK_API int pk_open_strerror(int err, const struct perf_event_attr *attr,
			    bool cpu_wide, char *buf, size_t size);

/* ---- control (ioctls over every fd of the event or list) ---- */

/* Enable, disable or reset. With GROUP, PERF_IOC_FLAG_GROUP applies the
 * ioctl to the whole group of a leader. Return 0 or -errno. */
PK_API int pk_evsel_enable(struct pk_evsel *evsel, bool group);
PK_API int pk_evsel_disable(struct pk_evsel *evsel, bool group);
PK_API int pk_evsel_reset(struct pk_evsel *evsel, bool group);
PK_API int pk_evlist_enable(struct pk_evlist *evlist);
PK_API int pk_evlist_disable(struct pk_evlist *evlist);
PK_API int pk_evlist_reset(struct pk_evlist *evlist);
/* PERF_EVENT_IOC_ID for one fd. */
PK_API int pk_evsel_id(const struct pk_evsel *evsel, int cpu_idx,
		       int thread_idx, uint64_t *id);
/* PERF_EVENT_IOC_SET_FILTER (tracepoint filter) on every fd; on a closed
 * event the filter is kept and set when it opens. -EINVAL for a filter the
 * kernel rejects, -EEXIST when the open event already has one (the kernel
 * sets a filter once per fd). A NULL FILTER forgets the kept filter of a
 * closed event (-EINVAL on an open one). */
PK_API int pk_evsel_set_filter(struct pk_evsel *evsel, const char *filter);
/* PERF_EVENT_IOC_PERIOD on every fd. */
PK_API int pk_evsel_set_period(struct pk_evsel *evsel, uint64_t period);
/* PERF_EVENT_IOC_REFRESH on every fd. */
PK_API int pk_evsel_refresh(struct pk_evsel *evsel, int count);
/* PERF_EVENT_IOC_MODIFY_ATTRIBUTES on every fd (the kernel supports it
 * for breakpoints: a new bp_addr/bp_type/bp_len without reopening). On
 * success the event's attribute becomes ATTR. 0 or -errno. */
PK_API int pk_evsel_modify_attr(struct pk_evsel *evsel,
				const struct perf_event_attr *attr);
/* prctl(PR_TASK_PERF_EVENTS_ENABLE / _DISABLE): every event of the
 * calling process. */
PK_API int pk_task_events_enable(void);
PK_API int pk_task_events_disable(void);

/* ---- reading ---- */

/* One counter's value with the fields read_format asked for (0 otherwise). */
struct pk_counts {
	uint64_t val;
	uint64_t ena;  /* time enabled, ns */
	uint64_t run;  /* time running, ns */
	uint64_t id;
	uint64_t lost;
};

/*
 * Parses BUF, LEN bytes returned by read(2) on an event with READ_FORMAT,
 * into OUT (at most MAX entries; one per group member with
 * PERF_FORMAT_GROUP, else one). Returns the number of entries, PK_ERR_TRUNC
 * when LEN is short, or PK_ERR_RANGE when MAX is too small.
 */
PK_API int pk_read_format_parse(uint64_t read_format, const void *buf,
				size_t len, struct pk_counts *out, int max);
/* The inverse: encodes N entries as the kernel would. Returns bytes
 * needed (like snprintf). */
PK_API int pk_read_format_write(uint64_t read_format, const struct pk_counts *in,
				int n, void *buf, size_t size);

/* Reads the event's own counter on one (cpu, thread) fd. Also works on a
 * group member of a PERF_FORMAT_GROUP leader. 0 or -errno; -ENODATA when
 * the kernel returned 0 bytes (a pinned counter in error state: it is not
 * counting until enabled or disabled again); -EBADF when not open. */
PK_API int pk_evsel_read(struct pk_evsel *evsel, int cpu_idx, int thread_idx,
			 struct pk_counts *out);
/* Reads a PERF_FORMAT_GROUP leader's whole group in one read(2). Returns
 * the number of entries written to OUT (at most MAX) or a negative error. */
PK_API int pk_evsel_read_group(struct pk_evsel *leader, int cpu_idx,
			       int thread_idx, struct pk_counts *out, int max);
/* Sums the event over every fd (val, ena, run, lost; id is the first
 * fd's). Fds in pinned error state (-ENODATA) add nothing; -ENODATA when
 * every fd is. */
PK_API int pk_evsel_read_sum(struct pk_evsel *evsel, struct pk_counts *out);

/*
 * Multiplexing: the value extrapolated to the whole enabled time,
 * val * ena / run. *STATE (may be NULL) is 0 when not scaled, 1 when
 * scaled, -1 when the event never ran (run == 0: returns 0). Needs
 * PERF_FORMAT_TOTAL_TIME_ENABLED|RUNNING in read_format (else ena and run
 * are 0). Computed in 128 bits; a result above UINT64_MAX saturates.
 */
PK_API uint64_t pk_counts_scaled(const struct pk_counts *c, int *state);

#ifdef __cplusplus
}
#endif
#endif
