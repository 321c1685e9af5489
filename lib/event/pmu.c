/* SPDX-License-Identifier: MIT */
/* PMUs from sysfs: types, format terms, event aliases, cpumasks. */
#include <dirent.h>
#include <locale.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "base/base.h"
#include "event/pmu.h"
#include "tracefs/locate.h"
#include <perfkit/features.h>

static char *root_sysfs, *root_tracefs;
static bool roots_set;
static struct pk_pmu *pmus;
static int nr_pmus = -1;

static void pmu_fini(struct pk_pmu *p)
{
	for (int i = 0; i < p->nr_formats; i++)
		pk__free(p->formats[i].name);
	for (int i = 0; i < p->nr_aliases; i++) {
		pk__free(p->aliases[i].name);
		pk__free(p->aliases[i].terms);
		pk__free(p->aliases[i].desc);
		pk__free(p->aliases[i].unit);
	}
	pk__free(p->formats);
	pk__free(p->aliases);
	pk__free(p->cpus);
	pk__free(p->name);
}

static void pmus_drop(void)
{
	for (int i = 0; i < nr_pmus; i++)
		pmu_fini(&pmus[i]);
	pk__free(pmus);
	pmus = NULL;
	nr_pmus = -1;
}

void pk__event_set_roots(const char *sysfs, const char *tracefs)
{
	pmus_drop();
	pk__free(root_sysfs);
	pk__free(root_tracefs);
	root_sysfs = sysfs ? pk__strdup(sysfs) : NULL;
	root_tracefs = tracefs ? pk__strdup(tracefs) : NULL;
	roots_set = true;
	pk__tracefs_reset();
}

static const char *sysfs_root(void)
{
	const char *e;

	if (roots_set && root_sysfs)
		return root_sysfs;
	e = getenv("PERFKIT_SYSFS");
	return e && *e ? e : "/sys";
}

const char *pk__tracefs_override(void)
{
	const char *e;

	if (roots_set && root_tracefs)
		return root_tracefs;
	e = getenv("PERFKIT_TRACEFS");
	return e && *e ? e : NULL;
}

/* tracefs: the override, else the library's locator; found once. */
static char tracefs_path[4096];
static bool tracefs_known;

void pk__tracefs_reset(void)
{
	tracefs_known = false;
}

const char *pk__tracefs(void)
{
	const char *o;
	bool mounted;
	int e;

	if (tracefs_known)
		return tracefs_path;
	o = pk__tracefs_override();
	if (o) {
		snprintf(tracefs_path, sizeof(tracefs_path), "%s", o);
		tracefs_known = true;
		return tracefs_path;
	}
	e = pk__tracefs_locate(tracefs_path, sizeof(tracefs_path), &mounted);
	if (e) {
		errno = -e;
		return NULL;
	}
	if (mounted)
		pk_info("mounted tracefs at %s", tracefs_path);
	tracefs_known = true;
	return tracefs_path;
}

static int devices_path(char *buf, size_t size, const char *pmu,
			const char *rest)
{
	int n = snprintf(buf, size, "%s/bus/event_source/devices%s%s%s%s",
			 sysfs_root(), pmu ? "/" : "", pmu ? pmu : "",
			 rest ? "/" : "", rest ? rest : "");

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int cmp_pmu(const void *a, const void *b)
{
	return strcmp(((const struct pk_pmu *)a)->name,
		      ((const struct pk_pmu *)b)->name);
}

static int pmus_scan(void)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;
	int cap = 0, err = 0;

	if (devices_path(path, sizeof(path), NULL, NULL))
		return -ENAMETOOLONG;
	dir = opendir(path);
	nr_pmus = 0;
	if (!dir)
		return 0; /* no PMUs: an empty list */
	while ((d = readdir(dir)) != NULL) {
		char tp[4096];
		uint64_t type;

		if (d->d_name[0] == '.')
			continue;
		if (devices_path(tp, sizeof(tp), d->d_name, "type") ||
		    pk__read_file_u64(tp, &type))
			continue;
		if (nr_pmus == cap) {
			int nc = cap ? cap * 2 : 16;
			struct pk_pmu *n = pk__realloc(pmus, (size_t)nc *
						      sizeof(*n));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			pmus = n;
			cap = nc;
		}
		memset(&pmus[nr_pmus], 0, sizeof(pmus[0]));
		pmus[nr_pmus].name = pk__strdup(d->d_name);
		pmus[nr_pmus].type = (uint32_t)type;
		pmus[nr_pmus].dir_pos = nr_pmus;
		if (!pmus[nr_pmus].name) {
			err = -ENOMEM;
			break;
		}
		nr_pmus++;
	}
	closedir(dir);
	if (err) {
		pmus_drop();
		return err;
	}
	if (nr_pmus)
		qsort(pmus, (size_t)nr_pmus, sizeof(*pmus), cmp_pmu);
	return 0;
}

