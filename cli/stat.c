/* SPDX-License-Identifier: MIT */
/*
 * perfkit stat: count events while a command runs, or on threads or CPUs
 * until Ctrl-C, and print them the way `perf stat` does.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "cli.h"
#include "stat.h"
#include "workload.h"

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void on_child(int sig)
{
	(void)sig; /* only interrupts sleeps */
}

void stats_update(struct stats *s, double v)
{
	double d = v - s->mean;

	s->n += 1;
	s->mean += d / s->n;
	s->m2 += d * (v - s->mean);
}

double stats_stddev_mean(const struct stats *s)
{
	if (s->n < 2)
		return 0;
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: perfkit stat [options] [-- command [args]]\n"
"  -e, --event EV        event(s) to count (repeatable; {a,b} groups)\n"
"  -p, --pid PIDS        attach to processes (comma list)\n"
"  -t, --tid TIDS        attach to threads (comma list)\n"
"  -a, --all-cpus        system-wide on every CPU\n"
"  -C, --cpu CPUS        only these CPUs (e.g. 0-2,5)\n"
"  -A, --no-aggr         one line per CPU\n"
"      --per-thread      one line per thread\n"
"  -I, --interval-print MS  print deltas every MS milliseconds\n"
"  -r, --repeat N        run the command N times: mean and +- stddev %%\n"
"  -x, --field-separator SEP  CSV output (perf's field order)\n"
"  -j, --json-output     JSON, one object per line\n"
"  -o, --output FILE     write the results to FILE\n"
"  -i, --no-inherit      do not count child tasks\n"
"  -G, --cgroup NAME     count only tasks in this cgroup (with -a)\n"
"  -D, --delay MS        start counting MS ms after the command starts\n"
"  -v, --verbose         more detail (-vv: every perf_event_attr)\n");
}

enum { OPT_PER_THREAD = 256 };

