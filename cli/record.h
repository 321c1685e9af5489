/* SPDX-License-Identifier: MIT */
/* perfkit record: shared state of set-up (record.c), the ring-draining
 * loop (record_loop.c) and the end-of-run features (record_end.c). */
#ifndef PK_CLI_RECORD_H
#define PK_CLI_RECORD_H
#include <stdbool.h>
#include <stdint.h>
#include <perfkit/perfkit.h>
#include <perfkit/ring.h>
#include <perfkit/perfdata.h>
#include "workload.h"

enum callgraph { CG_NONE, CG_FP, CG_DWARF, CG_LBR };

struct rec_cfg {
	const char **events;
	const char **filters;   /* per -e: the --filter that followed it */
	bool *excl_perf;        /* per -e: --exclude-perf followed it */
	int nr_events;
	uint64_t freq, period;
	bool freq_set, period_set;
	enum callgraph cg;
	unsigned int dwarf_size;
	bool system_wide, no_inherit, switch_events, data_addr, raw,
	     sample_cpu, quiet, overwrite, namespaces, all_cgroups,
	     per_thread,
	     no_buildid, no_buildid_cache;   /* -B, -N */
	int clockid;            /* -k, or -1 */
	const char *freq_arg;   /* -F as given ("max" or a number) */
	bool strict_freq, group, no_samples, sample_period_bit, no_buffering,
	     weight, phys_data, data_page_size, code_page_size, inherit_stat,
	     user_callchains, kernel_callchains, running_time,
	     sample_identifier, all_user, all_kernel, no_bpf_event,
	     buildid_mmap, buildid_all, timestamp_filename,
	     dry_run;
	uint64_t branch_mode;   /* -b/-j: branch_sample_type */
	uint64_t user_regs, intr_regs; /* --user-regs/--intr-regs masks */
	int delay_ms;           /* -D */
	uint64_t max_size;      /* --max-size bytes, or 0 */
	int rt_prio;            /* -r SCHED_FIFO priority, or 0 */
	const char *cpu_list, *pids, *tids, *output;
	size_t mmap_pages;
	size_t aux_pages;       /* -m ,N: AUX area pages, 0 = perf's default */
	bool no_switch_events;  /* --no-switch-events */
	bool mmap_set;          /* -m gave the data pages */
	bool aux_snapshot;      /* -S: AUX area snapshot mode */
	const char *aux_sample; /* --aux-sample[=SIZE] ("" without), or NULL */
	bool snapshot_on_exit;  /* -S e... */
	bool kcore;             /* --kcore: OUTPUT is a directory */
	size_t snapshot_size;   /* -S SIZE bytes, 0: the AUX area's */
	size_t snapshot_user;   /* -S SIZE as given (0: none) */
	int comp_level;
	int verbose;
	int argc;               /* the subcommand's argv (CMDLINE adds the */
	char **orig_argv;       /* "perfkit" before it, from main's argv) */
	char **argv;            /* the command */
};

/* A mapping seen in the stream, for build ids of what samples hit. */
struct rec_map {
	uint32_t pid;
	uint64_t start, end;
	char *name;
	bool hit, kernel;
};

struct rec {
	struct rec_cfg *cfg;
	struct pk_evlist *evlist;
	struct pk_cpu_map *cpus;
	struct pk_thread_map *threads;
	struct pk_rings *rings;
	struct pk_pdwriter *w;
	struct workload wl;
	bool pipe;
	uint64_t samples, lost, lost_samples, bytes, wakeups;
	uint64_t lost_read;      /* PERF_FORMAT_LOST total at the end */
	uint64_t first_time, last_time; /* of samples, for SAMPLE_TIME */
	size_t id_hdr;          /* sample_id trailer of synthesized records */
	struct rec_map *maps;
	int nr_maps, cap_maps;
	int last_hit;           /* map of the previous sample, or -1 */
	bool kernel_hit;
	int tracking;           /* index of the event carrying side-band */
	const char **ev_filter; /* per event: its --filter, or NULL */
	int nr_ev_filter;
	char *pt_filter;        /* the AUX event's, resolved (owned) */
	bool size_stop;         /* --max-size ended the session */
	bool has_dummy;         /* tracking is perf's added dummy event */
	struct pk_evlist *sb;   /* the BPF side-band dummy, or NULL */
	struct pk_rings *sb_rings; /* its rings, or NULL */
	struct pk_bpf_progs *bpf; /* BPF programs for the header, or NULL */
	struct pk_cpu_map *sb_cpus;
	struct pk_thread_map *sb_threads;
	int pt;                 /* index of the Intel PT event, or -1 */
	uint64_t sys_wide;      /* events opened on every CPU, any task
				   (bit per index): perf's "immediate"
				   dummies beside an AUX area event */
	uint64_t pt_immediate;  /* of those, events that start at once */
	struct pk_thread_map *any_threads; /* their maps */
	struct pk_cpu_map *all_cpus;
	int have_sched_switch;  /* AUXTRACE_INFO's: 0, 2 or 3 */
	bool pt_sample;         /* AUX area sampling (--aux-sample) */
};

