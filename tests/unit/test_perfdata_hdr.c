/* SPDX-License-Identifier: MIT */
/*
 * What perf record writes beside the records and perfkit writes as it
 * does: EVENT_UPDATE records (encoder -> pk_record_describe), TIME_CONV
 * (encoder -> parser and describe, the control page's read), the CACHE
 * and MEM_TOPOLOGY features from a made-up sysfs tree (writer -> perf's
 * -I text from the reader), and the pipe layout of
 * pk_pdwriter_write_features (features ahead of the records, unpadded,
 * a HEADER_LAST_FEATURE record, then TRACING_DATA; nothing at the end).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include <perfkit/map.h>
#include "test.h"

static void update_text(const char *name, const struct pk_event_update *u,
			long size, const char *want)
{
	unsigned char buf[256];
	struct pk_record r = { .hdr = (const void *)buf };
	char text[512] = "";
	long n = pk_record_event_update_encode(u, buf, sizeof(buf));

	if (n > 0) {
		r.type = ((const struct perf_event_header *)buf)->type;
		r.size = ((const struct perf_event_header *)buf)->size;
		pk_record_describe(NULL, &r, text, sizeof(text));
	}
	t_check(n == size && r.size == n && !strcmp(text, want), name,
		"size %ld: %s", n, text);
}

static void check_event_update(void)
{
	struct pk_cpu_map *m = pk_cpu_map_new("0-3");
	struct pk_event_update u = { .type = PK_EVENT_UPDATE_UNIT, .id = 7,
				     .str = "msec" };
	unsigned char buf[64];

	/* perf 6.1's sizes: 40 bytes + the string, 8-aligned; 48 a scale */
	update_text("event_update_unit", &u, 48,
		"PERF_RECORD_EVENT_UPDATE\n... id:    7\n... unit:  msec\n");
	u.type = PK_EVENT_UPDATE_SCALE;
	u.scale = 1e-6;
	update_text("event_update_scale", &u, 48,
		"PERF_RECORD_EVENT_UPDATE\n... id:    7\n... scale: 0.000001\n");
	u.type = PK_EVENT_UPDATE_NAME;
	u.str = "cpu-clock";
	update_text("event_update_name", &u, 56,
		"PERF_RECORD_EVENT_UPDATE\n... id:    7\n... name:  cpu-clock\n");
	u.type = PK_EVENT_UPDATE_CPUS;
	u.cpus = m;
	update_text("event_update_cpus", &u, 32,
		"PERF_RECORD_EVENT_UPDATE\n... id:    7\n... 0-3\n");
	u.type = 9;
	t_check(pk_record_event_update_encode(&u, buf, sizeof(buf)) == -EINVAL &&
		pk_record_event_update_encode(NULL, buf, sizeof(buf)) == -EINVAL,
		"event_update_bad", "a bad update encoded");
	u.type = PK_EVENT_UPDATE_NAME;
	t_check(pk_record_event_update_encode(&u, buf, 40) == -ENOSPC,
		"event_update_nospc", "no room, yet encoded");
	pk_cpu_map_put(m);
}

