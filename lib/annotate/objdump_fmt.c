/* SPDX-License-Identifier: MIT */
/*
 * One instruction decoded by Zydis, spelled as GNU objdump (binutils
 * 2.40) prints it with --no-show-raw-insn: "mnemonic ops" with the
 * mnemonic padded to six columns, AT&T operands reversed and unspaced,
 * condition codes and conversions by objdump's names, size suffixes only
 * where no register gives the size, "*" before indirect targets, direct
 * targets as "ADDR <sym+0xOFF>" and rip-relative ones commented with
 * theirs. docs/annotate.md lists what still differs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "annotate/objdump_fmt.h"

struct alias { ZydisMnemonic m; const char *name; };

/* Zydis's condition names -> objdump's (both syntaxes). */
static const struct alias cc_names[] = {
	{ ZYDIS_MNEMONIC_JZ, "je" }, { ZYDIS_MNEMONIC_JNZ, "jne" },
	{ ZYDIS_MNEMONIC_JNBE, "ja" }, { ZYDIS_MNEMONIC_JNB, "jae" },
	{ ZYDIS_MNEMONIC_JNLE, "jg" }, { ZYDIS_MNEMONIC_JNL, "jge" },
	{ ZYDIS_MNEMONIC_SETZ, "sete" }, { ZYDIS_MNEMONIC_SETNZ, "setne" },
	{ ZYDIS_MNEMONIC_SETNBE, "seta" }, { ZYDIS_MNEMONIC_SETNB, "setae" },
	{ ZYDIS_MNEMONIC_SETNLE, "setg" }, { ZYDIS_MNEMONIC_SETNL, "setge" },
	{ ZYDIS_MNEMONIC_CMOVZ, "cmove" }, { ZYDIS_MNEMONIC_CMOVNZ, "cmovne" },
	{ ZYDIS_MNEMONIC_CMOVNBE, "cmova" }, { ZYDIS_MNEMONIC_CMOVNB, "cmovae" },
	{ ZYDIS_MNEMONIC_CMOVNLE, "cmovg" }, { ZYDIS_MNEMONIC_CMOVNL, "cmovge" },
};

/* AT&T's conversion names. */
static const struct alias att_names[] = {
	{ ZYDIS_MNEMONIC_CDQE, "cltq" }, { ZYDIS_MNEMONIC_CQO, "cqto" },
	{ ZYDIS_MNEMONIC_CDQ, "cltd" }, { ZYDIS_MNEMONIC_CWDE, "cwtl" },
	{ ZYDIS_MNEMONIC_CBW, "cbtw" }, { ZYDIS_MNEMONIC_CWD, "cwtd" },
	{ ZYDIS_MNEMONIC_MOVSXD, "movslq" },
};

static const char *alias_of(const struct alias *t, size_t n, ZydisMnemonic m)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].m == m)
			return t[i].name;
	return NULL;
}

static char size_letter(unsigned bits)
{
	switch (bits) {
	case 8: return 'b';
	case 16: return 'w';
	case 32: return 'l';
	default: return 'q';
	}
}

/* Categories whose memory-only forms objdump gives a size suffix. */
static bool suffixed_category(ZydisInstructionCategory c)
{
	switch (c) {
	case ZYDIS_CATEGORY_BINARY: case ZYDIS_CATEGORY_LOGICAL:
	case ZYDIS_CATEGORY_DATAXFER: case ZYDIS_CATEGORY_SHIFT:
	case ZYDIS_CATEGORY_ROTATE: case ZYDIS_CATEGORY_BITBYTE:
	case ZYDIS_CATEGORY_NOP: case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_SEMAPHORE:
		return true;
	default:
		return false;
	}
}

