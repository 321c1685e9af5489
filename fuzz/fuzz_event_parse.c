/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: pk_evlist_parse over arbitrary strings, against a fake
 * sysfs PMU tree (built once in /tmp) and the machine's tracefs. Checks:
 * no crash, no leak, an error has a sane caret, success returns the count
 * of events appended, and every attr prints.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <perfkit/event.h>
#include "event/pmu.h"

static void put(const char *root, const char *rel, const char *text)
{
	char p[512], *s;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char root[64];

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		return;
}

static void setup(void)
{
	const char *d = "bus/event_source/devices/";
	char rel[256];

	snprintf(root, sizeof(root), "/tmp/pk_fuzzsys.%d", (int)getpid());
	mkdir(root, 0755);
#define P(pmu, file, text) \
	(snprintf(rel, sizeof(rel), "%s%s/%s", d, pmu, file), \
	 put(root, rel, text))
	P("cpu", "type", "4\n");
	P("cpu", "cpus", "0-1\n");
	P("cpu", "format/event", "config:0-7\n");
	P("cpu", "format/umask", "config:8-15\n");
	P("cpu", "format/cmask", "config:24-31\n");
	P("cpu", "format/split", "config:32-35,40-43\n");
	P("cpu", "format/ldlat", "config1:0-15\n");
	P("cpu", "format/fc", "config2:0-63\n");
	P("cpu", "events/cpu-cycles", "event=0x3c\n");
	P("cpu", "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	P("cpu", "events/bad", "nosuch=1,=\n");
	P("cpu", "events/mem-stores", "event=0xcd,umask=?\n");
	P("cpu", "events/topdown-fetch-bubbles", "event=0x9c,umask=0x1\n");
	P("software", "type", "1\n");
	P("tracepoint", "type", "2\n");
	P("msr", "type", "9\n");
	P("msr", "format/event", "config:0-63\n");
	P("msr", "events/tsc", "event=0x00\n");
	P("uncore_imc_0", "type", "20\n");
	P("uncore_imc_0", "format/event", "config:0-7\n");
	P("uncore_imc_1", "type", "21\n");
	P("uncore_imc_1", "format/event", "config:0-7\n");
#undef P
	pk__event_set_roots(root, NULL);
	atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct pk_parse_error err;
	struct pk_evlist *l;
	char *s, buf[4096];
	int n;

	if (!ready) {
		setup();
		ready = 1;
	}
	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	l = pk_evlist_new();
	n = pk_evlist_parse(l, s, &err);
	if (n < 0) {
		if (pk_evlist_nr(l) != 0 || err.pos < -1 ||
		    err.pos > (int)strlen(s) || strchr(err.msg, '\n'))
			abort();
		pk_parse_error_snprintf(buf, sizeof(buf), s, &err);
	} else {
		if (n != pk_evlist_nr(l))
			abort();
		for (int i = 0; i < n; i++)
			pk_attr_snprintf(buf, sizeof(buf),
					 pk_evsel_attr(pk_evlist_evsel(l, i)));
	}
	pk_evlist_free(l);
	free(s);
	return 0;
}
