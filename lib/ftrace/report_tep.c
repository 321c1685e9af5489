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

/* The "ID: N" of a format file, or -1. */
long pk__td_format_id(const struct td_format *f)
{
	return pk__tf_format_id(f->text.p, f->text.len);
}

/*
 * Only the formats of events present in the data are parsed (a file holds
 * a thousand formats and a few dozen are used): one quick pass over the
 * pages collects the event types. SKIP[i] is set for the others.
 */
static int mark_unused(struct pk_tracedat *td, bool *skip,
		       const struct pk_report_opts *o)
{
	uint8_t *seen = pk__zalloc(65536 / 8);
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
		long id = pk__td_format_id(&td->fmts[i]);
		skip[i] = id >= 0 && id < 65536 && !(seen[id / 8] & (1 << (id % 8)));
	}
	pk__free(seen);
	return 0;
}

/* libtraceevent asks the compiled formatter's symbol table */
static char *resolve(void *priv, unsigned long long *addr, char **mod)
{
	const struct pk_ksym *s = pk__tf_sym_find(priv, *addr);

	*mod = NULL;
	if (!s)
		return NULL;
	*addr = s->addr;
	return (char *)pk__tf_sym_cstr(priv, s);
}

/* The formats, header and texts of TD; FULL: kallsyms too. */
static int source(struct pk_tracedat *td, bool full, struct tf_tep_src *src)
{
	struct tf_tep_fmt *f = pk__calloc(td->nr_fmts ? td->nr_fmts : 1,
					 sizeof(*f));
	/* (not FULL: the prefetch thread may be reading kallsyms now) */
	const struct td_blob *k = full ? pk__td_tracedat_blob(td,
							      PK_TD_KALLSYMS)
				       : NULL;
	const struct td_blob *pr = pk__td_tracedat_blob(td, PK_TD_PRINTK);
	const struct td_blob *cl = pk__td_tracedat_blob(td, PK_TD_CMDLINES);

	if (!f)
		return -ENOMEM;
	for (int i = 0; i < td->nr_fmts; i++)
		f[i] = (struct tf_tep_fmt){ td->fmts[i].text.p,
					    td->fmts[i].text.len,
					    td->fmts[i].system };
	*src = (struct tf_tep_src){
		.who = "trace.dat", .big = td->big,
		.long_size = td->long_size, .page_size = td->page_size,
		.nr_cpus = pk_tracedat_cpus(td), .hdr_page = td->hdr_page.p,
		.hdr_page_len = td->hdr_page.len, .fmts = f,
		.nr_fmts = td->nr_fmts, .untrusted = true, .plugins = true,
		.kallsyms = full && k ? k->p : NULL,
		.kallsyms_len = full && k ? k->len : 0,
		.printk = pr ? pr->p : NULL, .printk_len = pr ? pr->len : 0,
		.cmdlines = cl ? cl->p : NULL,
		.cmdlines_len = cl ? cl->len : 0,
	};
	return 0;
}

int pk__td_tep_init(struct rep_tep *t, struct pk_tracedat *td, bool full,
		struct tf_env *env, const struct pk_report_opts *o)
{
	struct tf_tep_src src;
	bool *skip;
	int e;

	memset(t, 0, sizeof(*t));
	t->scratch_max = td->page_size;
	for (int i = 0; i < td->nr_bufs; i++)
		t->scratch_max = PK_MAX(t->scratch_max, td->bufs[i].page_size);
	t->scratch = pk__zalloc(t->scratch_max + SCRATCH_SPARE);
	t->seq = pk__zalloc(sizeof(struct trace_seq));
	skip = pk__malloc(((size_t)td->nr_fmts + 1) * sizeof(bool));
	t->page_size = pk__calloc((size_t)td->nr_bufs + 1, sizeof(uint32_t));
	t->nr_bufs = td->nr_bufs;
	for (int i = 0; t->page_size && i < td->nr_bufs; i++)
		t->page_size[i] = td->bufs[i].page_size;
	if (!t->scratch || !t->seq || !skip || !t->page_size) {
		pk__free(skip);
		return -ENOMEM;
	}
	trace_seq_init(t->seq);
	/* the header, plugins and texts first, the formats after the
	 * funcgraph handlers are in */
	memset(skip, 1, ((size_t)td->nr_fmts + 1) * sizeof(bool));
	e = source(td, full, &src);
	if (!e && env) {
		/* one comm table, ENV's (its cmdlines are in already), as
		 * trace-cmd's one handle has */
		src.cmdlines = NULL;
		if (!(src.into = pk__tf_comm_tep(env)))
			e = -ENOMEM;
	}
	if (!e)
		e = pk__tf_tep_init(&t->tt, &src, skip);
	if (!e) {
		t->fg.long_size = td->long_size;
		pk__td_fgraph_register(t->tt.tep, &t->fg);
		/* filters may name events without records: all formats */
		if (full && o && (o->nr_filters || o->nr_pids || o->nr_comms))
			memset(skip, 0, ((size_t)td->nr_fmts + 1) * sizeof(bool));
		else if (full)
			e = mark_unused(td, skip, o);
		if (full && !e)
			e = pk__tf_tep_parse(&t->tt, &src, skip);
		t->ftrace_parsed = full;
		if (!full && env)
			tep_set_function_resolver(t->tt.tep, resolve, env);
	}
	pk__free((void *)src.fmts);
	pk__free(skip);
	return e;
}

