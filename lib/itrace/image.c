/* SPDX-License-Identifier: MIT */
/* The code a decoder reads: each process's executable mappings as the
 * session has them, from the files perf would read. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "base/base.h"
#include "itrace/itrace_int.h"

struct add_ctx {
	struct pk_itrace *it;
	struct pk_pt_image *img;
};

/* A mapping's code: from the file perf would read (the recorded one when
 * its build id matches, else the build-id cache copy, else the recorded
 * one all the same; the vDSO's copy from the cache). */
static int add_map(void *ctx, const struct pk_session_mapping *m)
{
	struct add_ctx *a = ctx;
	char path[4352];
	struct stat st;
	uint64_t size;

	if (!(m->prot & PROT_EXEC) || !m->name ||
	    (m->name[0] != '/' && strcmp(m->name, "[vdso]")))
		return 0;
	/* perf reads the build-id cache's copy first, else the file named
	 * whatever its build id (or when it has none: raw code) */
	if (pk_session_dso_file(a->it->sess, m->name, path, sizeof(path)))
		snprintf(path, sizeof(path), "%s", m->name);
	if (stat(path, &st) || !S_ISREG(st.st_mode) ||
	    m->pgoff >= (uint64_t)st.st_size)
		return 0;
	size = m->end - m->start;
	if (size > (uint64_t)st.st_size - m->pgoff)
		size = (uint64_t)st.st_size - m->pgoff;
	pk_pt_image_add_file(a->img, path, m->pgoff, size, m->start);
	return 0;
}

/* A kernel code segment from the kcore the session reads. */
static int add_kcode(void *ctx, const struct pk_session_code *c)
{
	pk_pt_image_add_file(ctx, c->file, c->pgoff, c->end - c->start,
			     c->start);
	return 0;
}

/* The kernel's code, when the trace has it and perf would read it from a
 * kcore (perf record --kcore's directory, /proc/kcore). */
static void add_kernel_code(struct pk_itrace *it, struct pk_pt_image *img)
{
	if (!it->pt.exclude_kernel)
		pk_session_for_each_kernel_code(it->sess, add_kcode, img);
}

struct pk_pt_image *pk__it_image(struct pk_itrace *it, int32_t pid,
				 int32_t tid)
{
	uint64_t gen = pk_session_generation(it->sess, (uint32_t)pid,
					     PERF_RECORD_MISC_USER);
	struct it_image *e = NULL;
	struct pk_pt_image *img;

	for (size_t i = it->nimgs; i; i--)
		if (it->imgs[i - 1].pid == pid) {
			e = &it->imgs[i - 1];
			break;
		}
	if (e && e->gen == gen)
		return e->img;
	img = pk_pt_image_new();
	if (!img)
		return NULL;
	{
		struct add_ctx a = { it, img };

		pk_session_for_each_mapping(it->sess, tid, add_map, &a);
		add_kernel_code(it, img);
	}
	/* an older image of the process stays: a decoder may use it */
	if (!pk__grow((void **)&it->imgs, &it->capimgs, it->nimgs, 1,
		      sizeof(*it->imgs))) {
		pk_pt_image_free(img);
		return NULL;
	}
	it->imgs[it->nimgs].pid = pid;
	it->imgs[it->nimgs].gen = gen;
	it->imgs[it->nimgs++].img = img;
	return img;
}
