/* SPDX-License-Identifier: MIT */
/* The AUX area over memory the test lays out: a full trace written by a
 * producer thread that respects aux_tail (the kernel's side) and read
 * back across many wraps; snapshots read backward from aux_head by perf's
 * rules; PERF_RECORD_AUX; perf's Intel PT sizes; and the recording's
 * records (AUXTRACE_INFO, AUXTRACE, the index) written and read back. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include "ring/ring.h"
#include "test.h"

#define AREA 4096
#define TOTAL 200000

static unsigned char byte_at(uint64_t i)
{
	return (unsigned char)((i * 7 + i / 251) % 253 + 1);
}

struct prod {
	struct perf_event_mmap_page *pc;
	unsigned char *aux;
};

/* The kernel's side: pieces of 1..1500 bytes where aux_tail allows. */
static void *producer(void *arg)
{
	struct prod *p = arg;
	uint64_t head = 0;
	unsigned seed = 1;

	while (head < TOTAL) {
		uint64_t n = 1 + (seed = seed * 1103515245 + 12345) / 65536 % 1500;

		if (n > TOTAL - head)
			n = TOTAL - head;
		while (head + n - __atomic_load_n(&p->pc->aux_tail,
						  __ATOMIC_ACQUIRE) > AREA)
			sched_yield();
		for (uint64_t i = 0; i < n; i++)
			p->aux[(head + i) % AREA] = byte_at(head + i);
		head += n;
		__atomic_store_n(&p->pc->aux_head, head, __ATOMIC_RELEASE);
	}
	return NULL;
}

static bool check_piece(const void *p, size_t n, uint64_t at)
{
	for (size_t i = 0; i < n; i++)
		if (((const unsigned char *)p)[i] != byte_at(at + i))
			return false;
	return true;
}

static void test_full_wraps(void)
{
	static struct perf_event_mmap_page pc;
	static unsigned char data[4096], aux[AREA];
	struct prod p = { &pc, aux };
	struct pk_ring r;
	struct pk_aux_chunk c;
	uint64_t got = 0;
	int bad = 0, split = 0;
	pthread_t t;

	T_CHECK("aux_init", !pk__ring_init_mem(&r, &pc, data, sizeof(data), false) &&
		!pk__ring_aux_init_mem(&r, aux, AREA, false));
	T_CHECK("aux_snapshot_refused", pk_ring_aux_snapshot(&r, 0, &c) == -EINVAL);
	pthread_create(&t, NULL, producer, &p);
	while (got < TOTAL && !bad) {
		long n = pk_ring_aux_read(&r, &c);

		if (n < 0 || c.offset != got || c.n1 + c.n2 != (size_t)n ||
		    !check_piece(c.p1, c.n1, got) ||
		    !check_piece(c.p2, c.n2, got + c.n1))
			bad++;
		split += c.n2 > 0;
		got += (uint64_t)n;
		pk_ring_aux_done(&r);
		if (!n)
			sched_yield();
	}
	pthread_join(t, NULL);
	t_check(!bad && got == TOTAL, "aux_full_read", "%d bad, %llu of %d bytes",
		bad, (unsigned long long)got, TOTAL);
	t_check(split > 0, "aux_full_wrapped", "no read wrapped the area");
	T_CHECK("aux_tail_at_end", pc.aux_tail == TOTAL);
	pk__ring_fini(&r);
}

/* Writes bytes [FROM, TO) of the stream into a snapshot area of SIZE, as
 * the kernel does: round and round, aux_head a position in it. */
static void overwrite(struct perf_event_mmap_page *pc, unsigned char *aux,
		      size_t size, uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i++)
		aux[i % size] = byte_at(i);
	pc->aux_head = to % size;
}

