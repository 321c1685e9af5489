/* SPDX-License-Identifier: MIT */
/*
 * The samples perf makes of trace events that do not move the flow:
 * PTWRITE (w), MWAIT, PWRE, EXSTOP, PWRX (p with the pwr_evt config bit)
 * and TSX begin/commit/abort (x), as perf's intel-pt.c synthesizes them.
 *
 * Where: an event that names its IP (a FUP) is at that IP; one that does
 * not is where perf's decoder stands when it meets the packet: after the
 * branches whose outcomes the packets before it gave.
 * Flags: perf's decoder state keeps the last instruction it walked; an
 * event at a FUP walked none that is a branch (no flags), one without a
 * FUP has the flags of the branch the flow stands after; a sample at ip
 * 0 has none (intel_pt_prep_p_sample).
 */
#include <stddef.h>
#include <string.h>
#include "itrace/itrace_int.h"
#include "pt/flow_int.h"

/* Where the flow stands now (the pending branch's outcome known). */
static uint64_t flow_ip(struct walk *w, uint32_t *flags)
{
	uint64_t ip = 0;

	pk__it_settle(w);
	*flags = 0;
	if (w->have_pend) {	/* its outcome not read yet */
		*flags = pk__it_branch_flags(&w->pend);
		return 0;
	}
	if (pk_pt_insn_next_ip(w->dec, &ip))
		ip = w->next_ip;
	if (w->fup_walked && w->fup_walks == w->walks)
		return ip;	/* perf walked to a FUP last */
	w->fup_walked = false;
	if (w->pend.size && w->next_ip == w->pend.ip + w->pend.size)
		*flags = pk__it_branch_flags(&w->pend);
	return ip;
}

/* The instruction at IP with its bytes, into IN: false when there is
 * none to read. */
static bool insn_at(struct walk *w, uint64_t ip, struct pk_pt_insn *in)
{
	if (!ip || pk_pt_insn_at(w->dec, ip, w->pend.mode ?
			(enum pk_pt_exec_mode)w->pend.mode : PK_PT_MODE_64,
			in) < 0)
		return false;
	pk_pt_image_read(w->img, in->ip, in->raw, in->size);
	return true;
}

/* The bytes perf script shows (-F insn): the instruction perf's decoder
 * walked last, else (none: at a FUP) the one at the sample's ip. */
static void insn_bytes(struct walk *w, struct pk_itrace_sample *s, bool last)
{
	struct pk_pt_insn in;

	if (!w->it->opts.insn_bytes)
		return;
	if (last) {
		in = w->pend;
		pk_pt_image_read(w->img, in.ip, in.raw, in.size);
	} else if (!insn_at(w, s->ip, &in)) {
		return;
	}
	s->insn_len = in.size;
	memcpy(s->insn, in.raw, in.size < 16 ? in.size : 16);
}

/* The transaction flags of perf's state at a FUP at IP: a MODE.TSX
 * still queued for the same FUP gives its own (perf's state flags are
 * the TSX's), else those of the walk to it. */
static uint32_t fup_tx_flags(struct walk *w, uint64_t ip)
{
	for (unsigned i = 0; i < w->dec->qn; i++) {
		const struct pk_pt_event *e = &pk__pt_fl_qat(w->dec, i)->ev;

		if (e->ip_suppressed || e->ip != ip)
			break;
		if (e->type == PK_PT_EV_TSX && !e->u.tsx.aborted)
			return e->u.tsx.speculative ? PK_IP_FLAG_IN_TX : 0;
	}
	return w->in_tx ? PK_IP_FLAG_IN_TX : 0;
}

/* The ip, flags and instruction bytes of a sample of EV. */
static void place(struct walk *w, const struct pk_pt_event *ev,
		  struct pk_itrace_sample *s)
{
	uint32_t flags = 0;

	/* (a PWRX names no IP) */
	if (!ev->ip_suppressed && ev->type != PK_PT_EV_PWRX) {
		pk__it_settle(w);
		s->ip = ev->ip;
		insn_bytes(w, s, false);
		/* (perf's walk to the FUP notes the transaction) */
		flags |= fup_tx_flags(w, ev->ip);
	} else {
		s->ip = flow_ip(w, &flags);
		insn_bytes(w, s, flags != 0);
	}
	s->flags = s->ip ? flags : 0;
}

