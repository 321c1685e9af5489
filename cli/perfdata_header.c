/* SPDX-License-Identifier: MIT */
/* perf's header view of a perf.data (script and report --header). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <perfkit/perfdata.h>
#include "cli.h"

/* One feature's text; FULL: -I's (the topology in full). */
static void feature(struct pk_perfdata *pd, int f, bool full)
{
	int (*desc)(const struct pk_perfdata *, int, char *, size_t) =
		full ? pk_perfdata_feat_describe_full : pk_perfdata_feat_describe;
	char buf[65536], *big;
	int n = desc(pd, f, buf, sizeof(buf));

	if (n <= 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		fputs(buf, stdout);
		return;
	}
	big = malloc((size_t)n + 1);
	if (big && desc(pd, f, big, (size_t)n + 1) == n)
		fputs(big, stdout);
	free(big);
}

void cli_perfdata_header(struct pk_perfdata *pd, const char *input, bool full)
{
	struct pk_perfdata_info in;
	struct stat st;

	pk_perfdata_info(pd, &in);
	printf("# ========\n");
	if (strcmp(input, "-") && !stat(input, &st)) {
		char tb[64];

		strftime(tb, sizeof(tb), "%a %b %e %H:%M:%S %Y",
			 localtime(&st.st_mtime));
		printf("# captured on    : %s\n", tb);
		printf("# header version : 1\n");
		/* perf shows zeros for a pipe (features come later) */
		printf("# data offset    : %" PRIu64 "\n", in.data_offset);
		printf("# data size      : %" PRIu64 "\n", in.data_size);
		printf("# feat offset    : %" PRIu64 "\n", in.feat_offset);
	}
	for (int f = 1; f < PK_HEADER_MAX && !in.pipe; f++)
		feature(pd, f, full);
	if (!in.pipe) {
		printf("# missing features:");
		for (int f = 1; f < PK_HEADER_MAX; f++) {
			const char *name = pk_perfdata_feat_name(f);

			if (pk_perfdata_has_feat(pd, f))
				continue;
			putchar(' ');
			for (const char *c = name; *c; c++)
				putchar(toupper((unsigned char)*c));
		}
		printf(" \n");
	}
	printf("# ========\n#\n");
}


void cli_perfdata_pipe_features(struct pk_perfdata *pd, bool full)
{
	struct pk_perfdata_info in;
	struct pk_record rec;

	pk_perfdata_info(pd, &in);
	if (!in.pipe)
		return;
	while (pk_perfdata_next(pd, &rec) == 0) {
		uint64_t f;

		if (rec.type != PK_RECORD_HEADER_FEATURE || rec.size < 16)
			continue;
		memcpy(&f, (const char *)rec.hdr + 8, 8);
		if (in.swapped)
			f = __builtin_bswap64(f);
		if (f > 0 && f < PK_HEADER_MAX)
			feature(pd, (int)f, full);
	}
}
