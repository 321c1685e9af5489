/* SPDX-License-Identifier: MIT */
/*
 * Address filters of an AUX event (perf record --filter on intel_pt), as
 * perf 6.1 turns them into the kernel's string: "ACTION ADDR[/SIZE][@FILE]"
 * items separated by spaces or commas; tracestop becomes a stop range;
 * kernel symbols are looked up in kallsyms (a global one, the #N'th, or
 * the only one), "*" is the whole kernel or the whole file; files are
 * named by their real path; symbols inside files are looked up among
 * every one perf record loads from the file (file offsets, aliases kept).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gelf.h>
#include "base/base.h"
#include "symbol/symtab.h"
#include <perfkit/event.h>
#include <perfkit/symbol.h>

struct afilt {
	const char *action;
	bool start, range;
	uint64_t addr, size;
	const char *from, *to, *file;
	int from_idx, to_idx;
};

struct actx {
	struct pk_buf m;	/* perf's lines */
	const char *kallsyms;
};

/* one of perf's lines (a failure to grow the buffer loses it) */
#define SAY(c, ...) ((void)pk__buf_printf(&(c)->m, __VA_ARGS__))

/* a number, or a word up to one of DELIM (cut there) */
static int num_or_str(char **p, uint64_t *num, const char **str,
		      const char *delim)
{
	*p += strspn(*p, " ");
	if (isdigit((unsigned char)**p)) {
		char *end;

		if (!num)
			return -EINVAL;
		errno = 0;
		*num = strtoull(*p, &end, 0);
		if (errno)
			return -errno;
		if (end == *p)
			return -EINVAL;
		*p = end;
		return 0;
	}
	if (!str)
		return -EINVAL;
	*str = *p;
	size_t n = strcspn(*p, delim);
	if (!n)
		return -EINVAL;
	*p += n;
	if (**p)
		*(*p)++ = '\0';
	return 0;
}

/* " #N", " #g": which of a name's symbols (-1: any, 0: global) */
static int sym_idx(char **p, int *idx)
{
	char *end;
	unsigned long n;

	*idx = -1;
	*p += strspn(*p, " ");
	if (**p != '#')
		return 0;
	(*p)++;
	if (**p == 'g' || **p == 'G') {
		(*p)++;
		*idx = 0;
		return 0;
	}
	errno = 0;
	n = strtoul(*p, &end, 0);
	if (errno)
		return -errno;
	if (end == *p || n > INT_MAX)
		return -EINVAL;
	*p = end;
	*idx = (int)n;
	return 0;
}

static int addr_size(char **p, uint64_t *num, const char **str, int *idx)
{
	int err = num_or_str(p, num, str, " ");

	if (!err && *str)
		err = sym_idx(p, idx);
	return err;
}

static int action(struct afilt *f)
{
	if (!strcmp(f->action, "filter")) {
		f->start = f->range = true;
	} else if (!strcmp(f->action, "start")) {
		f->start = true;
	} else if (!strcmp(f->action, "stop")) {
		f->start = false;
	} else if (!strcmp(f->action, "tracestop")) {
		f->range = true;
		f->action = "stop";
	} else {
		return -EINVAL;
	}
	return 0;
}

/* One item from *P (a copy the item's strings point into). */
static int parse_one(struct afilt *f, char **p)
{
	int err;

	memset(f, 0, sizeof(*f));
	f->from_idx = f->to_idx = -1;
	if ((err = num_or_str(p, NULL, &f->action, " ")) || (err = action(f)) ||
	    (err = addr_size(p, &f->addr, &f->from, &f->from_idx)))
		return err;
	*p += strspn(*p, " ");
	if (**p == '/') {
		(*p)++;
		if ((err = addr_size(p, &f->size, &f->to, &f->to_idx)))
			return err;
		f->range = true;
	}
	*p += strspn(*p, " ");
	if (**p == '@') {
		(*p)++;
		if ((err = num_or_str(p, NULL, &f->file, " ,")))
			return err;
	}
	*p += strspn(*p, " ,");
	return 0;
}

/* ---- kernel symbols (kallsyms) ---- */

struct ksearch {
	const char *name;
	int idx, cnt;
	bool global, selected, started, dup;
	uint64_t start, size;
};

static bool kfunc(char t)
{
	t = (char)toupper((unsigned char)t);
	return t == 'T' || t == 'W';
}

static bool kname(const char *k, const char *name)
{
	size_t n = strlen(name);

	return !strcmp(k, name) || (!strncmp(k, name, n) && k[n] == '\t');
}

