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
#include <regex.h>
#include <stdio.h>
#include "tracedat/tracedat.h"
#include "ftrace/fgraph.h"
#include "tracefmt/fmt.h"
#include "tracefmt/tep.h"
#include "base/hash.h"

struct tep_event_filter;

struct rep_tep {
	struct tf_tep tt;       /* tt.parsed: format index -> given to tep */
	void *seq;              /* struct trace_seq */
	uint8_t *scratch;       /* zeroed bounce buffer for one record */
	size_t scratch_max;
	size_t scratch_used;    /* bytes to zero after the record */
	uint32_t *page_size;    /* by buffer index */
	int nr_bufs;
	struct td_fgraph fg;
	bool ftrace_parsed;
	bool failed;
	/* -F's and -v -F's, one libtraceevent filter each (trace-cmd's) */
	struct tep_event_filter **pos, **neg;
	int nr_pos, nr_neg;
	int kstack_id, ustack_id;   /* kernel_stack, user_stack: -1 none */
	bool *last_printed;         /* by CPU: its last record passed */
	int nr_lp;
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
/* Gives every format of TD to tep (filters may name any event). */
int pk__td_tep_all(struct rep_tep *t, struct pk_tracedat *td);
/* Appends the payload of EV (no newline); *NAME its event name. */
int pk__td_tep_payload(struct rep_tep *t, const struct pk_tracedat_event *ev,
		   struct tf_out *o, const char **name);
/* Appends what tep_print_event() prints of EV for WHAT (TEP_PRINT_INFO,
 * _INFO_RAW, _LATENCY; no newline); *NAME (NAME may be NULL) its event
 * name. */
int pk__td_tep_print(struct rep_tep *t, const struct pk_tracedat_event *ev,
		     struct tf_out *o, const char **name, const char *what);
/* The task name of EV; its pid in *PID, its event's name in *NAME. */
const char *pk__td_tep_who(struct rep_tep *t,
			   const struct pk_tracedat_event *ev, int *pid,
			   const char **name);
/* EV's common_flags (irqs-off, need-resched, hardirq ...). */
int pk__td_tep_flags(struct rep_tep *t, const struct pk_tracedat_event *ev);
/* Adds the filters F[0..N) (libtraceevent's tep_filter); PK_ERR_SYNTAX
 * (said through the print callback) for one it refuses. */
int pk__td_tep_filters(struct rep_tep *t, const struct pk_report_filter *f,
		       int n);
/* Whether EV passes the filters. */
bool pk__td_tep_keep(struct rep_tep *t, const struct pk_tracedat_event *ev);
void pk__td_tep_fini(struct rep_tep *t);

/* report_filt.c: --pid/--comm's filter text into *S (NULL: none), -T's
 * print of filters, --event's choice of formats */
int pk__td_pid_filter(struct pk_tracedat *td, const struct pk_report_opts *o,
		      char **s);
struct tep_handle;
int pk__td_filter_test(struct tep_handle *tep, const struct pk_report_filter *f,
		       int n, FILE *out);
struct td_evmatch {
	regex_t sys, ev;
	bool unique, on;        /* "SYS:EVENT" given; compiled */
};
int pk__td_evmatch_init(struct td_evmatch *m, const char *re);
void pk__td_evmatch_fini(struct td_evmatch *m);
bool pk__td_evmatch(const struct td_evmatch *m, const char *system,
		    const char *text, size_t len);
long pk__td_format_id(const struct td_format *f);

/* -w (report_wake.c): wake-up latency of the sched_switch records */
struct rep_wake_field { uint32_t off, size; };
struct rep_wake_stat {
	uint64_t total, max, min, max_ts, min_ts;
	long n;
};
struct rep_wake {
	int fi[3];              /* format index: switch, wakeup, wakeup_new */
	struct rep_wake_field pid[3], success[3], prio;
	bool has_success[3];
	bool big;
	struct pk__hash woken;  /* pid -> wake-up time + 1 (0: none) */
	struct rep_wake_stat all, rt;
};
/* Finds the sched formats of TD. 0 or -ENOMEM. */
int pk__rep_wake_init(struct rep_wake *w, struct pk_tracedat *td);
/* Notes EV (format FI); a sched_switch to a woken task appends
 * " Latency: ..." to O. 0 or -ENOMEM. */
int pk__rep_wake_event(struct rep_wake *w, int fi,
		       const struct pk_tracedat_event *ev, struct tf_out *o);
/* The summary after the records (nothing when no latency was seen). */
void pk__rep_wake_summary(const struct rep_wake *w, FILE *out);
void pk__rep_wake_fini(struct rep_wake *w);

#endif
