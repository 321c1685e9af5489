/* SPDX-License-Identifier: MIT */
/*
 * One AUX queue decoded into perf's synthesized samples: the flow
 * decoder walks the trace over the code the session maps for the thread;
 * each taken branch, each Nth instruction, each PSB, CBR change and
 * decoder error becomes a sample as perf's intel-pt.c makes it.
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "itrace/itrace_int.h"
#include "session/session.h"
#include "pt/flow_int.h"

/* ---- samples ---- */

/* perf's timestamp at the trace's time T: a CYC read after a bad
 * packet may have moved it on (bad_cyc). */
static uint64_t perf_ts(const struct walk *w, uint64_t t)
{
	return pk__it_cyc_ts(&w->cyc, t);
}

static void base(struct walk *w, struct pk_itrace_sample *s, int kind,
		 uint64_t tsc, bool has_tsc)
{
	/* (field by field: the instruction bytes and the payload are
	 * filled by the kinds that have them) */
	s->kind = kind;
	s->attr = w->it->attr[kind];
	s->pid = w->pid;
	s->tid = w->tid;
	s->cpu = w->cpu;
	s->time = 0;
	s->has_time = false;
	s->ip = s->addr = 0;
	s->cpumode = PERF_RECORD_MISC_USER;
	s->addr_cpumode = PERF_RECORD_MISC_USER;
	s->period = 1;
	s->flags = 0;
	s->insn_len = 0;
	s->insn_cnt = 0;
	s->callchain = NULL;
	s->nr_callchain = 0;
	s->brstack = NULL;
	s->nr_brstack = 0;
	s->depth = 0;
	memset(&s->u, 0, sizeof(s->u));
	s->ipc_insn_cnt = s->ipc_cyc_cnt = 0;
	if (!w->it->timeless) {
		/* the time where the flow stands (the walker's: packets
		 * read ahead do not count yet), or the event's */
		uint64_t t = perf_ts(w, has_tsc ? tsc : w->t_now);

		if (t > w->tsc)
			w->tsc = t;
		if (w->tsc) {
			s->time = pk__it_tsc_to_perf(&w->it->info, w->tsc);
			s->has_time = true;
		}
	}
}

static bool kernel_ip(uint64_t ip)
{
	return ip >> 63;
}

/* The instructions walked and not yet counted go to perf's count from
 * time T (its timestamp_insn_cnt, restarted when its time changes). */
static void est_commit(struct walk *w, uint64_t t)
{
	if (t != w->est_t) {
		w->est_t = t;
		w->est_n = 0;
	}
	w->est_n += w->est_pend;
	w->est_pend = 0;
}

/* N instructions walked in a step whose last one is of class IC. perf
 * walks code once it holds the packet its next branch needs, the timing
 * packets before that one read: instructions up to a branch that asks
 * the trace (a conditional or indirect branch, a return, a far branch)
 * count from the time after that branch's packet, the step's time;
 * those before a direct jump or call, or a non-branch, wait for it. */
static void est_count(struct walk *w, uint64_t n, uint8_t ic)
{
	w->est_pend += n;
	switch (ic) {
	case PK_PT_IC_COND_JUMP: case PK_PT_IC_RETURN:
	case PK_PT_IC_CALL_IND: case PK_PT_IC_JUMP_IND:
	case PK_PT_IC_FAR_CALL: case PK_PT_IC_FAR_RETURN:
	case PK_PT_IC_FAR_JUMP:
		/* (the walk's time may lag one an event gave: a trace
		 * start's, read while tracing was off) */
		est_commit(w, w->t_step > w->est_t ? w->t_step : w->est_t);
		break;
	default:
		break;
	}
}

/* perf's estimate of the time at decoder time T (intel_pt_est_timestamp):
 * two cycles an instruction walked since T, in TSC ticks at the core's
 * ratio (integer arithmetic; the bare count without a CBR). */
static uint64_t est_time(const struct walk *w, uint64_t t)
{
	const struct pk_pt_time *pt = &w->dec->time;
	uint64_t mnt = w->it->info.max_non_turbo_ratio;
	uint64_t est = t == w->est_t ? w->est_n << 1 : 0;

	if (pt->have_cbr && pt->cbr && mnt)
		est = est * mnt / pt->cbr;
	return perf_ts(w, t) + est;
}

/* perf takes its estimate as the queue's time even where that goes back
 * (at errors, at trace starts into user space): later samples take the
 * decoder's time once it is larger. T: the decoder's time there. */
static void est_move(struct walk *w, uint64_t t)
{
	if (w->it->timeless || !t)
		return;
	est_commit(w, t);	/* (walked before the packet there) */
	w->tsc = est_time(w, t);
}

/* FLAGS of a branch or an instruction, inside a transaction: perf's
 * state walked to (not an asynchronous branch's, not a trace start's). */
static uint32_t tx_flags(const struct walk *w, uint32_t flags)
{
	if (w->in_tx && !(flags & (PK_IP_FLAG_ASYNC | PK_IP_FLAG_TRACE_BEGIN)))
		return flags | PK_IP_FLAG_IN_TX;
	return flags;
}

/* A kernel address's cpumode, in a VM guest (NR) or not. */
static inline uint16_t kmode(bool nr)
{
	return nr ? PERF_RECORD_MISC_GUEST_KERNEL : PERF_RECORD_MISC_KERNEL;
}

/* The cpumode of IP in a VM guest (NR), else CM (perf's
 * intel_pt_nr_cpumode: a guest's user space below the kernel's half). */
static inline uint16_t nr_mode(bool nr, uint64_t ip, uint16_t cm)
{
	return !nr ? cm : kernel_ip(ip) ? PERF_RECORD_MISC_GUEST_KERNEL :
					  PERF_RECORD_MISC_GUEST_USER;
}

static inline bool guest_mode(uint16_t cm)
{
	return cm == PERF_RECORD_MISC_GUEST_KERNEL ||
	       cm == PERF_RECORD_MISC_GUEST_USER;
}

static void emit(struct walk *w, struct pk_itrace_sample *s)
{
	if (w->err || (w->it->opts.initial_skip && pk__it_skip(w, s)))
		return;
	if (w->rg.on && pk__it_range_drop(w, s))
		return;
	if (s->ip && kernel_ip(s->ip))
		s->cpumode = kmode(w->nr);
	else if (s->ip)
		s->cpumode = nr_mode(w->nr, s->ip, s->cpumode);
	else if (s->kind == PK_ITRACE_BRANCHES && kernel_ip(s->addr))
		s->cpumode = kmode(w->next_nr);	/* perf: of to_ip */
	else if (s->kind == PK_ITRACE_BRANCHES && s->addr)
		s->cpumode = nr_mode(w->next_nr, s->addr, s->cpumode);
	if (s->addr && kernel_ip(s->addr))
		s->addr_cpumode = kmode(w->next_nr);
	else if (s->addr)
		s->addr_cpumode = nr_mode(w->next_nr, s->addr,
					  s->addr_cpumode);
	if (guest_mode(s->cpumode))
		s->depth = -1;	/* (the guest's thread: no stack) */
	if (s->kind <= PK_ITRACE_BRANCHES)
		s->flags = tx_flags(w, s->flags);
	if (w->it->info.cap_event_trace)
		pk__it_iflag_flags(w, s);
	if (w->npend > w->pend_head ||
	    (!w->it->timeless && w->tsc > w->limit)) {
		/* past the time decoded up to: later, in order */
		if (!pk__grow((void **)&w->pendq, &w->cappend, w->npend, 1,
			      sizeof(*w->pendq))) {
			w->err = -ENOMEM;
			return;
		}
		w->pendq[w->npend].s = *s;
		w->pendq[w->npend].chain = NULL;
		w->pendq[w->npend].pebs = NULL;
		if (s->kind == PK_ITRACE_PEBS) {
			struct pk_itrace_pebs *pb = pk__malloc(sizeof(*pb));

			if (!pb) {
				w->err = -ENOMEM;
				return;
			}
			*pb = *s->u.pebs;
			w->pendq[w->npend].pebs = pb;
			w->pendq[w->npend].s.u.pebs = pb;
		}
		if (s->nr_callchain) {
			uint64_t *c = pk__malloc(s->nr_callchain * sizeof(*c));

			if (!c) {
				pk__free(w->pendq[w->npend].pebs);
				w->err = -ENOMEM;
				return;
			}
			memcpy(c, s->callchain, s->nr_callchain * sizeof(*c));
			w->pendq[w->npend].chain = c;
			w->pendq[w->npend].s.callchain = c;
		}
		if (pk__it_lbr_keep(&w->pendq[w->npend])) {
			pk__free(w->pendq[w->npend].chain);
			pk__free(w->pendq[w->npend].pebs);
			w->err = -ENOMEM;
			return;
		}
		w->pendq[w->npend++].tsc = w->tsc;
		return;
	}
	w->err = w->it->cb(w->it->ctx, s);
}

