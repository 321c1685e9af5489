/* SPDX-License-Identifier: MIT */
/*
 * The tracefs layer end to end against a tree of regular files built here
 * (this machine refuses function tracers and lacks the stack tracer,
 * profiler, snapshot and graph files): the exact writes each call makes
 * (PERFKIT_TRACEFS_LOG), the ftrace_enabled rule, filter commands removed
 * with their "!" form, and every file put back at close.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "test.h"

static char root[256], tfs[300], sys[300], logp[300];

static void put(const char *base, const char *rel, const char *text)
{
	char p[1024], d[1024];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	for (char *s = strchr(p + strlen(base) + 1, '/'); s;
	     s = strchr(s + 1, '/')) {
		snprintf(d, sizeof(d), "%.*s", (int)(s - p), p);
		mkdir(d, 0755);
	}
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *get(const char *base, const char *rel)
{
	static char buf[8192];
	char p[1024];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	FILE *f = fopen(p, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	return f ? buf : "<missing>";
}

/* The log since the last call, as one string. */
static char *take_log(void)
{
	static char buf[16384];
	static long at;
	FILE *f = fopen(logp, "r");
	size_t n = 0;
	if (f) {
		fseek(f, at, SEEK_SET);
		n = fread(buf, 1, sizeof(buf) - 1, f);
		at += (long)n;
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

static bool log_is(const char *want)
{
	char *got = take_log();
	if (strcmp(got, want)) {
		printf("# log:\n%s# wanted:\n%s", got, want);
		return false;
	}
	return true;
}

static void build(const char *ftrace_enabled)
{
	static const char *const top[][2] = {
		{ "available_tracers", "blk function function_graph wakeup nop\n" },
		{ "current_tracer", "nop\n" },
		{ "tracing_on", "1\n" },
		{ "tracing_thresh", "0\n" },
		{ "tracing_max_latency", "0\n" },
		{ "max_graph_depth", "0\n" },
		{ "hwlat_detector/width", "500000\n" },
		{ "hwlat_detector/window", "1000000\n" },
		{ "options/func_stack_trace", "0\n" },
		{ "options/funcgraph-proc", "0\n" },
		{ "options/function-fork", "0\n" },
		{ "options/event-fork", "0\n" },
		{ "options/overwrite", "1\n" },
		{ "options/nosuchthing-off", "0\n" },
		{ "set_ftrace_filter", "#### all functions enabled ####\n" },
		{ "set_ftrace_notrace", "vfs_read\n" },
		{ "set_graph_function", "#### all functions enabled ####\n" },
		{ "set_graph_notrace", "#### no functions disabled ####\n" },
		{ "set_ftrace_pid", "no pid\n" },
		{ "set_event_pid", "" },
		{ "set_event_notrace_pid", "" },
		{ "buffer_size_kb", "1410\n" },
		{ "per_cpu/cpu0/buffer_size_kb", "1410\n" },
		{ "per_cpu/cpu1/buffer_size_kb", "1410\n" },
		{ "per_cpu/cpu0/stats", "entries: 5\noverrun: 1\ncommit overrun: 0\n"
		  "bytes: 320\noldest event ts:  9750.108725\nnow ts:  9751.000001\n"
		  "dropped events: 2\nread events: 3\n" },
		{ "tracing_cpumask", "3\n" },
		{ "snapshot", "# tracer: nop\n#\n# * Snapshot is freed *\n#\n" },
		{ "stack_trace", "        Depth    Size   Location    (3 entries)\n"
		  "        -----    ----   --------\n"
		  "  0)     2928     224   update_sd_lb_stats+0xbc/0x4ac\n" },
		{ "stack_max_size", "2928\n" },
		{ "stack_trace_filter", "#### all functions enabled ####\n" },
		{ "function_profile_enabled", "0\n" },
		{ "trace_stat/function0",
		  "  Function                               Hit    Time            Avg             s^2\n"
		  "  --------                               ---    ----            ---             ---\n"
		  "  schedule                                10    100.000 us      10.000 us       4.000 us    \n"
		  "  do_idle                                  2    50.500 us       25.250 us       0.500 us    \n" },
		{ "trace_stat/function1",
		  "  Function                               Hit    Time            Avg             s^2\n"
		  "  --------                               ---    ----            ---             ---\n"
		  "  schedule                                30    600.000 us      20.000 us       9.000 us    \n" },
		{ "trace_marker", "" },
		{ "trace_marker_raw", "" },
		{ "events/sched/sched_switch/enable", "0\n" },
		{ "events/sched/sched_switch/filter", "none\n" },
		{ "events/sched/sched_switch/trigger", "# Available triggers:\n" },
	};
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		put(tfs, top[i][0], top[i][1]);
	mkdir(tfs, 0755);
	char p[400];
	snprintf(p, sizeof(p), "%s/instances", tfs);
	mkdir(p, 0755);
	put(sys, "ftrace_enabled", ftrace_enabled);
	put(sys, "stack_tracer_enabled", "0\n");
}

/* Text with '#' lines, "no pid" and white space dropped. */
static char *norm(const char *s)
{
	static char out[8192];
	size_t n = 0;
	const char *l = s;
	while (*l) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		if (*l != '#' && strncmp(l, "no pid", 6))
			for (size_t i = 0; i < len && n < sizeof(out) - 1; i++)
				if (l[i] != ' ' && l[i] != '\t')
					out[n++] = l[i];
		l += len + (e ? 1 : 0);
	}
	out[n] = 0;
	return out;
}

static bool same_norm(const char *rel, const char *want)
{
	char w[8192];
	snprintf(w, sizeof(w), "%s", norm(want));
	char *g = norm(get(tfs, rel));
	if (strcmp(g, w)) {
		printf("# %s: '%s', wanted '%s'\n", rel, g, w);
		return false;
	}
	return true;
}

static void test_profile_parse(void)
{
	struct pk_func_profile *p = NULL;
	int n = 0;
	bool ht = false;
	int r = pk_func_profile_parse(get(tfs, "trace_stat/function0"), &p, &n,
				      &ht);
	r |= pk_func_profile_parse(get(tfs, "trace_stat/function1"), &p, &n,
				   &ht);
	T_CHECK("profile_parse", r == 0 && n == 3 && ht);
	pk_func_profile_merge(p, &n);
	/* schedule: 40 hits, 700 us; s^2 from (n, mean, s^2) of both CPUs:
	 * (4*9 + 10*10^2 + 9*29 + 30*20^2 - 700^2/40) / 39 */
	double s2 = (36.0 + 1000 + 261 + 12000 - 700.0 * 700 / 40) / 39;
	T_CHECK("profile_merge", n == 2 && !strcmp(p[0].name, "schedule") &&
		p[0].hit == 40 && fabs(p[0].time_us - 700) < 1e-9 &&
		fabs(p[0].avg_us - 17.5) < 1e-9 && fabs(p[0].s2_us - s2) < 1e-6 &&
		!strcmp(p[1].name, "do_idle") && p[1].hit == 2);
	free(p);
	p = NULL;
	n = 0;
	ht = false;
	r = pk_func_profile_parse("  Function  Hit\n  --------  ---\n"
				  "  kfree  77\n  kmalloc  99\n", &p, &n, &ht);
	pk_func_profile_merge(p, &n);
	T_CHECK("profile_hits_only", r == 0 && n == 2 && !ht &&
		!strcmp(p[0].name, "kmalloc") && p[0].hit == 99);
	free(p);
	p = NULL;
	n = 0;
	r = pk_func_profile_parse("  schedule  x12\n", &p, &n, NULL);
	T_CHECK("profile_bad_hits", r == PK_ERR_FORMAT);
	r = pk_func_profile_parse("  schedule  3  1.0 ms\n", &p, &n, NULL);
	T_CHECK("profile_bad_unit", r == PK_ERR_FORMAT);
	free(p);
}

static void test_commands(void)
{
	char b[128];
	T_CHECK("cmd_undo_traceoff",
		!pk_ftrace_command_undo("__schedule_bug:traceoff", b, sizeof(b)) &&
		!strcmp(b, "!__schedule_bug:traceoff"));
	T_CHECK("cmd_undo_traceoff_count",
		!pk_ftrace_command_undo("__schedule_bug:traceoff:5", b, sizeof(b)) &&
		!strcmp(b, "!__schedule_bug:traceoff:0"));
	T_CHECK("cmd_undo_enable_event",
		!pk_ftrace_command_undo("try_to_wake_up:enable_event:sched:sched_switch:2",
					b, sizeof(b)) &&
		!strcmp(b, "!try_to_wake_up:enable_event:sched:sched_switch:0"));
	T_CHECK("cmd_undo_disable_event",
		!pk_ftrace_command_undo("schedule:disable_event:sched:sched_switch",
					b, sizeof(b)) &&
		!strcmp(b, "!schedule:disable_event:sched:sched_switch"));
	T_CHECK("cmd_undo_snapshot",
		!pk_ftrace_command_undo("native_flush_tlb_others:snapshot:1", b,
					sizeof(b)) &&
		!strcmp(b, "!native_flush_tlb_others:snapshot:0"));
	T_CHECK("cmd_undo_dump", !pk_ftrace_command_undo("f:dump", b, sizeof(b)) &&
		!strcmp(b, "!f:dump"));
	T_CHECK("cmd_undo_bad",
		pk_ftrace_command_undo("f:nosuch", b, sizeof(b)) == -EINVAL &&
		pk_ftrace_command_undo("f:dump:3", b, sizeof(b)) == -EINVAL &&
		pk_ftrace_command_undo("f:enable_event:sched", b, sizeof(b)) ==
		-EINVAL &&
		pk_ftrace_command_undo("f", b, sizeof(b)) == -EINVAL &&
		pk_ftrace_command_undo("f:traceoff", b, 5) == -ENAMETOOLONG);
}

/* Event specs as trace-cmd record's -e resolves them (a bare name is a
 * system or an event of any system, globs both; ftrace only by name),
 * pk_tracefs_keep (nothing put back) and pk_tracefs_ftrace_enabled. */
static void test_event_specs(void)
{
	static const char *const evs[] = { "sched/sched_switch",
		"sched/sched_stat_runtime", "sched/sched_wakeup",
		"syscalls/sys_enter_getppid", "statx/statx_done",
		"ftrace/print", "net/net_dev_start_xmit" };
	struct pk_tracefs *t;
	char rel[400];
	int r;

	build("1\n");
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		snprintf(rel, sizeof(rel), "events/%s/enable", evs[i]);
		put(tfs, rel, "0\n");
	}
	take_log();
	t = pk_tracefs_open_at(tfs, sys);
	if (!T_CHECK("specs_open", t != NULL))
		return;
	r = pk_tracefs_event_enable(t, NULL, "sched_switch", true);
	T_CHECK("spec_bare_event", r == 1 &&
		log_is("W events/sched/sched_switch/enable 1\n"));
	r = pk_tracefs_event_enable(t, NULL, "sched", true);
	T_CHECK("spec_bare_system", r == 3 &&
		log_is("W events/sched/sched_stat_runtime/enable 1\n"
		       "W events/sched/sched_switch/enable 1\n"
		       "W events/sched/sched_wakeup/enable 1\n"));
	/* a glob: the statx system whole and sched_stat_runtime */
	r = pk_tracefs_event_enable(t, NULL, "*stat*", false);
	T_CHECK("spec_bare_glob", r == 2 &&
		log_is("W events/sched/sched_stat_runtime/enable 0\n"
		       "W events/statx/statx_done/enable 0\n"));
	T_CHECK("spec_bare_not_ftrace",
		pk_tracefs_event_enable(t, NULL, "print", true) == -ENOENT &&
		pk_tracefs_event_enable(t, NULL, "nosuch", true) == -ENOENT &&
		log_is(""));
	r = pk_tracefs_event_enable(t, NULL, "*:sched_w*", true);
	T_CHECK("spec_system_event", r == 1 &&
		log_is("W events/sched/sched_wakeup/enable 1\n"));
	r = pk_tracefs_ftrace_enabled(t, true);
	T_CHECK("ftrace_enabled_same", r == 0 && log_is(""));
	r = pk_tracefs_ftrace_enabled(t, false);
	snprintf(rel, sizeof(rel), "W %s/ftrace_enabled 0\n", sys);
	T_CHECK("ftrace_enabled_off", r == 0 && log_is(rel) &&
		!strcmp(get(sys, "ftrace_enabled"), "0"));
	pk_tracefs_free(t);
	T_CHECK("specs_restored",
		!strcmp(get(tfs, "events/sched/sched_switch/enable"), "0") &&
		!strcmp(get(tfs, "events/statx/statx_done/enable"), "0") &&
		!strcmp(get(sys, "ftrace_enabled"), "1"));
	/* keep: the same changes, nothing put back */
	take_log();
	t = pk_tracefs_open_at(tfs, sys);
	if (!t)
		return;
	pk_tracefs_event_enable(t, NULL, "sched_switch", true);
	pk_tracefs_ftrace_enabled(t, false);
	take_log();
	pk_tracefs_keep(t);
	pk_tracefs_free(t);
	T_CHECK("keep", log_is("") &&
		!strcmp(get(tfs, "events/sched/sched_switch/enable"), "1") &&
		!strcmp(get(sys, "ftrace_enabled"), "0"));
}

