/* SPDX-License-Identifier: MIT */
/*
 * Counting under harder conditions: cgroups, running out of fds, no
 * permission, multiplexing, a pinned counter in error state, keep_going,
 * misuse, and open errors explained.
 */
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <perfkit/counter.h>
#include <perfkit/features.h>
#include "counter/cgroup.h"
#include "event/evsel.h"
#include "counter_util.h"

static int getppid_id;

static struct pk_thread_map *self_map(void)
{
	static const int self = 0;

	return pk_thread_map_new_array(1, &self);
}

/* Count a child moved into a new cgroup v2 directory, on every CPU. */
static void test_cgroup(void)
{
	char mnt[4096], dir[4200], procs[4300], rel[64], pid[32];
	struct perf_event_attr a = tp_attr(getppid_id);
	struct pk_cpu_map *cpus = pk_cpu_map_new(NULL);
	struct pk_thread_map *any = pk_thread_map_new_any();
	struct pk_evlist *l = pk_evlist_new();
	struct pk_counts c = { 0 };
	struct child ch;
	int err, st = -1;

	if (pk__cgroup2_mount(mnt, sizeof(mnt))) {
		t_skip("cgroup_count", "no cgroup2 mount");
		goto out;
	}
	snprintf(rel, sizeof(rel), "perfkit-test-%d", getpid());
	snprintf(dir, sizeof(dir), "%s/%s", mnt, rel);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	if (mkdir(dir, 0755)) {
		t_skip("cgroup_count", "mkdir %s: %s", dir, strerror(errno));
		goto out;
	}
	if (child_start(&ch, "2500", NULL)) {
		rmdir(dir);
		goto out;
	}
	snprintf(pid, sizeof(pid), "%d", ch.pid);
	{
		FILE *f = fopen(procs, "w");

		err = !f || fputs(pid, f) < 0;
		if (f && fclose(f))
			err = 1;
	}
	if (err) {
		t_skip("cgroup_count", "cannot move a task into %s", dir);
		child_kill(&ch);
		rmdir(dir);
		goto out;
	}
	pk_evlist_add(l, &a, "getppid");
	{
		PK_OPTS(pk_open_opts, o, .cgroup = rel);

		err = pk_evlist_open(l, cpus, any, &o, false);
	}
	if (err == 1) {
		st = child_run(&ch);
		err = pk_evsel_read_sum(pk_evlist_evsel(l, 0), &c);
	} else {
		child_kill(&ch);
	}
	t_check(!err && st == 0 && c.val == 2500, "cgroup_count",
		"count %llu want 2500 (%s)", (unsigned long long)c.val,
		pk_strerror(err));
	pk_evlist_close(l);
	{	/* an absolute path under the mount works too */
		PK_OPTS(pk_open_opts, o, .cgroup = dir);

		T_CHECK("cgroup_absolute_path",
			pk_evlist_open(l, cpus, any, &o, false) == 1);
		pk_evlist_close(l);
	}
	{
		PK_OPTS(pk_open_opts, o, .cgroup = "perfkit-no-such-cgroup");

		err = pk_evlist_open(l, cpus, any, &o, false);
		T_CHECK("cgroup_missing_enoent", err == -ENOENT);
	}
	{
		struct pk_cpu_map *anycpu = pk_cpu_map_new_any();
		PK_OPTS(pk_open_opts, o, .cgroup = rel);

		T_CHECK("cgroup_needs_cpus",
			pk_evlist_open(l, anycpu, any, &o, false) == -EINVAL);
		pk_cpu_map_put(anycpu);
	}
	T_CHECK("cgroup_rmdir", rmdir(dir) == 0);
out:
	pk_evlist_free(l);
	pk_thread_map_put(any);
	pk_cpu_map_put(cpus);
}

