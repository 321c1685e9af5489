/* SPDX-License-Identifier: MIT */
/*
 * perf inject --vm-time-correlation on a perf.data file: perf 6.1's
 * checks when it reads AUXTRACE_INFO (timed decoding, the mtc config bit,
 * the offsets), then each AUX queue's buffers walked by the Intel PT
 * layer's correlation (lib/pt/vmtc.c) in the order perf's queue heap
 * gives them (every queue starts at time 1: perf runs them one after the
 * other, each to its end), and the new TSC bytes written into the file
 * at their place (perf writes through its writable mapping of the file).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include <perfkit/pt.h>
#include "base/base.h"
#include "base/bytes.h"

#define RD64(p, o) pk_ld64((const uint8_t *)(p) + (o), false)
#define RD32(p, o) pk_ld32((const uint8_t *)(p) + (o), false)

/* AUXTRACE_INFO's Intel PT fields used here (perf's priv indexes) */
enum { I_PMU_TYPE, I_CAP_TIME_ZERO = 4, I_TSC_BIT, I_SNAPSHOT = 8,
       I_MTC_BIT = 10, I_MTC_FREQ_BITS, I_TSC_CTC_N, I_TSC_CTC_D,
       I_MAX_NONTURBO = 15, I_NR = 16 };

struct vbuf {
	uint32_t idx;
	uint64_t file_off;	/* of its bytes */
	struct pk_pt_vmtc_buf b;
};

struct vctx {
	const struct pk_itrace_vmtc_opts *o;
	struct pk_perfdata *pd;
	struct pk_pt_vmtc *v;
	int fd;			/* the file, for writing (-1: dry run) */
	struct vbuf *bufs;
	size_t nbufs, capbufs;
	const struct vbuf *cur;	/* the queue being walked */
	bool have_info;
};

static void msg(struct vctx *c, const char *fmt, ...) PK_PRINTF(2, 3);
static void msg(struct vctx *c, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (c->o->msg)
		c->o->msg(c->o->ctx, line);
}

static void pt_msg(void *ctx, const char *line)
{
	struct vctx *c = ctx;

	if (c->o->msg)
		c->o->msg(c->o->ctx, line);
}

static int pt_patch(void *ctx, size_t buf, size_t off, const uint8_t *bytes,
		    unsigned n)
{
	struct vctx *c = ctx;

	return pk__pwrite_all(c->fd, bytes, n,
			      (off_t)(c->cur[buf].file_off + off));
}

/* perf's refusal: its reason, then the session's line for the record */
static int refuse(struct vctx *c, const struct pk_record *rec, int err,
		  const char *why)
{
	msg(c, "%s", why);
	msg(c, "%#" PRIx64 " [%#x]: failed to process type: %u [%s]",
	    rec->offset, rec->size, rec->type, strerror(-err));
	return err;
}

/* the intel_pt event's config (perf's intel_pt_get_config), false when
 * no attr is of the PMU */
static bool pt_config(struct pk_perfdata *pd, uint64_t type, uint64_t *cfg)
{
	unsigned n = pk_perfdata_nr_attrs(pd);

	for (unsigned i = 0; i < n; i++) {
		const struct perf_event_attr *a = pk_perfdata_attr(pd, i);

		if (a->type == type) {
			*cfg = a->config;
			return true;
		}
	}
	return false;
}

/* perf's intel_pt_timeless_decoding */
static bool timeless(struct vctx *c, const uint64_t *f)
{
	unsigned n = pk_perfdata_nr_attrs(c->pd);
	bool tl = true;

	if (!f[I_TSC_BIT] || !f[I_CAP_TIME_ZERO] || c->o->timeless)
		return true;
	for (unsigned i = 0; i < n; i++) {
		const struct perf_event_attr *a = pk_perfdata_attr(c->pd, i);

		if (!(a->sample_type & PERF_SAMPLE_TIME))
			return true;
		if (a->type == f[I_PMU_TYPE]) {
			if (!(a->config & f[I_TSC_BIT]))
				return true;
			tl = false;
		}
	}
	return tl;
}

