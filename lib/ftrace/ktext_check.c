/* SPDX-License-Identifier: MIT */
/*
 * Kernel-text printer: libtraceevent's format parser can crash on a damaged
 * format, so the formats of a file are parsed first in a child process that
 * reports each index it starts; a format that kills the child is marked bad
 * and left out.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ftrace/ktext.h"

static void child(const struct kt_src *src, char *const *text,
		  const bool *bad, int fd)
{
	struct tep_handle *tep = tep_alloc();
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0)
		dup2(null, 2);
	if (!tep)
		_exit(1);
	tep_set_long_size(tep, src->long_size);
	tep_set_file_bigendian(tep, src->big ? TEP_BIG_ENDIAN
					     : TEP_LITTLE_ENDIAN);
	for (int i = 0; i < src->nr_fmts; i++) {
		if (bad[i] || !text[i])
			continue;
		if (write(fd, &i, sizeof(i)) != sizeof(i))
			_exit(1);
		tep_parse_event(tep, text[i], strlen(text[i]), src->fmt_sys[i]);
	}
	_exit(0);
}

int kt_check_formats(const struct kt_src *src, char *const *text, bool *bad)
{
	for (int attempt = 0; attempt < 32; attempt++) {
		int p[2], st = 0, last = -1, v;
		pid_t pid;

		if (pipe2(p, O_CLOEXEC) < 0)
			return -errno;
		pid = fork();
		if (pid < 0) {
			close(p[0]);
			close(p[1]);
			return -errno;
		}
		if (pid == 0) {
			close(p[0]);
			child(src, text, bad, p[1]);
		}
		close(p[1]);
		while (read(p[0], &v, sizeof(v)) == sizeof(v))
			last = v;
		close(p[0]);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
		if (last < 0 || last >= src->nr_fmts)
			return PK_ERR_INTERNAL;
		bad[last] = true;
		pk_warn("kernel text: event format %d (system '%s') is damaged; "
			"its events are not decoded", last, src->fmt_sys[last]);
	}
	pk_warn("kernel text: too many damaged event formats");
	return PK_ERR_FORMAT;
}
