/* SPDX-License-Identifier: MIT */
/*
 * perf script's text for page sizes ("4K", "2M", "N/A"); a sample's data
 * source is pk_mem_describe's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "script.h"

size_t script_page_size(uint64_t size, char *buf, size_t len)
{
	static const char unit[] = "BKMG";
	unsigned i = 0;
	int n;

	if (!size)
		return (size_t)snprintf(buf, len, "N/A");
	/* perf divides while the quotient stays above one */
	while (size / 1024 > 1 && i < 3) {
		size /= 1024;
		i++;
	}
	n = snprintf(buf, len, "%" PRIu64 "%c", size, unit[i]);
	return n < 0 ? 0 : (size_t)n;
}
