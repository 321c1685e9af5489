/* SPDX-License-Identifier: MIT */
/*
 * trace.dat writer, format 7, laid out as trace-cmd 3.1.6 writes a file
 * (its copies, the pieces of trace-cmd split, byte for byte): the header
 * with the codec's own version, the six metadata sections (each one
 * block, compressed when the file is), an options section pointing at
 * them, one with the file's other options and the CPU count, a section
 * per buffer ("buffer flyrecord NAME": each CPU's data from a page
 * boundary, compressed in chunks of 10 pages; or a latency text), one
 * options section with the BUFFER options, and the strings section (one
 * string per section written, compressed when the file is). Options
 * sections chain through their DONE option.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "base/bytes.h"
#include "tracedat/tracedat.h"

#define CHUNK_PAGES 10

struct wbuf {
	char *name, *clock;
	char *text;             /* latency buffer text, or NULL */
	size_t text_len;
	int nr_cpus;
	int page_size;          /* its ring-buffer sub-buffer size */
	int *ids, *fds;
	uint64_t sec_off;
	uint64_t *off, *size;
};

struct pk_tdwriter {
	int fd;
	char comp[16];
	int page_size, long_size;
	struct pk_buf item[PK_TD_VERSION + 1];
	bool has_item[PK_TD_VERSION + 1];
	struct pk_buf ftrace_fmts;    /* u64 size + text, repeated */
	int nr_ftrace;
	struct pk_buf sys_fmts;       /* per system: name\0 u32 n (patched) ... */
	char last_sys[128];
	size_t last_sys_count_at;
	int nr_sys;
	int cpu_count;                /* at least this many CPUs (latency) */
	struct pk_buf cpustats;       /* NUL-separated */
	struct pk_buf tgids;          /* saved_tgids text */
	bool has_tgids;
	int nr_cpustats;
	struct wbuf *bufs;
	int nr_bufs;
	struct pk_buf strings;
	struct pk_buf opts;
	uint64_t *layout;             /* buffer 0's CPU offsets and sizes */
	int err;
	bool header_only, minimal_options;
	bool has_tsc, has_offset;
	uint32_t tsc_mult, tsc_shift;
	uint64_t tsc_offset;
	long long ts_offset, date;
	bool has_date;
};


static uint64_t wpos(struct pk_tdwriter *w)
{
	off_t o = lseek(w->fd, 0, SEEK_CUR);
	return o < 0 ? 0 : (uint64_t)o;
}

static int put16(struct pk_buf *b, uint16_t v) { return pk__buf_append(b, &v, 2); }
static int put32(struct pk_buf *b, uint32_t v) { return pk__buf_append(b, &v, 4); }
static int put64(struct pk_buf *b, uint64_t v) { return pk__buf_append(b, &v, 8); }

static uint32_t add_string(struct pk_tdwriter *w, const char *s)
{
	uint32_t id = (uint32_t)w->strings.len;
	pk__buf_append(&w->strings, s, strlen(s) + 1);
	return id;
}

struct pk_tdwriter *pk_tdwriter_open(const char *path,
				    const struct pk_tdwriter_opts *o)
{
	struct pk_tdwriter *w;
	struct pk_tdwriter_opts lo = { 0 };  /* O's fields, zero past its sz */
	const char *comp;

	if (!PK_OPTS_VALID(o, pk_tdwriter_opts)) {
		errno = EINVAL;
		return NULL;
	}
	if (o)
		memcpy(&lo, o, PK_MIN(o->sz, sizeof(lo)));
	o = &lo;
	comp = o->compression ? o->compression : "none";
	if (strcmp(comp, "none") && strcmp(comp, "zstd") &&
	    strcmp(comp, "zlib")) {
		errno = EINVAL;
		return NULL;
	}
	w = pk__zalloc(sizeof(*w));
	if (!w)
		return NULL;
	snprintf(w->comp, sizeof(w->comp), "%s", comp);
	w->page_size = o->page_size ? o->page_size : (int)sysconf(_SC_PAGESIZE);
	w->long_size = o->long_size ? o->long_size : (int)sizeof(long);
	w->header_only = o->header_only;
	w->minimal_options = o->header_only || o->minimal_options;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		int e = errno;
		pk__free(w);
		errno = e;
		return NULL;
	}
	return w;
}

