/* SPDX-License-Identifier: MIT */
/*
 * perfkit record: an Intel PT event (-e intel_pt//) set up as perf 6.1's
 * record options for it do: one such event at most, pt and the period
 * terms checked against the PMU's caps (the library's check), the event
 * first, sampling every AUX record (period 1) with the CPU in per-CPU
 * mode, and beside it the dummies perf adds: context switches of every
 * task when the trace has timestamps (a dummy on every CPU, or
 * --switch-events on the tracking event for CPU-wide targets), the
 * tracking dummy (mmap, comm, task), and, when the kernel is traced,
 * text_poke and ksymbol on a dummy on every CPU. Every event samples its
 * identifier. The AUX area (record_pt_aux.c) is mapped beside each
 * ring with perf's sizes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "record.h"

#define PT_PMU "intel_pt"

static bool is_pt(struct pk_evsel *e)
{
	return !strcmp(pk_evsel_pmu_name(e), PT_PMU);
}

/* The index of the one Intel PT event, -1 for none, -EINVAL for two. */
static int find_pt(struct rec *r)
{
	int found = -1;

	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		if (!is_pt(pk_evlist_evsel(r->evlist, i)))
			continue;
		if (found >= 0) {
			fprintf(stderr, "There may be only one " PT_PMU
				" event\n");
			return -EINVAL;
		}
		found = i;
	}
	return found;
}

/* perf's per-CPU test: root, or perf_event_paranoid at most 0. */
static bool can_record_cpu_wide(void)
{
	int p;

	return geteuid() == 0 || (!pk_perf_event_paranoid(&p) && p <= 0);
}

/* Sampling every record unless -F or -c says otherwise (perf's user
 * frequency or period wins over the AUX events' period 1). */
static void period_one(const struct rec_cfg *c, struct perf_event_attr *a)
{
	if (c->freq_set || c->period_set)
		return;
	a->freq = 0;
	a->sample_period = 1;
}

/* perf's AUX dummy: user space only, the host, period 1; SYS_WIDE ones
 * are opened on every CPU for every task. Index or -errno. */
static int add_aux_dummy(struct rec *r, bool sys_wide)
{
	struct perf_event_attr a;
	int idx;

	rec_dummy_attr(&a);
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.exclude_guest = 1;
	period_one(r->cfg, &a);
	idx = pk_evlist_add(r->evlist, &a, "dummy:u");
	if (idx >= 0 && sys_wide)
		r->sys_wide |= 1ULL << idx;
	return idx;
}

static int checks(struct pk_evsel *e)
{
	char msg[512];
	bool forced;
	int err = pk_evsel_pt_check(e, &forced, msg, sizeof(msg));

	if (forced)
		fprintf(stderr, "pt=0 doesn't make sense, forcing pt=1\n");
	if (err)
		fprintf(stderr, "%s\n", msg);
	return err;
}

/* A kernel without context_switch (before 4.3): perf's sched:sched_switch
 * on every CPU for every task, from the start, instead (AUXTRACE_INFO's
 * have_sched_switch 1); without the tracepoint, nothing. */
static int add_sched_switch(struct rec *r)
{
	struct pk_parse_error pe;
	int idx = pk_evlist_parse(r->evlist, "sched:sched_switch", &pe);

	if (idx < 0) {
		if (r->cfg->verbose >= 2)
			fprintf(stderr, "Unable to select sched:sched_switch\n");
		return 0;
	}
	idx = pk_evlist_nr(r->evlist) - 1;
	r->sys_wide |= 1ULL << idx;
	r->have_sched_switch = 1;
	return 0;
}

/* Context switches of every task, needed to tell threads apart on a CPU
 * where the trace has timestamps to match them against. */
static int add_switches(struct rec *r, bool *tracking_now)
{
	struct rec_cfg *c = r->cfg;
	uint64_t tsc = 0;
	int idx;

	if (pk_evsel_format_value(pk_evlist_evsel(r->evlist, r->pt), "tsc",
				  &tsc) || !tsc || c->no_switch_events ||
	    (c->per_thread && !c->system_wide && !c->cpu_list))
		return 0;
	if (!pk_feature_has(PK_FEAT_CONTEXT_SWITCH))
		return add_sched_switch(r);
	if (c->system_wide || c->cpu_list || !can_record_cpu_wide()) {
		/* on the tracking event, which then starts at once */
		c->switch_events = true;
		*tracking_now = true;
		r->have_sched_switch = c->system_wide || c->cpu_list ? 3 : 2;
		return 0;
	}
	idx = add_aux_dummy(r, true);
	if (idx < 0)
		return idx;
	pk_evsel_attr(pk_evlist_evsel(r->evlist, idx))->context_switch = 1;
	c->switch_events = false; /* the dummy has them */
	r->have_sched_switch = 3;
	return 0;
}

