/* SPDX-License-Identifier: MIT */
/* The recorded machine: threads, per-process maps, DSOs with symbols. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "base/base.h"
#include "symbol/symtab.h"
#include <perfkit/session.h>
#include <perfkit/symbol.h>
#include <perfkit/bidcache.h>
#include "session/session.h"
#include "session/kcore.h"

#define NBUCKET 4096

struct pk_session {
	struct thread *threads[NBUCKET];
	struct proc *procs[NBUCKET];
	struct dso *dsos[NBUCKET];
	struct proc kernel;   /* pid -1: the kernel and its modules */
	struct dso *kdso;     /* [kernel.kallsyms] */
	char *kallsyms;
	bool kallsyms_set;    /* given by the caller (else a data dir's) */
	bool knosyms;         /* kernel symbols wanted, none for its build id */
	char *kref;           /* the kernel map's reference symbol ("_text"
				 of "[kernel.kallsyms]_text"), its address */
	uint64_t kref_addr;
	struct pk__kcore kc;  /* the kcore the kernel's code comes from */
	char *root;
	char *buildid_dir;    /* perf's build-id cache ("" none) */
	char *debug_dir;      /* /usr/lib/debug */
	struct bid *bids[NBUCKET];
	bool have_kmap;       /* a kernel MMAP was seen */
	uint64_t gen;         /* source of map generations (cache keys) */
	struct proc *last;    /* last process looked up */
	bool stale;           /* cache to be emptied before the next use */
	uint64_t bid_gen;     /* build ids added */
	/* kallsyms read ahead in a thread from the first kernel map on
	 * (the kernel takes long to write it) */
	pthread_t kthr;
	bool kthr_on;
	char *ktext;
	char ksrc[4352];      /* the file read ahead */
	struct rcache *cache; /* resolved addresses */
	struct dem *dems[NBUCKET]; /* demangled DWARF names (inline frames) */
	struct fname *fnames[NBUCKET]; /* mapping file names as recorded */
	uint64_t map_seq;     /* MMAP records applied */
	struct pk__run run;   /* pk_session_run()'s state */
	/* the default guest (perf_guest): its kallsyms (NULL: none), kernel
	 * map, DSO, reference symbol's address, kcore */
	char *gkallsyms;
	bool guest_code;	/* pk_session_opts's */
	struct proc gkernel;
	struct dso *gdso;
	uint64_t gref_addr;
	struct pk__kcore gkc;
};

/* A mapping's file name as recorded (interned). */
struct fname {
	struct fname *next;
	char name[];
};

/* A DWARF name (stable pointer into the debug data) demangled. */
struct dem {
	const char *raw;
	char *name;
	struct dem *next;
};

/* A build id the perf.data file gave for a DSO. */
struct bid {
	char *name;
	uint8_t id[PK_BUILD_ID_MAX];
	int len;
	struct bid *next;
};

