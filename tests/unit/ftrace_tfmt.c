/* SPDX-License-Identifier: MIT */
/*
 * The event format compiler (lib/tracefmt/compile.c, eval.c): formats
 * built here, each printed over a set of records by the compiled formatter
 * and by libtraceevent (no plugins), which must agree wherever the
 * compiled formatter prints; hostile formats must compile to "no program"
 * (never crash) and damaged records must fall back. The kernel's reading
 * (TF_KERNEL) is checked against values worked out by hand here and
 * against the kernel itself in tests/live/ftrace_ktext.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>
#include "base/base.h"
#include "tracefmt/compile.h"
#include "test.h"

T_LSAN_LIBTRACEEVENT

#define HDR "name: ev%d\nID: %d\nformat:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:unsigned int a;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:int b;\toffset:12;\tsize:4;\tsigned:1;\n" \
	"\tfield:unsigned long c;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:long d;\toffset:24;\tsize:8;\tsigned:1;\n" \
	"\tfield:char s[16];\toffset:32;\tsize:16;\tsigned:0;\n" \
	"\tfield:u8 e;\toffset:48;\tsize:1;\tsigned:0;\n" \
	"\tfield:short h;\toffset:50;\tsize:2;\tsigned:1;\n" \
	"\tfield:__data_loc char[] name;\toffset:52;\tsize:4;\tsigned:0;\n\n" \
	"print fmt: "

/* print fmts checked against libtraceevent */
static const char *const fmts[] = {
	"\"a=%u b=%d c=%lu d=%ld\", REC->a, REC->b, REC->c, REC->d",
	"\"%x %X %#x %08x %-8x| %8d %-6d| %5u %-05d\", REC->a, REC->a, "
		"REC->a, REC->a, REC->a, REC->b, REC->b, REC->a, REC->b",
	"\"%lx %llx %llu %lld %Lu %hd %hhu %hu %o %#o\", REC->c, REC->d, "
		"REC->c, REC->d, REC->c, REC->h, REC->e, REC->h, REC->a, REC->a",
	"\"s=%s |%-10s| %.3s %12s\", REC->s, REC->s, REC->s, REC->s",
	"\"n=%s [%-6s]\", __get_str(name), __get_str(name)",
	"\"p=%p q=%p\", REC->c, REC->a",
	"\"x=%s\", __print_symbolic(REC->a, { 0, \"ZERO\" }, { 1, \"ONE\" }, "
		"{ 0x10, \"SIXTEEN\" }, { UNKNOWN_NAME, \"UNK\" }, "
		"{ HRTIMER_RESTART, \"RST\" })",
	"\"f=%s\", __print_flags(REC->a, \"|\", { 1, \"A\" }, { 2, \"B\" }, "
		"{ 4, \"C\" }, { 0x100, \"H\" })",
	"\"f=%s\", __print_flags(REC->e, \"\", { 0, \"NONE\" }, { 1, \"A\" }, "
		"{ 2, \"B\" })",
	"\"v=%d w=%u\", REC->a & (0x10 | 0x20 | 0x40), REC->a - REC->e - 1",
	"\"v=%lu w=%lu\", (REC->c >> 4) + REC->a * 3, REC->c << 2 | 1",
	"\"%s%s\", REC->a & 3 ? \"odd\" : \"even\", REC->b ? \"+\" : \"\"",
	"\"cast=%u %d %lu\", (unsigned char)REC->a, (int)REC->c, "
		"(unsigned long)(REC->a)",
	"\"cmp=%d %d %d %d\", REC->a == 7, REC->a != 7, REC->e < 3, !REC->a",
	"\"t=%ld\", (long)REC->c - REC->d",
	"\"%d%%done %s\", REC->a, \"lit\"",
	"\"cat\" \"enated %u\", REC->a",
	"\"bytes=%s long=%s\", REC->a, REC->c",
	"\"esc\\ta\\nb\\\\c\\\"d\\qe %u\", REC->a",
	"\"\"",
	"\"plain text only\"",
	"\"neg=%d bn=%u\", -REC->b, ~REC->a",
	"\"idx=%d %u\", REC->s[2], REC->s[0]",
	"\"rot=%lu %ld %d\", REC->c * -REC->a, REC->d - -1, REC->a + (REC->e ? 1 : 2)",
	"\"cst=%ld %lu %d\", (loff_t)REC->c << 3, (struct x *)REC->c, (int)(REC->a) - 1",
	"\"z=%zu %zx\", REC->c, REC->d",
	"\"%d\", REC->e ? -1 : 1",
	"\"%d %d %d\", REC->e ? REC->a + 1 : REC->b, REC->e ? 1 : 2 + 3, "
		"REC->e ? REC->a : -REC->b",
	"\"%s\", __print_flags(REC->a, \"|\", { 1, \"A\" }, { 0, ((void *)0) })",
	"\"%p\", REC->e != -1UL ? (((struct page *)vmemmap_base) + (REC->a)) : ((void *)0)",
};

