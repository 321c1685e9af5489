/* SPDX-License-Identifier: MIT */
/*
 * perfkit script: the little thread and map state -D needs for perf's
 * " ... thread: comm:tid" and " ...... dso: name" lines under each sample:
 * COMM names per thread (inherited at FORK), MMAP/MMAP2 per process
 * (inherited by a forked process), the kernel's maps (pid -1). The newest
 * mapping containing an address wins, as perf's overlap fix-up makes it.
 * (A stand-in until the session layer exists.)
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/perfdata.h>
#include "script_threads.h"

struct map {
	uint64_t start, end;
	char *name;               /* shared, owned by the names list */
};

struct proc {
	int32_t pid;
	struct map *maps;
	unsigned nr, cap;
};

struct thr {
	int32_t tid;
	char comm[17];
	bool set;
};

struct threads {
	struct thr *thr;
	size_t nthr, cthr;        /* open-addressing hash by tid */
	struct proc *procs;
	size_t nproc, cproc;      /* open-addressing hash by pid */
	struct proc kernel;
	char **names;
	size_t nnames;
};

static uint64_t mix(uint32_t x)
{
	uint64_t h = x * 0x9e3779b97f4a7c15ULL;

	return h ^ (h >> 29);
}

struct threads *threads_new(void)
{
	return calloc(1, sizeof(struct threads));
}

void threads_free(struct threads *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->cproc; i++)
		free(t->procs[i].maps);
	free(t->procs);
	free(t->thr);
	free(t->kernel.maps);
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
	free(t);
}

static struct thr *thr_get(struct threads *t, int32_t tid, bool add)
{
	size_t i;

	if (add && (t->nthr + 1) * 2 > t->cthr) {
		size_t cap = t->cthr ? t->cthr * 2 : 1024;
		struct thr *n = calloc(cap, sizeof(*n)), *o = t->thr;

		if (!n)
			return NULL;
		t->thr = n;
		for (size_t k = 0; k < t->cthr; k++) {
			if (!o[k].set)
				continue;
			i = mix(o[k].tid) & (cap - 1);
			while (n[i].set)
				i = (i + 1) & (cap - 1);
			n[i] = o[k];
		}
		t->cthr = cap;
		free(o);
	}
	if (!t->cthr)
		return NULL;
	i = mix(tid) & (t->cthr - 1);
	while (t->thr[i].set && t->thr[i].tid != tid)
		i = (i + 1) & (t->cthr - 1);
	if (t->thr[i].set)
		return &t->thr[i];
	if (!add)
		return NULL;
	t->thr[i].set = true;
	t->thr[i].tid = tid;
	t->nthr++;
	return &t->thr[i];
}

static struct proc *proc_get(struct threads *t, int32_t pid, bool add)
{
	size_t i;

	if (pid == -1)
		return &t->kernel;
	if (add && (t->nproc + 1) * 2 > t->cproc) {
		size_t cap = t->cproc ? t->cproc * 2 : 256;
		struct proc *n = calloc(cap, sizeof(*n)), *o = t->procs;

		if (!n)
			return NULL;
		for (size_t k = 0; k < t->cproc; k++) {
			if (!o[k].cap && !o[k].pid && !o[k].maps)
				continue;
			i = mix(o[k].pid) & (cap - 1);
			while (n[i].maps || n[i].cap)
				i = (i + 1) & (cap - 1);
			n[i] = o[k];
		}
		t->procs = n;
		t->cproc = cap;
		free(o);
	}
	if (!t->cproc)
		return NULL;
	i = mix(pid) & (t->cproc - 1);
	while (t->procs[i].cap && t->procs[i].pid != pid)
		i = (i + 1) & (t->cproc - 1);
	if (t->procs[i].cap)
		return &t->procs[i];
	if (!add)
		return NULL;
	t->procs[i].pid = pid;
	t->procs[i].cap = 8;
	t->procs[i].maps = calloc(8, sizeof(struct map));
	if (!t->procs[i].maps)
		return NULL;
	t->nproc++;
	return &t->procs[i];
}

