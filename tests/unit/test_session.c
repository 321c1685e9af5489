/* SPDX-License-Identifier: MIT */
/* Sessions: maps with overlaps, fork and exec, symbols of this very test
 * binary through its own mappings, kernel symbols from a kallsyms file
 * the test writes, and pk_session_run's tool callbacks on a perf.data the
 * project's writer makes. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>
#include "session/session.h"
#include "test.h"

static union {
	struct perf_event_header h;
	unsigned char b[4096];
} rec;

static void mk_comm(uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	uint32_t *u = (uint32_t *)(rec.b + 8);
	size_t n = strlen(comm) + 1;

	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_COMM;
	rec.h.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
	u[0] = pid;
	u[1] = tid;
	memcpy(u + 2, comm, n);
	rec.h.size = (uint16_t)((16 + n + 7) & ~7u);
}

static void mk_fork(uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid)
{
	uint32_t *u = (uint32_t *)(rec.b + 8);

	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_FORK;
	rec.h.size = 32;
	u[0] = pid; u[1] = ppid; u[2] = tid; u[3] = ptid;
}

static void mk_mmap2(uint32_t pid, uint64_t start, uint64_t len,
		     uint64_t pgoff, const char *name, uint16_t misc)
{
	t_mmap2(rec.b, sizeof(rec.b), pid, start, len, pgoff, name, misc);
}

static void test_maps(void)
{
	struct proc p = { 0 };
	struct dso a = { .name = "a" }, b = { .name = "b" };
	const struct map *m;

	pk__proc_insert(&p, &(struct map){ .start = 0x1000, .end = 0x5000, .dso = &a });
	pk__proc_insert(&p, &(struct map){ .start = 0x2000, .end = 0x3000, .pgoff = 0x10, .dso = &b });
	m = pk__proc_find(&p, 0x1800);
	T_CHECK("maps_head_kept", m && m->dso == &a && m->end == 0x2000);
	m = pk__proc_find(&p, 0x2800);
	T_CHECK("maps_new_inside", m && m->dso == &b);
	m = pk__proc_find(&p, 0x4000);
	T_CHECK("maps_tail_kept", m && m->dso == &a && m->start == 0x3000 && m->pgoff == 0x2000);
	pk__proc_insert(&p, &(struct map){ .start = 0x0, .end = 0x6000, .dso = &b });
	T_CHECK("maps_covering_replaces", p.nr == 1 && pk__proc_find(&p, 0x4000)->dso == &b);
	T_CHECK("maps_outside", pk__proc_find(&p, 0x7000) == NULL);
	free(p.maps);
}

static __attribute__((noinline)) int marker_function(int x)
{
	return x * 3 + 1;
}

/* Feeds this process's executable mappings as MMAP2 records. */
static void feed_self(struct pk_session *s, uint32_t pid)
{
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long st, en, off;
		char perm[8], path[512] = "";

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %511s", &st, &en, perm, &off, path) < 4)
			continue;
		if (perm[2] != 'x' || path[0] != '/')
			continue;
		mk_mmap2(pid, st, en - st, off, path, PERF_RECORD_MISC_USER);
		pk_session_process(s, &rec.h);
	}
	if (f)
		fclose(f);
}

