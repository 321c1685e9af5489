/* SPDX-License-Identifier: MIT */
/* perfkit ftrace record / reset. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "cli.h"
#include "workload.h"

volatile sig_atomic_t cli_ftrace_sig;
static volatile sig_atomic_t last_sig, nr_sigs;
static sig_atomic_t nr_passed;
static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_STOP_SIGS (int)(sizeof(stop_sigs) / sizeof(stop_sigs[0]))

/* Every stop signal only asks for the same orderly end: the first one is
 * kept (the exit status), each one is counted (passed on to a command). */
static void on_sig(int sig)
{
	if (!cli_ftrace_sig)
		cli_ftrace_sig = sig;
	last_sig = sig;
	nr_sigs++;
}

static void stop_set(sigset_t *s)
{
	sigemptyset(s);
	for (int i = 0; i < NR_STOP_SIGS; i++)
		sigaddset(s, stop_sigs[i]);
}

void cli_ftrace_catch_signals(void)
{
	/* SA_RESTART: a signal never cuts a write to stdout or the file */
	struct sigaction sa = { .sa_handler = on_sig, .sa_flags = SA_RESTART };

	stop_set(&sa.sa_mask);
	for (int i = 0; i < NR_STOP_SIGS; i++)
		sigaction(stop_sigs[i], &sa, NULL);
}

/* The stop signals not yet passed on go to PID (the newest one). */
static void pass_signals(pid_t pid)
{
	if (pid > 0 && nr_passed != nr_sigs) {
		nr_passed = nr_sigs;
		kill(pid, last_sig);
	}
}

/* pidfds of PIDS into FDS (-1: the process is gone, -2: no pidfd). */
static void open_pidfds(const int *pids, int n, struct pollfd *fds)
{
	for (int i = 0; i < n; i++) {
		int fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
		fds[i] = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (fd < 0)
			fds[i].fd = errno == ESRCH ? -1 : -2;
	}
}

/* True when CHILD ended (reaped into *STATUS) or cannot be waited for. */
static bool child_ended(pid_t child, int *status)
{
	pid_t w = waitpid(child, status, WNOHANG);

	return w == child || (w < 0 && errno != EINTR);
}

/* Marks the processes that ended (-1); true when none is left. */
static bool pids_gone(struct pollfd *fds, int n)
{
	bool all = true;

	for (int i = 0; i < n; i++) {
		if (fds[i].fd >= 0 && fds[i].revents) {
			close(fds[i].fd);
			fds[i].fd = -1;
		}
		all = all && fds[i].fd == -1;
	}
	return all;
}

int cli_ftrace_exit(int rc)
{
	return cli_ftrace_sig == SIGTERM || cli_ftrace_sig == SIGHUP
	       ? 128 + cli_ftrace_sig : rc;
}

int cli_ftrace_wait(pid_t *child, const int *pids, int nr_pids)
{
	struct pollfd fds[CLI_FTRACE_MAX_PIDS];
	int n = *child > 0 ? 1 : nr_pids, status = 0;
	struct timespec tick = { 0, 100000000 };
	sigset_t stop, old;

	/* the stop signals get in only inside ppoll: none is missed */
	stop_set(&stop);
	sigprocmask(SIG_BLOCK, &stop, &old);
	open_pidfds(*child > 0 ? child : pids, n, fds);
	for (;;) {
		pass_signals(*child);
		if (*child > 0 ? child_ended(*child, &status)
			       : cli_ftrace_sig || (n && pids_gone(fds, n)))
			break;
		/* a command without a pidfd is looked at every 100 ms */
		ppoll(fds, (nfds_t)n, *child > 0 && fds[0].fd < 0 ? &tick : NULL,
		      &old);
	}
	if (*child > 0)
		*child = 0;
	for (int i = 0; i < n; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return status;
}

static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: perfkit ftrace record [-e EVENT]... [-o FILE] [-b KB] "
		"[-C CPUS] [--clock C]\n"
		"         [-p PID]... [-a] [-t TRACER] [-l FUNC]... [-n FUNC]... "
		"[-g FUNC]... [-O [no]OPTION]...\n"
		"         [--top] [--tsc2nsec] [-z zstd|zlib|none] "
		"[-- COMMAND...]\n"
		"  -t  tracer (function, function_graph, ...): in the private "
		"instance when it\n"
		"      supports tracers, else in the top-level buffer\n"
		"  -l/-n  set_ftrace_filter / set_ftrace_notrace (globs, "
		"FUNC:mod:MOD, FUNC:CMD[:ARG])\n"
		"  -g  set_graph_function; -O  trace option; -a  every process, "
		"also with a command\n");
}

