/* SPDX-License-Identifier: MIT */
/*
 * Tokenizer for perf's event syntax. Like a flex scanner: at each position
 * every rule is tried, the longest match wins and ties go to the earlier
 * rule (keywords before names, modifiers before names).
 */
#include <ctype.h>
#include <string.h>
#include <linux/perf_event.h>
#include "base/base.h"
#include "event/lex.h"
#include "event/tables.h"

const char *const pk__term_kw_names[KW__NR] = {
	"config", "config1", "config2", "name", "period", "freq",
	"branch_type", "time", "call-graph", "stack-size", "max-stack", "nr",
	"inherit", "no-inherit", "overwrite", "no-overwrite", "percore",
	"aux-output", "aux-sample-size", "metric-id", "aux-action",
};

static int is_hex(int c)
{
	return isxdigit((unsigned char)c);
}

static int match_word(const char *p, const char *w)
{
	size_t n = strlen(w);

	return strncmp(p, w, n) ? 0 : (int)n;
}

static int span(const char *p, const char *set)
{
	int n = 0;

	while (p[n] && strchr(set, p[n]))
		n++;
	return n;
}

#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
/* name: [a-zA-Z_*?\[\]][a-zA-Z0-9_*?.\[\]!]* */
static int match_name(const char *p)
{
	if (!*p || !strchr(ALNUM "_*?[]", *p) || isdigit((unsigned char)*p))
		return 0;
	return 1 + span(p + 1, ALNUM "_*?.[]!");
}

/* name_minus: [a-zA-Z_*?][a-zA-Z0-9\-_*?.:]* */
static int match_name_minus(const char *p)
{
	if (!*p || !strchr(ALNUM "_*?", *p) || isdigit((unsigned char)*p))
		return 0;
	return 1 + span(p + 1, ALNUM "-_*?.:");
}

/* A number: 0x hex or decimal. Sets *V and *OVF. Returns its length. */
static int match_num(const char *p, uint64_t *v, int *ovf)
{
	int n = 0, hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
			 is_hex(p[2]);

	*v = 0;
	*ovf = 0;
	if (hex) {
		for (n = 2; is_hex(p[n]); n++) {
			int d = isdigit((unsigned char)p[n]) ? p[n] - '0' :
				(tolower((unsigned char)p[n]) - 'a' + 10);

			if (*v >> 60)
				*ovf = 1;
			*v = (*v << 4) | (uint64_t)d;
		}
		return n;
	}
	for (; isdigit((unsigned char)p[n]); n++) {
		uint64_t d = (uint64_t)(p[n] - '0');

		if (*v > (UINT64_MAX - d) / 10)
			*ovf = 1;
		*v = *v * 10 + d;
	}
	return n;
}

static int match_raw(const char *p, int terms, uint64_t *v, int *ovf)
{
	int n, skip = 1;

	if (p[0] != 'r')
		return 0;
	if (terms && p[1] == '0' && p[2] == 'x' && is_hex(p[3]))
		skip = 3;
	if (!is_hex(p[skip]))
		return 0;
	*v = 0;
	*ovf = 0;
	for (n = skip; is_hex(p[n]); n++) {
		int d = isdigit((unsigned char)p[n]) ? p[n] - '0' :
			(tolower((unsigned char)p[n]) - 'a' + 10);

		if (*v >> 60)
			*ovf = 1;
		*v = (*v << 4) | (uint64_t)d;
	}
	return n;
}

static void take(struct pk_token *tk, enum pk_tok t, int len, uint64_t v)
{
	tk->t = t;
	tk->len = len;
	tk->v = v;
}

static int single(const char *p, struct pk_token *tk, int terms)
{
	static const char chars[] = ",{}/:-=";
	static const enum pk_tok toks[] = { TK_COMMA, TK_LBRACE, TK_RBRACE,
		TK_SLASH, TK_COLON, TK_DASH, TK_EQ };
	const char *c = *p ? strchr(chars, *p) : NULL;

	if (!c || (terms && (*p == '{' || *p == '}' || *p == ':')))
		return 0;
	take(tk, toks[c - chars], 1, 0);
	return 1;
}

