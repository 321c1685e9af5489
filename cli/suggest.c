/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean" for the command line: mistyped commands and options get
 * the nearest known name (pk_nearest), unknown events the parser's hint;
 * every command's getopt loop goes through cli_getopt.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

/* true when NAME (up to '=') is a prefix of some long option: getopt
 * took it as ambiguous and listed the choices itself, or it is exact */
static bool names_a_prefix(const struct option *lo, const char *name,
			   size_t len)
{
	for (; lo && lo->name; lo++)
		if (!strncmp(lo->name, name, len))
			return true;
	return false;
}

/* After getopt's message about ARG: the nearest long option, if any. */
static void suggest_option(const char *cmd, const char *arg,
			   const struct option *lo)
{
	struct pk_nearest near;
	char word[128];
	size_t len;

	if (strncmp(arg, "--", 2) || !arg[2])
		return;
	len = strcspn(arg + 2, "=");
	if (len >= sizeof(word) || names_a_prefix(lo, arg + 2, len))
		return;
	memcpy(word, arg + 2, len);
	word[len] = '\0';
	pk_nearest_init(&near, word);
	for (; lo && lo->name; lo++)
		pk_nearest_add(&near, lo->name);
	if (near.name[0])
		cli_error(cmd, "did you mean '--%s'?", near.name);
}

/* --list-opts: the long options, one line, for the bash completion. */
static void list_opts(const struct option *lo)
{
	const char *sep = "";

	for (; lo && lo->name; lo++, sep = " ")
		printf("%s--%s", sep, lo->name);
	putchar('\n');
}

int cli_getopt(int argc, char **argv, const char *optstring,
	       const struct option *lo, int *li)
{
	int o, at = optind ? optind : 1;

	if (at == 1 && argc == 2 && !strcmp(argv[1], "--list-opts")) {
		list_opts(lo);
		exit(0);
	}
	o = getopt_long(argc, argv, optstring, lo, li);
	if (o == '?' && optind > at && optind <= argc)
		suggest_option(argv[0], argv[optind - 1], lo);
	return o;
}

void cli_event_hint(const char *cmd, const struct pk_parse_error *pe)
{
	if (pe->hint[0])
		cli_error(cmd, "did you mean '%s'?", pe->hint);
}

int cli_unknown_command(const char *tool, const char *word,
			const char *const *names, int n)
{
	struct pk_nearest near;

	fprintf(stderr, "%s: '%s' is not a %s command. See '%s --help'.\n",
		tool, word, tool, tool);
	pk_nearest_init(&near, word);
	for (int i = 0; i < n; i++)
		pk_nearest_add(&near, names[i]);
	if (near.name[0])
		fprintf(stderr, "\nDid you mean this?\n\t%s\n", near.name);
	return 2;
}
