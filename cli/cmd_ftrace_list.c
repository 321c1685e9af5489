/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace list: trace-cmd list 3.1's options (-e [REGEX] with -F,
 * --full, -R, -l; -t, -o, -f [REGEX], -B, -C, -c; no argument: all of
 * it) and perfkit's own KIND [GLOB] form.
 */
#include <errno.h>
#include <regex.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/ftrace.h>
#include <perfkit/tracefmt.h>
#include "cli.h"

static void list_usage(FILE *f)
{
	fprintf(f, "usage: perfkit ftrace list [-e [REGEX] [-F [--full]|-R|-l]] "
		   "[-t] [-o] [-f [REGEX]] [-B] [-C] [-c] [-P] [-O] [-s]\n"
		   "       perfkit ftrace list tracers|events|functions|options "
		   "[GLOB]\n"
		   "  trace-cmd list's options, with its meaning (no argument: "
		   "systems, events,\n"
		   "  tracers, options and compressions):\n"
		   "  -e [REGEX]  events (REGEX: basic, any case; SYS:EVENT "
		   "or either)\n"
		   "  -F, --full  their formats (--full: with the print fmt); "
		   "-R triggers; -l filters\n"
		   "  -t tracers  -o options  -f [REGEX] functions  -B "
		   "instances  -C clocks\n"
		   "  -c          compression algorithms  -s event systems\n"
		   "  -P          libtraceevent's plugins  -O their options\n"
		   "  perfkit's own: KIND [GLOB], events as system:event (a "
		   "GLOB without ':'\n"
		   "  matches the system or the event)\n");
}

/* ---- trace-cmd list ---- */
enum {
	TL_EVENTS = 1, TL_TRACERS = 2, TL_OPTIONS = 4, TL_FUNCS = 8,
	TL_BUFFERS = 16, TL_CLOCKS = 32, TL_COMP = 64, TL_PLUGINS = 128,
	TL_PLUGIN_OPTS = 256, TL_SYSTEMS = 512,
};
struct tl {
	unsigned what;
	const char *ere, *fre;          /* -e, -f regex */
	bool format, full, triggers, filters;
	regex_t sys_re, ev_re;
	bool both;                      /* "SYS:EVENT": both must match */
};

/* The entries of tracefs's DIR of KIND (PK_TRACEFS_DIRS, _FILES) in
 * directory order; NULL-ended, or NULL (no memory). */
static char **dir_list(struct pk_tracefs *t, const char *dir, int kind)
{
	char **v = NULL;

	if (pk_tracefs_entries(t, NULL, dir, kind, &v) < 0)
		v = calloc(1, sizeof(*v));
	return v;
}

static char **subdirs(struct pk_tracefs *t, const char *dir)
{
	return dir_list(t, dir, PK_TRACEFS_DIRS);
}

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Prints tracefs FILE (under INSTANCE-less root) as it is. */
static int tl_cat(struct pk_tracefs *t, const char *file)
{
	char *s;
	long n = pk_tracefs_read(t, NULL, file, &s);

	if (n < 0) {
		fprintf(stderr, "trace-cmd: %s\n  reading %s/%s\n",
			strerror((int)-n), pk_tracefs_dir(t), file);
		return 0;       /* trace-cmd goes on */
	}
	fwrite(s, 1, (size_t)n, stdout);
	free(s);
	return 0;
}

/* -e with -F, -R or -l: what trace-cmd prints of one event. */
static void tl_event_detail(struct pk_tracefs *t, const struct tl *o,
			    const char *sys, const char *ev)
{
	char f[512], *s;
	const char *what = o->format ? "format" : o->filters ? "filter" :
			   "trigger";
	long n;

	snprintf(f, sizeof(f), "events/%s/%s/%s", sys, ev, what);
	if ((n = pk_tracefs_read(t, NULL, f, &s)) < 0)
		return;
	if (o->format) {
		/* without --full, up to the print fmt */
		char *pf = o->full ? NULL : strstr(s, "\nprint fmt:");
		printf("system: %s\n%.*s", sys, (int)(pf ? pf - s + 1 : n), s);
	} else {
		printf("%s:%s\n%s\n", sys, ev, s);
	}
	free(s);
}

