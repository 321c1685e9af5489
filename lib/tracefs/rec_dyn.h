/* SPDX-License-Identifier: MIT */
/* Internal: the recorder's dynamic events, triggers, latency tracers. */
#ifndef PK_TRACEFS_REC_DYN_H
#define PK_TRACEFS_REC_DYN_H
#include <stdbool.h>
#include <stddef.h>
#include <perfkit/tracefs.h>

/* The main buffer's event list: the user's events, then the dynamic
 * events made for it ("GROUP:EVENT"), with their filters, triggers and
 * -v states (parallel arrays). */
struct pk__rec_dyn {
	char **names;           /* the dynamic events' specs */
	size_t nr;
	const char **events, **filters, **triggers;  /* NULL-terminated */
	bool *exclude;
};
/* Creates O's dynamic events and fills D. 0 or -errno (warned). */
int pk__rec_dyn_create(struct pk_tracefs *t, const struct pk_ftrace_rec_opts *o,
		       struct pk__rec_dyn *d);
void pk__rec_dyn_fini(struct pk__rec_dyn *d);
/* Adds each of the newline-separated TRIGGERS to EV, in order; the one
 * refused is copied to BAD (LEN bytes). 0 or -errno. */
int pk__rec_triggers(struct pk_tracefs *t, const char *instp, const char *ev,
		     const char *triggers, char *bad, size_t len);
/* tracing_thresh, hwlat width/window, tracing_max_latency. */
int pk__rec_latency_setup(struct pk_tracefs *t,
			  const struct pk_ftrace_rec_opts *o);
/* Whether tracer NAME runs only in the top level (latency tracers, hwlat). */
bool pk__rec_tracer_top_only(const char *name);
/* "\n" and the kernel's error_log entry of the last refused write, or "". */
const char *pk__rec_why(struct pk_tracefs *t, char *buf, size_t len);
#endif
