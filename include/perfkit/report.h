/* SPDX-License-Identifier: MIT */
/*
 * perfkit reports: the samples of a perf.data aggregated into hist
 * entries (one per distinct value of the sort keys, per event), as perf
 * report does, with self and children periods and a callchain tree per
 * entry; and perf report --stdio's text of them.
 *
 * Feed it from a pk_tool's sample callback (pk_report_add) while
 * pk_session_run() reads the file, then print with pk_report_print().
 */
#ifndef PERFKIT_REPORT_H
#define PERFKIT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <perfkit/common.h>
#include <perfkit/session.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_report;
struct pk_perfdata;

/* How callchains print (perf's -g modes). */
enum pk_report_chain {
	PK_REPORT_CHAIN_NONE,
	PK_REPORT_CHAIN_GRAPH,   /* percentages of the total */
	PK_REPORT_CHAIN_FRACTAL, /* percentages of the parent */
	PK_REPORT_CHAIN_FLAT,
	PK_REPORT_CHAIN_FOLDED,
};

struct pk_report_new_opts {
	size_t sz;
	/* Sort keys, perf's -s list: comm, pid, dso, sym (alias symbol).
	 * NULL: "comm,dso,sym". */
	const char *sort;
	/* Every sample's period also goes to each distinct entry of its
	 * callchain (perf's --children). */
	bool children;
	/* Build callchain trees (perf's -g other than none). */
	bool callchain;
	/* Callchains from the outermost caller down (perf's caller order);
	 * else from the sampled function up. */
	bool caller;
	/* Frames taken of each part of a callchain (kernel's chain, unwound
	 * user stack); 0: 127. */
	unsigned max_stack;
	/* Filters, comma-separated lists (NULL: all): samples of other
	 * command names, DSOs (short or full name), symbols, process or
	 * thread ids count in the totals only (perf's --comm, --dso,
	 * --symbols, --pid, --tid). */
	const char *comms, *dsos, *syms, *pids, *tids;
};
#define pk_report_new_opts__last_field tids

/*
 * A new, empty report over the machine S that pk_session_run() builds
 * from PD (both kept by the caller for the report's life). NULL with
 * errno: EINVAL (bad opts, unknown sort key), ENOMEM.
 */
PK_API struct pk_report *pk_report_new(struct pk_session *s,
				       struct pk_perfdata *pd,
				       const struct pk_report_new_opts *opts);
PK_API void pk_report_free(struct pk_report *r);

/* Adds one sample (from a pk_tool's sample callback). 0 or -ENOMEM. */
PK_API int pk_report_add(struct pk_report *r,
			 const struct pk_session_sample *sm);

/*
 * Takes note of a record (from a pk_tool's record callback): the lost
 * samples of PERF_RECORD_LOST_SAMPLES, the order in which MMAP and MMAP2
 * name DSOs (perf's order among equal callchain branches). 0 or -ENOMEM.
 */
PK_API int pk_report_record(struct pk_report *r, const struct pk_record *rec);

struct pk_report_print_opts {
	size_t sz;
	enum pk_report_chain chain;
	double chain_percent;   /* threshold, percent (perf's 0.5) */
	unsigned print_limit;   /* callchain entries per level; 0: all */
	bool show_nr_samples;   /* -n: a Samples column */
	bool show_period;       /* --show-total-period: a Period column */
	double percent_limit;   /* entries under it are not shown */
	const char *tip;        /* the closing "# (...)" line's text */
	/* Percentages of what the filters let through (perf's --percentage
	 * relative), not of every sample. */
	bool relative;
};
#define pk_report_print_opts__last_field relative

/*
 * Writes perf report --stdio's text of the report to F: the lost samples,
 * then per event with samples its header, column headers, entries and
 * their callchains. 0, or -EIO when writing failed, -ENOMEM.
 */
PK_API int pk_report_print(struct pk_report *r, FILE *f,
			   const struct pk_report_print_opts *opts);

/* ---- a live report (perf top) ---- */

/*
 * Ages the report as perf top does after each display: every entry's
 * periods and sample counts, and its callchain's, become 7/8 of what they
 * were (integer division); the totals lose what the entries lost. An
 * entry aged to nothing is no longer shown by pk_report_print_top().
 */
PK_API void pk_report_decay(struct pk_report *r);

struct pk_report_top_opts {
	size_t sz;
	unsigned attr;          /* the event's attribute index */
	unsigned rows;          /* at most this many entries; 0: all */
	/* Lines are cut to WIDTH - 1 characters (perf top's terminal
	 * width less one); 0: not cut. */
	unsigned width;
	double percent_limit;   /* entries under it are not shown */
	bool show_nr_samples;   /* -n: a Samples column */
	/* Percentages in perf's terminal colors (red from 5%, green above
	 * 0.5%); the escapes count in the WIDTH cut, as in perf. */
	bool color;
	/* perf top's browser: the columns as wide as their values (the
	 * headers' widths not minima) and, first, a line of the column
	 * titles cut to them. */
	bool fit;
};
#define pk_report_top_opts__last_field fit

/*
 * Writes the entries of one event as perf top --stdio shows them under
 * its header: no column headers, the columns as wide as the first ROWS
 * entries need, the kernel's DSO named "[kernel]". 0, -EINVAL (bad
 * opts), -ENOMEM, or -EIO when writing failed.
 */
PK_API int pk_report_print_top(struct pk_report *r, FILE *f,
			       const struct pk_report_top_opts *opts);

/* The sum of the periods of an event's entries (aged by pk_report_decay:
 * perf's "Event count" of a live report); 0 for an unknown ATTR. */
PK_API uint64_t pk_report_total_period(const struct pk_report *r,
				       unsigned attr);

#ifdef __cplusplus
}
#endif
#endif
