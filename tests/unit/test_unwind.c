/* SPDX-License-Identifier: MIT */
/*
 * The DWARF unwinder: perf's register order, the stack-copy reader and its
 * last-word rule, DWARF expressions, the CFI step and libunwind's
 * frame-pointer fallback on synthetic frames; then whole unwinds of this
 * very test's stack (registers and stack bytes captured the way the
 * kernel copies them), inline frames, and bad samples.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dwarf.h>
#include <perfkit/session.h>
#include <perfkit/synth.h>
#include <perfkit/unwind.h>
#include "unwind/unwind_int.h"
#include "test.h"

/* ---- perf registers ---- */

static void test_regs(void)
{
	uint64_t vals[24];
	struct uw_regs r;
	int n;

	T_CHECK("unwind_reg_ax", pk__uw_dwarf_of_perf(0) == UW_RAX);
	T_CHECK("unwind_reg_bx", pk__uw_dwarf_of_perf(1) == UW_RBX);
	T_CHECK("unwind_reg_dx", pk__uw_dwarf_of_perf(3) == UW_RDX);
	T_CHECK("unwind_reg_sp", pk__uw_dwarf_of_perf(7) == UW_RSP);
	T_CHECK("unwind_reg_ip", pk__uw_dwarf_of_perf(8) == UW_RIP);
	T_CHECK("unwind_reg_flags", pk__uw_dwarf_of_perf(9) == -1);
	T_CHECK("unwind_reg_r8", pk__uw_dwarf_of_perf(16) == 8);
	T_CHECK("unwind_reg_r15", pk__uw_dwarf_of_perf(23) == 15);
	T_CHECK("unwind_reg_xmm", pk__uw_dwarf_of_perf(32) == -1);

	/* perf's x86-64 user set 0xff0fff: 20 values in bit order */
	for (int i = 0; i < 24; i++)
		vals[i] = 0x1000 + (uint64_t)i;
	n = pk__uw_regs_from_perf(&r, PERF_SAMPLE_REGS_ABI_64, 0xff0fff, vals,
				  20);
	t_check(n == 17, "unwind_regs_full", "%d registers", n);
	T_CHECK("unwind_regs_values", r.v[UW_RAX] == 0x1000 &&
		r.v[UW_RBX] == 0x1001 && r.v[UW_RCX] == 0x1002 &&
		r.v[UW_RDX] == 0x1003 && r.v[UW_RSP] == 0x1007 &&
		r.v[UW_RIP] == 0x1008 && r.v[8] == 0x1000 + 12 &&
		r.v[15] == 0x1000 + 19);
	/* a minimal set: bp sp ip only */
	n = pk__uw_regs_from_perf(&r, PERF_SAMPLE_REGS_ABI_64,
				  1u << 6 | 1u << 7 | 1u << 8, vals, 3);
	T_CHECK("unwind_regs_minimal", n == 3 && r.v[UW_RBP] == 0x1000 &&
		r.v[UW_RSP] == 0x1001 && r.v[UW_RIP] == 0x1002 &&
		!uw_reg_ok(&r, UW_RBX) && uw_reg_ok(&r, UW_RBP));
	/* fewer values than the mask says: the rest stays unknown */
	n = pk__uw_regs_from_perf(&r, PERF_SAMPLE_REGS_ABI_64, 0xff0fff, vals, 2);
	T_CHECK("unwind_regs_short", n == 2 && !uw_reg_ok(&r, UW_RIP));
	n = pk__uw_regs_from_perf(&r, 0, 0xff0fff, vals, 20);
	T_CHECK("unwind_regs_abi_none", n == 0 && r.valid == 0);
}

/* ---- the stack copy ---- */

static void test_stack(void)
{
	uint8_t buf[64];
	struct uw_stack st = { 0x7000, buf, sizeof(buf) };
	uint64_t v = 0;

	for (int i = 0; i < 64; i++)
		buf[i] = (uint8_t)i;
	T_CHECK("unwind_stack_first", pk__uw_stack_read(&st, 0x7000, &v) &&
		v == 0x0706050403020100ull);
	T_CHECK("unwind_stack_inner", pk__uw_stack_read(&st, 0x7000 + 48, &v) &&
		(v & 0xff) == 48);
	/* perf never reads the copy's last word */
	T_CHECK("unwind_stack_last_word", !pk__uw_stack_read(&st, 0x7000 + 56, &v));
	T_CHECK("unwind_stack_below", !pk__uw_stack_read(&st, 0x6ff8, &v));
	T_CHECK("unwind_stack_above", !pk__uw_stack_read(&st, 0x7000 + 64, &v));
	T_CHECK("unwind_stack_unaligned", pk__uw_stack_read(&st, 0x7003, &v) &&
		(v & 0xff) == 3);
	st.start = UINT64_MAX - 16;
	T_CHECK("unwind_stack_wrap", !pk__uw_stack_read(&st, UINT64_MAX - 4, &v));
	st.data = NULL;
	T_CHECK("unwind_stack_none", !pk__uw_stack_read(&st, st.start, &v));
}