static void test_snapshot(void)
{
	static struct perf_event_mmap_page pc;
	static unsigned char data[4096], aux[16384];
	struct pk_ring r;
	struct pk_aux_chunk c;
	long n;

	memset(&pc, 0, sizeof(pc));
	T_CHECK("snap_init", !pk__ring_init_mem(&r, &pc, data, sizeof(data), true) &&
		!pk__ring_aux_init_mem(&r, aux, sizeof(aux), true));
	T_CHECK("snap_full_read_refused", pk_ring_aux_read(&r, &c) == -EINVAL);
	overwrite(&pc, aux, sizeof(aux), 0, 5000);
	n = pk_ring_aux_snapshot(&r, 0, &c);
	T_CHECK("snap_first", n == 5000 && c.offset == 0 && !c.n2 &&
		check_piece(c.p1, c.n1, 0));
	overwrite(&pc, aux, sizeof(aux), 5000, 8000);
	n = pk_ring_aux_snapshot(&r, 0, &c);
	T_CHECK("snap_since_last", n == 3000 && c.offset == 5000 &&
		check_piece(c.p1, c.n1, 5000));
	T_CHECK("snap_nothing_new", pk_ring_aux_snapshot(&r, 0, &c) == 0);
	overwrite(&pc, aux, sizeof(aux), 8000, 41000);
	/* gone round: all of it, oldest (at aux_head) first */
	n = pk_ring_aux_snapshot(&r, 0, &c);
	T_CHECK("snap_wrapped_whole", n == 16384 && c.offset == 41000 % 16384 &&
		c.n2 && check_piece(c.p1, c.n1, 41000 - 16384) &&
		check_piece(c.p2, c.n2, 41000 - 16384 + c.n1));
	overwrite(&pc, aux, sizeof(aux), 41000, 42000);
	n = pk_ring_aux_snapshot(&r, 1000, &c);
	T_CHECK("snap_max_newest", n == 1000 && c.n1 + c.n2 == 1000 &&
		check_piece(c.p1, c.n1, 41000) &&
		check_piece(c.p2, c.n2, 41000 + c.n1));
	pk__ring_fini(&r);
}

/* perf's reference rule (intel_pt_wrapped): the area's last REF bytes
 * against the bytes before aux_head at the last snapshot */
static void test_snapshot_ref(void)
{
	static struct perf_event_mmap_page pc;
	static unsigned char data[4096], aux[16384];
	struct pk_ring r;
	struct pk_aux_chunk c;
	long n;

	memset(&pc, 0, sizeof(pc));
	memset(aux, 0, sizeof(aux));
	T_CHECK("ref_init", !pk__ring_init_mem(&r, &pc, data, sizeof(data), true) &&
		!pk__ring_aux_init_mem(&r, aux, sizeof(aux), true));
	T_CHECK("ref_too_big", pk_ring_aux_snapshot_ref(&r, 16384) == -EINVAL);
	T_CHECK("ref_set", pk_ring_aux_snapshot_ref(&r, 4096) == 0);
	overwrite(&pc, aux, sizeof(aux), 0, 5000);
	n = pk_ring_aux_snapshot(&r, 0, &c);
	T_CHECK("ref_first", n == 5000 && c.offset == 0 &&
		check_piece(c.p1, c.n1, 0));
	T_CHECK("ref_after_snapshot", pk_ring_aux_snapshot_ref(&r, 0) == -EINVAL);
	/* the area's end (zeros) is not what preceded aux_head: perf takes
	 * it as gone round, where the 4 KiB probe sees 3000 new bytes */
	overwrite(&pc, aux, sizeof(aux), 5000, 8000);
	n = pk_ring_aux_snapshot(&r, 0, &c);
	T_CHECK("ref_differs_whole", n == 16384 && c.offset == 8000 &&
		c.n2 && check_piece(c.p2, 8000, 0));
	pk__ring_fini(&r);
	/* perf's sizes: only for a -S SIZE over 64 KiB; twice the PSB
	 * period, 256 KiB at most; below the area and half the size */
	T_CHECK("ref_size_no_user", pk_ring_aux_pt_ref_size(0, 131072, 16384) == 0);
	T_CHECK("ref_size_64k", pk_ring_aux_pt_ref_size(65536, 1 << 20, 256) == 0);
	T_CHECK("ref_size_psb", pk_ring_aux_pt_ref_size(200000, 262144, 16384) == 32768);
	T_CHECK("ref_size_small_psb", pk_ring_aux_pt_ref_size(200000, 262144, 256) == 512);
	T_CHECK("ref_size_half", pk_ring_aux_pt_ref_size(100000, 262144, 65536) == 0);
	T_CHECK("ref_size_max", pk_ring_aux_pt_ref_size(1 << 20, 1 << 20, 0) == 262144);
	T_CHECK("ref_size_area", pk_ring_aux_pt_ref_size(1 << 20, 262144, 0) == 0);
}

