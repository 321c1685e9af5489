/* SPDX-License-Identifier: MIT */
/* Internal: perf's fixed event names (hardware, software, hw-cache). */
#ifndef PK_EVENT_TABLES_H
#define PK_EVENT_TABLES_H

#include <stdint.h>
#include <linux/perf_event.h>

struct pk_sym_event {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *alias;  /* the other spelling, or NULL */
	int tool;           /* enum pk_evsel_tool: perf's tool events */
};

extern const struct pk_sym_event pk__sym_events[];
extern const int pk__nr_sym_events;

#define PK_CACHE_ALIASES 5
/* [cache type][alias]: "L1-dcache", "l1-d", ... (NULL-padded) */
extern const char *const pk__cache_types[PERF_COUNT_HW_CACHE_MAX]
					 [PK_CACHE_ALIASES];
extern const char *const pk__cache_ops[PERF_COUNT_HW_CACHE_OP_MAX]
				      [PK_CACHE_ALIASES];
extern const char *const pk__cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX]
					  [PK_CACHE_ALIASES];
/* Is OP valid for cache TYPE (perf's table)? */
int pk__cache_op_valid(int type, int op);
/* Index of the longest alias that prefixes STR (case-insensitive), perf's
 * rule, or -1. */
int pk__cache_lookup(const char *str, const char *const (*tab)[PK_CACHE_ALIASES],
		     int n);

#endif
