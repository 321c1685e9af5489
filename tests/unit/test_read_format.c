/* SPDX-License-Identifier: MIT */
/* read_format: writer/parser round trips for all 32 combinations,
 * truncation, range errors, and multiplexing scaling math. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <perfkit/counter.h>
#include "test.h"

#define GROUP_N 3

/* Entries as the kernel would fill them for RF (absent fields 0; one
 * time pair for a whole group). */
static void make_counts(uint64_t rf, int n, struct pk_counts *c)
{
	for (int i = 0; i < n; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].val = 1000003ull * (uint64_t)(i + 1) + rf;
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			c[i].ena = 5000000000ull + rf;
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			c[i].run = 2500000000ull + rf;
		if (rf & PERF_FORMAT_ID)
			c[i].id = 0xabc0 + (uint64_t)i;
		if (rf & PERF_FORMAT_LOST)
			c[i].lost = 7 + (uint64_t)i;
	}
}

static size_t expected_len(uint64_t rf, int n)
{
	size_t w = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	size_t h = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		   !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);

	if (rf & PERF_FORMAT_GROUP)
		return 8 * (1 + h + (size_t)n * w);
	return 8 * (h + w);
}

static void round_trip(uint64_t rf)
{
	struct pk_counts in[GROUP_N], out[GROUP_N + 1];
	unsigned char buf[512];
	int n = rf & PERF_FORMAT_GROUP ? GROUP_N : 1;
	int len, got, bad = 0;
	char name[64];

	make_counts(rf, n, in);
	len = pk_read_format_write(rf, in, n, buf, sizeof(buf));
	snprintf(name, sizeof(name), "rf_%02x_write_len", (unsigned)rf);
	t_check(len > 0 && (size_t)len == expected_len(rf, n), name,
		"len %d, want %zu", len, expected_len(rf, n));
	if (len <= 0)
		return;
	/* The first word is the value, or nr for a group. */
	{
		uint64_t first;

		memcpy(&first, buf, 8);
		snprintf(name, sizeof(name), "rf_%02x_layout_first",
			 (unsigned)rf);
		t_check(first == (rf & PERF_FORMAT_GROUP ? (uint64_t)n
							 : in[0].val),
			name, "first word %llu", (unsigned long long)first);
	}
	memset(out, 0xee, sizeof(out));
	got = pk_read_format_parse(rf, buf, (size_t)len, out, GROUP_N + 1);
	for (int i = 0; got == n && i < n; i++)
		bad |= memcmp(&in[i], &out[i], sizeof(in[i])) != 0;
	snprintf(name, sizeof(name), "rf_%02x_round_trip", (unsigned)rf);
	t_check(got == n && !bad, name, "parse gave %d (want %d), diff %d",
		got, n, bad);
	/* Every shorter buffer is truncated. */
	bad = 0;
	for (int l = 0; l < len; l++) {
		int r = pk_read_format_parse(rf, buf, (size_t)l, out, GROUP_N);

		if (r != PK_ERR_TRUNC && !bad)
			bad = l + 1;
	}
	snprintf(name, sizeof(name), "rf_%02x_truncated", (unsigned)rf);
	t_check(!bad, name, "length %d not reported as truncated", bad - 1);
	/* Too small an output array. */
	snprintf(name, sizeof(name), "rf_%02x_range", (unsigned)rf);
	got = pk_read_format_parse(rf, buf, (size_t)len, out, n - 1);
	t_check(got == PK_ERR_RANGE, name, "max %d gave %d", n - 1, got);
	/* A short output buffer gets nothing written, the size returned. */
	memset(buf, 0x5a, sizeof(buf));
	got = pk_read_format_write(rf, in, n, buf, (size_t)len - 1);
	snprintf(name, sizeof(name), "rf_%02x_write_short", (unsigned)rf);
	t_check(got == len && buf[0] == 0x5a && buf[len - 1] == 0x5a, name,
		"returned %d, buffer touched", got);
}

