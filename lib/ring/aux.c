/* SPDX-License-Identifier: MIT */
/*
 * The AUX area: aux_head (acquire) / aux_tail (release) for a full trace;
 * a snapshot read backward from aux_head for an overwrite area, with
 * perf's rule for telling whether the area has gone round.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "base/base.h"
#include "ring/ring.h"

/* perf looks for data in the area's last 512 u64s (4 KiB) */
#define WRAP_PROBE 4096

static bool pow2(size_t n)
{
	return n && !(n & (n - 1));
}

int pk__ring_aux_init_mem(struct pk_ring *r, void *aux, size_t size,
			  bool overwrite)
{
	if (r->aux || !pow2(size))
		return -EINVAL;
	r->aux = aux;
	r->aux_size = size;
	r->aux_overwrite = overwrite;
	r->aux_old = r->aux_new = 0;
	r->aux_wrapped = false;
	return 0;
}

int pk_ring_aux_map(struct pk_ring *r, size_t aux_pages, bool overwrite)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	if (!r || !r->mapped || r->aux || !pow2(aux_pages))
		return -EINVAL;
	r->pc->aux_offset = r->map_len;
	r->pc->aux_size = aux_pages * ps;
	p = mmap(NULL, aux_pages * ps, PROT_READ | (overwrite ? 0 : PROT_WRITE),
		 MAP_SHARED, r->fd, (off_t)r->map_len);
	if (p == MAP_FAILED)
		return -errno;
	return pk__ring_aux_init_mem(r, p, aux_pages * ps, overwrite);
}

size_t pk_ring_aux_size(const struct pk_ring *r)
{
	return r && r->aux ? r->aux_size : 0;
}

/* The LEN bytes that end at HEAD (a running count), as one or two pieces. */
static long pieces(const struct pk_ring *r, uint64_t head, uint64_t len,
		   struct pk_aux_chunk *c)
{
	size_t off = (size_t)((head - len) & (r->aux_size - 1));

	c->head = head;
	c->offset = head - len;
	c->p1 = r->aux + off;
	c->n1 = (size_t)PK_MIN(len, r->aux_size - off);
	c->p2 = r->aux;
	c->n2 = (size_t)len - c->n1;
	return (long)len;
}

long pk_ring_aux_read(struct pk_ring *r, struct pk_aux_chunk *c)
{
	uint64_t head, len;

	if (!r || !r->aux || r->aux_overwrite || !c)
		return -EINVAL;
	head = __atomic_load_n(&r->pc->aux_head, __ATOMIC_ACQUIRE);
	len = head - r->aux_old;
	if (len > r->aux_size)
		len = r->aux_size; /* cannot happen with aux_tail kept */
	r->aux_new = head;
	return pieces(r, head, len, c);
}

void pk_ring_aux_done(struct pk_ring *r)
{
	if (!r || !r->aux || r->aux_overwrite)
		return;
	r->aux_old = r->aux_new;
	__atomic_store_n(&r->pc->aux_tail, r->aux_new, __ATOMIC_RELEASE);
}

/* perf's first-wrap test: data in the last 4 KiB of a zeroed area. */
static bool end_written(const struct pk_ring *r)
{
	size_t from = r->aux_size > WRAP_PROBE ? r->aux_size - WRAP_PROBE : 0;
	const uint64_t *p = (const uint64_t *)(r->aux + from);

	for (size_t i = 0; i < (r->aux_size - from) / 8; i++)
		if (p[i])
			return true;
	return false;
}

int pk_ring_aux_snapshot_ref(struct pk_ring *r, size_t size)
{
	if (!r || !r->aux || !r->aux_overwrite || r->aux_snapped ||
	    size >= r->aux_size)
		return -EINVAL;
	pk__free(r->aux_ref);
	r->aux_ref = NULL;
	r->aux_ref_size = 0;
	if (!size)
		return 0;
	if (!(r->aux_ref = pk__zalloc(size)))
		return -ENOMEM;
	r->aux_ref_size = size;
	return 0;
}

/* perf's reference test (intel_pt_wrapped): the area's last bytes
 * against the reference, aux_head inside them; the reference then taken
 * from before HEAD (a position in the area). */
static bool ref_wrapped(struct pk_ring *r, size_t head)
{
	size_t n = r->aux_ref_size, at = r->aux_size - n;
	bool wrapped = (head > at && head < r->aux_size) ||
		       memcmp(r->aux_ref, r->aux + at, n);

	if (head >= n) {
		memcpy(r->aux_ref, r->aux + head - n, n);
	} else {
		memcpy(r->aux_ref, r->aux, head);
		memcpy(r->aux_ref + head, r->aux + r->aux_size - (n - head),
		       n - head);
	}
	return wrapped;
}

long pk_ring_aux_snapshot(struct pk_ring *r, size_t max, struct pk_aux_chunk *c)
{
	bool wrapped;
	uint64_t head, old, len;

	if (!r || !r->aux || !r->aux_overwrite || !c)
		return -EINVAL;
	/* here aux_head is a position in the area, and so are the
	 * offsets perf writes: no running count */
	head = __atomic_load_n(&r->pc->aux_head, __ATOMIC_ACQUIRE);
	r->aux_snapped = true;
	if (r->aux_ref_size) {
		wrapped = ref_wrapped(r, (size_t)(head & (r->aux_size - 1)));
	} else {
		if (!r->aux_wrapped && end_written(r))
			r->aux_wrapped = true;
		wrapped = r->aux_wrapped;
	}
	old = r->aux_old & (r->aux_size - 1);
	if (wrapped) {
		old = head;
		head += r->aux_size;
	} else if (old > head) {
		head += r->aux_size;
	}
	len = head - old;
	if (max && len > max)
		len = max;
	r->aux_old = r->aux_new = head;
	return pieces(r, head, len, c);
}

int pk_aux_event_parse(const struct perf_event_header *h,
		       struct pk_aux_event *ev)
{
	const uint64_t *u = (const uint64_t *)(h + 1);

	if (!h || !ev || h->type != PERF_RECORD_AUX || h->size < 32)
		return -EINVAL;
	ev->offset = u[0];
	ev->size = u[1];
	ev->flags = u[2];
	return 0;
}

int pk_aux_event_encode(const struct pk_aux_event *ev, void *buf, size_t size)
{
	struct perf_event_header h = { .type = PERF_RECORD_AUX, .size = 32 };
	uint64_t u[3];

	if (!ev || !buf || size < 32)
		return -EINVAL;
	u[0] = ev->offset;
	u[1] = ev->size;
	u[2] = ev->flags;
	memcpy(buf, &h, sizeof(h));
	memcpy((char *)buf + sizeof(h), u, sizeof(u));
	return 0;
}
