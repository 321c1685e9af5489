/* SPDX-License-Identifier: MIT */
/*
 * trace.dat files whose ring-buffer pages are not the system's page size
 * (buffer_subbuf_size_kb 8, 16: the header's page size and each v7
 * BUFFER option's), the trace clocks trace-cmd 3.1 prints in raw
 * nanoseconds (boot) or seconds.microseconds (tai, mono, ...), and the
 * TGIDs (saved_tgids) perfkit stores in an option of its own. Each file
 * is built here with the writer and the ring-buffer page encoder and read
 * by perfkit's report and by trace-cmd report 3.1 (where installed): the
 * two must be equal byte for byte. This VM refuses writes to
 * buffer_subbuf_size_kb, so such pages can only be made this way.
 */
/* pk-test: check */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "base/base.h"
#include "tracedat/rbpage.h"
#include "test.h"
#include "ftfmt.h"

T_LSAN_LIBTRACEEVENT

#define NR_EV 700      /* 48-byte records: several 8 and 16 KiB pages */

/* A temporary file of CPU's pages of PS bytes: NR_EV wakeups, 1.5 us
 * apart, from BASE ns on. The fd, or -1. */
static int make_cpu(int cpu, size_t ps, uint64_t base)
{
	char path[] = "/tmp/pkfiles.XXXXXX";
	int fd = mkstemp(path);
	uint8_t *page = malloc(ps);
	struct pk_rb_layout l;
	struct pk_rb_enc e;
	uint64_t t = base;

	if (fd < 0 || !page) {
		free(page);
		return fd < 0 ? -1 : (close(fd), -1);
	}
	unlink(path);
	pk__rb_layout_default(&l, 8, false);
	pk__rb_enc_init(&e, page, ps, &l, t);
	for (int i = 0; i < NR_EV; i++) {
		struct wk w = { .type = 316, .pid = 100 + i % 7,
				.wpid = 1000 + i, .prio = 120,
				.target_cpu = cpu };
		snprintf(w.comm, sizeof(w.comm), "task%d", i % 13);
		t += 1500;
		if (!pk__rb_enc_event(&e, t, &w, sizeof(w), false))
			continue;
		pk__rb_enc_finish(&e, 0);
		if (write(fd, page, ps) != (ssize_t)ps)
			goto fail;
		pk__rb_enc_init(&e, page, ps, &l, t);
		pk__rb_enc_event(&e, t, &w, sizeof(w), false);
	}
	pk__rb_enc_finish(&e, 0);
	if (write(fd, page, ps) != (ssize_t)ps)
		goto fail;
	free(page);
	return fd;
fail:
	free(page);
	close(fd);
	return -1;
}

struct spec {
	int top_ps;             /* the header's and the top buffer's */
	int inst_ps;            /* an instance buffer's (0: none) */
	const char *clock;
	const char *tgids;      /* saved_tgids stored (NULL: none) */
};

static int add_buffer(struct pk_tdwriter *w, const char *name, int ps,
		      const char *clock, uint64_t base)
{
	int ids[2] = { 0, 1 };
	int fds[2] = { make_cpu(0, (size_t)ps, base),
		       make_cpu(1, (size_t)ps, base + 700) };
	int r = fds[0] < 0 || fds[1] < 0 ? -1
		: pk_tdwriter_add_buffer(w, name, clock, 2, ids, fds);

	if (!r)
		r = pk_tdwriter_buffer_page_size(w, ps);
	/* the writer reads the fds at close: they stay open till then */
	return r ? r : (fds[0] << 16 | fds[1]);
}

