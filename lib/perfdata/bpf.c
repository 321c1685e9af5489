/* SPDX-License-Identifier: MIT */
/*
 * BPF programs in perf.data: PERF_RECORD_KSYMBOL and PERF_RECORD_BPF_EVENT,
 * the entries of HEADER_BPF_PROG_INFO (perf 6.1's bpf_prog_info_linear,
 * arrays as offsets into the data) and of HEADER_BPF_BTF, and perf's names
 * of a program's functions ("bpf_prog_<tag>_<name>").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include "perfdata/pd.h"

#define KSYM_NAME_MAX 512	/* perf's KSYM_NAME_LEN, the NUL included */

struct ksym_body {
	uint64_t addr;
	uint32_t len;
	uint16_t type, flags;
};

long pk_record_ksymbol_encode(const struct pk_ksymbol *k, size_t id_hdr,
			      void *buf, size_t cap)
{
	size_t n = k->name ? strnlen(k->name, KSYM_NAME_MAX - 1) : 0;
	size_t body = 8 + sizeof(struct ksym_body) + ((n + 1 + 7) & ~(size_t)7);
	struct perf_event_header h = { PERF_RECORD_KSYMBOL, 0,
				       (uint16_t)(body + id_hdr) };
	struct ksym_body b = { k->addr, k->len, k->type, k->flags };

	if (!k->name)
		return -EINVAL;
	if (body + id_hdr > cap)
		return -ENOSPC;
	memset(buf, 0, body + id_hdr);
	memcpy(buf, &h, sizeof(h));
	memcpy((char *)buf + 8, &b, sizeof(b));
	memcpy((char *)buf + 8 + sizeof(b), k->name, n);
	return (long)(body + id_hdr);
}

long pk_record_bpf_event_encode(const struct pk_bpf_event *e, size_t id_hdr,
				void *buf, size_t cap)
{
	size_t body = 8 + 8 + sizeof(e->tag);
	struct perf_event_header h = { PERF_RECORD_BPF_EVENT, 0,
				       (uint16_t)(body + id_hdr) };
	uint16_t tf[2] = { e->type, e->flags };

	if (body + id_hdr > cap)
		return -ENOSPC;
	memset(buf, 0, body + id_hdr);
	memcpy(buf, &h, sizeof(h));
	memcpy((char *)buf + 8, tf, sizeof(tf));
	memcpy((char *)buf + 12, &e->id, sizeof(e->id));
	memcpy((char *)buf + 16, e->tag, sizeof(e->tag));
	return (long)(body + id_hdr);
}

int pk_record_ksymbol_decode(const struct perf_event_header *rec,
			     struct pk_ksymbol *k)
{
	const char *p = (const char *)rec;
	size_t at = 8 + sizeof(struct ksym_body);
	struct ksym_body b;

	if (rec->type != PERF_RECORD_KSYMBOL || rec->size <= at ||
	    !memchr(p + at, 0, rec->size - at))
		return -EINVAL;
	memcpy(&b, p + 8, sizeof(b));
	*k = (struct pk_ksymbol){ b.addr, b.len, b.type, b.flags, p + at };
	return 0;
}

long pk_bpf_prog_entry_encode(const struct pk_bpf_prog_entry *e, void *buf,
			      size_t cap)
{
	size_t n = 16 + (size_t)e->info_len + e->data_len;
	char *p = buf;

	if (n > cap)
		return -ENOSPC;
	memcpy(p, &e->info_len, 4);
	memcpy(p + 4, &e->data_len, 4);
	memcpy(p + 8, &e->arrays, 8);
	memcpy(p + 16, e->info, e->info_len);
	memcpy(p + 16 + e->info_len, e->data, e->data_len);
	return (long)n;
}

int pk_bpf_prog_entry_decode(const void *body, size_t size, size_t *off,
			     struct pk_bpf_prog_entry *e)
{
	const char *p = body;

	if (*off >= size)
		return -ENOENT;
	if (size - *off < 16)
		return -EINVAL;
	memcpy(&e->info_len, p + *off, 4);
	memcpy(&e->data_len, p + *off + 4, 4);
	memcpy(&e->arrays, p + *off + 8, 8);
	if ((uint64_t)e->info_len + e->data_len > size - *off - 16)
		return -EINVAL;
	e->info = p + *off + 16;
	e->data = p + *off + 16 + e->info_len;
	*off += 16 + (size_t)e->info_len + e->data_len;
	return 0;
}

/* E's info, zero-extended (or cut) to this build's struct. */
static void info_of(const struct pk_bpf_prog_entry *e, struct bpf_prog_info *i)
{
	size_t n = e->info_len < sizeof(*i) ? e->info_len : sizeof(*i);

	memset(i, 0, sizeof(*i));
	memcpy(i, e->info, n);
}

/* NR elements of SIZE bytes at data offset OFF, or NULL when outside. */
static const char *array_at(const struct pk_bpf_prog_entry *e, uint64_t off,
			    uint64_t nr, uint64_t size)
{
	if (off > e->data_len || nr * size > e->data_len - off)
		return NULL;
	return (const char *)e->data + off;
}

uint32_t pk_bpf_prog_id(const struct pk_bpf_prog_entry *e)
{
	struct bpf_prog_info i;

	info_of(e, &i);
	return i.id;
}

uint32_t pk_bpf_prog_btf_id(const struct pk_bpf_prog_entry *e)
{
	struct bpf_prog_info i;

	info_of(e, &i);
	return i.btf_id;
}

