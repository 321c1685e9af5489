/* SPDX-License-Identifier: MIT */
/* The pid -> comm map (see comm.h). */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "base/comm.h"

struct rec {
	uint32_t len;
	char s[];
};

/* A record holding S (LEN bytes and a NUL) in the last chunk. */
static struct rec *store(struct pk__comms *c, const char *s, size_t len)
{
	size_t need = (sizeof(struct rec) + len + 1 + 7) & ~(size_t)7;
	struct rec *r;

	if (c->cap - c->used < need) {
		size_t cap = PK_MAX((size_t)16384, need);
		char **v = pk__realloc(c->chunks, (size_t)(c->nr_chunks + 1) *
				      sizeof(*v));

		if (!v)
			return NULL;
		c->chunks = v;
		if (!(v[c->nr_chunks] = pk__malloc(cap)))
			return NULL;
		c->nr_chunks++;
		c->used = 0;
		c->cap = cap;
	}
	r = (struct rec *)(c->chunks[c->nr_chunks - 1] + c->used);
	c->used += need;
	r->len = (uint32_t)len;
	memcpy(r->s, s, len);
	r->s[len] = '\0';
	return r;
}

int pk__comms_set(struct pk__comms *c, int pid, const char *s, size_t len,
		  bool replace)
{
	bool added;
	uint64_t *v = pk__hash_put(&c->map, (uint64_t)(uint32_t)pid, &added);
	struct rec *r;

	if (!v)
		return -ENOMEM;
	r = (struct rec *)(uintptr_t)*v;
	added = added || !r;    /* an entry left by a failed store */
	if (!added && (!replace || (r->len == len && !memcmp(r->s, s, len))))
		return 0;
	if (!added && len <= r->len) {  /* rewrite in place: no growth */
		memcpy(r->s, s, len);
		r->s[len] = '\0';
		r->len = (uint32_t)len;
		return 0;
	}
	r = store(c, s, len);
	if (!r) {
		if (added)      /* no record: leave no entry behind */
			*v = 0;
		return -ENOMEM;
	}
	*v = (uint64_t)(uintptr_t)r;
	return 0;
}

const char *pk__comms_get(const struct pk__comms *c, int pid, size_t *len)
{
	uint64_t *v = pk__hash_get(&c->map, (uint64_t)(uint32_t)pid);
	const struct rec *r = v ? (const struct rec *)(uintptr_t)*v : NULL;

	if (!r)
		return NULL;
	if (len)
		*len = r->len;
	return r->s;
}

static bool blank(char ch, bool more)
{
	return ch == ' ' || ch == '\t' ||
	       (more && (ch == '\r' || ch == '\v' || ch == '\f'));
}

/* "[blanks][sign]DIGITS": the pid and where its digits end, or NULL. */
static const char *line_pid(const char *p, const char *e, long *pid)
{
	bool neg;
	const char *d;
	long v = 0;

	while (p < e && blank(*p, false))
		p++;
	neg = p < e && *p == '-';
	if (p < e && (*p == '-' || *p == '+'))
		p++;
	for (d = p; p < e && *p >= '0' && *p <= '9' && v < (1L << 31); p++)
		v = v * 10 + (*p - '0');
	if (p == d || v >= (1L << 31))
		return NULL;
	*pid = neg ? -v : v;
	return p;
}

/* One line [P, E): 1 added or skipped, 0 stop here, -ENOMEM. */
static int parse_line(struct pk__comms *c, const char *p, const char *e,
		      enum pk__comms_rule rule)
{
	long pid;
	const char *q = line_pid(p, e, &pid);

	if (rule == PK_COMMS_KERNEL) {
		if (!q || q >= e || *q != ' ' || pid <= 0 || pid >= (1L << 30))
			return 1;
		q++;
		return pk__comms_set(c, (int)pid, q,
				     PK_MIN((size_t)(e - q), (size_t)15), true)
		       ?: 1;
	}
	if (!q)
		return 0;
	while (q < e && blank(*q, true))
		q++;
	if (q >= e)
		return 0;
	if (!pid)
		return 1;
	return pk__comms_set(c, (int)pid, q, (size_t)(e - q), false) ?: 1;
}

int pk__comms_parse(struct pk__comms *c, const char *text, size_t len,
		    enum pk__comms_rule rule)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		int r;

		if (!e)
			e = end;
		if (e == p) {           /* empty lines are skipped */
			p++;
			continue;
		}
		r = parse_line(c, p, e, rule);
		if (r <= 0)
			return r;
		p = e + 1;
	}
	return 0;
}

void pk__comms_fini(struct pk__comms *c)
{
	pk__hash_fini(&c->map);
	for (int i = 0; i < c->nr_chunks; i++)
		pk__free(c->chunks[i]);
	pk__free(c->chunks);
	memset(c, 0, sizeof(*c));
}
