/* SPDX-License-Identifier: MIT */
/*
 * TSC2NSEC and OFFSET options: files recorded with the x86-tsc clock carry
 * trace-cmd's multiplier/shift/offset; the reader converts each timestamp
 * to (tsc * mult) >> shift ns and adds the OFFSET option. Files are built
 * with pk_tdwriter; trace-cmd report (where installed) must print the
 * same bytes as perfkit's report. pk_ftrace_tsc2nsec() live where perf
 * gives the conversion.
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

#define PS 4096

static const char hdr_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char fmt_val[] =
	"name: myev\nID: 100\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"value=%d\", REC->value\n";

struct rec { uint16_t type; uint8_t flags, pc; int32_t pid; int32_t value; };

T_LSAN_LIBTRACEEVENT

#define NEV 300
/* TSC values: a 3 GHz-like counter far from zero, irregular steps */
static uint64_t tsc_of(int i)
{
	return 0x2000000000ull + (uint64_t)i * 3001 + (uint64_t)(i * i % 97);
}

static int make_cpu(void)
{
	char path[] = "/tmp/pktsc.XXXXXX";
	int fd = mkstemp(path);
	static uint8_t page[PS];
	struct pk_rb_layout l;
	struct pk_rb_enc e;
	int i = 0;

	if (fd < 0)
		return -1;
	unlink(path);
	pk__rb_layout_default(&l, 8, false);
	while (i < NEV) {
		pk__rb_enc_init(&e, page, PS, &l, tsc_of(i));
		for (; i < NEV; i++) {
			struct rec r = { 100, 0, 0, 40, i };
			if (pk__rb_enc_event(&e, tsc_of(i), &r, sizeof(r), false))
				break;
		}
		pk__rb_enc_finish(&e, 0);
		if (write(fd, page, PS) != PS)
			return -1;
	}
	return fd;
}

/* A DATE option in the files written (record --date's). */
static long long g_date;
static bool g_has_date;

/* A file; MULT 0: no TSC2NSEC option; HAS_OFF: an OFFSET option. */
static int write_file(const char *path, uint32_t mult, uint32_t shift,
		      uint64_t tsc_off, bool has_off, long long off)
{
	PK_OPTS(pk_tdwriter_opts, o, .compression = "none", .page_size = PS,
		.long_size = 8);
	struct pk_tdwriter *w = pk_tdwriter_open(path, &o);
	if (!w)
		return -errno;
	pk_tdwriter_set_item(w, PK_TD_HEADER_PAGE, hdr_page, strlen(hdr_page));
	pk_tdwriter_set_item(w, PK_TD_HEADER_EVENT, "x", 1);
	pk_tdwriter_set_item(w, PK_TD_CMDLINES, "40 tscproc\n", 11);
	pk_tdwriter_set_item(w, PK_TD_TRACE_CLOCK,
			     "local global counter [x86-tsc]\n", 31);
	pk_tdwriter_add_format(w, "test", fmt_val, strlen(fmt_val));
	int r = 0;
	if (mult)
		r = pk_tdwriter_set_tsc2nsec(w, mult, shift, tsc_off);
	if (!r && g_has_date)
		r = pk_tdwriter_set_date(w, g_date);
	if (!r && has_off)
		r = pk_tdwriter_set_ts_offset(w, off);
	int ids[1] = { 0 }, fds[1] = { make_cpu() };
	if (!r)
		r = fds[0] < 0 ? -EIO
			       : pk_tdwriter_add_buffer(w, "", "x86-tsc", 1, ids,
							fds);
	if (r) {
		pk_tdwriter_free(w);
		return r;
	}
	r = pk_tdwriter_close(w);
	close(fds[0]);
	return r;
}

static char *report_pk(const char *path, int *nev, uint64_t *ts)
{
	struct pk_tracedat *td = NULL;
	struct pk_tracedat_event ev;
	char *buf = NULL;
	size_t len = 0;

	*nev = 0;
	if (((td = pk_tracedat_open(path)) ? 0 : -errno))
		return NULL;
	while (pk_tracedat_next(td, &ev) > 0 && *nev < NEV)
		ts[(*nev)++] = ev.ts;
	pk_tracedat_rewind(td, NULL, 0);
	FILE *f = open_memstream(&buf, &len);
	pk_tracedat_report(td, f, NULL);
	fclose(f);
	pk_tracedat_free(td);
	return buf;
}

