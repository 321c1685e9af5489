/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the perf.data reader over arbitrary bytes, as a file
 * (PERFILE2 header) and as a pipe stream, in time and file order, with
 * every record decoded and described. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/perfdata.h>

static void walk(const uint8_t *data, size_t size, bool file_order)
{
	PK_OPTS(pk_perfdata_opts, o, .file_order = file_order);
	struct pk_perfdata *pd = pk_perfdata_open_mem(data, size, &o);
	struct pk_record rec;
	char buf[512];

	if (!pd)
		return;
	for (int f = 1; f < PK_HEADER_MAX; f++) {
		pk_perfdata_feat_describe(pd, f, buf, sizeof(buf));
		pk_perfdata_feat_describe_full(pd, f, buf, sizeof(buf));
	}
	while (pk_perfdata_next(pd, &rec) == 0) {
		struct pk_sample s;

		pk_sample_parse(pd, &rec, &s);
		pk_record_describe(pd, &rec, buf, sizeof(buf));
	}
	pk_perfdata_free(pd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t pipe_hdr[2] = { 0x32454c4946524550ULL, 16 };
	uint8_t *p;

	walk(data, size, size & 1);
	/* the same bytes as a pipe-mode stream */
	p = malloc(size + 16);
	if (!p)
		return 0;
	memcpy(p, pipe_hdr, 16);
	memcpy(p + 16, data, size);
	walk(p, size + 16, !(size & 1));
	free(p);
	return 0;
}
