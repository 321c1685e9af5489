/* SPDX-License-Identifier: MIT */
/* Internal: the event-syntax tokenizer (two contexts like perf's lexer:
 * event text and PMU term lists between slashes). */
#ifndef PK_EVENT_LEX_H
#define PK_EVENT_LEX_H

#include <stdint.h>

enum pk_tok {
	TK_END, TK_COMMA, TK_LBRACE, TK_RBRACE, TK_SLASH, TK_COLON, TK_DASH,
	TK_EQ,
	TK_SYM,        /* hardware/software name: v = index in pk__sym_events */
	TK_CACHE_TYPE, /* v = cache type */
	TK_CACHE_OPRES,
	TK_MEM,        /* "mem:" */
	TK_RAW,        /* rHEX: v = value */
	TK_NUM,        /* decimal or 0x hex: v = value */
	TK_MOD,        /* [ukhpPGHSDIWeb]+ */
	TK_NAME,       /* event context: a name; term context: name_minus */
	TK_TERM,       /* term keyword: v = enum pk_term_kw */
	TK_BAD,        /* a character that starts no token */
	TK_OVERFLOW,   /* a number too large for 64 bits */
};

enum pk_term_kw {
	KW_CONFIG, KW_CONFIG1, KW_CONFIG2, KW_NAME, KW_PERIOD, KW_FREQ,
	KW_BRANCH_TYPE, KW_TIME, KW_CALLGRAPH, KW_STACKSIZE, KW_MAXSTACK,
	KW_NR, KW_INHERIT, KW_NOINHERIT, KW_OVERWRITE, KW_NOOVERWRITE,
	KW_PERCORE, KW_AUX_OUTPUT, KW_AUX_SAMPLE_SIZE, KW_METRIC_ID,
	KW_AUX_ACTION,
	KW__NR,
};
extern const char *const pk__term_kw_names[KW__NR];

struct pk_token {
	enum pk_tok t;
	int pos, len;
	uint64_t v;
};

/* Next token of S at POS; TERMS selects the term-list context. */
void pk__lex(const char *s, int pos, int terms, struct pk_token *tk);

#endif