int pk__pmu_all(struct pk_pmu **out)
{
	if (nr_pmus < 0) {
		int err = pmus_scan();

		if (err)
			return err;
	}
	*out = pmus;
	return nr_pmus;
}

int pk__format_parse(const char *text, int *field, uint64_t *mask)
{
	const char *p = text;
	char *end;

	if (!strncmp(p, "config2:", 8)) {
		*field = PK_CFG2;
		p += 8;
	} else if (!strncmp(p, "config1:", 8)) {
		*field = PK_CFG1;
		p += 8;
	} else if (!strncmp(p, "config:", 7)) {
		*field = PK_CFG0;
		p += 7;
	} else {
		return -EINVAL;
	}
	*mask = 0;
	for (;;) {
		unsigned long lo, hi;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++)
			*mask |= 1ULL << b;
		if (*p != ',')
			break;
		p++;
	}
	while (*p == '\n' || *p == ' ')
		p++;
	return *p ? -EINVAL : 0;
}

uint64_t pk__format_max(const struct pk_pmu_format *fmt)
{
	int n = __builtin_popcountll(fmt->mask);

	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

void pk__format_put(const struct pk_pmu_format *fmt, uint64_t val,
		    uint64_t *cfg)
{
	int vb = 0;

	for (int b = 0; b < 64; b++) {
		if (!(fmt->mask & (1ULL << b)))
			continue;
		if (val & (1ULL << vb))
			*cfg |= 1ULL << b;
		else
			*cfg &= ~(1ULL << b);
		vb++;
	}
}

static char *trimmed(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
	return s;
}

static int load_formats(struct pk_pmu *p)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;
	int cap = 0;

	if (devices_path(path, sizeof(path), p->name, "format"))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) != NULL) {
		char fp[4096], *text;
		struct pk_pmu_format f;

		if (d->d_name[0] == '.' ||
		    devices_path(fp, sizeof(fp), p->name, "format") ||
		    strlen(fp) + strlen(d->d_name) + 2 > sizeof(fp))
			continue;
		strcat(strcat(fp, "/"), d->d_name);
		if (pk__read_file(fp, &text) < 0)
			continue;
		if (pk__format_parse(trimmed(text), &f.field, &f.mask)) {
			pk_debug("pmu '%s': bad format '%s': %s", p->name,
				 d->d_name, text);
			pk__free(text);
			continue;
		}
		pk__free(text);
		if (p->nr_formats == cap) {
			int nc = cap ? cap * 2 : 8;
			void *n = pk__realloc(p->formats,
					     (size_t)nc * sizeof(f));

			if (!n)
				goto nomem;
			p->formats = n;
			cap = nc;
		}
		f.name = pk__strdup(d->d_name);
		if (!f.name)
			goto nomem;
		p->formats[p->nr_formats++] = f;
	}
	closedir(dir);
	return 0;
nomem:
	closedir(dir);
	return -ENOMEM;
}

static int cmp_alias(const void *a, const void *b)
{
	return strcmp(((const struct pk_pmu_alias *)a)->name,
		      ((const struct pk_pmu_alias *)b)->name);
}

/* PATH.unit and PATH.scale of an alias, as perf reads them: the unit's
 * first 31 bytes less a final newline, the scale by strtod in the C
 * locale (sysfs files are C-formatted). Missing files leave them unset. */
