/* SPDX-License-Identifier: MIT */
/* Intel PT packet encoder: the inverse of packet.c, for tests and tools. */
#include "base/base.h"
#include "pt/pt_int.h"

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static int enc_ip(const struct pk_pt_packet *pkt, uint8_t opc, uint8_t *b)
{
	int n = pt_ipc_bytes(pkt->u.ip.ipc);

	if (n < 0 || pkt->u.ip.ipc > 7)
		return PK_PT_ERR_BAD_PACKET;
	b[0] = (uint8_t)(opc | pkt->u.ip.ipc << 5);
	put_le(b + 1, pkt->u.ip.ip, (unsigned)n);
	return 1 + n;
}

static int enc_tnt(const struct pk_pt_packet *pkt, uint8_t *b, bool t64)
{
	unsigned bits = pkt->u.tnt.bits;
	uint64_t v;

	if (!bits || bits > (t64 ? 47u : 6u))
		return PK_PT_ERR_BAD_PACKET;
	v = (pkt->u.tnt.payload & ((1ull << bits) - 1)) | 1ull << bits;
	if (!t64) {
		b[0] = (uint8_t)(v << 1);
		return 1;
	}
	b[0] = PT_OPC_EXT;
	b[1] = PT_EXT_TNT64;
	put_le(b + 2, v, 6);
	return 8;
}

static int enc_cyc(uint64_t v, uint8_t *b)
{
	int n = 1;

	b[0] = (uint8_t)(PT_OPC_CYC | (v & 0x1f) << 3);
	v >>= 5;
	if (v)
		b[0] |= 0x04;
	while (v) {
		b[n] = (uint8_t)((v & 0x7f) << 1);
		v >>= 7;
		if (v)
			b[n] |= 0x01;
		n++;
	}
	return n;
}

static int enc_ext(const struct pk_pt_packet *pkt, uint8_t *b)
{
	const typeof(pkt->u) *u = &pkt->u;

	b[0] = PT_OPC_EXT;
	switch (pkt->type) {
	case PK_PT_PSB:
		for (int i = 0; i < PT_PSB_SIZE; i += 2) {
			b[i] = PT_OPC_EXT;
			b[i + 1] = PT_EXT_PSB;
		}
		return PT_PSB_SIZE;
	case PK_PT_PSBEND: b[1] = PT_EXT_PSBEND; return 2;
	case PK_PT_OVF:    b[1] = PT_EXT_OVF; return 2;
	case PK_PT_STOP:   b[1] = PT_EXT_STOP; return 2;
	case PK_PT_TNT_64: return enc_tnt(pkt, b, true);
	case PK_PT_PIP:
		b[1] = PT_EXT_PIP;
		put_le(b + 2, (u->pip.cr3 >> 5) << 1 | (u->pip.nr & 1), 6);
		return 8;
	case PK_PT_CBR:
		b[1] = PT_EXT_CBR;
		b[2] = u->cbr.ratio;
		b[3] = 0;
		return 4;
	case PK_PT_TMA:
		b[1] = PT_EXT_TMA;
		put_le(b + 2, u->tma.ctc, 2);
		b[4] = 0;
		put_le(b + 5, u->tma.fc & 0x1ff, 2);
		return 7;
	case PK_PT_VMCS:
		b[1] = PT_EXT_VMCS;
		put_le(b + 2, u->vmcs.base >> 12, 5);
		return 7;
	case PK_PT_MNT:
		b[1] = PT_EXT_EXT2;
		b[2] = PT_EXT2_MNT;
		put_le(b + 3, u->mnt.payload, 8);
		return 11;
	case PK_PT_EXSTOP:
		b[1] = u->exstop.ip ? PT_EXT_EXSTOP_IP : PT_EXT_EXSTOP;
		return 2;
	case PK_PT_MWAIT:
		b[1] = PT_EXT_MWAIT;
		put_le(b + 2, u->mwait.hints, 4);
		put_le(b + 6, u->mwait.ext, 4);
		return 10;
	case PK_PT_PWRE:
		b[1] = PT_EXT_PWRE;
		put_le(b + 2, (uint64_t)(u->pwre.state & 0xf) << 12 |
			      (uint64_t)(u->pwre.sub_state & 0xf) << 8 |
			      (u->pwre.hw ? 8u : 0u), 2);
		return 4;
	case PK_PT_PWRX:
		b[1] = PT_EXT_PWRX;
		put_le(b + 2, (uint64_t)(u->pwrx.deepest & 0xf) |
			      (uint64_t)(u->pwrx.last & 0xf) << 4 |
			      (u->pwrx.interrupt ? 0x100u : 0u) |
			      (u->pwrx.store ? 0x400u : 0u) |
			      (u->pwrx.autonomous ? 0x800u : 0u), 5);
		return 7;
	case PK_PT_PTW: {
		unsigned n = u->ptw.plc ? 8 : 4;

		if (u->ptw.plc > 1)
			return PK_PT_ERR_BAD_PACKET;
		b[1] = (uint8_t)(PT_EXT_PTW | u->ptw.plc << 5 |
				 (u->ptw.ip ? 0x80 : 0));
		put_le(b + 2, u->ptw.payload, n);
		return 2 + (int)n;
	}
	case PK_PT_CFE:
		b[1] = PT_EXT_CFE;
		b[2] = (uint8_t)((u->cfe.type & 0x1f) | (u->cfe.ip ? 0x80 : 0));
		b[3] = u->cfe.vector;
		return 4;
	case PK_PT_EVD:
		b[1] = PT_EXT_EVD;
		b[2] = u->evd.type & 0x1f;
		put_le(b + 3, u->evd.payload, 8);
		return 11;
	case PK_PT_BBP:
		b[1] = PT_EXT_BBP;
		b[2] = (uint8_t)((u->bbp.sz8 ? 0 : 0x80) |
				 (u->bbp.type & 0x1f));
		return 3;
	case PK_PT_BEP:
		b[1] = u->bep.ip ? PT_EXT_BEP_IP : PT_EXT_BEP;
		return 2;
	default:
		return PK_PT_ERR_BAD_PACKET;
	}
}

