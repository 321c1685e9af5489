/* SPDX-License-Identifier: MIT */
/* perf's build-id cache (~/.debug): adding, removing and listing DSOs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/base.h"
#include <perfkit/bidcache.h>
#include <perfkit/symbol.h>

#define PATHLEN 4352

/* DIR/NAME/HEX: NAME is a path ("/usr/lib/x") or "[kernel.kallsyms]". */
static int entry_dir(char *buf, const char *dir, const char *name,
		     const char *hex)
{
	int n = snprintf(buf, PATHLEN, "%s%s%s/%s", dir,
			 name[0] == '/' ? "" : "/", name, hex);

	return n < PATHLEN ? 0 : -ENAMETOOLONG;
}

static int link_path(char *buf, const char *dir, const char *hex)
{
	if (strlen(hex) < 3)
		return -EINVAL;
	return snprintf(buf, PATHLEN, "%s/.build-id/%.2s/%s", dir, hex,
			hex + 2) < PATHLEN ? 0 : -ENAMETOOLONG;
}

/* DIR/.build-id/xx/rest -> ../../NAME/HEX (an existing link is kept). */
static int add_link(const char *dir, const char *edir, const char *hex)
{
	char lnk[PATHLEN], target[PATHLEN];
	char *slash;
	int err = link_path(lnk, dir, hex);

	if (err)
		return err;
	slash = strrchr(lnk, '/');
	*slash = '\0';
	err = pk__mkdir_p(lnk, 0755);
	*slash = '/';
	if (err)
		return err;
	snprintf(target, sizeof(target), "../..%s", edir + strlen(dir));
	return symlink(target, lnk) < 0 && errno != EEXIST ? -errno : 0;
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
	char *data;
	long n = pk__read_file(from, &data);
	int err;

	if (n < 0)
		return (int)n;
	err = pk__write_new_file(to, data, (size_t)n, mode);
	pk__free(data);
	return err;
}

/* EDIR/BASE: a hard link to FROM, else a copy made MODE; kept if there. */
static int put_file(const char *edir, const char *base, const char *from,
		    mode_t mode, bool try_link)
{
	char to[PATHLEN + 16];
	int err;

	snprintf(to, sizeof(to), "%s/%s", edir, base);
	if (!access(to, F_OK))
		return 0;
	if (try_link && !link(from, to))
		return 0;
	err = copy_file(from, to, mode);
	return err == -EEXIST ? 0 : err;
}

/* The empty SDT probe cache perf leaves beside a DSO's copy. */
static int put_probes(const char *edir)
{
	char p[PATHLEN + 16];
	int fd;

	snprintf(p, sizeof(p), "%s/probes", edir);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* The debug file of build id HEX under DEBUG_DIR, canonical, if readable. */
static char *find_debug(const char *debug_dir, const char *hex)
{
	char p[PATHLEN];
	char *real;

	snprintf(p, sizeof(p), "%s/.build-id/%.2s/%s.debug", debug_dir, hex,
		 hex + 2);
	real = realpath(p, NULL);
	if (real && access(real, R_OK)) {
		free(real);
		real = NULL;
	}
	return real;
}

static int add_debug(const char *edir, const char *path, const char *hex,
		     const char *debug_dir)
{
	char *dbg;
	int err;

	if (!debug_dir)
		debug_dir = "/usr/lib/debug";
	if (!debug_dir[0] || ends_with(path, ".ko"))
		return 0;
	dbg = find_debug(debug_dir, hex);
	if (!dbg)
		return 0;
	err = put_file(edir, "debug", dbg, 0755, true);
	free(dbg);
	return err;
}

int pk_bidcache_add_file(const char *dir, const char *path, const char *hex,
			 const char *debug_dir)
{
	char edir[PATHLEN];
	int err = link_path(edir, dir, hex);

	if (!err)
		err = entry_dir(edir, dir, path, hex);
	if (!err)
		err = pk__mkdir_p(edir, 0755);
	if (!err)
		err = put_file(edir, "elf", path, 0755, true);
	if (!err)
		err = add_debug(edir, path, hex, debug_dir);
	if (!err)
		err = add_link(dir, edir, hex);
	if (!err)
		err = put_probes(edir);
	return err;
}

int pk_bidcache_add_kallsyms(const char *dir, const char *hex,
			     const char *kallsyms)
{
	char edir[PATHLEN];
	int err = link_path(edir, dir, hex);

	if (!err)
		err = entry_dir(edir, dir, "[kernel.kallsyms]", hex);
	if (!err)
		err = pk__mkdir_p(edir, 0755);
	if (!err)
		err = put_file(edir, "kallsyms",
			       kallsyms ? kallsyms : "/proc/kallsyms", 0755,
			       false);
	return err ? err : add_link(dir, edir, hex);
}

int pk_bidcache_add_vdso(const char *dir, const char *hex, const void *image,
			 size_t size)
{
	char edir[PATHLEN], p[PATHLEN + 8];
	int err = link_path(edir, dir, hex);

	if (!err)
		err = entry_dir(edir, dir, "[vdso]", hex);
	if (!err)
		err = pk__mkdir_p(edir, 0755);
	snprintf(p, sizeof(p), "%s/vdso", edir);
	if (!err && access(p, F_OK))
		err = pk__write_new_file(p, image, size, 0600);
	if (err == -EEXIST)
		err = 0;
	if (!err)
		err = add_link(dir, edir, hex);
	return err ? err : put_probes(edir);
}

static int rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int err = 0;

	if (!d)
		return errno == ENOTDIR ? (unlink(path) ? -errno : 0) : -errno;
	while ((de = readdir(d)) && !err) {
		char p[PATHLEN + 256];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		err = de->d_type == DT_DIR ? rm_tree(p) :
		      unlink(p) < 0 ? -errno : 0;
	}
	closedir(d);
	return err ? err : rmdir(path) < 0 ? -errno : 0;
}

