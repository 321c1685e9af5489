/* SPDX-License-Identifier: MIT */
/* A perf.data directory (perf record -o DIR --kcore): perf reads the
 * kernel's code from DIR/kcore_dir/kcore with DIR/kcore_dir/kallsyms'
 * symbols. A kcore or modules file that cannot be read is said in one
 * line (perf goes on silently without it, as perfkit does then). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"

void cli_kcore_dir_check(const char *cmd, const struct pk_perfdata *pd)
{
	const char *dir = pk_perfdata_dir(pd);
	char ks[4096], bad[4352];
	struct stat st;
	int err;

	if (!dir)
		return;
	snprintf(ks, sizeof(ks), "%s/kcore_dir/kallsyms", dir);
	if (stat(ks, &st))
		return;		/* no kcore_dir: a plain perf.data */
	err = pk_kcore_check(ks, bad, sizeof(bad));
	if (err)
		cli_error(cmd, "%s: %s: the kernel's code is not read from the kcore",
			  bad, err == PK_ERR_FORMAT ?
			  "not an ELF file with code segments" : pk_strerror(err));
}

int cli_kcore_dir_out(const char *cmd, const char *out, char *data,
		      size_t len)
{
	if (mkdir(out, 0700) && errno != EEXIST) {
		cli_error(cmd, "%s: %s", out, strerror(errno));
		return -1;
	}
	snprintf(data, len, "%s/data", out);
	return 0;
}

/* FROM's bytes into a new file TO: 0 or -errno. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while (!err && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 ? errno != EINTR : write(out, buf, (size_t)n) != n)
			err = -(errno ? errno : EIO);
	}
	close(in);
	if (close(out) && !err)
		err = -errno;
	return err;
}

int cli_kcore_dir_copy(const char *cmd, const char *dir, const char *out)
{
	char from[4096], to[4096], f[4352], t[4352];
	struct dirent *e;
	DIR *d;
	int err = 0;

	snprintf(from, sizeof(from), "%s/kcore_dir", dir);
	snprintf(to, sizeof(to), "%s/kcore_dir", out);
	d = opendir(from);
	if (!d)
		return 0;	/* (perf copies what there is) */
	if (mkdir(to, 0755) && errno != EEXIST)
		err = -errno;
	while (!err && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s", from, e->d_name);
		snprintf(t, sizeof(t), "%s/%s", to, e->d_name);
		err = copy_file(f, t);
	}
	closedir(d);
	if (err)
		cli_error(cmd, "%s: %s", to, strerror(-err));
	return err ? -1 : 0;
}
