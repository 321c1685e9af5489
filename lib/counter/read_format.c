/* SPDX-License-Identifier: MIT */
/*
 * The read(2) layouts of perf_event_open(2), "Reading results":
 *   !GROUP: value, [time_enabled], [time_running], [id], [lost]
 *    GROUP: nr, [time_enabled], [time_running],
 *           nr x { value, [id], [lost] }
 * Parser and writer side by side; values are host-endian u64s.
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include <perfkit/counter.h>

#define RF_KNOWN (PERF_FORMAT_TOTAL_TIME_ENABLED |                       \
		  PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |         \
		  PERF_FORMAT_GROUP | PERF_FORMAT_LOST)

/* u64 words of the per-value part ({value, [id], [lost]}). */
static size_t value_words(uint64_t rf)
{
	return 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
}

/* u64 words of the header (nr and/or times; not the value for !GROUP). */
static size_t head_words(uint64_t rf)
{
	return !!(rf & PERF_FORMAT_GROUP) +
	       !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
	       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
}

/* Cursor over a byte buffer of u64s (any alignment). */
struct cur {
	const unsigned char *p;
	size_t left;
};

static uint64_t take(struct cur *c)
{
	uint64_t v;

	memcpy(&v, c->p, sizeof(v));
	c->p += sizeof(v);
	c->left -= sizeof(v);
	return v;
}

static void take_times(struct cur *c, uint64_t rf, struct pk_counts *o)
{
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		o->ena = take(c);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		o->run = take(c);
}

static void take_tail(struct cur *c, uint64_t rf, struct pk_counts *o)
{
	if (rf & PERF_FORMAT_ID)
		o->id = take(c);
	if (rf & PERF_FORMAT_LOST)
		o->lost = take(c);
}

static int parse_single(uint64_t rf, struct cur *c, struct pk_counts *out,
			int max)
{
	if (c->left < (head_words(rf) + value_words(rf)) * 8)
		return PK_ERR_TRUNC;
	if (max < 1)
		return PK_ERR_RANGE;
	memset(out, 0, sizeof(*out));
	out->val = take(c);
	take_times(c, rf, out);
	take_tail(c, rf, out);
	return 1;
}

static int parse_group(uint64_t rf, struct cur *c, struct pk_counts *out,
		       int max)
{
	struct pk_counts times = { 0 };
	uint64_t nr;
	size_t vw = value_words(rf) * 8;

	if (c->left < head_words(rf) * 8)
		return PK_ERR_TRUNC;
	nr = take(c);
	take_times(c, rf, &times);
	if (nr > c->left / vw)
		return PK_ERR_TRUNC;
	if (nr > (uint64_t)(max < 0 ? 0 : max))
		return PK_ERR_RANGE;
	for (uint64_t i = 0; i < nr; i++) {
		out[i] = times;
		out[i].val = take(c);
		take_tail(c, rf, &out[i]);
	}
	return (int)nr;
}

int pk_read_format_parse(uint64_t rf, const void *buf, size_t len,
			 struct pk_counts *out, int max)
{
	struct cur c = { buf, len };

	if (rf & ~(uint64_t)RF_KNOWN || (!buf && len))
		return -EINVAL;
	if (rf & PERF_FORMAT_GROUP)
		return parse_group(rf, &c, out, max);
	return parse_single(rf, &c, out, max);
}

static void put(unsigned char **p, const unsigned char *end, uint64_t v)
{
	if (*p + sizeof(v) <= end)
		memcpy(*p, &v, sizeof(v));
	*p += sizeof(v);
}

static void put_times(unsigned char **p, const unsigned char *end,
		      uint64_t rf, const struct pk_counts *c)
{
	if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
		put(p, end, c->ena);
	if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
		put(p, end, c->run);
}

static void put_tail(unsigned char **p, const unsigned char *end,
		     uint64_t rf, const struct pk_counts *c)
{
	if (rf & PERF_FORMAT_ID)
		put(p, end, c->id);
	if (rf & PERF_FORMAT_LOST)
		put(p, end, c->lost);
}

int pk_read_format_write(uint64_t rf, const struct pk_counts *in, int n,
			 void *buf, size_t size)
{
	unsigned char *p = buf, *start = buf, *end = start + (buf ? size : 0);
	bool group = rf & PERF_FORMAT_GROUP;
	size_t need;

	if (rf & ~(uint64_t)RF_KNOWN || n < 1 || (!group && n != 1))
		return -EINVAL;
	need = (head_words(rf) + (size_t)n * value_words(rf)) * 8;
	if (need > INT32_MAX)
		return -EINVAL;
	if (!buf || size < need)
		return (int)need;	/* nothing written, like snprintf */
	if (group) {
		put(&p, end, (uint64_t)n);
		put_times(&p, end, rf, &in[0]);
		for (int i = 0; i < n; i++) {
			put(&p, end, in[i].val);
			put_tail(&p, end, rf, &in[i]);
		}
	} else {
		put(&p, end, in->val);
		put_times(&p, end, rf, in);
		put_tail(&p, end, rf, in);
	}
	return (int)need;
}

uint64_t pk_counts_scaled(const struct pk_counts *c, int *state)
{
	unsigned __int128 v;

	if (c->run == 0) {
		if (state)
			*state = -1;
		return 0;
	}
	if (c->run >= c->ena) {
		if (state)
			*state = 0;
		return c->val;
	}
	v = (unsigned __int128)c->val * c->ena / c->run;
	if (state)
		*state = 1;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}