/* The kind of EV's sample and whether the options ask for it. */
static bool wanted(const struct walk *w, const struct pk_pt_event *ev,
		   int *kind)
{
	const struct pk_itrace_opts *o = &w->it->opts;
	bool want;

	switch (ev->type) {
	case PK_PT_EV_PTWRITE:
		*kind = PK_ITRACE_PTWRITE;
		want = o->ptwrites;
		break;
	case PK_PT_EV_MWAIT: case PK_PT_EV_PWRE: case PK_PT_EV_EXSTOP:
	case PK_PT_EV_PWRX:
		*kind = ev->type == PK_PT_EV_MWAIT ? PK_ITRACE_MWAIT :
			ev->type == PK_PT_EV_PWRE ? PK_ITRACE_PWRE :
			ev->type == PK_PT_EV_EXSTOP ? PK_ITRACE_EXSTOP :
			PK_ITRACE_PWRX;
		want = o->pwr_events;
		break;
	case PK_PT_EV_CFE:
		*kind = PK_ITRACE_EVT;
		want = o->intr_events;
		break;
	case PK_PT_EV_IFLAGS:
		*kind = PK_ITRACE_IFLAG;
		want = o->intr_events;
		break;
	case PK_PT_EV_BLK_ITEMS:
		*kind = PK_ITRACE_PEBS;
		want = o->other_events && ev->u.blk.items;
		break;
	default:
		return false;
	}
	return want && w->it->attr[*kind] >= 0;
}

static void ptwrite_fill(const struct pk_pt_event *ev,
			 struct pk_itrace_sample *s)
{
	s->u.ptwrite.payload = ev->u.ptwrite.payload;
	s->u.ptwrite.ip = !ev->ip_suppressed;
}

/* A power event's payload (perf's bit fields) into S. */
static void power_fill(struct walk *w, const struct pk_pt_event *ev,
		       struct pk_itrace_sample *s)
{
	switch (ev->type) {
	case PK_PT_EV_MWAIT:	/* perf's bit fields of the payload */
		s->u.mwait.hints = ev->u.mwait.hints & 0xff;
		s->u.mwait.ext = ev->u.mwait.ext & 3;
		break;
	case PK_PT_EV_PWRE:
		/* perf keeps the payload of a PWRE at a FUP (after an
		 * MWAIT) only: one without shows the last such payload */
		if (!ev->ip_suppressed)
			w->pwre_payload = ev->u.pwre.payload;
		s->u.pwre.hw = (w->pwre_payload >> 7) & 1;
		s->u.pwre.subcstate = (w->pwre_payload >> 8) & 0xf;
		s->u.pwre.cstate = (w->pwre_payload >> 12) & 0xf;
		break;
	case PK_PT_EV_EXSTOP:
		s->u.exstop.ip = !ev->ip_suppressed;
		break;
	default:
		s->u.pwrx.deepest = ev->u.pwrx.payload & 0xf;
		s->u.pwrx.last = (ev->u.pwrx.payload >> 4) & 0xf;
		s->u.pwrx.wake = (ev->u.pwrx.payload >> 8) & 0xf;
		break;
	}
}

/* A PTWRITE's or power event's sample, where the flow places it. */
static bool ptw_power(struct walk *w, const struct pk_pt_event *ev)
{
	struct pk_itrace_sample s;
	int kind;

	if (!wanted(w, ev, &kind))
		return true;
	pk__it_base(w, &s, kind, ev);
	place(w, ev, &s);
	if (kind == PK_ITRACE_PTWRITE)
		ptwrite_fill(ev, &s);
	else
		power_fill(w, ev, &s);
	pk__it_emit(w, &s);
	return true;
}

/* MODE.TSX with its FUP: a begin or a commit is a transaction sample
 * at the FUP; an abort is perf's branch from the FUP to the TIP after
 * it, its samples made with that branch (pk__it_tx_abort). Without a
 * FUP (or with tracing off) perf's decoder takes the state alone. */
