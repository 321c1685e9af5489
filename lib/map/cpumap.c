/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/map.h>
#include "base/base.h"
#include "map/list.h"

/* Highest CPU number a list may name. */
#define PK_CPU_MAX 65535

struct pk_cpu_map {
	int refcnt;
	int nr;
	int cpus[];
};

static struct pk_cpu_map *cpu_map_alloc(int nr, const int *cpus)
{
	struct pk_cpu_map *m = pk__malloc(sizeof(*m) + (size_t)nr * sizeof(int));

	if (!m)
		return NULL;
	m->refcnt = 1;
	m->nr = nr;
	memcpy(m->cpus, cpus, (size_t)nr * sizeof(int));
	return m;
}

static struct pk_cpu_map *cpu_map_from_list(const char *list)
{
	struct pk_cpu_map *m;
	int *cpus, nr, err = pk__int_list_parse(list, PK_CPU_MAX, true, &cpus,
						&nr);

	if (err) {
		errno = -err;
		return NULL;
	}
	nr = pk__int_sort_uniq(cpus, nr);
	m = cpu_map_alloc(nr, cpus);
	pk__free(cpus);
	return m;
}

int pk__cpu_online(int **out)
{
	char *online;
	long n = pk__read_file("/sys/devices/system/cpu/online", &online), c;
	int *cpus, nr, err;

	if (n >= 0) {
		err = pk__int_list_parse(online, PK_CPU_MAX, true, out, &nr);
		if (err == -EINVAL)
			pk_warn("cpu map: malformed online list '%s'\n", online);
		pk__free(online);
		return err ? err : pk__int_sort_uniq(*out, nr);
	}
	c = sysconf(_SC_NPROCESSORS_ONLN);
	nr = c > 0 ? (int)c : 1;
	cpus = pk__calloc((size_t)nr, sizeof(int));
	if (!cpus)
		return -ENOMEM;
	for (int i = 0; i < nr; i++)
		cpus[i] = i;
	*out = cpus;
	return nr;
}

struct pk_cpu_map *pk_cpu_map_new(const char *list)
{
	struct pk_cpu_map *m;
	int *cpus, nr;

	if (list && *list)
		return cpu_map_from_list(list);
	nr = pk__cpu_online(&cpus);
	if (nr < 0) {
		errno = -nr;
		return NULL;
	}
	m = cpu_map_alloc(nr, cpus);
	pk__free(cpus);
	return m;
}

struct pk_cpu_map *pk_cpu_map_new_any(void)
{
	static const int any = -1;

	return cpu_map_alloc(1, &any);
}

struct pk_cpu_map *pk_cpu_map_get(struct pk_cpu_map *m)
{
	if (m)
		__atomic_add_fetch(&m->refcnt, 1, __ATOMIC_RELAXED);
	return m;
}

void pk_cpu_map_put(struct pk_cpu_map *m)
{
	if (m && __atomic_sub_fetch(&m->refcnt, 1, __ATOMIC_ACQ_REL) == 0)
		pk__free(m);
}

int pk_cpu_map_nr(const struct pk_cpu_map *m)
{
	return m ? m->nr : 0;
}

int pk_cpu_map_cpu(const struct pk_cpu_map *m, int idx)
{
	if (!m || idx < 0 || idx >= m->nr)
		return -EINVAL;
	return m->cpus[idx];
}

struct pk_cpu_map *pk_cpu_map_merge(const struct pk_cpu_map *a,
				    const struct pk_cpu_map *b)
{
	int na = a ? a->nr : 0, nb = b ? b->nr : 0, *cpus, nr;
	struct pk_cpu_map *m;

	cpus = pk__malloc((size_t)(na + nb + 1) * sizeof(int));
	if (!cpus)
		return NULL;
	if (na)
		memcpy(cpus, a->cpus, (size_t)na * sizeof(int));
	if (nb)
		memcpy(cpus + na, b->cpus, (size_t)nb * sizeof(int));
	nr = pk__int_sort_uniq(cpus, na + nb);
	m = cpu_map_alloc(nr, cpus);
	pk__free(cpus);
	return m;
}