int pk__td_tep_need(struct rep_tep *t, struct pk_tracedat *td, int idx)
{
	struct tf_tep_src src;
	bool *skip;
	int e;

	if (idx < 0 || idx >= td->nr_fmts || t->tt.parsed[idx])
		return 0;
	skip = pk__malloc(((size_t)td->nr_fmts + 1) * sizeof(bool));
	if (!skip)
		return -ENOMEM;
	for (int i = 0; i < td->nr_fmts; i++)
		skip[i] = i != idx && (t->ftrace_parsed ||
				       i >= td->nr_ftrace_fmts);
	t->ftrace_parsed = true;   /* funcgraph needs its exit format */
	e = source(td, false, &src);
	if (!e)
		e = pk__tf_tep_parse(&t->tt, &src, skip);
	t->tt.parsed[idx] = true;  /* tried (a damaged one stays out) */
	pk__free((void *)src.fmts);
	pk__free(skip);
	return e;
}

int pk__td_tep_all(struct rep_tep *t, struct pk_tracedat *td)
{
	struct tf_tep_src src;
	bool *skip = pk__zalloc(((size_t)td->nr_fmts + 1) * sizeof(bool));
	int e;

	if (!skip)
		return -ENOMEM;
	e = source(td, false, &src);
	if (!e)
		e = pk__tf_tep_parse(&t->tt, &src, skip);
	for (int i = 0; i < td->nr_fmts; i++)
		t->tt.parsed[i] = true;
	t->ftrace_parsed = true;
	pk__free((void *)src.fmts);
	pk__free(skip);
	return e;
}

static void tep_rec(struct rep_tep *t, const struct pk_tracedat_event *ev,
		    struct tep_record *rec)
{
	uint32_t size = (uint32_t)PK_MIN(ev->size, t->scratch_max);
	uint32_t ps = ev->buffer >= 0 && ev->buffer < t->nr_bufs ?
		      t->page_size[ev->buffer] : 0;
	size_t tail = 0;

	/* libtraceevent reads a field past a short record (an array of a
	 * kernel_stack): what follows in the page, as trace-cmd has it (the
	 * header counted as 8 bytes: never past the page) */
	if (ps && ev->size == size) {
		size_t at = (size_t)(ev->offset % ps) + 8 + size;
		tail = at < ps ? PK_MIN(ps - at, SCRATCH_SPARE) : 0;
	}
	memcpy(t->scratch, ev->data, size + tail);
	t->scratch_used = size + tail;
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

int pk__td_tep_payload(struct rep_tep *t, const struct pk_tracedat_event *ev,
		   struct tf_out *o, const char **name)
{
	return pk__td_tep_print(t, ev, o, name, TEP_PRINT_INFO);
}

int pk__td_tep_print(struct rep_tep *t, const struct pk_tracedat_event *ev,
		     struct tf_out *o, const char **name, const char *what)
{
	struct tep_record rec;

