/* SPDX-License-Identifier: MIT */
/*
 * Event terms: "/config=1,period=1000,event=0x3c,umask=1,tsc/". Generic
 * terms (perf's fixed keywords) are applied to the attribute directly, as
 * perf's parser plus its per-event config step would; PMU terms go through
 * the PMU's sysfs formats and aliases.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "base/base.h"
#include "event/parse.h"

void pk__terms_fini(struct pk_terms *t)
{
	pk__free(t->v);
	t->v = NULL;
	t->nr = t->cap = 0;
}

static struct pk_term *term_add(struct pk_terms *t)
{
	if (t->nr == t->cap) {
		int cap = t->cap ? t->cap * 2 : 8;
		struct pk_term *n = pk__realloc(t->v, (size_t)cap * sizeof(*n));

		if (!n)
			return NULL;
		t->v = n;
		t->cap = cap;
	}
	memset(&t->v[t->nr], 0, sizeof(t->v[0]));
	return &t->v[t->nr++];
}

static void copy_text(char *dst, size_t size, const char *s, int pos, int len)
{
	size_t n = PK_MIN((size_t)len, size - 1);

	memcpy(dst, s + pos, n);
	dst[n] = '\0';
}

static int term_value(struct pk_parser *P, struct pk_term *t)
{
	struct pk_token *tk = &P->tk;

	t->vpos = tk->pos;
	t->vlen = tk->len;
	switch (tk->t) {
	case TK_NUM:
		t->num = tk->v;
		break;
	case TK_NAME:
	case TK_TERM:
		if (tk->len >= (int)sizeof(t->str))
			return pk__perr(P, PK_ERR_RANGE, tk->pos, tk->len,
					"value too long");
		t->is_str = true;
		copy_text(t->str, sizeof(t->str), P->s, tk->pos, tk->len);
		break;
	case TK_OVERFLOW:
		return pk__perr(P, PK_ERR_RANGE, tk->pos, tk->len,
				"value does not fit in 64 bits");
	default:
		return pk__perr(P, PK_ERR_SYNTAX, tk->pos, PK_MAX(tk->len, 1),
				"expected a value after '='");
	}
	t->has_val = true;
	pk__advance(P);
	return 0;
}

static int term_one(struct pk_parser *P, struct pk_terms *ts)
{
	struct pk_token *tk = &P->tk;
	struct pk_term *t;

	if (tk->t != TK_TERM && tk->t != TK_NAME && tk->t != TK_RAW)
		return pk__perr(P, tk->t == TK_OVERFLOW ? PK_ERR_RANGE :
				PK_ERR_SYNTAX, tk->pos, PK_MAX(tk->len, 1),
				tk->t == TK_END ? "missing closing '/'" :
				"expected a term");
	if (tk->len >= 64)
		return pk__perr(P, PK_ERR_RANGE, tk->pos, tk->len,
				"term name too long");
	t = term_add(ts);
	if (!t)
		return -ENOMEM;
	t->pos = t->vpos = tk->pos;
	t->len = t->vlen = tk->len;
	copy_text(t->name, sizeof(t->name), P->s, tk->pos, tk->len);
	t->kw = tk->t == TK_TERM ? (int)tk->v : tk->t == TK_RAW ? -2 : -1;
	t->num = 1;
	if (tk->t == TK_RAW) {
		t->num = tk->v;
		t->has_val = true;
		pk__advance(P);
		return 0;
	}
	pk__advance(P);
	if (tk->t != TK_EQ)
		return 0;
	pk__advance(P);
	return term_value(P, t);
}

int pk__terms_parse(struct pk_parser *P, struct pk_terms *ts, bool alias)
{
	int err;

	P->terms_ctx = 1;
	pk__peek(P);
	if (P->tk.t == TK_SLASH && !alias)
		goto done;
	for (;;) {
		err = term_one(P, ts);
		if (err)
			return err;
		if (P->tk.t == TK_COMMA) {
			pk__advance(P);
			continue;
		}
		if (alias && P->tk.t == TK_END)
			return 0;
		if (P->tk.t == TK_SLASH && !alias)
			break;
		return pk__perr(P, PK_ERR_SYNTAX, P->tk.pos,
				PK_MAX(P->tk.len, 1), P->tk.t == TK_END ?
				"missing closing '/'" :
				"expected ',' or '/' after a term");
	}
done:
	P->terms_ctx = 0;
	pk__advance(P); /* the closing '/' */
	return 0;
}

