/* SPDX-License-Identifier: MIT */
/*
 * `trace-cmd report` output for a trace.dat file. Each record's line
 * prefix (task, CPU, time, event name) is formatted here in trace-cmd
 * 3.1's layout and its payload by the compiled formatter (tfmt.h); the
 * records it cannot print exactly go to libtraceevent (tdreptep.c), which
 * is set up only when the first such record comes. Output collects in one
 * large buffer written in big pieces.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/bytes.h"
#include "ftrace/report.h"

#define FLUSH_AT (1u << 20)

struct rep {
	struct pk_tracedat *td;
	FILE *out;
	const struct pk_report_opts *opts;
	struct tf_env env;
	struct tf_out o;
	int name_w;             /* buffer-name column (several buffers) */
	int fd;                 /* OUT's descriptor, or -1 */
	int *id2fmt;            /* event id -> format index, -1 */
	struct tf_event **evs;  /* format index -> compiled (lazily) */
	uint8_t *state;         /* 0 not yet, 1 compiled, 2 failed;
				   | 4: its records may go into batches */
	struct rep_tep t;
	bool tep_ready, tep_only;
	bool filtering;         /* -F: tep has every format, decides */
	/* kallsyms read by the prefetch thread (job) into JENV */
	bool job;
	struct tf_env jenv;
	int job_err;
	struct pk_report_stats st;
	int err;
	int rewind_err;
	unsigned flags;         /* opts->flags */
	long long diff;         /* --ts-diff column of this record, or -1 */
	unsigned long long prev_ts;
	bool have_prev;
	uint64_t last_ts;       /* --ts-check: the last printed record's */
	bool have_last;
	struct pk_report_filter *filt;  /* -F's and --pid/--comm's */
	int nr_filt;
	char *pid_filt;
	struct rep_wake wake;   /* -w */
};

static int load_syms(struct tf_env *env)
{
	struct rep *r = env->priv;

	if (r->job) {
		/* the prefetch thread parsed them: take its table */
		pk__td_prefetch_job_wait(r->td);
		r->job = false;
		env->syms = r->jenv.syms;
		memset(&r->jenv.syms, 0, sizeof(r->jenv.syms));
		return r->job_err;
	}
	const struct td_blob *k = pk__td_tracedat_blob(r->td, PK_TD_KALLSYMS);
	return k ? pk__tf_syms_parse(env, k->p, k->len) : 0;
}

/* On the prefetch thread: the kallsyms section (only it touches it). */
static void syms_job(void *arg)
{
	struct rep *r = arg;
	const struct td_blob *k = pk__td_tracedat_blob(r->td, PK_TD_KALLSYMS);

	r->job_err = k && k->len ? pk__tf_syms_parse(&r->jenv, k->p, k->len) : 0;
}

/* The buffer goes out with write(2) where OUT has a descriptor (the
 * FILE was flushed before the first record), else through stdio. */
static int load_printk(struct tf_env *env)
{
	struct rep *r = env->priv;
	const struct td_blob *k = pk__td_tracedat_blob(r->td, PK_TD_PRINTK);

	return k ? pk__tf_printk_parse(env, k->p, k->len) : 0;
}

static int flush(struct rep *r)
{
	const char *p = r->o.p;
	size_t n = r->o.len;

	r->o.len = 0;
	if (r->fd < 0)
		return n && fwrite(p, 1, n, r->out) != n ? -EIO : 0;
	return pk__write_all(r->fd, p, n);
}

static int tep_ready(struct rep *r)
{
	if (r->tep_ready)
		return r->t.failed ? PK_ERR_INTERNAL : 0;
	r->tep_ready = true;
	int e = pk__td_tep_init(&r->t, r->td, r->tep_only, &r->env, r->opts);
	if (e < 0)
		r->t.failed = true;
	return e;
}

/*
 * Gives format FI to libtraceevent. Its crash guard forks: the prefetch
 * thread is stopped around it (a fork copies one thread of a process
 * whose other threads may hold locks) and started again after.
 */
static int tep_format(struct rep *r, int fi)
{
	int e = tep_ready(r);

	if (e || fi < 0 || r->tep_only || r->t.tt.parsed[fi])
		return e;
	bool pf = r->td->pf != NULL;
	if (pf)
		pk__td_prefetch_stop(r->td);
	e = pk__td_tep_need(&r->t, r->td, fi);
	if (pf && pk__td_prefetch_start(r->td, NULL, NULL) < 0)
		pk_debug("trace.dat: no decompression thread");
	return e;
}

