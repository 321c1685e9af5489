/* SPDX-License-Identifier: MIT */
/* A live report as perf top keeps it: pk_report_print_top's rows (the
 * kernel named "[kernel]", widths of the rows shown, -E's count, the cut
 * to the terminal, colors, the browser's fitted columns and titles) and
 * pk_report_decay's 7/8 ageing (callchains: perf's node sums of their
 * own and their children's hits; --children: callers deleted), on kernel
 * samples at the symbols of a kallsyms file the test writes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include <perfkit/report.h>
#include <perfkit/session.h>
#include "test.h"

#define DO_ONE 0xffffffff81001010ull
#define HELPER 0xffffffff81001044ull
#define FN_A 0xffffffff81002010ull
#define FN_B 0xffffffff81002110ull
#define FN_C 0xffffffff81002210ull
#define FN_D 0xffffffff81002310ull

static union {
	struct perf_event_header h;
	unsigned char b[512];
} rec;

static struct perf_event_attr attr = {
	.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD |
		       PERF_SAMPLE_CALLCHAIN,
};

static void kernel_map(struct pk_session *s)
{
	static const char name[] = "[kernel.kallsyms]_text";
	uint64_t start = 0xffffffff81000000ull, len = 0x10000000;
	int32_t pid = -1;

	t_mmap2(rec.b, sizeof(rec.b), (uint32_t)pid, start, len, start, name,
		PERF_RECORD_MISC_KERNEL);
	pk_session_process(s, &rec.h);
}

/* N kernel samples at IP of PERIOD each, their callchain CHAIN (NC ips,
 * IP first; none: no callchain). */
static int add_chain(struct pk_report *r, uint64_t ip, uint64_t period, int n,
		     const uint64_t *chain, uint64_t nc)
{
	struct pk_sample sm = { .pid = 7, .tid = 7, .ip = ip, .period = period,
				.callchain = { nc, chain } };
	struct pk_sample got;
	struct pk_record pr = { .hdr = &rec.h, .type = PERF_RECORD_SAMPLE,
				.misc = PERF_RECORD_MISC_KERNEL, .attr = 0 };
	struct pk_session_sample ss = { &pr, &got, 0, "worker" };
	int err = 0;

	for (int i = 0; i < n && !err; i++) {
		if (pk_sample_encode(&attr, &sm, PERF_RECORD_MISC_KERNEL, rec.b,
				     sizeof(rec.b)) < 0 ||
		    pk_sample_decode(&attr, &rec.h, &got))
			return -EINVAL;
		pr.size = rec.h.size;
		err = pk_report_add(r, &ss);
	}
	return err;
}

static int add(struct pk_report *r, uint64_t ip, uint64_t period, int n)
{
	return add_chain(r, ip, period, n, NULL, 0);
}

/* pk_report_print_top's text with O. */
static char *top_text(struct pk_report *r, const struct pk_report_top_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	if (pk_report_print_top(r, m, o)) {
		fclose(m);
		free(buf);
		return NULL;
	}
	fclose(m);
	return buf;
}

static void expect(const char *name, struct pk_report *r,
		   const struct pk_report_top_opts *o, const char *want)
{
	char *got = top_text(r, o);

	t_check(got && !strcmp(got, want), name, "got '%s', want '%s'",
		got ? got : "(error)", want);
	free(got);
}

static void test_top(struct pk_session *s, struct pk_perfdata *pd)
{
	PK_OPTS(pk_report_new_opts, ro, .sort = "dso,sym");
	PK_OPTS(pk_report_top_opts, o);
	struct pk_report *r = pk_report_new(s, pd, &ro);

	if (!r) {
		t_fail("top_report_new", "errno %d", errno);
		return;
	}
	T_CHECK("top_add", !add(r, DO_ONE, 100, 6) &&
		!add(r, HELPER, 100, 2));
	expect("top_rows", r, &o,
	       "    75.00%  [kernel]       [k] do_one\n"
	       "    25.00%  [kernel]       [k] helper_two\n");
	o.rows = 1;
	expect("top_rows_limit", r, &o, "    75.00%  [kernel]       [k] do_one\n");
	o.rows = 0;
	o.width = 20;
	expect("top_width_cut", r, &o,
	       "    75.00%  [kernel\n    25.00%  [kernel\n");
	o.width = 0;
	o.color = true;
	expect("top_colors", r, &o,
	       "  \033[31m  75.00%\033[m  [kernel]       [k] do_one\n"
	       "  \033[31m  25.00%\033[m  [kernel]       [k] helper_two\n");
	o.color = false;
	o.percent_limit = 30;
	expect("top_percent_limit", r, &o,
	       "    75.00%  [kernel]       [k] do_one\n");
	o.percent_limit = 0;
	o.fit = true;
	expect("top_fit", r, &o,
	       "Overhead  Shared O  Symbol\n"
	       "    75.00%  [kernel]  [k] do_one\n"
	       "    25.00%  [kernel]  [k] helper_two\n");
	o.fit = false;
	o.show_nr_samples = true;
	expect("top_nr_samples", r, &o,
	       "    75.00%             6  [kernel]       [k] do_one\n"
	       "    25.00%             2  [kernel]       [k] helper_two\n");
	o.show_nr_samples = false;

	/* 600 -> 525, 200 -> 175; then 100 more at helper_two: 525/800 */
	pk_report_decay(r);
	T_CHECK("top_decay_total", pk_report_total_period(r, 0) == 700);
	T_CHECK("top_decay_add", !add(r, HELPER, 100, 1));
	expect("top_decay_shares", r, &o,
	       "    65.62%  [kernel]       [k] do_one\n"
	       "    34.38%  [kernel]       [k] helper_two\n");
	for (int i = 0; i < 80; i++)
		pk_report_decay(r);
	T_CHECK("top_decay_to_nothing", pk_report_total_period(r, 0) == 0);
	expect("top_decayed_rows", r, &o, "");
	T_CHECK("top_unknown_attr", pk_report_total_period(r, 5) == 0);
	pk_report_free(r);
}

