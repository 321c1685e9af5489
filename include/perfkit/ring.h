/* SPDX-License-Identifier: MIT */
/*
 * perfkit ring buffers: the kernel's mmap'd sample buffer of one event fd,
 * read as an explicit protocol:
 *
 *     pk_ring_read_init(r);                   snapshot data_head (acquire)
 *     while ((ev = pk_ring_read_event(r))) {  borrowed record
 *             ... use ev ...
 *             pk_ring_consume(r);             step over it
 *     }
 *     pk_ring_read_done(r);                   publish data_tail (release)
 *
 * A record that wraps the end of the buffer is copied to a bounce buffer, so
 * every record returned is contiguous. Overwrite (flight-recorder) rings
 * are written backward by the kernel and read as a snapshot of the newest
 * records. The AUX area (Intel PT and friends) sits beside the data area.
 */
#ifndef PERFKIT_RING_H
#define PERFKIT_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_ring;

/*
 * Maps 1 + DATA_PAGES pages of event FD (DATA_PAGES a power of two).
 * OVERWRITE maps the buffer read-only: the kernel then overwrites old data
 * (the event must have attr.write_backward). NULL with errno: EINVAL for a
 * bad page count, or mmap's errno (EPERM past perf_event_mlock_kb).
 */
PK_API struct pk_ring *pk_ring_new(int fd, size_t data_pages, bool overwrite);

/* Unmaps and frees (the fd stays open). NULL is fine. */
PK_API void pk_ring_free(struct pk_ring *ring);

/* The fd the ring was mapped from. */
PK_API int pk_ring_fd(const struct pk_ring *ring);
/* Size of the data area in bytes. */
PK_API size_t pk_ring_size(const struct pk_ring *ring);
/* The control page (for time conversion fields and the like). */
PK_API const struct perf_event_mmap_page *pk_ring_page(const struct pk_ring *ring);

/*
 * Starts a read pass: snapshots data_head. For overwrite rings the caller
 * should pause the output first (PERF_EVENT_IOC_PAUSE_OUTPUT). Returns the
 * number of bytes available.
 */
PK_API size_t pk_ring_read_init(struct pk_ring *ring);

/*
 * The next record of this pass, or NULL at its end. The record is borrowed
 * until pk_ring_consume(). A record with an impossible size (0, or larger
 * than what is left) ends the pass and sets pk_ring_error() to PK_ERR_FORMAT.
 */
PK_API const struct perf_event_header *pk_ring_read_event(struct pk_ring *ring);

/* Steps over the record pk_ring_read_event() returned. */
PK_API void pk_ring_consume(struct pk_ring *ring);

/* Ends the pass: gives the consumed space back to the kernel. */
PK_API void pk_ring_read_done(struct pk_ring *ring);

/* 0, or PK_ERR_FORMAT after a pass that met a malformed record. */
PK_API int pk_ring_error(const struct pk_ring *ring);

/*
 * Maps the AUX area of AUX_PAGES pages (a power of two) after the data
 * area, as perf does: aux_offset and aux_size are written to the control
 * page, then that range of the fd is mapped. OVERWRITE maps it read-only:
 * the kernel then writes it as a circular snapshot buffer (perf record
 * -S), and aux_head is a position in the buffer. 0, -EINVAL (no ring
 * mapped, one already there, a bad page count) or mmap's -errno (-EPERM
 * past perf_event_mlock_kb, -EOPNOTSUPP for an event without AUX area).
 */
PK_API int pk_ring_aux_map(struct pk_ring *ring, size_t aux_pages,
			   bool overwrite);
/* Size of the AUX area in bytes, 0 when none is mapped. */
PK_API size_t pk_ring_aux_size(const struct pk_ring *ring);

/*
 * AUX area bytes handed out by a read: up to two pieces (the second when
 * the bytes wrap the end of the area, N2 may be 0), borrowed until the
 * next read. OFFSET is where they begin in the area's running count of
 * bytes (perf's PERF_RECORD_AUXTRACE offset: HEAD - N1 - N2).
 */
