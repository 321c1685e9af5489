/* SPDX-License-Identifier: MIT */
/*
 * The BPF programs loaded when a recording starts, as perf 6.1 records
 * them (perf_event__synthesize_bpf_events): per program its info with
 * the arrays perf keeps (bpf_prog_info_linear), its BTF object when it
 * has BTF func info, a PERF_RECORD_KSYMBOL per function and one
 * PERF_RECORD_BPF_EVENT; then a KSYMBOL per BPF trampoline and
 * dispatcher in kallsyms. The infos and BTF objects are kept, sorted by
 * id, for HEADER_BPF_PROG_INFO and HEADER_BPF_BTF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include "base/base.h"
#include "sys/sys.h"
#include "symbol/ksyms.h"
#include <perfkit/perfdata.h>
#include <perfkit/synth.h>

#define INFO_LEN 232	/* perf 6.1's sizeof(struct bpf_prog_info) */

/* perf's kept arrays, in its BPIL_* bit order */
enum { A_JITED_INSNS, A_XLATED, A_MAP_IDS, A_KSYMS, A_FUNC_LENS,
       A_FUNC_INFO, A_LINE_INFO, A_JITED_LINE_INFO, A_TAGS, A_NR };
#define KEPT (1u << A_KSYMS | 1u << A_FUNC_LENS | 1u << A_FUNC_INFO | \
	      1u << A_TAGS | 1u << A_JITED_INSNS | 1u << A_LINE_INFO | \
	      1u << A_JITED_LINE_INFO)
#define OFF(f) offsetof(struct bpf_prog_info, f)
static const struct { int array, count, size; } arrays[A_NR] = {
	[A_JITED_INSNS] = { OFF(jited_prog_insns), OFF(jited_prog_len), -1 },
	[A_XLATED] = { OFF(xlated_prog_insns), OFF(xlated_prog_len), -1 },
	[A_MAP_IDS] = { OFF(map_ids), OFF(nr_map_ids), -4 },
	[A_KSYMS] = { OFF(jited_ksyms), OFF(nr_jited_ksyms), -8 },
	[A_FUNC_LENS] = { OFF(jited_func_lens), OFF(nr_jited_func_lens), -4 },
	[A_FUNC_INFO] = { OFF(func_info), OFF(nr_func_info),
			  OFF(func_info_rec_size) },
	[A_LINE_INFO] = { OFF(line_info), OFF(nr_line_info),
			  OFF(line_info_rec_size) },
	[A_JITED_LINE_INFO] = { OFF(jited_line_info), OFF(nr_jited_line_info),
				OFF(jited_line_info_rec_size) },
	[A_TAGS] = { OFF(prog_tags), OFF(nr_prog_tags), -BPF_TAG_SIZE },
};

union info {
	struct bpf_prog_info i;
	uint8_t b[INFO_LEN > sizeof(struct bpf_prog_info) ? INFO_LEN :
		  sizeof(struct bpf_prog_info)];
};

struct blob {
	uint32_t id;
	size_t size;
	void *data;
};

struct blobs {
	struct blob *v;
	size_t n;
};

struct pk_bpf_progs {
	struct blobs progs, btfs;  /* entries, BTF objects; sorted by id */
};

static uint32_t get32(const union info *u, int off)
{
	uint32_t v;

	if (off < 0)
		return (uint32_t)-off;
	memcpy(&v, u->b + off, 4);
	return v;
}

static void put32(union info *u, int off, uint32_t v)
{
	if (off >= 0)
		memcpy(u->b + off, &v, 4);
}

static void put64(union info *u, int off, uint64_t v)
{
	memcpy(u->b + off, &v, 8);
}

/* Inserts DATA (taken over) under ID; a duplicate is dropped, as perf's
 * env drops it. */
static int blobs_add(struct blobs *b, uint32_t id, void *data, size_t size)
{
	size_t at = 0;
	struct blob *v;

	while (at < b->n && b->v[at].id < id)
		at++;
	if (at < b->n && b->v[at].id == id) {
		pk__free(data);
		return 0;
	}
	v = pk__realloc(b->v, (b->n + 1) * sizeof(*v));
	if (!v) {
		pk__free(data);
		return -ENOMEM;
	}
	memmove(v + at + 1, v + at, (b->n - at) * sizeof(*v));
	v[at] = (struct blob){ id, size, data };
	b->v = v;
	b->n++;
	return 0;
}