static void check_time_conv(void)
{
	struct pk_time_conv tc = { .time_shift = 10, .time_mult = 10240,
				   .time_zero = 123456789, .time_mask = 0xff,
				   .cap_user_time_zero = true }, back;
	struct perf_event_mmap_page pg = { .time_shift = 10, .time_mult = 341,
					   .time_zero = 77 };
	unsigned char buf[64];
	struct pk_record r = { .hdr = (const void *)buf };
	char text[512] = "";
	long n = pk_record_time_conv_encode(&tc, buf, sizeof(buf));

	r.type = PK_RECORD_TIME_CONV;
	r.size = (uint32_t)n;
	if (n > 0)
		pk_record_describe(NULL, &r, text, sizeof(text));
	/* perf 6.1's record: 56 bytes, its -D text */
	t_check(n == 56 && !strcmp(text, "PERF_RECORD_TIME_CONV\n... Time Shift"
		"      10\n... Time Muliplier  10240\n... Time Zero       "
		"123456789\n... Time Cycles     0\n... Time Mask       0xff\n"
		"... Cap Time Zero   1\n... Cap Time Short  0\n: unhandled!\n"),
		"time_conv_encode", "size %ld: %s", n, text);
	t_check(!pk_record_time_conv_parse((const void *)buf, &back) &&
		!memcmp(&back, &tc, offsetof(struct pk_time_conv, cap_user_time_zero)) &&
		back.cap_user_time_zero && !back.cap_user_time_short,
		"time_conv_parse", "not read back");
	((struct perf_event_header *)buf)->size = 32;  /* an older perf's */
	t_check(!pk_record_time_conv_parse((const void *)buf, &back) &&
		back.time_zero == 123456789 && !back.time_mask &&
		!back.cap_user_time_zero, "time_conv_parse_old", "not read");
	((struct perf_event_header *)buf)->size = 24;
	t_check(pk_record_time_conv_parse((const void *)buf, &back) == -EBADMSG &&
		pk_record_time_conv_encode(&tc, buf, 55) == -ENOSPC,
		"time_conv_short", "a short record or buffer taken");
	t_check(pk_time_conv_read(&pg, &back) == -EOPNOTSUPP &&
		back.time_mult == 341, "time_conv_page_nocap",
		"a page without cap_user_time_zero converts");
	pg.cap_user_time_zero = 1;
	t_check(!pk_time_conv_read(&pg, &back) && back.time_zero == 77 &&
		back.time_shift == 10 && back.cap_user_time_zero,
		"time_conv_page", "not read");
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[512], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(path, 0755);
		*s = '/';
	}
	if (!text) {
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void cache_index(const char *sys, long cpu, int idx, const char *level,
			const char *type, const char *size, const char *map)
{
	char rel[256];

#define F(name, v) snprintf(rel, sizeof(rel), \
		"devices/system/cpu/cpu%ld/cache/index%d/" name, cpu, idx); \
	put(sys, rel, v)
	F("level", level);
	F("coherency_line_size", "64\n");
	F("number_of_sets", "64\n");
	F("ways_of_associativity", "8\n");
	F("type", type);
	F("size", size);
	F("shared_cpu_list", map);
#undef F
}

/* Every configured CPU: its own L1 data and instruction and L2 caches,
 * one L3 for all (written by each); perf's order is L1s by CPU, then the
 * L2s, then the L3 once. */
static char *fake_caches(const char *sys)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	size_t cap = 256 + (size_t)n * 200, len;
	char *want = malloc(cap), all[32], own[32];

	snprintf(all, sizeof(all), "0-%ld\n", n - 1);
	for (long c = 0; c < n; c++) {
		snprintf(own, sizeof(own), "%ld\n", c);
		cache_index(sys, c, 0, "1\n", "Data\n", "32K\n", own);
		cache_index(sys, c, 1, "1\n", " Instruction \n", "32K\n", own);
		cache_index(sys, c, 2, "2\n", "Unified\n", "1024K\n", own);
		cache_index(sys, c, 3, "3\n", "Unified\n", "32768K\n", n > 1 ? all : "0\n");
	}
	if (!want)
		return NULL;
	len = (size_t)snprintf(want, cap, "# CPU cache info:\n");
	for (long c = 0; c < n; c++)
		len += (size_t)snprintf(want + len, cap - len,
			"#  L1 Data                 32K [%ld]\n"
			"#  L1 Instruction          32K [%ld]\n", c, c);
	for (long c = 0; c < n; c++)
		len += (size_t)snprintf(want + len, cap - len,
			"#  L2 Unified            1024K [%ld]\n", c);
	all[strlen(all) - 1] = 0;
	snprintf(want + len, cap - len, "#  L3 Unified           32768K [%s]\n",
		 n > 1 ? all : "0");
	return want;
}