static const unsigned int set_mask[] = {
	/* TS_LEGACY, TS_PMU: every generic term */
	[TS_LEGACY] = ~0u,
	[TS_TRACEPOINT] = 1u << KW_CALLGRAPH | 1u << KW_STACKSIZE |
		1u << KW_INHERIT | 1u << KW_NOINHERIT | 1u << KW_MAXSTACK |
		1u << KW_NR | 1u << KW_OVERWRITE | 1u << KW_NOOVERWRITE |
		1u << KW_AUX_OUTPUT | 1u << KW_AUX_SAMPLE_SIZE,
	[TS_PMU] = ~0u,
};

const char *pk__terms_valid(enum term_set set)
{
	static char buf[512];
	size_t n = 0;

	buf[0] = '\0';
	/* perf 6.1's list: it has no aux-action (6.13's) */
	for (int k = 0; k < KW__NR; k++)
		if ((set_mask[set] & (1u << k)) && k != KW_AUX_ACTION)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s",
					      n ? "," : "",
					      pk__term_kw_names[k]);
	return buf;
}

static const struct {
	const char *name;
	uint64_t bits;
} branch_modes[] = {
	{ "u", PERF_SAMPLE_BRANCH_USER },
	{ "k", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV },
	{ "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL },
	{ "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL },
	{ "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX },
	{ "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND },
	{ "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL },
	{ "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "stack", PERF_SAMPLE_BRANCH_CALL_STACK },
	{ "priv", PERF_SAMPLE_BRANCH_PRIV_SAVE },
};

uint64_t pk_branch_filter_bit(const char *name)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(branch_modes); i++)
		if (!strcmp(name, branch_modes[i].name))
			return branch_modes[i].bits;
	return 0;
}

static int branch_type(struct pk_parser *P, struct pk_evsel *e,
		       const struct pk_term *t)
{
	const uint64_t plm = PERF_SAMPLE_BRANCH_USER |
			     PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;
	struct perf_event_attr *a = &e->attr;
	uint64_t bits;

	if (!strcmp(t->str, "no")) {
		a->branch_sample_type = 0;
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
		return 0;
	}
	bits = pk_branch_filter_bit(t->str);
	if (bits) {
		a->branch_sample_type |= bits;
		if (!(a->branch_sample_type & ~plm))
			a->branch_sample_type |= PERF_SAMPLE_BRANCH_ANY;
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		return 0;
	}
	return pk__perr(P, PK_ERR_UNKNOWN, t->vpos, t->vlen,
			"invalid branch sample type '%s'", t->str);
}

static int call_graph(struct pk_parser *P, struct pk_evsel *e,
		      const struct pk_term *t)
{
	static const char *const modes[] = { "no", "fp", "dwarf", "lbr" };

	for (size_t i = 0; i < PK_ARRAY_SIZE(modes); i++)
		if (!strcmp(t->str, modes[i]))
			return 0;
	(void)e;
	return pk__perr(P, PK_ERR_UNKNOWN, t->vpos, t->vlen,
			"invalid call-graph mode '%s' (fp, dwarf, lbr, no)",
			t->str);
}

static bool kw_is_str(int kw)
{
	return kw == KW_NAME || kw == KW_BRANCH_TYPE || kw == KW_CALLGRAPH ||
	       kw == KW_METRIC_ID || kw == KW_AUX_ACTION;
}

static int check_type(struct pk_parser *P, const struct pk_term *t)
{
	if (kw_is_str(t->kw) && !t->is_str)
		return pk__perr(P, PK_ERR_SYNTAX, t->vpos, t->vlen,
				"expected a string value for '%s'", t->name);
	if (!kw_is_str(t->kw) && t->is_str)
		return pk__perr(P, PK_ERR_SYNTAX, t->vpos, t->vlen,
				"expected a numeric value for '%s'", t->name);
	return 0;
}

static int bool_val(struct pk_parser *P, const struct pk_term *t)
{
	if (t->num > 1)
		return pk__perr(P, PK_ERR_RANGE, t->vpos, t->vlen,
				"expected 0 or 1 for '%s'", t->name);
	return 0;
}

int pk__term_generic(struct pk_parser *P, struct pk_evsel *e,
		     const struct pk_term *t, enum term_set set)
{
	struct perf_event_attr *a = &e->attr;
	int err;

	if (t->kw == -2) {
		a->config = t->num;
		return 0;
	}
	if (t->kw < 0 || !(set_mask[set] & (1u << t->kw)))
		return pk__perr(P, PK_ERR_UNKNOWN, t->pos, t->len,
				"unknown term '%s' (valid terms: %s)", t->name,
				pk__terms_valid(set));
	err = check_type(P, t);
	if (err)
		return err;
	switch (t->kw) {
	case KW_CONFIG:
		a->config = t->num;
		break;
	case KW_CONFIG1:
		a->config1 = t->num;
		break;
	case KW_CONFIG2:
		a->config2 = t->num;
		break;
	case KW_NAME:
		err = pk_evsel_set_name(e, t->str);
		break;
	case KW_PERIOD:
		a->sample_period = t->num;
		a->freq = 0;
		e->terms |= PK_TERM_PERIOD;
		break;
	case KW_FREQ:
		a->sample_freq = t->num;
		a->freq = 1;
		e->terms |= PK_TERM_FREQ;
		break;
	case KW_BRANCH_TYPE:
		err = branch_type(P, e, t);
		e->terms |= PK_TERM_BRANCH;
		break;
	case KW_TIME:
		err = bool_val(P, t);
		if (t->num)
			a->sample_type |= PERF_SAMPLE_TIME;
		else
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_TIME;
		e->terms |= PK_TERM_TIME;
		break;
	case KW_CALLGRAPH:
		err = call_graph(P, e, t);
		e->terms |= PK_TERM_CALLGRAPH;
		break;
	case KW_STACKSIZE:
		e->terms |= PK_TERM_CALLGRAPH;
		break;
	case KW_MAXSTACK:
		if (t->num > 0xffff)
			return pk__perr(P, PK_ERR_RANGE, t->vpos, t->vlen,
					"max-stack is at most 65535");
		a->sample_max_stack = (uint16_t)t->num;
		e->terms |= PK_TERM_CALLGRAPH;
		break;
	case KW_NR:
		e->max_events = t->num;
		break;
	case KW_INHERIT:
	case KW_NOINHERIT:
		a->inherit = (t->num != 0) == (t->kw == KW_INHERIT);
		e->terms |= PK_TERM_INHERIT;
		break;
	case KW_OVERWRITE:
	case KW_NOOVERWRITE:
		a->write_backward = (t->num != 0) == (t->kw == KW_OVERWRITE);
		e->terms |= PK_TERM_OVERWRITE;
		break;
	case KW_PERCORE:
		err = bool_val(P, t);
		if (t->num)
			e->flags |= PK_EVSEL_PERCORE;
		else
			e->flags &= ~(unsigned int)PK_EVSEL_PERCORE;
		break;
	case KW_AUX_OUTPUT:
		a->aux_output = t->num != 0;
		break;
	case KW_AUX_SAMPLE_SIZE:
		if (t->num > UINT_MAX)
			return pk__perr(P, PK_ERR_RANGE, t->vpos, t->vlen,
					"aux-sample-size too big");
		a->aux_sample_size = (uint32_t)t->num;
		e->terms |= PK_TERM_AUX_SAMPLE;
		if (t->num)
			a->sample_type |= PERF_SAMPLE_AUX;
		break;
	case KW_AUX_ACTION:     /* checked by the recorder, as perf does */
		pk__free(e->aux_action);
		if (!(e->aux_action = pk__strdup(t->str)))
			return -ENOMEM;
		break;
	default: /* metric-id */
		break;
	}
	return err;
}

static uint16_t max_stack_default(void)
{
	static uint64_t v;

	if (!v && (pk__read_file_u64("/proc/sys/kernel/perf_event_max_stack",
				    &v) || !v || v > 0xffff))
		v = 127;
	return (uint16_t)v;
}

void pk__terms_finish(struct pk_evsel *e, const struct pk_terms *ts)
{
	struct perf_event_attr *a = &e->attr;
	const char *mode = NULL;
	uint64_t dump = 8192;
	bool max_set = false;

	for (int i = 0; i < ts->nr; i++) {
		const struct pk_term *t = &ts->v[i];

		if (t->kw == KW_CALLGRAPH)
			mode = t->str;
		else if (t->kw == KW_STACKSIZE && t->num)
			dump = (t->num + 7) & ~7ULL;
		else if (t->kw == KW_MAXSTACK)
			max_set = true;
	}
	if (!mode || !strcmp(mode, "no")) {
		if (mode)
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
		return;
	}
	a->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (!max_set)
		a->sample_max_stack = max_stack_default();
	if (!strcmp(mode, "dwarf")) {
		a->sample_type |= PERF_SAMPLE_REGS_USER |
				  PERF_SAMPLE_STACK_USER;
#if defined(__x86_64__)
		a->sample_regs_user = 0xff0fff; /* perf's x86-64 user regs */
#elif defined(__i386__)
		a->sample_regs_user = 0x1ff;
#else
		a->sample_regs_user = 0;
#endif
		a->sample_stack_user = (uint32_t)dump;
		a->exclude_callchain_user = 1;
	} else if (!strcmp(mode, "lbr")) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER |
			PERF_SAMPLE_BRANCH_CALL_STACK |
			PERF_SAMPLE_BRANCH_NO_CYCLES |
			PERF_SAMPLE_BRANCH_NO_FLAGS |
			PERF_SAMPLE_BRANCH_HW_INDEX;
	}
}

/*
 * PMU terms, in perf's order: aliases are replaced by their terms where
 * they stand; then the generic terms (config=, period=, rNNN, ...) are
 * applied in order; then the format terms are OR-ed into config/config1/
 * config2 in order (perf never clears a format's bits, so repeating a term
 * ORs the values).
 */

static const struct pk_pmu_alias *term_alias(const struct pk_pmu *pmu,
					     const struct pk_term *t)
{
	if (t->kw != -1)
		return NULL;
	if (t->is_str)
		return !strcasecmp(t->name, "event") ?
		       pk__pmu_alias(pmu, t->str) : NULL;
	if (t->num != 1 || pk__pmu_format(pmu, t->name))
		return NULL;
	return pk__pmu_alias(pmu, t->name);
}

static int push(struct pk_terms *out, const struct pk_term *t)
{
	struct pk_term *n = term_add(out);

	if (!n)
		return -ENOMEM;
	*n = *t;
	return 0;
}

static int expand_alias(struct pk_parser *P, const struct pk_pmu *pmu,
			const struct pk_pmu_alias *al,
			const struct pk_term *at, struct pk_terms *out)
{
	struct pk_parser sub = { .s = al->terms };
	struct pk_parse_error serr;
	struct pk_terms ts = { 0 };
	int err;

	sub.err = &serr;
	err = pk__terms_parse(&sub, &ts, true);
	for (int i = 0; !err && i < ts.nr; i++) {
		struct pk_term t = ts.v[i];

		/* errors about it point at the alias in the input */
		t.pos = t.vpos = at->pos;
		t.len = t.vlen = at->len;
		err = push(out, &t);
	}
	pk__terms_fini(&ts);
	if (err && err != -ENOMEM)
		return pk__perr(P, PK_ERR_FORMAT, at->pos, at->len,
				"bad alias '%s' of pmu '%s' (\"%s\"): %s",
				al->name, pmu->name, al->terms,
				sub.failed ? serr.msg : "?");
	return err;
}

static void valid_user_terms(const struct pk_pmu *pmu, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < pmu->nr_formats && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s,",
				      pmu->formats[i].name);
	if (n < size)
		snprintf(buf + n, size - n, "%s", pk__terms_valid(TS_PMU));
}

static int format_term(struct pk_parser *P, struct pk_evsel *e,
		       const struct pk_pmu *pmu, const struct pk_term *t)
{
	const struct pk_pmu_format *f = pk__pmu_format(pmu, t->name);
	__u64 *cfg[PK_NR_CFG] = { &e->attr.config, &e->attr.config1,
				  &e->attr.config2 };
	char valid[1024];
	uint64_t v = 0;

	if (!f) {
		valid_user_terms(pmu, valid, sizeof(valid));
		return pk__perr(P, PK_ERR_UNKNOWN, t->pos, t->len,
				"unknown term '%s' for pmu '%s' (valid terms: %s)",
				t->name, pmu->name, valid);
	}
	if (t->is_str)
		return pk__perr(P, PK_ERR_SYNTAX, t->vpos, t->vlen,
				"expected a numeric value for '%s'", t->name);
	if (t->num > pk__format_max(f))
		return pk__perr(P, PK_ERR_RANGE, t->vpos, t->vlen,
				"value too big for format '%s', maximum is %llu",
				t->name, (unsigned long long)pk__format_max(f));
	if (f - pmu->formats < 64)
		e->fmt_given |= 1ULL << (f - pmu->formats);
	if (pmu->has_default) { /* the term replaces the default's bits */
		uint64_t c = *cfg[f->field];

		pk__format_put(f, t->num, &c);
		*cfg[f->field] = c;
		return 0;
	}
	pk__format_put(f, t->num, &v);
	*cfg[f->field] |= v;
	return 0;
}

/* An alias term "name=?" (a parameter, e.g. a PMU's "chip=?") needs a
 * value from the user's terms: it is dropped when one is given. */
#define KW_PARAM_DONE (-3)
static int param_term(struct pk_parser *P, struct pk_terms *fl, int i)
{
	struct pk_term *t = &fl->v[i];

	if (t->kw != -1 || !t->is_str || strcmp(t->str, "?"))
		return 0;
	for (int j = 0; j < fl->nr; j++) {
		const struct pk_term *u = &fl->v[j];

		if (j != i && u->kw == -1 && !strcmp(u->name, t->name) &&
		    !(u->is_str && !strcmp(u->str, "?"))) {
			t->kw = KW_PARAM_DONE;
			return 0;
		}
	}
	return pk__perr(P, PK_ERR_SYNTAX, t->pos, t->len,
			"required parameter '%s' not specified", t->name);
}

/* perf's unit and scale of a PMU event written with terms: its aliases'
 * (the first that has each), else "" and 1, whatever the event counts. */
static int alias_info(struct pk_evsel *e, const struct pk_pmu *pmu,
		      const struct pk_terms *ts)
{
	const char *unit = NULL;
	double scale = 0;
	char *u;

	for (int i = 0; i < ts->nr; i++) {
		const struct pk_pmu_alias *al = term_alias(pmu, &ts->v[i]);

		if (al && !unit && al->unit && al->unit[0])
			unit = al->unit;
		if (al && !scale && al->scale)
			scale = al->scale;
	}
	if (!(u = pk__strdup(unit ? unit : "")))
		return -ENOMEM;
	pk__free(e->unit);
	e->unit = u;
	e->scale = scale ? scale : 1.0;
	return 0;
}

int pk__terms_pmu(struct pk_parser *P, struct pk_evsel *e,
		  const struct pk_pmu *pmu, const struct pk_terms *ts)
{
	struct pk_terms fl = { 0 };
	int err = 0;

	if (ts->nr)
		err = alias_info(e, pmu, ts);
	for (int i = 0; !err && i < ts->nr; i++) {
		const struct pk_pmu_alias *al = term_alias(pmu, &ts->v[i]);

		err = al ? expand_alias(P, pmu, al, &ts->v[i], &fl) :
		      push(&fl, &ts->v[i]);
	}
	for (int i = 0; !err && i < fl.nr; i++)
		err = param_term(P, &fl, i);
	for (int i = 0; !err && i < fl.nr; i++)
		if (fl.v[i].kw != -1 && fl.v[i].kw != KW_PARAM_DONE)
			err = pk__term_generic(P, e, &fl.v[i], TS_PMU);
	for (int i = 0; !err && i < fl.nr; i++)
		if (fl.v[i].kw == -1)
			err = format_term(P, e, pmu, &fl.v[i]);
	if (!err)
		pk__terms_finish(e, &fl);
	pk__terms_fini(&fl);
	if (err == -ENOMEM && !P->failed)
		pk__perr(P, err, -1, 0, "out of memory");
	return err;
}
