/* SPDX-License-Identifier: MIT */
/*
 * perfkit event model: an ordered list of events (pk_evsel) held by a
 * pk_evlist, built from perf's event syntax or from raw attributes.
 *
 * Syntax accepted by pk_evlist_parse() is the one Linux perf accepts:
 *   cycles,instructions:u        hardware and software events, modifiers
 *   L1-dcache-load-misses        the hw-cache matrix
 *   r1a8                         raw PMU config
 *   sched:sched_switch, sched:*  tracepoints (tracefs), globs expand
 *   mem:0x1000/8:rw              breakpoints
 *   cpu/event=0x3c,umask=0/      dynamic PMUs, terms from sysfs formats
 *   {cycles,instructions}:S      groups with group modifiers
 *   name{cycles,instructions}    a named group
 * The attributes are what perf 6.1's parser builds (checked field by field
 * against `perf stat -vv`): size = sizeof(struct perf_event_attr),
 * exclude_guest = 1 unless a modifier says otherwise, modifiers with perf's
 * exact rules (":u" = exclude_kernel|exclude_hv, "p" implies exclude_guest,
 * group modifiers merge into each member, D/e only on the group leader),
 * and for tracepoints and breakpoints sample_period = 1 (tracepoints also
 * sample_type RAW|TIME|CPU|PERIOD), as perf's parser sets them.
 * Tools add their own settings before opening. perf stat, for one, sets
 * sample_type = IDENTIFIER, read_format = TOTAL_TIME_ENABLED|
 * TOTAL_TIME_RUNNING (|ID|GROUP for groups of 2+), inherit = 1, clears
 * sample_period, and sets disabled and enable_on_exec on group leaders.
 * Term settings that must survive a tool's defaults are listed by
 * pk_evsel_terms().
 *
 * PMUs come from /sys/bus/event_source/devices (read once per process) and
 * tracepoint ids from tracefs (/sys/kernel/tracing, mounted there when no
 * tracefs is found); env PERFKIT_SYSFS (a sysfs root) and PERFKIT_TRACEFS
 * (a tracefs root) override both, for tests. A plain tracepoint name reads
 * one id file; only globs list directories. Not thread-safe.
 */
#ifndef PERFKIT_EVENT_H
#define PERFKIT_EVENT_H

#include <stdint.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_evlist;
struct pk_evsel;

/* Where and why a string failed to parse. */
struct pk_parse_error {
	int pos;       /* byte offset of the offending token in the input, or -1 */
	int len;       /* its length in bytes (>= 1 when pos >= 0) */
	char msg[256]; /* one line, no trailing newline */
	char hint[128]; /* an unknown event or tracepoint name: the nearest
			   known one ("did you mean"), else "" */
};

/* A new, empty list. NULL with errno = ENOMEM on failure. */
PK_API struct pk_evlist *pk_evlist_new(void);

/* Frees the list, its events, and closes every fd they hold. NULL is ok. */
PK_API void pk_evlist_free(struct pk_evlist *evlist);

/*
 * Parses STR (perf syntax, comma-separated, with groups) and appends its
 * events (a tracepoint glob or an alias several PMUs share gives several).
 * On error nothing is appended, ERR (may be NULL) says where and why (pos
 * and len of the offending token, a one-line printable message in perf's
 * words, e.g. "unknown term 'bar' for pmu 'msr' (valid terms: ...)"; see
 * pk_parse_error_snprintf), and the return is PK_ERR_SYNTAX (malformed),
 * PK_ERR_UNKNOWN (no such event, PMU, tracepoint or term), PK_ERR_RANGE (a
 * value does not fit its field), PK_ERR_FORMAT (a sysfs event alias that
 * does not parse), -EINVAL (NULL list or string), -ENOMEM, or -errno from
 * reading sysfs/tracefs. Returns the number of events appended. For an
 * unknown event or tracepoint name ERR->hint is the nearest known name
 * (pk_nearest over pk_event_foreach's names) or "".
 * White space between tokens is ignored; perf's display names are kept
 * (pk_evsel_name): the event's text, "sys:event" for tracepoints, the
 * typed hw-cache name, or the name= term.
 */
PK_API int pk_evlist_parse(struct pk_evlist *evlist, const char *str,
			   struct pk_parse_error *err);

