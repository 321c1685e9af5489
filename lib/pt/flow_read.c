/* SPDX-License-Identifier: MIT */
/*
 * Intel PT flow decoder, packet side: read-ahead turns every packet that
 * is not a branch query (TNT, TIP) into an event with a binding (see the
 * state machine described in flow.c), handles PSB+ status, OVF, FUP
 * pairing, held MWAIT/PWRE, event-trace CFE/EVD and timing packets.
 */
#include "base/base.h"
#include "pt/flow_int.h"

static void pt_fl_push_event(struct pk_pt_insn_decoder *d,
			     const struct qev *e);
static void pt_fl_ctx_error(struct pk_pt_insn_decoder *d);

/* ---- packets ---- */

static bool pt_fl_is_timing(uint8_t t)
{
	return t == PK_PT_TSC || t == PK_PT_MTC || t == PK_PT_CYC ||
	       t == PK_PT_TMA || t == PK_PT_CBR || t == PK_PT_PAD;
}

static void pt_fl_do_timing(struct pk_pt_insn_decoder *d,
		      const struct pk_pt_packet *p, bool header)
{
	pk__pt_timing(&d->time, &d->tcal, &d->cfg, p, header);
}

/* A CYC packet read where the flow stands (perf counts its cycles while
 * tracing is on). */
static void pt_fl_cyc_event(struct pk_pt_insn_decoder *d, uint64_t cycles)
{
	struct qev e = { .bind = B_NOW };

	e.ev.type = PK_PT_EV_CYC;
	e.ev.u.cyc.cycles = cycles;
	e.ev.ip_suppressed = !d->enabled;
	pt_fl_push_event(d, &e);
}

/* Makes d->next the next packet (decoding it if needed). Timing packets
 * are applied and skipped unless KEEP_TIMING. Returns the packet or NULL
 * at the end (d->next_err says why). */
const struct pk_pt_packet *pk__pt_fl_peek(struct pk_pt_insn_decoder *d,
				       bool keep_timing)
{
	for (;;) {
		int n;

		if (d->have_next) {
			if (keep_timing || !pt_fl_is_timing(d->next.type))
				return &d->next;
			if (d->next.type == PK_PT_CBR) {
				struct qev e = { .bind = B_NOW };

				e.ev.type = PK_PT_EV_CBR;
				e.ev.u.cbr.ratio = d->next.u.cbr.ratio;
				pt_fl_push_event(d, &e);
			}
			if (d->next.type == PK_PT_CYC && d->opts.cyc_events)
				pt_fl_cyc_event(d, d->next.u.cyc.value);
			pt_fl_do_timing(d, &d->next, false);
			d->have_next = false;
			continue;
		}
		pk_pt_offset(d->pkt, &d->next_off);
		n = pk_pt_next(d->pkt, &d->next);
		if (n < 0) {
			d->next_err = n;
			return NULL;
		}
		d->have_next = true;
		d->next_ip_ok = false;
		switch (d->next.type) {
		case PK_PT_TIP: case PK_PT_TIP_PGE: case PK_PT_TIP_PGD:
		case PK_PT_FUP:
			pk_pt_last_ip_update(&d->lip, d->next.u.ip.ipc,
					     d->next.u.ip.ip);
			d->next_ip_ok = !pk_pt_last_ip_query(&d->lip,
							     &d->next_ip);
			break;
		case PK_PT_PSB:
			memset(&d->lip, 0, sizeof(d->lip));
			break;
		default:
			break;
		}
	}
}

void pk__pt_fl_take(struct pk_pt_insn_decoder *d)
{
	d->have_next = false;
	d->touched = true;
	d->lib_off = d->next_off + d->next.size;
}

/* ---- event queue ---- */

static void pt_fl_push_event(struct pk_pt_insn_decoder *d, const struct qev *e)
{
	struct pk_pt_event *ev;

	if (d->qn == QMAX)	/* runaway: drop the oldest */
		d->qh = (d->qh + 1) % QMAX, d->qn--;
	d->q[(d->qh + d->qn) % QMAX] = *e;
	ev = &d->q[(d->qh + d->qn) % QMAX].ev;
	ev->has_tsc = !pk_pt_time_query(&d->time, &ev->tsc);
	d->qn++;
}

struct qev *pk__pt_fl_qat(struct pk_pt_insn_decoder *d, unsigned i)
{
	return &d->q[(d->qh + i) % QMAX];
}

struct qev *pk__pt_fl_new_ev(struct qev *e, uint8_t type, uint8_t bind)
{
	memset(e, 0, sizeof(*e));
	e->ev.type = type;
	e->bind = bind;
	return e;
}

/* Gives queued events waiting for BIND the IP IP (or suppression). */
bool pk__pt_fl_bind_waiting(struct pk_pt_insn_decoder *d, uint8_t bind,
			 uint64_t ip, bool suppressed)
{
	bool any = false;

	for (unsigned i = 0; i < d->qn; i++) {
		struct qev *e = pk__pt_fl_qat(d, i);

		if (e->bind != bind)
			continue;
		e->ev.ip = ip;
		e->ev.ip_suppressed = suppressed;
		e->bind = suppressed ? B_NOW : B_IP;
		e->bind_ip = ip;
		any = true;
	}
	return any;
}

/* Moves the events waiting for BIND to the end of the queue, bound to
 * IP (delivered right away). */
static void pt_fl_requeue_bound(struct pk_pt_insn_decoder *d, uint8_t bind,
			  uint64_t ip)
{
	struct qev moved[QMAX];
	unsigned n = 0, keep = 0;

	for (unsigned i = 0; i < d->qn; i++) {
		struct qev *e = pk__pt_fl_qat(d, i);

		if (e->bind == bind) {
			moved[n] = *e;
			moved[n].bind = B_NOW;
			moved[n].ev.ip = ip;
			n++;
		} else {
			*pk__pt_fl_qat(d, keep++) = *e;
		}
	}
	d->qn = keep;
	for (unsigned i = 0; i < n; i++) {
		d->q[(d->qh + d->qn) % QMAX] = moved[i];
		d->qn++;
	}
}

/* ---- read-ahead: one non-query packet into events ---- */

/* CFE types that name an interrupt-like transfer: with tracing on and no
 * IP bit they bind to the next FUP (and its TIP). */
static bool pt_fl_cfe_async(uint8_t t)
{
	return t == 1 || t == 3 || t == 4 || t == 5 || t == 6 || t == 8 ||
	       t == 9 || t == 12 || t == 14;
}

static bool pt_fl_cfe_known(uint8_t t)
{
	return t >= 1 && t <= 15 && t != 11;
}

/* PIP/VMCS between a FUP and its TIP apply at the async branch. */
static unsigned pt_fl_absorb_async(struct pk_pt_insn_decoder *d,
				   struct qev *out,
			     unsigned max)
{
	unsigned n = 0;

	for (;;) {
		const struct pk_pt_packet *p = pk__pt_fl_peek(d, false);

		if (!p || (p->type != PK_PT_PIP && p->type != PK_PT_VMCS))
			return n;
		if (n < max) {
			struct qev *e = &out[n++];

			if (p->type == PK_PT_PIP) {
				pk__pt_fl_new_ev(e, PK_PT_EV_PAGING, B_NOW);
				e->ev.u.paging.cr3 = p->u.pip.cr3;
				e->ev.u.paging.nr = p->u.pip.nr;
			} else {
				pk__pt_fl_new_ev(e, PK_PT_EV_VMCS, B_NOW);
				e->ev.u.vmcs.base = p->u.vmcs.base;
			}
			e->ev.ip_suppressed = 1;
		}
		pk__pt_fl_take(d);
	}
}

/* The EVDs met so far go with the CFE E. */
static void pt_fl_cfe_evds(struct pk_pt_insn_decoder *d, struct qev *e)
{
	e->ev.u.cfe.nevd = d->nevd;
	memcpy(e->ev.u.cfe.evd_type, d->evd_type, sizeof(d->evd_type));
	memcpy(e->ev.u.cfe.evd, d->evd, sizeof(d->evd));
	d->nevd = 0;
}

/* A FUP: the CFE kept aside for it goes ahead of the events waiting for
 * it (perf's evt sample comes first in its state). */
