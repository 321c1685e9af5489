/* SPDX-License-Identifier: MIT */
/*
 * perfkit record: the AUX area of the Intel PT event, recorded as perf 6.1
 * does: AUXTRACE_INFO ahead of the side-band, then, ring by ring after its
 * records, the AUX bytes as PERF_RECORD_AUXTRACE (offset in the area's
 * count, the TSC as reference, the ring's index, thread and CPU); in
 * snapshot mode (-S) nothing until SIGUSR2 (or the end, with -Se), when
 * the event is stopped and the newest bytes of every area are taken.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/itrace.h>
#include "cli.h"
#include "record.h"

int rec_parse_snapshot(struct rec_cfg *c, const char *arg)
{
	char *end;

	c->aux_snapshot = true;
	if (arg && *arg == 'e') {
		c->snapshot_on_exit = true;
		arg++;
	}
	if (!arg || !*arg)
		return 0;
	errno = 0;
	c->snapshot_size = strtoull(arg, &end, 0);
	if (*end || errno) {
		cli_error("record", "invalid snapshot option '%s'", arg);
		return -1;
	}
	c->snapshot_user = c->snapshot_size;
	return 0;
}

/* perf's address filters (auxtrace_parse_filters): the AUX event's
 * --filter resolved into the kernel's string, which AUXTRACE_INFO then
 * carries too */
int rec_addr_filters(struct rec *r)
{
	char msg[4096], *out;
	int max, err;

	if (r->pt < 0 || r->pt >= r->nr_ev_filter || !r->ev_filter[r->pt])
		return 0;
	max = pk_evsel_nr_addr_filters(pk_evlist_evsel(r->evlist, r->pt));
	if (!max)
		return 0;
	err = pk_addr_filter_resolve(r->ev_filter[r->pt], max, NULL, &out,
				     msg, sizeof(msg));
	fputs(msg, stderr); /* perf's lines, some on success too */
	if (err)
		return err;
	r->pt_filter = out;
	r->ev_filter[r->pt] = out;
	if (r->cfg->verbose)
		fprintf(stderr, "Address filter: %s\n", out);
	return 0;
}

/* perf's wrap test by reference bytes where the user's snapshot size
 * allows it (else its 4 KiB probe) */
int rec_pt_refs(struct rec *r)
{
	size_t psb, ref;

	if (r->pt < 0 || !r->cfg->aux_snapshot)
		return 0;
	psb = pk_evsel_pt_psb_bytes(pk_evlist_evsel(r->evlist, r->pt));
	for (int i = 0; i < pk_rings_nr(r->rings); i++) {
		struct pk_ring *ring = pk_rings_get(r->rings, i);
		int err;

		ref = pk_ring_aux_pt_ref_size(r->cfg->snapshot_user,
					      pk_ring_aux_size(ring), psb);
		if (ref && (err = pk_ring_aux_snapshot_ref(ring, ref)))
			return err;
	}
	return 0;
}

void rec_pt_mmap_error(struct rec *r, int err)
{
	char msg[128];

	if (err == EPERM) {
		fprintf(stderr, "Permission error mapping pages.\n"
			"Consider increasing /proc/sys/kernel/perf_event_mlock_kb,\n"
			"or try again with a smaller value of -m/--mmap_pages.\n"
			"(current value: %zu,%zu)\n", r->cfg->mmap_pages,
			r->cfg->aux_pages);
		return;
	}
	snprintf(msg, sizeof(msg), "%s", strerror(err));
	fprintf(stderr, "failed to mmap with %d (%s)\n", err, msg);
}

/* perf's per-CPU test of the target: the user asked for no thread list */
static bool per_cpu_mmaps(const struct rec_cfg *c)
{
	return !(c->per_thread && !c->system_wide && !c->cpu_list);
}

int rec_pt_info(struct rec *r)
{
	struct pk_pt_auxinfo in;
	char buf[4096];
	long n;
	int err;

	if (r->pt < 0)
		return 0;
	memset(&in, 0, sizeof(in));
	err = pk_pt_auxinfo_fill(&in, pk_evlist_evsel(r->evlist, r->pt),
				 pk_ring_page(pk_rings_get(r->rings, 0)));
	if (err)
		return err;
	in.have_sched_switch = (uint64_t)r->have_sched_switch;
	in.snapshot_mode = r->cfg->aux_snapshot;
	in.per_cpu_mmaps = per_cpu_mmaps(r->cfg);
	in.filter = r->pt < r->nr_ev_filter ? r->ev_filter[r->pt] : NULL;
	if (!in.cap_user_time_zero)
		fprintf(stderr, "Warning:\nIntel Processor Trace: TSC not "
			"available\n");
	n = pk_pt_auxinfo_encode(&in, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	r->bytes += (uint64_t)n;
	return pk_pdwriter_write(r->w, (const struct perf_event_header *)buf,
				 NULL, 0);
}

static uint64_t reference(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	return 0;
#endif
}

static int write_chunk(struct rec *r, int idx, const struct pk_aux_chunk *ch)
{
	struct pk_auxtrace_hdr h = {
		.offset = ch->offset, .reference = reference(),
		.idx = (uint32_t)idx, .cpu = (uint32_t)pk_rings_cpu(r->rings, idx),
	};

	h.tid = (uint32_t)pk_thread_map_tid(r->threads,
					    per_cpu_mmaps(r->cfg) ? 0 : idx);
	r->bytes += 48 + ((ch->n1 + ch->n2 + 7) & ~7ULL);
	return pk_pdwriter_write_auxtrace(r->w, &h, ch->p1, ch->n1, ch->p2,
					  ch->n2);
}

int rec_pt_drain(struct rec *r, int idx)
{
	struct pk_ring *ring = pk_rings_get(r->rings, idx);
	struct pk_aux_chunk ch;
	long n;
	int err;

	if (r->pt < 0 || r->cfg->aux_snapshot || r->pt_sample ||
	    !pk_ring_aux_size(ring))
		return 0;
	n = pk_ring_aux_read(ring, &ch);
	if (n <= 0)
		return (int)n;
	err = write_chunk(r, idx, &ch);
	if (!err)
		pk_ring_aux_done(ring);
	return err;
}

int rec_pt_snapshot(struct rec *r)
{
	struct pk_evsel *pt = pk_evlist_evsel(r->evlist, r->pt);
	int err = 0;

	if (r->pt < 0)
		return 0;
	pk_evsel_disable(pt, false);
	for (int i = 0; i < pk_rings_nr(r->rings) && !err; i++) {
		struct pk_ring *ring = pk_rings_get(r->rings, i);
		struct pk_aux_chunk ch;
		long n = pk_ring_aux_snapshot(ring, r->cfg->snapshot_size, &ch);

		if (n > 0)
			err = write_chunk(r, i, &ch);
		else if (n < 0)
			err = (int)n;
	}
	pk_evsel_enable(pt, false);
	return err;
}
