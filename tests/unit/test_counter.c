/* SPDX-License-Identifier: MIT */
/*
 * Live counting on this machine: syscalls:sys_enter_getppid counts exactly
 * the getppid() calls of the getppid workload (or of this test) in every
 * pid/cpu mode, groups read in one read(2), every read_format, the control
 * ioctls, filters, period/refresh and prctl.
 */
#include <stdint.h>
#include <time.h>
#include <linux/hw_breakpoint.h>
#include <perfkit/counter.h>
#include <perfkit/event.h>
#include "counter_util.h"

#define N 4321

static int getppid_id;

/* A list holding ATTR once, opened on CPUS x THREADS. */
static struct pk_evlist *open1(struct perf_event_attr a, struct pk_cpu_map *c,
			       struct pk_thread_map *t, int *err)
{
	struct pk_evlist *l = pk_evlist_new();

	pk_evlist_add(l, &a, "sys_enter_getppid");
	*err = pk_evlist_open(l, c, t, NULL, false);
	if (*err < 0) {
		pk_evlist_free(l);
		return NULL;
	}
	return l;
}

/* Per-thread (pid = child, cpu = -1), inherit across the child's
 * threads, the count enabled at exec. */
static void test_per_thread(const char *threads, long want, const char *name)
{
	struct perf_event_attr a = tp_attr(getppid_id);
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm;
	struct pk_counts c;
	struct child ch;
	struct pk_evlist *l;
	int err, st;
	char nbuf[64];

	snprintf(nbuf, sizeof(nbuf), "%d", N);
	if (child_start(&ch, nbuf, threads)) {
		t_fail(name, "fork");
		return;
	}
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	tm = pk_thread_map_new_array(1, &ch.pid);
	l = open1(a, cpus, tm, &err);
	if (!l) {
		t_fail(name, "open: %s", pk_strerror(err));
		child_kill(&ch);
	} else {
		st = child_run(&ch);
		err = pk_evsel_read_sum(pk_evlist_evsel(l, 0), &c);
		t_check(!err && st == 0 && c.val == (uint64_t)want, name,
			"count %llu, want %ld (err %d, exit %d)",
			(unsigned long long)c.val, want, err, st);
		snprintf(nbuf, sizeof(nbuf), "%s_times", name);
		t_check(c.ena > 0 && c.run == c.ena, nbuf, "ena %llu run %llu",
			(unsigned long long)c.ena, (unsigned long long)c.run);
	}
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

/* pid = child on every CPU (pid > 0, cpu >= 0): the sum is exact. */
static void test_thread_on_cpus(void)
{
	struct perf_event_attr a = tp_attr(getppid_id);
	struct pk_cpu_map *cpus = pk_cpu_map_new(NULL);
	struct pk_thread_map *tm;
	struct pk_counts c = { 0 };
	struct child ch;
	struct pk_evlist *l;
	int err, st = -1;

	if (child_start(&ch, "1000", "2")) {
		t_fail("thread_on_cpus", "fork");
		return;
	}
	a.disabled = 1;
	a.enable_on_exec = 1;
	a.inherit = 1;
	tm = pk_thread_map_new_array(1, &ch.pid);
	l = open1(a, cpus, tm, &err);
	if (l) {
		st = child_run(&ch);
		err = pk_evsel_read_sum(pk_evlist_evsel(l, 0), &c);
	} else {
		child_kill(&ch);
	}
	t_check(l && !err && st == 0 && c.val == 2000, "thread_on_cpus",
		"count %llu want 2000 (%s)", (unsigned long long)c.val,
		pk_strerror(err));
	T_CHECK("thread_on_cpus_fds", l &&
		pk_evsel_fd(pk_evlist_evsel(l, 0), pk_cpu_map_nr(cpus) - 1, 0) >= 0 &&
		pk_evsel_fd(pk_evlist_evsel(l, 0), pk_cpu_map_nr(cpus), 0) == -EINVAL);
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

/* Attach to a running process through its pid (every thread of it). */
static void test_attach_pids(void)
{
	struct perf_event_attr a = tp_attr(getppid_id);
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = NULL;
	struct pk_evlist *l = NULL;
	struct pk_counts c = { 0 };
	int out[2], err = -1, st;
	char buf[16] = "", list[32];
	pid_t pid;

	if (pipe(out))
		return;
	pid = fork();
	if (pid == 0) {
		const char *wl = t_build("workloads/getppid");

		dup2(out[1], 1);
		execl(wl, wl, "777", "--wait", "--threads", "3", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	if (read(out[0], buf, sizeof(buf) - 1) <= 0 || strncmp(buf, "ready", 5)) {
		t_fail("attach_pids", "workload not ready: '%s'", buf);
		kill(pid, SIGKILL);
		goto out;
	}
	a.inherit = 1;
	snprintf(list, sizeof(list), "%d", pid);
	tm = pk_thread_map_new_pids(list);
	if (tm)
		l = open1(a, cpus, tm, &err);
	kill(pid, SIGUSR1);
out:
	waitpid(pid, &st, 0);
	if (l)
		err = pk_evsel_read_sum(pk_evlist_evsel(l, 0), &c);
	t_check(l && !err && c.val == 3 * 777, "attach_pids",
		"count %llu want %d (%s)", (unsigned long long)c.val, 3 * 777,
		pk_strerror(err));
	close(out[0]);
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

/* Every task on every CPU (pid = -1, cpu >= 0): at least N. */
static void test_cpu_wide(void)
{
	struct perf_event_attr a = tp_attr(getppid_id);
	struct pk_cpu_map *cpus = pk_cpu_map_new(NULL);
	struct pk_thread_map *tm = pk_thread_map_new_any();
	struct pk_counts c = { 0 }, one;
	struct child ch;
	struct pk_evlist *l;
	uint64_t per_cpu = 0;
	int err, st = -1;
	char nbuf[32];

	snprintf(nbuf, sizeof(nbuf), "%d", N);
	if (child_start(&ch, nbuf, NULL))
		return;
	l = open1(a, cpus, tm, &err);
	if (l) {
		st = child_run(&ch);
		err = pk_evsel_read_sum(pk_evlist_evsel(l, 0), &c);
		for (int i = 0; i < pk_cpu_map_nr(cpus); i++)
			if (!pk_evsel_read(pk_evlist_evsel(l, 0), i, 0, &one))
				per_cpu += one.val;
	} else {
		child_kill(&ch);
	}
	t_check(l && !err && st == 0 && c.val >= N, "cpu_wide",
		"count %llu want >= %d (%s)", (unsigned long long)c.val, N,
		pk_strerror(err));
	T_CHECK("cpu_wide_sum_of_cpus", per_cpu >= c.val);
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

/* A group {getppid, task-clock} on the child, read in one read with
 * GROUP|ID|times|LOST; ids agree with PERF_EVENT_IOC_ID. */
static void test_group_child(void)
{
	uint64_t rf = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST |
		      PERF_FORMAT_TOTAL_TIME_ENABLED |
		      PERF_FORMAT_TOTAL_TIME_RUNNING;
	struct perf_event_attr lead = tp_attr(getppid_id);
	struct perf_event_attr mem = sw_attr(PERF_COUNT_SW_TASK_CLOCK);
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm;
	struct pk_evlist *l = pk_evlist_new();
	struct pk_counts g[4], m1;
	uint64_t id0 = 0, id1 = 0;
	struct child ch;
	int n = -1, err, st = -1;
	char nbuf[32];

	snprintf(nbuf, sizeof(nbuf), "%d", N);
	if (child_start(&ch, nbuf, NULL))
		return;
	lead.read_format = mem.read_format = rf;
	lead.disabled = 1;
	lead.enable_on_exec = 1;
	pk_evlist_add(l, &lead, "getppid");
	pk_evlist_add(l, &mem, "task-clock");
	pk_evlist_group(l, 0, 2);
	tm = pk_thread_map_new_array(1, &ch.pid);
	err = pk_evlist_open(l, cpus, tm, NULL, false);
	if (err == 2) {
		st = child_run(&ch);
		n = pk_evsel_read_group(pk_evlist_evsel(l, 0), 0, 0, g, 4);
		pk_evsel_id(pk_evlist_evsel(l, 0), 0, 0, &id0);
		pk_evsel_id(pk_evlist_evsel(l, 1), 0, 0, &id1);
	} else {
		child_kill(&ch);
	}
	t_check(n == 2 && st == 0 && g[0].val == N, "group_read_getppid",
		"n %d, count %llu (open %d)", n, (unsigned long long)g[0].val, err);
	T_CHECK("group_read_task_clock", n == 2 && g[1].val > 0);
	T_CHECK("group_read_times", n == 2 && g[0].ena > 0 &&
		g[0].ena == g[1].ena && g[0].run == g[0].ena);
	T_CHECK("group_ioc_id", n == 2 && id0 && id1 && id0 != id1 &&
		g[0].id == id0 && g[1].id == id1);
	T_CHECK("group_lost_zero", n == 2 && g[0].lost == 0 && g[1].lost == 0);
	err = pk_evsel_read(pk_evlist_evsel(l, 1), 0, 0, &m1);
	T_CHECK("group_member_read", n == 2 && !err && m1.val == g[1].val &&
		m1.id == id1);
	T_CHECK("group_read_max_small",
		pk_evsel_read_group(pk_evlist_evsel(l, 0), 0, 0, g, 1) ==
		PK_ERR_RANGE);
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

/* The calling thread (pid 0, cpu -1). */
static struct pk_thread_map *self_map(void)
{
	static const int self = 0;

	return pk_thread_map_new_array(1, &self);
}

/* Every read_format on a group of two getppid counters on this thread. */
static void test_all_read_formats(void)
{
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = self_map();
	int bad = 0, bad_rf = -1;

	for (uint64_t rf = 0; rf < 32; rf++) {
		struct perf_event_attr a = tp_attr(getppid_id);
		struct pk_evlist *l = pk_evlist_new();
		struct pk_counts c0 = { 0 }, c1 = { 0 }, g[2];
		int err, n = 2;

		a.read_format = rf;
		a.disabled = 1;
		pk_evlist_add(l, &a, "a");
		a.disabled = 0;
		pk_evlist_add(l, &a, "b");
		pk_evlist_group(l, 0, 2);
		err = pk_evlist_open(l, cpus, tm, NULL, false);
		if (err == 2) {
			pk_evsel_enable(pk_evlist_evsel(l, 0), false);
			call_getppid(37);
			pk_evsel_disable(pk_evlist_evsel(l, 0), false);
			err = pk_evsel_read(pk_evlist_evsel(l, 0), 0, 0, &c0);
			err |= pk_evsel_read(pk_evlist_evsel(l, 1), 0, 0, &c1);
			if (rf & PERF_FORMAT_GROUP)
				n = pk_evsel_read_group(pk_evlist_evsel(l, 0),
							0, 0, g, 2);
		}
		if (err || c0.val != 37 || c1.val != 37 || n != 2 ||
		    (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) != !!c0.ena)) {
			bad++;
			bad_rf = (int)rf;
		}
		pk_evlist_free(l);
	}
	t_check(!bad, "read_format_all_live", "%d formats wrong, e.g. 0x%x",
		bad, bad_rf);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

static uint64_t val_of(struct pk_evlist *l, int i)
{
	struct pk_counts c = { 0 };

	pk_evsel_read(pk_evlist_evsel(l, i), 0, 0, &c);
	return c.val;
}

static void test_enable_disable_reset(void)
{
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = self_map();
	struct perf_event_attr a = tp_attr(getppid_id);
	struct pk_evlist *l;
	struct pk_evsel *e;
	int err;

	a.disabled = 1;
	l = open1(a, cpus, tm, &err);
	if (!l) {
		t_fail("enable_disable", "open: %s", pk_strerror(err));
		goto out;
	}
	e = pk_evlist_evsel(l, 0);
	call_getppid(10);
	T_CHECK("starts_disabled", val_of(l, 0) == 0);
	T_CHECK("enable_ok", pk_evsel_enable(e, false) == 0);
	call_getppid(20);
	T_CHECK("enabled_counts", val_of(l, 0) == 20);
	T_CHECK("disable_ok", pk_evsel_disable(e, false) == 0);
	call_getppid(5);
	T_CHECK("disabled_stops", val_of(l, 0) == 20);
	T_CHECK("reset_ok", pk_evsel_reset(e, false) == 0);
	T_CHECK("reset_zero", val_of(l, 0) == 0);
	T_CHECK("evlist_enable", pk_evlist_enable(l) == 0);
	call_getppid(3);
	T_CHECK("evlist_disable", pk_evlist_disable(l) == 0);
	call_getppid(3);
	T_CHECK("evlist_counts", val_of(l, 0) == 3);
	T_CHECK("evlist_reset", pk_evlist_reset(l) == 0 && val_of(l, 0) == 0);
	pk_evlist_free(l);
out:
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

/* PERF_IOC_FLAG_GROUP through a member's fd. */
static void test_group_flag(void)
{
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = self_map();
	struct perf_event_attr a = tp_attr(getppid_id);
	struct pk_evlist *l = pk_evlist_new();
	struct pk_evsel *lead, *mem;

	a.disabled = 1;
	pk_evlist_add(l, &a, "lead");
	a.disabled = 0;
	pk_evlist_add(l, &a, "member");
	pk_evlist_group(l, 0, 2);
	if (pk_evlist_open(l, cpus, tm, NULL, false) != 2) {
		t_fail("group_flag", "open");
		goto out;
	}
	lead = pk_evlist_evsel(l, 0);
	mem = pk_evlist_evsel(l, 1);
	pk_evsel_enable(mem, false);	/* the leader stays off */
	call_getppid(10);
	T_CHECK("group_flag_leader_off", val_of(l, 0) == 0 && val_of(l, 1) == 0);
	T_CHECK("group_flag_enable", pk_evsel_enable(mem, true) == 0);
	call_getppid(10);
	T_CHECK("group_flag_enable_counts", val_of(l, 0) == 10 &&
		val_of(l, 1) == 10);
	pk_evsel_disable(mem, false);	/* only the member */
	call_getppid(10);
	T_CHECK("no_group_flag_disable", val_of(l, 0) == 20 &&
		val_of(l, 1) == 10);
	pk_evsel_enable(mem, false);
	pk_evsel_reset(lead, false);	/* only the leader */
	T_CHECK("no_group_flag_reset", val_of(l, 0) == 0 && val_of(l, 1) == 10);
	pk_evsel_reset(mem, true);	/* the whole group */
	T_CHECK("group_flag_reset", val_of(l, 0) == 0 && val_of(l, 1) == 0);
	pk_evsel_disable(mem, true);
	call_getppid(10);
	T_CHECK("group_flag_disable", val_of(l, 0) == 0 && val_of(l, 1) == 0);
out:
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

static void test_filter(void)
{
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = self_map();
	struct perf_event_attr a = tp_attr(getppid_id);
	struct pk_evlist *l = pk_evlist_new();
	struct pk_evsel *none, *all;
	int err;

	pk_evlist_add(l, &a, "none");
	pk_evlist_add(l, &a, "all");
	none = pk_evlist_evsel(l, 0);
	all = pk_evlist_evsel(l, 1);
	/* One set before open (applied at open), one after. */
	T_CHECK("filter_before_open",
		pk_evsel_set_filter(none, "__syscall_nr == -1") == 0);
	if (pk_evlist_open(l, cpus, tm, NULL, false) != 2) {
		t_fail("filter", "open");
		goto out;
	}
	T_CHECK("filter_after_open",
		pk_evsel_set_filter(all, "__syscall_nr >= 0") == 0);
	pk_evlist_reset(l);
	call_getppid(50);
	T_CHECK("filter_excludes_all", val_of(l, 0) == 0);
	T_CHECK("filter_keeps_all", val_of(l, 1) == 50);
	err = pk_evsel_set_filter(all, "__syscall_nr < 0");
	t_check(err == -EEXIST, "filter_twice_eexist", "gave %d", err);
	pk_evlist_close(l);
	pk_evsel_set_filter(all, NULL);
	err = pk_evlist_open(l, cpus, tm, NULL, false);
	T_CHECK("filter_reopen_keeps", err == 2);
	err = pk_evsel_set_filter(all, "no_such_field == 1");
	t_check(err == -EINVAL, "filter_bad", "gave %d", err);
out:
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

static void burn_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 +
	       (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* A sampling task-clock: REFRESH enables it for one overflow, after which
 * the kernel disables it; PERIOD changes the period. */
static void test_period_refresh(void)
{
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = self_map();
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_TASK_CLOCK);
	struct pk_evlist *l = pk_evlist_new();
	struct pk_evsel *s, *cnt;
	uint64_t v1, v2;

	a.disabled = 1;
	a.sample_period = 2000000;	/* 2 ms */
	pk_evlist_add(l, &a, "sampling");
	a.sample_period = 0;
	pk_evlist_add(l, &a, "counting");
	if (pk_evlist_open(l, cpus, tm, NULL, false) != 2) {
		t_fail("period_refresh", "open");
		goto out;
	}
	s = pk_evlist_evsel(l, 0);
	cnt = pk_evlist_evsel(l, 1);
	T_CHECK("period_set", pk_evsel_set_period(s, 1000000) == 0);
	T_CHECK("period_zero_einval", pk_evsel_set_period(s, 0) == -EINVAL);
	T_CHECK("period_counting_einval",
		pk_evsel_set_period(cnt, 1000000) == -EINVAL);
	T_CHECK("refresh_counting_einval", pk_evsel_refresh(cnt, 1) == -EINVAL);
	T_CHECK("refresh_ok", pk_evsel_refresh(s, 1) == 0);
	burn_ms(60);
	v1 = val_of(l, 0);
	burn_ms(20);
	v2 = val_of(l, 0);
	/* One 1 ms period then off: far below the 80 ms burnt. */
	t_check(v1 >= 1000000 && v1 < 20000000 && v2 == v1, "refresh_limits",
		"task-clock %llu then %llu ns", (unsigned long long)v1,
		(unsigned long long)v2);
	T_CHECK("refresh_again", pk_evsel_refresh(s, 2) == 0);
	burn_ms(40);
	v2 = val_of(l, 0);
	t_check(v2 > v1 && v2 < v1 + 20000000, "refresh_two_periods",
		"%llu -> %llu", (unsigned long long)v1, (unsigned long long)v2);
out:
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

/* prctl(PR_TASK_PERF_EVENTS_DISABLE/ENABLE) around a region of this test. */
static void test_prctl(void)
{
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = self_map();
	struct perf_event_attr a = tp_attr(getppid_id);
	struct pk_evlist *l;
	int err;

	l = open1(a, cpus, tm, &err);
	if (!l) {
		t_fail("prctl", "open: %s", pk_strerror(err));
		goto out;
	}
	call_getppid(11);
	T_CHECK("prctl_disable", pk_task_events_disable() == 0);
	call_getppid(100);
	T_CHECK("prctl_enable", pk_task_events_enable() == 0);
	call_getppid(22);
	t_check(val_of(l, 0) == 33, "prctl_region_not_counted", "count %llu",
		(unsigned long long)val_of(l, 0));
	pk_evlist_free(l);
out:
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

static volatile int watched_a, watched_b;

/* A write breakpoint on a variable of this test; then moved to another
 * variable with PERF_EVENT_IOC_MODIFY_ATTRIBUTES. */
static void test_breakpoint(void)
{
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = self_map();
	struct pk_evlist *l = pk_evlist_new();
	struct perf_event_attr a;
	bool fires;
	int err;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_W;
	a.bp_addr = (uintptr_t)&watched_a;
	a.bp_len = HW_BREAKPOINT_LEN_4;
	a.sample_period = 1;
	a.exclude_kernel = 1;
	pk_evlist_add(l, &a, "mem:watched_a:w");
	err = pk_evlist_open(l, cpus, tm, NULL, false);
	if (err < 0) {
		t_skip("breakpoint", "cannot open a breakpoint: %s",
		       pk_strerror(err));
		goto out;
	}
	for (int i = 0; i < 25; i++)
		watched_a = i;
	watched_b = 1;
	fires = val_of(l, 0) != 0;
	if (fires)
		t_check(val_of(l, 0) == 25, "breakpoint_write_count", "%llu",
			(unsigned long long)val_of(l, 0));
	else
		t_skip("breakpoint_write_count",
		       "breakpoints open but never fire on this machine");
	a.bp_addr = (uintptr_t)&watched_b;
	err = pk_evsel_modify_attr(pk_evlist_evsel(l, 0), &a);
	t_check(err == 0, "breakpoint_modify", "%s", pk_strerror(err));
	pk_evsel_reset(pk_evlist_evsel(l, 0), false);
	for (int i = 0; i < 7; i++)
		watched_b = i;
	watched_a = 1;
	if (fires)
		t_check(val_of(l, 0) == 7, "breakpoint_modified_count", "%llu",
			(unsigned long long)val_of(l, 0));
	T_CHECK("breakpoint_attr_updated",
		pk_evsel_attr(pk_evlist_evsel(l, 0))->bp_addr ==
		(uintptr_t)&watched_b);
out:
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

int main(void)
{
	char name[64];

	getppid_id = tp_id("syscalls", "sys_enter_getppid");
	if (getppid_id < 0) {
		t_skip("counter_live", "no syscalls:sys_enter_getppid in tracefs");
		return t_exit();
	}
	if (access(t_build("workloads/getppid"), X_OK)) {
		t_fail("counter_live", "%s missing: run make",
		       t_build("workloads/getppid"));
		return t_exit();
	}
	test_per_thread(NULL, N, "per_thread_exact");
	snprintf(name, sizeof(name), "per_thread_inherit_threads");
	test_per_thread("3", 3L * N, name);
	test_thread_on_cpus();
	test_attach_pids();
	test_cpu_wide();
	test_group_child();
	test_all_read_formats();
	test_enable_disable_reset();
	test_group_flag();
	test_filter();
	test_period_refresh();
	test_prctl();
	test_breakpoint();
	return t_exit();
}
