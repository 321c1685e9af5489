/* SPDX-License-Identifier: MIT */
/*
 * The libtraceevent side of `trace-cmd report`: payloads (and whole lines)
 * formatted by libtraceevent and its plugins, for the records the compiled
 * formatter leaves alone and for the reference engine (PK_REPORT_TEP).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <event-parse.h>
#include <trace-seq.h>
#include "base/bytes.h"
#include "ftrace/report.h"
#include "tracefmt/tep.h"

/*
 * A record is printed from a zeroed buffer with 128 KiB to spare after the
 * largest page: __data_loc/__rel_loc offsets and lengths are 16 bits each,
 * so whatever a damaged record says, libtraceevent's reads stay inside
 * memory we own.
 */
#define SCRATCH_SPARE (128u << 10)

/* A NUL-terminated copy of a blob (libtraceevent wants C strings). */
static char *cstr(const struct td_blob *b)
{
	char *s = pk_malloc(b->len + 1);
	if (s) {
		memcpy(s, b->p, b->len);
		s[b->len] = 0;
	}
	return s;
}

/* The formats through tep_guard_formats() before this process parses
 * them. */
static int check_formats(struct pk_tracedat *td, bool *bad)
{
	struct tep_fmt_ref *f = pk_calloc(td->nr_fmts ? td->nr_fmts : 1,
					  sizeof(*f));
	int e;

	if (!f)
		return -ENOMEM;
	for (int i = 0; i < td->nr_fmts; i++) {
		f[i].text = td->fmts[i].text.p;
		f[i].len = td->fmts[i].text.len;
		f[i].system = td->fmts[i].system;
	}
	e = tep_guard_formats("trace.dat", f, td->nr_fmts, td->long_size,
			      td->big, bad);
	pk_free(f);
	return e;
}

/* The "ID: N" of a format file, or -1. */
long td_format_id(const struct td_format *f)
{
	const char *p = f->text.p, *end = p + f->text.len;

	for (; p + 4 < end; p++) {
		if ((p == f->text.p || p[-1] == '\n') && !memcmp(p, "ID: ", 4)) {
			long v = 0;
			for (p += 4; p < end && *p >= '0' && *p <= '9'; p++)
				v = v * 10 + (*p - '0');
			return v;
		}
	}
	return -1;
}

/*
 * Only the formats of events present in the data are parsed (a file holds
 * a thousand formats and a few dozen are used): one quick pass over the
 * pages collects the event types. SKIP[i] is set for the others.
 */
static int mark_unused(struct pk_tracedat *td, bool *skip,
		       const struct pk_report_opts *o)
{
	uint8_t *seen = pk_zalloc(65536 / 8);
	struct pk_tracedat_event ev;
	int r;

	if (!seen)
		return -ENOMEM;
	r = pk_tracedat_rewind(td, o ? o->cpus : NULL, o ? o->nr_cpus : 0);
	while (!r && (r = pk_tracedat_next(td, &ev)) != 0) {
		if (r > 0 && ev.size >= 2) {
			uint16_t t = (uint16_t)pk_ld16(ev.data, td->big);
			seen[t / 8] |= (uint8_t)(1 << (t % 8));
		}
		r = 0;
	}
	for (int i = 0; i < td->nr_fmts; i++) {
		long id = td_format_id(&td->fmts[i]);
		skip[i] = id >= 0 && id < 65536 && !(seen[id / 8] & (1 << (id % 8)));
	}
	pk_free(seen);
	return 0;
}

/* libtraceevent asks the compiled formatter's symbol table */
static char *resolve(void *priv, unsigned long long *addr, char **mod)
{
	const struct pk_ksym *s = tf_sym_find(priv, *addr);

	*mod = NULL;
	if (!s)
		return NULL;
	*addr = s->addr;
	return (char *)tf_sym_cstr(priv, s);
}

/* Parses the formats not marked in SKIP (after the crash guard). */
static int parse_formats(struct rep_tep *t, struct pk_tracedat *td, bool *skip)
{
	int e = check_formats(td, skip);

	if (e < 0)
		return e;
	for (int i = 0; i < td->nr_fmts; i++) {
		const struct td_format *f = &td->fmts[i];
		if (skip[i] || t->parsed[i])
			continue;
		t->parsed[i] = true;
		if (tep_parse_event(t->tep, f->text.p, f->text.len, f->system))
			pk_debug("trace.dat: cannot parse format %d of '%s'",
				 i, f->system);
	}
	return 0;
}

int td_tep_init(struct rep_tep *t, struct pk_tracedat *td, bool full,
		struct tf_env *env, const struct pk_report_opts *o)
{
	char *s;
	int e;