static void pt_fl_perf_cfe_fup(struct pk_pt_insn_decoder *d)
{
	unsigned at = 0;
	struct qev e = d->cfe_wait;

	if (!d->cfe_waiting || d->qn >= QMAX)
		return;
	d->cfe_waiting = 0;
	e.ev.u.cfe.ip_flag = 1;
	pt_fl_cfe_evds(d, &e);
	while (at < d->qn && pk__pt_fl_qat(d, at)->bind != B_FUP)
		at++;
	for (unsigned i = d->qn; i-- > at;)
		*pk__pt_fl_qat(d, i + 1) = *pk__pt_fl_qat(d, i);
	*pk__pt_fl_qat(d, at) = e;
	d->qn++;
}

/* perf's state at a FUP no TIP follows: a CFE without IP bit there is
 * also a branch from the FUP to 0; a MODE.TSX at the same FUP takes
 * the IP flag off its sample (perf's state flags are the TSX's). */
static void pt_fl_perf_cfe_at_fup(struct pk_pt_insn_decoder *d)
{
	bool tsx = false, tx = false;

	for (unsigned i = 0; i < d->qn; i++) {
		const struct qev *e = pk__pt_fl_qat(d, i);

		if (e->bind == B_FUP && e->ev.type == PK_PT_EV_TSX) {
			tsx = true;
			tx = e->ev.u.tsx.speculative && !e->ev.u.tsx.aborted;
		}
	}
	for (unsigned i = 0, n = d->qn; i < n; i++) {
		struct qev *e = pk__pt_fl_qat(d, i), b;

		if (e->bind != B_FUP || e->ev.type != PK_PT_EV_CFE ||
		    e->ev.u.cfe.ip_bit)
			continue;
		if (tsx)
			e->ev.u.cfe.ip_flag = 0;
		e->ev.u.cfe.tx = tx;
		b = *e;		/* the branch: after the state's samples */
		b.ev.u.cfe.fup_branch = 1;
		if (d->qn < QMAX)
			pt_fl_push_event(d, &b);
	}
}

/* perf's decoder takes the FUP of a PTWRITE, EXSTOP or MWAIT as one that
 * no TIP follows (the next TIP is a branch of its own). */
static bool pt_fl_perf_lone_fup(const struct pk_pt_insn_decoder *d,
				const struct qev *e)
{
	return d->opts.perf_binding &&
	       (e->ev.type == PK_PT_EV_PTWRITE || e->ev.type == PK_PT_EV_EXSTOP ||
		e->ev.type == PK_PT_EV_MWAIT || e->ev.type == PK_PT_EV_BLK_ITEMS ||
		(e->ev.type == PK_PT_EV_CFE && e->ev.u.cfe.ip_bit));
}

/* Whether a MODE.Exec waits for a TIP (perf: one right before a FUP
 * makes it a FUP no TIP follows). */
static bool pt_fl_waiting_tip(struct pk_pt_insn_decoder *d)
{
	for (unsigned i = 0; i < d->qn; i++)
		if (pk__pt_fl_qat(d, i)->bind == B_TIP)
			return true;
	return false;
}

static bool pt_fl_readable(const struct pk_pt_insn_decoder *d, uint64_t ip)
{
	struct pk_pt_insn in;
	uint64_t t;

	return pk_pt_insn_decode(d->img, ip, d->mode, &in, &t) >= 0;
}

/* libipt binds a PTWRITE with IP to the instruction at the FUP's IP
 * FROM, its event after it (pt_blk_proceed_to_ptwrite). */
static void pt_fl_ptwrite_after(struct pk_pt_insn_decoder *d, uint64_t from)
{
	for (unsigned i = 0; i < d->qn; i++) {
		struct qev *e = pk__pt_fl_qat(d, i);

		if (e->ev.type == PK_PT_EV_PTWRITE && e->bind == B_IP &&
		    e->bind_ip == from)
			e->bind = B_INSN;
	}
}

static void pt_fl_on_fup(struct pk_pt_insn_decoder *d)
{
	uint64_t from = d->next_ip, fup_end = d->next_off + d->next.size;
	const struct pk_pt_packet *p;
	struct qev e, side[8];
	unsigned nside;
	bool bound;

	uint64_t fup_start = d->next_off, fup_tsc;

	pk__pt_fl_take(d);
	if (pk_pt_time_query(&d->time, &fup_tsc))
		fup_tsc = 0;	/* (the packets read on to its TIP change it) */
	if (d->opts.perf_binding)
		pt_fl_perf_cfe_fup(d);
	for (unsigned i = 0; i < d->qn; i++)
		if (pk__pt_fl_qat(d, i)->bind == B_FUP &&
		    (pk__pt_fl_qat(d, i)->ev.type == PK_PT_EV_TRIG ||
		     (pk__pt_fl_qat(d, i)->ev.type == PK_PT_EV_TSX &&
		      !pk__pt_fl_qat(d, i)->ev.u.tsx.aborted) ||
		     (pk__pt_fl_qat(d, i)->ev.type == PK_PT_EV_CFE &&
		      !d->opts.perf_binding &&
		      !pt_fl_cfe_async(pk__pt_fl_qat(d, i)->ev.u.cfe.type)) ||
		     pt_fl_perf_lone_fup(d, pk__pt_fl_qat(d, i)))) {
			/* a TRIG's FUP only names the trigger's IP; a VM
			 * entry's or IRET's names the instruction; a TSX
			 * begin or commit names where it happened */
			if (d->opts.perf_binding)
				pt_fl_perf_cfe_at_fup(d);
			pk__pt_fl_bind_waiting(d, B_FUP, from, false);
			d->lib_off = fup_start;
			for (unsigned k = 0; k < d->qn; k++) {
				struct qev *c = pk__pt_fl_qat(d, k);

				if (c->ev.type == PK_PT_EV_CFE && d->enabled &&
				    !d->opts.perf_binding && c->bind == B_IP && c->bind_ip == from &&
				    !pt_fl_cfe_async(c->ev.u.cfe.type)) {
					/* its PIP/VMCS go with it */
					c->bind = B_INSN;
					nside = pt_fl_absorb_async(d, side, 8);
					for (unsigned j = 0; j < nside; j++) {
						side[j].bind = B_INSN;
						pt_fl_push_event(d, &side[j]);
					}
					break;
				}
			}
			return;
		}
	bound = pk__pt_fl_bind_waiting(d, B_FUP, from, false);
	if (!d->opts.perf_binding && d->enabled)
		pt_fl_ptwrite_after(d, from);
	if (d->opts.perf_binding && d->noip && pt_fl_readable(d, from)) {
		/* perf's decoder waiting for an IP takes the FUP's
		 * (intel_pt_walk_to_ip) and walks on from there in sync: a
		 * TIP or TIP.PGD after it is the next branch's (code there
		 * that cannot be read: the async branch's event, its TIP
		 * taken after the failure, as seen on the corpus file) */
		if (!bound) {
			pk__pt_fl_new_ev(&e, PK_PT_EV_FUP, B_IP);
			e.ev.ip = e.bind_ip = from;
			e.ev.u.fup.enabled = 1;
			pt_fl_push_event(d, &e);
		}
		return;
	}
	nside = pt_fl_absorb_async(d, side, 8);
	p = pk__pt_fl_peek(d, false);
	if (p && d->opts.perf_binding && d->enabled && pk__pt_perf_bad(p)) {
		/* perf, at the FUP, fails reading the packet for its TIP: no
		 * branch there, the TIP after it one of its own */
		pk__pt_fl_new_ev(&e, PK_PT_EV_BAD_PACKET, B_IP);
		e.ev.ip = e.bind_ip = from;
		e.ev.u.bad.byte = pk__pt_perf_bad_byte(p);
		pk__pt_fl_take(d);
		pt_fl_push_event(d, &e);
		for (unsigned i = 0; i < nside; i++)
			pt_fl_push_event(d, &side[i]);
		return;
	}
	if (p && (p->type == PK_PT_TIP || p->type == PK_PT_TIP_PGD)) {
		bool pgd = p->type == PK_PT_TIP_PGD;

		pk__pt_fl_new_ev(&e, pgd ? PK_PT_EV_ASYNC_DISABLED
				     : PK_PT_EV_ASYNC_BRANCH,
		       B_IP);
		e.ev.at = e.bind_ip = from;
		e.ev.ip = d->next_ip;
		e.ev.ip_suppressed = !d->next_ip_ok || !p->u.ip.ipc;
		e.fup_tsc = fup_tsc;
		pk__pt_fl_take(d);
		d->lib_off = fup_end;	/* libipt has read only the FUP */
		/* they apply at the branch's target: its IP (none when the
		 * branch disables tracing) */
		for (unsigned i = 0; i < nside; i++) {
			side[i].ev.ip = e.ev.ip;
			side[i].ev.ip_suppressed = pgd || e.ev.ip_suppressed;
		}
		if (d->opts.perf_binding) {
			/* perf's branch knows the NR after it: its PIP
			 * first (shown with the branch's IP: the walker
			 * keeps it for the branch) */
			for (unsigned i = 0; i < nside; i++) {
				side[i].bind = B_NOW;
				side[i].ev.ip = e.ev.ip;
				side[i].ev.ip_suppressed = 0;
				pt_fl_push_event(d, &side[i]);
			}
			nside = 0;
		}
		pt_fl_push_event(d, &e);
		/* VMCS before paging, as libipt reports them */
		for (unsigned i = nside; i-- > 0;)
			if (side[i].ev.type == PK_PT_EV_VMCS)
				pt_fl_push_event(d, &side[i]);
		for (unsigned i = 0; i < nside; i++)
			if (side[i].ev.type == PK_PT_EV_PAGING)
				pt_fl_push_event(d, &side[i]);
		/* MODE.Exec waiting for this FUP applies at the target */
		if (!pgd)
			pk__pt_fl_bind_waiting(d, B_TIP, e.ev.ip, false);
		return;
	}
	if (!bound && d->opts.perf_binding && !pt_fl_waiting_tip(d)) {
		pk__pt_fl_new_ev(&e, PK_PT_EV_FUP, d->enabled ? B_IP : B_NOW);
		e.ev.ip = e.bind_ip = from;
		e.ev.u.fup.enabled = d->enabled;
		pt_fl_push_event(d, &e);
	}
	for (unsigned i = 0; i < nside; i++)
		pt_fl_push_event(d, &side[i]);
	/* MODE.Exec at a lone FUP */
	for (unsigned i = 0; i < d->qn; i++)
		if (pk__pt_fl_qat(d, i)->bind == B_TIP)
			pk__pt_fl_qat(d, i)->ev.u.exec_mode.fup = 1;
	if (pk__pt_fl_bind_waiting(d, B_TIP, from, false))
		d->lib_off = fup_start;
}

