/* SPDX-License-Identifier: MIT */
/* perfkit record: draining the rings into the file, and what the stream
 * tells about samples, losses and mappings on the way. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "record.h"

static int add_map(struct rec *r, uint32_t pid, uint64_t start, uint64_t len,
		   const char *name, bool kernel)
{
	struct rec_map *m;

	if (r->nr_maps == r->cap_maps) {
		int cap = r->cap_maps ? 2 * r->cap_maps : 64;
		struct rec_map *n = realloc(r->maps, (size_t)cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		r->maps = n;
		r->cap_maps = cap;
	}
	m = &r->maps[r->nr_maps];
	m->name = strdup(name);
	if (!m->name)
		return -ENOMEM;
	m->pid = pid;
	m->start = start;
	m->end = start + len;
	m->hit = false;
	m->kernel = kernel;
	r->nr_maps++;
	return 0;
}

/* Marks the mapping an IP of PID falls in; other processes' maps stand in
 * for forked children that inherited them. */
static void mark_hit(struct rec *r, uint32_t pid, uint64_t ip)
{
	int any = -1, last = r->last_hit;

	if (last >= 0 && last < r->nr_maps && r->maps[last].pid == pid &&
	    ip >= r->maps[last].start && ip < r->maps[last].end)
		return;
	for (int i = r->nr_maps - 1; i >= 0; i--) {
		struct rec_map *m = &r->maps[i];

		if (ip < m->start || ip >= m->end || m->kernel)
			continue;
		if (m->pid == pid) {
			m->hit = true;
			r->last_hit = i;
			return;
		}
		if (any < 0)
			any = i;
	}
	if (any >= 0)
		r->maps[any].hit = true;
}

static void track_sample(struct rec *r, const struct perf_event_header *h)
{
	uint64_t st = pk_evsel_attr(pk_evlist_evsel(r->evlist, 0))->sample_type;
	const uint64_t *p = (const uint64_t *)(h + 1);
	const uint64_t *end = (const uint64_t *)((const char *)h + h->size);
	uint16_t mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint64_t ip = 0;
	uint32_t pid = 0;

	r->samples++;
	if (st & PERF_SAMPLE_IDENTIFIER)
		p++;
	if ((st & PERF_SAMPLE_IP) && p < end)
		ip = *p++;
	if ((st & PERF_SAMPLE_TID) && p < end)
		pid = (uint32_t)*p++;
	if ((st & PERF_SAMPLE_TIME) && p < end) {
		if (!r->first_time || *p < r->first_time)
			r->first_time = *p;
		if (*p > r->last_time)
			r->last_time = *p;
	}
	if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL)
		r->kernel_hit = true;
	else if (st & PERF_SAMPLE_IP)
		mark_hit(r, pid, ip);
}

void rec_track(struct rec *r, const struct perf_event_header *h)
{
	const char *b = (const char *)h;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		track_sample(r, h);
		break;
	case PERF_RECORD_MMAP:
		if (h->size > 40)
			add_map(r, *(const uint32_t *)(b + 8),
				*(const uint64_t *)(b + 16),
				*(const uint64_t *)(b + 24),
				b + 40, (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
				PERF_RECORD_MISC_KERNEL);
		break;
	case PERF_RECORD_MMAP2:
		if (h->size > 72 && !(h->misc & PERF_RECORD_MISC_MMAP_DATA))
			add_map(r, *(const uint32_t *)(b + 8),
				*(const uint64_t *)(b + 16),
				*(const uint64_t *)(b + 24), b + 72,
				(h->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
				PERF_RECORD_MISC_KERNEL);
		break;
	case PERF_RECORD_LOST:
		if (h->size >= 24)
			r->lost += *(const uint64_t *)(b + 16);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= 16)
			r->lost_samples += *(const uint64_t *)(b + 8);
		break;
	}
}

int rec_write(struct rec *r, const struct perf_event_header *h)
{
	rec_track(r, h);
	r->bytes += h->size;
	return pk_pdwriter_write(r->w, h, NULL, 0);
}

/* Ring IDX's records, then its AUX area's new bytes. */
static int drain_ring(struct rec *r, int idx, int *written)
{
	struct pk_ring *ring = pk_rings_get(r->rings, idx);
	const struct perf_event_header *h;
	int err = 0;

	if (pk_ring_read_init(ring)) {
		while (!err && (h = pk_ring_read_event(ring))) {
			err = rec_write(r, h);
			pk_ring_consume(ring);
			(*written)++;
		}
		pk_ring_read_done(ring);
	}
	if (!err && pk_ring_aux_size(ring)) {
		uint64_t before = r->bytes;

		err = rec_pt_drain(r, idx);
		*written += r->bytes != before;
	}
	return err;
}

int rec_drain(struct rec *r)
{
	static const struct perf_event_header round = {
		.type = PK_RECORD_FINISHED_ROUND, .size = sizeof(round),
	};
	int written = 0, err = 0;

	if (r->cfg->overwrite)
		pk_rings_pause(r->rings, true);
	for (int i = 0; i < pk_rings_nr(r->rings) && !err; i++)
		err = drain_ring(r, i, &written);
	if (r->cfg->overwrite)
		pk_rings_pause(r->rings, false);
	if (!err && written) {
		r->wakeups++; /* passes that found data to write */
		err = pk_pdwriter_write(r->w, &round, NULL, 0);
		if (!err)
			err = pk_pdwriter_flush(r->w);
	}
	return err;
}
