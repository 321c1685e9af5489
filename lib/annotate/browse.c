// SPDX-License-Identifier: MIT
/*
 * perf's annotate browser's text of an annotation (perf report's a, perf
 * annotate --tui): instructions parsed as perf's x86 table parses them
 * (the mnemonic, then the operands by kind: jumps, calls, returns, nops,
 * moves and their like with a RIP-relative operand named by objdump's
 * comment, inc/dec, lock), offsets within the function in place of
 * addresses, shown only where a jump of the function lands, and the
 * arrows before jumps (up or down), calls and jumps out (right) and
 * returns (left).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "annotate/annotate_int.h"

enum ins_kind { K_RAW, K_JUMP, K_CALL, K_RET, K_NOP, K_MOV, K_DEC, K_LOCK };

/* perf 6.1's x86 instructions of the move kind (mov_ops). */
static const char *const mov_names[] = {
	"adc", "adcb", "adcl", "add", "addl", "addq", "addsd", "addw", "and",
	"andb", "andl", "andpd", "andps", "andq", "andw", "bsr", "bt", "btr",
	"bts", "btsq", "cmovbe", "cmove", "cmovae", "cmp", "cmpb", "cmpl",
	"cmpq", "cmpw", "cmpxch", "cmpxchg", "cs", "divsd", "divss", "gs",
	"imul", "lea", "mov", "movapd", "movaps", "movb", "movdqa", "movdqu",
	"movl", "movq", "movsd", "movslq", "movss", "movupd", "movups", "movw",
	"movzbl", "movzwl", "mulsd", "mulss", "or", "orb", "orl", "orps", "orq",
	"pand", "paddq", "pcmpeqb", "por", "rcl", "sbb", "sbbl", "sete", "sub",
	"subl", "subq", "subsd", "subw", "test", "testb", "testl", "ucomisd",
	"ucomiss", "vaddsd", "vandpd", "vmovdqa", "vmovq", "vmovsd", "vmulsd",
	"vorpd", "vsubsd", "vucomisd", "xadd", "xchg", "xor", "xorb", "xorpd",
	"xorps",
};

static const char *const jump_names[] = {
	"ja", "jae", "jb", "jbe", "jc", "jcxz", "je", "jecxz", "jg", "jge",
	"jl", "jle", "jmp", "jmpq", "jna", "jnae", "jnb", "jnbe", "jnc", "jne",
	"jng", "jnge", "jnl", "jnle", "jno", "jnp", "jns", "jnz", "jo", "jp",
	"jpe", "jpo", "jrcxz", "js", "jz", "loop", "loope", "loopne", "loopnz",
	"loopz", "xbeginl", "xbeginq",
};

static bool listed(const char *const *v, size_t n, const char *name,
		   size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(v[i]) == len && !strncmp(v[i], name, len))
			return true;
	return false;
}

#define NAMES(v) v, sizeof(v) / sizeof(v[0])

static enum ins_kind kind_of(const char *name, size_t len)
{
	if (listed(NAMES(jump_names), name, len))
		return K_JUMP;
	if ((len == 4 && !strncmp(name, "call", 4)) ||
	    (len == 5 && !strncmp(name, "callq", 5)))
		return K_CALL;
	if ((len == 3 && !strncmp(name, "ret", 3)) ||
	    (len == 4 && !strncmp(name, "retq", 4)))
		return K_RET;
	if ((len == 3 && !strncmp(name, "nop", 3)) ||
	    (len == 4 && (!strncmp(name, "nopl", 4) ||
			  !strncmp(name, "nopw", 4))))
		return K_NOP;
	if ((len == 3 && (!strncmp(name, "dec", 3) || !strncmp(name, "inc", 3))) ||
	    (len == 4 && (!strncmp(name, "decl", 4) || !strncmp(name, "incl", 4))))
		return K_DEC;
	if (len == 4 && !strncmp(name, "lock", 4))
		return K_LOCK;
	return listed(NAMES(mov_names), name, len) ? K_MOV : K_RAW;
}

/* An instruction as perf splits it: the first word, the rest trimmed. */
struct ins {
	const char *name;
	size_t len;
	char raw[512];
};

static void split(const char *text, struct ins *in)
{
	const char *p = text, *r;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	in->name = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	in->len = (size_t)(p - in->name);
	while (*p == ' ' || *p == '\t')
		p++;
	r = p + strlen(p);
	while (r > p && (r[-1] == ' ' || r[-1] == '\t'))
		r--;
	n = (size_t)(r - p) < sizeof(in->raw) - 1 ? (size_t)(r - p) :
	    sizeof(in->raw) - 1;
	memcpy(in->raw, p, n);
	in->raw[n] = '\0';
}

/* perf's comment__symbol: the <name> of objdump's "# ADDR <name>"
 * comment, for an operand that is RIP-relative; else NULL (in *OUT). */
