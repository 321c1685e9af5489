/* SPDX-License-Identifier: MIT */
/*
 * perfkit tracefs: the kernel's tracing control files.
 *
 * pk_tracefs drives tracefs (tracers, events, filters, instances, buffers,
 * options) and puts back everything it changed. pk_ftrace_rec records
 * events into a private instance and saves them as a trace.dat file
 * (through <perfkit/tracedat.h>'s writer).
 */
#ifndef PERFKIT_TRACEFS_H
#define PERFKIT_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <perfkit/common.h>
#include <perfkit/tracedat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- tracefs control ---- */
struct pk_tracefs;

/*
 * Finds tracefs (/sys/kernel/tracing, /sys/kernel/debug/tracing or any
 * tracefs mount in /proc/mounts) or mounts it at /sys/kernel/tracing (the
 * mount is undone by pk_tracefs_restore()). The handle, or NULL with errno
 * (ENOENT: no tracefs and mounting failed; EACCES: not permitted to
 * look).
 * Environment: PERFKIT_TRACEFS=DIR uses DIR instead, as
 * pk_tracefs_open_at(DIR, $PERFKIT_SYSCTL) does; PERFKIT_TRACEFS_LOG=FILE
 * appends a line per write to FILE ("W file value" or "A file value" for
 * appends, file relative to the tracefs directory, restores included).
 */
PK_API struct pk_tracefs *pk_tracefs_open(void);
/*
 * Uses DIR as tracefs without checking its file system (tests build a tree
 * of regular files) and SYSCTL_DIR instead of /proc/sys/kernel (NULL: that
 * one) for ftrace_enabled and stack_tracer_enabled. The handle, or NULL
 * with errno ENOENT (DIR is no directory) or ENAMETOOLONG.
 */
PK_API struct pk_tracefs *pk_tracefs_open_at(const char *dir,
					     const char *sysctl_dir);
/* The tracefs directory. */
PK_API const char *pk_tracefs_dir(const struct pk_tracefs *t);
/* Puts FILE of INSTANCE (NULL: top level) in BUF. 0 or -ENAMETOOLONG. */
PK_API int pk_tracefs_path(const struct pk_tracefs *t, const char *instance,
			   const char *file, char *buf, size_t len);
/* Reads FILE of INSTANCE into a new NUL-terminated string (*OUT, freed by
 * the caller with free()). Returns its length or -errno. */
PK_API long pk_tracefs_read(const struct pk_tracefs *t, const char *instance,
			    const char *file, char **out);
/* The clock in use: the bracketed name of INSTANCE's trace_clock, as
 * pk_tracefs_read() returns strings. Its length, -EINVAL (no brackets)
 * or -errno. */
PK_API long pk_tracefs_read_clock(const struct pk_tracefs *t,
				  const char *instance, char **out);
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
 * "system:*", "*:event", with globs in either part, "all", or a bare NAME
 * resolved as trace-cmd record's -e does: every event of each system NAME
 * matches and each event NAME matches in any system ("sched" the sched
 * system, "sched_switch" sched:sched_switch, "*stat*" both kinds; the
 * ftrace system only by its name). Returns the number of events changed,
 * or -ENOENT when none matched. The filter and trigger calls below take
 * the same specs.
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
/*
 * Forgets what T changed: pk_tracefs_restore() and pk_tracefs_free() then
 * leave every setting, instance and mount as it is (trace-cmd record -k).
 */
PK_API void pk_tracefs_keep(struct pk_tracefs *t);
/* Restores and frees T (NULL is fine). */
PK_API void pk_tracefs_free(struct pk_tracefs *t);
/*
 * Removes instances named perfkit-PID whose process is gone (left by runs
 * that were killed), then replays the undo journals such runs left (every
 * handle copies its undo log to $PERFKIT_RUNDIR/tracefs-PID-N, default
 * /run/perfkit, removed when it restores): top-level files, triggers and
 * dynamic events come back as restore would have put them. Returns how
 * many instances were removed, or -errno.
 */