/* print fmts the compiler must refuse (never crash) */
static const char *const bad[] = {
	"\"%d\", REC->nosuch",
	"\"%d %d\", REC->a",
	"\"%d\", REC->a, REC->b",
	"\"%d\", REC->a +",
	"\"%d\", (REC->a",
	"\"%s\", __get_str(nosuch)",
	"\"%d\", __get_str(name)",
	"\"%d\", some_func(REC->a)",
	"\"%n\", REC->a",
	"\"%pM\", REC->c",
	"\"unterminated",
	"\"%d\", REC->a[2]",
	"\"%d\", REC->s[REC->e & 7]",
	"\"%s\", __print_symbolic(REC->a)",
	"",
	"\"%",
	"\"%d\", 99999999999999999999999999",
	"\"ch=%c\", REC->e",
	"\"%d\tx\", REC->a",
	"\"%+d\", REC->b",
};

struct rec { uint8_t b[128]; uint32_t size; };

static void mkrec(struct rec *r, uint32_t a, int32_t b, uint64_t c, int64_t d,
		  const char *s, uint8_t e, int16_t h, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->b[0] = 101;          /* the ID of format_text(1, ...) */
	memcpy(r->b + 4, &(int){ 42 }, 4);
	memcpy(r->b + 8, &a, 4);
	memcpy(r->b + 12, &b, 4);
	memcpy(r->b + 16, &c, 8);
	memcpy(r->b + 24, &d, 8);
	strncpy((char *)r->b + 32, s, 16);
	r->b[48] = e;
	memcpy(r->b + 50, &h, 2);
	size_t nl = strlen(name) + 1;
	uint32_t loc = (uint32_t)(nl << 16) | 56;
	memcpy(r->b + 52, &loc, 4);
	memcpy(r->b + 56, name, nl);
	r->size = (uint32_t)(56 + nl);
}

static char *format_text(int i, const char *pf)
{
	size_t n = strlen(HDR) + strlen(pf) + 64;
	char *t = pk__malloc(n);
	int k = snprintf(t, n, HDR, i, 100 + i);
	snprintf(t + k, n - (size_t)k, "%s\n", pf);
	return t;
}