static const struct option long_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "no-aggr", no_argument, NULL, 'A' },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "interval-print", required_argument, NULL, 'I' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "json-output", no_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "delay", required_argument, NULL, 'D' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "big-num", no_argument, NULL, 'B' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_int(const char *opt, const char *s, int min, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > 1000000000) {
		cli_error("stat", "option %s: invalid number '%s'", opt, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_args(struct stat_cfg *c, int argc, char **argv)
{
	int o;

	optind = 1;
	while ((o = getopt_long(argc, argv, "+e:p:t:aC:AI:r:x:jo:iG:D:vBh",
				long_opts, NULL)) != -1) {
		switch (o) {
		case 'e':
			c->events[c->nr_events++] = optarg;
			break;
		case 'p': c->pids = optarg; break;
		case 't': c->tids = optarg; break;
		case 'a': c->system_wide = true; break;
		case 'C': c->cpu_list = optarg; break;
		case 'A': c->aggr = AGGR_CPU; break;
		case OPT_PER_THREAD: c->aggr = AGGR_THREAD; break;
		case 'I':
			if (parse_int("-I", optarg, 1, &c->interval_ms))
				return -1;
			break;
		case 'r':
			if (parse_int("-r", optarg, 1, &c->repeat))
				return -1;
			break;
		case 'x': c->sep = optarg; break;
		case 'j': c->json = true; break;
		case 'o': c->output = optarg; break;
		case 'i': c->no_inherit = true; break;
		case 'G': c->cgroup = optarg; break;
		case 'D':
			if (parse_int("-D", optarg, 0, &c->delay_ms))
				return -1;
			break;
		case 'v': c->verbose++; break;
		case 'B': c->big = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc)
		c->argv = argv + optind;
	if (!c->argv && !c->pids && !c->tids && !c->system_wide &&
	    !c->cpu_list) {
		cli_error("stat", "nothing to count: give a command, -p, -t, -a or -C");
		usage(stderr);
		return -1;
	}
	if ((c->pids || c->tids) && (c->system_wide || c->cpu_list)) {
		cli_error("stat", "-p/-t cannot be combined with -a/-C");
		return -1;
	}
	if (c->repeat > 1 && !c->argv) {
		cli_error("stat", "-r needs a command to repeat");
		return -1;
	}
	if (c->cgroup)
		c->system_wide = c->system_wide || !c->cpu_list;
	if (c->aggr == AGGR_CPU && !c->system_wide && !c->cpu_list) {
		cli_error("stat", "-A/--no-aggr needs -a or -C");
		return -1;
	}
	if (c->aggr == AGGR_THREAD && !c->pids && !c->tids && !c->argv) {
		cli_error("stat", "--per-thread needs -p, -t or a command");
		return -1;
	}
	if (c->sep && c->json) {
		cli_error("stat", "-x and -j cannot be combined");
		return -1;
	}
	if (!c->repeat)
		c->repeat = 1;
	return 0;
}

/* Prints a parse error with the input and a caret under the token. */
static void report_parse_error(const char *str, const struct pk_parse_error *e,
			       int err)
{
	cli_error("stat", "invalid event '%s': %s", str,
		  e->msg[0] ? e->msg : pk_strerror(err));
	if (e->pos >= 0 && (size_t)e->pos <= strlen(str)) {
		fprintf(stderr, "    %s\n    %*s^", str, e->pos, "");
		for (int i = 1; i < e->len; i++)
			fputc('~', stderr);
		fputc('\n', stderr);
	}
}

static const char *default_events(const struct stat_cfg *c)
{
	return c->system_wide || c->cpu_list ?
		"cpu-clock,context-switches,cpu-migrations,page-faults,"
		"cycles,instructions,branches,branch-misses" :
		"task-clock,context-switches,cpu-migrations,page-faults,"
		"cycles,instructions,branches,branch-misses";
}

static struct pk_evlist *build_evlist(const struct stat_cfg *c)
{
	struct pk_evlist *l = pk_evlist_new();
	struct pk_parse_error pe;

	if (!l)
		return NULL;
	for (int i = 0; i < (c->nr_events ? c->nr_events : 1); i++) {
		const char *s = c->nr_events ? c->events[i] : default_events(c);
		int err;

		memset(&pe, 0, sizeof(pe));
		pe.pos = -1;
		err = pk_evlist_parse(l, s, &pe);
		if (err < 0) {
			report_parse_error(s, &pe, err);
			pk_evlist_free(l);
			return NULL;
		}
	}
	return l;
}

/* The attribute settings perf stat adds to what the parser built. */
static void config_attrs(const struct stat_cfg *c, struct pk_evlist *l,
			 bool forked)
{
	for (int i = 0; i < pk_evlist_nr(l); i++) {
		struct pk_evsel *e = pk_evlist_evsel(l, i);
		struct pk_evsel *leader = pk_evsel_leader(e);
		struct perf_event_attr *a = pk_evsel_attr(e);
		bool is_leader = leader == e;

		a->sample_type = PERF_SAMPLE_IDENTIFIER;
		a->sample_period = 0; /* counting: no sampling terms */
		a->freq = 0;
		a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				 PERF_FORMAT_TOTAL_TIME_RUNNING;
		if (pk_evsel_nr_members(leader) > 1)
			a->read_format |= PERF_FORMAT_ID | PERF_FORMAT_GROUP;
		a->inherit = !c->no_inherit;
		a->disabled = is_leader;
		a->enable_on_exec = is_leader && forked && !c->delay_ms &&
				    !c->system_wide && !c->cpu_list;
	}
}

static int make_maps(struct stat_run *r, pid_t child)
{
	struct stat_cfg *c = r->cfg;

	if (c->system_wide || c->cpu_list) {
		r->cpus = pk_cpu_map_new(c->cpu_list);
		r->threads = pk_thread_map_new_any();
	} else {
		r->cpus = pk_cpu_map_new_any();
		if (c->pids)
			r->threads = pk_thread_map_new_pids(c->pids);
		else if (c->tids)
			r->threads = pk_thread_map_new_tids(c->tids);
		else
			r->threads = pk_thread_map_new_array(1, &child);
	}
	if (!r->cpus) {
		cli_error("stat", "invalid CPU list '%s'", c->cpu_list);
		return -1;
	}
	if (!r->threads) {
		if (c->pids || c->tids)
			cli_error("stat", "%s '%s': %s",
				  c->pids ? "pid" : "tid",
				  c->pids ? c->pids : c->tids,
				  errno == ESRCH ? "no such process" :
				  strerror(errno));
		else
			cli_error("stat", "cannot build thread map: %s",
				  strerror(errno));
		return -1;
	}
	return 0;
}

static bool is_unsupported(int err)
{
	return err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV ||
	       err == -ENXIO || err == -ENOSYS;
}

/* One line on why opening failed, in terms a user can act on. */
static void report_open_error(struct stat_run *r, struct pk_evsel *e, int err)
{
	const struct stat_cfg *c = r->cfg;
	char why[512];

	if (err == -ESRCH) {
		cli_error("stat", "cannot count '%s': %s %s no longer exists",
			  pk_evsel_name(e), c->tids ? "thread" : "process",
			  c->pids ? c->pids : c->tids ? c->tids : "");
		return;
	}
	pk_open_strerror(err, pk_evsel_attr(e), c->system_wide || c->cpu_list,
			 why, sizeof(why));
	cli_error("stat", "cannot count '%s': %s", pk_evsel_name(e), why);
}

/* A group counts as a whole or not at all, as perf does: when one member
 * cannot be opened, the others are closed and reported as not counted. */
static void close_broken_groups(struct stat_run *r)
{
	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i);
		int n = pk_evsel_nr_members(e);
		bool broken = false;

		for (int j = i; j < i + n; j++)
			broken |= r->res[j].status != EV_OK;
		if (n < 2 || !broken)
			continue;
		for (int j = i; j < i + n; j++) {
			if (r->res[j].status == EV_OK)
				r->res[j].status = EV_NOT_COUNTED;
			pk_evsel_close(pk_evlist_evsel(r->evlist, j));
		}
	}
}

/* Opens every event; unsupported ones are marked and skipped. 0 or -1. */
static int open_events(struct stat_run *r)
{
	struct cli_open_trace trace = {
		r->cfg->verbose, r->cpus, r->threads, PERF_FLAG_FD_CLOEXEC |
		(r->cfg->cgroup ? PERF_FLAG_PID_CGROUP : 0) };
	PK_OPTS(pk_open_opts, opts, .cgroup = r->cfg->cgroup,
		.fallbacks = PK_OPEN_FALLBACK_USER,
		.attempt = cli_open_attempt, .attempt_ctx = &trace);

	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i);
		struct pk_evsel *leader = pk_evsel_leader(e);
		int err;

		if (leader != e && !pk_evsel_is_open(leader)) {
			r->res[i].status = EV_NOT_COUNTED;
			continue;
		}
		err = pk_evsel_open(e, r->cpus, r->threads, &opts);
		if (!err) {
			r->res[i].status = EV_OK;
			continue;
		}
		if (is_unsupported(err) ||
		    (err == -EINVAL && pk_evsel_attr(e)->type ==
		     PERF_TYPE_HARDWARE)) {
			r->res[i].status = EV_UNSUPPORTED;
			continue;
		}
		report_open_error(r, e, err);
		return -1;
	}
	close_broken_groups(r);
	return 0;
}

