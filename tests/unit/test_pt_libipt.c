/* SPDX-License-Identifier: MIT */
/*
 * Differential tests of perfkit's PT packet decoder against Intel's libipt
 * (libipt-dev, linked into this test only): random valid packet sequences
 * encoded by libipt's encoder (pt_enc_next) and by perfkit's, decoded by
 * both; random byte soup stepped through both decoders; PSB sync offsets.
 * libipt 2.0 predates CFE, EVD and TRIG, so those are left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <intel-pt.h>
#include <perfkit/pt.h>
#include "test.h"
#include "pt_testgen.h"

/* libipt packet -> perfkit packet (normalised like pt_gen_packet). */
static bool from_ipt(const struct pt_packet *s, struct pk_pt_packet *d)
{
	memset(d, 0, sizeof(*d));
	d->size = s->size;
	switch (s->type) {
	case ppt_pad: d->type = PK_PT_PAD; break;
	case ppt_psb: d->type = PK_PT_PSB; break;
	case ppt_psbend: d->type = PK_PT_PSBEND; break;
	case ppt_stop: d->type = PK_PT_STOP; break;
	case ppt_ovf: d->type = PK_PT_OVF; break;
	case ppt_fup: case ppt_tip: case ppt_tip_pge: case ppt_tip_pgd:
		d->type = s->type == ppt_fup ? PK_PT_FUP :
			  s->type == ppt_tip ? PK_PT_TIP :
			  s->type == ppt_tip_pge ? PK_PT_TIP_PGE : PK_PT_TIP_PGD;
		d->u.ip.ipc = (uint8_t)s->payload.ip.ipc;
		d->u.ip.ip = s->payload.ip.ip;
		break;
	case ppt_tnt_8: case ppt_tnt_64:
		d->type = s->type == ppt_tnt_8 ? PK_PT_TNT_8 : PK_PT_TNT_64;
		d->u.tnt.bits = s->payload.tnt.bit_size;
		d->u.tnt.payload = s->payload.tnt.payload;
		break;
	case ppt_mode:
		if (s->payload.mode.leaf == pt_mol_exec) {
			d->type = PK_PT_MODE_EXEC;
			d->u.exec.csl = s->payload.mode.bits.exec.csl;
			d->u.exec.csd = s->payload.mode.bits.exec.csd;
		} else {
			d->type = PK_PT_MODE_TSX;
			d->u.tsx.intx = s->payload.mode.bits.tsx.intx;
			d->u.tsx.abrt = s->payload.mode.bits.tsx.abrt;
		}
		break;
	case ppt_pip:
		d->type = PK_PT_PIP;
		d->u.pip.cr3 = s->payload.pip.cr3;
		d->u.pip.nr = s->payload.pip.nr;
		break;
	case ppt_vmcs:
		d->type = PK_PT_VMCS;
		d->u.vmcs.base = s->payload.vmcs.base;
		break;
	case ppt_cbr:
		d->type = PK_PT_CBR;
		d->u.cbr.ratio = s->payload.cbr.ratio;
		break;
	case ppt_tsc:
		d->type = PK_PT_TSC;
		d->u.tsc.tsc = s->payload.tsc.tsc;
		break;
	case ppt_tma:
		d->type = PK_PT_TMA;
		d->u.tma.ctc = s->payload.tma.ctc;
		d->u.tma.fc = s->payload.tma.fc;
		break;
	case ppt_mtc:
		d->type = PK_PT_MTC;
		d->u.mtc.ctc = s->payload.mtc.ctc;
		break;
	case ppt_cyc:
		d->type = PK_PT_CYC;
		d->u.cyc.value = s->payload.cyc.value;
		break;
	case ppt_mnt:
		d->type = PK_PT_MNT;
		d->u.mnt.payload = s->payload.mnt.payload;
		break;
	case ppt_exstop:
		d->type = PK_PT_EXSTOP;
		d->u.exstop.ip = s->payload.exstop.ip;
		break;
	case ppt_mwait:
		d->type = PK_PT_MWAIT;
		d->u.mwait.hints = s->payload.mwait.hints;
		d->u.mwait.ext = s->payload.mwait.ext;
		break;
	case ppt_pwre:
		d->type = PK_PT_PWRE;
		d->u.pwre.state = s->payload.pwre.state;
		d->u.pwre.sub_state = s->payload.pwre.sub_state;
		d->u.pwre.hw = s->payload.pwre.hw;
		break;
	case ppt_pwrx:
		d->type = PK_PT_PWRX;
		d->u.pwrx.last = s->payload.pwrx.last;
		d->u.pwrx.deepest = s->payload.pwrx.deepest;
		d->u.pwrx.interrupt = s->payload.pwrx.interrupt;
		d->u.pwrx.store = s->payload.pwrx.store;
		d->u.pwrx.autonomous = s->payload.pwrx.autonomous;
		break;
	case ppt_ptw:
		d->type = PK_PT_PTW;
		d->u.ptw.plc = s->payload.ptw.plc;
		d->u.ptw.ip = s->payload.ptw.ip;
		d->u.ptw.payload = s->payload.ptw.payload;
		break;
	default:
		return false;
	}
	return true;
}

