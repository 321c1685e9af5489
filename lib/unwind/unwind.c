/* SPDX-License-Identifier: MIT */
/*
 * Post-mortem unwinding of sampled user stacks: per-file CFI (.eh_frame
 * through libdw), a cache of the rules by pc, and perf's (libunwind's)
 * stepping loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "base/hash.h"
#include "session/session.h"
#include "unwind/unwind_int.h"
#include <perfkit/unwind.h>

#define NFRAME 16384

struct useg {
	uint64_t off, vaddr, filesz;
};

/* One mapped file: its image (for reads of code), CFI and segments. */
struct ufile {
	const struct dso *dso;
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi;
	const uint8_t *raw;
	size_t rawsize;
	struct useg *segs;
	int nsegs;
	bool ok;            /* has .eh_frame_hdr and CFI (perf needs both) */
};

struct fent {
	struct ufile *f;
	uint64_t vaddr;
	int state;          /* 0 empty, 1 rules, 2 no CFI here */
	struct uw_frame fr;
};

struct pk_unwind {
	struct pk_session *s;
	struct pk__hash files;  /* struct dso * -> struct ufile * */
	struct fent *frames;
	struct pk_unwind_stats st;
};

struct ctx {
	struct pk_unwind *u;
	uint32_t pid;
	struct uw_stack stack;
};

struct pk_unwind *pk_unwind_new(struct pk_session *s)
{
	struct pk_unwind *u;

	if (!s) {
		errno = EINVAL;
		return NULL;
	}
	u = pk__zalloc(sizeof(*u));
	if (!u)
		return NULL;
	u->s = s;
	u->frames = pk__calloc(NFRAME, sizeof(*u->frames));
	if (!u->frames) {
		pk__free(u);
		errno = ENOMEM;
		return NULL;
	}
	elf_version(EV_CURRENT);
	return u;
}

static void file_close(struct ufile *f)
{
	if (!f)         /* an entry whose allocation failed */
		return;
	if (f->cfi)
		dwarf_cfi_end(f->cfi);
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	pk__free(f->segs);
	pk__free(f);
}

void pk_unwind_free(struct pk_unwind *u)
{
	struct pk__hent *e;

	if (!u)
		return;
	for (int i = 0; u->frames && i < NFRAME; i++)
		pk__uw_frame_fini(&u->frames[i].fr);
	pk__free(u->frames);
	for (size_t i = 0; (e = pk__hash_next(&u->files, &i));)
		file_close((struct ufile *)(uintptr_t)e->val);
	pk__hash_fini(&u->files);
	pk__free(u);
}

void pk_unwind_stats(const struct pk_unwind *u, struct pk_unwind_stats *st)
{
	*st = u->st;
}

/* ---- files ---- */

static void load_segs(struct ufile *f, bool *has_hdr)
{
	size_t n = 0;
	GElf_Phdr ph;

	*has_hdr = false;
	if (elf_getphdrnum(f->elf, &n) || !n || n > 4096)
		return;
	f->segs = pk__calloc(n, sizeof(*f->segs));
	if (!f->segs)
		return;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph))
			continue;
		if (ph.p_type == PT_GNU_EH_FRAME)
			*has_hdr = true;
		if (ph.p_type != PT_LOAD)
			continue;
		f->segs[f->nsegs].off = ph.p_offset;
		f->segs[f->nsegs].vaddr = ph.p_vaddr;
		f->segs[f->nsegs].filesz = ph.p_filesz;
		f->nsegs++;
	}
}

static void file_open(struct pk_unwind *u, struct ufile *f)
{
	char path[4352];
	bool has_hdr;

	f->fd = -1;
	if (pk__session_dso_file(u->s, f->dso, path, sizeof(path)))
		return;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF)
		return;
	f->raw = (const uint8_t *)elf_rawfile(f->elf, &f->rawsize);
	load_segs(f, &has_hdr);
	if (!has_hdr || !f->nsegs)
		return;
	f->cfi = dwarf_getcfi_elf(f->elf);
	f->ok = f->cfi != NULL;
}

static struct ufile *file_get(struct pk_unwind *u, const struct dso *d)
{
	bool added;
	uint64_t *v = pk__hash_put(&u->files, (uint64_t)(uintptr_t)d, &added);
	struct ufile *f;

	if (!v)
		return NULL;
	if (*v)
		return (struct ufile *)(uintptr_t)*v;
	f = pk__zalloc(sizeof(*f));
	if (!f)
		return NULL;
	f->dso = d;
	file_open(u, f);
	*v = (uint64_t)(uintptr_t)f;
	return f;
}

/* A file offset to the ELF address (PT_LOAD); false outside them. */
static bool off_to_vaddr(const struct ufile *f, uint64_t off, uint64_t *va)
{
	for (int i = 0; i < f->nsegs; i++) {
		const struct useg *g = &f->segs[i];

		if (off >= g->off && off - g->off < g->filesz) {
			*va = off - g->off + g->vaddr;
			return true;
		}
	}
	return false;
}

