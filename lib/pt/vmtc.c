/* SPDX-License-Identifier: MIT */
/*
 * perf's VM time correlation (perf inject --vm-time-correlation, perf
 * 6.1's INTEL_PT_STATE_VM_TIME_CORRELATION): a walk of a queue's packets
 * that makes no samples. At each TSC packet the host TSC it should be is
 * known from the MTC/TMA time (ctc.c, perf's CTC model) and the TMA
 * after the TSC; the difference is the packet's TSC Offset. The packet
 * is the host's when the PIP that holds says NR=0 (tracing on, or in its
 * PSB+), a guest's with NR=1, else a guess: in the expected range (from
 * the last reliable host TSC to the buffer's reference) is the host's.
 * A guest's TSC packet gets the offset of its VMCS taken off: the offset
 * given for it, the default one, or the one learnt from a TSC in a PSB+
 * with a PIP (continuous tracing in the same buffer: reliable).
 *
 * State machine of one queue (perf's decoder fields, same names where
 * they help reading): the packet reader skips PADs and, on a packet it
 * cannot read, one byte (perf's bad packet, which also forgets the
 * TMA); look-aheads read on in the current buffer only.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/base.h"
#include "pt/pt_int.h"

#define SEVEN_BYTES ((1ull << 56) - 1)
#define NO_VMCS 0xffffffffffull
#define PEBS_BASIC 4		/* perf's INTEL_PT_PEBS_BASIC block type */
#define BAD_TYPE 0xff		/* a packet perf could not read */

struct vmcs_info {
	uint64_t vmcs, tsc_offset;
	bool reliable, error_printed;
};

struct pk_pt_vmtc {
	struct pk_pt_vmtc_config cfg;
	pk_pt_vmtc_msg_fn msg;
	pk_pt_vmtc_patch_fn patch;
	void *ctx;
	uint64_t dflt;		/* the default TSC Offset */
	struct vmcs_info *tab;
	size_t ntab, captab;
};

/* What a look-ahead from a PSB (its PSB+) or a TSC found, and the MTC
 * state at the time. */
struct tsc_data {
	bool tsc, pip, vmcs, tma, psbend;
	uint8_t pip_nr;
	uint16_t tma_ctc, tma_fc;
	uint64_t vmcs_raw, ctc_delta;
	uint32_t last_ctc;
	int max_lookahead;
};

enum { ONCE_ERANGE = 1, ONCE_UNK_VMCS = 2 };

/* one queue's walk */
struct vq {
	struct pk_pt_vmtc *v;
	const struct pk_pt_vmtc_buf *bufs;
	size_t n, bi;
	struct pk_pt_decoder *dec, *look;
	struct pk_pt_config pcfg;
	struct pk__pt_ptime t;
	struct pk_pt_packet pkt;
	size_t off;			/* of PKT in buffer BI */
	uint8_t type, last_type;	/* pk_pt_type, BAD_TYPE */
	uint64_t last_reliable;		/* the last host TSC (a PIP's) */
	bool in_psb, pge, reliable, same_buf, continuous;
	uint8_t pip_nr;
	uint64_t vmcs;
	uint8_t blk_type;
	bool buf_done;			/* a bad byte ended the buffer */
	unsigned once;
	int err, count;
};