/* perfkit packet -> libipt packet (for pt_enc_next). */
static bool to_ipt(const struct pk_pt_packet *s, struct pt_packet *d)
{
	memset(d, 0, sizeof(*d));
	switch (s->type) {
	case PK_PT_PAD: d->type = ppt_pad; break;
	case PK_PT_PSB: d->type = ppt_psb; break;
	case PK_PT_PSBEND: d->type = ppt_psbend; break;
	case PK_PT_STOP: d->type = ppt_stop; break;
	case PK_PT_OVF: d->type = ppt_ovf; break;
	case PK_PT_FUP: d->type = ppt_fup; goto ip;
	case PK_PT_TIP: d->type = ppt_tip; goto ip;
	case PK_PT_TIP_PGE: d->type = ppt_tip_pge; goto ip;
	case PK_PT_TIP_PGD: d->type = ppt_tip_pgd;
	ip:
		d->payload.ip.ipc = (enum pt_ip_compression)s->u.ip.ipc;
		d->payload.ip.ip = s->u.ip.ip;
		break;
	case PK_PT_TNT_8: d->type = ppt_tnt_8; goto tnt;
	case PK_PT_TNT_64: d->type = ppt_tnt_64;
	tnt:
		d->payload.tnt.bit_size = s->u.tnt.bits;
		d->payload.tnt.payload = s->u.tnt.payload;
		break;
	case PK_PT_MODE_EXEC:
		d->type = ppt_mode;
		d->payload.mode.leaf = pt_mol_exec;
		d->payload.mode.bits.exec.csl = s->u.exec.csl;
		d->payload.mode.bits.exec.csd = s->u.exec.csd;
		break;
	case PK_PT_MODE_TSX:
		d->type = ppt_mode;
		d->payload.mode.leaf = pt_mol_tsx;
		d->payload.mode.bits.tsx.intx = s->u.tsx.intx;
		d->payload.mode.bits.tsx.abrt = s->u.tsx.abrt;
		break;
	default:
		return false;	/* to_ipt_full does the rest */
	}
	return true;
}

static const uint8_t ipt_types[] = {
	PK_PT_PAD, PK_PT_PSB, PK_PT_PSBEND, PK_PT_FUP, PK_PT_TIP,
	PK_PT_TIP_PGE, PK_PT_TIP_PGD, PK_PT_TNT_8, PK_PT_TNT_64,
	PK_PT_MODE_EXEC, PK_PT_MODE_TSX, PK_PT_PIP, PK_PT_VMCS, PK_PT_CBR,
	PK_PT_TSC, PK_PT_TMA, PK_PT_MTC, PK_PT_CYC, PK_PT_STOP, PK_PT_OVF,
	PK_PT_MNT, PK_PT_EXSTOP, PK_PT_MWAIT, PK_PT_PWRE, PK_PT_PWRX,
	PK_PT_PTW,
};

