// SPDX-License-Identifier: MIT
/*
 * The report's sort keys beyond comm, pid, dso and sym (perf report's
 * cpu, socket, period, weight, local_weight, srcfile, srcline, trace): a
 * value per entry, how entries compare by it, its column's header, width
 * and text, as perf report --stdio prints them.
 */
#include <errno.h>
#include <regex.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"
#include <perfkit/perfdata.h>
#include <perfkit/tracefmt.h>
#include <linux/perf_event.h>

struct key_desc {
	const char *name;
	unsigned key;
	const char *header;
	int width;        /* the column's least width */
	bool string;      /* the value is a string (else a number) */
};

static const struct key_desc descs[] = {
	{ "comm", RK_COMM, "Command", 7, true },
	{ "pid", RK_PID, "Pid:Command", 11, false },
	{ "dso", RK_DSO, "Shared Object", 13, true },
	{ "sym", RK_SYM, "Symbol", 6, true },
	{ "symbol", RK_SYM, "Symbol", 6, true },
	{ "cpu", RK_CPU, "CPU", 3, false },
	{ "socket", RK_SOCKET, "Socket", 6, false },
	{ "period", RK_PERIOD, "Period", 12, false },
	{ "weight", RK_WEIGHT, "Weight", 12, false },
	{ "local_weight", RK_LWEIGHT, "Local Weight", 12, false },
	{ "srcfile", RK_SRCFILE, "Source File", 11, true },
	{ "srcline", RK_SRCLINE, "Source:Line", 11, true },
	{ "trace", RK_TRACE, "Trace output", 12, true },
	{ "parent", RK_PARENT, "Parent symbol", 13, true },
	{ "symbol_size", RK_SYMSIZE, "Symbol size", 11, false },
	/* branch mode (-b) */
	{ "dso_from", RK_DSO_FROM, "Source Shared Object", 20, true },
	{ "dso_to", RK_DSO_TO, "Target Shared Object", 20, true },
	{ "symbol_from", RK_SYM_FROM, "Source Symbol", 13, true },
	{ "symbol_to", RK_SYM_TO, "Target Symbol", 13, true },
	{ "cycles", RK_CYCLES, "Basic Block Cycles", 18, false },
	{ "mispredict", RK_MISPRED, "Branch Mispredicted", 19, false },
	{ "in_tx", RK_IN_TX, "Branch in transaction", 21, false },
	{ "abort", RK_ABORT, "Transaction abort", 17, false },
	/* memory mode (--mem-mode): perf's fixed widths */
	{ "mem", RK_MEM, "Memory access", 24, false },
	{ "snoop", RK_SNOOP, "Snoop", 12, false },
	{ "tlb", RK_TLB, "TLB access", 22, false },
	{ "locked", RK_LOCKED, "Locked", 6, false },
	{ "blocked", RK_BLOCKED, "Blocked", 10, false },
	{ "symbol_daddr", RK_DADDR_SYM, "Data Symbol", 11, false },
	{ "dso_daddr", RK_DADDR_DSO, "Data Object", 11, false },
	{ "local_ins_lat", RK_INS_LAT, "Local INSTR Latency", 19, false },
};

const struct rp_key_ops *pk__rp_key_family(unsigned key)
{
	if (key & RK_BRANCH)
		return &pk__rp_branch_keys;
	if (key & RK_MEMORY)
		return &pk__rp_mem_keys;
	return NULL;
}

static const struct key_desc *desc(unsigned key)
{
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		if (descs[i].key == key)
			return &descs[i];
	return NULL;
}

/* The sort key or output field named by LEN bytes at P, or 0. */
static uint32_t field_of(const char *p, size_t len, bool hpp)
{
	static const struct { const char *name; uint32_t f; } hpps[] = {
		{ "overhead", RF_OVERHEAD }, { "overhead_sys", RF_SYS },
		{ "overhead_us", RF_US }, { "overhead_children", RF_CHILDREN },
		{ "sample", RF_SAMPLE }, { "period", RF_PERIOD },
	};

	for (size_t i = 0; hpp && i < sizeof(hpps) / sizeof(hpps[0]); i++)
		if (strlen(hpps[i].name) == len && !strncmp(p, hpps[i].name, len))
			return hpps[i].f;
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++)
		if (strlen(descs[i].name) == len && !strncmp(p, descs[i].name, len))
			return descs[i].key;
	return 0;
}

/* The fields of the comma-separated LIST into V (at most MAX, repeats
 * once): the count, or -EINVAL. */