PK_API int pk_tracefs_reset_stale(struct pk_tracefs *t);

/* ---- trace-cmd's state commands (stop, restart, start's set-up,
 * reset). Their writes are what the commands are for: not saved, not
 * undone at restore. A list of buffers is NR names, NULL for the top
 * level, handled in that order. ---- */
/* What pk_tracefs_entries() lists. */
enum pk_tracefs_kind {
	PK_TRACEFS_ANY,
	PK_TRACEFS_DIRS,
	PK_TRACEFS_FILES,     /* regular files */
};
/* The entries of KIND in DIR of buffer INST (NULL: the top level), in
 * directory order, into *NAMES (NULL-terminated; each name and the array
 * freed with free(); a missing DIR: none). Their count, or -errno. */
PK_API int pk_tracefs_entries(const struct pk_tracefs *t, const char *inst,
			      const char *dir, int kind, char ***names);
/* The instances, in directory order (as trace-cmd -a finds them):
 * pk_tracefs_entries() of "instances", directories. */
PK_API int pk_tracefs_instances(const struct pk_tracefs *t, char ***names);
/* tracing_on of each buffer to ON (trace-cmd stop, restart); ON writes
 * the old tracing_enabled file too where the kernel has it. Missing files
 * are skipped. 0 or the first -errno. */
PK_API int pk_tracefs_tracing(struct pk_tracefs *t, const char *const *bufs,
			      int nr, bool on);
/* trace-cmd's "disable all tracing" on each buffer, step by step over the
 * list: tracing_on 0; with TRACER the function tracer's func_stack_trace
 * off (where current_tracer is function) and current_tracer nop; then
 * events/enable and every events/SYSTEM/filter "0", set_ftrace_pid
 * emptied, the buffer cleared (trace). 0 or the first -errno. */
PK_API int pk_tracefs_disable_all(struct pk_tracefs *t,
				  const char *const *bufs, int nr, bool tracer);
/* Options of pk_tracefs_reset(); declare with PK_OPTS(). */
struct pk_tracefs_reset_opts {
	size_t sz;
	const char *const *buffers; /* the buffers reset (NULL entry: top) */
	int nr_buffers;
	const unsigned long *buffer_kb; /* per buffer: buffer_size_kb (0:
					   kept; NULL: all kept) */
	const bool *remove;         /* per buffer: the instance removed
				       (NULL: none) */
};
/*
 * trace-cmd reset 3.1 on the buffers of O: pk_tracefs_disable_all() with
 * the tracer, the -b sizes, every event's filter "0" and its triggers
 * removed ("!TRIGGER" up to its first blank, passes again while some
 * stay), every dynamic event disabled and removed (event probes first,
 * then kprobes, kretprobes, uprobes, uretprobes, event probes, synthetic
 * events, as libtracefs finds them: a uprobe also counts as a kprobe),
 * error_log cleared, trace_clock local, set_event_pid emptied,
 * tracing_max_latency 0, tracing_cpumask every CPU, the instances to
 * remove removed, the four function lists emptied (filter commands
 * removed one by one), and tracing on again. 0 or the first -errno (a
 * missing file is skipped).
 */
PK_API int pk_tracefs_reset(struct pk_tracefs *t,
			    const struct pk_tracefs_reset_opts *o);
/* VAL written to FILE of each buffer where the file is (trace-cmd's
 * direct writes: -O's trace_options, current_tracer nop after extract,
 * tracing_on put back). 0 or the first -errno. */
PK_API int pk_tracefs_put(struct pk_tracefs *t, const char *const *bufs,
			  int nr, const char *file, const char *val);
/*
 * What trace-cmd puts back after writing OPTION ("X" or "noX") to the
 * trace_options of INSTANCE: the line trace_options has now for that
 * option where it differs ("noX" before X is set, "X" before noX), into
 * *LINE (malloc'ed); *LINE NULL when nothing is to be put back (the option
 * is set already, or trace_options does not list it). 0 or -errno.
 */
