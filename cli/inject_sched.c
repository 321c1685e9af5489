/* SPDX-License-Identifier: MIT */
/*
 * perf inject -s (perf 6.1's rules): a sched:sched_switch sample is kept
 * back, the last one of its task (tid) only; sched:sched_process_exit
 * forgets the task's; a sched:sched_stat_* sample brings the kept switch
 * of the task its "pid" field names, with the stat's time and period
 * (how long the task slept or waited), as perf rewrites it (through the
 * stat event's sample layout). Those three kinds of samples themselves
 * are left out; a stat with no kept switch brings nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/tracefmt.h>
#include "cli.h"
#include "inject.h"

enum { SCHED_NONE, SCHED_SWITCH, SCHED_EXIT, SCHED_STAT };

struct inj_switch {
	uint32_t tid;
	struct perf_event_header *h;
};

static int role_of(const char *name)
{
	if (!name)
		return SCHED_NONE;
	if (!strcmp(name, "sched:sched_switch"))
		return SCHED_SWITCH;
	if (!strcmp(name, "sched:sched_process_exit"))
		return SCHED_EXIT;
	return !strncmp(name, "sched:sched_stat_", 17) ? SCHED_STAT : SCHED_NONE;
}

int inj_sched_init(struct inj_copy *c)
{
	unsigned n = pk_perfdata_nr_attrs(c->pd);

	c->sched_role = calloc(n + 1, sizeof(int));
	if (!c->sched_role)
		return -ENOMEM;
	c->nr_roles = n;
	for (unsigned i = 0; i < n; i++) {
		const char *name = pk_perfdata_attr_name(c->pd, i);

		c->sched_role[i] = role_of(name);
		if (c->sched_role[i] == SCHED_SWITCH &&
		    !(pk_perfdata_attr(c->pd, i)->sample_type & PERF_SAMPLE_TID)) {
			cli_error("inject", "%s: samples for %s event do not have TID attribute set",
				  c->input, name);
			return -EINVAL;
		}
	}
	return 0;
}

static int role(struct inj_copy *c, int attr)
{
	if (attr < 0)
		return SCHED_NONE;
	if ((unsigned)attr >= c->nr_roles) {
		/* a pipe's attrs come as records: learn them as they come */
		unsigned n = pk_perfdata_nr_attrs(c->pd);
		int *v = realloc(c->sched_role, (n + 1) * sizeof(int));

		if (!v)
			return SCHED_NONE;
		c->sched_role = v;
		for (unsigned i = c->nr_roles; i < n; i++)
			v[i] = role_of(pk_perfdata_attr_name(c->pd, i));
		c->nr_roles = n;
		if ((unsigned)attr >= n)
			return SCHED_NONE;
	}
	return c->sched_role[attr];
}

static int find_sw(const struct inj_copy *c, uint32_t tid)
{
	for (int i = 0; i < c->nr_sw; i++)
		if (c->sw[i].tid == tid)
			return i;
	return -1;
}

static void forget(struct inj_copy *c, uint32_t tid)
{
	int i = find_sw(c, tid);

	if (i < 0)
		return;
	free(c->sw[i].h);
	c->sw[i] = c->sw[--c->nr_sw];
}

