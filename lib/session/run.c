/* SPDX-License-Identifier: MIT */
/*
 * pk_session_run(): a perf.data read into the session's machine, with a
 * tool called back per record and per sample (perf's session and tool):
 * build ids from the header (and a pipe's BUILD_ID records), the tracing
 * data kept for the tool, PERF_SAMPLE_READ groups split into their members' samples.
 */
#include <errno.h>
#include <string.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>
#include "base/base.h"
#include "session/session.h"

void pk__run_fini(struct pk__run *r)
{
	pk__free(r->td);
	pk__free(r->reads);
	memset(r, 0, sizeof(*r));
}

int pk_session_tracing_data(struct pk_session *s, const void **data,
			    size_t *size)
{
	struct pk__run *r = pk__session_run_state(s);

	if (!r->td)
		return -ENOENT;
	*data = r->td;
	*size = r->td_size;
	return 0;
}

int pk_session_callchain(const struct pk_sample *sm, unsigned max,
			 struct pk_frame *frames)
{
	uint16_t cpumode = PERF_RECORD_MISC_USER;
	unsigned nr = 0;

	for (uint64_t i = 0; i < sm->callchain.nr && nr < max; i++) {
		uint64_t ip = sm->callchain.ips[i];

		if (ip < PERF_CONTEXT_MAX) {
			frames[nr].ip = ip;
			frames[nr++].cpumode = cpumode;
			continue;
		}
		switch (ip) {
		case PERF_CONTEXT_HV:
			cpumode = PERF_RECORD_MISC_HYPERVISOR;
			break;
		case PERF_CONTEXT_KERNEL:
			cpumode = PERF_RECORD_MISC_KERNEL;
			break;
		case PERF_CONTEXT_USER:
			cpumode = PERF_RECORD_MISC_USER;
			break;
		default:
			return PK_ERR_FORMAT;
		}
	}
	return (int)nr;
}

int pk_session_callchain_in(const struct pk_sample *sm, uint16_t misc,
			    unsigned max, struct pk_frame *frames)
{
	unsigned mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	int n = pk_session_callchain(sm, max, frames);

	if (mode != PERF_RECORD_MISC_GUEST_KERNEL &&
	    mode != PERF_RECORD_MISC_GUEST_USER)
		return n;
	for (int i = 0; i < n; i++)
		if (frames[i].cpumode == PERF_RECORD_MISC_KERNEL)
			frames[i].cpumode = PERF_RECORD_MISC_GUEST_KERNEL;
		else if (frames[i].cpumode == PERF_RECORD_MISC_USER)
			frames[i].cpumode = PERF_RECORD_MISC_GUEST_USER;
	return n;
}

/* The last value read for an event id (PERF_SAMPLE_READ deltas). */
static uint64_t *read_last(struct pk__run *r, uint64_t id)
{
	for (unsigned i = 0; i < r->nr_reads; i++)
		if (r->reads[i].id == id)
			return &r->reads[i].value;
	if (r->nr_reads == r->cap_reads) {
		unsigned cap = r->cap_reads ? 2 * r->cap_reads : 16;
		void *n = pk__realloc(r->reads, cap * sizeof(*r->reads));

		if (!n)
			return NULL;
		r->reads = n;
		r->cap_reads = cap;
	}
	r->reads[r->nr_reads].id = id;
	r->reads[r->nr_reads].value = 0;
	return &r->reads[r->nr_reads++].value;
}

/* A :S sample once per value read, as that member's sample with the
 * growth of its count as the period (none when it did not grow). */
static int deliver_read(struct pk_session *s, const struct pk_tool *t,
			void *ctx, struct pk_session_sample *ss)
{
	struct pk__run *r = pk__session_run_state(s);
	struct pk_sample *sm = ss->sample;
	bool has_id = sm->read.read_format & PERF_FORMAT_ID;

	for (uint64_t i = 0; i < sm->read.nr; i++) {
		const uint64_t *v = sm->read.values + i * sm->read.stride;
		uint64_t id = has_id ? v[1] : sm->id, *last;
		int attr = pk_perfdata_id_attr(r->pd, id), err;

		if (attr < 0)
			continue;
		last = read_last(r, id);
		if (!last)
			return -ENOMEM;
		sm->period = v[0] - *last;
		*last = v[0];
		sm->id = id;
		if (!sm->period)
			continue;
		ss->attr = attr;
		err = t->sample(ctx, s, ss);
		if (err)
			return err;
	}
	return 0;
}

