/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace: trace-cmd files (trace.dat v6/v7) and tracefs control.
 *
 * pk_tracedat reads a trace-cmd file (format 6 or 7, sections compressed
 * with zstd or zlib, flyrecord or latency data, several buffers) and prints
 * it the way `trace-cmd report` 3.1 does. pk_tdwriter writes format-7 files
 * that trace-cmd reads. pk_tracefs drives the kernel's tracefs and puts
 * back everything it changed. pk_ftrace_rec records events into a private
 * instance and saves them as a trace.dat file.
 */
#ifndef PERFKIT_FTRACE_H
#define PERFKIT_FTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- trace.dat reader ---- */
struct pk_tracedat;

/*
 * Opens and parses the trace-cmd file PATH (metadata and buffer layout; CPU
 * data is decompressed when first read). Returns 0 and *OUT, or -errno
 * (cannot open/map), PK_ERR_FORMAT (bad magic, version, section, option or
 * layout), PK_ERR_TRUNC (file ends early), PK_ERR_UNSUPP (unknown
 * compression). The reason and the file offset go to the print callback.
 */
PK_API int pk_tracedat_open(const char *path, struct pk_tracedat **out);
/* Same, for a file image in memory; DATA stays borrowed until close. */
PK_API int pk_tracedat_open_mem(const void *data, size_t len,
				struct pk_tracedat **out);
/* Frees TD (NULL is fine). */
PK_API void pk_tracedat_close(struct pk_tracedat *td);

/* File format version (6 or 7). */
PK_API int pk_tracedat_version(const struct pk_tracedat *td);
/* Number of CPUs in the top buffer's data (the "cpus=" of a report). */
PK_API int pk_tracedat_cpus(const struct pk_tracedat *td);
/* Number of buffers (top buffer first, then instances). */
PK_API int pk_tracedat_nr_buffers(const struct pk_tracedat *td);
/* Name of buffer IDX ("" for the top buffer), or NULL when out of range. */
PK_API const char *pk_tracedat_buffer_name(const struct pk_tracedat *td,
					   int idx);
/* Compression name ("none" for v6 and uncompressed v7 files). */
PK_API const char *pk_tracedat_compression(const struct pk_tracedat *td);

enum pk_tracedat_item {
	PK_TD_HEADER_PAGE,
	PK_TD_HEADER_EVENT,
	PK_TD_KALLSYMS,
	PK_TD_PRINTK,
	PK_TD_CMDLINES,
	PK_TD_UNAME,
	PK_TD_TRACE_CLOCK,
	PK_TD_VERSION,
	PK_TD_LATENCY_TEXT,
};
/* Bytes of a metadata item (not NUL-terminated for the first five), or
 * NULL when the file lacks it. *LEN gets the size. */
PK_API const char *pk_tracedat_item(const struct pk_tracedat *td,
				    enum pk_tracedat_item item, size_t *len);
/* Number of event format files (ftrace ones first). */
PK_API int pk_tracedat_nr_formats(const struct pk_tracedat *td);
/* Format file IDX: its text (*LEN bytes) and system ("ftrace" for the
 * ftrace ones). NULL when IDX is out of range. */
PK_API const char *pk_tracedat_format(const struct pk_tracedat *td, int idx,
				      const char **system, size_t *len);

/* One raw event of the merged stream. */
struct pk_tracedat_event {
	uint64_t ts;          /* after clock conversion and offsets (ns) */
	const void *data;     /* the event's bytes (common fields first) */
	uint32_t size;
	int cpu;
	int buffer;           /* buffer index */
	long long missed;     /* events lost before this one: >0, -1 unknown */
	uint64_t offset;      /* page offset in the buffer's CPU data */
};
/*
 * Iterates every event of every buffer in time order (ties: lower buffer,
 * then lower CPU first), the order `trace-cmd report` prints. CPUS/NR_CPUS
 * limit the CPUs (NULL: all). Returns 1 with *EV, 0 at the end, or a
 * negative error (damaged page or compressed chunk; the print callback gets
 * the offset). pk_tracedat_rewind() starts over.
 */
