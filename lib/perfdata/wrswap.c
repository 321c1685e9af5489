/* SPDX-License-Identifier: MIT */
/* perf.data writer: the other byte order (pk_pdwriter_opts.other_endian). */
#include <errno.h>
#include <string.h>
#include "perfdata/wr.h"

void pk__wr_swap_u64s(void *p, size_t n)
{
	uint64_t *q = p;

	for (size_t i = 0; i < n; i++)
		q[i] = bswap_64(q[i]);
}

/* The attr a host-order record belongs to: the IDENTIFIER when there is
 * one, else the first (tests use one layout). */
static const struct perf_event_attr *wr_attr(void *arg,
					     const struct perf_event_header *h)
{
	struct pk_pdwriter *w = arg;
	uint64_t id;

	if (!w->nr_attrs)
		return NULL;
	if (w->nr_attrs > 1 &&
	    (w->attrs[0].attr.sample_type & PERF_SAMPLE_IDENTIFIER) &&
	    h->size >= 16) {
		id = h->type == PERF_RECORD_SAMPLE ?
			rd64((const char *)h + 8) :
			rd64((const char *)h + h->size - 8);
		for (unsigned i = 0; i < w->nr_attrs; i++)
			for (unsigned k = 0; k < w->attrs[i].nr_ids; k++)
				if (w->attrs[i].ids[k] == id)
					return &w->attrs[i].attr;
	}
	return &w->attrs[0].attr;
}

int pk__wr_swap_record(struct pk_pdwriter *w, const struct perf_event_header *h,
		   const void **out)
{
	if (!w->swap) {
		*out = h;
		return 0;
	}
	if (!w->sbuf) {
		w->sbuf = pk__malloc(65536);
		if (!w->sbuf)
			return -ENOMEM;
	}
	memcpy(w->sbuf, h, h->size);
	pk__pd_swap_any(w->sbuf, wr_attr, w, false);
	*out = w->sbuf;
	return 0;
}

/* Converts a feature section; false when it is left out. */
bool pk__wr_swap_feat(int feat, struct pk_buf *b)
{
	unsigned char *p = (unsigned char *)b->data;
	size_t o = 0;

	switch (feat) {
	case PK_HEADER_HOSTNAME: case PK_HEADER_OSRELEASE:
	case PK_HEADER_VERSION: case PK_HEADER_ARCH:
	case PK_HEADER_CPUDESC: case PK_HEADER_CPUID: {
		uint32_t v;

		memcpy(&v, p, 4);
		v = bswap_32(v);
		memcpy(p, &v, 4);
		return true;
	}
	case PK_HEADER_NRCPUS:
		for (o = 0; o + 4 <= b->len; o += 4) {
			uint32_t v;

			memcpy(&v, p + o, 4);
			v = bswap_32(v);
			memcpy(p + o, &v, 4);
		}
		return true;
	case PK_HEADER_TOTAL_MEM: case PK_HEADER_SAMPLE_TIME:
	case PK_HEADER_CLOCKID:
		pk__wr_swap_u64s(p, b->len / 8);
		return true;
	case PK_HEADER_CMDLINE: {
		uint32_t nr, len;

		memcpy(&nr, p, 4);
		o = 4;
		for (uint32_t i = 0; i < nr && o + 4 <= b->len; i++) {
			memcpy(&len, p + o, 4);
			{
				uint32_t v = bswap_32(len);

				memcpy(p + o, &v, 4);
			}
			o += 4 + len;
		}
		nr = bswap_32(nr);
		memcpy(p, &nr, 4);
		return true;
	}
	default:
		return false;
	}
}
