/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd's state commands on tracefs (stop, restart, the set-up half
 * of start, reset): their writes in trace-cmd 3.1's order, each buffer of
 * a list in turn, step after step. None of it is undone at restore: the
 * changes are what the commands are for.
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/base.h"
#include "tracefs/meta.h"
#include "tracefs/tracefs.h"

/* A list of buffers: NR names, NULL for the top level. */
struct bufs {
	const char *const *v;
	int n;
};

static bool exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* *E takes R when it holds no error yet (a missing file is none). */
static void keep_first(int *e, int r)
{
	if (r && r != -ENOENT && !*e)
		*e = r;
}

/* Writes VAL to FILE of INST when the file is there. 0 or -errno. */
static int put(struct pk_tracefs *t, const char *inst, const char *file,
	       const char *val, bool append)
{
	char p[PATH_MAX];

	if (pk_tracefs_path(t, inst, file, p, sizeof(p)))
		return -ENAMETOOLONG;
	return exists(p) ? pk__tfs_do_write(t, p, val, append) : 0;
}

/* FILE of every buffer of B gets VAL. 0 or the first -errno. */
static int put_all(struct pk_tracefs *t, const struct bufs *b,
		   const char *file, const char *val)
{
	int e = 0;

	for (int i = 0; i < b->n; i++)
		keep_first(&e, put(t, b->v[i], file, val, false));
	return e;
}

/* The entries of KIND in directory P in directory order (one that
 * cannot be opened: none); NULL without memory. */
static char **listing(const char *p, int kind)
{
	char **v = NULL;
	int n = pk__tfmeta_dir(p, kind, &v);

	return n >= 0 ? v : n == -ENOMEM ? NULL : pk__calloc(1, sizeof(*v));
}

static char **dir_list(const char *p)
{
	return listing(p, PK_TRACEFS_DIRS);
}

int pk_tracefs_entries(const struct pk_tracefs *t, const char *inst,
		       const char *dir, int kind, char ***names)
{
	char p[PATH_MAX];
	int n = 0;

	*names = NULL;
	if (kind < PK_TRACEFS_ANY || kind > PK_TRACEFS_FILES)
		return -EINVAL;
	if (pk_tracefs_path(t, inst, dir, p, sizeof(p)))
		return -ENAMETOOLONG;
	if (!(*names = listing(p, kind)))
		return -ENOMEM;
	while ((*names)[n])
		n++;
	return n;
}

int pk_tracefs_instances(const struct pk_tracefs *t, char ***names)
{
	return pk_tracefs_entries(t, NULL, "instances", PK_TRACEFS_DIRS,
				  names);
}

int pk_tracefs_tracing(struct pk_tracefs *t, const char *const *bufs, int nr,
		       bool on)
{
	struct bufs b = { bufs, nr };

	/* the old tracing_enabled file, where a kernel still has it */
	if (on) {
		int e = put(t, NULL, "tracing_enabled", "1", false);
		if (e)
			return e;
	}
	return put_all(t, &b, "tracing_on", on ? "1" : "0");
}

/* The function tracer's stack traces off where it is the tracer. */
static int func_stack_off(struct pk_tracefs *t, const char *inst)
{
	char *s = NULL;
	long n = pk_tracefs_read(t, inst, "current_tracer", &s);
	int e = 0;

	if (n < 0)
		return n == -ENOENT ? 0 : (int)n;
	s[strcspn(s, " \t\n")] = 0;
	if (!strcmp(s, "function"))
		e = put(t, inst, "trace_options", "nofunc_stack_trace", false);
	free(s);
	return e;
}

/* events/enable off and every system's filter ("0"), as trace-cmd's
 * reset_events does. */
static int events_off(struct pk_tracefs *t, const char *inst)
{
	char p[PATH_MAX];
	glob_t g;
	int e = put(t, inst, "events/enable", "0", false);

	if (e || pk_tracefs_path(t, inst, "events/*/filter", p, sizeof(p)))
		return e;
	if (glob(p, 0, NULL, &g))
		return 0;
	for (size_t i = 0; !e && i < g.gl_pathc; i++)
		e = pk__tfs_do_write(t, g.gl_pathv[i], "0", false);
	globfree(&g);
	return e;
}

