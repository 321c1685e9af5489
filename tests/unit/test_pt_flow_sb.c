/* SPDX-License-Identifier: MIT */
/*
 * PT flow decoder superblocks (lib/pt/flow_sb.c) against the per-block
 * path they stand in for and the per-instruction path (white box: the
 * test turns superblocks off in one decoder and compares the decoders'
 * whole state after every call).
 *
 * Random programs (conditional branches forward and back, direct jumps
 * and calls, returns, indirect branches) run in a simulator that writes
 * the PT stream: TNT-8 and TNT-64 packets of any length, timing packets
 * (TSC, TMA, MTC, CYC, CBR, PAD) between and inside TNT runs, returns
 * compressed where the hardware would and not, recursion deeper than the
 * return stack, PSB+, OVF, MODE.Exec, TIP.PGD/PGE, interrupts (FUP+TIP),
 * and loops that read no packet. Each stream, sound and damaged, is
 * decoded four ways:
 *   ref  pk_pt_insn_next (instructions and events: the reference)
 *   blk  pk_pt_insn_next_block, superblocks off (the per-block path)
 *   sb   pk_pt_insn_next_block, superblocks on
 *   run  pk_pt_insn_next_blocks (superblocks applied whole)
 * sb and blk go in lockstep and must agree on every return, block and
 * the decoder's state; run must agree with blk's calls up to each
 * non-zero status; on sound streams sb's instructions and events must be
 * ref's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/pt.h>
#include <perfkit/pt_insn.h>
#include "pt/flow_int.h"
#include "pt_flowgen.h"
#include "test.h"

enum { MAXINSN = 60000, RSM = 64, STACK = 4096,
       MAXSTEP = 200000 };	/* calls on one stream (damage may loop) */

/* What a stream has in it (each 1 in N, 0: never). */
struct feat {
	unsigned tnt64;		/* TNT-64 packets (else TNT-8) */
	unsigned flush;		/* a TNT packet before it is full */
	unsigned timing;	/* a timing packet before a branch */
	unsigned nocomp;	/* a return not compressed */
	unsigned ovf, intr, pgd, mode;
	unsigned back_jmp;	/* a direct jump backward (loops) */
	unsigned weights[T_NTERM];
};

static enum term pick_term(const struct feat *f)
{
	unsigned sum = 0, r;

	for (int t = 0; t < T_NTERM; t++)
		sum += f->weights[t];
	r = (unsigned)(rnd() % sum);
	for (int t = 0; t < T_NTERM; t++) {
		if (r < f->weights[t])
			return (enum term)t;
		r -= f->weights[t];
	}
	return T_JCC;
}

static void make_prog(struct prog *p, const struct feat *f)
{
	memset(p->code, 0xf4, sizeof(p->code));
	for (int b = 0; b < NBLK; b++) {
		int nops = (int)(rnd() % 8), tb;
		enum term t = pick_term(f);

		if (b == NBLK - 1 && (t == T_JMP || t == T_CALL))
			t = T_JMP_IND;
		tb = (int)(rnd() % NBLK);
		/* direct jumps and calls go forward but for a few: a walk
		 * that reads no packet cannot come round (but there) */
		if ((t == T_JMP || t == T_CALL) && tb <= b &&
		    !one_in(f->back_jmp))
			tb = b + 1 + (int)(rnd() % (NBLK - 1 - b));
		prog_block(p, b, nops, t, blk_ip(tb));
	}
}

/* The simulator: its PT writer and what it knows of the decoder. */
struct sim {
	struct gen w;
	const struct feat *f;
	uint64_t tsc;
	uint8_t ctc;
	uint64_t stack[STACK];	/* the program's return addresses */
	int sp;
	uint64_t rs[RSM];	/* the decoder's return stack, newest last */
	int rs_n;
};

static void timing(struct sim *s)
{
	struct pk_pt_packet p;

	memset(&p, 0, sizeof(p));
	switch (rnd() % 6) {
	case 0:
		p.type = PK_PT_TSC;
		s->tsc += 1000 + rnd() % 5000;
		p.u.tsc.tsc = s->tsc;
		emit(&s->w, &p);
		memset(&p, 0, sizeof(p));
		p.type = PK_PT_TMA;
		p.u.tma.ctc = (uint16_t)(s->ctc << 8 | (rnd() & 0xff));
		p.u.tma.fc = (uint16_t)(rnd() % 256);
		break;
	case 1: case 2:
		p.type = PK_PT_MTC;
		s->ctc = (uint8_t)(s->ctc + 1 + rnd() % 3);
		p.u.mtc.ctc = s->ctc;
		break;
	case 3:
		p.type = PK_PT_CYC;
		p.u.cyc.value = 1 + rnd() % 300;
		break;
	case 4:
		p.type = PK_PT_CBR;
		p.u.cbr.ratio = (uint8_t)(10 + rnd() % 30);
		break;
	default:
		p.type = PK_PT_PAD;
		break;
	}
	emit(&s->w, &p);
}

