/* SPDX-License-Identifier: MIT */
/*
 * Event format files -> tf_event: the name, ID and fields, and the print
 * fmt compiled into conversions over an expression tree. The parser is a
 * recursive descent with C precedence and a depth limit; whatever it does
 * not know (a helper function, a cast it cannot classify, a backslash in
 * the format) leaves the event without a program so that the caller's
 * other formatter prints it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "tracefmt/compile.h"

enum { T_EOF, T_NUM, T_ID, T_STR, T_OP, T_ERR };

struct tok {
	int type;
	const char *s;          /* T_ID, T_STR (inside quotes), T_OP */
	size_t len;
	uint64_t v;
};

struct ps {
	const char *p, *end;
	struct tf_event *ev;
	struct tok t;           /* current token */
	int depth;
	struct pk_buf text;
	int cap_nodes;
	const char *why;
	int long_size;
	bool kernel;            /* TF_KERNEL: the kernel's reading */
};

/* ---- tokens ---- */

static int digit(int c, int base)
{
	int d = c >= '0' && c <= '9' ? c - '0'
		: (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
		: 99;
	return d < base ? d : -1;
}

/* strtoull(P, &E, 0) within [P, END): false on overflow or no digits */
static bool bounded_num(const char *p, const char *end, uint64_t *v,
			const char **e)
{
	int base = 10, d;
	uint64_t x = 0;

	if (end - p >= 3 && p[0] == '0' && (p[1] | 0x20) == 'x' &&
	    digit((unsigned char)p[2], 16) >= 0) {
		base = 16;
		p += 2;
	} else if (p < end && *p == '0') {
		base = 8;
	}
	const char *b = p;
	for (; p < end && (d = digit((unsigned char)*p, base)) >= 0; p++) {
		if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	*v = x;
	*e = p;
	return p > b;
}

/* A decimal number at P (before END), or -1. */
static long bounded_dec(const char *p, const char *end)
{
	long v = 0;
	const char *b = p;

	while (p < end && *p >= '0' && *p <= '9' && v < (1L << 40))
		v = v * 10 + (*p++ - '0');
	return p > b ? v : -1;
}

static void next(struct ps *s)
{
	const char *p = s->p;

	while (p < s->end && isspace((unsigned char)*p))
		p++;
	s->t = (struct tok){ .type = T_EOF, .s = p };
	if (p >= s->end) {
		s->p = p;
		return;
	}
	if (isalpha((unsigned char)*p) || *p == '_') {
		const char *b = p;
		while (p < s->end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		s->t = (struct tok){ T_ID, b, (size_t)(p - b), 0 };
	} else if (isdigit((unsigned char)*p)) {
		const char *b = p, *e;
		uint64_t v;
		if (!bounded_num(p, s->end, &v, &e)) {
			s->t.type = T_ERR;
			s->p = s->end;
			return;
		}
		p = e;
		while (p < s->end && (*p == 'u' || *p == 'U' || *p == 'l' ||
				      *p == 'L'))
			p++;
		if (p < s->end && (isalnum((unsigned char)*p) || *p == '_')) {
			s->t.type = T_ERR;
			s->p = s->end;
			return;
		}
		s->t = (struct tok){ T_NUM, b, (size_t)(p - b), v };
	} else if (*p == '"') {
		const char *b = ++p;
		uint64_t esc = 0;
		/* libtraceevent refuses raw control characters */
		while (p < s->end && *p != '"' && (unsigned char)*p >= 0x20) {
			if (*p == '\\') {
				esc = 1;
				if (++p >= s->end || (unsigned char)*p < 0x20)
					break;
			}
			p++;
		}
		if (p >= s->end || *p != '"') {
			s->t.type = T_ERR;      /* unterminated */
			s->p = s->end;
			return;
		}
		/* v: the string has backslash escapes */
		s->t = (struct tok){ T_STR, b, (size_t)(p - b), esc };
		p++;
	} else {
		static const char *const ops[] = {
			"->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
		};
		size_t n = 1;
		for (size_t i = 0; i < PK_ARRAY_SIZE(ops); i++)
			if (s->end - p >= 2 && !memcmp(p, ops[i], 2))
				n = 2;
		if (n == 1 && !strchr("+-*/%<>&|^!~?:()[]{},.", *p)) {
			s->t.type = T_ERR;
			s->p = s->end;
			return;
		}
		s->t = (struct tok){ T_OP, p, n, 0 };
		p += n;
	}
	s->p = p;
}

static bool is_op(const struct ps *s, const char *op)
{
	return s->t.type == T_OP && s->t.len == strlen(op) &&
	       !memcmp(s->t.s, op, s->t.len);
}

static bool is_id(const struct ps *s, const char *id)
{
	return s->t.type == T_ID && s->t.len == strlen(id) &&
	       !memcmp(s->t.s, id, s->t.len);
}

static int fail(struct ps *s, const char *why)
{
	if (!s->why)
		s->why = why;
	return -1;
}

static int expect(struct ps *s, const char *op)
{
	if (!is_op(s, op))
		return fail(s, "unexpected token");
	next(s);
	return 0;
}

/* ---- nodes and text ---- */

static int new_node(struct ps *s, int kind)
{
	struct tf_event *ev = s->ev;

	if (ev->nr_nodes >= TF_MAX_NODES)
		return fail(s, "expression too large");
	if (ev->nr_nodes == s->cap_nodes) {
		int cap = s->cap_nodes ? s->cap_nodes * 2 : 32;
		struct tf_node *n = pk__realloc(ev->nodes, (size_t)cap *
					       sizeof(*n));
		if (!n)
			return fail(s, "out of memory");
		ev->nodes = n;
		s->cap_nodes = cap;
	}
	memset(&ev->nodes[ev->nr_nodes], 0, sizeof(struct tf_node));
	ev->nodes[ev->nr_nodes].kind = (uint8_t)kind;
	return ev->nr_nodes++;
}

/* Adds LEN bytes and a NUL to the text pool; the offset or -1. */
static long add_text(struct ps *s, const char *p, size_t len)
{
	long off = (long)s->text.len;

	if (pk__buf_append(&s->text, p, len) || pk__buf_append(&s->text, "", 1))
		return fail(s, "out of memory");
	return off;
}

static int num_node(struct ps *s, uint64_t v)
{
	int n = new_node(s, TN_NUM);
	if (n >= 0)
		s->ev->nodes[n].v = v;
	return n;
}

/* ---- expressions ---- */

static int expr(struct ps *s);
static int unary(struct ps *s);

static int field_ref(struct ps *s)
{
	char name[128];
	int f, n;

	next(s);                        /* REC */
	if (expect(s, "->") || s->t.type != T_ID || s->t.len >= sizeof(name))
		return fail(s, "bad REC->field");
	memcpy(name, s->t.s, s->t.len);
	name[s->t.len] = 0;
	f = pk__tf_find_field(s->ev, name);
	if (f < 0)
		return fail(s, "unknown field");
	next(s);
	n = new_node(s, TN_FIELD);
	if (n < 0)
		return n;
	s->ev->nodes[n].a = f;
	if (is_op(s, "[")) {
		const struct tf_field *fd = &s->ev->fields[f];
		if (!(fd->flags & TFF_ARRAY) || (fd->flags & TFF_DYN) ||
		    (fd->elem != 1 && fd->elem != 2 && fd->elem != 4 &&
		     fd->elem != 8))
			return fail(s, "index of a non-array");
		next(s);
		if (s->t.type != T_NUM)        /* libtraceevent: a number */
			return fail(s, "index not a number");
		int i = num_node(s, s->t.v);
		next(s);
		if (i < 0 || expect(s, "]"))
			return -1;
		int x = new_node(s, TN_INDEX);
		if (x < 0)
			return x;
		s->ev->nodes[x].a = f;
		s->ev->nodes[x].b = i;
		return x;
	}
	if (s->ev->fields[f].flags & (TFF_ARRAY | TFF_DYN))
		s->ev->nodes[n].op = 1;         /* not a number */
	return n;
}

/* libtraceevent's values of a few kernel names in symbol tables */
static uint64_t known_flag(const char *p, size_t len)
{
	static const struct { const char *n; int v; } t[] = {
		{ "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 },
		{ "NET_TX_SOFTIRQ", 2 }, { "NET_RX_SOFTIRQ", 3 },
		{ "BLOCK_SOFTIRQ", 4 }, { "IRQ_POLL_SOFTIRQ", 5 },
		{ "TASKLET_SOFTIRQ", 6 }, { "SCHED_SOFTIRQ", 7 },
		{ "HRTIMER_SOFTIRQ", 8 }, { "RCU_SOFTIRQ", 9 },
		{ "HRTIMER_NORESTART", 0 }, { "HRTIMER_RESTART", 1 },
	};
	for (size_t i = 0; i < PK_ARRAY_SIZE(t); i++)
		if (strlen(t[i].n) == len && !memcmp(t[i].n, p, len))
			return (uint64_t)t[i].v;
	return (uint64_t)-1;    /* libtraceevent: an unknown name is -1 */
}

/*
 * Enum names some format files leave unresolved (no TRACE_DEFINE_ENUM):
 * the kernel knows their values (TF_KERNEL), and those of known_flag().
 * False for other names (which the kernel text reads as libtraceevent
 * does: a reader of the file cannot know them).
 */
static bool kernel_name(const char *p, size_t len, uint64_t *v)
{
	static const char *const hrtimer_modes[] = {
		"ABS", "REL", "ABS_PINNED", "REL_PINNED", "ABS_SOFT",
		"REL_SOFT", "ABS_PINNED_SOFT", "REL_PINNED_SOFT", "ABS_HARD",
		"REL_HARD", "ABS_PINNED_HARD", "REL_PINNED_HARD",
	};

	if (len > 13 && !memcmp(p, "HRTIMER_MODE_", 13)) {
		for (size_t i = 0; i < PK_ARRAY_SIZE(hrtimer_modes); i++)
			if (strlen(hrtimer_modes[i]) == len - 13 &&
			    !memcmp(hrtimer_modes[i], p + 13, len - 13)) {
				*v = i;
				return true;
			}
		return false;
	}
	*v = known_flag(p, len);
	return *v != (uint64_t)-1;
}

/* Constant value of node N (pair values); false if not constant. */
static bool const_eval(struct ps *s, int n, uint64_t *v, int depth)
{
	const struct tf_node *x = &s->ev->nodes[n];
	uint64_t a = 0, b = 0;

	if (depth > TF_MAX_DEPTH)
		return false;
	switch (x->kind) {
	case TN_NUM:
		*v = x->v;
		return true;
	case TN_CAST:
		return const_eval(s, x->a, v, depth + 1);
	case TN_UN:
		if (!const_eval(s, x->a, &a, depth + 1) ||
		    (x->b >= 0 && !const_eval(s, x->b, &b, depth + 1)))
			return false;
		*v = x->op == OP_NOT ? !a : x->op == OP_BNOT ? ~a
		     : x->op == OP_POS ? b + a : b - a;
		return true;
	case TN_BIN:
		if (!const_eval(s, x->a, &a, depth + 1) ||
		    !const_eval(s, x->b, &b, depth + 1))
			return false;
		switch (x->op) {
		case OP_ADD: *v = a + b; return true;
		case OP_SUB: *v = a - b; return true;
		case OP_MUL: *v = a * b; return true;
		case OP_OR: *v = a | b; return true;
		case OP_AND: *v = a & b; return true;
		case OP_XOR: *v = a ^ b; return true;
		case OP_SHL: *v = b < 64 ? a << b : 0; return b < 64;
		default: return false;
		}
	default:
		return false;
	}
}

/* { value, "string" } ... ) of __print_symbolic / __print_flags; the
 * pair nodes are made together at the end so that they are contiguous */
static int pairs(struct ps *s, int *first, int *count, bool flags_ctx)
{
	struct { uint64_t v; long off; size_t len; } pv[256];
	int n = 0;

	*first = -1;
	*count = 0;
	while (is_op(s, ",")) {
		uint64_t v = 0;
		next(s);
		if (expect(s, "{"))
			return -1;
		if (n >= (int)PK_ARRAY_SIZE(pv))
			return fail(s, "symbol table too large");
		if (s->t.type == T_ID) {
			const char *id = s->t.s;
			size_t len = s->t.len;
			next(s);
			if (!is_op(s, ","))
				return fail(s, "symbol value expression");
			/* other names as libtraceevent reads them (-1) */
			if (!s->kernel || !kernel_name(id, len, &v))
				v = known_flag(id, len);
		} else {
			int e = expr(s);
			if (e < 0)
				return -1;
			if (!const_eval(s, e, &v, 0))
				return fail(s, "symbol value not constant");
			if ((int64_t)v < 0 && s->ev->nodes[e].kind != TN_NUM)
				v = (uint64_t)-1;  /* "%lld" is no number: -1 */
		}
		if (expect(s, ","))
			return -1;
		if (s->t.type != T_STR) {
			/* { 0, ((void *)0) } ends kernel flag tables: a
			 * flag of value 0 never prints */
			uint64_t z;
			int e = flags_ctx ? expr(s) : -1;
			if (e < 0 || !const_eval(s, e, &z, 0) || z || v ||
			    expect(s, "}"))
				return fail(s, "symbol string");
			continue;
		}
		if (s->t.v)
			return fail(s, "escape in a symbol string");
		long off = add_text(s, s->t.s, s->t.len);
		pv[n].len = s->t.len;
		next(s);
		if (off < 0 || expect(s, "}"))
			return -1;
		pv[n].v = v;
		pv[n++].off = off;
	}
	for (int i = 0; i < n; i++) {
		int p = new_node(s, TN_PAIR);
		if (p < 0)
			return p;
		s->ev->nodes[p].v = pv[i].v;
		s->ev->nodes[p].a = (int)pv[i].off;
		s->ev->nodes[p].c = (int)pv[i].len;
		if (!i)
			*first = p;
	}
	*count = n;
	return expect(s, ")");
}

static int call(struct ps *s)
{
	bool sym = is_id(s, "__print_symbolic"), flags = is_id(s, "__print_flags");
	bool str = is_id(s, "__get_str"), rel = is_id(s, "__get_rel_str");
	int n, a, first, count;
	long delim = -1;

	next(s);
	if (expect(s, "("))
		return -1;
	if (str || rel) {
		char name[128];
		if (s->t.type != T_ID || s->t.len >= sizeof(name))
			return fail(s, "__get_str argument");
		memcpy(name, s->t.s, s->t.len);
		name[s->t.len] = 0;
		int f = pk__tf_find_field(s->ev, name);
		if (f < 0 || !(s->ev->fields[f].flags & TFF_DYN) ||
		    s->ev->fields[f].size != 4)
			return fail(s, "__get_str of a non-dynamic field");
		next(s);
		if (expect(s, ")") || (n = new_node(s, TN_GETSTR)) < 0)
			return -1;
		s->ev->nodes[n].a = f;
		return n;
	}
	if ((a = expr(s)) < 0)
		return -1;
	if (flags) {
		if (expect(s, ",") || s->t.type != T_STR || s->t.v)
			return fail(s, "__print_flags delimiter");
		delim = add_text(s, s->t.s, s->t.len);
		if (delim < 0 || s->t.len > 0xffff)
			return -1;
		delim |= (long)s->t.len << 32;
		next(s);
		/* pairs() wants the comma before each pair */
		if (!is_op(s, ","))
			return fail(s, "__print_flags without flags");
	}
	if (pairs(s, &first, &count, flags))
		return -1;
	if (!count)
		return fail(s, "empty symbol table");
	n = new_node(s, sym ? TN_SYMBOLIC : TN_FLAGS);
	if (n < 0)
		return n;
	s->ev->nodes[n] = (struct tf_node){ .kind = sym ? TN_SYMBOLIC : TN_FLAGS,
					    .a = a, .b = first, .c = count,
					    .v = (uint64_t)delim };
	return n;
}

/* Type words of a cast; *MASK the masking libtraceevent applies. */
static bool cast_type(struct ps *s, uint64_t *mask)
{
	char type[128] = "";
	size_t tl = 0;
	bool ptr = false;

	while (s->t.type == T_ID || is_op(s, "*")) {
		if (is_op(s, "*")) {
			ptr = true;
		} else {
			if (ptr || tl + s->t.len + 2 >= sizeof(type))
				return false;
			if (tl)
				type[tl++] = ' ';
			memcpy(type + tl, s->t.s, s->t.len);
			tl += s->t.len;
			type[tl] = 0;
		}
		next(s);
	}
	if (!tl || !is_op(s, ")"))
		return false;
	next(s);
	*mask = 0;
	if (ptr || !strncmp(type, "struct", 6))
		return true;
	const char *t = type;
	if (!strcmp(t, "u8") || !strcmp(t, "s8"))
		*mask = 0xff;
	else if (!strcmp(t, "u16") || !strcmp(t, "s16"))
		*mask = 0xffff;
	else if (!strcmp(t, "u32") || !strcmp(t, "s32"))
		*mask = 0xffffffff;
	if (*mask)
		return true;
	if (!strncmp(t, "unsigned ", 9))
		t += 9;
	if (!strcmp(t, "char"))
		*mask = 0xff;
	else if (!strcmp(t, "short"))
		*mask = 0xffff;
	else if (!strcmp(t, "int"))
		*mask = 0xffffffff;
	return true;
}

/*
 * libtraceevent takes "(NAME [NAME|*]...)" as a cast when an item or '('
 * follows the parenthesis. Looks ahead without consuming.
 */
static bool is_cast(struct ps *s)
{
	const char *p = s->p;
	struct tok t = s->t;
	int n = 0;
	bool cast = false;

	while (s->t.type == T_ID || is_op(s, "*")) {
		if (is_id(s, "REC"))
			break;
		n++;
		next(s);
	}
	if (n && is_op(s, ")")) {
		next(s);
		cast = s->t.type == T_ID || s->t.type == T_NUM || is_op(s, "(");
	}
	s->p = p;
	s->t = t;
	return cast;
}

static int primary(struct ps *s)
{
	int n;

	if (s->t.type == T_NUM) {
		n = num_node(s, s->t.v);
		next(s);
		return n;
	}
	if (s->t.type == T_STR) {
		struct pk_buf tmp = { 0 };
		while (s->t.type == T_STR) {    /* "a" "b" concatenate */
			if (s->t.v) {
				pk__buf_fini(&tmp);
				return fail(s, "escape in a string argument");
			}
			if (pk__buf_append(&tmp, s->t.s, s->t.len)) {
				pk__buf_fini(&tmp);
				return fail(s, "out of memory");
			}
			next(s);
		}
		size_t tl = tmp.len;
		long off = add_text(s, tmp.data ? tmp.data : "", tl);
		pk__buf_fini(&tmp);
		if (off < 0 || tl > (1u << 30) || (n = new_node(s, TN_STR)) < 0)
			return -1;
		s->ev->nodes[n].a = (int)off;
		s->ev->nodes[n].b = (int)tl;
		return n;
	}
	if (is_id(s, "REC"))
		return field_ref(s);
	if (is_id(s, "__print_symbolic") || is_id(s, "__print_flags") ||
	    is_id(s, "__get_str") || is_id(s, "__get_rel_str"))
		return call(s);
	if (s->t.type == T_ID) {
		uint64_t v = 0;
		const char *id = s->t.s;
		size_t len = s->t.len;
		next(s);
		if (is_op(s, "(") || is_op(s, "->") || is_op(s, "."))
			return fail(s, "unsupported function or member");
		/* an unresolved name reads as 0 (libtraceevent's reading;
		 * the kernel's own text keeps it so too) */
		if (s->kernel && !kernel_name(id, len, &v))
			v = 0;
		return num_node(s, v);
	}
	if (is_op(s, "(")) {
		next(s);
		if (is_cast(s)) {
			uint64_t mask;
			if (!cast_type(s, &mask))
				return fail(s, "unsupported cast");
			int a = primary(s);     /* a cast takes one item */
			if (a < 0 || (n = new_node(s, TN_CAST)) < 0)
				return -1;
			s->ev->nodes[n].a = a;
			s->ev->nodes[n].v = mask;
			return n;
		}
		n = expr(s);
		if (n < 0 || expect(s, ")"))
			return -1;
		return n;
	}
	return fail(s, "unexpected token in expression");
}

/* binary operators by precedence level (higher binds tighter) */
static int binop(const struct ps *s, int *prec)
{
	static const struct { const char *s; int op, prec; } t[] = {
		{ "*", OP_MUL, 10 }, { "/", OP_DIV, 10 }, { "%", OP_MOD, 10 },
		{ "+", OP_ADD, 9 }, { "-", OP_SUB, 9 },
		{ "<<", OP_SHL, 8 }, { ">>", OP_SHR, 8 },
		{ "<", OP_LT, 7 }, { "<=", OP_LE, 7 }, { ">", OP_GT, 7 },
		{ ">=", OP_GE, 7 }, { "==", OP_EQ, 6 }, { "!=", OP_NE, 6 },
		{ "&", OP_AND, 5 }, { "^", OP_XOR, 4 }, { "|", OP_OR, 3 },
		{ "&&", OP_LAND, 2 }, { "||", OP_LOR, 1 },
	};
	for (size_t i = 0; i < PK_ARRAY_SIZE(t); i++)
		if (is_op(s, t[i].s)) {
			*prec = t[i].prec;
			return t[i].op;
		}
	return 0;
}

/* libtraceevent's operator priorities (smaller binds tighter) */
static int tep_prio(int op)
{
	switch (op) {
	case OP_MUL: case OP_DIV: case OP_MOD: return 6;
	case OP_ADD: case OP_SUB: return 7;
	case OP_SHL: case OP_SHR: return 8;
	case OP_LT: case OP_LE: case OP_GT: case OP_GE: return 9;
	case OP_EQ: case OP_NE: return 10;
	case OP_AND: return 11;
	case OP_XOR: return 12;
	case OP_OR: return 13;
	case OP_LAND: return 14;
	case OP_LOR: return 15;
	}
	return -1;
}

/* The priority libtraceevent's rotation reads from a node's operator
 * (get_op_prio of its op string), -1 for nodes that are no operator. */
static int rot_prio(const struct tf_node *n)
{
	switch (n->kind) {
	case TN_BIN: return tep_prio(n->op);
	case TN_UN: return n->op == OP_NEG || n->op == OP_POS ? 7 : 4;
	case TN_COND: return 16;
	default: return -1;
	}
}

static int chain(struct ps *s, int arg);

/* The unary operator at the current token, or 0. */
static int unary_op(const struct ps *s)
{
	return is_op(s, "!") ? OP_NOT : is_op(s, "~") ? OP_BNOT
	       : is_op(s, "-") ? OP_NEG : is_op(s, "+") ? OP_POS : 0;
}

/*
 * One item (libtraceevent's process_arg_token): a primary, or a unary
 * operator with its item, which then takes the operators after it.
 */
static int unary(struct ps *s)
{
	int op, n, a, prio;

	if (++s->depth > TF_MAX_DEPTH)
		return fail(s, "expression nests too deep");
	op = unary_op(s);
	if (!op) {
		n = primary(s);
		s->depth--;
		return n;
	}
	next(s);
	a = unary(s);
	if (a < 0 || (n = new_node(s, TN_UN)) < 0)
		return -1;
	s->ev->nodes[n] = (struct tf_node){ .kind = TN_UN, .op = (uint8_t)op,
					    .a = a, .b = -1, .prio = 0 };
	if ((binop(s, &prio) || is_op(s, "?")) && chain(s, n))
		return -1;
	s->depth--;
	return n;
}

/*
 * "ARG ? A : B" made in place of slot ARG (libtraceevent's process_cond):
 * A is a whole expression, B one item; operators after B apply to the
 * whole conditional (the caller continues the chain on ARG).
 */
static int ternary(struct ps *s, int arg)
{
	int c = new_node(s, TN_COND), a, b;

	if (c < 0)
		return -1;
	next(s);
	a = expr(s);
	if (a < 0 || expect(s, ":"))
		return -1;
	b = unary(s);
	if (b < 0)
		return -1;
	struct tf_node *N = s->ev->nodes;
	N[c] = N[arg];
	N[arg] = (struct tf_node){ .kind = TN_COND, .a = c, .b = a, .c = b,
				   .prio = 0 };
	return 0;
}

/* The left operand slot of operator node N (creating libtraceevent's
 * empty left of a unary operator as a 0). */
static int left_of(struct ps *s, int n)
{
	struct tf_node *N = s->ev->nodes;

	if (N[n].kind == TN_UN) {
		if (N[n].b < 0) {
			int z = num_node(s, 0);
			if (z < 0)
				return -1;
			s->ev->nodes[n].b = z;
		}
		return s->ev->nodes[n].b;
	}
	return N[n].a;
}

static void set_left(struct tf_node *n, int l)
{
	if (n->kind == TN_UN)
		n->b = l;
	else
		n->a = l;
}

/*
 * libtraceevent's process_op(): the operator after slot ARG turns ARG (in
 * place) into "copy-of-ARG OP item"; an operator node as the item whose
 * operator has a lower priority is rotated to the top, and a following
 * operator binds at this level when its priority is lower, else to the
 * item. The trees differ from C's in places; the values must be
 * libtraceevent's.
 */
static int chain(struct ps *s, int arg)
{
	int prio, op, l, r, ret;
	struct tf_node *N;

	if (++s->depth > TF_MAX_DEPTH)
		return fail(s, "expression nests too deep");
	if (is_op(s, "?")) {
		ret = ternary(s, arg);
		if (!ret && (binop(s, &prio) || is_op(s, "?")))
			ret = chain(s, arg);    /* prio 0: takes it all */
		s->depth--;
		return ret;
	}
	op = binop(s, &prio);
	if (!op) {
		s->depth--;
		return 0;
	}
	next(s);
	if ((l = new_node(s, TN_BIN)) < 0 || (r = unary(s)) < 0)
		return -1;
	N = s->ev->nodes;
	N[l] = N[arg];
	N[arg] = (struct tf_node){ .kind = TN_BIN, .op = (uint8_t)op, .a = l,
				   .b = r, .prio = (int8_t)tep_prio(op) };
	if (tep_prio(op) < rot_prio(&N[r])) {
		/* rotate: ARG = (L op R.left) R.op R.right */
		int rl = left_of(s, r);
		if (rl < 0)
			return -1;
		N = s->ev->nodes;
		N[arg].b = rl;
		struct tf_node t = N[arg];
		N[arg] = N[r];
		N[r] = t;
		set_left(&N[arg], r);
	}
	if (is_op(s, "?"))
		ret = chain(s, arg);
	else if ((op = binop(s, &prio)))
		ret = chain(s, tep_prio(op) > s->ev->nodes[arg].prio ? arg : r);
	else
		ret = 0;
	s->depth--;
	return ret;
}

/* ---- the kernel's reading (TF_KERNEL): C precedence ---- */

static int c_cond(struct ps *s);

static int c_unary(struct ps *s)
{
	int op, n, a;

	if (++s->depth > TF_MAX_DEPTH)
		return fail(s, "expression nests too deep");
	op = unary_op(s);
	if (!op) {
		n = primary(s);
	} else {
		next(s);
		if ((a = c_unary(s)) < 0 || (n = new_node(s, TN_UN)) < 0)
			return -1;
		s->ev->nodes[n] = (struct tf_node){ .kind = TN_UN,
			.op = (uint8_t)op, .a = a, .b = -1 };
	}
	s->depth--;
	return n;
}

/* Binary operators of precedence MIN and above, left to right. */
static int c_binary(struct ps *s, int min)
{
	int a = c_unary(s), op, prec, b, n;

	while (a >= 0 && (op = binop(s, &prec)) && prec >= min) {
		next(s);
		if (++s->depth > TF_MAX_DEPTH)
			return fail(s, "expression nests too deep");
		if ((b = c_binary(s, prec + 1)) < 0 ||
		    (n = new_node(s, TN_BIN)) < 0)
			return -1;
		s->depth--;
		s->ev->nodes[n] = (struct tf_node){ .kind = TN_BIN,
			.op = (uint8_t)op, .a = a, .b = b };
		a = n;
	}
	return a;
}

/* "C ? A : B" (right to left) or a binary expression. */
static int c_cond(struct ps *s)
{
	int c, a, b, n;

	if (++s->depth > TF_MAX_DEPTH)
		return fail(s, "expression nests too deep");
	c = c_binary(s, 1);
	if (c >= 0 && is_op(s, "?")) {
		next(s);
		if ((a = c_cond(s)) < 0 || expect(s, ":") ||
		    (b = c_cond(s)) < 0 || (n = new_node(s, TN_COND)) < 0)
			return -1;
		s->ev->nodes[n] = (struct tf_node){ .kind = TN_COND, .a = c,
						    .b = a, .c = b };
		c = n;
	}
	s->depth--;
	return c;
}

static int expr(struct ps *s)
{
	int a;

	if (s->kernel)
		return c_cond(s);
	if (++s->depth > TF_MAX_DEPTH)
		return fail(s, "expression nests too deep");
	a = unary(s);
	if (a >= 0 && chain(s, a))
		a = -1;
	s->depth--;
	return a;
}

/* ---- the format string ---- */

static int add_conv(struct ps *s, struct tf_conv *c)
{
	struct tf_event *ev = s->ev;
	struct tf_conv *n;

	if (ev->nr_convs >= TF_MAX_CONVS)
		return fail(s, "too many conversions");
	n = pk__realloc(ev->convs, (size_t)(ev->nr_convs + 1) * sizeof(*n));
	if (!n)
		return fail(s, "out of memory");
	ev->convs = n;
	n[ev->nr_convs++] = *c;
	return 0;
}

/* Splits FMT into conversions (arguments bound later). */
/* A bare %p as the kernel prints it with hash-ptr off (as %px): the
 * address in hex, zero-padded to the pointer's width, no "0x". */
static void kernel_ptr(const struct ps *s, struct tf_conv *c)
{
	c->kind = TC_INT;
	c->conv = 'x';
	c->zero = true;
	c->width = 2 * s->long_size;
	c->ls = s->long_size == 8 ? 1 : 0;
}

static int parse_fmt(struct ps *s, const char *f, size_t len)
{
	struct pk_buf lit = { 0 };
	size_t i = 0;
	int r = 0;

	while (!r) {
		struct tf_conv c = { 0 };
		lit.len = 0;
		while (i < len && f[i] != '%') {
			if (pk__buf_append(&lit, &f[i], 1))
				r = fail(s, "out of memory");
			i++;
		}
		if (i + 1 < len && f[i + 1] == '%') {
			/* "%%": a literal percent, continue the literal */
			long o;
			if (pk__buf_append(&lit, "%", 1))
				r = fail(s, "out of memory");
			i += 2;
			/* emit literal so far as its own END-less piece */
			o = add_text(s, lit.data, lit.len);
			c.kind = TC_END;
			c.lit = (uint32_t)o;
			c.lit_len = (uint32_t)lit.len;
			c.arg = -1;
			if (o < 0 || add_conv(s, &c))
				r = -1;
			continue;
		}
		long o = add_text(s, lit.data ? lit.data : "", lit.len);
		if (o < 0) {
			r = -1;
			break;
		}
		c.lit = (uint32_t)o;
		c.lit_len = (uint32_t)lit.len;
		c.arg = -1;
		if (i >= len) {
			c.kind = TC_END;
			r = add_conv(s, &c);
			break;
		}
		i++;
		for (; i < len && strchr("-0+ #", f[i]); i++) {
			c.left |= f[i] == '-';
			c.zero |= f[i] == '0';
			c.plus |= f[i] == '+';
			c.space |= f[i] == ' ';
			c.alt |= f[i] == '#';
		}
		if (c.plus || c.space) {        /* libtraceevent: ">+<d" */
			r = fail(s, "'+' or ' ' flag");
			break;
		}
		for (; i < len && isdigit((unsigned char)f[i]); i++)
			c.width = PK_MIN(c.width * 10 + (f[i] - '0'), 4096);
		if (i < len && f[i] == '.') {
			c.has_prec = true;
			for (i++; i < len && isdigit((unsigned char)f[i]); i++)
				c.prec = PK_MIN(c.prec * 10 + (f[i] - '0'),
						4096);
		}
		if (i + 1 < len && f[i] == 'h' && f[i + 1] == 'h') {
			c.ls = -2;
			i += 2;
		} else if (i < len && f[i] == 'h') {
			c.ls = -1;
			i++;
		} else if (i + 1 < len && f[i] == 'l' && f[i + 1] == 'l') {
			c.ls = 2;
			i += 2;
		} else if (i < len && f[i] == 'l') {
			c.ls = 1;
			i++;
		} else if (i < len && f[i] == 'L') {
			c.ls = 2;
			i++;
		} else if (i < len && f[i] == 'z') {
			c.ls = 1;       /* size_t */
			i++;
		}
		if (i >= len) {
			r = fail(s, "conversion at the end");
			break;
		}
		c.conv = f[i++];
		switch (c.conv) {
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o':
			c.kind = TC_INT;
			break;
		case 'c':       /* libtraceevent prints ">c<" */
			c.kind = TC_CHAR;
			if (!s->kernel)
				r = fail(s, "%c");
			break;
		case 's':
			c.kind = TC_STR;
			if (c.ls)
				r = fail(s, "%ls");
			break;
		case 'p':
			c.kind = TC_PTR;
			if (i < len && isalnum((unsigned char)f[i])) {
				if (!strchr("SsFf", f[i]))
					r = fail(s, "unsupported %p extension");
				c.kind = TC_SYM;
				c.sym = f[i++];
			}
			if (c.width || c.has_prec || c.left || c.zero ||
			    c.ls || c.plus || c.space || c.alt)
				r = fail(s, "%p with flags");
			else if (s->kernel && c.kind == TC_PTR)
				kernel_ptr(s, &c);
			break;
		default:
			r = fail(s, "unsupported conversion");
		}
		if (!r)
			r = add_conv(s, &c);
	}
	pk__buf_fini(&lit);
	return r;
}

int pk__tf_compile_fmt(struct tf_event *ev, const char *fmt, size_t len,
		   int long_size)
{
	struct ps s = { .p = fmt, .end = fmt, .ev = ev,
			.long_size = long_size };

	memset(ev, 0, sizeof(*ev));
	if (parse_fmt(&s, fmt, len) == 0) {
		ev->ok = true;
		for (int i = 0; i < ev->nr_convs; i++) {
			const struct tf_conv *c = &ev->convs[i];
			/* libtraceevent's argument sizes: int, long, 8 */
			if (c->ls < 0 || (c->kind == TC_INT && c->ls == 1 &&
					  long_size != 8))
				ev->ok = false;
		}
	}
	ev->text = s.text.data;
	if (!ev->text && !(ev->text = pk__strdup("")))
		return -ENOMEM;
	return 0;
}

/* Checks the argument ARG suits conversion C. */
static int check_arg(struct ps *s, const struct tf_conv *c, int arg, int d)
{
	const struct tf_node *n = &s->ev->nodes[arg];

	if (d > TF_MAX_DEPTH)
		return fail(s, "argument nests too deep");
	if (c->kind == TC_STR) {
		switch (n->kind) {
		case TN_STR: case TN_GETSTR: case TN_SYMBOLIC: case TN_FLAGS:
			return 0;
		case TN_FIELD: {
			/* arrays: their bytes; a long: the printk string at
			 * that address; else the field's bytes to the end */
			const struct tf_field *f = &s->ev->fields[n->a];
			if (f->flags & TFF_DYN)
				return fail(s, "%s of a dynamic array");
			return 0;
		}
		case TN_COND:
			if (check_arg(s, c, n->b, d + 1) ||
			    check_arg(s, c, n->c, d + 1))
				return -1;
			return 0;
		default:
			return fail(s, "%s of a number");
		}
	}
	/* numbers: no strings or tables inside */
	switch (n->kind) {
	case TN_NUM: return 0;
	case TN_FIELD:
		return n->op ? fail(s, "number from an array field") : 0;
	case TN_INDEX: return check_arg(s, c, n->b, d + 1);
	case TN_UN:
		if (n->b >= 0 && check_arg(s, c, n->b, d + 1))
			return -1;
		return check_arg(s, c, n->a, d + 1);
	case TN_CAST: return check_arg(s, c, n->a, d + 1);
	case TN_BIN:
		return check_arg(s, c, n->a, d + 1) ? -1
			: check_arg(s, c, n->b, d + 1);
	case TN_COND:
		return check_arg(s, c, n->a, d + 1) ? -1
			: check_arg(s, c, n->b, d + 1) ? -1
			: check_arg(s, c, n->c, d + 1);
	default:
		return fail(s, "string where a number is expected");
	}
}

/* Binds the arguments after the format string to the conversions. */
static int parse_args(struct ps *s)
{
	struct tf_event *ev = s->ev;

	next(s);
	for (int i = 0; i < ev->nr_convs; i++) {
		struct tf_conv *c = &ev->convs[i];
		if (c->kind == TC_END)
			continue;
		if (!is_op(s, ","))
			return fail(s, "fewer arguments than conversions");
		next(s);
		s->depth = 0;
		int a = expr(s);
		if (a < 0)
			return -1;
		c->arg = a;
		if (check_arg(s, c, a, 0))
			return -1;
	}
	if (s->t.type != T_EOF)
		return fail(s, "more arguments than conversions");
	return 0;
}

/* The print fmt line: format string(s) then arguments. */
static int compile_print(struct tf_event *ev, const char *p, const char *end,
			 int long_size, unsigned flags)
{
	struct ps s = { .p = p, .end = end, .ev = ev,
			.long_size = long_size,
			.kernel = (flags & TF_KERNEL) != 0 };
	struct pk_buf fmt = { 0 };
	int r = 0;

	next(&s);
	if (s.t.type != T_STR)
		r = fail(&s, "print fmt without a format string");
	while (!r && s.t.type == T_STR) {
		/* the format's escapes: \t \n, else the character itself */
		for (size_t i = 0; !r && i < s.t.len; i++) {
			char ch = s.t.s[i];
			if (ch == '\\' && i + 1 < s.t.len) {
				ch = s.t.s[++i];
				ch = ch == 't' ? '\t' : ch == 'n' ? '\n' : ch;
			}
			if (pk__buf_append(&fmt, &ch, 1))
				r = fail(&s, "out of memory");
		}
		/* peek: another string directly following? */
		const char *save = s.p;
		next(&s);
		if (s.t.type != T_STR) {
			s.p = save;
			break;
		}
	}
	if (!r)
		r = parse_fmt(&s, fmt.data ? fmt.data : "", fmt.len);
	if (!r)
		r = parse_args(&s);
	for (int i = 0; !r && i < ev->nr_convs; i++)
		if (ev->convs[i].kind == TC_INT && ev->convs[i].ls == 1 &&
		    long_size != 8)
			r = fail(&s, "%l with 4-byte longs");
	pk__buf_fini(&fmt);
	if (r) {
		ev->why = s.why ? s.why : "syntax";
		pk__buf_fini(&s.text);
		return 0;
	}
	ev->text = s.text.data;
	if (!ev->text)
		ev->text = pk__strdup("");
	ev->ok = ev->text != NULL;
	return 0;
}

/* ---- the format file ---- */

static const char *line_end(const char *p, const char *end)
{
	const char *e = memchr(p, '\n', (size_t)(end - p));
	return e ? e : end;
}

static bool starts(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);
	return (size_t)(end - p) >= n && !memcmp(p, w, n);
}

static long num_after(const char *p, const char *e, const char *key)
{
	size_t kl = strlen(key);
	for (; p + kl <= e; p++)
		if (!memcmp(p, key, kl))
			return bounded_dec(p + kl, e);
	return -1;
}

static int add_field(struct tf_event *ev, const char *p, const char *e)
{
	const char *semi = memchr(p, ';', (size_t)(e - p));
	long off = num_after(p, e, "offset:"), size = num_after(p, e, "size:");
	long sg = num_after(p, e, "signed:");
	struct tf_field f = { 0 };

	if (!semi || off < 0 || size < 0 || off > 0xffff || size > 0xffff)
		return PK_ERR_FORMAT;
	/* "TYPE NAME[N]" : the name is the last identifier before '[' */
	const char *d = semi, *bra = memchr(p, '[', (size_t)(semi - p));
	const char *ne = semi;
	long count = -1;
	if (bra && !starts(p, semi, "__data_loc") &&
	    !starts(p, semi, "__rel_loc")) {
		ne = bra;
		count = bounded_dec(bra + 1, semi);
	}
	while (ne > p && isspace((unsigned char)ne[-1]))
		ne--;
	d = ne;
	while (d > p && (isalnum((unsigned char)d[-1]) || d[-1] == '_'))
		d--;
	if (d == ne)
		return PK_ERR_FORMAT;
	f.name = pk__strndup(d, (size_t)(ne - d));
	const char *te = d;
	while (te > p && isspace((unsigned char)te[-1]))
		te--;
	f.type = pk__strndup(p, (size_t)(te - p));
	if (!f.name || !f.type) {
		pk__free(f.name);
		pk__free(f.type);
		return -ENOMEM;
	}
	f.off = (uint32_t)off;
	f.size = (uint32_t)size;
	if (sg > 0)
		f.flags |= TFF_SIGNED;
	if (!strncmp(f.type, "__data_loc", 10))
		f.flags |= TFF_DYN | TFF_ARRAY;
	if (!strncmp(f.type, "__rel_loc", 9))
		f.flags |= TFF_DYN | TFF_REL | TFF_ARRAY;
	if (bra && !(f.flags & TFF_DYN)) {
		f.flags |= TFF_ARRAY;
		f.elem = count > 0 ? (uint32_t)(size / count) : 0;
	}
	if (strstr(f.type, "char"))
		f.flags |= TFF_CHAR;
	if (!strcmp(f.type, "long") || !strcmp(f.type, "unsigned long"))
		f.flags |= TFF_LONG;
	struct tf_field *n = pk__realloc(ev->fields, (size_t)(ev->nr_fields + 1)
					* sizeof(*n));
	if (!n) {
		pk__free(f.name);
		pk__free(f.type);
		return -ENOMEM;
	}
	ev->fields = n;
	n[ev->nr_fields++] = f;
	return 0;
}

int pk__tf_find_field(const struct tf_event *ev, const char *name)
{
	for (int i = 0; i < ev->nr_fields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return i;
	return -1;
}

int pk__tf_compile(struct tf_event *ev, const char *text, size_t len,
	       const char *system, int long_size, unsigned flags)
{
	const char *p = text, *end = text + len;
	int r = 0;

	memset(ev, 0, sizeof(*ev));
	ev->id = -1;
	ev->common_pid = -1;
	ev->system = pk__strdup(system ? system : "");
	if (!ev->system)
		return -ENOMEM;
	bool blank = false, blank_before_own = true;
	while (p < end && !r) {
		const char *e = line_end(p, end), *q = p;
		while (q < e && isspace((unsigned char)*q))
			q++;
		if (q == e && ev->nr_fields)
			blank = true;
		if (starts(q, e, "name: ")) {
			pk__free(ev->name);
			ev->name = pk__strndup(q + 6, (size_t)(e - q - 6));
			if (!ev->name)
				r = -ENOMEM;
		} else if (starts(q, e, "ID: ")) {
			long id = bounded_dec(q + 4, e);
			ev->id = id >= 0 && id < 65536 ? (int)id : -1;
		} else if (starts(q, e, "field:")) {
			r = add_field(ev, q + 6, e);
			/* libtraceevent wants a blank line after the common
			 * fields */
			if (!r && strncmp(ev->fields[ev->nr_fields - 1].name,
					  "common_", 7) && !blank)
				blank_before_own = false;
		} else if (starts(q, e, "print fmt: ")) {
			/* the print fmt runs to the end of the text */
			const char *pe = end;
			while (pe > q && isspace((unsigned char)pe[-1]))
				pe--;
			if (ev->name && !ev->ok && !ev->nodes)
				r = compile_print(ev, q + 11, pe, long_size,
						  flags);
			break;
		}
		p = e + 1;
	}
	if (!r && (!ev->name || ev->id < 0))
		r = PK_ERR_FORMAT;
	if (r)
		return r;
	if (!blank_before_own && ev->ok) {
		ev->ok = false;
		ev->why = "no blank line after the common fields";
	}
	ev->common_pid = pk__tf_find_field(ev, "common_pid");
	ev->name_len = strlen(ev->name);
	if (!ev->why && !ev->ok)
		ev->why = "no print fmt";
	ev->plugin = TFP_NONE;
	ev->kernel = (flags & TF_KERNEL) != 0;
	if (!strcmp(ev->system, "ftrace") && !strcmp(ev->name, "bprint")) {
		pk__tf_bprint_bind(ev);     /* libtraceevent's own layout */
	} else if (!strcmp(ev->system, "ftrace") &&
		   strcmp(ev->name, "print")) {
		ev->ok = false;         /* special events: the caller's */
		ev->why = "ftrace event";
	}
	if (flags & TF_PLUGINS)
		pk__tf_plugin_bind(ev);
	return 0;
}

void pk__tf_event_fini(struct tf_event *ev)
{
	for (int i = 0; i < ev->nr_fields; i++) {
		pk__free(ev->fields[i].name);
		pk__free(ev->fields[i].type);
	}
	pk__free(ev->fields);
	pk__free(ev->nodes);
	pk__free(ev->convs);
	pk__free(ev->text);
	pk__free(ev->name);
	pk__free(ev->system);
	memset(ev, 0, sizeof(*ev));
}
