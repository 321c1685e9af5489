/* SPDX-License-Identifier: MIT */
/*
 * trace.dat reader: file header, v6 sequential metadata, v7 sections and
 * options, buffer layout. CPU data pages are read by tditer.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/bytes.h"
#include "tracedat/tracedat.h"

int pk__td_keep(struct pk_tracedat *td, void *p)
{
	char **n = pk__realloc(td->owned, (td->nr_owned + 1) * sizeof(*n));

	if (!n) {
		pk__free(p);
		return -ENOMEM;
	}
	td->owned = n;
	td->owned[td->nr_owned++] = p;
	return 0;
}

int pk__td_err(const struct td_cur *c, int err, const char *what)
{
	if (c->decomp)
		pk_warn("trace.dat: section at offset %llu, byte %zu: %s",
			(unsigned long long)c->base, c->pos, what);
	else
		pk_warn("trace.dat: offset %llu: %s",
			(unsigned long long)(c->base + c->pos), what);
	return err;
}

static int need(const struct td_cur *c, size_t n, const char *what)
{
	if (c->len - c->pos < n)
		return pk__td_err(c, PK_ERR_TRUNC, what);
	return 0;
}

static int rd_u16(struct td_cur *c, uint16_t *v, const char *what)
{
	int r = need(c, 2, what);
	if (r)
		return r;
	*v = pk_ld16(c->p + c->pos, c->big);
	c->pos += 2;
	return 0;
}

static int rd_u32(struct td_cur *c, uint32_t *v, const char *what)
{
	int r = need(c, 4, what);
	if (r)
		return r;
	*v = pk_ld32(c->p + c->pos, c->big);
	c->pos += 4;
	return 0;
}

static int rd_u64(struct td_cur *c, uint64_t *v, const char *what)
{
	int r = need(c, 8, what);
	if (r)
		return r;
	*v = pk_ld64(c->p + c->pos, c->big);
	c->pos += 8;
	return 0;
}

/* A NUL-terminated string in place. */
static int rd_str(struct td_cur *c, const char **s, const char *what)
{
	const uint8_t *z = memchr(c->p + c->pos, 0, c->len - c->pos);

	if (!z)
		return pk__td_err(c, PK_ERR_TRUNC, what);
	*s = (const char *)c->p + c->pos;
	c->pos = (size_t)(z - c->p) + 1;
	return 0;
}

static int rd_blob(struct td_cur *c, size_t n, struct td_blob *b,
		   const char *what)
{
	int r = need(c, n, what);
	if (r)
		return r;
	b->p = (const char *)c->p + c->pos;
	b->len = n;
	c->pos += n;
	return 0;
}

static int rd_blob64(struct td_cur *c, struct td_blob *b, const char *what)
{
	uint64_t n;
	int r = rd_u64(c, &n, what);
	if (!r && n > c->len - c->pos)
		return pk__td_err(c, PK_ERR_TRUNC, what);
	return r ? r : rd_blob(c, (size_t)n, b, what);
}

static int rd_blob32(struct td_cur *c, struct td_blob *b, const char *what)
{
	uint32_t n;
	int r = rd_u32(c, &n, what);
	return r ? r : rd_blob(c, n, b, what);
}

