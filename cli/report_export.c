// SPDX-License-Identifier: MIT
/*
 * perfkit report --format=folded|flamegraph: the samples as perf script
 * prints them by default (script_out.c, its text kept in memory), made
 * into collapsed stacks by the rules of stackcollapse-perf.pl
 * (pk_collapse), written as such or drawn as a flame graph (pk_flame_svg).
 * Going through script's text is what makes the stacks those the
 * FlameGraph scripts would make of perf script: the same frames, names and
 * counts (the periods).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/export.h>
#include <perfkit/perfdata.h>
#include "cli.h"
#include "report_export.h"
#include "script.h"

static const char *const formats[] = { "folded", "flamegraph", "pprof",
				       "speedscope", "perfetto" };

bool report_export_known(const char *format)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(format, formats[i]))
			return true;
	return false;
}

static int sink(void *ctx, const char *buf, size_t len)
{
	return pk_collapse_feed(ctx, buf, len);
}

/* FILE's samples into F as collapsed stacks; the event counted in EV. */
static int collapse_file(const struct export_opts *e, const char *file,
			 struct pk_folded *f, bool kinds, char *ev,
			 size_t evlen, uint64_t *skipped)
{
	PK_OPTS(pk_collapse_opts, co, .kinds = kinds, .tid = e->threads);
	struct script_opts so = { .input = file, .max_stack = e->max_stack };
	struct pk_collapse *c = pk_collapse_new(f, &co);
	struct pk_perfdata *pd;
	int err = 0, rc;

	if (!c)
		return -ENOMEM;
	script_fields_init(&so.f);
	/* per-thread roots need the pid beside the tid */
	if (e->threads && script_fields_parse(&so.f, "+pid"))
		err = -EINVAL;
	if (!err && e->comms)
		err = script_filter_strs(&so.filt.comms, &so.filt.nr_comms,
					 e->comms);
	if (!err && e->pids)
		err = script_filter_ints(&so.filt.pids, &so.filt.nr_pids,
					 e->pids);
	if (!err && e->tids)
		err = script_filter_ints(&so.filt.tids, &so.filt.nr_tids,
					 e->tids);
	if (!err && e->cpus)
		err = script_filter_cpu(&so.filt, e->cpus);
	if (!err && e->time)
		err = script_filter_time(&so.filt, e->time);
	if (err) {
		script_filter_fini(&so.filt);
		pk_collapse_free(c);
		return -EINVAL;
	}
	if ((rc = cli_perfdata_check(file, e->force))) {
		script_filter_fini(&so.filt);
		pk_collapse_free(c);
		return -EINVAL;
	}
	pd = pk_perfdata_open(file, NULL);
	if (!pd) {
		cli_error("report", "%s: %s", file, errno == EPROTO ?
			  pk_perfdata_open_error() : strerror(errno));
		script_filter_fini(&so.filt);
		pk_collapse_free(c);
		return -EINVAL;
	}
	so.sink = sink;
	so.sink_ctx = c;
	rc = script_samples(&so, pd);
	if (!rc && pk_collapse_end(c))
		rc = 1;
	if (ev)
		snprintf(ev, evlen, "%s", pk_collapse_event(c));
	if (skipped)
		*skipped = pk_collapse_skipped(c);
	pk_perfdata_free(pd);
	script_filter_fini(&so.filt);
	pk_collapse_free(c);
	return rc ? -EINVAL : 0;	/* (said already) */
}

/* -o FILE (standard output without it) into *OUT, buffered. 0 or
 * -EINVAL (said). */
static int open_out(const struct export_opts *e, FILE **out)
{
	*out = stdout;
	if (e->output && !(*out = fopen(e->output, "w"))) {
		cli_error("report", "-o %s: %s", e->output, strerror(errno));
		*out = stdout;
		return -EINVAL;
	}
	setvbuf(*out, NULL, _IOFBF, 1 << 20);
	return 0;
}

/* OUT closed (flushed when it is standard output); ERR, or -EIO when
 * writing failed, said. */
static int close_out(const struct export_opts *e, FILE *out, int err)
{
	if (out != stdout && fclose(out) && !err)
		err = -EIO;
	else if (out == stdout && fflush(stdout) && !err)
		err = -EIO;
	if (err == -EIO || err == -ENOMEM)
		cli_error("report", "%s: %s", e->output ? e->output :
			  "standard output", strerror(-err));
	return err;
}

/* --format=pprof (gzipped protobuf: to a file or a pipe), speedscope,
 * perfetto. */
static int samples(const struct export_opts *e)
{
	FILE *out = stdout;
	int err;

	if (!e->output && isatty(1) && !strcmp(e->format, "pprof")) {
		cli_error("report", "--format=pprof writes a binary file: "
			  "give -o FILE (or a pipe)");
		return 2;
	}
	if (open_out(e, &out))
		return 1;
	err = close_out(e, out, report_samples(e, out));
	return err ? 1 : 0;
}

int report_export(const struct export_opts *e)
{
	struct pk_folded *f = pk_folded_new(), *base = NULL;
	bool flame = !strcmp(e->format, "flamegraph");
	FILE *out = stdout;
	char ev[256] = "", sub[512];
	uint64_t skipped = 0;
	int err;

	if (!f) {
		cli_error("report", "out of memory");
		return 1;
	}
	if (strcmp(e->format, "folded") && strcmp(e->format, "flamegraph")) {
		pk_folded_free(f);
		return samples(e);
	}
	err = collapse_file(e, e->input, f, flame, ev, sizeof(ev), &skipped);
	if (!err && flame && e->base) {
		if (!(base = pk_folded_new()))
			err = -ENOMEM;
		else
			err = collapse_file(e, e->base, base, true, NULL, 0,
					    NULL);
	}
	if (!err)
		err = open_out(e, &out);
	if (!err && flame) {
		PK_OPTS(pk_flame_opts, fo, .inverted = e->inverted,
			.base = base, .count_name = *ev ? ev : NULL,
			.subtitle = sub);

		if (base)
			snprintf(sub, sizeof(sub), "%s against %s: red grew, "
				 "blue shrank", e->input, e->base);
		else
			snprintf(sub, sizeof(sub), "%s%s%s", e->input,
				 *ev ? ", " : "", ev);
		fo.title = base ? "Differential Flame Graph" : NULL;
		err = pk_flame_svg(f, out, &fo);
	} else if (!err) {
		err = pk_folded_write(f, out);
	}
	err = close_out(e, out, err);
	if (!err && skipped)	/* as stackcollapse-perf.pl says it */
		fprintf(stderr, "perfkit report: %s: only the samples of %s "
			"(%llu of other events left out)\n", e->input, ev,
			(unsigned long long)skipped);
	if (!err && !pk_folded_nr(f))
		fprintf(stderr, "perfkit report: %s: no stacks: the samples "
			"have no callchains (record with -g)\n", e->input);
	pk_folded_free(f);
	pk_folded_free(base);
	return err ? 1 : 0;
}
