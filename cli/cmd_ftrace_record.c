/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace record (events and tracers into a trace.dat file, around
 * a command or until a stop signal), start (trace-cmd start: record's
 * set-up in the top level, kept, nothing read) and state (the tracefs
 * state).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "cli.h"
#include "ftrace_opts.h"
#include "workload.h"

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

/* start: trace-cmd's "disable all tracing" on the buffers it sets up
 * (the top level, then the -B ones, the last first). 0 or -errno. */
static int start_disable(struct pk_tracefs *t, const struct cli_ftrace_opts *f)
{
	const char **b = calloc((size_t)f->nr_bufs + 1, sizeof(*b));
	int e;

	if (!b)
		return -ENOMEM;
	for (int i = 0; i < f->nr_bufs; i++)
		b[i + 1] = f->bufs[f->nr_bufs - 1 - i].name;
	e = pk_tracefs_disable_all(t, b, f->nr_bufs + 1, true);
	free(b);
	return e;
}

/* The recorded buffers' per-CPU lines and the total (not with -q). */
static void print_results(const struct pk_ftrace_rec *r, bool quiet)
{
	unsigned long long tot = 0, lost = 0;
	for (int b = 0; b < pk_ftrace_rec_nr_buffers(r); b++) {
		struct pk_ftrace_cpu_result res;
		if (b && !quiet)
			printf("Buffer: %s\n", pk_ftrace_rec_buffer_name(r, b));
		for (int i = 0; !pk_ftrace_rec_buffer_result(r, b, i, &res);
		     i++) {
			tot += res.events;
			lost += res.lost;
			if (quiet)
				continue;
			printf("CPU %d: %llu events, %llu overruns, %llu lost%s\n",
			       res.cpu, (unsigned long long)res.events,
			       (unsigned long long)res.overruns,
			       (unsigned long long)res.lost, res.lost_unknown
			       ? " (and an unknown number more)" : "");
		}
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);   /* the recorder, not the workload */
	if (!quiet)
		printf("total: %llu events, %llu lost; recorder CPU %.3f s\n",
		       tot, lost, ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
}

/* start's command W (none: nothing to do): run, and waited for unless
 * --fork. The exit status (the command's). */
static int start_command(struct workload *w, const struct cli_ftrace_opts *f,
			 const char *C)
{
	int e;

	if (w->go_fd < 0)
		return 0;
	if ((e = workload_go(w)) < 0) {
		cli_error(C, "cannot run %s: %s", f->args[0], strerror(-e));
		w->pid = 0;
		return 127;
	}
	if (f->fork) {          /* it runs on without us */
		w->pid = 0;
		return 0;
	}
	e = workload_exit_code(cli_wait_stop(&w->pid, NULL));
	w->pid = 0;
	return e;
}

/* ftrace record, or start (CMD CLI_FT_START: the set-up alone, in the
 * top level, kept). The exit status. */
static int record(int argc, char **argv, enum cli_ft_cmd cmd)
{
	PK_OPTS(pk_ftrace_rec_opts, o, .output = "trace.dat");
	const bool start = cmd == CLI_FT_START;
	const char *C = start ? "ftrace start" : "ftrace record";
	struct cli_ftrace_opts f;
	struct pk_tracefs *t = NULL;
	struct pk_ftrace_rec *r = NULL;
	int e, rc = 1, cmd_rc = -1;      /* the command's status */
	struct workload w = { .pid = 0, .go_fd = -1, .err_fd = -1 };
	const char *tracer;

	if (!cli_ftrace_opts_parse(&f, cmd, C, argc, argv, &rc))
		goto out;
	if (!cli_ftrace_opts_has_events(&f) && !f.tracer && !f.filters.n &&
	    !f.notrace.n && !f.graph.n && !f.dynevents.n) {
		cli_error(C, "nothing to %s: give -e EVENT or -t TRACER",
			  start ? "start" : "record");
		rc = 2;
		goto out;
	}
	if (f.only_cmd && !f.nr_args) {
		cli_error(C, "-F: no command to trace");
		rc = 2;
		goto out;
	}
	if (!(t = pk_tracefs_open())) {
		e = -errno;
		cli_error(C, "tracefs: %s", pk_strerror(e));
		goto out;
	}
	cli_catch_stop_orderly();
	if ((f.filters.n || f.notrace.n || f.graph.n) && !f.tracer)
		f.tracer = f.graph.n ? "function_graph" : "function";
	tracer = f.tracer;
	if (tracer && (e = check_tracer(t, tracer, f.graph.n > 0)))
		goto out;
	if (f.nr_args && (e = workload_prepare(&w, f.args)) < 0) {
		cli_error(C, "fork: %s", strerror(-e));
		goto out;
	}
	/* -a: every process, also with a command */
	if ((e = cli_ftrace_opts_rec(&f, f.all ? 0 : w.pid, &o)) < 0) {
		cli_error(C, "%s", pk_strerror(e));
		goto out;
	}
	if (start) {    /* trace-cmd start: the top level, nothing read */
		o.top_level = true;
		o.no_readers = true;
		o.copy_marker = false;
		if ((e = start_disable(t, &f)) < 0) {
			cli_error(C, "%s", pk_strerror(e));
			goto out;
		}
	}
	if (!(r = pk_ftrace_rec_new(t, &o))) {
		e = -errno;
		if ((e == -EPERM || e == -EACCES) && tracer &&
		    pk_tracer_is_function(tracer))
			cli_error(C, "function tracer: not "
				  "permitted on this system (%s: EPERM from "
				  "tracefs; kernel lockdown or no dynamic "
				  "ftrace)", tracer);
		else if (e == -EOPNOTSUPP && o.tsc2nsec)
			cli_error(C, "--tsc2nsec: this system "
				  "gives no TSC to nanoseconds conversion (perf "
				  "mmap page without cap_user_time_zero: the "
				  "clock source is not a stable TSC)");
		else if (e == -EINVAL && f.nr_bufs)
			cli_error(C, "-B: bad or repeated instance "
				  "name");
		else if (e == -ENOENT && tracer)
			cli_error(C, "tracer '%s' or an event "
				  "is not available here", tracer);
		else
			cli_error(C, "%s", pk_strerror(e));
		goto out;
	}
	/* latency tracers and hwlat trace in the top level anyway */
	if (tracer && pk_ftrace_rec_top_level(r) && !o.top_level &&
	    !pk_tracer_is_latency(tracer) && strcmp(tracer, "hwlat"))
		cli_error(C, "tracer %s: instances have no "
			  "tracers on this kernel, recording in the top-level "
			  "buffer", tracer);
	if ((e = pk_ftrace_rec_start(r)) < 0) {
		cli_error(C, "start: %s", pk_strerror(e));
		goto out;
	}
	if (start) {
		rc = start_command(&w, &f, C);
		goto out;
	}
	if (w.go_fd < 0) {
		cli_wait_stop(&w.pid, f.pids);
	} else if (cli_stop_sig) {     /* stopped before the command ran */
		workload_abort(&w);
		cmd_rc = 128 + cli_stop_sig;
	} else if ((e = workload_go(&w)) < 0) {
		/* the command could not run (reaped): nothing to wait for */
		cli_error(C, "cannot run %s: %s", f.args[0],
			  strerror(-e));
		cmd_rc = 127;
	} else {
		cmd_rc = workload_exit_code(cli_wait_stop(&w.pid, NULL));
	}
	w.pid = 0;
	if ((e = pk_ftrace_rec_stop(r)) < 0)
		cli_error(C, "reading the buffers: %s",
			  pk_strerror(e));
	if ((e = pk_ftrace_rec_write(r)) < 0) {
		cli_error(C, "writing %s: %s", o.output,
			  pk_strerror(e));
		goto out;
	}
	print_results(r, f.quiet);
	rc = cmd_rc >= 0 ? cmd_rc : 0;
out:
	workload_abort(&w);
	if (r && (f.keep || start))  /* -k: settings and instances stay */
		pk_tracefs_keep(t);
	pk_ftrace_rec_free(r);
	pk_tracefs_free(t);
	cli_ftrace_opts_fini(&f);
	fflush(stdout);
	return cmd_rc < 0 ? cli_stop_exit(rc) : rc;
}

int cmd_ftrace_record(int argc, char **argv)
{
	return record(argc, argv, CLI_FT_RECORD);
}

int cmd_ftrace_start(int argc, char **argv)
{
	return record(argc, argv, CLI_FT_START);
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
		"set_event_notrace_pid", "set_ftrace_notrace_pid",
		"buffer_subbuf_size_kb", "options/disable_on_free",
		"options/record-tgid",
	};
	char mode[32];
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
	if (!pk_tracefs_timestamp_mode(t, inst, mode, sizeof(mode)))
		printf("%s%stimestamp_mode: %s\n", inst ? inst : "",
		       inst ? "/" : "", mode);
}