static bool transaction(struct walk *w, const struct pk_pt_event *ev)
{
	struct pk_itrace_sample s;

	pk__it_settle(w);	/* the branch before: as it was */
	if (ev->ip_suppressed) {	/* no FUP: the state alone */
		w->in_tx = ev->u.tsx.speculative;
		return true;
	}
	w->in_tx = ev->u.tsx.speculative && !ev->u.tsx.aborted;
	if (ev->u.tsx.aborted) {
		w->tx_abort = true;
		w->tx_abort_ip = ev->ip;
		return true;
	}
	if (!w->it->opts.transactions ||
	    w->it->attr[PK_ITRACE_TRANSACTIONS] < 0)
		return true;
	pk__it_base(w, &s, PK_ITRACE_TRANSACTIONS, ev);
	place(w, ev, &s);
	pk__it_emit(w, &s);
	return true;
}

/*
 * The branch of a TSX abort: perf's state at the abort's FUP takes the
 * TIP after it as its target (0 when tracing stops there: a trace end
 * then), flagged a transaction abort alone (neither asynchronous nor in
 * a transaction, no instruction of its own: perf script shows the one
 * at the FUP). Its samples: the transaction sample (ip the FUP, addr
 * the target), then the branch (and what a branch gives: stack, last
 * branches). No instruction sample: perf's walk to the FUP did not
 * count the instruction there.
 */
bool pk__it_tx_abort(struct walk *w, const struct pk_pt_event *ev)
{
	uint32_t flags = PK_IP_FLAG_BRANCH | PK_IP_FLAG_TX_ABORT;
	struct pk_itrace_sample s;
	uint64_t to = ev->ip_suppressed ? 0 : ev->ip;
	struct pk_pt_insn in;
	bool bytes;

	if (!w->tx_abort)
		return false;
	w->tx_abort = false;
	if (ev->type == PK_PT_EV_ASYNC_DISABLED)
		flags |= PK_IP_FLAG_TRACE_END;
	bytes = w->it->opts.insn_bytes && insn_at(w, ev->at, &in);
	if (w->it->opts.transactions &&
	    w->it->attr[PK_ITRACE_TRANSACTIONS] >= 0) {
		pk__it_base(w, &s, PK_ITRACE_TRANSACTIONS, ev);
		s.ip = ev->at;
		s.addr = to;
		s.flags = flags;
		if (bytes) {
			s.insn_len = in.size;
			memcpy(s.insn, in.raw, in.size < 16 ? in.size : 16);
		}
		pk__it_emit(w, &s);
	}
	pk__it_branch(w, flags, ev->at, to, bytes ? &in : NULL, ev);
	return true;
}

/* perf's decoder walks to an event's FUP whether or not it makes a
 * sample of it: the last instruction it walked is none of the flow's. */
static void fup_walk(struct walk *w, const struct pk_pt_event *ev)
{
	if (ev->ip_suppressed || ev->type == PK_PT_EV_PWRX)
		return;
	pk__it_fup_met(w);
}

void pk__it_fup_met(struct walk *w)
{
	pk__it_settle(w);
	w->fup_walked = true;
	w->fup_walks = w->walks;
}

bool pk__it_insn_at(struct walk *w, uint64_t ip, struct pk_pt_insn *in)
{
	return w->it->opts.insn_bytes && insn_at(w, ip, in);
}

uint64_t pk__it_flow_ip(struct walk *w)
{
	uint32_t flags;

	return flow_ip(w, &flags);
}

/* ---- o: PEBS via Intel PT ---- */

/* perf's register numbers (PERF_REG_X86_*: AX BX CX DX SI DI BP SP IP
 * FLAGS CS SS DS ES FS GS R8..R15) to the GP block's item IDs (rflags
 * rip rax rcx rdx rbx rsp rbp rsi rdi r8..r15), -1: none. */
static const int8_t gp_item[24] = {
	2, 5, 3, 4, 8, 9, 7, 6, 1, 0, -1, -1, -1, -1, -1, -1,
	10, 11, 12, 13, 14, 15, 16, 17,
};

/* The registers the event asks for (MASK) that the record gave, in
 * perf's order (intel_pt_add_gp_regs, intel_pt_add_xmm). */
static void pebs_regs(const struct pk_pt_blk_items *it, uint64_t mask,
		      struct pk_itrace_pebs *pb)
{
	uint32_t gp = it->mask[PK_PT_BLK_GP_REGS];
	uint32_t xmm = it->mask[PK_PT_BLK_XMM] & (uint32_t)(mask >> 32);

