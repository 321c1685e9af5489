/* SPDX-License-Identifier: MIT */
/*
 * perfkit exports: profiles in the formats other tools read.
 *
 * - Collapsed stacks ("folded"): one line per distinct stack, its frames
 *   root first joined by ';', a space and its count; the format every
 *   flame-graph tool reads. pk_folded holds them (a reader and a writer);
 *   pk_collapse makes them from perf script's text exactly as
 *   FlameGraph's stackcollapse-perf.pl does by default.
 * - Flame graphs: one self-contained SVG of a pk_folded (hover, click to
 *   zoom, search; icicle; colours by kind; differential against a base).
 */
#ifndef PERFKIT_EXPORT_H
#define PERFKIT_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_folded;

PK_API struct pk_folded *pk_folded_new(void);
PK_API void pk_folded_free(struct pk_folded *f);

/* Adds COUNT to the stack STACK (LEN bytes: frames root first, joined by
 * ';'; no newline). 0, -EINVAL (empty, or holding a newline or a NUL),
 * -ENOMEM. */
PK_API int pk_folded_add(struct pk_folded *f, const char *stack, size_t len,
			 uint64_t count);

/* Reads collapsed text (LEN bytes of "STACK COUNT" lines; blank lines
 * are skipped) into F. 0, or PK_ERR_FORMAT with the 1-based number of the
 * first bad line in *LINE (a line without a count after its last space),
 * -ENOMEM. What came before a bad line stays added. */
PK_API int pk_folded_parse(struct pk_folded *f, const char *text, size_t len,
			   size_t *line);

/* The number of distinct stacks, and the sum of their counts. */
PK_API size_t pk_folded_nr(const struct pk_folded *f);
PK_API uint64_t pk_folded_total(const struct pk_folded *f);

/* Stack I (0 <= I < pk_folded_nr) in byte order of the stacks (the
 * order stackcollapse-perf.pl prints), its count in *COUNT; NULL for a bad
 * index. Valid until F changes. */
PK_API const char *pk_folded_stack(struct pk_folded *f, size_t i,
				   uint64_t *count);

/* Writes every stack, in byte order, as "STACK COUNT\n". 0, -EIO. */
PK_API int pk_folded_write(struct pk_folded *f, FILE *out);

/* ---- perf script's text to collapsed stacks ---- */

struct pk_collapse_opts {
	size_t sz;
	bool pid;          /* roots "comm-pid" (stackcollapse-perf.pl --pid) */
	bool tid;          /* roots "comm-pid/tid" (--tid) */
	/* Frames marked by kind, as --kernel and --jit mark them ("_[k]"
	 * after a kernel function, "_[j]" after a JIT one) and, beyond the
	 * script, "_[i]" after a function perf script shows "(inlined)";
	 * pk_flame_svg() colours by these marks. */
	bool kinds;
};
#define pk_collapse_opts__last_field kinds

struct pk_collapse;

/* A collapser adding to INTO (which must outlive it). NULL with errno
 * (EINVAL, ENOMEM). */
PK_API struct pk_collapse *pk_collapse_new(struct pk_folded *into,
					   const struct pk_collapse_opts *opts);
PK_API void pk_collapse_free(struct pk_collapse *c);
/* Feeds LEN bytes of perf script's output, cut anywhere. 0 or -ENOMEM.
 * As stackcollapse-perf.pl: lines it does not recognise are skipped, a
 * stack counts once its blank line comes, only the first event type
 * seen counts (its name in pk_collapse_event()). */
PK_API int pk_collapse_feed(struct pk_collapse *c, const char *buf,
			    size_t len);
/* The input's end (a last line without its newline is taken). 0 or
 * -ENOMEM. */
PK_API int pk_collapse_end(struct pk_collapse *c);
/* The event type counted ("" before one is seen), and how many samples
 * of other types were left out. */
PK_API const char *pk_collapse_event(const struct pk_collapse *c);
PK_API uint64_t pk_collapse_skipped(const struct pk_collapse *c);

/* ---- flame graphs ---- */

struct pk_flame_opts {
	size_t sz;
	const char *title;     /* NULL: "Flame Graph" ("Icicle Graph") */
	const char *subtitle;  /* a second line under the title, or NULL */
	const char *count_name; /* what the counts are: NULL "samples" */
	unsigned width;        /* pixels, 0: 1200 */
	bool inverted;         /* an icicle graph: roots on top */
	/* A differential graph: widths are F's, each frame coloured by how
	 * its share changed from BASE (red: grew, blue: shrank). */
	struct pk_folded *base;
};
#define pk_flame_opts__last_field base

