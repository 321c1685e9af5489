/* SPDX-License-Identifier: MIT */
/* PT code image: file contents mapped at virtual addresses. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <gelf.h>
#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include "base/base.h"
#include <perfkit/pt_insn.h>

struct section {
	uint64_t addr, size;
	uint8_t *data;
};

struct pk_pt_image {
	struct section *sec;
	size_t n, cap;
	size_t last;		/* section of the last hit */
};

struct pk_pt_image *pk_pt_image_new(void)
{
	struct pk_pt_image *img = pk__zalloc(sizeof(*img));

	if (!img)
		errno = ENOMEM;
	return img;
}

void pk_pt_image_free(struct pk_pt_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->n; i++)
		pk__free(img->sec[i].data);
	pk__free(img->sec);
	pk__free(img);
}

static int read_range(const char *path, uint64_t off, uint64_t size,
		      uint8_t **out, uint64_t *outlen)
{
	FILE *f = fopen(path, "rb");
	long flen;
	uint8_t *d;

	struct stat st;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st)) {
		fclose(f);
		return -EIO;
	}
	if (!S_ISREG(st.st_mode)) {
		fclose(f);	/* (a directory "opens", ftell: LONG_MAX) */
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	if (fseek(f, 0, SEEK_END) || (flen = ftell(f)) < 0) {
		fclose(f);
		return -EIO;
	}
	if (off > (uint64_t)flen || (size && off + size > (uint64_t)flen)) {
		fclose(f);
		return PK_ERR_RANGE;
	}
	if (!size)
		size = (uint64_t)flen - off;
	d = pk__malloc(size ? size : 1);
	if (!d) {
		fclose(f);
		return -ENOMEM;
	}
	if (fseek(f, (long)off, SEEK_SET) || fread(d, 1, size, f) != size) {
		pk__free(d);
		fclose(f);
		return -EIO;
	}
	fclose(f);
	*out = d;
	*outlen = size;
	return 0;
}

static int add_section(struct pk_pt_image *img, struct section s)
{
	if (img->n == img->cap) {
		size_t cap = img->cap ? 2 * img->cap : 4;
		struct section *ns = pk__realloc(img->sec, cap * sizeof(*ns));

		if (!ns) {
			pk__free(s.data);
			return -ENOMEM;
		}
		img->sec = ns;
		img->cap = cap;
	}
	img->sec[img->n++] = s;
	return 0;
}

int pk_pt_image_add_buf(struct pk_pt_image *img, const void *data,
			size_t len, uint64_t addr)
{
	struct section s = { .addr = addr, .size = len };

	if (!img || (!data && len))
		return PK_ERR_INTERNAL;
	s.data = pk__malloc(len ? len : 1);
	if (!s.data)
		return -ENOMEM;
	if (len)
		memcpy(s.data, data, len);
	return add_section(img, s);
}

int pk_pt_image_add_file(struct pk_pt_image *img, const char *path,
			 uint64_t offset, uint64_t size, uint64_t addr)
{
	struct section s = { .addr = addr };
	int err;

	if (!img || !path)
		return PK_ERR_INTERNAL;
	err = read_range(path, offset, size, &s.data, &s.size);
	if (err < 0)
		return err;
	return add_section(img, s);
}

/* The newest section holding ADDR, or NULL. */
static const struct section *find(const struct pk_pt_image *img,
				  uint64_t addr)
{
	const struct section *s;

	if (img->last < img->n) {
		s = &img->sec[img->last];
		if (addr - s->addr < s->size)
			return s;
	}
	for (size_t i = img->n; i-- > 0;) {
		s = &img->sec[i];
		if (addr - s->addr < s->size) {
			((struct pk_pt_image *)img)->last = i;
			return s;
		}
	}
	return NULL;
}

size_t pk_pt_image_read(const struct pk_pt_image *img, uint64_t addr,
			uint8_t *buf, size_t len)
{
	const struct section *s;
	size_t n;

	if (!img || !buf)
		return 0;
	s = find(img, addr);
	if (!s)
		return 0;
	n = (size_t)PK_MIN((uint64_t)len, s->size - (addr - s->addr));
	memcpy(buf, s->data + (addr - s->addr), n);
	return n;
}

/* ---- ELF files ---- */

int pk_pt_image_add_elf(struct pk_pt_image *img, const char *path,
			uint64_t bias)
{
	size_t nphdr = 0;
	int fd, mapped = 0, err = 0;
	Elf *elf;

	if (!img || !path)
		return PK_ERR_INTERNAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return PK_ERR_INTERNAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    elf_getphdrnum(elf, &nphdr) != 0) {
		err = PK_ERR_FORMAT;
		goto out;
	}
	for (size_t i = 0; i < nphdr && !err; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		err = pk_pt_image_add_file(img, path, ph.p_offset, ph.p_filesz,
					   ph.p_vaddr + bias);
		if (!err)
			mapped++;
	}
	if (!err && !mapped)
		err = PK_ERR_FORMAT;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return err < 0 ? err : mapped;
}
