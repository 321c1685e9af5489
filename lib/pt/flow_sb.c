/* SPDX-License-Identifier: MIT */
/*
 * Intel PT flow decoder, superblocks: the blocks the flow walks from an
 * address with the next few TNT bits known, found with one lookup keyed
 * on the address and those bits (as fast decoders such as libxdc do).
 *
 * A superblock holds the blocks that end in a conditional branch or a
 * compressed return (each takes a bit), a direct jump or a direct call,
 * up to and including the last one that takes a bit. It ends before
 * anything else: an indirect branch, a return whose bit says "not
 * taken", a block that cannot be decoded, a walk that the loop check
 * would stop, more calls left open than it keeps. A return to a call
 * inside it goes back there; one to a call before it takes its address
 * from the return stack and ends it.
 *
 * Applied where the per-block path (pk__pt_fl_next_block) would take the
 * same blocks without reading a packet other than the TNT it waits for,
 * a superblock leaves the decoder exactly as that path does: the same
 * IP, TNT bits, return stack, time of the last query, instruction
 * counts, loop check and status. Two of that path's blocks are slow
 * ones, and act a little differently: the one that takes a new TNT
 * packet and the one that takes the packet's last bit (the status after
 * it reads ahead); both keep have_psb_ip, the fast ones clear it.
 */
#include <errno.h>
#include "base/base.h"
#include "pt/flow_int.h"

/* (bit 15: a key, never an empty slot's 0) */
#define SB_KEY(mode, w, bits) \
	((uint16_t)(1u << 15 | ((mode) & 7u) << 12 | (w) << 8 | (bits)))

static size_t sb_pool_cap(unsigned bits)
{
	return (size_t)SB_POOL_PER_ENT << bits;
}

int pk__pt_sb_init(struct pk_pt_insn_decoder *d)
{
	d->sb_bits = SBCACHE_BITS_MIN;
	d->sb = pk__calloc((size_t)1 << d->sb_bits, sizeof(*d->sb));
	d->sb_pool = pk__calloc(sb_pool_cap(d->sb_bits), sizeof(*d->sb_pool));
	return d->sb && d->sb_pool ? 0 : -ENOMEM;
}

void pk__pt_sb_fini(struct pk_pt_insn_decoder *d)
{
	pk__free(d->sb);
	pk__free(d->sb_pool);
}

/* Forgets every superblock (the code changed, or the pool is full). */
void pk__pt_sb_clear(struct pk_pt_insn_decoder *d)
{
	memset(d->sb, 0, ((size_t)1 << d->sb_bits) * sizeof(*d->sb));
	d->sb_pool_n = 0;
	d->sb_left = 0;
}

void pk__pt_sb_enable(struct pk_pt_insn_decoder *d, bool on)
{
	d->sb_off = !on;
	d->sb_left = 0;
}

static struct sb_ent *sb_slot(const struct pk_pt_insn_decoder *d, uint64_t ip,
			      uint16_t key)
{
	uint64_t h = (ip ^ (uint64_t)key << 32) * 0x9e3779b97f4a7c15ull;

	return &d->sb[h >> (64 - d->sb_bits)];
}

/* Doubles the cache (emptied) when it misses a lot. */
static void sb_grow(struct pk_pt_insn_decoder *d)
{
	struct sb_ent *t;
	struct sb_rec *p;

	d->sb_miss = 0;
	t = pk__calloc((size_t)2 << d->sb_bits, sizeof(*t));
	p = pk__calloc(sb_pool_cap(d->sb_bits + 1), sizeof(*p));
	if (!t || !p) {
		pk__free(t);
		pk__free(p);
		return;
	}
	pk__free(d->sb);
	pk__free(d->sb_pool);
	d->sb = t;
	d->sb_pool = p;
	d->sb_bits++;
	d->sb_pool_n = 0;
	d->sb_left = 0;
}

/* The blocks from IP with the W bits BITS (the first the highest); the
 * number of records up to the last one that takes a bit (0: none). */
