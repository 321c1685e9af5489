/* SPDX-License-Identifier: MIT */
/* Internal: session objects. */
#ifndef PK_SESSION_SESSION_H
#define PK_SESSION_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include "symbol/symtab.h"

struct dso {
	char *name;
	struct pk_symtab tab;
	void *srcline;        /* libdw handle, opened on first use */
	bool srcline_failed;
	bool kernel;
	struct dso *next;
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
	bool identity;        /* anon / [heap] / [stack]: ip as is */
	const char *fname;    /* the file name as recorded (perf -D's) */
	uint64_t seq;         /* order of the MMAP records: newest wins */
	uint32_t prot, flags; /* MMAP2's (MMAP: PROT_EXEC unless data) */
	uint64_t ino;         /* MMAP2's inode, 0 when not recorded */
};

struct proc {
	uint32_t pid;
	uint32_t incarnation;  /* perf's maps of the process: new at each
				  fork of its leader */
	struct map *maps;     /* sorted by start, no overlaps */
	int nr, cap;
	uint64_t gen;         /* changes whenever the maps change */
	struct proc *data;    /* data mappings (MMAP2 with MISC_MMAP_DATA:
				 heap, stacks, anon), for the unwinder */
	struct proc *next;
};

struct thread {
	uint32_t tid, pid;
	int32_t ppid;         /* the parent thread's tid, -1: none seen */
	uint32_t incarnation; /* its process's maps when it joined them */
	char comm[32];
	bool task;            /* a COMM, FORK or sample made or met it (not
				 MMAPs alone: perf report --tasks skips
				 those) */
	struct thread *next;
};

/* maps.c */
int pk__proc_insert(struct proc *p, const struct map *m);
const struct map *pk__proc_find(const struct proc *p, uint64_t addr);
int pk__proc_copy(struct proc *dst, const struct proc *src);

/* run.c: the state pk_session_run() keeps (session.c frees it). */
struct pk__run {
	struct pk_perfdata *pd;      /* the file being run */
	void *td;                    /* its tracing data (a copy) */
	size_t td_size;
	struct { uint64_t id, value; } *reads; /* :S counts seen per id */
	unsigned nr_reads, cap_reads;
};
void pk__run_fini(struct pk__run *r);

/* session.c: the run state of session S. */
struct pk_session;
struct pk__run *pk__session_run_state(struct pk_session *s);

/* session.c: for layers above (unwind): the map of PID holding ADDR
 * (user space), or NULL. */
struct pk_session;
const struct map *pk__session_map(struct pk_session *s, uint32_t pid,
				  uint64_t addr);
/* The file with DSO D's bytes (itself, or perf's build-id cache copy
 * when the recorded build id differs; the vdso's copy), into BUF. 0 or
 * -ENOENT. */
int pk__session_dso_file(struct pk_session *s, const struct dso *d,
			 char *buf, size_t len);
/* DSO D's debug file by build id (the debug directory's), into BUF. 0 or
 * -ENOENT. */
int pk__session_dso_debug_file(struct pk_session *s, const struct dso *d,
			       char *buf, size_t len);
/* DSO D's DWARF handle for pk__srcline_at() and pk__inlines() (opened
 * on first use, the symbols loaded), or NULL. */
void *pk__session_dso_dwarf(struct pk_session *s, struct dso *d);
/* A perf.data directory's kallsyms (DIR/kcore_dir/kallsyms), when it
 * has one, unless the caller gave one (perf's perf_data__kallsyms_name). */
void pk__session_data_dir(struct pk_session *s, const char *dir);
/* Whether the session knows a VM guest (pk_session_opts's guest_kallsyms:
 * perf's perf_guest). */
bool pk__session_has_guest(const struct pk_session *s);
/* Whether pk_session_opts's guest_code was given (perf's --guest-code). */
bool pk__session_guest_code(const struct pk_session *s);
/* The kernel's map holding ADDR (the kernel or a module), or NULL. */
const struct map *pk__session_kernel_map(struct pk_session *s, uint64_t addr);
/* The size of the symbol holding ADDR of PID in CPUMODE (perf's end -
 * start, the end fixed up), 0 for none. */
uint64_t pk__session_sym_size(struct pk_session *s, uint32_t pid,
			      uint64_t addr, uint16_t cpumode);
/* The length perf gives the name of that symbol (a kallsyms module
 * symbol's counts its "\t[module]"), 0 for none. */
size_t pk__session_sym_namelen(struct pk_session *s, uint32_t pid,
			       uint64_t addr, uint16_t cpumode);
/* Whether ADDR of PID lies in any mapping perf knows, data ones too. */
bool pk__session_mapped(struct pk_session *s, uint32_t pid, uint64_t addr);

#endif