int pk_tdwriter_set_item(struct pk_tdwriter *w, enum pk_tracedat_item item,
			 const void *data, size_t len)
{
	if ((int)item < 0 || item > PK_TD_VERSION)
		return -EINVAL;
	w->item[item].len = 0;
	w->has_item[item] = true;
	return pk__buf_append(&w->item[item], data, len) ? -ENOMEM : 0;
}

int pk__tdwriter_take_item(struct pk_tdwriter *w, enum pk_tracedat_item item,
			   char *data, size_t len)
{
	if ((int)item < 0 || item > PK_TD_VERSION) {
		pk__free(data);
		return -EINVAL;
	}
	pk__buf_fini(&w->item[item]);
	w->item[item] = (struct pk_buf){ .data = data, .len = len,
					 .cap = len };
	w->has_item[item] = true;
	return 0;
}

int pk_tdwriter_add_format(struct pk_tdwriter *w, const char *system,
			   const char *text, size_t len)
{
	if (!strcmp(system, "ftrace")) {
		w->nr_ftrace++;
		if (put64(&w->ftrace_fmts, len) ||
		    pk__buf_append(&w->ftrace_fmts, text, len))
			return -ENOMEM;
		return 0;
	}
	if (strcmp(system, w->last_sys) || !w->nr_sys) {
		snprintf(w->last_sys, sizeof(w->last_sys), "%s", system);
		if (pk__buf_append(&w->sys_fmts, system, strlen(system) + 1))
			return -ENOMEM;
		w->last_sys_count_at = w->sys_fmts.len;
		if (put32(&w->sys_fmts, 0))
			return -ENOMEM;
		w->nr_sys++;
	}
	uint32_t n;
	memcpy(&n, w->sys_fmts.data + w->last_sys_count_at, 4);
	n++;
	memcpy(w->sys_fmts.data + w->last_sys_count_at, &n, 4);
	if (put64(&w->sys_fmts, len) || pk__buf_append(&w->sys_fmts, text, len))
		return -ENOMEM;
	return 0;
}

int pk_tdwriter_set_tsc2nsec(struct pk_tdwriter *w, uint32_t mult,
			     uint32_t shift, uint64_t offset)
{
	if (!mult || shift > 63)
		return -EINVAL;
	w->has_tsc = true;
	w->tsc_mult = mult;
	w->tsc_shift = shift;
	w->tsc_offset = offset;
	return 0;
}

int pk_tdwriter_set_ts_offset(struct pk_tdwriter *w, long long offset)
{
	w->has_offset = true;
	w->ts_offset = offset;
	return 0;
}

int pk_tdwriter_set_date(struct pk_tdwriter *w, long long usecs)
{
	w->has_date = true;
	w->date = usecs;
	return 0;
}

int pk_tdwriter_add_cpustat(struct pk_tdwriter *w, const char *text)
{
	w->nr_cpustats++;
	return pk__buf_append(&w->cpustats, text, strlen(text) + 1) ? -ENOMEM
								    : 0;
}

int pk_tdwriter_set_tgids(struct pk_tdwriter *w, const char *text,
			  size_t len)
{
	w->tgids.len = 0;
	w->has_tgids = true;
	return pk__buf_append(&w->tgids, text, len) ? -ENOMEM : 0;
}

