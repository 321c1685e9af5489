/* SPDX-License-Identifier: MIT */
/*
 * perfkit record: the perf_event_attr settings of perf 6.1's record
 * options beyond the basic sampling set up in record.c, the group and
 * sample-read rules, the choice between ID and IDENTIFIER, and the
 * BPF side-band event perf opens next to the recorded ones (its
 * programs' infos go to the header).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "record.h"

#define TIMES (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)

static void config_sample_bits(const struct rec_cfg *c, struct perf_event_attr *a,
			       bool dummy)
{
	if (c->sample_period_bit)
		a->sample_type |= PERF_SAMPLE_PERIOD;
	if (c->weight)
		a->sample_type |= PERF_SAMPLE_WEIGHT_STRUCT;
	if (c->data_addr)
		a->sample_type |= PERF_SAMPLE_DATA_SRC;
	if (c->phys_data)
		a->sample_type |= PERF_SAMPLE_PHYS_ADDR;
	if (c->data_page_size)
		a->sample_type |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (c->code_page_size)
		a->sample_type |= PERF_SAMPLE_CODE_PAGE_SIZE;
	if (dummy) /* perf gives the dummy neither register set */
		return;
	if (c->user_regs) {
		a->sample_type |= PERF_SAMPLE_REGS_USER;
		a->sample_regs_user |= c->user_regs;
	}
	if (c->intr_regs) {
		a->sample_type |= PERF_SAMPLE_REGS_INTR;
		a->sample_regs_intr = c->intr_regs;
	}
}

/* The settings of one event; the tracking dummy gets no branch stack
 * and no registers but for DWARF call graphs. */
static void config_event(const struct rec_cfg *c, struct pk_evsel *e,
			 bool dummy)
{
	struct perf_event_attr *a = pk_evsel_attr(e);
	unsigned int terms = pk_evsel_terms(e);

	config_sample_bits(c, a, dummy);
	if (pk_evsel_flags(e) & PK_EVSEL_PRECISE_MAX)
		a->precise_ip = 3; /* the open walks it down */
	if (c->branch_mode && !(terms & PK_TERM_BRANCH) && !dummy) {
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
		a->branch_sample_type = c->branch_mode;
	}
	if (a->sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (c->user_callchains)
			a->exclude_callchain_kernel = 1;
		if (c->kernel_callchains)
			a->exclude_callchain_user = 1;
	}
	if (c->inherit_stat) {
		a->inherit_stat = 1;
		a->read_format |= TIMES;
	}
	if (c->running_time)
		a->read_format |= TIMES;
	if (c->no_samples)
		a->sample_period = 0;
	if (c->all_user)
		a->exclude_kernel = 1;
	if (c->all_kernel)
		a->exclude_user = 1;
	if (c->no_buffering) {
		a->watermark = 0;
		a->wakeup_events = 1;
	}
}

/* The tracking dummy perf adds for -a/-C/-D: period 1 (it samples
 * nothing itself), and it runs at once, or from the command's exec
 * under -D. The option settings follow (config_event). */
static void config_dummy(const struct rec_cfg *c, struct perf_event_attr *a)
{
	a->sample_period = 1;
	a->freq = 0;
	if (!c->sample_period_bit)
		a->sample_type &= ~(uint64_t)PERF_SAMPLE_PERIOD;
	a->exclude_guest = 0;
	a->disabled = c->delay_ms > 0 && !c->system_wide && !c->cpu_list;
	a->enable_on_exec = a->disabled;
}

/* Group members start with their leader; under :S only the leader
 * samples, reading every member's count (PERF_FORMAT_GROUP), which the
 * kernel cannot do for inherited events. */
static void config_group(struct pk_evsel *e)
{
	struct pk_evsel *l = pk_evsel_leader(e);
	struct perf_event_attr *a = pk_evsel_attr(e);
	bool sread = pk_evsel_flags(l) & PK_EVSEL_SAMPLE_READ;

	if (l != e) {
		a->disabled = 0;
		a->enable_on_exec = 0;
	}
	if (!sread && !(pk_evsel_flags(e) & PK_EVSEL_SAMPLE_READ))
		return;
	a->sample_type |= PERF_SAMPLE_READ | PERF_SAMPLE_ID;
	a->read_format |= PERF_FORMAT_ID;
	if (pk_evsel_nr_members(l) > 1) {
		a->read_format |= PERF_FORMAT_GROUP;
		a->inherit = 0;
	}
	if (l == e || !sread)
		return;
	if (!(pk_evsel_terms(e) & (PK_TERM_PERIOD | PK_TERM_FREQ))) {
		a->freq = 0;
		a->sample_period = 0;
	}
	if (!(pk_evsel_terms(e) & PK_TERM_OVERWRITE))
		a->write_backward = 0;
	/* members never sample: their values come in the leader's
	 * samples, so they take its layout (the leader comes first) */
	a->sample_type = pk_evsel_attr(l)->sample_type;
}

/* IDENTIFIER when asked for or when the events' sample layouts differ,
 * ID when several events share one layout or when writing a pipe (as perf
 * 6.1 decides: its pipe mode sets sample_id). */
