/* SPDX-License-Identifier: MIT */
/* libFuzzer: the instruction trace of a perf.data. The input gives the
 * --itrace letters (up to the first NUL: parsed, written back and parsed
 * again to the same options), AUXTRACE_INFO's fields (its next 136
 * bytes) and the Intel PT bytes (the rest), cut into two AUXTRACE
 * records; the file maps this program's own code where the trace may
 * point, carries timestamps or not, and is decoded into samples whose
 * payloads read back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>

static int sample(void *ctx, const struct pk_itrace_sample *s)
{
	uint8_t raw[64];
	struct pk_itrace_sample r;
	int n;

	(void)ctx;
	if (s->kind == PK_ITRACE_PSB || s->kind == PK_ITRACE_CBR) {
		n = pk_itrace_synth_encode(s, raw, sizeof(raw));
		memset(&r, 0, sizeof(r));
		if (n != 12 || pk_itrace_synth_decode(s->kind == PK_ITRACE_PSB ?
						      6 : 5, raw, 12, &r) ||
		    r.kind != s->kind)
			abort();
	}
	return 0;
}

static int feed(void *ctx, struct pk_session *s, const struct pk_record *rec)
{
	(void)s;
	return pk_itrace_record(ctx, rec);
}

static void put(uint8_t *b, size_t off, uint64_t v, size_t n)
{
	memcpy(b + off, &v, n);
}

static void hdr(uint8_t *b, uint32_t type, uint16_t size)
{
	memset(b, 0, size);
	put(b, 0, type, 4);
	put(b, 6, size, 2);
}

/* The file, written to FD: the intel_pt event with or without TIME. */
static int write_file(int fd, const uint8_t *info, const uint8_t *pt,
		      size_t len, bool timed)
{
	static char self[512];
	struct perf_event_attr a;
	uint64_t id = 7, recbuf[256];
	uint8_t *rec = (uint8_t *)recbuf;
	struct pk_pdwriter *w = pk_pdwriter_open_fd(fd, NULL);
	size_t half = len / 2, nl;
	ssize_t sl;
	int err = 0;

	if (!w)
		return -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = 8;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			(timed ? PERF_SAMPLE_TIME : 0) | PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.config = 0x400;	/* tsc */
	err |= pk_pdwriter_add_attr(w, &a, &id, 1, "intel_pt//") < 0;
	hdr(rec, PK_RECORD_AUXTRACE_INFO, 16 + 17 * 8);
	put(rec, 8, 1, 4);
	memcpy(rec + 16, info, 17 * 8);
	put(rec, 16, 8, 8);	/* the event's PMU type */
	err |= pk_pdwriter_write(w, (void *)rec, NULL, 0);
	/* this program's code at its own address range (the trace's
	 * addresses may land in it) */
	sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl > 0) {
		self[sl] = 0;
		nl = (size_t)sl + 1;
		hdr(rec, PERF_RECORD_MMAP2, (uint16_t)((72 + nl + 7 + 16) & ~7u));
		put(rec, 8, 42, 4);
		put(rec, 12, 42, 4);
		put(rec, 16, (uint64_t)(uintptr_t)&write_file & ~0xfffull, 8);
		put(rec, 24, 0x10000, 8);
		put(rec, 64, PROT_READ | PROT_EXEC, 4);
		memcpy(rec + 72, self, nl);
		err |= pk_pdwriter_write(w, (void *)rec, NULL, 0);
	}
	for (int k = 0; k < 2; k++) {
		size_t off = k ? half : 0, n = k ? len - half : half;

		hdr(rec, PK_RECORD_AUXTRACE, 48);
		put(rec, 8, n, 8);
		put(rec, 16, off, 8);
		put(rec, 36, 42, 4);
		put(rec, 40, (uint32_t)-1, 4);
		err |= pk_pdwriter_write(w, (void *)rec, pt + off, n);
	}
	hdr(rec, PERF_RECORD_EXIT, 40);
	put(rec, 8, 42, 4);
	put(rec, 16, 42, 4);
	err |= pk_pdwriter_write(w, (void *)rec, NULL, 0);
	return pk_pdwriter_close(w) || err ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_itrace_opts o, o2;
	char letters[17], back[128];
	uint8_t info[17 * 8];
	const uint8_t *nul = memchr(data, 0, size < 16 ? size : 16);
	size_t ll = nul ? (size_t)(nul - data) : (size < 16 ? size : 16), pos;
	struct pk_perfdata *pd;
	struct pk_session *s;
	struct pk_itrace *it;
	int fd;

	if (size > 1 << 16)
		return 0;
	memcpy(letters, data, ll);
	letters[ll] = 0;
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	if (pk_itrace_parse(&o, letters, &pos)) {
		if (pos > ll)
			abort();
		return 0;
	}
	/* what the letters say, written back, says the same */
	if (o.set) {
		pk_itrace_format(&o, back, sizeof(back));
		memset(&o2, 0, sizeof(o2));
		o2.sz = sizeof(o2);
		if (pk_itrace_parse(&o2, back, &pos) ||
		    o2.instructions != o.instructions || o2.calls != o.calls ||
		    o2.returns != o.returns || o2.errors != o.errors ||
		    (o.instructions && o2.period != o.period))
			abort();
	}
	data += ll + (nul != NULL);
	size -= ll + (nul != NULL);
	if (size < sizeof(info))
		return 0;
	memcpy(info, data, sizeof(info));
	data += sizeof(info);
	size -= sizeof(info);
	fd = memfd_create("fuzz_itrace", 0);
	if (fd < 0)
		return 0;
	if (write_file(fd, info, data, size, info[0] & 1) ||
	    lseek(fd, 0, SEEK_SET)) {
		close(fd);
		return 0;
	}
	pd = pk_perfdata_open_fd(fd, NULL);
	{
		PK_OPTS(pk_session_opts, so, .kallsyms = "", .buildid_dir = "");

		s = pd ? pk_session_new(&so) : NULL;
	}
	it = s ? pk_itrace_new(pd, s, &o, sample, NULL) : NULL;
	if (it) {
		PK_OPTS(pk_tool, tool, .record = feed);

		if (!pk_session_run(s, pd, &tool, it))
			pk_itrace_flush(it);
	}
	pk_itrace_free(it);
	pk_session_free(s);
	pk_perfdata_free(pd);
	close(fd);
	return 0;
}
