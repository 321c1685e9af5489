/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace stop / restart / reset: trace-cmd 3.1's state commands
 * (start is record's set-up, cmd_ftrace_record.c). -B NAME, -a and -t
 * pick the buffers as trace-cmd does: the named ones (the newest first),
 * every instance for -a (the top level too while no -B came before it),
 * the top level with -t or without -B.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/tracefs.h>
#include "cli.h"

/* The buffers picked, in the order the options named them. */
struct pick {
	char **name;
	unsigned long *kb;
	bool *keep;
	int n;
	int cur;                /* the buffer -b/-d apply to (-1: top) */
	bool topt, last_all;
	unsigned long top_kb;
	/* the list handed to the library */
	const char **bufs;
	unsigned long *bkb;
	bool *rm;
	int nb;
};

static void pick_fini(struct pick *p)
{
	for (int i = 0; i < p->n; i++)
		free(p->name[i]);
	free(p->name);
	free(p->kb);
	free(p->keep);
	free(p->bufs);
	free(p->bkb);
	free(p->rm);
}

/* NAME picked (kept unless -d). 0 or -ENOMEM. */
static int pick_add(struct pick *p, const char *name)
{
	char **nv = realloc(p->name, (size_t)(p->n + 1) * sizeof(*nv));
	unsigned long *kb;
	bool *keep;

	if (nv)
		p->name = nv;
	kb = nv ? realloc(p->kb, (size_t)(p->n + 1) * sizeof(*kb)) : NULL;
	if (kb)
		p->kb = kb;
	keep = kb ? realloc(p->keep, (size_t)(p->n + 1) * sizeof(*keep)) : NULL;
	if (keep)
		p->keep = keep;
	if (!keep || !(p->name[p->n] = strdup(name)))
		return -ENOMEM;
	p->kb[p->n] = 0;
	p->keep[p->n++] = true;
	return 0;
}

/* -a: every instance there is now. 0 or -errno. */
static int pick_all(struct pick *p, struct pk_tracefs *t)
{
	char **v;
	int n = pk_tracefs_instances(t, &v), e = 0;

	for (int i = 0; i < n; i++) {
		if (!e)
			e = pick_add(p, v[i]);
		free(v[i]);
	}
	if (n >= 0)
		free(v);
	return n < 0 ? n : e;
}

/* The library's list: the top level first when it is in, then the
 * picked buffers, the newest first. 0 or -ENOMEM. */
static int pick_list(struct pick *p)
{
	bool top = p->topt || p->cur < 0;
	int n = p->n + top;

	p->bufs = calloc((size_t)n + 1, sizeof(*p->bufs));
	p->bkb = calloc((size_t)n + 1, sizeof(*p->bkb));
	p->rm = calloc((size_t)n + 1, sizeof(*p->rm));
	if (!p->bufs || !p->bkb || !p->rm)
		return -ENOMEM;
	if (top)
		p->bkb[p->nb++] = p->top_kb;
	for (int i = p->n - 1; i >= 0; i--) {
		p->bufs[p->nb] = p->name[i];
		p->bkb[p->nb] = p->kb[i];
		p->rm[p->nb++] = !p->keep[i];
	}
	return 0;
}

/* -b SIZE: trace-cmd's minimum is 1. 0 or -1 after the error line. */
static int pick_kb(struct pick *p, const char *C, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (end == arg || *end || v > (long)(~0u >> 1)) {
		cli_error(C, "-b '%s': not a buffer size in KB", arg);
		return -1;
	}
	if (v < 1)
		v = 1;
	if (p->last_all)
		for (int i = 0; i < p->n; i++)
			p->kb[i] = (unsigned long)v;
	else if (p->cur < 0)
		p->top_kb = (unsigned long)v;
	else
		p->kb[p->cur] = (unsigned long)v;
	return 0;
}

/* -d: the buffers -b would size are removed at the end. */
static int pick_delete(struct pick *p, const char *C)
{
	if (p->last_all) {
		for (int i = 0; i < p->n; i++)
			p->keep[i] = false;
	} else if (p->cur < 0) {
		cli_error(C, "-d: cannot delete the top-level buffer (give -B "
			  "NAME or -a before it)");
		return -1;
	} else {
		p->keep[p->cur] = false;
	}
	return 0;
}

/* One option C (ARG) of a state command into *P. 0, or -1 after the
 * error line. */
static int pick_opt(struct pick *p, struct pk_tracefs *t, const char *C,
		    int c, const char *arg)
{
	int e = 0;

	switch (c) {
	case 'B':
		p->last_all = false;
		if (!*arg || strchr(arg, '/')) {
			cli_error(C, "-B '%s': not an instance name", arg);
			return -1;
		}
		e = pick_add(p, arg);
		p->cur = p->n - 1;
		break;
	case 'a':
		p->last_all = true;
		e = pick_all(p, t);
		break;
	case 't':
		p->last_all = false;
		p->topt = true;
		p->cur = -1;
		break;
	case 'b': return pick_kb(p, C, arg);
	case 'd': return pick_delete(p, C);
	}
	if (e)
		cli_error(C, "%s: %s", c == 'a' ? "-a" : arg, pk_strerror(e));
	return e ? -1 : 0;
}

/* Whether every -B names an instance there is. */
static bool picked_exist(const struct pick *p, struct pk_tracefs *t,
			 const char *C)
{
	for (int i = 0; i < p->n; i++) {
		if (pk_tracefs_has(t, p->name[i], "tracing_on"))
			continue;
		cli_error(C, "-B %s: no such instance", p->name[i]);
		return false;
	}
	return true;
}

static const char *const state_usage[] = {
	"usage: perfkit ftrace stop [-B NAME]... [-a] [-t]\n"
	"  tracing_on 0 (trace-cmd stop): the top level, or the -B "
	"instances, every\n  instance with -a; -t the top level too\n",
	"usage: perfkit ftrace restart [-B NAME]... [-a] [-t]\n"
	"  tracing_on 1 (trace-cmd restart), in the buffers stop would "
	"pick\n",
	"usage: perfkit ftrace reset [-b KB] [-B NAME [-b KB] [-d]]... "
	"[-a [-b KB] [-d]] [-t]\n"
	"       perfkit ftrace reset --stale\n"
	"  trace-cmd reset: first what killed perfkit runs left is put back "
	"(--stale:\n  only that), then in the picked buffers: tracing off, "
	"tracer nop, events off,\n  event filters and triggers cleared, "
	"dynamic events removed, error_log,\n  trace_clock local, pid lists, "
	"max latency, CPU mask, function lists, tracing\n  on again; -b the "
	"buffer size of the -B/-a/-t before it (-a: every instance),\n  -d "
	"removes the -B before it (after -a: every instance)\n",
};

enum state_cmd { ST_STOP, ST_RESTART, ST_RESET };

/* ftrace reset --stale: what killed perfkit runs left. */
static int reset_stale(struct pk_tracefs *t, const char *C)
{
	int e = pk_tracefs_reset_stale(t);

	if (e < 0) {
		cli_error(C, "%s", pk_strerror(e));
		return 1;
	}
	printf("removed %d leftover perfkit instance%s\n", e, e == 1 ? "" : "s");
	return 0;
}

/* ftrace reset, first: killed perfkit runs' instances and journals,
 * quietly. 0, or 1 after the error line. */
static int reset_stale_quiet(struct pk_tracefs *t, const char *C)
{
	int e = pk_tracefs_reset_stale(t);

	if (e < 0)
		cli_error(C, "putting back what killed perfkit runs left: %s",
			  pk_strerror(e));
	return e < 0;
}

/* The command CMD on the buffers of P. The exit status. */
static int state_apply(struct pk_tracefs *t, enum state_cmd cmd,
		       struct pick *p, const char *C)
{
	int e;

	if (pick_list(p)) {
		cli_error(C, "%s", pk_strerror(-ENOMEM));
		return 1;
	}
	if (cmd == ST_RESET) {
		PK_OPTS(pk_tracefs_reset_opts, o, .buffers = p->bufs,
			.nr_buffers = p->nb, .buffer_kb = p->bkb,
			.remove = p->rm);
		e = pk_tracefs_reset(t, &o);
	} else {
		e = pk_tracefs_tracing(t, p->bufs, p->nb, cmd == ST_RESTART);
	}
	if (e) {
		cli_error(C, "%s", pk_strerror(e));
		return 1;
	}
	return 0;
}

static int state_cmd(int argc, char **argv, enum state_cmd cmd)
{
	static const char *const names[] = { "ftrace stop", "ftrace restart",
					     "ftrace reset" };
	static const struct option lo[] = {
		{ "stale", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *C = names[cmd];
	struct pick p = { .cur = -1 };
	struct pk_tracefs *t = NULL;
	bool stale = false;
	int c, rc = 2;

	optind = 1;
	/* checked first: nothing changes after a bad option */
	while ((c = cli_getopt(argc, argv, cmd == ST_RESET ? "+hab:B:tdS" :
			       "+hatB:", lo, NULL)) != -1) {
		if (c == 'h' || c == '?') {
			fputs(state_usage[cmd], c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
		if (c == 'S' && cmd != ST_RESET)
			break;
		stale |= c == 'S';
	}
	if (c != -1 || optind < argc) {
		if (optind < argc)
			cli_error(C, "unexpected argument '%s'", argv[optind]);
		fputs(state_usage[cmd], stderr);
		return 2;
	}
	if (stale && argc > 2) {
		cli_error(C, "--stale takes no other option");
		return 2;
	}
	if (!(t = pk_tracefs_open())) {
		cli_error(C, "tracefs: %s", pk_strerror(-errno));
		return 1;
	}
	if (stale || (cmd == ST_RESET && reset_stale_quiet(t, C))) {
		rc = stale ? reset_stale(t, C) : 1;
		goto out;
	}
	optind = 1;
	while ((c = cli_getopt(argc, argv, cmd == ST_RESET ? "+hab:B:tdS" :
			       "+hatB:", lo, NULL)) != -1)
		if (pick_opt(&p, t, C, c, optarg))
			goto out;
	rc = picked_exist(&p, t, C) ? state_apply(t, cmd, &p, C) : 1;
out:
	pick_fini(&p);
	pk_tracefs_free(t);
	return rc;
}

int cmd_ftrace_stop(int argc, char **argv)
{
	return state_cmd(argc, argv, ST_STOP);
}

int cmd_ftrace_restart(int argc, char **argv)
{
	return state_cmd(argc, argv, ST_RESTART);
}

int cmd_ftrace_reset(int argc, char **argv)
{
	return state_cmd(argc, argv, ST_RESET);
}

/* ---- extract: trace-cmd extract 3.1 ---- */

static const char extract_usage[] =
	"usage: perfkit ftrace extract [-B NAME]... [-a] [-t] [-p TRACER] "
	"[-O [no]OPTION]... [-s] [-k]\n"
	"         [-o FILE] [-z zstd|zlib|none]\n"
	"       perfkit ftrace extract --instance NAME [-o FILE] [-z ...]\n"
	"  trace-cmd extract: what the top level and the -B instances (-a: "
	"every one)\n  hold now into FILE (trace.dat): their pages, or with "
	"-p a latency tracer\n  (irqsoff, preemptoff, ...) the top level's "
	"max-latency trace text; -s the\n  snapshot buffers; -O a trace option "
	"of the buffer of the -B before it (the\n  top level without one). "
	"Then, without -k: tracing off, events off, buffers\n  cleared, the "
	"-O options put back, current_tracer nop, the -B/-a instances\n  "
	"removed (rmdir) and the top level's tracing_on as it was.\n"
	"  --instance NAME: that instance's pages alone (as the file's top "
	"buffer),\n  nothing changed\n";

/* extract's options beyond the picked buffers. */
struct xopts {
	const char *output, *compression, *tracer, *instance;
	bool snapshot, keep;
	int last_b;             /* the last -B: index into pick.name, or -1 */
	const char **opt;       /* -O OPTION, given order */
	int *opt_buf;           /* its buffer: index into pick.name, -1 top */
	int nr_opts;
};

/* -O ARG for the buffer of the last -B (LAST). 0 or -ENOMEM. */
static int xopt_add(struct xopts *x, const char *arg, int last)
{
	const char **o = realloc(x->opt, (size_t)(x->nr_opts + 1) * sizeof(*o));
	int *b;

	if (o)
		x->opt = o;
	b = o ? realloc(x->opt_buf, (size_t)(x->nr_opts + 1) * sizeof(*b)) : NULL;
	if (!b)
		return -ENOMEM;
	x->opt_buf = b;
	o[x->nr_opts] = arg;
	b[x->nr_opts++] = last;
	return 0;
}

/* What -O put back at the end: buffer and trace_options line. */
struct xreset {
	const char **buf;
	char **val;
	int n;
};

static void xreset_fini(struct xreset *r)
{
	for (int i = 0; i < r->n; i++)
		free(r->val[i]);
	free(r->buf);
	free(r->val);
}

/* The -O options of buffer BUF (NAME; NULL the top level), the last
 * given first as trace-cmd keeps them: what to put back noted (unless
 * -k) from trace_options before any is written. 0 or -errno. */
static int xopts_write(struct pk_tracefs *t, const struct xopts *x, int buf,
		       const char *name, struct xreset *r)
{
	int e = 0;

	for (int i = x->nr_opts - 1; !e && !x->keep && i >= 0; i--) {
		char *line = NULL;
		if (x->opt_buf[i] != buf)
			continue;
		e = pk_tracefs_option_reset(t, name, x->opt[i], &line);
		if (e || !line)
			continue;
		const char **b = realloc(r->buf, (size_t)(r->n + 1) * sizeof(*b));
		char **v = b ? realloc(r->val, (size_t)(r->n + 1) * sizeof(*v)) : NULL;
		if (b)
			r->buf = b;
		if (v)
			r->val = v;
		if (!v) {
			free(line);
			return -ENOMEM;
		}
		r->buf[r->n] = name;
		r->val[r->n++] = line;
	}
	for (int i = x->nr_opts - 1; !e && i >= 0; i--)
		if (x->opt_buf[i] == buf)
			e = pk_tracefs_put(t, &name, 1, "trace_options", x->opt[i]);
	return e;
}

/* Every buffer's -O options: the top level first, then the -B ones as
 * pick_list orders them. 0 or -errno. */
static int xopts_apply(struct pk_tracefs *t, const struct xopts *x,
		       const struct pick *p, struct xreset *r)
{
	int e = xopts_write(t, x, -1, NULL, r);

	for (int i = p->n - 1; !e && i >= 0; i--)
		e = xopts_write(t, x, i, p->name[i], r);
	return e;
}

/* The per-CPU summary of every buffer of R. */
static void extract_summary(const struct pk_ftrace_rec *r)
{
	for (int b = 0; b < pk_ftrace_rec_nr_buffers(r); b++) {
		struct pk_ftrace_cpu_result res;
		const char *name = pk_ftrace_rec_buffer_name(r, b);
		if (*name)
			printf("Buffer: %s\n", name);
		for (int i = 0; !pk_ftrace_rec_buffer_result(r, b, i, &res); i++)
			printf("CPU %d: %llu events, %llu overruns, %llu lost\n",
			       res.cpu, (unsigned long long)res.events,
			       (unsigned long long)res.overruns,
			       (unsigned long long)res.lost);
	}
}

/* Reads the buffers of P (a latency text with LATENCY) and writes the
 * file, the tracefs reset in between unless -k. 0 or -errno. */
static int extract_run(struct pk_tracefs *t, const struct xopts *x,
		       const struct pick *p, bool latency)
{
	PK_OPTS(pk_ftrace_extract_opts, o, .buffers = p->bufs,
		.nr_buffers = p->nb, .compression = x->compression,
		.snapshot = x->snapshot, .latency = latency);
	struct pk_ftrace_rec *r = pk_ftrace_extract_bufs(t, x->output, &o);
	int e = r ? 0 : -errno;

	if (!e && !x->keep)
		e = pk_tracefs_disable_all(t, p->bufs, p->nb, false);
	if (!e)
		e = pk_ftrace_rec_write(r);
	if (!e)
		extract_summary(r);
	pk_ftrace_rec_free(r);
	return e;
}

/* trace-cmd extract's end without -k: the -O options put back (the last
 * noted first), current_tracer nop, the instances removed (a refusal is
 * ignored, as trace-cmd does), tracing_on of the top level as it was. */
static int extract_end(struct pk_tracefs *t, const struct pick *p,
		       const struct xreset *r, uint64_t on)
{
	const char *top = NULL;
	int e = 0;

	for (int i = r->n - 1; !e && i >= 0; i--)
		e = pk_tracefs_put(t, &r->buf[i], 1, "trace_options", r->val[i]);
	if (!e)
		e = pk_tracefs_put(t, p->bufs, p->nb, "current_tracer", "nop");
	for (int i = 1; !e && i < p->nb; i++)
		(void)pk_tracefs_instance_remove(t, p->bufs[i]);
	if (!e)
		e = pk_tracefs_put(t, &top, 1, "tracing_on", on ? "1" : "0");
	return e;
}

/* trace-cmd extract on T with the buffers of P. The exit status. */
static int extract_tc(struct pk_tracefs *t, const struct xopts *x,
		      struct pick *p, const char *C)
{
	struct xreset rs = { 0 };
	uint64_t on = 1;
	bool latency = x->tracer && pk_tracer_is_latency(x->tracer);
	int e;

	p->topt = true;         /* extract always reads the top level */
	if (!picked_exist(p, t, C))
		return 1;
	if (x->tracer && pk_tracefs_tracer_available(t, NULL, x->tracer) <= 0) {
		cli_error(C, "-p %s: no such tracer (available_tracers)",
			  x->tracer);
		return 1;
	}
	if (pick_list(p)) {
		cli_error(C, "%s", pk_strerror(-ENOMEM));
		return 1;
	}
	(void)pk_tracefs_read_u64(t, NULL, "tracing_on", &on);
	e = xopts_apply(t, x, p, &rs);
	if (!e)
		e = extract_run(t, x, p, latency);
	if (!e && !x->keep)
		e = extract_end(t, p, &rs, on);
	xreset_fini(&rs);
	if (e)
		cli_error(C, "%s: %s", x->output, pk_strerror(e));
	return e ? 1 : 0;
}

/* extract --instance NAME: that buffer alone, nothing changed. */
static int extract_instance(struct pk_tracefs *t, const struct xopts *x,
			    const char *C)
{
	struct pk_ftrace_rec *r = pk_ftrace_extract(t, x->instance, x->output,
						    x->compression);
	int e = r ? pk_ftrace_rec_write(r) : -errno;

	if (e)
		cli_error(C, "%s: %s", x->output, pk_strerror(e));
	else
		extract_summary(r);
	pk_ftrace_rec_free(r);
	return e ? 1 : 0;
}

/* One option C (ARG) of extract into *X and *P. 0, or -1 after the error
 * line. */
static int extract_opt(struct xopts *x, struct pick *p, struct pk_tracefs *t,
		       const char *C, int c, const char *arg)
{
	switch (c) {
	case 'o': x->output = arg; return 0;
	case 'z': x->compression = arg; return 0;
	case 'p': x->tracer = arg; return 0;
	case 's': x->snapshot = true; return 0;
	case 'k': x->keep = true; return 0;
	case 'I': x->instance = arg; return 0;
	case 'O':
		if (!xopt_add(x, arg, x->last_b))
			return 0;
		cli_error(C, "-O %s: %s", arg, strerror(ENOMEM));
		return -1;
	case 'B':
		/* -O's buffer (trace-cmd's ctx->instance): -t, -a keep it */
		if (pick_opt(p, t, C, c, arg))
			return -1;
		x->last_b = p->n - 1;
		return 0;
	}
	return pick_opt(p, t, C, c, arg);
}

int cmd_ftrace_extract(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "instance", required_argument, NULL, 'I' },
		{ "output", required_argument, NULL, 'o' },
		{ "compression", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const C = "ftrace extract";
	const char *sopt = "+hatB:p:O:skz:o:";
	struct xopts x = { .output = "trace.dat", .last_b = -1 };
	struct pick p = { .cur = -1 };
	struct pk_tracefs *t = NULL;
	int c, rc = 2, n = 0;

	optind = 1;
	while ((c = cli_getopt(argc, argv, sopt, lo, NULL)) != -1) {
		if (c == 'h' || c == '?') {
			fputs(extract_usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
		n += c != 'I' && c != 'o' && c != 'z';
	}
	if (optind < argc) {
		cli_error(C, "unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (!(t = pk_tracefs_open())) {
		cli_error(C, "tracefs: %s", pk_strerror(-errno));
		return 1;
	}
	optind = 1;
	while ((c = cli_getopt(argc, argv, sopt, lo, NULL)) != -1)
		if (extract_opt(&x, &p, t, C, c, optarg))
			goto out;
	if (x.instance && n) {
		cli_error(C, "--instance takes only -o and -z");
		goto out;
	}
	rc = x.instance ? extract_instance(t, &x, C) : extract_tc(t, &x, &p, C);
out:
	free(x.opt);
	free(x.opt_buf);
	pick_fini(&p);
	pk_tracefs_free(t);
	return rc;
}
