/* SPDX-License-Identifier: MIT */
/*
 * ftrace recorder: a private instance, one thread per CPU splicing
 * trace_pipe_raw pages into an unlinked temporary file, then a trace.dat
 * (format 7) built by the writer.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/tracefs.h>
#include "base/base.h"
#include "map/list.h"
#include "tracedat/rbpage.h"
#include "tracefs/rec_dyn.h"

struct rbuf;

struct rcpu {
	int cpu;
	int raw_fd, tmp_fd;
	int old_fd;             /* -m: the older half (-1: none yet) */
	uint64_t written;       /* bytes in tmp_fd since the last switch */
	int pipe[2];
	pthread_t thr;
	bool started;
	int err;
	struct pk_ftrace_cpu_result res;
	struct pk_ftrace_rec *r;
	struct rbuf *b;
};

/* One buffer recorded: the main one (name "") or a -B instance. */
struct rbuf {
	char name[256];
	const char *instp;      /* NULL for the top level */
	int page_size;          /* its sub-buffer size (trace_pipe_raw's
				   page: buffer_subbuf_size_kb) */
	struct rcpu *cpus;
	int nr_cpus;
};

struct pk_ftrace_rec {
	struct pk_tracefs *t;
	char inst[64];          /* the private instance's name */
	struct rbuf *bufs;
	int nr_bufs;
	char *output;
	char *tmpbase;          /* temporary files are made beside this */
	char *compression;
	int page_size;
	int rt_priority;
	char **systems;         /* event systems whose formats are saved */
	bool all_systems;
	atomic_int stop;
	bool running;
	bool no_readers;        /* trace-cmd start: set up, nothing read */
	bool func_pids;         /* pids go to set_ftrace_pid too */
	bool tsc2nsec;
	bool latency;           /* a max-latency tracer: the trace text */
	char *lat_text;         /* extract: that text, read before any reset */
	long lat_len;
	const char *raw_file;   /* per_cpu/cpuN/ file read (trace_pipe_raw) */
	struct pk__rec_dyn dyn; /* its event list with dynamic events */
	long long ts_offset;
	bool no_splice;
	bool sleep_set;
	unsigned sleep_us;
	uint64_t max_half;      /* -m: bytes of a half (0: no limit) */
	uint32_t tsc_mult, tsc_shift;
};

