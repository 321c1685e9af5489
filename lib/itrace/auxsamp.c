/* SPDX-License-Identifier: MIT */
/*
 * Intel PT sample mode (perf record --aux-sample): the trace comes in the
 * samples of the events that sample the AUX area (PERF_SAMPLE_AUX: each
 * carries the area's last bytes when it was taken), each one a buffer of
 * the queue of the sample id's ring (ID_INDEX: idx, CPU, thread; perf's
 * auxtrace_queues__add_sample). As perf decodes them without timestamps
 * (intel_pt_process_timeless_sample, step_through_buffers): at the
 * sample, the buffer alone, what it repeats of the queue's last one left
 * out (perf's overlap fix), the decoding started afresh at its first PSB
 * (perf's too where the buffer does not go on from the last one; where
 * it does and the last decoding stopped at the end of its bytes, the
 * decoding reads on into the new ones, as perf's decoder does; the i
 * period's count goes on from buffer to buffer); the samples made are
 * the sample's task's, on the queue's CPU.
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "base/bytes.h"
#include "itrace/itrace_int.h"

#define RD64(p, o) pk_ld64((const uint8_t *)(p) + (o), false)

/* perf's intel_pt_sampling_mode: some event samples the AUX area */
bool pk__it_sampling_mode(const struct pk_itrace *it)
{
	unsigned n = pk_perfdata_nr_attrs(it->pd);

	for (unsigned i = 0; i < n; i++) {
		const struct perf_event_attr *a = pk_perfdata_attr(it->pd, i);

		if ((a->sample_type & PERF_SAMPLE_AUX) && a->aux_sample_size)
			return true;
	}
	return false;
}

int pk__it_id_index(struct pk_itrace *it, const struct pk_record *rec)
{
	uint64_t nr, esz;

	if (rec->size < 16 || !(nr = RD64(rec->hdr, 8)))
		return 0;
	esz = (rec->size - 16) / nr;
	if (esz < 32)
		return 0;
	for (uint64_t i = 0; i < nr; i++) {
		size_t at = 16 + (size_t)(i * esz);
		struct it_sid *s;

		if (!pk__grow((void **)&it->sids, &it->capsids, it->nsids, 1,
			      sizeof(*it->sids)))
			return -ENOMEM;
		s = &it->sids[it->nsids++];
		s->id = RD64(rec->hdr, at);
		s->idx = RD64(rec->hdr, at + 8);
		s->cpu = (int32_t)RD64(rec->hdr, at + 16);
		s->tid = (int32_t)RD64(rec->hdr, at + 24);
	}
	return 0;
}

static const struct it_sid *sid(const struct pk_itrace *it, uint64_t id)
{
	for (size_t i = it->nsids; i-- > 0;)
		if (it->sids[i].id == id)
			return &it->sids[i];
	return NULL;
}

/* Timed sample mode: perf queues every sample's AUX data ahead
 * (auxtrace_queue_data with samples) and decodes the queues by time, as
 * in snapshot mode: each buffer's repeat of the last left out, the
 * task the CPU runs then (perf's intel_pt_set_pid_tid_cpu). Read ahead,
 * after the ID_INDEX that maps the samples to queues. */
int pk__it_aux_sample_queue(struct pk_itrace *it, const struct pk_record *rec)
{
	const struct it_sid *s;
	struct it_queue *q;
	struct pk_sample sm;
	long n;

	if (rec->type != PERF_RECORD_SAMPLE ||
	    pk_sample_parse(it->pd, rec, &sm) ||
	    !(sm.sample_type & PERF_SAMPLE_AUX) || !sm.aux.size ||
	    !(s = sid(it, sm.id)) || s->idx > UINT32_MAX)
		return 0;
	if (!(q = pk__it_queue(it, (uint32_t)s->idx)))
		return -ENOMEM;
	if (!q->prev) {
		q->cpu = s->cpu;
		q->tid = s->tid;
	}
	n = pk__it_snapshot(it, q, sm.aux.data, sm.aux.size, 0, false);
	return n < 0 ? (int)n : 0;
}

int pk__it_aux_sample(struct pk_itrace *it, const struct pk_record *rec)
{
	const struct it_sid *s;
	struct it_queue *q;
	struct pk_sample sm;
	long n;

	if (!it->timeless)	/* (queued ahead) */
		return 0;
	if (pk_sample_parse(it->pd, rec, &sm) ||
	    !(sm.sample_type & PERF_SAMPLE_AUX) || !sm.aux.size ||
	    !(s = sid(it, sm.id)) || s->idx > UINT32_MAX)
		return 0;
	if (!(q = pk__it_queue(it, (uint32_t)s->idx)))
		return -ENOMEM;
	if (!q->prev) {		/* its first buffer's (perf's queue set-up) */
		q->cpu = s->cpu;
		q->tid = s->tid;
	}
	n = pk__it_snapshot(it, q, sm.aux.data, sm.aux.size, 0, true);
	if (n <= 0)
		return (int)n;
	if (!(sm.sample_type & PERF_SAMPLE_TID))
		return 0;
	q->tid = (int32_t)sm.tid;	/* the sample's task */
	return pk__it_run(it, q, UINT64_MAX);
}
