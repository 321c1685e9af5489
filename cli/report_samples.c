// SPDX-License-Identifier: MIT
/*
 * perfkit report --format=pprof|speedscope|perfetto: the samples
 * (report's sample filters applied) with their stacks. pprof: a profile, each sample's stack as perf script walks
 * it (the callchain, then what DWARF unwinding adds), a location per
 * address of a mapping, its lines the functions inlined there then the
 * one holding it (names as report shows them, files and lines from the
 * debug info), mappings with their files' offsets and build ids (the
 * file's build-id table), values "samples/count" and one per event
 * ("cpu/nanoseconds" for a clock event), labels pid, tid, comm, cpu, time.
 * speedscope: its file format's sampled profiles, one per thread, each
 * sample's stack root first, weighed by its period. perfetto: Chrome's
 * trace-event JSON (Perfetto and chrome://tracing read it), a track per
 * thread named as the thread, each sample an instant with its stack.
 * Frames are named by the function as report names it ("[DSO]" or
 * "[unknown]" where none is known, as in the flame graph).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perfkit/export.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>
#include <perfkit/tracefmt.h>
#include <perfkit/unwind.h>
#include "cli.h"
#include "report_export.h"
#include "script.h"

#define MAX_STACK 127

/* A process's mappings, as of a generation of the session's maps. */
struct pmaps {
	uint32_t pid;
	uint64_t gen;
	struct pk_session_mapping *m;
	size_t n, cap;
};

/* The location of (pid, ip, cpumode, generation), cached. */
struct lent {
	uint64_t ip, gen, loc;
	uint32_t pid;
	uint16_t cpumode;
	bool used;
};

/* A sample kept for the JSON formats. */
struct ksample {
	uint64_t time, period;
	uint32_t thread;         /* index in threads */
	uint32_t off, n;         /* its stack in stk (leaf first) */
};

struct kthread {
	int32_t pid, tid;
	char comm[32];
};

struct pp {
	const struct export_opts *e;
	bool json;               /* speedscope, perfetto */
	bool perfetto;
	char **locname;          /* by location id - 1, JSON-quoted */
	size_t nlocname, caplocname;
	struct pk_speedscope *ss;  /* speedscope */
	uint32_t *locframe;      /* by location id - 1: its speedscope frame */
	struct ksample *ks;
	size_t nks, capks;
	uint32_t *stk;
	size_t nstk, capstk;
	struct kthread *th;
	size_t nth, capth;
	struct pk_perfdata *pd;
	struct pk_session *s;
	struct pk_pprof *p;
	struct pk_unwind *uw;
	struct script_filter filt;
	unsigned nev;            /* events: values 1 .. nev */
	uint64_t nsamples[7];    /* per event (pprof's values) */
	bool clock;              /* the first event is a clock's */
	struct pmaps *pm;        /* by pid, a few at a time */
	size_t npm, cappm;
	struct lent *lc;         /* cache of locations */
	size_t lcap;
	uint64_t kmap;           /* the kernel's mapping */
	uint64_t first, last;    /* sample times */
	/* perfetto: thread states from sched_switch / sched_wakeup */
	struct pk_tracefmt *tf;
	uint8_t *skind;          /* by attribute: enum skind */
	struct pk_schedtl *tl;   /* NULL: the file has no sched_switch */
	bool sched_tried;
	int err;
	struct pk_frame fr[MAX_STACK + 1];
	uint64_t uips[MAX_STACK + 1];
	uint64_t locs[2 * MAX_STACK + 2];
};

/* The build id of FILE from the perf.data's table, as hex; "" if none. */
static void build_id_of(struct pp *c, const char *file, char *hex, size_t n)
{
	struct pk_build_id b;

	hex[0] = '\0';
	for (unsigned i = 0; i < pk_perfdata_nr_build_ids(c->pd); i++) {
		if (pk_perfdata_build_id(c->pd, i, &b) || !b.filename ||
		    strcmp(b.filename, file))
			continue;
		for (unsigned k = 0; k < b.id_size && 2 * k + 2 < n; k++)
			snprintf(hex + 2 * k, 3, "%02x", b.id[k]);
		return;
	}
}

