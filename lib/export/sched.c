/* SPDX-License-Identifier: MIT */
/*
 * Scheduling timelines: each thread's state over time (running on a CPU,
 * runnable, sleeping, in uninterruptible sleep, ...) from sched_switch and
 * sched_wakeup events, and a flow from each waker to the thread it woke,
 * written as Chrome trace-event JSON (Perfetto's and chrome://tracing's
 * reader): a complete slice per state, a flow start/end pair per wake-up.
 *
 * A thread has one state at a time; a transition at TS closes the state
 * it had at TS (times never go back per thread: an earlier TS is taken as
 * the state's start), so a thread's slices never overlap; an exit (the
 * switch away of a dead task) is a slice of no length. The idle tasks
 * (tid 0, one per CPU) get no states: their wake-ups have no flow.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/hash.h"
#include <perfkit/export.h>
#include <perfkit/tracefmt.h>

enum st {
	ST_UNKNOWN, ST_RUNNING, ST_RUNNABLE, ST_PREEMPTED, ST_SLEEPING,
	ST_DISK, ST_STOPPED, ST_TRACED, ST_DEAD, ST_ZOMBIE, ST_PARKED,
	ST_IDLE,
};

/* Perfetto's names of the states. */
static const char *const st_name[] = {
	[ST_RUNNING] = "Running", [ST_RUNNABLE] = "Runnable",
	[ST_PREEMPTED] = "Runnable (Preempted)", [ST_SLEEPING] = "Sleeping",
	[ST_DISK] = "Uninterruptible Sleep", [ST_STOPPED] = "Stopped",
	[ST_TRACED] = "Traced", [ST_DEAD] = "Exit (Dead)",
	[ST_ZOMBIE] = "Exit (Zombie)", [ST_PARKED] = "Parked",
	[ST_IDLE] = "Idle",
};

struct sthread {
	int32_t tid, pid;
	char comm[16];
	uint8_t state;
	int32_t cpu;             /* running: where */
	int32_t waker;           /* runnable: who woke it, -1 none */
	uint64_t since;
};

struct sslice {
	uint64_t start, end;
	uint32_t th;
	uint8_t state;
	int32_t arg;             /* the CPU (running) or the waker (-1) */
};

struct sflow {
	uint64_t ts;
	uint32_t from, to;
};

struct scpu {
	int32_t cur;             /* the task running there, -1 unknown */
	uint64_t first;          /* its first event's time */
	bool seen;
};

struct pk_schedtl {
	struct pk__hash idx;     /* tid -> index + 1 */
	struct sthread *th;
	size_t nth, capth;
	struct sslice *sl;
	size_t nsl, capsl;
	struct sflow *fl;
	size_t nfl, capfl;
	struct scpu *cpu;
	size_t ncpu;
	uint64_t last;           /* the latest time given */
	uint64_t nswitch;        /* sched_switch events given */
	pk_schedtl_keep_fn keep; /* the threads written (NULL: all) */
	void *keep_ctx;
	struct pk__hash kinds;   /* tracepoint ID -> enum tp_kind + 1 */
};

struct pk_schedtl *pk_schedtl_new(void)
{
	return pk__zalloc(sizeof(struct pk_schedtl));
}

void pk_schedtl_free(struct pk_schedtl *tl)
{
	if (!tl)
		return;
	pk__hash_fini(&tl->idx);
	pk__hash_fini(&tl->kinds);
	pk__free(tl->th);
	pk__free(tl->sl);
	pk__free(tl->fl);
	pk__free(tl->cpu);
	pk__free(tl);
}

/* Thread TID (made on first sight: its own process, no name). */
static struct sthread *thread(struct pk_schedtl *tl, int32_t tid)
{
	bool added;
	uint64_t *v = pk__hash_put(&tl->idx, (uint32_t)tid, &added);

	if (!v)
		return NULL;
	if (added) {
		if (!pk__grow((void **)&tl->th, &tl->capth, tl->nth, 1,
			      sizeof(*tl->th))) {
			*v = 0;
			return NULL;
		}
		tl->th[tl->nth] = (struct sthread){ .tid = tid, .pid = tid,
						    .waker = -1 };
		*v = ++tl->nth;
	}
	return *v ? &tl->th[*v - 1] : NULL;
}

