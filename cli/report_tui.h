/* SPDX-License-Identifier: MIT */
/* perfkit report's browser (cli/report_tui.c). */
#ifndef PK_CLI_REPORT_TUI_H
#define PK_CLI_REPORT_TUI_H
#include <stdbool.h>
#include <perfkit/annotate.h>
#include <perfkit/report.h>

/*
 * Browses event EVENT (named NAME) of R laid out by PO on the terminal
 * until q or Ctrl-C; a annotates an entry's symbol with AN's samples
 * (NULL: not available). PID_KEY: the report sorts by pid (the t zoom
 * names threads comm(tid)). 0 or -errno (the terminal restored).
 */
int report_browse(struct pk_report *r, unsigned event, const char *name,
		  const struct pk_report_print_opts *po,
		  struct pk_annotate *an, bool pid_key);

#endif
