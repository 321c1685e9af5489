/* SPDX-License-Identifier: MIT */
/*
 * perfkit sessions: the state of the recorded machine rebuilt from a
 * perf.data stream (threads and their names, each process's mappings, the
 * kernel's), so that sample addresses resolve to DSOs and symbols.
 *
 * pk_session_run() reads a whole perf.data (file or pipe, in the reader's
 * time order) into the machine and calls a tool back per record and per
 * sample, as perf's session/tool split does; or feed every record in time
 * order to pk_session_process() yourself. pk_session_resolve() answers
 * for an address as the machine stood then.
 */
#ifndef PERFKIT_SESSION_H
#define PERFKIT_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pk_session;

struct pk_session_opts {
	size_t sz;
	/* Kernel symbols from this kallsyms file (default /proc/kallsyms;
	 * "" for none). */
	const char *kallsyms;
	/* Prefix for DSO paths (a sysroot), default none. */
	const char *root;
	/* perf's build-id cache (default pk_bidcache_dir(); "" none): DSOs
	 * whose file no longer has the recorded build id are read from
	 * there, the kernel's kallsyms too. */
	const char *buildid_dir;
	/* Debug files by build id (default /usr/lib/debug; "" none). */
	const char *debug_dir;
	/* The default guest's kallsyms (perf's --guestkallsyms; NULL: no
	 * guest machine, guest records and samples stay the host's as in
	 * perf without a guest option). With it, guest kernel MMAPs
	 * ("[guest.kernel.kallsyms]_text", perf kvm record's) make the
	 * guest's kernel map, whose symbols come from this file and code
	 * from the kcore beside it (as perf buildid-cache --kcore leaves
	 * it), and PERF_RECORD_MISC_GUEST_KERNEL addresses resolve there. */
	const char *guest_kallsyms;
	/* perf's --guest-code (a KVM selftest's layout): a VM's user space
	 * is the code of the process that runs it, at the same addresses:
	 * PERF_RECORD_MISC_GUEST_USER addresses resolve in that process's
	 * maps (perf copies them into its guest machine's thread). */
	bool guest_code;
};
#define pk_session_opts__last_field guest_code

/* A new, empty machine. NULL with errno on failure. */
PK_API struct pk_session *pk_session_new(const struct pk_session_opts *opts);
PK_API void pk_session_free(struct pk_session *s);

/*
 * Updates the machine from one record (host byte order): COMM, FORK, EXIT,
 * MMAP, MMAP2; others are ignored. Returns 0, PK_ERR_TRUNC for a record
 * too short for its fields, or -ENOMEM.
 */
PK_API int pk_session_process(struct pk_session *s,
			      const struct perf_event_header *rec);

/*
 * Tells the session the build id the perf.data file recorded for a DSO
 * (HEADER_BUILD_ID / BUILD_ID records; "[kernel.kallsyms]" for the
 * kernel). Symbols are then read only from a file with that build id, as
 * perf does. 0, -EINVAL (bad length) or -ENOMEM.
 */
PK_API int pk_session_add_build_id(struct pk_session *s, const char *name,
				   const uint8_t *id, int len);

/* The command name of TID, or NULL when never seen ("comm" of perf). */
PK_API const char *pk_session_comm(struct pk_session *s, uint32_t tid);
/*
 * The name of the thread of the VM that process PID runs, in perf's guest
 * machine: with guest_code the samples of every thread of PID are perf's
 * guest code thread's (machine__resolve takes it by the pid, its tid is
 * PID), "[guest/PID]" (written into BUF of LEN); NULL otherwise (a new
 * thread of the guest machine: perf shows ":TID").
 */
PK_API const char *pk_session_guest_comm(struct pk_session *s, uint32_t pid,
					 char *buf, size_t len);

/*
 * The threads perf's machine would hold after the records so far, in the
 * order perf lists them (perf report --tasks: tid modulo 256, then tid):
 * the idle thread, those of COMM, FORK and MMAP records and those
 * pk_session_add_thread() adds; a thread of another pid brings its
 * leader. FN's non-zero return stops the walk and is returned.
 */
