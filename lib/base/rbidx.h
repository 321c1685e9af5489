/* SPDX-License-Identifier: MIT */
/*
 * A red-black tree over an array's indexes with the Linux kernel's
 * rebalancing (lib/rbtree.c's cases, in the same order), so a tree built
 * by the same inserts and erases has perf's shape: where perf's answer
 * depends on its tree (ties its comparisons do not order, overlapping
 * symbols), the same walk gives the same answer.
 */
#ifndef PK_BASE_RBIDX_H
#define PK_BASE_RBIDX_H

#include <stdbool.h>
#include <stdint.h>

/* A node: its children and parent as indexes + 1 (0: none). */
struct pk_rbi {
	uint32_t l, r, p;
	bool red;
};

/* Node X, zeroed, as the LEFT (else right) child of PARENT (an index + 1;
 * 0: X becomes the root), then the kernel's rb_insert_color. */
void pk__rbi_insert(struct pk_rbi *t, uint32_t *root, uint32_t x,
		    uint32_t parent, bool left);
/* The kernel's rb_erase of node X. */
void pk__rbi_erase(struct pk_rbi *t, uint32_t *root, uint32_t x);

#endif