static bool kmatch(struct ksearch *s, const char *name, char type)
{
	return kfunc(type) && kname(name, s->name) &&
	       ((s->global && isupper((unsigned char)type)) ||
		(s->selected && ++s->cnt == s->idx) ||
		(!s->global && !s->selected));
}

/* Each line of kallsyms to FN (stops when FN returns true). */
static int kallsyms_each(struct actx *c, void *arg,
			 bool (*fn)(void *, const char *, char, uint64_t))
{
	FILE *fp = fopen(c->kallsyms, "r");
	char line[512], name[480], type;
	unsigned long long a;

	if (!fp)
		return -errno;
	while (fgets(line, sizeof(line), fp)) {
		char *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (sscanf(line, "%llx %c %479[^\n]", &a, &type, name) != 3)
			continue;
		if (fn(arg, name, type, a))
			break;
	}
	fclose(fp);
	return 0;
}

static bool find_cb(void *arg, const char *name, char type, uint64_t a)
{
	struct ksearch *s = arg;

	if (s->started) {
		if (!s->size)
			s->size = a - s->start;
		if (s->selected)
			return s->size != 0;
		if (kmatch(s, name, type)) {
			s->dup = true;
			return true;
		}
	} else if (kmatch(s, name, type)) {
		s->started = true;
		s->start = a;
	}
	return false;
}

struct kprint {
	struct ksearch s;
	struct actx *c;
	bool near;
};

static bool print_cb(void *arg, const char *name, char type, uint64_t a)
{
	struct kprint *k = arg;

	if (kmatch(&k->s, name, type)) {
		SAY(k->c, "#%d\t0x%llx\t%c\t%s\n", ++k->s.cnt,
		    (unsigned long long)a, type, name);
		k->near = true;
	} else if (k->near) {
		k->near = false;
		SAY(k->c, "\t\twhich is near\t\t%s\n", name);
	}
	return false;
}

static int not_found(struct actx *c, const char *name, int idx)
{
	if (idx > 0)
		SAY(c, "N'th occurrence (N=%d) of symbol '%s' not found.\n",
		    idx, name);
	else if (!idx)
		SAY(c, "Global symbol '%s' not found.\n", name);
	else
		SAY(c, "Symbol '%s' not found.\n", name);
	SAY(c, "Note that symbols must be functions.\n");
	return -EINVAL;
}

static int disambiguate(struct actx *c, const char *name)
{
	SAY(c, "Disambiguate symbol name by inserting #n after the name e.g. "
	    "%s #2\n", name);
	SAY(c, "Or select a global symbol by inserting #0 or #g or #G\n");
	return -EINVAL;
}

static int kern_sym(struct actx *c, const char *name, int idx,
		    uint64_t *start, uint64_t *size)
{
	struct ksearch s = { .name = name, .idx = idx, .global = !idx,
			     .selected = idx > 0 };
	int err = kallsyms_each(c, &s, find_cb);

	*start = *size = 0;
	if (err < 0) {
		SAY(c, "Failed to parse /proc/kallsyms\n");
		return err;
	}
	if (s.dup) {
		struct kprint k = { .s = s, .c = c };

		SAY(c, "Multiple kernel symbols with name '%s'\n", name);
		k.s.cnt = 0;
		k.s.started = false;
		kallsyms_each(c, &k, print_cb);
		return disambiguate(c, name);
	}
	if (!s.started) {
		SAY(c, "Kernel symbol lookup: ");
		return not_found(c, name, idx);
	}
	*start = s.start;
	*size = s.size;
	return 0;
}

static bool whole_cb(void *arg, const char *name, char type, uint64_t a)
{
	struct ksearch *s = arg;
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);

	(void)name;
	if (!kfunc(type))
		return false;
	if (!s->started) {
		s->started = true;
		s->start = a;
	}
	/* where the kernel ends is not known: a page more, past the
	 * highest function (kallsyms is not in address order: BPF
	 * programs' [bpf] lines come last, not always highest) */
	uint64_t size = ((a + ps - 1) & ~(ps - 1)) + ps - s->start;

	if (size > s->size)
		s->size = size;
	return false;
}

static int whole_kernel(struct actx *c, struct afilt *f)
{
	struct ksearch s = { 0 };
	int err = kallsyms_each(c, &s, whole_cb);

	if (err < 0 || !s.started) {
		SAY(c, "Failed to parse /proc/kallsyms\n");
		return err < 0 ? err : 0;
	}
	f->addr = s.start;
	f->size = s.size;
	return 0;
}