static unsigned sb_walk(struct pk_pt_insn_decoder *d, uint64_t ip,
			unsigned w, unsigned bits, struct sb_rec *rec)
{
	uint64_t stk[SB_DEPTH], at = ip, walk_ip = 0, walk_n = 0, walk_lim = 0;
	unsigned n = 0, cut = 0, used = 0, depth = 0;

	while (n < SB_REC_MAX) {
		const struct block_ent *b = pk__pt_fl_block_at(d, at);
		struct sb_rec *r = &rec[n];
		uint64_t next;

		if (!b)
			break;
		next = b->end_ip + b->last_size;
		r->end_ip = b->end_ip;
		r->ninsn = (uint16_t)b->ninsn;
		r->iclass = b->last_iclass;
		r->size = b->last_size;
		r->flags = b->absolute ? SBR_ABS : 0;
		switch (b->last_iclass) {
		case PK_PT_IC_COND_JUMP:
			if (used == w)
				return cut;
			r->flags |= SBR_Q;
			r->nip = (bits >> (w - 1 - used++)) & 1 ? b->target
								: next;
			break;
		case PK_PT_IC_RETURN:
			if (used == w || !((bits >> (w - 1 - used)) & 1))
				return cut;
			used++;
			r->flags |= SBR_Q | (depth ? SBR_POP : SBR_DYN);
			r->nip = depth ? stk[--depth] : 0;
			break;
		case PK_PT_IC_JUMP:
			r->nip = b->target;
			break;
		case PK_PT_IC_CALL:
			r->nip = b->target;
			if (b->target == next)	/* (no return pushed) */
				break;
			if (depth == SB_DEPTH)
				return cut;
			stk[depth++] = next;
			r->flags |= SBR_PUSH;
			break;
		default:
			return cut;
		}
		n++;
		if (r->flags & SBR_Q) {
			cut = n;
			walk_n = walk_lim = 0;
			if (r->flags & SBR_DYN)
				return cut;
		} else {
			/* the loop check (looped()) from its reset state:
			 * where it would stop, the per-block path goes */
			if (walk_lim && r->nip == walk_ip)
				return cut;
			walk_n += r->ninsn;
			if (walk_n >= walk_lim) {
				walk_ip = r->nip;
				walk_lim = walk_lim ? 2 * walk_lim : 64;
			}
		}
		at = r->nip;
	}
	return cut;
}

/* Builds the superblock at IP for KEY into its slot E. */
static void sb_build(struct pk_pt_insn_decoder *d, struct sb_ent *e,
		     uint64_t ip, uint16_t key, unsigned w, unsigned bits)
{
	struct sb_rec rec[SB_REC_MAX];
	bool absolute = d->absolute;	/* (decoding sets it) */
	uint64_t at = ip;
	unsigned n, depth = 0, open[SB_DEPTH];

	n = sb_walk(d, ip, w, bits, rec);
	d->absolute = absolute;
	memset(e, 0, sizeof(*e));
	e->ip = ip;
	e->key = key;
	if (!n)
		return;
	if (d->sb_pool_n + n > sb_pool_cap(d->sb_bits)) {
		pk__pt_sb_clear(d);
		e->ip = ip;
		e->key = key;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct sb_rec *r = &rec[i];

		e->ninsn += r->ninsn;
		e->nq += r->flags & SBR_Q ? 1 : 0;
		if (r->flags & SBR_PUSH) {
			open[depth++] = i;
			e->peak = (uint8_t)PK_MAX(e->peak, depth);
		}
		if (r->flags & SBR_POP)
			depth--;
		if (r->flags & SBR_DYN)
			e->dyn = 1;
		at = r->nip;
	}
	for (unsigned i = 0; i < depth; i++)
		rec[open[i]].flags |= SBR_OPEN;
	e->end = at;
	e->npush = (uint8_t)depth;
	e->absolute = !!(rec[n - 1].flags & SBR_ABS);
	e->rec = d->sb_pool_n;
	e->nrec = (uint8_t)n;
	memcpy(d->sb_pool + d->sb_pool_n, rec, n * sizeof(*rec));
	d->sb_pool_n += n;
}

