/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace: trace text, as trace-cmd and the kernel print it.
 *
 * pk_tracedat_report() prints a trace.dat file the way `trace-cmd report`
 * 3.1 does; pk_tracedat_report_kernel() and pk_ktext print events the way
 * the kernel's own "trace" file does, from a file or live from tracefs.
 * The layers below: <perfkit/tracedat.h> (files) and <perfkit/tracefs.h>
 * (control, recording).
 */
#ifndef PERFKIT_FTRACE_H
#define PERFKIT_FTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <perfkit/common.h>
#include <perfkit/tracedat.h>
#include <perfkit/tracefs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Options of pk_tracedat_report(); declare with PK_OPTS(). */
/* How pk_tracedat_report() formatted the records (PK_REPORT_...). */
enum pk_report_engine {
	PK_REPORT_AUTO = 0,   /* compiled formatter, libtraceevent per
				 record where it cannot print exactly */
	PK_REPORT_TEP,        /* libtraceevent for everything (reference) */
};
/* Counts filled in by pk_tracedat_report() (opts->stats). */
struct pk_report_stats {
	long fast;            /* records the compiled formatter printed */
	long fallback;        /* records printed by libtraceevent */
	int formats_fast;     /* formats compiled (of the events seen) */
	int formats_fallback; /* formats left to libtraceevent */
};
/* Layout switches of pk_report_opts.flags (trace-cmd report's options). */
enum pk_report_flags {
	PK_REPORT_FULL_TS = 1 << 0,  /* -t: nanoseconds, not rounded to us */
	PK_REPORT_LATENCY = 1 << 1,  /* -l: "comm-pid cpu+flags" columns */
	PK_REPORT_RAW     = 1 << 2,  /* -R: every field as name=value */
	PK_REPORT_TS_DIFF = 1 << 3,  /* --ts-diff: "(+delta)" after the time */
	PK_REPORT_WAKEUP  = 1 << 4,  /* -w: " Latency: ..." after a switch to
					a woken task, the summary at the end */
	PK_REPORT_NO_IRQS = 1 << 5,  /* -I: leave out records made in a hard
					interrupt (common_flags 0x08) */
	PK_REPORT_NO_SOFTIRQS = 1 << 6,  /* -S: ... in a softirq (0x10) */
	PK_REPORT_TS_CHECK = 1 << 7,  /* --ts-check: a warning (the print
					 callback) for each printed record
					 older than the one before */
	PK_REPORT_FILTER_TEST = 1 << 8,  /* -T: print the filters as
					    libtraceevent reads them (" 'EVENT:
					    FILTER'" per event) instead of
					    the records, when there are any */
};
/* Whether trace-cmd's -I/-S (FLAGS, PK_REPORT_NO_*) leave out the record
 * DATA (SIZE bytes): its common_flags say it was made in such a context. */
PK_API bool pk_report_irq_skip(unsigned flags, const void *data,
			       uint32_t size);
/* One -F of trace-cmd report: "EVENTS[:EXPR]" in libtraceevent's filter
 * syntax; INVERT (-v): the matching records are left out instead. */
struct pk_report_filter {
	const char *text;
	bool invert;
};
struct pk_report_opts {
	size_t sz;
	const int *cpus;      /* only these CPUs (NULL: all) */
	int nr_cpus;
	bool events;          /* print the event formats instead */
	int engine;           /* enum pk_report_engine */
	struct pk_report_stats *stats;  /* NULL or filled in */
	unsigned flags;       /* enum pk_report_flags */
	/* filters, in order (trace-cmd 3.1's rule): a record prints when
	 * one positive filter matches it (or there are none, or it is a
	 * kernel/user stack right after a record of its CPU that printed)
	 * and no inverted one matches it */
	const struct pk_report_filter *filters;
	int nr_filters;
	/* --pid/--comm: one more positive filter, after FILTERS, for the
	 * records of these tasks (common_pid, pid or next_pid; a command
	 * name stands for the pids the saved cmdlines give it) */
	const int *pids;
	int nr_pids;
	const char *const *comms;
	int nr_comms;
	/* --event: with EVENTS, only the formats it matches ("SYSTEM:EVENT"
	 * or one regular expression for either, case-insensitive) */
	const char *events_match;
};
/*
 * Prints TD to OUT exactly as `trace-cmd report` 3.1 prints it (event
 * payloads as libtraceevent and its plugins print them). By default the
 * payloads come from perfkit's compiled formatter, and the records it
 * cannot reproduce exactly from libtraceevent (set up on first need);
 * opts->engine PK_REPORT_TEP uses libtraceevent for every record.
 * opts->flags change the line layout as trace-cmd's -t, -l, -R and
 * --ts-diff do; -l, -R and opts->filters format through libtraceevent
 * (as the reference engine does).
 * Returns the number of events printed, or a negative error: -EINVAL (bad
 * opts), PK_ERR_SYNTAX (a filter libtraceevent refuses; the print
 * callback says which and why), or a damaged file's error (the report
 * stops after what could be printed).
 */
