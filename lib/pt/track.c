/* SPDX-License-Identifier: MIT */
/*
 * Intel PT tracking beside the packet decoder: error names, cpu errata,
 * last-IP decompression, and time (TSC estimate from TSC/TMA/MTC/CYC and
 * cycle calibration), following libipt's documented behaviour so that
 * ptdump-compatible output comes out the same.
 */
#include "base/base.h"
#include "pt/pt_int.h"
#include <perfkit/pt_insn.h>

const char *pk_pt_strerror(int err)
{
	switch (err) {
	case PK_PT_ERR_BAD_OPC:       return "unknown opcode";
	case PK_PT_ERR_BAD_PACKET:    return "unknown packet";
	case PK_PT_ERR_CONTEXT:       return "unexpected packet context";
	case PK_PT_ERR_NO_TIME:       return "no timing information";
	case PK_PT_ERR_BAD_CONFIG:    return "bad configuration";
	case PK_PT_ERR_BAD_CPU:       return "unknown cpu";
	case PK_PT_ERR_NO_IP:         return "no ip";
	case PK_PT_ERR_IP_SUPPRESSED: return "ip has been suppressed";
	case PK_ERR_EOS:              return "reached end of trace stream";
	case PK_PT_ERR_NOMAP:        return "no memory mapped at this address";
	case PK_PT_ERR_BAD_INSN:     return "unknown instruction";
	case PK_PT_ERR_BAD_QUERY:    return "trace stream does not match query";
	case PK_PT_ERR_NO_ENABLE:    return "expected tracing enabled event";
	case PK_PT_ERR_RETSTACK:     return "compressed return without call";
	case PK_PT_ERR_BAD_RETCOMP:  return "bad compressed return";
	case PK_PT_ERR_BAD_STATUS:   return "bad status update";
	case PK_PT_ERR_LOOP:         return "never-ending loop";
	case PK_PT_ERR_FUP_MISSED:   return "fup not reached before a branch";
	case PK_ERR_NOSYNC:           return "decoder out of sync";
	case PK_ERR_INTERNAL:         return "internal error";
	default:                      return pk_strerror(err);
	}
}

/* ---- errata ---- */

int pk_pt_cpu_errata(struct pk_pt_errata *e, unsigned family, unsigned model)
{
	static const uint8_t bdw[] = { 0x3d, 0x47, 0x4f, 0x56 };
	static const uint8_t skl[] = { 0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6 };
	static const uint8_t skx[] = { 0x55, 0x6a, 0x6c, 0x8f, 0xad, 0xae,
				       0xcf };
	static const uint8_t icl[] = { 0x66, 0x7d, 0x7e, 0x8c, 0x8d, 0xa7,
				       0xa8 };
	static const uint8_t adl[] = { 0x97, 0x9a, 0xbf, 0xb7, 0xb5, 0xaa,
				       0xac, 0xba, 0xcc, 0xbd, 0xc5, 0xc6 };
	static const uint8_t apl[] = { 0x5c, 0x5f };
	static const uint8_t glm[] = { 0x7a, 0x86, 0x96, 0x9c, 0xb6, 0xaf,
				       0xdd };
#define IN(list) (memchr(list, (int)model, sizeof(list)) != NULL)

	if (!e)
		return PK_ERR_INTERNAL;
	memset(e, 0, sizeof(*e));
	if (family == 0x13 && model == 0x01) {
		e->bdm70 = e->skl014 = e->skd022 = e->skz84 = 1;
		return 0;
	}
	if (family != 6 || model > 0xff)
		return PK_PT_ERR_BAD_CPU;
	if (IN(bdw)) {
		e->bdm70 = e->bdm64 = 1;
	} else if (IN(skl)) {
		e->bdm70 = e->skd007 = e->skd022 = e->skd010 = 1;
		e->skl014 = e->skl168 = 1;
	} else if (IN(skx)) {
		e->bdm70 = e->skl014 = e->skd022 = e->skz84 = 1;
	} else if (IN(icl)) {
		e->bdm70 = e->skl014 = e->skd022 = 1;
	} else if (IN(adl)) {
		e->bdm70 = e->skl014 = e->skd022 = e->apl11 = 1;
	} else if (IN(apl)) {
		e->apl12 = e->apl11 = 1;
	} else if (IN(glm)) {
		e->apl11 = 1;
	} else {
		return PK_PT_ERR_BAD_CPU;
	}
	return 0;
#undef IN
}

/* ---- last IP ---- */

