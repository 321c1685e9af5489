/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace report --format=kernel (the kernel's own `trace` text of a
 * trace.dat file) and perfkit ftrace live (trace_pipe-like streaming).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include <perfkit/map.h>
#include "cli.h"
#include "ftrace_opts.h"
#include "workload.h"

/* Appends ",OPT" to the option list BUF. */
static int add_opt(char *buf, size_t len, const char *opt)
{
	size_t n = strlen(buf);
	int w = snprintf(buf + n, len - n, "%s%s", n ? "," : "", opt);
	return w < 0 || (size_t)w >= len - n ? -1 : 0;
}

static void kreport_usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit ftrace report --format=kernel [-i FILE] "
		"[--cpu LIST] [-O OPTION]...\n"
		"         [--tracer nop|function|function_graph] [--clock C] "
		"[--tgids FILE]\n"
		"         [--release R] [--preempt MODEL] [--time-start NS] "
		"[--nr-online N] [--no-header]\n"
		"  OPTION: a trace option as in trace_options (sym-offset, "
		"noirq-info, latency-format,\n"
		"          record-tgid, raw, hex, bin, fields, verbose, "
		"funcgraph-proc ...)\n");
}

int cmd_ftrace_report_kernel(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "format", required_argument, NULL, 'F' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "option", required_argument, NULL, 'O' },
		{ "tracer", required_argument, NULL, 't' },
		{ "clock", required_argument, NULL, 'k' },
		{ "tgids", required_argument, NULL, 'g' },
		{ "release", required_argument, NULL, 'r' },
		{ "preempt", required_argument, NULL, 'm' },
		{ "time-start", required_argument, NULL, 's' },
		{ "nr-online", required_argument, NULL, 'P' },
		{ "no-header", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static int cpus[4096];
	static char opts[4096];
	const char *in = "trace.dat", *tgid_file = NULL;
	PK_OPTS(pk_ktext_opts, o);
	struct pk_tracedat *td;
	char *tgids = NULL;
	int c, nr_cpus = 0;

	opts[0] = 0;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "i:O:h", lo, NULL)) != -1) {
		switch (c) {
		case 'i': in = optarg; break;
		case 'F':
			if (strcmp(optarg, "kernel")) {
				cli_error("ftrace report", "unknown format '%s'",
					  optarg);
				return 2;
			}
			break;
		case 'c':
			nr_cpus = cli_parse_cpus(optarg, cpus, 4096, 0);
			if (nr_cpus <= 0) {
				cli_error("ftrace report", "bad cpu list '%s'",
					  optarg);
				return 2;
			}
			break;
		case 'O':
			if (add_opt(opts, sizeof(opts), optarg)) {
				cli_error("ftrace report", "too many options");
				return 2;
			}
			break;
		case 't': o.tracer = optarg; break;
		case 'k': o.clock = optarg; break;
		case 'g': tgid_file = optarg; break;
		case 'r': o.release = optarg; break;
		case 'm': o.preempt = optarg; break;
		case 's': o.time_start = strtoull(optarg, NULL, 0); break;
		case 'P': o.nr_online = atoi(optarg); break;
		case 'N': o.no_header = true; break;
		case 'h': kreport_usage(stdout); return 0;
		default: kreport_usage(stderr); return 2;
		}
	}
	if (optind < argc)
		in = argv[optind];
	if (tgid_file) {
		FILE *f = fopen(tgid_file, "r");
		size_t cap = 0;
		if (!f) {
			cli_error("ftrace report", "%s: %s", tgid_file,
				  strerror(errno));
			return 1;
		}
		if (getdelim(&tgids, &cap, 0, f) < 0) {
			free(tgids);
			tgids = NULL;
		}
		fclose(f);
	}
	o.tgids = tgids;
	o.options = opts;
	o.cpus = nr_cpus ? cpus : NULL;
	o.nr_cpus = nr_cpus;
	if (!(td = pk_tracedat_open(in))) {
		cli_error("ftrace report", "%s: %s", in, pk_strerror(-errno));
		free(tgids);
		return 1;
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	long n = pk_tracedat_report_kernel(td, stdout, &o);
	fflush(stdout);
	pk_tracedat_free(td);
	free(tgids);
	if (n < 0) {
		cli_error("ftrace report", "%s: %s", in, pk_strerror((int)n));
		return 1;
	}
	return 0;
}

