/* SPDX-License-Identifier: MIT */
/*
 * Kernel feature probes, libbpf features.c style: each probe opens a tiny
 * user-only software event on the calling thread with one feature set; an
 * EINVAL/E2BIG/EOPNOTSUPP answer means the kernel lacks it. Results are
 * cached (0 unknown, 1 missing, 2 present).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "base/base.h"
#include "sys/features.h"
#include "sys/sys.h"

enum { FEAT_UNKNOWN, FEAT_MISSING, FEAT_PRESENT };
enum feat_op { OP_SET, OP_CLEAR, OP_TEST };

static int feat_cache[PK_FEAT_NR];
static unsigned int attr_size_cache;

static const char *const feat_names[PK_FEAT_NR] = {
	[PK_FEAT_EXCLUDE_GUEST]  = "exclude_guest",
	[PK_FEAT_CLOEXEC]        = "cloexec",
	[PK_FEAT_MMAP2]          = "mmap2",
	[PK_FEAT_COMM_EXEC]      = "comm_exec",
	[PK_FEAT_CLOCKID]        = "clockid",
	[PK_FEAT_CONTEXT_SWITCH] = "context_switch",
	[PK_FEAT_WRITE_BACKWARD] = "write_backward",
	[PK_FEAT_NAMESPACES]     = "namespaces",
	[PK_FEAT_KSYMBOL]        = "ksymbol",
	[PK_FEAT_BPF_EVENT]      = "bpf_event",
	[PK_FEAT_CGROUP]         = "cgroup",
	[PK_FEAT_TEXT_POKE]      = "text_poke",
	[PK_FEAT_BUILD_ID]       = "build_id",
	[PK_FEAT_INHERIT_THREAD] = "inherit_thread",
	[PK_FEAT_REMOVE_ON_EXEC] = "remove_on_exec",
	[PK_FEAT_SIGTRAP]        = "sigtrap",
	[PK_FEAT_READ_LOST]      = "read_lost",
};

/* One attribute bit: set, clear or test it. */
#define BIT_OP(field)                                  \
	do {                                           \
		if (op == OP_TEST)                     \
			return a->field != 0;          \
		a->field = op == OP_SET;               \
		return true;                           \
	} while (0)

/* Sets, clears or tests feature F in A / *FLAGS. */
static bool feat_op(enum pk_feature f, struct perf_event_attr *a,
		    unsigned long *flags, enum feat_op op)
{
	switch (f) {
	case PK_FEAT_EXCLUDE_GUEST:
		if (op == OP_CLEAR)
			a->exclude_host = 0;
		BIT_OP(exclude_guest);
	case PK_FEAT_CLOEXEC:
		if (op == OP_TEST)
			return *flags & PERF_FLAG_FD_CLOEXEC;
		*flags = op == OP_SET ? *flags | PERF_FLAG_FD_CLOEXEC
				      : *flags & ~PERF_FLAG_FD_CLOEXEC;
		return true;
	case PK_FEAT_MMAP2:          BIT_OP(mmap2);
	case PK_FEAT_COMM_EXEC:      BIT_OP(comm_exec);
	case PK_FEAT_CLOCKID:
		a->clockid = op == OP_SET ? CLOCK_MONOTONIC
			   : op == OP_CLEAR ? 0 : a->clockid;
		BIT_OP(use_clockid);
	case PK_FEAT_CONTEXT_SWITCH: BIT_OP(context_switch);
	case PK_FEAT_WRITE_BACKWARD: BIT_OP(write_backward);
	case PK_FEAT_NAMESPACES:     BIT_OP(namespaces);
	case PK_FEAT_KSYMBOL:        BIT_OP(ksymbol);
	case PK_FEAT_BPF_EVENT:      BIT_OP(bpf_event);
	case PK_FEAT_CGROUP:         BIT_OP(cgroup);
	case PK_FEAT_TEXT_POKE:      BIT_OP(text_poke);
	case PK_FEAT_BUILD_ID:       BIT_OP(build_id);
	case PK_FEAT_INHERIT_THREAD: BIT_OP(inherit_thread);
	case PK_FEAT_REMOVE_ON_EXEC: BIT_OP(remove_on_exec);
	case PK_FEAT_SIGTRAP:        BIT_OP(sigtrap);
	case PK_FEAT_READ_LOST:
		if (op == OP_TEST)
			return a->read_format & PERF_FORMAT_LOST;
		if (op == OP_SET)
			a->read_format |= PERF_FORMAT_LOST;
		else
			a->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		return true;
	case PK_FEAT_NR:
		break;
	}
	return false;
}

