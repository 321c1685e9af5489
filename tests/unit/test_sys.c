/* SPDX-License-Identifier: MIT */
/* lib/sys: raw wrappers return -errno; features are probed once, cached,
 * and drive perf-style fallbacks (tested by playing an older kernel). */
#include <fcntl.h>
#include <perfkit/counter.h>
#include <perfkit/features.h>
#include "sys/features.h"
#include "sys/sys.h"
#include "counter_util.h"

static void test_wrappers_errno(void)
{
	uint64_t id;
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_DUMMY);
	char b[8];

	T_CHECK("ioc_enable_ebadf", pk__sys_ioc_enable(-1, false) == -EBADF);
	T_CHECK("ioc_disable_ebadf", pk__sys_ioc_disable(-1, true) == -EBADF);
	T_CHECK("ioc_reset_ebadf", pk__sys_ioc_reset(-1, true) == -EBADF);
	T_CHECK("ioc_refresh_ebadf", pk__sys_ioc_refresh(-1, 1) == -EBADF);
	T_CHECK("ioc_period_ebadf", pk__sys_ioc_period(-1, 1) == -EBADF);
	T_CHECK("ioc_set_output_ebadf", pk__sys_ioc_set_output(-1, -1) == -EBADF);
	T_CHECK("ioc_set_filter_ebadf", pk__sys_ioc_set_filter(-1, "x") == -EBADF);
	T_CHECK("ioc_id_ebadf", pk__sys_ioc_id(-1, &id) == -EBADF);
	T_CHECK("ioc_set_bpf_ebadf", pk__sys_ioc_set_bpf(-1, 0) == -EBADF);
	T_CHECK("ioc_pause_ebadf", pk__sys_ioc_pause_output(-1, true) == -EBADF);
	T_CHECK("ioc_modify_ebadf",
		pk__sys_ioc_modify_attributes(-1, &a) == -EBADF);
	T_CHECK("read_ebadf", pk__sys_read(-1, b, sizeof(b)) == -EBADF);
	/* pid -1 and cpu -1 together are invalid. */
	T_CHECK("open_einval", pk__sys_perf_event_open(&a, -1, -1, -1, 0) == -EINVAL);
}

/* ioctls that only work on the right kind of event, on a dummy event. */
static void test_wrappers_live(void)
{
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_DUMMY);
	struct perf_event_query_bpf q = { 0 };
	uint64_t id = 0;
	int fd, fd2;

	a.exclude_kernel = 1;
	fd = pk__sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	fd2 = pk__sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 || fd2 < 0) {
		t_fail("sys_live", "open dummy: %s", pk_strerror(fd));
		return;
	}
	T_CHECK("open_cloexec", fcntl(fd, F_GETFD) & FD_CLOEXEC);
	T_CHECK("ioc_id", pk__sys_ioc_id(fd, &id) == 0 && id != 0);
	T_CHECK("ioc_set_output_none", pk__sys_ioc_set_output(fd, -1) == 0);
	T_CHECK("ioc_pause_no_buffer", pk__sys_ioc_pause_output(fd, true) < 0);
	T_CHECK("ioc_query_bpf_not_tp", pk__sys_ioc_query_bpf(fd, &q) < 0);
	T_CHECK("ioc_modify_not_bp", pk__sys_ioc_modify_attributes(fd, &a) < 0);
	T_CHECK("ioc_set_bpf_bad_prog", pk__sys_ioc_set_bpf(fd, -1) < 0);
	T_CHECK("ioc_enable_group", pk__sys_ioc_enable(fd, true) == 0);
	T_CHECK("ioc_disable", pk__sys_ioc_disable(fd, false) == 0);
	T_CHECK("ioc_reset_group", pk__sys_ioc_reset(fd, true) == 0);
	T_CHECK("task_events", pk__sys_task_events(false) == 0 &&
		pk__sys_task_events(true) == 0);
	pk__sys_close(fd);
	pk__sys_close(fd2);
}

static void test_features(void)
{
	int par = -99, want = -100;
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int bad = 0;

	if (f) {
		if (fscanf(f, "%d", &want) != 1)
			want = -100;
		fclose(f);
	}
	T_CHECK("paranoid", pk_perf_event_paranoid(&par) == 0 && par == want);
	T_CHECK("attr_size", pk_kernel_attr_size() >= PERF_ATTR_SIZE_VER5 &&
		pk_kernel_attr_size() <= sizeof(struct perf_event_attr));
	/* This kernel (>= 6.0) has every probed feature. */
	for (int i = 0; i < PK_FEAT_NR; i++)
		if (!pk_feature_has(i)) {
			t_fail("feature_probe", "%s missing", pk_feature_name(i));
			bad++;
		}
	if (!bad)
		t_ok("feature_probe_all");
	T_CHECK("feature_unknown", !pk_feature_has(PK_FEAT_NR) &&
		!pk_feature_name(PK_FEAT_NR));
	T_CHECK("pmu_software", pk_pmu_find("software") == PERF_TYPE_SOFTWARE);
	T_CHECK("pmu_tracepoint",
		pk_pmu_find("tracepoint") == PERF_TYPE_TRACEPOINT);
	T_CHECK("pmu_missing", pk_pmu_find("no-such-pmu") == -ENOENT);
	T_CHECK("pmu_list", pk_pmu_nr() >= 2 && pk_pmu_name(0) &&
		!pk_pmu_name(pk_pmu_nr()) && pk_pmu_type(-1) == -EINVAL);
}

