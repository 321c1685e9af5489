/* SPDX-License-Identifier: MIT */
/*
 * A bounded string builder for the perf.data reader's text (report -D
 * lines).
 */
#include <stdarg.h>
#include <stdio.h>
#include "perfdata/pd.h"

void pk__pd_sbf(struct pd_sb *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s->pos < s->len ? s->buf + s->pos : NULL,
		      s->pos < s->len ? s->len - s->pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->pos += (size_t)n;
}
