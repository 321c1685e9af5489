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
	int aux = -1, err;

	for (int i = 0; i < pk_evlist_nr(l); i++) {
		struct pk_evsel *e = pk_evlist_evsel(l, i);

		if (is_aux(e))
			aux = i;
		if (!(pk_evsel_terms(e) & PK_TERM_AUX_SAMPLE))
			continue;
		*given = true;
		if (aux < 0 || !pk_evsel_attr(e)->aux_sample_size ||
		    !leads(e) || pk_evsel_nr_members(e) != 1)
			continue;
		err = pk_evlist_regroup(l, aux, i);
		if (err) {
			cli_error("record", "cannot move '%s' into the group of "
				  "'%s'", pk_evsel_name(e),
				  pk_evsel_name(pk_evlist_evsel(l, aux)));
			return err;
		}
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

int rec_pt_sample_options(struct rec *r, bool have_aux)
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
