/* SPDX-License-Identifier: MIT */
/*
 * Intel PT packet decoder: first-byte table dispatch, no allocation per
 * packet. Behaviour follows Intel's libipt (what ptdump prints), with
 * perf's BBP/BIP/BEP as an option.
 */
#include <endian.h>
#include <errno.h>
#include "base/base.h"
#include "pt/pt_int.h"

struct pk_pt_decoder {
	const uint8_t *begin, *end;
	const uint8_t *pos;	/* NULL until synchronised */
	const uint8_t *sync;
	struct pk_pt_config cfg;
	uint8_t bip_ctx;	/* perf: 0, or BIP payload size 4/8 */
	uint64_t npackets;	/* packets decoded, each read counted */
};

/* What the first byte (and for 0x02 the second) says. */
enum kind {
	K_BAD, K_PAD, K_EXT, K_CYC, K_TNT8, K_TIP, K_PGE, K_PGD, K_FUP,
	K_TSC, K_MTC, K_MODE, K_TRIG,
};
enum ext_kind {
	E_BAD, E_PSB, E_PSBEND, E_OVF, E_STOP, E_TNT64, E_PIP, E_CBR, E_TMA,
	E_VMCS, E_EXT2, E_EXSTOP, E_MWAIT, E_PWRE, E_PWRX, E_PTW, E_CFE,
	E_EVD, E_BBP, E_BEP,
};

static uint8_t opc_kind[256];
static uint8_t ext_kind[256];

__attribute__((constructor)) static void pt_tables_init(void)
{
	for (int b = 0; b < 256; b++) {
		uint8_t k = K_BAD;

		if (b == PT_OPC_PAD)
			k = K_PAD;
		else if (b == PT_OPC_EXT)
			k = K_EXT;
		else if ((b & 3) == 3)
			k = K_CYC;
		else if (!(b & 1))
			k = K_TNT8;
		else if ((b & 0x1f) == PT_OPC_FUP)
			k = K_FUP;
		else if ((b & 0x1f) == PT_OPC_TIP)
			k = K_TIP;
		else if ((b & 0x1f) == PT_OPC_PGE)
			k = K_PGE;
		else if ((b & 0x1f) == PT_OPC_PGD)
			k = K_PGD;
		else if (b == PT_OPC_TSC)
			k = K_TSC;
		else if (b == PT_OPC_MTC)
			k = K_MTC;
		else if (b == PT_OPC_MODE)
			k = K_MODE;
		else if (b == PT_OPC_TRIG)
			k = K_TRIG;
		opc_kind[b] = k;
		ext_kind[b] = (b & 0x1f) == PT_EXT_PTW ? E_PTW : E_BAD;
	}
	ext_kind[PT_EXT_PSB] = E_PSB;
	ext_kind[PT_EXT_PSBEND] = E_PSBEND;
	ext_kind[PT_EXT_OVF] = E_OVF;
	ext_kind[PT_EXT_STOP] = E_STOP;
	ext_kind[PT_EXT_TNT64] = E_TNT64;
	ext_kind[PT_EXT_PIP] = E_PIP;
	ext_kind[PT_EXT_CBR] = E_CBR;
	ext_kind[PT_EXT_TMA] = E_TMA;
	ext_kind[PT_EXT_VMCS] = E_VMCS;
	ext_kind[PT_EXT_EXT2] = E_EXT2;
	ext_kind[PT_EXT_EXSTOP] = E_EXSTOP;
	ext_kind[PT_EXT_EXSTOP_IP] = E_EXSTOP;
	ext_kind[PT_EXT_MWAIT] = E_MWAIT;
	ext_kind[PT_EXT_PWRE] = E_PWRE;
	ext_kind[PT_EXT_PWRX] = E_PWRX;
	ext_kind[PT_EXT_CFE] = E_CFE;
	ext_kind[PT_EXT_EVD] = E_EVD;
	ext_kind[PT_EXT_BBP] = E_BBP;
	ext_kind[PT_EXT_BEP] = E_BEP;
	ext_kind[PT_EXT_BEP_IP] = E_BEP;
}

