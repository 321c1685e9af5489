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
#include "cli.h"

/* Appends ",OPT" to the option list BUF. */
static int add_opt(char *buf, size_t len, const char *opt)
{
	size_t n = strlen(buf);
	int w = snprintf(buf + n, len - n, "%s%s", n ? "," : "", opt);
	return w < 0 || (size_t)w >= len - n ? -1 : 0;
}

static int parse_cpu_list(const char *s, int *cpus, int max)
{
	int n = 0;
	char *end;

	while (*s) {
		long a = strtol(s, &end, 10), b = a;
		if (end == s || a < 0)
			return -1;
		if (*end == '-') {
			s = end + 1;
			b = strtol(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		for (long c = a; c <= b; c++) {
			if (n >= max)
				return -1;
			cpus[n++] = (int)c;
		}
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return n;
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
	while ((c = getopt_long(argc, argv, "i:O:", lo, NULL)) != -1) {
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
			nr_cpus = parse_cpu_list(optarg, cpus, 4096);
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
	int r = pk_tracedat_open(in, &td);
	if (r < 0) {
		cli_error("ftrace report", "%s: %s", in, pk_strerror(r));
		free(tgids);
		return 1;
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	long n = pk_tracedat_report_kernel(td, stdout, &o);
	fflush(stdout);
	pk_tracedat_close(td);
	free(tgids);
	if (n < 0) {
		cli_error("ftrace report", "%s: %s", in, pk_strerror((int)n));
		return 1;
	}
	return 0;
}

int cmd_ftrace_live(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("ftrace live", "not yet");
	return 1;
}