static void test_self_symbols(void)
{
	PK_OPTS(pk_session_opts, o, .kallsyms = "");
	struct pk_session *s = pk_session_new(&o);
	struct pk_location loc;
	uint64_t addr = (uint64_t)(uintptr_t)marker_function + 4;

	mk_comm(100, 100, "tester", false);
	pk_session_process(s, &rec.h);
	feed_self(s, 100);
	t_check(pk_session_resolve(s, 100, addr, PERF_RECORD_MISC_USER, &loc) == 0 &&
		loc.sym && !strcmp(loc.sym, "marker_function") && loc.symoff == 4,
		"session_own_symbol", "sym %s+%llu dso %s", loc.sym ? loc.sym : "(none)",
		(unsigned long long)loc.symoff, loc.dso);
	T_CHECK("session_own_dso", strstr(loc.dso, "test_session") != NULL);
	addr = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "getpid");
	t_check(pk_session_resolve(s, 100, addr, PERF_RECORD_MISC_USER, &loc) == 0 &&
		strstr(loc.dso, "libc") && loc.sym, "session_libc_symbol",
		"dso %s sym %s", loc.dso, loc.sym ? loc.sym : "(none)");
	T_CHECK("session_comm", pk_session_comm(s, 100) && !strcmp(pk_session_comm(s, 100), "tester"));

	/* fork: the child process sees its parent's maps and name */
	mk_fork(200, 100, 200, 100);
	pk_session_process(s, &rec.h);
	addr = (uint64_t)(uintptr_t)marker_function;
	T_CHECK("session_fork_maps", pk_session_resolve(s, 200, addr, PERF_RECORD_MISC_USER, &loc) == 0 && loc.sym && !strcmp(loc.sym, "marker_function"));
	T_CHECK("session_fork_comm", pk_session_comm(s, 200) && !strcmp(pk_session_comm(s, 200), "tester"));
	/* exec: as perf, the old image's maps stay until new ones cover them */
	mk_comm(200, 200, "newprog", true);
	pk_session_process(s, &rec.h);
	T_CHECK("session_exec_keeps_maps", pk_session_resolve(s, 200, addr, PERF_RECORD_MISC_USER, &loc) == 0);
	T_CHECK("session_exec_comm", !strcmp(pk_session_comm(s, 200), "newprog"));
	T_CHECK("session_unknown_pid", pk_session_resolve(s, 999, addr, PERF_RECORD_MISC_USER, &loc) == -ENOENT);
	mk_comm(1, 1, "x", false);
	rec.h.size = 12; /* too short */
	T_CHECK("session_short_record", pk_session_process(s, &rec.h) == PK_ERR_TRUNC);
	pk_session_free(s);
	(void)marker_function(1);
}

static void test_kernel(void)
{
	char path[] = "/tmp/pkksymsXXXXXX";
	int fd = mkstemp(path);
	const char *text =
		"ffffffff81000000 T _text\n"
		"ffffffff81001000 T do_one\n"
		"ffffffff81001040 t helper_two\n"
		"ffffffff81002000 D some_data\n"
		"ffffffff81003000 T last_fn\n";
	PK_OPTS(pk_session_opts, o, .kallsyms = path);
	struct pk_session *s;
	struct pk_location loc;

	if (write(fd, text, strlen(text)) < 0)
		t_fail("session_kallsyms_write", "write");
	close(fd);
	s = pk_session_new(&o);
	/* no kernel map yet: perf resolves nothing */
	T_CHECK("session_kernel_needs_map",
		pk_session_resolve(s, 5, 0xffffffff81001044ull, PERF_RECORD_MISC_KERNEL, &loc) == -ENOENT &&
		!strcmp(loc.dso, "[unknown]") && !loc.sym);
	mk_mmap2(-1, 0xffffffff81000000ull, 0x10000000, 0xffffffff81000000ull,
		 "[kernel.kallsyms]_text", PERF_RECORD_MISC_KERNEL);
	pk_session_process(s, &rec.h);
	pk_session_resolve(s, 5, 0xffffffff81001044ull, PERF_RECORD_MISC_KERNEL, &loc);
	t_check(loc.kernel && loc.sym && !strcmp(loc.sym, "helper_two") && loc.symoff == 4 &&
		!strcmp(loc.dso, "[kernel.kallsyms]"), "session_kernel_symbol",
		"%s+%llu %s", loc.sym ? loc.sym : "-", (unsigned long long)loc.symoff, loc.dso);
	pk_session_resolve(s, 5, 0xffffffff81001010ull, PERF_RECORD_MISC_KERNEL, &loc);
	T_CHECK("session_kernel_symbol_2", loc.sym && !strcmp(loc.sym, "do_one"));
	pk_session_free(s);
	unlink(path);
}

/* ---- kernel code from a kcore ---- */

static int write_file(const char *dir, const char *name, const void *b,
		      size_t n)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	ok = fwrite(b, 1, n, f) == n;
	return fclose(f) || !ok ? -1 : 0;
}

/* An ELF64 core: PT_LOADs (code at 0xffffffff81000000 and 0xffffffffc0000000,
 * data without PF_X at 0xffffffff82000000), 4 KiB of bytes each. */
