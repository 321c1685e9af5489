/* SPDX-License-Identifier: MIT */
/* Huge-page backed buffers (see bigbuf.h). */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include "base/base.h"
#include "base/bigbuf.h"

#define HUGE_SZ ((size_t)2 << 20)
#define SMALL_MAX ((size_t)256 << 10)

void *pk_bigbuf_alloc(struct pk_bigbuf *b, size_t n)
{
	b->base = NULL;
	b->len = 0;
	if (n < SMALL_MAX) {
		b->p = pk_malloc(n ? n : 1);
		return b->p;
	}
	if (n > SIZE_MAX - 2 * HUGE_SZ) {
		errno = ENOMEM;
		return b->p = NULL;
	}
	size_t len = (n + HUGE_SZ - 1) / HUGE_SZ * HUGE_SZ + HUGE_SZ;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return b->p = NULL;
	uintptr_t a = ((uintptr_t)m + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1);
	(void)madvise((void *)a, len - (a - (uintptr_t)m), MADV_HUGEPAGE);
	b->base = m;
	b->len = len;
	return b->p = (void *)a;
}

void pk_bigbuf_free(struct pk_bigbuf *b)
{
	if (b->base)
		munmap(b->base, b->len);
	else
		pk_free(b->p);
	b->base = b->p = NULL;
	b->len = 0;
}
