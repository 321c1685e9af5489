/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd report --profile: per task, how often each event came and, for
 * the events trace-cmd pairs, how long from the start to the end:
 *   sched_switch out -> the task's wake-up or switch in ("sched_switch:S"),
 *   sched_wakeup -> switch in, irq_handler_entry -> exit, softirq_raise ->
 *   entry -> exit, sys_enter -> sys_exit (raw_syscalls), funcgraph entry
 *   -> exit; every other event counted by the value of its first field.
 * Starts live in the task that met them; the newest matching one ends;
 * a lost-events page drops the starts of its CPU and every migrating one.
 * The rules are trace-cmd 3.1's (tracecmd/trace-profile.c, read to learn
 * them). Its order of two events that tie in its sort comes from heap
 * addresses (it differs run to run); here ties keep the order the events
 * were first met. A kernel_stack record goes to the event before it in
 * its task (or the task that task woke): to a start (counted with the
 * time when it ends), else to the last counted event; a stack with
 * neither waits for a function-graph entry (report_profile_stack.c
 * prints the trees).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/bytes.h"
#include "ftrace/report.h"
#include "ftrace/profile.h"

enum { PT_UNDEF, PT_SWITCH, PT_WAKEUP, PT_FUNC, PT_SYSCALL, PT_IRQ,
       PT_SOFTIRQ, PT_EXEC, PT_STACK };
enum { PH_NONE, PH_SWITCH, PH_WAKEUP, PH_EXEC, PH_FG_ENTRY, PH_FG_EXIT,
       PH_STACK };
enum { PP_DEFAULT, PP_SWITCH, PP_SOFTIRQ, PP_FUNC, PP_SYSCALL };

struct pf { uint32_t off, size; bool ok; };

struct pev {
	int id, fi, type, handler, print;
	const char *name;
	int start, end;         /* the paired pev, or -1 */
	struct pf pid, end_match, start_match, data;
	bool migrate, global;
};

struct phash {
	int ev;
	uint64_t search, val, count, total, tmax, tsmax, tmin, tsmin;
	uint64_t last;          /* the last time counted */
	long order;
	struct pstacks stacks;
};

/* A kernel_stack record's frames (borrowed from the file). */
struct pst { const uint8_t *caller; uint32_t size; uint64_t ts; };

struct pstart {
	int ev, cpu;
	uint64_t search, val, ts;
	long older;             /* the next older start of the same key + 1 */
	bool live;
	struct pst stack;       /* caller NULL: none */
};

struct ptask {
	int pid;
	char *comm;
	bool sleeping;
	struct phash *ev;
	size_t nev, evcap;
	struct pk__hash evidx;  /* mix(ev, search, val) -> index + 1 */
	struct pstart *st;
	size_t nst, stcap;
	struct pk__hash stidx;  /* mix(ev, search) -> newest index + 1 */
	/* where the next kernel_stack goes (indexes + 1; 0: none) */
	size_t proxy;           /* the woken task's (tasks) */
	size_t last_start;      /* a start of this task */
	size_t last_event;      /* a count of this task */
	struct pst last_stack;  /* a stack kept for a graph entry */
};

struct prof {
	struct pk_tracedat *td;
	struct tf_event *fmts;  /* compiled formats, by format index */
	struct pev *evs;
	int nevs;
	int *byid;              /* event id -> pev index, -1 */
	struct pf common_pid, common_type;
	struct pf prev_comm, next_comm, wake_comm;
	uint32_t caller_off;    /* kernel_stack's caller field */
	struct ptask *tasks;
	size_t ntasks, cap;
	struct pk__hash byPid;  /* pid -> task index + 1 */
	struct ptask global, *percpu;
	int cpus;
	bool global_irqs;
	struct tf_env env;
	bool syms;
	long order;
};

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t k = a * 0x9e3779b97f4a7c15ull;

	k ^= (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull;
	k ^= (c + 0x85ebca6b27d4eb4full) * 0x94d049bb133111ebull;
	return k ^ (k >> 31);
}

/* A field's value as libtraceevent reads a number field: 1, 2, 4 or 8
 * bytes, unsigned; anything else leaves *V alone. */
