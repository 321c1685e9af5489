/* SPDX-License-Identifier: MIT */
/*
 * perf.data writer -> reader round trips (file and pipe mode, every sample
 * bit, sample_id trailers, features, time ordering), crash safety (a
 * writer that never closed), and damaged input (truncations, bit flips).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include <perfkit/map.h>
#include "test.h"

#define NS 200          /* samples per attr */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct rec {                /* what we wrote, to compare with */
	unsigned char *bytes;
	uint16_t size;
	uint64_t time;
};

static struct rec recs[4 * NS + 64];
static unsigned nrecs;
static struct perf_event_attr attrs[2];
static uint64_t ids[2][2] = { { 101, 102 }, { 201, 202 } };

static void setup_attrs(void)
{
	struct perf_event_attr *a = &attrs[0], *b = &attrs[1];

	memset(attrs, 0, sizeof(attrs));
	a->size = b->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = 1000;
	a->sample_id_all = 1;
	a->sample_type = (PERF_SAMPLE_MAX - 1) & ~PERF_SAMPLE_WEIGHT_STRUCT;
	a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
			 PERF_FORMAT_LOST | PERF_FORMAT_TOTAL_TIME_ENABLED |
			 PERF_FORMAT_TOTAL_TIME_RUNNING;
	a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				PERF_SAMPLE_BRANCH_HW_INDEX;
	a->sample_regs_user = 0x1ff;
	a->sample_regs_intr = 0x5;
	a->sample_stack_user = 64;
	*b = *a;
	b->config = PERF_COUNT_SW_TASK_CLOCK;
	b->sample_type = (PERF_SAMPLE_MAX - 1) & ~PERF_SAMPLE_WEIGHT;
	b->read_format = PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_RUNNING;
	b->branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
}

/* Fills a sample with random contents for ATTR. Arrays in ST. */
struct store {
	uint64_t ips[16], vals[3 * 3], regs[16], iregs[4];
	unsigned char raw[40], stack[64], aux[24];
	struct perf_branch_entry br[4];
};

static void fill_sample(const struct perf_event_attr *a, int ai,
			struct pk_sample *s, struct store *st, uint64_t time)
{
	memset(s, 0, sizeof(*s));
	s->id = ids[ai][rnd() & 1];
	s->ip = rnd();
	s->pid = (uint32_t)rnd();
	s->tid = (uint32_t)rnd();
	s->time = time;
	s->addr = rnd();
	s->stream_id = rnd();
	s->cpu = (uint32_t)(rnd() & 1);
	s->period = rnd();
	for (unsigned i = 0; i < 9; i++)
		st->vals[i] = rnd();
	s->read.values = st->vals;
	s->read.nr = (a->read_format & PERF_FORMAT_GROUP) ? 3 : 1;
	s->read.time_enabled = (a->read_format &
				PERF_FORMAT_TOTAL_TIME_ENABLED) ? rnd() : 0;
	s->read.time_running = rnd();
	s->callchain.nr = rnd() % 16;
	for (unsigned i = 0; i < 16; i++)
		st->ips[i] = rnd();
	s->callchain.ips = st->ips;
	s->raw.size = 36;  /* 4 + 36 = 40: padded like the kernel does */
	for (unsigned i = 0; i < sizeof(st->raw); i++)
		st->raw[i] = (unsigned char)rnd();
	s->raw.data = st->raw;
	s->branch.nr = rnd() % 5;
	s->branch.hw_idx = rnd();
	for (unsigned i = 0; i < 4; i++) {
		st->br[i].from = rnd();
		st->br[i].to = rnd();
	}
	s->branch.entries = st->br;
	s->regs_user.abi = PERF_SAMPLE_REGS_ABI_64;
	for (unsigned i = 0; i < 16; i++)
		st->regs[i] = rnd();
	s->regs_user.regs = st->regs;
	s->regs_intr.abi = (rnd() & 1) ? PERF_SAMPLE_REGS_ABI_64 : 0;
	s->regs_intr.regs = st->iregs;
	st->iregs[0] = rnd();
	st->iregs[1] = rnd();
	s->stack_user.size = (rnd() & 1) ? 64 : 0;
	for (unsigned i = 0; i < 64; i++)
		st->stack[i] = (unsigned char)rnd();
	s->stack_user.data = st->stack;
	s->stack_user.dyn_size = 48;
	s->weight = rnd();
	s->data_src = rnd();
	s->transaction = rnd();
	s->phys_addr = rnd();
	s->cgroup = rnd();
	s->data_page_size = 4096;
	s->code_page_size = 2 << 20;
	s->aux.size = (rnd() & 1) ? 24 : 0;
	s->aux.data = st->aux;
}