int pk_tracefs_disable_all(struct pk_tracefs *t, const char *const *bufs,
			   int nr, bool tracer)
{
	struct bufs b = { bufs, nr };
	int e = pk_tracefs_tracing(t, bufs, nr, false);

	for (int i = 0; tracer && i < nr; i++)
		keep_first(&e, func_stack_off(t, bufs[i]));
	if (tracer)
		keep_first(&e, put_all(t, &b, "current_tracer", "nop"));
	for (int i = 0; i < nr; i++)
		keep_first(&e, events_off(t, bufs[i]));
	/* the pid list emptied, then a blank (older kernels' habit) */
	for (int i = 0; i < nr; i++) {
		keep_first(&e, put(t, bufs[i], "set_ftrace_pid", "", false));
		keep_first(&e, put(t, bufs[i], "set_ftrace_pid", " ", true));
	}
	keep_first(&e, put_all(t, &b, "trace", "0"));
	return e;
}

/* Calls FN on FILE of every event of INST (systems and events in
 * directory order). Returns the sum of FN's non-negative results, or the
 * first -errno. */
static int each_event_file(struct pk_tracefs *t, const char *inst,
			   const char *file,
			   int (*fn)(struct pk_tracefs *, const char *))
{
	char ev[PATH_MAX], **sys;
	int sum = 0;

	if (pk_tracefs_path(t, inst, "events", ev, sizeof(ev)))
		return -ENAMETOOLONG;
	if (!(sys = dir_list(ev)))
		return -ENOMEM;
	for (int i = 0; sum >= 0 && sys[i]; i++) {
		char sd[PATH_MAX + 256], **evs;
		snprintf(sd, sizeof(sd), "%s/%s", ev, sys[i]);
		if (!(evs = dir_list(sd)))
			continue;
		for (int k = 0; sum >= 0 && evs[k]; k++) {
			char f[PATH_MAX + 600];
			snprintf(f, sizeof(f), "%s/%s/%s", sd, evs[k], file);
			if (exists(f)) {
				int r = fn(t, f);
				sum = r < 0 ? r : sum + r;
			}
		}
		pk__tfmeta_list_free(evs);
	}
	pk__tfmeta_list_free(sys);
	return sum;
}

static int filter_off(struct pk_tracefs *t, const char *path)
{
	return pk__tfs_do_write(t, path, "0", false);
}

/* Removes each trigger of the trigger file PATH ("!" and the trigger up
 * to its first blank); 1 when some are still listed after (an order the
 * kernel wants: tried again), 0, or -errno. */
static int triggers_off(struct pk_tracefs *t, const char *path)
{
	char *s, *save = NULL;
	long n = pk__read_file(path, &s);
	int left = 0;

	if (n < 0)
		return 0;
	for (char *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n",
								    &save)) {
		char w[4096];
		if (*l == '#')
			continue;
		snprintf(w, sizeof(w), "!%.*s", (int)strcspn(l, " "), l);
		pk__tfs_do_write(t, path, w, false);
	}
	pk__free(s);
	if (pk__read_file(path, &s) < 0)
		return 0;
	for (char *l = strtok_r(s, "\n", &save); l && !left;
	     l = strtok_r(NULL, "\n", &save))
		left = *l != '#';
	pk__free(s);
	return left;
}

/* Every trigger of INST off; as many passes again as files had triggers
 * left, until one pass leaves none. */
static int clear_triggers(struct pk_tracefs *t, const char *inst)
{
	int retry = each_event_file(t, inst, "trigger", triggers_off);

	for (int i = 0; i < retry; i++) {
		int r = each_event_file(t, inst, "trigger", triggers_off);
		if (r <= 0)
			return r;
	}
	return retry < 0 ? retry : 0;
}

/* ---- dynamic events, removed in libtracefs's order ---- */

/* The kinds in that order: the line's prefix and, for uprobes, a path
 * in the place (kprobes take every line of their prefix). */
static const struct dyn_kind {
	char prefix;
	bool uprobe;
	const char *file;       /* without dynamic_events */
} dyn_kinds[] = {
	{ 'p', false, "kprobe_events" }, { 'r', false, "kprobe_events" },
	{ 'p', true, "uprobe_events" }, { 'r', true, "uprobe_events" },
	{ 'e', false, NULL }, { 's', false, "synthetic_events" },
};

/* Disables SYS/EV (SYS NULL: of any system) in the top level and every
 * instance, where the top level lists it. */