static int write_file(const char *path, const struct spec *s)
{
	static const char cmdlines[] = "100 sh\n101 bash\n";
	PK_OPTS(pk_tdwriter_opts, o, .page_size = s->top_ps, .long_size = 8);
	struct pk_tdwriter *w = pk_tdwriter_open(path, &o);
	char hdr[512], clk[64];
	int f1, f2 = 0, r;

	if (!w)
		return -1;
	snprintf(hdr, sizeof(hdr),
		 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		 "\tfield: char data;\toffset:16;\tsize:%d;\tsigned:0;\n",
		 s->top_ps - 16);
	snprintf(clk, sizeof(clk), "local global [%s]\n", s->clock);
	pk_tdwriter_set_item(w, PK_TD_HEADER_PAGE, hdr, strlen(hdr));
	pk_tdwriter_set_item(w, PK_TD_HEADER_EVENT, "x", 1);
	pk_tdwriter_set_item(w, PK_TD_CMDLINES, cmdlines, strlen(cmdlines));
	pk_tdwriter_set_item(w, PK_TD_TRACE_CLOCK, clk, strlen(clk));
	pk_tdwriter_add_format(w, "sched", fmt_wakeup, strlen(fmt_wakeup));
	if (s->tgids)
		pk_tdwriter_set_tgids(w, s->tgids, strlen(s->tgids));
	f1 = add_buffer(w, "", s->top_ps, s->clock, 5000000000ull);
	if (f1 > 0 && s->inst_ps)
		f2 = add_buffer(w, "inst", s->inst_ps, s->clock, 5000000300ull);
	r = f1 > 0 && f2 >= 0 ? pk_tdwriter_close(w) : (pk_tdwriter_free(w), -1);
	for (int f = 0; f < 2; f++) {
		int v = f ? f2 : f1;
		if (v > 0) {
			close(v >> 16);
			close(v & 0xffff);
		}
	}
	return r;
}

/* Lines of S holding NEEDLE. */
static int count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

struct fcase {
	const char *name;
	struct spec s;
	const char *first;      /* the first record's time column */
};

static void one(const char *path, const struct fcase *c)
{
	char name[96];
	size_t pl, tl;
	char *pk, *tc;

	snprintf(name, sizeof(name), "ftrace_files_%s_write", c->name);
	if (!t_check(!write_file(path, &c->s), name, "%s", strerror(errno)))
		return;
	pk = t_td_report(path, NULL, NULL, &pl);
	snprintf(name, sizeof(name), "ftrace_files_%s_records", c->name);
	/* every record of every page, both CPUs (and the instance) */
	t_check(pk && count(pk, "sched_wakeup:") ==
		NR_EV * 2 * (c->s.inst_ps ? 2 : 1), name, "%d records",
		pk ? count(pk, "sched_wakeup:") : -1);
	snprintf(name, sizeof(name), "ftrace_files_%s_time", c->name);
	t_check(pk && strstr(pk, c->first), name, "no '%s' in %.300s",
		c->first, pk ? pk : "");
	snprintf(name, sizeof(name), "ftrace_files_%s_vs_tracecmd", c->name);
	if (!(tc = t_tracecmd_report("", path, false, &tl)))
		t_skip(name, "trace-cmd not installed");
	else
		t_check(pk && tl == pl && !memcmp(tc, pk, tl), name,
			"%zu vs %zu bytes: %.300s", tl, pl, tc);
	free(tc);
	free(pk);
}

/* kprobe, kretprobe and uprobe events: their print fmts say "(%lx)"
 * and "(%lx <- %lx)" (function, return address); the kernel's printers
 * (print_kprobe_event, print_kretprobe_event, print_uprobe_event,
 * print_uretprobe_event) print the kernel addresses as symbol+off/size,
 * the return address first, user addresses as 0x%lx. */
static const char fmt_kp[] =
	"name: kp\nID: 2000\nformat:\n" COMMON
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 arg1;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"(%lx) arg1=0x%x\", REC->__probe_ip, REC->arg1\n";
static const char fmt_kr[] =
	"name: kr\nID: 2001\nformat:\n" COMMON
	"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"(%lx <- %lx)\", REC->__probe_func, REC->__probe_ret_ip\n";

struct probe_rec {
	uint16_t type;
	uint8_t flags, pc;
	int32_t pid;
	uint64_t a, b;
};

