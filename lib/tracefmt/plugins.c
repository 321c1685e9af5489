/* SPDX-License-Identifier: MIT */
/*
 * The payload layouts of libtraceevent's plugins that trace-cmd report
 * loads (sched_switch, hrtimer, futex), written from their observable
 * output. Events other plugins own are marked TFP_FALLBACK.
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "tracefmt/compile.h"

static bool named(const struct tf_event *ev, const char *sys,
		  const char *name)
{
	return !strcmp(ev->system, sys) && ev->name && !strcmp(ev->name, name);
}

/* Fields a plugin reads must exist with a readable size. */
static bool bind_fields(struct tf_event *ev, const char *const *names,
			int n)
{
	for (int i = 0; i < n; i++) {
		int f = pk__tf_find_field(ev, names[i]);
		ev->pf[i] = f;
		if (f < 0 && names[i][0] != '?')
			return false;
		if (names[i][0] == '?')
			ev->pf[i] = pk__tf_find_field(ev, names[i] + 1);
		f = ev->pf[i];
		if (f >= 0 && i < 8) {
			uint32_t sz = ev->fields[f].size;
			bool comm = strstr(names[i], "comm") != NULL;
			if (!comm && sz != 1 && sz != 2 && sz != 4 && sz != 8)
				return false;
		}
	}
	return true;
}

void pk__tf_plugin_bind(struct tf_event *ev)
{
	static const char *const sw[] = { "prev_pid", "?prev_comm", "prev_prio",
					  "prev_state", "next_pid", "?next_comm",
					  "next_prio" };
	static const char *const wk[] = { "pid", "?comm", "prio", "?success",
					  "target_cpu" };
	static const char *const hs[] = { "?timer", "?hrtimer", "function",
					  "expires", "softexpires" };
	static const char *const he[] = { "?timer", "?hrtimer", "now",
					  "function" };
	static const char *const fx[] = { "uaddr", "op", "val", "utime",
					  "uaddr2", "val3" };
	static const char *const kmem[] = {
		"kfree", "kmalloc", "kmalloc_node", "kmem_cache_alloc",
		"kmem_cache_alloc_node", "kmem_cache_free",
	};
	static const char *const cs[] = { "call_site" };
	static const char *const other[][2] = {
		{ "tlb", "tlb_flush" }, { "mac80211", "drv_bss_info_changed" },
	};
	bool ok = true;

	if (named(ev, "sched", "sched_switch")) {
		ev->plugin = TFP_SCHED_SWITCH;
		ok = bind_fields(ev, sw, 7);
	} else if (named(ev, "sched", "sched_wakeup") ||
		   named(ev, "sched", "sched_wakeup_new")) {
		ev->plugin = TFP_SCHED_WAKEUP;
		ok = bind_fields(ev, wk, 5);
	} else if (named(ev, "timer", "hrtimer_start")) {
		ev->plugin = TFP_HRTIMER_START;
		ok = bind_fields(ev, hs, 5) && (ev->pf[0] >= 0 || ev->pf[1] >= 0);
	} else if (named(ev, "timer", "hrtimer_expire_entry")) {
		ev->plugin = TFP_HRTIMER_EXPIRE;
		ok = bind_fields(ev, he, 4) && (ev->pf[0] >= 0 || ev->pf[1] >= 0);
	} else if (named(ev, "syscalls", "sys_enter_futex")) {
		ev->plugin = TFP_FUTEX;
		ok = bind_fields(ev, fx, 6);
	} else if (!strcmp(ev->system, "kmem") && ev->name) {
		for (size_t i = 0; i < PK_ARRAY_SIZE(kmem); i++)
			if (!strcmp(ev->name, kmem[i]))
				ev->plugin = TFP_KMEM;
		if (ev->plugin == TFP_NONE)
			return;
		ok = ev->ok && bind_fields(ev, cs, 1);
	} else if (ev->plugin == TFP_BPRINT || ev->plugin == TFP_FALLBACK) {
		return;
	} else if (!strcmp(ev->system, "kvm") || !strcmp(ev->system, "kvmmmu")) {
		ok = false;
	} else {
		for (size_t i = 0; i < PK_ARRAY_SIZE(other); i++)
			if (named(ev, other[i][0], other[i][1]))
				ok = false;
		if (ok)
			return;
	}
	if (!ok) {
		ev->plugin = TFP_FALLBACK;
		ev->why = "plugin not reimplemented";
	}
}

