/* SPDX-License-Identifier: MIT */
/* Control ioctls over every fd of an event or list. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "event/evsel.h"
#include "sys/sys.h"
#include <perfkit/counter.h>

static int nr_fds(const struct pk_evsel *e)
{
	return pk_cpu_map_nr(e->cpus) * pk_thread_map_nr(e->threads);
}

/* Applies OP(fd, arg) to every fd; the first error is returned but every
 * fd is still tried. */
#define FOR_EACH_FD(e, call)                                      \
	({                                                        \
		int _first = 0;                                   \
		if (!(e)->fds)                                    \
			_first = -EBADF;                          \
		for (int _i = 0; (e)->fds && _i < nr_fds(e); _i++) { \
			int fd = (e)->fds[_i];                    \
			int _r = (call);                          \
			if (_r && !_first)                        \
				_first = _r;                      \
		}                                                 \
		_first;                                           \
	})

int pk_evsel_enable(struct pk_evsel *e, bool group)
{
	return FOR_EACH_FD(e, pk__sys_ioc_enable(fd, group));
}

int pk_evsel_disable(struct pk_evsel *e, bool group)
{
	return FOR_EACH_FD(e, pk__sys_ioc_disable(fd, group));
}

int pk_evsel_reset(struct pk_evsel *e, bool group)
{
	return FOR_EACH_FD(e, pk__sys_ioc_reset(fd, group));
}

int pk_evsel_set_period(struct pk_evsel *e, uint64_t period)
{
	return FOR_EACH_FD(e, pk__sys_ioc_period(fd, period));
}

int pk_evsel_refresh(struct pk_evsel *e, int count)
{
	return FOR_EACH_FD(e, pk__sys_ioc_refresh(fd, count));
}

int pk_evsel_set_filter(struct pk_evsel *e, const char *filter)
{
	char *copy;
	int err = 0;

	if (!filter) {		/* forget the kept filter */
		if (e->fds)
			return -EINVAL;
		pk__free(e->filter);
		e->filter = NULL;
		return 0;
	}
	copy = pk__strdup(filter);
	if (!copy)
		return -ENOMEM;
	if (e->fds)
		err = FOR_EACH_FD(e, pk__sys_ioc_set_filter(fd, filter));
	if (err) {
		pk__free(copy);
		return err;
	}
	pk__free(e->filter);	/* kept for later opens */
	e->filter = copy;
	return 0;
}

int pk_evsel_modify_attr(struct pk_evsel *e, const struct perf_event_attr *attr)
{
	struct perf_event_attr copy = *attr;
	int err = FOR_EACH_FD(e, pk__sys_ioc_modify_attributes(fd, &copy));

	if (!err)
		e->attr = *attr;
	return err;
}

int pk_evsel_id(const struct pk_evsel *e, int cpu_idx, int thread_idx,
		uint64_t *id)
{
	int fd = pk_evsel_fd(e, cpu_idx, thread_idx);

	return fd < 0 ? fd : pk__sys_ioc_id(fd, id);
}

typedef int (*evsel_op)(struct pk_evsel *e, bool group);

/* Every open event of the list (closed ones, left by keep_going, are
 * skipped); the first error is returned. */
static int evlist_apply(struct pk_evlist *l, evsel_op op)
{
	int first = 0;

	for (int i = 0; i < l->nr; i++) {
		int err;

		if (!l->entries[i]->fds)
			continue;
		err = op(l->entries[i], false);
		if (err && !first)
			first = err;
	}
	return first;
}

int pk_evlist_enable(struct pk_evlist *l)
{
	return evlist_apply(l, pk_evsel_enable);
}

int pk_evlist_disable(struct pk_evlist *l)
{
	return evlist_apply(l, pk_evsel_disable);
}

int pk_evlist_reset(struct pk_evlist *l)
{
	return evlist_apply(l, pk_evsel_reset);
}

int pk_task_events_enable(void)
{
	return pk__sys_task_events(true);
}

int pk_task_events_disable(void)
{
	return pk__sys_task_events(false);
}
