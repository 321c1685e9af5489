/* SPDX-License-Identifier: MIT */
/*
 * Intel PT instruction-flow decoder.
 *
 * A documented state machine (the one long piece of the PT layer):
 *
 *  packets --read ahead--> event queue + TNT cache + next TIP
 *  instructions (image, block cache) --queries--> TNT bits / TIP targets
 *
 * Read-ahead turns every non-branch packet into an event with a binding:
 *   B_NOW    deliver before the next instruction
 *   B_IP     deliver when the flow reaches ev.at/ip (FUP-based events)
 *   B_FUP    waiting for the FUP that gives its IP (TSX, EXSTOP ip, ...)
 *   B_TIP    waiting for the next TIP/TIP.PGE/FUP (MODE.Exec)
 *   B_EXSTOP waiting for the next EXSTOP (MWAIT)
 *   B_INSN   bound to a future instruction: TIP.PGD without FUP binds to
 *            the branch it ends, PIP/VMCS to a CR3 write or far branch,
 *            PTWRITE without IP to a PTWRITE; delivered right after it
 *   B_COUNT  TRIG without IP: after `icnt` instructions counted from the
 *            last IP reference (FUP, TIP, TNT bit)
 * The queue is delivered in order; an event that is not yet deliverable
 * holds back the ones behind it, as libipt's one-event read-ahead does.
 */
#include <errno.h>
#include "base/base.h"
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
	bool in_psb;

	struct pk_pt_time time;
	struct pk_pt_tcal tcal;

	/* Both caches start small and double (cleared) when they miss a
	 * lot, so short traces stay cheap and long ones get room. */
	struct cache_ent *cache;
	struct block_ent *bcache;
	unsigned cache_bits, bcache_bits;
	uint64_t cache_miss, bcache_miss;
};

/* ---- setup ---- */

struct pk_pt_insn_decoder *
pk_pt_insn_decoder_new(const uint8_t *buf, size_t len,
		       const struct pk_pt_config *config,
		       const struct pk_pt_image *image,
		       const struct pk_pt_insn_opts *opts)
{
	struct pk_pt_insn_decoder *d;

	if (!image || !PK_OPTS_VALID(opts, pk_pt_insn_opts) ||
	    !PK_OPTS_VALID(config, pk_pt_config)) {
		errno = EINVAL;
		return NULL;
	}
	d = pk_zalloc(sizeof(*d));
	if (!d)
		goto nomem;
	d->cache_bits = d->bcache_bits = CACHE_BITS_MIN;
	d->cache = pk_calloc(1u << d->cache_bits, sizeof(*d->cache));
	d->bcache = pk_calloc(1u << d->bcache_bits, sizeof(*d->bcache));
	d->pkt = pk_pt_decoder_new(buf, len, config);
	d->scan = pk_pt_decoder_new(buf, len, config);
	if (!d->cache || !d->bcache || !d->pkt || !d->scan)
		goto nomem;
	if (config)
		memcpy(&d->cfg, config, PK_MIN(config->sz, sizeof(d->cfg)));
	if (opts)
		memcpy(&d->opts, opts, PK_MIN(opts->sz, sizeof(d->opts)));
	d->buf = buf;
	d->len = len;
	d->img = image;
	pk_pt_time_init(&d->time);
	pk_pt_tcal_init(&d->tcal);
	return d;
nomem:
	pk_pt_insn_decoder_free(d);
	errno = ENOMEM;
	return NULL;
}

void pk_pt_insn_decoder_free(struct pk_pt_insn_decoder *d)
{
	if (!d)
		return;
	pk_pt_decoder_free(d->pkt);
	pk_pt_decoder_free(d->scan);
	pk_free(d->cache);
	pk_free(d->bcache);
	pk_free(d);
}

int pk_pt_insn_offset(const struct pk_pt_insn_decoder *d, uint64_t *offset)
{
	if (!d || !offset)
		return PK_ERR_INTERNAL;
	if (d->ctx_err || d->status_err) {
		*offset = d->ctx_err ? d->ctx_err_off : d->status_err_off;
		return 0;
	}
	*offset = d->lib_off;
	return 0;
}

/* ---- packets ---- */

static bool is_timing(uint8_t t)
{
	return t == PK_PT_TSC || t == PK_PT_MTC || t == PK_PT_CYC ||
	       t == PK_PT_TMA || t == PK_PT_CBR || t == PK_PT_PAD;
}

static void do_timing(struct pk_pt_insn_decoder *d,
		      const struct pk_pt_packet *p, bool header)
{
	uint64_t fcr = 0;

	switch (p->type) {
	case PK_PT_TSC:
		pk_pt_tcal_tsc(&d->tcal, p->u.tsc.tsc, header);
		pk_pt_time_tsc(&d->time, p->u.tsc.tsc);
		break;
	case PK_PT_CBR:
		pk_pt_tcal_cbr(&d->tcal, p->u.cbr.ratio, header, &d->cfg);
		pk_pt_time_cbr(&d->time, p->u.cbr.ratio);
		break;
	case PK_PT_TMA:
		pk_pt_time_tma(&d->time, p->u.tma.ctc, p->u.tma.fc, &d->cfg);
		break;
	case PK_PT_MTC:
		pk_pt_tcal_mtc(&d->tcal, p->u.mtc.ctc, &d->cfg);
		pk_pt_time_mtc(&d->time, p->u.mtc.ctc, &d->cfg);
		break;
	case PK_PT_CYC:
		if (pk_pt_tcal_fcr(&d->tcal, &fcr) < 0)
			fcr = 0;
		pk_pt_tcal_cyc(&d->tcal, p->u.cyc.value);
		pk_pt_time_cyc(&d->time, p->u.cyc.value, &d->cfg, fcr);
		break;
	default:
		break;
	}
}

static void push_event(struct pk_pt_insn_decoder *d, const struct qev *e);

/* Makes d->next the next packet (decoding it if needed). Timing packets
 * are applied and skipped unless KEEP_TIMING. Returns the packet or NULL
 * at the end (d->next_err says why). */
