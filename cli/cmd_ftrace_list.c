/* SPDX-License-Identifier: MIT */
/* perfkit ftrace list [tracers|events|functions|options] [GLOB] */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/ftrace.h>
#include "cli.h"

static void list_usage(FILE *f)
{
	fprintf(f, "usage: perfkit ftrace list [tracers|events|functions|"
		   "options] [GLOB]\n"
		   "  events are system:event (a GLOB without ':' matches the "
		   "system or the event);\n"
		   "  without a kind: tracers, options and events\n");
}

static bool match(const char *glob, const char *s)
{
	return !glob || !fnmatch(glob, s, 0);
}

/* Reads FILE; one clear line and -errno when it cannot. */
static long get(struct pk_tracefs *t, const char *what, const char *file,
		char **s)
{
	long n = pk_tracefs_read(t, NULL, file, s);

	if (n == -EPERM || n == -EACCES)
		cli_error("ftrace list", "%s: not permitted on this system "
			  "(%s: EPERM: kernel lockdown or no dynamic ftrace)",
			  what, file);
	else if (n < 0)
		cli_error("ftrace list", "%s: %s: %s", what, file,
			  pk_strerror((int)n));
	return n;
}

static int list_words(struct pk_tracefs *t, const char *glob)
{
	char *s;
	if (get(t, "tracers", "available_tracers", &s) < 0)
		return 1;
	for (char *w = strtok(s, " \t\n"); w; w = strtok(NULL, " \t\n"))
		if (match(glob, w))
			printf("%s\n", w);
	free(s);
	return 0;
}

static int list_events(struct pk_tracefs *t, const char *glob)
{
	char *s;
	bool full = glob && strchr(glob, ':');

	if (get(t, "events", "available_events", &s) < 0)
		return 1;
	for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n")) {
		char *c = strchr(l, ':');
		bool ok = !glob || match(glob, l);
		if (!ok && !full && c) {
			*c = 0;
			ok = match(glob, l) || match(glob, c + 1);
			*c = ':';
		}
		if (ok)
			printf("%s\n", l);
	}
	free(s);
	return 0;
}

static int list_functions(struct pk_tracefs *t, const char *glob)
{
	char *s;

	if (get(t, "functions", "available_filter_functions", &s) < 0)
		return 1;
	for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n")) {
		/* "name" or "name [module]" */
		char *sp = strchr(l, ' ');
		if (sp)
			*sp = 0;
		bool ok = match(glob, l);
		if (sp)
			*sp = ' ';
		if (ok)
			printf("%s\n", l);
	}
	free(s);
	return 0;
}

static int list_options(struct pk_tracefs *t, const char *glob)
{
	char *s;

	if (get(t, "options", "trace_options", &s) < 0)
		return 1;
	for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n")) {
		const char *name = l;
		/* "noX" is option X, off (an option may itself start "no") */
		if (!strncmp(l, "no", 2) && !match(glob, l))
			name = l + 2;
		if (match(glob, name))
			printf("%s\n", l);
	}
	free(s);
	return 0;
}

int cmd_ftrace_list(int argc, char **argv)
{
	static const struct { const char *kind; int (*fn)(struct pk_tracefs *,
							   const char *); }
	kinds[] = {
		{ "tracers", list_words }, { "events", list_events },
		{ "functions", list_functions }, { "options", list_options },
	};
	const char *kind = NULL, *glob = NULL;
	struct pk_tracefs *t;
	int e, rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			list_usage(stdout);
			return 0;
		}
		bool is_kind = false;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!kind && !glob && !strcmp(argv[i], kinds[k].kind))
				is_kind = true;
		if (is_kind)
			kind = argv[i];
		else if (!glob)
			glob = argv[i];
		else {
			list_usage(stderr);
			return 2;
		}
	}
	if (!(t = pk_tracefs_open())) {
		e = -errno;
		cli_error("ftrace list", "tracefs: %s", pk_strerror(e));
		return 1;
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (kind && strcmp(kind, kinds[k].kind))
			continue;
		if (!kind && !strcmp(kinds[k].kind, "functions"))
			continue;
		if (!kind)
			printf("%s%s:\n", k ? "\n" : "", kinds[k].kind);
		rc |= kinds[k].fn(t, glob);
	}
	pk_tracefs_free(t);
	return rc;
}
