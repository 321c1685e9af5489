/* SPDX-License-Identifier: MIT */
/*
 * lib/perfdata/bpf.c: KSYMBOL and BPF_EVENT encoders against their
 * layouts and the decoder, BPF_PROG_INFO entries encoded and decoded,
 * perf's function names (program name, unnamed, "F", BTF func names),
 * BPF_BTF lookups, cut inputs, and the header lines of a written file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <perfkit/perfdata.h>
#include "test.h"

/* the 232 bytes perf 6.1 keeps; data: ksyms, func lens, func info, tags */
struct prog {
	union { struct bpf_prog_info i; uint8_t b[232]; } info;
	uint8_t data[64];
	struct pk_bpf_prog_entry e;
};

static void make_prog(struct prog *p, uint32_t id, uint32_t nr,
		      const char *name, uint32_t btf_id)
{
	uint64_t addr[2] = { 0xffffffffc0001000ull, 0xffffffffc0002000ull };
	uint32_t lens[2] = { 23, 20 };
	struct bpf_func_info fi[2] = { { 0, 3 }, { 2, 4 } };
	uint8_t tags[2][8] = { { 0x37, 0x65, 0xc0, 0x4b, 0xa0, 0x9f, 0xff, 0x28 },
			       { 0x59, 0xf4, 0xa9, 0x31, 0x74, 0x4d, 0xcd, 0xc6 } };

	memset(p, 0, sizeof(*p));
	p->info.i.id = id;
	strncpy((char *)p->info.i.name, name, sizeof(p->info.i.name) - 1);
	p->info.i.nr_jited_ksyms = p->info.i.nr_jited_func_lens = nr;
	p->info.i.nr_prog_tags = nr;
	p->info.i.jited_ksyms = 0;
	memcpy(p->data, addr, 16);
	p->info.i.jited_func_lens = 16;
	memcpy(p->data + 16, lens, 8);
	p->info.i.func_info = 24;
	p->info.i.func_info_rec_size = 8;
	p->info.i.nr_func_info = btf_id ? nr : 0;
	memcpy(p->data + 24, fi, 16);
	p->info.i.prog_tags = 40;
	memcpy(p->data + 40, tags, 16);
	p->info.i.btf_id = btf_id;
	p->e = (struct pk_bpf_prog_entry){ 232, 56, 0x1f9, p->info.b, p->data };
}

/* int; int (void); pk_main; pk_sub (bpf_load.c's) */
static size_t make_btf(uint8_t *b)
{
	static const char strs[] = "\0int\0pk_main\0pk_sub";
	uint32_t types[] = {
		1, BTF_KIND_INT << 24, 4, BTF_INT_SIGNED << 24 | 32,
		0, BTF_KIND_FUNC_PROTO << 24, 1,
		5, BTF_KIND_FUNC << 24, 2,
		13, BTF_KIND_FUNC << 24, 2,
	};
	struct btf_header h = { .magic = BTF_MAGIC, .version = BTF_VERSION,
				.hdr_len = sizeof(h), .type_len = sizeof(types),
				.str_off = sizeof(types), .str_len = sizeof(strs) };

	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), types, sizeof(types));
	memcpy(b + sizeof(h) + sizeof(types), strs, sizeof(strs));
	return sizeof(h) + sizeof(types) + sizeof(strs);
}

static void check_records(void)
{
	struct pk_ksymbol k = { 0xffffffffc0000b98ull, 23, 1, 0,
				"bpf_prog_3765c04ba09fff28_pk_main" }, d;
	struct pk_bpf_event ev = { 1, 0, 103, { 1, 2, 3, 4, 5, 6, 7, 8 } };
	uint8_t buf[256];
	uint32_t u[4];
	long n = pk_record_ksymbol_encode(&k, 16, buf, sizeof(buf));

	/* perf's: 24 + the name and NUL 8-aligned (40) + the trailer */
	T_CHECK("bpf_ksymbol_size", n == 80 && ((struct perf_event_header *)buf)->size == 80);
	memcpy(u, buf + 16, 8);
	T_CHECK("bpf_ksymbol_fields", ((struct perf_event_header *)buf)->type ==
		PERF_RECORD_KSYMBOL && u[0] == 23 && u[1] == 1 &&
		!memcmp(buf + 24, k.name, strlen(k.name) + 1) && !buf[79]);
	T_CHECK("bpf_ksymbol_decode", !pk_record_ksymbol_decode((void *)buf, &d) &&
		d.addr == k.addr && d.len == 23 && d.type == 1 && !d.flags &&
		!strcmp(d.name, k.name));
	T_CHECK("bpf_ksymbol_nospace", pk_record_ksymbol_encode(&k, 16, buf, 79) == -ENOSPC);
	n = pk_record_bpf_event_encode(&ev, 16, buf, sizeof(buf));
	memcpy(u, buf + 8, 8);
	T_CHECK("bpf_event_layout", n == 40 && ((struct perf_event_header *)buf)->type ==
		PERF_RECORD_BPF_EVENT && u[0] == 1 && u[1] == 103 &&
		buf[16] == 1 && buf[23] == 8 && !buf[39]);
	T_CHECK("bpf_ksymbol_decode_other", pk_record_ksymbol_decode((void *)buf, &d) == -EINVAL);
}

