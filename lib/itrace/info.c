/* SPDX-License-Identifier: MIT */
/* AUXTRACE_INFO for Intel PT as perf record writes it: the encoder beside
 * itrace.c's reader. */
#include <errno.h>
#include <string.h>
#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include <linux/perf_event.h>
#ifdef __x86_64__
#include <cpuid.h>
#endif
#include "base/base.h"
#include "event/evsel.h"
#include "event/pmu.h"

#define NR_FIXED 17 /* pmu_type .. filter string length */

/* The config bits term NAME sets when given as 1 (perf's
 * intel_pt_parse_terms), or its whole mask (MASK). */
static uint64_t term_bits(const struct pk_pmu *p, const char *name, bool mask)
{
	const struct pk_pmu_format *f = pk__pmu_format(p, name);

	if (!f || f->field != PK_CFG0 || !f->mask)
		return 0;
	return mask ? f->mask : f->mask & -f->mask;
}

/* The control page's TSC conversion (perf keeps the fields without
 * cap_user_time_zero too), read under its seqlock. */
static int read_time(struct pk_pt_auxinfo *in,
		     const struct perf_event_mmap_page *pc)
{
	struct pk_time_conv tc;
	int err = pk_time_conv_read(pc, &tc);

	if (err && err != -EOPNOTSUPP)
		return err;
	in->time_mult = tc.time_mult;
	in->time_shift = tc.time_shift;
	in->time_zero = tc.time_zero;
	in->cap_user_time_zero = !err && in->time_mult;
	return 0;
}

static void tsc_ctc(struct pk_pt_auxinfo *in)
{
#ifdef __x86_64__
	unsigned a = 0, b = 0, c = 0, d = 0;

	if (__get_cpuid(0x15, &a, &b, &c, &d)) {
		in->tsc_ctc_n = b;
		in->tsc_ctc_d = a;
	}
#else
	(void)in;
#endif
}

int pk_pt_auxinfo_fill(struct pk_pt_auxinfo *in, const struct pk_evsel *e,
		       const struct perf_event_mmap_page *pc)
{
	const struct pk_pmu *p;
	uint64_t v;
	int err;

	if (!in || !e || !e->pmu_name || !(p = pk__pmu_find(e->pmu_name)))
		return -EINVAL;
	in->pmu_type = e->attr.type;
	in->tsc_bit = term_bits(p, "tsc", false);
	in->noretcomp_bit = term_bits(p, "noretcomp", false);
	in->mtc_bit = term_bits(p, "mtc", false);
	in->mtc_freq_bits = term_bits(p, "mtc_period", true);
	in->cyc_bit = term_bits(p, "cyc", false);
	in->max_non_turbo_ratio =
		pk__pmu_read_num(p, "max_nonturbo_ratio", 10, &v) ? 0 : v;
	in->cap_event_trace =
		!pk__pmu_read_num(p, "caps/event_trace", 10, &v) && v;
	if (pc && (err = read_time(in, pc)))
		return err;
	tsc_ctc(in);
	return 0;
}

long pk_pt_auxinfo_encode(const struct pk_pt_auxinfo *in, void *buf,
			  size_t size)
{
	size_t flen = in && in->filter ? strlen(in->filter) : 0;
	size_t fbytes = flen ? (flen + 8) / 8 * 8 : 0;
	size_t len = 16 + 8 * NR_FIXED + fbytes + 8;
	struct perf_event_header h = { .type = 70 /* AUXTRACE_INFO */ };
	uint64_t f[NR_FIXED];
	uint32_t type[2] = { 1 /* PERF_AUXTRACE_INTEL_PT */, 0 };
	char *b = buf;

	if (!in || !buf)
		return -EINVAL;
	if (len > size || len > 0xffff)
		return -ENOSPC;
	memcpy(f, &in->pmu_type, 16 * 8); /* pmu_type .. max_non_turbo */
	f[16] = flen;
	h.size = (uint16_t)len;
	memset(b, 0, len);
	memcpy(b, &h, 8);
	memcpy(b + 8, type, 8);
	memcpy(b + 16, f, sizeof(f));
	if (flen)
		memcpy(b + 16 + sizeof(f), in->filter, flen);
	memcpy(b + len - 8, &in->cap_event_trace, 8);
	return (long)len;
}
