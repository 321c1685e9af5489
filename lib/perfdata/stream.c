/* SPDX-License-Identifier: MIT */
/*
 * perf.data reader: walking the data stream (file, pipe, decompressed
 * records), perf's own records that change reader state, and the ordered
 * queue that delivers records in time order, flushed at FINISHED_ROUND the
 * way perf does (each round releases what is older than the newest time
 * seen before the previous round).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perfdata/pd.h"

#define ALIGN8(x) (((x) + 7) & ~7ULL)
#ifndef PD_PREFETCH
#define PD_PREFETCH 2048
#endif

struct raw {
	const struct perf_event_header *h;
	uint64_t off;
	const void *extra;
	uint64_t extra_size;
	bool compressed;
};

/* Converts a record of the other byte order into a kept copy. */
static const struct perf_event_header *swap_copy(struct pk_perfdata *pd,
						 const unsigned char *p,
						 uint32_t size)
{
	struct perf_event_header *h = pk__pd_keep(pd, p, size);

	if (!h)
		return NULL;
	pk__pd_swap_record(pd, h);
	return h;
}

/*
 * Next record of the decompressed data, or 0 when none is complete: a
 * record cut at the end of one COMPRESSED record continues in the next
 * one's data (perf cuts one zstd stream into records), so a partial tail
 * waits (pk__pd_decompress keeps it); at the end of the input it is damage.
 */
static int next_compressed(struct pk_perfdata *pd, struct raw *r)
{
	struct perf_event_header t;
	const unsigned char *p;
	size_t left = pd->zlen - pd->zpos;
	uint64_t n = 0;

	if (!left || left < sizeof(t))
		return 0;
	p = pd->zbuf + pd->zpos;
	memcpy(&t, p, sizeof(t));
	if (t.size < sizeof(t))
		return pk__pd_fail(pd, PK_ERR_FORMAT, pd->zoff,
			       "record of type %u inside PERF_RECORD_COMPRESSED has size %u",
			       t.type, t.size);
	if (t.size > left)
		return 0;
	if (t.type == PK_RECORD_AUXTRACE && t.size >= 16) {
		n = rd64(p + 8);
		if (n > left - t.size)
			return 0;
	}
	r->h = (const void *)p;
	if ((uintptr_t)p & 7) {
		r->h = pk__pd_keep(pd, p, t.size);
		if (!r->h)
			return -ENOMEM;
	}
	r->off = pd->zoff;
	r->compressed = true;
	r->extra = n ? p + t.size : NULL;
	r->extra_size = n;
	pd->zpos += t.size + n;
	return 1;
}

static int eof_or_trunc(struct pk_perfdata *pd, const char *what,
			uint64_t need)
{
	if (pd->data_to_eof || (pd->pipe && 0)) {
		pk__pd_warn(pd, "last record at %#llx is cut short (%s, %llu bytes missing); dropped",
			(unsigned long long)pd->pos, what,
			(unsigned long long)need);
		pd->pos = pd->end;
		return 0;
	}
	return pk__pd_fail(pd, PK_ERR_TRUNC, pd->pos,
		       "%s ends %llu bytes past the end of the data", what,
		       (unsigned long long)need);
}

