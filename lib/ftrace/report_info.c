/* SPDX-License-Identifier: MIT */
/*
 * What `trace-cmd report` prints about a trace.dat file instead of its
 * records: the printk formats (-P), the events it has formats for (-E),
 * and the CPUs of the top buffer with data, with their first or last
 * event's time (--cpus, --first-event, --last-event), the buffer
 * statistics stored in the file (--stat), its uname and version, byte
 * order (-e) and function list (-f).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ftrace/report.h"

static int print_printk(struct pk_tracedat *td, FILE *out)
{
	const struct td_blob *k = pk__td_tracedat_blob(td, PK_TD_PRINTK);
	struct tf_env env = { 0 };
	int e = k && k->len ? pk__tf_printk_parse(&env, k->p, k->len) : 0;

	for (size_t i = 0; !e && i < env.nr_pstrs; i++)
		fprintf(out, "%016llx %.*s\n",
			(unsigned long long)env.pstrs[i].addr,
			(int)env.pstrs[i].len, env.pstrs[i].s);
	pk__tf_env_fini(&env);
	return e;
}

struct evname { const char *sys, *name; size_t nl; };

static int evname_cmp(const void *a, const void *b)
{
	const struct evname *x = a, *y = b;
	int c = strcmp(x->sys, y->sys);

	if (c)
		return c;
	size_t n = PK_MIN(x->nl, y->nl);
	c = memcmp(x->name, y->name, n);
	return c ? c : (x->nl > y->nl) - (x->nl < y->nl);
}

/* The "name: " line of a format file. */
static bool format_name(const struct td_format *f, const char **name,
			size_t *nl)
{
	const char *p = f->text.p, *end = p + f->text.len;

	if (f->text.len < 6 || memcmp(p, "name: ", 6))
		return false;
	p += 6;
	const char *e = memchr(p, '\n', (size_t)(end - p));
	*name = p;
	*nl = (size_t)((e ? e : end) - p);
	return true;
}