struct pk_pt_decoder *pk_pt_decoder_new(const uint8_t *buf, size_t len,
					const struct pk_pt_config *config)
{
	struct pk_pt_decoder *d;

	if ((!buf && len) || !PK_OPTS_VALID(config, pk_pt_config)) {
		errno = EINVAL;
		return NULL;
	}
	d = pk__zalloc(sizeof(*d));
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	if (!opc_kind[PT_OPC_EXT])
		pt_tables_init();
	d->begin = buf ? buf : (const uint8_t *)"";
	d->end = d->begin + len;
	if (config)
		memcpy(&d->cfg, config, PK_MIN(config->sz, sizeof(d->cfg)));
	d->cfg.sz = sizeof(d->cfg);
	return d;
}

void pk_pt_decoder_free(struct pk_pt_decoder *dec)
{
	pk__free(dec);
}

int pk_pt_offset(const struct pk_pt_decoder *dec, uint64_t *offset)
{
	if (!dec || !offset)
		return PK_ERR_INTERNAL;
	if (!dec->pos)
		return PK_ERR_NOSYNC;
	*offset = (uint64_t)(dec->pos - dec->begin);
	return 0;
}

int pk_pt_sync_offset(const struct pk_pt_decoder *dec, uint64_t *offset)
{
	if (!dec || !offset)
		return PK_ERR_INTERNAL;
	if (!dec->sync)
		return PK_ERR_NOSYNC;
	*offset = (uint64_t)(dec->sync - dec->begin);
	return 0;
}

/* ---- PSB search ---- */

static bool is_psb(const uint8_t *p, const uint8_t *end)
{
	if (end - p < PT_PSB_SIZE)
		return false;
	for (int i = 0; i < PT_PSB_SIZE; i += 2)
		if (p[i] != PT_OPC_EXT || p[i + 1] != PT_EXT_PSB)
			return false;
	return true;
}

/* An 8-byte word entirely of the PSB pattern (either phase)? */
static bool psb_word(const uint8_t *p)
{
	uint64_t v = pt_le(p, 8);

	return v == 0x8202820282028202ull || v == 0x0282028202820282ull;
}

/* From a word inside a PSB's pattern run: the PSB that ends the run, or
 * NULL. Anchoring on the end copes with stray 02 82 pairs before it. */
static const uint8_t *psb_from_word(const struct pk_pt_decoder *d,
				    const uint8_t *p)
{
	if (*p != PT_OPC_EXT)
		p++;
	while (d->end - p >= 2 && p[0] == PT_OPC_EXT && p[1] == PT_EXT_PSB)
		p += 2;
	if (p - d->begin < PT_PSB_SIZE)
		return NULL;
	p -= PT_PSB_SIZE;
	return is_psb(p, d->end) ? p : NULL;
}

/* First PSB starting at or after SCAN, found through aligned words. */
static const uint8_t *psb_forward(const struct pk_pt_decoder *d,
				  const uint8_t *scan)
{
	size_t off = (size_t)(scan - d->begin);
	const uint8_t *p = d->begin + ((off + 7) & ~(size_t)7);

	for (; d->end - p >= 8; p += 8) {
		const uint8_t *psb;

		if (!psb_word(p))
			continue;
		psb = psb_from_word(d, p);
		if (psb && psb >= scan)
			return psb;
	}
	return NULL;
}

int pk_pt_sync_forward(struct pk_pt_decoder *dec)
{
	const uint8_t *pos, *scan, *psb;

	if (!dec)
		return PK_ERR_INTERNAL;
	pos = dec->pos ? dec->pos : dec->begin;
	if (pos == dec->sync)
		pos += PT_PSB_SIZE;
	if (pos > dec->end)
		return PK_ERR_EOS;
	/* Look a little earlier for a PSB a bad packet partly consumed. */
	scan = pos - PK_MIN((size_t)(pos - dec->begin),
			    (size_t)PT_PSB_SIZE - 1);
	psb = psb_forward(dec, scan);
	if (!psb)
		return PK_ERR_EOS;
	dec->sync = dec->pos = psb;
	dec->bip_ctx = 0;
	return 0;
}