static size_t mk_kcore(unsigned char *b)
{
	static const uint64_t va[3] = { 0xffffffff81000000ull,
					0xffffffff82000000ull,
					0xffffffffc0000000ull };
	static const uint32_t fl[3] = { 5, 4, 5 };

	memset(b, 0, 0x4000);
	memcpy(b, "\177ELF\2\1\1", 7);
	b[16] = 4; b[18] = 62; b[20] = 1;	/* ET_CORE, x86-64, v1 */
	b[32] = 64;				/* e_phoff */
	b[54] = 56; b[56] = 3;			/* e_phentsize, e_phnum */
	for (int i = 0; i < 3; i++) {
		unsigned char *p = b + 64 + 56 * i;
		uint64_t off = 0x1000 * (uint64_t)(i + 1), sz = 0x1000;

		p[0] = 1;			/* PT_LOAD */
		memcpy(p + 4, &fl[i], 4);
		memcpy(p + 8, &off, 8);
		memcpy(p + 16, &va[i], 8);
		memcpy(p + 32, &sz, 8);
		memcpy(p + 40, &sz, 8);
		b[off] = (unsigned char)(0x90 + i);
	}
	return 0x4000;
}

struct segs { int n; uint64_t start[4], pgoff[4]; char file[512]; };

static int on_code(void *ctx, const struct pk_session_code *c)
{
	struct segs *g = ctx;

	if (g->n < 4) {
		g->start[g->n] = c->start;
		g->pgoff[g->n] = c->pgoff;
	}
	g->n++;
	snprintf(g->file, sizeof(g->file), "%s", c->file);
	return 0;
}

