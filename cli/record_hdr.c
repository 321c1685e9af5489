/* SPDX-License-Identifier: MIT */
/*
 * perfkit record: the records perf record writes ahead of the data (in
 * files and pipes): PERF_RECORD_TIME_CONV (with a TSC the first ring's
 * page converts), PERF_RECORD_ID_INDEX (every fd's id with its ring,
 * CPU and thread), EVENT_UPDATE (units, scales, names), THREAD_MAP (the
 * target's threads), CPU_MAP (every event's CPUs merged) and, once the
 * command runs, FINISHED_INIT; and the PMU and BPF header features.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/features.h>
#include "record.h"

static int write_buf(struct rec *r, long n, const void *buf)
{
	if (n < 0)
		return (int)n;
	return rec_write(r, (const struct perf_event_header *)buf);
}

/* The ring of CPU (index CI in its event's map) or of thread TI. */
static uint64_t ring_of(struct rec *r, bool per_cpu, int cpu, int ci, int ti)
{
	if (!per_cpu)
		return (uint64_t)ti;
	for (int i = 0; i < pk_rings_nr(r->rings); i++)
		if (pk_rings_cpu(r->rings, i) == cpu)
			return (uint64_t)i;
	return (uint64_t)ci;
}

/* One entry per open fd: idx is its ring (rings.c: per CPU when the
 * first event has CPUs, else per thread). */
static int id_entries(struct rec *r, struct pk_id_index_entry *e, size_t cap,
		      size_t *nr)
{
	bool per_cpu = pk_cpu_map_cpu(pk_evsel_cpus(pk_evlist_evsel(r->evlist, 0)), 0) >= 0;

	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *ev = pk_evlist_evsel(r->evlist, i);
		struct pk_cpu_map *c = pk_evsel_cpus(ev);
		struct pk_thread_map *t = pk_evsel_threads(ev);

		for (int ci = 0; ci < pk_cpu_map_nr(c); ci++)
			for (int ti = 0; ti < pk_thread_map_nr(t); ti++) {
				uint64_t id;

				if (pk_evsel_id(ev, ci, ti, &id))
					continue;
				if (*nr == cap)
					return -ENOSPC;
				e[*nr] = (struct pk_id_index_entry){
					.id = id, .cpu = pk_cpu_map_cpu(c, ci),
					.idx = ring_of(r, per_cpu,
						       pk_cpu_map_cpu(c, ci), ci, ti),
					.tid = pk_thread_map_tid(t, ti) };
				(*nr)++;
			}
	}
	return 0;
}

/* perf's perf_event__synth_time_conv: the first ring's page, when it has
 * cap_user_time_zero. */
int rec_time_conv(struct rec *r)
{
	struct pk_time_conv tc;
	char buf[64];
	int err;

	if (!r->rings || !pk_rings_nr(r->rings))
		return 0;
	err = pk_time_conv_read(pk_ring_page(pk_rings_get(r->rings, 0)), &tc);
	if (err)
		return err == -EOPNOTSUPP ? 0 : err;
	return write_buf(r, pk_record_time_conv_encode(&tc, buf, sizeof(buf)),
			 buf);
}

int rec_id_index(struct rec *r)
{
	size_t cap = 0, nr = 0;
	struct pk_id_index_entry *e;
	void *buf;
	int err;

	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *ev = pk_evlist_evsel(r->evlist, i);

		cap += (size_t)pk_cpu_map_nr(pk_evsel_cpus(ev)) *
		       (size_t)pk_thread_map_nr(pk_evsel_threads(ev));
	}
	e = calloc(cap ? cap : 1, sizeof(*e));
	buf = malloc(65536);
	err = e && buf ? id_entries(r, e, cap, &nr) : -ENOMEM;
	for (size_t at = 0; !err && at < nr; at += PK_ID_INDEX_MAX) {
		size_t n = nr - at < PK_ID_INDEX_MAX ? nr - at : PK_ID_INDEX_MAX;

		err = write_buf(r, pk_record_id_index_encode(e + at, n, buf, 65536),
				buf);
	}
	free(e);
	free(buf);
	return err;
}

/* One EVENT_UPDATE of the event with id ID. */
static int event_update(struct rec *r, struct pk_event_update *u, void *buf)
{
	return write_buf(r, pk_record_event_update_encode(u, buf, 4096), buf);
}