static void load_alias_info(const char *path, struct pk_pmu_alias *a)
{
	char fp[4096 + 256 + 16], *text, *end;
	size_t n;

	snprintf(fp, sizeof(fp), "%s.unit", path);
	if (pk__read_file(fp, &text) >= 0) {
		n = strlen(text);
		if (n > 31)
			text[n = 31] = '\0';
		if (n && text[n - 1] == '\n')
			text[n - 1] = '\0';
		a->unit = text;
	}
	snprintf(fp, sizeof(fp), "%s.scale", path);
	if (pk__read_file(fp, &text) >= 0) {
		locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
		locale_t old = c ? uselocale(c) : (locale_t)0;

		a->scale = strtod(text, &end);
		if (c) {
			uselocale(old);
			freelocale(c);
		}
		pk__free(text);
	}
}

static int load_aliases(struct pk_pmu *p)
{
	char path[4096];
	struct dirent *d;
	DIR *dir;
	int cap = 0;

	if (devices_path(path, sizeof(path), p->name, "events"))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) != NULL) {
		char fp[4096 + 256], *text;
		struct pk_pmu_alias a = { 0 };

		/* NAME.scale, NAME.unit, NAME.per-pkg... are not events */
		if (d->d_name[0] == '.' || strchr(d->d_name, '.'))
			continue;
		snprintf(fp, sizeof(fp), "%s/%s", path, d->d_name);
		if (pk__read_file(fp, &text) < 0)
			continue;
		if (p->nr_aliases == cap) {
			int nc = cap ? cap * 2 : 8;
			void *n = pk__realloc(p->aliases,
					     (size_t)nc * sizeof(a));

			if (!n) {
				pk__free(text);
				goto nomem;
			}
			p->aliases = n;
			cap = nc;
		}
		a.terms = trimmed(text);
		a.name = pk__strdup(d->d_name);
		if (!a.name) {
			pk__free(text);
			goto nomem;
		}
		load_alias_info(fp, &a);
		p->aliases[p->nr_aliases++] = a;
	}
	closedir(dir);
	if (p->nr_aliases)
		qsort(p->aliases, (size_t)p->nr_aliases, sizeof(*p->aliases),
		      cmp_alias);
	return 0;
nomem:
	closedir(dir);
	return -ENOMEM;
}

static void load_cpus(struct pk_pmu *p)
{
	static const char *const files[] = { "cpumask", "cpus" };
	char path[4096], *text;

	for (size_t i = 0; i < PK_ARRAY_SIZE(files); i++) {
		if (devices_path(path, sizeof(path), p->name, files[i]) ||
		    pk__read_file(path, &text) < 0)
			continue;
		p->cpus = trimmed(text);
		return;
	}
}

int pk__pmu_load(struct pk_pmu *p)
{
	int err;

	if (p->loaded)
		return 0;
	err = load_formats(p);
	if (!err)
		err = load_aliases(p);
	if (err)
		return err;
	load_cpus(p);
	p->loaded = true;
	if (!strcmp(p->name, "intel_pt"))
		p->has_default = !pk__pt_default_config(p, &p->default_config);
	return 0;
}

int pk__pmu_read_num(const struct pk_pmu *p, const char *rel, int base,
		     uint64_t *val)
{
	char path[4096], *text, *end;
	int err = devices_path(path, sizeof(path), p->name, rel);

	if (err)
		return err;
	if (pk__read_file(path, &text) < 0)
		return -errno;
	errno = 0;
	*val = strtoull(text, &end, base);
	err = end == text || errno ? -EINVAL : 0;
	pk__free(text);
	return err;
}

struct pk_pmu *pk__pmu_find(const char *name)
{
	struct pk_pmu *all = NULL;
	int n = pk__pmu_all(&all);

	for (int i = 0; i < n; i++)
		if (!strcmp(all[i].name, name))
			return pk__pmu_load(&all[i]) ? NULL : &all[i];
	return NULL;
}

struct pk_pmu *pk__pmu_by_type(uint32_t type)
{
	struct pk_pmu *all = NULL;
	int n = pk__pmu_all(&all);

	for (int i = 0; i < n; i++)
		if (all[i].type == type)
			return &all[i];
	return NULL;
}

const struct pk_pmu_format *pk__pmu_format(const struct pk_pmu *p,
					   const char *name)
{
	for (int i = 0; i < p->nr_formats; i++)
		if (!strcmp(p->formats[i].name, name))
			return &p->formats[i];
	return NULL;
}

