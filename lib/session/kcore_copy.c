/* SPDX-License-Identifier: MIT */
/* perf record --kcore's copy of the kernel's code: the writer beside
 * kcore.c's reader, laid out as perf 6.1's kcore_copy lays it out (learnt
 * from its source, checked byte for byte against perf record --kcore on
 * tests/live/kcorefake.py's stand-in for /proc/kcore). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/base.h"
#include "session/kcore.h"
#include "symbol/ksyms.h"
#include <perfkit/session.h>

#define PAGE 4096ull
#define DOWN(x) ((x) & ~(PAGE - 1))
#define UP(x) DOWN((x) + PAGE - 1)

/* One segment of the copy: LEN bytes at ADDR, from the kcore's OFFSET,
 * at REL in the copy's data; REMAPS: the kernel's, whose bytes it is. */
struct kpiece {
	uint64_t addr, len, offset, rel;
	int remaps;		/* index + 1, 0: none */
};

struct kplan {
	uint64_t stext, etext, first, last;	/* the kernel's functions */
	uint64_t first_mod, first_msym, last_msym;
	uint64_t *tramps;	/* entry trampolines */
	int nr_tramps;
	struct kpiece *p;
	int nr;
};

static int add_tramp(struct kplan *k, uint64_t a)
{
	uint64_t *t = pk__realloc(k->tramps, (size_t)(k->nr_tramps + 1) *
				  sizeof(*t));

	if (!t)
		return -ENOMEM;
	t[k->nr_tramps++] = a;
	k->tramps = t;
	return 0;
}

/* perf's walk of kallsyms: the text's ends, the functions' and the
 * module functions' extremes, the entry trampolines. */
static int plan_kallsyms(struct kplan *k, const struct pk_ksyms *ks)
{
	for (size_t i = 0; i < ks->n; i++) {
		const struct pk_ksym *s = &ks->v[i];

		if (!pk__ksym_is_text(s->type))
			continue;
		if (s->mod) {
			if (!k->first_msym || s->addr < k->first_msym)
				k->first_msym = s->addr;
			if (s->addr > k->last_msym)
				k->last_msym = s->addr;
			continue;
		}
		if (!k->first || s->addr < k->first)
			k->first = s->addr;
		if (s->addr > k->last)
			k->last = s->addr;
		if (!strcmp(s->name, "_stext"))
			k->stext = s->addr;
		else if (!strcmp(s->name, "_etext"))
			k->etext = s->addr;
		else if (!strcmp(s->name, "__entry_SYSCALL_64_trampoline") &&
			 add_tramp(k, s->addr))
			return -ENOMEM;
	}
	return 0;
}

/* The lowest module address of a modules file's text T. */
static void plan_modules(struct kplan *k, char *t)
{
	char *line = t, *nl, name[520];
	uint64_t at;

	for (; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (pk__kcore_module_line(line, name, sizeof(name), &at) &&
		    (!k->first_mod || at < k->first_mod))
			k->first_mod = at;
	}
}

/* The ranges to copy, pages rounded as perf rounds them. */
static int plan_ranges(struct kplan *k)
{
	k->stext = DOWN(k->stext ? k->stext : k->first);
	if (k->etext)
		k->etext = UP(k->etext);
	else if (k->last)
		k->etext = UP(k->last) + PAGE;
	if (k->first_msym && (!k->first_mod || k->first_msym < k->first_mod))
		k->first_mod = k->first_msym;
	k->first_mod = DOWN(k->first_mod);
	if (k->last_msym)
		k->last_msym = UP(k->last_msym) + PAGE;
	if (!k->stext || !k->etext || (k->first_mod && !k->last_msym))
		return PK_ERR_FORMAT;
	return 0;
}

