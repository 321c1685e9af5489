/* SPDX-License-Identifier: MIT */
/* Internal: the annotate layer's objects. */
#ifndef PK_ANNOTATE_INT_H
#define PK_ANNOTATE_INT_H

#include <perfkit/annotate.h>
#include <perfkit/perfdata.h>
#include "base/base.h"
#include "base/hash.h"
#include "session/session.h"
#include "symbol/symtab.h"

struct ahit {
	uint64_t off, period;   /* a sample at symbol offset OFF */
};

/* One symbol with samples. START/END are file offsets (symtab space). */
struct asym {
	const char *name, *dso_name;
	struct dso *dso;        /* NULL for the kernel */
	uint64_t start, end;
	uint64_t samples, period;
	int attr;               /* the event's attribute index */
	bool kernel;
	struct ahit *hits;
	unsigned nr_hits, cap_hits;
};

struct pk_annotate {
	struct pk_session *sess;
	struct asym **syms;
	unsigned nr, cap;
	bool sorted;
	struct pk__hash by_sym;  /* (attr, symbol name pointer) -> index */
	struct atotal { uint64_t samples, period; } *totals; /* per attr */
	unsigned nr_totals, cap_totals;
};

/* Room for one more of the *NR elements of SIZE bytes at *ARR (its
 * capacity *CAP doubled when full, from FIRST). 0 or -ENOMEM. */
int pk__annotate_grow(void **arr, unsigned *cap, unsigned nr, unsigned first,
		      size_t size);

/* Symbol IDX in perf's order, or NULL. */
struct asym *pk__annotate_get(struct pk_annotate *a, int idx);

/* One line of objdump's output as perf keeps it. */
struct aline {
	bool insn;
	bool plt;               /* in a .plt* section */
	uint64_t addr, samples, period;
	double percent;
	bool has_target;
	uint64_t target;
	int line_nr;
	char *text;
	char *srcline;          /* with opts.srclines: "file.c:LINE" */
	int jump_sources;       /* the function's jumps that land here */
	int jump_to;            /* a local jump: the line it lands on + 1 */
	char *target_sym;       /* perf's symbol holding the target (the
				   browser names calls and jumps out by it) */
};

struct pk_annotation {
	struct pk_annotate_sym sym;
	enum pk_annotate_percent percent;
	struct aline *lines;
	unsigned nr, cap;
	int addr_width;          /* hex digits of the highest address */
	/* browse.c: perf's annotate browser's widths: of the offsets (hex
	 * digits of the function's size), of the longest mnemonic */
	int off_width, max_ins_name;
};

/* disasm.c: the objdump -l -d [-S] lines of E into AN. 0 or -errno. */
int pk__annotate_disasm(struct pk_annotation *an, struct pk_session *s,
			const struct asym *e, bool source, bool intel);
/* Whether NAME is perf's name for a PLT entry (binutils has no symbol
 * there). */
bool pk__annotate_plt_name(const char *name);
/* browse.c: what perf's annotate browser computes of the lines (the
 * widths, where jumps land). */
void pk__annotation_browse_init(struct pk_annotation *an);
/* Adds a line (TEXT copied). 0 or -ENOMEM. */
int pk__annotation_add(struct pk_annotation *an, const struct aline *l);
#endif
