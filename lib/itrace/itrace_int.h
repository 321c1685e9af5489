/* SPDX-License-Identifier: MIT */
/* itrace internals: the AUX queues and the decoding state. */
#ifndef PK_ITRACE_INT_H
#define PK_ITRACE_INT_H

#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include <perfkit/pt_insn.h>
#include <perfkit/session.h>

struct pk_itrace;

/* AUXTRACE_INFO's Intel PT fields (perf's INTEL_PT_* priv indexes). */
struct it_info {
	uint64_t pmu_type, time_shift, time_mult, time_zero;
	uint64_t cap_user_time_zero, tsc_bit, noretcomp_bit;
	uint64_t have_sched_switch, snapshot_mode, per_cpu_mmaps;
	uint64_t mtc_bit, mtc_freq_bits, tsc_ctc_n, tsc_ctc_d, cyc_bit;
	uint64_t max_non_turbo_ratio;
	unsigned nr;		/* fields present */
	bool cap_event_trace;	/* perf's, after the filter string */
	bool seen;
};

/* ranges.c: perf's time filter of a queue (intel_pt_time_filter): the
 * next bound (a start or an end), where the trace was fast-forwarded. */
struct it_rwalk {
	bool on;		/* ranges apply (a timed trace) */
	bool sel_start;		/* SEL is a range's start */
	bool ff;		/* a fast forward towards SEL is due */
	bool stop;		/* past the last range: decoding ends */
	unsigned idx;		/* the range SEL belongs to */
	uint64_t sel;		/* the next bound's TSC, 0: none */
	uint64_t ff_done;	/* the start last fast-forwarded to */
	uint64_t carry;		/* instructions of i samples left out */
	uint64_t ff_cnt, ff_carry; /* ... and the counts when the fast
				    forward became due (perf's, then) */
	/* the block being walked, and the count before it: a PSB+ shown
	 * inside it is a state of perf's at its FUP */
	uint64_t blk_ip, blk_end, blk_cnt;
	uint8_t blk_mode;
	bool cbr_unseen;	/* a CBR sample was left out: */
	int cbr_ratio;		/* ... its ratio */
	int trace_nr;		/* perf's trace number of the buffer */
	int ts_nr;		/* ... its thread stack's, -1: none yet */
};

/* the most i samples delivered as one run */
#define RUN_MAX 4096u

/* The sizes of the first instructions of a block (at IP, in MODE), kept
 * for i samples in runs (one cache line each, by the image they came
 * from: the walk's table is forgotten when its image changes). */
#define SZC_BITS 12
#define SZC_N 53
struct szent {
	uint64_t ip;
	uint8_t mode, n, valid;
	uint8_t sz[SZC_N];
};

/* perf reads the byte after a packet it rejects (a MODE it cannot
 * read) as a CYC: its cycles add up from its last CBR change (CBR), where
 * its time was the reference (REF); with a CBR known its time becomes the
 * reference plus the cycles at the core's ratio when that is later, BUMP
 * ticks over the trace's while the trace's time stays BUMP_T. */
struct it_cyc {
	uint8_t cbr;
	uint64_t ref, cnt, bump_t, bump;
};

/* perf's time at the trace's time T. */
static inline uint64_t pk__it_cyc_ts(const struct it_cyc *c, uint64_t t)
{
	return t && t == c->bump_t ? t + c->bump : t;
}

/* decode.c: a CBR of RATIO at trace time T; the BYTE after a bad packet
 * at trace time T (MNT: the max non-turbo ratio): true when perf took it
 * as a CYC with a CBR known (its count of instructions restarts). */
void pk__it_cyc_cbr(struct it_cyc *c, uint8_t ratio, uint64_t t);
bool pk__it_cyc_bad(struct it_cyc *c, uint8_t byte, uint64_t t, uint64_t mnt);

