/* SPDX-License-Identifier: MIT */
/* perfkit record: build ids of every DSO a sample hit (and the vdso), as
 * perf writes them, and the same DSOs into perf's build-id cache. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <perfkit/symbol.h>
#include <perfkit/bidcache.h>
#include "cli.h"
#include "record.h"

static bool seen_before(const struct rec *r, int i, bool all)
{
	for (int j = 0; j < i; j++)
		if ((r->maps[j].hit || all || !strcmp(r->maps[j].name, "[vdso]")) &&
		    !r->maps[j].kernel && !strcmp(r->maps[j].name, r->maps[i].name))
			return true;
	return false;
}

/* The cache copy of one DSO; perf only reports failures when debugging. */
static void cache_dso(const char *dir, const struct pk_build_id *b)
{
	char hex[PK_BIDCACHE_HEX], *real;
	const void *img;
	size_t size;
	int err;

	pk_build_id_hex(b->id, b->id_size, hex);
	if (!strcmp(b->filename, "[kernel.kallsyms]")) {
		err = pk_bidcache_add_kallsyms(dir, hex, NULL);
	} else if (!strcmp(b->filename, "[vdso]")) {
		err = pk_vdso_image(&img, &size);
		if (!err)
			err = pk_bidcache_add_vdso(dir, hex, img, size);
	} else {
		real = realpath(b->filename, NULL);
		err = real ? pk_bidcache_add_file(dir, real, hex, NULL) : -1;
		free(real);
	}
	if (err && cli_verbose >= 1)
		cli_error("record", "could not cache %s in %s", b->filename,
			  dir);
}

static int add_one(struct rec *r, uint16_t misc, const char *name,
		   const uint8_t *id, int n, const char *cache)
{
	struct pk_build_id bid;

	memset(&bid, 0, sizeof(bid));
	bid.misc = misc;
	bid.pid = -1;
	memcpy(bid.id, id, (size_t)n);
	bid.id_size = (uint8_t)n;
	bid.filename = name;
	if (cache)
		cache_dso(cache, &bid);
	return pk_pdwriter_add_build_id(r->w, &bid);
}

/* The build id of a user mapping perf lists: a hit file (any file with
 * --buildid-all), or the vdso (perf lists it hit or not, with its own
 * vdso's id). */
static int map_build_id(const struct rec_map *m, bool all, uint8_t *id)
{
	const void *img;
	size_t size;

	if (m->kernel)
		return -1;
	if (!strcmp(m->name, "[vdso]"))
		return pk_vdso_image(&img, &size) ? -1 :
		       pk_build_id_from_elf(img, size, id);
	if ((!m->hit && !all) || m->name[0] != '/')
		return -1;
	return pk_build_id_read(m->name, id);
}

int rec_add_build_ids(struct rec *r)
{
	uint8_t id[PK_BUILD_ID_MAX];
	char dirbuf[4096];
	const char *cache = NULL;
	bool all = r->cfg->buildid_all;
	int n, err = 0;

	if (r->cfg->no_buildid)
		return 0;
	if (!r->cfg->no_buildid_cache && !r->pipe &&
	    !pk_bidcache_dir(dirbuf, sizeof(dirbuf)))
		cache = dirbuf;
	if ((r->kernel_hit || all) && (n = pk_build_id_kernel(id)) > 0)
		err = add_one(r, PERF_RECORD_MISC_KERNEL, "[kernel.kallsyms]",
			      id, n, cache);
	for (int i = 0; i < r->nr_maps && !err; i++) {
		struct rec_map *m = &r->maps[i];

		n = map_build_id(m, all, id);
		if (n > 0 && !seen_before(r, i, all))
			err = add_one(r, PERF_RECORD_MISC_USER, m->name, id, n,
				      cache);
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
