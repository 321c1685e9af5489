/* SPDX-License-Identifier: MIT */
/*
 * Internal to the PT flow decoder: its state (flow.c: queries,
 * instructions, public API) and the packet read-ahead that turns
 * packets into events (flow_read.c).
 */
#ifndef PK_PT_FLOW_INT_H
#define PK_PT_FLOW_INT_H

#include <stdbool.h>
#include "pt/pt_int.h"
#include <perfkit/pt_insn.h>

enum bind { B_NOW, B_IP, B_FUP, B_TIP, B_EXSTOP, B_INSN, B_COUNT };

struct qev {
	struct pk_pt_event ev;
	uint8_t bind;
	bool partial_ip;	/* its IP compressed against the last one */
	uint64_t bind_ip;	/* B_IP: where it is delivered */
	uint64_t fup_tsc;	/* an async branch's: the time at its FUP */
};

enum { QMAX = 64, RSMAX = 64, CACHE_BITS_MIN = 8, CACHE_BITS_MAX = 16,
       BCACHE_BITS_MAX = 14,
       BLOCK_MAX = 4096 };

/* Block cache: from a start address, the instructions up to and
 * including the next branch (or CR3 write / PTWRITE, which events may
 * bind to). Each code address is classified once. */
struct block_ent {
	uint64_t ip, end_ip, target;
	uint32_t ninsn;
	uint8_t last_size, last_iclass, mode, valid, absolute;
};

/*
 * Superblock cache (flow_sb.c): from a start address and the next few
 * TNT bits (keyed on both), the blocks the flow walks with those bits,
 * up to and including the last one that takes a bit. Each block is kept
 * as a record: where it ends and where it goes.
 */
enum { SB_BITS = 8,		/* TNT bits a superblock is keyed on */
       SB_REC_MAX = 32,		/* blocks in one */
       SB_DEPTH = 4,		/* calls left open in one */
       SBCACHE_BITS_MIN = 8, SBCACHE_BITS_MAX = 14,
       SB_POOL_PER_ENT = 8,	/* records kept per entry (pool size) */
       SB_RUN_MAX = 4096 };	/* blocks one pk_pt_insn_next_blocks does */

enum { SBR_Q = 1,		/* takes a TNT bit */
       SBR_PUSH = 2,		/* a call: pushes its return address */
       SBR_POP = 4,		/* a return to a call of the superblock */
       SBR_DYN = 8,		/* a return to a call before it (the last) */
       SBR_ABS = 16,		/* its last instruction: absolute jump */
       SBR_OPEN = 32 };		/* a call not returned from in it */

struct sb_rec {
	uint64_t end_ip;	/* the block's last instruction */
	uint64_t nip;		/* where it goes (not with SBR_DYN) */
	uint16_t ninsn;
	uint8_t iclass, size, flags;
};

/* (32 bytes: two to a cache line) */
struct sb_ent {
	uint64_t ip;		/* the first block */
	uint64_t end;		/* where the flow goes after it (not dyn) */
	uint32_t rec;		/* its records in the pool */
	uint32_t ninsn;
	uint16_t key;		/* SB_KEY: mode, bits and their number */
	uint8_t nrec;		/* 0: no superblock starts here */
	uint8_t nq;		/* bits it takes */
	uint8_t npush;		/* calls left open (SBR_OPEN records) */
	uint8_t peak;		/* most calls open at once */
	uint8_t dyn;		/* ends in a return to a call before it */
	uint8_t absolute;	/* the last block's SBR_ABS */
};

struct cache_ent {
	uint64_t ip;
	uint64_t target;
	uint8_t size, iclass, mode, valid, absolute;
};

struct pk_pt_insn_decoder {
	/* The flow: what every block reads or writes, kept together. */
	uint64_t ip;
	uint64_t tnt;		/* TNT bits not used yet: TNT_N of them */
	uint8_t tnt_n;
	uint8_t mode;
	bool enabled, speculative;
	bool queried;		/* the last instruction consumed TNT/TIP */
	bool absolute;		/* the last instruction: absolute jump */
	bool after_branch;	/* the last instruction was a branch */
	bool touched;		/* packets were consumed since cleared */
	/* error recovery (resync): flow IP unknown until a packet gives one */
	bool noip;
	bool have_psb_ip;	/* IP restated by a PSB+ not yet passed */
	unsigned qh, qn;	/* the event queue (q) */
	unsigned nheld;		/* (held) */
	unsigned rs_top, rs_n;	/* the return stack (rs) */
	int status_err;			/* PSB+ contradicted the flow ... */
	bool psb_cut;		/* the trace ended in a PSB+ after its FUP:
				 * perf's fup_in_psb fails (an error at the
				 * flow's IP, then a resync at the next IP) */
	bool psb_walk;		/* perf_binding: the PSB next waits while the
				 * flow walks to its FUP's IP (PSB_WALK_IP);
				 * a branch that needs a packet first is an
				 * error, the resync goes on at that FUP */
	uint64_t psb_walk_ip;
	int ctx_err;			/* deferred context error ... */
	uint64_t icount;	/* instructions since the last IP reference */
	uint64_t tnt_tsc, q_tsc;
	/* the walk since the last packet read (Brent's cycle check; WALK_OFF
	 * the reader's LIB_OFF then) */
	uint64_t walk_ip, walk_n, walk_lim, walk_off;
	uint64_t walked;	/* instructions walked (pk_pt_insn_work) */
	/* superblocks (flow_sb.c) and the one being handed out a block at
	 * a time (SB_LEFT records from SB_CUR; the flow then at SB_IP) */
	const struct sb_rec *sb_cur;
	uint64_t sb_ip;
	uint8_t sb_left;
	bool sb_off;		/* not used (tests compare both paths) */
	unsigned sb_bits;
	struct sb_ent *sb;
	struct sb_rec *sb_pool;
	uint32_t sb_pool_n;
	uint64_t sb_miss;

