/* SPDX-License-Identifier: MIT */
/*
 * Internal: the stack traces of report --profile (report_profile_stack.c):
 * the kernel_stack records met after an event, per distinct stack, and
 * their tree as trace-cmd 3.1 prints it under the event.
 */
#ifndef PK_FTRACE_PROFILE_H
#define PK_FTRACE_PROFILE_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "base/hash.h"

struct pstack {
	const uint8_t *caller;  /* the record's words (borrowed) */
	uint32_t size;
	uint64_t count, time, tmin, tsmin, tmax, tsmax;
};

struct pstacks {
	struct pstack *v;
	size_t n, cap;
	struct pk__hash idx;    /* content hash -> index + 1 */
};

/* Counts the stack CALLER (SIZE bytes) with TIME at TS. 0 or -ENOMEM. */
int pk__prof_stack_add(struct pstacks *s, const uint8_t *caller,
		       uint32_t size, uint64_t time, uint64_t ts);
/* Prints S's tree; FN names an address (NULL: none). S is sorted. */
void pk__prof_stacks_print(struct pstacks *s, int long_size,
			   const char *(*fn)(void *arg, uint64_t addr),
			   void *arg, FILE *out);
void pk__prof_stacks_fini(struct pstacks *s);
#endif
