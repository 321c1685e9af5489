/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace check-events: trace-cmd check-events 3.1, every event
 * format of the live tracefs parsed by libtraceevent (-N: without its
 * plugins); libtraceevent names what it cannot parse. The exit status is
 * 0 then too, as trace-cmd's.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/ftrace.h>
#include <perfkit/tracefs.h>
#include "cli.h"

#define C "ftrace check-events"

static void check_usage(FILE *f)
{
	fprintf(f, "usage: perfkit ftrace check-events [-N]\n"
		   "  trace-cmd check-events: parse every event format of "
		   "tracefs with libtraceevent\n"
		   "  -N  without libtraceevent's plugins\n"
		   "  --verbose[=LEVEL]  libtraceevent's messages (none, crit, "
		   "err, warn, info, debug,\n"
		   "                     all or 0-6; info when not given)\n");
}

/* LEVEL as trace-cmd reads it: a number (capped), or a word starting
 * with one of the N NAMES. -1 when neither. */
static int verbose_level(const char *level, const char *const *names, int n)
{
	if (*level >= '0' && *level <= '9') {
		int v = atoi(level);
		return v > n - 1 ? n - 1 : v;
	}
	for (int i = 0; i < n; i++)
		if (!strncmp(level, names[i], strlen(names[i])))
			return i;
	return -1;
}

int cmd_ftrace_check_events(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "verbose", optional_argument, NULL, 1 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const levels[] = {
		"none", "crit", "err", "warn", "info", "debug", "all",
	};
	bool plugins = true;
	int level = -1;
	struct pk_tracefs *t;
	int c, r;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "+hN", lo, NULL)) != -1) {
		switch (c) {
		case 'N': plugins = false; break;
		case 1:   /* trace-cmd's --verbose[=LEVEL]: a number or a name */
			level = verbose_level(optarg ? optarg : "info", levels,
					      7);
			if (level < 0) {
				cli_error(C, "invalid verbose level %s",
					  optarg);
				return 2;
			}
			break;
		case 'h': check_usage(stdout); return 0;
		default: check_usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		check_usage(stderr);
		return 2;
	}
	if (!(t = pk_tracefs_open())) {
		/* trace-cmd's words and status (EINVAL) */
		printf("Can not find or mount tracing directory!\n"
		       "Either tracing is not configured for this kernel\n"
		       "or you do not have the proper permissions to mount "
		       "the directory");
		fflush(stdout);
		return EINVAL;
	}
	r = pk_ftrace_check_events(pk_tracefs_dir(t), plugins, level);
	pk_tracefs_free(t);
	if (r < 0) {
		cli_error(C, "cannot read the event formats: %s",
			  pk_strerror(r));
		return 1;
	}
	return 0;
}