static int fmt_index(struct rep *r, const struct pk_tracedat_event *ev)
{
	if (ev->size < 2)
		return -1;
	return r->id2fmt[pk_ld16(ev->data, r->td->big)];
}

/* Whether TE's records can go into a batch. */
static bool batchable(const struct tf_event *te)
{
	if (!te || !strcmp(te->system, "ftrace") || te->plugin == TFP_FALLBACK)
		return false;
	return te->ok || (te->plugin != TFP_NONE && te->plugin != TFP_KMEM);
}

/* The compiled format of EV, or NULL. */
static struct tf_event *event_of(struct rep *r, int fi)
{
	if (fi < 0)
		return NULL;
	if (!r->state[fi]) {
		const struct td_format *f = &r->td->fmts[fi];
		struct tf_event *e = pk__zalloc(sizeof(*e));
		r->state[fi] = 2;
		if (!e)
			return NULL;
		if (pk__tf_compile(e, f->text.p, f->text.len, f->system,
			       r->td->long_size, TF_PLUGINS) < 0) {
			pk__tf_event_fini(e);
			pk__free(e);
			return NULL;
		}
		r->evs[fi] = e;
		r->state[fi] = 1;
		if (e->common_pid < 0)
			r->state[fi] = 2;
		else if (batchable(e))
			r->state[fi] |= 4;
		if (!e->ok && e->plugin == TFP_NONE)
			r->st.formats_fallback++;
		else if (e->plugin == TFP_FALLBACK)
			r->st.formats_fallback++;
		else
			r->st.formats_fast++;
		if ((!e->ok && e->plugin == TFP_NONE) ||
		    e->plugin == TFP_FALLBACK)
			pk_info("trace.dat: event %s:%s is formatted by "
				"libtraceevent (%s)", e->system, e->name,
				e->why ? e->why : "?");
	}
	return (r->state[fi] & 3) == 1 ? r->evs[fi] : NULL;
}

static char *put_padl(char *p, const char *s, size_t n, int w)
{
	for (int i = (int)n; i < w; i++)
		*p++ = ' ';
	memcpy(p, s, n);
	return p + n;
}

/* The time column: nanoseconds (or the raw count of a counter clock),
 * or trace-cmd 3.1's seconds.microseconds (rounded); FULL (-t): seconds
 * and nanoseconds. */
static char *put_time(char *p, unsigned long long t, bool usecs, bool full)
{
	char num[24];
	int digits = full ? 9 : 6;

	if (!usecs) {
		size_t n = (size_t)(pk__tf_put_u64(num, t) - num);
		return put_padl(p, num, n, 12);
	}
	unsigned long long frac = full ? t % 1000000000 : 0;
	if (!full) {
		t = (t + 500) / 1000;
		frac = t % 1000000;
		t /= 1000000;
	} else {
		t /= 1000000000;
	}
	*p++ = ' ';
	size_t n = (size_t)(pk__tf_put_u64(num, t) - num);
	p = put_padl(p, num, n, 5);
	*p++ = '.';
	for (int i = digits - 1; i >= 0; i--) {
		p[i] = (char)('0' + frac % 10);
		frac /= 10;
	}
	return p + digits;
}

/* --ts-diff's column after the time: "(+DELTA)" padded to 8 and a blank
 * (blank at the first record); DIFF < 0: no column. */
static char *put_diff(char *p, long long diff)
{
	char *b = p;

	if (diff < 0)
		return p;
	*p++ = ' ';
	b = p;
	if (diff != LLONG_MAX) {
		*p++ = '(';
		*p++ = '+';
		p = pk__tf_put_u64(p, (uint64_t)diff);
		*p++ = ')';
	}
	while (p - b < 8)
		*p++ = ' ';
	return p;
}

/* "%16s-%-5d [%03d]", the time and DIFF (put_diff), as trace-cmd prints
 * them */
