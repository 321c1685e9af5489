/* SPDX-License-Identifier: MIT */
/*
 * perfkit stat: count events while a command runs, or on threads or CPUs
 * until Ctrl-C, and print them the way `perf stat` does.
 */
#include <errno.h>
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

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
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
	cli_event_hint("stat", e);
}

static const char *default_events(const struct stat_cfg *c)
{
	return c->system_wide || c->cpu_list ?
		"cpu-clock,context-switches,cpu-migrations,page-faults,"
		"cycles,instructions,branches,branch-misses" :
		"task-clock,context-switches,cpu-migrations,page-faults,"
		"cycles,instructions,branches,branch-misses";
}

/* What -d, -dd and -ddd add, as perf 6.1 adds them on a non-Intel CPU. */
static const char *const detailed_events[] = {
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
	"L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,"
	"iTLB-loads,iTLB-load-misses",
	"L1-dcache-prefetches,L1-dcache-prefetch-misses",
};

static int parse_one_string(struct pk_evlist *l, const char *s)
{
	struct pk_parse_error pe;
	int err;

	memset(&pe, 0, sizeof(pe));
	pe.pos = -1;
	err = pk_evlist_parse(l, s, &pe);
	if (err < 0)
		report_parse_error(s, &pe, err);
	return err < 0 ? -1 : 0;
}

/* --filter FILTER for the last event of the -e before it. */
static int apply_filter(struct pk_evlist *l, const char *filter)
{
	struct pk_evsel *e = pk_evlist_evsel(l, pk_evlist_nr(l) - 1);

	if (!e || pk_evsel_attr(e)->type != PERF_TYPE_TRACEPOINT) {
		fputs("--filter option should follow a -e tracepoint or HW tracer option\n",
		      stderr);
		return -1;
	}
	if (pk_evsel_set_filter(e, filter) < 0) {
		cli_error("stat", "filter '%s' for '%s' cannot be set", filter,
			  pk_evsel_name(e));
		return -1;
	}
	return 0;
}