/* ---- fake memory for synthetic frames ---- */

static struct {
	uint64_t base;
	uint64_t w[64];
	uint64_t mapped_lo, mapped_hi; /* mapped but unreadable range */
} mem;

static int fake_read(void *arg, uint64_t addr, uint64_t *val)
{
	(void)arg;
	if (addr >= mem.base && addr + 8 <= mem.base + sizeof(mem.w) &&
	    !((addr - mem.base) & 7)) {
		*val = mem.w[(addr - mem.base) / 8];
		return 1;
	}
	*val = 0;
	return addr >= mem.mapped_lo && addr < mem.mapped_hi ? 0 : -1;
}

static void test_eval(void)
{
	struct uw_regs r = { .valid = 0 };
	uint64_t out = 0;
	bool isval;
	int err;
	/* the PLT's CFA: rsp + 8 + ((rip & 15) >= 11) * 8 */
	Dwarf_Op plt[] = {
		{ .atom = DW_OP_breg7, .number = 8 },
		{ .atom = DW_OP_breg16, .number = 0 },
		{ .atom = DW_OP_lit15 }, { .atom = DW_OP_and },
		{ .atom = DW_OP_lit11 }, { .atom = DW_OP_ge },
		{ .atom = DW_OP_lit3 }, { .atom = DW_OP_shl },
		{ .atom = DW_OP_plus },
	};
	Dwarf_Op deref[] = { { .atom = DW_OP_call_frame_cfa },
			     { .atom = DW_OP_consts, .number = (uint64_t)-8 },
			     { .atom = DW_OP_plus }, { .atom = DW_OP_deref },
			     { .atom = DW_OP_stack_value } };
	Dwarf_Op under[] = { { .atom = DW_OP_plus } };
	Dwarf_Op bad[] = { { .atom = DW_OP_lit1 }, { .atom = 0xfe } };
	Dwarf_Op midval[] = { { .atom = DW_OP_lit1 }, { .atom = DW_OP_stack_value },
			      { .atom = DW_OP_lit2 } };

	mem.base = 0x9000;
	mem.w[1] = 0xabcdef;
	r.v[UW_RSP] = 0x8000;
	r.v[UW_RIP] = 0x401030 + 12;
	r.valid = 1u << UW_RSP | 1u << UW_RIP;
	err = pk__uw_eval(plt, 9, &r, 0, false, fake_read, NULL, &out, &isval);
	t_check(!err && out == 0x8010, "unwind_eval_plt_late", "%d %#llx", err,
		(unsigned long long)out);
	r.v[UW_RIP] = 0x401030 + 4;
	err = pk__uw_eval(plt, 9, &r, 0, false, fake_read, NULL, &out, &isval);
	t_check(!err && out == 0x8008, "unwind_eval_plt_early", "%d %#llx", err,
		(unsigned long long)out);
	err = pk__uw_eval(deref, 5, &r, 0x9010, false, fake_read, NULL, &out,
			  &isval);
	T_CHECK("unwind_eval_deref", !err && isval && out == 0xabcdef);
	err = pk__uw_eval(deref, 4, &r, 0x5010, false, fake_read, NULL, &out,
			  &isval);
	T_CHECK("unwind_eval_deref_unmapped", err == -EINVAL);
	T_CHECK("unwind_eval_underflow",
		pk__uw_eval(under, 1, &r, 0, false, fake_read, NULL, &out,
			    &isval) == -EINVAL);
	T_CHECK("unwind_eval_bad_op",
		pk__uw_eval(bad, 2, &r, 0, false, fake_read, NULL, &out,
			    &isval) == -EINVAL);
	T_CHECK("unwind_eval_stack_value_mid",
		pk__uw_eval(midval, 3, &r, 0, false, fake_read, NULL, &out,
			    &isval) == -EINVAL);
	r.valid = 0;
	T_CHECK("unwind_eval_unknown_reg",
		pk__uw_eval(plt, 9, &r, 0, false, fake_read, NULL, &out,
			    &isval) == -EINVAL);
	T_CHECK("unwind_eval_empty",
		pk__uw_eval(plt, 0, &r, 0, false, fake_read, NULL, &out,
			    &isval) == -EINVAL);
	/* a deep stack of pushes is refused, not overflowed */
	{
		Dwarf_Op many[100];

		for (int i = 0; i < 100; i++)
			many[i] = (Dwarf_Op){ .atom = DW_OP_lit1 };
		T_CHECK("unwind_eval_overflow",
			pk__uw_eval(many, 100, &r, 0, false, fake_read, NULL,
				    &out, &isval) == -EINVAL);
	}
}

