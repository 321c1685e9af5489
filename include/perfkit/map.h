/* SPDX-License-Identifier: MIT */
/* perfkit CPU and thread maps: the sets events are opened on. */
#ifndef PERFKIT_MAP_H
#define PERFKIT_MAP_H

#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Refcounted, immutable sets; _put(NULL) is fine. */
struct pk_cpu_map;
struct pk_thread_map;

/* CPUs from a list like "0-3,6" (NULL or "" = every online CPU). NULL with
 * errno EINVAL on a malformed list. Refcount 1. */
PK_API struct pk_cpu_map *pk_cpu_map_new(const char *list);
/* The one-entry map {-1}: "any CPU", for per-thread events. */
PK_API struct pk_cpu_map *pk_cpu_map_new_any(void);
PK_API struct pk_cpu_map *pk_cpu_map_get(struct pk_cpu_map *map);
PK_API void pk_cpu_map_put(struct pk_cpu_map *map);
PK_API int pk_cpu_map_nr(const struct pk_cpu_map *map);
/* CPU number at index IDX (-1 for the any map), or -EINVAL. */
PK_API int pk_cpu_map_cpu(const struct pk_cpu_map *map, int idx);
/* The sorted union of A and B (either may be NULL), as perf's evlist
 * all_cpus: a new map, or NULL and errno ENOMEM. */
PK_API struct pk_cpu_map *pk_cpu_map_merge(const struct pk_cpu_map *a,
					   const struct pk_cpu_map *b);

/* Where a CPU sits, from sysfs (cpuN/topology and the cpuN/nodeM link);
 * a field sysfs does not give is 0, as perf assumes. */
struct pk_cpu_topo {
	int socket, die, core, node;
};
/* Fills *OUT for CPU. 0, or -ENOENT when the CPU has no sysfs directory,
 * -EINVAL for a negative CPU. */
PK_API int pk_cpu_topo_read(int cpu, struct pk_cpu_topo *out);

/* The one-entry map {-1}: "every thread", for CPU-wide events. */
PK_API struct pk_thread_map *pk_thread_map_new_any(void);
/* Threads from a list of tids like "12,15" (checked to exist: NULL with
 * errno ESRCH otherwise). */
PK_API struct pk_thread_map *pk_thread_map_new_tids(const char *list);
/* Every thread of each process in a pid list like "12,40" (read from
 * /proc/PID/task). NULL with errno ESRCH when a pid does not exist. */
PK_API struct pk_thread_map *pk_thread_map_new_pids(const char *list);
/* Threads from an array. */
PK_API struct pk_thread_map *pk_thread_map_new_array(int nr, const int *tids);
PK_API struct pk_thread_map *pk_thread_map_get(struct pk_thread_map *map);
PK_API void pk_thread_map_put(struct pk_thread_map *map);
PK_API int pk_thread_map_nr(const struct pk_thread_map *map);
/* Thread id at index IDX (-1 for the any map), or -EINVAL. */
PK_API int pk_thread_map_tid(const struct pk_thread_map *map, int idx);

#ifdef __cplusplus
}
#endif
#endif
