/* SPDX-License-Identifier: MIT */
/*
 * perfkit record: AUX area sampling (perf-intel-pt(1)'s sample mode), as
 * perf 6.1 sets it up: --aux-sample[=SIZE] gives every member of a group
 * led by the AUX area event SIZE bytes of the AUX area in each of its
 * samples (PERF_SAMPLE_AUX), an aux-sample-size=N term gives one event
 * N (and moves an event after the AUX event into its group), perf's
 * checks with its words; then Intel PT's part: psb_period 0 unless given,
 * the AUX area sized for the largest sample, the warning where the
 * smallest may miss a PSB. The AUX area is mapped read-only and never
 * read (the kernel copies it into the samples).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "record.h"

#define MAX_AUX_SAMPLE_SIZE (60 * 1024)
#define DEFAULT_AUX_SAMPLE_SIZE 4096
#define PSB_PERIOD_NEAR 256

static bool is_aux(struct pk_evsel *e)
{
	return !strcmp(pk_evsel_pmu_name(e), "intel_pt");
}

static bool leads(struct pk_evsel *e)
{
	return pk_evsel_leader(e) == e;
}

/* --aux-sample's size on every member of an AUX-led group (perf's
 * auxtrace_parse_sample_options; a term's size is set again after). */
static int option_size(struct rec *r, const char *str)
{
	struct pk_evlist *l = r->evlist;
	bool aux_leader = false;
	unsigned long sz;
	char *end;

	sz = strtoul(str, &end, 0);
	if (*end || sz > UINT_MAX) {
		fprintf(stderr, "Bad AUX area sampling option: '%s'\n", str);
		return -EINVAL;
	}
	if (!sz)
		sz = DEFAULT_AUX_SAMPLE_SIZE;
	for (int i = 0; i < pk_evlist_nr(l); i++) {
		struct pk_evsel *e = pk_evlist_evsel(l, i);

		if (leads(e))
			aux_leader = is_aux(e);
		else if (aux_leader && !(pk_evsel_terms(e) &
					 PK_TERM_AUX_SAMPLE))
			pk_evsel_attr(e)->aux_sample_size = (uint32_t)sz;
	}
	return 0;
}

/* aux-sample-size terms: an event standing alone after the AUX event
 * joins its group (one in another group stays: perf's validation then
 * says why). Whether any was given. */
static int term_regroup(struct rec *r, bool *given)
{
	struct pk_evlist *l = r->evlist;
	int aux = -1;

	for (int i = 0; i < pk_evlist_nr(l); i++) {
		struct pk_evsel *e = pk_evlist_evsel(l, i);

		if (is_aux(e))
			aux = i;
		if (!(pk_evsel_terms(e) & PK_TERM_AUX_SAMPLE))
			continue;
		*given = true;
		if (aux >= 0 && pk_evsel_attr(e)->aux_sample_size)
			pk_evlist_regroup(l, aux, i);   /* if possible */
	}
	return 0;
}

/* perf's auxtrace_validate_aux_sample_size: where sizes may be, the AUX
 * sample bit set where one is. */
static int validate(struct rec *r)
{
	struct pk_evlist *l = r->evlist;
	bool aux_leader = false, mode = false;

	for (int i = 0; i < pk_evlist_nr(l); i++) {
		struct pk_evsel *e = pk_evlist_evsel(l, i);
		struct perf_event_attr *a = pk_evsel_attr(e);
		uint32_t sz = a->aux_sample_size;

		if (leads(e)) {
			aux_leader = is_aux(e);
			if (sz) {
				fprintf(stderr, "Cannot add AUX area sampling "
					"to %s\n", aux_leader ?
					"an AUX area event" : "a group leader");
				return -EINVAL;
			}
		}
		if (sz > MAX_AUX_SAMPLE_SIZE) {
			fprintf(stderr, "AUX area sample size %u too big, max. "
				"%d\n", sz, MAX_AUX_SAMPLE_SIZE);
			return -EINVAL;
		}
		if (sz && !aux_leader) {
			fprintf(stderr, "Cannot add AUX area sampling because "
				"group leader is not an AUX area event\n");
			return -EINVAL;
		}
		if (sz)
			a->sample_type |= PERF_SAMPLE_AUX;
		else
			a->sample_type &= ~(uint64_t)PERF_SAMPLE_AUX;
		mode |= sz != 0;
	}
	if (!mode) {
		fprintf(stderr, "AUX area sampling requires an AUX area event "
			"group leader plus other events to which to add "
			"samples\n");
		return -EINVAL;
	}
	r->pt_sample = true;
	return 0;
}