#define MAXL 256
/* Adds ARG to a NULL-terminated list of at most MAXL entries. */
static void add_list(const char **l, int *n, const char *arg)
{
	if (*n < MAXL - 1)
		l[(*n)++] = arg;
	l[*n] = NULL;
}

/* One clear line, before anything changes, for a tracer this kernel
 * lacks. 0 or 1. */
static int check_tracer(struct pk_tracefs *t, const char *tracer, bool graph)
{
	char *av = NULL;

	if (pk_tracefs_tracer_available(t, NULL, tracer) == 0) {
		if (pk_tracefs_read(t, NULL, "available_tracers", &av) >= 0)
			av[strcspn(av, "\n")] = 0;
		cli_error("ftrace record", "tracer '%s' is not in this kernel "
			  "(available_tracers: %s)", tracer, av ? av : "");
		free(av);
		return 1;
	}
	if (graph && !pk_tracefs_has(t, NULL, "set_graph_function")) {
		cli_error("ftrace record", "-g: no set_graph_function in this "
			  "kernel (no function_graph tracer)");
		return 1;
	}
	return 0;
}

int cmd_ftrace_record(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "clock", required_argument, NULL, 'k' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tracer", required_argument, NULL, 't' },
		{ "filter", required_argument, NULL, 'l' },
		{ "notrace", required_argument, NULL, 'n' },
		{ "graph", required_argument, NULL, 'g' },
		{ "option", required_argument, NULL, 'O' },
		{ "all", no_argument, NULL, 'a' },
		{ "tsc2nsec", no_argument, NULL, 'N' },
		{ "top", no_argument, NULL, 'T' },
		{ "top-level", no_argument, NULL, 'T' },
		{ "compression", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *filt[MAXL], *notr[MAXL], *graph[MAXL], *opts[MAXL];
	int nfilt = 0, nnotr = 0, ngraph = 0, nopts = 0;
	bool all = false;
	const char *events[256], *tracer = NULL;
	int nr_ev = 0, pids[CLI_FTRACE_MAX_PIDS], nr_pids = 0, cpus[1024], nr_cpus = 0, c;
	PK_OPTS(pk_ftrace_rec_opts, o, .output = "trace.dat");
	struct pk_tracefs *t;
	struct pk_ftrace_rec *r = NULL;
	int e, rc = 1, cmd_rc = -1;      /* the command's status */
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };

	optind = 1;
	while ((c = cli_getopt(argc, argv, "+e:o:b:C:p:t:z:l:n:g:O:ah", lo, NULL)) != -1) {
		switch (c) {
		case 'e':
			if (nr_ev < 255)
				events[nr_ev++] = optarg;
			break;
		case 'o': o.output = optarg; break;
		case 'b': o.buffer_kb = atoi(optarg); break;
		case 'C':
			nr_cpus = cli_parse_cpus(optarg, cpus, 1024, nr_cpus);
			if (nr_cpus < 0)
				goto bad;
			break;
		case 'k': o.clock = optarg; break;
		case 'p':
			nr_pids = cli_parse_pids("ftrace record", optarg, pids,
						 CLI_FTRACE_MAX_PIDS - 1, nr_pids);
			if (nr_pids < 0)
				return 2;
			break;
		case 't': tracer = optarg; break;
		case 'l': add_list(filt, &nfilt, optarg); break;
		case 'n': add_list(notr, &nnotr, optarg); break;
		case 'g': add_list(graph, &ngraph, optarg); break;
		case 'O': add_list(opts, &nopts, optarg); break;
		case 'a': all = true; break;
		case 'N': o.tsc2nsec = true; break;
		case 'T': o.top_level = true; break;
		case 'z': o.compression = optarg; break;
		case 'h': record_usage(stdout); return 0;
		default:
		bad:
			record_usage(stderr);
			return 2;
		}
	}
	events[nr_ev] = NULL;
	if (!nr_ev && !tracer && !nfilt && !nnotr && !ngraph) {
		cli_error("ftrace record", "nothing to record: give -e EVENT "
			  "or -t TRACER");
		return 2;
	}
	if ((e = pk_tracefs_open(&t)) < 0) {
		cli_error("ftrace record", "tracefs: %s", pk_strerror(e));
		return 1;
	}
	cli_ftrace_catch_signals();
	if ((nfilt || nnotr || ngraph) && !tracer)
		tracer = ngraph ? "function_graph" : "function";
	if (tracer && (e = check_tracer(t, tracer, ngraph > 0)))
		goto out;
	if (optind < argc) {
		if ((e = workload_prepare(&w, argv + optind)) < 0) {
			cli_error("ftrace record", "fork: %s", strerror(-e));
			goto out;
		}
		if (!all) {     /* only the command and its children */
			pids[nr_pids++] = w.pid;
			o.follow_fork = true;
		}
	}
	o.events = events;
	o.tracer = tracer;
	o.filters = nfilt ? filt : NULL;
	o.notrace = nnotr ? notr : NULL;
	o.graph = ngraph ? graph : NULL;
	o.options = nopts ? opts : NULL;
	o.pids = nr_pids ? pids : NULL;
	o.nr_pids = nr_pids;
	o.cpus = nr_cpus ? cpus : NULL;
	o.nr_cpus = nr_cpus;
	if ((e = pk_ftrace_rec_new(t, &o, &r)) < 0) {
		if ((e == -EPERM || e == -EACCES) && tracer &&
		    pk_tracer_is_function(tracer))
			cli_error("ftrace record", "function tracer: not "
				  "permitted on this system (%s: EPERM from "
				  "tracefs; kernel lockdown or no dynamic "
				  "ftrace)", tracer);
		else if (e == -EOPNOTSUPP && o.tsc2nsec)
			cli_error("ftrace record", "--tsc2nsec: this system "
				  "gives no TSC to nanoseconds conversion (perf "
				  "mmap page without cap_user_time_zero: the "
				  "clock source is not a stable TSC)");
		else if (e == -ENOENT && tracer)
			cli_error("ftrace record", "tracer '%s' or an event "
				  "is not available here", tracer);
		else
			cli_error("ftrace record", "%s", pk_strerror(e));
		goto out;
	}
	if (tracer && pk_ftrace_rec_top_level(r) && !o.top_level)
		fprintf(stderr, "perfkit ftrace record: tracer %s: instances "
			"have no tracers on this kernel, recording in the "
			"top-level buffer\n", tracer);
	if ((e = pk_ftrace_rec_start(r)) < 0) {
		cli_error("ftrace record", "start: %s", pk_strerror(e));
		goto out;
	}
	if (w.go_fd < 0) {
		cli_ftrace_wait(&w.pid, pids, nr_pids);
	} else if (cli_ftrace_sig) {     /* stopped before the command ran */
		workload_abort(&w);
		cmd_rc = 128 + cli_ftrace_sig;
	} else if ((e = workload_go(&w)) < 0) {
		/* the command could not run (reaped): nothing to wait for */
		cli_error("ftrace record", "cannot run %s: %s", argv[optind],
			  strerror(-e));
		cmd_rc = 127;
	} else {
		cmd_rc = workload_exit_code(cli_ftrace_wait(&w.pid, NULL, 0));
	}
	w.pid = 0;
	if ((e = pk_ftrace_rec_stop(r)) < 0)
		cli_error("ftrace record", "reading the buffers: %s",
			  pk_strerror(e));
	if ((e = pk_ftrace_rec_write(r)) < 0) {
		cli_error("ftrace record", "writing %s: %s", o.output,
			  pk_strerror(e));
		goto out;
	}
	unsigned long long tot = 0, lost = 0;
	for (int i = 0; i < pk_ftrace_rec_nr_cpus(r); i++) {
		struct pk_ftrace_cpu_result res;
		pk_ftrace_rec_result(r, i, &res);
		tot += res.events;
		lost += res.lost;
		printf("CPU %d: %llu events, %llu overruns, %llu lost%s\n",
		       res.cpu, (unsigned long long)res.events,
		       (unsigned long long)res.overruns,
		       (unsigned long long)res.lost,
		       res.lost_unknown ? " (and an unknown number more)" : "");
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);   /* the recorder, not the workload */
	printf("total: %llu events, %llu lost; recorder CPU %.3f s\n", tot, lost,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	rc = cmd_rc >= 0 ? cmd_rc : 0;
out:
	workload_abort(&w);
	pk_ftrace_rec_free(r);
	pk_tracefs_close(t);
	fflush(stdout);
	return cmd_rc < 0 ? cli_ftrace_exit(rc) : rc;
}

int cmd_ftrace_reset(int argc, char **argv)
{
	struct pk_tracefs *t;
	int e;

	if (argc > 1) {
		bool help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");
		fputs("usage: perfkit ftrace reset\n  removes instances left by killed perfkit runs\n", help ? stdout : stderr);
		return help ? 0 : 2;
	}
	if ((e = pk_tracefs_open(&t)) < 0) {
		cli_error("ftrace reset", "tracefs: %s", pk_strerror(e));
		return 1;
	}
	e = pk_tracefs_reset_stale(t);
	pk_tracefs_close(t);
	if (e < 0) {
		cli_error("ftrace reset", "%s", pk_strerror(e));
		return 1;
	}
	printf("removed %d leftover perfkit instance%s\n", e, e == 1 ? "" : "s");
	return 0;
}

int cmd_ftrace_extract(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "instance", required_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		{ "compression", required_argument, NULL, 'z' },
		{ NULL, 0, NULL, 0 },
	};
	const char *inst = NULL, *outp = "trace.dat", *comp = NULL;
	struct pk_ftrace_rec *r;
	struct pk_tracefs *t;
	int c, e;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "B:o:z:h", lo, NULL)) != -1) {
		switch (c) {
		case 'B': inst = optarg; break;
		case 'o': outp = optarg; break;
		case 'z': comp = optarg; break;
		case 'h':
		default:
			fprintf(c == 'h' ? stdout : stderr, "usage: perfkit ftrace "
				"extract [--instance NAME] [-o FILE] "
				"[-z zstd|zlib|none]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if ((e = pk_tracefs_open(&t)) < 0) {
		cli_error("ftrace extract", "tracefs: %s", pk_strerror(e));
		return 1;
	}
	e = pk_ftrace_extract(t, inst, outp, comp, &r);
	if (!e)
		e = pk_ftrace_rec_write(r);
	if (e) {
		cli_error("ftrace extract", "%s: %s", outp, pk_strerror(e));
	} else {
		for (int i = 0; i < pk_ftrace_rec_nr_cpus(r); i++) {
			struct pk_ftrace_cpu_result res;
			pk_ftrace_rec_result(r, i, &res);
			printf("CPU %d: %llu events, %llu overruns, %llu lost\n",
			       res.cpu, (unsigned long long)res.events,
			       (unsigned long long)res.overruns,
			       (unsigned long long)res.lost);
		}
	}
	pk_ftrace_rec_free(r);
	pk_tracefs_close(t);
	return e ? 1 : 0;
}

/* One "name: value" line per file of INSTANCE (missing files skipped). */
static void show_files(struct pk_tracefs *t, const char *inst)
{
	static const char *const files[] = {
		"current_tracer", "tracing_on", "trace_clock", "buffer_size_kb",
		"buffer_total_size_kb", "tracing_cpumask", "set_event",
		"set_event_pid", "set_ftrace_pid", "set_ftrace_filter",
		"set_ftrace_notrace", "set_graph_function", "set_graph_notrace",
		"max_graph_depth", "tracing_thresh", "tracing_max_latency",
		"buffer_percent", "stack_max_size", "function_profile_enabled",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *s;
		if (pk_tracefs_read(t, inst, files[i], &s) < 0)
			continue;
		/* one line: join list files, drop comments */
		char *w = s;
		for (char *p = s; *p; p++)
			*w++ = *p == '\n' ? ' ' : *p;
		*w = 0;
		while (w > s && w[-1] == ' ')
			*--w = 0;
		if (!strncmp(s, "#### all functions enabled ####", 31))
			s[0] = 0;
		printf("%s%s%s: %s\n", inst ? inst : "", inst ? "/" : "",
		       files[i], s);
		free(s);
	}
}

int cmd_ftrace_show(int argc, char **argv)
{
	struct pk_tracefs *t;
	int e;

	if (argc > 1) {
		bool help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");
		fputs("usage: perfkit ftrace show\n  prints the current tracefs state\n", help ? stdout : stderr);
		return help ? 0 : 2;
	}
	if ((e = pk_tracefs_open(&t)) < 0) {
		cli_error("ftrace show", "tracefs: %s", pk_strerror(e));
		return 1;
	}
	printf("tracefs: %s\n", pk_tracefs_dir(t));
	show_files(t, NULL);
	char path[4096];
	struct dirent **d;
	pk_tracefs_path(t, NULL, "instances", path, sizeof(path));
	int n = scandir(path, &d, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (d[i]->d_name[0] != '.') {
			printf("instance: %s\n", d[i]->d_name);
			show_files(t, d[i]->d_name);
		}
		free(d[i]);
	}
	if (n >= 0)
		free(d);
	pk_tracefs_close(t);
	return 0;
}
