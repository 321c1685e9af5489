/* SPDX-License-Identifier: MIT */
/*
 * Every perf.data file of ../shared/corpus/perf-data read with the
 * perfdata reader, and compared field by field with its .pb_text.gz
 * golden (protobuf text from perf_data_converter): attrs and ids, every
 * event's header, sample fields, callchains and branch stacks, mmap/comm/
 * fork/exit/lost/throttle/switch fields and sample_id trailers, string
 * metadata and build ids. Files without a golden must read to the end
 * (the deliberately corrupted one: a clear error after the records that
 * precede the damage).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <perfkit/perfdata.h>
#include "test.h"

/* ---- a small protobuf text-format reader ---- */

struct node {
	char *key, *val;            /* val NULL for a message */
	struct node **kid;
	unsigned nkid;
};

struct lex {
	const char *p, *end;
};

static void skipws(struct lex *l)
{
	while (l->p < l->end && isspace((unsigned char)*l->p))
		l->p++;
}

static char *word(struct lex *l)
{
	const char *s = l->p;

	while (l->p < l->end && (isalnum((unsigned char)*l->p) ||
				 *l->p == '_' || *l->p == '-' || *l->p == '.'))
		l->p++;
	return strndup(s, l->p - s);
}

/* A quoted string with C escapes; returns the bytes (NUL-terminated,
 * *len set). */
static char *qstring(struct lex *l, size_t *len)
{
	char *o = malloc(l->end - l->p + 1);
	size_t n = 0;

	l->p++;
	while (l->p < l->end && *l->p != '"') {
		char c = *l->p++;

		if (c == '\\' && l->p < l->end) {
			c = *l->p++;
			if (c >= '0' && c <= '7') {
				int v = c - '0';

				for (int k = 0; k < 2 && l->p < l->end &&
				     *l->p >= '0' && *l->p <= '7'; k++)
					v = v * 8 + (*l->p++ - '0');
				c = (char)v;
			} else if (c == 'n') {
				c = '\n';
			} else if (c == 't') {
				c = '\t';
			} else if (c == 'r') {
				c = '\r';
			}
		}
		o[n++] = c;
	}
	l->p++;
	o[n] = 0;
	*len = n;
	return o;
}

static struct node *parse_body(struct lex *l, const char *key);

static void add_kid(struct node *n, struct node *k)
{
	n->kid = realloc(n->kid, (n->nkid + 1) * sizeof(*n->kid));
	n->kid[n->nkid++] = k;
}

static struct node *parse_body(struct lex *l, const char *key)
{
	struct node *n = calloc(1, sizeof(*n));

	n->key = strdup(key);
	for (;;) {
		struct node *k;
		char *w;

		skipws(l);
		if (l->p >= l->end || *l->p == '}') {
			l->p++;
			return n;
		}
		w = word(l);
		if (!*w) {             /* garbage: stop */
			free(w);
			l->p = l->end;
			return n;
		}
		skipws(l);
		if (*l->p == '{') {
			l->p++;
			k = parse_body(l, w);
		} else {
			size_t len;

			l->p++;        /* ':' */
			skipws(l);
			k = calloc(1, sizeof(*k));
			k->key = strdup(w);
			if (*l->p == '"')
				k->val = qstring(l, &len);
			else
				k->val = word(l);
		}
		free(w);
		add_kid(n, k);
	}
}

static void node_free(struct node *n)
{
	for (unsigned i = 0; i < n->nkid; i++)
		node_free(n->kid[i]);
	free(n->kid);
	free(n->key);
	free(n->val);
	free(n);
}

static struct node *load_golden(const char *path)
{
	gzFile f = gzopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	struct lex l;
	struct node *n;
	int r;

	if (!f)
		return NULL;
	do {
		if (cap - len < 65536)
			buf = realloc(buf, cap = cap ? cap * 2 : 1 << 20);
		r = gzread(f, buf + len, (unsigned)(cap - len));
		if (r > 0)
			len += r;
	} while (r > 0);
	gzclose(f);
	l.p = buf;
	l.end = buf + len;
	n = parse_body(&l, "");
	free(buf);
	return n;
}

static struct node *child(const struct node *n, const char *key)
{
	for (unsigned i = 0; n && i < n->nkid; i++)
		if (!strcmp(n->kid[i]->key, key))
			return n->kid[i];
	return NULL;
}