static int put_prefix(struct tf_out *o, const struct pk_tracedat_event *ev,
		      int pid, const char *comm, size_t cl, bool usecs,
		      bool full, long long diff)
{
	char num[24], *p, *b;

	if (tf_out_reserve(o, cl + 128))
		return -ENOMEM;
	p = o->p + o->len;
	p = put_padl(p, comm, cl, 16);
	*p++ = '-';
	b = p;
	if (pid < 0) {
		*p++ = '-';
		p = pk__tf_put_u64(p, -(uint64_t)(int64_t)pid);
	} else {
		p = pk__tf_put_u64(p, (uint64_t)pid);
	}
	while (p - b < 5)
		*p++ = ' ';
	*p++ = ' ';
	*p++ = '[';
	int cpu = ev->cpu;
	if (cpu >= 0 && cpu < 1000) {
		*p++ = (char)('0' + cpu / 100);
		*p++ = (char)('0' + cpu / 10 % 10);
		*p++ = (char)('0' + cpu % 10);
	} else {
		size_t n = (size_t)(pk__tf_put_u64(num, (uint64_t)(int64_t)cpu) - num);
		if (cpu < 0) {
			*p++ = '-';
			n = (size_t)(pk__tf_put_u64(num, -(uint64_t)(int64_t)cpu) - num);
		}
		memcpy(p, num, n);
		p += n;
	}
	*p++ = ']';
	p = put_time(p, ev->ts, usecs, full);
	*p++ = ':';
	p = put_diff(p, diff);
	o->len = (size_t)(p - o->p);
	return 0;
}

static int put_name(struct tf_out *o, const char *name, size_t nl)
{
	if (tf_out_reserve(o, nl + 24))
		return -ENOMEM;
	char *p = o->p + o->len;
	*p++ = ' ';
	memcpy(p, name, nl);
	p += nl;
	*p++ = ':';
	*p++ = ' ';
	for (size_t i = nl; i < 20; i++)
		*p++ = ' ';
	o->len = (size_t)(p - o->p);
	return 0;
}

/* -l's "%8.8s-%-5d %3d" and the latency flags (-R: "-0xFLAGS"), the
 * time and DIFF. */
static int put_lat_prefix(struct rep *r, const struct pk_tracedat_event *ev,
			  int pid, const char *comm, long long diff)
{
	struct tf_out *o = &r->o;
	size_t cl = PK_MIN(strlen(comm), 8);
	char *p, *b;
	int e;

	if (tf_out_reserve(o, 64))
		return -ENOMEM;
	p = put_padl(o->p + o->len, comm, cl, 8);
	*p++ = '-';
	b = p;
	p += snprintf(p, 24, "%d", pid);
	while (p - b < 5)
		*p++ = ' ';
	p += snprintf(p, 24, " %3d", ev->cpu);
	o->len = (size_t)(p - o->p);
	if (r->flags & PK_REPORT_RAW) {
		/* -R -l: the flags byte in hex, no preempt depth */
		o->len += (size_t)snprintf(o->p + o->len, 24, "-0x%x",
					   pk__td_tep_flags(&r->t, ev));
		e = 0;
	} else {
		e = pk__td_tep_print(&r->t, ev, o, NULL, "LATENCY");
	}
	if (e < 0 || tf_out_reserve(o, 64))
		return e < 0 ? e : -ENOMEM;
	p = put_time(o->p + o->len, ev->ts,
		     r->td->bufs[ev->buffer].in_usecs,
		     r->flags & PK_REPORT_FULL_TS);
	*p++ = ':';
	p = put_diff(p, diff);
	o->len = (size_t)(p - o->p);
	return 0;
}

/* The whole line from libtraceevent (its payload, name, task name). */
static int slow_line(struct rep *r, const struct pk_tracedat_event *ev,
		     int fi)
{
	const char *comm, *name;
	int e = tep_format(r, fi), pid;

	if (e < 0)
		return e;
	r->st.fallback++;
	comm = pk__td_tep_who(&r->t, ev, &pid, &name);
	e = r->flags & PK_REPORT_LATENCY
	    ? put_lat_prefix(r, ev, pid, comm, r->diff)
	    : put_prefix(&r->o, ev, pid, comm, strlen(comm),
			 r->td->bufs[ev->buffer].in_usecs,
			 r->flags & PK_REPORT_FULL_TS, r->diff);
	if (e < 0 || (e = put_name(&r->o, name, strlen(name))) < 0)
		return e;
	return pk__td_tep_print(&r->t, ev, &r->o, NULL,
				r->flags & PK_REPORT_RAW ? "INFO_RAW" : "INFO");
}

