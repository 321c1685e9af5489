/* SPDX-License-Identifier: MIT */
/* The recorded machine: threads, per-process maps, DSOs with symbols. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "symbol/symtab.h"
#include <perfkit/session.h>
#include "session/session.h"

#define NBUCKET 4096

struct pk_session {
	struct thread *threads[NBUCKET];
	struct proc *procs[NBUCKET];
	struct dso *dsos[NBUCKET];
	struct proc kernel;   /* pid -1: the kernel and its modules */
	struct dso *kdso;     /* [kernel.kallsyms] */
	char *kallsyms;
	char *root;
};

static unsigned hash_u32(uint32_t v)
{
	return (v * 2654435761u) % NBUCKET;
}

static unsigned hash_str(const char *s)
{
	unsigned h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % NBUCKET;
}

struct pk_session *pk_session_new(const struct pk_session_opts *o)
{
	struct pk_session *s;

	if (!PK_OPTS_VALID(o, pk_session_opts)) {
		errno = EINVAL;
		return NULL;
	}
	s = pk_zalloc(sizeof(*s));
	if (!s)
		return NULL;
	s->kernel.pid = (uint32_t)-1;
	s->kallsyms = pk_strdup(o && o->kallsyms ? o->kallsyms : "/proc/kallsyms");
	s->root = pk_strdup(o && o->root ? o->root : "");
	if (!s->kallsyms || !s->root) {
		pk_session_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

void pk_session_free(struct pk_session *s)
{
	if (!s)
		return;
	for (int b = 0; b < NBUCKET; b++) {
		for (struct thread *t = s->threads[b], *n; t; t = n) {
			n = t->next;
			pk_free(t);
		}
		for (struct proc *p = s->procs[b], *n; p; p = n) {
			n = p->next;
			pk_free(p->maps);
			pk_free(p);
		}
		for (struct dso *d = s->dsos[b], *n; d; d = n) {
			n = d->next;
			pk__symtab_fini(&d->tab);
			pk_free(d->name);
			pk_free(d);
		}
	}
	pk_free(s->kernel.maps);
	pk_free(s->kallsyms);
	pk_free(s->root);
	pk_free(s);
}

static struct thread *find_thread(struct pk_session *s, uint32_t tid, bool add)
{
	unsigned b = hash_u32(tid);
	struct thread *t;

	for (t = s->threads[b]; t; t = t->next)
		if (t->tid == tid)
			return t;
	if (!add || !(t = pk_zalloc(sizeof(*t))))
		return NULL;
	t->tid = tid;
	t->pid = tid;
	t->next = s->threads[b];
	s->threads[b] = t;
	return t;
}

static struct proc *find_proc(struct pk_session *s, uint32_t pid, bool add)
{
	unsigned b = hash_u32(pid);
	struct proc *p;

	if (pid == (uint32_t)-1)
		return &s->kernel;
	for (p = s->procs[b]; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!add || !(p = pk_zalloc(sizeof(*p))))
		return NULL;
	p->pid = pid;
	p->next = s->procs[b];
	s->procs[b] = p;
	return p;
}

static struct dso *find_dso(struct pk_session *s, const char *name, bool kernel)
{
	unsigned b = hash_str(name);
	struct dso *d;

	for (d = s->dsos[b]; d; d = d->next)
		if (!strcmp(d->name, name))
			return d;
	d = pk_zalloc(sizeof(*d));
	if (!d || !(d->name = pk_strdup(name))) {
		pk_free(d);
		return NULL;
	}
	d->kernel = kernel;
	d->next = s->dsos[b];
	s->dsos[b] = d;
	return d;
}

const char *pk_session_comm(struct pk_session *s, uint32_t tid)
{
	struct thread *t = find_thread(s, tid, false);

	return t && t->comm[0] ? t->comm : NULL;
}

static void set_comm(struct thread *t, const char *c, size_t max)
{
	size_t n = strnlen(c, PK_MIN(max, sizeof(t->comm) - 1));

	memcpy(t->comm, c, n);
	t->comm[n] = '\0';
}

static int process_comm(struct pk_session *s, const struct perf_event_header *h)
{
	const uint32_t *u = (const uint32_t *)(h + 1);
	struct thread *t;

	if (h->size < sizeof(*h) + 9)
		return PK_ERR_TRUNC;
	t = find_thread(s, u[1], true);
	if (!t)
		return -ENOMEM;
	t->pid = u[0];
	set_comm(t, (const char *)(u + 2), h->size - sizeof(*h) - 8);
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		struct proc *p = find_proc(s, u[0], false);

		if (p)
			p->nr = 0; /* a new image: the old mappings are gone */
	}
	return 0;
}

static int process_fork(struct pk_session *s, const struct perf_event_header *h)
{
	const uint32_t *u = (const uint32_t *)(h + 1);
	struct thread *t, *parent;
	struct proc *pp, *np;

	if (h->size < sizeof(*h) + 16)
		return PK_ERR_TRUNC;
	t = find_thread(s, u[2], true);
	if (!t)
		return -ENOMEM;
	t->pid = u[0];
	parent = find_thread(s, u[3], false);
	if (parent && parent != t)
		memcpy(t->comm, parent->comm, sizeof(t->comm));
	if (u[0] == u[1] && u[2] != u[0])
		return 0; /* a thread of an existing process */
	pp = find_proc(s, u[1], false);
	if (!pp || u[0] == u[1])
		return 0;
	np = find_proc(s, u[0], true);
	return np ? pk__proc_copy(np, pp) : -ENOMEM;
}

/* The DSO for a mapping's file name ("[kernel.kallsyms]_text" is the
 * kernel image). */
static struct dso *dso_for(struct pk_session *s, const char *name, bool kernel)
{
	if (kernel && !strncmp(name, "[kernel.kallsyms]", 17)) {
		if (!s->kdso)
			s->kdso = find_dso(s, "[kernel.kallsyms]", true);
		return s->kdso;
	}
	return find_dso(s, name, kernel);
}

static int add_map(struct pk_session *s, uint32_t pid, uint64_t start,
		   uint64_t len, uint64_t pgoff, const char *name, bool kernel)
{
	struct proc *p = find_proc(s, kernel ? (uint32_t)-1 : pid, true);
	struct map m = { start, start + len, pgoff, NULL };

	if (!p)
		return -ENOMEM;
	if (m.end < m.start)
		m.end = UINT64_MAX;
	m.dso = dso_for(s, name, kernel);
	return m.dso ? pk__proc_insert(p, &m) : -ENOMEM;
}

static bool kernel_mode(uint16_t misc)
{
	uint16_t m = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return m == PERF_RECORD_MISC_KERNEL || m == PERF_RECORD_MISC_GUEST_KERNEL;
}

static int process_mmap(struct pk_session *s, const struct perf_event_header *h,
			bool v2)
{
	const char *b = (const char *)h;
	size_t name_at = v2 ? 72 : 40;
	uint64_t start, len, pgoff;

	if (h->size <= name_at)
		return PK_ERR_TRUNC;
	if (v2 && (h->misc & PERF_RECORD_MISC_MMAP_DATA))
		return 0;
	memcpy(&start, b + 16, 8);
	memcpy(&len, b + 24, 8);
	memcpy(&pgoff, b + 32, 8);
	if (!memchr(b + name_at, '\0', h->size - name_at))
		return PK_ERR_TRUNC;
	return add_map(s, *(const uint32_t *)(b + 8), start, len, pgoff,
		       b + name_at, kernel_mode(h->misc));
}

int pk_session_process(struct pk_session *s, const struct perf_event_header *h)
{
	switch (h->type) {
	case PERF_RECORD_COMM:
		return process_comm(s, h);
	case PERF_RECORD_FORK:
		return process_fork(s, h);
	case PERF_RECORD_MMAP:
		return process_mmap(s, h, false);
	case PERF_RECORD_MMAP2:
		return process_mmap(s, h, true);
	default:
		return 0;
	}
}

static void resolve_kernel(struct pk_session *s, uint64_t addr,
			   struct pk_location *loc)
{
	const struct map *m = pk__proc_find(&s->kernel, addr);
	struct dso *d = m ? m->dso : s->kdso;
	const struct pk_sym *sym;

