/* SPDX-License-Identifier: MIT */
/* A command run under perfkit: forked, held until go, exec'd, waited for
 * (stat, record and the ftrace commands). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "workload.h"

int workload_prepare(struct workload *w, char **argv)
{
	int go[2], err[2];

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	w->pid = fork();
	if (w->pid < 0) {
		int e = -errno;

		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return e;
	}
	if (w->pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		/* Wait for go; EOF (parent died or closed) also releases. */
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		if (w->out_to_err && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	w->go_fd = go[1];
	w->err_fd = err[0];
	return 0;
}

int workload_go(struct workload *w)
{
	int e = 0;
	ssize_t n;

	close(w->go_fd);
	w->go_fd = -1;
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(w->pid, NULL, 0);
		return -e;
	}
	return 0;
}

int workload_wait(struct workload *w, int *status, struct rusage *ru,
		  volatile int *stop)
{
	for (;;) {
		pid_t p = wait4(w->pid, status, 0, ru);

		if (p == w->pid)
			return 0;
		if (p < 0 && errno != EINTR)
			return -errno;
		if (stop && *stop)
			return -EINTR;
	}
}

int workload_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

void workload_abort(struct workload *w)
{
	if (w->pid <= 0)
		return;
	kill(w->pid, SIGKILL);
	if (w->go_fd >= 0)
		close(w->go_fd);
	if (w->err_fd >= 0)
		close(w->err_fd);
	waitpid(w->pid, NULL, 0);
	w->pid = -1;
}

void workload_catch_signals(void (*stop)(int), void (*child)(int))
{
	struct sigaction sa = { .sa_handler = child };

	cli_catch_stop(stop, 0);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
}
