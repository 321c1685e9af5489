/* SPDX-License-Identifier: MIT */
/* Internal: integer lists like "0-3,6" shared by the cpu and thread maps. */
#ifndef PK_MAP_LIST_H
#define PK_MAP_LIST_H

#include <stdbool.h>

/*
 * Parses STR, a comma-separated list of non-negative integers (ranges
 * "A-B" with A <= B when RANGES), each at most MAX, into a new array
 * *OUT of *NR entries in input order (duplicates kept). A trailing
 * newline is allowed. Returns 0, -EINVAL for a malformed list or a value
 * above MAX, -ENOMEM.
 */
int pk__int_list_parse(const char *str, int max, bool ranges, int **out,
		       int *nr);

/* Sorts ARR and drops duplicates; returns the new length. */
int pk__int_sort_uniq(int *arr, int nr);

/*
 * cpumap.c: the online CPUs, sorted, into a new array *OUT (the kernel's
 * /sys/devices/system/cpu/online; CPUs 0..N-1 of sysconf's online count,
 * as perf, when that file cannot be read). Returns the count, or -ENOMEM
 * or -EINVAL (a malformed online list; warned).
 */
int pk__cpu_online(int **out);

#endif
