/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint payloads from perf's tracing data. Layout (perf's
 * trace-event-read): magic "\x17\x08\x44tracing", version string, endian
 * byte, long size byte, u32 page size; "header_page" + u64 size + text,
 * "header_event" + u64 size + text; u32 count of ftrace formats (u64 size
 * + text each); u32 count of systems (name, u32 count, u64 size + text
 * each); u32 size + kallsyms (skipped, as perf does); u32 size + printk
 * formats; 0.6 only: u64 size + saved cmdlines.
 *
 * Each event's format is compiled on first use (fmt.h, libtraceevent's
 * style without plugins, as perf prints); the events the compiler leaves
 * alone and the records it cannot print exactly go to libtraceevent,
 * set up (tep.h) on the first such record.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>
#include "base/base.h"
#include "base/bytes.h"
#include <perfkit/tracefmt.h>
#include "tracefmt/fmt.h"
#include "tracefmt/events.h"
#include "tracefmt/tracefmt.h"
#include "tracedat/tracedat.h"

struct pk_tracefmt {
	char *data;               /* a copy of the tracing data */
	struct pk_tracedat *td;   /* or the trace.dat it reads (borrowed) */
	struct tf_tep_src src;    /* formats and texts, pointing into DATA */
	int fmt_cap;
	struct tf_events evs;     /* compiled (no plugins, as perf) */
	struct tf_env env;
	struct tf_out out;
	/* libtraceevent, set up on first need */
	struct tf_tep tt;
	bool tep_tried;
	/* kernel addresses named by the caller (pk_tracefmt_set_ksym) */
	pk_tracefmt_ksym_fn ksym;
	void *ksym_ctx;
	struct trace_seq seq;
	bool seq_init;
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

/* A block (u32 or u64 size, then the bytes): *OUT points at them. */
static int rd_sized(struct rd *r, bool small, const char **out,
		    uint64_t *size)
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
	if (!rd_need(r, *size))
		return -EPROTO;
	*out = (const char *)r->p + r->off;
	r->off += *size;
	return 0;
}

static int parse_headers(struct pk_tracefmt *t, struct rd *r)
{
	static const char *const names[] = { "header_page", "header_event" };

	for (int i = 0; i < 2; i++) {
		const char *n, *buf;
		uint64_t size;

		r->what = names[i];
		n = rd_str(r);
		if (!n || strcmp(n, names[i])) {
			pk_warn("tracing data: no %s at offset %zu", names[i], r->off);
			return -EPROTO;
		}
		if (rd_sized(r, false, &buf, &size))
			return -EPROTO;
		if (i == 0 && t) {
			t->src.hdr_page = buf;
			t->src.hdr_page_len = size;
		}
	}
	return 0;
}

