/* SPDX-License-Identifier: MIT */
/* The tracefs metadata reader (lib/tracefs/meta.c) on a made-up tree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "base/base.h"
#include "tracefs/meta.h"
#include "test.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	pk__write_new_file(p, text, strlen(text), 0644);
}

static void make_tree(void)
{
	static const char *const dirs[] = {
		"events", "events/ftrace", "events/ftrace/function",
		"events/sched", "events/sched/sched_switch",
		"events/sched/sched_wakeup", "events/.hidden", "instances",
		"instances/one", "instances/one/events",
	};
	char p[256];

	for (size_t i = 0; i < PK_ARRAY_SIZE(dirs); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, dirs[i]);
		mkdir(p, 0755);
	}
	put("events/header_page", "page\n");
	put("saved_cmdlines", "1 init\n");
	put("instances/one/events/header_page", "page8k\n");
	put("events/enable", "0\n");
	put("events/sched/sched_switch/format", "name: sched_switch\n");
	put("trace_clock", "[local] global\n");
	put("instances/one/trace_clock", "local [mono]\n");
}

static void rm_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		t_fail("tfmeta_cleanup", "%s", cmd);
}

int main(void)
{
	char **v = NULL, *s = NULL, *c = NULL;
	int n;
	long r;

	snprintf(root, sizeof(root), "/tmp/pk-tfmeta-%d", (int)getpid());
	mkdir(root, 0755);
	make_tree();
	n = pk__tfmeta_list(root, NULL, false, &v);
	t_check(n == 2 && !strcmp(v[0], "ftrace") && !strcmp(v[1], "sched") &&
		!v[2], "tfmeta_systems", "n=%d", n);
	pk__tfmeta_list_free(v);
	n = pk__tfmeta_list(root, "sched", false, &v);
	t_check(n == 2 && !strcmp(v[0], "sched_switch") &&
		!strcmp(v[1], "sched_wakeup"), "tfmeta_events", "n=%d", n);
	pk__tfmeta_list_free(v);
	/* trace-cmd 3.1's order of saved formats: z to a */
	n = pk__tfmeta_list(root, "sched", true, &v);
	t_check(n == 2 && !strcmp(v[0], "sched_wakeup") &&
		!strcmp(v[1], "sched_switch"), "tfmeta_events_reverse",
		"n=%d", n);
	pk__tfmeta_list_free(v);
	t_check(pk__tfmeta_list(root, "nosuch", false, &v) == -ENOENT && !v,
		"tfmeta_no_system", "listed a missing system");
	r = pk__tfmeta_format(root, "sched", "sched_switch", &s);
	t_check(r == 19 && s && !strcmp(s, "name: sched_switch\n"),
		"tfmeta_format", "r=%ld", r);
	pk__free(s);
	r = pk__tfmeta_read(root, "one", PK_TFMETA_CLOCK, &c);
	t_check(r > 0 && !strcmp(c, "local [mono]\n"), "tfmeta_instance",
		"r=%ld", r);
	pk__free(c);
	r = pk__tfmeta_read(root, "one", PK_TFMETA_CMDLINES, &c);
	t_check(r == 7 && !strcmp(c, "1 init\n"), "tfmeta_top_level", "r=%ld", r);
	pk__free(c);
	/* an instance's own header_page (its sub-buffer size may differ) */
	r = pk__tfmeta_read(root, "one", PK_TFMETA_HEADER_PAGE, &c);
	t_check(r == 7 && !strcmp(c, "page8k\n"), "tfmeta_instance_header",
		"r=%ld", r);
	pk__free(c);
	t_check(pk__tfmeta_read(root, NULL, PK_TFMETA_TGIDS, &c) == -ENOENT &&
		!c, "tfmeta_missing", "read a missing file");
	rm_tree();
	return t_exit();
}
