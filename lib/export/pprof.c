// SPDX-License-Identifier: MIT
/*
 * pprof profiles: profile.proto (github.com/google/pprof, proto/
 * profile.proto) encoded by hand: varints, length-delimited messages,
 * packed repeated numbers. Strings, mappings, functions and locations are
 * interned; samples are encoded as they come. The file is gzipped by
 * zlib, as pprof files are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <perfkit/export.h>
#include "base/base.h"
#include "base/hash.h"

struct pb {
	uint8_t *b;
	size_t len, cap;
	bool nomem;
};

struct pk_pprof {
	struct pk_pprof_opts o;
	int64_t types[8][2];    /* string ids */
	unsigned nt;
	int64_t period[2];
	int64_t deftype;        /* string id of the default type, 0: none */
	/* the strings last asked for, by address (labels ask for the same
	 * few at every sample); checked against the table's text */
	const char *lastp[8];
	int64_t lastid[8];
	unsigned lastn;
	struct pb strs;         /* the string table's entries, encoded */
	struct pk__hash stridx; /* hash -> id + 1 (probed) */
	char **str;
	size_t nstr, capstr;
	struct pb maps, funcs, locs, samples;
	struct pk__hash mapidx, funcidx, locidx;
	uint64_t nmap, nfunc, nloc;
	/* what the interned keys are (for the probes' comparisons) */
	uint64_t (*mapkey)[4];
	uint64_t (*funckey)[2];
	uint64_t (*lockey)[2];
	size_t capmap, capfunc, caploc;
	bool nomem;
};

/* ---- the encoder ---- */

static void pb_room(struct pb *b, size_t n)
{
	if (b->nomem || b->len + n <= b->cap)
		return;
	size_t cap = b->cap ? b->cap * 2 : 256;
	uint8_t *nb;

	while (cap < b->len + n)
		cap *= 2;
	if (!(nb = pk__realloc(b->b, cap))) {
		b->nomem = true;
		return;
	}
	b->b = nb;
	b->cap = cap;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	pb_room(b, 10);
	if (b->nomem)
		return;
	do {
		uint8_t c = v & 0x7f;

		v >>= 7;
		b->b[b->len++] = c | (v ? 0x80 : 0);
	} while (v);
}

static void pb_bytes(struct pb *b, const void *p, size_t n)
{
	pb_room(b, n);
	if (b->nomem || !n)
		return;
	memcpy(b->b + b->len, p, n);
	b->len += n;
}

/* A number field (wire type 0); zero is the default and left out. */
static void pb_num(struct pb *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, v);
}

/* A length-delimited field: bytes, a string, a message, packed numbers. */
static void pb_len(struct pb *b, unsigned field, const void *p, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, n);
	pb_bytes(b, p, n);
}

static void pb_fini(struct pb *b)
{
	pk__free(b->b);
	memset(b, 0, sizeof(*b));
}

/* ---- interning ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

/* S's index in the string table (0: "" or NULL); -1 when out of memory. */
static int64_t str_intern(struct pk_pprof *p, const char *s);

static int64_t str_id(struct pk_pprof *p, const char *s)
{
	int64_t id;

	if (!s || !*s)
		return 0;
	for (unsigned i = 0; i < 8; i++)
		if (p->lastp[i] == s && !strcmp(p->str[p->lastid[i]], s))
			return p->lastid[i];
	id = str_intern(p, s);
	if (id > 0) {
		p->lastp[p->lastn % 8] = s;
		p->lastid[p->lastn++ % 8] = id;
	}
	return id;
}

static int64_t str_intern(struct pk_pprof *p, const char *s)
{
	for (uint64_t k = str_hash(s);; k = mix(k, 1)) {
		bool added;
		uint64_t *v = pk__hash_put(&p->stridx, k, &added);

		if (!v)
			return -1;
		if (!added) {
			if (*v && !strcmp(p->str[*v - 1], s))
				return (int64_t)*v - 1;
			continue;
		}
		if (p->nstr == p->capstr) {
			size_t cap = p->capstr ? p->capstr * 2 : 256;
			char **n = pk__realloc(p->str, cap * sizeof(*n));

			if (!n)
				return -1;
			p->str = n;
			p->capstr = cap;
		}
		if (!(p->str[p->nstr] = pk__strdup(s)))
			return -1;
		*v = ++p->nstr;
		pb_len(&p->strs, 6, s, strlen(s));
		return (int64_t)p->nstr - 1;
	}
}

