/* SPDX-License-Identifier: MIT */
/*
 * perfkit annotate: samples counted per instruction of the symbols they
 * hit, and each symbol's annotated disassembly (perf annotate's model).
 *
 * pk_annotate_add() takes the samples pk_session_run() delivers; then
 * the symbols are listed hottest first (pk_annotate_sym), and
 * pk_annotation_new() disassembles one (Zydis, objdump's AT&T layout)
 * with its source lines, for pk_annotation_line() (a browser) or
 * pk_annotation_print() (perf annotate --stdio).
 */
#ifndef PERFKIT_ANNOTATE_H
#define PERFKIT_ANNOTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <perfkit/common.h>
#include <perfkit/session.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_annotate;
struct pk_annotation;

/* Samples per symbol of session S (which must outlive it). NULL with
 * errno on failure. */
PK_API struct pk_annotate *pk_annotate_new(struct pk_session *s);
PK_API void pk_annotate_free(struct pk_annotate *a);

/*
 * Counts sample SM (a tool's sample callback argument) at its ip, per
 * event, when the ip lies in a symbol of a DSO; every sample of a known
 * event counts in its totals.
 * 0 or -ENOMEM.
 */
PK_API int pk_annotate_add(struct pk_annotate *a,
			   const struct pk_session_sample *sm);

/* One annotated symbol, as pk_annotate_sym() describes it. */
struct pk_annotate_sym {
	const char *name;      /* the symbol's name (perf's) */
	const char *dso;       /* the DSO's path as recorded */
	const char *dso_short; /* its base name */
	uint64_t start, end;   /* [start, end): addresses in the ELF file */
	uint64_t nr_samples, period;
	int attr;              /* its event (attribute index) */
	bool kernel;
};

/* The number of (event, symbol) pairs with samples; pk_annotate_sym()'s
 * indexes go through the events in order, each's hottest symbol first
 * (period, then DSO and symbol name, as perf sorts). */
PK_API int pk_annotate_nr_syms(struct pk_annotate *a);
/* Describes symbol IDX. 0, or -EINVAL for a bad index. */
PK_API int pk_annotate_sym(struct pk_annotate *a, int idx,
			   struct pk_annotate_sym *out);
/* The sample count and period of all samples added of event ATTR. */
PK_API void pk_annotate_totals(struct pk_annotate *a, int attr,
			       uint64_t *samples, uint64_t *period);

enum pk_annotate_percent {
	PK_ANNOTATE_LOCAL_PERIOD,   /* perf's default */
	PK_ANNOTATE_GLOBAL_PERIOD,
	PK_ANNOTATE_LOCAL_HITS,
	PK_ANNOTATE_GLOBAL_HITS,
};

struct pk_annotation_opts {
	size_t sz;
	bool no_source;      /* objdump without -S (perf's --no-source) */
	bool intel;          /* Intel syntax (perf's -M intel) */
	enum pk_annotate_percent percent;
	bool srclines;       /* each instruction's "file.c:LINE" (perf's
				-l), for pk_annotation_line and printing */
};
#define pk_annotation_opts__last_field srclines

/*
 * Disassembles symbol IDX from its DSO's file (the build-id cache's copy
 * where the file changed) with its source lines. NULL with errno:
 * EINVAL (bad index or options), ENOENT (no file to read; kernel
 * symbols: no vmlinux support yet), EPROTO (no executable ELF section
 * holds the symbol's bytes), EIO, ENOMEM.
 */
PK_API struct pk_annotation *
pk_annotation_new(struct pk_annotate *a, int idx,
		  const struct pk_annotation_opts *opts);
PK_API void pk_annotation_free(struct pk_annotation *an);

/* One line of an annotation: an instruction or a text line. */
struct pk_annotation_line {
	bool insn;            /* an instruction (the fields below are set) */
	uint64_t addr;        /* its address in the ELF file */
	double percent;       /* of its samples (up to the next insn) */
	uint64_t samples, period;
	bool has_target;      /* a direct jump or call: */
	uint64_t target;      /* its destination */
	int line_nr;          /* perf's line number (text lines) */
	const char *text;     /* the text as perf shows it (no newline) */
	const char *srcline;  /* "file.c:LINE" of an instruction with
				 opts.srclines, else NULL */
};

PK_API int pk_annotation_nr_lines(const struct pk_annotation *an);
/* Line IDX. 0, or -EINVAL for a bad index. Strings live as long as AN. */
PK_API int pk_annotation_line(const struct pk_annotation *an, int idx,
			      struct pk_annotation_line *out);

/* What the first column shows (perf's default, -n, --show-total-period). */
enum pk_annotate_column {
	PK_ANNOTATE_COL_PERCENT,
	PK_ANNOTATE_COL_SAMPLES,
	PK_ANNOTATE_COL_PERIOD,
};

struct pk_annotation_print_opts {
	size_t sz;
	const char *event;   /* the event's name for the header */
	enum pk_annotate_column column;
	/* perf's -l: the sorted summary of source lines first, each
	 * instruction that starts a new source line marked (needs the
	 * annotation made with srclines) */
	bool print_line;
	/* perf marks an instruction's source line only where it differs
	 * from the last one marked, also in the symbols printed before:
	 * a buffer the caller keeps across calls ("" at first), or NULL to
	 * start afresh with each symbol */
	char *last_srcline;
	size_t last_srcline_len;
};
#define pk_annotation_print_opts__last_field last_srcline_len

/*
 * Prints AN as perf annotate --stdio does to F: the header and every
 * line. 0, -EINVAL (bad OPTS) or -EIO.
 */
PK_API int pk_annotation_print(const struct pk_annotation *an, FILE *f,
			       const struct pk_annotation_print_opts *opts);

/*
 * perf's annotate browser (perf report's a, perf annotate --tui): line
 * IDX as its text column shows it, after the percent column and the bar,
 * UTF-8 into BUF (LEN bytes with the NUL). An instruction: its offset in
 * the function where one of the function's jumps lands (else blank), an
 * arrow (up or down before a jump within the function, right before a
 * call or a jump out of it, left before a return), the mnemonic padded
 * to the longest, then the operands as perf rewrites them (a jump's
 * target as its offset, a call's by symbol, a RIP-relative operand of
 * a move by objdump's symbol, nops as "nop"); a text line past the
 * offset column. 0, or -EINVAL for a bad index.
 */
PK_API int pk_annotation_browser_text(const struct pk_annotation *an,
				      int idx, char *buf, size_t len);
/* The browser's first selection: the line of the highest share (the last
 * of equal ones), or -1 when none has samples. */
PK_API int pk_annotation_hottest(const struct pk_annotation *an);
/* For a jump at line IDX that lands within the function: the line it
 * lands on, else -1 (the browser draws an arrow between the two). */
PK_API int pk_annotation_jump_target(const struct pk_annotation *an,
				     int idx);
/* For such a jump at line IDX: how many lines back (source lines
 * counted) the instruction is that the browser marks as fused with it
 * (perf's x86 rule: a compare, test or arithmetic instruction before a
 * conditional jump), else 0. */
PK_API int pk_annotation_fused(const struct pk_annotation *an, int idx);
/* The column of the text (0 its first) where the browser draws those
 * arrows: the offset column's width plus one. */
PK_API int pk_annotation_arrow_column(const struct pk_annotation *an);

#ifdef __cplusplus
}
#endif
#endif