static int keep(struct inj_copy *c, uint32_t tid,
		const struct perf_event_header *h)
{
	struct inj_switch *s;

	forget(c, tid);
	if (c->nr_sw == c->cap_sw) {
		int cap = c->cap_sw ? 2 * c->cap_sw : 64;

		s = realloc(c->sw, (size_t)cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		c->sw = s;
		c->cap_sw = cap;
	}
	s = &c->sw[c->nr_sw];
	s->h = malloc(h->size);
	if (!s->h)
		return -ENOMEM;
	memcpy(s->h, h, h->size);
	s->tid = tid;
	c->nr_sw++;
	return 0;
}

/* The stat's "pid" field (0 without the event's format, as perf's). */
static uint32_t stat_pid(struct inj_copy *c, const struct pk_sample *sm)
{
	uint64_t id, v = 0;
	const void *data;
	uint64_t size;

	if (!c->tf && !pk_perfdata_feat_raw(c->pd, PK_HEADER_TRACING_DATA,
					    &data, &size))
		c->tf = pk_tracefmt_new(data, (size_t)size);
	if (!c->tf || !(sm->sample_type & PERF_SAMPLE_RAW) ||
	    pk_tracefmt_record_id(c->tf, sm->raw.data, sm->raw.size, &id) ||
	    pk_tracefmt_field_num(c->tf, id, sm->raw.data, sm->raw.size, "pid", &v))
		return 0;
	return (uint32_t)v;
}

/* The u64 slot of FIELD in a sample of TYPE, or -1: the fields before
 * the read values have fixed places. */
static int slot(uint64_t type, uint64_t field)
{
	static const uint64_t order[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID,
		PERF_SAMPLE_TIME, PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU, PERF_SAMPLE_PERIOD,
	};
	int n = 0;

	if (!(type & field))
		return -1;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (order[i] == field)
			return n;
		n += !!(type & order[i]);
	}
	return -1;
}

static void put(struct perf_event_header *h, int at, uint64_t v)
{
	if (at >= 0 && 8 + 8 * (size_t)(at + 1) <= h->size)
		memcpy((char *)h + 8 + 8 * at, &v, 8);
}

/* perf 6.1 writes the raw size as a u64 whose upper half is left from
 * its last u32 pair (CPU's 0, else TID's tid), then copies the raw data
 * onto itself: the data's first 4 bytes (common_type...) become that. */
static void raw_head(const struct perf_event_attr *a,
		     struct perf_event_header *h)
{
	struct pk_sample sm;
	uint32_t v;

	if (!(a->sample_type & PERF_SAMPLE_RAW) ||
	    !(a->sample_type & (PERF_SAMPLE_CPU | PERF_SAMPLE_TID)) ||
	    pk_sample_decode(a, h, &sm) || sm.raw.size < 4)
		return;
	v = a->sample_type & PERF_SAMPLE_CPU ? 0 : sm.tid;
	memcpy((char *)h + ((const char *)sm.raw.data - (const char *)h), &v, 4);
}

static int stat(struct inj_copy *c, const struct pk_record *rec,
		const struct pk_sample *sm)
{
	const struct perf_event_attr *a = pk_perfdata_attr(c->pd, (unsigned)rec->attr);
	struct pk_record sw = *rec;
	int i = find_sw(c, stat_pid(c, sm)), err;

	if (i < 0)
		return 0;
	put(c->sw[i].h, slot(a->sample_type, PERF_SAMPLE_TIME), sm->time);
	put(c->sw[i].h, slot(a->sample_type, PERF_SAMPLE_PERIOD), sm->period);
	raw_head(a, c->sw[i].h);
	sw.hdr = c->sw[i].h;
	sw.size = sw.hdr->size;
	sw.misc = sw.hdr->misc;
	sw.extra = NULL;
	sw.extra_size = 0;
	err = inj_bid_sample(c, &sw, false);
	return err ? err : inj_out(c, sw.hdr, NULL, 0);
}

int inj_sched_sample(struct inj_copy *c, const struct pk_record *rec)
{
	int r = role(c, rec->attr), err = 0;
	struct pk_sample sm;

	if (r == SCHED_NONE)
		return 0;
	if (pk_sample_parse(c->pd, rec, &sm))
		return 1;
	if (r == SCHED_SWITCH)
		err = keep(c, sm.tid, rec->hdr);
	else if (r == SCHED_EXIT)
		forget(c, sm.tid);
	else
		err = stat(c, rec, &sm);
	return err ? err : 1;
}

void inj_sched_free(struct inj_copy *c)
{
	for (int i = 0; i < c->nr_sw; i++)
		free(c->sw[i].h);
	free(c->sw);
	free(c->sched_role);
	c->sw = NULL;
	c->sched_role = NULL;
	c->nr_sw = c->cap_sw = 0;
	pk_tracefmt_free(c->tf);
	c->tf = NULL;
}
