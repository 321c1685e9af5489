// SPDX-License-Identifier: MIT
/*
 * A sample's data source (union perf_mem_data_src) in perf 6.1's words:
 * the parts perf_mem__*_scnprintf name ("L1 or L1 hit", "HitM", "L1 or
 * L2 hit", "Yes", " Data Addr") and perf script's whole "|OP LOAD|LVL
 * ...|BLK  N/A".
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/perfdata.h>

/* Field positions and widths in the data_src word (perf_event.h). */
#define DS(v, shift, bits) (((v) >> (shift)) & ((1u << (bits)) - 1))
#define DS_OP(v)     DS(v, 0, 5)
#define DS_LVL(v)    DS(v, 5, 14)
#define DS_SNOOP(v)  DS(v, 19, 5)
#define DS_LOCK(v)   DS(v, 24, 2)
#define DS_DTLB(v)   DS(v, 26, 7)
#define DS_LVLNUM(v) DS(v, 33, 4)
#define DS_REMOTE(v) DS(v, 37, 1)
#define DS_SNOOPX(v) DS(v, 38, 2)
#define DS_BLK(v)    DS(v, 40, 3)
#define DS_HOPS(v)   DS(v, 43, 3)

struct sb {
	char *p;
	size_t len, cap;
};

static void put(struct sb *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n >= b->cap)
		n = b->cap - b->len - 1;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

/* Names of set bits of M (bit i: NAMES[i]) joined by " or ". Returns how
 * many were printed; *ANY tells whether anything precedes them. */
static int put_bits(struct sb *b, unsigned m, const char *const *names,
		    unsigned nr, bool any)
{
	int printed = 0;

	for (unsigned i = 0; m && i < nr; i++, m >>= 1) {
		if (!(m & 1))
			continue;
		if (any || printed)
			put(b, " or ");
		put(b, names[i]);
		printed++;
	}
	return printed;
}

/* The HIT and MISS bits (1 and 2 of the level and TLB fields) as perf's
 * suffixes. */
static void put_hit_miss(struct sb *b, unsigned m)
{
	if (m & 2)
		put(b, " hit");
	if (m & 4)
		put(b, " miss");
}

static void put_op(struct sb *b, unsigned op)
{
	static const char *const names[] = {
		"N/A", "LOAD", "STORE", "PFETCH", "EXEC",
	};

	for (unsigned i = 0; i < 5; i++)
		if (op & (1u << i)) {
			put(b, names[i]);
			return;
		}
	put(b, "No");
}

static void put_lvl(struct sb *b, uint64_t v)
{
	static const char *const lvl[] = {
		"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3",
		"Local RAM", "Remote RAM (1 hop)", "Remote RAM (2 hops)",
		"Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O",
		"Uncached",
	};
	static const char *const lvlnum[16] = {
		[0x09] = "CXL", [0x0a] = "I/O", [0x0b] = "Any cache",
		[0x0c] = "LFB/MAB", [0x0d] = "RAM", [0x0e] = "PMEM",
		[0x0f] = "N/A",
	};
	static const char *const hops[8] = {
		"N/A", "core, same node", "node, same socket",
		"socket, same board", "board",
	};
	unsigned m = DS_LVL(v), num = DS_LVLNUM(v), h = DS_HOPS(v);
	size_t start = b->len;
	int printed;

	if (DS_REMOTE(v))
		put(b, "Remote ");
	/* with a hop level the PERF_MEM_LVL bits are not shown; HIT and
	 * MISS become the " hit"/" miss" suffix */
	if (h) {
		put(b, hops[h] ? hops[h] : "");
		put(b, " ");
		printed = 0;
	} else {
		printed = put_bits(b, m & ~6u, lvl, 14, false);
	}
	if (num) {
		char tmp[8];

		if (printed)
			put(b, " or ");
		if (!lvlnum[num])
			snprintf(tmp, sizeof(tmp), "L%u", num);
		put(b, lvlnum[num] ? lvlnum[num] : tmp);
	}
	if (b->len == start)
		put(b, "N/A");
	put_hit_miss(b, m);
}

static void put_snp(struct sb *b, uint64_t v)
{
	static const char *const snoop[] = {
		"N/A", "None", "Hit", "Miss", "HitM",
	};
	static const char *const snoopx[] = { "Fwd", "Peer" };
	size_t start = b->len;
	int n = put_bits(b, DS_SNOOP(v), snoop, 5, false);

	put_bits(b, DS_SNOOPX(v), snoopx, 2, n > 0);
	if (b->len == start)
		put(b, "N/A");
}

static void put_tlb(struct sb *b, uint64_t v)
{
	static const char *const tlb[] = {
		"N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault",
	};
	unsigned m = DS_DTLB(v);

	if (!put_bits(b, m & ~6u, tlb, 7, false))
		put(b, "N/A");
	put_hit_miss(b, m);
}

static void put_lck(struct sb *b, uint64_t v)
{
	unsigned m = DS_LOCK(v);

	put(b, (m & 1) ? "N/A" : (m & 2) ? "Yes" : "No");
}

static void put_blk(struct sb *b, uint64_t v)
{
	unsigned m = DS_BLK(v);

	if (!m || (m & 1)) {
		put(b, " N/A");
		return;
	}
	if (m & 2)
		put(b, " Data");
	if (m & 4)
		put(b, " Addr");
}

size_t pk_mem_describe(uint64_t data_src, char *buf, size_t len)
{
	struct sb b = { buf, 0, len };

	if (!len)
		return 0;
	buf[0] = 0;
	put(&b, "|OP ");
	put_op(&b, DS_OP(data_src));
	put(&b, "|LVL ");
	put_lvl(&b, data_src);
	put(&b, "|SNP ");
	put_snp(&b, data_src);
	put(&b, "|TLB ");
	put_tlb(&b, data_src);
	put(&b, "|LCK ");
	put_lck(&b, data_src);
	put(&b, "|BLK ");
	put_blk(&b, data_src);
	return b.len;
}

size_t pk_mem_part(uint64_t data_src, enum pk_mem_part part, char *buf,
		   size_t len)
{
	struct sb b = { buf, 0, len };

	if (!len)
		return 0;
	buf[0] = 0;
	switch (part) {
	case PK_MEM_OP: put_op(&b, DS_OP(data_src)); break;
	case PK_MEM_LVL: put_lvl(&b, data_src); break;
	case PK_MEM_SNOOP: put_snp(&b, data_src); break;
	case PK_MEM_TLB: put_tlb(&b, data_src); break;
	case PK_MEM_LOCK: put_lck(&b, data_src); break;
	case PK_MEM_BLK: put_blk(&b, data_src); break;
	}
	return b.len;
}