void pk__tf_bprint_bind(struct tf_event *ev)
{
	static const char *const bp[] = { "ip", "fmt", "buf" };

	ev->plugin = TFP_BPRINT;
	ev->pf[0] = pk__tf_find_field(ev, bp[0]);
	ev->pf[1] = pk__tf_find_field(ev, bp[1]);
	ev->pf[2] = pk__tf_find_field(ev, bp[2]);
	for (int i = 0; i < 2; i++)
		if (ev->pf[i] < 0 || ev->fields[ev->pf[i]].size != 8)
			ev->plugin = TFP_FALLBACK;
	if (ev->pf[2] < 0)
		ev->plugin = TFP_FALLBACK;
	if (ev->plugin == TFP_FALLBACK)
		ev->why = "bprint fields";
}

/* ---- printing helpers ---- */

struct pctx {
	const struct tf_event *ev;
	struct tf_env *env;
	const uint8_t *data;
	uint32_t size;
	struct tf_out *o;
	bool fb;
};

static uint64_t val(struct pctx *c, int k)
{
	const struct tf_field *f = &c->ev->fields[c->ev->pf[k]];
	if ((uint64_t)f->off + f->size > c->size) {
		c->fb = true;
		return 0;
	}
	return pk__tf_field_u64(c->env, f, c->data);
}

static void puts_(struct pctx *c, const char *s, size_t n)
{
	if (tf_out_reserve(c->o, n)) {
		c->fb = true;
		return;
	}
	memcpy(c->o->p + c->o->len, s, n);
	c->o->len += n;
}

static void putz(struct pctx *c, const char *s)
{
	puts_(c, s, strlen(s));
}

static void put_lld(struct pctx *c, int64_t v)
{
	char b[24], *p = b;
	if (v < 0) {
		*p++ = '-';
		p = pk__tf_put_u64(p, -(uint64_t)v);
	} else {
		p = pk__tf_put_u64(p, (uint64_t)v);
	}
	puts_(c, b, (size_t)(p - b));
}

static void put_llu(struct pctx *c, uint64_t v)
{
	char b[24];
	puts_(c, b, (size_t)(pk__tf_put_u64(b, v) - b));
}

static void put_hex(struct pctx *c, uint64_t v, int min)
{
	char b[24], *p;
	int n;
	memcpy(b, "0x", 2);
	p = pk__tf_put_hex(b + 2, v, false);
	n = (int)(p - b - 2);
	if (n < min) {
		memmove(b + 2 + (min - n), b + 2, (size_t)n);
		memset(b + 2, '0', (size_t)(min - n));
		p += min - n;
	}
	puts_(c, b, (size_t)(p - b));
}

/* "%.*s" of a comm field, registered for PID as the sched plugin does */
static void comm(struct pctx *c, int k, int pid)
{
	const struct tf_field *f = &c->ev->fields[c->ev->pf[k]];
	if ((uint64_t)f->off + f->size > c->size) {
		c->fb = true;
		return;
	}
	const char *s = (const char *)c->data + f->off;
	const char *z = memchr(s, 0, f->size);
	size_t n = z ? (size_t)(z - s) : f->size;
	puts_(c, s, n);
	if (!c->env->frozen && pk__tf_comm_add(c->env, pid, s, n))
		c->fb = true;
	puts_(c, ":", 1);
}

static void state(struct pctx *c, int v)
{
	static const char st[] = "SDTtZXxW";
	bool found = false;

	for (int i = 0; i < 8; i++) {
		if (!(v & (1 << i)))
			continue;
		if (found)
			puts_(c, "|", 1);
		found = true;
		puts_(c, &st[i], 1);
	}
	if (!found)
		puts_(c, "R", 1);
}

