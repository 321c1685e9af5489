/* SPDX-License-Identifier: MIT */
/*
 * Writes a perf.data file with the perfdata writer: cpu-clock samples of
 * this very process (IP, TID, TIME, CPU, PERIOD, CALLCHAIN) in two of its
 * own functions, with the COMM and MMAP2 records that let perf resolve
 * them to symbols, and this machine's header features.
 *   perfdata_write FILE [NSAMPLES] [--pipe]     (FILE "-" = stdout)
 * With PK_EXAMPLE_DIE set it flushes and kills itself before closing.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include <perfkit/synth.h>

static struct perf_event_attr attr;

static volatile unsigned sink;

static __attribute__((noinline)) void pk_example_hot_a(void)
{
	for (unsigned i = 0; i < 100; i++)
		sink += i * 3;
}

static __attribute__((noinline)) void pk_example_hot_b(void)
{
	for (unsigned i = 0; i < 100; i++)
		sink ^= i * 5;
}

/* The kernel's MMAP (as perf writes it) so perf finds kernel maps. */
static int put_kernel(const struct perf_event_header *rec, void *w)
{
	return pk_pdwriter_write(w, rec, NULL, 0);
}

static struct pk_sample ids(uint64_t time, unsigned cpu)
{
	struct pk_sample s = { .pid = (uint32_t)getpid(),
			       .tid = (uint32_t)getpid(), .time = time,
			       .cpu = cpu };
	return s;
}

static int put_comm(struct pk_pdwriter *w, uint64_t time)
{
	unsigned char buf[256] = { 0 };
	struct perf_event_header *h = (void *)buf;
	struct pk_sample s = ids(time, 0);
	uint32_t pt[2] = { s.pid, s.tid };
	long n;

	h->type = PERF_RECORD_COMM;
	h->misc = PERF_RECORD_MISC_COMM_EXEC;
	memcpy(buf + 8, pt, 8);
	strcpy((char *)buf + 16, "perfdata_write");
	n = pk_sample_id_encode(&attr, &s, buf + 32, sizeof(buf) - 32);
	if (n < 0)
		return (int)n;
	h->size = (uint16_t)(32 + n);
	return pk_pdwriter_write(w, h, NULL, 0);
}

/* One MMAP2 per executable mapping of this process. */
static int put_mmaps(struct pk_pdwriter *w, uint64_t time)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4352];
	int r = 0;

	if (!f)
		return -errno;
	while (!r && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perm[8], path[4096] = "";
		unsigned char buf[4400] = { 0 };
		struct perf_event_header *h = (void *)buf;
		struct pk_sample s = ids(time, 0);
		size_t fl;
		long n;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095s", &start,
			   &end, perm, &pgoff, &maj, &min, &ino, path) < 7 ||
		    perm[2] != 'x' || path[0] != '/')
			continue;
		h->type = PERF_RECORD_MMAP2;
		h->misc = PERF_RECORD_MISC_USER;
		memcpy(buf + 8, &s.pid, 4);
		memcpy(buf + 12, &s.tid, 4);
		memcpy(buf + 16, &start, 8);
		end -= start;
		memcpy(buf + 24, &end, 8);
		memcpy(buf + 32, &pgoff, 8);
		memcpy(buf + 40, &maj, 4);
		memcpy(buf + 44, &min, 4);
		memcpy(buf + 48, &ino, 8);
		{
			uint32_t prot = PROT_READ | PROT_EXEC, flags = MAP_PRIVATE;

			memcpy(buf + 64, &prot, 4);
			memcpy(buf + 68, &flags, 4);
		}
		fl = strlen(path) + 1;
		memcpy(buf + 72, path, fl);
		fl = (fl + 7) & ~7UL;
		n = pk_sample_id_encode(&attr, &s, buf + 72 + fl, 256);
		if (n < 0)
			r = (int)n;
		else {
			h->size = (uint16_t)(72 + fl + n);
			r = pk_pdwriter_write(w, h, NULL, 0);
		}
	}
	fclose(f);
	return r;
}

static int put_samples(struct pk_pdwriter *w, uint64_t t0, unsigned nr)
{
	uint64_t a = (uint64_t)(uintptr_t)pk_example_hot_a + 2;
	uint64_t b = (uint64_t)(uintptr_t)pk_example_hot_b + 2;
	uint64_t m = (uint64_t)(uintptr_t)put_samples + 4;
	unsigned char buf[512];
	int r = 0;

	for (unsigned i = 0; !r && i < nr; i++) {
		struct pk_sample s = ids(t0 + 250000ULL * (i + 1), i & 1);
		uint64_t chain[3] = { PERF_CONTEXT_USER, i % 3 ? a : b, m };
		long n;

		s.ip = chain[1];
		s.period = 250000;
		s.callchain.nr = 3;
		s.callchain.ips = chain;
		n = pk_sample_encode(&attr, &s, PERF_RECORD_MISC_USER, buf,
				     sizeof(buf));
		if (n < 0)
			return (int)n;
		r = pk_pdwriter_write(w, (void *)buf, NULL, 0);
		if (!r && i % 100 == 99) {
			struct perf_event_header f = {
				PK_RECORD_FINISHED_ROUND, 0, 8 };

			r = pk_pdwriter_write(w, &f, NULL, 0);
		}
	}
	return r;
}

int main(int argc, char **argv)
{
	PK_OPTS(pk_pdwriter_opts, o, .pipe = argc > 3 &&
					     !strcmp(argv[3], "--pipe"));
	unsigned nr = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
	uint64_t id[2] = { 11, 12 }, st[2];
	struct pk_pdwriter *w;
	struct timespec ts;
	int r;
	/* trailer: TID TIME CPU = 24 bytes of zeros on synthesized maps */
	PK_OPTS(pk_synth_opts, so, .id_hdr_size = 24);

	if (argc < 2) {
		fprintf(stderr, "usage: perfdata_write FILE [NSAMPLES] [--pipe]\n");
		return 2;
	}
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 250000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_CALLCHAIN;
	attr.sample_id_all = 1;
	attr.mmap = attr.comm = attr.mmap2 = attr.comm_exec = 1;
	attr.exclude_guest = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	w = !strcmp(argv[1], "-") ? pk_pdwriter_open_fd(1, &o)
				  : pk_pdwriter_open(argv[1], &o);
	if (!w) {
		perror(argv[1]);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	st[0] = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	st[1] = st[0] + 250000ULL * nr;
	if ((r = pk_pdwriter_add_attr(w, &attr, id, 2, "cpu-clock")) < 0 ||
	    (r = pk_pdwriter_feat_host(w)) ||
	    (r = pk_pdwriter_feat_cmdline(w, argc, argv)) ||
	    (r = pk_synth_kernel(put_kernel, w, &so)) ||
	    (r = put_comm(w, st[0])) || (r = put_mmaps(w, st[0] + 1)) ||
	    (r = put_samples(w, st[0] + 2, nr)))
		goto fail;
	if (getenv("PK_EXAMPLE_DIE")) {
		/* a recorder killed after its last flush (tests) */
		pk_pdwriter_flush(w);
		raise(SIGKILL);
	}
	st[0] += 2 + 250000;
	if ((r = pk_pdwriter_feat_u64(w, PK_HEADER_SAMPLE_TIME, st, 2)))
		goto fail;
	r = pk_pdwriter_close(w);
	if (r) {
		fprintf(stderr, "perfdata_write: close: %s\n", pk_strerror(r));
		return 1;
	}
	return 0;
fail:
	fprintf(stderr, "perfdata_write: %s\n", pk_strerror(r));
	pk_pdwriter_close(w);
	return 1;
}
