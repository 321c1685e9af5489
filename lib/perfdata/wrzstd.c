/* SPDX-License-Identifier: MIT */
/*
 * Writer side of PERF_RECORD_COMPRESSED: records are gathered, then
 * compressed as one zstd stream cut into records of at most 64 KiB, the
 * way perf record -z writes them (readers decompress the records in order
 * with one stream).
 */
#include <errno.h>
#include <string.h>
#include <zstd.h>
#include "base/base.h"
#include "perfdata/wr.h"

#define ZBATCH (256 * 1024)     /* raw bytes per compressed batch */
#define ZREC_MAX (65535 & ~7)   /* record size limit (header included) */

int pk_pdwriter_set_compression(struct pk_pdwriter *w, int level,
				uint32_t mmap_len)
{
	if (!w || level < 1 || level > ZSTD_maxCLevel() || w->zcs)
		return -EINVAL;
	w->zcs = ZSTD_createCStream();
	if (!w->zcs)
		return -ENOMEM;
	if (ZSTD_isError(ZSTD_initCStream(w->zcs, level))) {
		ZSTD_freeCStream(w->zcs);
		w->zcs = NULL;
		return -EINVAL;
	}
	w->zlevel = level;
	w->zmmap_len = mmap_len;
	return 0;
}

int pk__wr_z_add(struct pk_pdwriter *w, const struct perf_event_header *rec,
	     const void *extra, size_t extra_size)
{
	static const char zero[8];

	if (pk__buf_append(&w->zbuf, rec, rec->size) ||
	    (extra_size && pk__buf_append(&w->zbuf, extra, extra_size)) ||
	    (extra_size % 8 && pk__buf_append(&w->zbuf, zero, 8 - extra_size % 8)))
		return w->err = -ENOMEM;
	return w->zbuf.len >= ZBATCH ? pk__wr_z_flush(w) : 0;
}

/* One COMPRESSED record holding LEN bytes of zstd output. */
static int emit_chunk(struct pk_pdwriter *w, const void *data, size_t len)
{
	union {
		struct perf_event_header h;
		unsigned char b[ZREC_MAX];
	} u;

	u.h.type = PK_RECORD_COMPRESSED;
	u.h.misc = 0;
	u.h.size = (uint16_t)(sizeof(u.h) + len);
	memcpy(u.b + sizeof(u.h), data, len);
	w->zout += u.h.size;
	return pk__wr_emit(w, &u.h, NULL, 0);
}

int pk__wr_z_flush(struct pk_pdwriter *w)
{
	unsigned char dst[ZREC_MAX - 8];
	ZSTD_inBuffer in = { w->zbuf.data, w->zbuf.len, 0 };
	size_t left;
	int r = 0;

	if (!w->zcs || !w->zbuf.len)
		return 0;
	do {
		ZSTD_outBuffer out = { dst, sizeof(dst), 0 };

		left = ZSTD_compressStream2(w->zcs, &out, &in, ZSTD_e_end);
		if (ZSTD_isError(left))
			return pk_warn("zstd: %s", ZSTD_getErrorName(left)), w->err = -EIO;
		if (out.pos)
			r = emit_chunk(w, dst, out.pos);
	} while (!r && (left || in.pos < in.size));
	w->zin += w->zbuf.len;
	w->zbuf.len = 0;
	return r;
}

int pk_pdwriter_feat_compressed(struct pk_pdwriter *w, int level,
				uint32_t ratio, uint32_t mmap_len)
{
	uint32_t v[5] = { 0, 1, (uint32_t)level, ratio, mmap_len };

	if (level < 1 || level > ZSTD_maxCLevel())
		return -EINVAL;
	return pk_pdwriter_feat_raw(w, PK_HEADER_COMPRESSED, v, sizeof(v));
}

int pk__wr_z_feature(struct pk_pdwriter *w)
{
	if (!w->zcs)
		return 0;
	return pk_pdwriter_feat_compressed(w, w->zlevel,
			w->zout ? (uint32_t)(w->zin / w->zout) : 0, w->zmmap_len);
}

void pk__wr_z_fini(struct pk_pdwriter *w)
{
	if (w->zcs)
		ZSTD_freeCStream(w->zcs);
	w->zcs = NULL;
	pk__buf_fini(&w->zbuf);
}
