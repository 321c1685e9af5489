/* SPDX-License-Identifier: MIT */
/*
 * pt_mksample IN OUT SIZE [EVERY]: a perf.data in Intel PT sample mode
 * (perf record --aux-sample) made with perfkit's writer from IN, a full
 * trace recording (one AUX queue used): the same header, attrs and side
 * band; a cpu-clock:u attr with PERF_SAMPLE_AUX and aux_sample_size SIZE
 * added (its id on ring 0, CPU 0, in ID_INDEX); the AUXTRACE records left
 * out and, before the workload's EXIT, one cpu-clock sample for every
 * EVERY-th PSB of the queue's trace carrying the SIZE bytes before it (as
 * the kernel copies the AUX area's last SIZE bytes into a sample), the
 * first sample's window cut at the trace's start. EVERY as sSTEP: a sample
 * at the first packet boundary STEP bytes or more after the last one's
 * (windows that go on from each other where SIZE > STEP: perf's
 * consecutive buffers, ending anywhere between PSBs). EVERY as pK+D: a
 * sample ending D bytes after every K-th PSB's first byte (inside a
 * packet, as the kernel's samples may); as fK: ending right before the
 * FUP of every K-th PSB+ (a PSB+ cut between its MODE.Exec and FUP).
 * When IN is TSC-timed (AUXTRACE_INFO's cap_user_time_zero), each
 * sample's time is
 * 1 us past the perf time of the last TSC packet in its window, and the
 * samples go among the records in time order (timed sample mode); else
 * they share the time of the last record before the EXIT. Built by the
 * tests against libperfkit (tests/live/record_pt_sample_decode.sh).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/perfdata.h>
#include <perfkit/pt.h>

#define NEW_ID 0x7fff0001ULL

static unsigned char *trace;
static size_t trace_len;
static int trace_idx = -1;
/* AUXTRACE_INFO's time conversion (timed: cap_user_time_zero) */
static uint64_t t_shift, t_mult, t_zero;
static bool timed;

static int die(const char *what)
{
	fprintf(stderr, "pt_mksample: %s\n", what);
	return 1;
}

/* the first AUX queue's bytes, in file order */
static int gather(const char *in)
{
	PK_OPTS(pk_perfdata_opts, o, .file_order = true);
	struct pk_perfdata *pd = pk_perfdata_open(in, &o);
	struct pk_record rec;

	if (!pd)
		return -1;
	while (!pk_perfdata_next(pd, &rec)) {
		const unsigned char *h = (const void *)rec.hdr;
		uint32_t idx;

		if (rec.type == PK_RECORD_AUXTRACE_INFO && rec.size >= 56) {
			memcpy(&t_shift, h + 24, 8);	/* priv[1..4] */
			memcpy(&t_mult, h + 32, 8);
			memcpy(&t_zero, h + 40, 8);
			timed = h[48] && t_mult && t_shift < 64;
		}
		if (rec.type != PK_RECORD_AUXTRACE || rec.size < 48)
			continue;
		memcpy(&idx, h + 32, 4);
		if (trace_idx < 0)
			trace_idx = (int)idx;
		if ((int)idx != trace_idx)
			continue;
		trace = realloc(trace, trace_len + rec.extra_size);
		if (!trace)
			return -1;
		memcpy(trace + trace_len, rec.extra, rec.extra_size);
		trace_len += rec.extra_size;
	}
	pk_perfdata_free(pd);
	return trace_len ? 0 : -1;
}

static int copy_header(struct pk_perfdata *pd, struct pk_pdwriter *w,
		       struct perf_event_attr *sa, uint32_t size)
{
	unsigned n = pk_perfdata_nr_attrs(pd), nids;
	uint64_t id = NEW_ID;

	for (unsigned i = 0; i < n; i++) {
		const uint64_t *ids = pk_perfdata_attr_ids(pd, i, &nids);

		if (pk_pdwriter_add_attr(w, pk_perfdata_attr(pd, i), ids, nids,
					 pk_perfdata_attr_name(pd, i)) < 0)
			return -1;
	}
	memset(sa, 0, sizeof(*sa));
	sa->type = PERF_TYPE_SOFTWARE;
	sa->size = 128;
	sa->config = PERF_COUNT_SW_CPU_CLOCK;
	sa->sample_freq = 4000;
	sa->freq = 1;
	sa->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			  PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER |
			  PERF_SAMPLE_AUX;
	sa->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	sa->inherit = 1;
	sa->exclude_kernel = 1;
	sa->exclude_hv = 1;
	sa->sample_id_all = 1;
	sa->exclude_guest = 1;
	sa->aux_sample_size = size;
	if (pk_pdwriter_add_attr(w, sa, &id, 1, "cpu-clock:u") < 0)
		return -1;
	for (int f = 1; f < PK_HEADER_MAX; f++) {
		const void *p;
		uint64_t sz;

		if (f == PK_HEADER_EVENT_DESC || f == PK_HEADER_AUXTRACE ||
		    !pk_perfdata_has_feat(pd, f) ||
		    pk_perfdata_feat_raw(pd, f, &p, &sz))
			continue;
		if (pk_pdwriter_feat_raw(w, f, p, (size_t)sz))
			return -1;
	}
	/* perf record's AUXTRACE index in sample mode: no entries */
	return pk_pdwriter_feat_raw(w, PK_HEADER_AUXTRACE, &(uint64_t){ 0 }, 8);
}