/* The buffer-name column and a dropped-events line before a record. */
static int put_head(const struct rep *r, struct tf_out *o,
		    const struct pk_tracedat_event *ev)
{
	const struct td_buffer *b = &r->td->bufs[ev->buffer];
	char tmp[64];

	if (tf_out_reserve(o, 512))
		return -ENOMEM;
	/* several buffers: instances get "NAME: ", the top one blanks */
	if (r->name_w) {
		size_t n = strlen(b->name);
		if (tf_out_reserve(o, n + (size_t)r->name_w + 8))
			return -ENOMEM;
		char *p = o->p + o->len;
		p = put_padl(p, ev->buffer ? b->name : "", ev->buffer ? n : 0,
			     r->name_w);
		*p++ = ':';
		if (!ev->buffer)
			p[-1] = ' ';
		*p++ = ' ';
		o->len = (size_t)(p - o->p);
	}
	if (ev->missed) {
		int n = ev->missed > 0
			? snprintf(tmp, sizeof(tmp), "CPU:%d [%lld EVENTS DROPPED]\n",
				   ev->cpu, ev->missed)
			: snprintf(tmp, sizeof(tmp), "CPU:%d [EVENTS DROPPED]\n",
				   ev->cpu);
		memcpy(o->p + o->len, tmp, (size_t)n);
		o->len += (size_t)n;
	}
	return 0;
}

/* The pid of a record of TE, or false (too short). */
static bool rec_pid(const struct rep *r, const struct tf_event *te,
		    const struct pk_tracedat_event *ev, int *pid)
{
	const struct tf_field *pf = &te->fields[te->common_pid];

	if (pf->off + 4 > ev->size || pf->size != 4)
		return false;
	*pid = (int)pk_ld32(ev->data + pf->off, r->td->big);
	return true;
}

/*
 * A whole line by the compiled formatter (no newline): 0, or TF_FALLBACK
 * with O as it was. Touches no shared state but reads of ENV: the batch
 * threads call it.
 */
static int td_rep_fast_line(const struct rep *r, struct tf_env *env,
		     struct tf_out *o, const struct pk_tracedat_event *ev,
		     const struct tf_event *te, int pid, const char *comm,
		     size_t cl)
{
	size_t start = o->len, at;
	int e;

	if ((e = put_head(r, o, ev)) ||
	    (e = put_prefix(o, ev, pid, comm, cl,
			    r->td->bufs[ev->buffer].in_usecs,
			    r->flags & PK_REPORT_FULL_TS, r->diff)) ||
	    (e = put_name(o, te->name, te->name_len)))
		return e;
	at = o->len;
	e = pk__tf_print(te, env, ev->data, ev->size, o);
	if (e) {
		o->len = start;
		return e;
	}
	/* as from libtraceevent: one trailing newline goes */
	if (o->len > at && o->p[o->len - 1] == '\n')
		o->len--;
	return 0;
}

/* --ts-diff: EV's distance from the record printed before it, in the
 * time column's unit. */
static void set_diff(struct rep *r, const struct pk_tracedat_event *ev)
{
	unsigned long long t = ev->ts, p = r->prev_ts;

	if (r->td->bufs[ev->buffer].in_usecs &&
	    !(r->flags & PK_REPORT_FULL_TS)) {
		t = (t + 500) / 1000;
		p = (p + 500) / 1000;
	}
	/* (trace-cmd: no previous record, or one at time 0 as --align-ts
	 * makes the first, gives no delta) */
	r->diff = r->have_prev && p ? (long long)(t - p) : LLONG_MAX;
	r->prev_ts = ev->ts;
	r->have_prev = true;
}

/*
 * One record into r->o. COMM (CL bytes): its task name as resolved when
 * it was read (batches), or NULL to look it up now. 1: left out (-F).
 */
bool pk_report_irq_skip(unsigned flags, const void *data, uint32_t size)
{
	uint8_t f = size > 2 ? ((const uint8_t *)data)[2] : 0;

	return ((flags & PK_REPORT_NO_IRQS) && (f & 0x08)) ||
	       ((flags & PK_REPORT_NO_SOFTIRQS) && (f & 0x10));
}

/* --ts-check: a record older than the one printed before is said. */
static void ts_check(struct rep *r, const struct pk_tracedat_event *ev)
{
	if (r->have_last && r->last_ts > ev->ts)
		pk_warn("%s: record on cpu %d went backwards: %llu to %llu "
			"delta: -%llu", r->td->name, ev->cpu,
			(unsigned long long)r->last_ts,
			(unsigned long long)ev->ts,
			(unsigned long long)(r->last_ts - ev->ts));
	r->last_ts = ev->ts;
	r->have_last = true;
}

