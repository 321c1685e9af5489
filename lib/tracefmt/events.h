/* SPDX-License-Identifier: MIT */
/*
 * Internal: a source's event formats by ID, each compiled (fmt.h) on first
 * use. The users print a record with pk__tf_print() when pk__tf_events_get() gives
 * a program and with libtraceevent (tep.h) otherwise.
 */
#ifndef PK_TRACEFMT_EVENTS_H
#define PK_TRACEFMT_EVENTS_H
#include <stdint.h>
#include "tracefmt/fmt.h"
#include "tracefmt/tep.h"

struct tf_idx;

struct tf_events {
	const struct tf_tep_fmt *fmts;  /* borrowed; NULL text: left out */
	int nr_fmts;
	int long_size;
	unsigned flags;                 /* pk__tf_compile()'s */
	struct tf_idx *ids;             /* (ID, format index) by ID */
	int nr_ids;
	struct tf_event **evs;          /* format index -> compiled */
	uint8_t *state;                 /* 0 not yet, 1 compiled, 2 not */
};

/* 0 or -ENOMEM (then pk__tf_events_fini() it). */
int pk__tf_events_init(struct tf_events *t, const struct tf_tep_fmt *fmts,
		   int nr_fmts, int long_size, unsigned flags);
/* The format index of event ID (the first of equal IDs), or -1. */
int pk__tf_events_find(const struct tf_events *t, uint64_t id);
/* The print program of format FI (event ID), or NULL when the compiler
 * left it (or its print fmt) alone. */
const struct tf_event *pk__tf_events_get(struct tf_events *t, int fi,
				     uint64_t id);
void pk__tf_events_fini(struct tf_events *t);
#endif
