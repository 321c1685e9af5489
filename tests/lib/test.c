/* SPDX-License-Identifier: MIT */
/*
 * The unit tests' reporting ("ok", "FAIL", "skipped:" lines) and where
 * ../shared is.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "test.h"

static int n_fail;

void t_ok(const char *name)
{
	printf("ok %s\n", name);
	fflush(stdout);
}

static void vline(const char *head, const char *name, const char *fmt,
		  va_list ap)
{
	printf("%s%s: ", head, name);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

void t_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	n_fail++;
	va_start(ap, fmt);
	vline("FAIL ", name, fmt, ap);
	va_end(ap);
}

void t_skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("skipped: ", name, fmt, ap);
	va_end(ap);
}

bool t_check(bool cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		t_ok(name);
		return true;
	}
	n_fail++;
	va_start(ap, fmt);
	vline("FAIL ", name, fmt, ap);
	va_end(ap);
	return false;
}

int t_exit(void)
{
	return n_fail ? 1 : 0;
}

static const char *join(const char *env, const char *def, const char *rel)
{
	static char buf[8][4096];
	static int slot;
	const char *base = getenv(env);
	char *b = buf[slot++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", base && *base ? base : def, rel);
	return b;
}

const char *t_shared(const char *rel)
{
	return join("PK_SHARED", "../shared", rel);
}

const char *t_shared_need(const char *name, const char *rel)
{
	const char *root = join("PK_SHARED", "../shared", "");
	const char *path = t_shared(rel);

	if (access(root, F_OK)) {
		t_skip(name, "%.*s is absent", (int)strlen(root) - 1, root);
		return NULL;
	}
	if (access(path, R_OK)) {
		t_fail(name, "%s is missing", path);
		return NULL;
	}
	return path;
}

const char *t_build(const char *rel)
{
	return join("PK_BUILD", "build", rel);
}
