/* SPDX-License-Identifier: MIT */
/* Internal: perf's open fallbacks (enum pk_open_fallback). */
#ifndef PK_COUNTER_FALLBACK_H
#define PK_COUNTER_FALLBACK_H

#include <stddef.h>
#include <perfkit/counter.h>

/*
 * Applies the first of the ALLOWED fallbacks that answers ERR (a failed
 * open of EVSEL) to its attribute and name, and describes it in MSG.
 * 1: changed, open again; 0: none applies; -ENOMEM.
 */
int pk__open_fallback(struct pk_evsel *evsel, int err, unsigned int allowed,
		      char *msg, size_t size);

#endif
