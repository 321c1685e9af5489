/* SPDX-License-Identifier: MIT */
/*
 * The tree-list browser (cli/tui.h): the rows shown are the model's top
 * rows that pass the zoom and the search filter, each followed by the
 * children of the expanded ones, depth first. Which rows are expanded is
 * a set of row pointers, so it outlives a filter or a zoom.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tui.h"

/* A set of pointers: open addressing, linear probing, tombstones. */
#define TOMB ((void *)1)
struct pset {
	void **slot;
	size_t cap, used;	/* used: live and tombstones */
};

static size_t pset_hash(const void *p, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 17) & (cap - 1);
}

static void **pset_find(const struct pset *s, const void *p)
{
	size_t i;

	if (!s->cap)
		return NULL;
	for (i = pset_hash(p, s->cap); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == p)
			return &s->slot[i];
	return NULL;
}

static bool pset_has(const struct pset *s, const void *p)
{
	return pset_find(s, p) != NULL;
}

static int pset_add(struct pset *s, void *p);

static int pset_grow(struct pset *s)
{
	struct pset n = { calloc(s->cap ? s->cap * 2 : 64, sizeof(void *)),
			  s->cap ? s->cap * 2 : 64, 0 };

	if (!n.slot)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slot[i] && s->slot[i] != TOMB)
			pset_add(&n, s->slot[i]);
	free(s->slot);
	*s = n;
	return 0;
}

static int pset_add(struct pset *s, void *p)
{
	size_t i;

	if (pset_has(s, p))
		return 0;
	if ((s->used + 1) * 2 > s->cap && pset_grow(s) < 0)
		return -ENOMEM;
	for (i = pset_hash(p, s->cap); s->slot[i] && s->slot[i] != TOMB;
	     i = (i + 1) & (s->cap - 1))
		;
	s->used += !s->slot[i];
	s->slot[i] = p;
	return 0;
}

static void pset_del(struct pset *s, const void *p)
{
	void **slot = pset_find(s, p);

	if (slot)
		*slot = TOMB;
}

static void pset_clear(struct pset *s)
{
	free(s->slot);
	memset(s, 0, sizeof(*s));
}

struct vrow {
	void *row;
	int depth;
};

struct browser {
	struct tui *t;
	const struct tui_model *m;
	struct vrow *v;		/* the rows shown */
	int n, cap;
	int sel, top;		/* selected row, first row on screen */
	bool armed;		/* a move key was pressed (nav_arms) */
	struct pset open;	/* expanded rows */
	char *zoom[TUI_NR_ZOOMS];
	char filter[128];
	char status[256];	/* a message for the next frame */
	bool nomem;
	bool view_changed;	/* zoom or filter: set_view before rebuild */
};

static int nr_kids(const struct browser *b, void *row)
{
	return b->m->nr_children(b->m->ctx, row);
}

static void *kid(const struct browser *b, void *row, int i)
{
	return b->m->child(b->m->ctx, row, i);
}