static bool same_sample(const struct pk_sample *x, const struct pk_sample *y,
			const struct perf_event_attr *a, char *why)
{
#define F(f) if (x->f != y->f) { sprintf(why, #f " %llx != %llx", \
	(unsigned long long)x->f, (unsigned long long)y->f); return false; }
	F(id) F(ip) F(pid) F(tid) F(time) F(addr) F(stream_id) F(cpu)
	F(period) F(read.nr) F(read.time_enabled) F(callchain.nr)
	F(raw.size) F(branch.nr) F(regs_user.abi) F(regs_intr.abi)
	F(stack_user.size) F(weight) F(data_src) F(transaction) F(phys_addr)
	F(cgroup) F(data_page_size) F(code_page_size) F(aux.size)
#undef F
	if ((a->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) &&
	    x->read.time_running != y->read.time_running)
		return sprintf(why, "time_running"), false;
	if (memcmp(x->callchain.ips, y->callchain.ips, x->callchain.nr * 8))
		return sprintf(why, "callchain"), false;
	if (memcmp(x->raw.data, y->raw.data, x->raw.size))
		return sprintf(why, "raw"), false;
	if (x->branch.nr && memcmp(x->branch.entries, y->branch.entries,
				   x->branch.nr * 24))
		return sprintf(why, "branch"), false;
	if ((a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) &&
	    x->branch.hw_idx != y->branch.hw_idx)
		return sprintf(why, "hw_idx"), false;
	if (memcmp(x->regs_user.regs, y->regs_user.regs,
		   __builtin_popcountll(a->sample_regs_user) * 8))
		return sprintf(why, "regs_user"), false;
	if (x->stack_user.size &&
	    (memcmp(x->stack_user.data, y->stack_user.data, 64) ||
	     x->stack_user.dyn_size != y->stack_user.dyn_size))
		return sprintf(why, "stack_user"), false;
	for (unsigned i = 0; i < x->read.nr * y->read.stride; i++)
		if (x->read.values[i] != y->read.values[i])
			return sprintf(why, "read value %u", i), false;
	return true;
}

static void keep(const void *p, uint16_t size, uint64_t time)
{
	recs[nrecs].bytes = malloc(size);
	memcpy(recs[nrecs].bytes, p, size);
	recs[nrecs].size = size;
	recs[nrecs].time = time;
	nrecs++;
}

/* A COMM record with a sample_id trailer for attr 0. */
static uint16_t make_comm(unsigned char *buf, uint64_t time)
{
	struct perf_event_header *h = (void *)buf;
	struct pk_sample s = { 0 };
	long n;

	memset(buf, 0, 64);
	h->type = PERF_RECORD_COMM;
	memcpy(buf + 8, "\x10\0\0\0\x11\0\0\0", 8);
	strcpy((char *)buf + 16, "worker");
	s.pid = 16;
	s.tid = 17;
	s.time = time;
	s.id = ids[0][0];
	s.cpu = 1;
	n = pk_sample_id_encode(&attrs[0], &s, buf + 24, 1000);
	h->size = (uint16_t)(24 + n);
	return h->size;
}

/* Builds the record list: samples of both attrs, two "cpus" whose times
 * interleave, a COMM, FINISHED_ROUND every 50 records. */
static void build_records(void)
{
	unsigned char buf[4096];
	struct pk_store { int x; };
	uint64_t t[2] = { 1000, 1003 };

	nrecs = 0;
	keep(buf, make_comm(buf, 0), 0);
	for (unsigned i = 0; i < 2 * NS; i++) {
		struct pk_sample s;
		struct store st;
		int ai = i & 1, cpu = (i / 3) & 1;
		long n;

		t[cpu] += 7 + rnd() % 5;
		fill_sample(&attrs[ai], ai, &s, &st, t[cpu]);
		n = pk_sample_encode(&attrs[ai], &s, PERF_RECORD_MISC_USER,
				     buf, sizeof(buf));
		if (n < 0) {
			t_fail("perfdata_encode", "%s", strerror((int)-n));
			return;
		}
		keep(buf, (uint16_t)n, t[cpu]);
		if (i % 50 == 49) {
			struct perf_event_header f = {
				PK_RECORD_FINISHED_ROUND, 0, 8 };
			keep(&f, 8, 0);
		}
	}
	keep(buf, make_comm(buf, t[0] + 100), t[0] + 100);
}

static bool other_endian, compress;