struct walk {
	struct pk_itrace *it;
	struct it_queue *q;
	struct pk_pt_insn_decoder *dec;
	struct pk_pt_image *img;
	bool blocks;		/* a block at a time (no per-instruction need) */
	struct szent *szc;	/* (1 << SZC_BITS, or NULL) */
	int8_t lean;		/* only branches asked for (-1: not known) */
	/* the lean walk's branch and instruction samples (their context),
	 * and the run gathered: of LEAN_KIND, NLEAN samples */
	struct pk_itrace_sample lean_s, lean_i;
	int lean_kind;
	unsigned nlean;
	const struct pk_pt_image *szc_img;	/* what szc's sizes are of */
	int32_t pid, tid, cpu;
	uint64_t cnt;		/* instructions since the last i sample */
	uint64_t period;	/* in instructions; 0: no i samples */
	/* i with a time period: perf's tick sampling (a power of two of
	 * TSC ticks, sampled where the decoder's timestamp plus the
	 * instructions since it crosses a multiple) */
	bool tick;
	uint64_t ticks, tick_mask, last_masked, pts, pts_insn, tleft;
	/* perf's timestamp_insn_cnt: the instructions walked since the
	 * decoder's time (est_t) last changed, for its estimate */
	uint64_t est_t, est_n;
	uint64_t est_pend;	/* ... walked, not yet counted (est_count) */
	struct it_cyc cyc;	/* perf's CYC after a bad packet */
	uint64_t err_at;	/* an error's time, the event's (0: the walk's) */
	bool continuous;
	struct pk_pt_insn pend;	/* the last instruction, if a branch */
	bool have_pend;
	uint64_t next_ip;	/* after the last instruction */
	uint64_t off_ip;	/* perf's decoder ip while tracing is off */
	int cbr;		/* the last CBR reported, -1 none */
	uint64_t psb_ip;	/* the last PSB+'s FUP (its samples' ip) */
	bool lost;		/* an error, no instruction decoded since */
	bool psb_synced;	/* sample mode: the sync PSB passed */
	bool resync;		/* an error, the flow not taken up again */
	uint64_t rs_ip;		/* ... perf's decoder ip meanwhile: the error's,
				 * 0 after a failed fetch (its NO_IP state) */
	bool in_tx;		/* inside a TSX transaction */
	/* perf's NR (PIP.NR: in a VM guest) where the flow stands and after
	 * the next branch (a PIP's), the host's image while in the guest's,
	 * an async branch's NR (its PIP came first) */
	bool nr, next_nr, anr_set, anr;
	struct pk_pt_image *himg;
	/* a TSX abort met at its FUP (TX_ABORT_IP): its samples come with
	 * the branch from there to the TIP after it (synth.c), the next
	 * event; none there is perf's error (decode.c) */
	bool tx_abort;
	uint64_t tx_abort_ip;
	uint8_t iflag;		/* the interrupt flag (cap_event_trace) */
	/* an iflag change at a FUP: the flags an instruction sample of the
	 * FUP's instruction, next walked, takes (perf's same state) */
	uint32_t fup_iflags;
	uint64_t fup_iflags_ip, fup_iflags_walks;
	uint16_t pwre_payload;	/* the last PWRE at a FUP (synth.c) */
	bool fup_walked;	/* ... an event at a FUP, walks then: */
	uint64_t fup_walks;
	uint64_t walks;		/* instructions or blocks walked */
	struct ts_ent { uint64_t ret; bool trace_end; } *ts;
	size_t ts_n, ts_cap;	/* perf's thread stack: ts_n is the depth */
	uint64_t cbr2khz;
	bool isamp;		/* the pending branch is an i sample */
	int err;		/* a callback's */
	bool refail;		/* an event failed and resynced */
	/* timed: the last failed fetch's IP, the instruction count and
	 * time then (fail_ip 0: none) */
	uint64_t fail_ip, fail_insn, fail_t;
	uint64_t tsc;		/* perf's timestamp: only moves forward */
	uint64_t t_now;		/* the decoder's time before the step */
	uint64_t t_step;	/* ... and after it (its branch's query) */
	uint64_t pend_tsc;	/* the pending branch's time */
	struct pk_pt_event pend_ev; /* ... as an event (only its time set) */
	/* a PSB+ (and its CBR) read ahead of the flow: perf shows it
	 * just before the instruction at the PSB+'s FUP */
	struct pk_pt_event def[8];
	unsigned ndef;
	/* resumable: the status between steps; samples made past the
	 * time the caller decodes up to wait in PENDQ */
	int status;
	bool done;
	uint64_t limit;
	struct it_pend {
		struct pk_itrace_sample s;
		uint64_t tsc;
		uint64_t *chain;	/* a copy of s.callchain */
		struct perf_branch_entry *br;	/* ... of s.brstack */
		struct pk_itrace_pebs *pebs;	/* ... of s.u.pebs */
	} *pendq;
	struct pk_itrace_pebs pebs;	/* the PEBS sample being made */
	uint64_t *chain;	/* the call chain being synthesized */
	size_t npend, cappend, pend_head;
	struct it_quick *qk;	/* q/qq: quick decoding instead (quick.c) */
	/* l: perf's ring of the last branches (thread_stack's
	 * br_stack_rb): LBR_POS the latest, LBR_NR filled */
	struct perf_branch_entry *lbr, *lbr_out;
	uint64_t *lbr_tsc;	/* L: each entry's TSC */
	unsigned lbr_sz, lbr_pos, lbr_nr;
	uint64_t skipped_insn;	/* of the i samples s skipped */
	/* of an i sample due at a branch perf's walk failed at: perf makes
	 * none, its count goes to the next one's period */
	uint64_t unsampled;
	int cur_ts;		/* the task's stack in it->tstk, -1 none */
	struct it_rwalk rg;	/* --time (ranges.c) */
	/* IPC (synth.c): perf's total cycles (CYC while tracing) and
	 * instructions; a CYC not yet sampled; the state being sampled
	 * carries IPC (its totals); each kind's totals at its last IPC */
	uint64_t tot_cyc, tot_insn, ipc_cyc, ipc_insn, a_cyc;
	bool sample_cyc, ipc_flag;
	uint64_t last_br_cyc, last_br_insn, last_in_cyc, last_in_insn;
};

