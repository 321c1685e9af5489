/* SPDX-License-Identifier: MIT */
/*
 * perf.data reading speed: the perfdata reader walking every record in
 * time order and decoding every sample (with its callchain), then
 * `perfkit script -D` against `perf report -D` and `perf script -D` on the
 * same file, output to /dev/null.
 *   perfdata_read [FILE]   (default: records one with perf: cpu-clock,
 *                           -g, period 20us, demo 14: about 250K samples)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/perfdata.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double run(const char *cmd)
{
	double t = now();

	if (system(cmd) != 0)
		return -1;
	return now() - t;
}

static int walk(const char *path, unsigned long *nrec, unsigned long *nsamp,
		unsigned long long *nips)
{
	struct pk_perfdata *pd = pk_perfdata_open(path, NULL);
	struct pk_record rec;
	int err;

	if (!pd)
		return -1;
	*nrec = *nsamp = 0;
	*nips = 0;
	while ((err = pk_perfdata_next(pd, &rec)) == 0) {
		struct pk_sample s;

		(*nrec)++;
		if (rec.type == PERF_RECORD_SAMPLE &&
		    pk_sample_parse(pd, &rec, &s) == 0) {
			(*nsamp)++;
			*nips += s.callchain.nr;
		}
	}
	pk_perfdata_free(pd);
	return err == PK_ERR_EOS ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *build = getenv("PK_BUILD") ? getenv("PK_BUILD") : "build";
	char path[256], cmd[1024];
	unsigned long nrec, nsamp;
	unsigned long long nips;
	double best = 1e9, tk, tr, ts;

	if (argc > 1) {
		snprintf(path, sizeof(path), "%s", argv[1]);
	} else {
		snprintf(path, sizeof(path), "/tmp/pk_bench_perfdata.%d",
			 (int)getpid());
		snprintf(cmd, sizeof(cmd),
			 "perf record -q -e cpu-clock -c 20000 -g -o %s -- %s/workloads/demo 14 >/dev/null 2>&1",
			 path, build);
		if (system(cmd) != 0) {
			printf("perf record failed: skipped\n");
			return 0;
		}
	}
	for (int i = 0; i < 5; i++) {
		double t = now();

		if (walk(path, &nrec, &nsamp, &nips)) {
			printf("%s: read error\n", path);
			return 1;
		}
		t = now() - t;
		if (t < best)
			best = t;
	}
	printf("file: %s: %lu records, %lu samples, %llu callchain entries\n",
	       path, nrec, nsamp, nips);
	printf("perfdata reader (time order, every sample decoded): %.3f s, %.1f M records/s\n",
	       best, nrec / best / 1e6);
	snprintf(cmd, sizeof(cmd), "%s/perfkit script -D -i %s >/dev/null 2>&1",
		 build, path);
	tk = run(cmd);
	snprintf(cmd, sizeof(cmd), "perf report -D -i %s >/dev/null 2>&1", path);
	tr = run(cmd);
	snprintf(cmd, sizeof(cmd), "perf script -D -i %s >/dev/null 2>&1", path);
	ts = run(cmd);
	printf("perfkit script -D: %.3f s; perf report -D: %.3f s (%.1fx); perf script -D: %.3f s (%.1fx)\n",
	       tk, tr, tk > 0 ? tr / tk : 0, ts, tk > 0 ? ts / tk : 0);
	printf("reader alone vs perf report -D: %.1fx\n", tr / best);
	if (argc < 2)
		unlink(path);
	return 0;
}