/* N bytes at offset AT of the packet being read, little-endian (the
 * payload bits as perf reads them). */
static uint64_t pt_fl_raw(const struct pk_pt_insn_decoder *d, size_t at,
			  size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		if (d->next_off + at + i < d->len)
			v = v << 8 | d->buf[d->next_off + at + i];
		else
			v <<= 8;
	return v;
}

/* perf's decoder makes a sample of a PTWRITE, EXSTOP, PWRE or PWRX that
 * names no IP when it meets it, before the MWAIT, PWRE and EXSTOP that
 * wait for their FUP: the event queued last goes ahead of them. */
static void pt_fl_ahead_of_fup(struct pk_pt_insn_decoder *d)
{
	unsigned at = 0, last = d->qn - 1;
	struct qev e;

	while (at < last && !(pk__pt_fl_qat(d, at)->bind == B_FUP &&
			      (pk__pt_fl_qat(d, at)->ev.type == PK_PT_EV_MWAIT ||
			       pk__pt_fl_qat(d, at)->ev.type == PK_PT_EV_PWRE ||
			       pk__pt_fl_qat(d, at)->ev.type == PK_PT_EV_EXSTOP)))
		at++;
	if (at >= last)
		return;
	e = *pk__pt_fl_qat(d, last);
	for (unsigned i = last; i > at; i--)
		*pk__pt_fl_qat(d, i) = *pk__pt_fl_qat(d, i - 1);
	*pk__pt_fl_qat(d, at) = e;
}

/* perf_binding: a packet perf cannot read is its error as it is read:
 * the event just queued goes ahead of those waiting for a later packet
 * (a MODE.Exec for its TIP, events for their FUP). */
static void pt_fl_bad_now(struct pk_pt_insn_decoder *d)
{
	unsigned at = 0, last = d->qn - 1;
	struct qev e;

	while (at < last && pk__pt_fl_qat(d, at)->bind != B_FUP &&
	       pk__pt_fl_qat(d, at)->bind != B_TIP &&
	       pk__pt_fl_qat(d, at)->bind != B_EXSTOP)
		at++;
	if (at >= last)
		return;
	e = *pk__pt_fl_qat(d, last);
	for (unsigned i = last; i > at; i--)
		*pk__pt_fl_qat(d, i) = *pk__pt_fl_qat(d, i - 1);
	*pk__pt_fl_qat(d, at) = e;
}

/* Whether an event of TYPE waits in the queue for its FUP. */
static bool pt_fl_waiting(struct pk_pt_insn_decoder *d, uint8_t type)
{
	for (unsigned i = 0; i < d->qn; i++)
		if (pk__pt_fl_qat(d, i)->bind == B_FUP &&
		    pk__pt_fl_qat(d, i)->ev.type == type)
			return true;
	return false;
}

static void pt_fl_hold(struct pk_pt_insn_decoder *d, struct qev *e)
{
	e->ev.has_tsc = !pk_pt_time_query(&d->time, &e->ev.tsc);
	if (d->nheld < PK_ARRAY_SIZE(d->held))
		d->held[d->nheld++] = *e;
}

/* Queues the held events of TYPE (in arrival order) with BIND. */
static void pt_fl_release(struct pk_pt_insn_decoder *d, uint8_t type,
			  uint8_t bind,
		    bool ip_suppressed)
{
	unsigned keep = 0;

	for (unsigned i = 0; i < d->nheld; i++) {
		struct qev e = d->held[i];

		if (e.ev.type != type) {
			d->held[keep++] = e;
			continue;
		}
		e.bind = bind;
		e.ev.ip_suppressed = ip_suppressed;
		if (d->qn < QMAX) {
			d->q[(d->qh + d->qn) % QMAX] = e;
			d->qn++;
		}
	}
	d->nheld = keep;
}

/* OVF: held events are reported, ahead of those still waiting for a FUP. */
void pk__pt_fl_flush_held(struct pk_pt_insn_decoder *d)
{
	unsigned at = 0, n = d->nheld;

	if (!n || d->qn + n > QMAX)
		return;
	while (at < d->qn && pk__pt_fl_qat(d, at)->bind != B_FUP)
		at++;
	for (unsigned i = d->qn; i-- > at;)
		*pk__pt_fl_qat(d, i + n) = *pk__pt_fl_qat(d, i);
	for (unsigned i = 0; i < n; i++) {
		*pk__pt_fl_qat(d, at + i) = d->held[i];
		pk__pt_fl_qat(d, at + i)->bind = B_NOW;
	}
	d->qn += n;
	d->nheld = 0;
}

/* ---- OVF: where the overflow resolved (libipt's rules) ---- */

/* Starts the look-ahead decoder at the main decoder's position. */
static bool pt_fl_scan_start(struct pk_pt_insn_decoder *d)
{
	uint64_t off;

	return pk_pt_offset(d->pkt, &off) >= 0 &&
	       pk_pt_sync_set(d->scan, off) >= 0;
}

/* Packets that tell nothing about PacketEn (timing, PAD, MNT). */
static bool pt_fl_ovf_neutral(uint8_t t)
{
	return pt_fl_is_timing(t) || t == PK_PT_MNT || t == PK_PT_INVALID;
}

enum ovf_next { OVF_FUP, OVF_OFF, OVF_BAD, OVF_END };

/* What the OVF binds to: a FUP (resolved with tracing on), another
 * packet that needs PacketEn = 0 (resolved off), one that needs tracing
 * on without a FUP first (TIP, TIP.PGD, TNT, PSBEND: bad context). */
static enum ovf_next pt_fl_ovf_next(struct pk_pt_insn_decoder *d)
{
	struct pk_pt_packet p;

	if (!pt_fl_scan_start(d))
		return OVF_END;
	for (;;) {
		if (pk_pt_next(d->scan, &p) < 0)
			return OVF_END;
		if (pt_fl_ovf_neutral(p.type))
			continue;
		switch (p.type) {
		case PK_PT_FUP:
			return OVF_FUP;
		case PK_PT_TIP: case PK_PT_TIP_PGD: case PK_PT_TNT_8:
		case PK_PT_TNT_64: case PK_PT_PSBEND:
			return OVF_BAD;
		default:
			return OVF_OFF;
		}
	}
}