/* A standard frame after "push %rbp; mov %rsp,%rbp": CFA = rsp + 16,
 * return address at CFA - 8, rbp at CFA - 16. */
static void std_frame(struct uw_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->ra = UW_RIP;
	f->cfa.kind = UW_REG;
	f->cfa.reg = UW_RSP;
	f->cfa.off = 16;
	f->r[UW_RIP] = (struct uw_rule){ .kind = UW_MEM, .off = -8 };
	f->r[UW_RBP] = (struct uw_rule){ .kind = UW_MEM, .off = -16 };
}

static void test_apply(void)
{
	struct uw_frame f;
	struct uw_cursor c;
	int ret;

	memset(&mem, 0, sizeof(mem));
	mem.base = 0x9000;
	mem.w[0] = 0x9100;        /* saved rbp */
	mem.w[1] = 0x401234;      /* return address */
	std_frame(&f);
	memset(&c, 0, sizeof(c));
	c.ip = 0x401000;
	c.cfa = 0x9000;
	c.regs.v[UW_RBX] = 77;
	c.regs.valid = 1u << UW_RBX;
	ret = pk__uw_apply(&c, &f, fake_read, NULL);
	T_CHECK("unwind_apply_step", ret == 1 && c.ip == 0x401234 &&
		c.cfa == 0x9010 && c.regs.v[UW_RBP] == 0x9100 &&
		c.regs.v[UW_RSP] == 0x9010 && c.use_prev);
	T_CHECK("unwind_apply_same_value", uw_reg_ok(&c.regs, UW_RBX) &&
		c.regs.v[UW_RBX] == 77);

	/* rbp-based CFA from the rbp the previous step restored */
	f.cfa.reg = UW_RBP;
	f.cfa.off = 16;
	mem.w[32] = 0;            /* 0x9100: outermost rbp */
	mem.w[33] = 0x402000;
	c.cfa = 0x9010;
	ret = pk__uw_apply(&c, &f, fake_read, NULL);
	T_CHECK("unwind_apply_rbp_cfa", ret == 1 && c.ip == 0x402000 &&
		c.cfa == 0x9110);

	/* an undefined return address ends the stack (glibc's _start) */
	std_frame(&f);
	f.r[UW_RIP].kind = UW_UNDEF;
	c.cfa = 0x9000;
	c.ip = 0x401000;
	ret = pk__uw_apply(&c, &f, fake_read, NULL);
	T_CHECK("unwind_apply_undefined_ra", ret == 0 && c.ip == 0);

	/* a return address in unmapped memory: an error */
	std_frame(&f);
	c.cfa = 0x5000;
	c.ip = 0x401000;
	T_CHECK("unwind_apply_unmapped_ra",
		pk__uw_apply(&c, &f, fake_read, NULL) == -EFAULT);
	/* mapped but unknown: perf reads 0 and shows the frame */
	mem.mapped_lo = 0x5000;
	mem.mapped_hi = 0x6000;
	c.cfa = 0x5000;
	c.ip = 0x401000;
	ret = pk__uw_apply(&c, &f, fake_read, NULL);
	T_CHECK("unwind_apply_zero_ra", ret == 1 && c.ip == 0);
	mem.mapped_lo = mem.mapped_hi = 0;

	/* a CFA on a register nobody knows */
	f.cfa.reg = UW_R15;
	c.regs.valid = 0;
	c.ip = 0x401000;
	T_CHECK("unwind_apply_unknown_cfa_reg",
		pk__uw_apply(&c, &f, fake_read, NULL) == -EFAULT);

	/* a frame that does not move: libunwind's EBADFRAME */
	std_frame(&f);
	f.cfa.off = 0;
	f.r[UW_RIP] = (struct uw_rule){ .kind = UW_SAME };
	c.ip = 0x401000;
	c.cfa = 0x9000;
	c.regs.v[UW_RIP] = 0x401000;
	c.regs.valid = 1u << UW_RIP;
	T_CHECK("unwind_apply_no_progress",
		pk__uw_apply(&c, &f, fake_read, NULL) == -ELOOP);

	/* a signal trampoline's FDE: the caller's ip is exact */
	std_frame(&f);
	f.signal = true;
	c.ip = 0x401000;
	c.cfa = 0x9000;
	ret = pk__uw_apply(&c, &f, fake_read, NULL);
	T_CHECK("unwind_apply_signal", ret == 1 && !c.use_prev);
}

