/* SPDX-License-Identifier: MIT */
/*
 * perf.data writer. File mode: header, attr ids and attrs are written
 * before the first record; records are buffered and appended; every flush
 * writes the buffer and then updates data_size in the header, so a writer
 * killed at any point leaves a file that perf and perfkit read up to the
 * last flush (features are absent: the feature bitmap is still 0). Close
 * writes the feature sections after the data and the final header.
 * Pipe mode: the 16-byte header, HEADER_ATTR records, the records, and
 * HEADER_FEATURE records at the end; or, as perf writes pipes, with
 * pk_pdwriter_write_features: the HEADER_FEATURE records (unpadded, and
 * a HEADER_LAST_FEATURE one) and TRACING_DATA after the attrs, before
 * any other record, and nothing after the data.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "perfdata/pd.h"
#include "perfdata/wr.h"

static void make_header(struct pk_pdwriter *w, unsigned char h[PK_PD_HDR_SIZE])
{
	uint64_t v[13] = {
		PK_PD_MAGIC, PK_PD_HDR_SIZE, w->attr_size, w->attrs_off,
		(uint64_t)w->nr_attrs * w->attr_size, w->data_off,
		w->data_size, 0, 0,
	};

	memcpy(h, v, 72);
	memcpy(h + 72, w->feat_bits, 32);
	if (w->swap)
		pk__wr_swap_u64s(h, PK_PD_HDR_SIZE / 8);
}

/* Header, ids, attrs: everything before the first record. */
static int start_file(struct pk_pdwriter *w)
{
	unsigned char h[PK_PD_HDR_SIZE];
	uint64_t off = PK_PD_HDR_SIZE;
	int r;

	w->attr_size = sizeof(struct perf_event_attr) + 16;
	for (unsigned i = 0; i < w->nr_attrs; i++) {
		w->attrs[i].ids_off = off;
		off += w->attrs[i].nr_ids * 8ULL;
	}
	w->attrs_off = off;
	w->data_off = off + (uint64_t)w->nr_attrs * w->attr_size;
	w->data_size = 0;
	make_header(w, h);
	if ((r = pk__wr_out(w, h, sizeof(h))))
		return r;
	for (unsigned i = 0; i < w->nr_attrs; i++)
		for (unsigned k = 0; k < w->attrs[i].nr_ids; k++) {
			uint64_t id = w->attrs[i].ids[k];

			if (w->swap)
				id = bswap_64(id);
			if ((r = pk__wr_out(w, &id, 8)))
				return r;
		}
	for (unsigned i = 0; i < w->nr_attrs; i++) {
		struct perf_event_attr a = w->attrs[i].attr;
		uint64_t sec[2] = { w->attrs[i].ids_off,
				    w->attrs[i].nr_ids * 8ULL };

		a.size = sizeof(a);
		if (w->swap) {
			pk__pd_swap_attr(&a, sizeof(a));
			pk__wr_swap_u64s(sec, 2);
		}
		if ((r = pk__wr_out(w, &a, sizeof(a))) || (r = pk__wr_out(w, sec, 16)))
			return r;
	}
	return pk__wr_drain(w);
}

/* Pipe mode carries the tracepoint formats in a TRACING_DATA record whose
 * payload (padded to 8 bytes) follows it, before any sample needs them. */
static int pipe_tracing_data(struct pk_pdwriter *w)
{
	struct {
		struct perf_event_header h;
		uint32_t size, pad;
	} rec = { { PK_RECORD_TRACING_DATA, 0, 16 }, 0, 0 };
	size_t len = w->feat[PK_HEADER_TRACING_DATA].len;
	int r;

	if (!w->has_feat[PK_HEADER_TRACING_DATA])
		return 0;
	rec.size = (uint32_t)((len + 7) & ~(size_t)7);
	if ((r = pk__wr_out(w, &rec, sizeof(rec))) ||
	    (r = pk__wr_out(w, w->feat[PK_HEADER_TRACING_DATA].data, len)))
		return r;
	return pk__wr_out(w, "\0\0\0\0\0\0\0", rec.size - len);
}

