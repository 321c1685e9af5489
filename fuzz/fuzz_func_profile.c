/* SPDX-License-Identifier: MIT */
/* libFuzzer: trace_stat/functionN text through pk_func_profile_parse and
 * the merge: rows come back or PK_ERR_FORMAT, merged rows are sorted by
 * time and hold each name once. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/ftrace.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_func_profile *p = NULL;
	int n = 0, r;
	bool ht = false;
	char *s;

	if (size > 65536)
		return 0;
	s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = 0;
	r = pk_func_profile_parse(s, &p, &n, &ht);
	if (r && r != PK_ERR_FORMAT && r != -ENOMEM)
		abort();
	pk_func_profile_merge(p, &n);
	for (int i = 1; i < n; i++)
		if (p[i - 1].time_us < p[i].time_us ||
		    (p[i - 1].time_us == p[i].time_us &&
		     p[i - 1].hit < p[i].hit))
			abort();
	for (int i = 0; i < n; i++)
		for (int k = i + 1; k < n; k++)
			if (!strcmp(p[i].name, p[k].name))
				abort();
	free(p);
	free(s);
	return 0;
}