/*
 * The superblock that starts where the flow stands, or NULL where none
 * applies: the per-block path would meet something else (an event, a
 * packet other than TNT, a loop check under way, a return stack too
 * full for it...). *TAKE: the TNT packet read ahead is taken first.
 */
static const struct sb_ent *sb_find(struct pk_pt_insn_decoder *d, bool *take)
{
	uint64_t tnt;
	uint16_t key;
	unsigned n, w, bits;
	struct sb_ent *e;

	if (d->sb_off || !d->enabled || d->qn || d->nheld || d->noip ||
	    d->walk_lim || d->lib_off != d->walk_off ||
	    d->opts.tick_events || d->status_err || d->ctx_err || d->psb_cut ||
	    d->psb_walk)
		return NULL;	/* (the walk check as sb_walk() starts it) */
	if (d->tnt_n) {
		tnt = d->tnt;
		n = d->tnt_n;
		*take = false;
	} else if (d->have_next && (d->next.type == PK_PT_TNT_8 ||
				    d->next.type == PK_PT_TNT_64) &&
		   d->next.u.tnt.bits) {
		tnt = d->next.u.tnt.payload;
		n = d->next.u.tnt.bits;
		*take = true;
	} else {
		return NULL;
	}
	w = PK_MIN(n, (unsigned)SB_BITS);
	bits = (unsigned)(tnt >> (n - w)) & ((1u << w) - 1);
	key = SB_KEY(d->mode, w, bits);
	e = sb_slot(d, d->ip, key);
	if (e->key != key || e->ip != d->ip) {
		if (++d->sb_miss > 4ull << d->sb_bits &&
		    d->sb_bits < SBCACHE_BITS_MAX) {
			sb_grow(d);
			e = sb_slot(d, d->ip, key);
		}
		sb_build(d, e, d->ip, key, w, bits);
	}
	if (!e->nrec || d->rs_n + e->peak > RSMAX || (e->dyn && !d->rs_n))
		return NULL;
	return e;
}

/* Takes the TNT packet read ahead (as query_tnt does). */
static void sb_take(struct pk_pt_insn_decoder *d)
{
	d->tnt = d->next.u.tnt.payload;
	d->tnt_n = d->next.u.tnt.bits;
	pk_pt_time_query(&d->time, &d->tnt_tsc);
	pk__pt_fl_take(d);
}

static void sb_pop(struct pk_pt_insn_decoder *d)
{
	d->ip = d->rs[d->rs_top];
	d->rs_top = (d->rs_top + RSMAX - 1) % RSMAX;
	d->rs_n--;
}

static void sb_blk(const struct pk_pt_insn_decoder *d, struct pk_pt_block *blk,
		   uint64_t ip, const struct sb_rec *r)
{
	blk->ip = ip;
	blk->end_ip = r->end_ip;
	blk->ninsn = r->ninsn;
	blk->mode = d->mode;
	blk->speculative = d->speculative;
	blk->end_iclass = r->iclass;
	blk->end_size = r->size;
}

/* The last block of superblock E into *BLK. */
static void sb_last(const struct pk_pt_insn_decoder *d, const struct sb_ent *e,
		    struct pk_pt_block *blk)
{
	const struct sb_rec *r = d->sb_pool + e->rec + e->nrec - 1;

	sb_blk(d, blk, e->nrec > 1 ? r[-1].nip : e->ip, r);
}

/* The whole superblock E at once. */
static int sb_run(struct pk_pt_insn_decoder *d, const struct sb_ent *e,
		  bool take)
{
	unsigned slow;

	if (take)
		sb_take(d);
	slow = take + (d->tnt_n == e->nq);
	if (e->nq > slow)
		d->have_psb_ip = false;
	d->tnt_n -= e->nq;
	if (e->npush)
		for (unsigned i = 0; i < e->nrec; i++) {
			const struct sb_rec *r = d->sb_pool + e->rec + i;

			if (r->flags & SBR_OPEN)
				pk__pt_fl_push_ret(d, r->end_ip + r->size);
		}
	if (e->dyn)
		sb_pop(d);
	else
		d->ip = e->end;
	d->absolute = e->absolute;
	d->after_branch = true;
	d->icount = 0;
	d->queried = true;
	d->q_tsc = d->tnt_tsc;
	d->walked += e->ninsn;
	d->walk_off = d->lib_off;	/* (its last block queried) */
	return d->tnt_n ? 0 : pk__pt_fl_status(d);
}

