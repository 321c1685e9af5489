/* SPDX-License-Identifier: MIT */
/* libFuzzer: collapsed-stack text through pk_folded_parse; what it takes
 * writes out and reads back to the same text, and the flame graph of it
 * is drawn without fault. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/export.h>

static char *text(struct pk_folded *f, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	if (!m)
		return NULL;
	if (pk_folded_write(f, m)) {
		fclose(m);
		free(buf);
		return NULL;
	}
	fclose(m);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_folded *f = pk_folded_new(), *g = pk_folded_new();
	size_t la = 0, lb = 0;
	char *a = NULL, *b = NULL;
	FILE *null = fopen("/dev/null", "w");

	if (size > 1 << 16 || !f || !g || !null)
		goto out;
	pk_folded_parse(f, (const char *)data, size, NULL);
	a = text(f, &la);
	if (a && pk_folded_parse(g, a, la, NULL))
		abort();
	b = a ? text(g, &lb) : NULL;
	if (a && b && (la != lb || memcmp(a, b, la)))
		abort();
	pk_flame_svg(f, null, NULL);
out:
	free(a);
	free(b);
	if (null)
		fclose(null);
	pk_folded_free(f);
	pk_folded_free(g);
	return 0;
}
