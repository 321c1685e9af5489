/* SPDX-License-Identifier: MIT */
/* perf.data reader: opening, header and attribute sections, errors. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perfdata/pd.h"

static __thread const char *open_error
	__attribute__((tls_model("global-dynamic"))) = "";

const char *pk_perfdata_open_error(void)
{
	return open_error;
}

/* Field widths of perf_event_attr by offset (for the other byte order). */
static const unsigned char attr_layout[][2] = {
	{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 16, 8 }, { 24, 8 }, { 32, 8 },
	{ 40, 0 /* bitfield */ }, { 48, 4 }, { 52, 4 }, { 56, 8 }, { 64, 8 },
	{ 72, 8 }, { 80, 8 }, { 88, 4 }, { 92, 4 }, { 96, 8 }, { 104, 4 },
	{ 108, 2 }, { 110, 2 }, { 112, 4 }, { 116, 4 }, { 120, 8 },
	{ 128, 8 },
};

void pk__pd_swap_attr(void *attr, size_t size)
{
	unsigned char *p = attr;

	for (size_t i = 0; i < PK_ARRAY_SIZE(attr_layout); i++) {
		unsigned off = attr_layout[i][0], w = attr_layout[i][1];

		if (off + (w ? w : 8) > size)
			break;
		if (w == 2) {
			uint16_t v;
			memcpy(&v, p + off, 2);
			v = bswap_16(v);
			memcpy(p + off, &v, 2);
		} else if (w == 4) {
			uint32_t v = bswap_32(rd32(p + off));
			memcpy(p + off, &v, 4);
		} else if (w == 8) {
			uint64_t v = bswap_64(rd64(p + off));
			memcpy(p + off, &v, 8);
		} else {
			/* bitfields are laid out from the other end: reverse
			 * the bits of each byte (as perf does) */
			for (unsigned k = 0; k < 8; k++) {
				unsigned char c = p[off + k], r = 0;

				for (int bit = 0; bit < 8; bit++)
					r |= ((c >> bit) & 1) << (7 - bit);
				p[off + k] = r;
			}
		}
	}
}

int pk__pd_add_id(struct pk_perfdata *pd, uint64_t id, int attr)
{
	bool added;
	uint64_t *v = pk__hash_put(&pd->ids, id, &added);

	if (!v)
		return -ENOMEM;
	*v = (uint64_t)attr;
	return 0;
}

int pk_perfdata_add_attr(struct pk_perfdata *pd,
			 const struct perf_event_attr *attr, const char *name,
			 uint64_t id)
{
	char *n = name ? pk__strdup(name) : NULL;
	int idx;

	if (name && !n)
		return -ENOMEM;
	idx = pk__pd_add_attr(pd, attr, attr->size ? attr->size : sizeof(*attr),
			      id ? &id : NULL, id ? 1 : 0, false);
	if (idx < 0) {
		pk__free(n);
		return idx;
	}
	pd->attrs[idx].name = n;
	pd->attrs[idx].added = true;
	return idx;
}

int pk_perfdata_id_attr(const struct pk_perfdata *pd, uint64_t id)
{
	const uint64_t *v = pk__hash_get(&pd->ids, id);

	return v ? (int)*v : -1;
}

