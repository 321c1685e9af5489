/* SPDX-License-Identifier: MIT */
/* perf's verbose view of opening events, shared by stat and record: -vv
 * prints every attempt (attr block and open calls), -v the warning before
 * each fallback retry. */
#include "cli.h"

static void print_attempt(const struct cli_open_trace *t, struct pk_evsel *e,
			  const struct perf_event_attr *tried, int err)
{
	static const char rule[] =
		"------------------------------------------------------------";
	struct pk_evsel *leader = pk_evsel_leader(e);
	char buf[4096];

	pk_attr_snprintf(buf, sizeof(buf), tried);
	for (int ci = 0; ci < pk_cpu_map_nr(t->cpus); ci++) {
		if (!ci || t->block_per_cpu)
			fprintf(stderr, "%s\nperf_event_attr:\n%s%s\n", rule,
				buf, rule);
		for (int ti = 0; ti < pk_thread_map_nr(t->threads); ti++) {
			int g = leader == e ? -1 : pk_evsel_fd(leader, ci, ti);

			fprintf(stderr, "sys_perf_event_open: pid %d  cpu %d  "
				"group_fd %d  flags %#lx",
				pk_thread_map_tid(t->threads, ti),
				pk_cpu_map_cpu(t->cpus, ci), g < 0 ? -1 : g,
				t->flags);
			if (err) {
				fprintf(stderr, "\nsys_perf_event_open failed, "
					"error %d\n", err);
				return;
			}
			fprintf(stderr, " = %d\n", pk_evsel_fd(e, ci, ti));
		}
	}
}

void cli_open_attempt(void *ctx, struct pk_evsel *e,
		      const struct perf_event_attr *tried, int err,
		      const char *retry, int level)
{
	const struct cli_open_trace *t = ctx;

	if (t->verbose >= 2)
		print_attempt(t, e, tried, err);
	if (retry && level == 2 && t->verbose >= 2)
		fprintf(stderr, "%s\n", retry);
	else if (retry && level == 1 && t->verbose)
		fprintf(stderr, "Warning:\n%s\n", retry);
}

int cli_open_sampling(const char *cmd, struct pk_evsel *e,
		      struct pk_cpu_map *cpus, struct pk_thread_map *threads,
		      int verbose)
{
	struct cli_open_trace trace = { verbose, cpus, threads,
					PERF_FLAG_FD_CLOEXEC, false };
	PK_OPTS(pk_open_opts, opts, .attempt = cli_open_attempt,
		.attempt_ctx = &trace,
		.fallbacks = PK_OPEN_FALLBACK_PRECISE | PK_OPEN_FALLBACK_CYCLES |
			     PK_OPEN_FALLBACK_USER);
	char msg[512];
	int err = pk_evsel_open(e, cpus, threads, &opts);

	if (err && cmd) {
		pk_open_strerror(err, pk_evsel_attr(e),
				 pk_cpu_map_cpu(cpus, 0) >= 0 &&
				 pk_thread_map_tid(threads, 0) < 0,
				 msg, sizeof(msg));
		cli_error(cmd, "cannot open '%s': %s", pk_evsel_name(e), msg);
	}
	return err;
}
