/* SPDX-License-Identifier: MIT */
/*
 * The recorder's dynamic events, event triggers and latency tracers
 * (used by recorder.c's set-up and writer).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/tracefs.h>
#include "base/base.h"
#include "tracefs/rec_dyn.h"

bool pk_tracer_is_latency(const char *name)
{
	static const char *const l[] = {
		"irqsoff", "preemptoff", "preemptirqsoff", "wakeup",
		"wakeup_rt", "wakeup_dl",
	};
	for (size_t i = 0; name && i < PK_ARRAY_SIZE(l); i++)
		if (!strcmp(name, l[i]))
			return true;
	return false;
}

bool pk__rec_tracer_top_only(const char *name)
{
	return name && (pk_tracer_is_latency(name) || !strcmp(name, "hwlat"));
}

/* "\n" and the kernel's error_log entry when it logged why, else "". */
static const char *why(struct pk_tracefs *t, char *buf, size_t len)
{
	const char *el = pk_tracefs_error_log(t);
	if (!el)
		return "";
	snprintf(buf, len, "\n%s", el);
	return buf;
}

static size_t count(const char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

void pk__rec_dyn_fini(struct pk__rec_dyn *d)
{
	for (size_t i = 0; i < d->nr; i++)
		pk__free(d->names[i]);
	pk__free(d->names);
	pk__free(d->events);
	pk__free(d->filters);
	pk__free(d->triggers);
	pk__free(d->exclude);
	memset(d, 0, sizeof(*d));
}

int pk__rec_dyn_create(struct pk_tracefs *t,
		       const struct pk_ftrace_rec_opts *o,
		       struct pk__rec_dyn *d)
{
	size_t ne = count(o->events), nd = count(o->dynevents);
	char buf[4096];

	memset(d, 0, sizeof(*d));
	d->names = pk__calloc(nd + 1, sizeof(char *));
	d->events = pk__calloc(ne + nd + 1, sizeof(char *));
	d->filters = pk__calloc(ne + nd + 1, sizeof(char *));
	d->triggers = pk__calloc(ne + nd + 1, sizeof(char *));
	d->exclude = pk__calloc(ne + nd + 1, sizeof(bool));
	if (!d->names || !d->events || !d->filters || !d->triggers ||
	    !d->exclude)
		return -ENOMEM;
	for (size_t i = 0; i < ne; i++) {
		d->events[i] = o->events[i];
		d->filters[i] = o->event_filters ? o->event_filters[i] : NULL;
		d->triggers[i] = o->event_triggers ? o->event_triggers[i]
						   : NULL;
		d->exclude[i] = o->event_exclude && o->event_exclude[i];
	}
	for (size_t i = 0; i < nd; i++) {
		struct pk_dynevent de;
		int e = pk_tracefs_dynevent_add(t, o->dynevents[i], &de);
		if (e) {
			pk_warn("ftrace record: dynamic event '%s': %s%s",
				o->dynevents[i], e == -EOPNOTSUPP ?
				"this kernel has no file for it" :
				strerror(-e), why(t, buf, sizeof(buf)));
			return e;
		}
		if (asprintf(&d->names[d->nr], "%s:%s", de.group, de.event) < 0) {
			d->names[d->nr] = NULL;
			return -ENOMEM;
		}
		d->events[ne + d->nr] = d->names[d->nr];
		d->nr++;
	}
	return 0;
}

int pk__rec_triggers(struct pk_tracefs *t, const char *instp,
		     const char *ev, const char *triggers, char *bad,
		     size_t len)
{
	char *s = pk__strdup(triggers), *save = NULL;
	int e = s ? 0 : -ENOMEM;

	for (char *tr = s ? strtok_r(s, "\n", &save) : NULL; !e && tr;
	     tr = strtok_r(NULL, "\n", &save)) {
		e = pk_tracefs_event_trigger(t, instp, ev, tr);
		if (e < 0)
			snprintf(bad, len, "%s", tr);
		else
			e = 0;
	}
	pk__free(s);
	return e;
}

const char *pk__rec_why(struct pk_tracefs *t, char *buf, size_t len)
{
	return why(t, buf, len);
}

int pk__rec_latency_setup(struct pk_tracefs *t,
			  const struct pk_ftrace_rec_opts *o)
{
	uint64_t width = 0;
	int e = 0;

	if (o->set_thresh &&
	    (e = pk_tracefs_write_u64(t, NULL, "tracing_thresh", o->thresh_us)))
		return e;
	if (o->hwlat_width_us || o->hwlat_window_us) {
		/* the width never exceeds the window: the one that keeps it so
		 * goes first */
		pk_tracefs_read_u64(t, NULL, "hwlat_detector/width", &width);
		bool width_first = o->hwlat_window_us &&
				   o->hwlat_window_us < width;
		if (width_first && o->hwlat_width_us &&
		    (e = pk_tracefs_write_u64(t, NULL, "hwlat_detector/width",
					      o->hwlat_width_us)))
			return e;
		if (o->hwlat_window_us &&
		    (e = pk_tracefs_write_u64(t, NULL, "hwlat_detector/window",
					      o->hwlat_window_us)))
			return e;
		if (!width_first && o->hwlat_width_us &&
		    (e = pk_tracefs_write_u64(t, NULL, "hwlat_detector/width",
					      o->hwlat_width_us)))
			return e;
	}
	if (pk_tracer_is_latency(o->tracer) &&
	    pk_tracefs_has(t, NULL, "tracing_max_latency"))
		e = pk_tracefs_write_u64(t, NULL, "tracing_max_latency", 0);
	return e;
}
