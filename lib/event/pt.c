/* SPDX-License-Identifier: MIT */
/*
 * The Intel PT event (PMU intel_pt) as perf 6.1 builds and checks it:
 * the default config its events start from, made of the terms the PMU's
 * caps/ and format/ allow ("tsc,mtc,mtc_period=3,psb_period=3,pt,branch"
 * on a Skylake), and record's checks of the period terms against caps/.
 * A caps file that cannot be read counts as perf counts it: a missing
 * support flag as supported, a missing bitmask as "only 0".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include "event/evsel.h"
#include "event/pmu.h"

/* A support flag (caps/mtc, caps/psb_cyc): true unless it reads 0. */
static bool cap_flag(const struct pk_pmu *p, const char *rel)
{
	uint64_t v;

	return pk__pmu_read_num(p, rel, 10, &v) || v != 0;
}

/* A bitmask of valid values (caps/mtc_periods), 0 when unreadable. */
static uint64_t cap_mask(const struct pk_pmu *p, const char *rel)
{
	uint64_t v;

	return pk__pmu_read_num(p, rel, 16, &v) ? 0 : v;
}

/* The period perf picks: 3, or the nearest lower valid one (0 always). */
static unsigned int default_period(uint64_t valid)
{
	for (unsigned int v = 3; v > 0; v--)
		if (valid & (1ULL << v))
			return v;
	return 0;
}

struct dterm {
	const char *name;
	uint64_t val;
};

static int default_terms(const struct pk_pmu *p, struct dterm *t)
{
	uint64_t mtc_periods = 0, psb_periods;
	int n = 0;

	t[n++] = (struct dterm){ "tsc", 1 };
	if (cap_flag(p, "caps/mtc")) {
		mtc_periods = cap_mask(p, "caps/mtc_periods");
		if (mtc_periods) {
			t[n++] = (struct dterm){ "mtc", 1 };
			t[n++] = (struct dterm){ "mtc_period",
						 default_period(mtc_periods) };
		}
	}
	if (cap_flag(p, "caps/psb_cyc") && mtc_periods) {
		psb_periods = cap_mask(p, "caps/psb_periods");
		if (psb_periods)
			t[n++] = (struct dterm){ "psb_period",
						 default_period(psb_periods) };
	}
	if (pk__pmu_format(p, "pt") && pk__pmu_format(p, "branch")) {
		t[n++] = (struct dterm){ "pt", 1 };
		t[n++] = (struct dterm){ "branch", 1 };
	}
	return n;
}

int pk__pt_default_config(const struct pk_pmu *p, uint64_t *config)
{
	struct dterm t[8];
	char text[256];
	size_t len = 0;
	int n = default_terms(p, t);

	*config = 0;
	text[0] = '\0';
	for (int i = 0; i < n; i++) {
		const struct pk_pmu_format *f = pk__pmu_format(p, t[i].name);

		if (t[i].val != 1 || !strcmp(t[i].name, "mtc_period") ||
		    !strcmp(t[i].name, "psb_period"))
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"%s%s=%llu", i ? "," : "",
						t[i].name,
						(unsigned long long)t[i].val);
		else
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"%s%s", i ? "," : "", t[i].name);
		if (f && f->field == PK_CFG0)
			pk__format_put(f, t[i].val, config);
	}
	pk_debug("%s default config: %s", p->name, text);
	return 0;
}

/* "0-5", "0,3,6,9": runs of three or more as ranges, as perf lists them. */
static void valid_str(uint64_t valid, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int b = 0; b < 64 && len < size; b++) {
		unsigned int e = b;

		if (!(valid & (1ULL << b)))
			continue;
		while (e < 63 && (valid & (1ULL << (e + 1))))
			e++;
		if (e - b >= 2)
			len += (size_t)snprintf(buf + len, size - len, "%s%u-%u",
						len ? "," : "", b, e);
		else
			for (unsigned int v = b; v <= e && len < size; v++)
				len += (size_t)snprintf(buf + len, size - len,
							"%s%u", len ? "," : "",
							v);
		b = e;
	}
}

/* One period term against its caps bitmask and support flag. */
static int check_term(const struct pk_pmu *p, uint64_t config,
		      const char *name, const char *caps, const char *flag,
		      char *msg, size_t size)
{
	const struct pk_pmu_format *f = pk__pmu_format(p, name);
	uint64_t valid = cap_mask(p, caps), v;
	char list[256];

	if (!cap_flag(p, flag))
		valid = 0;
	valid |= 1;
	v = f && f->field == PK_CFG0 ? config & f->mask : 0;
	if (f)
		v >>= __builtin_ctzll(f->mask);
	if (v < 64 && (valid & (1ULL << v)))
		return 0;
	valid_str(valid, list, sizeof(list));
	snprintf(msg, size, "Invalid %s for %s. Valid values are: %s", name,
		 p->name, list);
	return -EINVAL;
}

