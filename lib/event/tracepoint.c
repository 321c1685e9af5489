/* SPDX-License-Identifier: MIT */
/* Tracepoint ids from tracefs: exact look-ups and glob expansion. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/base.h"
#include "event/pmu.h"

static long long read_id(const char *root, const char *sys, const char *ev)
{
	char p[4096];
	uint64_t id;
	int n, err;

	n = snprintf(p, sizeof(p), "%s/events/%s/%s/id", root, sys, ev);
	if (n < 0 || (size_t)n >= sizeof(p))
		return -ENAMETOOLONG;
	err = pk__read_file_u64(p, &id);
	return err ? err : (long long)id;
}

long long pk__tracepoint_id(const char *sys, const char *ev)
{
	const char *root = pk__tracefs();

	if (!root)
		return -errno;
	if (strchr(sys, '/') || strchr(ev, '/') || !strcmp(sys, "..") ||
	    !strcmp(ev, ".."))
		return -ENOENT;
	return read_id(root, sys, ev);
}

static int glob_events(const char *root, const char *sys, const char *ev_glob,
		       int (*fn)(const char *, const char *, long long, void *),
		       void *arg, int *found)
{
	char p[4096];
	struct dirent *d;
	DIR *dir;
	int ret = 0;

	snprintf(p, sizeof(p), "%s/events/%s", root, sys);
	dir = opendir(p);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) != NULL) {
		long long id;

		if (d->d_name[0] == '.' || !strcmp(d->d_name, "enable") ||
		    !strcmp(d->d_name, "filter") ||
		    fnmatch(ev_glob, d->d_name, 0))
			continue;
		id = read_id(root, sys, d->d_name);
		if (id < 0)
			continue;
		(*found)++;
		ret = fn(sys, d->d_name, id, arg);
		if (ret)
			break;
	}
	closedir(dir);
	return ret;
}

int pk__tracepoint_glob(const char *sys_glob, const char *ev_glob,
			int (*fn)(const char *, const char *, long long,
				  void *),
			void *arg)
{
	const char *root = pk__tracefs();
	char p[4096];
	struct dirent *d;
	DIR *dir;
	int found = 0, ret = 0;

	if (!root)
		return -errno;
	snprintf(p, sizeof(p), "%s/events", root);
	dir = opendir(p);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)) != NULL) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, "enable") ||
		    !strcmp(d->d_name, "header_page") ||
		    !strcmp(d->d_name, "header_event") ||
		    fnmatch(sys_glob, d->d_name, 0))
			continue;
		ret = glob_events(root, d->d_name, ev_glob, fn, arg, &found);
		if (ret)
			break;
	}
	closedir(dir);
	return ret ? ret : found;
}
