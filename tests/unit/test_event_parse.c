/* SPDX-License-Identifier: MIT */
/*
 * Event syntax -> perf_event_attr. Expected values come from the kernel's
 * encoding (uapi constants, the hw-cache formula type | op << 8 |
 * result << 16), from tracefs and sysfs read here at test time, from a
 * fake sysfs PMU tree built here, and for modifiers from what perf 6.1
 * prints for them (perf stat -vv), never from the parser itself.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <perfkit/event.h>
#include "base/base.h"
#include "event/pmu.h"
#include "event/evsel.h"
#include <perfkit/map.h>
#include "test.h"

/* ---- helpers ---- */

static struct pk_evlist *parse(const char *s, int *n, struct pk_parse_error *e)
{
	struct pk_evlist *l = pk_evlist_new();

	*n = pk_evlist_parse(l, s, e);
	return l;
}

struct want {
	uint32_t type;
	uint64_t config, config1, config2;
};

/* Expected modifier bits, as perf 6.1 prints them for cycles:MOD */
struct modx {
	const char *mod;
	unsigned eu, ek, eh, eG, eH, eI, precise, pinned, exclusive;
	unsigned flags;
};

static const struct modx mods[] = {
	{ "",     0, 0, 0, 1, 0, 0, 0, 0, 0, 0 },
	{ ":u",   0, 1, 1, 1, 0, 0, 0, 0, 0, 0 },
	{ ":k",   1, 0, 1, 0, 0, 0, 0, 0, 0, 0 },
	{ ":h",   1, 1, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ ":uk",  0, 0, 1, 1, 0, 0, 0, 0, 0, 0 },
	{ ":ukh", 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 },
	{ ":G",   0, 0, 0, 0, 1, 0, 0, 0, 0, 0 },
	{ ":H",   0, 0, 0, 1, 0, 0, 0, 0, 0, 0 },
	{ ":GH",  0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ ":uG",  0, 1, 1, 0, 1, 0, 0, 0, 0, 0 },
	{ ":uH",  0, 1, 1, 1, 0, 0, 0, 0, 0, 0 },
	{ ":p",   0, 0, 0, 1, 0, 0, 1, 0, 0, 0 },
	{ ":pp",  0, 0, 0, 1, 0, 0, 2, 0, 0, 0 },
	{ ":ppp", 0, 0, 0, 1, 0, 0, 3, 0, 0, 0 },
	{ ":P",   0, 0, 0, 0, 0, 0, 0, 0, 0, PK_EVSEL_PRECISE_MAX },
	{ ":S",   0, 0, 0, 0, 0, 0, 0, 0, 0, PK_EVSEL_SAMPLE_READ },
	{ ":D",   0, 0, 0, 0, 0, 0, 0, 1, 0, 0 },
	{ ":I",   0, 0, 0, 0, 0, 1, 0, 0, 0, 0 },
	{ ":W",   0, 0, 0, 0, 0, 0, 0, 0, 0, PK_EVSEL_WEAK_GROUP },
	{ ":e",   0, 0, 0, 0, 0, 0, 0, 0, 1, 0 },
	{ ":kp",  1, 0, 1, 1, 0, 0, 1, 0, 0, 0 },
	{ ":upp", 0, 1, 1, 1, 0, 0, 2, 0, 0, 0 },
	{ ":Gu",  0, 1, 1, 0, 1, 0, 0, 0, 0, 0 },
	{ ":uI",  0, 1, 1, 1, 0, 1, 0, 0, 0, 0 },
};

static bool check_mods(const struct pk_evsel *s, struct perf_event_attr *a,
		       const struct modx *m, char *why, size_t n)
{
	unsigned fl = pk_evsel_flags(s) & (PK_EVSEL_PRECISE_MAX |
					   PK_EVSEL_SAMPLE_READ |
					   PK_EVSEL_WEAK_GROUP);

	snprintf(why, n, "u%u k%u h%u G%u H%u I%u p%u D%u e%u f%x",
		 a->exclude_user, a->exclude_kernel, a->exclude_hv,
		 a->exclude_guest, a->exclude_host, a->exclude_idle,
		 a->precise_ip, a->pinned, a->exclusive, fl);
	return a->exclude_user == m->eu && a->exclude_kernel == m->ek &&
	       a->exclude_hv == m->eh && a->exclude_guest == m->eG &&
	       a->exclude_host == m->eH && a->exclude_idle == m->eI &&
	       a->precise_ip == m->precise && a->pinned == m->pinned &&
	       a->exclusive == m->exclusive && fl == m->flags;
}

/* Parses S, expects one event with W and modifier set M (NULL: default) and
 * display name NAME (NULL: S). */
static void one(const char *s, const struct want *w, const struct modx *m,
		const char *name)
{
	struct pk_parse_error e;
	int n;
	struct pk_evlist *l = parse(s, &n, &e);
	struct pk_evsel *ev;
	struct perf_event_attr *a;
	char tn[300], why[128];

	snprintf(tn, sizeof(tn), "parse '%s'", s);
	if (n != 1) {
		t_fail(tn, "returned %d (%s)", n, n < 0 ? e.msg : "");
		pk_evlist_free(l);
		return;
	}
	ev = pk_evlist_evsel(l, 0);
	a = pk_evsel_attr(ev);
	if (a->type != w->type || a->config != w->config ||
	    a->config1 != w->config1 || a->config2 != w->config2)
		t_fail(tn, "type %u config %#llx/%#llx/%#llx, want %u %#llx/%#llx/%#llx",
		       a->type, (unsigned long long)a->config,
		       (unsigned long long)a->config1,
		       (unsigned long long)a->config2, w->type,
		       (unsigned long long)w->config,
		       (unsigned long long)w->config1,
		       (unsigned long long)w->config2);
	else if (a->size != sizeof(*a))
		t_fail(tn, "size %u", a->size);
	else if (m && !check_mods(ev, a, m, why, sizeof(why)))
		t_fail(tn, "modifiers: got %s", why);
	else if (strcmp(pk_evsel_name(ev), name ? name : s))
		t_fail(tn, "name '%s', want '%s'", pk_evsel_name(ev),
		       name ? name : s);
	else
		t_ok(tn);
	pk_evlist_free(l);
}

/* Expects failure with CODE, the caret at POS (-1: any) and MSG in the
 * message. */
static void bad(const char *s, int code, int pos, const char *msg)
{
	struct pk_parse_error e;
	struct pk_evlist *l = pk_evlist_new();
	int n = pk_evlist_parse(l, s, &e);
	char tn[300];

	snprintf(tn, sizeof(tn), "reject '%s'", s);
	if (n != code)
		t_fail(tn, "returned %d (%s), want %d", n, e.msg, code);
	else if (pk_evlist_nr(l) != 0)
		t_fail(tn, "appended %d events", pk_evlist_nr(l));
	else if (pos >= 0 && e.pos != pos)
		t_fail(tn, "caret at %d, want %d (%s)", e.pos, pos, e.msg);
	else if (e.len < 1 || e.pos + e.len > (int)strlen(s) + 1)
		t_fail(tn, "bad span %d+%d", e.pos, e.len);
	else if (!strstr(e.msg, msg) || strchr(e.msg, '\n'))
		t_fail(tn, "message '%s' lacks '%s'", e.msg, msg);
	else
		t_ok(tn);
	pk_evlist_free(l);
}

/* ---- symbolic events ---- */

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} syms[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
	{ "cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES },
};

static void test_tools(void)
{
	static const char *const names[] = { "duration_time", "user_time",
					     "system_time" };

	for (int i = 0; i < 3; i++) {
		struct want w = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 0, 0 };
		struct pk_parse_error e;
		int n;
		struct pk_evlist *l;

		one(names[i], &w, &mods[0], NULL);
		l = parse(names[i], &n, &e);
		t_check(n == 1 && pk_evsel_tool(pk_evlist_evsel(l, 0)) ==
			PK_TOOL_DURATION_TIME + i, names[i], "tool kind");
		pk_evlist_free(l);
	}
}

