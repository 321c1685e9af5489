/* SPDX-License-Identifier: MIT */
/*
 * perfkit unwind: the user-space call stacks of samples recorded with
 * --call-graph dwarf (PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER),
 * rebuilt from the DWARF CFI (.eh_frame) of the mapped files, the
 * sampled registers and the copied stack bytes.
 *
 * The unwinder follows what Linux perf 6.1 does with libunwind, frame for
 * frame: the first entry is the sampled ip; each caller's entry is its
 * return address minus one (the call instruction), except for the frame
 * a signal frame's CFI leads to (the interrupted ip itself); memory outside the copied stack is read from the mapped
 * file; where a mapped file has no CFI for an address the frame-pointer
 * chain is tried; unwinding stops at an undefined return address, an
 * unreadable one, an address outside every file mapping, or a frame that
 * does not move.
 */
#ifndef PERFKIT_UNWIND_H
#define PERFKIT_UNWIND_H

#include <stdint.h>
#include <perfkit/common.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_unwind;

/* perf's default number of frames (--max-stack, PERF_MAX_STACK_DEPTH). */
#define PK_UNWIND_MAX_STACK 127

/*
 * A new unwinder reading maps and files through session S (which must
 * outlive it; feed the session every record before unwinding a sample).
 * CFI of each file is loaded on first use and cached. NULL with errno
 * (ENOMEM).
 */
PK_API struct pk_unwind *pk_unwind_new(struct pk_session *s);
/* Releases the unwinder and its caches; NULL is fine. */
PK_API void pk_unwind_free(struct pk_unwind *u);

/*
 * Unwinds the user stack of sample SM (of process PID) into IPS (at most
 * MAX entries; perf uses PK_UNWIND_MAX_STACK). Entries are user addresses,
 * innermost first; zero entries (perf skips them) may appear. Returns the
 * number of entries, 0 when the sample has nothing to unwind (no user
 * registers, ABI none, or an empty stack copy, as for samples of kernel
 * threads); -ENOENT when the sampled register set lacks the ip (or the sp,
 * with MAX > 1), -EINVAL for MAX < 1 (when there is something to
 * unwind): perf's unwinder fails on these, and
 * perf script then prints the sample without its callchain. Truncated
 * stacks, bogus registers and sizes only end the unwinding early.
 */
PK_API int pk_unwind_sample(struct pk_unwind *u, uint32_t pid,
			    const struct pk_sample *sm, uint64_t *ips, int max);

/* Statistics since pk_unwind_new(): frames unwound through CFI, through
 * the frame-pointer fallback, and CFI rule-cache hits and misses. */
struct pk_unwind_stats {
	uint64_t samples, frames_cfi, frames_fp, cache_hits, cache_misses;
};
PK_API void pk_unwind_stats(const struct pk_unwind *u,
			    struct pk_unwind_stats *st);

#ifdef __cplusplus
}
#endif
#endif
