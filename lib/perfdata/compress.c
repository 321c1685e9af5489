/* SPDX-License-Identifier: MIT */
/* PERF_RECORD_COMPRESSED: zstd frames holding ordinary records. */
#include <errno.h>
#include <string.h>
#include <zstd.h>
#include "perfdata/pd.h"

#define ZMAX (256ULL << 20) /* one batch decompresses to at most this */

int pk__pd_decompress(struct pk_perfdata *pd, const struct perf_event_header *h,
		  uint64_t off)
{
	ZSTD_inBuffer in = { (const char *)h + 8, h->size - 8u, 0 };

	if (!pd->zstd) {
		pd->zstd = ZSTD_createDStream();
		if (!pd->zstd)
			return -ENOMEM;
		ZSTD_initDStream(pd->zstd);
	}
	/* keep a record cut at the end of the previous batch */
	if (pd->zpos < pd->zlen)
		memmove(pd->zbuf, pd->zbuf + pd->zpos, pd->zlen - pd->zpos);
	pd->zlen -= pd->zpos;
	pd->zpos = 0;
	pd->zoff = off;
	for (;;) {
		ZSTD_outBuffer out;
		size_t r;

		if (pd->zcap - pd->zlen < 65536) {
			size_t cap = pd->zcap ? pd->zcap * 2 : 1 << 20;
			unsigned char *n;

			if (cap > ZMAX)
				return pk__pd_fail(pd, PK_ERR_FORMAT, off,
					       "PERF_RECORD_COMPRESSED decompresses to more than %llu bytes",
					       (unsigned long long)ZMAX);
			n = pk__realloc(pd->zbuf, cap);
			if (!n)
				return -ENOMEM;
			pd->zbuf = n;
			pd->zcap = cap;
		}
		out.dst = pd->zbuf;
		out.size = pd->zcap;
		out.pos = pd->zlen;
		r = ZSTD_decompressStream(pd->zstd, &out, &in);
		pd->zlen = out.pos;
		if (ZSTD_isError(r))
			return pk__pd_fail(pd, PK_ERR_FORMAT, off,
				       "PERF_RECORD_COMPRESSED: zstd: %s",
				       ZSTD_getErrorName(r));
		(void)r;
		if (in.pos == in.size && out.pos < out.size)
			break; /* all input used, nothing pending */
	}
	return 0;
}

void pk__pd_zfree(struct pk_perfdata *pd)
{
	ZSTD_freeDStream(pd->zstd);
	pk__free(pd->zbuf);
	pd->zstd = NULL;
	pd->zbuf = NULL;
}
