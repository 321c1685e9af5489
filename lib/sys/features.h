/* SPDX-License-Identifier: MIT */
/* Internal: feature probes used by the counter layer's open fallbacks. */
#ifndef PK_SYS_FEATURES_H
#define PK_SYS_FEATURES_H

#include <stdbool.h>
#include <linux/perf_event.h>
#include <perfkit/features.h>

/*
 * Makes ATTR fit the kernel: when attr->size is larger than the kernel's
 * struct, the size shrinks to it if the extra bytes are all zero. Returns
 * 0, or -E2BIG when a field the kernel does not know is set.
 */
int pk__features_fit_attr(struct perf_event_attr *attr);

/*
 * After an EINVAL: clears from ATTR / *FLAGS the newest feature in use
 * that the kernel lacks. Returns the feature cleared, or -1 when none is
 * left to try (the error is then genuine).
 */
int pk__features_fallback(struct perf_event_attr *attr, unsigned long *flags);

/* True when ATTR / FLAGS use FEATURE. */
bool pk__features_uses(enum pk_feature f, const struct perf_event_attr *attr,
		       unsigned long flags);

/* Test hook: force FEATURE to SUPPORTED (skipping the probe). */
void pk__features_force(enum pk_feature f, bool supported);
/* Test hook: forget every cached probe result. */
void pk__features_reset(void);

#endif
