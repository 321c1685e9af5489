/* SPDX-License-Identifier: MIT */
/*
 * Deep stacks for DWARF unwinding tests: mutually recursive functions
 * (frames of different sizes, one without a frame pointer's help), a
 * comparator called back from libc's qsort, and a leaf loop.
 *   recurse [SCALE [DEPTH]]   (default 1 and 40; about 0.2 s of CPU per
 *                              unit of SCALE)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile uint64_t sink;

static __attribute__((noinline)) uint64_t leaf(int n)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < n; i++) {
		h ^= (uint64_t)i;
		h *= 1099511628211ull;
	}
	return h;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	sink += leaf(8);
	return (x > y) - (x < y);
}

static __attribute__((noinline)) void sort_some(int n)
{
	uint32_t *v = malloc((size_t)n * sizeof(*v));

	if (!v)
		return;
	for (int i = 0; i < n; i++)
		v[i] = (uint32_t)(i * 2654435761u);
	qsort(v, (size_t)n, sizeof(*v), cmp_u32);
	sink += v[n / 2];
	free(v);
}

static uint64_t odd(int depth, int work);

static __attribute__((noinline)) uint64_t even(int depth, int work)
{
	volatile char pad[40];

	pad[depth % 40] = (char)depth;
	if (depth <= 0)
		return leaf(work) + pad[0];
	return odd(depth - 1, work) + 1;
}

static __attribute__((noinline)) uint64_t odd(int depth, int work)
{
	uint64_t r;

	if (depth <= 0) {
		sort_some(work / 64 + 16);
		return 0;
	}
	r = even(depth - 1, work);
	sink += r;
	return r ^ (uint64_t)depth;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	int depth = argc > 2 ? atoi(argv[2]) : 40;

	for (int i = 0; i < 2400 * scale; i++) {
		sink += even(depth + (i & 3), 20000);
		sink += odd(depth / 2 + (i & 1), 20000);
	}
	printf("%llu\n", (unsigned long long)(sink & 0xff));
	return 0;
}