/* Reads the next raw record: 1, 0 at the end, negative on damage. */
static int read_raw(struct pk_perfdata *pd, struct raw *r)
{
	const unsigned char *p;
	struct perf_event_header h;
	uint64_t left;
	int ret;

	ret = next_compressed(pd, r);
	if (ret)
		return ret;
	if (pd->pos >= pd->end) {
		if (pd->zlen > pd->zpos)
			return pk__pd_fail(pd, PK_ERR_TRUNC, pd->zoff,
				       "compressed data ends inside a record (%zu bytes left)",
				       pd->zlen - pd->zpos);
		return 0;
	}
	left = pd->end - pd->pos;
	p = pd->buf + pd->pos;
	/* the records are read once, in order: ask for those a few
	 * cache lines on (the hardware's prefetch stops at each page) */
	if (left > PD_PREFETCH)
		__builtin_prefetch(p + PD_PREFETCH);
	if (left < sizeof(h))
		return eof_or_trunc(pd, "record header", sizeof(h) - left);
	memcpy(&h, p, sizeof(h));
	h.type = pd32(pd, h.type);
	h.size = pd16(pd, h.size);
	if (h.size < sizeof(h)) {
		const char *n = pk_record_name(h.type);

		return pk__pd_fail(pd, PK_ERR_FORMAT, pd->pos,
			       "record %s%s%.0u (type %u) has size %u, smaller than its header",
			       n ? "PERF_RECORD_" : "", n ? n : "", 0u,
			       h.type, h.size);
	}
	if (h.size > left) {
		char what[64];
		const char *n = pk_record_name(h.type);

		snprintf(what, sizeof(what), "record PERF_RECORD_%s of size %u",
			 n ? n : "?", h.size);
		return eof_or_trunc(pd, what, h.size - left);
	}
	r->off = pd->pos;
	r->compressed = false;
	r->extra = NULL;
	r->extra_size = 0;
	if (pd->swapped) {
		r->h = swap_copy(pd, p, h.size);
		if (!r->h)
			return -ENOMEM;
	} else if ((uintptr_t)p & 7) {
		/* records after one of odd size: give an aligned copy */
		r->h = pk__pd_keep(pd, p, h.size);
		if (!r->h)
			return -ENOMEM;
	} else {
		r->h = (const void *)p;
	}
	left -= h.size;
	if (h.type == PK_RECORD_AUXTRACE && h.size >= 16) {
		uint64_t n = rd64((const char *)r->h + 8);

		if (n > left)
			return pk__pd_fail(pd, PK_ERR_TRUNC, pd->pos,
				       "PERF_RECORD_AUXTRACE payload of %llu bytes runs past the end of the data",
				       (unsigned long long)n);
		r->extra = p + h.size;
		r->extra_size = n;
	} else if (h.type == PK_RECORD_TRACING_DATA && pd->pipe &&
		   h.size >= 12) {
		uint64_t n = rd32((const char *)r->h + 8);

		if (ALIGN8(n) > left)
			return pk__pd_fail(pd, PK_ERR_TRUNC, pd->pos,
				       "PERF_RECORD_TRACING_DATA payload of %llu bytes runs past the end of the data",
				       (unsigned long long)n);
		r->extra = p + h.size;
		r->extra_size = n;
		left = ALIGN8(n); /* skip with padding below */
		pd->pos += left;
	}
	if (h.type == PK_RECORD_AUXTRACE)
		pd->pos += r->extra_size;
	pd->pos += h.size;
	return 1;
}

static int attr_of_record(struct pk_perfdata *pd,
			  const struct perf_event_header *h)
{
	int a = -1;

	pk__pd_record_time(pd, h, &a);
	return a;
}

/* perf: an entry's machine_pid/vcpu replace the id's (0 forgets it) */
static int guest_id(struct pk_perfdata *pd, const struct pk_id_index_entry *e,
		    const struct pk_id_index_guest *g)
{
	uint64_t *v;
	bool added;

	if (!g->machine_pid) {
		v = pk__hash_get(&pd->guest_ids, e->id);
		if (v)
			*v = 0;
		return 0;
	}
	v = pk__hash_put(&pd->guest_ids, e->id, &added);
	if (!v)
		return -ENOMEM;
	*v = (uint64_t)(uint32_t)g->machine_pid << 32 | (uint32_t)g->vcpu;
	return 0;
}

/* PERF_RECORD_ID_INDEX: ids are already tied to attrs (attr ids,
 * HEADER_ATTR); idx is perf's mmap index, cpu and tid where the id
 * counts. Entries naming a guest machine are kept for the samples. */
