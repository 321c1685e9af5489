/* SPDX-License-Identifier: MIT */
/* Sampled registers (perf's x86-64 order) and the stack copy. */
#include <string.h>
#include "unwind/unwind_int.h"

int pk__uw_dwarf_of_perf(int perf_reg)
{
	/* perf: ax bx cx dx si di bp sp ip flags cs ss ds es fs gs r8..r15 */
	static const int8_t map[24] = {
		UW_RAX, UW_RBX, UW_RCX, UW_RDX, UW_RSI, UW_RDI, UW_RBP, UW_RSP,
		UW_RIP, -1, -1, -1, -1, -1, -1, -1,
		8, 9, 10, 11, 12, 13, 14, 15,
	};

	if (perf_reg < 0 || perf_reg >= 24)
		return -1;
	return map[perf_reg];
}

int pk__uw_regs_from_perf(struct uw_regs *r, uint64_t abi, uint64_t mask,
			  const uint64_t *vals, unsigned nr)
{
	unsigned k = 0;
	int set = 0;

	memset(r, 0, sizeof(*r));
	if (!abi || !vals)
		return 0;
	for (int bit = 0; bit < 64 && k < nr; bit++) {
		int d;

		if (!(mask >> bit & 1))
			continue;
		d = pk__uw_dwarf_of_perf(bit);
		if (d >= 0) {
			r->v[d] = vals[k];
			r->valid |= 1u << d;
			set++;
		}
		k++;
	}
	return set;
}

bool pk__uw_stack_read(const struct uw_stack *st, uint64_t addr,
		       uint64_t *val)
{
	uint64_t end = st->start + st->size;

	if (!st->data || addr + 8 < addr || end < st->start)
		return false;
	/* perf's access_mem: the last word of the copy is never used */
	if (addr < st->start || addr + 8 >= end)
		return false;
	memcpy(val, st->data + (addr - st->start), 8);
	return true;
}