int pk_tdwriter_add_buffer(struct pk_tdwriter *w, const char *name,
			   const char *clock, int nr_cpus,
			   const int *cpu_ids, const int *fds)
{
	struct wbuf *b = pk__realloc(w->bufs, (w->nr_bufs + 1) * sizeof(*b));

	if (!b)
		return -ENOMEM;
	w->bufs = b;
	b = &b[w->nr_bufs];
	memset(b, 0, sizeof(*b));
	b->name = pk__strdup(name);
	b->clock = pk__strdup(clock ? clock : "local");
	b->ids = pk__calloc(nr_cpus + 1, sizeof(int));
	b->fds = pk__calloc(nr_cpus + 1, sizeof(int));
	b->off = pk__calloc(nr_cpus + 1, sizeof(uint64_t));
	b->size = pk__calloc(nr_cpus + 1, sizeof(uint64_t));
	w->nr_bufs++;
	if (!b->name || !b->clock || !b->ids || !b->fds || !b->off || !b->size)
		return -ENOMEM;
	b->nr_cpus = nr_cpus;
	b->page_size = w->page_size;
	if (nr_cpus) {
		memcpy(b->ids, cpu_ids, nr_cpus * sizeof(int));
		memcpy(b->fds, fds, nr_cpus * sizeof(int));
	}
	return 0;
}

int pk_tdwriter_copy_meta(struct pk_tdwriter *w, const struct pk_tracedat *td)
{
	static const enum pk_tracedat_item items[] = {
		PK_TD_HEADER_PAGE, PK_TD_HEADER_EVENT, PK_TD_KALLSYMS,
		PK_TD_PRINTK, PK_TD_CMDLINES,
	};
	int r = 0;

	for (size_t i = 0; !r && i < PK_ARRAY_SIZE(items); i++) {
		size_t len;
		const char *p = pk_tracedat_item(td, items[i], &len);
		if (p)
			r = pk_tdwriter_set_item(w, items[i], p, len);
	}
	for (int i = 0; !r && i < pk_tracedat_nr_formats(td); i++) {
		const char *sys;
		size_t len;
		const char *p = pk_tracedat_format(td, i, &sys, &len);
		r = pk_tdwriter_add_format(w, sys, p, len);
	}
	return r;
}

static bool compressed(const struct pk_tdwriter *w)
{
	return strcmp(w->comp, "none") != 0;
}

/* Writes a section described by string SID: header, then DATA as one
 * block (compressed when COMP, its sizes first); *AT gets its offset. */
static int wr_section_id(struct pk_tdwriter *w, uint16_t id, uint32_t sid,
			 bool comp, const void *data, size_t len, uint64_t *at)
{
	struct pk_buf h = { 0 };
	void *cdata = NULL;
	size_t clen = 0;
	int r;

	if (!w->strings.data)
		return -ENOMEM;

	*at = wpos(w);
	if (comp && (r = pk__td_compress(w->comp, data, len, &cdata, &clen)))
		return r;
	put16(&h, id);
	put16(&h, comp ? 1 : 0);
	put32(&h, sid);
	put64(&h, comp ? clen + 8 : len);
	if (comp) {
		put32(&h, (uint32_t)clen);
		put32(&h, (uint32_t)len);
	}
	r = h.data ? pk__write_all(w->fd, h.data, h.len) : -ENOMEM;
	if (!r)
		r = comp ? pk__write_all(w->fd, cdata, clen) : pk__write_all(w->fd, data, len);
	pk__buf_fini(&h);
	pk__free(cdata);
	return r;
}

static int wr_section(struct pk_tdwriter *w, uint16_t id, const char *desc,
		      bool comp, const void *data, size_t len, uint64_t *at)
{
	return wr_section_id(w, id, add_string(w, desc), comp, data, len, at);
}

static int pad_to(struct pk_tdwriter *w, uint64_t align)
{
	static const char zero[4096];
	uint64_t p = wpos(w), pad = (align - p % align) % align;
	while (pad) {
		size_t n = (size_t)PK_MIN(pad, sizeof(zero));
		int r = pk__write_all(w->fd, zero, n);
		if (r)
			return r;
		pad -= n;
	}
	return 0;
}

