/* SPDX-License-Identifier: MIT */
/*
 * pk_evlist_parse: perf's event syntax -> perf_event_attr, as perf 6.1's
 * parser builds it (event_attr_init defaults, modifiers, groups). The
 * grammar, by hand (recursive descent over the tokens of lex.c):
 *
 *   list   := item (',' item)*
 *   item   := '{' event (',' event)* '}' [':' MODS] | event
 *   event  := body [':'] [MODS]
 *   body   := SYM [opt_terms] | CACHE_TYPE ['-' OPRES ['-' OPRES]] [terms]
 *           | 'mem:' NUM ['/' NUM] [':' rwx] | RAW [terms]
 *           | NUM ':' NUM [terms] | NAME ['-' NAME] ':' NAME [terms]
 *           | NAME '/' pmu_terms '/' | NAME (an event alias of some PMU)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "event/parse.h"
#include "event/tables.h"

int pk__perr(struct pk_parser *P, int code, int pos, int len,
	     const char *fmt, ...)
{
	va_list ap;

	if (P->failed || !P->err)
		goto out;
	P->err->pos = pos + P->err_off;
	P->err->len = len > 0 ? len : 1;
	va_start(ap, fmt);
	vsnprintf(P->err->msg, sizeof(P->err->msg), fmt, ap);
	va_end(ap);
	for (char *c = P->err->msg; *c; c++) /* one printable line */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
out:
	P->failed = true;
	return code;
}

/* The error about to be recorded names an unknown event: its token gets
 * the nearest known name as ERR->hint. */
static void want_hint(struct pk_parser *P)
{
	if (!P->failed)
		P->hint = true;
}

void pk__peek(struct pk_parser *P)
{
	pk__lex(P->s, P->pos, P->terms_ctx, &P->tk);
}

void pk__advance(struct pk_parser *P)
{
	P->pos = P->tk.pos + P->tk.len;
	pk__peek(P);
}

static int nomem(struct pk_parser *P)
{
	return pk__perr(P, -ENOMEM, P->tk.pos, 1, "out of memory");
}

/* perf's display name: the event's text, like perf's lexer takes it:
 * [^,{}/]+ or [^,{}/]+/[^/]*\/[^,{}/]* */
static int name_extent(const char *s, int start)
{
	int i = start;

	i += (int)strcspn(s + i, ",{}/");
	if (s[i] == '/' && strchr(s + i + 1, '/')) {
		i = (int)(strchr(s + i + 1, '/') - s) + 1;
		i += (int)strcspn(s + i, ",{}/");
	}
	return i - start;
}

static void attr_init(struct perf_event_attr *a, uint32_t type,
		      uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
	a->exclude_guest = 1; /* perf's event_attr_init: not a guest tool */
}

static const char *pmu_name_for(uint32_t type)
{
	struct pk_pmu *p;

	switch (type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		p = pk__pmu_by_type(PERF_TYPE_RAW);
		return p ? p->name : "cpu";
	case PERF_TYPE_SOFTWARE:
		return "software";
	case PERF_TYPE_TRACEPOINT:
		return "tracepoint";
	case PERF_TYPE_BREAKPOINT:
		return "breakpoint";
	}
	p = pk__pmu_by_type(type);
	return p ? p->name : "";
}

static struct pk_evsel *new_event(struct pk_parser *P, uint32_t type,
				  uint64_t config, const char *name)
{
	struct perf_event_attr a;
	struct pk_evsel *e;
	char *pn;

	attr_init(&a, type, config);
	e = pk__evsel_new(&a, name);
	if (!e)
		return NULL;
	pn = pk__strdup(pmu_name_for(type));
	if (!pn || pk__evlist_append(P->out, e)) {
		pk__free(pn);
		pk__evsel_free(e);
		return NULL;
	}
	pk__free(e->pmu_name);
	e->pmu_name = pn;
	return e;
}

/* ---- modifiers (perf's rules, including its defaults) ---- */

struct mods {
	int eu, ek, eh, eH, eG, eI, precise, exclude_GH;
	int precise_max, sample_read, pinned, exclusive, weak, bpf;
};