	pb->has_regs = true;
	pb->regs_abi = it->is_32_bit ? PERF_SAMPLE_REGS_ABI_32 :
				       PERF_SAMPLE_REGS_ABI_64;
	pb->regs_mask = 0;
	pb->nr_regs = 0;
	for (unsigned r = 0; r < 24; r++) {
		int n = gp_item[r];

		if (n >= 0 && gp >> n & 1 && mask >> r & 1) {
			pb->regs_mask |= 1ull << r;
			pb->regs[pb->nr_regs++] = it->val[PK_PT_BLK_GP_REGS][n];
		}
	}
	pb->regs_mask |= (uint64_t)xmm << 32;
	for (unsigned k = 0; k < 32; k++)
		if (xmm >> k & 1)
			pb->regs[pb->nr_regs++] = it->val[PK_PT_BLK_XMM][k];
	/* perf writes the registers given, packed, and reads back one for
	 * each bit of the event's mask: those past them are what its
	 * event buffer held there, the last PEBS sample's (PB keeps them;
	 * 0 at first, where perf shows garbage) */
	pb->nr_regs = (unsigned)__builtin_popcountll(mask);
	pb->regs_mask = mask;
}

/* The memory block's weight and transaction (perf's, after the
 * kernel's setup_pebs_adaptive_sample_data and intel_hsw_*). */
static void pebs_mem(const struct pk_pt_blk_items *it, uint64_t st,
		     struct pk_itrace_pebs *pb)
{
	uint32_t m = it->mask[PK_PT_BLK_PEBS_MEM];
	const uint64_t *v = it->val[PK_PT_BLK_PEBS_MEM];

	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		if (m & 4) {
			if (v[2] >> 32) {
				pb->weight = (v[2] >> 32) & 0xffff;
				pb->ins_lat = (uint16_t)v[2];
			} else {
				pb->weight = v[2];
			}
		}
		if (!pb->weight && m & 8)
			pb->weight = (uint32_t)v[3];
	}
	if (st & PERF_SAMPLE_TRANSACTION && m & 8) {
		uint32_t gm = it->mask[PK_PT_BLK_GP_REGS];
		uint64_t ax = gm & 4 ? it->val[PK_PT_BLK_GP_REGS][2] : 0;
		uint64_t txn = (uint8_t)(v[3] >> 32);

		if (txn & PERF_TXN_TRANSACTION && ax & 1)
			txn |= ((ax >> 24) & 0xff) << PERF_TXN_ABORT_SHIFT;
		pb->transaction = txn;
	}
}

/* A PEBS record's ip: the basic block's, else the GP block's rip, 0
 * when it gives none. */
static uint64_t pebs_ip(const struct pk_pt_blk_items *it)
{
	if (it->mask[PK_PT_BLK_PEBS_BASIC] & 1)
		return it->val[PK_PT_BLK_PEBS_BASIC][0];
	if (it->mask[PK_PT_BLK_GP_REGS] & 2)
		return it->val[PK_PT_BLK_GP_REGS][1];
	return 0;
}

/* The rest of a PEBS record's sample S: the event's period, the
 * record's time (its TSC), the address, weight, transaction and
 * registers its items give. */
static void pebs_fill(struct walk *w, const struct pk_pt_event *ev,
		      struct pk_itrace_sample *s)
{
	const struct pk_pt_blk_items *it = ev->u.blk.items;
	const struct perf_event_attr *a;
	struct pk_itrace_pebs *pb = &w->pebs;
	uint64_t st;

	a = pk_perfdata_attr(w->it->pd, (unsigned)w->it->attr[PK_ITRACE_PEBS]);
	st = a->sample_type;
	s->period = a->freq ? 0 : a->sample_period;
	s->flags = 0;
	if (it->mask[PK_PT_BLK_PEBS_BASIC] & 4) {
		uint64_t t = it->val[PK_PT_BLK_PEBS_BASIC][2];

		s->has_time = t != 0;
		s->time = t ? pk__it_tsc_to_perf(&w->it->info, t) : 0;
	}
	if (st & PERF_SAMPLE_ADDR && it->mask[PK_PT_BLK_PEBS_MEM] & 1)
		s->addr = it->val[PK_PT_BLK_PEBS_MEM][0];
	memset(pb, 0, offsetof(struct pk_itrace_pebs, regs));
	if (st & PERF_SAMPLE_REGS_INTR &&
	    (it->mask[PK_PT_BLK_GP_REGS] || it->mask[PK_PT_BLK_XMM]))
		pebs_regs(it, a->sample_regs_intr, pb);
	pebs_mem(it, st, pb);
	s->u.pebs = pb;
}

