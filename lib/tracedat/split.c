/* SPDX-License-Identifier: MIT */
/*
 * trace.dat split, as trace-cmd split 3.1 does it: the top buffer's records
 * re-packed into new pages, piece after piece, each piece a file with the
 * input's metadata. The reader positions persist between pieces.
 *
 * trace-cmd's rules followed (tracecmd/trace-split.c, read to learn them):
 *  - a new page when the record (its size in the input page, header
 *    included) does not fit, or the record is the first entry of an input
 *    page that lost events (the count moves to the new page);
 *  - a TIME_EXTEND when the delta is over 2^27 ns, then the record with
 *    delta 0 (the page check is made again between them);
 *  - the record after the last one of a piece is read and dropped; a CPU
 *    that wrote a record goes back to just after its last one, so only a
 *    record of a CPU without any in the piece is lost;
 *  - -s/-m/-u: a record later than the piece's first record + the span
 *    ends it; -e: N records; -p: N pages (per CPU).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#include "base/bytes.h"
#include "tracedat/tracedat.h"

struct sp_rec {
	uint64_t ts;
	const uint8_t *data;
	uint32_t size;
	uint32_t rsize;         /* size in the input page, header included */
	long long missed;       /* the first entry of a page with a loss */
};

struct sp_cpu {
	struct pk_buf buf;      /* the records while loading */
	struct sp_rec *recs;
	size_t nr;
	size_t pos;             /* next record to read */
	/* piece state */
	uint8_t *page;
	struct pk_rb_enc enc;
	long long missed;
	size_t last;            /* index of the last written record + 1 */
	int fd;
};

struct pk_tdsplit {
	struct pk_tracedat *td;
	struct pk_tdsplit_opts o;
	struct sp_cpu *cpus;
	int nr_cpus;
	int pieces;
	/* the last piece's CPU data, as trace-cmd reports it */
	struct pk_tdsplit_cpu *lay;
	int nlay;
	unsigned lay_flags;
};

/* Every record of the top buffer's CPU slot K, as trace-cmd's kbuffer sees
 * it. */
static int load_cpu(struct pk_tdsplit *s, int k)
{
	struct pk_tracedat *td = s->td;
	struct td_buffer *b = &td->bufs[0];
	struct td_cpu *c = &b->cpus[k];
	struct pk_rb_iter it;
	struct pk_rb_event ev;
	int r;

	if (!c->loaded && (r = pk__td_load_cpu(td, b, c)) < 0)
		return r;
	if ((r = pk__td_cpu_need(td, b, c, SIZE_MAX)) < 0)
		return r;
	for (size_t off = 0; off < c->len; off += b->page_size) {
		size_t ps = PK_MIN((size_t)b->page_size, c->len - off);
		if (pk__rb_iter_init(&it, c->pages + off, ps, &td->layout))
			continue;
		while ((r = pk__rb_iter_next(&it, &ev)) > 0) {
			struct sp_rec rec = {
				pk__td_conv_ts(td, ev.ts), ev.data, ev.size,
				(uint32_t)(ev.data - (c->pages + off) -
					   ev.offset) + ev.size,
				ev.offset == td->layout.data_off ? it.missed : 0,
			};
			if (pk__buf_append(&s->cpus[k].buf, &rec, sizeof(rec)))
				return -ENOMEM;
		}
	}
	s->cpus[k].recs = (struct sp_rec *)s->cpus[k].buf.data;
	s->cpus[k].nr = s->cpus[k].buf.len / sizeof(struct sp_rec);
	return 0;
}