static bool comment_symbol(const char *operand, const char *comment,
			   char *out, size_t size)
{
	const char *lt, *gt;

	if (!strstr(operand, "(%rip)") || !comment)
		return false;
	comment++;
	while (*comment == ' ')
		comment++;
	if (!((*comment >= '0' && *comment <= '9') ||
	      (*comment >= 'a' && *comment <= 'f')))
		return false;
	lt = strchr(comment, '<');
	gt = lt ? strchr(lt, '>') : NULL;
	if (!gt)
		return false;
	snprintf(out, size, "%.*s", (int)(gt - lt - 1), lt + 1);
	return true;
}

/* perf's mov__parse and mov__scnprintf: "NAME SOURCE,TARGET" with a
 * RIP-relative operand by its symbol; false when perf cannot parse it
 * (it prints the raw text then). */
static bool mov_text(const struct ins *in, int w, char *buf, size_t size)
{
	char src[512], dst[512], sname[256], dname[256];
	const char *raw = in->raw, *comma = strchr(raw, ','), *t, *comment, *e;
	size_t n;

	if (!comma)
		return false;
	/* SIB addressing in the source: up to its closing parenthesis */
	if (memchr(raw, '(', (size_t)(comma - raw))) {
		comma = strchr(raw, ')');
		if (!comma || comma[1] != ',')
			return false;
		comma++;
	}
	n = (size_t)(comma - raw);
	snprintf(src, sizeof(src), "%.*s", (int)n, raw);
	t = comma + 1;
	while (*t == ' ')
		t++;
	comment = strchr(comma + 1, '#');
	e = comment ? comment : t + strlen(t);
	while (e > t && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	snprintf(dst, sizeof(dst), "%.*s", (int)(e - t), t);
	snprintf(buf, size, "%-*.*s %s,%s", w, (int)in->len, in->name,
		 comment_symbol(src, comment, sname, sizeof(sname)) ? sname : src,
		 comment_symbol(dst, comment, dname, sizeof(dname)) ? dname : dst);
	return true;
}

/* The <name> of objdump's "ADDR <name>" operand without "+0x..", as
 * perf names the symbol holding the address; false when none. */
static bool target_name(const char *raw, char *out, size_t size)
{
	const char *lt = strchr(raw, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	const char *plus;

	if (!gt)
		return false;
	plus = memchr(lt, '+', (size_t)(gt - lt));
	snprintf(out, size, "%.*s", (int)((plus ? plus : gt) - lt - 1), lt + 1);
	return true;
}

static void raw_text(const struct ins *in, int w, char *buf, size_t size)
{
	snprintf(buf, size, "%-*.*s %s", w, (int)in->len, in->name, in->raw);
}

/* Whether jump line L lands within the function: its offset in *OFF. */
static bool local_target(const struct pk_annotation *an, const struct aline *l,
			 uint64_t *off)
{
	if (!l->has_target || l->target < an->sym.start ||
	    l->target > an->sym.end)
		return false;
	*off = l->target - an->sym.start;
	return true;
}

/* The instruction's text after the arrow column, and the arrow. */
static const char *ins_text(const struct pk_annotation *an,
			    const struct aline *l, char *buf, size_t size)
{
	struct ins in;
	char name[256];
	uint64_t off;
	int w = an->max_ins_name;

	split(l->text, &in);
	switch (kind_of(in.name, in.len)) {
	case K_JUMP:
		if (local_target(an, l, &off)) {
			snprintf(buf, size, "%-*.*s %" PRIx64, w, (int)in.len,
				 in.name, off);
			return l->target > l->addr ? "\xe2\x86\x93 " : "\xe2\x86\x91 ";
		}
		/* out of the function: objdump's text (perf 6.1's) */
		raw_text(&in, w, buf, size);
		return "\xe2\x86\x92 ";
	case K_CALL:
		/* perf's symbol holding the target, else objdump's name */
		if (l->has_target && l->target_sym)
			snprintf(buf, size, "%-*.*s %s", w, (int)in.len,
				 in.name, l->target_sym);
		else if (l->has_target && target_name(in.raw, name, sizeof(name)))
			snprintf(buf, size, "%-*.*s %s", w, (int)in.len,
				 in.name, name);
		else
			raw_text(&in, w, buf, size);
		return "\xe2\x86\x92 ";
	case K_RET:
		raw_text(&in, w, buf, size);
		return "\xe2\x86\x90 ";
	case K_NOP:
		snprintf(buf, size, "%-*s", w, "nop");
		return "  ";
	case K_MOV:
		if (!mov_text(&in, w, buf, size))
			raw_text(&in, w, buf, size);
		return "  ";
	case K_DEC: {
		const char *sp = in.raw + strcspn(in.raw, " \t");
		const char *comment = strchr(sp, '#');
		char opnd[512];

		snprintf(opnd, sizeof(opnd), "%.*s", (int)(sp - in.raw), in.raw);
		snprintf(buf, size, "%-*.*s %s", w, (int)in.len, in.name,
			 comment_symbol(opnd, comment, name, sizeof(name)) ?
			 name : opnd);
		return "  ";
	}
	case K_LOCK: {
		struct ins inner;
		int n = snprintf(buf, size, "%-*.*s ", w, (int)in.len, in.name);

		split(in.raw, &inner);
		if (n < 0 || (size_t)n >= size ||
		    kind_of(inner.name, inner.len) == K_RAW)
			return "  ";
		if (kind_of(inner.name, inner.len) != K_MOV ||
		    !mov_text(&inner, w, buf + n, size - (size_t)n))
			raw_text(&inner, w, buf + n, size - (size_t)n);
		return "  ";
	}
	default:
		raw_text(&in, w, buf, size);
		return "  ";
	}
}

static int hex_width(uint64_t v)
{
	int n = 1;

	while (v >>= 4)
		n++;
	return n;
}

void pk__annotation_browse_init(struct pk_annotation *an)
{
	an->off_width = hex_width(an->sym.end - an->sym.start);
	an->max_ins_name = 0;
	for (unsigned i = 0; i < an->nr; i++) {
		struct aline *l = &an->lines[i];
		struct ins in;
		uint64_t off;

		if (!l->insn)
			continue;
		split(l->text, &in);
		if ((int)in.len > an->max_ins_name)
			an->max_ins_name = (int)in.len;
		if (kind_of(in.name, in.len) != K_JUMP ||
		    !local_target(an, l, &off))
			continue;
		for (unsigned j = 0; j < an->nr; j++)
			if (an->lines[j].insn &&
			    an->lines[j].addr == an->sym.start + off) {
				an->lines[j].jump_sources++;
				an->lines[i].jump_to = (int)j + 1;
				break;
			}
	}
}

int pk_annotation_browser_text(const struct pk_annotation *an, int idx,
			       char *buf, size_t len)
{
	const struct aline *l;
	char ins[1024];
	const char *arrow;

	if (idx < 0 || (unsigned)idx >= an->nr || !len)
		return -EINVAL;
	l = &an->lines[idx];
	if (!l->insn) {
		if (!l->text[0])
			snprintf(buf, len, "%s", "");
		else
			snprintf(buf, len, "%-*s  %s", an->off_width, " ",
				 l->text);
		return 0;
	}
	arrow = ins_text(an, l, ins, sizeof(ins));
	if (l->jump_sources)
		snprintf(buf, len, "%*" PRIx64 ": %s%s", an->off_width,
			 l->addr - an->sym.start, arrow, ins);
	else
		snprintf(buf, len, "%-*s  %s%s", an->off_width, " ", arrow,
			 ins);
	return 0;
}

int pk_annotation_hottest(const struct pk_annotation *an)
{
	int best = -1;

	for (unsigned i = 0; i < an->nr; i++)
		if (an->lines[i].insn && an->lines[i].percent >= 0.01 &&
		    (best < 0 || an->lines[i].percent >= an->lines[best].percent))
			best = (int)i;
	return best;
}

int pk_annotation_jump_target(const struct pk_annotation *an, int idx)
{
	/* perf draws no arrow in a PLT symbol (its offsets are foreign) */
	if (idx < 0 || (unsigned)idx >= an->nr ||
	    pk__annotate_plt_name(an->sym.name))
		return -1;
	return an->lines[idx].jump_to - 1;
}

int pk_annotation_arrow_column(const struct pk_annotation *an)
{
	return an->off_width + 1;
}

int pk_annotation_fused(const struct pk_annotation *an, int idx)
{
	struct ins jump, prev;
	char name[64];
	int back = 1, i = idx - 1;

	if (pk_annotation_jump_target(an, idx) < 0)
		return 0;
	while (i >= 0 && !an->lines[i].insn) {
		i--;
		back++;
	}
	if (i < 0)
		return 0;
	split(an->lines[idx].text, &jump);
	split(an->lines[i].text, &prev);
	if (kind_of(prev.name, prev.len) == K_LOCK)
		split(prev.raw, &prev);
	snprintf(name, sizeof(name), "%.*s", (int)prev.len, prev.name);
	/* perf's x86 rule: a compare or an arithmetic instruction before a
	 * conditional jump (by substring, as perf) */
	if (memmem(jump.name, jump.len, "jmp", 3))
		return 0;
	if ((strstr(name, "cmp") && !strstr(name, "xchg")) ||
	    strstr(name, "test") || strstr(name, "add") ||
	    strstr(name, "sub") || strstr(name, "and") ||
	    strstr(name, "inc") || strstr(name, "dec"))
		return back;
	return 0;
}