/* [S, E) where it starts inside the segment SEG: a piece of the copy */
static int cut(struct kplan *k, const struct pk__kseg *seg, uint64_t s,
	       uint64_t e)
{
	struct kpiece *p;

	if (s < seg->start || s >= seg->end)
		return 0;
	p = pk__realloc(k->p, (size_t)(k->nr + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	k->p = p;
	k->p[k->nr++] = (struct kpiece){
		.addr = s, .offset = s - seg->start + seg->pgoff,
		.len = (e < seg->end ? e : seg->end) - s };
	return 0;
}

static int plan_segment(struct kplan *k, const struct pk__kseg *seg)
{
	int err = cut(k, seg, k->stext, k->etext);

	if (!err)
		err = cut(k, seg, k->first_mod, k->last_msym);
	for (int i = 0; !err && i < k->nr_tramps; i++)
		err = cut(k, seg, DOWN(k->tramps[i]),
			  DOWN(k->tramps[i]) + (seg->end - seg->start));
	return err;
}

/* Pieces whose bytes lie in the kernel's piece are not copied again:
 * they point into it; the others follow one another. */
static void plan_layout(struct kplan *k)
{
	const struct kpiece *kern = NULL;
	uint64_t rel = 0;

	for (int i = 0; i < k->nr && !kern; i++)
		if (k->p[i].addr <= k->stext &&
		    k->p[i].addr + k->p[i].len - 1 >= k->stext)
			kern = &k->p[i];
	for (int i = 0; kern && i < k->nr; i++)
		if (&k->p[i] != kern && k->p[i].offset >= kern->offset &&
		    k->p[i].offset + k->p[i].len <= kern->offset + kern->len)
			k->p[i].remaps = (int)(kern - k->p) + 1;
	for (int i = 0; i < k->nr; i++)
		if (!k->p[i].remaps) {
			k->p[i].rel = rel;
			rel += k->p[i].len;
		}
	for (int i = 0; i < k->nr; i++)
		if (k->p[i].remaps)
			k->p[i].rel = k->p[i].offset - kern->offset + kern->rel;
}

static void put(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

/* The copy's ELF header and program headers (from the kcore's EH), its
 * data starting at the page after them: *DATA. */
static int write_headers(int fd, const unsigned char *eh, bool is64,
			 const struct kplan *k, uint64_t *data)
{
	size_t ehsz = is64 ? 64 : 52, phsz = is64 ? 56 : 32;
	size_t n = ehsz + phsz * (size_t)k->nr;
	unsigned char *b = pk__calloc(1, n);
	int err;

	if (!b)
		return -ENOMEM;
	memcpy(b, eh, 24);		/* ident, type, machine, version */
	put(b + (is64 ? 32 : 28), ehsz, is64 ? 8 : 4);	/* e_phoff */
	memcpy(b + (is64 ? 48 : 36), eh + (is64 ? 48 : 36), 4); /* e_flags */
	put(b + (is64 ? 52 : 40), ehsz, 2);
	put(b + (is64 ? 54 : 42), phsz, 2);
	put(b + (is64 ? 56 : 44), (uint64_t)k->nr, 2);
	*data = UP(n);
	for (int i = 0; i < k->nr; i++) {
		unsigned char *p = b + ehsz + phsz * (size_t)i;
		const struct kpiece *q = &k->p[i];

		put(p, 1, 4);				/* PT_LOAD */
		put(p + (is64 ? 4 : 24), 7, 4);		/* RWX */
		put(p + (is64 ? 8 : 4), q->rel + *data, is64 ? 8 : 4);
		put(p + (is64 ? 16 : 8), q->addr, is64 ? 8 : 4);
		put(p + (is64 ? 32 : 16), q->len, is64 ? 8 : 4);
		put(p + (is64 ? 40 : 20), q->len, is64 ? 8 : 4);
		put(p + (is64 ? 48 : 28), PAGE, is64 ? 8 : 4);
	}
	err = pk__pwrite_all(fd, b, n, 0);
	pk__free(b);
	return err;
}

/* LEN bytes of IN at FROM to OUT at TO; a short IN ends it (perf). */
static int copy_range(int in, uint64_t from, int out, uint64_t to,
		      uint64_t len)
{
	char buf[65536];

	while (len) {
		size_t n = len < sizeof(buf) ? (size_t)len : sizeof(buf);
		ssize_t r = pread(in, buf, n, (off_t)from);
		int err;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			break;
		if ((err = pk__pwrite_all(out, buf, (size_t)r, (off_t)to)))
			return err;
		from += (uint64_t)r;
		to += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

/* The plan over the kcore on FD (its headers read) from FROM's texts. */
static int make_plan(struct kplan *k, int fd, const char *kallsyms,
		     char *modules, unsigned char *eh, bool *is64)
{
	struct pk_ksyms ks = { 0 };
	unsigned char *ph = NULL;
	unsigned num = 0, entsz = 0;
	int err = pk__kcore_phdrs(fd, &ph, &num, &entsz, is64);

	if (!err && pread(fd, eh, 64, 0) < 52)
		err = PK_ERR_FORMAT;
	if (!err)
		err = pk__ksyms_parse(&ks, kallsyms, strlen(kallsyms));
	if (!err)
		err = plan_kallsyms(k, &ks);
	pk__ksyms_fini(&ks);
	if (!err) {
		plan_modules(k, modules);
		err = plan_ranges(k);
	}
	for (unsigned i = 0; !err && i < num; i++) {
		struct pk__kseg seg;

		if (pk__kcore_phdr_seg(ph + (size_t)i * entsz, *is64, &seg))
			err = plan_segment(k, &seg);
	}
	pk__free(ph);
	if (!err)
		plan_layout(k);
	return err;
}

/* TO, a new file (0400), from the kcore FROM by plan K. */
static int write_copy(const char *from, const char *to, const char *kallsyms,
		      char *modules)
{
	struct kplan k = { 0 };
	unsigned char eh[64];
	uint64_t data = 0;
	bool is64 = true;
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, err;

	if (in < 0)
		return -errno;
	err = make_plan(&k, in, kallsyms, modules, eh, &is64);
	if (!err && (out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				0400)) < 0)
		err = -errno;
	if (!err)
		err = write_headers(out, eh, is64, &k, &data);
	for (int i = 0; !err && i < k.nr; i++)
		if (!k.p[i].remaps)
			err = copy_range(in, k.p[i].offset, out,
					 k.p[i].rel + data, k.p[i].len);
	if (out >= 0 && close(out) && !err)
		err = -errno;
	if (err && out >= 0)
		unlink(to);
	close(in);
	pk__free(k.p);
	pk__free(k.tramps);
	return err;
}

/* DIR/NAME's bytes (*TEXT, pk__malloc'ed, *LEN of them) into a new
 * TO/NAME (0400). */
static int copy_whole(const char *dir, const char *to, const char *name,
		      char **text, long *len)
{
	char a[4352], b[4352];

	snprintf(a, sizeof(a), "%s/%s", dir, name);
	snprintf(b, sizeof(b), "%s/%s", to, name);
	*len = pk__read_file(a, text);
	if (*len < 0)
		return (int)*len;
	return pk__write_new_file(b, *text, (size_t)*len, 0400);
}

static void unlink_in(const char *dir, const char *name)
{
	char p[4352];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	unlink(p);
}

int pk_kcore_copy(const char *from_dir, const char *to_dir)
{
	char *ks = NULL, *mods = NULL, *again = NULL, a[4352], b[4352];
	int err, made = 0;
	long n, ks_len, mods_len;

	if (!from_dir || !to_dir)
		return -EINVAL;
	err = copy_whole(from_dir, to_dir, "kallsyms", &ks, &ks_len);
	if (!err && ++made)
		err = copy_whole(from_dir, to_dir, "modules", &mods, &mods_len);
	if (!err && ++made) {
		snprintf(a, sizeof(a), "%s/kcore", from_dir);
		snprintf(b, sizeof(b), "%s/kcore", to_dir);
		err = write_copy(a, b, ks, mods);
	}
	/* a module loaded or gone meanwhile: kallsyms has changed */
	if (!err && ++made) {
		snprintf(a, sizeof(a), "%s/kallsyms", from_dir);
		n = pk__read_file(a, &again);
		err = n < 0 ? (int)n : n != ks_len ||
		      memcmp(again, ks, (size_t)n) ? -EAGAIN : 0;
	}
	if (err && made > 2)
		unlink_in(to_dir, "kcore");
	if (err && made > 1)
		unlink_in(to_dir, "modules");
	if (err && made > 0)
		unlink_in(to_dir, "kallsyms");
	pk__free(ks);
	pk__free(mods);
	pk__free(again);
	return err;
}
