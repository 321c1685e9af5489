/* SPDX-License-Identifier: MIT */
/*
 * Snapshot buffers that repeat the previous one: where the new trace of a
 * buffer B begins, given the buffer A queued before it (perf's rule for
 * snapshot and sample mode, intel_pt_find_overlap). Decoding only begins
 * at a PSB, so both are looked at from their first PSB on. With TSCs the
 * last complete PSB+ of A is found in B by its TSC; without, the tail of
 * A is looked for at B's start, PSB by PSB. Up to 7 bytes of padding at
 * A's end are allowed for.
 */
#include <string.h>
#include <perfkit/pt.h>
#include "itrace/itrace_int.h"

static const uint8_t psb[16] = {
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
	0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
};

#define PAD_MAX 7

/* The first PSB at or after FROM, or LEN. */
static size_t psb_from(const uint8_t *p, size_t len, size_t from)
{
	const uint8_t *at;

	if (from >= len || len - from < sizeof(psb))
		return len;
	at = memmem(p + from, len - from, psb, sizeof(psb));
	return at ? (size_t)(at - p) : len;
}

/* The last PSB that lies whole in P[0..LEN), or LEN. */
static size_t psb_last(const uint8_t *p, size_t len)
{
	for (size_t i = len >= sizeof(psb) ? len - sizeof(psb) + 1 : 0; i--;)
		if (!memcmp(p + i, psb, sizeof(psb)))
			return i;
	return len;
}

/* The TSC of the PSB+ that begins P[0..LEN): its payload and how many
 * bytes there are from its packet to LEN. False when the PSB+ ends (or
 * the bytes do) first. */
static bool psb_tsc(const uint8_t *p, size_t len, uint64_t *tsc, size_t *rem)
{
	struct pk_pt_decoder *d = pk_pt_decoder_new(p, len, NULL);
	struct pk_pt_packet pkt;
	uint64_t off = 0;
	bool found = false;

	if (!d)
		return false;
	if (!pk_pt_sync_set(d, 0))
		while (pk_pt_offset(d, &off) == 0 && pk_pt_next(d, &pkt) > 0 &&
		       pkt.type != PK_PT_PSBEND) {
			if (pkt.type == PK_PT_TSC) {
				*tsc = pkt.u.tsc.tsc;
				*rem = len - (size_t)off;
				found = true;
				break;
			}
		}
	pk_pt_decoder_free(d);
	return found;
}

/* -1, 0, 1: T1 before, the same as, after T2 (7-byte TSCs that may have
 * gone round: the nearer way round is taken). */
static int tsc_cmp(uint64_t t1, uint64_t t2)
{
	const uint64_t half = 1ull << 55;

	if (t1 == t2)
		return 0;
	if (t1 < t2)
		return t2 - t1 < half ? -1 : 1;
	return t1 - t2 < half ? 1 : -1;
}

/* B's new data begins at AT (A's end matched there): back over A's
 * padding, where B's bytes before differ from A's. */
static size_t unpad(const uint8_t *a, size_t la, const uint8_t *b, size_t at)
{
	size_t i = 0;

	if (at < PAD_MAX || la < PAD_MAX)
		return at;
	while (i < PAD_MAX && b[at - PAD_MAX + i] == a[la - PAD_MAX + i])
		i++;
	return at - PAD_MAX + i;
}

/* By TSC: A and B each begin at a PSB. Without a complete PSB+ with a
 * TSC in A's end perf takes it that they do not overlap. */
static size_t by_tsc(const uint8_t *a, size_t la, const uint8_t *b,
		     size_t lb, bool *consecutive)
{
	size_t pa = psb_last(a, la), rem_a, rem_b, pb = 0;
	uint64_t ta, tb;

	if (pa == la)
		return 0;
	if (!psb_tsc(a + pa, la - pa, &ta, &rem_a)) {
		/* the last PSB+ is cut short: the one before */
		la = pa;
		pa = psb_last(a, la);
		if (pa == la || !psb_tsc(a + pa, la - pa, &ta, &rem_a))
			return 0;
	}
	for (;;) {
		if (psb_tsc(b + pb, lb - pb, &tb, &rem_b)) {
			int c = tsc_cmp(ta, tb);

			if (!c && rem_b >= rem_a) {
				*consecutive = true;
				return unpad(a, la, b, lb - (rem_b - rem_a));
			}
			if (c < 0)
				return pb;	/* B begins after A */
		}
		if ((pb = psb_from(b, lb, pb + 1)) == lb)
			return lb;	/* nothing of B is new */
	}
}

size_t pk__it_overlap(const uint8_t *a, size_t la, const uint8_t *b,
		      size_t lb, bool have_tsc, bool *consecutive)
{
	size_t fb = psb_from(b, lb, 0), fa = psb_from(a, la, 0);

	*consecutive = false;
	if (fb == lb)
		return lb;	/* no PSB: nothing to decode */
	if (fa == la)
		return fb;
	a += fa;
	la -= fa;
	if (have_tsc)
		return fb + by_tsc(a, la, b + fb, lb - fb, consecutive);
	/* B cannot end inside A: A's start is of no use while longer */
	while (lb - fb < la) {
		size_t n = psb_from(a, la, 1);

		if (n == la)
			return fb;
		a += n;
		la -= n;
	}
	for (;;) {
		size_t n;

		if (!memcmp(a, b + fb, la)) {
			*consecutive = true;
			return unpad(a, la, b, fb + la);
		}
		if ((n = psb_from(a, la, 1)) == la)
			return fb;
		a += n;
		la -= n;
	}
}