PK_API int pk_tracedat_next(struct pk_tracedat *td,
			    struct pk_tracedat_event *ev);
PK_API int pk_tracedat_rewind(struct pk_tracedat *td, const int *cpus,
			      int nr_cpus);

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
struct pk_report_opts {
	size_t sz;
	const int *cpus;      /* only these CPUs (NULL: all) */
	int nr_cpus;
	bool events;          /* print the event formats instead */
	int engine;           /* enum pk_report_engine */
	struct pk_report_stats *stats;  /* NULL or filled in */
};
/*
 * Prints TD to OUT exactly as `trace-cmd report` 3.1 prints it (event
 * payloads as libtraceevent and its plugins print them). By default the
 * payloads come from perfkit's compiled formatter, and the records it
 * cannot reproduce exactly from libtraceevent (set up on first need);
 * opts->engine PK_REPORT_TEP uses libtraceevent for every record.
 * Returns the number of events printed, or a negative error (a damaged
 * file stops the report after what could be printed).
 */
PK_API long pk_tracedat_report(struct pk_tracedat *td, FILE *out,
			       const struct pk_report_opts *opts);

/* ---- kernel text: what the kernel's "trace" file prints ---- */
struct pk_ktext;
struct pk_tracefs;

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
 * (pk_ktext_refresh() re-reads the command names and TGIDs). 0 and *OUT,
 * or -errno / PK_ERR_SYNTAX (unknown option).
 */
PK_API int pk_ktext_new_tracefs(struct pk_tracefs *t, const char *instance,
				const struct pk_ktext_opts *o,
				struct pk_ktext **out);
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
 * with pk_realloc; the data pointers point into PAGE). Returns the number
 * added or PK_ERR_FORMAT for a damaged page.
 */
PK_API long pk_ktext_page_events(const struct pk_ktext *kt, int cpu,
				 const void *page, size_t page_size,
				 struct pk_tracedat_event **evs, size_t *n,
				 size_t *cap);
/* Frees KT (NULL is fine). */
PK_API void pk_ktext_free(struct pk_ktext *kt);

/* ---- trace.dat writer (format 7) ---- */
struct pk_tdwriter;

/* Options of pk_tdwriter_new(); declare with PK_OPTS(). */
struct pk_tdwriter_opts {
	size_t sz;
	const char *compression;  /* NULL/"none", "zstd" or "zlib" */
	int page_size;            /* 0: the host's */
	int long_size;            /* 0: the host's */
};
/* Creates PATH (truncating it). NULL with errno on failure. */
PK_API struct pk_tdwriter *pk_tdwriter_new(const char *path,
					   const struct pk_tdwriter_opts *o);
/* Sets a metadata item (PK_TD_HEADER_PAGE ... PK_TD_VERSION); the bytes
 * are copied. 0 or -EINVAL/-ENOMEM. */
PK_API int pk_tdwriter_set_item(struct pk_tdwriter *w,
				enum pk_tracedat_item item,
				const void *data, size_t len);
/* Adds a format file of SYSTEM ("ftrace" for the ftrace ones). */
PK_API int pk_tdwriter_add_format(struct pk_tdwriter *w, const char *system,
				  const char *text, size_t len);
/* Adds a TSC2NSEC option: readers convert timestamps to
 * (ts * MULT) >> SHIFT ns. OFFSET is stored as given. 0 or -EINVAL. */
PK_API int pk_tdwriter_set_tsc2nsec(struct pk_tdwriter *w, uint32_t mult,
				    uint32_t shift, uint64_t offset);
/* Adds an OFFSET option: readers add OFFSET ns to every timestamp
 * (trace-cmd's --ts-offset). */
PK_API int pk_tdwriter_set_ts_offset(struct pk_tdwriter *w, long long offset);
/* Adds a CPUSTAT option (the text of per_cpu/cpuN/stats). */
PK_API int pk_tdwriter_add_cpustat(struct pk_tdwriter *w, const char *text);
/*
 * Adds a buffer (NAME "" is the top one) with trace clock CLOCK and the
 * raw ring-buffer pages of NR_CPUS CPUs: CPU_IDS[i] and the file FDS[i]
 * (read from offset 0 to its end). Buffers are written at close.
 */
