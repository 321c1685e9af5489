/* SPDX-License-Identifier: MIT */
/*
 * CFI rules of one frame (from libdw) and the step they make: CFA, saved
 * registers, the return address; libunwind's frame-pointer fallback.
 */
#include <dwarf.h>
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "unwind/unwind_int.h"

/* ---- rules from libdw ---- */

static int copy_ops(struct uw_rule *r, const Dwarf_Op *ops, size_t n)
{
	r->ops = pk__calloc(n ? n : 1, sizeof(*ops));
	if (!r->ops)
		return -ENOMEM;
	memcpy(r->ops, ops, n * sizeof(*ops));
	r->nops = n;
	return 0;
}

/* CFA + constant forms: [cfa], [cfa, plus_uconst N], [cfa, consts N,
 * plus]; true with *OFF. */
static bool cfa_plus(const Dwarf_Op *o, size_t n, int64_t *off)
{
	if (n < 1 || o[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 1) {
		*off = 0;
		return true;
	}
	if (n == 2 && o[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)o[1].number;
		return true;
	}
	if (n == 3 && (o[1].atom == DW_OP_consts || o[1].atom == DW_OP_constu) &&
	    o[2].atom == DW_OP_plus) {
		*off = (int64_t)o[1].number;
		return true;
	}
	return false;
}

static int reg_rule(struct uw_rule *r, Dwarf_Op *ops, size_t n)
{
	bool value = false;
	int64_t off;

	memset(r, 0, sizeof(*r));
	if (n == 0) {
		r->kind = ops == NULL ? UW_SAME : UW_UNDEF;
		return 0;
	}
	if (ops[n - 1].atom == DW_OP_stack_value) {
		value = true;
		n--;
	}
	if (cfa_plus(ops, n, &off)) {
		r->kind = value ? UW_VAL : UW_MEM;
		r->off = off;
		return 0;
	}
	r->kind = value ? UW_VALEXPR : UW_EXPR;
	return copy_ops(r, ops, n);
}

int pk__uw_frame_from_dw(struct uw_frame *f, Dwarf_Frame *df)
{
	Dwarf_Op *ops, mem[3];
	size_t n;
	int err;

	memset(f, 0, sizeof(*f));
	f->ra = dwarf_frame_info(df, NULL, NULL, &f->signal);
	if (f->ra < 0 || f->ra >= UW_NREGS)
		return PK_ERR_FORMAT;
	if (dwarf_frame_cfa(df, &ops, &n) || n == 0)
		return PK_ERR_FORMAT;
	if (n == 1 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		f->cfa.kind = UW_REG;
		f->cfa.reg = (int8_t)(ops[0].atom - DW_OP_breg0);
		f->cfa.off = (int64_t)ops[0].number;
	} else if (n == 1 && ops[0].atom == DW_OP_bregx && ops[0].number < 32) {
		f->cfa.kind = UW_REG;
		f->cfa.reg = (int8_t)ops[0].number;
		f->cfa.off = (int64_t)ops[0].number2;
	} else {
		f->cfa.kind = UW_VALEXPR;
		if ((err = copy_ops(&f->cfa, ops, n)))
			return err;
	}
	for (int i = 0; i < UW_NREGS; i++) {
		if (dwarf_frame_register(df, i, mem, &ops, &n)) {
			f->r[i].kind = UW_UNDEF;
			continue;
		}
		if ((err = reg_rule(&f->r[i], ops, n)))
			return err;
	}
	return 0;
}

void pk__uw_frame_fini(struct uw_frame *f)
{
	pk__free(f->cfa.ops);
	for (int i = 0; i < UW_NREGS; i++)
		pk__free(f->r[i].ops);
	memset(f, 0, sizeof(*f));
}

/* ---- DWARF expressions ---- */

#define EVAL_DEPTH 64

int pk__uw_eval(const Dwarf_Op *ops, size_t n, const struct uw_regs *regs,
		uint64_t cfa, bool push_cfa, uw_read_fn rd, void *arg,
		uint64_t *out, bool *is_value)
{
	uint64_t st[EVAL_DEPTH], a, b;
	int sp = 0;

#define PUSH(v) do { uint64_t v_ = (v); if (sp >= EVAL_DEPTH) return -EINVAL; st[sp++] = v_; } while (0)
#define NEED(k) do { if (sp < (k)) return -EINVAL; } while (0)
	*is_value = false;
	if (push_cfa)
		PUSH(cfa);
	for (size_t i = 0; i < n; i++) {
		const Dwarf_Op *o = &ops[i];
		uint8_t at = o->atom;

		if (at >= DW_OP_lit0 && at <= DW_OP_lit31) {
			PUSH((uint64_t)(at - DW_OP_lit0));
			continue;
		}
		if ((at >= DW_OP_breg0 && at <= DW_OP_breg31) || at == DW_OP_bregx) {
			int r = at == DW_OP_bregx ? (int)PK_MIN(o->number, 255u) :
				at - DW_OP_breg0;
			uint64_t off = at == DW_OP_bregx ? o->number2 : o->number;

			if (!uw_reg_ok(regs, r))
				return -EINVAL;
			PUSH(regs->v[r] + off);
			continue;
		}
		switch (at) {
		case DW_OP_call_frame_cfa:
			PUSH(cfa);
			break;
		case DW_OP_addr: case DW_OP_const1u: case DW_OP_const1s:
		case DW_OP_const2u: case DW_OP_const2s: case DW_OP_const4u:
		case DW_OP_const4s: case DW_OP_const8u: case DW_OP_const8s:
		case DW_OP_constu: case DW_OP_consts:
			PUSH(o->number);
			break;
		case DW_OP_plus_uconst:
			NEED(1);
			st[sp - 1] += o->number;
			break;
		case DW_OP_dup:
			NEED(1);
			PUSH(st[sp - 1]);
			break;
		case DW_OP_drop:
			NEED(1);
			sp--;
			break;
		case DW_OP_over:
			NEED(2);
			PUSH(st[sp - 2]);
			break;
		case DW_OP_swap:
			NEED(2);
			a = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = a;
			break;
		case DW_OP_deref:
			NEED(1);
			if (rd(arg, st[sp - 1], &st[sp - 1]) < 0)
				return -EINVAL;
			break;
		case DW_OP_neg:
			NEED(1);
			st[sp - 1] = -st[sp - 1];
			break;
		case DW_OP_not:
			NEED(1);
			st[sp - 1] = ~st[sp - 1];
			break;
		case DW_OP_abs:
			NEED(1);
			if ((int64_t)st[sp - 1] < 0)
				st[sp - 1] = -st[sp - 1];
			break;
		case DW_OP_plus: case DW_OP_minus: case DW_OP_mul:
		case DW_OP_and: case DW_OP_or: case DW_OP_xor:
		case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
		case DW_OP_eq: case DW_OP_ne: case DW_OP_lt: case DW_OP_gt:
		case DW_OP_le: case DW_OP_ge:
			NEED(2);
			b = st[--sp];
			a = st[sp - 1];
			switch (at) {
			case DW_OP_plus: a += b; break;
			case DW_OP_minus: a -= b; break;
			case DW_OP_mul: a *= b; break;
			case DW_OP_and: a &= b; break;
			case DW_OP_or: a |= b; break;
			case DW_OP_xor: a ^= b; break;
			case DW_OP_shl: a = b >= 64 ? 0 : a << b; break;
			case DW_OP_shr: a = b >= 64 ? 0 : a >> b; break;
			case DW_OP_shra:
				a = (uint64_t)((int64_t)a >> (b >= 63 ? 63 : b));
				break;
			case DW_OP_eq: a = (int64_t)a == (int64_t)b; break;
			case DW_OP_ne: a = (int64_t)a != (int64_t)b; break;
			case DW_OP_lt: a = (int64_t)a < (int64_t)b; break;
			case DW_OP_gt: a = (int64_t)a > (int64_t)b; break;
			case DW_OP_le: a = (int64_t)a <= (int64_t)b; break;
			default: a = (int64_t)a >= (int64_t)b; break;
			}
			st[sp - 1] = a;
			break;
		case DW_OP_nop:
			break;
		case DW_OP_stack_value:
			if (i + 1 != n)
				return -EINVAL;
			*is_value = true;
			break;
		default:
			return -EINVAL;
		}
	}
#undef PUSH
#undef NEED
	if (sp < 1)
		return -EINVAL;
	*out = st[sp - 1];
	return 0;
}

/* ---- one step ---- */

/* The caller's value of register I under rule R: 1 known, 0 not
 * (unreadable: libunwind fails only when such a register is used). */
static int restore(const struct uw_rule *r, const struct uw_cursor *c,
		   uint64_t cfa, uw_read_fn rd, void *arg, int i,
		   uint64_t *v)
{
	bool isval;
	uint64_t x;

	switch (r->kind) {
	case UW_SAME:
	case UW_UNDEF:
		*v = c->regs.v[i];
		return uw_reg_ok(&c->regs, i);
	case UW_MEM:
		return rd(arg, cfa + (uint64_t)r->off, v) >= 0;
	case UW_VAL:
		*v = cfa + (uint64_t)r->off;
		return 1;
	case UW_EXPR:
	case UW_VALEXPR:
		if (pk__uw_eval(r->ops, r->nops, &c->regs, cfa, false, rd, arg,
				&x, &isval))
			return 0;
		if (r->kind == UW_VALEXPR || isval) {
			*v = x;
			return 1;
		}
		return rd(arg, x, v) >= 0;
	default:
		return 0;
	}
}

static int compute_cfa(const struct uw_cursor *c, const struct uw_frame *f,
		       uw_read_fn rd, void *arg, uint64_t *cfa)
{
	bool isval;

	if (f->cfa.kind == UW_REG) {
		int r = f->cfa.reg;

		/* libunwind: a CFA on the unsaved sp is the current CFA */
		if (r == UW_RSP) {
			*cfa = c->cfa + (uint64_t)f->cfa.off;
			return 0;
		}
		if (!uw_reg_ok(&c->regs, r))
			return -EFAULT;
		*cfa = c->regs.v[r] + (uint64_t)f->cfa.off;
		return 0;
	}
	if (pk__uw_eval(f->cfa.ops, f->cfa.nops, &c->regs, c->cfa, false, rd,
			arg, cfa, &isval))
		return -EFAULT;
	return 0;
}

int pk__uw_apply(struct uw_cursor *c, const struct uw_frame *f,
		 uw_read_fn rd, void *arg)
{
	struct uw_regs nr = { .valid = 0 };
	uint64_t cfa, prev_ip = c->ip, prev_cfa = c->cfa, ip = 0;
	const struct uw_rule *ra = &f->r[f->ra];
	int err;

	/* the cursor's rip is its ip, its rsp its CFA (libunwind) */
	c->regs.v[UW_RIP] = c->ip;
	c->regs.v[UW_RSP] = c->cfa;
	c->regs.valid |= 1u << UW_RIP | 1u << UW_RSP;
	if ((err = compute_cfa(c, f, rd, arg, &cfa)))
		return err;
	for (int i = 0; i < UW_NREGS; i++) {
		if (i == f->ra || i == UW_RSP)
			continue;
		if (restore(&f->r[i], c, cfa, rd, arg, i, &nr.v[i]))
			nr.valid |= 1u << i;
	}
	if (ra->kind != UW_UNDEF) {
		if (!restore(ra, c, cfa, rd, arg, f->ra, &ip))
			return -EFAULT;
	}
	/* the x86-64 ABI's end of stack: rbp undefined */
	if (f->r[UW_RBP].kind == UW_UNDEF)
		nr.valid = 0;
	nr.v[UW_RSP] = cfa;
	nr.valid |= 1u << UW_RSP;
	c->regs = nr;
	c->ip = ip;
	c->cfa = cfa;
	c->use_prev = !f->signal;
	if (ip == prev_ip && cfa == prev_cfa)
		return -ELOOP;
	return ra->kind == UW_UNDEF ? 0 : 1;
}

static bool is_plt(uint64_t ip, uw_read_fn rd, void *arg)
{
	uint64_t w0, w1;

	if (rd(arg, ip, &w0) < 0 || rd(arg, ip + 8, &w1) < 0)
		return false;
	return (w0 & 0xffff) == 0x25ff && ((w0 >> 48) & 0xff) == 0x68 &&
	       ((w1 >> 24) & 0xff) == 0xe9;
}

int pk__uw_fallback(struct uw_cursor *c, uw_read_fn rd, void *arg)
{
	uint64_t prev_ip = c->ip, prev_cfa = c->cfa, rbp, rbp1, ip;
	bool have_rip = true;

	/* (libunwind 1.6 asks here whether the frame is a signal frame,
	 * which it only knows from CFI: never, on this path) */
	if (is_plt(c->ip, rd, arg)) {
		if (rd(arg, c->cfa, &ip) < 0)
			return -EFAULT;
		c->cfa += 8;
	} else {
		if (!uw_reg_ok(&c->regs, UW_RBP))
			return 0; /* rbp unknown: the end */
		rbp = c->regs.v[UW_RBP];
		if (!rbp)
			return 0;
		if (rd(arg, rbp, &rbp1) < 0 || rbp < c->cfa ||
		    rbp - c->cfa > 0x4000)
			have_rip = false;
		c->cfa += 16;
		c->regs.valid = 1u << UW_RSP;
		if (!have_rip)
			return 0;
		c->regs.v[UW_RBP] = rbp1;
		c->regs.valid |= 1u << UW_RBP;
		if (rd(arg, rbp + 8, &ip) < 0)
			return -EFAULT;
	}
	c->ip = ip;
	c->regs.v[UW_RSP] = c->cfa;
	c->use_prev = true;
	if (c->ip == prev_ip && c->cfa == prev_cfa)
		return -ELOOP;
	return 1;
}
