/* SPDX-License-Identifier: MIT */
/*
 * Internal: the library's hash table, u64 keys to u64 values (an index, a
 * number or a pointer). Open addressing with linear probing over a power
 * of two slots, at most half full; Fibonacci hashing (the top bits of
 * key * 2^64/phi) spreads sequential keys (pids, ids) over the slots.
 * Entries are never removed.
 */
#ifndef PK_BASE_HASH_H
#define PK_BASE_HASH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pk__hent {
	uint64_t key, val;
	bool used;
};

struct pk__hash {
	struct pk__hent *e;
	size_t cap, n;          /* slots (0 or a power of two), entries */
	unsigned shift;         /* 64 - log2(cap) */
};

/* KEY's value slot, added with value 0 (and *ADDED true) when absent.
 * NULL when growing the table fails (ENOMEM). */
uint64_t *pk__hash_put(struct pk__hash *h, uint64_t key, bool *added);
/* KEY's value slot, or NULL when absent. */
uint64_t *pk__hash_get(const struct pk__hash *h, uint64_t key);
/* The next used entry at or after slot *I (moved past it), or NULL. */
struct pk__hent *pk__hash_next(const struct pk__hash *h, size_t *i);
void pk__hash_fini(struct pk__hash *h);
#endif
