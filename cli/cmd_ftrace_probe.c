/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace probe: the kernel's dynamic events (record --probe makes
 * and removes them); perfkit ftrace hist: an event's hist file, read as
 * it is or around a command with hist triggers added for it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/ftrace.h>
#include "cli.h"

static void probe_usage(FILE *f)
{
	fputs("usage: perfkit ftrace probe [list]\n"
	      "  lists the dynamic events (dynamic_events, else kprobe_events, "
	      "uprobe_events\n"
	      "  and synthetic_events): kprobes, uprobes, event probes, "
	      "synthetic events.\n"
	      "  `ftrace record --probe DEF` makes one for a recording (removed "
	      "at its end);\n"
	      "  `ftrace reset --stale` removes those of killed runs.\n", f);
}

int cmd_ftrace_probe(int argc, char **argv)
{
	static const char *const files[] = {
		"kprobe_events", "uprobe_events", "synthetic_events",
	};
	struct pk_tracefs *t;
	char *s;
	long n;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		probe_usage(stdout);
		return 0;
	}
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "list") &&
			 strcmp(argv[1], "-l"))) {
		probe_usage(stderr);
		return 2;
	}
	if (!(t = pk_tracefs_open())) {
		cli_error("ftrace probe", "tracefs: %s", pk_strerror(-errno));
		return 1;
	}
	if ((n = pk_tracefs_read(t, NULL, "dynamic_events", &s)) >= 0) {
		fwrite(s, 1, (size_t)n, stdout);
		free(s);
	} else {
		for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			if ((n = pk_tracefs_read(t, NULL, files[i], &s)) >= 0) {
				fwrite(s, 1, (size_t)n, stdout);
				free(s);
			}
	}
	pk_tracefs_free(t);
	return 0;
}

static void hist_usage(FILE *f)
{
	fputs("usage: perfkit ftrace hist SYSTEM:EVENT [-R TRIGGER]... "
	      "[-B INSTANCE] [-- COMMAND...]\n"
	      "  prints the kernel's events/SYSTEM/EVENT/hist. With -R (e.g. "
	      "'hist:keys=pid:vals=\n"
	      "  hitcount:sort=hitcount.descending'): adds the triggers, runs "
	      "COMMAND (or\n"
	      "  waits for Ctrl-C), prints the hist file, removes them "
	      "again.\n", f);
}

/* The hist file of EV ("SYS:EVENT") in INST on stdout. 0 or -errno. */
static int print_hist(struct pk_tracefs *t, const char *inst, const char *ev)
{
	char f[512], *s;
	const char *c = strchr(ev, ':');
	long n;

	if (!c)
		return -EINVAL;
	snprintf(f, sizeof(f), "events/%.*s/%s/hist", (int)(c - ev), ev, c + 1);
	if ((n = pk_tracefs_read(t, inst, f, &s)) < 0)
		return (int)n;
	fwrite(s, 1, (size_t)n, stdout);
	free(s);
	return 0;
}

int cmd_ftrace_hist(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "trigger", required_argument, NULL, 'R' },
		{ "instance", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *C = "ftrace hist", *inst = NULL, *ev;
	const char *trig[64];
	int nt = 0, c, e = 0, rc = 1;
	struct pk_tracefs *t;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "+R:B:h", lo, NULL)) != -1) {
		switch (c) {
		case 'R':
			if (nt == 64) {
				cli_error(C, "too many -R");
				return 2;
			}
			trig[nt++] = optarg;
			break;
		case 'B': inst = optarg; break;
		case 'h': hist_usage(stdout); return 0;
		default: hist_usage(stderr); return 2;
		}
	}
	if (optind >= argc || !strchr(argv[optind], ':')) {
		cli_error(C, "give the event as SYSTEM:EVENT");
		hist_usage(stderr);
		return 2;
	}
	ev = argv[optind++];
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (!(t = pk_tracefs_open())) {
		cli_error(C, "tracefs: %s", pk_strerror(-errno));
		return 1;
	}
	pk_tracefs_restore_on_signals(t);
	for (int i = 0; i < nt && !e; i++) {
		e = pk_tracefs_event_trigger(t, inst, ev, trig[i]);
		if (e < 0) {
			const char *el = pk_tracefs_error_log(t);
			cli_error(C, "%s: trigger '%s': %s%s%s", ev, trig[i],
				  e == -ENOENT ? "no such event" :
				  e == -EINVAL ? "refused by the kernel" :
				  pk_strerror(e), el ? "\n" : "", el ? el : "");
		}
	}
	if (e >= 0 && nt && cli_ftrace_run_cmd(argv + optind))
		e = -1;
	if (e >= 0) {
		e = print_hist(t, inst, ev);
		if (e < 0)
			cli_error(C, "%s: hist: %s", ev, e == -ENOENT ?
				  "no such file (no such event, or no hist "
				  "triggers in this kernel)" : pk_strerror(e));
		else
			rc = 0;
	}
	fflush(stdout);
	pk_tracefs_free(t);
	return rc;
}
