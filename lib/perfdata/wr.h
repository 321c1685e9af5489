/* SPDX-License-Identifier: MIT */
/* Internal perf.data writer state. */
#ifndef PK_PERFDATA_WR_H
#define PK_PERFDATA_WR_H

#include "perfdata/pd.h"

struct wr_attr {
	struct perf_event_attr attr;
	uint64_t *ids;
	unsigned nr_ids;
	uint64_t ids_off;
	char *name;
};

struct pk_pdwriter {
	int fd;
	bool own_fd, pipe, started, swap;
	bool feat_early;                   /* pipe features already written */
	unsigned char *sbuf;               /* a record in the other order */
	int err;
	struct wr_attr *attrs;
	unsigned nr_attrs;
	uint64_t attr_size, attrs_off, data_off, data_size, pos;
	uint64_t feat_bits[4];
	struct pk_buf buf;                 /* records not yet written */
	struct pk_buf feat[PK_HEADER_MAX]; /* feature sections */
	bool has_feat[PK_HEADER_MAX];
	/* zstd compression of records into PERF_RECORD_COMPRESSED */
	void *zcs;                         /* ZSTD_CStream, NULL when off */
	struct pk_buf zbuf;                /* records waiting to be compressed */
	int zlevel;
	uint32_t zmmap_len;
	uint64_t zin, zout;                /* bytes before and after */
	struct pk_buf auxidx;              /* AUXTRACE index: offset, size */
};

/* wrswap.c: the other byte order */
void pk__wr_swap_u64s(void *p, size_t n);
int pk__wr_swap_record(struct pk_pdwriter *w, const struct perf_event_header *h,
		   const void **out);
bool pk__wr_swap_feat(int feat, struct pk_buf *b);

/* wrout.c: the buffered output. pk__wr_emit appends one record as it
 * stands; pk__wr_out appends bytes; pk__wr_drain writes the buffer out;
 * pk__wr_flush_data also updates the header's data size (files). 0 or the
 * writer's first error. */
int pk__wr_emit(struct pk_pdwriter *w, const struct perf_event_header *rec,
	    const void *extra, size_t extra_size);
int pk__wr_out(struct pk_pdwriter *w, const void *p, size_t n);
int pk__wr_drain(struct pk_pdwriter *w);
int pk__wr_flush_data(struct pk_pdwriter *w);

/* wrzstd.c */
int pk__wr_z_add(struct pk_pdwriter *w, const struct perf_event_header *rec,
	     const void *extra, size_t extra_size);
int pk__wr_z_flush(struct pk_pdwriter *w);
/* Sets HEADER_COMPRESSED from what was compressed (at close). */
int pk__wr_z_feature(struct pk_pdwriter *w);
void pk__wr_z_fini(struct pk_pdwriter *w);

/* writer.c: writes the header or pipe preamble once. 0 or -errno. */
int pk__wr_start(struct pk_pdwriter *w);

/* wraux.c: HEADER_AUXTRACE from the index, at close (files). */
int pk__wr_aux_feature(struct pk_pdwriter *w);

/* wrfeat.c */
int pk__wr_feat_event_desc(struct pk_pdwriter *w);
/* perf's header string: u32 length (NUL included, padded to 64), the
 * bytes. 0 or -ENOMEM. */
int pk__wr_put_str(struct pk_buf *b, const char *s);

#endif