int main(void)
{
	struct pk_tracefs *t = NULL;
	int r;

	snprintf(root, sizeof(root), "/tmp/pkfaketfs.XXXXXX");
	if (!mkdtemp(root)) {
		t_fail("fake_tree", "mkdtemp: %s", strerror(errno));
		return t_exit();
	}
	snprintf(tfs, sizeof(tfs), "%s/tracing", root);
	snprintf(sys, sizeof(sys), "%s/sys", root);
	snprintf(logp, sizeof(logp), "%s/log", root);
	mkdir(tfs, 0755);
	mkdir(sys, 0755);
	build("0\n");
	setenv("PERFKIT_TRACEFS_LOG", logp, 1);
	test_commands();
	test_profile_parse();

	T_CHECK("open_at_missing",
		((t = pk_tracefs_open_at("/nonexistent/x", NULL)) ? 0 : -errno) == -ENOENT);
	t = pk_tracefs_open_at(tfs, sys);
	r = t ? 0 : -errno;
	if (!T_CHECK("open_at", r == 0))
		return t_exit();
	T_CHECK("has", pk_tracefs_has(t, NULL, "stack_trace") &&
		!pk_tracefs_has(t, NULL, "nosuchfile"));

	/* tracers: the ftrace_enabled rule */
	T_CHECK("tracer_unknown", pk_tracefs_tracer(t, NULL, "mmiotrace") ==
		-ENOENT && !strcmp(take_log(), ""));
	T_CHECK("tracer_nop_no_sysctl",
		pk_tracefs_tracer(t, NULL, "wakeup") == 0 &&
		log_is("W current_tracer wakeup\n"));
	r = pk_tracefs_tracer(t, NULL, "function");
	T_CHECK("tracer_function_enables_ftrace",
		r == 0 && !strcmp(get(sys, "ftrace_enabled"), "1") &&
		!strcmp(get(tfs, "current_tracer"), "function"));
	char want[2048];
	snprintf(want, sizeof(want), "W %s/ftrace_enabled 1\n"
		 "W current_tracer function\n", sys);
	T_CHECK("tracer_function_log", log_is(want));

	/* tracer options and values */
	T_CHECK("option_spec",
		!pk_tracefs_option_spec(t, NULL, "func_stack_trace") &&
		!pk_tracefs_option_spec(t, NULL, "nooverwrite") &&
		!pk_tracefs_option_spec(t, NULL, "funcgraph-proc") &&
		pk_tracefs_option_spec(t, NULL, "nonesuch") == -ENOENT &&
		pk_tracefs_option_spec(t, NULL, "no") == -ENOENT &&
		pk_tracefs_option_spec(t, NULL, "a/b") == -EINVAL &&
		log_is("W options/func_stack_trace 1\nW options/overwrite 0\n"
		       "W options/funcgraph-proc 1\n"));
	T_CHECK("write_u64",
		!pk_tracefs_write_u64(t, NULL, "max_graph_depth", 3) &&
		!pk_tracefs_write_u64(t, NULL, "tracing_thresh", 100) &&
		!pk_tracefs_write_u64(t, NULL, "tracing_max_latency", 0) &&
		!pk_tracefs_write_u64(t, NULL, "hwlat_detector/width", 1000) &&
		!pk_tracefs_write_u64(t, NULL, "hwlat_detector/window", 2000) &&
		log_is("W max_graph_depth 3\nW tracing_thresh 100\n"
		       "W tracing_max_latency 0\nW hwlat_detector/width 1000\n"
		       "W hwlat_detector/window 2000\n"));
	uint64_t v = 0;
	T_CHECK("read_u64", !pk_tracefs_read_u64(t, NULL, "hwlat_detector/width",
						  &v) && v == 1000);

	/* function lists, globs, mod:, indexes, commands */
	T_CHECK("func_add",
		!pk_tracefs_func_add(t, NULL, PK_FT_FILTER, "hrtimer_*") &&
		!pk_tracefs_func_add(t, NULL, PK_FT_FILTER, "write*:mod:ext3") &&
		!pk_tracefs_func_add(t, NULL, PK_FT_FILTER, "1 50") &&
		!pk_tracefs_func_add(t, NULL, PK_FT_FILTER,
				     "__schedule_bug:traceoff:5") &&
		!pk_tracefs_func_add(t, NULL, PK_FT_FILTER,
				     "try_to_wake_up:enable_event:sched:sched_switch:2") &&
		!pk_tracefs_func_add(t, NULL, PK_FT_FILTER, "schedule:stacktrace") &&
		!pk_tracefs_func_add(t, NULL, PK_FT_NOTRACE, "*lock*") &&
		!pk_tracefs_func_add(t, NULL, PK_FT_GRAPH, "__do_fault") &&
		!pk_tracefs_func_add(t, NULL, PK_FT_GRAPH_NOTRACE, "irq_*") &&
		log_is("A set_ftrace_filter hrtimer_*\n"
		       "A set_ftrace_filter write*:mod:ext3\n"
		       "A set_ftrace_filter 1 50\n"
		       "A set_ftrace_filter __schedule_bug:traceoff:5\n"
		       "A set_ftrace_filter try_to_wake_up:enable_event:sched:sched_switch:2\n"
		       "A set_ftrace_filter schedule:stacktrace\n"
		       "A set_ftrace_notrace *lock*\n"
		       "A set_graph_function __do_fault\n"
		       "A set_graph_notrace irq_*\n"));
	T_CHECK("func_add_bad",
		pk_tracefs_func_add(t, NULL, PK_FT_FILTER, "f:nosuchcmd") == -EINVAL &&
		pk_tracefs_func_add(t, NULL, PK_FT_NOTRACE, "f:traceoff") == -EINVAL &&
		!strcmp(take_log(), ""));

	/* pids with fork following */
	T_CHECK("pid_add",
		!pk_tracefs_pid_add(t, NULL, 1234, PK_PID_FUNCTIONS |
				    PK_PID_EVENTS | PK_PID_FORK) &&
		!pk_tracefs_pid_add(t, NULL, 99, PK_PID_EVENTS | PK_PID_NOTRACE) &&
		pk_tracefs_pid_add(t, NULL, 5, 0) == -EINVAL &&
		log_is("W options/function-fork 1\nA set_ftrace_pid 1234\n"
		       "W options/event-fork 1\nA set_event_pid 1234\n"
		       "A set_event_notrace_pid 99\n"));

	/* buffers and CPU mask */
	int cpus[] = { 0, 5, 33 };
	T_CHECK("buffers",
		!pk_tracefs_buffer_kb(t, NULL, 1, 64) &&
		!pk_tracefs_buffer_kb(t, NULL, -1, 2048) &&
		!pk_tracefs_cpumask(t, NULL, cpus, 3) &&
		pk_tracefs_cpumask(t, NULL, cpus, 0) == -EINVAL &&
		log_is("W per_cpu/cpu1/buffer_size_kb 64\nW buffer_size_kb 2048\n"
		       "W tracing_cpumask 2,00000021\n"));

	/* snapshot, stack tracer, profiler, markers */
	T_CHECK("snapshot",
		!pk_tracefs_snapshot(t, NULL, PK_SNAPSHOT_TAKE) &&
		!pk_tracefs_snapshot(t, NULL, PK_SNAPSHOT_CLEAR) &&
		log_is("W snapshot 1\nW snapshot 2\n"));
	snprintf(want, sizeof(want), "W %s/stack_tracer_enabled 1\n", sys);
	T_CHECK("stack_tracer",
		!pk_tracefs_stack_tracer(t, true) &&
		!pk_tracefs_stack_tracer(t, true) &&   /* on already: no write */
		!pk_tracefs_func_add(t, NULL, PK_FT_STACK_FILTER, "vfs_*") &&
		!pk_tracefs_write_u64(t, NULL, "stack_max_size", 0) &&
		!strcmp(get(sys, "stack_tracer_enabled"), "1") &&
		log_is(strcat(want, "A stack_trace_filter vfs_*\n"
			      "W stack_max_size 0\n")));
	T_CHECK("profiler", !pk_tracefs_profiler(t, true) &&
		log_is("W function_profile_enabled 1\n"));
	struct pk_func_profile *p;
	bool ht;
	r = pk_tracefs_profile_read(t, NULL, &p, &ht);
	T_CHECK("profile_read", r == 2 && ht && p[0].hit == 40 &&
		!strcmp(p[1].name, "do_idle"));
	if (r > 0)
		free(p);
	T_CHECK("marker", !pk_tracefs_marker(t, NULL, "hello") &&
		!pk_tracefs_marker_raw(t, NULL, 0x41424344, "xy", 2) &&
		!strcmp(get(tfs, "trace_marker"), "hello") &&
		!memcmp(get(tfs, "trace_marker_raw"), "DCBAxy", 6));
	take_log();
	struct pk_tracefs_stats st;
	T_CHECK("cpu_stats", !pk_tracefs_cpu_stats(t, NULL, 0, &st) &&
		st.entries == 5 && st.overrun == 1 && st.bytes == 320 &&
		st.dropped == 2 && st.read == 3 &&
		st.oldest_ts == 9750108725000ull && st.now_ts == 9751000001000ull);

	/* close: every change undone, latest first; the filter commands by
	 * their '!' forms before the list is put back */
	pk_tracefs_free(t);
	snprintf(want, sizeof(want),
		 "W function_profile_enabled 0\n"
		 "W stack_max_size 2928\n"
		 "W stack_trace_filter \n"
		 "W %s/stack_tracer_enabled 0\n"
		 "W snapshot 0\n"
		 "W tracing_cpumask 3\n"
		 "W buffer_size_kb 1410\n"
		 "W per_cpu/cpu1/buffer_size_kb 1410\n"
		 "W set_event_notrace_pid \n"
		 "W set_event_pid \n"
		 "W options/event-fork 0\n"
		 "W set_ftrace_pid \n"
		 "W options/function-fork 0\n"
		 "W set_graph_notrace \n"
		 "W set_graph_function \n"
		 "W set_ftrace_notrace \n"
		 "A set_ftrace_notrace vfs_read\n"
		 "A set_ftrace_filter !schedule:stacktrace\n"
		 "A set_ftrace_filter !try_to_wake_up:enable_event:sched:sched_switch:0\n"
		 "A set_ftrace_filter !__schedule_bug:traceoff:0\n"
		 "W set_ftrace_filter \n"
		 "W hwlat_detector/window 1000000\n"
		 "W hwlat_detector/width 500000\n"
		 "W tracing_max_latency 0\n"
		 "W tracing_thresh 0\n"
		 "W max_graph_depth 0\n"
		 "W options/funcgraph-proc 0\n"
		 "W options/overwrite 1\n"
		 "W options/func_stack_trace 0\n"
		 "W %s/ftrace_enabled 0\n"
		 "W current_tracer nop\n", sys, sys);
	T_CHECK("restore_log", log_is(want));
	static const char *const files[] = {
		"current_tracer", "tracing_thresh", "max_graph_depth",
		"hwlat_detector/width", "options/overwrite",
		"options/func_stack_trace", "set_ftrace_notrace",
		"set_ftrace_filter", "set_ftrace_pid", "set_event_pid",
		"buffer_size_kb", "per_cpu/cpu1/buffer_size_kb",
		"tracing_cpumask", "stack_max_size", "function_profile_enabled",
	};
	static const char *const orig[] = {
		"nop", "0", "0", "500000", "1", "0", "vfs_read", "", "", "",
		"1410", "1410", "3", "2928", "0",
	};
	bool all = true;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		all &= same_norm(files[i], orig[i]);
	T_CHECK("restore_files", all && !strcmp(get(sys, "ftrace_enabled"), "0") &&
		!strcmp(get(sys, "stack_tracer_enabled"), "0"));

	/* ftrace_enabled already 1: never written */
	build("1\n");
	take_log();
	t = pk_tracefs_open_at(tfs, sys);
	r = t ? 0 : -errno;
	T_CHECK("tracer_function_enabled_already",
		r == 0 && !pk_tracefs_tracer(t, NULL, "function_graph") &&
		!strcmp(get(sys, "ftrace_enabled"), "1\n") &&
		log_is("W current_tracer function_graph\n"));
	/* differing per-CPU sizes ("X"): each CPU's size comes back */
	put(tfs, "buffer_size_kb", "X\n");
	put(tfs, "per_cpu/cpu0/buffer_size_kb", "100\n");
	put(tfs, "per_cpu/cpu1/buffer_size_kb", "200\n");
	pk_tracefs_buffer_kb(t, NULL, -1, 64);
	pk_tracefs_free(t);
	T_CHECK("restore_per_cpu_sizes",
		!strcmp(get(tfs, "per_cpu/cpu0/buffer_size_kb"), "100") &&
		!strcmp(get(tfs, "per_cpu/cpu1/buffer_size_kb"), "200") &&
		!strcmp(get(sys, "ftrace_enabled"), "1\n"));

	test_event_specs();

	/* PERFKIT_TRACEFS: pk_tracefs_open uses the tree */
	setenv("PERFKIT_TRACEFS", tfs, 1);
	setenv("PERFKIT_SYSCTL", sys, 1);
	t = pk_tracefs_open();
	r = t ? 0 : -errno;
	T_CHECK("open_env", r == 0 && !strcmp(pk_tracefs_dir(t), tfs));
	if (!r)
		pk_tracefs_free(t);
	unsetenv("PERFKIT_TRACEFS");
	unsetenv("PERFKIT_SYSCTL");
	unsetenv("PERFKIT_TRACEFS_LOG");
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
	return t_exit();
}
