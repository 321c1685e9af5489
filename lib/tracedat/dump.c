/* SPDX-License-Identifier: MIT */
/*
 * trace.dat dump, as trace-cmd dump 3.1 prints it: the file walked item by
 * item from its start (format 6) or through its option and section
 * headers (format 7), each part printed when asked. The walk follows
 * trace-cmd's (tracecmd/trace-dump.c, read to learn it) so the text is
 * the same: item texts printed in chunks of 1023 bytes, each up to its
 * first NUL; option sections listed last first; numbers as it prints them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "base/bytes.h"
#include "tracedat/tracedat.h"

#define DUMP_SIZE 1024

struct dsec { int id; uint64_t off; unsigned what; };

struct dump {
	const uint8_t *f;
	size_t size, pos;
	bool big;
	int version;
	char comp[DUMP_SIZE];
	uint8_t *blk;           /* an uncompressed block being read, or NULL */
	size_t blen, bpos;
	unsigned what;
	FILE *out;
	char *strings;
	size_t nstrings;
	struct dsec secs[64];
	int nsecs;
	bool has_clock;
	unsigned cpus;
	const char *err;        /* what could not be read */
};

static void pr(struct dump *d, unsigned ids, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void pr(struct dump *d, unsigned ids, const char *fmt, ...)
{
	va_list ap;

	if (ids && !(ids & d->what))
		return;
	va_start(ap, fmt);
	vfprintf(d->out, fmt, ap);
	va_end(ap);
}

/* N bytes to DST from the block being read or the file. 0 or -1 (D->err
 * names WHAT). */
static int rd(struct dump *d, void *dst, size_t n, const char *what)
{
	if (d->err)
		return -1;
	if (d->blk) {
		if (n > d->blen - d->bpos)
			goto fail;
		memcpy(dst, d->blk + d->bpos, n);
		d->bpos += n;
		return 0;
	}
	if (d->pos > d->size || n > d->size - d->pos)
		goto fail;
	memcpy(dst, d->f + d->pos, n);
	d->pos += n;
	return 0;
fail:
	d->err = what;
	return -1;
}

static uint64_t num(struct dump *d, unsigned n, const char *what)
{
	uint8_t b[8];

	return rd(d, b, n, what) ? 0 : pk_ldn(b, n, d->big);
}

/* A NUL-terminated string of at most DUMP_SIZE bytes into BUF. */
static int str(struct dump *d, char *buf, const char *what)
{
	for (size_t i = 0; i < DUMP_SIZE; i++) {
		if (rd(d, buf + i, 1, what))
			return -1;
		if (!buf[i])
			return 0;
	}
	d->err = what;
	return -1;
}

/* SIZE bytes of text, printed under IDS in trace-cmd's chunks. */
static void text(struct dump *d, uint64_t size, unsigned ids)
{
	char buf[DUMP_SIZE];

	while (size && !d->err) {
		size_t n = size < DUMP_SIZE ? (size_t)size : DUMP_SIZE - 1;
		if (rd(d, buf, n, "an item's text"))
			return;
		buf[n] = 0;
		pr(d, ids, "%s", buf);
		size -= n;
	}
	pr(d, ids, "\n");
}

static int seek(struct dump *d, uint64_t off)
{
	if (off > d->size) {
		d->err = "an offset past the end of the file";
		return -1;
	}
	d->pos = (size_t)off;
	return 0;
}

/* The compressed block at the file position becomes what is read. */
static int block_start(struct dump *d)
{
	uint32_t cs = (uint32_t)num(d, 4, "a compressed block's size");
	uint32_t us = (uint32_t)num(d, 4, "a compressed block's size");

	if (d->err)
		return -1;
	if (!strcmp(d->comp, "none") || cs > d->size - d->pos ||
	    !pk__td_size_plausible(cs, us) || !(d->blk = pk__malloc(us + 1)) ||
	    pk__td_decompress(d->comp, d->f + d->pos, cs, d->blk, us)) {
		pk__free(d->blk);
		d->blk = NULL;
		d->err = "a compressed block";
		return -1;
	}
	d->pos += cs;
	d->blen = us;
	d->bpos = 0;
	return 0;
}

static void block_end(struct dump *d)
{
	pk__free(d->blk);
	d->blk = NULL;
}

static void initial(struct dump *d)
{
	char buf[DUMP_SIZE];
	uint8_t b[2];

	pr(d, PK_TD_DUMP_SUMMARY, "\t[Initial format]\n");
	if (rd(d, buf, 10, "the magic") || memcmp(buf, "\x17\x08\x44tracing",
						   10)) {
		d->err = d->err ? d->err : "the magic";
		return;
	}
	if (str(d, buf, "the version"))
		return;
	pr(d, PK_TD_DUMP_SUMMARY, "\t\t%s\t[Version]\n", buf);
	d->version = atoi(buf);
	if (d->version < 6 || d->version > 7) {
		d->err = "a supported version";
		return;
	}
	if (rd(d, b, 2, "the endianness"))
		return;
	pr(d, PK_TD_DUMP_SUMMARY, "\t\t%d\t[%s endian]\n", b[0],
	   b[0] ? "Big" : "Little");
	d->big = b[0];
	pr(d, PK_TD_DUMP_SUMMARY, "\t\t%d\t[Bytes in a long]\n", b[1]);
	uint32_t ps = (uint32_t)num(d, 4, "the page size");
	if (d->err)
		return;
	pr(d, PK_TD_DUMP_SUMMARY, "\t\t%d\t[Page size, bytes]\n", (int)ps);
	if (d->version < 7)
		return;
	char ver[DUMP_SIZE];
	if (str(d, d->comp, "the compression") ||
	    str(d, ver, "the compression version"))
		return;
	pr(d, PK_TD_DUMP_SUMMARY, "\t\t%s\t[Compression algorithm]\n", d->comp);
	pr(d, PK_TD_DUMP_SUMMARY, "\t\t%s\t[Compression version]\n", ver);
	if (strcmp(d->comp, "none") && strcmp(d->comp, "zstd") &&
	    strcmp(d->comp, "zlib"))
		d->err = "a known compression";
}

/* header_page or header_event: NAME, its size, its text under IDS. */
static void header(struct dump *d, const char *name, const char *title,
		   unsigned ids)
{
	char buf[16];
	size_t n = strlen(name) + 1;

	pr(d, PK_TD_DUMP_SUMMARY | ids, "\t[%s, ", title);
	if (rd(d, buf, n, name) || memcmp(buf, name, n - 1)) {
		d->err = d->err ? d->err : name;
		return;
	}
	uint64_t size = num(d, 8, name);
	if (d->err)
		return;
	pr(d, PK_TD_DUMP_SUMMARY | ids, "%lld bytes]\n", (long long)size);
	text(d, size, ids);
}

static void ftrace_formats(struct dump *d)
{
	unsigned ids = PK_TD_DUMP_FTRACE;
	uint32_t count = (uint32_t)num(d, 4, "the ftrace format count");

	pr(d, PK_TD_DUMP_SUMMARY | ids, "\t[Ftrace format, ");
	if (d->err)
		return;
	pr(d, PK_TD_DUMP_SUMMARY | ids, "%d events]\n", (int)count);
	while (count-- && !d->err)
		text(d, num(d, 8, "an ftrace format size"), ids);
}

static void event_formats(struct dump *d)
{
	unsigned ids = PK_TD_DUMP_EVENTS | PK_TD_DUMP_SYSTEMS;
	char buf[DUMP_SIZE];
	uint32_t sys;

	pr(d, PK_TD_DUMP_SUMMARY | ids, "\t[Events format, ");
	sys = (uint32_t)num(d, 4, "the system count");
	if (d->err)
		return;
	pr(d, PK_TD_DUMP_SUMMARY | ids, "%d systems]\n", (int)sys);
	while (sys-- && !d->err) {
		if (str(d, buf, "a system name"))
			return;
		uint32_t n = (uint32_t)num(d, 4, "a system's event count");
		if (d->err)
			return;
		pr(d, PK_TD_DUMP_SYSTEMS, "\t\t%s %d [system, events]\n", buf,
		   (int)n);
		while (n-- && !d->err)
			text(d, num(d, 8, "an event format size"),
			     PK_TD_DUMP_EVENTS);
	}
}

/* kallsyms, printk (4-byte size) or cmdlines (8-byte size). */
static void item(struct dump *d, const char *title, unsigned szlen,
		 unsigned ids)
{
	pr(d, PK_TD_DUMP_SUMMARY | ids, "\t[%s, ", title);
	uint64_t size = num(d, szlen, title);
	if (d->err)
		return;
	pr(d, PK_TD_DUMP_SUMMARY | ids, "%d bytes]\n", (int)size);
	text(d, size, ids);
}

static void section_header(struct dump *d, unsigned ids, uint16_t *flags)
{
	uint64_t off = d->pos;
	uint16_t id = (uint16_t)num(d, 2, "a section id");
	uint16_t fl = (uint16_t)num(d, 2, "a section's flags");
	uint32_t desc = (uint32_t)num(d, 4, "a section's description");
	uint64_t size = num(d, 8, "a section's size");

	if (d->err)
		return;
	pr(d, ids, "\t[Section %d @ %lld: \"%s\", flags 0x%X, %lld bytes]\n",
	   id, (long long)off, desc < d->nstrings ? d->strings + desc :
	   "Unknown", fl, (long long)size);
	if (flags)
		*flags = fl;
}

static void opt_buffer(struct dump *d, uint16_t opt, uint32_t size)
{
	unsigned ids = PK_TD_DUMP_OPTIONS | PK_TD_DUMP_FLYRECORD;
	char name[DUMP_SIZE], clock[DUMP_SIZE];

	if (size < 8) {
		d->err = "a whole buffer option";
		return;
	}
	uint64_t off = num(d, 8, "a buffer's offset");
	if (d->err || str(d, name, "a buffer's name"))
		return;
	if (d->version < 7) {
		pr(d, ids, "\t\t[Option BUFFER, %d bytes]\n", (int)size);
		pr(d, ids, "%lld [offset]\n", (long long)off);
		pr(d, ids, "\"%s\" [name]\n", name);
		return;
	}
	size_t cur = d->pos;
	if (seek(d, off))
		return;
	section_header(d, PK_TD_DUMP_FLYRECORD, NULL);
	d->pos = cur;
	pr(d, ids, "\t\t[Option BUFFER, %d bytes]\n", (int)size);
	pr(d, ids, "%lld [offset]\n", (long long)off);
	pr(d, ids, "\"%s\" [name]\n", name);
	if (str(d, clock, "a buffer's clock"))
		return;
	pr(d, ids, "\"%s\" [clock]\n", clock);
	if (opt != TD_OPT_BUFFER) {
		pr(d, PK_TD_DUMP_SUMMARY, "\t[buffer \"%s\", \"%s\" clock, "
		   "latency data]\n", name, clock);
		return;
	}
	int ps = (int)num(d, 4, "a buffer's page size");
	if (d->err)
		return;
	pr(d, ids, "%d [Page size, bytes]\n", ps);
	int cpus = (int)num(d, 4, "a buffer's CPU count");
	if (d->err)
		return;
	pr(d, ids, "%d [CPUs]:\n", cpus);
	unsigned long long total = 0;
	for (int i = 0; i < cpus && !d->err; i++) {
		int id = (int)num(d, 4, "a buffer's CPU");
		long long o = (long long)num(d, 8, "a buffer's CPU offset");
		long long s = (long long)num(d, 8, "a buffer's CPU size");
		if (d->err)
			return;
		total += (unsigned long long)s;
		pr(d, ids, "   %d %lld\t%lld\t[id, data offset and size]\n",
		   id, o, s);
	}
	pr(d, PK_TD_DUMP_SUMMARY, "\t[buffer \"%s\", \"%s\" clock, %d page "
	   "size, %d cpus, %lld bytes flyrecord data]\n", name, clock, ps,
	   cpus, (long long)total);
}

static void opt_string(struct dump *d, uint32_t size, const char *desc)
{
	pr(d, PK_TD_DUMP_OPTIONS, "\t\t[Option %s, %d bytes]\n", desc,
	   (int)size);
	if (size)
		text(d, size, PK_TD_DUMP_OPTIONS);
}

static void opt_section(struct dump *d, uint32_t size, uint16_t id,
			const char *desc, unsigned ids)
{
	uint64_t off = num(d, 8, "an option's section offset");

	if (d->err)
		return;
	if (d->nsecs < (int)PK_ARRAY_SIZE(d->secs))
		d->secs[d->nsecs++] = (struct dsec){ id, off, ids };
	pr(d, PK_TD_DUMP_OPTIONS, "\t\t[Option %s, %d bytes] @ %lld\n", desc,
	   (int)size, (long long)off);
}

static void opt_guest(struct dump *d, uint32_t size)
{
	unsigned ids = PK_TD_DUMP_OPTIONS;
	char *b = pk__zalloc(size + 1), *p = b;

	pr(d, ids, "\t\t[Option GUEST, %d bytes]\n", (int)size);
	if (!b || rd(d, b, size, "a guest option")) {
		pk__free(b);
		return;
	}
	pr(d, ids, "%s [Guest name]\n", p);
	size_t left = size - PK_MIN(size, strlen(b) + 1);
	p += strlen(b) + 1;
	if (left >= 8) {
		pr(d, ids, "0x%llX [trace id]\n",
		   (unsigned long long)pk_ld64(p, d->big));
		left -= 8;
		p += 8;
		if (left >= 4) {
			int cpus = (int)pk_ld32(p, d->big);
			left -= 4;
			p += 4;
			pr(d, ids, "%d [Guest CPUs]\n", cpus);
			for (int i = 0; i < cpus && left >= 8; i++, left -= 8,
			     p += 8)
				pr(d, ids, "  %d %d [guest cpu, host pid]\n",
				   (int)pk_ld32(p, d->big),
				   (int)pk_ld32(p + 4, d->big));
		}
	}
	pk__free(b);
}

static void opt_timeshift(struct dump *d, uint32_t size)
{
	unsigned ids = PK_TD_DUMP_OPTIONS;
	size_t start = d->blk ? d->bpos : d->pos;

	if (size < 12) {
		pr(d, ids, "Broken time shift option, size %u", size);
		return;
	}
	pr(d, ids, "\t\t[Option TimeShift, %d bytes]\n", (int)size);
	pr(d, ids, "0x%llX [peer's trace id]\n",
	   (unsigned long long)num(d, 8, "a time shift"));
	pr(d, ids, "0x%llX [peer's protocol flags]\n",
	   (unsigned long long)num(d, 4, "a time shift"));
	unsigned cpus = (unsigned)num(d, 4, "a time shift");
	pr(d, ids, "0x%llX [peer's CPU count]\n", (unsigned long long)cpus);
	/* the samples: counts, then times/offsets/scalings per CPU, then
	 * fractions per CPU */
	size_t left = size >= 16 ? size - 16 : 0;
	long long *v[4] = { 0 };
	unsigned *cnt = pk__calloc(cpus + 1, sizeof(*cnt));
	size_t total = 0;
	unsigned j = 0;
	bool broken = !cnt;
	for (; !broken && j < cpus; j++) {
		if (left < 4) { broken = true; break; }
		cnt[j] = (unsigned)num(d, 4, "a time shift");
		left -= 4;
		pr(d, ids, "%u [samples count for CPU %u]\n", cnt[j], j);
		for (int k = 0; k < 4; k++) {
			long long *n = pk__realloc(v[k], (total + cnt[j] + 1) *
						   sizeof(long long));
			if (!n) { broken = true; break; }
			memset(n + total, 0, (cnt[j] + 1) * sizeof(long long));
			v[k] = n;
		}
		for (int k = 0; !broken && k < 3; k++)
			for (unsigned i = 0; i < cnt[j]; i++) {
				if (left < 8) { broken = true; break; }
				v[k][total + i] = (long long)num(d, 8, "a time shift");
				left -= 8;
			}
		if (!broken)
			total += cnt[j];
	}
	if (!broken && left) {
		for (size_t i = 0; i < total && left >= 8; i++, left -= 8)
			v[3][i] = (long long)num(d, 8, "a time shift");
	}
	if (!broken)
		for (size_t i = 0; i < total; i++)
			pr(d, ids, "\t%lld %lld %llu %llu[offset * scaling >> "
			   "fraction @ time]\n", v[1][i], v[2][i],
			   (unsigned long long)v[3][i], (unsigned long long)v[0][i]);
	else
		pr(d, ids, "Broken time shift option\n");
	for (int k = 0; k < 4; k++)
		pk__free(v[k]);
	pk__free(cnt);
	/* whatever the samples were, the option ends where its size says */
	if (d->blk)
		d->bpos = PK_MIN(start + size, d->blen);
	else
		d->pos = start + size;
}

static int options_read(struct dump *d);

static int opt_done(struct dump *d, uint32_t size)
{
	pr(d, PK_TD_DUMP_OPTIONS, "\t\t[Option DONE, %d bytes]\n", (int)size);
	if (d->version < 7 || size < 8)
		return 0;
	uint64_t off = num(d, 8, "the next options offset");
	if (d->err)
		return 0;
	pr(d, PK_TD_DUMP_OPTIONS, "%lld\n", (long long)off);
	if (!off || seek(d, off))
		return 0;
	pr(d, PK_TD_DUMP_OPTIONS, "\n\n");
	return options_read(d);
}

/* One option of id OPT and SIZE bytes. */
static void option(struct dump *d, uint16_t opt, uint32_t size)
{
	static const char *const strs[] = {
		[TD_OPT_DATE] = "DATE", [TD_OPT_CPUSTAT] = "CPUSTAT",
		[TD_OPT_UNAME] = "UNAME", [TD_OPT_HOOK] = "HOOK",
		[TD_OPT_OFFSET] = "OFFSET", [TD_OPT_VERSION] = "VERSION",
		[TD_OPT_PROCMAPS] = "PROCMAPS",
	};
	static const struct { uint16_t id; const char *d; unsigned ids; }
	secs[] = {
		{ TD_OPT_HEADER_INFO, "HEADERS", PK_TD_DUMP_HEAD_PAGE |
		  PK_TD_DUMP_HEAD_EVENT },
		{ TD_OPT_FTRACE_EVENTS, "FTRACE EVENTS", PK_TD_DUMP_FTRACE },
		{ TD_OPT_EVENT_FORMATS, "EVENT FORMATS", PK_TD_DUMP_SYSTEMS |
		  PK_TD_DUMP_EVENTS },
		{ TD_OPT_KALLSYMS, "KALLSYMS", PK_TD_DUMP_KALLSYMS },
		{ TD_OPT_PRINTK, "PRINTK", PK_TD_DUMP_PRINTK },
		{ TD_OPT_CMDLINES, "CMDLINES", PK_TD_DUMP_CMDLINES },
	};
	unsigned ids = PK_TD_DUMP_OPTIONS;

	if (opt < PK_ARRAY_SIZE(strs) && strs[opt]) {
		opt_string(d, size, strs[opt]);
		return;
	}
	for (size_t i = 0; i < PK_ARRAY_SIZE(secs); i++)
		if (secs[i].id == opt) {
			opt_section(d, size, opt, secs[i].d, secs[i].ids);
			return;
		}
	switch (opt) {
	case TD_OPT_BUFFER:
	case TD_OPT_BUFFER_TEXT:
		opt_buffer(d, opt, size);
		break;
	case TD_OPT_TRACECLOCK:
		pr(d, ids, "\t\t[Option TRACECLOCK, %d bytes]\n", (int)size);
		text(d, size, ids | PK_TD_DUMP_CLOCK);
		d->has_clock = true;
		break;
	case TD_OPT_CPUCOUNT:
		pr(d, ids, "\t\t[Option CPUCOUNT, %d bytes]\n", (int)size);
		pr(d, ids, "%d\n", size <= 8 ? (int)num(d, size, "CPUCOUNT") : 0);
		break;
	case TD_OPT_TRACEID:
		pr(d, ids, "\t\t[Option TRACEID, %d bytes]\n", (int)size);
		pr(d, ids, "0x%llX\n", size <= 8 ? (unsigned long long)
		   num(d, size, "TRACEID") : 0ull);
		break;
	case TD_OPT_TIME_SHIFT:
		opt_timeshift(d, size);
		break;
	case TD_OPT_GUEST:
		opt_guest(d, size);
		break;
	case TD_OPT_TSC2NSEC: {
		pr(d, ids, "\n\t\t[Option TSC2NSEC, %d bytes]\n", (int)size);
		int mult = (int)num(d, 4, "TSC2NSEC"), shift =
			(int)num(d, 4, "TSC2NSEC");
		unsigned long long off = num(d, 8, "TSC2NSEC");
		if (!d->err)
			pr(d, ids, "%d %d %llu [multiplier, shift, offset]\n",
			   mult, shift, off);
		break;
	}
	default:
		pr(d, ids, " %d %d\t[Unknown option, size - skipping]\n", opt,
		   (int)size);
		if (d->blk)
			d->bpos = PK_MIN(d->bpos + size, d->blen);
		else
			d->pos += size;
		break;
	}
}

/* An options part (format 7: a section). Returns the options counted. */
static int options_read(struct dump *d)
{
	uint16_t flags = 0;
	int count = 0;

	if (d->version >= 7)
		section_header(d, PK_TD_DUMP_OPTIONS, &flags);
	if ((flags & 1) && block_start(d))
		return count;
	while (!d->err) {
		uint16_t opt = (uint16_t)num(d, 2, "an option id");
		if (d->err || (opt == TD_OPT_DONE && d->version < 7))
			break;
		uint32_t size = (uint32_t)num(d, 4, "an option size");
		if (d->err)
			break;
		count++;
		if (opt == TD_OPT_DONE) {
			block_end(d);
			return count + opt_done(d, size);
		}
		option(d, opt, size);
	}
	block_end(d);
	return count;
}

static void options(struct dump *d)
{
	int n = options_read(d);

	if (!d->err)
		pr(d, PK_TD_DUMP_SUMMARY | PK_TD_DUMP_OPTIONS,
		   "\t[%d options]\n", n);
}

static void clock_v6(struct dump *d)
{
	unsigned ids = PK_TD_DUMP_SUMMARY | PK_TD_DUMP_CLOCK;

	pr(d, ids, "\t[Tracing clock]\n");
	if (!d->has_clock) {
		pr(d, ids, "\t\t No tracing clock saved in the file\n");
		return;
	}
	uint64_t size = num(d, 8, "the clock size");
	if (d->err || size > d->size - d->pos) {
		d->err = "the clock";
		return;
	}
	pr(d, ids, "\t\t%.*s\n", (int)strnlen((const char *)d->f + d->pos,
					      (size_t)size), d->f + d->pos);
	d->pos += (size_t)size;
}

static void flyrecord_v6(struct dump *d)
{
	pr(d, PK_TD_DUMP_SUMMARY | PK_TD_DUMP_FLYRECORD,
	   "\t[Flyrecord tracing data]\n");
	for (unsigned i = 0; i < d->cpus && !d->err; i++) {
		long long off = (long long)num(d, 8, "a CPU's offset");
		long long size = (long long)num(d, 8, "a CPU's size");
		if (!d->err)
			pr(d, PK_TD_DUMP_FLYRECORD, "\t %10.lld %10.lld\t"
			   "[offset, size of cpu %d]\n", off, size, (int)i);
	}
	if (!d->err)
		clock_v6(d);
}

static void v6_file(struct dump *d)
{
	char s[10];

	header(d, "header_page", "Header page", PK_TD_DUMP_HEAD_PAGE);
	header(d, "header_event", "Header event", PK_TD_DUMP_HEAD_EVENT);
	ftrace_formats(d);
	event_formats(d);
	item(d, "Kallsyms", 4, PK_TD_DUMP_KALLSYMS);
	item(d, "Trace printk", 4, PK_TD_DUMP_PRINTK);
	item(d, "Saved command lines", 8, PK_TD_DUMP_CMDLINES);
	d->cpus = (unsigned)num(d, 4, "the CPU count");
	if (d->err)
		return;
	pr(d, PK_TD_DUMP_SUMMARY, "\t%d [CPUs with tracing data]\n",
	   (int)d->cpus);
	while (!d->err && !rd(d, s, 10, "the rest of the header")) {
		if (!memcmp(s, "options  ", 10)) {
			options(d);
		} else if (!memcmp(s, "latency  ", 10)) {
			pr(d, PK_TD_DUMP_SUMMARY, "\t[Latency tracing data]\n");
		} else if (!memcmp(s, "flyrecord", 10)) {
			flyrecord_v6(d);
		} else {
			d->pos -= 10;
			break;
		}
	}
}

/* Every strings section's strings (format 7), from the file position. */
static void meta_strings(struct dump *d)
{
	size_t at = d->pos;

	while (d->size - d->pos >= 16) {
		uint16_t id = pk_ld16(d->f + d->pos, d->big);
		uint16_t fl = pk_ld16(d->f + d->pos + 2, d->big);
		uint64_t size = pk_ld64(d->f + d->pos + 8, d->big);
		d->pos += 16;
		if (size > d->size - d->pos)
			break;
		size_t end = d->pos + (size_t)size;
		if (id == TD_OPT_STRINGS) {
			size_t n = (size_t)size;
			const uint8_t *p = d->f + d->pos;
			if ((fl & 1) && block_start(d))
				break;
			if (fl & 1) {
				p = d->blk;
				n = d->blen;
			}
			char *s = pk__realloc(d->strings, d->nstrings + n + 1);
			if (!s)
				break;
			d->strings = s;
			memcpy(s + d->nstrings, p, n);
			s[d->nstrings + n] = 0;
			pr(d, PK_TD_DUMP_STRINGS, "\t[String @ offset]\n");
			for (size_t k = 0; k < n; k += strlen(s + d->nstrings + k)
			     + 1)
				pr(d, PK_TD_DUMP_STRINGS, "\t\t\"%s\" @ %zu\n",
				   s + d->nstrings + k, d->nstrings + k);
			d->nstrings += n;
			block_end(d);
		}
		d->pos = end;
	}
	block_end(d);
	d->err = NULL;
	d->pos = at;
}

/* Lists the sections (--sections). The count. */
static int walk_sections(struct dump *d)
{
	size_t at = d->pos;
	int count = 0;

	while (d->size - d->pos >= 16) {
		size_t so = d->pos;
		uint16_t id = pk_ld16(d->f + d->pos, d->big);
		uint16_t fl = pk_ld16(d->f + d->pos + 2, d->big);
		uint32_t desc = pk_ld32(d->f + d->pos + 4, d->big);
		uint64_t size = pk_ld64(d->f + d->pos + 8, d->big);
		const char *ds = desc < d->nstrings ? d->strings + desc
						    : "Unknown";
		d->pos += 16;
		if (id > TD_OPT_BUFFER_TEXT)
			pr(d, PK_TD_DUMP_SECTIONS, "Unknown section id %d: %s",
			   id, ds);
		count++;
		if ((fl & 1) && id != TD_OPT_BUFFER &&
		    id != TD_OPT_BUFFER_TEXT) {
			if (d->size - d->pos < 8)
				break;
			pr(d, PK_TD_DUMP_SECTIONS, "\t[Section %2d @ %-16lld\t"
			   "\"%s\", flags 0x%X, %d compressed, %d "
			   "uncompressed]\n", id, (long long)so, ds, fl,
			   (int)pk_ld32(d->f + d->pos, d->big),
			   (int)pk_ld32(d->f + d->pos + 4, d->big));
		} else if (fl & 1) {
			pr(d, PK_TD_DUMP_SECTIONS, "\t[Section %2d @ %-16lld\t"
			   "\"%s\", flags 0x%X, %lld compressed bytes]\n", id,
			   (long long)so, ds, fl, (long long)size);
		} else {
			pr(d, PK_TD_DUMP_SECTIONS, "\t[Section %2d @ %-16lld\t"
			   "\"%s\", flags 0x%X, %lld bytes]\n", id,
			   (long long)so, ds, fl, (long long)size);
		}
		if (size > d->size - d->pos)
			break;
		d->pos += (size_t)size;
	}
	d->pos = at;
	return count;
}

/* The sections the options named, last named first. */
static void sections(struct dump *d, int count)
{
	for (int i = d->nsecs - 1; i >= 0 && !d->err; i--) {
		const struct dsec *s = &d->secs[i];
		uint16_t flags = 0;
		if (seek(d, s->off))
			return;
		section_header(d, s->what, &flags);
		if ((flags & 1) && block_start(d))
			return;
		switch (s->id) {
		case TD_OPT_HEADER_INFO:
			header(d, "header_page", "Header page",
			       PK_TD_DUMP_HEAD_PAGE);
			header(d, "header_event", "Header event",
			       PK_TD_DUMP_HEAD_EVENT);
			break;
		case TD_OPT_FTRACE_EVENTS: ftrace_formats(d); break;
		case TD_OPT_EVENT_FORMATS: event_formats(d); break;
		case TD_OPT_KALLSYMS:
			item(d, "Kallsyms", 4, PK_TD_DUMP_KALLSYMS);
			break;
		case TD_OPT_PRINTK:
			item(d, "Trace printk", 4, PK_TD_DUMP_PRINTK);
			break;
		case TD_OPT_CMDLINES:
			item(d, "Saved command lines", 8, PK_TD_DUMP_CMDLINES);
			break;
		}
		block_end(d);
	}
	if (!d->err)
		pr(d, PK_TD_DUMP_SUMMARY | PK_TD_DUMP_SECTIONS,
		   "\t[%d sections]\n", count);
}

static void v7_file(struct dump *d)
{
	uint64_t off = num(d, 8, "the first options offset");

	if (d->err)
		return;
	meta_strings(d);
	int count = walk_sections(d);
	if (seek(d, off))
		return;
	options(d);
	sections(d, count);
}

int pk_tracedat_dump(const char *path, FILE *out, unsigned what,
		     const char **failed)
{
	struct dump d = { .out = out, .what = what };
	char *data;
	long n = pk__read_file(path, &data);

	if (failed)
		*failed = NULL;
	if (n < 0)
		return (int)n;
	d.f = (const uint8_t *)data;
	d.size = (size_t)n;
	pr(&d, PK_TD_DUMP_SUMMARY, "\n Tracing meta data in file %s:\n", path);
	initial(&d);
	if (!d.err)
		d.version < 7 ? v6_file(&d) : v7_file(&d);
	block_end(&d);
	pk__free(d.strings);
	pk__free(data);
	if (d.err && failed)
		*failed = d.err;
	return d.err ? PK_ERR_FORMAT : 0;
}
