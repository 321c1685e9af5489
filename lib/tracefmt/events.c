/* SPDX-License-Identifier: MIT */
/* Event formats by ID, compiled on first use (see events.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "tracefmt/events.h"

struct tf_idx { uint64_t id; int fi; };

static int idx_cmp(const void *a, const void *b)
{
	const struct tf_idx *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->fi - y->fi;
}

int pk__tf_events_init(struct tf_events *t, const struct tf_tep_fmt *fmts,
		   int nr_fmts, int long_size, unsigned flags)
{
	*t = (struct tf_events){ fmts, nr_fmts, long_size, flags, NULL, 0,
				 NULL, NULL };
	t->ids = pk__calloc((size_t)nr_fmts + 1, sizeof(*t->ids));
	t->evs = pk__calloc((size_t)nr_fmts + 1, sizeof(*t->evs));
	t->state = pk__calloc((size_t)nr_fmts + 1, 1);
	if (!t->ids || !t->evs || !t->state)
		return -ENOMEM;
	for (int i = 0; i < nr_fmts; i++) {
		long id = fmts[i].text ? pk__tf_format_id(fmts[i].text,
						      fmts[i].len) : -1;
		if (id >= 0)
			t->ids[t->nr_ids++] = (struct tf_idx){ (uint64_t)id, i };
	}
	qsort(t->ids, (size_t)t->nr_ids, sizeof(*t->ids), idx_cmp);
	return 0;
}

int pk__tf_events_find(const struct tf_events *t, uint64_t id)
{
	size_t lo = 0, hi = (size_t)t->nr_ids;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (size_t)t->nr_ids && t->ids[lo].id == id ? t->ids[lo].fi
							     : -1;
}

const struct tf_event *pk__tf_events_get(struct tf_events *t, int fi,
				     uint64_t id)
{
	if (fi < 0 || fi >= t->nr_fmts)
		return NULL;
	if (!t->state[fi]) {
		const struct tf_tep_fmt *f = &t->fmts[fi];
		struct tf_event *e = pk__zalloc(sizeof(*e));

		t->state[fi] = 2;
		if (!e)
			return NULL;
		if (pk__tf_compile(e, f->text, f->len, f->system, t->long_size,
			       t->flags) < 0 || !e->ok ||
		    (uint64_t)e->id != id) {
			pk__tf_event_fini(e);
			pk__free(e);
			return NULL;
		}
		t->evs[fi] = e;
		t->state[fi] = 1;
	}
	return t->state[fi] == 1 ? t->evs[fi] : NULL;
}

void pk__tf_events_fini(struct tf_events *t)
{
	for (int i = 0; t->evs && i < t->nr_fmts; i++)
		if (t->evs[i]) {
			pk__tf_event_fini(t->evs[i]);
			pk__free(t->evs[i]);
		}
	pk__free(t->evs);
	pk__free(t->state);
	pk__free(t->ids);
	memset(t, 0, sizeof(*t));
}
