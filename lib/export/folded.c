// SPDX-License-Identifier: MIT
/*
 * Collapsed stacks: a table of distinct stacks (their text, interned by a
 * hash of it) with counts, the reader of the collapsed text format and its
 * writer (stacks in byte order, as stackcollapse-perf.pl sorts them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/export.h>
#include "base/base.h"
#include "base/hash.h"

struct stk {
	char *s;
	size_t len;
	uint64_t count;
};

struct pk_folded {
	struct stk *v;
	size_t n, cap;
	struct pk__hash idx;   /* text hash (probed) -> index + 1 */
	size_t *order;         /* byte order of v, valid while sorted */
	bool sorted;
	uint64_t total;
};

struct pk_folded *pk_folded_new(void)
{
	struct pk_folded *f = pk__zalloc(sizeof(*f));

	if (!f)
		errno = ENOMEM;
	return f;
}

void pk_folded_free(struct pk_folded *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		pk__free(f->v[i].s);
	pk__free(f->v);
	pk__free(f->order);
	pk__hash_fini(&f->idx);
	pk__free(f);
}

static uint64_t text_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

int pk_folded_add(struct pk_folded *f, const char *stack, size_t len,
		  uint64_t count)
{
	uint64_t k;

	if (!len || memchr(stack, '\n', len) || memchr(stack, '\0', len))
		return -EINVAL;
	for (k = text_hash(stack, len);; k = k * 0x9e3779b97f4a7c15ull + 1) {
		bool added = false;
		uint64_t *v = pk__hash_put(&f->idx, k, &added);
		struct stk *e;

		if (!v)
			return -ENOMEM;
		if (!added) {
			if (!*v)	/* a dead key (out of memory once) */
				continue;
			e = &f->v[*v - 1];
			if (e->len != len || memcmp(e->s, stack, len))
				continue;
			e->count += count;
			f->total += count;
			return 0;
		}
		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 256;
			struct stk *nv = pk__realloc(f->v, cap * sizeof(*nv));

			if (!nv) {
				*v = 0;	/* (a dead key: probes pass it) */
				return -ENOMEM;
			}
			f->v = nv;
			f->cap = cap;
		}
		e = &f->v[f->n];
		if (!(e->s = pk__strndup(stack, len))) {
			*v = 0;
			return -ENOMEM;
		}
		e->len = len;
		e->count = count;
		*v = ++f->n;
		f->total += count;
		f->sorted = false;
		return 0;
	}
}

size_t pk_folded_nr(const struct pk_folded *f)
{
	return f->n;
}

uint64_t pk_folded_total(const struct pk_folded *f)
{
	return f->total;
}

static int by_text(const void *a, const void *b, void *arg)
{
	const struct stk *v = arg;
	const struct stk *x = &v[*(const size_t *)a], *y = &v[*(const size_t *)b];
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int sort(struct pk_folded *f)
{
	size_t *o;

	if (f->sorted)
		return 0;
	if (!(o = pk__realloc(f->order, (f->n + 1) * sizeof(*o))))
		return -ENOMEM;
	f->order = o;
	for (size_t i = 0; i < f->n; i++)
		o[i] = i;
	qsort_r(o, f->n, sizeof(*o), by_text, f->v);
	f->sorted = true;
	return 0;
}

const char *pk_folded_stack(struct pk_folded *f, size_t i, uint64_t *count)
{
	if (i >= f->n || sort(f))
		return NULL;
	if (count)
		*count = f->v[f->order[i]].count;
	return f->v[f->order[i]].s;
}

int pk_folded_write(struct pk_folded *f, FILE *out)
{
	int err = sort(f);

	for (size_t i = 0; i < f->n && !err; i++) {
		const struct stk *e = &f->v[f->order[i]];

		if (fwrite(e->s, 1, e->len, out) != e->len ||
		    fprintf(out, " %" PRIu64 "\n", e->count) < 0)
			err = -EIO;
	}
	return err ? err : ferror(out) ? -EIO : 0;
}

/* "STACK COUNT": the count after the last space, digits only. */
static int parse_line(struct pk_folded *f, const char *l, size_t len)
{
	const char *sp = NULL;
	uint64_t n = 0;

	for (size_t i = len; i > 0; i--)
		if (l[i - 1] == ' ') {
			sp = l + i - 1;
			break;
		}
	if (!sp || sp == l || sp + 1 == l + len)
		return PK_ERR_FORMAT;
	for (const char *p = sp + 1; p < l + len; p++) {
		uint64_t d = (uint64_t)(*p - '0');

		if (*p < '0' || *p > '9' || n > (UINT64_MAX - d) / 10)
			return PK_ERR_FORMAT;
		n = n * 10 + d;
	}
	return pk_folded_add(f, l, (size_t)(sp - l), n);
}

int pk_folded_parse(struct pk_folded *f, const char *text, size_t len,
		    size_t *line)
{
	size_t no = 0;

	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		int err;

		no++;
		if (n && p[n - 1] == '\r')
			n--;
		err = n ? parse_line(f, p, n) : 0;
		if (err) {
			if (line)
				*line = no;
			return err == -EINVAL ? PK_ERR_FORMAT : err;
		}
		p += (nl ? nl + 1 : end) - p;
	}
	return 0;
}