static int field_list(const char *list, bool hpp, uint32_t *v, unsigned max)
{
	unsigned n = 0, i;

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		uint32_t f = field_of(p, len, hpp);

		/* POWER's pipeline stage: perf drops it elsewhere */
		if (len == 17 && !strncmp(p, "local_p_stage_cyc", len)) {
			p += len + (p[len] == ',');
			continue;
		}
		if (!f)
			return -EINVAL;
		for (i = 0; i < n && v[i] != f; i++)
			;
		/* perf adds an IPC column for a second sym: not matched */
		if (i < n && f == RK_SYM)
			return -EINVAL;
		if (i == n) {
			if (n == max)
				return -EINVAL;
			v[n++] = f;
		}
		p += len + (p[len] == ',');
	}
	return (int)n;
}

static bool in_list(const uint32_t *v, unsigned n, uint32_t f)
{
	for (unsigned i = 0; i < n; i++)
		if (v[i] == f)
			return true;
	return false;
}

/* perf's -s and -F: the sort keys are SORT's, else FIELDS' keys; with
 * FIELDS, entries sort by SORT's keys, then by the fields. */
int pk__rp_parse_sort(struct pk_report *r, const char *sort,
		      const char *fields)
{
	uint32_t v[RP_MAX_FIELDS];
	int n = 0;

	if (fields && (n = field_list(fields, true, r->fields,
				      RP_MAX_FIELDS)) <= 0)
		return -EINVAL;
	r->nfields = (unsigned)n;
	if (sort || !fields) {
		n = field_list(sort ? sort : "comm,dso,sym", false, v,
			       RP_MAX_KEYS);
		if (n < 0 || (n == 0 && !fields))
			return -EINVAL;
	} else {
		n = 0;
		for (unsigned i = 0; i < r->nfields; i++)
			if (r->fields[i] < RF_OVERHEAD)
				v[n++] = r->fields[i];
	}
	/* entries sort by -s's keys, then -F's fields */
	for (int i = 0; sort && fields && i < n; i++)
		r->order[r->norder++] = v[i];
	/* -F's keys join -s's */
	for (unsigned i = 0; sort && i < r->nfields; i++)
		if (r->fields[i] < RF_OVERHEAD && !in_list(v, (unsigned)n,
							    r->fields[i])) {
			if (n == RP_MAX_KEYS)
				return -EINVAL;
			v[n++] = r->fields[i];
		}
	for (int i = 0; i < n; i++) {
		r->keys[r->nkeys++] = v[i];
		r->keymask |= v[i];
	}
	/* perf groups symbol_size's entries another way without sym */
	if ((r->keymask & RK_SYMSIZE) && (!(r->keymask & RK_SYM) || fields))
		return -EINVAL;
	if (!fields)
		return r->nkeys ? 0 : -EINVAL;
	for (unsigned i = 0; i < r->nfields; i++)
		if (!in_list(r->order, r->norder, r->fields[i]))
			r->order[r->norder++] = r->fields[i];
	return 0;
}

const char *pk__rp_key_header(unsigned key)
{
	const struct key_desc *d = desc(key);

	return d ? d->header : "";
}

int pk__rp_key_min_width(unsigned key)
{
	const struct key_desc *d = desc(key);

	return d ? d->width : 0;
}

/* The string value of an extended key, or NULL for a number. */
static const char *key_str(unsigned key, const struct rp_entry *e)
{
	switch (key) {
	case RK_SRCFILE: return e->srcfile;
	case RK_SRCLINE: return e->srcline;
	case RK_TRACE: return e->trace;
	case RK_PARENT: return e->parent;
	default: return NULL;
	}
}

/* The number an extended key groups entries by. */
static int64_t key_num(unsigned key, const struct rp_entry *e)
{
	switch (key) {
	case RK_CPU: return e->cpu;
	case RK_SOCKET: return e->socket;
	case RK_WEIGHT: case RK_LWEIGHT: return (int64_t)e->weight;
	case RK_SYMSIZE: return (int64_t)e->symsize;
	default: return 0; /* period: perf makes it one value */
	}
}

bool pk__rp_key_same(const struct pk_report *r, unsigned key,
		     const struct rp_entry *a, const struct rp_entry *b)
{
	const char *sa = key_str(key, a), *sb = key_str(key, b);

	if (pk__rp_key_family(key))
		return pk__rp_key_family(key)->same(r, key, a, b);

	if (sa || sb)
		return sa == sb;
	return key_num(key, a) == key_num(key, b);
}

uint64_t pk__rp_key_hash(const struct pk_report *r, unsigned key,
			 const struct rp_entry *e, uint64_t h)
{
	const char *s = key_str(key, e);

	if (pk__rp_key_family(key))
		return pk__rp_key_family(key)->hash(r, key, e, h);

	return pk__rp_mix(h, s ? (uintptr_t)s : (uint64_t)key_num(key, e));
}

