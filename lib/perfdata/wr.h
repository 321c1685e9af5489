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
	bool own_fd, pipe, started;
	int err;
	struct wr_attr *attrs;
	unsigned nr_attrs;
	uint64_t attr_size, attrs_off, data_off, data_size, pos;
	uint64_t feat_bits[4];
	struct pk_buf buf;                 /* records not yet written */
	struct pk_buf feat[PK_HEADER_MAX]; /* feature sections */
	bool has_feat[PK_HEADER_MAX];
};

/* wrfeat.c */
int wr_feat_event_desc(struct pk_pdwriter *w);

#endif
