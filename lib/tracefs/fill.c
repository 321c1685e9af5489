/* SPDX-License-Identifier: MIT */
/* Collects trace.dat metadata from tracefs and procfs for the writer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/tracefs.h>
#include "base/base.h"
#include "tracedat/tracedat.h"
#include "tracefs/meta.h"

static int add_file(struct pk_tdwriter *w, enum pk_tracedat_item it,
		    const char *root, const char *instance,
		    enum pk__tfmeta what, bool required)
{
	char *s;
	long n = pk__tfmeta_read(root, instance, what, &s);

	if (n < 0)
		return required ? (int)n : 0;
	return pk__tdwriter_take_item(w, it, s, (size_t)n);
}

/* Kallsyms from PATH (NULL: /proc/kallsyms); none when unreadable. */
static int add_kallsyms(struct pk_tdwriter *w, const char *path)
{
	char *s;
	long n;

	if (!path)
		return add_file(w, PK_TD_KALLSYMS, NULL, NULL,
				PK_TFMETA_KALLSYMS, false);
	n = pk__read_file(path, &s);
	return n < 0 ? 0 : pk__tdwriter_take_item(w, PK_TD_KALLSYMS, s,
						  (size_t)n);
}

/* Adds every format of SYSTEM. */
static int add_system(struct pk_tdwriter *w, const char *root,
		      const char *system, bool reverse)
{
	char **ev;
	int n = pk__tfmeta_list(root, system, reverse, &ev), r = 0;

	for (int i = 0; i < n && !r; i++) {
		char *s;
		long len = pk__tfmeta_format(root, system, ev[i], &s);

		if (len >= 0) {
			r = pk_tdwriter_add_format(w, system, s, (size_t)len);
			pk__free(s);
		}
	}
	pk__tfmeta_list_free(ev);
	return n < 0 ? n : r;
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

int pk_tdwriter_fill(struct pk_tdwriter *w, const char *tracefs_dir,
		     const struct pk_tdfill_opts *o)
{
	struct pk_tdfill_opts lo = { 0 };  /* O's fields, zero past its sz */
	const char *root = tracefs_dir;
	char **sys;
	int n, r;

	if (!PK_OPTS_VALID(o, pk_tdfill_opts))
		return -EINVAL;
	if (o)
		memcpy(&lo, o, PK_MIN(o->sz, sizeof(lo)));
	/* the instance's header page: its data size is the instance's
	 * sub-buffer size (the top level's where it has none) */
	if (add_file(w, PK_TD_HEADER_PAGE, root, lo.instance,
		     PK_TFMETA_HEADER_PAGE, true) &&
	    (r = add_file(w, PK_TD_HEADER_PAGE, root, NULL,
			  PK_TFMETA_HEADER_PAGE, true)))
		return r;
	if ((r = add_file(w, PK_TD_HEADER_EVENT, root, NULL,
			  PK_TFMETA_HEADER_EVENT, true)) ||
	    (r = add_system(w, root, "ftrace", lo.reverse_order)))
		return r;
	n = pk__tfmeta_list(root, NULL, lo.reverse_order, &sys);
	if (n < 0)
		return n;
	for (int i = 0; i < n && !r; i++)
		if (strcmp(sys[i], "ftrace") && wanted(sys[i], lo.systems))
			r = add_system(w, root, sys[i], lo.reverse_order);
	pk__tfmeta_list_free(sys);
	if (r)
		return r;
	add_kallsyms(w, lo.kallsyms);
	add_file(w, PK_TD_PRINTK, root, NULL, PK_TFMETA_PRINTK, false);
	add_file(w, PK_TD_CMDLINES, root, NULL, PK_TFMETA_CMDLINES, false);
	add_file(w, PK_TD_TRACE_CLOCK, root, lo.instance, PK_TFMETA_CLOCK,
		 false);
	return 0;
}

int pk_tdwriter_fill_from_tracefs(struct pk_tdwriter *w,
				  const char *tracefs_dir,
				  const char *instance,
				  const char *const *systems)
{
	PK_OPTS(pk_tdfill_opts, o, .instance = instance, .systems = systems);

	return pk_tdwriter_fill(w, tracefs_dir, &o);
}
