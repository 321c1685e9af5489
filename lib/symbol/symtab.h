/* SPDX-License-Identifier: MIT */
/* Internal: sorted function symbols of one object (ELF file or kallsyms). */
#ifndef PK_SYMBOL_SYMTAB_H
#define PK_SYMBOL_SYMTAB_H

#include <stdbool.h>
#include <stdint.h>
#include "symbol/ksyms.h"

struct pk_sym {
	uint64_t start, end;  /* [start, end) in the object's address space */
	const char *name;
	unsigned char bind;   /* STB_LOCAL / STB_GLOBAL / STB_WEAK */
	bool sized;           /* has a size (after perf's end fixup) */
	bool object;          /* STT_OBJECT (perf shows name+offset) */
	uint32_t seq;         /* order of addition (stable sorting) */
};

struct pk_load_seg {          /* a PT_LOAD: file offsets to addresses */
	uint64_t offset, vaddr, filesz; /* filesz: p_memsz (covers .bss) */
};

struct pk_symtab {
	struct pk_sym *syms;
	int nr, cap;
	char *names;              /* one block holding every name */
	size_t names_len, names_cap;
	struct pk_load_seg *segs;
	int nr_segs;
	bool loaded, failed;
	bool is_exec;             /* ET_EXEC: addresses are absolute */
	bool kallsyms;            /* perf's kallsyms end rule */
	uint32_t plt_from;        /* the first PLT symbol's seq (0: none) */
	/* where symbols overlap (an unsized _init over the PLT, sized ones
	 * holding others): perf's tree of them, children as indexes + 1 */
	uint32_t *kids, root;
	struct pk_ksyms ks;       /* kallsyms: the table SYMS views */
};

/* Loads .symtab (else .dynsym) of PATH. 0 or -errno / PK_ERR_FORMAT. */
int pk__symtab_load_elf(struct pk_symtab *t, const char *path);
/* Loads from the first of PATHS (NULL entries skipped) that has a
 * .symtab, else from the first with a .dynsym (perf's choice between a
 * binary and its debug file). 0 or -ENOENT. */
int pk__symtab_load_files(struct pk_symtab *t, const char *const *paths,
			  int n);
/* perf record's symbols of PATH (its address filters: aliases allowed):
 * those of the .symtab of DEBUG (PATH's debug file, or NULL) or else of
 * PATH, then those of the same file's .dynsym again (perf 6.1 loads
 * both; a debug file has none), or PATH's .dynsym alone; none merged,
 * then PATH's PLT entries; ordered by address, then as loaded. The table
 * has no lookup tree: walk t->syms. Returns the number of symbols (0: no
 * such file, not ELF, or none there), or -ENOMEM. */
int pk__symtab_load_aliases(struct pk_symtab *t, const char *path,
			    const char *debug);
/* Loads kernel symbols from a kallsyms file. */
int pk__symtab_load_kallsyms(struct pk_symtab *t, const char *path);
/* Same from the file's text (pk__malloc'ed, taken over and freed). */
int pk__symtab_load_kallsyms_text(struct pk_symtab *t, char *text);
/* The symbol holding ADDR, or NULL. */
const struct pk_sym *pk__symtab_find(const struct pk_symtab *t, uint64_t addr);
void pk__symtab_fini(struct pk_symtab *t);
/* File offsets to addresses and back through the PT_LOAD segments (as
 * is when outside them). */
uint64_t pk__symtab_off_to_vaddr(const struct pk_symtab *t, uint64_t off);
uint64_t pk__symtab_vaddr_to_off(const struct pk_symtab *t, uint64_t vaddr);
/* The last symbol starting at or below ADDR (its size aside), or NULL. */
const struct pk_sym *pk__symtab_below(const struct pk_symtab *t, uint64_t addr);
/* demangle.c: perf script's form of a C++ name (pk__free it), or NULL
 * when NAME is not mangled or no demangler is available. */
char *pk__demangle(const char *name);
/* Drops the outermost parameter list, qualifiers and return type. */
void pk__demangle_strip(char *demangled);
/* For tests and loaders: add a symbol, then sort once. */
int pk__symtab_add(struct pk_symtab *t, uint64_t start, uint64_t size,
		   const char *name);
/* Same with a binding (aliases at one address: perf's choice). */
int pk__symtab_add_bind(struct pk_symtab *t, uint64_t start, uint64_t size,
			const char *name, int bind);
void pk__symtab_sort(struct pk_symtab *t);

/* srcline.c: source lines through libdw. _open returns a handle for the
 * ELF file PATH (NULL when it has no usable DWARF or cannot be read). */
void *pk__srcline_open(const char *path);
void pk__srcline_close(void *handle);
/* "file.c:LINE" of file offset OFF (T gives the PT_LOAD layout). 0 or
 * -ENOENT. */
int pk__srcline(void *handle, const struct pk_symtab *t, uint64_t off,
		char *buf, size_t len);
/* binutils' file of an address with no line (elf_find_function): the
 * file symbol before the function holding OFF, NULL for a global after
 * the locals; -ENOENT when no function holds it. */
int pk__srcline_symfile(void *handle, const struct pk_symtab *t, uint64_t off,
			const char **file);
/* The frames addr2line -i -f gives for file offset OFF: innermost
 * (inlined) function first, the outermost last, each with its source line
 * (the address's for the first, the inlined call's for the others; FILE
 * NULL when unknown). Strings live as long as HANDLE. Returns the count;
 * 0 when there is no line or no function DIE there (perf then shows the
 * plain frame). */
struct pk__inl {
	const char *name, *file;
	unsigned line;
};
/* The DWARF line of file offset OFF: FILE (as the line table names it,
 * joined to its compilation directory when relative, valid until the
 * next call), LINE and DISCR (its discriminator, 0 when none). 0 or
 * -ENOENT. */
int pk__srcline_at(void *handle, const struct pk_symtab *t, uint64_t off,
		   const char **file, unsigned *line, unsigned *discr);
int pk__inlines(void *handle, const struct pk_symtab *t, uint64_t off,
		struct pk__inl *out, int max);

#endif
