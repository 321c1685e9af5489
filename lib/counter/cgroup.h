/* SPDX-License-Identifier: MIT */
/* Internal: cgroup v2 directories for PERF_FLAG_PID_CGROUP. */
#ifndef PK_COUNTER_CGROUP_H
#define PK_COUNTER_CGROUP_H

#include <stddef.h>

/* Copies the cgroup2 mount point (first in /proc/mounts) into BUF.
 * 0, -ENOENT when none is mounted, -ENAMETOOLONG, or -errno. */
int pk__cgroup2_mount(char *buf, size_t size);

/* Opens the cgroup directory PATH: an absolute path under the cgroup2
 * mount, or a path relative to it. The fd (O_CLOEXEC) or -errno. */
int pk__cgroup_open(const char *path);

#endif