static int deliver_sample(struct pk_session *s, const struct pk_tool *t,
			  void *ctx, const struct pk_record *rec)
{
	struct pk_sample sm;
	struct pk_session_sample ss = { rec, &sm, rec->attr, NULL };
	int err;

	if (rec->attr < 0)
		return 0;
	err = pk_sample_parse(pk__session_run_state(s)->pd, rec, &sm);
	if (err == PK_ERR_TRUNC || err == PK_ERR_FORMAT) {
		if (t->bad_record)
			t->bad_record(ctx, s, rec, err);
		return 0;
	}
	if (err)
		return err;
	ss.comm = pk_session_comm(s, sm.tid);
	if ((sm.sample_type & PERF_SAMPLE_READ) && sm.read.values)
		return deliver_read(s, t, ctx, &ss);
	return t->sample(ctx, s, &ss);
}

/* The first tracing data is kept (perf reads only one). */
static int keep_tracing(struct pk_session *s, const void *data, uint64_t size)
{
	struct pk__run *r = pk__session_run_state(s);

	if (r->td || !size || size > SIZE_MAX)
		return 0;
	r->td = pk__malloc((size_t)size);
	if (!r->td)
		return -ENOMEM;
	memcpy(r->td, data, (size_t)size);
	r->td_size = (size_t)size;
	return 0;
}

static void add_build_ids(struct pk_session *s, struct pk_perfdata *pd,
			  unsigned from)
{
	unsigned n = pk_perfdata_nr_build_ids(pd);

	for (unsigned i = from; i < n; i++) {
		struct pk_build_id b;

		if (pk_perfdata_build_id(pd, i, &b) == 0 && b.filename)
			pk_session_add_build_id(s, b.filename, b.id, b.id_size);
	}
}

/* One record: the tool sees it, then the machine takes it in. */
static int deliver(struct pk_session *s, const struct pk_tool *t, void *ctx,
		   const struct pk_record *rec)
{
	int err = t->record ? t->record(ctx, s, rec) : 0;

	if (err)
		return err;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		return t->sample ? deliver_sample(s, t, ctx, rec) : 0;
	case PK_RECORD_TRACING_DATA:
		return keep_tracing(s, rec->extra, rec->extra_size);
	default:
		err = pk_session_process(s, rec->hdr);
		return err == -ENOMEM ? err : 0;
	}
}

int pk_session_run(struct pk_session *s, struct pk_perfdata *pd,
		   const struct pk_tool *t, void *ctx)
{
	struct pk__run *r = pk__session_run_state(s);
	struct pk_perfdata_info in;
	struct pk_record rec;
	unsigned nbid;
	const void *td;
	uint64_t tdsize;
	int err;

	if (!PK_OPTS_VALID(t, pk_tool) || !t)
		return -EINVAL;
	r->pd = pd;
	pk__session_data_dir(s, pk_perfdata_dir(pd));
	pk_perfdata_info(pd, &in);
	add_build_ids(s, pd, 0);
	nbid = pk_perfdata_nr_build_ids(pd);
	if (!in.pipe &&
	    pk_perfdata_feat_raw(pd, PK_HEADER_TRACING_DATA, &td, &tdsize) == 0 &&
	    keep_tracing(s, td, tdsize))
		return -ENOMEM;
	while ((err = pk_perfdata_next(pd, &rec)) == 0) {
		if (in.pipe && pk_perfdata_nr_build_ids(pd) != nbid) {
			add_build_ids(s, pd, 0);
			nbid = pk_perfdata_nr_build_ids(pd);
		}
		err = deliver(s, t, ctx, &rec);
		if (err)
			return err;
	}
	return err == PK_ERR_EOS ? 0 : err;
}
