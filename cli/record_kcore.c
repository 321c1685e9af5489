/* SPDX-License-Identifier: MIT */
/* perf record --kcore: the output is a directory, DIR/data the perf.data
 * and DIR/kcore_dir the kernel's code (kcore, kallsyms, modules copied
 * from /proc by the library's pk_kcore_copy), as perf 6.1 writes it:
 * an older DIR (or file) moved to DIR.old first, perf's messages. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "cli.h"
#include "record.h"

/* perf's removal of an old perf.data directory: its kcore_dir's three
 * files, its data and data.* files; anything else stops it (-2). */
static int remove_old_dir(const char *dir)
{
	static const char *const kfiles[] = { "kcore", "kallsyms", "modules" };
	char p[4352 + 300];
	struct dirent *e;
	DIR *d;
	int err = 0;

	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/kcore_dir/%s", dir, kfiles[i]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/kcore_dir", dir);
	rmdir(p);
	if (!(d = opendir(dir)))
		return -1;
	while (!err && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (strcmp(e->d_name, "data") && strncmp(e->d_name, "data.", 5)) {
			err = -2;
			break;
		}
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (unlink(p))
			err = -1;
	}
	closedir(d);
	return err ? err : rmdir(dir) ? -1 : 0;
}

/* perf's backup: a PATH with bytes (a directory has) becomes PATH.old */
static int backup(const char *path)
{
	char old[4352];
	struct stat st;
	int err;

	if (stat(path, &st) || !st.st_size)
		return 0;
	snprintf(old, sizeof(old), "%s.old", path);
	if (!stat(old, &st) && S_ISDIR(st.st_mode) &&
	    (err = remove_old_dir(old))) {
		fprintf(stderr, "Can't remove old data: %s (%s)\n",
			err == -2 ? "Unknown file found" : strerror(errno), old);
		return -1;
	}
	if (rename(path, old)) {
		fprintf(stderr, "Can't move data: %s (%s to %s)\n",
			strerror(errno), path, old);
		return -1;
	}
	return 0;
}

int rec_kcore_output(struct rec *r, char *data, size_t len)
{
	const char *dir = r->cfg->output;

	/* perf's words when its session cannot be made */
	if (backup(dir)) {
		fprintf(stderr, "Perf session creation failed.\n");
		return -1;
	}
	if (mkdir(dir, S_IRWXU)) {
		cli_error("record", "cannot make the directory '%s': %s", dir,
			  strerror(errno));
		return -1;
	}
	snprintf(data, len, "%s/data", dir);
	return 0;
}

int rec_kcore_readable(struct rec *r)
{
	int fd;

	if (!r->cfg->kcore)
		return 0;
	fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "ERROR: kcore is not readable.\n");
		return -1;
	}
	close(fd);
	return 0;
}

int rec_kcore_copy(struct rec *r)
{
	char to[4352];
	int err;

	if (!r->cfg->kcore)
		return 0;
	snprintf(to, sizeof(to), "%s/kcore_dir", r->cfg->output);
	err = mkdir(to, S_IRWXU) ? -errno : pk_kcore_copy("/proc", to);
	if (err) {
		fprintf(stderr, "ERROR: Failed to copy kcore\n");
		if (r->cfg->verbose)
			cli_error("record", "%s: %s", to,
				  err == PK_ERR_FORMAT ? "/proc/kcore has no "
				  "kernel code where kallsyms puts it" :
				  err == -EAGAIN ? "kallsyms changed while "
				  "copying (a module loaded?)" : pk_strerror(err));
		return -1;
	}
	return 0;
}
