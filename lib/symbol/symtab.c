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
#include "base/rbidx.h"
#include "symbol/symtab.h"

int pk__symtab_add(struct pk_symtab *t, uint64_t start, uint64_t size,
		   const char *name)
{
	return pk__symtab_add_bind(t, start, size, name, STB_GLOBAL);
}

int pk__symtab_add_bind(struct pk_symtab *t, uint64_t start, uint64_t size,
			const char *name, int bind)
{
	size_t n = strlen(name) + 1;

	if (t->nr == t->cap) {
		int cap = t->cap ? 2 * t->cap : 256;
		struct pk_sym *s = pk__realloc(t->syms, (size_t)cap * sizeof(*s));

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
		p = pk__realloc(t->names, cap);
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
	t->syms[t->nr].bind = (unsigned char)bind;
	t->syms[t->nr].sized = size != 0;
	t->syms[t->nr].object = false;
	t->syms[t->nr].seq = (uint32_t)t->nr;
	t->nr++;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct pk_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq; /* file order */
}

static int underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choice among symbols at one address: sized, not weak, global,
 * fewer leading underscores, longer name, else the first. True: B. */
static bool better(const struct pk_sym *a, const struct pk_sym *b)
{
	size_t na, nb;

	if (a->sized != b->sized)
		return b->sized;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return a->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return b->bind == STB_GLOBAL;
	if (underscores(a->name) != underscores(b->name))
		return underscores(b->name) < underscores(a->name);
	na = strlen(a->name);
	nb = strlen(b->name);
	return nb > na;
}

/* Sorted by address, then file order; perf's symbols__fixup_end: an
 * unsized symbol ends where the next one starts, the last one at the page
 * after its own. Names are untouched (offsets while loading). */
static void order_and_fix_ends(struct pk_symtab *t)
{
	for (int i = 1; i < t->nr; i++) /* kallsyms comes sorted */
		if (t->syms[i].start < t->syms[i - 1].start) {
			qsort(t->syms, (size_t)t->nr, sizeof(*t->syms), cmp_sym);
			break;
		}
	for (int i = 0; i < t->nr; i++) {
		struct pk_sym *y = &t->syms[i];

		if (y->end != y->start)
			continue;
		if (i + 1 < t->nr)
			y->end = t->syms[i + 1].start;
		else
			y->end = ((y->start + 4095) & ~4095ull) + 4096;
	}
}

/* Whether a symbol starts inside another one (of another start). */
static bool overlapping(const struct pk_symtab *t)
{
	uint64_t before = 0, here = 0; /* the ends of earlier starts, this */

	for (int i = 0; i < t->nr; i++) {
		if (i && t->syms[i].start != t->syms[i - 1].start) {
			before = before > here ? before : here;
			here = 0;
		}
		if (before > t->syms[i].start)
			return true;
		if (t->syms[i].end > here)
			here = t->syms[i].end;
	}
	return false;
}

/* Sorted position I into the tree by its start, equals to the right. */
static void tree_add(struct pk_symtab *t, struct pk_rbi *n, uint32_t i)
{
	uint32_t link = t->root, parent = 0;
	bool l = false;

	while (link) {
		parent = link;
		l = t->syms[i].start < t->syms[parent - 1].start;
		link = l ? n[parent - 1].l : n[parent - 1].r;
	}
	pk__rbi_insert(n, &t->root, i, parent, l);
}

/* The next ELF (not PLT) symbol after sorted position I still in the
 * tree, or -1. */
static int next_elf(const struct pk_symtab *t, const bool *dead, int i,
		    uint32_t elf_end)
{
	while (++i < t->nr && (t->syms[i].seq >= elf_end || dead[i]))
		;
	return i < t->nr ? i : -1;
}

/* perf's symbols__fixup_duplicate over its tree of the ELF symbols: of
 * two of one start the worse goes (erased from the tree). */
static void tree_dedup(struct pk_symtab *t, struct pk_rbi *n, bool *dead,
		       uint32_t elf_end)
{
	int cur = next_elf(t, dead, -1, elf_end), nx;

	while (cur >= 0 && (nx = next_elf(t, dead, cur, elf_end)) >= 0) {
		if (t->syms[cur].start != t->syms[nx].start) {
			cur = nx;
		} else if (!better(&t->syms[cur], &t->syms[nx])) {
			pk__rbi_erase(n, &t->root, (uint32_t)nx);
			dead[nx] = true;
		} else {
			pk__rbi_erase(n, &t->root, (uint32_t)cur);
			dead[cur] = true;
			cur = nx;
		}
	}
}

/* perf's tree of symbols, built as perf builds it: the ELF symbols in
 * file order, the duplicates erased, the PLT's symbols added. Keeps the
 * survivors (sorted) with their children. */
static int perf_tree(struct pk_symtab *t)
{
	uint32_t n = (uint32_t)t->nr, k = 0;
	uint32_t elf_end = t->plt_from ? t->plt_from : n;
	struct pk_rbi *nd = pk__calloc(n, sizeof(*nd));
	uint32_t *pos = pk__calloc(n, sizeof(*pos));
	uint32_t *kids = pk__calloc(2 * (size_t)n, sizeof(*kids));
	bool *dead = pk__calloc(n, sizeof(*dead));
	int err = nd && pos && kids && dead ? 0 : -ENOMEM;

	for (uint32_t i = 0; !err && i < n; i++)
		if (t->syms[i].seq < n)
			pos[t->syms[i].seq] = i + 1;
		else
			err = -EINVAL;
	t->root = 0;
	for (uint32_t s = 0; !err && s < elf_end; s++)
		if (pos[s])
			tree_add(t, nd, pos[s] - 1);
	if (!err)
		tree_dedup(t, nd, dead, elf_end);
	for (uint32_t s = elf_end; !err && s < n; s++)
		if (pos[s])
			tree_add(t, nd, pos[s] - 1);
	for (uint32_t i = 0; !err && i < n; i++) /* sorted -> kept index */
		pos[i] = dead[i] ? 0 : ++k;
	for (uint32_t i = 0; !err && i < n; i++) {
		if (dead[i])
			continue;
		kids[2 * (pos[i] - 1)] = nd[i].l ? pos[nd[i].l - 1] : 0;
		kids[2 * (pos[i] - 1) + 1] = nd[i].r ? pos[nd[i].r - 1] : 0;
		t->syms[pos[i] - 1] = t->syms[i];
	}
	if (!err) {
		t->root = t->root ? pos[t->root - 1] : 0;
		t->nr = (int)k;
		t->kids = kids;
		kids = NULL;
	}
	pk__free(nd);
	pk__free(pos);
	pk__free(kids);
	pk__free(dead);
	return err;
}

/* Names made pointers, symbols ordered with their ends fixed up, every
 * one kept (aliases too). */
static void order_all(struct pk_symtab *t)
{
	for (int i = 0; t->names && i < t->nr; i++) /* offsets: pointers */
		t->syms[i].name = t->names + (uintptr_t)t->syms[i].name;
	order_and_fix_ends(t);
	for (int i = 0; i < t->nr; i++)
		t->syms[i].sized = t->syms[i].end > t->syms[i].start;
	t->loaded = true;
}

void pk__symtab_sort(struct pk_symtab *t)
{
	int k = 0;

	/* then perf's symbols__fixup_duplicate keeps one per address (so of
	 * unsized aliases the last, which alone got a size, wins) */
	order_all(t);
	/* where symbols overlap perf's answer is its tree's: that tree */
	if (!t->kallsyms && overlapping(t) && !perf_tree(t))
		return;
	for (int i = 0; i < t->nr; i++) {
		if (k && t->syms[k - 1].start == t->syms[i].start) {
			if (better(&t->syms[k - 1], &t->syms[i]))
				t->syms[k - 1] = t->syms[i];
			continue;
		}
		t->syms[k++] = t->syms[i];
	}
	t->nr = k;
}

/* perf's symbols__find down its tree: the first symbol on the way that
 * holds ADDR (an empty one at its start). */
static const struct pk_sym *tree_find(const struct pk_symtab *t, uint64_t addr)
{
	uint32_t h = t->root;

	while (h) {
		const struct pk_sym *s = &t->syms[h - 1];

		if (addr < s->start)
			h = t->kids[2 * (h - 1)];
		else if (addr > s->end || (addr == s->end && addr != s->start))
			h = t->kids[2 * (h - 1) + 1];
		else
			return s;
	}
	return NULL;
}

const struct pk_sym *pk__symtab_find(const struct pk_symtab *t, uint64_t addr)
{
	int lo = 0, hi = t->nr - 1;

	if (t->kids)
		return tree_find(t, addr);

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

/* A through the PT_LOAD holding it: offset -> address, or back. */
static uint64_t seg_map(const struct pk_symtab *t, uint64_t a, bool to_vaddr)
{
	for (int i = 0; i < t->nr_segs; i++) {
		const struct pk_load_seg *g = &t->segs[i];
		uint64_t from = to_vaddr ? g->offset : g->vaddr;
		uint64_t to = to_vaddr ? g->vaddr : g->offset;

		if (a >= from && a < from + g->filesz)
			return a - from + to;
	}
	return a;
}

uint64_t pk__symtab_off_to_vaddr(const struct pk_symtab *t, uint64_t off)
{
	return seg_map(t, off, true);
}

uint64_t pk__symtab_vaddr_to_off(const struct pk_symtab *t, uint64_t vaddr)
{
	return seg_map(t, vaddr, false);
}

const struct pk_sym *pk__symtab_below(const struct pk_symtab *t, uint64_t addr)
{
	int lo = 0, hi = t->nr - 1, best = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best < 0 ? NULL : &t->syms[best];
}

/* perf's symbols: functions and objects in allocated sections, labels
 * (no type, not hidden) in sections whose names contain "text" or
 * "data"; in ET_EXEC / ET_REL
 * files addresses become file offsets (what a map's ip - start + pgoff
 * gives). */
/* perf: by the binary's PT_LOAD holding the symbol, else by its section */
static uint64_t to_offset(const struct pk_symtab *t, const GElf_Sym *sym,
			  const GElf_Shdr *sh)
{
	for (int i = 0; i < t->nr_segs; i++) {
		const struct pk_load_seg *g = &t->segs[i];

		if (sym->st_value >= g->vaddr && sym->st_value < g->vaddr + g->filesz)
			return sym->st_value - (g->vaddr - g->offset);
	}
	return sym->st_value - (sh->sh_addr - sh->sh_offset);
}

/* The PT_LOAD segments (vaddr, offset, memsz) of the binary PATH. */
static void load_segments(struct pk_symtab *t, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	size_t n;

	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getphdrnum(elf, &n) && n && n < 4096 &&
	    (t->segs = pk__calloc(n, sizeof(*t->segs)))) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			t->segs[t->nr_segs++] = (struct pk_load_seg){
				ph.p_offset, ph.p_vaddr, ph.p_memsz };
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
}

static int load_symbols(struct pk_symtab *t, Elf *elf, Elf_Scn *scn,
			GElf_Shdr *sh, bool adjust)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return PK_ERR_FORMAT;
	for (size_t i = 0; d && i < n; i++) {
		GElf_Sym sym;
		GElf_Shdr ssh;
		Elf_Scn *sec;
		const char *name, *secname;
		char *dem;
		int type, err;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC &&
		     type != STT_OBJECT && type != STT_NOTYPE) || !sym.st_name ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
			continue;
		if (type == STT_NOTYPE &&
		    (GELF_ST_VISIBILITY(sym.st_other) == STV_HIDDEN ||
		     GELF_ST_VISIBILITY(sym.st_other) == STV_INTERNAL))
			continue;
		sec = elf_getscn(elf, sym.st_shndx);
		if (!sec || !gelf_getshdr(sec, &ssh) ||
		    !(ssh.sh_flags & SHF_ALLOC))
			continue;
		secname = elf_strptr(elf, shstrndx, ssh.sh_name);
		if (type == STT_NOTYPE && (!secname ||
		    (!strstr(secname, "text") && !strstr(secname, "data"))))
			continue; /* labels only in text and data sections */
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (adjust)
			sym.st_value = to_offset(t, &sym, &ssh);
		dem = pk__demangle(name);
		err = pk__symtab_add_bind(t, sym.st_value, sym.st_size,
					  dem ? dem : name,
					  GELF_ST_BIND(sym.st_info));
		pk__free(dem);
		if (err)
			return -ENOMEM;
		t->syms[t->nr - 1].object = type == STT_OBJECT;
	}
	return 0;
}

