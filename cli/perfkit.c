/* SPDX-License-Identifier: MIT */
/* perfkit: main(), the command table and the library's print callback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "list", cmd_list, "List event names and syntax" },
	{ "stat", cmd_stat, "Count events while a command runs" },
	{ "record", cmd_record, "Sample events into a perf.data file" },
	{ "script", cmd_script, "Read a perf.data file: dump records, header" },
	{ "pt", cmd_pt, "Intel PT: dump packets, decode instruction flow" },
	{ "ftrace", cmd_ftrace, "Record and report ftrace (trace-cmd files)" },
	{ "buildid-list", cmd_buildid_list, "Build ids a perf.data file names" },
	{ "buildid-cache", cmd_buildid_cache,
	  "Manage the build-id cache (~/.debug)" },
};

static int print_lib(enum pk_print_level level, const char *fmt, va_list ap)
{
	/* warnings always, -v information, -vv debugging */
	if ((int)level > cli_verbose)
		return 0;
	fputs("perfkit: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: perfkit COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].help);
}

int main(int argc, char **argv)
{
	pk_set_print(print_lib);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("perfkit version 0.1\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "perfkit: '%s' is not a perfkit command\n", argv[1]);
	usage(stderr);
	return 2;
}