static void test_aux_event(void)
{
	struct pk_aux_event e = { 0x1000, 0x200, PK_AUX_FLAG_TRUNCATED |
				  PK_AUX_FLAG_PARTIAL }, d;
	uint64_t buf[6] = { 0 };
	struct perf_event_header *h = (void *)buf;

	T_CHECK("aux_ev_short_buf", pk_aux_event_encode(&e, buf, 31) == -EINVAL);
	T_CHECK("aux_ev_encode", !pk_aux_event_encode(&e, buf, sizeof(buf)) &&
		h->type == PERF_RECORD_AUX && h->size == 32);
	T_CHECK("aux_ev_parse", !pk_aux_event_parse(h, &d) && d.offset == 0x1000 &&
		d.size == 0x200 && d.flags == (PK_AUX_FLAG_TRUNCATED |
					       PK_AUX_FLAG_PARTIAL));
	h->type = PERF_RECORD_ITRACE_START;
	T_CHECK("aux_ev_other_type", pk_aux_event_parse(h, &d) == -EINVAL);
}

static void test_sizes(void)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), data, aux, snap;
	char msg[160];

	data = aux = snap = 0;
	T_CHECK("sizes_root", !pk_ring_aux_pt_sizes(true, false, &data, &aux, &snap,
						    msg, sizeof(msg)) &&
		aux * ps == 4u << 20 && data == 0);
	data = aux = snap = 0;
	T_CHECK("sizes_user", !pk_ring_aux_pt_sizes(false, false, &data, &aux,
						    &snap, msg, sizeof(msg)) &&
		aux * ps == 128u << 10 && data * ps == 256u << 10);
	data = 8, aux = 0, snap = 0;
	T_CHECK("sizes_user_m", !pk_ring_aux_pt_sizes(false, false, &data, &aux,
						      &snap, msg, sizeof(msg)) &&
		data == 8);
	data = 0, aux = 1, snap = 0;
	T_CHECK("sizes_min", pk_ring_aux_pt_sizes(true, false, &data, &aux, &snap,
						  msg, sizeof(msg)) == -EINVAL &&
		!strcmp(msg, "Invalid mmap size for Intel Processor Trace: must "
			"be at least 8KiB and a power of 2"));
	data = 0, aux = 1, snap = 0;
	T_CHECK("sizes_snap_min", !pk_ring_aux_pt_sizes(true, true, &data, &aux,
							&snap, msg, sizeof(msg)) &&
		snap == ps);
	data = 0, aux = 0, snap = 100000;
	T_CHECK("sizes_snap_size", !pk_ring_aux_pt_sizes(true, true, &data, &aux,
							 &snap, msg, sizeof(msg)) &&
		aux == 32 * 4096 / ps);
	data = 0, aux = 16, snap = 100000;
	T_CHECK("sizes_snap_too_big", pk_ring_aux_pt_sizes(true, true, &data, &aux,
							   &snap, msg, sizeof(msg)) == -EINVAL &&
		!strcmp(msg, "Snapshot size 100000 must not be greater than AUX "
			"area tracing mmap size 65536"));
}

