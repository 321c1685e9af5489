/* SPDX-License-Identifier: MIT */
/*
 * perf.data files: a reader (file -> records -> samples) and a writer.
 *
 * The reader accepts both layouts Linux perf writes: file mode (PERFILE2
 * header, attribute section, data section, feature sections) and pipe mode
 * (a 16-byte header followed by a stream where attributes and features come
 * as records). Files of the other byte order are converted to host order.
 * Records are borrowed: a struct pk_record stays valid until the next call
 * on the same reader.
 *
 * Damaged input never crashes the reader: pk_perfdata_next() delivers every
 * record before the damage, then returns PK_ERR_FORMAT or PK_ERR_TRUNC, and
 * pk_perfdata_errmsg() / pk_perfdata_err_offset() say what and where.
 */
#ifndef PERFKIT_PERFDATA_H
#define PERFKIT_PERFDATA_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* perf's own record types (PERF_RECORD_USER_TYPE_START and up). */
enum pk_user_record {
	PK_RECORD_HEADER_ATTR     = 64,
	PK_RECORD_EVENT_TYPE      = 65,
	PK_RECORD_TRACING_DATA    = 66,
	PK_RECORD_BUILD_ID        = 67,
	PK_RECORD_FINISHED_ROUND  = 68,
	PK_RECORD_ID_INDEX        = 69,
	PK_RECORD_AUXTRACE_INFO   = 70,
	PK_RECORD_AUXTRACE        = 71,
	PK_RECORD_AUXTRACE_ERROR  = 72,
	PK_RECORD_THREAD_MAP      = 73,
	PK_RECORD_CPU_MAP         = 74,
	PK_RECORD_STAT_CONFIG     = 75,
	PK_RECORD_STAT            = 76,
	PK_RECORD_STAT_ROUND      = 77,
	PK_RECORD_EVENT_UPDATE    = 78,
	PK_RECORD_TIME_CONV       = 79,
	PK_RECORD_HEADER_FEATURE  = 80,
	PK_RECORD_COMPRESSED      = 81,
	PK_RECORD_FINISHED_INIT   = 82,
	PK_RECORD_USER_MAX,
};

/* Feature section ids (bits of the header's feature bitmap). */
enum pk_header_feat {
	PK_HEADER_TRACING_DATA = 1, PK_HEADER_BUILD_ID, PK_HEADER_HOSTNAME,
	PK_HEADER_OSRELEASE, PK_HEADER_VERSION, PK_HEADER_ARCH, PK_HEADER_NRCPUS,
	PK_HEADER_CPUDESC, PK_HEADER_CPUID, PK_HEADER_TOTAL_MEM, PK_HEADER_CMDLINE,
	PK_HEADER_EVENT_DESC, PK_HEADER_CPU_TOPOLOGY, PK_HEADER_NUMA_TOPOLOGY,
	PK_HEADER_BRANCH_STACK, PK_HEADER_PMU_MAPPINGS, PK_HEADER_GROUP_DESC,
	PK_HEADER_AUXTRACE, PK_HEADER_STAT, PK_HEADER_CACHE, PK_HEADER_SAMPLE_TIME,
	PK_HEADER_MEM_TOPOLOGY, PK_HEADER_CLOCKID, PK_HEADER_DIR_FORMAT,
	PK_HEADER_BPF_PROG_INFO, PK_HEADER_BPF_BTF, PK_HEADER_COMPRESSED,
	PK_HEADER_CPU_PMU_CAPS, PK_HEADER_CLOCK_DATA, PK_HEADER_HYBRID_TOPOLOGY,
	PK_HEADER_PMU_CAPS,
	PK_HEADER_MAX, /* first id perfkit does not know */
};

/* perf_event_attr sizes; VER8 adds config3 (not yet in every uapi header). */
#define PK_ATTR_SIZE_VER8 136
/* Bytes kept of each attribute (the rest past its size is zeroed). */
#define PK_ATTR_MAX 256

/* One record, in host byte order, borrowed until the next call. */
struct pk_record {
	uint64_t offset;     /* file offset (for records inside a COMPRESSED
				record: that record's offset, as perf) */
	const struct perf_event_header *hdr; /* the whole record, hdr->size */
	uint32_t type;       /* hdr->type */
	uint32_t size;       /* hdr->size */
	uint16_t misc;       /* hdr->misc */
	bool compressed;     /* came out of a COMPRESSED record */
	int attr;            /* attribute index, -1 when unknown/none */
	uint64_t time;       /* sample or sample_id time; 0 when none */
	/* Payload that follows the record in the stream (AUXTRACE data,
	 * pipe-mode TRACING_DATA), not counted in hdr->size. */
	const void *extra;
	uint64_t extra_size; /* bytes of extra (padding excluded) */
};