static int id_index(struct pk_perfdata *pd, struct raw *r)
{
	const struct perf_event_header *h = r->h;
	struct pk_id_index_entry e;
	struct pk_id_index_guest g;
	uint64_t nr;

	if (h->size < 16)
		return pk__pd_fail(pd, PK_ERR_FORMAT, r->off,
			       "PERF_RECORD_ID_INDEX of size %u is too short",
			       h->size);
	nr = rd64((const unsigned char *)h + 8);
	for (uint64_t i = 0; i < nr; i++) {
		if (pk_record_id_index_entry(h, h->size, i, &e, &g))
			return pk__pd_fail(pd, PK_ERR_FORMAT, r->off,
				       "PERF_RECORD_ID_INDEX: %llu entries do not fit in size %u",
				       (unsigned long long)nr, h->size);
		if (pd->nr_attrs > 1 && pk_perfdata_id_attr(pd, e.id) < 0)
			pk__pd_warn(pd, "PERF_RECORD_ID_INDEX at %#llx: id %llu belongs to no attr",
				(unsigned long long)r->off,
				(unsigned long long)e.id);
		if (guest_id(pd, &e, &g))
			return -ENOMEM;
	}
	return 0;
}

/* Records that change the reader's state. */
static int process_user(struct pk_perfdata *pd, struct raw *r)
{
	const struct perf_event_header *h = r->h;
	const unsigned char *p = (const void *)h;

	switch (h->type) {
	case PK_RECORD_HEADER_ATTR:
		return pk__pd_record_attr(pd, h);
	case PK_RECORD_ID_INDEX:
		return id_index(pd, r);
	case PK_RECORD_HEADER_FEATURE: {
		uint64_t f;

		if (h->size < 16)
			goto short_rec;
		f = rd64(p + 8);
		if (f == 0 || f >= PK_HEADER_MAX)
			return 0;
		pd->feat[f].present = true;
		pd->feat[f].data = p + 16;
		pd->feat[f].size = h->size - 16;
		pd->feat[f].offset = r->off + 16;
		if (pd->swapped) {
			/* the record was swapped as u64 words; undo */
			unsigned char *d = pk__pd_keep(pd, pd->buf + r->off + 16,
						   h->size - 16);
			if (!d)
				return -ENOMEM;
			pd->feat[f].data = d;
		}
		return pk__pd_parse_feat(pd, (int)f) == -ENOMEM ? -ENOMEM : 0;
	}
	case PK_RECORD_TRACING_DATA:
		pd->feat[PK_HEADER_TRACING_DATA].present = true;
		pd->feat[PK_HEADER_TRACING_DATA].data = r->extra;
		pd->feat[PK_HEADER_TRACING_DATA].size = r->extra_size;
		pd->feat[PK_HEADER_TRACING_DATA].offset = r->off + h->size;
		return 0;
	case PK_RECORD_BUILD_ID:
		return pk__pd_add_build_id(pd, p, h->size, r->off);
	case PK_RECORD_EVENT_UPDATE: {
		uint64_t type, id;
		int a;

		if (h->size < 24)
			goto short_rec;
		type = rd64(p + 8);
		id = rd64(p + 16);
		a = pk_perfdata_id_attr(pd, id);
		if (type == 2 /* NAME */ && a >= 0 && !pd->attrs[a].name) {
			pd->attrs[a].name = pk__strndup((const char *)p + 24,
						       h->size - 24);
			if (!pd->attrs[a].name)
				return -ENOMEM;
		}
		return 0;
	}
	case PK_RECORD_COMPRESSED:
		return pk__pd_decompress(pd, h, r->off);
	default:
		return 0;
	}
short_rec:
	return pk__pd_fail(pd, PK_ERR_FORMAT, r->off,
		       "PERF_RECORD_%s of size %u is too short",
		       pk_record_name(h->type), h->size);
}

static void fill(struct pk_record *rec, const struct pd_qent *e)
{
	rec->offset = e->offset;
	rec->hdr = e->hdr;
	rec->type = e->hdr->type;
	rec->size = e->hdr->size;
	rec->misc = e->hdr->misc;
	rec->compressed = e->compressed;
	rec->attr = e->attr;
	rec->time = e->time;
	rec->extra = e->extra;
	rec->extra_size = e->extra_size;
}

