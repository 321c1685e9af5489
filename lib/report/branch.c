// SPDX-License-Identifier: MIT
/*
 * perf report's branch mode (-b; by default for a file whose header lists
 * branch stacks): every branch of a sample's stack is an entry of period
 * 1, so the percentages are of the branches taken. The keys dso_from,
 * dso_to, symbol_from, symbol_to, cycles, mispredict, in_tx and abort
 * are the branch's; comm and pid the sample's; dso and sym the branch's
 * target (at the sample's level). Comparisons are perf's sort entries'
 * (se_cmp: LEFT the entry in the tree, RIGHT the new one), texts and
 * widths its snprintf and hists__calc_col_len.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"
#include <perfkit/perfdata.h>
#include <linux/perf_event.h>

/* The branch end KEY is about: its source or target location. */
static const struct rp_sym *end(const struct pk_report *r, unsigned key,
				const struct rp_entry *e)
{
	return &r->sym[key & (RK_DSO_FROM | RK_SYM_FROM) ? e->bfrom : e->bto];
}

static uint8_t flag_bits(unsigned key)
{
	switch (key) {
	case RK_MISPRED: return RP_BR_MISPRED | RP_BR_PREDICTED;
	case RK_IN_TX: return RP_BR_IN_TX;
	case RK_ABORT: return RP_BR_ABORT;
	default: return 0;
	}
}

static bool same(const struct pk_report *r, unsigned key,
		    const struct rp_entry *a, const struct rp_entry *b)
{
	const struct rp_sym *sa = end(r, key, a), *sb = end(r, key, b);

	switch (key) {
	case RK_DSO_FROM: case RK_DSO_TO:
		return sa->dso == sb->dso;
	case RK_SYM_FROM: case RK_SYM_TO:
		/* perf: symbols by start, unresolved ends by address */
		return !sa->name == !sb->name && sa->start == sb->start;
	case RK_CYCLES:
		return a->cycles == b->cycles;
	default:
		return !((a->bflags ^ b->bflags) & flag_bits(key));
	}
}

static uint64_t hash(const struct pk_report *r, unsigned key,
			const struct rp_entry *e, uint64_t h)
{
	const struct rp_sym *s = end(r, key, e);

	switch (key) {
	case RK_DSO_FROM: case RK_DSO_TO:
		return pk__rp_mix(h, (uintptr_t)s->dso);
	case RK_SYM_FROM: case RK_SYM_TO:
		return pk__rp_mix(h, s->start ^ !s->name);
	case RK_CYCLES:
		return pk__rp_mix(h, e->cycles);
	default:
		return pk__rp_mix(h, e->bflags & flag_bits(key));
	}
}

/* perf's cmp_null(L, R) of two maybe-absent things. */
static int cmp_null(bool l, bool r)
{
	return !l && !r ? 0 : !l ? -1 : 1;
}

static int64_t cmp(const struct pk_report *r, unsigned key,
		      const struct rp_entry *old, const struct rp_entry *nw)
{
	const struct rp_sym *l = end(r, key, old), *n = end(r, key, nw);
	uint8_t m = flag_bits(key);

	switch (key) {
	case RK_DSO_FROM: case RK_DSO_TO:
		if (!l->dso || !n->dso)
			return cmp_null(n->dso, l->dso);
		return strcmp(l->dso, n->dso);
	case RK_SYM_FROM: case RK_SYM_TO:
		if (!l->name && !n->name)
			return (int64_t)(n->start - l->start);
		if (!l->name || !n->name)
			return cmp_null(l->name, n->name);
		return (int64_t)(n->start - l->start);
	case RK_CYCLES:
		return (int)old->cycles - (int)nw->cycles;
	default:
		/* perf: 1 when they differ, whichever way */
		return (old->bflags & m) != (nw->bflags & m);
	}
}

static int width(const struct pk_report *r, unsigned key,
		    const struct rp_entry *e)
{
	const struct rp_sym *s = end(r, key, e);

	switch (key) {
	case RK_DSO_FROM: case RK_DSO_TO:
		/* perf counts the DSO of a resolved end, else 16 */
		return s->name && s->dso ? (int)strlen(s->dso) : 16;
	case RK_SYM_FROM: case RK_SYM_TO:
		return s->name ? (int)strlen(s->name) + 4 : 16 + 4 + 2;
	default:
		return 0;
	}
}