static int write_file(const char *path, bool pipe, bool finish)
{
	PK_OPTS(pk_pdwriter_opts, o, .pipe = pipe,
		.other_endian = other_endian);
	struct pk_pdwriter *w = pk_pdwriter_open(path, &o);
	char *argv[] = { "perfkit", "record", "--", "x" };
	int r = 0;

	if (!w)
		return -errno;
	if (compress && pk_pdwriter_set_compression(w, 3, 0))
		return -EINVAL;
	if (pk_pdwriter_add_attr(w, &attrs[0], ids[0], 2, "cpu-clock") != 0 ||
	    pk_pdwriter_add_attr(w, &attrs[1], ids[1], 2, "task-clock") != 1)
		return -EINVAL;
	r = pk_pdwriter_feat_host(w);
	if (!r)
		r = pk_pdwriter_feat_cmdline(w, 4, argv);
	for (unsigned i = 0; !r && i < nrecs; i++)
		r = pk_pdwriter_write(w, (void *)recs[i].bytes, NULL, 0);
	if (!finish) {
		/* a killed writer: flush what it has, never close */
		pk_pdwriter_flush(w);
		return r;
	}
	{
		uint64_t st[2] = { recs[1].time, recs[nrecs - 1].time };

		if (!r)
			r = pk_pdwriter_feat_u64(w, PK_HEADER_SAMPLE_TIME, st, 2);
	}
	if (!r) {
		struct pk_build_id b = { .misc = 2, .pid = -1,
			.id = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
				15, 16, 17, 18, 19, 20 },
			.id_size = 20, .filename = "/usr/bin/x" };

		r = pk_pdwriter_add_build_id(w, &b);
	}
	if (r)
		fprintf(stderr, "write_file %s: %s\n", path, pk_strerror(r));
	r = r ? r : pk_pdwriter_close(w);
	if (r)
		fprintf(stderr, "write_file %s: close: %s\n", path,
			pk_strerror(r));
	return r;
}

static void check_read(const char *name, const char *path, bool file_order)
{
	PK_OPTS(pk_perfdata_opts, o, .file_order = file_order);
	struct pk_perfdata *pd = pk_perfdata_open(path, &o);
	struct pk_record rec;
	unsigned n = 0, nbad = 0, nsamp = 0, nsbad = 0;
	uint64_t last = 0;
	bool ordered = true;
	char why[128] = "", tn[128];
	int err;

	if (!t_check(pd != NULL, name, "open: %s %s", strerror(errno),
		     pk_perfdata_open_error()))
		return;
	while ((err = pk_perfdata_next(pd, &rec)) == 0) {
		struct pk_sample s;

		if (rec.type == PK_RECORD_HEADER_ATTR ||
		    rec.type == PK_RECORD_HEADER_FEATURE ||
		    rec.type == PK_RECORD_COMPRESSED)
			continue;
		if (file_order) {
			if (n >= nrecs || rec.size != recs[n].size ||
			    memcmp(rec.hdr, recs[n].bytes, rec.size))
				nbad++;
		} else if (rec.time) {
			if (rec.time < last)
				ordered = false;
			last = rec.time;
		}
		if (rec.type == PERF_RECORD_SAMPLE) {
			struct pk_sample orig;
			int a = rec.attr;

			nsamp++;
			if (a < 0 || pk_sample_parse(pd, &rec, &s) ||
			    pk_sample_decode(pk_perfdata_attr(pd, a),
					     (const void *)rec.hdr, &orig) ||
			    !same_sample(&s, &orig,
					 pk_perfdata_attr(pd, a), why))
				nsbad++;
			/* encode again and compare bytes */
			{
				unsigned char b2[4096];
				long m = pk_sample_encode(pk_perfdata_attr(pd, a),
							  &s, rec.misc, b2,
							  sizeof(b2));
				if (m != rec.size || memcmp(b2, rec.hdr, m))
					nsbad++, sprintf(why, "re-encode");
			}
		}
		n++;
	}
	snprintf(tn, sizeof(tn), "%s_count", name);
	t_check(err == PK_ERR_EOS && n == nrecs, tn,
		"%u records of %u, end %s %s", n, nrecs, pk_strerror(err),
		pk_perfdata_errmsg(pd));
	snprintf(tn, sizeof(tn), "%s_samples", name);
	t_check(nsamp == 2 * NS && nsbad == 0, tn, "%u samples, %u bad: %s",
		nsamp, nsbad, why);
	if (file_order) {
		snprintf(tn, sizeof(tn), "%s_bytes", name);
		t_check(nbad == 0, tn, "%u records differ", nbad);
	} else {
		snprintf(tn, sizeof(tn), "%s_time_order", name);
		t_check(ordered, tn, "records out of time order");
	}
	pk_perfdata_free(pd);
}

