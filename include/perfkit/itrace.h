/* SPDX-License-Identifier: MIT */
/*
 * perfkit itrace: the instruction trace (Intel PT) of a perf.data file
 * turned into synthesized samples, as perf's --itrace does.
 *
 *   pk_itrace_opts   what to synthesize: perf's --itrace letters, parsed
 *                    by pk_itrace_parse() and written back by
 *                    pk_itrace_format()
 *   pk_itrace        the decoder of one perf.data: AUXTRACE_INFO, the
 *                    AUXTRACE buffers queued per thread or CPU, the code
 *                    of each thread from the session's maps; feed it every
 *                    record in the session's order with pk_itrace_record()
 *                    and it calls back with each synthesized sample when
 *                    perf would deliver it (timeless decoding: when the
 *                    traced thread exits, or at pk_itrace_flush()).
 */
#ifndef PERFKIT_ITRACE_H
#define PERFKIT_ITRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pk_itrace_period_type {
	PK_ITRACE_PERIOD_INSTRUCTIONS,
	PK_ITRACE_PERIOD_TICKS,
	PK_ITRACE_PERIOD_NANOSECS,
};

/* perf's itrace_synth_opts. */
struct pk_itrace_opts {
	size_t sz;
	bool set;		/* a letter was given (else perf's default) */
	bool instructions;	/* i */
	bool cycles;		/* y */
	bool branches;		/* b */
	bool transactions;	/* x */
	bool ptwrites;		/* w */
	bool pwr_events;	/* p */
	bool other_events;	/* o */
	bool intr_events;	/* I */
	bool errors;		/* e */
	bool log;		/* d */
	bool calls;		/* c */
	bool returns;		/* r */
	bool callchain;		/* g */
	bool add_callchain;	/* G */
	bool last_branch;	/* l */
	bool add_last_branch;	/* L */
	bool approx_ipc;	/* A */
	bool timeless;		/* Z */
	bool flc, llc, tlb, remote_access, mem; /* f m t a M (ARM SPE) */
	int quick;		/* q: 1, qq: 2 */
	bool error_minus_overflow;  /* e-o */
	bool error_minus_lost;      /* e-l */
	uint32_t log_plus_flags, log_minus_flags; /* d+x / d-x letters */
	unsigned callchain_sz;	/* g N (default 16) */
	unsigned last_branch_sz;/* l N (default 64) */
	uint64_t period;	/* i/y period */
	int period_type;	/* enum pk_itrace_period_type */
	bool period_set;
	uint64_t initial_skip;	/* s N */
	/* keep each thread's call stack (the depth of samples, perf's
	 * thread stack for callindent) */
	bool thread_stack;
	/* give every sample its instruction's bytes (perf script's insn
	 * and insnlen fields); else only where needed */
	bool insn_bytes;
	/* count cycles (CYC packets) for the IPC of branch and instruction
	 * samples (perf script's ipc field) */
	bool ipc;
	/* the samples are shown as perf script shows them: perf script
	 * reads each shown sample's instruction bytes from its DSO when it
	 * has none, which makes perf's decoder report one failed fetch of a
	 * missing file where it would report two (perf report does not) */
	bool shown;
};
#define pk_itrace_opts__last_field shown

/* The default sizes and period (perf's). */
#define PK_ITRACE_DEFAULT_CALLCHAIN_SZ 16
#define PK_ITRACE_DEFAULT_LAST_BRANCH_SZ 64
#define PK_ITRACE_MAX_CALLCHAIN_SZ 1024
#define PK_ITRACE_DEFAULT_PERIOD 100000	/* ns */

/*
 * Parses an --itrace argument (without "--itrace="; NULL means the bare
 * option: perf's default letters; "" enables nothing) into *O, which the caller zeroed
 * with its sz set. 0, or PK_ERR_SYNTAX with *ERRPOS the offset of the
 * offending character.
 */
PK_API int pk_itrace_parse(struct pk_itrace_opts *o, const char *s,
			   size_t *errpos);
/*
 * perf's defaults (itrace_synth_opts__set_default): NO_SAMPLE is true for
 * tools that show samples one by one (perf script: calls, power, errors,
 * ...; period 1 instruction), false for report and inject (instructions
 * and cycles every 100 us).
 */