struct pk_session_task {
	int32_t pid, tid, ppid;  /* ppid: the parent's tid from FORK, or -1 */
	const char *comm;        /* the last comm, perf's ":TID" when none */
	bool mapped_only;        /* only MMAP records name it (perf report
				    --tasks leaves it out, --mmaps not) */
};
PK_API int pk_session_for_each_task(struct pk_session *s,
		int (*fn)(void *ctx, const struct pk_session_task *t),
		void *ctx);
/* The thread of a sample (perf makes one for each): 0 or -ENOMEM. */
PK_API int pk_session_add_thread(struct pk_session *s, int32_t pid,
				 int32_t tid);
/* The mappings (code and data) thread TID sees, by address, as perf
 * report --mmaps lists them: FN's non-zero return stops the walk. */
struct pk_session_mapping {
	uint64_t start, end, pgoff, ino;
	uint32_t prot, flags;    /* PROT_* and MAP_* bits */
	const char *name;        /* the file name as recorded */
};
PK_API int pk_session_for_each_mapping(struct pk_session *s, int32_t tid,
		int (*fn)(void *ctx, const struct pk_session_mapping *m),
		void *ctx);

/*
 * The file holding the bytes of the DSO recorded as NAME ("/usr/bin/x",
 * "[vdso]"), as perf reads its code: the file itself when its build id is
 * the one the perf.data recorded (or none was), else perf's build-id
 * cache copy; into BUF (LEN bytes). 0, or -ENOENT when neither is there.
 */
PK_API int pk_session_dso_file(struct pk_session *s, const char *name,
			       char *buf, size_t len);

/*
 * The kernel's code as perf reads it from a kcore: the file "kcore"
 * beside the kallsyms file the kernel's symbols come from (perf record
 * --kcore's DIR/kcore_dir when the perf.data was opened as DIR, or
 * /proc/kcore), used when the recorded kernel map's reference symbol
 * (_text) and modules are where its kallsyms and modules files say. One
 * call per executable PT_LOAD segment: [START, END) at offset PGOFF of
 * FILE; the kernel's maps are those segments then (perf's
 * dso__load_kcore). Loads the kernel's symbols. 0, FN's non-zero return,
 * or -ENOENT when no kcore is used.
 */
struct pk_session_code {
	uint64_t start, end, pgoff;
	const char *file;
};
/* The same for the default guest's kernel (pk_session_opts's
 * guest_kallsyms): the kcore beside its kallsyms, when its _text is where
 * the guest kernel MMAP says. -ENOENT when there is none. */
PK_API int pk_session_for_each_guest_code(struct pk_session *s,
		int (*fn)(void *ctx, const struct pk_session_code *c),
		void *ctx);
PK_API int pk_session_for_each_kernel_code(struct pk_session *s,
		int (*fn)(void *ctx, const struct pk_session_code *c),
		void *ctx);
/* Whether the kcore and modules files beside KALLSYMS can be read as
 * perf reads them (an ELF file with executable PT_LOAD segments; a
 * readable modules file): 0, else -errno or PK_ERR_FORMAT with the file
 * at fault in FILE (LEN bytes). */
PK_API int pk_kcore_check(const char *kallsyms, char *file, size_t len);
/*
 * perf record --kcore's copy of the kernel (perf 6.1's kcore_copy):
 * FROM_DIR's (/proc's) kallsyms and modules copied whole into TO_DIR, and
 * TO_DIR/kcore made of FROM_DIR/kcore's code: an ELF file of the kcore's
 * class, type and machine, no sections, one PT_LOAD (RWX, page aligned)
 * per piece, the pieces one after the other from the page after the
 * headers: the kernel's text (_stext, else its first function, to
 * _etext, else a page past its last one) and the modules' (the lowest
 * module, by the modules file or kallsyms, to a page past the last module
 * function), each cut from the kcore's executable segments where it
 * starts, pages rounded. The files are new (mode 0400). Last, kallsyms is
 * read again: a module loaded meanwhile changed it (-EAGAIN). On failure
 * what was written is removed. 0, -errno (-EEXIST: a file is already
 * there), PK_ERR_FORMAT (the kcore is no little-endian ELF file, kallsyms
 * has no kernel functions) or -ENOMEM.
 */
