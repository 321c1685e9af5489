/* SPDX-License-Identifier: MIT */
/*
 * perf inject -b, --buildid-all, --known-build-ids (perf 6.1's rules):
 * - -b: the first sample whose ip falls in a DSO brings a BUILD_ID record
 *   for it just before the sample (its misc the sample's cpumode, pid -1,
 *   the name padded to 64 bytes, no size flag): the build id the input's
 *   table gave it, else its file's (the kernel's from the table only);
 *   none for anonymous memory, [stack], [heap], /SYSV, nor for a DSO
 *   whose build id cannot be read ([vdso] in a pipe).
 * - --buildid-all: the same for the first MMAP/MMAP2 of each file instead
 *   (an MMAP2 that carries a build id is dropped, its DSO taken as done).
 * - --known-build-ids "HEX PATH,...": a listed DSO takes that build id
 *   and, as in perf 6.1, brings no record (the table shows it).
 * - A file's HEADER_BUILD_ID is made again, of the DSOs hit (and [vdso])
 *   whose build id is known, in the order perf meets them: the input's
 *   table, the kernel, then the others.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <perfkit/symbol.h>
#include "cli.h"
#include "inject.h"

struct inj_dso {
	char *name;
	uint8_t id[PK_BUILD_ID_MAX];
	int len;            /* 0: not known */
	bool hit, tried, kernel;
};

struct inj_known {
	char *name;
	uint8_t id[PK_BUILD_ID_MAX];
	int len;
};

static int find_dso(const struct inj_copy *c, const char *name)
{
	for (int i = c->nr_dsos - 1; i >= 0; i--)
		if (!strcmp(c->dsos[i].name, name))
			return i;
	return -1;
}

/* The DSO named NAME, new at the end when unknown; -ENOMEM. */
static int dso(struct inj_copy *c, const char *name)
{
	int i = find_dso(c, name);
	struct inj_dso *d;

	if (i >= 0)
		return i;
	if (c->nr_dsos == c->cap_dsos) {
		int cap = c->cap_dsos ? 2 * c->cap_dsos : 32;

		d = realloc(c->dsos, (size_t)cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		c->dsos = d;
		c->cap_dsos = cap;
	}
	d = &c->dsos[c->nr_dsos];
	memset(d, 0, sizeof(*d));
	d->name = strdup(name);
	if (!d->name)
		return -ENOMEM;
	return c->nr_dsos++;
}

static int hexval(int ch)
{
	return isdigit(ch) ? ch - '0' : tolower(ch) - 'a' + 10;
}

/* One "HEX PATH" entry; perf drops malformed ones silently. */
static int known_one(struct inj_copy *c, char *s)
{
	char *sp, *hex = s + strspn(s, " ");
	size_t n;
	struct inj_known *k;

	sp = strchr(hex, ' ');
	if (!sp)
		return 0;
	n = (size_t)(sp - hex);
	if (n % 2 || n > 2 * PK_BUILD_ID_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)hex[i]))
			return 0;
	k = realloc(c->known, (size_t)(c->nr_known + 1) * sizeof(*k));
	if (!k)
		return -ENOMEM;
	c->known = k;
	k = &c->known[c->nr_known];
	k->name = strdup(sp + strspn(sp, " "));
	if (!k->name)
		return -ENOMEM;
	k->len = (int)n / 2;
	for (int i = 0; i < k->len; i++)
		k->id[i] = (uint8_t)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
	c->nr_known++;
	return 0;
}

static int parse_known(struct inj_copy *c)
{
	char *s, *tok, *save = NULL;
	int err = 0;

	if (!c->known_build_ids || !(c->build_ids && !c->buildid_all))
		return 0;
	s = strdup(c->known_build_ids);
	if (!s)
		return -ENOMEM;
	for (tok = strtok_r(s, ",", &save); tok && !err;
	     tok = strtok_r(NULL, ",", &save))
		err = known_one(c, tok);
	free(s);
	return err;
}

int inj_bid_init(struct inj_copy *c)
{
	unsigned n = c->pipe_in ? 0 : pk_perfdata_nr_build_ids(c->pd);
	int i, err = parse_known(c);

	for (unsigned k = 0; k < n && !err; k++) {
		struct pk_build_id b;

		if (pk_perfdata_build_id(c->pd, k, &b) || !b.filename)
			continue;
		if ((i = dso(c, b.filename)) < 0)
			return i;
		memcpy(c->dsos[i].id, b.id, b.id_size);
		c->dsos[i].len = b.id_size;
		c->dsos[i].kernel = (b.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
				    PERF_RECORD_MISC_KERNEL;
	}
	/* the kernel's build id only from the table: perf reads the
	 * running kernel's only for kernel maps it makes itself */
	if (err || (i = dso(c, "[kernel.kallsyms]")) < 0)
		return err ? err : i;
	c->dsos[i].kernel = true;
	c->dsos[i].tried = true;
	return 0;
}

static bool no_dso(const char *name)
{
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14) ||
	       !strncmp(name, "[stack", 6) || !strncmp(name, "/SYSV", 5) ||
	       !strcmp(name, "[heap]");
}