struct pk_pprof *pk_pprof_new(const struct pk_pprof_opts *opts)
{
	struct pk_pprof *p;
	int64_t e = 0;

	if (!PK_OPTS_VALID(opts, pk_pprof_opts) ||
	    (opts && opts->nr_types > 8)) {
		errno = EINVAL;
		return NULL;
	}
	if (!(p = pk__zalloc(sizeof(*p)))) {
		errno = ENOMEM;
		return NULL;
	}
	if (opts)
		memcpy(&p->o, opts, opts->sz < sizeof(p->o) ? opts->sz :
		       sizeof(p->o));
	/* string 0 is "" */
	if (!(p->str = pk__malloc(256 * sizeof(*p->str))) ||
	    !(p->str[0] = pk__strdup(""))) {
		pk_pprof_free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->capstr = 256;
	p->nstr = 1;
	pb_len(&p->strs, 6, "", 0);
	p->nt = p->o.nr_types ? p->o.nr_types : 1;
	for (unsigned i = 0; i < p->nt; i++) {
		p->types[i][0] = str_id(p, p->o.nr_types ? p->o.types[i] :
					"samples");
		p->types[i][1] = str_id(p, p->o.nr_types ? p->o.units[i] :
					"count");
		e |= p->types[i][0] | p->types[i][1];
	}
	p->period[0] = str_id(p, p->o.period_type);
	p->period[1] = str_id(p, p->o.period_unit);
	if (e < 0 || p->period[0] < 0 || p->period[1] < 0 ||
	    str_id(p, p->o.comment) < 0) {
		pk_pprof_free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void pk_pprof_free(struct pk_pprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstr; i++)
		pk__free(p->str[i]);
	pk__free(p->str);
	pb_fini(&p->strs);
	pb_fini(&p->maps);
	pb_fini(&p->funcs);
	pb_fini(&p->locs);
	pb_fini(&p->samples);
	pk__hash_fini(&p->stridx);
	pk__hash_fini(&p->mapidx);
	pk__hash_fini(&p->funcidx);
	pk__hash_fini(&p->locidx);
	pk__free(p->mapkey);
	pk__free(p->funckey);
	pk__free(p->lockey);
	pk__free(p);
}

/* Room for one more key of SIZE bytes at *KEYS (N used, *CAP). */
static bool key_room(void **keys, size_t *cap, uint64_t n, size_t size)
{
	void *k;

	if (n < *cap)
		return true;
	if (!(k = pk__realloc(*keys, (*cap ? *cap * 2 : 256) * size)))
		return false;
	*keys = k;
	*cap = *cap ? *cap * 2 : 256;
	return true;
}

uint64_t pk_pprof_mapping(struct pk_pprof *p, uint64_t start, uint64_t limit,
			  uint64_t offset, const char *file,
			  const char *build_id)
{
	int64_t fs = str_id(p, file), bs = str_id(p, build_id);
	uint64_t key[4] = { start, limit, offset, (uint64_t)fs };
	struct pb m = { 0 };

	if (fs < 0 || bs < 0)
		return 0;
	for (uint64_t k = mix(mix(mix(start, limit), offset), (uint64_t)fs);;
	     k = mix(k, 2)) {
		bool added;
		uint64_t *v = pk__hash_put(&p->mapidx, k, &added);

		if (!v)
			return 0;
		if (!added) {
			if (*v && !memcmp(p->mapkey[*v - 1], key, sizeof(key)))
				return *v;
			continue;
		}
		if (!key_room((void **)&p->mapkey, &p->capmap, p->nmap,
			      sizeof(key)))
			return 0;
		memcpy(p->mapkey[p->nmap], key, sizeof(key));
		*v = ++p->nmap;
		pb_num(&m, 1, *v);
		pb_num(&m, 2, start);
		pb_num(&m, 3, limit);
		pb_num(&m, 4, offset);
		pb_num(&m, 5, (uint64_t)fs);
		pb_num(&m, 6, (uint64_t)bs);
		pb_num(&m, 7, 1);      /* has_functions */
		if (!m.nomem)
			pb_len(&p->maps, 3, m.b, m.len);
		pb_fini(&m);
		return p->maps.nomem || m.nomem ? 0 : *v;
	}
}

uint64_t pk_pprof_function(struct pk_pprof *p, const char *name,
			   const char *file)
{
	int64_t ns = str_id(p, name), fs = str_id(p, file);
	uint64_t key[2] = { (uint64_t)ns, (uint64_t)fs };
	struct pb m = { 0 };

	if (ns < 0 || fs < 0)
		return 0;
	for (uint64_t k = mix(key[0], key[1]);; k = mix(k, 3)) {
		bool added;
		uint64_t *v = pk__hash_put(&p->funcidx, k, &added);

		if (!v)
			return 0;
		if (!added) {
			if (*v && !memcmp(p->funckey[*v - 1], key, sizeof(key)))
				return *v;
			continue;
		}
		if (!key_room((void **)&p->funckey, &p->capfunc, p->nfunc,
			      sizeof(key)))
			return 0;
		memcpy(p->funckey[p->nfunc], key, sizeof(key));
		*v = ++p->nfunc;
		pb_num(&m, 1, *v);
		pb_num(&m, 2, (uint64_t)ns);
		pb_num(&m, 3, (uint64_t)ns);   /* system_name */
		pb_num(&m, 4, (uint64_t)fs);
		if (!m.nomem)
			pb_len(&p->funcs, 5, m.b, m.len);
		pb_fini(&m);
		return *v;
	}
}

uint64_t pk_pprof_location(struct pk_pprof *p, uint64_t mapping,
			   uint64_t address, const struct pk_pprof_line *lines,
			   unsigned n)
{
	uint64_t key[2] = { mapping, address };
	struct pb m = { 0 };

	for (uint64_t k = mix(mapping, address);; k = mix(k, 4)) {
		bool added;
		uint64_t *v = pk__hash_put(&p->locidx, k, &added);

		if (!v)
			return 0;
		if (!added) {
			if (*v && !memcmp(p->lockey[*v - 1], key, sizeof(key)))
				return *v;
			continue;
		}
		if (!key_room((void **)&p->lockey, &p->caploc, p->nloc,
			      sizeof(key)))
			return 0;
		memcpy(p->lockey[p->nloc], key, sizeof(key));
		*v = ++p->nloc;
		pb_num(&m, 1, *v);
		pb_num(&m, 2, mapping);
		pb_num(&m, 3, address);
		for (unsigned i = 0; i < n; i++) {
			struct pb l = { 0 };

			pb_num(&l, 1, lines[i].function);
			pb_num(&l, 2, (uint64_t)lines[i].line);
			if (!l.nomem)
				pb_len(&m, 4, l.b, l.len);
			m.nomem |= l.nomem;
			pb_fini(&l);
		}
		if (!m.nomem)
			pb_len(&p->locs, 4, m.b, m.len);
		pb_fini(&m);
		return *v;
	}
}

int pk_pprof_sample(struct pk_pprof *p, const uint64_t *locations,
		    unsigned n, const int64_t *values,
		    const struct pk_pprof_label *labels, unsigned nl)
{
	struct pb m = { 0 }, packed = { 0 };
	int err = 0;

	if (!values || (n && !locations))
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		pb_varint(&packed, locations[i]);
	if (packed.len)
		pb_len(&m, 1, packed.b, packed.len);
	packed.len = 0;
	for (unsigned i = 0; i < p->nt; i++)
		pb_varint(&packed, (uint64_t)values[i]);
	pb_len(&m, 2, packed.b, packed.len);
	for (unsigned i = 0; i < nl && !err; i++) {
		struct pb l = { 0 };
		int64_t ks = str_id(p, labels[i].key);
		int64_t ss = labels[i].str ? str_id(p, labels[i].str) : 0;
		int64_t us = str_id(p, labels[i].unit);

		if (ks <= 0 || ss < 0 || us < 0) {
			err = ks == 0 ? -EINVAL : -ENOMEM;
			break;
		}
		pb_num(&l, 1, (uint64_t)ks);
		pb_num(&l, 2, (uint64_t)ss);
		if (!labels[i].str)
			pb_num(&l, 3, (uint64_t)labels[i].num);
		pb_num(&l, 4, (uint64_t)us);
		pb_len(&m, 3, l.b, l.len);
		m.nomem |= l.nomem;
		pb_fini(&l);
	}
	if (!err && !m.nomem)
		pb_len(&p->samples, 2, m.b, m.len);
	if (!err && (m.nomem || packed.nomem || p->samples.nomem))
		err = -ENOMEM;
	pb_fini(&m);
	pb_fini(&packed);
	return err;
}

/* Where the message goes: straight to OUT, or gzipped on the way. */
struct sink {
	FILE *out;
	bool gzip;
	z_stream z;
	int err;
	uint8_t buf[1 << 16];
};

static void sink_flush(struct sink *k, int mode)
{
	int zr;

	do {
		k->z.next_out = k->buf;
		k->z.avail_out = sizeof(k->buf);
		zr = deflate(&k->z, mode);
		if (zr == Z_STREAM_ERROR) {
			k->err = -ENOMEM;
			return;
		}
		if (fwrite(k->buf, 1, sizeof(k->buf) - k->z.avail_out, k->out) !=
		    sizeof(k->buf) - k->z.avail_out) {
			k->err = -EIO;
			return;
		}
	} while (k->z.avail_out == 0 ||
		 (mode == Z_FINISH && zr != Z_STREAM_END));
}

static void put(struct sink *k, const void *p, size_t n)
{
	if (k->err || !n)
		return;
	if (!k->gzip) {
		if (fwrite(p, 1, n, k->out) != n)
			k->err = -EIO;
		return;
	}
	while (n && !k->err) {
		uInt part = n > (1u << 30) ? 1u << 30 : (uInt)n;

		k->z.next_in = (Bytef *)(uintptr_t)p;
		k->z.avail_in = part;
		sink_flush(k, Z_NO_FLUSH);
		p = (const uint8_t *)p + part;
		n -= part;
	}
}

/* The whole message, in field order: the small fields encoded here,
 * the big ones as they were kept. */
static int encode(struct pk_pprof *p, struct sink *k)
{
	struct pb out = { 0 };
	int64_t comment = p->o.comment ? str_id(p, p->o.comment) : 0;

	for (unsigned i = 0; i < p->nt; i++) {
		struct pb t = { 0 };

		pb_num(&t, 1, (uint64_t)p->types[i][0]);
		pb_num(&t, 2, (uint64_t)p->types[i][1]);
		pb_len(&out, 1, t.b, t.len);
		out.nomem |= t.nomem;
		pb_fini(&t);
	}
	put(k, out.b, out.len);
	put(k, p->samples.b, p->samples.len);
	put(k, p->maps.b, p->maps.len);
	put(k, p->locs.b, p->locs.len);
	put(k, p->funcs.b, p->funcs.len);
	put(k, p->strs.b, p->strs.len);
	out.len = 0;
	pb_num(&out, 9, (uint64_t)p->o.time_nanos);
	pb_num(&out, 10, (uint64_t)p->o.duration_nanos);
	if (p->period[0] || p->period[1]) {
		struct pb t = { 0 };

		pb_num(&t, 1, (uint64_t)p->period[0]);
		pb_num(&t, 2, (uint64_t)p->period[1]);
		pb_len(&out, 11, t.b, t.len);
		out.nomem |= t.nomem;
		pb_fini(&t);
	}
	pb_num(&out, 12, (uint64_t)p->o.period);
	pb_num(&out, 13, comment > 0 ? (uint64_t)comment : 0);
	pb_num(&out, 14, (uint64_t)p->deftype);
	put(k, out.b, out.len);
	if (out.nomem || comment < 0 || p->strs.nomem || p->maps.nomem ||
	    p->locs.nomem || p->funcs.nomem || p->samples.nomem)
		k->err = -ENOMEM;
	pb_fini(&out);
	return k->err;
}

void pk_pprof_set_default_type(struct pk_pprof *p, unsigned index)
{
	p->deftype = index < p->nt ? p->types[index][0] : 0;
}

void pk_pprof_set_time(struct pk_pprof *p, int64_t time_nanos,
		       int64_t duration_nanos)
{
	p->o.time_nanos = time_nanos;
	p->o.duration_nanos = duration_nanos;
}

int pk_pprof_write(struct pk_pprof *p, FILE *out, bool gzip)
{
	struct sink *k = pk__zalloc(sizeof(*k));
	int err;

	if (!k)
		return -ENOMEM;
	k->out = out;
	k->gzip = gzip;
	/* level 1: a profile's repetitions compress well even so, fast */
	if (gzip && deflateInit2(&k->z, 1, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY)) {
		pk__free(k);
		return -ENOMEM;
	}
	err = encode(p, k);
	if (gzip) {
		if (!err) {
			k->z.next_in = NULL;
			k->z.avail_in = 0;
			sink_flush(k, Z_FINISH);
			err = k->err;
		}
		deflateEnd(&k->z);
	}
	pk__free(k);
	return err ? err : ferror(out) ? -EIO : 0;
}