/* The .symtab section (WANT_SYMTAB) or .dynsym. */
static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *out, bool want_symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == (want_symtab ? SHT_SYMTAB : SHT_DYNSYM)) {
			*out = sh;
			return scn;
		}
	}
	return NULL;
}

/* Symbols of one file: 1 loaded, 0 no such table, or an error. */
static int load_file(struct pk_symtab *t, const char *path, bool want_symtab)
{
	int fd, err = 0;
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		err = PK_ERR_FORMAT;
		goto out;
	}
	scn = find_symtab(elf, &sh, want_symtab);
	if (scn) {
		t->is_exec = eh.e_type == ET_EXEC;
		err = load_symbols(t, elf, scn, &sh,
				   eh.e_type == ET_EXEC || eh.e_type == ET_REL ||
				   eh.e_type == ET_DYN);
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return err ? err : scn != NULL;
}

static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* perf's NAME@plt symbols, one PLT entry per .rela.plt relocation, at
 * file offsets (.plt.sec when there is one, else after the .plt
 * header). */
static void add_plt(struct pk_symtab *t, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Shdr rsh, psh, ssh, dsh;
	Elf_Scn *rel, *dyn;
	Elf_Data *rd, *dd;
	uint64_t off, entsize;

	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !gelf_getehdr(elf, &eh))
		goto out;
	rel = section(elf, ".rela.plt", &rsh);
	if (!rel)
		rel = section(elf, ".rel.plt", &rsh);
	if (!rel || (rsh.sh_type != SHT_RELA && rsh.sh_type != SHT_REL) ||
	    !section(elf, ".plt", &psh))
		goto out;
	dyn = elf_getscn(elf, rsh.sh_link);
	if (!dyn || !gelf_getshdr(dyn, &dsh))
		goto out;
	entsize = psh.sh_entsize ? psh.sh_entsize : 16;
	if (eh.e_machine == EM_X86_64 && section(elf, ".plt.sec", &ssh))
		off = ssh.sh_offset;
	else
		off = psh.sh_offset + entsize; /* past the header entry */
	rd = elf_getdata(rel, NULL);
	dd = elf_getdata(dyn, NULL);
	if (!rd || !dd || !rsh.sh_entsize)
		goto out;
	for (size_t i = 0; i < rsh.sh_size / rsh.sh_entsize; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		GElf_Sym sym;
		uint64_t info;
		const char *name;
		char buf[1024];

		if (rsh.sh_type == SHT_RELA) {
			if (!gelf_getrela(rd, (int)i, &ra))
				break;
			info = ra.r_info;
		} else {
			if (!gelf_getrel(rd, (int)i, &r))
				break;
			info = r.r_info;
		}
		if (!gelf_getsym(dd, (int)GELF_R_SYM(info), &sym))
			continue;
		name = elf_strptr(elf, dsh.sh_link, sym.st_name);
		if (!name)
			continue;
		char *dem = pk__demangle(name);

		snprintf(buf, sizeof(buf), "%s@plt", dem ? dem : name);
		pk__free(dem);
		if (pk__symtab_add(t, off, entsize, buf))
			break;
		off += entsize;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
}