static void push(struct browser *b, void *row, int depth)
{
	if (b->n == b->cap) {
		int cap = b->cap ? b->cap * 2 : 256;
		struct vrow *v = realloc(b->v, (size_t)cap * sizeof(*v));

		if (!v) {
			b->nomem = true;
			return;
		}
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = (struct vrow){ row, depth };
}

static void push_tree(struct browser *b, void *row, int depth)
{
	int n;

	push(b, row, depth);
	if (!pset_has(&b->open, row))
		return;
	n = nr_kids(b, row);
	for (int i = 0; i < n; i++)
		push_tree(b, kid(b, row, i), depth + 1);
}

static bool text_has(const struct browser *b, void *row, const char *needle)
{
	char line[1024];

	b->m->text(b->m->ctx, row, line, sizeof(line));
	return strstr(line, needle) != NULL;
}

static bool shown(const struct browser *b, void *row)
{
	const struct tui_model *m = b->m;

	for (int z = 0; z < TUI_NR_ZOOMS; z++) {
		const char *k;

		if (!b->zoom[z])
			continue;
		k = m->zoom_key ? m->zoom_key(m->ctx, row, (enum tui_zoom)z)
				: NULL;
		if (!k || strcmp(k, b->zoom[z]))
			return false;
	}
	if (!b->filter[0])
		return true;
	return m->match ? m->match(m->ctx, row, b->filter)
			: text_has(b, row, b->filter);
}

/* The model told of a new zoom or filter. */
static void tell_view(struct browser *b)
{
	struct tui_view v = { .filter = b->filter };

	b->view_changed = false;
	if (!b->m->set_view)
		return;
	for (int z = 0; z < TUI_NR_ZOOMS; z++)
		v.zoom[z] = b->zoom[z];
	b->m->set_view(b->m->ctx, &v);
}

/* The top row the selected row is under. */
static void *selected_top(const struct browser *b)
{
	int i = b->sel;

	while (i > 0 && b->v[i].depth > 0)
		i--;
	return b->v[i].row;
}

static int find_row(const struct browser *b, const void *row)
{
	for (int i = 0; i < b->n; i++)
		if (b->v[i].row == row)
			return i;
	return -1;
}

/* The rows shown again, the selection kept on its row when it stays,
 * else on its top row (C collapsed it), else at its place. */
static void rebuild(struct browser *b)
{
	void *was = b->n ? b->v[b->sel].row : NULL;
	void *was_top = b->n ? selected_top(b) : NULL;
	int n, i;

	if (b->view_changed)
		tell_view(b);
	n = nr_kids(b, NULL);
	b->n = 0;
	for (i = 0; i < n; i++) {
		void *row = kid(b, NULL, i);

		if (shown(b, row))
			push_tree(b, row, 0);
	}
	i = find_row(b, was);
	if (i < 0)
		i = find_row(b, was_top);
	if (i >= 0)
		b->sel = i;
	else if (b->sel >= b->n)
		b->sel = b->n ? b->n - 1 : 0;
}

/* Lines for rows: the screen less the title, header and status lines. */
static int list_lines(const struct browser *b)
{
	int rows, cols, n;

	tui_size(b->t, &rows, &cols);
	n = rows - 2 - (b->m->header != NULL);
	return n > 1 ? n : 1;
}

static int first_list_line(const struct browser *b)
{
	return 1 + (b->m->header != NULL);
}

static void scroll(struct browser *b)
{
	int h = list_lines(b);

	if (b->sel < b->top)
		b->top = b->sel;
	if (b->sel >= b->top + h)
		b->top = b->sel - h + 1;
	if (b->top > b->n - h && !b->m->start_centered)
		b->top = b->n - h;
	if (b->top < 0)
		b->top = 0;
}

static const char *const zoom_names[TUI_NR_ZOOMS] = { "DSO", "Thread" };

static void draw_title(struct browser *b)
{
	char line[1024];
	int len = snprintf(line, sizeof(line), "%s",
			   b->m->title ? b->m->title : "");

	for (int z = 0; z < TUI_NR_ZOOMS; z++)
		if (b->zoom[z] && len >= 0 && (size_t)len < sizeof(line))
			len += snprintf(line + len, sizeof(line) - (size_t)len,
					", %s: %s", zoom_names[z], b->zoom[z]);
	tui_line(b->t, 0, line, false);
}

static void draw_row(struct browser *b, int y, const struct vrow *r,
		     bool selected)
{
	const struct tui_model *m = b->m;
	char text[1024], line[2048];
	char mark = ' ';
	int indent = m->indent ? m->indent(m->ctx, r->row, r->depth)
			       : r->depth * 2;

	if (nr_kids(b, r->row) > 0)
		mark = pset_has(&b->open, r->row) ? '-' : '+';
	indent = indent < 0 ? 0 : indent > 1000 ? 1000 : indent;
	if (m->no_marks && m->text_at) {
		struct tui_frame f = { (int)(r - b->v), b->top, list_lines(b),
				       b->sel };

		m->text_at(m->ctx, r->row, &f, text, sizeof(text));
	} else {
		m->text(m->ctx, r->row, text, sizeof(text));
	}
	if (m->no_marks)
		snprintf(line, sizeof(line), "%s", text);
	else
		snprintf(line, sizeof(line), "%*s%c %s", indent, "", mark,
			 text);
	tui_line(b->t, y, line, selected);
}

static const char default_status[] =
	"?: help  q: quit  Enter/+: expand  /: search  d/t: zoom  a: annotate";

/* A frame: title, header, rows, then PROMPT (when given) or the status. */
static int draw(struct browser *b, const char *prompt)
{
	int rows, cols, y = first_list_line(b), h = list_lines(b);

	tui_size(b->t, &rows, &cols);
	scroll(b);
	tui_begin(b->t);
	draw_title(b);
	if (b->m->header) {	/* over the text, past the marks */
		char line[1024];

		snprintf(line, sizeof(line), "%s%s", b->m->no_marks ? "" : "  ",
			 b->m->header);
		tui_line(b->t, 1, line, false);
	}
	for (int i = 0; i < h; i++) {
		int k = b->top + i;

		if (k < b->n)
			draw_row(b, y + i, &b->v[k], k == b->sel);
		else
			tui_line(b->t, y + i, "", false);
	}
	tui_line(b->t, rows - 1, prompt ? prompt :
		 b->status[0] ? b->status : b->m->status ? b->m->status :
		 default_status, true);
	b->status[0] = '\0';
	return tui_flush(b->t);
}

__attribute__((format(printf, 2, 3)))
static void set_status(struct browser *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->status, sizeof(b->status), fmt, ap);
	va_end(ap);
}