/* perf's text of a branch end: "[level] name" (cut to W), or the
 * address in its DSO in 16 hex digits. */
static void put_end(const struct rp_sym *s, FILE *f, int w, bool last)
{
	char b[64];
	int n;

	if (s->name) {
		n = fprintf(f, "[%c] %.*s", s->level, w > 4 ? w - 4 : 0,
			    s->name);
	} else {
		snprintf(b, sizeof(b), "%#.*" PRIx64, 16, s->addr);
		n = fprintf(f, "[%c] %-16s", s->level, b);
	}
	if (!last && n < w)
		fprintf(f, "%*s", w - n, "");
}

static void print(struct pk_report *r, unsigned key,
		     const struct rp_entry *e, FILE *f, int w, bool last)
{
	const struct rp_sym *s = end(r, key, e);

	switch (key) {
	case RK_DSO_FROM: case RK_DSO_TO:
		fprintf(f, "%-*s", w, pk__rp_dso_name(s));
		break;
	case RK_SYM_FROM: case RK_SYM_TO:
		put_end(s, f, w, last);
		break;
	case RK_CYCLES:
		if (e->cycles)
			fprintf(f, "%-*hd", w, (short)e->cycles);
		else
			fprintf(f, "%-*s", w, "-");
		break;
	case RK_MISPRED:
		/* perf keeps the text of the last entry that had one */
		if (e->bflags & RP_BR_PREDICTED)
			r->mispred_out = "N";
		else if (e->bflags & RP_BR_MISPRED)
			r->mispred_out = "Y";
		fprintf(f, "%-*.*s", w, w, r->mispred_out ? r->mispred_out :
			"N/A");
		break;
	case RK_IN_TX:
		fprintf(f, "%-*s", w, e->bflags & RP_BR_IN_TX ? "T" : ".");
		break;
	default:
		fprintf(f, "%-*s", w, e->bflags & RP_BR_ABORT ? "A" : ".");
		break;
	}
}

static uint8_t bflags_of(const struct perf_branch_entry *b)
{
	return (uint8_t)((b->mispred ? RP_BR_MISPRED : 0) |
			 (b->predicted ? RP_BR_PREDICTED : 0) |
			 (b->in_tx ? RP_BR_IN_TX : 0) |
			 (b->abort ? RP_BR_ABORT : 0));
}

int pk__rp_branch_add(struct pk_report *r, struct rp_hists *h,
		      const struct pk_session_sample *ss, struct rp_entry *tmpl)
{
	const struct pk_sample *sm = ss->sample;
	const struct perf_branch_entry *br = sm->branch.entries;
	uint16_t mode = ss->rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	/* perf weighs each with the first branch's cycles */
	uint64_t weight = sm->branch.nr && br[0].cycles ? br[0].cycles : 1;

	if (!(sm->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return 0;
	for (uint64_t i = 0; i < sm->branch.nr; i++) {
		struct rp_entry t = *tmpl, *e;

		t.bfrom = pk__rp_branch_sym(r, sm->pid, br[i].from, mode);
		t.bto = pk__rp_branch_sym(r, sm->pid, br[i].to, mode);
		if (t.bfrom == UINT32_MAX || t.bto == UINT32_MAX)
			return -ENOMEM;
		/* the dso and sym keys: the target, at the sample's level */
		t.sym = t.bto;
		t.addr = r->sym[t.bto].name ? r->sym[t.bto].addr : br[i].to;
		t.symsize = r->sym[t.bto].size;
		t.cycles = (uint16_t)br[i].cycles;
		t.bflags = bflags_of(&br[i]);
		t.weight = weight;
		e = pk__rp_entry_get(r, h, &t);
		if (!e)
			return -ENOMEM;
		e->wsum += weight;
		if (t.level == 'k')
			e->sys++;
		else
			e->us++;
		e->self++;
		e->acc++;
		e->nr_self++;
		e->nr_acc++;
		h->nr_samples++;
		h->total++;
		if (t.shown) {
			h->nr_shown++;
			h->total_shown++;
		}
	}
	return 0;
}

const struct rp_key_ops pk__rp_branch_keys = {
	.same = same, .hash = hash, .cmp = cmp, .width = width,
	.print = print,
};
