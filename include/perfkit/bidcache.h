/* SPDX-License-Identifier: MIT */
/*
 * perfkit build-id cache: perf 6.1's ~/.debug, so that perf and perfkit
 * find the bytes of a DSO that was rebuilt or removed after recording.
 *
 * Layout (DIR is pk_bidcache_dir()'s answer, HEX a lowercase build id):
 *   DIR/PATH/HEX/elf        the file: a hard link, else a copy (0755)
 *   DIR/PATH/HEX/debug      /usr/lib/debug/.build-id/xx/rest.debug, same
 *   DIR/PATH/HEX/probes     an empty SDT probe cache (0644)
 *   DIR/[kernel.kallsyms]/HEX/kallsyms   copy of /proc/kallsyms (0755)
 *   DIR/[vdso]/HEX/vdso     the vdso's bytes (0600), and probes
 *   DIR/.build-id/xx/rest -> ../../PATH/HEX   (xx: HEX's first 2 digits)
 * Files already present are kept. Directories are made 0755 (less the
 * umask).
 */
#ifndef PERFKIT_BIDCACHE_H
#define PERFKIT_BIDCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest build id in hex, with its NUL. */
#define PK_BIDCACHE_HEX 41

/*
 * The cache directory as perf 6.1 finds it: $PERF_BUILDID_DIR when set
 * (what perf's `--buildid-dir DIR` sets for the commands it runs, and
 * perfkit's for itself), else buildid.dir from the perf config
 * ($PERF_CONFIG alone when set, else /etc/perfconfig unless
 * $PERF_CONFIG_NOSYSTEM, then $HOME/.perfconfig; the last setting wins),
 * else $HOME/.debug (".debug" without $HOME). Into BUF; 0 or -ENAMETOOLONG.
 */
PK_API int pk_bidcache_dir(char *buf, size_t len);

/*
 * Adds the ELF file PATH (absolute and canonical: perf names the entry by
 * realpath) with build id HEX to cache DIR, with its debug file from
 * DEBUG_DIR/.build-id (NULL: /usr/lib/debug; "" none; never for ".ko").
 * 0, or -errno of the step that failed.
 */
PK_API int pk_bidcache_add_file(const char *dir, const char *path,
				const char *hex, const char *debug_dir);

/* Adds a copy of the kallsyms file KALLSYMS (NULL: /proc/kallsyms) as
 * "[kernel.kallsyms]" with build id HEX. 0 or -errno. */
PK_API int pk_bidcache_add_kallsyms(const char *dir, const char *hex,
				    const char *kallsyms);

/* Adds the vdso image (SIZE bytes) as "[vdso]" with build id HEX. */
PK_API int pk_bidcache_add_vdso(const char *dir, const char *hex,
				const void *image, size_t size);

/*
 * Removes the entry with build id HEX: its .build-id link and the
 * directory it points to. 0, -ENOENT when HEX is not cached, or -errno.
 */
PK_API int pk_bidcache_remove(const char *dir, const char *hex);

/* One cached DSO. */
struct pk_bidcache_entry {
	char hex[PK_BIDCACHE_HEX];
	char *name;     /* the DSO's path, "[kernel.kallsyms]", "[vdso]" */
};

/*
 * Every entry of cache DIR (its .build-id links), sorted by build id, into
 * *OUT (free with pk_bidcache_entries_free). Returns the count (0 for a
 * missing cache), or -errno.
 */
PK_API int pk_bidcache_list(const char *dir, struct pk_bidcache_entry **out);

/*
 * The entries cached for PATH (canonical), sorted by build id: the
 * directories under DIR/PATH. Count, -ENOENT when PATH has no directory
 * in the cache, or -errno.
 */
PK_API int pk_bidcache_list_path(const char *dir, const char *path,
				 struct pk_bidcache_entry **out);

PK_API void pk_bidcache_entries_free(struct pk_bidcache_entry *e, int n);

/*
 * Whether entry E still describes the system: its file (or the running
 * kernel for "[kernel.kallsyms]") has build id E->hex now. perf's
 * `buildid-cache -l` lists only these.
 */
PK_API bool pk_bidcache_valid(const struct pk_bidcache_entry *e);

/* This process's vdso: its bytes (the whole [vdso] mapping). 0, or
 * -ENOENT when there is none. */
PK_API int pk_vdso_image(const void **image, size_t *size);

#ifdef __cplusplus
}
#endif
#endif
