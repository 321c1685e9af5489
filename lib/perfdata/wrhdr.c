/* SPDX-License-Identifier: MIT */
/*
 * Encoders of the records perf record writes ahead of the data:
 * PERF_RECORD_ID_INDEX, THREAD_MAP, CPU_MAP, EVENT_UPDATE (read back
 * by describe.c and stream.c) and TIME_CONV (its reader here too, with
 * the control page's read it is made from).
 */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "perfdata/wr.h"
#include <perfkit/map.h>

enum { CPUS_LIST = 0, CPUS_MASK = 1, CPUS_RANGE = 2 };

/* The header of a record of SIZE bytes into BUF (zeroed); 0 or -errno. */
static int start(void *buf, size_t cap, uint32_t type, size_t size)
{
	struct perf_event_header h = { .type = type, .size = (uint16_t)size };

	if (size > 65535)
		return -ERANGE;
	if (size > cap)
		return -ENOSPC;
	memset(buf, 0, size);
	memcpy(buf, &h, sizeof(h));
	return 0;
}

long pk_record_id_index_guest_encode(const struct pk_id_index_entry *e,
				     const struct pk_id_index_guest *g,
				     size_t nr, void *buf, size_t cap)
{
	size_t size = 16 + nr * (sizeof(*e) + (g ? sizeof(*g) : 0));
	uint64_t n = nr;
	int err;

	if (!e || !buf || !nr)
		return -EINVAL;
	if ((err = start(buf, cap, PK_RECORD_ID_INDEX, size)))
		return err;
	memcpy((char *)buf + 8, &n, 8);
	memcpy((char *)buf + 16, e, nr * sizeof(*e));
	if (g)
		memcpy((char *)buf + 16 + nr * sizeof(*e), g, nr * sizeof(*g));
	return (long)size;
}

long pk_record_id_index_encode(const struct pk_id_index_entry *e, size_t nr,
			       void *buf, size_t cap)
{
	return pk_record_id_index_guest_encode(e, NULL, nr, buf, cap);
}

/* perf's reading: entries of 32 bytes; the extension is there when the
 * record holds NR * 48 bytes after its nr. */
int pk_record_id_index_entry(const void *p, size_t size, uint64_t i,
			     struct pk_id_index_entry *e,
			     struct pk_id_index_guest *g)
{
	const char *b = p;
	uint64_t nr;

	if (!p || size < 16)
		return -EINVAL;
	memcpy(&nr, b + 8, 8);
	if (i >= nr || nr > (size - 16) / sizeof(*e))
		return -EINVAL;
	memcpy(e, b + 16 + i * sizeof(*e), sizeof(*e));
	if (g) {
		memset(g, 0, sizeof(*g));
		if ((size - 16) / (sizeof(*e) + sizeof(*g)) >= nr)
			memcpy(g, b + 16 + nr * sizeof(*e) + i * sizeof(*g),
			       sizeof(*g));
	}
	return 0;
}

long pk_record_thread_map_encode(const struct pk_thread_map *map, void *buf,
				 size_t cap)
{
	int nr = map ? pk_thread_map_nr(map) : 0;
	size_t size = 16 + (size_t)nr * 24;
	uint64_t n = (uint64_t)nr;
	int err;

	if (!buf || nr <= 0)
		return -EINVAL;
	if ((err = start(buf, cap, PK_RECORD_THREAD_MAP, size)))
		return err;
	memcpy((char *)buf + 8, &n, 8);
	for (int i = 0; i < nr; i++) {
		int64_t tid = pk_thread_map_tid(map, i);

		memcpy((char *)buf + 16 + (size_t)i * 24, &tid, 8);
	}
	return (long)size;
}

static void put16(unsigned char *p, size_t off, unsigned v)
{
	uint16_t u = (uint16_t)v;

	memcpy(p + off, &u, 2);
}

/* perf's choice: a range when the CPUs after any "-1" are consecutive;
 * else the list when it has "-1" or is no bigger than the mask. */
long pk_record_cpu_map_encode(const struct pk_cpu_map *map, void *buf,
			      size_t cap)
{
	int nr = map ? pk_cpu_map_nr(map) : 0, any, min, max, words;
	size_t list, mask;
	unsigned char *p = buf;
	int err;

	if (!buf || nr <= 0)
		return -EINVAL;
	any = pk_cpu_map_cpu(map, 0) < 0;
	min = any < nr ? pk_cpu_map_cpu(map, any) : -1;
	max = pk_cpu_map_cpu(map, nr - 1);
	if (max - min + 1 == nr - any) {
		if ((err = start(buf, cap, PK_RECORD_CPU_MAP, 16)))
			return err;
		put16(p, 8, CPUS_RANGE);
		p[10] = (unsigned char)any;
		put16(p, 12, (unsigned)min);
		put16(p, 14, (unsigned)max);
		return 16;
	}
	words = max / 32 + 1;
	list = 4 + 2 * (size_t)nr;
	mask = 6 + 4 * (size_t)words;
	if (any || list <= mask) {
		size_t size = 8 + ((list + 7) & ~(size_t)7);

		if ((err = start(buf, cap, PK_RECORD_CPU_MAP, size)))
			return err;
		put16(p, 8, CPUS_LIST);
		put16(p, 10, (unsigned)nr);
		for (int i = 0; i < nr; i++)
			put16(p, 12 + 2 * (size_t)i, (unsigned)pk_cpu_map_cpu(map, i));
		return (long)size;
	}
	mask = 8 + ((mask + 7) & ~(size_t)7);
	if ((err = start(buf, cap, PK_RECORD_CPU_MAP, mask)))
		return err;
	put16(p, 8, CPUS_MASK);
	put16(p, 10, (unsigned)words);
	put16(p, 12, 4);
	for (int i = 0; i < nr; i++) {
		int c = pk_cpu_map_cpu(map, i);
		uint32_t w;

		memcpy(&w, p + 14 + 4 * (size_t)(c / 32), 4);
		w |= 1u << (c % 32);
		memcpy(p + 14 + 4 * (size_t)(c / 32), &w, 4);
	}
	return (long)mask;
}

