// SPDX-License-Identifier: MIT
/*
 * lib/export: collapsed stacks (pk_folded: counts merged, byte order, the
 * text format read back, bad lines named), stackcollapse-perf.pl's rules
 * (pk_collapse: headers with and without periods, the first event only,
 * the function tidying, [unknown] frames, the kind marks, input cut
 * anywhere), the flame graph's frames, JSON strings (pk_json_str) and
 * scheduling timelines (pk_schedtl: states by prev_state, wake-ups and
 * their flows, threads first seen, exits, no states without a switch).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/export.h>
#include "test.h"

static char *text_of(struct pk_folded *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	if (pk_folded_write(f, m)) {
		fclose(m);
		free(buf);
		return NULL;
	}
	fclose(m);
	return buf;
}

static void expect(const char *name, struct pk_folded *f, const char *want)
{
	char *got = text_of(f);

	t_check(got && !strcmp(got, want), name, "got '%s', want '%s'",
		got ? got : "(error)", want);
	free(got);
}

static void test_folded(void)
{
	struct pk_folded *f = pk_folded_new(), *g = pk_folded_new();
	size_t line = 0;
	char *t;

	T_CHECK("folded_add", f && !pk_folded_add(f, "a;b", 3, 5) &&
		!pk_folded_add(f, "B;x", 3, 1) &&
		!pk_folded_add(f, "a;bc", 3, 2) &&
		!pk_folded_add(f, "a b;c", 5, 7));
	T_CHECK("folded_refuses", pk_folded_add(f, "", 0, 1) == -EINVAL &&
		pk_folded_add(f, "a\nb", 3, 1) == -EINVAL);
	/* byte order: 'B' < 'a'; "a b" < "a;b" (' ' < ';') */
	expect("folded_order", f, "B;x 1\na b;c 7\na;b 7\n");
	T_CHECK("folded_total", pk_folded_nr(f) == 3 && pk_folded_total(f) == 15);
	t = text_of(f);
	T_CHECK("folded_parse_back", t && g &&
		!pk_folded_parse(g, t, strlen(t), &line));
	expect("folded_round_trip", g, t ? t : "");
	free(t);
	T_CHECK("folded_parse_crlf", !pk_folded_parse(g, "x;y 3\r\n\n", 8, NULL));
	T_CHECK("folded_bad_line", pk_folded_parse(g, "p 1\nq\nr 2\n", 10,
						   &line) == PK_ERR_FORMAT &&
		line == 2);
	T_CHECK("folded_bad_count", pk_folded_parse(g, "p 1x\n", 5, &line) ==
		PK_ERR_FORMAT && line == 1);
	/* the largest count reads back; one more does not */
	T_CHECK("folded_max_count",
		!pk_folded_parse(g, "m 18446744073709551615", 22, NULL) &&
		pk_folded_parse(g, "m 18446744073709551616", 22, &line) ==
		PK_ERR_FORMAT);
	T_CHECK("folded_nul", pk_folded_add(g, "a\0b", 3, 1) == -EINVAL);
	pk_folded_free(f);
	pk_folded_free(g);
}

/* TEXT collapsed by O, fed whole and one byte at a time: both WANT. */
static void collapse(const char *name, const char *text,
		     const struct pk_collapse_opts *o, const char *want)
{
	for (int chunked = 0; chunked < 2; chunked++) {
		struct pk_folded *f = pk_folded_new();
		struct pk_collapse *c = f ? pk_collapse_new(f, o) : NULL;
		size_t n = strlen(text);
		int err = c ? 0 : -ENOMEM;
		char *got;

		for (size_t i = 0; !err && i < n; i += chunked ? 1 : n)
			err = pk_collapse_feed(c, text + i, chunked ? 1 : n);
		if (!err)
			err = pk_collapse_end(c);
		got = err ? NULL : text_of(f);
		t_check(got && !strcmp(got, want), name, "%s: got '%s', want '%s'",
			chunked ? "byte by byte" : "whole", got ? got : "(error)",
			want);
		free(got);
		pk_collapse_free(c);
		pk_folded_free(f);
	}
}