static int tmp_file(const char *output, int cpu)
{
	char p[PATH_MAX];
	const char *slash = strrchr(output, '/');
	int fd;

	if (slash)
		snprintf(p, sizeof(p), "%.*s/.perfkit-cpu%d.XXXXXX",
			 (int)(slash - output), output, cpu);
	else
		snprintf(p, sizeof(p), ".perfkit-cpu%d.XXXXXX", cpu);
	fd = mkostemp(p, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(p);    /* nothing left behind if we are killed */
	return fd;
}

/* Trace options and function lists, before the tracer starts. */
static int setup_functions(struct pk_ftrace_rec *r,
			   const struct pk_ftrace_rec_opts *o)
{
	static const enum pk_ftrace_list which[3] = { PK_FT_FILTER,
		PK_FT_NOTRACE, PK_FT_GRAPH };
	const char *const *lists[3] = { o->filters, o->notrace, o->graph };
	int e;

	for (const char *const *op = o->options; op && *op; op++) {
		if ((e = pk_tracefs_option_spec(r->t, r->bufs[0].instp, *op))) {
			if (e == -ENOENT)
				pk_warn("ftrace record: no trace option '%s'",
					*op);
			return e;
		}
	}
	for (int k = 0; k < 3; k++) {
		for (const char *const *f = lists[k]; f && *f; f++) {
			e = pk_tracefs_func_add(r->t, r->bufs[0].instp, which[k],
						*f);
			if (e && e != -EPERM && e != -ENOENT)
				pk_warn("ftrace record: %s '%s': %s",
					pk_ftrace_list_file(which[k]), *f,
					e == -EINVAL ? "no such function or bad "
						       "command" : strerror(-e));
			if (e)
				return e;
		}
	}
	return 0;
}

/* The name of the system of the event spec SP (NULL: a glob or a bare
 * name, resolved later from set_event). */
static int add_system(struct pk_ftrace_rec *r, const char *sys, size_t len)
{
	int n = 0;
	char **v;

	for (; r->systems && r->systems[n]; n++)
		if (strlen(r->systems[n]) == len &&
		    !strncmp(r->systems[n], sys, len))
			return 0;
	if (!(v = pk__realloc(r->systems, (size_t)(n + 2) * sizeof(char *))))
		return -ENOMEM;
	r->systems = v;
	if (!(v[n] = pk__strndup(sys, len)))
		return -ENOMEM;
	v[n + 1] = NULL;
	return 0;
}

/* The systems of the events enabled in INSTP (its set_event) are saved. */
static int note_enabled(struct pk_ftrace_rec *r, const char *instp)
{
	char *s = NULL, *save = NULL;
	int e = 0;

	if (pk_tracefs_read(r->t, instp, "set_event", &s) < 0)
		return 0;
	for (char *l = strtok_r(s, "\n", &save); l && !e;
	     l = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(l, ':');
		if (c)
			e = add_system(r, l, (size_t)(c - l));
	}
	free(s);
	return e;
}

/* The event specs of one buffer with their parallel options. */
struct evspecs {
	const char *const *events, *const *filters, *const *triggers;
	const bool *exclude;
};

/* The warning for event EV of spec I of L whose set-up failed with E;
 * BAD: the trigger refused, if that was it. */
static void event_warn(struct pk_ftrace_rec *r, const struct evspecs *l,
		       size_t i, const char *bad, int e)
{
	const char *ev = l->events[i];
	const char *flt = l->filters ? l->filters[i] : NULL;
	char buf[4096];
	const char *why = pk__rec_why(r->t, buf, sizeof(buf));

	if (*bad && e == -EINVAL)
		pk_warn("ftrace record: event '%s': trigger '%s': refused by "
			"the kernel%s", ev, bad, why);
	else if (flt && e == -EINVAL)
		pk_warn("ftrace record: event '%s': filter '%s': refused by "
			"the kernel%s", ev, flt, why);
	else
		pk_warn("ftrace record: event '%s': %s", ev,
			e == -ENOENT ? "no such event" : strerror(-e));
}

/* Filter, triggers (several: newline-separated), then enable (or -v:
 * disable) each event of L in INSTP, in the order given. With IGNORE a
 * spec matching nothing is skipped. 0 or -errno. */
static int setup_events(struct pk_ftrace_rec *r, const char *instp,
			const struct evspecs *l, bool ignore)
{
	char bad[4096];
	int e;

	for (size_t i = 0; l->events && l->events[i]; i++) {
		const char *ev = l->events[i];
		const char *flt = l->filters ? l->filters[i] : NULL;
		const char *trg = l->triggers ? l->triggers[i] : NULL;
		bool on = !(l->exclude && l->exclude[i]);

		*bad = 0;
		/* the filter first: no event passes before it holds */
		e = flt ? pk_tracefs_event_filter(r->t, instp, ev, flt) : 0;
		if (e >= 0 && trg)
			e = pk__rec_triggers(r->t, instp, ev, trg, bad,
					     sizeof(bad));
		if (e >= 0)
			e = pk_tracefs_event_enable(r->t, instp, ev, on);
		if (e == -ENOENT && ignore) {
			pk_info("ftrace record: event '%s' not found, ignored",
				ev);
			continue;
		}
		if (e < 0) {
			event_warn(r, l, i, bad, e);
			return e;
		}
	}
	return 0;
}

/* tracing_cpumask from -M's hex MASK ("-1": every online CPU). */
static int set_cpumask(struct pk_ftrace_rec *r, const char *instp,
		       const char *mask)
{
	int *cpus = NULL, n, e;

	if (strcmp(mask, "-1"))
		return pk_tracefs_write(r->t, instp, "tracing_cpumask", mask);
	if ((n = pk__cpu_online(&cpus)) < 0)
		return n;
	e = pk_tracefs_cpumask(r->t, instp, cpus, n);
	pk__free(cpus);
	return e;
}

/* What every buffer gets: off, size, clock, CPUs, pids; MAIN (the main
 * buffer) also the options and function lists, before the pids. */
static int setup_common(struct pk_ftrace_rec *r, const char *instp,
			const struct pk_ftrace_rec_opts *o, bool main)
{
	char buf[64];
	int e;

	if ((e = pk_tracefs_write(r->t, instp, "tracing_on", "0")))
		return e;
	if (o->buffer_kb > 0) {
		snprintf(buf, sizeof(buf), "%d", o->buffer_kb);
		if ((e = pk_tracefs_write(r->t, instp, "buffer_size_kb", buf)))
			return e;
	}
	/* after the size, as newer trace-cmd's --subbuf-size */
	if (o->subbuf_kb > 0) {
		snprintf(buf, sizeof(buf), "%u", o->subbuf_kb);
		if ((e = pk_tracefs_write(r->t, instp, "buffer_subbuf_size_kb",
					  buf))) {
			pk_warn("ftrace record: buffer_subbuf_size_kb %s: %s",
				buf, strerror(-e));
			return e;
		}
	}
	if (o->clock && (e = pk_tracefs_write(r->t, instp, "trace_clock",
					      o->clock)))
		return e;
	if (o->cpus && o->nr_cpus &&
	    (e = pk_tracefs_cpumask(r->t, instp, o->cpus, o->nr_cpus)))
		return e;
	if (main && (e = setup_functions(r, o)))
		return e;
	if (o->follow_fork &&
	    (e = pk_tracefs_option(r->t, instp, "event-fork", true)))
		return e;
	/* function-fork too, as trace-cmd -c sets both (where it exists) */
	if (o->follow_fork && main && (r->func_pids ||
	    pk_tracefs_has(r->t, instp, "options/function-fork")) &&
	    (e = pk_tracefs_option(r->t, instp, "function-fork", true)))
		return e;
	for (int i = 0; i < o->nr_pids; i++)
		if ((e = pk_tracefs_pid_add(r->t, instp, o->pids[i],
					    PK_PID_EVENTS | (main && r->func_pids
						? PK_PID_FUNCTIONS : 0))))
			return e;
	return 0;
}

/* The main buffer's own: CPU mask, markers, graph depth, latency
 * tracers' settings, tracer, function tracing off, its events. */
static int setup_main(struct pk_ftrace_rec *r, const char *instp,
		      const struct pk_ftrace_rec_opts *o)
{
	struct evspecs l = { o->events, o->event_filters, o->event_triggers,
			     o->event_exclude };
	int e;

	if (o->cpumask && (e = set_cpumask(r, instp, o->cpumask)))
		return e;
	for (int i = 0; i < o->nr_notrace_pids; i++)
		if ((e = pk_tracefs_pid_add(r->t, instp, o->notrace_pids[i],
					    PK_PID_NOTRACE | PK_PID_EVENTS |
					    (r->func_pids ? PK_PID_FUNCTIONS
							  : 0))))
			return e;
	/* trace_marker writes of the top level copied in here */
	if (o->copy_marker && instp &&
	    pk_tracefs_has(r->t, instp, "options/copy_trace_marker") &&
	    (e = pk_tracefs_option(r->t, instp, "copy_trace_marker", true)))
		return e;
	/* a top-level file: more names kept for every buffer */
	if (o->cmdlines_size &&
	    (e = pk_tracefs_write(r->t, NULL, "saved_cmdlines_size",
				  o->cmdlines_size)))
		return e;
	if (o->max_graph_depth &&
	    (e = pk_tracefs_write(r->t, instp, "max_graph_depth",
				  o->max_graph_depth)))
		return e;
	if ((e = pk__rec_latency_setup(r->t, o)))
		return e;
	if (o->tracer && (e = pk_tracefs_tracer(r->t, instp, o->tracer))) {
		pk_debug("ftrace record: tracer %s: %s", o->tracer,
			 strerror(-e));
		return e;
	}
	if (o->no_ftrace &&
	    ((e = pk_tracefs_option(r->t, instp, "function-trace", false)) ||
	     (e = pk_tracefs_ftrace_enabled(r->t, false))))
		return e;
	return setup_events(r, instp, &l, o->ignore_missing);
}

static int setup(struct pk_ftrace_rec *r, const struct pk_ftrace_rec_opts *o)
{
	int e = 0;

	for (int k = 0; !e && k < r->nr_bufs; k++) {
		e = setup_common(r, r->bufs[k].instp, o, k == 0);
		r->bufs[k].page_size = pk_tracefs_subbuf_size(r->t,
							      r->bufs[k].instp);
	}
	if (!e)
		e = setup_main(r, r->bufs[0].instp, o);
	for (int k = 1; !e && k < r->nr_bufs; k++) {
		const struct pk_ftrace_rec_buffer *b = &o->buffers[k - 1];
		struct evspecs l = { b->events, b->event_filters,
				     b->event_triggers, b->event_exclude };
		if (b->cpumask)
			e = set_cpumask(r, r->bufs[k].instp, b->cpumask);
		if (!e)
			e = setup_events(r, r->bufs[k].instp, &l,
					 o->ignore_missing);
	}
	/* start from empty buffers */
	for (int k = 0; !e && k < r->nr_bufs; k++) {
		e = pk_tracefs_write(r->t, r->bufs[k].instp, "trace", "");
		if (!e)
			e = note_enabled(r, r->bufs[k].instp);
	}
	return e;
}

/* Opens trace_pipe_raw of the N CPUS of buffer B, with a temporary file
 * and a pipe each. 0 or -errno. */
static int open_cpus(struct pk_ftrace_rec *r, struct rbuf *b, const int *cpus,
		     int n)
{
	b->cpus = pk__calloc((size_t)n, sizeof(*b->cpus));
	if (!b->cpus)
		return -ENOMEM;
	b->nr_cpus = n;
	for (int i = 0; i < n; i++) {
		struct rcpu *c = &b->cpus[i];
		c->r = r;
		c->b = b;
		c->cpu = cpus[i];
		c->res.cpu = cpus[i];
		c->raw_fd = c->tmp_fd = c->old_fd = -1;
		c->pipe[0] = c->pipe[1] = -1;
	}
	for (int i = 0; i < n; i++) {
		struct rcpu *c = &b->cpus[i];
		char f[64], p[PATH_MAX];
		snprintf(f, sizeof(f), "per_cpu/cpu%d/%s", cpus[i],
			 r->raw_file ? r->raw_file : "trace_pipe_raw");
		pk_tracefs_path(r->t, b->instp, f, p, sizeof(p));
		c->raw_fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->raw_fd < 0)
			return -errno;
		if ((c->tmp_fd = tmp_file(r->tmpbase, cpus[i])) < 0)
			return c->tmp_fd;
		if (pipe2(c->pipe, O_CLOEXEC) < 0)
			return -errno;
		fcntl(c->pipe[1], F_SETPIPE_SZ, b->page_size * 16);
	}
	return 0;
}

