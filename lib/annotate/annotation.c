/* SPDX-License-Identifier: MIT */
/* One symbol's annotation: its lines with the samples of each
 * instruction, and perf annotate --stdio's layout of them. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/annotate_int.h"

void pk_annotation_free(struct pk_annotation *an)
{
	if (!an)
		return;
	for (unsigned i = 0; i < an->nr; i++) {
		pk__free(an->lines[i].text);
		pk__free(an->lines[i].srcline);
		pk__free(an->lines[i].target_sym);
	}
	pk__free(an->lines);
	pk__free(an);
}

/* Each instruction's samples: those at its address up to the next. */
static void count_lines(struct pk_annotation *an, const struct asym *e,
			uint64_t vstart)
{
	for (unsigned h = 0; h < e->nr_hits; h++) {
		uint64_t at = vstart + e->hits[h].off;
		struct aline *best = NULL;

		for (unsigned i = 0; i < an->nr; i++) {
			if (!an->lines[i].insn)
				continue;
			if (an->lines[i].addr > at)
				break;
			best = &an->lines[i];
		}
		if (best) {
			best->samples++;
			best->period += e->hits[h].period;
		}
	}
}

static void percents(struct pk_annotation *an, const struct asym *e,
		     uint64_t all_samples, uint64_t all_period)
{
	for (unsigned i = 0; i < an->nr; i++) {
		struct aline *l = &an->lines[i];
		double num, den;

		if (!l->insn)
			continue;
		switch (an->percent) {
		case PK_ANNOTATE_GLOBAL_PERIOD:
			num = (double)l->period; den = (double)all_period; break;
		case PK_ANNOTATE_LOCAL_HITS:
			num = (double)l->samples; den = (double)e->samples; break;
		case PK_ANNOTATE_GLOBAL_HITS:
			num = (double)l->samples; den = (double)all_samples; break;
		default:
			num = (double)l->period; den = (double)e->period; break;
		}
		l->percent = den > 0 ? 100.0 * num / den : 0.0;
	}
}

/* perf -l's "file.c:LINE" of each instruction. 0 or -ENOMEM. */
static int srclines(struct pk_annotation *an, struct pk_session *s,
		    const struct asym *e, uint64_t vstart)
{
	void *dw = pk__session_dso_dwarf(s, e->dso);
	char buf[4352];
	uint64_t off;

	for (unsigned i = 0; i < an->nr; i++) {
		struct aline *l = &an->lines[i];

		if (!l->insn)
			continue;
		/* no DWARF line: binutils' file from the symbol table
		 * ("crtstuff.c:0", ":0" after the linker's nameless file
		 * symbol), else perf's "??:0"; the DSO and address in the
		 * PLT (perf's entries, or an unsized symbol's end run over
		 * it) */
		off = e->start + (l->addr - vstart);
		if (pk__srcline(dw, &e->dso->tab, off, buf, sizeof(buf)) ||
		    !strcmp(buf, ":0")) {
			const char *file = NULL;

			pk__srcline_symfile(dw, &e->dso->tab, off, &file);
			snprintf(buf, sizeof(buf), "%s:0", file ? file : "??");
		}
		if (pk__annotate_plt_name(e->name) || l->plt)
			snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]",
				 an->sym.dso_short, l->addr);
		l->srcline = pk__strdup(buf);
		if (!l->srcline)
			return -ENOMEM;
	}
	return 0;
}

static int hex_digits(uint64_t v)
{
	int n = 1;

	while (v >>= 4)
		n++;
	return n;
}

struct pk_annotation *pk_annotation_new(struct pk_annotate *a, int idx,
					const struct pk_annotation_opts *opts)
{
	struct asym *e = pk__annotate_get(a, idx);
	struct pk_annotation *an;
	uint64_t vstart;
	int err;

	if (!e || (opts && !pk__opts_valid(opts, opts->sz,
			sizeof(struct pk_annotation_opts))) ||
	    (opts && (unsigned)opts->percent > PK_ANNOTATE_GLOBAL_HITS))
		return pk__ptr_or_errno(-EINVAL, NULL);
	if (e->kernel || !e->dso)
		return pk__ptr_or_errno(-ENOENT, NULL);
	an = pk__zalloc(sizeof(*an));
	if (!an)
		return NULL;
	an->percent = opts ? opts->percent : PK_ANNOTATE_LOCAL_PERIOD;
	pk_annotate_sym(a, idx, &an->sym);
	err = pk__annotate_disasm(an, a->sess, e, !(opts && opts->no_source),
				  opts && opts->intel);
	if (err) {
		pk_annotation_free(an);
		return pk__ptr_or_errno(err, NULL);
	}
	vstart = pk__symtab_off_to_vaddr(&e->dso->tab, e->start);
	an->sym.start = vstart;
	an->sym.end = vstart + (e->end - e->start);
	count_lines(an, e, vstart);
	{
		uint64_t all_samples, all_period;

		pk_annotate_totals(a, e->attr, &all_samples, &all_period);
		percents(an, e, all_samples, all_period);
	}
	if (opts && opts->srclines && srclines(an, a->sess, e, vstart)) {
		pk_annotation_free(an);
		return pk__ptr_or_errno(-ENOMEM, NULL);
	}
	for (unsigned i = 0; i < an->nr; i++)
		if (an->lines[i].insn &&
		    hex_digits(an->lines[i].addr) > an->addr_width)
			an->addr_width = hex_digits(an->lines[i].addr);
	pk__annotation_browse_init(an);
	return an;
}

