/* SPDX-License-Identifier: MIT */
/* x86 instruction length and branch class for the PT flow, via Zydis. */
#include <string.h>
#include <Zydis/Zydis.h>
#include "base/base.h"
#include <perfkit/pt_insn.h>

static bool zy_init(ZydisDecoder *z, enum pk_pt_exec_mode mode)
{
	ZydisMachineMode mm;
	ZydisStackWidth sw;

	switch (mode) {
	case PK_PT_MODE_64:
		mm = ZYDIS_MACHINE_MODE_LONG_64;
		sw = ZYDIS_STACK_WIDTH_64;
		break;
	case PK_PT_MODE_32:
		mm = ZYDIS_MACHINE_MODE_LONG_COMPAT_32;
		sw = ZYDIS_STACK_WIDTH_32;
		break;
	case PK_PT_MODE_16:
		mm = ZYDIS_MACHINE_MODE_LONG_COMPAT_16;
		sw = ZYDIS_STACK_WIDTH_16;
		break;
	default:
		return false;
	}
	return ZYAN_SUCCESS(ZydisDecoderInit(z, mm, sw));
}

/* FRED's ERETS/ERETU (F2/F3 0F 01 CA), newer than this Zydis. */
static bool is_eret(const uint8_t *b, size_t n)
{
	return n >= 4 && (b[0] == 0xf2 || b[0] == 0xf3) && b[1] == 0x0f &&
	       b[2] == 0x01 && b[3] == 0xca;
}

static uint8_t classify(const ZydisDecodedInstruction *zi, const uint8_t *b)
{
	bool far = zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR;

	switch (zi->mnemonic) {
	case ZYDIS_MNEMONIC_CALL:
		if (far)
			return PK_PT_IC_FAR_CALL;
		return zi->raw.imm[0].is_relative ? PK_PT_IC_CALL
						  : PK_PT_IC_CALL_IND;
	case ZYDIS_MNEMONIC_JMP:
		if (far)
			return PK_PT_IC_FAR_JUMP;
		return zi->raw.imm[0].is_relative ? PK_PT_IC_JUMP
						  : PK_PT_IC_JUMP_IND;
	case ZYDIS_MNEMONIC_RET:
		return far ? PK_PT_IC_FAR_RETURN : PK_PT_IC_RETURN;
	case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3: case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_SYSCALL: case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_VMCALL:
		return PK_PT_IC_FAR_CALL;
	case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ: case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT: case ZYDIS_MNEMONIC_VMLAUNCH:
	case ZYDIS_MNEMONIC_VMRESUME: case ZYDIS_MNEMONIC_UIRET:
		return PK_PT_IC_FAR_RETURN;
	case ZYDIS_MNEMONIC_PTWRITE:
		return PK_PT_IC_PTWRITE;
	case ZYDIS_MNEMONIC_MOV:
		/* mov cr3, r: 0F 22 with ModRM.reg = 3 */
		if (zi->opcode_map == ZYDIS_OPCODE_MAP_0F &&
		    zi->opcode == 0x22 && zi->raw.modrm.reg == 3)
			return PK_PT_IC_MOV_CR3;
		return PK_PT_IC_OTHER;
	default:
		break;
	}
	(void)b;
	if (zi->meta.category == ZYDIS_CATEGORY_COND_BR)
		return PK_PT_IC_COND_JUMP;
	return PK_PT_IC_OTHER;
}

int pk_pt_insn_decode(const struct pk_pt_image *img, uint64_t ip,
		      enum pk_pt_exec_mode mode, struct pk_pt_insn *insn,
		      uint64_t *target)
{
	ZydisDecodedInstruction zi;
	ZydisDecoder z;
	size_t n;

	memset(insn, 0, sizeof(*insn));
	insn->ip = ip;
	insn->mode = (uint8_t)mode;
	n = pk_pt_image_read(img, ip, insn->raw, sizeof(insn->raw));
	if (!n)
		return PK_PT_ERR_NOMAP;
	if (!zy_init(&z, mode))
		return PK_PT_ERR_BAD_INSN;
	if (mode == PK_PT_MODE_64 && n >= 11 && insn->raw[0] == 0xd5 &&
	    insn->raw[1] == 0x00 && insn->raw[2] == 0xa1) {
		/* APX JMPABS imm64, newer than this Zydis */
		insn->size = 11;
		insn->iclass = PK_PT_IC_JUMP;
		if (target)
			for (int i = 7; i >= 0; i--)
				*target = (i == 7 ? 0 : *target << 8) |
					  insn->raw[3 + i];
		return 0;
	}
	if (is_eret(insn->raw, n)) {
		insn->size = 4;
		insn->iclass = PK_PT_IC_FAR_RETURN;
		return 0;
	}
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&z, NULL, insn->raw, n,
							&zi)))
		return n < sizeof(insn->raw) ? PK_PT_ERR_NOMAP
					     : PK_PT_ERR_BAD_INSN;
	insn->size = zi.length;
	insn->iclass = classify(&zi, insn->raw);
	if (target) {
		uint64_t t = ip + zi.length + (uint64_t)zi.raw.imm[0].value.s;

		if (mode == PK_PT_MODE_32)
			t &= 0xffffffffull;
		else if (mode == PK_PT_MODE_16)
			t &= 0xffffull;
		*target = t;
	}
	return 0;
}