PK_API int pk_tdwriter_add_buffer(struct pk_tdwriter *w, const char *name,
				  const char *clock, int nr_cpus,
				  const int *cpu_ids, const int *fds);
/* Adds a latency buffer: TEXT (LEN bytes) is what the kernel's trace
 * file showed (a BUFFER_TEXT section). 0 or -ENOMEM. */
PK_API int pk_tdwriter_add_latency(struct pk_tdwriter *w, const char *name,
				   const char *clock, const char *text,
				   size_t len);
/*
 * Fills header page/event, the ftrace formats, event formats, kallsyms,
 * printk formats, saved cmdlines, uname and the trace clock of INSTANCE
 * (NULL: top level) from tracefs at TRACEFS_DIR. SYSTEMS (NULL-terminated)
 * limits the event systems saved; NULL saves all. 0 or -errno.
 */
PK_API int pk_tdwriter_fill_from_tracefs(struct pk_tdwriter *w,
					 const char *tracefs_dir,
					 const char *instance,
					 const char *const *systems);
/* Writes everything and closes the file; frees W. 0 or -errno. */
PK_API int pk_tdwriter_close(struct pk_tdwriter *w);
/* Frees W without finishing the file. */
PK_API void pk_tdwriter_free(struct pk_tdwriter *w);

/* ---- tracefs control ---- */
struct pk_tracefs;

/*
 * Finds tracefs (/sys/kernel/tracing, /sys/kernel/debug/tracing or any
 * tracefs mount in /proc/mounts) or mounts it at /sys/kernel/tracing (the
 * mount is undone by pk_tracefs_restore()). 0 and *OUT, or -errno
 * (-ENOENT: no tracefs and mounting failed).
 * Environment: PERFKIT_TRACEFS=DIR uses DIR instead, as
 * pk_tracefs_open_at(DIR, $PERFKIT_SYSCTL) does; PERFKIT_TRACEFS_LOG=FILE
 * appends a line per write to FILE ("W file value" or "A file value" for
 * appends, file relative to the tracefs directory, restores included).
 */
PK_API int pk_tracefs_open(struct pk_tracefs **out);
/*
 * Uses DIR as tracefs without checking its file system (tests build a tree
 * of regular files) and SYSCTL_DIR instead of /proc/sys/kernel (NULL: that
 * one) for ftrace_enabled and stack_tracer_enabled. 0 and *OUT, -ENOENT
 * (DIR is no directory) or -ENAMETOOLONG.
 */
PK_API int pk_tracefs_open_at(const char *dir, const char *sysctl_dir,
			      struct pk_tracefs **out);
/* The tracefs directory. */
PK_API const char *pk_tracefs_dir(const struct pk_tracefs *t);
/* Puts FILE of INSTANCE (NULL: top level) in BUF. 0 or -ENAMETOOLONG. */
PK_API int pk_tracefs_path(const struct pk_tracefs *t, const char *instance,
			   const char *file, char *buf, size_t len);
/* Reads FILE of INSTANCE into a new NUL-terminated string (*OUT, freed by
 * the caller with free()). Returns its length or -errno. */
PK_API long pk_tracefs_read(const struct pk_tracefs *t, const char *instance,
			    const char *file, char **out);
/*
 * Writes VAL to FILE of INSTANCE (truncating; pk_tracefs_append() does not
 * truncate, for set_ftrace_filter, triggers and pid lists). The first change
 * to a file saves what it held so pk_tracefs_restore() can put it back;
 * files inside an instance this handle created are not saved (the instance
 * goes away). 0 or -errno.
 */
PK_API int pk_tracefs_write(struct pk_tracefs *t, const char *instance,
			    const char *file, const char *val);
PK_API int pk_tracefs_append(struct pk_tracefs *t, const char *instance,
			     const char *file, const char *val);