/* The systems named by the event specs "SYS:EV" (a glob in a system:
 * all; bare names come from set_event after the set-up). */
static int note_systems(struct pk_ftrace_rec *r, const char *const *events)
{
	for (const char *const *ev = events; ev && *ev; ev++) {
		const char *sp = *ev, *c = strchr(sp, ':');
		int e;
		if (!strcmp(sp, "all") || (c && strcspn(sp, "*?[") < (size_t)(c - sp))) {
			r->all_systems = true;
			continue;
		}
		if (c && (e = add_system(r, sp, (size_t)(c - sp))))
			return e;
	}
	return 0;
}

/* Makes instance NAME for buffer B; an existing one is used as it is
 * (its settings are put back at restore, not it removed). */
static int buffer_instance(struct pk_ftrace_rec *r, struct rbuf *b,
			   const char *name)
{
	int e;

	if (snprintf(b->name, sizeof(b->name), "%s", name) >=
	    (int)sizeof(b->name))
		return -ENAMETOOLONG;
	b->instp = b->name;
	e = pk_tracefs_instance_new(r->t, name);
	if (e == -EEXIST) {
		pk_info("ftrace record: instance %s exists: recorded, kept",
			name);
		return 0;
	}
	if (e)
		pk_warn("ftrace record: cannot create instance %s: %s", name,
			strerror(-e));
	return e;
}

