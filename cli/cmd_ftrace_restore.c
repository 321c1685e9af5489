/* SPDX-License-Identifier: MIT */
/*
 * perfkit ftrace restore: trace-cmd 3.1's restore. A trace.dat from the
 * per-CPU files a crashed trace-cmd record (or listen) left
 * (trace.dat.cpuN: raw ring-buffer pages), with the metadata of this
 * machine's tracefs or of a partial file; -c writes such a partial file
 * (metadata only) from tracefs for a restore elsewhere.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/tracedat.h>
#include <perfkit/tracefs.h>
#include "cli.h"

static const char *const C = "ftrace restore";

static const char usage[] =
	"usage: perfkit ftrace restore [-c] [-o FILE] [-i PARTIAL] "
	"[-t TRACING_DIR] [-k KALLSYMS]\n"
	"                              [CPU-FILE...]\n"
	"  trace-cmd restore: a trace.dat (-o FILE, trace.dat) from the "
	"per-CPU files of a\n  crashed trace-cmd record (trace.dat.cpu0 "
	"trace.dat.cpu1 ..., CPU 0, 1 ... in\n  the order given) with the "
	"metadata of PARTIAL (-i) or of this machine's\n  tracefs (-t DIR "
	"instead, -k a kallsyms file instead of /proc/kallsyms).\n"
	"  -c: only the metadata, into a partial file (-o FILE, "
	"trace-partial.dat) for\n  a restore -i on another machine\n";

struct ropts {
	const char *output, *input, *dir, *kallsyms;
	bool create;
};

/* The options into *O. 0, or the exit status after the message. */
static int parse(int argc, char **argv, struct ropts *o)
{
	static const struct option lo[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "+hco:i:t:k:", lo, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage, stdout);
			return -1;
		case 'c':
		case 'i':
			if (o->input || (c == 'i' && o->create)) {
				cli_error(C, o->input && c == 'i'
					  ? "only one input file allowed"
					  : "-c and -i are incompatible");
				return 2;
			}
			o->create |= c == 'c';
			o->input = c == 'i' ? optarg : NULL;
			break;
		case 'o':
			if (o->output) {
				cli_error(C, "only one output file allowed");
				return 2;
			}
			o->output = optarg;
			break;
		case 't': o->dir = optarg; break;
		case 'k': o->kallsyms = optarg; break;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!o->output)
		o->output = o->create ? "trace-partial.dat" : "trace.dat";
	if (optind == argc && !o->create) {
		cli_error(C, "no data files found");
		fputs(usage, stderr);
		return 2;
	}
	return 0;
}

/* Whether A and B name the same existing file. */
static bool same_file(const char *a, const char *b)
{
	struct stat s1, s2;

	return !stat(a, &s1) && !stat(b, &s2) && s1.st_ino == s2.st_ino &&
	       s1.st_dev == s2.st_dev;
}

/* The tracefs: -t DIR, or this machine's. NULL after the message. */
static struct pk_tracefs *tracefs(const struct ropts *o)
{
	struct pk_tracefs *t = o->dir ? pk_tracefs_open_at(o->dir, NULL)
				      : pk_tracefs_open();

	if (!t)
		cli_error(C, "%s: %s", o->dir ? o->dir : "tracefs",
			  pk_strerror(-errno));
	return t;
}

/* Opens the N files of PATHS into FDS. 0, or -1 after the message (the
 * ones opened closed). */
static int open_cpus(char **paths, int n, int *fds)
{
	for (int i = 0; i < n; i++) {
		fds[i] = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (fds[i] < 0) {
			cli_error(C, "%s: %s", paths[i], strerror(errno));
			while (i--)
				close(fds[i]);
			return -1;
		}
	}
	return 0;
}

/* The metadata into W: PARTIAL's (-i), else T's as trace-cmd saves it. */
static int fill(struct pk_tdwriter *w, const struct ropts *o,
		const struct pk_tracedat *partial, const struct pk_tracefs *t)
{
	PK_OPTS(pk_tdfill_opts, fo, .kallsyms = o->kallsyms, .reverse_order = true);

	return partial ? pk_tdwriter_copy_meta(w, partial)
		       : pk_tdwriter_fill(w, pk_tracefs_dir(t), &fo);
}

/* O->output from W: the metadata, then the N CPU files FDS as the top
 * buffer (clock: T's top level; local without T). 0 or -errno. */
static int write_file(struct pk_tdwriter *w, const struct ropts *o,
		      const struct pk_tracedat *td, const struct pk_tracefs *t,
		      const int *fds, int n, bool header_only)
{
	int *ids = calloc((size_t)n + 1, sizeof(int));
	char *clk = NULL;
	int e = ids ? fill(w, o, td, t) : -ENOMEM;

	for (int i = 0; i < n; i++)
		ids[i] = i;
	if (!e && !header_only) {
		if (t)
			(void)pk_tracefs_read_clock(t, NULL, &clk);
		e = pk_tdwriter_add_buffer(w, "", clk ? clk : "local", n, ids,
					   fds);
	}
	free(clk);
	free(ids);
	if (e) {
		pk_tdwriter_free(w);
		return e;
	}
	return pk_tdwriter_close(w);
}

/* Restores into O->output (removed again on failure). The exit status. */
static int restore(const struct ropts *o, const struct pk_tracedat *td,
		   const struct pk_tracefs *t, char **paths, int n)
{
	const char *comp = td ? pk_tracedat_compression(td) : "none";
	PK_OPTS(pk_tdwriter_opts, wo, .header_only = o->create && !n,
		.minimal_options = true,
		.compression = strcmp(comp, "none") ? comp : NULL,
		.page_size = td ? pk_tracedat_page_size(td) : 0,
		.long_size = td ? pk_tracedat_long_size(td) : 0);
	int *fds = calloc((size_t)n + 1, sizeof(int));
	struct pk_tdwriter *w;
	int e;

	if (!fds || open_cpus(paths, n, fds)) {
		if (!fds)
			cli_error(C, "%s", strerror(ENOMEM));
		free(fds);
		return 1;
	}
	if (!(w = pk_tdwriter_open(o->output, &wo))) {
		e = -errno;
	} else if ((e = write_file(w, o, td, t, fds, n, wo.header_only))) {
		unlink(o->output);
	}
	if (e)
		cli_error(C, "%s: %s", o->output, pk_strerror(e));
	for (int i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	return e ? 1 : 0;
}

int cmd_ftrace_restore(int argc, char **argv)
{
	struct ropts o = { 0 };
	struct pk_tracedat *td = NULL;
	struct pk_tracefs *t = NULL;
	int rc = parse(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (o.input && same_file(o.input, o.output)) {
		cli_error(C, "input and output file are the same");
		return 1;
	}
	if (o.input && !(td = pk_tracedat_open(o.input))) {
		cli_error(C, "%s: %s", o.input, pk_strerror(-errno));
		return 1;
	}
	/* with -i, tracefs gives the clock alone: none, local */
	if (td)
		t = o.dir ? pk_tracefs_open_at(o.dir, NULL) : pk_tracefs_open();
	else if (!(t = tracefs(&o)))
		return 1;
	rc = restore(&o, td, t, argv + optind, argc - optind);
	pk_tracedat_free(td);
	pk_tracefs_free(t);
	return rc;
}