PK_API void pk_itrace_set_default(struct pk_itrace_opts *o, bool no_sample);
/* The letters of O as an --itrace argument (snprintf semantics). */
PK_API int pk_itrace_format(const struct pk_itrace_opts *o, char *buf,
			    size_t len);

/* The kinds of synthesized samples. */
enum pk_itrace_kind {
	PK_ITRACE_INSTRUCTIONS,
	PK_ITRACE_BRANCHES,
	PK_ITRACE_PSB,
	PK_ITRACE_CBR,
	PK_ITRACE_ERROR,
	PK_ITRACE_TRANSACTIONS,	/* x: TSX begin, commit, abort */
	PK_ITRACE_PTWRITE,	/* w */
	PK_ITRACE_MWAIT,	/* p, with the pwr_evt config bit */
	PK_ITRACE_PWRE,
	PK_ITRACE_EXSTOP,
	PK_ITRACE_PWRX,
	PK_ITRACE_EVT,		/* I: event trace (CFE with its EVDs) */
	PK_ITRACE_IFLAG,	/* I: interrupt flag changes (cap_event_trace) */
	/* o: PEBS via Intel PT, samples of the file's aux_output event
	 * (its own attr) made from the trace's block items */
	PK_ITRACE_PEBS,
	PK_ITRACE_NR_KINDS,
};

/* perf's sample flags (PERF_IP_FLAG_*). */
enum {
	PK_IP_FLAG_BRANCH = 1u << 0,
	PK_IP_FLAG_CALL = 1u << 1,
	PK_IP_FLAG_RETURN = 1u << 2,
	PK_IP_FLAG_CONDITIONAL = 1u << 3,
	PK_IP_FLAG_SYSCALLRET = 1u << 4,
	PK_IP_FLAG_ASYNC = 1u << 5,
	PK_IP_FLAG_INTERRUPT = 1u << 6,
	PK_IP_FLAG_TX_ABORT = 1u << 7,
	PK_IP_FLAG_TRACE_BEGIN = 1u << 8,
	PK_IP_FLAG_TRACE_END = 1u << 9,
	PK_IP_FLAG_IN_TX = 1u << 10,
	PK_IP_FLAG_VMENTRY = 1u << 11,
	PK_IP_FLAG_VMEXIT = 1u << 12,
	PK_IP_FLAG_INTR_DISABLE = 1u << 13,
	PK_IP_FLAG_INTR_TOGGLE = 1u << 14,
};

struct perf_branch_entry;

/* The fields of a PEBS sample beside ip, addr, time and period, as perf
 * fills them from the block items (intel_pt_do_synth_pebs_sample). */
struct pk_itrace_pebs {
	uint64_t weight;	/* perf's sample weight */
	uint16_t ins_lat;	/* instruction latency (WEIGHT_STRUCT) */
	uint64_t transaction;
	/* interrupt registers: present when the event samples REGS_INTR
	 * and the record had GP or XMM items; REGS as perf script reads
	 * them, one for each bit of MASK (the event's): those the record
	 * gave (of the event's), packed in perf's register order, then
	 * what the last PEBS sample left in the rest (perf's event buffer;
	 * 0 at first) */
	bool has_regs;
	uint64_t regs_abi, regs_mask;
	unsigned nr_regs;
	uint64_t regs[64];
};