PK_API int pk_tracefs_option_reset(const struct pk_tracefs *t,
				   const char *instance, const char *option,
				   char **line);

/*
 * The kernel's error_log entry left by the last write through T that the
 * kernel refused (a probe, filter or trigger it could not parse): its
 * lines as the kernel wrote them ("[ts] where: error: why", "  Command:
 * ...", "  ^" under the place), without the last newline. NULL when the
 * last write succeeded or the kernel logged nothing for it. Valid until
 * the next write through T.
 */
PK_API const char *pk_tracefs_error_log(const struct pk_tracefs *t);

/* ---- dynamic events (kprobe_events, uprobe_events, dynamic_events,
 * synthetic_events), in the kernel's syntax ---- */
enum pk_dynevent_kind {
	PK_DYN_KPROBE, PK_DYN_KRETPROBE, PK_DYN_UPROBE, PK_DYN_URETPROBE,
	PK_DYN_EPROBE, PK_DYN_SYNTH,
};
struct pk_dynevent {
	enum pk_dynevent_kind kind;
	char group[64];         /* the kernel's default when not given */
	char event[128];        /* "" when not given (the kernel names it) */
	char file[32];          /* the tracefs file it is written to */
};
/* "kprobe", "kretprobe", "uprobe", "uretprobe", "eprobe", "synthetic". */
PK_API const char *pk_dynevent_kind_name(enum pk_dynevent_kind k);
/*
 * Parses definition DEF: "p[:[GRP/]EV] PLACE [ARGS]" (a kprobe, or a
 * uprobe when PLACE is PATH:OFFSET; "%return" or "r[MAXACTIVE]" for
 * return probes), "e[:[GRP/]EV] SYS.EVENT [ARGS] [if FILTER]" (event
 * probe), "s:[GRP/]EV FIELDS" (synthetic, dynamic_events' form) or "EV
 * FIELD[; FIELD...]" (synthetic_events' form). 0 or -EINVAL.
 */
PK_API int pk_dynevent_parse(const char *def, struct pk_dynevent *d);
/*
 * Creates the dynamic event DEF (appended to its own file: kprobe_events,
 * uprobe_events, synthetic_events; dynamic_events for event probes, "s:"
 * synthetic events and where the own file is missing) and notes its
 * removal ("-:GRP/EV", "!EV" in synthetic_events) for restore; the name
 * the kernel gave it goes to *OUT (may be NULL). 0, -EINVAL (malformed,
 * or no name could be found), -EOPNOTSUPP (the kernel has no file for
 * it), or the kernel's -errno (pk_tracefs_error_log() says why).
 */
PK_API int pk_tracefs_dynevent_add(struct pk_tracefs *t, const char *def,
				   struct pk_dynevent *out);

/* ---- tracers, function filters, pids, buffers (all undone at restore) */

/* Whether FILE of INSTANCE exists (the kernel's features show as files). */
PK_API bool pk_tracefs_has(const struct pk_tracefs *t, const char *instance,
			   const char *file);
/* Whether tracer NAME traces functions (function, function_graph): those
 * need dynamic ftrace and may be refused (EPERM under lockdown). */
PK_API bool pk_tracer_is_function(const char *name);
/* Whether tracer NAME keeps a max-latency trace (irqsoff, preemptoff,
 * preemptirqsoff, wakeup, wakeup_rt, wakeup_dl). */
PK_API bool pk_tracer_is_latency(const char *name);
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

/* A CPU's own snapshot file (per_cpu/cpuN/snapshot): TAKE swaps that
 * CPU's buffer alone (the kernel needs CONFIG_RING_BUFFER_ALLOW_SWAP;
 * -EINVAL otherwise), CLEAR empties that CPU's snapshot; FREE is
 * -EINVAL (only the buffer's snapshot file frees it). The snapshot
 * buffer is freed at restore when it was free before. -EOPNOTSUPP
 * without the file. */
