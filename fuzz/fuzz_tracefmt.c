/* SPDX-License-Identifier: MIT */
/* libFuzzer target: perf's tracing data layout parser over arbitrary
 * bytes. The formats themselves go to libtraceevent, whose parser crashes
 * on some hostile format text (found by this target), so they are only
 * walked here, not parsed. */
#include <stdint.h>
#include <stdlib.h>
#include "tracefmt/tracefmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pk__tracefmt_check(data, size);
	return 0;
}
