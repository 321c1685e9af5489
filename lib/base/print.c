/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics: the print callback the library reports through (it never
 * prints itself), error names, option-struct checks.
 */
#include <stdio.h>
#include <string.h>
#include "base/base.h"

static pk_print_fn print_fn;

pk_print_fn pk_set_print(pk_print_fn fn)
{
	pk_print_fn old = print_fn;

	print_fn = fn;
	return old;
}

void pk__pr(enum pk_print_level level, const char *fmt, ...)
{
	va_list ap;

	if (!print_fn)
		return;
	va_start(ap, fmt);
	print_fn(level, fmt, ap);
	va_end(ap);
}

static const char *const pk_errstr[] = {
	[0] = "syntax error",
	[1] = "unknown name",
	[2] = "malformed data",
	[3] = "data ends early",
	[4] = "not supported",
	[5] = "internal error",
	[6] = "value out of range",
	[7] = "no synchronisation point",
	[8] = "end of stream",
};

const char *pk_strerror(int err)
{
	if (err <= PK_ERR_FIRST && err >= PK_ERR_LAST)
		return pk_errstr[PK_ERR_FIRST - err];
	if (err < 0 && err > -4096)
		return strerror(-err);
	return err == 0 ? "success" : "unknown error";
}

bool pk__opts_valid(const void *opts, size_t user_sz, size_t known_sz)
{
	const unsigned char *p = opts;

	if (!opts)
		return true;
	if (user_sz < sizeof(size_t))
		return false;
	for (size_t i = known_sz; i < user_sz; i++)
		if (p[i])
			return false;
	return true;
}