int pk__pt_sync_past(struct pk_pt_decoder *dec)
{
	if (!dec)
		return PK_ERR_INTERNAL;
	dec->pos = dec->sync;	/* (pk_pt_sync_forward skips a PSB there) */
	return pk_pt_sync_forward(dec);
}

int pk_pt_sync_backward(struct pk_pt_decoder *dec)
{
	const uint8_t *pos;

	if (!dec)
		return PK_ERR_INTERNAL;
	pos = dec->pos ? dec->pos : dec->end;
	pos = dec->begin + ((size_t)(pos - dec->begin) & ~(size_t)7);
	while (pos - dec->begin >= 8) {
		const uint8_t *psb;

		pos -= 8;
		if (!psb_word(pos))
			continue;
		psb = psb_from_word(dec, pos);
		if (psb && psb < (dec->pos ? dec->pos : dec->end)) {
			dec->sync = dec->pos = psb;
			dec->bip_ctx = 0;
			return 0;
		}
	}
	return PK_ERR_EOS;
}

int pk__pt_extend(struct pk_pt_decoder *dec, const uint8_t *buf, size_t len)
{
	size_t old = (size_t)(dec->end - dec->begin);

	if (!buf || len < old)
		return PK_ERR_INTERNAL;
	if (dec->pos)
		dec->pos = buf + (dec->pos - dec->begin);
	if (dec->sync)
		dec->sync = buf + (dec->sync - dec->begin);
	dec->begin = buf;
	dec->end = buf + len;
	return 0;
}

int pk_pt_sync_set(struct pk_pt_decoder *dec, uint64_t offset)
{
	if (!dec)
		return PK_ERR_INTERNAL;
	if (offset > (uint64_t)(dec->end - dec->begin))
		return PK_ERR_EOS;
	dec->sync = dec->pos = dec->begin + offset;
	dec->bip_ctx = 0;
	return 0;
}

/* ---- Packet readers: each returns the size or an error ---- */

#define NEED(n) do { if (end - p < (n)) return PK_ERR_EOS; } while (0)

static int rd_ip(const uint8_t *p, const uint8_t *end,
		 struct pk_pt_packet *pkt, uint8_t type)
{
	unsigned ipc = p[0] >> 5;
	int n = pt_ipc_bytes(ipc);

	if (n < 0)
		return PK_PT_ERR_BAD_PACKET;
	pkt->type = type;
	pkt->u.ip.ipc = (uint8_t)ipc;
	if (end - p >= 9) {	/* fast path: one unaligned load */
		uint64_t v;

		memcpy(&v, p + 1, 8);
		v = le64toh(v);
		pkt->u.ip.ip = n == 8 ? v : v & ((1ull << (8 * n)) - 1);
		return 1 + n;
	}
	NEED(1 + n);
	pkt->u.ip.ip = n ? pt_le(p + 1, (unsigned)n) : 0;
	return 1 + n;
}

static int set_tnt(struct pk_pt_packet *pkt, uint64_t payload, uint8_t type)
{
	int bits;

	if (payload < 2)
		return PK_PT_ERR_BAD_PACKET;
	bits = 63 - __builtin_clzll(payload);
	pkt->type = type;
	pkt->u.tnt.bits = (uint8_t)bits;
	pkt->u.tnt.payload = payload & ~(1ull << bits);
	return 0;
}

static int rd_cyc(const uint8_t *p, const uint8_t *end,
		  struct pk_pt_packet *pkt)
{
	const uint8_t *q = p + 1;
	uint64_t v = p[0] >> 3;
	unsigned shl = 5;
	bool more = p[0] & 4;

	while (more) {
		uint64_t b;

		if (q >= end)
			return PK_ERR_EOS;
		b = *q++;
		more = b & 1;
		if (shl + 7 > 64)
			return PK_PT_ERR_BAD_PACKET;
		v |= (b >> 1) << shl;
		shl += 7;
	}
	pkt->type = PK_PT_CYC;
	pkt->u.cyc.value = v;
	return (int)(q - p);
}

