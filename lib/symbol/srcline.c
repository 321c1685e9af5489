/* SPDX-License-Identifier: MIT */
/* Source lines of addresses in ELF files, through libdw (DWARF line
 * tables, separate debuginfo found the standard ways). */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "base/base.h"
#include "symbol/symtab.h"

static char *debuginfo_path;

static const Dwfl_Callbacks offline_cb = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct srcline {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	char path[4096];      /* pk__srcline_at's joined file name */
};

void *pk__srcline_open(const char *path)
{
	struct srcline *sl = pk__zalloc(sizeof(*sl));

	if (!sl)
		return NULL;
	sl->dwfl = dwfl_begin(&offline_cb);
	if (sl->dwfl)
		sl->mod = dwfl_report_offline(sl->dwfl, "", path, -1);
	if (!sl->mod || dwfl_report_end(sl->dwfl, NULL, NULL)) {
		pk__srcline_close(sl);
		return NULL;
	}
	return sl;
}

void pk__srcline_close(void *handle)
{
	struct srcline *sl = handle;

	if (!sl)
		return;
	if (sl->dwfl)
		dwfl_end(sl->dwfl);
	pk__free(sl);
}

int pk__srcline(void *handle, const struct pk_symtab *t, uint64_t off,
		char *buf, size_t len)
{
	struct srcline *sl = handle;
	Dwfl_Line *line;
	Dwarf_Addr bias = 0;
	const char *file, *base;
	int lineno = 0;

	Dwarf_Addr cubias = 0, addr;

	if (!sl || !dwfl_module_getelf(sl->mod, &bias))
		return -ENOENT;
	addr = pk__symtab_off_to_vaddr(t, off) + bias;
	line = dwfl_module_getsrc(sl->mod, addr);
	file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (!file) {
		/* DWARF without a line here: addr2line's answer from the
		 * symbol table: the function's file ("crtstuff.c:0"), "??:0"
		 * for a function of no file (_start), ":0" where no
		 * function holds it (perf: no line at all) */
		if (!dwfl_module_getdwarf(sl->mod, &cubias))
			return -ENOENT;
		if (pk__srcline_symfile(handle, t, off, &file))
			file = "";
		else if (!file)
			file = "??";
		base = strrchr(file, '/');
		snprintf(buf, len, "%s:0", base ? base + 1 : file);
		return 0;
	}
	base = strrchr(file, '/');
	snprintf(buf, len, "%s:%d", base ? base + 1 : file, lineno);
	return 0;
}

/* binutils' elf_find_function state: no symbol yet, a symbol, a file
 * symbol after symbols (globals there have no file) */
enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL };

/* Whether binutils takes symbol S (of section SHNDX) as a function of
 * the address's section SEC: no section, object, TLS or file symbol,
 * nor a hidden local zero-size no-type one (annobin's marks). */
static bool function_like(const GElf_Sym *s, GElf_Word shndx, size_t sec)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (type == STT_SECTION || type == STT_OBJECT || type == STT_TLS ||
	    shndx != sec || shndx == SHN_UNDEF)
		return false;
	return s->st_size || GELF_ST_BIND(s->st_info) != STB_LOCAL ||
	       type != STT_NOTYPE ||
	       GELF_ST_VISIBILITY(s->st_other) != STV_HIDDEN;
}

int pk__srcline_symfile(void *handle, const struct pk_symtab *t, uint64_t off,
			const char **file)
{
	struct srcline *sl = handle;
	Dwarf_Addr bias = 0, a, sbias;
	GElf_Addr low = 0, best = 0;
	const char *last_file = NULL;
	Elf_Scn *scn;
	size_t sec;
	int n, state = NOTHING_SEEN;
	bool found = false;

	*file = NULL;
	if (!sl || !dwfl_module_getelf(sl->mod, &bias))
		return -ENOENT;
	a = pk__symtab_off_to_vaddr(t, off) + bias;
	sbias = a;
	scn = dwfl_module_address_section(sl->mod, &sbias, &bias);
	n = dwfl_module_getsymtab(sl->mod);
	if (!scn || n <= 0)
		return -ENOENT;
	sec = elf_ndxscn(scn);
	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr v;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(sl->mod, i, &s, &v,
							   &shndx, NULL, NULL);
		uint64_t size;

		if (!name)
			continue;
		if (GELF_ST_TYPE(s.st_info) == STT_FILE) {
			last_file = name;
			if (state == SYMBOL_SEEN)
				state = FILE_AFTER_SYMBOL;
			continue;
		}
		size = s.st_size ? s.st_size : 1;
		if (function_like(&s, shndx, sec) && v <= a &&
		    (v > low || (v == low && size > best))) {
			found = true;
			best = size;
			low = v;
			*file = last_file && (GELF_ST_BIND(s.st_info) == STB_LOCAL ||
					      state != FILE_AFTER_SYMBOL) ?
				last_file : NULL;
		}
		if (state == NOTHING_SEEN)
			state = SYMBOL_SEEN;
	}
	return found ? 0 : -ENOENT;
}