/* The rules at VADDR of F, or NULL where its CFI has none. */
static const struct uw_frame *frame_get(struct pk_unwind *u,
					struct ufile *f, uint64_t vaddr)
{
	uint64_t h = (vaddr ^ (uint64_t)(uintptr_t)f) * 0x9e3779b97f4a7c15ull;
	struct fent *e = &u->frames[h >> 50];
	Dwarf_Frame *df = NULL;

	if (e->state && e->f == f && e->vaddr == vaddr) {
		u->st.cache_hits++;
		return e->state == 1 ? &e->fr : NULL;
	}
	u->st.cache_misses++;
	pk__uw_frame_fini(&e->fr);
	e->f = f;
	e->vaddr = vaddr;
	e->state = 2;
	if (dwarf_cfi_addrframe(f->cfi, vaddr, &df) == 0 && df) {
		if (pk__uw_frame_from_dw(&e->fr, df) == 0)
			e->state = 1;
		else
			pk__uw_frame_fini(&e->fr);
		free(df); /* libdw's allocation */
	}
	return e->state == 1 ? &e->fr : NULL;
}

/* ---- memory of the sampled process ---- */

static int read_mem(void *arg, uint64_t addr, uint64_t *val)
{
	struct ctx *x = arg;
	const struct map *m;
	struct ufile *f;
	uint64_t off;

	if (pk__uw_stack_read(&x->stack, addr, val))
		return 1;
	/* perf: anything else comes from the file mapped there; a mapping
	 * without readable bytes reads as 0 */
	*val = 0;
	m = pk__session_map(x->u->s, x->pid, addr);
	if (!m)
		return pk__session_mapped(x->u->s, x->pid, addr) ? 0 : -1;
	if (m->identity)
		return 0;
	f = file_get(x->u, m->dso);
	if (!f || !f->raw)
		return 0;
	off = addr - m->start + m->pgoff;
	if (off > f->rawsize || f->rawsize - off < 8)
		return 0;
	memcpy(val, f->raw + off, 8);
	return 1;
}

/* ---- stepping ---- */

static int step(struct ctx *x, struct uw_cursor *c)
{
	uint64_t pc = c->use_prev ? c->ip - 1 : c->ip, vaddr;
	const struct map *m = pk__session_map(x->u->s, x->pid, pc);
	const struct uw_frame *fr;
	struct ufile *f;
	int ret;

	if (!m || m->identity)
		return -EINVAL; /* perf's find_proc_info: no map */
	f = file_get(x->u, m->dso);
	if (!f || !f->ok)
		return -EINVAL;
	if (!off_to_vaddr(f, pc - m->start + m->pgoff, &vaddr))
		fr = NULL;
	else
		fr = frame_get(x->u, f, vaddr);
	if (fr) {
		ret = pk__uw_apply(c, fr, read_mem, x);
		if (ret > 0)
			x->u->st.frames_cfi++;
		return ret;
	}
	ret = pk__uw_fallback(c, read_mem, x);
	if (ret > 0)
		x->u->st.frames_fp++;
	return ret;
}

int pk_unwind_sample(struct pk_unwind *u, uint32_t pid,
		     const struct pk_sample *sm, uint64_t *ips, int max)
{
	struct ctx x = { .u = u, .pid = pid };
	struct uw_cursor c = { .use_prev = false };
	int n = 0;

	if (!(sm->sample_type & PERF_SAMPLE_REGS_USER) ||
	    !(sm->sample_type & PERF_SAMPLE_STACK_USER) ||
	    !sm->regs_user.abi || !sm->regs_user.regs ||
	    !sm->stack_user.dyn_size || !sm->stack_user.data ||
	    sm->stack_user.dyn_size > sm->stack_user.size)
		return 0;
	if (max < 1)
		return -EINVAL;
	u->st.samples++;
	pk__uw_regs_from_perf(&c.regs, sm->regs_user.abi, sm->regs_user.mask,
			      sm->regs_user.regs, sm->regs_user.nr);
	if (!uw_reg_ok(&c.regs, UW_RIP))
		return -ENOENT;
	ips[n++] = c.regs.v[UW_RIP];
	if (max == 1)
		return n;
	/* libunwind's cursor needs ip and sp */
	if (!uw_reg_ok(&c.regs, UW_RSP))
		return -ENOENT;
	c.ip = c.regs.v[UW_RIP];
	c.cfa = c.regs.v[UW_RSP];
	x.stack.start = c.cfa;
	x.stack.data = sm->stack_user.data;
	x.stack.size = sm->stack_user.dyn_size;
	while (n < max && step(&x, &c) > 0) {
		/* the call instruction, except after a step through a signal
		 * frame's CFI (libunwind's unw_is_signal_frame: the caller
		 * is the interrupted ip itself) */
		ips[n++] = c.use_prev ? c.ip - 1 : c.ip;
	}
	return n;
}