static void check_features(const char *path, bool pipe)
{
	struct pk_perfdata *pd = pk_perfdata_open(path, NULL);
	struct pk_record rec;
	struct utsname u;
	const char *const *v;
	uint64_t x;
	unsigned n;
	const char *name = pipe ? "perfdata_pipe_features" : "perfdata_features";

	if (other_endian)
		name = pipe ? "perfdata_swapped_pipe_features"
			    : "perfdata_swapped_features";

	if (!t_check(pd != NULL, name, "open"))
		return;
	while (pk_perfdata_next(pd, &rec) == 0) /* pipe: features at end */
		;
	uname(&u);
	t_check(pk_perfdata_feat_str(pd, PK_HEADER_HOSTNAME) &&
		!strcmp(pk_perfdata_feat_str(pd, PK_HEADER_HOSTNAME), u.nodename) &&
		!strcmp(pk_perfdata_feat_str(pd, PK_HEADER_OSRELEASE), u.release) &&
		!strcmp(pk_perfdata_feat_str(pd, PK_HEADER_ARCH), u.machine),
		name, "hostname/osrelease/arch");
	n = pk_perfdata_feat_strv(pd, PK_HEADER_CMDLINE, 0, &v);
	t_check(n == 4 && !strcmp(v[1], "record") && !strcmp(v[3], "x"),
		pipe ? "perfdata_pipe_cmdline" : "perfdata_cmdline",
		"%u args", n);
	t_check(pk_perfdata_feat_u64(pd, PK_HEADER_NRCPUS, 0, &x) == 0 &&
		x == (uint64_t)sysconf(_SC_NPROCESSORS_ONLN),
		pipe ? "perfdata_pipe_nrcpus" : "perfdata_nrcpus", "nrcpus");
	if (pipe && !other_endian) {
		struct pk_build_id b;

		/* a 100-byte entry: the FEATURE record carries 4 bytes of
		 * padding, which are no truncated entry */
		t_check(pk_perfdata_nr_build_ids(pd) == 1 &&
			!pk_perfdata_build_id(pd, 0, &b) && b.id[19] == 20 &&
			pk_perfdata_nr_warnings(pd) == 0,
			"perfdata_pipe_build_id_padding", "%u build ids, %u warnings",
			pk_perfdata_nr_build_ids(pd), pk_perfdata_nr_warnings(pd));
	}
	if (!pipe && !other_endian) {
		struct pk_build_id b;

		t_check(pk_perfdata_attr_name(pd, 1) &&
			!strcmp(pk_perfdata_attr_name(pd, 1), "task-clock"),
			"perfdata_event_desc", "name of attr 1");
		t_check(pk_perfdata_nr_build_ids(pd) == 1 &&
			!pk_perfdata_build_id(pd, 0, &b) && b.id[19] == 20 &&
			!strcmp(b.filename, "/usr/bin/x"),
			"perfdata_build_id", "build id");
		x = 0;
		pk_perfdata_feat_u64(pd, PK_HEADER_SAMPLE_TIME, 1, &x);
		t_check(x == recs[nrecs - 1].time, "perfdata_sample_time",
			"last sample time %llu", (unsigned long long)x);
		t_check(pk_perfdata_has_feat(pd, PK_HEADER_CPU_TOPOLOGY) &&
			pk_perfdata_feat_strv(pd, PK_HEADER_CPU_TOPOLOGY, 1, &v) > 0,
			"perfdata_topology", "cpu topology");
	}
	pk_perfdata_free(pd);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc(n + 1);
	if (fread(b, 1, n, f) != (size_t)n)
		n = 0;
	fclose(f);
	*len = n;
	return b;
}

/* Reads a buffer to its end; returns records delivered, *ERR the end. */
static unsigned walk(const void *b, size_t n, bool file_order, int *err,
		     uint64_t *err_off, bool *open_failed)
{
	PK_OPTS(pk_perfdata_opts, o, .file_order = file_order);
	struct pk_perfdata *pd = pk_perfdata_open_mem(b, n, &o);
	struct pk_record rec;
	unsigned cnt = 0;

	*open_failed = !pd;
	if (!pd)
		return 0;
	while ((*err = pk_perfdata_next(pd, &rec)) == 0) {
		struct pk_sample s;
		char d[256];

		pk_sample_parse(pd, &rec, &s);
		pk_record_describe(pd, &rec, d, sizeof(d));
		cnt++;
	}
	*err_off = pk_perfdata_err_offset(pd);
	pk_perfdata_free(pd);
	return cnt;
}

static void check_crash(const char *dir)
{
	char path[256];
	unsigned char *b;
	size_t n;
	int err;
	uint64_t off;
	bool of;
	unsigned cnt;
	int fd;

	snprintf(path, sizeof(path), "%s/killed.data", dir);
	/* the writer dies (exits without closing) in a child */
	if (fork() == 0)
		_exit(write_file(path, false, false) ? 1 : 0);
	if (wait(&err) < 0 || !WIFEXITED(err) || WEXITSTATUS(err)) {
		t_fail("perfdata_crash_write", "write failed");
		return;
	}
	b = slurp(path, &n);
	cnt = walk(b, n, true, &err, &off, &of);
	t_check(!of && err == PK_ERR_EOS && cnt == nrecs, "perfdata_crash_read",
		"%u of %u records, %s", cnt, nrecs, pk_strerror(err));
	/* a record half written when the writer died */
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd >= 0) {
		if (write(fd, recs[5].bytes, recs[5].size / 2) < 0)
			t_fail("perfdata_crash_partial", "append");
		close(fd);
	}
	free(b);
	b = slurp(path, &n);
	cnt = walk(b, n, true, &err, &off, &of);
	t_check(!of && err == PK_ERR_EOS && cnt == nrecs,
		"perfdata_crash_partial", "%u of %u records, %s", cnt, nrecs,
		pk_strerror(err));
	free(b);
}

