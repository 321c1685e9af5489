/* SPDX-License-Identifier: MIT */
/*
 * Kernel-text printer fed from tracefs directly: metadata read from the
 * instance now, events from raw trace_pipe_raw pages (perfkit ftrace live).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ftrace/ktext.h"
#include "tracefs/meta.h"

struct live_fmts {
	char **sys, **text;
	size_t *len;
	int n, cap;
};

static int add_fmt(struct live_fmts *f, const char *sys, char *text, size_t len)
{
	if (f->n == f->cap) {
		int cap = f->cap ? f->cap * 2 : 64;
		char **s = pk__realloc(f->sys, (size_t)cap * sizeof(char *));
		if (!s)
			return -ENOMEM;
		f->sys = s;
		char **t = pk__realloc(f->text, (size_t)cap * sizeof(char *));
		if (!t)
			return -ENOMEM;
		f->text = t;
		size_t *l = pk__realloc(f->len, (size_t)cap * sizeof(size_t));
		if (!l)
			return -ENOMEM;
		f->len = l;
		f->cap = cap;
	}
	f->sys[f->n] = pk__strdup(sys);
	if (!f->sys[f->n])
		return -ENOMEM;
	f->text[f->n] = text;
	f->len[f->n++] = len;
	return 0;
}

static void free_fmts(struct live_fmts *f)
{
	for (int i = 0; i < f->n; i++) {
		pk__free(f->sys[i]);
		pk__free(f->text[i]);
	}
	pk__free(f->sys);
	pk__free(f->text);
	pk__free(f->len);
}

/* The ftrace formats and those of the events enabled in INSTANCE. */
static int read_fmts(struct pk_tracefs *t, const char *inst,
		     struct live_fmts *f)
{
	static const char *const ft[] = {
		"function", "funcgraph_entry", "funcgraph_exit", "print",
		"bprint", "bputs", "raw_data", "kernel_stack", "user_stack",
		"func_repeats",
	};
	const char *root = pk_tracefs_dir(t);
	char *set = NULL, *text;
	long n;
	int e = 0;

	for (size_t i = 0; i < PK_ARRAY_SIZE(ft) && !e; i++)
		if ((n = pk__tfmeta_format(root, "ftrace", ft[i], &text)) > 0)
			e = add_fmt(f, "ftrace", text, (size_t)n);
		else
			pk__free(text);
	if (!e)
		pk__tfmeta_read(root, inst, PK_TFMETA_SET_EVENT, &set);
	for (char *p = set; !e && p && *p;) {
		char *nl = strchr(p, '\n'), *c;
		if (nl)
			*nl = 0;
		if ((c = strchr(p, ':'))) {
			*c = 0;
			if ((n = pk__tfmeta_format(root, p, c + 1, &text)) > 0)
				e = add_fmt(f, p, text, (size_t)n);
			else
				pk__free(text);
		}
		p = nl ? nl + 1 : NULL;
	}
	pk__free(set);
	return e;
}

int pk_ktext_refresh(struct pk_ktext *kt)
{
	const char *root = kt->tfs ? pk_tracefs_dir(kt->tfs) : NULL;
	char *s = NULL;
	int e = 0;

	if (!root)
		return 0;
	if (pk__tfmeta_read(root, NULL, PK_TFMETA_CMDLINES, &s) >= 0)
		e = pk__kt_parse_cmdlines(kt, s);
	pk__free(s);
	s = NULL;
	if (!e && (kt->flags & KT_F(KT_RECORD_TGID)) &&
	    pk__tfmeta_read(root, NULL, PK_TFMETA_TGIDS, &s) >= 0)
		e = pk__kt_parse_tgids(kt, s);
	pk__free(s);
	return e;
}

static char *clock_of(struct pk_tracefs *t, const char *inst)
{
	char *c = NULL;

	if (pk__tfmeta_read(pk_tracefs_dir(t), inst, PK_TFMETA_CLOCK, &c) < 0)
		return NULL;
	char *o = strchr(c, '['), *e = o ? strchr(o, ']') : NULL;
	if (e) {
		*e = 0;
		memmove(c, o + 1, strlen(o + 1) + 1);
	}
	return c;
}

