/* SPDX-License-Identifier: MIT */
/*
 * Internal: the kernel symbol table, one parse of a kallsyms text
 * ("ADDR TYPE NAME[\t[MODULE]]" lines) for its three readers, each with
 * its own lookup rule:
 *  - the kernel's (trace output): the first alias in kallsyms order of the
 *    last address at or below the ip, with its module: pk__ksyms_first();
 *  - libtraceevent's (trace-cmd report): a symbol covers up to the next
 *    address, ties resolve as its sorted list and bsearch do:
 *    pk__ksyms_tep();
 *  - perf's (script, report): sized text symbols, built over this table by
 *    pk__symtab_load_kallsyms_text() (symtab.c).
 */
#ifndef PK_SYMBOL_KSYMS_H
#define PK_SYMBOL_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/bigbuf.h"

struct pk_ksym {
	uint64_t addr;
	const char *name;       /* LEN bytes in the text (NUL-terminated
				 * unless the table borrows its text) */
	uint32_t len;
	uint16_t mod;           /* the module name's offset from NAME, or 0 */
	char type;              /* kallsyms type letter */
};

/* Sorted by address; equal addresses in kallsyms (file) order. */
struct pk_ksyms {
	struct pk_ksym *v;
	size_t n;
	struct pk_bigbuf mem, text;
};

/*
 * Parses LEN bytes of TEXT into K, replacing what K held; the copy is
 * K's, names are NUL-terminated. A line counts when it has hex digits,
 * a blank, a type letter, a blank and a name (up to a tab or the line's
 * end, a trailing CR left out), then maybe a tab and "[MODULE]"; others
 * are skipped. 0 or -ENOMEM.
 */
int pk__ksyms_parse(struct pk_ksyms *k, const char *text, size_t len);
/* Same on TEXT itself (pk__malloc'ed, NUL-terminated), which K takes over
 * (freed on error too). */
int pk__ksyms_take(struct pk_ksyms *k, char *text);
/* Same without a copy: names (LEN bytes each) point into TEXT, which is
 * left alone and must outlive K; no NULs, no module names. */
int pk__ksyms_borrow(struct pk_ksyms *k, const char *text, size_t len);
void pk__ksyms_fini(struct pk_ksyms *k);
/* K's entries in a table that owns nothing (its fini frees nothing), for
 * a second reader that does not outlive K. */
static inline struct pk_ksyms pk__ksyms_view(const struct pk_ksyms *k)
{
	return (struct pk_ksyms){ .v = k->v, .n = k->n };
}
/* The one line grammar, also for readers that stop early: the line
 * [P, E) into S, the name (and module) cut with NULs when CUT. False: not
 * a symbol. */
bool pk__ksyms_line(char *p, char *e, struct pk_ksym *s, bool cut);

/* S's module name (owned tables only), or NULL. */
static inline const char *pk__ksym_mod(const struct pk_ksym *s)
{
	return s->mod ? s->name + s->mod : NULL;
}

/* The kernel's symbol of IP: index of the first alias at the highest
 * address <= IP, or -1 when IP is below every symbol. */
long pk__ksyms_first(const struct pk_ksyms *k, uint64_t ip);
/* Distance from entry I's address to the next higher one (0: none). */
uint64_t pk__ksyms_size(const struct pk_ksyms *k, size_t i);
/* The address of the symbol NAME (the last in address order), or 0. */
uint64_t pk__ksyms_addr(const struct pk_ksyms *k, const char *name);
/* libtraceevent's symbol of IP (glibc bsearch over its list, each
 * symbol covering the addresses below the next one, the last only its
 * own address), or NULL. */
const struct pk_ksym *pk__ksyms_tep(const struct pk_ksyms *k, uint64_t ip);

/* Text symbols (t, T, w, W): what perf keeps and the kernel calls text. */
static inline bool pk__ksym_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

#endif
