/* SPDX-License-Identifier: MIT */
/*
 * perfkit self-monitoring: count events of the calling thread over code
 * regions, reading the counters in user space where the kernel allows it.
 *
 * Each event is opened on the calling thread (pid 0, any CPU) with its
 * first mmap page (struct perf_event_mmap_page). A read follows
 * perf_event_open(2): the seqlock loop on `lock`, `index`/`offset`, rdpmc
 * (sign-extended to pmc_width) when cap_user_rdpmc and index != 0, and
 * time_enabled/time_running extrapolated from the timestamp counter with
 * time_shift/time_mult/time_offset when cap_user_time and the event is
 * multiplexed (enabled != running; otherwise the times are those of the
 * kernel's last page update and the ratio stays 1). When no hardware
 * counter backs the event (software events and tracepoints: index 0) or
 * rdpmc is not allowed, the read falls back to read(2) on the event fd.
 *
 * The counters belong to the thread that called pk_selfmon_new(); read
 * them from that thread (rdpmc reads the current CPU's counters).
 */
#ifndef PERFKIT_SELFMON_H
#define PERFKIT_SELFMON_H

#include <linux/perf_event.h>
#include <perfkit/common.h>
#include <perfkit/counter.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_selfmon;

/* How the last read of an event got its value. */
enum pk_selfmon_path {
	PK_SELFMON_NONE = 0, /* not read yet */
	PK_SELFMON_RDPMC,    /* user space: mmap page + rdpmc */
	PK_SELFMON_READ,     /* read(2) fallback */
};

/*
 * Opens N events (ATTRS copied) on the calling thread, enabled at once,
 * each with read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING and without
 * inherit (the kernel maps no page for inherited per-thread events).
 * Returns NULL with errno: EINVAL (N < 1), ENOMEM, or the open error of
 * the first event that failed (EACCES, ENOENT, EMFILE, ...).
 */
PK_API struct pk_selfmon *pk_selfmon_new(const struct perf_event_attr *attrs,
					 int n);
/* The same with the attributes of every event of EVLIST (groups are not
 * kept: each event is counted on its own). EVLIST is not changed. */
PK_API struct pk_selfmon *pk_selfmon_new_evlist(const struct pk_evlist *evlist);
/* Closes the events and unmaps their pages. NULL is fine. */
PK_API void pk_selfmon_free(struct pk_selfmon *m);

/* Number of events. */
PK_API int pk_selfmon_nr(const struct pk_selfmon *m);
/* The event fd of event IDX (for callers that poll or read it
 * themselves), or -EINVAL. */
PK_API int pk_selfmon_fd(const struct pk_selfmon *m, int idx);

/* Reads every event now into OUT[0 .. nr-1] (val, ena, run). 0, or
 * -errno from the read(2) fallback (-ENODATA: pinned error state). */
PK_API int pk_selfmon_read(struct pk_selfmon *m, struct pk_counts *out);

/* Region helpers: _begin records the counts now; _end reads again and
 * writes OUT[i] = now - begin (val, ena, run). _end without _begin counts
 * from the open. 0 or a pk_selfmon_read error. */
PK_API int pk_selfmon_begin(struct pk_selfmon *m);
PK_API int pk_selfmon_end(struct pk_selfmon *m, struct pk_counts *out);

/* The path the last read of event IDX took. */
PK_API enum pk_selfmon_path pk_selfmon_path(const struct pk_selfmon *m,
					    int idx);
/* "rdpmc", "read(2)" or "none". */
PK_API const char *pk_selfmon_path_name(enum pk_selfmon_path path);

#ifdef __cplusplus
}
#endif
#endif