static void test_fallback(void)
{
	struct uw_cursor c;
	int ret;

	memset(&mem, 0, sizeof(mem));
	mem.base = 0x9000;
	mem.w[4] = 0x9100;        /* [rbp] at 0x9020 */
	mem.w[5] = 0x405555;      /* [rbp + 8] */
	memset(&c, 0, sizeof(c));
	c.ip = 0x401000;
	c.cfa = 0x9000;
	c.regs.v[UW_RBP] = 0x9020;
	c.regs.valid = 1u << UW_RBP;
	ret = pk__uw_fallback(&c, fake_read, NULL);
	/* libunwind's guess moves its CFA by 16, whatever rbp said */
	T_CHECK("unwind_fp_chain", ret == 1 && c.ip == 0x405555 &&
		c.regs.v[UW_RBP] == 0x9100 && c.cfa == 0x9010 && c.use_prev);

	c.ip = 0x401000;
	c.cfa = 0x9000;
	c.regs.v[UW_RBP] = 0;
	c.regs.valid = 1u << UW_RBP;
	T_CHECK("unwind_fp_null_rbp", pk__uw_fallback(&c, fake_read, NULL) == 0);
	c.cfa = 0x9030;
	c.regs.v[UW_RBP] = 0x9020; /* below the CFA: not a frame */
	c.regs.valid = 1u << UW_RBP;
	T_CHECK("unwind_fp_rbp_below", pk__uw_fallback(&c, fake_read, NULL) == 0);
	c.cfa = 0x1000;
	c.regs.v[UW_RBP] = 0x9020; /* too far above */
	c.regs.valid = 1u << UW_RBP;
	T_CHECK("unwind_fp_rbp_far", pk__uw_fallback(&c, fake_read, NULL) == 0);
	c.regs.valid = 0;
	T_CHECK("unwind_fp_no_rbp", pk__uw_fallback(&c, fake_read, NULL) == 0);

	/* a PLT entry: jmp *GOT(%rip); push $n; jmp PLT0 */
	memset(&mem, 0, sizeof(mem));
	mem.base = 0x9000;
	mem.w[0] = 0x25ffull | (0x68ull << 48); /* ff 25 .. .. .. .. 68 .. */
	mem.w[1] = 0xe9ull << 24;
	mem.w[8] = 0x407777;       /* return address at the CFA (0x9040) */
	c.ip = 0x9000;
	c.cfa = 0x9040;
	c.regs.valid = 0;
	ret = pk__uw_fallback(&c, fake_read, NULL);
	T_CHECK("unwind_fp_plt", ret == 1 && c.ip == 0x407777 && c.cfa == 0x9048);

}

/* ---- whole unwinds of this process ---- */

#define STACK_COPY 8192
static struct {
	uint64_t r[8];   /* rip rsp rbp rbx r12 r13 r14 r15 */
	uint8_t stack[STACK_COPY];
	uint64_t size;
	uint64_t inl_ip;
} cap;
static volatile uint64_t sink;
static uint64_t stack_hi;

/* The kernel's copy: bytes from rsp up, as many as the stack has. */
__attribute__((no_sanitize_address, noinline))
static void copy_stack(uint64_t sp)
{
	const volatile uint8_t *p = (const uint8_t *)(uintptr_t)sp;
	uint64_t n = stack_hi > sp ? stack_hi - sp : 0;

	cap.size = n < STACK_COPY ? n : STACK_COPY;
	for (uint64_t i = 0; i < cap.size; i++)
		cap.stack[i] = p[i];
}