static bool rd(const struct prof *p, const struct pf *f,
	       const struct pk_tracedat_event *ev, uint64_t *v)
{
	if (!f->ok || (f->size != 1 && f->size != 2 && f->size != 4 &&
		       f->size != 8) || f->off + f->size > ev->size)
		return false;
	*v = pk_ldn((const uint8_t *)ev->data + f->off, f->size, p->td->big);
	return true;
}

static struct pf field(const struct tf_event *e, const char *name)
{
	int i = e ? pk__tf_find_field(e, name) : -1;

	if (i < 0)
		return (struct pf){ 0 };
	return (struct pf){ e->fields[i].off, e->fields[i].size, true };
}

/* ---- tasks ---- */

static struct ptask *task_at(struct prof *p, size_t i)
{
	return &p->tasks[i];
}

/* The task of PID, made when new. NULL: no memory. */
static struct ptask *find_task(struct prof *p, int pid)
{
	bool added;
	uint64_t *slot = pk__hash_put(&p->byPid, (uint32_t)pid, &added);

	if (!slot)
		return NULL;
	if (!added)
		return task_at(p, (size_t)*slot - 1);
	if (!pk__grow((void **)&p->tasks, &p->cap, p->ntasks, 1,
		      sizeof(*p->tasks)))
		return NULL;
	memset(&p->tasks[p->ntasks], 0, sizeof(struct ptask));
	p->tasks[p->ntasks].pid = pid;
	*slot = (uint64_t)++p->ntasks;
	return &p->tasks[p->ntasks - 1];
}

static void task_fini(struct ptask *t)
{
	for (size_t i = 0; i < t->nev; i++)
		pk__prof_stacks_fini(&t->ev[i].stacks);
	pk__free(t->comm);
	pk__free(t->ev);
	pk__free(t->st);
	pk__hash_fini(&t->evidx);
	pk__hash_fini(&t->stidx);
}

/* The task's name from the char field F of EV (its bytes, as trace-cmd
 * copies them), when it has none. */
static int set_comm(struct prof *p, struct ptask *t, const struct pf *f,
		    const struct pk_tracedat_event *ev)
{
	if (t->comm || !f->ok || f->off + f->size > ev->size)
		return 0;
	if (!(t->comm = pk__malloc(f->size + 1)))
		return -ENOMEM;
	memcpy(t->comm, (const char *)ev->data + f->off, f->size);
	t->comm[f->size] = 0;
	(void)p;
	return 0;
}

/* ---- event counts ---- */

static struct phash *find_hash(struct prof *p, struct ptask *t, int ev,
			       uint64_t search, uint64_t val)
{
	bool added;
	uint64_t *slot = pk__hash_put(&t->evidx, mix((uint64_t)ev, search,
						      val), &added);
	struct phash *h;

	if (!slot)
		return NULL;
	if (!added) {
		h = &t->ev[*slot - 1];
		if (h->ev == ev && h->search == search && h->val == val)
			return h;
		for (size_t i = 0; i < t->nev; i++)   /* a mixed-key clash */
			if (t->ev[i].ev == ev && t->ev[i].search == search &&
			    t->ev[i].val == val)
				return &t->ev[i];
	}
	if (!pk__grow((void **)&t->ev, &t->evcap, t->nev, 1, sizeof(*t->ev)))
		return NULL;
	h = &t->ev[t->nev];
	memset(h, 0, sizeof(*h));
	h->ev = ev;
	h->search = search;
	h->val = val;
	h->order = p->order++;
	if (added)
		*slot = (uint64_t)t->nev + 1;
	t->nev++;
	return h;
}

/* ---- starts ---- */

static int add_start(struct prof *p, struct ptask *t, int ev,
		     const struct pk_tracedat_event *rec, uint64_t search,
		     uint64_t val)
{
	bool added;
	uint64_t *slot = pk__hash_put(&t->stidx, mix((uint64_t)ev, search, 0),
				      &added);

	(void)p;
	if (!slot)
		return -ENOMEM;
	if (!pk__grow((void **)&t->st, &t->stcap, t->nst, 1, sizeof(*t->st)))
		return -ENOMEM;
	t->st[t->nst] = (struct pstart){ ev, rec->cpu, search, val, rec->ts,
					 (long)*slot, true, { 0 } };
	*slot = (uint64_t)++t->nst;
	t->last_start = t->nst;     /* trace-cmd's task->last_start */
	t->last_event = 0;
	return 0;
}

