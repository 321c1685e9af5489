/* SPDX-License-Identifier: MIT */
/*
 * Runs a compiled print program over one record: expressions on 64-bit
 * unsigned values (as libtraceevent evaluates them), printf conversions
 * done by hand into the output buffer.
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "base/bytes.h"
#include "tracefmt/compile.h"

struct ectx {
	const struct tf_event *ev;
	struct tf_env *env;
	const uint8_t *data;
	uint32_t size;
	bool fb;                /* fall back */
};

int pk__tf_out_grow(struct tf_out *o, size_t need)
{
	size_t cap = o->cap ? o->cap : 1 << 16;

	struct pk_bigbuf m;

	while (cap - o->len < need)
		cap *= 2;
	char *p = pk__bigbuf_alloc(&m, cap);
	if (!p)
		return -ENOMEM;
	if (o->len)
		memcpy(p, o->p, o->len);
	pk__bigbuf_free(&o->mem);
	o->mem = m;
	o->p = p;
	o->cap = cap;
	return 0;
}

void pk__tf_out_fini(struct tf_out *o)
{
	pk__bigbuf_free(&o->mem);
	memset(o, 0, sizeof(*o));
}

uint64_t pk__tf_field_u64(const struct tf_env *env, const struct tf_field *f,
		      const uint8_t *data)
{
	const uint8_t *p = data + f->off;

	switch (f->size) {
	case 1: return *p;
	case 2: return pk_ld16(p, env->big);
	case 4: return pk_ld32(p, env->big);
	case 8: return pk_ld64(p, env->big);
	default: return 0;
	}
}

char *pk__tf_put_u64(char *p, uint64_t v)
{
	static const char d2[] =
		"00010203040506070809101112131415161718192021222324252627282930"
		"31323334353637383940414243444546474849505152535455565758596061"
		"62636465666768697071727374757677787980818283848586878889909192"
		"93949596979899";
	char tmp[24];
	int n = 24;

	if (v < 10) {
		*p = (char)('0' + v);
		return p + 1;
	}
	while (v >= 100) {
		unsigned k = (unsigned)(v % 100) * 2;
		v /= 100;
		tmp[--n] = d2[k + 1];
		tmp[--n] = d2[k];
	}
	if (v >= 10) {
		tmp[--n] = d2[v * 2 + 1];
		tmp[--n] = d2[v * 2];
	} else {
		tmp[--n] = (char)('0' + v);
	}
	memcpy(p, tmp + n, (size_t)(24 - n));
	return p + (24 - n);
}

char *pk__tf_put_hex(char *p, uint64_t v, bool upper)
{
	const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = dig[v & 15];
		v >>= 4;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static uint64_t eval(struct ectx *x, int ni, int depth);

static uint64_t read_field(struct ectx *x, int fi)
{
	const struct tf_field *f = &x->ev->fields[fi];

	if ((uint64_t)f->off + f->size > x->size ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)) {
		x->fb = true;
		return 0;
	}
	return pk__tf_field_u64(x->env, f, x->data);
}

static uint64_t binop(struct ectx *x, int op, uint64_t a, uint64_t b)
{
	/* where libtraceevent's signedness might differ from ours, or C
	 * leaves it undefined, let the other formatter decide */
	bool top = (a | b) >> 63;

	switch (op) {
	case OP_MUL: return a * b;
	case OP_DIV:
		if (!b || top)
			break;
		return a / b;
	case OP_MOD:
		if (!b || top)
			break;
		return a % b;
	case OP_ADD: return a + b;
	case OP_SUB: return a - b;
	case OP_SHL:
		if (b >= 64)
			break;
		return a << b;
	case OP_SHR:
		if (b >= 64 || top)
			break;
		return a >> b;
	case OP_LT: if (top) break; return a < b;
	case OP_LE: if (top) break; return a <= b;
	case OP_GT: if (top) break; return a > b;
	case OP_GE: if (top) break; return a >= b;
	case OP_EQ: return a == b;
	case OP_NE: return a != b;
	case OP_AND: return a & b;
	case OP_XOR: return a ^ b;
	case OP_OR: return a | b;
	case OP_LAND: return a && b;
	case OP_LOR: return a || b;
	}
	x->fb = true;
	return 0;
}