static int mods_check(struct pk_parser *P, const char *m, int len, int pos)
{
	int precise = 0;

	for (int i = 0; i < len; i++) {
		if (m[i] == 'p') {
			precise++;
			continue;
		}
		if (memchr(m + i + 1, m[i], (size_t)(len - i - 1)))
			return pk__perr(P, PK_ERR_SYNTAX, pos, len,
					"bad modifier '%.*s': '%c' given twice",
					len, m, m[i]);
	}
	if (precise > 3)
		return pk__perr(P, PK_ERR_SYNTAX, pos, len,
				"bad modifier '%.*s': at most 3 'p' (precise_ip 0-3)",
				len, m);
	return 0;
}

static void mods_compute(struct mods *o, const char *m, int len,
			 const struct pk_evsel *e)
{
	const struct perf_event_attr *a = e ? &e->attr : NULL;
	int exclude;

	memset(o, 0, sizeof(*o));
	if (a) {
		o->eu = a->exclude_user;
		o->ek = a->exclude_kernel;
		o->eh = a->exclude_hv;
		o->eH = a->exclude_host;
		o->eG = a->exclude_guest;
		o->eI = a->exclude_idle;
		o->precise = a->precise_ip;
		o->pinned = a->pinned;
		o->exclusive = a->exclusive;
		o->exclude_GH = e->exclude_GH;
	}
	exclude = o->eu | o->ek | o->eh;
	for (int i = 0; i < len; i++) {
		switch (m[i]) {
		case 'u': case 'k': case 'h':
			if (!exclude)
				exclude = o->eu = o->ek = o->eh = 1;
			if (m[i] == 'u' && !o->exclude_GH)
				o->eG = 1;
			*(m[i] == 'u' ? &o->eu : m[i] == 'k' ? &o->ek :
			  &o->eh) = 0;
			break;
		case 'G': case 'H':
			if (!o->exclude_GH)
				o->exclude_GH = o->eG = o->eH = 1;
			*(m[i] == 'G' ? &o->eG : &o->eH) = 0;
			break;
		case 'I': o->eI = 1; break;
		case 'p':
			o->precise++;
			if (!o->exclude_GH)
				o->eG = 1;
			break;
		case 'P': o->precise_max = 1; break;
		case 'S': o->sample_read = 1; break;
		case 'D': o->pinned = 1; break;
		case 'e': o->exclusive = 1; break;
		case 'W': o->weak = 1; break;
		case 'b': o->bpf = 1; break;
		}
	}
}

static void set_flag(struct pk_evsel *e, unsigned int f, int on)
{
	if (on)
		e->flags |= f;
	else
		e->flags &= ~f;
}

static int mods_apply(struct pk_parser *P, int first, const char *m,
		      int len, int pos, bool group)
{
	struct mods o;
	int err = mods_check(P, m, len, pos);

	if (err)
		return err;
	for (int i = first; i < P->out->nr; i++) {
		struct pk_evsel *e = P->out->entries[i];
		struct perf_event_attr *a = &e->attr;

		mods_compute(&o, m, len, group ? e : NULL);
		if (o.precise > 3)
			return pk__perr(P, PK_ERR_SYNTAX, pos, len,
					"bad modifier: precise_ip above 3");
		a->exclude_user = o.eu & 1;
		a->exclude_kernel = o.ek & 1;
		a->exclude_hv = o.eh & 1;
		a->precise_ip = o.precise & 3;
		a->exclude_host = o.eH & 1;
		a->exclude_guest = o.eG & 1;
		a->exclude_idle = o.eI & 1;
		e->exclude_GH = o.exclude_GH;
		set_flag(e, PK_EVSEL_SAMPLE_READ, o.sample_read);
		set_flag(e, PK_EVSEL_PRECISE_MAX, o.precise_max);
		set_flag(e, PK_EVSEL_WEAK_GROUP, o.weak);
		set_flag(e, PK_EVSEL_BPF_COUNTER, o.bpf);
		if (!group || i == first) {
			a->pinned = o.pinned & 1;
			a->exclusive = o.exclusive & 1;
		}
	}
	return 0;
}