static void probe_base(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->size = sizeof(*a);
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* Features some kernels only accept together with others. */
static void probe_prereqs(enum pk_feature f, struct perf_event_attr *a)
{
	if (f == PK_FEAT_INHERIT_THREAD)
		a->inherit = 1;
	if (f == PK_FEAT_SIGTRAP)
		a->remove_on_exec = 1;
	if (f == PK_FEAT_BUILD_ID || f == PK_FEAT_MMAP2)
		a->mmap = 1;
	if (f == PK_FEAT_BUILD_ID)
		a->mmap2 = 1;
	if (f == PK_FEAT_COMM_EXEC)
		a->comm = 1;
}

/* An open error that means "the kernel does not know this". */
static bool is_unknown_err(int err)
{
	return err == -EINVAL || err == -E2BIG || err == -EOPNOTSUPP;
}

static int probe(enum pk_feature f)
{
	struct perf_event_attr a;
	unsigned long flags = 0;
	int fd;

	probe_base(&a);
	if (pk__features_fit_attr(&a))
		return FEAT_MISSING;
	probe_prereqs(f, &a);
	feat_op(f, &a, &flags, OP_SET);
	fd = pk__sys_perf_event_open(&a, 0, -1, -1, flags);
	pk__sys_close(fd);
	pk_debug("feature %s: %s (%s)\n", feat_names[f],
		 fd >= 0 || !is_unknown_err(fd) ? "yes" : "no",
		 fd >= 0 ? "opened" : pk_strerror(fd));
	return fd >= 0 || !is_unknown_err(fd) ? FEAT_PRESENT : FEAT_MISSING;
}

bool pk_feature_has(enum pk_feature f)
{
	int v;

	if ((unsigned int)f >= PK_FEAT_NR)
		return false;
	v = __atomic_load_n(&feat_cache[f], __ATOMIC_RELAXED);
	if (v == FEAT_UNKNOWN) {
		v = probe(f);
		__atomic_store_n(&feat_cache[f], v, __ATOMIC_RELAXED);
	}
	return v == FEAT_PRESENT;
}

const char *pk_feature_name(enum pk_feature f)
{
	return (unsigned int)f < PK_FEAT_NR ? feat_names[f] : NULL;
}

unsigned int pk_kernel_attr_size(void)
{
	struct perf_event_attr a;
	unsigned int size = __atomic_load_n(&attr_size_cache, __ATOMIC_RELAXED);
	int fd;

	if (size)
		return size;
	probe_base(&a);
	fd = pk__sys_perf_event_open(&a, 0, -1, -1, 0);
	pk__sys_close(fd);
	size = sizeof(a);
	/* On E2BIG the kernel writes the size it knows into attr.size. */
	if (fd == -E2BIG && a.size >= PERF_ATTR_SIZE_VER0 && a.size < size)
		size = a.size;
	pk_debug("kernel perf_event_attr size: %u\n", size);
	__atomic_store_n(&attr_size_cache, size, __ATOMIC_RELAXED);
	return size;
}

int pk__features_fit_attr(struct perf_event_attr *attr)
{
	unsigned int ksize = pk_kernel_attr_size();
	const unsigned char *p = (const unsigned char *)attr;

	if (attr->size <= ksize)
		return 0;
	for (unsigned int i = ksize; i < attr->size && i < sizeof(*attr); i++)
		if (p[i])
			return -E2BIG;
	attr->size = ksize;
	return 0;
}

bool pk__features_uses(enum pk_feature f, const struct perf_event_attr *attr,
		       unsigned long flags)
{
	return feat_op(f, (struct perf_event_attr *)attr, &flags, OP_TEST);
}

int pk__features_fallback(struct perf_event_attr *attr, unsigned long *flags)
{
	for (int f = PK_FEAT_NR - 1; f >= 0; f--) {
		if (!feat_op(f, attr, flags, OP_TEST) || pk_feature_has(f))
			continue;
		feat_op(f, attr, flags, OP_CLEAR);
		pk_debug("kernel lacks %s: retrying without it\n",
			 feat_names[f]);
		return f;
	}
	return -1;
}

void pk__features_force(enum pk_feature f, bool supported)
{
	if ((unsigned int)f < PK_FEAT_NR)
		feat_cache[f] = supported ? FEAT_PRESENT : FEAT_MISSING;
}

void pk__features_reset(void)
{
	memset(feat_cache, 0, sizeof(feat_cache));
	attr_size_cache = 0;
}

static int read_sysctl_int(const char *path, int *value)
{
	char *s, *end;
	long n = pk__read_file(path, &s);
	long v;

	if (n < 0)
		return (int)n;
	v = strtol(s, &end, 10);
	n = end == s ? -EINVAL : 0;
	pk__free(s);
	if (!n)
		*value = (int)v;
	return (int)n;
}

int pk_perf_event_paranoid(int *value)
{
	return read_sysctl_int("/proc/sys/kernel/perf_event_paranoid", value);
}

/* CAP_PERFMON (38) or CAP_SYS_ADMIN (21) in /proc/self/status's CapEff. */
static bool has_perf_caps(void)
{
	unsigned long long eff = 0;
	char *s, *p;
	bool yes;

	if (pk__read_file("/proc/self/status", &s) < 0)
		return false;
	p = strstr(s, "\nCapEff:");
	yes = p && sscanf(p + 8, "%llx", &eff) == 1 &&
	      (eff & (1ull << 38 | 1ull << 21));
	pk__free(s);
	return yes;
}

bool pk_can_profile_kernel(void)
{
	int par;

	return (!pk_perf_event_paranoid(&par) && par <= 1) || has_perf_caps();
}

int pk_perf_event_max_sample_rate(int *value)
{
	return read_sysctl_int("/proc/sys/kernel/perf_event_max_sample_rate",
			       value);
}