PK_API int pk_tracefs_snapshot_cpu(struct pk_tracefs *t, const char *instance,
				   int cpu, enum pk_snapshot_op op);
/* The size in bytes of INSTANCE's ring-buffer sub-buffers, the pages
 * trace_pipe_raw and snapshot_raw return: buffer_subbuf_size_kb * 1024,
 * or the system's page size where the kernel has no such file. */
PK_API int pk_tracefs_subbuf_size(const struct pk_tracefs *t,
				  const char *instance);
/* The mode of timestamp_mode of INSTANCE ("delta", or "absolute" while a
 * hist trigger needs absolute stamps) into BUF. 0, -errno (-ENOENT:
 * older kernels), PK_ERR_FORMAT or -ENAMETOOLONG. */
PK_API int pk_tracefs_timestamp_mode(const struct pk_tracefs *t,
				     const char *instance, char *buf,
				     size_t len);
/* Frees INSTANCE's ring buffer now, as a process closing free_buffer
 * does (the kernel shrinks it to its minimum; with options/disable_on_free
 * set it also turns tracing off). A direct change, not undone at
 * restore. 0, -EOPNOTSUPP (no free_buffer) or -errno. */
PK_API int pk_tracefs_free_buffer(struct pk_tracefs *t, const char *instance);
/* dyn_ftrace_total_info: the functions dynamic ftrace can trace and the
 * pages and groups of its records. */
struct pk_dyn_ftrace_total {
	unsigned long functions, pages, groups;
};
/* 0, -errno (-ENOENT: no dynamic ftrace) or PK_ERR_FORMAT. */
PK_API int pk_tracefs_dyn_ftrace_total(const struct pk_tracefs *t,
				       struct pk_dyn_ftrace_total *out);
/* One line of enabled_functions or touched_functions. */
struct pk_ftrace_func_rec {
	char name[128];         /* the function ("schedule") */
	long count;             /* users attached (the "(N)") */
	char flags[16];         /* the kernel's letters: R regs, I ipmodify,
				   D direct, O call ops, M modified */
	char extra[192];        /* after the tab: "tramp: ...", a direct
				   call's target, "ops: ..." ("" none) */
};
/* The records of enabled_functions (TOUCHED: touched_functions, every
 * function ever attached) into *OUT (free()). The count, or -errno
 * (-EPERM under lockdown, -ENOENT on older kernels) or PK_ERR_FORMAT. */
PK_API int pk_tracefs_func_records(const struct pk_tracefs *t, bool touched,
				   struct pk_ftrace_func_rec **out);

/*
 * Turns the stack tracer on or off through kernel/stack_tracer_enabled,
 * written only when it differs (and put back at restore). -EOPNOTSUPP when
 * tracefs has no stack_trace file (no CONFIG_STACK_TRACER); ftrace_enabled
 * as for function tracers.
 */
PK_API int pk_tracefs_stack_tracer(struct pk_tracefs *t, bool on);
/* Sets kernel/ftrace_enabled (function tracing for every user: tracers,
 * stack tracer, perf), written only when it differs and put back at
 * restore. 0 or -errno (-EPERM, -EROFS where /proc/sys is read-only). */
PK_API int pk_tracefs_ftrace_enabled(struct pk_tracefs *t, bool on);
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


/* ---- trace.dat metadata from tracefs (for <perfkit/tracedat.h>'s writer) */
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
/* Options of pk_tdwriter_fill(); declare with PK_OPTS(). */
struct pk_tdfill_opts {
	size_t sz;
	const char *instance;          /* its trace clock (NULL: top level) */
	const char *const *systems;    /* NULL-terminated; NULL: all */
	const char *kallsyms;          /* NULL: /proc/kallsyms; unreadable:
					  none (trace-cmd's -k) */
	bool reverse_order;            /* systems and events in reverse
					  name order, as trace-cmd 3.1
					  saves them (else by name) */
};
/* pk_tdwriter_fill_from_tracefs() with options O (NULL: defaults).
 * 0, -EINVAL (bad O) or -errno. */