#define CAPTURE(r) __asm__ volatile(                                 \
	"lea 0(%%rip), %%rax\n\tmov %%rax, 0(%0)\n\t"                \
	"mov %%rsp, 8(%0)\n\tmov %%rbp, 16(%0)\n\tmov %%rbx, 24(%0)\n\t" \
	"mov %%r12, 32(%0)\n\tmov %%r13, 40(%0)\n\t"                 \
	"mov %%r14, 48(%0)\n\tmov %%r15, 56(%0)\n\t"                 \
	: : "r"(r) : "rax", "memory")

static __attribute__((noinline)) uint64_t capture(int x)
{
	uint64_t r[8];

	CAPTURE(r);
	copy_stack(r[1]);
	memcpy(cap.r, r, sizeof(r));
	return (uint64_t)x + sink;
}

static __attribute__((noinline)) uint64_t chain_c(int x)
{
	return capture(x + 1) * 3 + sink;
}

static __attribute__((noinline)) uint64_t chain_b(int x)
{
	return chain_c(x + 1) * 5 + sink;
}

static __attribute__((noinline)) uint64_t chain_a(int x)
{
	return chain_b(x + 1) * 7 + sink;
}

static inline __attribute__((always_inline)) uint64_t inl_point(int x)
{
	uint64_t ip;

	__asm__ volatile("lea 0(%%rip), %0" : "=r"(ip));
	return ip + (uint64_t)x;
}

static __attribute__((noinline)) uint64_t chain_inl(int x)
{
	cap.inl_ip = inl_point(x) - (uint64_t)x;
	return cap.inl_ip + sink;
}

static int feed(const struct perf_event_header *h, void *arg)
{
	return pk_session_process(arg, h) == -ENOMEM ? -ENOMEM : 0;
}

static void find_stack_hi(void)
{
	pthread_attr_t a;
	void *lo;
	size_t sz;

	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &lo, &sz) == 0)
			stack_hi = (uint64_t)(uintptr_t)lo + sz;
		pthread_attr_destroy(&a);
	}
}

/* A sample as perf_event_open gives it: regs in bit order of MASK. */
static void mk_sample(struct pk_sample *sm, uint64_t *vals, uint64_t *mask)
{
	/* perf bits: bx(1) bp(6) sp(7) ip(8) r12..r15(20..23) */
	*mask = 1ull << 1 | 1ull << 6 | 1ull << 7 | 1ull << 8 | 0xfull << 20;
	vals[0] = cap.r[3];
	vals[1] = cap.r[2];
	vals[2] = cap.r[1];
	vals[3] = cap.r[0];
	vals[4] = cap.r[4];
	vals[5] = cap.r[5];
	vals[6] = cap.r[6];
	vals[7] = cap.r[7];
	memset(sm, 0, sizeof(*sm));
	sm->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			  PERF_SAMPLE_STACK_USER;
	sm->pid = sm->tid = (uint32_t)getpid();
	sm->regs_user.abi = PERF_SAMPLE_REGS_ABI_64;
	sm->regs_user.mask = *mask;
	sm->regs_user.nr = 8;
	sm->regs_user.regs = vals;
	sm->stack_user.size = STACK_COPY;
	sm->stack_user.dyn_size = cap.size;
	sm->stack_user.data = cap.stack;
}

static const char *sym_of(struct pk_session *s, uint64_t ip)
{
	struct pk_location l;

	pk_session_resolve(s, (uint32_t)getpid(), ip, PERF_RECORD_MISC_USER, &l);
	return l.sym ? l.sym : "?";
}

