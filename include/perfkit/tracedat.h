/* SPDX-License-Identifier: MIT */
/*
 * perfkit trace.dat: trace-cmd files, read and written.
 *
 * pk_tracedat reads a trace-cmd file (format 6 or 7, sections compressed
 * with zstd or zlib, flyrecord or latency data, several buffers) and walks
 * its events in time order. pk_tdwriter writes format-7 files laid out
 * as trace-cmd 3.1.6 writes them (its split pieces byte for byte).
 * Printing them is <perfkit/ftrace.h>'s part.
 */
#ifndef PERFKIT_TRACEDAT_H
#define PERFKIT_TRACEDAT_H

#include <stdbool.h>
#include <stddef.h>
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
 * data is decompressed when first read). Returns the reader, or NULL with
 * errno (common.h): the open/map errno, or -PK_ERR_FORMAT (bad magic,
 * version, section, option or layout), -PK_ERR_TRUNC (file ends early),
 * -PK_ERR_UNSUPP (unknown compression); pk_strerror(-errno) names it. The
 * reason and the file offset go to the print callback.
 */
PK_API struct pk_tracedat *pk_tracedat_open(const char *path);
/* Same, for a file image in memory; DATA stays borrowed until freed. */
PK_API struct pk_tracedat *pk_tracedat_open_mem(const void *data, size_t len);
/* Frees TD (NULL is fine). */
PK_API void pk_tracedat_free(struct pk_tracedat *td);

/* File format version (6 or 7). */
PK_API int pk_tracedat_version(const struct pk_tracedat *td);
/* Page size and size of a long of the machine that wrote the file. */
PK_API int pk_tracedat_page_size(const struct pk_tracedat *td);
PK_API int pk_tracedat_long_size(const struct pk_tracedat *td);
/* Number of CPUs in the top buffer's data (the "cpus=" of a report). */
PK_API int pk_tracedat_cpus(const struct pk_tracedat *td);
/* Number of buffers (top buffer first, then instances). */
PK_API int pk_tracedat_nr_buffers(const struct pk_tracedat *td);
/* Name of buffer IDX ("" for the top buffer), or NULL when out of range. */
PK_API const char *pk_tracedat_buffer_name(const struct pk_tracedat *td,
					   int idx);
/* Compression name ("none" for v6 and uncompressed v7 files). */
PK_API const char *pk_tracedat_compression(const struct pk_tracedat *td);
/* Compression algorithm IDX this library reads and writes ("zstd",
 * "zlib"; NULL past the last), its library's version in *VERSION. */
PK_API const char *pk_tracedat_codec(int idx, const char **version);

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
	PK_TD_TGIDS,          /* saved_tgids ("PID TGID" lines), perfkit's
				 own option (pk_tdwriter_set_tgids) */
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

/* How event times are made (trace-cmd report's time options). */
enum pk_tracedat_time_flags {
	PK_TD_TIME_RAW = 1 << 0,     /* --raw-ts: the ring buffer's counts, no
					conversion or offset, shown as counts */
	PK_TD_TIME_NODATE = 1 << 1,  /* --nodate: the DATE option left out */
	PK_TD_TIME_ALIGN = 1 << 2,   /* --align-ts: the top buffer's first
					event at 0 */
};
struct pk_tracedat_time {
	size_t sz;
	unsigned flags;       /* enum pk_tracedat_time_flags */
	long long offset;     /* --ts-offset: ns added to every time */
	uint64_t hz;          /* --ts2secs: the clock's counts a second (its
				 counts become ns instead of the file's
				 TSC2NSEC conversion); 0: none */
};
/*
 * Sets how event times are made from the recorded counts, as trace-cmd
 * report's --raw-ts, --nodate, --align-ts, --ts-offset and --ts2secs do
 * (the file's TSC2NSEC, OFFSET and DATE options apply otherwise). Call
 * before reading events (it rewinds). 0 or -EINVAL, or a damaged file's
 * error while finding the first event for PK_TD_TIME_ALIGN.
 */
