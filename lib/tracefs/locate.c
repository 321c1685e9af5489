/* SPDX-License-Identifier: MIT */
/*
 * Where tracefs is: the one locator of the library. The usual mount
 * points first, then any tracefs mount listed in /proc/mounts, and when
 * there is none it mounts tracefs at /sys/kernel/tracing (the caller
 * learns so, to undo it or not). A directory counts when it has an
 * events/ directory, so a tree a test bind-mounts there counts too.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/base.h"
#include "tracefs/locate.h"

static const char *const cands[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

static bool has_events(const char *root)
{
	char p[PATH_MAX + 16];
	struct stat st;

	snprintf(p, sizeof(p), "%s/events", root);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int put(char *buf, size_t len, const char *dir)
{
	if (strlen(dir) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, dir, strlen(dir) + 1);
	return 0;
}

static int from_mounts(char *buf, size_t len)
{
	char line[1024], dev[256], mnt[PATH_MAX], type[64];
	FILE *f = fopen("/proc/mounts", "re");
	int e = -ENOENT;

	while (f && e == -ENOENT && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %4095s %63s", dev, mnt, type) == 3 &&
		    !strcmp(type, "tracefs") && has_events(mnt))
			e = put(buf, len, mnt);
	if (f)
		fclose(f);
	return e;
}

int pk__tracefs_locate(char *buf, size_t len, bool *mounted)
{
	bool denied = false;

	*mounted = false;
	for (size_t i = 0; i < PK_ARRAY_SIZE(cands); i++) {
		if (access(cands[i], X_OK) && errno == EACCES)
			denied = true;
		if (has_events(cands[i]))
			return put(buf, len, cands[i]);
	}
	if (from_mounts(buf, len) == 0)
		return 0;
	if (mount("nodev", cands[0], "tracefs", 0, NULL) == 0 &&
	    has_events(cands[0])) {
		*mounted = true;
		return put(buf, len, cands[0]);
	}
	return denied ? -EACCES : -ENOENT;
}