/* ID_INDEX with the new id on ring 0 added */
static int id_index(struct pk_pdwriter *w, const struct pk_record *rec)
{
	const unsigned char *h = (const void *)rec->hdr;
	uint64_t nr;
	struct pk_id_index_entry *e;
	static unsigned char buf[65536];
	long len;

	memcpy(&nr, h + 8, 8);
	e = calloc(nr + 1, sizeof(*e));
	if (!e)
		return -1;
	memcpy(e, h + 16, nr * 32);
	e[nr] = (struct pk_id_index_entry){ .id = NEW_ID, .idx = 0, .cpu = 0,
					     .tid = -1 };
	len = pk_record_id_index_encode(e, nr + 1, buf, sizeof(buf));
	free(e);
	return len < 0 ? -1 : pk_pdwriter_write(w, (const void *)buf, NULL, 0);
}

/* sample ends for sSTEP: packet boundaries STEP bytes apart or more */
static size_t step_ends(size_t step, size_t **ends)
{
	struct pk_pt_decoder *d = pk_pt_decoder_new(trace, trace_len, NULL);
	struct pk_pt_packet pkt;
	size_t n = 0, last = 0;
	uint64_t off;

	*ends = calloc(trace_len / step + 2, sizeof(**ends));
	if (!d || !*ends || pk_pt_sync_set(d, 0))
		return 0;
	while (pk_pt_offset(d, &off) == 0 && pk_pt_next(d, &pkt) > 0)
		if (off >= last + step) {
			(*ends)[n++] = (size_t)off;
			last = (size_t)off;
		}
	pk_pt_decoder_free(d);
	return n;
}

/* The offset of the FUP in the PSB+ at AT, 0 when there is none. */
static size_t psb_fup(size_t at)
{
	struct pk_pt_decoder *d = pk_pt_decoder_new(trace, trace_len, NULL);
	struct pk_pt_packet pkt;
	uint64_t off = 0;
	size_t fup = 0;

	if (!d || pk_pt_sync_set(d, at))
		goto out;
	while (pk_pt_offset(d, &off) == 0 && pk_pt_next(d, &pkt) > 0 &&
	       pkt.type != PK_PT_PSBEND)
		if (pkt.type == PK_PT_FUP) {
			fup = (size_t)off;
			break;
		}
out:
	pk_pt_decoder_free(d);
	return fup;
}

/* sample ends for pK+D and fK (FUP: before the PSB+'s FUP) */
static size_t psb_ends(unsigned every, size_t delta, bool fup, size_t **ends)
{
	static const unsigned char psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82,
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	size_t n = 0;
	unsigned k = 0;

	*ends = calloc(trace_len / 16 + 2, sizeof(**ends));
	if (!*ends)
		return 0;
	for (size_t at = 1; at + 16 <= trace_len; at++) {
		size_t end;

		if (memcmp(trace + at, psb, 16) || ++k % every)
			continue;
		end = fup ? psb_fup(at) : at + delta;
		if (end && end < trace_len && (!n || end > (*ends)[n - 1]))
			(*ends)[n++] = end;
	}
	return n;
}

/* perf's tsc_to_perf_time */
static uint64_t perf_time(uint64_t tsc)
{
	return t_zero + (tsc >> t_shift) * t_mult +
	       (((tsc & ((1ULL << t_shift) - 1)) * t_mult) >> t_shift);
}

/* The samples planned: the ends of their windows, their times. */
struct plan {
	size_t n, next, *at;
	uint64_t *time;
};

/* each end's time: 1 us past the last TSC before it */
static int plan_times(struct plan *pl)
{
	struct pk_pt_decoder *d = pk_pt_decoder_new(trace, trace_len, NULL);
	struct pk_pt_packet pkt;
	uint64_t off, tsc = 0;
	size_t k = 0;

	pl->time = calloc(pl->n + 1, sizeof(*pl->time));
	if (!d || !pl->time || pk_pt_sync_set(d, 0))
		return -1;
	while (k < pl->n && pk_pt_offset(d, &off) == 0) {
		while (k < pl->n && pl->at[k] <= off)
			pl->time[k++] = tsc ? perf_time(tsc) + 1000 : 0;
		if (pk_pt_next(d, &pkt) <= 0)
			break;
		if (pkt.type == PK_PT_TSC)
			tsc = pkt.u.tsc.tsc;
	}
	while (k < pl->n)
		pl->time[k++] = tsc ? perf_time(tsc) + 1000 : 0;
	pk_pt_decoder_free(d);
	return 0;
}