int pk_tdwriter_buffer_page_size(struct pk_tdwriter *w, int page_size)
{
	if (!w->nr_bufs || page_size < 256 || page_size > (1 << 24) ||
	    (page_size & (page_size - 1)))
		return -EINVAL;
	w->bufs[w->nr_bufs - 1].page_size = page_size;
	return 0;
}

/* Where chunked data comes from: a file (FD) or memory (P, LEN). */
struct wsrc {
	int fd;
	const char *p;
	size_t len, pos;
};

/* Fills BUF with up to N bytes of S: the count, or -errno. */
static ssize_t src_fill(struct wsrc *s, char *buf, size_t n)
{
	size_t got = 0;

	if (!s->p) {
		while (got < n) {
			ssize_t k = read(s->fd, buf + got, n - got);
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				return -errno;
			if (!k)
				break;
			got += (size_t)k;
		}
		return (ssize_t)got;
	}
	got = PK_MIN(n, s->len - s->pos);
	memcpy(buf, s->p + s->pos, got);
	s->pos += got;
	return (ssize_t)got;
}

/* Writes one compressed chunk: u32 compressed size, u32 size, the data. */
static int wr_chunk(struct pk_tdwriter *w, const char *buf, size_t len)
{
	void *c;
	size_t cl;
	int r = pk__td_compress(w->comp, buf, len, &c, &cl);

	if (r)
		return r;
	uint32_t hdr[2] = { (uint32_t)cl, (uint32_t)len };
	r = pk__write_all(w->fd, hdr, 8);
	if (!r)
		r = pk__write_all(w->fd, c, cl);
	pk__free(c);
	return r;
}

/*
 * Copies S as trace-cmd copies a file: compressed files get a u32 chunk
 * count, then chunks of 10 pages of PS bytes. *SIZE gets the bytes
 * written, the count left out (trace-cmd's CPU data sizes leave it out).
 */
static int wr_chunks(struct pk_tdwriter *w, struct wsrc *s, int ps,
		     uint64_t *size)
{
	size_t csz = (size_t)ps * CHUNK_PAGES;
	char *buf = pk__malloc(csz);
	bool comp = compressed(w);
	uint64_t start = wpos(w), count_at = start;
	uint32_t chunks = 0;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	if (comp)
		r = pk__write_all(w->fd, &chunks, 4);
	while (!r) {
		ssize_t got = src_fill(s, buf, csz);
		if (got <= 0) {
			r = (int)got;
			break;
		}
		r = comp ? wr_chunk(w, buf, (size_t)got)
			 : pk__write_all(w->fd, buf, (size_t)got);
		chunks++;
	}
	pk__free(buf);
	if (r)
		return r;
	uint64_t end = wpos(w);
	if (comp) {
		if (pwrite(w->fd, &chunks, 4, (off_t)count_at) != 4)
			return -errno;
		*size = end - start - 4;
	} else {
		*size = end - start;
	}
	return 0;
}

/* Copies one CPU's pages (PS bytes each) from FD from the next page
 * boundary: *OFF gets where, *SIZE the bytes written. An empty FD writes
 * nothing (no chunk count either, as trace-cmd). */
static int wr_cpu(struct pk_tdwriter *w, int fd, int ps, uint64_t *off,
		  uint64_t *size)
{
	struct wsrc s = { .fd = fd };
	off_t len = lseek(fd, 0, SEEK_END);
	uint64_t p = wpos(w);
	int r;

	*off = (p + (uint64_t)ps - 1) / (uint64_t)ps * (uint64_t)ps;
	*size = 0;
	if (len < 0)
		return -errno;
	if (!len)
		return 0;
	if ((r = pad_to(w, (uint64_t)ps)))
		return r;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	return wr_chunks(w, &s, ps, size);
}

/*
 * A latency buffer's section: the text as trace-cmd copies the kernel's
 * `trace` file, in chunks when compressed (the section's size counts the
 * chunk count, unlike CPU data).
 */
