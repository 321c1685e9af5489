// SPDX-License-Identifier: MIT
/*
 * The report's aggregation: samples into hist entries by the sort keys,
 * self and children periods (perf report's hist_entry iterators).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"
#include "session/session.h"
#include <perfkit/perfdata.h>
#include <perfkit/unwind.h>
#include <linux/perf_event.h>

uint64_t pk__rp_mix(uint64_t a, uint64_t b)
{
	uint64_t h = (a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2)));

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

int pk__rp_grow(void **v, uint32_t *cap, uint32_t n, size_t size,
		uint32_t first)
{
	uint32_t c = *cap ? *cap * 2 : first;
	void *p;

	if (n < *cap)
		return 0;
	p = pk__realloc(*v, (size_t)c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* S's one copy in the report (NULL: out of memory). */
const char *pk__rp_intern(struct pk_report *r, const char *s, uint32_t *idx)
{
	uint64_t k = str_hash(s);

	for (;; k = pk__rp_mix(k, 1)) {
		bool added = false;
		uint64_t *v = pk__hash_put(&r->stridx, k, &added);

		if (!v)
			return NULL;
		if (!added) {
			if (!strcmp(r->str[*v], s)) {
				if (idx)
					*idx = (uint32_t)*v;
				return r->str[*v];
			}
			continue;
		}
		if (pk__rp_grow((void **)&r->str, &r->capstr, r->nstr,
				sizeof(*r->str), 256))
			return NULL;
		r->str[r->nstr] = pk__strdup(s);
		if (!r->str[r->nstr])
			return NULL;
		*v = r->nstr;
		if (idx)
			*idx = r->nstr;
		return r->str[r->nstr++];
	}
}

/* perf makes the DSOs of the file's build-id table first, in its order
 * (the kernel's before), then the others as MMAP records name them: its
 * order of equal callchain branches follows (the DSOs' addresses). */
static int dsos_of_build_ids(struct pk_report *r)
{
	unsigned n = pk_perfdata_nr_build_ids(r->pd);
	uint32_t idx;

	if (!pk__rp_dso_short(r, "[kernel.kallsyms]", &idx))
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		struct pk_build_id b;

		if (!pk_perfdata_build_id(r->pd, i, &b) && b.filename &&
		    !pk__rp_dso_short(r, b.filename, &idx))
			return -ENOMEM;
	}
	return 0;
}

struct pk_report *pk_report_new(struct pk_session *s, struct pk_perfdata *pd,
				const struct pk_report_new_opts *opts)
{
	struct pk_report *r;

	if (!PK_OPTS_VALID(opts, pk_report_new_opts) || !s || !pd)
		return pk__ptr_or_errno(EINVAL, NULL);
	r = pk__zalloc(sizeof(*r));
	if (!r)
		return NULL;
	r->sess = s;
	r->pd = pd;
	if (opts)
		memcpy(&r->o, opts, opts->sz < sizeof(r->o) ? opts->sz :
		       sizeof(r->o));
	if (!r->o.max_stack)
		r->o.max_stack = 127;
	r->nnode = 1; /* node 0: "none" */
	/* perf report appends ipc_null to a -s list that says "symbol"
	 * (ipc_lbr in branch mode: not matched yet) */
	if (r->o.sort && strstr(r->o.sort, "symbol")) {
		if (r->o.branch) {
			pk_report_free(r);
			return pk__ptr_or_errno(EINVAL, NULL);
		}
		r->ipc = true;
	}
	/* the memo's verdicts hold for samples alike but their CPU's */
	if (r->o.hide_unresolved || r->o.by_socket)
		r->memo_off = true;
	/* branch mode: perf's keys, no memo (an entry per branch) */
	if (r->o.branch) {
		if (!r->o.sort && !r->o.fields)
			r->o.sort = "comm,dso_from,symbol_from,symbol_to,cycles";
		r->memo_off = true;
	}
	if (r->o.mem) {
		static const char dflt[] = "local_weight,mem,sym,dso,"
			"symbol_daddr,dso_daddr,snoop,tlb,locked,blocked,"
			"local_ins_lat,local_p_stage_cyc";

		r->sort_str = pk__rp_intern(r, r->o.sort ? r->o.sort : dflt,
					    NULL);
		if (!r->o.sort && !r->o.fields)
			r->o.sort = dflt;
		r->memo_off = true;
	}
	if (pk__rp_parse_sort(r, r->o.sort, r->o.fields) || pk__rp_keys_init(r) ||
	    (!r->o.branch && (r->keymask & RK_BRANCH)) ||
	    (!r->o.mem && (r->keymask & RK_MEMORY)) ||
	    pk__rp_filters_init(r)) {
		pk_report_free(r);
		return pk__ptr_or_errno(EINVAL, NULL);
	}
	r->o.sort = r->o.fields = NULL;
	/* ipc_null: one more sort key, the symbol (by address) */
	if (r->ipc) {
		if (r->nkeys == RP_MAX_KEYS) {
			pk_report_free(r);
			return pk__ptr_or_errno(EINVAL, NULL);
		}
		r->keys[r->nkeys++] = RF_IPC;
		r->keymask |= RK_SYM;
	}
	/* perf compares these flags by "differ or not": its tree decides */
	if (r->keymask & (RK_MISPRED | RK_IN_TX | RK_ABORT))
		r->intree = true;
	if (dsos_of_build_ids(r)) {
		pk_report_free(r);
		return pk__ptr_or_errno(ENOMEM, NULL);
	}
	return r;
}