/* perf's flags of a branch instruction. */
static uint32_t branch_flags(const struct pk_pt_insn *in)
{
	/* (the near kinds by a table: no jump through a switch a block) */
	static const uint32_t near[] = {
		[PK_PT_IC_CALL] = PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL,
		[PK_PT_IC_CALL_IND] = PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL,
		[PK_PT_IC_RETURN] = PK_IP_FLAG_BRANCH | PK_IP_FLAG_RETURN,
		[PK_PT_IC_COND_JUMP] = PK_IP_FLAG_BRANCH |
				       PK_IP_FLAG_CONDITIONAL,
		[PK_PT_IC_JUMP] = PK_IP_FLAG_BRANCH,
		[PK_PT_IC_JUMP_IND] = PK_IP_FLAG_BRANCH,
	};

	if (in->iclass < PK_ARRAY_SIZE(near))
		return near[in->iclass];
	switch (in->iclass) {
	case PK_PT_IC_CALL:
	case PK_PT_IC_CALL_IND:
		return PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL;
	case PK_PT_IC_RETURN:
		return PK_IP_FLAG_BRANCH | PK_IP_FLAG_RETURN;
	case PK_PT_IC_COND_JUMP:
		return PK_IP_FLAG_BRANCH | PK_IP_FLAG_CONDITIONAL;
	case PK_PT_IC_FAR_CALL:
		/* int n / int3 / into: an interrupt; else syscall, sysenter */
		if (in->raw[0] == 0xcd || in->raw[0] == 0xcc ||
		    in->raw[0] == 0xce)
			return PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL |
			       PK_IP_FLAG_INTERRUPT;
		return PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL |
		       PK_IP_FLAG_SYSCALLRET;
	case PK_PT_IC_FAR_RETURN:
		if (in->raw[0] == 0x0f && in->raw[1] == 0x01 &&
		    (in->raw[2] == 0xc2 || in->raw[2] == 0xc3))
			return PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL |
			       PK_IP_FLAG_VMENTRY;	/* vmlaunch, vmresume */
		if (in->raw[0] == 0xcf || (in->raw[0] == 0x48 &&
					   in->raw[1] == 0xcf))
			return PK_IP_FLAG_BRANCH | PK_IP_FLAG_RETURN |
			       PK_IP_FLAG_INTERRUPT;
		return PK_IP_FLAG_BRANCH | PK_IP_FLAG_RETURN |
		       PK_IP_FLAG_SYSCALLRET;
	case PK_PT_IC_JUMP:
	case PK_PT_IC_JUMP_IND:
	case PK_PT_IC_FAR_JUMP:
		return PK_IP_FLAG_BRANCH;
	default:
		return 0;
	}
}

/* ---- perf's thread stack (thread_stack__event) ---- */

static void ts_pop(struct walk *w, uint64_t ret)
{
	for (size_t i = w->ts_n; i; )
		if (w->ts[--i].ret == ret) {
			w->ts_n = i;
			return;
		}
}

static void ts_pop_trace_end(struct walk *w)
{
	while (w->ts_n && w->ts[w->ts_n - 1].trace_end)
		w->ts_n--;
}

static void ts_event(struct walk *w, uint32_t flags, uint64_t from,
		     uint64_t to, unsigned len)
{
	if (flags & PK_IP_FLAG_CALL) {
		uint64_t ret = from + len;

		if (!to || ret == to)
			return;	/* zero-length calls are left out */
		if (w->ts_n == w->ts_cap && !pk__grow((void **)&w->ts,
				&w->ts_cap, w->ts_n, 1, sizeof(*w->ts)))
			return;
		w->ts[w->ts_n].ret = ret;
		w->ts[w->ts_n++].trace_end = flags & PK_IP_FLAG_TRACE_END;
	} else if (flags & PK_IP_FLAG_TRACE_BEGIN) {
		ts_pop(w, to);
		ts_pop_trace_end(w);
	} else if ((flags & PK_IP_FLAG_RETURN) && from) {
		ts_pop(w, to);
	}
}

static void branch_sample(struct walk *w, uint32_t flags, uint64_t from,
			  uint64_t to, const struct pk_pt_insn *in,
			  const struct pk_pt_event *ev);

/* The code walked: the guest's kernel in a VM (NR), else the task's
 * (a guest's too with guest_code: the task's maps serve the guest). */
static void set_code(struct walk *w, bool nr)
{
	struct pk_pt_image *img;

	if (pk__session_guest_code(w->it->sess))
		return;
	img = nr ? pk__it_guest_image(w->it) : w->himg;

	if (nr && !w->himg)
		w->himg = w->img;
	if (img && img != w->img) {
		w->img = img;
		pk_pt_insn_set_image(w->dec, img);
	}
}

static void branch_at2(struct walk *w, uint32_t flags, uint64_t from,
		       uint64_t to, const struct pk_pt_insn *in,
		       const struct pk_pt_event *ev);

/* A branch: after it the flow is where the last PIP said (perf's nr). */
static void branch_at(struct walk *w, uint32_t flags, uint64_t from,
		      uint64_t to, const struct pk_pt_insn *in,
		      const struct pk_pt_event *ev)
{
	branch_at2(w, flags, from, to, in, ev);
	if (w->nr != w->next_nr) {
		w->nr = w->next_nr;
		set_code(w, w->nr);
	}
}

static void branch_at2(struct walk *w, uint32_t flags, uint64_t from,
		       uint64_t to, const struct pk_pt_insn *in,
		       const struct pk_pt_event *ev)
{
	if (w->rg.on && pk__it_range_branch(w, ev, flags, from, to))
		return;
	/* (the ring's entries marked in a transaction as the samples) */
	if (w->lbr)
		pk__it_lbr_branch(w, tx_flags(w, flags), from, to, ev);
	if (w->it->opts.thread_stack || w->it->opts.callchain ||
	    w->it->opts.add_callchain)
		ts_event(w, flags, from, to, in ? in->size : 0);
	if (!w->it->opts.branches)
		return;
	if (w->it->branches_filter && !(flags & w->it->branches_filter))
		return;
	if (w->nr != w->next_nr && from && to) {
		/* perf's two branches: ip and addr of other machines */
		branch_sample(w, flags, from, 0, in, ev);
		from = 0;
	}
	branch_sample(w, flags, from, to, in, ev);
}

static void branch_sample(struct walk *w, uint32_t flags, uint64_t from,
			  uint64_t to, const struct pk_pt_insn *in,
			  const struct pk_pt_event *ev)
{
	struct pk_itrace_sample s;

	base(w, &s, PK_ITRACE_BRANCHES, ev ? ev->tsc : 0, ev && ev->has_tsc);
	s.flags = flags;
	s.ip = from;
	s.addr = to;
	s.depth = (int)w->ts_n;
	if (in) {
		s.insn_len = in->size;
		memcpy(s.insn, in->raw, in->size < 16 ? in->size : 16);
	}
	if (w->it->opts.ipc || w->it->opts.approx_ipc)
		pk__it_ipc(w, &s);
	emit(w, &s);
}

static void branch(struct walk *w, uint32_t flags, uint64_t from,
		   uint64_t to, const struct pk_pt_insn *in)
{
	branch_at(w, flags, from, to, in, NULL);
}

/* perf's thread_stack__sample: the context of IP, IP, then the return
 * addresses from the top of the stack, a context marker wherever the
 * context changes, at most callchain_sz + 1 entries. */
static unsigned call_chain(struct walk *w, uint64_t ip)
{
	unsigned sz = w->it->opts.callchain_sz + 1, i, j;
	uint64_t ctx, last;

	if (sz < 2)
		return 0;
	ctx = kernel_ip(ip) ? (uint64_t)PERF_CONTEXT_KERNEL :
			      (uint64_t)PERF_CONTEXT_USER;
	w->chain[0] = ctx;
	w->chain[1] = ip;
	last = ctx;
	for (i = 2, j = 1; i < sz && j <= w->ts_n; i++, j++) {
		uint64_t r = w->ts[w->ts_n - j].ret;

		ctx = kernel_ip(r) ? (uint64_t)PERF_CONTEXT_KERNEL :
				     (uint64_t)PERF_CONTEXT_USER;
		if (ctx != last) {
			if (i >= sz - 1)
				break;
			w->chain[i++] = ctx;
			last = ctx;
		}
		w->chain[i] = r;
	}
	return i;
}

/* With g every event after branches carries a chain (perf's
 * intel_pt_prep_sample). */
static void synth_chain(struct walk *w, struct pk_itrace_sample *s)
{
	if (s->kind == PK_ITRACE_PEBS)
		return;	/* (the recorded event's: none made yet) */
	if (w->lbr)
		pk__it_lbr_sample(w, s);	/* and l their last branches */
	if (!w->chain)
		return;
	s->nr_callchain = call_chain(w, s->ip);
	s->callchain = w->chain;
}

/* An instruction sample of IN: perf gives it the flags of the
 * instruction and, for a taken branch, its target. */
static void isample(struct walk *w, const struct pk_pt_insn *in,
		    uint32_t flags, uint64_t to, const struct pk_pt_event *ev)
{
	struct pk_itrace_sample s;
	uint8_t keep = 0xff;

	base(w, &s, PK_ITRACE_INSTRUCTIONS, ev ? ev->tsc : 0,
	     ev && ev->has_tsc);
	s.ip = in->ip;
	s.addr = to;
	s.flags = flags;
	if (w->fup_iflags) {	/* (D by the flag before the change) */
		if (in->ip == w->fup_iflags_ip &&
		    w->walks == w->fup_iflags_walks + 1) {
			s.flags |= w->fup_iflags;
			keep = w->iflag;
			w->iflag = !(w->fup_iflags & PK_IP_FLAG_INTR_DISABLE);
		}
		w->fup_iflags = 0;
	}
	s.period = w->cnt + w->unsampled;
	s.insn_cnt = s.period;
	w->unsampled = 0;
	s.insn_len = in->size;
	memcpy(s.insn, in->raw, in->size < 16 ? in->size : 16);
	if (w->chain || w->lbr)	/* (g, l) */
		synth_chain(w, &s);
	w->cnt = 0;
	w->isamp = false;
	if (w->it->opts.ipc || w->it->opts.approx_ipc)
		pk__it_ipc(w, &s);
	emit(w, &s);
	if (keep <= 1)
		w->iflag = keep;
}

