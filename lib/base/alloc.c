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

void pk__alloc_fail_after(long n)
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

void *pk__malloc(size_t size)
{
	return should_fail() ? NULL : malloc(size ? size : 1);
}

void *pk__zalloc(size_t size)
{
	return should_fail() ? NULL : calloc(1, size ? size : 1);
}

void *pk__calloc(size_t n, size_t size)
{
	return should_fail() ? NULL : calloc(n ? n : 1, size ? size : 1);
}

void *pk__realloc(void *p, size_t size)
{
	return should_fail() ? NULL : realloc(p, size ? size : 1);
}

char *pk__strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = pk__malloc(len + 1);

	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

char *pk__strdup(const char *s)
{
	return pk__strndup(s, strlen(s));
}

void pk__free(void *p)
{
	free(p);
}

bool pk__grow(void **v, size_t *cap, size_t n, size_t more, size_t size)
{
	size_t c = *cap ? *cap : 256;
	void *nv;

	if (n + more <= *cap)
		return true;
	while (c < n + more) {
		if (c > SIZE_MAX / 2 / size)
			return false;
		c *= 2;
	}
	if (!(nv = pk__realloc(*v, c * size)))
		return false;
	*v = nv;
	*cap = c;
	return true;
}
