/* SPDX-License-Identifier: MIT */
/*
 * perf's -I (--show-info) text of the topology features: CPU_TOPOLOGY,
 * NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY and HYBRID_TOPOLOGY, read from the
 * section bytes. Where perf 6.1 fails to read a section it prints what its
 * reader kept (often nothing but a title line); the describers do the same.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/pd.h"

#define NAME_ALIGN 64

struct tc {                    /* read-only cursor over one section */
	const struct pk_perfdata *pd;
	const unsigned char *p, *end;
	uint64_t size;             /* the section's size */
	uint64_t used;             /* perf's count of what it read */
	bool bad;
};

static bool tc_init(struct tc *c, const struct pk_perfdata *pd, int feat)
{
	const void *data;
	uint64_t size;

	memset(c, 0, sizeof(*c));
	if (pk_perfdata_feat_raw(pd, feat, &data, &size))
		return false;
	c->pd = pd;
	c->p = data;
	c->end = c->p + size;
	c->size = size;
	return true;
}

static uint32_t tc_u32(struct tc *c)
{
	uint32_t v = 0;

	if (c->bad || c->end - c->p < 4) {
		c->bad = true;
		return 0;
	}
	v = pd32(c->pd, rd32(c->p));
	c->p += 4;
	c->used += 4;
	return v;
}