/*
 * A PEBS record's sample (perf's intel_pt_do_synth_pebs_sample): the
 * aux_output event's attr; ip the record's (pebs_ip), else where the
 * flow stands or the BEP.IP's FUP; no flags; the last instruction's
 * bytes as other events have them.
 */
static bool pebs(struct walk *w, const struct pk_pt_event *ev)
{
	struct pk_itrace_sample s;
	uint64_t ip;
	int kind;

	if (!wanted(w, ev, &kind))
		return true;
	pk__it_base(w, &s, kind, ev);
	place(w, ev, &s);
	ip = pebs_ip(ev->u.blk.items);
	if (ip) {
		/* no instruction walked (at a FUP, or none a branch):
		 * perf script shows the bytes at the sample's ip */
		if (!ev->ip_suppressed || !s.flags) {
			s.insn_len = 0;
			s.ip = ip;
			insn_bytes(w, &s, false);
		}
		s.ip = ip;
	}
	pebs_fill(w, ev, &s);
	pk__it_emit(w, &s);
	return true;
}

static bool cycles(struct walk *w, const struct pk_pt_event *ev);
static bool cfe(struct walk *w, const struct pk_pt_event *ev);
static bool iflags(struct walk *w, const struct pk_pt_event *ev);

bool pk__it_synth(struct walk *w, const struct pk_pt_event *ev)
{
	switch (ev->type) {
	case PK_PT_EV_PTWRITE:
	case PK_PT_EV_MWAIT:
	case PK_PT_EV_PWRE:
	case PK_PT_EV_EXSTOP:
	case PK_PT_EV_PWRX:
		fup_walk(w, ev);
		break;
	case PK_PT_EV_TSX:
	case PK_PT_EV_CFE:
	case PK_PT_EV_BLK_ITEMS:
		fup_walk(w, ev);
		break;
	default:
		break;
	}
	switch (ev->type) {
	case PK_PT_EV_PTWRITE:
	case PK_PT_EV_MWAIT:
	case PK_PT_EV_PWRE:
	case PK_PT_EV_EXSTOP:
	case PK_PT_EV_PWRX:
		return ptw_power(w, ev);
	case PK_PT_EV_TSX:
		return transaction(w, ev);
	case PK_PT_EV_CYC:
		return cycles(w, ev);
	case PK_PT_EV_CFE:
		return cfe(w, ev);
	case PK_PT_EV_IFLAGS:
		return iflags(w, ev);
	case PK_PT_EV_BLK_ITEMS:
		return pebs(w, ev);
	default:
		return false;
	}
}

/* ---- I: event trace ---- */

/* With tracing off perf's decoder stands at the branch that stopped it
 * (its state's flags: none). */
static void off_place(struct walk *w, struct pk_itrace_sample *s)
{
	pk__it_settle(w);
	s->ip = w->pend.size ? w->pend.ip : 0;
	insn_bytes(w, s, w->pend.size != 0);
}

/* A CFE's sample fields (its EVDs) into S. */
static void cfe_fill(const struct pk_pt_event *ev, struct pk_itrace_sample *s)
{
	s->u.evt.type = ev->u.cfe.type;
	s->u.evt.ip = ev->u.cfe.ip_flag;
	s->u.evt.vector = ev->u.cfe.vector;
	s->u.evt.nevd = ev->u.cfe.nevd;
	memcpy(s->u.evt.evd_type, ev->u.cfe.evd_type,
	       sizeof(s->u.evt.evd_type));
	memcpy(s->u.evt.evd, ev->u.cfe.evd, sizeof(s->u.evt.evd));
}

