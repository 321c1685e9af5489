/* SPDX-License-Identifier: MIT */
/*
 * perf's quick decoding (--itrace q and qq): the code is not walked and
 * TNT packets are not read; the trace's IPs are taken as they come. q
 * ("hop") takes them from TIP, TIP.PGE, FUP and PSB+ packets; qq
 * ("leap") only from the FUPs of PSB+s, jumping from PSB to PSB. Each
 * IP reached is an instruction sample of period 1, each TIP.PGE a trace
 * start; PSB, CBR and errors as in the full decoding.
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "itrace/itrace_int.h"
#include "pt/pt_int.h"

struct it_quick {
	struct pk_pt_decoder *pkt;
	struct pk_pt_config cfg;
	struct pk_pt_last_ip lip;
	struct pk_pt_time time;
	struct pk_pt_tcal tcal;
	bool leap;		/* qq */
	bool synced;
	bool pge;		/* tracing on, as the packets tell */
	bool resample;		/* an instruction sample at IP comes next */
	/* a packet that makes samples, read past the time decoded up to:
	 * taken at the next step (perf makes a state's samples once the
	 * records before its time are in: the task, its stack) */
	bool have_held;
	struct pk_pt_packet held;
	uint64_t held_off;
	bool psb_due;		/* a PSB+ read, its samples not made yet */
	/* after an error perf's decoder waits for a packet that gives it
	 * an IP (its walk_to_ip): TIP, TIP.PGE, TIP.PGD, FUP, PSB+ FUP */
	bool resync;
	/* the next FUP is one no TIP follows (perf's no_tip): the packet
	 * before it asks for one (PTWRITE, EXSTOP or CFE with IP, BEP with
	 * IP, MODE.Exec), or an MWAIT (and PWRE) waits for it */
	bool fup_alone, mwait_due;
	uint64_t psb_off, psb_ip;
	uint64_t ip;
	int cbr;		/* the last CBR seen, -1 none */
};

struct it_quick *pk__it_quick_new(const uint8_t *buf, size_t len,
				  const struct pk_pt_config *cfg, bool leap)
{
	struct it_quick *k = pk__zalloc(sizeof(*k));

	if (!k)
		return NULL;
	k->cfg = *cfg;
	k->pkt = pk_pt_decoder_new(buf, len, &k->cfg);
	if (!k->pkt) {
		pk__free(k);
		return NULL;
	}
	k->leap = leap;
	k->cbr = -1;
	pk_pt_time_init(&k->time);
	pk_pt_tcal_init(&k->tcal);
	return k;
}

void pk__it_quick_free(struct it_quick *k)
{
	if (!k)
		return;
	pk_pt_decoder_free(k->pkt);
	pk__free(k);
}

/* The time the trace reached (perf's decoder timestamp): 0 or
 * PK_PT_ERR_NO_TIME. */
int pk__it_quick_time(const struct it_quick *k, uint64_t *tsc)
{
	return pk_pt_time_query(&k->time, tsc);
}

static void time_apply(struct it_quick *k, const struct pk_pt_packet *p)
{
	pk__pt_timing(&k->time, &k->tcal, &k->cfg, p, false);
}

/* The sample's time: the trace's now. */
static void qbase(struct walk *w, struct pk_itrace_sample *s, int kind)
{
	struct pk_pt_event ev;

	memset(&ev, 0, sizeof(ev));
	if (pk_pt_time_query(&w->qk->time, &ev.tsc) < 0)
		ev.tsc = 0;
	ev.has_tsc = ev.tsc != 0;
	pk__it_base(w, s, kind, &ev);
}

/* An IP the trace reached: an instruction sample of period 1 (perf does
 * not apply the period when it does not walk the code); ADDR and FLAGS
 * those of the event there (an asynchronous branch's target). */
static void hop_at(struct walk *w, int kind, uint64_t ip, uint64_t addr,
		   uint32_t flags)
{
	struct pk_itrace_sample s;

	qbase(w, &s, kind);
	s.ip = ip;
	s.addr = addr;
	s.flags = flags;
	pk__it_chain(w, &s);
	pk__it_emit(w, &s);
}

static void hop_isample(struct walk *w, uint64_t ip, uint64_t addr,
			uint32_t flags)
{
	if (w->it->opts.instructions)
		hop_at(w, PK_ITRACE_INSTRUCTIONS, ip, addr, flags);
}

