/* SPDX-License-Identifier: MIT */
/* Internal to tfparse.c / tfeval.c: the compiled print program. */
#ifndef PK_TRACEFMT_COMPILE_H
#define PK_TRACEFMT_COMPILE_H
#include "tracefmt/fmt.h"

#define TF_MAX_NODES 4096
#define TF_MAX_DEPTH 64
#define TF_MAX_CONVS 256

enum tf_kind {
	TN_NUM,         /* v */
	TN_FIELD,       /* a: field index */
	TN_STR,         /* a: text offset */
	TN_UN,          /* op a; b: left (-1: none) as libtraceevent keeps one */
	TN_BIN,         /* a op b */
	TN_COND,        /* a ? b : c */
	TN_CAST,        /* (type) a; v: mask (0: none) */
	TN_INDEX,       /* field a [ b ] */
	TN_SYMBOLIC,    /* __print_symbolic(a, pairs b.. count c) */
	TN_FLAGS,       /* __print_flags(a, delim v(text off), pairs b.. c) */
	TN_PAIR,        /* v: value, a: text offset */
	TN_GETSTR,      /* __get_str(field a) (b: rel) */
};

/* binary / unary operators */
enum {
	OP_MUL = 1, OP_DIV, OP_MOD, OP_ADD, OP_SUB, OP_SHL, OP_SHR, OP_LT,
	OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE, OP_AND, OP_XOR, OP_OR, OP_LAND,
	OP_LOR, OP_NOT, OP_BNOT, OP_NEG, OP_POS,
};

struct tf_node {
	uint8_t kind, op;
	int8_t prio;            /* libtraceevent's op.prio (parsing only) */
	int a, b, c;
	uint64_t v;
};

/* conversion kinds */
enum { TC_END, TC_INT, TC_STR, TC_PTR, TC_SYM, TC_CHAR };

struct tf_conv {
	uint32_t lit, lit_len;  /* literal text before it */
	uint8_t kind;
	char conv;              /* d i u x X o c s p */
	int8_t ls;              /* -2 hh, -1 h, 0, 1 l, 2 ll */
	bool left, zero, plus, space, alt, has_prec;
	char sym;               /* S s F f B */
	int width, prec;
	int arg;                /* node */
};

/* tfplug.c: ftrace:bprint's fields (ip, fmt, buf) */
void pk__tf_bprint_bind(struct tf_event *ev);
/* tfeval.c: prints a bprint record */
int pk__tf_bprint(const struct tf_event *ev, struct tf_env *env,
	      const uint8_t *data, uint32_t size, struct tf_out *out);

#endif
