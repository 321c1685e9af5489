/* SPDX-License-Identifier: MIT */
/* PERF_RECORD_SAMPLE and sample_id_all trailers: decoder and encoder. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perfdata/pd.h"

struct cur {
	const unsigned char *p, *end;
	char *err;
	size_t errlen;
	int bad;
};

static bool need(struct cur *c, uint64_t n, const char *what)
{
	if (c->bad)
		return false;
	if ((uint64_t)(c->end - c->p) < n) {
		snprintf(c->err, c->errlen,
			 "field %s needs %llu bytes, %zu left in the record",
			 what, (unsigned long long)n, (size_t)(c->end - c->p));
		c->bad = PK_ERR_TRUNC;
		return false;
	}
	return true;
}

/* A count that cannot fit in what is left of the record. */
static void too_many(struct cur *c, uint64_t nr, const char *what)
{
	if (c->bad)
		return;
	snprintf(c->err, c->errlen,
		 "%s count %llu does not fit in the %zu bytes left", what,
		 (unsigned long long)nr, (size_t)(c->end - c->p));
	c->bad = PK_ERR_TRUNC;
}

static uint64_t u64(struct cur *c, const char *what)
{
	uint64_t v = 0;

	if (need(c, 8, what)) {
		v = rd64(c->p);
		c->p += 8;
	}
	return v;
}

static void u32pair(struct cur *c, uint32_t *a, uint32_t *b, const char *w)
{
	if (need(c, 8, w)) {
		*a = rd32(c->p);
		*b = rd32(c->p + 4);
		c->p += 8;
	}
}

static const void *bytes(struct cur *c, uint64_t n, const char *what)
{
	const void *p = c->p;

	if (!need(c, n, what))
		return NULL;
	c->p += n;
	return p;
}

static unsigned popcount64(uint64_t x)
{
	return (unsigned)__builtin_popcountll(x);
}

static void read_values(struct cur *c, uint64_t rf, struct pk_sample *s)
{
	s->read.read_format = rf;
	s->read.stride = 1 + !!(rf & PERF_FORMAT_ID) +
			 !!(rf & PERF_FORMAT_LOST);
	if (rf & PERF_FORMAT_GROUP) {
		s->read.nr = u64(c, "read.nr");
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			s->read.time_enabled = u64(c, "read.time_enabled");
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			s->read.time_running = u64(c, "read.time_running");
		if (s->read.nr > (uint64_t)(c->end - c->p) / 8) {
			too_many(c, s->read.nr, "read.nr");
			return;
		}
		s->read.values = bytes(c, s->read.nr * s->read.stride * 8,
				       "read.values");
		return;
	}
	s->read.nr = 1;
	s->read.one[0] = u64(c, "read.value");
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		s->read.time_enabled = u64(c, "read.time_enabled");
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		s->read.time_running = u64(c, "read.time_running");
	if (rf & PERF_FORMAT_ID)
		s->read.one[1] = u64(c, "read.id");
	if (rf & PERF_FORMAT_LOST)
		s->read.one[1 + !!(rf & PERF_FORMAT_ID)] = u64(c, "read.lost");
	s->read.values = s->read.one;
}

static void regs(struct cur *c, uint64_t mask, uint64_t *abi, uint64_t *m,
		 unsigned *nr, const uint64_t **v, const char *what)
{
	*abi = u64(c, what);
	*m = mask;
	*nr = 0;
	*v = NULL;
	if (*abi) {
		*nr = popcount64(mask);
		*v = bytes(c, *nr * 8ULL, what);
	}
}

