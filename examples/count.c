/* SPDX-License-Identifier: MIT */
/*
 * Counting example: count events (perf's syntax) in this thread over a
 * busy loop with the perfkit counting API: an event list opened on the
 * "any CPU" map and a one-thread map (tid 0: the calling thread).
 *   count [EVENTS [N]]    default "task-clock", N = 10000000 iterations
 * Prints one line per event: its count and its name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <perfkit/perfkit.h>

static volatile unsigned long sink;

static void region(long n)
{
	for (long i = 0; i < n; i++)
		sink += (unsigned long)i;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "count: %s: %s\n", what, pk_strerror(err));
	return 1;
}

static int report(struct pk_evlist *list)
{
	for (int i = 0; i < pk_evlist_nr(list); i++) {
		struct pk_evsel *e = pk_evlist_evsel(list, i);
		struct pk_counts c;
		int err = pk_evsel_read_sum(e, &c);

		if (err)
			return fail(pk_evsel_name(e), err);
		printf("%20llu  %s\n", (unsigned long long)c.val,
		       pk_evsel_name(e));
	}
	return 0;
}

static int count(struct pk_evlist *list, long n)
{
	static const int self = 0;
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *threads = pk_thread_map_new_array(1, &self);
	int err, rc;

	if (!cpus || !threads) {
		rc = fail("maps", -errno);
		goto out;
	}
	err = pk_evlist_open(list, cpus, threads, NULL, false);
	if (err < 0) {
		rc = fail("opening the events", err);
		goto out;
	}
	err = pk_evlist_reset(list);
	if (!err)
		err = pk_evlist_enable(list);
	region(n);
	if (!err)
		err = pk_evlist_disable(list);
	rc = err ? fail("enabling the events", err) : report(list);
out:
	pk_thread_map_put(threads);
	pk_cpu_map_put(cpus);
	return rc;
}

int main(int argc, char **argv)
{
	const char *events = argc > 1 ? argv[1] : "task-clock";
	long n = argc > 2 ? atol(argv[2]) : 10000000;
	struct pk_parse_error perr;
	struct pk_evlist *list = pk_evlist_new();
	int err, rc;

	if (!list)
		return fail("event list", -errno);
	err = pk_evlist_parse(list, events, &perr);
	if (err < 0) {
		char msg[512];

		pk_parse_error_snprintf(msg, sizeof(msg), events, &perr);
		fprintf(stderr, "%s\n", msg);
		pk_evlist_free(list);
		return 1;
	}
	rc = count(list, n);
	pk_evlist_free(list);
	return rc;
}
