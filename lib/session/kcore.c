/* SPDX-License-Identifier: MIT */
/* The kernel's code from a kcore: the rules of perf's dso__load_kcore
 * (symbol.c), learnt from its source and checked against perf 6.1 on
 * tests/live/ptkcore.py's directories. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "session/kcore.h"

bool pk__kcore_sibling(const char *kallsyms, const char *name, char *buf,
		       size_t len)
{
	const char *b = strrchr(kallsyms, '/');
	size_t dir;

	if (!b || strcmp(b + 1, "kallsyms"))
		return false;
	dir = (size_t)(b + 1 - kallsyms);
	if (dir + strlen(name) + 1 > len)
		return false;
	memcpy(buf, kallsyms, dir);
	strcpy(buf + dir, name);
	return true;
}

static uint64_t get(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

bool pk__kcore_phdr_seg(const unsigned char *p, bool is64,
			struct pk__kseg *s)
{
	uint64_t flags, off, vaddr, filesz, memsz;

	if (get(p, 4) != 1)			/* PT_LOAD */
		return false;
	flags = is64 ? get(p + 4, 4) : get(p + 24, 4);
	off = is64 ? get(p + 8, 8) : get(p + 4, 4);
	vaddr = is64 ? get(p + 16, 8) : get(p + 8, 4);
	filesz = is64 ? get(p + 32, 8) : get(p + 16, 4);
	memsz = is64 ? get(p + 40, 8) : get(p + 20, 4);
	if (!(flags & 1) || !(filesz < memsz ? filesz : memsz))	/* PF_X */
		return false;
	s->start = vaddr;
	s->end = vaddr + (filesz < memsz ? filesz : memsz);
	s->pgoff = off;
	return true;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct pk__kseg *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int pk__kcore_phdrs(int fd, unsigned char **ph, unsigned *num,
		      unsigned *entsz, bool *is64)
{
	unsigned char eh[64];
	uint64_t phoff;
	size_t sz;

	if (pread(fd, eh, sizeof(eh), 0) < 52 || memcmp(eh, "\177ELF", 4) ||
	    (eh[4] != 1 && eh[4] != 2) || eh[5] != 1)
		return PK_ERR_FORMAT;	/* (a little-endian ELF file only) */
	*is64 = eh[4] == 2;
	phoff = *is64 ? get(eh + 32, 8) : get(eh + 28, 4);
	*entsz = (unsigned)get(eh + (*is64 ? 54 : 42), 2);
	*num = (unsigned)get(eh + (*is64 ? 56 : 44), 2);
	if (*entsz < (*is64 ? 56u : 32u) || !*num)
		return PK_ERR_FORMAT;
	sz = (size_t)*entsz * *num;
	*ph = pk__malloc(sz);
	if (!*ph)
		return -ENOMEM;
	if (pread(fd, *ph, sz, (off_t)phoff) != (ssize_t)sz) {
		pk__free(*ph);
		return PK_ERR_FORMAT;
	}
	return 0;
}

int pk__kcore_segments(const char *path, struct pk__kseg **segs, int *nr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	unsigned char *ph = NULL;
	unsigned num = 0, entsz = 0;
	bool is64 = true;
	struct pk__kseg *v = NULL;
	int n = 0;

	*segs = NULL;
	*nr = 0;
	if (fd < 0)
		return -errno;
	err = pk__kcore_phdrs(fd, &ph, &num, &entsz, &is64);
	close(fd);
	if (err)
		return err;
	v = pk__calloc(num, sizeof(*v));
	if (!v) {
		pk__free(ph);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < num; i++)
		n += pk__kcore_phdr_seg(ph + (size_t)i * entsz, is64, &v[n]);
	pk__free(ph);
	if (!n) {
		pk__free(v);
		return PK_ERR_FORMAT;
	}
	qsort(v, (size_t)n, sizeof(*v), cmp_seg);
	*segs = v;
	*nr = n;
	return 0;
}

bool pk__kcore_module_line(char *line, char *name, size_t len,
			   uint64_t *start)
{
	char *x = strrchr(line, 'x'), *sp;

	if (!x)
		return false;
	*start = strtoull(x + 1, NULL, 16);
	sp = strchr(line, ' ');
	if (!sp)
		return false;
	*sp = '\0';
	snprintf(name, len, "[%s]", line);
	return true;
}

