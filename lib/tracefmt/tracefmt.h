/* SPDX-License-Identifier: MIT */
/* Internal: tracing data layout checks. */
#ifndef PK_TRACEFMT_TRACEFMT_H
#define PK_TRACEFMT_TRACEFMT_H
#include <stddef.h>

/* Walks perf's tracing data layout without handing the formats to
 * libtraceevent (whose format parser is not hardened against hostile
 * text): 0 or -EPROTO. For the fuzz target and tests. */
int pk__tracefmt_check(const void *data, size_t size);
#endif