/*
 * Appends perf's default event (record's and top's when no -e is given):
 * cycles with the highest precise_ip the open finds (cycles:P), counted
 * on the host only (exclude_guest) except on AMD, where precise cycles
 * go through IBS, which cannot tell guest from host (perf clears it
 * there too). Returns its index, or -ENOMEM.
 */
PK_API int pk_evlist_add_default(struct pk_evlist *evlist);

/*
 * Appends one event with a caller-built attribute (copied) and a display
 * NAME (copied; NULL derives one from the attribute). It is its own group
 * leader. Returns its index, or -ENOMEM.
 */
PK_API int pk_evlist_add(struct pk_evlist *evlist,
			 const struct perf_event_attr *attr, const char *name);

/*
 * Makes events [first, first + n) one group led by event FIRST, as
 * {a,b,...} does. Returns 0, or -EINVAL for a bad range or one that
 * overlaps an existing group.
 */
PK_API int pk_evlist_group(struct pk_evlist *evlist, int first, int n);

/*
 * Moves event IDX, with the group it leads, to the front of the list
 * (perf record puts its AUX area event first), the others keeping their
 * order. Returns 0, or -EINVAL for a bad index or a group member.
 */
PK_API int pk_evlist_to_front(struct pk_evlist *evlist, int idx);

/*
 * Makes every event from the end of LEADER's group up to IDX a member of
 * that group, in place (perf's evlist__regroup: an aux-output,
 * aux-sample-size or aux-action event after the AUX area event joins its
 * group, and so do the single events between). Returns 0 (also when IDX
 * is a member already), or -EINVAL for bad indexes, LEADER not leading,
 * IDX before LEADER, or an event in another group in between (nothing
 * changed).
 */
PK_API int pk_evlist_regroup(struct pk_evlist *evlist, int leader, int idx);

/* Number of events. */
PK_API int pk_evlist_nr(const struct pk_evlist *evlist);

/* Event IDX (0-based), or NULL when out of range. */
PK_API struct pk_evsel *pk_evlist_evsel(const struct pk_evlist *evlist,
					int idx);

/* The event's attribute; tools may change it until the event is opened. */
PK_API struct perf_event_attr *pk_evsel_attr(struct pk_evsel *evsel);

/* Display name, as perf prints it (e.g. "cycles:u", "sched:sched_switch"). */
PK_API const char *pk_evsel_name(const struct pk_evsel *evsel);

/* Replaces the display name (copied). Returns 0 or -ENOMEM. */
PK_API int pk_evsel_set_name(struct pk_evsel *evsel, const char *name);

/* Index of the event in its list. */
PK_API int pk_evsel_idx(const struct pk_evsel *evsel);

/* The group leader (the event itself when it leads or stands alone). */
PK_API struct pk_evsel *pk_evsel_leader(struct pk_evsel *evsel);

/* Number of events in the group EVSEL leads (1 for a lone event, 0 when
 * EVSEL is not a leader). */
PK_API int pk_evsel_nr_members(const struct pk_evsel *evsel);

/* The name given to the group EVSEL leads ("g" in g{a,b}), or NULL. */
PK_API const char *pk_evsel_group_name(const struct pk_evsel *evsel);

/* Name of the PMU the event belongs to ("cpu", "software", "tracepoint",
 * "breakpoint", "msr", ...), or "" when unknown. */
PK_API const char *pk_evsel_pmu_name(const struct pk_evsel *evsel);

/* The event's unit and scale as perf sets them when it parses the event
 * (what perf record writes in EVENT_UPDATE records): "msec" and 1e-6 for
 * cpu-clock and task-clock made by name (a cycles event that fell back to
 * cpu-clock keeps none); a PMU event written with terms takes its alias's
 * NAME.unit and NAME.scale files (or "" and 1, even software/config=0/);
 * "" and 1 otherwise. */
PK_API const char *pk_evsel_unit(const struct pk_evsel *evsel);
PK_API double pk_evsel_scale(const struct pk_evsel *evsel);

/* The CPUs of the event's PMU (its cpumask or cpus file), which perf keeps
 * as the event's own CPUs, or NULL when the PMU lists none. Borrowed. */
PK_API struct pk_cpu_map *pk_evsel_own_cpus(const struct pk_evsel *evsel);

