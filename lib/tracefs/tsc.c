/* SPDX-License-Identifier: MIT */
/*
 * TSC to nanoseconds: the multiplier and shift perf publishes in the mmap
 * page of any perf_event (cap_user_time_zero), as trace-cmd --tsc2nsec
 * uses them.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <perfkit/tracefs.h>
#include "base/base.h"

/* The page's conversion for CPU: 0, -EOPNOTSUPP or -errno. */
static int page_conv(int cpu, uint32_t *mult, uint32_t *shift)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pg;
	long psz = sysconf(_SC_PAGESIZE);
	int fd, r = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, cpu, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	pg = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		r = -errno;
		close(fd);
		return r;
	}
	for (;;) {      /* the seqlock of the page */
		uint32_t seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		if (seq & 1)           /* the kernel is updating the page */
			continue;
		bool zero = pg->cap_user_time_zero;
		*mult = pg->time_mult;
		*shift = pg->time_shift;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) == seq) {
			if (!zero || !*mult)
				r = -EOPNOTSUPP;
			break;
		}
	}
	munmap(pg, (size_t)psz);
	close(fd);
	return r;
}

int pk_ftrace_tsc2nsec(uint32_t *mult, uint32_t *shift)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	const char *env = getenv("PERFKIT_TSC2NSEC");
	uint32_t m0 = 0, s0 = 0;
	int r;

	if (env && *env) {      /* tests: a machine without a stable TSC */
		unsigned long m, s;
		char *e;
		m = strtoul(env, &e, 10);
		if (*e != ':' || !m || m > UINT32_MAX)
			return -EINVAL;
		s = strtoul(e + 1, &e, 10);
		if (*e || s > 63)
			return -EINVAL;
		*mult = (uint32_t)m;
		*shift = (uint32_t)s;
		return 0;
	}

	if ((r = page_conv(0, &m0, &s0)))
		goto fail;
	for (int cpu = 1; cpu < ncpu; cpu++) {
		uint32_t m, s;
		if ((r = page_conv(cpu, &m, &s)))
			goto fail;
		if (m != m0 || s != s0) {
			pk_warn("tsc2nsec: CPU %d has mult %u shift %u, CPU 0 "
				"%u %u", cpu, m, s, m0, s0);
			return -EOPNOTSUPP;
		}
	}
	*mult = m0;
	*shift = s0;
	return 0;
fail:
	if (r == -EOPNOTSUPP)
		pk_debug("tsc2nsec: perf gives no TSC conversion here "
			 "(cap_user_time_zero is 0: the clock source is not a "
			 "stable TSC)");
	return r;
}
