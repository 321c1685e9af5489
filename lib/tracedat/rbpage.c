/* SPDX-License-Identifier: MIT */
/* Ring-buffer page parser and encoder (see rbpage.h for the layout). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/bytes.h"
#include "tracedat/rbpage.h"

void pk__rb_layout_default(struct pk_rb_layout *l, int long_size, bool big)
{
	l->ts_size = 8;
	l->commit_off = 8;
	l->commit_size = long_size == 4 ? 4 : 8;
	l->data_off = 8 + l->commit_size;
	l->big_endian = big;
}

/* Finds "field: ... NAME;\toffset:N;\tsize:M;" in the header_page text. */
static bool find_field(const char *text, size_t len, const char *name,
		       unsigned *off, unsigned *size)
{
	char pat[64];
	const char *p = text, *end = text + len;

	snprintf(pat, sizeof(pat), " %s;", name);
	size_t pl = strlen(pat);
	for (; p + pl <= end; p++) {
		if (memcmp(p, pat, pl))
			continue;
		const char *q = memmem(p, end - p, "offset:", 7);
		const char *r = q ? memmem(q, end - q, "size:", 5) : NULL;
		const char *nl = memchr(p, '\n', end - p);
		if (!q || !r || (nl && r > nl))
			return false;
		*off = (unsigned)strtoul(q + 7, NULL, 10);
		*size = (unsigned)strtoul(r + 5, NULL, 10);
		return true;
	}
	return false;
}

int pk__rb_layout_parse(struct pk_rb_layout *l, const char *text, size_t len,
		       bool big)
{
	unsigned off, size, doff, dsize;

	pk__rb_layout_default(l, 8, big);
	if (!find_field(text, len, "timestamp", &off, &size) || off != 0 ||
	    size != 8)
		return PK_ERR_FORMAT;
	if (!find_field(text, len, "commit", &off, &size) ||
	    (size != 4 && size != 8) || off < 8 || off > 64)
		return PK_ERR_FORMAT;
	l->commit_off = off;
	l->commit_size = size;
	if (!find_field(text, len, "data", &doff, &dsize) ||
	    doff < off + size || doff > 128)
		return PK_ERR_FORMAT;
	l->data_off = doff;
	return 0;
}

int pk__rb_iter_init(struct pk_rb_iter *it, const void *page, size_t page_size,
		    const struct pk_rb_layout *l)
{
	memset(it, 0, sizeof(*it));
	it->page = page;
	it->page_size = page_size;
	it->l = l;
	if (page_size < l->data_off) {
		it->err = PK_ERR_TRUNC;
		return it->err;
	}
	it->ts = pk_ld64(it->page, l->big_endian);
	uint64_t commit = pk_ldn(it->page + l->commit_off, l->commit_size,
				 l->big_endian);
	size_t size = commit & PK_RB_COMMIT_MASK;
	it->flags = commit & ~(uint64_t)PK_RB_COMMIT_MASK;
	it->pos = l->data_off;
	if (size > page_size - l->data_off) {
		it->end = it->pos;
		it->err = PK_ERR_FORMAT;
		it->err_off = l->commit_off;
		return it->err;
	}
	it->end = l->data_off + size;
	if (it->flags & PK_RB_MISSED) {
		it->missed = -1;
		if ((it->flags & PK_RB_MISSED_STORED) &&
		    it->end + l->commit_size <= page_size)
			it->missed = (long long)pk_ldn(it->page + it->end,
						       l->commit_size,
						       l->big_endian);
	}
	return 0;
}

static int iter_fail(struct pk_rb_iter *it, int err)
{
	it->err = err;
	it->err_off = it->pos;
	it->pos = it->end;
	return err;
}

int pk__rb_iter_next(struct pk_rb_iter *it, struct pk_rb_event *ev)
{
	bool big = it->l->big_endian;

	while (it->pos < it->end) {
		size_t at = it->pos;
		if (it->end - at < 4)
			return iter_fail(it, PK_ERR_TRUNC);
		uint32_t w = pk_ld32(it->page + at, big);
		unsigned type = big ? w >> 27 : w & 31;
		uint32_t delta = big ? w & PK_RB_DELTA_MASK : w >> 5;
		size_t left = it->end - at - 4;
		uint32_t a0 = left >= 4 ? pk_ld32(it->page + at + 4, big) : 0;

		switch (type) {
		case PK_RB_PADDING:
			if (!delta) {         /* null event: rest of the page */
				it->pos = it->end;
				return 0;
			}
			if (left < 4 || a0 > left)
				return iter_fail(it, PK_ERR_FORMAT);
			it->ts += delta;
			it->pos = at + 4 + a0;
			continue;
		case PK_RB_TIME_EXTEND:
		case PK_RB_TIME_STAMP:
			if (left < 4)
				return iter_fail(it, PK_ERR_TRUNC);
			if (type == PK_RB_TIME_STAMP)
				it->ts = ((uint64_t)a0 << PK_RB_TS_SHIFT) + delta;
			else
				it->ts += ((uint64_t)a0 << PK_RB_TS_SHIFT) + delta;
			it->pos = at + 8;
			continue;
		case 0:
			if (left < 4 || a0 < 4 || a0 - 4 > left - 4)
				return iter_fail(it, PK_ERR_FORMAT);
			it->ts += delta;
			ev->data = it->page + at + 8;
			ev->size = a0 - 4;
			it->pos = at + 8 + ((a0 - 4 + 3) & ~3u);
			if (it->pos > it->end)
				it->pos = it->end;
			break;
		default:
			if ((size_t)type * 4 > left)
				return iter_fail(it, PK_ERR_FORMAT);
			it->ts += delta;
			ev->data = it->page + at + 4;
			ev->size = type * 4;
			it->pos = at + 4 + type * 4;
			break;
		}
		ev->ts = it->ts;
		ev->offset = at;
		return 1;
	}
	return 0;
}