static int add_format(struct pk_tracedat *td, const char *sys,
		      struct td_blob b)
{
	struct td_format *f = pk__realloc(td->fmts,
					 (td->nr_fmts + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	td->fmts = f;
	f[td->nr_fmts].system = sys;
	f[td->nr_fmts].text = b;
	td->nr_fmts++;
	return 0;
}

static int rd_header_info(struct pk_tracedat *td, struct td_cur *c)
{
	int r;

	if ((r = need(c, 12, "header_page tag")))
		return r;
	if (memcmp(c->p + c->pos, "header_page", 12))
		return pk__td_err(c, PK_ERR_FORMAT, "expected \"header_page\"");
	c->pos += 12;
	if ((r = rd_blob64(c, &td->hdr_page, "header_page")))
		return r;
	if ((r = need(c, 13, "header_event tag")))
		return r;
	if (memcmp(c->p + c->pos, "header_event", 13))
		return pk__td_err(c, PK_ERR_FORMAT, "expected \"header_event\"");
	c->pos += 13;
	if ((r = rd_blob64(c, &td->hdr_event, "header_event")))
		return r;
	if (pk__rb_layout_parse(&td->layout, td->hdr_page.p, td->hdr_page.len,
			       td->big))
		pk__rb_layout_default(&td->layout, td->long_size, td->big);
	return 0;
}

static int rd_ftrace_fmts(struct pk_tracedat *td, struct td_cur *c)
{
	uint32_t n;
	int r = rd_u32(c, &n, "ftrace format count");

	for (uint32_t i = 0; !r && i < n; i++) {
		struct td_blob b;
		if ((r = rd_blob64(c, &b, "ftrace format")))
			break;
		r = add_format(td, "ftrace", b);
		td->nr_ftrace_fmts++;
	}
	return r;
}

static int rd_event_fmts(struct pk_tracedat *td, struct td_cur *c)
{
	uint32_t nsys;
	int r = rd_u32(c, &nsys, "event system count");

	for (uint32_t i = 0; !r && i < nsys; i++) {
		const char *sys;
		uint32_t n;
		if ((r = rd_str(c, &sys, "event system name")) ||
		    (r = rd_u32(c, &n, "event count")))
			break;
		for (uint32_t k = 0; !r && k < n; k++) {
			struct td_blob b;
			if ((r = rd_blob64(c, &b, "event format")))
				break;
			r = add_format(td, sys, b);
		}
	}
	return r;
}

/* ---- v7 sections ---- */

/* Memory for a decompressed section, freed with TD. */
static uint8_t *section_buf(struct pk_tracedat *td, size_t n)
{
	if (n >= (1u << 20) && td->nr_bigs < (int)PK_ARRAY_SIZE(td->bigs))
		return pk__bigbuf_alloc(&td->bigs[td->nr_bigs++], n);
	uint8_t *buf = pk__malloc(n ? n : 1);
	return buf && !pk__td_keep(td, buf) ? buf : NULL;
}

/*
 * Reads the header of the section at OFF, which must have id ID and fit in
 * the file: *C is left at its contents, *FLAGS and *SIZE get the header's.
 */
static int section_header(struct pk_tracedat *td, uint64_t off, uint16_t id,
			  struct td_cur *c, uint16_t *flags, uint64_t *size)
{
	uint16_t sid;
	uint32_t str;
	int r;

	*c = (struct td_cur){ td->map, td->size, 0, 0, td->big, false };
	if (off >= td->size || off < 16) {
		pk_warn("trace.dat: section offset %llu outside the file",
			(unsigned long long)off);
		return PK_ERR_FORMAT;
	}
	c->pos = (size_t)off;
	if ((r = rd_u16(c, &sid, "section id")) ||
	    (r = rd_u16(c, flags, "section flags")) ||
	    (r = rd_u32(c, &str, "section string")) ||
	    (r = rd_u64(c, size, "section size")))
		return r;
	if (sid != id) {
		c->pos -= 16;
		return pk__td_err(c, PK_ERR_FORMAT, "unexpected section id");
	}
	if (*size > c->len - c->pos)
		return pk__td_err(c, PK_ERR_TRUNC, "section size past the end");
	return 0;
}

/* Opens the section at OFF with id ID into *OUT (decompressed if needed). */
/*
 * A compressed latency section (trace-cmd copies the `trace` file as it
 * copies CPU data: a chunk count, then chunks): *C becomes the text.
 */
static int open_chunks(struct pk_tracedat *td, struct td_cur *c)
{
	struct td_chunk *k = NULL;
	uint32_t n = 0;
	size_t total;
	uint8_t *buf = NULL;
	int r = pk__td_chunks(c, &k, &n, &total);

	if (!r && !(buf = section_buf(td, total)))
		r = -ENOMEM;
	for (uint32_t i = 0; !r && i < n; i++) {
		r = pk__td_decompress(td->comp, td->map + k[i].in, k[i].csize,
				      buf + k[i].out, k[i].usize);
		if (r < 0)
			r = pk__td_err(c, r, "cannot decompress latency text");
	}
	pk__free(k);
	if (r)
		return r;
	*c = (struct td_cur){ buf, total, 0, c->base, td->big, true };
	return 0;
}

static int open_section(struct pk_tracedat *td, uint64_t off, uint16_t id,
			struct td_cur *out, uint16_t *flags_out)
{
	struct td_cur c;
	uint16_t flags;
	uint64_t size;
	int r = section_header(td, off, id, &c, &flags, &size);

	if (r)
		return r;
	if (flags_out)
		*flags_out = flags;
	*out = (struct td_cur){ c.p + c.pos, (size_t)size, 0, c.pos, td->big,
				false };
	if (!(flags & 1) || id == TD_OPT_BUFFER)
		return 0;
	if (id == TD_OPT_BUFFER_TEXT)
		return open_chunks(td, out);
	uint32_t csize, usize;
	if ((r = rd_u32(out, &csize, "compressed size")) ||
	    (r = rd_u32(out, &usize, "uncompressed size")))
		return r;
	if (csize > out->len - out->pos)
		return pk__td_err(out, PK_ERR_TRUNC, "compressed data past section");
	if (!pk__td_size_plausible(csize, usize))
		return pk__td_err(out, PK_ERR_FORMAT, "implausible uncompressed size");
	uint8_t *buf = section_buf(td, usize);
	if (!buf)
		return -ENOMEM;
	r = pk__td_decompress(td->comp, out->p + out->pos, csize, buf, usize);
	if (r < 0)
		return pk__td_err(out, r, "cannot decompress section");
	*out = (struct td_cur){ buf, usize, 0, off, td->big, true };
	return 0;
}

/* The header of the section at OFF: id ID, size inside the file. */
static int check_section(struct pk_tracedat *td, uint64_t off, uint16_t id)
{
	struct td_cur c;
	uint16_t flags;
	uint64_t size;

	return section_header(td, off, id, &c, &flags, &size);
}

const struct td_blob *pk__td_tracedat_blob(struct pk_tracedat *td,
				       enum pk_tracedat_item item)
{
	static const int lazy[] = { [PK_TD_KALLSYMS] = 1, [PK_TD_PRINTK] = 2,
				    [PK_TD_CMDLINES] = 3 };
	const struct td_blob *b;

	switch (item) {
	case PK_TD_HEADER_PAGE: return &td->hdr_page;
	case PK_TD_HEADER_EVENT: return &td->hdr_event;
	case PK_TD_KALLSYMS: b = &td->kallsyms; break;
	case PK_TD_PRINTK: b = &td->printk; break;
	case PK_TD_CMDLINES: b = &td->cmdlines; break;
	case PK_TD_UNAME: return &td->uname;
	case PK_TD_TRACE_CLOCK: return &td->clock_opt;
	case PK_TD_VERSION: return &td->version_str;
	case PK_TD_LATENCY_TEXT: return &td->bufs[0].text;
	case PK_TD_TGIDS: return &td->tgids;
	default: return NULL;
	}
	int k = lazy[item] - 1;
	if (td->lazy_off[k] && !td->lazy_done[k]) {
		struct td_cur s7;
		int id = TD_OPT_KALLSYMS + k;
		td->lazy_done[k] = true;
		if (!open_section(td, td->lazy_off[k], (uint16_t)id, &s7, NULL))
			(void)(id == TD_OPT_CMDLINES
			       ? rd_blob64(&s7, (struct td_blob *)b, "cmdlines")
			       : rd_blob32(&s7, (struct td_blob *)b,
					   id == TD_OPT_KALLSYMS ? "kallsyms"
								 : "printk"));
	}
	return b;
}

static int rd_buffer_opt(struct pk_tracedat *td, struct td_cur *c, bool text)
{
	struct td_buffer *b = pk__realloc(td->bufs,
					 (td->nr_bufs + 1) * sizeof(*b));
	const char *name, *clock = "";
	uint64_t off;
	int r;

	if (!b)
		return -ENOMEM;
	td->bufs = b;
	b = &b[td->nr_bufs];
	memset(b, 0, sizeof(*b));
	if ((r = rd_u64(c, &off, "buffer offset")) ||
	    (r = rd_str(c, &name, "buffer name")))
		return r;
	if (td->version >= 7 && (r = rd_str(c, &clock, "buffer clock")))
		return r;
	b->name = pk__strdup(name);
	b->clock = pk__strdup(clock);
	td->nr_bufs++;
	if (!b->name || !b->clock)
		return -ENOMEM;
	b->sec_off = off;
	b->page_size = td->page_size;
	if (text) {
		struct td_cur s;
		b->latency = true;
		if ((r = open_section(td, off, TD_OPT_BUFFER_TEXT, &s, NULL)))
			return r;
		b->text = (struct td_blob){ (const char *)s.p, s.len };
		return 0;
	}
	if (td->version < 7)
		return 0;     /* v6: the CPU table is at OFF (see v6 code) */
	uint32_t ps, n;
	if ((r = rd_u32(c, &ps, "buffer page size")) ||
	    (r = rd_u32(c, &n, "buffer cpu count")))
		return r;
	if (ps < 64 || ps > (1u << 24) || n > 4096)
		return pk__td_err(c, PK_ERR_FORMAT, "bad buffer page size or cpus");
	b->page_size = ps;
	b->cpus = pk__calloc(n ? n : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	b->nr_cpus = (int)n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id;
		struct td_cpu *cp = &b->cpus[i];
		if ((r = rd_u32(c, &id, "cpu id")) ||
		    (r = rd_u64(c, &cp->off, "cpu data offset")) ||
		    (r = rd_u64(c, &cp->size, "cpu data size")))
			return r;
		cp->cpu = (int)id;
		if (cp->off > td->size || cp->size > td->size - cp->off) {
			c->pos -= 16;
			return pk__td_err(c, PK_ERR_TRUNC, "cpu data past the end");
		}
	}
	uint16_t flags = 0;
	struct td_cur s;
	if ((r = open_section(td, off, TD_OPT_BUFFER, &s, &flags)))
		return r;
	b->compressed = flags & 1;
	return 0;
}

static void set_opt_blob(struct td_blob *b, struct td_cur *c, uint32_t size)
{
	b->p = (const char *)c->p + c->pos;
	b->len = size;
	while (b->len && !b->p[b->len - 1])
		b->len--;
}

/* One option; SIZE bytes at C. May set *NEXT (DONE). */
static int rd_option(struct pk_tracedat *td, uint16_t id, struct td_cur *c,
		     uint32_t size, uint64_t *next, uint64_t sect[32])
{
	struct td_cur o = { c->p + c->pos, size, 0, c->base + c->pos, td->big,
			    c->decomp };
	char tmp[64];
	uint32_t v32;
	int r = 0;

	switch (id) {
	case TD_OPT_DONE:
		if (size >= 8)
			r = rd_u64(&o, next, "next options");
		break;
	case TD_OPT_DATE:
	case TD_OPT_OFFSET:
		snprintf(tmp, sizeof(tmp), "%.*s", (int)PK_MIN(size, 63),
			 (const char *)o.p);
		/* unsigned: damaged values wrap instead of overflowing */
		uint64_t v = (uint64_t)strtoll(tmp, NULL, 0);
		long long *at = id == TD_OPT_DATE ? &td->opt_date :
						    &td->opt_offset;

		*at = (long long)((uint64_t)*at +
				  (id == TD_OPT_DATE ? v * 1000 : v));
		td->ts_offset = (long long)((uint64_t)td->opt_offset +
					    (uint64_t)td->opt_date);
		break;
	case TD_OPT_BUFFER:
	case TD_OPT_BUFFER_TEXT:
		r = rd_buffer_opt(td, &o, id == TD_OPT_BUFFER_TEXT);
		break;
	case TD_OPT_TRACECLOCK:
		set_opt_blob(&td->clock_opt, &o, size);
		break;
	case TD_OPT_CPUSTAT:
		if (td->nr_cpustat < (int)PK_ARRAY_SIZE(td->cpustat))
			set_opt_blob(&td->cpustat[td->nr_cpustat++], &o, size);
		break;
	case TD_OPT_UNAME:
		set_opt_blob(&td->uname, &o, size);
		break;
	case TD_OPT_VERSION:
		set_opt_blob(&td->version_str, &o, size);
		break;
	case TD_OPT_PK_TGIDS:
		set_opt_blob(&td->tgids, &o, size);
		break;
	case TD_OPT_CPUCOUNT:
		if (size >= 4 && !rd_u32(&o, &v32, "cpu count"))
			td->cpus = (int)PK_MIN(v32, 65536u);
		break;
	case TD_OPT_TSC2NSEC:
		if (size >= 16) {
			rd_u32(&o, &td->tsc_mult, "tsc mult");
			rd_u32(&o, &td->tsc_shift, "tsc shift");
			rd_u64(&o, &td->tsc_offset, "tsc offset");
			td->has_tsc2nsec = td->tsc_mult != 0 &&
					   td->tsc_shift < 64;
		}
		break;
	case TD_OPT_HEADER_INFO: case TD_OPT_FTRACE_EVENTS:
	case TD_OPT_EVENT_FORMATS: case TD_OPT_KALLSYMS:
	case TD_OPT_PRINTK: case TD_OPT_CMDLINES:
		if (size >= 8)
			r = rd_u64(&o, &sect[id], "section offset");
		break;
	default:
		break;
	}
	c->pos += size;
	return r;
}

static int rd_options(struct pk_tracedat *td, struct td_cur *c,
		      uint64_t *next, uint64_t sect[32])
{
	while (c->pos < c->len) {
		uint16_t id;
		uint32_t size;
		int r;
		if ((r = rd_u16(c, &id, "option id")))
			return r;
		if (td->version < 7 && id == TD_OPT_DONE)
			return 0;
		if ((r = rd_u32(c, &size, "option size")))
			return r;
		if (size > c->len - c->pos)
			return pk__td_err(c, PK_ERR_TRUNC, "option past the end");
		if ((r = rd_option(td, id, c, size, next, sect)))
			return r;
		if (id == TD_OPT_DONE)
			return 0;
	}
	return td->version < 7 ? pk__td_err(c, PK_ERR_TRUNC, "options not ended")
			       : 0;
}

static int rd_v7(struct pk_tracedat *td, struct td_cur *c)
{
	uint64_t off, sect[32] = { 0 };
	const char *s;
	int r, guard = 0;

	if ((r = rd_str(c, &s, "compression name")))
		return r;
	snprintf(td->comp, sizeof(td->comp), "%s", s);
	if ((r = rd_str(c, &s, "compression version")))
		return r;
	snprintf(td->comp_ver, sizeof(td->comp_ver), "%s", s);
	if (strcmp(td->comp, "none") && strcmp(td->comp, "zstd") &&
	    strcmp(td->comp, "zlib"))
		return pk__td_err(c, PK_ERR_UNSUPP, "unknown compression");
	if ((r = rd_u64(c, &off, "first options offset")))
		return r;
	while (off) {
		struct td_cur o;
		uint64_t next = 0;
		if (++guard > 1000)
			return pk__td_err(c, PK_ERR_FORMAT, "options chain loops");
		if ((r = open_section(td, off, 0, &o, NULL)) ||
		    (r = rd_options(td, &o, &next, sect)))
			return r;
		off = next;
	}
	static const struct {
		int id;
		const char *what;
	} order[] = {
		{ TD_OPT_HEADER_INFO, "header info" },
		{ TD_OPT_FTRACE_EVENTS, "ftrace formats" },
		{ TD_OPT_EVENT_FORMATS, "event formats" },
		{ TD_OPT_KALLSYMS, "kallsyms" },
		{ TD_OPT_PRINTK, "printk formats" },
		{ TD_OPT_CMDLINES, "cmdlines" },
	};
	for (size_t i = 0; i < PK_ARRAY_SIZE(order); i++) {
		struct td_cur s7;
		int id = order[i].id;
		if (!sect[id])
			continue;
		if (id >= TD_OPT_KALLSYMS && id <= TD_OPT_CMDLINES) {
			/* read on first use (pk__td_tracedat_blob) */
			if ((r = check_section(td, sect[id], (uint16_t)id)))
				return r;
			td->lazy_off[id - TD_OPT_KALLSYMS] = sect[id];
			continue;
		}
		if ((r = open_section(td, sect[id], (uint16_t)id, &s7, NULL)))
			return r;
		switch (id) {
		case TD_OPT_HEADER_INFO: r = rd_header_info(td, &s7); break;
		case TD_OPT_FTRACE_EVENTS: r = rd_ftrace_fmts(td, &s7); break;
		case TD_OPT_EVENT_FORMATS: r = rd_event_fmts(td, &s7); break;
		case TD_OPT_KALLSYMS: r = rd_blob32(&s7, &td->kallsyms, "kallsyms"); break;
		case TD_OPT_PRINTK: r = rd_blob32(&s7, &td->printk, "printk"); break;
		case TD_OPT_CMDLINES: r = rd_blob64(&s7, &td->cmdlines, "cmdlines"); break;
		}
		if (r)
			return r;
	}
	return 0;
}

/* A top buffer without CPU data: buffers[0] of a v6 file (BUFFER options
 * add the instances), and the only one of a partial file. */
static int add_empty_top(struct pk_tracedat *td)
{
	td->bufs = pk__zalloc(sizeof(*td->bufs));
	if (!td->bufs)
		return -ENOMEM;
	td->nr_bufs = 1;
	td->bufs[0].name = pk__strdup("");
	td->bufs[0].clock = pk__strdup("");
	td->bufs[0].page_size = td->page_size;
	td->bufs[0].cpus = pk__calloc(1, sizeof(*td->bufs[0].cpus));
	if (!td->bufs[0].name || !td->bufs[0].clock || !td->bufs[0].cpus)
		return -ENOMEM;
	return 0;
}

/* v6: CPU table ("flyrecord\0" optional) of N cpus at C into B. */
static int rd_v6_cpus(struct pk_tracedat *td, struct td_cur *c,
		      struct td_buffer *b, int n)
{
	int r;

	if (c->len - c->pos >= 10 && !memcmp(c->p + c->pos, "flyrecord", 10))
		c->pos += 10;
	pk__free(b->cpus);
	b->cpus = pk__calloc(n ? n : 1, sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	b->nr_cpus = n;
	for (int i = 0; i < n; i++) {
		struct td_cpu *cp = &b->cpus[i];
		cp->cpu = i;
		if ((r = rd_u64(c, &cp->off, "cpu data offset")) ||
		    (r = rd_u64(c, &cp->size, "cpu data size")))
			return r;
		if (cp->off > td->size || cp->size > td->size - cp->off) {
			c->pos -= 16;
			return pk__td_err(c, PK_ERR_TRUNC, "cpu data past the end");
		}
	}
	return 0;
}

static int rd_v6(struct pk_tracedat *td, struct td_cur *c)
{
	uint32_t cpus;
	int r;

	snprintf(td->comp, sizeof(td->comp), "none");
	if ((r = rd_header_info(td, c)) || (r = rd_ftrace_fmts(td, c)) ||
	    (r = rd_event_fmts(td, c)) ||
	    (r = rd_blob32(c, &td->kallsyms, "kallsyms")) ||
	    (r = rd_blob32(c, &td->printk, "printk formats")) ||
	    (r = rd_blob64(c, &td->cmdlines, "cmdlines")))
		return r;
	if (c->pos == c->len)   /* a partial file (trace-cmd restore -c) */
		return 0;
	if ((r = rd_u32(c, &cpus, "cpu count")))
		return r;
	if (cpus > 4096)
		return pk__td_err(c, PK_ERR_FORMAT, "too many cpus");
	td->cpus = (int)cpus;
	/* the top buffer is buffers[0]; BUFFER options append instances */
	if ((r = add_empty_top(td)))
		return r;
	for (;;) {
		if ((r = need(c, 10, "data type tag")))
			return r;
		const char *tag = (const char *)c->p + c->pos;
		c->pos += 10;
		if (!memcmp(tag, "options  ", 10)) {
			uint64_t next, sect[32];
			if ((r = rd_options(td, c, &next, sect)))
				return r;
			continue;
		}
		if (!memcmp(tag, "latency  ", 10)) {
			td->bufs[0].latency = true;
			td->bufs[0].text = (struct td_blob){
				(const char *)c->p + c->pos, c->len - c->pos };
			return 0;
		}
		if (!memcmp(tag, "flyrecord", 10))
			break;
		c->pos -= 10;
		return pk__td_err(c, PK_ERR_FORMAT, "unknown data type tag");
	}
	if ((r = rd_v6_cpus(td, c, &td->bufs[0], (int)cpus)))
		return r;
	/* with a TRACECLOCK option the clock's text (u64 size, the
	 * trace_clock file) follows the table, as trace-cmd reads it */
	if (td->clock_opt.p && c->len - c->pos >= 8) {
		uint64_t n = pk_ld64(c->p + c->pos, td->big);
		if (n && n <= c->len - c->pos - 8) {
			c->pos += 8;
			set_opt_blob(&td->clock_opt, c, (uint32_t)n);
		}
	}
	for (int i = 1; i < td->nr_bufs; i++) {
		struct td_cur bc = { td->map, td->size, 0, 0, td->big, false };
		if (td->bufs[i].sec_off >= td->size)
			return pk__td_err(c, PK_ERR_FORMAT, "buffer offset past end");
		bc.pos = (size_t)td->bufs[i].sec_off;
		if ((r = rd_v6_cpus(td, &bc, &td->bufs[i], (int)cpus)))
			return r;
	}
	return 0;
}

static int parse(struct pk_tracedat *td)
{
	struct td_cur c = { td->map, td->size, 0, 0, false, false };
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
					   'c', 'i', 'n', 'g' };
	const char *ver;
	int r;

	if ((r = need(&c, 10, "magic")))
		return r;
	if (memcmp(c.p, magic, 10))
		return pk__td_err(&c, PK_ERR_FORMAT, "not a trace-cmd file (magic)");
	c.pos = 10;
	if ((r = rd_str(&c, &ver, "version")))
		return r;
	td->version = atoi(ver);
	if (td->version < 6 || td->version > 7)
		return pk__td_err(&c, PK_ERR_UNSUPP, "unsupported file version");
	if ((r = need(&c, 6, "endian, long size, page size")))
		return r;
	td->big = c.p[c.pos] != 0;
	td->long_size = c.p[c.pos + 1];
	c.big = td->big;
	c.pos += 2;
	rd_u32(&c, &td->page_size, "page size");
	if ((td->long_size != 4 && td->long_size != 8) ||
	    td->page_size < 256 || td->page_size > (1u << 24) ||
	    (td->page_size & (td->page_size - 1)))
		return pk__td_err(&c, PK_ERR_FORMAT, "bad long size or page size");
	pk__rb_layout_default(&td->layout, td->long_size, td->big);
	r = td->version >= 7 ? rd_v7(td, &c) : rd_v6(td, &c);
	if (r)
		return r;
	/* no buffer: metadata only, as trace-cmd restore -c writes it */
	if (!td->nr_bufs && (r = add_empty_top(td)))
		return r;
	for (int i = 1; i < td->nr_bufs; i++) {
		if (td->bufs[i].name[0])
			continue;
		struct td_buffer top = td->bufs[i];   /* top buffer first */
		memmove(&td->bufs[1], &td->bufs[0], i * sizeof(top));
		td->bufs[0] = top;
		break;
	}
	pk__td_set_usecs(td);
	return 0;
}

/* Whether B's times show as seconds and microseconds, as trace-cmd
 * decides it: yes unless the trace clock is read (a v6 file's is not
 * under --ts2secs) and counts raw (--raw-ts) or is a counter without
 * the file's TSC2NSEC conversion. */
static bool buf_in_usecs(const struct pk_tracedat *td,
			 const struct td_buffer *b)
{
	char tmp[64];
	const char *clk = pk__td_clock_of(td, b, tmp, sizeof(tmp));

	if ((td->version < 7 && td->ts2secs) || !td->clock_opt.p || !*clk)
		return true;
	if (td->raw_ts)
		return false;
	return td->has_tsc2nsec || pk__td_clock_in_usecs(clk);
}

void pk__td_set_usecs(struct pk_tracedat *td)
{
	for (int i = 0; i < td->nr_bufs; i++)
		td->bufs[i].in_usecs = buf_in_usecs(td, &td->bufs[i]);
}

const char *pk__td_clock_of(const struct pk_tracedat *td,
			    const struct td_buffer *b, char *tmp, size_t n)
{
	const char *o, *e;

	if (*b->clock || !td->clock_opt.p || !n)
		return b->clock;
	o = memchr(td->clock_opt.p, '[', td->clock_opt.len);
	e = o ? memchr(o, ']', td->clock_opt.len -
		       (size_t)(o - td->clock_opt.p)) : NULL;
	*tmp = 0;
	if (e && (size_t)(e - o - 1) < n)
		snprintf(tmp, n, "%.*s", (int)(e - o - 1), o + 1);
	return tmp;
}

bool pk__td_clock_in_usecs(const char *clock)
{
	/* trace-cmd 3.1's list (extract_trace_clock): "boot" is not in
	 * it (raw nanoseconds), "tai" is */
	static const char *const us[] = { "local", "global", "uptime",
					   "perf", "tai", "tsc2nsec" };
	for (size_t i = 0; i < PK_ARRAY_SIZE(us); i++)
		if (!strcmp(clock, us[i]))
			return true;
	return !strncmp(clock, "mono", 4);
}

static int td_open_mem(const void *data, size_t len,
			 struct pk_tracedat **out)
{
	struct pk_tracedat *td = pk__zalloc(sizeof(*td));
	int r;

	*out = NULL;
	if (!td)
		return -ENOMEM;
	td->map = data;
	td->size = len;
	snprintf(td->name, sizeof(td->name), "trace.dat");
	r = parse(td);
	if (r) {
		pk_tracedat_free(td);
		return r;
	}
	*out = td;
	return 0;
}

struct pk_tracedat *pk_tracedat_open_mem(const void *data, size_t len)
{
	struct pk_tracedat *obj = NULL;
	int e = td_open_mem(data, len, &obj);

	return pk__ptr_or_errno(e, obj);
}

static int td_open_path(const char *path, struct pk_tracedat **out)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	void *m;

	*out = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (st.st_size == 0) {
		close(fd);
		pk_warn("trace.dat '%s': empty file", path);
		return PK_ERR_TRUNC;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	r = -errno;
	close(fd);
	if (m == MAP_FAILED)
		return r;
	r = td_open_mem(m, (size_t)st.st_size, out);
	if (r) {
		munmap(m, (size_t)st.st_size);
		return r;
	}
	(*out)->mapped = true;
	const char *b = strrchr(path, '/');
	snprintf((*out)->name, sizeof((*out)->name), "%s", b ? b + 1 : path);
	return 0;
}

struct pk_tracedat *pk_tracedat_open(const char *path)
{
	struct pk_tracedat *obj = NULL;
	int e = td_open_path(path, &obj);

	return pk__ptr_or_errno(e, obj);
}

void pk_tracedat_free(struct pk_tracedat *td)
{
	if (!td)
		return;
	pk__td_prefetch_stop(td);
	for (int i = 0; i < td->nr_bufs; i++) {
		struct td_buffer *b = &td->bufs[i];
		for (int k = 0; b->cpus && k < b->nr_cpus; k++) {
			pk__bigbuf_free(&b->cpus[k].mem);
			pk__free(b->cpus[k].chunks);
			pk__free(b->cpus[k].cdone);
		}
		pk__free(b->cpus);
		pk__free(b->name);
		pk__free(b->clock);
	}
	pk__free(td->bufs);
	for (int i = 0; i < td->nr_owned; i++)
		pk__free(td->owned[i]);
	pk__free(td->owned);
	for (int i = 0; i < td->nr_bigs; i++)
		pk__bigbuf_free(&td->bigs[i]);
	pk__free(td->fmts);
	pk__free(td->filter);
	pk__td_decompress_free(td->zctx);
	if (td->mapped)
		munmap((void *)td->map, td->size);
	pk__free(td);
}

int pk_tracedat_version(const struct pk_tracedat *td) { return td->version; }

int pk_tracedat_page_size(const struct pk_tracedat *td)
{
	return (int)td->page_size;
}

int pk_tracedat_long_size(const struct pk_tracedat *td)
{
	return td->long_size;
}

int pk_tracedat_cpus(const struct pk_tracedat *td)
{
	if (td->version < 7 || td->bufs[0].latency || td->cpus > 0)
		return td->cpus;
	return td->bufs[0].nr_cpus;   /* no CPUCOUNT option */
}

int pk_tracedat_nr_buffers(const struct pk_tracedat *td)
{
	return td->nr_bufs;
}

const char *pk_tracedat_buffer_name(const struct pk_tracedat *td, int idx)
{
	return idx >= 0 && idx < td->nr_bufs ? td->bufs[idx].name : NULL;
}

const char *pk_tracedat_compression(const struct pk_tracedat *td)
{
	return td->comp;
}

const char *pk_tracedat_item(const struct pk_tracedat *td,
			     enum pk_tracedat_item item, size_t *len)
{
	/* lazily read sections are loaded here: a cache, not a change */
	const struct td_blob *b = pk__td_tracedat_blob((struct pk_tracedat *)td,
						   item);
	if (!b)
		return NULL;
	if (len)
		*len = b->len;
	return b->p;
}

int pk_tracedat_nr_formats(const struct pk_tracedat *td)
{
	return td->nr_fmts;
}

const char *pk_tracedat_format(const struct pk_tracedat *td, int idx,
			       const char **system, size_t *len)
{
	if (idx < 0 || idx >= td->nr_fmts)
		return NULL;
	if (system)
		*system = td->fmts[idx].system;
	if (len)
		*len = td->fmts[idx].text.len;
	return td->fmts[idx].text.p;
}
