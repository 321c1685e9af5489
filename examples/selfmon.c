/* SPDX-License-Identifier: MIT */
/*
 * Self-monitoring example: count task-clock, context switches and
 * syscalls:sys_enter_getppid (by its tracefs id) over a code region of
 * this program, with the perfkit self-monitoring API.
 *   selfmon [N]    N getppid() calls in the region (default 100000)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <perfkit/perfkit.h>

static int tracepoint_id(const char *sys, const char *name)
{
	char path[256];
	FILE *f;
	int id = -1;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id",
		 sys, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

static struct perf_event_attr make_attr(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	return a;
}

/* The region being measured: N system calls and a short sleep. */
static void region(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	usleep(2000);
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "task-clock", "context-switches",
					     "syscalls:sys_enter_getppid" };
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int id = tracepoint_id("syscalls", "sys_enter_getppid");
	struct perf_event_attr attrs[3] = {
		make_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
		make_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES),
		make_attr(PERF_TYPE_TRACEPOINT, (uint64_t)id),
	};
	int nr = id >= 0 ? 3 : 2;
	struct pk_counts delta[3];
	struct pk_selfmon *m = pk_selfmon_new(attrs, nr);

	if (!m) {
		char why[256];

		pk_open_strerror(-errno, &attrs[0], false, why, sizeof(why));
		fprintf(stderr, "selfmon: cannot open the events: %s\n", why);
		return 1;
	}
	if (id < 0)
		fprintf(stderr, "selfmon: no sys_enter_getppid tracepoint; "
				"counting two events\n");
	pk_selfmon_begin(m);
	region(n);
	if (pk_selfmon_end(m, delta)) {
		fprintf(stderr, "selfmon: read failed\n");
		pk_selfmon_free(m);
		return 1;
	}
	printf("region: %ld getppid() calls and a 2 ms sleep\n", n);
	for (int i = 0; i < nr; i++)
		printf("%20llu  %-28s (read via %s)\n",
		       (unsigned long long)delta[i].val, names[i],
		       pk_selfmon_path_name(pk_selfmon_path(m, i)));
	pk_selfmon_free(m);
	return 0;
}