const struct pk_pmu_alias *pk__pmu_alias(const struct pk_pmu *p,
					 const char *name)
{
	for (int i = 0; i < p->nr_aliases; i++)
		if (!strcasecmp(p->aliases[i].name, name))
			return &p->aliases[i];
	return NULL;
}

/*
 * The public PMU list (features.h) is this same list, so the event parser
 * and `perfkit list` never disagree about which PMUs exist; it follows the
 * PERFKIT_SYSFS root like the rest of the parser.
 */
static int pmus_public(struct pk_pmu **out)
{
	int n = pk__pmu_all(out);

	return n < 0 ? 0 : n;
}

int pk_pmu_nr(void)
{
	struct pk_pmu *p = NULL;

	return pmus_public(&p);
}

const char *pk_pmu_name(int idx)
{
	struct pk_pmu *p = NULL;

	return idx >= 0 && idx < pmus_public(&p) ? p[idx].name : NULL;
}

int pk_pmu_type(int idx)
{
	struct pk_pmu *p = NULL;

	if (idx < 0 || idx >= pmus_public(&p) || p[idx].type > INT32_MAX)
		return -EINVAL;
	return (int)p[idx].type;
}

int pk_pmu_dir_idx(int pos)
{
	struct pk_pmu *p = NULL;
	int n = pmus_public(&p);

	for (int i = 0; pos >= 0 && i < n; i++)
		if (p[i].dir_pos == pos)
			return i;
	return -EINVAL;
}

int pk_pmu_find(const char *name)
{
	struct pk_pmu *p = pk__pmu_find(name);

	if (!p || p->type > INT32_MAX)
		return -ENOENT;
	return (int)p->type;
}

/* One NULL-terminated array holding its N strings after the pointers. */
static char **str_array(char *const *s, int n)
{
	size_t len = (size_t)(n + 1) * sizeof(char *);
	char **a, *p;

	for (int i = 0; i < n; i++)
		len += strlen(s[i]) + 1;
	a = pk__malloc(len);	/* malloc's: the caller's free() */
	if (!a)
		return NULL;
	p = (char *)(a + n + 1);
	for (int i = 0; i < n; i++) {
		a[i] = strcpy(p, s[i]);
		p += strlen(s[i]) + 1;
	}
	a[n] = NULL;
	return a;
}

/* caps/NAME's first line into V[*N] (N[*N] its name). */
static int cap_read(const char *pmu, const char *name, char **nm, char **v,
		    int *n)
{
	char rel[300], path[4096], *text;
	int err;

	snprintf(rel, sizeof(rel), "caps/%s", name);
	err = devices_path(path, sizeof(path), pmu, rel);
	if (err || pk__read_file(path, &text) < 0)
		return 0;	/* unreadable: left out */
	text[strcspn(text, "\n")] = 0;
	nm[*n] = pk__strdup(name);
	if (!nm[*n]) {
		pk__free(text);
		return -ENOMEM;
	}
	v[*n] = text;
	(*n)++;
	return 0;
}

int pk_pmu_caps(int idx, char ***names, char ***values)
{
	char path[4096], *nm[256], *v[256];
	const char *pmu = pk_pmu_name(idx);
	struct dirent *d;
	int n = 0, err = 0;
	DIR *dir;

	if (!pmu || !names || !values)
		return -EINVAL;
	*names = *values = NULL;
	if (devices_path(path, sizeof(path), pmu, "caps"))
		return -EINVAL;
	dir = opendir(path);
	if (!dir)
		return 0;
	while (!err && n < 256 && (d = readdir(dir)) != NULL)
		if (d->d_name[0] != '.')
			err = cap_read(pmu, d->d_name, nm, v, &n);
	closedir(dir);
	if (!err && n) {
		*names = str_array(nm, n);
		*values = str_array(v, n);
		if (!*names || !*values) {
			free(*names);
			free(*values);
			*names = *values = NULL;
			err = -ENOMEM;
		}
	}
	for (int i = 0; i < n; i++) {
		pk__free(nm[i]);
		pk__free(v[i]);
	}
	return err ? err : n;
}
