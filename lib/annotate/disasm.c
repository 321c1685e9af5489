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

/* A symbol as objdump sorts them (its compare_symbols). */
struct osym {
	uint64_t value;
	const char *name;       /* in the ELF string table */
	uint16_t shndx;
	uint8_t type, bind;
};

struct dis {
	struct pk_annotation *an;
	/* objdump's symbols (the file's, or its debug file's when it has
	 * none), in objdump's order; the ELF they live in */
	struct osym *osyms;
	size_t nosyms;
	Elf *oelf;
	int ofd;
	/* binutils' synthetic names of the PLT's entries */
	struct pltname { uint64_t addr; char *name; } *plt;
	size_t nplt;
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
	an->lines[an->nr].target_sym = l->target_sym ?
				       pk__strdup(l->target_sym) : NULL;
	if (!an->lines[an->nr].text || (l->target_sym &&
					!an->lines[an->nr].target_sym)) {
		pk__free(an->lines[an->nr].text);
		return -ENOMEM;
	}
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

/* objdump's heuristic "file name" symbols (NAME.o, NAME.a) go after. */
static bool file_like(const char *n)
{
	size_t l = strlen(n);

	return l > 2 && n[l - 2] == '.' && (n[l - 1] == 'o' || n[l - 1] == 'a');
}

/* binutils' compare_symbols: by value, section, then functions, objects,
 * non-local, global ones first, names not starting with '.', by name. */
static int osym_cmp(const void *pa, const void *pb)
{
	const struct osym *a = pa, *b = pb;
	bool af, bf;

	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	if (a->shndx != b->shndx)
		return a->shndx < b->shndx ? -1 : 1;
	af = strstr(a->name, "gnu_compiled") || strstr(a->name, "gcc2_compiled");
	bf = strstr(b->name, "gnu_compiled") || strstr(b->name, "gcc2_compiled");
	if (af != bf)
		return af ? 1 : -1;
	af = file_like(a->name), bf = file_like(b->name);
	if (af != bf)
		return af ? 1 : -1;
	af = a->type == STT_FUNC || a->type == STT_GNU_IFUNC;
	bf = b->type == STT_FUNC || b->type == STT_GNU_IFUNC;
	if (af != bf)
		return af ? -1 : 1;
	if ((a->type == STT_OBJECT) != (b->type == STT_OBJECT))
		return a->type == STT_OBJECT ? -1 : 1;
	if ((a->bind == STB_LOCAL) != (b->bind == STB_LOCAL))
		return a->bind == STB_LOCAL ? 1 : -1;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL ? -1 : 1;
	if ((a->name[0] == '.') != (b->name[0] == '.'))
		return a->name[0] == '.' ? 1 : -1;
	return strcmp(a->name, b->name);
}

/* The symbols of the ELF file at PATH's .symtab into D; false when it
 * has none. */
static bool osyms_read(struct dis *d, const char *path)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *data;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;

	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			break;
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !sh.sh_entsize)
		goto none;
	d->osyms = pk__calloc(sh.sh_size / sh.sh_entsize + 1, sizeof(*d->osyms));
	if (!d->osyms)
		goto none;
	for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;
		const char *n;
		int type;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		/* objdump's useless symbols: sections, files, undefined */
		if (type == STT_SECTION || type == STT_FILE ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_COMMON)
			continue;
		n = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!n || !n[0])
			continue;
		d->osyms[d->nosyms++] = (struct osym){
			sym.st_value, n, sym.st_shndx, (uint8_t)type,
			(uint8_t)GELF_ST_BIND(sym.st_info) };
	}
	qsort(d->osyms, d->nosyms, sizeof(*d->osyms), osym_cmp);
	d->oelf = elf;
	d->ofd = fd;
	return true;
none:
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return false;
}

static Elf_Scn *scn_named(Elf *elf, size_t shstr, const char *name,
			  GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, sh) &&
		    (n = elf_strptr(elf, shstr, sh->sh_name)) && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* The GOT slot the PLT entry at BYTES (of address AT) jumps through: an
 * endbr64 and a bnd prefix skipped, jmp *DISP(%rip). 0: none. */
static uint64_t plt_slot(const uint8_t *b, size_t n, uint64_t at)
{
	size_t i = 0;
	int32_t disp;

	if (n >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa)
		i = 4;
	if (i < n && b[i] == 0xf2)
		i++;
	if (i + 6 > n || b[i] != 0xff || b[i + 1] != 0x25)
		return 0;
	memcpy(&disp, b + i + 2, 4);
	return at + i + 6 + (uint64_t)(int64_t)disp;
}

/* Names the entries of PLT section NAME (HEAD: its first entry is the
 * resolver's) as binutils does: by the relocation of the GOT slot each
 * jumps through, "SYM@plt", or "*ABS*+0xADDEND@plt" without a symbol. */
