/* SPDX-License-Identifier: MIT */
/*
 * perf.data writer: HEADER_CACHE and HEADER_MEM_TOPOLOGY from sysfs, as
 * perf record writes them (ftopo.c reads them back):
 *   CACHE: u32 version 1, u32 count, then per cache u32 level, line size,
 *     sets, ways and the strings type, size, shared CPU list: every CPU's
 *     cache/indexN in CPU then index order, a cache equal to one already
 *     listed dropped, then (stably) by level.
 *   MEM_TOPOLOGY: u64 version 1, block size, node count, then per node
 *     (by number) u64 node, u64 bits and the bitmap of its memoryN
 *     blocks (u64 bits, then the words), bits = the highest block + 1.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perfdata/wr.h"

#define MAX_CACHES 4096

struct cache {
	uint32_t level, line, sets, ways;
	char *type, *size, *map;
};

static void cache_fini(struct cache *c)
{
	pk__free(c->type);
	pk__free(c->size);
	pk__free(c->map);
}

/* perf's sysfs__read_int: the number at the start, 0 when none */
static int read_int(const char *dir, const char *name, uint32_t *v)
{
	char path[4096], *s;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (pk__read_file(path, &s) < 0)
		return -EINVAL;
	*v = (uint32_t)atoi(s);
	pk__free(s);
	return 0;
}

/* perf's sysfs__read_str then strim: leading and trailing space off */
static int read_str(const char *dir, const char *name, char **out)
{
	char path[4096], *s, *b;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (pk__read_file(path, &s) < 0)
		return -EINVAL;
	for (n = strlen(s); n && strchr(" \t\n\r\v\f", s[n - 1]); n--)
		s[n - 1] = 0;
	for (b = s; *b && strchr(" \t\n\r\v\f", *b); b++)
		;
	memmove(s, b, strlen(b) + 1);
	*out = s;
	return 0;
}

/* 1: no such index; 0 read; -EINVAL: a file unreadable (perf then drops
 * the feature) */
static int cache_read(struct cache *c, const char *sys, long cpu, int idx)
{
	char dir[4096];

	memset(c, 0, sizeof(*c));
	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%ld/cache/index%d",
		 sys, cpu, idx);
	if (access(dir, F_OK))
		return 1;
	if (read_int(dir, "level", &c->level) ||
	    read_int(dir, "coherency_line_size", &c->line) ||
	    read_int(dir, "number_of_sets", &c->sets) ||
	    read_int(dir, "ways_of_associativity", &c->ways) ||
	    read_str(dir, "type", &c->type) || read_str(dir, "size", &c->size) ||
	    read_str(dir, "shared_cpu_list", &c->map)) {
		cache_fini(c);
		return -EINVAL;
	}
	return 0;
}

static bool cache_eq(const struct cache *a, const struct cache *b)
{
	return a->level == b->level && a->line == b->line &&
	       a->sets == b->sets && a->ways == b->ways &&
	       !strcmp(a->type, b->type) && !strcmp(a->size, b->size) &&
	       !strcmp(a->map, b->map);
}

static int caches_read(struct cache *cs, const char *sys, uint32_t *nr)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	for (long cpu = 0; cpu < ncpu; cpu++)
		for (int idx = 0; idx < 10; idx++) {
			struct cache c;
			uint32_t i = 0;
			int r = cache_read(&c, sys, cpu, idx);

			if (r < 0)
				return r;
			if (r)
				break;
			while (i < *nr && !cache_eq(&c, &cs[i]))
				i++;
			if (i < *nr || *nr == MAX_CACHES) {
				cache_fini(&c);
				continue;
			}
			cs[(*nr)++] = c;
		}
	return 0;
}

static int cache_put(struct pk_buf *b, const struct cache *c)
{
	uint32_t v[4] = { c->level, c->line, c->sets, c->ways };

	if (pk__buf_append(b, v, sizeof(v)) || pk__wr_put_str(b, c->type) ||
	    pk__wr_put_str(b, c->size) || pk__wr_put_str(b, c->map))
		return -ENOMEM;
	return 0;
}

static int feat_cache(struct pk_pdwriter *w, const char *sys)
{
	struct cache *cs = pk__calloc(MAX_CACHES, sizeof(*cs));
	struct pk_buf b = { 0 };
	uint32_t nr = 0;
	int r = cs ? caches_read(cs, sys, &nr) : -ENOMEM;

	/* by level, stably (an insertion sort) */
	for (uint32_t i = 1; !r && i < nr; i++)
		for (uint32_t j = i; j && cs[j - 1].level > cs[j].level; j--) {
			struct cache t = cs[j];

			cs[j] = cs[j - 1];
			cs[j - 1] = t;
		}
	if (!r) {
		uint32_t hdr[2] = { 1, nr };

		r = pk__buf_append(&b, hdr, sizeof(hdr)) ? -ENOMEM : 0;
	}
	for (uint32_t i = 0; !r && i < nr; i++)
		r = cache_put(&b, &cs[i]);
	if (!r)
		r = pk_pdwriter_feat_raw(w, PK_HEADER_CACHE, b.data, b.len);
	for (uint32_t i = 0; cs && i < nr; i++)
		cache_fini(&cs[i]);
	pk__free(cs);
	pk__buf_fini(&b);
	return r;
}