	memset(t, 0, sizeof(*t));
	t->scratch_max = td->page_size;
	for (int i = 0; i < td->nr_bufs; i++)
		t->scratch_max = PK_MAX(t->scratch_max, td->bufs[i].page_size);
	t->scratch = pk_zalloc(t->scratch_max + SCRATCH_SPARE);
	t->parsed = pk_calloc((size_t)td->nr_fmts + 1, sizeof(bool));
	t->seq = pk_zalloc(sizeof(struct trace_seq));
	t->tep = tep_alloc();
	if (!t->scratch || !t->parsed || !t->seq || !t->tep)
		return -ENOMEM;
	trace_seq_init(t->seq);
	tep_set_file_bigendian(t->tep, td->big ? TEP_BIG_ENDIAN
					       : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, __BYTE_ORDER__ ==
				__ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
						     : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, td->long_size);
	tep_set_page_size(t->tep, (int)td->page_size);
	tep_set_cpus(t->tep, pk_tracedat_cpus(td));
	if (td->hdr_page.p && (s = cstr(&td->hdr_page))) {
		tep_parse_header_page(t->tep, s, td->hdr_page.len,
				      td->long_size);
		pk_free(s);
	}
	t->plugins = tep_load_plugins(t->tep);
	t->fg.long_size = td->long_size;
	td_fgraph_register(t->tep, &t->fg);
	if (full) {
		bool *skip = pk_calloc((size_t)td->nr_fmts + 1, sizeof(bool));
		e = skip ? mark_unused(td, skip, o) : -ENOMEM;
		if (!e)
			e = parse_formats(t, td, skip);
		pk_free(skip);
		if (e < 0)
			return e;
		t->ftrace_parsed = true;
		const struct td_blob *k = td_tracedat_blob(td, PK_TD_KALLSYMS);
		if (k && k->len && (s = cstr(k))) {
			tep_parse_kallsyms(t->tep, s);
			pk_free(s);
		}
	} else if (env) {
		tep_set_function_resolver(t->tep, resolve, env);
	}
	const struct td_blob *pr = td_tracedat_blob(td, PK_TD_PRINTK);
	if (pr && pr->len && (s = cstr(pr))) {
		tep_parse_printk_formats(t->tep, s);
		pk_free(s);
	}
	const struct td_blob *cl = td_tracedat_blob(td, PK_TD_CMDLINES);
	if (cl && cl->len && (s = cstr(cl))) {
		tep_parse_saved_cmdlines(t->tep, s);
		pk_free(s);
	}
	return 0;
}

int td_tep_need(struct rep_tep *t, struct pk_tracedat *td, int idx)
{
	bool *skip;
	int e;

	if (idx < 0 || idx >= td->nr_fmts || t->parsed[idx])
		return 0;
	skip = pk_malloc(((size_t)td->nr_fmts + 1) * sizeof(bool));
	if (!skip)
		return -ENOMEM;
	for (int i = 0; i < td->nr_fmts; i++)
		skip[i] = i != idx && (t->ftrace_parsed ||
				       i >= td->nr_ftrace_fmts);
	t->ftrace_parsed = true;   /* funcgraph needs its exit format */
	e = parse_formats(t, td, skip);
	t->parsed[idx] = true;     /* tried (a damaged one stays out) */
	pk_free(skip);
	return e;
}

static void tep_rec(struct rep_tep *t, const struct pk_tracedat_event *ev,
		    struct tep_record *rec)
{
	uint32_t size = (uint32_t)PK_MIN(ev->size, t->scratch_max);

	memcpy(t->scratch, ev->data, size);
	*rec = (struct tep_record){
		.ts = ev->ts, .cpu = ev->cpu, .data = t->scratch,
		.size = (int)size, .offset = ev->offset,
		.missed_events = ev->missed, .record_size = (int)size,
	};
}

static int append_seq(struct rep_tep *t, struct tf_out *o)
{
	struct trace_seq *s = t->seq;

	trace_seq_terminate(s);
	unsigned len = s->len;
	if (len && s->buffer[len - 1] == '\n')
		len--;
	if (tf_out_reserve(o, len))
		return -ENOMEM;
	memcpy(o->p + o->len, s->buffer, len);
	o->len += len;
	return 0;
}

int td_tep_payload(struct rep_tep *t, const struct pk_tracedat_event *ev,
		   struct tf_out *o, const char **name)
{
	struct tep_record rec;

	tep_rec(t, ev, &rec);
	struct tep_event *e = tep_find_event_by_record(t->tep, &rec);
	*name = e ? e->name : "(NULL)";
	trace_seq_reset(t->seq);
	if (e)
		tep_print_event(t->tep, t->seq, &rec, "%s", TEP_PRINT_INFO);
	int r = append_seq(t, o);
	memset(t->scratch, 0, rec.size);
	return r;
}

int td_tep_line(struct rep_tep *t, struct pk_tracedat *td,
		const struct pk_tracedat_event *ev, struct tf_out *o)
{
	struct tep_record rec;
	struct trace_seq *s = t->seq;
	struct td_buffer *b = &td->bufs[ev->buffer];

	tep_rec(t, ev, &rec);
	struct tep_event *e = tep_find_event_by_record(t->tep, &rec);
	const char *name = e ? e->name : "(NULL)";
	size_t nl = strlen(name);
	int pid = tep_data_pid(t->tep, &rec);
	const char *comm = tep_data_comm_from_pid(t->tep, pid);
	unsigned long long ts = rec.ts;

	trace_seq_reset(s);
	trace_seq_printf(s, "%16s-%-5d [%03d]", comm, pid, rec.cpu);
	if (!b->in_usecs) {
		trace_seq_printf(s, "%12llu:", ts);
	} else {
		/* trace-cmd 3.1 prints seconds.microseconds (rounded) */
		ts = (ts + 500) / 1000;
		trace_seq_printf(s, " %5llu.%06llu:", ts / 1000000,
				 ts % 1000000);
	}
	trace_seq_printf(s, " %s: %.*s", name, nl < 20 ? (int)(20 - nl) : 0,
			 "                    ");
	if (e)
		tep_print_event(t->tep, s, &rec, "%s", TEP_PRINT_INFO);
	int r = append_seq(t, o);
	memset(t->scratch, 0, rec.size);
	return r;
}

void td_tep_fini(struct rep_tep *t)
{
	if (t->tep) {
		tep_unload_plugins(t->plugins, t->tep);
		tep_free(t->tep);
	}
	if (t->seq)
		trace_seq_destroy(t->seq);
	pk_free(t->seq);
	pk_free(t->scratch);
	pk_free(t->parsed);
	memset(t, 0, sizeof(*t));
}
