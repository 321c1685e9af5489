/* SPDX-License-Identifier: MIT */
/* Per-process maps: insertion trims what a new mapping covers. */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "session/session.h"

static int reserve(struct proc *p, int extra)
{
	if (p->nr + extra > p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;
		struct map *m;

		while (cap < p->nr + extra)
			cap *= 2;
		m = pk__realloc(p->maps, (size_t)cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		p->maps = m;
		p->cap = cap;
	}
	return 0;
}

/* Index of the first map ending after ADDR. */
static int lower_bound(const struct proc *p, uint64_t addr)
{
	int lo = 0, hi = p->nr;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pk__proc_insert(struct proc *p, const struct map *nm)
{
	int i, j, err = reserve(p, 2);

	if (err)
		return err;
	i = lower_bound(p, nm->start);
	/* a map that straddles the new start keeps its head (and maybe its
	 * tail, when it also extends past the new end) */
	if (i < p->nr && p->maps[i].start < nm->start) {
		struct map old = p->maps[i];

		p->maps[i].end = nm->start;
		if (old.end > nm->end) {
			struct map tail = old;

			tail.pgoff += nm->end - old.start;
			tail.start = nm->end;
			memmove(&p->maps[i + 2], &p->maps[i + 1],
				(size_t)(p->nr - i - 1) * sizeof(*p->maps));
			p->maps[i + 1] = tail;
			p->nr++;
		}
		i++;
	}
	/* maps entirely covered go; one straddling the end keeps its tail */
	for (j = i; j < p->nr && p->maps[j].end <= nm->end; j++)
		;
	if (j < p->nr && p->maps[j].start < nm->end) {
		p->maps[j].pgoff += nm->end - p->maps[j].start;
		p->maps[j].start = nm->end;
	}
	memmove(&p->maps[i + 1], &p->maps[j], (size_t)(p->nr - j) * sizeof(*p->maps));
	p->nr -= j - i - 1;
	p->maps[i] = *nm;
	return 0;
}

const struct map *pk__proc_find(const struct proc *p, uint64_t addr)
{
	int i = lower_bound(p, addr);

	return i < p->nr && p->maps[i].start <= addr ? &p->maps[i] : NULL;
}

int pk__proc_copy(struct proc *dst, const struct proc *src)
{
	int err = reserve(dst, src->nr);

	if (err)
		return err;
	if (src->nr) /* an empty source: no array to copy (NULL) */
		memcpy(dst->maps, src->maps,
		       (size_t)src->nr * sizeof(*src->maps));
	dst->nr = src->nr;
	return 0;
}
