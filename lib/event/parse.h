/* SPDX-License-Identifier: MIT */
/* Internal: parser state shared by parse.c (events) and terms.c (terms). */
#ifndef PK_EVENT_PARSE_H
#define PK_EVENT_PARSE_H

#include <stdarg.h>
#include "base/base.h"
#include "event/evsel.h"
#include "event/lex.h"
#include "event/pmu.h"

struct pk_term {
	int kw;            /* enum pk_term_kw, or -1 user term, -2 rHEX */
	int pos, len;      /* of the term name in the input */
	int vpos, vlen;    /* of the value, or the name when none */
	bool has_val, is_str;
	uint64_t num;
	char name[64];
	char str[128];
};

struct pk_terms {
	struct pk_term *v;
	int nr, cap;
};

struct pk_parser {
	const char *s;
	int pos;
	struct pk_token tk;
	int terms_ctx;
	struct pk_evlist *out;
	struct pk_parse_error *err;
	bool failed;
	int err_off;       /* offset added to error positions (aliases) */
	bool hint;         /* the error names an unknown event: suggest one */
};

/* Records the first error; returns CODE. */
int pk__perr(struct pk_parser *P, int code, int pos, int len,
	     const char *fmt, ...) PK_PRINTF(5, 6);
/* Lexes the token at P->pos (context P->terms_ctx). */
void pk__peek(struct pk_parser *P);
/* Consumes the current token and lexes the next. */
void pk__advance(struct pk_parser *P);

/* Parses "term,term,..." up to (and consuming) the closing '/' (or the end
 * of the string when ALIAS). 0 or error. */
int pk__terms_parse(struct pk_parser *P, struct pk_terms *t, bool alias);
void pk__terms_fini(struct pk_terms *t);

enum term_set { TS_LEGACY, TS_TRACEPOINT, TS_PMU };
/* Applies generic term T to E. 0 or error. */
int pk__term_generic(struct pk_parser *P, struct pk_evsel *e,
		     const struct pk_term *t, enum term_set set);
/* Valid generic terms for SET, comma-separated (static buffer). */
const char *pk__terms_valid(enum term_set set);
/* Finishes call-graph/stack-size settings recorded by terms. */
void pk__terms_finish(struct pk_evsel *e, const struct pk_terms *t);
/* Applies a PMU's terms (formats, aliases, generic). 0 or error. */
int pk__terms_pmu(struct pk_parser *P, struct pk_evsel *e,
		  const struct pk_pmu *pmu, const struct pk_terms *t);

#endif
