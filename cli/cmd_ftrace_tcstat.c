/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace stat: trace-cmd stat 3.1, what is set where: the tracer,
 * the events enabled, their filters and triggers, the buffer size, clock,
 * CPU mask, PID filters, tracing on or off, options (-o), the error log;
 * for the top level (the instances listed after it) or -B instances (-t:
 * the top level first).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/ftrace.h>
#include "cli.h"

/* FILE of INST, its trailing newlines gone; NULL when unreadable. */
static char *rd(struct pk_tracefs *t, const char *inst, const char *file)
{
	char *s;
	long n = pk_tracefs_read(t, inst, file, &s);

	if (n < 0)
		return NULL;
	while (n > 0 && s[n - 1] == '\n')
		s[--n] = 0;
	return s;
}

/* The entries of DIR (of INST) of KIND, in directory order; never NULL
 * but when out of memory. */
static char **entries(struct pk_tracefs *t, const char *inst,
		      const char *dir, int kind)
{
	char **v = NULL;

	if (pk_tracefs_entries(t, inst, dir, kind, &v) < 0)
		v = calloc(1, sizeof(*v));
	return v;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Events: all, none, or the systems wholly enabled and the events of
 * the partly enabled ones. */
static void st_events(struct pk_tracefs *t, const char *inst, char **sys)
{
	char *all = rd(t, inst, "events/enable"), f[512];

	printf("Events:\n");
	if (all && (all[0] == '0' || all[0] == '1')) {
		printf(" All %s\n\n", all[0] == '1' ? "enabled" : "disabled");
		free(all);
		return;
	}
	free(all);
	bool any = false, head = false;
	for (size_t i = 0; sys[i]; i++) {
		snprintf(f, sizeof(f), "events/%s/enable", sys[i]);
		char *s = rd(t, inst, f);
		if (s && s[0] == '1') {
			if (!head)
				printf(" Individual systems:\n");
			head = any = true;
			printf("   %s\n", sys[i]);
		}
		free(s);
	}
	head = false;
	for (size_t i = 0; sys[i]; i++) {
		snprintf(f, sizeof(f), "events/%s/enable", sys[i]);
		char *s = rd(t, inst, f);
		bool part = s && s[0] == 'X';
		free(s);
		if (!part)
			continue;
		snprintf(f, sizeof(f), "events/%s", sys[i]);
		char **ev = entries(t, inst, f, PK_TRACEFS_DIRS);
		bool sys_head = false;
		for (size_t k = 0; ev[k]; k++) {
			snprintf(f, sizeof(f), "events/%s/%s/enable", sys[i],
				 ev[k]);
			char *e = rd(t, inst, f);
			if (e && e[0] == '1') {
				if (!head)
					printf(" Individual events:\n");
				if (!sys_head)
					printf("    %s\n", sys[i]);
				head = sys_head = any = true;
				printf("        %s\n", ev[k]);
			}
			free(e);
		}
		strv_free(ev);
	}
	if (!any)
		printf("  (none enabled)\n");
	printf("\n");
}

/* Filters: or Triggers: (FILE "filter" or "trigger") of every event. */
static void st_event_files(struct pk_tracefs *t, const char *inst,
			   char **sys, const char *file, const char *title)
{
	bool head = false;
	char f[512];

	for (size_t i = 0; sys[i]; i++) {
		snprintf(f, sizeof(f), "events/%s", sys[i]);
		char **ev = entries(t, inst, f, PK_TRACEFS_DIRS);
		for (size_t k = 0; ev[k]; k++) {
			snprintf(f, sizeof(f), "events/%s/%s/%s", sys[i], ev[k],
				 file);
			char *s = rd(t, inst, f);
			if (s && *s && strcmp(s, "none") && s[0] != '#') {
				if (!head)
					printf("%s:\n", title);
				head = true;
				printf("  %s:%s \"%s\"\n", sys[i], ev[k], s);
			}
			free(s);
		}
		strv_free(ev);
	}
	if (head)
		printf("\n");
}

/* A file shown under TITLE when not empty (PID lists). */
static void st_list(struct pk_tracefs *t, const char *inst, const char *file,
		    const char *title)
{
	char *s = rd(t, inst, file);

	if (s && *s)
		printf("%s:\n%s\n\n", title, s);
	free(s);
}

/* Whether the hex CPU mask S has a bit for each of the CPUs. */
static bool mask_full(const char *s)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	long bits = 0;

	for (; *s; s++) {
		int v = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : 0;
		bits += __builtin_popcount((unsigned)v);
	}
	return bits >= n;
}

