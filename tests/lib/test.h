/* SPDX-License-Identifier: MIT */
/*
 * Minimal test harness. Each test program prints one line per check:
 *   ok NAME | FAIL NAME: detail | skipped: NAME: reason
 * and tests/run.sh adds them up. t_exit() returns non-zero on any failure.
 */
#ifndef PK_TEST_H
#define PK_TEST_H
#include <stdbool.h>
#include <stdio.h>

void t_ok(const char *name);
void t_fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void t_skip(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* ok when COND, else FAIL with the formatted detail. Returns COND. */
bool t_check(bool cond, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int t_exit(void);
/* ASan builds: libtraceevent leaks a few strings in tep_parse_event. A
 * test that goes through it says T_LSAN_LIBTRACEEVENT once at file scope
 * (default visibility: the objects are built -fvisibility=hidden, and a
 * hidden __lsan_default_suppressions is never found by the runtime). */
#define T_LSAN_LIBTRACEEVENT \
	__attribute__((visibility("default"))) \
	const char *__lsan_default_suppressions(void); \
	const char *__lsan_default_suppressions(void) \
	{ \
		return "leak:libtraceevent.so\n"; \
	}
/* Path of a file under ../shared (env PK_SHARED overrides). */
const char *t_shared(const char *rel);
/* For test NAME, which needs REL under ../shared: its path, or NULL after
 * printing "skipped: NAME: ../shared is absent" (the whole corpus is not
 * here) or "FAIL NAME: PATH is missing" (the corpus lacks it). */
const char *t_shared_need(const char *name, const char *rel);
/* The build directory (env PK_BUILD, default "build"). */
const char *t_build(const char *rel);

/* An MMAP2 record into BUF (CAP bytes, 8-aligned): PID as pid and tid,
 * START, LEN, PGOFF, NAME, header misc MISC; the rest zero. Returns its
 * size, or 0 when it does not fit. */
#include <stddef.h>
#include <stdint.h>
size_t t_mmap2(void *buf, size_t cap, uint32_t pid, uint64_t start,
	       uint64_t len, uint64_t pgoff, const char *name, uint16_t misc);

/* CMD's stdout (popen) into a malloc'ed string of *LEN bytes (LEN may
 * be NULL), or NULL when it cannot run. */
char *t_popen_read(const char *cmd, size_t *len);

/* `trace-cmd report ARGS -i PATH`'s stdout (and stderr with ERR) into
 * a malloc'ed string of *LEN bytes, or NULL when trace-cmd is not
 * installed at /usr/bin/trace-cmd or cannot run. */
char *t_tracecmd_report(const char *args, const char *path, bool err,
			size_t *len);

#define T_CHECK(name, cond) \
	t_check((cond), (name), "%s:%d: %s", __FILE__, __LINE__, #cond)
#endif