static void toggle(struct browser *b, void *row)
{
	if (pset_has(&b->open, row))
		pset_del(&b->open, row);
	else if (nr_kids(b, row) > 0 && pset_add(&b->open, row) < 0)
		b->nomem = true;
}

/* ROW and all below it expanded (OPEN) or collapsed. */
static void set_tree(struct browser *b, void *row, bool open)
{
	int n = nr_kids(b, row);

	if (n <= 0)
		return;
	if (!open)
		pset_del(&b->open, row);
	else if (pset_add(&b->open, row) < 0)
		b->nomem = true;
	for (int i = 0; i < n; i++)
		set_tree(b, kid(b, row, i), open);
}

static void expand_all(struct browser *b)
{
	int n = nr_kids(b, NULL);

	for (int i = 0; i < n && !b->nomem; i++)
		set_tree(b, kid(b, NULL, i), true);
}

static void zoom(struct browser *b, enum tui_zoom z)
{
	const struct tui_model *m = b->m;
	const char *k;

	b->view_changed = true;
	if (b->zoom[z]) {
		free(b->zoom[z]);
		b->zoom[z] = NULL;
		return;
	}
	k = b->n && m->zoom_key ? m->zoom_key(m->ctx, selected_top(b), z)
				: NULL;
	if (!k) {
		set_status(b, "no %s to zoom into here", zoom_names[z]);
		return;
	}
	b->zoom[z] = strdup(k);
	if (!b->zoom[z])
		b->nomem = true;
}

static bool zoomed(const struct browser *b)
{
	for (int z = 0; z < TUI_NR_ZOOMS; z++)
		if (b->zoom[z])
			return true;
	return false;
}

static void unzoom(struct browser *b)
{
	b->view_changed = true;
	for (int z = 0; z < TUI_NR_ZOOMS; z++) {
		free(b->zoom[z]);
		b->zoom[z] = NULL;
	}
}

/* The / prompt on the status line: Enter sets the filter, Esc or Ctrl-C
 * keeps the old one. */
static int search(struct browser *b)
{
	char text[sizeof(b->filter)] = "", prompt[sizeof(text) + 32];
	size_t len = 0;

	for (;;) {
		int key, err;

		snprintf(prompt, sizeof(prompt), "Search: %s_", text);
		err = draw(b, prompt);
		if (err < 0)
			return err;
		key = tui_key(b->t);
		if (key < TUI_KEY_NONE)
			return key;
		if (key == TUI_KEY_ENTER) {
			memcpy(b->filter, text, len + 1);
			b->view_changed = true;
			return 0;
		}
		if (key == TUI_KEY_ESC || key == TUI_KEY_CTRL_C)
			return 0;
		if (key == TUI_KEY_BACKSPACE && len)
			text[--len] = '\0';
		else if (key >= 0x20 && key < 0x7f && len + 1 < sizeof(text)) {
			text[len++] = (char)key;
			text[len] = '\0';
		}
	}
}