static void test_kcore(void)
{
	char dir[] = "/tmp/pkkcoreXXXXXX", ks[600], bad[600];
	const char *text =
		"ffffffff81000000 T _text\n"
		"ffffffff81000010 T kfunc_a\n"
		"ffffffff81000f00 T tail_fn\n"
		"ffffffff81800000 T beyond\n"
		"ffffffffc0000000 t mod_fn\t[pkmod]\n";
	static unsigned char core[0x4000];
	size_t n = mk_kcore(core);
	struct pk_session *s;
	struct pk_location loc;
	struct segs g = { 0 };

	if (!mkdtemp(dir) || write_file(dir, "kallsyms", text, strlen(text)) ||
	    write_file(dir, "kcore", core, n) ||
	    write_file(dir, "modules", "pkmod 4096 0 - Live 0xffffffffc0000000\n", 39)) {
		t_fail("session_kcore_files", "cannot write the files");
		return;
	}
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	{
		PK_OPTS(pk_session_opts, o, .kallsyms = ks);

		s = pk_session_new(&o);
	}
	/* no kernel map: nothing to read the kcore for */
	T_CHECK("session_kcore_needs_map",
		pk_session_for_each_kernel_code(s, on_code, &g) == -ENOENT);
	mk_mmap2(-1, 0xffffffff81000000ull, 0x10000000, 0xffffffff81000000ull,
		 "[kernel.kallsyms]_text", PERF_RECORD_MISC_KERNEL);
	pk_session_process(s, &rec.h);
	mk_mmap2(-1, 0xffffffffc0000000ull, 0x1000, 0, "/lib/modules/pkmod.ko",
		 PERF_RECORD_MISC_KERNEL);
	pk_session_process(s, &rec.h);
	t_check(pk_session_for_each_kernel_code(s, on_code, &g) == 0 &&
		g.n == 2 && g.start[0] == 0xffffffff81000000ull &&
		g.pgoff[0] == 0x1000 && g.start[1] == 0xffffffffc0000000ull &&
		g.pgoff[1] == 0x3000 && strstr(g.file, "/kcore"),
		"session_kcore_segments", "%d segments, %llx@%llx",
		g.n, (unsigned long long)g.start[0], (unsigned long long)g.pgoff[0]);
	/* the module's symbol is the kernel's now (its map replaced) */
	pk_session_resolve(s, 5, 0xffffffffc0000002ull, PERF_RECORD_MISC_KERNEL, &loc);
	T_CHECK("session_kcore_module_sym", loc.sym && !strcmp(loc.sym, "mod_fn") &&
		loc.symoff == 2 && !strcmp(loc.dso, "[kernel.kallsyms]"));
	/* a symbol ends with its segment; one in no segment is gone */
	T_CHECK("session_kcore_clip",
		pk_session_resolve(s, 5, 0xffffffff81001000ull, PERF_RECORD_MISC_KERNEL, &loc) == -ENOENT &&
		!loc.sym);
	pk_session_resolve(s, 5, 0xffffffff81000f10ull, PERF_RECORD_MISC_KERNEL, &loc);
	T_CHECK("session_kcore_sym", loc.sym && !strcmp(loc.sym, "tail_fn"));
	pk_session_free(s);
	T_CHECK("session_kcore_check_ok", pk_kcore_check(ks, bad, sizeof(bad)) == 0);
	/* a module elsewhere than modules says: no kcore (perf's check) */
	{
		PK_OPTS(pk_session_opts, o, .kallsyms = ks);

		s = pk_session_new(&o);
		mk_mmap2(-1, 0xffffffff81000000ull, 0x10000000, 0xffffffff81000000ull,
			 "[kernel.kallsyms]_text", PERF_RECORD_MISC_KERNEL);
		pk_session_process(s, &rec.h);
		mk_mmap2(-1, 0xffffffffc0001000ull, 0x1000, 0, "/lib/modules/pkmod.ko",
			 PERF_RECORD_MISC_KERNEL);
		pk_session_process(s, &rec.h);
		T_CHECK("session_kcore_module_moved",
			pk_session_for_each_kernel_code(s, on_code, &g) == -ENOENT);
		pk_session_free(s);
	}
	/* a kcore that is not an ELF file: said, no segments */
	write_file(dir, "kcore", "not ELF\n", 8);
	t_check(pk_kcore_check(ks, bad, sizeof(bad)) == PK_ERR_FORMAT &&
		strstr(bad, "/kcore"), "session_kcore_check_bad", "%s", bad);
	{
		PK_OPTS(pk_session_opts, o, .kallsyms = ks);

		s = pk_session_new(&o);
		mk_mmap2(-1, 0xffffffff81000000ull, 0x10000000, 0xffffffff81000000ull,
			 "[kernel.kallsyms]_text", PERF_RECORD_MISC_KERNEL);
		pk_session_process(s, &rec.h);
		T_CHECK("session_kcore_bad_none",
			pk_session_for_each_kernel_code(s, on_code, &g) == -ENOENT);
		pk_session_resolve(s, 5, 0xffffffff81000011ull, PERF_RECORD_MISC_KERNEL, &loc);
		T_CHECK("session_kcore_bad_syms", loc.sym && !strcmp(loc.sym, "kfunc_a"));
		pk_session_free(s);
	}
	snprintf(bad, sizeof(bad), "rm -rf '%s'", dir);
	if (system(bad))
		t_fail("session_kcore_cleanup", dir);
}

/* ---- pk_session_run ---- */

enum { ST = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	    PERF_SAMPLE_ID | PERF_SAMPLE_CALLCHAIN };

static struct perf_event_attr run_attr[3];

/* One sample of attr A (read values V of N members when given), cut to
 * CUT bytes with a callchain claiming 1000 entries when CUT is set. */
static int put_sample(struct pk_pdwriter *w, int a, uint32_t tid, uint64_t ip,
		      const uint64_t *chain, uint64_t nr, const uint64_t *v,
		      uint64_t n, uint16_t cut)
{
	struct pk_sample sm = { .pid = tid, .tid = tid, .ip = ip, .time = 1,
				.id = 10 * (uint64_t)(a + 1) };
	long len;

	sm.callchain.nr = nr;
	sm.callchain.ips = chain;
	sm.read.nr = n;
	sm.read.values = v;
	len = pk_sample_encode(&run_attr[a], &sm, PERF_RECORD_MISC_USER,
			       rec.b, sizeof(rec.b));
	if (cut) {
		*(uint64_t *)(rec.b + 40) = 1000;
		rec.h.size = cut;
	}
	return len < 0 ? (int)len : pk_pdwriter_write(w, &rec.h, NULL, 0);
}