static int unit_of(const struct stat_run *r, int ci, int ti)
{
	switch (r->cfg->aggr) {
	case AGGR_CPU: return ci;
	case AGGR_THREAD: return ti;
	default: return 0;
	}
}

/* Reads every open event into res[].cur (cumulative per unit). */
static void read_counts(struct stat_run *r)
{
	int nc = pk_cpu_map_nr(r->cpus), nt = pk_thread_map_nr(r->threads);

	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i);
		struct ev_res *res = &r->res[i];

		memset(res->cur, 0, sizeof(*res->cur) * (size_t)r->nr_units);
		if (res->status != EV_OK)
			continue;
		for (int ci = 0; ci < nc; ci++) {
			for (int ti = 0; ti < nt; ti++) {
				struct pk_counts c = { 0 };
				struct pk_counts *u = &res->cur[unit_of(r, ci, ti)];

				if (pk_evsel_read(e, ci, ti, &c))
					continue;
				if (r->cfg->verbose)
					fprintf(stderr, "%s: %d: %llu %llu %llu\n",
						pk_evsel_name(e),
						pk_cpu_map_cpu(r->cpus, ci),
						(unsigned long long)c.val,
						(unsigned long long)c.ena,
						(unsigned long long)c.run);
				u->val += c.val;
				u->ena += c.ena;
				u->run += c.run;
				u->lost += c.lost;
			}
		}
	}
}

static void subtract_prev(struct stat_run *r, bool save)
{
	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct ev_res *res = &r->res[i];

		for (int u = 0; u < r->nr_units; u++) {
			struct pk_counts cur = res->cur[u];
			struct pk_counts *p = &res->prev[u];

			res->cur[u].val = cur.val - p->val;
			res->cur[u].ena = cur.ena - p->ena;
			res->cur[u].run = cur.run - p->run;
			if (save)
				*p = cur;
		}
	}
}