static void blobs_fini(struct blobs *b)
{
	for (size_t i = 0; i < b->n; i++)
		pk__free(b->v[i].data);
	pk__free(b->v);
}

struct pk_bpf_progs *pk_bpf_progs_new(void)
{
	return pk__calloc(1, sizeof(struct pk_bpf_progs));
}

void pk_bpf_progs_free(struct pk_bpf_progs *p)
{
	if (!p)
		return;
	blobs_fini(&p->progs);
	blobs_fini(&p->btfs);
	pk__free(p);
}

/* The kept arrays' bytes for the counts in FIRST (perf's step 2); clears
 * from *KEPT those the kernel's info is too short for. */
static uint32_t data_len(const union info *first, uint32_t len, uint32_t *kept)
{
	uint32_t n = 0;

	for (int a = 0; a < A_NR; a++) {
		if (!(*kept & 1u << a))
			continue;
		if (len < arrays[a].array + 4u || len < arrays[a].count + 4u ||
		    (arrays[a].size > 0 && len < (uint32_t)arrays[a].size)) {
			*kept &= ~(1u << a);
			continue;
		}
		n += (get32(first, arrays[a].count) *
		      get32(first, arrays[a].size) + 7) & ~7u;
	}
	return n;
}

/* Points INFO's kept arrays into DATA (perf's step 4); with TO_OFF their
 * offsets instead. */
static void place_arrays(union info *info, const union info *first,
			 uint32_t kept, char *data, bool to_off)
{
	uint32_t at = 0;

	for (int a = 0; a < A_NR; a++) {
		uint32_t c = get32(first, arrays[a].count);
		uint32_t s = get32(first, arrays[a].size);

		if (!(kept & 1u << a))
			continue;
		if (!to_off) {
			put32(info, arrays[a].count, c);
			put32(info, arrays[a].size, s);
		}
		put64(info, arrays[a].array,
		      to_off ? at : (uint64_t)(uintptr_t)(data + at));
		at += (c * s + 7) & ~7u;
	}
}

/* Program FD's info as HEADER_BPF_PROG_INFO keeps it, into *ENTRY
 * (pk__malloc'ed, *SIZE bytes). 0 or -errno. */
static int prog_entry(int fd, void **entry, size_t *size)
{
	union info first, info;
	uint32_t len = INFO_LEN, kept = KEPT, dl;
	uint64_t bits;
	char *buf;
	int err;

	memset(&first, 0, sizeof(first));
	if ((err = pk__sys_bpf_obj_info(fd, &first, &len)))
		return err;
	dl = data_len(&first, len, &kept);
	if (!(buf = pk__calloc(1, 16 + INFO_LEN + dl)))
		return -ENOMEM;
	memset(&info, 0, sizeof(info));
	place_arrays(&info, &first, kept, buf + 16 + INFO_LEN, false);
	if ((err = pk__sys_bpf_obj_info(fd, &info, &len))) {
		pk__free(buf);
		return err;
	}
	place_arrays(&info, &first, kept, NULL, true);
	len = INFO_LEN;
	bits = kept;
	memcpy(buf, &len, 4);
	memcpy(buf + 4, &dl, 4);
	memcpy(buf + 8, &bits, 8);
	memcpy(buf + 16, info.b, INFO_LEN);
	*entry = buf;
	*size = 16 + INFO_LEN + (size_t)dl;
	return 0;
}

/* BTF object ID's raw bytes into P (perf_env__fetch_btf). */
static int add_btf(struct pk_bpf_progs *p, uint32_t id)
{
	struct bpf_btf_info bi;
	uint32_t len = sizeof(bi);
	char *data = NULL;
	int fd = pk__sys_bpf_btf_fd(id), err;

	if (fd < 0)
		return fd;
	memset(&bi, 0, sizeof(bi));
	err = pk__sys_bpf_obj_info(fd, &bi, &len);
	if (!err && !(data = pk__malloc(bi.btf_size + 1u)))
		err = -ENOMEM;
	if (!err) {
		uint32_t size = bi.btf_size;

		memset(&bi, 0, sizeof(bi));
		bi.btf = (uint64_t)(uintptr_t)data;
		bi.btf_size = size;
		len = sizeof(bi);
		err = pk__sys_bpf_obj_info(fd, &bi, &len);
		if (!err && bi.btf_size != size)
			err = -EAGAIN;
	}
	pk__sys_close(fd);
	if (err) {
		pk__free(data);
		return err;
	}
	return blobs_add(&p->btfs, id, data, bi.btf_size);
}

