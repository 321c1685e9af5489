/* SPDX-License-Identifier: MIT */
/*
 * Test workload: calls getppid() exactly N times per thread, so that
 * syscalls:sys_enter_getppid counts are known.
 *   getppid N [--wait] [--threads T] [--exit CODE] [--sleep MS]
 * --wait: block until SIGUSR1 before the calls (for -p attach tests; prints
 * "ready" on stdout when waiting). --threads T: T threads each make N calls
 * (the main thread makes none). --exit: exit status to return. --sleep:
 * milliseconds to sleep after the calls.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long n_calls;

static void *worker(void *arg)
{
	(void)arg;
	for (long i = 0; i < n_calls; i++)
		syscall(SYS_getppid);
	return NULL;
}

int main(int argc, char **argv)
{
	int wait = 0, threads = 0, code = 0, sleep_ms = 0;
	sigset_t set;

	if (argc < 2) {
		fprintf(stderr, "usage: getppid N [--wait] [--threads T] [--exit CODE]\n");
		return 2;
	}
	n_calls = atol(argv[1]);
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--wait"))
			wait = 1;
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--exit") && i + 1 < argc)
			code = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--sleep") && i + 1 < argc)
			sleep_ms = atoi(argv[++i]);
	}
	if (wait) {
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("ready\n");
		fflush(stdout);
		sigwait(&set, &sig);
	}
	if (threads <= 0) {
		worker(NULL);
	} else {
		pthread_t *t = calloc((size_t)threads, sizeof(*t));

		for (int i = 0; i < threads; i++)
			pthread_create(&t[i], NULL, worker, NULL);
		for (int i = 0; i < threads; i++)
			pthread_join(t[i], NULL);
		free(t);
	}
	if (sleep_ms > 0)
		usleep((useconds_t)sleep_ms * 1000);
	return code;
}
