/* SPDX-License-Identifier: MIT */
/* Self-monitoring: events of the calling thread read through their page. */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "event/evsel.h"
#include "selfmon/mmap_read.h"
#include "sys/sys.h"
#include <perfkit/selfmon.h>

struct pk_selfmon {
	struct pk_evlist *evlist;
	int nr;
	size_t page_size;
	struct perf_event_mmap_page **pages; /* NULL where mmap failed */
	enum pk_selfmon_path *path;
	struct pk_counts *begin;
};

void pk_selfmon_free(struct pk_selfmon *m)
{
	if (!m)
		return;
	for (int i = 0; m->pages && i < m->nr; i++)
		pk__sys_munmap(m->pages[i], m->page_size);
	pk_evlist_free(m->evlist);
	pk__free(m->pages);
	pk__free(m->path);
	pk__free(m->begin);
	pk__free(m);
}

static int add_events(struct pk_selfmon *m, const struct perf_event_attr *a,
		      int n)
{
	for (int i = 0; i < n; i++) {
		struct perf_event_attr attr = a[i];
		int err;

		attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING;
		attr.inherit = 0;
		attr.disabled = 0;
		attr.enable_on_exec = 0;
		if (!attr.size)
			attr.size = sizeof(attr);
		err = pk_evlist_add(m->evlist, &attr, NULL);
		if (err < 0)
			return err;
	}
	return 0;
}

static int open_self(struct pk_selfmon *m)
{
	static const int self = 0;
	struct pk_cpu_map *cpus = pk_cpu_map_new_any();
	struct pk_thread_map *threads = pk_thread_map_new_array(1, &self);
	int err = -ENOMEM;

	if (cpus && threads)
		err = pk_evlist_open(m->evlist, cpus, threads, NULL, false);
	pk_cpu_map_put(cpus);
	pk_thread_map_put(threads);
	return err < 0 ? err : 0;
}

static void map_pages(struct pk_selfmon *m)
{
	for (int i = 0; i < m->nr; i++) {
		int fd = pk_selfmon_fd(m, i);

		m->pages[i] = pk__sys_mmap_event(fd, m->page_size, false);
		if (!m->pages[i])
			pk_debug("selfmon: event %d: no mmap page (%s): read(2) only\n",
				 i, pk_strerror(-errno));
	}
}

struct pk_selfmon *pk_selfmon_new(const struct perf_event_attr *attrs, int n)
{
	struct pk_selfmon *m;
	int err = -ENOMEM;

	if (n < 1 || !attrs) {
		errno = EINVAL;
		return NULL;
	}
	m = pk__zalloc(sizeof(*m));
	if (!m)
		return NULL;
	m->nr = n;
	m->page_size = pk__sys_page_size();
	m->evlist = pk_evlist_new();
	m->pages = pk__calloc((size_t)n, sizeof(*m->pages));
	m->path = pk__calloc((size_t)n, sizeof(*m->path));
	m->begin = pk__calloc((size_t)n, sizeof(*m->begin));
	if (m->evlist && m->pages && m->path && m->begin) {
		err = add_events(m, attrs, n);
		if (!err)
			err = open_self(m);
	}
	if (err) {
		pk_selfmon_free(m);
		errno = -err;
		return NULL;
	}
	map_pages(m);
	return m;
}

struct pk_selfmon *pk_selfmon_new_evlist(const struct pk_evlist *l)
{
	struct perf_event_attr *attrs;
	struct pk_selfmon *m;
	int n = l ? pk_evlist_nr(l) : 0;

	if (n < 1) {
		errno = EINVAL;
		return NULL;
	}
	attrs = pk__calloc((size_t)n, sizeof(*attrs));
	if (!attrs)
		return NULL;
	for (int i = 0; i < n; i++)
		attrs[i] = l->entries[i]->attr;
	m = pk_selfmon_new(attrs, n);
	pk__free(attrs);
	return m;
}

int pk_selfmon_nr(const struct pk_selfmon *m)
{
	return m->nr;
}

int pk_selfmon_fd(const struct pk_selfmon *m, int idx)
{
	if (idx < 0 || idx >= m->nr)
		return -EINVAL;
	return pk_evsel_fd(pk_evlist_evsel(m->evlist, idx), 0, 0);
}

static int read_one(struct pk_selfmon *m, int i, struct pk_counts *out)
{
	int err = PK_ERR_UNSUPP;

	if (m->pages[i])
		err = pk__mmap_page_read(m->pages[i], pk__mmap_hw_native(), out);
	if (!err) {
		m->path[i] = PK_SELFMON_RDPMC;
		return 0;
	}
	m->path[i] = PK_SELFMON_READ;
	return pk_evsel_read(pk_evlist_evsel(m->evlist, i), 0, 0, out);
}

int pk_selfmon_read(struct pk_selfmon *m, struct pk_counts *out)
{
	for (int i = 0; i < m->nr; i++) {
		int err = read_one(m, i, &out[i]);

		if (err)
			return err;
	}
	return 0;
}

int pk_selfmon_begin(struct pk_selfmon *m)
{
	return pk_selfmon_read(m, m->begin);
}

int pk_selfmon_end(struct pk_selfmon *m, struct pk_counts *out)
{
	int err = pk_selfmon_read(m, out);

	for (int i = 0; !err && i < m->nr; i++) {
		out[i].val -= m->begin[i].val;
		out[i].ena -= m->begin[i].ena;
		out[i].run -= m->begin[i].run;
	}
	return err;
}

enum pk_selfmon_path pk_selfmon_path(const struct pk_selfmon *m, int idx)
{
	return idx >= 0 && idx < m->nr ? m->path[idx] : PK_SELFMON_NONE;
}

const char *pk_selfmon_path_name(enum pk_selfmon_path p)
{
	return p == PK_SELFMON_RDPMC ? "rdpmc"
	     : p == PK_SELFMON_READ ? "read(2)" : "none";
}