static char *report_tc_opts(const char *path, const char *opts)
{
	char cmd[400], chunk[65536], *buf = NULL;
	size_t len = 0, got;

	snprintf(cmd, sizeof(cmd), "trace-cmd report %s -i %s 2>&1", opts,
		 path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return NULL;
	FILE *m = open_memstream(&buf, &len);
	while ((got = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, got, m);
	pclose(p);
	fclose(m);
	return buf;
}

static char *report_tc(const char *path)
{
	return report_tc_opts(path, "");
}

/* PATH's report under time options T and report FLAGS. */
static char *report_pk_time(const char *path, const struct pk_tracedat_time *t,
			    unsigned flags)
{
	struct pk_tracedat *td = pk_tracedat_open(path);
	char *buf = NULL;
	size_t len = 0;

	if (!td)
		return NULL;
	if (pk_tracedat_set_time(td, t)) {
		pk_tracedat_free(td);
		return NULL;
	}
	PK_OPTS(pk_report_opts, o, .flags = flags);
	FILE *f = open_memstream(&buf, &len);
	pk_tracedat_report(td, f, &o);
	fclose(f);
	pk_tracedat_free(td);
	return buf;
}

/* trace-cmd report's time options (--nodate, --raw-ts, --align-ts,
 * --ts2secs; -t, --ts-diff) on a file with DATE and OFFSET options (and
 * TSC2NSEC when MULT): perfkit's report with the same settings prints
 * what trace-cmd prints. */
static void time_opts(const char *name, uint32_t mult, uint32_t shift)
{
	static const struct {
		const char *tc;
		unsigned time, flags;
		uint64_t hz;
	} c[] = {
		{ "", 0, 0, 0 },
		{ "--nodate", PK_TD_TIME_NODATE, 0, 0 },
		{ "--raw-ts", PK_TD_TIME_RAW, 0, 0 },
		{ "--raw-ts -t", PK_TD_TIME_RAW, PK_REPORT_FULL_TS, 0 },
		{ "--align-ts", PK_TD_TIME_ALIGN, 0, 0 },
		{ "--align-ts -t --ts-diff", PK_TD_TIME_ALIGN,
		  PK_REPORT_FULL_TS | PK_REPORT_TS_DIFF, 0 },
		{ "--nodate --align-ts", PK_TD_TIME_NODATE | PK_TD_TIME_ALIGN,
		  0, 0 },
		{ "--ts2secs 1000000000", 0, 0, 1000000000 },
		{ "--ts2secs 3000000000 -t", 0, PK_REPORT_FULL_TS, 3000000000u },
		{ "--raw-ts --align-ts --nodate", PK_TD_TIME_RAW |
		  PK_TD_TIME_ALIGN | PK_TD_TIME_NODATE, 0, 0 },
	};
	char path[128], tn[200];

	snprintf(path, sizeof(path), "/tmp/pktsc-%s-%d.dat", name,
		 (int)getpid());
	g_has_date = true;
	g_date = 1700000000123456ll;
	int r = write_file(path, mult, shift, 0, true, 777000);
	g_has_date = false;
	snprintf(tn, sizeof(tn), "time_%s_write", name);
	if (!t_check(r == 0, tn, "r=%d", r))
		return;
	char *first = NULL;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct pk_tracedat_time t = { sizeof(t), c[i].time, 0, c[i].hz };
		char *pk = report_pk_time(path, &t, c[i].flags);

		if (i == 1) {	/* the DATE option counts (--nodate differs) */
			snprintf(tn, sizeof(tn), "time_%s_date_counts", name);
			t_check(first && pk && strcmp(first, pk), tn,
				"--nodate changed nothing");
		}

		snprintf(tn, sizeof(tn), "time_%s %s", name, c[i].tc);
		if (access("/usr/bin/trace-cmd", X_OK)) {
			t_skip(tn, "trace-cmd not installed");
		} else {
			char *tc = report_tc_opts(path, c[i].tc);
			bool same = tc && pk && !strcmp(tc, pk);

			if (!same && tc && pk) {
				size_t k = 0;
				while (tc[k] && tc[k] == pk[k])
					k++;
				size_t from = k > 80 ? k - 80 : 0;
				printf("# trace-cmd: %.160s\n# perfkit:   "
				       "%.160s\n", tc + from, pk + from);
			}
			t_check(same, tn, "reports differ");
			free(tc);
		}
		if (i == 0)
			first = pk;
		else
			free(pk);
	}
	free(first);
	if (!getenv("PK_KEEP"))
		unlink(path);
}

static void one(const char *name, uint32_t mult, uint32_t shift,
		uint64_t tsc_off, bool has_off, long long off)
{
	char path[128], tn[160];
	static uint64_t ts[NEV];
	int n, bad = 0;

	snprintf(path, sizeof(path), "/tmp/pktsc-%s-%d.dat", name,
		 (int)getpid());
	int r = write_file(path, mult, shift, tsc_off, has_off, off);
	snprintf(tn, sizeof(tn), "tsc2nsec_%s_write", name);
	if (!t_check(r == 0, tn, "r=%d", r))
		return;
	char *pk = report_pk(path, &n, ts);
	for (int i = 0; i < n; i++) {
		uint64_t want = mult ? (uint64_t)(((unsigned __int128)tsc_of(i) *
						   mult) >> shift) : tsc_of(i);
		if (ts[i] != want + (uint64_t)(has_off ? off : 0))
			bad++;
	}
	snprintf(tn, sizeof(tn), "tsc2nsec_%s_timestamps", name);
	t_check(pk && n == NEV && !bad, tn, "%d events, %d wrong", n, bad);
	snprintf(tn, sizeof(tn), "tsc2nsec_%s_vs_tracecmd", name);
	if (access("/usr/bin/trace-cmd", X_OK)) {
		t_skip(tn, "trace-cmd not installed");
	} else {
		char *tc = report_tc(path);
		bool same = tc && pk && !strcmp(tc, pk);
		if (!same && tc && pk) {
			size_t k = 0;
			while (tc[k] && tc[k] == pk[k])
				k++;
			size_t from = k > 80 ? k - 80 : 0;
			printf("# trace-cmd: %.160s\n# perfkit:   %.160s\n",
			       tc + from, pk + from);
		}
		t_check(same, tn, "reports differ");
		free(tc);
		/* trace-cmd's own view of the option */
		char cmd[300], line[256], wantl[128] = "";
		bool seen = !mult;
		snprintf(cmd, sizeof(cmd), "trace-cmd dump --options -i %s "
			 "2>&1", path);
		snprintf(wantl, sizeof(wantl), "%u %u %llu [multiplier, shift, "
			 "offset]", mult, shift, (unsigned long long)tsc_off);
		FILE *p = popen(cmd, "r");
		while (p && fgets(line, sizeof(line), p))
			if (!strncmp(line, wantl, strlen(wantl)))
				seen = true;
		if (p)
			pclose(p);
		snprintf(tn, sizeof(tn), "tsc2nsec_%s_tracecmd_dump", name);
		t_check(seen, tn, "no '%s' in trace-cmd dump --options", wantl);
	}
	free(pk);
	if (!getenv("PK_KEEP"))
		unlink(path);
}

int main(void)
{
	/* 3 GHz: mult/2^shift = 1/3 ns per tick */
	one("plain", 1398101, 22, 0, false, 0);
	/* the offset field of the option as trace-cmd 3.1 reads it */
	one("tscoff", 1398101, 22, 0x1000000000ull, false, 0);
	one("offset", 1398101, 22, 0, true, 5000000000ll);
	one("negoffset", 2796203, 23, 0, true, -1000000ll);
	/* no TSC2NSEC: x86-tsc stays in raw counts */
	one("raw", 0, 0, 0, false, 0);
	time_opts("tsc", 1398101, 22);
	time_opts("counts", 0, 0);

	uint32_t m = 0, s = 0;
	setenv("PERFKIT_TSC2NSEC", "1398101:22", 1);
	int r = pk_ftrace_tsc2nsec(&m, &s);
	T_CHECK("tsc2nsec_env", r == 0 && m == 1398101 && s == 22);
	setenv("PERFKIT_TSC2NSEC", "0:22", 1);
	T_CHECK("tsc2nsec_env_bad", pk_ftrace_tsc2nsec(&m, &s) == -EINVAL);
	setenv("PERFKIT_TSC2NSEC", "5:64", 1);
	T_CHECK("tsc2nsec_env_bad_shift", pk_ftrace_tsc2nsec(&m, &s) == -EINVAL);
	unsetenv("PERFKIT_TSC2NSEC");
	r = pk_ftrace_tsc2nsec(&m, &s);
	if (r == -EOPNOTSUPP || r == -EACCES || r == -ENOENT)
		t_skip("tsc2nsec_live", "perf gives no TSC conversion here "
		       "(%s)", pk_strerror(r));
	else
		t_check(r == 0 && m && s < 64, "tsc2nsec_live",
			"r=%d mult=%u shift=%u", r, m, s);
	return t_exit();
}
