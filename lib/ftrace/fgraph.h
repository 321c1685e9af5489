/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd's own layouts for ftrace events that libtraceevent's plugins do
 * not cover: function_graph entries and exits (with leaf folding: an entry
 * directly followed by its exit prints as "func();" with the duration) and
 * kernel stack traces.
 */
#ifndef PK_FTRACE_FGRAPH_H
#define PK_FTRACE_FGRAPH_H
#include <stdbool.h>
#include <stdint.h>
#include <perfkit/ftrace.h>

struct tep_handle;

struct td_fgraph {
	const struct pk_tracedat_event *peek;  /* the next record, or NULL */
	bool consumed;          /* the handler folded PEEK into a leaf */
	int long_size;
	uint8_t buf[256];       /* zeroed copy of PEEK's first bytes */
};

/* Registers the handlers on TEP; FG must outlive it. */
void pk__td_fgraph_register(struct tep_handle *tep, struct td_fgraph *fg);
#endif