static void test_symbols(void)
{
	char s[128];

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		struct want w = { syms[i].type, syms[i].config, 0, 0 };

		for (size_t k = 0; k < sizeof(mods) / sizeof(mods[0]); k++) {
			/* every modifier on a few, a sample on the rest */
			if (i > 3 && i != 14 && k % 5 != i % 5)
				continue;
			snprintf(s, sizeof(s), "%s%s", syms[i].name, mods[k].mod);
			one(s, &w, &mods[k], NULL);
		}
	}
	{
		struct want w = { PERF_TYPE_HARDWARE, 0, 0, 0 };

		one("cycles:", &w, &mods[0], NULL);
		one("cycles//", &w, &mods[0], NULL);
	}
}

/* ---- hw-cache: every spelling perf accepts ---- */

static const char *const ctypes[][5] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};
static const char *const cops[][4] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const cres[][4] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};
/* perf's table of valid operations per cache (R=1, W=2, P=4) */
static const int cvalid[] = { 7, 5, 7, 7, 1, 1, 7 };

static void test_cache(void)
{
	char s[128];

	for (int t = 0; t < 7; t++) {
		for (int ta = 0; ta < 5 && ctypes[t][ta]; ta++) {
			struct want w = { PERF_TYPE_HW_CACHE, (uint64_t)t, 0, 0 };

			if (ta == 0)
				one(ctypes[t][ta], &w, &mods[0], NULL);
			for (int op = 0; op < 3; op++) {
				for (int oa = 0; oa < 4 && cops[op][oa]; oa++) {
					if (ta && oa) /* alias x alias: sample */
						continue;
					snprintf(s, sizeof(s), "%s-%s",
						 ctypes[t][ta], cops[op][oa]);
					/* perf lexes "branches" as the hardware
					 * event, so branches-load is an error */
					if (!strcmp(ctypes[t][ta], "branches")) {
						bad(s, PK_ERR_SYNTAX, 8,
						    "unexpected");
						continue;
					}
					if (!(cvalid[t] & (1 << op))) {
						bad(s, PK_ERR_UNKNOWN,
						    (int)strlen(ctypes[t][ta]) + 1,
						    "operation");
						continue;
					}
					w.config = (uint64_t)t | (uint64_t)op << 8;
					one(s, &w, &mods[0], NULL);
					for (int r = 0; r < 2; r++) {
						for (int ra = 0; ra < 4 &&
						     cres[r][ra]; ra++) {
							if ((ta || oa) && ra)
								continue;
							snprintf(s, sizeof(s),
								 "%s-%s-%s",
								 ctypes[t][ta],
								 cops[op][oa],
								 cres[r][ra]);
							w.config = (uint64_t)t |
								(uint64_t)op << 8 |
								(uint64_t)r << 16;
							one(s, &w, &mods[0], NULL);
						}
					}
				}
			}
		}
		/* result only: the operation defaults to read */
		{
			struct want w = { PERF_TYPE_HW_CACHE,
					  (uint64_t)t | 1ULL << 16, 0, 0 };

			/* branch-misses is the hardware event (perf) */
			snprintf(s, sizeof(s), "%s-misses",
				 t == 5 ? "bpu" : ctypes[t][0]);
			one(s, &w, &mods[0], NULL);
		}
	}
	{
		struct want w = { PERF_TYPE_HW_CACHE, 0x10000, 0, 0 };

		one("L1-dcache-load-misses:u", &w, &mods[1],
		    "L1-dcache-load-misses");
		one("L1-dcache-misses-loads", &w, &mods[0], NULL);
		one("L1-dcache-load-misses/name=foo/", &w, &mods[0], "foo");
		w.config = 0;
		one("L1-dcache-load-load", &w, &mods[0], NULL);
		w.config = 0x10005;
		one("branch-load-misses:k", &w, &mods[2], "branch-load-misses");
	}
}

/* ---- raw, numeric ---- */

static void test_raw(void)
{
	static const uint64_t vals[] = { 0, 1, 0x1a8, 0xc0, 0x3c, 0x412e,
		0x53003c, 0x1234567890abcdefULL, 0xffffffffffffffffULL,
		0xdead, 0xbeef, 0xa, 0xf00 };
	char s[64];

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		struct want w = { PERF_TYPE_RAW, vals[i], 0, 0 };

		snprintf(s, sizeof(s), "r%" PRIx64, vals[i]);
		one(s, &w, &mods[0], NULL);
		snprintf(s, sizeof(s), "r%" PRIX64 ":u", vals[i]);
		one(s, &w, &mods[1], NULL);
	}
	{
		struct want w = { PERF_TYPE_RAW, 0x1a8, 0, 0 };

		one("r1a8:ppp", &w, &mods[13], NULL);
		w.config = 5;
		one("r1a8/config=5/", &w, &mods[0], NULL);
		w.type = 1;
		w.config = 3;
		one("1:3", &w, &mods[0], NULL);
		w.type = 1;
		w.config = 1;
		one("1:0x1:u", &w, &mods[1], NULL);
	}
}

/* ---- generic terms ---- */

static void test_terms(void)
{
	struct pk_parse_error e;
	struct pk_evlist *l;
	struct perf_event_attr *a;
	struct pk_evsel *ev;
	int n;

	{
		struct want w = { PERF_TYPE_SOFTWARE, 5, 3, 7 };

		one("cpu-clock/config=5,config1=3,config2=0x7/", &w, &mods[0],
		    NULL);
		w.config = 0x10;
		w.config1 = w.config2 = 0;
		one("cpu-clock/config=0x10/u", &w, &mods[1], NULL);
		w.type = PERF_TYPE_HARDWARE;
		w.config = 0;
		one("cycles/name=bar/u", &w, &mods[1], "bar");
		one("cycles/metric-id=x/", &w, &mods[0], NULL);
	}
	l = parse("cycles/period=100000,config2/", &n, &e);
	ev = pk_evlist_evsel(l, 0);
	a = n == 1 ? pk_evsel_attr(ev) : NULL;
	t_check(a && a->sample_period == 100000 && !a->freq &&
		a->config2 == 1 && (pk_evsel_terms(ev) & PK_TERM_PERIOD),
		"term period + bare config2", "n=%d", n);
	pk_evlist_free(l);

	l = parse("cpu-clock/freq=4000,time=0,no-inherit,overwrite/", &n, &e);
	ev = pk_evlist_evsel(l, 0);
	a = n == 1 ? pk_evsel_attr(ev) : NULL;
	t_check(a && a->sample_freq == 4000 && a->freq && !a->inherit &&
		a->write_backward && !(a->sample_type & PERF_SAMPLE_TIME) &&
		(pk_evsel_terms(ev) & (PK_TERM_FREQ | PK_TERM_TIME |
				       PK_TERM_INHERIT | PK_TERM_OVERWRITE)) ==
		(PK_TERM_FREQ | PK_TERM_TIME | PK_TERM_INHERIT |
		 PK_TERM_OVERWRITE), "terms freq/time/no-inherit/overwrite",
		"n=%d", n);
	pk_evlist_free(l);

	l = parse("cpu-clock/call-graph=dwarf,stack-size=4000,time=1,inherit/",
		  &n, &e);
	a = n == 1 ? pk_evsel_attr(pk_evlist_evsel(l, 0)) : NULL;
	t_check(a && (a->sample_type & PERF_SAMPLE_CALLCHAIN) &&
		(a->sample_type & PERF_SAMPLE_STACK_USER) &&
		(a->sample_type & PERF_SAMPLE_TIME) &&
		a->sample_stack_user == 4000 && a->exclude_callchain_user &&
		a->inherit, "terms call-graph=dwarf,stack-size", "n=%d", n);
	pk_evlist_free(l);

	l = parse("cpu-clock/call-graph=fp,max-stack=5/", &n, &e);
	a = n == 1 ? pk_evsel_attr(pk_evlist_evsel(l, 0)) : NULL;
	t_check(a && (a->sample_type & PERF_SAMPLE_CALLCHAIN) &&
		a->sample_max_stack == 5 && !a->sample_stack_user,
		"terms call-graph=fp,max-stack", "n=%d", n);
	pk_evlist_free(l);

	l = parse("cycles/branch_type=any_call,branch_type=u/", &n, &e);
	a = n == 1 ? pk_evsel_attr(pk_evlist_evsel(l, 0)) : NULL;
	t_check(a && a->branch_sample_type == (PERF_SAMPLE_BRANCH_ANY_CALL |
					       PERF_SAMPLE_BRANCH_USER) &&
		(a->sample_type & PERF_SAMPLE_BRANCH_STACK),
		"terms branch_type", "n=%d", n);
	pk_evlist_free(l);

	l = parse("cpu-clock/percore/,task-clock/percore=0/", &n, &e);
	t_check(n == 2 && (pk_evsel_flags(pk_evlist_evsel(l, 0)) &
			   PK_EVSEL_PERCORE) &&
		!(pk_evsel_flags(pk_evlist_evsel(l, 1)) & PK_EVSEL_PERCORE),
		"term percore", "n=%d", n);
	pk_evlist_free(l);
}