#define K(ip) PERF_CONTEXT_KERNEL, ip

/* Callchains aged as perf ages them: do_one called by fn_b (by fn_a or
 * fn_d) or by fn_c. perf's nodes: [do_one] over [fn_b] (over [fn_a],
 * [fn_d]) and [fn_c]; after the aging a node sums its own hits and its
 * children's only: [do_one] has fn_c's 70 of 280 (fn_b's run ends have
 * no hit of their own), [fn_b] 140 + 70. */
static void test_chain_decay(struct pk_session *s, struct pk_perfdata *pd)
{
	PK_OPTS(pk_report_new_opts, ro, .sort = "dso,sym", .callchain = true);
	PK_OPTS(pk_report_top_opts, o, .chain = PK_REPORT_CHAIN_GRAPH,
		.chain_percent = 0.5);
	static const uint64_t ba[] = { K(DO_ONE), FN_B, FN_A };
	static const uint64_t bd[] = { K(DO_ONE), FN_B, FN_D };
	static const uint64_t c[] = { K(DO_ONE), FN_C };
	struct pk_report *r = pk_report_new(s, pd, &ro);

	if (!r) {
		t_fail("top_chain_report_new", "errno %d", errno);
		return;
	}
	T_CHECK("top_chain_add", !add_chain(r, DO_ONE, 80, 2, ba, 4) &&
		!add_chain(r, DO_ONE, 80, 1, bd, 4) &&
		!add_chain(r, DO_ONE, 80, 1, c, 3));
	expect("top_chain_rows", r, &o,
	       "   100.00%  [kernel]       [k] do_one\n"
	       "            |\n"
	       "            ---do_one\n"
	       "               |          \n"
	       "               |--75.00%--fn_b\n"
	       "               |          |          \n"
	       "               |          |--50.00%--fn_a\n"
	       "               |          |          \n"
	       "               |           --25.00%--fn_d\n"
	       "               |          \n"
	       "                --25.00%--fn_c\n\n");
	T_CHECK("top_chain_decay", !pk_report_decay(r));
	expect("top_chain_aged", r, &o,
	       "   100.00%  [kernel]       [k] do_one\n"
	       "            |          \n"
	       "             --25.00%--do_one\n"
	       "                       |          \n"
	       "                       |--75.00%--fn_b\n"
	       "                       |          |          \n"
	       "                       |          |--50.00%--fn_a\n"
	       "                       |          |          \n"
	       "                       |           --25.00%--fn_d\n"
	       "                       |          \n"
	       "                        --25.00%--fn_c\n\n");
	/* what comes after adds to every node on its way */
	T_CHECK("top_chain_add_after", !add_chain(r, DO_ONE, 40, 1, bd, 4));
	expect("top_chain_added", r, &o,
	       "   100.00%  [kernel]       [k] do_one\n"
	       "            |          \n"
	       "             --34.38%--do_one\n"
	       "                       |          \n"
	       "                       |--78.12%--fn_b\n"
	       "                       |          |          \n"
	       "                       |          |--43.75%--fn_a\n"
	       "                       |          |          \n"
	       "                       |           --34.38%--fn_d\n"
	       "                       |          \n"
	       "                        --21.88%--fn_c\n\n");
	pk_report_free(r);
}

/* A live view (perf top's browser): N entries, the first FIRST, its
 * first callchain row ROW. */
static void check_view(const char *name, struct pk_report *r, uint32_t n,
		       const char *first, const char *row)
{
	PK_OPTS(pk_report_print_opts, po, .chain = PK_REPORT_CHAIN_GRAPH,
		.chain_percent = 0.5, .top = true);
	struct pk_report_view *v = pk_report_view_new(r, 0, &po);
	struct pk_report_entry e = { .sz = sizeof(e) };
	const uint32_t *rows;
	char buf[64] = "";

	if (v && !pk_report_view_entry(v, 0, &e) &&
	    pk_report_view_chain(v, 0, 0, &rows) > 0)
		pk_report_view_chain_line(v, rows[0], buf, sizeof(buf));
	t_check(v && pk_report_view_nr(v) == n && e.sym &&
		!strcmp(e.sym, first) && !strcmp(buf, row), name,
		"%u entries, the first %s, its row '%s'",
		v ? pk_report_view_nr(v) : 0, e.sym ? e.sym : "-", buf);
	pk_report_view_free(v);
}

