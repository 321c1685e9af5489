/* SPDX-License-Identifier: MIT */
/* trace.dat CPU data: decompression of chunks, page walking, time merge. */
#include <errno.h>
#include <string.h>
#include "base/bytes.h"
#include "tracedat/tracedat.h"

/*
 * Reads the chunk table at CUR (u32 count, then per chunk u32 compressed
 * size, u32 size, the data): *CHUNKS (pk__calloc'ed), *N, *TOTAL the
 * decompressed size.
 */
int pk__td_chunks(struct td_cur *cur, struct td_chunk **chunks, uint32_t *n,
		  size_t *total)
{
	struct td_chunk *k;

	*total = 0;
	if (cur->len < 4)
		return pk__td_err(cur, PK_ERR_TRUNC, "chunk count");
	*n = pk_ld32(cur->p, cur->big);
	if (*n > cur->len / 8)
		return pk__td_err(cur, PK_ERR_TRUNC, "chunk count past the data");
	k = *chunks = pk__calloc(*n ? *n : 1, sizeof(**chunks));
	if (!k)
		return -ENOMEM;
	cur->pos = 4;
	for (uint32_t i = 0; i < *n; i++) {
		if (cur->len - cur->pos < 8)
			return pk__td_err(cur, PK_ERR_TRUNC, "chunk header");
		uint32_t cs = pk_ld32(cur->p + cur->pos, cur->big);
		uint32_t us = pk_ld32(cur->p + cur->pos + 4, cur->big);
		if (cs > cur->len - cur->pos - 8)
			return pk__td_err(cur, PK_ERR_TRUNC, "chunk data");
		if (!pk__td_size_plausible(cs, us) || *total + us > ((size_t)1 << 34))
			return pk__td_err(cur, PK_ERR_FORMAT, "chunk too large");
		k[i] = (struct td_chunk){ cur->base + cur->pos + 8, cs, us, *total };
		*total += us;
		cur->pos += 8 + cs;
	}
	return 0;
}

/*
 * Plans C's data: uncompressed data is used in place; compressed data gets
 * its chunk table and one buffer for all of it, filled by pk__td_cpu_need().
 */
int pk__td_load_cpu(struct pk_tracedat *td, struct td_buffer *b, struct td_cpu *c)
{
	struct td_cur cur = { td->map + c->off, (size_t)c->size, 0, c->off,
			      td->big, false };
	uint32_t n;
	size_t total = 0;

	c->loaded = true;
	if (!b->compressed) {
		c->pages = cur.p;
		c->len = cur.len;
		c->ready = cur.len;
		return 0;
	}
	/* trace-cmd's size leaves out the 4-byte chunk count */
	cur.len = (size_t)PK_MIN(c->size + 4, td->size - c->off);
	int r = pk__td_chunks(&cur, &c->chunks, &n, &total);
	if (r)
		return r;
	c->cdone = pk__zalloc(n ? n : 1);
	if (!c->cdone)
		return -ENOMEM;
	c->data = pk__bigbuf_alloc(&c->mem, total);
	if (!c->data)
		return -ENOMEM;
	c->nr_chunks = n;
	c->pages = c->data;
	c->len = total;
	return 0;
}

/* Decompresses chunk I of C with the context *ZCTX. */
int pk__td_cpu_chunk(struct pk_tracedat *td, struct td_cpu *c, uint32_t i,
		 void **zctx)
{
	const struct td_chunk *k = &c->chunks[i];

	return pk__td_decompress_ctx(zctx, td->comp, td->map + k->in, k->csize,
				 c->data + k->out, k->usize);
}

/* Under the lock (or single-threaded): chunk I is finished with R. */
void pk__td_cpu_chunk_done(struct td_cpu *c, uint32_t i, int r)
{
	c->cdone[i] = r ? 2 : 1;
	if (r && !c->cerr)
		c->cerr = r;
	while (c->nr_done < c->nr_chunks && c->cdone[c->nr_done] == 1)
		c->nr_done++;
	size_t ready = c->nr_done < c->nr_chunks ? c->chunks[c->nr_done].out
						 : c->len;
	__atomic_store_n(&c->ready, ready, __ATOMIC_RELEASE);
}

