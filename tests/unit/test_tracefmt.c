/* SPDX-License-Identifier: MIT */
/* Tracing data (perf's 0.6 / 0.5 layouts) built here, parsed into
 * libtraceevent, payloads formatted; damaged blobs rejected; C++ names
 * shortened as perf shows them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/tracefmt.h>
#include "base/base.h"
#include "symbol/symtab.h"
#include "tracefmt/tracefmt.h"
#include "test.h"

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

static const char event_fmt[] =
	"name: test_ev\nID: 1234\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:char name[16];\toffset:12;\tsize:16;\tsigned:0;\n\n"
	"print fmt: \"value=%d name=%s\", REC->value, REC->name\n";

static void put(struct pk_buf *b, const void *p, size_t n)
{
	if (pk__buf_append(b, p, n))
		abort();
}

static void put_sized(struct pk_buf *b, const char *text, bool small)
{
	uint64_t n = strlen(text);
	uint32_t n32 = (uint32_t)n;

	if (small)
		put(b, &n32, 4);
	else
		put(b, &n, 8);
	put(b, text, n);
}

static void build(struct pk_buf *b, const char *version)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c',
				      'i', 'n', 'g' };
	uint32_t page = 4096, one = 1, zero = 0;
	unsigned char endian_long[2] = { 0, 8 };

	put(b, magic, sizeof(magic));
	put(b, version, strlen(version) + 1);
	put(b, endian_long, 2);
	put(b, &page, 4);
	put(b, "header_page", 12);
	put_sized(b, header_page, false);
	put(b, "header_event", 13);
	put_sized(b, "# compressed entry header\n", false);
	put(b, &zero, 4);            /* no ftrace formats */
	put(b, &one, 4);             /* one system */
	put(b, "testsys", 8);
	put(b, &one, 4);
	put_sized(b, event_fmt, false);
	put_sized(b, "", true);      /* kallsyms */
	put_sized(b, "0xffffffff81000000 : \"hello\\n\"\n", true);
	if (!strcmp(version, "0.6"))
		put_sized(b, "42 somecomm\n", false);
}

static void test_format(const char *version)
{
	struct pk_buf b = { 0 };
	struct pk_tracefmt *t;
	unsigned char raw[28] = { 0 };
	const char *txt, *name;
	size_t len = 0;
	int v = -17;
	char tname[64];

	build(&b, version);
	t = pk_tracefmt_new(b.data, b.len);
	snprintf(tname, sizeof(tname), "tracefmt_parse_%s", version);
	t_check(t != NULL, tname, "errno %d", errno);
	if (!t) {
		pk__buf_fini(&b);
		return;
	}
	name = pk_tracefmt_name(t, 1234);
	snprintf(tname, sizeof(tname), "tracefmt_name_%s", version);
	t_check(name && !strcmp(name, "testsys:test_ev"), tname, "%s",
		name ? name : "(null)");
	raw[0] = 1234 & 0xff;
	raw[1] = 1234 >> 8;
	memcpy(raw + 8, &v, 4);
	memcpy(raw + 12, "abc", 4);
	txt = pk_tracefmt_print(t, 1234, 0, raw, sizeof(raw), &len);
	snprintf(tname, sizeof(tname), "tracefmt_print_%s", version);
	t_check(txt && !strcmp(txt, "value=-17 name=abc") && len == strlen(txt),
		tname, "'%s'", txt ? txt : "(null)");
	{
		uint64_t id = 0, val = 0;
		const char *str = NULL;
		size_t n = 0;

		snprintf(tname, sizeof(tname), "tracefmt_fields_%s", version);
		T_CHECK(tname, !pk_tracefmt_record_id(t, raw, sizeof(raw), &id) &&
			id == 1234 &&
			!pk_tracefmt_field_num(t, id, raw, sizeof(raw), "value", &val) &&
			val == (uint64_t)-17 &&
			!pk_tracefmt_field_str(t, id, raw, sizeof(raw), "name", &str, &n) &&
			n == 3 && !memcmp(str, "abc", 3));
		snprintf(tname, sizeof(tname), "tracefmt_field_errors_%s", version);
		T_CHECK(tname,
			pk_tracefmt_field_num(t, id, raw, sizeof(raw), "nope", &val) == -ENOENT &&
			pk_tracefmt_field_num(t, 99, raw, sizeof(raw), "value", &val) == -ENOENT &&
			pk_tracefmt_field_num(t, id, raw, 10, "value", &val) == -ERANGE &&
			pk_tracefmt_field_str(t, id, raw, 20, "name", &str, &n) == -ERANGE &&
			pk_tracefmt_field_num(t, id, raw, sizeof(raw), "name", &val) == -EINVAL &&
			pk_tracefmt_field_str(t, id, raw, sizeof(raw), "value", &str, &n) == -EINVAL &&
			pk_tracefmt_record_id(t, raw, 1, &id) == -ERANGE);
	}
	snprintf(tname, sizeof(tname), "tracefmt_unknown_id_%s", version);
	T_CHECK(tname, pk_tracefmt_print(t, 99, 0, raw, sizeof(raw), &len) == NULL &&
		pk_tracefmt_name(t, 99) == NULL);
	pk_tracefmt_free(t);
	pk__buf_fini(&b);
}