/* The pending branch ended with FLAGS going to TO (EV: the event that
 * ended it, for its time). */
static void finish(struct walk *w, uint32_t flags, uint64_t to,
		   const struct pk_pt_event *ev)
{
	const struct pk_pt_insn *p = &w->pend;
	bool taken = !(p->iclass == PK_PT_IC_COND_JUMP &&
		       to == p->ip + p->size);

	if (!ev) {	/* as of the branch's own query (an event zeroed
			 * once: no memset per branch) */
		w->pend_ev.tsc = w->pend_tsc;
		w->pend_ev.has_tsc = w->pend_tsc != 0;
		ev = &w->pend_ev;
	}
	w->have_pend = false;
	if (w->it->opts.ipc || w->it->opts.approx_ipc)
		pk__it_ipc_state(w, p, taken);
	if (w->isamp)
		isample(w, p, flags, taken ? to : 0, ev);
	if (taken)
		branch_at(w, flags, p->ip, to, p, ev);
	pk__it_ipc_done(w);
}

/* The pending branch went to TO. */
static void resolve(struct walk *w, uint64_t to)
{
	finish(w, branch_flags(&w->pend), to, NULL);
}

static bool is_branch(uint8_t c)
{
	return c >= PK_PT_IC_CALL && c <= PK_PT_IC_FAR_JUMP;
}

static void event(struct walk *w, const struct pk_pt_event *ev);

/* The events kept back, now that the bits before them are used. */
static void flush_def(struct walk *w)
{
	unsigned n = w->ndef;

	w->ndef = 0;
	for (unsigned i = 0; i < n; i++) {
		if (w->def[i].has_tsc && w->def[i].tsc > w->tsc)
			w->tsc = w->def[i].tsc;
		event(w, &w->def[i]);
	}
}

/* After an error perf's decoder takes the flow up again at the next IP
 * it meets: a trace start from 0 to there (an async branch met then is
 * not one). */
static void resynced(struct walk *w, uint64_t ip, const struct pk_pt_event *ev)
{
	struct pk_pt_insn last;

	w->resync = false;
	if (ip && !kernel_ip(ip))	/* perf's est_tsc: into user space */
		est_move(w, ev && ev->has_tsc ? ev->tsc : w->t_now);
	/* (-F insn: the instruction perf's decoder walked last) */
	branch_at(w, PK_IP_FLAG_BRANCH | PK_IP_FLAG_TRACE_BEGIN, 0, ip,
		  pk__it_begin_insn(w, &last) ? &last : NULL, ev);
}

/* A TIP.PGD met while the flow is lost (EV): perf's decoder takes its
 * IP, or keeps its own (the error's: none after a failed fetch), and is
 * in sync there with tracing off: a trace start and end from 0 to it. */
static void resync_end(struct walk *w, const struct pk_pt_event *ev)
{
	uint64_t ip = ev->ip_suppressed ? w->rs_ip : ev->ip;
	struct pk_pt_insn last;

	if (!ip)
		return;
	w->off_ip = ip;
	w->resync = false;
	if (!kernel_ip(ip))
		est_move(w, ev->has_tsc ? ev->tsc : w->t_now);
	branch_at(w, PK_IP_FLAG_BRANCH | PK_IP_FLAG_TRACE_BEGIN |
		  PK_IP_FLAG_TRACE_END, 0, ip,
		  pk__it_begin_insn(w, &last) ? &last : NULL, ev);
}

/* perf's intel_pt_next_period: how many instructions the next walk may
 * take before a sample, from the decoder's timestamp and the
 * instructions since it. */
static uint64_t next_period(struct walk *w)
{
	uint64_t ts = w->pts + w->pts_insn, masked = ts & w->tick_mask;

	if (w->continuous) {
		if (masked > w->last_masked)
			return 1;
	} else {
		ts += 1;
		masked = ts & w->tick_mask;
		if (masked > w->last_masked) {
			w->last_masked = masked;
			w->continuous = true;
		}
	}
	if (masked < w->last_masked)
		return w->ticks;
	return w->ticks - (ts - masked);
}

/* Tick periods: perf works out at each walk (up to a branch) how many
 * instructions it may take; the one completing them is a sample (and
 * moves the last sampled multiple on, intel_pt_sample_insn). */
static bool tick_due(struct walk *w, const struct pk_pt_insn *in)
{
	uint64_t t;

	if (pk_pt_insn_time(w->dec, &t) || t < w->tsc)
		t = w->tsc;	/* an event's (the TSC before a TIP.PGE) */
	if (t != w->pts) {
		w->pts = t;	/* a new timestamp: counted from it */
		w->pts_insn = 0;
	}
	if (!w->tleft)
		w->tleft = next_period(w);
	w->pts_insn++;
	w->cnt++;
	if (--w->tleft == 0) {
		uint64_t masked = (w->pts + w->pts_insn) & w->tick_mask;

		if (masked > w->last_masked)
			w->last_masked = masked;
		else
			w->last_masked += w->ticks;
		return true;
	}
	if (is_branch(in->iclass))
		w->tleft = 0;	/* the walk ends at a branch */
	return false;
}

/* A PSB+ whose FUP the flow took up again after an error (at IP): perf
 * returns its state, with no IP, before it walks from there. */
static void flush_lost_psb(struct walk *w, uint64_t ip)
{
	if (w->lost && w->ndef && w->def[0].ip == ip)
		flush_def(w);
}

static void insn(struct walk *w, const struct pk_pt_insn *in)
{
	w->walks++;
	if (w->resync)
		resynced(w, in->ip, NULL);
	flush_lost_psb(w, in->ip);
	w->lost = false;
	if (w->have_pend)
		resolve(w, in->ip);
	w->tot_insn++;
	if (!w->it->timeless)
		est_count(w, 1, in->iclass);
	if (w->ndef && w->def[0].ip == in->ip)
		flush_def(w);
	if (w->tick ? tick_due(w, in) : w->period && ++w->cnt >= w->period) {
		if (is_branch(in->iclass))
			w->isamp = true; /* with the branch's outcome */
		else
			isample(w, in, 0, 0, NULL);
	}
	w->next_ip = in->ip + in->size;
	if (is_branch(in->iclass)) {
		w->pend = *in;
		w->pend_tsc = w->t_step;
		w->have_pend = true;
	}
}

/* perf's INTEL_PT_ERR_* of a decoder error. */
static int err_code(int status)
{
	switch (status) {
	case -ENOMEM: return 1;
	case PK_PT_ERR_NOMAP: case PK_PT_ERR_BAD_INSN: return 5;
	case PK_PT_ERR_BAD_QUERY: case PK_PT_ERR_RETSTACK:
	case PK_PT_ERR_BAD_RETCOMP: case PK_PT_ERR_NO_ENABLE:
	case PK_PT_ERR_BAD_STATUS: case PK_PT_ERR_FUP_MISSED: return 6;
	case PK_PT_ERR_LOOP: return 10;
	case PK_ERR_EOS: return 4;
	default: return 3;	/* packet errors */
	}
}

static const char *const err_msg[] = {
	"", "Memory allocation failed", "Internal error", "Bad packet",
	"No more data", "Failed to get instruction",
	"Trace doesn't match instruction", "Overflow packet",
	"Lost trace data", "Unknown error!",
	"Never-ending loop (refer perf config intel-pt.max-loops)",
};

/* The entry of the DSO holding IP among those whose code could not be
 * read (added with LEFT more reports to give), or NULL: no DSO there. */
static struct it_bad_dso *bad_dso(struct walk *w, uint64_t ip, int left)
{
	struct pk_itrace *it = w->it;
	struct pk_location loc;

	if (pk_session_resolve(it->sess, (uint32_t)w->pid, ip,
			       kernel_ip(ip) ? PERF_RECORD_MISC_KERNEL :
			       PERF_RECORD_MISC_USER, &loc) || !loc.dso)
		return NULL;
	for (size_t i = 0; i < it->nbad; i++)
		if (it->bad[i].dso == loc.dso)
			return &it->bad[i];
	if (!pk__grow((void **)&it->bad, &it->capbad, it->nbad, 1,
		      sizeof(*it->bad)))
		return NULL;
	it->bad[it->nbad].dso = loc.dso;
	/* (a file perf tried at its mapping: one report fewer) */
	it->bad[it->nbad].left = pk__it_dso_tried(it, loc.dso) && left > 1 ?
				 left - 1 : left;
	return &it->bad[it->nbad++];
}

/* Whether a failed fetch at IP goes unreported. perf reads a DSO's code
 * through its data file: the first fetch finds the file missing (an
 * error, the DSO's data status now 'error'); the next one sees that
 * status for the first time (dso__data_status_seen), still reads and
 * fails (an error again); later ones give up silently. An address in no
 * mapping is an error every time. */
static bool dso_seen_failing(struct walk *w, uint64_t ip)
{
	struct pk_itrace *it = w->it;
	struct it_bad_dso *b;
	int32_t pid = w->pid;

	unsigned keep = 0;

	if (it->npre > PK_ARRAY_SIZE(it->pre_ip))
		it->npre = PK_ARRAY_SIZE(it->pre_ip);
	for (unsigned i = 0; i < it->npre; i++) {
		w->pid = it->pre_pid[i];
		if (!bad_dso(w, it->pre_ip[i], 1)) {	/* not yet */
			it->pre_ip[keep] = it->pre_ip[i];
			it->pre_pid[keep++] = it->pre_pid[i];
		}
	}
	w->pid = pid;
	it->npre = keep;
	b = bad_dso(w, ip, 2);

	if (!b)
		return false;
	if (b->left <= 0)
		return true;
	b->left--;
	return false;
}

