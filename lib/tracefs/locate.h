/* SPDX-License-Identifier: MIT */
/* Internal: finding tracefs (lib/tracefs/locate.c). */
#ifndef PK_TRACEFS_LOCATE_H
#define PK_TRACEFS_LOCATE_H
#include <stdbool.h>
#include <stddef.h>

/*
 * Puts tracefs's directory into BUF (LEN bytes): /sys/kernel/tracing or
 * /sys/kernel/debug/tracing when it has events/, else a tracefs mount of
 * /proc/mounts, else a new mount at /sys/kernel/tracing (*MOUNTED true).
 * 0, -EACCES (not permitted to look or mount), -ENOENT or -ENAMETOOLONG.
 */
int pk__tracefs_locate(char *buf, size_t len, bool *mounted);
#endif
