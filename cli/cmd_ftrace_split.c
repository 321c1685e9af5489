/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace split: trace-cmd split 3.1, a trace.dat file cut into
 * pieces by time, records or pages (lib/tracedat/split.c does the cut).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/tracedat.h>
#include "cli.h"

#define C "ftrace split"

static void split_usage(FILE *f)
{
	fprintf(f, "usage: perfkit ftrace split [options] [-i FILE] "
		   "[-o FILE] [start [end]]\n"
		   "  trace-cmd split: the pieces are read and reported by "
		   "trace-cmd as its own\n"
		   "  -o FILE  output file (FILE.1, or FILE.0001 ... with -r; "
		   "default: the input's name)\n"
		   "  -s N / -m N / -u N  a piece every N seconds / "
		   "milliseconds / microseconds\n"
		   "  -e N     a piece every N events\n"
		   "  -p N     a piece every N pages of each CPU\n"
		   "  -r       repeat from start to end\n"
		   "  -c       per CPU (-p 2: two pages of each CPU)\n"
		   "  -C CPU   that CPU only\n"
		   "  start, end  decimal seconds (75678.923853); the file's "
		   "start and end when left out\n");
}

/* A decimal time in seconds as ns, as trace-cmd converts it. */
static int parse_time(const char *s, unsigned long long *ns)
{
	char *end;
	double v = strtod(s, &end);

	if (*end) {
		return -1;
	}
	*ns = (unsigned long long)(v * 1000000000.0);
	return 0;
}

/* What trace-cmd says on standard error about a piece's CPU data. */
static void say_layout(const struct pk_tdsplit *s)
{
	const struct pk_tdsplit_cpu *c;
	unsigned fl;
	int n = pk_tdsplit_layout(s, &c, &fl);

	if (n && (fl & PK_TDSPLIT_V6))   /* (its v6 writer's warning) */
		fprintf(stderr, "Cannot find description for buffer \n");
	for (int k = 0; k < n; k++) {
		fprintf(stderr, "CPU%d data recorded at offset=0x%llx\n"
			"    %llu bytes in size", k,
			(unsigned long long)c[k].offset,
			(unsigned long long)c[k].size);
		if (fl & PK_TDSPLIT_COMPRESSED)
			fprintf(stderr, " (%llu uncompressed)",
				(unsigned long long)c[k].usize);
		fputc('\n', stderr);
	}
}

/* The pieces of IN; OUT is the name without its suffix. The status. */
static int split_file(const char *in, const char *out, bool repeat,
		      unsigned long long start, const struct pk_tdsplit_opts *o)
{
	struct pk_tracedat *td = pk_tracedat_open(in);
	struct pk_tdsplit *s;
	uint64_t current = start;
	char path[4096];
	int n = 1, r = 0;

	if (!td) {
		cli_error(C, "error reading %s: %s", in, pk_strerror(-errno));
		return 1;
	}
	if (!(s = pk_tdsplit_new(td, o))) {
		cli_error(C, "%s: %s", in, errno == -PK_ERR_UNSUPP ?
			  "split does not work with latency traces" :
			  pk_strerror(-errno));
		pk_tracedat_free(td);
		return 1;
	}
	do {
		if (repeat)
			snprintf(path, sizeof(path), "%s.%04d", out, n++);
		else
			snprintf(path, sizeof(path), "%s.1", out);
		r = pk_tdsplit_piece(s, path, start, &current);
		if (!r)
			say_layout(s);
		start = 0;
	} while (!r && repeat && current && (!o->end || current < o->end));
	if (r)
		cli_error(C, "%s: %s", path, pk_strerror(r));
	pk_tdsplit_free(s);
	pk_tracedat_free(td);
	return r ? 1 : 0;
}

int cmd_ftrace_split(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* trace-cmd's option letters in its enum's order */
	static const char units[] = "smuep";
	const char *in = "trace.dat", *out = NULL;
	unsigned long long start = 0, end = 0;
	bool repeat = false;
	int c;
	PK_OPTS(pk_tdsplit_opts, o, .only_cpu = -1);

	optind = 1;
	while ((c = cli_getopt(argc, argv, "+ho:i:s:m:u:e:p:rcC:", lo,
			       NULL)) != -1) {
		const char *u = c > 0 ? strchr(units, c) : NULL;
		if (u) {
			if (o.unit != PK_TD_SPLIT_NONE) {
				cli_error(C, "Only one type of split is "
					  "allowed");
				return 2;
			}
			o.count = atoi(optarg);
			if (o.count <= 0) {
				cli_error(C, "Units must be greater than 0");
				return 2;
			}
			o.unit = PK_TD_SPLIT_SECONDS + (int)(u - units);
			continue;
		}
		switch (c) {
		case 'r': repeat = true; break;
		case 'c': o.percpu = true; break;
		case 'C': o.only_cpu = atoi(optarg); break;
		case 'o':
			if (out) {
				cli_error(C, "only one output file allowed");
				return 2;
			}
			out = optarg;
			break;
		case 'i': in = optarg; break;
		case 'h': split_usage(stdout); return 0;
		default: split_usage(stderr); return 2;
		}
	}
	if (argc - optind > 2) {
		split_usage(stderr);
		return 2;
	}
	if (optind < argc && parse_time(argv[optind], &start)) {
		cli_error(C, "Start value not floating point: %s",
			  argv[optind]);
		return 2;
	}
	if (optind + 1 < argc) {
		if (parse_time(argv[optind + 1], &end)) {
			cli_error(C, "End value not floating point: %s",
				  argv[optind + 1]);
			return 2;
		}
		if (end < start) {
			cli_error(C, "Error: end is less than start");
			return 2;
		}
	}
	o.end = end;
	return split_file(in, out ? out : in, repeat, start, &o);
}