static bool unreadable(struct walk *w, uint64_t ip);

/* A decoder state came from IP without its code being read (an async
 * branch's or a PSB+'s IP). Seen on perf script's output, such a DSO,
 * when its code cannot be read, is reported once only: its data status
 * is already 'error' at its first fetch (perf script reads the bytes of
 * each sample it shows that has none: these states' samples and the
 * recorded ones; this approximates that). */
static void state_at(struct walk *w, uint64_t ip)
{
	struct pk_itrace *it = w->it;

	if (!it->opts.shown || !ip || !unreadable(w, ip))
		return;
	/* the side band may not map it yet: resolved at the next failure */
	it->pre_ip[it->npre % PK_ARRAY_SIZE(it->pre_ip)] = ip;
	it->pre_pid[it->npre++ % PK_ARRAY_SIZE(it->pre_pid)] = w->pid;
}

/* The decoder's time at an error of CODE, as perf's decoder has it. */
static uint64_t err_tsc(struct walk *w, int code)
{
	uint64_t t;

	if (w->err_at)
		return w->err_at;
	/* perf meets a failed fetch only at the next packet that has it
	 * walk code, the timing packets before it read */
	if (code == 5 && !pk__pt_fl_time_ahead(w->dec, &t) && t)
		return t;
	if (pk_pt_insn_time(w->dec, &t) || !t)
		t = w->t_now;
	return t;
}

/* perf sets the queue's time to its estimate at every error, made a
 * sample of or not, even where that goes back (an overflow restarts
 * the count of instructions). */
static void err_time(struct walk *w, int code)
{
	uint64_t t;

	if (w->it->timeless)
		return;
	t = err_tsc(w, code);
	est_commit(w, t);	/* (the failing walk's instructions too) */
	if (code == 7)
		w->est_n = 0;
	est_move(w, t);
}

static void error(struct walk *w, int code, uint64_t ip)
{
	struct pk_itrace_sample s;

	if (code == 5 && dso_seen_failing(w, ip))
		return;	/* (perf's decoder takes it up silently) */
	err_time(w, code);
	if (!w->it->opts.errors)
		return;
	if (code == 7 && w->it->opts.error_minus_overflow)
		return;
	if (code == 8 && w->it->opts.error_minus_lost)
		return;
	w->it->nr_errors++;	/* (perf counts the errors it makes samples of) */
	base(w, &s, PK_ITRACE_ERROR, w->tsc, true);
	s.ip = ip;
	s.u.error.type = 1;
	s.u.error.code = code;
	s.u.error.msg = err_msg[code];
	emit(w, &s);
}

/* Tick periods: perf works the period out at the start of each walk,
 * also of one whose first fetch fails (a task without the code): the
 * last sampled multiple moves on then (intel_pt_next_period), at the
 * time of the packets read (a PSB+'s). */
static void tick_walk_failed(struct walk *w)
{
	uint64_t t;

	if (!w->tick || w->tleft)
		return;
	t = err_tsc(w, 5);
	if (t != w->pts) {
		w->pts = t;
		w->pts_insn = 0;
	}
	next_period(w);
}

/* Whether a failed fetch at IP (CODE 5) repeats the last one, timed:
 * nothing walked since, the time the same; notes it. */
static bool refetch_failed(struct walk *w, int code, uint64_t ip)
{
	uint64_t t = w->it->timeless ? 0 : err_tsc(w, code);
	bool again = !w->it->timeless && code == 5 && ip == w->fail_ip &&
		     w->tot_insn == w->fail_insn && t == w->fail_t;

	w->fail_ip = code == 5 ? ip : 0;
	w->fail_insn = w->tot_insn;
	w->fail_t = t;
	return again;
}

/* An error at IP, and the resync after it. */
static void fail(struct walk *w, int code, uint64_t ip)
{
	w->tx_abort = false;
	/* timed, a fetch failing again where the resync after it took the
	 * flow up (a PSB+'s FUP at the failed IP: the image changed under a
	 * flow that walked there), nothing walked, the time the same: perf
	 * read that PSB+ before its fetch (its walk reads the packet first)
	 * and resynced past it: one error */
	if (!refetch_failed(w, code, ip))
		error(w, code, ip);
	if (code == 5)
		tick_walk_failed(w);
	w->tleft = 0;	/* (tick periods: perf's next walk works it out) */
	w->lost = w->resync = true;
	w->rs_ip = code == 5 ? 0 : ip;
	/* (perf keeps the stack: its trace number changes with a new
	 * buffer, not at an error) */
	/* perf goes on from the next packet that gives an IP, a PSB only
	 * when that fails */
	w->status = code == 5 ? pk__pt_fl_resync_full_ip(w->dec) :
		    pk_pt_insn_resync(w->dec);
	if (w->status < 0 && w->status != PK_ERR_EOS)
		w->status = pk_pt_insn_sync_forward(w->dec);
	if (w->status == PK_ERR_EOS)
		w->done = true;
	w->refail = true;
}

/* Whether the code at IP cannot be read. */
static bool unreadable(struct walk *w, uint64_t ip)
{
	struct pk_pt_insn in;
	uint64_t target;

	return pk_pt_insn_decode(w->img, ip, PK_PT_MODE_64, &in, &target) < 0;
}

/* After an error perf takes the flow up again at a FUP's IP (a trace
 * start from 0 to there) and then walks the code from there to the
 * branch of the TIP that follows: code it cannot read is an error at
 * the FUP's IP. False when the walk can go on (the event stands). */
static bool resync_at_fup(struct walk *w, const struct pk_pt_event *ev)
{
	struct pk_pt_event at = *ev;
	uint64_t t = pk__pt_fl_ev_fup_time(w->dec);

	if (t) {	/* perf's time there: before the packets up to the TIP */
		at.tsc = t;
		at.has_tsc = 1;
	}
	resynced(w, ev->at, &at);
	if (!unreadable(w, ev->at))
		return false;
	fail(w, 5, ev->at);
	return true;
}

/* A branch whose outcome the decoder already read is done before an
 * event that does not change the flow (perf's decoder meets them in
 * that order). */
static void settle(struct walk *w)
{
	uint64_t ip;

	if (w->have_pend && !pk_pt_insn_next_ip(w->dec, &ip))
		resolve(w, ip);
}

static bool at_lone_fup(const struct pk_pt_event *ev);

/* Events perf makes samples of that perfkit does not yet: noted (the
 * tool says so), never dropped without a word. */
static void unsynthesized(struct walk *w, const struct pk_pt_event *ev)
{
	const struct pk_itrace_opts *o = &w->it->opts;

	if (w->lost || w->resync) {	/* perf makes no sample off the flow */
		if (ev->type == PK_PT_EV_TSX)	/* (its state all the same) */
			w->in_tx = ev->u.tsx.speculative;
		/* its FUP gives the IP (an abort's: with the TIP after it) */
		if (w->resync && at_lone_fup(ev) &&
		    !(ev->type == PK_PT_EV_TSX && ev->u.tsx.aborted))
			resynced(w, ev->ip, ev);
		return;
	}
	if (pk__it_synth(w, ev))
		return;
	switch (ev->type) {
	case PK_PT_EV_PTWRITE:
		if (o->ptwrites)
			w->it->unsynth |= PK_ITRACE_UNSYNTH_PTWRITE;
		break;
	case PK_PT_EV_MWAIT: case PK_PT_EV_PWRE: case PK_PT_EV_PWRX:
	case PK_PT_EV_EXSTOP:
		if (o->pwr_events)
			w->it->unsynth |= PK_ITRACE_UNSYNTH_POWER;
		break;
	default:
		break;
	}
}

/* A TSX abort's FUP that no TIP follows (its branch not met with the
 * events at the FUP): perf's decoder fails there (a mismatch at the
 * FUP's IP) and takes the flow up at the next IP. The status after. */
static int tx_abort_no_tip(struct walk *w)
{
	w->tx_abort = false;
	fail(w, 6, w->tx_abort_ip);
	return w->done ? PK_ERR_EOS : w->status;
}

/* Whether EV comes with a FUP that gives its IP and no TIP after it
 * (after an error perf's decoder takes the flow up at such a FUP, the
 * packets before it read as state alone). */
static bool at_lone_fup(const struct pk_pt_event *ev)
{
	if (ev->ip_suppressed)
		return false;
	switch (ev->type) {
	case PK_PT_EV_TSX: case PK_PT_EV_FUP: case PK_PT_EV_PTWRITE:
	case PK_PT_EV_EXSTOP: case PK_PT_EV_MWAIT: case PK_PT_EV_PWRE:
	case PK_PT_EV_CFE:
		return true;
	default:
		return false;
	}
}

/* A TSX abort's FUP that no TIP follows, EV a FUP of its own next: perf
 * fails at the abort's FUP and, waiting for an IP, takes EV's (a trace
 * start there); EV is state alone. */
static void tx_abort_then_fup(struct walk *w, const struct pk_pt_event *ev)
{
	w->tx_abort = false;
	error(w, 6, w->tx_abort_ip);
	w->lost = true;
	resynced(w, ev->ip, ev);
	if (ev->type == PK_PT_EV_TSX)
		w->in_tx = ev->u.tsx.speculative;
}

