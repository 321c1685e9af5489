/* SPDX-License-Identifier: MIT */
/*
 * perf's --time ranges (report and script): "START,END" in seconds (a
 * side may be empty), several separated by spaces, or percentages of the
 * recording's first to last sample: "10%/2" (the second tenth), "0%-10%",
 * several separated by commas.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

int cli_parse_ns(const char *s, size_t n, uint64_t *out)
{
	uint64_t secs = 0, frac = 0;
	size_t i = 0, digits = 0;

	*out = 0;
	if (!n)
		return 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		secs = secs * 10 + (uint64_t)(s[i] - '0');
	if (!i)
		return -EINVAL;
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
			if (digits >= 9)
				return -EINVAL;
			frac = frac * 10 + (uint64_t)(s[i] - '0');
		}
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (i != n)
		return -EINVAL;
	*out = secs * 1000000000ull + frac;
	return 0;
}

static int add(struct cli_time_ranges *t, uint64_t start, uint64_t end)
{
	if (t->n == CLI_MAX_TIME_RANGES || (end && start > end))
		return -EINVAL;
	t->r[t->n][0] = start;
	t->r[t->n++][1] = end;
	return 0;
}

/* "START,END" pieces separated by spaces. */
static int parse_secs(struct cli_time_ranges *t, const char *arg)
{
	for (const char *p = arg; *p; p += *p == ' ') {
		size_t n = strcspn(p, " ");
		const char *comma = memchr(p, ',', n);
		uint64_t a, b = 0;

		if (!comma || memchr(comma + 1, ',', n - (size_t)(comma + 1 - p)) ||
		    cli_parse_ns(p, (size_t)(comma - p), &a) ||
		    cli_parse_ns(comma + 1, n - (size_t)(comma + 1 - p), &b) ||
		    add(t, a, b))
			return -EINVAL;
		p += n;
	}
	return t->n ? 0 : -EINVAL;
}

/* A percentage "P%" at *P (0..100), moved past. */
static int pct(const char **p, double *out)
{
	char *end;

	*out = strtod(*p, &end) / 100;
	if (end == *p || *end != '%' || *out < 0 || *out > 1)
		return -EINVAL;
	*p = end + 1;
	return 0;
}

/* perf's rounding: the start and end of the share, the end one before
 * the next slice's start (but at 100%). */
static int add_pct(struct cli_time_ranges *t, double a, double b,
		   uint64_t first, uint64_t last)
{
	uint64_t total = last - first;
	uint64_t s = first + (uint64_t)llround(a * (double)total);
	uint64_t e = first + (uint64_t)llround(b * (double)total);

	if (e > s && b != 1.0)
		e--;
	return add(t, s, e);
}

static int parse_pct(struct cli_time_ranges *t, const char *arg,
		     uint64_t first, uint64_t last)
{
	for (const char *p = arg; *p; p += *p == ',') {
		double a, b;
		char *end;

		if (pct(&p, &a))
			return -EINVAL;
		if (*p == '/') {
			long i = strtol(p + 1, &end, 10);

			if (end == p + 1 || i < 1 || a * (double)i > 1.0 + 1e-9 ||
			    add_pct(t, a * (double)(i - 1), a * (double)i,
				    first, last))
				return -EINVAL;
			p = end;
		} else if (*p == '-') {
			p++;
			if (pct(&p, &b) || b < a || add_pct(t, a, b, first, last))
				return -EINVAL;
		} else if (add_pct(t, 0, a, first, last)) {
			return -EINVAL;	/* ("P%" alone: perf's 0%-P%) */
		}
		if (*p && *p != ',')
			return -EINVAL;
	}
	return t->n ? 0 : -EINVAL;
}

int cli_time_ranges_parse(struct cli_time_ranges *t, const char *arg,
			  uint64_t first, uint64_t last)
{
	t->n = 0;
	if (strchr(arg, '%'))
		return parse_pct(t, arg, first, last);
	return parse_secs(t, arg);
}

bool cli_time_ranges_skip(const struct cli_time_ranges *t, uint64_t time)
{
	for (unsigned i = 0; i < t->n; i++)
		if ((!t->r[i][0] || time >= t->r[i][0]) &&
		    (!t->r[i][1] || time <= t->r[i][1]))
			return false;
	return t->n > 0;
}