	struct pk_pt_decoder *pkt;
	const uint8_t *buf;
	size_t len;
	const struct pk_pt_image *img;
	struct pk_pt_config cfg;
	struct pk_pt_insn_opts opts;

	/* packet look-ahead */
	struct pk_pt_packet next;
	uint64_t next_off, next_ip;
	bool have_next, next_ip_ok;
	int next_err;
	struct pk_pt_last_ip lip;

	bool synced;
	uint8_t iflag;
	uint8_t q_mode;		/* exec mode as read ahead (reset by OVF) */
	uint64_t cr3;

	uint64_t rs[RSMAX];

	struct qev q[QMAX];

	/* events held until their partner packet: MWAIT until EXSTOP,
	 * PWRE until PWRX */
	struct qev held[8];

	/* EVD payloads waiting for their CFE */
	uint64_t evd_cr2, evd_vmxq, evd_vmxr;
	uint8_t have_cr2, have_vmxq, have_vmxr;
	uint8_t nevd;			/* perf_binding: all, in order */
	uint8_t cfe_waiting;		/* a CFE without IP for the next FUP */
	struct qev cfe_wait;
	uint8_t evd_type[PK_PT_MAX_EVD];
	uint64_t evd[PK_PT_MAX_EVD];
	uint64_t status_err_off;	/* ... (status_err) here */
	uint64_t ctx_err_off;		/* ... (ctx_err) and where */
	struct pk_pt_decoder *scan;	/* look-ahead without consuming */

	uint64_t resume_ip;	/* where a sync disable would resume */
	bool have_resume;
	uint64_t last_tick;
	uint64_t psb_ip;
	uint64_t lib_off;	/* position as libipt would report it */
	uint64_t resync_off;	/* where the last resync's error was */
	bool resynced;		/* ... since the last sync */
	bool in_psb;
	bool full_ip;		/* noip: only a TIP with a whole IP ends it */
	bool took_tip;		/* noip ended at a TIP (not yet told) */
	bool miss_tip;		/* a FUP missed: its TIP's IP (MISS_IP, time
				 * MISS_TSC) is where the resync goes on */
	uint64_t miss_ip, miss_tsc;
	uint64_t tip_tsc;	/* ... the time there (0: none) */
	uint64_t ev_fup_tsc;	/* the last event's fup_tsc */

	struct pk_pt_time time;
	struct pk_pt_tcal tcal;

	/* PEBS block items (perf_packets): the record being gathered at
	 * blk[QMAX], copies for the events at blk[0..QMAX) (BLK_NEXT the
	 * next used); allocated at the first BBP. BLK_POS: the position of
	 * the block being read, -1: unknown type. */
	struct pk_pt_blk_items *blk;
	unsigned blk_next;
	int8_t blk_pos;

	/* Both caches start small and double (cleared) when they miss a
	 * lot, so short traces stay cheap and long ones get room. */
	struct cache_ent *cache;
	struct block_ent *bcache;
	unsigned cache_bits, bcache_bits;
	uint64_t cache_miss, bcache_miss;
};

/* flow_read.c */
const struct pk_pt_packet *pk__pt_fl_peek(struct pk_pt_insn_decoder *d,
	bool keep_timing);
void pk__pt_fl_take(struct pk_pt_insn_decoder *d);
struct qev *pk__pt_fl_qat(struct pk_pt_insn_decoder *d, unsigned i);
struct qev *pk__pt_fl_new_ev(struct qev *e, uint8_t type, uint8_t bind);
bool pk__pt_fl_bind_waiting(struct pk_pt_insn_decoder *d, uint8_t bind,
	uint64_t ip, bool suppressed);
void pk__pt_fl_flush_held(struct pk_pt_insn_decoder *d);
void pk__pt_fl_read_event(struct pk_pt_insn_decoder *d);
void pk__pt_fl_psb_plus(struct pk_pt_insn_decoder *d);
/* perf_binding, after an error in the walk to a PSB+'s FUP (psb_walk):
 * the PSB+ read up to its FUP as perf's resync reads it (no PSB event),
 * the flow taken up at the FUP's IP. */