static int tep_text(struct tep_handle *tep, const struct rec *r, char *out,
		    size_t cap)
{
	struct trace_seq s;
	uint8_t buf[256] = { 0 };
	memcpy(buf, r->b, r->size);
	struct tep_record rec = { .data = buf, .size = (int)r->size };

	trace_seq_init(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	snprintf(out, cap, "%s", s.buffer);
	trace_seq_destroy(&s);
	return 0;
}

static void against_tep(void)
{
	struct rec recs[6];
	mkrec(&recs[0], 0, 0, 0, 0, "", 0, 0, "");
	mkrec(&recs[1], 1, -1, 0xffffffffffffffffull, -2, "bash", 1, -3, "x");
	mkrec(&recs[2], 7, 123456, 0x123456789abcull, 99, "a-long-name-16ch",
	      2, 300, "hello");
	mkrec(&recs[3], 0x107, -2147483647 - 1, 1ull << 63, INT64_MIN, "k",
	      255, -32768, "world");
	mkrec(&recs[4], 0xffffffff, 2147483647, 42, 42, "sp ace", 0x41, 7, "n");
	mkrec(&recs[5], 0x35, 17, 1000000007, -1000000007, "tab", 3, 1, "zz");
	int same = 0, fb = 0, diff = 0, nocomp = 0;

	for (size_t i = 0; i < PK_ARRAY_SIZE(fmts); i++) {
		char *text = format_text(1, fmts[i]);
		struct tep_handle *tep = tep_alloc();
		struct tf_event ev;
		tep_set_long_size(tep, 8);
		tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
		tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
		tep_parse_event(tep, text, strlen(text), "t");
		if (pk__tf_compile(&ev, text, strlen(text), "t", 8, 0) || !ev.ok) {
			nocomp++;
			printf("# not compiled: %s (%s)\n", fmts[i],
			       ev.why ? ev.why : "?");
			pk__tf_event_fini(&ev);
			tep_free(tep);
			pk__free(text);
			continue;
		}
		struct tf_env env = { .long_size = 8 };
		for (size_t k = 0; k < PK_ARRAY_SIZE(recs); k++) {
			struct tf_out o = { 0 };
			char ref[1024];
			tep_text(tep, &recs[k], ref, sizeof(ref));
			int r = pk__tf_print(&ev, &env, recs[k].b, recs[k].size, &o);
			if (r == TF_FALLBACK) {
				fb++;
			} else if (r == 0 && strlen(ref) == o.len &&
				   (!o.len || !memcmp(ref, o.p, o.len))) {
				same++;
			} else {
				diff++;
				printf("# fmt %zu rec %zu\n#  tep:  %s\n#  fast: "
				       "%.*s\n", i, k, ref, (int)o.len, o.p);
			}
			pk__tf_out_fini(&o);
		}
		pk__tf_env_fini(&env);
		pk__tf_event_fini(&ev);
		tep_free(tep);
		pk__free(text);
	}
	printf("# %d equal, %d fall back, %d differ, %d formats not compiled\n",
	       same, fb, diff, nocomp);
	t_check(diff == 0 && nocomp == 0 && same > 100, "tfmt_vs_libtraceevent",
		"%d differ, %d not compiled", diff, nocomp);
}

static void hostile(void)
{
	int refused = 0;

	for (size_t i = 0; i < PK_ARRAY_SIZE(bad); i++) {
		char *text = format_text(2, bad[i]);
		struct tf_event ev;
		int r = pk__tf_compile(&ev, text, strlen(text), "t", 8, 0);
		if (r == 0 && !ev.ok)
			refused++;
		else
			printf("# accepted: %s\n", bad[i]);
		pk__tf_event_fini(&ev);
		pk__free(text);
	}
	t_check(refused == (int)PK_ARRAY_SIZE(bad), "tfmt_refuses_bad",
		"%d of %zu refused", refused, PK_ARRAY_SIZE(bad));

	/* deep nesting: parentheses and unary operators */
	size_t n = 200000;
	char *deep = pk__malloc(n * 2 + 64);
	char *p = deep + sprintf(deep, "\"%%d\", ");
	for (size_t i = 0; i < n / 2; i++)
		*p++ = '(';
	p += sprintf(p, "REC->a");
	for (size_t i = 0; i < n / 2; i++)
		*p++ = ')';
	*p = 0;
	char *text = format_text(3, deep);
	struct tf_event ev;
	int r = pk__tf_compile(&ev, text, strlen(text), "t", 8, 0);
	t_check(r == 0 && !ev.ok, "tfmt_deep_parens", "r=%d ok=%d", r, ev.ok);
	pk__tf_event_fini(&ev);
	pk__free(text);
	p = deep + sprintf(deep, "\"%%d\", ");
	for (size_t i = 0; i < n; i++)
		*p++ = '!';
	p += sprintf(p, "REC->a");
	text = format_text(4, deep);
	r = pk__tf_compile(&ev, text, strlen(text), "t", 8, 0);
	t_check(r == 0 && !ev.ok, "tfmt_deep_unary", "r=%d ok=%d", r, ev.ok);
	pk__tf_event_fini(&ev);
	pk__free(text);
	pk__free(deep);

	/* a field far outside any record, and truncated records */
	const char *far = "name: far\nID: 9\nformat:\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		"\tfield:unsigned long x;\toffset:65000;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] n;\toffset:8;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"%lu %s\", REC->x, __get_str(n)\n";
	r = pk__tf_compile(&ev, far, strlen(far), "t", 8, 0);
	struct tf_env env = { .long_size = 8 };
	struct tf_out o = { 0 };
	uint8_t rec[16] = { 0 };
	int pr = pk__tf_print(&ev, &env, rec, sizeof(rec), &o);
	t_check(r == 0 && ev.ok && pr == TF_FALLBACK && o.len == 0,
		"tfmt_far_field", "r=%d ok=%d print=%d len=%zu", r, ev.ok, pr,
		o.len);
	pk__tf_event_fini(&ev);

	struct rec good;
	mkrec(&good, 1, 2, 3, 4, "s", 5, 6, "name");
	text = format_text(1, fmts[4]);
	r = pk__tf_compile(&ev, text, strlen(text), "t", 8, 0);
	int fbs = 0;
	for (uint32_t sz = 0; sz < good.size; sz++) {
		o.len = 0;
		fbs += pk__tf_print(&ev, &env, good.b, sz, &o) == TF_FALLBACK;
	}
	/* a string whose location points past the record */
	uint32_t loc = (4u << 16) | 200;
	memcpy(good.b + 52, &loc, 4);
	o.len = 0;
	fbs += pk__tf_print(&ev, &env, good.b, good.size, &o) == TF_FALLBACK;
	t_check(r == 0 && fbs == (int)good.size + 1, "tfmt_truncated",
		"%d fallbacks of %u", fbs, good.size + 1);
	pk__tf_event_fini(&ev);
	pk__free(text);
	pk__tf_out_fini(&o);

	/* libtraceevent fails formats without the blank line after the
	 * common fields: so must the compiler */
	const char *nb = "name: nb\nID: 9\nformat:\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\tfield:unsigned long x;\toffset:8;\tsize:8;\tsigned:0;\n\n"
		"print fmt: \"%lu\", REC->x\n";
	r = pk__tf_compile(&ev, nb, strlen(nb), "t", 8, 0);
	t_check(r == 0 && !ev.ok, "tfmt_no_blank_line", "r=%d ok=%d", r, ev.ok);
	pk__tf_event_fini(&ev);

	/* not a format at all: no name or ID */
	r = pk__tf_compile(&ev, "garbage\n", 8, "t", 8, 0);
	t_check(r < 0, "tfmt_no_name", "r=%d", r);
	pk__tf_event_fini(&ev);
}