struct pk_tdsplit *pk_tdsplit_new(struct pk_tracedat *td,
				  const struct pk_tdsplit_opts *o)
{
	struct pk_tdsplit *s;
	int r = -EINVAL;

	if (!PK_OPTS_VALID(o, pk_tdsplit_opts) || !td->nr_bufs ||
	    td->bufs[0].latency || (o->unit != PK_TD_SPLIT_NONE &&
				    o->count <= 0)) {
		errno = td->nr_bufs && td->bufs[0].latency ? -PK_ERR_UNSUPP
							    : EINVAL;
		return NULL;
	}
	if (!(s = pk__calloc(1, sizeof(*s))))
		return NULL;
	s->td = td;
	s->o = *o;
	if (o->unit == PK_TD_SPLIT_PAGES)
		s->o.percpu = true;
	s->nr_cpus = td->bufs[0].nr_cpus;
	s->nlay = PK_MAX(s->nr_cpus, td->cpus);
	if (!(s->cpus = pk__calloc(s->nr_cpus + 1, sizeof(*s->cpus))) ||
	    !(s->lay = pk__calloc((size_t)s->nlay + 1, sizeof(*s->lay)))) {
		r = -ENOMEM;
		goto fail;
	}
	for (int k = 0; k < s->nr_cpus; k++)
		if ((r = load_cpu(s, k)) < 0)
			goto fail;
	return s;
fail:
	pk_tdsplit_free(s);
	errno = -r;
	return NULL;
}

void pk_tdsplit_free(struct pk_tdsplit *s)
{
	if (!s)
		return;
	for (int k = 0; k < s->nr_cpus; k++) {
		pk__buf_fini(&s->cpus[k].buf);
		pk__free(s->cpus[k].page);
	}
	pk__free(s->cpus);
	pk__free(s->lay);
	pk__free(s);
}

/* The next record: of CPU *K (per CPU) or the earliest (ties: lower CPU).
 * NULL at the end. */
static struct sp_rec *read_rec(struct pk_tdsplit *s, bool percpu, int *k)
{
	int best = -1;

	if (percpu) {
		struct sp_cpu *c = &s->cpus[*k];
		return c->pos < c->nr ? &c->recs[c->pos++] : NULL;
	}
	for (int i = 0; i < s->nr_cpus; i++) {
		struct sp_cpu *c = &s->cpus[i];
		if (c->pos < c->nr && (best < 0 || c->recs[c->pos].ts <
				       s->cpus[best].recs[s->cpus[best].pos].ts))
			best = i;
	}
	if (best < 0)
		return NULL;
	*k = best;
	return &s->cpus[best].recs[s->cpus[best].pos++];
}

/* Positions CPU K at its first record at or after TS. */
static void seek_ts(struct sp_cpu *c, uint64_t ts)
{
	c->pos = 0;
	while (c->pos < c->nr && c->recs[c->pos].ts < ts)
		c->pos++;
}

static int flush_page(struct pk_tdsplit *s, struct sp_cpu *c)
{
	uint32_t ps = s->td->bufs[0].page_size;

	if (c->missed)   /* trace-cmd stores -1 (unknown) as a count too */
		pk__rb_enc_finish_count(&c->enc, (uint64_t)c->missed);
	else
		pk__rb_enc_finish(&c->enc, 0);
	return pk__write_all(c->fd, c->page, ps);
}

/* Starts a new page on C at TS carrying MISSED. */
static int new_page(struct pk_tdsplit *s, struct sp_cpu *c, uint64_t ts,
		    long long missed)
{
	uint32_t ps = s->td->bufs[0].page_size;
	int r;

	if (c->page) {
		if ((r = flush_page(s, c)) < 0)
			return r;
	} else if (!(c->page = pk__malloc(ps))) {
		return -ENOMEM;
	}
	c->missed = missed;
	pk__rb_enc_init(&c->enc, c->page, ps, &s->td->layout, ts);
	return 0;
}

