// SPDX-License-Identifier: MIT
/*
 * The report's callchains: each sample's frames resolved into interned
 * locations in perf's cursor order (callee: the sampled function first;
 * caller: the outermost first), and the per-entry trees they go into.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"
#include "session/session.h"
#include <perfkit/perfdata.h>
#include <perfkit/unwind.h>

/* S's (location ID) key among callchain nodes: see rp_sym. 0 or -ENOMEM. */
static int node_key(struct pk_report *r, struct rp_sym *s, uint32_t id)
{
	uint32_t i;

	s->node_key = id;
	if (!s->inlined || !s->name)
		return 0;
	if (!pk__rp_intern(r, s->name, &i))
		return -ENOMEM;
	if (i >= r->capinl) {
		uint32_t n = i + 256, *v = pk__realloc(r->inl_first,
						       n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + r->capinl, 0, (n - r->capinl) * sizeof(*v));
		r->inl_first = v;
		r->capinl = n;
	}
	if (!r->inl_first[i])
		r->inl_first[i] = id + 1;
	s->node_key = r->inl_first[i] - 1;
	return 0;
}

static uint32_t sym_intern(struct pk_report *r, const struct rp_sym *s)
{
	/* an address in no mapping is one location whatever the level (the
	 * first one seen stays, as perf's entry) */
	char level = s->dso ? s->level : 0;
	uint64_t k = pk__rp_mix(pk__rp_mix((uintptr_t)s->dso, (uintptr_t)s->name),
				 s->start ^ ((uint64_t)level << 56));

	for (;; k = pk__rp_mix(k, 3)) {
		bool added = false;
		uint64_t *v = pk__hash_put(&r->symidx, k, &added);
		struct rp_sym *o;

		if (!v)
			return UINT32_MAX;
		if (!added) {
			o = &r->sym[*v];
			if (o->dso == s->dso && o->name == s->name &&
			    o->start == s->start &&
			    (!s->dso || o->level == s->level))
				return (uint32_t)*v;
			continue;
		}
		if (pk__rp_grow((void **)&r->sym, &r->capsym, r->nsym,
				sizeof(*r->sym), 1024))
			return UINT32_MAX;
		r->sym[r->nsym] = *s;
		if (node_key(r, &r->sym[r->nsym], r->nsym))
			return UINT32_MAX;
		*v = r->nsym;
		return r->nsym++;
	}
}

/* The length of a kernel module file's name without its ".ko" (and a
 * compression suffix), or 0 when B is no module's file. */
static size_t module_len(const char *b)
{
	static const char *const ext[] = { ".ko", ".ko.gz", ".ko.xz",
					   ".ko.zst" };
	size_t n = strlen(b);

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);

		if (n > e && !strcmp(b + n - e, ext[i]))
			return n - e;
	}
	return 0;
}

const char *pk__rp_dso_short(struct pk_report *r, const char *dso,
			     uint32_t *idx)
{
	const char *b = dso[0] == '/' ? strrchr(dso, '/') + 1 : dso;
	size_t n = dso[0] == '/' ? module_len(b) : 0;
	char mod[256];
	int tid;

	/* perf's short name of a JIT's map file (perf-PID.map) */
	if (sscanf(dso, "/tmp/perf-%d.map", &tid) == 1) {
		snprintf(mod, sizeof(mod), "[JIT] tid %d", tid);
		b = mod;
	}
	/* perf names a kernel module "[name]", '-' as '_' */
	else if (n && n < sizeof(mod) - 2) {
		mod[0] = '[';
		for (size_t i = 0; i < n; i++)
			mod[i + 1] = b[i] == '-' ? '_' : b[i];
		mod[n + 1] = ']';
		mod[n + 2] = 0;
		b = mod;
	}
	/* the string's index is the DSO's order of first sight */
	return pk__rp_intern(r, b, idx);
}

static void loc_sym(struct pk_report *r, const struct pk_location *l,
		    int found, uint64_t ip, uint16_t cpumode, struct rp_sym *s)
{
	memset(s, 0, sizeof(*s));
	s->level = pk__rp_level(cpumode);
	if (!found)
		s->dso = pk__rp_dso_short(r, l->dso, &s->dso_idx);
	s->name = l->sym;
	s->object = l->sym && l->object;
	s->start = l->sym ? l->dso_addr - l->symoff : ip;
	s->addr = l->dso_addr;
	/* perf's addresses in a module: from the module's start */
	if (!found && s->dso && s->dso[0] == '[' && cpumode ==
	    PERF_RECORD_MISC_KERNEL && strcmp(s->dso, "[kernel.kallsyms]")) {
		const struct map *m = pk__session_kernel_map(r->sess, ip);

		if (m && !l->sym)
			s->addr = ip - m->start + m->pgoff;
	}
}