int pk__symtab_load_files(struct pk_symtab *t, const char *const *paths,
			  int n)
{
	int err = -ENOENT;

	if (t->loaded || t->failed)
		return t->failed ? -ENOENT : 0;
	elf_version(EV_CURRENT);
	if (n && paths[0])
		load_segments(t, paths[0]);
	/* perf: the first file with a .symtab, else the first .dynsym */
	for (int pass = 0; pass < 2 && err <= 0; pass++)
		for (int i = 0; i < n && err <= 0; i++)
			if (paths[i])
				err = load_file(t, paths[i], pass == 0);
	/* perf fixes the ends up before it adds the PLT's symbols: an
	 * unsized _init ends at the next ELF symbol, over the PLT */
	order_and_fix_ends(t);
	t->plt_from = (uint32_t)t->nr;
	/* perf adds the PLT's symbols only to some of the file's own */
	if (n && paths[0] && err > 0 && t->nr)
		add_plt(t, paths[0]);
	pk__symtab_sort(t);
	t->failed = err <= 0;
	return err < 0 ? err : 0;
}

/* One table of FILE into T, its ends fixed: 1, 0 (no such table, no such
 * file, not ELF) or -ENOMEM. */
static int load_pass(struct pk_symtab *t, const char *file, bool symtab)
{
	int err = file ? load_file(t, file, symtab) : 0;

	if (err == -ENOMEM)
		return err;
	if (err <= 0)
		return 0;
	order_and_fix_ends(t);
	return 1;
}

