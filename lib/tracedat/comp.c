/* SPDX-License-Identifier: MIT */
/* trace.dat section and chunk compression: zstd and zlib. */
#include <errno.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include "tracedat/tracedat.h"

bool pk__td_size_plausible(uint64_t csize, uint64_t usize)
{
	/* zstd/zlib rarely beat 1:256 on trace data; cap the allocation */
	return usize <= (1ull << 30) && usize <= csize * 256 + (1u << 20);
}

int pk__td_decompress(const char *alg, const void *in, size_t in_len,
		  void *out, size_t out_len)
{
	if (!strcmp(alg, "zstd")) {
		size_t r = ZSTD_decompress(out, out_len, in, in_len);
		if (ZSTD_isError(r) || r != out_len)
			return PK_ERR_FORMAT;
		return 0;
	}
	if (!strcmp(alg, "zlib")) {
		uLongf n = out_len;
		if (uncompress(out, &n, in, in_len) != Z_OK || n != out_len)
			return PK_ERR_FORMAT;
		return 0;
	}
	if (!strcmp(alg, "none") && in_len == out_len) {
		memcpy(out, in, in_len);
		return 0;
	}
	return PK_ERR_UNSUPP;
}

int pk__td_decompress_ctx(void **ctx, const char *alg, const void *in,
		      size_t in_len, void *out, size_t out_len)
{
	if (strcmp(alg, "zstd"))
		return pk__td_decompress(alg, in, in_len, out, out_len);
	if (!*ctx && !(*ctx = ZSTD_createDCtx()))
		return -ENOMEM;
	size_t r = ZSTD_decompressDCtx(*ctx, out, out_len, in, in_len);
	if (ZSTD_isError(r) || r != out_len)
		return PK_ERR_FORMAT;
	return 0;
}

void pk__td_decompress_free(void *ctx)
{
	if (ctx)
		ZSTD_freeDCtx(ctx);
}

int pk__td_compress(const char *alg, const void *in, size_t in_len,
		void **out, size_t *out_len)
{
	if (!strcmp(alg, "zstd")) {
		size_t cap = ZSTD_compressBound(in_len);
		void *buf = pk__malloc(cap);
		if (!buf)
			return -ENOMEM;
		/* trace-cmd's frames: level 3, no content size */
		ZSTD_CCtx *c = ZSTD_createCCtx();
		size_t r = c ? ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag,
						      0) : 1;
		if (c && !ZSTD_isError(r))
			r = ZSTD_compress2(c, buf, cap, in, in_len);
		ZSTD_freeCCtx(c);
		if (!c || ZSTD_isError(r)) {
			pk__free(buf);
			return c ? PK_ERR_INTERNAL : -ENOMEM;
		}
		*out = buf;
		*out_len = r;
		return 0;
	}
	if (!strcmp(alg, "zlib")) {
		uLongf cap = compressBound(in_len);
		void *buf = pk__malloc(cap);
		if (!buf)
			return -ENOMEM;
		if (compress2(buf, &cap, in, in_len, Z_BEST_COMPRESSION) != Z_OK) {
			pk__free(buf);
			return PK_ERR_INTERNAL;
		}
		*out = buf;
		*out_len = cap;
		return 0;
	}
	return PK_ERR_UNSUPP;
}

const char *pk_tracedat_codec(int idx, const char **version)
{
	switch (idx) {
	case 0: *version = ZSTD_versionString(); return "zstd";
	case 1: *version = zlibVersion(); return "zlib";
	default: return NULL;
	}
}
