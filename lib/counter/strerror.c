/* SPDX-License-Identifier: MIT */
/* User-facing explanations of perf_event_open errors. */
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include "base/base.h"
#include <perfkit/counter.h>
#include <perfkit/features.h>

static int perm_text(const struct perf_event_attr *a, bool cpu_wide,
		     char *buf, size_t size)
{
	int par, err = pk_perf_event_paranoid(&par);
	char now[48] = "unknown";

	if (!err)
		snprintf(now, sizeof(now), "%d", par);
	if (cpu_wide)
		return snprintf(buf, size,
			"permission denied: counting every task on a CPU needs "
			"CAP_PERFMON (or CAP_SYS_ADMIN) or "
			"/proc/sys/kernel/perf_event_paranoid <= 0 (it is %s)",
			now);
	if (!a || !a->exclude_kernel)
		return snprintf(buf, size,
			"permission denied: counting in the kernel needs "
			"CAP_PERFMON or /proc/sys/kernel/perf_event_paranoid "
			"<= 1 (it is %s); add the :u modifier to count user "
			"space only", now);
	return snprintf(buf, size,
		"permission denied: monitoring another user's process needs "
		"CAP_PERFMON or ptrace access; /proc/sys/kernel/"
		"perf_event_paranoid is %s", now);
}

int pk_open_strerror(int err, const struct perf_event_attr *attr,
		     bool cpu_wide, char *buf, size_t size)
{
	struct rlimit rl;

	switch (err) {
	case -EACCES:
	case -EPERM:
		return perm_text(attr, cpu_wide, buf, size);
	case -EMFILE:
		if (getrlimit(RLIMIT_NOFILE, &rl))
			rl.rlim_cur = 0;
		return snprintf(buf, size,
			"too many open files: each event needs one fd per CPU "
			"and thread (limit %llu; raise it with 'ulimit -n')",
			(unsigned long long)rl.rlim_cur);
	case -EOPNOTSUPP:
		if (attr && (attr->sample_type & PERF_SAMPLE_BRANCH_STACK))
			return snprintf(buf, size, "the PMU hardware or event "
				"type does not support branch stack sampling");
		/* fall through */
	case -ENOENT:
	case -ENODEV:
		return snprintf(buf, size,
			"event not supported by this kernel or machine (%s)",
			pk_strerror(err));
	case -ESRCH:
		return snprintf(buf, size, "no such process or thread");
	case -EBUSY:
		return snprintf(buf, size,
			"the PMU is busy (another tool holds it exclusively)");
	case -EINVAL:
	case -E2BIG:
		return snprintf(buf, size,
			"invalid event attributes or combination for this "
			"kernel (%s)", pk_strerror(err));
	default:
		return snprintf(buf, size, "%s", pk_strerror(err));
	}
}