/* Creates instances/NAME; it is removed again at restore. 0 or -errno. */
PK_API int pk_tracefs_instance_new(struct pk_tracefs *t, const char *name);
/* Removes instances/NAME now. 0 or -errno (-EBUSY while a file is open). */
PK_API int pk_tracefs_instance_remove(struct pk_tracefs *t, const char *name);
/*
 * Enables (ON) or disables event SPEC in INSTANCE: "system:event",
 * "system" or "system:*", "*:event", with globs in either part, or "all".
 * Returns the number of events changed, or -ENOENT when none matched.
 */
PK_API int pk_tracefs_event_enable(struct pk_tracefs *t, const char *instance,
				   const char *spec, bool on);
/* Sets the filter (FILTER NULL: clears it) of every event SPEC matches. */
PK_API int pk_tracefs_event_filter(struct pk_tracefs *t, const char *instance,
				   const char *spec, const char *filter);
/* Adds TRIGGER to every event SPEC matches (removed again at restore). */
PK_API int pk_tracefs_event_trigger(struct pk_tracefs *t,
				    const char *instance, const char *spec,
				    const char *trigger);
/* Sets trace option NAME (options/NAME) of INSTANCE. */
PK_API int pk_tracefs_option(struct pk_tracefs *t, const char *instance,
			     const char *name, bool on);
/* Per-CPU stats of INSTANCE for CPU (per_cpu/cpuN/stats). */
struct pk_tracefs_stats {
	uint64_t entries, overrun, commit_overrun, bytes, dropped, read;
	uint64_t oldest_ts, now_ts;   /* ns ("oldest event ts", "now ts") */
};
PK_API int pk_tracefs_cpu_stats(const struct pk_tracefs *t,
				const char *instance, int cpu,
				struct pk_tracefs_stats *st);
/*
 * Puts back every file this handle changed (latest first), removes the
 * instances it created and unmounts what it mounted. It only calls
 * open/write/close/rmdir/umount on data prepared beforehand, so it may run
 * from a signal handler. SIGINT, SIGTERM and SIGHUP are blocked (in the
 * calling thread) while it runs: one arriving meanwhile is delivered after.
 * Returns 0 or the first -errno.
 */
PK_API int pk_tracefs_restore(struct pk_tracefs *t);
/*
 * Makes SIGINT, SIGTERM and SIGHUP restore T and then end the process with
 * that signal (the previous handlers come back with
 * pk_tracefs_restore_on_signals(NULL)). 0 or -errno.
 */
PK_API int pk_tracefs_restore_on_signals(struct pk_tracefs *t);
/* Restores and frees T (NULL is fine). */
PK_API void pk_tracefs_close(struct pk_tracefs *t);
/*
 * Removes instances named perfkit-PID whose process is gone (left by runs
 * that were killed). Returns how many were removed, or -errno.
 */
PK_API int pk_tracefs_reset_stale(struct pk_tracefs *t);

/* ---- tracers, function filters, pids, buffers (all undone at restore) */

/* Whether FILE of INSTANCE exists (the kernel's features show as files). */
PK_API bool pk_tracefs_has(const struct pk_tracefs *t, const char *instance,
			   const char *file);
/* Whether tracer NAME traces functions (function, function_graph): those
 * need dynamic ftrace and may be refused (EPERM under lockdown). */
PK_API bool pk_tracer_is_function(const char *name);
/* Whether NAME is listed in available_tracers of INSTANCE: 1, 0, or
 * -errno (-ENOENT: no such file). */
PK_API int pk_tracefs_tracer_available(const struct pk_tracefs *t,
				       const char *instance, const char *name);
/*
 * Sets current_tracer of INSTANCE (NULL: top level) to NAME. For a
 * function tracer, /proc/sys/kernel/ftrace_enabled is written (1) only when
 * it reads 0, and put back at restore. Errors: -ENOENT (NAME not in
 * available_tracers), -EOPNOTSUPP (INSTANCE has no current_tracer: older
 * kernels give instances events only), -EPERM (refused), other -errno.
 */
PK_API int pk_tracefs_tracer(struct pk_tracefs *t, const char *instance,
			     const char *name);