int pk__pd_add_attr(struct pk_perfdata *pd, const void *attr, uint64_t size,
		const uint64_t *ids, unsigned nr_ids, bool swap_ids)
{
	struct pd_attr *a, *n;
	size_t keep = size < PK_ATTR_MAX ? size : PK_ATTR_MAX;

	n = pk__realloc(pd->attrs, (pd->nr_attrs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	pd->attrs = n;
	a = &n[pd->nr_attrs];
	memset(a, 0, sizeof(*a));
	memcpy(a->raw, attr, keep);
	if (pd->swapped)
		pk__pd_swap_attr(a->raw, keep);
	if (a->attr.size == 0)
		a->attr.size = PERF_ATTR_SIZE_VER0;
	if (nr_ids) {
		a->ids = pk__calloc(nr_ids, sizeof(uint64_t));
		if (!a->ids)
			return -ENOMEM;
		for (unsigned i = 0; i < nr_ids; i++) {
			uint64_t id = rd64(&ids[i]);

			a->ids[i] = swap_ids ? pd64(pd, id) : id;
			if (pk__pd_add_id(pd, a->ids[i], pd->nr_attrs))
				return -ENOMEM;
		}
		a->nr_ids = nr_ids;
	}
	pd->nr_attrs++;
	pk__pd_compute_id_pos(pd);
	return pd->nr_attrs - 1;
}

/* A HEADER_ATTR record (pipe mode): attr then ids to the record's end. */
int pk__pd_record_attr(struct pk_perfdata *pd, const struct perf_event_header *h)
{
	const unsigned char *p = (const void *)h;
	uint32_t asz;

	if (h->size < 8 + PERF_ATTR_SIZE_VER0)
		return pk__pd_fail(pd, PK_ERR_FORMAT, pd->pos,
			       "PERF_RECORD_HEADER_ATTR of size %u is too short",
			       h->size);
	asz = ((const struct perf_event_attr *)(p + 8))->size;
	if (asz == 0)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > h->size - 8u || asz % 8)
		return pk__pd_fail(pd, PK_ERR_FORMAT, pd->pos,
			       "PERF_RECORD_HEADER_ATTR: attr size %u does not fit in record size %u",
			       asz, h->size);
	/* the record was already converted to host order */
	{
		bool sw = pd->swapped;
		int r;

		pd->swapped = false;
		r = pk__pd_add_attr(pd, p + 8, asz, (const void *)(p + 8 + asz),
				(h->size - 8 - asz) / 8, false);
		pd->swapped = sw;
		return r < 0 ? r : 0;
	}
}

/* Position of the id in samples (from the start) and trailers (from the
 * end), as u64 index; -1 when the attrs do not carry one. */
void pk__pd_compute_id_pos(struct pk_perfdata *pd)
{
	uint64_t st;
	int pos = 0, tail = 1;

	if (!pd->nr_attrs)
		return;
	st = pd->attrs[0].attr.sample_type;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		pd->id_pos = 0;
		pd->id_pos_tail = 1;
		return;
	}
	if (!(st & PERF_SAMPLE_ID)) {
		pd->id_pos = pd->id_pos_tail = -1;
		return;
	}
	pos += !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
	       !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
	pd->id_pos = pos;
	tail += !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
	pd->id_pos_tail = tail;
}

static int read_attrs(struct pk_perfdata *pd)
{
	uint64_t n, asz = pd->attr_size;

	if (!pd->attrs_size)
		return 0;
	if (asz < PERF_ATTR_SIZE_VER0 + 16 || asz > 4096)
		return open_error = "attr_size in header is invalid", -EPROTO;
	if (pd->attrs_off > pd->size || pd->attrs_size > pd->size - pd->attrs_off)
		return open_error = "attrs section lies outside the file", -EPROTO;
	n = pd->attrs_size / asz;
	for (uint64_t i = 0; i < n; i++) {
		const unsigned char *e = pd->buf + pd->attrs_off + i * asz;
		uint64_t ioff = pd64(pd, rd64(e + asz - 16));
		uint64_t isz = pd64(pd, rd64(e + asz - 8));
		int r;

		if (ioff > pd->size || isz > pd->size - ioff || isz % 8)
			return open_error = "attr ids lie outside the file",
			       -EPROTO;
		r = pk__pd_add_attr(pd, e, asz - 16, (const void *)(pd->buf + ioff),
				isz / 8, true);
		if (r < 0)
			return r;
	}
	return 0;
}

static int read_feat_table(struct pk_perfdata *pd)
{
	uint64_t off = pd->feat_off;

	for (int bit = 0; bit < PK_PD_FEAT_BITS; bit++) {
		uint64_t s_off, s_size;

		if (!(pd->feat_bits[bit / 64] >> (bit % 64) & 1))
			continue;
		if (off > pd->size || pd->size - off < 16) {
			pk__pd_warn(pd, "feature section table at %#llx is truncated",
				(unsigned long long)off);
			return 0;
		}
		s_off = pd64(pd, rd64(pd->buf + off));
		s_size = pd64(pd, rd64(pd->buf + off + 8));
		off += 16;
		if (bit >= PK_HEADER_MAX || bit == 0)
			continue;
		if (s_off > pd->size || s_size > pd->size - s_off) {
			pk__pd_warn(pd, "feature %s section at %#llx size %#llx lies outside the file",
				pk_perfdata_feat_name(bit),
				(unsigned long long)s_off,
				(unsigned long long)s_size);
			continue;
		}
		pd->feat[bit].present = true;
		pd->feat[bit].data = pd->buf + s_off;
		pd->feat[bit].size = s_size;
		pd->feat[bit].offset = s_off;
	}
	for (int f = 1; f < PK_HEADER_MAX; f++)
		if (pd->feat[f].present && pk__pd_parse_feat(pd, f) == -ENOMEM)
			return -ENOMEM;
	return 0;
}

