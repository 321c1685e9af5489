/* SPDX-License-Identifier: MIT */
/* lib/annotate: instructions spelled as objdump 2.40 spells them (the
 * expected texts are objdump -D --no-show-raw-insn's for the same bytes),
 * and the public API's argument checks. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <perfkit/annotate.h>
#include "annotate/objdump_fmt.h"
#include "test.h"

struct insn_case {
	uint64_t va;
	unsigned len;
	uint8_t b[15];
	const char *att;
};

static const struct insn_case cases[] = {
	{ 0x0, 4, { 0x0f, 0xb6, 0x45, 0x00 }, "movzbl 0x0(%rbp),%eax" },
	{ 0x4, 4, { 0x48, 0x63, 0x04, 0xb7 }, "movslq (%rdi,%rsi,4),%rax" },
	{ 0x8, 10, { 0xc7, 0x80, 0x04, 0x04, 0, 0, 1, 0, 0, 0 },
	  "movl   $0x1,0x404(%rax)" },
	{ 0x12, 7, { 0x48, 0x81, 0xc6, 0x00, 0xff, 0xff, 0xff },
	  "add    $0xffffffffffffff00,%rsi" },
	{ 0x19, 3, { 0x83, 0xc0, 0xff }, "add    $0xffffffff,%eax" },
	{ 0x1c, 2, { 0x66, 0x90 }, "xchg   %ax,%ax" },
	{ 0x1e, 4, { 0x0f, 0x1f, 0x40, 0x00 }, "nopl   0x0(%rax)" },
	{ 0x22, 4, { 0x48, 0x0f, 0xbe, 0xc0 }, "movsbq %al,%rax" },
	{ 0x26, 3, { 0x41, 0xff, 0xd4 }, "call   *%r12" },
	{ 0x29, 2, { 0xf3, 0xab }, "rep stos %eax,%es:(%rdi)" },
	{ 0x2b, 3, { 0xf3, 0x48, 0xab }, "rep stos %rax,%es:(%rdi)" },
	{ 0x2e, 4, { 0xc5, 0xfd, 0x6f, 0x06 }, "vmovdqa (%rsi),%ymm0" },
	{ 0x32, 6, { 0x62, 0xe1, 0xfe, 0x48, 0x6f, 0x06 },
	  "vmovdqu64 (%rsi),%zmm16" },
	{ 0x38, 9, { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 },
	  "mov    %fs:0x28,%rax" },
	{ 0x41, 4, { 0xf0, 0x0f, 0xb1, 0x11 }, "lock cmpxchg %edx,(%rcx)" },
	{ 0x45, 2, { 0xd1, 0xe8 }, "shr    %eax" },
	{ 0x47, 2, { 0x48, 0x98 }, "cltq" },
	{ 0x49, 4, { 0xf3, 0x0f, 0x1e, 0xfa }, "endbr64" },
	{ 0x4d, 8, { 0xf2, 0x0f, 0x10, 0x05, 1, 0, 0, 0 },
	  "movsd  0x1(%rip),%xmm0        # 0x56" },
	{ 0x55, 8, { 0x48, 0x8b, 0x04, 0xc5, 0x10, 0, 0, 0 },
	  "mov    0x10(,%rax,8),%rax" },
	{ 0x5d, 7, { 0x80, 0x3d, 1, 0, 0, 0, 0 },
	  "cmpb   $0x0,0x1(%rip)        # 0x65" },
	{ 0x64, 2, { 0x74, 0x10 }, "je     0x76" },
	{ 0x66, 5, { 0xe8, 0, 0, 0, 0 }, "call   0x6b" },
	{ 0x6b, 3, { 0x0f, 0x94, 0xc0 }, "sete   %al" },
	{ 0x6e, 4, { 0x48, 0x0f, 0x47, 0xc1 }, "cmova  %rcx,%rax" },
	{ 0x72, 2, { 0xdb, 0x28 }, "fldt   (%rax)" },
	{ 0x74, 10, { 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 },
	  "cs nopw 0x0(%rax,%rax,1)" },
	{ 0x7e, 7, { 0x62, 0xb3, 0x75, 0x20, 0x3f, 0xc2, 0x00 },
	  "vpcmpeqb %ymm18,%ymm17,%k0" },
	{ 0x85, 2, { 0x48, 0xa5 }, "movsq  %ds:(%rsi),%es:(%rdi)" },
	{ 0x87, 2, { 0xdb, 0xe8 }, "fucomi %st(0),%st" },
	{ 0x89, 2, { 0xdd, 0xd9 }, "fstp   %st(1)" },
	{ 0x8b, 2, { 0xd9, 0xc9 }, "fxch   %st(1)" },
	{ 0x8d, 2, { 0xde, 0xc1 }, "faddp  %st,%st(1)" },
	{ 0x8f, 2, { 0xd8, 0xc2 }, "fadd   %st(2),%st" },
	{ 0x91, 2, { 0xdc, 0xc2 }, "fadd   %st,%st(2)" },
	{ 0x93, 2, { 0xd9, 0xe8 }, "fld1" },
	{ 0x95, 4, { 0xf2, 0x0f, 0x2a, 0x00 }, "cvtsi2sdl (%rax),%xmm0" },
	{ 0x99, 5, { 0xf2, 0x48, 0x0f, 0x2a, 0x00 }, "cvtsi2sdq (%rax),%xmm0" },
	{ 0x9e, 2, { 0xde, 0xe9 }, "fsubrp %st,%st(1)" },
	{ 0xa0, 2, { 0xf3, 0xc3 }, "repz ret" },
};

static void no_label(void *arg, uint64_t t, char *buf, size_t len)
{
	(void)arg; (void)t;
	if (len)
		buf[0] = 0;
}

static void test_att(void)
{
	struct pk__objdump_ctx c = { no_label, NULL };
	ZydisDecoder dec;
	unsigned bad = 0;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (size_t i = 0; i < PK_ARRAY_SIZE(cases); i++) {
		const struct insn_case *k = &cases[i];
		struct pk__objdump_insn out;
		int n = pk__objdump_insn(&dec, false, k->b, k->len, k->va, &c, &out);

		if (n != (int)k->len || strcmp(out.text, k->att)) {
			t_fail("annotate_att_case", "%#" PRIx64 ": '%s' (%d bytes), objdump '%s'",
				k->va, out.text, n, k->att);
			bad++;
		}
	}
	t_check(!bad, "annotate_att", "%u of %zu differ", bad,
		PK_ARRAY_SIZE(cases));
}

static void test_api(void)
{
	errno = 0;
	t_check(!pk_annotate_new(NULL) && errno == EINVAL, "annotate_new_null",
		"errno %d", errno);
}

int main(void)
{
	test_att();
	test_api();
	return t_exit();
}