void pk_report_free(struct pk_report *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->nh; i++) {
		pk__free(r->h[i].e);
		pk__free(r->h[i].t);
		pk__hash_fini(&r->h[i].idx);
	}
	for (uint32_t i = 0; i < r->nstr; i++)
		pk__free(r->str[i]);
	pk__free(r->str);
	pk__hash_fini(&r->stridx);
	pk__hash_fini(&r->deftid);
	pk__free(r->h);
	pk__free(r->sym);
	pk__hash_fini(&r->symidx);
	pk__free(r->node);
	pk__free(r->node_bias);
	pk__free(r->node_split);
	pk__hash_fini(&r->nodeidx);
	pk__free(r->chain);
	pk__free(r->chain_ip);
	pk__free(r->chain_src);
	pk__free(r->seen);
	pk_unwind_free(r->uw);
	pk__free(r->uips);
	pk__free(r->frames);
	pk__free(r->fcache);
	pk__free(r->inl_first);
	pk__rp_memo_fini(r);
	pk__rp_filters_fini(r);
	pk__rp_keys_fini(r);
	pk__free(r);
}

static uint64_t entry_key(const struct pk_report *r, const struct rp_entry *e);

/* Entry E (of H, renamed) under its new key in H's index; an entry
 * already there with those keys merges into E (perf's collapse: E, named
 * ":TID" when perf's tree placed it, comes first). 0 or -ENOMEM. */
static int rekey(struct pk_report *r, struct rp_hists *h, struct rp_entry *e)
{
	uint32_t at = (uint32_t)(e - h->e);

	for (uint64_t k = entry_key(r, e);; k = pk__rp_mix(k, 7)) {
		bool added = false;
		uint64_t *v = pk__hash_put(&h->idx, k, &added);
		struct rp_entry *o;

		if (!v)
			return -ENOMEM;
		if (added || *v == at + 1) {
			*v = at + 1;
			return 0;
		}
		o = &h->e[*v - 1];
		if (o->gone || !pk__rp_same(r, o, e))
			continue;
		*v = at + 1;
		return pk__rp_merge(r, e, o);
	}
}

/*
 * perf names a thread it knows only from samples ":TID" and, at its
 * first COMM, renames that name in place (comm__override): the entries
 * it made show the new name, and meet those of that name.
 */
static int rename_default(struct pk_report *r, uint32_t tid, const char *comm)
{
	char buf[32];
	const char *from, *to;
	uint32_t idx;
	bool any = false;
	int err = 0;

	snprintf(buf, sizeof(buf), ":%d", (int)tid);
	from = pk__rp_intern(r, buf, &idx);
	to = pk__rp_intern(r, comm, NULL);
	if (!from || !to)
		return -ENOMEM;
	for (unsigned a = 0; a < r->nh && !err; a++) {
		struct rp_hists *h = &r->h[a];

		for (uint32_t i = 0; i < h->n && !err; i++) {
			struct rp_entry *e = &h->e[i];

			if (e->comm != from || e->gone)
				continue;
			e->comm = to;
			any = true;
			/* perf's tree holds it where ":TID" went: settle's
			 * collapse meets the others as perf's */
			if (!r->intree)
				err = rekey(r, h, e);
		}
	}
	if (any)
		pk__rp_memo_reset(r);
	return err;
}

