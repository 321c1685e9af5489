/* SPDX-License-Identifier: MIT */
/* libFuzzer target: trace.dat reader (metadata, sections, chunks, pages)
 * and the ring-buffer page parser. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <perfkit/ftrace.h>
#include "tracedat/rbpage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_tracedat *td = NULL;
	struct pk_tracedat_event ev;
	struct pk_rb_layout l;
	struct pk_rb_iter it;
	struct pk_rb_event rev;
	size_t n;

	if (((td = pk_tracedat_open_mem(data, size)) ? 0 : -errno) == 0) {
		int steps = 0;
		pk_tracedat_rewind(td, NULL, 0);
		while (pk_tracedat_next(td, &ev) != 0 && steps++ < 100000)
			;
		for (int i = 0; i < pk_tracedat_nr_formats(td); i++)
			pk_tracedat_format(td, i, NULL, &n);
		pk_tracedat_item(td, PK_TD_HEADER_PAGE, &n);
		pk_tracedat_free(td);
	}
	pk__rb_layout_default(&l, 8, size && (data[0] & 1));
	pk__rb_iter_init(&it, data, size, &l);
	while (pk__rb_iter_next(&it, &rev) > 0)
		;
	return 0;
}