/* -g: the N event strings EVS, in one group ("{a,b,...}"). */
static char *group_string(const char *const *evs, int n)
{
	size_t len = 3;
	char *s;

	for (int i = 0; i < n; i++)
		len += strlen(evs[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, "{");
	for (int i = 0; i < n; i++) {
		if (strchr(evs[i], '{')) {
			cli_error("stat", "-g: event '%s' is already a group",
				  evs[i]);
			free(s);
			return NULL;
		}
		strcat(s, evs[i]);
		strcat(s, i + 1 < n ? "," : "");
	}
	strcat(s, "}");
	return s;
}

static int parse_grouped(struct pk_evlist *l, const char *const *evs, int n)
{
	char *g = group_string(evs, n);
	int err = g ? parse_one_string(l, g) : -1;

	free(g);
	return err;
}

static int add_given_events(const struct stat_cfg *c, struct pk_evlist *l)
{
	if (c->group)
		return parse_grouped(l, c->events, c->nr_events);
	for (int i = 0; i < c->nr_events; i++) {
		if (parse_one_string(l, c->events[i]))
			return -1;
		if (c->filters[i] && apply_filter(l, c->filters[i]))
			return -1;
	}
	return 0;
}

static struct pk_evlist *build_evlist(const struct stat_cfg *c)
{
	struct pk_evlist *l = pk_evlist_new();
	int err = 0;

	if (!l)
		return NULL;
	if (!c->null_run) {
		const char *def = default_events(c);

		err = c->nr_events ? add_given_events(c, l) :
		      c->group ? parse_grouped(l, &def, 1) :
		      parse_one_string(l, def);
		for (int d = 0; !err && d < c->detailed && d < 3; d++)
			err = parse_one_string(l, detailed_events[d]);
	}
	if (err) {
		pk_evlist_free(l);
		return NULL;
	}
	return l;
}

/* True when the forked command is what is counted (no -p/-t/-a/-C). */
static bool counts_workload(const struct stat_cfg *c)
{
	return c->argv && !c->pids && !c->tids && !c->system_wide &&
	       !c->cpu_list;
}

/* The attribute settings perf stat adds to what the parser built. */
static void config_attrs(const struct stat_cfg *c, struct pk_evlist *l)
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
		a->enable_on_exec = is_leader && counts_workload(c) &&
				    !c->delay_ms && !stat_is_tool(e);
		if (c->all_user) {
			a->exclude_kernel = 1;
			a->exclude_user = 0;
		}
		if (c->all_kernel) {
			a->exclude_kernel = 0;
			a->exclude_user = 1;
		}
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
	if (!r->tool_cpus) {
		r->tool_cpus = pk_cpu_map_new("0");
		r->tool_threads = pk_thread_map_new_any();
	}
	if (!r->cpus || !r->tool_cpus || !r->tool_threads) {
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

/* A tool event (duration_time...) opens on its own maps, no fallback. */
static int open_tool(struct stat_run *r, struct pk_evsel *e,
		     const struct cli_open_trace *trace)
{
	struct cli_open_trace t = *trace;
	PK_OPTS(pk_open_opts, o, .attempt = cli_open_attempt, .attempt_ctx = &t);

	t.cpus = r->tool_cpus;
	t.threads = r->tool_threads;
	return pk_evsel_open(e, r->tool_cpus, r->tool_threads, &o);
}

/* Opens every event; unsupported ones are marked and skipped. 0 or -1. */
static int open_events(struct stat_run *r)
{
	struct cli_open_trace trace = {
		r->cfg->verbose, r->cpus, r->threads, PERF_FLAG_FD_CLOEXEC |
		(r->cfg->cgroup ? PERF_FLAG_PID_CGROUP : 0), true };
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
		if (stat_is_tool(e))
			err = open_tool(r, e, &trace);
		else
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
	case AGGR_GLOBAL: return 0;
	case AGGR_THREAD: return ti;
	default: return r->cpu_unit[ci];
	}
}

/* Reads every open event into res[].cur (cumulative per unit). */
/* A tool event's value, as perf computes it: the elapsed time so far
 * (r->wall_ns), or the command's user or system time. */
static void read_tool(struct stat_run *r, struct pk_evsel *e,
		      struct pk_counts *u)
{
	double v = r->wall_ns;

	if (pk_evsel_tool(e) == PK_TOOL_USER_TIME)
		v = r->utime * 1e9;
	else if (pk_evsel_tool(e) == PK_TOOL_SYSTEM_TIME)
		v = r->stime * 1e9;
	u->val = (uint64_t)llround(v);
	u->ena = u->run = u->val;
}

static void read_counts(struct stat_run *r)
{
	int nc = pk_cpu_map_nr(r->cpus), nt = pk_thread_map_nr(r->threads);

	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct pk_evsel *e = pk_evlist_evsel(r->evlist, i);
		struct ev_res *res = &r->res[i];

		memset(res->cur, 0, sizeof(*res->cur) * (size_t)r->nr_units);
		if (res->status != EV_OK)
			continue;
		if (stat_is_tool(e)) {
			read_tool(r, e, &res->cur[unit_of(r, 0, 0)]);
			continue;
		}
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
static void print_interval(struct stat_run *r, double t0)
{
	r->wall_ns = now_ns() - t0;
	read_counts(r);
	subtract_prev(r, true);
	stat_print(r, r->wall_ns);
}

/* What ends a command that is still running when counting stops: the
 * signal that stopped perfkit, --timeout's SIGTERM, or (after
 * --interval-count intervals) nothing: the command is waited for. */
static void end_workload(struct workload *w, bool wait_only, int *status,
			 struct rusage *ru)
{
	if (!w || w->pid <= 0)
		return;
	if (!wait_only)
		kill(w->pid, got_signal ? got_signal : SIGTERM);
	workload_wait(w, status, ru, NULL);
	w->pid = -1;
}

/*
 * Waits for the end of counting: the child's exit, the targets' exit,
 * --timeout, --interval-count intervals or a signal, printing interval
 * deltas on the way when -I is given.
 */
static void wait_counting(struct stat_run *r, struct workload *w,
			  double t0, int *status, struct rusage *ru)
{
	const struct stat_cfg *c = r->cfg;
	int iv = c->interval_ms, printed = 0;
	double step = (iv ? iv : 100) * 1e6, next = t0 + step;
	double deadline = c->timeout_ms ? t0 + c->timeout_ms * 1e6 : INFINITY;
	bool done = false, counted_out = false;
	int pidfd = w && w->pid > 0 ? (int)syscall(SYS_pidfd_open, w->pid, 0) : -1;

	if (iv)
		stat_print_interval_header(r);
	while (!done) {
		sleep_until(next < deadline ? next : deadline, pidfd);
		done = child_done(w, status, ru) || got_signal ||
		       (!w && !targets_alive(r)) || now_ns() >= deadline;
		if (iv && (now_ns() >= next || done)) {
			print_interval(r, t0);
			counted_out = c->interval_count &&
				      ++printed >= c->interval_count;
			done |= counted_out;
		}
		while (now_ns() >= next)
			next += step;
	}
	if (pidfd >= 0)
		close(pidfd);
	end_workload(w, counted_out && !got_signal, status, ru);
}

static int map_cpu_units(struct stat_run *r);

static int alloc_results(struct stat_run *r)
{
	int n = pk_evlist_nr(r->evlist);

	switch (r->cfg->aggr) {
	case AGGR_GLOBAL: r->nr_units = 1; break;
	case AGGR_THREAD: r->nr_units = pk_thread_map_nr(r->threads); break;
	default:
		if (map_cpu_units(r))
			return -1;
		break;
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
	free(r->unit_topo);
	free(r->unit_cpus);
	free(r->cpu_unit);
	free(r->run_walls);
}

/* The id of CPU's unit under MODE: fields the mode ignores are -1. */
static struct pk_cpu_topo topo_key(enum aggr_mode mode, int cpu)
{
	struct pk_cpu_topo t = { 0 };

	pk_cpu_topo_read(cpu, &t);
	if (mode == AGGR_NODE)
		return (struct pk_cpu_topo){ -1, -1, -1, t.node };
	if (mode == AGGR_CPU)
		return (struct pk_cpu_topo){ -1, -1, cpu, -1 };
	t.node = -1;
	if (mode != AGGR_CORE)
		t.core = -1;
	if (mode == AGGR_SOCKET)
		t.die = -1;
	return t;
}

static int topo_cmp(const void *pa, const void *pb)
{
	const struct pk_cpu_topo *a = pa, *b = pb;

	if (a->socket != b->socket)
		return a->socket < b->socket ? -1 : 1;
	if (a->die != b->die)
		return a->die < b->die ? -1 : 1;
	if (a->core != b->core)
		return a->core < b->core ? -1 : 1;
	return a->node < b->node ? -1 : a->node > b->node;
}

/* -A, --per-core/die/socket/node: the units (sorted ids, as perf orders
 * them), each CPU's unit and each unit's number of CPUs. */
static int map_cpu_units(struct stat_run *r)
{
	int nc = pk_cpu_map_nr(r->cpus), nu = 0;
	struct pk_cpu_topo *keys = calloc((size_t)nc, sizeof(*keys));

	free(r->unit_topo);
	free(r->unit_cpus);
	free(r->cpu_unit);
	r->unit_topo = keys;
	r->unit_cpus = calloc((size_t)nc, sizeof(int));
	r->cpu_unit = calloc((size_t)nc, sizeof(int));
	if (!keys || !r->unit_cpus || !r->cpu_unit)
		return -1;
	for (int ci = 0; ci < nc; ci++) {
		struct pk_cpu_topo k = topo_key(r->cfg->aggr,
						pk_cpu_map_cpu(r->cpus, ci));
		int u = 0;

		while (u < nu && topo_cmp(&keys[u], &k))
			u++;
		if (u == nu)
			keys[nu++] = k;
	}
	qsort(keys, (size_t)nu, sizeof(*keys), topo_cmp);
	for (int ci = 0; ci < nc; ci++) {
		struct pk_cpu_topo k = topo_key(r->cfg->aggr,
						pk_cpu_map_cpu(r->cpus, ci));
		struct pk_cpu_topo *u = bsearch(&k, keys, (size_t)nu,
						sizeof(*keys), topo_cmp);

		r->cpu_unit[ci] = (int)(u - keys);
		r->unit_cpus[r->cpu_unit[ci]]++;
	}
	r->nr_units = nu;
	return 0;
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

/* --pre / --post: a shell command; its failure ends perfkit's run as
 * perf's does. */
static int run_hook(const char *cmd)
{
	int st;

	if (!cmd)
		return 0;
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		cli_error("stat", "command '%s' failed", cmd);
		return -1;
	}
	return 0;
}

static int start_workload(struct stat_run *r, struct workload *w)
{
	int err = workload_prepare(w, r->cfg->argv);

	if (err)
		cli_error("stat", "cannot start '%s': %s", r->cfg->argv[0],
			  strerror(-err));
	return err ? -1 : 0;
}

/* The command ended by a signal is named as perf names it (psignal). */
static void report_child_signal(const struct stat_cfg *c, int status)
{
	if (WIFSIGNALED(status))
		fprintf(stderr, "%s: %s\n", c->argv[0],
			strsignal(WTERMSIG(status)));
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
	double t0;

	if (run_hook(c->pre))
		return -1;
	if (c->sync)
		sync();
	if (c->argv) {
		if (start_workload(r, &w))
			return -1;
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
	if (!counts_workload(c) && !c->delay_ms)
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
	if (c->delay_ms > 0) {
		usleep((useconds_t)c->delay_ms * 1000);
		pk_evlist_enable(r->evlist);
	}
	wait_counting(r, wp, t0, &status, &ru);
	r->wall_ns = now_ns() - t0;
	pk_evlist_disable(r->evlist);
	r->have_rusage = counts_workload(c);
	r->utime = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	r->stime = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	read_counts(r);
	if (c->interval_ms)
		subtract_prev(r, false);
	if (wp)
		report_child_signal(c, status);
	ret = wp ? workload_exit_code(status) : 0;
out:
	if (wp && w.pid > 0)
		workload_abort(&w);
	pk_evlist_close(r->evlist);
	if (ret >= 0 && run_hook(c->post))
		ret = -1;
	return ret;
}

/* Where the results go: stderr, -o FILE (with perf's "# started on"
 * line), --log-fd FD; NULL with --quiet. 0 or -1 (reported). */
static int open_output(struct stat_run *r)
{
	const struct stat_cfg *c = r->cfg;
	const char *mode = c->append ? "a" : "w";
	time_t now;

	r->out = stderr;
	if (c->quiet) {
		r->out = NULL;
		return 0;
	}
	if (c->log_fd > 0) {
		r->out = fdopen(c->log_fd, mode);
		if (!r->out)
			cli_error("stat", "--log-fd %d: %s", c->log_fd,
				  strerror(errno));
		return r->out ? 0 : -1;
	}
	if (!c->output || !strcmp(c->output, "-"))
		return 0;
	r->out = fopen(c->output, mode);
	if (!r->out) {
		cli_error("stat", "cannot write '%s': %s", c->output,
			  strerror(errno));
		return -1;
	}
	if (!c->json) {
		time(&now);
		fprintf(r->out, "# started on %s\n", ctime(&now));
	}
	return 0;
}

static bool stop_runs(const struct stat_run *r)
{
	return got_signal || (!r->cfg->forever && r->run_idx >= r->cfg->repeat);
}

static int run_all(struct stat_run *r)
{
	const struct stat_cfg *c = r->cfg;
	int ret = 0;

	if (c->table && !(r->run_walls = calloc((size_t)c->repeat, sizeof(double))))
		return -1;
	for (r->run_idx = 0; !stop_runs(r); r->run_idx++) {
		if (c->repeat > 1 && c->verbose && r->out)
			fprintf(r->out, "[ perf stat: executing run #%d ... ]\n",
				r->run_idx + 1);
		ret = run_once(r);
		if (ret < 0)
			return ret;
		add_run_stats(r);
		if (r->run_walls)
			r->run_walls[r->run_idx] = r->wall_ns / 1e9;
		if (c->forever && !c->interval_ms && r->out) {
			stat_print(r, -1);
			memset(&r->wall_runs, 0, sizeof(r->wall_runs));
			for (int i = 0; i < pk_evlist_nr(r->evlist); i++)
				memset(&r->res[i].runs, 0, sizeof(r->res[i].runs));
		}
	}
	return ret;
}

/* --summary after -I: the whole run's counts, every interval added. */
static void sum_intervals(struct stat_run *r)
{
	for (int i = 0; i < pk_evlist_nr(r->evlist); i++) {
		struct ev_res *res = &r->res[i];

		for (int u = 0; u < r->nr_units; u++) {
			res->cur[u].val += res->prev[u].val;
			res->cur[u].ena += res->prev[u].ena;
			res->cur[u].run += res->prev[u].run;
		}
	}
}

int cmd_stat(int argc, char **argv)
{
	struct stat_cfg cfg = { 0 };
	struct stat_run run = { .cfg = &cfg };
	int ret = 0;

	cfg.events = calloc((size_t)argc + 1, sizeof(char *));
	cfg.filters = calloc((size_t)argc + 1, sizeof(char *));
	if (!cfg.events || !cfg.filters || stat_parse_args(&cfg, argc, argv)) {
		ret = 2;
		goto out;
	}
	cli_verbose = cfg.verbose;
	if (open_output(&run)) {
		ret = 2;
		goto out;
	}
	run.evlist = build_evlist(&cfg);
	if (!run.evlist) {
		ret = 2;
		goto out;
	}
	config_attrs(&cfg, run.evlist);
	workload_catch_signals(on_signal, on_child);
	ret = run_all(&run);
	if (ret >= 0 && !cfg.forever && run.out &&
	    (!cfg.interval_ms || cfg.summary)) {
		if (cfg.interval_ms)
			sum_intervals(&run);
		run.summary = cfg.interval_ms != 0;
		stat_print(&run, -1);
	}
	if (ret < 0)
		ret = 1;
out:
	free_results(&run);
	pk_evlist_free(run.evlist);
	pk_cpu_map_put(run.cpus);
	pk_thread_map_put(run.threads);
	pk_cpu_map_put(run.tool_cpus);
	pk_thread_map_put(run.tool_threads);
	if (run.out && run.out != stderr)
		fclose(run.out);
	free(cfg.events);
	free(cfg.filters);
	return ret;
}
