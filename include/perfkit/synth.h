/* SPDX-License-Identifier: MIT */
/*
 * perfkit side-band synthesis: the records a recording needs about what
 * existed before it started (threads, their names, their executable
 * mappings, the kernel and its modules), built from /proc the way perf
 * builds them, and handed to a callback in the kernel's record layout.
 */
#ifndef PERFKIT_SYNTH_H
#define PERFKIT_SYNTH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Receives each synthesized record (borrowed for the call). A non-zero
 * return stops synthesis and is returned. */
typedef int (*pk_synth_fn)(const struct perf_event_header *rec, void *arg);

struct pk_synth_opts {
	size_t sz;
	/* Bytes of sample_id trailer to append to every record (zeros), as
	 * the recording's attr.sample_id_all and sample_type need. */
	size_t id_hdr_size;
	/* Also non-executable mappings (perf record -d). */
	bool data_mmaps;
	/* procfs root (tests point it at a tree they build). */
	const char *proc;
	/* pk_synth_threads(): the COMMs alone, no mappings (a forked command
	 * that has not exec'd yet: its mappings are not the program's). */
	bool no_maps;
};
#define pk_synth_opts__last_field no_maps

/*
 * FORK and COMM records for every thread of process PID, then MMAP2 for
 * each of its executable mappings. Returns 0, -ESRCH when the process is
 * gone, or the callback's non-zero value.
 */
PK_API int pk_synth_process(pid_t pid, pk_synth_fn fn, void *arg,
			    const struct pk_synth_opts *opts);

/*
 * What perf writes for the threads it was given to follow (-p, -t, a
 * command), in their order: a COMM for each thread (its pid field the
 * process) and, for a thread that leads its process, the process's
 * executable mappings; then, for a thread whose leader is not in TIDS,
 * the same for the leader. No FORK. Threads gone meanwhile are skipped.
 * Returns 0, -EINVAL, or the callback's non-zero value.
 */
PK_API int pk_synth_threads(int nr, const pid_t *tids, pk_synth_fn fn,
			    void *arg, const struct pk_synth_opts *opts);

/* pk_synth_process() for every process in /proc (processes that exit
 * meanwhile are skipped). */
PK_API int pk_synth_all_processes(pk_synth_fn fn, void *arg,
				  const struct pk_synth_opts *opts);

/*
 * The kernel's map ("[kernel.kallsyms]_text", from _text or _stext in
 * /proc/kallsyms) and one MMAP per module in /proc/modules, as perf
 * writes them (pid -1, misc PERF_RECORD_MISC_KERNEL). Returns 0 or -errno.
 */
PK_API int pk_synth_kernel(pk_synth_fn fn, void *arg,
			   const struct pk_synth_opts *opts);

/* A NAMESPACES record for process PID (the dev/ino of each /proc/PID/ns
 * link), as perf record --namespaces synthesizes. 0, -ESRCH, or the
 * callback's value. */
PK_API int pk_synth_namespaces(pid_t pid, pk_synth_fn fn, void *arg,
			       const struct pk_synth_opts *opts);

/* A CGROUP record (id and path) for every cgroup v2 directory, as perf
 * record --all-cgroups synthesizes; nothing without a cgroup2 mount. */
PK_API int pk_synth_cgroups(pk_synth_fn fn, void *arg,
			    const struct pk_synth_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