static void probes(const char *path)
{
	static const char ks[] = "ffffffff81000000 T do_sys_open\n"
				 "ffffffff81000040 T next_fn\n"
				 "ffffffff81000080 T last_fn\n";
	static const struct { uint16_t type; uint64_t a, b; const char *want; }
	rec[] = {
		{ 2000, 0xffffffff81000004ull, 5,
		  "kp: (do_sys_open+0x4/0x40) arg1=0x5" },
		{ 2001, 0xffffffff81000000ull, 0xffffffff81000050ull,
		  "kr: (next_fn+0x10/0x40 <- do_sys_open+0x0/0x40)" },
		{ 2000, 0x55d0c0de1139ull, 7, "kp: (0x55d0c0de1139) arg1=0x7" },
		{ 2001, 0x55d0c0de1139ull, 0x55d0c0de1164ull,
		  "kr: (0x55d0c0de1164 <- 0x55d0c0de1139)" },
	};
	PK_OPTS(pk_tdwriter_opts, o, .page_size = 4096, .long_size = 8);
	PK_OPTS(pk_ktext_opts, ko);
	struct pk_tdwriter *w = pk_tdwriter_open(path, &o);
	char tmp[] = "/tmp/pkfiles.XXXXXX", name[64];
	static uint8_t page[4096];
	int fd = mkstemp(tmp), ids[1] = { 0 }, r = -1;
	struct pk_rb_layout l;
	struct pk_rb_enc e;
	size_t kl;
	char *kt;

	if (fd >= 0 && w) {
		unlink(tmp);
		pk__rb_layout_default(&l, 8, false);
		pk__rb_enc_init(&e, page, sizeof(page), &l, 1000000000ull);
		for (size_t i = 0; i < PK_ARRAY_SIZE(rec); i++) {
			struct probe_rec pr = { .type = rec[i].type,
						.pid = 42, .a = rec[i].a,
						.b = rec[i].b };
			pk__rb_enc_event(&e, 1000000000ull + i * 1000, &pr,
					 sizeof(pr), false);
		}
		pk__rb_enc_finish(&e, 0);
		if (write(fd, page, sizeof(page)) == (ssize_t)sizeof(page)) {
			pk_tdwriter_set_item(w, PK_TD_HEADER_EVENT, "x", 1);
			pk_tdwriter_set_item(w, PK_TD_KALLSYMS, ks, strlen(ks));
			pk_tdwriter_add_format(w, "kprobes", fmt_kp,
					       strlen(fmt_kp));
			pk_tdwriter_add_format(w, "kprobes", fmt_kr,
					       strlen(fmt_kr));
			pk_tdwriter_add_buffer(w, "", "local", 1, ids, &fd);
			r = pk_tdwriter_close(w);
			w = NULL;
		}
	}
	if (w)
		pk_tdwriter_free(w);
	if (fd >= 0)
		close(fd);
	if (!t_check(!r, "ftrace_files_probes_write", "%s", strerror(errno)))
		return;
	kt = t_td_report(path, NULL, &ko, &kl);
	for (size_t i = 0; i < PK_ARRAY_SIZE(rec); i++) {
		snprintf(name, sizeof(name), "ftrace_files_probe_%zu", i);
		t_check(kt && strstr(kt, rec[i].want), name, "no '%s' in %s",
			rec[i].want, kt ? kt : "");
	}
	free(kt);
}

/* The TGIDs option: trace-cmd reads past it without a word, perfkit's
 * kernel text prints the TGID column from it. */