/* A task's thread stack and last branches (perf's per thread, the idle
 * task's per CPU), kept while the walks decode other tasks. */
struct it_tstack {
	int32_t tid, cpu;	/* cpu: the idle task's, else -1 */
	struct ts_ent *ent;
	size_t n, cap;
	struct perf_branch_entry *lbr;
	uint64_t *lbr_tsc;
	unsigned lbr_pos, lbr_nr;
};

/* One AUX queue: the trace of one thread (per-thread mmaps) or CPU. */
struct it_queue {
	uint32_t idx;
	int32_t tid, cpu;
	uint8_t *data;		/* the buffers' bytes, in AUX order */
	size_t len, cap;
	uint64_t next_offset;	/* AUX offset expected next */
	bool decoded;
	struct walk *w;		/* its decoding, once begun */
	struct it_buf {		/* where each AUXTRACE buffer begins */
		size_t off;
		uint64_t ref;	/* its record's reference (a TSC) */
	} *bufs;
	size_t nbufs, capbufs;
	/* snapshot mode: the last buffer that gave data, whole (what the
	 * next one may repeat) */
	uint8_t *prev;
	size_t prev_len, prev_cap;
	/* sample mode: the i period's count as the last walk left it
	 * (perf's one decoder per queue counts on across buffers) */
	uint64_t carry_cnt, carry_unsampled;
	int carry_cbr;		/* ... and the CBR it saw last (-1: none) */
	uint64_t carry_pts, carry_pts_insn, carry_masked; /* (tick periods) */
	/* sample mode: the bytes earlier walks were given (perf's decoder
	 * position goes on from buffer to buffer) and the PSB offset perf's
	 * state holds (its sync PSB leaves it) */
	uint64_t psb_base, psb_last;
};

