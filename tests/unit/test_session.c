/* SPDX-License-Identifier: MIT */
/* Sessions: maps with overlaps, fork and exec, symbols of this very test
 * binary through its own mappings, and kernel symbols from a kallsyms file
 * the test writes. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
	size_t n = strlen(name) + 1;

	memset(&rec, 0, sizeof(rec));
	rec.h.type = PERF_RECORD_MMAP2;
	rec.h.misc = misc;
	memcpy(rec.b + 8, &pid, 4);
	memcpy(rec.b + 12, &pid, 4);
	memcpy(rec.b + 16, &start, 8);
	memcpy(rec.b + 24, &len, 8);
	memcpy(rec.b + 32, &pgoff, 8);
	memcpy(rec.b + 72, name, n);
	rec.h.size = (uint16_t)((72 + n + 7) & ~7u);
}

static void test_maps(void)
{
	struct proc p = { 0 };
	struct dso a = { .name = "a" }, b = { .name = "b" };
	const struct map *m;

	pk__proc_insert(&p, &(struct map){ 0x1000, 0x5000, 0, &a, false });
	pk__proc_insert(&p, &(struct map){ 0x2000, 0x3000, 0x10, &b, false });
	m = pk__proc_find(&p, 0x1800);
	T_CHECK("maps_head_kept", m && m->dso == &a && m->end == 0x2000);
	m = pk__proc_find(&p, 0x2800);
	T_CHECK("maps_new_inside", m && m->dso == &b);
	m = pk__proc_find(&p, 0x4000);
	T_CHECK("maps_tail_kept", m && m->dso == &a && m->start == 0x3000 && m->pgoff == 0x2000);
	pk__proc_insert(&p, &(struct map){ 0x0, 0x6000, 0, &b, false });
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

int main(void)
{
	test_maps();
	test_self_symbols();
	test_kernel();
	return t_exit();
}
