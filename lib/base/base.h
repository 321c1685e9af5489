/* SPDX-License-Identifier: MIT */
/* Internal base layer: allocation, diagnostics, small helpers. */
#ifndef PK_BASE_H
#define PK_BASE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>
#include <perfkit/common.h>

#define PK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PK_MIN(a, b) ((a) < (b) ? (a) : (b))
#define PK_MAX(a, b) ((a) > (b) ? (a) : (b))
#define PK_PRINTF(f, a) __attribute__((format(printf, f, a)))

/*
 * Every allocation goes through these so tests can inject failures:
 * pk__alloc_fail_after(N) makes the (N+1)th allocation from now fail
 * (-1 disables injection).
 */
void *pk__malloc(size_t size);
void *pk__zalloc(size_t size);
void *pk__calloc(size_t n, size_t size);
void *pk__realloc(void *p, size_t size);
/* Room in the array *V (of *CAP elements of SIZE bytes, N used) for MORE
 * more: its capacity doubled (from 256) as needed. False when out of
 * memory (the array is left as it was). */
bool pk__grow(void **v, size_t *cap, size_t n, size_t more, size_t size);
char *pk__strdup(const char *s);
char *pk__strndup(const char *s, size_t n);
void pk__free(void *p);
void pk__alloc_fail_after(long n);

/* Diagnostics through the user's print callback. */
void pk__pr(enum pk_print_level level, const char *fmt, ...) PK_PRINTF(2, 3);
#define pk_warn(...)  pk__pr(PK_WARN, __VA_ARGS__)
#define pk_info(...)  pk__pr(PK_INFO, __VA_ARGS__)
#define pk_debug(...) pk__pr(PK_DEBUG, __VA_ARGS__)

/*
 * Checks an extensible option struct: NULL is fine; otherwise sz must be at
 * least the size up to and including LAST and any bytes past the known
 * struct size must be zero. Returns true when acceptable.
 */
bool pk__opts_valid(const void *opts, size_t user_sz, size_t known_sz);
#define PK_OPTS_VALID(opts, TYPE)                                        \
	pk__opts_valid((opts), (opts) ? *(const size_t *)(opts) : 0,      \
		      sizeof(struct TYPE))

/* Reads a whole small file (sysfs, procfs, tracefs) into a new
 * NUL-terminated buffer. Returns length or -errno; *OUT owned by caller. */
long pk__read_file(const char *path, char **out);
/* Reads a file holding one integer (decimal or 0x-hex). 0 or -errno. */
int pk__read_file_u64(const char *path, uint64_t *val);
/* Writes STR to an existing file. 0 or -errno. */
int pk__write_file(const char *path, const char *str);
/* Writes all LEN bytes (short writes and EINTR retried): 0 or -errno
 * (-EIO when write(2) returns 0). */
int pk__write_all(int fd, const void *data, size_t len);
/* Copies the first LEN bytes of FROM (read at offsets, its position
 * unchanged) to TO's position. 0, -errno or PK_ERR_TRUNC (FROM shorter). */
int pk__copy_fd(int from, int to, uint64_t len);
/* Writes all LEN bytes at offset OFF (pwrite, restarted). 0 or -errno. */
int pk__pwrite_all(int fd, const void *data, size_t len, off_t off);
/* mkdir -p with MODE: 0 or -errno. */
int pk__mkdir_p(const char *path, mode_t mode);
/* Creates PATH with DATA and MODE (not the umask's), complete or not at
 * all (a temporary file linked in); -EEXIST when PATH exists. */
int pk__write_new_file(const char *path, const void *data, size_t len,
		      mode_t mode);

/* Growable byte buffer. */
struct pk_buf {
	char *data;
	size_t len, cap;
};
int pk__buf_append(struct pk_buf *b, const void *p, size_t n);
int pk__buf_printf(struct pk_buf *b, const char *fmt, ...) PK_PRINTF(2, 3);
void pk__buf_fini(struct pk_buf *b);

/* A constructor's result from an int-returning open: P, or NULL with
 * errno = -E (an errno value or -PK_ERR_*: pk_strerror(-errno) names it). */
static inline void *pk__ptr_or_errno(int e, void *p)
{
	if (e) {
		errno = -e;
		return NULL;
	}
	return p;
}
#endif
