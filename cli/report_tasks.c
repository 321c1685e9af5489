// SPDX-License-Identifier: MIT
/*
 * perfkit report --tasks / --mmaps: perf report's tree of the threads the
 * file names (pid, tid, ppid, comm; children under their parent, one
 * column deeper), with --mmaps each thread's mappings under it. The order
 * is perf's: threads in its table's order (tid modulo 256, then tid), each
 * hung under its parent as met, the roots in the order their chains end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>
#include "cli.h"
#include "report_tasks.h"

struct task {
	struct pk_session_task t;
	char *comm;
	int parent;           /* index of the parent task, -1 for a root */
	int first, last, next; /* children (first, last) and next sibling */
	bool listed;
};

struct tasks {
	struct task *v;
	int n, cap;
	int first_root, last_root;
	struct pk_session *s;
	FILE *f;
	int indent;           /* the maps': the width of their thread's line */
	bool mmaps;
};

static int add_task(void *ctx, const struct pk_session_task *t)
{
	struct tasks *ts = ctx;

	/* perf's --tasks reads no MMAP records */
	if (t->mapped_only && !ts->mmaps)
		return 0;
	if (ts->n == ts->cap) {
		int cap = ts->cap ? 2 * ts->cap : 64;
		struct task *v = realloc(ts->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ts->v = v;
		ts->cap = cap;
	}
	ts->v[ts->n] = (struct task){ .t = *t, .comm = strdup(t->comm),
				      .parent = -1, .first = -1, .last = -1,
				      .next = -1 };
	if (!ts->v[ts->n].comm)
		return -ENOMEM;
	ts->n++;
	return 0;
}

static int find_tid(const struct tasks *ts, int32_t tid)
{
	for (int i = 0; i < ts->n; i++)
		if (ts->v[i].t.tid == tid)
			return i;
	return -1;
}

static void append(struct tasks *ts, int *first, int *last, int i)
{
	if (*last >= 0)
		ts->v[*last].next = i;
	else
		*first = i;
	*last = i;
	ts->v[i].listed = true;
}

/* perf's tasks_list: hangs task I under its parent, and so on up to a
 * root, which goes to the roots. -ENOENT: a parent not among the
 * threads. */
static int link_up(struct tasks *ts, int i)
{
	for (int guard = 0; guard <= ts->n; guard++) {
		int p;

		if (ts->v[i].listed)
			return 0;
		if (ts->v[i].t.ppid == -1) {
			append(ts, &ts->first_root, &ts->last_root, i);
			return 0;
		}
		p = find_tid(ts, ts->v[i].t.ppid);
		if (p < 0)
			return -ENOENT;
		append(ts, &ts->v[p].first, &ts->v[p].last, i);
		i = p;
	}
	return 0;
}

static int put_map(void *ctx, const struct pk_session_mapping *m)
{
	const struct tasks *ts = ctx;

	fprintf(ts->f, "%*s  %" PRIx64 "-%" PRIx64 " %c%c%c%c %08" PRIx64
		" %" PRIu64 " %s\n", ts->indent, "", m->start, m->end,
		m->prot & PROT_READ ? 'r' : '-',
		m->prot & PROT_WRITE ? 'w' : '-',
		m->prot & PROT_EXEC ? 'x' : '-',
		m->flags & MAP_SHARED ? 's' : 'p', m->pgoff, m->ino, m->name);
	return 0;
}

static int put_level(struct tasks *ts, int i, int level)
{
	for (; i >= 0; i = ts->v[i].next) {
		const struct task *t = &ts->v[i];
		int indent = fprintf(ts->f, "  %8d %8d %8d |%*s", t->t.pid,
				     t->t.tid, t->t.ppid, level, "");
		int err;

		fprintf(ts->f, "%s\n", t->comm);
		if (ts->mmaps) {
			ts->indent = indent;
			err = pk_session_for_each_mapping(ts->s, t->t.tid,
							  put_map, ts);
			if (err)
				return err;
		}
		if (level > 4096)
			return -ELOOP;
		err = put_level(ts, t->first, level + 1);
		if (err)
			return err;
	}
	return 0;
}

int report_tasks_print(struct pk_session *s, FILE *f, bool mmaps)
{
	struct tasks ts = { .first_root = -1, .last_root = -1, .s = s,
			    .f = f, .mmaps = mmaps };
	int err = pk_session_for_each_task(s, add_task, &ts);

	for (int i = 0; !err && i < ts.n; i++)
		err = link_up(&ts, i);
	if (!err) {
		fprintf(f, "# %8s %8s %8s  %s\n", "pid", "tid", "ppid", "comm");
		err = put_level(&ts, ts.first_root, 0);
	}
	for (int i = 0; i < ts.n; i++)
		free(ts.v[i].comm);
	free(ts.v);
	return err;
}