int pk_annotation_nr_lines(const struct pk_annotation *an)
{
	return (int)an->nr;
}

int pk_annotation_line(const struct pk_annotation *an, int idx,
		       struct pk_annotation_line *out)
{
	const struct aline *l;

	if (idx < 0 || (unsigned)idx >= an->nr)
		return -EINVAL;
	l = &an->lines[idx];
	out->insn = l->insn;
	out->addr = l->addr;
	out->percent = l->percent;
	out->samples = l->samples;
	out->period = l->period;
	out->has_target = l->has_target;
	out->target = l->target;
	out->line_nr = l->line_nr;
	out->text = l->text;
	out->srcline = l->srcline;
	return 0;
}

static const char *const percent_names[] = {
	"local period", "global period", "local hits", "global hits",
};

/* The first column: its heading and width. */
static const char *column_head(enum pk_annotate_column c, int *w)
{
	*w = c == PK_ANNOTATE_COL_PERIOD ? 11 : 7;
	return c == PK_ANNOTATE_COL_PERIOD ? "Period     " :
	       c == PK_ANNOTATE_COL_SAMPLES ? "Samples" : "Percent";
}

/* perf -l shows the source line of instructions above half a percent. */
static const char *shown_src(const struct aline *l)
{
	return l->insn && l->percent > 0.5 ? l->srcline : NULL;
}

static void print_line(const struct pk_annotation *an, const struct aline *l,
		       const char **prev_src,
		       const struct pk_annotation_print_opts *o, FILE *f)
{
	const char *src = shown_src(l);

	int w = an->addr_width, pad = 7 - hex_digits(l->addr), cw;

	column_head(o->column, &cw);
	if (!l->insn) {
		fprintf(f, " %*s :", cw, "");
		if (l->text[0])
			fprintf(f, " %-*d %s", w, l->line_nr, l->text);
		fputc('\n', f);
		return;
	}
	if (o->column == PK_ANNOTATE_COL_PERCENT)
		fprintf(f, " %*.2f", cw, l->percent);
	else
		fprintf(f, " %*" PRIu64, cw, o->column == PK_ANNOTATE_COL_SAMPLES ?
			l->samples : l->period);
	fprintf(f, " :   %*" PRIx64 ":%*s%s", w, l->addr, pad > 1 ? pad : 1, "",
		l->text);
	if (o->print_line && src && (!*prev_src || strcmp(*prev_src, src))) {
		fprintf(f, " // %s", src);
		*prev_src = src;
		if (o->last_srcline && o->last_srcline_len)
			snprintf(o->last_srcline, o->last_srcline_len, "%s", src);
	}
	fputc('\n', f);
}

struct srcsum {
	const char *src;
	double percent;
};

/* Higher share first; ties by the source line's text, descending. */
static int src_order(const void *pa, const void *pb)
{
	const struct srcsum *a = pa, *b = pb;

	if (a->percent != b->percent)
		return a->percent > b->percent ? -1 : 1;
	return strcmp(b->src, a->src);
}

/* perf -l's summary: the share of each source line with samples. */
static int print_summary(const struct pk_annotation *an, FILE *f)
{
	struct srcsum *v = pk__calloc((size_t)an->nr + 1, sizeof(*v));
	int n = 0;

	if (!v)
		return -ENOMEM;
	for (unsigned i = 0; i < an->nr; i++) {
		const struct aline *l = &an->lines[i];
		int k;

		if (!shown_src(l))
			continue;
		for (k = 0; k < n && strcmp(v[k].src, l->srcline); k++)
			;
		if (k == n)
			v[n++].src = l->srcline;
		v[k].percent += l->percent;
	}
	qsort(v, (size_t)n, sizeof(*v), src_order);
	fprintf(f, "\nSorted summary for file %s\n", an->sym.dso);
	fprintf(f, "----------------------------------------------\n\n");
	for (int k = 0; k < n; k++)
		fprintf(f, " %7.2f %s\n", v[k].percent, v[k].src);
	pk__free(v);
	return 0;
}

int pk_annotation_print(const struct pk_annotation *an, FILE *f,
			const struct pk_annotation_print_opts *opts)
{
	const char *prev = opts && opts->last_srcline &&
			   opts->last_srcline_len && opts->last_srcline[0] ?
			   opts->last_srcline : NULL;
	int n, cw;

	if (!opts || !pk__opts_valid(opts, opts->sz, sizeof(*opts)) ||
	    (unsigned)opts->column > PK_ANNOTATE_COL_PERIOD)
		return -EINVAL;
	if (opts->print_line && print_summary(an, f))
		return -ENOMEM;
	n = fprintf(f, " %s |\tSource code & Disassembly of %s for %s "
		    "(%" PRIu64 " samples, percent: %s)\n",
		    column_head(opts->column, &cw), an->sym.dso_short,
		    opts->event ? opts->event : "", an->sym.nr_samples,
		    percent_names[an->percent]);
	for (int i = 0; i < n + 4; i++)
		fputc('-', f);
	fputc('\n', f);
	for (unsigned i = 0; i < an->nr; i++)
		print_line(an, &an->lines[i], &prev, opts, f);
	return ferror(f) ? -EIO : 0;
}