/* Is there a FUP in the PSB+ the scan decoder just passed the PSB of? */
static bool pt_fl_scan_header_fup(struct pk_pt_insn_decoder *d,
				  uint64_t *ip)
{
	struct pk_pt_packet p;
	struct pk_pt_last_ip lip;

	memset(&lip, 0, sizeof(lip));
	while (pk_pt_next(d->scan, &p) > 0) {
		if (p.type == PK_PT_FUP) {
			pk_pt_last_ip_update(&lip, p.u.ip.ipc, p.u.ip.ip);
			return !pk_pt_last_ip_query(&lip, ip);
		}
		if (p.type == PK_PT_PSBEND || p.type == PK_PT_OVF)
			return false;
		if (!pt_fl_ovf_neutral(p.type) && p.type != PK_PT_MODE_EXEC &&
		    p.type != PK_PT_MODE_TSX && p.type != PK_PT_PIP &&
		    p.type != PK_PT_VMCS)
			return false;
	}
	return false;
}

/* Drops packets up to offset END (applying timing ones). */
static void pt_fl_skip_to(struct pk_pt_insn_decoder *d, uint64_t end)
{
	for (;;) {
		const struct pk_pt_packet *p = pk__pt_fl_peek(d, true);

		if (!p || d->next_off >= end)
			return;
		if (pt_fl_is_timing(p->type))
			pt_fl_do_timing(d, p, false);
		pk__pt_fl_take(d);
	}
}

/* The recovery point an erratum gives after an OVF. */
struct ovf_fix {
	enum { FIX_NONE, FIX_OFF, FIX_AT_IP, FIX_AT_PSB } kind;
	uint64_t off;		/* offset of the recovery packet */
	uint64_t end;		/* ... and after it */
	uint64_t ip;
	bool ip_ok, tsx, intx, abrt;
	bool reread;		/* the recovery packet is read again */
};

/* One packet of the SKD010 scan: true when the scan ends (FIX says how). */
static bool pt_fl_skd010_step(struct pk_pt_insn_decoder *d,
			      const struct pk_pt_packet *p, struct ovf_fix *f,
			      struct pk_pt_last_ip *lip)
{
	switch (p->type) {
	case PK_PT_TIP_PGD:	/* tracing was on: resume disabled after it */
		f->kind = FIX_OFF;
		return true;
	case PK_PT_FUP: case PK_PT_TIP:	/* tracing was on: resume here */
		pk_pt_last_ip_update(lip, p->u.ip.ipc, p->u.ip.ip);
		f->ip_ok = p->u.ip.ipc && !pk_pt_last_ip_query(lip, &f->ip);
		f->kind = FIX_AT_IP;
		f->reread = p->type == PK_PT_FUP;
		return true;
	case PK_PT_PSB:
		if (pt_fl_scan_header_fup(d, &f->ip)) {
			f->ip_ok = true;
			f->kind = FIX_AT_PSB;
			f->reread = true;
		}
		return true;
	case PK_PT_MODE_TSX:
		if (f->tsx)	/* a second one: tracing is off */
			return true;
		f->tsx = true;
		f->intx = p->u.tsx.intx;
		f->abrt = p->u.tsx.abrt;
		return false;
	case PK_PT_PIP: case PK_PT_VMCS: case PK_PT_MODE_EXEC:
	case PK_PT_PWRE: case PK_PT_PWRX: case PK_PT_EVD: case PK_PT_TRIG:
		return false;	/* changes lost in the overflow anyway */
	case PK_PT_EXSTOP:
		return p->u.exstop.ip;
	case PK_PT_PTW:
		return p->u.ptw.ip;
	case PK_PT_CFE:
		return p->u.cfe.ip;
	default:
		return !pt_fl_ovf_neutral(p->type);
	}
}

/* The next packet of the look-ahead scan and its offset: false at its
 * end or a packet it cannot read. */
static bool scan_next(struct pk_pt_insn_decoder *d, struct pk_pt_packet *p,
		      uint64_t *off)
{
	pk_pt_offset(d->scan, off);
	return pk_pt_next(d->scan, p) >= 0;
}

/* SKD010: the FUP after an OVF may be lost though tracing is on. The
 * packets ahead tell: a TIP.PGD (resume disabled after it), a FUP or TIP
 * (resume at its IP) or a PSB+ with a FUP (at that IP); a TIP.PGE, TNT
 * or a packet that needs tracing off says the erratum did not hit. */
static bool pt_fl_skd010(struct pk_pt_insn_decoder *d, struct ovf_fix *f)
{
	struct pk_pt_last_ip lip = d->lip;
	struct pk_pt_packet p;

	memset(f, 0, sizeof(*f));
	if (!pt_fl_scan_start(d))
		return false;
	for (;;) {
		uint64_t off = 0;

		if (!scan_next(d, &p, &off))
			return false;
		if (pt_fl_skd010_step(d, &p, f, &lip)) {
			f->off = off;
			f->end = off + p.size;
			return f->kind != FIX_NONE;
		}
	}
}

/* APL11: a stray TIP.PGD may follow the OVF: resume disabled after it. */
static bool pt_fl_apl11(struct pk_pt_insn_decoder *d, struct ovf_fix *f)
{
	struct pk_pt_packet p;

	memset(f, 0, sizeof(*f));
	if (!pt_fl_scan_start(d))
		return false;
	for (;;) {
		uint64_t off = 0;

		if (!scan_next(d, &p, &off))
			return false;
		if (p.type == PK_PT_TIP_PGD) {
			f->kind = FIX_OFF;
			f->end = off + p.size;
			return true;
		}
		if (!pt_fl_ovf_neutral(p.type) && p.type != PK_PT_CFE &&
		    p.type != PK_PT_EVD && p.type != PK_PT_TRIG)
			return false;
	}
}

/* APL12: a FUP may follow the OVF though it resolved with tracing off;
 * what comes after the FUP tells (a TIP.PGE, STOP, or a PSB+ without
 * FUP: off; TNT, TIP, TIP.PGD: on). */
static bool pt_fl_apl12(struct pk_pt_insn_decoder *d, struct ovf_fix *f)
{
	struct pk_pt_packet p;
	uint64_t ip;
	bool fup = false;

	memset(f, 0, sizeof(*f));
	if (!pt_fl_scan_start(d))
		return false;
	for (;;) {
		uint64_t off = 0;

		if (!scan_next(d, &p, &off))
			return false;
		if (!fup) {	/* up to and including the FUP */
			fup = p.type == PK_PT_FUP;
			f->end = off + p.size;
			continue;
		}
		switch (p.type) {
		case PK_PT_TNT_8: case PK_PT_TNT_64: case PK_PT_TIP:
		case PK_PT_TIP_PGD: case PK_PT_PSBEND: case PK_PT_OVF:
		case PK_PT_BBP: case PK_PT_BIP: case PK_PT_BEP:
			return false;
		case PK_PT_PSB:
			if (pt_fl_scan_header_fup(d, &ip))
				return false;
			f->kind = FIX_OFF;
			return true;
		case PK_PT_STOP: case PK_PT_TIP_PGE:
			f->kind = FIX_OFF;
			return true;
		default:
			break;
		}
	}
}

/* Applies an erratum's recovery point F to the overflow event E. */
static void pt_fl_ovf_fix(struct pk_pt_insn_decoder *d, struct qev *e,
			  const struct ovf_fix *f)
{
	struct qev t;

	if (f->kind == FIX_OFF) {
		pt_fl_skip_to(d, f->end);
		pt_fl_push_event(d, e);
		return;
	}
	/* FIX_AT_IP, FIX_AT_PSB: resume at the IP with tracing on; a FUP
	 * or PSB+ is then read as usual, a TIP is used up */
	pt_fl_skip_to(d, f->reread ? f->off : f->end);
	e->ev.ip = f->ip;
	e->ev.ip_suppressed = !f->ip_ok;
	pt_fl_push_event(d, e);
	if (f->tsx) {
		pk__pt_fl_new_ev(&t, PK_PT_EV_TSX, B_FUP);
		t.ev.u.tsx.speculative = f->intx;
		t.ev.u.tsx.aborted = f->abrt;
		pt_fl_push_event(d, &t);
	}
}