/*
 * Writes F as one self-contained SVG (no network): a frame per function
 * per stack prefix, as wide as its count, roots at the bottom (top when
 * inverted); its title and its share on hover; a click zooms into a frame
 * (its ancestors dimmed), "Reset Zoom" undoes it; "Search" (or Ctrl-F)
 * takes a regular expression, marks the matching frames and prints what
 * share of the whole they hold. Colours by kind: the "_[k]" (kernel:
 * blue), "_[j]" (JIT: green), "_[i]" (inlined: aqua) marks of
 * pk_collapse's kinds option (shown without the mark), the rest warm. 0, -EINVAL (bad opts), -ENOMEM,
 * -EIO.
 */
PK_API int pk_flame_svg(struct pk_folded *f, FILE *out,
			const struct pk_flame_opts *opts);

/* ---- pprof: profile.proto, gzipped ---- */

struct pk_pprof;

struct pk_pprof_opts {
	size_t sz;
	/* Each sample's values: NR_TYPES "type"/"unit" pairs (at most 8;
	 * none: one "samples"/"count"). */
	const char *const *types, *const *units;
	unsigned nr_types;
	const char *period_type, *period_unit;  /* NULL: none */
	int64_t period;
	int64_t time_nanos, duration_nanos;     /* when, how long */
	const char *comment;                    /* NULL: none */
};
#define pk_pprof_opts__last_field comment

/* A line of a location: the function (pk_pprof_function's id) and the
 * line in its file (0: unknown). A location's lines go innermost first
 * (the functions inlined at the address, then the one holding it). */
struct pk_pprof_line {
	uint64_t function;
	int64_t line;
};

/* A label of a sample: KEY with a string (STR) or a number (NUM, in
 * UNIT, which may be NULL). */
struct pk_pprof_label {
	const char *key, *str;
	int64_t num;
	const char *unit;
};

/* NULL with errno (EINVAL, ENOMEM). */
PK_API struct pk_pprof *pk_pprof_new(const struct pk_pprof_opts *opts);
PK_API void pk_pprof_free(struct pk_pprof *p);
/* The id (from 1) of the mapping [START, LIMIT) at file offset OFFSET of
 * FILE (BUILD_ID: hex, or NULL), the same one for the same four; 0 when
 * out of memory. */
PK_API uint64_t pk_pprof_mapping(struct pk_pprof *p, uint64_t start,
				 uint64_t limit, uint64_t offset,
				 const char *file, const char *build_id);
/* The id of function NAME (in source FILE, or NULL), one per pair; 0 when
 * out of memory. */
PK_API uint64_t pk_pprof_function(struct pk_pprof *p, const char *name,
				  const char *file);
/* The id of the location ADDRESS of MAPPING (0: none), made with its N
 * LINES the first time it is asked for; 0 when out of memory. */
PK_API uint64_t pk_pprof_location(struct pk_pprof *p, uint64_t mapping,
				  uint64_t address,
				  const struct pk_pprof_line *lines, unsigned n);
/* A sample: its N locations (leaf first), one value per type, NL labels.
 * 0, -EINVAL, -ENOMEM. */
PK_API int pk_pprof_sample(struct pk_pprof *p, const uint64_t *locations,
			   unsigned n, const int64_t *values,
			   const struct pk_pprof_label *labels, unsigned nl);
/* When the profile was taken and for how long (nanoseconds; 0: not
 * known), for what the options did not know yet. */
PK_API void pk_pprof_set_time(struct pk_pprof *p, int64_t time_nanos,
			      int64_t duration_nanos);
/* The value type tools show unless told (INDEX among the types; the
 * default is the last, as in pprof). */
PK_API void pk_pprof_set_default_type(struct pk_pprof *p, unsigned index);
/* Writes the profile (gzipped when GZIP, as pprof files are). 0, -EIO,
 * -ENOMEM. */
PK_API int pk_pprof_write(struct pk_pprof *p, FILE *out, bool gzip);

/* ---- speedscope: sampled profiles ---- */

/*
 * speedscope's JSON file format: frames shared by name, one "sampled"
 * profile per name (a thread, a process), each sample its frames root
 * first and a weight, kept in the order given (the time-order view).
 */
struct pk_speedscope;

/* NULL when out of memory. */
PK_API struct pk_speedscope *pk_speedscope_new(void);
PK_API void pk_speedscope_free(struct pk_speedscope *s);
/* The index of frame NAME (one per name), or -ENOMEM. */
PK_API int64_t pk_speedscope_frame(struct pk_speedscope *s, const char *name);
/* The index of profile NAME (one per name, in the order first given),
 * or -ENOMEM. */
