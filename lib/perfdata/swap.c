/* SPDX-License-Identifier: MIT */
/*
 * Records of the other byte order. The header is converted exactly; the
 * payload of kernel records is converted as u64 words (what samples and
 * most fields are), then u32 pairs at fixed places (pid/tid of MMAP, COMM,
 * FORK, EXIT, MMAP2's dev/prot) are put back in order. String bytes of
 * MMAP/COMM names are restored from the original.
 */
#include <string.h>
#include "perfdata/pd.h"

static void fix_pair(unsigned char *p, size_t off, size_t size)
{
	uint32_t a, b;

	if (off + 8 > size)
		return;
	/* the word was swapped as u64: halves exchanged and each swapped */
	memcpy(&a, p + off, 4);
	memcpy(&b, p + off + 4, 4);
	memcpy(p + off, &b, 4);
	memcpy(p + off + 4, &a, 4);
}

static void restore(unsigned char *p, const unsigned char *orig, size_t from,
		    size_t to)
{
	if (from < to)
		memcpy(p + from, orig + from, to - from);
}

void pd_swap_record(struct pk_perfdata *pd, struct perf_event_header *h)
{
	unsigned char *p = (void *)h, orig[64 * 1024];
	size_t size;

	(void)pd;
	h->type = bswap_32(h->type);
	h->misc = bswap_16(h->misc);
	h->size = bswap_16(h->size);
	size = h->size;
	memcpy(orig, p, size);
	for (size_t off = 8; off + 8 <= size; off += 8) {
		uint64_t v = bswap_64(rd64(p + off));

		memcpy(p + off, &v, 8);
	}
	switch (h->type) {
	case PERF_RECORD_MMAP:
		fix_pair(p, 8, size);
		restore(p, orig, 40, size);
		break;
	case PERF_RECORD_MMAP2:
		fix_pair(p, 8, size);
		fix_pair(p, 40, size);
		fix_pair(p, 64, size);
		restore(p, orig, 72, size);
		break;
	case PERF_RECORD_COMM:
		fix_pair(p, 8, size);
		restore(p, orig, 16, size);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		fix_pair(p, 8, size);
		fix_pair(p, 16, size);
		break;
	case PERF_RECORD_READ:
		fix_pair(p, 8, size);
		break;
	case PERF_RECORD_SAMPLE:
	default:
		if (h->type >= PK_RECORD_HEADER_ATTR && h->type !=
		    PK_RECORD_HEADER_ATTR && h->type != PK_RECORD_ID_INDEX &&
		    h->type != PK_RECORD_FINISHED_ROUND)
			restore(p, orig, 8, size);
		if (h->type == PK_RECORD_HEADER_ATTR) {
			restore(p, orig, 8, size);
			pd_swap_attr(p + 8, size - 8 < PK_ATTR_MAX ?
				     size - 8 : PK_ATTR_MAX);
			{
				uint32_t as = ((struct perf_event_attr *)
					       (p + 8))->size;
				for (size_t off = 8 + as; as && off + 8 <= size;
				     off += 8) {
					uint64_t v = bswap_64(rd64(p + off));
					memcpy(p + off, &v, 8);
				}
			}
		}
		break;
	}
}