/* AUXTRACE_INFO, two AUXTRACE records (one in two pieces), the index:
 * written, then read back by the reader. */
static void test_records(void)
{
	char path[] = "/tmp/pk-ringaux-XXXXXX";
	int fd = mkstemp(path);
	struct pk_pdwriter *w;
	struct perf_event_attr a = { .size = sizeof(a), .type = 10,
				     .sample_id_all = 1 };
	uint64_t id = 7, offs[2] = { 0 }, seen = 0;
	struct pk_pt_auxinfo in = { .pmu_type = 10, .tsc_bit = 0x400,
				    .have_sched_switch = 3, .per_cpu_mmaps = 1,
				    .filter = "filter 0x1000/0x100",
				    .cap_event_trace = 1 };
	struct pk_auxtrace_hdr ah = { .offset = 0, .idx = 1, .tid = 42,
				      .cpu = 1 };
	char info[512], p1[5] = "abcde", p2[6] = "fghijk";
	long n = pk_pt_auxinfo_encode(&in, info, sizeof(info));
	struct pk_perfdata *pd;
	struct pk_record rec;
	const void *raw;
	uint64_t rawsz;
	int nrec = 0, ok = 1;

	T_CHECK("info_size", n == 16 + 17 * 8 + 24 + 8);
	T_CHECK("info_nospace", pk_pt_auxinfo_encode(&in, info, 64) == -ENOSPC);
	close(fd);
	w = pk_pdwriter_open(path, NULL);
	T_CHECK("rec_writer", w && pk_pdwriter_add_attr(w, &a, &id, 1, NULL) == 0);
	if (!w)
		return;
	pk_pdwriter_write(w, (const void *)info, NULL, 0);
	pk_pdwriter_write_auxtrace(w, &ah, p1, 5, p2, 6);
	ah.offset = 11;
	pk_pdwriter_write_auxtrace(w, &ah, p2, 6, NULL, 0);
	T_CHECK("rec_close", pk_pdwriter_close(w) == 0);
	pd = pk_perfdata_open(path, NULL);
	T_CHECK("rec_open", pd != NULL);
	while (pd && pk_perfdata_next(pd, &rec) == 0) {
		const uint64_t *u = (const uint64_t *)rec.hdr;

		if (rec.type == PK_RECORD_AUXTRACE_INFO)
			ok &= u[2] == 10 && u[7] == 0x400 && u[9] == 3 &&
			      u[18] == strlen(in.filter) &&
			      !strcmp((const char *)&u[19], in.filter) && u[22] == 1;
		if (rec.type != PK_RECORD_AUXTRACE)
			continue;
		if (nrec < 2)
			offs[nrec] = rec.offset;
		ok &= rec.size == 48 && u[1] == (nrec ? 8 : 16) &&
		      u[2] == (nrec ? 11 : 0) && ((const uint32_t *)u)[8] == 1 &&
		      ((const uint32_t *)u)[9] == 42 && ((const uint32_t *)u)[10] == 1 &&
		      !memcmp(rec.extra, nrec ? "fghijk" : "abcdefghijk",
			      nrec ? 6 : 11);
		nrec++;
	}
	T_CHECK("rec_read_back", ok && nrec == 2);
	if (pd && !pk_perfdata_feat_raw(pd, PK_HEADER_AUXTRACE, &raw, &rawsz)) {
		const uint64_t *u = raw;

		seen = rawsz == 40 && u[0] == 2 && u[1] == offs[0] && u[2] == 48 &&
		       u[3] == offs[1] && u[4] == 48;
	}
	T_CHECK("rec_index", seen);
	pk_perfdata_free(pd);
	unlink(path);
}

int main(void)
{
	test_full_wraps();
	test_snapshot();
	test_snapshot_ref();
	test_aux_event();
	test_sizes();
	test_records();
	return t_exit();
}