static uint64_t eval(struct ectx *x, int ni, int depth)
{
	const struct tf_node *n = &x->ev->nodes[ni];
	uint64_t a;

	if (depth > TF_MAX_DEPTH * 2) {
		x->fb = true;
		return 0;
	}
	switch (n->kind) {
	case TN_NUM:
		return n->v;
	case TN_FIELD:
		return read_field(x, n->a);
	case TN_UN: {
		uint64_t l = n->b >= 0 ? eval(x, n->b, depth + 1) : 0;
		a = eval(x, n->a, depth + 1);
		return n->op == OP_NOT ? !a : n->op == OP_BNOT ? ~a
		       : n->op == OP_POS ? l + a : l - a;
	}
	case TN_INDEX: {
		/* libtraceevent: the element size of the array field */
		const struct tf_field *f = &x->ev->fields[n->a];
		uint64_t i = eval(x, n->b, depth + 1);
		uint32_t es = f->elem;
		if (i >= f->size / es ||
		    (uint64_t)f->off + (i + 1) * es > x->size) {
			x->fb = true;
			return 0;
		}
		struct tf_field e = { .off = (uint32_t)(f->off + i * es),
				      .size = es };
		return pk__tf_field_u64(x->env, &e, x->data);
	}
	case TN_BIN:
		a = eval(x, n->a, depth + 1);
		return binop(x, n->op, a, eval(x, n->b, depth + 1));
	case TN_COND:
		return eval(x, n->a, depth + 1) ? eval(x, n->b, depth + 1)
						: eval(x, n->c, depth + 1);
	case TN_CAST:
		a = eval(x, n->a, depth + 1);
		return n->v ? a & n->v : a;
	default:
		x->fb = true;
		return 0;
	}
}

/* ---- output ---- */

static int put(struct tf_out *o, const char *s, size_t n)
{
	if (tf_out_reserve(o, n))
		return -ENOMEM;
	memcpy(o->p + o->len, s, n);
	o->len += n;
	return 0;
}

static int pad(struct tf_out *o, char c, int n)
{
	if (n <= 0)
		return 0;
	if (tf_out_reserve(o, (size_t)n))
		return -ENOMEM;
	memset(o->p + o->len, c, (size_t)n);
	o->len += (size_t)n;
	return 0;
}

/* %s of S (LEN bytes) with width/precision/'-' */
static int put_str(struct tf_out *o, const struct tf_conv *c, const char *s,
		   size_t len)
{
	if (c->has_prec && len > (size_t)c->prec)
		len = (size_t)c->prec;
	int w = c->width - (int)PK_MIN(len, 1u << 20);
	if (!c->left && pad(o, ' ', w))
		return -ENOMEM;
	if (put(o, s, len))
		return -ENOMEM;
	if (c->left && pad(o, ' ', w))
		return -ENOMEM;
	return 0;
}

static int put_int(struct tf_out *o, const struct tf_conv *c, uint64_t v)
{
	char dig[32], pre[4];
	int nd, np = 0;
	bool neg = false;

	if (c->conv == 'd' || c->conv == 'i') {
		int64_t sv;
		switch (c->ls) {
		case -2: sv = (signed char)v; break;
		case -1: sv = (short)v; break;
		case 0: sv = (int)v; break;
		default: sv = (int64_t)v; break;
		}
		neg = sv < 0;
		v = neg ? -(uint64_t)sv : (uint64_t)sv;
		if (neg)
			pre[np++] = '-';
		else if (c->plus)
			pre[np++] = '+';
		else if (c->space)
			pre[np++] = ' ';
	} else {
		switch (c->ls) {
		case -2: v &= 0xff; break;
		case -1: v &= 0xffff; break;
		case 0: v &= 0xffffffff; break;
		default: break;
		}
	}
	if (c->has_prec && c->prec == 0 && v == 0) {
		nd = 0;
	} else if (c->conv == 'x' || c->conv == 'X') {
		nd = (int)(pk__tf_put_hex(dig, v, c->conv == 'X') - dig);
		if (c->alt && v) {
			pre[np++] = '0';
			pre[np++] = c->conv;
		}
	} else if (c->conv == 'o') {
		char tmp[24];
		int n = 0;
		do {
			tmp[n++] = (char)('0' + (v & 7));
			v >>= 3;
		} while (v);
		nd = 0;
		if (c->alt && tmp[n - 1] != '0' &&
		    !(c->has_prec && c->prec > n))
			dig[nd++] = '0';
		while (n)
			dig[nd++] = tmp[--n];
	} else {
		nd = (int)(pk__tf_put_u64(dig, v) - dig);
	}
	int zeros = c->has_prec && c->prec > nd ? c->prec - nd : 0;
	int total = np + zeros + nd;
	int w = c->width - total;
	if (w > 0 && c->zero && !c->left && !c->has_prec) {
		zeros += w;
		w = 0;
	}
	if (tf_out_reserve(o, (size_t)(PK_MAX(c->width, 0) + total + 8)))
		return -ENOMEM;
	if (!c->left)
		pad(o, ' ', w);
	put(o, pre, (size_t)np);
	pad(o, '0', zeros);
	put(o, dig, (size_t)nd);
	if (c->left)
		pad(o, ' ', w);
	return 0;
}

