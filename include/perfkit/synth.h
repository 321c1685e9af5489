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
	/* pk_synth_bpf(): KSYMBOLs alone, no BPF_EVENT and no program info
	 * kept (perf record --no-bpf-event; BTF objects are still kept). */
	bool no_bpf_event;
};
#define pk_synth_opts__last_field no_bpf_event

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

/*
 * BPF programs, as perf record 6.1 keeps them for HEADER_BPF_PROG_INFO
 * and HEADER_BPF_BTF: each program's info with the arrays perf keeps
 * (jited insns, ksyms, function lengths, func info, line info, jited
 * line info, tags; pk_bpf_prog_entry in perfdata.h) and the BTF objects
 * of those with BTF, by id. Needs CAP_SYS_ADMIN (or CAP_BPF/PERFMON).
 */
struct pk_bpf_progs;
PK_API struct pk_bpf_progs *pk_bpf_progs_new(void);
PK_API void pk_bpf_progs_free(struct pk_bpf_progs *p);
/* Keeps program ID's info and its BTF object (when it has one; a BTF
 * that cannot be read is left out), as perf's side-band thread does
 * for each program loaded while it records; an id kept already is left
 * as it was. 0, -ENOENT when the program is gone, -EPERM, -ENOMEM. */
PK_API int pk_bpf_progs_add(struct pk_bpf_progs *p, uint32_t id);
/* The HEADER_BPF_PROG_INFO / HEADER_BPF_BTF body (a u32 count, then the
 * entries by id) into *BODY (free() it): its size or -ENOMEM. */
PK_API long pk_bpf_progs_prog_info(const struct pk_bpf_progs *p, void **body);
PK_API long pk_bpf_progs_btf(const struct pk_bpf_progs *p, void **body);

/*
 * perf_event__synthesize_bpf_events: for each loaded program by id, a
 * PERF_RECORD_KSYMBOL per function (named as pk_bpf_prog_func() names
 * it: its BTF object is kept in P when it has BTF func info) and one
 * PERF_RECORD_BPF_EVENT (PROG_LOAD, its id and tag), its info kept in P;
 * then a KSYMBOL (a page long) for every BPF trampoline and dispatcher
 * in kallsyms. As perf, a program whose info cannot be read or whose
 * counts disagree ends the list without an error. 0, -ENOMEM, or the
 * callback's non-zero value.
 */
PK_API int pk_synth_bpf(struct pk_bpf_progs *p, pk_synth_fn fn, void *arg,
			const struct pk_synth_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
