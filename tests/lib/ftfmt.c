/* SPDX-License-Identifier: MIT */
/* ftrace unit tests' helpers (ftfmt.h). */
#include <stdio.h>
#include <stdlib.h>
#include "ftfmt.h"

char *t_td_report(const char *path, const struct pk_report_opts *o,
		  const struct pk_ktext_opts *ko, size_t *len)
{
	struct pk_tracedat *td = pk_tracedat_open(path);
	char *buf = NULL;
	FILE *m;

	*len = 0;
	if (!td || !(m = open_memstream(&buf, len))) {
		if (td)
			pk_tracedat_free(td);
		return NULL;
	}
	if (ko)
		pk_tracedat_report_kernel(td, m, ko);
	else
		pk_tracedat_report(td, m, o);
	fclose(m);
	pk_tracedat_free(td);
	return buf;
}
