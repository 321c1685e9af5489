/* SPDX-License-Identifier: MIT */
/* Parses event formats in a child first (see tepguard.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <event-parse.h>
#include "base/base.h"
#include "tracefmt/tep.h"

static void child(const struct tep_fmt_ref *f, int nr, int long_size,
		  bool big, const bool *bad, int fd)
{
	struct tep_handle *tep = tep_alloc();
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0)
		dup2(null, 2);
	if (!tep)
		_exit(1);
	tep_set_long_size(tep, long_size);
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (int i = 0; i < nr; i++) {
		if (bad[i] || !f[i].text)
			continue;
		if (write(fd, &i, sizeof(i)) != sizeof(i))
			_exit(1);
		tep_parse_event(tep, f[i].text, f[i].len, f[i].system);
	}
	_exit(0);
}

/* One child run: 0 when it got through, else the index it died on (or
 * a negative error). */
static int run_child(const struct tep_fmt_ref *f, int nr, int long_size,
		     bool big, const bool *bad, int *last)
{
	int p[2], st = 0, v;
	pid_t pid;

	*last = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = -errno;
		close(p[0]);
		close(p[1]);
		return e;
	}
	if (pid == 0) {
		close(p[0]);
		child(f, nr, long_size, big, bad, p[1]);
	}
	close(p[1]);
	while (read(p[0], &v, sizeof(v)) == sizeof(v))
		*last = v;
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

int tep_guard_formats(const char *who, const struct tep_fmt_ref *f, int nr,
		      int long_size, bool big, bool *bad)
{
	for (int attempt = 0; attempt < 32; attempt++) {
		int last, r = run_child(f, nr, long_size, big, bad, &last);

		if (r <= 0)
			return r;
		if (last < 0 || last >= nr)
			return PK_ERR_INTERNAL;
		bad[last] = true;
		pk_warn("%s: event format %d (system '%s') is damaged; its "
			"events are not decoded", who, last, f[last].system);
	}
	pk_warn("%s: too many damaged event formats", who);
	return PK_ERR_FORMAT;
}
