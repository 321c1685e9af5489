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
#include "pt/flow_int.h"

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
	d = pk__zalloc(sizeof(*d));
	if (!d)
		goto nomem;
	d->cache_bits = d->bcache_bits = CACHE_BITS_MIN;
	d->blk_pos = -1;
	d->cache = pk__calloc(1u << d->cache_bits, sizeof(*d->cache));
	d->bcache = pk__calloc(1u << d->bcache_bits, sizeof(*d->bcache));
	d->pkt = pk_pt_decoder_new(buf, len, config);
	d->scan = pk_pt_decoder_new(buf, len, config);
	if (!d->cache || !d->bcache || !d->pkt || !d->scan ||
	    pk__pt_sb_init(d) < 0)
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
	pk__free(d->cache);
	pk__free(d->bcache);
	pk__free(d->blk);
	pk__pt_sb_fini(d);
	pk__free(d);
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

int pk_pt_insn_next_ip(const struct pk_pt_insn_decoder *d, uint64_t *ip)
{
	if (!d || !ip)
		return PK_ERR_INTERNAL;
	if (!d->enabled || d->noip)
		return PK_ERR_NOSYNC;
	*ip = d->ip;
	return 0;
}

int pk_pt_insn_set_image(struct pk_pt_insn_decoder *d,
			 const struct pk_pt_image *img)
{
	if (!d || !img)
		return PK_ERR_INTERNAL;
	if (img == d->img)
		return 0;
	d->img = img;
	/* what was decoded from the old code is forgotten */
	memset(d->cache, 0, ((size_t)1 << d->cache_bits) * sizeof(*d->cache));
	memset(d->bcache, 0, ((size_t)1 << d->bcache_bits) * sizeof(*d->bcache));
	pk__pt_sb_clear(d);
	return 0;
}

static struct cache_ent *grow_cache(struct pk_pt_insn_decoder *d,
				    uint64_t ip);

int pk_pt_insn_at(struct pk_pt_insn_decoder *d, uint64_t ip,
		  enum pk_pt_exec_mode mode, struct pk_pt_insn *insn)
{
	struct cache_ent *c;
	uint64_t target;
	int err;

	if (!d || !insn)
		return PK_ERR_INTERNAL;
	c = &d->cache[(ip ^ (ip >> d->cache_bits)) &
		      ((1u << d->cache_bits) - 1)];
	if (c->valid && c->ip == ip && c->mode == mode) {
		insn->ip = ip;
		insn->size = c->size;
		insn->iclass = c->iclass;
		insn->mode = c->mode;
		insn->speculative = 0;
		return 0;
	}
	/* misses count as the walk's do: with superblocks the walk decodes
	 * little, and callers stepping through blocks need the room */
	if (++d->cache_miss > 4ull << d->cache_bits &&
	    d->cache_bits < CACHE_BITS_MAX)
		c = grow_cache(d, ip);
	err = pk_pt_insn_decode(d->img, ip, mode, insn, &target);
	if (err < 0)
		return err;
	/* kept as the walk keeps what it decodes */
	c->absolute = insn->size == 11 && insn->raw[0] == 0xd5;
	c->ip = ip;
	c->target = target;
	c->size = insn->size;
	c->iclass = insn->iclass;
	c->mode = (uint8_t)mode;
	c->valid = 1;
	return 0;
}

int pk_pt_insn_work(const struct pk_pt_insn_decoder *d, uint64_t *packets,
		    uint64_t *insns)
{
	if (!d || !packets || !insns)
		return PK_ERR_INTERNAL;
	*packets = pk_pt_packets_read(d->pkt) + pk_pt_packets_read(d->scan);
	*insns = d->walked;
	return 0;
}

int pk_pt_insn_tnt_left(const struct pk_pt_insn_decoder *d)
{
	return d ? (int)d->tnt_n : PK_ERR_INTERNAL;
}

int pk_pt_insn_time(const struct pk_pt_insn_decoder *d, uint64_t *tsc)
{
	if (!d || !tsc)
		return PK_ERR_INTERNAL;
	if (d->q_tsc) {		/* as of the packet that led here */
		*tsc = d->q_tsc;
		return 0;
	}
	return pk_pt_time_query(&d->time, tsc);
}

static int status(struct pk_pt_insn_decoder *d);

/* Applies timing packet P to copies T/C of the decoder's time. */
static void time_apply(const struct pk_pt_insn_decoder *d, struct pk_pt_time *t,
		       struct pk_pt_tcal *c, const struct pk_pt_packet *p)
{
	pk__pt_timing(t, c, &d->cfg, p, false);
}