static void dyn_disable(struct pk_tracefs *t, const char *sys, const char *ev)
{
	char ed[PATH_MAX], **systems, **inst = NULL;

	if (pk_tracefs_path(t, NULL, "events", ed, sizeof(ed)) ||
	    !(systems = dir_list(ed)))
		return;
	if (pk_tracefs_instances(t, &inst) < 0)
		inst = NULL;
	for (int i = 0; systems[i]; i++) {
		char f[PATH_MAX + 600];
		snprintf(f, sizeof(f), "%s/%s/enable", ed, systems[i]);
		if (!exists(f) || (sys && strcasecmp(sys, systems[i])))
			continue;
		snprintf(f, sizeof(f), "events/%s/%s/enable", systems[i], ev);
		put(t, NULL, f, "0", false);
		for (int k = 0; inst && inst[k]; k++)
			put(t, inst[k], f, "0", false);
	}
	for (int k = 0; inst && inst[k]; k++)
		free(inst[k]);
	free(inst);
	pk__tfmeta_list_free(systems);
}

/* Removes the event of LINE when it is of kind K (read from FILE; the
 * generic syntax in dynamic_events). */
static void dyn_remove_line(struct pk_tracefs *t, const struct dyn_kind *k,
			    const char *file, bool generic, char *line)
{
	char w[600], *sv, *word, *sys, *ev, *place;

	if (!generic) {         /* synthetic_events: "NAME FIELDS" */
		if (!(ev = strtok_r(line, " \t", &sv)) || !strtok_r(NULL, "",
								     &sv))
			return;
		dyn_disable(t, NULL, ev);
		snprintf(w, sizeof(w), "!%s", ev);
		put(t, NULL, file, w, true);
		return;
	}
	if (*line != k->prefix || !(word = strtok_r(line, " \t", &sv)))
		return;
	place = strtok_r(NULL, " \t", &sv);
	if ((k->prefix != 's' && !place) ||
	    (k->uprobe && !strchr(place, '/')))
		return;
	strtok_r(word, ":", &sv);
	if (!(sys = strtok_r(NULL, "/", &sv)))
		return;
	if (!(ev = strtok_r(NULL, " \t", &sv))) {
		ev = sys;
		sys = NULL;
	}
	dyn_disable(t, sys, ev);
	snprintf(w, sizeof(w), "-:%s%s%s", sys ? sys : "", sys ? "/" : "", ev);
	put(t, NULL, file, w, true);
}

/* Every dynamic event of kind K removed (disabled first). */
static void dyn_remove_kind(struct pk_tracefs *t, const struct dyn_kind *k,
			    bool have_dyn)
{
	const char *file = have_dyn ? "dynamic_events" : k->file;
	char *s, **lines = NULL, *sv = NULL;
	int n = 0;

	if (!file || pk_tracefs_read(t, NULL, file, &s) < 0)
		return;
	/* read first, removed after: the file changes meanwhile */
	for (char *l = strtok_r(s, "\n", &sv); l; l = strtok_r(NULL, "\n",
								    &sv)) {
		char **nl = realloc(lines, (size_t)(n + 1) * sizeof(*lines));
		if (!nl)
			break;
		lines = nl;
		lines[n++] = l;
	}
	for (int i = 0; i < n; i++)
		dyn_remove_line(t, k, file, have_dyn || k->prefix != 's',
				lines[i]);
	free(lines);
	free(s);
}

/* Event probes first (other dynamic events may sit under them), then
 * every kind. */
static void dyn_remove_all(struct pk_tracefs *t)
{
	char p[PATH_MAX];
	bool have_dyn = !pk_tracefs_path(t, NULL, "dynamic_events", p,
					 sizeof(p)) && exists(p);

	dyn_remove_kind(t, &dyn_kinds[4], have_dyn);
	for (size_t i = 0; i < sizeof(dyn_kinds) / sizeof(dyn_kinds[0]); i++)
		dyn_remove_kind(t, &dyn_kinds[i], have_dyn);
}

/* tracing_cpumask of every CPU the machine has. */
static void all_cpus_mask(char *buf, size_t len)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int full = (int)((cpus - 1) / 32), bits = (int)((cpus - 1) % 32 + 1);
	size_t n = (size_t)snprintf(buf, len, "%x",
				    (unsigned)((1ull << bits) - 1));

	while (full-- > 0 && n + 10 <= len)
		n += (size_t)snprintf(buf + n, len - n, ",ffffffff");
}

/* Empties function list FILE of INST, then removes the filter commands
 * it still lists ("!CMD" without ":unlimited", a newline after). */