uint32_t pk_bpf_prog_nr_funcs(const struct pk_bpf_prog_entry *e)
{
	struct bpf_prog_info i;

	info_of(e, &i);
	if (i.nr_jited_ksyms != i.nr_prog_tags ||
	    i.nr_jited_ksyms != i.nr_jited_func_lens ||
	    !array_at(e, i.jited_ksyms, i.nr_jited_ksyms, 8) ||
	    !array_at(e, i.jited_func_lens, i.nr_jited_ksyms, 4) ||
	    !array_at(e, i.prog_tags, i.nr_jited_ksyms, BPF_TAG_SIZE))
		return 0;
	return i.nr_jited_ksyms;
}

/* Size of BTF type T's trailing data (by kind), or -1 for a bad kind. */
static long btf_extra(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: return 4;
	case BTF_KIND_ARRAY: return 12;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_DATASEC:
	case 19: /* ENUM64 */
		return 12L * vlen;
	case BTF_KIND_ENUM: case BTF_KIND_FUNC_PROTO: return 8L * vlen;
	case BTF_KIND_VAR: case 17: /* DECL_TAG */ return 4;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case 16: /* FLOAT */ case 18: /* TYPE_TAG */
		return 0;
	default: return -1;
	}
}

/* The name of BTF type ID in BTF (SIZE bytes), or NULL. */
static const char *btf_name(const void *btf, size_t size, uint32_t id)
{
	const char *p = btf;
	struct btf_header h;
	size_t at, end;

	if (size < sizeof(h))
		return NULL;
	memcpy(&h, p, sizeof(h));
	if (h.magic != BTF_MAGIC || (uint64_t)h.hdr_len + h.type_off + h.type_len > size ||
	    (uint64_t)h.hdr_len + h.str_off + h.str_len > size || !id)
		return NULL;
	at = h.hdr_len + h.type_off;
	end = at + h.type_len;
	for (uint32_t k = 1; at + sizeof(struct btf_type) <= end; k++) {
		struct btf_type t;
		long x;

		memcpy(&t, p + at, sizeof(t));
		if (k == id) {
			const char *s = p + h.hdr_len + h.str_off;

			return t.name_off < h.str_len &&
			       memchr(s + t.name_off, 0, h.str_len - t.name_off) ?
			       s + t.name_off : NULL;
		}
		if ((x = btf_extra(&t)) < 0)
			return NULL;
		at += sizeof(t) + (size_t)x;
	}
	return NULL;
}

/* Function SUB's short name: its BTF func's, the program's, "F", or
 * NULL (perf's synthesize_bpf_prog_name). */
static const char *short_name(const struct pk_bpf_prog_entry *e,
			      const struct bpf_prog_info *i, uint32_t sub,
			      const void *btf, size_t btf_size, char *pname)
{
	const char *fi = array_at(e, i->func_info, i->nr_func_info,
				  i->func_info_rec_size);
	struct bpf_func_info f;

	if (btf && fi && sub < i->nr_func_info &&
	    i->func_info_rec_size >= sizeof(f)) {
		memcpy(&f, fi + (size_t)sub * i->func_info_rec_size, sizeof(f));
		return btf_name(btf, btf_size, f.type_id);
	}
	if (sub == 0 && i->nr_jited_ksyms == 1) {
		memcpy(pname, i->name, sizeof(i->name));
		pname[sizeof(i->name)] = 0;
		return pname[0] ? pname : NULL;
	}
	return "F";
}

int pk_bpf_prog_func(const struct pk_bpf_prog_entry *e, uint32_t sub,
		     const void *btf, size_t btf_size, uint64_t *addr,
		     uint32_t *len, char *name, size_t name_len)
{
	struct bpf_prog_info i;
	char pname[sizeof(i.name) + 1], hex[2 * BPF_TAG_SIZE + 1];
	const uint8_t *tag;
	const char *s;

	if (sub >= pk_bpf_prog_nr_funcs(e))
		return -EINVAL;
	info_of(e, &i);
	memcpy(addr, (const char *)e->data + i.jited_ksyms + 8 * sub, 8);
	memcpy(len, (const char *)e->data + i.jited_func_lens + 4 * sub, 4);
	tag = (const uint8_t *)e->data + i.prog_tags + BPF_TAG_SIZE * sub;
	for (int k = 0; k < BPF_TAG_SIZE; k++)
		snprintf(hex + 2 * k, 3, "%02x", tag[k]);
	s = short_name(e, &i, sub, btf, btf_size, pname);
	snprintf(name, name_len, "bpf_prog_%s%s%s", hex, s ? "_" : "",
		 s ? s : "");
	return 0;
}

int pk_bpf_btf_find(const void *body, size_t size, uint32_t id,
		    const void **btf, size_t *btf_size)
{
	const char *p = body;
	uint32_t nr, v[2];
	size_t at = 4;

	if (size < 4)
		return -EINVAL;
	memcpy(&nr, p, 4);
	for (uint32_t k = 0; k < nr; k++) {
		if (size - at < 8)
			return -EINVAL;
		memcpy(v, p + at, 8);
		if (v[1] > size - at - 8)
			return -EINVAL;
		if (v[0] == id) {
			*btf = p + at + 8;
			*btf_size = v[1];
			return 0;
		}
		at += 8 + (size_t)v[1];
	}
	return -ENOENT;
}