static bool tl_match(const struct tl *o, const char *sys, const char *ev)
{
	bool ms = !regexec(&o->sys_re, sys, 0, NULL, 0);
	bool me = !regexec(&o->ev_re, ev, 0, NULL, 0);

	return o->both ? ms && me : ms || me;
}

/* -e REGEX: the ftrace system first, then the others in directory order. */
static int tl_events_re(struct pk_tracefs *t, const struct tl *o)
{
	char **sys = subdirs(t, "events");

	if (!sys)
		return -errno;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; sys[i]; i++) {
			if ((pass == 0) != !strcmp(sys[i], "ftrace"))
				continue;
			char d[512];
			snprintf(d, sizeof(d), "events/%s", sys[i]);
			char **ev = subdirs(t, d);
			for (size_t k = 0; ev && ev[k]; k++) {
				if (!tl_match(o, sys[i], ev[k]))
					continue;
				if (o->format || o->filters || o->triggers)
					tl_event_detail(t, o, sys[i], ev[k]);
				else
					printf("%s:%s\n", sys[i], ev[k]);
			}
			free_strv(ev);
		}
	}
	free_strv(sys);
	return 0;
}

static int tl_compile(struct tl *o)
{
	char *s = strdup(o->ere), *c;
	const char *sre = s, *ere = s;
	int e;

	if (!s)
		return -ENOMEM;
	if ((c = strchr(s, ':'))) {
		*c = 0;
		ere = c + 1;
		o->both = true;
	}
	e = regcomp(&o->sys_re, sre, REG_ICASE | REG_NOSUB);
	if (!e && (e = regcomp(&o->ev_re, ere, REG_ICASE | REG_NOSUB)))
		regfree(&o->sys_re);
	free(s);
	return e ? -EINVAL : 0;
}

static void tl_functions(struct pk_tracefs *t, const char *re)
{
	regex_t rx;
	char *s;
	long n = pk_tracefs_read(t, NULL, "available_filter_functions", &s);

	if (n < 0) {
		fprintf(stderr, "trace-cmd: %s\n  reading %s/%s\n",
			strerror((int)-n), pk_tracefs_dir(t),
			"available_filter_functions");
		return;
	}
	if (re && regcomp(&rx, re, REG_NOSUB)) {
		free(s);
		return;
	}
	for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n"))
		if (!re || !regexec(&rx, l, 0, NULL, 0))
			printf("%s\n", l);
	if (re)
		regfree(&rx);
	free(s);
}

/* -o: every file of options/ (tracers' options too), "no" when off. */
static void tl_options(struct pk_tracefs *t)
{
	char **v = dir_list(t, "options", PK_TRACEFS_FILES);

	for (size_t i = 0; v && v[i]; i++) {
		char f[512], *s;
		snprintf(f, sizeof(f), "options/%s", v[i]);
		if (pk_tracefs_read(t, NULL, f, &s) < 0)
			continue;
		printf("%s%s\n", s[0] == '1' ? "" : "no", v[i]);
		free(s);
	}
	free_strv(v);
}

static void tl_buffers(struct pk_tracefs *t)
{
	char **v = subdirs(t, "instances");

	if (!v || !v[0])
		printf("No buffer instances defined\n");
	for (size_t i = 0; v && v[i]; i++)
		printf("%s\n", v[i]);
	free_strv(v);
}

/* -P, -O: libtraceevent's plugins, their options */
static void tl_plugins(bool options)
{
	char *s = pk_tracefmt_plugins_text(options);

	if (s)
		fputs(s, stdout);
	free(s);
}

/* -s: the event systems in directory order, then a blank line */
static void tl_systems(struct pk_tracefs *t)
{
	char **v = subdirs(t, "events");

	for (size_t i = 0; v && v[i]; i++)
		printf("%s\n", v[i]);
	printf("\n");
	free_strv(v);
}