static int add_map(struct proc *p, uint64_t start, uint64_t len, char *name)
{
	if (p->nr == p->cap) {
		unsigned cap = p->cap ? p->cap * 2 : 8;
		struct map *n = realloc(p->maps, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->maps = n;
		p->cap = cap;
	}
	p->maps[p->nr].start = start;
	p->maps[p->nr].end = start + len;
	p->maps[p->nr].name = name;
	p->nr++;
	return 0;
}

static char *intern(struct threads *t, const char *s)
{
	char **n, *c;

	/* the last few names repeat most (a process's libraries) */
	for (size_t i = t->nnames; i > 0 && i + 64 > t->nnames; i--)
		if (!strcmp(t->names[i - 1], s))
			return t->names[i - 1];
	c = strdup(s);
	n = realloc(t->names, (t->nnames + 1) * sizeof(*n));
	if (!c || !n) {
		free(c);
		if (n)
			t->names = n;
		return NULL;
	}
	t->names = n;
	t->names[t->nnames++] = c;
	return c;
}

static int on_mmap(struct threads *t, const unsigned char *p, uint32_t size,
		   size_t name_off)
{
	int32_t pid;
	uint64_t start, len;
	char name[4096], *in;
	size_t n = size > name_off ? size - name_off : 0;
	struct proc *pr;

	if (size < name_off)
		return 0;
	memcpy(&pid, p + 8, 4);
	memcpy(&start, p + 16, 8);
	memcpy(&len, p + 24, 8);
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, p + name_off, n);
	name[n] = 0;
	/* perf names the kernel map "[kernel.kallsyms]" */
	if (!strncmp(name, "[kernel.kallsyms]", 17))
		name[17] = 0;
	pr = proc_get(t, pid, true);
	in = intern(t, name);
	if (!pr || !in)
		return -ENOMEM;
	return add_map(pr, start, len, in);
}

static int on_fork(struct threads *t, const unsigned char *p, uint32_t size)
{
	int32_t pid, ppid, tid, ptid;
	struct thr *child, *parent;

	if (size < 24)
		return 0;
	memcpy(&pid, p + 8, 4);
	memcpy(&ppid, p + 12, 4);
	memcpy(&tid, p + 16, 4);
	memcpy(&ptid, p + 20, 4);
	parent = thr_get(t, ptid, false);
	child = thr_get(t, tid, true);
	if (!child)
		return -ENOMEM;
	parent = thr_get(t, ptid, false); /* the table may have moved */
	if (parent)
		memcpy(child->comm, parent->comm, sizeof(child->comm));
	if (pid != ppid) {
		struct proc *pp = proc_get(t, ppid, false), *cp;

		if (pp && pp->nr) {
			struct map *copy = malloc(pp->nr * sizeof(*copy));
			unsigned nr = pp->nr;

			if (!copy)
				return -ENOMEM;
			memcpy(copy, pp->maps, nr * sizeof(*copy));
			cp = proc_get(t, pid, true);
			for (unsigned i = 0; cp && i < nr; i++)
				if (add_map(cp, copy[i].start,
					    copy[i].end - copy[i].start,
					    copy[i].name)) {
					free(copy);
					return -ENOMEM;
				}
			free(copy);
		}
	}
	return 0;
}

int threads_record(struct threads *t, const struct pk_record *rec)
{
	const unsigned char *p = (const void *)rec->hdr;

	switch (rec->type) {
	case PERF_RECORD_COMM: {
		int32_t tid;
		struct thr *th;
		size_t n;

		if (rec->size < 17)
			return 0;
		memcpy(&tid, p + 12, 4);
		th = thr_get(t, tid, true);
		if (!th)
			return -ENOMEM;
		n = strnlen((const char *)p + 16, PK_MIN_CLI(16, rec->size - 16));
		memcpy(th->comm, p + 16, n);
		th->comm[n] = 0;
		return 0;
	}
	case PERF_RECORD_FORK:
		return on_fork(t, p, rec->size);
	case PERF_RECORD_MMAP:
		return on_mmap(t, p, rec->size, 40);
	case PERF_RECORD_MMAP2:
		return on_mmap(t, p, rec->size, 72);
	default:
		return 0;
	}
}

const char *threads_comm(struct threads *t, int32_t tid, char *buf,
			 size_t len)
{
	struct thr *th = thr_get(t, tid, false);

	if (th && th->comm[0])
		return th->comm;
	if (tid == 0)
		return "swapper";
	snprintf(buf, len, ":%d", tid);
	return buf;
}

const char *threads_dso(struct threads *t, int32_t pid, uint16_t misc,
			uint64_t ip)
{
	unsigned mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct proc *p;

	if (mode == PERF_RECORD_MISC_KERNEL ||
	    mode == PERF_RECORD_MISC_GUEST_KERNEL)
		p = &t->kernel;
	else if (mode == PERF_RECORD_MISC_USER ||
		 mode == PERF_RECORD_MISC_GUEST_USER)
		p = proc_get(t, pid, false);
	else
		return NULL;
	for (unsigned i = p ? p->nr : 0; i > 0; i--)
		if (ip >= p->maps[i - 1].start && ip < p->maps[i - 1].end)
			return p->maps[i - 1].name;
	return "<not found>";
}
