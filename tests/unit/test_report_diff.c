/* SPDX-License-Identifier: MIT */
/* pk_report_diff_print on two perf.data files the project's writer makes:
 * kernel samples resolved through two kallsyms files where the functions
 * moved (a "rebuilt" kernel: they pair by name), perf diff's layout and
 * order for delta-abs and ratio, and the argument checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/perfdata.h>
#include <perfkit/report.h>
#include <perfkit/session.h>
#include "test.h"

static union {
	struct perf_event_header h;
	unsigned char b[512];
} rec;

static struct perf_event_attr attr = {
	.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
	.config = PERF_COUNT_SW_CPU_CLOCK,
	.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD |
		       PERF_SAMPLE_ID,
};

/* The kernel's MMAP2 record, as perf writes it: words of header, pid and
 * tid (-1), start, length, offset (the start), then the name at 72 */
static int put_kmap(struct pk_pdwriter *w)
{
	uint64_t m[12] = { 0, ~0ull, 0xffffffff81000000ull, 0x1000000,
			   0xffffffff81000000ull };
	struct perf_event_header h = { PERF_RECORD_MMAP2,
				       PERF_RECORD_MISC_KERNEL, sizeof(m) };

	memcpy(m, &h, sizeof(h));
	memcpy(&m[9], "[kernel.kallsyms]_text", 23);
	return pk_pdwriter_write(w, (struct perf_event_header *)m, NULL, 0);
}

/* PATH: samples at the IPS with the PERIODS (N of them). */
static int write_file(const char *path, const uint64_t *ips,
		      const uint64_t *periods, int n)
{
	struct pk_pdwriter *w = pk_pdwriter_open(path, NULL);
	uint64_t id = 7;
	int err = w && pk_pdwriter_add_attr(w, &attr, &id, 1, "cpu-clock") == 0 ?
		  put_kmap(w) : -EINVAL;

	for (int i = 0; i < n && !err; i++) {
		struct pk_sample sm = { .pid = 5, .tid = 5, .ip = ips[i],
					.period = periods[i], .id = 7 };
		long len = pk_sample_encode(&attr, &sm, PERF_RECORD_MISC_KERNEL,
					    rec.b, sizeof(rec.b));

		err = len < 0 ? (int)len : pk_pdwriter_write(w, &rec.h, NULL, 0);
	}
	return w && pk_pdwriter_close(w) ? -EIO : err;
}

struct side {
	struct pk_perfdata *pd;
	struct pk_session *s;
	struct pk_report *r;
};

static int sample(void *ctx, struct pk_session *s,
		  const struct pk_session_sample *sm)
{
	(void)s;
	return pk_report_add(ctx, sm);
}

/* Reads PATH with the kernel symbols of KSYMS into a report. */
static int load(struct side *d, const char *path, const char *ksyms)
{
	PK_OPTS(pk_session_opts, so, .kallsyms = ksyms, .buildid_dir = "");
	PK_OPTS(pk_report_new_opts, ro, .sort = "dso,sym");
	PK_OPTS(pk_tool, tool, .sample = sample);

	d->pd = pk_perfdata_open(path, NULL);
	d->s = pk_session_new(&so);
	d->r = d->pd && d->s ? pk_report_new(d->s, d->pd, &ro) : NULL;
	return d->r ? pk_session_run(d->s, d->pd, &tool, d->r) : -ENOMEM;
}

static void unload(struct side *d)
{
	pk_report_free(d->r);
	pk_session_free(d->s);
	pk_perfdata_free(d->pd);
}

static int write_text(char *path, const char *text)
{
	int fd = mkstemp(path);
	int ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -EIO;
}

/* The text of pk_report_diff_print over R with OPTS, or NULL. */
static char *diff_text(struct pk_report **r, unsigned n,
		       const struct pk_report_diff_opts *o, int *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*err = f ? pk_report_diff_print(r, n, f, o) : -ENOMEM;
	if (f)
		fclose(f);
	return buf;
}