/* Negative when A goes first: perf's order of equal entries (cpu and
 * socket ascending, weights descending, strings ascending). */
int pk__rp_key_cmp(const struct pk_report *r, unsigned key,
		   const struct rp_entry *a, const struct rp_entry *b)
{
	const char *sa = key_str(key, a), *sb = key_str(key, b);
	int64_t x = key_num(key, a), y = key_num(key, b), c;

	/* perf's output order of these: se_cmp(new, old) > 0 goes above */
	if (pk__rp_key_family(key)) {
		c = pk__rp_key_family(key)->cmp(r, key, a, b);
		return c > 0 ? -1 : c < 0;
	}

	/* perf's entries of no parent ("[other]") go after the others */
	if (key == RK_PARENT && (sa[0] == '[') != (sb[0] == '['))
		return sa[0] == '[' ? 1 : -1;
	if (desc(key)->string)
		return strcmp(sa ? sa : "", sb ? sb : "");
	if (key == RK_WEIGHT || key == RK_LWEIGHT)
		return x > y ? -1 : x < y;
	return x < y ? -1 : x > y;
}

/* The text of KEY's column for E into B. */
static const char *key_text(unsigned key, const struct rp_entry *e, char *b,
			    size_t len)
{
	const char *s = key_str(key, e);

	if (desc(key)->string)
		return s ? s : "";
	switch (key) {
	case RK_CPU: snprintf(b, len, "%*.*d", 3, 3, e->cpu); break;
	case RK_SOCKET: snprintf(b, len, "%*.*d", 6, 3, e->socket); break;
	case RK_PERIOD: snprintf(b, len, "%12" PRIu64, e->self); break;
	case RK_SYMSIZE:
		if (e->symsize)
			snprintf(b, len, "%11" PRIu64, e->symsize);
		else
			snprintf(b, len, "%11s", "unknown");
		break;
	case RK_WEIGHT: snprintf(b, len, "%" PRIu64, e->wsum); break;
	default:
		snprintf(b, len, "%" PRIu64, e->nr_self ?
			 e->wsum / e->nr_self : 0);
		break;
	}
	return b;
}

int pk__rp_key_width(const struct pk_report *r, unsigned key,
		     const struct rp_entry *e)
{
	const char *s = key_str(key, e);

	if (pk__rp_key_family(key))
		return pk__rp_key_family(key)->width(r, key, e);

	/* perf's number columns keep their header's width */
	return desc(key)->string && s ? (int)strlen(s) : 0;
}

void pk__rp_key_print(struct pk_report *r, unsigned key,
		      const struct rp_entry *e, FILE *f, int w, bool last)
{
	char b[64];
	const char *t;

	if (pk__rp_key_family(key)) {
		pk__rp_key_family(key)->print(r, key, e, f, w, last);
		return;
	}
	t = key_text(key, e, b, sizeof(b));

	/* perf cuts the trace text to the column (see trace_width) */
	if (key == RK_TRACE && last)
		fprintf(f, "%.*s", w, t);
	else if (key == RK_TRACE)
		fprintf(f, "%-*.*s", w, w, t);
	/* perf pads strings but the last column's; numbers always */
	else if (desc(key)->string && last && key != RK_PARENT)
		fputs(t, f);
	else
		fprintf(f, "%-*s", w, t);
}

int pk__rp_keys_init(struct pk_report *r)
{
	const char *re = r->o.parent ? r->o.parent : "^sys_|^do_page_fault";

	r->o.parent = NULL;
	if (!(r->keymask & RK_PARENT))
		return 0;
	r->parent_re = pk__zalloc(sizeof(regex_t));
	if (!r->parent_re)
		return -ENOMEM;
	if (regcomp(r->parent_re, re, REG_EXTENDED | REG_NOSUB)) {
		pk__free(r->parent_re);
		r->parent_re = NULL;
		return -EINVAL;
	}
	return 0;
}

void pk__rp_keys_fini(struct pk_report *r)
{
	if (r->parent_re)
		regfree(r->parent_re);
	pk__free(r->parent_re);
	pk_tracefmt_free(r->tf);
	pk__free(r->sockets);
	for (unsigned i = 0; i < r->ngroups; i++)
		pk__free(r->groups[i].name);
	pk__free(r->groups);
}

/* perf report's srcline of the sample's address: the DWARF line's
 * "file:line" as perf script's, else the symbol and offset in decimal. */