void pk__rb_enc_init(struct pk_rb_enc *e, void *page, size_t page_size,
		    const struct pk_rb_layout *l, uint64_t ts)
{
	e->page = page;
	e->page_size = page_size;
	e->l = l;
	e->pos = l->data_off;
	e->last_ts = ts;
	memset(page, 0, page_size);
	pk_st64(e->page, ts, l->big_endian);
}

static void put_hdr(struct pk_rb_enc *e, unsigned type, uint32_t delta)
{
	bool big = e->l->big_endian;
	uint32_t w = big ? (type << 27) | (delta & PK_RB_DELTA_MASK)
			 : (delta << 5) | (type & 31);
	pk_st32(e->page + e->pos, w, big);
	e->pos += 4;
}

static bool room(const struct pk_rb_enc *e, size_t n)
{
	return e->pos + n <= e->page_size;
}

/* A TIME_STAMP or TIME_EXTEND of V: its low 27 bits in the header, the
 * rest in the next word. */
static int put_time(struct pk_rb_enc *e, unsigned type, uint64_t v)
{
	if (!room(e, 8))
		return -ENOSPC;
	put_hdr(e, type, (uint32_t)(v & PK_RB_DELTA_MASK));
	pk_st32(e->page + e->pos, (uint32_t)(v >> PK_RB_TS_SHIFT),
		e->l->big_endian);
	e->pos += 4;
	return 0;
}

int pk__rb_enc_time_stamp(struct pk_rb_enc *e, uint64_t ts)
{
	int r = put_time(e, PK_RB_TIME_STAMP, ts);

	if (!r)
		e->last_ts = ts;
	return r;
}

int pk__rb_enc_time_extend(struct pk_rb_enc *e, uint64_t delta)
{
	int r = put_time(e, PK_RB_TIME_EXTEND, delta);

	if (!r)
		e->last_ts += delta;
	return r;
}

int pk__rb_enc_padding(struct pk_rb_enc *e, uint32_t delta, uint32_t len)
{
	len = (len + 3) & ~3u;
	if (!delta || !room(e, 8 + (size_t)len))
		return -ENOSPC;
	put_hdr(e, PK_RB_PADDING, delta);
	pk_st32(e->page + e->pos, len + 4, e->l->big_endian);
	e->pos += 4 + len;
	e->last_ts += delta;
	return 0;
}

int pk__rb_enc_event(struct pk_rb_enc *e, uint64_t ts, const void *data,
		    uint32_t len, bool force_long)
{
	uint64_t delta = ts >= e->last_ts ? ts - e->last_ts : 0;
	uint32_t alen = (len + 3) & ~3u;
	bool lng = force_long || alen > PK_RB_MAX_DATA * 4 || alen == 0;
	size_t need = (delta > PK_RB_DELTA_MASK ? 8 : 0) + 4 + (lng ? 4 : 0) +
		      alen;

	if (!room(e, need))
		return -ENOSPC;
	if (delta > PK_RB_DELTA_MASK) {
		pk__rb_enc_time_extend(e, delta);
		delta = 0;
	}
	if (lng) {
		put_hdr(e, 0, (uint32_t)delta);
		pk_st32(e->page + e->pos, len + 4, e->l->big_endian);
		e->pos += 4;
	} else {
		put_hdr(e, alen / 4, (uint32_t)delta);
	}
	memcpy(e->page + e->pos, data, len);
	e->pos += alen;
	e->last_ts = ts;
	return 0;
}

/* The commit word with FLAGS; COUNT stored after the data when STORE
 * and it fits. */
static size_t finish(struct pk_rb_enc *e, uint64_t flags, bool store,
		     uint64_t count)
{
	const struct pk_rb_layout *l = e->l;
	uint64_t commit = (e->pos - l->data_off) | flags;

	if (store && room(e, l->commit_size)) {
		commit |= PK_RB_MISSED_STORED;
		pk_stn(e->page + e->pos, count, l->commit_size, l->big_endian);
	}
	pk_stn(e->page + l->commit_off, commit, l->commit_size, l->big_endian);
	return e->pos;
}

size_t pk__rb_enc_finish(struct pk_rb_enc *e, long long missed)
{
	return finish(e, missed ? PK_RB_MISSED : 0, missed > 0,
		      (uint64_t)missed);
}

size_t pk__rb_enc_finish_count(struct pk_rb_enc *e, uint64_t count)
{
	return finish(e, PK_RB_MISSED, true, count);
}
