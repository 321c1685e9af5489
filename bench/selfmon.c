/* SPDX-License-Identifier: MIT */
/*
 * Benchmark: one self-monitoring read (pk_selfmon_read: mmap page + rdpmc
 * where the event has a hardware counter, else the read(2) fallback)
 * against one raw read(2) of the same event fd.
 *   selfmon [ITERATIONS]   (default 200000)
 * Prints three lines: perfkit ns/read (with the path taken), read(2)
 * ns/read, and the ratio perfkit / read(2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/perfkit.h>

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* A hardware counter when there is one (rdpmc possible), else task-clock. */
static struct pk_selfmon *open_event(const char **name)
{
	struct perf_event_attr a;
	struct pk_selfmon *m;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	*name = "instructions:u";
	m = pk_selfmon_new(&a, 1);
	if (m)
		return m;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	*name = "task-clock:u";
	return pk_selfmon_new(&a, 1);
}

static double time_selfmon(struct pk_selfmon *m, long iters)
{
	struct pk_counts c;
	double t0 = now_ns();

	for (long i = 0; i < iters; i++)
		if (pk_selfmon_read(m, &c))
			return -1;
	return (now_ns() - t0) / (double)iters;
}

static double time_read(int fd, long iters)
{
	unsigned long long buf[4];
	double t0 = now_ns();

	for (long i = 0; i < iters; i++)
		if (read(fd, buf, sizeof(buf)) <= 0)
			return -1;
	return (now_ns() - t0) / (double)iters;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 200000;
	const char *name;
	struct pk_selfmon *m = open_event(&name);
	double pk = 1e300, rd = 1e300;

	if (!m || iters < 1) {
		fprintf(stderr, "bench selfmon: cannot open an event\n");
		return 1;
	}
	time_selfmon(m, iters / 10 + 1);	/* warm up */
	time_read(pk_selfmon_fd(m, 0), iters / 10 + 1);
	/* Best of three interleaved rounds, so other load hurts both alike. */
	for (int r = 0; r < 3; r++) {
		double a = time_selfmon(m, iters), b =
			time_read(pk_selfmon_fd(m, 0), iters);

		if (a < 0 || b < 0) {
			fprintf(stderr, "bench selfmon: read failed\n");
			return 1;
		}
		pk = a < pk ? a : pk;
		rd = b < rd ? b : rd;
	}
	printf("selfmon-read perfkit: %.1f ns/read (pk_selfmon_read, %s, path %s)\n",
	       pk, name, pk_selfmon_path_name(pk_selfmon_path(m, 0)));
	printf("selfmon-read read(2): %.1f ns/read (raw read of the same fd)\n",
	       rd);
	printf("selfmon-read ratio: %.2f (perfkit / read(2))\n", pk / rd);
	pk_selfmon_free(m);
	return 0;
}