int pk_pt_last_ip_update(struct pk_pt_last_ip *l, uint8_t ipc, uint64_t ip)
{
	if (!l)
		return PK_ERR_INTERNAL;
	switch (ipc) {
	case PK_PT_IPC_SUPPRESSED:
		l->suppressed = 1;
		return 0;
	case PK_PT_IPC_UPDATE_16:
		l->ip = (l->ip & ~0xffffull) | (ip & 0xffff);
		break;
	case PK_PT_IPC_UPDATE_32:
		l->ip = (l->ip & ~0xffffffffull) | (ip & 0xffffffffull);
		break;
	case PK_PT_IPC_SEXT_48:
		l->ip = pk_pt_sext48(ip);
		break;
	case PK_PT_IPC_UPDATE_48:
		l->ip = (l->ip & ~0xffffffffffffull) | (ip & 0xffffffffffffull);
		break;
	case PK_PT_IPC_FULL:
		l->ip = ip;
		break;
	default:
		return PK_PT_ERR_BAD_PACKET;
	}
	l->have_ip = 1;
	l->suppressed = 0;
	return 0;
}

int pk_pt_last_ip_query(const struct pk_pt_last_ip *l, uint64_t *ip)
{
	if (!l || !ip)
		return PK_ERR_INTERNAL;
	if (!l->have_ip) {
		*ip = 0;
		return PK_PT_ERR_NO_IP;
	}
	if (l->suppressed) {
		*ip = 0;
		return PK_PT_ERR_IP_SUPPRESSED;
	}
	*ip = l->ip;
	return 0;
}

/* ---- time ---- */

enum { MTC_BITS = 8, TMA_CTC_BITS = 16, FCR_SHR = 8, TSC_BITS = 56 };

static uint8_t cfg_mtc_freq(const struct pk_pt_config *cfg)
{
	return cfg ? cfg->mtc_freq : 0;
}

/* CTC distance LAST -> CTC, allowing one wrap of the MTC-visible bits. */
static int ctc_delta(uint32_t *delta, uint32_t ctc, uint32_t last,
		     const struct pk_pt_config *cfg)
{
	if (ctc < last) {
		ctc += 1u << (cfg_mtc_freq(cfg) + MTC_BITS);
		if (ctc < last)
			return PK_PT_ERR_BAD_PACKET;
	}
	*delta = ctc - last;
	return 0;
}

/* CTC ticks -> TSC ticks via CPUID 0x15 (EBX/EAX). */
static int ctc_to_tsc(uint64_t *tsc, uint64_t ctc,
		      const struct pk_pt_config *cfg)
{
	if (!cfg || !cfg->cpuid_0x15_eax || !cfg->cpuid_0x15_ebx)
		return PK_PT_ERR_BAD_CONFIG;
	*tsc = ctc * cfg->cpuid_0x15_ebx / cfg->cpuid_0x15_eax;
	return 0;
}

void pk_pt_time_init(struct pk_pt_time *t)
{
	if (t)
		memset(t, 0, sizeof(*t));
}

int pk_pt_time_query(const struct pk_pt_time *t, uint64_t *tsc)
{
	if (!t || !tsc)
		return PK_ERR_INTERNAL;
	*tsc = t->tsc;
	return t->have_tsc ? 0 : PK_PT_ERR_NO_TIME;
}

int pk_pt_time_tsc(struct pk_pt_time *t, uint64_t tsc)
{
	if (!t)
		return PK_ERR_INTERNAL;
	t->have_tsc = 1;
	t->have_tma = t->have_mtc = 0;
	t->tsc = t->base = tsc;
	t->ctc = 0;
	t->fc = 0;
	t->lost_mtc = t->lost_cyc = 0;
	return 0;
}

int pk_pt_time_cbr(struct pk_pt_time *t, uint8_t ratio)
{
	if (!t)
		return PK_ERR_INTERNAL;
	if (!ratio)
		return PK_PT_ERR_BAD_PACKET;
	t->have_cbr = 1;
	t->cbr = ratio;
	return 0;
}

int pk_pt_time_tma(struct pk_pt_time *t, uint16_t ctc, uint16_t fc,
		   const struct pk_pt_config *cfg)
{
	unsigned hi = cfg_mtc_freq(cfg) + MTC_BITS;

	if (!t)
		return PK_ERR_INTERNAL;
	if (!t->have_tsc || t->have_tma)
		return PK_PT_ERR_CONTEXT;
	if (t->have_mtc)
		return PK_ERR_INTERNAL;
	t->have_tma = 1;
	t->base -= fc;
	t->fc += fc;
	/* A TMA holding every CTC bit an MTC covers serves as an MTC. */
	if (hi <= TMA_CTC_BITS)
		t->have_mtc = 1;
	t->ctc = t->ctc_cyc = ctc & (uint32_t)((1ull << hi) - 1);
	return 0;
}

