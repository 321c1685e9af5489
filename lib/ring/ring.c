/* SPDX-License-Identifier: MIT */
/* The perf ring-buffer protocol: data_head (acquire) / data_tail (release). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "base/base.h"
#include "ring/ring.h"

#define BOUNCE_SIZE 65536 /* perf_event_header.size is 16 bits */

static uint64_t load_acquire(const volatile __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_release(volatile __u64 *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static bool is_pow2(size_t n)
{
	return n && !(n & (n - 1));
}

int pk__ring_init_mem(struct pk_ring *r, struct perf_event_mmap_page *pc,
		      void *data, size_t size, bool overwrite)
{
	if (!is_pow2(size))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->pc = pc;
	r->data = data;
	r->size = size;
	r->mask = size - 1;
	r->overwrite = overwrite;
	r->bounce = pk__malloc(BOUNCE_SIZE);
	return r->bounce ? 0 : -ENOMEM;
}

void pk__ring_fini(struct pk_ring *r)
{
	if (r->aux && r->mapped)
		munmap(r->aux, r->aux_size);
	if (r->mapped)
		munmap(r->base, r->map_len);
	pk__free(r->bounce);
	r->bounce = NULL;
	pk__free(r->aux_ref);
	r->aux_ref = NULL;
}

struct pk_ring *pk_ring_new(int fd, size_t data_pages, bool overwrite)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	struct pk_ring *r;
	void *base;
	size_t len;
	int err;

	if (!is_pow2(data_pages)) {
		errno = EINVAL;
		return NULL;
	}
	len = (data_pages + 1) * ps;
	base = mmap(NULL, len, PROT_READ | (overwrite ? 0 : PROT_WRITE),
		    MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return NULL;
	r = pk__malloc(sizeof(*r));
	err = r ? pk__ring_init_mem(r, base, (char *)base + ps,
				    data_pages * ps, overwrite) : -ENOMEM;
	if (err) {
		if (r)
			pk__ring_fini(r);
		pk__free(r);
		munmap(base, len);
		errno = -err;
		return NULL;
	}
	r->fd = fd;
	r->base = base;
	r->map_len = len;
	r->mapped = true;
	if (r->pc->data_offset && r->pc->data_size &&
	    r->pc->data_offset + r->pc->data_size <= len &&
	    is_pow2(r->pc->data_size)) {
		r->data = (unsigned char *)base + r->pc->data_offset;
		r->size = r->pc->data_size;
		r->mask = r->size - 1;
	}
	return r;
}

void pk_ring_free(struct pk_ring *r)
{
	if (!r)
		return;
	pk__ring_fini(r);
	pk__free(r);
}

int pk_ring_fd(const struct pk_ring *r)
{
	return r->fd;
}

size_t pk_ring_size(const struct pk_ring *r)
{
	return r->size;
}

const struct perf_event_mmap_page *pk_ring_page(const struct pk_ring *r)
{
	return r->pc;
}

int pk_ring_error(const struct pk_ring *r)
{
	return r->error;
}

size_t pk_ring_read_init(struct pk_ring *r)
{
	uint64_t head = load_acquire(&r->pc->data_head);

	r->error = 0;
	r->rec_size = 0;
	if (!r->overwrite) {
		r->end = head;
		return (size_t)(r->end - r->start);
	}
	/*
	 * Backward: the newest record starts at head; data reaches up to the
	 * previous pass's head (or the initial 0), at most one buffer.
	 */
	{
		uint64_t avail = r->end_prev - head;

		if (avail > r->size)
			avail = r->size;
		r->start = head;
		r->end = head + avail;
		r->end_prev = head;
	}
	return (size_t)(r->end - r->start);
}

/* Copies LEN bytes at ring position POS into DST, across the wrap. */
static void ring_copy(const struct pk_ring *r, uint64_t pos, void *dst,
		      size_t len)
{
	size_t off = (size_t)(pos & r->mask);
	size_t first = PK_MIN(len, r->size - off);

	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, len - first);
}

const struct perf_event_header *pk_ring_read_event(struct pk_ring *r)
{
	struct perf_event_header h;
	size_t off;

	if (r->end - r->start < sizeof(h))
		return NULL;
	ring_copy(r, r->start, &h, sizeof(h));
	if (r->overwrite && h.size == 0)
		return NULL; /* never-written space of a backward ring */
	if (h.size < sizeof(h) || h.size > r->end - r->start) {
		if (!r->overwrite)
			r->error = PK_ERR_FORMAT;
		return NULL;
	}
	r->rec_size = h.size;
	off = (size_t)(r->start & r->mask);
	if (off + h.size <= r->size)
		return (const struct perf_event_header *)(r->data + off);
	ring_copy(r, r->start, r->bounce, h.size);
	return (const struct perf_event_header *)r->bounce;
}

void pk_ring_consume(struct pk_ring *r)
{
	r->start += r->rec_size;
	r->rec_size = 0;
}

void pk_ring_read_done(struct pk_ring *r)
{
	if (!r->overwrite)
		store_release(&r->pc->data_tail, r->start);
}

int pk__ring_produce(struct pk_ring *r, const struct perf_event_header *ev)
{
	uint64_t head = r->pc->data_head;
	size_t off, first;

	if (r->overwrite) {
		head -= ev->size;
	} else if (head + ev->size - r->pc->data_tail > r->size) {
		return -ENOSPC;
	}
	off = (size_t)(head & r->mask);
	first = PK_MIN((size_t)ev->size, r->size - off);
	memcpy(r->data + off, ev, first);
	memcpy(r->data, (const char *)ev + first, ev->size - first);
	store_release(&r->pc->data_head, r->overwrite ? head : head + ev->size);
	return 0;
}