static int start_pipe(struct pk_pdwriter *w)
{
	uint64_t h[2] = { PK_PD_MAGIC, PK_PD_PIPE_SIZE };
	int r;

	if (w->swap)
		pk__wr_swap_u64s(h, 2);
	r = pk__wr_out(w, h, sizeof(h));
	for (unsigned i = 0; !r && i < w->nr_attrs; i++) {
		struct perf_event_attr a = w->attrs[i].attr;
		size_t n = 8 + sizeof(a) + w->attrs[i].nr_ids * 8ULL;
		struct perf_event_header *eh;
		const void *rec;

		if (n > 0xffff)
			return w->err = -ERANGE;
		eh = pk__zalloc(n);
		if (!eh)
			return w->err = -ENOMEM;
		eh->type = PK_RECORD_HEADER_ATTR;
		eh->size = (uint16_t)n;
		a.size = sizeof(a);
		memcpy(eh + 1, &a, sizeof(a));
		memcpy((char *)(eh + 1) + sizeof(a), w->attrs[i].ids,
		       w->attrs[i].nr_ids * 8ULL);
		r = pk__wr_swap_record(w, eh, &rec);
		if (!r)
			r = pk__wr_out(w, rec, n);
		pk__free(eh);
	}
	return r;
}

int pk__wr_start(struct pk_pdwriter *w)
{
	int r;

	if (w->started)
		return w->err;
	w->started = true;
	if (!w->pipe)
		return start_file(w);
	r = start_pipe(w);
	return r ? r : pipe_tracing_data(w);
}

static struct pk_pdwriter *wr_new(int fd, bool own,
				  const struct pk_pdwriter_opts *opts)
{
	struct pk_pdwriter *w;

	if (!PK_OPTS_VALID(opts, pk_pdwriter_opts)) {
		errno = EINVAL;
		return NULL;
	}
	w = pk__zalloc(sizeof(*w));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	w->fd = fd;
	w->own_fd = own;
	w->pipe = opts && opts->pipe;
	w->swap = opts && opts->other_endian;
	return w;
}

struct pk_pdwriter *pk_pdwriter_open_fd(int fd,
					const struct pk_pdwriter_opts *opts)
{
	return wr_new(fd, false, opts);
}

struct pk_pdwriter *pk_pdwriter_open(const char *path,
				     const struct pk_pdwriter_opts *opts)
{
	struct pk_pdwriter *w;
	int fd;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	w = wr_new(fd, true, opts);
	if (!w) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return w;
}

