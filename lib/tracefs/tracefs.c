/* SPDX-License-Identifier: MIT */
/*
 * tracefs control: a thin layer over tracefs files that remembers what it
 * changed and puts it back (files, instances, mounts) on every exit path.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/tracefs.h>
#include "base/base.h"
#include "tracefs/locate.h"
#include "tracefs/tracefs.h"


int pk__tfs_push_undo(struct pk_tracefs *t, enum undo_kind k, const char *path,
		     const char *data)
{
	if (t->nr_undo == t->cap_undo) {
		int cap = t->cap_undo ? t->cap_undo * 2 : 32;
		struct undo *u = pk__realloc(t->undo, cap * sizeof(*u));
		if (!u)
			return -ENOMEM;
		t->undo = u;
		t->cap_undo = cap;
	}
	struct undo *u = &t->undo[t->nr_undo];
	u->kind = k;
	u->path = pk__strdup(path);
	u->data = data ? pk__strdup(data) : NULL;
	if (!u->path || (data && !u->data)) {
		pk__free(u->path);
		pk__free(u->data);
		return -ENOMEM;
	}
	t->nr_undo++;
	pk__tfs_journal_note(t, u);
	return 0;
}

static struct pk_tracefs *tfs_alloc(void)
{
	struct pk_tracefs *t = pk__zalloc(sizeof(*t));
	const char *log = getenv("PERFKIT_TRACEFS_LOG");

	if (!t)
		return NULL;
	snprintf(t->sysctl, sizeof(t->sysctl), "/proc/sys/kernel");
	t->log_fd = -1;
	t->journal_fd = -1;
	if (log && *log)
		t->log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
				 0644);
	return t;
}

static int tfs_open_at(const char *dir, const char *sysctl_dir,
		       struct pk_tracefs **out)
{
	struct pk_tracefs *t;
	struct stat st;

	*out = NULL;
	if (!dir || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return -ENOENT;
	if (strlen(dir) >= sizeof(((struct pk_tracefs *)0)->dir) ||
	    (sysctl_dir && strlen(sysctl_dir) >=
	     sizeof(((struct pk_tracefs *)0)->sysctl)))
		return -ENAMETOOLONG;
	if (!(t = tfs_alloc()))
		return -ENOMEM;
	snprintf(t->dir, sizeof(t->dir), "%s", dir);
	if (sysctl_dir)
		snprintf(t->sysctl, sizeof(t->sysctl), "%s", sysctl_dir);
	*out = t;
	return 0;
}

struct pk_tracefs *pk_tracefs_open_at(const char *dir, const char *sysctl_dir)
{
	struct pk_tracefs *obj = NULL;
	int e = tfs_open_at(dir, sysctl_dir, &obj);

	return pk__ptr_or_errno(e, obj);
}

static int tfs_open(struct pk_tracefs **out)
{
	const char *env = getenv("PERFKIT_TRACEFS");
	struct pk_tracefs *t;
	bool mounted;
	int e;

	*out = NULL;
	if (env && *env)
		return tfs_open_at(env, getenv("PERFKIT_SYSCTL"), out);
	if (!(t = tfs_alloc()))
		return -ENOMEM;
	e = pk__tracefs_locate(t->dir, sizeof(t->dir), &mounted);
	if (e) {
		pk_warn("tracefs: not mounted and cannot mount it at "
			"/sys/kernel/tracing: %s", strerror(-e));
		if (t->log_fd >= 0)
			close(t->log_fd);
		pk__free(t);
		return e;
	}
	if (mounted) {
		pk__tfs_push_undo(t, U_UMOUNT, t->dir, NULL);
		pk_info("tracefs: mounted at %s", t->dir);
	}
	*out = t;
	return 0;
}

struct pk_tracefs *pk_tracefs_open(void)
{
	struct pk_tracefs *obj = NULL;
	int e = tfs_open(&obj);

	return pk__ptr_or_errno(e, obj);
}

const char *pk_tracefs_dir(const struct pk_tracefs *t) { return t->dir; }

int pk_tracefs_path(const struct pk_tracefs *t, const char *instance,
		    const char *file, char *buf, size_t len)
{
	int n;

	if (instance && *instance)
		n = snprintf(buf, len, "%s/instances/%s/%s", t->dir, instance,
			     file);
	else
		n = snprintf(buf, len, "%s/%s", t->dir, file);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

long pk_tracefs_read(const struct pk_tracefs *t, const char *instance,
		     const char *file, char **out)
{
	char p[PATH_MAX];
	char *s;
	long n;

	*out = NULL;
	if (pk_tracefs_path(t, instance, file, p, sizeof(p)))
		return -ENAMETOOLONG;
	n = pk__read_file(p, &s);
	if (n < 0)
		return n;
	*out = strdup(s);
	pk__free(s);
	return *out ? n : -ENOMEM;
}

long pk_tracefs_read_clock(const struct pk_tracefs *t, const char *instance,
			   char **out)
{
	long n = pk_tracefs_read(t, instance, "trace_clock", out);
	char *s = *out, *o = n < 0 ? NULL : strchr(s, '['),
	     *e = o ? strchr(o, ']') : NULL;

	if (n < 0)
		return n;
	if (!e) {
		free(s);
		*out = NULL;
		return -EINVAL;
	}
	n = e - o - 1;
	memmove(s, o + 1, (size_t)n);
	s[n] = 0;
	return n;
}

bool pk__tfs_saved_already(struct pk_tracefs *t, const char *path)
{
	for (int i = 0; i < t->nr_saved; i++) {
		size_t n = strlen(t->saved[i]);
		if (!strncmp(t->saved[i], path, n) &&
		    (path[n] == 0 || path[n] == '/'))
			return true;
	}
	return false;
}

static int mark_saved(struct pk_tracefs *t, const char *path)
{
	char **s = pk__realloc(t->saved, (t->nr_saved + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	t->saved = s;
	if (!(s[t->nr_saved] = pk__strdup(path)))
		return -ENOMEM;
	t->nr_saved++;
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int save_file(struct pk_tracefs *t, const char *path);

static bool is_list_file(const char *b)
{
	static const char *const l[] = {
		"set_event_pid", "set_event_notrace_pid", "set_ftrace_pid",
		"set_ftrace_notrace_pid", "set_ftrace_filter",
		"set_ftrace_notrace", "set_graph_function", "set_graph_notrace",
		"set_event", "stack_trace_filter",
	};
	for (size_t i = 0; i < PK_ARRAY_SIZE(l); i++)
		if (!strcmp(b, l[i]))
			return true;
	return false;
}

/* A filter command line ("func:cmd[:arg]"; "func:mod:m" is a filter). */
static bool is_filter_command(const char *ln)
{
	const char *c = strchr(ln, ':');
	return c && strncmp(c + 1, "mod:", 4) != 0;
}

