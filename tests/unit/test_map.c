/* SPDX-License-Identifier: MIT */
/* CPU and thread maps: list parsing, online CPUs, pids, refcounts. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/map.h>
#include "base/base.h"
#include "test.h"

static bool cpus_are(struct pk_cpu_map *m, int nr, const int *want)
{
	if (!m || pk_cpu_map_nr(m) != nr)
		return false;
	for (int i = 0; i < nr; i++)
		if (pk_cpu_map_cpu(m, i) != want[i])
			return false;
	return true;
}

static void test_cpu_valid(void)
{
	static const struct {
		const char *list;
		int nr, cpus[8];
	} cases[] = {
		{ "0", 1, { 0 } },
		{ "0-3", 4, { 0, 1, 2, 3 } },
		{ "0-3,6", 5, { 0, 1, 2, 3, 6 } },
		{ "6,0-1", 3, { 0, 1, 6 } },
		{ "2,2,1-2", 2, { 1, 2 } },
		{ "5-5", 1, { 5 } },
		{ "0-1\n", 2, { 0, 1 } },
		{ "65535", 1, { 65535 } },
	};

	for (size_t i = 0; i < PK_ARRAY_SIZE(cases); i++) {
		struct pk_cpu_map *m = pk_cpu_map_new(cases[i].list);
		char name[64];

		snprintf(name, sizeof(name), "cpu_map_valid_%zu", i);
		t_check(cpus_are(m, cases[i].nr, cases[i].cpus), name,
			"'%s' gave nr %d", cases[i].list, pk_cpu_map_nr(m));
		pk_cpu_map_put(m);
	}
}

static void test_cpu_invalid(void)
{
	static const char *const bad[] = {
		"a", "-1", "1-", "3-1", "1,,2", "1,", ",1", "0-3 ", " 0",
		"1-2-3", "65536", "99999999999999999999", "0x1", "1\n2",
		"\n",
	};

	for (size_t i = 0; i < PK_ARRAY_SIZE(bad); i++) {
		char name[64];
		struct pk_cpu_map *m;

		errno = 0;
		m = pk_cpu_map_new(bad[i]);
		snprintf(name, sizeof(name), "cpu_map_invalid_%zu", i);
		t_check(!m && errno == EINVAL, name, "'%s' accepted (errno %d)",
			bad[i], errno);
		pk_cpu_map_put(m);
	}
}

static void test_cpu_online(void)
{
	struct pk_cpu_map *all = pk_cpu_map_new(NULL), *e = pk_cpu_map_new("");
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	t_check(all && pk_cpu_map_nr(all) == n, "cpu_map_online",
		"nr %d, sysconf says %ld", pk_cpu_map_nr(all), n);
	t_check(e && pk_cpu_map_nr(e) == n, "cpu_map_empty_string_online",
		"nr %d", pk_cpu_map_nr(e));
	T_CHECK("cpu_map_online_first", pk_cpu_map_cpu(all, 0) >= 0);
	T_CHECK("cpu_map_idx_range", pk_cpu_map_cpu(all, (int)n) == -EINVAL &&
		pk_cpu_map_cpu(all, -1) == -EINVAL);
	pk_cpu_map_put(all);
	pk_cpu_map_put(e);
}

static void test_cpu_any_refcount(void)
{
	struct pk_cpu_map *m = pk_cpu_map_new_any();

	T_CHECK("cpu_map_any", m && pk_cpu_map_nr(m) == 1 &&
		pk_cpu_map_cpu(m, 0) == -1);
	T_CHECK("cpu_map_get_same", pk_cpu_map_get(m) == m);
	pk_cpu_map_put(m);
	/* still alive after one put: ASan would flag a use after free */
	T_CHECK("cpu_map_refcount", pk_cpu_map_cpu(m, 0) == -1);
	pk_cpu_map_put(m);
	pk_cpu_map_put(NULL);
	T_CHECK("cpu_map_null_nr", pk_cpu_map_nr(NULL) == 0);
}