/* The file: COMM, a sample before and after an MMAP2, an unnamed
 * thread's, two :S group samples, a cut sample. */
static int write_run_file(const char *path)
{
	static const uint64_t chain[] = { PERF_CONTEXT_USER, 0x400100, 0x400200 };
	static const uint64_t g1[] = { 5, 20, 7, 30 }, g2[] = { 5, 20, 9, 30 };
	uint64_t ids[3] = { 10, 20, 30 };
	struct pk_pdwriter *w = pk_pdwriter_open(path, NULL);
	int err = 0;

	for (int i = 0; i < 3; i++) {
		run_attr[i].size = sizeof(run_attr[i]);
		run_attr[i].type = PERF_TYPE_SOFTWARE;
		run_attr[i].sample_type = i ? (ST & ~PERF_SAMPLE_CALLCHAIN) |
					  PERF_SAMPLE_READ : ST;
		run_attr[i].read_format = i ? PERF_FORMAT_GROUP | PERF_FORMAT_ID : 0;
		if (!w || pk_pdwriter_add_attr(w, &run_attr[i], &ids[i], 1,
					       i ? "member" : "clock") != i)
			return -EINVAL;
	}
	mk_comm(100, 100, "worker", true);
	err = pk_pdwriter_write(w, &rec.h, NULL, 0);
	if (!err)
		err = put_sample(w, 0, 100, 0x400100, chain, 3, NULL, 0, 0);
	mk_mmap2(100, 0x400000, 0x1000, 0, "/nonexistent/prog", 0);
	if (!err)
		err = pk_pdwriter_write(w, &rec.h, NULL, 0);
	if (!err)
		err = put_sample(w, 0, 100, 0x400100, chain, 3, NULL, 0, 0);
	if (!err)
		err = put_sample(w, 0, 101, 0x400200, chain, 3, NULL, 0, 0);
	if (!err)
		err = put_sample(w, 1, 100, 0x400100, NULL, 0, g1, 2, 0);
	if (!err)
		err = put_sample(w, 1, 100, 0x400100, NULL, 0, g2, 2, 0);
	if (!err)
		err = put_sample(w, 0, 100, 0x400100, chain, 3, NULL, 0, 64);
	return pk_pdwriter_close(w) ? -EIO : err;
}

struct seen {
	int records, samples, bad, stop_at;
	char dso[2][64];          /* -D's dso of the first two samples */
	char comm[3][16];         /* the first three samples' threads */
	int attr[8];
	uint64_t period[8];
	int frames;
	struct pk_frame f[4];
	char loc_dso[64];
};

static int on_record(void *ctx, struct pk_session *s, const struct pk_record *r)
{
	struct seen *v = ctx;

	(void)s, (void)r;
	return ++v->records == v->stop_at ? 42 : 0;
}

static int on_sample(void *ctx, struct pk_session *s,
		     const struct pk_session_sample *ss)
{
	struct seen *v = ctx;
	int i = v->samples++;
	struct pk_location loc;

	if (i < 2)
		snprintf(v->dso[i], sizeof(v->dso[i]), "%s",
			 pk_session_dso_name(s, ss->sample->pid, ss->rec->misc,
					     ss->sample->ip));
	if (i < 3)
		snprintf(v->comm[i], sizeof(v->comm[i]), "%s",
			 ss->comm ? ss->comm : "(null)");
	if (i < 8) {
		v->attr[i] = ss->attr;
		v->period[i] = ss->sample->period;
	}
	if (i == 1) {
		v->frames = pk_session_callchain(ss->sample, 4, v->f);
		pk_session_resolve(s, ss->sample->pid, v->f[0].ip,
				   v->f[0].cpumode, &loc);
		snprintf(v->loc_dso, sizeof(v->loc_dso), "%s", loc.dso);
	}
	return 0;
}

static void on_bad(void *ctx, struct pk_session *s, const struct pk_record *r,
		   int err)
{
	struct seen *v = ctx;

	(void)s, (void)r;
	v->bad += err == PK_ERR_TRUNC || err == PK_ERR_FORMAT;
}

