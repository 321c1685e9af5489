/* SPDX-License-Identifier: MIT */
/*
 * The kernel-text printer's function and function_graph layouts (the
 * kernel refuses those tracers here): ring-buffer pages are built from this
 * machine's events/ftrace formats, with a made-up symbol table, and the
 * text is checked against the layouts of the kernel's ftrace documentation
 * (the function tracer's "func <-parent" lines with print-parent,
 * sym-offset and sym-addr; function_graph's CPU/duration/nesting, leaf
 * calls, overhead marks, context-switch banners, comments and the
 * funcgraph-* options). Also the header's counts from CPUSTAT, lost-event
 * lines and damaged input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "base/base.h"
#include "tracedat/rbpage.h"
#include "test.h"

T_LSAN_LIBTRACEEVENT

#define TF "/sys/kernel/tracing/events/ftrace/"
static const char *const names[] = {
	"function", "funcgraph_entry", "funcgraph_exit", "print",
};
enum { FN, GENT, GRET, PRINT, NR_FMT };
static char *fmt[NR_FMT];
static long fmt_len[NR_FMT];
static int ids[NR_FMT];

static const char syms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T sys_open\n"
	"ffffffff81002000 T do_sys_open\n"
	"ffffffff81003000 T getname\n"
	"ffffffff81004000 T kmem_cache_alloc\n"
	"ffffffff81005000 T __might_sleep\n"
	"ffffffff81006000 T schedule\n"
	"ffffffff81007000 T entry_SYSCALL_64\n"
	"ffffffff81008000 T tracing_mark_write\n"
	"ffffffff81009000 T _etext\n"
	"ffffffff8100a000 T __irqentry_text_start\n"
	"ffffffff8100a010 T common_interrupt\n"
	"ffffffff8100b000 T __irqentry_text_end\n"
	"ffffffffa0001000 t modfunc\t[mymod]\n"
	"ffffffffa0002000 t modend\t[mymod]\n";
#define SYM(off) (0xffffffff81000000ull + (off))

static int load_formats(void)
{
	for (int i = 0; i < NR_FMT; i++) {
		char p[256];
		snprintf(p, sizeof(p), TF "%s/format", names[i]);
		fmt_len[i] = pk__read_file(p, &fmt[i]);
		if (fmt_len[i] <= 0)
			return -1;
		char *id = strstr(fmt[i], "\nID: ");
		if (!id)
			return -1;
		ids[i] = atoi(id + 5);
	}
	return 0;
}

/* Offset and size of FIELD in format I, from its "field:" line. */
static int field(int i, const char *name, int *size)
{
	char key[64];
	snprintf(key, sizeof(key), " %s;", name);
	char *p = strstr(fmt[i], key);
	if (!p) {
		snprintf(key, sizeof(key), " %s[", name);
		p = strstr(fmt[i], key);
	}
	if (!p)
		return -1;
	char *o = strstr(p, "offset:"), *s = strstr(p, "size:");
	*size = atoi(s + 5);
	return atoi(o + 7);
}

struct ev { unsigned char b[256]; int len; };

static void put(struct ev *e, int i, const char *name, unsigned long long v)
{
	int size, off = field(i, name, &size);
	if (off < 0)
		return;
	memcpy(e->b + off, &v, (size_t)size);
	if (off + size > e->len)
		e->len = off + size;
}

static struct ev mk(int i, int pid, unsigned char flags, unsigned char pc)
{
	struct ev e = { .len = 8 };
	unsigned short t = (unsigned short)ids[i];
	memcpy(e.b, &t, 2);
	e.b[2] = flags;
	e.b[3] = pc;
	memcpy(e.b + 4, &pid, 4);
	return e;
}

static void add(struct pk_rb_enc *enc, unsigned long long ts, struct ev *e)
{
	e->len = (e->len + 3) & ~3;
	pk__rb_enc_event(enc, ts, e->b, (uint32_t)e->len, false);
}

#define T0 5000000000ull