/* Reader options. Declare with PK_OPTS(pk_perfdata_opts, o, ...). */
struct pk_perfdata_opts {
	size_t sz;
	bool file_order;     /* deliver in file order, not time order */
	const char *name;    /* name for messages (default: the path) */
};

struct pk_perfdata;

/*
 * Opens a perf.data file (PATH "-" reads standard input). The file is
 * mapped; a pipe or FIFO is read to its end first. Fails with NULL and
 * errno: the open/read errno, ENOMEM, EINVAL (bad opts) or EPROTO (not a
 * perf.data file, or its header is damaged: pk_perfdata_open_error() then
 * names the reason).
 */
PK_API struct pk_perfdata *pk_perfdata_open(const char *path,
					    const struct pk_perfdata_opts *opts);
/* PATH may be a directory, as perf record -o DIR --kcore writes it: the
 * perf.data is DIR/data (perf's rule), pk_perfdata_dir() gives DIR. */
/* The directory PD was opened from (its DIR/data), or NULL. */
PK_API const char *pk_perfdata_dir(const struct pk_perfdata *pd);
/* Same on an open descriptor (not closed by the reader). */
PK_API struct pk_perfdata *pk_perfdata_open_fd(int fd,
					       const struct pk_perfdata_opts *opts);
/* Same on a buffer the caller keeps alive until pk_perfdata_free(). */
PK_API struct pk_perfdata *pk_perfdata_open_mem(const void *buf, size_t size,
						const struct pk_perfdata_opts *opts);
/* A second reader over the bytes PD read (a pipe's included, which it
 * read whole), from the start, PD kept alive by the caller until this
 * one is freed: to read ahead of PD. NULL and errno as the opens. */
PK_API struct pk_perfdata *pk_perfdata_reopen(const struct pk_perfdata *pd,
					      const struct pk_perfdata_opts *opts);
/* Why the last open in this thread failed with EPROTO (static string). */
PK_API const char *pk_perfdata_open_error(void);
/* Releases the reader; NULL is fine. */
PK_API void pk_perfdata_free(struct pk_perfdata *pd);

/*
 * Delivers the next record into *REC. Returns 0, PK_ERR_EOS at the end,
 * PK_ERR_FORMAT / PK_ERR_TRUNC on damage (after every record before the
 * damage was delivered; further calls return the same error), -ENOMEM.
 * In time order (default), records are queued and released at each
 * FINISHED_ROUND as perf does; perf's own records (type >= 64) and records
 * without a time are delivered as soon as read. Like perf, a file whose
 * first attr lacks sample_id_all is delivered in file order.
 */
PK_API int pk_perfdata_next(struct pk_perfdata *pd, struct pk_record *rec);
/* File offset of the next record to be read from the data stream. */
PK_API uint64_t pk_perfdata_offset(const struct pk_perfdata *pd);
/* After an error: description ("record PERF_RECORD_SAMPLE at 0x1234: size
 * 0 ...") and the file offset of the damage. */
PK_API const char *pk_perfdata_errmsg(const struct pk_perfdata *pd);
PK_API uint64_t pk_perfdata_err_offset(const struct pk_perfdata *pd);
/* Number of warnings (e.g. a partial last record dropped, timestamps
 * below the last flush); each also went to the print callback. */
PK_API unsigned pk_perfdata_nr_warnings(const struct pk_perfdata *pd);

/* A part of a sample's data source (union perf_mem_data_src), named as
 * perf 6.1's perf_mem__*_scnprintf name them: the opcode ("LOAD"), the
 * memory level ("L1 or L1 hit", "Remote RAM (1 hop) hit", "LFB/MAB"),
 * snoop ("HitM or Fwd"), TLB ("L1 or L2 hit"), lock ("Yes") and blocked
 * (" Data Addr", " N/A": with the leading blank). The length written
 * (cut to fit LEN with its NUL). */
enum pk_mem_part {
	PK_MEM_OP, PK_MEM_LVL, PK_MEM_SNOOP, PK_MEM_TLB, PK_MEM_LOCK,
	PK_MEM_BLK,
};
PK_API size_t pk_mem_part(uint64_t data_src, enum pk_mem_part part,
			  char *buf, size_t len);
/* All of them as perf script's data_src field prints them: "|OP LOAD|LVL
 * L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A". */
