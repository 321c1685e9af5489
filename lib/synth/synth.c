/* SPDX-License-Identifier: MIT */
/* Side-band records built from procfs. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include "base/base.h"
#include <perfkit/synth.h>

#define REC_MAX 8192 /* a header plus PATH_MAX and the id trailer */

struct synth {
	pk_synth_fn fn;
	void *arg;
	size_t id_hdr_size;
	bool data;
	const char *proc;
	union {
		struct perf_event_header h;
		unsigned char bytes[REC_MAX];
	} rec;
};

static int synth_init(struct synth *s, pk_synth_fn fn, void *arg,
		      const struct pk_synth_opts *o)
{
	if (!PK_OPTS_VALID(o, pk_synth_opts))
		return -EINVAL;
	s->fn = fn;
	s->arg = arg;
	s->id_hdr_size = o ? o->id_hdr_size : 0;
	s->data = o && o->data_mmaps;
	s->proc = o && o->proc ? o->proc : "/proc";
	if (s->id_hdr_size > 256)
		return -EINVAL;
	return 0;
}

/* Pads the record built in s->rec to 8 bytes, adds the id trailer, emits. */
static int emit(struct synth *s, uint32_t type, uint16_t misc, size_t len)
{
	size_t size = (len + 7) & ~(size_t)7;

	memset(s->rec.bytes + len, 0, size - len + s->id_hdr_size);
	size += s->id_hdr_size;
	s->rec.h.type = type;
	s->rec.h.misc = misc;
	s->rec.h.size = (uint16_t)size;
	return s->fn(&s->rec.h, s->arg);
}

struct comm_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[];
};

struct fork_rec {
	struct perf_event_header h;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct mmap2_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

struct mmap_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	char filename[];
};

static int emit_comm(struct synth *s, pid_t pid, pid_t tid, const char *comm)
{
	struct comm_rec *r = (struct comm_rec *)s->rec.bytes;
	size_t n = strnlen(comm, 15);

	r->pid = (uint32_t)pid;
	r->tid = (uint32_t)tid;
	memcpy(r->comm, comm, n);
	r->comm[n] = '\0';
	return emit(s, PERF_RECORD_COMM, 0, sizeof(*r) + n + 1);
}

static int emit_fork(struct synth *s, pid_t pid, pid_t ppid, pid_t tid,
		     pid_t ptid)
{
	struct fork_rec *r = (struct fork_rec *)s->rec.bytes;

	r->pid = (uint32_t)pid;
	r->ppid = (uint32_t)ppid;
	r->tid = (uint32_t)tid;
	r->ptid = (uint32_t)ptid;
	r->time = 0;
	/* perf marks its synthesized forks FORK_EXEC (its own flag) */
	return emit(s, PERF_RECORD_FORK, PERF_RECORD_MISC_FORK_EXEC,
		    sizeof(*r));
}

/* Name and parent from /proc/PID/task/TID/status. 0 or -errno. */
static int read_status(struct synth *s, pid_t pid, pid_t tid, char *comm,
		       size_t clen, pid_t *ppid)
{
	char path[256], *buf, *p;
	long n;

	snprintf(path, sizeof(path), "%s/%d/task/%d/status", s->proc, pid, tid);
	n = pk__read_file(path, &buf);
	if (n < 0)
		return (int)n;
	comm[0] = '\0';
	*ppid = 0;
	p = strstr(buf, "Name:");
	if (p) {
		p += 5;
		p += strspn(p, " \t");
		snprintf(comm, clen, "%.*s", (int)strcspn(p, "\n"), p);
	}
	p = strstr(buf, "\nPPid:");
	if (p)
		*ppid = (pid_t)atoi(p + 6);
	pk__free(buf);
	return 0;
}

static int parse_perms(const char *perm, uint32_t *prot, uint32_t *flags)
{
	if (strlen(perm) < 4)
		return -EINVAL;
	*prot = (perm[0] == 'r' ? PROT_READ : 0) |
		(perm[1] == 'w' ? PROT_WRITE : 0) |
		(perm[2] == 'x' ? PROT_EXEC : 0);
	*flags = perm[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	return 0;
}

/* One line of /proc/PID/maps as MMAP2. Returns 0 when skipped too. */
static int emit_map_line(struct synth *s, pid_t pid, const char *line)
{
	struct mmap2_rec *r = (struct mmap2_rec *)s->rec.bytes;
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	char perm[8];
	int pos = 0;
	const char *name;
	size_t nlen;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
		   perm, &off, &maj, &min, &ino, &pos) < 7 || pos <= 0)
		return 0;
	if (parse_perms(perm, &r->prot, &r->flags))
		return 0;
	if (!(r->prot & PROT_EXEC) && !s->data)
		return 0;
	name = line + pos;
	nlen = strcspn(name, "\n");
	if (!nlen) {
		name = "//anon";
		nlen = 6;
	}
	if (nlen > REC_MAX - sizeof(*r) - 300)
		nlen = REC_MAX - sizeof(*r) - 300;
	r->pid = r->tid = (uint32_t)pid;
	r->start = start;
	r->len = end - start;
	r->pgoff = off;
	r->maj = maj;
	r->min = min;
	r->ino = ino;
	r->ino_generation = 0;
	memcpy(r->filename, name, nlen);
	r->filename[nlen] = '\0';
	return emit(s, PERF_RECORD_MMAP2,
		    PERF_RECORD_MISC_USER |
		    (r->prot & PROT_EXEC ? 0 : PERF_RECORD_MISC_MMAP_DATA),
		    sizeof(*r) + nlen + 1);
}