static int print_events(struct pk_tracedat *td, FILE *out)
{
	struct evname *v = pk__calloc((size_t)td->nr_fmts + 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (int i = 0; i < td->nr_fmts; i++)
		if (format_name(&td->fmts[i], &v[n].name, &v[n].nl))
			v[n++].sys = td->fmts[i].system;
	qsort(v, n, sizeof(*v), evname_cmp);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s:%.*s\n", v[i].sys, (int)v[i].nl, v[i].name);
	pk__free(v);
	return 0;
}

/* --cpus, --first-event, --last-event: the top buffer's CPUs with data. */
static int print_cpus(struct pk_tracedat *td, FILE *out, int what,
		      const char *path)
{
	int nr = td->bufs[0].nr_cpus, e;
	uint64_t *first = pk__calloc((size_t)nr + 1, sizeof(*first));
	uint64_t *last = pk__calloc((size_t)nr + 1, sizeof(*last));
	bool *seen = pk__calloc((size_t)nr + 1, sizeof(*seen));
	struct pk_tracedat_event ev;

	if (!first || !last || !seen) {
		e = -ENOMEM;
		goto out;
	}
	e = pk_tracedat_rewind(td, NULL, 0);
	while (!e && (e = pk_tracedat_next(td, &ev)) > 0) {
		e = 0;
		if (ev.buffer || ev.cpu < 0 || ev.cpu >= nr)
			continue;
		if (!seen[ev.cpu])
			first[ev.cpu] = ev.ts;
		seen[ev.cpu] = true;
		last[ev.cpu] = ev.ts;
	}
	if (e < 0)
		goto out;
	fprintf(out, "List of CPUs in %s with data:\n", path);
	for (int c = 0; c < nr; c++) {
		if (!seen[c])
			continue;
		if (what == PK_REPORT_INFO_CPUS) {
			fprintf(out, "  %d\n", c);
			continue;
		}
		uint64_t t = what == PK_REPORT_INFO_FIRST ? first[c] : last[c];
		if (td->bufs[0].in_usecs) {
			t = (t + 500) / 1000;
			fprintf(out, "  %d\t%s event:%5llu.%06llu\n", c,
				what == PK_REPORT_INFO_FIRST ? "First" : "Last",
				(unsigned long long)(t / 1000000),
				(unsigned long long)(t % 1000000));
		} else {
			fprintf(out, "  %d\t%s event:%llu\n", c,
				what == PK_REPORT_INFO_FIRST ? "First" : "Last",
				(unsigned long long)t);
		}
	}
out:
	pk__free(first);
	pk__free(last);
	pk__free(seen);
	return e;
}

/* --stat: the kernel's buffer statistics stored in the file (CPUSTAT
 * options, each ending in one newline more) and the top buffer's data. */
static int print_stat(struct pk_tracedat *td, FILE *out)
{
	struct td_buffer *b = &td->bufs[0];
	int e;

	fprintf(out, "cpus=%d\n", pk_tracedat_cpus(td));
	fprintf(out, "\nKernel buffer statistics:\n"
		"  Note: \"entries\" are the entries left in the "
		"kernel ring buffer and are not\n"
		"        recorded in the trace data. They should all "
		"be zero.\n\n");
	if (!td->nr_cpustat) {
		fprintf(out, " No stats in this file\n");
	} else {
		for (int i = 0; i < td->nr_cpustat; i++)
			fprintf(out, "%.*s\n", (int)td->cpustat[i].len,
				td->cpustat[i].p);
		fputc('\n', out);
	}
	/* compressed data: where trace-cmd puts it decompressed, one CPU
	 * after the other from the first page on */
	uint64_t at = td->page_size;
	for (int i = 0; !b->latency && i < b->nr_cpus; i++) {
		struct td_cpu *c = &b->cpus[i];
		uint64_t off = c->off, size = c->size;
		if (b->compressed) {
			if (!c->loaded && (e = pk__td_load_cpu(td, b, c)) < 0)
				return e;
			size = c->len;
			off = at;
			at += size;
		}
		fprintf(out, "CPU%d data recorded at offset=0x%llx\n"
			"    %llu bytes in size\n", c->cpu,
			(unsigned long long)off, (unsigned long long)size);
	}
	return 0;
}

/* --uname (and the version after it), --version: what the file says. */
static int print_item(struct pk_tracedat *td, FILE *out, int what)
{
	const struct td_blob *u = &td->uname, *v = &td->version_str;

	fprintf(out, "cpus=%d\n", pk_tracedat_cpus(td));
	if (what == PK_REPORT_INFO_UNAME) {
		if (u->len)
			fprintf(out, "%.*s\n", (int)u->len, u->p);
		else
			fprintf(out, " uname was not recorded in this file\n");
	}
	if (v->len)
		fprintf(out, "%.*s\n", (int)v->len, v->p);
	else
		fprintf(out, " version was not recorded in this file\n");
	return 0;
}

/* -f: the function list libtraceevent makes of the file's kallsyms. */
static int print_funcs(struct pk_tracedat *td, FILE *out)
{
	const struct td_blob *k = pk__td_tracedat_blob(td, PK_TD_KALLSYMS);
	struct pk_ksyms syms = { 0 };
	int e = k && k->len ? pk__ksyms_parse(&syms, k->p, k->len) : 0;

	/* libtraceevent's list: equal addresses in reverse file order */
	for (size_t i = 0, a = 0, b = 0; !e && i < syms.n; i++) {
		if (!i || i > b) {
			for (a = b = i; b + 1 < syms.n &&
			     syms.v[b + 1].addr == syms.v[a].addr; b++)
				;
		}
		const struct pk_ksym *s = &syms.v[a + b - i];
		fprintf(out, "%016llx %s", (unsigned long long)s->addr,
			s->name);
		if (s->mod)
			fprintf(out, " [%s]\n", s->name + s->mod);
		else
			fputc('\n', out);
	}
	pk__ksyms_fini(&syms);
	return e;
}

long pk_tracedat_report_info(struct pk_tracedat *td, FILE *out, int what,
			     const char *path)
{
	int e;

	switch (what) {
	case PK_REPORT_INFO_PRINTK: e = print_printk(td, out); break;
	case PK_REPORT_INFO_EVENTS: e = print_events(td, out); break;
	case PK_REPORT_INFO_STAT: e = print_stat(td, out); break;
	case PK_REPORT_INFO_UNAME:
	case PK_REPORT_INFO_VERSION: e = print_item(td, out, what); break;
	case PK_REPORT_INFO_ENDIAN:
		fprintf(out, "file is %s endian and host is %s endian\n",
			td->big ? "big" : "little",
			__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? "big" :
			"little");
		e = 0;
		break;
	case PK_REPORT_INFO_FUNCS: e = print_funcs(td, out); break;
	case PK_REPORT_INFO_CPUS:
	case PK_REPORT_INFO_FIRST:
	case PK_REPORT_INFO_LAST:
		e = print_cpus(td, out, what, path ? path : "trace.dat");
		break;
	default: return -EINVAL;
	}
	return e < 0 ? e : (ferror(out) ? -EIO : 0);
}