static int add_map(void *ctx, const struct pk_session_mapping *m)
{
	struct pmaps *pm = ctx;

	if (pm->n == pm->cap) {
		size_t cap = pm->cap ? pm->cap * 2 : 64;
		void *v = realloc(pm->m, cap * sizeof(*pm->m));

		if (!v)
			return -ENOMEM;
		pm->m = v;
		pm->cap = cap;
	}
	pm->m[pm->n++] = *m;
	return 0;
}

/* PID's mapping holding IP (its mappings read again after a change). */
static const struct pk_session_mapping *map_of(struct pp *c, uint32_t pid,
					       uint32_t tid, uint64_t ip)
{
	uint64_t gen = pk_session_generation(c->s, pid, PERF_RECORD_MISC_USER);
	struct pmaps *pm = NULL;

	for (size_t i = 0; i < c->npm; i++)
		if (c->pm[i].pid == pid)
			pm = &c->pm[i];
	if (!pm) {
		if (c->npm == c->cappm) {
			size_t cap = c->cappm ? c->cappm * 2 : 16;
			void *v = realloc(c->pm, cap * sizeof(*c->pm));

			if (!v)
				return NULL;
			c->pm = v;
			c->cappm = cap;
		}
		pm = &c->pm[c->npm++];
		memset(pm, 0, sizeof(*pm));
		pm->pid = pid;
		pm->gen = gen + 1;
	}
	if (pm->gen != gen) {
		pm->n = 0;
		pm->gen = gen;
		if (pk_session_for_each_mapping(c->s, (int32_t)tid, add_map, pm))
			return NULL;
	}
	for (size_t i = 0; i < pm->n; i++)
		if (ip >= pm->m[i].start && ip < pm->m[i].end)
			return &pm->m[i];
	return NULL;
}

/* "file:LINE" into FILE (cut at the colon) and the line; false if none. */
static bool split_srcline(char *buf, int64_t *line)
{
	char *colon = strrchr(buf, ':');

	if (!colon || colon == buf || colon[1] < '1' || colon[1] > '9')
		return false;
	*line = strtoll(colon + 1, NULL, 10);
	*colon = '\0';
	return true;
}

/* A new location for IP of PID/TID in CPUMODE: its mapping and lines. */
static uint64_t make_location(struct pp *c, uint32_t pid, uint32_t tid,
			     uint64_t ip, uint16_t cpumode)
{
	struct pk_location l;
	struct pk_pprof_line lines[32];
	struct pk_inline_frame in[32];
	unsigned nl = 0;
	uint64_t map = 0;
	char src[512], hex[64];
	int ni = 0;

	pk_session_resolve(c->s, pid, ip, cpumode, &l);
	if (l.kernel) {
		if (!c->kmap) {
			build_id_of(c, "[kernel.kallsyms]", hex, sizeof(hex));
			c->kmap = pk_pprof_mapping(c->p, 0xffff800000000000ull,
						   UINT64_MAX, 0,
						   "[kernel.kallsyms]", hex);
		}
		map = c->kmap;
	} else {
		const struct pk_session_mapping *m = map_of(c, pid, tid, ip);

		if (m) {
			build_id_of(c, m->name, hex, sizeof(hex));
			map = pk_pprof_mapping(c->p, m->start, m->end, m->pgoff,
					       m->name, hex);
		}
	}
	if (!l.sym)
		return pk_pprof_location(c->p, map, ip, NULL, 0);
	if (!l.kernel)
		ni = pk_session_inlines(c->s, pid, ip, in, 32);
	/* the functions inlined at IP by their DWARF names, the one that
	 * holds them by its symbol's (as report names it) */
	for (int i = 0; i < ni && nl < 32; i++) {
		uint64_t f = pk_pprof_function(c->p, i + 1 < ni ? in[i].name :
					       l.sym, in[i].file);

		if (!f)
			return 0;
		lines[nl++] = (struct pk_pprof_line){ f, in[i].line };
	}
	if (!nl) {
		int64_t line = 0;
		bool have = !l.kernel &&
			    !pk_session_srcline(c->s, pid, ip, cpumode, src,
						sizeof(src)) &&
			    split_srcline(src, &line);
		uint64_t f = pk_pprof_function(c->p, l.sym, have ? src : NULL);

		if (!f)
			return 0;
		lines[nl++] = (struct pk_pprof_line){ f, line };
	}
	return pk_pprof_location(c->p, map, ip, lines, nl);
}