const char *pk__rp_thread_comm(const struct pk_report *r,
			       const struct rp_entry *e)
{
	char buf[32];
	const char *c;

	/* still ":TID": its thread was never named (or made anew by a
	 * FORK: perf's entry holds the old one) */
	snprintf(buf, sizeof(buf), ":%d", (int)e->tid);
	if (e->guest || !strcmp(e->comm, buf))
		return e->comm;
	c = pk_session_comm(r->sess, (uint32_t)e->tid);
	return c ? c : e->comm;
}

/* Threads named by default, and what becomes of their names. */
static int note_comm(struct pk_report *r, const struct pk_record *rec)
{
	const uint32_t *w = (const uint32_t *)rec->hdr;
	uint64_t *v;
	uint32_t tid;

	if (rec->type == PERF_RECORD_FORK && rec->size >= 24)
		tid = w[4];     /* the child: a thread perf makes anew */
	else if (rec->type == PERF_RECORD_COMM && rec->size > 16)
		tid = w[3];
	else
		return 0;
	v = pk__hash_get(&r->deftid, (uint64_t)tid + 1);
	if (!v || !*v)
		return 0;
	*v = 0;
	/* (the session has not seen this COMM yet) */
	if (rec->type == PERF_RECORD_COMM && !pk_session_comm(r->sess, tid) &&
	    memchr(w + 4, 0, rec->size - 16))
		return rename_default(r, tid, (const char *)(w + 4));
	return 0;
}

int pk_report_record(struct pk_report *r, const struct pk_record *rec)
{
	const char *b = (const char *)rec->hdr;
	/* the file name's offset in MMAP and MMAP2 records */
	size_t off = rec->type == PERF_RECORD_MMAP ? 40 :
		     rec->type == PERF_RECORD_MMAP2 ? 72 : 0;
	uint32_t idx;

	if (rec->type == PERF_RECORD_LOST_SAMPLES && rec->size >= 16)
		r->lost += ((const uint64_t *)b)[1];
	if (r->deftid.n && note_comm(r, rec))
		return -ENOMEM;
	if (!off || rec->size <= off || !memchr(b + off, 0, rec->size - off))
		return 0;
	return pk__rp_dso_short(r, b + off, &idx) ? 0 : -ENOMEM;
}

struct rp_hists *pk__rp_hists_of(struct pk_report *r, int attr)
{
	if (attr < 0)
		return NULL;
	if ((unsigned)attr >= r->nh) {
		unsigned n = (unsigned)attr + 4;
		struct rp_hists *h = pk__realloc(r->h, n * sizeof(*h));

		if (!h)
			return NULL;
		memset(h + r->nh, 0, (n - r->nh) * sizeof(*h));
		r->h = h;
		r->nh = n;
	}
	return &r->h[attr];
}

/* Whether neither A nor B has a symbol. */
static bool unresolved(const struct pk_report *r, const struct rp_entry *a,
		       const struct rp_entry *b)
{
	return !r->sym[a->sym].name && !r->sym[b->sym].name;
}

/* Whether A and B are one entry under the sort keys. */
bool pk__rp_same(const struct pk_report *r, const struct rp_entry *a,
		 const struct rp_entry *b)
{
	const struct rp_sym *sa = &r->sym[a->sym], *sb = &r->sym[b->sym];

	if ((r->keymask & RK_COMM) && a->comm != b->comm)
		return false;
	if ((r->keymask & RK_PID) && (a->tid != b->tid || a->guest != b->guest))
		return false;
	if (sa->dso != sb->dso && ((r->keymask & RK_DSO) ||
				   ((r->keymask & RK_SYM) && !unresolved(r, a, b))))
		return false;
	for (unsigned k = 0; k < r->nkeys; k++)
		if (r->keys[k] > RK_SYM && r->keys[k] != RF_IPC &&
		    !pk__rp_key_same(r, r->keys[k], a, b))
			return false;
	if (!(r->keymask & RK_SYM) || a->sym == b->sym)
		return true;
	/* perf compares symbols by their start in DSOs of one name (two
	 * copies of a program are one), inlined functions by themselves */
	if (sa->name && sb->name)
		return !sa->inlined && !sb->inlined && sa->start == sb->start;
	/* perf: unresolved addresses are one entry per address (in the DSO
	 * when the DSO is a key: else one across DSOs, perf's sym key
	 * comparing two unresolved entries by address alone) */
	return unresolved(r, a, b) && a->addr == b->addr;
}