/* Writes the decimal V to FILE (max_graph_depth, tracing_thresh,
 * tracing_max_latency, hwlat_detector/width, hwlat_detector/window,
 * stack_max_size, ...). 0 or -errno. */
PK_API int pk_tracefs_write_u64(struct pk_tracefs *t, const char *instance,
				const char *file, uint64_t v);
/* Reads the number at the start of FILE. 0 or -errno / PK_ERR_FORMAT. */
PK_API int pk_tracefs_read_u64(const struct pk_tracefs *t,
			       const char *instance, const char *file,
			       uint64_t *v);
/* Sets trace option SPEC: "NAME" sets it, "noNAME" clears it (an option
 * whose own name starts with "no" is tried as is first). 0 or -errno
 * (-ENOENT: no such option). */
PK_API int pk_tracefs_option_spec(struct pk_tracefs *t, const char *instance,
				  const char *spec);

/* Function lists (files of the top level or an instance). */
enum pk_ftrace_list {
	PK_FT_FILTER,          /* set_ftrace_filter */
	PK_FT_NOTRACE,         /* set_ftrace_notrace */
	PK_FT_GRAPH,           /* set_graph_function */
	PK_FT_GRAPH_NOTRACE,   /* set_graph_notrace */
	PK_FT_STACK_FILTER,    /* stack_trace_filter (top level) */
};
/* The file name of list L. */
PK_API const char *pk_ftrace_list_file(enum pk_ftrace_list l);
/*
 * Adds ENTRY to list L (appending, as `echo ENTRY >> file`): a function, a
 * glob ("sched*", "*lock", "*rq*", "a*b"), "GLOB:mod:MODULE", an index in
 * available_filter_functions ("1 50"), "!ENTRY" to remove one, or (L =
 * PK_FT_FILTER) a filter command "FUNC:CMD[:ARG]" with CMD traceon,
 * traceoff, snapshot, stacktrace (ARG a count), enable_event/disable_event
 * (ARG SYSTEM:EVENT[:COUNT]), dump or cpudump. The list's previous
 * contents come back at restore; each command added is removed again with
 * its "!" form (":0" when it had a count). 0, -EINVAL (malformed command),
 * or the kernel's -errno (-EINVAL: no such function; -EPERM: refused).
 */
PK_API int pk_tracefs_func_add(struct pk_tracefs *t, const char *instance,
			       enum pk_ftrace_list l, const char *entry);
/* Empties list L (as `echo > file`; filter commands stay). */
PK_API int pk_tracefs_func_clear(struct pk_tracefs *t, const char *instance,
				 enum pk_ftrace_list l);
/* Builds the "!" form that removes filter command CMD into BUF.
 * 0, -EINVAL (not a command) or -ENAMETOOLONG. */
PK_API int pk_ftrace_command_undo(const char *cmd, char *buf, size_t len);

/* Who a PID restricts (flags of pk_tracefs_pid_add()). */
enum {
	PK_PID_FUNCTIONS = 1,  /* set_ftrace_pid */
	PK_PID_EVENTS = 2,     /* set_event_pid */
	PK_PID_FORK = 4,       /* children too: function-fork / event-fork */
	PK_PID_NOTRACE = 8,    /* the notrace lists instead */
};
/* Adds PID to the pid lists FLAGS name. 0 or -errno. */
PK_API int pk_tracefs_pid_add(struct pk_tracefs *t, const char *instance,
			      int pid, unsigned flags);
/* Sets the buffer size of CPU (-1: every CPU, buffer_size_kb) in KB. */
PK_API int pk_tracefs_buffer_kb(struct pk_tracefs *t, const char *instance,
				int cpu, unsigned long kb);
/* Limits tracing to the NR CPUS (tracing_cpumask, hex with a comma every
 * 32 CPUs). 0, -EINVAL (NR < 1 or a CPU out of 0..4095) or -errno. */
PK_API int pk_tracefs_cpumask(struct pk_tracefs *t, const char *instance,
			      const int *cpus, int nr);