static int td_rep_event(struct rep *r, const struct pk_tracedat_event *ev,
		 const char *comm, size_t cl)
{
	int fi = fmt_index(r, ev), e, pid = 0;
	struct tf_event *te = r->tep_only ? NULL : event_of(r, fi);

	if (r->filtering && !pk__td_tep_keep(&r->t, ev))
		return 1;               /* filtered out */
	if (pk_report_irq_skip(r->flags, ev->data, ev->size))
		return 1;
	if (r->flags & PK_REPORT_TS_DIFF)
		set_diff(r, ev);
	if (r->flags & PK_REPORT_TS_CHECK)
		ts_check(r, ev);

	if (!te || !rec_pid(r, te, ev, &pid)) {
		if ((e = put_head(r, &r->o, ev)) < 0)
			return e;
		e = slow_line(r, ev, fi);
	} else {
		if (!comm)
			comm = pk__tf_comm(&r->env, pid, &cl);
		e = td_rep_fast_line(r, &r->env, &r->o, ev, te, pid, comm, cl);
		if (e == 0) {
			r->st.fast++;
		} else if (e == TF_FALLBACK) {
			const char *nm;
			r->st.fallback++;
			/* libtraceevent's sched plugin registers the
			 * comms in the one table while it prints */
			struct td_buffer *b = &r->td->bufs[ev->buffer];
			if (!(e = tep_format(r, fi)) &&
			    !(e = put_head(r, &r->o, ev)) &&
			    !(e = put_prefix(&r->o, ev, pid, comm, cl,
					     b->in_usecs,
					     r->flags & PK_REPORT_FULL_TS,
					     r->diff)) &&
			    !(e = put_name(&r->o, te->name, te->name_len)))
				e = pk__td_tep_payload(&r->t, ev, &r->o, &nm);
		}
	}
	if (!e && (r->flags & PK_REPORT_WAKEUP))
		e = pk__rep_wake_event(&r->wake, fi, ev, &r->o);
	if (e < 0)
		return e;
	if (tf_out_reserve(&r->o, 1))
		return -ENOMEM;
	r->o.p[r->o.len++] = '\n';
	return r->o.len >= FLUSH_AT ? flush(r) : 0;
}

/* --events: the event formats by system (--event: those MATCH names). */
static int print_formats(struct pk_tracedat *td, FILE *out, const char *match)
{
	const char *sys = NULL;
	struct td_evmatch m = { .on = false };
	int e;

	if (match && (e = pk__td_evmatch_init(&m, match)))
		return e;
	for (int i = td->nr_ftrace_fmts; i < td->nr_fmts; i++) {
		const struct td_format *f = &td->fmts[i];

		if (m.on && !pk__td_evmatch(&m, f->system, f->text.p,
					    f->text.len))
			continue;
		if (f->system != sys)
			fprintf(out, "\nsystem: %s\n", f->system);
		sys = f->system;
		fprintf(out, "%.*s\n", (int)f->text.len, f->text.p);
	}
	pk__td_evmatch_fini(&m);
	return 0;
}

static int setup(struct rep *r)
{
	struct pk_tracedat *td = r->td;
	const struct td_blob *cl;

	r->env.big = td->big;
	r->env.long_size = td->long_size;
	r->env.load_syms = load_syms;
	r->env.load_printk = load_printk;
	r->env.priv = r;
	r->id2fmt = pk__malloc(65536 * sizeof(int));
	r->evs = pk__calloc((size_t)td->nr_fmts + 1, sizeof(*r->evs));
	r->state = pk__calloc((size_t)td->nr_fmts + 1, 1);
	if (!r->id2fmt || !r->evs || !r->state)
		return -ENOMEM;
	memset(r->id2fmt, 0xff, 65536 * sizeof(int));
	for (int i = 0; i < td->nr_fmts; i++) {
		long id = pk__td_format_id(&td->fmts[i]);
		if (id >= 0 && id < 65536 && r->id2fmt[id] < 0)
			r->id2fmt[id] = i;
	}
	cl = pk__td_tracedat_blob(td, PK_TD_CMDLINES);
	if (cl && cl->len)
		return pk__tf_comms_parse(&r->env, cl->p, cl->len);
	return 0;
}

