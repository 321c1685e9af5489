/* SPDX-License-Identifier: MIT */
/*
 * Internal: the user-space read of a perf_event_mmap_page as a pure
 * function over the page and injected rdpmc/rdtsc, with its writer (the
 * kernel's side of the seqlock) so tests can build pages.
 */
#ifndef PK_SELFMON_MMAP_READ_H
#define PK_SELFMON_MMAP_READ_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <perfkit/counter.h>

/* The machine instructions the read uses; NULL when unavailable. */
struct pk_mmap_hw {
	uint64_t (*rdpmc)(uint32_t counter, void *ctx);
	uint64_t (*rdtsc)(void *ctx);
	void *ctx;
};

/* This machine's rdpmc/rdtsc (x86), or NULL members elsewhere. */
const struct pk_mmap_hw *pk__mmap_hw_native(void);

/* Retries of the seqlock loop before giving up with -EAGAIN. */
#define PK_MMAP_READ_TRIES 1000

/*
 * Reads the count of the page's event: OUT gets val (offset + the
 * sign-extended rdpmc value), ena and run (extrapolated when
 * cap_user_time and enabled != running; run only when index != 0), id and
 * lost 0. Returns 0 when val is current (rdpmc used), PK_ERR_UNSUPP when
 * the page cannot give the count (index 0, no cap_user_rdpmc, or no rdpmc
 * in HW: read(2) instead; ena/run are still filled), -EAGAIN when the lock
 * kept changing for PK_MMAP_READ_TRIES rounds.
 */
int pk__mmap_page_read(const struct perf_event_mmap_page *pc,
		       const struct pk_mmap_hw *hw, struct pk_counts *out);

/* Fields the kernel publishes in the page. */
struct pk_mmap_page_vals {
	uint32_t index;
	int64_t offset;
	uint64_t time_enabled, time_running;
	bool cap_user_rdpmc, cap_user_time;
	uint16_t pmc_width, time_shift;
	uint32_t time_mult;
	uint64_t time_offset;
};

/* Publishes V in PC the way the kernel does: lock++, fields, lock++. */
void pk__mmap_page_write(struct perf_event_mmap_page *pc,
			 const struct pk_mmap_page_vals *v);

/* Helpers of the read, exposed for tests. */
int64_t pk__pmc_sign_extend(uint64_t pmc, unsigned int width);
uint64_t pk__cyc_to_delta(uint64_t cyc, uint16_t shift, uint32_t mult,
			  uint64_t offset);

#endif