/* One block of the superblock under way. */
static int sb_step(struct pk_pt_insn_decoder *d, struct pk_pt_block *blk)
{
	const struct sb_rec *r = d->sb_cur++;
	bool fast = true;

	d->sb_left--;
	sb_blk(d, blk, d->ip, r);
	d->absolute = !!(r->flags & SBR_ABS);
	d->after_branch = true;
	d->walked += r->ninsn;
	if (!(r->flags & SBR_Q)) {
		if (r->flags & SBR_PUSH)
			pk__pt_fl_push_ret(d, r->end_ip + r->size);
		d->ip = r->nip;
		d->icount += r->ninsn;
		d->queried = false;
		/* looped(), known not to stop here (sb_walk) */
		if (d->lib_off != d->walk_off) {
			d->walk_off = d->lib_off;
			pk__pt_fl_walk_reset(d);
		} else {
			d->walk_n += r->ninsn;
			if (d->walk_n >= d->walk_lim) {
				d->walk_ip = d->ip;
				d->walk_lim = d->walk_lim ? 2 * d->walk_lim :
							    64;
			}
		}
		d->sb_ip = d->ip;
		return 0;
	}
	if (!d->tnt_n) {
		sb_take(d);
		fast = false;
	} else if (d->tnt_n == 1) {
		fast = false;
	}
	d->tnt_n--;
	if (r->flags & (SBR_POP | SBR_DYN))
		sb_pop(d);
	else
		d->ip = r->nip;
	d->icount = 0;
	d->queried = true;
	d->q_tsc = d->tnt_tsc;
	if (fast)
		d->have_psb_ip = false;
	pk__pt_fl_walk_reset(d);
	d->walk_off = d->lib_off;
	d->sb_ip = d->ip;
	return d->tnt_n ? 0 : pk__pt_fl_status(d);
}

/* Hands out the next block of a superblock when one applies here, with
 * the state and *STATUS the per-block path gives; false when none does
 * (the per-block way then). */
static inline bool sb_next(struct pk_pt_insn_decoder *d,
			   struct pk_pt_block *blk, int *status)
{
	if (!d->sb_left || d->ip != d->sb_ip) {
		const struct sb_ent *e;
		bool take;

		d->sb_left = 0;
		e = sb_find(d, &take);
		if (!e)
			return false;
		d->sb_cur = d->sb_pool + e->rec;
		d->sb_left = e->nrec;
	}
	*status = sb_step(d, blk);
	return true;
}

/* (here, beside sb_next(): one call a block on the common way) */
int pk_pt_insn_next_block(struct pk_pt_insn_decoder *d,
			  struct pk_pt_block *blk)
{
	int err;

	if (!d || !blk)
		return PK_ERR_INTERNAL;
	if (sb_next(d, blk, &err))
		return err;
	return pk__pt_fl_next_block(d, blk);
}

int pk_pt_insn_next_blocks(struct pk_pt_insn_decoder *d,
			   struct pk_pt_block *blk, uint64_t *ninsn)
{
	const struct sb_ent *e = NULL;
	uint64_t n = 0;
	int err, left = SB_RUN_MAX;

	if (!d || !blk || !ninsn)
		return PK_ERR_INTERNAL;
	do {
		bool take;

		if (d->sb_left) {	/* one handed out a block at a time */
			e = NULL;
			err = pk_pt_insn_next_block(d, blk);
			n += blk->ninsn;
			left--;
		} else if ((e = sb_find(d, &take))) {
			err = sb_run(d, e, take);
			n += e->ninsn;
			left -= e->nrec;
		} else {
			err = pk__pt_fl_next_block(d, blk);
			n += blk->ninsn;
			left--;
		}
	} while (!err && left > 0);
	if (e)		/* (the cache is not touched since) */
		sb_last(d, e, blk);
	*ninsn = n;
	return err;
}