static void test_live(struct pk_session *s, struct pk_unwind *u)
{
	uint64_t vals[8], mask, ips[PK_UNWIND_MAX_STACK];
	struct pk_sample sm;
	char trail[512] = "";
	int n, main_at = -1;

	mk_sample(&sm, vals, &mask);
	n = pk_unwind_sample(u, sm.pid, &sm, ips, PK_UNWIND_MAX_STACK);
	for (int i = 0; i < n && i < 8; i++) {
		size_t l = strlen(trail);

		snprintf(trail + l, sizeof(trail) - l, "%s ", sym_of(s, ips[i]));
	}
	for (int i = 0; i < n; i++)
		if (!strcmp(sym_of(s, ips[i]), "main"))
			main_at = i;
	t_check(n >= 5 && ips[0] == cap.r[0], "unwind_live_depth",
		"%d frames: %s", n, trail);
	t_check(n >= 4 && !strcmp(sym_of(s, ips[0]), "capture") &&
		!strcmp(sym_of(s, ips[1]), "chain_c") &&
		!strcmp(sym_of(s, ips[2]), "chain_b") &&
		!strcmp(sym_of(s, ips[3]), "chain_a"),
		"unwind_live_frames", "%s", trail);
	t_check(main_at > 3, "unwind_live_main", "%s", trail);
	/* callers' entries are the call instruction: return address - 1,
	 * right after a call rel32 (e8) */
	t_check(n >= 4 && *(const uint8_t *)(uintptr_t)(ips[2] + 1 - 5) == 0xe8 &&
		*(const uint8_t *)(uintptr_t)(ips[3] + 1 - 5) == 0xe8,
		"unwind_live_call_site", "%d frames", n);

	/* max: perf's --max-stack cut */
	T_CHECK("unwind_live_max2",
		pk_unwind_sample(u, sm.pid, &sm, ips, 2) == 2);
	T_CHECK("unwind_live_max1",
		pk_unwind_sample(u, sm.pid, &sm, ips, 1) == 1 &&
		ips[0] == cap.r[0]);
	T_CHECK("unwind_live_max0",
		pk_unwind_sample(u, sm.pid, &sm, ips, 0) == -EINVAL);

	/* a stack copy that stops after the first frames: fewer frames,
	 * never a crash */
	sm.stack_user.dyn_size = 24;
	n = pk_unwind_sample(u, sm.pid, &sm, ips, PK_UNWIND_MAX_STACK);
	t_check(n >= 1 && n < 5, "unwind_live_truncated", "%d frames", n);
	sm.stack_user.dyn_size = 0;
	T_CHECK("unwind_live_empty_stack",
		pk_unwind_sample(u, sm.pid, &sm, ips, PK_UNWIND_MAX_STACK) == 0);
	sm.stack_user.dyn_size = STACK_COPY + 1;
	T_CHECK("unwind_live_dyn_size_huge",
		pk_unwind_sample(u, sm.pid, &sm, ips, PK_UNWIND_MAX_STACK) == 0);
	sm.stack_user.dyn_size = cap.size;

	/* registers: no sp (perf shows nothing), no ip, abi none */
	sm.regs_user.mask = mask & ~(1ull << 7);
	sm.regs_user.nr = 7;
	vals[2] = cap.r[0];
	T_CHECK("unwind_live_no_sp",
		pk_unwind_sample(u, sm.pid, &sm, ips, PK_UNWIND_MAX_STACK) ==
		-ENOENT);
	T_CHECK("unwind_live_no_sp_max1",
		pk_unwind_sample(u, sm.pid, &sm, ips, 1) == 1);
	sm.regs_user.mask &= ~(1ull << 8);
	sm.regs_user.nr = 6;
	T_CHECK("unwind_live_no_ip",
		pk_unwind_sample(u, sm.pid, &sm, ips, PK_UNWIND_MAX_STACK) ==
		-ENOENT);
	mk_sample(&sm, vals, &mask);
	sm.regs_user.abi = 0;
	T_CHECK("unwind_live_abi_none",
		pk_unwind_sample(u, sm.pid, &sm, ips, PK_UNWIND_MAX_STACK) == 0);
	mk_sample(&sm, vals, &mask);
	sm.sample_type &= ~(uint64_t)PERF_SAMPLE_STACK_USER;
	T_CHECK("unwind_live_no_stack_type",
		pk_unwind_sample(u, sm.pid, &sm, ips, PK_UNWIND_MAX_STACK) == 0);

	/* bogus registers: an ip nowhere, sp at 16 */
	mk_sample(&sm, vals, &mask);
	vals[3] = 0x1234;
	n = pk_unwind_sample(u, sm.pid, &sm, ips, PK_UNWIND_MAX_STACK);
	T_CHECK("unwind_live_bogus_ip", n == 1 && ips[0] == 0x1234);
	mk_sample(&sm, vals, &mask);
	vals[2] = 16;
	n = pk_unwind_sample(u, sm.pid, &sm, ips, PK_UNWIND_MAX_STACK);
	t_check(n >= 1 && n <= PK_UNWIND_MAX_STACK, "unwind_live_bogus_sp",
		"%d", n);
	/* another pid: no maps, only the sampled ip */
	mk_sample(&sm, vals, &mask);
	n = pk_unwind_sample(u, 1u << 30, &sm, ips, PK_UNWIND_MAX_STACK);
	T_CHECK("unwind_live_unknown_pid", n == 1);

	/* garbage stacks and registers around a real ip: bounded */
	{
		uint8_t *save = malloc(STACK_COPY);
		unsigned seed = 12345;
		bool okk = save != NULL;

		if (save)
			memcpy(save, cap.stack, STACK_COPY);
		for (int it = 0; okk && it < 300; it++) {
			mk_sample(&sm, vals, &mask);
			for (int i = 0; i < STACK_COPY; i++) {
				seed = seed * 1103515245u + 12345u;
				if (it & 1 || (seed >> 16) % 7 == 0)
					cap.stack[i] = (uint8_t)(seed >> 16);
			}
			seed = seed * 1103515245u + 12345u;
			vals[1] = (it & 2) ? seed : vals[1];
			n = pk_unwind_sample(u, sm.pid, &sm, ips,
					     PK_UNWIND_MAX_STACK);
			okk = n >= 1 && n <= PK_UNWIND_MAX_STACK;
			memcpy(cap.stack, save, STACK_COPY);
		}
		t_check(okk, "unwind_live_garbage", "n=%d", n);
		free(save);
	}
	{
		struct pk_unwind_stats st;

		pk_unwind_stats(u, &st);
		t_check(st.samples > 0 && st.frames_cfi > 0 && st.cache_hits > 0,
			"unwind_stats", "%llu samples %llu cfi frames %llu hits",
			(unsigned long long)st.samples,
			(unsigned long long)st.frames_cfi,
			(unsigned long long)st.cache_hits);
	}
}