	tep_rec(t, ev, &rec);
	struct tep_event *e = tep_find_event_by_record(t->tt.tep, &rec);
	if (name)
		*name = e ? e->name : "(NULL)";
	trace_seq_reset(t->seq);
	if (e || strcmp(what, TEP_PRINT_INFO))
		tep_print_event(t->tt.tep, t->seq, &rec, "%s", what);
	int r = append_seq(t, o);
	memset(t->scratch, 0, t->scratch_used);
	return r;
}

const char *pk__td_tep_who(struct rep_tep *t,
			   const struct pk_tracedat_event *ev, int *pid,
			   const char **name)
{
	struct tep_record rec;

	tep_rec(t, ev, &rec);
	struct tep_event *e = tep_find_event_by_record(t->tt.tep, &rec);
	*name = e ? e->name : "(NULL)";
	*pid = tep_data_pid(t->tt.tep, &rec);
	memset(t->scratch, 0, t->scratch_used);
	return tep_data_comm_from_pid(t->tt.tep, *pid);
}

int pk__td_tep_flags(struct rep_tep *t, const struct pk_tracedat_event *ev)
{
	struct tep_record rec;

	tep_rec(t, ev, &rec);
	int f = tep_data_flags(t->tt.tep, &rec);
	memset(t->scratch, 0, t->scratch_used);
	return f;
}

/* One more filter object of F into the positive or the negative list. */
static int add_filter(struct rep_tep *t, const struct pk_report_filter *f)
{
	struct tep_event_filter ***v = f->invert ? &t->neg : &t->pos;
	int *n = f->invert ? &t->nr_neg : &t->nr_pos;
	struct tep_event_filter **g = pk__realloc(*v, ((size_t)*n + 1) *
						  sizeof(*g));
	struct tep_event_filter *one;
	char why[256];
	int e;

	if (!g)
		return -ENOMEM;
	*v = g;
	if (!(one = tep_filter_alloc(t->tt.tep)))
		return -ENOMEM;
	g[(*n)++] = one;
	if ((e = tep_filter_add_filter_str(one, f->text)) < 0) {
		if (tep_filter_strerror(one, e, why, sizeof(why)))
			snprintf(why, sizeof(why), "error %d", e);
		pk_warn("trace.dat: filter '%s': %s", f->text, why);
		return PK_ERR_SYNTAX;
	}
	return 0;
}

/* The stack trace events (a stack after a printed record prints). */
static int stack_id(struct tep_handle *tep, const char *name)
{
	struct tep_event *e = tep_find_event_by_name(tep, "ftrace", name);

	return e ? e->id : -1;
}

int pk__td_tep_filters(struct rep_tep *t, const struct pk_report_filter *f,
		       int n)
{
	int e = 0;

	for (int i = 0; i < n && !e; i++)
		e = add_filter(t, &f[i]);
	if (e || !n)
		return e;
	t->kstack_id = stack_id(t->tt.tep, "kernel_stack");
	t->ustack_id = stack_id(t->tt.tep, "user_stack");
	t->nr_lp = tep_get_cpus(t->tt.tep);
	t->last_printed = pk__calloc((size_t)t->nr_lp + 1, sizeof(bool));
	return t->last_printed ? 0 : -ENOMEM;
}

/* Whether one of the N filters V matches REC (or has no event at all). */
static bool any_match(struct tep_event_filter **v, int n,
		      struct tep_record *rec)
{
	for (int i = 0; i < n; i++) {
		int r = tep_filter_match(v[i], rec);

		if (r == TEP_ERRNO__NO_FILTER || r == TEP_ERRNO__FILTER_MATCH)
			return true;
	}
	return false;
}

/* A stack trace record after a record of its CPU that printed. */
static bool stack_after_printed(const struct rep_tep *t, struct tep_record *rec)
{
	int id = tep_data_type(t->tt.tep, rec);

	if (id < 0 || (id != t->kstack_id && id != t->ustack_id))
		return false;
	return rec->cpu >= 0 && rec->cpu < t->nr_lp && t->last_printed[rec->cpu];
}

/* trace-cmd 3.1's rule (tracecmd_filter_match): a record passes when one
 * positive filter matches it (none given: all do) or it is a stack trace
 * right after a record of its CPU that passed, and no negative filter
 * matches it. */
bool pk__td_tep_keep(struct rep_tep *t, const struct pk_tracedat_event *ev)
{
	struct tep_record rec;
	bool keep = true;

	if (!t->nr_pos && !t->nr_neg)
		return true;
	tep_rec(t, ev, &rec);
	if (t->nr_pos && !any_match(t->pos, t->nr_pos, &rec) &&
	    !stack_after_printed(t, &rec)) {
		keep = false;
	} else {
		keep = !any_match(t->neg, t->nr_neg, &rec);
		if (rec.cpu >= 0 && rec.cpu < t->nr_lp)
			t->last_printed[rec.cpu] = keep;
	}
	memset(t->scratch, 0, t->scratch_used);
	return keep;
}

void pk__td_tep_fini(struct rep_tep *t)
{
	for (int i = 0; i < t->nr_pos; i++)
		tep_filter_free(t->pos[i]);
	for (int i = 0; i < t->nr_neg; i++)
		tep_filter_free(t->neg[i]);
	pk__free(t->pos);
	pk__free(t->neg);
	pk__free(t->last_printed);
	pk__tf_tep_fini(&t->tt);
	if (t->seq)
		trace_seq_destroy(t->seq);
	pk__free(t->seq);
	pk__free(t->scratch);
	pk__free(t->page_size);
	memset(t, 0, sizeof(*t));
}