/* ---- breakpoints ---- */

static void bp(const char *s, uint64_t addr, uint64_t len, unsigned type,
	       const struct modx *m, const char *name)
{
	struct pk_parse_error e;
	int n;
	struct pk_evlist *l = parse(s, &n, &e);
	struct perf_event_attr *a = n == 1 ?
		pk_evsel_attr(pk_evlist_evsel(l, 0)) : NULL;
	char tn[200], why[128];

	snprintf(tn, sizeof(tn), "parse '%s'", s);
	if (!a)
		t_fail(tn, "returned %d (%s)", n, e.msg);
	else if (a->type != PERF_TYPE_BREAKPOINT || a->bp_addr != addr ||
		 a->bp_len != len || a->bp_type != type ||
		 a->sample_period != 1)
		t_fail(tn, "type %u addr %#llx len %llu bp_type %u period %llu",
		       a->type, (unsigned long long)a->bp_addr,
		       (unsigned long long)a->bp_len, a->bp_type,
		       (unsigned long long)a->sample_period);
	else if (!check_mods(pk_evlist_evsel(l, 0), a, m, why, sizeof(why)))
		t_fail(tn, "modifiers %s", why);
	else if (strcmp(pk_evsel_name(pk_evlist_evsel(l, 0)), name))
		t_fail(tn, "name %s", pk_evsel_name(pk_evlist_evsel(l, 0)));
	else
		t_ok(tn);
	pk_evlist_free(l);
}

static void test_breakpoints(void)
{
	const unsigned R = HW_BREAKPOINT_R, W = HW_BREAKPOINT_W,
		       X = HW_BREAKPOINT_X;

	bp("mem:0x1000", 0x1000, 4, R | W, &mods[0], "mem:0x1000");
	bp("mem:4096", 0x1000, 4, R | W, &mods[0], "mem:4096");
	bp("mem:0x1000:x", 0x1000, sizeof(long), X, &mods[0], "mem:0x1000:x");
	bp("mem:0x1000:r", 0x1000, 4, R, &mods[0], "mem:0x1000:r");
	bp("mem:0x1000:w", 0x1000, 4, W, &mods[0], "mem:0x1000:w");
	bp("mem:0x1000:rw", 0x1000, 4, R | W, &mods[0], "mem:0x1000:rw");
	bp("mem:0x1000:wr", 0x1000, 4, R | W, &mods[0], "mem:0x1000:wr");
	bp("mem:0x1000/4:rw", 0x1000, 4, R | W, &mods[0], "mem:0x1000");
	bp("mem:0x1000/8", 0x1000, 8, R | W, &mods[0], "mem:0x1000");
	bp("mem:0x1000/1:w", 0x1000, 1, W, &mods[0], "mem:0x1000");
	bp("mem:0x1000/2:x", 0x1000, 2, X, &mods[0], "mem:0x1000");
	bp("mem:0xffffffff81000000:x:k", 0xffffffff81000000ULL, sizeof(long),
	   X, &mods[2], "mem:0xffffffff81000000:x:k");
	bp("mem:0x1000:u", 0x1000, 4, R | W, &mods[1], "mem:0x1000:u");
	bp("mem:0x1000:rw:u", 0x1000, 4, R | W, &mods[1], "mem:0x1000:rw:u");
	bp("mem:0x2000/8:w:k", 0x2000, 8, W, &mods[2], "mem:0x2000");
	bp("mem:0x1000:", 0x1000, 4, R | W, &mods[0], "mem:0x1000:");
}

/* ---- tracepoints (ids from tracefs now) ---- */

static const char *tracefs(void)
{
	static const char *const c[] = { "/sys/kernel/tracing",
					  "/sys/kernel/debug/tracing" };
	char p[256];

	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/events/sched", c[i]);
		if (access(p, R_OK) == 0)
			return c[i];
	}
	return NULL;
}

static long long tp_id(const char *sys, const char *ev)
{
	char p[512];
	long long id = -1;
	FILE *f;

	snprintf(p, sizeof(p), "%s/events/%s/%s/id", tracefs(), sys, ev);
	f = fopen(p, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &id) != 1)
		id = -1;
	fclose(f);
	return id;
}

static int glob_count(const char *sys, const char *evg)
{
	char p[512];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(p, sizeof(p), "%s/events/%s", tracefs(), sys);
	dir = opendir(p);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) != NULL)
		if (d->d_name[0] != '.' && !fnmatch(evg, d->d_name, 0) &&
		    tp_id(sys, d->d_name) >= 0)
			n++;
	closedir(dir);
	return n;
}

static void test_tracepoints(void)
{
	static const char *const tps[][2] = {
		{ "sched", "sched_switch" }, { "sched", "sched_wakeup" },
		{ "sched", "sched_process_exec" }, { "syscalls", "sys_enter_getppid" },
		{ "syscalls", "sys_exit_getppid" }, { "raw_syscalls", "sys_enter" },
		{ "irq", "irq_handler_entry" }, { "timer", "hrtimer_start" },
		{ "kmem", "kmalloc" }, { "signal", "signal_generate" },
		{ "task", "task_newtask" }, { "writeback", "writeback_dirty_page" },
	};
	static const char *const globs[][2] = {
		{ "sched", "*" }, { "syscalls", "sys_enter_get*" },
		{ "sched", "sched_wak*" }, { "syscalls", "sys_e?it_getppid" },
		{ "raw_syscalls", "*" }, { "sched", "sched_[sw]*" },
	};
	char s[256];

	if (!tracefs()) {
		t_skip("tracepoints", "no tracefs with events/sched");
		return;
	}
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		long long id = tp_id(tps[i][0], tps[i][1]);
		struct want w = { PERF_TYPE_TRACEPOINT, (uint64_t)id, 0, 0 };

		snprintf(s, sizeof(s), "%s:%s", tps[i][0], tps[i][1]);
		if (id < 0) {
			t_skip(s, "not in this kernel");
			continue;
		}
		one(s, &w, &mods[0], NULL);
		snprintf(s, sizeof(s), "%s:%s:u", tps[i][0], tps[i][1]);
		*strrchr(s, ':') = '\0'; /* perf names it sys:event */
		{
			char full[300];

			snprintf(full, sizeof(full), "%s:u", s);
			one(full, &w, &mods[1], s);
		}
	}
	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++) {
		struct pk_parse_error e;
		int n, want = glob_count(globs[i][0], globs[i][1]), ok = 1;
		struct pk_evlist *l;

		snprintf(s, sizeof(s), "%s:%s", globs[i][0], globs[i][1]);
		l = parse(s, &n, &e);
		for (int k = 0; k < n && ok; k++) {
			struct pk_evsel *ev = pk_evlist_evsel(l, k);
			const char *nm = pk_evsel_name(ev);
			const char *colon = strchr(nm, ':');

			ok = colon && !fnmatch(globs[i][1], colon + 1, 0) &&
			     (long long)pk_evsel_attr(ev)->config ==
			     tp_id(globs[i][0], colon + 1) &&
			     pk_evsel_leader(ev) == ev;
		}
		t_check(want > 0 && n == want && ok, s,
			"got %d events, tracefs has %d (ok %d)", n, want, ok);
		pk_evlist_free(l);
	}
}

