/* SPDX-License-Identifier: MIT */
/*
 * Internal: the one reader of tracefs's metadata (event formats, page and
 * event headers, printk formats, saved cmdlines and tgids, the trace
 * clock, the enabled events) and /proc/kallsyms, shared by the trace.dat
 * filler, the live kernel-text printer and perf's tracing data. ROOT is
 * a tracefs directory. Readers return the file's length with its text
 * (pk__malloc'ed, NUL-terminated) in *OUT, or -errno (*OUT NULL).
 */
#ifndef PK_TRACEFS_META_H
#define PK_TRACEFS_META_H
#include <stdbool.h>

enum pk__tfmeta {
	PK_TFMETA_HEADER_PAGE,  /* events/header_page */
	PK_TFMETA_HEADER_EVENT, /* events/header_event */
	PK_TFMETA_PRINTK,       /* printk_formats */
	PK_TFMETA_CMDLINES,     /* saved_cmdlines */
	PK_TFMETA_TGIDS,        /* saved_tgids */
	PK_TFMETA_KALLSYMS,     /* /proc/kallsyms (ROOT unused) */
	PK_TFMETA_CLOCK,        /* trace_clock of the instance */
	PK_TFMETA_SET_EVENT,    /* set_event of the instance */
};

/* File WHAT; INSTANCE (NULL or "": the top level) only for the clock,
 * the enabled events and the header page. */
long pk__tfmeta_read(const char *root, const char *instance,
		     enum pk__tfmeta what, char **out);
/* events/SYS/EVENT/format. */
long pk__tfmeta_format(const char *root, const char *sys, const char *event,
		       char **out);
/*
 * The event systems under events/ (SYS NULL) or the events of SYS:
 * directory names, not hidden, in alphabetical order (REVERSE: the
 * other way round, as trace-cmd 3.1 saves them), into a new
 * NULL-terminated array *OUT (pk__tfmeta_list_free). Count or -errno.
 */
int pk__tfmeta_list(const char *root, const char *sys, bool reverse,
		    char ***out);
/* The same in directory order (libtracefs's, trace-cmd's; hidden names
 * too): pk__tfmeta_dir() of the events directory. */
int pk__tfmeta_list_unsorted(const char *root, const char *sys, char ***out);
/* The names of KIND (enum pk_tracefs_kind) in directory PATH, in
 * directory order ("." and ".." left out; d_type, or stat where the file
 * system gives none), into a new NULL-terminated *OUT
 * (pk__tfmeta_list_free). Count or -errno (-ENOENT: no PATH). */
int pk__tfmeta_dir(const char *path, int kind, char ***out);
void pk__tfmeta_list_free(char **v);
#endif
