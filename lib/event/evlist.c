/* SPDX-License-Identifier: MIT */
/*
 * Event lists: evsel creation, fds per CPU and thread, adding attrs to a
 * list, freeing.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "event/evsel.h"

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK ||
		a->config == PERF_COUNT_SW_TASK_CLOCK);
}

struct pk_evsel *pk__evsel_new(const struct perf_event_attr *attr,
			       const char *name)
{
	struct pk_evsel *e = pk__zalloc(sizeof(*e));

	if (!e)
		return NULL;
	e->attr = *attr;
	e->leader = e;
	e->nr_members = 1;
	e->name = pk__strdup(name ? name : "");
	e->pmu_name = pk__strdup("");
	e->unit = pk__strdup(is_clock(attr) ? "msec" : "");
	e->scale = is_clock(attr) ? 1e-6 : 1.0;
	if (!e->name || !e->pmu_name || !e->unit) {
		pk__evsel_free(e);
		errno = ENOMEM;
		return NULL;
	}
	return e;
}

void pk__evsel_close_fds(struct pk_evsel *e)
{
	int n;

	if (!e->fds)
		return;
	n = pk_cpu_map_nr(e->cpus) * pk_thread_map_nr(e->threads);
	for (int i = 0; i < n; i++)
		if (e->fds[i] >= 0)
			close(e->fds[i]);
	pk__free(e->fds);
	e->fds = NULL;
	pk_cpu_map_put(e->cpus);
	pk_thread_map_put(e->threads);
	e->cpus = NULL;
	e->threads = NULL;
}

void pk__evsel_free(struct pk_evsel *e)
{
	if (!e)
		return;
	pk__evsel_close_fds(e);
	pk_cpu_map_put(e->pmu_cpus);
	pk__free(e->name);
	pk__free(e->pmu_name);
	pk__free(e->unit);
	pk__free(e->filter);
	pk__free(e->group_name);
	pk__free(e->aux_action);
	pk__free(e);
}

int *pk__evsel_fd_slot(const struct pk_evsel *e, int cpu_idx, int thread_idx)
{
	int nt;

	if (!e->fds || cpu_idx < 0 || thread_idx < 0 ||
	    cpu_idx >= pk_cpu_map_nr(e->cpus))
		return NULL;
	nt = pk_thread_map_nr(e->threads);
	if (thread_idx >= nt)
		return NULL;
	return &e->fds[cpu_idx * nt + thread_idx];
}

struct pk_evlist *pk_evlist_new(void)
{
	return pk__zalloc(sizeof(struct pk_evlist));
}

void pk_evlist_free(struct pk_evlist *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->nr; i++)
		pk__evsel_free(l->entries[i]);
	pk__free(l->entries);
	pk__free(l);
}

int pk__evlist_append(struct pk_evlist *l, struct pk_evsel *e)
{
	if (l->nr == l->cap) {
		int cap = l->cap ? l->cap * 2 : 8;
		struct pk_evsel **n = pk__realloc(l->entries,
						 (size_t)cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->entries = n;
		l->cap = cap;
	}
	e->idx = l->nr;
	l->entries[l->nr++] = e;
	return 0;
}

int pk_evlist_add(struct pk_evlist *l, const struct perf_event_attr *attr,
		  const char *name)
{
	struct pk_evsel *e = pk__evsel_new(attr, name);
	int err;

	if (!e)
		return -ENOMEM;
	err = pk__evlist_append(l, e);
	if (err) {
		pk__evsel_free(e);
		return err;
	}
	return e->idx;
}

int pk_evlist_group(struct pk_evlist *l, int first, int n)
{
	if (first < 0 || n < 1 || first + n > l->nr)
		return -EINVAL;
	for (int i = first; i < first + n; i++) {
		struct pk_evsel *e = l->entries[i];

		if (e->leader != e || e->nr_members != 1)
			return -EINVAL;
	}
	for (int i = first; i < first + n; i++) {
		l->entries[i]->leader = l->entries[first];
		l->entries[i]->nr_members = 0;
	}
	l->entries[first]->nr_members = n;
	return 0;
}

/* Moves entries [from, from + n) to TO (<= FROM), before the ones there,
 * the rest keeping their order; the indexes renumbered. */