/* One synthesized sample, valid during the callback. */
struct pk_itrace_sample {
	int kind;		/* enum pk_itrace_kind */
	int attr;		/* its attribute index (pk_itrace_kind_attr) */
	int32_t pid, tid, cpu;	/* cpu -1 when unknown */
	uint64_t time;		/* perf time (ns); 0 when timeless */
	bool has_time;
	uint64_t ip, addr;	/* addr: branch target */
	uint16_t cpumode;	/* PERF_RECORD_MISC_USER / _KERNEL */
	uint16_t addr_cpumode;	/* of addr */
	uint64_t period;
	uint32_t flags;		/* PK_IP_FLAG_* */
	uint8_t insn_len;
	uint8_t insn[16];	/* the instruction's bytes (when known) */
	uint64_t insn_cnt;	/* instructions since the last sample */
	/* g: the call chain perf synthesizes from its thread stack (a
	 * PERF_CONTEXT_* marker, the ip, the return addresses from the
	 * innermost out); NULL when none */
	const uint64_t *callchain;
	unsigned nr_callchain;
	/* call depth of the sample's thread (callindent); -1: a thread
	 * without a call stack (a VM guest's: perf keeps the host
	 * thread's stack, its guest thread has none) */
	int depth;
	/* l: the last branches before it, the latest first (perf's
	 * thread_stack__br_sample); NULL when none */
	const struct perf_branch_entry *brstack;
	unsigned nr_brstack;
	union {
		struct { uint64_t offset; } psb;
		struct {
			uint8_t cbr, max_nonturbo;
			uint32_t freq_khz;
		} cbr;
		/* ip: the event named its IP (a FUP) */
		struct { uint64_t payload; bool ip; } ptwrite;
		struct { uint32_t hints, ext; } mwait;
		struct { uint8_t hw, cstate, subcstate; } pwre;
		struct { bool ip; } exstop;
		struct { uint8_t deepest, last, wake; } pwrx;
		/* CFE type and vector, perf's IP field, the EVDs in
		 * order (at most PK_PT_MAX_EVD) */
		struct {
			uint8_t type, ip, vector, nevd;
			uint8_t evd_type[4];
			uint64_t evd[4];
		} evt;
		/* the flag after the change; via_branch: at a branch to
		 * branch_ip */
		struct {
			uint8_t iflag, via_branch;
			uint64_t branch_ip;
		} iflag;
		/* o: the PEBS fields (valid during the callback) */
		const struct pk_itrace_pebs *pebs;
		struct {
			int type;	/* 1: decoder error, 2: lost data */
			int code;	/* perf's INTEL_PT_ERR_* number */
			const char *msg;
		} error;
	} u;
	/* IPC (branch and instruction samples, opts.ipc): instructions and
	 * cycles since the last sample of its kind that had them, as perf
	 * counts them; 0 when the sample has none */
	uint64_t ipc_insn_cnt, ipc_cyc_cnt;
};

struct pk_perfdata;
struct pk_session;
struct pk_record;
struct pk_itrace;

/*
 * The PERF_SAMPLE_RAW payload perf gives a synthesized psb, cbr, ptwrite,
 * mwait, pwre, exstop, pwrx, evt or iflag sample (struct perf_synth_intel_* without
 * their leading padding): at
 * most LEN bytes into BUF; returns its size, or -EINVAL for other kinds.
 * pk_itrace_synth_decode() is its reader: the payload of a sample of a
 * PERF_TYPE_SYNTH event of CONFIG (perf's PERF_SYNTH_INTEL_*) into *S
 * (kind and u). 0, or -EINVAL (unknown config, short payload).
 */
PK_API int pk_itrace_synth_encode(const struct pk_itrace_sample *s,
				  void *buf, size_t len);
PK_API int pk_itrace_synth_decode(uint64_t config, const void *raw,
				  size_t size, struct pk_itrace_sample *s);
/* PERF_TYPE_SYNTH, perf's type of the events it synthesizes. */
#define PK_TYPE_SYNTH 0x80000000u

/* Called for each synthesized sample: non-zero stops and is returned. */
typedef int (*pk_itrace_cb)(void *ctx, const struct pk_itrace_sample *s);

/*
 * Samples in a run (optional, pk_itrace_set_run_cb): S is the first of
 * R->n samples of one kind (instructions or branches) that differ from it
 * only in their ip, target, flags and instruction size (entry k: ip[k],
 * addr[k], flags[k], insn_len[k]; addr and flags NULL when all are S's,
 * as in instruction runs; entry 0 is S's own); the rest (the task, time,
 * period, cpumode of both addresses, depth) is S's, and nothing else is
 * delivered between them. Runs are made only when no instruction bytes
 * are asked for (S's insn is not the entries'). Without a run callback
 * each goes to the sample callback.
 */
struct pk_itrace_run {
	const uint64_t *ip, *addr;
	const uint32_t *flags;
	const uint8_t *insn_len;
	unsigned n;
};
/* Non-zero stops and is returned. */
typedef int (*pk_itrace_run_cb)(void *ctx, const struct pk_itrace_sample *s,
				const struct pk_itrace_run *r);

/*
 * The Intel PT fields of PERF_RECORD_AUXTRACE_INFO (type 1) as perf 6.1
 * record writes them: the PMU's type and term bits, the TSC conversion of
 * the first ring's control page, the recording's modes, the TSC:CTC ratio
 * (CPUID leaf 0x15), the PMU's max_nonturbo_ratio, the address filter and
 * caps/event_trace.
 */
