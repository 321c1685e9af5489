/* SPDX-License-Identifier: MIT */
/*
 * perfkit inject without --itrace: the copy of a perf.data stream as perf
 * inject 6.1 makes it. A file becomes a file whose header is rewritten
 * (the machine's features kept, the command line ours, the build-id table
 * made of the DSOs samples hit), or a pipe (attrs and features as
 * records first); a pipe is copied as it stands (to a file too: perf
 * writes a pipe-mode file then). Records keep the input's order, but
 * with -b and -s perf orders the timed ones: records without a time go
 * out as they come, the others sorted by time (stable) at the end, since
 * its FINISHED_ROUND handler only copies the round mark. Records inside
 * a COMPRESSED record stay inside it, unseen, as perf leaves them. A file
 * is written beside the output and renamed at the end: a failure leaves
 * nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "inject.h"

struct qrec {
	uint64_t time, seq;
	int attr;
	size_t extra_size;
	struct perf_event_header *h;  /* the record, its extra after it */
};

struct queue {
	struct qrec *v;
	size_t n, cap;
};

int inj_out(struct inj_copy *c, const struct perf_event_header *h,
	    const void *extra, size_t extra_size)
{
	struct pk_auxtrace_hdr a;
	const uint64_t *u = (const void *)h;

	if (h->type != PK_RECORD_AUXTRACE || c->pipe_in || c->pipe_out ||
	    h->size < 48)
		return pk_pdwriter_write(c->w, h, extra, extra_size);
	/* perf keeps the AUXTRACE index of the output */
	a.offset = u[2];
	a.reference = u[3];
	a.idx = (uint32_t)u[4];
	a.tid = (uint32_t)(u[4] >> 32);
	a.cpu = (uint32_t)u[5];
	return pk_pdwriter_write_auxtrace(c->w, &a, extra, extra_size, NULL, 0);
}

static bool processing(const struct inj_copy *c)
{
	return (c->build_ids || c->sched_stat) && !c->buildid_all;
}

static int handle(struct inj_copy *c, const struct pk_record *rec)
{
	int r = 0;

	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		if (c->sched_stat && (r = inj_sched_sample(c, rec)))
			return r < 0 ? r : 0;
		r = inj_bid_sample(c, rec, c->build_ids && !c->buildid_all);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (c->buildid_all && (r = inj_bid_mmap(c, rec)))
			return r < 0 ? r : 0;
		/* fall through */
	case PERF_RECORD_FORK:
		/* perf's plain copy keeps no maps, not even the kernel's */
		if (processing(c))
			r = pk_session_process(c->sess, rec->hdr);
		r = r == -ENOMEM ? r : 0;
		break;
	default:
		break;
	}
	return r ? r : inj_out(c, rec->hdr, rec->extra, (size_t)rec->extra_size);
}

static int queue_push(struct queue *q, const struct pk_record *rec)
{
	size_t n = rec->size + (size_t)rec->extra_size;
	struct qrec *e;

	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 1024;

		e = realloc(q->v, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		q->v = e;
		q->cap = cap;
	}
	e = &q->v[q->n];
	e->h = malloc(n);
	if (!e->h)
		return -ENOMEM;
	memcpy(e->h, rec->hdr, rec->size);
	if (rec->extra_size)
		memcpy((char *)e->h + rec->size, rec->extra, rec->extra_size);
	e->time = rec->time;
	e->seq = q->n++;
	e->attr = rec->attr;
	e->extra_size = (size_t)rec->extra_size;
	return 0;
}

static int qcmp(const void *a, const void *b)
{
	const struct qrec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int queue_flush(struct inj_copy *c, struct queue *q)
{
	int err = 0;

	if (q->n)	/* (q->v is NULL before the first record) */
		qsort(q->v, q->n, sizeof(*q->v), qcmp);
	for (size_t i = 0; i < q->n && !err; i++) {
		struct pk_record rec = { 0 };

		rec.hdr = q->v[i].h;
		rec.type = rec.hdr->type;
		rec.size = rec.hdr->size;
		rec.misc = rec.hdr->misc;
		rec.attr = q->v[i].attr;
		rec.time = q->v[i].time;
		rec.extra = q->v[i].extra_size ? (char *)rec.hdr + rec.size : NULL;
		rec.extra_size = q->v[i].extra_size;
		err = handle(c, &rec);
	}
	return err;
}

static void queue_free(struct queue *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->v[i].h);
	free(q->v);
}

/* Every record, in perf inject's order. */
static int copy_records(struct inj_copy *c)
{
	struct queue q = { 0 };
	struct pk_record rec;
	int err;

	while ((err = pk_perfdata_next(c->pd, &rec)) == 0) {
		if (rec.compressed)
			continue;
		if (c->ordered && rec.type < 64 && rec.time)
			err = queue_push(&q, &rec);
		else
			err = handle(c, &rec);
		if (err)
			break;
	}
	if (err == PK_ERR_EOS)
		err = queue_flush(c, &q);
	queue_free(&q);
	return err;
}

