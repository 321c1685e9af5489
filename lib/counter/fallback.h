/* SPDX-License-Identifier: MIT */
/* Internal: perf's open fallbacks (enum pk_open_fallback). */
#ifndef PK_COUNTER_FALLBACK_H
#define PK_COUNTER_FALLBACK_H

#include <stddef.h>
#include <perfkit/counter.h>

/*
 * Applies the first of the ALLOWED fallbacks that answers ERR (a failed
 * open of EVSEL) to its attribute and name, and describes it in MSG.
 * TOP_PRECISE is the precise_ip the open began with. 1: changed, open
 * again (MSG a warning); 2: the same, MSG a debug note; 0: none applies;
 * -ENOMEM.
 */
int pk__open_fallback(struct pk_evsel *evsel, int err, unsigned int allowed,
		      unsigned int top_precise, char *msg, size_t size);

#endif
