/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader's ground floor, shared by every file of the reader
 * (header, features, records, decompression): the first error with its
 * offset, warnings through the library's print callback, and memory that
 * lives as long as the reader.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include "perfdata/pd.h"

int pk__pd_fail(struct pk_perfdata *pd, int err, uint64_t off, const char *fmt,
	    ...)
{
	va_list ap;
	int n;

	if (pd->err)
		return pd->err;
	n = snprintf(pd->errmsg, sizeof(pd->errmsg), "%s: offset %#llx: ",
		     pd->name, (unsigned long long)off);
	if (n < 0 || (size_t)n >= sizeof(pd->errmsg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(pd->errmsg + n, sizeof(pd->errmsg) - n, fmt, ap);
	va_end(ap);
	pd->err = err;
	pd->err_off = off;
	return err;
}

void pk__pd_warn(struct pk_perfdata *pd, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pd->nr_warn++;
	pk_warn("perf.data '%s': %s", pd->name, msg);
}

/* Copies N bytes into memory that lives as long as the reader. */
void *pk__pd_keep(struct pk_perfdata *pd, const void *src, size_t n)
{
	struct pd_chunk *c = pk__malloc(sizeof(*c) + n + 8);

	if (!c)
		return NULL;
	c->next = pd->chunks;
	pd->chunks = c;
	if (src)
		memcpy(c->data, src, n);
	return c->data;
}