/* The JSON formats' name of location ID (IP's function), kept once. */
static int name_location(struct pp *c, uint64_t id, uint32_t pid,
			 uint64_t ip, uint16_t cpumode)
{
	struct pk_location l;
	char hex[80];

	if (id <= c->nlocname)
		return 0;
	if (c->nlocname == c->caplocname) {
		size_t cap = c->caplocname ? c->caplocname * 2 : 1024;
		char **v = realloc(c->locname, cap * sizeof(*v));
		uint32_t *fr;

		if (!v)
			return -ENOMEM;
		c->locname = v;
		if (!(fr = realloc(c->locframe, cap * sizeof(*fr))))
			return -ENOMEM;
		c->locframe = fr;
		c->caplocname = cap;
	}
	pk_session_resolve(c->s, pid, ip, cpumode, &l);
	/* unresolved: "[DSO]" (its base name) or "[unknown]", as the
	 * flame graph's stacks name them */
	if (!l.sym) {
		const char *b = l.dso ? strrchr(l.dso, '/') : NULL;

		snprintf(hex, sizeof(hex), "[%.*s]", (int)sizeof(hex) - 3,
			 !l.dso || !strcmp(l.dso, "[unknown]") ? "unknown" :
			 b ? b + 1 : l.dso);
	}
	if (!(c->locname[c->nlocname] = cli_json_quoted(l.sym ? l.sym : hex, strlen(l.sym ? l.sym : hex))))
		return -ENOMEM;
	if (c->ss) {
		int64_t fr = pk_speedscope_frame(c->ss, l.sym ? l.sym : hex);

		if (fr < 0) {
			free(c->locname[c->nlocname]);
			return (int)fr;
		}
		c->locframe[c->nlocname] = (uint32_t)fr;
	}
	c->nlocname++;
	return 0;
}

static uint64_t new_location(struct pp *c, uint32_t pid, uint32_t tid,
			     uint64_t ip, uint16_t cpumode)
{
	uint64_t id = make_location(c, pid, tid, ip, cpumode);

	if (id && c->json && name_location(c, id, pid, ip, cpumode))
		return 0;
	return id;
}

static uint64_t location(struct pp *c, uint32_t pid, uint32_t tid,
			 uint64_t ip, uint16_t cpumode)
{
	uint64_t gen = pk_session_generation(c->s, pid, cpumode);
	uint64_t h = (ip ^ ((uint64_t)pid << 40) ^ ((uint64_t)cpumode << 56) ^
		      gen) * 0x9e3779b97f4a7c15ull;
	struct lent *e;

	if (!c->lc) {
		c->lcap = 1 << 16;
		if (!(c->lc = calloc(c->lcap, sizeof(*c->lc))))
			return 0;
	}
	e = &c->lc[h >> 48 & (c->lcap - 1)];
	if (e->used && e->ip == ip && e->pid == pid &&
	    e->cpumode == cpumode && e->gen == gen)
		return e->loc;
	e->loc = new_location(c, pid, tid, ip, cpumode);
	e->ip = ip;
	e->pid = pid;
	e->cpumode = cpumode;
	e->gen = gen;
	e->used = e->loc != 0;
	return e->loc;
}

/* A clock event counts nanoseconds. */
static bool clock_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK ||
		a->config == PERF_COUNT_SW_TASK_CLOCK);
}

static int setup(struct pp *c)
{
	const char *types[8] = { "samples" }, *units[8] = { "count" };
	unsigned nclock = 0;
	PK_OPTS(pk_pprof_opts, o, .types = types, .units = units);

	c->nev = pk_perfdata_nr_attrs(c->pd);
	if (c->nev > 7)
		c->nev = 7;	/* (pprof's values: the first seven events) */
	for (unsigned i = 0; i < c->nev; i++)
		nclock += clock_event(pk_perfdata_attr(c->pd, i));
	for (unsigned i = 0; i < c->nev; i++) {
		const struct perf_event_attr *a = pk_perfdata_attr(c->pd, i);
		const char *name = pk_perfdata_attr_name(c->pd, i);

		types[1 + i] = clock_event(a) && nclock == 1 ? "cpu" :
			       name ? name : "event";
		units[1 + i] = clock_event(a) ? "nanoseconds" : "count";
	}
	o.nr_types = 1 + c->nev;
	c->clock = c->nev && clock_event(pk_perfdata_attr(c->pd, 0));
	if (c->nev) {
		o.period_type = types[1];
		o.period_unit = units[1];
		o.period = (int64_t)pk_perfdata_attr(c->pd, 0)->sample_period;
	}
	o.comment = "perfkit report --format=pprof";
	c->p = pk_pprof_new(&o);
	return c->p ? 0 : -ENOMEM;
}