/* The main buffer (private instance or top level) and the -B ones. */
static int make_buffers(struct pk_ftrace_rec *r,
			const struct pk_ftrace_rec_opts *o)
{
	struct rbuf *m;
	int e;

	if (o->nr_buffers < 0 || (o->nr_buffers && !o->buffers))
		return -EINVAL;
	r->bufs = pk__calloc((size_t)o->nr_buffers + 1, sizeof(*r->bufs));
	if (!r->bufs)
		return -ENOMEM;
	m = &r->bufs[0];
	r->nr_bufs = 1;
	if (!o->top_level) {
		snprintf(r->inst, sizeof(r->inst), "perfkit-%d", (int)getpid());
		m->instp = r->inst;
		if ((e = pk_tracefs_instance_new(r->t, r->inst))) {
			pk_warn("ftrace record: cannot create instance %s: %s",
				r->inst, strerror(-e));
			return e;
		}
		if (o->tracer && (!pk_tracefs_has(r->t, m->instp,
						  "current_tracer") ||
				  pk__rec_tracer_top_only(o->tracer))) {
			pk_info("ftrace record: instances have no tracers on "
				"this kernel: tracer %s records in the top-level "
				"buffer", o->tracer);
			pk_tracefs_instance_remove(r->t, r->inst);
			m->instp = NULL;
		}
	}
	for (int k = 0; k < o->nr_buffers; k++) {
		const char *name = o->buffers[k].name;
		if (!name || !*name || strchr(name, '/') ||
		    (m->instp && !strcmp(name, m->instp)))
			return -EINVAL;
		for (int j = 1; j < r->nr_bufs; j++)
			if (!strcmp(r->bufs[j].name, name))
				return -EINVAL;
		if ((e = buffer_instance(r, &r->bufs[r->nr_bufs], name)))
			return e;
		r->nr_bufs++;
		if ((e = note_systems(r, o->buffers[k].events)))
			return e;
	}
	return note_systems(r, o->events);
}

static int rec_new(struct pk_tracefs *t,
		      const struct pk_ftrace_rec_opts *user,
		      struct pk_ftrace_rec **out)
{
	struct pk_ftrace_rec_opts oo = { 0 }, *o = &oo;
	struct pk_ftrace_rec *r;
	int *cpus = NULL, n, e;

	*out = NULL;
	if (!user || !PK_OPTS_VALID(user, pk_ftrace_rec_opts))
		return -EINVAL;
	/* fields past an older caller's struct stay zero */
	memcpy(&oo, user, PK_MIN(user->sz, sizeof(oo)));
	if (oo.tsc2nsec)
		oo.clock = "x86-tsc";
	r = pk__zalloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->t = t;
	r->page_size = (int)sysconf(_SC_PAGESIZE);
	r->output = pk__strdup(o->output ? o->output : "trace.dat");
	r->compression = pk__strdup(o->compression ? o->compression : "zstd");
	r->no_splice = o->no_splice;
	r->no_readers = o->no_readers;
	r->rt_priority = o->rt_priority;
	if (o->temp_dir) {      /* a name in that folder */
		size_t n = strlen(o->temp_dir) + 3;
		if ((r->tmpbase = pk__malloc(n)))
			snprintf(r->tmpbase, n, "%s/x", o->temp_dir);
	} else if (r->output) {
		r->tmpbase = pk__strdup(r->output);
	}
	r->ts_offset = o->ts_offset;
	r->sleep_set = o->sleep_set;
	r->sleep_us = o->sleep_us;
	/* -m KiB a CPU: two halves */
	r->max_half = o->max_kb ? PK_MAX(o->max_kb * 512,
					 (uint64_t)r->page_size) : 0;
	if (!r->output || !r->compression || !r->tmpbase) {
		pk_ftrace_rec_free(r);
		return -ENOMEM;
	}
	r->func_pids = o->tracer && pk_tracer_is_function(o->tracer);
	if (o->tsc2nsec) {
		if ((e = pk_ftrace_tsc2nsec(&r->tsc_mult, &r->tsc_shift))) {
			pk_ftrace_rec_free(r);
			return e;
		}
		r->tsc2nsec = true;
	}
	r->latency = pk_tracer_is_latency(o->tracer);
	/* dynamic events before the instances: removed after them at
	 * restore; they join the main buffer's events */
	if ((e = pk__rec_dyn_create(t, o, &r->dyn))) {
		pk_ftrace_rec_free(r);
		return e;
	}
	oo.events = r->dyn.events;
	oo.event_filters = r->dyn.filters;
	oo.event_triggers = r->dyn.triggers;
	oo.event_exclude = r->dyn.exclude;
	if ((e = make_buffers(r, o))) {
		pk_ftrace_rec_free(r);
		return e;
	}
	if (o->cpus && o->nr_cpus > 0) {
		cpus = pk__calloc((size_t)o->nr_cpus, sizeof(int));
		if (cpus)
			memcpy(cpus, o->cpus, o->nr_cpus * sizeof(int));
		n = cpus ? o->nr_cpus : -ENOMEM;
	} else {
		n = pk__cpu_online(&cpus);
	}
	e = n < 0 ? n : setup(r, o);
	for (int k = 0; !e && !r->no_readers && k < r->nr_bufs; k++)
		e = open_cpus(r, &r->bufs[k], cpus, n);
	pk__free(cpus);
	if (e) {
		pk_ftrace_rec_free(r);
		return e;
	}
	*out = r;
	return 0;
}