PK_API size_t pk_mem_describe(uint64_t data_src, char *buf, size_t len);

/* File layout facts. */
struct pk_perfdata_info {
	bool pipe;           /* pipe-mode stream */
	bool swapped;        /* other byte order than the host */
	uint64_t size;       /* bytes of input */
	uint64_t header_size;
	uint64_t attr_size;  /* size of one attrs-section entry */
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;   /* data_size as used (see below) */
	uint64_t data_size_header;         /* as written in the header */
	uint64_t feat_offset;              /* data_offset + data_size */
	bool data_to_eof;    /* header size was 0 or past EOF: read to EOF */
};
PK_API void pk_perfdata_info(const struct pk_perfdata *pd,
			     struct pk_perfdata_info *info);

/* Attributes: index 0..nr-1 (attrs section or HEADER_ATTR records; in
 * pipe mode they grow while reading). The returned attr is zero-padded to
 * PK_ATTR_MAX bytes; attr->size is what the file said. */
PK_API unsigned pk_perfdata_nr_attrs(const struct pk_perfdata *pd);
PK_API const struct perf_event_attr *
pk_perfdata_attr(const struct pk_perfdata *pd, unsigned idx);
/* Ids of attribute IDX: *NR set, borrowed array returned (NULL when 0). */
PK_API const uint64_t *pk_perfdata_attr_ids(const struct pk_perfdata *pd,
					    unsigned idx, unsigned *nr);
/* Name from EVENT_DESC / EVENT_UPDATE, else perf's name of a hardware or
 * software event ("cycles", "cpu-clock"), else NULL. */
PK_API const char *pk_perfdata_attr_name(const struct pk_perfdata *pd,
					 unsigned idx);
/*
 * Adds an event to the file's list as perf adds the events it synthesizes
 * (the Intel PT decoder's instructions, branches...): its ATTR, NAME (NULL:
 * made from the attr) and sample ID ID (0: none). Returns its attribute
 * index, or -ENOMEM. The file on disk is not changed.
 */
PK_API int pk_perfdata_add_attr(struct pk_perfdata *pd,
				const struct perf_event_attr *attr,
				const char *name, uint64_t id);
/* perf's name made from attribute A alone (hardware, software and raw
 * events: "branches:uH", "raw 0x1cd"): snprintf semantics, or -ENOENT
 * for other types. */
PK_API int pk_attr_made_name(const struct perf_event_attr *a, char *buf,
			     size_t len);
/* perf's name of attribute IDX from the attr alone (a hardware or
 * software event with its modifiers: "cycles:uH"), whatever the file
 * names it; NULL for other types. */
PK_API const char *pk_perfdata_attr_made_name(const struct pk_perfdata *pd,
					      unsigned idx);
/* Attribute index of sample id ID, or -1. */
PK_API int pk_perfdata_id_attr(const struct pk_perfdata *pd, uint64_t id);

/* Features. has: the bitmap bit (file) or a HEADER_FEATURE record seen
 * (pipe). raw: the section bytes in file byte order; 0 or -ENOENT. */
PK_API bool pk_perfdata_has_feat(const struct pk_perfdata *pd, int feat);
PK_API int pk_perfdata_feat_raw(const struct pk_perfdata *pd, int feat,
				const void **data, uint64_t *size);
/* Name of a feature ("hostname", "build_id", ...) or NULL. */
PK_API const char *pk_perfdata_feat_name(int feat);
/* String features (HOSTNAME OSRELEASE VERSION ARCH CPUDESC CPUID), else
 * NULL. */
PK_API const char *pk_perfdata_feat_str(const struct pk_perfdata *pd,
					int feat);
/* Numbers: NRCPUS (0 online, 1 available), TOTAL_MEM (0: kB), SAMPLE_TIME
 * (0 first, 1 last), CLOCKID (0), COMPRESSED (0 version, 1 type, 2 level,
 * 3 ratio, 4 mmap_len), CLOCK_DATA (0 version, 1 clockid, 2 wall_ns,
 * 3 clockid_ns). 0, -ENOENT (absent) or -ERANGE (no such index). */
PK_API int pk_perfdata_feat_u64(const struct pk_perfdata *pd, int feat,
				unsigned idx, uint64_t *val);
/* String lists: CMDLINE (list 0); CPU_TOPOLOGY (0 core siblings,
 * 1 thread siblings, 2 die siblings). Returns the count, *V borrowed. */
PK_API unsigned pk_perfdata_feat_strv(const struct pk_perfdata *pd, int feat,
				      unsigned list, const char *const **v);
