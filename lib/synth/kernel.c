/* SPDX-License-Identifier: MIT */
/* Side-band records for the kernel image and its modules. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "base/base.h"
#include "symbol/ksyms.h"
#include <perfkit/synth.h>

struct kmmap_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	char filename[4096];
};

static int emit_kmmap(pk_synth_fn fn, void *arg, size_t id_hdr,
		      uint64_t start, uint64_t len, uint64_t pgoff,
		      const char *name)
{
	union {
		struct kmmap_rec r;
		unsigned char b[sizeof(struct kmmap_rec) + 256];
	} u;
	size_t n = strnlen(name, sizeof(u.r.filename) - 1);
	size_t size = (offsetof(struct kmmap_rec, filename) + n + 1 + 7) & ~(size_t)7;

	memset(&u, 0, offsetof(struct kmmap_rec, filename) + n + 8 + id_hdr);
	u.r.h.type = PERF_RECORD_MMAP;
	u.r.h.misc = PERF_RECORD_MISC_KERNEL;
	u.r.h.size = (uint16_t)(size + id_hdr);
	u.r.pid = (uint32_t)-1;
	u.r.start = start;
	u.r.len = len;
	u.r.pgoff = pgoff;
	memcpy(u.r.filename, name, n);
	return fn(&u.r.h, arg);
}

/* The addresses of _text (or _stext) and _etext in kallsyms, 0 when
 * hidden or absent. */
static void kernel_text(const char *proc, uint64_t *text, uint64_t *etext)
{
	char path[256], line[1024];
	uint64_t stext = 0;
	struct pk_ksym s;
	FILE *f;

	*text = *etext = 0;
	snprintf(path, sizeof(path), "%s/kallsyms", proc);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && !(*text && *etext)) {
		line[strcspn(line, "\n")] = 0;
		if (!pk__ksyms_line(line, line + strlen(line), &s, true))
			continue;
		if (!strcmp(s.name, "_text"))
			*text = s.addr;
		else if (!strcmp(s.name, "_stext"))
			stext = s.addr;
		else if (!strcmp(s.name, "_etext"))
			*etext = s.addr;
	}
	fclose(f);
	if (!*text)
		*text = stext;
}

/* The module's file from modules.dep, or "[name]" when not found. */
static void module_path(const char *mod, char *out, size_t len)
{
	char dep[512], line[1024], want[256];
	struct utsname u;
	FILE *f;

	snprintf(out, len, "[%s]", mod);
	if (uname(&u))
		return;
	snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(dep, "re");
	if (!f)
		return;
	snprintf(want, sizeof(want), "/%.200s.ko", mod);
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *slash, *dot;

		if (!colon)
			continue;
		*colon = '\0';
		slash = strrchr(line, '/');
		dot = slash ? strstr(slash, ".ko") : NULL;
		if (!slash || !dot)
			continue;
		/* Names in modules.dep use '-' where /proc/modules has '_'. */
		for (char *c = slash + 1; c < dot; c++)
			if (*c == '-')
				*c = '_';
		if (strncmp(slash, want, strlen(want) - 3) ||
		    (size_t)(dot - slash) != strlen(want) - 3)
			continue;
		snprintf(out, len, "/lib/modules/%.64s/%.900s", u.release, line);
		break;
	}
	fclose(f);
}

static int emit_modules(pk_synth_fn fn, void *arg, size_t id_hdr,
			const char *proc)
{
	char path[256], line[512], name[256], file[1024];
	unsigned long long size, addr;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/modules", proc);
	f = fopen(path, "re");
	if (!f)
		return 0; /* no modules */
	while (!err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %llu %*s %*s %*s %llx", name, &size,
			   &addr) != 3 || !addr)
			continue;
		module_path(name, file, sizeof(file));
		err = emit_kmmap(fn, arg, id_hdr, addr, size, 0, file);
	}
	fclose(f);
	return err;
}

int pk_synth_kernel(pk_synth_fn fn, void *arg, const struct pk_synth_opts *o)
{
	const char *proc = o && o->proc ? o->proc : "/proc";
	size_t id_hdr = o ? o->id_hdr_size : 0;
	uint64_t text, etext;
	int err;

	if (!PK_OPTS_VALID(o, pk_synth_opts) || id_hdr > 256)
		return -EINVAL;
	/* perf's kernel map: _text up to _etext (else the end of memory) */
	kernel_text(proc, &text, &etext);
	err = emit_kmmap(fn, arg, id_hdr, text,
			 (etext > text ? etext : ~0ULL) - text, text,
			 "[kernel.kallsyms]_text");
	return err ? err : emit_modules(fn, arg, id_hdr, proc);
}
