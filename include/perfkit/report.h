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
	/* Sort keys, perf's -s list: comm, pid, dso, sym (alias symbol),
	 * cpu, socket, period, weight, local_weight, srcfile, srcline, trace,
	 * parent, symbol_size (with sym). NULL: "comm,dso,sym". */
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
	 * --symbols, --pid, --tid); an entry, children's too, is shown when
	 * the sample that made it passed (perf's rule). */
	const char *comms, *dsos, *syms, *pids, *tids;
	/* The parent key's extended regular expression (perf's -p): an
	 * entry's parent is the first function of its callchain whose name
	 * matches, in the chain's order (from the sample up; from the root
	 * with CALLER); NULL: "^sys_|^do_page_fault". */
	const char *parent;
	/* Output fields, perf's -F list: overhead, overhead_sys,
	 * overhead_us, overhead_children, sample, period and sort keys, in
	 * the order given; the entries sort by them (by SORT's keys first
	 * when SORT is given, whose other keys print after them). NULL: the
	 * overheads, then the sort keys. */
	const char *fields;
	/* perf's branch mode (-b): each branch of a sample's branch stack
	 * is an entry of period 1; the sort keys dso_from, dso_to,
	 * symbol_from, symbol_to, cycles, mispredict, in_tx and abort are
	 * the branch's (dso and sym: its target); SORT NULL:
	 * "comm,dso_from,symbol_from,symbol_to,cycles". Those keys need it. */
	bool branch;
	/* perf's memory mode (--mem-mode): a sample counts its weight (1
	 * when none); the sort keys mem, snoop, tlb, locked, blocked (the
	 * data source's), symbol_daddr, dso_daddr (the data address's) and
	 * local_ins_lat need it; SORT NULL: perf's "local_weight,mem,sym,
	 * dso,symbol_daddr,dso_daddr,snoop,tlb,locked,blocked,local_ins_lat,
	 * local_p_stage_cyc" (the last is POWER's: left out here). */
	bool mem;
	/* perf's -U: a sample whose own location has no symbol is dropped
	 * (from the totals too), and such frames from callchains. */
	bool hide_unresolved;
	/* perf's --symbol-filter: of the first event, only the entries
	 * whose symbol's name holds this text are shown; NULL: all. */
	const char *symbol_filter;
	/* perf's --socket-filter: with BY_SOCKET, only the entries whose
	 * first sample was on processor socket SOCKET are shown. */
	bool by_socket;
	int32_t socket;
	/* perf's -x: only the entries with a parent (a match of the parent
	 * key's regex) are shown; without the parent key, none. */
	bool exclude_other;
};
#define pk_report_new_opts__last_field exclude_other

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
	/* perf's --time argument, shown after each event's sample count as
	 * "(time slices: ...)"; NULL: none. */
	const char *time_slices;
	/* Event groups as separate events (perf's --no-group); else each
	 * group is one table, a column per member. */
	bool no_group;
	/* A view of a live report (perf top's browser): the entries
	 * pk_report_print_top() shows, in its order, the callchains as
	 * they stand (free the view before the report changes). */
	bool top;
	/* perf's -q: the entries and their callchains alone, no comment
	 * lines. */
	bool quiet;
	/* perf's -t: columns separated by this text, numbers unpadded
	 * (then left-aligned to their width), no dotted line; NULL or "":
	 * two spaces. */
	const char *field_sep;
	/* perf's --show-cpu-utilization: sys and usr columns after the
	 * overheads (without -F). */
	bool cpu_util;
	/* perf's --group-sort-idx: a group's rows sort by member
	 * GROUP_SORT's values alone, then by the keys (past the last
	 * member: the leader's alone); 0: the leader's, then the others'. */
	unsigned group_sort;
};
#define pk_report_print_opts__last_field group_sort

/*
 * Writes perf report --stdio's text of the report to F: the lost samples,
 * then per event with samples its header, column headers, entries and
 * their callchains. 0, or -EIO when writing failed, -ENOMEM.
 */
