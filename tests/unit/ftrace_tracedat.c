/* SPDX-License-Identifier: MIT */
/*
 * trace.dat: writer -> reader round trips with pages built by the encoder,
 * the report's layout, and damaged files (truncation, bit flips) that must
 * give errors, never crashes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include <perfkit/tracedat.h>
#include "base/base.h"
#include "tracedat/rbpage.h"
#include "test.h"

#define PS 4096
#define TD_STRINGS_ID 15   /* trace-cmd's STRINGS section id */

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

static int quiet(enum pk_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

/* A temp file holding NPAGES pages of events for CPU (value = i). */
static int make_cpu(int cpu, int nevents, uint64_t t0, uint64_t step)
{
	char path[] = "/tmp/pktd.XXXXXX";
	int fd = mkstemp(path);
	static uint8_t page[PS];
	struct pk_rb_layout l;
	struct pk_rb_enc e;
	int i = 0;

	unlink(path);
	pk__rb_layout_default(&l, 8, false);
	while (i < nevents) {
		uint64_t ts = t0 + (uint64_t)i * step;
		pk__rb_enc_init(&e, page, PS, &l, ts);
		for (; i < nevents; i++) {
			struct rec r = { 100, 0, 0, 40 + cpu, i };
			if (pk__rb_enc_event(&e, t0 + (uint64_t)i * step, &r,
					    sizeof(r), false))
				break;
		}
		pk__rb_enc_finish(&e, cpu == 1 && i < 400 ? 7 : 0);
		if (write(fd, page, PS) != PS)
			return -1;
	}
	return fd;
}

static const char *write_file(const char *comp, int n0, int n1)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/pktd-%s.dat", comp);
	PK_OPTS(pk_tdwriter_opts, o, .compression = comp, .page_size = PS,
		.long_size = 8);
	struct pk_tdwriter *w = pk_tdwriter_open(path, &o);
	if (!w)
		return NULL;
	pk_tdwriter_set_item(w, PK_TD_HEADER_PAGE, hdr_page, strlen(hdr_page));
	pk_tdwriter_set_item(w, PK_TD_HEADER_EVENT, "x", 1);
	pk_tdwriter_set_item(w, PK_TD_CMDLINES, "40 alpha\n41 beta\n", 17);
	pk_tdwriter_set_item(w, PK_TD_TRACE_CLOCK, "[local] global\n", 15);
	pk_tdwriter_add_format(w, "test", fmt_val, strlen(fmt_val));
	int ids[2] = { 0, 1 };
	int fds[2] = { make_cpu(0, n0, 1000000000ull, 1000),
		       make_cpu(1, n1, 1000000500ull, 1000) };
	pk_tdwriter_add_buffer(w, "", "local", 2, ids, fds);
	int fds2[1] = { make_cpu(0, 3, 1000000100ull, 5000) };
	pk_tdwriter_add_buffer(w, "inst", "local", 1, ids, fds2);
	int r = pk_tdwriter_close(w);
	close(fds[0]);
	close(fds[1]);
	close(fds2[0]);
	return r ? NULL : path;
}

