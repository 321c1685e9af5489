/* SPDX-License-Identifier: MIT */
/*
 * lib/itrace/overlap.c (white box): where a snapshot's new trace begins
 * after the snapshot before it, by TSC and by bytes, with padding, for
 * snapshots that repeat all of the last one, part of it, or none.
 */
#include <string.h>
#include <perfkit/pt.h>
#include "itrace/itrace_int.h"
#include "test.h"

#define NSEG 12

static uint8_t s[NSEG * 64];
static size_t seg[NSEG + 1];	/* where each PSB+ begins; the end */

static size_t put(size_t n, uint8_t type, uint64_t tsc)
{
	struct pk_pt_packet p;
	int r;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.u.tsc.tsc = tsc;
	r = pk_pt_encode(&p, s + n, sizeof(s) - n);
	return r > 0 ? n + (size_t)r : n;
}

/* NSEG pieces: PSB, TSC (1000 + 10 i), PSBEND, then i + 5 short TNTs
 * (pieces of different lengths, so that no two line up by chance) */
static void stream(void)
{
	size_t n = 0;

	for (int i = 0; i < NSEG; i++) {
		seg[i] = n;
		n = put(n, PK_PT_PSB, 0);
		n = put(n, PK_PT_TSC, 1000 + 10 * (uint64_t)i);
		n = put(n, PK_PT_PSBEND, 0);
		for (int k = 0; k < i + 5; k++)
			s[n++] = (uint8_t)(0x04 + 2 * (k & 1));
	}
	seg[NSEG] = n;
}

static void one(const char *name, size_t a0, size_t a1, size_t pad,
		size_t b0, size_t b1, bool tsc, size_t want, bool want_cons)
{
	uint8_t a[sizeof(s) + 8];
	bool cons = !want_cons;
	size_t got;

	memcpy(a, s + a0, a1 - a0);
	memset(a + (a1 - a0), 0, pad);
	got = pk__it_overlap(a, a1 - a0 + pad, s + b0, b1 - b0, tsc, &cons);
	t_check(got == want && cons == want_cons, name,
		"new data at %zu (want %zu), consecutive %d", got, want, cons);
}

int main(void)
{
	size_t mid;

	stream();
	mid = seg[7] + 9;	/* A ends inside a PSB */
	for (int tsc = 0; tsc < 2; tsc++) {
		const char *w = tsc ? "tsc" : "bytes";
		char n[64];

#define NAME(x) (snprintf(n, sizeof(n), "overlap:%s:%s", w, x), n)
		/* the same bytes again: nothing new */
		one(NAME("same"), seg[2], seg[9], 0, seg[2], seg[9], tsc,
		    seg[9] - seg[2], true);
		/* B repeats A's end and goes on */
		one(NAME("part"), seg[1], mid, 0, seg[4], seg[11], tsc,
		    mid - seg[4], true);
		/* ... B starting before a PSB: its bytes up to it skipped */
		one(NAME("part-unsynced"), seg[1], mid, 0, seg[4] - 3,
		    seg[11], tsc, mid - seg[4] + 3, true);
		/* B after A, nothing in common: from B's first PSB */
		one(NAME("none"), seg[1], seg[3], 0, seg[5] - 2, seg[9], tsc,
		    2, false);
		/* no PSB in B: nothing to decode */
		one(NAME("no-psb"), seg[1], seg[3], 0, seg[5] + 20,
		    seg[6] - 1, tsc, seg[6] - 1 - seg[5] - 20, false);
	}
	/* zeros padding A: perf's 7 bytes back, where they differ from B */
	one("overlap:tsc:padded", seg[1], mid, 3, seg[4], seg[11], true,
	    mid - seg[4], true);
	/* by TSC, A's last PSB+ cut short: the one before it is used, and
	 * perf goes on from where the cut one begins */
	one("overlap:tsc:cut-psb", seg[1], seg[8] + 17, 0, seg[4], seg[11],
	    true, seg[8] - seg[4], true);
	/* by TSC, B starting later than A's last TSC: no overlap */
	one("overlap:tsc:later", seg[1], seg[3] + 20, 0, seg[5], seg[9],
	    true, 0, false);
	return t_exit();
}