/*
 * Modifier flags that are not attribute bits: 'S' (sample read: the leader
 * samples its group), 'W' (weak group: reopen as separate events when the
 * group does not fit), 'D' (pinned). A mask of enum pk_evsel_flag.
 */
enum pk_evsel_flag {
	PK_EVSEL_SAMPLE_READ = 1 << 0,
	PK_EVSEL_WEAK_GROUP  = 1 << 1,
	PK_EVSEL_PRECISE_MAX = 1 << 2, /* 'P': open with the highest
					  precise_ip that works (3 down to 0) */
	PK_EVSEL_PERCORE     = 1 << 3, /* percore term: sum over SMT siblings */
	PK_EVSEL_BPF_COUNTER = 1 << 4, /* 'b': perf counts with BPF; perfkit
					  accepts and ignores it */
};
PK_API unsigned int pk_evsel_flags(const struct pk_evsel *evsel);

/*
 * Attribute settings that came from event terms ("/period=1000,time=0/")
 * and that a tool must therefore keep instead of applying its own
 * defaults (perf's per-event config terms win over -c/-F/-T/--call-graph/
 * --no-inherit/--overwrite/-j). A mask of enum pk_evsel_term; the values
 * themselves are already in the attribute:
 *   PK_TERM_PERIOD     sample_period (freq = 0)
 *   PK_TERM_FREQ       sample_freq (freq = 1)
 *   PK_TERM_TIME       PERF_SAMPLE_TIME set or cleared in sample_type
 *   PK_TERM_CALLGRAPH  call-graph/stack-size/max-stack: CALLCHAIN and, for
 *                      dwarf, REGS_USER|STACK_USER with sample_regs_user,
 *                      sample_stack_user and exclude_callchain_user as perf
 *                      record sets them; for lbr, BRANCH_STACK
 *   PK_TERM_INHERIT    inherit
 *   PK_TERM_OVERWRITE  write_backward
 *   PK_TERM_BRANCH     branch_sample_type and BRANCH_STACK
 *   PK_TERM_AUX_SAMPLE aux_sample_size (and PERF_SAMPLE_AUX when not 0)
 */
enum pk_evsel_term {
	PK_TERM_PERIOD    = 1 << 0,
	PK_TERM_FREQ      = 1 << 1,
	PK_TERM_TIME      = 1 << 2,
	PK_TERM_CALLGRAPH = 1 << 3,
	PK_TERM_INHERIT   = 1 << 4,
	PK_TERM_OVERWRITE = 1 << 5,
	PK_TERM_BRANCH    = 1 << 6,
	PK_TERM_AUX_SAMPLE = 1 << 7,
};
PK_API unsigned int pk_evsel_terms(const struct pk_evsel *evsel);
/* The text of EVSEL's aux-action term (pause, resume, start-paused: the
 * recorder checks it, as perf does), or NULL. */
PK_API const char *pk_evsel_aux_action(const struct pk_evsel *evsel);
/* The attr's aux_action word (kernel 6.13: the bits below; an older
 * <linux/perf_event.h> names the word __reserved_3). */
enum pk_aux_action {
	PK_AUX_START_PAUSED = 1u << 0,   /* the AUX event starts paused */
	PK_AUX_PAUSE        = 1u << 1,   /* an overflow pauses the group's
					    AUX event */
	PK_AUX_RESUME       = 1u << 2,   /* an overflow resumes it */
};
PK_API uint32_t pk_attr_aux_action(const struct perf_event_attr *attr);
PK_API void pk_attr_set_aux_action(struct perf_event_attr *attr, uint32_t v);

/*
 * The value of format term TERM of the event's PMU ("tsc" of intel_pt,
 * "event" of cpu) as it stands in the attribute's config, config1 or
 * config2, into *VAL. 0, -ENOENT when the PMU has no such term, -EINVAL
 * for NULL arguments.
 */
PK_API int pk_evsel_format_value(const struct pk_evsel *evsel,
				 const char *term, uint64_t *val);

