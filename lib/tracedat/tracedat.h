/* SPDX-License-Identifier: MIT */
/* Internal: trace.dat reader state, shared by tdread.c, tditer.c, report. */
#ifndef PK_TRACEDAT_TRACEDAT_H
#define PK_TRACEDAT_TRACEDAT_H
#include <perfkit/tracedat.h>
#include "base/base.h"
#include "tracedat/rbpage.h"
#include "base/bigbuf.h"

/* trace-cmd option / section ids */
enum {
	TD_OPT_DONE = 0, TD_OPT_DATE, TD_OPT_CPUSTAT, TD_OPT_BUFFER,
	TD_OPT_TRACECLOCK, TD_OPT_UNAME, TD_OPT_HOOK, TD_OPT_OFFSET,
	TD_OPT_CPUCOUNT, TD_OPT_VERSION, TD_OPT_PROCMAPS, TD_OPT_TRACEID,
	TD_OPT_TIME_SHIFT, TD_OPT_GUEST, TD_OPT_TSC2NSEC, TD_OPT_STRINGS,
	TD_OPT_HEADER_INFO, TD_OPT_FTRACE_EVENTS, TD_OPT_EVENT_FORMATS,
	TD_OPT_KALLSYMS, TD_OPT_PRINTK, TD_OPT_CMDLINES, TD_OPT_BUFFER_TEXT,
	/* perfkit's own, far above trace-cmd's ids (3.4 ends at 25): the
	 * text of saved_tgids; trace-cmd skips options it does not know
	 * (report prints no warning for them) */
	TD_OPT_PK_TGIDS = 0x5054,
};

struct td_blob { const char *p; size_t len; };

struct td_format { const char *system; struct td_blob text; };

struct td_chunk {
	uint64_t in;            /* file offset of the compressed bytes */
	uint32_t csize, usize;
	size_t out;             /* offset in td_cpu.data */
};

struct td_cpu {
	int cpu;
	uint64_t off, size;     /* in the file */
	uint8_t *data;          /* decompressed pages (in mem) or NULL */
	struct pk_bigbuf mem;
	const uint8_t *pages;   /* the pages to read */
	size_t len;
	bool loaded;
	/* compressed data: chunks decompressed on demand, in order; with a
	 * prefetch thread (pk__td_prefetch_start) shared under td->lock */
	struct td_chunk *chunks;
	uint32_t nr_chunks;
	uint32_t claimed;       /* chunks taken by a decompressor */
	uint32_t nr_done;       /* leading chunks decompressed */
	uint8_t *cdone;         /* per chunk: 1 decompressed, 2 failed */
	size_t ready;           /* bytes of data usable (atomic) */
	size_t used;            /* reader position (atomic), for the helper */
	int cerr;               /* a chunk failed: its error */
	bool warned;
	/* iteration */
	size_t page_off;        /* current page */
	struct pk_rb_iter it;
	bool have_page, have_ev, first_in_page, done;
	struct pk_rb_event ev;
};

struct td_buffer {
	char *name, *clock;
	uint64_t sec_off;       /* flyrecord section (v7) */
	uint32_t page_size;
	int nr_cpus;
	struct td_cpu *cpus;
	bool latency, compressed, in_usecs;
	struct td_blob text;    /* latency text */
};

struct pk_tracedat {
	const uint8_t *map;
	size_t size;
	bool mapped;
	char name[256];         /* base name of the file (report prefix) */
	int version;
	bool big;
	int long_size;
	uint32_t page_size;
	char comp[32], comp_ver[32];
	struct pk_rb_layout layout;
	struct td_blob hdr_page, hdr_event, kallsyms, printk, cmdlines;
	struct td_blob uname, clock_opt, version_str, latency_text, tgids;
	struct td_format *fmts;
	int nr_fmts, nr_ftrace_fmts;
	struct td_buffer *bufs;
	int nr_bufs;
	int cpus;               /* v6 header count / CPUCOUNT */
	long long ts_offset;    /* what pk__td_conv_ts() adds (td_time_set) */
	long long opt_offset, opt_date;  /* the OFFSET and DATE options' (ns) */
	double ts2secs;         /* ns a count (pk_tracedat_set_time's hz) */
	bool raw_ts;            /* counts as recorded (PK_TD_TIME_RAW) */
	uint32_t tsc_mult, tsc_shift;
	uint64_t tsc_offset;
	bool has_tsc2nsec;
	uint64_t lazy_off[3];   /* v7 kallsyms/printk/cmdlines sections,
				   decompressed on first use */
	bool lazy_done[3];
	void *zctx;             /* reused decompression context */
	struct td_prefetch *pf; /* decompression thread, or NULL */
	struct pk_bigbuf bigs[8];  /* large decompressed sections */
	int nr_bigs;
	struct td_blob cpustat[256];  /* CPUSTAT options (per_cpu stats) */
	int nr_cpustat;
	char **owned;           /* allocations to free */
	int nr_owned;
	/* iteration filter */
	int *filter;
	int nr_filter;
};