/* File-order end offsets of every record of a whole file. */
static unsigned record_ends(const void *b, size_t n, uint64_t *ends,
			    unsigned max)
{
	PK_OPTS(pk_perfdata_opts, o, .file_order = true);
	struct pk_perfdata *pd = pk_perfdata_open_mem(b, n, &o);
	struct pk_record rec;
	unsigned k = 0;

	while (pd && k < max && pk_perfdata_next(pd, &rec) == 0)
		ends[k++] = rec.offset + rec.size + ((rec.extra_size + 7) & ~7ULL);
	pk_perfdata_free(pd);
	return k;
}

static void check_damage(const char *path, const char *name)
{
	size_t n;
	unsigned char *b = slurp(path, &n), *c;
	unsigned full, cnt, bad = 0, runs = 0, errs = 0, fewer = 0, lost = 0;
	static uint64_t ends[8 * NS];
	unsigned nends;
	int err;
	uint64_t off;
	bool of;
	char tn[128];

	if (!b)
		return;
	full = walk(b, n, true, &err, &off, &of);
	nends = record_ends(b, n, ends, 8 * NS);
	c = malloc(n);
	/* truncations: never more records than the whole file, errors name
	 * an offset inside the file */
	for (size_t len = 0; len < n; len += 1 + len / 25 + rnd() % 97) {
		memcpy(c, b, len);
		cnt = walk(c, len, true, &err, &off, &of);
		runs++;
		if (of)
			continue;
		if (cnt > full)
			bad++;
		if (err != PK_ERR_EOS) {
			errs++;
			if (off > len)
				bad++;
		}
		if (cnt < full)
			fewer++;
		/* every record that ends before the cut is delivered */
		{
			unsigned want = 0;

			while (want < nends && ends[want] <= len)
				want++;
			if (cnt != want)
				lost++;
		}
	}
	snprintf(tn, sizeof(tn), "%s_truncations", name);
	t_check(bad == 0 && fewer > 0, tn,
		"%u runs, %u bad, %u errors, %u short", runs, bad, errs, fewer);
	snprintf(tn, sizeof(tn), "%s_truncations_keep", name);
	t_check(lost == 0 && nends == full, tn,
		"%u of %u cut files lost records before the cut", lost, runs);
	/* bit flips: must terminate, never crash */
	for (unsigned i = 0; i < 600; i++) {
		memcpy(c, b, n);
		for (int k = 0; k < 1 + (int)(i % 4); k++)
			c[rnd() % n] ^= (unsigned char)(1u << (rnd() % 8));
		walk(c, n, i & 1, &err, &off, &of);
		if (err != PK_ERR_EOS && err != PK_ERR_FORMAT &&
		    err != PK_ERR_TRUNC && !of)
			bad++;
	}
	snprintf(tn, sizeof(tn), "%s_bitflips", name);
	t_check(bad == 0, tn, "%u runs ended with another error", bad);
	free(c);
	free(b);
}

static void check_errors(void)
{
	static const unsigned char junk[64] = "NOTPERF!";
	bool of;
	int err;
	uint64_t off;

	errno = 0;
	t_check(!pk_perfdata_open_mem(junk, sizeof(junk), NULL) &&
		errno == EPROTO && strstr(pk_perfdata_open_error(), "magic"),
		"perfdata_bad_magic", "errno %d", errno);
	t_check(!pk_perfdata_open("/nonexistent/perf.data", NULL) &&
		errno == ENOENT, "perfdata_enoent", "errno %d", errno);
	walk(junk, 3, true, &err, &off, &of);
	t_check(of, "perfdata_tiny", "3-byte input opened");
}

/* A directory (perf record -o DIR --kcore): DIR/data is read. */
static void check_dir(const char *dir)
{
	char d[256], data[300];
	struct pk_perfdata *pd;

	snprintf(d, sizeof(d), "%s/kc", dir);
	snprintf(data, sizeof(data), "%s/data", d);
	if (mkdir(d, 0700)) {
		t_fail("perfdata_dir", "mkdir");
		return;
	}
	errno = 0;
	pd = pk_perfdata_open(d, NULL);
	T_CHECK("perfdata_dir_no_data", !pd && errno == ENOENT);
	t_check(write_file(data, false, true) == 0, "perfdata_dir_write",
		"write");
	pd = pk_perfdata_open(d, NULL);
	T_CHECK("perfdata_dir_open", pd && pk_perfdata_dir(pd) &&
		!strcmp(pk_perfdata_dir(pd), d) && pk_perfdata_nr_attrs(pd) == 2);
	pk_perfdata_free(pd);
	pd = pk_perfdata_open(data, NULL);
	T_CHECK("perfdata_dir_file", pd && !pk_perfdata_dir(pd));
	pk_perfdata_free(pd);
}