static int read_header(struct pk_perfdata *pd)
{
	const unsigned char *b = pd->buf;
	uint64_t magic, hsz;

	if (pd->size < PK_PD_PIPE_SIZE)
		return open_error = "file is shorter than a perf.data header",
		       -EPROTO;
	magic = rd64(b);
	if (magic == PK_PD_MAGIC_SW)
		pd->swapped = true;
	else if (magic != PK_PD_MAGIC)
		return open_error = "not a perf.data file (bad magic)", -EPROTO;
	hsz = pd64(pd, rd64(b + 8));
	pd->id_pos = pd->id_pos_tail = -1;
	if (hsz == PK_PD_PIPE_SIZE) {
		pd->pipe = true;
		pd->pos = PK_PD_PIPE_SIZE;
		pd->end = pd->size;
		return 0;
	}
	if (hsz < PK_PD_HDR_SIZE || pd->size < PK_PD_HDR_SIZE)
		return open_error = "perf.data header is truncated", -EPROTO;
	pd->attr_size = pd64(pd, rd64(b + 16));
	pd->attrs_off = pd64(pd, rd64(b + 24));
	pd->attrs_size = pd64(pd, rd64(b + 32));
	pd->data_off = pd64(pd, rd64(b + 40));
	pd->data_size_hdr = pd->data_size = pd64(pd, rd64(b + 48));
	for (int i = 0; i < 4; i++)
		pd->feat_bits[i] = pd64(pd, rd64(b + 72 + 8 * i));
	if (pd->data_off > pd->size || pd->data_off < hsz)
		return open_error = "data section offset lies outside the file",
		       -EPROTO;
	if (pd->data_size == 0 || pd->data_size > pd->size - pd->data_off) {
		/* a writer that did not finish: read to the end */
		pd->data_to_eof = true;
		pd->data_size = pd->size - pd->data_off;
		if (pd->data_size_hdr)
			pk__pd_warn(pd, "data size %llu in the header runs past the end of the file; reading records to the end of the file",
				(unsigned long long)pd->data_size_hdr);
		else
			pk__pd_warn(pd, "data size in the header is 0 (writer did not finish?); reading records to the end of the file");
	}
	if (!pd->data_to_eof && !(pd->feat_bits[0] | pd->feat_bits[1] |
				  pd->feat_bits[2] | pd->feat_bits[3]) &&
	    pd->data_off + pd->data_size < pd->size) {
		/* no features but more bytes: records flushed after the
		 * header's last update by a writer that did not finish */
		pd->data_to_eof = true;
		pd->data_size = pd->size - pd->data_off;
		pk__pd_warn(pd, "file has no feature sections and %llu bytes past the data size in the header; reading records to the end of the file",
			(unsigned long long)(pd->size - pd->data_off -
					     pd->data_size_hdr));
	}
	pd->feat_off = pd->data_off + pd->data_size;
	pd->pos = pd->data_off;
	pd->end = pd->data_off + pd->data_size;
	if (read_attrs(pd))
		return -EPROTO;
	if (!pd->data_to_eof && read_feat_table(pd))
		return -ENOMEM;
	return 0;
}

static struct pk_perfdata *finish_open(struct pk_perfdata *pd,
				       const struct pk_perfdata_opts *opts,
				       const char *name)
{
	int r;

	pd->name = pk__strdup(opts && opts->name ? opts->name : name);
	pd->file_order = opts && opts->file_order;
	if (!pd->name) {
		pk_perfdata_free(pd);
		errno = ENOMEM;
		return NULL;
	}
	r = read_header(pd);
	if (r) {
		if (r == -EPROTO)
			pk_warn("perf.data '%s': %s", pd->name, open_error);
		pk_perfdata_free(pd);
		errno = -r;
		return NULL;
	}
	return pd;
}