/* Whether module NAME is at START in the modules text T. */
static bool module_at(char *t, const char *name, uint64_t start)
{
	char *line = t, *nl, copy[512], mn[520];
	uint64_t at;

	for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		snprintf(copy, sizeof(copy), "%.*s",
			 (int)(nl ? (size_t)(nl - line) : strlen(line)), line);
		if (pk__kcore_module_line(copy, mn, sizeof(mn), &at) &&
		    !strcmp(mn, name))
			return at == start;	/* (perf's tree: by name) */
		if (!nl)
			break;
	}
	return false;
}

int pk__kcore_modules(const char *path, const struct pk__kmod *mods, int n)
{
	char *t = NULL;
	long len = pk__read_file(path, &t);
	int err = 0;

	if (len < 0)
		return (int)len;
	for (int i = 0; i < n && !err; i++)
		if (!module_at(t, mods[i].name, mods[i].start))
			err = -EINVAL;
	pk__free(t);
	return err;
}

bool pk__kcore_func(const struct pk_ksyms *k, const char *name,
		    uint64_t *addr)
{
	for (size_t i = 0; i < k->n; i++)
		if (pk__ksym_is_text(k->v[i].type) &&
		    !strcmp(k->v[i].name, name)) {
			*addr = k->v[i].addr;
			return true;
		}
	return false;
}

int pk__kcore_load(struct pk__kcore *kc, const char *kallsyms,
		   const struct pk_ksyms *k, const char *ref, uint64_t ref_addr,
		   const struct pk__kmod *mods, int n)
{
	char modules[4352];
	uint64_t at;
	int err;

	if (!pk__kcore_sibling(kallsyms, "kcore", kc->path, sizeof(kc->path)) ||
	    !pk__kcore_sibling(kallsyms, "modules", modules, sizeof(modules)))
		return -EINVAL;
	/* the kernel and modules where the recording had them */
	if (ref && (!pk__kcore_func(k, ref, &at) || at != ref_addr))
		return -EINVAL;
	err = pk__kcore_modules(modules, mods, n);
	if (err)
		return err;
	return pk__kcore_segments(kc->path, &kc->segs, &kc->nr);
}

/* The segment holding ADDR, or NULL. */
static const struct pk__kseg *seg_of(const struct pk__kseg *s, int nr,
				     uint64_t addr)
{
	for (int i = 0; i < nr; i++)
		if (addr >= s[i].start && addr < s[i].end)
			return &s[i];
	return NULL;
}

void pk__kcore_clip(struct pk_symtab *t, const struct pk__kseg *segs, int nr)
{
	int k = 0;

	if (t->kids)		/* (kallsyms has no overlapping tree) */
		return;
	for (int i = 0; i < t->nr; i++) {
		const struct pk__kseg *s = seg_of(segs, nr, t->syms[i].start);

		if (!s)
			continue;
		t->syms[k] = t->syms[i];
		if (t->syms[k].end > s->end)
			t->syms[k].end = s->end;
		k++;
	}
	t->nr = k;
}

/* Whether SYM is a module's in kallsyms table K. */
static bool is_module_sym(const struct pk_ksyms *k, const struct pk_sym *sym)
{
	long i = pk__ksyms_first(k, sym->start);

	for (; i >= 0 && (size_t)i < k->n && k->v[i].addr == sym->start; i++)
		if (k->v[i].name == sym->name)
			return k->v[i].mod != 0;
	return false;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct pk_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void pk__kcore_relocate(struct pk_symtab *t, uint64_t delta)
{
	if (t->kids)
		return;
	for (int i = 0; i < t->nr; i++) {
		if (is_module_sym(&t->ks, &t->syms[i]))
			continue;
		t->syms[i].start -= delta;
		t->syms[i].end -= delta;
	}
	qsort(t->syms, (size_t)t->nr, sizeof(*t->syms), cmp_sym);
}

void pk__kcore_fini(struct pk__kcore *kc)
{
	pk__free(kc->segs);
	kc->segs = NULL;
	kc->nr = 0;
}