int pk_pdwriter_add_attr(struct pk_pdwriter *w,
			 const struct perf_event_attr *attr,
			 const uint64_t *ids, unsigned nr_ids, const char *name)
{
	struct wr_attr *n, *a;

	if (!w || !attr || w->started || (nr_ids && !ids))
		return -EINVAL;
	n = pk__realloc(w->attrs, (w->nr_attrs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	w->attrs = n;
	a = &n[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(&a->attr, attr, attr->size && attr->size < sizeof(a->attr) ?
	       attr->size : sizeof(a->attr));
	a->ids = pk__calloc(nr_ids ? nr_ids : 1, 8);
	a->name = name ? pk__strdup(name) : NULL;
	if (!a->ids || (name && !a->name)) {
		pk__free(a->ids);
		pk__free(a->name);
		return -ENOMEM;
	}
	memcpy(a->ids, ids, nr_ids * 8ULL);
	a->nr_ids = nr_ids;
	return (int)w->nr_attrs++;
}

int pk_pdwriter_write(struct pk_pdwriter *w,
		      const struct perf_event_header *rec, const void *extra,
		      size_t extra_size)
{
	int r;

	if (!w || !rec || rec->size < sizeof(*rec) || (extra_size && !extra))
		return -EINVAL;
	if ((r = pk__wr_start(w)))
		return r;
	if (w->zcs)
		return pk__wr_z_add(w, rec, extra, extra_size);
	return pk__wr_emit(w, rec, extra, extra_size);
}

int pk_pdwriter_flush(struct pk_pdwriter *w)
{
	int r;

	if (!w)
		return -EINVAL;
	if ((r = pk__wr_start(w)) || (r = pk__wr_z_flush(w)))
		return r;
	return pk__wr_flush_data(w);
}

static void wr_free(struct pk_pdwriter *w)
{
	for (unsigned i = 0; i < w->nr_attrs; i++) {
		pk__free(w->attrs[i].ids);
		pk__free(w->attrs[i].name);
	}
	pk__free(w->attrs);
	for (int f = 0; f < PK_HEADER_MAX; f++)
		pk__buf_fini(&w->feat[f]);
	pk__buf_fini(&w->buf);
	pk__buf_fini(&w->auxidx);
	pk__free(w->sbuf);
	pk__wr_z_fini(w);
	if (w->own_fd)
		close(w->fd);
	pk__free(w);
}

static int close_file(struct pk_pdwriter *w)
{
	unsigned char h[PK_PD_HDR_SIZE];
	uint64_t off;
	unsigned nr = 0;
	int r;

	if ((r = pk_pdwriter_flush(w)) || (r = pk__wr_z_feature(w)) ||
	    (r = pk__wr_aux_feature(w)))
		return r;
	pk__wr_feat_event_desc(w);
	for (int f = 1; f < PK_HEADER_MAX; f++)
		if (w->has_feat[f] && w->swap)
			w->has_feat[f] = pk__wr_swap_feat(f, &w->feat[f]);
	for (int f = 1; f < PK_HEADER_MAX; f++)
		if (w->has_feat[f]) {
			w->feat_bits[f / 64] |= 1ULL << (f % 64);
			nr++;
		}
	/* section table right after the data, then the sections */
	off = w->data_off + w->data_size + 16ULL * nr;
	for (int f = 1; f < PK_HEADER_MAX; f++) {
		uint64_t sec[2];

		if (!w->has_feat[f])
			continue;
		sec[0] = off;
		sec[1] = w->feat[f].len;
		off += w->feat[f].len;
		if (w->swap)
			pk__wr_swap_u64s(sec, 2);
		if ((r = pk__wr_out(w, sec, sizeof(sec))))
			return r;
	}
	for (int f = 1; f < PK_HEADER_MAX; f++)
		if (w->has_feat[f] &&
		    (r = pk__wr_out(w, w->feat[f].data, w->feat[f].len)))
			return r;
	if ((r = pk__wr_drain(w)))
		return r;
	make_header(w, h);
	return pk__pwrite_all(w->fd, h, sizeof(h), 0);
}

/* One HEADER_FEATURE record of FEAT's LEN bytes: padded to 8 bytes
 * (PAD), or unpadded as perf's pipe mode writes them. */
static int pipe_feature(struct pk_pdwriter *w, int f, const void *data,
			size_t len, bool pad)
{
	struct perf_event_header eh = { PK_RECORD_HEADER_FEATURE, 0, 0 };
	uint64_t id = (uint64_t)f;
	size_t n = 16 + (pad ? (len + 7) & ~(size_t)7 : len);
	int r;

	if (n > 0xffff)
		return 0;
	eh.size = (uint16_t)n;
	if (w->swap) {
		eh.type = bswap_32(eh.type);
		eh.size = bswap_16(eh.size);
		id = bswap_64(id);
	}
	if (!(r = pk__wr_out(w, &eh, 8)) && !(r = pk__wr_out(w, &id, 8)) &&
	    !(r = pk__wr_out(w, data, len)))
		r = pk__wr_out(w, "\0\0\0\0\0\0\0", n - 16 - len);
	return r;
}

static void swap_feats(struct pk_pdwriter *w)
{
	for (int f = 1; f < PK_HEADER_MAX; f++)
		if (w->has_feat[f] && w->swap)
			w->has_feat[f] = pk__wr_swap_feat(f, &w->feat[f]);
}

/* perf's pipe mode has no record form of these (its synthesize flag) */
static bool pipe_only_in_files(int f)
{
	return f == PK_HEADER_TRACING_DATA || f == PK_HEADER_BUILD_ID ||
	       f == PK_HEADER_CACHE || f == PK_HEADER_AUXTRACE;
}

int pk_pdwriter_write_features(struct pk_pdwriter *w)
{
	int r;

	if (!w || !w->pipe || w->started)
		return -EINVAL;
	w->started = w->feat_early = true;
	r = start_pipe(w);
	if (!r)
		r = pk__wr_feat_event_desc(w);
	swap_feats(w);
	for (int f = 1; !r && f < PK_HEADER_MAX; f++)
		if (w->has_feat[f] && !pipe_only_in_files(f))
			r = pipe_feature(w, f, w->feat[f].data, w->feat[f].len,
					 false);
	if (!r)	/* perf's HEADER_LAST_FEATURE: the end of the list */
		r = pipe_feature(w, PK_HEADER_MAX, NULL, 0, false);
	return r ? w->err = r : pipe_tracing_data(w);
}

static int close_pipe(struct pk_pdwriter *w)
{
	int r = pk__wr_start(w);

	if (!r)
		r = pk__wr_z_flush(w);
	if (!r && !w->feat_early)
		r = pk__wr_z_feature(w);
	if (w->feat_early)	/* perf writes nothing after the data */
		return r ? r : pk__wr_drain(w);
	swap_feats(w);
	for (int f = 1; !r && f < PK_HEADER_MAX; f++)
		if (w->has_feat[f] && f != PK_HEADER_EVENT_DESC &&
		    f != PK_HEADER_TRACING_DATA)
			r = pipe_feature(w, f, w->feat[f].data, w->feat[f].len,
					 true);
	return r ? r : pk__wr_drain(w);
}

int pk_pdwriter_close(struct pk_pdwriter *w)
{
	int r;

	if (!w)
		return -EINVAL;
	r = w->pipe ? close_pipe(w) : close_file(w);
	if (!r && w->err)
		r = w->err;
	wr_free(w);
	return r;
}