/* x87 memory operands: s/l/t for floats, s/l/ll for fi* integers. */
static const char *x87_suffix(const char *m, const ZydisDecodedOperand *ops,
			      unsigned n)
{
	static const char *const fl[] = { "fld", "fst", "fstp", "fadd", "fsub",
		"fsubr", "fmul", "fdiv", "fdivr", "fcom", "fcomp" };
	bool in = !strncmp(m, "fi", 2) && strcmp(m, "fincstp");
	unsigned bits = 0;

	for (unsigned i = 0; i < n; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
			bits = ops[i].size;
	if (in)
		return bits == 16 ? "s" : bits == 32 ? "l" : bits == 64 ? "ll" : NULL;
	for (size_t i = 0; i < PK_ARRAY_SIZE(fl); i++)
		if (!strcmp(m, fl[i]))
			return bits == 32 ? "s" : bits == 64 ? "l" :
			       bits == 80 ? "t" : NULL;
	return NULL;
}

struct fmt {
	char *p, *end;
};

static void put(struct fmt *f, const char *fmt, ...) PK_PRINTF(2, 3);
static void put(struct fmt *f, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (f->p >= f->end)
		return;
	va_start(ap, fmt);
	n = vsnprintf(f->p, (size_t)(f->end - f->p), fmt, ap);
	va_end(ap);
	if (n > 0)
		f->p += n < f->end - f->p ? n : f->end - f->p - 1;
}

static const char *reg(ZydisRegister r)
{
	const char *s = ZydisRegisterGetString(r);

	return s ? s : "?";
}

static void hex_signed(struct fmt *f, int64_t v)
{
	if (v < 0)
		put(f, "-0x%" PRIx64, (uint64_t)0 - (uint64_t)v);
	else
		put(f, "0x%" PRIx64, (uint64_t)v);
}

static void att_mem(struct fmt *f, const ZydisDecodedOperand *o)
{
	const struct ZydisDecodedOperandMem_ *m = &o->mem;

	if (m->segment == ZYDIS_REGISTER_FS || m->segment == ZYDIS_REGISTER_GS)
		put(f, "%%%s:", reg(m->segment));
	if (m->base == ZYDIS_REGISTER_NONE && m->index == ZYDIS_REGISTER_NONE) {
		put(f, "0x%" PRIx64, (uint64_t)m->disp.value);
		return;
	}
	if (m->disp.has_displacement)
		hex_signed(f, m->disp.value);
	put(f, "(");
	if (m->base != ZYDIS_REGISTER_NONE)
		put(f, "%%%s", reg(m->base));
	if (m->index != ZYDIS_REGISTER_NONE)
		put(f, ",%%%s,%u", reg(m->index), m->scale ? m->scale : 1);
	put(f, ")");
}

static uint64_t imm_value(const ZydisDecodedInstruction *zi,
			  const ZydisDecodedOperand *o)
{
	unsigned bits = zi->operand_width ? zi->operand_width : o->size;
	uint64_t v = o->imm.value.u;

	return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

static bool is_branch(const ZydisDecodedInstruction *zi)
{
	return zi->meta.category == ZYDIS_CATEGORY_CALL ||
	       zi->meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
	       zi->meta.category == ZYDIS_CATEGORY_COND_BR;
}

/* Direct targets and rip-relative references, with their labels. */
static void target(struct fmt *f, uint64_t t, const struct pk__objdump_ctx *c)
{
	char lab[300];

	c->label(c->arg, t, lab, sizeof(lab));
	if (lab[0])
		put(f, "%" PRIx64 "%s", t, lab);
	else
		put(f, "0x%" PRIx64, t); /* objdump: no symbol there */
}

static unsigned count_prefix(const ZydisDecodedInstruction *zi, uint8_t b)
{
	unsigned n = 0;

	for (unsigned i = 0; i < zi->raw.prefix_count; i++)
		n += zi->raw.prefixes[i].value == b;
	return n;
}

/* Prefix words objdump prints before the mnemonic. */
static void att_prefixes(struct fmt *f, const ZydisDecodedInstruction *zi)
{
	unsigned n66 = count_prefix(zi, 0x66);

	for (unsigned i = 1; i < n66; i++)
		put(f, "data16 ");
	if (count_prefix(zi, 0x2e))
		put(f, "cs ");
	if (zi->mnemonic == ZYDIS_MNEMONIC_RET && count_prefix(zi, 0xf3) &&
	    !(zi->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE)))
		put(f, "repz ");
	if (zi->attributes & ZYDIS_ATTRIB_HAS_LOCK)
		put(f, "lock ");
	if (zi->attributes & ZYDIS_ATTRIB_HAS_REP)
		put(f, "rep ");
	if (zi->attributes & ZYDIS_ATTRIB_HAS_REPE)
		put(f, "repz ");
	if (zi->attributes & ZYDIS_ATTRIB_HAS_REPNE)
		put(f, "repnz ");
	if (zi->attributes & ZYDIS_ATTRIB_HAS_BND)
		put(f, "bnd ");
	if (zi->attributes & ZYDIS_ATTRIB_HAS_NOTRACK)
		put(f, "notrack ");
}

/* vpcmp[u]{b,w,d,q} and [v]cmp{ps,pd,ss,sd} with a predicate objdump
 * names: "vpcmpeqb", "cmpltps"; the immediate is then not shown. */
static bool cmp_pseudo(char *buf, size_t len, const char *m,
		       const ZydisDecodedInstruction *zi,
		       const ZydisDecodedOperand *ops)
{
	static const char *const ipred[8] = { "eq", "lt", "le", NULL, "neq",
		"nlt", "nle", NULL };
	static const char *const fpred[8] = { "eq", "lt", "le", "unord",
		"neq", "nlt", "nle", "ord" };
	const ZydisDecodedOperand *imm = NULL;
	const char *rest;
	uint64_t v;

	for (unsigned i = 0; i < zi->operand_count_visible; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
			imm = &ops[i];
	if (!imm)
		return false;
	v = imm->imm.value.u & 0xff;
	if (!strncmp(m, "vpcmp", 5) && strlen(m) <= 7 && v < 8 && ipred[v]) {
		rest = m + 5;
		snprintf(buf, len, "vpcmp%s%s", ipred[v], rest);
		return true;
	}
	rest = !strncmp(m, "vcmp", 4) ? m + 4 : !strncmp(m, "cmp", 3) ? m + 3 : NULL;
	if (rest && strlen(rest) == 2 && (rest[0] == 'p' || rest[0] == 's') &&
	    (rest[1] == 's' || rest[1] == 'd') && v < 8) {
		snprintf(buf, len, "%.*s%s%s", (int)(rest - m), m, fpred[v], rest);
		return true;
	}
	return false;
}

/* The mnemonic into BUF; true when it holds the immediate operand. */
static bool att_mnemonic(char *buf, size_t len, const ZydisDecodedInstruction *zi,
			 const ZydisDecodedOperand *ops)
{
	const char *alias = alias_of(cc_names, PK_ARRAY_SIZE(cc_names),
				     zi->mnemonic) ?:
			    alias_of(att_names, PK_ARRAY_SIZE(att_names),
				     zi->mnemonic);
	const char *m = ZydisMnemonicGetString(zi->mnemonic);
	bool mem = false, regop = false;

	if (alias) {
		snprintf(buf, len, "%s", alias);
		return false;
	}
	if (m && cmp_pseudo(buf, len, m, zi, ops))
		return true;
	if (zi->mnemonic == ZYDIS_MNEMONIC_MOVZX ||
	    zi->mnemonic == ZYDIS_MNEMONIC_MOVSX) {
		snprintf(buf, len, "mov%c%c%c",
			 zi->mnemonic == ZYDIS_MNEMONIC_MOVZX ? 'z' : 's',
			 size_letter(ops[1].size), size_letter(ops[0].size));
		return false;
	}
	for (unsigned i = 0; i < zi->operand_count_visible; i++) {
		mem |= ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY;
		regop |= ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			 zi->mnemonic != ZYDIS_MNEMONIC_NOP;
	}
	if (zi->mnemonic == ZYDIS_MNEMONIC_MOV && !mem &&
	    zi->operand_count_visible == 2 &&
	    ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[1].size == 64) {
		snprintf(buf, len, "movabs");
		return false;
	}
	if (mem && m && strstr(m, "cvt") && (strstr(m, "si2sd") ||
					      strstr(m, "si2ss"))) {
		/* the integer's size from memory: cvtsi2sdl, cvtsi2ssq */
		for (unsigned i = 0; i < zi->operand_count_visible; i++)
			if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
				snprintf(buf, len, "%s%c", m,
					 size_letter(ops[i].size));
		return false;
	}
	if (mem && !regop && zi->meta.category == ZYDIS_CATEGORY_X87_ALU &&
	    x87_suffix(m, ops, zi->operand_count_visible)) {
		snprintf(buf, len, "%s%s", m, x87_suffix(m, ops,
			 zi->operand_count_visible));
		return false;
	}
	if (mem && !regop && suffixed_category(zi->meta.category))
		snprintf(buf, len, "%s%c", m ? m : "(bad)",
			 size_letter(zi->operand_width));
	else
		snprintf(buf, len, "%s", m ? m : "(bad)");
	return false;
}

/* AT&T's register forms of DC/DE swap sub/subr and div/divr (the old
 * UnixWare assembler's reading, which binutils keeps). */
static void x87_swap(char *m, const ZydisDecodedInstruction *zi)
{
	static const char *const pairs[][2] = {
		{ "fsub", "fsubr" }, { "fdiv", "fdivr" },
		{ "fsubp", "fsubrp" }, { "fdivp", "fdivrp" },
	};

	if (zi->opcode_map != ZYDIS_OPCODE_MAP_DEFAULT ||
	    (zi->opcode != 0xdc && zi->opcode != 0xde) || zi->raw.modrm.mod != 3)
		return;
	for (size_t i = 0; i < PK_ARRAY_SIZE(pairs); i++)
		for (int k = 0; k < 2; k++)
			if (!strcmp(m, pairs[i][k])) {
				strcpy(m, pairs[i][!k]);
				return;
			}
}

/* 66 90 is "xchg %ax,%ax" to objdump; D0/D1 shifts by one drop "$0x1". */
static bool att_special(struct fmt *f, const ZydisDecodedInstruction *zi)
{
	if (zi->mnemonic == ZYDIS_MNEMONIC_NOP && zi->length >= 2 &&
	    zi->opcode == 0x90 && count_prefix(zi, 0x66)) {
		put(f, "%-6s %%ax,%%ax", "xchg");
		return true;
	}
	return false;
}

static const char *acc(unsigned bits)
{
	switch (bits) {
	case 8: return "%al";
	case 16: return "%ax";
	case 32: return "%eax";
	default: return "%rax";
	}
}

/* String instructions: objdump shows their implicit operands. */
static bool att_string(struct fmt *f, const char *pre,
		       const ZydisDecodedInstruction *zi)
{
	const char *m = ZydisMnemonicGetString(zi->mnemonic);
	/* the prefixes' text (under 80 bytes) and the mnemonic */
	char mn[96];
	unsigned w = zi->operand_width;

	if (zi->meta.category != ZYDIS_CATEGORY_STRINGOP || !m)
		return false;
	if (!strncmp(m, "movs", 4) || !strncmp(m, "cmps", 4)) {
		snprintf(mn, sizeof(mn), "%s%.4s%c", pre, m, size_letter(w));
		put(f, "%-6s %s", mn, m[0] == 'm' ? "%ds:(%rsi),%es:(%rdi)" :
		    "%es:(%rdi),%ds:(%rsi)");
	} else if (!strncmp(m, "stos", 4)) {
		snprintf(mn, sizeof(mn), "%sstos", pre);
		put(f, "%-6s %s,%%es:(%%rdi)", mn, acc(w));
	} else if (!strncmp(m, "lods", 4) || !strncmp(m, "scas", 4)) {
		snprintf(mn, sizeof(mn), "%s%.4s", pre, m);
		put(f, "%-6s %s,%s", mn, m[0] == 'l' ? "%ds:(%rsi)" :
		    "%es:(%rdi)", acc(w));
	} else {
		return false;
	}
	return true;
}

/* AVX-512 masking after the destination: {%kN} ({kN} in Intel), {z}. */
static void att_mask(struct fmt *f, const ZydisDecodedInstruction *zi,
		     bool intel_syntax)
{
	if (zi->encoding != ZYDIS_INSTRUCTION_ENCODING_EVEX ||
	    zi->avx.mask.reg == ZYDIS_REGISTER_NONE ||
	    zi->avx.mask.reg == ZYDIS_REGISTER_K0)
		return;
	put(f, intel_syntax ? "{%s}" : "{%%%s}", reg(zi->avx.mask.reg));
	if (zi->raw.evex.z)
		put(f, "{z}");
}

static const char *intel_size(unsigned bits)
{
	switch (bits) {
	case 8: return "BYTE";
	case 16: return "WORD";
	case 32: return "DWORD";
	case 64: return "QWORD";
	case 80: return "TBYTE";
	case 128: return "XMMWORD";
	case 256: return "YMMWORD";
	case 512: return "ZMMWORD";
	default: return NULL;
	}
}

static void intel_mem(struct fmt *f, const ZydisDecodedInstruction *zi,
		      const ZydisDecodedOperand *o)
{
	const struct ZydisDecodedOperandMem_ *m = &o->mem;
	const char *sz = intel_size(o->size);
	bool fsgs = m->segment == ZYDIS_REGISTER_FS ||
		    m->segment == ZYDIS_REGISTER_GS;

	if (sz && zi->mnemonic != ZYDIS_MNEMONIC_LEA)
		put(f, "%s PTR ", sz);
	if (m->base == ZYDIS_REGISTER_NONE && m->index == ZYDIS_REGISTER_NONE) {
		put(f, "%s:0x%" PRIx64, fsgs ? reg(m->segment) : "ds",
		    (uint64_t)m->disp.value);
		return;
	}
	if (fsgs)
		put(f, "%s:", reg(m->segment));
	put(f, "[");
	if (m->base != ZYDIS_REGISTER_NONE)
		put(f, "%s", reg(m->base));
	if (m->index != ZYDIS_REGISTER_NONE)
		put(f, "%s%s*%u", m->base != ZYDIS_REGISTER_NONE ? "+" : "",
		    reg(m->index), m->scale ? m->scale : 1);
	if (m->disp.has_displacement) {
		if (m->base == ZYDIS_REGISTER_RIP) /* objdump: unsigned there */
			put(f, "+0x%" PRIx64, (uint64_t)m->disp.value);
		else if (m->disp.value < 0)
			put(f, "-0x%" PRIx64, (uint64_t)0 - (uint64_t)m->disp.value);
		else
			put(f, "+0x%" PRIx64, (uint64_t)m->disp.value);
	}
	put(f, "]");
}

/* One operand: AT&T ("%reg", "$imm", "*" before indirect targets) or
 * Intel; x87 registers "st(i)" where encoded, "st" where implied. */
static void operand(struct fmt *f, const ZydisDecodedInstruction *zi,
		    const ZydisDecodedOperand *o, uint64_t va, bool intel_syntax,
		    const struct pk__objdump_ctx *c, struct pk__objdump_insn *out)
{
	const char *pct = intel_syntax ? "" : "%";
	const char *star = !intel_syntax && is_branch(zi) ? "*" : "";

	switch (o->type) {
	case ZYDIS_OPERAND_TYPE_REGISTER:
		if (o->reg.value >= ZYDIS_REGISTER_ST0 &&
		    o->reg.value <= ZYDIS_REGISTER_ST7) {
			if (o->encoding == ZYDIS_OPERAND_ENCODING_MODRM_RM)
				put(f, "%sst(%d)", pct,
				    o->reg.value - ZYDIS_REGISTER_ST0);
			else
				put(f, "%sst", pct);
			break;
		}
		put(f, "%s%s%s", star, pct, reg(o->reg.value));
		break;
	case ZYDIS_OPERAND_TYPE_MEMORY:
		put(f, "%s", star);
		if (intel_syntax)
			intel_mem(f, zi, o);
		else
			att_mem(f, o);
		if (o->mem.base == ZYDIS_REGISTER_RIP) {
			out->has_rip = true;
			out->rip = va + zi->length + (uint64_t)o->mem.disp.value;
		}
		break;
	case ZYDIS_OPERAND_TYPE_IMMEDIATE:
		if (o->imm.is_relative) {
			out->has_target = true;
			out->target = va + zi->length + o->imm.value.u;
			target(f, out->target, c);
		} else {
			put(f, "%s0x%" PRIx64, intel_syntax ? "" : "$",
			    imm_value(zi, o));
		}
		break;
	default:
		put(f, "?");
	}
}

/* The operands from FIRST to N (Intel order; AT&T reversed), the mask
 * after the destination, the rip-relative comment. */
static void operands(struct fmt *f, const ZydisDecodedInstruction *zi,
		     const ZydisDecodedOperand *ops, unsigned n, bool no_imm,
		     uint64_t va, bool intel_syntax,
		     const struct pk__objdump_ctx *c, struct pk__objdump_insn *out)
{
	bool any = false;

	for (unsigned k = 0; k < n; k++) {
		unsigned i = intel_syntax ? k : n - 1 - k;

		if (ops[i].encoding == ZYDIS_OPERAND_ENCODING_MASK ||
		    (no_imm && ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE))
			continue;
		if (any)
			put(f, ",");
		operand(f, zi, &ops[i], va, intel_syntax, c, out);
		if (i == 0 && intel_syntax)
			att_mask(f, zi, true);
		any = true;
	}
	if (!intel_syntax)
		att_mask(f, zi, false);
	if (out->has_rip && !out->has_target) {
		put(f, "        # ");
		target(f, out->rip, c);
	}
}

static void att(struct fmt *f, const ZydisDecodedInstruction *zi,
		const ZydisDecodedOperand *ops, uint64_t va,
		const struct pk__objdump_ctx *c, struct pk__objdump_insn *out)
{
	char pre[80], base[40], mn[128];
	struct fmt pf = { pre, pre + sizeof(pre) };
	unsigned n = zi->operand_count_visible;
	bool no_imm;

	pre[0] = 0;
	att_prefixes(&pf, zi);
	if (att_special(f, zi) || att_string(f, pre, zi))
		return;
	no_imm = att_mnemonic(base, sizeof(base), zi, ops);
	x87_swap(base, zi);
	snprintf(mn, sizeof(mn), "%s%s", pre, base);

	if (zi->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
	    (zi->opcode == 0xd0 || zi->opcode == 0xd1) && n == 2)
		n = 1;          /* shift/rotate by one: no count */
	if (zi->mnemonic == ZYDIS_MNEMONIC_NOP && n == 2)
		n = 1;          /* nopw/nopl: the memory operand only */
	if (!n) {
		put(f, "%s", mn);
		return;
	}
	put(f, "%-6s ", mn);
	operands(f, zi, ops, n, no_imm, va, false, c, out);
}

/* String instructions with objdump's Intel operands. */
static bool intel_string(struct fmt *f, const char *pre,
			 const ZydisDecodedInstruction *zi)
{
	const char *m = ZydisMnemonicGetString(zi->mnemonic);
	const char *sz = intel_size(zi->operand_width);
	static const char *const accs[] = { "al", "ax", "eax", "rax" };
	const char *acc = accs[zi->operand_width == 8 ? 0 :
			       zi->operand_width == 16 ? 1 :
			       zi->operand_width == 32 ? 2 : 3];
	char mn[96];  /* the prefixes (under 80) and the mnemonic */

	if (zi->meta.category != ZYDIS_CATEGORY_STRINGOP || !m || !sz)
		return false;
	snprintf(mn, sizeof(mn), "%s%.4s", pre, m);
	if (!strncmp(m, "movs", 4))
		put(f, "%-6s %s PTR es:[rdi],%s PTR ds:[rsi]", mn, sz, sz);
	else if (!strncmp(m, "cmps", 4))
		put(f, "%-6s %s PTR ds:[rsi],%s PTR es:[rdi]", mn, sz, sz);
	else if (!strncmp(m, "stos", 4))
		put(f, "%-6s %s PTR es:[rdi],%s", mn, sz, acc);
	else if (!strncmp(m, "lods", 4))
		put(f, "%-6s %s,%s PTR ds:[rsi]", mn, acc, sz);
	else if (!strncmp(m, "scas", 4))
		put(f, "%-6s %s,%s PTR es:[rdi]", mn, acc, sz);
	else
		return false;
	return true;
}

/* objdump -M intel: the same decode, Intel order and spelling. */
static void intel(struct fmt *f, const ZydisDecodedInstruction *zi,
		  const ZydisDecodedOperand *ops, uint64_t va,
		  const struct pk__objdump_ctx *c, struct pk__objdump_insn *out)
{
	const char *m = ZydisMnemonicGetString(zi->mnemonic);
	const char *alias = alias_of(cc_names, PK_ARRAY_SIZE(cc_names),
				     zi->mnemonic);
	char pre[80], base[40], mn[128];
	struct fmt pf = { pre, pre + sizeof(pre) };
	unsigned n = zi->operand_count_visible;
	bool no_imm = false;

	pre[0] = 0;
	att_prefixes(&pf, zi);
	if (zi->mnemonic == ZYDIS_MNEMONIC_NOP && zi->opcode == 0x90 &&
	    count_prefix(zi, 0x66)) {
		put(f, "%-6s ax,ax", "xchg");
		return;
	}
	if (intel_string(f, pre, zi))
		return;
	if (alias)
		snprintf(base, sizeof(base), "%s", alias);
	else if (m && cmp_pseudo(base, sizeof(base), m, zi, ops))
		no_imm = true;
	else if (zi->mnemonic == ZYDIS_MNEMONIC_MOV && n == 2 &&
		 ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[1].size == 64)
		snprintf(base, sizeof(base), "movabs");
	else
		snprintf(base, sizeof(base), "%s", m ? m : "(bad)");
	snprintf(mn, sizeof(mn), "%s%s", pre, base);
	if (zi->opcode_map == ZYDIS_OPCODE_MAP_DEFAULT &&
	    (zi->opcode == 0xd0 || zi->opcode == 0xd1) && n == 2) {
		put(f, "%-6s ", mn);
		operand(f, zi, &ops[0], va, true, c, out);
		put(f, ",1");
		return;
	}
	if (zi->mnemonic == ZYDIS_MNEMONIC_NOP && n == 2)
		n = 1;
	if (!n) {
		put(f, "%s", mn);
		return;
	}
	put(f, "%-6s ", mn);
	operands(f, zi, ops, n, no_imm, va, true, c, out);
}

int pk__objdump_insn(const ZydisDecoder *dec, bool intel_syntax,
		     const uint8_t *b, size_t len, uint64_t va,
		     const struct pk__objdump_ctx *c, struct pk__objdump_insn *out)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	struct fmt f = { out->text, out->text + sizeof(out->text) };

	out->has_target = out->has_rip = false;
	out->text[0] = 0;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, b, len, &zi, ops))) {
		put(&f, "(bad)");
		return 1;
	}
	if (intel_syntax)
		intel(&f, &zi, ops, va, c, out);
	else
		att(&f, &zi, ops, va, c, out);
	return zi.length;
}
