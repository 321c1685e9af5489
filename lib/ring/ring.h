/* SPDX-License-Identifier: MIT */
/* Internal: the ring object, so tests can lay one over plain memory. */
#ifndef PK_RING_RING_H
#define PK_RING_RING_H

#include <perfkit/ring.h>

struct pk_ring {
	int fd;
	bool overwrite, mapped;
	void *base;               /* control page + data (+ aux) */
	size_t map_len;
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	size_t size, mask;
	uint64_t start, end;      /* this pass: [start, end) */
	uint64_t rec_size;        /* size of the record handed out */
	uint64_t end_prev;        /* backward: head at the previous pass (0) */
	int error;
	unsigned char *bounce;    /* 64 KiB: the largest record */
	/* AUX area */
	unsigned char *aux;
	size_t aux_size;
	uint64_t aux_old, aux_new; /* read up to / handed out up to */
	bool aux_overwrite;
	bool aux_wrapped;         /* snapshot: the area has gone round */
	bool aux_snapped;         /* snapshot: one was taken */
	unsigned char *aux_ref;   /* snapshot: perf's reference bytes */
	size_t aux_ref_size;      /* (0: the 4 KiB probe instead) */
};

/* Lays a ring over caller memory: PAGE (a control page) and DATA of SIZE
 * bytes (a power of two). For tests; pk_ring_free() then frees nothing but
 * the ring. 0 or -errno. */
int pk__ring_init_mem(struct pk_ring *ring, struct perf_event_mmap_page *pc,
		      void *data, size_t size, bool overwrite);
void pk__ring_fini(struct pk_ring *ring);

/* The kernel's side, for tests: appends a record at data_head (forward) or
 * before it (backward), wrapping as the kernel does. 0 or -ENOSPC when the
 * forward ring is full. */
int pk__ring_produce(struct pk_ring *ring, const struct perf_event_header *ev);

/* Lays an AUX area of SIZE bytes (a power of two) over caller memory,
 * for tests. 0 or -EINVAL. */
int pk__ring_aux_init_mem(struct pk_ring *ring, void *aux, size_t size,
			  bool overwrite);

#endif
