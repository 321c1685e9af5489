/* SPDX-License-Identifier: MIT */
/*
 * The bundled demo workload: a small program with a few distinct hot
 * functions (sorting, hashing, a matrix product) and some system calls, so
 * that counting and sampling have something to show.
 *   demo [SCALE]   (default 1, about 0.2 s of CPU)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static __attribute__((noinline)) uint64_t do_sort(int n)
{
	uint32_t *v = malloc((size_t)n * sizeof(*v));
	uint64_t s = 0;

	for (int i = 0; i < n; i++)
		v[i] = (uint32_t)next();
	qsort(v, (size_t)n, sizeof(*v), cmp);
	for (int i = 0; i < n; i += 97)
		s += v[i];
	free(v);
	return s;
}

static __attribute__((noinline)) uint64_t do_hash(int n)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < n; i++) {
		h ^= next() & 0xff;
		h *= 1099511628211ull;
	}
	return h;
}

static __attribute__((noinline)) double do_matrix(int n)
{
	double *a = malloc((size_t)n * n * sizeof(double));
	double *b = malloc((size_t)n * n * sizeof(double));
	double s = 0;

	for (int i = 0; i < n * n; i++) {
		a[i] = (double)(next() % 100) / 10.0;
		b[i] = (double)(next() % 100) / 10.0;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double t = 0;

			for (int k = 0; k < n; k++)
				t += a[i * n + k] * b[k * n + j];
			s += t;
		}
	free(a);
	free(b);
	return s;
}

static __attribute__((noinline)) long do_syscalls(int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += getppid();
	return s;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	uint64_t acc = 0;

	if (scale < 1)
		scale = 1;
	for (int r = 0; r < scale; r++) {
		acc += do_sort(300000);
		acc += do_hash(3000000);
		acc += (uint64_t)do_matrix(120);
		acc += (uint64_t)do_syscalls(20000);
	}
	printf("demo: checksum %llx\n", (unsigned long long)acc);
	return 0;
}
