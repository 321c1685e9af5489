/* SPDX-License-Identifier: MIT */
/*
 * Function profiler output: trace_stat/functionN, one file per CPU, rows
 * "name hits [time us avg us s^2 us]", merged across CPUs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/tracefs.h>
#include "base/base.h"

int pk_func_profile_parse(const char *text, struct pk_func_profile **out,
			  int *nr, bool *has_time)
{
	char *copy = pk__strdup(text), *save = NULL;
	int line = 0, err = 0;

	if (!copy)
		return -ENOMEM;
	for (char *ln = strtok_r(copy, "\n", &save); ln;
	     ln = strtok_r(NULL, "\n", &save)) {
		char *ts = NULL, *name, *hit, *tok, *e;
		struct pk_func_profile p = { 0 };

		line++;
		name = strtok_r(ln, " \t", &ts);
		if (!name || !strcmp(name, "Function") || name[0] == '-')
			continue;
		hit = strtok_r(NULL, " \t", &ts);
		if (!hit || (p.hit = strtoull(hit, &e, 10), *e)) {
			pk_warn("trace_stat: line %d: no hit count after '%s'",
				line, name);
			err = PK_ERR_FORMAT;
			break;
		}
		snprintf(p.name, sizeof(p.name), "%s", name);
		double *col[3] = { &p.time_us, &p.avg_us, &p.s2_us };
		int k = 0;
		while (k < 3 && (tok = strtok_r(NULL, " \t", &ts))) {
			char *unit;
			*col[k] = strtod(tok, &e);
			unit = strtok_r(NULL, " \t", &ts);
			if (e == tok || *e || (unit && strcmp(unit, "us"))) {
				pk_warn("trace_stat: line %d: bad time '%s %s'",
					line, tok, unit ? unit : "");
				err = PK_ERR_FORMAT;
				break;
			}
			k++;
		}
		if (err)
			break;
		if (k && has_time)
			*has_time = true;
		struct pk_func_profile *np =
			pk__realloc(*out, (size_t)(*nr + 1) * sizeof(*np));
		if (!np) {
			err = -ENOMEM;
			break;
		}
		*out = np;
		np[(*nr)++] = p;
	}
	pk__free(copy);
	return err;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct pk_func_profile *)a)->name,
		      ((const struct pk_func_profile *)b)->name);
}

static int by_time(const void *a, const void *b)
{
	const struct pk_func_profile *x = a, *y = b;

	if (x->time_us != y->time_us)
		return x->time_us < y->time_us ? 1 : -1;
	if (x->hit != y->hit)
		return x->hit < y->hit ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * Rows of one function: sums of x and x^2 rebuilt from each CPU's count,
 * total and sample variance, then the merged variance.
 */
void pk_func_profile_merge(struct pk_func_profile *p, int *nr)
{
	int out = 0;

	qsort(p, (size_t)*nr, sizeof(*p), by_name);
	for (int i = 0; i < *nr;) {
		double n = 0, sum = 0, sq = 0;
		uint64_t hits = 0;
		int k = i;
		for (; k < *nr && !strcmp(p[k].name, p[i].name); k++) {
			double ni = (double)p[k].hit;
			double mean = ni ? p[k].time_us / ni : 0;
			hits += p[k].hit;
			n += ni;
			sum += p[k].time_us;
			sq += p[k].s2_us * (ni > 1 ? ni - 1 : 0) + ni * mean * mean;
		}
		struct pk_func_profile m = p[i];
		m.hit = hits;
		m.time_us = sum;
		m.avg_us = n ? sum / n : 0;
		m.s2_us = n > 1 ? (sq - sum * sum / n) / (n - 1) : 0;
		if (m.s2_us < 0)       /* rounding of the printed values */
			m.s2_us = 0;
		p[out++] = m;
		i = k;
	}
	*nr = out;
	qsort(p, (size_t)*nr, sizeof(*p), by_time);
}

int pk_tracefs_profile_read(const struct pk_tracefs *t, const char *instance,
			    struct pk_func_profile **out, bool *has_time)
{
	struct pk_func_profile *p = NULL;
	int nr = 0, r = 0, cpu;
	bool ht = false;

	*out = NULL;
	for (cpu = 0; cpu < 4096; cpu++) {
		char f[64], *s;
		snprintf(f, sizeof(f), "trace_stat/function%d", cpu);
		long n = pk_tracefs_read(t, instance, f, &s);
		if (n < 0) {
			if (cpu == 0)
				r = (int)n;
			break;
		}
		r = pk_func_profile_parse(s, &p, &nr, &ht);
		free(s);
		if (r)
			break;
	}
	if (r) {
		pk__free(p);
		return r;
	}
	pk_func_profile_merge(p, &nr);
	if (has_time)
		*has_time = ht;
	if (!nr) {
		pk__free(p);
		return 0;
	}
	/* the caller frees with free() */
	struct pk_func_profile *res = malloc((size_t)nr * sizeof(*res));
	if (!res) {
		pk__free(p);
		return -ENOMEM;
	}
	memcpy(res, p, (size_t)nr * sizeof(*res));
	pk__free(p);
	*out = res;
	return nr;
}
