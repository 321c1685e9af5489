/* SPDX-License-Identifier: MIT */
/*
 * Internal: large buffers (decompressed sections and CPU data, symbol
 * tables, the report's output) mapped on 2 MiB boundaries with
 * MADV_HUGEPAGE. Faulting 4 KiB pages one by one costs more than
 * decompressing into them on virtual machines; a huge page is one fault.
 * Small sizes come from pk__malloc.
 */
#ifndef PK_BASE_BIGBUF_H
#define PK_BASE_BIGBUF_H
#include <stddef.h>

struct pk_bigbuf {
	size_t len;             /* what was asked for */
	void *p;                /* the usable memory */
};

/* P of at least N bytes (not zeroed beyond what mmap gives), or NULL. */
void *pk__bigbuf_alloc(struct pk_bigbuf *b, size_t n);
void pk__bigbuf_free(struct pk_bigbuf *b);
#endif