int pk__symtab_load_aliases(struct pk_symtab *t, const char *path,
			    const char *debug)
{
	const char *from = debug;
	int err;

	if (t->loaded || t->failed)
		return t->failed ? 0 : t->nr;
	elf_version(EV_CURRENT);
	load_segments(t, path);
	/* perf 6.1 loads the .symtab (the debug file's first), then the
	 * .dynsym of that same file as well (a debug file's is empty), or
	 * the binary's .dynsym alone; each pass fixes the ends up */
	if (!(err = load_pass(t, debug, true)))
		err = load_pass(t, from = path, true);
	if (err >= 0)
		err = load_pass(t, err ? from : path, false);
	if (err < 0)
		return err;
	t->plt_from = (uint32_t)t->nr;
	if (t->nr)
		add_plt(t, path);
	order_all(t);
	t->failed = !t->nr;
	return t->nr;
}

int pk__symtab_load_elf(struct pk_symtab *t, const char *path)
{
	return pk__symtab_load_files(t, &path, 1);
}

int pk__symtab_load_kallsyms(struct pk_symtab *t, const char *path)
{
	char *text;
	long n;

	if (t->loaded || t->failed)
		return t->failed ? -ENOENT : 0;
	n = pk__read_file(path, &text);
	if (n < 0) {
		t->failed = true;
		return (int)n;
	}
	return pk__symtab_load_kallsyms_text(t, text);
}