/* Writes R on C: 1 when written, 0 when only a TIME_EXTEND went first. */
static int write_rec(struct sp_cpu *c, const struct sp_rec *r)
{
	uint64_t diff = r->ts - c->enc.last_ts;

	if (diff > (1ull << PK_RB_TS_SHIFT)) {
		if (pk__rb_enc_time_extend(&c->enc, diff) < 0)
			return -ENOSPC;
		return 0;
	}
	/* trace-cmd writes a delta of exactly 2^27 in 27 bits (as 0) */
	if (pk__rb_enc_event(&c->enc, c->enc.last_ts + (diff & PK_RB_DELTA_MASK),
			     r->data, r->size, false) < 0)
		return -ENOSPC;
	c->enc.last_ts = r->ts;
	return 1;
}

/* Whether the piece ends after R (the record read after the last one
 * written), with START its first record's time and COUNT records so far. */
static bool piece_done(const struct pk_tdsplit *s, const struct sp_rec *r,
		       uint64_t start, long long count)
{
	static const uint64_t mult[] = {
		[PK_TD_SPLIT_SECONDS] = 1000000000ull,
		[PK_TD_SPLIT_MSECS] = 1000000ull,
		[PK_TD_SPLIT_USECS] = 1000ull,
	};

	switch (s->o.unit) {
	case PK_TD_SPLIT_SECONDS:
	case PK_TD_SPLIT_MSECS:
	case PK_TD_SPLIT_USECS:
		return r && r->ts > start + (uint64_t)s->o.count *
				     mult[s->o.unit];
	case PK_TD_SPLIT_EVENTS:
		return count >= s->o.count;
	default:
		return false;
	}
}

/* trace-cmd's parse_cpu: CPU slot K (percpu) or all of them. */
static int parse_cpu(struct pk_tdsplit *s, uint64_t start, bool percpu, int k)
{
	uint32_t ps = s->td->bufs[0].page_size;
	struct sp_rec *rec;
	long long count = 0, pages = 0;
	int r = 0;

	rec = read_rec(s, percpu, &k);
	if (start) {
		/* the piece put every CPU at START; trace-cmd seeks again here
		 * but reads on from where it was */
		while (rec && rec->ts < start)
			rec = read_rec(s, percpu, &k);
	} else if (rec) {
		start = rec->ts;
	}
	while (rec && (!s->o.end || rec->ts <= s->o.end)) {
		struct sp_cpu *c = &s->cpus[k];
		if (!c->page || c->enc.pos + rec->rsize > ps || rec->missed) {
			if (s->o.unit == PK_TD_SPLIT_PAGES &&
			    ++pages > s->o.count)
				break;
			if ((r = new_page(s, c, rec->ts, rec->missed)) < 0)
				return r;
		}
		c->last = (size_t)(rec - c->recs) + 1;
		if ((r = write_rec(c, rec)) < 0)
			return r;
		if (!r)
			continue;
		rec = read_rec(s, percpu, &k);
		if (!rec)   /* the end of the CPU (all of them): no resume */
			for (int i = 0; i < s->nr_cpus; i++)
				if (!percpu || i == k)
					s->cpus[i].last = 0;
		count++;
		if (piece_done(s, rec, start, count))
			rec = NULL;
	}
	for (int i = 0; i < s->nr_cpus; i++) {
		struct sp_cpu *c = &s->cpus[i];
		if ((!percpu || i == k) && c->page) {
			if ((r = flush_page(s, c)) < 0)
				return r;
			pk__free(c->page);
			c->page = NULL;
		}
	}
	return 0;
}

/* Bytes of a format-6 input before its CPU count (its metadata as
 * written), or 0. */
static size_t v6_prefix(const struct pk_tracedat *td)
{
	const uint8_t *end = (const uint8_t *)td->cmdlines.p;

	if (td->version >= 7 || !end || end < td->map ||
	    (size_t)(end - td->map) + td->cmdlines.len + 4 > td->size)
		return 0;
	return (size_t)(end - td->map) + td->cmdlines.len;
}

/* A format-6 piece as trace-cmd writes it: the input's metadata bytes,
 * the CPU count, no options, the flyrecord table and the CPU data from
 * the first page boundary on. */
