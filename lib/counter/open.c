/* SPDX-License-Identifier: MIT */
/* Opening events over cpus x threads, with perf's feature fallbacks. */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "counter/cgroup.h"
#include "counter/fallback.h"
#include "event/evsel.h"
#include "sys/features.h"
#include "sys/sys.h"
#include <perfkit/counter.h>

/* Opens one fd; on EINVAL clears features the kernel lacks and retries. */
static int open_one(struct pk_evsel *e, int pid, int cpu, int group_fd,
		    unsigned long flags)
{
	bool cloexec = flags & PERF_FLAG_FD_CLOEXEC;
	int fd, err = pk__features_fit_attr(&e->attr);

	if (err)
		return err;
	for (;;) {
		fd = pk__sys_perf_event_open(&e->attr, pid, cpu, group_fd, flags);
		if (fd >= 0 || (fd != -EINVAL && fd != -E2BIG))
			break;
		if (pk__features_fallback(&e->attr, &flags) >= 0)
			continue;
		/* Some PMUs (msr, uncore) refuse the guest/host split even
		 * where the kernel has it: perf drops it too. */
		if (fd != -EINVAL || !(e->attr.exclude_guest || e->attr.exclude_host))
			break;
		pk_debug("event '%s': retrying without exclude_guest/exclude_host",
			 e->name);
		e->attr.exclude_guest = 0;
		e->attr.exclude_host = 0;
	}
	if (fd >= 0 && cloexec && !(flags & PERF_FLAG_FD_CLOEXEC))
		pk__sys_set_cloexec(fd);
	return fd;
}

static bool maps_equal_cpu(const struct pk_cpu_map *a,
			   const struct pk_cpu_map *b)
{
	if (pk_cpu_map_nr(a) != pk_cpu_map_nr(b))
		return false;
	for (int i = 0; i < pk_cpu_map_nr(a); i++)
		if (pk_cpu_map_cpu(a, i) != pk_cpu_map_cpu(b, i))
			return false;
	return true;
}

static bool maps_equal_thread(const struct pk_thread_map *a,
			      const struct pk_thread_map *b)
{
	if (pk_thread_map_nr(a) != pk_thread_map_nr(b))
		return false;
	for (int i = 0; i < pk_thread_map_nr(a); i++)
		if (pk_thread_map_tid(a, i) != pk_thread_map_tid(b, i))
			return false;
	return true;
}

/* A member needs its leader open on the same maps. */
static int check_leader(const struct pk_evsel *e, struct pk_cpu_map *cpus,
			struct pk_thread_map *threads)
{
	const struct pk_evsel *l = e->leader;

	if (l == e)
		return 0;
	if (!l->fds)
		return l->open_errno ? l->open_errno : -EBADF;
	if (!maps_equal_cpu(l->cpus, cpus) ||
	    !maps_equal_thread(l->threads, threads))
		return -EINVAL;
	return 0;
}

static int open_all(struct pk_evsel *e, int cgroup_fd, unsigned long flags)
{
	int nc = pk_cpu_map_nr(e->cpus), nt = pk_thread_map_nr(e->threads);

	for (int c = 0; c < nc; c++) {
		for (int t = 0; t < nt; t++) {
			int cpu = pk_cpu_map_cpu(e->cpus, c);
			int pid = cgroup_fd >= 0 ? cgroup_fd
				: pk_thread_map_tid(e->threads, t);
			int *lfd = pk__evsel_fd_slot(e->leader, c, t);
			int fd = open_one(e, pid, cpu,
					  e->leader == e ? -1 : *lfd, flags);

			if (fd < 0) {
				pk_debug("event '%s': open on cpu %d pid %d: %s\n",
					 e->name, cpu, pid, pk_strerror(fd));
				return fd;
			}
			e->fds[c * nt + t] = fd;
		}
	}
	return 0;
}

static int apply_filter(struct pk_evsel *e)
{
	int n = pk_cpu_map_nr(e->cpus) * pk_thread_map_nr(e->threads);

	for (int i = 0; e->filter && i < n; i++) {
		int err = pk__sys_ioc_set_filter(e->fds[i], e->filter);

		if (err) {
			pk_warn("event '%s': filter '%s': %s\n", e->name,
				e->filter, pk_strerror(err));
			return err;
		}
	}
	return 0;
}