static int put_sym(struct ectx *x, struct tf_out *o, const struct tf_conv *c,
		   uint64_t v)
{
	const struct pk_ksym *s;
	char buf[40], *p = buf;

	if (x->ev->kernel && x->env->kernel_sym)
		return x->env->kernel_sym(x->env, o, v,
					  c->sym == 'S' || c->sym == 'F');
	s = pk__tf_sym_find(x->env, v);

	if (!s) {
		*p++ = '0';
		*p++ = 'x';
		p = pk__tf_put_hex(p, v, false);
		return put(o, buf, (size_t)(p - buf));
	}
	if (put(o, s->name, s->len))
		return -ENOMEM;
	if (c->sym == 'S' || c->sym == 'F') {
		p = buf;
		memcpy(p, "+0x", 3);
		p = pk__tf_put_hex(p + 3, v - s->addr, false);
		return put(o, buf, (size_t)(p - buf));
	}
	return 0;
}

/* The string argument N of a %s (or fall back). */
static int put_str_arg(struct ectx *x, struct tf_out *o,
		       const struct tf_conv *c, int ni, int depth)
{
	const struct tf_node *n = &x->ev->nodes[ni];
	const char *text = x->ev->text;

	if (depth > TF_MAX_DEPTH * 2) {
		x->fb = true;
		return 0;
	}
	switch (n->kind) {
	case TN_STR:
		return put_str(o, c, text + n->a, (size_t)n->b);
	case TN_COND:
		return put_str_arg(x, o, c, eval(x, n->a, depth + 1) ? n->b : n->c,
				   depth + 1);
	case TN_FIELD: {
		const struct tf_field *f = &x->ev->fields[n->a];
		if ((uint64_t)f->off + f->size > x->size) {
			x->fb = true;
			return 0;
		}
		if (!(f->flags & TFF_ARRAY) &&
		    f->size == (uint32_t)x->env->long_size) {
			/* a pointer to a printk string, else its hex */
			uint64_t a = read_field(x, n->a);
			const struct tf_pstr *ps = pk__tf_printk_find(x->env, a);
			char buf[24];
			if (ps && ps->odd)
				x->fb = true;
			if (ps)
				return x->fb ? 0 : put_str(o, c, ps->s, ps->len);
			return put_str(o, c, buf,
				       (size_t)(pk__tf_put_hex(buf, a, false) - buf));
		}
		/* libtraceevent copies SIZE bytes (0: to the end of the
		 * record) and adds a NUL */
		size_t len = f->size ? f->size : x->size - f->off;
		const char *s = (const char *)x->data + f->off;
		const char *z = memchr(s, 0, len);
		return put_str(o, c, s, z ? (size_t)(z - s) : len);
	}
	case TN_GETSTR: {
		const struct tf_field *f = &x->ev->fields[n->a];
		if ((uint64_t)f->off + 4 > x->size) {
			x->fb = true;
			return 0;
		}
		uint32_t loc = pk_ld32(x->data + f->off, x->env->big);
		uint32_t off = loc & 0xffff;
		if (f->flags & TFF_REL)
			off += f->off + f->size;
		if (off >= x->size) {
			x->fb = true;
			return 0;
		}
		const char *s = (const char *)x->data + off;
		const char *z = memchr(s, 0, x->size - off);
		if (!z) {
			x->fb = true;   /* runs past the record */
			return 0;
		}
		return put_str(o, c, s, (size_t)(z - s));
	}
	case TN_SYMBOLIC: {
		uint64_t v = eval(x, n->a, depth + 1);
		for (int i = 0; i < n->c; i++) {
			const struct tf_node *p = &x->ev->nodes[n->b + i];
			if (p->v == v)
				return put_str(o, c, text + p->a, (size_t)p->c);
		}
		char buf[24] = "0x", *e = pk__tf_put_hex(buf + 2, v, false);
		return put(o, buf, (size_t)(e - buf));
	}
	case TN_FLAGS: {
		uint64_t v = eval(x, n->a, depth + 1);
		const char *delim = text + (uint32_t)n->v;
		size_t dl = (size_t)(n->v >> 32);
		bool printed = false;
		for (int i = 0; i < n->c; i++) {
			const struct tf_node *p = &x->ev->nodes[n->b + i];
			/* libtraceevent: values are signed, unknown names -1 */
			if (!v && (int64_t)p->v < 0) {
				return put_str(o, c, text + p->a, (size_t)p->c);
			}
			if ((int64_t)p->v > 0 && (v & p->v) == p->v) {
				if (printed && put(o, delim, dl))
					return -ENOMEM;
				if (put_str(o, c, text + p->a, (size_t)p->c))
					return -ENOMEM;
				printed = true;
				v &= ~p->v;
			}
		}
		if (v) {
			char buf[24] = "0x", *e = pk__tf_put_hex(buf + 2, v, false);
			if (printed && put(o, delim, dl))
				return -ENOMEM;
			return put(o, buf, (size_t)(e - buf));
		}
		return 0;
	}
	default:
		x->fb = true;
		return 0;
	}
}