/* Optional ':' then optional modifiers, applied to events [first, nr). */
static int event_mods(struct pk_parser *P, int first)
{
	bool colon = false;

	if (P->tk.t == TK_COLON) {
		colon = true;
		pk__advance(P);
	}
	if (P->tk.t == TK_MOD) {
		int err = mods_apply(P, first, P->s + P->tk.pos, P->tk.len,
				     P->tk.pos, false);

		if (err)
			return err;
		pk__advance(P);
	} else if (colon && P->tk.t != TK_END && P->tk.t != TK_COMMA &&
		   P->tk.t != TK_RBRACE) {
		int n = (int)strcspn(P->s + P->tk.pos, ",{}:/");

		return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos, n,
				"bad modifier '%.*s' (valid: u k h G H I p pp ppp P S D e W b)",
				n, P->s + P->tk.pos);
	}
	return 0;
}

/* Parses "/terms/" when the current token is '/', applies them with SET. */
static int opt_terms(struct pk_parser *P, int first, enum term_set set)
{
	struct pk_terms ts = { 0 };
	int err;

	if (P->tk.t != TK_SLASH)
		return 0;
	P->terms_ctx = 1;
	pk__advance(P);
	err = pk__terms_parse(P, &ts, false);
	for (int i = first; !err && i < P->out->nr; i++) {
		for (int j = 0; !err && j < ts.nr; j++)
			err = pk__term_generic(P, P->out->entries[i], &ts.v[j],
					       set);
		if (!err)
			pk__terms_finish(P->out->entries[i], &ts);
	}
	pk__terms_fini(&ts);
	return err;
}

static int group_body(struct pk_parser *P, int first, int open);

/* ---- event kinds ---- */

static int ev_symbol(struct pk_parser *P)
{
	const struct pk_sym_event *se = &pk__sym_events[P->tk.v];
	int first = P->out->nr;

	struct pk_evsel *e = new_event(P, se->type, se->config, NULL);

	if (!e)
		return nomem(P);
	e->tool = se->tool;
	pk__advance(P);
	return opt_terms(P, first, TS_LEGACY);
}

static int ev_cache(struct pk_parser *P, int start)
{
	int type = (int)P->tk.v, op = -1, res = -1, end;
	int first = P->out->nr;
	struct pk_evsel *e;
	char name[128];

	end = P->tk.pos + P->tk.len;
	pk__advance(P);
	for (int i = 0; i < 2 && P->tk.t == TK_DASH; i++) {
		const char *w;
		int k;

		pk__advance(P);
		if (P->tk.t != TK_CACHE_OPRES) {
			int n = name_extent(P->s, start);

			return pk__perr(P, PK_ERR_UNKNOWN, P->tk.pos,
					PK_MAX(P->tk.len, 1),
					"unknown hw-cache event '%.*s'", n,
					P->s + start);
		}
		w = P->s + P->tk.pos;
		end = P->tk.pos + P->tk.len;
		k = pk__cache_lookup(w, pk__cache_ops,
				     PERF_COUNT_HW_CACHE_OP_MAX);
		if (op < 0 && k >= 0) {
			if (!pk__cache_op_valid(type, k))
				return pk__perr(P, PK_ERR_UNKNOWN, P->tk.pos,
						P->tk.len,
						"hw-cache '%s' has no '%.*s' operation",
						pk__cache_types[type][0],
						P->tk.len, w);
			op = k;
		} else if (res < 0) {
			k = pk__cache_lookup(w, pk__cache_results,
					     PERF_COUNT_HW_CACHE_RESULT_MAX);
			if (k >= 0)
				res = k;
		}
		pk__advance(P);
	}
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (res < 0)
		res = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	snprintf(name, sizeof(name), "%.*s", end - start, P->s + start);
	e = new_event(P, PERF_TYPE_HW_CACHE, (uint64_t)type |
		      (uint64_t)op << 8 | (uint64_t)res << 16, name);
	if (!e)
		return nomem(P);
	return opt_terms(P, first, TS_LEGACY);
}