/* A FUP perf's decoder takes alone: with tracing on its TIP is missing
 * (a mismatch there, then the flow taken up at the next IP); after an
 * error the flow is taken up at it; with tracing off only its state
 * (the last instruction walked forgotten). */
static void lone_fup(struct walk *w, const struct pk_pt_event *ev)
{
	if (w->resync) {
		resynced(w, ev->ip, ev);
		return;
	}
	pk__it_fup_met(w);
	w->off_ip = ev->ip;
	if (ev->u.fup.enabled)
		fail(w, 6, ev->ip);
}

/* A packet perf's decoder cannot read: its error where the flow stands
 * (tracing off: the last IP it had), the transaction state cleared, the
 * decoding going on. */
void pk__it_cyc_cbr(struct it_cyc *c, uint8_t ratio, uint64_t t)
{
	if (ratio == c->cbr)	/* (perf: no change, nothing reset) */
		return;
	c->cbr = ratio;
	c->ref = pk__it_cyc_ts(c, t);
	c->cnt = 0;
}

bool pk__it_cyc_bad(struct it_cyc *c, uint8_t byte, uint64_t t, uint64_t mnt)
{
	uint64_t ts;

	if ((byte & 7) != 3)	/* (a longer CYC: not modelled) */
		return false;
	c->cnt += byte >> 3;
	if (!c->ref || !c->cbr)
		return false;
	ts = (uint64_t)((double)c->ref + (double)c->cnt * ((double)mnt / c->cbr));
	if (ts > pk__it_cyc_ts(c, t)) {
		c->bump_t = t;
		c->bump = ts - t;
	}
	return true;
}

/* perf's decoder reads the byte after a packet it rejects as the next
 * packet: a CYC for these (intel_pt_calc_cyc_timestamp), its time maybe
 * moved on, its count of instructions for the estimate restarted. */
static void bad_cyc(struct walk *w, uint8_t byte)
{
	uint64_t t;

	if (w->it->timeless)
		return;
	if (pk_pt_insn_time(w->dec, &t) || !t)
		t = w->t_now;
	if (!pk__it_cyc_bad(&w->cyc, byte, t, w->it->info.max_non_turbo_ratio))
		return;
	est_commit(w, t);
	w->est_n = 0;
}

static void bad_packet(struct walk *w, const struct pk_pt_event *ev)
{
	/* (with tracing off the walk stands behind: the packet's time) */
	w->err_at = !w->dec->enabled && ev->has_tsc ? ev->tsc : 0;
	error(w, 3, w->dec->enabled ? pk__it_flow_ip(w) : w->off_ip);
	w->err_at = 0;
	w->in_tx = false;
	bad_cyc(w, ev->u.bad.byte);
}

/* The branch from a FUP to the TIP after it (END: a TIP.PGD's trace
 * end): perf's flags are an interrupt's when it goes somewhere (a
 * TIP.PGD's IP too), else a trace end's alone; the bytes perf script
 * shows are the FUP's instruction's. perf's decoder met the FUP: the
 * instruction walked last is none after it. */
static void async_branch(struct walk *w, const struct pk_pt_event *ev,
			 uint32_t end)
{
	uint32_t flags = PK_IP_FLAG_BRANCH | PK_IP_FLAG_ASYNC | end;
	uint64_t to = ev->ip_suppressed ? 0 : ev->ip;
	struct pk_pt_insn in;

	if (w->anr_set) {	/* its PIP's (read ahead of it) */
		w->next_nr = w->anr;
		w->anr_set = false;
	}
	if (to && w->nr && !w->next_nr)
		flags = PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL |
			PK_IP_FLAG_ASYNC | PK_IP_FLAG_VMEXIT | end;
	else if (to)
		flags |= PK_IP_FLAG_CALL | PK_IP_FLAG_INTERRUPT;
	branch(w, flags, ev->at, to, pk__it_insn_at(w, ev->at, &in) ? &in :
						NULL);
	pk__it_fup_met(w);
}

/* A PSB's offset as perf's psb sample gives it: its decoder's position,
 * which in sample mode goes on over every buffer the queue's decoder was
 * given (the queue's PSB_BASE before this walk's); the PSB a decoding
 * syncs at leaves perf's state's offset as it was (the queue's last). */
static uint64_t psb_offset(struct walk *w, const struct pk_pt_event *ev)
{
	struct it_queue *q = w->q;

	if (!w->it->sampling)
		return ev->u.psb.offset;
	if (!w->psb_synced) {
		w->psb_synced = true;
		return q->psb_last;
	}
	q->psb_last = q->psb_base + ev->u.psb.offset;
	return q->psb_last;
}

static void event(struct walk *w, const struct pk_pt_event *ev)
{
	struct pk_itrace_sample s;
	uint64_t off;

	/* (a TSX abort's branch comes right after it, from its FUP) */
	if (w->tx_abort && !((ev->type == PK_PT_EV_ASYNC_BRANCH ||
			      ev->type == PK_PT_EV_ASYNC_DISABLED) &&
			     ev->at == w->tx_abort_ip)) {
		if (at_lone_fup(ev)) {
			tx_abort_then_fup(w, ev);
			return;
		}
		tx_abort_no_tip(w);
	}

	if ((ev->type == PK_PT_EV_ASYNC_BRANCH ||
	     ev->type == PK_PT_EV_ASYNC_DISABLED) && !w->resync)
		state_at(w, ev->at);
	else if (ev->type == PK_PT_EV_PSB && !ev->ip_suppressed)
		state_at(w, ev->ip);

	switch (ev->type) {
	case PK_PT_EV_ENABLED: {
		struct pk_pt_insn last;
		uint32_t pge_flags;

		w->resync = false;
		if (w->have_pend)
			finish(w, branch_flags(&w->pend), 0, ev);
		pge_flags = pk__it_pge_iflag(w, ev);
		/* perf's est_tsc: a trace start into user space */
		if (!ev->ip_suppressed && ev->ip && !kernel_ip(ev->ip))
			est_move(w, ev->has_tsc ? ev->tsc : w->t_now);
		branch_at(w, PK_IP_FLAG_BRANCH | PK_IP_FLAG_TRACE_BEGIN |
			  pge_flags, 0, ev->ip,
			  pk__it_begin_insn(w, &last) ? &last : NULL, ev);
		if (pge_flags)
			w->iflag = !w->iflag;
		break;
	}
	case PK_PT_EV_DISABLED:
		w->continuous = false;	/* perf: the period starts again */
		w->tleft = 0;
		if (w->resync) {
			resync_end(w, ev);
			break;
		}
		/* (perf's ip: the TIP.PGD's, else the branch's) */
		w->off_ip = !ev->ip_suppressed ? ev->ip :
			    w->have_pend ? w->pend.ip : w->next_ip;
		if (w->have_pend) {
			finish(w, branch_flags(&w->pend) | PK_IP_FLAG_TRACE_END,
			       ev->ip_suppressed ? 0 : ev->ip, ev);
		} else {
			branch_at(w, PK_IP_FLAG_BRANCH | PK_IP_FLAG_TRACE_END,
				  w->next_ip, 0, NULL, ev);
		}
		break;
	case PK_PT_EV_ASYNC_DISABLED:
		w->off_ip = ev->ip_suppressed ? ev->at : ev->ip;
		if (w->resync && resync_at_fup(w, ev))
			break;
		if (w->have_pend)
			resolve(w, ev->at);
		if (pk__it_tx_abort(w, ev))
			break;
		async_branch(w, ev, PK_IP_FLAG_TRACE_END);
		break;
	case PK_PT_EV_ASYNC_BRANCH:
		if (w->resync) {
			if (resync_at_fup(w, ev))
				break;
			resynced(w, ev->ip, ev);
			break;
		}
		if (w->have_pend)
			resolve(w, ev->at);
		if (pk__it_tx_abort(w, ev))
			break;
		async_branch(w, ev, 0);
		break;
	case PK_PT_EV_PAGING:
		if (!ev->ip_suppressed) {	/* an async branch's, next */
			w->anr_set = true;
			w->anr = ev->u.paging.nr;
			break;
		}
		w->next_nr = ev->u.paging.nr;
		if (w->have_pend)	/* (the far branch's target next) */
			set_code(w, w->next_nr);
		break;
	case PK_PT_EV_OVERFLOW:
		if (w->have_pend)
			finish(w, branch_flags(&w->pend), 0, ev);
		error(w, 7, ev->ip_suppressed ? 0 : ev->ip);
		break;
	case PK_PT_EV_PSB:
		settle(w);
		off = psb_offset(w, ev);
		if (w->dec->iflag <= 1)	/* a PSB+'s MODE.Exec: no change */
			w->iflag = w->dec->iflag;
		if (w->rg.on && pk__it_range_psb(w, ev) &&
		    w->it->opts.pwr_events)
			break;
		if (!w->it->opts.pwr_events)
			break;
		base(w, &s, PK_ITRACE_PSB, ev->tsc, ev->has_tsc);
		/* (perf waiting for an IP after an error shows none) */
		s.ip = ev->ip_suppressed || w->lost ? 0 : ev->ip;
		if (!s.ip && !ev->ip_suppressed && kernel_ip(ev->ip))
			s.cpumode = PERF_RECORD_MISC_KERNEL; /* (perf's: of
						 * its to_ip, the PSB's) */
		w->psb_ip = s.ip;	/* its CBR's too */
		s.u.psb.offset = off;
		synth_chain(w, &s);
		emit(w, &s);
		break;
	case PK_PT_EV_CBR:
		pk__it_cyc_cbr(&w->cyc, ev->u.cbr.ratio,	/* (bad_cyc) */
			       ev->has_tsc ? ev->tsc : w->t_now);
		settle(w);
		if (!w->it->opts.pwr_events || ev->u.cbr.ratio == w->cbr ||
		    ev->u.cbr.cut || pk__it_skip_cbr(w))
			break;
		w->cbr = ev->u.cbr.ratio;
		base(w, &s, PK_ITRACE_CBR, ev->tsc, ev->has_tsc);
		s.ip = ev->status_update ? w->psb_ip : pk__it_lone_cbr(w, &s);
		s.u.cbr.cbr = ev->u.cbr.ratio;
		s.u.cbr.freq_khz = (uint32_t)(ev->u.cbr.ratio * w->cbr2khz);
		s.u.cbr.max_nonturbo = (uint8_t)w->it->info.max_non_turbo_ratio;
		synth_chain(w, &s);
		emit(w, &s);
		break;
	case PK_PT_EV_FUP:
		lone_fup(w, ev);
		break;
	case PK_PT_EV_BAD_PACKET:
		bad_packet(w, ev);
		break;
	default:
		unsynthesized(w, ev);
		break;
	}
}