struct pk_ftrace_rec *pk_ftrace_rec_new(struct pk_tracefs *t,
					const struct pk_ftrace_rec_opts *o)
{
	struct pk_ftrace_rec *obj = NULL;
	int e = rec_new(t, o, &obj);

	return pk__ptr_or_errno(e, obj);
}

int pk_ftrace_rec_add_pid(struct pk_ftrace_rec *r, int pid)
{
	int e = 0;

	for (int k = 0; !e && k < r->nr_bufs; k++)
		e = pk_tracefs_pid_add(r->t, r->bufs[k].instp, pid,
				       PK_PID_EVENTS | (!k && r->func_pids
						? PK_PID_FUNCTIONS : 0));
	return e;
}

bool pk_ftrace_rec_top_level(const struct pk_ftrace_rec *r)
{
	return r->bufs[0].instp == NULL;
}

/* -m: the current half is full: the older one is emptied and becomes
 * the current one. 0 or -errno. */
static int switch_half(struct rcpu *c)
{
	int fd = c->old_fd;

	if (fd < 0 && (fd = tmp_file(c->r->tmpbase, c->cpu)) < 0)
		return fd;
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		if (c->old_fd < 0)
			close(fd);
		return -errno;
	}
	c->old_fd = c->tmp_fd;
	c->tmp_fd = fd;
	c->written = 0;
	return 0;
}

/* N more bytes went to the current file. 0 or -errno. */
static int wrote(struct rcpu *c, size_t n)
{
	c->written += n;
	if (c->r->max_half && c->written >= c->r->max_half)
		return switch_half(c);
	return 0;
}