/* perf's --header text of one feature ("# hostname : vm\n"...), into a
 * caller buffer with snprintf semantics (returns the length it needed),
 * or -ENOENT when the feature is absent. */
PK_API int pk_perfdata_feat_describe(const struct pk_perfdata *pd, int feat,
				     char *buf, size_t len);
/* The same as perf -I (--show-info) prints it: the topology features
 * (CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE, MEM_TOPOLOGY, HYBRID_TOPOLOGY) in
 * full rather than as "# CPU_TOPOLOGY info available, use -I to display". */
PK_API int pk_perfdata_feat_describe_full(const struct pk_perfdata *pd,
					  int feat, char *buf, size_t len);

/* Build ids from HEADER_BUILD_ID (file) and BUILD_ID records (pipe). */
struct pk_build_id {
	uint16_t misc;
	int32_t pid;
	uint8_t id[20];
	uint8_t id_size;     /* 20 unless the record gave a size */
	const char *filename;
};
PK_API unsigned pk_perfdata_nr_build_ids(const struct pk_perfdata *pd);
PK_API int pk_perfdata_build_id(const struct pk_perfdata *pd, unsigned idx,
				struct pk_build_id *bid);

/* A decoded sample (or a non-sample record's sample_id trailer). Array
 * fields point into the record (borrowed). */
struct pk_sample {
	uint64_t sample_type; /* the attr's, i.e. which fields are valid */
	uint64_t id, ip, time, addr, stream_id, period;
	uint32_t pid, tid, cpu, cpu_res;
	struct {
		uint64_t time_enabled, time_running;
		uint64_t nr;        /* entries in values */
		unsigned stride;    /* u64s per entry: value [id] [lost] */
		const uint64_t *values; /* non-group reads: points to one */
		uint64_t read_format;
		uint64_t one[3];
	} read;
	struct { uint64_t nr; const uint64_t *ips; } callchain;
	struct { uint32_t size; const void *data; } raw;
	struct {
		uint64_t nr, hw_idx;
		bool has_hw_idx;
		const struct perf_branch_entry *entries;
	} branch;
	struct {
		uint64_t abi, mask;
		unsigned nr;
		const uint64_t *regs;
	} regs_user, regs_intr;
	struct { uint64_t size, dyn_size; const void *data; } stack_user;
	uint64_t weight;        /* WEIGHT, or WEIGHT_STRUCT's whole u64 */
	uint64_t data_src, transaction, phys_addr, cgroup;
	struct { uint64_t size; const void *data; } aux;
	uint64_t data_page_size, code_page_size;
	/* not in the record: the guest machine (its pid on the host, 0 for
	 * the host) and VCPU of the record's id, from an ID_INDEX entry's
	 * machine_pid/vcpu extension (pk_sample_parse only) */
	uint32_t machine_pid, vcpu;
};

/*
 * Decodes a record against its attribute: for PERF_RECORD_SAMPLE every
 * field of the attr's sample_type; for other kernel records with
 * sample_id_all the trailer (pid/tid/time/id/stream_id/cpu). 0,
 * PK_ERR_TRUNC (record too short for its fields, error text in
 * pk_perfdata_errmsg()), PK_ERR_FORMAT (bad counts), -ENOENT (no attr).
 */
PK_API int pk_sample_parse(struct pk_perfdata *pd, const struct pk_record *rec,
			   struct pk_sample *s);
/* Same without a reader: ATTR gives the layout; REC is host order. */
PK_API int pk_sample_decode(const struct perf_event_attr *attr,
			    const struct perf_event_header *rec,
			    struct pk_sample *s);

/*
 * Encoders (for tests and recorders). pk_sample_encode() writes a whole
 * PERF_RECORD_SAMPLE for ATTR's sample_type from S (array fields read
 * through their pointers) with header misc MISC. pk_sample_id_encode()
 * writes only the sample_id_all trailer for non-sample records. Both
 * return the bytes written (multiple of 8), -ENOSPC when CAP is too small,
 * -ERANGE when the record would exceed 65535 bytes.
 */
PK_API long pk_sample_encode(const struct perf_event_attr *attr,
			     const struct pk_sample *s, uint16_t misc,
			     void *buf, size_t cap);
PK_API long pk_sample_id_encode(const struct perf_event_attr *attr,
				const struct pk_sample *s, void *buf,
				size_t cap);

