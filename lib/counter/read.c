/* SPDX-License-Identifier: MIT */
/* Reading counts: one fd, a whole group, or the sum over every fd. */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "event/evsel.h"
#include "sys/sys.h"
#include <perfkit/counter.h>

/* Bytes one read needs for a group of NR (header + nr x 3 words max). */
static size_t group_bytes(int nr)
{
	return (3 + (size_t)nr * 3) * sizeof(uint64_t);
}

/*
 * Reads FD into a buffer big enough for NR group entries and parses it.
 * A read of 0 bytes is a pinned counter in error state: -ENODATA.
 */
static int read_parse(int fd, uint64_t rf, int nr, struct pk_counts *out,
		      int max)
{
	uint64_t small[3 + 3 * 16];
	size_t len = group_bytes(nr);
	void *buf = len <= sizeof(small) ? small : pk__malloc(len);
	ssize_t n;
	int ret;

	if (!buf)
		return -ENOMEM;
	n = pk__sys_read(fd, buf, len);
	if (n == 0)
		ret = -ENODATA;
	else if (n < 0)
		ret = (int)n;
	else
		ret = pk_read_format_parse(rf, buf, (size_t)n, out, max);
	if (buf != small)
		pk__free(buf);
	return ret;
}

/*
 * Index of member E (read through FD) in its group's read: by id when the
 * format has ids (robust when a member failed to open), else by list
 * position relative to the leader.
 */
static int group_pos(const struct pk_evsel *e, int fd,
		     const struct pk_counts *all, int n)
{
	uint64_t id;

	if (!(e->attr.read_format & PERF_FORMAT_ID))
		return e->idx - e->leader->idx;
	if (pk__sys_ioc_id(fd, &id))
		return -1;
	for (int i = 0; i < n; i++)
		if (all[i].id == id)
			return i;
	return -1;
}

int pk_evsel_read_group(struct pk_evsel *leader, int cpu_idx,
			int thread_idx, struct pk_counts *out, int max)
{
	int fd = pk_evsel_fd(leader, cpu_idx, thread_idx);
	uint64_t rf = leader->attr.read_format;

	if (fd < 0)
		return fd;
	if (!(rf & PERF_FORMAT_GROUP))
		return -EINVAL;
	return read_parse(fd, rf, leader->leader->nr_members, out, max);
}

int pk_evsel_read(struct pk_evsel *e, int cpu_idx, int thread_idx,
		  struct pk_counts *out)
{
	int fd = pk_evsel_fd(e, cpu_idx, thread_idx);
	uint64_t rf = e->attr.read_format;
	int nr = e->leader->nr_members, pos, n;
	struct pk_counts *all;

	if (fd < 0)
		return fd;
	if (!(rf & PERF_FORMAT_GROUP)) {
		n = read_parse(fd, rf, 1, out, 1);
		return n < 0 ? n : 0;
	}
	all = pk__calloc((size_t)nr, sizeof(*all));
	if (!all)
		return -ENOMEM;
	n = read_parse(fd, rf, nr, all, nr);
	pos = n > 0 ? group_pos(e, fd, all, n) : -1;
	if (n >= 0 && (pos < 0 || pos >= n))
		n = -ENOENT;
	if (n > 0)
		*out = all[pos];
	pk__free(all);
	return n < 0 ? n : 0;
}

int pk_evsel_read_sum(struct pk_evsel *e, struct pk_counts *out)
{
	int nc = pk_cpu_map_nr(e->cpus), nt = pk_thread_map_nr(e->threads);
	int good = 0;

	memset(out, 0, sizeof(*out));
	if (!e->fds)
		return -EBADF;
	for (int c = 0; c < nc; c++) {
		for (int t = 0; t < nt; t++) {
			struct pk_counts one;
			int err = pk_evsel_read(e, c, t, &one);

			if (err == -ENODATA)
				continue;
			if (err)
				return err;
			if (!good++)
				out->id = one.id;
			out->val += one.val;
			out->ena += one.ena;
			out->run += one.run;
			out->lost += one.lost;
		}
	}
	return good ? 0 : -ENODATA;
}