/* Resets the flow's state at an OVF (held events are reported). */
static void pt_fl_ovf_reset(struct pk_pt_insn_decoder *d)
{
	d->tnt_n = 0;
	d->q_mode = PK_PT_MODE_UNKNOWN;
	pk__pt_fl_flush_held(d);
	pk__pt_fl_bind_waiting(d, B_FUP, 0, true);
	d->cfe_waiting = 0;	/* perf clears its FUP events */
	d->nevd = 0;
	for (unsigned i = 0; i < d->qn; i++)
		if (pk__pt_fl_qat(d, i)->bind == B_TIP ||
		    pk__pt_fl_qat(d, i)->bind == B_COUNT)
			pk__pt_fl_qat(d, i)->bind = B_NOW;
	if (d->opts.keep_tcal_on_ovf)
		pk_pt_tcal_ovf(&d->tcal);
	else
		pk_pt_tcal_init(&d->tcal);
}

/* OVF resolved with tracing on: the event takes the FUP's IP (MNT
 * packets before it are reported first, timing ones applied). */
static void pt_fl_ovf_at_fup(struct pk_pt_insn_decoder *d, struct qev *e)
{
	for (;;) {
		const struct pk_pt_packet *p = pk__pt_fl_peek(d, false);

		if (p && p->type == PK_PT_MNT) {
			pk__pt_fl_read_event(d);
			continue;
		}
		if (p && p->type == PK_PT_FUP) {
			e->ev.ip = d->next_ip;
			e->ev.ip_suppressed = !d->next_ip_ok || !p->u.ip.ipc;
			pk__pt_fl_take(d);
		}
		pt_fl_push_event(d, e);
		return;
	}
}

static void pt_fl_on_ovf(struct pk_pt_insn_decoder *d)
{
	uint64_t ovf_off = d->next_off;
	enum ovf_next next;
	struct ovf_fix f;
	struct qev e;

	pk__pt_fl_take(d);
	pt_fl_ovf_reset(d);
	pk__pt_fl_new_ev(&e, PK_PT_EV_OVERFLOW, B_NOW);
	e.ev.ip_suppressed = 1;
	next = pt_fl_ovf_next(d);
	if (next == OVF_FUP) {
		if (d->cfg.errata.apl12 && pt_fl_apl12(d, &f))
			pt_fl_ovf_fix(d, &e, &f);
		else
			pt_fl_ovf_at_fup(d, &e);
		return;
	}
	if (d->cfg.errata.skd010 && pt_fl_skd010(d, &f)) {
		pt_fl_ovf_fix(d, &e, &f);
		return;
	}
	if (next == OVF_BAD && d->cfg.errata.apl11 && pt_fl_apl11(d, &f)) {
		pt_fl_ovf_fix(d, &e, &f);
		return;
	}
	if (next == OVF_BAD && !d->opts.psb_events) {
		/* tracing on without a FUP to resume at (perf's decoder,
		 * psb_events, resumes at the next IP packet instead) */
		pt_fl_ctx_error(d);
		d->ctx_err_off = ovf_off;
		return;
	}
	/* resolved with tracing disabled */
	pt_fl_push_event(d, &e);
}

static void pt_fl_on_exstop(struct pk_pt_insn_decoder *d)
{
	struct qev e;
	bool ip = d->next.u.exstop.ip;

	pk__pt_fl_take(d);
	/* MWAIT binds here (perf's: at its FUP, already queued) */
	if (!d->opts.perf_binding)
		pt_fl_release(d, PK_PT_EV_MWAIT, ip ? B_FUP : B_NOW, !ip);
	pk__pt_fl_new_ev(&e, PK_PT_EV_EXSTOP, ip ? B_FUP : B_NOW);
	e.ev.ip_suppressed = !ip;
	pt_fl_push_event(d, &e);
	if (d->opts.perf_binding && !ip)
		pt_fl_ahead_of_fup(d);
}

static uint8_t pt_fl_exec_mode_of(const struct pk_pt_packet *p)
{
	if (p->u.exec.csl && p->u.exec.csd)
		return PK_PT_MODE_UNKNOWN;
	return p->u.exec.csl ? PK_PT_MODE_64 :
	       p->u.exec.csd ? PK_PT_MODE_32 : PK_PT_MODE_16;
}

/* A context error found by read-ahead, reported when fetched. */
static void pt_fl_ctx_error(struct pk_pt_insn_decoder *d)
{
	struct qev e;

	if (d->ctx_err)
		return;
	d->ctx_err = PK_PT_ERR_CONTEXT;
	d->ctx_err_off = d->next_off;
	pk__pt_fl_new_ev(&e, 0, B_NOW);
	pt_fl_push_event(d, &e);
}

/* perf's decoder keeps every EVD, in order, for the next CFE: no
 * context errors. */
static void pt_fl_on_evd_perf(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p = &d->next;

	if (d->nevd < PK_PT_MAX_EVD) {
		/* (perf's 6 type bits: the packet's 5 and one more) */
		d->evd_type[d->nevd] = (uint8_t)(pt_fl_raw(d, 2, 1) & 0x3f);
		d->evd[d->nevd++] = p->u.evd.payload;
	}
	pk__pt_fl_take(d);
}

static void pt_fl_on_evd(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p = &d->next;
	uint64_t v = p->u.evd.payload;

	if (d->opts.perf_binding)
		return pt_fl_on_evd_perf(d);

	switch (p->u.evd.type) {
	case 0:
		if (d->have_cr2 || d->have_vmxq || d->have_vmxr)
			return pt_fl_ctx_error(d);
		d->evd_cr2 = v;
		d->have_cr2 = 1;
		break;
	case 1:
		if (d->have_cr2 || d->have_vmxq)
			return pt_fl_ctx_error(d);
		d->evd_vmxq = v;
		d->have_vmxq = 1;
		break;
	case 2:
		if (d->have_cr2 || d->have_vmxr)
			return pt_fl_ctx_error(d);
		d->evd_vmxr = v;
		d->have_vmxr = 1;
		break;
	default:	/* unknown EVD types are ignored */
		break;
	}
	pk__pt_fl_take(d);
}

/*
 * perf's decoder: any CFE type; one with its IP bit takes the FUP right
 * after it (none: the CFE is lost) as a FUP no TIP follows; one without
 * is an event where the flow stands with tracing off, else it waits for
 * the next FUP (whatever follows that). The EVDs before it go with it.
 */
static void pt_fl_on_cfe_perf(struct pk_pt_insn_decoder *d)
{
	struct pk_pt_packet p = d->next;
	const struct pk_pt_packet *f;
	struct qev e;

	pk__pt_fl_take(d);
	d->cfe_waiting = 0;	/* perf keeps one: the last */
	if (p.u.cfe.ip) {
		f = pk__pt_fl_peek(d, false);
		if (!f || f->type != PK_PT_FUP)
			return;
	}
	pk__pt_fl_new_ev(&e, PK_PT_EV_CFE,
			 p.u.cfe.ip || d->enabled ? B_FUP : B_NOW);
	e.ev.u.cfe.type = p.u.cfe.type;
	e.ev.u.cfe.vector = p.u.cfe.vector;
	if (!p.u.cfe.ip && d->enabled) {
		/* kept aside (the queue would wait): the last one, its
		 * EVDs those met up to its FUP */
		d->cfe_wait = e;
		d->cfe_waiting = 1;
		return;
	}
	e.ev.ip_suppressed = !p.u.cfe.ip && !d->enabled;
	e.ev.u.cfe.type = p.u.cfe.type;
	e.ev.u.cfe.vector = p.u.cfe.vector;
	e.ev.u.cfe.ip_flag = p.u.cfe.ip;
	e.ev.u.cfe.ip_bit = p.u.cfe.ip;
	pt_fl_cfe_evds(d, &e);
	pt_fl_push_event(d, &e);
	if (e.bind == B_NOW)
		pt_fl_ahead_of_fup(d);
}

static void pt_fl_on_cfe(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p = &d->next;
	uint8_t t = p->u.cfe.type, bind;
	struct qev e;

	if (d->opts.perf_binding)
		return pt_fl_on_cfe_perf(d);

	if ((d->have_cr2 && t != 1) ||
	    ((d->have_vmxq || d->have_vmxr) && t != 8 && t != 9))
		return pt_fl_ctx_error(d);
	pk__pt_fl_take(d);
	if (!pt_fl_cfe_known(t)) {
		/* ignored; an IP bit still takes its FUP */
		if (p->u.cfe.ip) {
			const struct pk_pt_packet *f = pk__pt_fl_peek(d, false);

			if (f && f->type == PK_PT_FUP)
				pk__pt_fl_take(d);
		}
		return;
	}
	if (p->u.cfe.ip)
		bind = B_FUP;
	else if (!d->enabled)
		bind = B_NOW;
	else
		bind = pt_fl_cfe_async(t) ? B_FUP : B_INSN;
	pk__pt_fl_new_ev(&e, PK_PT_EV_CFE, bind);
	e.ev.ip_suppressed = !p->u.cfe.ip;
	e.ev.u.cfe.type = t;
	e.ev.u.cfe.vector = p->u.cfe.vector;
	e.ev.u.cfe.has_cr2 = d->have_cr2;
	e.ev.u.cfe.cr2 = d->evd_cr2;
	e.ev.u.cfe.has_vmxq = d->have_vmxq;
	e.ev.u.cfe.vmxq = d->evd_vmxq;
	e.ev.u.cfe.has_vmxr = d->have_vmxr;
	e.ev.u.cfe.vmxr = d->evd_vmxr;
	d->have_cr2 = d->have_vmxq = d->have_vmxr = 0;
	pt_fl_push_event(d, &e);
}

