/* SPDX-License-Identifier: MIT */
/*
 * The perf.data writer's output: records are buffered (WBUF bytes) and
 * appended to the file or pipe; a file's data_size in the header is
 * updated after each flush, so readers see every record up to the last
 * flush. Used by writer.c and by the compressor (wrzstd.c).
 */
#include <byteswap.h>
#include <errno.h>
#include <unistd.h>
#include "base/base.h"
#include "perfdata/pd.h"
#include "perfdata/wr.h"

#define WBUF (256 * 1024)


int pk__wr_out(struct pk_pdwriter *w, const void *p, size_t n)
{
	if (w->err)
		return w->err;
	if (w->buf.len + n > WBUF && w->buf.len) {
		int r = pk__write_all(w->fd, w->buf.data, w->buf.len);

		if (r)
			return w->err = r;
		w->pos += w->buf.len;
		w->buf.len = 0;
	}
	if (n > WBUF) {
		int r = pk__write_all(w->fd, p, n);

		if (r)
			return w->err = r;
		w->pos += n;
		return 0;
	}
	if (pk__buf_append(&w->buf, p, n))
		return w->err = -ENOMEM;
	return 0;
}

int pk__wr_drain(struct pk_pdwriter *w)
{
	int r;

	if (w->err)
		return w->err;
	if (!w->buf.len)
		return 0;
	r = pk__write_all(w->fd, w->buf.data, w->buf.len);
	if (r)
		return w->err = r;
	w->pos += w->buf.len;
	w->buf.len = 0;
	return 0;
}

int pk__wr_emit(struct pk_pdwriter *w, const struct perf_event_header *rec,
	    const void *extra, size_t extra_size)
{
	static const char zero[8];
	const void *p;
	int r;

	if ((r = pk__wr_swap_record(w, rec, &p)) || (r = pk__wr_out(w, p, rec->size)))
		return r;
	if (extra_size) {
		if ((r = pk__wr_out(w, extra, extra_size)))
			return r;
		if (extra_size % 8)
			r = pk__wr_out(w, zero, 8 - extra_size % 8);
	}
	w->data_size += rec->size + ((extra_size + 7) & ~7UL);
	/* not pk_pdwriter_flush(): this may run inside pk__wr_z_flush() */
	if (!w->pipe && w->buf.len >= WBUF / 2)
		r = pk__wr_flush_data(w);
	return r;
}

/* Writes the buffered records, then the data size into the header. */
int pk__wr_flush_data(struct pk_pdwriter *w)
{
	int r = pk__wr_drain(w);

	if (r || w->pipe)
		return r;
	/* the records are in the file: now let readers see them */
	{
		uint64_t ds = w->swap ? bswap_64(w->data_size) : w->data_size;

		r = pk__pwrite_all(w->fd, &ds, 8, 48);
	}
	return r ? (w->err = r) : 0;
}
