/* SPDX-License-Identifier: MIT */
/*
 * perf's tracing data into a libtraceevent handle. Layout (perf's
 * trace-event-read): magic "\x17\x08\x44tracing", version string, endian
 * byte, long size byte, u32 page size; "header_page" + u64 size + text,
 * "header_event" + u64 size + text; u32 count of ftrace formats (u64 size
 * + text each); u32 count of systems (name, u32 count, u64 size + text
 * each); u32 size + kallsyms (skipped, as perf does); u32 size + printk
 * formats; 0.6 only: u64 size + saved cmdlines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>
#include "base/base.h"
#include <perfkit/tracefmt.h>

struct pk_tracefmt {
	struct tep_handle *tep;
	struct trace_seq seq;
	struct tep_event *last;   /* one-entry lookup cache */
	char name[256];
};

struct rd {
	const unsigned char *p;
	size_t size, off;
	bool swap;
	const char *what;         /* section for messages */
};

static bool rd_need(struct rd *r, size_t n)
{
	if (r->size - r->off < n) {
		pk_warn("tracing data: %s at offset %zu runs past the end (%zu bytes)",
			r->what, r->off, r->size);
		return false;
	}
	return true;
}

static bool rd_u32(struct rd *r, uint32_t *v)
{
	if (!rd_need(r, 4))
		return false;
	memcpy(v, r->p + r->off, 4);
	if (r->swap)
		*v = __builtin_bswap32(*v);
	r->off += 4;
	return true;
}

static bool rd_u64(struct rd *r, uint64_t *v)
{
	if (!rd_need(r, 8))
		return false;
	memcpy(v, r->p + r->off, 8);
	if (r->swap)
		*v = __builtin_bswap64(*v);
	r->off += 8;
	return true;
}

static const char *rd_str(struct rd *r)
{
	const char *s = (const char *)r->p + r->off;
	const void *z = memchr(s, '\0', r->size - r->off);

	if (!z) {
		rd_need(r, r->size - r->off + 1);
		return NULL;
	}
	r->off += (size_t)((const char *)z - s) + 1;
	return s;
}

/* A block of SIZE bytes copied out NUL-terminated (libtraceevent's
 * parsers want writable strings). */
static char *rd_block(struct rd *r, uint64_t size)
{
	char *b;

	if (!rd_need(r, size) || !(b = pk_malloc(size + 1)))
		return NULL;
	memcpy(b, r->p + r->off, size);
	b[size] = '\0';
	r->off += size;
	return b;
}

static int rd_sized(struct rd *r, bool small, char **out, uint64_t *size)
{
	uint32_t s32;

	*out = NULL;
	if (small) {
		if (!rd_u32(r, &s32))
			return -EPROTO;
		*size = s32;
	} else if (!rd_u64(r, size)) {
		return -EPROTO;
	}
	*out = rd_block(r, *size);
	return *out ? 0 : -EPROTO;
}

static int parse_headers(struct pk_tracefmt *t, struct rd *r, int long_size)
{
	static const char *const names[] = { "header_page", "header_event" };

	for (int i = 0; i < 2; i++) {
		const char *n;
		char *buf;
		uint64_t size;

		r->what = names[i];
		n = rd_str(r);
		if (!n || strcmp(n, names[i])) {
			pk_warn("tracing data: no %s at offset %zu", names[i], r->off);
			return -EPROTO;
		}
		if (rd_sized(r, false, &buf, &size))
			return -EPROTO;
		if (i == 0)
			tep_parse_header_page(t->tep, buf, size, long_size);
		pk_free(buf);
	}
	return 0;
}

static int parse_formats(struct pk_tracefmt *t, struct rd *r, const char *sys)
{
	uint32_t count;

	if (!rd_u32(r, &count))
		return -EPROTO;
	for (uint32_t i = 0; i < count; i++) {
		char *buf;
		uint64_t size;

		if (rd_sized(r, false, &buf, &size))
			return -EPROTO;
		/* an event libtraceevent cannot parse stays unformatted */
		tep_parse_event(t->tep, buf, size, sys);
		pk_free(buf);
	}
	return 0;
}