/* The newest live start of T for (EV, SEARCH), or NULL. */
static struct pstart *find_start(struct ptask *t, int ev, uint64_t search)
{
	uint64_t *slot = pk__hash_get(&t->stidx, mix((uint64_t)ev, search, 0));

	for (long i = slot ? (long)*slot : 0; i; i = t->st[i - 1].older) {
		struct pstart *s = &t->st[i - 1];
		if (s->live && s->ev == ev && s->search == search)
			return s;
	}
	return NULL;
}

static void kill_start(struct ptask *t, size_t i)
{
	t->st[i].live = false;
	if (t->last_start == i + 1)
		t->last_start = 0;
}

/* Ends the start of (EV, SEARCH) in T at TS: its time goes to EV's count.
 * The count's index + 1, 0 (no start) or -ENOMEM. */
static int end_start(struct prof *p, struct ptask *t, int ev, uint64_t ts,
		     uint64_t search)
{
	struct pstart *s = ev >= 0 ? find_start(t, ev, search) : NULL;
	struct phash *h;
	long long d;

	if (!s)
		return 0;
	d = (long long)(ts - s->ts);
	if (d < 0)
		d = 0;
	size_t si = (size_t)(s - t->st);
	if (!(h = find_hash(p, t, ev, s->search, s->val)))
		return -ENOMEM;
	s = &t->st[si];
	h->count++;
	h->total += (uint64_t)d;
	h->last = (uint64_t)d;
	if ((uint64_t)d > h->tmax) {
		h->tmax = (uint64_t)d;
		h->tsmax = ts;
	}
	if (h->count == 1 || (uint64_t)d < h->tmin) {
		h->tmin = (uint64_t)d;
		h->tsmin = ts;
	}
	if (s->stack.caller &&
	    pk__prof_stack_add(&h->stacks, s->stack.caller, s->stack.size,
			       (uint64_t)d, s->stack.ts))
		return -ENOMEM;
	kill_start(t, si);
	return (int)(h - t->ev) + 1;
}

static void drop_starts(struct prof *p, struct ptask *t, int cpu)
{
	for (size_t i = 0; i < t->nst; i++) {
		struct pstart *s = &t->st[i];
		if (s->live && (p->evs[s->ev].migrate || s->cpu == cpu))
			kill_start(t, i);
	}
}

/* Events were lost before a record of CPU: the starts that may have lost
 * their end go. */
static void missed(struct prof *p, int cpu)
{
	for (size_t i = 0; i < p->ntasks; i++)
		drop_starts(p, &p->tasks[i], cpu);
	drop_starts(p, &p->global, cpu);
	for (int c = 0; c < p->cpus; c++)
		drop_starts(p, &p->percpu[c], cpu);
}

/* ---- the handlers ---- */

static void graph_entry(struct ptask *t);
static int handle(struct prof *p, int ei, const struct pk_tracedat_event *rec,
		  uint64_t pid);

static struct ptask *event_task(struct prof *p, const struct pev *e,
				const struct pk_tracedat_event *rec,
				uint64_t pid)
{
	if (e->global)
		return e->migrate ? &p->global :
		       rec->cpu < p->cpus ? &p->percpu[rec->cpu] : NULL;
	rd(p, &e->pid, rec, &pid);
	return find_task(p, (int)pid);
}

static int generic(struct prof *p, int ei, const struct pk_tracedat_event *rec,
		   uint64_t pid)
{
	const struct pev *e = &p->evs[ei];
	struct ptask *t = NULL;
	uint64_t v = 0;
	int r;

	if (e->start >= 0) {
		if (!(t = event_task(p, e, rec, pid)))
			return 0;
		rd(p, &e->start_match, rec, &v);
		if ((r = end_start(p, t, e->start, rec->ts, v)) < 0)
			return r;
		t->last_start = 0;
		t->last_event = (size_t)r;
	}
	if (e->end >= 0) {
		if (!(t = event_task(p, e, rec, pid)))
			return 0;
		v = 0;
		rd(p, &e->end_match, rec, &v);
		if ((r = add_start(p, t, ei, rec, v, v)) < 0)
			return r;
		if (e->handler == PH_FG_ENTRY)
			graph_entry(t);
		return 0;
	}
	if (t) {
		if (e->handler == PH_FG_EXIT)
			t->last_event = 0;
		return 0;
	}
	if (!(t = find_task(p, (int)pid)))
		return -ENOMEM;
	t->proxy = t->last_start = t->last_event = 0;
	v = 0;
	rd(p, &e->data, rec, &v);
	struct phash *h = find_hash(p, t, ei, v, v);
	if (!h)
		return -ENOMEM;
	h->count++;
	t->last_event = (size_t)(h - t->ev) + 1;
	return 0;
}

