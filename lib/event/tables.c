/* SPDX-License-Identifier: MIT */
/* perf's fixed event names and the hw-cache matrix spellings. */
#include <string.h>
#include <strings.h>
#include <linux/perf_event.h>
#include "base/base.h"
#include "event/tables.h"

#define HW(n, c, a) { n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, a, 0 }
#define SW(n, c, a) { n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, a, 0 }
const struct pk_sym_event pk__sym_events[] = {
	HW("cpu-cycles", CPU_CYCLES, "cycles"),
	HW("instructions", INSTRUCTIONS, NULL),
	HW("cache-references", CACHE_REFERENCES, NULL),
	HW("cache-misses", CACHE_MISSES, NULL),
	HW("branch-instructions", BRANCH_INSTRUCTIONS, "branches"),
	HW("branch-misses", BRANCH_MISSES, NULL),
	HW("bus-cycles", BUS_CYCLES, NULL),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND,
	   "idle-cycles-frontend"),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND,
	   "idle-cycles-backend"),
	HW("ref-cycles", REF_CPU_CYCLES, NULL),
	SW("cpu-clock", CPU_CLOCK, NULL),
	SW("task-clock", TASK_CLOCK, NULL),
	SW("page-faults", PAGE_FAULTS, "faults"),
	SW("context-switches", CONTEXT_SWITCHES, "cs"),
	SW("cpu-migrations", CPU_MIGRATIONS, "migrations"),
	SW("minor-faults", PAGE_FAULTS_MIN, NULL),
	SW("major-faults", PAGE_FAULTS_MAJ, NULL),
	SW("alignment-faults", ALIGNMENT_FAULTS, NULL),
	SW("emulation-faults", EMULATION_FAULTS, NULL),
	SW("dummy", DUMMY, NULL),
	SW("bpf-output", BPF_OUTPUT, NULL),
	SW("cgroup-switches", CGROUP_SWITCHES, NULL),
	/* tool events: perf opens a dummy and computes the value itself */
	{ "duration_time", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, NULL, 1 },
	{ "user_time", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, NULL, 2 },
	{ "system_time", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, NULL, 3 },
};
#undef HW
#undef SW
const int pk__nr_sym_events = (int)PK_ARRAY_SIZE(pk__sym_events);

const char *const pk__cache_types[PERF_COUNT_HW_CACHE_MAX][PK_CACHE_ALIASES] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};

const char *const pk__cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][PK_CACHE_ALIASES] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

const char *const pk__cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX]
				   [PK_CACHE_ALIASES] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

#define R (1 << PERF_COUNT_HW_CACHE_OP_READ)
#define W (1 << PERF_COUNT_HW_CACHE_OP_WRITE)
#define P (1 << PERF_COUNT_HW_CACHE_OP_PREFETCH)
static const unsigned char cache_ops_ok[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = R | W | P,
	[PERF_COUNT_HW_CACHE_L1I] = R | P,
	[PERF_COUNT_HW_CACHE_LL] = R | W | P,
	[PERF_COUNT_HW_CACHE_DTLB] = R | W | P,
	[PERF_COUNT_HW_CACHE_ITLB] = R,
	[PERF_COUNT_HW_CACHE_BPU] = R,
	[PERF_COUNT_HW_CACHE_NODE] = R | W | P,
};
#undef R
#undef W
#undef P

int pk__cache_op_valid(int type, int op)
{
	return type >= 0 && type < PERF_COUNT_HW_CACHE_MAX && op >= 0 &&
	       op < PERF_COUNT_HW_CACHE_OP_MAX &&
	       (cache_ops_ok[type] & (1 << op));
}

int pk__cache_lookup(const char *str,
		     const char *const (*tab)[PK_CACHE_ALIASES], int n)
{
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < PK_CACHE_ALIASES && tab[i][j]; j++)
			if (!strncasecmp(str, tab[i][j], strlen(tab[i][j])))
				return i;
	}
	return -1;
}