static int count_open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 4096; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* A low RLIMIT_NOFILE: the open fails with -EMFILE, nothing leaks. */
static void test_emfile(void)
{
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_DUMMY);
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = self_map();
	struct pk_evlist *l = pk_evlist_new();
	struct rlimit old, low;
	int before = count_open_fds(), err, after, eno;
	char msg[256];

	a.exclude_kernel = 1;
	for (int i = 0; i < 64; i++)
		pk_evlist_add(l, &a, "dummy");
	getrlimit(RLIMIT_NOFILE, &old);
	low = old;
	low.rlim_cur = (rlim_t)before + 16;
	if (setrlimit(RLIMIT_NOFILE, &low)) {
		t_skip("emfile", "setrlimit: %s", strerror(errno));
		goto out;
	}
	err = pk_evlist_open(l, cpus, tm, NULL, false);
	setrlimit(RLIMIT_NOFILE, &old);
	after = count_open_fds();
	t_check(err == -EMFILE, "emfile_reported", "open gave %d (%s)", err,
		pk_strerror(err));
	eno = 0;
	for (int i = 0; i < 64 && !eno; i++)
		eno = pk_evsel_open_errno(pk_evlist_evsel(l, i));
	t_check(eno == -EMFILE, "emfile_open_errno", "open_errno %d", eno);
	t_check(after == before, "emfile_no_leak", "%d fds before, %d after",
		before, after);
	T_CHECK("emfile_all_closed", !pk_evsel_is_open(pk_evlist_evsel(l, 0)));
	pk_open_strerror(err, &a, false, msg, sizeof(msg));
	t_check(strstr(msg, "too many open files") && strstr(msg, "ulimit"),
		"emfile_message", "'%s'", msg);
	/* keep_going: the events that fit stay open. */
	setrlimit(RLIMIT_NOFILE, &low);
	err = pk_evlist_open(l, cpus, tm, NULL, true);
	setrlimit(RLIMIT_NOFILE, &old);
	t_check(err > 0 && err < 64, "emfile_keep_going", "opened %d", err);
	T_CHECK("emfile_keep_going_errno",
		pk_evsel_open_errno(pk_evlist_evsel(l, 63)) == -EMFILE &&
		pk_evsel_open_errno(pk_evlist_evsel(l, 0)) == 0);
	pk_evlist_close(l);
	T_CHECK("emfile_close_all", count_open_fds() == before);
out:
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

/* Runs CHILD in a fork as nobody (status 3: setuid failed) when root
 * and perf_event_paranoid >= MIN_PAR, else skips NAME; CHILD must exit 0,
 * CODES says what its other statuses mean. */
static void as_nobody(const char *name, int min_par, int (*child)(void),
		      const char *codes)
{
	int par, st = -1;
	pid_t pid;

	if (geteuid() != 0) {
		t_skip(name, "needs root to drop privileges");
		return;
	}
	if (pk_perf_event_paranoid(&par) || par < min_par) {
		t_skip(name, "perf_event_paranoid %d allows it", par);
		return;
	}
	pid = fork();
	if (pid == 0)
		_exit(setgid(65534) || setuid(65534) ? 3 : child());
	waitpid(pid, &st, 0);
	t_check(WIFEXITED(st) && WEXITSTATUS(st) == 0, name,
		"child status %d (3: setuid, %s)",
		WIFEXITED(st) ? WEXITSTATUS(st) : -1, codes);
}

/* As nobody, a CPU-wide event is refused with EACCES/EPERM. */
static int permission_child(void)
{
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_CPU_CLOCK);
	struct pk_evlist *l = pk_evlist_new();
	struct pk_cpu_map *cpus = pk_cpu_map_new("0");
	struct pk_thread_map *any = pk_thread_map_new_any();
	char msg[512];
	int err;

	pk_evlist_add(l, &a, "cpu-clock");
	err = pk_evlist_open(l, cpus, any, NULL, false);
	pk_open_strerror(err, &a, true, msg, sizeof(msg));
	if (err != -EACCES && err != -EPERM)
		return 1;
	return strstr(msg, "perf_event_paranoid") ? 0 : 2;
}