struct pk_aux_chunk {
	const void *p1, *p2;
	size_t n1, n2;
	uint64_t offset, head;
};

/*
 * Full-trace read: the bytes between the last pk_ring_aux_done() and
 * aux_head (acquire). Returns their number (0: nothing new), or -EINVAL
 * without an AUX area or for an overwrite one. pk_ring_aux_done() then
 * gives the space back (aux_tail, release); until it does the kernel
 * writes nothing over them (it reports a full area as PERF_RECORD_AUX
 * with PK_AUX_FLAG_TRUNCATED instead).
 */
PK_API long pk_ring_aux_read(struct pk_ring *ring, struct pk_aux_chunk *c);
PK_API void pk_ring_aux_done(struct pk_ring *ring);

/*
 * Snapshot read of an overwrite AUX area (the event stopped first, as
 * perf disables it): the newest bytes, read backward from aux_head, at
 * most MAX (0: the whole area). perf's rules: aux_head is a position in
 * the area; once the end of the area holds data (any of its last 4 KiB
 * non-zero: the kernel has gone round at least once, the area starting
 * zeroed), the snapshot is the whole area from aux_head round to it, and
 * stays so; before, the bytes since the previous snapshot. Returns the
 * number of bytes, 0 when nothing is new, -EINVAL for a full-trace area.
 */
PK_API long pk_ring_aux_snapshot(struct pk_ring *ring, size_t max,
				 struct pk_aux_chunk *c);

/*
 * perf's other rule for telling whether an overwrite area has gone round
 * (intel_pt_wrapped), used instead of the 4 KiB probe when SIZE is not 0
 * (see pk_ring_aux_pt_ref_size): a reference of SIZE bytes, zero at
 * first, is compared at each snapshot with the area's last SIZE bytes;
 * the area counts as gone round where they differ or aux_head lies
 * inside them, and the reference then takes the SIZE bytes before
 * aux_head. (perf compares at the same place every time: after a first
 * snapshot of a used area nearly every later one is of the whole area.)
 * Returns 0, -EINVAL (no overwrite area, SIZE not below its size, or a
 * snapshot already taken), -ENOMEM.
 */
PK_API int pk_ring_aux_snapshot_ref(struct pk_ring *ring, size_t size);

/* PERF_RECORD_AUX flags (perf_event.h names them PERF_AUX_FLAG_*). */
enum {
	PK_AUX_FLAG_TRUNCATED = 0x01, /* the area was full: data lost */
	PK_AUX_FLAG_OVERWRITE = 0x02, /* snapshot mode */
	PK_AUX_FLAG_PARTIAL   = 0x04, /* a gap in the record */
	PK_AUX_FLAG_COLLISION = 0x08, /* sample collided with another */
};

/* A PERF_RECORD_AUX read: where the kernel put the bytes and how. */
struct pk_aux_event {
	uint64_t offset, size, flags;
};
/* Decodes a PERF_RECORD_AUX (the fields after the header; the sample_id
 * trailer is not read). 0, or -EINVAL for another type or a short one. */
PK_API int pk_aux_event_parse(const struct perf_event_header *h,
			      struct pk_aux_event *ev);
/* Encodes one (no sample_id trailer): 32 bytes into BUF (>= 32). */
PK_API int pk_aux_event_encode(const struct pk_aux_event *ev, void *buf,
			       size_t size);

/*
 * perf's AUX area size rules for Intel PT (record's defaults and checks):
 * *AUX_PAGES (0: not given) and *DATA_PAGES (0: not given) are set to
 * perf's defaults, 4 MiB of AUX area for a privileged user, else 128 KiB
 * (and 256 KiB of data area when not given); in snapshot mode the AUX
 * area also follows the snapshot size *SNAP (0: the area's size, set).
 * Returns 0, or -EINVAL with MSG holding perf's message ("Invalid mmap
 * size for Intel Processor Trace: must be at least 8KiB and a power of
 * 2", "Snapshot size N must not be greater than AUX area tracing mmap
 * size M").
 */