/* A bounds-checked cursor over a byte range that knows its file offset. */
struct td_cur {
	const uint8_t *p;
	size_t len, pos;
	uint64_t base;          /* file offset of p[0] (for messages) */
	bool big;
	bool decomp;            /* inside a decompressed section */
};

int pk__td_keep(struct pk_tracedat *td, void *p);
/* At pk_tdwriter_close(), the first buffer's CPU k's data offset and
 * size in the file go to LAYOUT[2k] and [2k+1] (LAYOUT holds two per
 * CPU of that buffer). */
void pk__tdwriter_note_layout(struct pk_tdwriter *w, uint64_t *layout);
/* pk_tdwriter_set_item() without the copy: W takes DATA (pk__malloc'ed,
 * LEN bytes; freed on error too). */
int pk__tdwriter_take_item(struct pk_tdwriter *w, enum pk_tracedat_item item,
			   char *data, size_t len);
int pk__td_err(const struct td_cur *c, int err, const char *what);
/* Whether USIZE is a believable output size for CSIZE compressed bytes. */
bool pk__td_size_plausible(uint64_t csize, uint64_t usize);
int pk__td_decompress(const char *alg, const void *in, size_t in_len,
		  void *out, size_t out_len);
int pk__td_compress(const char *alg, const void *in, size_t in_len,
		void **out, size_t *out_len);
/* Decompression reusing *CTX (created on first use; pk__td_decompress_free). */
int pk__td_decompress_ctx(void **ctx, const char *alg, const void *in,
		      size_t in_len, void *out, size_t out_len);
void pk__td_decompress_free(void *ctx);
/* The blob of ITEM, loading a lazily read section first (NULL: none). */
const struct td_blob *pk__td_tracedat_blob(struct pk_tracedat *td,
				       enum pk_tracedat_item item);
int pk__td_load_cpu(struct pk_tracedat *td, struct td_buffer *b,
		struct td_cpu *c);
/* Makes the first NEED bytes of C's data usable (all: SIZE_MAX). */
int pk__td_cpu_need(struct pk_tracedat *td, struct td_buffer *b,
		struct td_cpu *c, size_t need);
/*
 * Starts a thread that runs JOB(ARG) (may be NULL) first and then
 * decompresses CPU data ahead of the reader (the records stay where they
 * are: pointers remain valid). Returns 1 when the thread runs, 0 when
 * there is nothing to prefetch (no thread: JOB was not run), or -errno.
 * JOB may only touch what the reader leaves alone. pk__td_prefetch_stop()
 * joins it (pk_tracedat_free calls it).
 */
int pk__td_prefetch_start(struct pk_tracedat *td, void (*job)(void *),
		      void *arg);
/* Waits for the job, decompressing CPU data meanwhile. */
void pk__td_prefetch_job_wait(struct pk_tracedat *td);
/* Waits (helping) until C has NEED usable bytes or cannot get them. */
int pk__td_prefetch_wait(struct pk_tracedat *td, struct td_cpu *c, size_t need);
/* The chunk table at CUR (see iter.c); *CHUNKS is the caller's to free. */
int pk__td_chunks(struct td_cur *cur, struct td_chunk **chunks, uint32_t *n,
		  size_t *total);
int pk__td_cpu_chunk(struct pk_tracedat *td, struct td_cpu *c, uint32_t i,
		 void **zctx);
void pk__td_cpu_chunk_done(struct td_cpu *c, uint32_t i, int r);
void pk__td_prefetch_stop(struct pk_tracedat *td);
bool pk__td_clock_in_usecs(const char *clock);
/* Each buffer's in_usecs for the clock and time settings. */
void pk__td_set_usecs(struct pk_tracedat *td);
/* B's trace clock: its own, else the [name] of the file's trace_clock
 * text (in TMP, N bytes), else "". */
const char *pk__td_clock_of(const struct pk_tracedat *td,
			    const struct td_buffer *b, char *tmp, size_t n);
/* A page timestamp after TSC2NSEC and OFFSET, as the records get it. */
uint64_t pk__td_conv_ts(const struct pk_tracedat *td, uint64_t ts);

#endif
