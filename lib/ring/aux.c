/* SPDX-License-Identifier: MIT */
/* The AUX area: aux_head (acquire) / aux_tail (release), raw bytes. */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#include "base/base.h"
#include "ring/ring.h"

int pk_ring_aux_map(struct pk_ring *r, size_t aux_pages, bool overwrite)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	if (!r->mapped || r->aux || !aux_pages || (aux_pages & (aux_pages - 1)))
		return -EINVAL;
	r->pc->aux_offset = r->map_len;
	r->pc->aux_size = aux_pages * ps;
	p = mmap(NULL, aux_pages * ps, PROT_READ | (overwrite ? 0 : PROT_WRITE),
		 MAP_SHARED, r->fd, (off_t)r->map_len);
	if (p == MAP_FAILED)
		return -errno;
	r->aux = p;
	r->aux_size = aux_pages * ps;
	r->aux_overwrite = overwrite;
	return 0;
}

long pk_ring_aux_peek(struct pk_ring *r, const void **p1, size_t *n1,
		      const void **p2, size_t *n2)
{
	uint64_t head, len;
	size_t off;

	if (!r->aux)
		return -EINVAL;
	head = __atomic_load_n(&r->pc->aux_head, __ATOMIC_ACQUIRE);
	len = head - r->aux_old;
	if (len > r->aux_size)
		len = r->aux_size; /* overwritten: keep the newest */
	r->aux_new = head;
	off = (size_t)((head - len) % r->aux_size);
	*p1 = r->aux + off;
	*n1 = (size_t)PK_MIN(len, r->aux_size - off);
	*p2 = r->aux;
	*n2 = (size_t)len - *n1;
	return (long)len;
}

void pk_ring_aux_done(struct pk_ring *r)
{
	r->aux_old = r->aux_new;
	if (r->aux && !r->aux_overwrite)
		__atomic_store_n(&r->pc->aux_tail, r->aux_new, __ATOMIC_RELEASE);
}

uint64_t pk_ring_aux_offset(const struct pk_ring *r)
{
	return r->aux_new;
}