static int wr_text(struct pk_tdwriter *w, struct wbuf *b)
{
	struct wsrc s = { .fd = -1, .p = b->text, .len = b->text_len };
	struct pk_buf h = { 0 };
	bool comp = compressed(w);
	uint64_t size = 0;
	int r;

	if (!comp)
		return wr_section(w, TD_OPT_BUFFER_TEXT, "buffer latency", false,
				  b->text, b->text_len, &b->sec_off);
	b->sec_off = wpos(w);
	put16(&h, TD_OPT_BUFFER_TEXT);
	put16(&h, 1);
	put32(&h, add_string(w, "buffer latency"));
	put64(&h, 0);
	r = h.data ? pk__write_all(w->fd, h.data, h.len) : -ENOMEM;
	pk__buf_fini(&h);
	if (!r)
		r = wr_chunks(w, &s, w->page_size, &size);
	size += 4;
	if (!r && pwrite(w->fd, &size, 8, (off_t)b->sec_off + 8) != 8)
		r = -errno;
	return r;
}

void pk_tdwriter_set_cpu_count(struct pk_tdwriter *w, int n)
{
	w->cpu_count = n > 0 ? n : 0;
}

int pk_tdwriter_add_latency(struct pk_tdwriter *w, const char *name,
			    const char *clock, const char *text, size_t len)
{
	int r = pk_tdwriter_add_buffer(w, name, clock, 0, NULL, NULL);
	struct wbuf *b = &w->bufs[w->nr_bufs - 1];

	if (r)
		return r;
	b->text = pk__malloc(len + 1);
	if (!b->text)
		return -ENOMEM;
	memcpy(b->text, text, len);
	b->text_len = len;
	return 0;
}

static int wr_buffer(struct pk_tdwriter *w, struct wbuf *b)
{
	struct pk_buf h = { 0 }, d = { 0 };
	uint64_t size_at;
	int r;

	if (b->text)
		return wr_text(w, b);

	b->sec_off = wpos(w);
	pk__buf_append(&d, "buffer flyrecord ", 17);
	pk__buf_append(&d, b->name, strlen(b->name) + 1);
	put16(&h, TD_OPT_BUFFER);
	put16(&h, compressed(w) ? 1 : 0);
	put32(&h, d.data ? add_string(w, d.data) : 0);
	put64(&h, 0);
	r = h.data && d.data && w->strings.data ?
	    pk__write_all(w->fd, h.data, h.len) : -ENOMEM;
	pk__buf_fini(&h);
	pk__buf_fini(&d);
	size_at = b->sec_off + 8;
	if (r)
		return r;
	for (int i = 0; i < b->nr_cpus; i++)
		if ((r = wr_cpu(w, b->fds[i], b->page_size, &b->off[i],
				&b->size[i])))
			return r;
	uint64_t total = wpos(w) - size_at - 8;
	if (pwrite(w->fd, &total, 8, (off_t)size_at) != 8)
		return -errno;
	return 0;
}

static int opt_add(struct pk_tdwriter *w, uint16_t id, const void *d,
		   uint32_t n)
{
	if (put16(&w->opts, id) || put32(&w->opts, n) ||
	    (n && pk__buf_append(&w->opts, d, n)))
		return -ENOMEM;
	return 0;
}

static int opt_add_str(struct pk_tdwriter *w, uint16_t id, const char *s,
		       size_t len)
{
	char *t = pk__malloc(len + 1);
	int r;
	if (!t)
		return -ENOMEM;
	memcpy(t, s, len);
	t[len] = 0;
	r = opt_add(w, id, t, (uint32_t)len + 1);
	pk__free(t);
	return r;
}