/* %p as glibc prints it */
static int put_ptr(struct tf_out *o, uint64_t v)
{
	char buf[24] = "0x", *e;

	if (!v)
		return put(o, "(nil)", 5);
	e = pk__tf_put_hex(buf + 2, v, false);
	return put(o, buf, (size_t)(e - buf));
}

static int run(struct ectx *x, struct tf_out *o)
{
	const struct tf_event *ev = x->ev;
	int r = 0;

	for (int i = 0; i < ev->nr_convs && !r && !x->fb; i++) {
		const struct tf_conv *c = &ev->convs[i];
		uint64_t v;
		if (c->lit_len && (r = put(o, ev->text + c->lit, c->lit_len)))
			break;
		switch (c->kind) {
		case TC_END:
			break;
		case TC_INT:
			v = eval(x, c->arg, 0);
			r = put_int(o, c, v);
			break;
		case TC_CHAR: {
			char ch = (char)eval(x, c->arg, 0);
			r = put_str(o, c, &ch, 1);
			break;
		}
		case TC_STR:
			r = put_str_arg(x, o, c, c->arg, 0);
			break;
		case TC_PTR:
			r = put_ptr(o, eval(x, c->arg, 0));
			break;
		case TC_SYM:
			v = eval(x, c->arg, 0);
			r = put_sym(x, o, c, v);
			break;
		}
	}
	return r;
}

/* The compiled conversions of "%ps: " and the printk string PS. */
static const struct tf_event *bprint_fmt(struct tf_env *env,
					 const struct tf_pstr *ps)
{
	size_t i = (size_t)(ps - env->pstrs);

	if (!env->bfmts &&
	    !(env->bfmts = pk__calloc(env->nr_pstrs, sizeof(*env->bfmts))))
		return NULL;
	if (!env->bfmts[i]) {
		char *f = pk__malloc((size_t)ps->len + 6);
		struct tf_event *e = pk__zalloc(sizeof(*e));
		if (!f || !e) {
			pk__free(f);
			pk__free(e);
			return NULL;
		}
		memcpy(f, "%ps: ", 5);
		memcpy(f + 5, ps->s, ps->len);
		int r = pk__tf_compile_fmt(e, f, (size_t)ps->len + 5,
				       env->long_size);
		pk__free(f);
		if (r < 0) {
			pk__tf_event_fini(e);
			pk__free(e);
			return NULL;
		}
		env->bfmts[i] = e;
	}
	return env->bfmts[i];
}

