/* SPDX-License-Identifier: MIT */
/* Internal: sorted function symbols of one object (ELF file or kallsyms). */
#ifndef PK_SYMBOL_SYMTAB_H
#define PK_SYMBOL_SYMTAB_H

#include <stdbool.h>
#include <stdint.h>

struct pk_sym {
	uint64_t start, end;  /* [start, end) in the object's address space */
	const char *name;
};

struct pk_load_seg {          /* a PT_LOAD: file offsets to addresses */
	uint64_t offset, vaddr, filesz;
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
};

/* Loads .symtab (else .dynsym) of PATH. 0 or -errno / PK_ERR_FORMAT. */
int pk__symtab_load_elf(struct pk_symtab *t, const char *path);
/* Loads kernel symbols from a kallsyms file. */
int pk__symtab_load_kallsyms(struct pk_symtab *t, const char *path);
/* The symbol holding ADDR, or NULL. */
const struct pk_sym *pk__symtab_find(const struct pk_symtab *t, uint64_t addr);
/* A file offset to the object's virtual address (via PT_LOAD). */
uint64_t pk__symtab_off_to_vaddr(const struct pk_symtab *t, uint64_t off);
void pk__symtab_fini(struct pk_symtab *t);
/* For tests and loaders: add a symbol, then sort once. */
int pk__symtab_add(struct pk_symtab *t, uint64_t start, uint64_t size,
		   const char *name);
void pk__symtab_sort(struct pk_symtab *t);

#endif