/*
 * perf record's checks of an Intel PT event (PMU intel_pt), against the
 * PMU's caps/ files: pt is forced on where the PMU has a pt term
 * (*FORCED_PT, may be NULL, says so: perf warns "pt=0 doesn't make sense,
 * forcing pt=1"), then cyc_thresh, mtc_period and psb_period must be
 * values their caps bitmask (caps/cycle_thresholds, caps/mtc_periods,
 * caps/psb_periods) allows, 0 always, and only 0 where the support flag
 * (caps/psb_cyc, caps/mtc) reads 0. Returns 0 (also for an event of
 * another PMU), or -EINVAL with MSG holding perf's message, e.g.
 * "Invalid mtc_period for intel_pt. Valid values are: 0,3,6,9".
 * Intel PT events start from perf's default config, built from the same
 * caps/ and format/ files ("tsc,mtc,mtc_period=3,psb_period=3,pt,branch"
 * on a Skylake, logged at debug level), and their terms replace those
 * bits (tsc=0 clears tsc).
 */
PK_API int pk_evsel_pt_check(struct pk_evsel *evsel, bool *forced_pt,
			     char *msg, size_t size);

/*
 * The bytes between PSBs an Intel PT event asks for, as perf record
 * reckons them (intel_pt_psb_period): 2^(psb_period + 11), or 256 where
 * the PMU's caps/topa_multiple_entries is missing or 0 (early hardware
 * with frequent PSBs). 0 for an event of another PMU.
 */
PK_API size_t pk_evsel_pt_psb_bytes(const struct pk_evsel *evsel);

/*
 * Whether the user gave format term TERM of the event's PMU (perf's
 * evsel__get_config_term: "psb_period" in intel_pt/psb_period=0/ is
 * given; a PMU default's bits are not).
 */
PK_API bool pk_evsel_term_given(const struct pk_evsel *evsel,
				const char *term);

/*
 * Sets format term TERM to VAL in the event's config unless the user gave
 * it (perf's evsel__set_config_if_unset). 0, -ENOENT when the PMU has no
 * such term, -EINVAL for NULL arguments.
 */
PK_API int pk_evsel_set_term_if_unset(struct pk_evsel *evsel,
				      const char *term, uint64_t val);

/* The address filters the event's PMU takes (its nr_addr_filters file;
 * 0 when none, or for NULL). */
PK_API int pk_evsel_nr_addr_filters(const struct pk_evsel *evsel);

/*
 * perf record's address filters (--filter on an event whose PMU takes
 * them, such as intel_pt) made the kernel's string: FILTER holds items
 * "filter|start|stop|tracestop <start symbol or address> [/ <end symbol
 * or size>] [@<file name>]" separated by spaces or commas, at most
 * MAX_NR; *OUT (free() it) gets "ACTION 0xADDR[/0xSIZE]
 * [@REALPATH]" items joined by commas, tracestop as a stop range, kernel
 * symbols resolved through KALLSYMS (NULL: /proc/kallsyms) as perf does
 * (global, "#N"'th, or the only one; "*": the whole kernel), "*" @ FILE
 * the whole file, "SYM @ FILE" among the symbols perf record loads from
 * FILE (.symtab and .dynsym, aliases kept: perf's "Multiple symbols with
 * name" for a symbol in both; file offsets, PLT entries as NAME@plt).
 * Returns 0, or a negative errno; MSG holds perf's lines either way
 * (on failure "Failed to parse address filter: '...'" and the format
 * help; on success those perf prints and goes on after, such as "File
 * '...' not found or has no symbols." before a whole file's "*").
 */
PK_API int pk_addr_filter_resolve(const char *filter, int max_nr,
				  const char *kallsyms, char **out,
				  char *msg, size_t size);

/* The PERF_SAMPLE_BRANCH_* bit of one of perf's branch filter names
 * ("any", "any_call", "u", "save_type", "stack", "priv", ...: the names
 * of perf record -j and of the branch_type term), or 0 for none. */
PK_API uint64_t pk_branch_filter_bit(const char *name);

/*
 * perf's tool events: duration_time, user_time and system_time parse to a
 * software dummy event (what perf opens for them); their value is the
 * tool's to compute: wall time of the run, and the user and system CPU
 * time of the workload (perf reports them in ns).
 */
enum pk_evsel_tool {
	PK_TOOL_NONE          = 0,
	PK_TOOL_DURATION_TIME = 1,
	PK_TOOL_USER_TIME     = 2,
	PK_TOOL_SYSTEM_TIME   = 3,
};
/* The event's enum pk_evsel_tool (PK_TOOL_NONE for a kernel event). */
PK_API int pk_evsel_tool(const struct pk_evsel *evsel);