/* The snapshot buffer: freed again at restore when it was free before.
 * A CPU's snapshot file (per_cpu/cpuN/snapshot) cannot free it ("0" is
 * refused there): the buffer's own snapshot file is noted instead. */
static int save_snapshot(struct pk_tracefs *t, const char *path)
{
	char buf[512], top[PATH_MAX];
	const char *pc = strstr(path, "/per_cpu/cpu");
	int fd, r = 0;
	ssize_t n;

	if (pc) {
		snprintf(top, sizeof(top), "%.*s/snapshot", (int)(pc - path),
			 path);
		if (!pk__tfs_saved_already(t, top) &&
		    (r = save_snapshot(t, top)) < 0)
			return r;
		return mark_saved(t, path);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	if (strstr(buf, "Snapshot is freed"))
		r = pk__tfs_push_undo(t, U_TRUNC, path, "0");
	return r ? r : mark_saved(t, path);
}

static int save_cpu_sizes(struct pk_tracefs *t, const char *path)
{
	char dir[PATH_MAX], p[PATH_MAX];
	struct dirent **d;
	int n, r = 0;

	snprintf(dir, sizeof(dir), "%.*s/per_cpu",
		 (int)(strrchr(path, '/') - path), path);
	n = scandir(dir, &d, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (!r && !strncmp(d[i]->d_name, "cpu", 3)) {
			int k = snprintf(p, sizeof(p), "%s/%s/buffer_size_kb",
					 dir, d[i]->d_name);
			r = k < 0 || k >= (int)sizeof(p) ? -ENAMETOOLONG
							 : save_file(t, p);
		}
		free(d[i]);
	}
	if (n >= 0)
		free(d);
	return r;
}

/* Saves how to put PATH back, before its first change. */
static int save_file(struct pk_tracefs *t, const char *path)
{
	const char *b = base_name(path);
	char *s, *v;
	long n;
	int r;

	/* nothing to put back: markers, triggers (undone one by one), the
	 * buffer contents (clearing cannot be undone) */
	if (pk__tfs_saved_already(t, path) || !strcmp(b, "trace_marker") ||
	    !strcmp(b, "trace_marker_raw") || !strcmp(b, "trigger") ||
	    !strcmp(b, "trace") || pk__tfs_is_dynevent_file(b))
		return 0;
	if (!strcmp(b, "snapshot"))
		return save_snapshot(t, path);
	n = pk__read_file(path, &s);
	if (n < 0)
		return (int)n;
	if (is_list_file(b)) {
		struct pk_buf l = { 0 };
		for (char *ln = strtok(s, "\n"); ln; ln = strtok(NULL, "\n")) {
			if (*ln == '#' || !strcmp(ln, "no pid") ||
			    (!strcmp(b, "set_ftrace_filter") &&
			     is_filter_command(ln)))
				continue;
			pk__buf_printf(&l, "%s%s", l.len ? " " : "", ln);
		}
		r = l.len ? pk__tfs_push_undo(t, U_APPEND, path, l.data) : 0;
		if (!r)
			r = pk__tfs_push_undo(t, U_TRUNC, path, "");
		pk__buf_fini(&l);
	} else {
		v = s;
		if (!strcmp(b, "trace_clock")) {
			char *o = strchr(s, '['), *e = o ? strchr(o, ']') : NULL;
			if (e) {
				*e = 0;
				v = o + 1;
			}
		}
		while (isspace((unsigned char)*v))
			v++;
		size_t len = strlen(v);
		while (len && isspace((unsigned char)v[len - 1]))
			v[--len] = 0;
		if (!strcmp(b, "buffer_size_kb") && !strcmp(v, "X")) {
			/* per-CPU sizes differ: save each of them */
			pk__free(s);
			r = save_cpu_sizes(t, path);
			return r ? r : mark_saved(t, path);
		}
		if (!strcmp(b, "buffer_size_kb")) {
			/* "7 (expanded: 1408)": the size it will have */
			char *x = strstr(v, "expanded: ");
			if (x)
				v = x + 10;
			v[strspn(v, "0123456789")] = 0;
		}
		if (!strcmp(b, "filter") && !strcmp(v, "none"))
			v = "0";
		r = *v || !strcmp(b, "filter") ? pk__tfs_push_undo(t, U_TRUNC, path, v)
					       : 0;
	}
	pk__free(s);
	return r ? r : mark_saved(t, path);
}

/* "W|A path value\n" to the log (path relative to the tracefs directory);
 * signal-safe: no allocation, no stdio. */
static void log_write(struct pk_tracefs *t, const char *path, const void *val,
		      size_t len, bool append)
{
	char line[4096];
	size_t dl = strlen(t->dir), n = 0, pl;

	if (t->log_fd < 0)
		return;
	if (!strncmp(path, t->dir, dl) && path[dl] == '/')
		path += dl + 1;
	pl = PK_MIN(strlen(path), (size_t)1024);
	len = PK_MIN(len, sizeof(line) - pl - 4);
	if (len && ((const char *)val)[len - 1] == '\n')
		len--;          /* a definition's closing newline */
	line[n++] = append ? 'A' : 'W';
	line[n++] = ' ';
	memcpy(line + n, path, pl);
	n += pl;
	line[n++] = ' ';
	for (size_t i = 0; i < len; i++) {
		char c = ((const char *)val)[i];
		line[n++] = c == '\n' ? ' ' : c;
	}
	line[n++] = '\n';
	if (write(t->log_fd, line, n) < 0)
		return;
}

static int do_write_n(struct pk_tracefs *t, const char *path,
		      const void *val, size_t len, bool append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? 0 : O_TRUNC));
	int err = 0;

	log_write(t, path, val, len, append);
	if (fd < 0)
		return -errno;
	if (append)    /* regular files (a test's tree) need it; tracefs ignores it */
		lseek(fd, 0, SEEK_END);
	/* list files (set_ftrace_filter, set_event, ...) take one word per
	 * write(2) and say so by a short count: go on with the rest */
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, (const char *)val + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)w;
	}
	close(fd);
	return err;
}