static void fake_memory(const char *sys)
{
	static const char *const blocks[] = {
		"node/node1/memory6", "node/node1/memory3", "node/node0/memory1",
		"node/node0/memory0", "node/node1/memory5", "node/node0/memory2",
	};
	char rel[128];

	put(sys, "devices/system/memory/block_size_bytes", "8000000\n");
	for (size_t i = 0; i < sizeof(blocks) / sizeof(*blocks); i++) {
		snprintf(rel, sizeof(rel), "devices/system/%s", blocks[i]);
		put(sys, rel, NULL);
	}
	/* not blocks */
	put(sys, "devices/system/node/node0/memory_failure", NULL);
	put(sys, "devices/system/node/node0/cpu0", NULL);
	put(sys, "devices/system/node/possible", "0-1\n");
}

/* A file with the features from SYS; DESC gets FEAT's -I text. */
static int caches_file(const char *path, const char *sys, int feat,
		       char *desc, size_t len)
{
	PK_OPTS(pk_pdwriter_opts, o, .pipe = false);
	struct pk_pdwriter *w = pk_pdwriter_open(path, &o);
	struct perf_event_attr a = { .type = 1, .size = sizeof(a) };
	struct perf_event_header round = { .type = PK_RECORD_FINISHED_ROUND,
					   .size = 8 };
	uint64_t id = 1;
	struct pk_perfdata *pd;
	int r;

	if (!w)
		return -errno;
	pk_pdwriter_add_attr(w, &a, &id, 1, "cpu-clock");
	r = pk_pdwriter_feat_caches(w, sys);
	/* a record: a file without any reads as a writer that died */
	if (!r)
		r = pk_pdwriter_write(w, &round, NULL, 0);
	if (pk_pdwriter_close(w) || r)
		return r ? r : -EIO;
	pd = pk_perfdata_open(path, NULL);
	if (!pd)
		return -errno;
	desc[0] = 0;
	r = pk_perfdata_feat_describe_full(pd, feat, desc, len);
	pk_perfdata_free(pd);
	return r;
}

static void check_caches(const char *dir)
{
	char sys[300], path[300], desc[65536], *want;
	int r;

	snprintf(sys, sizeof(sys), "%s/sys", dir);
	snprintf(path, sizeof(path), "%s/caches.data", dir);
	mkdir(sys, 0755);
	/* no cache directories: version 1, no caches; no memory files: no
	 * MEM_TOPOLOGY (perf's write fails and drops it) */
	r = caches_file(path, sys, PK_HEADER_CACHE, desc, sizeof(desc));
	t_check(r >= 0 && !strcmp(desc, "# CPU cache info:\n"),
		"caches_none", "%d: %s", r, desc);
	r = caches_file(path, sys, PK_HEADER_MEM_TOPOLOGY, desc, sizeof(desc));
	t_check(r == -ENOENT, "mem_topology_absent", "%d: %s", r, desc);
	want = fake_caches(sys);
	fake_memory(sys);
	r = caches_file(path, sys, PK_HEADER_CACHE, desc, sizeof(desc));
	t_check(want && r >= 0 && !strcmp(desc, want), "caches_perf_order",
		"%d:\n%s", r, desc);
	r = caches_file(path, sys, PK_HEADER_MEM_TOPOLOGY, desc, sizeof(desc));
	t_check(r >= 0 && !strcmp(desc,
		"# memory nodes (nr 2, block size 0x8000000):\n"
		"#    0 [384M]: 0-2\n#    1 [384M]: 3,5-6\n"),
		"mem_topology_nodes", "%d:\n%s", r, desc);
	free(want);
	t_check(pk_pdwriter_feat_caches(NULL, sys) == -EINVAL, "caches_null",
		"a NULL writer accepted");
}

/* The bytes of a pipe file. */
static unsigned char *slurp(const char *path, size_t *len)
{
	static unsigned char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

	if (fd >= 0)
		close(fd);
	*len = n > 0 ? (size_t)n : 0;
	return buf;
}

