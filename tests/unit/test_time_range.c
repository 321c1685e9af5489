// SPDX-License-Identifier: MIT
/* cli/time_range.c: perf's --time ranges (seconds and percent slices). */
#include <stdint.h>
#include <string.h>
#include "test.h"
#include "../../cli/time_range.c"

/* The I-th range of ARG parsed against a first sample at 1000 ns and a
 * last one at 2000 ns is [A, B]. */
static void range(const char *arg, unsigned i, uint64_t a, uint64_t b)
{
	struct cli_time_ranges t;
	int err = cli_time_ranges_parse(&t, arg, 1000, 2000);
	char name[64];

	snprintf(name, sizeof(name), "time_range '%s'", arg);
	t_check(!err && i < t.n && t.r[i][0] == a && t.r[i][1] == b, name,
		"err %d, %u ranges, [%llu, %llu] (want [%llu, %llu])", err,
		t.n, i < t.n ? (unsigned long long)t.r[i][0] : 0,
		i < t.n ? (unsigned long long)t.r[i][1] : 0,
		(unsigned long long)a, (unsigned long long)b);
}

static void bad(const char *arg)
{
	struct cli_time_ranges t;
	char name[64];

	snprintf(name, sizeof(name), "time_range_bad '%s'", arg);
	t_check(cli_time_ranges_parse(&t, arg, 1000, 2000) == -EINVAL,
		name, "accepted");
}

int main(void)
{
	struct cli_time_ranges t;

	range("1.5,2", 0, 1500000000, 2000000000);
	range("1,", 0, 1000000000, 0);
	range(",2.000000001", 0, 0, 2000000001);
	range("1,2 3,4", 1, 3000000000, 4000000000);
	/* the second tenth: its end one before the third's start */
	range("10%/2", 0, 1100, 1199);
	range("0%-10%,50%-60%", 1, 1500, 1599);
	range("0%-100%", 0, 1000, 2000);
	range("25%/4", 0, 1750, 2000);
	bad("abc");
	bad("2,1");
	bad("1,2,3,4");
	bad("10%/0");
	bad("20%/6");
	bad("50%-10%");
	bad("110%-120%");
	bad("");
	cli_time_ranges_parse(&t, "1,2 3,4", 0, 0);
	T_CHECK("time_range_skip_between", cli_time_ranges_skip(&t, 2500000000));
	T_CHECK("time_range_keep_edge", !cli_time_ranges_skip(&t, 4000000000));
	T_CHECK("time_range_keep_in", !cli_time_ranges_skip(&t, 1500000000));
	t.n = 0;
	T_CHECK("time_range_none_keeps", !cli_time_ranges_skip(&t, 1));
	return t_exit();
}