/* Builds a libipt packet for perfkit packet P (all types libipt 2.0 has). */
static void to_ipt_full(const struct pk_pt_packet *p, struct pt_packet *d)
{
	if (to_ipt(p, d))
		return;
	memset(d, 0, sizeof(*d));
	switch (p->type) {
	case PK_PT_PIP: d->type = ppt_pip; d->payload.pip.cr3 = p->u.pip.cr3;
		d->payload.pip.nr = p->u.pip.nr; break;
	case PK_PT_VMCS: d->type = ppt_vmcs;
		d->payload.vmcs.base = p->u.vmcs.base; break;
	case PK_PT_CBR: d->type = ppt_cbr;
		d->payload.cbr.ratio = p->u.cbr.ratio; break;
	case PK_PT_TSC: d->type = ppt_tsc; d->payload.tsc.tsc = p->u.tsc.tsc;
		break;
	case PK_PT_TMA: d->type = ppt_tma; d->payload.tma.ctc = p->u.tma.ctc;
		d->payload.tma.fc = p->u.tma.fc; break;
	case PK_PT_MTC: d->type = ppt_mtc; d->payload.mtc.ctc = p->u.mtc.ctc;
		break;
	case PK_PT_CYC: d->type = ppt_cyc;
		d->payload.cyc.value = p->u.cyc.value; break;
	case PK_PT_MNT: d->type = ppt_mnt;
		d->payload.mnt.payload = p->u.mnt.payload; break;
	case PK_PT_EXSTOP: d->type = ppt_exstop;
		d->payload.exstop.ip = p->u.exstop.ip; break;
	case PK_PT_MWAIT: d->type = ppt_mwait;
		d->payload.mwait.hints = p->u.mwait.hints;
		d->payload.mwait.ext = p->u.mwait.ext; break;
	case PK_PT_PWRE: d->type = ppt_pwre;
		d->payload.pwre.state = p->u.pwre.state;
		d->payload.pwre.sub_state = p->u.pwre.sub_state;
		d->payload.pwre.hw = p->u.pwre.hw; break;
	case PK_PT_PWRX: d->type = ppt_pwrx;
		d->payload.pwrx.last = p->u.pwrx.last;
		d->payload.pwrx.deepest = p->u.pwrx.deepest;
		d->payload.pwrx.interrupt = p->u.pwrx.interrupt;
		d->payload.pwrx.store = p->u.pwrx.store;
		d->payload.pwrx.autonomous = p->u.pwrx.autonomous; break;
	case PK_PT_PTW: d->type = ppt_ptw; d->payload.ptw.plc = p->u.ptw.plc;
		d->payload.ptw.ip = p->u.ptw.ip;
		d->payload.ptw.payload = p->u.ptw.payload; break;
	default: break;
	}
}

static void gen_ipt(struct pk_pt_packet *p)
{
	do
		pt_gen_packet(p, ipt_types[rnd() % sizeof(ipt_types)]);
	while (p->type == PK_PT_PSB && rnd() % 8);
	if (p->type == PK_PT_MODE_EXEC)
		p->u.exec.iflag = 0;	/* libipt 2.0 has no IF bit */
}

enum { NPKT = 20000 };