static int func_list_off(struct pk_tracefs *t, const char *inst,
			 const char *file)
{
	char p[PATH_MAX], *s, *sv = NULL;
	int e;

	if (pk_tracefs_path(t, inst, file, p, sizeof(p)) || !exists(p))
		return 0;
	if ((e = pk__tfs_do_write(t, p, "", false)))
		return e;
	if (pk__read_file(p, &s) < 0)
		return 0;
	for (char *l = strtok_r(s, "\n", &sv); l; l = strtok_r(NULL, "\n",
								    &sv)) {
		char w[4096], *u;
		if (*l == '#')
			continue;
		snprintf(w, sizeof(w) - 1, "!%s", l);
		if ((u = strstr(w, ":unlimited")))
			*u = 0;
		strcat(w, "\n");
		keep_first(&e, pk__tfs_do_write(t, p, w, false));
	}
	pk__free(s);
	return e;
}

/* The instance NAME removed (trace-cmd reset -d). */
static int remove_instance(struct pk_tracefs *t, const char *name)
{
	char p[PATH_MAX];

	if (pk_tracefs_path(t, name, "", p, sizeof(p)))
		return -ENAMETOOLONG;
	p[strlen(p) - 1] = 0;
	if (rmdir(p) == 0)
		return 0;
	pk_warn("tracefs: cannot remove instance %s: %s", name,
		strerror(errno));
	return -errno;
}

int pk_tracefs_reset(struct pk_tracefs *t, const struct pk_tracefs_reset_opts *o)
{
	static const char *const flists[] = { "set_ftrace_filter",
		"set_ftrace_notrace", "set_graph_function", "set_graph_notrace" };
	struct bufs b;
	char mask[1200], kb[32];
	int e;

	if (!o || !PK_OPTS_VALID(o, pk_tracefs_reset_opts) ||
	    o->nr_buffers < 0 || (o->nr_buffers && !o->buffers))
		return -EINVAL;
	b = (struct bufs){ o->buffers, o->nr_buffers };
	e = pk_tracefs_disable_all(t, b.v, b.n, true);
	for (int i = 0; o->buffer_kb && i < b.n; i++) {
		if (!o->buffer_kb[i])
			continue;
		snprintf(kb, sizeof(kb), "%lu", o->buffer_kb[i]);
		keep_first(&e, put(t, b.v[i], "buffer_size_kb", kb, false));
	}
	for (int i = 0; i < b.n; i++)
		keep_first(&e, each_event_file(t, b.v[i], "filter", filter_off));
	for (int i = 0; i < b.n; i++)
		keep_first(&e, clear_triggers(t, b.v[i]));
	dyn_remove_all(t);
	keep_first(&e, put_all(t, &b, "error_log", " "));
	keep_first(&e, put_all(t, &b, "trace_clock", "local"));
	keep_first(&e, put_all(t, &b, "set_event_pid", ""));
	keep_first(&e, put_all(t, &b, "tracing_max_latency", "0"));
	all_cpus_mask(mask, sizeof(mask));
	keep_first(&e, put_all(t, &b, "tracing_cpumask", mask));
	for (int i = 0; o->remove && i < b.n; i++)
		if (o->remove[i] && b.v[i])
			keep_first(&e, remove_instance(t, b.v[i]));
	for (int i = 0; i < b.n; i++)
		for (size_t k = 0; k < 4; k++)
			keep_first(&e, func_list_off(t, b.v[i], flists[k]));
	keep_first(&e, pk_tracefs_tracing(t, b.v, b.n, true));
	return e;
}

int pk_tracefs_put(struct pk_tracefs *t, const char *const *bufs, int nr,
		   const char *file, const char *val)
{
	struct bufs b = { bufs, nr };

	return put_all(t, &b, file, val);
}

/* The line of TEXT that is exactly NAME, or NULL. */
static const char *find_line(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, name, n) && (l[n] == '\n' || !l[n]))
			return l;
	return NULL;
}

int pk_tracefs_option_reset(const struct pk_tracefs *t, const char *instance,
			    const char *option, char **line)
{
	const char *base = strncmp(option, "no", 2) ? option : option + 2;
	char *text = NULL, *other = NULL;
	long n = pk_tracefs_read(t, instance, "trace_options", &text);
	int e = 0;

	*line = NULL;
	if (n < 0)
		return (int)n;
	if (base == option) {
		if (!find_line(text, option) && asprintf(&other, "no%s", base) < 0)
			e = -ENOMEM;
	} else if (!find_line(text, option)) {
		other = strdup(base);
		e = other ? 0 : -ENOMEM;
	}
	if (other && find_line(text, other))
		*line = other;
	else
		free(other);
	free(text);
	return e;
}