/* After an error perf's decoder takes the flow up again at a TIP: a
 * trace start from 0 to there, before what follows. */
static void took_tip(struct walk *w)
{
	uint64_t ip, t, now = w->t_now;

	if (!pk__pt_fl_took_tip(w->dec, &ip, &t) || !w->resync)
		return;
	if (t && !w->it->timeless)
		w->t_now = t;	/* perf's: the packets after it not yet read */
	resynced(w, ip, NULL);
	w->t_now = now;
}

/* The time an event EV brings before its samples: a lost flow taken up
 * at an async branch's FUP starts there, at the time of the FUP (perf
 * reads the packets up to the TIP after it). */
static void event_time(struct walk *w, const struct pk_pt_event *ev)
{
	uint64_t t = ev->tsc, fup = pk__pt_fl_ev_fup_time(w->dec);

	if (w->resync && fup)
		t = fup;
	if (ev->has_tsc && t > w->tsc)
		w->tsc = t;
}

/* Events pending, then the status after them. */
static int events(struct walk *w, int status)
{
	while (status >= 0 && (status & PK_PT_STS_EVENT) && !w->err) {
		struct pk_pt_event ev;

		took_tip(w);

		status = pk_pt_insn_event(w->dec, &ev);
		if (status < 0)
			break;
		if (ev.type == PK_PT_EV_PSB && ev.u.psb.cut) {
			if (w->psb_synced)	/* (perf: read in sync) */
				psb_offset(w, &ev);
			continue;
		}
		if (ev.type == PK_PT_EV_PSB && !ev.ip_suppressed && w->resync)
			w->resync = false; /* perf: in sync at its FUP, no
					    * trace start */
		if ((ev.type == PK_PT_EV_PSB && !ev.ip_suppressed) ||
		    (ev.type == PK_PT_EV_CBR && w->ndef)) {
			if (w->ndef < 8) {
				w->def[w->ndef++] = ev;
				continue;
			}
		}
		flush_def(w);
		if (ev.type == PK_PT_EV_PSB || ev.type == PK_PT_EV_CBR)
			settle(w);	/* before the event's time counts */
		event_time(w, &ev);
		w->refail = false;
		event(w, &ev);
		if (w->refail) {	/* an error and a resync in it */
			status = w->status;
			if (w->done)
				return PK_ERR_EOS;
		}
	}
	/* an abort's FUP no TIP followed: perf fails there and takes the
	 * flow up at the next FUP (already queued: its event next) */
	if (w->tx_abort && status >= 0 && !w->err &&
	    pk__pt_fl_fup_ahead(w->dec))
		return events(w, PK_PT_STS_EVENT);
	if (w->tx_abort && status >= 0 && !w->err)
		status = tx_abort_no_tip(w);
	return status;
}

/* A place in a block being stepped through: the K-th instruction (from
 * 1) at IP, its size once known. */
struct bpos {
	uint64_t ip;
	uint32_t k;
	uint8_t size;
};

/* The K-th instruction of block BLK (K at or past P's), stepped to from
 * P through the decoder's cache: 0, or -1 when the code cannot be read.
 * Its bytes are read when the samples show them. */
static int nth_insn(struct walk *w, const struct pk_pt_block *blk,
		    struct bpos *p, uint32_t k, struct pk_pt_insn *in)
{
	for (;;) {
		if (p->k < k && p->size) {
			p->ip += p->size;
			p->k++;
			p->size = 0;
			continue;
		}
		if (pk_pt_insn_at(w->dec, p->ip,
				  (enum pk_pt_exec_mode)blk->mode, in) < 0)
			return -1;
		p->size = in->size;
		if (p->k == k)
			break;
	}
	memset(in->raw, 0, sizeof(in->raw));
	if (w->it->opts.insn_bytes)
		pk_pt_image_read(w->img, in->ip, in->raw, in->size);
	return 0;
}

/* BLK's last instruction, a branch, waits for its outcome (ISAMP: with
 * an i sample); its bytes read when asked for, and to tell int from
 * syscall. */
static inline void pend_block(struct walk *w, const struct pk_pt_block *blk,
			      bool isamp)
{
	memset(&w->pend, 0, sizeof(w->pend));
	w->pend.ip = blk->end_ip;
	w->pend.size = blk->end_size;
	w->pend.iclass = blk->end_iclass;
	w->pend.mode = blk->mode;
	if (w->it->opts.insn_bytes || blk->end_iclass == PK_PT_IC_FAR_CALL ||
	    blk->end_iclass == PK_PT_IC_FAR_RETURN)
		pk_pt_image_read(w->img, blk->end_ip, w->pend.raw,
				 blk->end_size < 15 ? blk->end_size : 15);
	w->have_pend = true;
	w->pend_tsc = w->t_step;
	w->isamp = isamp;
}

/* A run of instructions: the branch before it went to its start, a
 * PSB+ met inside it shows before it, its last instruction (a branch)
 * waits for its outcome, and the i samples that fall in it. */
static void block(struct walk *w, const struct pk_pt_block *blk)
{
	struct pk_pt_insn in;

	bool def_here;

	if (w->rg.on)
		pk__it_range_block(w, blk);
	w->walks++;
	if (w->resync)
		resynced(w, blk->ip, NULL);
	flush_lost_psb(w, blk->ip);
	w->lost = false;
	if (w->have_pend)
		resolve(w, blk->ip);
	uint64_t tot0 = w->tot_insn;	/* (perf's count at each sample) */

	w->tot_insn += blk->ninsn;
	if (!w->it->timeless)
		est_count(w, blk->ninsn, blk->end_iclass);
	/* a PSB+ whose FUP falls in the run shows before that instruction */
	def_here = w->ndef && w->def[0].ip >= blk->ip &&
		   w->def[0].ip <= blk->end_ip;
	if (def_here && w->def[0].ip == blk->ip)
		flush_def(w), def_here = false;
	w->next_ip = blk->end_ip + blk->end_size;
	bool end_sample = false;
	uint32_t pos = 0;	/* instructions of the block counted */
	struct bpos bp = { blk->ip, 1, 0 };

	while (w->period && w->cnt + (blk->ninsn - pos) >= w->period) {
		uint32_t k = pos + (uint32_t)(w->period - w->cnt);

		pos = k;
		w->cnt = w->period;
		if (k == blk->ninsn && is_branch(blk->end_iclass)) {
			end_sample = true; /* with the branch's outcome */
			break;
		}
		if (nth_insn(w, blk, &bp, k, &in) == 0) {
			if (def_here && in.ip >= w->def[0].ip)
				flush_def(w), def_here = false;
			w->tot_insn = tot0 + k;
			isample(w, &in, 0, 0, NULL);
			w->tot_insn = tot0 + blk->ninsn;
		} else {
			w->cnt = 0;
		}
	}
	if (def_here)
		flush_def(w);
	if (!end_sample)
		w->cnt += blk->ninsn - pos;
	if (is_branch(blk->end_iclass))
		pend_block(w, blk, end_sample);
}

/* The time after a step: its branch's query's. */
static void step_time(struct walk *w)
{
	if (w->it->timeless || pk_pt_insn_time(w->dec, &w->t_step))
		w->t_step = w->t_now;
}

static int run_room(struct pk_itrace *it)
{
	if (it->run_lens)
		return 0;
	it->run_ips = pk__malloc(RUN_MAX * sizeof(*it->run_ips));
	it->run_addrs = pk__malloc(RUN_MAX * sizeof(*it->run_addrs));
	it->run_flags = pk__malloc(RUN_MAX * sizeof(*it->run_flags));
	if (it->run_ips && it->run_addrs && it->run_flags)
		it->run_lens = pk__malloc(RUN_MAX);
	return it->run_lens ? 0 : -ENOMEM;
}

/* The sizes of BLK's first instructions (at most SZC_N), from the walk's
 * table or decoded into it; NULL when an instruction cannot be read. */