static void gent(struct pk_rb_enc *enc, unsigned long long ts, int pid,
		 unsigned long long func, int depth)
{
	struct ev e = mk(GENT, pid, 0, 0);
	put(&e, GENT, "func", func);
	put(&e, GENT, "depth", (unsigned)depth);
	e.len = PK_MAX(e.len, 24);
	add(enc, ts, &e);
}

static void gret(struct pk_rb_enc *enc, unsigned long long ts, int pid,
		 unsigned long long func, int depth, unsigned long long call)
{
	struct ev e = mk(GRET, pid, 0, 0);
	put(&e, GRET, "func", func);
	put(&e, GRET, "depth", (unsigned)depth);
	put(&e, GRET, "calltime", call);
	put(&e, GRET, "rettime", ts);
	add(enc, ts, &e);
}

/* CPU 0: a call graph with a context switch and a marker in it. */
static void graph_page(unsigned char *page)
{
	struct pk_rb_layout l;
	struct pk_rb_enc enc;

	pk__rb_layout_default(&l, 8, false);
	pk__rb_enc_init(&enc, page, 4096, &l, T0);
	gent(&enc, T0, 42, SYM(0x1000), 0);
	gent(&enc, T0 + 1000, 42, SYM(0x2000), 1);
	gent(&enc, T0 + 2000, 42, SYM(0x3000), 2);
	gent(&enc, T0 + 3000, 42, SYM(0x4000), 3);
	gent(&enc, T0 + 3100, 42, SYM(0x5000), 4);
	gret(&enc, T0 + 4482, 42, SYM(0x5000), 4, T0 + 3100);
	gret(&enc, T0 + 5578, 42, SYM(0x4000), 3, T0 + 3000);
	gret(&enc, T0 + 30000, 42, SYM(0x3000), 2, T0 + 2000);
	gent(&enc, T0 + 31000, 43, SYM(0x6000), 0);
	gret(&enc, T0 + 250000, 43, SYM(0x6000), 0, T0 + 31000);
	struct ev m = mk(PRINT, 42, 0, 1);
	put(&m, PRINT, "ip", SYM(0x8010));
	int sz, off = field(PRINT, "buf", &sz);
	memcpy(m.b + off, "hello\n", 7);
	m.len = off + 7;
	add(&enc, T0 + 260000, &m);
	gret(&enc, T0 + 1500000, 42, SYM(0x2000), 1, T0 + 1000);
	gret(&enc, T0 + 2000000, 42, SYM(0x1000), 0, T0);
	/* an exit whose entry is not in the buffer */
	gret(&enc, T0 + 2000100, 42, SYM(0x7000), 0, T0 + 1999000);
	pk__rb_enc_finish(&enc, 0);
}

/* CPU 0: function events; the second page says 3 events were lost. */
static void fn_pages(unsigned char *page)
{
	struct pk_rb_layout l;
	struct pk_rb_enc enc;
	const struct { int pid; unsigned char fl, pc; unsigned long long ip,
		       parent; } f[] = {
		{ 42, 0x01, 0x01, SYM(0x1004), SYM(0x7010) },
		{ 42, 0x2d, 0x12, SYM(0x2000), SYM(0x1004) },
		{ 0, 0x10, 0x02, 0xffffffffa0001020ull, 0 },
		{ 43, 0x00, 0x00, 0x1234, SYM(0x3000) },
	};

	pk__rb_layout_default(&l, 8, false);
	for (int p = 0; p < 2; p++) {
		pk__rb_enc_init(&enc, page + p * 4096, 4096, &l, T0 + p * 1000000);
		for (int i = 0; i < 2; i++) {
			int k = p * 2 + i;
			struct ev e = mk(FN, f[k].pid, f[k].fl, f[k].pc);
			put(&e, FN, "ip", f[k].ip);
			put(&e, FN, "parent_ip", f[k].parent);
			e.len = PK_MAX(e.len, 24);
			add(&enc, T0 + (unsigned long long)k * 1000000 + 1234, &e);
		}
		pk__rb_enc_finish(&enc, p ? 3 : 0);
	}
}