static int bp_type(struct pk_parser *P, struct perf_event_attr *a)
{
	const char *t = P->s + P->tk.pos;

	a->bp_type = 0;
	for (int i = 0; i < P->tk.len; i++) {
		unsigned int bit = t[i] == 'r' ? HW_BREAKPOINT_R :
				   t[i] == 'w' ? HW_BREAKPOINT_W :
				   t[i] == 'x' ? HW_BREAKPOINT_X : 0;

		if (!bit || (a->bp_type & bit) || P->tk.len > 3)
			return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos, P->tk.len,
					"bad breakpoint access '%.*s' (r, w, x, each once)",
					P->tk.len, t);
		a->bp_type |= bit;
	}
	pk__advance(P);
	return 0;
}

static bool all_rwx(const char *s, int len)
{
	return len > 0 && (int)strspn(s, "rwx") >= len;
}

static int ev_mem(struct pk_parser *P, int start)
{
	struct perf_event_attr *a;
	struct pk_evsel *e;
	uint64_t addr, len = 0;
	char name[128];
	int err, n;

	pk__advance(P);
	if (P->tk.t != TK_NUM)
		return pk__perr(P, P->tk.t == TK_OVERFLOW ? PK_ERR_RANGE :
				PK_ERR_SYNTAX, P->tk.pos, PK_MAX(P->tk.len, 1),
				"expected a breakpoint address after 'mem:'");
	addr = P->tk.v;
	pk__advance(P);
	if (P->tk.t == TK_SLASH) {
		pk__advance(P);
		if (P->tk.t != TK_NUM)
			return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos,
					PK_MAX(P->tk.len, 1),
					"expected a breakpoint length after '/'");
		len = P->tk.v;
		pk__advance(P);
	}
	n = (int)strcspn(P->s + start, ",{}/");
	snprintf(name, sizeof(name), "%.*s", n, P->s + start);
	e = new_event(P, PERF_TYPE_BREAKPOINT, 0, name);
	if (!e)
		return nomem(P);
	a = &e->attr;
	a->bp_addr = addr;
	a->bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	if (P->tk.t == TK_COLON) {
		struct pk_token save = P->tk;
		int spos = P->pos;

		pk__advance(P);
		if (P->tk.t == TK_NAME &&
		    all_rwx(P->s + P->tk.pos, P->tk.len)) {
			err = bp_type(P, a);
			if (err)
				return err;
		} else {
			P->tk = save; /* the ':' before event modifiers */
			P->pos = spos;
		}
	}
	if (!len)
		len = a->bp_type == HW_BREAKPOINT_X ? sizeof(long) :
		      HW_BREAKPOINT_LEN_4;
	a->bp_len = len;
	a->sample_period = 1;
	return 0;
}

static int ev_raw(struct pk_parser *P)
{
	int first = P->out->nr;

	if (!new_event(P, PERF_TYPE_RAW, P->tk.v, NULL))
		return nomem(P);
	pk__advance(P);
	return opt_terms(P, first, TS_LEGACY);
}

static int ev_numeric(struct pk_parser *P)
{
	uint64_t type = P->tk.v;
	int first = P->out->nr, pos = P->tk.pos;

	pk__advance(P);
	if (P->tk.t != TK_COLON)
		return pk__perr(P, PK_ERR_SYNTAX, pos, P->tk.pos - pos,
				"expected TYPE:CONFIG");
	pk__advance(P);
	if (P->tk.t != TK_NUM || type > UINT32_MAX)
		return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos,
				PK_MAX(P->tk.len, 1),
				"expected TYPE:CONFIG numbers");
	if (!new_event(P, (uint32_t)type, P->tk.v, NULL))
		return nomem(P);
	pk__advance(P);
	return opt_terms(P, first, TS_LEGACY);
}

struct tp_ctx {
	struct pk_parser *P;
	int err;
};

