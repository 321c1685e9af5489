/* SPDX-License-Identifier: MIT */
/* Ring-buffer protocol over memory the test lays out, with the kernel's
 * producer side played by pk__ring_produce; plus one live software ring. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "ring/ring.h"
#include "test.h"

struct rec {
	struct perf_event_header h;
	unsigned char body[512];
};

static struct rec make(uint32_t type, uint16_t size, unsigned char fill)
{
	struct rec r;

	memset(&r, 0, sizeof(r));
	r.h.type = type;
	r.h.size = size;
	memset(r.body, fill, size - sizeof(r.h));
	return r;
}

static bool same(const struct perf_event_header *h, const struct rec *r)
{
	return h && h->size == r->h.size && !memcmp(h, r, r->h.size);
}

static void test_forward_wrap(void)
{
	static struct perf_event_mmap_page pc;
	static unsigned char data[1024];
	struct pk_ring r;
	int got = 0, bad = 0, wrapped = 0;

	memset(&pc, 0, sizeof(pc));
	T_CHECK("ring_mem_init", pk__ring_init_mem(&r, &pc, data, sizeof(data), false) == 0);
	/* 200 records of odd sizes: the 1 KiB ring wraps many times. */
	for (int i = 0; i < 200; i++) {
		struct rec w = make(PERF_RECORD_SAMPLE, (uint16_t)(16 + 8 * (i % 37)),
				    (unsigned char)i);
		const struct perf_event_header *h;

		if (pk__ring_produce(&r, &w.h)) {
			bad++;
			break;
		}
		pk_ring_read_init(&r);
		h = pk_ring_read_event(&r);
		if (!same(h, &w))
			bad++;
		if ((const unsigned char *)h == r.bounce)
			wrapped++;
		got++;
		pk_ring_consume(&r);
		if (pk_ring_read_event(&r))
			bad++; /* one record per pass */
		pk_ring_read_done(&r);
	}
	t_check(got == 200 && !bad, "ring_forward_records", "got %d bad %d", got, bad);
	t_check(wrapped > 0, "ring_forward_bounce", "no record wrapped");
	T_CHECK("ring_tail_published", pc.data_tail == pc.data_head);
	pk__ring_fini(&r);
}

static void test_forward_full_and_batch(void)
{
	static struct perf_event_mmap_page pc;
	static unsigned char data[512];
	struct pk_ring r;
	struct rec w = make(PERF_RECORD_SAMPLE, 64, 7);
	int n = 0, m = 0;

	memset(&pc, 0, sizeof(pc));
	pk__ring_init_mem(&r, &pc, data, sizeof(data), false);
	while (pk__ring_produce(&r, &w.h) == 0)
		n++;
	t_check(n == 8, "ring_full_refuses", "%d records fit in 512 bytes", n);
	T_CHECK("ring_avail", pk_ring_read_init(&r) == 512);
	while (pk_ring_read_event(&r)) {
		m++;
		pk_ring_consume(&r);
	}
	pk_ring_read_done(&r);
	t_check(m == 8, "ring_batch_read", "read %d", m);
	T_CHECK("ring_space_back", pk__ring_produce(&r, &w.h) == 0);
	pk__ring_fini(&r);
}

static void test_malformed(void)
{
	static struct perf_event_mmap_page pc;
	static unsigned char data[256];
	struct pk_ring r;

	memset(&pc, 0, sizeof(pc));
	memset(data, 0, sizeof(data));
	pk__ring_init_mem(&r, &pc, data, sizeof(data), false);
	pc.data_head = 64; /* 64 bytes of zeros: a record of size 0 */
	pk_ring_read_init(&r);
	T_CHECK("ring_zero_size_stops", pk_ring_read_event(&r) == NULL);
	T_CHECK("ring_zero_size_error", pk_ring_error(&r) == PK_ERR_FORMAT);
	data[0] = 1; data[6] = 0; data[7] = 1; /* size 256 > 64 available */
	pk_ring_read_init(&r);
	T_CHECK("ring_oversize_error", !pk_ring_read_event(&r) && pk_ring_error(&r) == PK_ERR_FORMAT);
	pk__ring_fini(&r);
}

static void test_backward(void)
{
	static struct perf_event_mmap_page pc;
	static unsigned char data[512];
	struct pk_ring r;
	const struct perf_event_header *h;
	int n = 0, order_ok = 1;
	unsigned char last = 0xff;

	memset(&pc, 0, sizeof(pc));
	memset(data, 0, sizeof(data));
	pk__ring_init_mem(&r, &pc, data, sizeof(data), true);
	for (int i = 0; i < 3; i++) {
		struct rec w = make(PERF_RECORD_SAMPLE, 40, (unsigned char)i);

		pk__ring_produce(&r, &w.h);
	}
	pk_ring_read_init(&r);
	while ((h = pk_ring_read_event(&r))) {
		unsigned char f = ((const unsigned char *)h)[8];

		if (n && f != last - 1)
			order_ok = 0;
		last = f;
		n++;
		pk_ring_consume(&r);
	}
	t_check(n == 3 && order_ok, "ring_backward_partial", "n=%d order=%d", n, order_ok);
	/* Overfill: only the newest records that fit survive. */
	for (int i = 3; i < 40; i++) {
		struct rec w = make(PERF_RECORD_SAMPLE, 48, (unsigned char)i);

		pk__ring_produce(&r, &w.h);
	}
	pk_ring_read_init(&r);
	n = 0;
	h = pk_ring_read_event(&r);
	t_check(h && ((const unsigned char *)h)[8] == 39, "ring_backward_newest_first",
		"first %d", h ? ((const unsigned char *)h)[8] : -1);
	while (h) {
		n++;
		pk_ring_consume(&r);
		h = pk_ring_read_event(&r);
	}
	t_check(n == 10, "ring_backward_overwritten", "read %d of 37 new (512/48 = 10 fit)", n);
	pk__ring_fini(&r);
}

static void test_live(void)
{
	struct perf_event_attr a;
	struct pk_ring *r;
	const struct perf_event_header *h;
	int fd, samples = 0, comm = 0;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.comm = 1;
	a.task = 1;
	a.sample_id_all = 1;
	a.sample_type = PERF_SAMPLE_TID;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		t_skip("ring_live", "perf_event_open: %s", strerror(errno));
		return;
	}
	r = pk_ring_new(fd, 4, false);
	if (!t_check(r != NULL, "ring_live_map", "mmap: %s", strerror(errno))) {
		close(fd);
		return;
	}
	for (int i = 0; i < 5; i++) {
		pid_t p = fork();

		if (p == 0)
			_exit(0);
		waitpid(p, NULL, 0);
	}
	pk_ring_read_init(r);
	while ((h = pk_ring_read_event(r))) {
		if (h->type == PERF_RECORD_FORK)
			samples++;
		if (h->type == PERF_RECORD_COMM)
			comm++;
		pk_ring_consume(r);
	}
	pk_ring_read_done(r);
	t_check(samples == 5, "ring_live_fork_records", "%d FORK records", samples);
	pk_ring_free(r);
	close(fd);
}

int main(void)
{
	test_forward_wrap();
	test_forward_full_and_batch();
	test_malformed();
	test_backward();
	test_live();
	return t_exit();
}