static int do_write(struct pk_tracefs *t, const char *path, const char *val,
		    bool append)
{
	return do_write_n(t, path, val, strlen(val), append);
}

int pk__tfs_do_write(struct pk_tracefs *t, const char *path, const char *val,
		     bool append)
{
	return do_write(t, path, val, append);
}

int pk__tfs_write_raw(struct pk_tracefs *t, const char *path, const void *data,
		  size_t len)
{
	return do_write_n(t, path, data, len, false);
}

int pk__tfs_write_abs(struct pk_tracefs *t, const char *path, const char *val,
		  bool append)
{
	int r;

	if ((r = save_file(t, path)) < 0 && r != -ENOENT)
		return r;
	pk__free(t->errlog);
	t->errlog = NULL;
	r = do_write(t, path, val, append);
	if (r && r != -ENOMEM)
		pk__tfs_note_error_log(t, path, val);
	if (r)
		pk_debug("tracefs: writing '%s' to %s: %s", val, path,
			 strerror(-r));
	return r;
}

int pk__tfs_sysctl_get(const struct pk_tracefs *t, const char *name)
{
	char p[600];
	uint64_t v;
	int r;

	snprintf(p, sizeof(p), "%s/%s", t->sysctl, name);
	r = pk__read_file_u64(p, &v);
	return r < 0 ? r : (int)PK_MIN(v, (uint64_t)INT_MAX);
}