/* PSB+ with a TSC in it. */
static void sim_psb(struct sim *s, uint64_t ip)
{
	struct pk_pt_packet t = { .type = PK_PT_TSC };

	s->tsc += 10000;
	t.u.tsc.tsc = s->tsc;
	psb_plus(&s->w, ip, &t);
}

static void call(struct sim *s, uint64_t ret)
{
	if (s->sp < STACK)
		s->stack[s->sp++] = ret;
	if (s->rs_n == RSM) {	/* the decoder keeps the newest */
		memmove(s->rs, s->rs + 1, (RSM - 1) * sizeof(s->rs[0]));
		s->rs_n--;
	}
	s->rs[s->rs_n++] = ret;
}

/* Where a return goes; its packet (compressed where the decoder's
 * return stack has the address on top, as the hardware does). */
static uint64_t ret(struct sim *s)
{
	uint64_t to = s->sp ? s->stack[--s->sp] : blk_ip((int)(rnd() % NBLK));

	if (s->rs_n && s->rs[s->rs_n - 1] == to && !one_in(s->f->nocomp)) {
		s->rs_n--;
		tnt(&s->w, 1);
	} else {
		ip_pkt(&s->w, PK_PT_TIP, to);
	}
	return to;
}

/* The program's execution from block 0 for about N instructions into S
 * and IPS; returns the instruction count. */
static size_t run(const struct prog *p, struct sim *s, uint64_t *ips,
		  size_t n)
{
	const struct feat *f = s->f;
	struct gen *g = &s->w;
	size_t k = 0, k_pkt = 0, cap = MAXINSN - 64;
	uint64_t ip = blk_ip(0);
	int b = 0;

	g->tnt_max = 6;
	sim_psb(s, ip);
	while (k < n && k < cap) {
		uint64_t next;

		while (ip < p->term_ip[b] && k < cap) {
			if (one_in(f->intr)) {	/* FUP+TIP: an interrupt */
				b = interrupt(g, ip);
				ip = blk_ip(b);
				s->sp = 0;	/* never returns */
				continue;
			}
			if (one_in(f->ovf)) {	/* lost packets; on at ip */
				flush_tnt(g);
				emit_type(g, PK_PT_OVF);
				ip_pkt(g, PK_PT_FUP, ip);
				s->rs_n = 0;
				/* what ran since the last packet is lost */
				k = k_pkt;
			}
			ips[k++] = ip++;
		}
		if (k >= cap)
			break;
		if (one_in(f->timing))
			timing(s);
		ips[k++] = ip;
		if (p->term[b] != T_JMP && p->term[b] != T_CALL)
			k_pkt = k;
		switch (p->term[b]) {
		case T_JCC:
			next = jcc(g, p, b, ip, ips, &k);
			break;
		case T_JMP:
			next = p->target[b];
			break;
		case T_CALL:
			call(s, ip + 5);
			next = p->target[b];
			break;
		case T_CALL_IND:
			call(s, ip + 2);
			next = blk_ip((int)(rnd() % NBLK));
			if (one_in(f->mode))
				mode_exec(g);
			ip_pkt(g, PK_PT_TIP, next);
			break;
		case T_JMP_IND:
			next = blk_ip((int)(rnd() % NBLK));
			if (one_in(f->pgd)) {
				/* off at the branch, on again elsewhere */
				flush_tnt(g);
				emit_type(g, PK_PT_TIP_PGD);
				ip_pkt(g, PK_PT_TIP_PGE, next);
				s->sp = 0;
				break;
			}
			if (one_in(f->mode))
				mode_exec(g);
			ip_pkt(g, PK_PT_TIP, next);
			break;
		case T_RET:
		default:
			next = ret(s);
			break;
		}
		ip = land(next, ips, &k);
		b = blk_of(ip);
		if (g->since_psb > 3000) {
			sim_psb(s, ip);
			s->rs_n = 0;	/* as libipt: no returns over PSB */
		}
	}
	gen_end(g, ip);
	return k;
}

