/* SPDX-License-Identifier: MIT */
/*
 * cgroup v2: where it is mounted, and a cgroup directory opened for
 * perf_event_open(PERF_FLAG_PID_CGROUP).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "counter/cgroup.h"

int pk__cgroup2_mount(char *buf, size_t size)
{
	char *mounts, *line, *save = NULL;
	long n = pk__read_file("/proc/mounts", &mounts);
	int err = -ENOENT;

	if (n < 0)
		return (int)n;
	for (line = strtok_r(mounts, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char dev[256], dir[4096], type[64];

		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) != 3 ||
		    strcmp(type, "cgroup2"))
			continue;
		err = (size_t)snprintf(buf, size, "%s", dir) < size
			? 0 : -ENAMETOOLONG;
		break;
	}
	pk__free(mounts);
	return err;
}

int pk__cgroup_open(const char *path)
{
	char mnt[4096], full[8192];
	int fd, err = pk__cgroup2_mount(mnt, sizeof(mnt));
	size_t ml = strlen(mnt);

	if (err) {
		pk_warn("cgroup '%s': no cgroup2 file system mounted\n", path);
		return err;
	}
	if (path[0] == '/' && !strncmp(path, mnt, ml) &&
	    (path[ml] == '/' || !path[ml]))
		snprintf(full, sizeof(full), "%s", path);
	else
		snprintf(full, sizeof(full), "%s/%s", mnt,
			 path + (path[0] == '/'));
	fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pk_warn("cgroup '%s': cannot open %s: %s\n", path, full,
			pk_strerror(err));
		return err;
	}
	return fd;
}