/* The tracepoint modifier test above names the event sys:ev (perf drops
 * the modifier from tracepoint names). */

/* ---- real sysfs PMUs ---- */

static long sysfs_type(const char *pmu)
{
	char p[256];
	long t = -1;
	FILE *f;

	snprintf(p, sizeof(p), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(p, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &t) != 1)
		t = -1;
	fclose(f);
	return t;
}

static void test_real_pmus(void)
{
	long msr = sysfs_type("msr"), sw = sysfs_type("software");
	long tp = sysfs_type("tracepoint"), up = sysfs_type("uprobe");

	if (sw >= 0) {
		struct want w = { (uint32_t)sw, 3, 0, 0 };

		one("software/config=3/", &w, &mods[0], NULL);
		one("software/config=3/u", &w, &mods[1], NULL);
		w.config = 0;
		one("software//", &w, &mods[0], NULL);
	}
	if (tp >= 0) {
		struct want w = { (uint32_t)tp, 0x10, 0, 0 };

		one("tracepoint/config=0x10/", &w, &mods[0], NULL);
	}
	if (up >= 0) {
		struct want w = { (uint32_t)up, 1, 0, 0 };

		one("uprobe/retprobe/", &w, &mods[0], NULL);
		w.config = (5ULL << 32) | 1;
		one("uprobe/retprobe=1,ref_ctr_offset=5/", &w, &mods[0], NULL);
		bad("uprobe/retprobe=2/", PK_ERR_RANGE, 16, "maximum is 1");
	}
	if (msr < 0) {
		t_skip("msr PMU", "no msr PMU in sysfs");
		return;
	}
	{
		struct want w = { (uint32_t)msr, 0, 0, 0 };

		one("msr/tsc/", &w, &mods[0], NULL);
		one("msr/tsc/u", &w, &mods[1], NULL);
		one("msr/tsc/:u", &w, &mods[1], NULL);
		one("tsc", &w, &mods[0], NULL);
		one("tsc:k", &w, &mods[2], NULL);
		w.config = 1;
		one("msr/event=1/", &w, &mods[0], NULL);
		one("msr/tsc,event=1/", &w, &mods[0], NULL);
		one("msr/event/", &w, &mods[0], NULL);
		w.config = 0xffffffffffffffffULL;
		one("msr/event=0xffffffffffffffff/", &w, &mods[0], NULL);
		w.config = 7;
		one("msr/config=7/", &w, &mods[0], NULL);
		bad("msr/bogus=1/", PK_ERR_UNKNOWN, 4,
		    "unknown term 'bogus' for pmu 'msr'");
		bad("msr/event=1,bogus/", PK_ERR_UNKNOWN, 12, "valid terms: event");
	}
}

/* ---- a fake sysfs tree ---- */

static char fake[256];

