/* SPDX-License-Identifier: MIT */
/* The library's hash table (see hash.h). */
#include <string.h>
#include "base/base.h"
#include "base/hash.h"

static size_t slot(const struct pk__hash *h, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> h->shift);

	while (h->e[i].used && h->e[i].key != key)
		i = (i + 1) & (h->cap - 1);
	return i;
}

static int grow(struct pk__hash *h)
{
	struct pk__hash n = { .cap = h->cap ? 2 * h->cap : 64, .n = h->n };

	n.e = pk__calloc(n.cap, sizeof(*n.e));
	if (!n.e)
		return -1;
	n.shift = 64 - (unsigned)__builtin_ctzll(n.cap);
	for (size_t i = 0; i < h->cap; i++)
		if (h->e[i].used)
			n.e[slot(&n, h->e[i].key)] = h->e[i];
	pk__free(h->e);
	*h = n;
	return 0;
}

uint64_t *pk__hash_put(struct pk__hash *h, uint64_t key, bool *added)
{
	size_t i;

	if ((h->n + 1) * 2 > h->cap && grow(h))
		return NULL;
	i = slot(h, key);
	*added = !h->e[i].used;
	if (*added) {
		h->e[i] = (struct pk__hent){ .key = key, .used = true };
		h->n++;
	}
	return &h->e[i].val;
}

uint64_t *pk__hash_get(const struct pk__hash *h, uint64_t key)
{
	size_t i;

	if (!h->cap)
		return NULL;
	i = slot(h, key);
	return h->e[i].used ? &h->e[i].val : NULL;
}

struct pk__hent *pk__hash_next(const struct pk__hash *h, size_t *i)
{
	for (; *i < h->cap; (*i)++)
		if (h->e[*i].used)
			return &h->e[(*i)++];
	return NULL;
}

void pk__hash_fini(struct pk__hash *h)
{
	pk__free(h->e);
	memset(h, 0, sizeof(*h));
}
