/* SPDX-License-Identifier: MIT */
/*
 * perfkit: Intel Processor Trace packets.
 *
 * Layers (each below the next):
 *   packet decoder  pk_pt_decoder: bytes -> struct pk_pt_packet, PSB sync
 *   packet encoder  pk_pt_encode: struct pk_pt_packet -> bytes (tests, tools)
 *   tracking        pk_pt_last_ip, pk_pt_time, pk_pt_tcal: last IP, TSC
 *                   estimate and cycle calibration as Intel's libipt does it
 *
 * struct pk_pt_packet is an ABI record (its layout is public); decoders and
 * trackers are opaque. Errors are negative: PK_ERR_EOS at the end of the
 * buffer (also for a packet cut off by the end of the buffer), PK_ERR_NOSYNC
 * before synchronisation, PK_ERR_INTERNAL for bad arguments, -ENOMEM, and
 * the PT-specific codes of enum pk_pt_error (pk_pt_strerror names them all).
 */
#ifndef PERFKIT_PT_H
#define PERFKIT_PT_H

#include <stdint.h>
#include <stddef.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* PT decode errors (disjoint from enum pk_error). */
enum pk_pt_error {
	PK_PT_ERR_BAD_OPC    = -10100, /* unknown opcode */
	PK_PT_ERR_BAD_PACKET = -10101, /* malformed packet payload */
	PK_PT_ERR_CONTEXT    = -10102, /* packet unexpected in this context */
	PK_PT_ERR_NO_TIME    = -10103, /* no timing information yet */
	PK_PT_ERR_BAD_CONFIG = -10104, /* configuration lacks a needed value */
	PK_PT_ERR_BAD_CPU    = -10105, /* cpu unknown to the errata table */
	PK_PT_ERR_NO_IP      = -10106, /* no IP seen yet */
	PK_PT_ERR_IP_SUPPRESSED = -10107, /* the last IP packet suppressed it */
};

/* A string for any error of this header; libipt's wording where libipt has
 * the same error ("unknown packet", "reached end of trace stream", ...). */
PK_API const char *pk_pt_strerror(int err);

enum pk_pt_type {
	PK_PT_INVALID = 0,	/* undecodable bytes (skz84 TMA) */
	PK_PT_PAD,
	PK_PT_PSB,
	PK_PT_PSBEND,
	PK_PT_FUP,
	PK_PT_TIP,
	PK_PT_TIP_PGE,
	PK_PT_TIP_PGD,
	PK_PT_TNT_8,
	PK_PT_TNT_64,
	PK_PT_MODE_EXEC,
	PK_PT_MODE_TSX,
	PK_PT_PIP,
	PK_PT_VMCS,
	PK_PT_CBR,
	PK_PT_TSC,
	PK_PT_TMA,
	PK_PT_MTC,
	PK_PT_CYC,
	PK_PT_STOP,
	PK_PT_OVF,
	PK_PT_MNT,
	PK_PT_EXSTOP,
	PK_PT_MWAIT,
	PK_PT_PWRE,
	PK_PT_PWRX,
	PK_PT_PTW,
	PK_PT_CFE,
	PK_PT_EVD,
	PK_PT_TRIG,
	PK_PT_BBP,
	PK_PT_BIP,
	PK_PT_BEP,
	PK_PT_NTYPES
};

/* IP compression (IPBytes of TIP, TIP.PGE, TIP.PGD, FUP). */
enum pk_pt_ipc {
	PK_PT_IPC_SUPPRESSED = 0,
	PK_PT_IPC_UPDATE_16  = 1,
	PK_PT_IPC_UPDATE_32  = 2,
	PK_PT_IPC_SEXT_48    = 3,
	PK_PT_IPC_UPDATE_48  = 4,
	PK_PT_IPC_FULL       = 6,
};

/* One decoded packet. Only the member of `u` named by `type` is meaningful. */
struct pk_pt_packet {
	uint8_t type;		/* enum pk_pt_type */
	uint8_t size;		/* bytes in the stream, header included */
	union {
		struct { uint8_t ipc; uint64_t ip; } ip;  /* ip: raw payload */
		/* bits results; bit (bits-1) is the oldest, 1 = taken */
		struct { uint8_t bits; uint64_t payload; } tnt;
		struct { uint8_t csl, csd, iflag; } exec;
		struct { uint8_t intx, abrt; } tsx;
		struct { uint8_t nr; uint64_t cr3; } pip;
		struct { uint64_t base; } vmcs;
		struct { uint8_t ratio; } cbr;
		struct { uint64_t tsc; } tsc;
		struct { uint16_t ctc, fc; } tma;
		struct { uint8_t ctc; } mtc;
		struct { uint64_t value; } cyc;
		struct { uint64_t payload; } mnt;
		struct { uint8_t ip; } exstop;
		struct { uint32_t hints, ext; } mwait;
		struct { uint8_t state, sub_state, hw; } pwre;
		struct { uint8_t last, deepest, interrupt, store,
			 autonomous; } pwrx;
		/* plc: payload size code, 0 = 4 bytes, 1 = 8 bytes */
		struct { uint8_t plc, ip; uint64_t payload; } ptw;
		struct { uint8_t type, vector, ip; } cfe;
		struct { uint8_t type; uint64_t payload; } evd;
		struct { uint8_t trbv, ip, icntv, mult; uint16_t icnt; } trig;
		/* sz8: the BIP items that follow are 8 bytes; cont: read
		 * inside a block (after a BBP or BIP with no packet
		 * between that ends one: perf's record goes on, its
		 * items are kept) */
		struct { uint8_t sz8, type, cont; } bbp;
		struct { uint8_t id; uint64_t value; } bip;
		struct { uint8_t ip; } bep;
	} u;
};

