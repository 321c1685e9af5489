// SPDX-License-Identifier: MIT
/*
 * The report's filters (perf report's --comm, --dso, --symbols, --pid,
 * --tid): comma-separated lists; a sample outside them counts in the
 * totals and nowhere else.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"

static int list_init(struct rp_list *l, const char *s)
{
	char *save = NULL, *t;

	if (!s)
		return 0;
	l->buf = pk__strdup(s);
	l->w = pk__calloc(strlen(s) / 2 + 2, sizeof(*l->w));
	if (!l->buf || !l->w)
		return -ENOMEM;
	for (t = strtok_r(l->buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		l->w[l->n++] = t;
	return l->n ? 0 : -EINVAL;
}

static void list_fini(struct rp_list *l)
{
	pk__free(l->buf);
	pk__free(l->w);
}

static bool has(const struct rp_list *l, const char *s)
{
	for (unsigned i = 0; i < l->n; i++)
		if (s && !strcmp(l->w[i], s))
			return true;
	return !l->buf;
}

static bool has_id(const struct rp_list *l, int32_t id)
{
	for (unsigned i = 0; i < l->n; i++)
		if (atoi(l->w[i]) == id)
			return true;
	return !l->buf;
}

int pk__rp_filters_init(struct pk_report *r)
{
	int err = list_init(&r->comms, r->o.comms);

	if (!err)
		err = list_init(&r->dsos, r->o.dsos);
	if (!err)
		err = list_init(&r->syms, r->o.syms);
	if (!err)
		err = list_init(&r->pids, r->o.pids);
	if (!err)
		err = list_init(&r->tids, r->o.tids);
	r->o.comms = r->o.dsos = r->o.syms = r->o.pids = r->o.tids = NULL;
	return err;
}

void pk__rp_filters_fini(struct pk_report *r)
{
	list_fini(&r->comms);
	list_fini(&r->dsos);
	list_fini(&r->syms);
	list_fini(&r->pids);
	list_fini(&r->tids);
}

bool pk__rp_shown_task(const struct pk_report *r, const char *comm,
		       int32_t pid, int32_t tid)
{
	return has(&r->comms, comm) && has_id(&r->pids, pid) &&
	       has_id(&r->tids, tid);
}

bool pk__rp_shown(const struct pk_report *r, const char *comm, int32_t pid,
		  int32_t tid, uint32_t sym)
{
	const struct rp_sym *s = &r->sym[sym];

	return has(&r->comms, comm) && has(&r->dsos, s->dso) &&
	       has(&r->syms, s->name) && has_id(&r->pids, pid) &&
	       has_id(&r->tids, tid);
}

/* perf's filters of an entry made when it prints (--symbol-filter, of
 * the first event; --socket-filter): whether entry E of event A stays. */
static bool entry_listed(const struct pk_report *r, unsigned a,
			 const struct rp_entry *e)
{
	const struct rp_sym *s = &r->sym[e->sym];

	if (r->o.symbol_filter && a == 0 &&
	    (!s->name || !strstr(s->name, r->o.symbol_filter)))
		return false;
	return !r->o.by_socket || e->socket == r->o.socket;
}

/* perf's -x, a filter of an entry as it is made: whether E has a parent. */
static bool entry_parented(const struct pk_report *r, const struct rp_entry *e)
{
	return !r->o.exclude_other ||
	       ((r->keymask & RK_PARENT) && e->parent && e->parent[0] != '[');
}

void pk__rp_filters_late(struct pk_report *r)
{
	if (!r->o.symbol_filter && !r->o.by_socket && !r->o.exclude_other)
		return;
	for (unsigned a = 0; a < r->nh; a++)
		for (uint32_t i = 0; i < r->h[a].n; i++) {
			struct rp_entry *e = &r->h[a].e[i];

			if (!entry_parented(r, e))
				e->shown = false;
			if (e->shown && !entry_listed(r, a, e)) {
				e->shown = false;
				e->unlisted = true;
			}
		}
}