PK_API int pk_tracedat_set_time(struct pk_tracedat *td,
				const struct pk_tracedat_time *t);

/* What pk_tracedat_dump() prints (trace-cmd dump's options). */
enum {
	PK_TD_DUMP_SUMMARY = 1 << 0, PK_TD_DUMP_HEAD_PAGE = 1 << 1,
	PK_TD_DUMP_HEAD_EVENT = 1 << 2, PK_TD_DUMP_FTRACE = 1 << 3,
	PK_TD_DUMP_SYSTEMS = 1 << 4, PK_TD_DUMP_EVENTS = 1 << 5,
	PK_TD_DUMP_KALLSYMS = 1 << 6, PK_TD_DUMP_PRINTK = 1 << 7,
	PK_TD_DUMP_CMDLINES = 1 << 8, PK_TD_DUMP_OPTIONS = 1 << 9,
	PK_TD_DUMP_FLYRECORD = 1 << 10, PK_TD_DUMP_CLOCK = 1 << 11,
	PK_TD_DUMP_SECTIONS = 1 << 12, PK_TD_DUMP_STRINGS = 1 << 13,
	PK_TD_DUMP_ALL = -1,
};
/*
 * Walks the trace-cmd file PATH as trace-cmd dump 3.1 does and prints to
 * OUT the parts in WHAT (PK_TD_DUMP_*; 0 prints nothing but still checks
 * the layout). Does not need pk_tracedat_open() to accept the file. 0,
 * -errno (reading PATH) or PK_ERR_FORMAT with *FAILED (when not NULL)
 * naming what could not be read; what came before it is printed.
 */
PK_API int pk_tracedat_dump(const char *path, FILE *out, unsigned what,
			    const char **failed);

/* ---- trace.dat split (trace-cmd split) ---- */
struct pk_tdsplit;

enum pk_tdsplit_unit {
	PK_TD_SPLIT_NONE, PK_TD_SPLIT_SECONDS, PK_TD_SPLIT_MSECS,
	PK_TD_SPLIT_USECS, PK_TD_SPLIT_EVENTS, PK_TD_SPLIT_PAGES,
};
/* Options of pk_tdsplit_new(); declare with PK_OPTS(). */
struct pk_tdsplit_opts {
	size_t sz;
	int unit;                 /* enum pk_tdsplit_unit */
	long long count;          /* units a piece (> 0 unless NONE) */
	bool percpu;              /* each CPU on its own (PAGES implies it) */
	int only_cpu;             /* >= 0: that CPU alone */
	uint64_t end;             /* 0, or the last record time (ns) */
};
/*
 * Prepares splitting TD's top buffer as trace-cmd split 3.1 does (its
 * pages re-packed, its metadata copied; instance buffers are left out).
 * TD stays borrowed. NULL with errno: EINVAL (bad options),
 * -PK_ERR_UNSUPP (a latency trace), ENOMEM, or a read error of the data.
 */
PK_API struct pk_tdsplit *pk_tdsplit_new(struct pk_tracedat *td,
					 const struct pk_tdsplit_opts *o);
/*
 * Writes the next piece to PATH (format 7, the input's compression when
 * it is a format-7 file), from START (ns; 0: where the last piece left
 * off). *NEXT gets trace-cmd's "current": 0 when no record remains to
 * resume from, else past the piece's last record (or the end time).
 * 0 or -errno.
 */
PK_API int pk_tdsplit_piece(struct pk_tdsplit *s, const char *path,
			    uint64_t start, uint64_t *next);