/* libipt encodes, both decode. */
static void test_ipt_encoder(void)
{
	static struct pk_pt_packet want[NPKT];
	static uint64_t offs[NPKT];
	size_t cap = NPKT * 16, n = 0, bad = 0;
	uint8_t *buf = calloc(1, cap);
	struct pt_config cfg;
	struct pt_encoder *enc;
	struct pk_pt_decoder *d;
	int err = 0;

	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + cap;
	enc = pt_alloc_encoder(&cfg);
	for (n = 0; n < NPKT && enc; n++) {
		struct pt_packet ip;

		gen_ipt(&want[n]);
		to_ipt_full(&want[n], &ip);
		pt_enc_get_offset(enc, &offs[n]);
		err = pt_enc_next(enc, &ip);
		if (err < 0)
			break;
		want[n].size = (uint8_t)err;
	}
	t_check(err >= 0 && n == NPKT, "pt_libipt_encoder_ran",
		"pt_enc_next failed (%d) on packet %zu type %u", err, n,
		n < NPKT ? want[n].type : 0);
	d = pk_pt_decoder_new(buf, (size_t)offs[n - 1] + want[n - 1].size,
			      NULL);
	pk_pt_sync_set(d, 0);
	for (size_t i = 0; i < n; i++) {
		struct pk_pt_packet q;
		uint64_t off;

		memset(&q, 0, sizeof(q));
		pk_pt_offset(d, &off);
		if (pk_pt_next(d, &q) != want[i].size || off != offs[i] ||
		    !pt_pkt_same(&q, &want[i])) {
			if (!bad++)
				t_fail("pt_libipt_encoded_first_mismatch",
				       "packet %zu at %llu type %u/%u", i,
				       (unsigned long long)off, want[i].type,
				       q.type);
		}
	}
	t_check(!bad, "pt_libipt_encoded_decode", "%zu of %zu differ", bad, n);
	pk_pt_decoder_free(d);
	if (enc)
		pt_free_encoder(enc);
	free(buf);
}

/* perfkit encodes, libipt decodes. */
static void test_pk_encoder(void)
{
	size_t cap = NPKT * 16, len = 0, bad = 0, n;
	uint8_t *buf = calloc(1, cap);
	static struct pk_pt_packet want[NPKT];
	struct pt_config cfg;
	struct pt_packet_decoder *d;

	for (n = 0; n < NPKT; n++) {
		gen_ipt(&want[n]);
		len += (size_t)pk_pt_encode(&want[n], buf + len, cap - len);
	}
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	d = pt_pkt_alloc_decoder(&cfg);
	pt_pkt_sync_set(d, 0);
	for (size_t i = 0; i < n; i++) {
		struct pt_packet ip;
		struct pk_pt_packet q;
		int err = pt_pkt_next(d, &ip, sizeof(ip));

		if (err < 0 || !from_ipt(&ip, &q) || !pt_pkt_same(&q, &want[i])) {
			if (!bad++)
				t_fail("pt_pk_encoded_first_mismatch",
				       "packet %zu type %u: libipt %d type %d",
				       i, want[i].type, err, (int)ip.type);
			if (err < 0)
				break;
		}
	}
	t_check(!bad, "pt_pk_encoded_libipt_decode", "%zu differ", bad);
	pt_pkt_free_decoder(d);
	free(buf);
}

static int err_class(int e)
{
	if (e >= 0)
		return 0;
	if (e == -pte_eos || e == PK_ERR_EOS)
		return 1;
	if (e == -pte_bad_opc || e == PK_PT_ERR_BAD_OPC)
		return 2;
	if (e == -pte_bad_packet || e == PK_PT_ERR_BAD_PACKET)
		return 3;
	return 4;
}

/* Byte soup biased toward real opcodes: both decoders agree packet for
 * packet up to the first error, and on the error. */