static void symbols(void)
{
	const char *ks = "ffffffff81000000 T _stext\n"
			 "ffffffff81000100 t alpha\n"
			 "ffffffff81000100 t alpha_alias\n"
			 "ffffffff81000200 T beta\n"
			 "zzzz bad line\n"
			 "ffffffff81000300 T gamma\t[mod]\n";
	struct tf_env env = { .long_size = 8 };
	int r = pk__tf_syms_parse(&env, ks, strlen(ks));
	const struct pk_ksym *a = pk__tf_sym_find(&env, 0xffffffff81000150ull);
	const struct pk_ksym *g = pk__tf_sym_find(&env, 0xffffffff81000300ull);
	const struct pk_ksym *g1 = pk__tf_sym_find(&env, 0xffffffff81000301ull);
	const struct pk_ksym *lo = pk__tf_sym_find(&env, 0x1000);
	t_check(r == 0 && env.syms.n == 5 && a && a->addr == 0xffffffff81000100ull &&
		g && g->len == 5 && !memcmp(g->name, "gamma", 5) &&
		!g1 && !lo, "tfmt_symbols", "r=%d n=%zu", r, env.syms.n);
	pk__tf_env_fini(&env);

	pk__tf_comms_parse(&env, "12 bash\n13 my prog\nbad\n14 never\n", 33);
	size_t l1, l2, l3;
	const char *c1 = pk__tf_comm(&env, 13, &l1), *c2 = pk__tf_comm(&env, 14, &l2);
	const char *c3 = pk__tf_comm(&env, 0, &l3);
	pk__tf_comm_add(&env, 12, "other", 5);
	size_t l4;
	const char *c4 = pk__tf_comm(&env, 12, &l4);
	t_check(!strcmp(c1, "my prog") && l1 == 7 && !strcmp(c2, "<...>") &&
		!strcmp(c3, "<idle>") && !strcmp(c4, "bash"), "tfmt_comms",
		"%s %s %s %s", c1, c2, c3, c4);
	pk__tf_env_fini(&env);
}