static int rd_trig(const uint8_t *p, const uint8_t *end,
		   struct pk_pt_packet *pkt)
{
	int size = 3;

	NEED(3);
	pkt->type = PK_PT_TRIG;
	pkt->u.trig.ip = (p[1] >> 7) & 1;
	pkt->u.trig.icntv = (p[1] >> 6) & 1;
	pkt->u.trig.mult = (p[1] >> 5) & 1;
	pkt->u.trig.trbv = p[2];
	pkt->u.trig.icnt = 0;
	if (pkt->u.trig.icntv) {
		NEED(5);
		pkt->u.trig.icnt = (uint16_t)pt_le(p + 3, 2);
		size = 5;
	}
	return size;
}

static int rd_tma(struct pk_pt_decoder *d, const uint8_t *p,
		  const uint8_t *end, struct pk_pt_packet *pkt)
{
	uint16_t fc;

	NEED(7);
	fc = (uint16_t)pt_le(p + 5, 2);
	if ((fc & ~0x1ffu) || p[4]) {
		/* SKZ84: corrupted TMA; report it as invalid and skip it. */
		if (d->cfg.errata.skz84) {
			NEED(8);
			pkt->type = PK_PT_INVALID;
			return 8;
		}
		return PK_PT_ERR_BAD_PACKET;
	}
	pkt->type = PK_PT_TMA;
	pkt->u.tma.ctc = (uint16_t)pt_le(p + 2, 2);
	pkt->u.tma.fc = fc;
	return 7;
}

static int rd_pwr(const uint8_t *p, const uint8_t *end,
		  struct pk_pt_packet *pkt, bool exit)
{
	uint64_t v;

	if (!exit) {
		NEED(4);
		v = pt_le(p + 2, 2);
		pkt->type = PK_PT_PWRE;
		pkt->u.pwre.state = (v >> 12) & 0xf;
		pkt->u.pwre.sub_state = (v >> 8) & 0xf;
		pkt->u.pwre.hw = (v >> 3) & 1;
		return 4;
	}
	NEED(7);
	v = pt_le(p + 2, 5);
	pkt->type = PK_PT_PWRX;
	pkt->u.pwrx.deepest = v & 0xf;
	pkt->u.pwrx.last = (v >> 4) & 0xf;
	pkt->u.pwrx.interrupt = (v >> 8) & 1;
	pkt->u.pwrx.store = (v >> 10) & 1;
	pkt->u.pwrx.autonomous = (v >> 11) & 1;
	return 7;
}