static void put(const char *rel, const char *text)
{
	char p[512], *s;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", fake, rel);
	for (s = p + strlen(fake) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void rm_rf(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", dir);
}

#define DEV "bus/event_source/devices/"
static void build_fake(void)
{
	put(DEV "fake/type", "42\n");
	put(DEV "fake/cpumask", "0-1\n");
	put(DEV "fake/format/event", "config:0-7\n");
	put(DEV "fake/format/umask", "config:8-15\n");
	put(DEV "fake/format/split", "config:32-35,40-43\n");
	put(DEV "fake/format/flag", "config:63\n");
	put(DEV "fake/format/ldlat", "config1:0-15\n");
	put(DEV "fake/format/fc", "config2:4-7\n");
	put(DEV "fake/format/all1", "config1:0-63\n");
	put(DEV "fake/format/broken", "bogus:1-2\n");
	put(DEV "fake/events/ev1", "event=0x3c,umask=0x01\n");
	put(DEV "fake/events/ev2", "split=0xab,ldlat=3\n");
	put(DEV "fake/events/ev2.scale", "1e-9\n");
	put(DEV "fake/events/ev2.unit", "ns\n");
	put(DEV "fake/events/Mixed-Case", "event=5\n");
	put(DEV "fake/events/badalias", "nosuch=1\n");
	put(DEV "fake/events/param", "event=0x7,umask=?\n");
	put(DEV "fake/events/mem-loads-x", "event=0xcd,umask=0x1\n");
	put(DEV "uncore_box_0/type", "50\n");
	put(DEV "uncore_box_0/format/event", "config:0-7\n");
	put(DEV "uncore_box_1/type", "51\n");
	put(DEV "uncore_box_1/format/event", "config:0-7\n");
	put(DEV "other/type", "60\n");
	put(DEV "other/format/event", "config:0-3\n");
	put(DEV "other/events/ev1", "event=0x2\n");
	/* a unit of 40 bytes: perf keeps 31 */
	put(DEV "other/events/long", "event=0x3\n");
	put(DEV "other/events/long.unit",
	    "0123456789012345678901234567890123456789\n");
	put(DEV "other/events/long.scale", "2.5\n");
	put(DEV "software/type", "1\n");
	put(DEV "software/format/config", "config:0-63\n");
}

/* EVENT S's unit and scale (its first event) */
static void unit_is(const char *s, const char *unit, double scale)
{
	struct pk_parse_error e;
	int n;
	struct pk_evlist *l = parse(s, &n, &e);
	struct pk_evsel *ev = n > 0 ? pk_evlist_evsel(l, 0) : NULL;

	t_check(ev && !strcmp(pk_evsel_unit(ev), unit) &&
		pk_evsel_scale(ev) == scale, s, "n=%d unit '%s' scale %g", n,
		ev ? pk_evsel_unit(ev) : "?", ev ? pk_evsel_scale(ev) : 0.0);
	pk_evlist_free(l);
}

/* perf's rules (evsel__new_idx, parse_events_add_pmu, 6.1): the clocks
 * by name get msec/1e-6, a PMU event with terms its aliases' files or
 * nothing, one without terms keeps the clock's. */
static void test_units(void)
{
	unit_is("fake/ev2/", "ns", 1e-9);
	unit_is("fake/ev2,umask=1/", "ns", 1e-9);
	unit_is("ev2", "ns", 1e-9);
	unit_is("fake/ev1/", "", 1.0);
	unit_is("fake/event=1/", "", 1.0);
	unit_is("other/long/", "0123456789012345678901234567890", 2.5);
	unit_is("cpu-clock", "msec", 1e-6);
	unit_is("task-clock:u", "msec", 1e-6);
	unit_is("cpu-clock/period=10/", "msec", 1e-6);
	unit_is("software//", "msec", 1e-6);
	unit_is("software/config=0/", "", 1.0);
	unit_is("software/config=2/", "", 1.0);
	unit_is("page-faults", "", 1.0);
	unit_is("cycles", "", 1.0);
}

struct finfo {
	char enc[128];
	uint32_t type;
};

static int keep_cb(const struct pk_event_info *in, void *arg)
{
	struct finfo *f = arg;

	snprintf(f->enc, sizeof(f->enc), "%s", in->encoding ? in->encoding : "");
	f->type = in->type;
	return 0;
}

static void test_fake_sysfs(void)
{
	struct pk_parse_error e;
	struct pk_evlist *l;
	int n;

	snprintf(fake, sizeof(fake), "/tmp/pk_fakesys.XXXXXX");
	if (!mkdtemp(fake)) {
		t_skip("fake sysfs", "mkdtemp: %s", strerror(errno));
		return;
	}
	build_fake();
	pk__event_set_roots(fake, NULL);
	{
		struct want w = { 42, 0x3c, 0, 0 };

		one("fake/event=0x3c/", &w, &mods[0], NULL);
		w.config = 0x013c;
		one("fake/event=0x3c,umask=1/", &w, &mods[0], NULL);
		one("fake/ev1/", &w, &mods[0], NULL);
		one("fake/ev1/u", &w, &mods[1], NULL);
		one("fake/EV1/", &w, &mods[0], NULL);
		/* perf ORs format values: umask 1 (alias) | 2 */
		w.config = 0x033c;
		one("fake/ev1,umask=2/", &w, &mods[0], NULL);
		one("fake/event=ev1,umask=2/", &w, &mods[0], NULL);
		one("fake/ev1=1,umask=2/", &w, &mods[0], NULL);
		w.config = 0x3;
		one("fake/event=1,event=2/", &w, &mods[0], NULL);
		w.config = 0x0507;
		one("fake/param,umask=5/", &w, &mods[0], NULL);
		w.config = 0x01cd;
		one("mem-loads-x", &w, &mods[0], NULL);
		one("mem-loads-x:u", &w, &mods[1], NULL);
		one("fake/mem-loads-x/", &w, &mods[0], NULL);
		w.config = 0x11cd;
		one("mem-loads-x/umask=0x10/", &w, &mods[0], NULL);
		w.config = 0x5;
		one("fake/mixed-case/", &w, &mods[0], NULL);
		/* split range: low nibble to 32-35, high nibble to 40-43 */
		w.config = (0xbULL << 32) | (0xaULL << 40);
		w.config1 = 3;
		one("fake/ev2/", &w, &mods[0], NULL);
		w.config1 = 0;
		w.config = (0xfULL << 32) | (0xfULL << 40);
		one("fake/split=0xff/", &w, &mods[0], NULL);
		w.config = 1ULL << 63;
		one("fake/flag/", &w, &mods[0], NULL);
		one("fake/flag=1/", &w, &mods[0], NULL);
		w.config = 0;
		w.config1 = 0xffff;
		one("fake/ldlat=0xffff/", &w, &mods[0], NULL);
		w.config1 = ~0ULL;
		one("fake/all1=0xffffffffffffffff/", &w, &mods[0], NULL);
		w.config1 = 0;
		w.config2 = 0x90;
		one("fake/fc=9/", &w, &mods[0], NULL);
		w.config2 = 0;
		w.config = 0x11;
		one("fake/event=0x11,name=myev/k", &w, &mods[2], "myev");
		w.config = 0x11 | 0x2200;
		w.config1 = 0x33;
		w.config2 = 0x44;
		one("fake/event=0x11,umask=0x22,config1=0x33,config2=0x44/", &w,
		    &mods[0], NULL);
		/* generic terms first, then formats OR-ed in (perf) */
		w.config = 0x199;
		w.config1 = w.config2 = 0;
		one("fake/event=0x11,config=0x188/", &w, &mods[0], NULL);
		one("fake/config=0x188,event=0x11/", &w, &mods[0], NULL);
		w.config = 0x13;
		one("fake/event=1,r12/", &w, &mods[0], NULL);
		w.type = 60;
		w.config = 2;
		one("other/ev1/", &w, &mods[0], NULL);
	}
	bad("fake/event=0x100/", PK_ERR_RANGE, 11, "maximum is 255");
	bad("fake/umask=256/", PK_ERR_RANGE, 11, "maximum is 255");
	bad("fake/ldlat=0x10000/", PK_ERR_RANGE, 11, "maximum is 65535");
	bad("fake/flag=2/", PK_ERR_RANGE, 10, "maximum is 1");
	bad("fake/split=0x100/", PK_ERR_RANGE, 11, "maximum is 255");
	bad("fake/broken=1/", PK_ERR_UNKNOWN, 5, "unknown term 'broken'");
	bad("fake/event=abc/", PK_ERR_SYNTAX, 11, "numeric");
	bad("fake/badalias/", PK_ERR_UNKNOWN, 5, "unknown term 'nosuch'");
	bad("fake/ev1=2/", PK_ERR_UNKNOWN, 5, "unknown term 'ev1'");
	bad("fake/event=nosuch/", PK_ERR_SYNTAX, 11, "numeric");
	bad("fake/event=1,param/", PK_ERR_SYNTAX, 13,
	    "required parameter 'umask'");
	bad("fake/event=1", PK_ERR_SYNTAX, 12, "closing '/'");
	bad("nosuchpmu/event=1/", PK_ERR_UNKNOWN, 0, "unknown PMU");
	bad("mem-loads-y", PK_ERR_UNKNOWN, 0, "unknown event 'mem-loads-y'");

	/* ev1 exists in two PMUs: a bare name opens both, as perf does */
	l = parse("ev1", &n, &e);
	t_check(n == 2 && pk_evsel_attr(pk_evlist_evsel(l, 0))->type == 42 &&
		pk_evsel_attr(pk_evlist_evsel(l, 0))->config == 0x013c &&
		pk_evsel_attr(pk_evlist_evsel(l, 1))->type == 60 &&
		!strcmp(pk_evsel_name(pk_evlist_evsel(l, 1)), "ev1") &&
		!strcmp(pk_evsel_pmu_name(pk_evlist_evsel(l, 1)), "other"),
		"bare alias in two PMUs", "n=%d", n);
	pk_evlist_free(l);

	/* uncore_box_N by its short name */
	l = parse("box/event=7/", &n, &e);
	t_check(n == 2 && pk_evsel_attr(pk_evlist_evsel(l, 0))->type == 50 &&
		pk_evsel_attr(pk_evlist_evsel(l, 1))->type == 51 &&
		pk_evsel_attr(pk_evlist_evsel(l, 1))->config == 7,
		"uncore PMU prefix match", "n=%d", n);
	pk_evlist_free(l);

	l = parse("fake/event=1/", &n, &e);
	t_check(n == 1 && !strcmp(pk_evsel_pmu_name(pk_evlist_evsel(l, 0)),
				  "fake"), "pmu name of a PMU event", "n=%d", n);
	/* the PMU's cpumask (0-1) becomes the event's pmu_cpus */
	t_check(n == 1 && pk_evlist_evsel(l, 0)->pmu_cpus &&
		pk_cpu_map_nr(pk_evlist_evsel(l, 0)->pmu_cpus) == 2 &&
		pk_cpu_map_cpu(pk_evlist_evsel(l, 0)->pmu_cpus, 1) == 1,
		"pmu cpumask", "n=%d", n);
	pk_evlist_free(l);
	l = parse("other/event=1/,cycles", &n, &e);
	t_check(n == 2 && !pk_evlist_evsel(l, 0)->pmu_cpus &&
		!pk_evlist_evsel(l, 1)->pmu_cpus, "no cpumask, no pmu_cpus",
		"n=%d", n);
	pk_evlist_free(l);

	{
		struct finfo fi = { 0 };

		n = pk_event_foreach(PK_EVCLASS_PMU_FORMAT, "fake/split=N/",
				     keep_cb, &fi);
		t_check(n == 1 && !strcmp(fi.enc, "config:32-35,40-43") &&
			fi.type == 42, "foreach format encoding", "n=%d '%s'",
			n, fi.enc);
		n = pk_event_foreach(PK_EVCLASS_PMU_EVENT, "fake/ev1/", keep_cb,
				     &fi);
		t_check(n == 1 && !strcmp(fi.enc, "event=0x3c,umask=0x01"),
			"foreach PMU event", "n=%d '%s'", n, fi.enc);
		n = pk_event_foreach(PK_EVCLASS_PMU_EVENT, "ev1", keep_cb, &fi);
		t_check(n == 2, "foreach PMU event by alias", "n=%d", n);
		n = pk_event_foreach(PK_EVCLASS_PMU_FORMAT, "fake/*", keep_cb,
				     &fi);
		t_check(n == 7, "foreach formats (bad ones left out)", "n=%d",
			n);
	}
	test_units();
	pk__event_set_roots(NULL, NULL);
	rm_rf(fake);
}

/* ---- groups ---- */

static void test_groups(void)
{
	struct pk_parse_error e;
	struct pk_evlist *l;
	struct perf_event_attr *a0, *a1;
	int n;

	l = parse("{cpu-clock,task-clock}:u", &n, &e);
	a0 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 0)) : NULL;
	a1 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 1)) : NULL;
	t_check(a0 && a0->exclude_kernel && a1->exclude_kernel &&
		a1->exclude_guest && pk_evsel_nr_members(pk_evlist_evsel(l, 0)) == 2 &&
		pk_evsel_leader(pk_evlist_evsel(l, 1)) == pk_evlist_evsel(l, 0) &&
		!strcmp(pk_evsel_name(pk_evlist_evsel(l, 1)), "task-clock"),
		"group {a,b}:u", "n=%d", n);
	pk_evlist_free(l);

	/* perf: {cpu-clock:k,task-clock}:u -> leader u0 k0 h1 G1 */
	l = parse("{cpu-clock:k,task-clock}:u", &n, &e);
	a0 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 0)) : NULL;
	a1 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 1)) : NULL;
	t_check(a0 && !a0->exclude_user && !a0->exclude_kernel &&
		a0->exclude_hv && a0->exclude_guest && a1->exclude_kernel &&
		!a1->exclude_user, "group modifier merges with member's",
		"n=%d", n);
	pk_evlist_free(l);

	/* perf: group D and e go to the leader only */
	l = parse("{cpu-clock,task-clock}:De", &n, &e);
	a0 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 0)) : NULL;
	a1 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 1)) : NULL;
	t_check(a0 && a0->pinned && a0->exclusive && !a1->pinned &&
		!a1->exclusive && a0->exclude_guest && a1->exclude_guest,
		"group :De on leader only", "n=%d", n);
	pk_evlist_free(l);

	/* perf: member's own :D stays */
	l = parse("{cpu-clock:D,task-clock:D}", &n, &e);
	a1 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 1)) : NULL;
	t_check(a1 && a1->pinned && !a1->exclude_guest, "member :D", "n=%d", n);
	pk_evlist_free(l);

	/* perf: {cpu-clock:G,task-clock}:u: G stays (exclude_GH) */
	l = parse("{cpu-clock:G,task-clock}:u", &n, &e);
	a0 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 0)) : NULL;
	a1 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 1)) : NULL;
	t_check(a0 && a0->exclude_host && !a0->exclude_guest &&
		a0->exclude_kernel && a1->exclude_guest && !a1->exclude_host,
		"group :u after member :G", "n=%d", n);
	pk_evlist_free(l);

	l = parse("cycles,grp{cpu-clock,task-clock}:u", &n, &e);
	a1 = n == 3 ? pk_evsel_attr(pk_evlist_evsel(l, 2)) : NULL;
	t_check(a1 && a1->exclude_kernel &&
		pk_evsel_group_name(pk_evlist_evsel(l, 1)) &&
		!strcmp(pk_evsel_group_name(pk_evlist_evsel(l, 1)), "grp") &&
		!pk_evsel_group_name(pk_evlist_evsel(l, 0)) &&
		pk_evsel_nr_members(pk_evlist_evsel(l, 1)) == 2,
		"named group", "n=%d", n);
	pk_evlist_free(l);

	l = parse("{cpu-clock,task-clock}:p", &n, &e);
	a1 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 1)) : NULL;
	t_check(a1 && a1->precise_ip == 1, "group :p", "n=%d", n);
	pk_evlist_free(l);

	l = parse("{cpu-clock:p,task-clock}:p", &n, &e);
	a0 = n == 2 ? pk_evsel_attr(pk_evlist_evsel(l, 0)) : NULL;
	t_check(a0 && a0->precise_ip == 2, "group :p adds to member :p",
		"n=%d", n);
	pk_evlist_free(l);

	l = parse("{cpu-clock,task-clock}:SW", &n, &e);
	t_check(n == 2 && (pk_evsel_flags(pk_evlist_evsel(l, 1)) &
			   (PK_EVSEL_SAMPLE_READ | PK_EVSEL_WEAK_GROUP)) ==
		(PK_EVSEL_SAMPLE_READ | PK_EVSEL_WEAK_GROUP),
		"group :SW flags", "n=%d", n);
	pk_evlist_free(l);

	l = parse("cycles,{cpu-clock,task-clock,page-faults},faults,{cs}", &n, &e);
	t_check(n == 6 && pk_evsel_nr_members(pk_evlist_evsel(l, 0)) == 1 &&
		pk_evsel_nr_members(pk_evlist_evsel(l, 1)) == 3 &&
		pk_evsel_nr_members(pk_evlist_evsel(l, 2)) == 0 &&
		pk_evsel_leader(pk_evlist_evsel(l, 3)) == pk_evlist_evsel(l, 1) &&
		pk_evsel_leader(pk_evlist_evsel(l, 4)) == pk_evlist_evsel(l, 4) &&
		pk_evsel_nr_members(pk_evlist_evsel(l, 5)) == 1 &&
		pk_evsel_idx(pk_evlist_evsel(l, 5)) == 5,
		"mixed list of groups", "n=%d", n);
	pk_evlist_free(l);

	if (tracefs()) {
		int want = glob_count("sched", "sched_wak*");

		l = parse("{sched:sched_wak*,cpu-clock}", &n, &e);
		t_check(n == want + 1 &&
			pk_evsel_nr_members(pk_evlist_evsel(l, 0)) == want + 1,
			"group with a tracepoint glob", "n=%d want %d", n,
			want + 1);
		pk_evlist_free(l);
	}

	/* appending to a non-empty list keeps indexes and groups */
	l = pk_evlist_new();
	n = pk_evlist_parse(l, "cycles", &e);
	n += pk_evlist_parse(l, "{cpu-clock,task-clock}", &e);
	t_check(n == 3 && pk_evsel_idx(pk_evlist_evsel(l, 2)) == 2 &&
		pk_evsel_leader(pk_evlist_evsel(l, 2)) == pk_evlist_evsel(l, 1),
		"second parse appends", "n=%d", n);
	n = pk_evlist_parse(l, "cycles,foo", &e);
	t_check(n == PK_ERR_UNKNOWN && pk_evlist_nr(l) == 3,
		"failed parse appends nothing", "n=%d nr=%d", n,
		pk_evlist_nr(l));
	pk_evlist_free(l);
}