static int write_file(const char *path, const unsigned char *pages,
		      size_t len, const char *cpustat)
{
	char tmp[] = "/tmp/pkktXXXXXX";
	int fd = mkstemp(tmp), id = 0, r;

	if (fd < 0)
		return -1;
	unlink(tmp);
	if (write(fd, pages, len) != (ssize_t)len)
		return -1;
	PK_OPTS(pk_tdwriter_opts, o, .compression = "none", .page_size = 4096,
		.long_size = 8);
	struct pk_tdwriter *w = pk_tdwriter_open(path, &o);
	long n;
	char *hp = NULL;
	n = pk__read_file("/sys/kernel/tracing/events/header_page", &hp);
	if (!w || n <= 0)
		return -1;
	pk_tdwriter_set_item(w, PK_TD_HEADER_PAGE, hp, (size_t)n);
	for (int i = 0; i < NR_FMT; i++)
		pk_tdwriter_add_format(w, "ftrace", fmt[i], (size_t)fmt_len[i]);
	pk_tdwriter_set_item(w, PK_TD_KALLSYMS, syms, sizeof(syms) - 1);
	pk_tdwriter_set_item(w, PK_TD_CMDLINES, "42 bash\n43 sshd\n", 16);
	pk_tdwriter_set_item(w, PK_TD_UNAME, "Linux host 6.1.0-test #1 x86_64",
			     31);
	if (cpustat)
		pk_tdwriter_add_cpustat(w, cpustat);
	pk_tdwriter_add_buffer(w, "", "local", 1, &id, &fd);
	r = pk_tdwriter_close(w);
	close(fd);
	pk__free(hp);
	return r;
}

/* The report of PATH with OPTIONS (and TRACER) as a string. */
static char *report(const char *path, const char *options, const char *tracer,
		    long *ret)
{
	struct pk_tracedat *td = NULL;
	char *out = NULL;
	size_t len = 0;

	*ret = ((td = pk_tracedat_open(path)) ? 0 : -errno);
	if (*ret < 0)
		return NULL;
	FILE *f = open_memstream(&out, &len);
	PK_OPTS(pk_ktext_opts, o, .options = options, .tracer = tracer,
		.preempt = "PREEMPT(none)", .nr_online = 2);
	*ret = pk_tracedat_report_kernel(td, f, &o);
	fclose(f);
	pk_tracedat_free(td);
	return out;
}

/* trace_pipe's text: no header, lost events said */
static void pipe_test(const char *path)
{
	struct pk_tracedat *td = NULL;
	char *out = NULL;
	size_t len = 0;

	if (((td = pk_tracedat_open(path)) ? 0 : -errno) < 0)
		return;
	FILE *f = open_memstream(&out, &len);
	PK_OPTS(pk_ktext_opts, o, .no_header = true);
	long r = pk_tracedat_report_kernel(td, f, &o);
	fclose(f);
	pk_tracedat_free(td);
	t_check(r == 4 && out && !strncmp(out, "            bash-42 ", 20) &&
		strstr(out, "sys_open\nCPU:0 [LOST 3 EVENTS]\n          <idle>-0"),
		"ktext_pipe_lost", "%s", out ? out : "");
	free(out);
}

static void expect(const char *name, const char *path, const char *options,
		   const char *want)
{
	long r;
	char *got = report(path, options, NULL, &r);

	t_check(got && r >= 0 && !strcmp(got, want), name,
		"ret %ld\n--- got:\n%s--- want:\n%s", r, got ? got : "",
		want);
	free(got);
}

static const char graph_default[] =
	"# tracer: function_graph\n"
	"#\n"
	"# CPU  DURATION                  FUNCTION CALLS\n"
	"# |     |   |                     |   |   |   |\n"
	" 0)               |  sys_open() {\n"
	" 0)               |    do_sys_open() {\n"
	" 0)               |      getname() {\n"
	" 0)               |        kmem_cache_alloc() {\n"
	" 0)   1.382 us    |          __might_sleep();\n"
	" 0)   2.578 us    |        }\n"
	" 0) + 28.000 us   |      }\n"
	" ------------------------------------------\n"
	" 0)    bash-42     =>    sshd-43    \n"
	" ------------------------------------------\n"
	"\n"
	" 0) ! 219.000 us  |  schedule();\n"
	" ------------------------------------------\n"
	" 0)    sshd-43     =>    bash-42    \n"
	" ------------------------------------------\n"
	"\n"
	" 0)               |  /* hello */\n"
	" 0) # 1499.000 us |    }\n"
	" 0) # 2000.000 us |  } /* sys_open */\n"
	" 0)   1.100 us    |  } /* entry_SYSCALL_64 */\n";