static void round_trip(const char *comp)
{
	char name[64];
	const char *path = write_file(comp, 1000, 700);
	struct pk_tracedat *td = NULL;
	struct pk_tracedat_event ev;
	int r, n = 0, bad = 0, per[2] = { 0, 0 }, inst = 0;
	uint64_t last = 0;

	snprintf(name, sizeof(name), "tracedat_write_%s", comp);
	if (!t_check(path != NULL, name, "writer failed"))
		return;
	snprintf(name, sizeof(name), "tracedat_open_%s", comp);
	td = pk_tracedat_open(path);
	r = td ? 0 : -errno;
	if (!t_check(r == 0 && pk_tracedat_version(td) == 7 &&
		     pk_tracedat_nr_buffers(td) == 2 &&
		     pk_tracedat_cpus(td) == 2, name, "r=%d", r))
		return;
	while ((r = pk_tracedat_next(td, &ev)) > 0) {
		const struct rec *x = ev.data;
		if (ev.ts < last)
			bad++;
		last = ev.ts;
		if (ev.buffer == 1) {
			inst++;
			continue;
		}
		if (x->value != per[ev.cpu] || x->pid != 40 + ev.cpu)
			bad++;
		per[ev.cpu]++;
		n++;
	}
	snprintf(name, sizeof(name), "tracedat_events_%s", comp);
	t_check(r == 0 && n == 1700 && per[0] == 1000 && per[1] == 700 &&
		inst == 3 && !bad, name, "r=%d n=%d cpu0=%d cpu1=%d inst=%d "
		"bad=%d", r, n, per[0], per[1], inst, bad);

	/* report: prefix layout, names of buffers, dropped events */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	long printed = pk_tracedat_report(td, f, NULL);
	fclose(f);
	snprintf(name, sizeof(name), "tracedat_report_%s", comp);
	char e1[160], e2[160], e3[200], e4[160];
	/* instances are prefixed by their names, the top buffer by blanks */
	snprintf(e1, sizeof(e1), "\n                 alpha-40    [000]"
		 "     1.000000: myev:                 value=0\n");
	snprintf(e2, sizeof(e2), "\n                 alpha-40    [000]"
		 "     1.000001: myev:                 value=1\n");
	snprintf(e3, sizeof(e3), "\n      CPU:1 [EVENTS DROPPED]\n"
		 "            beta-41    [001]     1.000001: myev:"
		 "                 value=0\n");
	snprintf(e4, sizeof(e4), "\ninst:            alpha-40    [000]"
		 "     1.000000: myev:");
	t_check(printed == 1703 && !strncmp(buf, "cpus=2\n", 7) &&
		strstr(buf, e1) && strstr(buf, e2) && strstr(buf, e3) &&
		strstr(buf, e4), name, "printed %ld: %.300s", printed,
		buf ? buf : "");
	free(buf);
	/* --cpu */
	int one = 1;
	PK_OPTS(pk_report_opts, o, .cpus = &one, .nr_cpus = 1);
	f = fopen("/dev/null", "w");
	printed = pk_tracedat_report(td, f, &o);
	fclose(f);
	snprintf(name, sizeof(name), "tracedat_report_cpu_%s", comp);
	t_check(printed == 700, name, "printed %ld", printed);
	/* the same file through trace-cmd, where it is installed */
	snprintf(name, sizeof(name), "tracedat_vs_tracecmd_%s", comp);
	if (strcmp(comp, "zlib") || access("/usr/bin/trace-cmd", X_OK)) {
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "trace-cmd report -i %s 2>&1", path);
		FILE *p = access("/usr/bin/trace-cmd", X_OK) ? NULL
							     : popen(cmd, "r");
		if (!p) {
			t_skip(name, "trace-cmd not installed");
		} else {
			char *tc = NULL, *pk = NULL;
			size_t tl = 0, pl = 0, got;
			FILE *m = open_memstream(&tc, &tl);
			char chunk[65536];
			while ((got = fread(chunk, 1, sizeof(chunk), p)) > 0)
				fwrite(chunk, 1, got, m);
			pclose(p);
			fclose(m);
			m = open_memstream(&pk, &pl);
			pk_tracedat_report(td, m, NULL);
			fclose(m);
			t_check(tl == pl && !memcmp(tc, pk, tl), name,
				"%zu vs %zu bytes: %.200s", tl, pl, tc);
			free(tc);
			free(pk);
		}
	}
	pk_tracedat_free(td);
	if (!getenv("PK_KEEP"))
		unlink(path);
}

/* Every prefix of FILE and NFLIPS single-byte flips: error or success,
 * never a crash (ASan builds check memory errors too). */