/* perf's view of the kernel table: text symbols but at address 0, each
 * ending where the next starts (pk__symtab_sort) */
int pk__symtab_load_kallsyms_text(struct pk_symtab *t, char *text)
{
	int err;

	if (t->nr || t->names) { /* names must be TEXT's: an empty table */
		pk__free(text);
		return -EINVAL;
	}
	err = pk__ksyms_take(&t->ks, text);
	if (!err && t->ks.n &&
	    !(t->syms = pk__malloc(t->ks.n * sizeof(*t->syms))))
		err = -ENOMEM;
	if (err) {
		t->failed = true;
		return err;
	}
	for (size_t i = 0; i < t->ks.n; i++) {
		const struct pk_ksym *k = &t->ks.v[i];
		char c = k->type;

		if (!k->addr || !pk__ksym_is_text(c))
			continue;
		t->syms[t->nr] = (struct pk_sym){
			.start = k->addr, .end = k->addr, .name = k->name,
			.bind = c == 'T' ? STB_GLOBAL : c == 't' ? STB_LOCAL :
				STB_WEAK,
			.seq = (uint32_t)t->nr };
		t->nr++;
	}
	t->cap = t->nr;
	pk__symtab_sort(t);
	t->failed = t->nr == 0;
	return t->failed ? -ENOENT : 0;
}

void pk__symtab_fini(struct pk_symtab *t)
{
	pk__free(t->syms);
	pk__free(t->names);
	pk__free(t->segs);
	pk__free(t->kids);
	pk__ksyms_fini(&t->ks);
	memset(t, 0, sizeof(*t));
}
