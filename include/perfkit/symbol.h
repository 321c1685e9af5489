/* SPDX-License-Identifier: MIT */
/* perfkit symbols: build ids of ELF files and of the running kernel. */
#ifndef PERFKIT_SYMBOL_H
#define PERFKIT_SYMBOL_H

#include <stddef.h>
#include <stdint.h>
#include <perfkit/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PK_BUILD_ID_MAX 20

/*
 * Reads the GNU build id (NT_GNU_BUILD_ID note) of the ELF file PATH into
 * ID (up to PK_BUILD_ID_MAX bytes). Returns its length, -ENOENT when the
 * file has none (or does not exist), PK_ERR_FORMAT when it is not ELF, or
 * -errno.
 */
PK_API int pk_build_id_read(const char *path, uint8_t *id);

/* The same for a raw note section (/sys/kernel/notes, a PT_NOTE). */
PK_API int pk_build_id_from_notes(const void *notes, size_t size, uint8_t *id);

/* The same for an ELF image in memory (the vdso). */
PK_API int pk_build_id_from_elf(const void *image, size_t size, uint8_t *id);

/* The running kernel's build id, from /sys/kernel/notes. */
PK_API int pk_build_id_kernel(uint8_t *id);

/* Lowercase hex of ID into BUF (2 * LEN + 1 bytes). Returns BUF. */
PK_API char *pk_build_id_hex(const uint8_t *id, int len, char *buf);

#ifdef __cplusplus
}
#endif
#endif
