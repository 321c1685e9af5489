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

/* perf's error sample (INTEL_PT_ERR_BADPKT, 3) for a packet the decoder
 * could not read; the walk goes on at the next PSB. */
static void hop_error(struct walk *w)
{
	struct pk_itrace_sample s;

	if (!w->it->opts.errors)
		return;
	w->it->nr_errors++;
	qbase(w, &s, PK_ITRACE_ERROR);
	s.ip = w->qk->ip;
	s.u.error.type = 1;
	s.u.error.code = 3;
	s.u.error.msg = "Bad packet";
	pk__it_emit(w, &s);
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

/* A FUP outside PSB+: an asynchronous branch when a TIP follows, the
 * IP alone otherwise. */
static int hop_fup(struct walk *w)
{
	struct it_quick *k = w->qk;
	struct pk_pt_packet p;
	uint64_t from = k->ip, off = 0;
	int n;

	pk_pt_offset(k->pkt, &off);
	n = pk_pt_next(k->pkt, &p);
	while (n > 0 && (p.type == PK_PT_PAD || p.type == PK_PT_TSC ||
			 p.type == PK_PT_MTC || p.type == PK_PT_CYC ||
			 p.type == PK_PT_TMA || p.type == PK_PT_MODE_EXEC ||
			 p.type == PK_PT_PIP || p.type == PK_PT_VMCS)) {
		time_apply(k, &p);
		pk_pt_offset(k->pkt, &off);
		n = pk_pt_next(k->pkt, &p);
	}
	if (n < 0)
		return n;
	if (p.type == PK_PT_TIP && take_ip(k, &p)) {
		uint32_t f = PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL |
			     PK_IP_FLAG_ASYNC | PK_IP_FLAG_INTERRUPT;

		hop_isample(w, from, k->ip, f);
		hop_branch(w, f, from, k->ip);
		k->resample = true;
		return 0;
	}
	if (p.type == PK_PT_TIP_PGD) {
		uint32_t f = PK_IP_FLAG_BRANCH | PK_IP_FLAG_ASYNC |
			     PK_IP_FLAG_TRACE_END;

		k->pge = false;
		hop_isample(w, from, 0, f);
		hop_branch(w, f, from, 0);
		return 0;
	}
	/* a FUP no TIP follows (an event's: PTWRITE, EXSTOP...): the IP
	 * alone, and the packet after it taken at the next step */
	hop_sample(w, from);
	k->held = p;
	k->held_off = off;	/* (a PSB's samples give its offset) */
	k->have_held = true;
	return 0;
}

/* MODE.TSX with its FUP (P: the packet after the MODE.TSX): an abort
 * is an asynchronous branch to the TIP after the FUP, flagged so; a
 * begin or a commit a transaction sample at the FUP. 1 when taken, 0
 * when P is no FUP (it is then the next packet to take). */
static int hop_tsx(struct walk *w, const struct pk_pt_packet *tsx,
		   const struct pk_pt_packet *p)
{
	struct it_quick *k = w->qk;
	struct pk_pt_packet t;
	int n;

	if (p->type != PK_PT_FUP || !take_ip(k, p))
		return 0;
	if (!tsx->u.tsx.abrt) {	/* a begin or a commit */
		uint32_t f = tsx->u.tsx.intx ? PK_IP_FLAG_IN_TX : 0;

		hop_isample(w, k->ip, 0, f);
		hop_tx(w, k->ip, 0, f);
		return 1;
	}
	while ((n = pk_pt_next(k->pkt, &t)) > 0 && t.type != PK_PT_TIP &&
	       t.type != PK_PT_TIP_PGD)
		time_apply(k, &t);
	if (n < 0)
		return n;
	{
		uint64_t from = k->ip, to = 0;
		uint32_t f = PK_IP_FLAG_BRANCH | PK_IP_FLAG_TX_ABORT;

		if (t.type == PK_PT_TIP && take_ip(k, &t))
			to = k->ip;
		hop_isample(w, from, to, f);
		hop_tx(w, from, to, f);
		hop_branch(w, f, from, to);
		k->resample = to != 0;
	}
	return 1;
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

/* One packet: 1 when it made samples (the step ends), 0 when not, or
 * an error. */
static int hop_packet(struct walk *w, const struct pk_pt_packet *p,
		      uint64_t offset)
{
	struct it_quick *k = w->qk;

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
		if (r < 0) {
			hop_error(w);
			k->synced = false;
			return;
		}
		if (r)
			return;
	}
}
