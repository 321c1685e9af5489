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
	for (int i = 0; i < an->nr; i++)
		pk__free(an->lines[i].text);
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

		for (int i = 0; i < an->nr; i++) {
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
	for (int i = 0; i < an->nr; i++) {
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
		return pk__ptr_or_errno(EINVAL, NULL);
	if (e->kernel || !e->dso)
		return pk__ptr_or_errno(ENOENT, NULL);
	an = pk__zalloc(sizeof(*an));
	if (!an)
		return NULL;
	an->percent = opts ? opts->percent : PK_ANNOTATE_LOCAL_PERIOD;
	pk_annotate_sym(a, idx, &an->sym);
	err = pk__annotate_disasm(an, a->sess, e, !(opts && opts->no_source),
				  opts && opts->intel);
	if (err) {
		pk_annotation_free(an);
		return pk__ptr_or_errno(-err, NULL);
	}
	vstart = pk__symtab_off_to_vaddr(&e->dso->tab, e->start);
	an->sym.start = vstart;
	an->sym.end = vstart + (e->end - e->start);
	count_lines(an, e, vstart);
	percents(an, e, a->samples, a->period);
	for (int i = 0; i < an->nr; i++)
		if (an->lines[i].insn &&
		    hex_digits(an->lines[i].addr) > an->addr_width)
			an->addr_width = hex_digits(an->lines[i].addr);
	return an;
}

int pk_annotation_nr_lines(const struct pk_annotation *an)
{
	return an->nr;
}

int pk_annotation_line(const struct pk_annotation *an, int idx,
		       struct pk_annotation_line *out)
{
	const struct aline *l;

	if (idx < 0 || idx >= an->nr)
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
	return 0;
}

static const char *const percent_names[] = {
	"local period", "global period", "local hits", "global hits",
};

static void print_line(const struct pk_annotation *an, const struct aline *l,
		       FILE *f)
{
	int w = an->addr_width, pad = 7 - hex_digits(l->addr);

	if (l->insn)
		fprintf(f, " %7.2f :   %*" PRIx64 ":%*s%s\n", l->percent,
			w, l->addr, pad > 1 ? pad : 1, "", l->text);
	else if (!l->text[0])
		fprintf(f, "         :\n");
	else
		fprintf(f, "         : %-*d %s\n", w, l->line_nr, l->text);
}

int pk_annotation_print(const struct pk_annotation *an, FILE *f,
			const char *event)
{
	int n;

	n = fprintf(f, " Percent |\tSource code & Disassembly of %s for %s "
		    "(%" PRIu64 " samples, percent: %s)\n", an->sym.dso_short,
		    event, an->sym.nr_samples, percent_names[an->percent]);
	for (int i = 0; i < n + 4; i++)
		fputc('-', f);
	fputc('\n', f);
	for (int i = 0; i < an->nr; i++)
		print_line(an, &an->lines[i], f);
	return ferror(f) ? -EIO : 0;
}