/* Packets perf's decoder reads on while in sync without walking code. */
static bool passive(uint8_t type)
{
	switch (type) {
	case PK_PT_TSC: case PK_PT_MTC: case PK_PT_CYC: case PK_PT_TMA:
	case PK_PT_CBR: case PK_PT_PAD: case PK_PT_PIP: case PK_PT_MODE_EXEC:
	case PK_PT_VMCS: case PK_PT_MNT:
		return true;
	default:
		return false;
	}
}

int pk__pt_fl_resync_full_ip(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p;

	if (!d)
		return PK_ERR_INTERNAL;
	d->sb_left = 0;
	/* perf fails the fetch while taking the packet that has it walk
	 * code: that packet is gone (a FUP's TIP is still met) */
	if (d->qn && pk__pt_fl_qat(d, 0)->bind == B_IP &&
	    (pk__pt_fl_qat(d, 0)->ev.type == PK_PT_EV_ASYNC_BRANCH ||
	     pk__pt_fl_qat(d, 0)->ev.type == PK_PT_EV_ASYNC_DISABLED)) {
		struct qev *e = pk__pt_fl_qat(d, 0);

		if (e->ev.type == PK_PT_EV_ASYNC_BRANCH) {
			d->ip = e->ev.ip;
			d->noip = false;
			d->took_tip = true;
			d->tip_tsc = e->ev.has_tsc ? e->ev.tsc : 0;
		} else {
			d->enabled = false;
			d->noip = false;
		}
		d->qh = (d->qh + 1) % QMAX;
		d->qn--;
		d->tnt_n = 0;
		d->resynced = false;
		return status(d);
	}
	if (!d->tnt_n) {
		p = pk__pt_fl_peek(d, false);
		if (p && (p->type == PK_PT_TIP || p->type == PK_PT_TIP_PGD))
			pk__pt_fl_take(d);
	}
	d->full_ip = true;
	return pk_pt_insn_resync(d);
}

bool pk__pt_fl_took_tip(struct pk_pt_insn_decoder *d, uint64_t *ip,
			uint64_t *tsc)
{
	if (!d->took_tip)
		return false;
	d->took_tip = false;
	*ip = d->ip;
	*tsc = d->tip_tsc;
	return true;
}

uint64_t pk__pt_fl_ev_fup_time(const struct pk_pt_insn_decoder *d)
{
	return d->ev_fup_tsc;
}

int pk__pt_fl_time_ahead(struct pk_pt_insn_decoder *d, uint64_t *tsc)
{
	struct pk_pt_time t = d->time;
	struct pk_pt_tcal c = d->tcal;
	struct pk_pt_packet p;
	uint64_t off;

	if (d->have_next) {
		if (!passive(d->next.type))
			return pk_pt_time_query(&t, tsc);
		time_apply(d, &t, &c, &d->next);
	}
	if (pk_pt_offset(d->pkt, &off) >= 0 && pk_pt_sync_set(d->scan, off) >= 0)
		while (pk_pt_next(d->scan, &p) > 0 && passive(p.type))
			time_apply(d, &t, &c, &p);
	return pk_pt_time_query(&t, tsc);
}

/* ---- queries ---- */