static int wr_meta(struct pk_tdwriter *w)
{
	struct pk_buf s = { 0 };
	uint64_t at;
	int r;

	/* header info */
	pk__buf_append(&s, "header_page", 12);
	put64(&s, w->item[PK_TD_HEADER_PAGE].len);
	pk__buf_append(&s, w->item[PK_TD_HEADER_PAGE].data,
		      w->item[PK_TD_HEADER_PAGE].len);
	pk__buf_append(&s, "header_event", 13);
	put64(&s, w->item[PK_TD_HEADER_EVENT].len);
	pk__buf_append(&s, w->item[PK_TD_HEADER_EVENT].data,
		      w->item[PK_TD_HEADER_EVENT].len);
	if (!s.data)
		return -ENOMEM;
	if ((r = wr_section(w, TD_OPT_HEADER_INFO, "headers", compressed(w),
			    s.data, s.len, &at)))
		goto out;
	opt_add(w, TD_OPT_HEADER_INFO, &at, 8);
	/* ftrace formats */
	s.len = 0;
	put32(&s, (uint32_t)w->nr_ftrace);
	pk__buf_append(&s, w->ftrace_fmts.data, w->ftrace_fmts.len);
	if ((r = wr_section(w, TD_OPT_FTRACE_EVENTS, "ftrace events",
			    compressed(w), s.data, s.len, &at)))
		goto out;
	opt_add(w, TD_OPT_FTRACE_EVENTS, &at, 8);
	s.len = 0;
	put32(&s, (uint32_t)w->nr_sys);
	pk__buf_append(&s, w->sys_fmts.data, w->sys_fmts.len);
	if ((r = wr_section(w, TD_OPT_EVENT_FORMATS, "events format",
			    compressed(w), s.data, s.len, &at)))
		goto out;
	opt_add(w, TD_OPT_EVENT_FORMATS, &at, 8);
	static const struct { int item, id, wide; const char *d; } m[] = {
		{ PK_TD_KALLSYMS, TD_OPT_KALLSYMS, 0, "kallsyms" },
		{ PK_TD_PRINTK, TD_OPT_PRINTK, 0, "printk" },
		{ PK_TD_CMDLINES, TD_OPT_CMDLINES, 1, "command lines" },
	};
	for (size_t i = 0; i < PK_ARRAY_SIZE(m); i++) {
		struct pk_buf *it = &w->item[m[i].item];
		s.len = 0;
		if (m[i].wide)
			put64(&s, it->len);
		else
			put32(&s, (uint32_t)it->len);
		pk__buf_append(&s, it->data ? it->data : "", it->len);
		if ((r = wr_section(w, (uint16_t)m[i].id, m[i].d,
				    compressed(w), s.data, s.len, &at)))
			goto out;
		opt_add(w, (uint16_t)m[i].id, &at, 8);
	}
out:
	pk__buf_fini(&s);
	return r;
}

/* The trace clock, uname and version options (not minimal_options). */
static void wr_host_options(struct pk_tdwriter *w)
{
	struct utsname u;
	char tmp[512];

	if (w->has_item[PK_TD_TRACE_CLOCK])
		opt_add_str(w, TD_OPT_TRACECLOCK, w->item[PK_TD_TRACE_CLOCK].data,
			    w->item[PK_TD_TRACE_CLOCK].len);
	if (w->has_item[PK_TD_UNAME])
		opt_add_str(w, TD_OPT_UNAME, w->item[PK_TD_UNAME].data,
			    w->item[PK_TD_UNAME].len);
	else if (!uname(&u)) {
		snprintf(tmp, sizeof(tmp), "%s %s %s %s", u.sysname,
			 u.nodename, u.release, u.machine);
		opt_add_str(w, TD_OPT_UNAME, tmp, strlen(tmp));
	}
	const char *ver = "perfkit 0.1";
	opt_add_str(w, TD_OPT_VERSION, ver, strlen(ver));
}

/* The options written before the buffers: the host's, TGIDs, CPU stats,
 * clock conversions and the CPU count. */