struct attempts {
	int n, retries;
	int err[4];
	struct perf_event_attr tried[4];
	char retry[4][160];
};

static void on_attempt(void *ctx, struct pk_evsel *e,
		       const struct perf_event_attr *tried, int err,
		       const char *retry, int level)
{
	(void)level;
	struct attempts *at = ctx;

	(void)e;
	if (at->n < 4) {
		at->err[at->n] = err;
		at->tried[at->n] = *tried;
		snprintf(at->retry[at->n], sizeof(at->retry[0]), "%s",
			 retry ? retry : "");
	}
	at->n++;
	at->retries += retry != NULL;
}

/* One event on this thread, opened plainly or with FALLBACKS, each
 * attempt kept. */
struct fb_fixture {
	struct pk_evlist *l;
	struct pk_cpu_map *cpus;
	struct pk_thread_map *self;
	struct pk_evsel *e;
	struct attempts at;
	struct pk_open_opts o;
};

static void fb_init(struct fb_fixture *f, const struct perf_event_attr *a,
		    const char *name, unsigned int fallbacks)
{
	memset(f, 0, sizeof(*f));
	f->l = pk_evlist_new();
	f->cpus = pk_cpu_map_new_any();
	f->self = self_map();
	pk_evlist_add(f->l, a, name);
	f->e = pk_evlist_evsel(f->l, 0);
	f->o.sz = sizeof(f->o);
	f->o.fallbacks = fallbacks;
	f->o.attempt = on_attempt;
	f->o.attempt_ctx = &f->at;
}

static int fb_open(struct fb_fixture *f, bool fallbacks)
{
	return pk_evsel_open(f->e, f->cpus, f->self, fallbacks ? &f->o : NULL);
}

static void fb_fini(struct fb_fixture *f)
{
	pk_evlist_free(f->l);
	pk_cpu_map_put(f->cpus);
	pk_thread_map_put(f->self);
}

/* As nobody at paranoid >= 2, task-clock opens user-only with the USER
 * fallback (two attempts, perf's warning between), and fails without. */
static int user_fallback_child(void)
{
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_TASK_CLOCK);
	struct fb_fixture f;
	struct attempts *at = &f.at;

	fb_init(&f, &a, "task-clock", PK_OPEN_FALLBACK_USER);
	if (fb_open(&f, false) != -EACCES)
		return 1;
	if (fb_open(&f, true) || at->n != 2 || at->retries != 1)
		return 2;
	if (at->err[0] != -EACCES || at->tried[0].exclude_kernel ||
	    at->err[1] || !at->tried[1].exclude_kernel ||
	    !at->tried[1].exclude_hv)
		return 4;
	if (strcmp(pk_evsel_name(f.e), "task-clock:u") ||
	    !strstr(at->retry[0], "trying to fall back to excluding kernel"))
		return 5;
	fb_fini(&f);
	return 0;
}

/* Without hardware cycles, cycles:ppp becomes cpu-clock named from its
 * attribute as perf names it; other errors and events are left alone. */
static void test_cycles_fallback(void)
{
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_CPU_CLOCK);
	struct fb_fixture f;
	int err;

	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.exclude_guest = 1;
	a.precise_ip = 3;
	fb_init(&f, &a, "cycles:ppp", PK_OPEN_FALLBACK_CYCLES);
	err = fb_open(&f, false);
	if (err != -ENOENT && err != -ENODEV && err != -ENXIO) {
		t_skip("cycles_fallback", "cycles opens here (%d)", err);
		fb_fini(&f);
		return;
	}
	err = fb_open(&f, true);
	t_check(!err && f.at.n == 2 && f.at.retries == 1 &&
		pk_evsel_attr(f.e)->type == PERF_TYPE_SOFTWARE &&
		pk_evsel_attr(f.e)->config == PERF_COUNT_SW_CPU_CLOCK &&
		!strcmp(pk_evsel_name(f.e), "cpu-clock:pppH") &&
		strstr(f.at.retry[0], "fall back to cpu-clock-ticks"),
		"cycles_fallback", "err %d attempts %d name %s", err, f.at.n,
		pk_evsel_name(f.e));
	fb_fini(&f);
}