static uint64_t entry_key(const struct pk_report *r, const struct rp_entry *e)
{
	uint64_t k = 0;

	if (r->keymask & RK_COMM)
		k = pk__rp_mix(k, (uintptr_t)e->comm);
	if (r->keymask & RK_PID)
		k = pk__rp_mix(k, (uint32_t)e->tid ^ (uint64_t)e->guest << 32);
	if ((r->keymask & RK_DSO) ||
	    ((r->keymask & RK_SYM) && r->sym[e->sym].name))
		k = pk__rp_mix(k, (uintptr_t)r->sym[e->sym].dso);
	if ((r->keymask & RK_SYM) && r->sym[e->sym].name)
		k = pk__rp_mix(k, r->sym[e->sym].inlined ? e->sym :
			       r->sym[e->sym].start);
	else if (r->keymask & RK_SYM)
		k = pk__rp_mix(k, e->addr);
	for (unsigned i = 0; i < r->nkeys; i++)
		if (r->keys[i] > RK_SYM && r->keys[i] != RF_IPC)
			k = pk__rp_key_hash(r, r->keys[i], e, k);
	return k;
}

const struct rp_entry *pk__rp_entry_find(const struct pk_report *r,
					 const struct rp_hists *h,
					 const struct rp_entry *tmpl)
{
	for (uint64_t k = entry_key(r, tmpl);; k = pk__rp_mix(k, 7)) {
		const uint64_t *v = pk__hash_get(&h->idx, k);

		if (!v)
			return NULL;
		if (pk__rp_same(r, &h->e[*v - 1], tmpl))
			return &h->e[*v - 1];
	}
}

/* The entry like TMPL in H, added (zero periods) when new; NULL: ENOMEM. */
struct rp_entry *pk__rp_entry_get(struct pk_report *r, struct rp_hists *h,
				  const struct rp_entry *tmpl)
{
	if (r->intree)
		return pk__rp_intree_get(r, h, tmpl);
	for (uint64_t k = entry_key(r, tmpl);; k = pk__rp_mix(k, 7)) {
		bool added = false;
		uint64_t *v = pk__hash_put(&h->idx, k, &added);

		if (!v)
			return NULL;
		if (!added) {
			if (pk__rp_same(r, &h->e[*v - 1], tmpl))
				return &h->e[*v - 1];
			continue;
		}
		if (pk__rp_grow((void **)&h->e, &h->cap, h->n, sizeof(*h->e),
				64))
			return NULL;
		h->e[h->n] = *tmpl;
		*v = ++h->n;
		return &h->e[h->n - 1];
	}
}

struct rp_entry *pk__rp_entry_push(struct pk_report *r, struct rp_hists *h,
				   const struct rp_entry *tmpl)
{
	if (pk__rp_grow((void **)&h->e, &h->cap, h->n, sizeof(*h->e), 64))
		return NULL;
	h->e[h->n] = *tmpl;
	for (uint64_t k = entry_key(r, tmpl);; k = pk__rp_mix(k, 7)) {
		bool added = false;
		uint64_t *v = pk__hash_put(&h->idx, k, &added);

		if (!v)
			return NULL;
		if (added)
			*v = h->n + 1;
		/* a twin: the hash keeps the first */
		if (added || pk__rp_same(r, &h->e[*v - 1], tmpl))
			break;
	}
	return &h->e[h->n++];
}

/* Whether perf's comparison finds TMPL among the NSEEN entries the sample
 * went to already (its he_cache: before any search of its tree). */
static bool seen_like(const struct pk_report *r, const struct rp_hists *h,
		      const struct rp_entry *tmpl, uint32_t nseen)
{
	for (uint32_t j = 0; j < nseen; j++)
		if (!pk__rp_entries_cmp(r, tmpl, &h->e[r->seen[j]]))
			return true;
	return false;
}

/* perf's srcline of frame I of the chain (the entries --children makes
 * of frames): an inlined frame's "file:line"; else perf looks the
 * frame's absolute address up as if it were the DSO's (which finds no
 * line but in the kernel's identity map) and falls back to the symbol
 * and the address less the symbol's start, in decimal, or the DSO and
 * the address; "??:0" in no mapping. Their srcfile is "" (perf looks
 * the address up again, without the inlined frame's line). */
static int frame_srcline(struct pk_report *r, uint32_t i,
			 struct rp_entry *tmpl)
{
	const struct rp_sym *s = &r->sym[r->chain[i]];
	uint64_t ip = r->chain_ip[i];
	char b[1024];