static void config_sample_id(const struct rec_cfg *c, struct pk_evlist *l)
{
	int n = pk_evlist_nr(l);
	uint64_t first = pk_evsel_attr(pk_evlist_evsel(l, 0))->sample_type;
	bool ident = c->sample_identifier;

	if (!ident && n < 2 && strcmp(c->output, "-"))
		return;
	for (int i = 1; i < n; i++)
		ident |= pk_evsel_attr(pk_evlist_evsel(l, i))->sample_type != first;
	for (int i = 0; i < n; i++) {
		struct perf_event_attr *a = pk_evsel_attr(pk_evlist_evsel(l, i));

		if (ident) {
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_ID;
			a->sample_type |= PERF_SAMPLE_IDENTIFIER;
		} else {
			a->sample_type |= PERF_SAMPLE_ID;
		}
		a->read_format |= PERF_FORMAT_ID;
	}
}

void rec_config_options(struct rec *r)
{
	const struct rec_cfg *c = r->cfg;
	int n = pk_evlist_nr(r->evlist);

	for (int i = 0; i < n; i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i);
		struct perf_event_attr *a = pk_evsel_attr(e);

		if (i == r->tracking && r->has_dummy) {
			config_dummy(c, a);
			config_event(c, e, true);
			continue;
		}
		config_event(c, e, false);
		config_group(e);
		if (c->delay_ms > 0)
			a->enable_on_exec = 0;
	}
	if (c->buildid_mmap)
		pk_evsel_attr(pk_evlist_evsel(r->evlist, r->tracking))->build_id = 1;
	config_sample_id(c, r->evlist);
	if (c->user_regs && c->cg == CG_DWARF && !c->quiet)
		fprintf(stderr, "WARNING: The use of --call-graph=dwarf may "
			"require all the user registers, specifying a subset "
			"with --user-regs may render DWARF unwinding unreliable, "
			"so the minimal registers set (IP, SP) is explicitly "
			"forced.\n");
}

/* A dummy attr: software, PERF_COUNT_SW_DUMMY. */
void rec_dummy_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
}

int rec_open_bpf_sideband(struct rec *r)
{
	const struct rec_cfg *c = r->cfg;
	struct perf_event_attr a;
	int err;

	if (c->no_bpf_event || !pk_feature_has(PK_FEAT_BPF_EVENT))
		return 0;
	rec_dummy_attr(&a);
	a.watermark = 1;
	a.wakeup_watermark = 1;
	a.sample_id_all = 1;
	a.bpf_event = 1;
	r->sb = pk_evlist_new();
	/* perf opens it on the recording's target: its CPUs, and its -p/-t
	 * tasks, else every task (the recording's own maps, shared) */
	r->sb_cpus = pk_cpu_map_get(r->cpus);
	r->sb_threads = c->pids || c->tids ? pk_thread_map_get(r->threads) :
			pk_thread_map_new_any();
	if (!r->sb || !r->sb_cpus || !r->sb_threads)
		return -ENOMEM;
	err = pk_evlist_add(r->sb, &a, "dummy:u");
	if (err < 0)
		return err;
	{
		struct cli_open_trace t = { c->verbose, r->sb_cpus,
					    r->sb_threads, PERF_FLAG_FD_CLOEXEC,
					    false };
		PK_OPTS(pk_open_opts, o, .attempt = cli_open_attempt,
			.attempt_ctx = &t);

		err = pk_evsel_open(pk_evlist_evsel(r->sb, 0), r->sb_cpus,
				    r->sb_threads, &o);
	}
	if (!err) {
		PK_OPTS(pk_rings_opts, ro, .pages = 1);

		r->sb_rings = pk_rings_new(r->sb, &ro);
		err = r->sb_rings ? 0 : -errno;
	}
	if (err && r->cfg->verbose)
		cli_error("record", "no BPF side-band events (%s): BPF "
			  "programs loaded from now on are not recorded",
			  pk_strerror(err));
	return 0;
}

/* One side-band ring's PROG_LOAD events into r->bpf. */
static int sideband_ring(struct rec *r, struct pk_ring *ring)
{
	const struct perf_event_header *h;
	int err = 0;

	if (!pk_ring_read_init(ring))
		return 0;
	while (!err && (h = pk_ring_read_event(ring))) {
		const uint16_t *type = (const uint16_t *)(h + 1);
		const uint32_t *id = (const uint32_t *)(h + 1) + 1;

		if (h->type == PERF_RECORD_BPF_EVENT && h->size >= 16 &&
		    *type == PERF_BPF_EVENT_PROG_LOAD && r->bpf)
			/* gone already, or unreadable: perf keeps none either */
			err = pk_bpf_progs_add(r->bpf, *id) == -ENOMEM ? -ENOMEM : 0;
		pk_ring_consume(ring);
	}
	pk_ring_read_done(ring);
	return err;
}

int rec_bpf_sideband_drain(struct rec *r)
{
	int err = 0;

	for (int i = 0; r->sb_rings && !err && i < pk_rings_nr(r->sb_rings); i++)
		err = sideband_ring(r, pk_rings_get(r->sb_rings, i));
	return err;
}

void rec_close_bpf_sideband(struct rec *r)
{
	pk_rings_free(r->sb_rings);
	r->sb_rings = NULL;
	pk_evlist_free(r->sb);
	pk_cpu_map_put(r->sb_cpus);
	pk_thread_map_put(r->sb_threads);
	r->sb = NULL;
	r->sb_cpus = NULL;
	r->sb_threads = NULL;
}
