/* SPDX-License-Identifier: MIT */
/* Reading tracefs metadata (see meta.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <perfkit/tracefs.h>
#include "base/base.h"
#include "tracefs/meta.h"

static const char *const files[] = {
	[PK_TFMETA_HEADER_PAGE] = "events/header_page",
	[PK_TFMETA_HEADER_EVENT] = "events/header_event",
	[PK_TFMETA_PRINTK] = "printk_formats",
	[PK_TFMETA_CMDLINES] = "saved_cmdlines",
	[PK_TFMETA_TGIDS] = "saved_tgids",
	[PK_TFMETA_KALLSYMS] = "/proc/kallsyms",
	[PK_TFMETA_CLOCK] = "trace_clock",
	[PK_TFMETA_SET_EVENT] = "set_event",
};

static long read_path(char *out_path, int n, char **out)
{
	*out = NULL;
	if (n < 0 || n >= PATH_MAX)
		return -ENAMETOOLONG;
	return pk__read_file(out_path, out);
}

long pk__tfmeta_read(const char *root, const char *instance,
		     enum pk__tfmeta what, char **out)
{
	char p[PATH_MAX];
	bool inst = instance && *instance &&
		    (what == PK_TFMETA_CLOCK || what == PK_TFMETA_SET_EVENT ||
		     what == PK_TFMETA_HEADER_PAGE);

	if (what == PK_TFMETA_KALLSYMS)
		return read_path((char *)files[what], 0, out);
	return read_path(p, inst ? snprintf(p, sizeof(p), "%s/instances/%s/%s",
					    root, instance, files[what])
				 : snprintf(p, sizeof(p), "%s/%s", root,
					    files[what]), out);
}

long pk__tfmeta_format(const char *root, const char *sys, const char *event,
		       char **out)
{
	char p[PATH_MAX];

	return read_path(p, snprintf(p, sizeof(p), "%s/events/%s/%s/format",
				     root, sys, event), out);
}

static int only_dirs(const struct dirent *d)
{
	return d->d_name[0] != '.' &&
	       (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN);
}

static int list(const char *root, const char *sys, bool reverse,
		char ***out)
{
	char p[PATH_MAX];
	struct dirent **d;
	int n = snprintf(p, sizeof(p), "%s/events%s%s", root, sys ? "/" : "",
			 sys ? sys : ""), k = 0;
	char **v;

	*out = NULL;
	if (n < 0 || n >= (int)sizeof(p))
		return -ENAMETOOLONG;
	n = scandir(p, &d, only_dirs, alphasort);
	if (n < 0)
		return -errno;
	v = pk__calloc((size_t)n + 1, sizeof(*v));
	for (int i = 0; i < n && v; i++) {
		if (!(v[k++] = pk__strdup(d[reverse ? n - 1 - i : i]->d_name))) {
			pk__tfmeta_list_free(v);
			v = NULL;
		}
	}
	for (int i = 0; i < n; i++)
		free(d[i]);
	free(d);
	if (!v)
		return -ENOMEM;
	*out = v;
	return n;
}

int pk__tfmeta_list(const char *root, const char *sys, bool reverse,
		    char ***out)
{
	return list(root, sys, reverse, out);
}

/* Whether entry D of directory P is of KIND (d_type, stat where the
 * file system gives none). */
static bool of_kind(const char *p, const struct dirent *d, int kind)
{
	char f[PATH_MAX + 256];
	struct stat st;

	if (kind == PK_TRACEFS_ANY)
		return true;
	if (d->d_type != DT_UNKNOWN)
		return d->d_type == (kind == PK_TRACEFS_DIRS ? DT_DIR : DT_REG);
	snprintf(f, sizeof(f), "%s/%s", p, d->d_name);
	return stat(f, &st) == 0 &&
	       (kind == PK_TRACEFS_DIRS ? S_ISDIR(st.st_mode)
					: S_ISREG(st.st_mode));
}

int pk__tfmeta_dir(const char *path, int kind, char ***out)
{
	char **v = pk__calloc(1, sizeof(*v));
	struct dirent *d;
	int n = 0;
	DIR *dp;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	if (!(dp = opendir(path))) {
		pk__free(v);
		return -errno;
	}
	while ((d = readdir(dp))) {
		char **nv;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
		    !of_kind(path, d, kind))
			continue;
		if (!(nv = pk__realloc(v, ((size_t)n + 2) * sizeof(*v))) ||
		    !(nv[n] = pk__strdup(d->d_name))) {
			closedir(dp);
			pk__tfmeta_list_free(nv ? nv : v);
			return -ENOMEM;
		}
		v = nv;
		v[++n] = NULL;
	}
	closedir(dp);
	*out = v;
	return n;
}

int pk__tfmeta_list_unsorted(const char *root, const char *sys, char ***out)
{
	char p[PATH_MAX];
	int n = snprintf(p, sizeof(p), "%s/events%s%s", root, sys ? "/" : "",
			 sys ? sys : "");

	*out = NULL;
	if (n < 0 || n >= (int)sizeof(p))
		return -ENAMETOOLONG;
	return pk__tfmeta_dir(p, PK_TRACEFS_DIRS, out);
}

void pk__tfmeta_list_free(char **v)
{
	for (char **p = v; p && *p; p++)
		pk__free(*p);
	pk__free(v);
}