/* ---- lists ---- */

static void test_lists(void)
{
	struct pk_parse_error e;
	struct pk_evlist *l;
	int n;
	const char *names[] = { "cycles:u", "instructions", "cpu-clock",
				"L1-dcache-loads", "r1a8" };

	l = parse("cycles:u,instructions,cpu-clock,L1-dcache-loads,r1a8", &n, &e);
	t_check(n == 5, "list of five", "n=%d", n);
	for (int i = 0; i < n && i < 5; i++)
		t_check(!strcmp(pk_evsel_name(pk_evlist_evsel(l, i)), names[i]),
			names[i], "got '%s'",
			pk_evsel_name(pk_evlist_evsel(l, i)));
	pk_evlist_free(l);
}

/* ---- errors ---- */

static void test_errors(void)
{
	bad("", PK_ERR_SYNTAX, 0, "no event");
	bad("foo", PK_ERR_UNKNOWN, 0, "unknown event 'foo'");
	bad("cyclez", PK_ERR_UNKNOWN, 0, "unknown event 'cyclez'");
	bad("cycles,foo", PK_ERR_UNKNOWN, 7, "unknown event 'foo'");
	bad("cycles,,instructions", PK_ERR_SYNTAX, 7, "expected an event");
	bad(",", PK_ERR_SYNTAX, 0, "expected an event");
	bad("cycles,", PK_ERR_SYNTAX, 6, "after ','");
	bad("cycles:pppp", PK_ERR_SYNTAX, 7, "bad modifier");
	bad("cycles:uu", PK_ERR_SYNTAX, 7, "given twice");
	bad("cycles:kuk", PK_ERR_SYNTAX, 7, "given twice");
	bad("cycles:z", PK_ERR_SYNTAX, 7, "bad modifier 'z'");
	bad("cycles:uz", PK_ERR_SYNTAX, 7, "bad modifier 'uz'");
	bad("cycles:u z", PK_ERR_SYNTAX, 9, "unexpected 'z'");
	bad("cycles:u:k", PK_ERR_SYNTAX, 8, "unexpected");
	bad("cycles}", PK_ERR_SYNTAX, 6, "unexpected '}'");
	bad("{cycles", PK_ERR_SYNTAX, 0, "not closed");
	bad("{cycles,instructions", PK_ERR_SYNTAX, 0, "not closed");
	bad("{}", PK_ERR_SYNTAX, 1, "expected an event");
	bad("{cycles,{instructions}}", PK_ERR_SYNTAX, 8, "nest");
	bad("{cycles}:z", PK_ERR_SYNTAX, 9, "bad group modifier");
	bad("{cycles,instructions}:uu", PK_ERR_SYNTAX, 22, "given twice");
	bad("{cycles}x", PK_ERR_SYNTAX, 8, "after group");
	bad("g{cycles", PK_ERR_SYNTAX, 1, "not closed");
	bad("g {cycles}", PK_ERR_UNKNOWN, 0, "unknown event 'g'");
	bad("r", PK_ERR_UNKNOWN, 0, "unknown event 'r'");
	bad("rxyz", PK_ERR_UNKNOWN, 0, "unknown event");
	bad("r10000000000000000", PK_ERR_RANGE, 0, "64 bits");
	bad("mem:", PK_ERR_SYNTAX, 4, "address");
	bad("mem:foo", PK_ERR_SYNTAX, 4, "address");
	bad("mem:0x1000:z", PK_ERR_SYNTAX, 11, "bad modifier 'z'");
	bad("mem:0x1000:rr", PK_ERR_SYNTAX, 11, "breakpoint access");
	bad("mem:0x1000:rwxr", PK_ERR_SYNTAX, 11, "breakpoint access");
	bad("mem:0x1000/", PK_ERR_SYNTAX, 11, "length");
	bad("L1-dcache-foo", PK_ERR_UNKNOWN, 10, "unknown hw-cache event");
	bad("L1-dcache-", PK_ERR_UNKNOWN, 10, "unknown hw-cache event");
	bad("iTLB-stores", PK_ERR_UNKNOWN, 5, "has no 'stores'");
	bad("branch-prefetches", PK_ERR_UNKNOWN, 7, "operation");
	bad("L1-icache-write", PK_ERR_UNKNOWN, 10, "operation");
	bad("cycles/config=zz/", PK_ERR_SYNTAX, 14, "numeric");
	bad("cycles/name=5/", PK_ERR_SYNTAX, 12, "string");
	bad("cycles/foo/", PK_ERR_UNKNOWN, 7, "unknown term 'foo'");
	bad("cycles/foo=1/", PK_ERR_UNKNOWN, 7, "valid terms: config,");
	bad("cycles/period=/", PK_ERR_SYNTAX, 14, "value");
	bad("cycles/period=1", PK_ERR_SYNTAX, 15, "closing '/'");
	bad("cycles/period=1,/", PK_ERR_SYNTAX, 16, "expected a term");
	bad("cycles/period=1 x/", PK_ERR_SYNTAX, 16, "expected ','");
	bad("cycles/percore=2/", PK_ERR_RANGE, 15, "0 or 1");
	bad("cycles/time=2/", PK_ERR_RANGE, 12, "0 or 1");
	bad("cycles/config=0x10000000000000000/", PK_ERR_RANGE, 14, "64 bits");
	bad("cycles/branch_type=bogus/", PK_ERR_UNKNOWN, 19, "branch sample type");
	bad("cycles/call-graph=bogus/", PK_ERR_UNKNOWN, 18, "call-graph");
	bad("cycles/max-stack=70000/", PK_ERR_RANGE, 17, "max-stack");
	bad("cpu-clock:u/config=1/", PK_ERR_SYNTAX, 11, "unexpected");
	bad("cycles instructions", PK_ERR_SYNTAX, 7, "unexpected");
	bad("cycles#", PK_ERR_SYNTAX, 6, "unexpected");
	bad("1:", PK_ERR_SYNTAX, 2, "TYPE:CONFIG");
	bad("1", PK_ERR_SYNTAX, 0, "TYPE:CONFIG");
	bad("nopmu/event=1/", PK_ERR_UNKNOWN, 0, "unknown PMU 'nopmu'");
	bad("u", PK_ERR_UNKNOWN, 0, "unknown event 'u'");
	bad("cycles:u,foo/bar/", PK_ERR_UNKNOWN, 9, "unknown PMU 'foo'");
	bad("cycles:u,{bar}", PK_ERR_UNKNOWN, 10, "unknown event 'bar'");
	bad("foo-bar", PK_ERR_UNKNOWN, 0, "unknown event 'foo-bar'");
	if (tracefs()) {
		bad("sched:nosuch", PK_ERR_UNKNOWN, 0, "unknown tracepoint 'sched:nosuch'");
		bad("foo:bar", PK_ERR_UNKNOWN, 0, "unknown tracepoint");
		bad("nosys:*", PK_ERR_UNKNOWN, 0, "no tracepoint matches");
		bad("sched:nosuch*", PK_ERR_UNKNOWN, 0, "no tracepoint matches");
		bad("cycles,sched:nosuch", PK_ERR_UNKNOWN, 7, "unknown tracepoint");
		bad("sched:sched_switch/foo/", PK_ERR_UNKNOWN, 19,
		    "valid terms: call-graph");
		bad("sched:sched_switch/period=1/", PK_ERR_UNKNOWN, 19,
		    "unknown term 'period'");
		bad("sched:sched_switch:uu", PK_ERR_SYNTAX, 19, "given twice");
		bad("sched:../../x", PK_ERR_UNKNOWN, -1, "");
	}
	{
		struct pk_parse_error e;
		struct pk_evlist *l = pk_evlist_new();
		char buf[512];

		pk_evlist_parse(l, "cycles,foo", &e);
		pk_parse_error_snprintf(buf, sizeof(buf), "cycles,foo", &e);
		t_check(!strcmp(buf, "event syntax error: 'cycles,foo'\n"
				"                            \\___ unknown event 'foo'"),
			"error rendering", "got '%s'", buf);
		pk_evlist_free(l);
	}
	t_check(pk_evlist_parse(NULL, "x", NULL) ==
		-EINVAL, "NULL list", "no -EINVAL");
}

