/* SPDX-License-Identifier: MIT */
/*
 * Times a command: runs it N times (stdout and stderr to /dev/null) and
 * prints the median and mean wall time per run in milliseconds.
 *   spawn N -- command [args]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n, status;
	double *t, sum = 0;

	if (argc < 4 || strcmp(argv[2], "--")) {
		fprintf(stderr, "usage: spawn N -- command [args]\n");
		return 2;
	}
	n = atoi(argv[1]);
	if (n < 1)
		n = 1;
	t = calloc((size_t)n, sizeof(*t));
	for (int i = 0; i < n; i++) {
		double t0 = now_ms();
		pid_t p = fork();

		if (p == 0) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			dup2(fd, 2);
			execvp(argv[3], argv + 3);
			_exit(127);
		}
		waitpid(p, &status, 0);
		t[i] = now_ms() - t0;
		sum += t[i];
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "spawn: '%s' failed\n", argv[3]);
			return 1;
		}
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%.3f %.3f\n", t[n / 2], sum / n);
	free(t);
	return 0;
}