/* --children: a caller's entry (no period of its own) is deleted at each
 * aging, as perf deletes it; samples make it anew. */
static void test_children_decay(struct pk_session *s, struct pk_perfdata *pd)
{
	PK_OPTS(pk_report_new_opts, ro, .sort = "dso,sym", .callchain = true,
		.children = true, .caller = true);
	PK_OPTS(pk_report_top_opts, o);
	static const uint64_t ba[] = { K(DO_ONE), FN_B, FN_A };
	struct pk_report *r = pk_report_new(s, pd, &ro);

	if (!r) {
		t_fail("top_children_report_new", "errno %d", errno);
		return;
	}
	T_CHECK("top_children_add", !add_chain(r, DO_ONE, 80, 4, ba, 4));
	expect("top_children_rows", r, &o,
	       "   100.00%   100.00%  [kernel]       [k] do_one\n"
	       "   100.00%     0.00%  [kernel]       [k] fn_a\n"
	       "   100.00%     0.00%  [kernel]       [k] fn_b\n");
	check_view("top_view", r, 3, "do_one", "fn_a");
	o.sym = "fn_";
	expect("top_sym_filter", r, &o,
	       "   100.00%     0.00%  [kernel]       [k] fn_a\n"
	       "   100.00%     0.00%  [kernel]       [k] fn_b\n");
	o.sym = NULL;
	T_CHECK("top_children_decay", !pk_report_decay(r));
	expect("top_children_deleted", r, &o,
	       "   100.00%   100.00%  [kernel]       [k] do_one\n");
	check_view("top_view_deleted", r, 1, "do_one", "fn_a");
	T_CHECK("top_children_again", !add_chain(r, DO_ONE, 40, 1, ba, 4));
	expect("top_children_anew", r, &o,
	       "   100.00%   100.00%  [kernel]       [k] do_one\n"
	       "    12.50%     0.00%  [kernel]       [k] fn_a\n"
	       "    12.50%     0.00%  [kernel]       [k] fn_b\n");
	pk_report_free(r);
}

/* report's other keys (perf top lays them out otherwise): refused. */
static void test_other_keys(struct pk_session *s, struct pk_perfdata *pd)
{
	PK_OPTS(pk_report_new_opts, ro, .sort = "dso,cpu");
	struct pk_report *r = pk_report_new(s, pd, &ro);
	FILE *m = fopen("/dev/null", "w");

	T_CHECK("top_other_keys", r && m &&
		pk_report_print_top(r, m, NULL) == -ENOTSUP);
	if (m)
		fclose(m);
	pk_report_free(r);
}

int main(void)
{
	char ks[] = "/tmp/pktopksXXXXXX", pdp[] = "/tmp/pktoppdXXXXXX";
	const char *text = "ffffffff81000000 T _text\n"
			   "ffffffff81001000 T do_one\n"
			   "ffffffff81001040 t helper_two\n"
			   "ffffffff81002000 T fn_a\n"
			   "ffffffff81002100 T fn_b\n"
			   "ffffffff81002200 T fn_c\n"
			   "ffffffff81002300 T fn_d\n"
			   "ffffffff81003000 T last_fn\n";
	int kfd = mkstemp(ks), pfd = mkstemp(pdp);
	PK_OPTS(pk_session_opts, so, .kallsyms = ks, .buildid_dir = "");
	struct pk_pdwriter *w;
	struct pk_perfdata *pd = NULL;
	struct pk_session *s;
	uint64_t id = 1;

	if (kfd < 0 || pfd < 0 || write(kfd, text, strlen(text)) < 0) {
		t_fail("top_setup", "temporary files");
		return t_exit();
	}
	close(kfd);
	w = pk_pdwriter_open_fd(pfd, NULL);
	if (w && pk_pdwriter_add_attr(w, &attr, &id, 1, "cpu-clock") == 0 &&
	    pk_pdwriter_write(w, &(struct perf_event_header){
			PK_RECORD_FINISHED_ROUND, 0, 8 }, NULL, 0) == 0 &&
	    pk_pdwriter_close(w) == 0)
		pd = pk_perfdata_open(pdp, NULL);
	s = pk_session_new(&so);
	if (pd && s) {
		kernel_map(s);
		test_top(s, pd);
		test_other_keys(s, pd);
		test_chain_decay(s, pd);
		test_children_decay(s, pd);
	} else {
		t_fail("top_setup", "perf.data or session: errno %d", errno);
	}
	pk_session_free(s);
	pk_perfdata_free(pd);
	close(pfd);
	unlink(pdp);
	unlink(ks);
	return t_exit();
}
