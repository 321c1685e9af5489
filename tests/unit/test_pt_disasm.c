/* SPDX-License-Identifier: MIT */
/*
 * Disassembly of an instruction's bytes: Intel syntax (pt decode's ptxed
 * layout) and AT&T as Intel's xed -A prints it (script --xed). The AT&T
 * expectations are xed's own lines quoted in perf-intel-pt(1)'s VM
 * examples (../shared/seeds); the Intel ones are ptxed's spelling.
 */
#include <string.h>
#include <perfkit/pt_insn.h>
#include "test.h"

struct want {
	const char *name;
	unsigned char raw[15];
	unsigned size;
	const char *att, *intel;
};

static const struct want cases[] = {
	{ "movq_disp", { 0x4c, 0x8b, 0x48, 0x48 }, 4,
	  "movq 0x48(%rax), %r9", "mov r9, [rax+0x48]" },
	{ "movq_base", { 0x48, 0x8b, 0x00 }, 3, "movq (%rax), %rax",
	  "mov rax, [rax]" },
	{ "nopl_sib", { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 5,
	  "nopl %eax, (%rax,%rax,1)", NULL },
	{ "popq", { 0x5d }, 1, "popq %rbp", "pop rbp" },
	{ "popq_r12", { 0x41, 0x5c }, 2, "popq %r12", "pop r12" },
	{ "pushq", { 0x56 }, 1, "pushq %rsi", "push rsi" },
	{ "movq_load_sp", { 0x48, 0x8b, 0x74, 0x24, 0x08 }, 5,
	  "movq 0x8(%rsp), %rsi", NULL },
	{ "movq_store_sp", { 0x48, 0x89, 0x7c, 0x24, 0x08 }, 5,
	  "movq %rdi, 0x8(%rsp)", NULL },
};

static void test_cases(void)
{
	char b[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct want *w = &cases[i];
		struct pk_pt_insn in = { .ip = 0xffffffff82133cdd,
					 .size = (uint8_t)w->size,
					 .mode = PK_PT_MODE_64 };
		char name[64];
		int err;

		memcpy(in.raw, w->raw, w->size);
		err = pk_pt_insn_disasm_att(&in, b, sizeof(b));
		snprintf(name, sizeof(name), "disasm_att_%s", w->name);
		t_check(!err && !strcmp(b, w->att), name, "err %d: '%s', want '%s'",
			err, err ? "" : b, w->att);
		if (!w->intel)
			continue;
		err = pk_pt_insn_disasm(&in, b, sizeof(b));
		snprintf(name, sizeof(name), "disasm_intel_%s", w->name);
		t_check(!err && !strcmp(b, w->intel), name,
			"err %d: '%s', want '%s'", err, err ? "" : b, w->intel);
	}
}

/* A relative branch's target is its own ip's, in lower-case hex; bytes
 * that are no instruction are an error; a short buffer says so. */
static void test_edges(void)
{
	struct pk_pt_insn call = { .ip = 0x40ec0b, .size = 5,
				   .mode = PK_PT_MODE_64,
				   .raw = { 0xe8, 0xf0, 0x16, 0x00, 0x00 } };
	struct pk_pt_insn bad = { .ip = 0x1000, .size = 1,
				  .mode = PK_PT_MODE_64, .raw = { 0x0f } };
	char b[64], tiny[4];
	int err;

	err = pk_pt_insn_disasm_att(&call, b, sizeof(b));
	t_check(!err && !strcmp(b, "call 0x410300"), "disasm_att_call_target",
		"err %d: '%s'", err, err ? "" : b);
	T_CHECK("disasm_att_bad_bytes",
		pk_pt_insn_disasm_att(&bad, b, sizeof(b)) ==
		PK_PT_ERR_BAD_INSN);
	T_CHECK("disasm_att_short_buffer",
		pk_pt_insn_disasm_att(&call, tiny, sizeof(tiny)) ==
		PK_ERR_RANGE);
	T_CHECK("disasm_att_null", pk_pt_insn_disasm_att(NULL, b, sizeof(b)) ==
		PK_ERR_INTERNAL);
}

int main(void)
{
	test_cases();
	test_edges();
	return t_exit();
}
