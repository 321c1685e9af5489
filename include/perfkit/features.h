/* SPDX-License-Identifier: MIT */
/*
 * perfkit kernel features: what this kernel's perf_event_open accepts,
 * probed once (on first use) and cached, and the PMUs it has. The counter
 * layer uses the probes to fall back the way perf does: when an open fails
 * with EINVAL it clears, one at a time and newest first, the attribute bits
 * this kernel lacks, and retries.
 */
#ifndef PERFKIT_FEATURES_H
#define PERFKIT_FEATURES_H

#include <stdbool.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Probed features, oldest first (kernel version that added each). */
enum pk_feature {
	PK_FEAT_EXCLUDE_GUEST,  /* exclude_guest / exclude_host (3.2) */
	PK_FEAT_CLOEXEC,        /* PERF_FLAG_FD_CLOEXEC (3.14) */
	PK_FEAT_MMAP2,          /* mmap2 (3.16) */
	PK_FEAT_COMM_EXEC,      /* comm_exec (3.16) */
	PK_FEAT_CLOCKID,        /* use_clockid (4.1) */
	PK_FEAT_CONTEXT_SWITCH, /* context_switch (4.3) */
	PK_FEAT_WRITE_BACKWARD, /* write_backward (4.6) */
	PK_FEAT_NAMESPACES,     /* namespaces (4.11) */
	PK_FEAT_KSYMBOL,        /* ksymbol (5.0) */
	PK_FEAT_BPF_EVENT,      /* bpf_event (5.0) */
	PK_FEAT_CGROUP,         /* cgroup records (5.7) */
	PK_FEAT_TEXT_POKE,      /* text_poke (5.8) */
	PK_FEAT_BUILD_ID,       /* build_id (5.12) */
	PK_FEAT_INHERIT_THREAD, /* inherit_thread (5.13) */
	PK_FEAT_REMOVE_ON_EXEC, /* remove_on_exec (5.13) */
	PK_FEAT_SIGTRAP,        /* sigtrap (5.13) */
	PK_FEAT_READ_LOST,      /* PERF_FORMAT_LOST (6.0) */
	PK_FEAT_NR,
};

/* True when the kernel accepts FEATURE (probed on first call, cached).
 * False for an unknown FEATURE. */
PK_API bool pk_feature_has(enum pk_feature feature);
/* The feature's name ("cloexec", "exclude_guest", ...), or NULL. */
PK_API const char *pk_feature_name(enum pk_feature feature);

/* The largest struct perf_event_attr size the kernel accepts (probed with
 * E2BIG, cached): at most sizeof(struct perf_event_attr). */
PK_API unsigned int pk_kernel_attr_size(void);

/* Reads /proc/sys/kernel/perf_event_paranoid (fresh, not cached) into
 * *VALUE. 0, or -errno when the file cannot be read (-ENOENT: no
 * perf_event support at all). */
PK_API int pk_perf_event_paranoid(int *value);

/* Whether this process may count in the kernel: perf_event_paranoid at
 * most 1, or CAP_PERFMON or CAP_SYS_ADMIN in its effective set (perf's
 * perf_event_can_profile_kernel()). */
PK_API bool pk_can_profile_kernel(void);

/* Reads /proc/sys/kernel/perf_event_max_sample_rate (fresh: the kernel
 * lowers it when sampling interrupts take too long) into *VALUE, in Hz.
 * 0, or -errno when the file cannot be read. */
PK_API int pk_perf_event_max_sample_rate(int *value);

/* PMUs in /sys/bus/event_source/devices (under $PERFKIT_SYSFS when set),
 * sorted by name, read once: the list the event parser uses. */
PK_API int pk_pmu_nr(void);
/* Name of PMU IDX, or NULL when out of range. */
PK_API const char *pk_pmu_name(int idx);
/* perf_event_attr.type of PMU IDX, or -EINVAL when out of range. */
PK_API int pk_pmu_type(int idx);
/* The index (pk_pmu_name's) of the PMU at place POS in the devices
 * directory as readdir lists it (perf's scan order), or -EINVAL when out
 * of range. */
PK_API int pk_pmu_dir_idx(int pos);
/* The type of the PMU called NAME, or -ENOENT. */
PK_API int pk_pmu_find(const char *name);
/* PMU IDX's caps/ files in directory order, as perf lists them: *NAMES
 * and *VALUES (each value's first line) get NULL-terminated arrays that
 * one free() of each releases (the strings live in them). Returns the
 * count (0 without caps/), or -EINVAL / -ENOMEM. */
PK_API int pk_pmu_caps(int idx, char ***names, char ***values);

#ifdef __cplusplus
}
#endif
#endif