static void tgids(const char *path)
{
	static const struct spec s = { 4096, 0, "local",
				       "100 4242\n101 101\n" };
	struct pk_tracedat *td;
	const char *v;
	PK_OPTS(pk_ktext_opts, ko);
	size_t n = 0, tl, kl;
	char *tc, *kt;

	if (!t_check(!write_file(path, &s), "ftrace_files_tgids_write", "%s",
		     strerror(errno)))
		return;
	td = pk_tracedat_open(path);
	v = td ? pk_tracedat_item(td, PK_TD_TGIDS, &n) : NULL;
	t_check(v && n == strlen(s.tgids) && !memcmp(v, s.tgids, n),
		"ftrace_files_tgids_item", "%zu bytes", n);
	if (td)
		pk_tracedat_free(td);
	kt = t_td_report(path, NULL, &ko, &kl);
	T_CHECK("ftrace_files_tgids_header",
		kt && strstr(kt, "#           TASK-PID       TGID    CPU#  |||||"));
	T_CHECK("ftrace_files_tgids_column",
		kt && strstr(kt, "-100     (   4242) [000]") &&
		strstr(kt, "-101     (    101) [000]"));
	free(kt);
	if (!(tc = t_tracecmd_report("", path, true, &tl)))
		t_skip("ftrace_files_tgids_tracecmd_quiet",
		       "trace-cmd not installed");
	else
		t_check(!strstr(tc, "unknown option") &&
			count(tc, "sched_wakeup:") == 2 * NR_EV,
			"ftrace_files_tgids_tracecmd_quiet", "%.300s", tc);
	free(tc);
}

/* PK_FILES_PAGES=DIR: DIR/cpu0 and DIR/cpu1 (8 KiB pages of NR_EV
 * sched_wakeup records each) and DIR/format, for tests/live/
 * ftrace_files.sh's fixture tree. 0 or -1. */
static int dump_pages(const char *dir)
{
	char p[4096], buf[8192];
	ssize_t n;
	FILE *f;

	for (int cpu = 0; cpu < 2; cpu++) {
		int in = make_cpu(cpu, 8192, 5000000000ull + 700u * cpu), out;
		snprintf(p, sizeof(p), "%s/cpu%d", dir, cpu);
		if (in < 0 || lseek(in, 0, SEEK_SET) ||
		    (out = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
			return -1;
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				n = -1;
		close(in);
		close(out);
		if (n < 0)
			return -1;
	}
	snprintf(p, sizeof(p), "%s/format", dir);
	if (!(f = fopen(p, "w")))
		return -1;
	fputs(fmt_wakeup, f);
	return fclose(f) ? -1 : 0;
}

int main(void)
{
	char path[] = "/tmp/pkfiles-XXXXXX.dat";
	int fd;
	/* the first record: CPU 0 at 5 s + 1.5 us (rounded) */
	static const struct fcase cases[] = {
		{ "ps8k", { 8192, 0, "local", NULL }, "5.000002:" },
		{ "ps16k", { 16384, 0, "local", NULL }, "5.000002:" },
		{ "ps64k", { 65536, 0, "local", NULL }, "5.000002:" },
		/* an instance buffer with pages of its own size */
		{ "inst16k", { 4096, 16384, "local", NULL }, "5.000002:" },
		{ "inst8k_top16k", { 16384, 8192, "local", NULL },
		  "5.000002:" },
		/* trace-cmd 3.1: boot raw ns, tai and mono in seconds */
		{ "clock_boot", { 4096, 0, "boot", NULL }, " 5000001500:" },
		{ "clock_tai", { 4096, 0, "tai", NULL }, "5.000002:" },
		{ "clock_mono", { 4096, 0, "mono", NULL }, "5.000002:" },
		{ "clock_counter", { 4096, 0, "counter", NULL },
		  " 5000001500:" },
	};

	if (getenv("PK_FILES_PAGES"))
		return dump_pages(getenv("PK_FILES_PAGES")) ? 1 : 0;
	if ((fd = mkstemps(path, 4)) < 0) {
		t_fail("ftrace_files_tmp", "%s", strerror(errno));
		return t_exit();
	}
	close(fd);
	for (size_t i = 0; i < PK_ARRAY_SIZE(cases); i++)
		one(path, &cases[i]);
	tgids(path);
	probes(path);
	unlink(path);
	return t_exit();
}
