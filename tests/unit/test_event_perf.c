/* SPDX-License-Identifier: MIT */
/*
 * pk_attr_snprintf and the parser against perf 6.1: for each event string,
 * `perf stat -vv -e STR true` prints the attr of every event it opens; our
 * attr, with the fields perf stat itself adds applied the same way, must
 * print the same block. perf stat's own fields (not the parser's):
 *   sample_type = IDENTIFIER, read_format = TOTAL_TIME_ENABLED|
 *   TOTAL_TIME_RUNNING (|ID|GROUP in a group of 2+), inherit = 1,
 *   sample_period = 0 (perf stat clears the tracepoint/breakpoint period),
 *   and on group leaders disabled = 1, enable_on_exec = 1 (not for
 *   duration_time, which perf opens per CPU).
 * Only the first attempt per event counts (perf retries with fields
 * switched off when an open fails). Skipped without perf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/event.h>
#include "test.h"


static const char *const strs[] = {
	"cpu-clock", "task-clock", "page-faults", "faults", "cs",
	"context-switches", "migrations", "minor-faults", "major-faults",
	"alignment-faults", "emulation-faults", "dummy", "bpf-output",
	"cgroup-switches", "cpu-clock:u", "task-clock:k", "cpu-clock:h",
	"cpu-clock:uk", "page-faults:G", "page-faults:H", "cs:p",
	"cpu-clock:ppp", "cpu-clock:I", "cpu-clock:D", "cpu-clock:e",
	"cpu-clock:S", "cpu-clock:P", "cpu-clock:uG", "task-clock:GH",
	"cycles", "instructions:u", "branch-misses:k", "ref-cycles",
	"cache-misses:pp", "stalled-cycles-frontend",
	"L1-dcache-load-misses", "LLC-loads:u", "dTLB-store-misses",
	"iTLB-load-misses", "branch-loads", "node-prefetches",
	"l1i-speculative-read-access", "L1-dcache-misses-loads",
	"r1a8", "r0:u", "r53003c:k",
	"sched:sched_switch", "sched:sched_switch:u",
	"syscalls:sys_enter_getppid:k", "sched:sched_wak*",
	"syscalls:sys_enter_get*", "raw_syscalls:*",
	"mem:0x1000", "mem:0x1000:x", "mem:0x1000/8:w", "mem:0x2000:rw:u",
	"msr/tsc/", "msr/tsc/u", "tsc", "msr/event=1/", "msr/tsc,event=1/",
	"software/config=3/", "software/config=1/u", "tracepoint/config=0x10/",
	"cpu-clock/config=5,config1=3,config2=0x7/", "cycles/period=1000/",
	"cpu-clock/percore/", "L1-dcache-loads/name=foo/",
	"{cpu-clock,task-clock}", "{cpu-clock,task-clock}:u",
	"{cpu-clock:k,task-clock}:u", "{cpu-clock:D,task-clock:D}",
	"{cpu-clock,task-clock}:De", "{cpu-clock:G,task-clock}:u",
	"{cs,page-faults,sched:sched_switch}:k",
	"cpu-clock,task-clock,sched:sched_switch,mem:0x1000",
	"1:1", "1:0x3:u",
	"msr/event=0x10,config=0x1/", "msr/config=0x1,event=0x10/",
	"msr/event=0x1,event=0x2/", "msr/tsc,config=0x4/", "msr/event=0x10,r1/",
	"uprobe/ref_ctr_offset=3,config=0x5/", "uprobe/retprobe=1,retprobe=0/",
	"cycles, instructions", "cpu-clock/ config=1/", "{cpu-clock}",
	"{cpu-clock}:u", "cpu-clock/period=0x10/p", "cpu-clock:b",
	"cpu-clock/config=1,config=2/", "sched:sched_switch,sched:sched_switch",
	"duration_time", "user_time", "system_time:u",
	"grp{cpu-clock,task-clock}:k",
};

struct blocks {
	char *b[256];
	int n;
};

static void blocks_free(struct blocks *bl)
{
	for (int i = 0; i < bl->n; i++)
		free(bl->b[i]);
	bl->n = 0;
}

/* Runs perf and keeps the first attr block printed for each event. */
static int perf_blocks(const char *ev, struct blocks *bl)
{
	char cmd[1024], line[512], cur[4096];
	bool in = false, retry = false;
	size_t len = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "perf stat -vv -e '%s' true 2>&1", ev);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	bl->n = 0;
	while (fgets(line, sizeof(line), p)) {
		if (!strncmp(line, "perf_event_attr:", 16)) {
			in = true;
			len = 0;
			cur[0] = '\0';
			continue;
		}
		if (in && !strncmp(line, "  ", 2)) {
			len += (size_t)snprintf(cur + len, sizeof(cur) - len,
						"%s", line);
			continue;
		}
		if (in) {
			in = false;
			if (!retry && bl->n < 256)
				bl->b[bl->n++] = strdup(cur);
		}
		if (!strncmp(line, "sys_perf_event_open:", 20))
			retry = false;
		if (strstr(line, "switching off") ||
		    strstr(line, "decreasing precise_ip") ||
		    strstr(line, "fall back"))
			retry = true;
	}
	pclose(p);
	return 0;
}

