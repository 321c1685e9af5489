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
#include "ftrace_opts.h"
#include "workload.h"

static void no_op(int sig) { (void)sig; }

/* Runs ARGV to its end (cli/workload.c); SIGINT ends the command, not us.
 * Without a command, waits for SIGINT. 0 or -errno. */
int cli_ftrace_run_cmd(char **argv)
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
	struct pk_tracefs *t = pk_tracefs_open();

	if (!t) {
		cli_error(cmd, "tracefs: %s", pk_strerror(-errno));
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

/* The -l functions into the filter file WHICH; 0, 1 after the line
 * naming a function the kernel does not have, or -errno. */
static int add_filters(struct pk_tracefs *t, const char *C,
		       enum pk_ftrace_list which,
		       const struct cli_strv *l)
{
	int e = 0;

	for (int i = 0; !e && i < l->n; i++) {
		e = pk_tracefs_func_add(t, NULL, which, l->v[i]);
		if (e == -EINVAL || e == -ENOENT) {
			cli_error(C, "-l '%s': no such function", l->v[i]);
			return 1;
		}
	}
	return e;
}

/* The operation the words after the options name (the last one; "show"
 * without one), or NULL after the error line. */
static const char *snapshot_op(const char *C, const struct cli_ftrace_opts *f)
{
	static const char *const ops[] = { "take", "show", "clear", "free" };
	const char *op = "show";

	for (int i = 0; i < f->nr_args; i++) {
		size_t k = 0;
		while (k < 4 && strcmp(f->args[i], ops[k]))
			k++;
		if (k == 4) {
			cli_error(C, "unknown operation '%s' (take, show, "
				  "clear, free)", f->args[i]);
			return NULL;
		}
		op = ops[k];
	}
	return op;
}

/* ftrace snapshot --cpu CPU OP: that CPU's snapshot file. */
static int snapshot_cpu(struct pk_tracefs *t, const char *op,
			const char *inst, int cpu)
{
	char f[64];
	int e = 0;

	snprintf(f, sizeof(f), "per_cpu/cpu%d/snapshot", cpu);
	if (!strcmp(op, "take"))
		e = pk_tracefs_snapshot_cpu(t, inst, cpu, PK_SNAPSHOT_TAKE);
	else if (!strcmp(op, "clear"))
		e = pk_tracefs_snapshot_cpu(t, inst, cpu, PK_SNAPSHOT_CLEAR);
	else if (!strcmp(op, "free"))
		e = -EINVAL;
	else if (!pk_tracefs_has(t, inst, f))
		e = -EOPNOTSUPP;
	if (!e && (!strcmp(op, "take") || !strcmp(op, "show")))
		e = print_file(t, inst, f);
	return e;
}

/* ftrace snapshot OP on the buffer of INST (CPU >= 0: that CPU's file).
 * The exit status. */
static int snapshot(const char *C, const char *op, const char *inst, int cpu)
{
	struct pk_tracefs *t;
	int e = 0;

	if (!(t = open_tfs(C)))
		return 1;
	if (cpu >= 0)
		e = snapshot_cpu(t, op, inst, cpu);
	else if (!strcmp(op, "take"))
		e = pk_tracefs_snapshot(t, inst, PK_SNAPSHOT_TAKE);
	else if (!strcmp(op, "clear"))
		e = pk_tracefs_snapshot(t, inst, PK_SNAPSHOT_CLEAR);
	else if (!strcmp(op, "free"))
		e = pk_tracefs_snapshot(t, inst, PK_SNAPSHOT_FREE);
	else if (!pk_tracefs_has(t, inst, "snapshot"))
		e = -EOPNOTSUPP;
	if (!e && cpu < 0 && (!strcmp(op, "take") || !strcmp(op, "show")))
		e = print_file(t, inst, "snapshot");
	fflush(stdout);
	pk_tracefs_free(t);
	if (e == -EINVAL && cpu >= 0) {
		cli_error(C, "%s --cpu %d: refused (free takes no --cpu; a CPU's "
			  "swap needs CONFIG_RING_BUFFER_ALLOW_SWAP)", op, cpu);
		return 1;
	}
	return e ? feature_error(C, e == -EBUSY ? "snapshot (busy: a latency "
				 "tracer owns it)" : "snapshot", e) : 0;
}

int cmd_ftrace_snapshot(int argc, char **argv)
{
	static const char *const C = "ftrace snapshot";
	struct cli_ftrace_opts f;
	const char *op;
	int rc;

	if (cli_ftrace_opts_parse(&f, CLI_FT_SNAPSHOT, C, argc, argv, &rc))
		rc = (op = snapshot_op(C, &f)) ? snapshot(C, op, f.instance,
							  f.snap_cpu) : 2;
	cli_ftrace_opts_fini(&f);
	return rc;
}

/* ftrace free-buffer [--instance NAME] [--disable-on-free]: the buffer
 * shrunk as when a process holding free_buffer exits; with
 * --disable-on-free options/disable_on_free is on meanwhile (tracing
 * stops too) and put back after. The exit status. */
int cmd_ftrace_free_buffer(int argc, char **argv)
{
	static const char *const C = "ftrace free-buffer";
	static const struct option lo[] = {
		{ "instance", required_argument, NULL, 'B' },
		{ "disable-on-free", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char use[] = "usage: perfkit ftrace free-buffer "
		"[-B|--instance NAME] [--disable-on-free]\n";
	const char *inst = NULL;
	bool dis = false;
	struct pk_tracefs *t;
	int c, e;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+B:h", lo, NULL)) != -1) {
		if (c == 'B')
			inst = optarg;
		else if (c == 'd')
			dis = true;
		else {
			fputs(use, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind < argc) {
		cli_error(C, "unexpected argument '%s'", argv[optind]);
		return 2;
	}
	if (!(t = open_tfs(C)))
		return 1;
	e = dis ? pk_tracefs_option(t, inst, "disable_on_free", true) : 0;
	if (!e)
		e = pk_tracefs_free_buffer(t, inst);
	pk_tracefs_free(t);
	return e ? feature_error(C, "free_buffer", e) : 0;
}

/* ftrace stack with its options F. The exit status. */
static int stack(const char *C, const struct cli_ftrace_opts *f)
{
	struct pk_tracefs *t;
	uint64_t max = 0;
	int e = 0;

	if (!(t = open_tfs(C)))
		return 1;
	if (!pk_tracefs_has(t, NULL, "stack_trace")) {
		pk_tracefs_free(t);
		return feature_error(C, "stack tracer (no stack_trace file: "
				     "CONFIG_STACK_TRACER)", -EOPNOTSUPP);
	}
	if (f->nr_args) {
		if ((e = add_filters(t, C, PK_FT_STACK_FILTER, &f->filters)))
			goto out;
		e = pk_tracefs_write_u64(t, NULL, "stack_max_size", 0);
		if (!e)
			e = pk_tracefs_stack_tracer(t, true);
		if (!e && cli_ftrace_run_cmd(f->args)) {
			pk_tracefs_free(t);
			return 1;
		}
	}
	if (!e && !(e = pk_tracefs_read_u64(t, NULL, "stack_max_size", &max))) {
		printf("max stack: %llu bytes\n", (unsigned long long)max);
		e = print_file(t, NULL, "stack_trace");
	}
out:
	fflush(stdout);
	pk_tracefs_free(t);
	return e == 1 ? 1 : e ? feature_error(C, "stack tracer", e) : 0;
}

int cmd_ftrace_stack(int argc, char **argv)
{
	struct cli_ftrace_opts f;
	int rc;

	if (cli_ftrace_opts_parse(&f, CLI_FT_STACK, "ftrace stack", argc, argv,
				  &rc))
		rc = stack("ftrace stack", &f);
	cli_ftrace_opts_fini(&f);
	return rc;
}

/* ftrace profile with its options F. The exit status. */
static int profile(const char *C, const struct cli_ftrace_opts *f)
{
	struct pk_func_profile *p = NULL;
	bool has_time = false;
	struct pk_tracefs *t;
	int n, e;

	if (!(t = open_tfs(C)))
		return 1;
	if (!pk_tracefs_has(t, NULL, "function_profile_enabled")) {
		pk_tracefs_free(t);
		return feature_error(C, "function profiler (no "
				     "function_profile_enabled file: "
				     "CONFIG_FUNCTION_PROFILER)", -EOPNOTSUPP);
	}
	e = add_filters(t, C, PK_FT_FILTER, &f->filters);
	if (!e && f->graph_times) {
		e = pk_tracefs_tracer(t, NULL, "function_graph");
		if (e == -ENOENT || e == -EOPNOTSUPP) {
			pk_tracefs_free(t);
			return feature_error(C, "-g: function_graph tracer",
					     -EOPNOTSUPP);
		}
	}
	if (!e)
		e = pk_tracefs_profiler(t, true);
	if (e == 1 || (!e && cli_ftrace_run_cmd(f->args))) {
		pk_tracefs_free(t);
		return 1;
	}
	n = e ? e : pk_tracefs_profile_read(t, NULL, &p, &has_time);
	if (n == 0)
		printf("no functions profiled\n");
	else if (n > 0)
		cli_ftrace_print_profile(stdout, p, n, has_time);
	free(p);
	fflush(stdout);
	pk_tracefs_free(t);
	return n < 0 ? feature_error(C, "function profiler", n) : 0;
}

int cmd_ftrace_profile(int argc, char **argv)
{
	struct cli_ftrace_opts f;
	int rc;

	if (cli_ftrace_opts_parse(&f, CLI_FT_PROFILE, "ftrace profile", argc,
				  argv, &rc))
		rc = profile("ftrace profile", &f);
	cli_ftrace_opts_fini(&f);
	return rc;
}