/* An older kernel: no exclude_guest, no FD_CLOEXEC, no PERF_FORMAT_LOST. */
static int old_calls;
static int old_kernel(struct perf_event_attr *a, pid_t pid, int cpu,
		      int group_fd, unsigned long flags)
{
	old_calls++;
	if (a->exclude_guest || (flags & PERF_FLAG_FD_CLOEXEC) ||
	    (a->read_format & PERF_FORMAT_LOST))
		return -EINVAL;
	return pk__sys_perf_event_open_raw(a, pid, cpu, group_fd, flags);
}

/* A kernel whose attr is 112 bytes (PERF_ATTR_SIZE_VER5). */
static int small_attr_kernel(struct perf_event_attr *a, pid_t pid, int cpu,
			     int group_fd, unsigned long flags)
{
	if (a->size > PERF_ATTR_SIZE_VER5) {
		a->size = PERF_ATTR_SIZE_VER5;
		return -E2BIG;
	}
	return pk__sys_perf_event_open_raw(a, pid, cpu, group_fd, flags);
}

static void test_fallbacks(void)
{
	static const int self = 0;
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *tm = pk_thread_map_new_array(1, &self);
	struct perf_event_attr a = sw_attr(PERF_COUNT_SW_DUMMY);
	struct pk_evlist *l = pk_evlist_new();
	struct perf_event_attr *ea;
	int err;

	a.exclude_kernel = 1;
	a.exclude_guest = 1;
	a.read_format |= PERF_FORMAT_LOST;
	pk_evlist_add(l, &a, "dummy");
	ea = pk_evsel_attr(pk_evlist_evsel(l, 0));
	pk__sys_set_open_hook(old_kernel);
	pk__features_reset();
	err = pk_evlist_open(l, cpus, tm, NULL, false);
	t_check(err == 1, "fallback_open", "gave %s", pk_strerror(err));
	T_CHECK("fallback_probed_missing", !pk_feature_has(PK_FEAT_CLOEXEC) &&
		!pk_feature_has(PK_FEAT_EXCLUDE_GUEST) &&
		!pk_feature_has(PK_FEAT_READ_LOST) &&
		pk_feature_has(PK_FEAT_SIGTRAP));
	T_CHECK("fallback_cleared", !ea->exclude_guest &&
		!(ea->read_format & PERF_FORMAT_LOST));
	T_CHECK("fallback_cloexec_by_fcntl", err == 1 &&
		(fcntl(pk_evsel_fd(pk_evlist_evsel(l, 0), 0, 0), F_GETFD) &
		 FD_CLOEXEC));
	pk_evlist_close(l);
	/* A genuine EINVAL is returned after one try. */
	ea->config = 0xffff;
	old_calls = 0;
	err = pk_evlist_open(l, cpus, tm, NULL, false);
	t_check(err == -ENOENT || err == -EINVAL, "fallback_genuine_error",
		"gave %d", err);
	t_check(old_calls <= 2, "fallback_no_loop", "%d calls", old_calls);
	ea->config = PERF_COUNT_SW_DUMMY;

	pk__sys_set_open_hook(small_attr_kernel);
	pk__features_reset();
	T_CHECK("e2big_probe", pk_kernel_attr_size() == PERF_ATTR_SIZE_VER5);
	ea->size = sizeof(*ea);
	err = pk_evlist_open(l, cpus, tm, NULL, false);
	T_CHECK("e2big_shrinks", err == 1 && ea->size == PERF_ATTR_SIZE_VER5);
	pk_evlist_close(l);
	ea->size = sizeof(*ea);
	ea->sig_data = 1;	/* a field past 112 bytes: cannot shrink */
	err = pk_evlist_open(l, cpus, tm, NULL, false);
	t_check(err == -E2BIG, "e2big_field_set", "gave %d", err);
	pk__sys_set_open_hook(NULL);
	pk__features_reset();
	pk_evlist_free(l);
	pk_thread_map_put(tm);
	pk_cpu_map_put(cpus);
}

int main(void)
{
	test_wrappers_errno();
	test_wrappers_live();
	test_features();
	test_fallbacks();
	return t_exit();
}