static void check_names(void)
{
	struct prog p;
	uint8_t btf[256];
	size_t bn = make_btf(btf);
	uint64_t addr;
	uint32_t len;
	char name[128];

	make_prog(&p, 7, 1, "pkone", 0);
	T_CHECK("bpf_name_prog", pk_bpf_prog_nr_funcs(&p.e) == 1 &&
		!pk_bpf_prog_func(&p.e, 0, NULL, 0, &addr, &len, name, sizeof(name)) &&
		!strcmp(name, "bpf_prog_3765c04ba09fff28_pkone") &&
		addr == 0xffffffffc0001000ull && len == 23);
	make_prog(&p, 7, 1, "", 0);
	pk_bpf_prog_func(&p.e, 0, NULL, 0, &addr, &len, name, sizeof(name));
	T_CHECK("bpf_name_unnamed", !strcmp(name, "bpf_prog_3765c04ba09fff28"));
	make_prog(&p, 7, 2, "pkone", 0);
	pk_bpf_prog_func(&p.e, 1, NULL, 0, &addr, &len, name, sizeof(name));
	T_CHECK("bpf_name_sub_F", !strcmp(name, "bpf_prog_59f4a931744dcdc6_F") &&
		addr == 0xffffffffc0002000ull && len == 20);
	make_prog(&p, 7, 2, "pkone", 9);
	pk_bpf_prog_func(&p.e, 1, btf, bn, &addr, &len, name, sizeof(name));
	T_CHECK("bpf_name_btf", !strcmp(name, "bpf_prog_59f4a931744dcdc6_pk_sub"));
	T_CHECK("bpf_name_range", pk_bpf_prog_func(&p.e, 2, btf, bn, &addr, &len,
						   name, sizeof(name)) == -EINVAL);
	p.info.i.nr_prog_tags = 1;	/* counts disagree: no functions */
	T_CHECK("bpf_name_mismatch", pk_bpf_prog_nr_funcs(&p.e) == 0);
	make_prog(&p, 7, 2, "pkone", 9);
	p.info.i.prog_tags = 60;	/* past the data */
	T_CHECK("bpf_name_outside", pk_bpf_prog_nr_funcs(&p.e) == 0);
}