static void hop_sample(struct walk *w, uint64_t ip)
{
	hop_isample(w, ip, 0, 0);
}

/* A transaction sample (x) at IP. */
static void hop_tx(struct walk *w, uint64_t ip, uint64_t addr,
		   uint32_t flags)
{
	if (w->it->opts.transactions &&
	    w->it->attr[PK_ITRACE_TRANSACTIONS] >= 0)
		hop_at(w, PK_ITRACE_TRANSACTIONS, ip, addr, flags);
}

/* A branch FROM -> TO with FLAGS, if the branch filter lets it. */
static void hop_branch(struct walk *w, uint32_t flags, uint64_t from,
		       uint64_t to)
{
	struct pk_itrace_sample s;
	uint32_t filt = w->it->branches_filter;

	pk__it_ts_branch(w, flags, from, to);
	if (!w->it->opts.branches || (filt && !(flags & filt)))
		return;
	qbase(w, &s, PK_ITRACE_BRANCHES);
	s.ip = from;
	s.addr = to;
	s.flags = flags;
	s.depth = (int)w->ts_n;
	pk__it_emit(w, &s);
}

static void hop_psb(struct walk *w, uint64_t offset, uint64_t ip)
{
	struct pk_itrace_sample s;

	if (!w->it->opts.pwr_events)
		return;
	qbase(w, &s, PK_ITRACE_PSB);
	s.ip = ip;
	s.u.psb.offset = offset;
	pk__it_chain(w, &s);
	pk__it_emit(w, &s);
}

static void hop_cbr(struct walk *w, uint8_t ratio)
{
	struct pk_itrace_sample s;

	if (!w->it->opts.pwr_events || ratio == w->cbr)
		return;
	w->cbr = ratio;
	qbase(w, &s, PK_ITRACE_CBR);
	s.ip = w->qk->ip;
	s.u.cbr.cbr = ratio;
	s.u.cbr.freq_khz = (uint32_t)(ratio * w->cbr2khz);
	s.u.cbr.max_nonturbo = (uint8_t)w->it->info.max_non_turbo_ratio;
	pk__it_chain(w, &s);
	pk__it_emit(w, &s);
}

static const char *const err_msg[] = {
	[3] = "Bad packet", [6] = "Trace doesn't match instruction",
	[7] = "Overflow packet",
};

/* perf's error sample of CODE (3 a packet the decoder could not read, 6
 * a FUP whose TIP is missing, 7 an overflow) where the decoder stands. */
static void hop_error_code(struct walk *w, int code)
{
	struct pk_itrace_sample s;

	if (!w->it->opts.errors)
		return;
	w->it->nr_errors++;
	qbase(w, &s, PK_ITRACE_ERROR);
	s.ip = w->qk->ip;
	s.u.error.type = 1;
	s.u.error.code = code;
	s.u.error.msg = err_msg[code];
	pk__it_emit(w, &s);
}

/* A packet the decoder could not read: the walk goes on at the next
 * PSB. */
static void hop_error(struct walk *w)
{
	hop_error_code(w, 3);
}

/* An IP packet's IP into the decoder's: false when it gives none. */
static bool take_ip(struct it_quick *k, const struct pk_pt_packet *p)
{
	uint64_t ip;

	if (p->u.ip.ipc == PK_PT_IPC_SUPPRESSED ||
	    pk_pt_last_ip_update(&k->lip, p->u.ip.ipc, p->u.ip.ip) < 0 ||
	    pk_pt_last_ip_query(&k->lip, &ip) < 0)
		return false;
	k->ip = ip;
	return true;
}

/* A PSB+ read: its packets up to PSBEND (timing, CBR, the FUP's IP),
 * its samples kept for psb_samples(). */
static int psb_read(struct walk *w, uint64_t offset)
{
	struct it_quick *k = w->qk;
	struct pk_pt_packet p;
	int n;

	memset(&k->lip, 0, sizeof(k->lip));
	k->psb_off = offset;
	k->psb_ip = 0;
	while ((n = pk_pt_next(k->pkt, &p)) > 0 && p.type != PK_PT_PSBEND) {
		time_apply(k, &p);
		if (p.type == PK_PT_FUP && take_ip(k, &p)) {
			k->psb_ip = k->ip;
			k->pge = true;
		} else if (p.type == PK_PT_CBR) {
			k->cbr = p.u.cbr.ratio;
		}
	}
	if (n < 0)
		return n;
	k->psb_due = true;
	return 0;
}

