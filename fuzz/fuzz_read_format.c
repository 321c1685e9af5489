/* SPDX-License-Identifier: MIT */
/* libFuzzer: read(2) buffers of perf events through pk_read_format_parse;
 * what parses must write back to the same bytes. First byte: read_format. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/counter.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_counts c[64];
	unsigned char out[8 * (3 + 64 * 3)];
	uint64_t rf;
	int n, len;

	if (size < 1)
		return 0;
	rf = data[0] & 31;
	n = pk_read_format_parse(rf, data + 1, size - 1, c, 64);
	if (n <= 0)
		return 0;
	len = pk_read_format_write(rf, c, n, out, sizeof(out));
	if (len < 0 || (size_t)len > size - 1 || memcmp(out, data + 1, (size_t)len))
		abort();
	return 0;
}
