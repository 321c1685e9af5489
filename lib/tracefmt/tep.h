/* SPDX-License-Identifier: MIT */
/*
 * libtraceevent's format parser can crash on a damaged format file. Before
 * a file's formats are handed to it in this process, they are parsed in a
 * child process that reports each index it starts; a format that kills
 * the child is marked bad (and left out by the caller).
 */
#ifndef PK_TRACEFMT_TEP_H
#define PK_TRACEFMT_TEP_H
#include <stdbool.h>
#include <stddef.h>

struct tep_fmt_ref {
	const char *text;     /* NULL: nothing to parse */
	size_t len;
	const char *system;
};

/* Marks BAD[i] for each of the NR formats F that crashes the parser (the
 * entries already marked are skipped). WHO names the caller in warnings.
 * 0, -errno (no pipe or fork), PK_ERR_FORMAT (too many bad formats). */
int tep_guard_formats(const char *who, const struct tep_fmt_ref *f, int nr,
		      int long_size, bool big, bool *bad);
#endif