int pk__td_cpu_need(struct pk_tracedat *td, struct td_buffer *b,
		struct td_cpu *c, size_t need)
{
	int r = 0;

	if (!b->compressed ||
	    __atomic_load_n(&c->ready, __ATOMIC_ACQUIRE) >= PK_MIN(need, c->len))
		return 0;
	if (td->pf)
		r = pk__td_prefetch_wait(td, c, PK_MIN(need, c->len));
	else
		while (c->ready < PK_MIN(need, c->len) && !c->cerr &&
		       c->claimed < c->nr_chunks) {
			uint32_t i = c->claimed++;
			pk__td_cpu_chunk_done(c, i, pk__td_cpu_chunk(td, c, i, &td->zctx));
		}
	if (__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE) >= PK_MIN(need, c->len))
		return 0;
	r = r ? r : c->cerr ? c->cerr : PK_ERR_INTERNAL;
	if (!c->warned) {
		c->warned = true;
		pk_warn("trace.dat: buffer '%s' cpu %d: cannot decompress the "
			"chunk at uncompressed offset %zu: %s", b->name, c->cpu,
			c->ready, pk_strerror(r));
	}
	return r;
}

static void page_error(struct td_buffer *b,
		       struct td_cpu *c, int err)
{
	unsigned long long at = c->page_off + c->it.err_off;

	if (b->compressed)
		pk_warn("trace.dat: buffer '%s' cpu %d: uncompressed data "
			"offset %llu: %s", b->name, c->cpu, at,
			pk_strerror(err));
	else
		pk_warn("trace.dat: buffer '%s' cpu %d: offset %llu: %s",
			b->name, c->cpu, (unsigned long long)c->off + at,
			pk_strerror(err));
}

/* Loads the next event of C into c->ev. 1, 0 at the end, or an error
 * (the damaged page is skipped; calling again continues). */
static int cpu_advance(struct pk_tracedat *td, struct td_buffer *b,
		       struct td_cpu *c)
{
	int r;

	c->have_ev = false;
	if (c->done)
		return 0;
	if (!c->loaded && (r = pk__td_load_cpu(td, b, c)) < 0) {
		c->done = true;
		return r;
	}
	for (;;) {
		if (!c->have_page) {
			if (c->page_off >= c->len) {
				c->done = true;
				return 0;
			}
			size_t ps = PK_MIN((size_t)b->page_size,
					   c->len - c->page_off);
			__atomic_store_n(&c->used, c->page_off,
					 __ATOMIC_RELAXED);
			if ((r = pk__td_cpu_need(td, b, c, c->page_off + ps)) < 0) {
				c->done = true;
				return r;
			}
			r = pk__rb_iter_init(&c->it, c->pages + c->page_off, ps,
					    &td->layout);
			c->have_page = true;
			c->first_in_page = true;
			if (r) {
				page_error(b, c, r);
				c->have_page = false;
				c->page_off += b->page_size;
				return r;
			}
		}
		r = pk__rb_iter_next(&c->it, &c->ev);
		if (r > 0) {
			c->have_ev = true;
			return 1;
		}
		c->have_page = false;
		c->page_off += b->page_size;
		if (r < 0) {
			page_error(b, c, r);
			return r;
		}
	}
}

/* A count times the --ts2secs factor, as trace-cmd computes it (in
 * double; a product past 2^64 gives 0, as its conversion does on x86). */
static uint64_t ts2secs(double f, uint64_t ts)
{
	double v = (double)ts * f;

	return v >= 18446744073709551616.0 || v < 0 ? 0 : (uint64_t)v;
}

uint64_t pk__td_conv_ts(const struct pk_tracedat *td, uint64_t ts)
{
	if (td->raw_ts)
		return ts;
	if (td->ts2secs)
		ts = ts2secs(td->ts2secs, ts);
	else if (td->has_tsc2nsec)
		ts = (uint64_t)(((unsigned __int128)ts * td->tsc_mult) >>
				td->tsc_shift);
	return ts + (uint64_t)td->ts_offset;
}