/*
 * Sleeps until DEADLINE_NS or until the child (PIDFD, -1 for none) exits
 * or a signal arrives, whichever comes first; no wake-up is lost to a race.
 */
static void sleep_until(double deadline_ns, int pidfd)
{
	double d = deadline_ns - now_ns();
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)(d / 1e9);
	ts.tv_nsec = (long)(d - (double)ts.tv_sec * 1e9);
	ppoll(&p, pidfd >= 0 ? 1 : 0, &ts, NULL);
}

static bool targets_alive(const struct stat_run *r)
{
	char path[64];

	if (!r->cfg->pids && !r->cfg->tids)
		return true;
	for (int i = 0; i < pk_thread_map_nr(r->threads); i++) {
		snprintf(path, sizeof(path), "/proc/%d",
			 pk_thread_map_tid(r->threads, i));
		if (access(path, F_OK) == 0)
			return true;
	}
	return false;
}

static bool child_done(struct workload *w, int *status, struct rusage *ru)
{
	if (!w || w->pid <= 0)
		return false;
	if (wait4(w->pid, status, WNOHANG, ru) != w->pid)
		return false;
	w->pid = -1; /* reaped */
	return true;
}

/*
 * Waits for the end of counting: the child's exit, the targets' exit, or a
 * signal, printing interval deltas on the way when -I is given. A signal
 * that ends counting is passed on to a child still running.
 */
static void wait_counting(struct stat_run *r, struct workload *w,
			  double t0, int *status, struct rusage *ru)
{
	int iv = r->cfg->interval_ms;
	double step = (iv ? iv : 100) * 1e6, next = t0 + step;
	bool done = false;
	int pidfd = w && w->pid > 0 ? (int)syscall(SYS_pidfd_open, w->pid, 0) : -1;

	if (iv)
		stat_print_interval_header(r);
	while (!done) {
		sleep_until(next, pidfd);
		done = child_done(w, status, ru) || got_signal ||
		       (!w && !targets_alive(r));
		if (iv && (now_ns() >= next || done)) {
			read_counts(r);
			subtract_prev(r, true);
			stat_print(r, now_ns() - t0);
		}
		while (now_ns() >= next)
			next += step;
	}
	if (pidfd >= 0)
		close(pidfd);
	if (w && w->pid > 0) {
		kill(w->pid, got_signal ? got_signal : SIGTERM);
		workload_wait(w, status, ru, NULL);
		w->pid = -1;
	}
}

static int alloc_results(struct stat_run *r)
{
	int n = pk_evlist_nr(r->evlist);

	switch (r->cfg->aggr) {
	case AGGR_CPU: r->nr_units = pk_cpu_map_nr(r->cpus); break;
	case AGGR_THREAD: r->nr_units = pk_thread_map_nr(r->threads); break;
	default: r->nr_units = 1; break;
	}
	if (!r->res)
		r->res = calloc((size_t)n, sizeof(*r->res));
	if (!r->res)
		return -1;
	for (int i = 0; i < n; i++) {
		free(r->res[i].cur);
		free(r->res[i].prev);
		r->res[i].cur = calloc((size_t)r->nr_units, sizeof(struct pk_counts));
		r->res[i].prev = calloc((size_t)r->nr_units, sizeof(struct pk_counts));
		if (!r->res[i].cur || !r->res[i].prev)
			return -1;
	}
	return 0;
}

static void free_results(struct stat_run *r)
{
	for (int i = 0; r->res && i < pk_evlist_nr(r->evlist); i++) {
		free(r->res[i].cur);
		free(r->res[i].prev);
	}
	free(r->res);
	r->res = NULL;
	if (r->unit_names)
		for (int u = 0; u < r->nr_units; u++)
			free(r->unit_names[u]);
	free(r->unit_names);
	r->unit_names = NULL;
}

/* "comm-tid" for --per-thread lines. */
static void name_threads(struct stat_run *r)
{
	if (r->cfg->aggr != AGGR_THREAD || r->unit_names)
		return;
	r->unit_names = calloc((size_t)r->nr_units, sizeof(char *));
	for (int u = 0; r->unit_names && u < r->nr_units; u++) {
		int tid = pk_thread_map_tid(r->threads, u);
		char path[64], comm[64] = "<unknown>";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", tid);
		f = fopen(path, "r");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = '\0';
			fclose(f);
		}
		if (asprintf(&r->unit_names[u], "%s-%d", comm, tid) < 0)
			r->unit_names[u] = NULL;
	}
}

