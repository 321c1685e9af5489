/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols (kallsyms text) and pid -> comm (saved_cmdlines text) for
 * the event formatter. Lookups behave as libtraceevent's: a symbol covers
 * the addresses up to the next one (the last one only its own address),
 * equal addresses resolve as its sorted order and binary search do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "tracefmt/fmt.h"

struct tf_comm { int pid; uint32_t len; const char *s; bool used; };

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* kallsyms text into the one kernel symbol table (symbol/ksyms.h) */
int tf_syms_parse(struct tf_env *env, const char *text, size_t len)
{
	int e = pk__ksyms_parse(&env->syms, text, len);

	if (!e)
		env->syms_loaded = true;
	return e;
}

/* libtraceevent's lookup, loading the symbols on first use */
const struct pk_ksym *tf_sym_find(struct tf_env *env, uint64_t addr)
{
	if (!env->syms_loaded) {
		env->syms_loaded = true;
		if (env->load_syms && env->load_syms(env) < 0)
			return NULL;
	}
	return pk__ksyms_tep(&env->syms, addr);
}

/* ---- printk strings ---- */

static int pstr_cmp(const void *a, const void *b)
{
	const struct tf_pstr *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * "0xADDR : \"TEXT\"" lines. A string with a backslash (libtraceevent
 * keeps or rewrites escapes in ways not reproduced here) is marked odd.
 */
int tf_printk_parse(struct tf_env *env, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	size_t n = 0, cap = 0;
	struct tf_pstr *v = NULL;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		uint64_t addr = 0;
		int d, nd = 0;
		if (!e)
			e = end;
		if (e - p > 2 && p[0] == '0' && (p[1] | 0x20) == 'x')
			p += 2;
		while (p < e && (d = hexval((unsigned char)*p)) >= 0) {
			addr = addr << 4 | (uint64_t)d;
			p++;
			nd++;
		}
		if (nd && e - p >= 5 && !memcmp(p, " : \"", 4) &&
		    e[-1] == '"') {
			if (n == cap) {
				cap = cap ? cap * 2 : 256;
				struct tf_pstr *nv = pk_realloc(v, cap * sizeof(*v));
				if (!nv) {
					pk_free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			const char *s = p + 4;
			v[n].addr = addr;
			v[n].s = s;
			v[n].len = (uint32_t)(e - 1 - s);
			v[n].odd = memchr(s, '\\', v[n].len) != NULL;
			n++;
		}
		p = e + 1;
	}
	if (n)
		qsort(v, n, sizeof(*v), pstr_cmp);
	/* equal addresses: libtraceevent's pick is not reproduced */
	for (size_t i = 1; i < n; i++)
		if (v[i].addr == v[i - 1].addr &&
		    (v[i].len != v[i - 1].len ||
		     memcmp(v[i].s, v[i - 1].s, v[i].len)))
			v[i].odd = v[i - 1].odd = true;
	if (env->bfmts) {
		for (size_t i = 0; i < env->nr_pstrs; i++)
			if (env->bfmts[i]) {
				tf_event_fini(env->bfmts[i]);
				pk_free(env->bfmts[i]);
			}
		pk_free(env->bfmts);
		env->bfmts = NULL;
	}
	pk_free(env->pstrs);
	env->pstrs = v;
	env->nr_pstrs = n;
	env->printk_loaded = true;
	return 0;
}

const struct tf_pstr *tf_printk_find(struct tf_env *env, uint64_t addr)
{
	if (!env->printk_loaded) {
		env->printk_loaded = true;
		if (env->load_printk && env->load_printk(env) < 0)
			return NULL;
	}
	size_t l = 0, u = env->nr_pstrs;
	while (l < u) {
		size_t i = (l + u) / 2;
		if (env->pstrs[i].addr == addr)
			return &env->pstrs[i];
		if (addr < env->pstrs[i].addr)
			u = i;
		else
			l = i + 1;
	}
	return NULL;
}

/* ---- comms ---- */

static size_t slot(const struct tf_env *env, int pid)
{
	size_t h = (uint32_t)pid * 2654435761u;
	return h & (env->comm_cap - 1);
}

/* A stable copy of S (LEN bytes, NUL added): chunks are never moved. */
static const char *comm_text(struct tf_env *env, const char *s, size_t len)
{
	if (env->comm_chunk_cap - env->comm_chunk_used < len + 1) {
		size_t cap = PK_MAX((size_t)16384, len + 1);
		char **v = pk_realloc(env->comm_chunks,
				      (size_t)(env->nr_comm_chunks + 1) *
				      sizeof(*v));
		if (!v)
			return NULL;
		env->comm_chunks = v;
		if (!(v[env->nr_comm_chunks] = pk_malloc(cap)))
			return NULL;
		env->nr_comm_chunks++;
		env->comm_chunk_used = 0;
		env->comm_chunk_cap = cap;
	}
	char *p = env->comm_chunks[env->nr_comm_chunks - 1] +
		  env->comm_chunk_used;
	memcpy(p, s, len);
	p[len] = 0;
	env->comm_chunk_used += len + 1;
	return p;
}

static int comm_grow(struct tf_env *env)
{
	size_t cap = env->comm_cap ? env->comm_cap * 2 : 256;
	struct tf_comm *old = env->comms;
	size_t oc = env->comm_cap;

	env->comms = pk_calloc(cap, sizeof(*old));
	if (!env->comms) {
		env->comms = old;
		return -ENOMEM;
	}
	env->comm_cap = cap;
	for (size_t i = 0; i < oc; i++) {
		if (!old[i].used)
			continue;
		size_t k = slot(env, old[i].pid);
		while (env->comms[k].used)
			k = (k + 1) & (cap - 1);
		env->comms[k] = old[i];
	}
	pk_free(old);
	return 0;
}

int tf_comm_add(struct tf_env *env, int pid, const char *comm, size_t len)
{
	if (!pid)
		return 0;
	if ((env->nr_comms + 1) * 2 > env->comm_cap && comm_grow(env))
		return -ENOMEM;
	size_t k = slot(env, pid);
	while (env->comms[k].used) {
		if (env->comms[k].pid == pid)
			return 0;               /* the first one stays */
		k = (k + 1) & (env->comm_cap - 1);
	}
	const char *s = comm_text(env, comm, len);
	if (!s)
		return -ENOMEM;
	env->comms[k] = (struct tf_comm){ pid, (uint32_t)len, s, true };
	env->nr_comms++;
	return 0;
}

const char *tf_comm(const struct tf_env *env, int pid, size_t *len)
{
	*len = 6;
	if (!pid)
		return "<idle>";
	*len = 5;
	if (!env->comm_cap)
		return "<...>";
	size_t k = slot(env, pid);
	while (env->comms[k].used) {
		if (env->comms[k].pid == pid) {
			*len = env->comms[k].len;
			return env->comms[k].s;
		}
		k = (k + 1) & (env->comm_cap - 1);
	}
	return "<...>";
}

/* "PID COMM\n" lines, as libtraceevent reads them (stops at a bad one). */
int tf_comms_parse(struct tf_env *env, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if (e == p) {           /* strtok skips empty lines */
			p++;
			continue;
		}
		const char *q = p;
		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		bool neg = q < e && *q == '-';
		if (q < e && (*q == '-' || *q == '+'))
			q++;
		long pid = 0;
		const char *d = q;
		while (q < e && *q >= '0' && *q <= '9' && pid < (1L << 31))
			pid = pid * 10 + (*q++ - '0');
		if (q == d || pid >= (1L << 31))
			return 0;
		while (q < e && (*q == ' ' || *q == '\t' || *q == '\r' ||
				 *q == '\v' || *q == '\f'))
			q++;
		if (q >= e)
			return 0;
		int r = tf_comm_add(env, (int)(neg ? -pid : pid), q,
				    (size_t)(e - q));
		if (r)
			return r;
		p = e + 1;
	}
	return 0;
}

void tf_env_fini(struct tf_env *env)
{
	pk__ksyms_fini(&env->syms);
	for (size_t i = 0; env->bfmts && i < env->nr_pstrs; i++)
		if (env->bfmts[i]) {
			tf_event_fini(env->bfmts[i]);
			pk_free(env->bfmts[i]);
		}
	pk_free(env->bfmts);
	pk_free(env->pstrs);
	pk_free(env->comms);
	for (int i = 0; i < env->nr_comm_chunks; i++)
		pk_free(env->comm_chunks[i]);
	pk_free(env->comm_chunks);
	memset(env, 0, sizeof(*env));
}
