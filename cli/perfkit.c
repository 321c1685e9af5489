/* SPDX-License-Identifier: MIT */
/* perfkit: main(), the command table, --version, help, --list-cmds and
 * the library's print callback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/wait.h>
#include "cli.h"

#ifndef PK_VERSION
#error "PK_VERSION comes from the VERSION file (see the Makefile)"
#endif

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
	{ "annotate", cmd_annotate,
	  "Samples per instruction of the hottest symbols" },
	{ "report", cmd_report, "Read a perf.data file: hist entries, callchains" },
	{ "inject", cmd_inject,
	  "Rewrite a perf.data file: samples synthesized from its trace" },
	{ "diff", cmd_diff, "Compare perf.data files: deltas, ratios per symbol" },
	{ "top", cmd_top, "Live profile: the hottest symbols, refreshed" },
	{ "pt", cmd_pt, "Intel PT: dump packets, decode instruction flow" },
	{ "ftrace", cmd_ftrace, "Record and report ftrace (trace-cmd files)" },
	{ "buildid-list", cmd_buildid_list, "Build ids a perf.data file names" },
	{ "buildid-cache", cmd_buildid_cache,
	  "Manage the build-id cache (~/.debug)" },
};

/* Commands that run but are listed nowhere: test drivers. */
static const struct command hidden_commands[] = {
	{ "tui-demo", cmd_tui_demo, "The report browser on a text tree" },
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
	fprintf(f, "\nperfkit help COMMAND: the command's manual page; "
		"perfkit --version\n");
}

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	for (size_t i = 0; i < sizeof(hidden_commands) /
			       sizeof(hidden_commands[0]); i++)
		if (!strcmp(name, hidden_commands[i].name))
			return &hidden_commands[i];
	return NULL;
}

static int unknown_command(const char *word)
{
	const char *names[NR_COMMANDS];

	for (size_t i = 0; i < NR_COMMANDS; i++)
		names[i] = commands[i].name;
	return cli_unknown_command("perfkit", word, names, (int)NR_COMMANDS);
}

/* true when `man -w PAGE` finds the page (installed and on man's path) */
static bool have_man_page(const char *page)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		execlp("man", "man", "-w", page, (char *)NULL);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	       WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* perfkit help [CMD]: CMD's man page when man finds it, else its -h text
 * (perf's `perf help CMD`). */
static int help(const char *name)
{
	const struct command *c;
	char page[64];
	char *argv[] = { NULL, "-h", NULL };

	if (!name) {
		usage(stdout);
		return 0;
	}
	c = find_command(name);
	if (!c)
		return unknown_command(name);
	snprintf(page, sizeof(page), "perfkit-%s", c->name);
	if (have_man_page(page)) {
		fflush(NULL);
		execlp("man", "man", page, (char *)NULL);
	}
	argv[0] = (char *)c->name;
	return c->fn(2, argv);
}

int main(int argc, char **argv)
{
	const struct command *c;

	pk_set_print(print_lib);
	/* perf's options before the command: --buildid-dir DIR (the
	 * build-id cache, as perf passes it on: $PERF_BUILDID_DIR) and
	 * --no-pager (perfkit pages nothing) */
	while (argc > 1 && !strncmp(argv[1], "--", 2)) {
		const char *a = argv[1], *dir = NULL;

		if (!strcmp(a, "--no-pager")) {
			argc--, argv++;
			continue;
		}
		if (!strncmp(a, "--buildid-dir=", 14)) {
			dir = a + 14;
		} else if (!strcmp(a, "--buildid-dir")) {
			if (argc < 3) {
				fprintf(stderr, "No directory given for "
					"--buildid-dir.\n");
				usage(stderr);
				return 129;
			}
			dir = argv[2];
			argc--, argv++;
		} else {
			break;
		}
		setenv("PERF_BUILDID_DIR", dir, 1);
		argc--, argv++;
	}
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("perfkit version %s\n", PK_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--list-cmds")) {	/* bash completion */
		for (size_t i = 0; i < NR_COMMANDS; i++)
			printf("%s\n", commands[i].name);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc > 2 ? argv[2] : NULL);
	c = find_command(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	return unknown_command(argv[1]);
}