/* ---- PEBS via Intel PT: block packets, gathered as perf's decoder
 * does (intel_pt_bbp, intel_pt_bip) ---- */

int pk_pt_blk_pos(unsigned type)
{
	switch (type) {
	case 1: return PK_PT_BLK_GP_REGS;
	case 4: return PK_PT_BLK_PEBS_BASIC;
	case 5: return PK_PT_BLK_PEBS_MEM;
	case 8: return PK_PT_BLK_LBR_0;
	case 9: return PK_PT_BLK_LBR_1;
	case 10: return PK_PT_BLK_LBR_2;
	case 16: return PK_PT_BLK_XMM;
	default: return -1;
	}
}

/* A BBP: a new record unless read inside one (then its items are
 * kept); the GP registers block tells the items' size. */
static void pt_fl_on_bbp(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p = &d->next;
	struct pk_pt_blk_items *c;

	if (!d->blk)
		d->blk = pk__calloc(QMAX + 1, sizeof(*d->blk));
	if (d->blk) {
		c = &d->blk[QMAX];
		if (!p->u.bbp.cont) {
			memset(c->mask, 0, sizeof(c->mask));
			c->is_32_bit = 0;
		}
		d->blk_pos = (int8_t)pk_pt_blk_pos(p->u.bbp.type);
		if (p->u.bbp.type == 1)
			c->is_32_bit = !p->u.bbp.sz8;
	}
	pk__pt_fl_take(d);
}

/* A BIP: item ID of the block being read (unknown types and IDs are
 * left out, a repeated item replaces the first). */
static void pt_fl_on_bip(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p = &d->next;
	unsigned id = p->u.bip.id;

	if (d->blk && d->blk_pos >= 0 && id < PK_PT_BLK_ITEM_IDS) {
		d->blk[QMAX].mask[d->blk_pos] |= 1u << id;
		d->blk[QMAX].val[d->blk_pos][id] = p->u.bip.value;
	}
	pk__pt_fl_take(d);
}

/* A BEP: the record's event, where the flow stands; a BEP.IP's at the
 * FUP right after it (PADs aside), as perf's decoder takes it (none
 * there: the record is lost). */
static void pt_fl_on_bep(struct pk_pt_insn_decoder *d)
{
	bool ip = d->next.u.bep.ip;
	const struct pk_pt_packet *f;
	struct qev e;

	pk__pt_fl_take(d);
	if (ip) {
		while ((f = pk__pt_fl_peek(d, true)) && f->type == PK_PT_PAD)
			pk__pt_fl_take(d);
		if (!f || f->type != PK_PT_FUP)
			return;
	}
	pk__pt_fl_new_ev(&e, PK_PT_EV_BLK_ITEMS, ip ? B_FUP : B_NOW);
	e.ev.ip_suppressed = !ip;
	if (d->blk) {
		struct pk_pt_blk_items *c = &d->blk[d->blk_next];

		d->blk_next = (d->blk_next + 1) % QMAX;
		*c = d->blk[QMAX];
		e.ev.u.blk.items = c;
	}
	pt_fl_push_event(d, &e);
	if (!ip)
		pt_fl_ahead_of_fup(d);
}

/* perf's decoder takes a MODE.TSX (E, d->next) with the packet right
 * after it (PADs aside) when tracing is on: a FUP gives it its IP (E
 * waits for it); without one, or with tracing off, the state changes
 * where the flow stands (no IP, no sample of it). E queued, the MODE.TSX
 * taken. */
static void pt_fl_perf_tsx(struct pk_pt_insn_decoder *d, struct qev *e)
{
	const struct pk_pt_packet *f;

	pk__pt_fl_take(d);
	while ((f = pk__pt_fl_peek(d, true)) && f->type == PK_PT_PAD)
		pk__pt_fl_take(d);
	if (d->enabled && f && f->type == PK_PT_FUP) {
		pt_fl_push_event(d, e);
		return;
	}
	e->bind = B_NOW;
	e->ev.ip_suppressed = 1;
	pt_fl_push_event(d, e);
	pt_fl_ahead_of_fup(d);
}

