/* SPDX-License-Identifier: MIT */
/*
 * The task each CPU runs from sched:sched_switch samples, as perf's
 * intel_pt does when AUXTRACE_INFO says have_sched_switch 1 (recorded
 * where the kernel has no context_switch records): the last event named
 * sched:sched_switch, its next_pid read through the file's tracepoint
 * formats (TRACING_DATA); the pid is the thread's as the side band knew
 * it, else -1 (perf's machine__set_current_tid with pid -1 makes it so).
 */
#include <string.h>
#include "base/base.h"
#include "itrace/itrace_int.h"
#include <perfkit/tracefmt.h>

void pk__it_sched_setup(struct pk_itrace *it)
{
	const void *td;
	uint64_t size;

	if (it->info.have_sched_switch != 1 || it->sw_attr >= 0)
		return;
	for (unsigned i = pk_perfdata_nr_attrs(it->pd); i-- > 0;) {
		const char *n = pk_perfdata_attr_name(it->pd, i);

		if (n && !strcmp(n, "sched:sched_switch")) {
			it->sw_attr = (int)i;
			break;
		}
	}
	if (it->sw_attr >= 0 && !it->sw_fmt &&
	    !pk_perfdata_feat_raw(it->pd, PK_HEADER_TRACING_DATA, &td, &size))
		it->sw_fmt = pk_tracefmt_new(td, (size_t)size);
	if (!it->sw_fmt)
		it->sw_attr = -1;
}

void pk__it_sched_switch(struct pk_itrace *it, const struct pk_record *rec)
{
	struct pk_sample sm;
	uint64_t next;
	int32_t tid;

	if (pk_sample_parse(it->pd, rec, &sm) ||
	    !(sm.sample_type & PERF_SAMPLE_CPU) || sm.cpu >= 4096 ||
	    !(sm.sample_type & PERF_SAMPLE_RAW) ||
	    pk_tracefmt_field_num(it->sw_fmt,
				  pk_perfdata_attr(it->pd, (unsigned)rec->attr)->config,
				  sm.raw.data, sm.raw.size, "next_pid", &next))
		return;
	tid = (int32_t)next;
	it->cpu_tid[sm.cpu].pid = pk__it_switch_pid(it, tid);
	it->cpu_tid[sm.cpu].tid = tid;
	it->cpu_tid[sm.cpu].set = true;
}

void pk__it_sched_free(struct pk_itrace *it)
{
	pk_tracefmt_free(it->sw_fmt);
	it->sw_fmt = NULL;
}
