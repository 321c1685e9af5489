/* SPDX-License-Identifier: MIT */
/*
 * perfkit list: every event this machine knows, in perf list's layout;
 * events that cannot be opened here are marked so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

struct list_ctx {
	bool probe;         /* try to open each non-tracepoint event */
	bool raw;           /* --raw-dump: the names that open, one line */
	unsigned int shown;
	struct pk_cpu_map *cpus, *cpu0;
	struct pk_thread_map *self, *any;
};

/* Whether NAME opens on the calling thread, or else CPU-wide on the first
 * CPU (PMUs such as msr count only CPU-wide): 1 yes, 0 no. */
static int openable(struct list_ctx *c, const char *name)
{
	struct pk_evlist *l = pk_evlist_new();
	int ok = 0;

	if (l && pk_evlist_parse(l, name, NULL) > 0) {
		struct pk_evsel *e = pk_evlist_evsel(l, 0);

		ok = pk_evsel_open(e, c->cpus, c->self, NULL) == 0 ||
		     pk_evsel_open(e, c->cpu0, c->any, NULL) == 0;
	}
	pk_evlist_free(l);
	return ok;
}

static bool probed_class(enum pk_event_class cls)
{
	return cls == PK_EVCLASS_HARDWARE || cls == PK_EVCLASS_SOFTWARE ||
	       cls == PK_EVCLASS_HW_CACHE || cls == PK_EVCLASS_PMU_EVENT;
}

/* --raw-dump (the bash completion's word list, as perf's): the names
 * and aliases of the events that open here, space-separated. */
static int print_raw(struct list_ctx *c, const struct pk_event_info *i)
{
	if (i->cls == PK_EVCLASS_PMU_FORMAT || i->cls == PK_EVCLASS_SYNTAX ||
	    (c->probe && probed_class(i->cls) && !openable(c, i->name)))
		return 0;
	printf("%s%s", c->shown++ ? " " : "", i->name);
	if (i->alias)
		printf(" %s", i->alias);
	return 0;
}

static int print_one(const struct pk_event_info *i, void *arg)
{
	struct list_ctx *c = arg;
	char name[512];
	const char *mark = "";

	if (c->raw)
		return print_raw(c, i);
	if (i->alias)
		snprintf(name, sizeof(name), "%s OR %s", i->name, i->alias);
	else
		snprintf(name, sizeof(name), "%s", i->name);
	if (c->probe && probed_class(i->cls) && !openable(c, i->name))
		mark = " (not supported here)";
	if (i->encoding && i->cls == PK_EVCLASS_PMU_FORMAT)
		printf("  %-50s [%s: %s]%s\n", name, i->desc, i->encoding, mark);
	else
		printf("  %-50s [%s]%s\n", name, i->desc, mark);
	c->shown++;
	return 0;
}

static unsigned int class_of_word(const char *w)
{
	static const struct { const char *word; unsigned int cls; } words[] = {
		{ "hw", PK_EVCLASS_HARDWARE }, { "hardware", PK_EVCLASS_HARDWARE },
		{ "sw", PK_EVCLASS_SOFTWARE }, { "software", PK_EVCLASS_SOFTWARE },
		{ "cache", PK_EVCLASS_HW_CACHE }, { "hwcache", PK_EVCLASS_HW_CACHE },
		{ "tracepoint", PK_EVCLASS_TRACEPOINT },
		{ "pmu", PK_EVCLASS_PMU_EVENT | PK_EVCLASS_PMU_FORMAT },
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(w, words[i].word))
			return words[i].cls;
	return 0;
}

static const unsigned int order[] = {
	PK_EVCLASS_HARDWARE, PK_EVCLASS_SOFTWARE, PK_EVCLASS_HW_CACHE,
	PK_EVCLASS_PMU_EVENT, PK_EVCLASS_PMU_FORMAT, PK_EVCLASS_SYNTAX,
	PK_EVCLASS_TRACEPOINT,
};

static int list_classes(struct list_ctx *c, unsigned int classes,
			const char *glob)
{
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int n;

		if (!(classes & order[i]))
			continue;
		n = pk_event_foreach(order[i], glob, print_one, c);
		if (n < 0) {
			cli_error("list", "%s", pk_strerror(n));
			return -1;
		}
	}
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct list_ctx c = { .probe = true };
	int ret = 0, first = 1;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: perfkit list [--no-probe] [hw|sw|cache|tracepoint|pmu|GLOB]...\n"
		       "       perfkit list --raw-dump (names that open here, one line)\n");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--no-probe")) {
		c.probe = false;
		first = 2;
	} else if (argc > 1 && !strcmp(argv[1], "--raw-dump")) {
		c.raw = true;
		first = 2;
	}
	c.cpus = pk_cpu_map_new_any();
	c.self = pk_thread_map_new_array(1, (int[]){ 0 });
	c.any = pk_thread_map_new_any();
	c.cpu0 = pk_cpu_map_new(NULL);
	if (!c.cpus || !c.self || !c.any || !c.cpu0) {
		cli_error("list", "out of memory");
		return 1;
	}
	if (first >= argc)
		ret = list_classes(&c, PK_EVCLASS_ALL, NULL);
	for (int a = first; a < argc && !ret; a++) {
		unsigned int cls = class_of_word(argv[a]);

		ret = cls ? list_classes(&c, cls, NULL) :
			    list_classes(&c, PK_EVCLASS_ALL, argv[a]);
	}
	if (c.raw)
		putchar('\n');
	pk_cpu_map_put(c.cpus);
	pk_cpu_map_put(c.cpu0);
	pk_thread_map_put(c.self);
	pk_thread_map_put(c.any);
	return ret ? 1 : 0;
}