/* ---- the decoders ---- */

struct dec {
	struct pk_pt_insn_decoder *d;
	int status;
	bool done;
};

static const struct pk_pt_config *config(void)
{
	static struct pk_pt_config c;

	c.sz = sizeof(c);
	c.mtc_freq = 3;
	c.nom_freq = 20;
	c.cpuid_0x15_eax = 2;
	c.cpuid_0x15_ebx = 100;
	return &c;
}

static void dec_open(struct dec *x, const struct gen *g,
		     const struct pk_pt_image *img, bool sb)
{
	x->d = pk_pt_insn_decoder_new(g->buf, g->len, config(), img, NULL);
	pk__pt_sb_enable(x->d, sb);
	x->status = pk_pt_insn_sync_forward(x->d);
	x->done = false;
}

/* After an error: on as pt decode --resync-on-error goes. */
static void dec_recover(struct dec *x)
{
	x->status = pk_pt_insn_resync(x->d);
	if (x->status < 0 && x->status != PK_ERR_EOS)
		x->status = pk_pt_insn_sync_forward(x->d);
	if (x->status < 0)
		x->done = true;
}

/* Is the state of A the state of B (all but the caches and scratch)?
 * WHY says where not. */
static bool same_state(const struct pk_pt_insn_decoder *a,
		       const struct pk_pt_insn_decoder *b, const char **why)
{
#define F(x) do { if (a->x != b->x) { *why = #x; return false; } } while (0)
	F(ip); F(tnt_n); F(enabled); F(speculative); F(mode); F(iflag);
	F(rs_n); F(qn); F(nheld); F(icount); F(queried); F(absolute);
	F(after_branch); F(noip); F(have_psb_ip); F(q_tsc); F(tnt_tsc);
	F(last_tick); F(lib_off); F(walk_n); F(walk_lim); F(walked);
	F(have_next); F(next_err); F(status_err); F(ctx_err); F(resynced);
	F(resync_off); F(have_resume); F(resume_ip); F(took_tip);
	F(time.tsc); F(lip.ip);
	if (a->tnt_n && ((a->tnt ^ b->tnt) & ((2ull << (a->tnt_n - 1)) - 1))) {
		*why = "tnt";
		return false;
	}
	if (a->walk_lim)
		F(walk_ip);
	for (unsigned i = 0; i < a->rs_n; i++)
		if (a->rs[(a->rs_top + RSMAX - i) % RSMAX] !=
		    b->rs[(b->rs_top + RSMAX - i) % RSMAX]) {
			*why = "rs";
			return false;
		}
	for (unsigned i = 0; i < a->qn; i++) {
		const struct qev *x = &a->q[(a->qh + i) % QMAX];
		const struct qev *y = &b->q[(b->qh + i) % QMAX];

		if (x->ev.type != y->ev.type || x->bind != y->bind ||
		    x->bind_ip != y->bind_ip || x->ev.ip != y->ev.ip ||
		    x->ev.tsc != y->ev.tsc) {
			*why = "queue";
			return false;
		}
	}
	if (a->have_next && (a->next.type != b->next.type ||
			     a->next_off != b->next_off)) {
		*why = "next";
		return false;
	}
	return true;
#undef F
}

static bool same_blk(const struct pk_pt_block *a, const struct pk_pt_block *b)
{
	return a->ip == b->ip && a->end_ip == b->end_ip &&
	       a->ninsn == b->ninsn && a->mode == b->mode &&
	       a->speculative == b->speculative &&
	       a->end_iclass == b->end_iclass && a->end_size == b->end_size;
}

static bool same_event(const struct pk_pt_event *a, const struct pk_pt_event *b)
{
	return a->type == b->type && a->ip == b->ip &&
	       a->ip_suppressed == b->ip_suppressed && a->tsc == b->tsc &&
	       a->has_tsc == b->has_tsc && a->at == b->at;
}

struct tally {
	size_t streams, calls, sb_blocks, run_calls, bad;
	char what[256];
};

