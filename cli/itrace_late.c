/* SPDX-License-Identifier: MIT */
/*
 * --itrace G and L on the recorded samples: perf's intel_pt_process_event
 * gives a sample without a call chain (G) or branch stack (L) the ones
 * of its thread's decoded flow, once the trace is decoded up to it.
 */
#include <string.h>
#include <perfkit/itrace.h>
#include "cli.h"

int cli_itrace_late(struct pk_itrace *it, const struct pk_itrace_opts *o,
		    const struct pk_sample *in, struct pk_sample *out)
{
	const uint64_t *chain;
	const struct perf_branch_entry *br;
	unsigned nc, nb;
	bool cc = o->add_callchain &&
		  !(in->sample_type & PERF_SAMPLE_CALLCHAIN);
	bool bs = o->add_last_branch &&
		  !(in->sample_type & PERF_SAMPLE_BRANCH_STACK);

	if (!it || (!cc && !bs))
		return 0;
	if (pk_itrace_late(it, in, &chain, &nc, &br, &nb))
		return 0;
	*out = *in;
	if (cc) {
		out->sample_type |= PERF_SAMPLE_CALLCHAIN;
		out->callchain.nr = nc;
		out->callchain.ips = chain;
	}
	if (bs) {
		out->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		out->branch.nr = nb;
		out->branch.hw_idx = 0;
		out->branch.has_hw_idx = false;
		out->branch.entries = br;
	}
	return 1;
}
