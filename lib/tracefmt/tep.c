/* SPDX-License-Identifier: MIT */
/* The one libtraceevent set-up, with its crash guard (see tep.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <event-parse.h>
#include <trace-seq.h>
#include <perfkit/tracefmt.h>
#include "base/base.h"
#include "tracefmt/tep.h"

long pk__tf_format_id(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	for (; p + 4 < end; p++) {
		if ((p == text || p[-1] == '\n') && !memcmp(p, "ID: ", 4)) {
			long v = 0;
			for (p += 4; p < end && *p >= '0' && *p <= '9' &&
			     v < (1l << 40); p++)
				v = v * 10 + (*p - '0');
			return v;
		}
	}
	return -1;
}

/* ---- the crash guard ---- */

static void set_order(struct tep_handle *tep, const struct tf_tep_src *s)
{
	tep_set_file_bigendian(tep, s->big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, s->long_size);
}

static void child(const struct tf_tep_src *s, const bool *bad, int fd)
{
	struct tep_handle *tep = tep_alloc();
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0)
		dup2(null, 2);
	if (!tep)
		_exit(1);
	set_order(tep, s);
	for (int i = 0; i < s->nr_fmts; i++) {
		if (bad[i])
			continue;
		if (write(fd, &i, sizeof(i)) != sizeof(i))
			_exit(1);
		tep_parse_event(tep, s->fmts[i].text, s->fmts[i].len,
				s->fmts[i].system);
	}
	_exit(0);
}

/* One child run: 0 when it got through, 1 when it died (*LAST: the index
 * it died on), or a negative error. */
static int run_child(const struct tf_tep_src *s, const bool *bad, int *last)
{
	int p[2], st = 0, v;
	pid_t pid;

	*last = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = -errno;
		close(p[0]);
		close(p[1]);
		return e;
	}
	if (pid == 0) {
		close(p[0]);
		child(s, bad, p[1]);
	}
	close(p[1]);
	while (read(p[0], &v, sizeof(v)) == sizeof(v))
		*last = v;
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

/* Marks BAD[i] for each format that crashes the parser (the entries
 * already marked are left out). */
static int guard(const struct tf_tep_src *s, bool *bad)
{
	for (int attempt = 0; attempt < 32; attempt++) {
		int last, r = run_child(s, bad, &last);

		if (r <= 0)
			return r;
		if (last < 0 || last >= s->nr_fmts)
			return PK_ERR_INTERNAL;
		bad[last] = true;
		pk_warn("%s: event format %d (system '%s') is damaged; its "
			"events are not decoded", s->who, last,
			s->fmts[last].system);
	}
	pk_warn("%s: too many damaged event formats", s->who);
	return PK_ERR_FORMAT;
}

/* ---- set-up ---- */

int pk__tf_tep_parse(struct tf_tep *t, const struct tf_tep_src *s,
		 const bool *skip)
{
	bool *bad = pk__calloc((size_t)s->nr_fmts + 1, sizeof(bool));
	int e = 0;

	if (!bad)
		return -ENOMEM;
	for (int i = 0; i < s->nr_fmts; i++)
		bad[i] = t->parsed[i] || !s->fmts[i].text || (skip && skip[i]);
	if (s->untrusted)
		e = guard(s, bad);
	for (int i = 0; !e && i < s->nr_fmts; i++) {
		const struct tf_tep_fmt *f = &s->fmts[i];
		if (t->parsed[i] || !f->text || (skip && skip[i]))
			continue;
		t->parsed[i] = true;
		if (!bad[i] && tep_parse_event(t->tep, f->text, f->len,
					       f->system) && ++t->nr_failed)
			pk_debug("%s: cannot parse format %d of '%s'", s->who,
				 i, f->system);
	}
	pk__free(bad);
	return e;
}

/* "ADDR : "FMT"" lines as perf reads them (no unquoted format: the
 * parser reads before an empty one). TEXT is modified. */
static void perf_printk(struct tep_handle *tep, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':'), *fmt;
		size_t n;

		if (!colon)
			break;
		*colon = '\0';
		fmt = colon[1] ? colon + 2 : colon + 1;
		n = strlen(fmt);
		if (n < 2 || fmt[0] != '"' || fmt[n - 1] != '"')
			continue;
		tep_register_print_string(tep, fmt, strtoull(line, NULL, 16));
	}
}

/* "PID COMM" lines as perf reads them. TEXT is modified. */
static void perf_cmdlines(struct tep_handle *tep, char *text)
{
	char *save = NULL, comm[17];
	int pid;

	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%d %16s", &pid, comm) == 2)
			tep_register_comm(tep, comm, pid);
}