static int add_format(struct pk_tracefmt *t, const char *text, size_t len,
		      const char *sys)
{
	struct tf_tep_src *s = &t->src;

	if (s->nr_fmts == t->fmt_cap) {
		int cap = t->fmt_cap ? t->fmt_cap * 2 : 64;
		struct tf_tep_fmt *n = pk__realloc((void *)s->fmts,
						  (size_t)cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->fmts = n;
		t->fmt_cap = cap;
	}
	((struct tf_tep_fmt *)s->fmts)[s->nr_fmts++] =
		(struct tf_tep_fmt){ text, len, sys };
	return 0;
}

static int parse_formats(struct pk_tracefmt *t, struct rd *r, const char *sys)
{
	uint32_t count;

	if (!rd_u32(r, &count))
		return -EPROTO;
	for (uint32_t i = 0; i < count; i++) {
		const char *buf;
		uint64_t size;
		int e;

		if (rd_sized(r, false, &buf, &size))
			return -EPROTO;
		if (t && (e = add_format(t, buf, size, sys)))
			return e;
	}
	return 0;
}

static int parse(struct pk_tracefmt *t, struct rd *r)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
					       'c', 'i', 'n', 'g' };
	const char *version, *buf;
	uint32_t page_size, nsys;
	bool big, v06;
	int long_size, err;
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
	if (t) {
		t->src.big = big;
		t->src.long_size = long_size;
		t->src.page_size = page_size;
	}
	if ((err = parse_headers(t, r)))
		return err;
	r->what = "ftrace formats";
	if ((err = parse_formats(t, r, "ftrace")))
		return err;
	r->what = "event formats";
	if (!rd_u32(r, &nsys))
		return -EPROTO;
	for (uint32_t i = 0; i < nsys; i++) {
		const char *sys = rd_str(r);

		if (!sys)
			return -EPROTO;
		if ((err = parse_formats(t, r, sys)))
			return err;
	}
	r->what = "kallsyms";
	if (rd_sized(r, true, &buf, &size))
		return -EPROTO;
	r->what = "printk formats";
	if (rd_sized(r, true, &buf, &size))
		return -EPROTO;
	if (t) {
		t->src.printk = buf;
		t->src.printk_len = size;
	}
	if (v06 && r->off < r->size) {
		r->what = "saved cmdlines";
		if (rd_sized(r, false, &buf, &size))
			return -EPROTO;
		if (t) {
			t->src.cmdlines = buf;
			t->src.cmdlines_len = size;
		}
	}
	return 0;
}

static int load_printk(struct tf_env *env)
{
	struct pk_tracefmt *t = env->priv;

	return t->src.printk ? pk__tf_printk_parse(env, t->src.printk,
					       t->src.printk_len) : 0;
}

struct pk_tracefmt *pk_tracefmt_new(const void *data, size_t size)
{
	struct pk_tracefmt *t = pk__zalloc(sizeof(*t));
	struct rd r = { NULL, size, 0, false, "" };
	int err;

	if (!t || !(t->data = pk__malloc(size ? size : 1))) {
		pk__free(t);
		errno = ENOMEM;
		return NULL;
	}
	memcpy(t->data, data, size);
	r.p = (const unsigned char *)t->data;
	t->src.who = "tracing data";
	t->src.perf_lines = true;
	err = parse(t, &r);
	if (!err)
		err = pk__tf_events_init(&t->evs, t->src.fmts, t->src.nr_fmts,
				     t->src.long_size, 0);
	if (err) {
		pk_tracefmt_free(t);
		errno = -err;
		return NULL;
	}
	t->env.big = t->src.big;
	t->env.long_size = t->src.long_size;
	t->env.priv = t;
	t->env.load_printk = load_printk;
	return t;
}

static int td_load_syms(struct tf_env *env)
{
	struct pk_tracefmt *t = env->priv;

	return t->src.kallsyms ? pk__tf_syms_parse(env, t->src.kallsyms,
					       t->src.kallsyms_len) : 0;
}

/* A trace.dat item's bytes into *P, *LEN (NULL, 0 when it has none). */
static void td_item(struct pk_tracedat *td, enum pk_tracedat_item item,
		    const char **p, size_t *len)
{
	const struct td_blob *b = pk__td_tracedat_blob(td, item);

	*p = b && b->len ? (const char *)b->p : NULL;
	*len = *p ? b->len : 0;
}

