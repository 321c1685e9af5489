/* SPDX-License-Identifier: MIT */
/*
 * Kernel-text printer fed from a trace.dat file (pk_tracedat_report_kernel)
 * and the printing loop shared with live reading: each event is printed
 * with the next one in time order (latency deltas) and the next one of its
 * CPU (function_graph leaves) in view.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/bytes.h"
#include "tracedat/tracedat.h"
#include "ftrace/ktext.h"
#include "tracefs/tracefs.h"

#define LOOKAHEAD 8192

/* Prints Q[FROM..TO) looking ahead up to Q[N); DONE marks consumed ones. */
int pk__kt_print_range(struct pk_ktext *kt, FILE *out,
		   const struct pk_tracedat_event *q, bool *done,
		   size_t from, size_t to, size_t n, long *printed)
{
	for (size_t i = from; i < to; i++) {
		struct kt_ev k = { .ev = &q[i] };
		size_t j;
		int e;

		if (done[i])
			continue;
		for (j = i + 1; j < n && done[j]; j++)
			;
		k.next = j < n ? &q[j] : NULL;
		if (kt->tracer == KT_GRAPH &&
		    pk__kt_type(kt, q[i].data, q[i].size) == kt->id_gent) {
			for (j = i + 1; j < n && (done[j] ||
			     q[j].cpu != q[i].cpu); j++)
				;
			k.next_cpu = j < n ? &q[j] : NULL;
		}
		pk__kt_line(kt, &kt->s, &k);
		if (k.consumed_next_cpu)
			done[j] = true;
		done[i] = true;
		kt->idx++;
		(*printed)++;
		if ((e = pk__kt_flush_seq(kt, out)))
			return e;
	}
	return 0;
}

/* The overrun of CPU in the file's CPUSTAT options (0 if absent). */
static unsigned long cpustat_overrun(const struct pk_tracedat *td, int cpu)
{
	for (int i = 0; i < td->nr_cpustat; i++) {
		const struct td_blob *b = &td->cpustat[i];
		struct pk_tracefs_stats st;

		long c = 0;
		size_t k = 5;

		if (b->len < 5 || memcmp(b->p, "CPU: ", 5))
			continue;
		for (; k < b->len && k < 16 && isdigit((unsigned char)b->p[k]); k++)
			c = c * 10 + (b->p[k] - '0');
		if (k == 5 || c != cpu)
			continue;
		pk__tfs_stats_parse(b->p, b->len, &st);
		return (unsigned long)st.overrun;
	}
	return 0;
}

static char *blob_str(const struct td_blob *b)
{
	return b->len ? pk__strndup(b->p, b->len) : NULL;
}

struct td_scan {
	uint8_t types[65536 / 8];
	unsigned long entries, overrun;
	int err;
};

static void scan(struct pk_tracedat *td, const struct pk_ktext_opts *o,
		 struct td_scan *sc)
{
	struct pk_tracedat_event ev;
	int r;

	if ((r = pk_tracedat_rewind(td, o ? o->cpus : NULL,
				    o ? o->nr_cpus : 0)) < 0) {
		sc->err = r;
		return;
	}
	while ((r = pk_tracedat_next(td, &ev)) != 0) {
		if (r < 0) {
			sc->err = sc->err ? sc->err : r;
			continue;
		}
		if (ev.buffer != 0)
			continue;
		if (ev.size >= 2) {
			uint16_t ty = pk_ld16(ev.data, td->big);
			sc->types[ty / 8] |= (uint8_t)(1 << (ty % 8));
		}
		sc->entries++;
	}
	for (int c = 0; c < 1024; c++) {
		bool in = !o || !o->cpus || !o->nr_cpus;
		for (int i = 0; !in && i < o->nr_cpus; i++)
			in = o->cpus[i] == c;
		if (in)
			sc->overrun += cpustat_overrun(td, c);
	}
}