struct mnode {
	uint64_t node, bits;
	uint64_t *set;
};

/* NAME as PREFIX%u (perf's sscanf) */
static bool numbered(const char *name, const char *prefix, unsigned *n)
{
	char fmt[32];

	snprintf(fmt, sizeof(fmt), "%s%%u", prefix);
	return sscanf(name, fmt, n) == 1;
}

/* A node's memoryN entries: two passes, the highest then the bits. */
static int mnode_read(struct mnode *m, const char *sys, unsigned node)
{
	char path[4096];
	struct dirent *d;
	unsigned n, top = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/devices/system/node/node%u", sys, node);
	if (!(dir = opendir(path)))
		return -errno;
	while ((d = readdir(dir)))
		if (numbered(d->d_name, "memory", &n) && n > top)
			top = n;
	m->node = node;
	m->bits = (uint64_t)top + 1;
	m->set = pk__calloc((m->bits + 63) / 64, 8);
	if (!m->set) {
		closedir(dir);
		return -ENOMEM;
	}
	rewinddir(dir);
	while ((d = readdir(dir)))
		if (numbered(d->d_name, "memory", &n) && n < m->bits)
			m->set[n / 64] |= 1ULL << (n % 64);
	closedir(dir);
	return 0;
}

static int mnodes_read(struct mnode **out, const char *sys, uint64_t *nr)
{
	char path[4096];
	struct dirent *d;
	unsigned n;
	DIR *dir;
	int r = 0;

	snprintf(path, sizeof(path), "%s/devices/system/node", sys);
	if (!(dir = opendir(path)))
		return -errno;
	while (!r && (d = readdir(dir))) {
		struct mnode *m;

		if (!numbered(d->d_name, "node", &n))
			continue;
		m = pk__realloc(*out, (size_t)(*nr + 1) * sizeof(*m));
		if (!m) {
			r = -ENOMEM;
			break;
		}
		*out = m;
		memset(&m[*nr], 0, sizeof(*m));
		r = mnode_read(&m[(*nr)++], sys, n);
	}
	closedir(dir);
	/* by node number */
	for (uint64_t i = 1; !r && i < *nr; i++)
		for (uint64_t j = i; j && (*out)[j - 1].node > (*out)[j].node; j--) {
			struct mnode t = (*out)[j];

			(*out)[j] = (*out)[j - 1];
			(*out)[j - 1] = t;
		}
	return r;
}

static int feat_mem_topology(struct pk_pdwriter *w, const char *sys)
{
	char path[4096], *s;
	struct mnode *ms = NULL;
	struct pk_buf b = { 0 };
	uint64_t hdr[3] = { 1, 0, 0 };
	int r;

	snprintf(path, sizeof(path), "%s/devices/system/memory/block_size_bytes",
		 sys);
	if ((r = (int)pk__read_file(path, &s)) < 0)
		return r;
	hdr[1] = strtoull(s, NULL, 16);
	pk__free(s);
	r = mnodes_read(&ms, sys, &hdr[2]);
	if (!r && pk__buf_append(&b, hdr, sizeof(hdr)))
		r = -ENOMEM;
	for (uint64_t i = 0; !r && i < hdr[2]; i++) {
		uint64_t v[3] = { ms[i].node, ms[i].bits, ms[i].bits };

		if (pk__buf_append(&b, v, sizeof(v)) ||
		    pk__buf_append(&b, ms[i].set, (ms[i].bits + 63) / 64 * 8))
			r = -ENOMEM;
	}
	if (!r)
		r = pk_pdwriter_feat_raw(w, PK_HEADER_MEM_TOPOLOGY, b.data, b.len);
	for (uint64_t i = 0; i < hdr[2]; i++)
		pk__free(ms[i].set);
	pk__free(ms);
	pk__buf_fini(&b);
	return r;
}

int pk_pdwriter_feat_caches(struct pk_pdwriter *w, const char *sysfs)
{
	const char *sys = sysfs ? sysfs : "/sys";
	int r;

	if (!w)
		return -EINVAL;
	/* perf leaves out a feature it cannot read; so does this */
	r = feat_cache(w, sys);
	if (r == -ENOMEM)
		return r;
	r = feat_mem_topology(w, sys);
	return r == -ENOMEM ? r : 0;
}