struct pk_perfdata *pk_perfdata_open_mem(const void *buf, size_t size,
					 const struct pk_perfdata_opts *opts)
{
	struct pk_perfdata *pd;

	if (!PK_OPTS_VALID(opts, pk_perfdata_opts) || (!buf && size)) {
		errno = EINVAL;
		return NULL;
	}
	pd = pk__zalloc(sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->buf = buf;
	pd->size = size;
	return finish_open(pd, opts, "(memory)");
}

struct pk_perfdata *pk_perfdata_reopen(const struct pk_perfdata *pd,
				       const struct pk_perfdata_opts *opts)
{
	if (!pd) {
		errno = EINVAL;
		return NULL;
	}
	return pk_perfdata_open_mem(pd->buf, pd->size, opts);
}

static int slurp(int fd, unsigned char **out, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	unsigned char *b = pk__malloc(cap), *nb;

	if (!b)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (n == cap) {
			nb = pk__realloc(b, cap * 2);
			if (!nb) {
				pk__free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			pk__free(b);
			return -e;
		}
		if (r == 0)
			break;
		n += r;
	}
	*out = b;
	*len = n;
	return 0;
}

static struct pk_perfdata *open_fd_named(int fd,
					 const struct pk_perfdata_opts *opts,
					 const char *name)
{
	struct pk_perfdata *pd;
	struct stat st;

	if (!PK_OPTS_VALID(opts, pk_perfdata_opts)) {
		errno = EINVAL;
		return NULL;
	}
	if (fstat(fd, &st))
		return NULL;
	pd = pk__zalloc(sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		pd->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (pd->map == MAP_FAILED) {
			int e = errno;

			pk__free(pd);
			errno = e;
			return NULL;
		}
		madvise(pd->map, st.st_size, MADV_SEQUENTIAL);
		pd->buf = pd->map;
		pd->size = st.st_size;
	} else {
		int r = slurp(fd, &pd->owned, &pd->size);

		if (r) {
			pk__free(pd);
			errno = -r;
			return NULL;
		}
		pd->buf = pd->owned;
	}
	return finish_open(pd, opts, name);
}

struct pk_perfdata *pk_perfdata_open_fd(int fd,
					const struct pk_perfdata_opts *opts)
{
	return open_fd_named(fd, opts, "(fd)");
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* A directory given as the file (perf record --kcore's, -o DIR): perf
 * reads DIR/data and remembers DIR (its kcore_dir). */
static struct pk_perfdata *open_dir(const char *dir,
				    const struct pk_perfdata_opts *opts)
{
	size_t n = strlen(dir);
	char *path = pk__malloc(n + sizeof("/data"));
	char *keep = pk__strdup(dir);
	struct pk_perfdata *pd = NULL;

	if (path && keep) {
		memcpy(path, dir, n);
		memcpy(path + n, "/data", sizeof("/data"));
		pd = pk_perfdata_open(path, opts);
	} else {
		errno = ENOMEM;
	}
	if (pd) {
		pd->dir = keep;
		keep = NULL;
	}
	{
		int e = errno;

		pk__free(path);
		pk__free(keep);
		errno = e;
	}
	return pd;
}

struct pk_perfdata *pk_perfdata_open(const char *path,
				     const struct pk_perfdata_opts *opts)
{
	struct pk_perfdata *pd;
	int fd, e;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	if (!strcmp(path, "-"))
		return open_fd_named(0, opts, "(stdin)");
	if (is_dir(path))
		return open_dir(path, opts);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	pd = open_fd_named(fd, opts, path);
	e = errno;
	close(fd);
	errno = e;
	return pd;
}

const char *pk_perfdata_dir(const struct pk_perfdata *pd)
{
	return pd ? pd->dir : NULL;
}

void pk_perfdata_free(struct pk_perfdata *pd)
{
	if (!pd)
		return;
	if (pd->map)
		munmap(pd->map, pd->size);
	pk__free(pd->owned);
	pk__free(pd->dir);
	for (unsigned i = 0; i < pd->nr_attrs; i++) {
		pk__free(pd->attrs[i].ids);
		pk__free(pd->attrs[i].name);
		pk__free(pd->attrs[i].auto_name);
	}
	pk__free(pd->attrs);
	pk__hash_fini(&pd->ids);
	pk__hash_fini(&pd->guest_ids);
	pk__free(pd->q);
	pk__free(pd->qtmp);
	while (pd->chunks) {
		struct pd_chunk *c = pd->chunks;

		pd->chunks = c->next;
		pk__free(c);
	}
	pk__free(pd->swapbuf);
	pk__free(pd->cbuf);
	pk__pd_zfree(pd);
	pk__pd_free_feats(pd);
	pk__free(pd->name);
	pk__free(pd);
}

uint64_t pk_perfdata_offset(const struct pk_perfdata *pd)
{
	return pd->pos;
}

const char *pk_perfdata_errmsg(const struct pk_perfdata *pd)
{
	return pd->errmsg;
}

uint64_t pk_perfdata_err_offset(const struct pk_perfdata *pd)
{
	return pd->err_off;
}

unsigned pk_perfdata_nr_warnings(const struct pk_perfdata *pd)
{
	return pd->nr_warn;
}

void pk_perfdata_info(const struct pk_perfdata *pd,
		      struct pk_perfdata_info *in)
{
	memset(in, 0, sizeof(*in));
	in->pipe = pd->pipe;
	in->swapped = pd->swapped;
	in->size = pd->size;
	in->header_size = pd->pipe ? PK_PD_PIPE_SIZE : PK_PD_HDR_SIZE;
	in->attr_size = pd->attr_size;
	in->attrs_offset = pd->attrs_off;
	in->attrs_size = pd->attrs_size;
	in->data_offset = pd->data_off;
	in->data_size = pd->data_size;
	in->data_size_header = pd->data_size_hdr;
	in->feat_offset = pd->feat_off;
	in->data_to_eof = pd->data_to_eof;
}

unsigned pk_perfdata_nr_attrs(const struct pk_perfdata *pd)
{
	return pd->nr_attrs;
}

const struct perf_event_attr *pk_perfdata_attr(const struct pk_perfdata *pd,
					       unsigned idx)
{
	return idx < pd->nr_attrs ? &pd->attrs[idx].attr : NULL;
}

const uint64_t *pk_perfdata_attr_ids(const struct pk_perfdata *pd,
				     unsigned idx, unsigned *nr)
{
	*nr = idx < pd->nr_attrs ? pd->attrs[idx].nr_ids : 0;
	return *nr ? pd->attrs[idx].ids : NULL;
}

/* perf's names of hardware and software events (no modifiers). */
static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses",
	"branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output", "cgroup-switches",
};

/* perf's modifiers of a name made from the attr (evsel__add_modifiers):
 * k/u/h for the rings counted when one is excluded, p's, and H/G when
 * the host is excluded or the guest's bit is its default. */
static void add_modifiers(const struct perf_event_attr *a, char *b, size_t n)
{
	size_t k = strlen(b), colon = k;
	bool guest_default = false;

#define MOD(excl, c) do { if (!(excl) && k + 2 < n) b[k++] = (c); } while (0)
	b[k++] = ':';
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		guest_default = true;
	}
	for (unsigned i = 0; i < a->precise_ip && k + 2 < n; i++)
		b[k++] = 'p';
	if (a->precise_ip)
		guest_default = true;
	if (a->exclude_host || a->exclude_guest == guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
	b[k == colon + 1 ? colon : k] = '\0';
}

int pk_attr_made_name(const struct perf_event_attr *a, char *buf, size_t len)
{
	const char *base = NULL;
	char b[128];

	if (a->type == PERF_TYPE_HARDWARE && a->config < PK_ARRAY_SIZE(hw_names))
		base = hw_names[a->config];
	if (a->type == PERF_TYPE_SOFTWARE && a->config < PK_ARRAY_SIZE(sw_names))
		base = sw_names[a->config];
	if (!base && a->type != PERF_TYPE_RAW)
		return -ENOENT;
	/* perf's evsel__raw_name: "raw 0x1cd" */
	if (base)
		snprintf(b, sizeof(b), "%s", base);
	else
		snprintf(b, sizeof(b), "raw 0x%llx", (unsigned long long)a->config);
	add_modifiers(a, b, sizeof(b));
	return snprintf(buf, len, "%s", b);
}

const char *pk_perfdata_attr_name(const struct pk_perfdata *pd, unsigned idx)
{
	if (idx >= pd->nr_attrs)
		return NULL;
	if (pd->attrs[idx].name)
		return pd->attrs[idx].name;
	return pk_perfdata_attr_made_name(pd, idx);
}

const char *pk_perfdata_attr_made_name(const struct pk_perfdata *pd,
				       unsigned idx)
{
	const struct perf_event_attr *a;
	const char *base = NULL;
	char b[128];

	if (idx >= pd->nr_attrs)
		return NULL;
	if (pd->attrs[idx].auto_name)
		return pd->attrs[idx].auto_name;
	a = &pd->attrs[idx].attr;
	if (pk_attr_made_name(a, b, sizeof(b)) < 0)
		return NULL;
	if (a->type == PERF_TYPE_HARDWARE)
		base = hw_names[a->config];
	else if (a->type == PERF_TYPE_SOFTWARE)
		base = sw_names[a->config];
	/* made once, kept with the attr (freed with the file) */
	((struct pk_perfdata *)pd)->attrs[idx].auto_name = pk__strdup(b);
	return pd->attrs[idx].auto_name ? pd->attrs[idx].auto_name : base;
}