PK_API int pk_kcore_copy(const char *from_dir, const char *to_dir);

/* Where an address falls. Strings live as long as the session. */
struct pk_location {
	const char *dso;     /* "/usr/lib/.../libc.so.6", "[kernel.kallsyms]",
				"[unknown]" */
	const char *sym;     /* symbol name, or NULL */
	uint64_t symoff;     /* ADDR - symbol start */
	uint64_t dso_addr;   /* address within the DSO: ip - start + pgoff
				(perf's map_ip; ADDR itself for the kernel,
				anonymous memory and unmapped addresses) */
	bool kernel;
	bool object;         /* the symbol is a data object (STT_OBJECT) */
};

/*
 * Resolves ADDR for process PID (CPUMODE: the sample's misc &
 * PERF_RECORD_MISC_CPUMODE_MASK, or PERF_CONTEXT_* markers translated by
 * the caller; only USER and KERNEL resolve, as perf on the host). Always
 * fills LOC; returns 0 when a mapping was found, -ENOENT otherwise.
 * Results are cached until the next map change.
 */
PK_API int pk_session_resolve(struct pk_session *s, uint32_t pid,
			      uint64_t addr, uint16_t cpumode,
			      struct pk_location *loc);

/*
 * 1 when a kernel address was resolved and no kernel symbols match the
 * file's kernel build id (not this kernel's, none in the build-id cache:
 * perf's "No kallsyms or vmlinux with build-id ... was found"), with that
 * build id in hex in BUF (LEN >= 41 bytes); else 0.
 */
PK_API int pk_session_kernel_unresolved(struct pk_session *s, char *buf,
					size_t len);

/*
 * The source line of ADDR as perf script's srcline field shows it:
 * "file.c:LINE" from the DSO's DWARF (separate debuginfo found the standard
 * ways), else "dso[OFFSET]" ("[kernel.kallsyms][ADDR]" for the kernel);
 * -ENOENT ("??:0" in BUF) when the address is in no file mapping.
 */
PK_API int pk_session_srcline(struct pk_session *s, uint32_t pid,
			      uint64_t addr, uint16_t cpumode, char *buf,
			      size_t len);

/* One frame of perf's inline expansion. */
struct pk_inline_frame {
	const char *name;    /* function name (DWARF) */
	const char *file;    /* source file (full path), NULL when unknown */
	unsigned line;       /* its line: the address's for the innermost,
				the inlined call's for the others */
};

/*
 * The frames perf 6.1 shows for a user address it unwound (perf script
 * with --call-graph dwarf recordings): what binutils' addr2line -i -f
 * gives for ADDR of process PID, innermost inlined function first and the
 * function that holds them last, into FRAMES (at most MAX; strings live
 * as long as the session). perf prints each as a frame of its own at the
 * same address and offset, "(inlined)" in place of the DSO where the name
 * differs from the symbol's, and the file's base name:line as its
 * srcline. Returns the count; 0 when the DSO has no DWARF line for ADDR
 * (perf then prints the plain frame) or ADDR is in no file mapping.
 */
PK_API int pk_session_inlines(struct pk_session *s, uint32_t pid,
			      uint64_t addr, struct pk_inline_frame *frames,
			      int max);

/*
 * A number that changes whenever pk_session_resolve() may answer
 * differently for addresses of PID in CPUMODE (its maps or the build ids
 * changed), so that callers can cache what they make of the answers. 0
 * for cpumodes that never resolve.
 */
PK_API uint64_t pk_session_generation(struct pk_session *s, uint32_t pid,
				      uint16_t cpumode);

/* ---- processing a perf.data: the session calls a tool back ---- */

struct pk_perfdata;
struct pk_record;
struct pk_sample;

/* What a tool's sample callback gets; valid during the call. */
struct pk_session_sample {
	const struct pk_record *rec; /* the SAMPLE record */
	struct pk_sample *sample;    /* parsed; the tool may change it */
	int attr;                    /* its event's attribute index */
	const char *comm;            /* the thread's name, NULL when never
					seen (perf shows ":TID") */
};