/* TF_KERNEL: the kernel's own reading, values worked out by hand */
static void kernel_style(void)
{
	static const struct { const char *pf, *want; } k[] = {
		/* libtraceevent misreads a parenthesised group after '&' */
		{ "\"v=%u\", REC->a & (0x10 | 0x20 | 0x40)", "v=48" },
		{ "\"v=%u w=%u\", REC->a - REC->h * 2 + 1, REC->a << 1 | 1 == 1",
		  "v=32 w=107" },
		{ "\"v=%d\", REC->b ? 1 : REC->a ? 2 : 3", "v=2" },
		{ "\"v=%d\", -REC->b + 10 - -2", "v=12" },
		{ "\"c=[%c] [%3c] [%-2c]\", REC->e, REC->e, REC->e",
		  "c=[C] [  C] [C ]" },
		{ "\"p=%p q=%p\", REC->c, REC->d",
		  "p=ffff888012345678 q=0000000000000000" },
		{ "\"m=%s\", __print_symbolic(REC->h, { HRTIMER_MODE_ABS, \"A\" }, "
		  "{ HRTIMER_MODE_REL_PINNED_HARD, \"RPH\" })", "m=RPH" },
		{ "\"m=%d\", REC->a + HRTIMER_MODE_REL_SOFT", "m=58" },
	};
	struct tf_env env = { .long_size = 8 };
	struct tf_out o = { 0 };
	struct rec r;
	int good = 0;

	mkrec(&r, 53, 0, 0xffff888012345678ull, 0, "s", 'C', 11, "n");
	for (size_t i = 0; i < PK_ARRAY_SIZE(k); i++) {
		char *text = format_text(1, k[i].pf);
		struct tf_event ev;
		int c = pk__tf_compile(&ev, text, strlen(text), "t", 8, TF_KERNEL);
		o.len = 0;
		int pr = c == 0 && ev.ok ? pk__tf_print(&ev, &env, r.b, r.size, &o)
					 : -1;
		if (pr == 0 && o.len == strlen(k[i].want) &&
		    !memcmp(o.p, k[i].want, o.len))
			good++;
		else
			printf("# kernel style %zu: '%.*s' want '%s' (%s)\n", i,
			       pr == 0 ? (int)o.len : 0, o.p ? o.p : "",
			       k[i].want, ev.why ? ev.why : "printed");
		pk__tf_event_fini(&ev);
		pk__free(text);
	}
	t_check(good == (int)PK_ARRAY_SIZE(k), "tfmt_kernel_style",
		"%d of %zu", good, PK_ARRAY_SIZE(k));
	/* a name the kernel would resolve and a reader of the file cannot
	 * reads as libtraceevent reads it: 0 */
	char *text = format_text(1, "\"x=%d\", REC->a + NOT_A_KNOWN_ENUM");
	struct tf_event ev;
	int c = pk__tf_compile(&ev, text, strlen(text), "t", 8, TF_KERNEL);
	o.len = 0;
	int pr = c == 0 && ev.ok ? pk__tf_print(&ev, &env, r.b, r.size, &o) : -1;
	t_check(pr == 0 && o.len == 4 && !memcmp(o.p, "x=53", 4),
		"tfmt_kernel_unknown_name", "r=%d ok=%d '%.*s'", c, ev.ok,
		(int)o.len, o.p ? o.p : "");
	pk__tf_event_fini(&ev);
	pk__free(text);
	pk__tf_out_fini(&o);
}

int main(void)
{
	against_tep();
	hostile();
	symbols();
	kernel_style();
	return t_exit();
}
