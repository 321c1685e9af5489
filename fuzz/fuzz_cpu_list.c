/* SPDX-License-Identifier: MIT */
/* libFuzzer: CPU lists ("0-3,6") through pk_cpu_map_new: a map comes back
 * sorted and unique, or NULL with EINVAL. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/map.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	struct pk_cpu_map *m;

	if (size == 0 || size > 4096)
		return 0;
	s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = 0;
	errno = 0;
	m = pk_cpu_map_new(s[0] ? s : "x");
	if (!m && errno != EINVAL && errno != ENOMEM)
		abort();
	for (int i = 1; m && i < pk_cpu_map_nr(m); i++)
		if (pk_cpu_map_cpu(m, i - 1) >= pk_cpu_map_cpu(m, i))
			abort();
	pk_cpu_map_put(m);
	free(s);
	return 0;
}