static int ktext_tracefs(struct pk_tracefs *t, const char *instance,
			 const struct pk_ktext_opts *o, struct pk_ktext **out)
{
	struct live_fmts f = { 0 };
	char *hp = NULL, *ks = NULL, *pf = NULL, *clk = NULL;
	long hpl;
	int e;

	*out = NULL;
	if (o && !PK_OPTS_VALID(o, pk_ktext_opts))
		return -EINVAL;
	e = read_fmts(t, instance, &f);
	hpl = pk__tfmeta_read(pk_tracefs_dir(t), NULL, PK_TFMETA_HEADER_PAGE,
			      &hp);
	pk__tfmeta_read(NULL, NULL, PK_TFMETA_KALLSYMS, &ks);
	pk__tfmeta_read(pk_tracefs_dir(t), NULL, PK_TFMETA_PRINTK, &pf);
	clk = clock_of(t, instance);
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct kt_src src = {
		.hdr_page = hpl > 0 ? hp : NULL,
		.hdr_page_len = hpl > 0 ? (size_t)hpl : 0,
		.nr_fmts = f.n, .fmt_sys = (const char *const *)f.sys,
		.fmt_text = (const char *const *)f.text, .fmt_len = f.len,
		.kallsyms = ks, .kallsyms_len = ks ? strlen(ks) : 0,
		.kallsyms_own = true, .printk = pf, .clock = clk,
		.long_size = (int)sizeof(long), .big = __BYTE_ORDER__ ==
		__ORDER_BIG_ENDIAN__,
		.nr_cpus = ncpu > 0 ? (int)ncpu : 1,
	};
	struct pk_ktext_opts lo = { .sz = sizeof(lo) };
	if (o)
		memcpy(&lo, o, PK_MIN(o->sz, sizeof(lo)));
	if (!lo.nr_online) {
		long on = sysconf(_SC_NPROCESSORS_ONLN);
		lo.nr_online = on > 0 ? (int)on : 1;
	}
	if (!e) {
		e = pk__kt_new(&src, &lo, out);
		ks = pf = NULL;         /* taken */
	}
	if (!e) {
		struct pk_ktext *kt = *out;
		kt->tfs = t;
		kt->scratch_max = (size_t)pk_tracefs_subbuf_size(t, instance);
		kt->scratch = pk__zalloc(kt->scratch_max + (128u << 10));
		e = kt->scratch ? pk_ktext_refresh(kt) : -ENOMEM;
		if (e) {
			pk_ktext_free(kt);
			*out = NULL;
		}
	}
	pk__free(hp);
	pk__free(ks);
	pk__free(pf);
	pk__free(clk);
	free_fmts(&f);
	return e;
}

struct pk_ktext *pk_ktext_new_tracefs(struct pk_tracefs *t,
				      const char *instance,
				      const struct pk_ktext_opts *o)
{
	struct pk_ktext *obj = NULL;
	int e = ktext_tracefs(t, instance, o, &obj);

	return pk__ptr_or_errno(e, obj);
}

long pk_ktext_page_events(const struct pk_ktext *kt, int cpu,
			  const void *page, size_t page_size,
			  struct pk_tracedat_event **evs, size_t *n,
			  size_t *cap)
{
	struct pk_rb_iter it;
	struct pk_rb_event ev;
	long added = 0;
	int r;

	if (pk__rb_iter_init(&it, page, page_size, &kt->layout))
		return PK_ERR_FORMAT;
	while ((r = pk__rb_iter_next(&it, &ev)) > 0) {
		if (*n == *cap) {
			size_t c = *cap ? *cap * 2 : 1024;
			struct pk_tracedat_event *v = pk__realloc(*evs,
							c * sizeof(*v));
			if (!v)
				return -ENOMEM;
			*evs = v;
			*cap = c;
		}
		(*evs)[(*n)++] = (struct pk_tracedat_event){
			.ts = ev.ts, .data = ev.data, .size = ev.size,
			.cpu = cpu, .missed = added ? 0 : it.missed,
			.offset = ev.offset,
		};
		added++;
	}
	return r < 0 ? r : added;
}

long pk_ktext_print(struct pk_ktext *kt, FILE *out,
		    const struct pk_tracedat_event *evs, size_t n)
{
	bool *done = pk__calloc(n + 1, sizeof(bool));
	long printed = 0;
	int e;

	if (!done)
		return -ENOMEM;
	e = pk__kt_print_range(kt, out, evs, done, 0, n, n, &printed);
	pk__free(done);
	return e ? e : printed;
}