static int write_v6(struct pk_tdsplit *s, const char *path, const int *fds,
		    size_t prefix)
{
	struct pk_tracedat *td = s->td;
	uint32_t ps = td->bufs[0].page_size, n = (uint32_t)td->cpus;
	struct pk_buf h = { 0 };
	uint8_t w[16];
	off_t *size = pk__calloc(n + 1, sizeof(off_t));
	int fd = -1, r = 0;

	if (!size)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++)
		if ((int)k < s->nr_cpus && (size[k] = lseek(fds[k], 0,
							    SEEK_END)) < 0)
			size[k] = 0;
	pk__buf_append(&h, td->map, prefix);
	pk_st32(w, n, td->big);
	pk__buf_append(&h, w, 4);
	pk__buf_append(&h, "options  \0\0\0flyrecord", 22);
	/* the clock after the table: the input's, else trace-cmd takes
	 * this host's (its usual one here) */
	char tmp[64], clock[80];
	const char *name = pk__td_clock_of(td, &td->bufs[0], tmp, sizeof(tmp));
	int cl = snprintf(clock, sizeof(clock), "[%s]", *name ? name : "local");
	uint64_t at = (h.len + 16ull * n + 8 + (uint64_t)cl + ps - 1) / ps * ps;
	for (uint32_t k = 0; k < n; k++) {
		pk_st64(w, at, td->big);
		pk_st64(w + 8, (uint64_t)size[k], td->big);
		pk__buf_append(&h, w, 16);
		if ((int)k < s->nlay)
			s->lay[k] = (struct pk_tdsplit_cpu){ at, (uint64_t)size[k],
							     (uint64_t)size[k] };
		at += (uint64_t)size[k];
	}
	pk_st64(w, (uint64_t)cl, td->big);
	pk__buf_append(&h, w, 8);
	pk__buf_append(&h, clock, (size_t)cl);
	if (!h.data || pk__buf_append(&h, NULL, 0))
		r = -ENOMEM;
	while (!r && h.len % ps)
		r = pk__buf_append(&h, "", 1) ? -ENOMEM : 0;
	if (!r && (fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0644)) < 0)
		r = -errno;
	if (!r)
		r = pk__write_all(fd, h.data, h.len);
	for (uint32_t k = 0; !r && (int)k < s->nr_cpus && k < n; k++)
		r = pk__copy_fd(fds[k], fd, (uint64_t)size[k]);
	if (fd >= 0 && close(fd) && !r)
		r = -errno;
	pk__buf_fini(&h);
	pk__free(size);
	return r;
}

/* Whether B's CPUs are 0, 1 ... (trace-cmd's pieces number them so). */
static bool tc_ids(const struct td_buffer *b)
{
	for (int k = 0; k < b->nr_cpus; k++)
		if (b->cpus[k].cpu != k)
			return false;
	return true;
}

/*
 * The piece's file: the input's metadata and the CPU data in FDS. A
 * format-7 input gives the file trace-cmd writes (pk_tdwriter's layout is
 * trace-cmd's, it compresses as trace-cmd does; no options but the CPU
 * count and the buffer's) and its layout is noted when its CPUs are 0..n-1
 * as trace-cmd numbers them.
 */