static void parse_printk(struct pk_tracefmt *t, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (!colon)
			break;
		*colon = '\0';
		/* "addr : "fmt"": the format starts after ": " */
		tep_register_print_string(t->tep, colon[1] ? colon + 2 : colon + 1,
					  strtoull(line, NULL, 16));
	}
}

static void parse_cmdlines(struct pk_tracefmt *t, char *text)
{
	char *save = NULL, comm[17];
	int pid;

	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %16s", &pid, comm) == 2)
			tep_register_comm(t->tep, comm, pid);
}

static int parse(struct pk_tracefmt *t, struct rd *r)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
					       'c', 'i', 'n', 'g' };
	const char *version;
	uint32_t page_size, nsys;
	bool big, v06;
	int long_size, err;
	char *buf;
	uint64_t size;

	r->what = "magic";
	if (!rd_need(r, sizeof(magic) + 3) || memcmp(r->p, magic, sizeof(magic))) {
		pk_warn("tracing data: bad magic at offset 0");
		return -EPROTO;
	}
	r->off = sizeof(magic);
	version = rd_str(r);
	if (!version || !rd_need(r, 6))
		return -EPROTO;
	v06 = strcmp(version, "0.5") != 0;
	big = r->p[r->off++] != 0;
	long_size = r->p[r->off++];
	r->swap = big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	if (!rd_u32(r, &page_size))
		return -EPROTO;
	tep_set_file_bigendian(t->tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, long_size);
	tep_set_page_size(t->tep, (int)page_size);
	if ((err = parse_headers(t, r, long_size)))
		return err;
	r->what = "ftrace formats";
	if ((err = parse_formats(t, r, "ftrace")))
		return err;
	r->what = "event formats";
	if (!rd_u32(r, &nsys))
		return -EPROTO;
	for (uint32_t i = 0; i < nsys; i++) {
		const char *sys = rd_str(r);

		if (!sys || (err = parse_formats(t, r, sys)))
			return -EPROTO;
	}
	r->what = "kallsyms";
	if (rd_sized(r, true, &buf, &size))
		return -EPROTO;
	pk_free(buf);
	r->what = "printk formats";
	if (rd_sized(r, true, &buf, &size))
		return -EPROTO;
	parse_printk(t, buf);
	pk_free(buf);
	if (v06 && r->off < r->size) {
		r->what = "saved cmdlines";
		if (rd_sized(r, false, &buf, &size))
			return -EPROTO;
		parse_cmdlines(t, buf);
		pk_free(buf);
	}
	return 0;
}

struct pk_tracefmt *pk_tracefmt_new(const void *data, size_t size)
{
	struct pk_tracefmt *t = pk_zalloc(sizeof(*t));
	struct rd r = { data, size, 0, false, "" };
	int err;

	if (!t)
		return NULL;
	t->tep = tep_alloc();
	if (!t->tep) {
		pk_free(t);
		errno = ENOMEM;
		return NULL;
	}
	trace_seq_init(&t->seq);
	err = parse(t, &r);
	if (err) {
		pk_tracefmt_free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

void pk_tracefmt_free(struct pk_tracefmt *t)
{
	if (!t)
		return;
	trace_seq_destroy(&t->seq);
	tep_free(t->tep);
	pk_free(t);
}

static struct tep_event *find(struct pk_tracefmt *t, uint64_t id)
{
	if (t->last && (uint64_t)t->last->id == id)
		return t->last;
	if (id > 0x7fffffff)
		return NULL;
	t->last = tep_find_event(t->tep, (int)id);
	return t->last;
}

const char *pk_tracefmt_name(struct pk_tracefmt *t, uint64_t id)
{
	struct tep_event *e = find(t, id);

	if (!e)
		return NULL;
	snprintf(t->name, sizeof(t->name), "%s:%s", e->system, e->name);
	return t->name;
}

const char *pk_tracefmt_print(struct pk_tracefmt *t, uint64_t id, int cpu,
			      const void *raw, size_t size, size_t *len)
{
	struct tep_event *e = find(t, id);
	struct tep_record rec;

	if (!e)
		return NULL;
	memset(&rec, 0, sizeof(rec));
	rec.cpu = cpu;
	rec.size = (int)size;
	rec.data = (void *)raw;
	trace_seq_reset(&t->seq);
	tep_print_event(t->tep, &t->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&t->seq);
	*len = t->seq.len;
	return t->seq.buffer;
}
