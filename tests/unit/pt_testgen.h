/* SPDX-License-Identifier: MIT */
/* Random valid Intel PT packets for the PT unit tests (header-only). */
#ifndef PT_TESTGEN_H
#define PT_TESTGEN_H
#include <stdint.h>
#include <string.h>
#include <perfkit/pt.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static inline uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* A random value of up to BITS bits, biased toward small and edge values. */
static inline uint64_t rnd_bits(unsigned bits)
{
	uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;

	switch (rnd() % 4) {
	case 0: return 0;
	case 1: return mask;
	case 2: return rnd() & mask & (((1ull << (rnd() % 64)) - 1) | 1);
	default: return rnd() & mask;
	}
}

static const uint8_t gen_ipcs[] = { 0, 1, 2, 3, 4, 6 };

/* Types pt_gen_packet draws from (no BBP/BIP/BEP: those need context). */
static const uint8_t gen_types[] = {
	PK_PT_PAD, PK_PT_PSB, PK_PT_PSBEND, PK_PT_FUP, PK_PT_TIP,
	PK_PT_TIP_PGE, PK_PT_TIP_PGD, PK_PT_TNT_8, PK_PT_TNT_64,
	PK_PT_MODE_EXEC, PK_PT_MODE_TSX, PK_PT_PIP, PK_PT_VMCS, PK_PT_CBR,
	PK_PT_TSC, PK_PT_TMA, PK_PT_MTC, PK_PT_CYC, PK_PT_STOP, PK_PT_OVF,
	PK_PT_MNT, PK_PT_EXSTOP, PK_PT_MWAIT, PK_PT_PWRE, PK_PT_PWRX,
	PK_PT_PTW, PK_PT_CFE, PK_PT_EVD, PK_PT_TRIG,
};

/* Fills *P (zeroed first) with a random packet of TYPE whose fields are
 * normalised, so decode(encode(P)) compares equal with memcmp. */
static inline void pt_gen_packet(struct pk_pt_packet *p, uint8_t type)
{
	memset(p, 0, sizeof(*p));
	p->type = type;
	switch (type) {
	case PK_PT_FUP: case PK_PT_TIP: case PK_PT_TIP_PGE:
	case PK_PT_TIP_PGD: {
		uint8_t ipc = gen_ipcs[rnd() % sizeof(gen_ipcs)];
		static const uint8_t bits[] = { 0, 16, 32, 48, 48, 0, 64 };

		p->u.ip.ipc = ipc;
		p->u.ip.ip = ipc ? rnd_bits(bits[ipc]) : 0;
		break;
	}
	case PK_PT_TNT_8:
	case PK_PT_TNT_64: {
		unsigned max = type == PK_PT_TNT_8 ? 6 : 47;

		p->u.tnt.bits = (uint8_t)(1 + rnd() % max);
		p->u.tnt.payload = rnd() & ((1ull << p->u.tnt.bits) - 1);
		break;
	}
	case PK_PT_MODE_EXEC:
		p->u.exec.csl = rnd() & 1;
		p->u.exec.csd = rnd() & 1;
		p->u.exec.iflag = rnd() & 1;
		break;
	case PK_PT_MODE_TSX:
		p->u.tsx.intx = rnd() & 1;
		p->u.tsx.abrt = rnd() & 1;
		break;
	case PK_PT_PIP:
		p->u.pip.nr = rnd() & 1;
		p->u.pip.cr3 = rnd_bits(47) << 5;
		break;
	case PK_PT_VMCS: p->u.vmcs.base = rnd_bits(40) << 12; break;
	case PK_PT_CBR: p->u.cbr.ratio = (uint8_t)rnd(); break;
	case PK_PT_TSC: p->u.tsc.tsc = rnd_bits(56); break;
	case PK_PT_TMA:
		p->u.tma.ctc = (uint16_t)rnd();
		p->u.tma.fc = (uint16_t)rnd_bits(9);
		break;
	case PK_PT_MTC: p->u.mtc.ctc = (uint8_t)rnd(); break;
	case PK_PT_CYC: p->u.cyc.value = rnd_bits(61); break;
	case PK_PT_MNT: p->u.mnt.payload = rnd(); break;
	case PK_PT_EXSTOP: p->u.exstop.ip = rnd() & 1; break;
	case PK_PT_MWAIT:
		p->u.mwait.hints = (uint32_t)rnd();
		p->u.mwait.ext = (uint32_t)rnd();
		break;
	case PK_PT_PWRE:
		p->u.pwre.state = rnd() & 0xf;
		p->u.pwre.sub_state = rnd() & 0xf;
		p->u.pwre.hw = rnd() & 1;
		break;
	case PK_PT_PWRX:
		p->u.pwrx.last = rnd() & 0xf;
		p->u.pwrx.deepest = rnd() & 0xf;
		p->u.pwrx.interrupt = rnd() & 1;
		p->u.pwrx.store = rnd() & 1;
		p->u.pwrx.autonomous = rnd() & 1;
		break;
	case PK_PT_PTW:
		p->u.ptw.plc = rnd() & 1;
		p->u.ptw.ip = rnd() & 1;
		p->u.ptw.payload = rnd_bits(p->u.ptw.plc ? 64 : 32);
		break;
	case PK_PT_CFE:
		p->u.cfe.type = rnd() & 0x1f;
		p->u.cfe.vector = (uint8_t)rnd();
		p->u.cfe.ip = rnd() & 1;
		break;
	case PK_PT_EVD:
		p->u.evd.type = rnd() & 0x1f;
		p->u.evd.payload = rnd();
		break;
	case PK_PT_TRIG:
		p->u.trig.trbv = (uint8_t)rnd();
		p->u.trig.ip = rnd() & 1;
		p->u.trig.icntv = rnd() & 1;
		p->u.trig.mult = rnd() & 1;
		p->u.trig.icnt = p->u.trig.icntv ? (uint16_t)rnd() : 0;
		break;
	default:
		break;
	}
}

static inline void pt_gen_random(struct pk_pt_packet *p)
{
	pt_gen_packet(p, gen_types[rnd() % sizeof(gen_types)]);
}

/* Decoded and generated packets agree (size aside)? */
static inline int pt_pkt_same(const struct pk_pt_packet *a,
		       const struct pk_pt_packet *b)
{
	return a->type == b->type && !memcmp(&a->u, &b->u, sizeof(a->u));
}
#endif
