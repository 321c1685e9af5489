/* SPDX-License-Identifier: MIT */
/* The rings of an event list: one per CPU, the other fds redirected. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include "base/base.h"
#include "ring/ring.h"
#include "sys/sys.h"
#include <perfkit/counter.h>

struct pk_rings {
	int nr;
	struct pk_ring **ring;
	int *cpu;
	struct pollfd *pfd;
	int nr_pfd;
};

void pk_rings_free(struct pk_rings *rs)
{
	if (!rs)
		return;
	for (int i = 0; i < rs->nr; i++)
		pk_ring_free(rs->ring[i]);
	pk__free(rs->ring);
	pk__free(rs->cpu);
	pk__free(rs->pfd);
	pk__free(rs);
}

/*
 * Ring I takes every open fd of unit (CI, TI): the first fd met owns the
 * mapping unless ring I already has one; the others are redirected to it.
 */
static int map_unit(struct pk_rings *rs, struct pk_evlist *l, int i,
		    int ci, int ti, const struct pk_rings_opts *o)
{
	for (int e = 0; e < pk_evlist_nr(l); e++) {
		int fd = pk_evsel_fd(pk_evlist_evsel(l, e), ci, ti), err;

		if (fd < 0)
			continue;
		rs->pfd[rs->nr_pfd++] = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (rs->ring[i]) {
			err = pk__sys_ioc_set_output(fd, pk_ring_fd(rs->ring[i]));
			if (err)
				return err;
			continue;
		}
		rs->ring[i] = pk_ring_new(fd, o->pages, o->overwrite);
		if (!rs->ring[i])
			return -errno;
		if (o->aux_pages) {
			err = pk_ring_aux_map(rs->ring[i], o->aux_pages,
					      o->aux_overwrite);
			if (err)
				return err;
		}
	}
	return 0;
}

struct pk_rings *pk_rings_new(struct pk_evlist *l, const struct pk_rings_opts *opts)
{
	struct pk_rings_opts o = { .sz = sizeof(o), .pages = 128 };
	struct pk_evsel *first = pk_evlist_evsel(l, 0);
	struct pk_cpu_map *cpus;
	struct pk_thread_map *threads;
	struct pk_rings *rs;
	bool per_cpu;
	int nc, nt, n, err = 0;

	if (!PK_OPTS_VALID(opts, pk_rings_opts) || !first ||
	    !pk_evsel_is_open(first)) {
		errno = EINVAL;
		return NULL;
	}
	if (opts) {
		o.pages = opts->pages ? opts->pages : o.pages;
		o.overwrite = opts->overwrite;
		o.aux_pages = opts->aux_pages;
		o.aux_overwrite = opts->aux_overwrite;
	}
	cpus = pk_evsel_cpus(first);
	threads = pk_evsel_threads(first);
	nc = pk_cpu_map_nr(cpus);
	nt = pk_thread_map_nr(threads);
	per_cpu = pk_cpu_map_cpu(cpus, 0) >= 0;
	n = per_cpu ? nc : nt;
	rs = pk__zalloc(sizeof(*rs));
	if (rs) {
		rs->ring = pk__calloc((size_t)n, sizeof(*rs->ring));
		rs->cpu = pk__calloc((size_t)n, sizeof(*rs->cpu));
		rs->pfd = pk__calloc((size_t)(nc * nt * pk_evlist_nr(l)),
				    sizeof(*rs->pfd));
	}
	if (!rs || !rs->ring || !rs->cpu || !rs->pfd) {
		pk_rings_free(rs);
		errno = ENOMEM;
		return NULL;
	}
	rs->nr = n;
	/* Per CPU: one ring serves every thread on that CPU. */
	for (int i = 0; i < n && !err; i++) {
		rs->cpu[i] = per_cpu ? pk_cpu_map_cpu(cpus, i) : -1;
		for (int t = 0; t < (per_cpu ? nt : 1) && !err; t++)
			err = per_cpu ? map_unit(rs, l, i, i, t, &o) :
					map_unit(rs, l, i, 0, i, &o);
	}
	if (err) {
		pk_rings_free(rs);
		errno = -err;
		return NULL;
	}
	return rs;
}

int pk_rings_nr(const struct pk_rings *rs)
{
	return rs->nr;
}

struct pk_ring *pk_rings_get(const struct pk_rings *rs, int idx)
{
	return idx >= 0 && idx < rs->nr ? rs->ring[idx] : NULL;
}

int pk_rings_cpu(const struct pk_rings *rs, int idx)
{
	return idx >= 0 && idx < rs->nr ? rs->cpu[idx] : -EINVAL;
}

int pk_rings_poll(struct pk_rings *rs, int timeout_ms, int *hup)
{
	int n = poll(rs->pfd, (nfds_t)rs->nr_pfd, timeout_ms), h = 0, in = 0;

	if (n < 0)
		return -errno;
	for (int i = 0; i < rs->nr_pfd; i++) {
		if (rs->pfd[i].revents & (POLLHUP | POLLERR))
			h++;
		if (rs->pfd[i].revents & POLLIN)
			in++;
	}
	if (hup)
		*hup = h;
	return in;
}

int pk_rings_pause(struct pk_rings *rs, bool pause)
{
	for (int i = 0; i < rs->nr; i++) {
		int err = pk__sys_ioc_pause_output(pk_ring_fd(rs->ring[i]), pause);

		if (err)
			return err;
	}
	return 0;
}
