/* SPDX-License-Identifier: MIT */
/*
 * A format-7 file laid out as trace-cmd 3.1 writes a copy of one (its
 * split pieces): the header with the codec's own version, the six
 * metadata sections (each one compressed block), an options section
 * pointing at them, one with the CPU count, the flyrecord section
 * ("buffer flyrecord " and the buffer name; each CPU's data from a page
 * boundary, in chunks of ten pages), one with the BUFFER option (the CPUs
 * with data), and the
 * strings section, one string per section written (no sharing). The
 * same zstd gives the same bytes (comp.c compresses as trace-cmd does).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "base/bytes.h"
#include "tracedat/tracedat.h"

#define CHUNK_PAGES 10

struct tw {
	struct pk_buf f, str;
	const char *comp;       /* NULL: uncompressed */
	int err;
};

static void put(struct tw *w, const void *p, size_t n)
{
	if (!w->err && pk__buf_append(&w->f, p, n))
		w->err = -ENOMEM;
}

static void put16(struct tw *w, uint16_t v) { put(w, &v, 2); }
static void put32(struct tw *w, uint32_t v) { put(w, &v, 4); }
static void put64(struct tw *w, uint64_t v) { put(w, &v, 8); }

static void patch64(struct tw *w, size_t at, uint64_t v)
{
	if (!w->err)
		memcpy(w->f.data + at, &v, 8);
}

/* A section header; returns where its size goes. */
static size_t sec_start(struct tw *w, uint16_t id, bool comp,
			const char *desc)
{
	uint32_t d = (uint32_t)w->str.len;

	if (pk__buf_append(&w->str, desc, strlen(desc) + 1))
		w->err = -ENOMEM;
	put16(w, id);
	put16(w, comp && w->comp ? 1 : 0);
	put32(w, d);
	size_t at = w->f.len;
	put64(w, 0);
	return at;
}

static void sec_end(struct tw *w, size_t at)
{
	patch64(w, at, w->f.len - at - 8);
}

/* DATA as one block: compressed (sizes first) or as it is. */
static void block(struct tw *w, const void *data, size_t len)
{
	void *c;
	size_t cl;
	int r;

	if (!w->comp) {
		put(w, data, len);
		return;
	}
	if ((r = pk__td_compress(w->comp, data, len, &c, &cl))) {
		w->err = w->err ? w->err : r;
		return;
	}
	put32(w, (uint32_t)cl);
	put32(w, (uint32_t)len);
	put(w, c, cl);
	pk__free(c);
}

/* A compressed metadata section of CONTENT; its offset. */
static uint64_t meta(struct tw *w, uint16_t id, const char *desc,
		     struct pk_buf *content)
{
	uint64_t at = w->f.len;
	size_t sz = sec_start(w, id, true, desc);

	if (!content->data && !w->err)
		w->err = -ENOMEM;
	block(w, content->data, content->len);
	sec_end(w, sz);
	content->len = 0;
	return at;
}

static void cput(struct pk_buf *b, const void *p, size_t n, int *err)
{
	if (pk__buf_append(b, p, n))
		*err = -ENOMEM;
}

static uint64_t item(struct tw *w, struct pk_tracedat *td, struct pk_buf *c,
		     enum pk_tracedat_item it, unsigned szlen)
{
	size_t len = 0;
	const char *p = pk_tracedat_item(td, it, &len);
	uint64_t n = len;

	cput(c, &n, szlen, &w->err);
	cput(c, p ? p : "", len, &w->err);
	return n;
}