static void add_run_stats(struct stat_run *r)
{
	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_counts sum = { 0 };

		for (int u = 0; u < r->nr_units; u++) {
			sum.val += r->res[i].cur[u].val;
			sum.ena += r->res[i].cur[u].ena;
			sum.run += r->res[i].cur[u].run;
		}
		stats_update(&r->res[i].runs, (double)pk_counts_scaled(&sum, NULL));
	}
	stats_update(&r->wall_runs, r->wall_ns / 1e9);
}

/*
 * One run: maps, open, start, wait, read, close. Returns the command's exit
 * status (0 without a command) or -1 on a fatal error (already reported).
 */
static int run_once(struct stat_run *r)
{
	struct stat_cfg *c = r->cfg;
	struct workload w = { .pid = -1, .go_fd = -1, .err_fd = -1 };
	struct workload *wp = NULL;
	struct rusage ru = { 0 };
	int status = 0, ret = -1, err;
	bool per_task = !c->system_wide && !c->cpu_list;
	double t0;

	if (c->argv) {
		err = workload_prepare(&w, c->argv);
		if (err) {
			cli_error("stat", "cannot start '%s': %s", c->argv[0],
				  strerror(-err));
			return -1;
		}
		wp = &w;
	}
	pk_cpu_map_put(r->cpus);
	pk_thread_map_put(r->threads);
	r->cpus = NULL;
	r->threads = NULL;
	if (make_maps(r, w.pid) || alloc_results(r))
		goto out;
	name_threads(r);
	if (open_events(r))
		goto out;
	pk_evlist_reset(r->evlist);
	if ((!wp || !per_task) && !c->delay_ms)
		pk_evlist_enable(r->evlist);
	t0 = now_ns();
	if (wp) {
		err = workload_go(wp);
		if (err) {
			cli_error("stat", "cannot run '%s': %s", c->argv[0],
				  strerror(-err));
			w.pid = -1;
			ret = 127;
			goto out;
		}
	}
	if (c->delay_ms) {
		usleep((useconds_t)c->delay_ms * 1000);
		pk_evlist_enable(r->evlist);
	}
	wait_counting(r, wp, t0, &status, &ru);
	r->wall_ns = now_ns() - t0;
	pk_evlist_disable(r->evlist);
	read_counts(r);
	if (c->interval_ms)
		subtract_prev(r, false);
	r->have_rusage = wp != NULL;
	r->utime = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r->stime = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	ret = wp ? workload_exit_code(status) : 0;
out:
	if (wp && w.pid > 0)
		workload_abort(&w);
	pk_evlist_close(r->evlist);
	return ret;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_cfg cfg = { 0 };
	struct stat_run run = { .cfg = &cfg };
	int ret = 0;

	cfg.events = calloc((size_t)argc + 1, sizeof(char *));
	if (!cfg.events || parse_args(&cfg, argc, argv)) {
		free(cfg.events);
		return 2;
	}
	cli_verbose = cfg.verbose;
	run.out = stderr;
	if (cfg.output && !(run.out = fopen(cfg.output, "w"))) {
		cli_error("stat", "cannot write '%s': %s", cfg.output,
			  strerror(errno));
		free(cfg.events);
		return 2;
	}
	run.evlist = build_evlist(&cfg);
	if (!run.evlist) {
		ret = 2;
		goto out;
	}
	config_attrs(&cfg, run.evlist, cfg.argv != NULL);
	workload_catch_signals(on_signal, on_child);
	for (run.run_idx = 0; run.run_idx < cfg.repeat && !got_signal;
	     run.run_idx++) {
		ret = run_once(&run);
		if (ret < 0)
			break;
		add_run_stats(&run);
	}
	if (ret >= 0 && !cfg.interval_ms)
		stat_print(&run, -1);
	if (ret < 0)
		ret = 1;
out:
	free_results(&run);
	pk_evlist_free(run.evlist);
	pk_cpu_map_put(run.cpus);
	pk_thread_map_put(run.threads);
	if (run.out && run.out != stderr)
		fclose(run.out);
	free(cfg.events);
	return ret;
}