static bool sampling_mode(struct pk_perfdata *pd)
{
	unsigned n = pk_perfdata_nr_attrs(pd);

	for (unsigned i = 0; i < n; i++) {
		const struct perf_event_attr *a = pk_perfdata_attr(pd, i);

		if ((a->sample_type & PERF_SAMPLE_AUX) && a->aux_sample_size)
			return true;
	}
	return false;
}

static int info(struct vctx *c, const struct pk_record *rec)
{
	uint64_t f[I_NR] = { 0 }, cfg = 0, bits;
	size_t n = (rec->size - 16) / 8;
	unsigned shift = 0;
	int err;

	if (c->have_info || rec->size < 16 || RD32(rec->hdr, 8) != 1)
		return 0;	/* not Intel PT's: perf does nothing */
	c->have_info = true;
	if (n > I_NR)
		n = I_NR;
	for (size_t i = 0; i < n; i++)
		f[i] = RD64(rec->hdr, 16 + 8 * i);
	if (timeless(c, f))
		return refuse(c, rec, -EINVAL, "Intel PT has no time "
			      "information for VM Time Correlation");
	/* TSC Offsets come from MTC packets */
	if (!pt_config(c->pd, f[I_PMU_TYPE], &cfg) || !(cfg & f[I_MTC_BIT]))
		return refuse(c, rec, -EINVAL, "MTC packets must have been "
			      "enabled for VM Time Correlation");
	if (f[I_SNAPSHOT] || sampling_mode(c->pd))
		return -EOPNOTSUPP;
	if ((bits = f[I_MTC_FREQ_BITS]))
		for (; !(bits & 1); bits >>= 1)
			shift++;
	{
		PK_OPTS(pk_pt_vmtc_config, vc,
			.tsc_ctc_n = (uint32_t)f[I_TSC_CTC_N],
			.tsc_ctc_d = (uint32_t)f[I_TSC_CTC_D],
			.mtc_shift = (uint8_t)(f[I_MTC_FREQ_BITS] ?
				(cfg & f[I_MTC_FREQ_BITS]) >> shift : 0),
			.dry_run = c->o->dry_run,
			.max_non_turbo_ratio = (uint32_t)f[I_MAX_NONTURBO]);

		c->v = pk_pt_vmtc_new(&vc, pt_msg, pt_patch, c);
	}
	if (!c->v)
		return -errno;
	if (c->o->args && (err = pk_pt_vmtc_parse(c->v, c->o->args)))
		return err == -ENOMEM ? err :
		       refuse(c, rec, err, "Failed to parse VM Time "
			      "Correlation options");
	return 0;
}

static int auxtrace(struct vctx *c, const struct pk_record *rec)
{
	struct vbuf *b;
	uint64_t size;
	uint8_t *data;

	if (rec->size < 0x30)
		return 0;
	size = RD64(rec->hdr, 8);
	if (size > rec->extra_size)
		size = rec->extra_size;
	if (!pk__grow((void **)&c->bufs, &c->capbufs, c->nbufs, 1,
		      sizeof(*b)) || !(data = pk__malloc(size ? size : 1)))
		return -ENOMEM;
	memcpy(data, rec->extra, size);
	b = &c->bufs[c->nbufs++];
	b->idx = RD32(rec->hdr, 32);
	b->file_off = rec->offset + rec->size;
	b->b.data = data;
	b->b.len = size;
	b->b.ref = RD64(rec->hdr, 24);
	return 0;
}

/* The order perf's heap gives N queues all at the same time: each popped
 * takes the root, the hole walks down to the right child on ties (its
 * bound the count before the pop) and the last item fills it. */