/*
 * The records perf record writes before the data (their readers:
 * pk_record_describe). Each encoder writes one whole record into BUF of
 * CAP bytes and returns its size, -ENOSPC when CAP is too small, -ERANGE
 * past 65535 bytes, -EINVAL for a NULL or empty input.
 *
 * PERF_RECORD_ID_INDEX: NR entries (at most PK_ID_INDEX_MAX a record;
 * perf splits longer lists the same way). idx is the ring (mmap) index:
 * the CPU's place in the CPU map, or the thread's with per-thread rings.
 */
struct pk_id_index_entry {
	uint64_t id, idx;
	int64_t cpu, tid;    /* -1: any */
};
/* The extension perf inject --guest-data writes: an array of these after
 * the NR entries (a record of 16 + NR * 48 bytes). machine_pid 0: host. */
struct pk_id_index_guest {
	uint64_t machine_pid, vcpu;
};
/* Entry I of an ID_INDEX record of SIZE bytes at P (host order): *E and,
 * where the record has the extension, *G (else zeroed). 0, -EINVAL when
 * the record has no entry I. */
PK_API int pk_record_id_index_entry(const void *p, size_t size, uint64_t i,
				    struct pk_id_index_entry *e,
				    struct pk_id_index_guest *g);
#define PK_ID_INDEX_MAX 2047
PK_API long pk_record_id_index_encode(const struct pk_id_index_entry *e,
				      size_t nr, void *buf, size_t cap);
/* The same with the guest extension G (NR entries, at most
 * PK_ID_INDEX_GUEST_MAX; G NULL: none, as pk_record_id_index_encode). */
#define PK_ID_INDEX_GUEST_MAX 1364
PK_API long pk_record_id_index_guest_encode(const struct pk_id_index_entry *e,
					    const struct pk_id_index_guest *g,
					    size_t nr, void *buf, size_t cap);
/* PERF_RECORD_THREAD_MAP: each thread's tid, the comm left empty as perf
 * record leaves it. */
struct pk_thread_map;
struct pk_cpu_map;
PK_API long pk_record_thread_map_encode(const struct pk_thread_map *map,
					void *buf, size_t cap);
/* PERF_RECORD_CPU_MAP in perf's smallest form: a range for consecutive
 * CPUs (with the any-CPU flag), else a CPU list or a 32-bit mask. */
PK_API long pk_record_cpu_map_encode(const struct pk_cpu_map *map,
				     void *buf, size_t cap);

/* PERF_RECORD_EVENT_UPDATE: one thing perf learnt of the event whose
 * first id is ID: its unit or name (STR), its scale (SCALE) or its own
 * CPUs (CPUS, in the CPU_MAP record's form). Sizes as perf's: 40 bytes
 * plus the string and its NUL (8-aligned), 48 for a scale. */
enum {
	PK_EVENT_UPDATE_UNIT = 0, PK_EVENT_UPDATE_SCALE = 1,
	PK_EVENT_UPDATE_NAME = 2, PK_EVENT_UPDATE_CPUS = 3,
};
struct pk_event_update {
	int type;                      /* PK_EVENT_UPDATE_* */
	uint64_t id;
	const char *str;               /* UNIT, NAME */
	double scale;                  /* SCALE */
	const struct pk_cpu_map *cpus; /* CPUS */
};
PK_API long pk_record_event_update_encode(const struct pk_event_update *u,
					  void *buf, size_t cap);

/* PERF_RECORD_KSYMBOL (a kernel symbol: a BPF program's function) and
 * PERF_RECORD_BPF_EVENT (a program loaded or unloaded), as perf record
 * synthesizes them for the programs loaded when it starts: ID_HDR zero
 * bytes of sample_id trailer after the body. The name is cut at 511
 * bytes (perf's KSYM_NAME_LEN). Decoders: 0, or -EINVAL for a record of
 * another type or too short (NAME points into the record, which must
 * hold a NUL). */
struct pk_ksymbol {
	uint64_t addr;
	uint32_t len;
	uint16_t type;       /* PERF_RECORD_KSYMBOL_TYPE_* */
	uint16_t flags;      /* PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER */
	const char *name;
};
struct pk_bpf_event {
	uint16_t type;       /* PERF_BPF_EVENT_PROG_LOAD / _UNLOAD */
	uint16_t flags;
	uint32_t id;
	uint8_t tag[8];
};
PK_API long pk_record_ksymbol_encode(const struct pk_ksymbol *k,
				     size_t id_hdr, void *buf, size_t cap);
PK_API long pk_record_bpf_event_encode(const struct pk_bpf_event *e,
				       size_t id_hdr, void *buf, size_t cap);
