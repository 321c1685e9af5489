/* SPDX-License-Identifier: MIT */
/* Internal: the kernel's code and maps from a kcore (perf record
 * --kcore's DIR/kcore_dir/kcore, /proc/kcore), as perf's dso__load_kcore
 * takes them. */
#ifndef PK_SESSION_KCORE_H
#define PK_SESSION_KCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "symbol/symtab.h"

struct pk__kseg {
	uint64_t start, end, pgoff;	/* [start, end) at file offset pgoff */
};

/* A module map perf holds before the kcore replaces it. */
struct pk__kmod {
	const char *name;	/* perf's short name: "[name]" */
	uint64_t start;
};

/* The kcore in use: its file and segments. */
struct pk__kcore {
	char path[4352];
	struct pk__kseg *segs;	/* by address */
	int nr;
	bool tried;
	int err;		/* why it is not used (0: it is) */
};

/* KALLSYMS with its last component ("kallsyms", else false) replaced by
 * NAME, into BUF (perf looks for kcore and modules beside it). */
bool pk__kcore_sibling(const char *kallsyms, const char *name, char *buf,
		       size_t len);
/* The program headers of the (little-endian) ELF file on FD into *PH
 * (pk__malloc'ed): *NUM entries of *ENTSZ bytes, *IS64 its class. 0,
 * PK_ERR_FORMAT or -ENOMEM. */
int pk__kcore_phdrs(int fd, unsigned char **ph, unsigned *num,
		    unsigned *entsz, bool *is64);
/* One program header P: when it is a PT_LOAD code segment (PF_X, with
 * min(p_filesz, p_memsz) bytes) its range and offset into *S. */
bool pk__kcore_phdr_seg(const unsigned char *p, bool is64,
			struct pk__kseg *s);
/* One modules line (cut at will): "[name]" (its first word) into NAME
 * and the address after its last 'x'; false for a line perf skips. */
bool pk__kcore_module_line(char *line, char *name, size_t len,
			   uint64_t *start);
/* The executable PT_LOAD segments of the ELF file PATH, as perf maps
 * them (PF_X, min(p_filesz, p_memsz) bytes, empty ones left out), by
 * address. 0, -errno, PK_ERR_FORMAT (not an ELF file, no such segment),
 * -ENOMEM. *SEGS is pk__malloc'ed. */
int pk__kcore_segments(const char *path, struct pk__kseg **segs, int *nr);
/* perf's check of a modules file (its address after the last 'x' of a
 * line, "[name]" the line's first word): every module of MODS there at
 * its start. 0, -errno (unreadable) or -EINVAL. */
int pk__kcore_modules(const char *path, const struct pk__kmod *mods, int n);
/* The address of the first function (type T, t, W or w) named NAME in
 * kallsyms table K: false when none (perf's kallsyms__get_function_start). */
bool pk__kcore_func(const struct pk_ksyms *k, const char *name,
		    uint64_t *addr);
/*
 * Everything perf checks before it reads the kernel from the kcore beside
 * KALLSYMS (K its table): the kernel map's reference symbol REF (NULL:
 * none) at REF_ADDR there, the modules of MODS in the modules file beside
 * it, the kcore an ELF file with code segments. Fills KC (path, segs).
 * 0 or what failed.
 */
int pk__kcore_load(struct pk__kcore *kc, const char *kallsyms,
		   const struct pk_ksyms *k, const char *ref, uint64_t ref_addr,
		   const struct pk__kmod *mods, int n);
/* Symbols of T kept as perf splits kallsyms over the kcore's maps: those
 * starting in no segment dropped, ends cut at their segment's end. */
void pk__kcore_clip(struct pk_symtab *t, const struct pk__kseg *segs, int nr);
/* The kernel's symbols of T (not the modules') moved down by DELTA: the
 * kernel was relocated at boot (perf's maps__split_kallsyms). */
void pk__kcore_relocate(struct pk_symtab *t, uint64_t delta);
void pk__kcore_fini(struct pk__kcore *kc);

#endif
