/* SPDX-License-Identifier: MIT */
/* A child command started on demand: forked, held until go, then exec'd
 * (cli/workload.c). */
#ifndef PK_CLI_WORKLOAD_H
#define PK_CLI_WORKLOAD_H
#include <sys/resource.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;   /* write end: closing it lets the child exec */
	int err_fd;  /* read end: the child's exec errno, or EOF on success */
	int out_to_err; /* set before prepare: the child's stdout is stderr */
};

/* Forks ARGV[0] (PATH search); the child waits for workload_go(). 0 or
 * -errno. */
int workload_prepare(struct workload *w, char **argv);
/* Lets the child exec. Returns 0, or -errno when exec failed (the child
 * has then exited and been reaped). */
int workload_go(struct workload *w);
/* Waits for the child; retries on EINTR unless *STOP becomes non-zero
 * (then returns -EINTR). On exit fills *STATUS (wait status) and *RU. */
int workload_wait(struct workload *w, int *status, struct rusage *ru,
		  volatile int *stop);
/* The exit status perfkit should return for a wait status. */
int workload_exit_code(int status);
/*
 * Catches what ends a measurement: STOP gets SIGINT, SIGTERM and SIGHUP,
 * CHILD (which only needs to interrupt sleeps) SIGCHLD; no SA_RESTART, so
 * waits return EINTR. A child exec'd later gets the default actions back.
 */
void workload_catch_signals(void (*stop)(int), void (*child)(int));
/* Kills and reaps a prepared child that will not be run. */
void workload_abort(struct workload *w);
#endif