/* The top level's dynamic ftrace totals and, with FUNCS, each function
 * of enabled_functions and touched_functions. */
static void show_functions(struct pk_tracefs *t, bool funcs)
{
	struct pk_dyn_ftrace_total tot;
	struct pk_ftrace_func_rec *v;
	int n;

	if (!pk_tracefs_dyn_ftrace_total(t, &tot))
		printf("dyn_ftrace_total_info: %lu functions, %lu pages, "
		       "%lu groups\n", tot.functions, tot.pages, tot.groups);
	for (int k = 0; funcs && k < 2; k++) {
		const char *f = k ? "touched_functions" : "enabled_functions";
		if ((n = pk_tracefs_func_records(t, k, &v)) < 0) {
			printf("%s: (%s)\n", f, pk_strerror(n));
			continue;
		}
		printf("%s: %d\n", f, n);
		for (int i = 0; i < n; i++)
			printf("  %s (%ld)%s%s%s%s\n", v[i].name, v[i].count,
			       *v[i].flags ? " " : "", v[i].flags,
			       *v[i].extra ? " " : "", v[i].extra);
		free(v);
	}
}

int cmd_ftrace_state(int argc, char **argv)
{
	struct pk_tracefs *t;
	int e;

	bool funcs = argc == 2 && !strcmp(argv[1], "--functions");

	if (argc > 1 && !funcs) {
		bool help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");
		fputs("usage: perfkit ftrace state [--functions]\n"
		      "  prints the current tracefs state (was ftrace show); "
		      "--functions: also\n  enabled_functions and "
		      "touched_functions, one function a line\n",
		      help ? stdout : stderr);
		return help ? 0 : 2;
	}
	if (!(t = pk_tracefs_open())) {
		e = -errno;
		cli_error("ftrace state", "tracefs: %s", pk_strerror(e));
		return 1;
	}
	printf("tracefs: %s\n", pk_tracefs_dir(t));
	show_files(t, NULL);
	show_functions(t, funcs);
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
	pk_tracefs_free(t);
	return 0;
}
