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

#ifdef __cplusplus
}
#endif
#endif