/*
 * Formats ATTR the way `perf stat -vv` and `perf record -vv` print it: one
 * "  key                              value" line per non-zero field, in
 * perf's order and with perf's value spellings (sample_type and read_format
 * as |-joined names, config as hex). Does not include the dashed rules.
 * Returns the length the full text needs (like snprintf).
 */
PK_API int pk_attr_snprintf(char *buf, size_t size,
			    const struct perf_event_attr *attr);

/*
 * Renders ERR for STR the way perf does, two lines (no trailing newline):
 *   event syntax error: 'STR'
 *                        \___ MSG
 * Long inputs are cut around the error with "..". Returns the length the
 * full text needs (like snprintf).
 */
PK_API int pk_parse_error_snprintf(char *buf, size_t size, const char *str,
				   const struct pk_parse_error *err);

/* ---- enumeration, for `perfkit list` ---- */

enum pk_event_class {
	PK_EVCLASS_HARDWARE   = 1 << 0, /* cycles, instructions, ... */
	PK_EVCLASS_SOFTWARE   = 1 << 1, /* cpu-clock, page-faults, ... */
	PK_EVCLASS_HW_CACHE   = 1 << 2, /* L1-dcache-load-misses, ... */
	PK_EVCLASS_TRACEPOINT = 1 << 3, /* sched:sched_switch (tracefs) */
	PK_EVCLASS_PMU_EVENT  = 1 << 4, /* msr/tsc/ (sysfs events/) */
	PK_EVCLASS_PMU_FORMAT = 1 << 5, /* msr/event=N/ (sysfs format/) */
	PK_EVCLASS_SYNTAX     = 1 << 6, /* rNNN, mem:ADDR, TYPE:CONFIG */
	PK_EVCLASS_TOOL       = 1 << 7, /* duration_time, user_time, ... */
	PK_EVCLASS_ALL        = 0xff,
};

struct pk_event_info {
	enum pk_event_class cls;
	const char *name;     /* what -e takes: "cycles", "msr/tsc/",
				 "msr/event=N/" for a format term */
	const char *alias;    /* another accepted spelling, or NULL */
	const char *pmu;      /* PMU name for PMU classes, else NULL */
	const char *desc;     /* perf list's kind: "Hardware event",
				 "Software event", "Hardware cache event",
				 "Tracepoint event", "Kernel PMU event", "Tool event",
				 "PMU format term", "Raw event descriptor"... */
	const char *encoding; /* PMU events: the alias terms
				 ("event=0x00"); formats: their bits
				 ("config:0-63"); else NULL */
	uint32_t type;        /* attr type (PMU type for PMU classes) */
	uint64_t config;      /* attr config where fixed, else 0 */
};

typedef int (*pk_event_fn)(const struct pk_event_info *info, void *arg);

/*
 * Calls FN for every known event of the CLASSES (a mask of enum
 * pk_event_class) whose name (or alias) matches GLOB (fnmatch(3); NULL
 * matches all). Order: hardware, software, hw-cache, tracepoints, PMU
 * events and formats, tool events, syntax; within a class in perf
 * list order (fixed tables, tracepoints and PMUs sorted by name). Events
 * are not tried: a tool marks unopenable ones itself. Pointers in INFO are
 * valid during the call only. FN returning non-zero stops the walk and is
 * returned; otherwise returns the number of calls, or -errno (a missing
 * tracefs or PMU directory is not an error: they contribute nothing).
 */
PK_API int pk_event_foreach(unsigned int classes, const char *glob,
			    pk_event_fn fn, void *arg);

/*
 * The "tracing data" perf.data files carry so that tracepoint samples can
 * be formatted (HEADER_TRACING_DATA, version 0.6): tracefs's header_page
 * and header_event, the ftrace formats, the format of every tracepoint in
 * EVLIST grouped by system, an empty kallsyms (as perf), printk formats
 * and saved cmdlines.
 * On success *OUT (freed by the caller with free(3)) holds the bytes and
 * the size is returned; -errno when tracefs cannot be read.
 */
PK_API long pk_tracing_data_build(const struct pk_evlist *evlist, void **out);

#ifdef __cplusplus
}
#endif
#endif