PK_API int pk_report_print(struct pk_report *r, FILE *f,
			   const struct pk_report_print_opts *opts);

/* The number of samples of event EVENT (attribute index) added. */
PK_API uint64_t pk_report_nr_samples(const struct pk_report *r,
				     unsigned event);

/*
 * perf report's browser: a view of one event's entries, those
 * pk_report_print() would print (the filters and percent limit), in its
 * order, their lines laid out as it lays them out, their callchains as
 * rows of a tree. The report must stay unchanged while views of it live.
 */
struct pk_report_view;

/* A view of event EVENT (attribute index) laid out by OPTS (NULL:
 * pk_report_print()'s defaults). NULL with errno: EINVAL (bad options,
 * no such event or no samples of it), ENOMEM. */
PK_API struct pk_report_view *
pk_report_view_new(struct pk_report *r, unsigned event,
		   const struct pk_report_print_opts *opts);
PK_API void pk_report_view_free(struct pk_report_view *v);

/*
 * Lays the view out for what a browser shows of it (perf's d, t and /):
 * the entries of the DSO named DSO (the short name the Shared Object
 * column shows; its column then goes), of thread TID (when THREAD) and
 * with symbol names holding SYM (NULL: no such limit). The widths are
 * those of the entries shown; with opts.relative the title and the
 * percentages count what is shown. The entries stay the same (the
 * caller hides those outside: pk_report_view_entry() and
 * pk_report_view_shown() tell). 0 or -ENOMEM.
 */
PK_API int pk_report_view_zoom(struct pk_report_view *v, const char *dso,
			       bool thread, int32_t tid, const char *sym);

/* perf's browser title: "Samples: 518  of event 'cpu-clock', Event
 * count (approx.): 129500000". Valid until the next zoom. */
PK_API const char *pk_report_view_title(const struct pk_report_view *v);
/* The column headers as --stdio prints them, without its "# ". */
PK_API const char *pk_report_view_header(const struct pk_report_view *v);
/* The number of entries. */
PK_API uint32_t pk_report_view_nr(const struct pk_report_view *v);
/* Entry I's line as --stdio prints it (no newline), or NULL for a bad
 * index. Valid until the next zoom. */
PK_API const char *pk_report_view_line(const struct pk_report_view *v,
				       uint32_t i);

/* One entry of a view. */
struct pk_report_entry {
	size_t sz;
	const char *comm;       /* its thread's command */
	int32_t pid, tid;
	const char *dso;        /* the DSO's short name, NULL: none */
	const char *sym;        /* the symbol, NULL: unresolved */
	uint64_t start;         /* the symbol's start, or the address */
	char level;             /* '.' user, 'k' kernel */
	uint64_t self, children;     /* periods */
	uint64_t nr_self, nr_children; /* samples */
	bool callchain;         /* has callchain rows */
};
#define pk_report_entry__last_field callchain

/* Describes entry I into OUT (OUT->sz set by the caller). 0 or -EINVAL. */
PK_API int pk_report_view_entry(const struct pk_report_view *v, uint32_t i,
				struct pk_report_entry *out);
/* Whether entry I is in the zoom of pk_report_view_zoom(). */
PK_API bool pk_report_view_shown(const struct pk_report_view *v, uint32_t i);

/*
 * Callchain rows as perf's browser shows them (graph or fractal): the
 * rows under entry I (ROW 0) or under row ROW: under a merged node's
 * first frame its other frames, under its last (or only) one the
 * children worth the threshold, heaviest first. Row ids
 * are non-zero and distinct over the view's entries. Returns the count
 * with the ids in *ROWS (the view's, valid until the next zoom), or
 * -EINVAL (bad I or ROW), -ENOMEM.
 */
PK_API int pk_report_view_chain(struct pk_report_view *v, uint32_t i,
				uint32_t row, const uint32_t **rows);
