// SPDX-License-Identifier: MIT
/*
 * perfkit ftrace report --format=perfetto: a trace.dat file as Chrome's
 * trace-event JSON (Perfetto and chrome://tracing read it). A track per
 * thread (named from sched_switch and the file's saved cmdlines): its
 * states from sched_switch / sched_wakeup (running on a CPU, runnable,
 * sleeping...) with a flow from each waker to the woken thread, and every
 * other event an instant with its text as `trace-cmd report` prints it.
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

enum { K_UNKNOWN, K_OTHER, K_SWITCH, K_WAKEUP, K_BAD };

struct fx {
	struct pk_tracedat *td;
	struct pk_tracefmt *tf;
	struct pk_schedtl *tl;
	FILE *out;
	bool first;
	uint8_t kind[65536];     /* by event ID */
	char *cat[65536], *name[65536];  /* system, event (JSON-quoted) */
};

/* The saved cmdlines ("PID COMM" lines) name the threads. */
static int cmdlines(struct fx *x)
{
	size_t len;
	const char *p = pk_tracedat_item(x->td, PK_TD_CMDLINES, &len);
	const char *end = p ? p + len : NULL;
	char comm[64];

	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		char line[128];
		int pid;

		snprintf(line, sizeof(line), "%.*s", (int)(n < 127 ? n : 127), p);
		if (sscanf(line, "%d %63[^\n]", &pid, comm) == 2 && pid > 0 &&
		    pk_schedtl_task(x->tl, pid, pid, comm))
			return -ENOMEM;
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static char *quoted(const char *s, size_t n)
{
	char *q = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&q, &len);

	if (!f)
		return NULL;
	if (pk_json_str(f, s, n) | fclose(f)) {
		free(q);
		return NULL;
	}
	return q;
}

/* What event ID is, its names kept the first time. */
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
	if (!(x->cat[id] = quoted(n, (size_t)(colon - n))) ||
	    !(x->name[id] = quoted(colon + 1, strlen(colon + 1))))
		return -ENOMEM;
	x->kind[id] = !strcmp(n, "sched:sched_switch") ? K_SWITCH :
		      !strcmp(n, "sched:sched_wakeup") ||
		      !strcmp(n, "sched:sched_wakeup_new") ? K_WAKEUP : K_OTHER;
	return x->kind[id];
}

static int64_t num(struct fx *x, uint64_t id, const struct pk_tracedat_event *ev,
		   const char *field)
{
	uint64_t v = 0;

	pk_tracefmt_field_num(x->tf, id, ev->data, ev->size, field, &v);
	return (int64_t)v;
}

static const char *str(struct fx *x, uint64_t id,
		       const struct pk_tracedat_event *ev, const char *field,
		       char *buf, size_t size)
{
	const char *p;
	size_t n;

	buf[0] = 0;
	if (!pk_tracefmt_field_str(x->tf, id, ev->data, ev->size, field, &p, &n))
		snprintf(buf, size, "%.*s", (int)n, p);
	return buf;
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
	char a[32], b[32];
	uint64_t id;
	int32_t pid;
	int k, e;

	if (pk_tracefmt_record_id(x->tf, ev->data, ev->size, &id) ||
	    (k = kind_of(x, id)) == K_BAD)
		return 0;
	if (k < 0)
		return k;
	pid = (int32_t)num(x, id, ev, "common_pid");
	if ((e = pk_schedtl_event(x->tl, ev->ts, ev->cpu, pid)))
		return e;
	if (k == K_SWITCH)
		return pk_schedtl_switch(x->tl, ev->ts, ev->cpu,
			(int32_t)num(x, id, ev, "prev_pid"),
			str(x, id, ev, "prev_comm", a, sizeof(a)),
			(uint64_t)num(x, id, ev, "prev_state"),
			(int32_t)num(x, id, ev, "next_pid"),
			str(x, id, ev, "next_comm", b, sizeof(b)));
	if (k == K_WAKEUP)
		return pk_schedtl_wakeup(x->tl, ev->ts, ev->cpu, pid,
			(int32_t)num(x, id, ev, "pid"),
			str(x, id, ev, "comm", a, sizeof(a)));
	instant(x, id, pid, ev);
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
	if ((err = cmdlines(x)) ||
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