/* The encoders of perf record's header records, read back by
 * pk_record_describe (perf report -D's text). */
static void hdr_text(const char *name, long n, const void *buf,
		     const char *want)
{
	struct pk_record r = { .hdr = buf };
	char text[512];

	if (n <= 0) {
		t_check(0, name, "encoder failed");
		return;
	}
	r.type = ((const struct perf_event_header *)buf)->type;
	r.size = ((const struct perf_event_header *)buf)->size;
	pk_record_describe(NULL, &r, text, sizeof(text));
	t_check(r.size == n && r.size % 8 == 0 && !strcmp(text, want), name,
		"%s", text);
}

static void check_cpu_map(const char *name, const char *list, int any,
			  unsigned type, long size, const char *want)
{
	struct pk_cpu_map *l = list ? pk_cpu_map_new(list) : NULL, *a = NULL;
	struct pk_cpu_map *m = l;
	unsigned char buf[256];
	long n;
	uint16_t t = 0xffff;

	if (any) {
		a = pk_cpu_map_new_any();
		m = pk_cpu_map_merge(a, l);
		pk_cpu_map_put(l);
	}
	n = pk_record_cpu_map_encode(m, buf, sizeof(buf));
	if (n > 8)
		memcpy(&t, buf + 8, 2);
	t_check(n == size && t == type, name, "size or encoding");
	hdr_text(name, n, buf, want);
	pk_cpu_map_put(m);
	pk_cpu_map_put(a);
}

/* perf inject --guest-data's ID_INDEX: machine_pid/vcpu after the
 * entries; read back entry by entry, shown by -D as perf shows it */
static void check_id_index_guest(const struct pk_id_index_entry *e)
{
	struct pk_id_index_guest g[2] = { { 4242, 0 }, { 4242, 3 } }, rg;
	struct pk_id_index_entry re;
	static unsigned char big[70000];
	unsigned char buf[256];
	long n = pk_record_id_index_guest_encode(e, g, 2, buf, sizeof(buf));

	t_check(n == 16 + 2 * 48, "hdr_id_index_guest_size", "not 112 bytes");
	hdr_text("hdr_id_index_guest", n, buf,
		 "PERF_RECORD_ID_INDEX nr: 2\n ... id: 7  idx: 0  cpu: 0  tid: 40"
		 "  machine_pid: 4242  vcpu: 0\n ... id: 8  idx: 1  cpu: -1  tid: -1"
		 "  machine_pid: 4242  vcpu: 3\n");
	t_check(!pk_record_id_index_entry(buf, (size_t)n, 1, &re, &rg) &&
		re.id == 8 && re.tid == -1 && rg.machine_pid == 4242 &&
		rg.vcpu == 3, "hdr_id_index_guest_entry", "entry 1 read wrong");
	n = pk_record_id_index_encode(e, 2, buf, sizeof(buf));
	t_check(!pk_record_id_index_entry(buf, (size_t)n, 0, &re, &rg) &&
		re.id == 7 && re.tid == 40 && !rg.machine_pid && !rg.vcpu &&
		pk_record_id_index_entry(buf, (size_t)n, 2, &re, &rg) == -EINVAL &&
		pk_record_id_index_entry(buf, 40, 0, &re, &rg) == -EINVAL,
		"hdr_id_index_plain_entry", "a plain entry read wrong");
	{
		static struct pk_id_index_entry many[PK_ID_INDEX_GUEST_MAX + 1];
		static struct pk_id_index_guest mg[PK_ID_INDEX_GUEST_MAX + 1];

		t_check(pk_record_id_index_guest_encode(many, mg,
				PK_ID_INDEX_GUEST_MAX, big, sizeof(big)) > 0 &&
			pk_record_id_index_guest_encode(many, mg,
				PK_ID_INDEX_GUEST_MAX + 1, big, sizeof(big)) == -ERANGE,
			"hdr_id_index_guest_max",
			"PK_ID_INDEX_GUEST_MAX is not the most a record holds");
	}
}