int rec_pt_setup(struct rec *r)
{
	struct rec_cfg *c = r->cfg;
	struct perf_event_attr *a;
	uint64_t tsc = 0;
	bool now = false;
	int idx = find_pt(r), err;

	r->pt = -1;
	if (idx == -1 && c->aux_snapshot) {
		fprintf(stderr, "No AUX area tracing to snapshot\n");
		return -EINVAL;
	}
	if (idx < -1)
		return idx;
	if ((err = rec_pt_sample_options(r, idx >= 0)))
		return err;
	if (idx < 0)
		return 0;
	idx = find_pt(r);	/* (the sampled events may have moved) */
	if (c->aux_snapshot && r->pt_sample) {
		fprintf(stderr, "Snapshot mode (" PT_PMU " PMU) and sample trace "
			"cannot be used together\n");
		return -EINVAL;
	}
	if (r->pt_sample)
		pk_evsel_set_term_if_unset(pk_evlist_evsel(r->evlist, idx),
					   "psb_period", 0);
	err = checks(pk_evlist_evsel(r->evlist, idx));
	if (!err)
		err = pk_evlist_to_front(r->evlist, idx);
	if (err)
		return err;
	r->pt = 0;
	c->sample_identifier = true; /* perf's full_auxtrace */
	a = pk_evsel_attr(pk_evlist_evsel(r->evlist, 0));
	period_one(c, a);
	err = add_switches(r, &now);
	if (err)
		return err;
	/* user space moves between CPUs: with -C, side-band from all */
	err = add_aux_dummy(r, c->cpu_list && !a->exclude_user);
	if (err < 0)
		return err;
	r->tracking = err;
	if (now)
		r->pt_immediate |= 1ULL << err;
	pk_evsel_format_value(pk_evlist_evsel(r->evlist, 0), "tsc", &tsc);
	if (tsc && !a->exclude_kernel && pk_feature_has(PK_FEAT_TEXT_POKE) &&
	    can_record_cpu_wide()) {
		err = add_aux_dummy(r, true);
		if (err < 0)
			return err;
		a = pk_evsel_attr(pk_evlist_evsel(r->evlist, err));
		a->text_poke = 1;
		a->ksymbol = 1;
	}
	return r->pt_sample ? rec_pt_sample_sizes(r) : rec_pt_sizes(r);
}

/* perf's privileged test for the buffer sizes: root or paranoid < 0 */
static bool privileged(void)
{
	int p;

	return geteuid() == 0 || (!pk_perf_event_paranoid(&p) && p < 0);
}

int rec_pt_sizes(struct rec *r)
{
	struct rec_cfg *c = r->cfg;
	size_t data = c->mmap_set ? c->mmap_pages : 0;
	char msg[160];
	int err = pk_ring_aux_pt_sizes(privileged(), c->aux_snapshot, &data,
				       &c->aux_pages, &c->snapshot_size, msg,
				       sizeof(msg));

	if (err) {
		fprintf(stderr, "%s\n", msg);
		return err;
	}
	if (data)
		c->mmap_pages = data;
	return 0;
}

/* After the common settings: the AUX event's CPU, watermark and guest
 * bit, the dummies' CPU and immediate start. */
void rec_pt_config(struct rec *r)
{
	const struct rec_cfg *c = r->cfg;
	bool per_cpu = !(c->per_thread && !c->system_wide && !c->cpu_list);
	struct perf_event_attr *a;

	if (r->pt < 0)
		return;
	a = pk_evsel_attr(pk_evlist_evsel(r->evlist, r->pt));
	if (per_cpu)
		a->sample_type |= PERF_SAMPLE_CPU;
	a->exclude_guest = 0;
	if (!r->pt_sample)
		a->aux_watermark = (uint32_t)(c->aux_pages *
					      (size_t)sysconf(_SC_PAGESIZE) / 4);
	a = pk_evsel_attr(pk_evlist_evsel(r->evlist, r->tracking));
	if (per_cpu)
		a->sample_type |= PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		a = pk_evsel_attr(pk_evlist_evsel(r->evlist, i));
		if (r->pt_immediate & (1ULL << i)) {
			a->disabled = 0;
			a->enable_on_exec = 0;
		}
		if (!(r->sys_wide & (1ULL << i)) || i == r->tracking)
			continue;
		a->disabled = 0;
		a->enable_on_exec = 0;
		a->sample_type |= PERF_SAMPLE_TIME;
		if (a->context_switch)
			a->sample_type |= PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
		if (a->text_poke) /* it carries the ksymbol records */
			pk_evsel_attr(pk_evlist_evsel(r->evlist,
					      r->tracking))->ksymbol = 0;
	}
}

/* perf's words when the kernel refuses the AUX event; 1 when handled. */
int rec_pt_open_error(struct rec *r, int idx, int err)
{
	if (idx != r->pt || (err != -ENOENT && err != -ENODEV &&
			     err != -EOPNOTSUPP))
		return 0;
	fprintf(stderr, "Error:\nThe %s event is not supported.\n",
		pk_evsel_name(pk_evlist_evsel(r->evlist, idx)));
	return 1;
}