static void graph_tests(const char *path)
{
	expect("ktext_graph_default", path, NULL, graph_default);
	expect("ktext_graph_tail", path, "funcgraph-tail",
	       "# tracer: function_graph\n#\n"
	       "# CPU  DURATION                  FUNCTION CALLS\n"
	       "# |     |   |                     |   |   |   |\n"
	       " 0)               |  sys_open() {\n"
	       " 0)               |    do_sys_open() {\n"
	       " 0)               |      getname() {\n"
	       " 0)               |        kmem_cache_alloc() {\n"
	       " 0)   1.382 us    |          __might_sleep();\n"
	       " 0)   2.578 us    |        } /* kmem_cache_alloc */\n"
	       " 0) + 28.000 us   |      } /* getname */\n"
	       " ------------------------------------------\n"
	       " 0)    bash-42     =>    sshd-43    \n"
	       " ------------------------------------------\n\n"
	       " 0) ! 219.000 us  |  schedule();\n"
	       " ------------------------------------------\n"
	       " 0)    sshd-43     =>    bash-42    \n"
	       " ------------------------------------------\n\n"
	       " 0)               |  /* hello */\n"
	       " 0) # 1499.000 us |    } /* do_sys_open */\n"
	       " 0) # 2000.000 us |  } /* sys_open */\n"
	       " 0)   1.100 us    |  } /* entry_SYSCALL_64 */\n");
	/* funcgraph-proc and -abstime add columns; nofuncgraph-cpu drops one */
	long r;
	char *s = report(path, "funcgraph-proc,funcgraph-abstime,"
			 "nofuncgraph-cpu,nofuncgraph-overhead", NULL, &r);
	T_CHECK("ktext_graph_proc_header", s && strstr(s,
		"#     TIME         TASK/PID         DURATION                  FUNCTION CALLS\n"
		"#     |            |    |         |   |                     |   |   |   |\n"));
	T_CHECK("ktext_graph_proc_line", s && strstr(s,
		"    5.000003 |     bash-42     |   1.382 us    |          __might_sleep();\n"));
	T_CHECK("ktext_graph_proc_nomark", s && strstr(s,
		"    5.000031 |     sshd-43     |   219.000 us  |  schedule();\n"));
	free(s);
	s = report(path, "nofuncgraph-duration", NULL, &r);
	T_CHECK("ktext_graph_noduration", s && strstr(s,
		"# CPU               FUNCTION CALLS\n") && strstr(s,
		" 0)         __might_sleep();\n") && strstr(s, " 0)       }\n"));
	free(s);
	s = report(path, "latency-format", NULL, &r);
	T_CHECK("ktext_graph_latency", s && strstr(s,
		"# function_graph latency trace v1.1.5 on 6.1.0-test\n") &&
		strstr(s, "# latency: 0 us, #14/14, CPU#0 | (M:PREEMPT(none) VP:0, KP:0, SP:0 HP:0 #P:2)\n") &&
		strstr(s, "#      _-----=> irqs-off        \n") &&
		strstr(s, "# CPU||||     DURATION                  FUNCTION CALLS\n") &&
		strstr(s, " 0)  ..... |   1.382 us    |          __might_sleep();\n"));
	free(s);
	s = report(path, "nocontext-info", NULL, &r);
	T_CHECK("ktext_graph_nocontext", s && !strcmp(s,
		"# tracer: function_graph\n#\n"
		"sys_open() {\n  do_sys_open() {\n    getname() {\n"
		"      kmem_cache_alloc() {\n        __might_sleep();\n"
		"      }\n    }\n"
		" ------------------------------------------\n"
		" 0)    bash-42     =>    sshd-43    \n"
		" ------------------------------------------\n\n"
		"schedule();\n"
		" ------------------------------------------\n"
		" 0)    sshd-43     =>    bash-42    \n"
		" ------------------------------------------\n\n"
		"/* hello */\n  }\n} /* sys_open */\n"
		"} /* entry_SYSCALL_64 */\n"));
	free(s);
	/* the same events under the nop tracer: one line each */
	s = report(path, NULL, "nop", &r);
	T_CHECK("ktext_graph_as_nop", s && r == 14 && strstr(s,
		"            bash-42      [000] ...1.     5.000260: tracing_mark_write: hello\n"));
	free(s);
}