/* Processes the next packet, which is not a query packet. */
void pk__pt_fl_read_event(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p = &d->next;
	struct qev e;

	switch (p->type) {
	case PK_PT_PSB:
		pk__pt_fl_psb_plus(d);
		return;
	case PK_PT_FUP:
		pt_fl_on_fup(d);
		return;
	case PK_PT_OVF:
		pt_fl_on_ovf(d);
		return;
	case PK_PT_EXSTOP:
		pt_fl_on_exstop(d);
		return;
	case PK_PT_EVD:
		pt_fl_on_evd(d);
		return;
	case PK_PT_CFE:
		pt_fl_on_cfe(d);
		return;
	case PK_PT_BBP:
		pt_fl_on_bbp(d);
		return;
	case PK_PT_BIP:
		pt_fl_on_bip(d);
		return;
	case PK_PT_BEP:
		pt_fl_on_bep(d);
		return;
	case PK_PT_TIP_PGE:
		if (d->noip && d->enabled && !d->opts.perf_binding) {
			/* lost: it was disabled (perf: a trace start alone) */
			pk__pt_fl_new_ev(&e, PK_PT_EV_DISABLED, B_NOW);
			e.ev.ip_suppressed = 1;
			pt_fl_push_event(d, &e);
		}
		pk__pt_fl_new_ev(&e, PK_PT_EV_ENABLED, B_NOW);
		e.partial_ip = pk__pt_fl_partial_ip(p);
		e.ev.ip = d->next_ip;
		e.ev.ip_suppressed = !d->next_ip_ok || !p->u.ip.ipc;
		/* TSX waiting for a FUP is reported before, exec mode after */
		pk__pt_fl_bind_waiting(d, B_FUP, 0, true);
		pk__pt_fl_take(d);
		pt_fl_push_event(d, &e);
		pt_fl_requeue_bound(d, B_TIP, e.ev.ip);
		return;
	case PK_PT_TIP_PGD:
		pk__pt_fl_new_ev(&e, PK_PT_EV_DISABLED,
			     d->enabled ? B_INSN : B_NOW);
		e.ev.ip = d->next_ip;
		e.ev.ip_suppressed = !d->next_ip_ok || !p->u.ip.ipc;
		break;
	case PK_PT_MODE_EXEC:
		if (d->opts.perf_binding && pk__pt_perf_bad(p)) {
			pk__pt_fl_new_ev(&e, PK_PT_EV_BAD_PACKET, B_NOW);
			e.ev.ip_suppressed = 1;
			e.ev.u.bad.byte = pk__pt_perf_bad_byte(p);
			break;
		}
		pk__pt_fl_new_ev(&e, PK_PT_EV_EXEC_MODE, B_TIP);
		e.ev.u.exec_mode.mode = pt_fl_exec_mode_of(p);
		e.ev.u.exec_mode.iflag = p->u.exec.iflag;
		/* only a change of mode is reported */
		e.ev.status_update = e.ev.u.exec_mode.mode == d->q_mode;
		d->q_mode = e.ev.u.exec_mode.mode;
		break;
	case PK_PT_MODE_TSX:
		if (d->opts.perf_binding && pk__pt_perf_bad(p)) {
			pk__pt_fl_new_ev(&e, PK_PT_EV_BAD_PACKET, B_NOW);
			e.ev.ip_suppressed = 1;
			e.ev.u.bad.byte = pk__pt_perf_bad_byte(p);
			break;
		}
		pk__pt_fl_new_ev(&e, PK_PT_EV_TSX, B_FUP);
		e.ev.u.tsx.speculative = p->u.tsx.intx;
		e.ev.u.tsx.aborted = p->u.tsx.abrt;
		if (d->opts.perf_binding) {
			pt_fl_perf_tsx(d, &e);
			return;
		}
		break;
	case PK_PT_PIP:
		pk__pt_fl_new_ev(&e, PK_PT_EV_PAGING, d->enabled ? B_INSN : B_NOW);
		e.ev.u.paging.cr3 = p->u.pip.cr3;
		e.ev.u.paging.nr = p->u.pip.nr;
		e.ev.ip_suppressed = 1;
		break;
	case PK_PT_VMCS:
		pk__pt_fl_new_ev(&e, PK_PT_EV_VMCS, d->enabled ? B_INSN : B_NOW);
		e.ev.u.vmcs.base = p->u.vmcs.base;
		e.ev.ip_suppressed = 1;
		break;
	case PK_PT_STOP:
		pk__pt_fl_new_ev(&e, PK_PT_EV_STOP, B_NOW);
		break;
	case PK_PT_MWAIT:
		pk__pt_fl_new_ev(&e, PK_PT_EV_MWAIT, B_EXSTOP);
		e.ev.u.mwait.hints = p->u.mwait.hints;
		e.ev.u.mwait.ext = p->u.mwait.ext;
		if (d->opts.perf_binding && d->enabled) {
			e.bind = B_FUP;	/* perf: at the next FUP */
			break;
		}
		pt_fl_hold(d, &e);
		pk__pt_fl_take(d);
		return;
	case PK_PT_PWRE:
		pk__pt_fl_new_ev(&e, PK_PT_EV_PWRE, B_NOW);
		e.ev.u.pwre.state = p->u.pwre.state;
		e.ev.u.pwre.sub_state = p->u.pwre.sub_state;
		e.ev.u.pwre.hw = p->u.pwre.hw;
		e.ev.u.pwre.payload = (uint16_t)pt_fl_raw(d, 2, 2);
		e.ev.ip_suppressed = 1;
		if (d->opts.perf_binding) {
			/* perf: with an MWAIT waiting for its FUP, at it */
			if (pt_fl_waiting(d, PK_PT_EV_MWAIT)) {
				e.bind = B_FUP;
				e.ev.ip_suppressed = 0;
			}
			break;
		}
		pt_fl_hold(d, &e);
		pk__pt_fl_take(d);
		return;
	case PK_PT_PWRX:
		if (!d->opts.perf_binding)
			pt_fl_release(d, PK_PT_EV_PWRE, B_NOW, true);
		pk__pt_fl_new_ev(&e, PK_PT_EV_PWRX, B_NOW);
		e.ev.u.pwrx.last = p->u.pwrx.last;
		e.ev.u.pwrx.deepest = p->u.pwrx.deepest;
		e.ev.u.pwrx.interrupt = p->u.pwrx.interrupt;
		e.ev.u.pwrx.store = p->u.pwrx.store;
		e.ev.u.pwrx.autonomous = p->u.pwrx.autonomous;
		e.ev.u.pwrx.payload = pt_fl_raw(d, 2, 5);
		break;
	case PK_PT_PTW:
		pk__pt_fl_new_ev(&e, PK_PT_EV_PTWRITE, p->u.ptw.ip ? B_FUP :
					     d->enabled && !d->opts.perf_binding ?
					     B_INSN : B_NOW);
		e.ev.u.ptwrite.payload = p->u.ptw.payload;
		e.ev.ip_suppressed = !p->u.ptw.ip;
		break;
	case PK_PT_MNT:
		pk__pt_fl_new_ev(&e, PK_PT_EV_MNT, B_NOW);
		e.ev.u.mnt.payload = p->u.mnt.payload;
		break;
	case PK_PT_TRIG:
		pk__pt_fl_new_ev(&e, PK_PT_EV_TRIG, p->u.trig.ip ? B_FUP :
					  d->enabled ? B_COUNT : B_NOW);
		e.ev.u.trig.trbv = p->u.trig.trbv;
		e.ev.u.trig.mult = p->u.trig.mult;
		e.ev.u.trig.icntv = p->u.trig.icntv;
		e.ev.u.trig.icnt = p->u.trig.icnt;
		e.ev.ip_suppressed = !p->u.trig.ip;
		break;
	default:	/* PSBEND outside PSB+, CFE/EVD, TNT/TIP while off */
		pk__pt_fl_take(d);
		return;
	}
	pk__pt_fl_take(d);
	pt_fl_push_event(d, &e);
	if (d->opts.perf_binding && e.ev.type == PK_PT_EV_BAD_PACKET)
		pt_fl_bad_now(d);
	else if (d->opts.perf_binding && e.bind == B_NOW)
		pt_fl_ahead_of_fup(d);
}

/* What perf's look-ahead for a PSB+'s FUP makes of packet type T:
 * status packets it reads past, packets it reads past only after the
 * PSBEND (a sample's: PTWRITE, power, PEBS, CFE/EVD), the rest end it. */
enum psb_look { PL_STATUS, PL_LATE, PL_FUP, PL_PSBEND, PL_PGE, PL_STOP };

static enum psb_look pt_fl_psb_look(const struct pk_pt_packet *p)
{
	if (pk__pt_perf_bad(p))
		return PL_STOP;
	switch (p->type) {
	case PK_PT_PAD: case PK_PT_MNT: case PK_PT_TSC: case PK_PT_TMA:
	case PK_PT_MODE_EXEC: case PK_PT_MODE_TSX: case PK_PT_MTC:
	case PK_PT_CYC: case PK_PT_VMCS: case PK_PT_CBR: case PK_PT_PIP:
		return PL_STATUS;
	case PK_PT_PTW: case PK_PT_EXSTOP: case PK_PT_MWAIT: case PK_PT_PWRE:
	case PK_PT_PWRX: case PK_PT_BBP: case PK_PT_BIP: case PK_PT_BEP:
	case PK_PT_CFE: case PK_PT_EVD:
		return PL_LATE;
	case PK_PT_FUP:
		return PL_FUP;
	case PK_PT_PSBEND:
		return PL_PSBEND;
	case PK_PT_TIP_PGE:
		return PL_PGE;
	default:
		return PL_STOP;
	}
}

/* perf's look-ahead at a PSB met in the flow (intel_pt_psb_with_fup):
 * the IP of the PSB+'s FUP (the first, with an IP, before the PSBEND;
 * not when a TIP.PGE follows within six packets after the PSBEND). The
 * scan starts after the PSB just peeked; the trace may end anywhere. */
static bool pt_fl_psb_fup(struct pk_pt_insn_decoder *d, uint64_t *ip)
{
	struct pk_pt_last_ip lip;
	struct pk_pt_packet p;
	unsigned after = 0;	/* packets still looked at after the PSBEND */
	bool fup = false;

	if (!pt_fl_scan_start(d))
		return false;
	memset(&lip, 0, sizeof(lip));
	while (pk_pt_next(d->scan, &p) > 0) {
		enum psb_look k = pt_fl_psb_look(&p);

		if (k == PL_FUP && !after && !fup && p.u.ip.ipc) {
			pk_pt_last_ip_update(&lip, p.u.ip.ipc, p.u.ip.ip);
			fup = !pk_pt_last_ip_query(&lip, ip);
			if (!fup)
				break;
		} else if (k == PL_PSBEND && fup && !after) {
			after = 6;
		} else if (k == PL_PGE) {
			return fup && !after;
		} else if ((k == PL_STATUS && after) || (k == PL_LATE && after)) {
			if (!--after)
				break;
		} else if (k != PL_STATUS) {
			break;
		}
	}
	return fup;
}

/* perf_binding: at a PSB met in the flow whose FUP names another IP
 * than where the flow stands, perf's decoder walks the code to that IP
 * before it reads the PSB+ (intel_pt_fup_in_psb): the PSB is left next
 * (fill reads on once the flow is there). True then. */
static bool pt_fl_psb_walk(struct pk_pt_insn_decoder *d)
{
	uint64_t ip;

	if (!d->opts.perf_binding || !d->synced || !d->enabled || d->noip ||
	    !pt_fl_psb_fup(d, &ip) || ip == d->ip)
		return false;
	d->psb_walk = true;
	d->psb_walk_ip = ip;
	return true;
}

static void pt_fl_psb_read(struct pk_pt_insn_decoder *d, bool resync);

/* The trace ended inside a PSB+ whose events were queued from QN0 on:
 * its PSB and CBR events marked cut. */