/* The PSB+'s samples: the PSB, its CBR, with a FUP an instruction
 * sample at its IP. */
static void psb_samples(struct walk *w)
{
	struct it_quick *k = w->qk;

	k->psb_due = false;
	hop_psb(w, k->psb_off, k->psb_ip);
	if (k->cbr >= 0)
		hop_cbr(w, (uint8_t)k->cbr);
	if (k->psb_ip)
		hop_sample(w, k->psb_ip);
}

/* perf's walk from a FUP to the TIP after it (intel_pt_walk_fup_tip):
 * timing, CBR, PIP, MODE.Exec, VMCS, MNT and PAD read on (a CBR's ratio
 * into *CBR); T the packet that ends it, at *OFF: 1 a TIP, TIP.PGD or
 * TIP.PGE, 0 another (perf's mismatch), 2 one perf cannot read (its bad
 * packet error, the FUP's branch lost), or an error. */
static int fup_tip(struct it_quick *k, struct pk_pt_packet *t, uint64_t *off,
		   int *cbr)
{
	int n;

	for (;;) {
		pk_pt_offset(k->pkt, off);
		n = pk_pt_next(k->pkt, t);
		if (n < 0)
			return n;
		if (pk__pt_perf_bad(t))
			return 2;
		switch (t->type) {
		case PK_PT_TIP: case PK_PT_TIP_PGD: case PK_PT_TIP_PGE:
			return 1;
		case PK_PT_CBR:
			*cbr = t->u.cbr.ratio;
			break;
		case PK_PT_MTC: case PK_PT_CYC: case PK_PT_PIP:
		case PK_PT_MODE_EXEC: case PK_PT_VMCS: case PK_PT_MNT:
		case PK_PT_PAD:
			break;
		default:
			return 0;
		}
		time_apply(k, t);
	}
}

/* A FUP's TIP is missing: perf's mismatch error at the FUP, the packet
 * that came instead read again as it waits for an IP. */
static void fup_no_tip(struct walk *w, const struct pk_pt_packet *t,
		       uint64_t off)
{
	struct it_quick *k = w->qk;

	hop_error_code(w, 6);
	k->resync = true;
	k->mwait_due = false;
	time_apply(k, t);
	k->held = *t;
	k->held_off = off;
	k->have_held = true;
}

/* The branch from a FUP at FROM to the packet T that ends it (FLAGS:
 * an abort's, else 0: an asynchronous branch), its instruction sample
 * first, an abort's transaction sample between: perf's one state. */
static void fup_branch(struct walk *w, uint64_t from,
		       const struct pk_pt_packet *t, uint32_t flags)
{
	struct it_quick *k = w->qk;
	uint64_t to = 0;
	uint32_t f = flags;

	if (t->type == PK_PT_TIP_PGD)
		k->pge = false;
	if (t->type == PK_PT_TIP_PGE)
		k->pge = true;
	if (take_ip(k, t))
		to = k->ip;
	else
		k->ip = from;
	if (!f && !to)
		f = PK_IP_FLAG_BRANCH | PK_IP_FLAG_ASYNC | PK_IP_FLAG_TRACE_END;
	else if (!f)
		f = PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL | PK_IP_FLAG_ASYNC |
		    PK_IP_FLAG_INTERRUPT;
	if (t->type == PK_PT_TIP_PGD)
		f |= PK_IP_FLAG_TRACE_END;
	if (t->type == PK_PT_TIP_PGE) {
		f |= PK_IP_FLAG_TRACE_BEGIN;
		from = 0;
	}
	hop_isample(w, from, to, f);
	if (flags)
		hop_tx(w, from, to, f);
	hop_branch(w, f, from, to);
	k->resample = to != 0;	/* an instruction sample at the target */
}

/* A FUP outside PSB+ (its IP taken) that waits for a TIP: the branch to
 * it (FLAGS an abort's, else 0), or perf's error when another packet
 * comes first. */
static int hop_fup_tip(struct walk *w, uint32_t flags)
{
	struct it_quick *k = w->qk;
	struct pk_pt_packet t;
	uint64_t from = k->ip, off = 0;
	int cbr = -1, n;

	n = fup_tip(k, &t, &off, &cbr);
	if (n < 0)
		return n;
	if (cbr >= 0)	/* (perf's CBR sample comes first in its state) */
		hop_cbr(w, (uint8_t)cbr);
	if (!n) {
		fup_no_tip(w, &t, off);
		return 0;
	}
	if (n == 2) {
		hop_error_code(w, 3);
		return 0;
	}
	time_apply(k, &t);
	fup_branch(w, from, &t, flags);
	return 0;
}

