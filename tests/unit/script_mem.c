/* SPDX-License-Identifier: MIT */
/*
 * perf script's memory-sample fields (data_src, weight, ins_lat,
 * phys_addr, data/code page size): perf.data files written here with
 * data_src values covering every field of union perf_mem_data_src, printed
 * by `perf script` and `perfkit script`, compared line by line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfkit/perfdata.h>
#include "test.h"

/* Bit positions of union perf_mem_data_src's fields (little endian). */
enum { OP = 0, LVL = 5, SNOOP = 19, LOCK = 24, DTLB = 26, LVLNUM = 33,
       REMOTE = 37, SNOOPX = 38, BLK = 40, HOPS = 43 };

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static uint64_t f(uint64_t v, int shift) { return v << shift; }

/* The data_src of sample I: single fields first, then random mixes
 * (hops stays within the five levels perf names). */
static uint64_t data_src_of(unsigned i)
{
	static const struct { int shift, bits; } fl[] = {
		{ OP, 5 }, { LVL, 14 }, { SNOOP, 5 }, { LOCK, 2 }, { DTLB, 7 },
		{ REMOTE, 1 }, { SNOOPX, 2 }, { BLK, 3 },
	};
	unsigned k = 0;

	for (size_t j = 0; j < sizeof(fl) / sizeof(fl[0]); j++)
		for (int b = 0; b < fl[j].bits; b++, k++)
			if (i == k)
				return f(1, fl[j].shift + b);
	for (unsigned n = 1; n < 16; n++, k++)
		if (i == k)
			return f(n, LVLNUM) | f(2, LVL);
	for (unsigned n = 1; n < 5; n++, k++)
		if (i == k)
			return f(n, HOPS) | f(1, REMOTE) | f(0xd, LVLNUM);
	if (i == k)
		return 0;
	uint64_t v = rnd() & ((1ULL << 43) - 1);

	if (rnd() & 1)
		v |= f(rnd() % 5, HOPS);
	if (rnd() % 3 == 0)
		v &= ~f(0xf, LVLNUM);
	return v;
}

static const uint64_t page_sizes[] = {
	0, 1, 512, 1024, 2048, 4096, 8192, 65536, 1 << 20, 2 << 20,
	1ULL << 30, 1ULL << 40, 3000, 1ULL << 62,
};

/* Writes PATH: one event of TYPE/SAMPLE_TYPE with N samples. */
static int write_file(const char *path, uint32_t type, uint64_t st,
		      unsigned n)
{
	struct perf_event_attr a = {
		.type = type, .size = sizeof(a), .config = 0x1cd,
		.sample_period = 10009, .sample_type = st,
		.sample_id_all = 1, .disabled = 1,
	};
	struct pk_pdwriter *w = pk_pdwriter_open(path, NULL);
	uint64_t id = 7;
	unsigned char buf[512];
	int err = 0;

	if (!w)
		return -errno;
	if (pk_pdwriter_add_attr(w, &a, &id, 1, "mem-ev") < 0)
		err = -EINVAL;
	for (unsigned i = 0; i < n && !err; i++) {
		struct pk_sample s = { .sample_type = st };

		s.ip = 0xffffffff81000000ULL + i * 0x40;
		s.pid = s.tid = 100 + i % 3;
		s.time = 1000000000ULL + i * 1000;
		s.addr = 0x7f0000001000ULL + (rnd() & 0xffffff);
		s.cpu = i % 4;
		s.id = id;
		s.period = 10009;
		s.data_src = data_src_of(i);
		s.weight = (st & PERF_SAMPLE_WEIGHT_STRUCT) ?
			   (rnd() & 0xffff0000ffffffffULL) | (uint64_t)(i % 7) << 32 :
			   rnd() % 100000;
		s.phys_addr = rnd() & 0xfffffffff000ULL;
		s.data_page_size = page_sizes[i % 14];
		s.code_page_size = page_sizes[(i * 5 + 3) % 14];
		long len = pk_sample_encode(&a, &s, PERF_RECORD_MISC_KERNEL,
					    buf, sizeof(buf));
		if (len < 0 || pk_pdwriter_write(w, (void *)buf, NULL, 0))
			err = -EIO;
	}
	int cerr = pk_pdwriter_close(w);
	return err ? err : cerr;
}

/* Compares perf's and perfkit's output of `script ARGS -i PATH`. */
static void compare(const char *name, const char *path, const char *args)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "perf script %s -i %s 2>&1", args, path);
	char *want = t_popen_read(cmd, NULL);
	snprintf(cmd, sizeof(cmd), "%s script %s -i %s 2>&1",
		 t_build("perfkit"), args, path);
	char *got = t_popen_read(cmd, NULL);

	if (!want || !got) {
		t_fail(name, "cannot run perf or perfkit");
	} else {
		const char *a = want, *b = got;
		unsigned line = 1;

		while (*a && *a == *b) {
			line += *a == '\n';
			a++, b++;
		}
		if (*a || *b) {
			const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
			t_fail(name, "line %u differs:\n  perf:    %.*s\n  perfkit: %.*s",
			       line, (int)(ea ? ea - a : (long)strlen(a)), a,
			       (int)(eb ? eb - b : (long)strlen(b)), b);
		} else {
			t_check(strlen(want) > 20, name, "perf printed too little");
		}
	}
	free(want);
	free(got);
}

int main(void)
{
	char dir[] = "/tmp/pk-script-mem-XXXXXX", path[256];
	const uint64_t base = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			      PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC;
	static const struct {
		const char *name;
		uint32_t type;
		uint64_t extra;
		const char *args;
	} cases[] = {
		{ "mem_weight_struct", PERF_TYPE_RAW,
		  PERF_SAMPLE_WEIGHT_STRUCT, "" },
		{ "mem_weight", PERF_TYPE_RAW, PERF_SAMPLE_WEIGHT, "" },
		{ "mem_phys_pages", PERF_TYPE_RAW,
		  PERF_SAMPLE_WEIGHT | PERF_SAMPLE_PHYS_ADDR |
		  PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE, "" },
		{ "mem_sw_default", PERF_TYPE_SOFTWARE,
		  PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_PHYS_ADDR, "" },
		{ "mem_fields_sw", PERF_TYPE_SOFTWARE,
		  PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_PHYS_ADDR |
		  PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE,
		  "-F comm,tid,ip,addr,data_src,weight,ins_lat,phys_addr,data_page_size,code_page_size" },
		{ "mem_fields_add", PERF_TYPE_RAW, PERF_SAMPLE_WEIGHT,
		  "-F +phys_addr" },
		{ "mem_fields_missing", PERF_TYPE_RAW, 0,
		  "-F comm,data_src,weight" },
		{ "mem_fields_remove", PERF_TYPE_RAW,
		  PERF_SAMPLE_WEIGHT_STRUCT, "-F -data_src,-ins_lat" },
	};

	if (system("perf version >/dev/null 2>&1") != 0) {
		t_skip("script_mem", "perf is not installed");
		return t_exit();
	}
	if (!mkdtemp(dir)) {
		t_fail("script_mem", "mkdtemp: %s", strerror(errno));
		return t_exit();
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s.data", dir, cases[i].name);
		int err = write_file(path, cases[i].type,
				     base | cases[i].extra, 400);
		if (err) {
			t_fail(cases[i].name, "writing: %s", strerror(-err));
			continue;
		}
		compare(cases[i].name, path, cases[i].args);
		if (!getenv("KEEP")) unlink(path);
	}
	rmdir(dir);
	return t_exit();
}