PK_API int pk_tdwriter_fill(struct pk_tdwriter *w, const char *tracefs_dir,
			    const struct pk_tdfill_opts *o);

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
	/* each event spec's filter (trace-cmd's -f), parallel to EVENTS:
	 * NULL (or a NULL entry) for none; a filter the kernel refuses
	 * fails the set-up with -EINVAL */
	const char *const *event_filters;
	/* trace-cmd record's per-event options, parallel to EVENTS (NULL or
	 * a NULL/false entry: none): -R triggers added to the matched
	 * events, one or more separated by newlines ("traceoff",
	 * "stacktrace:5", "enable_event:SYS:EV", "hist:keys=...", in order;
	 * each removed at restore; a refused one fails the set-up with the
	 * kernel's error_log entry in the warning); -v the events are
	 * disabled instead of enabled, after the ones before them (a
	 * trigger still set) */
	const char *const *event_triggers;
	const bool *event_exclude;
	bool ignore_missing;        /* -i: a spec matching no event is
				       skipped (pk_info), not -ENOENT */
	const char *cpumask;        /* -M: tracing_cpumask in hex as given,
				       "-1" every online CPU (NULL: kept) */
	/* -B: named instances recorded beside the main buffer, each stored
	 * as a named buffer of the file (made, or reused and its settings
	 * put back at restore) */
	const struct pk_ftrace_rec_buffer *buffers;
	int nr_buffers;
	unsigned sleep_us;          /* -s: readers wake up this often when
				       the buffer was empty (0: 50 ms and on
				       data: poll) */
	bool sleep_set;             /* sleep_us given (trace-cmd -s 0) */
	uint64_t max_kb;            /* -m: per-CPU data kept at most about
				       this many KiB: two halves, the older
				       one dropped as the newer fills up */
	bool no_splice;             /* read() pages instead of splice */
	bool copy_marker;           /* the private instance copies the top
				       level's trace_marker writes
				       (options/copy_trace_marker; kernels
				       without it: ignored) */
	const char *max_graph_depth;/* max_graph_depth (NULL: kept) */
	bool no_ftrace;             /* -D: kernel/ftrace_enabled 0 and
				       options/function-trace 0 */
	long long ts_offset;        /* --ts-offset: the file's OFFSET
				       option (raw clock units; 0: none) */
	const char *cmdlines_size;  /* saved_cmdlines_size (NULL: kept) */
	const char *temp_dir;       /* the per-CPU temporary files' folder
				       (NULL: the output's) */
	int rt_priority;            /* readers' SCHED_FIFO priority (0:
				       the caller's policy); -EPERM when
				       refused */
	/* dynamic events to create first (pk_tracefs_dynevent_add's
	 * syntax), NULL-terminated; each is recorded as an event of the
	 * main buffer and removed at restore */
	const char *const *dynevents;
	/* latency tracers: tracing_thresh in microseconds when set_thresh
	 * (0: every new maximum); hwlat_detector/width and window (us; 0:
	 * the kernel's). With irqsoff, preemptoff, preemptirqsoff, wakeup,
	 * wakeup_rt or wakeup_dl the file holds the max-latency trace (the
	 * kernel's trace text, as trace-cmd stores it), tracing_max_latency
	 * reset to 0 first; these tracers and hwlat trace in the top level */
	bool set_thresh;
	uint64_t thresh_us;
	uint64_t hwlat_width_us, hwlat_window_us;
	/* trace-cmd start: the set-up alone, no trace_pipe_raw opened;
	 * pk_ftrace_rec_start() turns tracing on and starts no reader,
	 * pk_ftrace_rec_free() leaves tracing on (pk_tracefs_keep() then
	 * leaves every setting) */
	bool no_readers;
	/* --subbuf-size: buffer_subbuf_size_kb of every buffer recorded
	 * (0: kept); the file stores each buffer's sub-buffer size as its
	 * page size (read back from the kernel, which rounds it up to a
	 * power of two) */
	unsigned subbuf_kb;
	/* --notrace-pid: set_event_notrace_pid of the main buffer, and
	 * set_ftrace_notrace_pid with a function tracer */
	const int *notrace_pids;
	int nr_notrace_pids;
};