static void st_options(struct pk_tracefs *t, const char *inst)
{
	char **v = entries(t, inst, "options", PK_TRACEFS_FILES), f[512];

	printf("Options:\n");
	for (size_t i = 0; v[i]; i++) {
		snprintf(f, sizeof(f), "options/%s", v[i]);
		char *s = rd(t, inst, f);
		if (s)
			printf("   %s%s\n", s[0] == '1' ? "" : "no", v[i]);
		free(s);
	}
	printf("\n");
	strv_free(v);
}

static void st_instance(struct pk_tracefs *t, const char *inst, bool opts)
{
	char **sys = entries(t, inst, "events", PK_TRACEFS_DIRS);
	char *s;

	if (inst)
		printf("Instance: %s\n", inst);
	printf("\n");
	if ((s = rd(t, inst, "current_tracer")) && strcmp(s, "nop"))
		printf("Tracer: %s\n\n", s);
	free(s);
	st_events(t, inst, sys);
	st_event_files(t, inst, sys, "filter", "Filters");
	st_event_files(t, inst, sys, "trigger", "Triggers");
	strv_free(sys);
	if ((s = rd(t, inst, "buffer_size_kb")))
		printf("Buffer size in kilobytes (per cpu):\n   %s\n\n", s);
	free(s);
	if ((s = rd(t, inst, "buffer_total_size_kb")))
		printf("Buffer total size in kilobytes:\n   %s\n\n", s);
	free(s);
	if (pk_tracefs_read_clock(t, inst, &s) >= 0 && strcmp(s, "local"))
		printf("Clock: %s\n\n", s);
	free(s);
	if ((s = rd(t, inst, "tracing_cpumask")) && !mask_full(s))
		printf("CPU mask: %s\n\n", s);
	free(s);
	st_list(t, inst, "set_ftrace_pid", "Filtered PIDs");
	st_list(t, inst, "set_ftrace_notrace_pid", "Filtered notrace PIDs");
	st_list(t, inst, "set_event_pid", "Filtered event PIDs");
	st_list(t, inst, "set_event_notrace_pid",
		"Filtered notrace event PIDs");
	if (opts)
		st_options(t, inst);
	if ((s = rd(t, inst, "tracing_on")))
		printf("Tracing is %s\n\n", s[0] == '0' ? "disabled" :
		       "enabled");
	free(s);
	if ((s = rd(t, inst, "error_log")) && *s)
		printf("\nError log:\n%s\n", s);
	free(s);
}

static void tcstat_usage(FILE *f)
{
	fprintf(f, "usage: perfkit ftrace stat [-B NAME]... [-t] [-o]\n"
		   "  trace-cmd stat: what is set in tracefs (only what "
		   "differs from the defaults)\n"
		   "  -B NAME  an instance (several allowed); -t  the top "
		   "level too; -o  options\n"
		   "  (perfkit's per-CPU table and function profile: "
		   "ftrace bufstat)\n");
}

int cmd_ftrace_stat(int argc, char **argv)
{
	const char *insts[64];
	int n = 0, c;
	bool top = false, opts = false;
	struct pk_tracefs *t;

	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' }, { 0 }
	};

	optind = 1;
	while ((c = getopt_long(argc, argv, "+B:toh", lo, NULL)) != -1) {
		switch (c) {
		case 'B':
			if (n == 64) {
				cli_error("ftrace stat", "too many -B");
				return 2;
			}
			insts[n++] = optarg;
			break;
		case 't': top = true; break;
		case 'o': opts = true; break;
		case 'h': tcstat_usage(stdout); return 0;
		default: tcstat_usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		cli_error("ftrace stat", "unexpected argument '%s'",
			  argv[optind]);
		return 2;
	}
	if (!(t = pk_tracefs_open())) {
		cli_error("ftrace stat", "tracefs: %s", pk_strerror(-errno));
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (!pk_tracefs_has(t, insts[i], "tracing_on")) {
			cli_error("ftrace stat", "instance %s not found",
				  insts[i]);
			pk_tracefs_free(t);
			return 1;
		}
	if (!n || top) {
		st_instance(t, NULL, opts);
		char **v = entries(t, NULL, "instances", PK_TRACEFS_DIRS);
		if (v && v[0]) {
			printf("\nInstances:\n");
			for (size_t i = 0; v[i]; i++)
				printf(" %s\n", v[i]);
		}
		strv_free(v);
	}
	for (int i = 0; i < n; i++) {
		if (top)
			printf("---------------\n");
		st_instance(t, insts[i], opts);
	}
	pk_tracefs_free(t);
	return 0;
}
