/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace dump: trace-cmd dump 3.1, the metadata of a trace.dat
 * file part by part (lib/tracedat/dump.c walks the file).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/tracedat.h>
#include "cli.h"

#define C "ftrace dump"

static void dump_usage(FILE *f)
{
	fprintf(f, "usage: perfkit ftrace dump [options] [-i FILE | FILE]\n"
		   "  trace-cmd dump: the metadata of a trace.dat file "
		   "(default trace.dat)\n"
		   "  -v               validate the file\n"
		   "  --all            every part\n"
		   "  --summary        a summary (the default)\n"
		   "  --head-page, --head-event  the page and event headers\n"
		   "  --ftrace-events  the ftrace event formats\n"
		   "  --systems, --events  the event systems / formats\n"
		   "  --kallsyms, --printk, --cmd-lines  those texts\n"
		   "  --options        the options\n"
		   "  --flyrecord      the CPU data offsets and sizes\n"
		   "  --clock          the trace clock\n"
		   "  --sections, --strings  format 7's sections and "
		   "strings\n");
}

int cmd_ftrace_dump(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "all", no_argument, NULL, 1 },
		{ "summary", no_argument, NULL, 2 },
		{ "head-page", no_argument, NULL, 3 },
		{ "head-event", no_argument, NULL, 4 },
		{ "ftrace-events", no_argument, NULL, 5 },
		{ "systems", no_argument, NULL, 6 },
		{ "events", no_argument, NULL, 7 },
		{ "kallsyms", no_argument, NULL, 8 },
		{ "printk", no_argument, NULL, 9 },
		{ "cmd-lines", no_argument, NULL, 10 },
		{ "options", no_argument, NULL, 11 },
		{ "flyrecord", no_argument, NULL, 12 },
		{ "clock", no_argument, NULL, 13 },
		{ "strings", no_argument, NULL, 14 },
		{ "sections", no_argument, NULL, 15 },
		{ "validate", no_argument, NULL, 'v' },
		{ "verbose", optional_argument, NULL, 16 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* long option value -> part */
	static const unsigned part[] = {
		[1] = (unsigned)PK_TD_DUMP_ALL, [2] = PK_TD_DUMP_SUMMARY,
		[3] = PK_TD_DUMP_HEAD_PAGE, [4] = PK_TD_DUMP_HEAD_EVENT,
		[5] = PK_TD_DUMP_FTRACE, [6] = PK_TD_DUMP_SYSTEMS,
		[7] = PK_TD_DUMP_EVENTS, [8] = PK_TD_DUMP_KALLSYMS,
		[9] = PK_TD_DUMP_PRINTK, [10] = PK_TD_DUMP_CMDLINES,
		[11] = PK_TD_DUMP_OPTIONS, [12] = PK_TD_DUMP_FLYRECORD,
		[13] = PK_TD_DUMP_CLOCK, [14] = PK_TD_DUMP_STRINGS,
		[15] = PK_TD_DUMP_SECTIONS,
	};
	const char *in = NULL, *failed;
	unsigned what = 0;
	bool validate = false;
	int c, r;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "+hvi:", lo, NULL)) != -1) {
		if (c >= 1 && c <= 15) {
			what = c == 1 ? part[c] : what | part[c];
			continue;
		}
		switch (c) {
		case 'i': in = optarg; break;
		case 'v': validate = true; break;
		case 16: break;
		case 'h': dump_usage(stdout); return 0;
		default: dump_usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		if (in) {
			dump_usage(stderr);
			return 2;
		}
		in = argv[optind];
	}
	if (!in)
		in = "trace.dat";
	if (!what && !validate)
		what = PK_TD_DUMP_SUMMARY;
	r = pk_tracedat_dump(in, stdout, what, &failed);
	fflush(stdout);
	if (r) {
		if (failed)
			cli_error(C, "%s: cannot read %s", in, failed);
		else
			cli_error(C, "cannot open '%s': %s", in, pk_strerror(r));
		return 1;
	}
	if (validate)
		printf("File %s is a valid trace-cmd file\n", in);
	return 0;
}