	if (r->chain_src[i])
		tmpl->srcline = r->chain_src[i];
	else {
		if (!s->dso)
			snprintf(b, sizeof(b), "??:0");
		else if (s->name)
			snprintf(b, sizeof(b), "%s+%" PRIu64, s->name,
				 ip - s->start);
		else
			snprintf(b, sizeof(b), "%s[%" PRIx64 "]", s->dso, ip);
		tmpl->srcline = pk__rp_intern(r, b, NULL);
	}
	tmpl->srcfile = pk__rp_intern(r, "", NULL);
	return tmpl->srcline && tmpl->srcfile ? 0 : -ENOMEM;
}

/* Children: every distinct entry of the chain after the sample's own
 * gets the period, and the chain from its frame on. */
static int add_children(struct pk_report *r, struct rp_hists *h,
			struct rp_entry *tmpl, uint32_t nchain, uint64_t period)
{
	uint32_t nseen = 1;
	char level = tmpl->level;
	/* perf compares with a socket of 0 when it looks for the entries a
	 * sample already went to: other sockets go again, each frame */
	bool dedup = !(r->keymask & RK_SOCKET) || tmpl->socket == 0;

	for (uint32_t i = 0; i < nchain; i++) {
		struct rp_entry *e;
		uint32_t j;

		tmpl->sym = r->chain[i];
		/* perf's entries of frames: the frame's own address */
		tmpl->addr = r->sym[tmpl->sym].start;
		tmpl->symsize = r->sym[tmpl->sym].size;
		/* perf's entry of a frame in no mapping takes the level of
		 * the frame before */
		if (r->sym[tmpl->sym].dso)
			level = r->sym[tmpl->sym].level;
		tmpl->level = level;
		if ((r->keymask & (RK_SRCLINE | RK_SRCFILE)) &&
		    frame_srcline(r, i, tmpl))
			return -ENOMEM;
		/* perf's tree can miss an entry the sample went to (a twin
		 * would be made): the sample's own are compared first */
		if (r->intree && dedup && seen_like(r, h, tmpl, nseen))
			continue;
		e = pk__rp_entry_get(r, h, tmpl);
		if (!e)
			return -ENOMEM;
		for (j = 0; j < nseen && r->seen[j] != (uint32_t)(e - h->e); j++)
			;
		if (j < nseen && dedup)
			continue;
		r->seen[nseen++] = (uint32_t)(e - h->e);
		e->acc += period;
		e->nr_acc++;
		if (r->o.callchain &&
		    pk__rp_chain_append(r, e, r->chain + i, nchain - i, period))
			return -ENOMEM;
		pk__rp_memo_note(r, h, e, r->o.callchain ? r->last_end : 0);
	}
	return 0;
}

/* The sample's interned command name: the session's thread keeps its
 * name in place, so the last one seen is checked before the table. */
static const char *comm_of(struct pk_report *r, const char *comm,
			   const char *none)
{
	if (!comm)
		return pk__rp_intern(r, none, NULL);
	if (comm != r->last_comm || strcmp(comm, r->last_comm_str)) {
		r->last_comm_str = pk__rp_intern(r, comm, NULL);
		r->last_comm = r->last_comm_str ? comm : NULL;
	}
	return r->last_comm_str;
}

/* Branch mode: the sample (filtered by where it was taken, as perf's)
 * adds its branches. */
static int branch_sample(struct pk_report *r, struct rp_hists *h,
			 const struct pk_session_sample *ss,
			 struct rp_entry *tmpl)
{
	const struct pk_sample *sm = ss->sample;
	uint16_t mode = ss->rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	uint32_t at = UINT32_MAX;

	tmpl->level = pk__rp_level(mode);
	if (r->dsos.n || r->syms.n || r->o.hide_unresolved) {
		at = pk__rp_sym_of(r, sm->pid, sm->ip, mode);
		if (at == UINT32_MAX)
			return -ENOMEM;
		if (r->o.hide_unresolved && !r->sym[at].name)
			return 0;	/* perf's -U: the sample's own place */
	}
	tmpl->shown = at != UINT32_MAX ?
		pk__rp_shown(r, tmpl->comm, tmpl->pid, tmpl->tid, at) :
		pk__rp_shown_task(r, tmpl->comm, tmpl->pid, tmpl->tid);
	if (pk__rp_key_values(r, ss, tmpl, 0) < 0)
		return -ENOMEM;
	return pk__rp_branch_add(r, h, ss, tmpl);
}

