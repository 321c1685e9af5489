/* SPDX-License-Identifier: MIT */
/* Internal: the tracefs handle, shared by tracefs.c and tracefs_ctl.c. */
#ifndef PK_TRACEFS_TRACEFS_H
#define PK_TRACEFS_TRACEFS_H
#include <signal.h>
#include <stdbool.h>
#include <perfkit/tracefs.h>

enum undo_kind { U_TRUNC, U_APPEND, U_RMDIR, U_UMOUNT, U_DONE };

struct undo {
	enum undo_kind kind;
	char *path;
	char *data;     /* what to write (U_TRUNC, U_APPEND) */
};

struct pk_tracefs {
	char dir[1024];
	char sysctl[512];       /* /proc/sys/kernel or a test's directory */
	int log_fd;             /* every write logged here (-1: none) */
	struct undo *undo;
	int nr_undo, cap_undo;
	char **saved;   /* paths already saved or created */
	int nr_saved;
	volatile sig_atomic_t restoring;
};

int pk__tfs_push_undo(struct pk_tracefs *t, enum undo_kind k, const char *path,
		  const char *data);
bool pk__tfs_saved_already(struct pk_tracefs *t, const char *path);
/* Writes VAL to the absolute PATH, saving it first. 0 or -errno. */
int pk__tfs_write_abs(struct pk_tracefs *t, const char *path, const char *val,
		  bool append);
/* Writes LEN bytes to PATH without saving anything (markers). */
int pk__tfs_write_raw(struct pk_tracefs *t, const char *path, const void *data,
		  size_t len);
/* Reads sysctl kernel/NAME: 0/1.., or -errno. */
int pk__tfs_sysctl_get(const struct pk_tracefs *t, const char *name);
/* Parses the text of a per_cpu/cpuN/stats file (or a trace.dat CPUSTAT
 * option, the same text after a "CPU: N" line) into *ST. */
void pk__tfs_stats_parse(const char *text, size_t len,
		     struct pk_tracefs_stats *st);
/* Writes sysctl kernel/NAME (saved and restored). */
int pk__tfs_sysctl_set(struct pk_tracefs *t, const char *name, const char *val);
#endif