/* One -B instance of trace-cmd record: its name and its own events,
 * with the same parallel arrays as pk_ftrace_rec_opts's. */
struct pk_ftrace_rec_buffer {
	const char *name;
	const char *const *events;
	const char *const *event_filters;
	const char *const *event_triggers;
	const bool *event_exclude;
	const char *cpumask;        /* -M after this -B (NULL: kept) */
};

/*
 * Prepares a recording: creates the private instance (unless top_level),
 * sets buffer size, clock, CPU mask and PIDs, enables the events (tracing
 * stays off), opens each CPU's trace_pipe_raw. Everything changed goes
 * through T and is undone by pk_tracefs_restore(). The recording, or NULL
 * with errno (ENOENT: an event spec matched nothing; EPERM: not permitted).
 */
PK_API struct pk_ftrace_rec *pk_ftrace_rec_new(struct pk_tracefs *t,
					       const struct pk_ftrace_rec_opts *o);
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
 * trace_pipe_raw. The result takes pk_ftrace_rec_write() and the result
 * calls; NULL with errno on failure.
 */
PK_API struct pk_ftrace_rec *pk_ftrace_extract(struct pk_tracefs *t,
					       const char *instance,
					       const char *output,
					       const char *compression);
/* Options of pk_ftrace_extract_bufs(); declare with PK_OPTS(). */
struct pk_ftrace_extract_opts {
	size_t sz;
	const char *const *buffers; /* NULL or "": the top level; the first
				       is the file's top buffer (""), the
				       others its named buffers */
	int nr_buffers;             /* at least 1 */
	const char *compression;    /* NULL: zstd */
	bool snapshot;              /* per_cpu/cpuN/snapshot_raw (the
				       snapshot buffer), not trace_pipe_raw */
	bool latency;               /* the first buffer's `trace` text (a
				       latency tracer's max trace, read now)
				       instead of pages; the others not read */
};
/*
 * trace-cmd extract's reading: what each buffer of O holds now, every
 * online CPU's pages read (and so consumed), nothing else changed. The
 * result takes pk_ftrace_rec_write() and the result calls; NULL with
 * errno (EINVAL for bad options) on failure.
 */
PK_API struct pk_ftrace_rec *pk_ftrace_extract_bufs(
	struct pk_tracefs *t, const char *output,
	const struct pk_ftrace_extract_opts *o);

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
/* Number of CPUs recorded, and the result of the IDXth (of the main
 * buffer). */
PK_API int pk_ftrace_rec_nr_cpus(const struct pk_ftrace_rec *r);
PK_API int pk_ftrace_rec_result(const struct pk_ftrace_rec *r, int idx,
				struct pk_ftrace_cpu_result *res);
/* Buffers recorded (main first, then the -B ones in order), the name of
 * the Bth ("" for the main one, NULL past the end), and the result of CPU
 * IDX of buffer B (-EINVAL out of range). */
PK_API int pk_ftrace_rec_nr_buffers(const struct pk_ftrace_rec *r);
PK_API const char *pk_ftrace_rec_buffer_name(const struct pk_ftrace_rec *r,
					     int b);
PK_API int pk_ftrace_rec_buffer_result(const struct pk_ftrace_rec *r, int b,
				       int idx,
				       struct pk_ftrace_cpu_result *res);
/* Frees R (its tracefs changes are undone by the tracefs handle). */
PK_API void pk_ftrace_rec_free(struct pk_ftrace_rec *r);

#ifdef __cplusplus
}
#endif
#endif