static void test_soup(void)
{
	static const uint8_t common[] = {
		0x00, 0x02, 0x19, 0x59, 0x99, 0x0d, 0x2d, 0x4d, 0x6d, 0x8d,
		0xcd, 0x11, 0x01, 0x1d, 0x03, 0x07, 0x0f, 0x62, 0x06,
	};
	static const uint8_t ext[] = {
		0x82, 0x23, 0xf3, 0x83, 0xa3, 0x43, 0x03, 0x73, 0xc8, 0xc3,
		0x62, 0xe2, 0xc2, 0x22, 0xa2, 0x12, 0x32, 0x92, 0xb2, 0x52,
	};
	PK_OPTS(pk_pt_config, pcfg, .no_trig = 1);
	size_t runs = 0, bad = 0, pkts = 0;
	char detail[160] = "";
	uint8_t buf[256];

	for (int r = 0; r < 20000; r++, runs++) {
		size_t len = 1 + rnd() % sizeof(buf);
		struct pt_config cfg;
		struct pt_packet_decoder *a;
		struct pk_pt_decoder *b;

		for (size_t i = 0; i < len; i++) {
			unsigned k = rnd() % 4;

			buf[i] = k == 0 ? common[rnd() % sizeof(common)] :
				 k == 1 && i && buf[i - 1] == 2 ?
					ext[rnd() % sizeof(ext)] :
				 (uint8_t)rnd();
		}
		pt_config_init(&cfg);
		cfg.begin = buf;
		cfg.end = buf + len;
		a = pt_pkt_alloc_decoder(&cfg);
		b = pk_pt_decoder_new(buf, len, &pcfg);
		pt_pkt_sync_set(a, 0);
		pk_pt_sync_set(b, 0);
		for (;;) {
			struct pt_packet ip;
			struct pk_pt_packet q, w;
			int ea, eb;
			uint64_t off = 0;

			pk_pt_offset(b, &off);
			memset(&q, 0, sizeof(q));
			ea = pt_pkt_next(a, &ip, sizeof(ip));
			eb = pk_pt_next(b, &q);
			/* CFE and EVD are newer than libipt 2.0 */
			if (ea == -pte_bad_opc && eb > 0 &&
			    (q.type == PK_PT_CFE || q.type == PK_PT_EVD))
				break;
			if (eb > 0 && q.type == PK_PT_MODE_EXEC)
				q.u.exec.iflag = 0;	/* not in libipt 2.0 */
			if (err_class(ea) != err_class(eb) ||
			    (ea >= 0 && (ea != eb || !from_ipt(&ip, &w) ||
					 !pt_pkt_same(&q, &w)))) {
				if (!bad++)
					snprintf(detail, sizeof(detail),
						 "run %d off %llu byte %02x: "
						 "libipt %d perfkit %d", r,
						 (unsigned long long)off,
						 buf[off], ea, eb);
				break;
			}
			if (ea < 0)
				break;
			pkts++;
		}
		pt_pkt_free_decoder(a);
		pk_pt_decoder_free(b);
	}
	t_check(!bad && pkts > 50000, "pt_libipt_soup",
		"%zu of %zu runs differ (%zu packets"
		" agreed); first: %s", bad, runs, pkts, detail);
}

/* Sync forward over a stream with PSBs amid soup: same offsets. */
static void test_sync(void)
{
	size_t len = 1 << 16, bad = 0, n = 0;
	uint8_t *buf = malloc(len);
	struct pt_config cfg;
	struct pt_packet_decoder *a;
	struct pk_pt_decoder *b;

	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)rnd();
	for (int k = 0; k < 300; k++) {
		size_t at = rnd() % (len - 40);
		int pairs = 6 + (int)(rnd() % 6);

		for (int j = 0; j < pairs; j++) {
			buf[at + 2 * j] = 2;
			buf[at + 2 * j + 1] = 0x82;
		}
	}
	pt_config_init(&cfg);
	cfg.begin = buf;
	cfg.end = buf + len;
	a = pt_pkt_alloc_decoder(&cfg);
	b = pk_pt_decoder_new(buf, len, NULL);
	for (;;) {
		uint64_t oa = 0, ob = 0;
		int ea = pt_pkt_sync_forward(a), eb = pk_pt_sync_forward(b);

		pt_pkt_get_offset(a, &oa);
		pk_pt_offset(b, &ob);
		if ((ea < 0) != (eb < 0) || (ea >= 0 && oa != ob)) {
			bad++;
			break;
		}
		if (ea < 0)
			break;
		n++;
	}
	t_check(!bad && n > 10, "pt_libipt_sync_forward",
		"differ after %zu PSBs", n);
	pt_pkt_free_decoder(a);
	pk_pt_decoder_free(b);
	free(buf);
}

int main(void)
{
	test_ipt_encoder();
	test_pk_encoder();
	test_soup();
	test_sync();
	return t_exit();
}