/* The six metadata sections; their offsets in OFF (ids 16..21). */
static void metadata(struct tw *w, struct pk_tracedat *td, uint64_t off[6])
{
	struct pk_buf c = { 0 };
	static const struct { const char *name; enum pk_tracedat_item it; }
	hdr[] = { { "header_page", PK_TD_HEADER_PAGE },
		  { "header_event", PK_TD_HEADER_EVENT } };

	for (int i = 0; i < 2; i++) {
		cput(&c, hdr[i].name, strlen(hdr[i].name) + 1, &w->err);
		item(w, td, &c, hdr[i].it, 8);
	}
	off[0] = meta(w, TD_OPT_HEADER_INFO, "headers", &c);
	uint32_t n = (uint32_t)td->nr_ftrace_fmts;
	cput(&c, &n, 4, &w->err);
	for (int i = 0; i < td->nr_ftrace_fmts; i++) {
		uint64_t l = td->fmts[i].text.len;
		cput(&c, &l, 8, &w->err);
		cput(&c, td->fmts[i].text.p, l, &w->err);
	}
	off[1] = meta(w, TD_OPT_FTRACE_EVENTS, "ftrace events", &c);
	n = 0;
	cput(&c, &n, 4, &w->err);       /* the system count, set below */
	size_t count_at = 0;
	for (int i = td->nr_ftrace_fmts; i < td->nr_fmts && !w->err; i++) {
		const struct td_format *f = &td->fmts[i];
		if (i == td->nr_ftrace_fmts ||
		    strcmp(f->system, td->fmts[i - 1].system)) {
			n++;
			cput(&c, f->system, strlen(f->system) + 1, &w->err);
			count_at = c.len;
			uint32_t z = 0;
			cput(&c, &z, 4, &w->err);
		}
		uint64_t l = f->text.len;
		cput(&c, &l, 8, &w->err);
		cput(&c, f->text.p, l, &w->err);
		if (!w->err) {
			uint32_t k;
			memcpy(&k, c.data + count_at, 4);
			k++;
			memcpy(c.data + count_at, &k, 4);
		}
	}
	if (!w->err)
		memcpy(c.data, &n, 4);
	off[2] = meta(w, TD_OPT_EVENT_FORMATS, "events format", &c);
	item(w, td, &c, PK_TD_KALLSYMS, 4);
	off[3] = meta(w, TD_OPT_KALLSYMS, "kallsyms", &c);
	item(w, td, &c, PK_TD_PRINTK, 4);
	off[4] = meta(w, TD_OPT_PRINTK, "printk", &c);
	item(w, td, &c, PK_TD_CMDLINES, 8);
	off[5] = meta(w, TD_OPT_CMDLINES, "command lines", &c);
	pk__buf_fini(&c);
}

/* CPU K's pages from FD at the next page boundary; *OFF and *SIZE as the
 * BUFFER option gives them. */
static void cpu_data(struct tw *w, int fd, uint32_t ps, uint64_t *pos,
		     uint64_t *off, uint64_t *size)
{
	off_t len = lseek(fd, 0, SEEK_END);
	size_t csz = (size_t)ps * CHUNK_PAGES;

	*pos = (*pos + ps - 1) / ps * ps;
	*off = *pos;
	*size = 0;
	if (len <= 0 || w->err)
		return;
	while (w->f.len < *pos)
		put(w, "", 1);
	uint8_t *buf = pk__malloc(csz);
	size_t count_at = w->f.len;
	uint32_t chunks = 0;
	if (!buf) {
		w->err = -ENOMEM;
		return;
	}
	if (w->comp)
		put32(w, 0);
	for (off_t at = 0; at < len && !w->err; at += (off_t)csz) {
		size_t n = (size_t)PK_MIN((off_t)csz, len - at);
		if (pread(fd, buf, n, at) != (ssize_t)n) {
			w->err = -EIO;
			break;
		}
		block(w, buf, n);
		chunks++;
	}
	pk__free(buf);
	if (w->comp && !w->err)
		memcpy(w->f.data + count_at, &chunks, 4);
	*size = w->f.len - count_at - (w->comp ? 4 : 0);
	*pos = w->f.len;
}