static void test_inlines(struct pk_session *s)
{
	struct pk_inline_frame fr[8];
	/* the lea gave the address after itself: step back into it */
	int n = pk_session_inlines(s, (uint32_t)getpid(), cap.inl_ip - 1, fr, 8);

	t_check(n >= 2 && !strcmp(fr[0].name, "inl_point") &&
		!strcmp(fr[n - 1].name, "chain_inl"), "unwind_inlines",
		"%d names: %s %s", n, n > 0 ? fr[0].name : "-",
		n > 1 ? fr[n - 1].name : "-");
	/* the innermost at the asm's line, the caller at the call's */
	t_check(n >= 2 && fr[0].file && strstr(fr[0].file, "test_unwind.c") &&
		fr[1].file && strstr(fr[1].file, "test_unwind.c") &&
		fr[0].line > 0 && fr[1].line > fr[0].line,
		"unwind_inlines_lines", "%s:%u %s:%u", n > 0 && fr[0].file ?
		fr[0].file : "-", n > 0 ? fr[0].line : 0,
		n > 1 && fr[1].file ? fr[1].file : "-", n > 1 ? fr[1].line : 0);
	n = pk_session_inlines(s, (uint32_t)getpid(),
			       (uint64_t)(uintptr_t)&chain_a, fr, 8);
	t_check(n == 1 && !strcmp(fr[0].name, "chain_a"), "unwind_inlines_plain",
		"%d %s", n, n ? fr[0].name : "-");
	T_CHECK("unwind_inlines_unmapped",
		pk_session_inlines(s, (uint32_t)getpid(), 0x10, fr, 8) == 0);
	T_CHECK("unwind_inlines_other_pid",
		pk_session_inlines(s, 1u << 30, cap.inl_ip - 1, fr, 8) == 0);
}

int main(void)
{
	PK_OPTS(pk_session_opts, so, .kallsyms = "");
	struct pk_session *s;
	struct pk_unwind *u;

	test_regs();
	test_stack();
	test_eval();
	test_apply();
	test_fallback();

	find_stack_hi();
	sink = chain_a(1) + chain_inl(3);
	s = pk_session_new(&so);
	if (!s || pk_synth_process(getpid(), feed, s, NULL)) {
		t_fail("unwind_session", "cannot describe this process");
		pk_session_free(s);
		return t_exit();
	}
	T_CHECK("unwind_new_null", pk_unwind_new(NULL) == NULL);
	u = pk_unwind_new(s);
	if (!u || !stack_hi) {
		t_fail("unwind_new", "no unwinder or stack bounds");
	} else {
		test_live(s, u);
		test_inlines(s);
	}
	pk_unwind_free(u);
	pk_unwind_free(NULL);
	pk_session_free(s);
	return t_exit();
}