static struct scpu *cpu_of(struct pk_schedtl *tl, int cpu, uint64_t ts)
{
	if (cpu < 0 || cpu > 65535)
		return NULL;
	if ((size_t)cpu >= tl->ncpu) {
		size_t n = (size_t)cpu + 1;
		struct scpu *c = pk__realloc(tl->cpu, n * sizeof(*c));

		if (!c)
			return NULL;
		for (size_t i = tl->ncpu; i < n; i++)
			c[i] = (struct scpu){ .cur = -1 };
		tl->cpu = c;
		tl->ncpu = n;
	}
	if (!tl->cpu[cpu].seen) {
		tl->cpu[cpu].seen = true;
		tl->cpu[cpu].first = ts;
	}
	return &tl->cpu[cpu];
}

/* T enters STATE at TS (ARG: the CPU or the waker), closing its state. */
static int enter(struct pk_schedtl *tl, struct sthread *t, enum st state,
		 uint64_t ts, int32_t arg)
{
	if (t->state != ST_UNKNOWN) {
		if (ts < t->since)
			ts = t->since;
		if (!pk__grow((void **)&tl->sl, &tl->capsl, tl->nsl, 1,
			      sizeof(*tl->sl)))
			return -ENOMEM;
		tl->sl[tl->nsl++] = (struct sslice){
			.start = t->since, .end = ts,
			.th = (uint32_t)(t - tl->th), .state = t->state,
			.arg = t->state == ST_RUNNING ? t->cpu : t->waker,
		};
	}
	t->state = (uint8_t)state;
	t->since = ts;
	t->cpu = state == ST_RUNNING ? arg : -1;
	t->waker = state == ST_RUNNING ? -1 : arg;
	return 0;
}

/*
 * T runs on CPU C at TS: a thread not seen before has run since the
 * CPU's first event when nothing else was seen running there.
 */
static int running(struct pk_schedtl *tl, struct sthread *t,
		   struct scpu *c, int cpu, uint64_t ts)
{
	if (t->state == ST_RUNNING && t->cpu == cpu)
		return 0;
	if (t->state == ST_UNKNOWN && (c->cur < 0 || c->cur == t->tid))
		ts = c->first;
	return enter(tl, t, ST_RUNNING, ts, cpu);
}