PK_API long pk_tracedat_report(struct pk_tracedat *td, FILE *out,
			       const struct pk_report_opts *opts);

/* What pk_tracedat_report_info() prints (trace-cmd report's options). */
enum pk_report_info {
	PK_REPORT_INFO_PRINTK,  /* -P: "%016x STRING" by address */
	PK_REPORT_INFO_EVENTS,  /* -E: "system:event" of every format */
	PK_REPORT_INFO_CPUS,    /* --cpus: the top buffer's CPUs with data */
	PK_REPORT_INFO_FIRST,   /* --first-event: and their first time */
	PK_REPORT_INFO_LAST,    /* --last-event: and their last time */
	PK_REPORT_INFO_STAT,    /* --stat: the buffer statistics stored in
				   the file, the top buffer's CPU data */
	PK_REPORT_INFO_UNAME,   /* --uname: the recording's uname, version */
	PK_REPORT_INFO_VERSION, /* --version: the recorder's version */
	PK_REPORT_INFO_ENDIAN,  /* -e: the file's and this host's byte order */
	PK_REPORT_INFO_FUNCS,   /* -f: the kallsyms functions by address */
};
/*
 * Prints what `trace-cmd report` 3.1 prints for one of its listing
 * options WHAT (enum pk_report_info) on TD; PATH names the file in the
 * CPU lists (NULL: "trace.dat"). Returns 0, -EINVAL (unknown WHAT),
 * -ENOMEM, -EIO (OUT's error) or a damaged file's error.
 */
PK_API long pk_tracedat_report_info(struct pk_tracedat *td, FILE *out,
				    int what, const char *path);


/* pk_tracedat_report_profile() flags: PK_REPORT_NO_IRQS and
 * PK_REPORT_NO_SOFTIRQS (-I, -S) and */
enum { PK_PROFILE_GLOBAL = 1 << 16 };  /* -G: irqs and softirqs per CPU */
/*
 * Prints what `trace-cmd report --profile` 3.1 prints for TD's top
 * buffer: per task (by pid), each event's count and, for the events it
 * pairs (a task's switch out to its wake-up or switch in, wake-up to
 * switch in, irq and softirq entry to exit, softirq raise to entry,
 * raw_syscalls enter to exit, funcgraph entry to exit), the total,
 * average, longest and shortest time, and the trees of the kernel
 * stacks (kernel_stack records) met after them. Where trace-cmd's sort
 * ties, its order is its heap's (run to run it differs); this one keeps
 * the order the events were first met. CPUS/NR_CPUS: only those CPUs'
 * records (NULL: all). Returns the records read, -ENOMEM, -EIO or a
 * damaged file's error.
 */
PK_API long pk_tracedat_report_profile(struct pk_tracedat *td, FILE *out,
				       const int *cpus, int nr_cpus,
				       unsigned flags);

/* ---- kernel text: what the kernel's "trace" file prints ---- */
struct pk_ktext;