static void test_diff(void)
{
	char ks_old[] = "/tmp/pkdiffaXXXXXX", ks_new[] = "/tmp/pkdiffbXXXXXX";
	char f_old[] = "/tmp/pkdiffcXXXXXX", f_new[] = "/tmp/pkdiffdXXXXXX";
	/* the new kernel has extra_fn first: a_fn and b_fn moved */
	static const uint64_t ip_old[] = { 0xffffffff81001010ull,
		0xffffffff81001020ull, 0xffffffff81002008ull };
	static const uint64_t p_old[] = { 200, 100, 100 };
	static const uint64_t ip_new[] = { 0xffffffff81001004ull,
		0xffffffff81002010ull, 0xffffffff81003010ull };
	static const uint64_t p_new[] = { 200, 100, 100 };
	struct side a = { 0 }, b = { 0 };
	int err = write_text(ks_old, "ffffffff81000000 T _text\n"
			     "ffffffff81001000 T a_fn\nffffffff81002000 T b_fn\n"
			     "ffffffff81003000 T c_end\n");

	if (!err)
		err = write_text(ks_new, "ffffffff81000000 T _text\n"
				 "ffffffff81001000 T extra_fn\n"
				 "ffffffff81002000 T a_fn\nffffffff81003000 T b_fn\n"
				 "ffffffff81004000 T c_end\n");
	if (!err)
		err = write_text(f_old, "") ?: write_file(f_old, ip_old, p_old, 3);
	if (!err)
		err = write_text(f_new, "") ?: write_file(f_new, ip_new, p_new, 3);
	if (!err)
		err = load(&a, f_old, ks_old) ?: load(&b, f_new, ks_new);
	T_CHECK("diff_inputs", err == 0);
	if (!err) {
		struct pk_report *r[] = { a.r, b.r };
		PK_OPTS(pk_report_diff_opts, o, .order = 1);
		char *t = diff_text(r, 2, &o, &err);

		t_check(err == 0 && t && !strcmp(t,
			"# Event 'cpu-clock'\n#\n"
			"# Baseline  Delta Abs  Shared Object      Symbol      \n"
			"# ........  .........  .................  ............\n#\n"
			"    75.00%    -50.00%  [kernel.kallsyms]  [k] a_fn\n"
			"              +50.00%  [kernel.kallsyms]  [k] extra_fn\n"
			"    25.00%     +0.00%  [kernel.kallsyms]  [k] b_fn\n"),
			"diff_delta_abs_pairs_by_name", "err %d:\n%s", err, t ? t : "");
		free(t);
		o.compute = PK_REPORT_RATIO;
		o.formula = true;
		t = diff_text(r, 2, &o, &err);
		t_check(err == 0 && t && strstr(t,
			"    25.00%        1.000000  ") && strstr(t, " 100 / 100  ") &&
			strstr(t, "N/A") && strstr(t, "1.000000") < strstr(t, "0.333333") &&
			strstr(t, "0.333333") < strstr(t, "N/A"),
			"diff_ratio_order", "err %d:\n%s", err, t ? t : "");
		free(t);
		o.order = 2;
		free(diff_text(r, 2, &o, &err));
		T_CHECK("diff_order_out_of_range", err == -EINVAL);
		free(diff_text(r, 1, NULL, &err));
		T_CHECK("diff_needs_two", err == -EINVAL);
		o.order = 0;
		o.compute = PK_REPORT_WDIFF;
		free(diff_text(r, 2, &o, &err));
		T_CHECK("diff_wdiff_needs_weights", err == -EINVAL);
	}
	unload(&a);
	unload(&b);
	unlink(ks_old);
	unlink(ks_new);
	unlink(f_old);
	unlink(f_new);
}

int main(void)
{
	test_diff();
	return t_exit();
}
