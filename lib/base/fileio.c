/* SPDX-License-Identifier: MIT */
/*
 * Files: whole-file reads and writes, numbers from sysfs-style files,
 * growable byte buffers (pk_buf), mkdir -p.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "base/base.h"

static int buf_reserve(struct pk_buf *b, size_t n);

/* Reads straight into the buffer, as much as it has room for (a seq
 * file such as /proc/kallsyms fills whatever it is asked: one read per
 * 4 KiB chunk was a syscall and a copy per page). */
long pk__read_file(const char *path, char **out)
{
	struct pk_buf b = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	*out = NULL;
	if (fd < 0)
		return -errno;
	for (;;) {
		/* room for 4 KiB more and the final NUL */
		if (buf_reserve(&b, 4096 + 1)) {
			n = -ENOMEM;
			goto fail;
		}
		n = read(fd, b.data + b.len, b.cap - b.len - 1);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			goto fail;
		}
		b.len += (size_t)n;
	}
	close(fd);
	b.data[b.len] = '\0';
	*out = b.data;
	return (long)b.len;
fail:
	close(fd);
	pk__buf_fini(&b);
	return (long)n;
}

int pk__read_file_u64(const char *path, uint64_t *val)
{
	char *s, *end;
	long n = pk__read_file(path, &s);

	if (n < 0)
		return (int)n;
	errno = 0;
	*val = strtoull(s, &end, 0);
	n = (errno || end == s) ? -EINVAL : 0;
	pk__free(s);
	return (int)n;
}

int pk__write_file(const char *path, const char *str)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t len = strlen(str);
	ssize_t n;
	int err = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, str, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

static int buf_reserve(struct pk_buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	char *d;

	if (b->len + n <= b->cap)
		return 0;
	while (cap < b->len + n)
		cap *= 2;
	d = pk__realloc(b->data, cap);
	if (!d)
		return -ENOMEM;
	b->data = d;
	b->cap = cap;
	return 0;
}

int pk__buf_append(struct pk_buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n))
		return -ENOMEM;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int pk__buf_printf(struct pk_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if (buf_reserve(b, (size_t)n + 1))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

void pk__buf_fini(struct pk_buf *b)
{
	pk__free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int pk__mkdir_p(const char *path, mode_t mode)
{
	char p[4096];
	size_t len = strlen(path);

	if (len >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, len + 1);
	for (char *s = p + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		if (!c)
			return 0;
		*s = c;
	}
}

/* write() or, when OFF >= 0, pwrite() at OFF, until all LEN bytes are
 * written (short writes and EINTR retried). 0 or -errno (-EIO: wrote 0). */
static int write_full(int fd, const char *p, size_t len, off_t off)
{
	while (len) {
		ssize_t n = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

int pk__write_all(int fd, const void *data, size_t len)
{
	return write_full(fd, data, len, -1);
}

int pk__copy_fd(int from, int to, uint64_t len)
{
	static __thread char buf[1 << 16];
	off_t at = 0;

	while (len) {
		ssize_t n = pread(from, buf, (size_t)PK_MIN(len, sizeof(buf)), at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : PK_ERR_TRUNC;
		int r = pk__write_all(to, buf, (size_t)n);
		if (r)
			return r;
		at += n;
		len -= (uint64_t)n;
	}
	return 0;
}

int pk__pwrite_all(int fd, const void *data, size_t len, off_t off)
{
	return off < 0 ? -EINVAL : write_full(fd, data, len, off);
}

int pk__write_new_file(const char *path, const void *data, size_t len,
		      mode_t mode)
{
	char tmp[4200];
	int fd, err;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	err = fchmod(fd, mode) < 0 ? -errno : pk__write_all(fd, data, len);
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && link(tmp, path) < 0)
		err = -errno;
	unlink(tmp);
	return err;
}