/* Options of the kernel-text printer; declare with PK_OPTS(). */
struct pk_ktext_opts {
	size_t sz;
	/* Trace options over the kernel's defaults, comma-separated as in
	 * trace_options: "sym-offset,noirq-info,latency-format",
	 * "funcgraph-proc,nofuncgraph-cpu" ... (NULL: defaults). */
	const char *options;
	const char *tracer;      /* "nop", "function", "function_graph"
				    (NULL: from the events in the data) */
	const char *clock;       /* trace clock (NULL: the file's) */
	const char *tgids;       /* text of saved_tgids (record-tgid) */
	const char *release;     /* kernel release in the latency header
				    (NULL: the file's uname) */
	const char *preempt;     /* preemption model of that header
				    ("PREEMPT(none)"; NULL: this host's) */
	uint64_t time_start;     /* latency-format: the buffer's start time */
	int nr_online;           /* the "#P:" count (0: the file's CPUs) */
	bool no_header;          /* trace_pipe's text: no header, and
				    "CPU:N [LOST M EVENTS]" where a page
				    says events were lost */
	const int *cpus;         /* only these CPUs (NULL: all) */
	int nr_cpus;
};

/*
 * Prints the events of TD's top buffer to OUT the way the kernel's own
 * `trace` file prints that buffer: header, context columns, payloads from
 * each event's print fmt (no trace-cmd plugins), the function and
 * function_graph layouts and the trace option toggles of O. The header's
 * entries-in-buffer/entries-written come from the events in the file and
 * its CPUSTAT overrun counts. Returns the number of events printed, or a
 * negative error: -EINVAL (bad opts), PK_ERR_SYNTAX (unknown option name;
 * the print callback names it), or a damaged file's error after what could
 * be printed.
 */
PK_API long pk_tracedat_report_kernel(struct pk_tracedat *td, FILE *out,
				      const struct pk_ktext_opts *o);

/*
 * A kernel-text printer for events that come from tracefs directly (live
 * reading of trace_pipe_raw): the formats of INSTANCE (NULL: top level),
 * kallsyms, printk formats and saved_cmdlines are read from T now
 * (pk_ktext_refresh() re-reads the command names and TGIDs). The printer,
 * or NULL with errno (-PK_ERR_SYNTAX: an unknown option).
 */
PK_API struct pk_ktext *pk_ktext_new_tracefs(struct pk_tracefs *t,
					     const char *instance,
					     const struct pk_ktext_opts *o);
/* Re-reads saved_cmdlines (and saved_tgids) of the printer's tracefs. */
PK_API int pk_ktext_refresh(struct pk_ktext *kt);
/*
 * Prints the events EVS[0..N) (sorted by time, ties by CPU; data as in
 * trace_pipe_raw pages) as the trace file would, or as trace_pipe would
 * when the printer was made with no_header: then EVS[i].missed > 0 prints
 * "CPU:N [LOST M EVENTS]" first (-1: "CPU:N [LOST EVENTS]"). A
 * function_graph entry whose exit is among EVS prints as one leaf line.
 * Returns the number of lines of events printed or -EIO (write error).
 */
PK_API long pk_ktext_print(struct pk_ktext *kt, FILE *out,
			   const struct pk_tracedat_event *evs, size_t n);
/*
 * Appends the data events of one raw ring-buffer page (PAGE_SIZE bytes,
 * the layout of the printer's header_page) of CPU to EVS, N and CAP (grown
 * with pk__realloc; the data pointers point into PAGE). Returns the number
 * added or PK_ERR_FORMAT for a damaged page.
 */
PK_API long pk_ktext_page_events(const struct pk_ktext *kt, int cpu,
				 const void *page, size_t page_size,
				 struct pk_tracedat_event **evs, size_t *n,
				 size_t *cap);
/* Frees KT (NULL is fine). */
PK_API void pk_ktext_free(struct pk_ktext *kt);

/*
 * trace-cmd check-events: gives every event format under the tracefs
 * directory ROOT to libtraceevent (its plugins first when PLUGINS), as
 * trace-cmd 3.1 does; libtraceevent prints its own warnings for what it
 * cannot parse, at LOGLEVEL (libtraceevent's: 0 none ... 6 all; -1 its
 * default, which says nothing; it stays set for the process). Returns the
 * number of formats it refused, or -errno (ROOT's events/header_page or
 * events/ unreadable, -ENOMEM).
 */
PK_API int pk_ftrace_check_events(const char *root, bool plugins,
				  int loglevel);

#ifdef __cplusplus
}
#endif
#endif
