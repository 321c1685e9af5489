/* SPDX-License-Identifier: MIT */
/* perfkit ftrace report --format=perfetto (ftrace_export.c). */
#ifndef PK_CLI_FTRACE_EXPORT_H
#define PK_CLI_FTRACE_EXPORT_H
#include <stdbool.h>
#include <stdio.h>
#include <perfkit/tracedat.h>

/* TD (read from IN) as trace-event JSON into OUT, the CPUS only when
 * NR_CPUS. 0, -ENOMEM, or the reader's error (the JSON is complete up to
 * it). */
int ftrace_export(struct pk_tracedat *td, const char *in, FILE *out,
		  const int *cpus, int nr_cpus);
/* --format=folded|flamegraph|pprof|speedscope: TD's kernel stack traces into OUT
 * (INVERTED: an icicle graph). Errors as ftrace_export(). */
int ftrace_export_stacks(struct pk_tracedat *td, const char *in, FILE *out,
			 const char *format, bool inverted, const int *cpus,
			 int nr_cpus);
#endif