/* A FUP outside PSB+: the IP alone when no TIP is due (an event's FUP:
 * PTWRITE, EXSTOP...), else the branch to the TIP after it. */
static int hop_fup(struct walk *w)
{
	struct it_quick *k = w->qk;

	if (k->fup_alone || k->mwait_due) {
		k->mwait_due = false;
		hop_sample(w, k->ip);
		return 0;
	}
	return hop_fup_tip(w, 0);
}

/* MODE.TSX with its FUP (P: the packet after the MODE.TSX): an abort
 * is a branch to the TIP after the FUP, flagged so; a begin or a commit
 * a transaction sample at the FUP. 1 when taken, 0 when P is no FUP (it
 * is then the next packet to take). */
static int hop_tsx(struct walk *w, const struct pk_pt_packet *tsx,
		   const struct pk_pt_packet *p)
{
	struct it_quick *k = w->qk;
	int n;

	if (p->type != PK_PT_FUP || !take_ip(k, p))
		return 0;
	if (!tsx->u.tsx.abrt) {	/* a begin or a commit */
		uint32_t f = tsx->u.tsx.intx ? PK_IP_FLAG_IN_TX : 0;

		k->mwait_due = false;
		hop_isample(w, k->ip, 0, f);
		hop_tx(w, k->ip, 0, f);
		return 1;
	}
	n = hop_fup_tip(w, PK_IP_FLAG_BRANCH | PK_IP_FLAG_TX_ABORT);
	return n < 0 ? n : 1;
}

static bool makes_samples(uint8_t type)
{
	switch (type) {
	case PK_PT_TIP: case PK_PT_TIP_PGE: case PK_PT_TIP_PGD:
	case PK_PT_FUP: case PK_PT_PSB: case PK_PT_CBR: case PK_PT_MODE_TSX:
		return true;
	default:
		return false;
	}
}

/* The trace's time is past what the caller decodes up to. */
static bool past_limit(const struct walk *w)
{
	uint64_t t;

	return !w->it->timeless && !pk_pt_time_query(&w->qk->time, &t) &&
	       t > w->limit;
}

/* After an error, perf's decoder waiting for an IP (intel_pt_walk_to_ip)
 * at packet P: a TIP, TIP.PGE, TIP.PGD or FUP with one is a trace start
 * there (from 0; a TIP.PGD's also a trace end), a PSB+ with a FUP its IP
 * alone (and its CBR); an instruction sample at the IP next. 1 when it
 * made samples, 0 when not, or an error. */
static int hop_resync(struct walk *w, const struct pk_pt_packet *p,
		      uint64_t offset)
{
	struct it_quick *k = w->qk;
	uint32_t f = PK_IP_FLAG_BRANCH | PK_IP_FLAG_TRACE_BEGIN;

	switch (p->type) {
	case PK_PT_TIP_PGD:
		k->pge = false;
		f |= PK_IP_FLAG_TRACE_END;
		break;
	case PK_PT_TIP: case PK_PT_TIP_PGE:
		k->pge = true;
		break;
	case PK_PT_FUP:
		break;
	case PK_PT_STOP:
		k->pge = false;
		return 0;
	case PK_PT_PSB:
		if (psb_read(w, offset) < 0)
			return PK_PT_ERR_BAD_PACKET;
		k->psb_due = false;
		if (!k->psb_ip)
			return 0;
		k->resync = false;
		if (k->cbr >= 0)
			hop_cbr(w, (uint8_t)k->cbr);
		k->resample = true;
		return 1;
	default:
		return 0;
	}
	if (!take_ip(k, p))
		return 0;
	k->resync = false;
	hop_branch(w, f, 0, k->ip);
	k->resample = true;
	return 1;
}

/* Whether packet P makes the FUP right after it one that no TIP follows
 * (perf's no_tip). */
static bool asks_fup(const struct pk_pt_packet *p)
{
	if (pk__pt_perf_bad(p))	/* (not read: a MODE.Exec perf rejects) */
		return false;
	switch (p->type) {
	case PK_PT_PTW: return p->u.ptw.ip;
	case PK_PT_EXSTOP: return p->u.exstop.ip;
	case PK_PT_CFE: return p->u.cfe.ip;
	case PK_PT_BEP: return p->u.bep.ip;
	case PK_PT_MODE_EXEC: return true;
	default: return false;
	}
}