/*
 * A CFE (perf's evt sample): at its FUP, or where the flow stands when
 * tracing is off. perf's state at a FUP no TIP follows, for a CFE
 * without IP bit, is also a branch from the FUP to 0 (flags: none but
 * the transaction's).
 */
/* A CFE without IP bit at a FUP a TIP follows: perf's state there is
 * the asynchronous branch's, its evt sample that branch's flags and
 * target (the branch is the next event, from the same IP). */
static void cfe_async(struct walk *w, const struct pk_pt_event *ev,
		      struct pk_itrace_sample *s)
{
	const struct pk_pt_event *b;

	if (ev->u.cfe.ip_bit || ev->ip_suppressed || !w->dec->qn)
		return;
	b = &pk__pt_fl_qat(w->dec, 0)->ev;
	if (b->at != ev->ip || (b->type != PK_PT_EV_ASYNC_BRANCH &&
				b->type != PK_PT_EV_ASYNC_DISABLED))
		return;
	s->addr = b->ip_suppressed ? 0 : b->ip;
	s->flags = PK_IP_FLAG_BRANCH | (s->addr ? PK_IP_FLAG_CALL |
		   PK_IP_FLAG_ASYNC | PK_IP_FLAG_INTERRUPT : PK_IP_FLAG_TRACE_END);
	if (b->type == PK_PT_EV_ASYNC_DISABLED)
		s->flags |= PK_IP_FLAG_TRACE_END;
}

static bool cfe(struct walk *w, const struct pk_pt_event *ev)
{
	struct pk_itrace_sample s;
	int kind;

	if (ev->u.cfe.fup_branch) {
		struct pk_pt_insn in;

		/* (perf's walk to the FUP stops before its instruction:
		 * perf script shows the bytes at the FUP) */
		if (!ev->ip_suppressed)
			pk__it_branch(w, w->in_tx ? PK_IP_FLAG_IN_TX : 0,
				      ev->ip, 0, insn_at(w, ev->ip, &in) &&
				      w->it->opts.insn_bytes ? &in : NULL, ev);
		return true;
	}
	if (wanted(w, ev, &kind)) {
		pk__it_base(w, &s, kind, ev);
		if (ev->ip_suppressed && !ev->u.cfe.ip_flag)
			off_place(w, &s);
		else
			place(w, ev, &s);
		if (ev->u.cfe.tx && s.ip)
			s.flags |= PK_IP_FLAG_IN_TX;
		cfe_async(w, ev, &s);
		cfe_fill(ev, &s);
		pk__it_emit(w, &s);
	}
	return true;
}

/* A CBR outside a PSB+: perf's decoder reports the change on its own
 * (no branch with it) from where the flow stands, with the flags of the
 * last instruction walked. */
uint64_t pk__it_lone_cbr(struct walk *w, struct pk_itrace_sample *s)
{
	uint32_t flags = 0;

	s->ip = flow_ip(w, &flags);
	insn_bytes(w, s, flags != 0);
	s->flags = s->ip ? flags : 0;
	return s->ip;
}

/* A trace begin's instruction bytes (-F insn): perf's decoder state
 * keeps those of the last instruction it walked, the branch before the
 * trace stopped (a syscall: 0f 05); none before the first walk. IN gets
 * them; false when there are none to show. */
bool pk__it_begin_insn(struct walk *w, struct pk_pt_insn *in)
{
	if (!w->it->opts.insn_bytes || !w->pend.size ||
	    (w->fup_walked && w->fup_walks == w->walks))
		return false;
	*in = w->pend;
	return pk_pt_image_read(w->img, in->ip, in->raw, in->size) == in->size;
}

/*
 * A change of the interrupt flag (MODE.Exec; reported with
 * cap_event_trace), perf's iflag sample: at a FUP no TIP follows (non
 * branch: at the FUP, after the branch to it), else at the branch whose
 * TIP the MODE.Exec came before (via branch: from it to its target;
 * that branch's samples flagged t too). D while the flag was 0.
 */