/* Snapshot buffer (needs CONFIG_TRACER_SNAPSHOT: the snapshot file). */
enum pk_snapshot_op {
	PK_SNAPSHOT_TAKE,      /* allocate if needed and swap (write 1) */
	PK_SNAPSHOT_CLEAR,     /* empty it, keep it allocated (write 2) */
	PK_SNAPSHOT_FREE,      /* free it (write 0) */
};
/* -EOPNOTSUPP without a snapshot file; -EBUSY under latency tracers. A
 * spare buffer this handle allocated is freed at restore. */
PK_API int pk_tracefs_snapshot(struct pk_tracefs *t, const char *instance,
			       enum pk_snapshot_op op);

/*
 * Turns the stack tracer on or off through kernel/stack_tracer_enabled,
 * written only when it differs (and put back at restore). -EOPNOTSUPP when
 * tracefs has no stack_trace file (no CONFIG_STACK_TRACER); ftrace_enabled
 * as for function tracers.
 */
PK_API int pk_tracefs_stack_tracer(struct pk_tracefs *t, bool on);
/* Turns the function profiler (function_profile_enabled) on or off.
 * -EOPNOTSUPP without that file (no CONFIG_FUNCTION_PROFILER). */
PK_API int pk_tracefs_profiler(struct pk_tracefs *t, bool on);

/* One function of the profile, merged across CPUs. */
struct pk_func_profile {
	char name[128];
	uint64_t hit;
	double time_us, avg_us, s2_us;  /* without the graph tracer: 0 */
};
/*
 * Reads trace_stat/function0..N of INSTANCE, merges each function's rows
 * (hits and times summed, average and sample variance s^2 combined) and
 * sorts them by time, then hits, then name. Returns the count with *OUT
 * (free()), 0 without data, or -errno (-ENOENT: no trace_stat/function0).
 * *HAS_TIME (may be NULL) tells whether the kernel gave times.
 */
PK_API int pk_tracefs_profile_read(const struct pk_tracefs *t,
				   const char *instance,
				   struct pk_func_profile **out,
				   bool *has_time);
/* Parses the text of one trace_stat/functionN file into *OUT (appended to
 * *NR entries). 0, -ENOMEM or PK_ERR_FORMAT (the line number goes to the
 * print callback). */
PK_API int pk_func_profile_parse(const char *text,
				 struct pk_func_profile **out, int *nr,
				 bool *has_time);
/* Merges and sorts *NR parsed rows in place (what profile_read does). */
PK_API void pk_func_profile_merge(struct pk_func_profile *p, int *nr);

/* Writes TEXT to trace_marker of INSTANCE. 0 or -errno. */
PK_API int pk_tracefs_marker(struct pk_tracefs *t, const char *instance,
			     const char *text);
/* Writes ID (4 bytes, host order) and LEN bytes of DATA to
 * trace_marker_raw. 0, -EINVAL (too long) or -errno. */
PK_API int pk_tracefs_marker_raw(struct pk_tracefs *t, const char *instance,
				 uint32_t id, const void *data, size_t len);

/* ---- recording ---- */
struct pk_ftrace_rec;

/* Options of pk_ftrace_rec_new(); declare with PK_OPTS(). */
struct pk_ftrace_rec_opts {
	size_t sz;
	const char *const *events;  /* NULL-terminated event specs */
	const char *output;         /* trace.dat path ("trace.dat") */
	int buffer_kb;              /* per-CPU buffer size (0: kernel's) */
	const int *cpus;            /* CPUs to record (NULL: all online) */
	int nr_cpus;
	const char *clock;          /* trace clock (NULL: kernel's) */
	const int *pids;            /* set_event_pid (NULL: everything) */
	int nr_pids;
	bool follow_fork;           /* event-fork: children of PIDS too */
	bool top_level;             /* use the top-level buffer, not an
				       instances/perfkit-PID */
	const char *compression;    /* "zstd" (default), "zlib", "none" */
	/* tracers (a function tracer may be refused: -EPERM) */
	const char *tracer;         /* current_tracer (NULL: none); in the
				       instance when it has current_tracer,
				       else in the top level */
	const char *const *filters; /* set_ftrace_filter entries (globs,
				       mod:, indexes, commands) */
	const char *const *notrace; /* set_ftrace_notrace entries */
	const char *const *graph;   /* set_graph_function entries */
	const char *const *options; /* trace options, "NAME" or "noNAME" */
	bool tsc2nsec;              /* x86-tsc clock and a TSC2NSEC option
				       (-EOPNOTSUPP where perf gives no
				       conversion: see pk_ftrace_tsc2nsec) */
};