static void stat_fields(struct pk_evlist *l)
{
	for (int i = 0; i < pk_evlist_nr(l); i++) {
		struct pk_evsel *e = pk_evlist_evsel(l, i);
		struct perf_event_attr *a = pk_evsel_attr(e);
		struct pk_evsel *lead = pk_evsel_leader(e);

		a->sample_type = PERF_SAMPLE_IDENTIFIER;
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
		if (pk_evsel_nr_members(lead) > 1)
			a->read_format |= PERF_FORMAT_ID | PERF_FORMAT_GROUP;
		a->inherit = 1;
		a->sample_period = 0;
		if (lead == e) {
			a->disabled = 1;
			/* perf opens duration_time on a CPU, not the task */
			a->enable_on_exec = pk_evsel_tool(e) !=
					    PK_TOOL_DURATION_TIME;
		}
	}
}

static void compare(const char *ev)
{
	struct blocks bl = { { 0 }, 0 };
	struct pk_parse_error err;
	struct pk_evlist *l = pk_evlist_new();
	int n = pk_evlist_parse(l, ev, &err);
	char name[300], mine[4096];

	snprintf(name, sizeof(name), "attr vs perf '%s'", ev);
	if (n < 1) {
		t_fail(name, "parse: %d %s", n, err.msg);
		goto out;
	}
	stat_fields(l);
	perf_blocks(ev, &bl);
	if (bl.n != n) {
		t_fail(name, "perf printed %d blocks, we have %d events", bl.n, n);
		goto out;
	}
	for (int i = 0; i < n; i++) {
		pk_attr_snprintf(mine, sizeof(mine),
				 pk_evsel_attr(pk_evlist_evsel(l, i)));
		if (strcmp(mine, bl.b[i])) {
			t_fail(name, "event %d differs:\n--- perf\n%s--- perfkit\n%s",
			       i, bl.b[i], mine);
			goto out;
		}
	}
	t_ok(name);
out:
	blocks_free(&bl);
	pk_evlist_free(l);
}

int main(void)
{
	if (system("perf --version >/dev/null 2>&1") != 0) {
		t_skip("attr vs perf", "perf is not installed");
		return t_exit();
	}
	if (access("/sys/kernel/tracing/events/sched", R_OK) &&
	    access("/sys/kernel/debug/tracing/events/sched", R_OK)) {
		t_skip("attr vs perf", "no tracefs (perf needs it too)");
		return t_exit();
	}
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		if (strstr(strs[i], "msr") || !strcmp(strs[i], "tsc")) {
			if (access("/sys/bus/event_source/devices/msr", R_OK)) {
				t_skip(strs[i], "no msr PMU");
				continue;
			}
		}
		compare(strs[i]);
	}
	return t_exit();
}