#define RCACHE 16384
struct rcache {
	uint64_t addr, gen;
	uint32_t pid;
	uint16_t cpumode;
	int ret;
	struct pk_location loc;
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
	s = pk__zalloc(sizeof(*s));
	if (!s)
		return NULL;
	s->kernel.pid = (uint32_t)-1;
	s->kallsyms = pk__strdup(o && o->kallsyms ? o->kallsyms : "/proc/kallsyms");
	s->kallsyms_set = o && o->kallsyms;
	s->gkernel.pid = (uint32_t)-1;
	if (o && o->guest_kallsyms &&
	    !(s->gkallsyms = pk__strdup(o->guest_kallsyms))) {
		pk__free(s->kallsyms);
		pk__free(s);
		return NULL;
	}
	s->guest_code = o && o->guest_code;
	s->root = pk__strdup(o && o->root ? o->root : "");
	if (o && o->buildid_dir) {
		s->buildid_dir = pk__strdup(o->buildid_dir);
	} else {
		char d[4096];

		s->buildid_dir = pk__strdup(pk_bidcache_dir(d, sizeof(d)) ? "" : d);
	}
	s->debug_dir = pk__strdup(o && o->debug_dir ? o->debug_dir :
				 "/usr/lib/debug");
	s->cache = pk__calloc(RCACHE, sizeof(*s->cache));
	s->gen = 1;
	if (!s->kallsyms || !s->root || !s->buildid_dir || !s->debug_dir ||
	    !s->cache) {
		pk_session_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

/* The whole file in large reads (/proc/kallsyms is megabytes made on
 * the fly; 4 KiB reads cost twice the time). */
static char *read_big(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 8u << 20;
	struct stat st;
	char *b;

	/* a regular file reads in one go; /proc's say size 0 */
	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0 &&
	    (uint64_t)st.st_size < (1ull << 31))
		cap = (size_t)st.st_size + 1;
	b = fd >= 0 ? pk__malloc(cap + 1) : NULL;

	while (b) {
		ssize_t n = read(fd, b + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0) {
				pk__free(b);
				b = NULL;
			}
			break;
		}
		len += (size_t)n;
		if (len == cap) {
			char *nb = pk__realloc(b, 2 * cap + 1);

			if (!nb) {
				pk__free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	if (b)
		b[len] = '\0';
	if (fd >= 0)
		close(fd);
	return b;
}

static void *kallsyms_ahead(void *arg)
{
	struct pk_session *s = arg;

	s->ktext = read_big(s->ksrc);
	return NULL;
}

/* The read-ahead text of s->kallsyms, or NULL (the caller owns it). */
static char *kallsyms_join(struct pk_session *s)
{
	char *t;

	if (!s->kthr_on)
		return NULL;
	pthread_join(s->kthr, NULL);
	s->kthr_on = false;
	t = s->ktext;
	s->ktext = NULL;
	return t;
}

void pk_session_free(struct pk_session *s)
{
	if (!s)
		return;
	pk__free(kallsyms_join(s));
	for (int b = 0; b < NBUCKET; b++) {
		for (struct thread *t = s->threads[b], *n; t; t = n) {
			n = t->next;
			pk__free(t);
		}
		for (struct proc *p = s->procs[b], *n; p; p = n) {
			n = p->next;
			pk__free(p->maps);
			if (p->data)
				pk__free(p->data->maps);
			pk__free(p->data);
			pk__free(p);
		}
		for (struct dso *d = s->dsos[b], *n; d; d = n) {
			n = d->next;
			pk__symtab_fini(&d->tab);
			pk__srcline_close(d->srcline);
			pk__free(d->name);
			pk__free(d);
		}
	}
	for (int b = 0; b < NBUCKET; b++)
		for (struct bid *x = s->bids[b], *n; x; x = n) {
			n = x->next;
			pk__free(x->name);
			pk__free(x);
		}
	for (int b = 0; b < NBUCKET; b++)
		for (struct dem *x = s->dems[b], *n; x; x = n) {
			n = x->next;
			pk__free(x->name);
			pk__free(x);
		}
	for (int b = 0; b < NBUCKET; b++)
		for (struct fname *x = s->fnames[b], *n; x; x = n) {
			n = x->next;
			pk__free(x);
		}
	pk__run_fini(&s->run);
	pk__free(s->kernel.maps);
	pk__free(s->kallsyms);
	pk__free(s->kref);
	pk__kcore_fini(&s->kc);
	pk__free(s->gkernel.maps);
	pk__free(s->gkallsyms);
	pk__kcore_fini(&s->gkc);
	pk__free(s->root);
	pk__free(s->buildid_dir);
	pk__free(s->debug_dir);
	pk__free(s->cache);
	pk__free(s);
}

static struct thread *find_thread(struct pk_session *s, uint32_t tid, bool add)
{
	unsigned b = hash_u32(tid);
	struct thread *t;

	for (t = s->threads[b]; t; t = t->next)
		if (t->tid == tid)
			return t;
	if (!add || !(t = pk__zalloc(sizeof(*t))))
		return NULL;
	t->tid = tid;
	t->pid = tid;
	t->ppid = -1;
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
	if (s->last && s->last->pid == pid)
		return s->last;
	for (p = s->procs[b]; p; p = p->next)
		if (p->pid == pid)
			return s->last = p;
	if (!add || !(p = pk__zalloc(sizeof(*p))))
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
	d = pk__zalloc(sizeof(*d));
	if (!d || !(d->name = pk__strdup(name))) {
		pk__free(d);
		return NULL;
	}
	d->kernel = kernel;
	d->next = s->dsos[b];
	s->dsos[b] = d;
	return d;
}

/* Thread T of process PID shares the process's current maps. */
static void joined(struct pk_session *s, struct thread *t, uint32_t pid)
{
	struct proc *p = pid == (uint32_t)-1 ? NULL : find_proc(s, pid, true);

	t->pid = pid;
	t->incarnation = p ? p->incarnation : 0;
}

/* perf's machine__findnew_thread: a thread of another pid brings its
 * leader. */
static struct thread *findnew_thread(struct pk_session *s, uint32_t pid,
				     uint32_t tid)
{
	struct thread *t = find_thread(s, tid, false);

	if (t)
		return t;
	if (pid != tid && pid != (uint32_t)-1 && !find_thread(s, pid, true))
		return NULL;
	t = find_thread(s, tid, true);
	if (t)
		joined(s, t, pid);
	return t;
}

/* Thread TID (of PID) and its leader as perf's tasks see them: made by
 * a COMM, FORK or sample, not by MMAPs alone. */
static struct thread *task_thread(struct pk_session *s, uint32_t pid,
				  uint32_t tid)
{
	struct thread *t = findnew_thread(s, pid, tid), *l;

	if (!t)
		return NULL;
	t->task = true;
	if (pid != tid && pid != (uint32_t)-1 &&
	    (l = find_thread(s, pid, false)))
		l->task = true;
	return t;
}

int pk_session_add_thread(struct pk_session *s, int32_t pid, int32_t tid)
{
	if (tid == -1) /* a task's last switch after its exit: perf lists
			  no thread -1 */
		return 0;
	return task_thread(s, (uint32_t)pid, (uint32_t)tid) ? 0 : -ENOMEM;
}

static int by_table_order(const void *a, const void *b)
{
	const struct thread *x = *(const struct thread *const *)a;
	const struct thread *y = *(const struct thread *const *)b;

	/* perf's table: 256 trees by the tid's low byte */
	if (x->tid % 256 != y->tid % 256)
		return x->tid % 256 < y->tid % 256 ? -1 : 1;
	return (int32_t)x->tid < (int32_t)y->tid ? -1 :
	       (int32_t)x->tid > (int32_t)y->tid;
}

int pk_session_for_each_task(struct pk_session *s,
		int (*fn)(void *ctx, const struct pk_session_task *t),
		void *ctx)
{
	struct thread **v, *idle = task_thread(s, 0, 0);
	size_t n = 0, k = 0;
	int err = 0;

	if (!idle)
		return -ENOMEM;
	for (int b = 0; b < NBUCKET; b++)
		for (struct thread *t = s->threads[b]; t; t = t->next)
			n++;
	v = pk__malloc((n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int b = 0; b < NBUCKET; b++)
		for (struct thread *t = s->threads[b]; t; t = t->next)
			v[k++] = t;
	qsort(v, n, sizeof(*v), by_table_order);
	for (size_t i = 0; i < n && !err; i++) {
		char def[16];
		struct pk_session_task x = { (int32_t)v[i]->pid,
					     (int32_t)v[i]->tid, v[i]->ppid,
					     pk_session_comm(s, v[i]->tid),
					     !v[i]->task };

		if (!x.comm) { /* perf's name of a thread before its comm */
			snprintf(def, sizeof(def), ":%d", x.tid);
			x.comm = def;
		}
		err = fn(ctx, &x);
	}
	pk__free(v);
	return err;
}

static int by_seq(const void *a, const void *b)
{
	const struct map *x = *(const struct map *const *)a;
	const struct map *y = *(const struct map *const *)b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int call_map(const struct map *m,
		    int (*fn)(void *ctx, const struct pk_session_mapping *m),
		    void *ctx)
{
	/* perf names a mapping by its DSO (anonymous code: the JIT's
	 * /tmp/perf-PID.map) */
	struct pk_session_mapping x = { m->start, m->end, m->pgoff, m->ino,
					m->prot, m->flags,
					m->dso ? m->dso->name : m->fname };

	if (!strncmp(x.name, "[vdso", 5))
		x.pgoff = 0; /* perf's vDSO map starts at offset 0 */

	return fn(ctx, &x);
}

int pk_session_for_each_mapping(struct pk_session *s, int32_t tid,
		int (*fn)(void *ctx, const struct pk_session_mapping *m),
		void *ctx)
{
	struct thread *t = find_thread(s, (uint32_t)tid, false);
	struct proc *p = !t || t->pid == (uint32_t)-1 ? NULL :
			 find_proc(s, t->pid, false);
	const struct proc *d = p ? p->data : NULL;
	struct proc all = { 0 };
	const struct map **v;
	int n, k = 0, err = 0;

	/* a thread left with maps its process has since replaced: perf
	 * shows those (taken as empty here) */
	if (!p || t->incarnation != p->incarnation)
		return 0;
	/* perf keeps code and data in one tree: the newer of two that
	 * overlap cuts the older, so both lists again in record order */
	n = p->nr + (d ? d->nr : 0);
	v = pk__malloc(((size_t)n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < p->nr; i++)
		v[k++] = &p->maps[i];
	for (int i = 0; d && i < d->nr; i++)
		v[k++] = &d->maps[i];
	qsort(v, (size_t)n, sizeof(*v), by_seq);
	for (int i = 0; i < n && !err; i++)
		err = pk__proc_insert(&all, v[i]);
	for (int i = 0; i < all.nr && !err; i++)
		err = call_map(&all.maps[i], fn, ctx);
	pk__free(all.maps);
	pk__free(v);
	return err;
}

const char *pk_session_guest_comm(struct pk_session *s, uint32_t pid,
				  char *buf, size_t len)
{
	/* (perf names it when it copies the host process's maps) */
	if (!s->guest_code || !find_proc(s, pid, false))
		return NULL;
	snprintf(buf, len, "[guest/%u]", pid);
	return buf;
}

const char *pk_session_comm(struct pk_session *s, uint32_t tid)
{
	struct thread *t = find_thread(s, tid, false);

	if (t && t->comm[0])
		return t->comm;
	return tid == 0 ? "swapper" : NULL; /* perf's idle thread */
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
	t = task_thread(s, u[0], u[1]);
	if (!t)
		return -ENOMEM;
	t->pid = u[0];
	set_comm(t, (const char *)(u + 2), h->size - sizeof(*h) - 8);
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		struct proc *p = find_proc(s, u[0], false);

		/* perf keeps the old image's maps: the new ones replace
		 * them as they come */
		(void)p;
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
	parent = task_thread(s, u[1], u[3]);
	if (!t || !parent)
		return -ENOMEM;
	t->task = true;
	if (u[0] == u[2]) { /* perf makes the new leader new maps */
		struct proc *lp = find_proc(s, u[0], true);

		if (lp)
			lp->incarnation++;
	}
	joined(s, t, u[0]);
	t->ppid = (int32_t)u[3];
	if (parent != t) { /* perf starts the child afresh */
		const char *pc = parent && parent->comm[0] ? parent->comm :
				 u[3] == 0 ? "swapper" : "";

		set_comm(t, pc, sizeof(t->comm));
	}
	s->gen++;
	if (u[0] == u[1] && u[2] != u[0])
		return 0; /* a thread of an existing process */
	if (h->misc & PERF_RECORD_MISC_FORK_EXEC)
		return 0; /* perf's synthesized fork of a running process: it
			     has exec'd, its own mappings follow */
	pp = find_proc(s, u[1], false);
	if (!pp || u[0] == u[1])
		return 0;
	np = find_proc(s, u[0], true);
	if (!np)
		return -ENOMEM;
	np->gen = ++s->gen;
	if (pp->data && (np->data || (np->data = pk__zalloc(sizeof(*np->data)))) &&
	    pk__proc_copy(np->data, pp->data))
		return -ENOMEM;
	return pk__proc_copy(np, pp);
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

static struct bid *find_bid(struct pk_session *s, const char *name);
static const char *kallsyms_source(struct pk_session *s, char *path,
				   size_t len);

static bool is_anon(const char *n)
{
	return !strcmp(n, "//anon") || !strncmp(n, "/dev/zero", 9) ||
	       !strncmp(n, "/anon_hugepage", 14);
}

static bool is_no_dso(const char *n)
{
	return !strncmp(n, "[stack", 6) || !strncmp(n, "/SYSV", 5) ||
	       !strcmp(n, "[heap]");
}

/* NAME interned, "[kernel.kallsyms]..." as "[kernel.kallsyms]" (perf -D's
 * dso line); NULL when out of memory. */
static const char *intern_fname(struct pk_session *s, const char *name)
{
	size_t n = strncmp(name, "[kernel.kallsyms]", 17) ? strlen(name) : 17;
	unsigned h = 5381;
	struct fname *x;

	for (size_t i = 0; i < n; i++)
		h = h * 33 + (unsigned char)name[i];
	h %= NBUCKET;
	for (x = s->fnames[h]; x; x = x->next)
		if (!strncmp(x->name, name, n) && !x->name[n])
			return x->name;
	x = pk__malloc(sizeof(*x) + n + 1);
	if (!x)
		return NULL;
	memcpy(x->name, name, n);
	x->name[n] = '\0';
	x->next = s->fnames[h];
	s->fnames[h] = x;
	return x->name;
}

/* What an MMAP record says of a mapping beside its place. */
struct map_attrs {
	uint32_t pid, tid, prot, flags;
	uint64_t ino;
};

/* perf's dso__type of a file: 64 for ELFCLASS64, 32, x32 (ELFCLASS32
 * for x86-64), 0 when it cannot tell. */
static int elf_type(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC), mach;
	ssize_t n = fd >= 0 ? read(fd, h, sizeof(h)) : -1;

	if (fd >= 0)
		close(fd);
	if (n < (ssize_t)sizeof(h) || memcmp(h, "\177ELF", 4) ||
	    (h[4] != 1 && h[4] != 2) || (h[5] != 1 && h[5] != 2))
		return 0;
	if (h[4] == 2)
		return 64;
	mach = h[5] == 1 ? h[18] | h[19] << 8 : h[19] | h[18] << 8;
	return mach == 62 /* EM_X86_64 */ ? 'x' : 32;
}

/* perf's name of the vdso mapped into P: "[vdso32]" or "[vdsox32]" when
 * the first of its files (by address, code and data) that tells its type
 * is a 32-bit or x32 ELF file (machine__thread_dso_type), "[vdso]"
 * otherwise. */
static const char *vdso_name(const struct proc *p)
{
	const struct proc *d = p->data;
	int i = 0, j = 0, t = 0;

	while (!t && (i < p->nr || (d && j < d->nr))) {
		const struct map *m = !d || j >= d->nr ? &p->maps[i++] :
				      i >= p->nr ? &d->maps[j++] :
				      p->maps[i].start <= d->maps[j].start ?
				      &p->maps[i++] : &d->maps[j++];
		const char *n = m->dso ? m->dso->name : m->fname;

		if (n && n[0] == '/')
			t = elf_type(n);
	}
	return t == 32 ? "[vdso32]" : t == 'x' ? "[vdsox32]" : "[vdso]";
}

/* perf's reference symbol of the kernel map (map__set_kallsyms_ref_
 * reloc_sym): the name after "[kernel.kallsyms]" at the record's pgoff. */
static int set_kref(struct pk_session *s, const char *name, uint64_t addr)
{
	char *n = pk__strdup(name);

	if (!n)
		return -ENOMEM;
	pk__free(s->kref);
	s->kref = n;
	s->kref_addr = addr;
	return 0;
}

static int add_map(struct pk_session *s, const struct map_attrs *a,
		   uint64_t start, uint64_t len, uint64_t pgoff,
		   const char *name, bool kernel)
{
	uint32_t pid = a->pid;
	bool exec = (a->prot & PROT_EXEC) != 0;
	struct proc *p = find_proc(s, kernel ? (uint32_t)-1 : pid, true);
	struct map m = { start, start + len, pgoff, NULL, false,
			 intern_fname(s, name), ++s->map_seq, a->prot,
			 a->flags, a->ino };
	char jit[64];

	/* perf's thread of a user mapping */
	if (!kernel && !findnew_thread(s, a->pid, a->tid))
		return -ENOMEM;

	if (!p || !m.fname)
		return -ENOMEM;
	p->gen = ++s->gen;
	if (kernel && !s->have_kmap && s->kallsyms[0]) {
		const char *src = kallsyms_source(s, s->ksrc, sizeof(s->ksrc));

		if (src && src != s->ksrc)
			snprintf(s->ksrc, sizeof(s->ksrc), "%s", src);
		if (src)
			s->kthr_on = !pthread_create(&s->kthr, NULL,
						     kallsyms_ahead, s);
	}
	if (kernel)
		s->have_kmap = true;
	if (kernel && !strncmp(name, "[kernel.kallsyms]", 17) && pgoff &&
	    set_kref(s, name + 17, pgoff))
		return -ENOMEM;
	if (kernel && name[0] == '/' && !find_bid(s, name)) {
		/* a module: perf names it "[name]" ('-' as '_'), unless the
		 * file's build-id table named it first by its path */
		const char *b = strrchr(name, '/') + 1;
		size_t n = strcspn(b, ".");

		if (n > sizeof(jit) - 3)
			n = sizeof(jit) - 3;
		jit[0] = '[';
		for (size_t i = 0; i < n; i++)
			jit[i + 1] = b[i] == '-' ? '_' : b[i];
		jit[n + 1] = ']';
		jit[n + 2] = '\0';
		name = jit;
	}
	if (!kernel && (is_anon(name) || is_no_dso(name))) {
		/* perf: addresses as they are; executable ones belong to
		 * the JIT map file perf would read */
		m.identity = true;
		if (exec) {
			snprintf(jit, sizeof(jit), "/tmp/perf-%u.map", pid);
			name = jit;
		}
	}
	if (m.end < m.start)
		m.end = UINT64_MAX;
	if (!kernel && !strcmp(name, "[vdso]"))
		name = vdso_name(p);
	m.dso = dso_for(s, name, kernel);
	return m.dso ? pk__proc_insert(p, &m) : -ENOMEM;
}

static bool kernel_mode(uint16_t misc)
{
	uint16_t m = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return m == PERF_RECORD_MISC_KERNEL || m == PERF_RECORD_MISC_GUEST_KERNEL;
}

static bool guest_mode(uint16_t misc)
{
	uint16_t m = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return m == PERF_RECORD_MISC_GUEST_KERNEL ||
	       m == PERF_RECORD_MISC_GUEST_USER;
}

#define GUEST_KNAME "[guest.kernel.kallsyms]"

/* A guest's mapping (perf_guest): the default guest's kernel map (perf
 * kvm record's "[guest.kernel.kallsyms]_text", pgoff _text); guest
 * modules and user space are not modelled. */
static int add_guest_map(struct pk_session *s, uint64_t start, uint64_t len,
			 uint64_t pgoff, const char *name)
{
	struct map m = { start, start + len, pgoff, NULL, false, NULL,
			 ++s->map_seq, PROT_EXEC, 0, 0 };

	if (strncmp(name, GUEST_KNAME, sizeof(GUEST_KNAME) - 1))
		return 0;
	if (!s->gdso)
		s->gdso = find_dso(s, GUEST_KNAME, true);
	m.fname = intern_fname(s, GUEST_KNAME);
	if (!s->gdso || !m.fname)
		return -ENOMEM;
	if (m.end < m.start)
		m.end = UINT64_MAX;
	m.dso = s->gdso;
	s->gref_addr = pgoff;
	s->gkernel.gen = ++s->gen;
	return pk__proc_insert(&s->gkernel, &m);
}

/* Data mappings only say that memory was there (perf's unwinder reads
 * them as zeros rather than failing). */
static int add_data_map(struct pk_session *s, const struct map_attrs *a,
			uint64_t start, uint64_t len, uint64_t pgoff,
			const char *name)
{
	struct proc *p = find_proc(s, a->pid, true);
	struct map m = { start, start + len, pgoff, NULL, true,
			 intern_fname(s, name), ++s->map_seq, a->prot,
			 a->flags, a->ino };

	if (!findnew_thread(s, a->pid, a->tid))
		return -ENOMEM;

	if (!p || !m.fname || (!p->data && !(p->data = pk__zalloc(sizeof(*p->data)))))
		return -ENOMEM;
	if (m.end < m.start)
		m.end = UINT64_MAX;
	p->gen = ++s->gen;   /* addresses in it resolve to it now */
	return pk__proc_insert(p->data, &m);
}

static int process_mmap(struct pk_session *s, const struct perf_event_header *h,
			bool v2)
{
	const char *b = (const char *)h;
	size_t name_at = v2 ? 72 : 40;
	uint64_t start, len, pgoff;
	struct map_attrs a = { 0 };

	if (h->size <= name_at)
		return PK_ERR_TRUNC;
	memcpy(&start, b + 16, 8);
	memcpy(&len, b + 24, 8);
	memcpy(&pgoff, b + 32, 8);
	if (!memchr(b + name_at, '\0', h->size - name_at))
		return PK_ERR_TRUNC;
	memcpy(&a.pid, b + 8, 4);
	memcpy(&a.tid, b + 12, 4);
	if (v2) {
		memcpy(&a.prot, b + 64, 4);
		memcpy(&a.flags, b + 68, 4);
		if (!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
			memcpy(&a.ino, b + 48, 8);
	} else if (!(h->misc & PERF_RECORD_MISC_MMAP_DATA)) {
		a.prot = PROT_EXEC; /* perf's for MMAP: code, else nothing */
	}
	if (s->gkallsyms && guest_mode(h->misc))
		return add_guest_map(s, start, len, pgoff, b + name_at);
	if (v2 && (h->misc & PERF_RECORD_MISC_MMAP_DATA))
		return add_data_map(s, &a, start, len, pgoff, b + name_at);
	return add_map(s, &a, start, len, pgoff, b + name_at,
		       kernel_mode(h->misc));
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

static struct bid *find_bid(struct pk_session *s, const char *name)
{
	for (struct bid *x = s->bids[hash_str(name)]; x; x = x->next)
		if (!strcmp(x->name, name))
			return x;
	return NULL;
}

int pk_session_add_build_id(struct pk_session *s, const char *name,
			    const uint8_t *id, int len)
{
	struct bid *x;
	unsigned b;

	if (len <= 0 || len > PK_BUILD_ID_MAX)
		return -EINVAL;
	x = find_bid(s, name);
	if (!x) {
		x = pk__zalloc(sizeof(*x));
		if (!x || !(x->name = pk__strdup(name))) {
			pk__free(x);
			return -ENOMEM;
		}
		b = hash_str(name);
		x->next = s->bids[b];
		s->bids[b] = x;
	}
	memcpy(x->id, id, (size_t)len);
	x->len = len;
	s->stale = true; /* symbols may differ now */
	s->bid_gen++;
	return 0;
}

static bool file_exists(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* First line of a file (kallsyms' first symbol) into BUF. */
static bool first_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
	char *nl;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		nl[1] = '\0';
	return nl != NULL;
}

/*
 * Where kernel symbols come from, as perf decides: the running kernel's
 * kallsyms when the file's kernel build id is this kernel's (or unknown),
 * else the build-id cache's copy, else none (NULL). For this kernel the
 * copy perf record left in the cache is read instead when it holds the
 * same text (same first symbol address, no modules to differ): a regular
 * file reads many times faster than /proc/kallsyms is generated.
 */
static const char *kallsyms_source(struct pk_session *s, char *path,
				   size_t len)
{
	struct bid *x = find_bid(s, "[kernel.kallsyms]");
	uint8_t host[PK_BUILD_ID_MAX];
	char hex[2 * PK_BUILD_ID_MAX + 1], a[256], b[256], *mods = NULL;
	int n;

	if (!s->kallsyms[0])
		return NULL;
	if (strcmp(s->kallsyms, "/proc/kallsyms"))
		return s->kallsyms;
	if (!x)
		return s->kallsyms;
	pk_build_id_hex(x->id, x->len, hex);
	snprintf(path, len, "%s/[kernel.kallsyms]/%s/kallsyms", s->buildid_dir,
		 hex);
	n = pk_build_id_kernel(host);
	if (n == x->len && !memcmp(host, x->id, (size_t)n)) {
		bool same = s->buildid_dir[0] && file_exists(path) &&
			    first_line(path, a, sizeof(a)) &&
			    first_line(s->kallsyms, b, sizeof(b)) &&
			    !strcmp(a, b) &&
			    pk__read_file("/proc/modules", &mods) <= 0;

		pk__free(mods);
		return same ? path : s->kallsyms;
	}
	return s->buildid_dir[0] && file_exists(path) ? path : NULL;
}

static void load_kernel_syms(struct pk_session *s, struct dso *d)
{
	char path[4352];
	const char *src;
	char *text;

	if (d->tab.loaded || d->tab.failed)
		return;
	text = kallsyms_join(s);
	src = kallsyms_source(s, path, sizeof(path));
	if (!src) {
		pk__free(text);
		d->tab.failed = true;
		s->knosyms = s->kallsyms[0] && find_bid(s, "[kernel.kallsyms]");
		return;
	}
	/* the read-ahead text is good when it came from the same file */
	if (text && !strcmp(src, s->ksrc))
		pk__symtab_load_kallsyms_text(&d->tab, text);
	else {
		pk__free(text);
		pk__symtab_load_kallsyms(&d->tab, src);
	}
}

/* The file holding DSO D's bytes: the file itself when its build id is
 * the recorded one (or none was recorded), else perf's build-id cache
 * copy; NULL when neither. *N gets the file's build id length (0 when
 * the cache copy was taken, negative when unreadable), ID the id. BIN
 * and CACHE are 4352-byte buffers. */
static const char *dso_binary(struct pk_session *s, const struct dso *d,
			      char *bin, char *cache, uint8_t *id, int *n)
{
	struct bid *x = find_bid(s, d->name);
	char hex[2 * PK_BUILD_ID_MAX + 1];

	snprintf(bin, 4352, "%s%s", s->root, d->name);
	*n = pk_build_id_read(bin, id);
	if (!x)
		return *n > 0 || *n == -ENOENT ? bin : NULL;
	if (*n == x->len && !memcmp(id, x->id, (size_t)*n))
		return bin;
	*n = 0;
	pk_build_id_hex(x->id, x->len, hex);
	/* perf's cache: .build-id/xx/rest -> ../../PATH/ID/, the copy in it
	 * named "elf" ("vdso" for the vdso) */
	snprintf(cache, 4352, "%s/.build-id/%.2s/%s/%s", s->buildid_dir, hex,
		 hex + 2, strcmp(d->name, "[vdso]") ? "elf" : "vdso");
	return s->buildid_dir[0] && file_exists(cache) ? cache : NULL;
}

int pk__session_dso_file(struct pk_session *s, const struct dso *d,
			 char *buf, size_t len)
{
	char bin[4352], cache[4352];
	uint8_t id[PK_BUILD_ID_MAX];
	const char *p;
	int n;

	if (d->name[0] != '/' && strcmp(d->name, "[vdso]"))
		return -ENOENT;
	p = dso_binary(s, d, bin, cache, id, &n);
	if (!p)
		return -ENOENT;
	snprintf(buf, len, "%s", p);
	return 0;
}

int pk_session_dso_file(struct pk_session *s, const char *name, char *buf,
			size_t len)
{
	struct dso d = { .name = (char *)name };

	if (!s || !name || !buf)
		return -EINVAL;
	return pk__session_dso_file(s, &d, buf, len);
}

/* DSO D's file (dso_binary's: BIN or CACHE, NULL when none) and, when
 * there is one, its debug file by the recorded build id in DBG (LEN
 * bytes): *DEBUG is then DBG, else NULL. */
static const char *binary_and_debug(struct pk_session *s, const struct dso *d,
				    char *bin, char *cache, char *dbg,
				    size_t len, const char **debug)
{
	struct bid *x = find_bid(s, d->name);
	uint8_t id[PK_BUILD_ID_MAX];
	char hex[2 * PK_BUILD_ID_MAX + 1];
	int n;
	const char *p = dso_binary(s, d, bin, cache, id, &n);

	*debug = NULL;
	if (x)
		memcpy(id, x->id, (size_t)(n = x->len));
	if (n > 0 && p && s->debug_dir[0]) {
		pk_build_id_hex(id, n, hex);
		snprintf(dbg, len, "%s/.build-id/%.2s/%s.debug", s->debug_dir,
			 hex, hex + 2);
		if (file_exists(dbg))
			*debug = dbg;
	}
	return p;
}

int pk__session_dso_debug_file(struct pk_session *s, const struct dso *d,
			       char *buf, size_t len)
{
	char bin[4352], cache[4352];
	const char *debug;

	if (d->name[0] != '/')
		return -ENOENT;
	binary_and_debug(s, d, bin, cache, buf, len, &debug);
	return debug ? 0 : -ENOENT;
}

/* A user DSO's symbols: the file (when its build id is the recorded one)
 * or the build-id cache's copy, and the debug file by build id. */
static void load_user_syms(struct pk_session *s, struct dso *d)
{
	char bin[4352], cache[4352], dbg[4352];
	const char *paths[2];

	paths[0] = binary_and_debug(s, d, bin, cache, dbg, sizeof(dbg),
				    &paths[1]);
	if (!paths[0] && !paths[1]) {
		d->tab.failed = true;
		return;
	}
	pk__symtab_load_files(&d->tab, paths, 2);
}

/* The kallsyms file perf names for the kernel (the kcore and modules it
 * reads are beside it): the given one, /proc/kallsyms for this kernel
 * (perfkit may read a same copy from the cache), else the cache's copy;
 * NULL for none. */
static const char *kallsyms_perf_name(struct pk_session *s, char *buf,
				      size_t len)
{
	struct bid *x = find_bid(s, "[kernel.kallsyms]");
	uint8_t host[PK_BUILD_ID_MAX];
	int n;

	if (!s->kallsyms[0])
		return NULL;
	if (strcmp(s->kallsyms, "/proc/kallsyms") || !x)
		return s->kallsyms;
	n = pk_build_id_kernel(host);
	if (n == x->len && !memcmp(host, x->id, (size_t)n))
		return s->kallsyms;
	return kallsyms_source(s, buf, len);
}

/* perf's module maps (all but the kernel's) with its names of them. */
static struct pk__kmod *kernel_modules(struct pk_session *s, char (*names)[64],
				       int *n)
{
	struct pk__kmod *v = pk__calloc((size_t)s->kernel.nr + 1, sizeof(*v));

	*n = 0;
	for (int i = 0; v && i < s->kernel.nr; i++) {
		const struct map *m = &s->kernel.maps[i];
		const char *b = strrchr(m->dso->name, '/');

		if (m->dso == s->kdso)
			continue;
		if (!b) {
			snprintf(names[*n], 64, "%s", m->dso->name);
		} else {	/* a path: perf's short name "[base]" */
			size_t k = strcspn(++b, ".");

			snprintf(names[*n], 64, "[%.*s]", (int)(k > 60 ? 60 : k), b);
			for (char *c = names[*n]; *c; c++)
				*c = *c == '-' ? '_' : *c;
		}
		v[*n].name = names[*n];
		v[(*n)++].start = m->start;
	}
	return v;
}

/* The kernel's maps become the kcore's code segments, all of the kernel
 * DSO (perf drops the module maps too), the symbols split over them. */
static void kcore_remap(struct pk_session *s)
{
	const char *fname = intern_fname(s, "[kernel.kallsyms]");

	s->kernel.nr = 0;
	for (int i = 0; i < s->kc.nr; i++) {
		struct map m = { s->kc.segs[i].start, s->kc.segs[i].end,
				 s->kc.segs[i].pgoff, s->kdso, false, fname,
				 ++s->map_seq, PROT_READ | PROT_EXEC, 0, 0 };

		if (pk__proc_insert(&s->kernel, &m))
			break;
	}
	s->kernel.gen = ++s->gen;
	s->stale = true;
	pk__kcore_clip(&s->kdso->tab, s->kc.segs, s->kc.nr);
}

/* Whether the kernel's code and maps come from a kcore (perf's
 * dso__load_kcore after the kallsyms symbols): tried once. */
static bool use_kcore(struct pk_session *s)
{
	char buf[4352], (*names)[64];
	const char *ks;
	struct pk__kmod *mods;
	int n = 0;

	if (s->kc.tried)
		return s->kc.nr > 0;
	s->kc.tried = true;
	s->kc.err = -ENOENT;
	ks = kallsyms_perf_name(s, buf, sizeof(buf));
	if (!ks)
		return false;
	names = pk__calloc((size_t)s->kernel.nr + 1, sizeof(*names));
	mods = names ? kernel_modules(s, names, &n) : NULL;
	s->kc.err = mods ? pk__kcore_load(&s->kc, ks, &s->kdso->tab.ks,
					  s->kref, s->kref_addr, mods, n) :
			   -ENOMEM;
	pk__free(mods);
	pk__free(names);
	if (s->kc.err) {
		pk__kcore_fini(&s->kc);
		return false;
	}
	kcore_remap(s);
	return true;
}

void pk__session_data_dir(struct pk_session *s, const char *dir)
{
	struct stat st;
	size_t n;
	char *k;

	if (!dir || s->kallsyms_set)
		return;
	n = strlen(dir) + sizeof("/kcore_dir/kallsyms");
	k = pk__malloc(n);
	if (!k)
		return;
	snprintf(k, n, "%s/kcore_dir/kallsyms", dir);
	if (stat(k, &st)) {
		pk__free(k);
		return;
	}
	pk__free(s->kallsyms);
	s->kallsyms = k;
}

static void load_kernel(struct pk_session *s);

int pk_session_for_each_kernel_code(struct pk_session *s,
		int (*fn)(void *ctx, const struct pk_session_code *c),
		void *ctx)
{
	char buf[4352], kc[4352];
	const char *ks;
	struct stat st;

	if (!s || !fn)
		return -EINVAL;
	/* (no symbols loaded when there is no kcore to read) */
	ks = s->kdso ? kallsyms_perf_name(s, buf, sizeof(buf)) : NULL;
	if (!s->kc.tried && (!ks || !pk__kcore_sibling(ks, "kcore", kc,
						       sizeof(kc)) ||
			     stat(kc, &st)))
		return -ENOENT;
	if (!s->kdso->tab.loaded && !s->kdso->tab.failed)
		load_kernel(s);
	for (int i = 0; i < s->kc.nr; i++) {
		struct pk_session_code c = { s->kc.segs[i].start,
					     s->kc.segs[i].end,
					     s->kc.segs[i].pgoff, s->kc.path };
		int r = fn(ctx, &c);

		if (r)
			return r;
	}
	return s->kc.nr ? 0 : -ENOENT;
}

int pk_kcore_check(const char *kallsyms, char *file, size_t len)
{
	char path[4352];
	struct pk__kseg *segs;
	int nr, err;

	if (!kallsyms || !file || !len)
		return -EINVAL;
	if (!pk__kcore_sibling(kallsyms, "modules", path, sizeof(path)))
		return -EINVAL;
	snprintf(file, len, "%s", path);
	err = pk__kcore_modules(path, NULL, 0);
	if (err)
		return err;
	pk__kcore_sibling(kallsyms, "kcore", path, sizeof(path));
	snprintf(file, len, "%s", path);
	err = pk__kcore_segments(path, &segs, &nr);
	if (!err)
		pk__free(segs);
	return err;
}

/* Kernel symbols are read at the first kernel address; the kernel map
 * then grows to its last symbol (perf reads the running kernel through
 * /proc/kcore, whose text covers .init.text past the recorded map). */
/* How far kallsyms has the kernel from where the recording had it: the
 * reference symbol's address there less the kernel map's pgoff (perf's
 * kallsyms__delta, 0 without one); -ENOENT when kallsyms lacks it. */
static int kallsyms_delta(struct pk_session *s, uint64_t *delta)
{
	uint64_t at;

	*delta = 0;
	if (!s->kref)
		return 0;
	if (!pk__kcore_func(&s->kdso->tab.ks, s->kref, &at))
		return -ENOENT;
	*delta = at - s->kref_addr;
	return 0;
}

static void load_kernel(struct pk_session *s)
{
	struct map *km = NULL;
	const struct pk_symtab *t;
	uint64_t delta;

	load_kernel_syms(s, s->kdso);
	t = &s->kdso->tab;
	if (!t->loaded || !t->nr)
		return;
	if (kallsyms_delta(s, &delta)) {
		/* perf's kallsyms__delta fails the load: no symbols */
		s->kdso->tab.nr = 0;
		return;
	}
	if (use_kcore(s))
		return;
	if (delta)
		pk__kcore_relocate(&s->kdso->tab, delta);
	for (int i = 0; i < s->kernel.nr; i++)
		if (s->kernel.maps[i].dso == s->kdso) {
			km = &s->kernel.maps[i];
			if (km->end < t->syms[t->nr - 1].end &&
			    (i + 1 == s->kernel.nr ||
			     s->kernel.maps[i + 1].start >= t->syms[t->nr - 1].end))
				km->end = t->syms[t->nr - 1].end;
		}
}

/* The default guest's kernel symbols (perf's dso__load_guest_kernel_sym):
 * its kallsyms, the map grown to the last symbol, the kcore beside it
 * when its _text is the map's (then the symbols cut to its segments). */
static void load_guest(struct pk_session *s)
{
	struct pk_symtab *t = &s->gdso->tab;

	if (pk__symtab_load_kallsyms(t, s->gkallsyms) < 0 || !t->nr) {
		t->failed = true;
		return;
	}
	t->loaded = true;
	if (!pk__kcore_load(&s->gkc, s->gkallsyms, &t->ks, "_text",
			    s->gref_addr, NULL, 0))
		pk__kcore_clip(t, s->gkc.segs, s->gkc.nr);
	else
		pk__kcore_fini(&s->gkc);
	s->gkc.tried = true;
	for (int i = 0; i < s->gkernel.nr; i++)
		if (s->gkernel.maps[i].end < t->syms[t->nr - 1].end &&
		    i + 1 == s->gkernel.nr)
			s->gkernel.maps[i].end = t->syms[t->nr - 1].end;
}

/* ADDR in kernel maps K (a machine's kernel and modules). */
static const struct pk_sym *resolve_in_kernel(const struct proc *k,
					      uint64_t addr,
					      struct pk_location *loc)
{
	const struct map *m = pk__proc_find(k, addr);
	const struct pk_sym *sym;

	loc->kernel = true;
	loc->dso_addr = addr;
	if (!m)
		return NULL;
	loc->dso = m->dso->name;
	sym = pk__symtab_find(&m->dso->tab, addr);
	if (sym) {
		loc->sym = sym->name;
		loc->symoff = addr - sym->start;
		loc->object = sym->object;
	}
	return sym;
}

static const struct pk_sym *resolve_guest(struct pk_session *s,
					  uint64_t addr,
					  struct pk_location *loc)
{
	if (s->gdso && !s->gdso->tab.loaded && !s->gdso->tab.failed)
		load_guest(s);
	return resolve_in_kernel(&s->gkernel, addr, loc);
}

int pk_session_for_each_guest_code(struct pk_session *s,
		int (*fn)(void *ctx, const struct pk_session_code *c),
		void *ctx)
{
	if (!s || !fn)
		return -EINVAL;
	if (!s->gdso)
		return -ENOENT;
	if (!s->gdso->tab.loaded && !s->gdso->tab.failed)
		load_guest(s);
	for (int i = 0; i < s->gkc.nr; i++) {
		struct pk_session_code c = { s->gkc.segs[i].start,
					     s->gkc.segs[i].end,
					     s->gkc.segs[i].pgoff, s->gkc.path };
		int r = fn(ctx, &c);

		if (r)
			return r;
	}
	return s->gkc.nr ? 0 : -ENOENT;
}

static const struct pk_sym *resolve_kernel(struct pk_session *s,
					   uint64_t addr,
					   struct pk_location *loc)
{
	if (s->kdso && !s->kdso->tab.loaded && !s->kdso->tab.failed)
		load_kernel(s);
	return resolve_in_kernel(&s->kernel, addr, loc);
}

/* Where CPUMODE's addresses are: with guest_code a guest's user space is
 * its process's (perf's guest code thread has a copy of its maps). */
static uint16_t host_mode(const struct pk_session *s, uint16_t cpumode)
{
	return s->guest_code && cpumode == PERF_RECORD_MISC_GUEST_USER ?
	       PERF_RECORD_MISC_USER : cpumode;
}

/* pk_session_resolve() uncached; the symbol found in *SYMP (may be NULL). */
/* An address in no code mapping but in a data one (recorded with the
 * data mappings: perf's maps hold both): perf names that mapping as its
 * DSO (//anon, [heap], a data file) with no symbol. 0, or -ENOENT. */
static int data_map_at(struct proc *p, uint64_t addr, struct pk_location *loc)
{
	const struct map *m = p && p->data ? pk__proc_find(p->data, addr) : NULL;

	if (!m || !m->fname)
		return -ENOENT;
	loc->dso = m->fname;
	if (!is_anon(m->fname) && !is_no_dso(m->fname))
		loc->dso_addr = addr - m->start + m->pgoff;
	return 0;
}

static int resolve_sym(struct pk_session *s, uint32_t pid, uint64_t addr,
		       uint16_t cpumode, struct pk_location *loc,
		       const struct pk_sym **symp)
{
	struct proc *p;
	const struct map *m;
	const struct pk_sym *sym;

	memset(loc, 0, sizeof(*loc));
	*symp = NULL;
	loc->dso = "[unknown]";
	loc->dso_addr = addr;
	cpumode = host_mode(s, cpumode);
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		*symp = resolve_kernel(s, addr, loc);
		return loc->dso[0] == '[' && !strcmp(loc->dso, "[unknown]") ?
		       -ENOENT : 0;
	}
	if (cpumode == PERF_RECORD_MISC_GUEST_KERNEL && s->gkallsyms) {
		*symp = resolve_guest(s, addr, loc);
		return strcmp(loc->dso, "[unknown]") ? 0 : -ENOENT;
	}
	if (cpumode != PERF_RECORD_MISC_USER)
		return -ENOENT; /* guest and hypervisor: perf finds nothing */
	p = find_proc(s, pid, false);
	m = p ? pk__proc_find(p, addr) : NULL;
	if (!m)
		return data_map_at(p, addr, loc);
	loc->dso = m->dso->name;
	if (m->identity)
		return 0;
	loc->dso_addr = addr - m->start + m->pgoff;
	if (m->dso->name[0] != '/' && strcmp(m->dso->name, "[vdso]"))
		return 0;
	if (!m->dso->tab.loaded && !m->dso->tab.failed)
		load_user_syms(s, m->dso);
	sym = pk__symtab_find(&m->dso->tab, loc->dso_addr);
	if (sym) {
		loc->sym = sym->name;
		loc->symoff = loc->dso_addr - sym->start;
		loc->object = sym->object;
	}
	*symp = sym;
	return 0;
}

static int resolve(struct pk_session *s, uint32_t pid, uint64_t addr,
		   uint16_t cpumode, struct pk_location *loc)
{
	const struct pk_sym *sym;

	return resolve_sym(s, pid, addr, cpumode, loc, &sym);
}

bool pk__session_has_guest(const struct pk_session *s)
{
	return s->gkallsyms || s->guest_code;
}

bool pk__session_guest_code(const struct pk_session *s)
{
	return s->guest_code;
}

const struct map *pk__session_kernel_map(struct pk_session *s, uint64_t addr)
{
	return pk__proc_find(&s->kernel, addr);
}

uint64_t pk__session_sym_size(struct pk_session *s, uint32_t pid,
			      uint64_t addr, uint16_t cpumode)
{
	struct pk_location loc;
	const struct pk_sym *sym;

	resolve_sym(s, pid, addr, cpumode, &loc, &sym);
	return sym ? sym->end - sym->start : 0;
}

/* perf's length of a kallsyms name: the rest of its line, a module's
 * "\t[name]" included (its split cuts the name, not the length). */
static size_t kallsyms_namelen(const struct pk_ksyms *k, const struct pk_sym *sym)
{
	long i = pk__ksyms_first(k, sym->start);

	for (; i >= 0 && (size_t)i < k->n && k->v[i].addr == sym->start; i++) {
		const struct pk_ksym *e = &k->v[i];

		if (e->name != sym->name || !e->mod)
			continue;
		return e->mod + strlen(e->name + e->mod) +
		       (e->name[e->mod - 1] == '[');
	}
	return strlen(sym->name);
}

size_t pk__session_sym_namelen(struct pk_session *s, uint32_t pid,
			       uint64_t addr, uint16_t cpumode)
{
	struct pk_location loc;
	const struct pk_sym *sym;

	resolve_sym(s, pid, addr, cpumode, &loc, &sym);
	if (!sym)
		return 0;
	if (cpumode == PERF_RECORD_MISC_KERNEL && s->kdso && s->kdso->tab.ks.n)
		return kallsyms_namelen(&s->kdso->tab.ks, sym);
	return strlen(sym->name);
}

uint64_t pk_session_generation(struct pk_session *s, uint32_t pid,
			       uint16_t cpumode)
{
	uint64_t bump = s->bid_gen << 48;

	cpumode = host_mode(s, cpumode);
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		return (s->kernel.gen + 1) ^ bump;
	if (cpumode == PERF_RECORD_MISC_USER) {
		struct proc *p = find_proc(s, pid, false);

		return (p ? p->gen + 1 : 0) ^ bump;
	}
	return 0;
}

int pk_session_resolve(struct pk_session *s, uint32_t pid, uint64_t addr,
		       uint16_t cpumode, struct pk_location *loc)
{
	uint64_t h = (addr ^ (addr >> 17) ^ ((uint64_t)pid << 7) ^ cpumode) *
		     0x9e3779b97f4a7c15ull;
	struct rcache *c = &s->cache[h >> 50];
	uint64_t gen;

	if (s->stale) {
		memset(s->cache, 0, RCACHE * sizeof(*s->cache));
		s->stale = false;
	}
	cpumode = host_mode(s, cpumode);
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		gen = s->kernel.gen;
	} else if (cpumode == PERF_RECORD_MISC_USER) {
		struct proc *p = find_proc(s, pid, false);

		gen = p ? p->gen : 0;
	} else {
		return resolve(s, pid, addr, cpumode, loc);
	}
	if (c->gen == gen + 1 && c->addr == addr && c->pid == pid &&
	    c->cpumode == cpumode) {
		*loc = c->loc;
		return c->ret;
	}
	c->ret = resolve(s, pid, addr, cpumode, loc);
	c->gen = gen + 1;
	c->addr = addr;
	c->pid = pid;
	c->cpumode = cpumode;
	c->loc = *loc;
	return c->ret;
}

/* The DSO's DWARF handle (opened on first use), or NULL. */
static void *dso_dwarf(struct pk_session *s, struct dso *d)
{
	char path[4352];

	if (!d->tab.loaded && !d->tab.failed)
		load_user_syms(s, d);
	if (!d->srcline && !d->srcline_failed) {
		snprintf(path, sizeof(path), "%s%s", s->root, d->name);
		d->srcline = pk__srcline_open(path);
		d->srcline_failed = !d->srcline;
	}
	return d->srcline;
}

void *pk__session_dso_dwarf(struct pk_session *s, struct dso *d)
{
	return dso_dwarf(s, d);
}

/* perf demangles the names addr2line gives (C++ linkage names). */
static const char *demangled(struct pk_session *s, const char *raw)
{
	unsigned b = (unsigned)(((uintptr_t)raw >> 3) * 2654435761u) % NBUCKET;
	struct dem *x;

	if (raw[0] != '_' || raw[1] != 'Z')
		return raw;
	for (x = s->dems[b]; x; x = x->next)
		if (x->raw == raw)
			return x->name ? x->name : raw;
	x = pk__zalloc(sizeof(*x));
	if (!x)
		return raw;
	x->raw = raw;
	x->name = pk__demangle(raw);
	x->next = s->dems[b];
	s->dems[b] = x;
	return x->name ? x->name : raw;
}

int pk_session_inlines(struct pk_session *s, uint32_t pid, uint64_t addr,
		       struct pk_inline_frame *frames, int max)
{
	struct proc *p = find_proc(s, pid, false);
	const struct map *m = p ? pk__proc_find(p, addr) : NULL;
	struct pk__inl in[64];
	void *h;
	int n;

	if (!m || m->identity || m->dso->name[0] != '/' || max < 1)
		return 0;
	h = dso_dwarf(s, m->dso);
	n = h ? pk__inlines(h, &m->dso->tab, addr - m->start + m->pgoff, in,
			    PK_MIN(max, 64)) : 0;
	for (int i = 0; i < n; i++) {
		frames[i].name = demangled(s, in[i].name);
		frames[i].file = in[i].file;
		frames[i].line = in[i].line;
	}
	return n;
}

int pk_session_srcline(struct pk_session *s, uint32_t pid, uint64_t addr,
		       uint16_t cpumode, char *buf, size_t len)
{
	struct pk_location loc;
	const struct map *m;
	struct proc *p;
	char path[4352];

	cpumode = host_mode(s, cpumode);
	if (cpumode == PERF_RECORD_MISC_KERNEL) {
		resolve(s, pid, addr, cpumode, &loc);
		snprintf(buf, len, "%s[%llx]", loc.dso, (unsigned long long)addr);
		return 0;
	}
	snprintf(buf, len, "??:0");
	p = cpumode == PERF_RECORD_MISC_USER ? find_proc(s, pid, false) : NULL;
	m = p ? pk__proc_find(p, addr) : NULL;
	if (!m || m->identity || m->dso->name[0] != '/')
		return -ENOENT;
	if (!m->dso->tab.loaded && !m->dso->tab.failed)
		load_user_syms(s, m->dso);
	if (!m->dso->srcline && !m->dso->srcline_failed) {
		snprintf(path, sizeof(path), "%s%s", s->root, m->dso->name);
		m->dso->srcline = pk__srcline_open(path);
		m->dso->srcline_failed = !m->dso->srcline;
	}
	if (!pk__srcline(m->dso->srcline, &m->dso->tab,
			 addr - m->start + m->pgoff, buf, len))
		return 0;
	/* no line: the DSO's short name and the offset, as perf */
	snprintf(buf, len, "%s[%llx]", strrchr(m->dso->name, '/') + 1,
		 (unsigned long long)(addr - m->start + m->pgoff));
	return 0;
}

const struct map *pk__session_map(struct pk_session *s, uint32_t pid,
				  uint64_t addr)
{
	struct proc *p = find_proc(s, pid, false);

	return p ? pk__proc_find(p, addr) : NULL;
}

bool pk__session_mapped(struct pk_session *s, uint32_t pid, uint64_t addr)
{
	struct proc *p = find_proc(s, pid, false);

	return p && (pk__proc_find(p, addr) ||
		     (p->data && pk__proc_find(p->data, addr)));
}

/* The newest of two mappings holding an address (either may be NULL). */
static const struct map *newer(const struct map *a, const struct map *b)
{
	return !a || (b && b->seq > a->seq) ? b : a;
}

const char *pk_session_dso_name(struct pk_session *s, uint32_t pid,
				uint16_t misc, uint64_t ip)
{
	unsigned mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const struct proc *p;
	const struct map *m;

	if (mode == PERF_RECORD_MISC_KERNEL ||
	    mode == PERF_RECORD_MISC_GUEST_KERNEL)
		p = &s->kernel;
	else if (mode == PERF_RECORD_MISC_USER ||
		 mode == PERF_RECORD_MISC_GUEST_USER)
		p = find_proc(s, pid, false);
	else
		return NULL;
	m = p ? newer(pk__proc_find(p, ip),
		      p->data ? pk__proc_find(p->data, ip) : NULL) : NULL;
	return m ? m->fname : "<not found>";
}

struct pk__run *pk__session_run_state(struct pk_session *s)
{
	return &s->run;
}

int pk_session_kernel_unresolved(struct pk_session *s, char *buf, size_t len)
{
	struct bid *x;

	if (!s || !s->knosyms || !(x = find_bid(s, "[kernel.kallsyms]")))
		return 0;
	if (buf && len > 2 * (size_t)x->len)
		pk_build_id_hex(x->id, x->len, buf);
	else if (buf && len)
		buf[0] = 0;
	return 1;
}