int pk_evsel_pt_check(struct pk_evsel *e, bool *forced_pt, char *msg,
		      size_t size)
{
	const struct pk_pmu *p;
	uint64_t *cfg;
	int err;

	if (!e || !msg || !size)
		return -EINVAL;
	msg[0] = '\0';
	if (forced_pt)
		*forced_pt = false;
	p = pk__pmu_find(e->pmu_name);
	if (!p || strcmp(p->name, "intel_pt"))
		return 0;
	cfg = (uint64_t *)&e->attr.config;
	if (pk__pmu_format(p, "pt") && !(*cfg & 1)) {
		*cfg |= 1;
		if (forced_pt)
			*forced_pt = true;
	}
	err = check_term(p, *cfg, "cyc_thresh", "caps/cycle_thresholds",
			 "caps/psb_cyc", msg, size);
	if (!err)
		err = check_term(p, *cfg, "mtc_period", "caps/mtc_periods",
				 "caps/mtc", msg, size);
	if (!err)
		err = check_term(p, *cfg, "psb_period", "caps/psb_periods",
				 "caps/psb_cyc", msg, size);
	return err;
}

size_t pk_evsel_pt_psb_bytes(const struct pk_evsel *e)
{
	const struct pk_pmu *p;
	uint64_t v;

	p = e && e->pmu_name ? pk__pmu_find(e->pmu_name) : NULL;
	if (!p || strcmp(p->name, "intel_pt"))
		return 0;
	if (pk__pmu_read_num(p, "caps/topa_multiple_entries", 10, &v) || !v)
		return 256;
	if (pk_evsel_format_value(e, "psb_period", &v) || v > 40)
		v = 0;
	return (size_t)1 << (v + 11);
}

int pk_evsel_nr_addr_filters(const struct pk_evsel *e)
{
	const struct pk_pmu *p;
	uint64_t v;

	p = e && e->pmu_name && *e->pmu_name ? pk__pmu_find(e->pmu_name) : NULL;
	if (!p || pk__pmu_read_num(p, "nr_addr_filters", 10, &v) || v > 64)
		return 0;
	return (int)v;
}

int pk_evsel_format_value(const struct pk_evsel *e, const char *term,
			  uint64_t *val)
{
	const struct pk_pmu *p;
	const struct pk_pmu_format *f;
	uint64_t cfg[PK_NR_CFG], v = 0;
	int vb = 0;

	if (!e || !term || !val)
		return -EINVAL;
	p = e->pmu_name && *e->pmu_name ? pk__pmu_find(e->pmu_name) : NULL;
	f = p ? pk__pmu_format(p, term) : NULL;
	if (!f)
		return -ENOENT;
	cfg[PK_CFG0] = e->attr.config;
	cfg[PK_CFG1] = e->attr.config1;
	cfg[PK_CFG2] = e->attr.config2;
	for (int b = 0; b < 64; b++)
		if (f->mask & (1ULL << b))
			v |= ((cfg[f->field] >> b) & 1) << vb++;
	*val = v;
	return 0;
}

bool pk_evsel_term_given(const struct pk_evsel *e, const char *term)
{
	const struct pk_pmu *p;
	const struct pk_pmu_format *f;

	p = e && term && e->pmu_name && *e->pmu_name ?
	    pk__pmu_find(e->pmu_name) : NULL;
	f = p ? pk__pmu_format(p, term) : NULL;
	return f && f - p->formats < 64 &&
	       (e->fmt_given >> (f - p->formats) & 1);
}

int pk_evsel_set_term_if_unset(struct pk_evsel *e, const char *term,
			       uint64_t val)
{
	const struct pk_pmu *p;
	const struct pk_pmu_format *f;
	__u64 *cfg[PK_NR_CFG];
	uint64_t c;

	if (!e || !term)
		return -EINVAL;
	p = e->pmu_name && *e->pmu_name ? pk__pmu_find(e->pmu_name) : NULL;
	f = p ? pk__pmu_format(p, term) : NULL;
	if (!f)
		return -ENOENT;
	if (pk_evsel_term_given(e, term))
		return 0;
	cfg[PK_CFG0] = &e->attr.config;
	cfg[PK_CFG1] = &e->attr.config1;
	cfg[PK_CFG2] = &e->attr.config2;
	c = *cfg[f->field];
	pk__format_put(f, val, &c);
	*cfg[f->field] = c;
	return 0;
}