	loc->kernel = true;
	loc->dso = d ? d->name : "[kernel.kallsyms]";
	loc->dso_addr = addr;
	if (!s->kdso)
		s->kdso = find_dso(s, "[kernel.kallsyms]", true);
	if (!s->kdso)
		return;
	if (s->kallsyms[0])
		pk__symtab_load_kallsyms(&s->kdso->tab, s->kallsyms);
	sym = pk__symtab_find(&s->kdso->tab, addr);
	if (sym) {
		loc->sym = sym->name;
		loc->symoff = addr - sym->start;
	}
}

int pk_session_resolve(struct pk_session *s, uint32_t pid, uint64_t addr,
		       uint16_t cpumode, struct pk_location *loc)
{
	struct proc *p;
	const struct map *m;
	const struct pk_sym *sym;
	char path[4352];

	memset(loc, 0, sizeof(*loc));
	loc->dso = "[unknown]";
	loc->dso_addr = addr;
	if (cpumode == PERF_RECORD_MISC_KERNEL ||
	    cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    (cpumode == 0 && addr >= 0xffff800000000000ull)) {
		resolve_kernel(s, addr, loc);
		return 0;
	}
	p = find_proc(s, pid, false);
	m = p ? pk__proc_find(p, addr) : NULL;
	if (!m)
		return -ENOENT;
	loc->dso = m->dso->name;
	if (m->dso->name[0] != '/') {
		loc->dso_addr = addr - m->start + m->pgoff;
		return 0; /* [vdso], //anon, ...: no file to read */
	}
	snprintf(path, sizeof(path), "%s%s", s->root, m->dso->name);
	pk__symtab_load_elf(&m->dso->tab, path);
	loc->dso_addr = pk__symtab_off_to_vaddr(&m->dso->tab,
						addr - m->start + m->pgoff);
	sym = pk__symtab_find(&m->dso->tab, loc->dso_addr);
	if (sym) {
		loc->sym = sym->name;
		loc->symoff = loc->dso_addr - sym->start;
	}
	return 0;
}
