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

struct rcpu {
	int cpu;
	int raw_fd, tmp_fd;
	int pipe[2];
	pthread_t thr;
	bool started;
	int err;
	struct pk_ftrace_cpu_result res;
	struct pk_ftrace_rec *r;
};

struct pk_ftrace_rec {
	struct pk_tracefs *t;
	char inst[64];
	const char *instp;      /* NULL for the top level */
	char *output;
	char *compression;
	int page_size;
	struct rcpu *cpus;
	int nr_cpus;
	char **systems;         /* event systems whose formats are saved */
	bool all_systems;
	atomic_int stop;
	bool running;
	bool func_pids;         /* pids go to set_ftrace_pid too */
	bool tsc2nsec;
	bool latency;           /* a max-latency tracer: the trace text */
	struct pk__rec_dyn dyn; /* its event list with dynamic events */
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
		if ((e = pk_tracefs_option_spec(r->t, r->instp, *op))) {
			if (e == -ENOENT)
				pk_warn("ftrace record: no trace option '%s'",
					*op);
			return e;
		}
	}
	for (int k = 0; k < 3; k++) {
		for (const char *const *f = lists[k]; f && *f; f++) {
			e = pk_tracefs_func_add(r->t, r->instp, which[k], *f);
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

static int setup(struct pk_ftrace_rec *r, const struct pk_ftrace_rec_opts *o)
{
	char buf[64];
	int e;

	if ((e = pk_tracefs_write(r->t, r->instp, "tracing_on", "0")))
		return e;
	if (o->buffer_kb > 0) {
		snprintf(buf, sizeof(buf), "%d", o->buffer_kb);
		if ((e = pk_tracefs_write(r->t, r->instp, "buffer_size_kb",
					  buf)))
			return e;
	}
	if (o->clock && (e = pk_tracefs_write(r->t, r->instp, "trace_clock",
					      o->clock)))
		return e;
	if (o->cpus && o->nr_cpus &&
	    (e = pk_tracefs_cpumask(r->t, r->instp, o->cpus, o->nr_cpus)))
		return e;
	if ((e = setup_functions(r, o)))
		return e;
	if (o->follow_fork &&
	    (e = pk_tracefs_option(r->t, r->instp, "event-fork", true)))
		return e;
	if (o->follow_fork && r->func_pids &&
	    (e = pk_tracefs_option(r->t, r->instp, "function-fork", true)))
		return e;
	for (int i = 0; i < o->nr_pids; i++)
		if ((e = pk_ftrace_rec_add_pid(r, o->pids[i])))
			return e;
	if ((e = pk__rec_latency_setup(r->t, o)))
		return e;
	if (o->tracer && (e = pk_tracefs_tracer(r->t, r->instp, o->tracer))) {
		pk_debug("ftrace record: tracer %s: %s", o->tracer,
			 strerror(-e));
		return e;
	}
	for (size_t i = 0; o->events && o->events[i]; i++) {
		const char *ev = o->events[i];
		const char *flt = o->event_filters ? o->event_filters[i] : NULL;
		const char *trg = o->event_triggers ? o->event_triggers[i]
						    : NULL;
		char why[4096];

		/* the filter first: no event passes before it holds */
		if (flt && (e = pk_tracefs_event_filter(r->t, r->instp, ev,
							 flt)) < 0) {
			pk_warn("ftrace record: event '%s': filter '%s': %s%s", ev,
				flt, e == -ENOENT ? "no such event" :
				e == -EINVAL ? "refused by the kernel" :
				strerror(-e), pk__rec_why(r->t, why, sizeof(why)));
			return e;
		}
		if (trg && (e = pk__rec_triggers(r->t, r->instp, ev, trg)))
			return e;
		e = pk_tracefs_event_enable(r->t, r->instp, ev, true);
		if (e < 0) {
			pk_warn("ftrace record: event '%s': %s", ev,
				e == -ENOENT ? "no such event" : strerror(-e));
			return e;
		}
	}
	/* start from an empty buffer */
	return pk_tracefs_write(r->t, r->instp, "trace", "");
}

static int open_cpus(struct pk_ftrace_rec *r, const int *cpus, int n)
{
	r->cpus = pk__calloc((size_t)n, sizeof(*r->cpus));
	if (!r->cpus)
		return -ENOMEM;
	r->nr_cpus = n;
	for (int i = 0; i < n; i++) {
		struct rcpu *c = &r->cpus[i];
		char f[64], p[PATH_MAX];
		c->r = r;
		c->cpu = cpus[i];
		c->res.cpu = cpus[i];
		c->raw_fd = c->tmp_fd = c->pipe[0] = c->pipe[1] = -1;
		snprintf(f, sizeof(f), "per_cpu/cpu%d/trace_pipe_raw", cpus[i]);
		pk_tracefs_path(r->t, r->instp, f, p, sizeof(p));
		c->raw_fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->raw_fd < 0)
			return -errno;
		if ((c->tmp_fd = tmp_file(r->output, cpus[i])) < 0)
			return c->tmp_fd;
		if (pipe2(c->pipe, O_CLOEXEC) < 0)
			return -errno;
		fcntl(c->pipe[1], F_SETPIPE_SZ, r->page_size * 16);
	}
	return 0;
}

/* The systems named by the event specs (a glob in a system: all). */
static int note_systems(struct pk_ftrace_rec *r, const char *const *events)
{
	int n = 0;

	for (const char *const *e = events; e && *e; e++)
		n++;
	r->systems = pk__calloc((size_t)n + 1, sizeof(char *));
	if (!r->systems)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const char *sp = events[i], *c = strchr(sp, ':');
		size_t len = c ? (size_t)(c - sp) : strlen(sp);
		if (!strcmp(sp, "all") || strcspn(sp, "*?[") < len) {
			r->all_systems = true;
			continue;
		}
		if (!(r->systems[i] = pk__strndup(sp, len)))
			return -ENOMEM;
	}
	/* close the gaps left by globs */
	int k = 0;
	for (int i = 0; i < n; i++)
		if (r->systems[i])
			r->systems[k++] = r->systems[i];
	r->systems[k] = NULL;
	return 0;
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
	r->latency = pk_tracer_is_latency(o->tracer);
	/* dynamic events before the instance: removed after it at restore */
	if ((e = pk__rec_dyn_create(t, o, &r->dyn))) {
		pk_ftrace_rec_free(r);
		return e;
	}
	oo.events = r->dyn.events;
	oo.event_filters = r->dyn.filters;
	oo.event_triggers = r->dyn.triggers;
	r->output = pk__strdup(o->output ? o->output : "trace.dat");
	r->compression = pk__strdup(o->compression ? o->compression : "zstd");
	if (!r->output || !r->compression || note_systems(r, o->events)) {
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
	if (!o->top_level) {
		snprintf(r->inst, sizeof(r->inst), "perfkit-%d", (int)getpid());
		r->instp = r->inst;
		if ((e = pk_tracefs_instance_new(t, r->inst))) {
			pk_warn("ftrace record: cannot create instance %s: %s",
				r->inst, strerror(-e));
			pk_ftrace_rec_free(r);
			return e;
		}
		if (o->tracer && (!pk_tracefs_has(t, r->instp, "current_tracer") ||
				  pk__rec_tracer_top_only(o->tracer))) {
			pk_info("ftrace record: instances have no tracers on this "
				"kernel: tracer %s records in the top-level "
				"buffer", o->tracer);
			pk_tracefs_instance_remove(t, r->inst);
			r->instp = NULL;
		}
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
	if (!e)
		e = open_cpus(r, cpus, n);
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
	return pk_tracefs_pid_add(r->t, r->instp, pid, PK_PID_EVENTS |
				  (r->func_pids ? PK_PID_FUNCTIONS : 0));
}

bool pk_ftrace_rec_top_level(const struct pk_ftrace_rec *r)
{
	return r->instp == NULL;
}

/* Moves whole pages from trace_pipe_raw to the file. >0 bytes, 0 none. */
static ssize_t splice_pages(struct rcpu *c)
{
	ssize_t n = splice(c->raw_fd, NULL, c->pipe[1], NULL,
			   (size_t)c->r->page_size * 8,
			   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
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
	return n;
}

/* Reads the rest, partial pages included (splice only moves full ones). */
static int drain(struct rcpu *c)
{
	char *page = pk__malloc((size_t)c->r->page_size);
	int err = 0;

	if (!page)
		return -ENOMEM;
	for (;;) {
		ssize_t n = read(c->raw_fd, page, (size_t)c->r->page_size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0 && errno != EAGAIN)
				err = -errno;
			break;
		}
		if (n < c->r->page_size)
			memset(page + n, 0, (size_t)(c->r->page_size - n));
		if (write(c->tmp_fd, page, (size_t)c->r->page_size) !=
		    c->r->page_size) {
			err = -errno;
			break;
		}
	}
	pk__free(page);
	return err;
}

static void *reader(void *arg)
{
	struct rcpu *c = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (!atomic_load(&c->r->stop)) {
		ssize_t n = splice_pages(c);
		if (n < 0) {
			c->err = (int)n;
			break;
		}
		if (n == 0) {
			struct pollfd p = { .fd = c->raw_fd, .events = POLLIN };
			poll(&p, 1, 50);
		}
	}
	while (!c->err && splice_pages(c) > 0)
		;
	if (!c->err)
		c->err = drain(c);
	return NULL;
}

int pk_ftrace_rec_start(struct pk_ftrace_rec *r)
{
	int e = pk_tracefs_write(r->t, r->instp, "tracing_on", "1");

	if (e)
		return e;
	for (int i = 0; i < r->nr_cpus; i++) {
		e = -pthread_create(&r->cpus[i].thr, NULL, reader, &r->cpus[i]);
		if (e)
			break;
		r->cpus[i].started = true;
	}
	r->running = true;
	return e;
}

static void count_pages(struct pk_ftrace_rec *r, struct rcpu *c)
{
	struct pk_rb_layout l;
	off_t size = lseek(c->tmp_fd, 0, SEEK_END);
	uint8_t *page = pk__malloc((size_t)r->page_size);

	pk__rb_layout_default(&l, (int)sizeof(long), false);
	c->res.bytes = size > 0 ? (uint64_t)size : 0;
	if (!page)
		return;
	for (off_t at = 0; at + r->page_size <= size; at += r->page_size) {
		struct pk_rb_iter it;
		struct pk_rb_event ev;
		if (pread(c->tmp_fd, page, (size_t)r->page_size, at) !=
		    r->page_size)
			break;
		if (pk__rb_iter_init(&it, page, (size_t)r->page_size, &l))
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

	if (pk_tracefs_cpu_stats(r->t, r->instp, c->cpu, &st))
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
	pk_tracefs_write(r->t, r->instp, "tracing_on", "0");
	atomic_store(&r->stop, 1);
	for (int i = 0; i < r->nr_cpus; i++) {
		struct rcpu *c = &r->cpus[i];
		if (c->started)
			pthread_join(c->thr, NULL);
		c->started = false;
		if (c->err && !err)
			err = c->err;
		count_pages(r, c);
		account(r, c);
	}
	r->running = false;
	return err;
}

int pk_ftrace_rec_write(struct pk_ftrace_rec *r)
{
	PK_OPTS(pk_tdwriter_opts, wo, .compression = r->compression,
		.page_size = r->page_size);
	struct pk_tdwriter *w = pk_tdwriter_open(r->output, &wo);
	int *ids, *fds, e;
	char *clk = NULL;

	if (!w)
		return -errno;
	e = pk_tdwriter_fill_from_tracefs(w, pk_tracefs_dir(r->t), r->instp,
					  r->all_systems ? NULL
					  : (const char *const *)r->systems);
	for (int i = 0; !e && i < r->nr_cpus; i++) {
		char f[64], *s;
		snprintf(f, sizeof(f), "per_cpu/cpu%d/stats", r->cpus[i].cpu);
		if (pk_tracefs_read(r->t, r->instp, f, &s) >= 0) {
			char *hdr = NULL;
			if (asprintf(&hdr, "CPU: %d\n%s", r->cpus[i].cpu, s) > 0)
				e = pk_tdwriter_add_cpustat(w, hdr);
			free(hdr);
			free(s);
		}
	}
	if (!e && r->tsc2nsec)
		e = pk_tdwriter_set_tsc2nsec(w, r->tsc_mult, r->tsc_shift, 0);
	if (pk_tracefs_read(r->t, r->instp, "trace_clock", &clk) > 0) {
		char *o = strchr(clk, '['), *c = o ? strchr(o, ']') : NULL;
		if (c) {
			*c = 0;
			memmove(clk, o + 1, strlen(o + 1) + 1);
		}
	}
	ids = pk__calloc((size_t)r->nr_cpus + 1, sizeof(int));
	fds = pk__calloc((size_t)r->nr_cpus + 1, sizeof(int));
	for (int i = 0; ids && fds && i < r->nr_cpus; i++) {
		ids[i] = r->cpus[i].cpu;
		fds[i] = r->cpus[i].tmp_fd;
	}
	if (!e && r->latency) {
		/* the max-latency trace, as the kernel prints it (trace-cmd
		 * saves latency tracers' text, not their pages) */
		char *txt = NULL;
		pk_tdwriter_set_cpu_count(w, r->nr_cpus);
		long n = pk_tracefs_read(r->t, r->instp, "trace", &txt);
		e = n < 0 ? (int)n : pk_tdwriter_add_latency(w, "", clk ? clk :
							     "local", txt,
							     (size_t)n);
		free(txt);
	} else if (!e) {
		e = ids && fds ? pk_tdwriter_add_buffer(w, "", clk ? clk : "local",
						       r->nr_cpus, ids, fds)
			       : -ENOMEM;
	}
	free(clk);
	pk__free(ids);
	pk__free(fds);
	if (e) {
		pk_tdwriter_free(w);
		return e;
	}
	return pk_tdwriter_close(w);
}

static int rec_extract(struct pk_tracefs *t, const char *instance,
		      const char *output, const char *compression,
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
	if (instance && *instance) {
		snprintf(r->inst, sizeof(r->inst), "%s", instance);
		r->instp = r->inst;
	}
	r->output = pk__strdup(output ? output : "trace.dat");
	r->compression = pk__strdup(compression ? compression : "zstd");
	n = pk__cpu_online(&cpus);
	e = !r->output || !r->compression ? -ENOMEM : n < 0 ? n
	    : open_cpus(r, cpus, n);
	pk__free(cpus);
	for (int i = 0; !e && i < r->nr_cpus; i++) {
		struct rcpu *c = &r->cpus[i];
		/* whole pages by splice, then the partial ones by read */
		ssize_t m;
		while ((m = splice_pages(c)) > 0)
			;
		e = m < 0 ? (int)m : drain(c);
		count_pages(r, c);
		account(r, c);
	}
	if (e) {
		pk_ftrace_rec_free(r);
		return e;
	}
	*out = r;
	return 0;
}

struct pk_ftrace_rec *pk_ftrace_extract(struct pk_tracefs *t,
					const char *instance,
					const char *output,
					const char *compression)
{
	struct pk_ftrace_rec *obj = NULL;
	int e = rec_extract(t, instance, output, compression, &obj);

	return pk__ptr_or_errno(e, obj);
}

int pk_ftrace_rec_nr_cpus(const struct pk_ftrace_rec *r) { return r->nr_cpus; }

int pk_ftrace_rec_result(const struct pk_ftrace_rec *r, int idx,
			 struct pk_ftrace_cpu_result *res)
{
	if (idx < 0 || idx >= r->nr_cpus)
		return -EINVAL;
	*res = r->cpus[idx].res;
	return 0;
}

void pk_ftrace_rec_free(struct pk_ftrace_rec *r)
{
	if (!r)
		return;
	if (r->running)
		pk_ftrace_rec_stop(r);
	for (int i = 0; r->cpus && i < r->nr_cpus; i++) {
		struct rcpu *c = &r->cpus[i];
		if (c->raw_fd >= 0)
			close(c->raw_fd);
		if (c->tmp_fd >= 0)
			close(c->tmp_fd);
		if (c->pipe[0] >= 0)
			close(c->pipe[0]);
		if (c->pipe[1] >= 0)
			close(c->pipe[1]);
	}
	pk__free(r->cpus);
	pk__rec_dyn_fini(&r->dyn);
	for (char **sy = r->systems; sy && *sy; sy++)
		pk__free(*sy);
	pk__free(r->systems);
	pk__free(r->output);
	pk__free(r->compression);
	pk__free(r);
}