static void entry_view(const void *blob, size_t size,
		       struct pk_bpf_prog_entry *e)
{
	size_t off = 0;

	pk_bpf_prog_entry_decode(blob, size, &off, e);
}

int pk_bpf_progs_add(struct pk_bpf_progs *p, uint32_t id)
{
	struct pk_bpf_prog_entry e;
	void *entry;
	size_t size;
	uint32_t btf;
	int fd = pk__sys_bpf_prog_fd(id), err;

	if (fd < 0)
		return fd;
	err = prog_entry(fd, &entry, &size);
	pk__sys_close(fd);
	if (err)
		return err;
	entry_view(entry, size, &e);
	btf = pk_bpf_prog_btf_id(&e);
	err = blobs_add(&p->progs, id, entry, size);
	if (!err && btf)
		err = add_btf(p, btf) == -ENOMEM ? -ENOMEM : 0;
	return err;
}

/* The feature body of B: a u32 count then each blob, its id and size
 * first when WITH_HDR (BPF_BTF). */
static long blobs_body(const struct blobs *b, bool with_hdr, void **body)
{
	size_t n = 4;
	uint32_t nr = (uint32_t)b->n;
	char *p;

	for (size_t i = 0; i < b->n; i++)
		n += b->v[i].size + (with_hdr ? 8 : 0);
	if (!(p = pk__malloc(n)))
		return -ENOMEM;
	memcpy(p, &nr, 4);
	n = 4;
	for (size_t i = 0; i < b->n; i++) {
		uint32_t h[2] = { b->v[i].id, (uint32_t)b->v[i].size };

		if (with_hdr) {
			memcpy(p + n, h, 8);
			n += 8;
		}
		memcpy(p + n, b->v[i].data, b->v[i].size);
		n += b->v[i].size;
	}
	*body = p;
	return (long)n;
}

long pk_bpf_progs_prog_info(const struct pk_bpf_progs *p, void **body)
{
	return blobs_body(&p->progs, false, body);
}

long pk_bpf_progs_btf(const struct pk_bpf_progs *p, void **body)
{
	return blobs_body(&p->btfs, true, body);
}

struct emit {
	pk_synth_fn fn;
	void *arg;
	size_t id_hdr;
	int cb_err;          /* the callback's non-zero value */
	char buf[8 + 16 + 512 + 256];
};

static int emit_ksym(struct emit *m, uint64_t addr, uint32_t len,
		     const char *name)
{
	struct pk_ksymbol k = { addr, len, PERF_RECORD_KSYMBOL_TYPE_BPF, 0,
				name };
	long n = pk_record_ksymbol_encode(&k, m->id_hdr, m->buf, sizeof(m->buf));

	if (n < 0)
		return (int)n;
	m->cb_err = m->fn((struct perf_event_header *)m->buf, m->arg);
	return m->cb_err;
}

/* The BTF object of E for naming, fetched into P, when E has BTF func
 * info (perf's rule); -EINVAL when its count is not the functions'. */
static int prog_btf(struct pk_bpf_progs *p, const struct pk_bpf_prog_entry *e,
		    const void **btf, size_t *size)
{
	struct bpf_prog_info i;
	uint32_t id = pk_bpf_prog_btf_id(e);
	int err;

	memset(&i, 0, sizeof(i));
	memcpy(&i, e->info, e->info_len < sizeof(i) ? e->info_len : sizeof(i));
	*btf = NULL;
	if (!id || !i.nr_func_info || !i.func_info_rec_size)
		return 0;
	if (i.nr_func_info != i.nr_jited_ksyms)
		return -EINVAL;
	err = add_btf(p, id);
	for (size_t k = 0; !err && k < p->btfs.n; k++)
		if (p->btfs.v[k].id == id) {
			*btf = p->btfs.v[k].data;
			*size = p->btfs.v[k].size;
		}
	return err;
}

