/* SPDX-License-Identifier: MIT */
/* Samples counted per symbol and per address in it (perf annotate's
 * histograms), and the symbols sorted as perf lists them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/annotate_int.h"

int pk__annotate_grow(void **arr, unsigned *cap, unsigned nr, unsigned first,
		      size_t size)
{
	unsigned n = *cap ? 2 * *cap : first;
	void *p;

	if (nr < *cap)
		return 0;
	p = pk__realloc(*arr, n * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = n;
	return 0;
}

struct pk_annotate *pk_annotate_new(struct pk_session *s)
{
	struct pk_annotate *a;

	if (!s)
		return pk__ptr_or_errno(-EINVAL, NULL);
	a = pk__zalloc(sizeof(*a));
	if (a)
		a->sess = s;
	return a;
}

void pk_annotate_free(struct pk_annotate *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < a->nr; i++) {
		pk__free(a->syms[i]->hits);
		pk__free(a->syms[i]);
	}
	pk__free(a->syms);
	pk__free(a->totals);
	pk__hash_fini(&a->by_sym);
	pk__free(a);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* The entry of the symbol LOC names, added on first sight. */
static struct asym *entry(struct pk_annotate *a, const struct pk_location *loc,
			  const struct pk_sym *sym, const struct map *m, int attr)
{
	bool added = false;
	/* user pointers fit in 48 bits */
	uint64_t key = (uintptr_t)loc->sym ^ ((uint64_t)(unsigned)attr << 48);
	uint64_t *slot = pk__hash_put(&a->by_sym, key, &added);
	struct asym *e;

	if (!slot)
		return NULL;
	if (!added)
		return a->syms[*slot];
	if (pk__annotate_grow((void **)&a->syms, &a->cap, a->nr, 64,
			      sizeof(*a->syms)))
		return NULL;
	e = pk__zalloc(sizeof(*e));
	if (!e)
		return NULL;
	e->name = loc->sym;
	e->dso_name = loc->dso;
	e->kernel = loc->kernel;
	e->attr = attr;
	e->start = loc->dso_addr - loc->symoff;
	e->end = sym ? sym->end : e->start;
	e->dso = m ? m->dso : NULL;
	*slot = (uint64_t)a->nr;
	a->syms[a->nr++] = e;
	a->sorted = false;
	return e;
}

static int count_at(struct asym *e, uint64_t off, uint64_t period)
{
	if (pk__annotate_grow((void **)&e->hits, &e->cap_hits, e->nr_hits, 8,
			      sizeof(*e->hits)))
		return -ENOMEM;
	e->hits[e->nr_hits++] = (struct ahit){ off, period };
	return 0;
}

int pk_annotate_add(struct pk_annotate *a, const struct pk_session_sample *sm)
{
	uint16_t mode = sm->rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const struct pk_sample *x = sm->sample;
	const struct map *m = NULL;
	const struct pk_sym *sym = NULL;
	struct pk_location loc;
	struct asym *e;

	if (sm->attr < 0)
		return 0;
	while (a->nr_totals <= (unsigned)sm->attr) {
		if (pk__annotate_grow((void **)&a->totals, &a->cap_totals,
				      a->nr_totals, 4, sizeof(*a->totals)))
			return -ENOMEM;
		a->totals[a->nr_totals++] = (struct atotal){ 0, 0 };
	}
	a->totals[sm->attr].samples++;
	a->totals[sm->attr].period += x->period;
	if (pk_session_resolve(a->sess, x->pid, x->ip, mode, &loc) || !loc.sym)
		return 0;
	if (!loc.kernel) {
		m = pk__session_map(a->sess, x->pid, x->ip);
		sym = m ? pk__symtab_find(&m->dso->tab, loc.dso_addr) : NULL;
	}
	e = entry(a, &loc, sym, m, sm->attr);
	if (!e)
		return -ENOMEM;
	e->samples++;
	e->period += x->period;
	return count_at(e, loc.symoff, x->period);
}

/* perf's output order: per event, period, then DSO and symbol names
 * ascending; symbols of one name (locals) as perf's collapsed tree has
 * them, by address. */
static int hotter(const void *pa, const void *pb)
{
	const struct asym *a = *(const struct asym *const *)pa;
	const struct asym *b = *(const struct asym *const *)pb;
	int c;

	if (a->attr != b->attr)
		return a->attr < b->attr ? -1 : 1;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	c = strcmp(base_name(a->dso_name), base_name(b->dso_name));
	if (!c)
		c = strcmp(a->name, b->name);
	return c ? c : (a->start > b->start) - (a->start < b->start);
}

static void sort_syms(struct pk_annotate *a)
{
	if (a->sorted)
		return;
	qsort(a->syms, (size_t)a->nr, sizeof(*a->syms), hotter);
	a->sorted = true;
}

int pk_annotate_nr_syms(struct pk_annotate *a)
{
	return (int)a->nr;
}

struct asym *pk__annotate_get(struct pk_annotate *a, int idx)
{
	if (idx < 0 || (unsigned)idx >= a->nr)
		return NULL;
	sort_syms(a);
	return a->syms[idx];
}

int pk_annotate_sym(struct pk_annotate *a, int idx, struct pk_annotate_sym *out)
{
	const struct asym *e = pk__annotate_get(a, idx);

	if (!e)
		return -EINVAL;
	out->name = e->name;
	out->dso = e->dso_name;
	out->dso_short = base_name(e->dso_name);
	out->start = e->start;
	out->end = e->end;
	out->nr_samples = e->samples;
	out->period = e->period;
	out->kernel = e->kernel;
	out->attr = e->attr;
	return 0;
}

void pk_annotate_totals(struct pk_annotate *a, int attr, uint64_t *samples,
			uint64_t *period)
{
	bool known = attr >= 0 && (unsigned)attr < a->nr_totals;

	*samples = known ? a->totals[attr].samples : 0;
	*period = known ? a->totals[attr].period : 0;
}