void pk__pt_fl_psb_resync(struct pk_pt_insn_decoder *d);
void pk__pt_fl_fill(struct pk_pt_insn_decoder *d);
bool pk__pt_fl_fill_side(struct pk_pt_insn_decoder *d);

/* flow.c, for flow_sb.c */
const struct block_ent *pk__pt_fl_block_at(struct pk_pt_insn_decoder *d,
					   uint64_t ip);
int pk__pt_fl_status(struct pk_pt_insn_decoder *d);
/* The trace goes on (sample mode's consecutive buffers): BUF[0..LEN)
 * holds the bytes D read (moved perhaps) and more; a decoding that
 * reached the end goes on from where it stood. 0, or PK_ERR_INTERNAL
 * (LEN shorter than before). */
int pk__pt_fl_extend(struct pk_pt_insn_decoder *d, const uint8_t *buf,
		     size_t len);
int pk__pt_fl_next_block(struct pk_pt_insn_decoder *d,
			 struct pk_pt_block *blk);

static inline void pk__pt_fl_push_ret(struct pk_pt_insn_decoder *d,
				      uint64_t ip)
{
	d->rs_top = (d->rs_top + 1) % RSMAX;
	d->rs[d->rs_top] = ip;
	if (d->rs_n < RSMAX)
		d->rs_n++;
}

/* flow_sb.c */
int pk__pt_sb_init(struct pk_pt_insn_decoder *d);
void pk__pt_sb_fini(struct pk_pt_insn_decoder *d);
void pk__pt_sb_clear(struct pk_pt_insn_decoder *d);
/* Tests: superblocks off (ON false) or on, to compare both paths. */
void pk__pt_sb_enable(struct pk_pt_insn_decoder *d, bool on);

/* flow.c: the time as perf's decoder has it when it next needs code: the
 * timing packets up to the next packet that makes it walk instructions
 * applied (perf reports a failed instruction fetch only there). */
int pk__pt_fl_time_ahead(struct pk_pt_insn_decoder *d, uint64_t *tsc);
/* pk_pt_insn_resync as perf's decoder after a failed instruction fetch
 * (its NO_IP state): the last IP is forgotten, so only a TIP whose IP is
 * whole (sign-extended 48 bits or 64) gives the flow its IP again. */
int pk__pt_fl_resync_full_ip(struct pk_pt_insn_decoder *d);

/* Whether P is a TIP.PGE, TIP.PGD or FUP whose IP is compressed against
 * the last one (perf reads none there once it forgot its last IP). */
static inline bool pk__pt_fl_partial_ip(const struct pk_pt_packet *p)
{
	if (p->type != PK_PT_TIP_PGE && p->type != PK_PT_TIP_PGD &&
	    p->type != PK_PT_FUP)
		return false;
	return p->u.ip.ipc != PK_PT_IPC_SUPPRESSED &&
	       p->u.ip.ipc != PK_PT_IPC_SEXT_48 && p->u.ip.ipc != PK_PT_IPC_FULL;
}
/* perf_binding: perf's decoder, waiting for an IP after an error, takes
 * the next FUP's: when the event queued first is one at a FUP with no
 * TIP after it (TSX, a lone FUP, PTWRITE, EXSTOP, MWAIT, PWRE, CFE), the
 * flow takes its IP with it (the TNT bits before it dropped); true
 * then (the event is pending). */
bool pk__pt_fl_fup_ahead(struct pk_pt_insn_decoder *d);
/* Whether the flow took up an IP at a TIP since the last resync (once);
 * TSC: the time as of that TIP, 0 when unknown (the packets read after
 * it do not count). */
bool pk__pt_fl_took_tip(struct pk_pt_insn_decoder *d, uint64_t *ip,
			uint64_t *tsc);
/* The time at the FUP of the async branch (or disable) the last
 * pk_pt_insn_event gave, before the packets up to its TIP: 0 when none
 * or unknown. */
uint64_t pk__pt_fl_ev_fup_time(const struct pk_pt_insn_decoder *d);
/* Synchronises at the PSB at OFFSET of the stream, as after
 * pk_pt_insn_sync_forward (perf's decoder repositioned by a fast
 * forward). Status bits, or PK_ERR_NOSYNC when no PSB is there. */
int pk__pt_fl_sync_at(struct pk_pt_insn_decoder *d, uint64_t offset);

/* The loop check restarted, field by field: gcc merged the two zero
 * stores into one 16-byte store, which stalled the next block's 8-byte
 * loads of them where the decoder's heap address put it across a cache
 * line (script --itrace=b 15% slower with one layout). The empty asm
 * keeps the stores apart. */
static inline void pk__pt_fl_walk_reset(struct pk_pt_insn_decoder *d)
{
	d->walk_n = 0;
	__asm__ volatile("" : : "r"(&d->walk_n) : "memory");
	d->walk_lim = 0;
}

#endif