static void heap_order(uint32_t *q, size_t n, uint32_t *out)
{
	size_t cnt = n;

	for (size_t k = 0; k < n; k++) {
		size_t p = 0;

		out[k] = q[0];
		for (;;) {
			size_t l = 2 * p + 1, r = l + 1;

			if (l >= cnt)
				break;
			if (r >= cnt) {
				q[p] = q[l];
				p = SIZE_MAX;
				break;
			}
			q[p] = q[r];	/* equal keys: the right one */
			p = r;
		}
		if (p != SIZE_MAX)
			q[p] = q[cnt - 1];
		cnt--;
	}
}

/* the queues' numbers (perf's: the AUXTRACE idx), ascending */
static size_t queue_ids(const struct vctx *c, uint32_t *ids)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nbufs; i++) {
		size_t j = 0;

		while (j < n && ids[j] < c->bufs[i].idx)
			j++;
		if (j < n && ids[j] == c->bufs[i].idx)
			continue;
		memmove(ids + j + 1, ids + j, (n - j) * sizeof(*ids));
		ids[j] = c->bufs[i].idx;
		n++;
	}
	return n;
}

static int run_queues(struct vctx *c)
{
	uint32_t *ids = pk__calloc(c->nbufs + 1, sizeof(*ids));
	uint32_t *order = pk__calloc(c->nbufs + 1, sizeof(*order));
	struct vbuf *qb = pk__calloc(c->nbufs + 1, sizeof(*qb));
	struct pk_pt_vmtc_buf *pb = pk__calloc(c->nbufs + 1, sizeof(*pb));
	size_t nq;
	int err = 0, total = 0;

	if (!ids || !order || !qb || !pb) {
		err = -ENOMEM;
		goto out;
	}
	nq = queue_ids(c, ids);
	heap_order(ids, nq, order);
	for (size_t k = 0; k < nq && err >= 0; k++) {
		size_t n = 0;

		for (size_t i = 0; i < c->nbufs; i++)
			if (c->bufs[i].idx == order[k]) {
				qb[n] = c->bufs[i];
				pb[n++] = c->bufs[i].b;
			}
		c->cur = qb;
		err = pk_pt_vmtc_queue(c->v, pb, n);
		if (err > 0)
			total += err;
	}
out:
	pk__free(ids);
	pk__free(order);
	pk__free(qb);
	pk__free(pb);
	return err < 0 ? err : total;
}

static int read_file(struct vctx *c)
{
	struct pk_record rec;
	int err;

	while (!(err = pk_perfdata_next(c->pd, &rec))) {
		if (rec.type == PK_RECORD_AUXTRACE_INFO)
			err = info(c, &rec);
		else if (rec.type == PK_RECORD_AUXTRACE && c->v)
			err = auxtrace(c, &rec);
		if (err)
			return err;
	}
	return err == PK_ERR_EOS ? 0 : err;
}

int pk_itrace_vm_time_correlation(const char *path,
				  const struct pk_itrace_vmtc_opts *o)
{
	PK_OPTS(pk_perfdata_opts, po, .file_order = true);
	struct vctx c = { .o = o, .fd = -1 };
	int err;

	if (!path || !o || !PK_OPTS_VALID(o, pk_itrace_vmtc_opts))
		return -EINVAL;
	c.pd = pk_perfdata_open(path, &po);
	if (!c.pd)
		return errno == EPROTO ? PK_ERR_FORMAT : -errno;
	if (!o->dry_run && (c.fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		err = -errno;
	else
		err = read_file(&c);
	if (!err && c.v)
		err = run_queues(&c);
	if (c.fd >= 0 && close(c.fd) && err >= 0)
		err = -errno;
	for (size_t i = 0; i < c.nbufs; i++)
		pk__free((void *)c.bufs[i].b.data);
	pk__free(c.bufs);
	pk_pt_vmtc_free(c.v);
	pk_perfdata_free(c.pd);
	return err;
}