static void check_hdr_records(void)
{
	struct pk_id_index_entry e[2] = { { 7, 0, 0, 40 }, { 8, 1, -1, -1 } };
	int tids[2] = { 12, 15 };
	struct pk_thread_map *tm = pk_thread_map_new_array(2, tids);
	static unsigned char big[70000];
	unsigned char buf[256];

	check_cpu_map("hdr_cpu_map_range", "0-3", 0, 2, 16,
		      "PERF_RECORD_CPU_MAP: 0-3\n: unhandled!\n");
	check_cpu_map("hdr_cpu_map_any_range", "2-3", 1, 2, 16,
		      "PERF_RECORD_CPU_MAP: -1,2-3\n: unhandled!\n");
	check_cpu_map("hdr_cpu_map_any", NULL, 1, 0, 16,
		      "PERF_RECORD_CPU_MAP: -1\n: unhandled!\n");
	check_cpu_map("hdr_cpu_map_list", "0,5", 0, 0, 16,
		      "PERF_RECORD_CPU_MAP: 0,5\n: unhandled!\n");
	check_cpu_map("hdr_cpu_map_mask", "0,2,4,6,8,10,12,14,40", 0, 1, 24,
		      "PERF_RECORD_CPU_MAP: 0,2,4,6,8,10,12,14,40\n: unhandled!\n");
	hdr_text("hdr_thread_map", pk_record_thread_map_encode(tm, buf, sizeof(buf)),
		 buf, "PERF_RECORD_THREAD_MAP nr: 2 thread: 12, 15\n: unhandled!\n");
	hdr_text("hdr_id_index", pk_record_id_index_encode(e, 2, buf, sizeof(buf)),
		 buf, "PERF_RECORD_ID_INDEX nr: 2\n ... id: 7  idx: 0  cpu: 0  tid: 40\n"
		 " ... id: 8  idx: 1  cpu: -1  tid: -1\n");
	t_check(pk_record_id_index_encode(e, 2, buf, 40) == -ENOSPC &&
		pk_record_id_index_encode(NULL, 2, buf, sizeof(buf)) == -EINVAL &&
		pk_record_thread_map_encode(NULL, buf, sizeof(buf)) == -EINVAL &&
		pk_record_cpu_map_encode(NULL, buf, sizeof(buf)) == -EINVAL,
		"hdr_errors", "a bad input encoded");
	{
		static struct pk_id_index_entry many[PK_ID_INDEX_MAX + 1];

		t_check(pk_record_id_index_encode(many, PK_ID_INDEX_MAX, big,
						  sizeof(big)) > 0 &&
			pk_record_id_index_encode(many, PK_ID_INDEX_MAX + 1, big,
						  sizeof(big)) == -ERANGE,
			"hdr_id_index_max", "PK_ID_INDEX_MAX is not the most a record holds");
	}
	check_id_index_guest(e);
	pk_thread_map_put(tm);
}

/* PMU_MAPPINGS and PMU_CAPS as perf lays them out (u32 counts, perf's
 * 64-byte padded strings). */
static void check_pmu_features(const char *dir)
{
	const char *names[2] = { "cpu", "intel_pt" }, *cn[1] = { "mtc" },
		   *cv[1] = { "1" };
	uint32_t types[2] = { 4, 10 }, u[4];
	struct perf_event_header round = { .type = PK_RECORD_FINISHED_ROUND,
					   .size = 8 };
	PK_OPTS(pk_pdwriter_opts, o, .pipe = false);
	struct pk_pdwriter *w;
	struct pk_perfdata *pd;
	const unsigned char *p;
	char path[300];
	uint64_t size = 0;
	int ok = 0;

	snprintf(path, sizeof(path), "%s/pmu.data", dir);
	w = pk_pdwriter_open(path, &o);
	if (w && pk_pdwriter_add_attr(w, &attrs[0], ids[0], 2, "a") >= 0 &&
	    !pk_pdwriter_feat_pmu_mappings(w, 2, types, names) &&
	    !pk_pdwriter_feat_pmu_caps(w, NULL, 0, NULL, NULL) &&
	    !pk_pdwriter_feat_pmu_caps(w, "intel_pt", 1, cn, cv) &&
	    !pk_pdwriter_feat_cpu_pmu_caps(w, 1, cn, cv) &&
	    !pk_pdwriter_feat_compressed(w, 3, 0, 4096) &&
	    !pk_pdwriter_write(w, &round, NULL, 0))	/* a file with data */
		ok = !pk_pdwriter_close(w);
	pd = ok ? pk_perfdata_open(path, NULL) : NULL;
	ok = pd && !pk_perfdata_feat_raw(pd, PK_HEADER_PMU_MAPPINGS,
					 (const void **)&p, &size) &&
	     size == 4 + 2 * (4 + 4 + 64);
	if (ok) {
		memcpy(u, p, 12);
		ok = u[0] == 2 && u[1] == 4 && u[2] == 64 && !strcmp((const char *)p + 12, "cpu");
	}
	t_check(ok, "hdr_pmu_mappings", "layout");
	ok = pd && !pk_perfdata_feat_raw(pd, PK_HEADER_PMU_CAPS,
					 (const void **)&p, &size) &&
	     size == 4 + 4 + 3 * (4 + 64);
	if (ok) {
		memcpy(u, p, 12);
		ok = u[0] == 1 && u[1] == 1 && u[2] == 64 &&
		     !strcmp((const char *)p + 12, "mtc") &&
		     !strcmp((const char *)p + 12 + 68, "1") &&
		     !strcmp((const char *)p + 12 + 136, "intel_pt");
	}
	t_check(ok, "hdr_pmu_caps", "layout");
	/* CPU_PMU_CAPS: the count, the pairs, no PMU name */
	ok = pd && !pk_perfdata_feat_raw(pd, PK_HEADER_CPU_PMU_CAPS,
					 (const void **)&p, &size) &&
	     size == 4 + 2 * (4 + 64);
	if (ok) {
		memcpy(u, p, 8);
		ok = u[0] == 1 && u[1] == 64 && !strcmp((const char *)p + 8, "mtc") &&
		     !strcmp((const char *)p + 8 + 68, "1");
	}
	t_check(ok, "hdr_cpu_pmu_caps", "layout");
	/* COMPRESSED: version 0, zstd, level, ratio, mmap_len */
	ok = pd && !pk_perfdata_feat_raw(pd, PK_HEADER_COMPRESSED,
					 (const void **)&p, &size) && size == 20;
	if (ok) {
		uint32_t z[5];

		memcpy(z, p, 20);
		ok = !z[0] && z[1] == 1 && z[2] == 3 && !z[3] && z[4] == 4096;
	}
	t_check(ok, "hdr_compressed", "layout");
	pk_perfdata_free(pd);
}

