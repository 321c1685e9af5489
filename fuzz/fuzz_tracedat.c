/* SPDX-License-Identifier: MIT */
/* libFuzzer target: trace.dat reader (metadata, sections, chunks, pages),
 * the ring-buffer page parser, and what the timeline and stack exports
 * read of each record (tracefmt's field access over the file's formats,
 * kernel symbols, the scheduling timeline fed its fields). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <perfkit/export.h>
#include <perfkit/ftrace.h>
#include <perfkit/tracefmt.h>
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
		struct pk_tracefmt *tf = pk_tracefmt_new_tracedat(td);
		struct pk_schedtl *tl = pk_schedtl_new();

		pk_tracedat_rewind(td, NULL, 0);
		while (pk_tracedat_next(td, &ev) > 0 && steps++ < 100000) {
			uint64_t id, pid = 0, st = 0, start;
			const char *str;
			const void *raw;
			size_t len;

			if (!tf || pk_tracefmt_record_id(tf, ev.data, ev.size, &id))
				continue;
			pk_tracefmt_name(tf, id);
			pk_tracefmt_field_num(tf, id, ev.data, ev.size,
					      "common_pid", &pid);
			pk_tracefmt_field_num(tf, id, ev.data, ev.size,
					      "prev_state", &st);
			if (!pk_tracefmt_field_raw(tf, id, ev.data, ev.size,
						   "caller", &raw, &len) &&
			    len >= 8) {
				uint64_t a;

				memcpy(&a, raw, 8);
				pk_tracefmt_ksym(tf, a, &start);
			}
			pk_tracefmt_field_str(tf, id, ev.data, ev.size,
					      "prev_comm", &str, &len);
			if (tl) {
				pk_schedtl_event(tl, ev.ts, ev.cpu, (int32_t)pid);
				pk_schedtl_switch(tl, ev.ts, ev.cpu, (int32_t)pid,
						  "a", st, (int32_t)(st >> 8), "b");
				pk_schedtl_wakeup(tl, ev.ts, ev.cpu,
						  (int32_t)st, (int32_t)pid, "c");
			}
		}
		if (tl) {
			FILE *null = fopen("/dev/null", "w");
			bool first = true;

			pk_schedtl_end(tl, 0);
			if (null) {
				pk_schedtl_write_json(tl, null, &first);
				fclose(null);
			}
		}
		pk_schedtl_free(tl);
		pk_tracefmt_free(tf);
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