static int rd_ext(struct pk_pt_decoder *d, const uint8_t *p,
		  const uint8_t *end, struct pk_pt_packet *pkt)
{
	uint8_t ext;

	NEED(2);
	ext = p[1];
	switch (ext_kind[ext]) {
	case E_PSB:
		NEED(PT_PSB_SIZE);
		if (!is_psb(p, end))
			return PK_PT_ERR_BAD_PACKET;
		pkt->type = PK_PT_PSB;
		return PT_PSB_SIZE;
	case E_PSBEND:
		pkt->type = PK_PT_PSBEND;
		return 2;
	case E_OVF:
		pkt->type = PK_PT_OVF;
		return 2;
	case E_STOP:
		pkt->type = PK_PT_STOP;
		return 2;
	case E_TNT64: {
		int err;

		NEED(8);
		err = set_tnt(pkt, pt_le(p + 2, 6), PK_PT_TNT_64);
		return err ? err : 8;
	}
	case E_PIP: {
		uint64_t v;

		NEED(8);
		v = pt_le(p + 2, 6);
		pkt->type = PK_PT_PIP;
		pkt->u.pip.nr = v & 1;
		pkt->u.pip.cr3 = (v >> 1) << 5;
		return 8;
	}
	case E_CBR:
		NEED(4);
		pkt->type = PK_PT_CBR;
		pkt->u.cbr.ratio = p[2];
		return 4;
	case E_TMA:
		return rd_tma(d, p, end, pkt);
	case E_VMCS:
		NEED(7);
		pkt->type = PK_PT_VMCS;
		pkt->u.vmcs.base = pt_le(p + 2, 5) << 12;
		return 7;
	case E_EXT2:
		NEED(3);
		if (p[2] != PT_EXT2_MNT)
			return PK_PT_ERR_BAD_OPC;
		NEED(11);
		pkt->type = PK_PT_MNT;
		pkt->u.mnt.payload = pt_le(p + 3, 8);
		return 11;
	case E_EXSTOP:
		pkt->type = PK_PT_EXSTOP;
		pkt->u.exstop.ip = ext >> 7;
		return 2;
	case E_MWAIT:
		NEED(10);
		pkt->type = PK_PT_MWAIT;
		pkt->u.mwait.hints = (uint32_t)pt_le(p + 2, 4);
		pkt->u.mwait.ext = (uint32_t)pt_le(p + 6, 4);
		return 10;
	case E_PWRE:
		return rd_pwr(p, end, pkt, false);
	case E_PWRX:
		return rd_pwr(p, end, pkt, true);
	case E_PTW: {
		unsigned plc = (ext >> 5) & 3;
		unsigned n = plc == 0 ? 4 : 8;

		if (plc > 1)
			return PK_PT_ERR_BAD_PACKET;
		NEED(2 + (int)n);
		pkt->type = PK_PT_PTW;
		pkt->u.ptw.plc = (uint8_t)plc;
		pkt->u.ptw.ip = ext >> 7;
		pkt->u.ptw.payload = pt_le(p + 2, n);
		return 2 + (int)n;
	}
	case E_CFE:
		NEED(4);
		pkt->type = PK_PT_CFE;
		pkt->u.cfe.type = p[2] & 0x1f;
		pkt->u.cfe.ip = p[2] >> 7;
		pkt->u.cfe.vector = p[3];
		return 4;
	case E_EVD:
		NEED(11);
		pkt->type = PK_PT_EVD;
		pkt->u.evd.type = p[2] & 0x1f;
		pkt->u.evd.payload = pt_le(p + 3, 8);
		return 11;
	case E_BBP:
		if (!d->cfg.perf_packets)
			return PK_PT_ERR_BAD_OPC;
		NEED(3);
		pkt->type = PK_PT_BBP;
		pkt->u.bbp.sz8 = !(p[2] >> 7);
		pkt->u.bbp.type = p[2] & 0x1f;
		pkt->u.bbp.cont = d->bip_ctx != 0;
		return 3;
	case E_BEP:
		if (!d->cfg.perf_packets)
			return PK_PT_ERR_BAD_OPC;
		pkt->type = PK_PT_BEP;
		pkt->u.bep.ip = ext >> 7;
		return 2;
	default:
		return PK_PT_ERR_BAD_OPC;
	}
}

/* SKD007: a 2-byte CYC whose second byte looks like an extended opcode,
 * followed by an OVF's second byte, is really a corrupted OVF. */
static int skd007(const uint8_t *p, const uint8_t *end, int size,
		  struct pk_pt_packet *pkt)
{
	if (size != 2 || (pkt->u.cyc.value & ~0x1full) != 0x20)
		return size;
	if (end - p <= 2 || p[2] != PT_EXT_OVF)
		return size;
	pkt->type = PK_PT_OVF;
	return 3;
}

/* Packets after which perf's BIP context (BBP..BEP) no longer applies. */
static const uint8_t clears_bip[PK_PT_NTYPES] = {
	[PK_PT_TNT_8] = 1, [PK_PT_TNT_64] = 1, [PK_PT_TIP] = 1,
	[PK_PT_TIP_PGE] = 1, [PK_PT_TIP_PGD] = 1, [PK_PT_MODE_EXEC] = 1,
	[PK_PT_MODE_TSX] = 1, [PK_PT_PIP] = 1, [PK_PT_OVF] = 1,
	[PK_PT_VMCS] = 1, [PK_PT_STOP] = 1, [PK_PT_PSB] = 1,
	[PK_PT_PSBEND] = 1, [PK_PT_PTW] = 1, [PK_PT_MWAIT] = 1,
	[PK_PT_BEP] = 1, [PK_PT_CFE] = 1, [PK_PT_EVD] = 1,
};

