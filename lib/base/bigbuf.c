/* SPDX-License-Identifier: MIT */
/* Huge-page backed buffers (see bigbuf.h). */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include "base/base.h"
#include "base/bigbuf.h"

#define HUGE_SZ ((size_t)2 << 20)
#define SMALL_MAX ((size_t)256 << 10)

/* N bytes (rounded up to 2 MiB, so every page of it can be a huge page)
 * of a mapping on a 2 MiB boundary, the slack before and after given
 * back, with MADV_HUGEPAGE. */
static void *huge_map(size_t n)
{
	char *m, *a;

	if (n > SIZE_MAX - 2 * HUGE_SZ) {
		errno = ENOMEM;
		return NULL;
	}
	n = (n + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
	m = mmap(NULL, n + HUGE_SZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)m + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1));
	if (a > m)
		munmap(m, (size_t)(a - m));
	if (m + n + HUGE_SZ > a + n)
		munmap(a + n, (size_t)(m + n + HUGE_SZ - (a + n)));
	(void)madvise(a, n, MADV_HUGEPAGE);
	return a;
}

static void huge_unmap(void *p, size_t n)
{
	munmap(p, (n + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
}

void *pk_huge_alloc(size_t n)
{
	return n < SMALL_MAX ? pk__zalloc(n ? n : 1) : huge_map(n);
}

void pk_huge_free(void *p, size_t n)
{
	if (p && n < SMALL_MAX)
		pk__free(p);
	else if (p)
		huge_unmap(p, n);
}

void *pk__bigbuf_alloc(struct pk_bigbuf *b, size_t n)
{
	b->len = n;
	b->p = n < SMALL_MAX ? pk__malloc(n ? n : 1) : huge_map(n);
	return b->p;
}

void pk__bigbuf_free(struct pk_bigbuf *b)
{
	pk_huge_free(b->p, b->len);
	b->p = NULL;
	b->len = 0;
}
