/* SPDX-License-Identifier: MIT */
/* perf's header view of a perf.data (script and report --header). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <perfkit/perfdata.h>
#include "cli.h"

void cli_perfdata_header(struct pk_perfdata *pd, const char *input)
{
	struct pk_perfdata_info in;
	struct stat st;
	char buf[65536];
	int n;

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
	for (int f = 1; f < PK_HEADER_MAX && !in.pipe; f++) {
		n = pk_perfdata_feat_describe(pd, f, buf, sizeof(buf));
		if (n > 0)
			fputs(buf, stdout);
	}
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