static bool grow(void **v, size_t *cap, size_t n, size_t more, size_t size)
{
	size_t c = *cap ? *cap : 1024;
	void *nv;

	if (n + more <= *cap)
		return true;
	while (c < n + more)
		c *= 2;
	if (!(nv = realloc(*v, c * size)))
		return false;
	*v = nv;
	*cap = c;
	return true;
}

/* The JSON formats: the sample and its stack (the N locations) kept. */
static int keep(struct pp *c, const struct pk_sample *sm, const char *comm,
		unsigned n)
{
	struct ksample *k;
	uint32_t t = (uint32_t)c->nth;

	/* the thread: most samples are of the last one seen */
	for (size_t i = c->nth; i-- > 0;)
		if (c->th[i].tid == (int32_t)sm->tid &&
		    c->th[i].pid == (int32_t)sm->pid) {
			t = (uint32_t)i;
			break;
		}
	if (t == c->nth) {
		if (!grow((void **)&c->th, &c->capth, c->nth, 1, sizeof(*c->th)))
			return c->err = -ENOMEM;
		c->th[t] = (struct kthread){ .pid = (int32_t)sm->pid,
					    .tid = (int32_t)sm->tid };
		c->nth++;
	}
	/* the thread's name: its last */
	snprintf(c->th[t].comm, sizeof(c->th[t].comm), "%s", comm);
	if (!grow((void **)&c->ks, &c->capks, c->nks, 1, sizeof(*c->ks)) ||
	    !grow((void **)&c->stk, &c->capstk, c->nstk, n, sizeof(*c->stk)))
		return c->err = -ENOMEM;
	k = &c->ks[c->nks++];
	*k = (struct ksample){ sm->time, sm->period, t, (uint32_t)c->nstk, n };
	for (unsigned i = 0; i < n; i++)
		c->stk[c->nstk++] = (uint32_t)c->locs[i];
	return 0;
}

/* S as a JSON string into F. */
static void json_str(FILE *f, const char *s)
{
	pk_json_str(f, s, strlen(s));
}

/* speedscope's file format: a sampled profile per thread (named by its
 * last command), stacks root first, weighed by the periods. */
static int write_speedscope(struct pp *c, FILE *f)
{
	uint32_t fr[2 * MAX_STACK + 2];
	int e = 0;

	for (size_t i = 0; i < c->nks && !e; i++) {
		const struct ksample *k = &c->ks[i];
		const struct kthread *th = &c->th[k->thread];
		char name[64];
		int64_t p;

		snprintf(name, sizeof(name), "%s (%d)", th->comm, (int)th->tid);
		if ((p = pk_speedscope_profile(c->ss, name)) < 0)
			return (int)p;
		for (uint32_t j = 0; j < k->n; j++)
			fr[j] = c->locframe[c->stk[k->off + k->n - 1 - j] - 1];
		e = pk_speedscope_sample(c->ss, p, fr, k->n, k->period);
	}
	return e ? e : pk_speedscope_write(c->ss, f, c->e->input,
					   c->clock ? "nanoseconds" : "none",
					   "perfkit report --format=speedscope");
}

