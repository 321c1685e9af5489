/* SPDX-License-Identifier: MIT */
/* libFuzzer: perf script text through pk_collapse (fed in chunks whose
 * size the first byte picks, kinds marks on by its top bit); what comes
 * out reads back through pk_folded_parse into the same stacks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/export.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	PK_OPTS(pk_collapse_opts, o);
	struct pk_folded *f, *g;
	struct pk_collapse *c;
	size_t step, len = 0;
	char *buf = NULL;
	FILE *m;

	if (size < 1 || size > 1 << 16)
		return 0;
	step = (data[0] & 0x3f) + 1;
	o.kinds = data[0] & 0x80;
	o.tid = data[0] & 0x40;
	f = pk_folded_new();
	g = pk_folded_new();
	c = f ? pk_collapse_new(f, &o) : NULL;
	for (size_t i = 1; c && i < size; i += step)
		if (pk_collapse_feed(c, (const char *)data + i,
				     size - i < step ? size - i : step))
			break;
	if (c)
		pk_collapse_end(c);
	m = open_memstream(&buf, &len);
	if (f && g && m && !pk_folded_write(f, m) && !fflush(m)) {
		/* a stack holds no newline; its count follows a space */
		if (pk_folded_parse(g, buf, len, NULL) ||
		    pk_folded_nr(g) > pk_folded_nr(f) ||
		    pk_folded_total(g) != pk_folded_total(f))
			abort();
	}
	if (m)
		fclose(m);
	free(buf);
	pk_collapse_free(c);
	pk_folded_free(f);
	pk_folded_free(g);
	return 0;
}