/* A pinned counter in error state reads 0 bytes: -ENODATA, not a crash.
 * The kernel state cannot be produced with software events, so an fd that
 * reads EOF (/dev/null) stands in for it. */
static void test_pinned_error_state(void)
{
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_DUMMY);
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = self_map();
	struct pk_evlist *l = pk_evlist_new();
	struct pk_counts c;
	int *slot, real;

	a.exclude_kernel = 1;
	a.pinned = 1;
	pk_evlist_add(l, &a, "pinned");
	if (pk_evlist_open(l, cpus, tm, NULL, false) != 1) {
		t_fail("pinned_eof", "open");
		goto out;
	}
	slot = pk__evsel_fd_slot(pk_evlist_evsel(l, 0), 0, 0);
	real = *slot;
	*slot = open("/dev/null", O_RDONLY);
	T_CHECK("pinned_eof_enodata",
		pk_evsel_read(pk_evlist_evsel(l, 0), 0, 0, &c) == -ENODATA);
	T_CHECK("pinned_eof_sum_enodata",
		pk_evsel_read_sum(pk_evlist_evsel(l, 0), &c) == -ENODATA);
	close(*slot);
	*slot = real;
	T_CHECK("pinned_real_reads",
		pk_evsel_read(pk_evlist_evsel(l, 0), 0, 0, &c) == 0);
out:
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

/* Multiplexing needs more hardware events than counters; software events
 * never multiplex. */
