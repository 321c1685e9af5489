/* SPDX-License-Identifier: MIT */
/* itrace internals: the AUX queues and the decoding state. */
#ifndef PK_ITRACE_INT_H
#define PK_ITRACE_INT_H

#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include <perfkit/pt_insn.h>
#include <perfkit/session.h>

/* AUXTRACE_INFO's Intel PT fields (perf's INTEL_PT_* priv indexes). */
struct it_info {
	uint64_t pmu_type, time_shift, time_mult, time_zero;
	uint64_t cap_user_time_zero, tsc_bit, noretcomp_bit;
	uint64_t have_sched_switch, snapshot_mode, per_cpu_mmaps;
	uint64_t mtc_bit, mtc_freq_bits, tsc_ctc_n, tsc_ctc_d, cyc_bit;
	uint64_t max_non_turbo_ratio;
	unsigned nr;		/* fields present */
	bool seen;
};

/* One AUX queue: the trace of one thread (per-thread mmaps) or CPU. */
struct it_queue {
	uint32_t idx;
	int32_t tid, cpu;
	uint8_t *data;		/* the buffers' bytes, in AUX order */
	size_t len, cap;
	uint64_t next_offset;	/* AUX offset expected next */
	bool decoded;
};

/* A thread's pid as the side band told it. */
struct it_thread {
	int32_t pid, tid;
};

struct pk_itrace {
	struct pk_perfdata *pd;
	struct pk_session *sess;
	struct pk_itrace_opts opts;
	pk_itrace_cb cb;
	void *ctx;
	struct it_info info;
	int pt_attr;		/* the intel_pt event's attr index */
	struct perf_event_attr pt;
	bool timeless;
	struct it_queue *q;
	size_t nq, capq;
	struct it_thread *th;
	size_t nth, capth;
	uint32_t branches_filter; /* PK_IP_FLAG_* a branch sample needs */
	int attr[PK_ITRACE_NR_KINDS];	/* the kinds' attr indexes, -1 */
	unsigned nr_synth;
	uint64_t nr_errors;
	uint64_t cpuid_family, cpuid_model;
};

/* decode.c: decodes queue Q with the session's maps now. */
int pk__it_decode(struct pk_itrace *it, struct it_queue *q);
int32_t pk__it_pid(const struct pk_itrace *it, int32_t tid);

#endif