static const char fn_header[] =
	"# tracer: function\n"
	"#\n"
	"# entries-in-buffer/entries-written: 4/9   #P:2\n"
	"#\n"
	"#                                _-----=> irqs-off/BH-disabled\n"
	"#                               / _----=> need-resched\n"
	"#                              | / _---=> hardirq/softirq\n"
	"#                              || / _--=> preempt-depth\n"
	"#                              ||| / _-=> migrate-disable\n"
	"#                              |||| /     delay\n"
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	"#              | |         |   |||||     |         |\n";

static void fn_tests(const char *path)
{
	char want[4096];

	snprintf(want, sizeof(want), "%s%s", fn_header,
		 "            bash-42      [000] d..1.     5.000001: sys_open <-entry_SYSCALL_64\n"
		 "            bash-42      [000] dNh21     5.001001: do_sys_open <-sys_open\n"
		 "          <idle>-0       [000] ..s2.     5.002001: modfunc\n"
		 "            sshd-43      [000] .....     5.003001: 0x00001234 <-getname\n");
	expect("ktext_function_default", path, NULL, want);
	long r;
	char *s = report(path, "sym-offset", NULL, &r);
	T_CHECK("ktext_function_symoffset", s && strstr(s,
		": sys_open+0x4/0x1000 <-entry_SYSCALL_64+0x10/0x1000\n") &&
		strstr(s, ": modfunc+0x20/0x1000 [mymod]\n"));
	free(s);
	s = report(path, "sym-offset,sym-addr", NULL, &r);
	T_CHECK("ktext_function_symaddr", s && strstr(s,
		": sys_open+0x4/0x1000 <ffffffff81001004> <-entry_SYSCALL_64+0x10/0x1000 <ffffffff81007010>\n"));
	free(s);
	s = report(path, "noprint-parent,noirq-info", NULL, &r);
	T_CHECK("ktext_function_noparent", s && !strstr(s, "LOST") && strstr(s,
		"#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n") &&
		strstr(s, "            bash-42      [000]      5.000001: sys_open\n"));
	free(s);
	s = report(path, "raw", NULL, &r);
	T_CHECK("ktext_function_raw", s && strstr(s,
		"42 0 5000001234 ffffffff81001004 ffffffff81007010\n"));
	free(s);
	s = report(path, "latency-format", NULL, &r);
	T_CHECK("ktext_function_latency", s && strstr(s,
		"# latency: 0 us, #4/9, CPU#0 | (M:PREEMPT(none) VP:0, KP:0, SP:0 HP:0 #P:2)\n") &&
		strstr(s, "    bash-42        0d..1. 5000001us!: sys_open <-entry_SYSCALL_64\n") &&
		strstr(s, "    sshd-43        0..... 5003001us : 0x00001234 <-getname\n"));
	free(s);
	pipe_test(path);
	s = report(path, "bogus-option", NULL, &r);
	T_CHECK("ktext_bad_option", r == PK_ERR_SYNTAX);
	free(s);
}

/*
 * funcgraph-retval: this kernel's funcgraph_exit has no retval field, so a
 * format with one (the CONFIG_FUNCTION_GRAPH_RETVAL layout) is made here.
 */