static void say(struct vq *q, const char *fmt, ...) PK_PRINTF(2, 3);
static void say(struct vq *q, const char *fmt, ...)
{
	char line[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (q->v->msg)
		q->v->msg(q->v->ctx, line);
}

static bool once(struct vq *q, unsigned bit)
{
	bool first = !(q->once & bit);

	q->once |= bit;
	return first;
}

/* perf's findnew: VMCS 0 without a default offset is none; a new one
 * takes the default offset (reliable when there is one). */
static struct vmcs_info *findnew(struct pk_pt_vmtc *v, uint64_t vmcs,
				 uint64_t offset)
{
	struct vmcs_info *e;

	for (size_t i = 0; i < v->ntab; i++)
		if (v->tab[i].vmcs == vmcs)
			return &v->tab[i];
	if (!pk__grow((void **)&v->tab, &v->captab, v->ntab, 1, sizeof(*e)))
		return NULL;
	e = &v->tab[v->ntab++];
	memset(e, 0, sizeof(*e));
	e->vmcs = vmcs;
	e->tsc_offset = offset;
	e->reliable = offset != 0;
	return e;
}

static struct vmcs_info *vmcs_info(struct vq *q, uint64_t vmcs)
{
	if (!vmcs && !q->v->dflt)
		return NULL;
	return findnew(q->v, vmcs, q->v->dflt);
}

static bool in_range(const struct vq *q, uint64_t ts)
{
	/* perf 6.1 compares with the buffer's reference itself (its
	 * fallback bound when there is none is computed, not used) */
	return ts >= q->last_reliable && ts < q->t.buf_ts;
}

static int open_buf(struct vq *q, size_t bi)
{
	pk_pt_decoder_free(q->dec);
	pk_pt_decoder_free(q->look);
	q->look = NULL;
	q->bi = bi;
	q->buf_done = false;
	q->dec = pk_pt_decoder_new(q->bufs[bi].data, q->bufs[bi].len,
				   &q->pcfg);
	if (q->dec)
		q->look = pk_pt_decoder_new(q->bufs[bi].data, q->bufs[bi].len,
					    &q->pcfg);
	if (!q->dec || !q->look)
		return -ENOMEM;
	q->t.buf_ts = q->bufs[bi].ref;
	return 0;
}

static size_t pos(const struct vq *q)
{
	uint64_t off = q->bufs[q->bi].len;

	if (!q->buf_done)
		pk_pt_offset(q->dec, &off);
	return (size_t)off;
}

/* The next packet but PADs: 0, 1 at the end of the data (an empty buffer
 * ends it too, as in perf), -EBADMSG for a packet perf cannot read (one
 * byte skipped), -ENOMEM. */
static int next_pkt(struct vq *q)
{
	q->last_type = q->type;
	for (;;) {
		size_t off = pos(q);
		int r;

		if (off >= q->bufs[q->bi].len) {
			if (q->bi + 1 >= q->n || !q->bufs[q->bi + 1].len)
				return 1;
			if ((r = open_buf(q, q->bi + 1)) ||
			    (r = pk_pt_sync_set(q->dec, 0)))
				return r == PK_ERR_EOS ? 1 : r;
			continue;
		}
		r = pk_pt_next(q->dec, &q->pkt);
		q->off = off;
		if (r < 0 || pk__pt_perf_bad(&q->pkt) ||
		    q->pkt.type == PK_PT_INVALID) {
			if (off + 1 >= q->bufs[q->bi].len ||
			    pk_pt_sync_set(q->dec, off + 1))
				q->buf_done = true;
			q->type = BAD_TYPE;
			q->t.have_tma = false;
			return -EBADMSG;
		}
		if (q->pkt.type != PK_PT_PAD) {
			q->type = q->pkt.type;
			return 0;
		}
	}
}

typedef int (*look_fn)(const struct pk_pt_packet *p, struct tsc_data *d);

/* perf's look-ahead: CB on each packet after the current one but PADs,
 * in the current buffer, until it returns non-zero or a packet cannot be
 * read. */
static void lookahead(struct vq *q, look_fn cb, struct tsc_data *d)
{
	struct pk_pt_packet p;

	if (pk_pt_sync_set(q->look, pos(q)))
		return;
	for (;;) {
		int r = pk_pt_next(q->look, &p);

		if (r < 0 || pk__pt_perf_bad(&p) || p.type == PK_PT_INVALID)
			return;
		if (p.type != PK_PT_PAD && cb(&p, d))
			return;
	}
}

/* PSB+: its TSC, TMA, PIP and VMCS up to the PSBEND */
static int psb_cb(const struct pk_pt_packet *p, struct tsc_data *d)
{
	switch (p->type) {
	case PK_PT_MNT: case PK_PT_MODE_EXEC: case PK_PT_MODE_TSX:
	case PK_PT_MTC: case PK_PT_FUP: case PK_PT_CYC: case PK_PT_CBR:
		return 0;
	case PK_PT_TSC:
		d->tsc = true;
		return 0;
	case PK_PT_TMA:
		d->tma = true;
		d->tma_ctc = p->u.tma.ctc;
		d->tma_fc = p->u.tma.fc;
		return 0;
	case PK_PT_PIP:
		d->pip = true;
		d->pip_nr = p->u.pip.nr;
		return 0;
	case PK_PT_VMCS:
		d->vmcs = true;
		d->vmcs_raw = p->u.vmcs.base >> 12;
		return 0;
	case PK_PT_PSBEND:
		d->psbend = true;
		return 1;
	default:
		return 1;
	}
}

/* the TMA after a TSC: past at most 16 MTCs and CYCs */
static int tma_cb(const struct pk_pt_packet *p, struct tsc_data *d)
{
	if (p->type == PK_PT_CYC || p->type == PK_PT_MTC)
		return !--d->max_lookahead;
	if (p->type == PK_PT_TMA) {
		d->tma = true;
		d->tma_ctc = p->u.tma.ctc;
		d->tma_fc = p->u.tma.fc;
	}
	return 1;
}

/* after an OVF: a FUP before anything but 16 timing packets */
static int ovf_cb(const struct pk_pt_packet *p, struct tsc_data *d)
{
	if (p->type == PK_PT_CYC || p->type == PK_PT_MTC ||
	    p->type == PK_PT_TSC)
		return !--d->max_lookahead;
	d->pip = p->type == PK_PT_FUP;	/* (found) */
	return 1;
}

static void data_init(struct vq *q, struct tsc_data *d)
{
	memset(d, 0, sizeof(*d));
	d->ctc_delta = q->t.ctc_delta;
	d->last_ctc = q->t.last_ctc;
}

static void vm_psb(struct vq *q, struct tsc_data *d)
{
	data_init(q, d);
	lookahead(q, psb_cb, d);
	if (d->tsc && !d->psbend)
		say(q, "ERROR: PSB without PSBEND");
	q->in_psb = d->psbend;
}

static void put(struct vq *q, size_t off, uint64_t val, unsigned n)
{
	uint8_t b[8];

	if (q->v->cfg.dry_run || q->err || !q->v->patch)
		return;
	if (off + n > q->bufs[q->bi].len)
		n = (unsigned)(q->bufs[q->bi].len - off);
	for (unsigned i = 0; i < n; i++)
		b[i] = (uint8_t)(val >> 8 * i);
	q->err = q->v->patch(q->v->ctx, q->bi, off, b, n);
}

/* VMX added the offset: the host's TSC has it taken off (7 bytes) */
static void translate(struct vq *q, uint64_t offset)
{
	q->pkt.u.tsc.tsc = (q->pkt.u.tsc.tsc - offset) & SEVEN_BYTES;
	put(q, q->off + 1, q->pkt.u.tsc.tsc, 7);
	q->count++;
}

static void first_tsc(struct vq *q, const struct tsc_data *d,
		      struct vmcs_info *vi, uint64_t host_tsc)
{
	if (!q->in_psb)
		say(q, "ERROR: First TSC is not in PSB+");
	if (d->pip && d->pip_nr) {		/* a guest's */
		if (vi && vi->tsc_offset) {
			translate(q, vi->tsc_offset);
			q->reliable = true;
		} else {
			say(q, "ERROR: First TSC, unknown TSC Offset");
		}
	} else if (d->pip) {			/* the host's */
		q->reliable = true;
	} else {				/* a guess */
		q->reliable = false;
		if (in_range(q, host_tsc))
			return;
		if (vi && vi->tsc_offset)
			translate(q, vi->tsc_offset);
		else
			say(q, "ERROR: First TSC, no PIP, unknown TSC Offset");
	}
}

/* A guest's TSC (or one guessed so) of TSC_OFFSET from the expected:
 * the VMCS's offset learnt when the TSC is a PSB+'s with a PIP in the
 * same buffer, then used. RELIABLE: the guess was not one. */
static void guest_tsc(struct vq *q, const struct tsc_data *d,
		      struct vmcs_info *vi, uint64_t tsc_offset, bool reliable)
{
	bool assign = false, assign_reliable = false;

	if (vi && vi->vmcs && !(vi->tsc_offset && vi->reliable) &&
	    q->in_psb && d->pip && q->same_buf) {
		assign = true;
		/* continuous tracing: a PSB's TSC is no time lost */
		assign_reliable = q->reliable && q->continuous;
	}
	if (assign && (vi->tsc_offset != tsc_offset ||
		       vi->reliable != assign_reliable)) {
		bool changed = vi->tsc_offset != tsc_offset;

		vi->tsc_offset = tsc_offset;
		vi->reliable = assign_reliable;
		if (changed)
			say(q, "VMCS: %#" PRIx64 "  TSC Offset %#" PRIx64,
			    vi->vmcs, vi->tsc_offset);
	}
	if (vi && vi->tsc_offset) {
		if (!vi->reliable)
			reliable = false;
		translate(q, vi->tsc_offset);
	} else {
		reliable = false;
		if (vi && !vi->error_printed) {
			say(q, "ERROR: Unknown TSC Offset for VMCS %#" PRIx64,
			    vi->vmcs);
			vi->error_printed = true;
		} else if (!vi && once(q, ONCE_UNK_VMCS)) {
			say(q, "ERROR: Unknown VMCS");
		}
		translate(q, tsc_offset);
	}
	q->reliable = reliable;
}

static void vm_tsc(struct vq *q, struct tsc_data *d)
{
	struct vmcs_info *vi;
	uint64_t vmcs, ref, host_tsc, expected, tsc_offset;

	if (!q->in_psb) {	/* (in a PSB+ its look-ahead's data) */
		data_init(q, d);
		d->max_lookahead = 16;
		lookahead(q, tma_cb, d);
		if (q->pge) {
			d->pip = true;
			d->pip_nr = q->pip_nr;
		}
	}
	if (!d->tma) {
		say(q, "ERROR: TSC without TMA");
		return;
	}
	vmcs = d->vmcs ? d->vmcs_raw : q->vmcs;
	if (vmcs == NO_VMCS)
		vmcs = 0;
	vi = vmcs_info(q, vmcs);
	ref = q->t.ts ? q->t.ts : q->t.buf_ts;
	host_tsc = pk__pt_8b_tsc(q->pkt.u.tsc.tsc, ref);
	if (!q->t.ctc_ts) {
		first_tsc(q, d, vi, host_tsc);
		return;
	}
	expected = pk__pt_ptime_expected(&q->t, d->tma_ctc, d->tma_fc,
					 d->ctc_delta, d->last_ctc);
	tsc_offset = host_tsc - expected;
	if (d->pip) {
		if (!d->pip_nr) {		/* the host's */
			q->last_reliable = host_tsc;
			q->reliable = true;
			return;
		}
		if (!vi) {	/* NR=1 without VMCS: cannot happen */
			say(q, "ERROR: Missing VMCS");
			translate(q, tsc_offset);
			q->reliable = false;
			return;
		}
		guest_tsc(q, d, vi, tsc_offset, true);
		return;
	}
	/* no PIP: a guess */
	if (q->in_psb) {
		if (!tsc_offset)
			return;		/* no offset: the host's */
		/* the VMCS's offset (7 bytes: the guest's 8th is unknown) */
		if (vi && (tsc_offset & SEVEN_BYTES) ==
			  (vi->tsc_offset & SEVEN_BYTES)) {
			guest_tsc(q, d, vi, tsc_offset, false);
			return;
		}
	}
	if (host_tsc >= expected && in_range(q, host_tsc)) {
		q->reliable = false;	/* where the host's would be */
		return;
	}
	guest_tsc(q, d, vi, tsc_offset, false);
}

/* A PEBS record's TSC (BIP 2 of a basic block): the guest's translated
 * with its VMCS's offset, all 8 bytes. */
static void pebs_tsc(struct vq *q)
{
	uint64_t guest = q->pkt.u.bip.value, host = guest, vmcs = q->vmcs;
	struct vmcs_info *vi;

	if (vmcs == NO_VMCS)
		vmcs = 0;
	vi = vmcs_info(q, vmcs);
	if (q->pge) {
		if (!q->pip_nr)
			return;
		if (!vi)
			say(q, "ERROR: Missing VMCS");
	} else if (in_range(q, host)) {
		return;
	}
	if (vi) {
		host = ((guest & SEVEN_BYTES) - vi->tsc_offset) & SEVEN_BYTES;
		host = pk__pt_8b_tsc(host, q->t.ts);
		if (!in_range(q, host) && once(q, ONCE_ERANGE))
			say(q, "Timestamp out of range");
	} else {
		if (once(q, ONCE_UNK_VMCS))
			say(q, "ERROR: Unknown VMCS");
		host = q->t.ts;
	}
	q->pkt.u.bip.value = host;
	put(q, q->off + 1, host, 8);
}

static void on_tsc(struct vq *q, struct tsc_data *d)
{
	bool checked = !q->t.ref_ts && q->t.ts, bad;

	vm_tsc(q, d);
	bad = pk__pt_ptime_tsc(&q->t, q->pkt.u.tsc.tsc,
			       q->last_type == PK_PT_CYC);
	if (checked && (bad || !in_range(q, q->t.ts)) &&
	    once(q, ONCE_ERANGE))
		say(q, "Timestamp out of range");
	q->same_buf = true;
	q->continuous = q->pge;
}

/* perf's intel_pt_vm_time_correlation: to the end of the data (1) or a
 * packet it cannot read (-EBADMSG) */
static int walk(struct vq *q)
{
	struct tsc_data d = { .psbend = false };
	int err;

	if (q->in_psb)
		vm_psb(q, &d);
	while (!(err = next_pkt(q)) && !q->err) {
		const struct pk_pt_packet *p = &q->pkt;

		switch (q->type) {
		case PK_PT_TIP_PGD:
			q->pge = false;
			q->continuous = false;
			break;
		case PK_PT_TNT_8: case PK_PT_TNT_64: case PK_PT_TIP:
		case PK_PT_TIP_PGE:
			q->pge = true;
			break;
		case PK_PT_OVF: {
			struct tsc_data o = { .max_lookahead = 16 };

			q->in_psb = false;
			lookahead(q, ovf_cb, &o);
			q->pge = o.pip;
			if (!q->pge)
				q->continuous = false;
			break;
		}
		case PK_PT_FUP:
			if (q->in_psb)
				q->pge = true;
			break;
		case PK_PT_STOP:
			q->pge = false;
			q->continuous = false;
			q->t.have_tma = false;
			break;
		case PK_PT_PSB:
			vm_psb(q, &d);
			break;
		case PK_PT_PIP:
			q->pip_nr = p->u.pip.nr;
			break;
		case PK_PT_MTC:
			pk__pt_ptime_mtc(&q->t, p->u.mtc.ctc,
					 q->last_type == PK_PT_CYC);
			break;
		case PK_PT_TSC:
			on_tsc(q, &d);
			break;
		case PK_PT_TMA:
			pk__pt_ptime_tma(&q->t, p->u.tma.ctc, p->u.tma.fc);
			break;
		case PK_PT_CYC:
			pk__pt_ptime_cyc(&q->t, p->u.cyc.value);
			break;
		case PK_PT_CBR:
			pk__pt_ptime_cbr(&q->t, p->u.cbr.ratio);
			break;
		case PK_PT_PSBEND:
			q->in_psb = false;
			d.psbend = false;
			break;
		case PK_PT_VMCS:
			if (p->u.vmcs.base >> 12 != NO_VMCS)
				q->vmcs = p->u.vmcs.base >> 12;
			break;
		case PK_PT_BBP:
			q->blk_type = p->u.bbp.type;
			break;
		case PK_PT_BIP:
			if (q->blk_type == PEBS_BASIC && p->u.bip.id == 2)
				pebs_tsc(q);
			break;
		case PK_PT_BEP:
			q->blk_type = 0;
			break;
		default:
			break;
		}
	}
	return q->err ? q->err : err;
}

/* perf's sync: the first PSB of the data, its time reset to 1 with the
 * first buffer's reference for the first TSC's 8th byte. 0, 1: none. */
static int sync_first(struct vq *q)
{
	int r;

	for (size_t bi = 0; bi < q->n; bi++) {
		if (!q->bufs[bi].len)
			return 1;
		if ((r = open_buf(q, bi)))
			return r;
		if (!bi)
			q->t.ref_ts = q->bufs[0].ref;
		if (pk_pt_sync_forward(q->dec))
			continue;
		if ((r = next_pkt(q)) < 0 && r != -EBADMSG)
			return r;
		if (r)
			return r == 1 ? 1 : 0;
		q->in_psb = true;
		if (!q->t.ts)
			q->t.ts = 1;
		return 0;
	}
	return 1;
}

int pk_pt_vmtc_queue(struct pk_pt_vmtc *v, const struct pk_pt_vmtc_buf *bufs,
		     size_t n)
{
	struct vq *q;
	int err;

	if (!v || (n && !bufs))
		return -EINVAL;
	q = pk__zalloc(sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->v = v;
	q->bufs = bufs;
	q->n = n;
	q->pcfg.sz = sizeof(q->pcfg);
	q->pcfg.perf_packets = 1;
	q->pcfg.no_trig = 1;
	pk__pt_ptime_init(&q->t, v->cfg.tsc_ctc_n, v->cfg.tsc_ctc_d,
			  v->cfg.mtc_shift, v->cfg.max_non_turbo_ratio);
	err = n ? sync_first(q) : 1;
	while (!err) {
		err = walk(q);
		if (err == -EBADMSG)	/* perf goes on after the bad byte */
			err = 0;
	}
	if (err == 1)
		err = q->count;
	pk_pt_decoder_free(q->dec);
	pk_pt_decoder_free(q->look);
	pk__free(q);
	return err;
}

struct pk_pt_vmtc *pk_pt_vmtc_new(const struct pk_pt_vmtc_config *cfg,
				  pk_pt_vmtc_msg_fn msg,
				  pk_pt_vmtc_patch_fn patch, void *ctx)
{
	struct pk_pt_vmtc *v;

	if (!cfg || !PK_OPTS_VALID(cfg, pk_pt_vmtc_config) ||
	    cfg->mtc_shift > 15) {
		errno = EINVAL;
		return NULL;
	}
	v = pk__zalloc(sizeof(*v));
	if (!v)
		return NULL;
	memcpy(&v->cfg, cfg, PK_MIN(cfg->sz, sizeof(v->cfg)));
	v->cfg.sz = sizeof(v->cfg);
	v->msg = msg;
	v->patch = patch;
	v->ctx = ctx;
	return v;
}

void pk_pt_vmtc_free(struct pk_pt_vmtc *v)
{
	if (!v)
		return;
	pk__free(v->tab);
	pk__free(v);
}

/* strtoull base 0 as perf reads the numbers; -EINVAL when no digit */
static int number(const char **p, uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(*p, &end, 0);
	if (errno)
		return -errno;
	if (end == *p)
		return -EINVAL;
	*p = end;
	return 0;
}

static const char *skip(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

int pk_pt_vmtc_parse(struct pk_pt_vmtc *v, const char *args)
{
	const char *p = args;
	uint64_t offset, vmcs;
	int err;

	if (!v || !args)
		return -EINVAL;
	for (;;) {
		p = skip(p);
		if (!*p)
			return 0;
		if ((err = number(&p, &offset)))
			return err;
		p = skip(p);
		if (*p != ':') {
			v->dflt = offset;
			continue;
		}
		p++;
		for (;;) {
			/* perf: strtoull's 0 for no number, refused as a
			 * VMCS of 0 */
			if ((err = number(&p, &vmcs)) && err != -EINVAL)
				return err;
			if (err || !vmcs)
				return -EINVAL;
			if (!findnew(v, vmcs, offset))
				return -ENOMEM;
			p = skip(p);
			if (*p != ',')
				break;
			p++;
		}
	}
}
