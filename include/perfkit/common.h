/* SPDX-License-Identifier: MIT */
/*
 * perfkit: shared conventions of the public API.
 *
 * Errors: functions return int; a negative value is an error, either -errno
 * for an operating-system failure or one of enum pk_error for bad input and
 * decode failures. pk_strerror() names both. Functions returning pointers
 * return NULL and set errno.
 *
 * The library never prints: diagnostics go through the print callback set
 * with pk_set_print(), each message prefixed with the object it concerns.
 */
#ifndef PERFKIT_COMMON_H
#define PERFKIT_COMMON_H

#include <stddef.h>
#include <stdio.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PK_API __attribute__((visibility("default")))

/* Project error codes; disjoint from errno values (all below -4096). */
enum pk_error {
	PK_ERR_FIRST     = -10000,
	PK_ERR_SYNTAX    = -10000, /* malformed input string */
	PK_ERR_UNKNOWN   = -10001, /* unknown event, PMU, term or name */
	PK_ERR_FORMAT    = -10002, /* malformed file or record */
	PK_ERR_TRUNC     = -10003, /* input ends early */
	PK_ERR_UNSUPP    = -10004, /* feature not supported by kernel/hardware */
	PK_ERR_INTERNAL  = -10005, /* a bug in perfkit */
	PK_ERR_RANGE     = -10006, /* value out of range */
	PK_ERR_NOSYNC    = -10007, /* no synchronisation point found */
	PK_ERR_EOS       = -10008, /* end of stream (not an error for loops) */
	PK_ERR_LAST      = -10008,
};

/* A string for any error this library returns (-errno or enum pk_error). */
PK_API const char *pk_strerror(int err);

enum pk_print_level {
	PK_WARN,
	PK_INFO,
	PK_DEBUG,
};

typedef int (*pk_print_fn)(enum pk_print_level level, const char *fmt,
			   va_list ap);

/*
 * Zeroed memory for a large buffer: from 256 KiB up, a mapping on a 2 MiB
 * boundary advised into huge pages (a few page faults instead of one per
 * 4 KiB, which costs most in virtual machines). NULL with errno.
 * pk_huge_free() takes the same N back.
 */
PK_API void *pk_huge_alloc(size_t n);
PK_API void pk_huge_free(void *p, size_t n);

/*
 * Sets the callback that receives every library diagnostic. NULL silences
 * the library (the default). Returns the previous callback.
 */
PK_API pk_print_fn pk_set_print(pk_print_fn fn);

/*
 * Writes the LEN bytes of STR to F as a JSON string: quotes and
 * backslashes escaped, control characters and bytes that are not UTF-8
 * as \u00XX (Latin-1), valid UTF-8 as it is. 0, or -EIO when F failed.
 */
PK_API int pk_json_str(FILE *f, const char *str, size_t len);

/*
 * "Did you mean": the known name nearest to a mistyped WORD. Start with
 * pk_nearest_init, offer every known name with pk_nearest_add; NAME then
 * holds the closest one (edit distance, a swap of two neighbours counting
 * as one edit) that is a likely typo: at most 1 + len(WORD)/4 edits and
 * fewer than len(WORD), WORD itself excluded. The first of equals wins;
 * "" when no name is close. Names of 128 bytes or more are not offered.
 */
struct pk_nearest {
	const char *word;
	int dist;		/* of NAME; above the limit while NAME is "" */
	char name[128];
};
PK_API void pk_nearest_init(struct pk_nearest *n, const char *word);
PK_API void pk_nearest_add(struct pk_nearest *n, const char *name);

/*
 * Extensible option structs start with `size_t sz`. Declare them with
 * PK_OPTS(type, name, .field = value, ...) so sz is set; the library rejects
 * (with -EINVAL) a struct whose unknown trailing bytes are not zero.
 */
#define PK_OPTS(TYPE, NAME, ...)                                           \
	struct TYPE NAME = ({                                              \
		__builtin_memset(&NAME, 0, sizeof(struct TYPE));           \
		(struct TYPE){ .sz = sizeof(struct TYPE), __VA_ARGS__ };   \
	})

#ifdef __cplusplus
}
#endif
#endif