PK_API int pk_record_ksymbol_decode(const struct perf_event_header *rec,
				    struct pk_ksymbol *k);

/*
 * HEADER_BPF_PROG_INFO: a u32 count, then per program perf 6.1's
 * bpf_prog_info_linear: u32 info_len, u32 data_len, u64 arrays (the
 * bits of the arrays kept: perf's BPIL_* order, jited insns 0 ... prog
 * tags 8), info_len bytes of the kernel's struct bpf_prog_info whose kept
 * arrays' pointers are offsets into the data, then data_len bytes of
 * those arrays (each 8-aligned). HEADER_BPF_BTF: a u32 count, then per
 * BTF object u32 id, u32 size and its raw bytes. Both sorted by id.
 */
struct pk_bpf_prog_entry {
	uint32_t info_len, data_len;
	uint64_t arrays;
	const void *info, *data;
};
/* One entry into BUF: its size, -ENOSPC when CAP is too small. */
PK_API long pk_bpf_prog_entry_encode(const struct pk_bpf_prog_entry *e,
				     void *buf, size_t cap);
/* The entry at *OFF of a BPF_PROG_INFO body of SIZE bytes (*OFF 4: the
 * first), pointing into the body; *OFF moves past it. 0, -ENOENT at the
 * end, -EINVAL when cut short. */
PK_API int pk_bpf_prog_entry_decode(const void *body, size_t size,
				    size_t *off, struct pk_bpf_prog_entry *e);
/* The program's id and its number of functions (jited ksyms; 0 when the
 * counts of ksyms, lengths and tags differ, as perf then names none). */
PK_API uint32_t pk_bpf_prog_id(const struct pk_bpf_prog_entry *e);
PK_API uint32_t pk_bpf_prog_nr_funcs(const struct pk_bpf_prog_entry *e);
/* Function SUB's address, length and perf's name in NAME (LEN bytes):
 * "bpf_prog_<tag>" then "_<BTF func name>" with BTF (the program's BTF
 * object, BTF_SIZE bytes, or NULL), else "_<prog name>" for a program
 * of one function (none when unnamed), else "_F". 0 or -EINVAL. */
PK_API int pk_bpf_prog_func(const struct pk_bpf_prog_entry *e, uint32_t sub,
			    const void *btf, size_t btf_size, uint64_t *addr,
			    uint32_t *len, char *name, size_t name_len);
/* The program's BTF object id (0: none). */
PK_API uint32_t pk_bpf_prog_btf_id(const struct pk_bpf_prog_entry *e);
/* The BTF object ID in a BPF_BTF body of SIZE bytes: 0 with *BTF and
 * *BTF_SIZE set, -ENOENT, -EINVAL when cut short. */
PK_API int pk_bpf_btf_find(const void *body, size_t size, uint32_t id,
			   const void **btf, size_t *btf_size);

/* PERF_RECORD_TIME_CONV: the TSC to perf time conversion of a control
 * page with cap_user_time_zero (perf record writes it first, ahead of
 * ID_INDEX, from its first ring's page). 56 bytes as perf 6.1 writes it;
 * the 32-byte form of older perfs has only shift, multiplier and zero. */
struct pk_time_conv {
	uint64_t time_shift, time_mult, time_zero, time_cycles, time_mask;
	bool cap_user_time_zero, cap_user_time_short;
};
PK_API long pk_record_time_conv_encode(const struct pk_time_conv *tc,
				       void *buf, size_t cap);
/* Reads a TIME_CONV record into TC (the fields it lacks 0): 0, -EINVAL
 * for another record or a NULL, -EBADMSG for one shorter than 32 bytes. */
PK_API int pk_record_time_conv_parse(const struct perf_event_header *h,
				     struct pk_time_conv *tc);
/* The conversion a control page holds, read under its lock: 0, or
 * -EOPNOTSUPP when the page lacks cap_user_time_zero (TC is filled all
 * the same, as the kernel left the fields), -EINVAL for a NULL, -EAGAIN
 * when the kernel kept the page locked. */
PK_API int pk_time_conv_read(const struct perf_event_mmap_page *pc,
			     struct pk_time_conv *tc);

/* Name of a record type ("MMAP", "SAMPLE", "FINISHED_ROUND"), or NULL. */
PK_API const char *pk_record_name(uint32_t type);
/*
 * perf report -D's text for a record, after "TIME OFFSET [SIZE]: ":
 * "PERF_RECORD_COMM: demo:6049/6049" and the detail lines perf prints
 * under it (callchain, branch stack...), '\n'-terminated. snprintf
 * semantics; returns the length needed.
 */
