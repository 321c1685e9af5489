/* SPDX-License-Identifier: MIT */
/*
 * The undo journal: a copy of a handle's undo log in a file, so that a run
 * killed with SIGKILL (no handler, no restore) can be put back later by
 * `perfkit ftrace reset` (pk_tracefs_reset_stale). One file per handle,
 * $PERFKIT_RUNDIR/tracefs-PID-N (default /run/perfkit): a first line
 * "D<TAB>TRACEFS_DIR", then one line per undo entry, "T|A|R<TAB>PATH<TAB>
 * DATA" (truncating write, append, rmdir), with backslash, tab and newline
 * escaped. Removed when the handle's restore ends. Best effort: without a
 * writable directory there is no journal, and nothing else changes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/base.h"
#include "tracefs/tracefs.h"

static const char *run_dir(void)
{
	const char *d = getenv("PERFKIT_RUNDIR");
	return d && *d ? d : "/run/perfkit";
}

static void esc(struct pk_buf *b, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			pk__buf_printf(b, "\\\\");
		else if (*s == '\t')
			pk__buf_printf(b, "\\t");
		else if (*s == '\n')
			pk__buf_printf(b, "\\n");
		else
			pk__buf_append(b, s, 1);
	}
}

static void unesc(char *s)
{
	char *w = s;
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*w++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
		} else {
			*w++ = *s;
		}
	}
	*w = 0;
}

static int journal_open(struct pk_tracefs *t)
{
	static int seq;
	struct pk_buf b = { 0 };
	int fd;

	if (mkdir(run_dir(), 0700) < 0 && errno != EEXIST)
		return -errno;
	snprintf(t->journal, sizeof(t->journal), "%s/tracefs-%d-%d",
		 run_dir(), (int)getpid(), __atomic_fetch_add(&seq, 1,
							    __ATOMIC_RELAXED));
	fd = open(t->journal, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
		  O_CLOEXEC, 0600);
	if (fd < 0) {
		t->journal[0] = 0;
		return -errno;
	}
	pk__buf_printf(&b, "D\t");
	esc(&b, t->dir);
	pk__buf_printf(&b, "\n");
	if (!b.data || pk__write_all(fd, b.data, b.len)) {
		close(fd);
		unlink(t->journal);
		t->journal[0] = 0;
		pk__buf_fini(&b);
		return -EIO;
	}
	pk__buf_fini(&b);
	t->journal_fd = fd;
	return 0;
}

void pk__tfs_journal_note(struct pk_tracefs *t, const struct undo *u)
{
	struct pk_buf b = { 0 };
	char k;

	switch (u->kind) {
	case U_TRUNC: k = 'T'; break;
	case U_APPEND: k = 'A'; break;
	case U_RMDIR: k = 'R'; break;
	default: return;      /* a mount of our own goes with the process */
	}
	if (t->journal_fd < 0 && journal_open(t) < 0) {
		pk_debug("tracefs: no undo journal in %s", run_dir());
		return;
	}
	pk__buf_printf(&b, "%c\t", k);
	esc(&b, u->path);
	pk__buf_printf(&b, "\t");
	esc(&b, u->data);
	pk__buf_printf(&b, "\n");
	if (b.data && pk__write_all(t->journal_fd, b.data, b.len))
		pk_debug("tracefs: undo journal %s: %s", t->journal,
			 strerror(errno));
	pk__buf_fini(&b);
}

void pk__tfs_journal_done(struct pk_tracefs *t)
{
	if (t->journal_fd < 0)
		return;
	close(t->journal_fd);
	unlink(t->journal);
	t->journal_fd = -1;
	t->journal[0] = 0;
}

/* Replays the journal at PATH (entries of T's tracefs only). 1 when it
 * was one of T's, 0 when not, -errno. */
static int replay(struct pk_tracefs *t, const char *path)
{
	char *s, **lines = NULL;
	int n = 0, r = 0;

	if (pk__read_file(path, &s) < 0)
		return -errno;
	for (char *ln = strtok(s, "\n"); ln; ln = strtok(NULL, "\n")) {
		char **l = pk__realloc(lines, (size_t)(n + 1) * sizeof(*l));
		if (!l) {
			r = -ENOMEM;
			break;
		}
		lines = l;
		lines[n++] = ln;
	}
	if (!r && n && !strncmp(lines[0], "D\t", 2)) {
		unesc(lines[0] + 2);
		r = strcmp(lines[0] + 2, t->dir) ? 0 : 1;
	}
	for (int i = n - 1; r == 1 && i > 0; i--) {
		char *p = lines[i] + 2, *d = strchr(p, '\t');
		if (strlen(lines[i]) < 2 || lines[i][1] != '\t' || !d)
			continue;
		*d++ = 0;
		unesc(p);
		unesc(d);
		if (lines[i][0] == 'R')
			rmdir(p);
		else if (lines[i][0] == 'T' || lines[i][0] == 'A')
			pk__tfs_do_write(t, p, d, lines[i][0] == 'A');
	}
	if (r == 1)
		unlink(path);
	pk__free(lines);
	pk__free(s);
	return r;
}

int pk__tfs_journal_replay(struct pk_tracefs *t)
{
	struct dirent **d;
	int n, done = 0;

	n = scandir(run_dir(), &d, NULL, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	/* newest run last: replayed first */
	for (int i = n - 1; i >= 0; i--) {
		char p[PATH_MAX], *end;
		long pid = strncmp(d[i]->d_name, "tracefs-", 8) ? 0 :
			   strtol(d[i]->d_name + 8, &end, 10);
		if (pid > 0 && *end == '-' && pid != getpid() &&
		    kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
			snprintf(p, sizeof(p), "%s/%s", run_dir(),
				 d[i]->d_name);
			if (replay(t, p) > 0)
				done++;
		}
	}
	for (int i = 0; i < n; i++)
		free(d[i]);
	free(d);
	return done;
}