PK_API int64_t pk_speedscope_profile(struct pk_speedscope *s,
				     const char *name);
/* A sample of PROFILE: N frame indexes, root first, and its WEIGHT. 0,
 * -EINVAL (an index not given), -ENOMEM. */
PK_API int pk_speedscope_sample(struct pk_speedscope *s, int64_t profile,
				const uint32_t *frames, unsigned n,
				uint64_t weight);
/* Writes the file: NAME, the weights' UNIT ("nanoseconds", "none"...),
 * EXPORTER. 0, -ENOMEM, -EIO. */
PK_API int pk_speedscope_write(struct pk_speedscope *s, FILE *out,
			       const char *name, const char *unit,
			       const char *exporter);

/* ---- scheduling timelines: thread states and wake-ups ---- */

/*
 * Each thread's state over time (Running on a CPU, Runnable, Runnable
 * (Preempted), Sleeping, Uninterruptible Sleep, Stopped, Traced, Exit,
 * Parked, Idle: Perfetto's names) from sched_switch and sched_wakeup
 * events given in time order, and a flow from each waker to the thread
 * it woke. A thread's states never overlap. The idle tasks (tid 0) have
 * none, and their wake-ups no flow.
 */
struct pk_schedtl;

/* NULL when out of memory. */
PK_API struct pk_schedtl *pk_schedtl_new(void);
PK_API void pk_schedtl_free(struct pk_schedtl *tl);
/* Thread TID belongs to process PID (default: its own) and is named COMM
 * (NULL: as its events name it). 0 or -ENOMEM. */
PK_API int pk_schedtl_task(struct pk_schedtl *tl, int32_t pid, int32_t tid,
			   const char *comm);
/* Any event of TID on CPU at TS: TID runs there (a thread's first event
 * tells it was running then). 0 or -ENOMEM. */
PK_API int pk_schedtl_event(struct pk_schedtl *tl, uint64_t ts, int cpu,
			    int32_t tid);
/* sched_switch: PREV leaves CPU in PREV_STATE (the event's prev_state
 * field as the kernel gives it), NEXT runs there. 0 or -ENOMEM. */
PK_API int pk_schedtl_switch(struct pk_schedtl *tl, uint64_t ts, int cpu,
			     int32_t prev, const char *prev_comm,
			     uint64_t prev_state, int32_t next,
			     const char *next_comm);
/* sched_wakeup / sched_wakeup_new: WAKER, running on CPU, makes TID
 * (named COMM) runnable. 0 or -ENOMEM. */
PK_API int pk_schedtl_wakeup(struct pk_schedtl *tl, uint64_t ts, int cpu,
			     int32_t waker, int32_t tid, const char *comm);
/* Only the threads KEEP returns true for are written (their names,
 * states, and the flows between two of them); NULL: all. */
typedef bool (*pk_schedtl_keep_fn)(void *ctx, int32_t pid, int32_t tid,
				   const char *comm);
PK_API void pk_schedtl_set_filter(struct pk_schedtl *tl,
				  pk_schedtl_keep_fn keep, void *ctx);
/*
 * A tracepoint record RAW (SIZE bytes, formats in TF) of thread TID on
 * CPU at TS: sched_switch, sched_wakeup and sched_wakeup_new (by name)
 * feed the switches and wake-ups above. 1 when it was one of them, 0 for
 * any other record, -ENOMEM.
 */
struct pk_tracefmt;
PK_API int pk_schedtl_tracepoint(struct pk_schedtl *tl,
				 struct pk_tracefmt *tf, const void *raw,
				 size_t size, uint64_t ts, int cpu,
				 int32_t tid);
/* Closes every thread's state at TS (or the latest time given). */
PK_API int pk_schedtl_end(struct pk_schedtl *tl, uint64_t ts);
PK_API size_t pk_schedtl_nr_slices(const struct pk_schedtl *tl);
PK_API size_t pk_schedtl_nr_flows(const struct pk_schedtl *tl);
/*
 * Writes the thread names, the state slices ("ph":"X", cat "sched") and
 * the flows ("ph":"s" on the waker, "ph":"f" bound to the woken thread's
 * enclosing slice, cat "wakeup") as trace-event JSON array elements, each
 * after "\n" (",\n" unless *FIRST, which it clears); without any
 * sched_switch only the names (what ran when is not known). 0 or -EIO.
 */
PK_API int pk_schedtl_write_json(const struct pk_schedtl *tl, FILE *f,
				 bool *first);

#ifdef __cplusplus
}
#endif
#endif
