/* SPDX-License-Identifier: MIT */
/*
 * Records of the other byte order. The header is converted exactly; the
 * payload is converted as u64 words (what samples and most fields are),
 * then u32 pairs at known places (pid/tid of MMAP, COMM, FORK, EXIT, READ,
 * MMAP2's dev/prot, TID and CPU of samples and sample_id trailers) are put
 * back in order and byte strings (file names, comm, RAW, user stack, AUX
 * data) restored from the original. The conversion is its own inverse, so
 * the writer uses it too (pk_pdwriter_opts.other_endian, for tests).
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

/*
 * Walks a sample (HOST: the copy in host order, to read counts) and fixes
 * P: u32 pairs and byte arrays.
 */
static void fix_sample(const struct perf_event_attr *a, unsigned char *p,
		       const unsigned char *orig, const unsigned char *host,
		       size_t size)
{
	uint64_t t = a->sample_type;
	size_t o = 8;

#define NEED(n) do { if (o + (n) > size) return; } while (0)
#define SKIP(n) do { NEED(n); o += (n); } while (0)
	if (t & PERF_SAMPLE_IDENTIFIER) SKIP(8);
	if (t & PERF_SAMPLE_IP) SKIP(8);
	if (t & PERF_SAMPLE_TID) { fix_pair(p, o, size); SKIP(8); }
	if (t & PERF_SAMPLE_TIME) SKIP(8);
	if (t & PERF_SAMPLE_ADDR) SKIP(8);
	if (t & PERF_SAMPLE_ID) SKIP(8);
	if (t & PERF_SAMPLE_STREAM_ID) SKIP(8);
	if (t & PERF_SAMPLE_CPU) { fix_pair(p, o, size); SKIP(8); }
	if (t & PERF_SAMPLE_PERIOD) SKIP(8);
	if (t & PERF_SAMPLE_READ) {
		uint64_t rf = a->read_format, n = 1;
		unsigned st = 1 + !!(rf & PERF_FORMAT_ID) +
			      !!(rf & PERF_FORMAT_LOST);

		if (rf & PERF_FORMAT_GROUP) {
			NEED(8);
			n = rd64(host + o);
			SKIP(8);
		}
		if (n > size / 8)
			return;
		SKIP(8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			  !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING)) +
		     8 * n * st);
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		uint64_t n;

		NEED(8);
		n = rd64(host + o);
		if (n > size / 8)
			return;
		SKIP(8 + 8 * n);
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t n;

		NEED(4);
		/* the u32 size shares a word with data: restore the bytes,
		 * swap the size alone */
		memcpy(&n, host == p ? orig + o : host + o, 4);
		n = host == p ? bswap_32(n) : n;
		if (n > size)
			return;
		restore(p, orig, o, PK_MIN(size, o + 4 + n));
		{
			uint32_t v;

			memcpy(&v, p + o, 4);
			v = bswap_32(v);
			memcpy(p + o, &v, 4);
		}
		SKIP((4 + (size_t)n + 7) & ~7UL);
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t n;

		NEED(8);
		n = rd64(host + o);
		SKIP(8);
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			SKIP(8);
		if (n > size / 24)
			return;
		SKIP(24 * n);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		NEED(8);
		o += 8;
		if (rd64(host + o - 8))
			SKIP(8ULL * __builtin_popcountll(a->sample_regs_user));
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		uint64_t n;

		NEED(8);
		n = rd64(host + o);
		SKIP(8);
		if (n > size)
			return;
		restore(p, orig, o, PK_MIN(size, o + n));
		if (n)
			SKIP(n + 8);
	}
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) SKIP(8);
	if (t & PERF_SAMPLE_DATA_SRC) SKIP(8);
	if (t & PERF_SAMPLE_TRANSACTION) SKIP(8);
	if (t & PERF_SAMPLE_REGS_INTR) {
		NEED(8);
		o += 8;
		if (rd64(host + o - 8))
			SKIP(8ULL * __builtin_popcountll(a->sample_regs_intr));
	}
	if (t & PERF_SAMPLE_PHYS_ADDR) SKIP(8);
	if (t & PERF_SAMPLE_CGROUP) SKIP(8);
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE) SKIP(8);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE) SKIP(8);
	if (t & PERF_SAMPLE_AUX) {
		uint64_t n;

		NEED(8);
		n = rd64(host + o);
		SKIP(8);
		restore(p, orig, o, PK_MIN(size, o + n));
	}
