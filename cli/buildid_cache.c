/* SPDX-License-Identifier: MIT */
/*
 * perfkit buildid-cache: perf 6.1's command on the same cache (see
 * include/perfkit/bidcache.h). File lists are comma-separated and taken
 * in sorted order, as perf's; -v prints perf's progress lines.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

struct bcache {
	char dir[4096];
	bool verbose;
	int failed;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: perfkit buildid-cache [options]\n"
"  -a, --add LIST        file(s) to add (comma-separated)\n"
"  -r, --remove LIST     file(s) to remove\n"
"  -p, --purge LIST      file(s) to remove, every build id cached for them\n"
"  -P, --purge-all       empty the cache\n"
"  -u, --update LIST     file(s) to add again\n"
"  -M, --missing FILE    build ids FILE (perf.data) names that are not cached\n"
"  -l, --list            cached files whose build id is still theirs\n"
"  -f, --force           read perf.data files other users own\n"
"  -v, --verbose         say what is done\n"
"The cache is buildid.dir of the perf config, else $HOME/.debug.\n");
}

static void say(const struct bcache *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct bcache *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->verbose)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void warn_failed(struct bcache *c, const char *what, const char *file,
			int err)
{
	fprintf(stderr, "Couldn't %s %s: %s\n", what, file, pk_strerror(err));
	c->failed = 1;
}

/* FILE's build id in hex; 0, or the error (told at -v as perf does). */
static int file_hex(const struct bcache *c, const char *file, char *hex)
{
	uint8_t id[PK_BUILD_ID_MAX];
	int n = pk_build_id_read(file, id);

	if (n > 0) {
		pk_build_id_hex(id, n, hex);
		return 0;
	}
	say(c, "Couldn't read a build-id in %s\n", file);
	return n ? n : -ENOENT;
}

static int add_one(const struct bcache *c, const char *file, const char *hex)
{
	char *real = realpath(file, NULL);
	int err = real ? pk_bidcache_add_file(c->dir, real, hex, NULL) : -errno;

	free(real);
	return err;
}

static void do_add(struct bcache *c, const char *file)
{
	char hex[PK_BIDCACHE_HEX];
	int err = file_hex(c, file, hex);

	if (!err) {
		err = add_one(c, file, hex);
		say(c, "Adding %s %s: %s\n", hex, file, err ? "FAIL" : "Ok");
	}
	if (err)
		warn_failed(c, "add", file, err);
}

static void not_cached(struct bcache *c, const char *what, const char *file,
		       int err)
{
	if (err == -ENOENT)
		say(c, "%s wasn't in the cache\n", file);
	else
		warn_failed(c, what, file, err);
}

static void do_remove(struct bcache *c, const char *file)
{
	char hex[PK_BIDCACHE_HEX];
	int err = file_hex(c, file, hex);

	if (!err) {
		err = pk_bidcache_remove(c->dir, hex);
		say(c, "Removing %s %s: %s\n", hex, file, err ? "FAIL" : "Ok");
	}
	if (err)
		not_cached(c, "remove", file, err);
}

static void do_purge(struct bcache *c, const char *file)
{
	struct pk_bidcache_entry *e = NULL;
	char *real = realpath(file, NULL);
	int n = real ? pk_bidcache_list_path(c->dir, real, &e) : -errno, err = 0;

	for (int i = 0; i < n && !err; i++) {
		err = pk_bidcache_remove(c->dir, e[i].hex);
		say(c, "Removing %s %s: %s\n", e[i].hex, file, err ? "FAIL" : "Ok");
	}
	if (n < 0)
		err = n;
	say(c, "Purging %s: %s\n", file, err ? "FAIL" : "Ok");
	if (err)
		not_cached(c, "remove", file, err);
	pk_bidcache_entries_free(e, n);
	free(real);
}

static void do_update(struct bcache *c, const char *file)
{
	char hex[PK_BIDCACHE_HEX];
	int err = file_hex(c, file, hex);

	if (err) {
		not_cached(c, "update", file, err);
		return;
	}
	err = pk_bidcache_remove(c->dir, hex);
	if (!err || err == -ENOENT)
		err = add_one(c, file, hex);
	say(c, "Updating %s %s: %s\n", hex, file, err ? "FAIL" : "Ok");
	if (err)
		warn_failed(c, "update", file, err);
}

static void purge_all(struct bcache *c)
{
	struct pk_bidcache_entry *e;
	int n = pk_bidcache_list(c->dir, &e), err = n < 0 ? n : 0;

	for (int i = 0; i < n && !err; i++) {
		err = pk_bidcache_remove(c->dir, e[i].hex);
		say(c, "Removing %s (%s): %s\n", e[i].name, e[i].hex,
		    err ? "FAIL" : "Ok");
	}
	say(c, "Purged all: %s\n", err ? "FAIL" : "Ok");
	if (err)
		warn_failed(c, "purge", c->dir, err);
	pk_bidcache_entries_free(e, n);
}