struct pk_pt_auxinfo {
	uint64_t pmu_type, time_shift, time_mult, time_zero;
	uint64_t cap_user_time_zero, tsc_bit, noretcomp_bit;
	uint64_t have_sched_switch; /* 0, 1 (sched_switch tracepoint), 2
				       (switch events per task), 3 (CPU wide) */
	uint64_t snapshot_mode, per_cpu_mmaps;
	uint64_t mtc_bit, mtc_freq_bits, tsc_ctc_n, tsc_ctc_d, cyc_bit;
	uint64_t max_non_turbo_ratio;
	const char *filter;         /* NULL or "": none */
	uint64_t cap_event_trace;
};
struct pk_evsel;
struct perf_event_mmap_page;
/* Fills the PMU's fields from Intel PT event PT (its PMU's format/ and
 * caps/ files), the time fields from control page PC (may be NULL), the
 * TSC:CTC ratio from the CPU; the mode fields and the filter are the
 * caller's (left 0). 0, or -EINVAL when PT is no event of a known PMU. */
PK_API int pk_pt_auxinfo_fill(struct pk_pt_auxinfo *info,
			      const struct pk_evsel *pt,
			      const struct perf_event_mmap_page *pc);
/* Encodes the record (header, type 1, the fields, the filter string NUL-
 * padded to 8 bytes, cap_event_trace) into BUF of SIZE bytes. Returns its
 * size, or -ENOSPC / -EINVAL. */
PK_API long pk_pt_auxinfo_encode(const struct pk_pt_auxinfo *info, void *buf,
				 size_t size);

/*
 * The decoder of PD's instruction trace, reading code through SESS (the
 * session the caller runs over PD: its maps must reflect the records fed
 * so far). NULL with errno ENOENT (PD has no AUX area trace), ENOTSUP (a
 * kind of trace perfkit does not decode), EINVAL or ENOMEM.
 */
PK_API struct pk_itrace *pk_itrace_new(struct pk_perfdata *pd,
				       struct pk_session *sess,
				       const struct pk_itrace_opts *opts,
				       pk_itrace_cb cb, void *ctx);
PK_API void pk_itrace_free(struct pk_itrace *it);
/* Runs of samples go to CB (NULL: one by one to the sample callback),
 * with the sample callback's context. */
PK_API void pk_itrace_set_run_cb(struct pk_itrace *it, pk_itrace_run_cb cb);
/*
 * Reads the instruction trace ahead, through a second reader over the
 * bytes the decoder's reader holds (a pipe's too), as perf does with a
 * file's AUXTRACE index: with timestamps the queues are then decoded as
 * the records' times pass (samples in time order among the recorded
 * ones); the AUXTRACE records fed later are skipped. 0, -errno or the
 * reader's error.
 */
PK_API int pk_itrace_read_ahead(struct pk_itrace *it);
/* Feeds one record (call before the session applies it). Samples due
 * are delivered first. 0 or a callback's / decoder's error (-errno). */
PK_API int pk_itrace_record(struct pk_itrace *it, const struct pk_record *rec);
/* Decodes what remains queued (end of file). */
PK_API int pk_itrace_flush(struct pk_itrace *it);
/*
 * perf's --time on the instruction trace (perf script/report 6.1): the
 * samples of the N ranges R only (perf times in ns; a start or an end 0:
 * open, an open end keeps all after its start; in order, not
 * overlapping), as intel-pt.c's time filter makes
 * them: each queue fast-forwarded to the PSB before a range's start
 * (instructions skipped count in no period), samples before it left out
 * (their instructions add to the next i sample's period, no thread stack
 * moves), decoding stopped after the last range. A timeless trace is
 * decoded whole, as perf does (the caller filters its samples). Before
 * the first record; N 0 drops the ranges. 0, -EINVAL or -ENOMEM.
 */
struct pk_itrace_time_range {
	uint64_t start, end;
};
PK_API int pk_itrace_set_time_ranges(struct pk_itrace *it,
				     const struct pk_itrace_time_range *r,
				     size_t n);