/* A function-graph entry takes the stack met before it; no stack after
 * it goes to it. */
static void graph_entry(struct ptask *t)
{
	if (t->last_stack.caller && t->last_start) {
		t->st[t->last_start - 1].stack = t->last_stack;
		t->last_stack.caller = NULL;
		t->last_event = 0;
	}
	t->last_start = 0;
}

/* A kernel_stack record of task PID: to the woken task's or this task's
 * last start or count, else kept for a graph entry. */
static int on_stack(struct prof *p, const struct pk_tracedat_event *rec,
		    uint64_t pid)
{
	struct ptask *t = find_task(p, (int)pid), *orig = t;
	struct pst st = { (const uint8_t *)rec->data + p->caller_off,
			  rec->size > p->caller_off ? rec->size - p->caller_off
						    : 0, rec->ts };

	if (!t)
		return -ENOMEM;
	t->last_stack.caller = NULL;
	if (t->proxy) {
		size_t k = t->proxy - 1;
		t->proxy = 0;
		t = task_at(p, k);
	}
	if (!t->last_start && !t->last_event) {
		orig->last_stack = st;
		return 0;
	}
	if (!st.size)  /* (trace-cmd would not take a stack under an int) */
		return 0;
	if (t->last_start) {
		t->st[t->last_start - 1].stack = st;
		t->last_start = t->last_event = 0;
		return 0;
	}
	struct phash *h = &t->ev[t->last_event - 1];
	t->last_event = 0;
	return pk__prof_stack_add(&h->stacks, st.caller, st.size, h->last,
				  rec->ts);
}

static int on_switch(struct prof *p, int ei, const struct pk_tracedat_event *rec)
{
	const struct pev *e = &p->evs[ei];
	uint64_t prev = 0, state = 0, next = 0;
	struct ptask *t;
	int r;

	rd(p, &e->pid, rec, &prev);
	rd(p, &e->data, rec, &state);
	state &= 1024 - 1;
	rd(p, &e->end_match, rec, &next);
	if (!(t = find_task(p, (int)prev)) ||
	    (r = set_comm(p, t, &p->prev_comm, rec)) < 0)
		return -ENOMEM;
	t->sleeping = state != 0;
	if ((r = add_start(p, t, ei, rec, prev, state)) < 0)
		return r;
	if (!(t = find_task(p, (int)next)) ||
	    set_comm(p, t, &p->next_comm, rec) < 0)
		return -ENOMEM;
	if ((r = end_start(p, t, e->start, rec->ts, next)) < 0)
		return r;
	return end_start(p, t, ei, rec->ts, next);
}

static int on_wakeup(struct prof *p, int ei, const struct pk_tracedat_event *rec,
		     uint64_t waker)
{
	const struct pev *e = &p->evs[ei];
	uint64_t ok = 1, pid = 0;
	struct ptask *t, *w;
	int r;

	if (e->data.ok && rd(p, &e->data, rec, &ok) && !ok)
		return 0;
	rd(p, &e->pid, rec, &pid);
	if (!(t = find_task(p, (int)pid)) ||
	    set_comm(p, t, &p->wake_comm, rec) < 0 ||
	    !(w = find_task(p, (int)waker)))
		return -ENOMEM;
	t = find_task(p, (int)pid);   /* (the table may have moved) */
	if (!t->sleeping) {            /* no stack goes to this wake-up */
		w->proxy = w->last_start = w->last_event = 0;
		return 0;
	}
	t->sleeping = false;
	w->proxy = (size_t)(t - p->tasks) + 1;
	if ((r = end_start(p, t, e->start, rec->ts, pid)) < 0)
		return r;
	return add_start(p, t, ei, rec, pid, pid);
}

