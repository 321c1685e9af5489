/* SPDX-License-Identifier: MIT */
/* PERF_RECORD_AUXTRACE records and perf's AUXTRACE index. */
#include <errno.h>
#include <string.h>
#include "base/base.h"
#include "perfdata/wr.h"

#define AUXTRACE_HDR 48

static void make_rec(unsigned char rec[AUXTRACE_HDR],
		     const struct pk_auxtrace_hdr *h, uint64_t size)
{
	struct perf_event_header eh = { .type = PK_RECORD_AUXTRACE,
					.size = AUXTRACE_HDR };
	uint32_t u32[4] = { h->idx, h->tid, h->cpu, 0 };

	memcpy(rec, &eh, 8);
	memcpy(rec + 8, &size, 8);
	memcpy(rec + 16, &h->offset, 8);
	memcpy(rec + 24, &h->reference, 8);
	memcpy(rec + 32, u32, 16);
}

/* The other byte order goes through the record writer, in one piece. */
static int write_joined(struct pk_pdwriter *w, const unsigned char *rec,
			const void *p1, size_t n1, const void *p2, size_t n2)
{
	char *j = pk__malloc(n1 + n2 ? n1 + n2 : 1);
	int r;

	if (!j)
		return -ENOMEM;
	memcpy(j, p1, n1);
	if (n2)
		memcpy(j + n1, p2, n2);
	r = pk_pdwriter_write(w, (const struct perf_event_header *)rec, j,
			      n1 + n2);
	pk__free(j);
	return r;
}

static int note_index(struct pk_pdwriter *w)
{
	uint64_t e[2] = { w->data_off + w->data_size, AUXTRACE_HDR };

	if (w->pipe)
		return 0;
	return pk__buf_append(&w->auxidx, e, sizeof(e)) ? -ENOMEM : 0;
}

int pk_pdwriter_write_auxtrace(struct pk_pdwriter *w,
			       const struct pk_auxtrace_hdr *h,
			       const void *p1, size_t n1,
			       const void *p2, size_t n2)
{
	static const char zero[8];
	unsigned char rec[AUXTRACE_HDR];
	uint64_t pad = (8 - (n1 + n2) % 8) % 8;
	int r;

	if (!w || !h || (n1 && !p1) || (n2 && !p2))
		return -EINVAL;
	make_rec(rec, h, n1 + n2 + pad);
	/* what was compressed so far goes first: the order stays */
	if ((r = pk__wr_start(w)) || (r = pk__wr_z_flush(w)) ||
	    (r = note_index(w)))
		return r;
	if (w->swap)
		return write_joined(w, rec, p1, n1, p2, n2);
	if ((r = pk__wr_out(w, rec, sizeof(rec))) ||
	    (n1 && (r = pk__wr_out(w, p1, n1))) ||
	    (n2 && (r = pk__wr_out(w, p2, n2))) ||
	    (pad && (r = pk__wr_out(w, zero, pad))))
		return r;
	w->data_size += AUXTRACE_HDR + n1 + n2 + pad;
	return w->pipe ? 0 : pk__wr_flush_data(w);
}

/* perf's index feature: the number of entries, then (offset, size)
 * pairs. */
int pk__wr_aux_feature(struct pk_pdwriter *w)
{
	uint64_t nr = w->auxidx.len / 16;
	struct pk_buf *b = &w->feat[PK_HEADER_AUXTRACE];

	if (!nr || w->has_feat[PK_HEADER_AUXTRACE])
		return 0;
	if (pk__buf_append(b, &nr, 8) ||
	    pk__buf_append(b, w->auxidx.data, w->auxidx.len))
		return -ENOMEM;
	w->has_feat[PK_HEADER_AUXTRACE] = true;
	return 0;
}
