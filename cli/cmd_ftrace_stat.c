/* SPDX-License-Identifier: MIT */
/* perfkit ftrace bufstat (was perfkit's stat): per-CPU buffer statistics and the function profile. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/ftrace.h>
#include "cli.h"
#include "ftrace_opts.h"

void cli_ftrace_print_profile(FILE *f, const struct pk_func_profile *p, int n,
			      bool has_time)
{
	if (has_time)
		fprintf(f, "  %-30s  %10s  %16s  %14s  %16s\n", "Function",
			"Hit", "Time (us)", "Avg (us)", "s^2 (us^2)");
	else
		fprintf(f, "  %-30s  %10s\n", "Function", "Hit");
	for (int i = 0; i < n; i++) {
		if (has_time)
			fprintf(f, "  %-30s  %10llu  %16.3f  %14.3f  %16.3f\n",
				p[i].name, (unsigned long long)p[i].hit,
				p[i].time_us, p[i].avg_us, p[i].s2_us);
		else
			fprintf(f, "  %-30s  %10llu\n", p[i].name,
				(unsigned long long)p[i].hit);
	}
}

static int cpu_dirs(int *cpus, int max, struct pk_tracefs *t,
		    const char *inst)
{
	char p[4096];
	struct dirent **d;
	int n, cnt = 0;

	if (pk_tracefs_path(t, inst, "per_cpu", p, sizeof(p)))
		return -ENAMETOOLONG;
	n = scandir(p, &d, NULL, NULL);
	if (n < 0)
		return -errno;
	for (int i = 0; i < n; i++) {
		char *end;
		if (!strncmp(d[i]->d_name, "cpu", 3) && cnt < max) {
			long c = strtol(d[i]->d_name + 3, &end, 10);
			if (end != d[i]->d_name + 3 && !*end)
				cpus[cnt++] = (int)c;
		}
		free(d[i]);
	}
	free(d);
	/* numeric order */
	for (int i = 1; i < cnt; i++)
		for (int k = i; k > 0 && cpus[k - 1] > cpus[k]; k--) {
			int x = cpus[k];
			cpus[k] = cpus[k - 1];
			cpus[k - 1] = x;
		}
	return cnt;
}

static void ts(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000 / 1000));
}

/* ftrace stat of the buffer of INST. The exit status. */
static int stat_buffer(const char *inst)
{
	static int cpus[4096];
	struct pk_tracefs *t;
	int e, n;

	if (!(t = pk_tracefs_open())) {
		e = -errno;
		cli_error("ftrace bufstat", "tracefs: %s", pk_strerror(e));
		return 1;
	}
	n = cpu_dirs(cpus, 4096, t, inst);
	if (n < 0) {
		cli_error("ftrace bufstat", "%s%sper_cpu: %s", inst ? inst : "",
			  inst ? "/" : "", pk_strerror(n));
		pk_tracefs_free(t);
		return 1;
	}
	printf("%s%s\n", inst ? "instance " : "top-level buffer",
	       inst ? inst : "");
	printf("%4s %10s %10s %10s %12s %18s %18s %10s %10s\n", "CPU",
	       "entries", "overrun", "commit_ovr", "bytes", "oldest event ts",
	       "now ts", "dropped", "read");
	for (int i = 0; i < n; i++) {
		struct pk_tracefs_stats st;
		char a[32], b[32];
		if (pk_tracefs_cpu_stats(t, inst, cpus[i], &st))
			continue;
		ts(a, sizeof(a), st.oldest_ts);
		ts(b, sizeof(b), st.now_ts);
		printf("%4d %10llu %10llu %10llu %12llu %18s %18s %10llu %10llu\n",
		       cpus[i], (unsigned long long)st.entries,
		       (unsigned long long)st.overrun,
		       (unsigned long long)st.commit_overrun,
		       (unsigned long long)st.bytes, a, b,
		       (unsigned long long)st.dropped,
		       (unsigned long long)st.read);
	}
	struct pk_func_profile *p = NULL;
	bool has_time = false;
	int np = pk_tracefs_profile_read(t, inst, &p, &has_time);
	if (np > 0) {
		printf("\nfunction profile (trace_stat/function*, all CPUs):\n");
		cli_ftrace_print_profile(stdout, p, np, has_time);
	} else if (np < 0 && np != -ENOENT) {
		cli_error("ftrace bufstat", "trace_stat: %s", pk_strerror(np));
	}
	free(p);
	pk_tracefs_free(t);
	return 0;
}

int cmd_ftrace_bufstat(int argc, char **argv)
{
	struct cli_ftrace_opts f;
	int rc;

	if (cli_ftrace_opts_parse(&f, CLI_FT_STAT, "ftrace bufstat", argc, argv,
				  &rc)) {
		if (f.nr_args) {
			cli_error("ftrace bufstat", "unexpected argument '%s'",
				  f.args[0]);
			rc = 2;
		} else {
			rc = stat_buffer(f.instance);
		}
	}
	cli_ftrace_opts_fini(&f);
	return rc;
}