static const struct szent *block_sizes(struct walk *w,
				       const struct pk_pt_block *blk)
{
	struct szent *z;
	struct pk_pt_insn in;
	uint64_t ip = blk->ip;
	uint32_t n = blk->ninsn < SZC_N ? blk->ninsn : SZC_N;

	if (!w->szc || w->szc_img != w->img) {
		if (!w->szc)
			w->szc = pk__malloc(sizeof(*w->szc) << SZC_BITS);
		if (!w->szc)
			return NULL;
		memset(w->szc, 0, sizeof(*w->szc) << SZC_BITS);
		w->szc_img = w->img;
	}
	z = &w->szc[(ip ^ (ip >> SZC_BITS) ^ (ip >> 2 * SZC_BITS)) &
		    ((1u << SZC_BITS) - 1)];
	if (z->valid && z->ip == ip && z->mode == blk->mode && z->n >= n)
		return z;
	z->valid = 0;
	for (uint32_t k = 0; k < n; k++) {
		if (pk_pt_insn_at(w->dec, ip, (enum pk_pt_exec_mode)blk->mode,
				  &in) < 0)
			return NULL;
		z->sz[k] = in.size;
		ip += in.size;
	}
	z->ip = blk->ip;
	z->mode = blk->mode;
	z->n = (uint8_t)n;
	z->valid = 1;
	return z;
}

/* ---- the lean walk: i and b samples and nothing else, in runs ---- */

/* Whether the options ask for nothing but i samples (by instruction
 * count) and branch samples (all of them) from a trace walked in blocks:
 * no stacks, branch rings, IPC, skips, event trace flags or bytes. */
static bool lean_options(const struct walk *w)
{
	const struct pk_itrace *it = w->it;
	const struct pk_itrace_opts *o = &it->opts;

	return w->blocks && !w->qk && !w->tick && !w->chain && !w->lbr_sz &&
	       !o->thread_stack && !o->callchain && !o->add_callchain &&
	       !o->ipc && !o->approx_ipc && !o->initial_skip &&
	       !o->insn_bytes && !it->info.cap_event_trace &&
	       !it->branches_filter;
}

/* Whether the next block may go the lean way: those options, and nothing
 * due (no error, resync, deferred or held event, range, iflag change). */
static bool lean(struct walk *w)
{
	if (w->lean < 0)
		w->lean = lean_options(w) && !run_room(w->it);
	return w->lean && !w->resync && !w->ndef && !w->err && !w->npend &&
	       !w->nr && !w->next_nr && !w->anr_set &&
	       !w->done && !w->rg.on && !w->rg.ff && !w->fup_iflags &&
	       !w->unsampled;
}

/* The lean walk's persistent sample of KIND. */
static struct pk_itrace_sample *lean_sample(struct walk *w, int kind)
{
	return kind == PK_ITRACE_INSTRUCTIONS ? &w->lean_i : &w->lean_s;
}

/* The run gathered out: as a run through the run callback, else (or one
 * sample) one by one through the sample callback. */
static void lean_flush(struct walk *w)
{
	struct pk_itrace *it = w->it;
	struct pk_itrace_sample *s = lean_sample(w, w->lean_kind);
	unsigned n = w->nlean;

	w->nlean = 0;
	if (!n || w->err)
		return;
	s->ip = it->run_ips[0];
	s->addr = it->run_addrs[0];
	s->flags = it->run_flags[0];
	s->insn_len = it->run_lens[0];
	if (n > 1 && it->run_cb) {
		struct pk_itrace_run r = { it->run_ips, it->run_addrs,
					   it->run_flags, it->run_lens, n };

		w->err = it->run_cb(it->ctx, s, &r);
		return;
	}
	for (unsigned k = 0; k < n && !w->err; k++) {
		s->ip = it->run_ips[k];
		s->addr = it->run_addrs[k];
		s->flags = it->run_flags[k];
		s->insn_len = it->run_lens[k];
		w->err = it->cb(it->ctx, s);
	}
}

/* A sample of KIND as base(), isample()/branch_at() and emit() make it
 * under lean() (TSC/HAS_TSC: its event's time, as base() takes it),
 * into the run: which goes out first when the sample's kind, time or
 * modes differ from its, and before a sample held for later. */
static inline __attribute__((always_inline)) void
lean_add(struct walk *w, int kind, uint64_t ip, uint64_t addr, uint32_t flags,
	 uint8_t len, uint64_t tsc, bool has_tsc)
{
	struct pk_itrace_sample *s = lean_sample(w, kind);
	struct pk_itrace *it = w->it;
	uint64_t time = 0;
	bool has_time = false;
	uint16_t cm, acm;
	unsigned k;

	cm = kernel_ip(ip) || (!ip && kind == PK_ITRACE_BRANCHES &&
			       kernel_ip(addr)) ?
	     PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	acm = addr && kernel_ip(addr) ? PERF_RECORD_MISC_KERNEL :
	      PERF_RECORD_MISC_USER;
	if (w->in_tx && !(flags & PK_IP_FLAG_ASYNC))
		flags |= PK_IP_FLAG_IN_TX;	/* perf: inside a transaction */
	if (!it->timeless) {
		uint64_t t = perf_ts(w, has_tsc ? tsc : w->t_now);

		if (t > w->tsc)
			w->tsc = t;
		has_time = w->tsc != 0;
		time = has_time ? pk__it_tsc_to_perf(&it->info, w->tsc) : 0;
	}
	if (w->nlean && (w->lean_kind != kind || s->time != time ||
			 s->has_time != has_time || s->cpumode != cm ||
			 s->addr_cpumode != acm || w->nlean == RUN_MAX))
		lean_flush(w);
	w->lean_kind = kind;
	s->time = time;
	s->has_time = has_time;
	s->cpumode = cm;
	s->addr_cpumode = acm;
	if (kind == PK_ITRACE_BRANCHES)
		s->depth = (int)w->ts_n;
	else
		s->period = s->insn_cnt = w->cnt;
	if (!it->timeless && w->tsc > w->limit) {
		lean_flush(w);	/* held: past the time decoded up to */
		s->ip = ip;
		s->addr = addr;
		s->flags = flags;
		s->insn_len = len;
		emit(w, s);
		return;
	}
	k = w->nlean++;
	it->run_ips[k] = ip;
	it->run_addrs[k] = addr;
	it->run_flags[k] = flags;
	it->run_lens[k] = len;
}

/* The pending branch went to TO (finish() under lean()): its i sample
 * when one falls there, then its branch sample when taken. */
static void lean_resolve(struct walk *w, uint64_t to)
{
	const struct pk_pt_insn *p = &w->pend;
	bool taken = !(p->iclass == PK_PT_IC_COND_JUMP &&
		       to == p->ip + p->size);
	uint32_t flags = branch_flags(p);

	w->have_pend = false;
	w->ipc_flag = false;
	if (w->isamp) {
		lean_add(w, PK_ITRACE_INSTRUCTIONS, p->ip, taken ? to : 0,
			 flags, p->size, w->pend_tsc, w->pend_tsc != 0);
		w->cnt = 0;
		w->isamp = false;
	}
	if (taken && w->it->opts.branches)
		lean_add(w, PK_ITRACE_BRANCHES, p->ip, to, flags, p->size,
			 w->pend_tsc, w->pend_tsc != 0);
}

/* The K-th instruction of BLK (K at or past P's) through the size
 * table Z where it reaches, else nth_insn(): its ip and size. P kept as
 * nth_insn() keeps it. 0 or -1. */
static int lean_insn(struct walk *w, const struct pk_pt_block *blk,
		     const struct szent *z, struct bpos *p, uint32_t k,
		     uint64_t *ip, uint8_t *len)
{
	struct pk_pt_insn in;

	if (z && k <= z->n) {
		while (p->k < k)
			p->ip += z->sz[p->k++ - 1];
		p->size = z->sz[k - 1];
		*ip = p->ip;
		*len = p->size;
		return 0;
	}
	if (nth_insn(w, blk, p, k, &in))
		return -1;
	*ip = in.ip;
	*len = in.size;
	return 0;
}

/* Period 1, a sample gathered at the POS-th instruction (at IP) of BLK:
 * the block's next ones while the size table Z reaches (not its last,
 * a branch: its sample waits for the outcome), straight into the run.
 * BP and POS left as lean_block()'s loop leaves them. */
static void lean_every(struct walk *w, const struct pk_pt_block *blk,
		       const struct szent *z, struct bpos *bp, uint32_t *pos,
		       uint64_t ip)
{
	struct pk_itrace *it = w->it;
	uint32_t k = *pos, stop = blk->ninsn - is_branch(blk->end_iclass);
	unsigned n = w->nlean;
	uint32_t fl = it->run_flags[n - 1];

	if (stop > z->n)
		stop = z->n;
	if (k >= stop)
		return;
	if (stop - k > RUN_MAX - n)
		stop = k + (RUN_MAX - n);
	for (; k < stop; k++, n++) {	/* (the k+1-th is sz[k] long) */
		ip += z->sz[k - 1];
		it->run_ips[n] = ip;
		it->run_addrs[n] = 0;
		it->run_flags[n] = fl;
		it->run_lens[n] = z->sz[k];
	}
	w->nlean = n;
	bp->ip = ip;
	bp->k = k;
	bp->size = z->sz[k - 1];
	*pos = k;
}