#undef NEED
#undef SKIP
}

/* TID and CPU pairs of a sample_id_all trailer. */
static void fix_trailer(const struct perf_event_attr *a, unsigned char *p,
			size_t size)
{
	uint64_t t = a->sample_type;
	size_t n = 8 * (!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) +
			!!(t & PERF_SAMPLE_ID) + !!(t & PERF_SAMPLE_STREAM_ID) +
			!!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
	size_t o;

	if (!a->sample_id_all || size < 8 + n)
		return;
	o = size - n;
	if (t & PERF_SAMPLE_TID)
		fix_pair(p, o, size), o += 8;
	o += 8 * (!!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
		  !!(t & PERF_SAMPLE_STREAM_ID));
	if (t & PERF_SAMPLE_CPU)
		fix_pair(p, o, size);
}

void pk__pd_swap_any(unsigned char *p, const struct perf_event_attr *(*attr)(
			 void *, const struct perf_event_header *), void *arg,
		 bool to_host)
{
	struct perf_event_header *h = (void *)p;
	unsigned char orig[64 * 1024];
	const struct perf_event_attr *a;
	size_t size;

	if (!to_host)
		size = h->size;
	h->type = bswap_32(h->type);
	h->misc = bswap_16(h->misc);
	h->size = bswap_16(h->size);
	if (to_host)
		size = h->size;
	memcpy(orig, p, size);
	for (size_t off = 8; off + 8 <= size; off += 8) {
		uint64_t v = bswap_64(rd64(p + off));

		memcpy(p + off, &v, 8);
	}
	/* put the header back in host order for the attr lookup */
	if (!to_host) {
		h->type = bswap_32(h->type);
		h->misc = bswap_16(h->misc);
		h->size = bswap_16(h->size);
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
	case PK_RECORD_HEADER_ATTR: {
		uint32_t as;

		restore(p, orig, 8, size);
		pk__pd_swap_attr(p + 8, PK_MIN(size - 8, (size_t)PK_ATTR_MAX));
		as = ((const struct perf_event_attr *)((to_host ? p : orig) + 8))->size;
		for (size_t off = 8 + as; as && off + 8 <= size; off += 8) {
			uint64_t v = bswap_64(rd64(p + off));

			memcpy(p + off, &v, 8);
		}
		break;
	}
	case PK_RECORD_ID_INDEX:
	case PK_RECORD_FINISHED_ROUND:
	case PERF_RECORD_SAMPLE:
		break;
	default:
		/* perf's other records: u64 words are the common case; names
		 * and strings of THREAD_MAP/EVENT_UPDATE/... stay as swapped */
		break;
	}
	if (h->type < PK_RECORD_HEADER_ATTR) {
		a = attr(arg, (const void *)(to_host ? p : orig));
		if (a && h->type == PERF_RECORD_SAMPLE)
			fix_sample(a, p, orig, to_host ? p : orig, size);
		else if (a)
			fix_trailer(a, p, size);
	}
	if (!to_host) {
		h->type = bswap_32(h->type);
		h->misc = bswap_16(h->misc);
		h->size = bswap_16(h->size);
	}
}

static const struct perf_event_attr *reader_attr(
	void *arg, const struct perf_event_header *h)
{
	struct pk_perfdata *pd = arg;
	int a;

	pk__pd_record_time(pd, h, &a);
	return a >= 0 ? &pd->attrs[a].attr : NULL;
}

void pk__pd_swap_record(struct pk_perfdata *pd, struct perf_event_header *h)
{
	pk__pd_swap_any((void *)h, reader_attr, pd, true);
}