static void tl_compressions(void)
{
	const char *ver, *name;

	printf("Supported compression algorithms:\n");
	for (int i = 0; (name = pk_tracedat_codec(i, &ver)); i++)
		printf("\t%s, %s\n", name, ver);
}

static int tl_run(struct pk_tracefs *t, struct tl *o)
{
	int e;

	if (!o->what) {
		char **v = subdirs(t, "events");
		printf("event systems:\n");
		for (size_t i = 0; v && v[i]; i++)
			printf("%s\n", v[i]);
		free_strv(v);
		printf("\nevents:\n");
		tl_cat(t, "available_events");
		printf("\ntracers:\n");
		tl_cat(t, "available_tracers");
		printf("\noptions:\n");
		tl_options(t);
		tl_compressions();
		return 0;
	}
	if (o->what & TL_EVENTS) {
		if (!o->ere) {
			tl_cat(t, "available_events");
		} else {
			if ((e = tl_compile(o)) < 0) {
				cli_error("ftrace list", "-e %s: bad regular "
					  "expression", o->ere);
				return 1;
			}
			e = tl_events_re(t, o);
			regfree(&o->sys_re);
			regfree(&o->ev_re);
			if (e < 0) {
				cli_error("ftrace list", "events: %s",
					  pk_strerror(e));
				return 1;
			}
		}
	}
	if (o->what & TL_TRACERS)
		tl_cat(t, "available_tracers");
	if (o->what & TL_OPTIONS)
		tl_options(t);
	if (o->what & TL_PLUGINS)
		tl_plugins(false);
	if (o->what & TL_PLUGIN_OPTS)
		tl_plugins(true);
	if (o->what & TL_FUNCS)
		tl_functions(t, o->fre);
	if (o->what & TL_BUFFERS)
		tl_buffers(t);
	if (o->what & TL_CLOCKS)
		tl_cat(t, "trace_clock");
	if (o->what & TL_SYSTEMS)
		tl_systems(t);
	if (o->what & TL_COMP)
		tl_compressions();
	return 0;
}

/* trace-cmd list's arguments: -e and -f take the next word as their
 * regex unless it starts with '-'. 0, or 2 (usage). */
static int tl_parse(int argc, char **argv, struct tl *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool next = i + 1 < argc && argv[i + 1][0] != '-';
		if (!strcmp(a, "--full")) {
			o->full = true;
			continue;
		}
		if (a[0] != '-' || !a[1] || a[2])
			return 2;
		switch (a[1]) {
		case 'e': o->what |= TL_EVENTS;
			if (next)
				o->ere = argv[++i];
			break;
		case 'f': o->what |= TL_FUNCS;
			if (next)
				o->fre = argv[++i];
			break;
		case 'F': o->format = true; break;
		case 'R': o->triggers = true; break;
		case 'l': o->filters = true; break;
		case 't': o->what |= TL_TRACERS; break;
		case 'o': o->what |= TL_OPTIONS; break;
		case 'B': o->what |= TL_BUFFERS; break;
		case 'C': o->what |= TL_CLOCKS; break;
		case 'c': o->what |= TL_COMP; break;
		case 'P': o->what |= TL_PLUGINS; break;
		case 'O': o->what |= TL_PLUGIN_OPTS; break;
		case 's': o->what |= TL_SYSTEMS; break;
		default: return 2;
		}
	}
	if ((o->format || o->triggers || o->filters) && !o->ere) {
		if (!(o->what & TL_EVENTS))
			return 0;       /* trace-cmd: the plain list */
		fprintf(stderr, "  When specifying event files, an event must "
			"be named\n");
		return 1;
	}
	return 0;
}

static bool match(const char *glob, const char *s)
{
	return !glob || !fnmatch(glob, s, 0);
}