static void teardown(struct rep *r)
{
	pk__td_prefetch_stop(r->td);        /* its job writes r->jenv */
	for (int i = 0; r->evs && i < r->td->nr_fmts; i++) {
		if (r->evs[i])
			pk__tf_event_fini(r->evs[i]);
		pk__free(r->evs[i]);
	}
	pk__free(r->evs);
	pk__free(r->state);
	pk__free(r->id2fmt);
	pk__td_tep_fini(&r->t);
	pk__rep_wake_fini(&r->wake);
	pk__tf_env_fini(&r->env);
	pk__tf_env_fini(&r->jenv);
	pk__tf_out_fini(&r->o);
	free(r->filt);
	free(r->pid_filt);
}

/* The filters: -F's, then the one --pid/--comm make. 0 or -ENOMEM. */
static int gather_filters(struct rep *r)
{
	const struct pk_report_opts *o = r->opts;
	int n = o ? o->nr_filters : 0, e;

	if ((e = pk__td_pid_filter(r->td, o, &r->pid_filt)))
		return e;
	if (!n && !r->pid_filt)
		return 0;
	r->filt = calloc((size_t)n + 1, sizeof(*r->filt));
	if (!r->filt)
		return -ENOMEM;
	if (n)
		memcpy(r->filt, o->filters, (size_t)n * sizeof(*r->filt));
	if (r->pid_filt)
		r->filt[n++] = (struct pk_report_filter){ r->pid_filt, false };
	r->nr_filt = n;
	return 0;
}

/* ---- batches formatted by two threads ---- */

/*
 * While every record so far is one the compiled formatter prints, the
 * reader collects batches of records (resolving each task name and
 * registering the sched plugins' names in record order, so that a batch
 * depends on nothing that comes after it) and a worker thread formats
 * every other batch while the reader formats the next one. A record that
 * needs libtraceevent or look-ahead ends the mode: the walk goes on one
 * record at a time.
 */
#define BATCH 4096

struct entry {
	struct pk_tracedat_event ev;
	const struct tf_event *te;
	const char *comm;
	size_t cl;
	int pid;
};

struct batch {
	struct entry *e;
	int n;
	int done;               /* entries formatted into o */
	struct tf_out o;
	int err;
};

struct worker {
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct batch *job;      /* to format (set by the reader) */
	bool busy, quit;
	const struct rep *r;
};