static int on_exec(struct prof *p, int ei, const struct pk_tracedat_event *rec,
		   uint64_t pid)
{
	struct ptask *t;

	rd(p, &p->evs[ei].data, rec, &pid);
	if (!(t = find_task(p, (int)pid)))
		return -ENOMEM;
	pk__free(t->comm);
	t->comm = NULL;
	return 0;
}

static int on_record(struct prof *p, const struct pk_tracedat_event *rec)
{
	uint64_t id = 0, pid = 0;
	int ei;

	if (rec->missed)
		missed(p, rec->cpu);
	if (!rd(p, &p->common_type, rec, &id) || id >= 65536 ||
	    (ei = p->byid[id]) < 0)
		return 0;
	rd(p, &p->common_pid, rec, &pid);
	struct ptask *t = find_task(p, (int)pid);
	if (!t)
		return -ENOMEM;
	const uint8_t *kept = t->last_stack.caller;
	int r = handle(p, ei, rec, pid);
	/* a kept stack lives until the task's next record */
	t = find_task(p, (int)pid);
	if (kept && t && t->last_stack.caller == kept)
		t->last_stack.caller = NULL;
	return r;
}

static int handle(struct prof *p, int ei, const struct pk_tracedat_event *rec,
		  uint64_t pid)
{
	switch (p->evs[ei].handler) {
	case PH_SWITCH: return on_switch(p, ei, rec);
	case PH_WAKEUP: return on_wakeup(p, ei, rec, pid);
	case PH_EXEC: return on_exec(p, ei, rec, pid);
	case PH_STACK: return on_stack(p, rec, pid);
	default: return generic(p, ei, rec, pid);
	}
}

/* ---- set-up ---- */

/* The pev of SYSTEM:NAME, or -1. */
static int find_ev(const struct prof *p, const char *system, const char *name)
{
	for (int i = 0; i < p->nevs; i++) {
		const struct tf_event *f = &p->fmts[p->evs[i].fi];
		if (!strcmp(f->name, name) && !strcmp(f->system, system))
			return i;
	}
	return -1;
}

/* trace-cmd's mate_events: START's end is END, matched on the fields. */
static void mate(struct prof *p, int s, const char *pid_field,
		 const char *end_match, int e, const char *start_match,
		 bool migrate, bool global)
{
	struct pev *S = &p->evs[s], *E = &p->evs[e];

	S->end = e;
	E->start = s;
	if (pid_field)
		S->pid = field(&p->fmts[S->fi], pid_field);
	S->end_match = field(&p->fmts[S->fi], end_match);
	E->start_match = field(&p->fmts[E->fi], start_match);
	S->migrate = E->migrate = migrate;
	S->global = E->global = global;
}

static void set_type(struct prof *p, int i, int type, int handler, int print)
{
	if (i < 0)
		return;
	p->evs[i].type = type;
	p->evs[i].handler = handler;
	p->evs[i].print = print;
}