/* The time of the top buffer's first event (0 when it has none). */
static int first_top_ts(struct pk_tracedat *td, uint64_t *ts)
{
	struct pk_tracedat_event ev;
	int r;

	*ts = 0;
	if ((r = pk_tracedat_rewind(td, NULL, 0)))
		return r;
	while ((r = pk_tracedat_next(td, &ev)) > 0)
		if (ev.buffer == 0) {
			*ts = ev.ts;
			break;
		}
	return r < 0 ? r : pk_tracedat_rewind(td, NULL, 0);
}

int pk_tracedat_set_time(struct pk_tracedat *td,
			 const struct pk_tracedat_time *t)
{
	unsigned fl = t ? t->flags : 0;
	uint64_t first;
	int r;

	if (!td || !PK_OPTS_VALID(t, pk_tracedat_time))
		return -EINVAL;
	td->raw_ts = fl & PK_TD_TIME_RAW;
	td->ts2secs = t && t->hz ? 1e9 / (double)t->hz : 0;
	td->ts_offset = (long long)((uint64_t)td->opt_offset +
				    (fl & PK_TD_TIME_NODATE ? 0 :
				     (uint64_t)td->opt_date) +
				    (uint64_t)(t ? t->offset : 0));
	pk__td_set_usecs(td);
	if (!(fl & PK_TD_TIME_ALIGN) || td->raw_ts)
		return pk_tracedat_rewind(td, NULL, 0);
	if ((r = first_top_ts(td, &first)))
		return r;
	td->ts_offset = (long long)((uint64_t)td->ts_offset - first);
	return 0;
}

int pk_tracedat_rewind(struct pk_tracedat *td, const int *cpus, int nr_cpus)
{
	for (int i = 0; i < td->nr_bufs; i++) {
		struct td_buffer *b = &td->bufs[i];
		for (int k = 0; k < b->nr_cpus; k++) {
			struct td_cpu *c = &b->cpus[k];
			c->page_off = 0;
			c->have_page = c->have_ev = c->done = false;
		}
	}
	pk__free(td->filter);
	td->filter = NULL;
	td->nr_filter = 0;
	if (cpus && nr_cpus > 0) {
		td->filter = pk__calloc((size_t)nr_cpus, sizeof(int));
		if (!td->filter)
			return -ENOMEM;
		memcpy(td->filter, cpus, (size_t)nr_cpus * sizeof(int));
		td->nr_filter = nr_cpus;
	}
	return 0;
}

/* The CPU slot of buffer B for filter position K, or NULL. */
static struct td_cpu *slot(struct pk_tracedat *td, struct td_buffer *b, int k)
{
	if (!td->nr_filter)
		return k < b->nr_cpus ? &b->cpus[k] : NULL;
	for (int i = 0; i < b->nr_cpus; i++)
		if (b->cpus[i].cpu == td->filter[k])
			return &b->cpus[i];
	return NULL;
}

int pk_tracedat_next(struct pk_tracedat *td, struct pk_tracedat_event *ev)
{
	struct td_cpu *best = NULL;
	int best_buf = 0, err = 0;

	for (int i = 0; i < td->nr_bufs; i++) {
		struct td_buffer *b = &td->bufs[i];
		int n = td->nr_filter ? td->nr_filter : b->nr_cpus;
		if (b->latency)
			continue;
		for (int k = 0; k < n; k++) {
			struct td_cpu *c = slot(td, b, k);
			if (!c)
				continue;
			if (!c->have_ev && !c->done) {
				int r = cpu_advance(td, b, c);
				if (r < 0 && !err)
					err = r;
				if (r < 0 && !c->done)
					r = cpu_advance(td, b, c);
			}
			if (c->have_ev && (!best || c->ev.ts < best->ev.ts)) {
				best = c;
				best_buf = i;
			}
		}
	}
	if (err)
		return err;
	if (!best)
		return 0;
	ev->ts = pk__td_conv_ts(td, best->ev.ts);
	ev->data = best->ev.data;
	ev->size = best->ev.size;
	ev->cpu = best->cpu;
	ev->buffer = best_buf;
	ev->missed = best->first_in_page ? best->it.missed : 0;
	ev->offset = best->page_off + best->ev.offset;
	best->first_in_page = false;
	best->have_ev = false;
	return 1;
}