static bool has_id(const int *v, int n, int32_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

/* report's --pid/--tid/--comm (as they pass samples): the threads whose
 * states are written */
static bool keep_thread(void *ctx, int32_t pid, int32_t tid,
			const char *comm)
{
	const struct script_filter *f = ctx;
	bool named = !f->nr_comms;

	for (int i = 0; i < f->nr_comms && !named; i++)
		named = !strcmp(f->comms[i], comm);
	return named && (!f->nr_pids || has_id(f->pids, f->nr_pids, pid)) &&
	       (!f->nr_tids || has_id(f->tids, f->nr_tids, tid));
}

/* The session's processes for the timeline's threads. */
static int task_pid(void *ctx, const struct pk_session_task *t)
{
	return pk_schedtl_task(ctx, t->pid, t->tid, NULL);
}

/* Chrome's trace-event JSON: thread and process names, an instant per
 * sample on its thread's track (microseconds), then the thread states
 * and wake-ups when the file records sched_switch. */
static int write_perfetto(struct pp *c, FILE *f)
{
	bool first = true;
	int e = 0;

	fputs("{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"exporter\":"
	      "\"perfkit report --format=perfetto\",\"input\":", f);
	json_str(f, c->e->input);
	fputs("},\n\"traceEvents\":[", f);
	if (c->tl && (c->filt.nr_pids || c->filt.nr_tids || c->filt.nr_comms))
		pk_schedtl_set_filter(c->tl, keep_thread, &c->filt);
	if (c->tl && ((e = pk_session_for_each_task(c->s, task_pid, c->tl)) ||
		      (e = pk_schedtl_end(c->tl, 0)) ||
		      (e = pk_schedtl_write_json(c->tl, f, &first))))
		return e;
	for (size_t t = 0; t < c->nth; t++) {
		const struct kthread *th = &c->th[t];

		fprintf(f, "%s\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,"
			"\"tid\":%d,\"args\":{\"name\":", first ? "" : ",",
			th->pid, th->tid);
		first = false;
		json_str(f, th->comm);
		fputs("}}", f);
		if (th->pid == th->tid) {
			fprintf(f, ",\n{\"ph\":\"M\",\"name\":\"process_name\","
				"\"pid\":%d,\"args\":{\"name\":", th->pid);
			json_str(f, th->comm);
			fputs("}}", f);
		}
	}
	for (size_t i = 0; i < c->nks; i++) {
		const struct ksample *k = &c->ks[i];
		const struct kthread *th = &c->th[k->thread];

		fprintf(f, "%s\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"sample\","
			"\"pid\":%d,\"tid\":%d,\"ts\":%" PRIu64 ".%03u,\"name\":",
			first ? "" : ",", th->pid, th->tid, k->time / 1000,
			(unsigned)(k->time % 1000));
		first = false;
		fputs(k->n ? c->locname[c->stk[k->off] - 1] : "\"[no stack]\"", f);
		fprintf(f, ",\"args\":{\"period\":%" PRIu64 ",\"stack\":[",
			k->period);
		for (uint32_t j = 0; j < k->n; j++) {
			if (j)
				fputc(',', f);
			fputs(c->locname[c->stk[k->off + j] - 1], f);
		}
		fputs("]}}", f);
	}
	fputs("\n]}\n", f);
	return 0;
}

enum skind { SK_NONE, SK_SWITCH, SK_WAKEUP };

/* Perfetto: whether the file records sched:sched_switch (then a
 * timeline of thread states is built, and each attribute's kind known),
 * once its tracing data is read. 0 or -ENOMEM. */
static int sched_setup(struct pp *c)
{
	const void *td;
	size_t size;
	int n = pk_perfdata_nr_attrs(c->pd);
	bool has_switch = false;

	if (c->sched_tried || pk_session_tracing_data(c->s, &td, &size))
		return 0;
	c->sched_tried = true;
	if (!(c->tf = pk_tracefmt_new(td, size)))
		return errno == ENOMEM ? -ENOMEM : 0;
	if (!(c->skind = calloc((size_t)n + 1, 1)))
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const struct perf_event_attr *a = pk_perfdata_attr(c->pd, i);
		const char *name = a->type == PERF_TYPE_TRACEPOINT ?
				   pk_tracefmt_name(c->tf, a->config) : NULL;

		if (!name)
			continue;
		if (!strcmp(name, "sched:sched_switch"))
			c->skind[i] = SK_SWITCH;
		else if (!strcmp(name, "sched:sched_wakeup") ||
			 !strcmp(name, "sched:sched_wakeup_new"))
			c->skind[i] = SK_WAKEUP;
		has_switch |= c->skind[i] == SK_SWITCH;
	}
	if (has_switch && !(c->tl = pk_schedtl_new()))
		return -ENOMEM;
	return 0;
}

/* Every sample tells which thread runs on its CPU; sched_switch and
 * sched_wakeup move thread states (the time filter applies, not the
 * thread and CPU ones: a state needs every switch). 1 when SM was a
 * scheduler event (no instant of its own), 0, or -ENOMEM. */