static int tp_add(const char *sys, const char *ev, long long id, void *arg)
{
	struct tp_ctx *c = arg;
	struct pk_evsel *e;
	char name[512];

	snprintf(name, sizeof(name), "%s:%s", sys, ev);
	e = new_event(c->P, PERF_TYPE_TRACEPOINT, (uint64_t)id, name);
	if (!e)
		return -ENOMEM;
	e->attr.sample_period = 1;
	e->attr.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
	return 0;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int ev_tracepoint(struct pk_parser *P, int start, int sys_end,
			 int ev_pos, int ev_len)
{
	struct tp_ctx c = { P, 0 };
	char sys[256], ev[256];
	int first = P->out->nr, n, full = ev_pos + ev_len - start;

	if (sys_end - start >= (int)sizeof(sys) || ev_len >= (int)sizeof(ev))
		return pk__perr(P, PK_ERR_RANGE, start, full,
				"tracepoint name too long");
	snprintf(sys, sizeof(sys), "%.*s", sys_end - start, P->s + start);
	snprintf(ev, sizeof(ev), "%.*s", ev_len, P->s + ev_pos);
	if (is_glob(sys) || is_glob(ev)) {
		n = pk__tracepoint_glob(sys, ev, tp_add, &c);
		if (n == 0)
			return pk__perr(P, PK_ERR_UNKNOWN, start, full,
					"no tracepoint matches '%s:%s'", sys,
					ev);
	} else {
		long long id = pk__tracepoint_id(sys, ev);

		n = id < 0 ? (int)id : tp_add(sys, ev, id, &c);
		if (n == -ENOENT) {
			want_hint(P);
			return pk__perr(P, PK_ERR_UNKNOWN, start, full,
					"unknown tracepoint '%s:%s'%s", sys, ev,
					pk__tracefs() ? "" :
					" (tracefs not found)");
		}
	}
	if (n == -EACCES)
		return pk__perr(P, n, start, full, "tracepoint '%s:%s': tracefs is "
				"not accessible to this user: run as root, or "
				"give the user access to tracefs (its uid=, gid= "
				"and mode= mount options); sampling raw "
				"tracepoint data also needs CAP_PERFMON or "
				"kernel.perf_event_paranoid=-1", sys, ev);
	if (n < 0)
		return pk__perr(P, n, start, full, "tracepoint '%s:%s': %s",
				sys, ev, strerror(-n));
	pk__advance(P);
	return opt_terms(P, first, TS_TRACEPOINT);
}

static int pmu_event(struct pk_parser *P, struct pk_pmu *pmu,
		     const struct pk_terms *ts, const char *name)
{
	struct pk_evsel *e = new_event(P, pmu->type, 0, name);
	int err;

	if (!e)
		return nomem(P);
	if (pmu->has_default)
		e->attr.config = pmu->default_config;
	pk__free(e->pmu_name);
	e->pmu_name = pk__strdup(pmu->name);
	if (!e->pmu_name)
		return nomem(P);
	err = pk__terms_pmu(P, e, pmu, ts);
	if (err)
		return err;
	if (pmu->cpus && pmu->cpus[0] && !e->pmu_cpus) {
		e->pmu_cpus = pk_cpu_map_new(pmu->cpus);
		if (!e->pmu_cpus)
			pk_debug("pmu '%s': bad cpumask '%s'", pmu->name,
				 pmu->cpus);
	}
	return 0;
}

/* PMUs NAME stands for: itself, or NAME_<digits> ("uncore_imc" ->
 * uncore_imc_0..), "uncore_" being optional. Fills OUT; count. */
static int pmus_matching(const char *name, struct pk_pmu **out, int max)
{
	struct pk_pmu *all = NULL, *p = pk__pmu_find(name);
	int n, k = 0;
	size_t nl = strlen(name);

	if (p) {
		out[0] = p;
		return 1;
	}
	n = pk__pmu_all(&all);
	for (int i = 0; i < n && k < max; i++) {
		const char *pn = all[i].name;

		if (!strncmp(pn, "uncore_", 7) && strncmp(name, "uncore_", 7))
			pn += 7;
		if (strncmp(pn, name, nl) || pn[nl] != '_' || !pn[nl + 1] ||
		    strspn(pn + nl + 1, "0123456789") != strlen(pn + nl + 1))
			continue;
		if (!pk__pmu_load(&all[i]))
			out[k++] = &all[i];
	}
	return k;
}

/* Every PMU with an event alias NAME (loaded). */
static int alias_pmus(const char *name, struct pk_pmu **out, int max)
{
	struct pk_pmu *all = NULL;
	int n = pk__pmu_all(&all), k = 0;

	for (int i = 0; i < n && k < max; i++) {
		if (pk__pmu_load(&all[i]))
			continue;
		if (pk__pmu_alias(&all[i], name))
			out[k++] = &all[i];
	}
	return k;
}

#define MAX_PMU_MATCH 64

/* A PMU ("pmu/terms/") or an event alias ("tsc", "mem-loads") spelled at
 * [pos, pos + plen). */
static int ev_pmu(struct pk_parser *P, int start, int pos, int plen)
{
	struct pk_pmu *pmus[MAX_PMU_MATCH];
	struct pk_terms ts = { 0 };
	char pname[128], name[512];
	int n, err = 0;
	bool alias = false;

	snprintf(pname, sizeof(pname), "%.*s", plen, P->s + pos);
	snprintf(name, sizeof(name), "%.*s", name_extent(P->s, start),
		 P->s + start);
	P->pos = pos + plen; /* past the name */
	pk__peek(P);
	n = plen < (int)sizeof(pname) ? pmus_matching(pname, pmus,
						       MAX_PMU_MATCH) : 0;
	if (!n) {
		n = alias_pmus(pname, pmus, MAX_PMU_MATCH);
		alias = true;
	}
	if (!n && P->tk.t == TK_SLASH)
		return pk__perr(P, PK_ERR_UNKNOWN, pos, plen,
				"unknown PMU '%s' (not in sysfs)", pname);
	if (!n) {
		want_hint(P);
		return pk__perr(P, PK_ERR_UNKNOWN, pos, plen,
				"unknown event '%s'", pname);
	}
	if (P->tk.t == TK_SLASH) {
		P->terms_ctx = 1;
		pk__advance(P);
		err = pk__terms_parse(P, &ts, false);
	}
	for (int i = 0; !err && i < n; i++) {
		struct pk_terms one = { 0 };
		struct pk_term *t = ts.v;

		if (alias) { /* the alias goes first, then the user's terms */
			one.v = pk__calloc((size_t)ts.nr + 1, sizeof(*one.v));
			if (!one.v) {
				err = nomem(P);
				break;
			}
			one.nr = one.cap = ts.nr + 1;
			one.v[0].kw = -1;
			one.v[0].num = 1;
			one.v[0].pos = one.v[0].vpos = pos;
			one.v[0].len = one.v[0].vlen = plen;
			snprintf(one.v[0].name, sizeof(one.v[0].name), "%.*s",
				 (int)sizeof(one.v[0].name) - 1, pname);
			if (ts.nr)
				memcpy(one.v + 1, t, (size_t)ts.nr * sizeof(*t));
		}
		err = pmu_event(P, pmus[i], alias ? &one : &ts, name);
		pk__free(one.v);
	}
	pk__terms_fini(&ts);
	return err;
}

/* An alias with dashes ("mem-loads", "topdown-fetch-bubbles"), which
 * perf's lexer also takes as one event name. */
static int dashed_alias(struct pk_parser *P, int start, int pos)
{
	struct pk_pmu *pmus[MAX_PMU_MATCH];
	char nm[128];
	int len = (int)strspn(P->s + pos, "abcdefghijklmnopqrstuvwxyz"
			      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");

	while (len > 1 && P->s[pos + len - 1] == '-')
		len--;
	if (len < (int)sizeof(nm)) {
		snprintf(nm, sizeof(nm), "%.*s", len, P->s + pos);
		if (alias_pmus(nm, pmus, MAX_PMU_MATCH) > 0)
			return ev_pmu(P, start, pos, len);
	}
	len = name_extent(P->s, start);
	want_hint(P);
	return pk__perr(P, PK_ERR_UNKNOWN, start, len, "unknown event '%.*s'",
			len, P->s + start);
}

static int ev_name(struct pk_parser *P, int start)
{
	struct pk_token first = P->tk, t2, t3;
	int spos = P->pos;

	pk__advance(P);
	t2 = P->tk;
	if (t2.t == TK_DASH || t2.t == TK_COLON) {
		int sys_end = first.pos + first.len;

		if (t2.t == TK_DASH) {
			pk__advance(P);
			if (P->tk.t != TK_NAME)
				goto not_tp;
			sys_end = P->tk.pos + P->tk.len;
			pk__advance(P);
			if (P->tk.t != TK_COLON)
				goto not_tp;
		}
		pk__advance(P);
		t3 = P->tk;
		if (t3.t == TK_NAME)
			return ev_tracepoint(P, start, sys_end, t3.pos,
					     t3.len);
not_tp:
		if (t2.t == TK_DASH)
			return dashed_alias(P, start, first.pos);
	}
	P->pos = spos; /* PMU or alias: back to the name */
	P->tk = first;
	return ev_pmu(P, start, first.pos, first.len);
}

static int parse_event(struct pk_parser *P, bool in_group)
{
	int start = P->tk.pos, first = P->out->nr, err, n;
	char *name;

	switch (P->tk.t) {
	case TK_SYM: err = ev_symbol(P); break;
	case TK_CACHE_TYPE: err = ev_cache(P, start); break;
	case TK_MEM: err = ev_mem(P, start); break;
	case TK_RAW: err = ev_raw(P); break;
	case TK_NUM: err = ev_numeric(P); break;
	case TK_NAME: err = ev_name(P, start); break;
	case TK_OVERFLOW:
		return pk__perr(P, PK_ERR_RANGE, P->tk.pos, P->tk.len,
				"number does not fit in 64 bits");
	case TK_LBRACE:
		return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos, 1,
				in_group ? "groups do not nest" :
				"unexpected '{'");
	case TK_END:
	case TK_COMMA:
	case TK_RBRACE:
		return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos, 1,
				"expected an event");
	default:
		n = name_extent(P->s, start);
		want_hint(P);
		return pk__perr(P, PK_ERR_UNKNOWN, start, PK_MAX(n, 1),
				"unknown event '%.*s'", PK_MAX(n, 1),
				P->s + start);
	}
	if (err)
		return err;
	err = event_mods(P, first);
	if (err)
		return err;
	/* perf names an event by its text unless the kind named it */
	n = name_extent(P->s, start);
	while (n > 1 && strchr(" \t\n\r", P->s[start + n - 1]))
		n--;
	name = pk__strndup(P->s + start, (size_t)n);
	if (!name)
		return nomem(P);
	for (int i = first; i < P->out->nr; i++) {
		struct pk_evsel *e = P->out->entries[i];

		if (!e->name[0] && pk_evsel_set_name(e, name)) {
			pk__free(name);
			return nomem(P);
		}
	}
	pk__free(name);
	if (P->tk.t == TK_END || P->tk.t == TK_COMMA ||
	    (in_group && P->tk.t == TK_RBRACE))
		return 0;
	n = (int)strcspn(P->s + P->tk.pos, ",{}");
	return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos, PK_MAX(n, 1),
			"unexpected '%.*s' after event", PK_MAX(n, 1),
			P->s + P->tk.pos);
}