static void move_run(struct pk_evlist *l, int from, int n, int to)
{
	for (int k = 0; k < n; k++) {
		struct pk_evsel *e = l->entries[from + k];

		memmove(l->entries + to + k + 1, l->entries + to + k,
			(size_t)(from - to) * sizeof(*l->entries));
		l->entries[to + k] = e;
	}
	for (int i = 0; i < l->nr; i++)
		l->entries[i]->idx = i;
}

int pk_evlist_to_front(struct pk_evlist *l, int idx)
{
	struct pk_evsel *e;

	if (!l || idx < 0 || idx >= l->nr)
		return -EINVAL;
	e = l->entries[idx];
	if (e->leader != e || idx + e->nr_members > l->nr)
		return -EINVAL;
	move_run(l, idx, e->nr_members, 0);
	return 0;
}

int pk_evlist_regroup(struct pk_evlist *l, int leader, int idx)
{
	struct pk_evsel *g, *e;
	int end;

	if (!l || leader < 0 || idx < 0 || leader >= l->nr || idx >= l->nr)
		return -EINVAL;
	g = l->entries[leader];
	e = l->entries[idx];
	if (e->leader == g)
		return 0;
	if (g->leader != g || idx < leader)
		return -EINVAL;
	end = leader + g->nr_members;   /* after its last member */
	for (int k = end; k <= idx; k++) {
		e = l->entries[k];
		if (e->leader != e || e->nr_members > 1)
			return -EINVAL;         /* in another group */
	}
	for (int k = end; k <= idx; k++) {
		e = l->entries[k];
		e->leader = g;
		e->nr_members = 0;
		g->nr_members++;
	}
	return 0;
}

int pk_evlist_nr(const struct pk_evlist *l)
{
	return l->nr;
}

struct pk_evsel *pk_evlist_evsel(const struct pk_evlist *l, int idx)
{
	return idx >= 0 && idx < l->nr ? l->entries[idx] : NULL;
}

struct perf_event_attr *pk_evsel_attr(struct pk_evsel *e)
{
	return &e->attr;
}

const char *pk_evsel_name(const struct pk_evsel *e)
{
	return e->name;
}

int pk_evsel_set_name(struct pk_evsel *e, const char *name)
{
	char *n = pk__strdup(name);

	if (!n)
		return -ENOMEM;
	pk__free(e->name);
	e->name = n;
	return 0;
}

int pk_evsel_idx(const struct pk_evsel *e)
{
	return e->idx;
}

struct pk_evsel *pk_evsel_leader(struct pk_evsel *e)
{
	return e->leader;
}

int pk_evsel_nr_members(const struct pk_evsel *e)
{
	return e->nr_members;
}

const char *pk_evsel_pmu_name(const struct pk_evsel *e)
{
	return e->pmu_name;
}

const char *pk_evsel_unit(const struct pk_evsel *e)
{
	return e->unit;
}

double pk_evsel_scale(const struct pk_evsel *e)
{
	return e->scale;
}

struct pk_cpu_map *pk_evsel_own_cpus(const struct pk_evsel *e)
{
	return e->pmu_cpus;
}

unsigned int pk_evsel_flags(const struct pk_evsel *e)
{
	return e->flags;
}

unsigned int pk_evsel_terms(const struct pk_evsel *e)
{
	return e->terms;
}

int pk_evsel_tool(const struct pk_evsel *e)
{
	return e->tool;
}

const char *pk_evsel_group_name(const struct pk_evsel *e)
{
	return e->group_name;
}

const char *pk_evsel_aux_action(const struct pk_evsel *e)
{
	return e->aux_action;
}

/* The kernel's aux_action word (6.13's union with aux_start_paused,
 * aux_pause, aux_resume) follows aux_sample_size; older headers call it
 * __reserved_3. */
#define AUX_ACTION_OFF (offsetof(struct perf_event_attr, aux_sample_size) + 4)

uint32_t pk_attr_aux_action(const struct perf_event_attr *a)
{
	uint32_t v;

	memcpy(&v, (const char *)a + AUX_ACTION_OFF, sizeof(v));
	return v;
}

void pk_attr_set_aux_action(struct perf_event_attr *a, uint32_t v)
{
	memcpy((char *)a + AUX_ACTION_OFF, &v, sizeof(v));
}