/* tep_print_func_field: "NAME/0x(start - addr)" or "0x%08llx" */
static void func(struct pctx *c, uint64_t v)
{
	const struct pk_ksym *s = pk__tf_sym_find(c->env, v);
	char b[160], *p = b;

	putz(c, " function=");
	if (!s) {
		put_hex(c, v, 8);
		return;
	}
	size_t n = s->len;
	if (n > 127)
		n = 127;
	memcpy(p, s->name, n);
	p += n;
	memcpy(p, "/0x", 3);
	p = pk__tf_put_hex(p + 3, s->addr - v, false);
	puts_(c, b, (size_t)PK_MIN(p - b, 127));
}

static void sched_switch(struct pctx *c)
{
	uint64_t v = val(c, 0);
	if (c->ev->pf[1] >= 0)
		comm(c, 1, (int)v);
	put_lld(c, (int64_t)v);
	putz(c, " [");
	put_lld(c, (int)val(c, 2));
	putz(c, "] ");
	state(c, (int)val(c, 3));
	putz(c, " ==> ");
	v = val(c, 4);
	if (c->ev->pf[5] >= 0)
		comm(c, 5, (int)v);
	put_lld(c, (int64_t)v);
	putz(c, " [");
	put_lld(c, (int)val(c, 6));
	putz(c, "]");
}

static void sched_wakeup(struct pctx *c)
{
	uint64_t v = val(c, 0);
	if (c->ev->pf[1] >= 0)
		comm(c, 1, (int)v);
	put_lld(c, (int64_t)v);
	putz(c, " [");
	put_lld(c, (int64_t)val(c, 2));
	putz(c, "]");
	if (c->ev->pf[3] >= 0) {
		putz(c, " success=");
		put_lld(c, (int64_t)val(c, 3));
	}
	putz(c, " CPU:");
	v = val(c, 4);
	if (v < 100)
		puts_(c, "00", v >= 10 ? 1 : 2);
	put_llu(c, v);
}

static void hrtimer_addr(struct pctx *c)
{
	putz(c, "hrtimer=");
	put_hex(c, val(c, c->ev->pf[0] >= 0 ? 0 : 1), 0);
}

static void futex(struct pctx *c)
{
	static const struct {
		const char *name;
		char val, utime, uaddr2, val3;  /* 'x' hex, 'u' dec, 0 none */
	} ops[] = {
		{ "FUTEX_WAIT", 'x', 'x', 0, 0 },
		{ "FUTEX_WAKE", 'u', 0, 0, 0 },
		{ "FUTEX_FD", 'u', 0, 0, 0 },
		{ "FUTEX_REQUEUE", 'u', 'u', 'x', 0 },
		{ "FUTEX_CMP_REQUEUE", 'u', 'u', 'x', 'x' },
		{ "FUTEX_WAKE_OP", 'u', 'u', 'x', 'x' },
		{ "FUTEX_LOCK_PI", 0, 'x', 0, 0 },
		{ "FUTEX_UNLOCK_PI", 0, 0, 0, 0 },
		{ "FUTEX_TRYLOCK_PI", 0, 0, 0, 0 },
		{ "FUTEX_WAIT_BITSET", 'x', 'x', 0, 'x' },
		{ "FUTEX_WAKE_BITSET", 'u', 0, 0, 'x' },
		{ "FUTEX_WAIT_REQUEUE_PI", 'x', 'x', 'x', 'x' },
		{ "FUTEX_CMP_REQUEUE_PI", 'u', 'u', 'x', 'x' },
	};
	uint64_t a[6];
	for (int i = 0; i < 6; i++)
		a[i] = val(c, i);
	uint64_t cmd = a[1] & ~(uint64_t)(128 | 256);
	if (cmd >= PK_ARRAY_SIZE(ops)) {
		c->fb = true;
		return;
	}
	putz(c, "op=");
	putz(c, ops[cmd].name);
	if (a[1] & 128)
		putz(c, "|FUTEX_PRIVATE_FLAG");
	if (a[1] & 256)
		putz(c, "|FUTEX_CLOCK_REALTIME");
	putz(c, " uaddr=");
	put_hex(c, a[0], 0);
	const char f[4] = { ops[cmd].val, ops[cmd].utime, ops[cmd].uaddr2,
			    ops[cmd].val3 };
	static const char *const name[4] = { " val=", " utime=", " uaddr2=",
					     " val3=" };
	static const char *const name2[4] = { " val=", " val2=", " uaddr2=",
					      " val3=" };
	static const int idx[4] = { 2, 3, 4, 5 };
	for (int i = 0; i < 4; i++) {
		if (!f[i])
			continue;
		putz(c, f[i] == 'u' ? name2[i] : name[i]);
		if (f[i] == 'u')
			put_llu(c, a[idx[i]]);
		else
			put_hex(c, a[idx[i]], 8);
	}
}