static int parse_group(struct pk_parser *P)
{
	int first = P->out->nr, open = P->tk.pos, err;
	char *gname = NULL;

	if (P->tk.t == TK_NAME) { /* name{...} */
		gname = pk__strndup(P->s + P->tk.pos, (size_t)P->tk.len);
		if (!gname)
			return nomem(P);
		pk__advance(P);
		open = P->tk.pos;
	}
	err = group_body(P, first, open);
	if (!err && gname && P->out->nr > first) {
		P->out->entries[first]->group_name = gname;
		gname = NULL;
	}
	pk__free(gname);
	return err;
}

static int group_body(struct pk_parser *P, int first, int open)
{
	int err;

	pk__advance(P);
	for (;;) {
		err = parse_event(P, true);
		if (err)
			return err;
		if (P->tk.t == TK_RBRACE)
			break;
		if (P->tk.t != TK_COMMA)
			return pk__perr(P, PK_ERR_SYNTAX, open, 1,
					"group opened here is not closed");
		pk__advance(P);
	}
	pk__advance(P);
	if (P->tk.t == TK_COLON) {
		pk__advance(P);
		if (P->tk.t != TK_MOD) {
			int n = (int)strcspn(P->s + P->tk.pos, ",{}");

			return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos,
					PK_MAX(n, 1),
					"bad group modifier '%.*s'", n,
					P->s + P->tk.pos);
		}
		err = mods_apply(P, first, P->s + P->tk.pos, P->tk.len,
				 P->tk.pos, true);
		if (err)
			return err;
		pk__advance(P);
	}
	if (P->tk.t != TK_END && P->tk.t != TK_COMMA) {
		int n = (int)strcspn(P->s + P->tk.pos, ",");

		return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos, PK_MAX(n, 1),
				"unexpected '%.*s' after group", PK_MAX(n, 1),
				P->s + P->tk.pos);
	}
	if (pk_evlist_group(P->out, first, P->out->nr - first))
		return pk__perr(P, PK_ERR_INTERNAL, open, 1, "bad group");
	return 0;
}

