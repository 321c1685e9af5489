// SPDX-License-Identifier: MIT
/*
 * perfkit ftrace report --format=perfetto: a trace.dat file as Chrome's
 * trace-event JSON (Perfetto and chrome://tracing read it). A track per
 * thread (named from sched_switch and the file's saved cmdlines): its
 * states from sched_switch / sched_wakeup (running on a CPU, runnable,
 * sleeping...) with a flow from each waker to the woken thread, and every
 * other event an instant with its text as `trace-cmd report` prints it.
 *
 * --format=folded|flamegraph|pprof|speedscope: the kernel stack traces of the file
 * (record -T: a kernel_stack event after each event), each counted for
 * the thread of the event it follows on its CPU, as stackcollapse-perf.pl
 * counts perf's samples: the thread's command as the root, then the
 * frames from the outermost, only the stacks of the first event type
 * that has them (the others counted and said).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/export.h>
#include <perfkit/tracedat.h>
#include <perfkit/tracefmt.h>
#include "cli.h"
#include "ftrace_export.h"

enum { K_UNKNOWN, K_OTHER, K_BAD };

struct fx {
	struct pk_tracedat *td;
	struct pk_tracefmt *tf;
	struct pk_schedtl *tl;
	FILE *out;
	bool first;
	uint8_t kind[65536];     /* by event ID */
	char *cat[65536], *name[65536];  /* system, event (JSON-quoted) */
};

/* FN for each "PID COMM" line of TD's saved cmdlines (trace-cmd's names
 * of the threads). 0, or FN's non-zero return. */
static int for_each_cmdline(struct pk_tracedat *td,
			    int (*fn)(void *ctx, int pid, const char *comm),
			    void *ctx)
{
	size_t len;
	const char *p = pk_tracedat_item(td, PK_TD_CMDLINES, &len);
	const char *end = p ? p + len : NULL;
	char comm[64];
	int e;

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		char line[128];
		int pid;

		snprintf(line, sizeof(line), "%.*s", (int)(n < 127 ? n : 127), p);
		if (sscanf(line, "%d %63[^\n]", &pid, comm) == 2 && pid > 0 &&
		    (e = fn(ctx, pid, comm)))
			return e;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static int name_task(void *ctx, int pid, const char *comm)
{
	return pk_schedtl_task(ctx, pid, pid, comm);
}

/* Event ID's names, kept the first time; K_BAD for an unknown one. */
static int kind_of(struct fx *x, uint64_t id)
{
	const char *n, *colon;

	if (id > 65535)
		return K_BAD;
	if (x->kind[id] != K_UNKNOWN)
		return x->kind[id];
	x->kind[id] = K_BAD;
	if (!(n = pk_tracefmt_name(x->tf, id)) || !(colon = strchr(n, ':')))
		return K_BAD;
	if (!(x->cat[id] = cli_json_quoted(n, (size_t)(colon - n))) ||
	    !(x->name[id] = cli_json_quoted(colon + 1, strlen(colon + 1))))
		return -ENOMEM;
	return x->kind[id] = K_OTHER;
}

/* An instant on the event's thread: its name, CPU and text. */
static void instant(struct fx *x, uint64_t id, int32_t pid,
		    const struct pk_tracedat_event *ev)
{
	size_t len = 0;
	const char *text = pk_tracefmt_print(x->tf, id, ev->cpu, ev->data,
					     ev->size, &len);

	fprintf(x->out, "%s\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":%s,\"name\":%s,"
		"\"pid\":%d,\"tid\":%d,\"ts\":%" PRIu64 ".%03u,\"args\":"
		"{\"cpu\":%d,\"info\":", x->first ? "" : ",", x->cat[id],
		x->name[id], (int)pid, (int)pid, ev->ts / 1000,
		(unsigned)(ev->ts % 1000), ev->cpu);
	x->first = false;
	pk_json_str(x->out, text ? text : "", text ? len : 0);
	fputs("}}", x->out);
}

static int event(struct fx *x, const struct pk_tracedat_event *ev)
{
	uint64_t id, pid = 0;
	int k, e;

	if (pk_tracefmt_record_id(x->tf, ev->data, ev->size, &id) ||
	    (k = kind_of(x, id)) == K_BAD)
		return 0;
	if (k < 0)
		return k;
	pk_tracefmt_field_num(x->tf, id, ev->data, ev->size, "common_pid",
			      &pid);
	if ((e = pk_schedtl_event(x->tl, ev->ts, ev->cpu, (int32_t)pid)) ||
	    (e = pk_schedtl_tracepoint(x->tl, x->tf, ev->data, ev->size,
				       ev->ts, ev->cpu, (int32_t)pid)))
		return e < 0 ? e : 0;	/* (a scheduler event: no instant) */
	instant(x, id, (int32_t)pid, ev);
	return 0;
}

int ftrace_export(struct pk_tracedat *td, const char *in, FILE *out,
		  const int *cpus, int nr_cpus)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct pk_tracedat_event ev;
	int err = 0, r;

	if (!x || !(x->tf = pk_tracefmt_new_tracedat(td)) ||
	    !(x->tl = pk_schedtl_new())) {
		err = -ENOMEM;
		goto out;
	}
	x->td = td;
	x->out = out;
	x->first = true;
	if ((err = for_each_cmdline(td, name_task, x->tl)) ||
	    (nr_cpus && (err = pk_tracedat_rewind(td, cpus, nr_cpus))))
		goto out;
	fputs("{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"exporter\":"
	      "\"perfkit ftrace report --format=perfetto\",\"input\":", out);
	pk_json_str(out, in, strlen(in));
	fputs("},\n\"traceEvents\":[", out);
	while ((r = pk_tracedat_next(td, &ev)) > 0)
		if ((err = event(x, &ev)))
			goto out;
	/* (a damaged page ends the walk: what came before is kept) */
	if ((err = pk_schedtl_end(x->tl, 0)) ||
	    (err = pk_schedtl_write_json(x->tl, out, &x->first)))
		goto out;
	fputs("\n]}\n", out);
	err = r < 0 ? r : 0;
out:
	if (x) {
		pk_schedtl_free(x->tl);
		pk_tracefmt_free(x->tf);
		for (size_t i = 0; i < 65536; i++) {
			free(x->cat[i]);
			free(x->name[i]);
		}
	}
	free(x);
	return err;
}

