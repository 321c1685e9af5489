/* SPDX-License-Identifier: MIT */
/* perf's tracing data (version 0.6) from tracefs, for the events in use. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "event/evsel.h"
#include "event/pmu.h"
#include "tracefs/meta.h"

/* A file's bytes (N of DATA, read by tracefs/meta.c; freed here) preceded
 * by its size as a u64 (or u32 when SMALL). */
static int put_sized(struct pk_buf *b, long n, char *data, bool small)
{
	int err;

	if (n < 0)
		n = 0; /* absent: an empty section, as perf */
	if (small) {
		uint32_t sz = (uint32_t)n;

		err = pk__buf_append(b, &sz, sizeof(sz));
	} else {
		uint64_t sz = (uint64_t)n;

		err = pk__buf_append(b, &sz, sizeof(sz));
	}
	if (!err && n)
		err = pk__buf_append(b, data, (size_t)n);
	pk__free(data);
	return err;
}

static int put_file(struct pk_buf *b, const char *root, enum pk__tfmeta what,
		    bool small)
{
	char *data;
	long n = pk__tfmeta_read(root, NULL, what, &data);

	return put_sized(b, n, data, small);
}

static int put_format(struct pk_buf *b, const char *root, const char *sys,
		      const char *event)
{
	char *data;
	long n = pk__tfmeta_format(root, sys, event, &data);

	return put_sized(b, n, data, false);
}

static int put_header_file(struct pk_buf *b, const char *root, const char *name,
			   enum pk__tfmeta what)
{
	return pk__buf_append(b, name, strlen(name) + 1) ?:
	       put_file(b, root, what, false);
}

/* The ftrace:NAME events in use (perf writes only those). */
static int put_ftrace_formats(struct pk_buf *b, const char *root,
			      char **names, int n)
{
	uint32_t count = 0;
	size_t count_at = b->len;
	int err = pk__buf_append(b, &count, sizeof(count));

	for (int i = 0; i < n && !err; i++) {
		if (strncmp(names[i], "ftrace:", 7))
			continue;
		err = put_format(b, root, "ftrace", names[i] + 7);
		count++;
	}
	if (!err)
		memcpy(b->data + count_at, &count, sizeof(count));
	return err;
}

/* "sys:event[:mods]" of tracepoint evsels, sorted, duplicates removed. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int collect_names(const struct pk_evlist *l, char ***out)
{
	char **names = pk__calloc((size_t)l->nr + 1, sizeof(char *));
	int n = 0;

	if (!names)
		return -ENOMEM;
	for (int i = 0; i < l->nr; i++) {
		const struct pk_evsel *e = l->entries[i];
		const char *c1 = strchr(e->name, ':');
		const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (e->attr.type != PERF_TYPE_TRACEPOINT || !c1)
			continue;
		names[n] = pk__strndup(e->name, c2 ? (size_t)(c2 - e->name) :
					   strlen(e->name));
		if (!names[n])
			break;
		n++;
	}
	qsort(names, (size_t)n, sizeof(*names), cmp_str);
	for (int i = 1, k = 1; i <= n; i++) {
		if (i == n) {
			n = k;
			break;
		}
		if (strcmp(names[i], names[k - 1]))
			names[k++] = names[i];
		else
			pk__free(names[i]);
	}
	*out = names;
	return n;
}

static int put_event_formats(struct pk_buf *b, const char *root,
			     char **names, int n)
{
	uint32_t nsys = 0;
	size_t nsys_at = b->len;
	int err = pk__buf_append(b, &nsys, sizeof(nsys));

	for (int i = 0; i < n && !err;) {
		size_t slen = (size_t)(strchr(names[i], ':') - names[i]);
		uint32_t cnt = 0;
		size_t cnt_at;
		int j;

		if (!strncmp(names[i], "ftrace:", 7)) { /* in the ftrace part */
			i++;
			continue;
		}
		for (j = i; j < n && !strncmp(names[j], names[i], slen + 1); j++)
			cnt++;
		err = pk__buf_append(b, names[i], slen) ?: pk__buf_append(b, "", 1);
		cnt_at = b->len;
		err = err ?: pk__buf_append(b, &cnt, sizeof(cnt));
		for (int k = i; k < j && !err; k++) {
			names[k][slen] = '\0';  /* "sys" and "event" */
			err = put_format(b, root, names[k], names[k] + slen + 1);
			names[k][slen] = ':';
		}
		if (!err)
			memcpy(b->data + cnt_at, &cnt, sizeof(cnt));
		nsys++;
		i = j;
	}
	if (!err)
		memcpy(b->data + nsys_at, &nsys, sizeof(nsys));
	return err;
}

/* perf leaves kallsyms out (readers take symbols from the kernel's own
 * sources), which keeps the section small enough for pipe readers. */
static int put_empty_kallsyms(struct pk_buf *b)
{
	uint32_t zero = 0;

	return pk__buf_append(b, &zero, sizeof(zero));
}

long pk_tracing_data_build(const struct pk_evlist *l, void **out)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c',
				      'i', 'n', 'g' };
	const char *root = pk__tracefs();
	struct pk_buf b = { 0 };
	char **names = NULL;
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	unsigned char endian_long[2] = { 0, (unsigned char)sizeof(long) };
	int n, err;

	*out = NULL;
	if (!root)
		return -errno;
	n = collect_names(l, &names);
	if (n < 0)
		return n;
	err = pk__buf_append(&b, magic, sizeof(magic)) ?:
	      pk__buf_append(&b, "0.6", 4) ?:
	      pk__buf_append(&b, endian_long, 2) ?:
	      pk__buf_append(&b, &page, sizeof(page)) ?:
	      put_header_file(&b, root, "header_page", PK_TFMETA_HEADER_PAGE) ?:
	      put_header_file(&b, root, "header_event",
			      PK_TFMETA_HEADER_EVENT) ?:
	      put_ftrace_formats(&b, root, names, n) ?:
	      put_event_formats(&b, root, names, n) ?:
	      put_empty_kallsyms(&b) ?:
	      put_file(&b, root, PK_TFMETA_PRINTK, true) ?:
	      put_file(&b, root, PK_TFMETA_CMDLINES, false);
	for (int i = 0; i < n; i++)
		pk__free(names[i]);
	pk__free(names);
	if (err) {
		pk__buf_fini(&b);
		return err;
	}
	*out = b.data;
	return (long)b.len;
}