uint32_t pk__rp_branch_sym(struct pk_report *r, uint32_t pid, uint64_t ip,
			   uint16_t mode)
{
	/* perf's cpumodes tried in the sample's machine: a guest's user
	 * space and kernel are its USER and KERNEL (levels '.' and 'k') */
	bool guest = mode == PERF_RECORD_MISC_GUEST_KERNEL ||
		     mode == PERF_RECORD_MISC_GUEST_USER;
	const uint16_t modes[] = {
		guest ? PERF_RECORD_MISC_GUEST_USER : PERF_RECORD_MISC_USER,
		guest ? PERF_RECORD_MISC_GUEST_KERNEL : PERF_RECORD_MISC_KERNEL
	};
	struct pk_location l;
	struct rp_sym s;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!pk_session_resolve(r->sess, pid, ip, modes[i], &l)) {
			loc_sym(r, &l, 0, ip, modes[i], &s);
			s.level = i ? 'k' : '.';
			return s.dso ? sym_intern(r, &s) : UINT32_MAX;
		}
	memset(&s, 0, sizeof(s));
	s.start = s.addr = ip;
	/* (the last tried: a guest's kernel where guests are known) */
	s.level = pk__session_has_guest(r->sess) ? 'g' : 'H';
	return sym_intern(r, &s);
}

/* (out of line: the cache's hits stay a short call) */
static __attribute__((noinline)) uint32_t
sym_of(struct pk_report *r, uint32_t pid, uint64_t ip, uint16_t cpumode)
{
	struct pk_location l;
	struct rp_sym s;
	int found = pk_session_resolve(r->sess, pid, ip, cpumode, &l);

	loc_sym(r, &l, found, ip, cpumode, &s);
	if (!found && !s.dso)
		return UINT32_MAX;
	if ((r->keymask & RK_SYMSIZE) && s.name)
		s.size = pk__session_sym_size(r->sess, pid, ip, cpumode);
	if (s.name && cpumode == PERF_RECORD_MISC_KERNEL)
		s.namelen = (uint32_t)pk__session_sym_namelen(r->sess, pid, ip,
							      cpumode);
	return sym_intern(r, &s);
}

/* The session's generation of PID's maps in CPUMODE, asked once per
 * sample (maps change only between samples). */
uint64_t pk__rp_generation(struct pk_report *r, uint32_t pid,
			  uint16_t cpumode)
{
	struct rp_gen *g = cpumode == PERF_RECORD_MISC_KERNEL ? &r->gen[0] :
			   cpumode == PERF_RECORD_MISC_USER ? &r->gen[1] : NULL;

	if (!g)
		return 0;
	if (g->sample != r->nadded || g->pid != pid) {
		g->gen = pk_session_generation(r->sess, pid, cpumode);
		g->pid = pid;
		g->sample = r->nadded;
	}
	return g->gen;
}

/*
 * The interned location of IP: callchains repeat the same addresses, so
 * a direct-mapped cache keyed by the address, the process (user space),
 * the cpumode and the generation of the maps answers most frames without
 * resolving and interning them again.
 */
uint32_t pk__rp_sym_of(struct pk_report *r, uint32_t pid, uint64_t ip,
		       uint16_t cpumode)
{
	uint64_t gen = pk__rp_generation(r, pid, cpumode);
	uint32_t p = cpumode == PERF_RECORD_MISC_KERNEL ? 0 : pid;
	struct rp_fcache *c;
	uint32_t id;

	if (!gen)
		return sym_of(r, pid, ip, cpumode);
	if (!r->fcache && !(r->fcache = pk__calloc(RP_FCACHE,
						   sizeof(*r->fcache))))
		return UINT32_MAX;
	c = &r->fcache[((ip * 0x9e3779b97f4a7c15ull) ^
			(((uint64_t)p << 8 | cpumode) * 0xc2b2ae3d27d4eb4full) ^
			gen) >> (64 - RP_FCACHE_BITS)];
	if (c->ip == ip && c->gen == gen && c->pid == p && c->mode == cpumode)
		return c->id;
	id = sym_of(r, pid, ip, cpumode);
	if (id != UINT32_MAX)
		*c = (struct rp_fcache){ .ip = ip, .gen = gen, .pid = p,
					 .mode = cpumode, .id = id };
	return id;
}