static int rd_bip(struct pk_pt_decoder *d, const uint8_t *p,
		  const uint8_t *end, struct pk_pt_packet *pkt)
{
	int n = d->bip_ctx;

	NEED(1 + n);
	pkt->type = PK_PT_BIP;
	pkt->u.bip.id = p[0] >> 3;
	pkt->u.bip.value = pt_le(p + 1, (unsigned)n);
	return 1 + n;
}

static int decode_one(struct pk_pt_decoder *d, const uint8_t *p,
		      struct pk_pt_packet *pkt)
{
	const uint8_t *end = d->end;
	uint8_t b = p[0];

	switch (opc_kind[b]) {
	case K_PAD:
		pkt->type = PK_PT_PAD;
		return 1;
	case K_TNT8:
		return set_tnt(pkt, b >> 1, PK_PT_TNT_8) ? PK_PT_ERR_BAD_PACKET
							 : 1;
	case K_TIP:
		return rd_ip(p, end, pkt, PK_PT_TIP);
	case K_FUP:
		return rd_ip(p, end, pkt, PK_PT_FUP);
	case K_PGE:
		return rd_ip(p, end, pkt, PK_PT_TIP_PGE);
	case K_PGD:
		return rd_ip(p, end, pkt, PK_PT_TIP_PGD);
	case K_CYC: {
		int size = rd_cyc(p, end, pkt);

		if (size > 0 && d->cfg.errata.skd007)
			size = skd007(p, end, size, pkt);
		return size;
	}
	case K_EXT:
		return rd_ext(d, p, end, pkt);
	case K_TSC:
		NEED(8);
		pkt->type = PK_PT_TSC;
		pkt->u.tsc.tsc = pt_le(p + 1, 7);
		return 8;
	case K_MTC:
		NEED(2);
		pkt->type = PK_PT_MTC;
		pkt->u.mtc.ctc = p[1];
		return 2;
	case K_MODE:
		NEED(2);
		switch (p[1] >> 5) {
		case 0:
			pkt->type = PK_PT_MODE_EXEC;
			pkt->u.exec.csl = p[1] & 1;
			pkt->u.exec.csd = (p[1] >> 1) & 1;
			pkt->u.exec.iflag = (p[1] >> 2) & 1;
			return 2;
		case 1:
			pkt->type = PK_PT_MODE_TSX;
			pkt->u.tsx.intx = p[1] & 1;
			pkt->u.tsx.abrt = (p[1] >> 1) & 1;
			return 2;
		default:
			return PK_PT_ERR_BAD_PACKET;
		}
	case K_TRIG:
		if (d->cfg.no_trig)
			return PK_PT_ERR_BAD_OPC;
		return rd_trig(p, end, pkt);
	default:
		return PK_PT_ERR_BAD_OPC;
	}
}

int pk_pt_next(struct pk_pt_decoder *dec, struct pk_pt_packet *pkt)
{
	const uint8_t *p;
	int size;

	if (!dec || !pkt)
		return PK_ERR_INTERNAL;
	p = dec->pos;
	if (!p)
		return PK_ERR_NOSYNC;
	if (p >= dec->end)
		return PK_ERR_EOS;
	if (dec->bip_ctx && (p[0] & 7) == 4)
		size = rd_bip(dec, p, dec->end, pkt);
	else
		size = decode_one(dec, p, pkt);
	if (size < 0)
		return size;
	pkt->size = (uint8_t)size;
	dec->pos = p + size;
	dec->npackets++;
	if (dec->cfg.perf_packets) {
		if (pkt->type == PK_PT_BBP)
			dec->bip_ctx = pkt->u.bbp.sz8 ? 8 : 4;
		else if (clears_bip[pkt->type])
			dec->bip_ctx = 0;
	}
	return size;
}

uint64_t pk_pt_packets_read(const struct pk_pt_decoder *dec)
{
	return dec ? dec->npackets : 0;
}
