/* SPDX-License-Identifier: MIT */
/* perfkit report's browser (cli/report_tui.c). */
#ifndef PK_CLI_REPORT_TUI_H
#define PK_CLI_REPORT_TUI_H
#include <stdbool.h>
#include <stdint.h>
#include <perfkit/annotate.h>
#include <perfkit/report.h>

/*
 * Browses event EVENT (named NAME, sampled at SAMPLE_FREQ: its attr's
 * sample_freq, which perf's annotate title shows) of R laid out by PO on
 * the terminal until q or Ctrl-C; a annotates an entry's symbol with
 * AN's samples in perf's annotate browser (NULL: not available). SORT: the report's sort keys (NULL: the
 * default): d and t zoom as perf's when they hold the DSO and the
 * thread (comm or pid; with pid t names threads comm(tid)). 0 or -errno
 * (the terminal restored).
 */
int report_browse(struct pk_report *r, unsigned event, const char *name,
		  uint64_t sample_freq, const struct pk_report_print_opts *po,
		  struct pk_annotate *an, const char *sort);

#endif