int main(void)
{
	char dir[] = "/tmp/pk_perfdata.XXXXXX", file[256], pipe[256];

	if (!mkdtemp(dir))
		return 1;
	snprintf(file, sizeof(file), "%s/f.data", dir);
	snprintf(pipe, sizeof(pipe), "%s/p.data", dir);
	setup_attrs();
	build_records();
	t_check(write_file(file, false, true) == 0, "perfdata_write_file",
		"write");
	t_check(write_file(pipe, true, true) == 0, "perfdata_write_pipe",
		"write");
	check_read("perfdata_file_fileorder", file, true);
	check_read("perfdata_file_timeorder", file, false);
	check_read("perfdata_pipe_fileorder", pipe, true);
	check_read("perfdata_pipe_timeorder", pipe, false);
	check_features(file, false);
	check_features(pipe, true);
	check_crash(dir);
	check_damage(file, "perfdata_file");
	check_damage(pipe, "perfdata_pipe");
	check_errors();
	check_dir(dir);
	check_hdr_records();
	check_pmu_features(dir);
	/* zstd COMPRESSED records (one stream cut into records: records
	 * straddle them), file and pipe */
	compress = true;
	snprintf(file, sizeof(file), "%s/fz.data", dir);
	snprintf(pipe, sizeof(pipe), "%s/pz.data", dir);
	t_check(write_file(file, false, true) == 0, "perfdata_write_zstd",
		"write");
	t_check(write_file(pipe, true, true) == 0, "perfdata_write_zstd_pipe",
		"write");
	check_read("perfdata_zstd_fileorder", file, true);
	check_read("perfdata_zstd_timeorder", file, false);
	check_read("perfdata_zstd_pipe_fileorder", pipe, true);
	check_read("perfdata_zstd_pipe_timeorder", pipe, false);
	compress = false;
	/* the other byte order: the reader must give the same records */
	other_endian = true;
	snprintf(file, sizeof(file), "%s/fs.data", dir);
	snprintf(pipe, sizeof(pipe), "%s/ps.data", dir);
	t_check(write_file(file, false, true) == 0, "perfdata_write_swapped",
		"write");
	t_check(write_file(pipe, true, true) == 0,
		"perfdata_write_swapped_pipe", "write");
	{
		struct pk_perfdata *pd = pk_perfdata_open(file, NULL);
		struct pk_perfdata_info in;

		if (pd)
			pk_perfdata_info(pd, &in);
		t_check(pd && in.swapped, "perfdata_swapped_detected",
			"not seen as swapped");
		pk_perfdata_free(pd);
	}
	check_read("perfdata_swapped_fileorder", file, true);
	check_read("perfdata_swapped_timeorder", file, false);
	check_read("perfdata_swapped_pipe_fileorder", pipe, true);
	check_read("perfdata_swapped_pipe_timeorder", pipe, false);
	check_features(file, false);
	check_features(pipe, true);
	check_damage(file, "perfdata_swapped");
	for (unsigned i = 0; i < nrecs; i++)
		free(recs[i].bytes);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (!getenv("PK_KEEP") && system(cmd))
			return 1;
	}
	return t_exit();
}