static int write_file(struct pk_tdsplit *s, const char *path, const int *fds)
{
	struct pk_tracedat *td = s->td;
	struct td_buffer *b = &td->bufs[0];
	bool v7 = td->version >= 7;
	PK_OPTS(pk_tdwriter_opts, wo, .page_size = (int)b->page_size,
		.long_size = td->long_size,
		.compression = v7 ? td->comp : NULL,
		.minimal_options = true);
	size_t prefix = v6_prefix(td);
	bool tc = v7 && !td->big && s->nr_cpus == td->cpus && tc_ids(b);
	uint64_t *lay = NULL;
	struct pk_tdwriter *w;
	int r = 0, *ids;

	s->lay_flags = 0;
	if (prefix) {
		s->lay_flags = PK_TDSPLIT_V6 | PK_TDSPLIT_LAYOUT;
		return write_v6(s, path, fds, prefix);
	}
	if (!(w = pk_tdwriter_open(path, &wo)))
		return -errno;
	r = pk_tdwriter_copy_meta(w, td);
	ids = pk__calloc(s->nr_cpus + 1, sizeof(int));
	lay = pk__calloc((size_t)s->nr_cpus + 1, 16);
	if (!r && (!ids || !lay))
		r = -ENOMEM;
	if (!r) {
		for (int k = 0; k < s->nr_cpus; k++)
			ids[k] = b->cpus[k].cpu;
		/* a v6 piece keeps no clock: trace-cmd reads it as local */
		r = pk_tdwriter_add_buffer(w, "", v7 && *b->clock ? b->clock :
					   "local", s->nr_cpus, ids, fds);
	}
	pk__free(ids);
	if (r) {
		pk_tdwriter_free(w);
		pk__free(lay);
		return r;
	}
	pk__tdwriter_note_layout(w, lay);
	r = pk_tdwriter_close(w);
	for (int k = 0; !r && tc && k < s->nr_cpus && k < s->nlay; k++) {
		off_t u = lseek(fds[k], 0, SEEK_END);
		s->lay[k] = (struct pk_tdsplit_cpu){ lay[2 * k], lay[2 * k + 1],
						     u > 0 ? (uint64_t)u : 0 };
	}
	if (!r && tc)
		s->lay_flags = PK_TDSPLIT_LAYOUT | (strcmp(td->comp, "none") ?
						    PK_TDSPLIT_COMPRESSED : 0);
	pk__free(lay);
	return r;
}

int pk_tdsplit_layout(const struct pk_tdsplit *s,
		      const struct pk_tdsplit_cpu **cpus, unsigned *flags)
{
	*flags = s->lay_flags;
	*cpus = s->lay;
	return s->lay_flags & PK_TDSPLIT_LAYOUT ? s->nlay : 0;
}

int pk_tdsplit_piece(struct pk_tdsplit *s, const char *path,
		     uint64_t start, uint64_t *next)
{
	uint64_t current = s->o.end;
	int r = 0, *fds = pk__calloc(s->nr_cpus + 1, sizeof(int));

	if (!fds)
		return -ENOMEM;
	for (int k = 0; k < s->nr_cpus; k++) {
		struct sp_cpu *c = &s->cpus[k];
		c->last = 0;
		fds[k] = c->fd = memfd_create("perfkit-split", MFD_CLOEXEC);
		if (c->fd < 0 && !r)
			r = -errno;
		if (start)
			seek_ts(c, start);
	}
	if (!r) {
		if (s->o.only_cpu >= 0) {
			int k = -1;
			for (int i = 0; i < s->nr_cpus; i++)
				if (s->td->bufs[0].cpus[i].cpu == s->o.only_cpu)
					k = i;
			r = k >= 0 ? parse_cpu(s, start, true, k) : 0;
		} else if (s->o.percpu) {
			for (int k = 0; !r && k < s->nr_cpus; k++)
				r = parse_cpu(s, start, true, k);
		} else {
			r = parse_cpu(s, start, false, 0);
		}
	}
	if (!r)
		r = write_file(s, path, fds);
	for (int k = 0; k < s->nr_cpus; k++) {
		struct sp_cpu *c = &s->cpus[k];
		if (c->last) {   /* back to just after the last one written */
			uint64_t ts = c->recs[c->last - 1].ts;
			c->pos = c->last;
			if (!current || ts > current)
				current = ts + 1;
		}
		if (c->fd >= 0)
			close(c->fd);
		pk__free(c->page);
		c->page = NULL;
	}
	pk__free(fds);
	s->pieces++;
	*next = current;
	return r;
}