static void test_errors(void)
{
	struct pk_counts c[2] = { { .val = 1 }, { .val = 2 } };
	unsigned char buf[64];
	uint64_t huge[4] = { UINT64_MAX, 0, 0, 0 };

	T_CHECK("rf_unknown_bits_parse",
		pk_read_format_parse(1u << 5, buf, 8, c, 1) == -EINVAL);
	T_CHECK("rf_unknown_bits_write",
		pk_read_format_write(1u << 7, c, 1, buf, sizeof(buf)) == -EINVAL);
	T_CHECK("rf_write_two_without_group",
		pk_read_format_write(0, c, 2, buf, sizeof(buf)) == -EINVAL);
	T_CHECK("rf_write_zero", pk_read_format_write(0, c, 0, buf, 64) == -EINVAL);
	T_CHECK("rf_write_size_only", pk_read_format_write(
		PERF_FORMAT_GROUP | PERF_FORMAT_ID, c, 2, NULL, 0) == 8 * 5);
	/* A group claiming 2^64-1 entries is truncated, not a huge loop. */
	T_CHECK("rf_group_huge_nr", pk_read_format_parse(PERF_FORMAT_GROUP,
		huge, sizeof(huge), c, 2) == PK_ERR_TRUNC);
	/* Trailing bytes beyond the layout are ignored. */
	memset(buf, 0, sizeof(buf));
	buf[0] = 42;
	T_CHECK("rf_trailing_ok", pk_read_format_parse(0, buf, 16, c, 1) == 1 &&
		c[0].val == 42);
	/* Unaligned input. */
	{
		unsigned char ub[32] = { 0 };
		struct pk_counts o;

		ub[1] = 9;
		T_CHECK("rf_unaligned", pk_read_format_parse(0, ub + 1, 8, &o, 1)
			== 1 && o.val == 9);
	}
}

static void test_scaling(void)
{
	struct pk_counts c = { .val = 1000, .ena = 200, .run = 100 };
	int st = 99;

	T_CHECK("scale_half", pk_counts_scaled(&c, &st) == 2000 && st == 1);
	c.run = 200;
	T_CHECK("scale_none", pk_counts_scaled(&c, &st) == 1000 && st == 0);
	c.run = 300;	/* run > ena should not shrink the count */
	T_CHECK("scale_run_gt_ena", pk_counts_scaled(&c, &st) == 1000 && st == 0);
	c.run = 0;
	T_CHECK("scale_never_ran", pk_counts_scaled(&c, &st) == 0 && st == -1);
	c = (struct pk_counts){ 0 };
	T_CHECK("scale_all_zero", pk_counts_scaled(&c, &st) == 0 && st == -1);
	/* Values whose product overflows 64 bits. */
	c = (struct pk_counts){ .val = 1ull << 62, .ena = 3ull << 40,
				.run = 1ull << 41 };
	T_CHECK("scale_huge_exact",
		pk_counts_scaled(&c, &st) == 3ull << 61 && st == 1);
	c = (struct pk_counts){ .val = UINT64_MAX - 1, .ena = UINT64_MAX,
				.run = UINT64_MAX - 1 };
	T_CHECK("scale_huge_ratio_near_1",
		pk_counts_scaled(&c, &st) == UINT64_MAX - 1 + 1 && st == 1);
	c = (struct pk_counts){ .val = UINT64_MAX, .ena = 10, .run = 1 };
	T_CHECK("scale_saturates", pk_counts_scaled(&c, &st) == UINT64_MAX);
	c = (struct pk_counts){ .val = 7, .ena = 3, .run = 2 };
	T_CHECK("scale_rounds_down", pk_counts_scaled(&c, NULL) == 10);
}

int main(void)
{
	for (uint64_t rf = 0; rf < 32; rf++)
		round_trip(rf);
	test_errors();
	test_scaling();
	return t_exit();
}
