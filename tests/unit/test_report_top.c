/* SPDX-License-Identifier: MIT */
/* A live report as perf top keeps it: pk_report_print_top's rows (the
 * kernel named "[kernel]", widths of the rows shown, -E's count, the cut
 * to the terminal, colors, the browser's fitted columns and titles) and
 * pk_report_decay's 7/8 ageing, on kernel samples at the symbols of a
 * kallsyms file the test writes. */
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

static union {
	struct perf_event_header h;
	unsigned char b[512];
} rec;

static struct perf_event_attr attr = {
	.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD,
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

/* N kernel samples at IP of PERIOD each. */
static int add(struct pk_report *r, uint64_t ip, uint64_t period, int n)
{
	struct pk_sample sm = { .pid = 7, .tid = 7, .ip = ip, .period = period };
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