static int sched_sample(struct pp *c, const struct pk_session_sample *ss,
			const char *comm)
{
	const struct pk_sample *sm = ss->sample;
	const struct script_filter *f = &c->filt;
	int kind = ss->attr >= 0 && (unsigned)ss->attr < pk_perfdata_nr_attrs(c->pd) ?
		   c->skind[ss->attr] : SK_NONE;
	int cpu = sm->sample_type & PERF_SAMPLE_CPU ? (int)sm->cpu : 0;
	int e;

	if ((f->tstart && sm->time < f->tstart) ||
	    (f->tend && sm->time > f->tend))
		return kind != SK_NONE;
	if ((e = pk_schedtl_task(c->tl, (int32_t)sm->pid, (int32_t)sm->tid,
				 comm[0] == ':' ? NULL : comm)) ||
	    (e = pk_schedtl_event(c->tl, sm->time, cpu, (int32_t)sm->tid)))
		return e;
	if (kind == SK_NONE)
		return 0;
	e = pk_schedtl_tracepoint(c->tl, c->tf, sm->raw.data, sm->raw.size,
				  sm->time, cpu, (int32_t)sm->tid);
	return e < 0 ? e : 1;
}

static int sample(void *ctx, struct pk_session *s,
		  const struct pk_session_sample *ss)
{
	struct pp *c = ctx;
	const struct pk_sample *sm = ss->sample;
	char commbuf[16];
	const char *comm = ss->comm;
	int64_t v[8] = { 0 };
	unsigned n = 0;
	int nf, nu = 0;

	(void)s;
	/* (a pipe's events are known once its first records are read) */
	if (!c->p && (c->err = setup(c)))
		return c->err;
	/* (pprof's values: the first seven events; JSON: every event) */
	if (ss->attr < 0 || (!c->json && (unsigned)ss->attr >= c->nev))
		return 0;
	if (!comm) {
		snprintf(commbuf, sizeof(commbuf), ":%d", (int)sm->tid);
		comm = commbuf;
	}
	if (c->perfetto && (c->err = sched_setup(c)))
		return c->err;
	if (c->tl) {
		int r = sched_sample(c, ss, comm);

		if (r)
			return r < 0 ? (c->err = r) : 0;
	}
	if (!script_filter_pass(&c->filt, sm, comm))
		return 0;
	if (sm->sample_type & PERF_SAMPLE_CALLCHAIN) {
		unsigned max = c->e->max_stack >= 0 &&
			       c->e->max_stack < MAX_STACK ?
			       (unsigned)c->e->max_stack : MAX_STACK;

		nf = pk_session_callchain_in(sm, ss->rec->misc, max, c->fr);
		if (nf < 0)
			nf = 0;
	} else {
		c->fr[0].ip = sm->ip;
		c->fr[0].cpumode = ss->rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		nf = 1;
	}
	if ((sm->sample_type & PERF_SAMPLE_REGS_USER) &&
	    (sm->sample_type & PERF_SAMPLE_STACK_USER) &&
	    (c->uw || (c->uw = pk_unwind_new(c->s))))
		nu = pk_unwind_sample(c->uw, sm->pid, sm, c->uips, MAX_STACK);
	/* a callchain with nothing (or a context perf does not know, which
	 * makes perf drop the chain): the sample's own address, where
	 * report puts it */
	if (nf <= 0 && nu <= 0) {
		c->fr[0].ip = sm->ip;
		c->fr[0].cpumode = ss->rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		nf = 1;
	}
	for (int i = 0; i < nf; i++) {
		uint64_t l = location(c, sm->pid, sm->tid, c->fr[i].ip,
				      c->fr[i].cpumode);

		if (!l)
			return c->err = -ENOMEM;
		c->locs[n++] = l;
	}
	for (int i = 0; i < nu; i++) {
		uint64_t l;

		if (!c->uips[i])
			continue;
		if (!(l = location(c, sm->pid, sm->tid, c->uips[i],
				   PERF_RECORD_MISC_USER)))
			return c->err = -ENOMEM;
		c->locs[n++] = l;
	}
	if (ss->attr < 7)
		c->nsamples[ss->attr]++;
	if (c->json)
		return keep(c, sm, comm, n);
	v[0] = 1;
	v[1 + ss->attr] = (int64_t)sm->period;
	{
		struct pk_pprof_label lab[5] = {
			{ .key = "pid", .num = (int32_t)sm->pid },
			{ .key = "tid", .num = (int32_t)sm->tid },
			{ .key = "comm", .str = comm },
			{ .key = "cpu", .num = (int64_t)sm->cpu },
			{ .key = "time", .num = (int64_t)sm->time,
			  .unit = "nanoseconds" },
		};
		unsigned nl = 3;

		if (sm->sample_type & PERF_SAMPLE_CPU)
			lab[nl++] = lab[3];
		if (sm->sample_type & PERF_SAMPLE_TIME)
			lab[nl++] = lab[4];
		if ((c->err = pk_pprof_sample(c->p, c->locs, n, v, lab, nl)))
			return c->err;
	}
	if (sm->sample_type & PERF_SAMPLE_TIME) {
		if (!c->first || sm->time < c->first)
			c->first = sm->time;
		if (sm->time > c->last)
			c->last = sm->time;
	}
	return 0;
}

