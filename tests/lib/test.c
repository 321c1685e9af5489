/* SPDX-License-Identifier: MIT */
/*
 * The unit tests' reporting ("ok", "FAIL", "skipped:" lines) and where
 * ../shared is.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "test.h"

static int n_fail;

void t_ok(const char *name)
{
	printf("ok %s\n", name);
	fflush(stdout);
}

static void vline(const char *head, const char *name, const char *fmt,
		  va_list ap)
{
	printf("%s%s: ", head, name);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

void t_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	n_fail++;
	va_start(ap, fmt);
	vline("FAIL ", name, fmt, ap);
	va_end(ap);
}

void t_skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("skipped: ", name, fmt, ap);
	va_end(ap);
}

bool t_check(bool cond, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		t_ok(name);
		return true;
	}
	n_fail++;
	va_start(ap, fmt);
	vline("FAIL ", name, fmt, ap);
	va_end(ap);
	return false;
}

int t_exit(void)
{
	return n_fail ? 1 : 0;
}

static const char *join(const char *env, const char *def, const char *rel)
{
	static char buf[8][4096];
	static int slot;
	const char *base = getenv(env);
	char *b = buf[slot++ % 8];

	snprintf(b, sizeof(buf[0]), "%s/%s", base && *base ? base : def, rel);
	return b;
}

const char *t_shared(const char *rel)
{
	return join("PK_SHARED", "../shared", rel);
}

const char *t_shared_need(const char *name, const char *rel)
{
	const char *root = join("PK_SHARED", "../shared", "");
	const char *path = t_shared(rel);

	if (access(root, F_OK)) {
		t_skip(name, "%.*s is absent", (int)strlen(root) - 1, root);
		return NULL;
	}
	if (access(path, R_OK)) {
		t_fail(name, "%s is missing", path);
		return NULL;
	}
	return path;
}

const char *t_build(const char *rel)
{
	return join("PK_BUILD", "build", rel);
}

size_t t_mmap2(void *buf, size_t cap, uint32_t pid, uint64_t start,
	       uint64_t len, uint64_t pgoff, const char *name, uint16_t misc)
{
	unsigned char *b = buf;
	size_t n = strlen(name) + 1, size = (72 + n + 7) & ~(size_t)7;
	struct perf_event_header h = { PERF_RECORD_MMAP2, misc, (uint16_t)size };

	if (size > cap || size > UINT16_MAX)
		return 0;
	memset(b, 0, size);
	memcpy(b, &h, sizeof(h));
	memcpy(b + 8, &pid, 4);
	memcpy(b + 12, &pid, 4);
	memcpy(b + 16, &start, 8);
	memcpy(b + 24, &len, 8);
	memcpy(b + 32, &pgoff, 8);
	memcpy(b + 72, name, n);
	return size;
}

char *t_popen_read(const char *cmd, size_t *len)
{
	char chunk[4096], *buf = NULL;
	size_t got, n = 0;
	FILE *p, *m;

	if (!(p = popen(cmd, "r")))
		return NULL;
	if (!(m = open_memstream(&buf, &n))) {
		pclose(p);
		return NULL;
	}
	while ((got = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, got, m);
	pclose(p);
	fclose(m);
	if (len)
		*len = n;
	return buf;
}

char *t_tracecmd_report(const char *args, const char *path, bool err,
			size_t *len)
{
	char cmd[1024];

	*len = 0;
	if (access("/usr/bin/trace-cmd", X_OK))
		return NULL;
	snprintf(cmd, sizeof(cmd), "trace-cmd report %s -i %s %s", args, path,
		 err ? "2>&1" : "2>/dev/null");
	return t_popen_read(cmd, len);
}