static void plt_names(struct dis *d, Elf *elf, int fd, size_t shstr,
		      const char *name, bool head)
{
	GElf_Shdr psh, rsh, dsh;
	Elf_Scn *p = scn_named(elf, shstr, name, &psh);
	Elf_Scn *r = scn_named(elf, shstr, ".rela.plt", &rsh);
	Elf_Data *rd = r ? elf_getdata(r, NULL) : NULL;
	Elf_Scn *dyn = r ? elf_getscn(elf, rsh.sh_link) : NULL;
	Elf_Data *dd = dyn && gelf_getshdr(dyn, &dsh) ? elf_getdata(dyn, NULL) : NULL;
	uint8_t *bytes;
	struct pltname *v;
	size_t n;

	if (!p || psh.sh_type != SHT_PROGBITS || !rd || !dd ||
	    !rsh.sh_entsize || psh.sh_size > (1u << 24))
		return;
	n = psh.sh_size / 16;
	bytes = pk__malloc(psh.sh_size + 1);
	v = pk__realloc(d->plt, (d->nplt + n + 1) * sizeof(*v));
	if (v)
		d->plt = v;
	if (!bytes || !v || pread(fd, bytes, psh.sh_size, (off_t)psh.sh_offset) !=
	    (ssize_t)psh.sh_size) {
		pk__free(bytes);
		return;
	}
	for (size_t e = head; e < n; e++) {
		uint64_t at = psh.sh_addr + 16 * e;
		uint64_t slot = plt_slot(bytes + 16 * e, 16, at);
		char buf[512];

		for (size_t k = 0; slot && k < rsh.sh_size / rsh.sh_entsize; k++) {
			GElf_Rela ra;
			GElf_Sym sym;
			const char *sn;

			if (!gelf_getrela(rd, (int)k, &ra) || ra.r_offset != slot)
				continue;
			if (GELF_R_SYM(ra.r_info) &&
			    gelf_getsym(dd, (int)GELF_R_SYM(ra.r_info), &sym) &&
			    (sn = elf_strptr(elf, dsh.sh_link, sym.st_name)))
				snprintf(buf, sizeof(buf), "%s@plt", sn);
			else
				snprintf(buf, sizeof(buf), "*ABS*+0x%" PRIx64 "@plt",
					 (uint64_t)ra.r_addend);
			d->plt[d->nplt].addr = at;
			if ((d->plt[d->nplt].name = pk__strdup(buf)))
				d->nplt++;
			break;
		}
	}
	pk__free(bytes);
}

/* objdump's symbols: PATH's, else (stripped) its debug file's; the
 * PLT's entries named from PATH. */
static void osyms_load(struct dis *d, const char *path)
{
	char dbg[4352];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	size_t shstr;

	d->ofd = -1;
	if (elf && !elf_getshdrstrndx(elf, &shstr)) {
		GElf_Shdr sh;
		bool sec = scn_named(elf, shstr, ".plt.sec", &sh) != NULL;

		/* with .plt.sec the calls go there; .plt holds the lazy
		 * stubs binutils names after them */
		plt_names(d, elf, fd, shstr, sec ? ".plt.sec" : ".plt", !sec);
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (!osyms_read(d, path) &&
	    !pk__session_dso_debug_file(d->s, d->e->dso, dbg, sizeof(dbg)))
		osyms_read(d, dbg);
}

static void osyms_free(struct dis *d)
{
	for (size_t i = 0; i < d->nplt; i++)
		pk__free(d->plt[i].name);
	pk__free(d->plt);
	pk__free(d->osyms);
	if (d->oelf)
		elf_end(d->oelf);
	if (d->ofd >= 0)
		close(d->ofd);
}

/* The name objdump gives the symbol at VADDR that perf names NAME: the
 * first of its aliases there in objdump's order (perf's choice among
 * aliases differs: getppid for perf's __GI___getppid). NAME when none
 * is there or it is a C++ one (perf's names are demangled). */
static const char *objdump_name(const struct dis *d, uint64_t vaddr,
				const char *name)
{
	size_t lo = 0, hi = d->nosyms;

	for (size_t i = 0; i < d->nplt; i++)
		if (d->plt[i].addr == vaddr)
			return d->plt[i].name;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->osyms[mid].value < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= d->nosyms || d->osyms[lo].value != vaddr ||
	    !strncmp(d->osyms[lo].name, "_Z", 2))
		return name;
	return d->osyms[lo].name;
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
	const char *name = objdump_name(d, vaddr - (off - s->start), s->name);

	if (off == s->start)
		snprintf(buf, len, " <%s>", name);
	else
		snprintf(buf, len, " <%s+0x%" PRIx64 ">", name, off - s->start);
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
		if (in.has_target) {
			const struct pk_symtab *t = &d->e->dso->tab;
			const struct pk_sym *ts = pk__symtab_find(t,
				pk__symtab_vaddr_to_off(t, in.target));

			l.target_sym = ts ? (char *)ts->name : NULL;
		}
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
	struct dis d = { .an = an, .s = s, .e = e, .source = source, .ofd = -1 };
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
	osyms_load(&d, path);
	err = text_line(&d, "");
	err = err ? err : text_line(&d, "");
	snprintf(label, sizeof(label), " <%s>", objdump_name(&d, vstart, e->name));
	for (int k = 0; k < n && !err; k++) {
		if (k)
			sym_label(&d, parts[k].addr, label, sizeof(label));
		err = section_head(&d, &parts[k], label);
		err = err ? err : disasm_bytes(&d, code, &parts[k], vstart, intel);
	}
out:
	osyms_free(&d);
	src_free(d.files);
	pk__free(d.prev_func);
	pk__free(code);
	return err;
}
