/* SPDX-License-Identifier: MIT */
/*
 * Internal: `trace-cmd report` printing. report.c drives the records and
 * formats them with the compiled formatter (tracefmt/fmt.h); report_tep.c
 * is the libtraceevent path (tracefmt/tep.h's set-up), made lazily for the
 * records the formatter cannot print exactly (and used for everything with
 * PK_REPORT_TEP).
 */
#ifndef PK_FTRACE_REPORT_H
#define PK_FTRACE_REPORT_H
#include <stdio.h>
#include "tracedat/tracedat.h"
#include "ftrace/fgraph.h"
#include "tracefmt/fmt.h"
#include "tracefmt/tep.h"

struct rep_tep {
	struct tf_tep tt;       /* tt.parsed: format index -> given to tep */
	void *seq;              /* struct trace_seq */
	uint8_t *scratch;       /* zeroed bounce buffer for one record */
	size_t scratch_max;
	struct td_fgraph fg;
	bool ftrace_parsed;
	bool failed;
};

/*
 * Sets up libtraceevent for TD. FULL: as trace-cmd does (every format of
 * an event present in the data, kallsyms parsed); otherwise nothing but
 * the header, plugins, printk formats and cmdlines: formats come with
 * pk__td_tep_need() and symbols from ENV (may be NULL with FULL).
 */
int pk__td_tep_init(struct rep_tep *t, struct pk_tracedat *td, bool full,
		struct tf_env *env, const struct pk_report_opts *o);
/* Gives format IDX (and, for an ftrace one, all ftrace formats) to tep. */
int pk__td_tep_need(struct rep_tep *t, struct pk_tracedat *td, int idx);
/* Appends the payload of EV (no newline); *NAME its event name. */
int pk__td_tep_payload(struct rep_tep *t, const struct pk_tracedat_event *ev,
		   struct tf_out *o, const char **name);
/* Appends the whole line of EV (prefix, name, payload; no newline). */
int pk__td_tep_line(struct rep_tep *t, struct pk_tracedat *td,
		const struct pk_tracedat_event *ev, struct tf_out *o);
void pk__td_tep_fini(struct rep_tep *t);
long pk__td_format_id(const struct td_format *f);

#endif