int pk_pt_time_mtc(struct pk_pt_time *t, uint8_t mtc,
		   const struct pk_pt_config *cfg)
{
	unsigned freq = cfg_mtc_freq(cfg);
	uint32_t last, ctc, delta;
	uint64_t tsc;
	int have_mtc, err;

	if (!t)
		return PK_ERR_INTERNAL;
	/* MTCs between a TSC and its TMA would look like CTC overflows. */
	if (t->have_tsc && !t->have_tma)
		return 0;
	have_mtc = t->have_mtc;
	last = t->ctc;
	ctc = (uint32_t)mtc << freq;
	if (t->fc || t->lost_cyc || !have_mtc)
		t->ctc_cyc = ctc;
	t->have_mtc = 1;
	t->fc = 0;
	t->ctc = ctc;
	t->lost_cyc = 0;
	if (!have_mtc) {
		uint32_t lo, hi;

		/* Without a TMA the first MTC only sets the reference. */
		if (!t->have_tma)
			return 0;
		if (last & ~0xffffu)
			return PK_ERR_INTERNAL;
		/* Estimate the CTC bits above the TMA's 16 from this MTC. */
		lo = ctc & 0xffffu;
		hi = ctc & ~0xffffu;
		if (lo < last) {
			hi -= 1u << TMA_CTC_BITS;
			hi &= 0xffu << freq;
		}
		last |= hi;
	}
	err = ctc_delta(&delta, ctc, last, cfg);
	if (err < 0) {
		t->lost_mtc++;
		return err;
	}
	err = ctc_to_tsc(&tsc, delta, cfg);
	if (err < 0)
		return err;
	t->base += tsc;
	t->tsc = t->base;
	return 0;
}

/* A CYC spanning earlier MTC periods: drop the cycles those periods are
 * estimated to hold. */
static int adjust_cyc(uint64_t *cyc, const struct pk_pt_time *t,
		      const struct pk_pt_config *cfg, uint64_t fcr)
{
	uint32_t delta;
	uint64_t fc, old;
	int err;

	if (t->ctc == t->ctc_cyc)
		return 0;
	err = ctc_delta(&delta, t->ctc, t->ctc_cyc, cfg);
	if (err < 0)
		return err;
	err = ctc_to_tsc(&fc, delta, cfg);
	if (err < 0)
		return err;
	old = (fc << FCR_SHR) / fcr;
	*cyc = *cyc < old ? 0 : *cyc - old;
	return 0;
}

int pk_pt_time_cyc(struct pk_pt_time *t, uint64_t cyc,
		   const struct pk_pt_config *cfg, uint64_t fcr)
{
	uint64_t fc;

	if (!t)
		return PK_ERR_INTERNAL;
	if (!fcr) {
		t->lost_cyc++;
		return 0;
	}
	fc = t->fc;
	if (!fc) {
		int err = adjust_cyc(&cyc, t, cfg, fcr);

		if (err < 0)
			return err;
	}
	fc += (cyc * fcr) >> FCR_SHR;
	t->fc = fc;
	t->tsc = t->base + fc;
	return 0;
}

/* ---- calibration ---- */

void pk_pt_tcal_init(struct pk_pt_tcal *c)
{
	if (!c)
		return;
	memset(c, 0, sizeof(*c));
	c->min_fcr = UINT64_MAX;
}

static bool have_fcr(const struct pk_pt_tcal *c)
{
	return c->min_fcr <= c->max_fcr;
}

int pk_pt_tcal_fcr(const struct pk_pt_tcal *c, uint64_t *fcr)
{
	if (!c || !fcr)
		return PK_ERR_INTERNAL;
	if (!have_fcr(c))
		return PK_PT_ERR_NO_TIME;
	*fcr = c->fcr;
	return 0;
}

static void set_fcr(struct pk_pt_tcal *c, uint64_t fcr)
{
	c->fcr = fcr;
	c->min_fcr = PK_MIN(c->min_fcr, fcr);
	c->max_fcr = PK_MAX(c->max_fcr, fcr);
}

int pk_pt_tcal_psb(struct pk_pt_tcal *c, const struct pk_pt_config *cfg)
{
	if (!c)
		return PK_ERR_INTERNAL;
	if (cfg && cfg->errata.skl168)
		c->check_skl168 = 1;
	return 0;
}

int pk_pt_tcal_tsc(struct pk_pt_tcal *c, uint64_t tsc, int header)
{
	uint64_t last, cyc, delta;

	if (!c)
		return PK_ERR_INTERNAL;
	last = c->tsc;
	cyc = c->cyc_tsc;
	c->tsc = tsc;
	c->cyc_tsc = 0;
	/* Outside PSB+ a TSC may follow lost time: no calibration there. */
	if (!header || !last || !cyc || c->have_mtc)
		return 0;
	if (tsc < last) {
		tsc += 1ull << TSC_BITS;
		if (tsc < last)
			return PK_PT_ERR_BAD_PACKET;
	}
	delta = tsc - last;
	if (delta >> (64 - FCR_SHR))
		return PK_ERR_INTERNAL;
	set_fcr(c, (delta << FCR_SHR) / cyc);
	return 0;
}