int pk__td_write_tc7(struct pk_tracedat *td, const char *path,
		     const char *clock, const int *fds, int n, uint64_t *coff)
{
	struct tw w = { .comp = strcmp(td->comp, "none") ? td->comp : NULL };
	uint32_t ps = td->bufs[0].page_size;
	uint64_t off[6], pos;
	const char *ver = "";
	int fd;

	for (int i = 0; w.comp && pk_tracedat_codec(i, &ver); i++)
		if (!strcmp(pk_tracedat_codec(i, &ver), w.comp))
			break;
	put(&w, "\x17\x08\x44tracing7", 12);
	put(&w, (char[2]){ (char)td->big, (char)td->long_size }, 2);
	put32(&w, ps);
	put(&w, td->comp, strlen(td->comp) + 1);
	put(&w, w.comp ? ver : "", strlen(w.comp ? ver : "") + 1);
	size_t first = w.f.len;
	put64(&w, 0);
	metadata(&w, td, off);
	/* options: the sections, then the CPU count */
	patch64(&w, first, w.f.len);
	size_t sz = sec_start(&w, TD_OPT_DONE, false, "options");
	for (int i = 0; i < 6; i++) {
		put16(&w, (uint16_t)(TD_OPT_HEADER_INFO + i));
		put32(&w, 8);
		put64(&w, off[i]);
	}
	put16(&w, TD_OPT_DONE);
	put32(&w, 8);
	put64(&w, w.f.len + 8);
	sec_end(&w, sz);
	sz = sec_start(&w, TD_OPT_DONE, false, "options");
	put16(&w, TD_OPT_CPUCOUNT);
	put32(&w, 4);
	put32(&w, (uint32_t)n);
	put16(&w, TD_OPT_DONE);
	put32(&w, 8);
	size_t next = w.f.len;
	put64(&w, 0);
	sec_end(&w, sz);
	/* the flyrecord section */
	uint64_t fly = w.f.len;
	sz = sec_start(&w, TD_OPT_BUFFER, true, "buffer flyrecord ");
	pos = w.f.len;
	for (int k = 0; k < n; k++)
		cpu_data(&w, fds[k], ps, &pos, &coff[2 * k], &coff[2 * k + 1]);
	sec_end(&w, sz);
	/* the buffer option */
	patch64(&w, next, w.f.len);
	sz = sec_start(&w, TD_OPT_DONE, false, "options");
	/* (CPUs without data are left out) */
	uint32_t with = 0;
	for (int k = 0; k < n; k++)
		with += lseek(fds[k], 0, SEEK_END) > 0;
	put16(&w, TD_OPT_BUFFER);
	put32(&w, (uint32_t)(8 + 1 + strlen(clock) + 1 + 8 + 20 * (size_t)with));
	put64(&w, fly);
	put(&w, "", 1);
	put(&w, clock, strlen(clock) + 1);
	put32(&w, ps);
	put32(&w, with);
	for (int k = 0; k < n; k++) {
		if (lseek(fds[k], 0, SEEK_END) <= 0)
			continue;
		put32(&w, (uint32_t)k);
		put64(&w, coff[2 * k]);
		put64(&w, coff[2 * k + 1]);
	}
	put16(&w, TD_OPT_DONE);
	put32(&w, 8);
	put64(&w, 0);
	sec_end(&w, sz);
	/* the strings, their own name included */
	sz = sec_start(&w, TD_OPT_STRINGS, true, "strings");
	if (!w.err && !w.str.data)
		w.err = -ENOMEM;
	if (!w.err)
		block(&w, w.str.data, w.str.len);
	sec_end(&w, sz);
	int r = w.err;
	if (!r && (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644)) < 0)
		r = -errno;
	if (!r) {
		r = pk__write_all(fd, w.f.data, w.f.len);
		if (close(fd) && !r)
			r = -errno;
	}
	pk__buf_fini(&w.f);
	pk__buf_fini(&w.str);
	return r;
}
