// SPDX-License-Identifier: MIT
/*
 * perf report's memory mode (--mem-mode): a sample counts its weight (1
 * when it has none) and its entry has the data address's location, the
 * data source and the instruction latency as keys: mem (the level),
 * snoop, tlb, locked, blocked (the data source's fields, compared alone:
 * the text is the first sample's, which may say more), symbol_daddr
 * (one entry per address), dso_daddr and local_ins_lat. Comparisons are
 * perf's se_cmp (LEFT the entry in the tree, RIGHT the new one), texts
 * perf_mem__*_scnprintf's (pk_mem_part), widths hists__calc_col_len's.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"
#include <perfkit/perfdata.h>
#include <perfkit/session.h>
#include <linux/perf_event.h>

/* The data source field KEY compares: its shift and width. */
static uint64_t field(unsigned key, uint64_t ds)
{
	switch (key) {
	case RK_MEM: return (ds >> 5) & 0x3fff;
	case RK_SNOOP: return (ds >> 19) & 0x1f;
	case RK_LOCKED: return (ds >> 24) & 0x3;
	case RK_TLB: return (ds >> 26) & 0x7f;
	default: return (ds >> 40) & 0x7;  /* blocked */
	}
}

int pk__rp_mem_values(struct pk_report *r, const struct pk_session_sample *ss,
		      struct rp_entry *t)
{
	const struct pk_sample *sm = ss->sample;
	uint16_t mode = ss->rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint16_t other = mode == PERF_RECORD_MISC_KERNEL ?
			 PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
	struct pk_location l, lo;
	uint16_t at = mode;

	t->daddr = (sm->sample_type & PERF_SAMPLE_ADDR) ? sm->addr : 0;
	t->data_src = (sm->sample_type & PERF_SAMPLE_DATA_SRC) ? sm->data_src :
		      0;
	t->ins_lat = (sm->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) ?
		     (uint16_t)(sm->weight >> 32) : 0;
	/* perf: the sample's cpumode, then the other one */
	if (pk_session_resolve(r->sess, sm->pid, t->daddr, mode, &l) &&
	    !pk_session_resolve(r->sess, sm->pid, t->daddr, other, &lo)) {
		at = other;
		l = lo;
	}
	t->dsym = pk__rp_sym_of(r, sm->pid, t->daddr, at);
	t->doff = l.sym ? l.symoff : 0;
	return t->dsym == UINT32_MAX ? -ENOMEM : 0;
}

static bool same(const struct pk_report *r, unsigned key,
		     const struct rp_entry *a, const struct rp_entry *b)
{
	switch (key) {
	case RK_DADDR_SYM: return a->daddr == b->daddr;
	case RK_DADDR_DSO: return r->sym[a->dsym].dso == r->sym[b->dsym].dso;
	case RK_INS_LAT: return a->ins_lat == b->ins_lat;
	default: return field(key, a->data_src) == field(key, b->data_src);
	}
}

static uint64_t hash(const struct pk_report *r, unsigned key,
			 const struct rp_entry *e, uint64_t h)
{
	switch (key) {
	case RK_DADDR_SYM: return pk__rp_mix(h, e->daddr);
	case RK_DADDR_DSO: return pk__rp_mix(h, (uintptr_t)r->sym[e->dsym].dso);
	case RK_INS_LAT: return pk__rp_mix(h, e->ins_lat);
	default: return pk__rp_mix(h, field(key, e->data_src));
	}
}

static int cmp_null(bool l, bool r)
{
	return !l && !r ? 0 : !l ? -1 : 1;
}

static int64_t cmp(const struct pk_report *r, unsigned key,
		       const struct rp_entry *old, const struct rp_entry *nw)
{
	const char *l = r->sym[old->dsym].dso, *n = r->sym[nw->dsym].dso;

	switch (key) {
	case RK_DADDR_SYM:
		return (int64_t)(nw->daddr - old->daddr);
	case RK_DADDR_DSO:
		if (!l || !n)
			return cmp_null(n, l);
		return strcmp(l, n);
	case RK_INS_LAT:
		return (int)old->ins_lat - (int)nw->ins_lat;
	default:
		return (int64_t)field(key, nw->data_src) -
		       (int64_t)field(key, old->data_src);
	}
}

static int width(const struct pk_report *r, unsigned key,
		     const struct rp_entry *e)
{
	const struct rp_sym *s = &r->sym[e->dsym];

	switch (key) {
	case RK_DADDR_SYM:
		return s->name ? (int)strlen(s->name) + 4 + 16 + 2 : 16 + 4 + 2;
	case RK_DADDR_DSO:
		return s->dso ? (int)strlen(s->dso) : 16;
	default:
		return 0;  /* perf's fixed widths: the keys' least */
	}
}

/* perf's text of the data address: "[l] name", "[l] object+0xoff" or the
 * address in 16 hex digits, cut to W. */
static void put_daddr(const struct rp_sym *s, const struct rp_entry *e,
		      FILE *f, int w, bool last)
{
	char b[512];
	int n;

	if (s->name && s->object)
		n = snprintf(b, sizeof(b), "[%c] %s+0x%" PRIx64, e->level,
			     s->name, e->doff);
	else if (s->name)
		n = snprintf(b, sizeof(b), "[%c] %.*s", e->level,
			     w > 4 ? w - 4 : 0, s->name);
	else
		n = snprintf(b, sizeof(b), "[%c] %-#.*" PRIx64, e->level, 16,
			     e->daddr);
	if (n > w)
		n = w;
	if (last)
		fprintf(f, "%.*s", n, b);
	else
		fprintf(f, "%-*.*s", w, n, b);
}

static void print(struct pk_report *r, unsigned key,
		      const struct rp_entry *e, FILE *f, int w, bool last)
{
	static const enum pk_mem_part parts[] = {
		[0] = PK_MEM_LVL, [1] = PK_MEM_SNOOP, [2] = PK_MEM_TLB,
		[3] = PK_MEM_LOCK, [4] = PK_MEM_BLK,
	};
	const struct rp_sym *s = &r->sym[e->dsym];
	char b[256];
	unsigned i;

	switch (key) {
	case RK_DADDR_SYM:
		put_daddr(s, e, f, w, last);
		return;
	case RK_DADDR_DSO:
		fprintf(f, "%-*s", w, pk__rp_dso_name(s));
		return;
	case RK_INS_LAT:
		fprintf(f, "%-*u", w, e->ins_lat);
		return;
	default:
		break;
	}
	i = key == RK_MEM ? 0 : key == RK_SNOOP ? 1 : key == RK_TLB ? 2 :
	    key == RK_LOCKED ? 3 : 4;
	pk_mem_part(e->data_src, parts[i], b, sizeof(b));
	/* perf cuts locked and blocked to the column, pads the others */
	if ((key == RK_LOCKED || key == RK_BLOCKED) && last)
		fprintf(f, "%.*s", w, b);
	else if (key == RK_LOCKED || key == RK_BLOCKED)
		fprintf(f, "%-*.*s", w, w, b);
	else
		fprintf(f, "%-*s", w, b);
}

const struct rp_key_ops pk__rp_mem_keys = {
	.same = same, .hash = hash, .cmp = cmp, .width = width,
	.print = print,
};