static int run_file(const char *path, struct seen *v)
{
	PK_OPTS(pk_tool, tool, .record = on_record, .sample = on_sample,
		.bad_record = on_bad);
	PK_OPTS(pk_session_opts, so, .kallsyms = "", .buildid_dir = "");
	struct pk_perfdata *pd = pk_perfdata_open(path, NULL);
	struct pk_session *s = pk_session_new(&so);
	int err = pd && s ? pk_session_run(s, pd, &tool, v) : -ENOMEM;

	pk_session_free(s);
	pk_perfdata_free(pd);
	return err;
}

static void test_run(void)
{
	char path[] = "/tmp/pk-session-XXXXXX";
	int fd = mkstemp(path), err;
	struct seen v = { 0 }, stop = { .stop_at = 3 };
	static const uint64_t bad[] = { 0x1, PERF_CONTEXT_KERNEL, 0x2,
					PERF_CONTEXT_GUEST, 0x3 };
	struct pk_sample sm = { .callchain = { 5, bad } };
	struct pk_frame f[5];

	if (fd < 0 || write_run_file(path)) {
		t_fail("run_file", "cannot write %s", path);
		if (fd >= 0)
			unlink(path);
		return;
	}
	close(fd);
	err = run_file(path, &v);
	T_CHECK("run_returns_0_at_end", err == 0);
	T_CHECK("run_record_cb_every_record", v.records == 8);
	/* a group of 2 read twice: 2 + 1 (the leader did not grow) */
	T_CHECK("run_sample_cb", v.samples == 6);
	T_CHECK("run_bad_record_cb", v.bad == 1);
	T_CHECK("run_comm", !strcmp(v.comm[0], "worker") &&
		!strcmp(v.comm[1], "worker") && !strcmp(v.comm[2], "(null)"));
	T_CHECK("run_dso_name_before_mmap", !strcmp(v.dso[0], "<not found>"));
	T_CHECK("run_dso_name_after_mmap", !strcmp(v.dso[1], "/nonexistent/prog"));
	T_CHECK("run_callchain_frames", v.frames == 2 && v.f[0].ip == 0x400100 &&
		v.f[1].cpumode == PERF_RECORD_MISC_USER);
	T_CHECK("run_resolved_dso", !strcmp(v.loc_dso, "/nonexistent/prog"));
	T_CHECK("run_read_group_split", v.attr[3] == 1 && v.period[3] == 5 &&
		v.attr[4] == 2 && v.period[4] == 7);
	T_CHECK("run_read_group_delta", v.attr[5] == 2 && v.period[5] == 2);
	T_CHECK("run_plain_period_attr", v.attr[0] == 0 && v.attr[2] == 0);
	err = run_file(path, &stop);
	T_CHECK("run_callback_stops", err == 42 && stop.records == 3 &&
		stop.samples == 1);
	unlink(path);
	T_CHECK("callchain_max", pk_session_callchain(&sm, 2, f) == 2 &&
		f[1].cpumode == PERF_RECORD_MISC_KERNEL);
	/* a guest's sample: its frames in the guest (perf's machine) */
	T_CHECK("callchain_in_guest",
		pk_session_callchain_in(&sm, PERF_RECORD_MISC_GUEST_KERNEL,
					2, f) == 2 &&
		f[0].cpumode == PERF_RECORD_MISC_GUEST_USER &&
		f[1].cpumode == PERF_RECORD_MISC_GUEST_KERNEL);
	T_CHECK("callchain_in_host",
		pk_session_callchain_in(&sm, PERF_RECORD_MISC_KERNEL, 2, f) == 2 &&
		f[0].cpumode == PERF_RECORD_MISC_USER &&
		f[1].cpumode == PERF_RECORD_MISC_KERNEL);
	T_CHECK("callchain_in_bad_marker",
		pk_session_callchain_in(&sm, PERF_RECORD_MISC_GUEST_USER, 5,
					f) == PK_ERR_FORMAT);
	T_CHECK("callchain_bad_marker",
		pk_session_callchain(&sm, 5, f) == PK_ERR_FORMAT);
	T_CHECK("run_bad_tool", pk_session_run((struct pk_session *)&v, NULL,
					       NULL, NULL) == -EINVAL);
}

int main(void)
{
	test_maps();
	test_run();
	test_self_symbols();
	test_kernel();
	test_kcore();
	return t_exit();
}