static void damage(const char *file, const char *tag, int step, int nflips)
{
	char name[96], *data;
	long len = pk__read_file(file, &data);
	int errors = 0, opened = 0;

	snprintf(name, sizeof(name), "tracedat_truncated_%s", tag);
	if (len <= 0) {
		t_skip(name, "cannot read %s", file);
		return;
	}
	/* every STEP bytes in the first 8 KiB, then 150 cuts over the file */
	for (long cut = 0, k = 0; cut < len;
	     cut = cut < 8192 ? cut + step : 8192 + (len - 8192) * ++k / 150) {
		struct pk_tracedat *td = NULL;
		int r = ((td = pk_tracedat_open_mem(data, (size_t)cut)) ? 0 : -errno);
		if (r) {
			errors++;
			continue;
		}
		if (opened++ % 8 == 0) {
			FILE *f = fopen("/dev/null", "w");
			pk_tracedat_report(td, f, NULL);
			fclose(f);
		}
		pk_tracedat_free(td);
	}
	t_check(errors > 0, name, "no truncation was reported");
	srand(7);
	int done = 0;
	char *copy = pk__malloc((size_t)len);
	for (int k = 0; copy && k < nflips; k++) {
		struct pk_tracedat *td = NULL;
		memcpy(copy, data, (size_t)len);
		long at = k < nflips / 2 ? rand() % PK_MIN(len, 8192)
					 : rand() % len;
		copy[at] ^= (char)(1 << (rand() % 8));
		if (((td = pk_tracedat_open_mem(copy, (size_t)len)) ? 0 : -errno) == 0) {
			FILE *f = fopen("/dev/null", "w");
			pk_tracedat_report(td, f, NULL);
			fclose(f);
			pk_tracedat_free(td);
		}
		done++;
	}
	snprintf(name, sizeof(name), "tracedat_bitflips_%s", tag);
	t_check(done == nflips, name, "%d of %d", done, nflips);
	pk__free(copy);
	pk__free(data);
}

static void put(struct pk_buf *b, const void *p, size_t n)
{
	pk__buf_append(b, p, n);
}