static int query_tnt(struct pk_pt_insn_decoder *d, bool *taken)
{
	while (!d->tnt_n) {
		const struct pk_pt_packet *p = pk__pt_fl_peek(d, false);

		if (!p)
			return d->next_err == PK_ERR_EOS ? PK_ERR_EOS
							 : d->next_err;
		if (p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64) {
			d->tnt = p->u.tnt.payload;
			d->tnt_n = p->u.tnt.bits;
			pk_pt_time_query(&d->time, &d->tnt_tsc);
			pk__pt_fl_take(d);
			break;
		}
		if (d->opts.perf_binding &&
		    (p->type == PK_PT_TIP || p->type == PK_PT_TIP_PGD)) {
			/* perf's walk for it fails at the conditional
			 * branch: the packet is gone (intel_pt_walk_tip) */
			pk__pt_fl_take(d);
			return PK_PT_ERR_BAD_QUERY;
		}
		if (p->type == PK_PT_TIP || p->type == PK_PT_TIP_PGD ||
		    p->type == PK_PT_FUP || p->type == PK_PT_TIP_PGE ||
		    p->type == PK_PT_PSB || p->type == PK_PT_OVF)
			return PK_PT_ERR_BAD_QUERY;
		if (d->ctx_err)	/* its packet stays: it would spin */
			return d->ctx_err;
		pk__pt_fl_read_event(d);
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
	p = pk__pt_fl_peek(d, false);
	return p && (p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64);
}

static int query_tip(struct pk_pt_insn_decoder *d, uint64_t *ip)
{
	bool bound;

	for (;;) {
		const struct pk_pt_packet *p = pk__pt_fl_peek(d, false);

		if (!p)
			return d->next_err;
		if (p->type == PK_PT_TIP) {
			if (!d->next_ip_ok || !p->u.ip.ipc) {
				pk__pt_fl_take(d);
				return PK_PT_ERR_BAD_QUERY;
			}
			*ip = d->next_ip;
			pk__pt_fl_take(d);
			bound = pk__pt_fl_bind_waiting(d, B_TIP, *ip, false);
			d->queried = true;
			pk_pt_time_query(&d->time, &d->q_tsc);
			/* libipt reads a TNT right behind a TIP (not past a
			 * MODE.Exec bound to its target: that comes first) */
			p = pk__pt_fl_peek(d, false);
			if (p && !d->tnt_n && !bound &&
			    (p->type == PK_PT_TNT_8 ||
			     p->type == PK_PT_TNT_64)) {
				d->tnt = p->u.tnt.payload;
				d->tnt_n = p->u.tnt.bits;
				pk_pt_time_query(&d->time, &d->tnt_tsc);
				pk__pt_fl_take(d);
			}
			return 0;
		}
		if ((p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64) &&
		    d->tnt_n + p->u.tnt.bits <= 64) {
			/* a TIP deferred behind TNT for later branches */
			d->tnt = d->tnt << p->u.tnt.bits | p->u.tnt.payload;
			d->tnt_n += p->u.tnt.bits;
			pk_pt_time_query(&d->time, &d->tnt_tsc);
			pk__pt_fl_take(d);
			continue;
		}
		if (p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64 ||
		    p->type == PK_PT_FUP || p->type == PK_PT_PSB ||
		    p->type == PK_PT_OVF || p->type == PK_PT_TIP_PGE)
			return PK_PT_ERR_BAD_QUERY;
		if (d->ctx_err)
			return d->ctx_err;
		pk__pt_fl_read_event(d);
		if (d->qn && pk__pt_fl_qat(d, d->qn - 1)->bind == B_INSN &&
		    pk__pt_fl_qat(d, d->qn - 1)->ev.type == PK_PT_EV_DISABLED)
			return 1;	/* the branch left the traced region */
	}
}

/* ---- instructions ---- */

/* Doubles the instruction cache (emptied); returns IP's slot. */
static struct cache_ent *grow_cache(struct pk_pt_insn_decoder *d,
				    uint64_t ip)
{
	struct cache_ent *n = pk__calloc(2u << d->cache_bits, sizeof(*n));

	if (n) {
		pk__free(d->cache);
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

/* VMPTRLD (0f c7 /6, memory operand, no 66/f3 prefix; REX allowed). */
static bool is_vmptrld(const struct pk_pt_insn *insn)
{
	const uint8_t *b = insn->raw;

	if ((b[0] & 0xf0) == 0x40)
		b++;
	return b[0] == 0x0f && b[1] == 0xc7 && ((b[2] >> 3) & 7) == 6 &&
	       (b[2] >> 6) != 3;
}

/* Does the PIP, VMCS or PTWRITE event E (without IP) bind to INSN? A
 * PIP to a CR3 write or far branch (VM entries included), a VMCS to a
 * far branch or VMPTRLD, a PTWRITE to a PTWRITE. */
static bool binds_to(const struct qev *e, const struct pk_pt_insn *insn)
{
	switch (e->ev.type) {
	case PK_PT_EV_PTWRITE:	/* (with IP: the instruction there) */
		return e->ev.ip_suppressed ? insn->iclass == PK_PT_IC_PTWRITE :
					     insn->ip == e->bind_ip;
	case PK_PT_EV_VMCS:
		return is_far(insn->iclass) || is_vmptrld(insn);
	default:
		return insn->iclass == PK_PT_IC_MOV_CR3 ||
		       is_far(insn->iclass);
	}
}

static void push_ret(struct pk_pt_insn_decoder *d, uint64_t ip)
{
	pk__pt_fl_push_ret(d, ip);
}

/* perf_binding: at a FUP perf's decoder walks to its IP through the
 * instructions that need no packet (intel_pt_walk_fup): a branch that
 * needs one met first (at IP, no TNT bits left from before the FUP) is
 * its mismatch error there. The FUP is taken: its events are gone (a
 * MODE.Exec's mode stays), its TIP.PGD is a trace end, its TIP's IP is
 * where the resync goes on (the walk_to_ip after the error reads the packets after
 * the FUP). True then. */
static bool fup_missed(struct pk_pt_insn_decoder *d, uint64_t ip)
{
	unsigned keep = 0;
	uint64_t at;

	if (!d->opts.perf_binding || d->tnt_n || !d->qn || !d->enabled ||
	    d->noip || pk__pt_fl_qat(d, 0)->bind != B_IP ||
	    pk__pt_fl_qat(d, 0)->bind_ip == ip)
		return false;
	at = pk__pt_fl_qat(d, 0)->bind_ip;
	for (unsigned i = 0, n = d->qn; i < n; i++) {
		struct qev e = *pk__pt_fl_qat(d, i);

		if (e.bind == B_IP && e.bind_ip == at) {
			if (e.ev.type == PK_PT_EV_ASYNC_BRANCH) {
				d->miss_tip = !e.ev.ip_suppressed;
				d->miss_ip = e.ev.ip;
				d->miss_tsc = e.ev.has_tsc ? e.ev.tsc : 0;
				continue;
			}
			if (e.ev.type == PK_PT_EV_ASYNC_DISABLED)
				e.ev.type = PK_PT_EV_DISABLED;
			else if (e.ev.type == PK_PT_EV_EXEC_MODE)
				e.ev.ip_suppressed = 1;
			else	/* (perf's samples of them come at the FUP) */
				continue;
			e.bind = B_NOW;
		}
		*pk__pt_fl_qat(d, keep++) = e;
	}
	d->qn = keep;
	return true;
}

/* Where the flow goes after INSN; sets *DISABLED when a TIP.PGD ends it. */
static int proceed(struct pk_pt_insn_decoder *d, const struct pk_pt_insn *insn,
		   uint64_t target, uint64_t *nip)
{
	uint64_t next = insn->ip + insn->size, ret = 0;
	bool taken, perf = d->opts.perf_binding;
	int err;

	/* perf's decoder moves its stack before it asks the trace
	 * (intel_pt_walk_insn): every return pops (libipt's compressed
	 * ones only), also where the trace then fails */
	if (perf && insn->iclass == PK_PT_IC_RETURN && d->rs_n) {
		ret = d->rs[d->rs_top];
		d->rs_top = (d->rs_top + RSMAX - 1) % RSMAX;
		d->rs_n--;
	}
	if (perf && insn->iclass == PK_PT_IC_CALL_IND)
		push_ret(d, next);
	if (insn->iclass != PK_PT_IC_JUMP && insn->iclass != PK_PT_IC_CALL &&
	    is_branch(insn->iclass) && fup_missed(d, insn->ip))
		return PK_PT_ERR_FUP_MISSED;
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
		if (!tnt_ahead(d))
			return query_tip(d, nip);
		err = query_tnt(d, &taken);
		if (err < 0)
			return err;
		if (!taken)
			return PK_PT_ERR_BAD_RETCOMP;
		if (perf) {
			*nip = ret;
			return ret ? 0 : PK_PT_ERR_RETSTACK;
		}
		if (!d->rs_n)
			return PK_PT_ERR_RETSTACK;
		*nip = d->rs[d->rs_top];
		d->rs_top = (d->rs_top + RSMAX - 1) % RSMAX;
		d->rs_n--;
		return 0;
	case PK_PT_IC_CALL_IND:
		if (!perf)
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
	struct qev *e = pk__pt_fl_qat(d, 0);
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
	for (unsigned i = 0; i < d->qn && pk__pt_fl_qat(d, i)->bind == B_IP &&
			     pk__pt_fl_qat(d, i)->bind_ip == at; i++)
		pk__pt_fl_qat(d, i)->bind_ip = d->ip;
}

/* After an error: read on until a packet gives the flow an IP. */
static void noip_advance(struct pk_pt_insn_decoder *d)
{
	while (d->noip) {
		const struct pk_pt_packet *p;

		pk__pt_fl_fill(d);
		if (d->qn)
			return;
		p = pk__pt_fl_peek(d, false);
		if (!p)
			return;
		if (p->type == PK_PT_TIP) {
			if (d->next_ip_ok && p->u.ip.ipc &&
			    (!d->full_ip || p->u.ip.ipc == PK_PT_IPC_SEXT_48 ||
			     p->u.ip.ipc == PK_PT_IPC_FULL)) {
				d->ip = d->next_ip;
				d->noip = false;
				d->full_ip = false;
				d->took_tip = true;
				/* (perf's time there: the packets after
				 * it are read on below) */
				if (pk_pt_time_query(&d->time, &d->tip_tsc))
					d->tip_tsc = 0;
			}
			pk__pt_fl_take(d);
			p = pk__pt_fl_peek(d, false);	/* as after any TIP */
			if (!d->noip && p && (p->type == PK_PT_TNT_8 ||
					      p->type == PK_PT_TNT_64)) {
				d->tnt = p->u.tnt.payload;
				d->tnt_n = p->u.tnt.bits;
				pk__pt_fl_take(d);
			}
		} else if (p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64) {
			/* bits of branches we could not follow */
			pk__pt_fl_take(d);
		} else if (d->full_ip && pk__pt_fl_partial_ip(p)) {
			/* perf, its last IP forgotten, reads no IP there
			 * (the enable state alone) */
			if (p->type != PK_PT_FUP)
				d->enabled = p->type == PK_PT_TIP_PGE;
			pk__pt_fl_take(d);
		} else {
			pk__pt_fl_read_event(d);
		}
	}
}

/* After a failed fetch perf forgets its last IP: a trace enable whose
 * IP is compressed gives none, tracing is on with the flow still lost
 * (true: such an enable was next, taken so). */
static bool enable_without_ip(struct pk_pt_insn_decoder *d)
{
	struct qev *e;

	if (!d->qn || !d->full_ip)
		return false;
	e = pk__pt_fl_qat(d, 0);
	if (e->ev.type != PK_PT_EV_ENABLED || !e->partial_ip ||
	    e->bind != B_NOW)
		return false;
	d->qh = (d->qh + 1) % QMAX;
	d->qn--;
	d->enabled = true;
	d->noip = true;
	return true;
}

static int status(struct pk_pt_insn_decoder *d)
{
	do {	/* (each time again: one event fewer) */
		noip_advance(d);
		pk__pt_fl_fill(d);
	} while (enable_without_ip(d));
	if (d->qn && pk__pt_fl_qat(d, 0)->bind == B_IP && d->enabled &&
	    pk__pt_fl_qat(d, 0)->bind_ip == d->ip && d->cfg.errata.skd022 &&
	    pk__pt_fl_qat(d, 0)->ev.type == PK_PT_EV_ASYNC_DISABLED)
		skd022(d, pk__pt_fl_qat(d, 0));
	if (d->after_branch && d->cfg.errata.bdm64 && d->speculative &&
	    d->qn && pk__pt_fl_qat(d, 0)->bind == B_IP) {
		d->after_branch = false;
		bdm64(d);
	}
	if (!d->have_next && d->next_err == PK_ERR_EOS && d->nheld)
		/* the trace ended before their partners */
		pk__pt_fl_flush_held(d);
	if (d->qn) {
		struct qev *e = pk__pt_fl_qat(d, 0);

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
	    !d->nheld && !d->psb_cut)	/* (its error first) */
		return PK_PT_STS_EOS |
		       (d->enabled ? 0 : PK_PT_STS_IP_SUPPRESSED);
	return 0;
}

int pk_pt_insn_sync_forward(struct pk_pt_insn_decoder *d)
{
	int err;

	if (!d)
		return PK_ERR_INTERNAL;
	d->sb_left = 0;
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
	d->psb_cut = false;
	d->psb_walk = false;
	d->noip = false;
	d->full_ip = false;
	d->took_tip = false;
	d->miss_tip = false;
	d->have_psb_ip = false;
	d->have_cr2 = d->have_vmxq = d->have_vmxr = 0;
	d->nevd = 0;
	d->cfe_waiting = 0;
	d->iflag = 0xff;	/* unknown until a MODE.Exec */
	d->synced = false;
	d->enabled = false;
	d->next_err = 0;
	pk__pt_fl_walk_reset(d);
	memset(&d->lip, 0, sizeof(d->lip));
	if (!pk__pt_fl_peek(d, true) || d->next.type != PK_PT_PSB)
		return PK_ERR_NOSYNC;
	pk__pt_fl_psb_plus(d);
	return status(d);
}

int pk_pt_insn_event(struct pk_pt_insn_decoder *d, struct pk_pt_event *ev)
{
	struct qev *e;

	if (!d || !ev)
		return PK_ERR_INTERNAL;
	d->sb_left = 0;
	if (!(status(d) & PK_PT_STS_EVENT))
		return PK_PT_ERR_BAD_QUERY;
	e = pk__pt_fl_qat(d, 0);
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
	d->ev_fup_tsc = e->fup_tsc;
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
		/* (perf's state at a FUP after a MODE.Exec is a change of
		 * the flag even when it stays) */
		if (((ev->u.exec_mode.iflag != d->iflag &&
		      d->opts.iflags_events == 1) ||
		     (ev->u.exec_mode.fup && d->opts.perf_binding)) &&
		    d->opts.iflags_events && d->qn < QMAX) {
			struct qev f = { .bind = B_NOW, .ev = *ev };

			f.ev.type = PK_PT_EV_IFLAGS;
			f.ev.status_update = 0;
			f.ev.u.iflags.iflag = ev->u.exec_mode.iflag;
			f.ev.u.iflags.fup = ev->u.exec_mode.fup;
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

/*
 * A walk that reads no packet (direct jumps and calls, other instructions)
 * follows the code alone: once it meets an address again with no event
 * waiting, it would go round forever while the trace waits for a query
 * (damaged or inconsistent input; perf's "Never-ending loop"). Brent's
 * check: the address at the last power of two of the walk's length
 * against each later one. After a packet read (QUERIED) the walk starts
 * over. True: the walk at IP has looped.
 */
/* Every queued event waits for what a walk that comes round again
 * without reading a packet never gives: a packet (its FUP, TIP, EXSTOP),
 * an instruction of a kind (met on the first round if at all: it is then
 * bound, B_NOW), or an IP other than this one. Events held for their
 * partners wait for packets too. */
static bool waits_for_ip(struct pk_pt_insn_decoder *d)
{
	for (unsigned i = 0; i < d->qn; i++) {
		const struct qev *e = pk__pt_fl_qat(d, i);

		switch (e->bind) {
		case B_FUP: case B_TIP: case B_EXSTOP: case B_INSN:
			continue;
		case B_IP:	/* (at its IP it is delivered next: no loop) */
			if (e->bind_ip != d->ip)
				continue;
			return false;
		default:	/* now, or after a count of instructions */
			return false;
		}
	}
	return true;
}

static inline bool looped(struct pk_pt_insn_decoder *d, bool queried,
			  uint64_t n)
{
	d->walked += n;		/* (pk_pt_insn_work) */
	if (queried || d->lib_off != d->walk_off ||
	    (d->qn && !waits_for_ip(d))) {
		/* (a packet taken while walking, as the event queue fills,
		 * may bind what waits: the walk starts over) */
		d->walk_off = d->lib_off;
		pk__pt_fl_walk_reset(d);
		return false;
	}
	if (d->walk_lim && d->ip == d->walk_ip)
		return true;
	d->walk_n += n;
	if (d->walk_n >= d->walk_lim) {
		d->walk_ip = d->ip;
		d->walk_lim = d->walk_lim ? 2 * d->walk_lim : 64;
	}
	return false;
}

int pk_pt_insn_next(struct pk_pt_insn_decoder *d, struct pk_pt_insn *insn)
{
	uint64_t target = 0, nip = 0;
	uint32_t bound = 0;
	int err;

	if (!d || !insn)
		return PK_ERR_INTERNAL;
	d->sb_left = 0;
	memset(insn, 0, sizeof(*insn));
	insn->ip = d->ip;
	if (d->status_err)
		return d->status_err;
	if (d->psb_cut)
		return PK_PT_ERR_BAD_STATUS;
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
	pk__pt_fl_fill(d);
	for (unsigned i = 0; i < d->qn || (bound && pk__pt_fl_fill_side(d));
	     i++) {
		struct qev *e = pk__pt_fl_qat(d, i);

		if (e->bind != B_INSN)
			continue;
		if (e->ev.type == PK_PT_EV_DISABLED) {
			if (d->opts.perf_binding && !d->tnt_n && i == 0 &&
			    insn->iclass == PK_PT_IC_COND_JUMP) {
				/* perf's walk to the TIP.PGD fails at a
				 * conditional branch, the packet taken
				 * (intel_pt_walk_tip, no address filter) */
				d->qh = (d->qh + 1) % QMAX;
				d->qn--;
				return PK_PT_ERR_BAD_QUERY;
			}
			if (!pgd_binds(d, e, insn, target))
				break;
			e->bind = B_NOW;
			e->ev.at = insn->ip;
			d->resume_ip = insn->ip + insn->size;
			d->have_resume = true;
			return status(d);
		}
		/* one event of each kind binds to an instruction */
		if (!binds_to(e, insn) || (bound & 1u << e->ev.type))
			break;
		bound |= 1u << e->ev.type;
		e->bind = B_NOW;	/* and the next may bind here too */
	}
	d->queried = false;
	err = proceed(d, insn, target, &nip);
	if (err < 0)
		return err;
	if (err == 1) {	/* TIP.PGD: the branch left the traced region */
		pk__pt_fl_qat(d, d->qn - 1)->bind = B_NOW;
		d->resume_ip = insn->ip + insn->size;
		d->have_resume = true;
		return status(d);
	}
	d->ip = nip;
	d->icount = d->queried ? 0 : d->icount + 1;
	d->after_branch = is_branch(insn->iclass);
	if (looped(d, d->queried, 1))
		return PK_PT_ERR_LOOP;
	if (d->queried)
		d->have_psb_ip = false;
	if (d->queried && d->opts.tick_events && d->q_tsc != d->last_tick) {
		struct qev e;

		pk__pt_fl_new_ev(&e, PK_PT_EV_TICK, B_NOW);
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
const struct block_ent *pk__pt_fl_block_at(struct pk_pt_insn_decoder *d,
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
		struct block_ent *nb = pk__calloc(2u << d->bcache_bits,
						 sizeof(*nb));

		if (nb) {
			pk__free(d->bcache);
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

/* The common block ends without touching packets: a conditional branch
 * or compressed return with TNT bits cached, a direct jump or call.
 * Returns true when done (the status is then unchanged: 0). */
static inline bool fast_step(struct pk_pt_insn_decoder *d,
			     const struct block_ent *b, struct pk_pt_block *blk)
{
	uint64_t next = b->end_ip + b->last_size, nip;
	bool q = false;

	if (d->qn)
		return false;
	switch (b->last_iclass) {
	case PK_PT_IC_COND_JUMP:
		if (d->tnt_n < 2)	/* the last bit may end the stream */
			return false;
		d->tnt_n--;
		nip = (d->tnt >> d->tnt_n) & 1 ? b->target : next;
		q = true;
		break;
	case PK_PT_IC_RETURN:
		if (d->tnt_n < 2 || !d->rs_n ||
		    !((d->tnt >> (d->tnt_n - 1)) & 1))
			return false;
		d->tnt_n--;
		nip = d->rs[d->rs_top];
		d->rs_top = (d->rs_top + RSMAX - 1) % RSMAX;
		d->rs_n--;
		q = true;
		break;
	case PK_PT_IC_JUMP:
		nip = b->target;
		break;
	case PK_PT_IC_CALL:
		if (b->target != next)
			push_ret(d, next);
		nip = b->target;
		break;
	default:
		return false;
	}
	blk->ninsn = b->ninsn;
	blk->end_ip = b->end_ip;
	blk->end_iclass = b->last_iclass;
	blk->end_size = b->last_size;
	d->ip = nip;
	d->absolute = b->absolute;
	d->after_branch = true;
	if (q) {
		d->icount = 0;
		d->have_psb_ip = false;
		d->queried = true;
		d->q_tsc = d->tnt_tsc;
	} else {
		d->icount += b->ninsn;
		d->queried = false;
	}
	return true;
}

int pk__pt_fl_status(struct pk_pt_insn_decoder *d)
{
	return status(d);
}

int pk__pt_fl_extend(struct pk_pt_insn_decoder *d, const uint8_t *buf,
		     size_t len)
{
	int err = pk__pt_extend(d->pkt, buf, len);

	if (!err)
		err = pk__pt_extend(d->scan, buf, len);
	if (err)
		return err;
	d->buf = buf;
	d->len = len;
	if (d->next_err == PK_ERR_EOS)
		d->next_err = 0;	/* (the next peek reads on) */
	return 0;
}

/* A block the per-block way (the block cache, a fast step where no
 * packet is read, else its last instruction's queries). */
int pk__pt_fl_next_block(struct pk_pt_insn_decoder *d, struct pk_pt_block *blk)
{
	const struct block_ent *b;
	struct pk_pt_insn last;
	uint64_t nip = 0;
	int err;

	blk->ip = d->ip;
	blk->end_ip = d->ip;
	blk->ninsn = 0;
	blk->end_iclass = PK_PT_IC_ERROR;
	blk->end_size = 0;
	blk->mode = d->mode;
	blk->speculative = d->speculative;
	/* Events pending or about: one instruction at a time. */
	b = d->enabled && !d->qn && !d->nheld && !d->opts.tick_events &&
	    !d->psb_cut && !d->psb_walk ?
	    pk__pt_fl_block_at(d, d->ip) : NULL;
	if (!b) {
		struct pk_pt_insn in;

		err = pk_pt_insn_next(d, &in);
		if (in.iclass != PK_PT_IC_ERROR) {
			blk->ninsn = 1;
			blk->end_ip = in.ip;
			blk->end_iclass = in.iclass;
			blk->end_size = in.size;
		}
		return err;
	}
	if (fast_step(d, b, blk))
		return looped(d, d->queried, blk->ninsn) ? PK_PT_ERR_LOOP : 0;
	memset(&last, 0, sizeof(last));
	last.ip = b->end_ip;
	last.size = b->last_size;
	last.iclass = b->last_iclass;
	last.mode = b->mode;
	d->absolute = b->absolute;
	d->queried = false;
	blk->ninsn = b->ninsn - 1;
	blk->end_ip = b->end_ip;
	blk->end_size = b->last_size;
	d->touched = false;
	err = proceed(d, &last, b->target, &nip);
	if (err < 0) {
		/* the last instruction's flow failed: counted as
		 * pk_pt_insn_next() gives it (decoded, then the error) */
		d->ip = b->end_ip;
		blk->ninsn = b->ninsn;
		blk->end_iclass = b->last_iclass;
		return err;
	}
	blk->ninsn = b->ninsn;
	blk->end_iclass = b->last_iclass;
	if (err == 1) {
		pk__pt_fl_qat(d, d->qn - 1)->bind = B_NOW;
		d->resume_ip = last.ip + last.size;
		d->have_resume = true;
		return status(d);
	}
	d->ip = nip;
	d->icount = d->queried ? 0 : d->icount + b->ninsn;
	d->after_branch = is_branch(last.iclass);
	if (looped(d, d->queried, b->ninsn))
		return PK_PT_ERR_LOOP;
	/* Nothing new was read and bits remain: the status is unchanged
	 * (no event, not the end). */
	if (!d->touched && !d->qn && (d->tnt_n || !d->queried))
		return 0;
	return status(d);
}

/* An error again where the last resync's was (or before it): nothing
 * moved, so the same error would come back forever; only a later PSB
 * helps. Strictly forward: each call passes one more PSB. */
static int resync_past(struct pk_pt_insn_decoder *d)
{
	int err = pk__pt_sync_past(d->pkt);

	if (err < 0)
		return err;
	d->have_next = false;
	return pk_pt_insn_sync_forward(d);
}

int pk_pt_insn_resync(struct pk_pt_insn_decoder *d)
{
	const struct pk_pt_packet *p;
	uint64_t off = 0;

	if (!d)
		return PK_ERR_INTERNAL;
	d->sb_left = 0;
	pk_pt_insn_offset(d, &off);
	if (d->resynced && off <= d->resync_off)
		return resync_past(d);
	d->resynced = true;
	d->resync_off = off;
	if (d->ctx_err)
		return d->ctx_err;
	if (d->status_err)	/* only a new PSB helps: sync forward */
		return d->status_err;
	if (d->psb_walk) {	/* perf: on at the PSB+'s FUP */
		pk__pt_fl_psb_resync(d);
		return status(d);
	}
	if (d->psb_cut) {	/* perf: on at the next packet with an IP */
		d->psb_cut = false;
		d->tnt_n = 0;
		d->noip = true;
		return status(d);
	}
	if (d->miss_tip) {	/* the TIP of a FUP missed (fup_missed) */
		d->miss_tip = false;
		d->ip = d->miss_ip;
		d->noip = false;
		d->took_tip = true;
		d->tip_tsc = d->miss_tsc;
		return status(d);
	}
	d->tnt_n = 0;
	p = pk__pt_fl_peek(d, false);
	if (p && (p->type == PK_PT_TNT_8 || p->type == PK_PT_TNT_64))
		pk__pt_fl_take(d);
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

int pk__pt_fl_sync_at(struct pk_pt_insn_decoder *d, uint64_t offset)
{
	int err;

	if (!d)
		return PK_ERR_INTERNAL;
	err = pk_pt_sync_set(d->pkt, offset);
	if (err < 0)
		return err;
	d->have_next = false;
	d->synced = false;
	/* the PSB read: pk_pt_insn_sync_forward takes it up from there */
	if (!pk__pt_fl_peek(d, true) || d->next.type != PK_PT_PSB)
		return PK_ERR_NOSYNC;
	return pk_pt_insn_sync_forward(d);
}
