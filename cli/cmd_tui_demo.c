/* SPDX-License-Identifier: MIT */
/*
 * perfkit tui-demo [-r MS] FILE: the browser (cli/tui.h) on a tree read
 * from a text file, for its tests; hidden (listed nowhere). report's
 * model takes its place. -r: read the file again every MS milliseconds
 * (top's refresh). The file:
 *
 *   # a comment
 *   title: TEXT           the first line of the screen
 *   header: TEXT          the column titles
 *   indent: N             columns per level before a child's mark
 *   TEXT[<TAB>DSO[<TAB>THREAD]]   a row; a line indented deeper than the
 *                         one before is its child, one indented like an
 *                         earlier row its sibling (spaces only)
 *
 * a on a row shows its text and its children's as plain lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "tui.h"

#define MAX_DEPTH 1000	/* the browser and node_free recurse */

struct node {
	char *text, *dso, *thread;
	int indent, depth;
	struct node *parent;
	struct node **kids;
	int n, cap;
};

static void node_free(struct node *n)
{
	if (!n)
		return;
	for (int i = 0; i < n->n; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->text);
	free(n);
}

static int add_kid(struct node *p, struct node *k)
{
	if (p->n == p->cap) {
		int cap = p->cap ? p->cap * 2 : 8;
		struct node **v = realloc(p->kids, (size_t)cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->kids = v;
		p->cap = cap;
	}
	p->kids[p->n++] = k;
	k->parent = p;
	k->depth = p->depth + 1;
	return 0;
}

/* The row of LINE (its text, then the tab-separated DSO and thread). */
static struct node *parse_row(const char *line, int indent)
{
	struct node *n = calloc(1, sizeof(*n));
	char *tab;

	if (!n || !(n->text = strdup(line + indent))) {
		free(n);
		return NULL;
	}
	n->indent = indent;
	tab = strchr(n->text, '\t');
	if (tab) {
		*tab = '\0';
		n->dso = tab + 1;
		tab = strchr(n->dso, '\t');
		if (tab) {
			*tab = '\0';
			n->thread = tab + 1;
		}
	}
	return n;
}

/* The parent of a row indented INDENT, after PREV: PREV when deeper,
 * else the parent of the earlier row indented the same; NULL when none
 * is. */
static struct node *parent_of(struct node *root, struct node *prev,
			      int indent)
{
	if (prev == root)
		return indent == 0 ? root : NULL;
	if (indent > prev->indent)
		return prev;
	for (; prev != root; prev = prev->parent)
		if (prev->indent == indent)
			return prev->parent;
	return NULL;
}

struct demo {
	struct node *root;
	char title[256], header[256];
	char step[16];		/* indent: the columns per level */
	const char *file;
	/* the browser's view (set_view), and the title with the number of
	 * top rows it shows when zoomed or filtered */
	char zoom[TUI_NR_ZOOMS][256], filter[128];
	char shown[320];
};

static int setting(char *to, size_t size, const char *line,
		   const char *key)
{
	size_t k = strlen(key);

	if (strncmp(line, key, k))
		return 0;
	snprintf(to, size, "%s", line + k + strspn(line + k, " "));
	return 1;
}

/* One line of the file: a comment, a setting or a row after PREV; FILE
 * names it in an error (NULL: no message). */
static int demo_line(struct demo *d, char *line, struct node **prev,
		     const char *file, int lineno)
{
	int indent = (int)strspn(line, " ");
	struct node *p, *n;

	line[strcspn(line, "\n")] = '\0';
	if (!line[indent] || line[indent] == '#')
		return 0;
	if (setting(d->title, sizeof(d->title), line, "title:") ||
	    setting(d->header, sizeof(d->header), line, "header:") ||
	    setting(d->step, sizeof(d->step), line, "indent:"))
		return 0;
	p = parent_of(d->root, *prev, indent);
	if (!p || p->depth >= MAX_DEPTH) {
		if (file)
			fprintf(stderr, "perfkit tui-demo: %s:%d: %s\n", file,
				lineno, p ? "rows nest deeper than 1000" :
				"the indentation matches no row above");
		return -EINVAL;
	}
	n = parse_row(line, indent);
	if (!n || add_kid(p, n) < 0) {
		node_free(n);
		return -ENOMEM;
	}
	*prev = n;
	return 0;
}

/* FILE into D; VERBOSE: the error on stderr (not while browsing). */
static int demo_read(struct demo *d, const char *file, bool verbose)
{
	FILE *f = fopen(file, "r");
	struct node *prev;
	char *line = NULL;
	size_t size = 0;
	int err = 0, lineno = 0;

	if (!f) {
		err = -errno;
		if (verbose)
			fprintf(stderr, "perfkit tui-demo: %s: %s\n", file,
				strerror(errno));
		return err;
	}
	d->root = prev = calloc(1, sizeof(*d->root));
	if (!d->root)
		err = -ENOMEM;
	while (!err && getline(&line, &size, f) >= 0)
		err = demo_line(d, line, &prev, verbose ? file : NULL,
				++lineno);
	free(line);
	fclose(f);
	if (err == -ENOMEM && verbose)
		fprintf(stderr, "perfkit tui-demo: %s: out of memory\n", file);
	return err;
}

static struct node *node_of(void *ctx, void *row)
{
	return row ? row : ((struct demo *)ctx)->root;
}

static int demo_nr(void *ctx, void *row)
{
	return node_of(ctx, row)->n;
}

static void *demo_child(void *ctx, void *row, int i)
{
	return node_of(ctx, row)->kids[i];
}

static void demo_text(void *ctx, void *row, char *buf, size_t size)
{
	snprintf(buf, size, "%s", node_of(ctx, row)->text);
}

static const char *demo_key(void *ctx, void *row, enum tui_zoom z)
{
	struct node *n = node_of(ctx, row);

	return z == TUI_ZOOM_DSO ? n->dso : n->thread;
}

static int demo_indent(void *ctx, void *row, int depth)
{
	(void)row;
	return depth * atoi(((struct demo *)ctx)->step);
}

/* a: the row and its children as lines. */
static int demo_annotate(void *ctx, void *row, struct tui *t)
{
	struct node *n = node_of(ctx, row);
	const char **lines = calloc((size_t)n->n + 1, sizeof(*lines));
	struct tui_lines l;
	char title[256];
	int ret;

	if (!lines)
		return -ENOMEM;
	lines[0] = n->text;
	for (int i = 0; i < n->n; i++)
		lines[i + 1] = n->kids[i]->text;
	snprintf(title, sizeof(title), "Annotate %s", n->text);
	tui_lines_init(&l, title, lines, n->n + 1);
	ret = tui_browse(t, &l.model);
	free(lines);
	return ret;
}

/* Whether top row N passes D's view (the browser's own test, redone
 * here to count). */
static bool demo_shows(const struct demo *d, const struct node *n)
{
	const char *keys[TUI_NR_ZOOMS] = { n->dso, n->thread };

	for (int z = 0; z < TUI_NR_ZOOMS; z++)
		if (d->zoom[z][0] && (!keys[z] || strcmp(keys[z], d->zoom[z])))
			return false;
	return strstr(n->text, d->filter) != NULL;
}

static void demo_title(struct demo *d)
{
	int k = 0;

	for (int i = 0; i < d->root->n; i++)
		k += demo_shows(d, d->root->kids[i]);
	if (k == d->root->n)
		snprintf(d->shown, sizeof(d->shown), "%s", d->title);
	else
		snprintf(d->shown, sizeof(d->shown), "%s (%d of %d shown)",
			 d->title, k, d->root->n);
}

static void demo_view(void *ctx, const struct tui_view *v)
{
	struct demo *d = ctx;

	for (int z = 0; z < TUI_NR_ZOOMS; z++)
		snprintf(d->zoom[z], sizeof(d->zoom[z]), "%s",
			 v->zoom[z] ? v->zoom[z] : "");
	snprintf(d->filter, sizeof(d->filter), "%s", v->filter);
	demo_title(d);
}

/* -r: the file again; the old tree stays when it cannot be read. */
static int demo_refresh(void *ctx)
{
	struct demo *d = ctx;
	struct node *old = d->root;
	int err;

	d->root = NULL;
	err = demo_read(d, d->file, false);
	if (err < 0) {
		node_free(d->root);
		d->root = old;
		return err;
	}
	node_free(old);
	demo_title(d);
	return 0;
}

static int demo_browse(struct demo *d, int refresh_ms)
{
	struct tui_model m = {
		.ctx = d, .title = d->shown,
		.header = d->header[0] ? d->header : NULL,
		.nr_children = demo_nr, .child = demo_child, .text = demo_text,
		.zoom_key = demo_key, .annotate = demo_annotate,
		.indent = d->step[0] ? demo_indent : NULL,
		.refresh = refresh_ms > 0 ? demo_refresh : NULL,
		.refresh_ms = refresh_ms, .set_view = demo_view,
	};
	struct tui *t = tui_open();
	int ret;

	if (!t) {
		fprintf(stderr, "perfkit tui-demo: %s\n", errno == ENOTTY ?
			"stdout is not a terminal" : strerror(errno));
		return 1;
	}
	ret = tui_browse(t, &m);
	tui_close(t);
	if (ret < 0)
		fprintf(stderr, "perfkit tui-demo: %s\n", strerror(-ret));
	return ret < 0;
}

int cmd_tui_demo(int argc, char **argv)
{
	struct demo d = { 0 };
	int ret, ms = 0;
	char *end = NULL;

	if (argc == 4 && !strcmp(argv[1], "-r"))
		ms = (int)strtol(argv[2], &end, 10);
	if ((argc != 2 && argc != 4) || (argc == 4 && (*end || ms <= 0))) {
		fprintf(stderr, "usage: perfkit tui-demo [-r MS] FILE\n");
		return 2;
	}
	d.file = argv[argc - 1];
	ret = demo_read(&d, d.file, true) < 0 ? 1 : demo_browse(&d, ms);
	node_free(d.root);
	return ret;
}
