/* SPDX-License-Identifier: MIT */
/*
 * tracefs files read or written as they are: timestamp_mode, free_buffer,
 * dyn_ftrace_total_info, enabled_functions / touched_functions, the
 * per-CPU snapshot files.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/tracefs.h>
#include "base/base.h"
#include "tracefs/tracefs.h"

int pk_tracefs_subbuf_size(const struct pk_tracefs *t, const char *instance)
{
	uint64_t kb;
	int ps = (int)sysconf(_SC_PAGESIZE);

	if (!pk_tracefs_read_u64(t, instance, "buffer_subbuf_size_kb", &kb) &&
	    kb > 0 && kb <= 16384 && !(kb & (kb - 1)) &&
	    kb * 1024 >= (uint64_t)ps)
		return (int)kb * 1024;
	return ps;
}

int pk_tracefs_timestamp_mode(const struct pk_tracefs *t,
			      const char *instance, char *buf, size_t len)
{
	char *s, *o, *c;
	long n = pk_tracefs_read(t, instance, "timestamp_mode", &s);
	int r = 0;

	if (n < 0)
		return (int)n;
	o = strchr(s, '[');
	c = o ? strchr(o, ']') : NULL;
	if (!c)
		r = PK_ERR_FORMAT;
	else if (snprintf(buf, len, "%.*s", (int)(c - o - 1), o + 1) >=
		 (int)len)
		r = -ENAMETOOLONG;
	free(s);
	return r;
}

int pk_tracefs_free_buffer(struct pk_tracefs *t, const char *instance)
{
	char p[PATH_MAX];
	int r;

	if ((r = pk_tracefs_path(t, instance, "free_buffer", p, sizeof(p))))
		return r;
	if (access(p, F_OK))
		return -EOPNOTSUPP;
	/* opened and closed, nothing written: the kernel shrinks the
	 * buffer at the close; a direct change, not undone */
	return pk__tfs_do_write(t, p, "", false);
}

int pk_tracefs_dyn_ftrace_total(const struct pk_tracefs *t,
				struct pk_dyn_ftrace_total *out)
{
	char *s;
	long n = pk_tracefs_read(t, NULL, "dyn_ftrace_total_info", &s);
	const char *p;
	int r = 0;

	if (n < 0)
		return (int)n;
	memset(out, 0, sizeof(*out));
	if (sscanf(s, "%lu", &out->functions) != 1)
		r = PK_ERR_FORMAT;
	if ((p = strstr(s, "pages:")))
		sscanf(p + 6, "%lu", &out->pages);
	if ((p = strstr(s, "groups:")))
		sscanf(p + 7, "%lu", &out->groups);
	free(s);
	return r;
}

/* One line of enabled_functions: "NAME (COUNT) FLAGS[\tEXTRA]". */
static int parse_func_line(char *ln, struct pk_ftrace_func_rec *f)
{
	char *sp = strchr(ln, ' '), *end, *tab;
	long c;

	memset(f, 0, sizeof(*f));
	if (!sp || sp[1] != '(')
		return PK_ERR_FORMAT;
	c = strtol(sp + 2, &end, 10);
	if (*end != ')')
		return PK_ERR_FORMAT;
	snprintf(f->name, sizeof(f->name), "%.*s", (int)(sp - ln), ln);
	f->count = c;
	if ((tab = strchr(end + 1, '\t'))) {
		snprintf(f->extra, sizeof(f->extra), "%s", tab + 1);
		*tab = 0;
	}
	/* the flag letters, blanks between them dropped */
	size_t k = 0;
	for (const char *q = end + 1; *q && k + 1 < sizeof(f->flags); q++)
		if (*q != ' ')
			f->flags[k++] = *q;
	f->flags[k] = 0;
	return 0;
}

int pk_tracefs_func_records(const struct pk_tracefs *t, bool touched,
			    struct pk_ftrace_func_rec **out)
{
	char *s, *save = NULL;
	long n = pk_tracefs_read(t, NULL, touched ? "touched_functions"
						 : "enabled_functions", &s);
	struct pk_ftrace_func_rec *v = NULL;
	int nr = 0, cap = 0, r = 0;

	*out = NULL;
	if (n < 0)
		return (int)n;
	for (char *ln = strtok_r(s, "\n", &save); ln && !r;
	     ln = strtok_r(NULL, "\n", &save)) {
		if (nr == cap) {
			void *nv = pk__realloc(v, (size_t)(cap = cap * 2 + 16) *
						  sizeof(*v));
			if (!nv) {
				r = -ENOMEM;
				break;
			}
			v = nv;
		}
		if (!(r = parse_func_line(ln, &v[nr])))
			nr++;
	}
	free(s);
	if (r) {
		pk__free(v);
		return r;
	}
	*out = v;
	return nr;
}

int pk_tracefs_snapshot_cpu(struct pk_tracefs *t, const char *instance,
			    int cpu, enum pk_snapshot_op op)
{
	static const char *const val[] = { "1", "2" };
	char f[64];

	if (cpu < 0 || (unsigned)op > PK_SNAPSHOT_CLEAR)
		return -EINVAL;
	snprintf(f, sizeof(f), "per_cpu/cpu%d/snapshot", cpu);
	if (!pk_tracefs_has(t, instance, f))
		return -EOPNOTSUPP;
	return pk_tracefs_write(t, instance, f, val[op]);
}
