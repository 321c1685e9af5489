/* SPDX-License-Identifier: MIT */
/* Internal Intel PT definitions shared by the packet layer's files. */
#ifndef PK_PT_INT_H
#define PK_PT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <perfkit/pt.h>

/* Opcodes and extended opcodes. */
enum {
	PT_OPC_PAD = 0x00, PT_OPC_EXT = 0x02, PT_OPC_TSC = 0x19,
	PT_OPC_MTC = 0x59, PT_OPC_MODE = 0x99, PT_OPC_TRIG = 0xd9,
	PT_OPC_TIP = 0x0d, PT_OPC_PGE = 0x11, PT_OPC_PGD = 0x01,
	PT_OPC_FUP = 0x1d, PT_OPC_CYC = 0x03,
	PT_EXT_PSB = 0x82, PT_EXT_PSBEND = 0x23, PT_EXT_OVF = 0xf3,
	PT_EXT_STOP = 0x83, PT_EXT_TNT64 = 0xa3, PT_EXT_PIP = 0x43,
	PT_EXT_CBR = 0x03, PT_EXT_TMA = 0x73, PT_EXT_VMCS = 0xc8,
	PT_EXT_EXT2 = 0xc3, PT_EXT2_MNT = 0x88, PT_EXT_EXSTOP = 0x62,
	PT_EXT_EXSTOP_IP = 0xe2, PT_EXT_MWAIT = 0xc2, PT_EXT_PWRE = 0x22,
	PT_EXT_PWRX = 0xa2, PT_EXT_PTW = 0x12, PT_EXT_CFE = 0x13,
	PT_EXT_EVD = 0x53, PT_EXT_BBP = 0x63, PT_EXT_BEP = 0x33,
	PT_EXT_BEP_IP = 0xb3,
};

enum { PT_PSB_SIZE = 16 };

/* Synchronizes DEC to the first PSB after the one it is synchronized at
 * (the stream's first when none): strictly forward. 0 or PK_ERR_EOS. */
int pk__pt_sync_past(struct pk_pt_decoder *dec);

/* The stream DEC reads goes on: BUF[0..LEN) holds the bytes it had (moved
 * perhaps) and more after them; its position and sync point are kept.
 * 0, or PK_ERR_INTERNAL when LEN is shorter than the stream was. */
int pk__pt_extend(struct pk_pt_decoder *dec, const uint8_t *buf, size_t len);

/* Applies timing packet P (TSC, CBR, TMA, MTC, CYC; others are left
 * alone) to the time T and its calibration C; HEADER: read in a PSB+.
 * The one place the flow decoder and perf's quick decoding time a
 * packet (track.c). */
void pk__pt_timing(struct pk_pt_time *t, struct pk_pt_tcal *c,
		   const struct pk_pt_config *cfg, const struct pk_pt_packet *p,
		   bool header);

/* A packet perf's packet decoder rejects (intel_pt_get_mode: its "Bad
 * packet", the byte after it read as the next packet: a one-byte CYC
 * for these but a MODE.Exec with IF set, not modelled) though libipt's
 * reads it: MODE.TSX with both InTX and TXAbort set, MODE.Exec with both
 * CS.L and CS.D set. The raw packet layer keeps libipt's
 * reading; perf's views (the flow decoder's perf_binding, quick
 * decoding) take it as perf does. */
static inline bool pk__pt_perf_bad(const struct pk_pt_packet *p)
{
	return (p->type == PK_PT_MODE_TSX && p->u.tsx.intx && p->u.tsx.abrt) ||
	       (p->type == PK_PT_MODE_EXEC && p->u.exec.csl && p->u.exec.csd);
}

/* The byte perf reads after such a packet (its MODE payload): a CYC of
 * BYTE >> 3 cycles when BYTE & 7 is 3. */
static inline uint8_t pk__pt_perf_bad_byte(const struct pk_pt_packet *p)
{
	if (p->type == PK_PT_MODE_TSX)
		return 0x23;
	return (uint8_t)(0x03 | (p->u.exec.iflag ? 4 : 0));
}

/* Little-endian load of N (<= 8) bytes. */
static inline uint64_t pt_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Bytes of payload for an IP compression; -1 for reserved values. */
static inline int pt_ipc_bytes(unsigned ipc)
{
	static const int8_t sz[8] = { 0, 2, 4, 6, 6, -1, 8, -1 };

	return sz[ipc & 7];
}

/* perf's decoder time (ctc.c): its TSC, TMA, MTC, CBR and CYC rules,
 * the CTC model of intel-pt-decoder.c rather than libipt's. Zeroed by
 * pk__pt_ptime_init; the caller sets buf_ts and ref_ts per buffer. */
struct pk__pt_ptime {
	uint64_t ts;		/* perf's timestamp */
	uint64_t tsc_ts;	/* the last TSC's */
	uint64_t ref_ts;	/* a new buffer's reference, for the 8th byte */
	uint64_t buf_ts;	/* the buffer's reference */
	uint64_t ctc_ts, ctc_delta;
	uint32_t last_ctc, last_mtc;
	bool have_tma, fixup_last_mtc;
	uint32_t n, d, mult, rem_mask;
	int shift;
	/* CYC: time from the last CBR's ratio only (perf's calc_cyc_to_tsc
	 * from MTC/TSC look-ahead is not modelled) */
	uint64_t cyc_ref, cycle_cnt;
	unsigned cbr;
	double cbr_cyc_to_tsc, mnt;
};
void pk__pt_ptime_init(struct pk__pt_ptime *t, uint32_t n, uint32_t d,
		       int mtc_shift, uint32_t max_non_turbo_ratio);
/* TSC ticks of CTC ticks CTC (perf's multiply, or its multdiv). */
uint64_t pk__pt_ptime_ctc_to_tsc(const struct pk__pt_ptime *t, uint64_t ctc);
/* The 7-byte TSC TS given its 8th byte from REF (the nearest). */
uint64_t pk__pt_8b_tsc(uint64_t ts, uint64_t ref);
/* The host TSC a TMA of CTC/FC stands for, from the CTC time base and the
 * MTC count CTC_DELTA since LAST_CTC (as they were at the TSC). */
uint64_t pk__pt_ptime_expected(const struct pk__pt_ptime *t, uint16_t ctc,
			       uint16_t fc, uint64_t ctc_delta,
			       uint32_t last_ctc);
/* A TSC packet of PAYLOAD (7 bytes); AFTER_CYC: the packet before was a
 * CYC. Returns true when perf found it bad (backwards, kept the time). */
bool pk__pt_ptime_tsc(struct pk__pt_ptime *t, uint64_t payload,
		      bool after_cyc);
void pk__pt_ptime_tma(struct pk__pt_ptime *t, uint16_t ctc, uint16_t fc);
void pk__pt_ptime_mtc(struct pk__pt_ptime *t, uint8_t mtc, bool after_cyc);
void pk__pt_ptime_cbr(struct pk__pt_ptime *t, uint8_t ratio);
void pk__pt_ptime_cyc(struct pk__pt_ptime *t, uint64_t cycles);

#endif