static int wr_options(struct pk_tdwriter *w)
{
	char tmp[512];

	if (!w->minimal_options)
		wr_host_options(w);
	if (w->has_tgids)
		opt_add_str(w, TD_OPT_PK_TGIDS, w->tgids.data ? w->tgids.data
							       : "", w->tgids.len);
	for (size_t at = 0, i = 0; i < (size_t)w->nr_cpustats; i++) {
		const char *t = w->cpustats.data + at;
		size_t n = strlen(t);
		opt_add(w, TD_OPT_CPUSTAT, t, (uint32_t)n + 1);
		at += n + 1;
	}
	if (w->has_tsc) {
		/* u32 multiplier, u32 shift, u64 offset (host order) */
		uint8_t v[16];
		memcpy(v, &w->tsc_mult, 4);
		memcpy(v + 4, &w->tsc_shift, 4);
		memcpy(v + 8, &w->tsc_offset, 8);
		opt_add(w, TD_OPT_TSC2NSEC, v, 16);
	}
	if (w->has_date) {     /* hex text of microseconds, as trace-cmd
				  record --date */
		snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)w->date);
		opt_add(w, TD_OPT_DATE, tmp, (uint32_t)strlen(tmp) + 1);
	}
	if (w->has_offset) {   /* decimal text, as trace-cmd --ts-offset */
		snprintf(tmp, sizeof(tmp), "%lld", w->ts_offset);
		opt_add(w, TD_OPT_OFFSET, tmp, (uint32_t)strlen(tmp) + 1);
	}
	uint32_t ncpu = (uint32_t)w->cpu_count;
	for (int i = 0; i < w->nr_bufs; i++)
		for (int k = 0; k < w->bufs[i].nr_cpus; k++)
			ncpu = PK_MAX(ncpu, (uint32_t)w->bufs[i].ids[k] + 1);
	return opt_add(w, TD_OPT_CPUCOUNT, &ncpu, 4);
}

/* The BUFFER and BUFFER_TEXT options, after the buffers. */
static int wr_buffer_options(struct pk_tdwriter *w)
{
	int r;

	for (int i = 0; i < w->nr_bufs; i++) {
		struct wbuf *b = &w->bufs[i];
		struct pk_buf o = { 0 };
		uint32_t ps = (uint32_t)b->page_size, n = (uint32_t)b->nr_cpus;
		put64(&o, b->sec_off);
		pk__buf_append(&o, b->name, strlen(b->name) + 1);
		pk__buf_append(&o, b->clock, strlen(b->clock) + 1);
		if (b->text) {
			r = o.data ? opt_add(w, TD_OPT_BUFFER_TEXT, o.data,
					     (uint32_t)o.len) : -ENOMEM;
			pk__buf_fini(&o);
			if (r)
				return r;
			continue;
		}
		/* CPUs without data are left out, as trace-cmd does */
		uint32_t nd = 0;
		for (uint32_t k = 0; k < n; k++)
			nd += b->size[k] != 0;
		put32(&o, ps);
		put32(&o, nd);
		for (uint32_t k = 0; k < n; k++) {
			if (!b->size[k])
				continue;
			put32(&o, (uint32_t)b->ids[k]);
			put64(&o, b->off[k]);
			put64(&o, b->size[k]);
		}
		if (!o.data)
			return -ENOMEM;
		r = opt_add(w, TD_OPT_BUFFER, o.data, (uint32_t)o.len);
		pk__buf_fini(&o);
		if (r)
			return r;
	}
	return 0;
}

/*
 * Writes the options gathered (W->opts) and a DONE option as an
 * uncompressed options section; *DONE_AT gets where DONE's value (the
 * next options section's offset, 0 for none) is, to be patched.
 */
static int wr_opts_section(struct pk_tdwriter *w, uint64_t *done_at)
{
	uint64_t zero = 0, at;
	int r = opt_add(w, TD_OPT_DONE, &zero, 8);

	if (!r)
		r = wr_section(w, TD_OPT_DONE, "options", false, w->opts.data,
			       w->opts.len, &at);
	*done_at = wpos(w) - 8;
	w->opts.len = 0;
	return r;
}

