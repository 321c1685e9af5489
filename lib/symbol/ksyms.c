/* SPDX-License-Identifier: MIT */
/* The kernel symbol table: one kallsyms parser, three lookups (ksyms.h). */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "symbol/ksyms.h"

/* hex digit value + 1; 0 for other bytes */
static const unsigned char hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6,
	['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The module of the line at tab T (before E): its name's offset from N
 * (0 when too far), cut with a NUL when CUT. */
static uint16_t module(char *n, char *t, char *e, bool cut)
{
	char *m = t + 1 + (t + 1 < e && t[1] == '['), *c;

	if (!cut || m - n > UINT16_MAX)
		return 0;
	c = memchr(m, ']', (size_t)(e - m));
	*(c ? c : e) = '\0';
	return (uint16_t)(m - n);
}

bool pk__ksyms_line(char *p, char *e, struct pk_ksym *s, bool cut)
{
	uint64_t a = 0;
	char *q = p, *n, *t;

	while (q < e && hex1[(unsigned char)*q]) {
		a = a << 4 | (uint64_t)(hex1[(unsigned char)*q] - 1);
		q++;
	}
	if (q == p || e - q < 4 || q[0] != ' ' || q[1] == ' ' || q[2] != ' ' ||
	    q[3] == ' ' || q[3] == '\t')
		return false;
	n = q + 3;
	t = memchr(n, '\t', (size_t)(e - n));
	q = t ? t : e;
	if (q > n && q[-1] == '\r')
		q--;
	if (q == n)
		return false;
	*s = (struct pk_ksym){ .addr = a, .name = n, .type = n[-2],
			       .len = (uint32_t)(q - n) };
	if (t)
		s->mod = module(n, t, e, cut);
	if (cut)
		*q = '\0';
	return true;
}

/* stable merge sort by address */
static void msort(struct pk_ksym *a, struct pk_ksym *tmp, size_t n)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	msort(a, tmp, h);
	msort(a + h, tmp, n - h);
	if (a[h - 1].addr <= a[h].addr)
		return;
	while (i < h && j < n)
		tmp[k++] = a[j].addr < a[i].addr ? a[j++] : a[i++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof(*a));
}

static int sort_syms(struct pk_ksym *v, size_t n)
{
	struct pk_ksym *tmp;

	for (size_t i = 1; i < n; i++)
		if (v[i].addr < v[i - 1].addr)
			goto unsorted;
	return 0;
unsorted:
	tmp = pk__malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	msort(v, tmp, n);
	pk__free(tmp);
	return 0;
}

/* Doubles K's entry array (CAP entries now, N used). */
static int grow(struct pk_ksyms *k, size_t *cap)
{
	struct pk_bigbuf m;
	struct pk_ksym *v = pk__bigbuf_alloc(&m, 2 * *cap * sizeof(*v));

	if (!v)
		return -ENOMEM;
	memcpy(v, k->v, k->n * sizeof(*v));
	pk__bigbuf_free(&k->mem);
	k->mem = m;
	k->v = v;
	*cap *= 2;
	return 0;
}

/* Parses the LEN bytes at TEXT into K's entries (cut: see ..._line). */
static int parse_text(struct pk_ksyms *k, char *text, size_t len, bool cut)
{
	char *p = text, *end = p + len;
	/* a 64-bit line is at least 21 bytes: start from that guess */
	size_t cap = len / 20 + 16;

	k->v = pk__bigbuf_alloc(&k->mem, cap * sizeof(*k->v));
	if (!k->v)
		return -ENOMEM;
	while (p < end) {
		char *e = memchr(p, '\n', (size_t)(end - p));

		if (!e)
			e = end;
		if (k->n == cap && grow(k, &cap))
			return -ENOMEM;
		if (pk__ksyms_line(p, e, &k->v[k->n], cut))
			k->n++;
		p = e + 1;
	}
	return sort_syms(k->v, k->n);
}

int pk__ksyms_parse(struct pk_ksyms *k, const char *text, size_t len)
{
	struct pk_ksyms n = { 0 };
	char *t = pk__bigbuf_alloc(&n.text, len + 1);
	int err;

	if (!t)
		return -ENOMEM;
	memcpy(t, text, len);
	t[len] = '\0';
	err = parse_text(&n, t, len, true);
	if (err) {
		pk__ksyms_fini(&n);
		return err;
	}
	pk__ksyms_fini(k);
	*k = n;
	return 0;
}

int pk__ksyms_take(struct pk_ksyms *k, char *text)
{
	struct pk_ksyms n = { .text = { .p = text } };
	int err = parse_text(&n, text, strlen(text), true);

	if (err) {
		pk__ksyms_fini(&n);
		return err;
	}
	pk__ksyms_fini(k);
	*k = n;
	return 0;
}

int pk__ksyms_borrow(struct pk_ksyms *k, const char *text, size_t len)
{
	struct pk_ksyms n = { 0 };
	/* not cut: the text is only read */
	int err = parse_text(&n, (char *)text, len, false);

	if (err) {
		pk__ksyms_fini(&n);
		return err;
	}
	pk__ksyms_fini(k);
	*k = n;
	return 0;
}

void pk__ksyms_fini(struct pk_ksyms *k)
{
	pk__bigbuf_free(&k->mem);
	pk__bigbuf_free(&k->text);
	memset(k, 0, sizeof(*k));
}

long pk__ksyms_first(const struct pk_ksyms *k, uint64_t ip)
{
	size_t lo = 0, hi = k->n;

	if (!hi || ip < k->v[0].addr)
		return -1;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (k->v[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	while (lo && k->v[lo - 1].addr == k->v[lo].addr)
		lo--;
	return (long)lo;
}

uint64_t pk__ksyms_size(const struct pk_ksyms *k, size_t i)
{
	for (size_t j = i + 1; j < k->n; j++)
		if (k->v[j].addr > k->v[i].addr)
			return k->v[j].addr - k->v[i].addr;
	return 0;
}

uint64_t pk__ksyms_addr(const struct pk_ksyms *k, const char *name)
{
	uint64_t a = 0;

	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->v[i].name, name))
			a = k->v[i].addr;
	return a;
}

/*
 * libtraceevent sorts its list (built in reverse kallsyms order) with a
 * stable sort: equal addresses end up in reverse kallsyms order. The
 * search only compares addresses, which the order of ties leaves alone:
 * search this table and mirror the hit within its run of ties.
 */
const struct pk_ksym *pk__ksyms_tep(const struct pk_ksyms *k, uint64_t ip)
{
	const struct pk_ksym *v = k->v;
	size_t l = 0, u = k->n, i, a, b;

	while (l < u) {
		i = (l + u) / 2;
		uint64_t next = i + 1 < k->n ? v[i + 1].addr : 0;

		if (ip == v[i].addr || (ip > v[i].addr && ip < next))
			goto hit;
		if (ip < v[i].addr)
			u = i;
		else
			l = i + 1;
	}
	return NULL;
hit:
	for (a = i; a && v[a - 1].addr == v[i].addr; a--)
		;
	for (b = i; b + 1 < k->n && v[b + 1].addr == v[i].addr; b++)
		;
	return &v[a + b - i];
}