static void retval_tests(void)
{
	char path[64], ret_fmt[2048], *saved = fmt[GRET];
	long saved_len = fmt_len[GRET];
	static unsigned char page[4096];
	struct pk_rb_layout l;
	struct pk_rb_enc enc;

	snprintf(ret_fmt, sizeof(ret_fmt),
		"name: funcgraph_exit\nID: %d\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned int depth;\toffset:24;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n"
		"\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"<-- %%ps (%%u) (start: %%llx  end: %%llx) over: %%u retval: %%lx\", "
		"(void *)REC->func, REC->depth, REC->calltime, REC->rettime, "
		"REC->depth, REC->retval\n", ids[GRET]);
	fmt[GRET] = ret_fmt;
	fmt_len[GRET] = (long)strlen(ret_fmt);
	pk__rb_layout_default(&l, 8, false);
	pk__rb_enc_init(&enc, page, 4096, &l, T0);
	struct ev x;
	gent(&enc, T0, 42, SYM(0x1000), 0);
	x = mk(GRET, 42, 0, 0);
	put(&x, GRET, "func", SYM(0x1000));
	put(&x, GRET, "retval", (unsigned long long)-22);
	put(&x, GRET, "calltime", T0);
	put(&x, GRET, "rettime", T0 + 500);
	add(&enc, T0 + 500, &x);
	gent(&enc, T0 + 1000, 42, SYM(0x2000), 0);
	gent(&enc, T0 + 1100, 42, SYM(0x3000), 1);
	x = mk(GRET, 42, 0, 0);
	put(&x, GRET, "func", SYM(0x3000));
	put(&x, GRET, "depth", 1);
	put(&x, GRET, "calltime", T0 + 1100);
	put(&x, GRET, "rettime", T0 + 1200);
	add(&enc, T0 + 1200, &x);
	x = mk(GRET, 42, 0, 0);
	put(&x, GRET, "func", SYM(0x2000));
	put(&x, GRET, "retval", 0x1234);
	put(&x, GRET, "calltime", T0 + 1000);
	put(&x, GRET, "rettime", T0 + 3000);
	add(&enc, T0 + 3000, &x);
	pk__rb_enc_finish(&enc, 0);
	snprintf(path, sizeof(path), "/tmp/pk-ktext-r-%d.dat", (int)getpid());
	if (t_check(write_file(path, page, 4096, NULL) == 0, "ktext_retval_file",
		    "cannot write %s", path)) {
		static const char head[] =
			"# tracer: function_graph\n#\n"
			"# CPU  DURATION                  FUNCTION CALLS\n"
			"# |     |   |                     |   |   |   |\n";
		char want[2048];
		snprintf(want, sizeof(want), "%s%s", head,
			 " 0)   0.500 us    |  sys_open(); /* = -22 */\n"
			 " 0)               |  do_sys_open() {\n"
			 " 0)   0.100 us    |    getname(); /* = 0x0 */\n"
			 " 0)   2.000 us    |  } /* do_sys_open = 0x1234 */\n");
		expect("ktext_graph_retval", path, "funcgraph-retval", want);
		snprintf(want, sizeof(want), "%s%s", head,
			 " 0)   0.500 us    |  sys_open(); /* = 0xffffffffffffffea */\n"
			 " 0)               |  do_sys_open() {\n"
			 " 0)   0.100 us    |    getname(); /* = 0x0 */\n"
			 " 0)   2.000 us    |  } /* do_sys_open = 0x1234 */\n");
		expect("ktext_graph_retval_hex", path,
		       "funcgraph-retval,funcgraph-retval-hex", want);
		snprintf(want, sizeof(want), "%s%s", head,
			 " 0)   0.500 us    |  sys_open();\n"
			 " 0)               |  do_sys_open() {\n"
			 " 0)   0.100 us    |    getname();\n"
			 " 0)   2.000 us    |  }\n");
		expect("ktext_graph_noretval", path, NULL, want);
	}
	unlink(path);
	fmt[GRET] = saved;
	fmt_len[GRET] = saved_len;
}