/* Is the current token a NAME directly followed by '{'? */
static bool named_group(struct pk_parser *P)
{
	return P->tk.t == TK_NAME && P->s[P->tk.pos + P->tk.len] == '{';
}

static int parse_list(struct pk_parser *P)
{
	int err;

	pk__peek(P);
	if (P->tk.t == TK_END)
		return pk__perr(P, PK_ERR_SYNTAX, 0, 1, "no event given");
	for (;;) {
		err = P->tk.t == TK_LBRACE || named_group(P) ?
		      parse_group(P) : parse_event(P, false);
		if (err)
			return err;
		if (P->tk.t == TK_END)
			return 0;
		pk__advance(P); /* ',' */
		if (P->tk.t == TK_END)
			return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos - 1, 1,
					"expected an event after ','");
	}
}

static int move_all(struct pk_evlist *dst, struct pk_evlist *src)
{
	int nr0 = dst->nr;

	for (int i = 0; i < src->nr; i++) {
		if (pk__evlist_append(dst, src->entries[i])) {
			dst->nr = nr0; /* back out: src still owns them */
			return -ENOMEM;
		}
	}
	src->nr = 0;
	return 0;
}

static int offer_event(const struct pk_event_info *info, void *arg)
{
	pk_nearest_add(arg, info->name);
	if (info->alias)
		pk_nearest_add(arg, info->alias);
	return 0;
}

