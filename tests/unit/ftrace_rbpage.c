/* SPDX-License-Identifier: MIT */
/* Ring-buffer page encoder -> parser round trips and damaged pages. */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "base/base.h"
#include "tracedat/rbpage.h"
#include "test.h"

#define PS 4096

struct want { uint64_t ts; uint32_t len; uint8_t fill; };

/* Encodes W (with extras between events) and parses it back. */
static bool round_trip(const struct pk_rb_layout *l, const struct want *w,
		       int n, long long missed, const char *name)
{
	static uint8_t page[PS];
	struct pk_rb_enc e;
	struct pk_rb_iter it;
	struct pk_rb_event ev;
	uint8_t data[300];
	int i = 0, r;

	pk__rb_enc_init(&e, page, PS, l, w[0].ts);
	for (int k = 0; k < n; k++) {
		memset(data, w[k].fill, sizeof(data));
		if (k == 2 && pk__rb_enc_padding(&e, 5, 16))
			return t_check(false, name, "padding did not fit");
		if (k == 3 && pk__rb_enc_time_stamp(&e, w[k].ts - 7))
			return t_check(false, name, "time stamp did not fit");
		if (pk__rb_enc_event(&e, w[k].ts, data, w[k].len, k == 1))
			return t_check(false, name, "event %d did not fit", k);
	}
	pk__rb_enc_finish(&e, missed);
	if (pk__rb_iter_init(&it, page, PS, l))
		return t_check(false, name, "init failed");
	if (it.missed != missed)
		return t_check(false, name, "missed %lld != %lld", it.missed,
			       missed);
	while ((r = pk__rb_iter_next(&it, &ev)) > 0) {
		if (i >= n)
			return t_check(false, name, "extra event");
		uint32_t alen = w[i].len;
		if (ev.ts != w[i].ts || ev.size < alen ||
		    (alen && (ev.data[0] != w[i].fill ||
			      ev.data[alen - 1] != w[i].fill)))
			return t_check(false, name,
				       "event %d: ts %llu size %u, want %llu %u",
				       i, (unsigned long long)ev.ts, ev.size,
				       (unsigned long long)w[i].ts, alen);
		i++;
	}
	return t_check(r == 0 && i == n, name, "r=%d, %d of %d events", r, i,
		       n);
}

int main(void)
{
	static const struct want w[] = {
		{ 1000, 8, 0x11 },
		{ 1010, 20, 0x22 },          /* forced type_len 0 */
		{ 1020, 116, 0x33 },         /* after padding; > 112: long */
		{ 5000000000ull, 4, 0x44 },  /* after TIME_STAMP */
		{ 5000000000ull + (1ull << 28), 12, 0x55 }, /* TIME_EXTEND */
		{ 5000000000ull + (1ull << 28) + 3, 0, 0 },
		{ 5000000000ull + (1ull << 40), 256, 0x66 },
	};
	struct pk_rb_layout l64, l32, big;
	const char *hp =
		"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
		"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";

	pk__rb_layout_default(&l64, 8, false);
	pk__rb_layout_default(&big, 8, true);
	T_CHECK("rbpage_layout_parse", pk__rb_layout_parse(&l32, hp, strlen(hp),
							   false) == 0 &&
		l32.commit_size == 4 && l32.data_off == 12);
	T_CHECK("rbpage_layout_reject", pk__rb_layout_parse(&l32, "junk", 4,
							    false) != 0);
	pk__rb_layout_parse(&l32, hp, strlen(hp), false);
	round_trip(&l64, w, 7, 0, "rbpage_roundtrip_le64");
	round_trip(&l32, w, 7, 0, "rbpage_roundtrip_le32");
	round_trip(&big, w, 7, 0, "rbpage_roundtrip_be64");
	round_trip(&l64, w, 7, 12345, "rbpage_missed_stored");
	round_trip(&l64, w, 7, -1, "rbpage_missed_unknown");

	/* a full page: encoder refuses, parser sees every event */
	static uint8_t page[PS];
	struct pk_rb_enc e;
	struct pk_rb_iter it;
	struct pk_rb_event ev;
	int n = 0, got = 0;
	pk__rb_enc_init(&e, page, PS, &l64, 0);
	while (pk__rb_enc_event(&e, (uint64_t)n * 3, "abcdefgh", 8, false) == 0)
		n++;
	pk__rb_enc_finish(&e, 0);
	pk__rb_iter_init(&it, page, PS, &l64);
	while (pk__rb_iter_next(&it, &ev) > 0)
		got++;
	T_CHECK("rbpage_full_page", n == (PS - 16) / 12 && got == n);

	/* damaged pages: commit past the page, event past the commit */
	uint8_t bad[PS];
	memcpy(bad, page, PS);
	bad[8] = 0xff, bad[9] = 0xff, bad[10] = 0x7f;
	T_CHECK("rbpage_bad_commit", pk__rb_iter_init(&it, bad, PS, &l64) ==
		PK_ERR_FORMAT && pk__rb_iter_next(&it, &ev) == 0);
	pk__rb_enc_init(&e, bad, PS, &l64, 0);
	pk__rb_enc_event(&e, 1, "abcdefgh", 8, true);
	pk__rb_enc_finish(&e, 0);
	bad[16 + 4] = 0xf0;               /* length word far too large */
	pk__rb_iter_init(&it, bad, PS, &l64);
	int r = pk__rb_iter_next(&it, &ev);
	T_CHECK("rbpage_bad_length", r == PK_ERR_FORMAT && it.err_off == 16);
	T_CHECK("rbpage_short_page", pk__rb_iter_init(&it, bad, 10, &l64) ==
		PK_ERR_TRUNC && pk__rb_iter_next(&it, &ev) == 0);

	/* random bytes never crash or loop */
	srand(1);
	int crashes = 0;
	for (int k = 0; k < 2000; k++) {
		for (int b = 0; b < PS; b++)
			bad[b] = (uint8_t)rand();
		bad[10] &= 0x0f;
		pk__rb_iter_init(&it, bad, PS, &l64);
		int steps = 0;
		while (pk__rb_iter_next(&it, &ev) > 0 && steps < PS)
			steps++;
		if (steps >= PS)
			crashes++;
	}
	T_CHECK("rbpage_random_pages_end", crashes == 0);
	return t_exit();
}
