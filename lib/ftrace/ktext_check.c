/* SPDX-License-Identifier: MIT */
/* Kernel-text printer: a file's (fixed-up) formats go through
 * tep_guard_formats() before this process parses them. */
#include <errno.h>
#include <string.h>
#include "ftrace/ktext.h"
#include "tracefmt/tep.h"

int kt_check_formats(const struct kt_src *src, char *const *text, bool *bad)
{
	struct tep_fmt_ref *f = pk_calloc(src->nr_fmts ? src->nr_fmts : 1,
					  sizeof(*f));
	int e;

	if (!f)
		return -ENOMEM;
	for (int i = 0; i < src->nr_fmts; i++) {
		f[i].text = text[i];
		f[i].len = text[i] ? strlen(text[i]) : 0;
		f[i].system = src->fmt_sys[i];
	}
	e = tep_guard_formats("kernel text", f, src->nr_fmts, src->long_size,
			      src->big, bad);
	pk_free(f);
	return e;
}