static int chain_room(struct pk_report *r, uint64_t n)
{
	uint32_t *c, *s;
	uint64_t *ip;
	const char **src;

	if (n <= r->capchain)
		return 0;
	c = pk__realloc(r->chain, (n + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	r->chain = c;
	s = pk__realloc(r->seen, (n + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	r->seen = s;
	ip = pk__realloc(r->chain_ip, (n + 1) * sizeof(*ip));
	if (!ip)
		return -ENOMEM;
	r->chain_ip = ip;
	src = pk__realloc(r->chain_src, (n + 1) * sizeof(*src));
	if (!src)
		return -ENOMEM;
	r->chain_src = src;
	r->capchain = (uint32_t)n;
	return 0;
}

/* Frame N of the chain: location SYM at IP (SRC: an inlined frame's
 * line). */
static void put_frame(struct pk_report *r, int n, uint32_t sym, uint64_t ip,
		      const char *src)
{
	r->chain[n] = sym;
	r->chain_ip[n] = ip;
	r->chain_src[n] = src;
}

/* perf's srcline of an inlined frame (its inline list's): the file's
 * base name and the line; NULL without a file. */
static const char *inline_src(struct pk_report *r,
			      const struct pk_inline_frame *f)
{
	char b[1024];
	const char *base;

	if (!f->file || !r->o.children ||
	    !(r->keymask & (RK_SRCLINE | RK_SRCFILE)))
		return NULL;
	base = strrchr(f->file, '/');
	snprintf(b, sizeof(b), "%s:%u", base ? base + 1 : f->file, f->line);
	return pk__rp_intern(r, b, NULL);
}

/* The kernel's part of the callchain, at r->chain[N..): returns the new
 * count or -ENOMEM. */
static int kernel_part(struct pk_report *r, const struct pk_session_sample *ss,
		       int n)
{
	const struct pk_sample *sm = ss->sample;
	uint64_t nr = sm->callchain.nr;
	unsigned max = r->o.max_stack;
	int k, first;

	if (!(sm->sample_type & PERF_SAMPLE_CALLCHAIN) || !nr)
		return n;
	if (nr > r->capframes) {
		struct pk_frame *f = pk__realloc(r->frames, nr * sizeof(*f));

		if (!f)
			return -ENOMEM;
		r->frames = f;
		r->capframes = (uint32_t)nr;
	}
	k = pk_session_callchain_in(sm, ss->rec->misc, (unsigned)nr,
				    r->frames);
	if (k <= 0)
		return n;
	/* caller order takes the frames nearest the root */
	first = r->o.caller && (unsigned)k > max ? k - (int)max : 0;
	if ((unsigned)(k - first) > max)
		k = first + (int)max;
	if (chain_room(r, (uint64_t)n + (uint64_t)(k - first) + 1))
		return -ENOMEM;
	for (int i = first; i < k; i++) {
		uint32_t s = pk__rp_sym_of(r, sm->pid, r->frames[i].ip,
					   r->frames[i].cpumode);

		if (s == UINT32_MAX)
			return -ENOMEM;
		put_frame(r, n++, s, r->frames[i].ip, NULL);
	}
	return n;
}

/* An unwound user frame, with the functions inlined there before it. */
static int user_frame(struct pk_report *r, uint32_t pid, uint64_t ip, int n)
{
	struct pk_inline_frame fr[64];
	struct pk_location l;
	struct rp_sym s;
	int found = pk_session_resolve(r->sess, pid, ip,
				       PERF_RECORD_MISC_USER, &l);
	int ni = found || !l.sym ? 0 :
		 pk_session_inlines(r->sess, pid, ip, fr, 64);

	if (chain_room(r, (uint64_t)n + (ni > 0 ? ni : 1) + 1))
		return -ENOMEM;
	loc_sym(r, &l, found, ip, PERF_RECORD_MISC_USER, &s);
	if (ni <= 0) {
		uint32_t id = sym_intern(r, &s);

		if (id == UINT32_MAX)
			return -ENOMEM;
		put_frame(r, n++, id, ip, NULL);
		return n;
	}
	for (int i = 0; i < ni; i++) {
		struct rp_sym t = s;
		uint32_t id;

		t.inlined = strcmp(fr[i].name, l.sym) != 0;
		/* entries of inlined functions: perf's tree of them */
		if (t.inlined && r->o.children && (r->keymask & RK_SYM) &&
		    !r->intree)
			r->intree = r->memo_off = true;
		t.name = t.inlined ? fr[i].name : l.sym;
		if ((id = sym_intern(r, &t)) == UINT32_MAX)
			return -ENOMEM;
		put_frame(r, n++, id, ip, inline_src(r, &fr[i]));
	}
	return n;
}

static int user_part(struct pk_report *r, const struct pk_sample *sm, int n)
{
	int k;

	if (!(sm->sample_type & PERF_SAMPLE_REGS_USER) ||
	    !(sm->sample_type & PERF_SAMPLE_STACK_USER))
		return n;
	if (!r->uw && !(r->uw = pk_unwind_new(r->sess)))
		return n;
	if (!r->uips && !(r->uips = pk__malloc((r->o.max_stack + 1) *
					       sizeof(*r->uips))))
		return -ENOMEM;
	k = pk_unwind_sample(r->uw, sm->pid, sm, r->uips, (int)r->o.max_stack);
	for (int i = 0; i < k && n >= 0; i++)
		if (r->uips[i])
			n = user_frame(r, sm->pid, r->uips[i], n);
	return n;
}

/* perf's -U: the N frames less those of no symbol; the new count. */
static int drop_unresolved(struct pk_report *r, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (r->sym[r->chain[i]].name)
			put_frame(r, k++, r->chain[i], r->chain_ip[i],
				  r->chain_src[i]);
	return k;
}

int pk__rp_resolve_chain(struct pk_report *r, const struct pk_session_sample *ss)
{
	int n;

	if (chain_room(r, 1))
		return -ENOMEM;
	n = kernel_part(r, ss, 0);
	if (n >= 0)
		n = user_part(r, ss->sample, n);
	if (n > 0 && r->o.hide_unresolved)
		n = drop_unresolved(r, n);
	if (n > 0 && r->o.caller)
		for (int i = 0, j = n - 1; i < j; i++, j--) {
			uint32_t t = r->chain[i];
			uint64_t ip = r->chain_ip[i];
			const char *src = r->chain_src[i];

			put_frame(r, i, r->chain[j], r->chain_ip[j],
				  r->chain_src[j]);
			put_frame(r, j, t, ip, src);
		}
	return n;
}

static uint32_t node_new(struct pk_report *r, uint32_t parent, uint32_t sym)
{
	struct rp_node *n;

	if (pk__rp_grow((void **)&r->node, &r->capnode, r->nnode,
			sizeof(*r->node), 4096))
		return 0;
	n = &r->node[r->nnode];
	memset(n, 0, sizeof(*n));
	n->sym = sym;
	n->parent = parent;
	if (parent) {
		n->next = r->node[parent].child;
		r->node[parent].child = r->nnode;
	}
	return r->nnode++;
}

enum { FEW_KIDS = 8 };

static int index_kid(struct pk_report *r, uint32_t p, uint32_t c)
{
	bool added;
	uint64_t *v = pk__hash_put(&r->nodeidx, ((uint64_t)p << 32) |
				   r->node[c].sym, &added);

	if (!v)
		return -ENOMEM;
	*v = c;
	return 0;
}

/* Puts P's children in nodeidx (P has grown past FEW_KIDS). */
static int index_kids(struct pk_report *r, uint32_t p)
{
	for (uint32_t c = r->node[p].child; c; c = r->node[c].next)
		if (index_kid(r, p, c))
			return -ENOMEM;
	return 0;
}

int pk__rp_reindex_nodes(struct pk_report *r)
{
	pk__hash_fini(&r->nodeidx);
	memset(&r->nodeidx, 0, sizeof(r->nodeidx));
	for (uint32_t p = 1; p < r->nnode; p++)
		if (r->node[p].nkids > FEW_KIDS && index_kids(r, p))
			return -ENOMEM;
	return 0;
}

/* P's child for SYM, made when new: a walk of a few, a look-up of many.
 * 0: ENOMEM. */
static uint32_t child(struct pk_report *r, uint32_t p, uint32_t sym)
{
	uint64_t *v = NULL;
	uint32_t c;
	int err = 0;

	if (r->node[p].nkids <= FEW_KIDS) {
		for (c = r->node[p].child; c; c = r->node[c].next)
			if (r->node[c].sym == sym)
				return c;
	} else if ((v = pk__hash_get(&r->nodeidx, ((uint64_t)p << 32) | sym))) {
		return (uint32_t)*v;
	}
	c = node_new(r, p, sym);
	if (!c)
		return 0;
	r->node[p].nkids++;
	if (r->node[p].nkids == FEW_KIDS + 1)
		err = index_kids(r, p);
	else if (r->node[p].nkids > FEW_KIDS + 1)
		err = index_kid(r, p, c);
	return err ? 0 : c;
}

int pk__rp_chain_append(struct pk_report *r, struct rp_entry *e,
			const uint32_t *chain, uint32_t n, uint64_t period)
{
	uint32_t at;

	r->last_end = 0;
	if (!n)
		return 0;
	if (!e->root && !(e->root = node_new(r, 0, UINT32_MAX)))
		return -ENOMEM;
	at = e->root;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t next = r->node[at].hint, key = r->sym[chain[i]].node_key;

		/* samples mostly repeat the path of the one before */
		if (!next || r->node[next].sym != key) {
			next = child(r, at, key);
			if (!next)
				return -ENOMEM;
			r->node[at].hint = next;
		}
		at = next;
	}
	/* the nodes on the way sum their ends' hits: pk__rp_cumul */
	r->node[at].hit += period;
	r->cumul_stale = true;
	r->last_end = at;
	if (n > e->max_depth)
		e->max_depth = n;
	return 0;
}