static uint64_t tc_u64(struct tc *c)
{
	uint64_t v = 0;

	if (c->bad || c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	v = pd64(c->pd, rd64(c->p));
	c->p += 8;
	c->used += 8;
	return v;
}

/* A perf_header_string: the text up to its NUL, *LEN its length; perf
 * counts what it read as the padded length of that text (string_size). */
static const char *tc_str(struct tc *c, int *len)
{
	uint32_t n = tc_u32(c);
	const char *s = (const char *)c->p;
	size_t l;

	if (c->bad || (uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		*len = 0;
		return "";
	}
	l = strnlen(s, n);
	c->p += n;
	c->used += (l + NAME_ALIGN) / NAME_ALIGN * NAME_ALIGN;
	*len = (int)(l < INT_MAX ? l : INT_MAX);
	return s;
}

/* A u32 count and that many strings, each printed after LABEL. */
static void str_list(struct tc *c, struct pd_sb *s, const char *label)
{
	uint32_t nr = tc_u32(c);
	int len;

	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		const char *t = tc_str(c, &len);

		if (!c->bad && label)
			pk__pd_sbf(s, "# %s : %.*s\n", label, len, t);
	}
}

/* The core and socket ids (and die ids) of each CPU: false where perf's
 * reader drops them. */
static bool cpu_ids(struct tc *c, uint32_t cpus, uint32_t *ids, bool test)
{
	for (uint32_t i = 0; i < cpus; i++) {
		uint32_t sock;

		ids[3 * i] = tc_u32(c);
		sock = tc_u32(c);
		if (c->bad || (test && sock != UINT32_MAX && sock > cpus))
			return false;
		ids[3 * i + 1] = sock;
	}
	return true;
}

static bool die_ids(struct tc *c, uint32_t cpus, uint32_t *ids)
{
	for (uint32_t i = 0; i < cpus; i++)
		ids[3 * i + 2] = tc_u32(c);
	return !c->bad;
}

static void cpu_lines(struct pd_sb *s, uint32_t cpus, const uint32_t *ids,
		      bool dies)
{
	for (uint32_t i = 0; i < cpus; i++) {
		const uint32_t *d = ids + 3 * i;

		if (dies)
			pk__pd_sbf(s, "# CPU %d: Core ID %d, Die ID %d, Socket ID %d\n",
			    (int)i, (int)d[0], (int)d[2], (int)d[1]);
		else
			pk__pd_sbf(s, "# CPU %d: Core ID %d, Socket ID %d\n",
			    (int)i, (int)d[0], (int)d[1]);
	}
}

/* sibling sockets, dies, threads, then each CPU's ids: the section is
 * the core lists, the thread lists, then (newer perf) the ids, then (newer
 * still) the die lists and die ids; the CPUs are NRCPUS' available. */
static int cpu_topology(const struct pk_perfdata *pd, struct pd_sb *s)
{
	const char *arch = pd->str_feat[PK_HEADER_ARCH];
	struct tc c, cores, threads, dies;
	uint64_t cpus = 0;
	uint32_t *ids = NULL, nr_dies = 0;
	bool have_ids = false;

	if (!tc_init(&c, pd, PK_HEADER_CPU_TOPOLOGY))
		return 0;
	pk_perfdata_feat_u64(pd, PK_HEADER_NRCPUS, 1, &cpus);
	if (cpus > (uint64_t)(c.end - c.p) / 8)
		cpus = (uint64_t)(c.end - c.p) / 8 + 1; /* fails below */
	cores = c;
	str_list(&c, s, NULL);
	threads = c;
	str_list(&c, s, NULL);
	if (!c.bad && c.size > c.used && cpus) {
		ids = pk__malloc(cpus * 3 * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
	}
	if (!c.bad && c.size > c.used) {
		/* perf trusts socket ids up to the CPU count, but on s390
		 * and aarch64 */
		bool test = !arch || (strncmp(arch, "s390", 4) &&
				      strncmp(arch, "aarch64", 7));

		have_ids = cpu_ids(&c, (uint32_t)cpus, ids, test);
	}
	if (have_ids && c.size > c.used) {
		struct tc peek = c;

		dies = c;
		nr_dies = tc_u32(&peek);
		if (!peek.bad) {
			str_list(&c, s, NULL);
			have_ids = !c.bad && die_ids(&c, (uint32_t)cpus, ids);
		}
	}
	str_list(&cores, s, "sibling sockets");
	if (nr_dies)
		str_list(&dies, s, "sibling dies   ");
	str_list(&threads, s, "sibling threads");
	if (have_ids)
		cpu_lines(s, (uint32_t)cpus, ids, nr_dies);
	else
		pk__pd_sbf(s, "# Core ID%s and Socket ID information is not available\n",
		    nr_dies ? ", Die ID" : "");
	pk__free(ids);
	return 0;
}

struct range {
	long a, b;
};

static int range_cmp(const void *x, const void *y)
{
	const struct range *p = x, *q = y;

	return p->a < q->a ? -1 : p->a > q->a;
}

/* perf_cpu_map__new's reading of a CPU list ("0-7,16"): the ranges in
 * R (room for LEN / 2 + 1), 0; -EINVAL where perf refuses it (a duplicate
 * CPU, a backward range, a stray character after a number). */
static int cpu_ranges(const char *t, int len, struct range *r, int *nr)
{
	char *buf = pk__strndup(t, (size_t)len), *e;
	const char *p = buf;
	int err = 0;

	*nr = 0;
	if (!buf)
		return -ENOMEM;
	if (!isdigit((unsigned char)*p) && *p)
		err = -EINVAL;
	while (!err && isdigit((unsigned char)*p)) {
		unsigned long a = strtoul(p, &e, 0), b = a;

		if (a >= INT_MAX || (*e && *e != ',' && *e != '-'))
			err = -EINVAL;
		else if (*e == '-') {
			b = strtoul(e + 1, &e, 0);
			if (b >= INT_MAX || (*e && *e != ',') || b < a)
				err = -EINVAL;
		}
		r[(*nr)++] = (struct range){ (long)a, (long)b };
		p = *e ? e + 1 : e;
	}
	pk__free(buf);
	if (err)
		return err;
	qsort(r, (size_t)*nr, sizeof(*r), range_cmp);
	for (int i = 1; i < *nr; i++)
		if (r[i].a <= r[i - 1].b)
			return -EINVAL;
	return 0;
}

/* cpu_map__snprint: runs of consecutive CPUs as a-b; an empty list is
 * perf's dummy map, "-1". */
static void cpu_ranges_print(struct pd_sb *s, const struct range *r, int nr)
{
	if (!nr)
		pk__pd_sbf(s, "-1");
	for (int i = 0; i < nr; i++) {
		long a = r[i].a, b = r[i].b;

		pk__pd_sbf(s, "%s%ld", i ? "," : "", a);
		while (i + 1 < nr && r[i + 1].a == b + 1)
			b = r[++i].b;
		if (b > a)
			pk__pd_sbf(s, "-%ld", b);
	}
}

/* One node: u32 node, u64 total and free kB, its CPU list; S NULL: only
 * read. */
static int numa_node(struct tc *c, struct pd_sb *s)
{
	uint32_t node = tc_u32(c);
	uint64_t total = tc_u64(c), free_kb = tc_u64(c);
	struct range *r;
	const char *t;
	int len, nr, err;

	t = tc_str(c, &len);
	if (c->bad)
		return -EINVAL;
	r = pk__malloc(((size_t)len / 2 + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	err = cpu_ranges(t, len, r, &nr);
	if (!err && s) {
		pk__pd_sbf(s, "# node%u meminfo  : total = %" PRIu64
		    " kB, free = %" PRIu64 " kB\n# node%u cpu list : ",
		    node, total, free_kb, node);
		cpu_ranges_print(s, r, nr);
		pk__pd_sbf(s, "\n");
	}
	pk__free(r);
	return err;
}

/* perf reads every node before it prints one: a bad one, none shown. */
static int numa_topology(const struct pk_perfdata *pd, struct pd_sb *s)
{
	struct tc c, first;
	uint32_t nr;
	int err = 0;

	if (!tc_init(&c, pd, PK_HEADER_NUMA_TOPOLOGY))
		return 0;
	nr = tc_u32(&c);
	first = c;
	for (uint32_t i = 0; i < nr && !err; i++)
		err = numa_node(&c, NULL);
	for (uint32_t i = 0; i < nr && !err; i++)
		err = numa_node(&first, s);
	return err == -ENOMEM ? err : 0;
}

/* One cache: u32 level, line size, sets, ways; type, size, CPUs. */
static void cache_line(struct tc *c, struct pd_sb *s)
{
	const char *t[3];
	int len[3];
	uint32_t level = tc_u32(c);

	tc_u32(c);
	tc_u32(c);
	tc_u32(c);
	for (int k = 0; k < 3; k++)
		t[k] = tc_str(c, &len[k]);
	if (s)
		pk__pd_sbf(s, "#  L%d %-15.*s %8.*s [%.*s]\n", (int)level,
		    len[0], t[0], len[1], t[1], len[2], t[2]);
}

static int cache(const struct pk_perfdata *pd, struct pd_sb *s)
{
	struct tc c, first;
	uint32_t ver, nr;

	pk__pd_sbf(s, "# CPU cache info:\n");
	if (!tc_init(&c, pd, PK_HEADER_CACHE))
		return 0;
	ver = tc_u32(&c);
	nr = tc_u32(&c);
	if (ver != 1)
		return 0;
	first = c;
	for (uint32_t i = 0; i < nr && !c.bad; i++)
		cache_line(&c, NULL);
	for (uint32_t i = 0; i < nr && !c.bad; i++)
		cache_line(&first, s);
	return 0;
}

/* unit_number__scnprintf: bytes in B, K, M or G, rounded down. */
static void unit_number(struct pd_sb *s, uint64_t n)
{
	static const char unit[] = "BKMG";
	int i = 0;

	while (n / 1024 > 1 && i < 3) {
		n /= 1024;
		i++;
	}
	pk__pd_sbf(s, "%" PRIu64 "%c", n, unit[i]);
}

static bool bit(const unsigned char *w, const struct pk_perfdata *pd,
		uint64_t i)
{
	return pd64(pd, rd64(w + i / 64 * 8)) >> (i % 64) & 1;
}

/* bitmap_scnprintf into perf's 100-byte buffer: runs as a-b, cut at 99
 * characters. */
static void bitmap_line(struct pd_sb *s, const struct pk_perfdata *pd,
			const unsigned char *w, uint64_t nbits)
{
	char buf[100];
	struct pd_sb b = { buf, sizeof(buf), 0 };
	bool first = true;

	buf[0] = 0;
	for (uint64_t i = 0; i < nbits; i++) {
		uint64_t top = i;

		if (!bit(w, pd, i))
			continue;
		while (top + 1 < nbits && bit(w, pd, top + 1))
			top++;
		pk__pd_sbf(&b, "%s%" PRIu64, first ? "" : ",", i);
		if (top > i)
			pk__pd_sbf(&b, "-%" PRIu64, top);
		first = false;
		i = top;
	}
	pk__pd_sbf(s, "%s", buf);
}

/* One node: u64 node, u64 size, then a bitmap (u64 bits, the words). */
static bool mem_node(struct tc *c, struct pd_sb *s, uint64_t bsize)
{
	uint64_t node = tc_u64(c), nbits, words, weight = 0;
	const unsigned char *w;

	tc_u64(c);
	nbits = tc_u64(c);
	words = nbits / 64 + (nbits % 64 != 0);
	if (c->bad || words > (uint64_t)(c->end - c->p) / 8) {
		c->bad = true;
		return false;
	}
	w = c->p;
	c->p += words * 8;
	if (!s)
		return true;
	for (uint64_t i = 0; i < nbits; i++)
		weight += bit(w, c->pd, i);
	pk__pd_sbf(s, "#  %3" PRIu64 " [", node);
	unit_number(s, bsize * weight);
	pk__pd_sbf(s, "]: ");
	bitmap_line(s, c->pd, w, nbits);
	pk__pd_sbf(s, "\n");
	return true;
}

static int mem_topology(const struct pk_perfdata *pd, struct pd_sb *s)
{
	struct tc c, first;
	uint64_t bsize, nr;
	bool ok = true;

	if (!tc_init(&c, pd, PK_HEADER_MEM_TOPOLOGY))
		return 0;
	tc_u64(&c);
	bsize = tc_u64(&c);
	nr = tc_u64(&c);
	first = c;
	for (uint64_t i = 0; i < nr && ok; i++)
		ok = mem_node(&c, NULL, bsize);
	if (!ok || c.bad)
		bsize = nr = 0;
	pk__pd_sbf(s, "# memory nodes (nr %d, block size 0x%llx):\n", (int)nr,
	    (unsigned long long)bsize);
	for (uint64_t i = 0; i < nr; i++)
		mem_node(&first, s, bsize);
	return 0;
}

/* u32 count, then a PMU name and its CPU list each. */
static int hybrid_topology(const struct pk_perfdata *pd, struct pd_sb *s)
{
	struct tc c, first;
	uint32_t nr;
	const char *n, *l;
	int nl, ll;

	pk__pd_sbf(s, "# hybrid cpu system:\n");
	if (!tc_init(&c, pd, PK_HEADER_HYBRID_TOPOLOGY))
		return 0;
	nr = tc_u32(&c);
	first = c;
	for (uint32_t i = 0; i < nr && !c.bad; i++) {
		tc_str(&c, &nl);
		tc_str(&c, &ll);
	}
	for (uint32_t i = 0; i < nr && !c.bad; i++) {
		n = tc_str(&first, &nl);
		l = tc_str(&first, &ll);
		pk__pd_sbf(s, "# %.*s cpu list : %.*s\n", nl, n, ll, l);
	}
	return 0;
}

int pk__pd_describe_topo(const struct pk_perfdata *pd, int feat,
			 struct pd_sb *s)
{
	switch (feat) {
	case PK_HEADER_CPU_TOPOLOGY: return cpu_topology(pd, s);
	case PK_HEADER_NUMA_TOPOLOGY: return numa_topology(pd, s);
	case PK_HEADER_CACHE: return cache(pd, s);
	case PK_HEADER_MEM_TOPOLOGY: return mem_topology(pd, s);
	case PK_HEADER_HYBRID_TOPOLOGY: return hybrid_topology(pd, s);
	default: return -ENOENT;
	}
}
