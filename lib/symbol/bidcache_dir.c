/* SPDX-License-Identifier: MIT */
/* Where perf's build-id cache is (buildid.dir in the perf config), and
 * this process's vdso, which perf caches for the recorded ones. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include "base/base.h"
#include <perfkit/bidcache.h>

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* LINE "[section]" or "key = value": updates SECT, or copies buildid.dir's
 * value into OUT. */
static void config_line(char *line, char *sect, size_t slen, char *out,
			size_t olen)
{
	char *s = trim(line), *eq, *v;
	size_t n;

	if (*s == '[') {
		n = strcspn(s + 1, "] \t\"");
		snprintf(sect, slen, "%.*s", (int)n, s + 1);
		return;
	}
	eq = strchr(s, '=');
	if (!eq || *s == '#' || *s == ';' || strcasecmp(sect, "buildid"))
		return;
	*eq = '\0';
	if (strcasecmp(trim(s), "dir"))
		return;
	v = trim(eq + 1);
	n = strlen(v);
	if (n >= 2 && v[0] == '"' && v[n - 1] == '"')
		v[n - 1] = '\0', v++;
	snprintf(out, olen, "%s", v);
}

static void config_file(const char *path, char *out, size_t len)
{
	char sect[64] = "", *text, *line, *save = NULL;

	if (pk__read_file(path, &text) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		config_line(line, sect, sizeof(sect), out, len);
	pk__free(text);
}

int pk_bidcache_dir(char *buf, size_t len)
{
	const char *home = getenv("HOME"), *cfg = getenv("PERF_CONFIG");
	const char *set = getenv("PERF_BUILDID_DIR");
	char user[4096], dir[4096] = "";

	if (set && *set) {
		snprintf(dir, sizeof(dir), "%s", set);
	} else if (cfg) {
		config_file(cfg, dir, sizeof(dir));
	} else {
		if (!getenv("PERF_CONFIG_NOSYSTEM"))
			config_file("/etc/perfconfig", dir, sizeof(dir));
		if (home) {
			snprintf(user, sizeof(user), "%s/.perfconfig", home);
			config_file(user, dir, sizeof(dir));
		}
	}
	if (!dir[0])
		snprintf(dir, sizeof(dir), "%s%s.debug", home ? home : "",
			 home ? "/" : "");
	if (strlen(dir) >= len)
		return -ENAMETOOLONG;
	memcpy(buf, dir, strlen(dir) + 1);
	return 0;
}

int pk_vdso_image(const void **image, size_t *size)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char *maps, *p;
	int err = -ENOENT;

	if (!base || pk__read_file("/proc/self/maps", &maps) < 0)
		return -ENOENT;
	for (p = maps; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long start, end;
		size_t n = strcspn(p, "\n");

		if (sscanf(p, "%lx-%lx", &start, &end) != 2 || start != base ||
		    n < 6 || strncmp(p + n - 6, "[vdso]", 6))
			continue;
		*image = (const void *)start;
		*size = end - start;
		err = 0;
		break;
	}
	pk__free(maps);
	return err;
}