static void check_pipe_layout(const char *dir)
{
	PK_OPTS(pk_pdwriter_opts, o, .pipe = true);
	struct perf_event_attr a = { .type = 1, .size = sizeof(a) };
	struct perf_event_header round = { .type = PK_RECORD_FINISHED_ROUND,
					   .size = 8 };
	uint64_t id = 5, st[2] = { 1, 2 }, cache[1] = { 1 };
	struct pk_build_id b = { .misc = 2, .pid = -1, .id_size = 20,
				 .filename = "/x" };
	char path[300], got[512] = "", *g = got;
	struct pk_pdwriter *w, *fw;
	struct pk_perfdata *pd;
	struct pk_record rec;
	const char *host;
	unsigned char *p;
	size_t len, at = 16;
	int r, e2, e3, nrec = 0;

	snprintf(path, sizeof(path), "%s/pipe.data", dir);
	w = pk_pdwriter_open(path, &o);
	if (!w) {
		t_check(0, "pipe_layout", "open: %s", strerror(errno));
		return;
	}
	pk_pdwriter_add_attr(w, &a, &id, 1, "cpu-clock");
	pk_pdwriter_feat_str(w, PK_HEADER_HOSTNAME, "host");
	pk_pdwriter_feat_raw(w, PK_HEADER_TRACING_DATA, "abcde", 5);
	pk_pdwriter_feat_raw(w, PK_HEADER_CACHE, cache, 8);
	pk_pdwriter_add_build_id(w, &b);
	r = pk_pdwriter_write_features(w);
	e2 = pk_pdwriter_write_features(w);
	if (!r)
		r = pk_pdwriter_write(w, &round, NULL, 0);
	pk_pdwriter_feat_u64(w, PK_HEADER_SAMPLE_TIME, st, 2); /* too late */
	if (pk_pdwriter_close(w) && !r)
		r = -EIO;
	o.pipe = false;
	snprintf(path + strlen(path), 10, ".f");
	fw = pk_pdwriter_open(path, &o);
	e3 = pk_pdwriter_write_features(fw);
	pk_pdwriter_close(fw);
	path[strlen(path) - 2] = 0;
	t_check(!r && e2 == -EINVAL && e3 == -EINVAL, "pipe_features_calls",
		"%d %d %d", r, e2, e3);
	/* the records as "type[:feature]/size" */
	p = slurp(path, &len);
	while (at + 8 <= len && g < got + sizeof(got) - 40) {
		struct perf_event_header h;
		uint64_t f = 0;
		uint32_t extra = 0;

		memcpy(&h, p + at, 8);
		if (h.size < 8)
			break;
		if (h.type == PK_RECORD_HEADER_FEATURE && at + 16 <= len)
			memcpy(&f, p + at + 8, 8);
		if (h.type == PK_RECORD_TRACING_DATA && at + 12 <= len)
			memcpy(&extra, p + at + 8, 4);
		g += sprintf(g, f ? "%u:%u/%u " : "%u/%u ", h.type,
			     f ? (unsigned)f : h.size, h.size);
		if (f)	/* the %u/%u above printed the id; add the size */
			g[-1] = ' ';
		at += h.size + extra;
	}
	/* ATTR; HOSTNAME 16+68 unpadded, EVENT_DESC, the end marker (no
	 * CACHE, BUILD_ID); TRACING_DATA with 8 bytes; the record; no
	 * SAMPLE_TIME */
	t_check(at == len && !strcmp(got,
		"64/144 80:3/84 80:12/232 80:32/16 66/16 68/8 "),
		"pipe_features_first", "%s (%zu of %zu)", got, at, len);
	pd = pk_perfdata_open(path, NULL);
	while (pd && pk_perfdata_next(pd, &rec) == 0)
		nrec += rec.type == PK_RECORD_FINISHED_ROUND;
	host = pd ? pk_perfdata_feat_str(pd, PK_HEADER_HOSTNAME) : NULL;
	t_check(pd && nrec == 1 && host && !strcmp(host, "host") &&
		!pk_perfdata_has_feat(pd, PK_HEADER_SAMPLE_TIME),
		"pipe_features_read", "reader: %s", host ? host : "no hostname");
	pk_perfdata_free(pd);
}

int main(void)
{
	char dir[] = "/tmp/pk_pdhdr.XXXXXX", cmd[300];

	if (!mkdtemp(dir))
		return 1;
	check_event_update();
	check_time_conv();
	check_caches(dir);
	check_pipe_layout(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (!getenv("PK_KEEP") && system(cmd))
		return 1;
	return t_exit();
}