/* A process's code as the session maps it (by its maps' generation). */
struct it_image {
	int32_t pid;
	uint64_t gen;
	struct pk_pt_image *img;
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
	pk_itrace_run_cb run_cb;	/* runs of i samples (or NULL) */
	uint64_t *run_ips;	/* a run's ips, targets, flags and sizes */
	uint64_t *run_addrs;	/* (RUN_MAX each) */
	uint32_t *run_flags;
	uint8_t *run_lens;
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
	uint64_t nr_events;	/* samples made so far (s: perf's num_events) */
	struct it_tstack *tstk;	/* the tasks' stacks (tstack.c) */
	size_t ntstk, captstk;
	unsigned lbr_ring;	/* entries of a ring of last branches */
	uint64_t *late;		/* G: the chain of a recorded sample */
	unsigned nlate;
	struct perf_branch_entry *late_br;	/* L: its last branches */
	uint64_t cpuid_family, cpuid_model;
	struct it_image *imgs;	/* by pid; replaced ones kept to the end */
	struct pk_pt_image *gimg; /* the default guest's kernel code */
	size_t nimgs, capimgs;
	bool prequeued;		/* AUXTRACE read ahead from the file */
	unsigned unsynth;	/* PK_ITRACE_UNSYNTH_*: events met, not made */
	struct it_bad_dso {	/* DSOs whose code could not be read */
		const char *dso;
		int left;	/* failed fetches still reported */
	} *bad;
	char **tried;		/* DSOs whose missing file perf tried */
	size_t ntried, captried;
	uint64_t pre_ip[16];	/* states from unreadable code, to resolve */
	int32_t pre_pid[16];
	unsigned npre;
	size_t nbad, capbad;
	/* --time: perf times (ns), then TSC once AUXTRACE_INFO told how */
	struct pk_itrace_time_range *tr_ns, *tr;
	size_t ntr;
	bool tr_done;
	/* the task each CPU runs, from the side band */
	struct { int32_t pid, tid; bool set; } cpu_tid[4096];
	/* have_sched_switch 1: the sched:sched_switch attr (-1: none) and
	 * the file's tracepoint formats (sched.c) */
	int sw_attr;
	struct pk_tracefmt *sw_fmt;
	/* sample mode (auxsamp.c): samples carry the trace; each id's ring,
	 * CPU and thread from ID_INDEX */
	bool sampling;
	struct it_sid { uint64_t id, idx; int32_t cpu, tid; } *sids;
	size_t nsids, capsids;
};

/* perf's TSC conversions (tsc_to_perf_time, intel_pt_ns_to_ticks). */
static inline uint64_t pk__it_tsc_to_perf(const struct it_info *in, uint64_t tsc)
{
	uint64_t shift = in->time_shift & 63, quot, rem;

	quot = tsc >> shift;
	rem = tsc & ((1ull << shift) - 1);
	return in->time_zero + quot * in->time_mult +
	       ((rem * in->time_mult) >> shift);
}

/* perf's intel_pt_ns_to_ticks. */
static inline uint64_t pk__it_ns_to_ticks(const struct it_info *in, uint64_t ns)
{
	uint64_t shift = in->time_shift & 63, quot, rem;

	if (!in->time_mult)
		return 0;
	quot = ns / in->time_mult;
	rem = ns % in->time_mult;
	return (quot << shift) + (rem << shift) / in->time_mult;
}

/* decode.c, for synth.c: a sample of KIND at EV's time; its call chain
 * (g) and delivery; the pending branch done where its outcome is known;
 * perf's flags of a branch instruction. */
void pk__it_base(struct walk *w, struct pk_itrace_sample *s, int kind,
		 const struct pk_pt_event *ev);
void pk__it_emit(struct walk *w, struct pk_itrace_sample *s);
/* for quick.c: a branch's effect on perf's thread stack (no instruction
 * length: the walk knows none), a sample's call chain (g) */
void pk__it_ts_branch(struct walk *w, uint32_t flags, uint64_t from,
		      uint64_t to);
void pk__it_chain(struct walk *w, struct pk_itrace_sample *s);
void pk__it_settle(struct walk *w);
uint32_t pk__it_branch_flags(const struct pk_pt_insn *in);
/* synth.c: the sample perf makes of EV (ptwrite, power, transaction),
 * if the options ask for one; false for the events it does not make. */
bool pk__it_synth(struct walk *w, const struct pk_pt_event *ev);
/* synth.c, for quick.c: EV's sample (ptwrite, power, evt, iflag, PEBS)
 * as perf's hop mode makes it: at IP, ADDR the state's to_ip, FLAGS the
 * state's; the bytes of the instruction at the sample's ip. */
void pk__it_synth_at(struct walk *w, const struct pk_pt_event *ev,
		     uint64_t ip, uint64_t addr, uint32_t flags);
/* synth.c: whether EV (a branch from the FUP of a TSX abort met just
 * before: an asynchronous one, or one that disables tracing) is that
 * abort's; if so, its samples made: the transaction sample, the
 * branch. */
bool pk__it_tx_abort(struct walk *w, const struct pk_pt_event *ev);
/* lbr.c: l, perf's last branches of a thread (its thread stack's
 * branch ring), and s, the samples skipped first. */
int pk__it_lbr_init(struct walk *w);
void pk__it_lbr_free(struct walk *w);
void pk__it_lbr_branch(struct walk *w, uint32_t flags, uint64_t from,
		       uint64_t to, const struct pk_pt_event *ev);
