/* SPDX-License-Identifier: MIT */
/*
 * perfkit buildid-list: the build ids a perf.data file names, as perf 6.1
 * prints them ("%-40s %s"): the file's build-id table, or with --with-hits
 * (and for files without that table, pipes included) the DSOs samples
 * hit, in the order perf meets them: table entries, the kernel, then
 * first mappings. An ELF file given as input prints its own build id.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/synth.h>
#include "cli.h"

struct dso_ent {
	char *name;
	uint8_t id[PK_BUILD_ID_MAX];
	int len;
	bool hit;
};

struct blist {
	struct pk_perfdata *pd;
	struct pk_session *sess;
	struct dso_ent *v;
	int n, cap;
	unsigned nbid;          /* build ids taken from the reader */
	const char *last;       /* the session's name of the last hit */
	bool pipe;
	int last_i;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: perfkit buildid-list [options]\n"
"  -i, --input FILE    perf.data file, or an ELF file (default perf.data)\n"
"  -H, --with-hits     only DSOs that samples hit\n"
"  -k, --kernel        the running kernel's build id\n"
"  -m, --kernel-maps   the running kernel's and its modules' maps, build ids\n"
"  -f, --force         read files other users own\n"
"  -v, --verbose       say why a file cannot be read\n");
}

static int find_ent(struct blist *b, const char *name)
{
	for (int i = 0; i < b->n; i++)
		if (!strcmp(b->v[i].name, name))
			return i;
	return -1;
}

/* The entry of NAME, made at the end of the list when new; -1 no memory. */
static int ent(struct blist *b, const char *name)
{
	int i = find_ent(b, name);
	struct dso_ent *e;

	if (i >= 0)
		return i;
	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 32;

		e = realloc(b->v, (size_t)cap * sizeof(*e));
		if (!e)
			return -1;
		b->v = e;
		b->cap = cap;
	}
	e = &b->v[b->n];
	memset(e, 0, sizeof(*e));
	e->name = strdup(name);
	if (!e->name)
		return -1;
	return b->n++;
}

/* Build ids of the file's table. A pipe's BUILD_ID records are left
 * out: perf 6.1 gives their DSOs no hits (its mappings make DSOs of their
 * own), so pipes list the hit DSOs without build ids. */
static int take_build_ids(struct blist *b)
{
	unsigned n = b->pipe ? 0 : pk_perfdata_nr_build_ids(b->pd);

	for (; b->nbid < n; b->nbid++) {
		struct pk_build_id bid;
		int i;

		if (pk_perfdata_build_id(b->pd, b->nbid, &bid) || !bid.filename)
			continue;
		i = ent(b, bid.filename);
		if (i < 0)
			return -ENOMEM;
		memcpy(b->v[i].id, bid.id, bid.id_size);
		b->v[i].len = bid.id_size;
	}
	return 0;
}

static void print_list(const struct blist *b, bool with_hits)
{
	for (int i = 0; i < b->n; i++) {
		char hex[2 * PK_BUILD_ID_MAX + 1];

		if (with_hits && !b->v[i].hit)
			continue;
		pk_build_id_hex(b->v[i].id, b->v[i].len, hex);
		printf("%-40s %s\n", hex, b->v[i].name);
	}
}

static int mark_hit(struct blist *b, const struct pk_record *rec)
{
	struct pk_sample sm;
	struct pk_location loc;
	uint16_t mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (pk_sample_parse(b->pd, rec, &sm) || !(sm.sample_type & PERF_SAMPLE_IP))
		return 0;
	if (pk_session_resolve(b->sess, sm.pid, sm.ip, mode, &loc) ||
	    !strcmp(loc.dso, "[unknown]"))
		return 0;
	if (loc.dso != b->last) {
		int i = ent(b, loc.dso);

		if (i < 0)
			return -ENOMEM;
		b->last = loc.dso;
		b->last_i = i;
	}
	b->v[b->last_i].hit = true;
	return 0;
}

/* A user mapping's file becomes a DSO the first time it is mapped. */
static int note_mmap(struct blist *b, const struct pk_record *rec)
{
	size_t off = rec->type == PERF_RECORD_MMAP ? 40 : 72;
	const char *name = (const char *)rec->hdr + off;

	if (rec->size <= off ||
	    (rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
	    !memchr(name, '\0', rec->size - off))
		return 0;
	return ent(b, name) < 0 ? -ENOMEM : 0;
}

static int one_record(struct blist *b, const struct pk_record *rec)
{
	int err = take_build_ids(b);

	if (err)
		return err;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		return mark_hit(b, rec);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		err = note_mmap(b, rec);
		break;
	default:
		break;
	}
	if (!err && pk_session_process(b->sess, rec->hdr) == -ENOMEM)
		err = -ENOMEM;
	if (!err && (rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2))
		b->last = NULL;
	return err;
}

static int process(struct blist *b)
{
	PK_OPTS(pk_session_opts, so, .kallsyms = "", .buildid_dir = "",
		.debug_dir = "");
	struct pk_record rec;
	int err;

	b->sess = pk_session_new(&so);
	if (!b->sess)
		return -errno;
	err = take_build_ids(b);
	if (!err && ent(b, "[kernel.kallsyms]") < 0)
		err = -ENOMEM;
	while (!err && (err = pk_perfdata_next(b->pd, &rec)) == 0)
		err = one_record(b, &rec);
	if (err == PK_ERR_EOS)
		err = take_build_ids(b);
	return err;
}