int pk_pt_tcal_cbr(struct pk_pt_tcal *c, uint8_t ratio, int header,
		   const struct pk_pt_config *cfg)
{
	if (!c)
		return PK_ERR_INTERNAL;
	/* Outside PSB+ a CBR is a frequency change: start over. */
	if (!header)
		pk_pt_tcal_init(c);
	if (!cfg || !cfg->nom_freq)
		return 0;
	if (!ratio)
		return PK_PT_ERR_BAD_PACKET;
	set_fcr(c, ((uint64_t)cfg->nom_freq << FCR_SHR) / ratio);
	return 0;
}

/* SKL168 (CYC lost right before a PSB): should this first MTC after a
 * PSB be left out of calibration? */
static bool skl168_skip(const struct pk_pt_tcal *c, uint32_t delta,
			uint64_t fc, uint64_t cyc, unsigned freq)
{
	if ((1u << freq) < delta)
		return true;
	if (freq < 10 && have_fcr(c)) {
		uint64_t dfc = (c->fcr * (cyc + 0xf00)) >> FCR_SHR;

		if (dfc < fc)
			return true;
	}
	return false;
}

int pk_pt_tcal_mtc(struct pk_pt_tcal *c, uint8_t mtc,
		   const struct pk_pt_config *cfg)
{
	unsigned freq = cfg_mtc_freq(cfg);
	uint32_t last, ctc, delta;
	uint64_t cyc, fc, fcr;
	bool check;
	int err;

	if (!c)
		return PK_ERR_INTERNAL;
	last = c->ctc;
	cyc = c->cyc_mtc;
	check = c->check_skl168;
	c->check_skl168 = 0;
	ctc = (uint32_t)mtc << freq;
	if (!c->have_mtc) {
		c->cyc_mtc = 0;
		c->ctc = ctc;
		c->have_mtc = 1;
		return 0;
	}
	/* No cycles yet: spread them over the combined period later. */
	if (!cyc)
		return 0;
	c->cyc_mtc = 0;
	c->ctc = ctc;
	c->lost_mtc++;
	err = ctc_delta(&delta, ctc, last, cfg);
	if (err < 0)
		return err;
	err = ctc_to_tsc(&fc, delta, cfg);
	if (err < 0)
		return err;
	if (fc >> (64 - FCR_SHR))
		return PK_ERR_INTERNAL;
	fcr = (fc << FCR_SHR) / cyc;
	if (check && skl168_skip(c, delta, fc, cyc, freq))
		return 0;
	set_fcr(c, fcr);
	c->lost_mtc = 0;
	return 0;
}

int pk_pt_tcal_cyc(struct pk_pt_tcal *c, uint64_t cyc)
{
	if (!c)
		return PK_ERR_INTERNAL;
	c->cyc_mtc += cyc;
	c->cyc_tsc += cyc;
	return 0;
}

int pk_pt_tcal_ovf(struct pk_pt_tcal *c)
{
	if (!c)
		return PK_ERR_INTERNAL;
	c->tsc = 0;
	c->cyc_tsc = 0;
	c->cyc_mtc = 0;
	c->ctc = 0;
	c->have_mtc = 0;
	return 0;
}

void pk__pt_timing(struct pk_pt_time *t, struct pk_pt_tcal *c,
		   const struct pk_pt_config *cfg, const struct pk_pt_packet *p,
		   bool header)
{
	uint64_t fcr = 0;

	switch (p->type) {
	case PK_PT_TSC:
		pk_pt_tcal_tsc(c, p->u.tsc.tsc, header);
		pk_pt_time_tsc(t, p->u.tsc.tsc);
		break;
	case PK_PT_CBR:
		pk_pt_tcal_cbr(c, p->u.cbr.ratio, header, cfg);
		pk_pt_time_cbr(t, p->u.cbr.ratio);
		break;
	case PK_PT_TMA:
		pk_pt_time_tma(t, p->u.tma.ctc, p->u.tma.fc, cfg);
		break;
	case PK_PT_MTC:
		pk_pt_tcal_mtc(c, p->u.mtc.ctc, cfg);
		pk_pt_time_mtc(t, p->u.mtc.ctc, cfg);
		break;
	case PK_PT_CYC:
		if (pk_pt_tcal_fcr(c, &fcr) < 0)
			fcr = 0;
		pk_pt_tcal_cyc(c, p->u.cyc.value);
		pk_pt_time_cyc(t, p->u.cyc.value, cfg, fcr);
		break;
	default:
		break;
	}
}
