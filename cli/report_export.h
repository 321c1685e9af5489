/* SPDX-License-Identifier: MIT */
/* perfkit report --format: the profile in other tools' formats. */
#ifndef PK_CLI_REPORT_EXPORT_H
#define PK_CLI_REPORT_EXPORT_H
#include <stdbool.h>
#include <stdio.h>

struct export_opts {
	const char *format;      /* folded, flamegraph, pprof, speedscope,
				    perfetto */
	const char *output;      /* -o, NULL: standard output */
	const char *input;
	const char *base;        /* --base: a differential flame graph */
	bool inverted;           /* icicle */
	bool threads;            /* roots per thread (-s with pid) */
	const char *comms, *pids, *tids, *cpus, *time;
	int max_stack;           /* -1: perf's */
	const char *guest_kallsyms; /* the default guest's kallsyms */
	bool guest_code;            /* a VM's code is its process's */
	bool force;                 /* -f: files other users own too */
};

/* Whether FORMAT is one of --format's. */
bool report_export_known(const char *format);
/* Writes the export of INPUT; the exit status. */
int report_export(const struct export_opts *e);
/* report_samples.c: the pprof, speedscope or perfetto output into OUT.
 * 0, -EINVAL (said), -ENOMEM, -EIO. */
int report_samples(const struct export_opts *e, FILE *out);
#endif