static const char *const help_lines[] = {
	"Up/Down, PgUp/PgDn, Home/End   move",
	"Enter or +    expand/collapse the selected entry",
	"Right/Left    expand/collapse it (Left: then its parent)",
	"e             expand/collapse all below the selected entry",
	"E             expand everything",
	"C             collapse everything",
	"/             filter entries by text (empty: all again)",
	"d             zoom into the selected entry's DSO (again: out)",
	"t             zoom into the selected entry's thread (again: out)",
	"a             annotate the selected entry",
	"Esc           zoom out; when not zoomed: leave",
	"? or h        this help",
	"q or Ctrl-C   leave",
};

static int help(struct browser *b)
{
	struct tui_lines l;

	tui_lines_init(&l, "Keys of the browser (q or Esc: back)", help_lines,
		       (int)(sizeof(help_lines) / sizeof(help_lines[0])));
	return tui_browse(b->t, &l.model);
}

static int annotate(struct browser *b)
{
	int err;

	if (!b->m->annotate || !b->n) {
		set_status(b, "annotate: not available here");
		return 0;
	}
	err = b->m->annotate(b->m->ctx, b->v[b->sel].row, b->t);
	if (err < 0 && err != -ENOMEM && err != -EIO)
		set_status(b, "annotate: %s", strerror(-err));
	return err < 0 && err != -ENOMEM && err != -EIO ? 0 : err;
}

static void move(struct browser *b, int key)
{
	int h = list_lines(b);

	switch (key) {
	case TUI_KEY_UP: b->sel--; break;
	case TUI_KEY_DOWN: b->sel++; break;
	case TUI_KEY_PGUP: b->sel -= h; b->top -= h; break;
	case TUI_KEY_PGDN: case ' ': b->sel += h; b->top += h; break;
	case TUI_KEY_HOME: b->sel = 0; break;
	case TUI_KEY_END: b->sel = b->n - 1; break;
	}
	if (b->sel >= b->n)
		b->sel = b->n - 1;
	if (b->sel < 0)
		b->sel = 0;
	if (b->top < 0)
		b->top = 0;
}

/* Right opens the selected row; Left closes it, or when it is closed
 * goes to its parent. */
static void left_right(struct browser *b, int key)
{
	void *row = b->v[b->sel].row;
	int i = b->sel;

	if (key == TUI_KEY_RIGHT) {
		if (!pset_has(&b->open, row))
			toggle(b, row);
	} else if (pset_has(&b->open, row)) {
		toggle(b, row);
	} else {
		while (i > 0 && b->v[i].depth >= b->v[b->sel].depth)
			i--;
		b->sel = b->v[i].depth < b->v[b->sel].depth ? i : b->sel;
	}
}

/* One key: 0 to go on, 1 to leave after Ctrl-C, 2 after q or Esc,
 * -errno. */
static int handle(struct browser *b, int key)
{
	/* perf's first move key only shows where the cursor is */
	if (b->m->nav_arms && !b->armed &&
	    (key == TUI_KEY_UP || key == TUI_KEY_DOWN || key == TUI_KEY_PGUP ||
	     key == TUI_KEY_PGDN || key == TUI_KEY_HOME ||
	     key == TUI_KEY_END || key == ' ')) {
		b->armed = true;
		return 0;
	}
	switch (key) {
	case 'q': return 2;
	case TUI_KEY_CTRL_C: return 1;
	case TUI_KEY_ESC:
		if (!zoomed(b) && !b->filter[0])
			return 2;
		if (zoomed(b))
			unzoom(b);
		else
			b->filter[0] = '\0';
		b->view_changed = true;
		break;
	case TUI_KEY_ENTER: case '+':
		if (b->n)
			toggle(b, b->v[b->sel].row);
		break;
	case TUI_KEY_LEFT: case TUI_KEY_RIGHT:
		if (b->n)
			left_right(b, key);
		break;
	case 'e':
		if (b->n)
			set_tree(b, b->v[b->sel].row,
				 !pset_has(&b->open, b->v[b->sel].row));
		break;
	case 'E': expand_all(b); break;
	case 'C': pset_clear(&b->open); break;
	case '/': return search(b);
	case 'd': zoom(b, TUI_ZOOM_DSO); break;
	case 't': zoom(b, TUI_ZOOM_THREAD); break;
	case 'a': return annotate(b);
	case '?': case 'h': return help(b);
	default: move(b, key); return 0;
	}
	return 0;
}