static int enc_one(const struct pk_pt_packet *pkt, uint8_t *b)
{
	const typeof(pkt->u) *u = &pkt->u;

	switch (pkt->type) {
	case PK_PT_PAD:
		b[0] = PT_OPC_PAD;
		return 1;
	case PK_PT_TIP:     return enc_ip(pkt, PT_OPC_TIP, b);
	case PK_PT_TIP_PGE: return enc_ip(pkt, PT_OPC_PGE, b);
	case PK_PT_TIP_PGD: return enc_ip(pkt, PT_OPC_PGD, b);
	case PK_PT_FUP:     return enc_ip(pkt, PT_OPC_FUP, b);
	case PK_PT_TNT_8:   return enc_tnt(pkt, b, false);
	case PK_PT_MODE_EXEC:
		b[0] = PT_OPC_MODE;
		b[1] = (uint8_t)((u->exec.csl & 1) | (u->exec.csd & 1) << 1 |
				 (u->exec.iflag & 1) << 2);
		return 2;
	case PK_PT_MODE_TSX:
		b[0] = PT_OPC_MODE;
		b[1] = (uint8_t)(0x20 | (u->tsx.intx & 1) |
				 (u->tsx.abrt & 1) << 1);
		return 2;
	case PK_PT_TSC:
		b[0] = PT_OPC_TSC;
		put_le(b + 1, u->tsc.tsc, 7);
		return 8;
	case PK_PT_MTC:
		b[0] = PT_OPC_MTC;
		b[1] = u->mtc.ctc;
		return 2;
	case PK_PT_CYC:
		if (u->cyc.value >> 61)
			return PK_PT_ERR_BAD_PACKET;
		return enc_cyc(u->cyc.value, b);
	case PK_PT_TRIG:
		b[0] = PT_OPC_TRIG;
		b[1] = (uint8_t)((u->trig.ip ? 0x80 : 0) |
				 (u->trig.icntv ? 0x40 : 0) |
				 (u->trig.mult ? 0x20 : 0));
		b[2] = u->trig.trbv;
		if (!u->trig.icntv)
			return 3;
		put_le(b + 3, u->trig.icnt, 2);
		return 5;
	case PK_PT_BIP:
		/* pkt->size 5 selects a 4-byte item (after a BBP with SZ). */
		b[0] = (uint8_t)(0x04 | (u->bip.id & 0x1f) << 3);
		put_le(b + 1, u->bip.value, pkt->size == 5 ? 4 : 8);
		return pkt->size == 5 ? 5 : 9;
	default:
		return enc_ext(pkt, b);
	}
}

int pk_pt_encode(const struct pk_pt_packet *pkt, uint8_t *buf, size_t cap)
{
	uint8_t tmp[32];
	int n;

	if (!pkt || (!buf && cap))
		return PK_ERR_INTERNAL;
	n = enc_one(pkt, tmp);
	if (n < 0)
		return n;
	if ((size_t)n > cap)
		return PK_ERR_RANGE;
	memcpy(buf, tmp, (size_t)n);
	return n;
}
