/* SPDX-License-Identifier: MIT */
/* Internal: the unwinder's pieces (register sets, the stack copy, CFI
 * rules and their evaluation), apart so tests can drive each. */
#ifndef PK_UNWIND_INT_H
#define PK_UNWIND_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

/* DWARF register numbers of x86-64: rax rdx rcx rbx rsi rdi rbp rsp
 * r8..r15, and 16 the return address (rip). */
enum { UW_RAX, UW_RDX, UW_RCX, UW_RBX, UW_RSI, UW_RDI, UW_RBP, UW_RSP,
       UW_R8, UW_R15 = 15, UW_RIP = 16, UW_NREGS = 17 };

struct uw_regs {
	uint64_t v[UW_NREGS];
	uint32_t valid;          /* bit per DWARF register */
};

/* regs.c: the DWARF register of perf's x86-64 register PERF_REG (enum
 * perf_event_x86_regs order), or -1 (flags, segments, xmm). */
int pk__uw_dwarf_of_perf(int perf_reg);
/* Fills R from a sample's user registers: ABI (0 none), MASK
 * (attr.sample_regs_user), NR values in ascending bit order. Registers
 * the mask lacks stay invalid. Returns the number set. */
int pk__uw_regs_from_perf(struct uw_regs *r, uint64_t abi, uint64_t mask,
			  const uint64_t *vals, unsigned nr);

static inline bool uw_reg_ok(const struct uw_regs *r, int n)
{
	return n >= 0 && n < UW_NREGS && (r->valid >> n & 1);
}

/* The stack copy: SIZE bytes that were at address START (the sampled
 * sp). As perf, a word is read from it only when it ends strictly before
 * the end (addr + 8 < start + size); false otherwise. */
struct uw_stack {
	uint64_t start;
	const uint8_t *data;
	uint64_t size;
};
bool pk__uw_stack_read(const struct uw_stack *st, uint64_t addr,
		       uint64_t *val);

/* Reads 8 bytes of the sampled process at ADDR (stack copy, then the
 * mapped file). 1: read; 0: ADDR is mapped but its bytes are unknown
 * (*VAL is 0: perf's reader then answers 0 without an error); -1: not
 * mapped (an error for the unwinder). */
typedef int (*uw_read_fn)(void *arg, uint64_t addr, uint64_t *val);

/* rules.c: how one frame's caller is found, from the CFI at one pc. */
enum uw_kind {
	UW_SAME,     /* unchanged (also what libunwind makes of "undefined"
			for registers other than the return address) */
	UW_UNDEF,    /* undefined */
	UW_MEM,      /* saved at CFA + off */
	UW_VAL,      /* value CFA + off */
	UW_EXPR,     /* location computed by ops */
	UW_VALEXPR,  /* value computed by ops */
	UW_REG,      /* CFA only: register reg + off */
};

struct uw_rule {
	uint8_t kind;
	int8_t reg;
	int64_t off;
	Dwarf_Op *ops;      /* UW_EXPR / UW_VALEXPR (owned by the rule set) */
	size_t nops;
};

struct uw_frame {
	struct uw_rule cfa;
	struct uw_rule r[UW_NREGS];
	int ra;             /* return address column */
	bool signal;        /* a signal trampoline's FDE ('S') */
};

/* Converts libdw's view of one frame into rules (copies expressions).
 * 0, -ENOMEM, or PK_ERR_FORMAT when libdw cannot describe it. */
int pk__uw_frame_from_dw(struct uw_frame *f, Dwarf_Frame *df);
void pk__uw_frame_fini(struct uw_frame *f);

/* Evaluates a DWARF expression with REGS (the callee frame's registers),
 * CFA pushed first when PUSH_CFA. *IS_VALUE tells whether it ended with
 * DW_OP_stack_value. 0, or -EINVAL (bad op, stack over/underflow, a
 * register unknown, memory unreadable). */
int pk__uw_eval(const Dwarf_Op *ops, size_t n, const struct uw_regs *regs,
		uint64_t cfa, bool push_cfa, uw_read_fn rd, void *arg,
		uint64_t *out, bool *is_value);

/* One step of the unwinding state machine (libunwind's unw_step for
 * x86-64): the cursor is a frame; the step moves it to the caller. */
struct uw_cursor {
	uint64_t ip, cfa;
	struct uw_regs regs;
	bool use_prev;      /* look CFI up at ip - 1 (after a call) */
};

/* Applies the rules of F to C. 1: moved to the caller (its ip may be 0
 * when the return address read as 0: perf shows such a frame), 0: end of
 * the stack (return address undefined), negative: error (-EFAULT: an
 * unmapped return address or unknown CFA register; -ELOOP: nothing
 * moved). */
int pk__uw_apply(struct uw_cursor *c, const struct uw_frame *f,
		 uw_read_fn rd, void *arg);
/* The frame-pointer fallback where a file has no CFI for the pc
 * (libunwind's: plt entry, rbp chain with its sanity checks). Same
 * returns. */
int pk__uw_fallback(struct uw_cursor *c, uw_read_fn rd, void *arg);

#endif