static void test_multiplexing(void)
{
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = self_map();
	struct pk_evlist *l = pk_evlist_new();
	struct pk_counts c = { 0 };
	int opened, scaled = 0;

	for (int i = 0; i < 12; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.type = PERF_TYPE_HARDWARE;
		a.size = sizeof(a);
		a.config = PERF_COUNT_HW_INSTRUCTIONS;
		a.exclude_kernel = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		pk_evlist_add(l, &a, "instructions");
	}
	opened = pk_evlist_open(l, cpus, tm, NULL, false);
	if (opened < 0) {
		t_skip("multiplexing", "no hardware counters here (%s)",
		       pk_strerror(opened));
		goto out;
	}
	call_getppid(200000);
	for (int i = 0; i < 12; i++) {
		int st;

		pk_evsel_read(pk_evlist_evsel(l, i), 0, 0, &c);
		if (pk_counts_scaled(&c, &st) >= c.val && st == 1)
			scaled++;
	}
	if (!scaled)
		t_skip("multiplexing", "12 hardware events did not multiplex");
	else
		t_ok("multiplexing_scaled");
out:
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

static void test_misuse(void)
{
	struct perf_event_attr a = tp_attr(getppid_id);
	struct pk_cpu_map *cpus = pk_cpu_map_new_any(), *all = pk_cpu_map_new(NULL);
	struct pk_thread_map *tm = self_map(), *any = pk_thread_map_new_any();
	struct pk_evlist *l = pk_evlist_new();
	struct pk_evsel *e0, *e1;
	struct pk_counts c;
	uint64_t id;
	struct {
		struct pk_open_opts o;
		long junk;
	} big = { { .sz = sizeof(big) }, 1 };

	pk_evlist_add(l, &a, "lead");
	pk_evlist_add(l, &a, "member");
	pk_evlist_group(l, 0, 2);
	e0 = pk_evlist_evsel(l, 0);
	e1 = pk_evlist_evsel(l, 1);
	T_CHECK("closed_fd_ebadf", pk_evsel_fd(e0, 0, 0) == -EBADF);
	T_CHECK("closed_read_ebadf", pk_evsel_read(e0, 0, 0, &c) == -EBADF);
	T_CHECK("closed_enable_ebadf", pk_evsel_enable(e0, false) == -EBADF);
	T_CHECK("closed_id_ebadf", pk_evsel_id(e0, 0, 0, &id) == -EBADF);
	T_CHECK("member_before_leader", pk_evsel_open(e1, cpus, tm, NULL) < 0);
	T_CHECK("opts_trailing_junk",
		pk_evsel_open(e0, cpus, tm, &big.o) == -EINVAL);
	T_CHECK("pid_cpu_both_any", pk_evsel_open(e0, cpus, any, NULL) == -EINVAL);
	T_CHECK("open_leader", pk_evsel_open(e0, cpus, tm, NULL) == 0);
	T_CHECK("open_twice_ebusy", pk_evsel_open(e0, cpus, tm, NULL) == -EBUSY);
	T_CHECK("member_other_maps", pk_evsel_open(e1, all, tm, NULL) == -EINVAL);
	T_CHECK("member_same_maps", pk_evsel_open(e1, cpus, tm, NULL) == 0);
	T_CHECK("group_read_needs_group",
		pk_evsel_read_group(e0, 0, 0, &c, 1) == -EINVAL);
	T_CHECK("fd_index_range", pk_evsel_fd(e0, 1, 0) == -EINVAL &&
		pk_evsel_fd(e0, 0, -1) == -EINVAL);
	T_CHECK("evsel_maps", pk_evsel_cpus(e0) != NULL &&
		pk_evsel_threads(e0) != NULL);
	pk_evlist_close(l);
	T_CHECK("closed_after_close", !pk_evsel_is_open(e0) &&
		!pk_evsel_is_open(e1));
	/* A failing leader: its member reports the leader's error. */
	pk_evsel_attr(e0)->config = 0xfffffff0;
	T_CHECK("keep_going_none", pk_evlist_open(l, cpus, tm, NULL, true) == 0);
	T_CHECK("keep_going_member_errno",
		pk_evsel_open_errno(e1) == pk_evsel_open_errno(e0) &&
		pk_evsel_open_errno(e0) < 0);
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_thread_map_put(any);
	pk_cpu_map_put(cpus);
	pk_cpu_map_put(all);
}

static void test_messages(void)
{
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_CPU_CLOCK);
	char buf[256];
	int n;

	n = pk_open_strerror(-EACCES, &a, false, buf, sizeof(buf));
	t_check(n > 0 && strstr(buf, "perf_event_paranoid") &&
		strstr(buf, "kernel"), "msg_eacces_kernel", "'%s'", buf);
	a.exclude_kernel = 1;
	pk_open_strerror(-EPERM, &a, true, buf, sizeof(buf));
	t_check(strstr(buf, "CPU") != NULL, "msg_eperm_cpu_wide", "'%s'", buf);
	pk_open_strerror(-ENOENT, &a, false, buf, sizeof(buf));
	t_check(strstr(buf, "not supported") != NULL, "msg_enoent", "'%s'", buf);
	n = pk_open_strerror(-EINVAL, &a, false, buf, 4);
	T_CHECK("msg_snprintf_len", n > 4 && strlen(buf) == 3);
}

int main(void)
{
	getppid_id = tp_id("syscalls", "sys_enter_getppid");
	if (getppid_id < 0) {
		t_skip("counter_env", "no syscalls:sys_enter_getppid in tracefs");
		return t_exit();
	}
	test_cgroup();
	test_emfile();
	as_nobody("permission_denied", 1, permission_child,
		  "1: not refused, 2: message");
	as_nobody("user_fallback", 2, user_fallback_child,
		  "1: not refused, 2: attempts, 4: attrs, 5: name/message");
	test_cycles_fallback();
	test_pinned_error_state();
	test_multiplexing();
	test_misuse();
	test_messages();
	return t_exit();
}