/* ---- stacks ---- */

struct fstk {
	struct pk_tracedat *td;
	struct pk_tracefmt *tf;
	uint64_t kstack;         /* kernel_stack's ID, ~0: none */
	uint64_t chosen;         /* the event type counted, ~0: not yet */
	uint64_t skipped;
	struct { int32_t pid; uint64_t id; bool set; } *last;  /* per CPU */
	int ncpu;
	struct pk_folded *f;     /* folded, flamegraph */
	bool kinds;
	struct pk_pprof *pp;     /* pprof */
	struct pk_speedscope *ss;  /* speedscope */
	uint64_t kmap;
	struct { int32_t pid; char *comm; } *cl;  /* by pid */
	size_t ncl, capcl;
	char buf[1 << 16];
};

static int cl_cmp(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

static int cl_add(void *ctx, int pid, const char *comm)
{
	struct fstk *k = ctx;
	char *c;

	if (k->ncl == k->capcl) {
		size_t cap = k->capcl ? 2 * k->capcl : 256;
		void *v = realloc(k->cl, cap * sizeof(*k->cl));

		if (!v)
			return -ENOMEM;
		k->cl = v;
		k->capcl = cap;
	}
	if (!(c = strdup(comm)))
		return -ENOMEM;
	k->cl[k->ncl].pid = pid;
	k->cl[k->ncl++].comm = c;
	return 0;
}

/* The saved cmdlines as a table by pid (trace-cmd's names). */
static int stk_comms(struct fstk *k)
{
	int e = for_each_cmdline(k->td, cl_add, k);

	if (!e && k->ncl)
		qsort(k->cl, k->ncl, sizeof(*k->cl), cl_cmp);
	return e;
}

static const char *stk_comm(struct fstk *k, int32_t pid)
{
	size_t lo = 0, hi = k->ncl;

	if (pid == 0)
		return "<idle>";
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (k->cl[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->ncl && k->cl[lo].pid == pid ? k->cl[lo].comm : "<...>";
}

static uint64_t ulong_at(struct fstk *k, const uint8_t *p)
{
	int ls = pk_tracefmt_long_size(k->tf);
	bool big = pk_tracefmt_big_endian(k->tf);
	uint64_t v = 0;

	for (int i = 0; i < ls; i++)
		v |= (uint64_t)p[big ? ls - 1 - i : i] << (8 * i);
	return v;
}

/* pprof: the location of kernel address A. */
static uint64_t stk_location(struct fstk *k, uint64_t a, const char *sym)
{
	struct pk_pprof_line line = { 0, 0 };

	if (!k->kmap &&
	    !(k->kmap = pk_pprof_mapping(k->pp, 0, UINT64_MAX, 0,
					 "[kernel.kallsyms]", NULL)))
		return 0;
	if (sym && !(line.function = pk_pprof_function(k->pp, sym, NULL)))
		return 0;
	return pk_pprof_location(k->pp, k->kmap, a, sym ? &line : NULL,
				 sym ? 1 : 0);
}

/* A kernel_stack record EV after the event LAST of thread PID. */
static int stk_add(struct fstk *k, const struct pk_tracedat_event *ev,
		   uint64_t id, int32_t pid)
{
	const void *raw;
	const uint8_t *p;
	size_t len, n = 0, pos;
	int ls = pk_tracefmt_long_size(k->tf);
	uint64_t addr[128], locs[128];
	const char *comm = stk_comm(k, pid);

	if (pk_tracefmt_field_raw(k->tf, id, ev->data, ev->size, "caller",
				  &raw, &len) || (ls != 4 && ls != 8))
		return 0;
	p = raw;
	for (size_t i = 0; i + (size_t)ls <= len && n < 128; i += (size_t)ls) {
		uint64_t a = ulong_at(k, p + i);

		if (!a || a == (ls == 4 ? 0xffffffffull : ~0ull))
			break;
		addr[n++] = a;
	}
	if (!n)
		return 0;
	if (k->pp) {
		int64_t one = 1;
		struct pk_pprof_label lab[3] = {
			{ .key = "pid", .num = pid },
			{ .key = "comm", .str = comm },
			{ .key = "cpu", .num = ev->cpu },
		};

		for (size_t i = 0; i < n; i++) {
			uint64_t start;
			const char *sym = pk_tracefmt_ksym(k->tf, addr[i], &start);

			if (!(locs[i] = stk_location(k, addr[i], sym)))
				return -ENOMEM;
		}
		return pk_pprof_sample(k->pp, locs, (unsigned)n, &one, lab, 3);
	}
	if (k->ss) {
		uint32_t fr[128];
		char name[64];
		int64_t prof, x;

		snprintf(name, sizeof(name), "%s (%d)", comm, (int)pid);
		if ((prof = pk_speedscope_profile(k->ss, name)) < 0)
			return (int)prof;
		for (size_t i = 0; i < n; i++) {
			uint64_t start;
			const char *sym = pk_tracefmt_ksym(k->tf, addr[n - 1 - i],
							   &start);

			if ((x = pk_speedscope_frame(k->ss, sym ? sym :
						     "[unknown]")) < 0)
				return (int)x;
			fr[i] = (uint32_t)x;
		}
		return pk_speedscope_sample(k->ss, prof, fr, (unsigned)n, 1);
	}
	/* folded: the command, then the frames from the outermost */
	pos = (size_t)snprintf(k->buf, sizeof(k->buf), "%s", comm);
	for (size_t i = n; i-- > 0 && pos < sizeof(k->buf);) {
		uint64_t start;
		const char *sym = pk_tracefmt_ksym(k->tf, addr[i], &start);

		pos += (size_t)snprintf(k->buf + pos, sizeof(k->buf) - pos,
					";%s%s", sym ? sym : "[unknown]",
					k->kinds ? "_[k]" : "");
	}
	if (pos >= sizeof(k->buf))
		return 0;
	return pk_folded_add(k->f, k->buf, pos, 1);
}

static int stk_event(struct fstk *k, const struct pk_tracedat_event *ev)
{
	uint64_t id, pid = 0;
	const char *n;

	if (ev->cpu < 0 || ev->cpu >= k->ncpu ||
	    pk_tracefmt_record_id(k->tf, ev->data, ev->size, &id))
		return 0;
	if (k->kstack == ~0ull && (n = pk_tracefmt_name(k->tf, id)) &&
	    !strcmp(n, "ftrace:kernel_stack"))
		k->kstack = id;
	if (id != k->kstack) {
		pk_tracefmt_field_num(k->tf, id, ev->data, ev->size,
				      "common_pid", &pid);
		k->last[ev->cpu].pid = (int32_t)pid;
		k->last[ev->cpu].id = id;
		k->last[ev->cpu].set = true;
		return 0;
	}
	if (!k->last[ev->cpu].set)
		return 0;
	if (k->chosen == ~0ull)
		k->chosen = k->last[ev->cpu].id;
	if (k->last[ev->cpu].id != k->chosen) {
		k->skipped++;
		return 0;
	}
	return stk_add(k, ev, id, k->last[ev->cpu].pid);
}

int ftrace_export_stacks(struct pk_tracedat *td, const char *in, FILE *out,
			 const char *format, bool inverted, const int *cpus,
			 int nr_cpus)
{
	struct fstk *k = calloc(1, sizeof(*k));
	struct pk_tracedat_event ev;
	const char *name = NULL;
	char sub[600];
	int err = 0, r = 0;

	if (!k)
		return -ENOMEM;
	k->td = td;
	k->kstack = k->chosen = ~0ull;
	k->ncpu = pk_tracedat_cpus(td) > 0 ? pk_tracedat_cpus(td) : 1;
	k->kinds = !strcmp(format, "flamegraph");
	if (!(k->tf = pk_tracefmt_new_tracedat(td)) ||
	    !(k->last = calloc((size_t)k->ncpu, sizeof(*k->last))))
		err = -ENOMEM;
	if (!err && !strcmp(format, "pprof")) {
		static const char *const types[] = { "events" },
				  *const units[] = { "count" };
		PK_OPTS(pk_pprof_opts, o, .types = types, .units = units,
			.nr_types = 1,
			.comment = "perfkit ftrace report --format=pprof");

		if (!(k->pp = pk_pprof_new(&o)))
			err = -ENOMEM;
	} else if (!err && !strcmp(format, "speedscope")) {
		if (!(k->ss = pk_speedscope_new()))
			err = -ENOMEM;
	} else if (!err && !(k->f = pk_folded_new())) {
		err = -ENOMEM;
	}
	if (!err)
		err = stk_comms(k);
	if (!err && nr_cpus)
		err = pk_tracedat_rewind(td, cpus, nr_cpus);
	while (!err && (r = pk_tracedat_next(td, &ev)) > 0)
		err = stk_event(k, &ev);
	/* (a damaged page ends the walk: what came before is written) */
	if (!err && k->chosen != ~0ull)
		name = pk_tracefmt_name(k->tf, k->chosen);
	snprintf(sub, sizeof(sub), "%s%s%s", in, name ? ", stacks after " : "",
		 name ? name : "");
	if (!err && k->pp) {
		err = pk_pprof_write(k->pp, out, true);
	} else if (!err && k->ss) {
		err = pk_speedscope_write(k->ss, out, in, "none",
					  "perfkit ftrace report "
					  "--format=speedscope");
	} else if (!err && k->kinds) {
		PK_OPTS(pk_flame_opts, fo, .inverted = inverted,
			.count_name = name ? name : "events", .subtitle = sub);
		err = pk_flame_svg(k->f, out, &fo);
	} else if (!err) {
		err = pk_folded_write(k->f, out);
	}
	if (!err && k->kstack == ~0ull)
		fprintf(stderr, "perfkit ftrace report: %s: no kernel stack "
			"traces (record with -T)\n", in);
	else if (!err && k->skipped)
		fprintf(stderr, "perfkit ftrace report: %s: only the stacks "
			"after %s (%llu after other events left out)\n", in,
			name ? name : "?", (unsigned long long)k->skipped);
	if (!err && r < 0)
		err = r;
	pk_pprof_free(k->pp);
	pk_speedscope_free(k->ss);
	pk_folded_free(k->f);
	pk_tracefmt_free(k->tf);
	free(k->last);
	for (size_t i = 0; i < k->ncl; i++)
		free(k->cl[i].comm);
	free(k->cl);
	free(k);
	return err;
}