static void test_damage(void)
{
	struct pk_buf b = { 0 };
	int bad = 0, crashed_free = 1;

	build(&b, "0.6");
	T_CHECK("tracefmt_check_layout", pk__tracefmt_check(b.data, b.len) == 0 &&
		pk__tracefmt_check(b.data, b.len / 2) == -EPROTO);
	/* every truncation that cuts a section is refused, none crashes */
	for (size_t n = 0; n + 20 < b.len; n += 7) {
		struct pk_tracefmt *t = pk_tracefmt_new(b.data, n);

		if (!t && errno == EPROTO)
			bad++;
		pk_tracefmt_free(t);
	}
	T_CHECK("tracefmt_truncations_refused", bad >= (int)((b.len - 20) / 7));
	b.data[0] ^= 0xff;
	T_CHECK("tracefmt_bad_magic", !pk_tracefmt_new(b.data, b.len) && errno == EPROTO);
	T_CHECK("tracefmt_free_null", crashed_free);
	pk_tracefmt_free(NULL);
	pk__buf_fini(&b);
}

static void strip_case(const char *in, const char *want)
{
	char buf[512], name[80];

	snprintf(buf, sizeof(buf), "%s", in);
	pk__demangle_strip(buf);
	snprintf(name, sizeof(name), "demangle_strip_%.40s", want);
	for (char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			*c = '_';
	t_check(!strcmp(buf, want), name, "'%s' -> '%s', want '%s'", in, buf, want);
}

static void test_demangle(void)
{
	char *d;

	strip_case("df_process_deferred_rescans()", "df_process_deferred_rescans");
	strip_case("__asan::QuickCheckForUnpoisonedRegion(unsigned long, unsigned long)",
		   "__asan::QuickCheckForUnpoisonedRegion");
	strip_case("foo::bar(int) const", "foo::bar");
	strip_case("unsigned long ns::f<int>(int*)", "ns::f<int>");
	strip_case("a::b(char const*)::$_1::operator()(unsigned int) const",
		   "a::b(char const*)::$_1::operator()");
	strip_case("x::y(int) [clone .isra.0]", "x::y");
	strip_case("a::b(long) const::{lambda(long)#1}::operator()(long) const",
		   "a::b(long) const::{lambda(long)#1}::operator()");
	strip_case("bool std::operator< <char>(std::string const&, char const*)",
		   "std::operator< <char>");
	strip_case("virtual thunk to std::ostream::~ostream()",
		   "virtual thunk to std::ostream::~ostream()");
	strip_case("transaction clone for operator delete(void*)",
		   "transaction clone for operator delete(void*)");
	strip_case("hidden alias for f(int)", "hidden alias for f(int)");
	strip_case("decltype (({parm#2}->Found)((a::M)())) a::L<void, a::M>::Lookup<a::H<b> >(c::v, a::H<b>*)",
		   "a::L<void, a::M>::Lookup<a::H<b> >");
	strip_case("({parm#3}({parm#1}, 0)) t<a*>::s<int, t<a*>::c(a*)::{lambda(a*, unsigned int)#1}>(a*, int)",
		   "t<a*>::s<int, t<a*>::c(a*)::{lambda(a*, unsigned int)#1}>");
	strip_case("vtable for Foo", "vtable for Foo");
	d = pk__demangle("_Z27df_process_deferred_rescansv");
	if (!d)
		t_skip("demangle_runtime", "no C++ runtime demangler here");
	else
		t_check(!strcmp(d, "df_process_deferred_rescans"), "demangle_runtime",
			"%s", d);
	pk__free(d);
	T_CHECK("demangle_plain_c", pk__demangle("main") == NULL);
}

int main(void)
{
	test_format("0.6");
	test_format("0.5");
	test_damage();
	test_demangle();
	return t_exit();
}