/* One packet: 1 when it made samples (the step ends), 0 when not, or
 * an error. */
static int hop_packet(struct walk *w, const struct pk_pt_packet *p,
		      uint64_t offset)
{
	struct it_quick *k = w->qk;

	if (pk__pt_perf_bad(p)) {	/* perf's error, its state kept */
		hop_error_code(w, 3);
		return 1;
	}
	if (k->resync)
		return hop_resync(w, p, offset);
	switch (p->type) {
	case PK_PT_TIP:
		if (!take_ip(k, p))
			return 0;
		hop_sample(w, k->ip);
		return 1;
	case PK_PT_TIP_PGD:
		k->pge = false;
		if (!take_ip(k, p))
			return 0;
		hop_branch(w, PK_IP_FLAG_BRANCH | PK_IP_FLAG_TRACE_BEGIN |
			   PK_IP_FLAG_TRACE_END, 0, k->ip);
		return 1;
	case PK_PT_TIP_PGE:
		k->pge = true;
		if (!take_ip(k, p))
			return 0;
		hop_branch(w, PK_IP_FLAG_BRANCH | PK_IP_FLAG_TRACE_BEGIN, 0,
			   k->ip);
		k->resample = true;
		return 1;
	case PK_PT_FUP:
		if (!take_ip(k, p))
			return 0;
		if (!k->pge) {
			k->mwait_due = false;
			hop_sample(w, k->ip);
			return 1;
		}
		return hop_fup(w) < 0 ? PK_PT_ERR_BAD_PACKET : 1;
	case PK_PT_PSB:
		if (psb_read(w, offset) < 0)
			return PK_PT_ERR_BAD_PACKET;
		psb_samples(w);
		return 1;
	case PK_PT_CBR:
		hop_cbr(w, p->u.cbr.ratio);
		return 1;
	case PK_PT_STOP:
		k->pge = false;
		return 0;
	case PK_PT_MWAIT:
		k->mwait_due = true;
		return 0;
	case PK_PT_MODE_TSX: {
		struct pk_pt_packet f;
		int n, r;

		if (!k->pge)
			return 0;
		if ((n = pk_pt_next(k->pkt, &f)) < 0)
			return n;
		if ((r = hop_tsx(w, p, &f)) != 0)
			return r;
		time_apply(k, &f);
		return hop_packet(w, &f, offset);
	}
	default:
		return 0;
	}
}

/* One step of quick decoding: packets up to one that makes samples. */
void pk__it_quick_step(struct walk *w)
{
	struct it_quick *k = w->qk;
	struct pk_pt_packet p;
	uint64_t off = 0;
	int n, r;

	if (k->psb_due) {
		psb_samples(w);
		return;
	}
	if (k->resample) {
		k->resample = false;
		hop_sample(w, k->ip);
		return;
	}
	if (k->have_held) {
		k->have_held = false;
		if (hop_packet(w, &k->held, k->held_off) < 0) {
			hop_error(w);
			k->synced = false;
		}
		k->fup_alone = asks_fup(&k->held);
		return;
	}
	for (;;) {
		if (!k->synced) {
			if (pk_pt_sync_forward(k->pkt) < 0) {
				w->done = true;
				return;
			}
			k->synced = true;
		}
		pk_pt_offset(k->pkt, &off);
		n = pk_pt_next(k->pkt, &p);
		if (n == PK_ERR_EOS) {
			w->done = true;
			return;
		}
		if (n < 0) {
			hop_error(w);
			k->synced = false;
			return;
		}
		/* qq: from PSB to PSB, what lies between unread */
		if (k->leap && p.type != PK_PT_PSB) {
			k->synced = false;
			continue;
		}
		time_apply(k, &p);
		if (makes_samples(p.type) && past_limit(w)) {
			k->held = p;
			k->held_off = off;
			k->have_held = true;
			return;
		}
		r = hop_packet(w, &p, off);
		if (p.type != PK_PT_PAD)	/* (perf never sees a PAD) */
			k->fup_alone = asks_fup(&p);
		if (r < 0) {
			hop_error(w);
			k->synced = false;
			return;
		}
		if (r)
			return;
	}
}