/*
 * Prepares a recording: creates the private instance (unless top_level),
 * sets buffer size, clock, CPU mask and PIDs, enables the events (tracing
 * stays off), opens each CPU's trace_pipe_raw. Everything changed goes
 * through T and is undone by pk_tracefs_restore(). 0 and *OUT, or -errno
 * (-ENOENT: an event spec matched nothing; -EPERM: not permitted).
 */
PK_API int pk_ftrace_rec_new(struct pk_tracefs *t,
			     const struct pk_ftrace_rec_opts *o,
			     struct pk_ftrace_rec **out);
/* Whether the recording ended up in the top-level buffer. */
PK_API bool pk_ftrace_rec_top_level(const struct pk_ftrace_rec *r);
/*
 * The TSC to nanoseconds conversion perf publishes in a perf_event's mmap
 * page (time_mult, time_shift with cap_user_time_zero), the same on every
 * CPU: ns = (tsc * MULT) >> SHIFT. 0, or -EOPNOTSUPP where the kernel
 * gives none (clock source other than a stable TSC, e.g. kvm-clock) or
 * CPUs disagree, or -errno from perf_event_open. PERFKIT_TSC2NSEC=MULT:SHIFT
 * in the environment gives those instead (tests; -EINVAL when malformed).
 */
PK_API int pk_ftrace_tsc2nsec(uint32_t *mult, uint32_t *shift);
/* Adds PID to set_event_pid (a workload started after _new), and to
 * set_ftrace_pid when a function tracer records. */
PK_API int pk_ftrace_rec_add_pid(struct pk_ftrace_rec *r, int pid);
/* Turns tracing on and starts one reader thread per CPU that splices
 * trace_pipe_raw pages into a temporary file. 0 or -errno. */
PK_API int pk_ftrace_rec_start(struct pk_ftrace_rec *r);
/* Turns tracing off, drains the partial pages and stops the threads. */
PK_API int pk_ftrace_rec_stop(struct pk_ftrace_rec *r);
/* Writes the trace.dat file (format 7). 0 or -errno. */
PK_API int pk_ftrace_rec_write(struct pk_ftrace_rec *r);
/*
 * Saves what the buffers of INSTANCE (NULL: top level) hold now, without
 * changing any setting: reads (and so consumes) each online CPU's
 * trace_pipe_raw. *OUT then takes pk_ftrace_rec_write() and the result
 * calls. 0 or -errno.
 */
PK_API int pk_ftrace_extract(struct pk_tracefs *t, const char *instance,
			     const char *output, const char *compression,
			     struct pk_ftrace_rec **out);

/* Per-CPU outcome of a recording. */
struct pk_ftrace_cpu_result {
	int cpu;
	uint64_t events;    /* data events in the recorded pages */
	uint64_t overruns;  /* per_cpu/cpuN/stats overrun (overwritten) */
	uint64_t lost;      /* every event lost: overrun + dropped + commit
			       overrun from the stats file (exact); without
			       it, the counts stored in page headers */
	uint64_t bytes;     /* bytes of pages saved */
	bool lost_unknown;  /* no stats file and a page said events were
			       lost without saying how many */
};
/* Number of CPUs recorded, and the result of the IDXth. */
PK_API int pk_ftrace_rec_nr_cpus(const struct pk_ftrace_rec *r);
PK_API int pk_ftrace_rec_result(const struct pk_ftrace_rec *r, int idx,
				struct pk_ftrace_cpu_result *res);
/* Frees R (its tracefs changes are undone by the tracefs handle). */
PK_API void pk_ftrace_rec_free(struct pk_ftrace_rec *r);

#ifdef __cplusplus
}
#endif
#endif