/* CPU errata that change how packets or time are decoded. */
struct pk_pt_errata {
	uint32_t bdm70:1, bdm64:1, skd007:1, skd022:1, skd010:1, skl014:1,
		 apl12:1, apl11:1, skl168:1, skz84:1;
};

/*
 * Fills ERRATA for the Intel cpu FAMILY/MODEL (as libipt knows them).
 * Returns 0, or PK_PT_ERR_BAD_CPU for a cpu it does not know (ERRATA is
 * then all clear).
 */
PK_API int pk_pt_cpu_errata(struct pk_pt_errata *errata, unsigned family,
			    unsigned model);

/* Decoder configuration. Declare with PK_OPTS(pk_pt_config, name, ...). */
struct pk_pt_config {
	size_t sz;
	struct pk_pt_errata errata;
	/* Decode BBP, BIP and BEP (perf's PEBS-in-PT packets; libipt treats
	 * them as unknown). */
	uint8_t perf_packets;
	/* Decode TRIG (0xD9, libipt 2.2; perf treats it as a bad byte). */
	uint8_t no_trig;
	/* Timing: IA32_RTIT_CTL.MTCFreq, MSR_PLATFORM_INFO[15:8] and
	 * CPUID leaf 0x15. */
	uint8_t mtc_freq;
	uint8_t nom_freq;
	uint32_t cpuid_0x15_eax, cpuid_0x15_ebx;
};

struct pk_pt_decoder;

/*
 * A packet decoder over BUF[0..LEN) (borrowed: it must outlive the decoder).
 * CONFIG may be NULL. The decoder starts unsynchronised: call
 * pk_pt_sync_forward() or pk_pt_sync_set() first. NULL with errno EINVAL
 * (bad config) or ENOMEM.
 */
PK_API struct pk_pt_decoder *
pk_pt_decoder_new(const uint8_t *buf, size_t len,
		  const struct pk_pt_config *config);
/* Frees a decoder; NULL is fine. */
PK_API void pk_pt_decoder_free(struct pk_pt_decoder *dec);

/*
 * Moves to the next PSB after the current position (the first PSB when not
 * yet synchronised; a PSB partly swallowed by the bad packet before it is
 * found too). Returns 0, or PK_ERR_EOS when there is none.
 */
PK_API int pk_pt_sync_forward(struct pk_pt_decoder *dec);
/* Moves to the last PSB before the current position (the end of the buffer
 * when not yet synchronised). 0 or PK_ERR_EOS. */
PK_API int pk_pt_sync_backward(struct pk_pt_decoder *dec);
/* Puts the decoder at OFFSET without checking for a PSB there (ptdump
 * --no-sync). 0, or PK_ERR_EOS if OFFSET lies past the end. */
PK_API int pk_pt_sync_set(struct pk_pt_decoder *dec, uint64_t offset);

/*
 * Decodes the packet at the current position into *PKT and moves past it.
 * Returns the packet's size (> 0), or: PK_ERR_EOS (end of buffer, also a
 * packet cut short by it), PK_ERR_NOSYNC (not synchronised),
 * PK_PT_ERR_BAD_OPC (unknown opcode), PK_PT_ERR_BAD_PACKET (bad payload).
 * On error the position stays at the failing packet: pk_pt_offset() gives
 * its offset, and pk_pt_sync_forward() resumes at the next PSB.
 */
PK_API int pk_pt_next(struct pk_pt_decoder *dec, struct pk_pt_packet *pkt);

/* Packets DEC decoded so far, a packet read again (after a sync back or
 * a look-ahead) counted again: the work done on the stream. */
PK_API uint64_t pk_pt_packets_read(const struct pk_pt_decoder *dec);

/* Offset of the current position (the next packet, or the one that just
 * failed). 0 or PK_ERR_NOSYNC. */
