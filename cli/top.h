/* SPDX-License-Identifier: MIT */
/* perfkit top: live sampling (cmd_top.c: options, events, the rings, the
 * --stdio screen) and its browser (top_tui.c). */
#ifndef PK_CLI_TOP_H
#define PK_CLI_TOP_H
#include <stdbool.h>
#include <stdint.h>
#include <perfkit/perfkit.h>
#include <perfkit/report.h>
#include <perfkit/ring.h>

struct top_cfg {
	const char **events;        /* -e each (none: perf's cycles:P) */
	int nr_events;
	const char *freq_arg;       /* -F as given */
	uint64_t freq, period;      /* -F (default 4000), -c */
	const char *pids, *tids, *cpu_list, *sort;
	bool hide_kernel, hide_user, stdio, tui, zero, show_nr, all_cpus;
	bool callchain;             /* -g, --call-graph fp */
	bool no_children;           /* --no-children (children: -g's default) */
	int delay_secs;             /* -d */
	int entries;                /* -E, 0: the terminal's rows less 5 */
	double percent_limit;
	size_t mmap_pages;
	int verbose;
};

struct top {
	struct top_cfg c;
	struct pk_evlist *evlist;
	struct pk_evsel *ev;
	struct pk_cpu_map *cpus;
	struct pk_thread_map *threads;
	struct pk_rings *rings;
	struct pk_session *sess;
	struct pk_perfdata *pd;
	int pd_fd;
	struct pk_report *rep;
	char *batch;                 /* the records of one pass */
	size_t batch_len, batch_cap;
	/* this period's and all counts (perf's header) */
	uint64_t samples, ksamples, exact, lost, lost_total;
	uint64_t nr_samples, nr_lost_records, lost_warned;
	uint64_t next_ms;            /* the next display */
};

/* cmd_top.c */
uint64_t top_now_ms(void);
/* Reads every ring and feeds the session and the report. 0 or -errno. */
int top_drain(struct top *t);
/* perf top's header line into BUF. */
void top_header(struct top *t, char *buf, size_t size);
/* After a display: the report aged (or emptied, -z), the period's
 * counts back to zero. 0 or -ENOMEM. */
int top_next_period(struct top *t);
/* top_tui.c: the browser until q or Ctrl-C; the exit status. */
int top_tui(struct top *t);
#endif
