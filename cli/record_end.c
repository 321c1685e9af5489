/* SPDX-License-Identifier: MIT */
/* perfkit record: build ids of every DSO a sample hit, as perf writes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <perfkit/symbol.h>
#include "record.h"

static bool seen_before(const struct rec *r, int i, bool all)
{
	for (int j = 0; j < i; j++)
		if ((r->maps[j].hit || all) && !strcmp(r->maps[j].name, r->maps[i].name))
			return true;
	return false;
}

int rec_add_build_ids(struct rec *r)
{
	struct pk_build_id bid;
	uint8_t id[PK_BUILD_ID_MAX];
	bool all = r->cfg->buildid_all;
	int n, err = 0;

	if (r->cfg->no_buildid)
		return 0;
	if ((r->kernel_hit || all) && (n = pk_build_id_kernel(id)) > 0) {
		memset(&bid, 0, sizeof(bid));
		bid.misc = PERF_RECORD_MISC_KERNEL;
		bid.pid = -1;
		memcpy(bid.id, id, (size_t)n);
		bid.id_size = (uint8_t)n;
		bid.filename = "[kernel.kallsyms]";
		err = pk_pdwriter_add_build_id(r->w, &bid);
	}
	for (int i = 0; i < r->nr_maps && !err; i++) {
		struct rec_map *m = &r->maps[i];

		if ((!m->hit && !all) || m->name[0] != '/' || seen_before(r, i, all))
			continue;
		n = pk_build_id_read(m->name, id);
		if (n <= 0)
			continue;
		memset(&bid, 0, sizeof(bid));
		bid.misc = PERF_RECORD_MISC_USER;
		bid.pid = -1;
		memcpy(bid.id, id, (size_t)n);
		bid.id_size = (uint8_t)n;
		bid.filename = m->name;
		err = pk_pdwriter_add_build_id(r->w, &bid);
	}
	return err;
}

void rec_free_maps(struct rec *r)
{
	for (int i = 0; i < r->nr_maps; i++)
		free(r->maps[i].name);
	free(r->maps);
	r->maps = NULL;
	r->nr_maps = r->cap_maps = 0;
}

/* --timestamp-filename: the file takes the time it was closed as a
 * suffix (YYYYMMDDHHMMSS and centiseconds, as perf names it). */
int rec_timestamp_rename(struct rec *r)
{
	static char shown[4096];
	char path[4096], stamp[32];
	struct timeval tv;
	struct tm tm;

	if (!r->cfg->timestamp_filename || r->pipe)
		return 0;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	snprintf(path, sizeof(path), "%s.%s%02d", r->cfg->output, stamp,
		 (int)(tv.tv_usec / 10000));
	if (rename(r->cfg->output, path))
		return -errno;
	if (!r->cfg->quiet)
		fprintf(stderr, "[ perfkit record: Dump %s ]\n", path);
	snprintf(shown, sizeof(shown), "%s.<timestamp>", r->cfg->output);
	r->cfg->output = shown;
	return 0;
}
