/* SPDX-License-Identifier: MIT */
/*
 * perf script's --time in full: several ranges ("S,E S,E"), percentages
 * of the recording (made ranges once the file tells its first and last
 * sample times), and the instruction trace decoded for them as perf's
 * intel-pt.c does (fast forward, decoding stopped past the last range).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "script.h"

/* perf's check of several ranges: each ends before the next starts (an
 * open end passes). */
static bool overlap(const struct cli_time_ranges *t)
{
	for (unsigned i = 0; i + 1 < t->n; i++)
		if (t->r[i][1] >= t->r[i + 1][0])
			return true;
	return false;
}

/* The ranges of ARG (percentages of FIRST..LAST) into F. */
static int set_ranges(struct script_filter *f, const char *arg,
		      uint64_t first, uint64_t last)
{
	if (cli_time_ranges_parse(&f->tr, arg, first, last) ||
	    overlap(&f->tr)) {
		fprintf(stderr, "Invalid time string\n");
		return -EINVAL;
	}
	if (f->tr.n == 1) {
		f->tstart = f->tr.r[0][0];
		f->tend = f->tr.r[0][1];
	}
	return 0;
}

int script_filter_times(struct script_filter *f, const char *arg)
{
	f->time_str = arg;
	if (strchr(arg, '%'))
		return 0;	/* needs the file: script_filter_file */
	return set_ranges(f, arg, 0, 0);
}

/* --reltime: perf moves every range by the first sample's time (the
 * HEADER_SAMPLE_TIME feature's; open ends too, as perf 6.1 does). */
static void shift_ranges(struct script_filter *f, uint64_t first)
{
	for (unsigned i = 0; i < f->tr.n; i++) {
		f->tr.r[i][0] += first;
		f->tr.r[i][1] += first;
	}
	if (f->tr.n == 1) {
		f->tstart = f->tr.r[0][0];
		f->tend = f->tr.r[0][1];
	}
}

int script_filter_file(struct script_filter *f, struct pk_perfdata *pd,
		       bool reltime)
{
	uint64_t first = 0, last = 0;
	int err;

	if (!f->time_str)
		return 0;
	if (pk_perfdata_feat_u64(pd, PK_HEADER_SAMPLE_TIME, 0, &first) ||
	    pk_perfdata_feat_u64(pd, PK_HEADER_SAMPLE_TIME, 1, &last))
		first = last = 0;
	if (!strchr(f->time_str, '%')) {
		if (reltime)
			shift_ranges(f, first);
		return 0;
	}
	if (!first && !last) {
		/* perf's words */
		fprintf(stderr, "HINT: no first/last sample time found in perf data.\n"
			"Please use latest perf binary to execute 'perf record'\n"
			"(if '--buildid-all' is enabled, please set '--timestamp-boundary').\n");
		return -EINVAL;
	}
	err = set_ranges(f, f->time_str, first, last);
	if (!err && reltime)
		shift_ranges(f, first);
	return err;
}

int script_filter_itrace(const struct script_filter *f, struct pk_itrace *it)
{
	struct pk_itrace_time_range r[CLI_MAX_TIME_RANGES];

	if (!f->time_str)
		return 0;
	for (unsigned i = 0; i < f->tr.n; i++) {
		r[i].start = f->tr.r[i][0];
		r[i].end = f->tr.r[i][1];
	}
	return pk_itrace_set_time_ranges(it, r, f->tr.n);
}