/* One event's EVENT_UPDATEs in perf's order: its unit, its scale, its
 * own CPUs (its PMU's cpumask), in a pipe its name; each for its first
 * id. Units and scales are the parser's (pk_evsel_unit): cpu-clock and
 * task-clock's "msec" and 1e-6, a PMU alias's files. */
static int event_updates(struct rec *r, struct pk_evsel *ev, void *buf)
{
	struct pk_event_update u = { .id = 0 };
	int err = 0;

	if (pk_evsel_id(ev, 0, 0, &u.id))
		return 0;
	u.str = pk_evsel_unit(ev);
	if (u.str && u.str[0]) {
		u.type = PK_EVENT_UPDATE_UNIT;
		err = event_update(r, &u, buf);
	}
	u.scale = pk_evsel_scale(ev);
	if (!err && u.scale != 1.0) {
		u.type = PK_EVENT_UPDATE_SCALE;
		err = event_update(r, &u, buf);
	}
	u.cpus = pk_evsel_own_cpus(ev);
	if (!err && u.cpus) {
		u.type = PK_EVENT_UPDATE_CPUS;
		err = event_update(r, &u, buf);
	}
	u.str = pk_evsel_name(ev);
	if (!err && r->pipe && u.str) {
		u.type = PK_EVENT_UPDATE_NAME;
		err = event_update(r, &u, buf);
	}
	return err;
}

/* perf's EVENT_UPDATE records (perf_event__synthesize_extra_attr). */
int rec_event_updates(struct rec *r)
{
	char *buf = malloc(4096);
	int err = buf ? 0 : -ENOMEM;

	for (int i = 0; !err && i < pk_evlist_nr(r->evlist); i++)
		err = event_updates(r, pk_evlist_evsel(r->evlist, i), buf);
	free(buf);
	return err;
}

/* perf's evlist all_cpus: every event's CPUs, and the PMU CPUs of those
 * with their own (perf merges them in when it parses the event, before -C
 * replaces them: -C 1 with a cpumask 0 event gives 0-1). */
static struct pk_cpu_map *all_cpus(struct rec *r)
{
	struct pk_cpu_map *m = NULL, *n;

	for (int i = 0; i < 2 * pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i / 2);
		struct pk_cpu_map *c = i % 2 ? pk_evsel_cpus(e) : pk_evsel_own_cpus(e);

		if (!c)
			continue;
		n = pk_cpu_map_merge(m, c);
		pk_cpu_map_put(m);
		if (!(m = n))
			return NULL;
	}
	return m;
}

int rec_maps(struct rec *r)
{
	struct pk_cpu_map *cpus;
	void *buf;
	int err;

	cpus = all_cpus(r);
	buf = malloc(65536);
	err = cpus && buf ? 0 : -ENOMEM;
	if (!err)
		err = write_buf(r, pk_record_thread_map_encode(r->threads, buf,
							       65536), buf);
	/* more threads than a record holds: perf's would be cut; none here */
	if (err == -ERANGE)
		err = 0;
	if (!err)
		err = write_buf(r, pk_record_cpu_map_encode(cpus, buf, 65536), buf);
	pk_cpu_map_put(cpus);
	free(buf);
	return err;
}

int rec_finished_init(struct rec *r)
{
	struct perf_event_header h = { .type = PK_RECORD_FINISHED_INIT,
				       .size = sizeof(h) };

	return rec_write(r, &h);
}

/* perf's PMU list order: the PMUs it has looked up, then the rest as
 * readdir lists them. Parsing a hardware, cache, raw or PMU event scans
 * the whole directory first (perf_pmu__has_hybrid); otherwise x86's
 * auxtrace_record__init has looked up intel_pt and intel_bts first.
 * Fills ORDER with pk_pmu indices; returns their count. */