PK_API int pk_record_describe(struct pk_perfdata *pd,
			      const struct pk_record *rec, char *buf,
			      size_t len);

/*
 * Fixes the header of a file whose writer was killed (data size 0 or past
 * the end of the file): data_size is set to the complete records (a cut
 * last record is left out) and the feature bitmap cleared, so that Linux
 * perf reads it. A complete file is left alone (0, *DATA_SIZE untouched).
 * 0, -EINVAL (pipe-mode file), or -errno.
 */
PK_API int pk_perfdata_repair(const char *path, uint64_t *data_size);

/* ---- writer ---- */

struct pk_pdwriter;

struct pk_pdwriter_opts {
	size_t sz;
	bool pipe;           /* pipe-mode layout */
	/* Write the other byte order (for tests of readers): records, attrs
	 * and the HOSTNAME..CPUID, NRCPUS, TOTAL_MEM, CMDLINE, SAMPLE_TIME,
	 * CLOCKID features; other features are left out. Not combined with
	 * compression. */
	bool other_endian;
};

/* Creates (truncates) PATH, or uses FD (pk_pdwriter_open_fd, not closed).
 * NULL and errno on failure. In file mode the header is written at once
 * with data size 0 ("to the end of the file" for perfkit's reader) so a
 * killed writer leaves a readable file; pk_pdwriter_close() fixes it. */
PK_API struct pk_pdwriter *pk_pdwriter_open(const char *path,
					    const struct pk_pdwriter_opts *opts);
PK_API struct pk_pdwriter *pk_pdwriter_open_fd(int fd,
					       const struct pk_pdwriter_opts *opts);
/* Adds an attribute with its sample ids and name (NULL: none) before the
 * first record. Returns its index or -EINVAL (after records), -ENOMEM. */
PK_API int pk_pdwriter_add_attr(struct pk_pdwriter *w,
				const struct perf_event_attr *attr,
				const uint64_t *ids, unsigned nr_ids,
				const char *name);
/* Sets a feature to write at close: strings for HOSTNAME OSRELEASE
 * VERSION ARCH CPUDESC CPUID; raw section bytes for any feature
 * (pk_pdwriter_feat_raw, in host order). CMDLINE from argv, NRCPUS,
 * TOTAL_MEM, CLOCKID, SAMPLE_TIME from numbers. EVENT_DESC is written from
 * the attrs. 0 or -EINVAL / -ENOMEM. */
PK_API int pk_pdwriter_feat_str(struct pk_pdwriter *w, int feat,
				const char *s);
PK_API int pk_pdwriter_feat_raw(struct pk_pdwriter *w, int feat,
				const void *data, size_t size);
PK_API int pk_pdwriter_feat_cmdline(struct pk_pdwriter *w, int argc,
				    char *const *argv);
PK_API int pk_pdwriter_feat_u64(struct pk_pdwriter *w, int feat,
				const uint64_t *vals, unsigned nr);
/* CPU_TOPOLOGY from sibling lists (cores/threads as "0-1" strings). */
PK_API int pk_pdwriter_feat_topology(struct pk_pdwriter *w,
				     const char *const *cores, unsigned nr_cores,
				     const char *const *threads,
				     unsigned nr_threads);
/* Adds a build id (HEADER_BUILD_ID at close). */
PK_API int pk_pdwriter_add_build_id(struct pk_pdwriter *w,
				    const struct pk_build_id *bid);
/* Fills HOSTNAME OSRELEASE ARCH VERSION NRCPUS CPUDESC CPUID TOTAL_MEM
 * CLOCKID(monotonic) CPU_TOPOLOGY NUMA_TOPOLOGY and (pk_pdwriter_feat_caches)
 * CACHE MEM_TOPOLOGY from this machine. */
PK_API int pk_pdwriter_feat_host(struct pk_pdwriter *w);
/* HEADER_CACHE and HEADER_MEM_TOPOLOGY as perf record writes them, from
 * SYSFS's devices/system (NULL: /sys): every CPU's caches (CPUs 0 to
 * sysconf's configured count), duplicates dropped, by level; the memory
 * block size and each node's memoryN blocks. A feature whose files cannot
 * be read is left out, as perf does. 0, or -EINVAL / -ENOMEM. */