static void set_comm(struct sthread *t, const char *comm)
{
	if (comm && *comm)
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

static void seen_at(struct pk_schedtl *tl, uint64_t ts)
{
	if (ts > tl->last)
		tl->last = ts;
}

int pk_schedtl_task(struct pk_schedtl *tl, int32_t pid, int32_t tid,
		    const char *comm)
{
	struct sthread *t;

	if (tid <= 0)
		return 0;
	if (!(t = thread(tl, tid)))
		return -ENOMEM;
	if (pid > 0)
		t->pid = pid;
	set_comm(t, comm);
	return 0;
}

int pk_schedtl_event(struct pk_schedtl *tl, uint64_t ts, int cpu,
		     int32_t tid)
{
	struct scpu *c = cpu_of(tl, cpu, ts);
	struct sthread *t;
	int e = 0;

	seen_at(tl, ts);
	if (!c)
		return cpu < 0 || cpu > 65535 ? 0 : -ENOMEM;
	if (tid > 0) {
		if (!(t = thread(tl, tid)))
			return -ENOMEM;
		/* (an event of a thread that is not running there: one
		 * of its switches was lost) */
		if (t->state == ST_UNKNOWN || c->cur < 0 || c->cur == tid)
			e = running(tl, t, c, cpu, ts);
	}
	if (c->cur < 0)
		c->cur = tid;
	return e;
}

/* The state a task leaves the CPU in (sched_switch's prev_state): the
 * lowest of the report bits S D T t X Z P; I (0x80) alone; none: it
 * stays runnable, preempted when the kernel's preemption bit (0x100
 * since 4.14, a higher one before) is set. */
static enum st prev_state_of(uint64_t s)
{
	static const enum st bit[] = { ST_SLEEPING, ST_DISK, ST_STOPPED,
				       ST_TRACED, ST_DEAD, ST_ZOMBIE,
				       ST_PARKED };

	for (unsigned i = 0; i < 7; i++)
		if (s & (1u << i))
			return bit[i];
	if (s & 0x80)
		return ST_IDLE;
	return s ? ST_PREEMPTED : ST_RUNNABLE;
}

int pk_schedtl_switch(struct pk_schedtl *tl, uint64_t ts, int cpu,
		      int32_t prev, const char *prev_comm,
		      uint64_t prev_state, int32_t next,
		      const char *next_comm)
{
	struct scpu *c = cpu_of(tl, cpu, ts);
	struct sthread *t;
	int e;

	seen_at(tl, ts);
	tl->nswitch++;
	if (!c)
		return cpu < 0 || cpu > 65535 ? 0 : -ENOMEM;
	if (prev > 0) {
		if (!(t = thread(tl, prev)))
			return -ENOMEM;
		set_comm(t, prev_comm);
		enum st st = prev_state_of(prev_state);

		if ((e = running(tl, t, c, cpu, ts)) ||
		    (e = enter(tl, t, st, ts, -1)))
			return e;
		/* (an exit is a moment: the task is gone until reaped) */
		if ((st == ST_DEAD || st == ST_ZOMBIE) &&
		    (e = enter(tl, t, ST_UNKNOWN, ts, -1)))
			return e;
	}
	if (next > 0) {
		if (!(t = thread(tl, next)))
			return -ENOMEM;
		set_comm(t, next_comm);
		if ((e = enter(tl, t, ST_RUNNING, ts, cpu)))
			return e;
	}
	c->cur = next;
	return 0;
}

int pk_schedtl_wakeup(struct pk_schedtl *tl, uint64_t ts, int cpu,
		      int32_t waker, int32_t tid, const char *comm)
{
	struct scpu *c = cpu_of(tl, cpu, ts);
	struct sthread *t, *w = NULL;
	int e;

	seen_at(tl, ts);
	if (tid <= 0)
		return 0;
	if (waker > 0 && waker != tid && c) {
		if (!(w = thread(tl, waker)))
			return -ENOMEM;
		if ((e = running(tl, w, c, cpu, ts)))
			return e;
		if (c->cur < 0)
			c->cur = waker;
	}
	if (!(t = thread(tl, tid)))
		return -ENOMEM;
	set_comm(t, comm);
	if (t->state != ST_RUNNING && t->state != ST_RUNNABLE &&
	    t->state != ST_PREEMPTED &&
	    (e = enter(tl, t, ST_RUNNABLE, ts, waker > 0 ? waker : -1)))
		return e;
	if (!w)
		return 0;
	if (!pk__grow((void **)&tl->fl, &tl->capfl, tl->nfl, 1, sizeof(*tl->fl)))
		return -ENOMEM;
	tl->fl[tl->nfl++] = (struct sflow){ ts, (uint32_t)(w - tl->th),
					    (uint32_t)(t - tl->th) };
	return 0;
}

void pk_schedtl_set_filter(struct pk_schedtl *tl, pk_schedtl_keep_fn keep,
			   void *ctx)
{
	tl->keep = keep;
	tl->keep_ctx = ctx;
}

static bool kept(const struct pk_schedtl *tl, const struct sthread *t)
{
	return !tl->keep || tl->keep(tl->keep_ctx, t->pid, t->tid, t->comm);
}

enum tp_kind { TP_OTHER, TP_SWITCH, TP_WAKEUP };

/* What tracepoint ID is, by its name (kept per ID). */
static int tp_kind(struct pk_schedtl *tl, struct pk_tracefmt *tf,
		   uint64_t id)
{
	bool added;
	uint64_t *v = pk__hash_put(&tl->kinds, id, &added);
	const char *n;

	if (!v)
		return -ENOMEM;
	if (added) {
		n = pk_tracefmt_name(tf, id);
		*v = 1 + (!n ? TP_OTHER :
			  !strcmp(n, "sched:sched_switch") ? TP_SWITCH :
			  !strcmp(n, "sched:sched_wakeup") ||
			  !strcmp(n, "sched:sched_wakeup_new") ? TP_WAKEUP :
			  TP_OTHER);
	}
	return (int)*v - 1;
}

static uint64_t tp_num(struct pk_tracefmt *tf, uint64_t id, const void *raw,
		       size_t size, const char *name)
{
	uint64_t v = 0;

	pk_tracefmt_field_num(tf, id, raw, size, name, &v);
	return v;
}

static const char *tp_str(struct pk_tracefmt *tf, uint64_t id,
			  const void *raw, size_t size, const char *name,
			  char *buf, size_t len)
{
	const char *p;
	size_t n;

	buf[0] = 0;
	if (!pk_tracefmt_field_str(tf, id, raw, size, name, &p, &n))
		snprintf(buf, len, "%.*s", (int)n, p);
	return buf;
}

int pk_schedtl_tracepoint(struct pk_schedtl *tl, struct pk_tracefmt *tf,
			  const void *raw, size_t size, uint64_t ts, int cpu,
			  int32_t tid)
{
	char a[32], b[32];
	uint64_t id;
	int k, e;

	if (pk_tracefmt_record_id(tf, raw, size, &id))
		return 0;
	if ((k = tp_kind(tl, tf, id)) <= TP_OTHER)
		return k;
	if (k == TP_SWITCH)
		e = pk_schedtl_switch(tl, ts, cpu,
			(int32_t)tp_num(tf, id, raw, size, "prev_pid"),
			tp_str(tf, id, raw, size, "prev_comm", a, sizeof(a)),
			tp_num(tf, id, raw, size, "prev_state"),
			(int32_t)tp_num(tf, id, raw, size, "next_pid"),
			tp_str(tf, id, raw, size, "next_comm", b, sizeof(b)));
	else
		e = pk_schedtl_wakeup(tl, ts, cpu, tid,
			(int32_t)tp_num(tf, id, raw, size, "pid"),
			tp_str(tf, id, raw, size, "comm", a, sizeof(a)));
	return e ? e : 1;
}

int pk_schedtl_end(struct pk_schedtl *tl, uint64_t ts)
{
	int e = 0;

	if (ts < tl->last)
		ts = tl->last;
	for (size_t i = 0; i < tl->nth && !e; i++)
		if (tl->th[i].state != ST_UNKNOWN)
			e = enter(tl, &tl->th[i], ST_UNKNOWN, ts, -1);
	return e;
}

size_t pk_schedtl_nr_slices(const struct pk_schedtl *tl)
{
	return tl->nsl;
}

size_t pk_schedtl_nr_flows(const struct pk_schedtl *tl)
{
	return tl->nfl;
}

/* "us.nnn" of nanoseconds NS */
static void put_us(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000,
		(unsigned)(ns % 1000));
}

