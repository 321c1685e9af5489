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
	char *errlog;           /* the kernel's error_log entry of the last
				   refused write (NULL: none) */
	int journal_fd;         /* the undo journal (-1: none yet) */
	char journal[640];      /* its path ("": none) */
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
/* Whether B (a file name) defines dynamic events (kprobe_events, ...):
 * never truncated, each event removed on its own. */
bool pk__tfs_is_dynevent_file(const char *b);
/* Writes VAL to PATH (appending or truncating) without saving it. */
int pk__tfs_do_write(struct pk_tracefs *t, const char *path, const char *val,
		     bool append);
/* The undo journal (journal.c): every undo entry also goes to a file
 * under $PERFKIT_RUNDIR (/run/perfkit) so that `perfkit ftrace reset`
 * can put back what a killed run changed. */
void pk__tfs_journal_note(struct pk_tracefs *t, const struct undo *u);
/* The run ended its restore: the journal goes (signal-safe). */
void pk__tfs_journal_done(struct pk_tracefs *t);
/* Replays the journals of dead processes on T's tracefs, newest entry
 * first. The number replayed, or -errno. */
int pk__tfs_journal_replay(struct pk_tracefs *t);
/* After a refused write of VAL to PATH: keeps the kernel's error_log
 * entry for it in T->errlog. */
void pk__tfs_note_error_log(struct pk_tracefs *t, const char *path,
			    const char *val);
/* Reads sysctl kernel/NAME: 0/1.., or -errno. */
int pk__tfs_sysctl_get(const struct pk_tracefs *t, const char *name);
/* Parses the text of a per_cpu/cpuN/stats file (or a trace.dat CPUSTAT
 * option, the same text after a "CPU: N" line) into *ST. */
void pk__tfs_stats_parse(const char *text, size_t len,
		     struct pk_tracefs_stats *st);
/* Writes sysctl kernel/NAME (saved and restored). */
int pk__tfs_sysctl_set(struct pk_tracefs *t, const char *name, const char *val);
#endif