static int emit_maps(struct synth *s, pid_t pid)
{
	char path[256], *buf, *line, *next;
	long n;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%d/maps", s->proc, pid);
	n = pk__read_file(path, &buf);
	if (n < 0)
		return n == -ENOENT ? -ESRCH : 0; /* kernel threads: none */
	for (line = buf; !err && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		err = emit_map_line(s, pid, line);
	}
	pk__free(buf);
	return err;
}

static int synth_one(struct synth *s, pid_t pid)
{
	char path[256], comm[64];
	struct dirent *d;
	DIR *dir;
	pid_t ppid = 0;
	int err = 0, seen = 0;

	snprintf(path, sizeof(path), "%s/%d/task", s->proc, pid);
	dir = opendir(path);
	if (!dir)
		return -ESRCH;
	while (!err && (d = readdir(dir))) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid <= 0 || read_status(s, pid, tid, comm, sizeof(comm),
					    &ppid))
			continue;
		seen++;
		/* FORK first: a reader that gets FORK for a thread it knows
		 * replaces it with a copy of the parent (perf does), so a
		 * COMM before it would be lost. */
		err = emit_fork(s, pid, tid == pid ? ppid : pid, tid,
				tid == pid ? ppid : pid);
		if (!err)
			err = emit_comm(s, pid, tid, comm);
	}
	closedir(dir);
	if (!err && !seen)
		return -ESRCH;
	return err ? err : emit_maps(s, pid);
}

int pk_synth_process(pid_t pid, pk_synth_fn fn, void *arg,
		     const struct pk_synth_opts *opts)
{
	struct synth *s = pk__malloc(sizeof(*s));
	int err;

	if (!s)
		return -ENOMEM;
	err = synth_init(s, fn, arg, opts);
	if (!err)
		err = synth_one(s, pid);
	pk__free(s);
	return err;
}

/* The process TID belongs to, from its status file; -ESRCH when gone. */
static int tgid_of(struct synth *s, pid_t tid, pid_t *tgid)
{
	char path[256], *buf, *p;
	long n;

	snprintf(path, sizeof(path), "%s/%d/status", s->proc, tid);
	n = pk__read_file(path, &buf);
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	p = strstr(buf, "\nTgid:");
	*tgid = p ? (pid_t)atoi(p + 6) : 0;
	pk__free(buf);
	return *tgid > 0 ? 0 : -ESRCH;
}

static int synth_thread(struct synth *s, pid_t tid, bool maps)
{
	char comm[64];
	pid_t tgid, ppid;
	int err = tgid_of(s, tid, &tgid);

	if (!err)
		err = read_status(s, tgid, tid, comm, sizeof(comm), &ppid);
	if (err)
		return err == -ENOENT ? -ESRCH : err;
	err = emit_comm(s, tgid, tid, comm);
	if (!err && maps && tid == tgid)
		err = emit_maps(s, tgid);
	return err;
}

/* perf's order for a thread list: each thread, then its process's leader
 * when the list lacks it (again for each such thread, as perf does). */
static int synth_threads(struct synth *s, int nr, const pid_t *tids,
			 bool maps)
{
	int err = 0;

	for (int i = 0; !err && i < nr; i++) {
		pid_t tgid = 0;
		bool leader_in = false;

		err = synth_thread(s, tids[i], maps);
		if (!err)
			err = tgid_of(s, tids[i], &tgid);
		for (int j = 0; !err && j < nr; j++)
			leader_in |= tids[j] == tgid;
		if (!err && !leader_in)
			err = synth_thread(s, tgid, maps);
		if (err == -ESRCH)
			err = 0; /* gone meanwhile */
	}
	return err;
}

int pk_synth_threads(int nr, const pid_t *tids, pk_synth_fn fn, void *arg,
		     const struct pk_synth_opts *opts)
{
	struct synth *s;
	int err;

	if (nr < 0 || (nr && !tids))
		return -EINVAL;
	s = pk__malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = synth_init(s, fn, arg, opts);
	if (!err)
		err = synth_threads(s, nr, tids, !(opts && opts->no_maps));
	pk__free(s);
	return err;
}

int pk_synth_all_processes(pk_synth_fn fn, void *arg,
			   const struct pk_synth_opts *opts)
{
	struct synth *s = pk__malloc(sizeof(*s));
	struct dirent *d;
	DIR *dir;
	int err;

	if (!s)
		return -ENOMEM;
	err = synth_init(s, fn, arg, opts);
	dir = err ? NULL : opendir(s->proc);
	if (!err && !dir)
		err = -errno;
	while (!err && (d = readdir(dir))) {
		pid_t pid = (pid_t)atoi(d->d_name);

		if (pid > 0) {
			err = synth_one(s, pid);
			if (err == -ESRCH)
				err = 0; /* exited meanwhile */
		}
	}
	if (dir)
		closedir(dir);
	pk__free(s);
	return err;
}