/* A branch held in the queue (kind PK_ITRACE_NR_KINDS) now entered. */
void pk__it_lbr_replay(struct walk *w, const struct it_pend *p);
void pk__it_lbr_sample(struct walk *w, struct pk_itrace_sample *s);
/* A copy of S's branches for P (held): 0 or -ENOMEM. */
int pk__it_lbr_keep(struct it_pend *p);
/* Whether S is one of the first N samples perf skips (s N); a CBR one
 * (pk__it_skip_cbr) is asked again until it is not. */
bool pk__it_skip(struct walk *w, struct pk_itrace_sample *s);
bool pk__it_skip_cbr(struct walk *w);

/* tstack.c: the walk's task's stack, loaded (when the task changed) and
 * saved; freed with the decoder. */
int pk__it_ts_switch(struct walk *w);
uint64_t pk__it_perf_to_tsc(const struct it_info *in, uint64_t ns);
void pk__it_ts_save(struct walk *w);
void pk__it_ts_free(struct pk_itrace *it);
/* synth.c: the ip of a CBR sample outside a PSB+ (where the flow
 * stands, as perf's), its flags and instruction bytes set in S. */
uint64_t pk__it_lone_cbr(struct walk *w, struct pk_itrace_sample *s);
/* synth.c: perf's decoder met a FUP (its fup_event): the instruction
 * it walked last is none any more (its op and length cleared) */
void pk__it_fup_met(struct walk *w);
/* synth.c: where the flow stands now (perf's decoder ip; 0 before a
 * branch whose outcome is not read yet) */
uint64_t pk__it_flow_ip(struct walk *w);
/* synth.c: the instruction at IP with its bytes when the samples show
 * them (-F insn; perf script reads them at a sample's ip when perf's
 * decoder gave none): false when not */
bool pk__it_insn_at(struct walk *w, uint64_t ip, struct pk_pt_insn *in);
/* decode.c: a branch state (samples, thread stack, last branches) */
/* the pending branch ended with FLAGS going to TO */
void pk__it_finish(struct walk *w, uint32_t flags, uint64_t to,
		   const struct pk_pt_event *ev);
void pk__it_branch(struct walk *w, uint32_t flags, uint64_t from,
		   uint64_t to, const struct pk_pt_insn *in,
		   const struct pk_pt_event *ev);
/* synth.c: perf's D flag (interrupts off) with cap_event_trace */
void pk__it_iflag_flags(const struct walk *w, struct pk_itrace_sample *s);
uint32_t pk__it_pge_iflag(struct walk *w, const struct pk_pt_event *ev);
/* synth.c: a trace begin's instruction (perf's last walked; -F insn) */
bool pk__it_begin_insn(struct walk *w, struct pk_pt_insn *in);
/* synth.c, IPC: the pending branch IN ends (TAKEN) as a state of perf's
 * decoder: whether the state carries IPC; a sample of it given its
 * counts; the state done. */
void pk__it_ipc_state(struct walk *w, const struct pk_pt_insn *in, bool taken);
void pk__it_ipc(struct walk *w, struct pk_itrace_sample *s);
static inline void pk__it_ipc_done(struct walk *w)
{
	w->ipc_flag = false;
}

/* decode.c: one step of a walk. */
void pk__it_step(struct walk *w);
/* quick.c: perf's q (hop) and qq (leap) decoding of a queue's trace */
struct it_quick *pk__it_quick_new(const uint8_t *buf, size_t len,
				  const struct pk_pt_config *cfg, bool leap);
void pk__it_quick_free(struct it_quick *k);
/* K's trace goes on: BUF[0..LEN) holds its bytes (moved perhaps) and
 * more; hopping goes on where it stood. 0 or PK_ERR_INTERNAL. */
int pk__it_quick_extend(struct it_quick *k, const uint8_t *buf, size_t len);
int pk__it_quick_time(const struct it_quick *k, uint64_t *tsc);
void pk__it_quick_step(struct walk *w);
/* run.c: decodes queue Q with the session's maps now, up to TSC LIMIT
 * (UINT64_MAX: to its end); samples past it wait for a later call. */
/* Q's data grew (sample mode's consecutive buffer, at Q->DATA again): its
 * walk, ended at the old end, reads on. 0 or PK_ERR_INTERNAL. */
