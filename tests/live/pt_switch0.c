/* SPDX-License-Identifier: MIT */
/*
 * pt_switch0 IN OUT CPU: a copy of IN (a recording with the
 * sched:sched_switch fallback, have_sched_switch 1) made with perfkit's
 * writer, where the last sched_switch sample of CPU is followed by one a
 * nanosecond later from the task it switched to, to the idle task
 * (next_pid 0, next_comm swapper/CPU): the file then ends with CPU idle,
 * which is what the timeless decoding of a CPU-wide file takes as the
 * task whose code the trace ran (perf's intel_pt_process_timeless_queues
 * at the end, machine__get_current_tid). Built by the tests against
 * libperfkit (tests/live/record_pt_layout.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/perfdata.h>
#include <perfkit/tracefmt.h>

static int die(const char *what)
{
	fprintf(stderr, "pt_switch0: %s\n", what);
	return 1;
}

/* The sched_switch attr and the file's tracepoint formats. */
static int setup(struct pk_perfdata *pd, int *attr, struct pk_tracefmt **fmt)
{
	const void *td;
	uint64_t size;

	*attr = -1;
	for (unsigned i = 0; i < pk_perfdata_nr_attrs(pd); i++) {
		const char *n = pk_perfdata_attr_name(pd, i);

		if (n && !strcmp(n, "sched:sched_switch"))
			*attr = (int)i;
	}
	if (*attr < 0 || pk_perfdata_feat_raw(pd, PK_HEADER_TRACING_DATA, &td,
					       &size))
		return -1;
	*fmt = pk_tracefmt_new(td, (size_t)size);
	return *fmt ? 0 : -1;
}

/* The offset of the last sched_switch sample of CPU in IN's records
 * (counted in file order), -1 when there is none. */
static long last_switch(const char *in, int attr, uint32_t cpu)
{
	PK_OPTS(pk_perfdata_opts, o, .file_order = true);
	struct pk_perfdata *pd = pk_perfdata_open(in, &o);
	struct pk_record rec;
	struct pk_sample sm;
	long n = 0, last = -1;

	if (!pd)
		return -1;
	for (; !pk_perfdata_next(pd, &rec); n++)
		if (rec.type == PERF_RECORD_SAMPLE && rec.attr == attr &&
		    !pk_sample_parse(pd, &rec, &sm) && sm.cpu == cpu)
			last = n;
	pk_perfdata_free(pd);
	return last;
}

/* REC (that sample) again: from its next task to the idle task. */
static int to_idle(struct pk_perfdata *pd, struct pk_pdwriter *w,
		   struct pk_tracefmt *fmt, const struct pk_record *rec)
{
	static unsigned char buf[65536], raw[4096];
	const struct perf_event_attr *a = pk_perfdata_attr(pd, (unsigned)rec->attr);
	struct pk_sample sm;
	const void *p, *q;
	size_t len, qlen;
	uint64_t next;
	long n;
	char comm[16];

	if (pk_sample_parse(pd, rec, &sm) || sm.raw.size > sizeof(raw))
		return -1;
	memcpy(raw, sm.raw.data, sm.raw.size);
	if (pk_tracefmt_field_num(fmt, a->config, raw, sm.raw.size, "next_pid",
				  &next) ||
	    pk_tracefmt_field_raw(fmt, a->config, raw, sm.raw.size, "next_comm",
				  &q, &qlen) ||
	    pk_tracefmt_field_raw(fmt, a->config, raw, sm.raw.size, "prev_comm",
				  &p, &len) || len != qlen || qlen > sizeof(comm))
		return -1;
	/* prev: the task switched to; next: the idle task */
	memcpy(comm, q, qlen);
	memcpy((void *)p, comm, len);
	if (pk_tracefmt_field_raw(fmt, a->config, raw, sm.raw.size, "prev_pid",
				  &p, &len) || len != 4)
		return -1;
	memcpy((void *)p, &(int32_t){ (int32_t)next }, 4);
	if (pk_tracefmt_field_raw(fmt, a->config, raw, sm.raw.size, "next_pid",
				  &p, &len) || len != 4)
		return -1;
	memset((void *)p, 0, 4);
	memset((void *)q, 0, qlen);
	snprintf(comm, sizeof(comm), "swapper/%u", sm.cpu);
	memcpy((void *)q, comm, strlen(comm));
	sm.pid = sm.tid = (uint32_t)next;
	sm.time += 1;
	sm.raw.data = raw;
	n = pk_sample_encode(a, &sm, rec->misc, buf, sizeof(buf));
	return n < 0 ? -1 : pk_pdwriter_write(w, (const void *)buf, NULL, 0);
}

static int copy_header(struct pk_perfdata *pd, struct pk_pdwriter *w)
{
	unsigned nids;

	for (unsigned i = 0; i < pk_perfdata_nr_attrs(pd); i++) {
		const uint64_t *ids = pk_perfdata_attr_ids(pd, i, &nids);

		if (pk_pdwriter_add_attr(w, pk_perfdata_attr(pd, i), ids, nids,
					 pk_perfdata_attr_name(pd, i)) < 0)
			return -1;
	}
	for (int f = 1; f < PK_HEADER_MAX; f++) {
		const void *p;
		uint64_t sz;

		if (f == PK_HEADER_AUXTRACE || !pk_perfdata_has_feat(pd, f) ||
		    pk_perfdata_feat_raw(pd, f, &p, &sz))
			continue;
		if (pk_pdwriter_feat_raw(w, f, p, (size_t)sz))
			return -1;
	}
	return 0;
}

/* A record as it was (AUXTRACE ones through the writer's index). */
static int copy(struct pk_pdwriter *w, const struct pk_record *rec)
{
	const unsigned char *h = (const void *)rec->hdr;
	struct pk_auxtrace_hdr ah;

	if (rec->type != PK_RECORD_AUXTRACE || rec->size < 48)
		return pk_pdwriter_write(w, rec->hdr, NULL, 0);
	memcpy(&ah.offset, h + 16, 8);
	memcpy(&ah.reference, h + 24, 8);
	memcpy(&ah.idx, h + 32, 4);
	memcpy(&ah.tid, h + 36, 4);
	memcpy(&ah.cpu, h + 40, 4);
	return pk_pdwriter_write_auxtrace(w, &ah, rec->extra,
					  (size_t)rec->extra_size, NULL, 0);
}

int main(int argc, char **argv)
{
	PK_OPTS(pk_perfdata_opts, o, .file_order = true);
	struct pk_perfdata *pd;
	struct pk_pdwriter *w;
	struct pk_tracefmt *fmt = NULL;
	struct pk_record rec;
	int attr;
	long last, n = 0;

	if (argc != 4)
		return die("usage: pt_switch0 IN OUT CPU");
	pd = pk_perfdata_open(argv[1], &o);
	if (!pd || setup(pd, &attr, &fmt))
		return die("no sched:sched_switch with its format in the input");
	last = last_switch(argv[1], attr, (uint32_t)atoi(argv[3]));
	if (last < 0)
		return die("no sched_switch sample of that CPU");
	w = pk_pdwriter_open(argv[2], NULL);
	if (!w || copy_header(pd, w))
		return die("cannot copy the header");
	for (; !pk_perfdata_next(pd, &rec); n++) {
		if (copy(w, &rec) ||
		    (n == last && to_idle(pd, w, fmt, &rec)))
			return die("cannot write a record");
	}
	pk_tracefmt_free(fmt);
	pk_perfdata_free(pd);
	return pk_pdwriter_close(w) ? die("cannot close the output") : 0;
}