/* Whether the trace is decoded timeless (no usable timestamps). */
PK_API bool pk_itrace_timeless(const struct pk_itrace *it);
/*
 * The attribute index of the events of KIND, or -1 (not synthesized).
 * When the decoder reads the file's AUXTRACE_INFO it adds to the file's
 * list (pk_perfdata_add_attr) the events perf synthesizes for the
 * options, in perf's order and with perf's attrs and names (branches and
 * instructions with the traced event's modifiers: "branches:uH"; also
 * those that sample nothing here, such as "transactions", which perf's
 * event column counts).
 */
PK_API int pk_itrace_kind_attr(const struct pk_itrace *it, int kind);
/* What the trace held that perf would have made samples of and perfkit
 * does not yet (the letters asked for them): PK_ITRACE_UNSYNTH_* bits. */
enum {
	PK_ITRACE_UNSYNTH_PTWRITE = 1 << 0,	/* w: PTWRITE packets */
	PK_ITRACE_UNSYNTH_POWER = 1 << 1,	/* p: MWAIT, PWRE, PWRX, EXSTOP */
	/* x: TSX begin/commit/abort; never set now (all synthesized) */
	PK_ITRACE_UNSYNTH_TRANSACTIONS = 1 << 2,
	PK_ITRACE_UNSYNTH_EVENTS = 1 << 3,	/* I: event trace (CFE/EVD) */
};
PK_API unsigned pk_itrace_unsynthesized(const struct pk_itrace *it);
/* The fields of a struct pk_sample that IS gives (sample type
 * SAMPLE_TYPE: its event's; ids, raw payload and the rest left as they
 * are): a synthesized sample as the tools' sample paths take one. */
struct pk_sample;
PK_API void pk_itrace_sample_fill(const struct pk_itrace_sample *is,
				  uint64_t sample_type, struct pk_sample *sm);
/*
 * G and L: the call chain and the last branches perf gives a recorded
 * sample SM that has none (thread_stack__sample_late and
 * thread_stack__br_sample_late), from the flow of SM's thread decoded so
 * far (call it after pk_itrace_record() of SM's record): *CHAIN (perf's
 * PERF_CONTEXT_* markers and addresses, innermost first; at least the
 * sample's context and ip) for G, *BR (the latest first) for L; counts 0
 * for the letters not given. The arrays stay valid until the next call.
 * 0 or -ENOMEM.
 */
PK_API int pk_itrace_late(struct pk_itrace *it, const struct pk_sample *sm,
			  const uint64_t **chain, unsigned *nr_chain,
			  const struct perf_branch_entry **br, unsigned *nr_br);
/* The decoder errors made into samples so far (e asked for, -o/-l not
 * leaving them out): perf's closing warning counts these. */
PK_API uint64_t pk_itrace_nr_errors(const struct pk_itrace *it);

/* ---- perf inject --vm-time-correlation ---- */

/* A message line (perf's, without its newline). */
typedef void (*pk_itrace_msg_fn)(void *ctx, const char *line);

/* Declare with PK_OPTS(pk_itrace_vmtc_opts, name, ...). */
struct pk_itrace_vmtc_opts {
	size_t sz;
	const char *args;	/* perf's offsets after "dry-run" (NULL: none) */
	bool dry_run;		/* compute and report, change nothing */
	bool timeless;		/* --itrace=Z: refused as perf refuses it */
	pk_itrace_msg_fn msg;	/* perf's lines, in its order */
	void *ctx;
};

/*
 * perf inject --vm-time-correlation on the perf.data at PATH (a file):
 * each AUX queue's Intel PT walked in perf's order as perf 6.1 walks it
 * (pk_pt_vmtc_queue), the guests' TSC packets rewritten in the file
 * itself (unless dry-run), perf's messages given to O->msg, the refusals
 * too ("Intel PT has no time information for VM Time Correlation", "MTC
 * packets must have been enabled ...", "Failed to parse VM Time
 * Correlation options", each followed by perf's "OFFSET [SIZE]: failed to
 * process type: 70 [REASON]" line). Returns the number of TSC packets
 * translated (a dry run's too: that it would), or a negative error:
 * -EINVAL/-ERANGE (a refusal, its lines given), -EOPNOTSUPP (a snapshot
 * or sampling mode trace: perf's overlap handling is not done), -errno
 * opening, reading or writing PATH, -ENOMEM, the reader's PK_ERR_*. A
 * file without Intel PT is left alone (0).
 */
PK_API int pk_itrace_vm_time_correlation(const char *path,
					 const struct pk_itrace_vmtc_opts *o);

#ifdef __cplusplus
}
#endif
#endif