static int list_valid(const struct bcache *c)
{
	struct pk_bidcache_entry *e;
	int n = pk_bidcache_list(c->dir, &e);

	if (n < 0) {
		cli_error("buildid-cache", "%s: %s", c->dir, pk_strerror(n));
		return 1;
	}
	for (int i = 0; i < n; i++)
		if (pk_bidcache_valid(&e[i]))
			printf("%s %s\n", e[i].hex, e[i].name);
	pk_bidcache_entries_free(e, n);
	return 0;
}

/* The build ids FILE's table names whose cache entry is missing. */
static int missing(const struct bcache *c, const char *file, bool force)
{
	struct pk_perfdata *pd;
	int err = cli_perfdata_check(file, force);

	if (err)
		return err;
	pd = pk_perfdata_open(file, NULL);
	if (!pd) {
		cli_error("buildid-cache", "%s: %s", file, errno == EPROTO ?
			  pk_perfdata_open_error() : strerror(errno));
		return 1;
	}
	for (unsigned i = 0; i < pk_perfdata_nr_build_ids(pd); i++) {
		struct pk_build_id b;
		char hex[PK_BIDCACHE_HEX], lnk[4200];

		if (pk_perfdata_build_id(pd, i, &b) || !b.filename)
			continue;
		pk_build_id_hex(b.id, b.id_size, hex);
		snprintf(lnk, sizeof(lnk), "%s/.build-id/%.2s/%s", c->dir, hex,
			 hex + 2);
		if (access(lnk, F_OK))
			printf("%-40s %s\n", hex, b.filename);
	}
	pk_perfdata_free(pd);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs FN on each file of the comma-separated LIST, sorted, once each. */
static int each_file(struct bcache *c, const char *list,
		     void (*fn)(struct bcache *, const char *))
{
	char *copy = strdup(list), *save = NULL, **v;
	size_t n = 0;

	v = calloc(strlen(list) / 2 + 1, sizeof(*v));
	if (!copy || !v) {
		free(copy);
		free(v);
		cli_error("buildid-cache", "out of memory");
		return 1;
	}
	for (char *s = strtok_r(copy, ",", &save); s; s = strtok_r(NULL, ",", &save))
		v[n++] = s;
	qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!i || strcmp(v[i], v[i - 1]))
			fn(c, v[i]);
	free(v);
	free(copy);
	return 0;
}

struct bc_args {
	const char *add, *remove, *purge, *update, *missing;
	bool purge_all, list, force;
};

static const struct option long_opts[] = {
	{ "add", required_argument, NULL, 'a' },
	{ "remove", required_argument, NULL, 'r' },
	{ "purge", required_argument, NULL, 'p' },
	{ "purge-all", no_argument, NULL, 'P' },
	{ "update", required_argument, NULL, 'u' },
	{ "missing", required_argument, NULL, 'M' },
	{ "list", no_argument, NULL, 'l' },
	{ "kcore", required_argument, NULL, 'k' },
	{ "force", no_argument, NULL, 'f' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* 0, or the exit status of a usage error (-h: 1 meaning "done"). */
static int parse(int argc, char **argv, struct bc_args *a, struct bcache *c)
{
	int o;

	optind = 1;
	while ((o = cli_getopt(argc, argv, "a:r:p:Pu:M:lk:fvh", long_opts,
				NULL)) != -1) {
		switch (o) {
		case 'a': a->add = optarg; break;
		case 'r': a->remove = optarg; break;
		case 'p': a->purge = optarg; break;
		case 'P': a->purge_all = true; break;
		case 'u': a->update = optarg; break;
		case 'M': a->missing = optarg; break;
		case 'l': a->list = true; break;
		case 'f': a->force = true; break;
		case 'v': c->verbose = true; break;
		case 'k':
			cli_error("buildid-cache", "-k (kcore copies) is not supported");
			return 1;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || !(a->add || a->remove || a->purge || a->update ||
			       a->missing || a->purge_all || a->list)) {
		usage(stderr);
		return 2;
	}
	if (a->list && (a->add || a->remove || a->purge || a->update ||
			a->missing || a->purge_all)) {
		cli_error("buildid-cache", "-l is exclusive");
		return 2;
	}
	return 0;
}

int cmd_buildid_cache(int argc, char **argv)
{
	struct bc_args a = { 0 };
	struct bcache c = { .verbose = cli_verbose > 0 };
	int err = parse(argc, argv, &a, &c);

	if (err)
		return err < 0 ? 0 : err;
	if (pk_bidcache_dir(c.dir, sizeof(c.dir))) {
		cli_error("buildid-cache", "the cache directory name is too long");
		return 1;
	}
	if (a.list)
		return list_valid(&c);
	if (a.add)
		err = each_file(&c, a.add, do_add);
	if (!err && a.remove)
		err = each_file(&c, a.remove, do_remove);
	if (!err && a.purge)
		err = each_file(&c, a.purge, do_purge);
	if (!err && a.purge_all)
		purge_all(&c);
	if (!err && a.missing)
		err = missing(&c, a.missing, a.force);
	if (!err && a.update)
		err = each_file(&c, a.update, do_update);
	return err ? err : c.failed;
}