static int patch64(struct pk_tdwriter *w, uint64_t at, uint64_t v)
{
	return pwrite(w->fd, &v, 8, (off_t)at) == 8 ? 0 : -errno;
}

static int wr_header(struct pk_tdwriter *w, uint64_t *opt_ptr)
{
	struct pk_buf h = { 0 };
	const char *ver = "", *v, *name;
	int r;

	for (int i = 0; compressed(w) && (name = pk_tracedat_codec(i, &v));
	     i++)
		if (!strcmp(name, w->comp))
			ver = v;
	pk__buf_append(&h, "\x17\x08\x44tracing7", 12);
	char f[2] = { 0, (char)w->long_size };
	pk__buf_append(&h, f, 2);
	put32(&h, (uint32_t)w->page_size);
	pk__buf_append(&h, w->comp, strlen(w->comp) + 1);
	pk__buf_append(&h, ver, strlen(ver) + 1);
	*opt_ptr = h.len;
	put64(&h, 0);
	r = h.data ? pk__write_all(w->fd, h.data, h.len) : -ENOMEM;
	pk__buf_fini(&h);
	return r;
}

static int wr_file(struct pk_tdwriter *w)
{
	uint64_t opt_ptr, done_at, at;
	int r;

	if ((r = wr_header(w, &opt_ptr)) || (r = wr_meta(w)) ||
	    (r = patch64(w, opt_ptr, wpos(w))) ||
	    (r = wr_opts_section(w, &done_at)))
		return r;
	if (!w->header_only) {
		if ((r = patch64(w, done_at, wpos(w))) ||
		    (r = wr_options(w)) ||
		    (r = wr_opts_section(w, &done_at)))
			return r;
		for (int i = 0; i < w->nr_bufs; i++)
			if ((r = wr_buffer(w, &w->bufs[i])))
				return r;
		if ((r = patch64(w, done_at, wpos(w))) ||
		    (r = wr_buffer_options(w)) ||
		    (r = wr_opts_section(w, &done_at)))
			return r;
	}
	/* the strings, this section's own name included */
	uint32_t sid = add_string(w, "strings");
	r = wr_section_id(w, TD_OPT_STRINGS, sid, compressed(w),
			  w->strings.data, w->strings.len, &at);
	if (!r && w->layout && w->nr_bufs)
		for (int k = 0; k < w->bufs[0].nr_cpus; k++) {
			w->layout[2 * k] = w->bufs[0].off[k];
			w->layout[2 * k + 1] = w->bufs[0].size[k];
		}
	return r;
}

void pk__tdwriter_note_layout(struct pk_tdwriter *w, uint64_t *layout)
{
	w->layout = layout;
}

int pk_tdwriter_close(struct pk_tdwriter *w)
{
	int r;

	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) {
		pk_tdwriter_free(w);
		return PK_ERR_UNSUPP;
	}
	r = wr_file(w);
	if (!r && fsync(w->fd) < 0 && errno != EINVAL)
		r = -errno;
	pk_tdwriter_free(w);
	return r;
}

void pk_tdwriter_free(struct pk_tdwriter *w)
{
	if (!w)
		return;
	if (w->fd >= 0)
		close(w->fd);
	for (int i = 0; i <= PK_TD_VERSION; i++)
		pk__buf_fini(&w->item[i]);
	pk__buf_fini(&w->ftrace_fmts);
	pk__buf_fini(&w->sys_fmts);
	pk__buf_fini(&w->cpustats);
	pk__buf_fini(&w->tgids);
	pk__buf_fini(&w->strings);
	pk__buf_fini(&w->opts);
	for (int i = 0; i < w->nr_bufs; i++) {
		struct wbuf *b = &w->bufs[i];
		pk__free(b->name);
		pk__free(b->clock);
		pk__free(b->text);
		pk__free(b->ids);
		pk__free(b->fds);
		pk__free(b->off);
		pk__free(b->size);
	}
	pk__free(w->bufs);
	pk__free(w);
}
