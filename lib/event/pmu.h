/* SPDX-License-Identifier: MIT */
/*
 * Internal: PMUs from sysfs (type, format terms, event aliases, cpumask)
 * and tracepoints from tracefs. Both roots can be overridden for tests:
 * env PERFKIT_SYSFS (a sysfs root; PMUs live in
 * $PERFKIT_SYSFS/bus/event_source/devices) and PERFKIT_TRACEFS (a tracefs
 * root, holding events/), or pk__event_set_roots(). The PMU list is read
 * once per process (per root) and each PMU's formats and aliases on first
 * use. Not thread-safe on first use.
 */
#ifndef PK_EVENT_PMU_H
#define PK_EVENT_PMU_H

#include <stdint.h>
#include <stdbool.h>

enum { PK_CFG0, PK_CFG1, PK_CFG2, PK_NR_CFG };

struct pk_pmu_format {
	char *name;
	int field;      /* PK_CFG0.. */
	uint64_t mask;  /* bits of the field the value is spread over */
};

struct pk_pmu_alias {
	char *name;
	char *terms;    /* e.g. "event=0x3c,umask=0x00" */
	char *desc;     /* NULL when none */
	char *unit;     /* NAME.unit (perf's first 31 bytes), or NULL */
	double scale;   /* NAME.scale, 0 when none */
};

struct pk_pmu {
	char *name;
	uint32_t type;
	int dir_pos;    /* its place in the devices directory (readdir) */
	bool loaded;    /* formats, aliases and cpus read */
	struct pk_pmu_format *formats;
	int nr_formats;
	struct pk_pmu_alias *aliases;
	int nr_aliases;
	char *cpus;     /* cpumask/cpus text, trimmed, or NULL */
	bool has_default;        /* the PMU's events start from     */
	uint64_t default_config; /* default_config, and its terms  */
				 /* replace bits (perf: intel_pt)  */
};

/* Overrides the roots (NULL = default / environment) and drops caches. */
void pk__event_set_roots(const char *sysfs, const char *tracefs);

/* Every PMU (sorted by name), loaded lazily. Count or -errno. */
int pk__pmu_all(struct pk_pmu **out);
/* A PMU by exact name, formats and aliases loaded; NULL when unknown. */
struct pk_pmu *pk__pmu_find(const char *name);
/* The PMU of type TYPE, or NULL. */
struct pk_pmu *pk__pmu_by_type(uint32_t type);
/* Loads formats/aliases/cpus. 0 or -errno. */
int pk__pmu_load(struct pk_pmu *pmu);
const struct pk_pmu_format *pk__pmu_format(const struct pk_pmu *pmu,
					   const char *name);
const struct pk_pmu_alias *pk__pmu_alias(const struct pk_pmu *pmu,
					 const char *name);
/* Reads the number in file REL of PMU P's directory ("caps/mtc") in BASE
 * (10, 16) into *VAL. 0, -EINVAL when it holds no number, or -errno. */
int pk__pmu_read_num(const struct pk_pmu *p, const char *rel, int base,
		     uint64_t *val);
/* Intel PT (pt.c): perf's default config of PMU P from its caps/ and
 * format/ (debug-logged as perf's -vv prints it). 0 or -errno. */
int pk__pt_default_config(const struct pk_pmu *p, uint64_t *config);
/* Largest value FORMAT holds. */
uint64_t pk__format_max(const struct pk_pmu_format *fmt);
/* Spreads VAL over FMT's bits in *CFG (bits outside the mask untouched). */
void pk__format_put(const struct pk_pmu_format *fmt, uint64_t val,
		    uint64_t *cfg);
/* Parses a format file's text ("config1:0-7,32-35"). 0 or -EINVAL. */
int pk__format_parse(const char *text, int *field, uint64_t *mask);

/* The tracefs root (mounting tracefs at /sys/kernel/tracing when no tracefs
 * is found), or NULL with errno set. */
const char *pk__tracefs(void);
/* The tracefs root set by pk__event_set_roots or PERFKIT_TRACEFS, or NULL. */
const char *pk__tracefs_override(void);
/* Forgets the tracefs root found by pk__tracefs (the roots changed). */
void pk__tracefs_reset(void);
/* Id of tracepoint SYS:EVENT (exact names). >= 0 or -errno. */
long long pk__tracepoint_id(const char *sys, const char *event);
/* Calls FN for every SYS:EVENT matching the globs, in directory order.
 * FN returning non-zero stops (returned). Returns the number of matches,
 * or -errno. */
int pk__tracepoint_glob(const char *sys_glob, const char *ev_glob,
			int (*fn)(const char *sys, const char *ev,
				  long long id, void *arg),
			void *arg);

#endif