PK_API int pk_pt_offset(const struct pk_pt_decoder *dec, uint64_t *offset);
/* Offset of the last synchronisation point. 0 or PK_ERR_NOSYNC. */
PK_API int pk_pt_sync_offset(const struct pk_pt_decoder *dec,
			     uint64_t *offset);

/*
 * Encodes PKT (its type and payload; size is ignored except for BIP, where
 * 5 selects a 4-byte item and anything else 8) into BUF of CAP bytes.
 * Returns the number of bytes written, PK_ERR_RANGE if CAP is too small,
 * or PK_PT_ERR_BAD_PACKET for a payload that cannot be encoded (a TNT with
 * no bits or too many, a reserved IP compression, a CYC over 61 bits).
 * CYC uses the shortest encoding.
 */
PK_API int pk_pt_encode(const struct pk_pt_packet *pkt, uint8_t *buf,
			size_t cap);

/*
 * One line of `perf script -D`'s Intel PT dump for the packet at BUF[OFF]
 * (BUF holds one AUX buffer of LEN bytes), with perf's decoding rules
 * (BBP/BIP/BEP decoded in the context of the buffer so far, TRIG a bad
 * byte, PADs after a short packet merged into its line up to 8 bytes, a
 * bad or cut packet printed as one byte "Bad packet!"). Writes the line
 * (no newline) into LINE of CAP bytes and returns the number of bytes it
 * covers (>= 1), or PK_ERR_EOS at the end, PK_ERR_RANGE if CAP is small.
 * *BIP_CTX carries the BBP context from line to line (start at 0).
 */
PK_API int pk_pt_perf_line(const uint8_t *buf, size_t len, size_t off,
			   int *bip_ctx, char *line, size_t cap);

/* ---- Tracking: last IP ---- */

/* Last-IP state for IP decompression; plain value, zero-initialised. */
struct pk_pt_last_ip {
	uint64_t ip;
	uint8_t have_ip, suppressed;
};
/* Applies an IP packet's payload (IPC, raw IP). 0 or PK_PT_ERR_BAD_PACKET
 * for a reserved compression. */
PK_API int pk_pt_last_ip_update(struct pk_pt_last_ip *lip, uint8_t ipc,
				uint64_t ip);
/* The current IP in *IP: 0, PK_PT_ERR_NO_IP when no IP was seen yet, or
 * PK_PT_ERR_IP_SUPPRESSED when the last IP packet suppressed it. */
PK_API int pk_pt_last_ip_query(const struct pk_pt_last_ip *lip, uint64_t *ip);
/* Sign-extends a 48-bit value. */
static inline uint64_t pk_pt_sext48(uint64_t v)
{
	return (v & (1ull << 47)) ? v | 0xffff000000000000ull
				  : v & 0x0000ffffffffffffull;
}

/* ---- Tracking: time (libipt's algorithm: TSC/TMA/MTC/CYC/CBR) ---- */

/* TSC estimate. Plain value: zero it (pk_pt_time_init) to reset. */
struct pk_pt_time {
	uint64_t tsc, base, fc;
	uint32_t ctc, ctc_cyc;
	uint32_t lost_mtc, lost_cyc;
	uint8_t cbr;
	uint8_t have_tsc, have_cbr, have_tma, have_mtc;
};
PK_API void pk_pt_time_init(struct pk_pt_time *t);
/* The current estimate: 0, or PK_PT_ERR_NO_TIME before the first TSC (*TSC
 * is still set, relative to 0). */
PK_API int pk_pt_time_query(const struct pk_pt_time *t, uint64_t *tsc);
/* Each returns 0 or an error: PK_PT_ERR_CONTEXT (TMA without its TSC),
 * PK_PT_ERR_BAD_PACKET (CBR 0, CTC jump over two wraps),
 * PK_PT_ERR_BAD_CONFIG (CPUID 0x15 values missing). */
PK_API int pk_pt_time_tsc(struct pk_pt_time *t, uint64_t tsc);
PK_API int pk_pt_time_cbr(struct pk_pt_time *t, uint8_t ratio);
PK_API int pk_pt_time_tma(struct pk_pt_time *t, uint16_t ctc, uint16_t fc,
			  const struct pk_pt_config *cfg);
PK_API int pk_pt_time_mtc(struct pk_pt_time *t, uint8_t ctc,
			  const struct pk_pt_config *cfg);
/* FCR: calibration (TSC ticks per cycle << 8); 0 counts the CYC as lost. */
PK_API int pk_pt_time_cyc(struct pk_pt_time *t, uint64_t cyc,
			  const struct pk_pt_config *cfg, uint64_t fcr);