static int end_after_start(struct actx *c, struct afilt *f, uint64_t start,
			   uint64_t size)
{
	if (start + size >= f->addr)
		return 0;
	if (f->from)
		SAY(c, "Symbol '%s' (0x%llx) comes before '%s' (0x%llx)\n",
		    f->to, (unsigned long long)start, f->from,
		    (unsigned long long)f->addr);
	else
		SAY(c, "Symbol '%s' (0x%llx) comes before address 0x%llx)\n",
		    f->to, (unsigned long long)start,
		    (unsigned long long)f->addr);
	return -EINVAL;
}

static bool kptr_restricted(void)
{
	FILE *fp = fopen("/proc/sys/kernel/kptr_restrict", "r");
	int v = 0;

	if (fp) {
		if (fscanf(fp, "%d", &v) != 1)
			v = 0;
		fclose(fp);
	}
	/* perf: restricted unless 0, or 1 for a privileged user */
	return v >= 2 || (v == 1 && geteuid() != 0);
}

static int kernel_syms(struct actx *c, struct afilt *f)
{
	uint64_t start, size;
	bool no_size = false;
	int err;

	if (kptr_restricted()) {
		SAY(c, "Kernel addresses are restricted. Unable to resolve "
		    "kernel symbols.\n");
		return -EINVAL;
	}
	if (f->from && !strcmp(f->from, "*"))
		return whole_kernel(c, f);
	if (f->from) {
		if ((err = kern_sym(c, f->from, f->from_idx, &start, &size)))
			return err;
		f->addr = start;
		if (f->range && !f->size && !f->to) {
			f->size = size;
			no_size = !size;
		}
	}
	if (f->to) {
		if ((err = kern_sym(c, f->to, f->to_idx, &start, &size)) ||
		    (err = end_after_start(c, f, start, size)))
			return err;
		f->size = start + size - f->addr;
		no_size = !size;
	}
	if (no_size) {
		SAY(c, "Cannot determine size of symbol '%s'\n",
		    f->to ? f->to : f->from);
		return -EINVAL;
	}
	return 0;
}

/* ---- symbols inside files ---- */

static bool fmatch(const struct pk_sym *s, const char *name, int *cnt,
		   int idx)
{
	return !strcmp(s->name, name) &&
	       ((!idx && s->bind == STB_GLOBAL) || (idx > 0 && ++*cnt == idx) ||
		idx < 0);
}

static char bind_char(const struct pk_sym *s)
{
	return s->bind == STB_GLOBAL ? 'g' : s->bind == STB_LOCAL ? 'l' : 'w';
}

static int file_dups(struct actx *c, const struct pk_symtab *t,
		     const char *name)
{
	bool near = false;
	int cnt = 0;

	SAY(c, "Multiple symbols with name '%s'\n", name);
	for (int i = 0; i < t->nr; i++) {
		const struct pk_sym *s = &t->syms[i];

		if (fmatch(s, name, &cnt, -1)) {
			SAY(c, "#%d\t0x%llx\t%c\t%s\n", ++cnt,
			    (unsigned long long)s->start, bind_char(s),
			    s->name);
			near = true;
		} else if (near) {
			near = false;
			SAY(c, "\t\twhich is near\t\t%s\n", s->name);
		}
	}
	return disambiguate(c, name);
}

/* perf's find_dso_sym: the only match (or the global one, or the N'th),
 * its size, else that up to the next symbol. perf's quirk kept: a start
 * of 0 counts as nothing found yet. */
static int file_sym(struct actx *c, const struct pk_symtab *t,
		    const char *name, int idx, uint64_t *start, uint64_t *size)
{
	int cnt = 0;

	*start = *size = 0;
	for (int i = 0; i < t->nr; i++) {
		const struct pk_sym *s = &t->syms[i];

		if (!*start) {
			if (fmatch(s, name, &cnt, idx)) {
				*start = s->start;
				*size = s->end - s->start;
			}
			continue;
		}
		if (!*size)
			*size = s->start - *start;
		if (idx > 0) {
			if (*size)
				return 0;
		} else if (fmatch(s, name, &cnt, idx)) {
			return file_dups(c, t, name);
		}
	}
	return *start ? 0 : not_found(c, name, idx);
}

static int whole_file(struct actx *c, struct afilt *f)
{
	struct stat st;

	if (stat(f->file, &st)) {
		SAY(c, "Failed to determine filter for %s\nCannot determine "
		    "file size.\n", f->file);
		return -EINVAL;
	}
	f->addr = 0;
	f->size = (uint64_t)st.st_size;
	return 0;
}

