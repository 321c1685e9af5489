/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd check-events: every event format of a tracefs given to
 * libtraceevent as trace-cmd 3.1 does (libtracefs's
 * tracefs_fill_local_events, read to learn it): the page header, each
 * system's formats, ftrace's last, then kallsyms, printk formats and saved
 * cmdlines. libtraceevent says itself what it cannot parse.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <event-parse.h>
#include <perfkit/ftrace.h>
#include "base/base.h"
#include "tracefmt/tep.h"
#include "tracefs/meta.h"

struct ck {
	struct tf_tep_fmt *f;
	int n, cap;
	char *texts[4];   /* header page, kallsyms, printk, cmdlines */
	long lens[4];
};

static int add(struct ck *c, const char *root, const char *sys,
	       const char *ev)
{
	char *s;
	long len = pk__tfmeta_format(root, sys, ev, &s);

	if (len <= 0)     /* no format file: not an event */
		return 0;
	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 512;
		struct tf_tep_fmt *f = pk__realloc(c->f, (size_t)cap *
						   sizeof(*f));
		if (!f) {
			pk__free(s);
			return -ENOMEM;
		}
		c->f = f;
		c->cap = cap;
	}
	c->f[c->n++] = (struct tf_tep_fmt){ s, (size_t)len, sys };
	return 0;
}

static int add_system(struct ck *c, const char *root, const char *sys)
{
	char **ev;
	int n = pk__tfmeta_list_unsorted(root, sys, &ev), r = 0;

	for (int i = 0; i < n && !r; i++)
		r = add(c, root, sys, ev[i]);
	pk__tfmeta_list_free(ev);
	return n < 0 ? 0 : r;
}

static bool has_enable(const char *root, const char *sys)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/events/%s/enable", root, sys);
	return !access(p, F_OK);
}

int pk_ftrace_check_events(const char *root, bool plugins, int loglevel)
{
	static const enum pk__tfmeta what[4] = {
		PK_TFMETA_HEADER_PAGE, PK_TFMETA_KALLSYMS, PK_TFMETA_PRINTK,
		PK_TFMETA_CMDLINES,
	};
	struct ck c = { 0 };
	struct tf_tep t = { 0 };
	char **sys = NULL;
	int n, e;

	for (int i = 0; i < 4; i++)
		c.lens[i] = pk__tfmeta_read(root, NULL, what[i], &c.texts[i]);
	if (c.lens[0] < 0) {
		e = (int)c.lens[0];
		goto out;
	}
	if ((n = pk__tfmeta_list_unsorted(root, NULL, &sys)) < 0) {
		e = n;
		goto out;
	}
	e = 0;
	/* systems: those with an enable file, ftrace (without one) last;
	 * libtraceevent's messages show errno, which trace-cmd leaves at
	 * what the look for ftrace's enable file set */
	for (int i = 0; i < n && !e; i++)
		if (has_enable(root, sys[i]) && strcmp(sys[i], "ftrace"))
			e = add_system(&c, root, sys[i]);
	if (!e)
		e = add_system(&c, root, "ftrace");
	struct tf_tep_src src = {
		.who = "check-events", .long_size = (int)sizeof(long),
		.big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
		.hdr_page = c.texts[0], .hdr_page_len = (size_t)c.lens[0],
		.fmts = c.f, .nr_fmts = c.n, .plugins = plugins,
		.kallsyms = c.texts[1], .printk = c.texts[2],
		.cmdlines = c.texts[3],
		.kallsyms_len = c.lens[1] > 0 ? (size_t)c.lens[1] : 0,
		.printk_len = c.lens[2] > 0 ? (size_t)c.lens[2] : 0,
		.cmdlines_len = c.lens[3] > 0 ? (size_t)c.lens[3] : 0,
	};
	if (loglevel >= 0)
		tep_set_loglevel((enum tep_loglevel)loglevel);
	if (!e)
		e = pk__tf_tep_init(&t, &src, NULL);
	if (!e)
		e = t.nr_failed;
	pk__tf_tep_fini(&t);
out:
	pk__tfmeta_list_free(sys);
	for (int i = 0; i < c.n; i++)
		pk__free((char *)c.f[i].text);
	pk__free(c.f);
	for (int i = 0; i < 4; i++)
		pk__free(c.texts[i]);
	return e;
}