PK_API int pk_pdwriter_feat_caches(struct pk_pdwriter *w, const char *sysfs);
/* HEADER_COMPRESSED: version 0, zstd, LEVEL, RATIO (bytes in over bytes
 * out, 0 when unknown: a pipe's features come before the data) and
 * MMAP_LEN (the size perf's reader gives its decompression buffer).
 * pk_pdwriter_set_compression's writer adds it at close by itself.
 * 0 or -EINVAL / -ENOMEM. */
PK_API int pk_pdwriter_feat_compressed(struct pk_pdwriter *w, int level,
				       uint32_t ratio, uint32_t mmap_len);
/* HEADER_PMU_MAPPINGS: NR PMUs' types and names. 0 or -ENOMEM/-EINVAL. */
PK_API int pk_pdwriter_feat_pmu_mappings(struct pk_pdwriter *w, int nr,
					 const uint32_t *types,
					 const char *const *names);
/* HEADER_PMU_CAPS, a PMU at a time: PMU NULL starts the section with no
 * PMU (perf writes it so); each PMU appends its NR caps NAMES[i] =
 * VALUES[i] and its name, and counts one more. 0 or -ENOMEM/-EINVAL. */
PK_API int pk_pdwriter_feat_pmu_caps(struct pk_pdwriter *w, const char *pmu,
				     int nr, const char *const *names,
				     const char *const *values);
/* HEADER_CPU_PMU_CAPS: the "cpu" PMU's NR caps NAMES[i] = VALUES[i] (u32
 * count, then the strings; no PMU name). 0 or -ENOMEM/-EINVAL. */
PK_API int pk_pdwriter_feat_cpu_pmu_caps(struct pk_pdwriter *w, int nr,
					 const char *const *names,
					 const char *const *values);
/* Pipe mode, before the first record: writes the attrs and the features
 * set so far as perf's pipe mode does (HEADER_FEATURE records, unpadded,
 * EVENT_DESC from the attrs, none for BUILD_ID, CACHE and AUXTRACE, then
 * a HEADER_LAST_FEATURE record), then TRACING_DATA; features set later
 * are not written. 0, -EINVAL (a file, or records already written) or
 * -errno. */
PK_API int pk_pdwriter_write_features(struct pk_pdwriter *w);
/* Appends one record (host order; hdr->size bytes, plus EXTRA bytes of
 * trailing payload for AUXTRACE / TRACING_DATA). 0 or -errno. */
PK_API int pk_pdwriter_write(struct pk_pdwriter *w,
			     const struct perf_event_header *rec,
			     const void *extra, size_t extra_size);
/* The fields of a PERF_RECORD_AUXTRACE after its size (perf's names). */
struct pk_auxtrace_hdr {
	uint64_t offset;     /* where the bytes begin in the AUX area's count */
	uint64_t reference;  /* perf: the TSC when read (Intel PT) */
	uint32_t idx;        /* the ring (mmap) index */
	uint32_t tid;        /* per-thread ring: its thread; per-CPU: the
				first thread of the target, or -1 */
	uint32_t cpu;        /* per-CPU ring: its CPU, else -1 */
};
/*
 * Appends a PERF_RECORD_AUXTRACE of the N1 + N2 bytes at P1 and P2 (two
 * pieces for AUX bytes that wrap the end of the area; N2 may be 0), zero-
 * padded to 8 bytes, the record's size field counting the padding, as perf
 * record writes them. They are never compressed (perf writes AUX data as
 * it is). In file mode the writer keeps perf's AUXTRACE index (file offset
 * and header size of each such record) and writes it as HEADER_AUXTRACE
 * at close unless that feature was set. 0 or -errno (-EINVAL for NULL
 * pieces with sizes).
 */
PK_API int pk_pdwriter_write_auxtrace(struct pk_pdwriter *w,
				      const struct pk_auxtrace_hdr *hdr,
				      const void *p1, size_t n1,
				      const void *p2, size_t n2);
/*
 * Compresses every record written from now on with zstd at LEVEL (1..22)
 * into PERF_RECORD_COMPRESSED records, as perf record -z does, and adds
 * HEADER_COMPRESSED at close (MMAP_LEN: the recorder's ring size, which
 * perf's reader uses to size its buffer). 0 or -EINVAL / -ENOMEM.
 */
PK_API int pk_pdwriter_set_compression(struct pk_pdwriter *w, int level,
				       uint32_t mmap_len);
/* Flushes buffered records to the file (what a crash keeps). */
PK_API int pk_pdwriter_flush(struct pk_pdwriter *w);
/* Writes features and the final header; frees W. 0 or -errno. */
PK_API int pk_pdwriter_close(struct pk_pdwriter *w);

#ifdef __cplusplus
}
#endif
#endif
