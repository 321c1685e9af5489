/* SPDX-License-Identifier: MIT */
/* Helpers shared by the live counter tests: attrs built by hand and the
 * getppid workload started under control. */
#ifndef PK_TEST_COUNTER_UTIL_H
#define PK_TEST_COUNTER_UTIL_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "test.h"

/* The tracepoint id of SYS:NAME from tracefs, or -1. */
static inline int tp_id(const char *sys, const char *name)
{
	static const char *const roots[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	for (size_t i = 0; i < 2; i++) {
		char path[512];
		FILE *f;
		int id = -1;

		snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i],
			 sys, name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%d", &id) != 1)
			id = -1;
		fclose(f);
		return id;
	}
	return -1;
}

static inline struct perf_event_attr tp_attr(int id)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = (uint64_t)id;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	return a;
}

static inline struct perf_event_attr sw_attr(uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = config;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	return a;
}

static inline void call_getppid(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
}

/* A child that waits for a byte on a pipe, then runs the getppid
 * workload with ARGS ("N [--threads T]"). */
struct child {
	pid_t pid;
	int go;
};

static inline int child_start(struct child *c, const char *n,
			      const char *threads)
{
	int p[2];

	if (pipe(p))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		char b;
		const char *wl = t_build("workloads/getppid");

		close(p[1]);
		if (read(p[0], &b, 1) != 1)
			_exit(126);
		if (threads)
			execl(wl, wl, n, "--threads", threads, (char *)NULL);
		else
			execl(wl, wl, n, (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	c->go = p[1];
	return 0;
}

/* Lets the child run and reaps it; its exit status or -1. */
static inline int child_run(struct child *c)
{
	int st;

	if (write(c->go, "g", 1) != 1)
		return -1;
	close(c->go);
	if (waitpid(c->pid, &st, 0) != c->pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline void child_kill(struct child *c)
{
	close(c->go);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
}

#endif
