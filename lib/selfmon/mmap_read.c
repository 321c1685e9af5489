/* SPDX-License-Identifier: MIT */
/*
 * The user-space read of perf_event_open(2), "MMAP layout": a seqlock loop
 * over the first page of an event, rdpmc for the live part of a hardware
 * counter, and the timestamp counter for the time extrapolation.
 */
#include <errno.h>
#include "selfmon/mmap_read.h"

#define barrier() __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

int64_t pk__pmc_sign_extend(uint64_t pmc, unsigned int width)
{
	if (width == 0 || width >= 64)
		return (int64_t)pmc;
	/* Move the counter's top bit to bit 63, then shift back
	 * arithmetically so it fills the upper bits. */
	return (int64_t)(pmc << (64 - width)) >> (64 - width);
}

uint64_t pk__cyc_to_delta(uint64_t cyc, uint16_t shift, uint32_t mult,
			  uint64_t offset)
{
	uint64_t quot, rem;

	if (shift >= 64)
		return offset;
	quot = cyc >> shift;
	rem = cyc & (((uint64_t)1 << shift) - 1);
	return offset + quot * mult + ((rem * mult) >> shift);
}

/* What one pass of the loop saw. */
struct snap {
	uint64_t ena, run, cyc, time_offset;
	uint32_t idx, time_mult;
	uint16_t time_shift;
	bool have_time, have_pmc;
	int64_t count;
};

static void read_pass(const struct perf_event_mmap_page *pc,
		      const struct pk_mmap_hw *hw, struct snap *s)
{
	struct perf_event_mmap_page caps;

	caps.capabilities = READ_ONCE(pc->capabilities);
	s->ena = READ_ONCE(pc->time_enabled);
	s->run = READ_ONCE(pc->time_running);
	s->have_time = caps.cap_user_time && s->ena != s->run && hw->rdtsc;
	if (s->have_time) {
		s->cyc = hw->rdtsc(hw->ctx);
		s->time_offset = READ_ONCE(pc->time_offset);
		s->time_mult = READ_ONCE(pc->time_mult);
		s->time_shift = READ_ONCE(pc->time_shift);
	}
	s->idx = READ_ONCE(pc->index);
	s->count = READ_ONCE(pc->offset);
	s->have_pmc = caps.cap_user_rdpmc && s->idx && hw->rdpmc;
	if (s->have_pmc) {
		unsigned int width = READ_ONCE(pc->pmc_width);
		uint64_t pmc = hw->rdpmc(s->idx - 1, hw->ctx);

		s->count += pk__pmc_sign_extend(pmc, width);
	}
}

int pk__mmap_page_read(const struct perf_event_mmap_page *pc,
		       const struct pk_mmap_hw *hw, struct pk_counts *out)
{
	struct snap s;
	uint32_t seq;
	int tries = 0;

	do {
		if (tries++ == PK_MMAP_READ_TRIES)
			return -EAGAIN;
		seq = READ_ONCE(pc->lock);
		barrier();
		read_pass(pc, hw, &s);
		barrier();
	} while (READ_ONCE(pc->lock) != seq);

	if (s.have_time) {
		uint64_t delta = pk__cyc_to_delta(s.cyc, s.time_shift,
						  s.time_mult, s.time_offset);

		s.ena += delta;
		if (s.idx)
			s.run += delta;
	}
	out->val = (uint64_t)s.count;
	out->ena = s.ena;
	out->run = s.run;
	out->id = 0;
	out->lost = 0;
	return s.have_pmc ? 0 : PK_ERR_UNSUPP;
}

void pk__mmap_page_write(struct perf_event_mmap_page *pc,
			 const struct pk_mmap_page_vals *v)
{
	WRITE_ONCE(pc->lock, pc->lock + 1);
	barrier();
	pc->index = v->index;
	pc->offset = v->offset;
	pc->time_enabled = v->time_enabled;
	pc->time_running = v->time_running;
	pc->capabilities = 0;
	pc->cap_bit0_is_deprecated = 1;
	pc->cap_user_rdpmc = v->cap_user_rdpmc;
	pc->cap_user_time = v->cap_user_time;
	pc->pmc_width = v->pmc_width;
	pc->time_shift = v->time_shift;
	pc->time_mult = v->time_mult;
	pc->time_offset = v->time_offset;
	barrier();
	WRITE_ONCE(pc->lock, pc->lock + 1);
}

#if defined(__x86_64__) || defined(__i386__)
static uint64_t x86_rdpmc(uint32_t counter, void *ctx)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

static uint64_t x86_rdtsc(void *ctx)
{
	uint32_t lo, hi;

	(void)ctx;
	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static const struct pk_mmap_hw native = { x86_rdpmc, x86_rdtsc, NULL };
#else
static const struct pk_mmap_hw native = { NULL, NULL, NULL };
#endif

const struct pk_mmap_hw *pk__mmap_hw_native(void)
{
	return &native;
}