static int setup(struct prof *p)
{
	struct pk_tracedat *td = p->td;

	p->fmts = pk__calloc((size_t)td->nr_fmts + 1, sizeof(*p->fmts));
	p->evs = pk__calloc((size_t)td->nr_fmts + 1, sizeof(*p->evs));
	p->byid = pk__malloc(65536 * sizeof(int));
	p->cpus = pk_tracedat_cpus(td);
	p->percpu = pk__calloc((size_t)p->cpus + 1, sizeof(*p->percpu));
	if (!p->fmts || !p->evs || !p->byid || !p->percpu)
		return -ENOMEM;
	memset(p->byid, 0xff, 65536 * sizeof(int));
	for (int i = 0; i < td->nr_fmts; i++) {
		struct tf_event *f = &p->fmts[i];
		const struct td_format *t = &td->fmts[i];
		int r = pk__tf_compile(f, t->text.p, t->text.len, t->system,
				       td->long_size, 0);
		if (r == -ENOMEM)
			return r;
		if (r || f->id < 0 || f->id >= 65536 || p->byid[f->id] >= 0)
			continue;
		struct pev *e = &p->evs[p->nevs];
		e->id = f->id;
		e->fi = i;
		e->name = f->name;
		e->start = e->end = -1;
		/* the first field after the common ones */
		for (int k = 0; k < f->nr_fields; k++)
			if (strncmp(f->fields[k].name, "common_", 7)) {
				e->data = (struct pf){ f->fields[k].off,
						       f->fields[k].size, true };
				break;
			}
		if (!p->common_pid.ok) {
			p->common_pid = field(f, "common_pid");
			p->common_type = field(f, "common_type");
		}
		p->byid[f->id] = p->nevs++;
	}
	int irq_in = find_ev(p, "irq", "irq_handler_entry");
	int irq_out = find_ev(p, "irq", "irq_handler_exit");
	int si_in = find_ev(p, "irq", "softirq_entry");
	int si_out = find_ev(p, "irq", "softirq_exit");
	int si_raise = find_ev(p, "irq", "softirq_raise");
	int wake = find_ev(p, "sched", "sched_wakeup");
	int sw = find_ev(p, "sched", "sched_switch");
	int fg_in = find_ev(p, "ftrace", "funcgraph_entry");
	int fg_out = find_ev(p, "ftrace", "funcgraph_exit");
	int sc_in = find_ev(p, "raw_syscalls", "sys_enter");
	int sc_out = find_ev(p, "raw_syscalls", "sys_exit");
	int exec = find_ev(p, "sched", "sched_process_exec");
	int stack = find_ev(p, "ftrace", "kernel_stack");
	int func = find_ev(p, "ftrace", "function");

	set_type(p, irq_in, PT_IRQ, PH_NONE, PP_DEFAULT);
	set_type(p, irq_out, PT_IRQ, PH_NONE, PP_DEFAULT);
	set_type(p, si_in, PT_SOFTIRQ, PH_NONE, PP_SOFTIRQ);
	set_type(p, si_out, PT_SOFTIRQ, PH_NONE, PP_SOFTIRQ);
	set_type(p, si_raise, PT_SOFTIRQ, PH_NONE, PP_SOFTIRQ);
	set_type(p, wake, PT_WAKEUP, PH_NONE, PP_DEFAULT);
	set_type(p, sw, PT_SWITCH, PH_NONE, PP_SWITCH);
	set_type(p, fg_in, PT_FUNC, PH_NONE, PP_FUNC);
	set_type(p, fg_out, PT_FUNC, PH_NONE, PP_DEFAULT);
	set_type(p, sc_in, PT_SYSCALL, PH_NONE, PP_SYSCALL);
	set_type(p, sc_out, PT_SYSCALL, PH_NONE, PP_SYSCALL);
	set_type(p, exec, PT_EXEC, PH_EXEC, PP_DEFAULT);
	set_type(p, stack, PT_STACK, PH_STACK, PP_DEFAULT);
	set_type(p, func, PT_FUNC, PH_NONE, PP_FUNC);
	if (stack >= 0) {
		struct pf c = field(&p->fmts[p->evs[stack].fi], "caller");
		p->caller_off = c.ok ? c.off : 0;
		if (!c.ok)   /* (trace-cmd refuses such a file) */
			p->evs[stack].handler = PH_NONE;
	}
	if (exec >= 0)
		p->evs[exec].data = field(&p->fmts[p->evs[exec].fi], "old_pid");
	if (sw >= 0) {
		const struct tf_event *f = &p->fmts[p->evs[sw].fi];
		p->evs[sw].handler = PH_SWITCH;
		p->evs[sw].data = field(f, "prev_state");
		p->prev_comm = field(f, "prev_comm");
		p->next_comm = field(f, "next_comm");
		/* (trace-cmd reads these through the pairing below) */
		p->evs[sw].pid = field(f, "prev_pid");
		p->evs[sw].end_match = field(f, "next_pid");
	}
	if (sw >= 0 && wake >= 0) {
		mate(p, sw, "prev_pid", "next_pid", wake, "pid", true, false);
		mate(p, wake, "pid", "pid", sw, "prev_pid", true, false);
		p->evs[wake].handler = PH_WAKEUP;
		p->evs[wake].data = field(&p->fmts[p->evs[wake].fi], "success");
		p->wake_comm = field(&p->fmts[p->evs[wake].fi], "comm");
	}
	if (irq_in >= 0 && irq_out >= 0)
		mate(p, irq_in, NULL, "irq", irq_out, "irq", false,
		     p->global_irqs);
	if (si_in >= 0 && si_out >= 0)
		mate(p, si_in, NULL, "vec", si_out, "vec", false,
		     p->global_irqs);
	if (si_in >= 0 && si_raise >= 0)
		mate(p, si_raise, NULL, "vec", si_in, "vec", false,
		     p->global_irqs);
	if (fg_in >= 0 && fg_out >= 0) {
		mate(p, fg_in, NULL, "func", fg_out, "func", true, false);
		p->evs[fg_in].handler = PH_FG_ENTRY;
		p->evs[fg_out].handler = PH_FG_EXIT;
	}
	if (sc_in >= 0 && sc_out >= 0)
		mate(p, sc_in, NULL, "id", sc_out, "id", true, false);
	if (func >= 0)
		p->evs[func].data = field(&p->fmts[p->evs[func].fi], "ip");
	const struct td_blob *cl = pk__td_tracedat_blob(td, PK_TD_CMDLINES);
	if (cl && cl->len)
		return pk__tf_comms_parse(&p->env, cl->p, cl->len);
	return 0;
}