/* An interrupt inside a call: the ==========> markers, or nothing of it
 * with nofuncgraph-irqs. */
static void irq_tests(void)
{
	static unsigned char page[4096];
	struct pk_rb_layout l;
	struct pk_rb_enc enc;
	char path[64];

	pk__rb_layout_default(&l, 8, false);
	pk__rb_enc_init(&enc, page, 4096, &l, T0);
	gent(&enc, T0, 42, SYM(0x1000), 0);
	gent(&enc, T0 + 500, 42, SYM(0xa010), 1);
	gent(&enc, T0 + 600, 42, SYM(0x3000), 2);
	gret(&enc, T0 + 700, 42, SYM(0x3000), 2, T0 + 600);
	gret(&enc, T0 + 1500, 42, SYM(0xa010), 1, T0 + 500);
	gret(&enc, T0 + 3000, 42, SYM(0x1000), 0, T0);
	pk__rb_enc_finish(&enc, 0);
	snprintf(path, sizeof(path), "/tmp/pk-ktext-i-%d.dat", (int)getpid());
	if (!t_check(write_file(path, page, 4096, NULL) == 0, "ktext_irq_file",
		     "cannot write %s", path))
		return;
	expect("ktext_graph_irqs", path, NULL,
	       "# tracer: function_graph\n#\n"
	       "# CPU  DURATION                  FUNCTION CALLS\n"
	       "# |     |   |                     |   |   |   |\n"
	       " 0)               |  sys_open() {\n"
	       " 0)   ==========> |\n"
	       " 0)               |    common_interrupt() {\n"
	       " 0)   0.100 us    |      getname();\n"
	       " 0)   1.000 us    |    }\n"
	       " 0)   <========== |\n"
	       " 0)   3.000 us    |  }\n");
	expect("ktext_graph_noirqs", path, "nofuncgraph-irqs",
	       "# tracer: function_graph\n#\n"
	       "# CPU  DURATION                  FUNCTION CALLS\n"
	       "# |     |   |                     |   |   |   |\n"
	       " 0)               |  sys_open() {\n"
	       " 0)   3.000 us    |  }\n");
	unlink(path);
}

int main(void)
{
	static unsigned char pages[3 * 4096];
	char gpath[64], fpath[64];

	if (load_formats()) {
		t_skip("ftrace_ktext", "cannot read %s formats (needs root)", TF);
		return t_exit();
	}
	snprintf(gpath, sizeof(gpath), "/tmp/pk-ktext-g-%d.dat", (int)getpid());
	snprintf(fpath, sizeof(fpath), "/tmp/pk-ktext-f-%d.dat", (int)getpid());
	graph_page(pages);
	if (!t_check(write_file(gpath, pages, 4096, NULL) == 0,
		     "ktext_graph_file", "cannot write %s", gpath))
		return t_exit();
	graph_tests(gpath);
	memset(pages, 0, sizeof(pages));
	fn_pages(pages);
	if (t_check(write_file(fpath, pages, 2 * 4096,
			       "CPU: 0\nentries: 0\noverrun: 5\n") == 0,
		    "ktext_function_file", "cannot write %s", fpath))
		fn_tests(fpath);
	retval_tests();
	irq_tests();
	/* damaged: every truncation either reports an error or prints */
	long n;
	char *img;
	n = pk__read_file(fpath, &img);
	int crashes = 0;
	for (long cut = 0; img && cut < n; cut += n / 97 + 1) {
		struct pk_tracedat *td = NULL;
		if (((td = pk_tracedat_open_mem(img, (size_t)cut)) ? 0 : -errno) < 0)
			continue;
		FILE *f = fopen("/dev/null", "w");
		pk_tracedat_report_kernel(td, f, NULL);
		fclose(f);
		pk_tracedat_free(td);
	}
	T_CHECK("ktext_truncated_files", crashes == 0);
	pk__free(img);
	if (!getenv("PK_KTEXT_KEEP")) {
		unlink(gpath);
		unlink(fpath);
	}
	for (int i = 0; i < NR_FMT; i++)
		pk__free(fmt[i]);
	return t_exit();
}
