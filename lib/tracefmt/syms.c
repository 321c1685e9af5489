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
#include <event-parse.h>
#include "tracefmt/fmt.h"
#include "tracefmt/tep.h"


static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* kallsyms text into the one kernel symbol table (symbol/ksyms.h); names
 * stay in TEXT */
int pk__tf_syms_parse(struct tf_env *env, const char *text, size_t len)
{
	int e = pk__ksyms_borrow(&env->syms, text, len);

	if (!e)
		env->syms_loaded = true;
	return e;
}

/* libtraceevent's lookup, loading the symbols on first use */
const struct pk_ksym *pk__tf_sym_find(struct tf_env *env, uint64_t addr)
{
	if (env->find_sym)
		return env->find_sym(env, addr, &env->found) ? &env->found
							     : NULL;
	if (!env->syms_loaded) {
		env->syms_loaded = true;
		if (env->load_syms && env->load_syms(env) < 0)
			return NULL;
	}
	return pk__ksyms_tep(&env->syms, addr);
}

const char *pk__tf_sym_cstr(struct tf_env *env, const struct pk_ksym *s)
{
	char *b = env->sym_name[env->sym_next++ % 16];
	size_t n = PK_MIN((size_t)s->len, sizeof(env->sym_name[0]) - 1);

	memcpy(b, s->name, n);
	b[n] = 0;
	return b;
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
int pk__tf_printk_parse(struct tf_env *env, const char *text, size_t len)
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
				struct tf_pstr *nv = pk__realloc(v, cap * sizeof(*v));
				if (!nv) {
					pk__free(v);
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
				pk__tf_event_fini(env->bfmts[i]);
				pk__free(env->bfmts[i]);
			}
		pk__free(env->bfmts);
		env->bfmts = NULL;
	}
	pk__free(env->pstrs);
	env->pstrs = v;
	env->nr_pstrs = n;
	env->printk_loaded = true;
	return 0;
}

const struct tf_pstr *pk__tf_printk_find(struct tf_env *env, uint64_t addr)
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

struct tep_handle *pk__tf_comm_tep(struct tf_env *env)
{
	if (!env->ctep)
		env->ctep = tep_alloc();
	return env->ctep;
}

int pk__tf_comm_add(struct tf_env *env, int pid, const char *comm, size_t len)
{
	struct tep_handle *tep = pk__tf_comm_tep(env);
	char buf[64], *c = len < sizeof(buf) ? buf : pk__malloc(len + 1);

	if (!tep || !c)
		return -ENOMEM;
	memcpy(c, comm, len);
	c[len] = '\0';
	/* -1 with EEXIST: PID has a name already (kept) */
	int e = tep_register_comm(tep, c, pid) < 0 && errno == ENOMEM;
	if (c != buf)
		pk__free(c);
	return e ? -ENOMEM : 0;
}

const char *pk__tf_comm(struct tf_env *env, int pid, size_t *len)
{
	struct tep_handle *tep = pid ? pk__tf_comm_tep(env) : NULL;
	const char *c = !pid ? "<idle>" :
			tep ? tep_data_comm_from_pid(tep, pid) : "<...>";

	*len = strlen(c);
	return c;
}

/* "PID COMM\n" lines, as libtraceevent reads them (stops at a bad one). */
int pk__tf_comms_parse(struct tf_env *env, const char *text, size_t len)
{
	struct tep_handle *tep = pk__tf_comm_tep(env);

	return tep ? pk__tf_tep_cmdlines(tep, text, len) : -ENOMEM;
}

void pk__tf_env_fini(struct tf_env *env)
{
	pk__ksyms_fini(&env->syms);
	for (size_t i = 0; env->bfmts && i < env->nr_pstrs; i++)
		if (env->bfmts[i]) {
			pk__tf_event_fini(env->bfmts[i]);
			pk__free(env->bfmts[i]);
		}
	pk__free(env->bfmts);
	pk__free(env->pstrs);
	if (env->ctep)
		tep_free(env->ctep);
	memset(env, 0, sizeof(*env));
}