static int prepare(struct pk_evsel *e, struct pk_cpu_map *cpus,
		   struct pk_thread_map *threads,
		   const struct pk_open_opts *opts, int *cgroup_fd)
{
	int n = pk_cpu_map_nr(cpus) * pk_thread_map_nr(threads);

	if (!PK_OPTS_VALID(opts, pk_open_opts) || !cpus || !threads || !n)
		return -EINVAL;
	if (e->fds)
		return -EBUSY;
	if (opts && opts->cgroup) {
		if (pk_cpu_map_cpu(cpus, 0) < 0) {
			pk_warn("event '%s': cgroup counting needs real CPUs\n",
				e->name);
			return -EINVAL;
		}
		*cgroup_fd = pk__cgroup_open(opts->cgroup);
		if (*cgroup_fd < 0)
			return *cgroup_fd;
	}
	e->fds = pk__malloc((size_t)n * sizeof(int));
	if (!e->fds)
		return -ENOMEM;
	memset(e->fds, 0xff, (size_t)n * sizeof(int));
	e->cpus = pk_cpu_map_get(cpus);
	e->threads = pk_thread_map_get(threads);
	return 0;
}

static int open_once(struct pk_evsel *e, struct pk_cpu_map *cpus,
		     struct pk_thread_map *threads,
		     const struct pk_open_opts *opts)
{
	unsigned long flags = PERF_FLAG_FD_CLOEXEC;
	int cgroup_fd = -1;
	int err = check_leader(e, cpus, threads);

	if (!err)
		err = prepare(e, cpus, threads, opts, &cgroup_fd);
	if (err) {
		pk__sys_close(cgroup_fd);
		if (err != -EBUSY)
			e->open_errno = err;
		return err;
	}
	if (opts)
		flags |= opts->flags;
	if (cgroup_fd >= 0)
		flags |= PERF_FLAG_PID_CGROUP;
	err = open_all(e, cgroup_fd, flags);
	if (!err)
		err = apply_filter(e);
	pk__sys_close(cgroup_fd);
	e->open_errno = err;
	if (err)
		pk__evsel_close_fds(e);
	return err;
}

int pk_evsel_open(struct pk_evsel *e, struct pk_cpu_map *cpus,
		  struct pk_thread_map *threads,
		  const struct pk_open_opts *opts)
{
	struct pk_open_opts o = { .sz = sizeof(o) };
	const struct pk_open_opts *use = opts;
	char msg[256];
	int err, again;
	unsigned int top;

	/* A caller's older, smaller struct: the fields it lacks stay 0
	 * (an invalid one goes on to be refused). */
	if (opts && PK_OPTS_VALID(opts, pk_open_opts)) {
		memcpy(&o, opts, PK_MIN(opts->sz, sizeof(o)));
		use = &o;
	}
	top = e->attr.precise_ip;
	do {
		struct perf_event_attr tried = e->attr;

		err = open_once(e, cpus, threads, use);
		again = err ? pk__open_fallback(e, err, o.fallbacks, top, msg,
						sizeof(msg)) : 0;
		if (o.attempt)
			o.attempt(o.attempt_ctx, e, &tried, err,
				  again > 0 ? msg : NULL, again);
	} while (again > 0);
	return err;
}

int pk_evlist_open(struct pk_evlist *l, struct pk_cpu_map *cpus,
		   struct pk_thread_map *threads,
		   const struct pk_open_opts *opts, bool keep_going)
{
	int opened = 0;

	for (int i = 0; i < l->nr; i++) {
		int err = pk_evsel_open(l->entries[i], cpus, threads, opts);

		if (!err) {
			opened++;
			continue;
		}
		if (!keep_going) {
			pk_evlist_close(l);
			return err;
		}
		pk_debug("event '%s' not opened: %s\n", l->entries[i]->name,
			 pk_strerror(err));
	}
	return opened;
}

void pk_evsel_close(struct pk_evsel *e)
{
	pk__evsel_close_fds(e);
}

void pk_evlist_close(struct pk_evlist *l)
{
	/* Members first, so no leader fd closes under an open member. */
	for (int i = l->nr - 1; i >= 0; i--)
		pk__evsel_close_fds(l->entries[i]);
}

bool pk_evsel_is_open(const struct pk_evsel *e)
{
	return e->fds != NULL;
}

int pk_evsel_open_errno(const struct pk_evsel *e)
{
	return e->open_errno;
}

int pk_evsel_fd(const struct pk_evsel *e, int cpu_idx, int thread_idx)
{
	int *slot;

	if (!e->fds)
		return -EBADF;
	slot = pk__evsel_fd_slot(e, cpu_idx, thread_idx);
	return slot ? *slot : -EINVAL;
}

struct pk_cpu_map *pk_evsel_cpus(const struct pk_evsel *e)
{
	return e->cpus;
}

struct pk_thread_map *pk_evsel_threads(const struct pk_evsel *e)
{
	return e->threads;
}