static int qent_cmp(const void *a, const void *b)
{
	const struct pd_qent *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool q_before(const struct pd_qent *x, const struct pd_qent *y)
{
	return x->time < y->time || (x->time == y->time && x->seq < y->seq);
}

/* Merges the runs [A, B) and [B, C) of SRC into DST at A. */
static void q_merge(const struct pd_qent *src, struct pd_qent *dst,
		    size_t a, size_t b, size_t c)
{
	size_t i = a, j = b, k = a;

	while (i < b && j < c)
		dst[k++] = q_before(&src[j], &src[i]) ? src[j++] : src[i++];
	memcpy(dst + k, src + i, (b - i) * sizeof(*dst));
	k += b - i;
	memcpy(dst + k, src + j, (c - j) * sizeof(*dst));
}

/*
 * The queue in time order. It is made of runs already in order (what the
 * last flush left, then each CPU's buffer as it was written), so the runs
 * are merged pairwise: a few passes instead of a full sort. qsort when
 * the merge buffer cannot be had.
 */
static void q_sort(struct pk_perfdata *pd)
{
	struct pd_qent *src = pd->q, *dst;
	size_t n = pd->qlen, width, i;

	for (i = 1; i < n && !q_before(&src[i], &src[i - 1]); i++)
		;
	if (i >= n)
		return;
	if (pd->qtmpcap < pd->qcap) {
		pk__free(pd->qtmp);
		pd->qtmp = pk__malloc(pd->qcap * sizeof(*pd->qtmp));
		pd->qtmpcap = pd->qtmp ? pd->qcap : 0;
	}
	if (!pd->qtmp) {
		qsort(pd->q, n, sizeof(*pd->q), qent_cmp);
		return;
	}
	dst = pd->qtmp;
	/* natural runs merged two by two until one is left */
	for (;;) {
		size_t a = 0, runs = 0;

		while (a < n) {
			size_t b = a + 1, c;

			while (b < n && !q_before(&src[b], &src[b - 1]))
				b++;
			c = b < n ? b + 1 : n;
			while (c < n && !q_before(&src[c], &src[c - 1]))
				c++;
			q_merge(src, dst, a, b, c);
			runs++;
			a = c;
		}
		width = runs;
		src = dst;
		dst = src == pd->q ? pd->qtmp : pd->q;
		if (width <= 1)
			break;
	}
	if (src != pd->q)
		memcpy(pd->q, src, n * sizeof(*src));
}

/* Makes queued entries with time <= LIMIT ready (all when FINAL). */
static void q_flush(struct pk_perfdata *pd, uint64_t limit, bool final)
{
	size_t n;

	/* drop what was delivered */
	if (pd->qhead) {
		memmove(pd->q, pd->q + pd->qhead,
			(pd->qlen - pd->qhead) * sizeof(*pd->q));
		pd->qlen -= pd->qhead;
		pd->qflush -= pd->qhead;
		pd->qhead = 0;
	}
	if (pd->qlen)
		q_sort(pd);
	if (final) {
		n = pd->qlen;
	} else {
		size_t lo = 0, hi = pd->qlen;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (pd->q[mid].time <= limit)
				lo = mid + 1;
			else
				hi = mid;
		}
		n = lo;
	}
	pd->qflush = n;
	if (n)
		pd->last_flush = pd->q[n - 1].time;
}