static void check_entries(void)
{
	struct prog a, b;
	struct pk_bpf_prog_entry d;
	uint8_t body[1024], btf[256], bt[512];
	const void *found;
	size_t off = 4, bn = make_btf(btf), fs;
	uint32_t nr = 2, h[2] = { 9, (uint32_t)bn };
	long n1, n2;

	make_prog(&a, 5, 1, "pkone", 0);
	make_prog(&b, 6, 2, "", 9);
	memcpy(body, &nr, 4);
	n1 = pk_bpf_prog_entry_encode(&a.e, body + 4, sizeof(body) - 4);
	n2 = pk_bpf_prog_entry_encode(&b.e, body + 4 + n1, sizeof(body) - 4 - (size_t)n1);
	T_CHECK("bpf_entry_size", n1 == 16 + 232 + 56 && n2 == n1);
	T_CHECK("bpf_entry_decode", !pk_bpf_prog_entry_decode(body, 4 + (size_t)(n1 + n2),
							       &off, &d) &&
		d.info_len == 232 && d.data_len == 56 && d.arrays == 0x1f9 &&
		pk_bpf_prog_id(&d) == 5 && !memcmp(d.data, a.data, 56) &&
		!pk_bpf_prog_entry_decode(body, 4 + (size_t)(n1 + n2), &off, &d) &&
		pk_bpf_prog_id(&d) == 6 && pk_bpf_prog_btf_id(&d) == 9 &&
		pk_bpf_prog_entry_decode(body, 4 + (size_t)(n1 + n2), &off, &d) == -ENOENT);
	off = 4;
	T_CHECK("bpf_entry_cut", pk_bpf_prog_entry_decode(body, 4 + (size_t)n1 - 1,
							  &off, &d) == -EINVAL);
	T_CHECK("bpf_entry_nospace", pk_bpf_prog_entry_encode(&a.e, body, 100) == -ENOSPC);
	nr = 1;
	memcpy(bt, &nr, 4);
	memcpy(bt + 4, h, 8);
	memcpy(bt + 12, btf, bn);
	T_CHECK("bpf_btf_find", !pk_bpf_btf_find(bt, 12 + bn, 9, &found, &fs) &&
		fs == bn && found == bt + 12 &&
		pk_bpf_btf_find(bt, 12 + bn, 8, &found, &fs) == -ENOENT &&
		pk_bpf_btf_find(bt, 11 + bn, 9, &found, &fs) == -EINVAL);
}

/* A file with both features: perf's header lines */
static void check_header(void)
{
	char dir[] = "/tmp/pk_pdbpf.XXXXXX", path[300], out[1024];
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE,
					.size = sizeof(attr),
					.sample_type = PERF_SAMPLE_IP };
	struct perf_event_header round = { PK_RECORD_FINISHED_ROUND, 0, 8 };
	PK_OPTS(pk_pdwriter_opts, o, .pipe = false);
	uint8_t body[1024], bt[512];
	uint64_t id = 1;
	struct prog a, b;
	uint32_t nr = 2, h[2];
	struct pk_pdwriter *w;
	struct pk_perfdata *pd = NULL;
	size_t bn;
	long n1, n2;
	int ok = 0;

	if (!mkdtemp(dir))
		return;
	snprintf(path, sizeof(path), "%s/b.data", dir);
	make_prog(&a, 5, 1, "pkone", 0);
	make_prog(&b, 6, 2, "", 9);
	memcpy(body, &nr, 4);
	n1 = pk_bpf_prog_entry_encode(&a.e, body + 4, 500);
	n2 = pk_bpf_prog_entry_encode(&b.e, body + 4 + n1, 500);
	nr = 1;
	bn = make_btf(bt + 12);
	h[0] = 9;
	h[1] = (uint32_t)bn;
	memcpy(bt, &nr, 4);
	memcpy(bt + 4, h, 8);
	w = pk_pdwriter_open(path, &o);
	if (w && pk_pdwriter_add_attr(w, &attr, &id, 1, "x") >= 0 &&
	    !pk_pdwriter_feat_raw(w, PK_HEADER_BPF_PROG_INFO, body, 4 + (size_t)(n1 + n2)) &&
	    !pk_pdwriter_feat_raw(w, PK_HEADER_BPF_BTF, bt, 12 + bn) &&
	    !pk_pdwriter_write(w, &round, NULL, 0))
		ok = !pk_pdwriter_close(w);
	pd = ok ? pk_perfdata_open(path, NULL) : NULL;
	ok = pd && pk_perfdata_feat_describe(pd, PK_HEADER_BPF_PROG_INFO, out,
					     sizeof(out)) > 0;
	T_CHECK("bpf_header_prog_info", ok && !strcmp(out,
		"# bpf_prog_info 5: bpf_prog_3765c04ba09fff28_pkone addr 0xffffffffc0001000 size 23\n"
		"# bpf_prog_info 6:\n"
		"# \tsub_prog 0: bpf_prog_3765c04ba09fff28_pk_main addr 0xffffffffc0001000 size 23\n"
		"# \tsub_prog 1: bpf_prog_59f4a931744dcdc6_pk_sub addr 0xffffffffc0002000 size 20\n"));
	ok = pd && pk_perfdata_feat_describe(pd, PK_HEADER_BPF_BTF, out, sizeof(out)) > 0;
	T_CHECK("bpf_header_btf", ok && !strcmp(out, "# btf info of id 9\n"));
	pk_perfdata_free(pd);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	check_records();
	check_names();
	check_entries();
	check_header();
	return t_exit();
}