static void bad(struct tally *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void bad(struct tally *t, const char *fmt, ...)
{
	va_list ap;

	if (t->bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(t->what, sizeof(t->what), fmt, ap);
	va_end(ap);
}

/* One block call on blk (A) and sb (B); do they agree? */
static bool lockstep(struct dec *a, struct dec *b, struct tally *t)
{
	const struct sb_rec *cur = b->d->sb_cur;
	struct pk_pt_block ba, bb;

	b->status = pk_pt_insn_next_block(b->d, &bb);
	t->sb_blocks += b->d->sb_cur != cur;
	a->status = pk_pt_insn_next_block(a->d, &ba);
	t->calls++;
	return same_blk(&ba, &bb);
}

/* One run (next_blocks) on sb (B) against blk's (A) calls up to its
 * non-zero status; do they agree? */
static bool runs(struct dec *a, struct dec *b, struct tally *t,
		 size_t *steps)
{
	struct pk_pt_block ba, bb;
	uint64_t na = 0, nb = 0;

	b->status = pk_pt_insn_next_blocks(b->d, &bb, &nb);
	do {	/* (it stops after some blocks, status 0) */
		a->status = pk_pt_insn_next_block(a->d, &ba);
		na += ba.ninsn;
		++*steps;
	} while (!a->status && (b->status || na < nb) && *steps < MAXSTEP);
	t->run_calls++;
	return na == nb && same_blk(&ba, &bb);
}

/* blk and sb over the whole stream, their statuses and states the same
 * after every call: in lockstep, or (RUN) sb a run at a time. */
static void pair(const struct gen *g, const struct pk_pt_image *img,
		 struct tally *t, bool run)
{
	const char *who = run ? "runs" : "lockstep";
	struct dec a, b;
	const char *why = "";
	size_t steps = 0;

	dec_open(&a, g, img, false);
	dec_open(&b, g, img, true);
	while (!a.done && steps++ < MAXSTEP) {
		struct pk_pt_event ea, eb;

		if (a.status != b.status || !same_state(a.d, b.d, &why)) {
			bad(t, "%s: %s differs at step %zu", who, why, steps);
			break;
		}
		if (a.status < 0) {
			if (a.status == PK_ERR_EOS)
				break;
			dec_recover(&a);
			dec_recover(&b);
			continue;
		}
		if (a.status & PK_PT_STS_EVENT) {
			a.status = pk_pt_insn_event(a.d, &ea);
			b.status = pk_pt_insn_event(b.d, &eb);
			if (a.status >= 0 && !same_event(&ea, &eb)) {
				bad(t, "%s: event differs at step %zu", who,
				    steps);
				break;
			}
			continue;
		}
		if (a.status & PK_PT_STS_EOS)
			break;
		if (run ? !runs(&a, &b, t, &steps) : !lockstep(&a, &b, t)) {
			bad(t, "%s: %s differs at step %zu", who,
			    run ? "count or block" : "block", steps);
			break;
		}
	}
	pk_pt_insn_decoder_free(a.d);
	pk_pt_insn_decoder_free(b.d);
}

/* What a decoder reports, flattened: instructions (their IPs), events
 * (type | 1 << 63) and errors (the code | 1 << 62). */
struct seq {
	uint64_t *v;
	size_t n, cap;
};

static void put(struct seq *s, uint64_t v)
{
	if (s->n == s->cap) {
		s->cap = 2 * s->cap + 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = v;
}

static void flatten(const struct gen *g, const struct pk_pt_image *img,
		    bool blocks, struct seq *s)
{
	struct dec x;
	size_t steps = 0;

	dec_open(&x, g, img, true);
	while (!x.done && steps++ < MAXSTEP) {
		struct pk_pt_event ev;

		if (x.status < 0) {
			if (x.status == PK_ERR_EOS)
				break;
			put(s, 1ull << 62 | (uint32_t)-x.status);
			dec_recover(&x);
			continue;
		}
		if (x.status & PK_PT_STS_EVENT) {
			x.status = pk_pt_insn_event(x.d, &ev);
			if (x.status >= 0)
				put(s, 1ull << 63 | ev.type);
			continue;
		}
		if (x.status & PK_PT_STS_EOS)
			break;
		if (blocks) {
			struct pk_pt_block bl;
			uint64_t ip;

			x.status = pk_pt_insn_next_block(x.d, &bl);
			ip = bl.ip;
			for (uint32_t i = 0; i < bl.ninsn; i++) {
				struct pk_pt_insn in;

				put(s, ip);
				if (pk_pt_insn_at(x.d, ip, bl.mode, &in) < 0)
					break;
				ip += in.size;
			}
		} else {
			struct pk_pt_insn in;

			x.status = pk_pt_insn_next(x.d, &in);
			if (in.iclass != PK_PT_IC_ERROR)
				put(s, in.ip);
		}
	}
	pk_pt_insn_decoder_free(x.d);
}

/* sb's instructions and events against ref's (sound streams). */
static void against_ref(const struct gen *g, const struct pk_pt_image *img,
			const uint64_t *ips, size_t n, struct tally *t,
			size_t *sim_bad)
{
	struct seq r = { 0 }, s = { 0 };
	size_t k = 0, at = 0, i;

	flatten(g, img, false, &r);
	flatten(g, img, true, &s);
	while (at < r.n && at < s.n && r.v[at] == s.v[at])
		at++;
	if (at != r.n || at != s.n)
		bad(t, "ref: the flow differs at %zu", at);
	/* the simulator's instructions */
	for (i = 0; i < r.n; i++) {
		if (r.v[i] >> 62)
			continue;
		if (k >= n || r.v[i] != ips[k])
			break;
		k++;
	}
	*sim_bad += k != n;
	if (k != n && getenv("PT_FLOW_DEBUG"))
		fprintf(stderr, "sim: insn %zu of %zu: %lx (before %lx %lx)\n",
			k, n, (unsigned long)ips[k],
			(unsigned long)(k > 1 ? ips[k - 2] : 0),
			(unsigned long)(k ? ips[k - 1] : 0));
	free(r.v);
	free(s.v);
}

static const struct feat feats[] = {
	/* plain: TNT-8, compressed returns */
	{ .weights = { 6, 2, 2, 2, 1, 1 } },
	/* TNT-64, short packets, timing everywhere */
	{ .tnt64 = 1, .flush = 9, .timing = 3,
	  .weights = { 6, 2, 2, 2, 1, 1 } },
	{ .tnt64 = 3, .flush = 4, .timing = 2, .nocomp = 3,
	  .weights = { 5, 1, 3, 3, 1, 1 } },
	/* deep recursion: calls outweigh returns for long stretches */
	{ .timing = 7, .weights = { 4, 1, 5, 2, 0, 1 } },
	{ .tnt64 = 2, .weights = { 3, 1, 6, 3, 0, 0 } },
	/* events */
	{ .timing = 5, .ovf = 3000, .intr = 2000, .pgd = 20, .mode = 5,
	  .nocomp = 6, .weights = { 6, 2, 2, 2, 2, 1 } },
	{ .tnt64 = 4, .flush = 6, .timing = 3, .ovf = 800, .intr = 700,
	  .pgd = 6, .mode = 3, .weights = { 6, 1, 3, 3, 2, 1 } },
	/* loops without packets (the loop check) */
	{ .back_jmp = 2, .timing = 9, .weights = { 4, 6, 1, 1, 1, 1 } },
};

static void test_streams(bool damaged)
{
	static uint64_t ips[MAXINSN];
	struct tally t = { 0 };
	size_t sim_bad = 0, sim_n = 0;
	const char *tag = damaged ? "pt_flow_sb_damaged" : "pt_flow_sb";

	for (int r = 0; r < 96; r++) {
		const struct feat *f = &feats[r % (sizeof(feats) /
						    sizeof(feats[0]))];
		struct pk_pt_image *img = pk_pt_image_new();
		struct prog p;
		struct sim s;
		struct gen *g = &s.w;
		size_t n;

		memset(&s, 0, sizeof(s));
		s.f = f;
		s.tsc = 1000000;
		g->tnt64 = f->tnt64;
		g->flush = f->flush;
		make_prog(&p, f);
		n = run(&p, &s, ips, 2000 + rnd() % 40000);
		pk_pt_image_add_buf(img, p.code, sizeof(p.code), BASE);
		if (damaged)
			for (int k = 0; k < 1 + r % 6; k++)
				g->buf[rnd() % g->len] ^= (uint8_t)(1 <<
								    (rnd() % 8));
		t.streams++;
		pair(g, img, &t, false);
		pair(g, img, &t, true);
		if (!damaged && !f->back_jmp) {
			against_ref(g, img, ips, n, &t, &sim_bad);
			sim_n++;
		}
		pk_pt_image_free(img);
		free(g->buf);
	}
	t_check(!t.bad && t.calls > 100000 && t.sb_blocks > t.calls / 4,
		tag, "%zu differences (first: %s); %zu calls, %zu in "
		"superblocks", t.bad, t.what, t.calls, t.sb_blocks);
	if (!damaged)
		t_check(sim_bad * 4 <= sim_n, "pt_flow_sb_generator",
			"the reference decode misses the simulator's "
			"instructions in %zu of %zu streams", sim_bad, sim_n);
}

int main(void)
{
	rng_state = 0x2545f4914f6cdd1dull;
	test_streams(false);
	test_streams(true);
	return t_exit();
}