/* block() under lean(). */
static void lean_block(struct walk *w, const struct pk_pt_block *blk)
{
	bool end_sample = false;
	uint32_t pos = 0;

	w->walks++;
	w->lost = false;
	if (w->have_pend)
		lean_resolve(w, blk->ip);
	w->tot_insn += blk->ninsn;
	w->next_ip = blk->end_ip + blk->end_size;
	if (w->period && w->cnt + blk->ninsn >= w->period) {
		const struct szent *z = block_sizes(w, blk);
		struct bpos bp = { blk->ip, 1, 0 };

		bool same = false;	/* as the block's last sample gathered */
		uint64_t ip, last = 0;
		uint8_t len;

		while (w->cnt + (blk->ninsn - pos) >= w->period) {
			uint32_t k = pos + (uint32_t)(w->period - w->cnt);

			pos = k;
			w->cnt = w->period;
			if (k == blk->ninsn && is_branch(blk->end_iclass)) {
				end_sample = true; /* with the outcome */
				break;
			}
			if (lean_insn(w, blk, z, &bp, k, &ip, &len)) {
				w->cnt = 0;
				continue;
			}
			/* after one gathered, the block's others differ from
			 * it in ip and size alone while in the same mode */
			if (same && kernel_ip(ip) == kernel_ip(last) &&
			    w->nlean < RUN_MAX) {
				unsigned n = w->nlean++;

				w->it->run_ips[n] = ip;
				w->it->run_addrs[n] = 0;
				w->it->run_flags[n] = w->it->run_flags[n - 1];
				w->it->run_lens[n] = len;
			} else {
				lean_add(w, PK_ITRACE_INSTRUCTIONS, ip, 0, 0,
					 len, 0, false);
				same = w->nlean && !w->npend;
			}
			last = ip;
			w->cnt = 0;
			if (same && w->period == 1 && z)
				lean_every(w, blk, z, &bp, &pos, ip);
		}
	}
	if (!end_sample)
		w->cnt += blk->ninsn - pos;
	if (is_branch(blk->end_iclass))
		pend_block(w, blk, end_sample);
}

/* Blocks while lean() and the decoder has nothing else to say (status
 * 0), up to the time decoded to: the last block into BLK, the status
 * after it returned. */
static int lean_walk(struct walk *w, struct pk_pt_block *blk)
{
	uint64_t tsc = w->tsc;	/* (lean_add() times the samples) */
	const bool timed = !w->it->timeless;	/* (perf's estimate) */
	int status = 0;

	base(w, &w->lean_s, PK_ITRACE_BRANCHES, 0, false);
	base(w, &w->lean_i, PK_ITRACE_INSTRUCTIONS, 0, false);
	w->tsc = tsc;
	w->nlean = 0;
	/* What lean() asks can change here only by the callback's error and
	 * a held sample: the rest moves with events and errors, which end
	 * the loop (a status other than 0). For the same reason no TIP is
	 * taken up after an error in the loop (took_tip: the step before
	 * it asked). */
	while (status == 0 && !w->err && !w->npend) {
		if (!w->it->timeless) {	/* pk__it_run()'s and the step's */
			uint64_t t;

			if (w->tsc > w->limit ||
			    (!pk_pt_insn_time(w->dec, &t) && t > w->limit))
				break;
			if (pk_pt_insn_time(w->dec, &w->t_now))
				w->t_now = 0;
		}
		status = pk_pt_insn_next_block(w->dec, blk);
		step_time(w);
		if (blk->ninsn) {
			lean_block(w, blk);
			if (timed)
				est_count(w, blk->ninsn, blk->end_iclass);
		}
	}
	lean_flush(w);
	return status;
}

/* One step of the decoding: the events pending, then an instruction or
 * a block, or the error and the resync after it. */
/* The trace's end with a branch pending (sample mode: a buffer cut
 * anywhere): perf's walk counted it, and its i sample is made, the
 * outcome never known. (Seen in sample mode only; full traces end at a
 * TIP.PGD or an error.) */
static void end_pending(struct walk *w)
{
	if (w->have_pend && w->isamp) {
		w->pend_ev.tsc = w->pend_tsc;
		w->pend_ev.has_tsc = w->pend_tsc != 0;
		w->have_pend = false;
		isample(w, &w->pend, branch_flags(&w->pend), 0, &w->pend_ev);
	}
}

/* Sample mode, the buffer's last packets read with a branch pending:
 * perf's decoder takes its outcome (a TIP the last packet) and stops
 * there, walking no further without a packet to walk to (the flow
 * stays at the target: a buffer that goes on walks on from there). */
static void last_branch(struct walk *w)
{
	if (w->have_pend && w->dec->enabled)	/* (the flow at its target) */
		resolve(w, w->dec->ip);
	flush_def(w);
	end_pending(w);
	w->done = true;
}

/* Whether the time the flow stands at (where its packets led, its
 * events' so far) passed the walk's limit. */
bool pk__it_past_limit(const struct walk *w)
{
	uint64_t t;

	if (w->it->timeless)
		return false;
	return w->tsc > w->limit ||
	       (!pk_pt_insn_time(w->dec, &t) && t > w->limit);
}

/* A PSB+ held back whose time passed the walk's limit. */
static bool psb_held_past_limit(const struct walk *w)
{
	return !w->it->timeless && w->ndef && w->def[0].type == PK_PT_EV_PSB &&
	       w->def[0].has_tsc && w->def[0].tsc > w->limit;
}

/* Such a PSB+, the flow at its FUP: perf's decoder returns the pending
 * branch's state (its time as it was) and the PSB's, and walks the code
 * after it only once the side band up to then is in (a switch there: the
 * next task's code). True then, the two made. */
static bool psb_past_limit(struct walk *w)
{
	if (!psb_held_past_limit(w) || w->def[0].ip != w->dec->ip)
		return false;
	if (w->have_pend && w->dec->enabled)
		resolve(w, w->dec->ip);
	flush_def(w);
	return true;
}

void pk__it_step(struct walk *w)
{
	struct pk_pt_insn in;
	struct pk_pt_block blk;
	int status = w->status;

	if (w->qk) {
		pk__it_quick_step(w);
		return;
	}

	if (status >= 0)
		status = events(w, status);
	if (status >= 0 && (status & PK_PT_STS_EOS) && w->have_pend) {
		w->status = status;	/* (a consecutive buffer goes on) */
		last_branch(w);
		return;
	}
	if (status >= 0 && (status & PK_PT_STS_EOS)) {
		w->status = status;
		flush_def(w);
		end_pending(w);
		w->done = true;
		return;
	}
	if (!w->it->timeless && pk_pt_insn_time(w->dec, &w->t_now))
		w->t_now = 0;
	/* the events' time passed the side band's: perf's decoder returns
	 * the state (a PSB+, a TSC before TIP.PGE) and walks on only after
	 * the side band up to then (a switch: the next task's code) */
	if (status >= 0 && (pk__it_past_limit(w) || psb_past_limit(w))) {
		w->status = status;
		return;
	}
	took_tip(w);
	/* (to such a PSB's FUP instruction by instruction: a block may run
	 * on past it) */
	if (status >= 0 && w->blocks && !psb_held_past_limit(w)) {
		status = pk_pt_insn_next_block(w->dec, &blk);
		step_time(w);
		if (blk.ninsn)
			block(w, &blk);
		if (status == 0 && lean(w))
			status = lean_walk(w, &blk);
		in.ip = blk.end_ip;
	} else if (status >= 0) {
		memset(&in, 0, sizeof(in));
		status = pk_pt_insn_next(w->dec, &in);
		step_time(w);
		if (status >= 0 || in.iclass != PK_PT_IC_ERROR)
			insn(w, &in);
	}
	w->status = status;
	if (status >= 0)
		return;
	flush_def(w);
	if (status == PK_ERR_EOS) {
		end_pending(w);
		w->done = true;
		return;
	}
	/* a branch whose outcome the trace does not give: perf's walk
	 * fails at it, no state of it (a FUP's IP not reached, a TIP or TNT
	 * bit missing) */
	if (w->have_pend && w->pend.ip == in.ip && err_code(status) == 6) {
		w->have_pend = false;
		if (w->isamp) {	/* (its i sample due: perf's count restarts) */
			w->unsampled += w->cnt;
			w->cnt = 0;
		}
	}
	/* (a branch into code that cannot be read went there: perf's
	 * state of it came before the fetch) */
	if (w->have_pend)
		finish(w, branch_flags(&w->pend),
		       err_code(status) == 5 ? in.ip : 0, NULL);
	fail(w, err_code(status), in.ip);
}

/* ---- for synth.c: the samples of events that do not move the flow ---- */

void pk__it_base(struct walk *w, struct pk_itrace_sample *s, int kind,
		 const struct pk_pt_event *ev)
{
	base(w, s, kind, ev->tsc, ev->has_tsc);
}

void pk__it_emit(struct walk *w, struct pk_itrace_sample *s)
{
	synth_chain(w, s);
	emit(w, s);
}

void pk__it_settle(struct walk *w)
{
	settle(w);
}

uint32_t pk__it_branch_flags(const struct pk_pt_insn *in)
{
	return branch_flags(in);
}

void pk__it_ts_branch(struct walk *w, uint32_t flags, uint64_t from,
		      uint64_t to)
{
	pk__it_lbr_branch(w, flags, from, to, NULL);
	if (w->it->opts.thread_stack || w->it->opts.callchain ||
	    w->it->opts.add_callchain)
		ts_event(w, flags, from, to, 0);
}

void pk__it_chain(struct walk *w, struct pk_itrace_sample *s)
{
	synth_chain(w, s);
}

void pk__it_finish(struct walk *w, uint32_t flags, uint64_t to,
		   const struct pk_pt_event *ev)
{
	finish(w, flags, to, ev);
}

void pk__it_branch(struct walk *w, uint32_t flags, uint64_t from,
		   uint64_t to, const struct pk_pt_insn *in,
		   const struct pk_pt_event *ev)
{
	branch_at(w, flags, from, to, in, ev);
}