static bool iflags(struct walk *w, const struct pk_pt_event *ev)
{
	struct pk_itrace_sample s;
	bool chg = ev->u.iflags.iflag != w->iflag;
	uint32_t flags = chg ? PK_IP_FLAG_INTR_TOGGLE : 0;
	bool via = !ev->u.iflags.fup && w->have_pend && !ev->ip_suppressed;

	if (!chg && !ev->u.iflags.fup)
		return true;
	if (!via)
		pk__it_settle(w);	/* the branch to the FUP: as it was */
	if (via)
		flags |= pk__it_branch_flags(&w->pend);
	if (w->it->opts.intr_events && w->it->attr[PK_ITRACE_IFLAG] >= 0 &&
	    (via || !ev->ip_suppressed)) {
		pk__it_base(w, &s, PK_ITRACE_IFLAG, ev);
		s.flags = flags;
		s.ip = via ? w->pend.ip : ev->ip;
		s.addr = via ? ev->ip : 0;
		s.u.iflag.iflag = ev->u.iflags.iflag;
		s.u.iflag.via_branch = via;
		s.u.iflag.branch_ip = s.addr;
		if (via && w->it->opts.insn_bytes) {
			struct pk_pt_insn in = w->pend;

			pk_pt_image_read(w->img, in.ip, in.raw, in.size);
			s.insn_len = in.size;
			memcpy(s.insn, in.raw, in.size < 16 ? in.size : 16);
		} else {
			insn_bytes(w, &s, false);
		}
		pk__it_emit(w, &s);
	}
	if (via) {	/* the branch's own samples: the same state */
		pk__it_finish(w, flags, ev->ip, ev);
	} else if (!ev->ip_suppressed) {
		w->fup_iflags = flags | (w->iflag ? 0 : PK_IP_FLAG_INTR_DISABLE);
		w->fup_iflags_ip = ev->ip;
		w->fup_iflags_walks = w->walks;
	}
	w->iflag = ev->u.iflags.iflag;
	return true;
}

/*
 * A trace start whose MODE.Exec (queued right behind it) changes the
 * flag: perf's state at the TIP.PGE is the change too (via branch, from
 * 0); the flags the trace start's branch takes with it, the flag
 * changed after it.
 */
uint32_t pk__it_pge_iflag(struct walk *w, const struct pk_pt_event *ev)
{
	struct pk_itrace_sample s;
	const struct qev *e;
	struct pk_pt_insn in;
	uint32_t flags;

	if (!w->it->info.cap_event_trace || !w->dec->qn ||
	    ev->ip_suppressed)
		return 0;
	e = pk__pt_fl_qat(w->dec, 0);
	if (e->ev.type != PK_PT_EV_EXEC_MODE ||
	    e->ev.u.exec_mode.iflag == w->iflag)
		return 0;
	flags = PK_IP_FLAG_BRANCH | PK_IP_FLAG_TRACE_BEGIN |
		PK_IP_FLAG_INTR_TOGGLE;
	if (w->it->opts.intr_events && w->it->attr[PK_ITRACE_IFLAG] >= 0) {
		pk__it_base(w, &s, PK_ITRACE_IFLAG, ev);
		s.flags = flags | (w->iflag ? 0 : PK_IP_FLAG_INTR_DISABLE);
		s.addr = ev->ip;
		s.u.iflag.iflag = e->ev.u.exec_mode.iflag;
		s.u.iflag.via_branch = 1;
		s.u.iflag.branch_ip = ev->ip;
		if (pk__it_begin_insn(w, &in)) {
			s.insn_len = in.size;
			memcpy(s.insn, in.raw, in.size < 16 ? in.size : 16);
		}
		pk__it_emit(w, &s);
	}
	return PK_IP_FLAG_INTR_TOGGLE;	/* (D as of the flag before) */
}

/* perf's sample flags with cap_event_trace: D while interrupts are off
 * (a power or ptwrite sample at ip 0 has no flags at all). */
void pk__it_iflag_flags(const struct walk *w, struct pk_itrace_sample *s)
{
	if (!w->it->info.cap_event_trace || w->iflag)
		return;
	if (s->ip || s->kind == PK_ITRACE_BRANCHES ||
	    s->kind == PK_ITRACE_INSTRUCTIONS)
		s->flags |= PK_IP_FLAG_INTR_DISABLE;
}

/* ---- IPC: perf's cycle counts on branch and instruction samples ---- */

/* A CYC packet: its cycles count while tracing is on; perf gives them
 * to the next state of its decoder that takes a sample time. */