static int list_file(const char *file, bool with_hits, bool force)
{
	struct blist b = { .last_i = -1 };
	struct pk_perfdata_info in;
	int err = cli_perfdata_check(file, force);

	if (err)
		return err;
	b.pd = pk_perfdata_open(file, NULL);
	if (!b.pd) {
		fprintf(stderr, "incompatible file format (rerun with -v to "
			"learn more)\n");
		if (cli_verbose > 0 && errno == EPROTO)
			cli_error("buildid-list", "%s: %s", file,
				  pk_perfdata_open_error());
		return 255;
	}
	pk_perfdata_info(b.pd, &in);
	b.pipe = in.pipe;
	if (in.pipe || !pk_perfdata_has_feat(b.pd, PK_HEADER_BUILD_ID))
		with_hits = true;
	err = with_hits ? process(&b) : take_build_ids(&b);
	if (err)
		cli_error("buildid-list", "%s: %s", file, err == PK_ERR_FORMAT ||
			  err == PK_ERR_TRUNC ? pk_perfdata_errmsg(b.pd) :
			  pk_strerror(err));
	else
		print_list(&b, with_hits);
	for (int i = 0; i < b.n; i++)
		free(b.v[i].name);
	free(b.v);
	pk_session_free(b.sess);
	pk_perfdata_free(b.pd);
	return err ? 1 : 0;
}

static int print_kernel(void)
{
	uint8_t id[PK_BUILD_ID_MAX];
	char hex[2 * PK_BUILD_ID_MAX + 1];
	int n = pk_build_id_kernel(id);

	if (n <= 0) {
		cli_error("buildid-list", "/sys/kernel/notes: %s",
			  pk_strerror(n ? n : -ENOENT));
		return 1;
	}
	printf("%s\n", pk_build_id_hex(id, n, hex));
	return 0;
}

/* A module's build id from its sysfs notes file; its length or <= 0. */
static int notes_file_build_id(const char *path, uint8_t *id)
{
	unsigned char buf[4096];
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return pk_build_id_from_notes(buf, n, id);
}

/* One kernel map as perf buildid-list -m prints it: build id, start, end
 * and name; the kernel's id from its notes, a module's from
 * /sys/module/NAME/notes (none: an empty id). */
static int print_kmap(const struct perf_event_header *h, void *arg)
{
	/* PERF_RECORD_MMAP: pid, tid, addr, len, pgoff, filename */
	const struct { struct perf_event_header h; uint32_t pid, tid;
		       uint64_t addr, len, pgoff; char filename[]; } *m =
		(const void *)h;
	uint8_t id[PK_BUILD_ID_MAX];
	char hex[2 * PK_BUILD_ID_MAX + 1] = "", name[4096], path[512];
	const char *base;
	int n;

	(void)arg;
	snprintf(name, sizeof(name), "%s", m->filename);
	if (!strcmp(name, "[kernel.kallsyms]_text")) {
		name[strlen("[kernel.kallsyms]")] = '\0';
		n = pk_build_id_kernel(id);
	} else {
		base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name + 1;
		snprintf(path, sizeof(path), "/sys/module/%.*s/notes/.note.gnu.build-id",
			 (int)strcspn(base, ".]"), base);
		n = notes_file_build_id(path, id);
	}
	if (n > 0)
		pk_build_id_hex(id, n, hex);
	printf("%s %16llx %16llx %s\n", hex, (unsigned long long)m->addr,
	       (unsigned long long)(m->addr + m->len), name);
	return 0;
}

static const struct option long_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "with-hits", no_argument, NULL, 'H' },
	{ "kernel", no_argument, NULL, 'k' },
	{ "kernel-maps", no_argument, NULL, 'm' },
	{ "force", no_argument, NULL, 'f' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_buildid_list(int argc, char **argv)
{
	const char *input = "perf.data";
	bool with_hits = false, kernel = false, force = false, maps = false;
	uint8_t id[PK_BUILD_ID_MAX];
	char hex[2 * PK_BUILD_ID_MAX + 1];
	int o, n;

	optind = 1;
	cli_verbose = -1; /* the reader's warnings only with -v, as perf's */
	while ((o = cli_getopt(argc, argv, "i:Hkmfvh", long_opts, NULL)) != -1) {
		switch (o) {
		case 'i': input = optarg; break;
		case 'H': with_hits = true; break;
		case 'k': kernel = true; break;
		case 'm': maps = true; break;
		case 'f': force = true; break;
		case 'v': cli_verbose = cli_verbose < 0 ? 1 : cli_verbose + 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		cli_error("buildid-list", "unexpected argument '%s'", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (maps)	/* perf: before -k, whatever the input */
		return pk_synth_kernel(print_kmap, NULL, NULL) ? 1 : 0;
	if (kernel)
		return print_kernel();
	n = strcmp(input, "-") ? pk_build_id_read(input, id) : -ENOENT;
	if (n > 0) {
		printf("%s\n", pk_build_id_hex(id, n, hex));
		return 0;
	}
	return list_file(input, with_hits, force);
}