static bool num(const struct node *n, const char *key, uint64_t *v)
{
	const struct node *k = child(n, key);

	if (!k || !k->val)
		return false;
	if (!strcmp(k->val, "true"))
		*v = 1;
	else if (!strcmp(k->val, "false"))
		*v = 0;
	else
		*v = strtoull(k->val, NULL, 10);
	return true;
}

/* ---- comparison ---- */

struct cmp {
	const char *file;
	/* an MMAP the converter merged with the //anon one after it */
	uint64_t merge_end, merge_len, merge_golden;
	unsigned merge_ev;
	unsigned checked, bad;
	char first[512];
};

static void mismatch(struct cmp *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void mismatch(struct cmp *c, const char *fmt, ...)
{
	va_list ap;

	if (getenv("PK_CORPUS_DEBUG") && c->bad < 20) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	if (!c->bad++) {
		va_start(ap, fmt);
		vsnprintf(c->first, sizeof(c->first), fmt, ap);
		va_end(ap);
	}
}

/* Compares golden field KEY of N (when present) with V. */
static void field(struct cmp *c, unsigned ev, const struct node *n,
		  const char *key, uint64_t v)
{
	uint64_t g;

	if (!num(n, key, &g))
		return;
	c->checked++;
	if (g != v && (uint32_t)g != (uint32_t)v)
		mismatch(c, "event %u: %s %s golden %" PRIu64 " read %" PRIu64,
			 ev, n->key, key, g, v);
}

static void str_field(struct cmp *c, unsigned ev, const struct node *n,
		      const char *key, const char *v)
{
	const struct node *k = child(n, key);

	if (!k || !k->val)
		return;
	c->checked++;
	if (strcmp(k->val, v))
		mismatch(c, "event %u: %s '%s' != '%s'", ev, key, k->val, v);
}

static void sample_info(struct cmp *c, unsigned ev, const struct node *si,
			const struct pk_sample *s)
{
	if (!si)
		return;
	field(c, ev, si, "pid", s->pid);
	field(c, ev, si, "tid", s->tid);
	field(c, ev, si, "sample_time_ns", s->time);
	field(c, ev, si, "id", s->id);
	field(c, ev, si, "cpu", s->cpu);
}

static void cmp_sample(struct cmp *c, unsigned ev, const struct node *g,
		       const struct pk_sample *s)
{
	unsigned ci = 0, bi = 0;

	field(c, ev, g, "ip", s->ip);
	field(c, ev, g, "pid", s->pid);
	field(c, ev, g, "tid", s->tid);
	field(c, ev, g, "sample_time_ns", s->time);
	field(c, ev, g, "addr", s->addr);
	field(c, ev, g, "id", s->id);
	field(c, ev, g, "stream_id", s->stream_id);
	field(c, ev, g, "cpu", s->cpu);
	field(c, ev, g, "period", s->period);
	field(c, ev, g, "weight", s->weight);
	field(c, ev, g, "data_src", s->data_src);
	field(c, ev, g, "transaction", s->transaction);
	field(c, ev, g, "physical_addr", s->phys_addr);
	field(c, ev, g, "cgroup", s->cgroup);
	field(c, ev, g, "data_page_size", s->data_page_size);
	field(c, ev, g, "code_page_size", s->code_page_size);
	field(c, ev, g, "raw_size", s->raw.size);
	field(c, ev, g, "branch_stack_hw_idx", s->branch.hw_idx);
	for (unsigned i = 0; i < g->nkid; i++) {
		const struct node *k = g->kid[i];

		if (!strcmp(k->key, "callchain")) {
			uint64_t v = strtoull(k->val, NULL, 10);

			c->checked++;
			/* the converter flags some user addresses it could
			 * not map with bit 63 */
			if (ci >= s->callchain.nr ||
			    (s->callchain.ips[ci] != v &&
			     (s->callchain.ips[ci] | 1ULL << 63) != v))
				mismatch(c, "event %u: callchain[%u]", ev, ci);
			ci++;
		} else if (!strcmp(k->key, "branch_stack")) {
			struct perf_branch_entry e = { 0 };

			if (bi < s->branch.nr)
				memcpy(&e, &s->branch.entries[bi], sizeof(e));
			else
				mismatch(c, "event %u: branch %u missing", ev,
					 bi);
			field(c, ev, k, "from_ip", e.from);
			field(c, ev, k, "to_ip", e.to);
			field(c, ev, k, "mispredicted", e.mispred);
			field(c, ev, k, "predicted", e.predicted);
			field(c, ev, k, "in_transaction", e.in_tx);
			field(c, ev, k, "abort", e.abort);
			field(c, ev, k, "cycles", e.cycles);
			field(c, ev, k, "type", e.type);
			bi++;
		}
	}
	if (ci && ci != s->callchain.nr)
		mismatch(c, "event %u: callchain length %u != %" PRIu64, ev, ci,
			 s->callchain.nr);
}

#define U32(o) (*(const uint32_t *)(p + (o)))
#define U64(o) (*(const uint64_t *)(p + (o)))

static void cmp_event(struct cmp *c, unsigned ev, const struct node *g,
		      struct pk_perfdata *pd, const struct pk_record *rec)
{
	const unsigned char *p = (const void *)rec->hdr;
	const struct node *h = child(g, "header"), *k = NULL;
	struct pk_sample s;
	uint64_t ts;

	field(c, ev, h, "type", rec->type);
	field(c, ev, h, "misc", rec->misc);
	field(c, ev, h, "size", rec->size);
	memset(&s, 0, sizeof(s));
	if (rec->type < 64 && pk_sample_parse(pd, rec, &s))
		mismatch(c, "event %u: sample parse: %s", ev,
			 pk_perfdata_errmsg(pd));
	if (num(g, "timestamp", &ts) && rec->type < 64) {
		c->checked++;
		if (ts != s.time)
			mismatch(c, "event %u: timestamp %" PRIu64 " != %"
				 PRIu64, ev, ts, s.time);
	}
	for (unsigned i = 0; i < g->nkid; i++)
		if (strstr(g->kid[i]->key, "_event"))
			k = g->kid[i];
	if (!k)
		return;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		cmp_sample(c, ev, k, &s);
		return;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		field(c, ev, k, "pid", U32(8));
		field(c, ev, k, "tid", U32(12));
		field(c, ev, k, "start", U64(16));
		{
			uint64_t gl;

			/* perf_data_converter merges a mapping with an
			 * adjacent //anon one: checked when that comes */
			if (num(k, "len", &gl) && gl > U64(24)) {
				c->merge_end = U64(16) + U64(24);
				c->merge_len = U64(24);
				c->merge_golden = gl;
				c->merge_ev = ev;
			} else {
				field(c, ev, k, "len", U64(24));
			}
		}
		field(c, ev, k, "pgoff", U64(32));
		if (rec->type == PERF_RECORD_MMAP2) {
			field(c, ev, k, "maj", U32(40));
			field(c, ev, k, "min", U32(44));
			field(c, ev, k, "ino", U64(48));
			field(c, ev, k, "ino_generation", U64(56));
			field(c, ev, k, "prot", U32(64));
			field(c, ev, k, "flags", U32(68));
		}
		str_field(c, ev, k, "filename", (const char *)p +
			  (rec->type == PERF_RECORD_MMAP ? 40 : 72));
		break;
	case PERF_RECORD_COMM:
		field(c, ev, k, "pid", U32(8));
		field(c, ev, k, "tid", U32(12));
		str_field(c, ev, k, "comm", (const char *)p + 16);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		field(c, ev, k, "pid", U32(8));
		field(c, ev, k, "ppid", U32(12));
		field(c, ev, k, "tid", U32(16));
		field(c, ev, k, "ptid", U32(20));
		field(c, ev, k, "fork_time_ns", U64(24));
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		field(c, ev, k, "time_ns", U64(8));
		field(c, ev, k, "id", U64(16));
		field(c, ev, k, "stream_id", U64(24));
		break;
	case PERF_RECORD_LOST:
		field(c, ev, k, "id", U64(8));
		field(c, ev, k, "lost", U64(16));
		break;
	case PERF_RECORD_LOST_SAMPLES:
		field(c, ev, k, "num_lost", U64(8));
		break;
	case PERF_RECORD_AUX:
		field(c, ev, k, "aux_offset", U64(8));
		field(c, ev, k, "aux_size", U64(16));
		field(c, ev, k, "is_truncated", !!(U64(24) & 1));
		field(c, ev, k, "is_overwrite", !!(U64(24) & 2));
		field(c, ev, k, "is_partial", !!(U64(24) & 4));
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		field(c, ev, k, "next_prev_pid", U32(8));
		field(c, ev, k, "next_prev_tid", U32(12));
		/* fall through */
	case PERF_RECORD_SWITCH:
		field(c, ev, k, "is_out", !!(rec->misc &
					     PERF_RECORD_MISC_SWITCH_OUT));
		break;
	case PK_RECORD_AUXTRACE:
		field(c, ev, k, "size", U64(8));
		field(c, ev, k, "offset", U64(16));
		field(c, ev, k, "reference", U64(24));
		field(c, ev, k, "idx", U32(32));
		field(c, ev, k, "tid", U32(36));
		field(c, ev, k, "cpu", U32(40));
		c->checked++;
		if (rec->extra_size != U64(8))
			mismatch(c, "event %u: auxtrace payload", ev);
		break;
	case PK_RECORD_TIME_CONV:
		field(c, ev, k, "time_shift", U64(8));
		field(c, ev, k, "time_mult", U64(16));
		field(c, ev, k, "time_zero", U64(24));
		break;
	default:
		break;
	}
	sample_info(c, ev, child(k, "sample_info"), &s);
}

