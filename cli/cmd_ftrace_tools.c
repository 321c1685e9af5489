/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace snapshot / stack / profile: the snapshot buffer, the
 * stack tracer and the function profiler, each around an optional command.
 * Everything changed is put back at the end (and on SIGTERM/SIGHUP).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "cli.h"
#include "workload.h"

static void no_op(int sig) { (void)sig; }

/* Runs ARGV to its end (cli/workload.c); SIGINT ends the command, not us.
 * Without a command, waits for SIGINT. 0 or -errno. */
static int run_cmd(char **argv)
{
	struct sigaction sa = { .sa_handler = no_op }, old;
	struct workload w;
	int status, e;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	if (!argv || !argv[0]) {
		pause();
		e = 0;
	} else if (!(e = workload_prepare(&w, argv)) && !(e = workload_go(&w))) {
		e = workload_wait(&w, &status, NULL, NULL);
	}
	sigaction(SIGINT, &old, NULL);
	if (e)
		cli_error("ftrace", "cannot run %s: %s", argv[0],
			  pk_strerror(e));
	return e;
}

static struct pk_tracefs *open_tfs(const char *cmd)
{
	struct pk_tracefs *t;
	int e = pk_tracefs_open(&t);

	if (e < 0) {
		cli_error(cmd, "tracefs: %s", pk_strerror(e));
		return NULL;
	}
	pk_tracefs_restore_on_signals(t);
	return t;
}

static int feature_error(const char *cmd, const char *what, int e)
{
	if (e == -EOPNOTSUPP)
		cli_error(cmd, "%s: not in this kernel", what);
	else if (e == -EPERM || e == -EACCES)
		cli_error(cmd, "%s: not permitted on this system (EPERM)", what);
	else
		cli_error(cmd, "%s: %s", what, pk_strerror(e));
	return 1;
}

static int print_file(struct pk_tracefs *t, const char *inst,
		      const char *file)
{
	char *s;
	long n = pk_tracefs_read(t, inst, file, &s);

	if (n < 0)
		return (int)n;
	fwrite(s, 1, (size_t)n, stdout);
	free(s);
	return 0;
}

int cmd_ftrace_snapshot(int argc, char **argv)
{
	static const char *const C = "ftrace snapshot";
	const char *inst = NULL, *op = "show";
	struct pk_tracefs *t;
	int e = 0;

	for (int i = 1; i < argc; i++) {
		if ((!strcmp(argv[i], "-B") || !strcmp(argv[i], "--instance")) &&
		    i + 1 < argc)
			inst = argv[++i];
		else if (!strcmp(argv[i], "take") || !strcmp(argv[i], "show") ||
			 !strcmp(argv[i], "clear") || !strcmp(argv[i], "free"))
			op = argv[i];
		else {
			bool help = !strcmp(argv[i], "-h") ||
				    !strcmp(argv[i], "--help");
			fprintf(help ? stdout : stderr, "usage: perfkit ftrace snapshot "
				"[take|show|clear|free] [--instance NAME]\n"
				"  take: swap the buffer into the snapshot and "
				"print it (a snapshot buffer\n"
				"  allocated for it is freed again at the end)\n");
			return help ? 0 : 2;
		}
	}
	if (!(t = open_tfs(C)))
		return 1;
	if (!strcmp(op, "take"))
		e = pk_tracefs_snapshot(t, inst, PK_SNAPSHOT_TAKE);
	else if (!strcmp(op, "clear"))
		e = pk_tracefs_snapshot(t, inst, PK_SNAPSHOT_CLEAR);
	else if (!strcmp(op, "free"))
		e = pk_tracefs_snapshot(t, inst, PK_SNAPSHOT_FREE);
	else if (!pk_tracefs_has(t, inst, "snapshot"))
		e = -EOPNOTSUPP;
	if (!e && (!strcmp(op, "take") || !strcmp(op, "show")))
		e = print_file(t, inst, "snapshot");
	fflush(stdout);
	pk_tracefs_close(t);
	return e ? feature_error(C, e == -EBUSY ? "snapshot (busy: a latency "
				 "tracer owns it)" : "snapshot", e) : 0;
}