/* Reads FILE; one clear line and -errno when it cannot. */
static long get(struct pk_tracefs *t, const char *what, const char *file,
		char **s)
{
	long n = pk_tracefs_read(t, NULL, file, s);

	if (n == -EPERM || n == -EACCES)
		cli_error("ftrace list", "%s: not permitted on this system "
			  "(%s: EPERM: kernel lockdown or no dynamic ftrace)",
			  what, file);
	else if (n < 0)
		cli_error("ftrace list", "%s: %s: %s", what, file,
			  pk_strerror((int)n));
	return n;
}

static int list_words(struct pk_tracefs *t, const char *glob)
{
	char *s;
	if (get(t, "tracers", "available_tracers", &s) < 0)
		return 1;
	for (char *w = strtok(s, " \t\n"); w; w = strtok(NULL, " \t\n"))
		if (match(glob, w))
			printf("%s\n", w);
	free(s);
	return 0;
}

static int list_events(struct pk_tracefs *t, const char *glob)
{
	char *s;
	bool full = glob && strchr(glob, ':');

	if (get(t, "events", "available_events", &s) < 0)
		return 1;
	for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n")) {
		char *c = strchr(l, ':');
		bool ok = !glob || match(glob, l);
		if (!ok && !full && c) {
			*c = 0;
			ok = match(glob, l) || match(glob, c + 1);
			*c = ':';
		}
		if (ok)
			printf("%s\n", l);
	}
	free(s);
	return 0;
}

static int list_functions(struct pk_tracefs *t, const char *glob)
{
	char *s;

	if (get(t, "functions", "available_filter_functions", &s) < 0)
		return 1;
	for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n")) {
		/* "name" or "name [module]" */
		char *sp = strchr(l, ' ');
		if (sp)
			*sp = 0;
		bool ok = match(glob, l);
		if (sp)
			*sp = ' ';
		if (ok)
			printf("%s\n", l);
	}
	free(s);
	return 0;
}

static int list_options(struct pk_tracefs *t, const char *glob)
{
	char *s;

	if (get(t, "options", "trace_options", &s) < 0)
		return 1;
	for (char *l = strtok(s, "\n"); l; l = strtok(NULL, "\n")) {
		const char *name = l;
		/* "noX" is option X, off (an option may itself start "no") */
		if (!strncmp(l, "no", 2) && !match(glob, l))
			name = l + 2;
		if (match(glob, name))
			printf("%s\n", l);
	}
	free(s);
	return 0;
}

int cmd_ftrace_list(int argc, char **argv)
{
	static const struct { const char *kind; int (*fn)(struct pk_tracefs *,
							   const char *); }
	kinds[] = {
		{ "tracers", list_words }, { "events", list_events },
		{ "functions", list_functions }, { "options", list_options },
	};
	const char *kind = NULL, *glob = NULL;
	struct pk_tracefs *t;
	int e, rc = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			list_usage(stdout);
			return 0;
		}
	if (argc < 2 || argv[1][0] == '-') {
		struct tl o = { 0 };
		int rc = tl_parse(argc, argv, &o);
		if (rc == 2)
			list_usage(stderr);
		if (rc)
			return rc;
		if (!(t = pk_tracefs_open())) {
			cli_error("ftrace list", "tracefs: %s",
				  pk_strerror(-errno));
			return 1;
		}
		rc = tl_run(t, &o);
		pk_tracefs_free(t);
		return rc;
	}
	for (int i = 1; i < argc; i++) {
		bool is_kind = false;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!kind && !glob && !strcmp(argv[i], kinds[k].kind))
				is_kind = true;
		if (is_kind)
			kind = argv[i];
		else if (!glob)
			glob = argv[i];
		else {
			list_usage(stderr);
			return 2;
		}
	}
	if (!(t = pk_tracefs_open())) {
		e = -errno;
		cli_error("ftrace list", "tracefs: %s", pk_strerror(e));
		return 1;
	}
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		if (kind && strcmp(kind, kinds[k].kind))
			continue;
		if (!kind && !strcmp(kinds[k].kind, "functions"))
			continue;
		if (!kind)
			printf("%s%s:\n", k ? "\n" : "", kinds[k].kind);
		rc |= kinds[k].fn(t, glob);
	}
	pk_tracefs_free(t);
	return rc;
}