/* record_loop.c */
int rec_drain(struct rec *r);                 /* one pass over every ring */
void rec_track(struct rec *r, const struct perf_event_header *h);
int rec_write(struct rec *r, const struct perf_event_header *h);
/* record_opts.c */
int rec_resolve_freq(struct rec_cfg *c);
int rec_parse_branch(struct rec_cfg *c, const char *s);
int rec_parse_regs(const char *opt, const char *s, uint64_t *mask);
int rec_parse_delay(struct rec_cfg *c, const char *s);
int rec_parse_size(const char *opt, const char *s, uint64_t *v);
int rec_parse_mmap_pages(struct rec_cfg *c, const char *arg);
/* record_pt.c */
int rec_pt_setup(struct rec *r);
void rec_pt_config(struct rec *r);
int rec_pt_open_error(struct rec *r, int idx, int err);
int rec_pt_sizes(struct rec *r);              /* -m, -S: perf's rules */
void rec_pt_mmap_error(struct rec *r, int err);
int rec_pt_info(struct rec *r);               /* AUXTRACE_INFO */
int rec_pt_refs(struct rec *r);       /* snapshot wrap references, -S */
int rec_addr_filters(struct rec *r);  /* --filter on intel_pt: resolved */
int rec_pt_drain(struct rec *r, int idx);     /* ring IDX's AUX bytes */
int rec_pt_snapshot(struct rec *r);           /* every ring's, -S */
int rec_parse_snapshot(struct rec_cfg *c, const char *arg);
/* record_pt_sample.c: --aux-sample, aux-sample-size, aux-action and
 * aux-output terms (the AUX event's group) */
int rec_pt_sample_options(struct rec *r, bool have_aux);
int rec_pt_sample_sizes(struct rec *r);
/* record_hdr.c: perf's records ahead of the data (file mode) */
int rec_time_conv(struct rec *r);
int rec_id_index(struct rec *r);
int rec_maps(struct rec *r);                  /* THREAD_MAP, CPU_MAP */
int rec_finished_init(struct rec *r);
int rec_pmu_features(struct rec *r);  /* PMU_MAPPINGS, PMU_CAPS, BPF_* */
int rec_event_updates(struct rec *r); /* EVENT_UPDATE: unit, scale, name */
/* record_attr.c */
void rec_config_options(struct rec *r);
int rec_open_bpf_sideband(struct rec *r);
/* *A zeroed as a software dummy event (the side-band ones perf adds) */
void rec_dummy_attr(struct perf_event_attr *a);
void rec_close_bpf_sideband(struct rec *r);
/* The side-band's programs loaded since the last call: their infos into
 * r->bpf, as perf's side-band thread keeps them for the header. */
int rec_bpf_sideband_drain(struct rec *r);

/* record_end.c */
int rec_add_build_ids(struct rec *r);
void rec_free_maps(struct rec *r);
int rec_timestamp_rename(struct rec *r);
/* record_kcore.c: --kcore. The output directory made (an old one moved
 * aside as perf does), DATA its perf.data's path; /proc/kcore readable;
 * DIR/kcore_dir copied. 0, or -1 said. */
int rec_kcore_output(struct rec *r, char *data, size_t len);
int rec_kcore_readable(struct rec *r);
int rec_kcore_copy(struct rec *r);

#endif