/* Row ROW's text into BUF (SIZE bytes with the NUL): the function, after
 * its percentage ("37.07% main") on the first frame of a merged node
 * where perf shows one (more than one sibling, or one not worth all of
 * its parent). Returns the row's level as perf indents it (1: an entry's
 * first rows; a merged node's other frames one further in when it shows
 * a percentage, its children two), or -EINVAL, -ENOMEM. */
PK_API int pk_report_view_chain_line(struct pk_report_view *v, uint32_t row,
				     char *buf, size_t size);

/* perf diff's computations (its -c). */
enum pk_report_compute {
	PK_REPORT_DELTA_ABS,    /* new percent - old, ordered by size */
	PK_REPORT_DELTA,        /* the same, ordered by value */
	PK_REPORT_RATIO,        /* new period / old period */
	PK_REPORT_WDIFF,        /* new period * w2 - old period * w1 */
};

struct pk_report_diff_opts {
	size_t sz;
	enum pk_report_compute compute;
	int64_t w1, w2;         /* PK_REPORT_WDIFF's weights, not 0 */
	/* Sort first by the column of this file (perf's -o; perf's default
	 * is 1); 0: by the baseline. Below the number of reports. */
	unsigned order;
	bool period;            /* -p: the periods beside */
	bool formula;           /* -F: each entry's formula */
	bool baseline_only;     /* -b: entries of the baseline that pair */
	bool relative;          /* --percentage relative */
	bool quiet;             /* -q: entries only, no headers */
	/* The files' names for the "# Data files:" list (more than two
	 * reports); NULL: not listed. */
	const char *const *names;
};
#define pk_report_diff_opts__last_field names

/*
 * Writes perf diff --stdio's text comparing the N reports R (R[0] the
 * baseline; all made with the same sort keys and filters, without
 * children or callchains) to F: per event of the baseline, its entries
 * paired with the others' by their keys (symbols by name, so that rebuilt
 * binaries pair), with the baseline percentage and the chosen computation
 * per other report (nothing for a report without that event). 0, or
 * -EINVAL (bad opts, N under 2, order out of range), -ENOMEM, -EIO when
 * writing failed, -ENOTSUP for what is not matched yet (nothing
 * printed): entries of kernel modules, sort keys without dso that put
 * unresolved addresses of several DSOs in one entry.
 */
PK_API int pk_report_diff_print(struct pk_report *const *r, unsigned n,
				FILE *f, const struct pk_report_diff_opts *opts);

/* ---- a live report (perf top) ---- */

/*
 * Ages the report as perf top does after each display: every entry's
 * periods and sample counts, and its callchain's, become 7/8 of what they
 * were (integer division); the totals lose what the entries lost. An
 * entry aged to nothing, or with no period of its own (a caller that
 * --children made), is deleted as perf deletes it: emptied, its callchain
 * dropped, no longer shown by pk_report_print_top() until samples come
 * to it again. A callchain node's sum becomes, as in perf, its own aged
 * hits and its children's (not theirs below). 0 or -ENOMEM.
 */
PK_API int pk_report_decay(struct pk_report *r);

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
	/* Each row's callchain below it, as perf top -g prints it: the
	 * report's trees (its CALLER order), percentages of the total, the
	 * nodes under CHAIN_PERCENT left out (perf's 0.5); lines not cut.
	 * NONE: rows only. */
	enum pk_report_chain chain;
	double chain_percent;
	/* Only the entries whose symbol's name holds SYM (perf's / in its
	 * browser), the widths theirs; NULL: all. */
	const char *sym;
};
#define pk_report_top_opts__last_field sym

/*
 * Writes the entries of one event as perf top --stdio shows them under
 * its header: no column headers, the columns as wide as the first ROWS
 * entries need, the kernel's DSO named "[kernel]". 0, -EINVAL (bad
 * opts), -ENOMEM, -EIO when writing failed, or -ENOTSUP for a report
 * with sort keys other than comm, pid, dso, sym, or with output fields.
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