static void srcline_of(struct pk_report *r, const struct pk_session_sample *ss,
		       char *b, size_t len)
{
	const struct pk_sample *sm = ss->sample;
	uint16_t mode = ss->rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct pk_location l;
	int found = pk_session_resolve(r->sess, sm->pid, sm->ip, mode, &l);
	size_t n;

	/* a line without a file (a PLT entry's ":0") is none for perf */
	if (mode != PERF_RECORD_MISC_KERNEL &&
	    !pk_session_srcline(r->sess, sm->pid, sm->ip, mode, b, len) &&
	    !((n = strlen(b)) && b[n - 1] == ']') && b[0] != ':')
		return;
	if (!found && l.sym)
		snprintf(b, len, "%s+%" PRIu64, l.sym, l.symoff);
	else if (found)
		snprintf(b, len, "??:0");
}

/* perf's srcfile: the file part of the srcline, "" where it has none. */
static const char *srcfile_of(struct pk_report *r, const char *line)
{
	const char *c = strrchr(line, ':');
	char b[512];

	if (!c || !strchr(line, '.') || strchr(line, '+') || strchr(line, '['))
		return pk__rp_intern(r, "", NULL);
	snprintf(b, sizeof(b), "%.*s", (int)(c - line), line);
	return pk__rp_intern(r, b, NULL);
}

/* The sample's tracepoint text as perf's trace key shows it. */
static const char *trace_of(struct pk_report *r,
			    const struct pk_session_sample *ss)
{
	const struct pk_sample *sm = ss->sample;
	const struct perf_event_attr *a =
		pk_perfdata_attr(r->pd, (unsigned)ss->attr);
	const void *td;
	const char *t = NULL;
	size_t size, len = 0;

	if (a->type != PERF_TYPE_TRACEPOINT || !(sm->sample_type & PERF_SAMPLE_RAW))
		return pk__rp_intern(r, "N/A", NULL);
	if (!r->tf && !r->tf_tried) {
		r->tf_tried = true;
		if (!pk_session_tracing_data(r->sess, &td, &size))
			r->tf = pk_tracefmt_new(td, size);
	}
	if (r->tf)
		t = pk_tracefmt_print(r->tf, a->config, (int)sm->cpu,
				      sm->raw.data, sm->raw.size, &len);
	if (!t)
		return pk__rp_intern(r, "N/A", NULL);
	{
		char *c = pk__malloc(len + 1);
		const char *s;

		if (!c)
			return NULL;
		memcpy(c, t, len);
		c[len] = 0;
		s = pk__rp_intern(r, c, NULL);
		pk__free(c);
		return s;
	}
}

/* The first function of the sample's chain (r->chain, NCHAIN frames in
 * the cursor's order), from the sample up, that the parent regex
 * matches; "[other]" for none. */
static const char *parent_of(struct pk_report *r, uint32_t nchain)
{
	for (uint32_t i = 0; i < nchain; i++) {
		const struct rp_sym *s =
			&r->sym[r->chain[i]];

		if (s->name && !regexec(r->parent_re, s->name, 0, NULL, 0))
			return pk__rp_intern(r, s->name, NULL);
	}
	return pk__rp_intern(r, "[other]", NULL);
}

int pk__rp_key_values(struct pk_report *r, const struct pk_session_sample *ss,
		      struct rp_entry *e, uint32_t nchain)
{
	const struct pk_sample *sm = ss->sample;
	char b[1024];

	e->cpu = (sm->sample_type & PERF_SAMPLE_CPU) ? (int32_t)sm->cpu : -1;
	if ((r->keymask & RK_SOCKET) || r->o.by_socket)
		e->socket = pk__rp_socket_of(r, e->cpu);
	if (sm->sample_type & PERF_SAMPLE_WEIGHT_STRUCT)
		e->weight = (uint32_t)sm->weight;
	else if (sm->sample_type & PERF_SAMPLE_WEIGHT)
		e->weight = sm->weight;
	if (r->keymask & (RK_SRCLINE | RK_SRCFILE)) {
		srcline_of(r, ss, b, sizeof(b));
		e->srcline = pk__rp_intern(r, b, NULL);
		e->srcfile = e->srcline ? srcfile_of(r, b) : NULL;
		if (!e->srcline || !e->srcfile)
			return -ENOMEM;
	}
	if ((r->keymask & RK_PARENT) && !(e->parent = parent_of(r, nchain)))
		return -ENOMEM;
	if (r->keymask & RK_TRACE) {
		e->trace = trace_of(r, ss);
		if (!e->trace)
			return -ENOMEM;
	}
	return 0;
}
