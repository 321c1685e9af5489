/* SPDX-License-Identifier: MIT */
/*
 * A symbol's disassembly as perf annotate reads it from
 * objdump -l -d --no-show-raw-insn [-S] -C: the section and symbol
 * headings, for each instruction its function (-l), DWARF line and
 * source lines with objdump's context rules (-S), and the instruction in
 * objdump's AT&T layout, decoded by Zydis. Perf's reading of that text
 * is kept: a line "/FILE:N" is not shown but numbers the lines after it
 * from N; every other line takes the next number.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "annotate/annotate_int.h"
#include "annotate/objdump_fmt.h"

struct srcfile {
	char *name;
	char *text;          /* the whole file, lines split in place */
	char **line;         /* 1-based */
	unsigned nr;
	unsigned max_printed, last_line;
	struct srcfile *next;
};

struct dis {
	struct pk_annotation *an;
	struct pk_session *s;
	const struct asym *e;
	void *dw;
	bool source;
	int line_nr;             /* perf's counter */
	char *prev_func;
	unsigned prev_line, prev_discr;
	struct srcfile *files;
};

int pk__annotation_add(struct pk_annotation *an, const struct aline *l)
{
	if (pk__annotate_grow((void **)&an->lines, &an->cap, an->nr, 256,
			      sizeof(*an->lines)))
		return -ENOMEM;
	an->lines[an->nr] = *l;
	an->lines[an->nr].text = pk__strdup(l->text);
	if (!an->lines[an->nr].text)
		return -ENOMEM;
	an->nr++;
	return 0;
}

/* One line of objdump's text, numbered as perf numbers it. */
static int text_line(struct dis *d, const char *text)
{
	struct aline l = { .line_nr = d->line_nr };
	const char *p = text;
	int n;

	if (text[0] == '/' && (p = strchr(text, ':')) &&
	    sscanf(p + 1, "%d", &n) == 1 && p[1] >= '0' && p[1] <= '9') {
		d->line_nr = n;
		return 0;
	}
	for (p = text; *p == ' ' || *p == '\t'; p++)
		;
	l.text = (char *)p;
	d->line_nr++;
	return pk__annotation_add(d->an, &l);
}

static struct srcfile *src_open(struct dis *d, const char *name)
{
	struct srcfile *f;
	long len;
	char *p;