static void put_u32(struct pk_buf *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(struct pk_buf *b, uint64_t v) { put(b, &v, 8); }

/* A version-6 file built by hand: latency text or one flyrecord page. */
static void v6_file(struct pk_buf *b, bool latency)
{
	static const char lat[] = "# tracer: wakeup\n#\n  <idle>-0  1d..2 "
				  "0us : sched_switch\n";
	put(b, "\x17\x08\x44tracing6", 11);
	put(b, "\0\0\x08", 3);
	put_u32(b, PS);
	put(b, "header_page", 12);
	put_u64(b, strlen(hdr_page));
	put(b, hdr_page, strlen(hdr_page));
	put(b, "header_event", 13);
	put_u64(b, 1);
	put(b, "x", 1);
	put_u32(b, 0);                      /* ftrace formats */
	put_u32(b, 1);                      /* one system */
	put(b, "test", 5);
	put_u32(b, 1);
	put_u64(b, strlen(fmt_val));
	put(b, fmt_val, strlen(fmt_val));
	put_u32(b, 0);                      /* kallsyms */
	put_u32(b, 0);                      /* printk */
	put_u64(b, 9);
	put(b, "40 alpha\n", 9);
	put_u32(b, 1);                      /* cpus */
	put(b, "options  ", 10);
	put(b, "\0\0", 2);
	if (latency) {
		put(b, "latency  ", 10);
		put(b, lat, strlen(lat));
		return;
	}
	put(b, "flyrecord", 10);
	uint64_t at = b->len + 16;
	at = (at + PS - 1) / PS * PS;
	put_u64(b, at);
	put_u64(b, PS);
	while (b->len < at)
		put(b, "", 1);
	uint8_t page[PS];
	struct pk_rb_layout l;
	struct pk_rb_enc e;
	pk__rb_layout_default(&l, 8, false);
	pk__rb_enc_init(&e, page, PS, &l, 2000000000ull);
	for (int i = 0; i < 5; i++) {
		struct rec r = { 100, 0, 0, 40, i };
		pk__rb_enc_event(&e, 2000000000ull + i * 1000000ull, &r,
				sizeof(r), false);
	}
	pk__rb_enc_finish(&e, 0);
	put(b, page, PS);
}

static void v6_check(bool latency)
{
	const char *name = latency ? "tracedat_v6_latency" : "tracedat_v6_fly";
	const char *path = latency ? "/tmp/pktd-v6l.dat" : "/tmp/pktd-v6f.dat";
	struct pk_buf b = { 0 };
	struct pk_tracedat *td = NULL;
	char *out = NULL, *tc = NULL;
	size_t ol = 0, tl = 0;

	v6_file(&b, latency);
	FILE *f = fopen(path, "w");
	fwrite(b.data, 1, b.len, f);
	fclose(f);
	pk__buf_fini(&b);
	if (!t_check(((td = pk_tracedat_open(path)) ? 0 : -errno) == 0 &&
		     pk_tracedat_version(td) == 6, name, "open failed"))
		return;
	f = open_memstream(&out, &ol);
	pk_tracedat_report(td, f, NULL);
	fclose(f);
	pk_tracedat_free(td);
	if (latency)
		t_check(strstr(out, "cpus=1\n# tracer: wakeup\n") != NULL,
			name, "%s", out);
	else
		t_check(strstr(out, "           alpha-40    [000]     2.004000: "
				    "myev:                 value=4\n") != NULL,
			name, "%s", out);
	if (access("/usr/bin/trace-cmd", X_OK) == 0) {
		char cmd[128], chunk[4096];
		size_t got;
		snprintf(cmd, sizeof(cmd), "trace-cmd report -i %s 2>&1", path);
		FILE *p = popen(cmd, "r");
		FILE *m = open_memstream(&tc, &tl);
		while ((got = fread(chunk, 1, sizeof(chunk), p)) > 0)
			fwrite(chunk, 1, got, m);
		pclose(p);
		fclose(m);
		char n2[64];
		snprintf(n2, sizeof(n2), "%s_vs_tracecmd", name);
		t_check(tl == ol && !memcmp(tc, out, ol), n2, "%s", tc);
		free(tc);
	}
	free(out);
	unlink(path);
}

/*
 * A v7 latency buffer (BUFFER_TEXT section) through the writer, compressed
 * as COMP; LINES lines of text (over 10 pages: several chunks).
 */
static void latency_v7(const char *comp, int lines)
{
	const char *path = "/tmp/pktd-lat.dat";
	const char line[] = "  <idle>-0  0d.h1  0us : trace_hardirqs_on <-x\n";
	PK_OPTS(pk_tdwriter_opts, o, .page_size = PS, .long_size = 8,
		.compression = comp);
	struct pk_tdwriter *w = pk_tdwriter_open(path, &o);
	struct pk_tracedat *td = NULL;
	char *out = NULL, *text = NULL, name[64];
	size_t ol = 0, tl = 0;

	snprintf(name, sizeof(name), "tracedat_v7_latency_%s_%d", comp, lines);
	FILE *f = open_memstream(&text, &tl);
	fputs("# tracer: irqsoff\n", f);
	for (int i = 0; i < lines; i++)
		fputs(line, f);
	fclose(f);
	pk_tdwriter_set_item(w, PK_TD_HEADER_PAGE, hdr_page, strlen(hdr_page));
	pk_tdwriter_add_latency(w, "", "local", text, tl);
	if (!t_check(pk_tdwriter_close(w) == 0 &&
		     ((td = pk_tracedat_open(path)) ? 0 : -errno) == 0, name,
		     "write/open failed")) {
		free(text);
		return;
	}
	f = open_memstream(&out, &ol);
	pk_tracedat_report(td, f, NULL);
	fclose(f);
	pk_tracedat_free(td);
	/* trace-cmd 3.1 prints cpus=0, the text and one more newline */
	t_check(ol == 7 + tl + 1 && !strncmp(out, "cpus=0\n", 7) &&
		!memcmp(out + 7, text, tl) && out[ol - 1] == '\n', name,
		"%zu bytes for %zu", ol, tl);
	free(out);
	free(text);
	unlink(path);
}

/* Whether ITEM of TD holds the LEN bytes of WANT. */
static bool item_is(const struct pk_tracedat *td, enum pk_tracedat_item it,
		    const char *want, size_t len)
{
	size_t n;
	const char *p = pk_tracedat_item(td, it, &n);
	return p && n == len && !memcmp(p, want, len);
}

/*
 * trace-cmd restore's two steps: a header-only (partial) file, read back
 * (cpus=0, the metadata, no uname/clock/version options), then its
 * metadata copied (pk_tdwriter_copy_meta) beside per-CPU pages into a full
 * file that holds every event.
 */
static void partial(const char *comp)
{
	const char *part = "/tmp/pktd-part.dat", *full = "/tmp/pktd-full.dat";
	PK_OPTS(pk_tdwriter_opts, o, .page_size = PS, .long_size = 8,
		.compression = comp, .header_only = true);
	struct pk_tdwriter *w = pk_tdwriter_open(part, &o);
	struct pk_tracedat *td = NULL, *td2 = NULL;
	struct pk_tracedat_event ev;
	char name[64], *out = NULL;
	size_t ol = 0;
	int n = 0, r;

	snprintf(name, sizeof(name), "tracedat_partial_%s", comp);
	pk_tdwriter_set_item(w, PK_TD_HEADER_PAGE, hdr_page, strlen(hdr_page));
	pk_tdwriter_set_item(w, PK_TD_HEADER_EVENT, "x", 1);
	pk_tdwriter_set_item(w, PK_TD_KALLSYMS, "ffff T a\n", 10);
	pk_tdwriter_set_item(w, PK_TD_CMDLINES, "40 alpha\n", 9);
	pk_tdwriter_set_item(w, PK_TD_TRACE_CLOCK, "[global] local\n", 15);
	pk_tdwriter_add_format(w, "test", fmt_val, strlen(fmt_val));
	int ids[2] = { 0, 1 }, fds[2] = { make_cpu(0, 50, 1000000000ull, 1000),
					  make_cpu(1, 30, 1000000500ull, 1000) };
	pk_tdwriter_add_buffer(w, "", "local", 2, ids, fds);  /* not written */
	if (!pk_tdwriter_close(w))
		td = pk_tracedat_open(part);
	if (!t_check(td != NULL, name, "errno %d", errno))
		goto out;
	FILE *f = open_memstream(&out, &ol);
	pk_tracedat_report(td, f, NULL);
	fclose(f);
	snprintf(name, sizeof(name), "tracedat_partial_read_%s", comp);
	t_check(pk_tracedat_cpus(td) == 0 && pk_tracedat_nr_buffers(td) == 1 &&
		ol == 7 && !strcmp(out, "cpus=0\n") &&
		item_is(td, PK_TD_CMDLINES, "40 alpha\n", 9) &&
		item_is(td, PK_TD_KALLSYMS, "ffff T a\n", 10) &&
		!pk_tracedat_item(td, PK_TD_UNAME, NULL) &&
		!pk_tracedat_item(td, PK_TD_TRACE_CLOCK, NULL) &&
		!pk_tracedat_item(td, PK_TD_VERSION, NULL) &&
		pk_tracedat_nr_formats(td) == 1, name, "%s", out);
	snprintf(name, sizeof(name), "tracedat_partial_copy_%s", comp);
	PK_OPTS(pk_tdwriter_opts, o2, .page_size = PS, .long_size = 8,
		.compression = comp, .minimal_options = true);
	w = pk_tdwriter_open(full, &o2);
	r = pk_tdwriter_copy_meta(w, td);
	if (!r)
		r = pk_tdwriter_add_buffer(w, "", "global", 2, ids, fds);
	if (!r && !(r = pk_tdwriter_close(w)))
		td2 = pk_tracedat_open(full);
	if (!t_check(td2 != NULL, name, "r=%d", r))
		goto out;
	while (pk_tracedat_next(td2, &ev) > 0)
		n++;
	snprintf(name, sizeof(name), "tracedat_partial_events_%s", comp);
	t_check(n == 80 && pk_tracedat_cpus(td2) == 2 &&
		!strcmp(pk_tracedat_compression(td2), comp) &&
		item_is(td2, PK_TD_CMDLINES, "40 alpha\n", 9) &&
		item_is(td2, PK_TD_KALLSYMS, "ffff T a\n", 10) &&
		item_is(td2, PK_TD_HEADER_PAGE, hdr_page, strlen(hdr_page)) &&
		!pk_tracedat_item(td2, PK_TD_UNAME, NULL) &&
		!pk_tracedat_item(td2, PK_TD_VERSION, NULL) &&
		pk_tracedat_nr_formats(td2) == 1, name, "%d events", n);
out:
	free(out);
	pk_tracedat_free(td);
	pk_tracedat_free(td2);
	close(fds[0]);
	close(fds[1]);
	unlink(part);
	unlink(full);
}

/* A v6 partial file (the metadata, nothing after the command lines)
 * reads as no CPUs, as trace-cmd's report reads it. */
static void partial_v6(void)
{
	struct pk_buf b = { 0 };
	struct pk_tracedat *td;

	v6_file(&b, false);
	/* cut after the command lines: before the u32 cpu count */
	const char *cut = memmem(b.data, b.len, "40 alpha\n", 9);
	td = pk_tracedat_open_mem(b.data, (size_t)(cut + 9 - b.data));
	t_check(td && pk_tracedat_cpus(td) == 0 && pk_tracedat_version(td) == 6 &&
		item_is(td, PK_TD_CMDLINES, "40 alpha\n", 9), "tracedat_partial_v6",
		"errno %d", td ? 0 : errno);
	pk_tracedat_free(td);
	pk__buf_fini(&b);
}

/* The records of PATH's top buffer: count, first and last value of CPU
 * 0, whether times only grow; -1 when it does not open. */
static int piece_scan(const char *path, int *first, int *last, bool *sorted)
{
	struct pk_tracedat *td = pk_tracedat_open(path);
	struct pk_tracedat_event ev;
	uint64_t prev = 0;
	int n = 0;

	if (!td)
		return -1;
	*first = *last = -1;
	*sorted = true;
	while (pk_tracedat_next(td, &ev) > 0) {
		const struct rec *x = ev.data;
		if (ev.buffer)
			continue;
		if (ev.ts < prev)
			*sorted = false;
		prev = ev.ts;
		if (ev.cpu == 0) {
			if (*first < 0)
				*first = x->value;
			*last = x->value;
		}
		n++;
	}
	pk_tracedat_free(td);
	return n;
}

/* split -e N -r: pieces of N records but for the one record dropped
 * between two (trace-cmd reads it and goes back only on the CPUs that
 * wrote one), in time order, the instance left out; -p 2: two pages of
 * each CPU. */
static void split_check(void)
{
	const char *path = write_file("zstd", 1000, 700);
	struct pk_tracedat *td = path ? pk_tracedat_open(path) : NULL;
	int total = 0, pieces = 0, first, last, prev_last = -1, r = 0;
	bool sorted = true, ok = true;
	char piece[64];
	uint64_t next = 0;

	if (!t_check(td != NULL, "tracedat_split_open", "no file"))
		return;
	PK_OPTS(pk_tdsplit_opts, o, .unit = PK_TD_SPLIT_EVENTS, .count = 300,
		.only_cpu = -1);
	struct pk_tdsplit *s = pk_tdsplit_new(td, &o);
	do {
		snprintf(piece, sizeof(piece), "/tmp/pktd-split.%d", pieces);
		r = s ? pk_tdsplit_piece(s, piece, 0, &next) : -1;
		int n = r ? -1 : piece_scan(piece, &first, &last, &sorted);
		unlink(piece);
		if (n < 0 || n > 300 || !sorted) {
			ok = false;
			break;
		}
		if (first >= 0 && prev_last >= 0 && first < prev_last)
			ok = false;
		if (last >= 0)
			prev_last = last;
		total += n;
		pieces++;
	} while (next && pieces < 20);
	T_CHECK("tracedat_split_events", ok && pieces == 6 &&
		total >= 1700 - 5 && total <= 1700);
	pk_tdsplit_free(s);

	PK_OPTS(pk_tdsplit_opts, p, .unit = PK_TD_SPLIT_PAGES, .count = 2,
		.only_cpu = -1);
	s = pk_tdsplit_new(td, &p);
	r = s ? pk_tdsplit_piece(s, "/tmp/pktd-split.p", 0, &next) : -1;
	int n = r ? -1 : piece_scan("/tmp/pktd-split.p", &first, &last,
				    &sorted);
	unlink("/tmp/pktd-split.p");
	/* 16-byte records, 255 to a page: two pages of each CPU */
	T_CHECK("tracedat_split_pages", n == 4 * 255 && first == 0 &&
		last == 509 && sorted);
	pk_tdsplit_free(s);
	PK_OPTS(pk_tdsplit_opts, bad, .unit = PK_TD_SPLIT_EVENTS, .count = 0,
		.only_cpu = -1);
	T_CHECK("tracedat_split_bad_count", !pk_tdsplit_new(td, &bad) &&
		errno == EINVAL);
	pk_tracedat_free(td);
	unlink(path);
}

/*
 * trace-cmd 3.1.6's layout (the writer's only one): the codec's own
 * version in the header, options sections chained by DONE (section
 * pointers; CPU count; BUFFER after the data), every CPU with data from
 * a page boundary, an empty CPU written not at all (not even a chunk
 * count) and left out of BUFFER, the strings section compressed with the
 * file. Checked on the bytes.
 */
static uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

static void tc_layout(const char *comp)
{
	char path[] = "/tmp/pktd-lay.XXXXXX", name[64];
	int out = mkstemp(path);
	PK_OPTS(pk_tdwriter_opts, o, .compression = comp, .page_size = PS,
		.long_size = 8);
	struct pk_tdwriter *w = out < 0 ? NULL : pk_tdwriter_open(path, &o);
	int fds[3] = { make_cpu(0, 900, 1000000000ull, 1000),
		       make_cpu(0, 0, 1000000000ull, 1000),
		       make_cpu(2, 40, 1000000300ull, 1000) };
	int ids[3] = { 0, 1, 2 }, r = -1;
	uint8_t *f = NULL;
	struct stat st;

	if (out >= 0)
		close(out);
	if (w) {
		pk_tdwriter_set_item(w, PK_TD_HEADER_PAGE, hdr_page,
				     strlen(hdr_page));
		pk_tdwriter_set_item(w, PK_TD_HEADER_EVENT, "x", 1);
		pk_tdwriter_add_format(w, "test", fmt_val, strlen(fmt_val));
		pk_tdwriter_add_buffer(w, "", "local", 3, ids, fds);
		r = pk_tdwriter_close(w);
	}
	for (int k = 0; k < 3; k++)
		close(fds[k]);
	int fd = open(path, O_RDONLY);
	if (!r && fd >= 0 && !fstat(fd, &st) && (f = malloc(st.st_size)) &&
	    read(fd, f, st.st_size) != st.st_size)
		r = -1;
	if (fd >= 0)
		close(fd);
	snprintf(name, sizeof(name), "tracedat_tc_layout_write_%s", comp);
	if (!t_check(!r && f, name, "write r=%d", r)) {
		free(f);
		unlink(path);
		return;
	}
	snprintf(name, sizeof(name), "tracedat_tc_layout_%s", comp);
	/* header: magic, version, endian, long size, page size, codec */
	const char *ver = "", *v, *c;
	for (int i = 0; (c = pk_tracedat_codec(i, &v)); i++)
		if (!strcmp(c, comp))
			ver = v;
	size_t at = 18 + strlen(comp) + 1;
	bool ok = !strcmp((char *)f + 18, comp) && !strcmp((char *)f + at, ver);
	at += strlen(ver) + 1;
	/* the options sections; the BUFFER option's CPUs; the strings */
	uint64_t sec = ld64(f + at), size = (uint64_t)st.st_size;
	int nsec = 0, ncpu = -1, aligned = 0, cpucount = 0;
	while (ok && sec && sec + 16 <= size && nsec < 10) {
		nsec++;
		ok = f[sec] == 0 && f[sec + 1] == 0 && f[sec + 2] == 0;
		uint64_t p = sec + 16, end = p + ld64(f + sec + 8);
		sec = 0;
		while (ok && p + 6 <= end && end <= size) {
			uint16_t id = (uint16_t)(f[p] | f[p + 1] << 8);
			uint32_t n = ld32(f + p + 2);
			const uint8_t *d = f + p + 6;
			if (id == 0) {
				sec = ld64(d);
				break;
			}
			if (id == 8)
				cpucount = (int)ld32(d);
			if (id == 3) {
				const uint8_t *q = d + 8;
				q += strlen((char *)q) + 1;
				q += strlen((char *)q) + 1;
				ncpu = (int)ld32(q + 4);
				for (int k = 0; k < ncpu; k++)
					aligned += ld64(q + 8 + 20 * k + 4) % PS == 0 &&
						   ld32(q + 8 + 20 * k) != 1;
			}
			p += 6 + n;
		}
	}
	/* the last section: strings, flagged as the file is */
	uint16_t last_id, last_flags;
	uint64_t lp = 0;
	for (uint64_t p = size - 16; !lp && p > 0; p--)
		if (f[p] == TD_STRINGS_ID && !f[p + 1] &&
		    ld64(f + p + 8) == size - p - 16)
			lp = p;
	last_id = (uint16_t)(f[lp] | f[lp + 1] << 8);
	last_flags = (uint16_t)(f[lp + 2] | f[lp + 3] << 8);
	t_check(ok && nsec == 3 && cpucount == 3 && ncpu == 2 &&
		aligned == 2 && lp && last_id == TD_STRINGS_ID &&
		last_flags == (strcmp(comp, "none") ? 1 : 0), name,
		"ok=%d sections %d cpucount %d cpus %d aligned %d strings@%llu "
		"flags %u", ok, nsec, cpucount, ncpu, aligned,
		(unsigned long long)lp, last_flags);
	/* and it reads: every event of the two CPUs */
	struct pk_tracedat *td = pk_tracedat_open(path);
	struct pk_tracedat_event ev;
	int n = 0;
	while (td && pk_tracedat_next(td, &ev) > 0)
		n++;
	snprintf(name, sizeof(name), "tracedat_tc_layout_read_%s", comp);
	t_check(td && n == 940, name, "%d events", n);
	pk_tracedat_free(td);
	free(f);
	unlink(path);
}

int main(void)
{
	pk_set_print(quiet);
	round_trip("none");
	round_trip("zstd");
	round_trip("zlib");
	v6_check(true);
	v6_check(false);
	latency_v7("none", 1);
	latency_v7("zstd", 1);
	latency_v7("zlib", 1);
	latency_v7("zstd", 2000);
	latency_v7("none", 2000);
	partial("none");
	partial("zstd");
	partial_v6();
	split_check();
	tc_layout("none");
	tc_layout("zstd");
	tc_layout("zlib");

	struct pk_tracedat *td = NULL;
	T_CHECK("tracedat_not_a_file", ((td = pk_tracedat_open("/nonexistent")) ? 0 : -errno) ==
		-ENOENT);
	T_CHECK("tracedat_bad_magic",
		((td = pk_tracedat_open_mem("\x17\x08\x44tracinX6\0", 12)) ? 0 : -errno) ==
		PK_ERR_FORMAT);
	T_CHECK("tracedat_bad_version",
		((td = pk_tracedat_open_mem("\x17\x08\x44tracing9\0\0\x08", 14)) ? 0 : -errno) ==
		PK_ERR_UNSUPP);

	const char *path = write_file("zstd", 300, 200);
	if (path) {
		damage(path, "written", 7, 200);
		unlink(path);
	}
	path = t_shared_need("tracedat_truncated_v6",
			     "corpus/trace-dat/rtapp-arm64-v6.trace.dat");
	if (path)
		damage(path, "v6", 61, 16);
	path = t_shared_need("tracedat_truncated_v7",
			     "corpus/trace-dat/gcc-x86-v7-zstd.trace.dat");
	if (path)
		damage(path, "v7", 61, 8);
	return t_exit();
}