static void test_collapse(void)
{
	PK_OPTS(pk_collapse_opts, kinds, .kinds = true);
	PK_OPTS(pk_collapse_opts, tid, .tid = true);
	static const char two[] =
		"demo 42 1.000: 250000 cpu-clock:ppp: \n"
		"\tffffffff81000010 do_syscall_64+0x10 ([kernel.kallsyms])\n"
		"\t7f00 foo(int)+0x1a (/usr/bin/demo)\n"
		"\t7f10 (anonymous namespace)::bar(long) (/usr/bin/demo)\n"
		"\t7f20 [unknown] (/usr/lib/libz.so.1)\n"
		"\t7f30 [unknown] ([unknown])\n"
		"\n"
		"demo 42 1.001: 250000 task-clock: \n"
		"\t7f00 foo+0x1 (/usr/bin/demo)\n"
		"\n"
		"V8 Worker 7/9 [001] 1.002: 1000 cpu-clock:ppp: \n"
		"\t7f40 net/http.(*Client).Do (/usr/bin/go)\n"
		"\t7f50 it's\"q;x+0x2 (/tmp/perf-7.map)\n"
		"\t7f60 f1 (inlined)\n"
		"\n";

	/* (what stackcollapse-perf.pl prints for the same text: a function
	 * starting with '(' is skipped as a process name, quotes go) */
	collapse("collapse_default", two, NULL,
		 "V8_Worker;f1;itsq:x;net/http.(*Client).Do 1000\n"
		 "demo;[unknown];[libz.so.1];foo;do_syscall_64 250000\n");
	collapse("collapse_kinds", two, &kinds,
		 "V8_Worker;f1_[i];itsq:x_[j];net/http.(*Client).Do 1000\n"
		 "demo;[unknown];[libz.so.1];foo;do_syscall_64_[k] 250000\n");
	/* --tid: "comm-pid/tid", "comm-?/tid" without a pid */
	collapse("collapse_tid", two, &tid,
		 "V8_Worker-7/9;f1;itsq:x;net/http.(*Client).Do 1000\n"
		 "demo-?/42;[unknown];[libz.so.1];foo;do_syscall_64 250000\n");
	/* no period (1), period 0 (1), comments, a one-letter command
	 * (the header rule wants two: the line is no header, and the comm
	 * runs on to the next number), a stack without its blank line at
	 * the end (not counted), java's L, "a->b" inlined */
	collapse("collapse_periods",
		 "# comment\n"
		 "pp 1 2.0: ev: \n\tff a (x)\n\n"
		 "pp 1 2.0:  0 ev: \n\tff a (x)\n\n"
		 "p 1 2.0: 9 ev: \n\tff b (x)\n\n"
		 "java 3 4.0: 5 ev: \n\tff Lorg/x/Y;.m (x)\n\tee c->d (x)\n\n"
		 "pp 1 2.0: 9 ev: \n\tff a (x)\n",
		 NULL, "java;c;d_[i];org/x/Y:.m 5\np_1_2.0:;b 9\npp;a 2\n");
}

static void test_flame(void)
{
	PK_OPTS(pk_flame_opts, bad, .width = 5);
	struct pk_folded *f = pk_folded_new();
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int frames = 0;

	T_CHECK("flame_input", f && m && !pk_folded_add(f, "a;b", 3, 3) &&
		!pk_folded_add(f, "a;c_[k]", 7, 1));
	T_CHECK("flame_svg", !pk_flame_svg(f, m, NULL));
	fflush(m);
	for (const char *p = buf; p && (p = strstr(p, "<g class=\"f\"")); p++)
		frames++;
	/* all, a, b, c (its mark gone from the name) */
	T_CHECK("flame_frames", frames == 4 && strstr(buf, "<title>c (1 ") &&
		strstr(buf, "data-total=\"4\""));
	T_CHECK("flame_bad_width", pk_flame_svg(f, m, &bad) == -EINVAL);
	fclose(m);
	free(buf);
	pk_folded_free(f);
}

static char *json_of(const char *s, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	pk_json_str(m, s, n);
	fclose(m);
	return buf;
}

