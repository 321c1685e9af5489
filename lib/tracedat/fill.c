/* SPDX-License-Identifier: MIT */
/* Collects trace.dat metadata from tracefs and procfs for the writer. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracedat/tracedat.h"

static int add_file(struct pk_tdwriter *w, enum pk_tracedat_item it,
		    const char *path, bool required)
{
	char *s;
	long n = pk_read_file(path, &s);
	int r;

	if (n < 0)
		return required ? (int)n : 0;
	r = pk_tdwriter_set_item(w, it, s, (size_t)n);
	pk_free(s);
	return r;
}

static int only_dirs(const struct dirent *d)
{
	return d->d_name[0] != '.' &&
	       (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN);
}

/* Adds every DIR/<event>/format of SYSTEM. */
static int add_system(struct pk_tdwriter *w, const char *dir,
		      const char *system)
{
	struct dirent **ev;
	char path[4096];
	int n = scandir(dir, &ev, only_dirs, alphasort), r = 0;

	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		char *s;
		long len;
		snprintf(path, sizeof(path), "%s/%s/format", dir, ev[i]->d_name);
		len = pk_read_file(path, &s);
		if (len >= 0) {
			if (!r)
				r = pk_tdwriter_add_format(w, system, s,
							   (size_t)len);
			pk_free(s);
		}
		free(ev[i]);
	}
	free(ev);
	return r;
}

static bool wanted(const char *sys, const char *const *systems)
{
	if (!systems)
		return true;
	for (; *systems; systems++)
		if (!strcmp(*systems, sys))
			return true;
	return false;
}

int pk_tdwriter_fill_from_tracefs(struct pk_tdwriter *w,
				  const char *tracefs_dir,
				  const char *instance,
				  const char *const *systems)
{
	char path[4096], inst[2048];
	struct dirent **sys;
	int n, r;

	snprintf(inst, sizeof(inst), "%s%s%s", tracefs_dir,
		 instance ? "/instances/" : "", instance ? instance : "");
	snprintf(path, sizeof(path), "%s/events/header_page", tracefs_dir);
	if ((r = add_file(w, PK_TD_HEADER_PAGE, path, true)))
		return r;
	snprintf(path, sizeof(path), "%s/events/header_event", tracefs_dir);
	if ((r = add_file(w, PK_TD_HEADER_EVENT, path, true)))
		return r;
	snprintf(path, sizeof(path), "%s/events/ftrace", tracefs_dir);
	if ((r = add_system(w, path, "ftrace")))
		return r;
	snprintf(path, sizeof(path), "%s/events", tracefs_dir);
	n = scandir(path, &sys, only_dirs, alphasort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		const char *s = sys[i]->d_name;
		if (!r && strcmp(s, "ftrace") && wanted(s, systems)) {
			snprintf(path, sizeof(path), "%s/events/%s",
				 tracefs_dir, s);
			r = add_system(w, path, s);
		}
		free(sys[i]);
	}
	free(sys);
	if (r)
		return r;
	add_file(w, PK_TD_KALLSYMS, "/proc/kallsyms", false);
	snprintf(path, sizeof(path), "%s/printk_formats", tracefs_dir);
	add_file(w, PK_TD_PRINTK, path, false);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", tracefs_dir);
	add_file(w, PK_TD_CMDLINES, path, false);
	snprintf(path, sizeof(path), "%s/trace_clock", inst);
	add_file(w, PK_TD_TRACE_CLOCK, path, false);
	return 0;
}