/* Moves whole pages from trace_pipe_raw to the file. >0 bytes, 0 none. */
static ssize_t splice_pages(struct rcpu *c)
{
	ssize_t n = splice(c->raw_fd, NULL, c->pipe[1], NULL,
			   (size_t)c->b->page_size * 8,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	int e;

	if (n <= 0)
		return n < 0 && errno != EAGAIN && errno != EINTR ? -errno : 0;
	for (ssize_t left = n; left > 0;) {
		ssize_t m = splice(c->pipe[0], NULL, c->tmp_fd, NULL,
				   (size_t)left, SPLICE_F_MOVE);
		if (m < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		left -= m;
	}
	return (e = wrote(c, (size_t)n)) ? e : n;
}

/* Reads one page (a partial one padded with zeros) into the file: >0
 * bytes, 0 none, or -errno. PAGE has page_size bytes. */
static ssize_t read_page(struct rcpu *c, char *page)
{
	size_t ps = (size_t)c->b->page_size;
	ssize_t n;
	int e;

	do
		n = read(c->raw_fd, page, ps);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n < 0 && errno != EAGAIN ? -errno : 0;
	if ((size_t)n < ps)
		memset(page + n, 0, ps - (size_t)n);
	if (write(c->tmp_fd, page, ps) != (ssize_t)ps)
		return errno ? -errno : -EIO;
	return (e = wrote(c, ps)) ? e : (ssize_t)ps;
}

/* Reads the rest, partial pages included (splice only moves full ones). */
static int drain(struct rcpu *c)
{
	char *page = pk__malloc((size_t)c->b->page_size);
	ssize_t n;

	if (!page)
		return -ENOMEM;
	while ((n = read_page(c, page)) > 0)
		;
	pk__free(page);
	return (int)n;
}

/* Whole pages by splice (or read() with no_splice). */
static ssize_t move_pages(struct rcpu *c, char *page)
{
	return c->r->no_splice ? read_page(c, page) : splice_pages(c);
}

static void *reader(void *arg)
{
	struct rcpu *c = arg;
	char *page = pk__malloc((size_t)c->b->page_size);
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	if (!page) {
		c->err = -ENOMEM;
		return NULL;
	}
	while (!atomic_load(&c->r->stop)) {
		ssize_t n = move_pages(c, page);
		if (n < 0) {
			c->err = (int)n;
			break;
		}
		if (n > 0)
			continue;
		if (c->r->sleep_set) {     /* -s: a fixed interval */
			struct timespec ts = { c->r->sleep_us / 1000000,
				(long)(c->r->sleep_us % 1000000) * 1000 };
			nanosleep(&ts, NULL);
		} else {
			struct pollfd p = { .fd = c->raw_fd, .events = POLLIN };
			poll(&p, 1, 50);
		}
	}
	while (!c->err && move_pages(c, page) > 0)
		;
	pk__free(page);
	if (!c->err)
		c->err = drain(c);
	return NULL;
}

int pk_ftrace_rec_start(struct pk_ftrace_rec *r)
{
	int e = 0;

	for (int k = 0; !e && k < r->nr_bufs; k++)
		e = pk_tracefs_write(r->t, r->bufs[k].instp, "tracing_on", "1");
	if (e)
		return e;
	for (int k = 0; k < r->nr_bufs; k++) {
		struct rbuf *b = &r->bufs[k];
		for (int i = 0; !e && i < b->nr_cpus; i++) {
			e = -pthread_create(&b->cpus[i].thr, NULL, reader,
					    &b->cpus[i]);
			if (!e)
				b->cpus[i].started = true;
			if (!e && r->rt_priority) {
				struct sched_param sp = {
					.sched_priority = r->rt_priority };
				e = -pthread_setschedparam(b->cpus[i].thr,
							   SCHED_FIFO, &sp);
			}
		}
	}
	r->running = !r->no_readers;   /* start's tracing stays on */
	return e;
}

/* -m: the older half then the current one, as one file in tmp_fd. */
static int join_halves(struct rcpu *c)
{
	char buf[65536];
	ssize_t n;
	off_t at = 0;

	if (c->old_fd < 0)
		return 0;
	if (lseek(c->old_fd, 0, SEEK_END) < 0)
		return -errno;
	while ((n = pread(c->tmp_fd, buf, sizeof(buf), at)) > 0) {
		if (write(c->old_fd, buf, (size_t)n) != n)
			return -errno;
		at += n;
	}
	if (n < 0)
		return -errno;
	close(c->tmp_fd);
	c->tmp_fd = c->old_fd;
	c->old_fd = -1;
	return 0;
}

static void count_pages(struct rcpu *c)
{
	struct pk_rb_layout l;
	off_t size = lseek(c->tmp_fd, 0, SEEK_END);
	int ps = c->b->page_size;
	uint8_t *page = pk__malloc((size_t)ps);

	pk__rb_layout_default(&l, (int)sizeof(long), false);
	c->res.bytes = size > 0 ? (uint64_t)size : 0;
	if (!page)
		return;
	for (off_t at = 0; at + ps <= size; at += ps) {
		struct pk_rb_iter it;
		struct pk_rb_event ev;
		if (pread(c->tmp_fd, page, (size_t)ps, at) != ps)
			break;
		if (pk__rb_iter_init(&it, page, (size_t)ps, &l))
			continue;
		if (it.missed > 0)
			c->res.lost += (uint64_t)it.missed;
		else if (it.missed < 0)
			c->res.lost_unknown = true;
		while (pk__rb_iter_next(&it, &ev) > 0)
			c->res.events++;
	}
	pk__free(page);
}

/*
 * Lost events: the kernel's counters are exact (overwritten + dropped +
 * commit overruns); the page headers only flag where. Without the stats
 * file the page headers' stored counts are all there is.
 */
static void account(struct pk_ftrace_rec *r, struct rcpu *c)
{
	struct pk_tracefs_stats st;

	if (pk_tracefs_cpu_stats(r->t, c->b->instp, c->cpu, &st))
		return;
	c->res.overruns = st.overrun;
	c->res.lost = st.overrun + st.dropped + st.commit_overrun;
	c->res.lost_unknown = false;
}

int pk_ftrace_rec_stop(struct pk_ftrace_rec *r)
{
	int err = 0;

	if (!r->running)
		return 0;
	for (int k = 0; k < r->nr_bufs; k++)
		pk_tracefs_write(r->t, r->bufs[k].instp, "tracing_on", "0");
	atomic_store(&r->stop, 1);
	for (int k = 0; k < r->nr_bufs; k++) {
		struct rbuf *b = &r->bufs[k];
		for (int i = 0; i < b->nr_cpus; i++) {
			struct rcpu *c = &b->cpus[i];
			int e;
			if (c->started)
				pthread_join(c->thr, NULL);
			c->started = false;
			if ((e = join_halves(c)) && !c->err)
				c->err = e;
			if (c->err && !err)
				err = c->err;
			count_pages(c);
			account(r, c);
		}
	}
	r->running = false;
	return err;
}

/* Buffer B's CPU stats (trace-cmd's CPUSTAT options: a named buffer's
 * after a "Buffer: NAME" one). 0 or -errno. */
static int write_cpustats(struct pk_ftrace_rec *r, struct pk_tdwriter *w,
			  const struct rbuf *b)
{
	char *hdr = NULL;
	int e = 0;

	if (b->instp && b != &r->bufs[0]) {
		if (asprintf(&hdr, "\nBuffer: %s\n\n", b->name) < 0)
			return -ENOMEM;
		e = pk_tdwriter_add_cpustat(w, hdr);
		free(hdr);
	}
	for (int i = 0; !e && i < b->nr_cpus; i++) {
		char f[64], *s;
		snprintf(f, sizeof(f), "per_cpu/cpu%d/stats", b->cpus[i].cpu);
		if (pk_tracefs_read(r->t, b->instp, f, &s) < 0)
			continue;
		hdr = NULL;
		if (asprintf(&hdr, "CPU: %d\n%s", b->cpus[i].cpu, s) > 0)
			e = pk_tdwriter_add_cpustat(w, hdr);
		free(hdr);
		free(s);
	}
	return e;
}

/* saved_tgids (a top-level file) when a recorded buffer had
 * options/record-tgid on: the TGID column of the kernel's text needs it
 * (trace-cmd 3.1 has no place for it: an option of perfkit's own). */
static int write_tgids(struct pk_ftrace_rec *r, struct pk_tdwriter *w)
{
	uint64_t on = 0;
	char *s = NULL;
	long n;
	int e;

	for (int k = 0; !on && k < r->nr_bufs; k++)
		if (pk_tracefs_read_u64(r->t, r->bufs[k].instp,
					"options/record-tgid", &on))
			on = 0;
	if (!on || (n = pk_tracefs_read(r->t, NULL, "saved_tgids", &s)) < 0)
		return 0;
	e = pk_tdwriter_set_tgids(w, s, (size_t)n);
	free(s);
	return e;
}

/* Buffer B's pages (named "" for the main one). 0 or -errno. */
static int write_buffer(struct pk_ftrace_rec *r, struct pk_tdwriter *w,
			const struct rbuf *b, const char *clk)
{
	int *ids = pk__calloc((size_t)b->nr_cpus + 1, sizeof(int));
	int *fds = pk__calloc((size_t)b->nr_cpus + 1, sizeof(int));
	int e = -ENOMEM;

	if (ids && fds) {
		for (int i = 0; i < b->nr_cpus; i++) {
			ids[i] = b->cpus[i].cpu;
			fds[i] = b->cpus[i].tmp_fd;
		}
		e = pk_tdwriter_add_buffer(w, b == &r->bufs[0] ? "" : b->name,
					   clk, b->nr_cpus, ids, fds);
		if (!e && b->page_size)
			e = pk_tdwriter_buffer_page_size(w, b->page_size);
	}
	pk__free(ids);
	pk__free(fds);
	return e;
}

/* A latency tracer's main buffer: its max-latency trace as the kernel
 * prints it (trace-cmd saves latency tracers' text, not their pages).
 * 0 or -errno. */
static int write_latency(struct pk_ftrace_rec *r, struct pk_tdwriter *w,
			 const struct rbuf *b, const char *clk)
{
	char *txt = NULL;
	long n;
	int e;

	pk_tdwriter_set_cpu_count(w, b->nr_cpus);
	if (r->lat_text)
		return pk_tdwriter_add_latency(w, "", clk, r->lat_text,
					       (size_t)r->lat_len);
	n = pk_tracefs_read(r->t, b->instp, "trace", &txt);
	e = n < 0 ? (int)n : pk_tdwriter_add_latency(w, "", clk, txt,
						     (size_t)n);
	free(txt);
	return e;
}

int pk_ftrace_rec_write(struct pk_ftrace_rec *r)
{
	PK_OPTS(pk_tdwriter_opts, wo, .compression = r->compression,
		.page_size = r->bufs[0].page_size ? r->bufs[0].page_size
						  : r->page_size);
	struct pk_tdwriter *w = pk_tdwriter_open(r->output, &wo);
	const char *instp = r->bufs[0].instp;
	/* formats in trace-cmd 3.1's order (z to a), as it saves them */
	PK_OPTS(pk_tdfill_opts, fo, .instance = instp,
		.systems = r->all_systems ? NULL
			   : (const char *const *)r->systems,
		.reverse_order = true);
	char *clk = NULL;
	int e;

	if (!w)
		return -errno;
	e = pk_tdwriter_fill(w, pk_tracefs_dir(r->t), &fo);
	for (int k = 0; !e && k < r->nr_bufs; k++)
		e = write_cpustats(r, w, &r->bufs[k]);
	if (!e)
		e = write_tgids(r, w);
	if (!e && r->tsc2nsec)
		e = pk_tdwriter_set_tsc2nsec(w, r->tsc_mult, r->tsc_shift, 0);
	if (!e && r->ts_offset)
		e = pk_tdwriter_set_ts_offset(w, r->ts_offset);
	(void)pk_tracefs_read_clock(r->t, instp, &clk);
	for (int k = 0; !e && k < r->nr_bufs; k++)
		e = !k && r->latency
		    ? write_latency(r, w, &r->bufs[k], clk ? clk : "local")
		    : write_buffer(r, w, &r->bufs[k], clk ? clk : "local");
	free(clk);
	if (e) {
		pk_tdwriter_free(w);
		return e;
	}
	return pk_tdwriter_close(w);
}

/* Reads what buffer B holds now: whole pages by splice, then the partial
 * ones by read. 0 or -errno. */
static int extract_buffer(struct pk_ftrace_rec *r, struct rbuf *b,
			  const int *cpus, int n)
{
	int e;

	b->page_size = pk_tracefs_subbuf_size(r->t, b->instp);
	e = open_cpus(r, b, cpus, n);
	for (int i = 0; !e && i < b->nr_cpus; i++) {
		struct rcpu *c = &b->cpus[i];
		ssize_t m;
		while ((m = splice_pages(c)) > 0)
			;
		e = m < 0 ? (int)m : drain(c);
		count_pages(c);
		account(r, c);
	}
	return e;
}

/* The buffers of O into R (names copied; NULL: the top level). */
static int extract_names(struct pk_ftrace_rec *r,
			 const struct pk_ftrace_extract_opts *o)
{
	int n = o->latency ? 1 : o->nr_buffers;

	r->bufs = pk__calloc((size_t)n, sizeof(*r->bufs));
	if (!r->bufs)
		return -ENOMEM;
	r->nr_bufs = n;
	for (int k = 0; k < n; k++) {
		const char *name = o->buffers[k];
		if (!name || !*name)
			continue;
		snprintf(r->bufs[k].name, sizeof(r->bufs[k].name), "%s", name);
		r->bufs[k].instp = r->bufs[k].name;
	}
	return 0;
}

static int rec_extract(struct pk_tracefs *t, const char *output,
		       const struct pk_ftrace_extract_opts *o,
		       struct pk_ftrace_rec **out)
{
	struct pk_ftrace_rec *r = pk__zalloc(sizeof(*r));
	int *cpus = NULL, n, e;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->t = t;
	r->page_size = (int)sysconf(_SC_PAGESIZE);
	r->all_systems = true;
	r->latency = o->latency;
	r->raw_file = o->snapshot ? "snapshot_raw" : "trace_pipe_raw";
	r->output = pk__strdup(output ? output : "trace.dat");
	r->tmpbase = r->output ? pk__strdup(r->output) : NULL;
	r->compression = pk__strdup(o->compression ? o->compression : "zstd");
	n = pk__cpu_online(&cpus);
	e = !r->tmpbase || !r->compression ? -ENOMEM : n < 0 ? n
	    : extract_names(r, o);
	for (int k = 0; !e && k < r->nr_bufs; k++)
		e = extract_buffer(r, &r->bufs[k], cpus, n);
	pk__free(cpus);
	if (!e && r->latency) {
		r->lat_len = pk_tracefs_read(t, r->bufs[0].instp, "trace",
					     &r->lat_text);
		e = r->lat_len < 0 ? (int)r->lat_len : 0;
	}
	if (e) {
		pk_ftrace_rec_free(r);
		return e;
	}
	*out = r;
	return 0;
}

struct pk_ftrace_rec *pk_ftrace_extract_bufs(struct pk_tracefs *t,
					     const char *output,
					     const struct pk_ftrace_extract_opts *o)
{
	struct pk_ftrace_rec *obj = NULL;
	int e = -EINVAL;

	if (o && PK_OPTS_VALID(o, pk_ftrace_extract_opts) &&
	    o->nr_buffers > 0 && o->buffers)
		e = rec_extract(t, output, o, &obj);
	return pk__ptr_or_errno(e, obj);
}

struct pk_ftrace_rec *pk_ftrace_extract(struct pk_tracefs *t,
					const char *instance,
					const char *output,
					const char *compression)
{
	const char *bufs[1] = { instance };
	PK_OPTS(pk_ftrace_extract_opts, o, .buffers = bufs, .nr_buffers = 1,
		.compression = compression);

	return pk_ftrace_extract_bufs(t, output, &o);
}

int pk_ftrace_rec_nr_buffers(const struct pk_ftrace_rec *r)
{
	return r->nr_bufs;
}

const char *pk_ftrace_rec_buffer_name(const struct pk_ftrace_rec *r, int b)
{
	if (b < 0 || b >= r->nr_bufs)
		return NULL;
	return b ? r->bufs[b].name : "";
}

int pk_ftrace_rec_buffer_result(const struct pk_ftrace_rec *r, int b, int idx,
				struct pk_ftrace_cpu_result *res)
{
	if (b < 0 || b >= r->nr_bufs || idx < 0 || idx >= r->bufs[b].nr_cpus)
		return -EINVAL;
	*res = r->bufs[b].cpus[idx].res;
	return 0;
}

int pk_ftrace_rec_nr_cpus(const struct pk_ftrace_rec *r)
{
	return r->nr_bufs ? r->bufs[0].nr_cpus : 0;
}

int pk_ftrace_rec_result(const struct pk_ftrace_rec *r, int idx,
			 struct pk_ftrace_cpu_result *res)
{
	return pk_ftrace_rec_buffer_result(r, 0, idx, res);
}

/* Closes every descriptor of buffer B. */
static void close_buffer(struct rbuf *b)
{
	for (int i = 0; b->cpus && i < b->nr_cpus; i++) {
		struct rcpu *c = &b->cpus[i];
		int fds[5] = { c->raw_fd, c->tmp_fd, c->old_fd, c->pipe[0],
			       c->pipe[1] };
		for (int k = 0; k < 5; k++)
			if (fds[k] >= 0)
				close(fds[k]);
	}
	pk__free(b->cpus);
}

void pk_ftrace_rec_free(struct pk_ftrace_rec *r)
{
	if (!r)
		return;
	if (r->running)
		pk_ftrace_rec_stop(r);
	for (int k = 0; r->bufs && k < r->nr_bufs; k++)
		close_buffer(&r->bufs[k]);
	pk__free(r->bufs);
	pk__rec_dyn_fini(&r->dyn);
	for (char **sy = r->systems; sy && *sy; sy++)
		pk__free(*sy);
	pk__free(r->systems);
	pk__free(r->output);
	pk__free(r->tmpbase);
	pk__free(r->compression);
	free(r->lat_text);
	pk__free(r);
}