static uint64_t golden_type(const struct node *ev)
{
	uint64_t t = 0;

	num(child(ev, "header"), "type", &t);
	return t;
}

/* Records perf_data_converter leaves out of "events". */
static bool golden_skips(const struct pk_record *rec)
{
	static const uint32_t skip[] = { 64, 65, 66, 67, 74, 78, 80, 81, 82 };

	for (unsigned i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (rec->type == skip[i])
			return true;
	return false;
}

static void cmp_attrs(struct cmp *c, const struct node *g,
		      struct pk_perfdata *pd)
{
	unsigned ai = 0;

	for (unsigned i = 0; i < g->nkid; i++) {
		const struct node *fa = g->kid[i], *a = child(fa, "attr");
		const struct perf_event_attr *r;
		const uint64_t *ids;
		unsigned nid, ii = 0;

		if (strcmp(fa->key, "file_attrs"))
			continue;
		r = pk_perfdata_attr(pd, ai);
		if (!r) {
			mismatch(c, "attr %u missing", ai);
			return;
		}
		field(c, 1000 + ai, a, "type", r->type);
		field(c, 1000 + ai, a, "config", r->config);
		field(c, 1000 + ai, a, "sample_period", r->sample_period);
		field(c, 1000 + ai, a, "sample_type", r->sample_type);
		field(c, 1000 + ai, a, "read_format", r->read_format);
		field(c, 1000 + ai, a, "sample_id_all", r->sample_id_all);
		field(c, 1000 + ai, a, "freq", r->freq);
		field(c, 1000 + ai, a, "branch_sample_type",
		      r->branch_sample_type);
		ids = pk_perfdata_attr_ids(pd, ai, &nid);
		for (unsigned k = 0; k < fa->nkid; k++)
			if (!strcmp(fa->kid[k]->key, "ids")) {
				c->checked++;
				if (ii >= nid || ids[ii] !=
				    strtoull(fa->kid[k]->val, NULL, 10))
					mismatch(c, "attr %u id %u", ai, ii);
				ii++;
			}
		ai++;
	}
}

static void cmp_meta(struct cmp *c, const struct node *g,
		     struct pk_perfdata *pd)
{
	const struct node *sm = child(g, "string_metadata");
	static const struct { const char *key; int feat; } strs[] = {
		{ "hostname", PK_HEADER_HOSTNAME },
		{ "kernel_version", PK_HEADER_OSRELEASE },
		{ "perf_version", PK_HEADER_VERSION },
		{ "architecture", PK_HEADER_ARCH },
		{ "cpu_description", PK_HEADER_CPUDESC },
		{ "cpu_id", PK_HEADER_CPUID },
	};
	unsigned nb = 0;

	for (unsigned i = 0; sm && i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *v = pk_perfdata_feat_str(pd, strs[i].feat);

		if (child(sm, strs[i].key))
			str_field(c, 2000 + i, child(sm, strs[i].key), "value",
				  v ? v : "(none)");
	}
	for (unsigned i = 0; i < g->nkid; i++) {
		struct pk_build_id b;

		if (strcmp(g->kid[i]->key, "build_ids"))
			continue;
		c->checked++;
		if (pk_perfdata_build_id(pd, nb, &b)) {
			mismatch(c, "build id %u missing", nb);
			break;
		}
		str_field(c, 3000 + nb, g->kid[i], "filename", b.filename);
		field(c, 3000 + nb, g->kid[i], "pid", (uint32_t)b.pid);
		nb++;
	}
}

static void check_file(const char *dir, const char *name)
{
	char path[512], gpath[600], tn[300];
	struct node *g, *ev = NULL;
	PK_OPTS(pk_perfdata_opts, o, .file_order = false);
	struct pk_perfdata *pd;
	struct pk_record rec;
	struct cmp c = { .file = name };
	unsigned gi = 0, gu = 0, n = 0, ng = 0;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(gpath, sizeof(gpath), "%s.pb_text.gz", path);
	g = load_golden(gpath);
	pd = pk_perfdata_open(path, &o);
	snprintf(tn, sizeof(tn), "perfdata_corpus_open_%s", name);
	if (!t_check(pd != NULL, tn, "%s", pk_perfdata_open_error()))
		return;
	for (unsigned i = 0; g && i < g->nkid; i++)
		ng += !strcmp(g->kid[i]->key, "events");
	while ((err = pk_perfdata_next(pd, &rec)) == 0) {
		n++;
		if (c.merge_golden && rec.type == PERF_RECORD_MMAP &&
		    !strcmp((const char *)rec.hdr + 40, "//anon") &&
		    *(const uint64_t *)((const char *)rec.hdr + 16) ==
		    c.merge_end) {
			const unsigned char *p = (const void *)rec.hdr;

			c.checked++;
			if (c.merge_len + U64(24) != c.merge_golden)
				mismatch(&c, "event %u: merged mmap len",
					 c.merge_ev);
			c.merge_golden = 0;
			continue;
		}
		if (!g || golden_skips(&rec))
			continue;
		if (c.merge_golden)
			mismatch(&c, "event %u: mmap len %" PRIu64 " golden %"
				 PRIu64, c.merge_ev, c.merge_len,
				 c.merge_golden);
		c.merge_golden = 0;
		/* kernel records follow the golden in time order; perf's
		 * own records in their own sequence (the converter places
		 * them differently from perf) */
		{
			unsigned *cur = rec.type < 64 ? &gi : &gu;

			while (*cur < g->nkid &&
			       !(!strcmp(g->kid[*cur]->key, "events") &&
				 (golden_type(g->kid[*cur]) < 64) ==
				 (rec.type < 64)))
				(*cur)++;
			if (*cur >= g->nkid) {
				mismatch(&c, "record %u at %#" PRIx64
					 " has no golden", n, rec.offset);
				continue;
			}
			ev = g->kid[(*cur)++];
		}
		cmp_event(&c, n, ev, pd, &rec);
	}
	snprintf(tn, sizeof(tn), "perfdata_corpus_read_%s", name);
	if (strstr(name, "corrupted")) {
		t_check(err == PK_ERR_FORMAT && n > 100 &&
			strstr(pk_perfdata_errmsg(pd), "offset 0x") &&
			strstr(pk_perfdata_errmsg(pd), "SAMPLE"), tn,
			"%u records, %s: %s", n, pk_strerror(err),
			pk_perfdata_errmsg(pd));
	} else {
		t_check(err == PK_ERR_EOS && n > 0, tn, "%u records, %s: %s", n,
			pk_strerror(err), pk_perfdata_errmsg(pd));
	}
	if (g) {
		unsigned left = 0;

		for (; gi < g->nkid; gi++)
			left += !strcmp(g->kid[gi]->key, "events") &&
				golden_type(g->kid[gi]) < 64;
		for (; gu < g->nkid; gu++)
			left += !strcmp(g->kid[gu]->key, "events") &&
				golden_type(g->kid[gu]) >= 64;
		if (left)
			mismatch(&c, "%u golden events not read", left);
		cmp_attrs(&c, g, pd);
		cmp_meta(&c, g, pd);
		snprintf(tn, sizeof(tn), "perfdata_corpus_golden_%s", name);
		t_check(c.bad == 0 && c.checked > ng, tn,
			"%u of %u fields differ; first: %s", c.bad, c.checked,
			c.first);
		node_free(g);
	}
	pk_perfdata_free(pd);
}

int main(void)
{
	const char *dir = t_shared_need("perfdata_corpus", "corpus/perf-data");
	struct dirent **ents;
	int n;

	if (!dir)
		return t_exit();
	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		t_fail("perfdata_corpus", "%s: %s", dir, strerror(errno));
		return t_exit();
	}
	for (int i = 0; i < n; i++) {
		const char *f = ents[i]->d_name;

		if (!strncmp(f, "perf.data.", 10) && !strchr(f + 10, '.') ? 1 :
		    (!strncmp(f, "perf.data.", 10) && !strstr(f, ".pb_text") &&
		     !strstr(f, ".buildids")))
			check_file(dir, f);
		free(ents[i]);
	}
	free(ents);
	return t_exit();
}