int pk__tf_plugin_print(const struct tf_event *ev, struct tf_env *env,
		    const uint8_t *data, uint32_t size, struct tf_out *out)
{
	struct pctx c = { ev, env, data, size, out, false };

	switch (ev->plugin) {
	case TFP_SCHED_SWITCH:
		sched_switch(&c);
		break;
	case TFP_SCHED_WAKEUP:
		sched_wakeup(&c);
		break;
	case TFP_HRTIMER_START:
		hrtimer_addr(&c);
		func(&c, val(&c, 2));
		putz(&c, " expires=");
		put_llu(&c, val(&c, 3));
		putz(&c, " softexpires=");
		put_llu(&c, val(&c, 4));
		break;
	case TFP_HRTIMER_EXPIRE:
		hrtimer_addr(&c);
		putz(&c, " now=");
		put_llu(&c, val(&c, 2));
		func(&c, val(&c, 3));
		break;
	case TFP_FUTEX:
		futex(&c);
		break;
	case TFP_KMEM: {
		/* plugin_kmem: "(%s+0x%x) " when the call site resolves */
		uint64_t v = val(&c, 0);
		const struct pk_ksym *s = c.fb ? NULL : pk__tf_sym_find(env, v);
		if (s) {
			char b[24], *p = b;
			puts_(&c, "(", 1);
			puts_(&c, s->name, s->len);
			memcpy(p, "+0x", 3);
			p = pk__tf_put_hex(p + 3, (uint32_t)(v - s->addr), false);
			*p++ = ')';
			*p++ = ' ';
			puts_(&c, b, (size_t)(p - b));
		}
		return c.fb ? TF_FALLBACK : 1;  /* 1: the print fmt follows */
	}
	default:
		return TF_FALLBACK;
	}
	return c.fb ? TF_FALLBACK : 0;
}

void pk__tf_plugin_register(const struct tf_event *ev, struct tf_env *env,
			const uint8_t *data, uint32_t size)
{
	/* sched_switch: prev 0/1, next 4/5; sched_wakeup: 0/1 */
	static const int pairs[2][2] = { { 0, 1 }, { 4, 5 } };
	int n = ev->plugin == TFP_SCHED_SWITCH ? 2
		: ev->plugin == TFP_SCHED_WAKEUP ? 1 : 0;

	for (int i = 0; i < n; i++) {
		int pf = ev->pf[pairs[i][0]], cf = ev->pf[pairs[i][1]];
		if (pf < 0 || cf < 0)
			continue;
		const struct tf_field *p = &ev->fields[pf], *c = &ev->fields[cf];
		if ((uint64_t)p->off + p->size > size ||
		    (uint64_t)c->off + c->size > size)
			return;         /* the printer falls back: no more */
		int pid = (int)pk__tf_field_u64(env, p, data);
		const char *s = (const char *)data + c->off;
		const char *z = memchr(s, 0, c->size);
		pk__tf_comm_add(env, pid, s, z ? (size_t)(z - s) : c->size);
	}
}

bool pk__tf_uses_syms(const struct tf_event *ev)
{
	switch (ev->plugin) {
	case TFP_HRTIMER_START: case TFP_HRTIMER_EXPIRE: case TFP_KMEM:
		return true;
	case TFP_NONE:
		for (int i = 0; i < ev->nr_convs; i++)
			if (ev->convs[i].kind == TC_SYM)
				return true;
		return false;
	default:
		return false;
	}
}

void pk__tf_plugin_comms(const struct tf_event *ev, struct tf_env *env,
		     const uint8_t *data, uint32_t size)
{
	struct tf_out scratch = { 0 };
	/* printing registers the comms; the text is thrown away */
	if (ev->plugin == TFP_SCHED_SWITCH || ev->plugin == TFP_SCHED_WAKEUP)
		pk__tf_plugin_print(ev, env, data, size, &scratch);
	pk__tf_out_fini(&scratch);
}
