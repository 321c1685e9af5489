/* SPDX-License-Identifier: MIT */
/*
 * report --profile's stack trees, trace-cmd 3.1's layout: the distinct
 * stacks of an event sorted by their words (as unsigned ints; a longer
 * stack after its prefix), then grouped level by level into chains
 * (equal frames at the level), each level's chains sorted by time, then
 * count (the same qsort on the same order as trace-cmd: the same result),
 * with a share of the level's total; a chain with one child goes on on
 * the same branch. Frames of all ones end a stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "ftrace/profile.h"

static uint64_t content_key(const uint8_t *p, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;

	for (uint32_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

int pk__prof_stack_add(struct pstacks *s, const uint8_t *caller,
		       uint32_t size, uint64_t time, uint64_t ts)
{
	bool added;
	uint64_t *slot = pk__hash_put(&s->idx, content_key(caller, size),
				      &added);
	struct pstack *k = NULL;

	if (!slot)
		return -ENOMEM;
	if (!added) {
		k = &s->v[*slot - 1];
		if (k->size != size || memcmp(k->caller, caller, size)) {
			k = NULL;
			for (size_t i = 0; i < s->n && !k; i++)
				if (s->v[i].size == size &&
				    !memcmp(s->v[i].caller, caller, size))
					k = &s->v[i];
		}
	}
	if (!k) {
		if (!pk__grow((void **)&s->v, &s->cap, s->n, 1, sizeof(*s->v)))
			return -ENOMEM;
		k = &s->v[s->n];
		memset(k, 0, sizeof(*k));
		k->caller = caller;
		k->size = size;
		if (added)
			*slot = (uint64_t)s->n + 1;
		s->n++;
	}
	k->count++;
	k->time += time;
	if (k->count == 1 || time < k->tmin) {
		k->tmin = time;
		k->tsmin = ts;
	}
	if (time > k->tmax) {
		k->tmax = time;
		k->tsmax = ts;
	}
	return 0;
}

void pk__prof_stacks_fini(struct pstacks *s)
{
	pk__free(s->v);
	pk__hash_fini(&s->idx);
}

static int cmp_stacks(const void *a, const void *b)
{
	const struct pstack *A = *(const struct pstack *const *)a;
	const struct pstack *B = *(const struct pstack *const *)b;
	uint32_t n = A->size < B->size ? A->size : B->size;

	for (uint32_t i = 0; i + 4 <= n; i += 4) {
		uint32_t x, y;
		memcpy(&x, A->caller + i, 4);
		memcpy(&y, B->caller + i, 4);
		if (x != y)
			return x > y ? 1 : -1;
	}
	return A->size > B->size ? 1 : A->size < B->size ? -1 : 0;
}

struct chain {
	struct chain *kids;
	int nkids, percent;
	uint64_t val, time, tmin, tsmin, tmax, tsmax, avg, count;
};

static int cmp_chains(const void *a, const void *b)
{
	const struct chain *A = a, *B = b;

	if (A->time != B->time)
		return A->time > B->time ? -1 : 1;
	if (A->count != B->count)
		return A->count > B->count ? -1 : 1;
	return 0;
}

struct walk { int ls; uint64_t stop; };

static bool overflows(const struct walk *w, const struct pstack *s, int lv)
{
	return (long)w->ls * lv > (long)s->size - w->ls;
}

static uint64_t frame(const struct walk *w, const struct pstack *s, int lv)
{
	uint64_t v = 0;

	memcpy(&v, s->caller + (size_t)w->ls * lv, (size_t)w->ls);
	return v;
}

static struct chain *make_chain(const struct walk *w, struct pstack **st,
				int cnt, int lv, int *nr)
{
	uint64_t last = 0, tot_time = 0, tot_count = 0;
	int n = 0, x = 0, start = 0;
	struct chain *c, cur = { 0 };

	for (int i = 0; i < cnt; i++) {
		if (overflows(w, st[i], lv))
			continue;
		uint64_t v = frame(w, st[i], lv);
		if (v == w->stop)
			continue;
		if (!n || v != last)
			n++;
		last = v;
	}
	*nr = n;
	if (!n || !(c = pk__calloc((size_t)cnt + 1, sizeof(*c)))) {
		*nr = 0;
		return NULL;
	}
	for (int i = 0; i < cnt; i++) {
		if (overflows(w, st[i], lv)) {
			start = i + 1;
			continue;
		}
		uint64_t v = frame(w, st[i], lv);
		if (v == w->stop) {
			start = i + 1;
			continue;
		}
		cur.count += st[i]->count;
		cur.time += st[i]->time;
		if (st[i]->tmax > cur.tmax) {
			cur.tmax = st[i]->tmax;
			cur.tsmax = st[i]->tsmax;
		}
		if (i == start || st[i]->tmin < cur.tmin) {
			cur.tmin = st[i]->tmin;
			cur.tsmin = st[i]->tsmin;
		}
		if (i == cnt - 1 || overflows(w, st[i + 1], lv) ||
		    v != frame(w, st[i + 1], lv)) {
			tot_time += cur.time;
			tot_count += cur.count;
			cur.val = v;
			cur.avg = cur.count ? cur.time / cur.count : 0;
			cur.kids = make_chain(w, &st[start], i - start + 1,
					      lv + 1, &cur.nkids);
			c[x++] = cur;
			start = i + 1;
			memset(&cur, 0, sizeof(cur));
		}
	}
	qsort(c, (size_t)n, sizeof(*c), cmp_chains);
	for (int i = 0; i < n; i++)
		if (tot_time)
			c[i].percent = (int)((c[i].time * 100 + tot_time / 2) /
					     tot_time);
		else if (tot_count)
			c[i].percent = (int)((c[i].count * 100 +
					      tot_count / 2) / tot_count);
	return c;
}

static void free_chain(struct chain *c, int n)
{
	for (int i = 0; c && i < n; i++)
		free_chain(c[i].kids, c[i].nkids);
	pk__free(c);
}

struct pout {
	FILE *out;
	const char *(*fn)(void *, uint64_t);
	void *arg;
	uint64_t mask;
};

static void indent(struct pout *o, int lv)
{
	for (int p = 0; p < lv + 1; p++)
		fprintf(o->out, "%*c ", 5, (o->mask >> p) & 1 ? '|' : ' ');
}

static void func(struct pout *o, uint64_t v)
{
	const char *f = o->fn ? o->fn(o->arg, v) : NULL;

	if (f)
		fprintf(o->out, "%s (0x%llx)\n", f, (unsigned long long)v);
	else
		fprintf(o->out, "0x%llx\n", (unsigned long long)v);
}

static void ts(FILE *out, uint64_t t)
{
	fprintf(out, "%llu.%06llu", (unsigned long long)(t / 1000000000ull),
		(unsigned long long)((t % 1000000000ull + 500) / 1000));
}

static void out_chain(struct pout *o, struct chain *c, int lv, int n)
{
	char line = '|';

	if (!n)
		return;
	o->mask |= 1ull << (lv + 1);
	indent(o, lv + 1);
	fputc('\n', o->out);
	for (int i = 0; i < n; i++) {
		indent(o, lv);
		fprintf(o->out, "%*c ", 5, '+');
		if (i == n - 1) {
			o->mask &= ~(1ull << (lv + 1));
			line = ' ';
		}
		func(o, c[i].val);
		indent(o, lv);
		fprintf(o->out, "%*c ", 5, line);
		fprintf(o->out, "  %d%% (%llu)", c[i].percent,
			(unsigned long long)c[i].count);
		if (c[i].time) {
			fprintf(o->out, " time:%llu max:%llu(ts:",
				(unsigned long long)c[i].time,
				(unsigned long long)c[i].tmax);
			ts(o->out, c[i].tsmax);
			fprintf(o->out, ") min:%llu(ts:",
				(unsigned long long)c[i].tmin);
			ts(o->out, c[i].tsmin);
			fprintf(o->out, ") avg:%llu", (unsigned long long)c[i].avg);
		}
		fputc('\n', o->out);
		struct chain *k = c[i].kids;
		int nk = c[i].nkids;
		for (; k && nk == 1; nk = k->nkids, k = k->kids) {
			indent(o, lv);
			fprintf(o->out, "%*c    ", 5, line);
			func(o, k->val);
		}
		if (k)
			out_chain(o, k, lv + 1, nk);
		indent(o, lv + 1);
		fputc('\n', o->out);
	}
	o->mask &= ~(1ull << (lv + 1));
	indent(o, lv);
	fputc('\n', o->out);
}

void pk__prof_stacks_print(struct pstacks *s, int long_size,
			   const char *(*fn)(void *arg, uint64_t addr),
			   void *arg, FILE *out)
{
	struct walk w = { long_size == 4 ? 4 : 8,
			  long_size == 4 ? 0xffffffffull : ~0ull };
	struct pout o = { out, fn, arg, 0 };
	struct pstack **st;
	struct chain *c;
	int n;

	if (!s->n || !(st = pk__calloc(s->n, sizeof(*st))))
		return;
	for (size_t i = 0; i < s->n; i++)
		st[i] = &s->v[i];
	qsort(st, s->n, sizeof(*st), cmp_stacks);
	c = make_chain(&w, st, (int)s->n, 0, &n);
	out_chain(&o, c, 0, n);
	free_chain(c, n);
	pk__free(st);
}
