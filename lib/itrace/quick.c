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

/* The events perf's decoder keeps for the next FUP (its set_fup_*) or
 * that make a state of their own: what one state reports. */
struct qfup {
	bool ptw, mwait, pwre, exstop, pwrx, bep, cfe, exec;
	uint64_t ptw_payload, pwrx_payload;
	uint32_t mwait_hints, mwait_ext;
	uint16_t pwre_payload;
	uint8_t cfe_type, cfe_vector;
};

struct it_quick {
	const uint8_t *buf;
	size_t len;
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
	 * before it (ASK) asks for one (PTWRITE, EXSTOP or CFE with IP, BEP
	 * with IP, MODE.Exec), or an MWAIT (and PWRE) waits for it (F) */
	bool fup_alone;
	struct pk_pt_packet ask;
	uint64_t ask_off;
	struct qfup f;		/* the events waiting for a FUP */
	/* the EVDs kept for the next CFE, in order */
	unsigned nevd;
	uint8_t evd_type[PK_PT_MAX_EVD];
	uint64_t evd[PK_PT_MAX_EVD];
	/* perf's interrupt flag and the one a MODE.Exec gave (its
	 * iflag, next_iflag) */
	uint8_t iflag, next_iflag;
	struct it_cyc cyc;	/* perf's CYC after a bad packet */
	/* the PEBS record being gathered (BBP, BIP) */
	struct pk_pt_blk_items items;
	int8_t blk_pos;
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
	k->buf = buf;
	k->len = len;
	k->blk_pos = -1;
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

int pk__it_quick_extend(struct it_quick *k, const uint8_t *buf, size_t len)
{
	int err = pk__pt_extend(k->pkt, buf, len);

	if (err)
		return err;
	k->buf = buf;
	k->len = len;
	return 0;
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
	int err = pk_pt_time_query(&k->time, tsc);

	if (!err)
		*tsc = pk__it_cyc_ts(&k->cyc, *tsc);
	return err;
}

static void time_apply(struct it_quick *k, const struct pk_pt_packet *p)
{
	uint64_t t;

	pk__pt_timing(&k->time, &k->tcal, &k->cfg, p, false);
	if (p->type == PK_PT_CBR)
		pk__it_cyc_cbr(&k->cyc, p->u.cbr.ratio,
			       pk_pt_time_query(&k->time, &t) < 0 ? 0 : t);
}

/* perf reads the byte after a packet it rejects (P) as a CYC: its time
 * may move on (hop mode walks no instruction: no count to restart). */
static void bad_cyc(struct walk *w, const struct pk_pt_packet *p)
{
	struct it_quick *k = w->qk;
	uint64_t t;

	if (!w->it->timeless && !pk_pt_time_query(&k->time, &t))
		pk__it_cyc_bad(&k->cyc, pk__pt_perf_bad_byte(p), t,
			       w->it->info.max_non_turbo_ratio);
}

/* The sample's time: the trace's now. */
static void qbase(struct walk *w, struct pk_itrace_sample *s, int kind)
{
	struct pk_pt_event ev;

	memset(&ev, 0, sizeof(ev));
	if (pk__it_quick_time(w->qk, &ev.tsc) < 0)
		ev.tsc = 0;
	ev.has_tsc = ev.tsc != 0;
	pk__it_base(w, s, kind, &ev);
}

/* perf's hop decoder walks no instruction: perf script shows the bytes
 * of the one at the sample's ip (-F insn). */
static void qbytes(struct walk *w, struct pk_itrace_sample *s)
{
	struct pk_pt_insn in;

	if (!pk__it_insn_at(w, s->ip, &in))
		return;
	s->insn_len = in.size;
	memcpy(s->insn, in.raw, in.size < 16 ? in.size : 16);
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
	qbytes(w, &s);
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
	qbytes(w, &s);
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
	qbytes(w, &s);
	pk__it_chain(w, &s);
	pk__it_emit(w, &s);
}

static void hop_cbr(struct walk *w, uint8_t ratio, uint64_t ip)
{
	struct pk_itrace_sample s;

	if (!w->it->opts.pwr_events || ratio == w->cbr)
		return;
	w->cbr = ratio;
	qbase(w, &s, PK_ITRACE_CBR);
	s.ip = ip;
	s.u.cbr.cbr = ratio;
	s.u.cbr.freq_khz = (uint32_t)(ratio * w->cbr2khz);
	s.u.cbr.max_nonturbo = (uint8_t)w->it->info.max_non_turbo_ratio;
	qbytes(w, &s);
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

static void exec_status(struct walk *w, const struct pk_pt_packet *p);
static void take_ask(struct it_quick *k);

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
		} else if (p.type == PK_PT_MODE_EXEC) {
			exec_status(w, &p);
		}
	}
	if (n < 0)
		return n;
	k->psb_due = true;
	return 0;
}