/*
 * A tool: callbacks for pk_session_run(), each optional (NULL), each
 * given the CTX passed to it. Declare it with PK_OPTS(pk_tool, ...).
 */
struct pk_tool {
	size_t sz;
	/* Every record as the reader gives it (COMPRESSED ones and then the
	 * records they hold), before the session applies it to the machine:
	 * pk_session_comm() and pk_session_dso_name() answer as perf's -D
	 * does for it. Non-zero stops the run with that value. */
	int (*record)(void *ctx, struct pk_session *s,
		      const struct pk_record *rec);
	/* Each sample of a known event, parsed. A PERF_SAMPLE_READ sample
	 * is delivered once per value it read (every group member), as that
	 * member's (attr, id), with the count's growth since the member's
	 * previous read as its period; a member that did not grow is not
	 * delivered (perf). Non-zero stops. */
	int (*sample)(void *ctx, struct pk_session *s,
		      const struct pk_session_sample *sm);
	/* A sample the session could not parse (ERR: PK_ERR_TRUNC or
	 * PK_ERR_FORMAT, text in pk_perfdata_errmsg()); the run goes on. */
	void (*bad_record)(void *ctx, struct pk_session *s,
			   const struct pk_record *rec, int err);
};
#define pk_tool__last_field bad_record

/*
 * Reads every record of PD (opened by the caller, who keeps it) into the
 * machine, with the build ids of its header and the tracing data, and
 * calls TOOL back. Returns 0 at the end of the stream, the reader's error
 * (PK_ERR_TRUNC, PK_ERR_FORMAT... message in pk_perfdata_errmsg()), a
 * callback's non-zero return, -ENOMEM, or -EINVAL for a bad TOOL.
 */
PK_API int pk_session_run(struct pk_session *s, struct pk_perfdata *pd,
			  const struct pk_tool *tool, void *ctx);

/* The tracing data (tracepoint formats, as perf writes them) of the file
 * pk_session_run() reads: its header's, or a pipe's TRACING_DATA record
 * once read. 0, or -ENOENT (none so far). Valid as long as the session;
 * pk_tracefmt_new() reads it. */
PK_API int pk_session_tracing_data(struct pk_session *s, const void **data,
				   size_t *size);

/*
 * The file name of the mapping holding IP for a record of process PID
 * whose header misc is MISC, as perf -D's "...... dso:" line shows it
 * (the name as recorded, "[kernel.kallsyms]" for the kernel, the newest
 * mapping where several overlap): the name, "<not found>", or NULL for
 * cpumodes without maps (hypervisor).
 */
PK_API const char *pk_session_dso_name(struct pk_session *s, uint32_t pid,
				       uint16_t misc, uint64_t ip);

/* One entry of a sample's callchain. */
struct pk_frame {
	uint64_t ip;
	uint16_t cpumode;    /* PERF_RECORD_MISC_USER, _KERNEL, _HYPERVISOR,
				GUEST_KERNEL, GUEST_USER */
};

/*
 * The frames of SM's callchain as perf walks it: PERF_CONTEXT_* markers
 * turned into the cpumode of the frames after them (user at first), at
 * most MAX frames into FRAMES. Returns the count, or PK_ERR_FORMAT for a
 * chain with an unknown marker (perf drops the whole chain).
 */
PK_API int pk_session_callchain(const struct pk_sample *sm, unsigned max,
				struct pk_frame *frames);

/*
 * pk_session_callchain() for a sample whose record's misc is MISC: a VM
 * guest's sample (PERF_RECORD_MISC_GUEST_KERNEL or _USER) has its frames
 * in the guest (perf resolves a chain in the sample's machine), so its
 * kernel and user frames take the guest's cpumodes. Returns as it does.
 */
PK_API int pk_session_callchain_in(const struct pk_sample *sm, uint16_t misc,
				   unsigned max, struct pk_frame *frames);

#ifdef __cplusplus
}
#endif
#endif