PK_API int pk_ring_aux_pt_sizes(bool privileged, bool snapshot,
				size_t *data_pages, size_t *aux_pages,
				size_t *snap, char *msg, size_t size);

/*
 * The same in sample mode (--aux-sample, aux-sample-size), whose largest
 * sample is MAX_SAMPLE bytes: *AUX_PAGES (0: not given) defaults to the
 * power of 2 of pages that holds it, *DATA_PAGES (0: not given) to 256
 * KiB for an unprivileged user when the AUX area was not given. Returns
 * 0, or -EINVAL with MSG holding perf's message ("Sample size N must not
 * be greater than AUX area tracing mmap size M", "Invalid mmap size for
 * Intel Processor Trace: must be at least 4KiB and a power of 2").
 */
PK_API int pk_ring_aux_pt_sample_sizes(bool privileged, size_t max_sample,
				       size_t *data_pages, size_t *aux_pages,
				       char *msg, size_t size);

/*
 * The reference size perf record uses for an Intel PT snapshot area of
 * AREA bytes (intel_pt_snapshot_ref_buf_size): 0 (the 4 KiB probe) unless
 * the user's snapshot size USER_SNAP (-S SIZE; 0 when not given) is over
 * 64 KiB; else twice PSB_BYTES (pk_evsel_pt_psb_bytes; 256 KiB when 0 or
 * more), and 0 again where that is not below AREA and USER_SNAP / 2.
 */
PK_API size_t pk_ring_aux_pt_ref_size(size_t user_snap, size_t area,
				      size_t psb_bytes);

#ifdef __cplusplus
}
#endif
#endif

#ifndef PERFKIT_RINGS_H
#define PERFKIT_RINGS_H
#include <perfkit/event.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The ring buffers of an opened event list: one per CPU (or per thread when
 * the events were opened on the any-CPU map). The first event's fd for a
 * CPU owns the ring; every other fd on that CPU is redirected to it with
 * PERF_EVENT_IOC_SET_OUTPUT.
 */
struct pk_rings;

struct pk_rings_opts {
	size_t sz;
	size_t pages;      /* data pages per ring, a power of two (default 128) */
	bool overwrite;    /* flight recorder: read-only, backward rings */
	size_t aux_pages;  /* AUX area pages per ring (0: none) */
	bool aux_overwrite; /* the AUX area as a snapshot buffer (perf -S) */
};
#define pk_rings_opts__last_field aux_overwrite

/* Maps the rings of EVLIST (opened). NULL with errno on failure. */
PK_API struct pk_rings *pk_rings_new(struct pk_evlist *evlist,
				     const struct pk_rings_opts *opts);
/* Unmaps every ring. NULL is fine. */
PK_API void pk_rings_free(struct pk_rings *rings);
PK_API int pk_rings_nr(const struct pk_rings *rings);
PK_API struct pk_ring *pk_rings_get(const struct pk_rings *rings, int idx);
/* The CPU number ring IDX serves (-1 for per-thread rings). */
PK_API int pk_rings_cpu(const struct pk_rings *rings, int idx);

/*
 * Waits up to TIMEOUT_MS (-1: forever) for data or hang-up. Returns the
 * number of rings with data, 0 on timeout, -EINTR when a signal came, or
 * -errno. *HUP (may be NULL) gets the number of fds whose task is gone.
 */
PK_API int pk_rings_poll(struct pk_rings *rings, int timeout_ms, int *hup);

/* PERF_EVENT_IOC_PAUSE_OUTPUT on every ring (for overwrite snapshots). */
PK_API int pk_rings_pause(struct pk_rings *rings, bool pause);

#ifdef __cplusplus
}
#endif
#endif