static void test_thread_array_any(void)
{
	static const int tids[] = { 7, 3, 9 };
	struct pk_thread_map *m = pk_thread_map_new_array(3, tids);
	struct pk_thread_map *a = pk_thread_map_new_any();

	T_CHECK("thread_map_array", m && pk_thread_map_nr(m) == 3 &&
		pk_thread_map_tid(m, 0) == 7 && pk_thread_map_tid(m, 2) == 9);
	T_CHECK("thread_map_array_range", pk_thread_map_tid(m, 3) == -EINVAL);
	T_CHECK("thread_map_any", a && pk_thread_map_nr(a) == 1 &&
		pk_thread_map_tid(a, 0) == -1);
	T_CHECK("thread_map_get", pk_thread_map_get(a) == a);
	pk_thread_map_put(a);
	pk_thread_map_put(a);
	pk_thread_map_put(m);
	errno = 0;
	T_CHECK("thread_map_array_bad", !pk_thread_map_new_array(-1, tids) &&
		errno == EINVAL);
}

static void *sleeper(void *arg)
{
	int *fd = arg;
	char c;

	return (void *)(long)read(*fd, &c, 1);
}

static void test_thread_pids(void)
{
	pthread_t th[2];
	int p[2];
	char list[64];
	struct pk_thread_map *m;

	if (pipe(p)) {
		t_fail("thread_map_pids", "pipe: %s", strerror(errno));
		return;
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, sleeper, &p[0]);
	snprintf(list, sizeof(list), "%d", getpid());
	m = pk_thread_map_new_pids(list);
	t_check(m && pk_thread_map_nr(m) == 3, "thread_map_pids_threads",
		"nr %d, want 3 (main + 2 threads)", pk_thread_map_nr(m));
	T_CHECK("thread_map_pids_main", m && pk_thread_map_tid(m, 0) == getpid());
	pk_thread_map_put(m);
	m = pk_thread_map_new_tids(list);
	T_CHECK("thread_map_tids", m && pk_thread_map_nr(m) == 1 &&
		pk_thread_map_tid(m, 0) == getpid());
	pk_thread_map_put(m);
	if (write(p[1], "xx", 2) != 2)
		t_fail("thread_map_pids", "write");
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	close(p[0]);
	close(p[1]);
}

static void test_thread_errors(void)
{
	errno = 0;
	T_CHECK("thread_map_pids_missing",
		!pk_thread_map_new_pids("4194303") && errno == ESRCH);
	errno = 0;
	T_CHECK("thread_map_tids_missing",
		!pk_thread_map_new_tids("1,4194303") && errno == ESRCH);
	errno = 0;
	T_CHECK("thread_map_tids_syntax", !pk_thread_map_new_tids("1-3") &&
		errno == EINVAL);
	errno = 0;
	T_CHECK("thread_map_pids_syntax", !pk_thread_map_new_pids("x") &&
		errno == EINVAL);
	errno = 0;
	T_CHECK("thread_map_pids_empty", !pk_thread_map_new_pids("") &&
		errno == EINVAL);
	errno = 0;
	T_CHECK("thread_map_pid_zero", !pk_thread_map_new_tids("0") &&
		errno == ESRCH);
}

static void test_alloc_failure(void)
{
	pk__alloc_fail_after(0);
	errno = 0;
	T_CHECK("cpu_map_enomem", !pk_cpu_map_new("0-3") && errno == ENOMEM);
	pk__alloc_fail_after(0);
	errno = 0;
	T_CHECK("thread_map_enomem", !pk_thread_map_new_any() &&
		errno == ENOMEM);
	pk__alloc_fail_after(-1);
}

int main(void)
{
	test_cpu_valid();
	test_cpu_invalid();
	test_cpu_online();
	test_cpu_any_refcount();
	test_thread_array_any();
	test_thread_pids();
	test_thread_errors();
	test_alloc_failure();
	return t_exit();
}