/* Allocation failures: every failure point gives -ENOMEM or success,
 * never a crash or a half-built list. */
static void test_alloc_failures(void)
{
	const char *s = "{cpu-clock:u,task-clock/period=5/},L1-dcache-loads,mem:0x10:x";
	int bad_rc = 0, ok_at = -1;

	for (long i = 0; i < 400; i++) {
		struct pk_evlist *l = pk_evlist_new();
		struct pk_parse_error e;
		int n;

		if (!l)
			break;
		pk__alloc_fail_after(i);
		n = pk_evlist_parse(l, s, &e);
		pk__alloc_fail_after(-1);
		if (n == 4 && pk_evlist_nr(l) == 4) {
			ok_at = (int)i;
			pk_evlist_free(l);
			break;
		}
		if (n != -ENOMEM || pk_evlist_nr(l) != 0)
			bad_rc++;
		pk_evlist_free(l);
	}
	t_check(!bad_rc && ok_at > 0, "allocation failures", "bad %d ok_at %d",
		bad_rc, ok_at);
}

static int count_cb(const struct pk_event_info *in, void *arg)
{
	int *c = arg;

	c[in->cls == PK_EVCLASS_HW_CACHE]++;
	if (in->cls == PK_EVCLASS_HARDWARE && !strcmp(in->name, "cpu-cycles") &&
	    in->alias && !strcmp(in->alias, "cycles"))
		c[2]++;
	return 0;
}

