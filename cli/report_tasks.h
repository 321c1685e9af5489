/* SPDX-License-Identifier: MIT */
#ifndef PK_CLI_REPORT_TASKS_H
#define PK_CLI_REPORT_TASKS_H
#include <stdbool.h>
#include <stdio.h>
#include <perfkit/session.h>

/* perf report --tasks (--mmaps: MMAPS) of the session's threads into F:
 * 0, -ENOMEM, or -ENOENT when a parent is not among them. */
int report_tasks_print(struct pk_session *s, FILE *f, bool mmaps);
#endif