static int q_push(struct pk_perfdata *pd, const struct raw *r, uint64_t time,
		  int attr)
{
	struct pd_qent *e;

	if (pd->qhead && pd->qhead == pd->qflush) {
		memmove(pd->q, pd->q + pd->qhead,
			(pd->qlen - pd->qhead) * sizeof(*pd->q));
		pd->qlen -= pd->qhead;
		pd->qflush = pd->qhead = 0;
	}
	if (pd->qlen == pd->qcap) {
		size_t cap = pd->qcap ? pd->qcap * 2 : 4096;
		struct pd_qent *n = pk__realloc(pd->q, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pd->q = n;
		pd->qcap = cap;
	}
	if (time < pd->last_flush && pd->nr_warn < 1000)
		pk__pd_warn(pd, "record at %#llx has time %llu below the last flushed time %llu",
			(unsigned long long)r->off, (unsigned long long)time,
			(unsigned long long)pd->last_flush);
	e = &pd->q[pd->qlen++];
	e->time = time;
	e->seq = pd->seq++;
	e->offset = r->off;
	e->hdr = r->h;
	e->extra = r->extra;
	e->extra_size = r->extra_size;
	e->attr = attr;
	e->compressed = r->compressed;
	if (time > pd->max_time)
		pd->max_time = time;
	return 0;
}

/* Copies a record out of the decompression buffer (reused per batch). */
static int keep_compressed(struct pk_perfdata *pd, struct raw *r)
{
	void *h;

	if (!r->compressed)
		return 0;
	h = pk__pd_keep(pd, r->h, r->h->size + r->extra_size);
	if (!h)
		return -ENOMEM;
	if (r->extra)
		r->extra = (char *)h + r->h->size;
	r->h = h;
	return 0;
}

int pk_perfdata_next(struct pk_perfdata *pd, struct pk_record *rec)
{
	for (;;) {
		struct raw r = { 0 };
		struct pd_qent e;
		int ret;

		if (pd->qhead < pd->qflush) {
			fill(rec, &pd->q[pd->qhead++]);
			return 0;
		}
		if (pd->eof) {
			if (pd->qhead < pd->qlen) {
				q_flush(pd, 0, true);
				continue;
			}
			return pd->err ? pd->err : PK_ERR_EOS;
		}
		ret = pd->err ? pd->err : read_raw(pd, &r);
		if (ret <= 0) {
			pd->eof = true;
			continue;
		}
		e.hdr = r.h;
		e.offset = r.off;
		e.extra = r.extra;
		e.extra_size = r.extra_size;
		e.compressed = r.compressed;
		e.attr = -1;
		e.time = 0;
		if (r.h->type >= 64) {
			ret = process_user(pd, &r);
			if (ret == -ENOMEM)
				return ret;
			if (ret < 0) {
				pd->eof = true;
				continue;
			}
			if (r.h->type == PK_RECORD_FINISHED_ROUND &&
			    !pd->file_order) {
				q_flush(pd, pd->next_flush, false);
				pd->next_flush = pd->max_time;
			}
			fill(rec, &e);
			return 0;
		}
		e.time = pk__pd_record_time(pd, r.h, &e.attr);
		/* perf: no sample_id_all, no ordering */
		if (pd->file_order || !e.time ||
		    !pd->attrs[0].attr.sample_id_all) {
			if (r.compressed && pd->file_order) {
				/* the batch buffer stays until the next read */
			}
			fill(rec, &e);
			return 0;
		}
		if (keep_compressed(pd, &r) || q_push(pd, &r, e.time, e.attr))
			return -ENOMEM;
	}
}

/* perf's evlist__parse_sample with perf_guest: the id's machine */
static void guest_of(const struct pk_perfdata *pd, struct pk_sample *s)
{
	const uint64_t *v = s->sample_type & (PERF_SAMPLE_ID |
					      PERF_SAMPLE_IDENTIFIER) ?
			    pk__hash_get(&pd->guest_ids, s->id) : NULL;

	if (v && *v) {
		s->machine_pid = (uint32_t)(*v >> 32);
		s->vcpu = (uint32_t)*v;
	}
}

int pk_sample_parse(struct pk_perfdata *pd, const struct pk_record *rec,
		    struct pk_sample *s)
{
	char err[160];
	int a = rec->attr, ret;

	if (a < 0)
		a = attr_of_record(pd, rec->hdr);
	if (a < 0 || (unsigned)a >= pd->nr_attrs) {
		memset(s, 0, sizeof(*s));
		return -ENOENT;
	}
	ret = pk__pd_sample_decode(&pd->attrs[a].attr, rec->hdr, s, err,
			       sizeof(err));
	if (!ret && pd->guest_ids.n)
		guest_of(pd, s);
	/* a bad sample is reported, not sticky for the stream */
	if (ret && !pd->err) {
		const char *n = pk_record_name(rec->type);

		snprintf(pd->errmsg, sizeof(pd->errmsg),
			 "%s: offset %#llx: PERF_RECORD_%s: %s", pd->name,
			 (unsigned long long)rec->offset, n ? n : "?", err);
		pd->err_off = rec->offset;
	}
	return ret;
}