static const struct pk_pt_packet *peek(struct pk_pt_insn_decoder *d,
				       bool keep_timing)
{
	for (;;) {
		int n;

		if (d->have_next) {
			if (keep_timing || !is_timing(d->next.type))
				return &d->next;
			if (d->next.type == PK_PT_CBR) {
				struct qev e = { .bind = B_NOW };

				e.ev.type = PK_PT_EV_CBR;
				e.ev.u.cbr.ratio = d->next.u.cbr.ratio;
				push_event(d, &e);
			}
			do_timing(d, &d->next, false);
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

static void take(struct pk_pt_insn_decoder *d)
{
	d->have_next = false;
	d->touched = true;
	d->lib_off = d->next_off + d->next.size;
}

/* ---- event queue ---- */

static void push_event(struct pk_pt_insn_decoder *d, const struct qev *e)
{
	struct pk_pt_event *ev;

	if (d->qn == QMAX)	/* runaway: drop the oldest */
		d->qh = (d->qh + 1) % QMAX, d->qn--;
	d->q[(d->qh + d->qn) % QMAX] = *e;
	ev = &d->q[(d->qh + d->qn) % QMAX].ev;
	ev->has_tsc = !pk_pt_time_query(&d->time, &ev->tsc);
	d->qn++;
}

static struct qev *qat(struct pk_pt_insn_decoder *d, unsigned i)
{
	return &d->q[(d->qh + i) % QMAX];
}

static struct qev *new_ev(struct qev *e, uint8_t type, uint8_t bind)
{
	memset(e, 0, sizeof(*e));
	e->ev.type = type;
	e->bind = bind;
	return e;
}

/* Gives queued events waiting for BIND the IP IP (or suppression). */
static bool bind_waiting(struct pk_pt_insn_decoder *d, uint8_t bind,
			 uint64_t ip, bool suppressed)
{
	bool any = false;

	for (unsigned i = 0; i < d->qn; i++) {
		struct qev *e = qat(d, i);

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
static void requeue_bound(struct pk_pt_insn_decoder *d, uint8_t bind,
			  uint64_t ip)
{
	struct qev moved[QMAX];
	unsigned n = 0, keep = 0;

	for (unsigned i = 0; i < d->qn; i++) {
		struct qev *e = qat(d, i);

		if (e->bind == bind) {
			moved[n] = *e;
			moved[n].bind = B_NOW;
			moved[n].ev.ip = ip;
			n++;
		} else {
			*qat(d, keep++) = *e;
		}
	}
	d->qn = keep;
	for (unsigned i = 0; i < n; i++) {
		d->q[(d->qh + d->qn) % QMAX] = moved[i];
		d->qn++;
	}
}

/* ---- read-ahead: one non-query packet into events ---- */

static void psb_plus(struct pk_pt_insn_decoder *d);

/* CFE types that name an interrupt-like transfer: with tracing on and no
 * IP bit they bind to the next FUP (and its TIP). */
static bool cfe_async(uint8_t t)
{
	return t == 1 || t == 3 || t == 4 || t == 5 || t == 6 || t == 8 ||
	       t == 9 || t == 12 || t == 14;
}

static bool cfe_known(uint8_t t)
{
	return t >= 1 && t <= 15 && t != 11;
}

/* PIP/VMCS between a FUP and its TIP apply at the async branch. */
static unsigned absorb_async(struct pk_pt_insn_decoder *d, struct qev *out,
			     unsigned max)
{
	unsigned n = 0;

	for (;;) {
		const struct pk_pt_packet *p = peek(d, false);

		if (!p || (p->type != PK_PT_PIP && p->type != PK_PT_VMCS))
			return n;
		if (n < max) {
			struct qev *e = &out[n++];

			if (p->type == PK_PT_PIP) {
				new_ev(e, PK_PT_EV_PAGING, B_NOW);
				e->ev.u.paging.cr3 = p->u.pip.cr3;
				e->ev.u.paging.nr = p->u.pip.nr;
			} else {
				new_ev(e, PK_PT_EV_VMCS, B_NOW);
				e->ev.u.vmcs.base = p->u.vmcs.base;
			}
			e->ev.ip_suppressed = 1;
		}
		take(d);
	}
}

static void on_fup(struct pk_pt_insn_decoder *d)
{
	uint64_t from = d->next_ip, fup_end = d->next_off + d->next.size;
	const struct pk_pt_packet *p;
	struct qev e, side[8];
	unsigned nside;

	uint64_t fup_start = d->next_off;

	take(d);
	for (unsigned i = 0; i < d->qn; i++)
		if (qat(d, i)->bind == B_FUP &&
		    (qat(d, i)->ev.type == PK_PT_EV_TRIG ||
		     (qat(d, i)->ev.type == PK_PT_EV_TSX &&
		      !qat(d, i)->ev.u.tsx.aborted) ||
		     (qat(d, i)->ev.type == PK_PT_EV_CFE &&
		      !cfe_async(qat(d, i)->ev.u.cfe.type)))) {
			/* a TRIG's FUP only names the trigger's IP; a VM
			 * entry's or IRET's names the instruction; a TSX
			 * begin or commit names where it happened */
			bind_waiting(d, B_FUP, from, false);
			d->lib_off = fup_start;
			for (unsigned k = 0; k < d->qn; k++) {
				struct qev *c = qat(d, k);

				if (c->ev.type == PK_PT_EV_CFE && d->enabled &&
				    c->bind == B_IP && c->bind_ip == from &&
				    !cfe_async(c->ev.u.cfe.type)) {
					/* PIP/VMCS of the VM entry go with it */
					c->bind = B_INSN;
					nside = absorb_async(d, side, 8);
					for (unsigned j = 0; j < nside; j++) {
						side[j].bind = B_INSN;
						push_event(d, &side[j]);
					}
					break;
				}
			}
			return;
		}
	bind_waiting(d, B_FUP, from, false);
	nside = absorb_async(d, side, 8);
	p = peek(d, false);
	if (p && (p->type == PK_PT_TIP || p->type == PK_PT_TIP_PGD)) {
		bool pgd = p->type == PK_PT_TIP_PGD;

		new_ev(&e, pgd ? PK_PT_EV_ASYNC_DISABLED : PK_PT_EV_ASYNC_BRANCH,
		       B_IP);
		e.ev.at = e.bind_ip = from;
		e.ev.ip = d->next_ip;
		e.ev.ip_suppressed = !d->next_ip_ok || !p->u.ip.ipc;
		take(d);
		d->lib_off = fup_end;	/* libipt has read only the FUP */
		push_event(d, &e);
		/* VMCS before paging, as libipt reports them */
		for (unsigned i = nside; i-- > 0;)
			if (side[i].ev.type == PK_PT_EV_VMCS)
				push_event(d, &side[i]);
		for (unsigned i = 0; i < nside; i++)
			if (side[i].ev.type == PK_PT_EV_PAGING)
				push_event(d, &side[i]);
		/* MODE.Exec waiting for this FUP applies at the target */
		if (!pgd)
			bind_waiting(d, B_TIP, e.ev.ip, false);
		return;
	}
	for (unsigned i = 0; i < nside; i++)
		push_event(d, &side[i]);
	if (bind_waiting(d, B_TIP, from, false))	/* MODE.Exec at a lone FUP */
		d->lib_off = fup_start;
}

static void hold(struct pk_pt_insn_decoder *d, struct qev *e)
{
	e->ev.has_tsc = !pk_pt_time_query(&d->time, &e->ev.tsc);
	if (d->nheld < PK_ARRAY_SIZE(d->held))
		d->held[d->nheld++] = *e;
}

/* Queues the held events of TYPE (in arrival order) with BIND. */
static void release(struct pk_pt_insn_decoder *d, uint8_t type, uint8_t bind,
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
static void flush_held(struct pk_pt_insn_decoder *d)
{
	unsigned at = 0, n = d->nheld;

	if (!n || d->qn + n > QMAX)
		return;
	while (at < d->qn && qat(d, at)->bind != B_FUP)
		at++;
	for (unsigned i = d->qn; i-- > at;)
		*qat(d, i + n) = *qat(d, i);
	for (unsigned i = 0; i < n; i++) {
		*qat(d, at + i) = d->held[i];
		qat(d, at + i)->bind = B_NOW;
	}
	d->qn += n;
	d->nheld = 0;
}

/* Type of the next non-timing packet after the current position, without
 * consuming anything (PK_PT_NTYPES at the end). */
static uint8_t type_ahead(struct pk_pt_insn_decoder *d)
{
	struct pk_pt_packet p;
	uint64_t off;

	if (pk_pt_offset(d->pkt, &off) < 0 || pk_pt_sync_set(d->scan, off) < 0)
		return PK_PT_NTYPES;
	while (pk_pt_next(d->scan, &p) > 0)
		if (!is_timing(p.type))
			return p.type;
	return PK_PT_NTYPES;
}

static void on_ovf(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p;
	uint8_t ahead;
	struct qev e;

	take(d);
	d->tnt_n = 0;
	d->q_mode = PK_PT_MODE_UNKNOWN;
	flush_held(d);
	bind_waiting(d, B_FUP, 0, true);
	for (unsigned i = 0; i < d->qn; i++)
		if (qat(d, i)->bind == B_TIP || qat(d, i)->bind == B_COUNT)
			qat(d, i)->bind = B_NOW;
	if (d->opts.keep_tcal_on_ovf)
		pk_pt_tcal_ovf(&d->tcal);
	else
		pk_pt_tcal_init(&d->tcal);
	new_ev(&e, PK_PT_EV_OVERFLOW, B_NOW);
	e.ev.ip_suppressed = 1;
	ahead = type_ahead(d);
	/* SKD010: the FUP after OVF may be lost; the TIP stands in for it */
	if (ahead != PK_PT_FUP &&
	    !(ahead == PK_PT_TIP && d->cfg.errata.skd010)) {
		/* resolved with tracing disabled */
		push_event(d, &e);
		/* APL11: a stray TIP.PGD may follow the OVF */
		if (ahead == PK_PT_TIP_PGD && d->cfg.errata.apl11) {
			p = peek(d, false);
			if (p && p->type == PK_PT_TIP_PGD)
				take(d);
		}
		return;
	}
	p = peek(d, false);	/* timing packets up to the FUP apply first */
	if (p && (p->type == PK_PT_FUP || p->type == PK_PT_TIP)) {
		e.ev.ip = d->next_ip;
		e.ev.ip_suppressed = !d->next_ip_ok || !p->u.ip.ipc;
		take(d);
	}
	push_event(d, &e);
}

static void on_exstop(struct pk_pt_insn_decoder *d)
{
	struct qev e;
	bool ip = d->next.u.exstop.ip;

	take(d);
	release(d, PK_PT_EV_MWAIT, ip ? B_FUP : B_NOW, !ip);	/* MWAIT binds here */
	new_ev(&e, PK_PT_EV_EXSTOP, ip ? B_FUP : B_NOW);
	e.ev.ip_suppressed = !ip;
	push_event(d, &e);
}

static uint8_t exec_mode_of(const struct pk_pt_packet *p)
{
	if (p->u.exec.csl && p->u.exec.csd)
		return PK_PT_MODE_UNKNOWN;
	return p->u.exec.csl ? PK_PT_MODE_64 :
	       p->u.exec.csd ? PK_PT_MODE_32 : PK_PT_MODE_16;
}

/* A context error found by read-ahead, reported when fetched. */
static void ctx_error(struct pk_pt_insn_decoder *d)
{
	struct qev e;

	if (d->ctx_err)
		return;
	d->ctx_err = PK_PT_ERR_CONTEXT;
	d->ctx_err_off = d->next_off;
	new_ev(&e, 0, B_NOW);
	push_event(d, &e);
}

static void on_evd(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p = &d->next;
	uint64_t v = p->u.evd.payload;

	switch (p->u.evd.type) {
	case 0:
		if (d->have_cr2 || d->have_vmxq || d->have_vmxr)
			return ctx_error(d);
		d->evd_cr2 = v;
		d->have_cr2 = 1;
		break;
	case 1:
		if (d->have_cr2 || d->have_vmxq)
			return ctx_error(d);
		d->evd_vmxq = v;
		d->have_vmxq = 1;
		break;
	case 2:
		if (d->have_cr2 || d->have_vmxr)
			return ctx_error(d);
		d->evd_vmxr = v;
		d->have_vmxr = 1;
		break;
	default:	/* unknown EVD types are ignored */
		break;
	}
	take(d);
}

static void on_cfe(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p = &d->next;
	uint8_t t = p->u.cfe.type, bind;
	struct qev e;

	if ((d->have_cr2 && t != 1) ||
	    ((d->have_vmxq || d->have_vmxr) && t != 8 && t != 9))
		return ctx_error(d);
	take(d);
	if (!cfe_known(t)) {
		/* ignored; an IP bit still takes its FUP */
		if (p->u.cfe.ip) {
			const struct pk_pt_packet *f = peek(d, false);

			if (f && f->type == PK_PT_FUP)
				take(d);
		}
		return;
	}
	if (p->u.cfe.ip)
		bind = B_FUP;
	else if (!d->enabled)
		bind = B_NOW;
	else
		bind = cfe_async(t) ? B_FUP : B_INSN;
	new_ev(&e, PK_PT_EV_CFE, bind);
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
	push_event(d, &e);
}

/* Processes the next packet, which is not a query packet. */
static void read_event(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p = &d->next;
	struct qev e;

	switch (p->type) {
	case PK_PT_PSB:
		psb_plus(d);
		return;
	case PK_PT_FUP:
		on_fup(d);
		return;
	case PK_PT_OVF:
		on_ovf(d);
		return;
	case PK_PT_EXSTOP:
		on_exstop(d);
		return;
	case PK_PT_EVD:
		on_evd(d);
		return;
	case PK_PT_CFE:
		on_cfe(d);
		return;
	case PK_PT_TIP_PGE:
		if (d->noip && d->enabled) {	/* lost: it was disabled */
			new_ev(&e, PK_PT_EV_DISABLED, B_NOW);
			e.ev.ip_suppressed = 1;
			push_event(d, &e);
		}
		new_ev(&e, PK_PT_EV_ENABLED, B_NOW);
		e.ev.ip = d->next_ip;
		e.ev.ip_suppressed = !d->next_ip_ok || !p->u.ip.ipc;
		/* TSX waiting for a FUP is reported before, exec mode after */
		bind_waiting(d, B_FUP, 0, true);
		take(d);
		push_event(d, &e);
		requeue_bound(d, B_TIP, e.ev.ip);
		return;
	case PK_PT_TIP_PGD:
		new_ev(&e, PK_PT_EV_DISABLED, d->enabled ? B_INSN : B_NOW);
		e.ev.ip = d->next_ip;
		e.ev.ip_suppressed = !d->next_ip_ok || !p->u.ip.ipc;
		break;
	case PK_PT_MODE_EXEC:
		new_ev(&e, PK_PT_EV_EXEC_MODE, B_TIP);
		e.ev.u.exec_mode.mode = exec_mode_of(p);
		e.ev.u.exec_mode.iflag = p->u.exec.iflag;
		/* only a change of mode is reported */
		e.ev.status_update = e.ev.u.exec_mode.mode == d->q_mode;
		d->q_mode = e.ev.u.exec_mode.mode;
		break;
	case PK_PT_MODE_TSX:
		new_ev(&e, PK_PT_EV_TSX, B_FUP);
		e.ev.u.tsx.speculative = p->u.tsx.intx;
		e.ev.u.tsx.aborted = p->u.tsx.abrt;
		break;
	case PK_PT_PIP:
		new_ev(&e, PK_PT_EV_PAGING, d->enabled ? B_INSN : B_NOW);
		e.ev.u.paging.cr3 = p->u.pip.cr3;
		e.ev.u.paging.nr = p->u.pip.nr;
		e.ev.ip_suppressed = 1;
		break;
	case PK_PT_VMCS:
		new_ev(&e, PK_PT_EV_VMCS, d->enabled ? B_INSN : B_NOW);
		e.ev.u.vmcs.base = p->u.vmcs.base;
		e.ev.ip_suppressed = 1;
		break;
	case PK_PT_STOP:
		new_ev(&e, PK_PT_EV_STOP, B_NOW);
		break;
	case PK_PT_MWAIT:
		new_ev(&e, PK_PT_EV_MWAIT, B_EXSTOP);
		e.ev.u.mwait.hints = p->u.mwait.hints;
		e.ev.u.mwait.ext = p->u.mwait.ext;
		hold(d, &e);
		take(d);
		return;
	case PK_PT_PWRE:
		new_ev(&e, PK_PT_EV_PWRE, B_NOW);
		e.ev.u.pwre.state = p->u.pwre.state;
		e.ev.u.pwre.sub_state = p->u.pwre.sub_state;
		e.ev.u.pwre.hw = p->u.pwre.hw;
		e.ev.ip_suppressed = 1;
		hold(d, &e);
		take(d);
		return;
	case PK_PT_PWRX:
		release(d, PK_PT_EV_PWRE, B_NOW, true);
		new_ev(&e, PK_PT_EV_PWRX, B_NOW);
		e.ev.u.pwrx.last = p->u.pwrx.last;
		e.ev.u.pwrx.deepest = p->u.pwrx.deepest;
		e.ev.u.pwrx.interrupt = p->u.pwrx.interrupt;
		e.ev.u.pwrx.store = p->u.pwrx.store;
		e.ev.u.pwrx.autonomous = p->u.pwrx.autonomous;
		break;
	case PK_PT_PTW:
		new_ev(&e, PK_PT_EV_PTWRITE, p->u.ptw.ip ? B_FUP :
					     d->enabled ? B_INSN : B_NOW);
		e.ev.u.ptwrite.payload = p->u.ptw.payload;
		e.ev.ip_suppressed = !p->u.ptw.ip;
		break;
	case PK_PT_MNT:
		new_ev(&e, PK_PT_EV_MNT, B_NOW);
		e.ev.u.mnt.payload = p->u.mnt.payload;
		break;
	case PK_PT_TRIG:
		new_ev(&e, PK_PT_EV_TRIG, p->u.trig.ip ? B_FUP :
					  d->enabled ? B_COUNT : B_NOW);
		e.ev.u.trig.trbv = p->u.trig.trbv;
		e.ev.u.trig.mult = p->u.trig.mult;
		e.ev.u.trig.icntv = p->u.trig.icntv;
		e.ev.u.trig.icnt = p->u.trig.icnt;
		e.ev.ip_suppressed = !p->u.trig.ip;
		break;
	default:	/* PSBEND outside PSB+, CFE/EVD, TNT/TIP while off */
		take(d);
		return;
	}
	take(d);
	push_event(d, &e);
}

/* PSB+: status packets restate the state; nothing is reported. */
static void psb_plus(struct pk_pt_insn_decoder *d)
{
	bool have_ip = false;
	uint64_t ip = 0;

	take(d);
	pk_pt_tcal_psb(&d->tcal, &d->cfg);
	for (;;) {
		const struct pk_pt_packet *p = peek(d, true);

		if (!p)
			break;
		if (p->type == PK_PT_PSBEND) {
			uint64_t at = d->next_off;

			take(d);
			if (d->synced && d->enabled && !d->noip)
				d->lib_off = at;	/* read ahead mid-flow */
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
			    exec_mode_of(p) != d->mode) {
				/* the status restates a different mode */
				d->status_err = PK_PT_ERR_BAD_STATUS;
				d->status_err_off = d->next_off;
				return;
			}
			d->mode = d->q_mode = exec_mode_of(p);
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

			new_ev(&e, PK_PT_EV_MNT, B_NOW);
			e.ev.u.mnt.payload = p->u.mnt.payload;
			push_event(d, &e);
			break;
		}
		default:
			if (is_timing(p->type))
				do_timing(d, p, true);
			break;
		}
		take(d);
	}
	if (!d->synced || !d->enabled || d->noip) {
		d->enabled = have_ip;
		d->ip = ip;
		d->rs_n = 0;
		d->icount = 0;
		d->noip = false;
	} else if (have_ip) {
		d->psb_ip = ip;		/* a resync point */
		d->have_psb_ip = true;
	}
	pk_pt_time_query(&d->time, &d->last_tick);
	d->synced = true;
}

/* Is the next packet one a branch query consumes? */
static bool is_query(const struct pk_pt_insn_decoder *d,
		     const struct pk_pt_packet *p)
{
	return d->enabled && (p->type == PK_PT_TNT_8 ||
			      p->type == PK_PT_TNT_64 || p->type == PK_PT_TIP);
}

/* Reads ahead until a query packet is next or an event is ready. */
static void fill(struct pk_pt_insn_decoder *d)
{
	for (;;) {
		const struct pk_pt_packet *p;

		if (d->tnt_n || d->status_err)	/* wait for the bits / stop */
			return;

		if (d->qn) {
			uint8_t b = qat(d, 0)->bind;

			if (b == B_NOW || b == B_IP || b == B_INSN)
				return;
		}
		p = peek(d, false);
		if (!p || is_query(d, p))
			return;
		read_event(d);
	}
}

/* ---- queries ---- */

static int query_tnt(struct pk_pt_insn_decoder *d, bool *taken)
{
	while (!d->tnt_n) {
		const struct pk_pt_packet *p = peek(d, false);

		if (!p)
			return d->next_err == PK_ERR_EOS ? PK_ERR_EOS
							 : d->next_err;
		if (p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64) {
			d->tnt = p->u.tnt.payload;
			d->tnt_n = p->u.tnt.bits;
			pk_pt_time_query(&d->time, &d->tnt_tsc);
			take(d);
			break;
		}
		if (p->type == PK_PT_TIP || p->type == PK_PT_TIP_PGD ||
		    p->type == PK_PT_FUP || p->type == PK_PT_TIP_PGE ||
		    p->type == PK_PT_PSB || p->type == PK_PT_OVF)
			return PK_PT_ERR_BAD_QUERY;
		read_event(d);
	}
	d->tnt_n--;
	*taken = (d->tnt >> d->tnt_n) & 1;
	d->queried = true;
	d->q_tsc = d->tnt_tsc;
	return 0;
}

/* Is a TNT bit available without crossing other packets? */
static bool tnt_ahead(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p;

	if (d->tnt_n)
		return true;
	p = peek(d, false);
	return p && (p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64);
}

static int query_tip(struct pk_pt_insn_decoder *d, uint64_t *ip)
{
	for (;;) {
		const struct pk_pt_packet *p = peek(d, false);

		if (!p)
			return d->next_err;
		if (p->type == PK_PT_TIP) {
			if (!d->next_ip_ok || !p->u.ip.ipc) {
				take(d);
				return PK_PT_ERR_BAD_QUERY;
			}
			*ip = d->next_ip;
			take(d);
			bind_waiting(d, B_TIP, *ip, false);
			d->queried = true;
			pk_pt_time_query(&d->time, &d->q_tsc);
			/* libipt reads a TNT right behind a TIP */
			p = peek(d, false);
			if (p && !d->tnt_n && (p->type == PK_PT_TNT_8 ||
					       p->type == PK_PT_TNT_64)) {
				d->tnt = p->u.tnt.payload;
				d->tnt_n = p->u.tnt.bits;
				pk_pt_time_query(&d->time, &d->tnt_tsc);
				take(d);
			}
			return 0;
		}
		if ((p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64) &&
		    d->tnt_n + p->u.tnt.bits <= 64) {
			/* a TIP deferred behind TNT for later branches */
			d->tnt = d->tnt << p->u.tnt.bits | p->u.tnt.payload;
			d->tnt_n += p->u.tnt.bits;
			pk_pt_time_query(&d->time, &d->tnt_tsc);
			take(d);
			continue;
		}
		if (p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64 ||
		    p->type == PK_PT_FUP || p->type == PK_PT_PSB ||
		    p->type == PK_PT_OVF || p->type == PK_PT_TIP_PGE)
			return PK_PT_ERR_BAD_QUERY;
		read_event(d);
		if (d->qn && qat(d, d->qn - 1)->bind == B_INSN &&
		    qat(d, d->qn - 1)->ev.type == PK_PT_EV_DISABLED)
			return 1;	/* the branch left the traced region */
	}
}

/* ---- instructions ---- */

/* Doubles the instruction cache (emptied); returns IP's slot. */
static struct cache_ent *grow_cache(struct pk_pt_insn_decoder *d,
				    uint64_t ip)
{
	struct cache_ent *n = pk_calloc(2u << d->cache_bits, sizeof(*n));

	if (n) {
		pk_free(d->cache);
		d->cache = n;
		d->cache_bits++;
	}
	d->cache_miss = 0;
	return &d->cache[(ip ^ (ip >> d->cache_bits)) &
			 ((1u << d->cache_bits) - 1)];
}

static int decode_at(struct pk_pt_insn_decoder *d, uint64_t ip,
		     struct pk_pt_insn *insn, uint64_t *target)
{
	struct cache_ent *c = &d->cache[(ip ^ (ip >> d->cache_bits)) &
					((1u << d->cache_bits) - 1)];
	int err;

	if (c->valid && c->ip == ip && c->mode == d->mode) {
		insn->ip = ip;
		insn->size = c->size;
		insn->iclass = c->iclass;
		insn->mode = c->mode;
		*target = c->target;
		d->absolute = c->absolute;
		return 0;
	}
	if (++d->cache_miss > 4ull << d->cache_bits &&
	    d->cache_bits < CACHE_BITS_MAX)
		c = grow_cache(d, ip);
	err = pk_pt_insn_decode(d->img, ip, d->mode, insn, target);
	if (err < 0)
		return err;
	d->absolute = insn->size == 11 && insn->raw[0] == 0xd5;
	c->absolute = d->absolute;
	c->ip = ip;
	c->target = *target;
	c->size = insn->size;
	c->iclass = insn->iclass;
	c->mode = d->mode;
	c->valid = 1;
	return 0;
}

static bool is_far(uint8_t ic)
{
	return ic == PK_PT_IC_FAR_CALL || ic == PK_PT_IC_FAR_RETURN ||
	       ic == PK_PT_IC_FAR_JUMP;
}

static bool is_branch(uint8_t ic)
{
	return ic != PK_PT_IC_OTHER && ic != PK_PT_IC_PTWRITE &&
	       ic != PK_PT_IC_MOV_CR3 && ic != PK_PT_IC_ERROR;
}

/* Is ADDR inside the FilterEn ranges (true when none is configured)? */
static bool in_filter(const struct pk_pt_insn_decoder *d, uint64_t addr)
{
	bool any = false;

	for (int n = 0; n < 4; n++) {
		if (d->opts.addr_cfg[n] != 1)
			continue;
		any = true;
		if (d->opts.addr_a[n] <= addr && addr <= d->opts.addr_b[n])
			return true;
	}
	return !any;
}

/* Does the TIP.PGD-without-FUP event E end at instruction INSN? */
static bool pgd_binds(const struct pk_pt_insn_decoder *d, const struct qev *e,
		      const struct pk_pt_insn *insn, uint64_t target)
{
	if (e->ev.ip_suppressed) {
		if (is_far(insn->iclass) || insn->iclass == PK_PT_IC_MOV_CR3)
			return true;
		if (!d->tnt_n && (insn->iclass == PK_PT_IC_JUMP_IND ||
				  insn->iclass == PK_PT_IC_CALL_IND ||
				  insn->iclass == PK_PT_IC_RETURN))
			return true;
		/* SKL014: leaving the filter region by a direct branch
		 * suppresses the TIP.PGD's IP */
		return d->cfg.errata.skl014 &&
		       (insn->iclass == PK_PT_IC_JUMP ||
			insn->iclass == PK_PT_IC_CALL) &&
		       !in_filter(d, target);
	}
	switch (insn->iclass) {
	case PK_PT_IC_JUMP: case PK_PT_IC_CALL:
		/* a direct branch elsewhere did not leave the region */
		return d->absolute || e->ev.ip == target;
	default:
		return is_branch(insn->iclass);
	}
}

static void push_ret(struct pk_pt_insn_decoder *d, uint64_t ip)
{
	d->rs_top = (d->rs_top + 1) % RSMAX;
	d->rs[d->rs_top] = ip;
	if (d->rs_n < RSMAX)
		d->rs_n++;
}

/* Where the flow goes after INSN; sets *DISABLED when a TIP.PGD ends it. */
static int proceed(struct pk_pt_insn_decoder *d, const struct pk_pt_insn *insn,
		   uint64_t target, uint64_t *nip)
{
	uint64_t next = insn->ip + insn->size;
	bool taken;
	int err;

	switch (insn->iclass) {
	case PK_PT_IC_JUMP:
		*nip = target;
		return 0;
	case PK_PT_IC_CALL:
		if (target != next)
			push_ret(d, next);
		*nip = target;
		return 0;
	case PK_PT_IC_COND_JUMP:
		err = query_tnt(d, &taken);
		if (err < 0)
			return err;
		*nip = taken ? target : next;
		return 0;
	case PK_PT_IC_RETURN:
		if (tnt_ahead(d)) {
			err = query_tnt(d, &taken);
			if (err < 0)
				return err;
			if (!taken)
				return PK_PT_ERR_BAD_RETCOMP;
			if (!d->rs_n)
				return PK_PT_ERR_RETSTACK;
			*nip = d->rs[d->rs_top];
			d->rs_top = (d->rs_top + RSMAX - 1) % RSMAX;
			d->rs_n--;
			return 0;
		}
		return query_tip(d, nip);
	case PK_PT_IC_CALL_IND:
		push_ret(d, next);
		return query_tip(d, nip);
	case PK_PT_IC_JUMP_IND: case PK_PT_IC_FAR_CALL:
	case PK_PT_IC_FAR_RETURN: case PK_PT_IC_FAR_JUMP:
		return query_tip(d, nip);
	default:
		*nip = next;
		return 0;
	}
}

/* Status bits for what comes next. */
/* SKD022: a VM entry that clears TraceEn may send FUP+TIP.PGD; the
 * disable then belongs after the VMLAUNCH/VMRESUME at the FUP's IP. */
static void skd022(struct pk_pt_insn_decoder *d, struct qev *e)
{
	struct pk_pt_insn in;
	uint64_t t;

	if (pk_pt_insn_decode(d->img, d->ip, d->mode, &in, &t) < 0 ||
	    in.size != 3 || in.raw[0] != 0x0f || in.raw[1] != 0x01 ||
	    (in.raw[2] != 0xc2 && in.raw[2] != 0xc3))
		return;
	e->ev.type = PK_PT_EV_DISABLED;
	e->ev.ip_suppressed = 1;
	e->bind = B_INSN;
}

/* BDM64: after a TSX abort the FUP may name an IP the flow cannot reach
 * from here without a branch; then the abort happened here. */
static void bdm64(struct pk_pt_insn_decoder *d)
{
	struct qev *e = qat(d, 0);
	uint64_t ip = d->ip, at = e->bind_ip, t;

	if (e->ev.type != PK_PT_EV_TSX || !e->ev.u.tsx.aborted || at == ip)
		return;
	for (int i = 0; i < 64; i++) {
		struct pk_pt_insn in;

		if (pk_pt_insn_decode(d->img, ip, d->mode, &in, &t) < 0)
			break;
		if (ip == at)
			return;
		if (is_branch(in.iclass))
			break;
		ip += in.size;
		if (ip == at)
			return;
	}
	for (unsigned i = 0; i < d->qn && qat(d, i)->bind == B_IP &&
			     qat(d, i)->bind_ip == at; i++)
		qat(d, i)->bind_ip = d->ip;
}

/* After an error: read on until a packet gives the flow an IP. */
static void noip_advance(struct pk_pt_insn_decoder *d)
{
	while (d->noip) {
		const struct pk_pt_packet *p;

		fill(d);
		if (d->qn)
			return;
		p = peek(d, false);
		if (!p)
			return;
		if (p->type == PK_PT_TIP) {
			if (d->next_ip_ok && p->u.ip.ipc) {
				d->ip = d->next_ip;
				d->noip = false;
			}
			take(d);
			p = peek(d, false);	/* as after any TIP */
			if (!d->noip && p && (p->type == PK_PT_TNT_8 ||
					      p->type == PK_PT_TNT_64)) {
				d->tnt = p->u.tnt.payload;
				d->tnt_n = p->u.tnt.bits;
				take(d);
			}
		} else if (p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64) {
			take(d);	/* bits of branches we could not follow */
		} else {
			read_event(d);
		}
	}
}

static int status(struct pk_pt_insn_decoder *d)
{
	noip_advance(d);
	fill(d);
	if (d->qn && qat(d, 0)->bind == B_IP && d->enabled &&
	    qat(d, 0)->bind_ip == d->ip && d->cfg.errata.skd022 &&
	    qat(d, 0)->ev.type == PK_PT_EV_ASYNC_DISABLED)
		skd022(d, qat(d, 0));
	if (d->after_branch && d->cfg.errata.bdm64 && d->speculative &&
	    d->qn && qat(d, 0)->bind == B_IP) {
		d->after_branch = false;
		bdm64(d);
	}
	if (!d->have_next && d->next_err == PK_ERR_EOS && d->nheld)
		flush_held(d);	/* the trace ended before their partners */
	if (d->qn) {
		struct qev *e = qat(d, 0);

		/* a FUP comes after the TNT bits of earlier branches */
		if (d->noip && (e->bind == B_IP || e->bind == B_INSN))
			return PK_PT_STS_EVENT;
		if (e->bind == B_NOW || (e->bind == B_IP &&
					 (!d->enabled || (e->bind_ip == d->ip &&
							  !d->tnt_n))))
			return PK_PT_STS_EVENT;
		if (e->bind == B_COUNT && !d->tnt_n &&
		    d->icount >= e->ev.u.trig.icnt) {
			e->bind = B_NOW;
			e->ev.ip = d->ip;
			e->ev.ip_suppressed = !d->enabled;
			return PK_PT_STS_EVENT;
		}
		return 0;
	}
	if (!d->have_next && d->next_err == PK_ERR_EOS && !d->tnt_n &&
	    !d->nheld)
		return PK_PT_STS_EOS | (d->enabled ? 0 : PK_PT_STS_IP_SUPPRESSED);
	return 0;
}

int pk_pt_insn_sync_forward(struct pk_pt_insn_decoder *d)
{
	int err;

	if (!d)
		return PK_ERR_INTERNAL;
	if (d->have_next && d->next.type == PK_PT_PSB && !d->synced) {
		/* already positioned on a PSB */
	} else {
		err = pk_pt_sync_forward(d->pkt);
		if (err < 0)
			return err;
		d->have_next = false;
	}
	d->qn = 0;
	d->nheld = 0;
	d->tnt_n = 0;
	d->rs_n = 0;
	d->ctx_err = 0;
	d->status_err = 0;
	d->noip = false;
	d->have_psb_ip = false;
	d->have_cr2 = d->have_vmxq = d->have_vmxr = 0;
	d->iflag = 0xff;	/* unknown until a MODE.Exec */
	d->synced = false;
	d->enabled = false;
	d->next_err = 0;
	memset(&d->lip, 0, sizeof(d->lip));
	if (!peek(d, true) || d->next.type != PK_PT_PSB)
		return PK_ERR_NOSYNC;
	psb_plus(d);
	return status(d);
}

int pk_pt_insn_event(struct pk_pt_insn_decoder *d, struct pk_pt_event *ev)
{
	struct qev *e;

	if (!d || !ev)
		return PK_ERR_INTERNAL;
	if (!(status(d) & PK_PT_STS_EVENT))
		return PK_PT_ERR_BAD_QUERY;
	e = qat(d, 0);
	if (!e->ev.type) {	/* a context error found while reading ahead */
		d->qh = (d->qh + 1) % QMAX;
		d->qn--;
		return d->ctx_err;
	}
	if (e->bind == B_IP) {
		d->icount = 0;	/* a FUP names this instruction */
		if (d->noip) {	/* ... and gives a lost flow its IP */
			d->ip = e->bind_ip;
			d->noip = false;
		}
	}
	*ev = e->ev;
	if (ev->has_tsc)
		d->last_tick = ev->tsc;
	d->qh = (d->qh + 1) % QMAX;
	d->qn--;
	switch (ev->type) {
	case PK_PT_EV_ENABLED:
		d->noip = false;
		ev->u.enabled.resumed = d->have_resume &&
					ev->ip == d->resume_ip;
		d->have_resume = false;
		d->enabled = !ev->ip_suppressed;
		d->ip = ev->ip;
		d->icount = 0;
		break;
	case PK_PT_EV_DISABLED:
		d->enabled = false;
		d->noip = false;
		break;
	case PK_PT_EV_ASYNC_DISABLED:
		d->enabled = false;
		d->noip = false;
		d->resume_ip = ev->at;
		d->have_resume = true;
		break;
	case PK_PT_EV_ASYNC_BRANCH:
		d->ip = ev->ip;
		d->icount = 0;
		d->noip = false;
		break;
	case PK_PT_EV_OVERFLOW:
		d->noip = false;
		d->enabled = !ev->ip_suppressed;
		d->ip = ev->ip;
		d->rs_n = 0;
		d->icount = 0;
		break;
	case PK_PT_EV_TRIG:
		d->icount = 0;	/* the next TRIG counts from here */
		break;
	case PK_PT_EV_EXEC_MODE:
		d->mode = ev->u.exec_mode.mode;
		if (ev->u.exec_mode.iflag != d->iflag &&
		    d->opts.iflags_events && d->qn < QMAX) {
			struct qev f = { .bind = B_NOW, .ev = *ev };

			f.ev.type = PK_PT_EV_IFLAGS;
			f.ev.status_update = 0;
			f.ev.u.iflags.iflag = ev->u.exec_mode.iflag;
			d->qh = (d->qh + QMAX - 1) % QMAX;
			d->q[d->qh] = f;
			d->qn++;
		}
		d->iflag = ev->u.exec_mode.iflag;
		break;
	case PK_PT_EV_TSX:
		d->speculative = ev->u.tsx.speculative;
		break;
	default:
		break;
	}
	return status(d);
}

int pk_pt_insn_next(struct pk_pt_insn_decoder *d, struct pk_pt_insn *insn)
{
	uint64_t target = 0, nip = 0;
	int err;

	if (!d || !insn)
		return PK_ERR_INTERNAL;
	memset(insn, 0, sizeof(*insn));
	insn->ip = d->ip;
	if (d->status_err)
		return d->status_err;
	if (d->noip)
		return d->next_err == PK_ERR_EOS ? PK_ERR_EOS : PK_PT_ERR_NO_IP;
	if (!d->enabled)
		return d->next_err == PK_ERR_EOS ? PK_ERR_EOS
						 : PK_PT_ERR_NO_ENABLE;
	err = decode_at(d, d->ip, insn, &target);
	if (err < 0) {
		insn->iclass = PK_PT_IC_ERROR;
		return err;
	}
	if (!insn->raw[0] && !insn->raw[1])	/* from the cache: bytes too */
		pk_pt_image_read(d->img, insn->ip, insn->raw, insn->size);
	insn->speculative = d->speculative;
	/* events bound to this instruction */
	fill(d);
	for (unsigned i = 0; i < d->qn; i++) {
		struct qev *e = qat(d, i);

		if (e->bind != B_INSN)
			continue;
		if (e->ev.type == PK_PT_EV_DISABLED) {
			if (!pgd_binds(d, e, insn, target))
				break;
			e->bind = B_NOW;
			e->ev.at = insn->ip;
			d->resume_ip = insn->ip + insn->size;
			d->have_resume = true;
			return status(d);
		}
		if (e->ev.type == PK_PT_EV_PTWRITE ?
		    insn->iclass != PK_PT_IC_PTWRITE :
		    insn->iclass != PK_PT_IC_MOV_CR3 && !is_far(insn->iclass))
			break;
		e->bind = B_NOW;	/* and the next may bind here too */
	}
	d->queried = false;
	err = proceed(d, insn, target, &nip);
	if (err < 0)
		return err;
	if (err == 1) {	/* TIP.PGD: the branch left the traced region */
		qat(d, d->qn - 1)->bind = B_NOW;
		d->resume_ip = insn->ip + insn->size;
		d->have_resume = true;
		return status(d);
	}
	d->ip = nip;
	d->icount = d->queried ? 0 : d->icount + 1;
	d->after_branch = is_branch(insn->iclass);
	if (d->queried)
		d->have_psb_ip = false;
	if (d->queried && d->opts.tick_events && d->q_tsc != d->last_tick) {
		struct qev e;

		new_ev(&e, PK_PT_EV_TICK, B_NOW);
		e.ev.ip = nip;
		e.ev.tsc = d->q_tsc;
		e.ev.has_tsc = 1;
		/* about the branch just done: ahead of read-ahead events */
		if (d->qn < QMAX) {
			d->qh = (d->qh + QMAX - 1) % QMAX;
			d->q[d->qh] = e;
			d->qn++;
		}
		d->last_tick = d->q_tsc;
	}
	return status(d);
}

/* The cached block at IP, built on a miss; NULL if an instruction in it
 * cannot be decoded (the caller then goes one instruction at a time). */
static const struct block_ent *block_at(struct pk_pt_insn_decoder *d,
					uint64_t ip)
{
	struct block_ent *b = &d->bcache[(ip ^ (ip >> d->bcache_bits)) &
					 ((1u << d->bcache_bits) - 1)];
	struct pk_pt_insn in;
	uint64_t at = ip, target = 0;
	uint32_t n = 0;

	if (b->valid && b->ip == ip && b->mode == d->mode)
		return b;
	if (++d->bcache_miss > 4ull << d->bcache_bits &&
	    d->bcache_bits < BCACHE_BITS_MAX) {
		struct block_ent *nb = pk_calloc(2u << d->bcache_bits,
						 sizeof(*nb));

		if (nb) {
			pk_free(d->bcache);
			d->bcache = nb;
			d->bcache_bits++;
		}
		d->bcache_miss = 0;
		b = &d->bcache[(ip ^ (ip >> d->bcache_bits)) &
			       ((1u << d->bcache_bits) - 1)];
	}
	for (;;) {
		if (decode_at(d, at, &in, &target) < 0)
			return NULL;
		n++;
		if (is_branch(in.iclass) || in.iclass == PK_PT_IC_PTWRITE ||
		    in.iclass == PK_PT_IC_MOV_CR3 || n == BLOCK_MAX)
			break;
		at += in.size;
	}
	b->ip = ip;
	b->end_ip = at;
	b->target = target;
	b->ninsn = n;
	b->last_size = in.size;
	b->last_iclass = in.iclass;
	b->mode = d->mode;
	b->absolute = d->absolute;
	b->valid = 1;
	return b;
}

int pk_pt_insn_next_block(struct pk_pt_insn_decoder *d,
			  struct pk_pt_block *blk)
{
	const struct block_ent *b;
	struct pk_pt_insn last;
	uint64_t nip = 0;
	int err;

	if (!d || !blk)
		return PK_ERR_INTERNAL;
	memset(blk, 0, sizeof(*blk));
	blk->ip = d->ip;
	blk->mode = d->mode;
	blk->speculative = d->speculative;
	/* Events pending or about: one instruction at a time. */
	b = d->enabled && !d->qn && !d->nheld && !d->opts.tick_events ?
	    block_at(d, d->ip) : NULL;
	if (!b) {
		struct pk_pt_insn in;

		err = pk_pt_insn_next(d, &in);
		if (in.iclass != PK_PT_IC_ERROR) {
			blk->ninsn = 1;
			blk->end_ip = in.ip;
			blk->end_iclass = in.iclass;
		}
		return err;
	}
	memset(&last, 0, sizeof(last));
	last.ip = b->end_ip;
	last.size = b->last_size;
	last.iclass = b->last_iclass;
	last.mode = b->mode;
	d->absolute = b->absolute;
	d->queried = false;
	blk->ninsn = b->ninsn - 1;
	blk->end_ip = b->end_ip;
	d->touched = false;
	err = proceed(d, &last, b->target, &nip);
	if (err < 0) {
		d->ip = b->end_ip;	/* the failing instruction */
		return err;
	}
	blk->ninsn = b->ninsn;
	blk->end_iclass = b->last_iclass;
	if (err == 1) {
		qat(d, d->qn - 1)->bind = B_NOW;
		d->resume_ip = last.ip + last.size;
		d->have_resume = true;
		return status(d);
	}
	d->ip = nip;
	d->icount = d->queried ? 0 : d->icount + b->ninsn;
	d->after_branch = is_branch(last.iclass);
	/* Nothing new was read and bits remain: the status is unchanged
	 * (no event, not the end). */
	if (!d->touched && !d->qn && (d->tnt_n || !d->queried))
		return 0;
	return status(d);
}

int pk_pt_insn_resync(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p;

	if (!d)
		return PK_ERR_INTERNAL;
	if (d->ctx_err)
		return d->ctx_err;
	if (d->status_err)	/* only a new PSB helps: sync forward */
		return d->status_err;
	d->tnt_n = 0;
	p = peek(d, false);
	if (p && (p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64))
		take(d);
	if (d->have_psb_ip) {	/* the PSB+ read ahead restated the IP */
		d->ip = d->psb_ip;
		d->have_psb_ip = false;
		d->noip = false;
		return 0;
	} else {
		d->noip = d->enabled;
	}
	return status(d);
}