int pk_bidcache_remove(const char *dir, const char *hex)
{
	char lnk[PATHLEN], target[PATHLEN], edir[2 * PATHLEN];
	char *slash;
	ssize_t n;
	int err = link_path(lnk, dir, hex);

	if (err)
		return err;
	n = readlink(lnk, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	slash = strrchr(lnk, '/');
	*slash = '\0';
	snprintf(edir, sizeof(edir), "%s/%s", lnk, target);
	*slash = '/';
	if (unlink(lnk) < 0)
		return -errno;
	err = rm_tree(edir);
	return err == -ENOENT ? 0 : err;
}

static bool is_hex(const char *s, size_t min)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n >= min && n < PK_BIDCACHE_HEX && !s[n];
}

static int push_entry(struct pk_bidcache_entry **v, int *n, int *cap,
		      const char *hex, const char *name)
{
	struct pk_bidcache_entry *e;

	if (*n == *cap) {
		int c = *cap ? 2 * *cap : 16;

		e = pk__realloc(*v, (size_t)c * sizeof(*e));
		if (!e)
			return -ENOMEM;
		*v = e;
		*cap = c;
	}
	e = &(*v)[*n];
	snprintf(e->hex, sizeof(e->hex), "%s", hex);
	e->name = pk__strdup(name);
	if (!e->name)
		return -ENOMEM;
	(*n)++;
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct pk_bidcache_entry *x = a, *y = b;

	return strcmp(x->hex, y->hex);
}

/* The DSO a link "../../NAME/HEX" names, into NAME; false if another. */
static bool link_name(const char *target, const char *hex, char *name,
		      size_t len)
{
	size_t t = strlen(target), h = strlen(hex);

	if (strncmp(target, "../..", 5) || t < 5 + h + 2 ||
	    strcmp(target + t - h, hex) || target[t - h - 1] != '/')
		return false;
	target += 5;
	t -= 5 + h + 1;
	if (target[0] == '/' && target[1] == '[')
		target++, t--;
	snprintf(name, len, "%.*s", (int)t, target);
	return true;
}

/* The links in one DIR/.build-id/xx directory. */
static int list_xx(const char *xxdir, const char *xx,
		   struct pk_bidcache_entry **v, int *n, int *cap)
{
	DIR *d = opendir(xxdir);
	struct dirent *de;
	int err = 0;

	if (!d)
		return errno == ENOTDIR ? 0 : -errno;
	while ((de = readdir(d)) && !err) {
		char p[2 * PATHLEN], target[PATHLEN], hex[PK_BIDCACHE_HEX + 2];
		char name[PATHLEN];
		ssize_t len;

		if (strlen(de->d_name) > 38 || !is_hex(de->d_name, 1))
			continue;
		snprintf(hex, sizeof(hex), "%.2s%.38s", xx, de->d_name);
		snprintf(p, sizeof(p), "%s/%s", xxdir, de->d_name);
		len = readlink(p, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (link_name(target, hex, name, sizeof(name)))
			err = push_entry(v, n, cap, hex, name);
	}
	closedir(d);
	return err;
}

static int finish_list(struct pk_bidcache_entry *v, int n, int err,
		       struct pk_bidcache_entry **out)
{
	if (err) {
		pk_bidcache_entries_free(v, n);
		return err;
	}
	if (n)
		qsort(v, (size_t)n, sizeof(*v), cmp_entry);
	*out = v;
	return n;
}

int pk_bidcache_list(const char *dir, struct pk_bidcache_entry **out)
{
	struct pk_bidcache_entry *v = NULL;
	char top[PATHLEN];
	struct dirent *de;
	int n = 0, cap = 0, err = 0;
	DIR *d;

	*out = NULL;
	snprintf(top, sizeof(top), "%s/.build-id", dir);
	d = opendir(top);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d)) && !err) {
		char p[PATHLEN + 256];

		if (strlen(de->d_name) != 2 || !is_hex(de->d_name, 2))
			continue;
		snprintf(p, sizeof(p), "%s/%s", top, de->d_name);
		err = list_xx(p, de->d_name, &v, &n, &cap);
	}
	closedir(d);
	return finish_list(v, n, err, out);
}

int pk_bidcache_list_path(const char *dir, const char *path,
			  struct pk_bidcache_entry **out)
{
	struct pk_bidcache_entry *v = NULL;
	char pdir[PATHLEN];
	struct dirent *de;
	int n = 0, cap = 0, err = 0;
	DIR *d;

	*out = NULL;
	if (entry_dir(pdir, dir, path, ""))
		return -ENAMETOOLONG;
	d = opendir(pdir);
	if (!d)
		return errno == ENOTDIR ? -ENOENT : -errno;
	while ((de = readdir(d)) && !err)
		if (de->d_name[0] != '.')
			err = push_entry(&v, &n, &cap, de->d_name, path);
	closedir(d);
	return finish_list(v, n, err, out);
}

void pk_bidcache_entries_free(struct pk_bidcache_entry *e, int n)
{
	for (int i = 0; e && i < n; i++)
		pk__free(e[i].name);
	pk__free(e);
}

bool pk_bidcache_valid(const struct pk_bidcache_entry *e)
{
	uint8_t id[PK_BUILD_ID_MAX];
	char hex[PK_BIDCACHE_HEX];
	int n;

	if (!strcmp(e->name, "[kernel.kallsyms]"))
		n = pk_build_id_kernel(id);
	else if (e->name[0] == '/')
		n = pk_build_id_read(e->name, id);
	else
		return false;
	return n > 0 && !strcmp(pk_build_id_hex(id, n, hex), e->hex);
}