static bool cycles(struct walk *w, const struct pk_pt_event *ev)
{
	pk__it_settle(w);	/* a branch the packets before it gave */
	if (!ev->ip_suppressed)
		w->tot_cyc += ev->u.cyc.cycles;
	w->sample_cyc = true;
	return true;
}

/*
 * perf's decoder updates the IPC of a state when it returns one at a
 * packet boundary: a branch whose outcome a TNT bit (taken; or not
 * taken where an instruction sample falls) or a TIP gave. A direct
 * branch or a sample in mid-walk carries none and leaves the count for
 * the next; a not-taken conditional branch without a sample drops it
 * until the next CYC.
 */
void pk__it_ipc_state(struct walk *w, const struct pk_pt_insn *in, bool taken)
{
	w->ipc_flag = false;
	if (in->iclass == PK_PT_IC_CALL || in->iclass == PK_PT_IC_JUMP)
		return;		/* mid-walk */
	/* (A: the cycles of a sample are those at the last state at a
	 * packet boundary; a not-taken branch ending its TNT counts) */
	w->a_cyc = w->tot_cyc;
	if (!w->sample_cyc)
		return;
	w->sample_cyc = false;
	if (in->iclass == PK_PT_IC_COND_JUMP && !taken && !w->isamp)
		return;
	w->ipc_flag = true;
	w->ipc_cyc = w->tot_cyc;
	w->ipc_insn = w->tot_insn;
}

/* A branch or instruction sample of the state: its kind's counts since
 * its last sample with IPC. */
void pk__it_ipc(struct walk *w, struct pk_itrace_sample *s)
{
	uint64_t *cyc, *insn, now_cyc = w->ipc_cyc, now_insn = w->ipc_insn;

	if (w->it->opts.approx_ipc) {	/* perf: every sample, by state */
		now_cyc = w->a_cyc;
		now_insn = w->tot_insn;
	} else if (!w->ipc_flag) {
		return;
	}
	if (s->kind == PK_ITRACE_BRANCHES) {
		cyc = &w->last_br_cyc;
		insn = &w->last_br_insn;
	} else if (s->kind == PK_ITRACE_INSTRUCTIONS) {
		cyc = &w->last_in_cyc;
		insn = &w->last_in_insn;
	} else {
		return;
	}
	if (now_cyc == *cyc)
		return;
	s->ipc_cyc_cnt = now_cyc - *cyc;
	s->ipc_insn_cnt = now_insn - *insn;
	*cyc = now_cyc;
	*insn = now_insn;
}

/*
 * perf's hop mode (q): the sample of EV (ptwrite, power, evt, iflag or
 * PEBS) its decoder's state makes, at IP (ADDR the state's to_ip, FLAGS
 * its flags, none at ip 0 but an iflag sample's): perf's hop decoder
 * walks no instruction, so perf script shows the bytes at the sample's
 * ip. An iflag event's fup: the change is no branch's (addr 0).
 */
void pk__it_synth_at(struct walk *w, const struct pk_pt_event *ev,
		     uint64_t ip, uint64_t addr, uint32_t flags)
{
	struct pk_itrace_sample s;
	uint64_t pip;
	int kind;

	if (!wanted(w, ev, &kind))
		return;
	pk__it_base(w, &s, kind, ev);
	s.ip = ip;
	s.addr = addr;
	s.flags = ip || kind == PK_ITRACE_IFLAG ? flags : 0;
	switch (kind) {
	case PK_ITRACE_PTWRITE:
		ptwrite_fill(ev, &s);
		break;
	case PK_ITRACE_EVT:
		cfe_fill(ev, &s);
		break;
	case PK_ITRACE_IFLAG:
		s.u.iflag.iflag = ev->u.iflags.iflag;
		s.u.iflag.via_branch = !ev->u.iflags.fup;
		s.u.iflag.branch_ip = ev->u.iflags.fup ? 0 : addr;
		if (ev->u.iflags.fup)
			s.addr = 0;
		break;
	case PK_ITRACE_PEBS:
		if ((pip = pebs_ip(ev->u.blk.items)))
			s.ip = pip;
		pebs_fill(w, ev, &s);
		break;
	default:
		power_fill(w, ev, &s);
		break;
	}
	insn_bytes(w, &s, false);
	pk__it_emit(w, &s);
}