int pk_report_add(struct pk_report *r, const struct pk_session_sample *ss)
{
	const struct pk_sample *sm = ss->sample;
	struct rp_hists *h = pk__rp_hists_of(r, ss->attr);
	uint64_t period = (sm->sample_type & PERF_SAMPLE_PERIOD) ? sm->period :
		pk_perfdata_attr(r->pd, (unsigned)ss->attr)->sample_period;
	struct rp_entry tmpl = { .pid = (int32_t)sm->pid,
				 .tid = (int32_t)sm->tid }, *e;
	char buf[32];
	uint16_t mode;
	int n = 0, err;

	if (!h)
		return -ENOMEM;
	r->nadded++;
	mode = ss->rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	/* a guest's thread: its own name (":TID" stays), not the host's */
	tmpl.guest = mode == PERF_RECORD_MISC_GUEST_KERNEL ||
		     mode == PERF_RECORD_MISC_GUEST_USER;
	/* perf's guest code thread serves all of the VM's (tid = pid) */
	if (tmpl.guest && pk__session_guest_code(r->sess))
		tmpl.tid = tmpl.pid;
	if (!ss->comm && !tmpl.guest) {
		bool added;
		uint64_t *v = pk__hash_put(&r->deftid, (uint64_t)sm->tid + 1,
					   &added);

		if (!v)
			return -ENOMEM;
		*v = 1;
	}
	if (!ss->comm)
		snprintf(buf, sizeof(buf), ":%d", (int)sm->tid);
	tmpl.comm = comm_of(r, ss->comm, buf);
	if (!tmpl.comm)
		return -ENOMEM;
	if (pk__rp_raw_replay(r, h, ss, tmpl.comm, period))
		return 0;
	if (r->o.branch)
		return branch_sample(r, h, ss, &tmpl);
	tmpl.sym = pk__rp_sym_of(r, sm->pid, sm->ip,
				 ss->rec->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	if (!tmpl.comm || tmpl.sym == UINT32_MAX)
		return -ENOMEM;
	if (r->o.hide_unresolved && !r->sym[tmpl.sym].name)
		return 0;	/* perf's -U: not counted anywhere */
	tmpl.addr = r->sym[tmpl.sym].addr;
	tmpl.symsize = r->sym[tmpl.sym].size;
	tmpl.level = pk__rp_level(ss->rec->misc &
				  PERF_RECORD_MISC_CPUMODE_MASK);
	if ((r->o.callchain || r->o.children || (r->keymask & RK_PARENT)) &&
	    (n = pk__rp_resolve_chain(r, ss)) < 0)
		return n;
	if ((err = pk__rp_key_values(r, ss, &tmpl, (uint32_t)n)) < 0)
		return err;
	/* memory mode: a sample weighs its weight */
	if (r->o.mem) {
		if ((err = pk__rp_mem_values(r, ss, &tmpl)) < 0)
			return err;
		period = tmpl.weight ? tmpl.weight : 1;
	}
	h->nr_samples++;
	h->total += period;
	/* perf: an entry keeps the filter verdict of the sample that made
	 * it (children entries too) */
	tmpl.shown = pk__rp_shown(r, tmpl.comm, tmpl.pid, tmpl.tid, tmpl.sym);
	if (tmpl.shown) {
		h->nr_shown++;
		h->total_shown += period;
	}
	if (pk__rp_memo_replay(r, h, (unsigned)ss->attr, &tmpl, (uint32_t)n,
			       period)) {
		pk__rp_raw_done(r);
		return 0;
	}
	e = pk__rp_entry_get(r, h, &tmpl);
	if (!e)
		return -ENOMEM;
	e->wsum += tmpl.weight;
	if (tmpl.level == 'k')
		e->sys += period;
	else
		e->us += period;
	e->self += period;
	e->acc += period;
	e->nr_self++;
	e->nr_acc++;
	if (r->o.callchain && pk__rp_chain_append(r, e, r->chain, (uint32_t)n,
						  period))
		return -ENOMEM;
	pk__rp_memo_note(r, h, e, r->o.callchain ? r->last_end : 0);
	if (r->o.children) {
		r->seen[0] = (uint32_t)(e - h->e);
		if (add_children(r, h, &tmpl, (uint32_t)n, period))
			return -ENOMEM;
	}
	pk__rp_memo_done(r);
	pk__rp_raw_done(r);
	return 0;
}