static int stop_cb(const struct pk_event_info *in, void *arg)
{
	(void)in;
	(void)arg;
	return 7;
}

static void test_foreach(void)
{
	int c[3] = { 0, 0, 0 }, n;

	n = pk_event_foreach(PK_EVCLASS_HARDWARE | PK_EVCLASS_HW_CACHE, NULL,
			     count_cb, c);
	/* 10 hardware events; cache: 7 caches x valid ops x 2 results */
	t_check(n == 10 + 2 * (3 + 2 + 3 + 3 + 1 + 1 + 3) && c[1] == 32 &&
		c[2] == 1, "foreach hardware + cache", "n=%d c=%d,%d,%d", n,
		c[0], c[1], c[2]);
	c[0] = c[1] = c[2] = 0;
	n = pk_event_foreach(PK_EVCLASS_ALL, "cycles", count_cb, c);
	t_check(n == 1 && c[2] == 1, "foreach glob matches alias", "n=%d", n);
	n = pk_event_foreach(PK_EVCLASS_SOFTWARE, "*-faults", count_cb, c);
	t_check(n == 5, "foreach glob *-faults", "n=%d", n);
	n = pk_event_foreach(PK_EVCLASS_ALL, NULL, stop_cb, NULL);
	t_check(n == 7, "foreach stops", "n=%d", n);
	n = pk_event_foreach(PK_EVCLASS_TOOL, NULL, count_cb, c);
	t_check(n == 3, "foreach tool events", "n=%d", n);
	n = pk_event_foreach(PK_EVCLASS_SOFTWARE, "*_time", count_cb, c);
	t_check(n == 0, "tool events are not software", "n=%d", n);
	if (tracefs()) {
		c[0] = 0;
		n = pk_event_foreach(PK_EVCLASS_TRACEPOINT, "sched:*", count_cb, c);
		t_check(n == glob_count("sched", "*"), "foreach tracepoints",
			"n=%d want %d", n, glob_count("sched", "*"));
	}
}

static void test_attr_print(void)
{
	struct perf_event_attr a = { 0 };
	char buf[4096], small[16];
	int n;

	a.type = 2;
	a.size = 128;
	a.config = 0x174;
	a.sample_type = PERF_SAMPLE_IDENTIFIER;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.disabled = a.inherit = a.enable_on_exec = a.exclude_guest = 1;
	n = pk_attr_snprintf(buf, sizeof(buf), &a);
	t_check(!strcmp(buf,
		"  type                             2\n"
		"  size                             128\n"
		"  config                           0x174\n"
		"  sample_type                      IDENTIFIER\n"
		"  read_format                      TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING\n"
		"  disabled                         1\n"
		"  inherit                          1\n"
		"  enable_on_exec                   1\n"
		"  exclude_guest                    1\n") &&
		n == (int)strlen(buf), "attr print tracepoint block", "%s", buf);
	t_check(pk_attr_snprintf(small, sizeof(small), &a) == n &&
		strlen(small) == sizeof(small) - 1, "attr print truncates",
		"'%s'", small);
	memset(&a, 0, sizeof(a));
	a.bp_type = 3;
	a.bp_addr = 0x1000;
	a.bp_len = 4;
	a.sample_period = 1;
	a.precise_ip = 2;
	a.clockid = 1;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_USER |
			       PERF_SAMPLE_BRANCH_ANY_CALL;
	pk_attr_snprintf(buf, sizeof(buf), &a);
	t_check(!strcmp(buf,
		"  { sample_period, sample_freq }   1\n"
		"  precise_ip                       2\n"
		"  bp_type                          3\n"
		"  { bp_addr, config1 }             0x1000\n"
		"  { bp_len, config2 }              0x4\n"
		"  branch_sample_type               USER|ANY_CALL\n"
		"  clockid                          1\n"),
		"attr print breakpoint/sampling fields", "%s", buf);
	t_check(pk_attr_snprintf(NULL, 0, &a) > 100, "attr print size only",
		"%s", "short");
}

/* "Did you mean": pk_nearest, and the parser's hint for unknown names. */
static void hint_is(const char *str, const char *want)
{
	struct pk_evlist *l = pk_evlist_new();
	struct pk_parse_error e;
	int rc = pk_evlist_parse(l, str, &e);

	t_check(rc < 0 && !strcmp(e.hint, want), str,
		"rc %d, hint '%s', want '%s'", rc, e.hint, want);
	pk_evlist_free(l);
}

static void test_hints(void)
{
	static const char *const names[] = { "stat", "record", "report",
					     "script", "stay" };
	struct pk_nearest n;

	pk_nearest_init(&n, "recrod");
	for (size_t i = 0; i < 5; i++)
		pk_nearest_add(&n, names[i]);
	t_check(!strcmp(n.name, "record"), "nearest swap", "'%s'", n.name);
	pk_nearest_init(&n, "stt");
	for (size_t i = 0; i < 5; i++)
		pk_nearest_add(&n, names[i]);
	t_check(!strcmp(n.name, "stat"), "nearest first of equals", "'%s'",
		n.name);
	pk_nearest_init(&n, "stat");
	pk_nearest_add(&n, "stat");
	t_check(!n.name[0], "nearest not the word itself", "'%s'", n.name);
	pk_nearest_init(&n, "zzzzzz");
	for (size_t i = 0; i < 5; i++)
		pk_nearest_add(&n, names[i]);
	t_check(!n.name[0], "nearest none close", "'%s'", n.name);
	hint_is("task-clok", "task-clock");
	hint_is("cycles,cyclez", "cycles");
	hint_is("cpu-clock,context-switchs:u", "context-switches");
	hint_is("qqqqqqqq", "");
	hint_is("cycles:z", "");
	hint_is("cpu/evnt=1/", "");
	if (access("/sys/kernel/tracing/events/sched/sched_switch", F_OK))
		t_skip("sched:sched_swich", "no tracefs sched events here");
	else
		hint_is("sched:sched_swich", "sched:sched_switch");
}

int main(void)
{
	test_hints();
	test_symbols();
	test_tools();
	test_cache();
	test_raw();
	test_terms();
	test_breakpoints();
	test_tracepoints();
	test_real_pmus();
	test_fake_sysfs();
	test_groups();
	test_lists();
	test_errors();
	test_alloc_failures();
	test_foreach();
	test_attr_print();
	return t_exit();
}