int report_samples(const struct export_opts *e, FILE *out)
{
	struct pp c = { .e = e, .json = strcmp(e->format, "pprof") != 0,
			.perfetto = !strcmp(e->format, "perfetto") };
	PK_OPTS(pk_tool, tool, .sample = sample);
	int err = 0;

	if (e->comms)
		err = script_filter_strs(&c.filt.comms, &c.filt.nr_comms,
					 e->comms);
	if (!err && e->pids)
		err = script_filter_ints(&c.filt.pids, &c.filt.nr_pids, e->pids);
	if (!err && e->tids)
		err = script_filter_ints(&c.filt.tids, &c.filt.nr_tids, e->tids);
	if (!err && e->cpus)
		err = script_filter_cpu(&c.filt, e->cpus);
	if (!err && e->time)
		err = script_filter_time(&c.filt, e->time);
	if (!err && !strcmp(e->format, "speedscope") &&
	    !(c.ss = pk_speedscope_new()))
		err = -ENOMEM;
	if (err || cli_perfdata_check(e->input, e->force)) {
		script_filter_fini(&c.filt);
		return -EINVAL;
	}
	if (!(c.pd = pk_perfdata_open(e->input, NULL))) {
		cli_error("report", "%s: %s", e->input, errno == EPROTO ?
			  pk_perfdata_open_error() : strerror(errno));
		script_filter_fini(&c.filt);
		return -EINVAL;
	}
	{
		PK_OPTS(pk_session_opts, so,
			.guest_kallsyms = e->guest_kallsyms,
			.guest_code = e->guest_code);

		c.s = pk_session_new(&so);
	}
	err = c.s ? pk_session_run(c.s, c.pd, &tool, &c) : -ENOMEM;
	if (!err && !c.p)	/* no samples */
		err = setup(&c);
	if (!err && c.err)
		err = c.err;
	if (err && err != -ENOMEM) {
		cli_error("report", "%s (%s)", pk_perfdata_errmsg(c.pd),
			  pk_strerror(err));
		err = -EINVAL;
	}
	if (!err) {
		unsigned most = 0;

		/* shown by default: the event with the most samples */
		for (unsigned i = 1; i < c.nev; i++)
			if (c.nsamples[i] > c.nsamples[most])
				most = i;
		if (c.nev)
			pk_pprof_set_default_type(c.p, 1 + most);
		pk_pprof_set_time(c.p, 0, (int64_t)(c.last - c.first));
		if (c.ss)
			err = write_speedscope(&c, out);
		else if (c.json)
			err = write_perfetto(&c, out);
		else
			err = pk_pprof_write(c.p, out, true);
	}
	pk_schedtl_free(c.tl);
	pk_speedscope_free(c.ss);
	free(c.locframe);
	pk_tracefmt_free(c.tf);
	free(c.skind);
	pk_pprof_free(c.p);
	pk_unwind_free(c.uw);
	pk_session_free(c.s);
	pk_perfdata_free(c.pd);
	for (size_t i = 0; i < c.npm; i++)
		free(c.pm[i].m);
	free(c.pm);
	free(c.lc);
	for (size_t i = 0; i < c.nlocname; i++)
		free(c.locname[i]);
	free(c.locname);
	free(c.ks);
	free(c.stk);
	free(c.th);
	script_filter_fini(&c.filt);
	return err;
}