/* ---- output ---- */

static const char *func_name(struct prof *p, uint64_t addr)
{
	if (!p->syms) {
		const struct td_blob *k = pk__td_tracedat_blob(p->td,
							       PK_TD_KALLSYMS);
		p->syms = true;
		if (k && k->len && pk__tf_syms_parse(&p->env, k->p, k->len))
			return NULL;
	}
	const struct pk_ksym *s = pk__tf_sym_find(&p->env, addr);
	return s ? pk__tf_sym_cstr(&p->env, s) : NULL;
}

static const char *func_of(void *arg, uint64_t addr)
{
	return func_name(arg, addr);
}

static void ev_name(struct prof *p, const struct phash *h, FILE *out)
{
	static const char *const softirqs[] = {
		"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "BLOCK_IOPOLL",
		"TASKLET", "SCHED", "HRTIMER", "RCU",
	};
	static const char states[] = "RSDTtXZxKWP";
	const struct pev *e = &p->evs[h->ev];
	const char *fn;

	switch (e->print) {
	case PP_SWITCH: {
		int v = (int)h->val;
		fprintf(out, "%s:", e->name);
		if (!v)
			fputc('R', out);
		for (int i = 0; v && i < (int)sizeof(states) - 1; i++, v >>= 1)
			if ((v & 1) && states[i + 1])
				fputc(states[i + 1], out);
		return;
	}
	case PP_SOFTIRQ:
		if ((int)h->val >= 0 && (int)h->val < 10)
			fprintf(out, "%s:%s", e->name, softirqs[(int)h->val]);
		else
			fprintf(out, "%s:%d", e->name, (int)h->val);
		return;
	case PP_SYSCALL:
		fprintf(out, "%s:%d", e->name, (int)h->val);
		return;
	case PP_FUNC:
		if ((fn = func_name(p, h->val)))
			fprintf(out, "func: %s()", fn);
		else
			fprintf(out, "func: 0x%llx", (unsigned long long)h->val);
		return;
	default:
		fprintf(out, "%s:0x%llx", e->name, (unsigned long long)h->val);
	}
}

/* trace-cmd's ts: seconds and microseconds, rounded (up to 1000000) */
static void put_ts(FILE *out, uint64_t ts)
{
	fprintf(out, "%llu.%06llu", (unsigned long long)(ts / 1000000000ull),
		(unsigned long long)((ts % 1000000000ull + 500) / 1000));
}

static const struct prof *sort_prof;