/* perf_event__synthesize_one_bpf_prog: a KSYMBOL per function, then,
 * unless NO_EVENT, the BPF_EVENT and the info kept in P. */
static int one_prog(struct pk_bpf_progs *p, int fd, bool no_event,
		    struct emit *m)
{
	struct pk_bpf_prog_entry e;
	struct pk_bpf_event ev = { PERF_BPF_EVENT_PROG_LOAD, 0, 0, { 0 } };
	const void *btf;
	size_t size, bsize = 0;
	void *entry;
	uint32_t nr;
	int err = prog_entry(fd, &entry, &size);

	if (err)
		return err;
	entry_view(entry, size, &e);
	nr = pk_bpf_prog_nr_funcs(&e);
	err = (nr || !((const struct bpf_prog_info *)e.info)->nr_jited_ksyms) ?
	      prog_btf(p, &e, &btf, &bsize) : -EINVAL;
	for (uint32_t s = 0; !err && s < nr; s++) {
		char name[512];
		uint64_t addr;
		uint32_t len;

		pk_bpf_prog_func(&e, s, btf, bsize, &addr, &len, name, sizeof(name));
		err = emit_ksym(m, addr, len, name);
	}
	if (err || no_event) {
		pk__free(entry);
		return err;
	}
	ev.id = pk_bpf_prog_id(&e);
	memcpy(ev.tag, ((const struct bpf_prog_info *)e.info)->tag, 8);
	err = blobs_add(&p->progs, ev.id, entry, size);
	if (!err) {
		long n = pk_record_bpf_event_encode(&ev, m->id_hdr, m->buf,
						    sizeof(m->buf));

		if (n < 0)
			return (int)n;
		err = m->cb_err = m->fn((struct perf_event_header *)m->buf,
					m->arg);
	}
	return err;
}

/* A kallsyms symbol of the "[bpf]" module that perf records: a
 * trampoline ("bpf_trampoline_<digits>") or a dispatcher. */
static bool is_bpf_image(const struct pk_ksym *s)
{
	const char *mod = pk__ksym_mod(s), *t = "bpf_trampoline_";
	const char *d = "bpf_dispatcher_";

	if (!mod || strcmp(mod, "bpf"))
		return false;
	if (!strncmp(s->name, t, strlen(t)))
		return s->name[strlen(t)] >= '0' && s->name[strlen(t)] <= '9';
	return !strncmp(s->name, d, strlen(d)) && s->name[strlen(d)] > ' ';
}

/* perf's bpf images: every trampoline and dispatcher, a page each. */
static int images(const char *proc, struct emit *m)
{
	char path[256], line[1024];
	struct pk_ksym s;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kallsyms", proc);
	if (!(f = fopen(path, "re")))
		return 0;
	while (!err && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (pk__ksyms_line(line, line + strlen(line), &s, true) &&
		    is_bpf_image(&s))
			err = emit_ksym(m, s.addr, (uint32_t)pk__sys_page_size(),
					s.name);
	}
	fclose(f);
	return err;
}

int pk_synth_bpf(struct pk_bpf_progs *p, pk_synth_fn fn, void *arg,
		 const struct pk_synth_opts *opts)
{
	struct emit *m = pk__calloc(1, sizeof(*m));
	uint32_t id = 0;
	int err = 0;

	if (!m)
		return -ENOMEM;
	*m = (struct emit){ fn, arg, opts ? opts->id_hdr_size : 0, 0, { 0 } };
	/* as perf: a program that cannot be read is skipped, one that
	 * cannot be named ends the list (no error: perf only warns) */
	while (!err && !pk__sys_bpf_prog_next_id(id, &id)) {
		int fd = pk__sys_bpf_prog_fd(id);

		if (fd < 0)
			continue;
		err = one_prog(p, fd, opts && opts->no_bpf_event, m);
		pk__sys_close(fd);
	}
	err = m->cb_err ? m->cb_err : err == -ENOMEM ? err : 0;
	if (!err)
		err = images(opts && opts->proc ? opts->proc : "/proc", m);
	pk__free(m);
	return err;
}