/* Where the last piece put each CPU's data (trace-cmd prints it). */
struct pk_tdsplit_cpu {
	uint64_t offset, size;    /* in the file (size: compressed) */
	uint64_t usize;           /* the pages' bytes */
};
enum {
	PK_TDSPLIT_LAYOUT = 1 << 0,     /* the layout is known */
	PK_TDSPLIT_V6 = 1 << 1,         /* the piece is format 6 */
	PK_TDSPLIT_COMPRESSED = 1 << 2, /* its CPU data is compressed */
};
/* The last piece's CPUs (0, 1 ...) in *CPUS (borrowed from S) and
 * PK_TDSPLIT_* in *FLAGS. The count, 0 when the layout is not known. */
PK_API int pk_tdsplit_layout(const struct pk_tdsplit *s,
			     const struct pk_tdsplit_cpu **cpus,
			     unsigned *flags);
/* Frees S (NULL is fine). */
PK_API void pk_tdsplit_free(struct pk_tdsplit *s);

/* ---- trace.dat writer (format 7) ---- */
struct pk_tdwriter;

/* Options of pk_tdwriter_open(); declare with PK_OPTS(). */
struct pk_tdwriter_opts {
	size_t sz;
	const char *compression;  /* NULL/"none", "zstd" or "zlib" */
	int page_size;            /* 0: the host's */
	int long_size;            /* 0: the host's */
	/* trace-cmd restore -c's partial file: the metadata sections and
	 * their options only (no buffers, CPU count or other options) */
	bool header_only;
	/* leave out the TRACECLOCK, UNAME and VERSION options (the data is
	 * another machine's: trace-cmd restore writes none) */
	bool minimal_options;
};
/* Creates PATH (truncating it). NULL with errno on failure. */
PK_API struct pk_tdwriter *pk_tdwriter_open(const char *path,
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
/* The DATE option trace-cmd record --date writes: USECS microseconds from
 * the trace clock to the time of day (readers add it, --nodate not). */
PK_API int pk_tdwriter_set_date(struct pk_tdwriter *w, long long usecs);
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
/*
 * The ring-buffer sub-buffer ("page") size of the buffer added last, when
 * it differs from the file's page size (buffer_subbuf_size_kb * 1024 of
 * that instance); its CPU data is aligned and read in such pages. 0 or
 * -EINVAL (no buffer yet, or not a power of two from 256 to 16 MiB).
 */
PK_API int pk_tdwriter_buffer_page_size(struct pk_tdwriter *w, int page_size);
/* Stores TEXT (LEN bytes, saved_tgids: "PID TGID" lines) in an option
 * of perfkit's own that trace-cmd skips; readers get it back as
 * PK_TD_TGIDS. 0 or -ENOMEM. */
PK_API int pk_tdwriter_set_tgids(struct pk_tdwriter *w, const char *text,
				 size_t len);
/* Adds a latency buffer: TEXT (LEN bytes) is what the kernel's trace
 * file showed (a BUFFER_TEXT section). 0 or -ENOMEM. */
PK_API int pk_tdwriter_add_latency(struct pk_tdwriter *w, const char *name,
				   const char *clock, const char *text,
				   size_t len);
/* The file's CPU count is at least N (a latency buffer has no per-CPU
 * data, but trace-cmd stores the machine's CPU count with it). */
PK_API void pk_tdwriter_set_cpu_count(struct pk_tdwriter *w, int n);
/*
 * Sets W's metadata from the file TD reads (the writer beside the
 * reader): header page and event, every format, kallsyms, printk formats
 * and saved command lines, what a partial file of trace-cmd restore -c
 * holds. The bytes are copied. 0, -ENOMEM or a decompression error.
 */
PK_API int pk_tdwriter_copy_meta(struct pk_tdwriter *w,
				 const struct pk_tracedat *td);
/* Writes everything and closes the file; frees W. 0 or -errno. */
PK_API int pk_tdwriter_close(struct pk_tdwriter *w);
/* Frees W without finishing the file. */
PK_API void pk_tdwriter_free(struct pk_tdwriter *w);

#ifdef __cplusplus
}
#endif
#endif
