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

/* The file perf reads NAME's code from (PATH): the build-id cache's copy
 * first, else the file named whatever its build id (or when it has
 * none: raw code). False when there is none. */
static bool code_file(struct pk_itrace *it, const char *name, char *path,
		      size_t len, struct stat *st)
{
	if (!name || (name[0] != '/' && strcmp(name, "[vdso]")))
		return false;
	if (pk_session_dso_file(it->sess, name, path, len))
		snprintf(path, len, "%s", name);
	return !stat(path, st) && S_ISREG(st->st_mode);
}

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

	if (!(m->prot & PROT_EXEC) || !code_file(a->it, m->name, path,
						 sizeof(path), &st) ||
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

struct pk_pt_image *pk__it_guest_image(struct pk_itrace *it)
{
	if (!it->gimg && (it->gimg = pk_pt_image_new()))
		pk_session_for_each_guest_code(it->sess, add_kcode, it->gimg);
	return it->gimg;
}

/* perf's data status of DSOs. Mapping a process's vDSO, perf works out
 * the process's word size (machine__thread_dso_type) from its mappings
 * in address order, trying each file-backed DSO's file until one opens
 * as ELF: the DSOs tried whose file is missing have their data status
 * 'error' before any code is fetched from them (one failed fetch
 * reported, not two). */

bool pk__it_dso_tried(const struct pk_itrace *it, const char *dso)
{
	for (size_t i = 0; i < it->ntried; i++)
		if (!strcmp(it->tried[i], dso))
			return true;
	return false;
}

/* Whether the file at PATH starts as an ELF file does. */
static bool is_elf(const char *path)
{
	unsigned char m[4];
	FILE *f = fopen(path, "rb");
	bool yes = f && fread(m, 1, 4, f) == 4 && !memcmp(m, "\177ELF", 4);

	if (f)
		fclose(f);
	return yes;
}

struct type_ctx {
	struct pk_itrace *it;
	bool known;
	int err;
};

static int try_type(void *ctx, const struct pk_session_mapping *m)
{
	struct type_ctx *t = ctx;
	struct pk_itrace *it = t->it;
	char path[4352], *dup;
	struct stat st;

	if (t->known || !m->name || m->name[0] != '/' ||
	    pk__it_dso_tried(it, m->name))
		return 0;
	if (code_file(it, m->name, path, sizeof(path), &st)) {
		t->known = is_elf(path);
		return 0;
	}
	if (!pk__grow((void **)&it->tried, &it->captried, it->ntried, 1,
		      sizeof(*it->tried)) || !(dup = pk__strdup(m->name))) {
		t->err = -ENOMEM;
		return -ENOMEM;
	}
	it->tried[it->ntried++] = dup;
	return 0;
}

int pk__it_mmap(struct pk_itrace *it, const struct pk_record *rec)
{
	const uint8_t *p = (const uint8_t *)rec->hdr;
	unsigned cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	size_t off = rec->type == PERF_RECORD_MMAP2 ? 72 : 40;
	struct type_ctx t = { it, false, 0 };
	int32_t pid, tid;

	if (rec->size < off + sizeof("[vdso]") ||
	    cpumode == PERF_RECORD_MISC_KERNEL ||
	    cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    memcmp(p + off, "[vdso]", sizeof("[vdso]")))
		return 0;
	memcpy(&pid, p + 8, sizeof(pid));
	memcpy(&tid, p + 12, sizeof(tid));
	if (pid == -1)
		return 0;
	pk_session_for_each_mapping(it->sess, tid, try_type, &t);
	return t.err;
}
