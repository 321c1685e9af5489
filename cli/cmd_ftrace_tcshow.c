/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace show: trace-cmd show 3.1, the text of a live buffer as
 * the kernel prints it (trace, snapshot with -s, trace_pipe with -p; one
 * CPU's with -c; an instance's with -B; -f names the file first), or one
 * control file's content (--tracing_on, --buffer_size ...).
 * (perfkit's own overview of tracefs is ftrace state.)
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "cli.h"

static void show_usage(FILE *f)
{
	fprintf(f, "usage: perfkit ftrace show [-p|-s] [-c CPU] [-B NAME] [-f] "
		   "[--FILE]\n"
		   "  trace-cmd show: the trace file's text (-p trace_pipe, "
		   "-s snapshot, -c one CPU's,\n"
		   "  -B an instance's, -f its path first); --tracing_on, "
		   "--current_tracer,\n"
		   "  --buffer_size, --buffer_total_size, --ftrace_filter, "
		   "--ftrace_notrace,\n"
		   "  --ftrace_pid, --graph_function, --graph_notrace, "
		   "--cpumask: that file\n"
		   "  (perfkit's overview of tracefs: ftrace state)\n");
}

/* Copies tracefs file PATH to standard output as it comes. */
static int cat(const char *path)
{
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			break;
	int e = n < 0 ? -errno : 0;
	close(fd);
	return e;
}

int cmd_ftrace_show(int argc, char **argv)
{
	static const struct { const char *opt, *file; } files[] = {
		{ "tracing_on", "tracing_on" },
		{ "current_tracer", "current_tracer" },
		{ "buffer_size", "buffer_size_kb" },
		{ "buffer_total_size", "buffer_total_size_kb" },
		{ "ftrace_filter", "set_ftrace_filter" },
		{ "ftrace_notrace", "set_ftrace_notrace" },
		{ "ftrace_pid", "set_ftrace_pid" },
		{ "graph_function", "set_graph_function" },
		{ "graph_notrace", "set_graph_notrace" },
		{ "cpumask", "tracing_cpumask" },
	};
	static const struct option lo[] = {
		{ "tracing_on", no_argument, NULL, 256 },
		{ "current_tracer", no_argument, NULL, 257 },
		{ "buffer_size", no_argument, NULL, 258 },
		{ "buffer_total_size", no_argument, NULL, 259 },
		{ "ftrace_filter", no_argument, NULL, 260 },
		{ "ftrace_notrace", no_argument, NULL, 261 },
		{ "ftrace_pid", no_argument, NULL, 262 },
		{ "graph_function", no_argument, NULL, 263 },
		{ "graph_notrace", no_argument, NULL, 264 },
		{ "cpumask", no_argument, NULL, 265 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *inst = NULL, *file = "trace", *cpu = NULL;
	bool pipe = false, snap = false, path = false;
	char rel[256], full[4096];
	struct pk_tracefs *t;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+psc:B:fh", lo, NULL)) != -1) {
		switch (c) {
		case 'p': pipe = true; break;
		case 's': snap = true; break;
		case 'c': cpu = optarg; break;
		case 'B': inst = optarg; break;
		case 'f': path = true; break;
		case 'h': show_usage(stdout); return 0;
		default:
			if (c >= 256 && c < 256 + 10) {
				file = files[c - 256].file;
				break;
			}
			show_usage(stderr);
			return 2;
		}
	}
	if (pipe && snap) {
		fprintf(stderr, "  Can not have -s and -p together\n");
		return 255;
	}
	if (!strcmp(file, "trace") && (pipe || snap))
		file = pipe ? "trace_pipe" : "snapshot";
	if (cpu && !strncmp(file, "trace", 5))
		snprintf(rel, sizeof(rel), "per_cpu/cpu%s/%s", cpu, file);
	else if (cpu && snap)
		snprintf(rel, sizeof(rel), "per_cpu/cpu%s/snapshot", cpu);
	else
		snprintf(rel, sizeof(rel), "%s", file);
	if (!(t = pk_tracefs_open())) {
		cli_error("ftrace show", "tracefs: %s", pk_strerror(-errno));
		return 1;
	}
	int e = pk_tracefs_path(t, inst, rel, full, sizeof(full));
	pk_tracefs_free(t);
	if (e) {
		cli_error("ftrace show", "%s: %s", rel, pk_strerror(e));
		return 1;
	}
	/* trace-cmd names the file only for a buffer's text */
	if (path && (!strncmp(file, "trace", 5) || !strcmp(file, "snapshot")))
		printf("%s\n", full);
	fflush(stdout);
	if ((e = cat(full)) < 0) {
		fflush(stdout);
		fprintf(stderr, "trace-cmd: %s\n  reading %s\n",
			strerror(-e), full);
		return 2;
	}
	return fflush(stdout) ? 1 : 0;
}