/* perf's BUILD_ID record for D: 36 bytes, the name in 64-byte steps. */
static int emit(struct inj_copy *c, const struct inj_dso *d, uint16_t misc)
{
	uint8_t buf[8 + 4 + 24 + 4096 + 64];
	struct perf_event_header *h = (void *)buf;
	size_t n = strlen(d->name) + 1, len = (n + 63) / 64 * 64;
	int32_t pid = -1;

	if (36 + len > 0xffff || 36 + len > sizeof(buf))
		return 0;
	memset(buf, 0, 36 + len);
	h->type = PK_RECORD_BUILD_ID;
	h->misc = misc;
	h->size = (uint16_t)(36 + len);
	memcpy(buf + 8, &pid, 4);
	memcpy(buf + 12, d->id, (size_t)d->len);
	memcpy(buf + 36, d->name, n - 1);
	return inj_out(c, h, NULL, 0);
}

static const struct inj_known *known(const struct inj_copy *c,
				     const char *name)
{
	for (int i = 0; i < c->nr_known; i++)
		if (!strcmp(c->known[i].name, name))
			return &c->known[i];
	return NULL;
}

/* A DSO met for the first time: its record, when perf writes one. */
static int inject_dso(struct inj_copy *c, int i, uint16_t misc, bool huge)
{
	struct inj_dso *d = &c->dsos[i];
	const struct inj_known *k;

	if (no_dso(d->name) || huge)
		return 0;
	if ((k = known(c, d->name))) {
		memcpy(d->id, k->id, (size_t)k->len);
		d->len = k->len;
		return 0;
	}
	if (!d->len && !d->tried) {
		int n = pk_build_id_read(d->name, d->id);

		d->tried = true;
		d->len = n > 0 ? n : 0;
	}
	return d->len ? emit(c, d, misc) : 0;
}

int inj_bid_sample(struct inj_copy *c, const struct pk_record *rec,
		   bool inject)
{
	uint16_t mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct pk_location loc;
	struct pk_sample sm;
	int i;

	if (pk_sample_parse(c->pd, rec, &sm) ||
	    !(sm.sample_type & PERF_SAMPLE_IP) ||
	    pk_session_resolve(c->sess, sm.pid, sm.ip, mode, &loc) ||
	    !strcmp(loc.dso, "[unknown]"))
		return 0;
	if ((i = dso(c, loc.dso)) < 0)
		return i;
	if (c->dsos[i].hit)
		return 0;
	c->dsos[i].hit = true;
	return inject ? inject_dso(c, i, mode, false) : 0;
}

int inj_bid_mmap(struct inj_copy *c, const struct pk_record *rec)
{
	bool two = rec->type == PERF_RECORD_MMAP2;
	size_t off = two ? 72 : 40;
	const char *name = (const char *)rec->hdr + off;
	uint32_t flags = 0;
	int i;

	if (rec->size <= off || !memchr(name, '\0', rec->size - off))
		return 0;
	if ((i = dso(c, name)) < 0)
		return i;
	if (two && (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		c->dsos[i].hit = true;
		return 1;	/* perf 6.1 leaves the record out */
	}
	if (two)
		memcpy(&flags, (const char *)rec->hdr + 64, 4);
	if (c->dsos[i].hit)
		return 0;
	c->dsos[i].hit = true;
	return inject_dso(c, i, rec->misc & PERF_RECORD_MISC_CPUMODE_MASK,
			  flags & MAP_HUGETLB);
}

int inj_bid_table(struct inj_copy *c)
{
	int err = 0;

	if (!c->build_ids && !pk_perfdata_has_feat(c->pd, PK_HEADER_BUILD_ID))
		return 0;
	for (int i = 0; i < c->nr_dsos && !err; i++) {
		struct inj_dso *d = &c->dsos[i];
		struct pk_build_id b;

		if (!d->hit && strcmp(d->name, "[vdso]"))
			continue;
		if (!d->len && !d->tried && d->name[0] == '/') {
			int n = pk_build_id_read(d->name, d->id);

			d->tried = true;
			d->len = n > 0 ? n : 0;
		}
		if (!d->len)
			continue;
		memset(&b, 0, sizeof(b));
		b.misc = d->kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
		b.pid = -1;
		memcpy(b.id, d->id, (size_t)d->len);
		b.id_size = (uint8_t)d->len;
		b.filename = d->name;
		err = pk_pdwriter_add_build_id(c->w, &b);
	}
	return err;
}

void inj_bid_free(struct inj_copy *c)
{
	for (int i = 0; i < c->nr_dsos; i++)
		free(c->dsos[i].name);
	for (int i = 0; i < c->nr_known; i++)
		free(c->known[i].name);
	free(c->dsos);
	free(c->known);
	c->dsos = NULL;
	c->known = NULL;
	c->nr_dsos = c->nr_known = 0;
}