static int make_printer(struct pk_tracedat *td, const struct pk_ktext_opts *o,
			const struct td_scan *sc, struct pk_ktext **out)
{
	int n = td->nr_fmts, e;
	const char **sys = pk__calloc((size_t)n + 1, sizeof(char *));
	const char **txt = pk__calloc((size_t)n + 1, sizeof(char *));
	size_t *len = pk__calloc((size_t)n + 1, sizeof(size_t));
	bool *skip = pk__calloc((size_t)n + 1, sizeof(bool));
	/* kallsyms, printk and cmdlines are read on first use (v7) */
	/* kallsyms read in place: TD outlives the printer */
	const struct td_blob *ks = pk__td_tracedat_blob(td, PK_TD_KALLSYMS);
	char *pf = blob_str(pk__td_tracedat_blob(td, PK_TD_PRINTK));
	char *cl = blob_str(pk__td_tracedat_blob(td, PK_TD_CMDLINES));
	char *un = blob_str(&td->uname);
	char *tg = td->tgids.p ? blob_str(&td->tgids) : NULL;
	struct kt_src src = {
		.hdr_page = td->hdr_page.p, .hdr_page_len = td->hdr_page.len,
		.nr_fmts = n, .fmt_sys = sys, .fmt_text = txt, .fmt_len = len,
		.fmt_skip = skip, .kallsyms = ks ? ks->p : NULL,
		.kallsyms_len = ks ? ks->len : 0, .printk = pf, .cmdlines = cl,
		.uname = un, .tgids = tg, .clock = td->bufs[0].clock,
		.long_size = td->long_size, .big = td->big,
		.nr_cpus = pk_tracedat_cpus(td), .untrusted = true,
	};

	e = sys && txt && len && skip ? 0 : -ENOMEM;
	for (int i = 0; !e && i < n; i++) {
		long id = pk__tf_format_id(td->fmts[i].text.p,
					td->fmts[i].text.len);
		sys[i] = td->fmts[i].system;
		txt[i] = td->fmts[i].text.p;
		len[i] = td->fmts[i].text.len;
		/* ftrace formats are always parsed (ids of the layouts) */
		skip[i] = i >= td->nr_ftrace_fmts && id >= 0 && id < 65536 &&
			  !(sc->types[id / 8] & (1 << (id % 8)));
	}
	if (!e) {
		e = pk__kt_new(&src, o, out);
		pf = NULL;              /* taken */
	}
	pk__free(sys);
	pk__free(txt);
	pk__free(len);
	pk__free(skip);
	pk__free(pf);
	pk__free(cl);
	pk__free(un);
	pk__free(tg);
	return e;
}

static int print_events(struct pk_tracedat *td, struct pk_ktext *kt,
			FILE *out, const struct pk_ktext_opts *o, long *printed)
{
	size_t cap = 4 * LOOKAHEAD, n = 0;
	struct pk_tracedat_event *q = pk__calloc(cap, sizeof(*q));
	bool *done = pk__calloc(cap, sizeof(bool)), eof = false;
	int err = 0, e = 0, r;

	if (!q || !done) {
		pk__free(q);
		pk__free(done);
		return -ENOMEM;
	}
	pk_tracedat_rewind(td, o ? o->cpus : NULL, o ? o->nr_cpus : 0);
	while (!e) {
		while (!eof && n < cap) {
			r = pk_tracedat_next(td, &q[n]);
			if (r < 0) {
				err = err ? err : r;
				continue;
			}
			if (r == 0)
				eof = true;
			else if (q[n].buffer == 0)
				done[n++] = false;
		}
		size_t upto = eof ? n : n - LOOKAHEAD;
		e = pk__kt_print_range(kt, out, q, done, 0, upto, n, printed);
		if (eof || e)
			break;
		/* keep the look-ahead window */
		memmove(q, q + upto, (n - upto) * sizeof(*q));
		memmove(done, done + upto, (n - upto) * sizeof(bool));
		n -= upto;
	}
	pk__free(q);
	pk__free(done);
	return e ? e : err;
}

long pk_tracedat_report_kernel(struct pk_tracedat *td, FILE *out,
			       const struct pk_ktext_opts *o)
{
	struct pk_ktext *kt = NULL;
	struct td_scan *sc;
	long printed = 0;
	int e;

	if (o && !PK_OPTS_VALID(o, pk_ktext_opts))
		return -EINVAL;
	if (td->nr_bufs < 1)
		return PK_ERR_FORMAT;
	if (td->bufs[0].latency) {
		/* a latency file holds the kernel's own text already */
		fwrite(td->bufs[0].text.p, 1, td->bufs[0].text.len, out);
		return 0;
	}
	sc = pk__zalloc(sizeof(*sc));
	if (!sc)
		return -ENOMEM;
	scan(td, o, sc);
	e = make_printer(td, o, sc, &kt);
	if (e) {
		pk__free(sc);
		return e;
	}
	kt->scratch_max = PK_MAX(td->page_size, td->bufs[0].page_size);
	kt->scratch = pk__zalloc(kt->scratch_max + (128u << 10));
	kt->annotate = sc->overrun > 0;
	/* TSC2NSEC: the iterator gives nanoseconds */
	if (td->has_tsc2nsec && !(o && o->clock))
		kt->in_ns = true;
	pk__kt_detect_tracer(kt, sc->types);
	if (!kt->scratch) {
		e = -ENOMEM;
	} else {
		if (!o || !o->no_header)
			pk__kt_header(kt, out, sc->entries,
				  sc->entries + sc->overrun, !sc->entries);
		e = print_events(td, kt, out, o, &printed);
	}
	if (!e)
		e = sc->err;
	pk_ktext_free(kt);
	pk__free(sc);
	return e ? e : printed;
}