/* xed's AT&T spelling where Zydis's differs: lower-case hex, numbers
 * unpadded, a size suffix with a memory operand (FORCE_SIZE) and on
 * push/pop. */
static bool att_like_xed(ZydisFormatter *f)
{
	return ZYAN_SUCCESS(ZydisFormatterSetProperty(f,
			ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE)) &&
	       ZYAN_SUCCESS(ZydisFormatterSetProperty(f,
			ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE)) &&
	       ZYAN_SUCCESS(ZydisFormatterSetProperty(f,
			ZYDIS_FORMATTER_PROP_DISP_PADDING,
			ZYDIS_PADDING_DISABLED)) &&
	       ZYAN_SUCCESS(ZydisFormatterSetProperty(f,
			ZYDIS_FORMATTER_PROP_IMM_PADDING,
			ZYDIS_PADDING_DISABLED)) &&
	       ZYAN_SUCCESS(ZydisFormatterSetProperty(f,
			ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
			ZYDIS_PADDING_DISABLED)) &&
	       ZYAN_SUCCESS(ZydisFormatterSetProperty(f,
			ZYDIS_FORMATTER_PROP_ADDR_PADDING_RELATIVE,
			ZYDIS_PADDING_DISABLED));
}

/* "push %rsi" -> "pushq %rsi" (xed names the size of a stack access). */
static void push_pop_suffix(const ZydisDecodedInstruction *zi, char *buf,
			    size_t len)
{
	size_t n = strlen(buf), m;
	char sfx;

	if (zi->mnemonic != ZYDIS_MNEMONIC_PUSH &&
	    zi->mnemonic != ZYDIS_MNEMONIC_POP)
		return;
	m = zi->mnemonic == ZYDIS_MNEMONIC_PUSH ? 4 : 3;
	if (n < m || (buf[m] != ' ' && buf[m]) || n + 2 > len)
		return;
	sfx = zi->operand_width == 64 ? 'q' : zi->operand_width == 32 ? 'l' :
	      zi->operand_width == 16 ? 'w' : 0;
	if (!sfx)
		return;
	memmove(buf + m + 1, buf + m, n - m + 1);
	buf[m] = sfx;
}

static int disasm(const struct pk_pt_insn *insn, bool att, char *buf,
		  size_t len)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction zi;
	ZydisFormatter fmt;
	ZydisDecoder z;

	if (!insn || !buf || !len)
		return PK_ERR_INTERNAL;
	if (!zy_init(&z, (enum pk_pt_exec_mode)insn->mode) ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&z, insn->raw, insn->size,
						 &zi, ops)) ||
	    !ZYAN_SUCCESS(ZydisFormatterInit(&fmt, att ?
					     ZYDIS_FORMATTER_STYLE_ATT :
					     ZYDIS_FORMATTER_STYLE_INTEL)) ||
	    (att && !att_like_xed(&fmt)))
		return PK_PT_ERR_BAD_INSN;
	if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(
		    &fmt, &zi, ops, zi.operand_count_visible, buf, len,
		    insn->ip, NULL)))
		return PK_ERR_RANGE;
	if (att)
		push_pop_suffix(&zi, buf, len);
	return 0;
}

int pk_pt_insn_disasm(const struct pk_pt_insn *insn, char *buf, size_t len)
{
	return disasm(insn, false, buf, len);
}

int pk_pt_insn_disasm_att(const struct pk_pt_insn *insn, char *buf,
			  size_t len)
{
	return disasm(insn, true, buf, len);
}