/* psb_read, true when it failed. Where the trace ended inside the PSB+
 * perf's walk of it fails with ENODATA: no state, no error, the walk
 * done (in a consecutive buffer the PSB+'s packets after it are hopped
 * over one by one); psb_take_err then says what hop_packet returns. */
static bool psb_take(struct walk *w, uint64_t offset)
{
	int n = psb_read(w, offset);

	if (n == PK_ERR_EOS)
		w->done = true;
	return n < 0;
}

static int psb_take_err(const struct walk *w)
{
	return w->done ? 1 : PK_PT_ERR_BAD_PACKET;
}

/* The PSB+'s samples: the PSB, its CBR, with a FUP an instruction
 * sample at its IP. */
static void psb_samples(struct walk *w)
{
	struct it_quick *k = w->qk;

	k->psb_due = false;
	hop_psb(w, k->psb_off, k->psb_ip);
	if (k->cbr >= 0)
		hop_cbr(w, (uint8_t)k->cbr, k->ip);
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

/*
 * One state of perf's hop decoder and its samples, in the order perf's
 * intel_pt_sample makes them: PEBS, evt, iflag, CBR, power events, the
 * instruction, the transaction, ptwrite, the branch. Every sample of the
 * state has its flags (perf's ptq->flags: with an iflag change D as of
 * the flag before, t when it changed).
 */
struct qstate {
	uint64_t from, to;
	uint32_t flags;
	bool insn, tx, branch;
	bool iflag_chg;
	bool fip;		/* perf's INTEL_PT_FUP_IP: the event at a FUP */
	int cbr;		/* a CBR change, -1 none */
	struct qfup e;		/* the events of the state */
};

static void qstate_init(struct qstate *st, uint64_t from, uint64_t to,
			uint32_t flags)
{
	memset(st, 0, sizeof(*st));
	st->from = from;
	st->to = to;
	st->flags = flags;
	st->cbr = -1;
}

static void q_event(struct walk *w, const struct qstate *st,
		    struct pk_pt_event *ev, uint8_t type, uint32_t flags)
{
	struct pk_pt_event tm;

	memset(&tm, 0, sizeof(tm));
	if (pk__it_quick_time(w->qk, &tm.tsc) < 0)
		tm.tsc = 0;
	ev->type = type;
	ev->tsc = tm.tsc;
	ev->has_tsc = tm.tsc != 0;
	pk__it_synth_at(w, ev, st->from, st->to, flags);
}

/* The state's samples that come before its instruction sample. */
static void q_before(struct walk *w, const struct qstate *st, uint32_t f)
{
	struct it_quick *k = w->qk;
	struct pk_pt_event ev;

	memset(&ev, 0, sizeof(ev));
	if (st->e.bep) {
		ev.ip_suppressed = !st->fip;
		ev.u.blk.items = &k->items;
		q_event(w, st, &ev, PK_PT_EV_BLK_ITEMS, f);
	}
	if (st->e.cfe) {
		memset(&ev, 0, sizeof(ev));
		ev.u.cfe.type = st->e.cfe_type;
		ev.u.cfe.vector = st->e.cfe_vector;
		ev.u.cfe.ip_flag = st->fip;
		ev.u.cfe.nevd = (uint8_t)k->nevd;
		memcpy(ev.u.cfe.evd_type, k->evd_type, sizeof(k->evd_type));
		memcpy(ev.u.cfe.evd, k->evd, sizeof(k->evd));
		k->nevd = 0;
		q_event(w, st, &ev, PK_PT_EV_CFE, f);
	}
	if (st->iflag_chg) {
		memset(&ev, 0, sizeof(ev));
		ev.u.iflags.iflag = k->next_iflag;
		ev.u.iflags.fup = !st->branch;
		q_event(w, st, &ev, PK_PT_EV_IFLAGS, f);
	}
	if (st->cbr >= 0)
		hop_cbr(w, (uint8_t)st->cbr, st->from);
	memset(&ev, 0, sizeof(ev));
	ev.ip_suppressed = !st->fip;
	if (st->e.mwait) {
		ev.u.mwait.hints = st->e.mwait_hints;
		ev.u.mwait.ext = st->e.mwait_ext;
		q_event(w, st, &ev, PK_PT_EV_MWAIT, f);
	}
	if (st->e.pwre) {
		/* (perf keeps a PWRE's payload at a FUP only) */
		ev.ip_suppressed = !st->e.mwait;
		ev.u.pwre.payload = st->e.pwre_payload;
		q_event(w, st, &ev, PK_PT_EV_PWRE, f);
		ev.ip_suppressed = !st->fip;
	}
	if (st->e.exstop)
		q_event(w, st, &ev, PK_PT_EV_EXSTOP, f);
	if (st->e.pwrx) {
		ev.u.pwrx.payload = st->e.pwrx_payload;
		q_event(w, st, &ev, PK_PT_EV_PWRX, f);
	}
}

static void q_emit(struct walk *w, const struct qstate *st)
{
	struct it_quick *k = w->qk;
	uint32_t f = st->flags;

	if (st->iflag_chg && w->it->info.cap_event_trace) {
		if (!k->iflag)
			f |= PK_IP_FLAG_INTR_DISABLE;
		if (k->iflag != k->next_iflag)
			f |= PK_IP_FLAG_INTR_TOGGLE;
	}
	w->iflag = k->iflag;	/* (the samples' D: as of the flag before) */
	q_before(w, st, f);
	if (st->insn)
		hop_isample(w, st->from, st->to, f);
	if (st->tx)
		hop_tx(w, st->from, st->to, f);
	if (st->e.ptw) {
		struct pk_pt_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.ip_suppressed = !st->fip;
		ev.u.ptwrite.payload = st->e.ptw_payload;
		q_event(w, st, &ev, PK_PT_EV_PTWRITE, f);
	}
	if (st->branch)
		hop_branch(w, f, st->from, st->to);
	if (st->iflag_chg)
		k->iflag = k->next_iflag;
	w->iflag = k->iflag;
}

/* perf's fup_event: the events waiting for the FUP go with its state ST
 * (tracing on: PGE); perf's INTEL_PT_FUP_IP and, for a CFE without IP
 * bit with tracing on, a branch from the FUP to 0. TX: the FUP is a
 * MODE.TSX's. */
static void fup_event(struct it_quick *k, struct qstate *st, bool tx)
{
	bool cfe_ip = k->f.cfe && (k->f.cfe_type & 0x80);

	st->e = k->f;
	st->e.cfe_type &= 0x1f;
	st->fip = k->f.cfe && (cfe_ip || k->pge) && !tx;
	if (k->f.cfe && !cfe_ip && k->pge)
		st->branch = true;
	st->fip |= k->f.ptw || k->f.exstop;
	st->iflag_chg = k->f.exec;
	memset(&k->f, 0, sizeof(k->f));
}

/* Events lost (perf's intel_pt_clear_fup_event, at an error). */
static void fup_clear(struct it_quick *k)
{
	memset(&k->f, 0, sizeof(k->f));
	k->nevd = 0;
	k->iflag = k->next_iflag;
}

/* A FUP's TIP is missing: perf's mismatch error at the FUP, the packet
 * that came instead read again as it waits for an IP. */
static void fup_no_tip(struct walk *w, const struct pk_pt_packet *t,
		       uint64_t off)
{
	struct it_quick *k = w->qk;

	hop_error_code(w, 6);
	k->resync = true;
	fup_clear(k);
	time_apply(k, t);
	k->held = *t;
	k->held_off = off;
	k->have_held = true;
}

/* The branch from a FUP at FROM to the packet T that ends it (FLAGS:
 * an abort's, else 0: an asynchronous branch; CBR a change read
 * between), its instruction sample first, an abort's transaction sample
 * between: perf's one state, with the FUP's events (ST). */
static void fup_branch(struct walk *w, struct qstate *st,
		       const struct pk_pt_packet *t, uint32_t flags, int cbr)
{
	struct it_quick *k = w->qk;
	uint64_t from = st->from, to = 0;
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
	st->from = from;
	st->to = to;
	st->flags = f;
	st->insn = st->branch = true;
	st->tx = flags != 0;
	st->cbr = cbr;
	q_emit(w, st);
	k->resample = to != 0;	/* an instruction sample at the target */
}

/* A FUP outside PSB+ (its IP taken) that waits for a TIP: the branch to
 * it (FLAGS an abort's, else 0), or perf's error when another packet
 * comes first. */
static int hop_fup_tip(struct walk *w, uint32_t flags)
{
	struct it_quick *k = w->qk;
	struct pk_pt_packet t;
	struct qstate st;
	uint64_t off = 0;
	int cbr = -1, n;

	qstate_init(&st, k->ip, 0, 0);
	fup_event(k, &st, flags != 0);
	n = fup_tip(k, &t, &off, &cbr);
	if (n == PK_ERR_EOS) {	/* perf's ENODATA: no state, no error (a
				 * consecutive buffer reads on from here) */
		w->done = true;
		return 0;
	}
	if (n < 0)
		return n;
	if (!n) {
		if (cbr >= 0)	/* (perf's CBR sample comes first) */
			hop_cbr(w, (uint8_t)cbr, k->ip);
		fup_no_tip(w, &t, off);
		return 0;
	}
	if (n == 2) {
		if (cbr >= 0)
			hop_cbr(w, (uint8_t)cbr, k->ip);
		hop_error_code(w, 3);
		bad_cyc(w, &t);
		return 0;
	}
	time_apply(k, &t);
	fup_branch(w, &st, &t, flags, cbr);
	return 0;
}

/* A FUP no TIP follows: perf's instruction sample at it, with the
 * events that waited for it (FLAGS: a TSX begin's or commit's, TX:
 * its transaction sample). */
static void fup_alone(struct walk *w, uint32_t flags, bool tx)
{
	struct it_quick *k = w->qk;
	struct qstate st;

	qstate_init(&st, k->ip, 0, flags);
	fup_event(k, &st, tx);
	st.insn = true;
	st.tx = tx;
	q_emit(w, &st);
}

/* A FUP outside PSB+: the IP alone when no TIP is due (an event's FUP:
 * PTWRITE, EXSTOP..., or tracing off), else the branch to the TIP after
 * it. */
static int hop_fup(struct walk *w)
{
	struct it_quick *k = w->qk;

	if (k->fup_alone)
		take_ask(k);
	if (k->fup_alone || k->f.mwait || k->f.pwre || !k->pge) {
		fup_alone(w, 0, false);
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
		fup_alone(w, tsx->u.tsx.intx ? PK_IP_FLAG_IN_TX : 0, true);
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
	case PK_PT_PTW: case PK_PT_PWRE: case PK_PT_EXSTOP: case PK_PT_PWRX:
	case PK_PT_BEP: case PK_PT_CFE:
		return true;
	default:
		return false;
	}
}

/* The trace's time is past what the caller decodes up to. */
static bool past_limit(const struct walk *w)
{
	uint64_t t;

	return !w->it->timeless && !pk__it_quick_time(w->qk, &t) &&
	       t > w->limit;
}

/* A MODE.Exec in a PSB+ or while waiting for an IP: the interrupt flag
 * as it is (perf's intel_pt_mode_exec_status: no change reported). */
static void exec_status(struct walk *w, const struct pk_pt_packet *p)
{
	struct it_quick *k = w->qk;

	if (pk__pt_perf_bad(p))
		return;
	k->iflag = k->next_iflag = p->u.exec.iflag;
	w->iflag = k->iflag;
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

	fup_clear(k);
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
	case PK_PT_MODE_EXEC:
		exec_status(w, p);
		return 0;
	case PK_PT_PSB:
		if (psb_take(w, offset))
			return psb_take_err(w);
		k->psb_due = false;
		if (!k->psb_ip)
			return 0;
		k->resync = false;
		if (k->cbr >= 0)
			hop_cbr(w, (uint8_t)k->cbr, k->ip);
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

/* Packet P (at OFF) read: whether the FUP next is one no TIP follows. */
static void note_ask(struct it_quick *k, const struct pk_pt_packet *p,
		     uint64_t off)
{
	k->fup_alone = asks_fup(p);
	if (k->fup_alone) {
		k->ask = *p;
		k->ask_off = off;
	}
}

/* The event of the packet that asked for the FUP now read waits for
 * it (perf's set_fup_*). */
static void take_ask(struct it_quick *k)
{
	const struct pk_pt_packet *p = &k->ask;

	switch (p->type) {
	case PK_PT_PTW:
		k->f.ptw = true;
		k->f.ptw_payload = p->u.ptw.payload;
		break;
	case PK_PT_EXSTOP:
		k->f.exstop = true;
		break;
	case PK_PT_CFE:
		k->f.cfe = true;
		k->f.cfe_type = p->u.cfe.type | 0x80;	/* (its IP bit) */
		k->f.cfe_vector = p->u.cfe.vector;
		break;
	case PK_PT_BEP:
		k->f.bep = true;
		break;
	case PK_PT_MODE_EXEC:
		k->f.exec = true;
		break;
	default:
		break;
	}
}

/* Little-endian bytes AT..AT+N of the packet at OFF (its payload as
 * perf reads it). */
static uint64_t raw(const struct it_quick *k, uint64_t off, unsigned at,
		    unsigned n)
{
	if (off + at + n > k->len)
		return 0;
	return pt_le(k->buf + off + at, n);
}

/* A BBP or BIP: the PEBS record gathered (perf's intel_pt_bbp/bip). */
static void blk_item(struct it_quick *k, const struct pk_pt_packet *p)
{
	unsigned id;

	if (p->type == PK_PT_BBP) {
		if (!p->u.bbp.cont) {
			memset(k->items.mask, 0, sizeof(k->items.mask));
			k->items.is_32_bit = 0;
		}
		k->blk_pos = (int8_t)pk_pt_blk_pos(p->u.bbp.type);
		if (p->u.bbp.type == 1)
			k->items.is_32_bit = !p->u.bbp.sz8;
		return;
	}
	id = p->u.bip.id;
	if (k->blk_pos >= 0 && id < PK_PT_BLK_ITEM_IDS) {
		k->items.mask[k->blk_pos] |= 1u << id;
		k->items.val[k->blk_pos][id] = p->u.bip.value;
	}
}

/* An event with a state of its own where the decoder stands (a PTWRITE,
 * EXSTOP or BEP without IP, a PWRE without MWAIT, a PWRX; a CFE without
 * IP with tracing off). 1 (the step ends), or 0 when P is no such
 * event. */
static int lone_event(struct walk *w, const struct pk_pt_packet *p,
		      uint64_t off)
{
	struct it_quick *k = w->qk;
	struct qstate st;

	qstate_init(&st, k->ip, 0, 0);
	switch (p->type) {
	case PK_PT_PTW:
		st.e.ptw = true;
		st.e.ptw_payload = p->u.ptw.payload;
		break;
	case PK_PT_PWRE:
		st.e.pwre = true;
		break;
	case PK_PT_EXSTOP:
		st.e.exstop = true;
		break;
	case PK_PT_PWRX:
		st.e.pwrx = true;
		st.e.pwrx_payload = raw(k, off, 2, 5);
		break;
	case PK_PT_BEP:
		st.e.bep = true;
		break;
	case PK_PT_CFE:
		st.e.cfe = true;
		st.e.cfe_type = p->u.cfe.type;
		st.e.cfe_vector = p->u.cfe.vector;
		break;
	default:
		return 0;
	}
	q_emit(w, &st);
	return 1;
}

/* An event packet (no IP packet): perf's hop decoder keeps it for the
 * FUP, or makes its state now. 1 when it made samples, 0 when not. */
static int hop_event(struct walk *w, const struct pk_pt_packet *p,
		     uint64_t off)
{
	struct it_quick *k = w->qk;

	switch (p->type) {
	case PK_PT_MWAIT:
		k->f.mwait = true;
		k->f.mwait_hints = p->u.mwait.hints;
		k->f.mwait_ext = p->u.mwait.ext;
		return 0;
	case PK_PT_PWRE:
		if (!k->f.mwait)
			return lone_event(w, p, off);
		k->f.pwre = true;
		k->f.pwre_payload = (uint16_t)raw(k, off, 2, 2);
		return 0;
	case PK_PT_PTW:
		return p->u.ptw.ip ? 0 : lone_event(w, p, off);
	case PK_PT_EXSTOP:
		return p->u.exstop.ip ? 0 : lone_event(w, p, off);
	case PK_PT_BEP:
		return p->u.bep.ip ? 0 : lone_event(w, p, off);
	case PK_PT_PWRX:
		return lone_event(w, p, off);
	case PK_PT_CFE:
		if (p->u.cfe.ip)
			return 0;
		if (!k->pge)
			return lone_event(w, p, off);
		k->f.cfe = true;
		k->f.cfe_type = p->u.cfe.type;
		k->f.cfe_vector = p->u.cfe.vector;
		return 0;
	case PK_PT_EVD:
		if (k->nevd < PK_PT_MAX_EVD) {
			/* (perf's 6 type bits) */
			k->evd_type[k->nevd] = (uint8_t)(raw(k, off, 2, 1) & 0x3f);
			k->evd[k->nevd++] = p->u.evd.payload;
		}
		return 0;
	case PK_PT_BBP: case PK_PT_BIP:
		blk_item(k, p);
		return 0;
	case PK_PT_MODE_EXEC:
		k->next_iflag = p->u.exec.iflag;
		return 0;
	default:
		return 0;
	}
}

/* A TIP (an instruction sample at its IP) or TIP.PGE (a trace start,
 * the sample at its IP next): perf's state there also reports a change
 * of the interrupt flag a MODE.Exec gave. */
static void hop_tip(struct walk *w, bool pge)
{
	struct it_quick *k = w->qk;
	struct qstate st;

	if (pge)
		qstate_init(&st, 0, k->ip, PK_IP_FLAG_BRANCH |
			    PK_IP_FLAG_TRACE_BEGIN);
	else
		qstate_init(&st, k->ip, 0, 0);
	st.iflag_chg = k->iflag != k->next_iflag;
	st.insn = !pge;
	st.branch = pge;
	q_emit(w, &st);
	k->resample = pge;
}

/* One packet: 1 when it made samples (the step ends), 0 when not, or
 * an error. */
static int hop_packet(struct walk *w, const struct pk_pt_packet *p,
		      uint64_t offset)
{
	struct it_quick *k = w->qk;

	if (pk__pt_perf_bad(p)) {	/* perf's error, its state kept */
		hop_error_code(w, 3);
		bad_cyc(w, p);
		return 1;
	}
	if (k->resync)
		return hop_resync(w, p, offset);
	switch (p->type) {
	case PK_PT_TIP:
		if (!take_ip(k, p))
			return 0;
		hop_tip(w, false);
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
		hop_tip(w, true);
		return 1;
	case PK_PT_FUP:
		if (!take_ip(k, p))
			return 0;
		return hop_fup(w) < 0 ? PK_PT_ERR_BAD_PACKET : 1;
	case PK_PT_PSB:
		if (psb_take(w, offset))
			return psb_take_err(w);
		psb_samples(w);
		return 1;
	case PK_PT_CBR:
		hop_cbr(w, p->u.cbr.ratio, k->ip);
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
		return hop_event(w, p, offset);
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
		note_ask(k, &k->held, k->held_off);
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
			note_ask(k, &p, off);
		if (r < 0) {
			hop_error(w);
			k->synced = false;
			return;
		}
		if (r)
			return;
	}
}