long pk_record_event_update_encode(const struct pk_event_update *u, void *buf,
				   size_t cap)
{
	unsigned char *p = buf;
	uint64_t t;
	size_t size;
	long n;
	int err;

	if (!u || !buf)
		return -EINVAL;
	t = (uint64_t)u->type;
	switch (u->type) {
	case PK_EVENT_UPDATE_UNIT:
	case PK_EVENT_UPDATE_NAME:
		if (!u->str)
			return -EINVAL;
		/* perf's record is 40 bytes (its payload union is 16) plus
		 * the string and its NUL, 8-aligned */
		size = (40 + strlen(u->str) + 1 + 7) & ~(size_t)7;
		if ((err = start(buf, cap, PK_RECORD_EVENT_UPDATE, size)))
			return err;
		memcpy(p + 24, u->str, strlen(u->str));
		break;
	case PK_EVENT_UPDATE_SCALE:
		if ((err = start(buf, cap, PK_RECORD_EVENT_UPDATE, 48)))
			return err;
		memcpy(p + 24, &u->scale, 8);
		size = 48;
		break;
	case PK_EVENT_UPDATE_CPUS:
		/* the CPU_MAP record's data after type and id */
		if (cap < 16)
			return -ENOSPC;
		n = pk_record_cpu_map_encode(u->cpus, p + 16, cap - 16);
		if (n < 0)
			return n;
		if (n + 16 > 65535)
			return -ERANGE;
		size = (size_t)n + 16;
		memset(p, 0, 16);
		((struct perf_event_header *)buf)->type = PK_RECORD_EVENT_UPDATE;
		((struct perf_event_header *)buf)->size = (uint16_t)size;
		break;
	default:
		return -EINVAL;
	}
	memcpy(p + 8, &t, 8);
	memcpy(p + 16, &u->id, 8);
	return (long)size;
}

enum { TIME_CONV_SIZE = 56, TIME_CONV_OLD = 32 };

long pk_record_time_conv_encode(const struct pk_time_conv *tc, void *buf,
				size_t cap)
{
	unsigned char *p = buf;
	int err;

	if (!tc || !buf)
		return -EINVAL;
	if ((err = start(buf, cap, PK_RECORD_TIME_CONV, TIME_CONV_SIZE)))
		return err;
	memcpy(p + 8, &tc->time_shift, 8);
	memcpy(p + 16, &tc->time_mult, 8);
	memcpy(p + 24, &tc->time_zero, 8);
	memcpy(p + 32, &tc->time_cycles, 8);
	memcpy(p + 40, &tc->time_mask, 8);
	p[48] = tc->cap_user_time_zero;
	p[49] = tc->cap_user_time_short;
	return TIME_CONV_SIZE;
}

int pk_record_time_conv_parse(const struct perf_event_header *h,
			      struct pk_time_conv *tc)
{
	const unsigned char *p = (const void *)h;

	if (!h || !tc || h->type != PK_RECORD_TIME_CONV)
		return -EINVAL;
	if (h->size < TIME_CONV_OLD)
		return -EBADMSG;
	memset(tc, 0, sizeof(*tc));
	memcpy(&tc->time_shift, p + 8, 8);
	memcpy(&tc->time_mult, p + 16, 8);
	memcpy(&tc->time_zero, p + 24, 8);
	if (h->size < TIME_CONV_SIZE)
		return 0;
	memcpy(&tc->time_cycles, p + 32, 8);
	memcpy(&tc->time_mask, p + 40, 8);
	tc->cap_user_time_zero = p[48];
	tc->cap_user_time_short = p[49];
	return 0;
}

int pk_time_conv_read(const struct perf_event_mmap_page *pc,
		      struct pk_time_conv *tc)
{
	const volatile struct perf_event_mmap_page *v = pc;

	if (!pc || !tc)
		return -EINVAL;
	for (int tries = 0; tries < 10000; tries++) {
		uint32_t seq = __atomic_load_n(&v->lock, __ATOMIC_ACQUIRE);

		tc->time_mult = v->time_mult;
		tc->time_shift = v->time_shift;
		tc->time_zero = v->time_zero;
		tc->time_cycles = v->time_cycles;
		tc->time_mask = v->time_mask;
		tc->cap_user_time_zero = v->cap_user_time_zero;
		tc->cap_user_time_short = v->cap_user_time_short;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (v->lock == seq && !(seq & 1))
			return tc->cap_user_time_zero ? 0 : -EOPNOTSUPP;
	}
	return -EAGAIN;
}
