/* SPDX-License-Identifier: MIT */
/*
 * Synthetic programs and their PT streams for the PT flow unit tests
 * (header-only): the block layout, the code of the blocks' terminators,
 * and the PT writer the tests' simulators write with (perfkit's encoder:
 * TNT batching, IP compression, PSB+). Random choices come from
 * pt_testgen.h's rnd(); a test sets rng_state to its seed first.
 */
#ifndef PT_FLOWGEN_H
#define PT_FLOWGEN_H
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/pt.h>
#include "pt_testgen.h"

/* true with probability 1/N (never for N == 0: no number is drawn) */
static inline bool one_in(unsigned n)
{
	return n && rnd() % n == 0;
}

/* NBLK blocks of BLKSZ bytes from BASE: nops, then a terminator. */
enum { BASE = 0x400000, NBLK = 64, BLKSZ = 32 };

/* Terminators of the program's blocks. */
enum term { T_JCC, T_JMP, T_CALL, T_RET, T_JMP_IND, T_CALL_IND, T_NTERM };

struct prog {
	uint8_t code[NBLK * BLKSZ];
	enum term term[NBLK];
	uint64_t term_ip[NBLK];	/* address of the terminator */
	uint64_t target[NBLK];	/* direct target */
};

static inline uint64_t blk_ip(int b)
{
	return BASE + (uint64_t)b * BLKSZ;
}

/* The block IP is in. */
static inline int blk_of(uint64_t ip)
{
	return (int)((ip - BASE) / BLKSZ);
}

static inline void put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

/* Writes block B: NOPS nops, then terminator T (direct ones to TARGET).
 * What falls through (after jz, call, call *) jumps to the next block.
 * P's code starts as hlt (never executed): memset it to 0xf4 first. */
static inline void prog_block(struct prog *p, int b, int nops, enum term t,
			      uint64_t target)
{
	uint8_t *c = p->code + b * BLKSZ;
	uint64_t ip = blk_ip(b) + (uint64_t)nops;
	uint64_t next = blk_ip((b + 1) % NBLK);

	for (int i = 0; i < nops; i++)
		c[i] = 0x90;
	p->term[b] = t;
	p->term_ip[b] = ip;
	p->target[b] = target;
	c += nops;
	switch (t) {
	case T_JCC:	/* jz rel32; then jmp to the next block */
		c[0] = 0x0f;
		c[1] = 0x84;
		put32(c + 2, (int32_t)(target - (ip + 6)));
		c[6] = 0xe9;
		put32(c + 7, (int32_t)(next - (ip + 11)));
		break;
	case T_JMP:
		c[0] = 0xe9;
		put32(c + 1, (int32_t)(target - (ip + 5)));
		break;
	case T_CALL:	/* call rel32; then jmp to the next block */
		c[0] = 0xe8;
		put32(c + 1, (int32_t)(target - (ip + 5)));
		c[5] = 0xe9;
		put32(c + 6, (int32_t)(next - (ip + 10)));
		break;
	case T_RET:
		c[0] = 0xc3;
		break;
	case T_JMP_IND:
		c[0] = 0xff;
		c[1] = 0xe0;
		break;
	case T_CALL_IND:
	default:
		c[0] = 0xff;
		c[1] = 0xd0;
		c[2] = 0xe9;
		put32(c + 3, (int32_t)(next - (ip + 7)));
		break;
	}
}

/* The simulators' PT writer. TNT bits go out tnt_max at a time (6: TNT-8,
 * more: TNT-64); set tnt_max before the first. The knobs are each 1 in N
 * (0: never, and no number is drawn): tnt64, the next TNT packet TNT-64
 * (47 bits); flush, a TNT packet before it is full; full, an IP packet
 * uncompressed where it could be compressed. */
struct gen {
	uint8_t *buf;
	size_t len, cap;
	uint64_t tnt, last_ip;
	int tnt_n, tnt_max, since_psb;
	unsigned tnt64, flush, full;
};

static inline void emit(struct gen *g, const struct pk_pt_packet *p)
{
	int n;

	if (g->len + 32 > g->cap) {
		g->cap = 2 * g->cap + 4096;
		g->buf = realloc(g->buf, g->cap);
	}
	n = pk_pt_encode(p, g->buf + g->len, g->cap - g->len);
	if (n <= 0)
		abort();
	g->len += (size_t)n;
	g->since_psb += n;
}

