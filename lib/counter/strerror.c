/* SPDX-License-Identifier: MIT */
/* User-facing explanations of perf_event_open errors. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <sys/resource.h>
#include "base/base.h"
#include <perfkit/counter.h>
#include <perfkit/features.h>

/* What perf_event_paranoid LEVEL denies a user without CAP_PERFMON. */
static const char *denied_at(int level)
{
	if (level >= 2)
		return "kernel profiling, CPU-wide events and raw tracepoint data";
	if (level == 1)
		return "CPU-wide events and raw tracepoint data";
	if (level == 0)
		return "raw tracepoint data";
	return "nothing";
}

/* The rule that refused the open, and the highest paranoid value (or
 * INT_MIN: none) that would allow it. */
static const char *perm_rule(int err, const struct perf_event_attr *a,
			     bool cpu_wide, int *need)
{
	if (cpu_wide) {
		*need = 0;
		return "counting every task on a CPU";
	}
	if (!a || !a->exclude_kernel) {
		*need = 1;
		return "counting in the kernel (the :u modifier counts user "
		       "space only)";
	}
	if (err == -EPERM && a->type == PERF_TYPE_TRACEPOINT) {
		*need = -1;
		return "raw tracepoint data";
	}
	*need = INT_MIN;
	return "monitoring another user's process (its owner, root or "
	       "CAP_SYS_PTRACE can)";
}

static int perm_text(int err, const struct perf_event_attr *a,
		     bool cpu_wide, char *buf, size_t size)
{
	int par, need, known = !pk_perf_event_paranoid(&par);
	const char *rule = perm_rule(err, a, cpu_wide, &need);
	char now[128] = "perf_event_paranoid could not be read";
	char fix[160] = "";

	if (known)
		snprintf(now, sizeof(now), "kernel.perf_event_paranoid is %d, "
			 "which denies %s", par, denied_at(par));
	if (need != INT_MIN)
		snprintf(fix, sizeof(fix), ", or 'sysctl -w kernel."
			 "perf_event_paranoid=%d' (kernel.perf_event_paranoid"
			 " = %d in /etc/sysctl.conf keeps it)", need, need);
	return snprintf(buf, size,
		"permission denied: %s; %s to users without CAP_PERFMON "
		"(or CAP_SYS_ADMIN): run as root or with CAP_PERFMON%s; see "
		"https://www.kernel.org/doc/html/latest/admin-guide/"
		"perf-security.html", rule, now, fix);
}

int pk_open_strerror(int err, const struct perf_event_attr *attr,
		     bool cpu_wide, char *buf, size_t size)
{
	struct rlimit rl;

	switch (err) {
	case -EACCES:
	case -EPERM:
		return perm_text(err, attr, cpu_wide, buf, size);
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