static void format_batch(const struct rep *r, struct batch *b)
{
	b->o.len = 0;
	b->err = 0;
	for (b->done = 0; b->done < b->n; b->done++) {
		const struct entry *e = &b->e[b->done];
		int x = td_rep_fast_line(r, (struct tf_env *)&r->env, &b->o,
					 &e->ev, e->te, e->pid, e->comm, e->cl);
		if (x || tf_out_reserve(&b->o, 1)) {
			b->err = x < 0 ? x : 0;
			break;          /* the rest one by one */
		}
		b->o.p[b->o.len++] = '\n';
	}
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->job && !w->quit)
			pthread_cond_wait(&w->cond, &w->lock);
		if (!w->job)
			break;
		struct batch *b = w->job;
		pthread_mutex_unlock(&w->lock);
		format_batch(w->r, b);
		pthread_mutex_lock(&w->lock);
		w->job = NULL;
		w->busy = false;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void worker_give(struct worker *w, struct batch *b)
{
	pthread_mutex_lock(&w->lock);
	w->job = b;
	w->busy = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static void worker_wait(struct worker *w)
{
	pthread_mutex_lock(&w->lock);
	while (w->busy)
		pthread_cond_wait(&w->cond, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

/*
 * Reads up to BATCH records into B. 1: B ends the mode (the record in
 * *CARRY, *HAVE_CARRY, is for the one-by-one walk, or the data ended),
 * 0: more may follow.
 */
static int collect(struct rep *r, struct batch *b, struct pk_tracedat_event *carry,
		   bool *have_carry, int *err)
{
	struct pk_tracedat_event ev;
	int ret;

	for (b->n = 0; b->n < BATCH;) {
		while ((ret = pk_tracedat_next(r->td, &ev)) < 0)
			*err = *err ? *err : ret;
		if (!ret)
			return 1;
		if ((r->filtering && !pk__td_tep_keep(&r->t, &ev)) ||
		    pk_report_irq_skip(r->flags, ev.data, ev.size))
			continue;
		int fi = fmt_index(r, &ev), pid;
		const struct tf_event *te = event_of(r, fi);
		if (!te || !(r->state[fi] & 4) || !rec_pid(r, te, &ev, &pid)) {
			*carry = ev;
			*have_carry = true;
			return 1;
		}
		struct entry *e = &b->e[b->n++];
		e->ev = ev;
		e->te = te;
		e->pid = pid;
		e->comm = pk__tf_comm(&r->env, pid, &e->cl);
		if (!r->env.syms_loaded && pk__tf_uses_syms(te))
			pk__tf_sym_find(&r->env, 0);        /* load them here */
		pk__tf_plugin_register(te, &r->env, ev.data, ev.size);
	}
	return 0;
}

/* Writes B's output and prints what it left one by one. */
static int emit(struct rep *r, struct batch *b, long *n)
{
	int e = b->err;

	if (!e && (e = flush(r)) == 0 && b->o.len) {
		struct tf_out keep = r->o;
		r->o = b->o;            /* flush() writes r->o */
		e = flush(r);
		b->o = r->o;
		r->o = keep;
	}
	r->st.fast += b->done;
	*n += b->done;
	for (int i = b->done; e <= 0 && i < b->n; i++) {
		e = td_rep_event(r, &b->e[i].ev, b->e[i].comm, b->e[i].cl);
		*n += !e;
	}
	e = e < 0 ? e : 0;
	b->n = b->done = 0;
	return e;
}

static bool batches_wanted(const struct rep *r)
{
	return !r->tep_only &&
	       !(r->flags & (PK_REPORT_TS_DIFF | PK_REPORT_WAKEUP)) &&
	       sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

/*
 * The batch mode from the start of the walk. Returns the records printed
 * or an error; *HAVE_CARRY with *CARRY when a record is left for the
 * one-by-one walk, *END when the data ended.
 */
static long walk_batches(struct rep *r, struct pk_tracedat_event *carry,
			 bool *have_carry, bool *end, int *err)
{
	struct worker w = { .r = r };
	struct batch b[2] = { { 0 } };
	long n = 0;
	int e = 0, stop = 0;

	*have_carry = *end = false;
	for (int i = 0; i < 2; i++) {
		b[i].e = pk__calloc(BATCH, sizeof(struct entry));
		if (!b[i].e || pk__tf_out_grow(&b[i].o, 1u << 20) < 0)
			e = -ENOMEM;
	}
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	r->env.frozen = true;
	if (!e && pthread_create(&w.th, NULL, worker_run, &w) != 0)
		e = 1;          /* no thread: one by one */
	while (!e && !stop) {
		stop = collect(r, &b[0], carry, have_carry, err);
		if (b[0].n)
			worker_give(&w, &b[0]);
		if (!stop) {
			stop = collect(r, &b[1], carry, have_carry, err);
			format_batch(r, &b[1]);
		}
		worker_wait(&w);
		e = emit(r, &b[0], &n);
		if (!e)
			e = emit(r, &b[1], &n);
	}
	if (e != 1) {
		pthread_mutex_lock(&w.lock);
		w.quit = true;
		pthread_cond_broadcast(&w.cond);
		pthread_mutex_unlock(&w.lock);
		pthread_join(w.th, NULL);
	}
	r->env.frozen = false;
	pthread_mutex_destroy(&w.lock);
	pthread_cond_destroy(&w.cond);
	for (int i = 0; i < 2; i++) {
		pk__free(b[i].e);
		pk__tf_out_fini(&b[i].o);
	}
	*end = stop && !*have_carry && e != 1;
	if (e == 1)
		return n;
	return e < 0 ? e : n;
}

/*
 * Rewinds and starts the prefetch thread, with kallsyms as its first job,
 * before anything else: the symbols are wanted early and take longest.
 */
static void start(struct rep *r)
{
	struct pk_tracedat *td = r->td;

	r->rewind_err = pk_tracedat_rewind(td, r->opts ? r->opts->cpus : NULL,
					   r->opts ? r->opts->nr_cpus : 0);
	if (r->rewind_err || r->tep_only)
		return;
	/* what the walk may load lazily is loaded now: the thread then
	 * owns the kallsyms section */
	pk__td_tracedat_blob(td, PK_TD_PRINTK);
	pk__td_tracedat_blob(td, PK_TD_CMDLINES);
	int s = pk__td_prefetch_start(td, syms_job, r);
	if (s < 0)
		pk_debug("trace.dat: no decompression thread");
	r->job = s > 0;
}

/* The records in time order with one of lookahead: a function_graph
 * entry directly followed by its exit prints as one line. */
static long walk(struct rep *r)
{
	struct pk_tracedat *td = r->td;
	struct pk_tracedat_event ev, nx;
	bool have = false, have_nx, end = false;
	long n = 0;
	int ret, err = 0;

	ret = r->rewind_err;
	if (!ret && batches_wanted(r)) {
		/* the printk strings before a second thread reads them */
		pk__tf_printk_find(&r->env, 0);
		long k = walk_batches(r, &ev, &have, &end, &err);
		if (k < 0)
			ret = (int)k;
		else
			n = k;
	}
	for (; !ret && !end;) {
		if (!have) {
			while (!ret && (ret = pk_tracedat_next(td, &ev)) < 0) {
				err = err ? err : ret;
				ret = 0;
			}
			if (ret <= 0)
				break;
			have = true;
			ret = 0;
		}
		while ((ret = pk_tracedat_next(td, &nx)) < 0)
			err = err ? err : ret;
		have_nx = ret > 0;
		ret = 0;
		r->t.fg.peek = have_nx ? &nx : NULL;
		r->t.fg.consumed = false;
		if ((ret = td_rep_event(r, &ev, NULL, 0)) < 0)
			break;
		n += !ret;
		ret = 0;
		if (r->t.fg.consumed) {
			have = false;
			continue;
		}
		if (!have_nx)
			break;
		ev = nx;
	}
	pk__td_prefetch_stop(td);
	r->job = false;
	if (ret < 0)
		return ret;
	return err ? err : n;
}

long pk_tracedat_report(struct pk_tracedat *td, FILE *out,
			const struct pk_report_opts *opts)
{
	struct rep r = { .td = td, .out = out, .opts = opts, .diff = -1 };
	long n;
	int e;

	if (!PK_OPTS_VALID(opts, pk_report_opts))
		return -EINVAL;
	if (opts && opts->events)
		return print_formats(td, out, opts->events_match);
	if (td->bufs[0].latency) {
		fprintf(out, "cpus=%d\n", pk_tracedat_cpus(td));
		fwrite(td->bufs[0].text.p, 1, td->bufs[0].text.len, out);
		fputc('\n', out);          /* trace-cmd 3.1 adds a newline */
		return 0;
	}
	r.flags = opts ? opts->flags : 0;
	r.tep_only = opts && (opts->engine == PK_REPORT_TEP ||
			      (r.flags & (PK_REPORT_LATENCY | PK_REPORT_RAW)));
	if ((e = gather_filters(&r)) < 0) {
		teardown(&r);
		return e;
	}
	r.filtering = r.nr_filt > 0;
	bool late = r.tep_only || r.filtering;
	if (!late)
		start(&r);
	if (pk__tf_out_grow(&r.o, FLUSH_AT + (1u << 16)) < 0) {
		teardown(&r);
		return -ENOMEM;
	}
	if ((e = setup(&r)) < 0 || ((r.flags & PK_REPORT_WAKEUP) &&
				    (e = pk__rep_wake_init(&r.wake, td)) < 0)) {
		teardown(&r);
		return e;
	}
	/* a refused filter prints nothing, as with trace-cmd */
	if (late && ((e = tep_ready(&r)) < 0 ||
		     (r.filtering && !r.tep_only &&
		      (e = pk__td_tep_all(&r.t, td)) < 0) ||
		     (r.filtering && (r.flags & PK_REPORT_FILTER_TEST)) ||
		     (e = pk__td_tep_filters(&r.t, r.filt, r.nr_filt)) < 0)) {
		/* -T: trace-cmd prints the filters one by one (up to one
		 * it refuses) and stops, when there are any */
		if (!e && r.filtering)
			e = pk__td_filter_test(r.t.tt.tep, r.filt, r.nr_filt,
					       out);
		teardown(&r);
		return e;
	}
	fprintf(out, "cpus=%d\n", pk_tracedat_cpus(td));
	r.fd = fflush(out) ? -1 : fileno(out);
	if (late)
		start(&r);      /* after tep's pass over the data */
	if (td->nr_bufs > 1) {
		for (int i = 1; i < td->nr_bufs; i++)
			r.name_w = PK_MAX(r.name_w,
					  (int)strlen(td->bufs[i].name));
	}
	n = walk(&r);
	e = flush(&r);
	if (n >= 0 && !e && (r.flags & PK_REPORT_WAKEUP))
		pk__rep_wake_summary(&r.wake, out);
	if (opts && opts->stats)
		*opts->stats = r.st;
	teardown(&r);
	if (n >= 0 && e < 0)
		return e;
	return n;
}