/* A function DIE's name as binutils' DWARF reader takes it: the linkage
 * name before the plain one, through abstract origins. */
static const char *die_fname(Dwarf_Die *d)
{
	static const int at[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name,
				  DW_AT_name };
	Dwarf_Attribute a;

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		const char *s = dwarf_attr_integrate(d, at[i], &a) ?
				dwarf_formstring(&a) : NULL;

		if (s)
			return s;
	}
	return NULL;
}

/* Length of the range of D that holds PC, 0 when none. */
static uint64_t pc_range_len(Dwarf_Die *d, Dwarf_Addr pc)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(d, off, &base, &start, &end)) > 0)
		if (pc >= start && pc < end)
			return end - start;
	return 0;
}

/* binutils' choice among the functions directly below PARENT (lexical
 * blocks and scopes looked through): the smallest range holding PC, the
 * last in DIE order on a tie. */
static void best_function(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *best,
			  uint64_t *best_len, int depth)
{
	Dwarf_Die c;
	uint64_t len;

	if (depth > 64 || dwarf_child(parent, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
		case DW_TAG_entry_point:
			len = pc_range_len(&c, pc);
			if (len && (!*best_len || len <= *best_len)) {
				*best = c;
				*best_len = len;
			}
			break;
		case DW_TAG_lexical_block:
			if (dwarf_haspc(&c, pc) == 1)
				best_function(&c, pc, best, best_len, depth + 1);
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			best_function(&c, pc, best, best_len, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* The chain of functions holding PC below PARENT, outermost first, into
 * DIES. Returns how many. */
static int walk_scopes(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *dies,
		       int max)
{
	Dwarf_Die cur = *parent;
	int k = 0;

	while (k < max) {
		uint64_t len = 0;

		best_function(&cur, pc, &dies[k], &len, 0);
		if (!len)
			break;
		cur = dies[k++];
	}
	return k;
}

/* The source file of an inlined call (DW_AT_call_file), or NULL. */
static const char *call_file(Dwarf_Die *cu, Dwarf_Die *d, unsigned *line)
{
	Dwarf_Attribute a;
	Dwarf_Word idx = 0, ln = 0;
	Dwarf_Files *files;
	size_t nfiles;

	*line = 0;
	if (dwarf_formudata(dwarf_attr(d, DW_AT_call_line, &a), &ln) == 0)
		*line = (unsigned)ln;
	if (dwarf_formudata(dwarf_attr(d, DW_AT_call_file, &a), &idx) != 0 ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

int pk__inlines(void *handle, const struct pk_symtab *t, uint64_t off,
		struct pk__inl *out, int max)
{
	struct srcline *sl = handle;
	Dwarf_Addr bias = 0, cubias = 0, addr;
	Dwarf_Die *cu, dies[64];
	Dwfl_Line *line;
	const char *file;
	int lineno = 0, k;

	if (!sl || max < 1 || !dwfl_module_getelf(sl->mod, &bias))
		return 0;
	addr = pk__symtab_off_to_vaddr(t, off) + bias;
	/* addr2line's first answer needs a line; "??:0" is no answer */
	line = dwfl_module_getsrc(sl->mod, addr);
	file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) :
	       NULL;
	if (!file)
		return 0;
	cu = dwfl_module_addrdie(sl->mod, addr, &cubias);
	if (!cu)
		return 0;
	k = walk_scopes(cu, addr - cubias, dies, PK_MIN(max, 64));
	/* innermost first: its line is the address's, each caller's the
	 * line of the call it inlined */
	for (int i = 0; i < k; i++) {
		Dwarf_Die *d = &dies[k - 1 - i];
		const char *nm = die_fname(d);

		out[i].name = nm ? nm : "??";
		if (i == 0) {
			out[i].file = file;
			out[i].line = (unsigned)lineno;
		} else {
			out[i].file = call_file(cu, &dies[k - i], &out[i].line);
		}
	}
	return k;
}

int pk__srcline_at(void *handle, const struct pk_symtab *t, uint64_t off,
		   const char **file, unsigned *line, unsigned *discr)
{
	struct srcline *sl = handle;
	Dwarf_Addr bias = 0;
	Dwfl_Line *l;
	Dwarf_Line *dl;
	const char *comp;
	int lineno = 0;

	*discr = 0;
	if (!sl || !dwfl_module_getelf(sl->mod, &bias))
		return -ENOENT;
	l = dwfl_module_getsrc(sl->mod, pk__symtab_off_to_vaddr(t, off) + bias);
	*file = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (!*file)
		return -ENOENT;
	*line = (unsigned)lineno;
	comp = dwfl_line_comp_dir(l);
	if ((*file)[0] != '/' && comp) {
		snprintf(sl->path, sizeof(sl->path), "%s/%s", comp, *file);
		*file = sl->path;
	}
	dl = dwfl_dwarf_line(l, &bias);
	if (dl)
		dwarf_linediscriminator(dl, discr);
	return 0;
}