struct pk_tracefmt *pk_tracefmt_new_tracedat(struct pk_tracedat *td)
{
	struct pk_tracefmt *t = pk__zalloc(sizeof(*t));
	struct tf_tep_src *s;
	int err = 0;

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	s = &t->src;
	t->td = td;
	s->who = "trace.dat";
	s->big = td->big;
	s->long_size = td->long_size;
	s->page_size = td->page_size;
	s->nr_cpus = pk_tracedat_cpus(td);
	s->hdr_page = (const char *)td->hdr_page.p;
	s->hdr_page_len = td->hdr_page.len;
	s->untrusted = true;
	s->plugins = true;
	for (int i = 0; !err && i < td->nr_fmts; i++)
		err = add_format(t, (const char *)td->fmts[i].text.p,
				 td->fmts[i].text.len, td->fmts[i].system);
	td_item(td, PK_TD_KALLSYMS, &s->kallsyms, &s->kallsyms_len);
	td_item(td, PK_TD_PRINTK, &s->printk, &s->printk_len);
	td_item(td, PK_TD_CMDLINES, &s->cmdlines, &s->cmdlines_len);
	if (!err)
		err = pk__tf_events_init(&t->evs, s->fmts, s->nr_fmts,
				     s->long_size, TF_PLUGINS);
	if (err) {
		pk_tracefmt_free(t);
		errno = -err;
		return NULL;
	}
	t->env.big = s->big;
	t->env.long_size = s->long_size;
	t->env.priv = t;
	t->env.load_printk = load_printk;
	t->env.load_syms = td_load_syms;
	return t;
}

int pk__tracefmt_check(const void *data, size_t size)
{
	struct rd r = { data, size, 0, false, "" };

	return parse(NULL, &r);
}

void pk_tracefmt_free(struct pk_tracefmt *t)
{
	if (!t)
		return;
	pk__tf_events_fini(&t->evs);
	pk__tf_env_fini(&t->env);
	pk__tf_out_fini(&t->out);
	if (t->seq_init)
		trace_seq_destroy(&t->seq);
	pk__tf_tep_fini(&t->tt);
	pk__free((void *)t->src.fmts);
	pk__free(t->data);
	pk__free(t);
}

static bool find_sym(struct tf_env *env, uint64_t addr, struct pk_ksym *s)
{
	struct pk_tracefmt *t = env->priv;
	uint64_t start = 0;
	const char *name = t->ksym(t->ksym_ctx, addr, &start);

	if (!name)
		return false;
	*s = (struct pk_ksym){ .addr = start, .name = name,
			       .len = (uint32_t)strlen(name) };
	return true;
}

/* libtraceevent's resolver over the caller's: *ADDRP becomes the start */
static char *tep_resolver(void *priv, unsigned long long *addrp, char **modp)
{
	struct pk_tracefmt *t = priv;
	uint64_t start = 0;
	const char *name = t->ksym(t->ksym_ctx, *addrp, &start);

	*modp = NULL;
	if (name)
		*addrp = start;
	return (char *)name;
}

void pk_tracefmt_set_ksym(struct pk_tracefmt *t, pk_tracefmt_ksym_fn fn,
			  void *ctx)
{
	t->ksym = fn;
	t->ksym_ctx = ctx;
	t->env.find_sym = fn ? find_sym : NULL;
	if (t->tt.tep)
		tep_set_function_resolver(t->tt.tep, fn ? tep_resolver : NULL,
					  t);
}

/* libtraceevent's event ID, set up with every format on first use. */
static struct tep_event *tep_event(struct pk_tracefmt *t, uint64_t id)
{
	if (!t->tep_tried) {
		int e;

		t->tep_tried = true;
		trace_seq_init(&t->seq);
		t->seq_init = true;
		if ((e = pk__tf_tep_init(&t->tt, &t->src, NULL)) < 0) {
			pk_warn("tracing data: no libtraceevent (%s): some "
				"events are not formatted", pk_strerror(e));
			pk__tf_tep_fini(&t->tt);
		} else if (t->ksym) {
			tep_set_function_resolver(t->tt.tep, tep_resolver, t);
		}
	}
	if (!t->tt.tep || id > 0x7fffffff)
		return NULL;
	return tep_find_event(t->tt.tep, (int)id);
}

int pk_tracefmt_record_id(struct pk_tracefmt *t, const void *raw,
			  size_t size, uint64_t *id)
{
	if (size < 2)
		return -ERANGE;
	*id = pk_ld16(raw, t->env.big);
	return 0;
}

