/* SPDX-License-Identifier: MIT */
/*
 * Weak placeholders for subcommands that other branches define, so this
 * branch links on its own. A real definition elsewhere wins at link time.
 */
#include <stdio.h>
#include "cli.h"

__attribute__((weak)) int cmd_list(int argc, char **argv)
{
	(void)argc; (void)argv;
	cli_error("list", "not built in this tree");
	return 1;
}

__attribute__((weak)) int cmd_stat(int argc, char **argv)
{
	(void)argc; (void)argv;
	cli_error("stat", "not built in this tree");
	return 1;
}
