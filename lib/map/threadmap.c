/* SPDX-License-Identifier: MIT */
/*
 * Thread maps: the task lists events open on (any, tids, the tasks of pids,
 * an array).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/map.h>
#include "base/base.h"
#include "map/list.h"

/* Largest pid the kernel can hand out (PID_MAX_LIMIT on 64-bit). */
#define PK_TID_MAX 4194304

struct pk_thread_map {
	int refcnt;
	int nr;
	int tids[];
};

struct pk_thread_map *pk_thread_map_new_array(int nr, const int *tids)
{
	struct pk_thread_map *m;

	if (nr < 0 || (nr && !tids)) {
		errno = EINVAL;
		return NULL;
	}
	m = pk__malloc(sizeof(*m) + (size_t)nr * sizeof(int));
	if (!m)
		return NULL;
	m->refcnt = 1;
	m->nr = nr;
	if (nr)
		memcpy(m->tids, tids, (size_t)nr * sizeof(int));
	return m;
}

struct pk_thread_map *pk_thread_map_new_any(void)
{
	static const int any = -1;

	return pk_thread_map_new_array(1, &any);
}

static bool tid_exists(int tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", tid);
	return access(path, F_OK) == 0;
}

static int parse_ids(const char *list, int **ids, int *nr)
{
	int err = pk__int_list_parse(list, PK_TID_MAX, false, ids, nr);

	if (err)
		return err;
	for (int i = 0; i < *nr; i++) {
		if ((*ids)[i] == 0 || !tid_exists((*ids)[i])) {
			pk_debug("thread map: no such thread or process %d\n",
				(*ids)[i]);
			pk__free(*ids);
			*ids = NULL;
			return -ESRCH;
		}
	}
	return 0;
}

static struct pk_thread_map *map_or_errno(int err, int nr, int *ids)
{
	struct pk_thread_map *m = NULL;

	if (!err)
		m = pk_thread_map_new_array(nr, ids);
	pk__free(ids);
	if (err)
		errno = -err;
	return m;
}

struct pk_thread_map *pk_thread_map_new_tids(const char *list)
{
	int *ids, nr, err = parse_ids(list, &ids, &nr);

	if (!err)
		nr = pk__int_sort_uniq(ids, nr);
	return map_or_errno(err, nr, ids);
}

/* Appends the tasks of PID (sorted) to *IDS. */
static int add_tasks(int pid, int **ids, int *nr, int *cap)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int first = *nr, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!err && (d = readdir(dir))) {
		int tid = atoi(d->d_name);

		if (tid <= 0)
			continue;
		if (*nr == *cap) {
			int ncap = *cap ? *cap * 2 : 16;
			int *n = pk__realloc(*ids, (size_t)ncap * sizeof(int));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			*ids = n;
			*cap = ncap;
		}
		(*ids)[(*nr)++] = tid;
	}
	closedir(dir);
	if (!err)
		*nr = first + pk__int_sort_uniq(*ids + first, *nr - first);
	return err;
}

struct pk_thread_map *pk_thread_map_new_pids(const char *list)
{
	int *pids, np, *ids = NULL, nr = 0, cap = 0;
	int err = parse_ids(list, &pids, &np);

	for (int i = 0; !err && i < np; i++) {
		err = add_tasks(pids[i], &ids, &nr, &cap);
		if (err == -ESRCH)
			pk_debug("thread map: no such process %d\n", pids[i]);
	}
	pk__free(pids);
	return map_or_errno(err, nr, ids);
}

struct pk_thread_map *pk_thread_map_get(struct pk_thread_map *m)
{
	if (m)
		__atomic_add_fetch(&m->refcnt, 1, __ATOMIC_RELAXED);
	return m;
}

void pk_thread_map_put(struct pk_thread_map *m)
{
	if (m && __atomic_sub_fetch(&m->refcnt, 1, __ATOMIC_ACQ_REL) == 0)
		pk__free(m);
}

int pk_thread_map_nr(const struct pk_thread_map *m)
{
	return m ? m->nr : 0;
}

int pk_thread_map_tid(const struct pk_thread_map *m, int idx)
{
	if (!m || idx < 0 || idx >= m->nr)
		return -EINVAL;
	return m->tids[idx];
}