struct live {
	struct pk_ktext *kt;
	int *fds, *cpu_ids, nr;
	size_t page;
	char **pages;            /* page pool of one batch */
	size_t nr_pages, cap_pages;
	struct pk_tracedat_event *evs;
	size_t n, cap;
	unsigned long long printed;
	struct pk_tracefs *t;
	const char *inst;
	unsigned long long *lost;   /* per CPU index: losses already said */
};

/* Every event the kernel lost on CPU index I into *LOST: overwritten,
 * dropped and commit overruns (per_cpu/cpuN/stats). 0 or -errno. */
static int cpu_lost(struct live *l, int i, unsigned long long *lost)
{
	struct pk_tracefs_stats st;
	int e = pk_tracefs_cpu_stats(l->t, l->inst, l->cpu_ids[i], &st);

	*lost = e ? 0 : st.overrun + st.dropped + st.commit_overrun;
	return e;
}

/*
 * A page that says events were lost gets the exact count from the stats:
 * everything lost on that CPU since the last line said so. The stats can
 * run ahead of the pages (a later page's losses already counted), so a
 * page with nothing new to say prints no line; the lines add up exactly.
 */
static void exact_lost(struct live *l, size_t from, int i)
{
	unsigned long long now;

	for (size_t k = from; k < l->n; k++) {
		if (!l->evs[k].missed || cpu_lost(l, i, &now))
			continue;    /* no stats: the page's own word */
		l->evs[k].missed = now > l->lost[i]
				   ? (long long)(now - l->lost[i]) : 0;
		l->lost[i] = now;
	}
}

static int ev_cmp(const void *a, const void *b)
{
	const struct pk_tracedat_event *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static char *pool_page(struct live *l)
{
	if (l->nr_pages == l->cap_pages) {
		size_t c = l->cap_pages ? l->cap_pages * 2 : 64;
		char **v = realloc(l->pages, c * sizeof(char *));
		if (!v)
			return NULL;
		memset(v + l->cap_pages, 0, (c - l->cap_pages) * sizeof(char *));
		l->pages = v;
		l->cap_pages = c;
	}
	if (!l->pages[l->nr_pages])
		l->pages[l->nr_pages] = malloc(l->page);
	return l->pages[l->nr_pages];
}

/* Reads what every CPU has now, prints it in time order. */
static int live_batch(struct live *l)
{
	int err = 0;

	l->n = 0;
	l->nr_pages = 0;
	for (int i = 0; i < l->nr; i++) {
		for (int k = 0; k < 256; k++) {
			char *pg = pool_page(l);
			if (!pg)
				return -ENOMEM;
			ssize_t r = read(l->fds[i], pg, l->page);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			if ((size_t)r < l->page)
				memset(pg + r, 0, l->page - (size_t)r);
			l->nr_pages++;
			size_t from = l->n;
			long a = pk_ktext_page_events(l->kt, l->cpu_ids[i], pg,
						      l->page, &l->evs, &l->n,
						      &l->cap);
			if (a < 0 && !err)
				err = (int)a;
			exact_lost(l, from, i);
		}
	}
	if (!l->n)
		return err;
	qsort(l->evs, l->n, sizeof(*l->evs), ev_cmp);
	pk_ktext_refresh(l->kt);
	long p = pk_ktext_print(l->kt, stdout, l->evs, l->n);
	fflush(stdout);
	if (p < 0)
		return (int)p;
	l->printed += (unsigned long long)p;
	return err;
}

/* Opens trace_pipe_raw of each CPU of CPUS (NULL: every online CPU). */
static int live_open_cpus(struct live *l, struct pk_tracefs *t,
			  const char *inst, const struct pk_cpu_map *cpus)
{
	struct pk_cpu_map *online = cpus ? NULL : pk_cpu_map_new(NULL);
	int n, e = 0;

	if (!cpus && !(cpus = online))
		return -errno;
	n = pk_cpu_map_nr(cpus);
	l->fds = calloc((size_t)n, sizeof(int));
	l->cpu_ids = calloc((size_t)n, sizeof(int));
	l->lost = calloc((size_t)n, sizeof(*l->lost));
	if (!l->fds || !l->cpu_ids || !l->lost)
		e = -ENOMEM;
	l->t = t;
	l->inst = inst;
	for (int i = 0; !e && i < n; i++) {
		char f[64], p[4096];
		l->cpu_ids[i] = pk_cpu_map_cpu(cpus, i);
		snprintf(f, sizeof(f), "per_cpu/cpu%d/trace_pipe_raw",
			 l->cpu_ids[i]);
		pk_tracefs_path(t, inst, f, p, sizeof(p));
		l->fds[i] = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (l->fds[i] < 0)
			e = -errno;
		else
			l->nr = i + 1;
	}
	pk_cpu_map_put(online);
	return e;
}

static void live_free(struct live *l)
{
	for (int i = 0; i < l->nr; i++)
		close(l->fds[i]);
	for (size_t i = 0; i < l->cap_pages; i++)
		free(l->pages[i]);
	free(l->pages);
	free(l->fds);
	free(l->cpu_ids);
	free(l->lost);
	free(l->evs);
	pk_ktext_free(l->kt);
}

/* Print-only options are set in the instance too where they exist (each
 * -O may hold several, comma-separated). */
static void live_set_options(struct pk_tracefs *t, const char *inst,
			     const char *opts)
{
	char *buf = strdup(opts), *save = NULL;

	for (char *o = buf ? strtok_r(buf, ",", &save) : NULL; o;
	     o = strtok_r(NULL, ",", &save)) {
		bool on = strncmp(o, "no", 2) != 0;
		pk_tracefs_option(t, inst, on ? o : o + 2, on);
	}
	free(buf);
}

/* The -O options as one list "a,b" (NULL: no memory). */
static char *join_options(const struct cli_strv *l)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + 1;
	if (!(s = malloc(len)))
		return NULL;
	s[0] = 0;
	for (int i = 0; i < l->n; i++)
		strcat(strcat(s, i ? "," : ""), l->v[i]);
	return s;
}