static int sample_body(const struct perf_event_attr *attr, struct cur *c,
		       struct pk_sample *s)
{
	uint64_t t = attr->sample_type;

	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = u64(c, "identifier");
	if (t & PERF_SAMPLE_IP)
		s->ip = u64(c, "ip");
	if (t & PERF_SAMPLE_TID)
		u32pair(c, &s->pid, &s->tid, "tid");
	if (t & PERF_SAMPLE_TIME)
		s->time = u64(c, "time");
	if (t & PERF_SAMPLE_ADDR)
		s->addr = u64(c, "addr");
	if (t & PERF_SAMPLE_ID)
		s->id = u64(c, "id");
	if (t & PERF_SAMPLE_STREAM_ID)
		s->stream_id = u64(c, "stream_id");
	if (t & PERF_SAMPLE_CPU)
		u32pair(c, &s->cpu, &s->cpu_res, "cpu");
	if (t & PERF_SAMPLE_PERIOD)
		s->period = u64(c, "period");
	if (t & PERF_SAMPLE_READ)
		read_values(c, attr->read_format, s);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		s->callchain.nr = u64(c, "callchain.nr");
		if (s->callchain.nr > (uint64_t)(c->end - c->p) / 8)
			too_many(c, s->callchain.nr, "callchain.nr");
		else
			s->callchain.ips = bytes(c, s->callchain.nr * 8,
						 "callchain.ips");
	}
	if (t & PERF_SAMPLE_RAW) {
		if (need(c, 4, "raw.size")) {
			s->raw.size = rd32(c->p);
			c->p += 4;
			s->raw.data = bytes(c, s->raw.size, "raw.data");
			/* the u32 size and data are padded to 8 together */
			if (!c->bad) {
				size_t used = 4 + s->raw.size, pad =
					((used + 7) & ~7UL) - used;

				if ((size_t)(c->end - c->p) >= pad)
					c->p += pad;
			}
		}
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		s->branch.nr = u64(c, "branch.nr");
		s->branch.has_hw_idx = attr->branch_sample_type &
				       PERF_SAMPLE_BRANCH_HW_INDEX;
		if (s->branch.has_hw_idx)
			s->branch.hw_idx = u64(c, "branch.hw_idx");
		if (s->branch.nr > (uint64_t)(c->end - c->p) / 24)
			too_many(c, s->branch.nr, "branch.nr");
		else
			s->branch.entries = bytes(c, s->branch.nr * 24,
						  "branch.entries");
	}
	if (t & PERF_SAMPLE_REGS_USER)
		regs(c, attr->sample_regs_user, &s->regs_user.abi,
		     &s->regs_user.mask, &s->regs_user.nr, &s->regs_user.regs,
		     "regs_user");
	if (t & PERF_SAMPLE_STACK_USER) {
		s->stack_user.size = u64(c, "stack_user.size");
		if (s->stack_user.size) {
			s->stack_user.data = bytes(c, s->stack_user.size,
						   "stack_user.data");
			s->stack_user.dyn_size = u64(c, "stack_user.dyn_size");
			if (!c->bad && s->stack_user.dyn_size >
					       s->stack_user.size) {
				snprintf(c->err, c->errlen,
					 "stack_user dyn_size %llu exceeds size %llu",
					 (unsigned long long)s->stack_user.dyn_size,
					 (unsigned long long)s->stack_user.size);
				c->bad = PK_ERR_FORMAT;
			}
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = u64(c, "weight");
	if (t & PERF_SAMPLE_DATA_SRC)
		s->data_src = u64(c, "data_src");
	if (t & PERF_SAMPLE_TRANSACTION)
		s->transaction = u64(c, "transaction");
	if (t & PERF_SAMPLE_REGS_INTR)
		regs(c, attr->sample_regs_intr, &s->regs_intr.abi,
		     &s->regs_intr.mask, &s->regs_intr.nr, &s->regs_intr.regs,
		     "regs_intr");
	if (t & PERF_SAMPLE_PHYS_ADDR)
		s->phys_addr = u64(c, "phys_addr");
	if (t & PERF_SAMPLE_CGROUP)
		s->cgroup = u64(c, "cgroup");
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		s->data_page_size = u64(c, "data_page_size");
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		s->code_page_size = u64(c, "code_page_size");
	if (t & PERF_SAMPLE_AUX) {
		s->aux.size = u64(c, "aux.size");
		s->aux.data = bytes(c, s->aux.size, "aux.data");
	}
	return c->bad;
}

/* Bytes of the sample_id_all trailer for ATTR. */
static unsigned id_trailer_size(const struct perf_event_attr *attr)
{
	uint64_t t = attr->sample_type;

	if (!attr->sample_id_all)
		return 0;
	return 8 * (!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
		    !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
		    !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
}

static int trailer(const struct perf_event_attr *attr, struct cur *c,
		   struct pk_sample *s)
{
	uint64_t t = attr->sample_type;
	unsigned n = id_trailer_size(attr);

	if (!n)
		return 0;
	if ((size_t)(c->end - c->p) < n) {
		snprintf(c->err, c->errlen,
			 "sample_id trailer of %u bytes does not fit", n);
		return PK_ERR_TRUNC;
	}
	c->p = c->end - n;
	if (t & PERF_SAMPLE_TID)
		u32pair(c, &s->pid, &s->tid, "tid");
	if (t & PERF_SAMPLE_TIME)
		s->time = u64(c, "time");
	if (t & PERF_SAMPLE_ID)
		s->id = u64(c, "id");
	if (t & PERF_SAMPLE_STREAM_ID)
		s->stream_id = u64(c, "stream_id");
	if (t & PERF_SAMPLE_CPU)
		u32pair(c, &s->cpu, &s->cpu_res, "cpu");
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = u64(c, "identifier");
	return c->bad;
}

int pk__pd_sample_decode(const struct perf_event_attr *attr,
		     const struct perf_event_header *h, struct pk_sample *s,
		     char *err, size_t errlen)
{
	struct cur c = {
		.p = (const unsigned char *)(h + 1),
		.end = (const unsigned char *)h + h->size,
		.err = err, .errlen = errlen,
	};

	memset(s, 0, sizeof(*s));
	err[0] = 0;
	if (h->size < sizeof(*h)) {
		snprintf(err, errlen, "record size %u", h->size);
		return PK_ERR_FORMAT;
	}
	if (h->type == PERF_RECORD_SAMPLE) {
		s->sample_type = attr->sample_type;
		/* as perf: without PERIOD the attr's period applies */
		s->period = attr->sample_period;
		return sample_body(attr, &c, s);
	}
	if (h->type >= PK_RECORD_HEADER_ATTR || !attr->sample_id_all)
		return 0;
	s->sample_type = attr->sample_type &
		(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
		 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		 PERF_SAMPLE_IDENTIFIER);
	return trailer(attr, &c, s);
}

int pk_sample_decode(const struct perf_event_attr *attr,
		     const struct perf_event_header *rec, struct pk_sample *s)
{
	char err[128];

	if (!attr || !rec || !s)
		return -EINVAL;
	return pk__pd_sample_decode(attr, rec, s, err, sizeof(err));
}

/* Time (0 when none) and attribute of a record, cheaply. */
uint64_t pk__pd_record_time(struct pk_perfdata *pd,
			const struct perf_event_header *h, int *attr)
{
	const unsigned char *p = (const void *)h;
	const struct perf_event_attr *a;
	uint64_t t;
	unsigned n;

	*attr = -1;
	if (h->type >= PK_RECORD_HEADER_ATTR || !pd->nr_attrs)
		return 0;
	if (pd->nr_attrs == 1) {
		*attr = 0;
	} else if (h->type == PERF_RECORD_SAMPLE) {
		if (pd->id_pos < 0 || h->size < 8 + 8 * (pd->id_pos + 1))
			return 0;
		*attr = pk_perfdata_id_attr(pd, rd64(p + 8 + 8 * pd->id_pos));
	} else if (!pd->attrs[0].attr.sample_id_all) {
		*attr = 0; /* as perf: such records belong to the first */
	} else {
		uint64_t id;

		if (pd->id_pos_tail < 0 || h->size < 8 + 8 * pd->id_pos_tail)
			return 0;
		id = rd64(p + h->size - 8 * pd->id_pos_tail);
		/* synthesized records carry id 0: perf gives them the first */
		*attr = id ? pk_perfdata_id_attr(pd, id) : 0;
	}
	if (*attr < 0)
		return 0;
	a = &pd->attrs[*attr].attr;
	t = a->sample_type;
	if (!(t & PERF_SAMPLE_TIME))
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		n = 8 + 8 * (!!(t & PERF_SAMPLE_IDENTIFIER) +
			     !!(t & PERF_SAMPLE_IP) + !!(t & PERF_SAMPLE_TID));
		return h->size >= n + 8 ? rd64(p + n) : 0;
	}
	if (!a->sample_id_all)
		return 0;
	n = id_trailer_size(a);
	if (h->size < 8 + n)
		return 0;
	n = 8 * (1 + !!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
		 !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
	return rd64(p + h->size - n);
}

/* ---- encoder ---- */

struct out {
	unsigned char *p, *end;
	int bad;
};

static void put(struct out *o, const void *v, size_t n)
{
	if (o->bad)
		return;
	if ((size_t)(o->end - o->p) < n) {
		o->bad = -ENOSPC;
		return;
	}
	if (v)
		memcpy(o->p, v, n);
	else
		memset(o->p, 0, n);
	o->p += n;
}

static void put64(struct out *o, uint64_t v)
{
	put(o, &v, 8);
}

static void put32x2(struct out *o, uint32_t a, uint32_t b)
{
	put(o, &a, 4);
	put(o, &b, 4);
}

static void put_read(struct out *o, uint64_t rf, const struct pk_sample *s)
{
	unsigned stride = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	const uint64_t *v = s->read.values;

	if (rf & PERF_FORMAT_GROUP) {
		put64(o, s->read.nr);
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			put64(o, s->read.time_enabled);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			put64(o, s->read.time_running);
		put(o, v, s->read.nr * stride * 8);
		return;
	}
	put64(o, v ? v[0] : 0);
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put64(o, s->read.time_enabled);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put64(o, s->read.time_running);
	for (unsigned i = 1; i < stride; i++)
		put64(o, v ? v[i] : 0);
}

static void put_regs(struct out *o, uint64_t abi, uint64_t mask,
		     const uint64_t *r)
{
	put64(o, abi);
	if (abi)
		put(o, r, popcount64(mask) * 8ULL);
}

static void encode_body(const struct perf_event_attr *attr,
			const struct pk_sample *s, struct out *o)
{
	uint64_t t = attr->sample_type;

	if (t & PERF_SAMPLE_IDENTIFIER)
		put64(o, s->id);
	if (t & PERF_SAMPLE_IP)
		put64(o, s->ip);
	if (t & PERF_SAMPLE_TID)
		put32x2(o, s->pid, s->tid);
	if (t & PERF_SAMPLE_TIME)
		put64(o, s->time);
	if (t & PERF_SAMPLE_ADDR)
		put64(o, s->addr);
	if (t & PERF_SAMPLE_ID)
		put64(o, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		put64(o, s->stream_id);
	if (t & PERF_SAMPLE_CPU)
		put32x2(o, s->cpu, s->cpu_res);
	if (t & PERF_SAMPLE_PERIOD)
		put64(o, s->period);
	if (t & PERF_SAMPLE_READ)
		put_read(o, attr->read_format, s);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		put64(o, s->callchain.nr);
		put(o, s->callchain.ips, s->callchain.nr * 8);
	}
	if (t & PERF_SAMPLE_RAW) {
		size_t used = 4 + s->raw.size;

		put(o, &s->raw.size, 4);
		put(o, s->raw.data, s->raw.size);
		put(o, NULL, ((used + 7) & ~7UL) - used);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		put64(o, s->branch.nr);
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			put64(o, s->branch.hw_idx);
		put(o, s->branch.entries, s->branch.nr * 24);
	}
	if (t & PERF_SAMPLE_REGS_USER)
		put_regs(o, s->regs_user.abi, attr->sample_regs_user,
			 s->regs_user.regs);
	if (t & PERF_SAMPLE_STACK_USER) {
		put64(o, s->stack_user.size);
		if (s->stack_user.size) {
			put(o, s->stack_user.data, s->stack_user.size);
			put64(o, s->stack_user.dyn_size);
		}
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		put64(o, s->weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		put64(o, s->data_src);
	if (t & PERF_SAMPLE_TRANSACTION)
		put64(o, s->transaction);
	if (t & PERF_SAMPLE_REGS_INTR)
		put_regs(o, s->regs_intr.abi, attr->sample_regs_intr,
			 s->regs_intr.regs);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		put64(o, s->phys_addr);
	if (t & PERF_SAMPLE_CGROUP)
		put64(o, s->cgroup);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE)
		put64(o, s->data_page_size);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE)
		put64(o, s->code_page_size);
	if (t & PERF_SAMPLE_AUX) {
		put64(o, s->aux.size);
		put(o, s->aux.data, s->aux.size);
	}
}

long pk_sample_encode(const struct perf_event_attr *attr,
		      const struct pk_sample *s, uint16_t misc, void *buf,
		      size_t cap)
{
	struct out o = { .p = buf, .end = (unsigned char *)buf + cap };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, misc, 0 };
	size_t n;

	if (!attr || !s || (!buf && cap))
		return -EINVAL;
	put(&o, &h, sizeof(h));
	encode_body(attr, s, &o);
	if (o.bad)
		return o.bad;
	n = o.p - (unsigned char *)buf;
	if (n % 8)
		put(&o, NULL, 8 - n % 8);
	if (o.bad)
		return o.bad;
	n = o.p - (unsigned char *)buf;
	if (n > 0xffff)
		return -ERANGE;
	((struct perf_event_header *)buf)->size = (uint16_t)n;
	return (long)n;
}

long pk_sample_id_encode(const struct perf_event_attr *attr,
			 const struct pk_sample *s, void *buf, size_t cap)
{
	struct out o = { .p = buf, .end = (unsigned char *)buf + cap };
	uint64_t t = attr->sample_type;

	if (!attr || !s || (!buf && cap))
		return -EINVAL;
	if (!attr->sample_id_all)
		return 0;
	if (t & PERF_SAMPLE_TID)
		put32x2(&o, s->pid, s->tid);
	if (t & PERF_SAMPLE_TIME)
		put64(&o, s->time);
	if (t & PERF_SAMPLE_ID)
		put64(&o, s->id);
	if (t & PERF_SAMPLE_STREAM_ID)
		put64(&o, s->stream_id);
	if (t & PERF_SAMPLE_CPU)
		put32x2(&o, s->cpu, s->cpu_res);
	if (t & PERF_SAMPLE_IDENTIFIER)
		put64(&o, s->id);
	if (o.bad)
		return o.bad;
	return (long)(o.p - (unsigned char *)buf);
}