/* A file's attrs and features for the output (a file or a pipe). */
static int header(struct inj_copy *c, int argc, char **argv)
{
	unsigned n = pk_perfdata_nr_attrs(c->pd);
	int err = 0;

	for (unsigned i = 0; i < n && !err; i++) {
		unsigned nr;
		const uint64_t *ids = pk_perfdata_attr_ids(c->pd, i, &nr);

		err = pk_pdwriter_add_attr(c->w, pk_perfdata_attr(c->pd, i), ids,
					   nr, pk_perfdata_attr_name(c->pd, i));
		err = err < 0 ? err : 0;
	}
	for (int f = 1; f < PK_HEADER_MAX && !err; f++) {
		const void *data;
		uint64_t size;

		/* made again: from the attrs, ours, the hits, the index */
		if (f == PK_HEADER_EVENT_DESC || f == PK_HEADER_CMDLINE ||
		    f == PK_HEADER_BUILD_ID || f == PK_HEADER_AUXTRACE ||
		    !pk_perfdata_has_feat(c->pd, f) ||
		    pk_perfdata_feat_raw(c->pd, f, &data, &size))
			continue;
		err = pk_pdwriter_feat_raw(c->w, f, data, (size_t)size);
	}
	if (!err)
		err = pk_pdwriter_feat_cmdline(c->w, argc, argv);
	if (!err && c->pipe_out)
		err = pk_pdwriter_write_features(c->w);
	return err;
}

static int open_output(struct inj_copy *c)
{
	PK_OPTS(pk_pdwriter_opts, o, .pipe = c->pipe_in || c->pipe_out);
	size_t n = strlen(c->output) + 8;
	int fd;

	if (c->pipe_out) {
		c->w = pk_pdwriter_open_fd(1, &o);
		return c->w ? 0 : -errno;
	}
	c->tmp = malloc(n);
	if (!c->tmp)
		return -ENOMEM;
	snprintf(c->tmp, n, "%s.XXXXXX", c->output);
	fd = c->out_fd = mkstemp(c->tmp);
	if (fd < 0) {
		free(c->tmp);
		c->tmp = NULL;
		return -errno;
	}
	c->w = pk_pdwriter_open_fd(fd, &o);
	if (!c->w)
		return -errno;	/* finish_output() removes it */
	return 0;
}

/* The file written beside the output becomes it, or goes. */
static int finish_output(struct inj_copy *c, int err)
{
	if (c->w) {
		int r = pk_pdwriter_close(c->w);

		c->w = NULL;
		if (!err && r) {
			cli_error("inject", "%s: %s", c->output, strerror(-r));
			err = -EIO;
		}
	}
	if (!c->tmp)
		return err;
	if (close(c->out_fd) && !err) {
		cli_error("inject", "%s: %s", c->output, strerror(errno));
		err = -EIO;
	}
	if (!err && rename(c->tmp, c->output)) {
		cli_error("inject", "%s: %s", c->output, strerror(errno));
		err = -EIO;
	}
	if (err)
		unlink(c->tmp);
	free(c->tmp);
	c->tmp = NULL;
	return err;
}

static int fail(struct inj_copy *c, int err)
{
	if (err == PK_ERR_FORMAT || err == PK_ERR_TRUNC)
		cli_error("inject", "%s", pk_perfdata_errmsg(c->pd));
	else if (err != -ECANCELED)
		cli_error("inject", "%s: %s", c->input, pk_strerror(err));
	return err;
}

static int open_input(struct inj_copy *c)
{
	PK_OPTS(pk_perfdata_opts, o, .file_order = true);
	PK_OPTS(pk_session_opts, so, .kallsyms = "", .buildid_dir = "",
		.debug_dir = "");
	struct pk_perfdata_info in;
	int r = strcmp(c->input, "-") ? cli_perfdata_check(c->input, c->force) : 0;

	if (r)
		return r;
	c->pd = pk_perfdata_open(c->input, &o);
	if (!c->pd) {
		cli_error("inject", "%s: %s", c->input, errno == EPROTO ?
			  pk_perfdata_open_error() : strerror(errno));
		return 1;
	}
	pk_perfdata_info(c->pd, &in);
	c->pipe_in = in.pipe;
	c->sess = pk_session_new(&so);
	if (!c->sess) {
		cli_error("inject", "%s", strerror(errno));
		return 1;
	}
	return 0;
}

/* perf orders events for -b (not with --buildid-all) and -s, set after
 * its session is open: even without sample_id_all, where records have no
 * time and go out as they come. */
static bool ordered(const struct inj_copy *c)
{
	return c->sched_stat || (c->build_ids && !c->buildid_all);
}

int inj_copy_run(struct inj_copy *c, int argc, char **argv)
{
	int err = open_input(c);

	if (err)
		return err;
	c->pipe_out = !strcmp(c->output, "-");
	c->ordered = ordered(c);
	if ((err = inj_bid_init(c)) ||
	    (c->sched_stat && (err = inj_sched_init(c))))
		{
		if (err != -EINVAL)
			fail(c, err);
		return 1;
	}
	if ((err = open_output(c))) {
		cli_error("inject", "%s: %s", c->output, strerror(-err));
		finish_output(c, err);
		return 1;
	}
	if (!c->pipe_in && (err = header(c, argc, argv)))
		cli_error("inject", "%s: %s", c->output, strerror(-err));
	else if ((err = copy_records(c)))
		fail(c, err);
	else if (!c->pipe_in && !c->pipe_out && (err = inj_bid_table(c)))
		cli_error("inject", "%s: %s", c->output, strerror(-err));
	err = finish_output(c, err);
	return err ? 1 : 0;
}