static void sep(FILE *f, bool *first)
{
	fputs(*first ? "\n" : ",\n", f);
	*first = false;
}

int pk_schedtl_write_json(const struct pk_schedtl *tl, FILE *f, bool *first)
{
	for (size_t i = 0; i < tl->nth; i++) {
		const struct sthread *t = &tl->th[i];

		if (!t->comm[0] || !kept(tl, t))
			continue;
		sep(f, first);
		fprintf(f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
			"\"tid\":%d,\"args\":{\"name\":", (int)t->pid,
			(int)t->tid);
		pk_json_str(f, t->comm, strlen(t->comm));
		fputs("}}", f);
	}
	/* (no switch: what ran when is not known) */
	for (size_t i = 0; tl->nswitch && i < tl->nsl; i++) {
		const struct sslice *s = &tl->sl[i];
		const struct sthread *t = &tl->th[s->th];

		if (!kept(tl, t))
			continue;
		sep(f, first);
		fprintf(f, "{\"ph\":\"X\",\"cat\":\"sched\",\"name\":\"%s\","
			"\"pid\":%d,\"tid\":%d", st_name[s->state],
			(int)t->pid, (int)t->tid);
		put_us(f, "ts", s->start);
		put_us(f, "dur", s->end - s->start);
		if (s->state == ST_RUNNING)
			fprintf(f, ",\"args\":{\"cpu\":%d}}", (int)s->arg);
		else if (s->arg >= 0)
			fprintf(f, ",\"args\":{\"waker_tid\":%d}}", (int)s->arg);
		else
			fputc('}', f);
	}
	for (size_t i = 0; tl->nswitch && i < tl->nfl; i++) {
		const struct sflow *w = &tl->fl[i];

		if (!kept(tl, &tl->th[w->from]) || !kept(tl, &tl->th[w->to]))
			continue;
		for (int end = 0; end < 2; end++) {
			const struct sthread *t = &tl->th[end ? w->to : w->from];

			sep(f, first);
			fprintf(f, "{\"ph\":\"%s\",\"cat\":\"wakeup\","
				"\"name\":\"wakeup\",\"id\":%zu,\"pid\":%d,"
				"\"tid\":%d", end ? "f\",\"bp\":\"e" : "s",
				i + 1, (int)t->pid, (int)t->tid);
			put_us(f, "ts", w->ts);
			fputc('}', f);
		}
	}
	return ferror(f) ? -EIO : 0;
}