int pk__it_walk_go_on(struct it_queue *q);
/* Whether walk W stopped at the end of its bytes (not at an error). */
bool pk__it_walk_at_end(const struct walk *w);
int pk__it_run(struct pk_itrace *it, struct it_queue *q, uint64_t limit);
bool pk__it_past_limit(const struct walk *w);
/* Frees queue Q's decoding. */
void pk__it_walk_free(struct it_queue *q);
int pk__it_mmap(struct pk_itrace *it, const struct pk_record *rec);
bool pk__it_dso_tried(const struct pk_itrace *it, const char *dso);
/* image.c: the default guest's kernel code (one image), or NULL. */
struct pk_pt_image *pk__it_guest_image(struct pk_itrace *it);
/* The image of process PID (thread TID) as the session maps it now. */
struct pk_pt_image *pk__it_image(struct pk_itrace *it, int32_t pid,
				 int32_t tid);
/* The pid of a task a sched_switch names: the side band's, else -1 (perf's
 * machine__set_current_tid makes the thread with pid -1; idle is 0/0),
 * the thread noted so. */
int32_t pk__it_switch_pid(struct pk_itrace *it, int32_t tid);
int32_t pk__it_pid(const struct pk_itrace *it, int32_t tid);
/* sched.c: perf's sched_switch side band (have_sched_switch 1) */
void pk__it_sched_setup(struct pk_itrace *it);
void pk__it_sched_switch(struct pk_itrace *it, const struct pk_record *rec);
void pk__it_sched_free(struct pk_itrace *it);

/* ranges.c: --time. A buffer of queue Q begins at OFF (its record's
 * REFERENCE); the walk's ranges set up (and the trace fast-forwarded to
 * the first); whether the sample S (error samples pass) or a branch at
 * TSC (HAS_TSC, else where the flow stands) falls outside them, perf's
 * time filter moved on (a branch: its thread stack's trace number too); the fast forward due, done; all freed. */
int pk__it_note_buf(struct it_queue *q, size_t off, uint64_t reference);

/* overlap.c: where the new trace of buffer B begins when it follows
 * buffer A on a queue in snapshot mode (perf's intel_pt_find_overlap):
 * an offset into B (LB: nothing new to decode). HAVE_TSC: look for A's
 * last TSC in B, else for A's bytes. *CONSECUTIVE: B's new trace goes
 * on from A's end. */
size_t pk__it_overlap(const uint8_t *a, size_t la, const uint8_t *b,
		      size_t lb, bool have_tsc, bool *consecutive);
void pk__it_range_start(struct walk *w);
bool pk__it_range_drop(struct walk *w, struct pk_itrace_sample *s);
bool pk__it_range_out(struct walk *w, uint64_t tsc, bool has_tsc);
bool pk__it_range_branch(struct walk *w, const struct pk_pt_event *ev,
			 uint32_t flags, uint64_t from, uint64_t to);
bool pk__it_range_psb(struct walk *w, const struct pk_pt_event *ev);
void pk__it_range_block(struct walk *w, const struct pk_pt_block *blk);
void pk__it_range_ff(struct walk *w);
void pk__it_ranges_free(struct pk_itrace *it);

/* itrace.c: a snapshot's or AUX sample's bytes queued on Q (see there) */
long pk__it_snapshot(struct pk_itrace *it, struct it_queue *q,
		     const uint8_t *p, uint64_t size, uint64_t ref, bool fresh);
struct it_queue *pk__it_queue(struct pk_itrace *it, uint32_t idx);
/* auxsamp.c: sample mode (perf record --aux-sample): whether the file is
 * in it; ID_INDEX noted; a sample's AUX data decoded at once */
bool pk__it_sampling_mode(const struct pk_itrace *it);
int pk__it_id_index(struct pk_itrace *it, const struct pk_record *rec);
int pk__it_aux_sample(struct pk_itrace *it, const struct pk_record *rec);
int pk__it_aux_sample_queue(struct pk_itrace *it,
			    const struct pk_record *rec);

/* Whether queue Q's samples belong to the task its CPU runs (per-CPU
 * buffers, or perf's side band of context switches), not to its tid
 * (in sample mode: the sample's, as perf's). */
static inline bool pk__it_cpu_task(const struct pk_itrace *it,
				   const struct it_queue *q)
{
	return (!it->sampling || !it->timeless) && q->cpu >= 0 && q->cpu < 4096 &&
	       (q->tid == -1 || it->info.have_sched_switch);
}

#endif