static inline void emit_type(struct gen *g, uint8_t type)
{
	struct pk_pt_packet p = { .type = type };

	emit(g, &p);
}

static inline void flush_tnt(struct gen *g)
{
	struct pk_pt_packet p = { .type = PK_PT_TNT_8 };

	if (!g->tnt_n)
		return;
	if (g->tnt_max > 6)
		p.type = PK_PT_TNT_64;
	p.u.tnt.bits = (uint8_t)g->tnt_n;
	p.u.tnt.payload = g->tnt;
	emit(g, &p);
	g->tnt = 0;
	g->tnt_n = 0;
	g->tnt_max = one_in(g->tnt64) ? 47 : 6;
}

static inline void tnt(struct gen *g, int taken)
{
	g->tnt = g->tnt << 1 | (uint64_t)taken;
	if (++g->tnt_n == g->tnt_max || one_in(g->flush))
		flush_tnt(g);
}

/* An IP packet, compressed against the last IP at random where it can. */
static inline void ip_pkt(struct gen *g, uint8_t type, uint64_t ip)
{
	struct pk_pt_packet p = { .type = type };

	flush_tnt(g);
	p.u.ip.ipc = PK_PT_IPC_SEXT_48;
	p.u.ip.ip = ip & 0xffffffffffffull;
	if ((ip >> 16) == (g->last_ip >> 16) && rnd() % 2) {
		p.u.ip.ipc = PK_PT_IPC_UPDATE_16;
		p.u.ip.ip = ip & 0xffff;
	} else if ((ip >> 32) == (g->last_ip >> 32) && rnd() % 2) {
		p.u.ip.ipc = PK_PT_IPC_UPDATE_32;
		p.u.ip.ip = ip & 0xffffffff;
	} else if (one_in(g->full)) {
		p.u.ip.ipc = PK_PT_IPC_FULL;
		p.u.ip.ip = ip;
	}
	g->last_ip = ip;
	emit(g, &p);
}

static inline void mode_exec(struct gen *g)
{
	struct pk_pt_packet p = { .type = PK_PT_MODE_EXEC };

	p.u.exec.csl = 1;
	emit(g, &p);
}

/* PSB+ at IP: PSB, EXTRA where given (a TSC, say), MODE.Exec, FUP IP,
 * PSBEND. */
static inline void psb_plus(struct gen *g, uint64_t ip,
			    const struct pk_pt_packet *extra)
{
	flush_tnt(g);
	emit_type(g, PK_PT_PSB);
	g->last_ip = 0;
	if (extra)
		emit(g, extra);
	mode_exec(g);
	ip_pkt(g, PK_PT_FUP, ip);
	emit_type(g, PK_PT_PSBEND);
	g->since_psb = 0;
}

/* The end of the trace at IP (a block start): FUP IP, TIP.PGD. */
static inline void gen_end(struct gen *g, uint64_t ip)
{
	ip_pkt(g, PK_PT_FUP, ip);
	emit_type(g, PK_PT_TIP_PGD);
}

/* An interrupt at IP: FUP IP, TIP to a random block; returns the block. */
static inline int interrupt(struct gen *g, uint64_t ip)
{
	int to = (int)(rnd() % NBLK);

	ip_pkt(g, PK_PT_FUP, ip);
	ip_pkt(g, PK_PT_TIP, blk_ip(to));
	return to;
}

/* Block B's conditional branch at IP, taken or not at random (a TNT bit);
 * not taken, the jmp after it runs too (into IPS at *K). Returns where
 * it goes. */
static inline uint64_t jcc(struct gen *g, const struct prog *p, int b,
			   uint64_t ip, uint64_t *ips, size_t *k)
{
	int taken = (int)(rnd() % 2);

	tnt(g, taken);
	if (taken)
		return p->target[b];
	ips[(*k)++] = ip + 6;
	return blk_ip((b + 1) % NBLK);
}

/* Where a branch to NEXT goes on to: a return lands after a call, and
 * the block's jmp to the next block runs (into IPS at *K). Returns a
 * block start. */
static inline uint64_t land(uint64_t next, uint64_t *ips, size_t *k)
{
	if (next != blk_ip(blk_of(next))) {
		ips[(*k)++] = next;
		next = blk_ip((blk_of(next) + 1) % NBLK);
	}
	return next;
}
#endif