static int pmu_order(struct rec *r, int *order)
{
	static const char *const early[] = { "intel_pt", "intel_bts" };
	int nr = pk_pmu_nr(), n = 0;
	bool scanned = false;

	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		uint32_t t = pk_evsel_attr(pk_evlist_evsel(r->evlist, i))->type;

		scanned |= t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE ||
			   t == PERF_TYPE_RAW || t >= PERF_TYPE_MAX;
	}
	for (size_t e = 0; !scanned && e < sizeof(early) / sizeof(*early); e++)
		for (int i = 0; i < nr; i++)
			if (!strcmp(pk_pmu_name(i), early[e]))
				order[n++] = i;
	for (int pos = 0; pos < nr; pos++) {
		int i = pk_pmu_dir_idx(pos), k = 0;

		while (k < n && order[k] != i)
			k++;
		if (i >= 0 && k == n)
			order[n++] = i;
	}
	return n;
}

/* HEADER_PMU_CAPS: every PMU with caps/ but "cpu"; HEADER_CPU_PMU_CAPS:
 * the "cpu" PMU's, when there is one (with no caps/ too: count 0). */
static int pmu_caps(const int *order, int nr, struct rec *r)
{
	int err = pk_pdwriter_feat_pmu_caps(r->w, NULL, 0, NULL, NULL);

	for (int k = 0; !err && k < nr; k++) {
		int i = order[k];
		bool cpu = !strcmp(pk_pmu_name(i), "cpu");
		char **names = NULL, **values = NULL;
		int n = pk_pmu_caps(i, &names, &values);
		const char *const *nm = (const char *const *)names;
		const char *const *vl = (const char *const *)values;

		if (n < 0)
			err = n;
		else if (cpu)
			err = pk_pdwriter_feat_cpu_pmu_caps(r->w, n, nm, vl);
		else if (n > 0)
			err = pk_pdwriter_feat_pmu_caps(r->w, pk_pmu_name(i), n,
							nm, vl);
		free(names);
		free(values);
	}
	return err;
}

/* HEADER_BPF_PROG_INFO and HEADER_BPF_BTF: the BPF programs loaded when
 * the recording started and those loaded meanwhile (their BPF_EVENTs),
 * and their BTF objects; counts of 0 in a pipe, whose features go first,
 * and with --no-bpf-event (BTF objects still, as perf's). */
static int bpf_features(struct rec *r)
{
	struct pk_bpf_progs *none = r->bpf ? NULL : pk_bpf_progs_new();
	const struct pk_bpf_progs *p = r->bpf ? r->bpf : none;
	void *body = NULL;
	long n;
	int err;

	if (!p)
		return -ENOMEM;
	n = pk_bpf_progs_prog_info(p, &body);
	err = n < 0 ? (int)n : pk_pdwriter_feat_raw(r->w, PK_HEADER_BPF_PROG_INFO,
						    body, (size_t)n);
	free(body);
	body = NULL;
	n = err ? 0 : pk_bpf_progs_btf(p, &body);
	if (!err)
		err = n < 0 ? (int)n : pk_pdwriter_feat_raw(r->w, PK_HEADER_BPF_BTF,
							    body, (size_t)n);
	free(body);
	pk_bpf_progs_free(none);
	return err;
}

/* HEADER_PMU_MAPPINGS (every PMU's type, in perf's order) and
 * HEADER_PMU_CAPS, BPF_PROG_INFO, BPF_BTF; in AUX sample mode, HEADER_AUXTRACE with no entries
 * (perf writes its index, empty). */
int rec_pmu_features(struct rec *r)
{
	int nr = pk_pmu_nr(), n = 0, err;
	int *order = calloc((size_t)nr + 1, sizeof(*order));
	uint32_t *types = calloc((size_t)nr + 1, sizeof(*types));
	const char **names = calloc((size_t)nr + 1, sizeof(*names));

	err = order && types && names ? 0 : -ENOMEM;
	if (!err)
		nr = pmu_order(r, order);
	for (int k = 0; !err && k < nr; k++)
		if (pk_pmu_type(order[k]) >= 0) {
			types[n] = (uint32_t)pk_pmu_type(order[k]);
			names[n++] = pk_pmu_name(order[k]);
		}
	if (!err)
		err = pk_pdwriter_feat_pmu_mappings(r->w, n, types, names);
	free(types);
	free(names);
	if (!err && r->pt_sample) {	/* perf's empty AUXTRACE index */
		uint64_t none = 0;

		err = pk_pdwriter_feat_raw(r->w, PK_HEADER_AUXTRACE, &none,
					   sizeof(none));
	}
	if (!err)
		err = pmu_caps(order, nr, r);
	free(order);
	return err ? err : bpf_features(r);
}