	for (f = d->files; f; f = f->next)
		if (!strcmp(f->name, name))
			return f->nr ? f : NULL;
	f = pk__zalloc(sizeof(*f));
	if (!f)
		return NULL;
	f->name = pk__strdup(name);
	f->next = d->files;
	d->files = f;
	len = pk__read_file(name, &f->text);
	if (len < 0 || !f->name)
		return NULL;
	for (p = f->text; p < f->text + len; f->nr++) {
		char *nl = memchr(p, '\n', (size_t)(f->text + len - p));
		char **n = pk__realloc(f->line, (f->nr + 2) * sizeof(*n));

		if (!n)
			return NULL;
		f->line = n;
		f->line[f->nr + 1] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	return f->nr ? f : NULL;
}

static void src_free(struct srcfile *f)
{
	while (f) {
		struct srcfile *n = f->next;

		pk__free(f->name);
		pk__free(f->text);
		pk__free(f->line);
		pk__free(f);
		f = n;
	}
}

/* objdump -S: up to five lines before LINE not printed yet, then it. */
static int show_source(struct dis *d, const char *file, unsigned line)
{
	struct srcfile *f = src_open(d, file);
	unsigned l;
	int err = 0;

	if (!f || line == f->last_line)
		return 0;
	l = line > 5 ? line - 5 : 1;
	if (f->max_printed >= l)
		l = f->max_printed < line ? f->max_printed + 1 : line;
	for (; l <= line && l <= f->nr && !err; l++)
		err = text_line(d, f->line[l]);
	if (f->max_printed < line)
		f->max_printed = line;
	f->last_line = line;
	return err;
}

bool pk__annotate_plt_name(const char *name)
{
	size_t n = strlen(name);

	return n >= 4 && !strcmp(name + n - 4, "@plt");
}

/* objdump -l (and -S) before the instruction at file offset OFF. */
static int show_line(struct dis *d, uint64_t off)
{
	const struct pk_symtab *t = &d->e->dso->tab;
	struct pk__inl inl[16];
	const char *file = NULL, *func = NULL;
	unsigned line = 0, discr = 0;
	char buf[4352];
	int err = 0;

	if (!d->dw || pk__srcline_at(d->dw, t, off, &file, &line, &discr))
		func = pk__annotate_plt_name(d->e->name) ? NULL : d->e->name; /* ELF's */
	else if (pk__inlines(d->dw, t, off, inl, 16) > 0)
		func = inl[0].name;
	if (func && (!d->prev_func || strcmp(func, d->prev_func))) {
		snprintf(buf, sizeof(buf), "%s():", func);
		err = text_line(d, buf);
		d->prev_line = (unsigned)-1;
		pk__free(d->prev_func);
		d->prev_func = pk__strdup(func);
	}
	if (!err && line > 0 && (line != d->prev_line || discr != d->prev_discr)) {
		if (discr)
			snprintf(buf, sizeof(buf), "%s:%u (discriminator %u)",
				 file, line, discr);
		else
			snprintf(buf, sizeof(buf), "%s:%u", file, line);
		err = text_line(d, buf);
	}
	if (!err && d->source && line > 0)
		err = show_source(d, file, line);
	if (line > 0)
		d->prev_line = line;
	d->prev_discr = discr;
	return err;
}

/* The symbol objdump names for address VADDR: " <name>" or
 * " <name+0xN>". */
static void sym_label(void *arg, uint64_t vaddr, char *buf, size_t len)
{
	struct dis *d = arg;
	const struct pk_symtab *t = &d->e->dso->tab;
	uint64_t off = pk__symtab_vaddr_to_off(t, vaddr);
	const struct pk_sym *s = pk__symtab_below(t, off);

	if (!s) {
		buf[0] = 0;
		return;
	}
	if (off == s->start)
		snprintf(buf, len, " <%s>", s->name);
	else
		snprintf(buf, len, " <%s+0x%" PRIx64 ">", s->name, off - s->start);
}

/* A piece of the symbol's range inside one executable section (perf's
 * symbol ends can reach into the next section: objdump shows each). */
struct part {
	uint64_t addr;
	size_t len;
	char name[64];
};

#define MAX_PARTS 8

static int read_part(int fd, Elf *elf, size_t shstr, Elf_Scn *scn,
		     uint64_t vaddr, size_t len, uint8_t *buf, struct part *p)
{
	GElf_Shdr sh;
	const char *nm;
	uint64_t lo, hi;

	if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
	    !(sh.sh_flags & SHF_EXECINSTR))
		return 0;
	lo = sh.sh_addr > vaddr ? sh.sh_addr : vaddr;
	hi = sh.sh_addr + sh.sh_size < vaddr + len ? sh.sh_addr + sh.sh_size :
	     vaddr + len;
	if (lo >= hi)
		return 0;
	nm = elf_strptr(elf, shstr, sh.sh_name);
	snprintf(p->name, sizeof(p->name), "%s", nm ? nm : "");
	p->addr = lo;
	p->len = (size_t)(hi - lo);
	if (pread(fd, buf + (lo - vaddr), p->len,
		  (off_t)(sh.sh_offset + lo - sh.sh_addr)) != (ssize_t)p->len)
		return -EIO;
	return 1;
}

/* The bytes of [VADDR, VADDR + LEN) from the ELF file PATH into BUF, by
 * section, in PARTS (address order). The number of parts, or -errno;
 * -EPROTO when no executable section holds VADDR. */
static int read_code(const char *path, uint64_t vaddr, size_t len,
		     uint8_t *buf, struct part *parts)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0, r = 0;
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstr))
		while (n < MAX_PARTS && r >= 0 && (scn = elf_nextscn(elf, scn))) {
			r = read_part(fd, elf, shstr, scn, vaddr, len, buf,
				      &parts[n]);
			n += r > 0;
		}
	if (elf)
		elf_end(elf);
	close(fd);
	if (r < 0)
		return r;
	return n && parts[0].addr == vaddr ? n : -EPROTO;
}

