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
};

void *pk__srcline_open(const char *path)
{
	struct srcline *sl = pk_zalloc(sizeof(*sl));

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
	pk_free(sl);
}

/* A file offset of the object to its address (PT_LOAD). */
static uint64_t off_to_vaddr(const struct pk_symtab *t, uint64_t off)
{
	for (int i = 0; i < t->nr_segs; i++) {
		const struct pk_load_seg *g = &t->segs[i];

		if (off >= g->offset && off < g->offset + g->filesz)
			return off - g->offset + g->vaddr;
	}
	return off;
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
	addr = off_to_vaddr(t, off) + bias;
	line = dwfl_module_getsrc(sl->mod, addr);
	file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
	if (!file) {
		/* DWARF without a line here (assembly): perf shows ":0" */
		if (!dwfl_module_getdwarf(sl->mod, &cubias))
			return -ENOENT;
		snprintf(buf, len, ":0");
		return 0;
	}
	base = strrchr(file, '/');
	snprintf(buf, len, "%s:%d", base ? base + 1 : file, lineno);
	return 0;
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

int pk__inlines(void *handle, const struct pk_symtab *t, uint64_t off,
		const char **names, int max)
{
	struct srcline *sl = handle;
	Dwarf_Addr bias = 0, cubias = 0, addr;
	Dwarf_Die *cu, *scopes = NULL;
	int n, k = 0;

	if (!sl || max < 1 || !dwfl_module_getelf(sl->mod, &bias))
		return 0;
	addr = off_to_vaddr(t, off) + bias;
	/* addr2line's first answer needs a line; "??:0" is no answer */
	if (!dwfl_module_getsrc(sl->mod, addr))
		return 0;
	cu = dwfl_module_addrdie(sl->mod, addr, &cubias);
	if (!cu)
		return 0;
	n = dwarf_getscopes(cu, addr - cubias, &scopes);
	for (int i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		const char *nm;

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		nm = die_fname(&scopes[i]);
		names[k++] = nm ? nm : "??";
	}
	free(scopes);
	return k;
}