/* Field NAME of event ID, as the compiled format or libtraceevent
 * describes it, into *F; *LAST: no field lies after it. 0 or -ENOENT. */
static int find_field(struct pk_tracefmt *t, uint64_t id, const char *name,
		      struct tf_field *f, bool *last)
{
	int fi = pk__tf_events_find(&t->evs, id), i;
	const struct tf_event *ce = pk__tf_events_get(&t->evs, fi, id);
	struct tep_format_field *tf;
	struct tep_event *e;

	if (ce) {
		if ((i = pk__tf_find_field(ce, name)) < 0)
			return -ENOENT;
		*f = ce->fields[i];
		*last = true;
		for (int j = 0; j < ce->nr_fields; j++)
			if (ce->fields[j].off > f->off)
				*last = false;
		return 0;
	}
	if (fi < 0 || !(e = tep_event(t, id)) || !(tf = tep_find_field(e, name)))
		return -ENOENT;
	*f = (struct tf_field){
		.off = (uint32_t)tf->offset, .size = (uint32_t)tf->size,
		.flags = (uint8_t)(((tf->flags & TEP_FIELD_IS_SIGNED) ? TFF_SIGNED : 0) |
			 ((tf->flags & TEP_FIELD_IS_ARRAY) ? TFF_ARRAY : 0) |
			 ((tf->flags & TEP_FIELD_IS_DYNAMIC) ? TFF_DYN : 0) |
			 ((tf->flags & TEP_FIELD_IS_RELATIVE) ? TFF_REL : 0) |
			 ((tf->flags & TEP_FIELD_IS_STRING) ? TFF_CHAR : 0)),
	};
	*last = true;
	for (struct tep_format_field *g = e->format.fields; g; g = g->next)
		if ((uint32_t)g->offset > f->off)
			*last = false;
	return 0;
}

int pk_tracefmt_field_num(struct pk_tracefmt *t, uint64_t id,
			  const void *raw, size_t size, const char *name,
			  uint64_t *val)
{
	struct tf_field f;
	bool last;
	int e = find_field(t, id, name, &f, &last);
	uint64_t v;

	if (e)
		return e;
	if ((f.flags & (TFF_ARRAY | TFF_DYN)) ||
	    (f.size != 1 && f.size != 2 && f.size != 4 && f.size != 8))
		return -EINVAL;
	if ((uint64_t)f.off + f.size > size)
		return -ERANGE;
	v = pk__tf_field_u64(&t->env, &f, raw);
	if ((f.flags & TFF_SIGNED) && f.size < 8 &&
	    (v >> (f.size * 8 - 1)) & 1)
		v |= ~(uint64_t)0 << (f.size * 8);
	*val = v;
	return 0;
}

int pk_tracefmt_field_str(struct pk_tracefmt *t, uint64_t id,
			  const void *raw, size_t size, const char *name,
			  const char **str, size_t *len)
{
	const char *p = raw, *z;
	struct tf_field f;
	bool last;
	int e = find_field(t, id, name, &f, &last);
	uint64_t off, n;

	if (e)
		return e;
	if ((uint64_t)f.off + (f.flags & TFF_DYN ? 4 : f.size) > size)
		return -ERANGE;
	if (f.flags & TFF_DYN) {
		uint32_t loc = pk_ld32(p + f.off, t->env.big);

		off = loc & 0xffff;
		n = loc >> 16;
		if (f.flags & TFF_REL)
			off += (uint64_t)f.off + f.size;
	} else if (f.flags & TFF_ARRAY) {
		off = f.off;
		n = f.size;
	} else {
		return -EINVAL;
	}
	if (off > size || n > size - off)
		return -ERANGE;
	z = memchr(p + off, 0, (size_t)n);
	*str = p + off;
	*len = z ? (size_t)(z - (p + off)) : (size_t)n;
	return 0;
}