/* one per EVERY-th PSB (not the trace's first byte), at the ends STEP
 * bytes apart, or (MODE p/f) DELTA bytes into / before the FUP of every
 * EVERY-th PSB+ */
static int plan_samples(struct plan *pl, unsigned every, size_t step,
			char mode, size_t delta)
{
	static const unsigned char psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82,
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	unsigned k = 0;

	if (step) {
		pl->n = step_ends(step, &pl->at);
	} else if (mode == 'p' || mode == 'f') {
		pl->n = psb_ends(every, delta, mode == 'f', &pl->at);
	} else {
		pl->at = calloc(trace_len / 16 + 1, sizeof(*pl->at));
		for (size_t at = 1; pl->at && at + 16 <= trace_len; at++)
			if (!memcmp(trace + at, psb, 16) && !(++k % every))
				pl->at[pl->n++] = at;
	}
	if (!pl->at || !pl->n)
		return -1;
	return timed ? plan_times(pl) : 0;
}

/* the planned samples due by LIMIT (timed), or all of them at TIME */
static int samples(struct pk_pdwriter *w, const struct perf_event_attr *sa,
		   uint32_t size, struct plan *pl, uint32_t pid, uint64_t limit,
		   uint64_t time)
{
	static unsigned char buf[65536];

	for (; pl->next < pl->n; pl->next++) {
		size_t at = pl->at[pl->next];
		size_t from = at > size ? at - size : 0;
		struct pk_sample s;
		long len;

		if (timed && pl->time[pl->next] > limit)
			break;
		memset(&s, 0, sizeof(s));
		s.sample_type = sa->sample_type;
		s.id = NEW_ID;
		s.ip = 0x401000 + pl->next;
		s.pid = s.tid = pid;
		s.time = timed ? pl->time[pl->next] : time;
		s.period = 250000;
		s.aux.size = at - from;
		s.aux.data = trace + from;
		len = pk_sample_encode(sa, &s, PERF_RECORD_MISC_USER, buf,
				       sizeof(buf));
		if (len < 0 || pk_pdwriter_write(w, (const void *)buf, NULL, 0))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pk_perfdata *pd;
	struct pk_pdwriter *w;
	struct perf_event_attr sa;
	struct pk_record rec;
	uint32_t size, pid = 0;
	uint64_t last_time = 0;
	unsigned every = 1;
	size_t step = 0, delta = 0;
	char mode = argc > 4 ? argv[4][0] : 0, *end = NULL;
	bool done = false;
	struct plan pl = { 0 };

	if (argc < 4)
		return die("usage: pt_mksample IN OUT SIZE [EVERY]");
	size = (uint32_t)strtoul(argv[3], NULL, 0);
	if (mode == 's')
		step = strtoul(argv[4] + 1, NULL, 0);
	else if (mode == 'p' || mode == 'f')
		every = (unsigned)strtoul(argv[4] + 1, &end, 0);
	else if (argc > 4)
		every = (unsigned)strtoul(argv[4], NULL, 0);
	if (mode == 'p')
		delta = *end == '+' ? strtoul(end + 1, NULL, 0) : 0;
	if (!size || !every || (mode == 's' && !step) ||
	    (mode == 'p' && !delta))
		return die("bad SIZE or EVERY");
	if (gather(argv[1]))
		return die("no AUX data in the input");
	if (plan_samples(&pl, every, step, mode, delta))
		return die("no sample to make");
	fprintf(stderr, "pt_mksample: %zu samples of a %zu-byte trace%s\n",
		pl.n, trace_len, timed ? ", timed" : "");
	PK_OPTS(pk_perfdata_opts, o, .file_order = true);
	pd = pk_perfdata_open(argv[1], &o);
	w = pk_pdwriter_open(argv[2], NULL);
	if (!pd || !w || copy_header(pd, w, &sa, size))
		return die("cannot copy the header");
	while (!pk_perfdata_next(pd, &rec)) {
		int err = 0;

		if (rec.type == PK_RECORD_AUXTRACE)
			continue;
		if (rec.type == PERF_RECORD_COMM && !pid && rec.size >= 16)
			memcpy(&pid, (const char *)rec.hdr + 8, 4);
		if (timed && rec.time && !done)
			err = samples(w, &sa, size, &pl, pid, rec.time - 1, 0);
		if (rec.type == PERF_RECORD_EXIT && !done) {
			err = err ? err : samples(w, &sa, size, &pl, pid,
						  UINT64_MAX, last_time);
			done = true;
		}
		if (rec.time)
			last_time = rec.time;
		if (!err)
			err = rec.type == PK_RECORD_ID_INDEX ? id_index(w, &rec) :
			      pk_pdwriter_write(w, rec.hdr, NULL, 0);
		if (err)
			return die("cannot write a record");
	}
	if (!done && samples(w, &sa, size, &pl, pid, UINT64_MAX, last_time))
		return die("cannot write the samples");
	free(pl.at);
	free(pl.time);
	pk_perfdata_free(pd);
	return pk_pdwriter_close(w) ? die("cannot close the output") : 0;
}
