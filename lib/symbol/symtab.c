/* SPDX-License-Identifier: MIT */
/* Function symbols from ELF files (libelf) and from kallsyms. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "symbol/symtab.h"

int pk__symtab_add(struct pk_symtab *t, uint64_t start, uint64_t size,
		   const char *name)
{
	size_t n = strlen(name) + 1;

	if (t->nr == t->cap) {
		int cap = t->cap ? 2 * t->cap : 256;
		struct pk_sym *s = pk_realloc(t->syms, (size_t)cap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		t->syms = s;
		t->cap = cap;
	}
	if (t->names_len + n > t->names_cap) {
		size_t cap = t->names_cap ? 2 * t->names_cap : 4096;
		char *p;

		while (cap < t->names_len + n)
			cap *= 2;
		p = pk_realloc(t->names, cap);
		if (!p)
			return -ENOMEM;
		t->names = p;
		t->names_cap = cap;
	}
	memcpy(t->names + t->names_len, name, n);
	/* the name's offset until pk__symtab_sort() makes it a pointer */
	t->syms[t->nr].name = (const char *)(uintptr_t)t->names_len;
	t->names_len += n;
	t->syms[t->nr].start = start;
	t->syms[t->nr].end = start + size;
	t->nr++;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct pk_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* among aliases prefer the sized one, then the first name */
	if ((x->end > x->start) != (y->end > y->start))
		return x->end > x->start ? -1 : 1;
	return 0;
}

void pk__symtab_sort(struct pk_symtab *t)
{
	int k = 0;

	for (int i = 0; i < t->nr; i++)
		t->syms[i].name = t->names + (uintptr_t)t->syms[i].name;
	qsort(t->syms, (size_t)t->nr, sizeof(*t->syms), cmp_sym);
	for (int i = 0; i < t->nr; i++) {  /* drop aliases at one address */
		if (k && t->syms[k - 1].start == t->syms[i].start)
			continue;
		t->syms[k++] = t->syms[i];
	}
	t->nr = k;
	for (int i = 0; i < t->nr; i++)  /* unsized: up to the next symbol */
		if (t->syms[i].end <= t->syms[i].start)
			t->syms[i].end = i + 1 < t->nr ? t->syms[i + 1].start :
					 t->syms[i].start + 1;
	t->loaded = true;
}

const struct pk_sym *pk__symtab_find(const struct pk_symtab *t, uint64_t addr)
{
	int lo = 0, hi = t->nr - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (addr < t->syms[mid].start)
			hi = mid - 1;
		else if (addr >= t->syms[mid].end)
			lo = mid + 1;
		else
			return &t->syms[mid];
	}
	return NULL;
}

uint64_t pk__symtab_off_to_vaddr(const struct pk_symtab *t, uint64_t off)
{
	for (int i = 0; i < t->nr_segs; i++) {
		const struct pk_load_seg *g = &t->segs[i];

		if (off >= g->offset && off < g->offset + g->filesz)
			return off - g->offset + g->vaddr;
	}
	return off;
}

static int load_segments(struct pk_symtab *t, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) || n > 4096)
		return PK_ERR_FORMAT;
	t->segs = pk_calloc(n ? n : 1, sizeof(*t->segs));
	if (!t->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		t->segs[t->nr_segs++] = (struct pk_load_seg){
			ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	return 0;
}

static int load_symbols(struct pk_symtab *t, Elf *elf, Elf_Scn *scn,
			GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && *name && pk__symtab_add(t, sym.st_value, sym.st_size, name))
			return -ENOMEM;
	}
	return 0;
}

/* The .symtab section, else .dynsym. */
static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr sh, dsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			*out = sh;
			return scn;
		}
		if (sh.sh_type == SHT_DYNSYM) {
			dyn = scn;
			dsh = sh;
		}
	}
	if (dyn)
		*out = dsh;
	return dyn;
}

int pk__symtab_load_elf(struct pk_symtab *t, const char *path)
{
	int fd, err = 0;
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (t->loaded || t->failed)
		return t->failed ? -ENOENT : 0;
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		t->failed = true;
		return -errno;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		err = PK_ERR_FORMAT;
		goto out;
	}
	t->is_exec = eh.e_type == ET_EXEC;
	err = load_segments(t, elf);
	scn = err ? NULL : find_symtab(elf, &sh);
	if (scn)
		err = load_symbols(t, elf, scn, &sh);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	pk__symtab_sort(t);
	t->failed = err != 0;
	return err;
}

int pk__symtab_load_kallsyms(struct pk_symtab *t, const char *path)
{
	char line[1024], name[512], type;
	unsigned long long addr;
	FILE *f;

	if (t->loaded || t->failed)
		return t->failed ? -ENOENT : 0;
	f = fopen(path, "re");
	if (!f) {
		t->failed = true;
		return -errno;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (!addr || pk__symtab_add(t, addr, 0, name))
			continue;
	}
	fclose(f);
	pk__symtab_sort(t);
	t->failed = t->nr == 0;
	return t->failed ? -ENOENT : 0;
}

void pk__symtab_fini(struct pk_symtab *t)
{
	pk_free(t->syms);
	pk_free(t->names);
	pk_free(t->segs);
	memset(t, 0, sizeof(*t));
}