static int file_syms_in(struct actx *c, struct afilt *f,
			const struct pk_symtab *t)
{
	uint64_t start, size;
	int err;

	if (f->from && !strcmp(f->from, "*"))
		return whole_file(c, f);
	if (f->from) {
		if ((err = file_sym(c, t, f->from, f->from_idx, &start, &size)))
			return err;
		f->addr = start;
		if (f->range && !f->size && !f->to)
			f->size = size;
	}
	if (f->to) {
		if ((err = file_sym(c, t, f->to, f->to_idx, &start, &size)) ||
		    (err = end_after_start(c, f, start, size)))
			return err;
		f->size = start + size - f->addr;
	}
	return 0;
}

/* The debug file perf would read FILE's symbols from: the one of its
 * build id under /usr/lib/debug, or NULL. */
static const char *debug_file(const char *file, char *buf, size_t len)
{
	uint8_t id[PK_BUILD_ID_MAX];
	char hex[2 * PK_BUILD_ID_MAX + 1];
	int n = pk_build_id_read(file, id);

	if (n <= 0)
		return NULL;
	pk_build_id_hex(id, n, hex);
	snprintf(buf, len, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
		 hex + 2);
	return access(buf, R_OK) ? NULL : buf;
}

/* perf loads the file's symbols for each item, saying when there are
 * none, and goes on (a "*" needs none) */
static int file_syms(struct actx *c, struct afilt *f)
{
	struct pk_symtab t = { 0 };
	char dbg[PATH_MAX];
	const char *debug = debug_file(f->file, dbg, sizeof(dbg));
	int err = pk__symtab_load_aliases(&t, f->file, debug);

	if (err >= 0) {
		if (!err)
			SAY(c, "File '%s' not found or has no symbols.\n",
			    f->file);
		err = file_syms_in(c, f, &t);
	}
	pk__symtab_fini(&t);
	return err;
}

static int resolve(struct actx *c, struct afilt *f)
{
	if (!f->from && !f->to)
		return 0;
	return f->file ? file_syms(c, f) : kernel_syms(c, f);
}

/* Appends F's kernel form to *OUT (comma-separated). */
static int append(char **out, const struct afilt *f)
{
	char path[PATH_MAX], item[PATH_MAX + 96];
	const char *fn = "";
	size_t have = *out ? strlen(*out) : 0, n;
	char *p;

	if (f->file && !(fn = realpath(f->file, path)))
		return -ENOMEM;	/* (perf's failure there) */
	if (f->range)
		n = (size_t)snprintf(item, sizeof(item), "%s 0x%llx/0x%llx%s%s",
				     f->action, (unsigned long long)f->addr,
				     (unsigned long long)f->size,
				     f->file ? "@" : "", fn);
	else
		n = (size_t)snprintf(item, sizeof(item), "%s 0x%llx%s%s",
				     f->action, (unsigned long long)f->addr,
				     f->file ? "@" : "", fn);
	if (!(p = pk__realloc(*out, have + n + 2)))
		return -ENOMEM;
	if (have)
		p[have++] = ',';
	memcpy(p + have, item, n + 1);
	*out = p;
	return 0;
}

int pk_addr_filter_resolve(const char *filter, int max_nr,
			   const char *kallsyms, char **out, char *msg,
			   size_t size)
{
	struct actx c = { .kallsyms = kallsyms ? kallsyms : "/proc/kallsyms" };
	struct afilt *fs = NULL;
	char *copy, *p;
	int nr = 0, err = 0;

	if (!filter || !out || !msg || !size)
		return -EINVAL;
	*out = NULL;
	msg[0] = '\0';
	if (!(copy = pk__strdup(filter)))
		return -ENOMEM;
	for (p = copy; *p && !err;) {
		struct afilt *g = pk__realloc(fs, (size_t)(nr + 1) * sizeof(*fs));

		if (!g) {
			err = -ENOMEM;
			break;
		}
		fs = g;
		err = parse_one(&fs[nr++], &p);
	}
	if (!err && nr > max_nr) {
		SAY(&c, "Error: number of address filters (%d) exceeds maximum "
		    "(%d)\n", nr, max_nr);
		err = -EINVAL;
	}
	for (int i = 0; i < nr && !err; i++)
		if (!(err = resolve(&c, &fs[i])))
			err = append(out, &fs[i]);
	if (err) {
		pk__free(*out);
		*out = NULL;
		SAY(&c, "Failed to parse address filter: '%s'\n", filter);
		SAY(&c, "Filter format is: filter|start|stop|tracestop <start "
		    "symbol or address> [/ <end symbol or size>] [@<file "
		    "name>]\n");
		SAY(&c, "Where multiple filters are separated by space or "
		    "comma.\n");
	}
	/* MSG gets as much of them as it holds */
	snprintf(msg, size, "%.*s", (int)c.m.len, c.m.data ? c.m.data : "");
	pk__buf_fini(&c.m);
	pk__free(fs);
	pk__free(copy);
	return err;
}