int cmd_ftrace_stack(int argc, char **argv)
{
	static const char *const C = "ftrace stack";
	static const char *filt[64];
	int nf = 0, c, e;
	struct pk_tracefs *t;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "+l:h", NULL, NULL)) != -1) {
		if (c == 'l' && nf < 63) {
			filt[nf++] = optarg;
			continue;
		}
		fprintf(c == 'h' ? stdout : stderr, "usage: perfkit ftrace "
			"stack [-l FUNC]... [-- COMMAND...]\n"
			"  without a command: the stack tracer's current "
			"maximum; with one: its maximum\n"
			"  while the command runs (stack_trace_filter from "
			"-l)\n");
		return c == 'h' ? 0 : 2;
	}
	if (!(t = open_tfs(C)))
		return 1;
	if (!pk_tracefs_has(t, NULL, "stack_trace")) {
		pk_tracefs_close(t);
		return feature_error(C, "stack tracer (no stack_trace file: "
				     "CONFIG_STACK_TRACER)", -EOPNOTSUPP);
	}
	e = 0;
	if (optind < argc) {
		for (int i = 0; !e && i < nf; i++) {
			e = pk_tracefs_func_add(t, NULL, PK_FT_STACK_FILTER,
						filt[i]);
			if (e == -EINVAL || e == -ENOENT) {
				cli_error(C, "-l '%s': no such function",
					  filt[i]);
				pk_tracefs_close(t);
				return 1;
			}
		}
		if (!e)
			e = pk_tracefs_write_u64(t, NULL, "stack_max_size", 0);
		if (!e)
			e = pk_tracefs_stack_tracer(t, true);
		if (!e && run_cmd(argv + optind)) {
			pk_tracefs_close(t);
			return 1;
		}
	}
	uint64_t max = 0;
	if (!e && !(e = pk_tracefs_read_u64(t, NULL, "stack_max_size", &max))) {
		printf("max stack: %llu bytes\n", (unsigned long long)max);
		e = print_file(t, NULL, "stack_trace");
	}
	fflush(stdout);
	pk_tracefs_close(t);
	return e ? feature_error(C, "stack tracer", e) : 0;
}

int cmd_ftrace_profile(int argc, char **argv)
{
	static const char *const C = "ftrace profile";
	static const char *filt[64];
	int nf = 0, c, e = 0;
	bool graph = false;
	struct pk_tracefs *t;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "+l:gh", NULL, NULL)) != -1) {
		if (c == 'l' && nf < 63) {
			filt[nf++] = optarg;
			continue;
		}
		if (c == 'g') {
			graph = true;
			continue;
		}
		fprintf(c == 'h' ? stdout : stderr, "usage: perfkit ftrace "
			"profile [-l FUNC]... [-g] [-- COMMAND...]\n"
			"  runs the function profiler around COMMAND (or until "
			"SIGINT) and prints\n"
			"  trace_stat/function* merged across CPUs; -l limits "
			"it (set_ftrace_filter),\n"
			"  -g sets the function_graph tracer for times\n");
		return c == 'h' ? 0 : 2;
	}
	if (!(t = open_tfs(C)))
		return 1;
	if (!pk_tracefs_has(t, NULL, "function_profile_enabled")) {
		pk_tracefs_close(t);
		return feature_error(C, "function profiler (no "
				     "function_profile_enabled file: "
				     "CONFIG_FUNCTION_PROFILER)", -EOPNOTSUPP);
	}
	for (int i = 0; !e && i < nf; i++) {
		e = pk_tracefs_func_add(t, NULL, PK_FT_FILTER, filt[i]);
		if (e == -EINVAL || e == -ENOENT) {
			cli_error(C, "-l '%s': no such function", filt[i]);
			pk_tracefs_close(t);
			return 1;
		}
	}
	if (!e && graph) {
		e = pk_tracefs_tracer(t, NULL, "function_graph");
		if (e == -ENOENT || e == -EOPNOTSUPP) {
			pk_tracefs_close(t);
			return feature_error(C, "-g: function_graph tracer",
					     -EOPNOTSUPP);
		}
	}
	if (!e)
		e = pk_tracefs_profiler(t, true);
	if (!e && run_cmd(argv + optind)) {
		pk_tracefs_close(t);
		return 1;
	}
	struct pk_func_profile *p = NULL;
	bool has_time = false;
	int n = e ? e : pk_tracefs_profile_read(t, NULL, &p, &has_time);
	if (n >= 0) {
		if (n == 0)
			printf("no functions profiled\n");
		else
			cli_ftrace_print_profile(stdout, p, n, has_time);
	}
	free(p);
	fflush(stdout);
	pk_tracefs_close(t);
	return n < 0 ? feature_error(C, "function profiler", n) : 0;
}
