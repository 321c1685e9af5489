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
	uint64_t bind_ip;	/* B_IP: where it is delivered */
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

struct cache_ent {
	uint64_t ip;
	uint64_t target;
	uint8_t size, iclass, mode, valid, absolute;
};

struct pk_pt_insn_decoder {
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

	uint64_t tnt;
	uint8_t tnt_n;

	bool enabled, speculative, synced;
	uint64_t ip;
	uint8_t mode, iflag;
	uint8_t q_mode;		/* exec mode as read ahead (reset by OVF) */
	uint64_t cr3;

	uint64_t rs[RSMAX];
	unsigned rs_top, rs_n;

	struct qev q[QMAX];
	unsigned qh, qn;

	/* events held until their partner packet: MWAIT until EXSTOP,
	 * PWRE until PWRX */
	struct qev held[8];
	unsigned nheld;

	/* EVD payloads waiting for their CFE */
	uint64_t evd_cr2, evd_vmxq, evd_vmxr;
	uint8_t have_cr2, have_vmxq, have_vmxr;
	uint8_t nevd;			/* perf_binding: all, in order */
	uint8_t cfe_waiting;		/* a CFE without IP for the next FUP */
	struct qev cfe_wait;
	uint8_t evd_type[PK_PT_MAX_EVD];
	uint64_t evd[PK_PT_MAX_EVD];
	int status_err;			/* PSB+ contradicted the flow ... */
	uint64_t status_err_off;	/* ... here */
	int ctx_err;			/* deferred context error ... */
	uint64_t ctx_err_off;		/* ... and where */
	struct pk_pt_decoder *scan;	/* look-ahead without consuming */

	uint64_t icount;	/* instructions since the last IP reference */
	uint64_t resume_ip;	/* where a sync disable would resume */
	bool have_resume;
	uint64_t last_tick, tnt_tsc, q_tsc;
	bool queried;		/* the last instruction consumed TNT/TIP */
	bool absolute;		/* the last instruction: absolute jump */
	bool after_branch;	/* the last instruction was a branch */
	bool touched;		/* packets were consumed since cleared */

	/* error recovery (resync): flow IP unknown until a packet gives one */
	bool noip;
	bool have_psb_ip;	/* IP restated by a PSB+ not yet passed */
	uint64_t psb_ip;
	uint64_t lib_off;	/* position as libipt would report it */
	/* the walk since the last packet read (Brent's cycle check) */
	uint64_t walk_ip, walk_n, walk_lim;
	uint64_t resync_off;	/* where the last resync's error was */
	bool resynced;		/* ... since the last sync */
	bool in_psb;
	bool full_ip;		/* noip: only a TIP with a whole IP ends it */
	bool took_tip;		/* noip ended at a TIP (not yet told) */

	struct pk_pt_time time;
	struct pk_pt_tcal tcal;

	/* Both caches start small and double (cleared) when they miss a
	 * lot, so short traces stay cheap and long ones get room. */
	struct cache_ent *cache;
	struct block_ent *bcache;
	unsigned cache_bits, bcache_bits;
	uint64_t cache_miss, bcache_miss;
	uint64_t walked;	/* instructions walked (pk_pt_insn_work) */
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
void pk__pt_fl_fill(struct pk_pt_insn_decoder *d);

/* flow.c: the time as perf's decoder has it when it next needs code: the
 * timing packets up to the next packet that makes it walk instructions
 * applied (perf reports a failed instruction fetch only there). */
int pk__pt_fl_time_ahead(struct pk_pt_insn_decoder *d, uint64_t *tsc);
/* pk_pt_insn_resync as perf's decoder after a failed instruction fetch
 * (its NO_IP state): the last IP is forgotten, so only a TIP whose IP is
 * whole (sign-extended 48 bits or 64) gives the flow its IP again. */
int pk__pt_fl_resync_full_ip(struct pk_pt_insn_decoder *d);
/* perf_binding: perf's decoder, waiting for an IP after an error, takes
 * the next FUP's: when the event queued first is one at a FUP with no
 * TIP after it (TSX, a lone FUP, PTWRITE, EXSTOP, MWAIT, PWRE, CFE), the
 * flow takes its IP with it (the TNT bits before it dropped); true
 * then (the event is pending). */
bool pk__pt_fl_fup_ahead(struct pk_pt_insn_decoder *d);
/* Whether the flow took up an IP at a TIP since the last resync (once). */
bool pk__pt_fl_took_tip(struct pk_pt_insn_decoder *d, uint64_t *ip);
/* Synchronises at the PSB at OFFSET of the stream, as after
 * pk_pt_insn_sync_forward (perf's decoder repositioned by a fast
 * forward). Status bits, or PK_ERR_NOSYNC when no PSB is there. */
int pk__pt_fl_sync_at(struct pk_pt_insn_decoder *d, uint64_t offset);

#endif