static void lex_terms(const char *p, struct pk_token *tk)
{
	uint64_t v;
	int n, best = 0, ovf;

	for (int k = 0; k < KW__NR; k++) {
		n = match_word(p, pk__term_kw_names[k]);
		if (n > best) {
			best = n;
			take(tk, TK_TERM, n, (uint64_t)k);
		}
	}
	n = match_raw(p, 1, &v, &ovf);
	if (n > best) {
		best = n;
		take(tk, ovf ? TK_OVERFLOW : TK_RAW, n, v);
	}
	n = match_num(p, &v, &ovf);
	if (n > best) {
		best = n;
		take(tk, ovf ? TK_OVERFLOW : TK_NUM, n, v);
	}
	n = match_name_minus(p);
	if (n > best) {
		best = n;
		take(tk, TK_NAME, n, 0);
	}
	if (!best && !single(p, tk, 1))
		take(tk, TK_BAD, 1, 0);
}

static void best_of_table(const char *p, const char *const (*tab)[PK_CACHE_ALIASES],
			  int rows, enum pk_tok t, int *best,
			  struct pk_token *tk)
{
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < PK_CACHE_ALIASES && tab[i][j]; j++) {
			int n = match_word(p, tab[i][j]);

			if (n > *best) {
				*best = n;
				take(tk, t, n, (uint64_t)i);
			}
		}
}

static void lex_event(const char *p, struct pk_token *tk)
{
	uint64_t v;
	int n, best = 0, ovf;

	for (int i = 0; i < pk__nr_sym_events; i++) {
		const struct pk_sym_event *e = &pk__sym_events[i];

		n = match_word(p, e->name);
		if (e->alias && match_word(p, e->alias) > n)
			n = match_word(p, e->alias);
		if (n > best) {
			best = n;
			take(tk, TK_SYM, n, (uint64_t)i);
		}
	}
	best_of_table(p, pk__cache_types, PERF_COUNT_HW_CACHE_MAX,
		      TK_CACHE_TYPE, &best, tk);
	best_of_table(p, pk__cache_ops, PERF_COUNT_HW_CACHE_OP_MAX,
		      TK_CACHE_OPRES, &best, tk);
	best_of_table(p, pk__cache_results, PERF_COUNT_HW_CACHE_RESULT_MAX,
		      TK_CACHE_OPRES, &best, tk);
	n = match_word(p, "mem:");
	if (n > best) {
		best = n;
		take(tk, TK_MEM, n, 0);
	}
	n = match_raw(p, 0, &v, &ovf);
	if (n > best) {
		best = n;
		take(tk, ovf ? TK_OVERFLOW : TK_RAW, n, v);
	}
	n = match_num(p, &v, &ovf);
	if (n > best) {
		best = n;
		take(tk, ovf ? TK_OVERFLOW : TK_NUM, n, v);
	}
	n = span(p, "ukhpPGHSDIWeb");
	if (n > best) {
		best = n;
		take(tk, TK_MOD, n, 0);
	}
	n = match_name(p);
	if (n > best) {
		best = n;
		take(tk, TK_NAME, n, 0);
	}
	if (!best && !single(p, tk, 0))
		take(tk, *p ? TK_BAD : TK_END, *p ? 1 : 0, 0);
}

void pk__lex(const char *s, int pos, int terms, struct pk_token *tk)
{
	/* perf's scanner drops characters no rule matches; perfkit drops
	 * only white space and rejects the rest */
	while (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' ||
	       s[pos] == '\r')
		pos++;
	tk->pos = pos;
	if (!s[pos]) {
		take(tk, TK_END, 0, 0);
		return;
	}
	if (terms)
		lex_terms(s + pos, tk);
	else
		lex_event(s + pos, tk);
}