/* objdump's label where another symbol starts inside the range (perf's
 * ends can run over the PLT's entries): blank, "ADDR <name>:". */
static int inner_label(struct dis *d, uint64_t vaddr)
{
	const struct pk_symtab *t = &d->e->dso->tab;
	uint64_t off = pk__symtab_vaddr_to_off(t, vaddr);
	const struct pk_sym *s = pk__symtab_below(t, off);
	char label[300], line[340];
	int err;

	if (!s || s->start != off)
		return 0;
	sym_label(d, vaddr, label, sizeof(label));
	snprintf(line, sizeof(line), "%016" PRIx64 "%s:", vaddr, label);
	err = text_line(d, "");
	return err ? err : text_line(d, line);
}

static int disasm_bytes(struct dis *d, const uint8_t *code,
			const struct part *p, uint64_t vstart, bool intel)
{
	struct pk__objdump_ctx ctx = { sym_label, d };
	struct pk__objdump_insn in;
	ZydisDecoder dec;
	int err = 0;

	if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)))
		return -EPROTO;
	for (size_t at = p->addr - vstart; at < p->addr - vstart + p->len && !err;) {
		struct aline l = { .insn = true, .addr = vstart + at,
				   .plt = !strncmp(p->name, ".plt", 4) };
		int n;

		if (at != p->addr - vstart)
			err = inner_label(d, vstart + at);
		err = err ? err : show_line(d, d->e->start + at);
		if (err)
			break;
		n = pk__objdump_insn(&dec, intel, code + at,
				     p->addr - vstart + p->len - at, vstart + at,
				     &ctx, &in);
		l.text = in.text;
		l.has_target = in.has_target;
		l.target = in.target;
		l.line_nr = d->line_nr++;
		err = pk__annotation_add(d->an, &l);
		at += (size_t)n;
	}
	return err;
}

/* objdump's heading of a section: blank, name, blank, first label. */
static int section_head(struct dis *d, const struct part *p, const char *label)
{
	char head[600];
	int err;

	snprintf(head, sizeof(head), "Disassembly of section %s:", p->name);
	err = text_line(d, "");
	err = err ? err : text_line(d, head);
	err = err ? err : text_line(d, "");
	snprintf(head, sizeof(head), "%016" PRIx64 "%s:", p->addr, label);
	return err ? err : text_line(d, head);
}

int pk__annotate_disasm(struct pk_annotation *an, struct pk_session *s,
			const struct asym *e, bool source, bool intel)
{
	struct dis d = { .an = an, .s = s, .e = e, .source = source };
	struct part parts[MAX_PARTS];
	char path[4352], label[300];
	uint64_t vstart;
	size_t len = (size_t)(e->end - e->start);
	uint8_t *code;
	int err, n;

	if (!e->dso || e->end <= e->start)
		return -ENOENT;
	if (pk__session_dso_file(s, e->dso, path, sizeof(path)))
		return -ENOENT;
	code = pk__zalloc(len);
	if (!code)
		return -ENOMEM;
	vstart = pk__symtab_off_to_vaddr(&e->dso->tab, e->start);
	err = n = read_code(path, vstart, len, code, parts);
	if (err < 0)
		goto out;
	d.dw = pk__session_dso_dwarf(s, e->dso);
	err = text_line(&d, "");
	err = err ? err : text_line(&d, "");
	snprintf(label, sizeof(label), " <%s>", e->name);
	for (int k = 0; k < n && !err; k++) {
		if (k)
			sym_label(&d, parts[k].addr, label, sizeof(label));
		err = section_head(&d, &parts[k], label);
		err = err ? err : disasm_bytes(&d, code, &parts[k], vstart, intel);
	}
out:
	src_free(d.files);
	pk__free(d.prev_func);
	pk__free(code);
	return err;
}