int cmd_ftrace_live(int argc, char **argv)
{
	int e, rc = 1;
	int status = 0, cmd_rc = -1;      /* the command's status */
	char out_tmp[64], *opts = NULL;
	PK_OPTS(pk_ftrace_rec_opts, ro);
	struct cli_ftrace_opts f;
	struct pk_ftrace_rec *r = NULL;
	struct pk_tracefs *t = NULL;
	struct live l = { 0 };
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	bool child_done = false;

	if (!cli_ftrace_opts_parse(&f, CLI_FT_LIVE, "ftrace live", argc, argv,
				   &rc))
		goto out;
	if (f.only_cmd && !f.nr_args) {
		cli_error("ftrace live", "-F: no command to trace");
		rc = 2;
		goto out;
	}
	if (!cli_ftrace_opts_has_events(&f) && !f.tracer && !f.dynevents.n) {
		cli_error("ftrace live", "nothing to trace: give -e EVENT, "
			  "--probe DEF or -t TRACER");
		rc = 2;
		goto out;
	}
	if (!(opts = join_options(&f.options))) {
		cli_error("ftrace live", "%s", pk_strerror(-ENOMEM));
		goto out;
	}
	if (!(t = pk_tracefs_open())) {
		e = -errno;
		cli_error("ftrace live", "tracefs: %s", pk_strerror(e));
		goto out;
	}
	cli_catch_stop_orderly();
	signal(SIGPIPE, SIG_IGN);
	if (f.nr_args && (e = workload_prepare(&w, f.args)) < 0) {
		cli_error("ftrace live", "fork: %s", strerror(-e));
		goto out;
	}
	if ((e = cli_ftrace_opts_rec(&f, w.pid, &ro)) < 0) {
		cli_error("ftrace live", "%s", pk_strerror(e));
		goto out;
	}
	ro.options = NULL;      /* live_set_options: print-only ones too */
	/* a private instance gets room for bursts (the printer is slower
	 * than the fastest event sources) */
	if (!ro.buffer_kb && !ro.top_level)
		ro.buffer_kb = 16384;
	/* the recorder's setup; its page files stay empty (unlinked) */
	snprintf(out_tmp, sizeof(out_tmp), "/tmp/perfkit-live-%d", (int)getpid());
	ro.output = out_tmp;
	if (!(r = pk_ftrace_rec_new(t, &ro))) {
		e = -errno;
		if (ro.tracer && (e == -EPERM || e == -EACCES))
			cli_error("ftrace live", "tracer '%s' refused by the "
				  "kernel (EPERM): function tracers are not "
				  "permitted on this machine", ro.tracer);
		else if (e != -ENOENT)   /* an unknown event is named already */
			cli_error("ftrace live", "%s", pk_strerror(e));
		goto out;
	}
	char inst[64];
	snprintf(inst, sizeof(inst), "perfkit-%d", (int)getpid());
	const char *ip = ro.top_level ? NULL : inst;
	live_set_options(t, ip, opts);
	PK_OPTS(pk_ktext_opts, ko, .options = opts, .no_header = true,
		.tracer = ro.tracer && (!strcmp(ro.tracer, "function") ||
					!strcmp(ro.tracer, "function_graph"))
			  ? ro.tracer : NULL);
	if (!(l.kt = pk_ktext_new_tracefs(t, ip, &ko))) {
		e = -errno;
		cli_error("ftrace live", "%s", pk_strerror(e));
		goto out;
	}
	l.page = (size_t)pk_tracefs_subbuf_size(t, ip);
	if ((e = live_open_cpus(&l, t, ip, f.cpus)) < 0 ||
	    (e = pk_tracefs_write(t, ip, "tracing_on", "1")) < 0) {
		cli_error("ftrace live", "%s", pk_strerror(e));
		goto out;
	}
	if (w.go_fd >= 0 && cli_stop_sig) {   /* stopped before it ran */
		workload_abort(&w);
		cmd_rc = 128 + cli_stop_sig;
	} else if (w.go_fd >= 0 && (e = workload_go(&w)) < 0) {
		/* the command could not run (reaped): stop at once */
		cli_error("ftrace live", "cannot run %s: %s", f.args[0],
			  strerror(-e));
		w.pid = 0;
		child_done = true;
		cmd_rc = 127;
	}
	while (!cli_stop_sig && !child_done) {
		struct pollfd pf[64];
		int np = l.nr < 64 ? l.nr : 64;
		for (int i = 0; i < np; i++)
			pf[i] = (struct pollfd){ .fd = l.fds[i], .events = POLLIN };
		/* no wait while the last batch was busy */
		poll(pf, (nfds_t)np, l.n > 1000 ? 0 : 50);
		if (w.pid > 0 && waitpid(w.pid, &status, WNOHANG) == w.pid) {
			child_done = true;
			w.pid = 0;
			cmd_rc = workload_exit_code(status);
		}
		if ((e = live_batch(&l)) < 0 && e != PK_ERR_FORMAT)
			break;
	}
	pk_tracefs_write(t, ip, "tracing_on", "0");
	/* drain: a batch takes at most 256 pages a CPU and a slow terminal
	 * can leave thousands behind */
	for (int k = 0; k < (1 << 16); k++) {
		int be = live_batch(&l);
		if ((be < 0 && be != PK_ERR_FORMAT) || !l.n)
			break;
	}
	unsigned long long lost = 0;
	for (int i = 0; i < l.nr; i++) {
		unsigned long long c;
		cpu_lost(&l, i, &c);
		lost += c;
	}
	if (lost)
		cli_error("ftrace live", "%llu events, %llu lost (a larger -b "
			  "KB keeps more)", l.printed, lost);
	else if (isatty(2))
		cli_error("ftrace live", "%llu events", l.printed);
	rc = 0;      /* -EPIPE: the reader went away, not an error */
out:
	if (w.pid > 0 && w.go_fd < 0) {   /* started: pass the signals on */
		if (!cli_stop_sig)
			kill(w.pid, SIGKILL);   /* an error ended the stream */
		cmd_rc = workload_exit_code(cli_wait_stop(&w.pid, NULL));
	}
	if (rc == 0 && cmd_rc >= 0)
		rc = cmd_rc;
	workload_abort(&w);       /* prepared, never started */
	live_free(&l);
	if (r && f.keep)          /* -k: settings and the instance stay */
		pk_tracefs_keep(t);
	pk_ftrace_rec_free(r);
	pk_tracefs_free(t);
	cli_ftrace_opts_fini(&f);
	free(opts);
	fflush(stdout);
	return cmd_rc < 0 ? cli_stop_exit(rc) : rc;
}
