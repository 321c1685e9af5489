/* SPDX-License-Identifier: MIT */
/* GNU build ids from ELF program-header notes or section notes. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include <perfkit/symbol.h>

static size_t align4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

int pk_build_id_from_notes(const void *notes, size_t size, uint8_t *id)
{
	const unsigned char *p = notes, *end = p + size;

	while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
		Elf64_Nhdr n;
		size_t name_sz, desc_sz;

		memcpy(&n, p, sizeof(n));
		p += sizeof(n);
		name_sz = align4(n.n_namesz);
		desc_sz = align4(n.n_descsz);
		if (name_sz > (size_t)(end - p) ||
		    desc_sz > (size_t)(end - p) - name_sz)
			return PK_ERR_FORMAT;
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
		    !memcmp(p, "GNU", 4)) {
			size_t len = PK_MIN((size_t)n.n_descsz,
					    (size_t)PK_BUILD_ID_MAX);

			memcpy(id, p + name_sz, len);
			return (int)len;
		}
		p += name_sz + desc_sz;
	}
	return -ENOENT;
}

/* An ELF image: an open file (FD >= 0) or bytes in memory. */
struct elf_src {
	int fd;
	const unsigned char *mem;
	size_t size;
};

static int read_at(const struct elf_src *s, void *buf, size_t len, off_t off)
{
	ssize_t n;

	if (s->fd < 0) {
		if (off < 0 || (size_t)off > s->size || len > s->size - (size_t)off)
			return PK_ERR_TRUNC;
		memcpy(buf, s->mem + off, len);
		return 0;
	}
	n = pread(s->fd, buf, len, off);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : PK_ERR_TRUNC;
}

/* Scans the PT_NOTE segments of a 64-bit (or 32-bit) ELF file. */
static int scan_phdrs(const struct elf_src *s, const unsigned char *ident,
		      uint8_t *id)
{
	bool is64 = ident[EI_CLASS] == ELFCLASS64;
	Elf64_Ehdr eh;
	Elf32_Ehdr eh32;
	uint64_t phoff;
	unsigned phnum, phentsize;
	int err = -ENOENT;

	if (is64) {
		if (read_at(s, &eh, sizeof(eh), 0))
			return PK_ERR_FORMAT;
		phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize;
	} else {
		if (read_at(s, &eh32, sizeof(eh32), 0))
			return PK_ERR_FORMAT;
		phoff = eh32.e_phoff, phnum = eh32.e_phnum, phentsize = eh32.e_phentsize;
	}
	if (phnum > 4096 || phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return PK_ERR_FORMAT;
	for (unsigned i = 0; i < phnum; i++) {
		uint64_t off, sz;
		uint32_t type;
		unsigned char *buf;

		if (is64) {
			Elf64_Phdr ph;

			if (read_at(s, &ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)))
				return PK_ERR_FORMAT;
			type = ph.p_type, off = ph.p_offset, sz = ph.p_filesz;
		} else {
			Elf32_Phdr ph;

			if (read_at(s, &ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)))
				return PK_ERR_FORMAT;
			type = ph.p_type, off = ph.p_offset, sz = ph.p_filesz;
		}
		if (type != PT_NOTE || sz > (1 << 20))
			continue;
		buf = pk__malloc(sz);
		if (!buf)
			return -ENOMEM;
		err = read_at(s, buf, sz, (off_t)off) ? PK_ERR_FORMAT :
		      pk_build_id_from_notes(buf, sz, id);
		pk__free(buf);
		if (err > 0)
			return err;
	}
	return err == PK_ERR_FORMAT ? err : -ENOENT;
}

static int scan_elf(const struct elf_src *s, uint8_t *id)
{
	unsigned char ident[EI_NIDENT];
	int err = read_at(s, ident, sizeof(ident), 0);

	if (err)
		return err == PK_ERR_TRUNC ? PK_ERR_FORMAT : err;
	if (memcmp(ident, ELFMAG, SELFMAG) ||
	    (ident[EI_CLASS] != ELFCLASS64 && ident[EI_CLASS] != ELFCLASS32) ||
	    ident[EI_DATA] != ELFDATA2LSB)
		return PK_ERR_FORMAT;
	return scan_phdrs(s, ident, id);
}

int pk_build_id_read(const char *path, uint8_t *id)
{
	struct elf_src s = { .fd = open(path, O_RDONLY | O_CLOEXEC) };
	int err;

	if (s.fd < 0)
		return -errno;
	err = scan_elf(&s, id);
	close(s.fd);
	return err;
}

int pk_build_id_from_elf(const void *image, size_t size, uint8_t *id)
{
	struct elf_src s = { .fd = -1, .mem = image, .size = size };

	return scan_elf(&s, id);
}

int pk_build_id_kernel(uint8_t *id)
{
	char *buf;
	long n = pk__read_file("/sys/kernel/notes", &buf);
	int err;

	if (n < 0)
		return (int)n;
	err = pk_build_id_from_notes(buf, (size_t)n, id);
	pk__free(buf);
	return err;
}

char *pk_build_id_hex(const uint8_t *id, int len, char *buf)
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < len; i++) {
		buf[2 * i] = hex[id[i] >> 4];
		buf[2 * i + 1] = hex[id[i] & 15];
	}
	buf[2 * (len > 0 ? len : 0)] = '\0';
	return buf;
}
