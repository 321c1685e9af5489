/* SPDX-License-Identifier: MIT */
/*
 * perf's open fallbacks: what changes in an event the kernel refused before
 * it is opened again (enum pk_open_fallback). The messages are perf's
 * verbose warnings, word for word, so `-v` output matches perf's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include "counter/fallback.h"
#include "event/evsel.h"
#include <perfkit/features.h>

/* perf's modifier suffix for an attribute (":u", ":k", ":pppH", ...). */
static void attr_modifiers(const struct perf_event_attr *a, char *buf,
			   size_t size)
{
	bool guest_default = false;
	char m[16];
	int n = 0;

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			m[n++] = 'k';
		if (!a->exclude_user)
			m[n++] = 'u';
		if (!a->exclude_hv)
			m[n++] = 'h';
		guest_default = true;
	}
	for (unsigned int i = 0; i < a->precise_ip && i < 3; i++)
		m[n++] = 'p';
	if (a->precise_ip)
		guest_default = true;
	if (a->exclude_host || a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			m[n++] = 'H';
		if (!a->exclude_guest)
			m[n++] = 'G';
	}
	snprintf(buf, size, "%s%.*s", n ? ":" : "", n, m);
}

static int to_user_only(struct pk_evsel *e, int paranoid, char *msg,
			size_t size)
{
	bool has_sep = strchr(e->name, ':') || strchr(e->name, '/');
	char name[512];

	snprintf(name, sizeof(name), "%s%su", e->name, has_sep ? "" : ":");
	if (pk_evsel_set_name(e, name))
		return -ENOMEM;
	e->attr.exclude_kernel = 1;
	e->attr.exclude_hv = 1;
	snprintf(msg, size, "kernel.perf_event_paranoid=%d, trying to fall "
		 "back to excluding kernel and hypervisor  samples", paranoid);
	return 1;
}

static int to_cpu_clock(struct pk_evsel *e, char *msg, size_t size)
{
	char name[32], mods[16];

	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr_modifiers(&e->attr, mods, sizeof(mods));
	snprintf(name, sizeof(name), "cpu-clock%s", mods);
	if (pk_evsel_set_name(e, name))
		return -ENOMEM;
	snprintf(msg, size, "The cycles event is not supported, trying to "
		 "fall back to cpu-clock-ticks");
	return 1;
}

static bool is_cycles(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE &&
	       a->config == PERF_COUNT_HW_CPU_CYCLES;
}

/* 'P' events step precise_ip down; past 0 it is put back (2: retry). */
static int lower_precise(struct pk_evsel *e, unsigned int top, char *msg,
			 size_t size)
{
	if (!e->attr.precise_ip) {
		e->attr.precise_ip = top & 3;
		return 0;
	}
	e->attr.precise_ip--;
	snprintf(msg, size, "decreasing precise_ip by one (%u)",
		 (unsigned int)e->attr.precise_ip);
	return 2;
}

int pk__open_fallback(struct pk_evsel *e, int err, unsigned int allowed,
		      unsigned int top_precise, char *msg, size_t size)
{
	int paranoid, r;

	if ((allowed & PK_OPEN_FALLBACK_PRECISE) &&
	    (pk_evsel_flags(e) & PK_EVSEL_PRECISE_MAX) &&
	    (r = lower_precise(e, top_precise, msg, size)))
		return r;

	if ((allowed & PK_OPEN_FALLBACK_CYCLES) && is_cycles(&e->attr) &&
	    (err == -ENOENT || err == -ENXIO || err == -ENODEV))
		return to_cpu_clock(e, msg, size);
	if ((allowed & PK_OPEN_FALLBACK_USER) && err == -EACCES &&
	    !e->attr.exclude_kernel && !e->attr.exclude_user &&
	    !pk_perf_event_paranoid(&paranoid) && paranoid > 1)
		return to_user_only(e, paranoid, msg, size);
	return 0;
}