static void test_json(void)
{
	static const struct { const char *in; size_t n; const char *want; } c[] = {
		{ "a\"b\\c", 5, "\"a\\\"b\\\\c\"" },
		{ "tab\tnl\n", 7, "\"tab\\u0009nl\\u000a\"" },
		{ "caf\xc3\xa9", 5, "\"caf\xc3\xa9\"" },     /* UTF-8 kept */
		{ "x\xe9y", 3, "\"x\\u00e9y\"" },             /* stray byte */
		{ "\xc0\xaf", 2, "\"\\u00c0\\u00af\"" },     /* overlong */
		{ "\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\"" }, /* surrogate */
		{ "\xe2\x82", 2, "\"\\u00e2\\u0082\"" },     /* cut short */
		{ "a\0b", 3, "\"a\\u0000b\"" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *got = json_of(c[i].in, c[i].n), name[32];

		snprintf(name, sizeof(name), "json_str_%zu", i);
		t_check(got && !strcmp(got, c[i].want), name, "got %s, want %s",
			got ? got : "(null)", c[i].want);
		free(got);
	}
}

static char *timeline(struct pk_schedtl *tl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	bool first = true;

	if (!m)
		return NULL;
	pk_schedtl_end(tl, 0);
	pk_schedtl_write_json(tl, m, &first);
	fclose(m);
	return buf;
}

static bool only_11(void *ctx, int32_t pid, int32_t tid, const char *comm)
{
	(void)ctx, (void)pid, (void)comm;
	return tid == 11;
}

static void test_schedtl(void)
{
	struct pk_schedtl *tl = pk_schedtl_new();
	char *j;

	/* cpu 0: A (10) runs from its first event at 1000; wakes B (11) at
	 * 1500; sleeps (S) at 2000 for B; B preempted (0x100) at 3000 for A,
	 * which exits (Z) at 3500; the idle task wakes C (12): no flow */
	T_CHECK("schedtl_feed", tl &&
		!pk_schedtl_task(tl, 10, 10, "a") &&
		!pk_schedtl_event(tl, 1000, 0, 10) &&
		!pk_schedtl_wakeup(tl, 1500, 0, 10, 11, "b") &&
		!pk_schedtl_switch(tl, 2000, 0, 10, "a", 1, 11, "b") &&
		!pk_schedtl_switch(tl, 3000, 0, 11, "b", 0x100, 10, "a") &&
		!pk_schedtl_switch(tl, 3500, 0, 10, "a", 0x20, 0, "swapper/0") &&
		!pk_schedtl_wakeup(tl, 4000, 0, 0, 12, "c") &&
		!pk_schedtl_event(tl, 5000, 1, 11));
	j = tl ? timeline(tl) : NULL;
	T_CHECK("schedtl_running_from_first_event", j && strstr(j,
		"\"name\":\"Running\",\"pid\":10,\"tid\":10,\"ts\":1.000,"
		"\"dur\":1.000,\"args\":{\"cpu\":0}"));
	T_CHECK("schedtl_sleeping", j && strstr(j,
		"\"name\":\"Sleeping\",\"pid\":10,\"tid\":10,\"ts\":2.000,"
		"\"dur\":1.000}"));
	T_CHECK("schedtl_woken_runnable", j && strstr(j,
		"\"name\":\"Runnable\",\"pid\":11,\"tid\":11,\"ts\":1.500,"
		"\"dur\":0.500,\"args\":{\"waker_tid\":10}"));
	T_CHECK("schedtl_preempted", j && strstr(j,
		"\"name\":\"Runnable (Preempted)\",\"pid\":11,\"tid\":11,"
		"\"ts\":3.000,\"dur\":2.000}"));
	T_CHECK("schedtl_exit_is_a_moment", j && strstr(j,
		"\"name\":\"Exit (Zombie)\",\"pid\":10,\"tid\":10,"
		"\"ts\":3.500,\"dur\":0.000}"));
	T_CHECK("schedtl_idle_wakeup_no_flow", tl &&
		pk_schedtl_nr_flows(tl) == 1 && j &&
		strstr(j, "{\"ph\":\"s\",\"cat\":\"wakeup\",\"name\":\"wakeup\","
		       "\"id\":1,\"pid\":10,\"tid\":10,\"ts\":1.500}") &&
		strstr(j, "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"wakeup\","
		       "\"name\":\"wakeup\",\"id\":1,\"pid\":11,\"tid\":11,"
		       "\"ts\":1.500}") && !strstr(j, "\"id\":2"));
	T_CHECK("schedtl_names", j && strstr(j, "\"tid\":12,\"args\":{\"name\":\"c\"}"));
	free(j);
	pk_schedtl_free(tl);

	/* a filter: thread 11 alone (no flow: its waker is not kept) */
	tl = pk_schedtl_new();
	T_CHECK("schedtl_filter_feed", tl &&
		!pk_schedtl_event(tl, 1000, 0, 10) &&
		!pk_schedtl_wakeup(tl, 1500, 0, 10, 11, "b") &&
		!pk_schedtl_switch(tl, 2000, 0, 10, "a", 1, 11, "b"));
	if (tl)
		pk_schedtl_set_filter(tl, only_11, NULL);
	j = tl ? timeline(tl) : NULL;
	T_CHECK("schedtl_filter", j && !strstr(j, "\"tid\":10") &&
		strstr(j, "\"name\":\"Running\",\"pid\":11,\"tid\":11") &&
		!strstr(j, "\"ph\":\"s\""));
	free(j);
	pk_schedtl_free(tl);

	/* no switch: no states, names only */
	tl = pk_schedtl_new();
	T_CHECK("schedtl_no_switch_feed", tl &&
		!pk_schedtl_event(tl, 1000, 0, 10) &&
		!pk_schedtl_task(tl, 10, 10, "a"));
	j = tl ? timeline(tl) : NULL;
	T_CHECK("schedtl_no_switch_no_states", j && !strstr(j, "\"ph\":\"X\"") &&
		strstr(j, "thread_name"));
	free(j);
	pk_schedtl_free(tl);
}

int main(void)
{
	test_json();
	test_schedtl();
	test_folded();
	test_collapse();
	test_flame();
	return t_exit();
}