/*
 * ftrace:bprint as libtraceevent prints it: "%ps: " of ip, then the
 * trace_printk format with its arguments from buf (numbers 4-byte
 * aligned, int 4 / long / long long 8 bytes; strings inline).
 */
int pk__tf_bprint(const struct tf_event *ev, struct tf_env *env,
	      const uint8_t *data, uint32_t size, struct tf_out *out)
{
	struct ectx x = { ev, env, data, size, false };
	const struct tf_field *fi = &ev->fields[ev->pf[0]];
	const struct tf_field *ff = &ev->fields[ev->pf[1]];
	size_t start = out->len, bp = ev->fields[ev->pf[2]].off;
	int r = 0;

	if (fi->off + 8 > size || ff->off + 8 > size || bp > size)
		return TF_FALLBACK;
	uint64_t ip = pk__tf_field_u64(env, fi, data);
	const struct tf_pstr *ps = pk__tf_printk_find(env, pk__tf_field_u64(env, ff,
								    data));
	if (!ps || ps->odd)
		return TF_FALLBACK;
	const struct tf_event *bf = bprint_fmt(env, ps);
	if (!bf)
		return -ENOMEM;
	if (!bf->ok)
		return TF_FALLBACK;
	bool first = true;
	for (int i = 0; i < bf->nr_convs && !r && !x.fb; i++) {
		const struct tf_conv *c = &bf->convs[i];
		uint64_t v;
		if (c->lit_len && (r = put(out, bf->text + c->lit, c->lit_len)))
			break;
		if (c->kind == TC_END)
			continue;
		if (first) {
			v = ip;         /* the "%ps: " */
			first = false;
		} else if (c->kind == TC_STR) {
			const char *s = (const char *)data + bp;
			const char *z = bp < size ? memchr(s, 0, size - bp) : NULL;
			if (!z) {
				x.fb = true;
				break;
			}
			r = put_str(out, c, s, (size_t)(z - s));
			bp += (size_t)(z - s) + 1;
			continue;
		} else {
			unsigned vs = c->kind == TC_INT && c->ls == 0 ? 4
				: c->ls == 2 ? 8 : (unsigned)env->long_size;
			bp = (bp + 3) & ~(size_t)3;
			if (bp + vs > size) {
				x.fb = true;
				break;
			}
			v = vs == 4 ? pk_ld32(data + bp, env->big)
				    : pk_ld64(data + bp, env->big);
			bp += vs;
		}
		switch (c->kind) {
		case TC_INT: r = put_int(out, c, v); break;
		case TC_PTR: r = put_ptr(out, v); break;
		case TC_SYM: r = put_sym(&x, out, c, v); break;
		default: x.fb = true; break;
		}
	}
	if (r < 0 || x.fb) {
		out->len = start;
		return r < 0 ? r : TF_FALLBACK;
	}
	return 0;
}

int pk__tf_print(const struct tf_event *ev, struct tf_env *env,
	     const uint8_t *data, uint32_t size, struct tf_out *out)
{
	struct ectx x = { ev, env, data, size, false };
	size_t start = out->len;
	int r;

	if (ev->plugin == TFP_FALLBACK)
		return TF_FALLBACK;
	if (ev->plugin == TFP_BPRINT)
		return pk__tf_bprint(ev, env, data, size, out);
	if (ev->plugin != TFP_NONE) {
		r = pk__tf_plugin_print(ev, env, data, size, out);
		if (r && (ev->plugin != TFP_KMEM || r != 1)) {
			out->len = start;
			return r;
		}
		if (ev->plugin != TFP_KMEM)
			return 0;
	}
	if (!ev->ok)
		return TF_FALLBACK;
	r = run(&x, out);
	if (r < 0 || x.fb) {
		out->len = start;
		return r < 0 ? r : TF_FALLBACK;
	}
	return 0;
}