int pk_tracefmt_field_raw(struct pk_tracefmt *t, uint64_t id,
			  const void *raw, size_t size, const char *name,
			  const void **p, size_t *len)
{
	struct tf_field f;
	bool last;
	int e = find_field(t, id, name, &f, &last);
	uint64_t n;

	if (e)
		return e;
	if (f.off > size)
		return -ERANGE;
	n = last && (f.flags & TFF_ARRAY) ? size - f.off : f.size;
	if (n > size - f.off)
		return -ERANGE;
	*p = (const char *)raw + f.off;
	*len = (size_t)n;
	return 0;
}

const char *pk_tracefmt_ksym(struct pk_tracefmt *t, uint64_t addr,
			     uint64_t *start)
{
	const struct pk_ksym *s = pk__tf_sym_find(&t->env, addr);

	if (!s)
		return NULL;
	*start = s->addr;
	return pk__tf_sym_cstr(&t->env, s);
}

int pk_tracefmt_long_size(const struct pk_tracefmt *t)
{
	return t->env.long_size;
}

bool pk_tracefmt_big_endian(const struct pk_tracefmt *t)
{
	return t->env.big;
}

const char *pk_tracefmt_name(struct pk_tracefmt *t, uint64_t id)
{
	int fi = pk__tf_events_find(&t->evs, id);
	const struct tf_event *ce = pk__tf_events_get(&t->evs, fi, id);
	struct tep_event *e;

	if (ce) {
		snprintf(t->name, sizeof(t->name), "%s:%s", ce->system,
			 ce->name);
		return t->name;
	}
	if (fi < 0 || !(e = tep_event(t, id)))
		return NULL;
	snprintf(t->name, sizeof(t->name), "%s:%s", e->system, e->name);
	return t->name;
}

static const char *tep_print(struct pk_tracefmt *t, uint64_t id, int cpu,
			     const void *raw, size_t size, size_t *len)
{
	struct tep_event *e = tep_event(t, id);
	struct tep_record rec;

	if (!e)
		return NULL;
	memset(&rec, 0, sizeof(rec));
	rec.cpu = cpu;
	rec.size = (int)size;
	rec.data = (void *)raw;
	trace_seq_reset(&t->seq);
	tep_print_event(t->tt.tep, &t->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&t->seq);
	*len = t->seq.len;
	return t->seq.buffer;
}

/*
 * The compiled format a record is printed by: libtraceevent takes the
 * event from the record's own common_type (a group member's sample
 * carries its leader's record), not from the sample's event. NULL when
 * libtraceevent prints it.
 */
static const struct tf_event *record_event(struct pk_tracefmt *t,
					   const struct tf_event *ce,
					   const void *raw, size_t size)
{
	int f = ce ? pk__tf_find_field(ce, "common_type") : -1;
	const struct tf_field *tf;
	uint64_t type;

	if (f < 0)
		return NULL;
	tf = &ce->fields[f];
	if (tf->size > 8 || tf->off + tf->size > size)
		return NULL;
	type = pk__tf_field_u64(&t->env, tf, raw);
	if (type == (uint64_t)ce->id)
		return ce;
	return pk__tf_events_get(&t->evs, pk__tf_events_find(&t->evs, type), type);
}

const char *pk_tracefmt_print(struct pk_tracefmt *t, uint64_t id, int cpu,
			      const void *raw, size_t size, size_t *len)
{
	int fi = pk__tf_events_find(&t->evs, id);
	const struct tf_event *ce;

	if (fi < 0)
		return NULL;
	ce = record_event(t, pk__tf_events_get(&t->evs, fi, id), raw, size);
	if (ce && size <= UINT32_MAX) {
		t->out.len = 0;
		int r = pk__tf_print(ce, &t->env, raw, (uint32_t)size, &t->out);
		if (r == 0 && !tf_out_reserve(&t->out, 1)) {
			t->out.p[t->out.len] = '\0';
			*len = t->out.len;
			return t->out.p;
		}
	}
	return tep_print(t, id, cpu, raw, size, len);
}
