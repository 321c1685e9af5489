/* SPDX-License-Identifier: MIT */
/*
 * perf's Intel PT time as its decoder keeps it (tools/perf/util/
 * intel-pt-decoder/intel-pt-decoder.c, 6.1): a TSC sets the time (its
 * 8th byte from a reference or the time before, backwards within a slip
 * kept, beyond it a wrap or a bad one); a TMA fixes the CTC time base
 * (the TSC less its fast counter and the CTC bits below the MTC
 * period); each MTC adds its CTC ticks to the base; CYC adds cycles at
 * the last CBR's ratio. Beside track.c, which times packets as libipt
 * does: perf's VM time correlation (vmtc.c) needs perf's own numbers.
 */
#include "base/base.h"
#include "pt/pt_int.h"

#define TSC_SLIP 0x10000ull

static uint64_t multdiv(uint64_t t, uint32_t n, uint32_t d)
{
	return d ? (t / d) * n + ((t % d) * n) / d : 0;
}

void pk__pt_ptime_init(struct pk__pt_ptime *t, uint32_t n, uint32_t d,
		       int mtc_shift, uint32_t max_non_turbo_ratio)
{
	memset(t, 0, sizeof(*t));
	t->n = n;
	t->d = n ? d : 0;
	if (t->d && !(t->n % t->d))
		t->mult = t->n / t->d;
	t->shift = mtc_shift;
	t->rem_mask = (1u << mtc_shift) - 1;
	t->mnt = max_non_turbo_ratio;
}

uint64_t pk__pt_ptime_ctc_to_tsc(const struct pk__pt_ptime *t, uint64_t ctc)
{
	return t->mult ? ctc * t->mult : multdiv(ctc, t->n, t->d);
}

uint64_t pk__pt_8b_tsc(uint64_t ts, uint64_t ref)
{
	ts |= ref & (0xffull << 56);
	if (ts < ref) {
		if (ref - ts > (1ull << 55))
			ts += 1ull << 56;
	} else if (ts - ref > (1ull << 55)) {
		ts -= 1ull << 56;
	}
	return ts;
}

uint64_t pk__pt_ptime_expected(const struct pk__pt_ptime *t, uint16_t ctc,
			       uint16_t fc, uint64_t ctc_delta,
			       uint32_t last_ctc)
{
	/* CTC ticks from the base to the last MTC, then on to the TMA: a
	 * TSC may slip past an MTC, so the 16-bit difference is signed */
	uint64_t last_mtc_ctc = last_ctc + ctc_delta;
	uint64_t delta = (uint64_t)(int64_t)(int16_t)(uint16_t)
			 (ctc - (uint16_t)last_mtc_ctc);

	return t->ctc_ts + pk__pt_ptime_ctc_to_tsc(t, ctc_delta + delta) + fc;
}

/* the CYC time restarts at a TSC or MTC met right after a CYC */
static void cyc_restart(struct pk__pt_ptime *t, bool after_cyc)
{
	if (after_cyc) {
		t->cyc_ref = t->ts;
		t->cycle_cnt = 0;
	}
}

bool pk__pt_ptime_tsc(struct pk__pt_ptime *t, uint64_t payload,
		      bool after_cyc)
{
	bool bad = false;
	uint64_t ts;

	t->have_tma = false;
	if (t->ref_ts) {
		t->ts = t->tsc_ts = pk__pt_8b_tsc(payload, t->ref_ts);
		t->ref_ts = 0;
	} else if (t->ts) {
		ts = payload | (t->ts & (0xffull << 56));
		t->tsc_ts = ts;
		if (ts < t->ts && t->ts - ts < TSC_SLIP)
			ts = t->ts;	/* slipped back: kept */
		if (ts < t->ts) {
			if (!t->buf_ts || ts + (1ull << 56) < t->buf_ts) {
				ts += 1ull << 56;	/* wrapped */
				t->tsc_ts = ts;
			} else {
				ts = t->ts;
				bad = true;
			}
		}
		t->ts = ts;
	}
	cyc_restart(t, after_cyc);
	return bad;
}

void pk__pt_ptime_tma(struct pk__pt_ptime *t, uint16_t ctc, uint16_t fc)
{
	uint32_t rem = ctc & t->rem_mask;

	if (!t->d)
		return;
	t->last_mtc = (ctc >> t->shift) & 0xff;
	t->last_ctc = ctc - rem;
	t->ctc_ts = t->tsc_ts - fc - pk__pt_ptime_ctc_to_tsc(t, rem);
	t->ctc_delta = 0;
	t->have_tma = true;
	t->fixup_last_mtc = true;
}

void pk__pt_ptime_mtc(struct pk__pt_ptime *t, uint8_t mtc, bool after_cyc)
{
	uint32_t delta;
	uint64_t ts;

	if (!t->have_tma)
		return;
	if (t->shift > 8 && t->fixup_last_mtc) {
		/* the TMA's 16 CTC bits lack the MTC's top ones: taken from
		 * this MTC */
		uint32_t first_missing = 1u << (16 - t->shift);

		t->fixup_last_mtc = false;
		t->last_mtc |= mtc & ~(first_missing - 1);
	}
	delta = mtc > t->last_mtc ? mtc - t->last_mtc
				  : mtc + 256 - t->last_mtc;
	t->ctc_delta += (uint64_t)delta << t->shift;
	ts = t->ctc_ts + pk__pt_ptime_ctc_to_tsc(t, t->ctc_delta);
	if (ts >= t->ts)
		t->ts = ts;
	t->last_mtc = mtc;
	cyc_restart(t, after_cyc);
}

void pk__pt_ptime_cbr(struct pk__pt_ptime *t, uint8_t ratio)
{
	if (t->cbr == ratio)
		return;
	t->cbr = ratio;
	t->cbr_cyc_to_tsc = ratio ? t->mnt / ratio : 0;
}

void pk__pt_ptime_cyc(struct pk__pt_ptime *t, uint64_t cycles)
{
	uint64_t ts;

	t->cycle_cnt += cycles;
	if (!t->cyc_ref || !t->cbr)
		return;
	/* perf adds a double to its u64 time: the sum in double */
	ts = (uint64_t)((double)t->cyc_ref +
			(double)t->cycle_cnt * t->cbr_cyc_to_tsc);
	if (ts >= t->ts)
		t->ts = ts;
}
