/* SPDX-License-Identifier: MIT */
/*
 * Intel PT packets in the layout of `perf script -D` (Linux perf's
 * intel-pt packet decoder rules, which differ from libipt's in a few
 * places: see the spec's section 13).
 */
#include <inttypes.h>
#include <stdio.h>
#include "base/base.h"
#include "pt/pt_int.h"

struct out {
	char *p;
	size_t cap, n;
	bool over;
};

PK_PRINTF(2, 3)
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(o->p + o->n, o->n < o->cap ? o->cap - o->n : 0, fmt, ap);
	va_end(ap);
	if (r < 0 || o->n + (size_t)r >= o->cap)
		o->over = true;
	else
		o->n += (size_t)r;
}

static const char *ipname(uint8_t t)
{
	switch (t) {
	case PK_PT_TIP: return "TIP";
	case PK_PT_TIP_PGE: return "TIP.PGE";
	case PK_PT_TIP_PGD: return "TIP.PGD";
	default: return "FUP";
	}
}

/* perf's CYC: up to 9 continuation bytes, bits past 63 dropped. */
static int perf_cyc(const uint8_t *p, size_t n, uint64_t *v)
{
	size_t i = 1;
	unsigned shift = 5;

	*v = p[0] >> 3;
	if (!(p[0] & 4))
		return 1;
	for (; i < n && i <= 9; i++) {
		if (shift < 64)
			*v |= (uint64_t)(p[i] >> 1) << shift;
		shift += 7;
		if (!(p[i] & 1))
			return (int)i + 1;
	}
	return -1;
}

/* Decodes the packet at P (N bytes left) perf's way into the description;
 * returns its size or -1 for a bad packet. */
