/* SPDX-License-Identifier: MIT */
/* perf's closing record counts (script -D, report --stats). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/perfdata.h>
#include "cli.h"

void cli_stats_print(const struct cli_stats *s, struct pk_perfdata *pd)
{
	/* perf's words for a file with an AUX area: the counts are the
	 * file's records, not what decoding it would synthesize */
	printf("\nAggregated stats:%s\n",
	       pk_perfdata_has_feat(pd, PK_HEADER_AUXTRACE) ?
	       " (excludes AUX area (e.g. instruction trace) decoded / "
	       "synthesized events)" : "");
	printf("%16s events: %10" PRIu64 "\n", "TOTAL", s->total);
	for (unsigned t = 0; t < PK_RECORD_USER_MAX; t++) {
		const char *name = pk_record_name(t);

		if (!s->counts[t] || !name)
			continue;
		printf("%16s events: %10" PRIu64 "  (%4.1f%%)\n", name,
		       s->counts[t], 100.0 * s->counts[t] / s->total);
	}
	struct pk_perfdata_info in;

	pk_perfdata_info(pd, &in);
	for (unsigned a = 0; a < pk_perfdata_nr_attrs(pd); a++) {
		/* perf report --stats of a pipe names the events from their
		 * attrs (the stream's names come too late for it) */
		const char *name = s->report && in.pipe &&
				   pk_perfdata_attr_made_name(pd, a) ?
				   pk_perfdata_attr_made_name(pd, a) :
				   pk_perfdata_attr_name(pd, a);

		/* perf lists the events that got samples or lost some (a
		 * system-wide recording's dummy event can lose some) */
		if (a >= s->nr_attr_samples ||
		    (!s->attr_samples[2 * a] && !s->attr_samples[2 * a + 1]))
			continue;
		printf("%s stats:\n", name ? name : "");
		if (s->attr_samples[2 * a])
			printf("%16s events: %10" PRIu64 "\n", "SAMPLE",
			       s->attr_samples[2 * a]);
		if (s->attr_samples[2 * a + 1])
			printf("%16s events: %10" PRIu64 "\n", "LOST_SAMPLES",
			       s->attr_samples[2 * a + 1]);
	}
}

static int count_sample(struct cli_stats *s, struct pk_perfdata *pd,
			const struct pk_record *rec)
{
	if (rec->attr < 0)
		return 0;
	if ((unsigned)rec->attr >= s->nr_attr_samples) {
		unsigned n = rec->attr + 16;
		uint64_t *v = realloc(s->attr_samples, 2 * n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + 2 * s->nr_attr_samples, 0,
		       2 * (n - s->nr_attr_samples) * sizeof(*v));
		s->attr_samples = v;
		s->nr_attr_samples = n;
	}
	if (rec->type == PERF_RECORD_LOST_SAMPLES) {
		uint64_t lost = 0;

		/* perf sums the records' lost samples per event */
		if (rec->size >= 16)
			memcpy(&lost, (const char *)rec->hdr + 8, sizeof(lost));
		s->attr_samples[2 * rec->attr + 1] += lost;
		return 0;
	}
	/* perf report -D counts a sample per branch of a branch stack */
	if (!s->report && pk_perfdata_attr(pd, rec->attr)->sample_type &
	    PERF_SAMPLE_BRANCH_STACK) {
		struct pk_sample sm;

		if (pk_sample_parse(pd, rec, &sm) == 0)
			s->attr_samples[2 * rec->attr] += sm.branch.nr;
		return 0;
	}
	s->attr_samples[2 * rec->attr]++;
	return 0;
}

int cli_stats_count(struct cli_stats *s, struct pk_perfdata *pd,
		    const struct pk_record *rec)
{
	s->total++;
	if (rec->type < PK_RECORD_USER_MAX)
		s->counts[rec->type]++;
	/* --stats also counts each event's lost samples */
	if (rec->type == PERF_RECORD_SAMPLE ||
	    (s->report && rec->type == PERF_RECORD_LOST_SAMPLES))
		return count_sample(s, pd, rec);
	return 0;
}

void cli_stats_fini(struct cli_stats *s)
{
	free(s->attr_samples);
}