int pk__tfs_sysctl_set(struct pk_tracefs *t, const char *name, const char *val)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/%s", t->sysctl, name);
	return pk__tfs_write_abs(t, p, val, false);
}

static int tf_write(struct pk_tracefs *t, const char *instance,
		    const char *file, const char *val, bool append)
{
	char p[PATH_MAX];

	if (pk_tracefs_path(t, instance, file, p, sizeof(p)))
		return -ENAMETOOLONG;
	return pk__tfs_write_abs(t, p, val, append);
}

int pk_tracefs_write(struct pk_tracefs *t, const char *instance,
		     const char *file, const char *val)
{
	return tf_write(t, instance, file, val, false);
}

int pk_tracefs_append(struct pk_tracefs *t, const char *instance,
		      const char *file, const char *val)
{
	return tf_write(t, instance, file, val, true);
}

static struct pk_tracefs *sig_tracefs;
static struct sigaction old_act[3];
static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };

static void sigs_set(sigset_t *s)
{
	sigemptyset(s);
	for (int i = 0; i < 3; i++)
		sigaddset(s, sigs[i]);
}

int pk_tracefs_instance_new(struct pk_tracefs *t, const char *name)
{
	char p[PATH_MAX];
	sigset_t block, old;
	int r = 0;

	if (!*name || strchr(name, '/'))
		return -EINVAL;
	snprintf(p, sizeof(p), "%s/instances/%s", t->dir, name);
	/* a restore from a signal handler finds it made and noted, or not made */
	sigs_set(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (mkdir(p, 0755) < 0)
		r = -errno;
	else if ((r = pk__tfs_push_undo(t, U_RMDIR, p, NULL)) ||
		 (r = mark_saved(t, p)))
		rmdir(p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

int pk_tracefs_instance_remove(struct pk_tracefs *t, const char *name)
{
	char p[PATH_MAX];

	if (!*name || strchr(name, '/'))
		return -EINVAL;
	snprintf(p, sizeof(p), "%s/instances/%s", t->dir, name);
	if (rmdir(p) < 0)
		return -errno;
	for (int i = 0; i < t->nr_undo; i++)   /* nothing left to undo */
		if (t->undo[i].kind == U_RMDIR && !strcmp(t->undo[i].path, p))
			t->undo[i].kind = U_DONE;
	return 0;
}

static int dirs_only(const struct dirent *d)
{
	return d->d_name[0] != '.' &&
	       (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN);
}

typedef int (*event_fn)(struct pk_tracefs *t, const char *instance,
			const char *relpath, const void *arg);

/* Calls FN for events/SYS/EV of every event SPEC matches: "SYS:EV" (globs
 * in either), "all", or a bare NAME as trace-cmd resolves it: every event
 * of the systems NAME matches and every event NAME matches in any system
 * (both globs). ftrace's events only where the system is named "ftrace". */
static int for_events(struct pk_tracefs *t, const char *instance,
		      const char *spec, event_fn fn, const void *arg)
{
	char sysp[256], evp[256], dir[2048], rel[PATH_MAX];
	struct dirent **sys, **ev;
	const char *c;
	bool bare;      /* no ':': a system or an event of any system */
	int n, count = 0, err = 0;

	if (!strcmp(spec, "all"))
		spec = "*:*";
	c = strchr(spec, ':');
	bare = !c;
	if (c) {
		snprintf(sysp, sizeof(sysp), "%.*s", (int)(c - spec), spec);
		snprintf(evp, sizeof(evp), "%s", c + 1);
	} else {
		snprintf(sysp, sizeof(sysp), "%s", spec);
		snprintf(evp, sizeof(evp), "%s", spec);
	}
	if (pk_tracefs_path(t, instance, "events", dir, sizeof(dir)))
		return -ENAMETOOLONG;
	n = scandir(dir, &sys, dirs_only, alphasort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		char sd[PATH_MAX];
		bool whole = !fnmatch(sysp, sys[i]->d_name, 0);
		if ((!whole && !bare) ||
		    (!strcmp(sys[i]->d_name, "ftrace") && strcmp(sysp, "ftrace")))
			goto next_sys;
		snprintf(sd, sizeof(sd), "%s/%s", dir, sys[i]->d_name);
		int m = scandir(sd, &ev, dirs_only, alphasort);
		for (int k = 0; k < m; k++) {
			if (!err && ((bare && whole) ||
				     !fnmatch(evp, ev[k]->d_name, 0))) {
				snprintf(rel, sizeof(rel), "events/%s/%s",
					 sys[i]->d_name, ev[k]->d_name);
				int r = fn(t, instance, rel, arg);
				if (r < 0)
					err = r;
				else
					count++;
			}
			free(ev[k]);
		}
		if (m >= 0)
			free(ev);
next_sys:
		free(sys[i]);
	}
	free(sys);
	if (err)
		return err;
	return count ? count : -ENOENT;
}

static int ev_file(struct pk_tracefs *t, const char *instance,
		   const char *rel, const char *file, const char *val,
		   bool append)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", rel, file);
	return tf_write(t, instance, p, val, append);
}

static int ev_enable(struct pk_tracefs *t, const char *inst, const char *rel,
		     const void *arg)
{
	return ev_file(t, inst, rel, "enable", arg ? "1" : "0", false);
}

static int ev_filter(struct pk_tracefs *t, const char *inst, const char *rel,
		     const void *arg)
{
	return ev_file(t, inst, rel, "filter", arg ? arg : "0", false);
}

static int ev_trigger(struct pk_tracefs *t, const char *inst, const char *rel,
		      const void *arg)
{
	char p[PATH_MAX], undo[4096];
	int r;

	/* one line each (the kernel strips the newline; a list file of a
	 * test's tree keeps them apart) */
	snprintf(undo, sizeof(undo), "%s\n", (const char *)arg);
	if ((r = ev_file(t, inst, rel, "trigger", undo, true)))
		return r;
	snprintf(undo, sizeof(undo), "!%s\n", (const char *)arg);
	char rp[PATH_MAX];
	snprintf(rp, sizeof(rp), "%s/trigger", rel);
	if (pk_tracefs_path(t, inst, rp, p, sizeof(p)))
		return -ENAMETOOLONG;
	return pk__tfs_saved_already(t, p) ? 0 : pk__tfs_push_undo(t, U_APPEND, p, undo);
}

int pk_tracefs_event_enable(struct pk_tracefs *t, const char *instance,
			    const char *spec, bool on)
{
	return for_events(t, instance, spec, ev_enable, on ? "" : NULL);
}

int pk_tracefs_event_filter(struct pk_tracefs *t, const char *instance,
			    const char *spec, const char *filter)
{
	return for_events(t, instance, spec, ev_filter, filter);
}

int pk_tracefs_event_trigger(struct pk_tracefs *t, const char *instance,
			     const char *spec, const char *trigger)
{
	return for_events(t, instance, spec, ev_trigger, trigger);
}

int pk_tracefs_option(struct pk_tracefs *t, const char *instance,
		      const char *name, bool on)
{
	char p[512];
	snprintf(p, sizeof(p), "options/%s", name);
	return pk_tracefs_write(t, instance, p, on ? "1" : "0");
}

/* "  9750.108725" -> ns; a counter or x86-tsc clock gives a plain
 * number, kept as is. */
static uint64_t secs_to_ns(const char *s)
{
	char *e;
	uint64_t sec = strtoull(s, &e, 10), frac = 0;
	int digits = 0;

	if (*e != '.')
		return sec;    /* counter, x86-tsc: raw units */
	for (e++; isdigit((unsigned char)*e) && digits < 9; e++, digits++)
		frac = frac * 10 + (uint64_t)(*e - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	return sec * 1000000000ull + frac;
}

void pk__tfs_stats_parse(const char *text, size_t len, struct pk_tracefs_stats *st)
{
	static const struct { const char *k; size_t off; } keys[] = {
		{ "entries:", offsetof(struct pk_tracefs_stats, entries) },
		{ "overrun:", offsetof(struct pk_tracefs_stats, overrun) },
		{ "commit overrun:",
		  offsetof(struct pk_tracefs_stats, commit_overrun) },
		{ "bytes:", offsetof(struct pk_tracefs_stats, bytes) },
		{ "dropped events:", offsetof(struct pk_tracefs_stats, dropped) },
		{ "read events:", offsetof(struct pk_tracefs_stats, read) },
	};
	char ln[256];

	memset(st, 0, sizeof(*st));
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - text) - pos : len - pos;

		snprintf(ln, sizeof(ln), "%.*s", (int)PK_MIN(n, sizeof(ln) - 1),
			 text + pos);
		pos += n + 1;
		if (!strncmp(ln, "oldest event ts:", 16))
			st->oldest_ts = secs_to_ns(ln + 16);
		else if (!strncmp(ln, "now ts:", 7))
			st->now_ts = secs_to_ns(ln + 7);
		for (size_t i = 0; i < PK_ARRAY_SIZE(keys); i++)
			if (!strncmp(ln, keys[i].k, strlen(keys[i].k)))
				*(uint64_t *)((char *)st + keys[i].off) =
					strtoull(ln + strlen(keys[i].k), NULL,
						 10);
	}
}

int pk_tracefs_cpu_stats(const struct pk_tracefs *t, const char *instance,
			 int cpu, struct pk_tracefs_stats *st)
{
	char f[64], *s;
	long n;

	memset(st, 0, sizeof(*st));
	snprintf(f, sizeof(f), "per_cpu/cpu%d/stats", cpu);
	n = pk_tracefs_read(t, instance, f, &s);
	if (n < 0)
		return (int)n;
	pk__tfs_stats_parse(s, (size_t)n, st);
	free(s);
	return 0;
}

void pk_tracefs_keep(struct pk_tracefs *t)
{
	sigset_t block, old;

	sigs_set(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	for (int i = 0; i < t->nr_undo; i++)
		t->undo[i].kind = U_DONE;
	pk__tfs_journal_done(t);        /* nor does ftrace reset undo it */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int pk_tracefs_restore(struct pk_tracefs *t)
{
	sigset_t block, old;
	int err = 0;

	if (!t || t->restoring)
		return 0;
	/* a stop signal waits for the end: it never cuts a restore short */
	sigs_set(&block);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	t->restoring = 1;
	for (int i = t->nr_undo - 1; i >= 0; i--) {
		struct undo *u = &t->undo[i];
		int r = 0;
		switch (u->kind) {
		case U_TRUNC:
		case U_APPEND:
			if (u->data)
				r = do_write(t, u->path, u->data,
					     u->kind == U_APPEND);
			break;
		case U_RMDIR:
			for (int k = 0; k < 50 && rmdir(u->path) < 0 &&
					errno == EBUSY; k++)
				usleep(10000);
			r = access(u->path, F_OK) == 0 ? -EBUSY : 0;
			break;
		case U_UMOUNT:
			r = umount(u->path) < 0 ? -errno : 0;
			break;
		case U_DONE:
			break;
		}
		u->kind = U_DONE;
		if (r && !err)
			err = r;
	}
	pk__tfs_journal_done(t);
	t->restoring = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

static void on_signal(int sig)
{
	struct pk_tracefs *t = sig_tracefs;

	if (t)
		pk_tracefs_restore(t);
	signal(sig, SIG_DFL);
	raise(sig);
}

int pk_tracefs_restore_on_signals(struct pk_tracefs *t)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (!t) {
		if (!sig_tracefs)
			return 0;
		for (int i = 0; i < 3; i++)
			sigaction(sigs[i], &old_act[i], NULL);
		sig_tracefs = NULL;
		return 0;
	}
	sigs_set(&sa.sa_mask);
	sig_tracefs = t;
	for (int i = 0; i < 3; i++)
		if (sigaction(sigs[i], &sa, &old_act[i]) < 0)
			return -errno;
	return 0;
}

void pk_tracefs_free(struct pk_tracefs *t)
{
	if (!t)
		return;
	/* restored first: a signal meanwhile still finds T to restore */
	pk_tracefs_restore(t);
	if (sig_tracefs == t)
		pk_tracefs_restore_on_signals(NULL);
	for (int i = 0; i < t->nr_undo; i++) {
		pk__free(t->undo[i].path);
		pk__free(t->undo[i].data);
	}
	for (int i = 0; i < t->nr_saved; i++)
		pk__free(t->saved[i]);
	pk__free(t->saved);
	pk__free(t->undo);
	pk__free(t->errlog);
	if (t->log_fd >= 0)
		close(t->log_fd);
	pk__free(t);
}

int pk_tracefs_reset_stale(struct pk_tracefs *t)
{
	char dir[1100];
	struct dirent **d;
	int n, removed = 0;

	snprintf(dir, sizeof(dir), "%s/instances", t->dir);
	n = scandir(dir, &d, dirs_only, alphasort);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		const char *name = d[i]->d_name;
		char *end;
		if (!strncmp(name, "perfkit-", 8)) {
			long pid = strtol(name + 8, &end, 10);
			if (end != name + 8 && !*end && pid > 0 &&
			    kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
				char p[1400];
				snprintf(p, sizeof(p), "%s/%s", dir, name);
				if (rmdir(p) == 0)
					removed++;
				else
					pk_warn("tracefs: cannot remove %s: %s",
						p, strerror(errno));
			}
		}
		free(d[i]);
	}
	free(d);
	/* then what killed runs changed elsewhere (their instances gone:
	 * a dynamic event in use there could not be removed before) */
	int j = pk__tfs_journal_replay(t);
	if (j > 0)
		pk_info("tracefs: put back what %d killed run%s changed", j,
			j == 1 ? "" : "s");
	return removed;
}