static const struct {
	const char *s;
	uint32_t bit;
	bool on_aux;            /* for the AUX event itself */
} actions[] = {
	{ "start-paused", PK_AUX_START_PAUSED, true },
	{ "pause", PK_AUX_PAUSE, false },
	{ "resume", PK_AUX_RESUME, false },
};

/* One aux-action term S on E (the AUX event itself when AUX). */
static int one_action(struct pk_evsel *e, const char *s, bool aux)
{
	for (size_t k = 0; k < sizeof(actions) / sizeof(actions[0]); k++) {
		if (strcmp(s, actions[k].s))
			continue;
		if (actions[k].on_aux && !aux) {
			fprintf(stderr, "aux-action '%s' can only be used with "
				"AUX area event\n", s);
			return -EINVAL;
		}
		if (!actions[k].on_aux && aux) {
			fprintf(stderr, "aux-action '%s' cannot be used for AUX "
				"area event itself\n", s);
			return -EINVAL;
		}
		pk_attr_set_aux_action(pk_evsel_attr(e), actions[k].bit);
		return 0;
	}
	fprintf(stderr, "Bad aux-action '%s'\n", s);
	return -EINVAL;
}

/*
 * aux-action terms (perf 6.13's auxtrace_parse_aux_action; perf 6.1 has
 * no such term) and aux-output's regrouping (perf 6.1's
 * auxtrace_regroup_aux_output): such an event after the AUX event joins
 * its group where it can; an aux-action one must end up led by the AUX
 * event.
 */
static int aux_actions(struct rec *r)
{
	struct pk_evlist *l = r->evlist;
	int aux = -1, err;

	for (int i = 0; i < pk_evlist_nr(l); i++) {
		struct pk_evsel *e = pk_evlist_evsel(l, i);
		const char *s = pk_evsel_aux_action(e);

		if (is_aux(e))
			aux = i;
		if (!s && !pk_evsel_attr(e)->aux_output)
			continue;
		if (s && (err = one_action(e, s, is_aux(e))))
			return err;
		if (aux >= 0)
			pk_evlist_regroup(l, aux, i);   /* if possible */
		if (s && !is_aux(pk_evsel_leader(e))) {
			fprintf(stderr, "Events with aux-action must have AUX "
				"area event group leader\n");
			return -EINVAL;
		}
	}
	return 0;
}

static int sample_options(struct rec *r, bool have_aux)
{
	const char *str = r->cfg->aux_sample;
	bool given = false;
	int err;

	if (str && !have_aux) {
		fprintf(stderr, "No AUX area event to sample\n");
		return -EINVAL;
	}
	if (str && (err = option_size(r, str)))
		return err;
	if ((err = term_regroup(r, &given)))
		return err;
	if (!str && !given)
		return 0;
	if (!have_aux) {
		fprintf(stderr, "No AUX area event to sample\n");
		return -EINVAL;
	}
	return validate(r);
}

int rec_pt_sample_options(struct rec *r, bool have_aux)
{
	int err = sample_options(r, have_aux);

	return err ? err : aux_actions(r);
}

/* perf's privileged test for the buffer sizes: root or paranoid < 0 */
static bool privileged(void)
{
	int p;

	return geteuid() == 0 || (!pk_perf_event_paranoid(&p) && p < 0);
}

/* Intel PT's sample mode sizes (intel_pt_recording_options). */
int rec_pt_sample_sizes(struct rec *r)
{
	struct rec_cfg *c = r->cfg;
	struct pk_evlist *l = r->evlist;
	size_t min = 0, max = 0, data = c->mmap_set ? c->mmap_pages : 0;
	size_t psb = pk_evsel_pt_psb_bytes(pk_evlist_evsel(l, r->pt));
	char msg[160];
	int err;

	if (c->verbose >= 2)
		fprintf(stderr, "intel_pt psb_period %zu\n", psb);
	for (int i = 0; i < pk_evlist_nr(l); i++) {
		size_t sz = pk_evsel_attr(pk_evlist_evsel(l, i))->aux_sample_size;

		if (sz && (!min || sz < min))
			min = sz;
		if (sz > max)
			max = sz;
	}
	err = pk_ring_aux_pt_sample_sizes(privileged(), max, &data,
					  &c->aux_pages, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "%s\n", msg);
		return err;
	}
	if (data)
		c->mmap_pages = data;
	if (c->verbose >= 2)
		fprintf(stderr, "Intel PT min. sample size: %zu max. sample "
			"size: %zu\n", min, max);
	if (psb && min <= psb + PSB_PERIOD_NEAR)
		fprintf(stderr, "Warning:\nIntel PT sample size (%zu) may be too "
			"small for PSB period (%zu)\n", min, psb);
	return 0;
}
