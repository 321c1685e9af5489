/* SPDX-License-Identifier: MIT */
/*
 * Allocation: every library allocation goes through here (tests can make the
 * Nth fail), and strdup/strndup that follow suit.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "base/base.h"

static long fail_countdown = -1;

void pk_alloc_fail_after(long n)
{
	fail_countdown = n;
}

static bool should_fail(void)
{
	if (fail_countdown < 0)
		return false;
	if (fail_countdown == 0) {
		errno = ENOMEM;
		return true;
	}
	fail_countdown--;
	return false;
}

void *pk_malloc(size_t size)
{
	return should_fail() ? NULL : malloc(size ? size : 1);
}

void *pk_zalloc(size_t size)
{
	return should_fail() ? NULL : calloc(1, size ? size : 1);
}

void *pk_calloc(size_t n, size_t size)
{
	return should_fail() ? NULL : calloc(n ? n : 1, size ? size : 1);
}

void *pk_realloc(void *p, size_t size)
{
	return should_fail() ? NULL : realloc(p, size ? size : 1);
}

char *pk_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = pk_malloc(len + 1);

	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

char *pk_strdup(const char *s)
{
	return pk_strndup(s, strlen(s));
}

void pk_free(void *p)
{
	free(p);
}