enum { KALLSYMS, PRINTK, CMDLINES };

/* A NUL-terminated copy of N bytes at P (embedded NULs kept). */
static char *cstr(const char *p, size_t n)
{
	char *c = pk__malloc(n + 1);

	if (c) {
		memcpy(c, p, n);
		c[n] = '\0';
	}
	return c;
}

/* Text KIND of S given to T (libtraceevent wants C strings). */
static int parse_text(struct tf_tep *t, const struct tf_tep_src *s, int kind)
{
	const char *p = kind == KALLSYMS ? s->kallsyms :
			kind == PRINTK ? s->printk : s->cmdlines;
	size_t n = kind == KALLSYMS ? s->kallsyms_len :
		   kind == PRINTK ? s->printk_len : s->cmdlines_len;
	char *c;

	if (!p || !n)
		return 0;
	if (!(c = cstr(p, n)))
		return -ENOMEM;
	if (kind == KALLSYMS)
		tep_parse_kallsyms(t->tep, c);
	else if (kind == PRINTK && s->perf_lines)
		perf_printk(t->tep, c);
	else if (kind == PRINTK)
		tep_parse_printk_formats(t->tep, c);
	else if (s->perf_lines)
		perf_cmdlines(t->tep, c);
	else
		tep_parse_saved_cmdlines(t->tep, c);
	pk__free(c);
	return 0;
}

int pk__tf_tep_cmdlines(struct tep_handle *tep, const char *text,
			size_t len)
{
	struct tf_tep t = { .tep = tep };
	struct tf_tep_src s = { .cmdlines = text, .cmdlines_len = len };

	return parse_text(&t, &s, CMDLINES);
}

int pk__tf_tep_init(struct tf_tep *t, const struct tf_tep_src *s,
		const bool *skip)
{
	char *hp;
	int e;

	memset(t, 0, sizeof(*t));
	t->parsed = pk__calloc((size_t)s->nr_fmts + 1, sizeof(bool));
	t->borrowed = s->into != NULL;
	t->tep = s->into ? s->into : tep_alloc();
	if (!t->parsed || !t->tep)
		return -ENOMEM;
	set_order(t->tep, s);
	if (s->page_size)
		tep_set_page_size(t->tep, (int)s->page_size);
	if (s->nr_cpus)
		tep_set_cpus(t->tep, s->nr_cpus);
	if (s->hdr_page) {
		if (!(hp = cstr(s->hdr_page, s->hdr_page_len)))
			return -ENOMEM;
		tep_parse_header_page(t->tep, hp, s->hdr_page_len,
				      s->long_size);
		pk__free(hp);
	}
	if (s->plugins)
		t->plugins = tep_load_plugins(t->tep);
	if ((e = pk__tf_tep_parse(t, s, skip)))
		return e;
	return pk__tf_tep_texts(t, s);
}

int pk__tf_tep_texts(struct tf_tep *t, const struct tf_tep_src *s)
{
	int e = 0;

	for (int k = KALLSYMS; !e && k <= CMDLINES; k++)
		e = parse_text(t, s, k);
	return e;
}

void pk__tf_tep_fini(struct tf_tep *t)
{
	if (t->tep) {
		if (t->plugins)
			tep_unload_plugins(t->plugins, t->tep);
		if (!t->borrowed)
			tep_free(t->tep);
	}
	pk__free(t->parsed);
	memset(t, 0, sizeof(*t));
}

/* trace-cmd's own function-graph options, which trace-cmd list -O shows
 * with libtraceevent's plugins' (trace-cmd registers them first). */
static struct tep_plugin_option fgraph_opts[] = {
	{ .name = "tailprint", .plugin_alias = "fgraph",
	  .description = "Print function name at function exit in "
			 "function graph" },
	{ .name = "depth", .plugin_alias = "fgraph",
	  .description = "Show the depth of each entry" },
	{ .name = NULL },
};

char *pk_tracefmt_plugins_text(bool options)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_plugin_list *list;
	struct trace_seq s;
	char *out = NULL;

	if (!tep)
		return NULL;
	if (options)
		tep_plugin_add_options("fgraph", fgraph_opts);
	trace_seq_init(&s);
	list = tep_load_plugins(tep);
	if (options)
		tep_plugin_print_options(&s);
	else
		tep_print_plugins(&s, "  ", "\n", list);
	if (s.state == TRACE_SEQ__GOOD)
		out = pk__strndup(s.buffer, s.len);
	trace_seq_destroy(&s);
	tep_unload_plugins(list, tep);
	if (options)
		tep_plugin_remove_options(fgraph_opts);
	tep_free(tep);
	return out;
}