static void pt_fl_psb_cut(struct pk_pt_insn_decoder *d, unsigned qn0)
{
	for (unsigned i = qn0; i < d->qn; i++) {
		struct qev *e = pk__pt_fl_qat(d, i);

		if (e->ev.type == PK_PT_EV_CBR)
			e->ev.u.cbr.cut = 1;
		if (e->ev.type == PK_PT_EV_PSB)
			e->ev.u.psb.cut = 1;
	}
}

void pk__pt_fl_psb_plus(struct pk_pt_insn_decoder *d)
{
	if (!pt_fl_psb_walk(d))
		pt_fl_psb_read(d, false);
}

void pk__pt_fl_psb_resync(struct pk_pt_insn_decoder *d)
{
	d->psb_walk = false;
	d->tnt_n = 0;
	d->noip = true;		/* (the PSB+'s FUP gives the IP) */
	if (pk__pt_fl_peek(d, true) && d->next.type == PK_PT_PSB)
		pt_fl_psb_read(d, true);
}

/* PSB+: status packets restate the state; reported: its MNT, the PSB
 * and its CBR (psb_events; not the PSB when RESYNC: perf's resync after
 * an error in the walk to its FUP takes the flow up at the FUP). perf's
 * decoder empties its return stack at a PSB, but for that resync. */
static void pt_fl_psb_read(struct pk_pt_insn_decoder *d, bool resync)
{
	bool have_ip = false, perf = d->opts.perf_binding;
	uint64_t ip = 0;
	int psb_ev = -1;
	unsigned qn0 = d->qn;

	if (perf && !resync)
		d->rs_n = 0;
	if (d->opts.psb_events && !resync) {
		struct qev e;

		pk__pt_fl_new_ev(&e, PK_PT_EV_PSB, B_NOW);
		e.ev.u.psb.offset = d->next_off;
		e.ev.ip_suppressed = 1;
		pt_fl_push_event(d, &e);
		psb_ev = (int)d->qn - 1;
	}
	pk__pt_fl_take(d);
	pk_pt_tcal_psb(&d->tcal, &d->cfg);
	for (;;) {
		const struct pk_pt_packet *p = pk__pt_fl_peek(d, true);

		if (!p) {
			/* the trace ends inside the PSB+: perf's walk of it
			 * fails (no data): no psb sample (its offset kept)
			 * and no cbr one */
			if (d->next_err == PK_ERR_EOS)
				pt_fl_psb_cut(d, qn0);
			psb_ev = -1;
			if (have_ip && d->next_err == PK_ERR_EOS &&
			    d->synced && d->enabled && !d->noip) {
				d->psb_cut = true;
				return;
			}
			break;
		}
		if (p->type == PK_PT_PSBEND) {
			uint64_t at = d->next_off;

			pk__pt_fl_take(d);
			if (d->synced && d->enabled && !d->noip)
				d->lib_off = at; /* read ahead mid-flow */
			break;
		}
		if (p->type == PK_PT_OVF)
			break;
		switch (p->type) {
		case PK_PT_FUP:
			have_ip = d->next_ip_ok && p->u.ip.ipc;
			ip = d->next_ip;
			break;
		case PK_PT_MODE_EXEC:
			if (d->synced && d->enabled && !d->noip &&
			    pt_fl_exec_mode_of(p) != d->mode) {
				/* the status restates a different mode */
				d->status_err = PK_PT_ERR_BAD_STATUS;
				d->status_err_off = d->next_off;
				return;
			}
			d->mode = d->q_mode = pt_fl_exec_mode_of(p);
			d->iflag = p->u.exec.iflag;
			break;
		case PK_PT_MODE_TSX:
			d->speculative = p->u.tsx.intx;
			break;
		case PK_PT_PIP:
			d->cr3 = p->u.pip.cr3;
			break;
		case PK_PT_MNT: {
			struct qev e;

			pk__pt_fl_new_ev(&e, PK_PT_EV_MNT, B_NOW);
			e.ev.u.mnt.payload = p->u.mnt.payload;
			pt_fl_push_event(d, &e);
			break;
		}
		default:
			if (pt_fl_is_timing(p->type))
				pt_fl_do_timing(d, p, true);
			if (p->type == PK_PT_CBR && d->opts.psb_events) {
				struct qev e;

				pk__pt_fl_new_ev(&e, PK_PT_EV_CBR, B_NOW);
				e.ev.u.cbr.ratio = p->u.cbr.ratio;
				e.ev.status_update = 1;	/* a PSB+'s */
				pt_fl_push_event(d, &e);
			}
			break;
		}
		pk__pt_fl_take(d);
	}
	if (psb_ev >= 0 && psb_ev < (int)d->qn &&
	    pk__pt_fl_qat(d, (unsigned)psb_ev)->ev.type == PK_PT_EV_PSB) {
		/* the PSB+'s FUP: where the flow stood */
		pk__pt_fl_qat(d, (unsigned)psb_ev)->ev.ip = ip;
		pk__pt_fl_qat(d, (unsigned)psb_ev)->ev.ip_suppressed = !have_ip;
		pk__pt_fl_qat(d, (unsigned)psb_ev)->ev.has_tsc = !pk_pt_time_query(
			&d->time, &pk__pt_fl_qat(d, (unsigned)psb_ev)->ev.tsc);
	}
	if (!d->synced || !d->enabled || d->noip) {
		d->enabled = have_ip;
		d->ip = ip;
		if (!perf)
			d->rs_n = 0;
		d->icount = 0;
		d->noip = false;
	} else if (have_ip && !perf) {
		/* a resync point (perf's resync reads the packets after
		 * the PSB+: it walked the flow to the FUP before) */
		d->psb_ip = ip;
		d->have_psb_ip = true;
	}
	pk_pt_time_query(&d->time, &d->last_tick);
	d->synced = true;
	d->full_ip = false;	/* (perf's last IP is known again: 0) */
}

/* Is the next packet one a branch query consumes? */
static bool pt_fl_is_query(const struct pk_pt_insn_decoder *d,
		     const struct pk_pt_packet *p)
{
	return d->enabled && (p->type == PK_PT_TNT_8 ||
			      p->type == PK_PT_TNT_64 || p->type == PK_PT_TIP);
}

/* Behind events just bound to an instruction: the next packet when it is
 * a PIP or VMCS (a VM entry's pair binds to its one far branch; fill()
 * stops at the first event bound). True: one more event queued. */
bool pk__pt_fl_fill_side(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p;
	unsigned n = d->qn;

	if (d->tnt_n || d->status_err || d->ctx_err)
		return false;
	p = pk__pt_fl_peek(d, false);
	if (!p || (p->type != PK_PT_PIP && p->type != PK_PT_VMCS))
		return false;
	pk__pt_fl_read_event(d);
	return d->qn > n;
}

/* Reads ahead until a query packet is next or an event is ready. */
void pk__pt_fl_fill(struct pk_pt_insn_decoder *d)
{
	for (;;) {
		const struct pk_pt_packet *p;

		/* wait for the bits / stop; a context error stops the reading
		 * (behind events waiting for a FUP it would spin) */
		if (d->tnt_n || d->status_err || d->ctx_err)
			return;
		/* a PSB waits until the flow is at its FUP's IP */
		if (d->psb_walk && d->ip != d->psb_walk_ip)
			return;
		d->psb_walk = false;

		if (d->qn) {
			uint8_t b = pk__pt_fl_qat(d, 0)->bind;

			if (b == B_NOW || b == B_IP || b == B_INSN)
				return;
		}
		p = pk__pt_fl_peek(d, false);
		if (!p || pt_fl_is_query(d, p))
			return;
		pk__pt_fl_read_event(d);
	}
}

bool pk__pt_fl_fup_ahead(struct pk_pt_insn_decoder *d)
{
	const struct qev *e;

	if (!d->qn)
		return false;
	e = pk__pt_fl_qat(d, 0);
	if (e->bind != B_IP || e->ev.ip_suppressed)
		return false;
	switch (e->ev.type) {
	case PK_PT_EV_TSX: case PK_PT_EV_FUP: case PK_PT_EV_PTWRITE:
	case PK_PT_EV_EXSTOP: case PK_PT_EV_MWAIT: case PK_PT_EV_PWRE:
	case PK_PT_EV_CFE: case PK_PT_EV_BLK_ITEMS:
		break;
	default:
		return false;
	}
	d->tnt_n = 0;	/* (bits before the FUP: perf passes them by) */
	d->noip = true;	/* the event gives the flow its IP */
	return true;
}