static int describe(const uint8_t *p, size_t n, int *ctx, struct out *d)
{
	struct pk_pt_packet pkt;
	struct pk_pt_decoder *dec;
	PK_OPTS(pk_pt_config, cfg, .perf_packets = 1, .no_trig = 1);
	uint64_t v;
	int size;

	if (*ctx && (p[0] & 7) == 4) {		/* BIP inside a BBP block */
		if (n < (size_t)*ctx + 1)
			return -1;
		put(d, "BIP ID 0x%02x Value 0x%" PRIx64, p[0] >> 3,
		    pt_le(p + 1, (unsigned)*ctx));
		return *ctx + 1;
	}
	if ((p[0] & 3) == 3) {			/* CYC, perf's length limit */
		size = perf_cyc(p, n, &v);
		if (size > 0)
			put(d, "CYC 0x%" PRIx64, v);
		return size;
	}
	if (p[0] == PT_OPC_EXT && n >= 2) {
		switch (p[1]) {
		case PT_EXT_TNT64:
			if (n < 8)
				return -1;
			v = pt_le(p + 2, 6);
			if (v < 2) {		/* perf: a TNT with no bits */
				put(d, "TNT  (0)");
				return 8;
			}
			break;
		case PT_EXT_TMA:		/* reserved bits ignored */
			if (n < 7)
				return -1;
			put(d, "TMA CTC 0x%" PRIx64 " FC 0x%" PRIx64,
			    pt_le(p + 2, 2), pt_le(p + 5, 2) & 0x1ff);
			return 7;
		case PT_EXT_CBR:		/* 16 bits */
			if (n < 4)
				return -1;
			put(d, "CBR 0x%" PRIx64, pt_le(p + 2, 2));
			return 4;
		case PT_EXT_PWRE:
			if (n < 4)
				return -1;
			v = pt_le(p + 2, 2);
			put(d, "PWRE 0x%" PRIx64 " HW:%u CState:%u Sub-CState:%u",
			    v, (unsigned)(v >> 7) & 1, (unsigned)(v >> 12) & 0xf,
			    (unsigned)(v >> 8) & 0xf);
			return 4;
		case PT_EXT_PWRX:
			if (n < 7)
				return -1;
			v = pt_le(p + 2, 5);
			put(d, "PWRX 0x%" PRIx64 " Last CState:%u Deepest CState:%u "
			    "Wake Reason 0x%x", v, (unsigned)(v >> 4) & 0xf,
			    (unsigned)v & 0xf, (unsigned)(v >> 8) & 0xf);
			return 7;
		case PT_EXT_MWAIT:
			if (n < 10)
				return -1;
			v = pt_le(p + 2, 8);
			put(d, "MWAIT 0x%" PRIx64 " Hints 0x%x Extensions 0x%x", v,
			    (unsigned)v & 0xff, (unsigned)(v >> 32) & 3);
			return 10;
		case PT_EXT_EVD:
			if (n < 11)
				return -1;
			put(d, "EVD Type 0x%02x Payload 0x%" PRIx64, p[2] & 0x3f,
			    pt_le(p + 3, 8));
			return 11;
		default:
			break;
		}
	}
	if (p[0] == PT_OPC_MODE && n >= 2 &&
	    (((p[1] >> 5) == 0 && (p[1] & 3) == 3) ||
	     ((p[1] >> 5) == 1 && (p[1] & 3) == 3)))
		return -1;			/* perf: bad MODE */
	dec = pk_pt_decoder_new(p, n, &cfg);
	if (!dec)
		return -1;
	pk_pt_sync_set(dec, 0);
	size = pk_pt_next(dec, &pkt);
	pk_pt_decoder_free(dec);
	if (size <= 0)
		return -1;
	switch (pkt.type) {
	case PK_PT_PAD: put(d, "PAD"); break;
	case PK_PT_PSB: put(d, "PSB"); break;
	case PK_PT_PSBEND: put(d, "PSBEND"); break;
	case PK_PT_OVF: put(d, "OVF"); break;
	case PK_PT_STOP: put(d, "TraceSTOP"); break;
	case PK_PT_TNT_8: case PK_PT_TNT_64:
		put(d, "TNT ");
		for (int i = pkt.u.tnt.bits - 1; i >= 0; i--)
			put(d, "%c", (pkt.u.tnt.payload >> i) & 1 ? 'T' : 'N');
		put(d, " (%u)", pkt.u.tnt.bits);
		break;
	case PK_PT_TIP: case PK_PT_TIP_PGE: case PK_PT_TIP_PGD:
	case PK_PT_FUP:
		if (!pkt.u.ip.ipc)
			put(d, "%s no ip", ipname(pkt.type));
		else
			put(d, "%s 0x%" PRIx64, ipname(pkt.type), pkt.u.ip.ip);
		break;
	case PK_PT_TSC: put(d, "TSC 0x%" PRIx64, pkt.u.tsc.tsc); break;
	case PK_PT_MTC: put(d, "MTC 0x%x", pkt.u.mtc.ctc); break;
	case PK_PT_VMCS:
		put(d, "VMCS 0x%" PRIx64, pkt.u.vmcs.base >> 12);
		break;
	case PK_PT_MNT: put(d, "MNT 0x%" PRIx64, pkt.u.mnt.payload); break;
	case PK_PT_PIP:
		put(d, "PIP 0x%" PRIx64 " (NR=%u)", pkt.u.pip.cr3 >> 5,
		    pkt.u.pip.nr);
		break;
	case PK_PT_MODE_EXEC:
		put(d, "MODE.Exec IF:%u %u", pkt.u.exec.iflag,
		    pkt.u.exec.csl ? 64 : pkt.u.exec.csd ? 32 : 16);
		break;
	case PK_PT_MODE_TSX:
		put(d, "MODE.TSX TXAbort:%u InTX:%u", pkt.u.tsx.abrt,
		    pkt.u.tsx.intx);
		break;
	case PK_PT_PTW:
		put(d, "PTWRITE 0x%" PRIx64 " IP:%u", pkt.u.ptw.payload,
		    pkt.u.ptw.ip);
		break;
	case PK_PT_EXSTOP: put(d, "EXSTOP IP:%u", pkt.u.exstop.ip); break;
	case PK_PT_BBP:
		put(d, "BBP SZ %s-byte Type 0x%x", pkt.u.bbp.sz8 ? "8" : "4",
		    pkt.u.bbp.type);
		break;
	case PK_PT_BEP: put(d, "BEP IP:%u", pkt.u.bep.ip); break;
	case PK_PT_CFE:
		put(d, "CFE IP:%u Type 0x%02x Vector 0x%x", pkt.u.cfe.ip,
		    pkt.u.cfe.type, pkt.u.cfe.vector);
		break;
	default:
		return -1;
	}
	/* the BBP context, as perf keeps it */
	if (pkt.type == PK_PT_BBP)
		*ctx = pkt.u.bbp.sz8 ? 8 : 4;
	else if (pkt.type != PK_PT_PAD && pkt.type != PK_PT_TSC &&
		 pkt.type != PK_PT_TMA && pkt.type != PK_PT_MTC &&
		 pkt.type != PK_PT_FUP && pkt.type != PK_PT_CYC &&
		 pkt.type != PK_PT_CBR && pkt.type != PK_PT_MNT &&
		 pkt.type != PK_PT_EXSTOP && pkt.type != PK_PT_PWRE &&
		 pkt.type != PK_PT_PWRX)
		*ctx = 0;
	return size;
}

int pk_pt_perf_line(const uint8_t *buf, size_t len, size_t off,
		    int *bip_ctx, char *line, size_t cap)
{
	struct out o = { .p = line, .cap = cap };
	char desc[128];
	struct out d = { .p = desc, .cap = sizeof(desc) };
	int ctx0 = bip_ctx ? *bip_ctx : 0, *ctx = bip_ctx ? bip_ctx : &ctx0;
	int size;

	if (!buf || !line || !cap)
		return PK_ERR_INTERNAL;
	if (off >= len)
		return PK_ERR_EOS;
	desc[0] = 0;
	size = describe(buf + off, len - off, ctx, &d);
	if (size <= 0) {
		size = 1;
		d.n = 0;
		put(&d, "Bad packet!");
	} else if (size < 8) {
		/* trailing PADs join a short packet's line up to 8 bytes */
		while (size < 8 && off + (size_t)size < len &&
		       !buf[off + (size_t)size])
			size++;
	}
	put(&o, ".  %08zx: ", off);
	for (int i = 0; i < size; i++)
		put(&o, " %02x", buf[off + (size_t)i]);
	for (int i = size; i < 16; i++)
		put(&o, "   ");
	put(&o, " %s", desc);
	return o.over ? PK_ERR_RANGE : size;
}