/* ERR->hint: the known event name nearest to the token ERR points at. */
static void suggest(const char *str, struct pk_parse_error *err)
{
	struct pk_nearest near;
	char word[128];

	if (err->pos < 0 || err->len >= (int)sizeof(word) ||
	    (size_t)err->pos + (size_t)err->len > strlen(str))
		return;
	snprintf(word, sizeof(word), "%.*s", err->len, str + err->pos);
	pk_nearest_init(&near, word);
	pk_event_foreach(PK_EVCLASS_ALL & ~(PK_EVCLASS_PMU_FORMAT |
					    PK_EVCLASS_SYNTAX), NULL,
			 offer_event, &near);
	snprintf(err->hint, sizeof(err->hint), "%s", near.name);
}

int pk_evlist_parse(struct pk_evlist *evlist, const char *str,
		    struct pk_parse_error *err)
{
	struct pk_parser P = { .s = str, .err = err };
	int rc, n;

	if (err) {
		err->pos = -1;
		err->len = 0;
		err->msg[0] = '\0';
		err->hint[0] = '\0';
	}
	if (!evlist || !str)
		return -EINVAL;
	P.out = pk_evlist_new();
	if (!P.out)
		return -ENOMEM;
	rc = parse_list(&P);
	n = P.out->nr;
	if (!rc)
		rc = move_all(evlist, P.out);
	if (rc == -ENOMEM && !P.failed)
		pk__perr(&P, -ENOMEM, -1, 0, "out of memory");
	pk_evlist_free(P.out);
	if (rc == PK_ERR_UNKNOWN && P.hint && err)
		suggest(str, err);
	return rc ? rc : n;
}

/* True on an AMD processor (the vendor string of cpuid leaf 0). */
static bool cpu_is_amd(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return false;
	return b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163;
#else
	return false;
#endif
}

int pk_evlist_add_default(struct pk_evlist *evlist)
{
	int n = pk_evlist_parse(evlist, "cycles:P", NULL), idx;

	if (n < 0)
		return n;
	idx = pk_evlist_nr(evlist) - 1;
	pk_evsel_attr(pk_evlist_evsel(evlist, idx))->exclude_guest =
		!cpu_is_amd();
	return idx;
}
