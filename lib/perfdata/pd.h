/* SPDX-License-Identifier: MIT */
/* Internal perf.data layer: reader state shared by its files. */
#ifndef PK_PERFDATA_PD_H
#define PK_PERFDATA_PD_H

#include <byteswap.h>
#include <perfkit/perfdata.h>
#include "base/base.h"
#include "base/hash.h"

#define PK_PD_MAGIC     0x32454c4946524550ULL /* "PERFILE2" little endian */
#define PK_PD_MAGIC_SW  0x50455246494c4532ULL
#define PK_PD_HDR_SIZE  104
#define PK_PD_PIPE_SIZE 16
#define PK_PD_FEAT_BITS 256

struct pd_attr {
	union {
		struct perf_event_attr attr;
		unsigned char raw[PK_ATTR_MAX];
	};
	uint64_t *ids;
	unsigned nr_ids;
	char *name;
	char *auto_name;        /* made from the attr when NAME is NULL */
	bool added;             /* by pk_perfdata_add_attr, not the file's */
};

struct pd_qent {           /* ordered queue entry */
	uint64_t time, seq, offset;
	const struct perf_event_header *hdr;
	const void *extra;
	uint64_t extra_size;
	int attr;
	bool compressed;
};

struct pd_feat {
	bool present;
	const unsigned char *data; /* file byte order */
	uint64_t size, offset;
};

struct pd_chunk {          /* memory owned by the reader */
	struct pd_chunk *next;
	unsigned char data[];
};

struct pk_perfdata {
	char *name;
	char *dir;                 /* the directory opened (its DIR/data) */
	const unsigned char *buf;  /* whole input */
	size_t size;
	void *map;                 /* mmap base, or NULL */
	unsigned char *owned;      /* read-in input to free */
	bool pipe, swapped, file_order;
	uint64_t attr_size, attrs_off, attrs_size;
	uint64_t data_off, data_size, data_size_hdr, feat_off;
	bool data_to_eof;
	uint64_t feat_bits[PK_PD_FEAT_BITS / 64];
	struct pd_feat feat[PK_HEADER_MAX];
	/* attributes and ids */
	struct pd_attr *attrs;
	unsigned nr_attrs;
	struct pk__hash ids;       /* sample id -> attr index */
	/* sample id -> machine_pid << 32 | vcpu, for ids whose ID_INDEX
	 * entry names a guest machine (perf inject --guest-data) */
	struct pk__hash guest_ids;
	int id_pos, id_pos_tail;   /* position of id in samples / trailers */
	/* read position */
	uint64_t pos, end;
	int err;
	char errmsg[256];
	uint64_t err_off;
	unsigned nr_warn;
	/* compressed stream */
	void *zstd;
	unsigned char *zbuf;       /* decompressed records being walked */
	size_t zlen, zpos, zcap;
	uint64_t zoff;             /* offset of the COMPRESSED record */
	unsigned char *zpend;      /* partial record carried across */
	/* ordered queue */
	struct pd_qent *q;
	size_t qlen, qcap, qhead;  /* qhead: first undelivered of a flush */
	size_t qflush;             /* entries [qhead, qflush) are ready */
	struct pd_qent *qtmp;      /* q_sort's merge buffer */
	size_t qtmpcap;
	uint64_t seq, max_time, next_flush, last_flush;
	bool eof;
	struct pd_chunk *chunks;   /* copies (swapped, compressed) */
	unsigned char *swapbuf;
	size_t swapcap;
	/* parsed features */
	char *str_feat[PK_HEADER_MAX];
	uint64_t u64_feat[PK_HEADER_MAX][5];
	unsigned nr_u64_feat[PK_HEADER_MAX];
	char **strv[PK_HEADER_MAX][3];
	unsigned nr_strv[PK_HEADER_MAX][3];
	struct pk_build_id *bids;
	unsigned nr_bids;
	char *cbuf;                /* scratch for describe */
	size_t ccap;
};

/* Byte order helpers. */
static inline uint16_t pd16(const struct pk_perfdata *pd, uint16_t v)
{ return pd->swapped ? bswap_16(v) : v; }
static inline uint32_t pd32(const struct pk_perfdata *pd, uint32_t v)
{ return pd->swapped ? bswap_32(v) : v; }
static inline uint64_t pd64(const struct pk_perfdata *pd, uint64_t v)
{ return pd->swapped ? bswap_64(v) : v; }
static inline uint64_t rd64(const void *p)
{ uint64_t v; __builtin_memcpy(&v, p, 8); return v; }
static inline uint32_t rd32(const void *p)
{ uint32_t v; __builtin_memcpy(&v, p, 4); return v; }

/* reader.c */
int pk__pd_fail(struct pk_perfdata *pd, int err, uint64_t off, const char *fmt,
	    ...) PK_PRINTF(4, 5);
void pk__pd_warn(struct pk_perfdata *pd, const char *fmt, ...) PK_PRINTF(2, 3);
void *pk__pd_keep(struct pk_perfdata *pd, const void *src, size_t n);
int pk__pd_add_attr(struct pk_perfdata *pd, const void *attr, uint64_t size,
		const uint64_t *ids, unsigned nr_ids, bool swap_ids);
int pk__pd_add_id(struct pk_perfdata *pd, uint64_t id, int attr);
void pk__pd_swap_attr(void *attr, size_t size);
int pk__pd_record_attr(struct pk_perfdata *pd, const struct perf_event_header *h);
void pk__pd_compute_id_pos(struct pk_perfdata *pd);

/* feature.c */
int pk__pd_parse_feat(struct pk_perfdata *pd, int feat);
void pk__pd_free_feats(struct pk_perfdata *pd);
int pk__pd_add_build_id(struct pk_perfdata *pd, const unsigned char *p,
		    uint64_t size, uint64_t off);

/* swap.c */
void pk__pd_swap_record(struct pk_perfdata *pd, struct perf_event_header *h);
void pk__pd_swap_any(unsigned char *p, const struct perf_event_attr *(*attr)(
			 void *, const struct perf_event_header *), void *arg,
		 bool to_host);

/* sample.c */
int pk__pd_sample_decode(const struct perf_event_attr *attr,
		     const struct perf_event_header *h, struct pk_sample *s,
		     char *err, size_t errlen);
uint64_t pk__pd_record_time(struct pk_perfdata *pd,
			const struct perf_event_header *h, int *attr);

/* compress.c */
int pk__pd_decompress(struct pk_perfdata *pd, const struct perf_event_header *h,
		  uint64_t off);
void pk__pd_zfree(struct pk_perfdata *pd);

/* sbuf.c: snprintf into a fixed buffer, counting what did not fit (the
 * describers return the length the whole text needs). */
struct pd_sb {
	char *buf;
	size_t len, pos;
};
void pk__pd_sbf(struct pd_sb *s, const char *fmt, ...) PK_PRINTF(2, 3);

/* ftopo.c: perf's -I text of CPU_TOPOLOGY, NUMA_TOPOLOGY, CACHE,
 * MEM_TOPOLOGY and HYBRID_TOPOLOGY; 0, -ENOMEM, or -ENOENT for another
 * feature. */
int pk__pd_describe_topo(const struct pk_perfdata *pd, int feat,
			 struct pd_sb *s);

#endif