static int cmp_events(const void *a, const void *b)
{
	const struct phash *A = a, *B = b;
	const struct pev *ea = &sort_prof->evs[A->ev];
	const struct pev *eb = &sort_prof->evs[B->ev];

	if ((ea->type == PT_SWITCH) != (eb->type == PT_SWITCH))
		return ea->type == PT_SWITCH ? -1 : 1;
	if (ea->type == PT_SWITCH && A->val != B->val)
		return A->val > B->val ? 1 : -1;
	if (ea->type != PT_SWITCH) {
		if ((ea->type == PT_WAKEUP) != (eb->type == PT_WAKEUP))
			return ea->type == PT_WAKEUP ? -1 : 1;
		if (ea->type != PT_WAKEUP) {
			if (ea->id != eb->id)
				return ea->id > eb->id ? 1 : -1;
			if (A->total != B->total)
				return A->total > B->total ? -1 : 1;
		}
	}
	return A->order > B->order ? 1 : A->order < B->order ? -1 : 0;
}

static void out_task(struct prof *p, struct ptask *t, const char *name,
		     FILE *out)
{
	size_t len;

	if (name)
		fprintf(out, "%s\n", name);
	else
		fprintf(out, "\ntask: %s-%d\n", t->comm ? t->comm :
			pk__tf_comm(&p->env, t->pid, &len), t->pid);
	sort_prof = p;
	if (t->nev)
		qsort(t->ev, t->nev, sizeof(*t->ev), cmp_events);
	for (size_t i = 0; i < t->nev; i++) {
		const struct phash *h = &t->ev[i];
		fputs("  Event: ", out);
		ev_name(p, h, out);
		fprintf(out, " (%llu)", (unsigned long long)h->count);
		if (h->total) {
			fprintf(out, " Total: %llu Avg: %llu Max: %llu(ts:",
				(unsigned long long)h->total,
				(unsigned long long)(h->total / h->count),
				(unsigned long long)h->tmax);
			put_ts(out, h->tsmax);
			fprintf(out, ") Min:%llu(ts:", (unsigned long long)h->tmin);
			put_ts(out, h->tsmin);
			fputc(')', out);
		}
		fputc('\n', out);
		pk__prof_stacks_print(&t->ev[i].stacks, p->td->long_size,
				      func_of, p, out);
	}
}

static int cmp_tasks(const void *a, const void *b)
{
	const struct ptask *A = a, *B = b;

	return A->pid > B->pid ? 1 : A->pid < B->pid ? -1 : 0;
}

static void output(struct prof *p, FILE *out)
{
	char name[64];

	if (p->global.nev)
		out_task(p, &p->global, "Global Events", out);
	for (int c = 0; c < p->cpus; c++)
		if (p->percpu[c].nev) {
			snprintf(name, sizeof(name), "Global CPU[%d] Events", c);
			out_task(p, &p->percpu[c], name, out);
		}
	if (p->ntasks)
		qsort(p->tasks, p->ntasks, sizeof(*p->tasks), cmp_tasks);
	for (size_t i = 0; i < p->ntasks; i++)
		out_task(p, &p->tasks[i], NULL, out);
}

long pk_tracedat_report_profile(struct pk_tracedat *td, FILE *out,
				const int *cpus, int nr_cpus, unsigned flags)
{
	struct prof p = { .td = td, .global_irqs = flags & PK_PROFILE_GLOBAL };
	struct pk_tracedat_event ev;
	long n = 0;
	int r;

	if ((r = setup(&p)) == 0 &&
	    (r = pk_tracedat_rewind(td, cpus, nr_cpus)) == 0) {
		fprintf(out, "cpus=%d\n", p.cpus);
		while ((r = pk_tracedat_next(td, &ev)) > 0) {
			if (ev.buffer || pk_report_irq_skip(flags, ev.data,
							     ev.size))
				continue;
			if ((r = on_record(&p, &ev)) < 0)
				break;
			n++;
		}
		if (r >= 0)
			output(&p, out);
	}
	for (size_t i = 0; i < p.ntasks; i++)
		task_fini(&p.tasks[i]);
	task_fini(&p.global);
	for (int c = 0; p.percpu && c < p.cpus; c++)
		task_fini(&p.percpu[c]);
	for (int i = 0; p.fmts && i < td->nr_fmts; i++)
		pk__tf_event_fini(&p.fmts[i]);
	pk__free(p.fmts);
	pk__free(p.evs);
	pk__free(p.byid);
	pk__free(p.tasks);
	pk__free(p.percpu);
	pk__hash_fini(&p.byPid);
	pk__tf_env_fini(&p.env);
	if (r < 0)
		return r;
	return ferror(out) ? -EIO : n;
}