/* The expanded rows among ROW's children (NULL: the top rows) into TO. */
static void keep_open(struct browser *b, void *row, struct pset *to)
{
	int n = nr_kids(b, row);

	for (int i = 0; i < n && !b->nomem; i++) {
		void *k = kid(b, row, i);

		if (!pset_has(&b->open, k))
			continue;
		if (pset_add(to, k) < 0)
			b->nomem = true;
		keep_open(b, k, to);
	}
}

/* top's update: the rows may all be new; the expansion keeps the rows
 * still there, rebuild finds the selection's row or keeps its place. */
static int refresh(struct browser *b)
{
	struct pset open = { 0 };
	int err = b->m->refresh(b->m->ctx);

	if (err == -ENOMEM)
		return err;
	keep_open(b, NULL, &open);
	pset_clear(&b->open);
	b->open = open;
	if (err < 0)
		set_status(b, "refresh: %s", strerror(-err));
	return 0;
}

static void browser_fini(struct browser *b)
{
	unzoom(b);
	pset_clear(&b->open);
	free(b->v);
}

int tui_browse(struct tui *t, const struct tui_model *m)
{
	struct browser b = { .t = t, .m = m, .view_changed = true };
	int ret = 0;
	bool start = m->start_centered;

	while (ret == 0) {
		int key;

		rebuild(&b);
		if (start && b.n) {	/* perf: half its height above */
			int rows, cols;

			tui_size(t, &rows, &cols);
			b.sel = m->start_row < b.n ? m->start_row : b.n - 1;
			b.top = b.sel - (rows - 2) / 2;
			if (b.top < 0)
				b.top = 0;
			start = false;
		}
		if (b.nomem) {
			ret = -ENOMEM;
			break;
		}
		if (!b.n && b.filter[0])
			set_status(&b, "no entry matches '%s' (/ Enter: all)",
				   b.filter);
		ret = draw(&b, NULL);
		if (ret < 0)
			break;
		key = tui_key_wait(t, m->refresh ? m->refresh_ms : -1);
		if (key == TUI_KEY_TIMEOUT)
			ret = refresh(&b);
		else
			ret = key < TUI_KEY_NONE ? key : handle(&b, key);
	}
	browser_fini(&b);
	return ret == 2 ? 0 : ret;
}

/* tui_lines: the lines as top rows; a row is its index + 1 as a
 * pointer (never NULL, which is the root). */
static int lines_nr(void *ctx, void *row)
{
	return row ? 0 : ((struct tui_lines *)ctx)->n;
}

static void *lines_child(void *ctx, void *row, int i)
{
	(void)ctx;
	(void)row;
	return (void *)(uintptr_t)(i + 1);
}

static void lines_text(void *ctx, void *row, char *buf, size_t size)
{
	const struct tui_lines *l = ctx;

	snprintf(buf, size, "%s", l->lines[(uintptr_t)row - 1]);
}

void tui_lines_init(struct tui_lines *l, const char *title,
		    const char *const *lines, int n)
{
	memset(l, 0, sizeof(*l));
	l->lines = lines;
	l->n = n;
	l->model.ctx = l;
	l->model.title = title;
	l->model.nr_children = lines_nr;
	l->model.child = lines_child;
	l->model.text = lines_text;
}