/* Cycle calibration. Plain value: pk_pt_tcal_init to reset. */
struct pk_pt_tcal {
	uint64_t fcr, min_fcr, max_fcr;
	uint64_t tsc, cyc_tsc, cyc_mtc;
	uint32_t ctc, lost_mtc;
	uint8_t have_mtc, check_skl168;
};
PK_API void pk_pt_tcal_init(struct pk_pt_tcal *c);
/* The calibration in *FCR (<< 8): 0 or PK_PT_ERR_NO_TIME. */
PK_API int pk_pt_tcal_fcr(const struct pk_pt_tcal *c, uint64_t *fcr);
PK_API int pk_pt_tcal_psb(struct pk_pt_tcal *c, const struct pk_pt_config *cfg);
/* TSC/CBR inside PSB+ (HEADER != 0) or outside it. */
PK_API int pk_pt_tcal_tsc(struct pk_pt_tcal *c, uint64_t tsc, int header);
PK_API int pk_pt_tcal_cbr(struct pk_pt_tcal *c, uint8_t ratio, int header,
			  const struct pk_pt_config *cfg);
PK_API int pk_pt_tcal_mtc(struct pk_pt_tcal *c, uint8_t ctc,
			  const struct pk_pt_config *cfg);
PK_API int pk_pt_tcal_cyc(struct pk_pt_tcal *c, uint64_t cyc);
/* Forgets partial sums but keeps the ratio (keep-tcal-on-ovf). */
PK_API int pk_pt_tcal_ovf(struct pk_pt_tcal *c);

/* ---- perf's VM time correlation (perf inject --vm-time-correlation) ----
 *
 * The trace of a host that ran VM guests holds guest TSC packets (the
 * host's TSC plus the VMX TSC Offset of the guest's VMCS). This walks a
 * queue's packets as perf 6.1's decoder does in its VM time correlation
 * state (no samples): the host TSC expected at each TSC packet comes from
 * the MTC/TMA time (perf's CTC model, not libipt's), the packet is the
 * host's or a guest's by PIP.NR (or by range when no PIP tells), the
 * per-VMCS TSC Offsets are learnt or given, and each guest TSC packet's
 * 7 bytes are given back with the offset taken off. Messages are perf's
 * lines (no newline) through the message callback. */
struct pk_pt_vmtc;

/* Declare with PK_OPTS(pk_pt_vmtc_config, name, ...). */
struct pk_pt_vmtc_config {
	size_t sz;
	uint32_t tsc_ctc_n, tsc_ctc_d;	/* AUXTRACE_INFO's TSC:CTC ratio */
	uint8_t mtc_shift;		/* the event's mtc_period field */
	uint8_t dry_run;		/* compute and report, change nothing */
	uint32_t max_non_turbo_ratio;	/* CYC time after a CBR */
};

/* One buffer of a queue: its bytes, its AUXTRACE reference (a host TSC). */
struct pk_pt_vmtc_buf {
	const uint8_t *data;
	size_t len;
	uint64_t ref;
};

/* A message line (perf's, without its newline). */
typedef void (*pk_pt_vmtc_msg_fn)(void *ctx, const char *line);
/* N new bytes for buffer BUF at offset OFF (a TSC packet's 7 payload
 * bytes, a PEBS TSC's 8), not called in dry-run mode. 0 or a negative
 * error, which stops the walk and is returned. */
typedef int (*pk_pt_vmtc_patch_fn)(void *ctx, size_t buf, size_t off,
				   const uint8_t *bytes, unsigned n);

/* A correlation (its VMCS table lives across the queues). NULL with errno
 * EINVAL (bad config) or ENOMEM. */
PK_API struct pk_pt_vmtc *
pk_pt_vmtc_new(const struct pk_pt_vmtc_config *cfg, pk_pt_vmtc_msg_fn msg,
	       pk_pt_vmtc_patch_fn patch, void *ctx);
PK_API void pk_pt_vmtc_free(struct pk_pt_vmtc *v);
/*
 * Takes perf's offsets syntax (what follows "dry-run"): OFFSET sets the
 * default TSC Offset (the last one given counts), OFFSET:VMCS[,VMCS]...
 * the offset of those VMCSs (the first given counts); numbers as
 * strtoull base 0. 0, -EINVAL (a VMCS of 0 or missing, or text that is
 * no number: perf 6.1 loops forever there) or -ERANGE.
 */
PK_API int pk_pt_vmtc_parse(struct pk_pt_vmtc *v, const char *args);
/*
 * Walks one queue's buffers (consecutive parts of its trace, in order).
 * Returns the number of TSC packets translated (a dry run's too), or a
 * negative error: -EINVAL (bad arguments), -ENOMEM, the patch callback's.
 */
PK_API int pk_pt_vmtc_queue(struct pk_pt_vmtc *v,
			    const struct pk_pt_vmtc_buf *bufs, size_t n);

#ifdef __cplusplus
}
#endif
#endif
