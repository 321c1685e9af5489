/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd report -w: wake-up latency. A successful sched_wakeup or
 * sched_wakeup_new notes when its task was woken (a second wake-up before
 * the task runs moves the time); the sched_switch to that task ends the
 * wait: " Latency: U.NNN usecs" goes after the switch's line and the
 * latency counts towards the summary (all tasks, and tasks switched in at
 * an RT priority, next_prio < 100, apart as well).
 */
#include <errno.h>
#include <string.h>
#include "base/bytes.h"
#include "ftrace/report.h"

enum { W_SWITCH, W_WAKEUP, W_WAKEUP_NEW };
static const char *const wake_names[] = {
	"sched_switch", "sched_wakeup", "sched_wakeup_new",
};

/* The field NAME of F: its offset and size, or false. */
static bool wake_field(const struct tf_event *e, const char *name,
		       struct rep_wake_field *f)
{
	int i = pk__tf_find_field(e, name);

	if (i < 0 || !e->fields[i].size || e->fields[i].size > 8 ||
	    (e->fields[i].size & (e->fields[i].size - 1)))
		return false;
	f->off = e->fields[i].off;
	f->size = e->fields[i].size;
	return true;
}

/* The name line of the format TEXT is "name: NAME". */
static bool fmt_named(const struct td_format *f, const char *name)
{
	size_t n = strlen(name);

	return f->text.len > 6 + n && !memcmp(f->text.p, "name: ", 6) &&
	       !memcmp(f->text.p + 6, name, n) &&
	       (f->text.p[6 + n] == '\n' || f->text.p[6 + n] == '\r');
}

int pk__rep_wake_init(struct rep_wake *w, struct pk_tracedat *td)
{
	memset(w, 0, sizeof(*w));
	w->big = td->big;
	for (int k = 0; k < 3; k++)
		w->fi[k] = -1;
	for (int i = td->nr_ftrace_fmts; i < td->nr_fmts; i++) {
		const struct td_format *f = &td->fmts[i];
		if (strcmp(f->system, "sched"))
			continue;
		for (int k = 0; k < 3; k++) {
			if (w->fi[k] >= 0 || !fmt_named(f, wake_names[k]))
				continue;
			struct tf_event e = { 0 };
			int err = pk__tf_compile(&e, f->text.p, f->text.len,
						 f->system, td->long_size, 0);
			bool ok = !err &&
				  wake_field(&e, k == W_SWITCH ? "next_pid" :
					     "pid", &w->pid[k]);
			if (ok && k != W_SWITCH)
				w->has_success[k] = wake_field(&e, "success",
							       &w->success[k]);
			if (ok && k == W_SWITCH)
				ok = wake_field(&e, "next_prio", &w->prio);
			pk__tf_event_fini(&e);
			if (err == -ENOMEM)
				return err;
			if (ok)
				w->fi[k] = i;
		}
	}
	return 0;
}

static bool wake_read(const struct rep_wake *w, const struct rep_wake_field *f,
		      const struct pk_tracedat_event *ev, uint64_t *v)
{
	if (f->off + f->size > ev->size)
		return false;
	*v = pk_ldn(ev->data + f->off, f->size, w->big);
	return true;
}

static void stat_add(struct rep_wake_stat *s, uint64_t lat, uint64_t ts)
{
	if (!s->n || lat > s->max) {
		s->max = lat;
		s->max_ts = ts;
	}
	if (!s->n || lat < s->min) {
		s->min = lat;
		s->min_ts = ts;
	}
	s->total += lat;
	s->n++;
}

int pk__rep_wake_event(struct rep_wake *w, int fi,
		       const struct pk_tracedat_event *ev, struct tf_out *o)
{
	uint64_t pid, v, *slot;
	int k;

	if (fi < 0)
		return 0;
	for (k = 0; k < 3 && w->fi[k] != fi; k++)
		;
	if (k == 3 || !wake_read(w, &w->pid[k], ev, &pid))
		return 0;
	if (k != W_SWITCH) {
		if (w->has_success[k] && wake_read(w, &w->success[k], ev, &v) &&
		    !v)
			return 0;
		bool added;
		if (!(slot = pk__hash_put(&w->woken, pid, &added)))
			return -ENOMEM;
		*slot = ev->ts + 1;     /* 0: not waiting */
		return 0;
	}
	if (!(slot = pk__hash_get(&w->woken, pid)) || !*slot)
		return 0;
	uint64_t lat = ev->ts - (*slot - 1);
	*slot = 0;
	if (wake_read(w, &w->prio, ev, &v) && (int64_t)v < 100)
		stat_add(&w->rt, lat, ev->ts);
	stat_add(&w->all, lat, ev->ts);
	if (tf_out_reserve(o, 64))
		return -ENOMEM;
	o->len += (size_t)snprintf(o->p + o->len, 64,
				   " Latency: %llu.%03llu usecs",
				   (unsigned long long)(lat / 1000),
				   (unsigned long long)(lat % 1000));
	return 0;
}

static void stat_print(const struct rep_wake_stat *s, FILE *out)
{
	uint64_t avg = s->total / s->n;
	/* the times in microseconds, rounded */
	uint64_t max_us = (s->max_ts + 500) / 1000;
	uint64_t min_us = (s->min_ts + 500) / 1000;

	fprintf(out, "\nAverage wakeup latency: %llu.%03llu usecs\n",
		(unsigned long long)(avg / 1000),
		(unsigned long long)(avg % 1000));
	fprintf(out, "Maximum Latency: %llu.%03llu usecs at timestamp: "
		"%llu.%06llu\n", (unsigned long long)(s->max / 1000),
		(unsigned long long)(s->max % 1000),
		(unsigned long long)(max_us / 1000000),
		(unsigned long long)(max_us % 1000000));
	fprintf(out, "Minimum Latency: %llu.%03llu usecs at timestamp: "
		"%llu.%06llu\n\n", (unsigned long long)(s->min / 1000),
		(unsigned long long)(s->min % 1000),
		(unsigned long long)(min_us / 1000000),
		(unsigned long long)(min_us % 1000000));
}

void pk__rep_wake_summary(const struct rep_wake *w, FILE *out)
{
	if (!w->all.n)
		return;
	stat_print(&w->all, out);
	if (!w->rt.n)
		return;
	fprintf(out, "RT task timings:\n");
	stat_print(&w->rt, out);
}

void pk__rep_wake_fini(struct rep_wake *w)
{
	pk__hash_fini(&w->woken);
}
