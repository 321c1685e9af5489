// SPDX-License-Identifier: MIT
/*
 * Flame graphs: the stacks of a pk_folded as a tree (a node per frame per
 * stack prefix, as wide as the counts under it; siblings in the stacks'
 * byte order), drawn as one SVG with its own script: hover details, click
 * to zoom, search with the matched share. Frames narrower than a tenth of
 * a pixel are left out, as they would not show.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/export.h>
#include "base/base.h"
#include "base/hash.h"

#define FRAME_H 16
#define FONT 12
#define FONT_W 0.59
#define XPAD 10
#define MIN_W 0.1

struct node {
	uint32_t name, len;     /* in the pool */
	uint64_t count;
	uint32_t kid, last, next;  /* first child, last child, sibling (0: none) */
	uint32_t depth;
};

struct tree {
	struct node *v;
	uint32_t n, cap;
	const char *pool;       /* names point into the stacks' text */
	uint32_t depth;         /* the deepest frame */
};

static void tree_fini(struct tree *t)
{
	pk__free(t->v);
}

static uint32_t node_new(struct tree *t, uint32_t parent, const char *name,
			 uint32_t len)
{
	struct node *nd;

	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 1024;
		struct node *v = pk__realloc(t->v, cap * sizeof(*v));

		if (!v)
			return 0;
		t->v = v;
		t->cap = cap;
	}
	nd = &t->v[t->n];
	memset(nd, 0, sizeof(*nd));
	nd->name = (uint32_t)(name - t->pool);
	nd->len = len;
	if (t->n) {
		struct node *p = &t->v[parent];

		nd->depth = p->depth + 1;
		if (p->last)
			t->v[p->last].next = t->n;
		else
			p->kid = t->n;
		p->last = t->n;
		if (nd->depth > t->depth)
			t->depth = nd->depth;
	}
	return t->n++;
}

/*
 * The tree of F's stacks under a root "all". Names point into one copy of
 * the stacks' text (*TEXT, the caller frees it). Sorted stacks meet a
 * sibling of the same name as the last child made. 0 or -ENOMEM.
 */
static int tree_build(struct pk_folded *f, struct tree *t, char **text)
{
	size_t total = 0, n = pk_folded_nr(f), off = 0;
	char *pool;

	for (size_t i = 0; i < n; i++) {
		const char *s = pk_folded_stack(f, i, NULL);

		if (!s)
			return -ENOMEM;
		total += strlen(s) + 1;
	}
	if (total > UINT32_MAX - 4 || !(pool = pk__malloc(total + 4)))
		return -ENOMEM;
	memcpy(pool, "all", 4);
	off = 4;
	t->pool = pool;
	*text = pool;
	if (!node_new(t, 0, pool, 3) && t->n != 1)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t c;
		const char *s = pk_folded_stack(f, i, &c);
		size_t len = strlen(s);
		uint32_t at = 0;
		char *p = pool + off;

		memcpy(p, s, len + 1);
		off += len + 1;
		t->v[0].count += c;
		for (char *q = p; q <= p + len;) {
			char *e = strchr(q, ';');
			uint32_t l = (uint32_t)((e ? e : p + len) - q);
			uint32_t k = t->v[at].last;

			if (!k || t->v[k].len != l ||
			    memcmp(pool + t->v[k].name, q, l)) {
				if (!(k = node_new(t, at, q, l)))
					return -ENOMEM;
			}
			t->v[k].count += c;
			at = k;
			if (!e)
				break;
			q = e + 1;
		}
	}
	return 0;
}

/* ---- the base of a differential graph: its nodes by parent and name ---- */

static uint64_t name_key(uint32_t parent, const char *s, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ parent;

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static int index_tree(const struct tree *t, struct pk__hash *idx)
{
	for (uint32_t i = 0; i < t->n; i++) {
		for (uint32_t k = t->v[i].kid; k; k = t->v[k].next) {
			const struct node *c = &t->v[k];
			uint64_t key = name_key(i, t->pool + c->name, c->len);

			for (;; key = key * 0x9e3779b97f4a7c15ull + 1) {
				bool added;
				uint64_t *v = pk__hash_put(idx, key, &added);

				if (!v)
					return -ENOMEM;
				if (added) {
					*v = k;
					break;
				}
			}
		}
	}
	return 0;
}

/* The base's node for the child NAME of base node PARENT, or 0. */
static uint32_t base_child(const struct tree *b, const struct pk__hash *idx,
			   uint32_t parent, const char *name, uint32_t len)
{
	uint64_t key = name_key(parent, name, len);

	for (;; key = key * 0x9e3779b97f4a7c15ull + 1) {
		uint64_t *v = pk__hash_get(idx, key);
		const struct node *c;

		if (!v)
			return 0;
		c = &b->v[*v];
		if (c->len == len && !memcmp(b->pool + c->name, name, len) &&
		    c->depth == b->v[parent].depth + 1) {
			/* (the parent: a child of PARENT is found by walking
			 * PARENT's list; the key mixes the parent in) */
			for (uint32_t k = b->v[parent].kid; k; k = b->v[k].next)
				if (k == *v)
					return k;
		}
	}
}

/* ---- drawing ---- */

static void put_esc(FILE *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", o); break;
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '"': fputs("&quot;", o); break;
		case '\'': fputs("&apos;", o); break;
		default:
			if ((unsigned char)s[i] < 0x20)
				fputc('?', o);
			else
				fputc(s[i], o);
		}
	}
}

enum kind { K_USER, K_KERNEL, K_JIT, K_INLINE, K_ROOT };

/* A frame's kind by its mark, and its name's length without the mark.
 * Colours: the rest warm (red to yellow), the kernel blue, JIT green,
 * inlined aqua; the root grey. */
static enum kind kind_of(const char *s, uint32_t *len)
{
	if (*len >= 4 && s[*len - 4] == '_' && s[*len - 3] == '[' &&
	    s[*len - 1] == ']') {
		char k = s[*len - 2];

		if (k == 'k' || k == 'j' || k == 'i') {
			*len -= 4;
			return k == 'k' ? K_KERNEL : k == 'j' ? K_JIT : K_INLINE;
		}
	}
	return K_USER;
}

/* A stable colour per name: its hash picks a place in the kind's range. */
static void colour(enum kind k, const char *s, uint32_t len, int rgb[3])
{
	uint64_t h = name_key(0, s, len);
	double v1 = (double)(h & 0xffff) / 65535.0;
	double v2 = (double)((h >> 16) & 0xffff) / 65535.0;
	double v3 = (double)((h >> 32) & 0xffff) / 65535.0;

	switch (k) {
	case K_KERNEL:          /* blue */
		rgb[0] = 90 + (int)(60 * v1);
		rgb[1] = 150 + (int)(50 * v2);
		rgb[2] = 215 + (int)(40 * v3);
		break;
	case K_JIT:             /* green */
		rgb[0] = 50 + (int)(60 * v1);
		rgb[1] = 180 + (int)(50 * v2);
		rgb[2] = 50 + (int)(60 * v3);
		break;
	case K_INLINE:          /* aqua */
		rgb[0] = 60 + (int)(50 * v1);
		rgb[1] = 195 + (int)(35 * v2);
		rgb[2] = 175 + (int)(35 * v3);
		break;
	case K_ROOT:
		rgb[0] = rgb[1] = rgb[2] = 200;
		break;
	default:                /* warm */
		rgb[0] = 205 + (int)(50 * v3);
		rgb[1] = (int)(230 * v1);
		rgb[2] = (int)(55 * v2);
		break;
	}
}

/* Red where the share grew from the base, blue where it shrank. */
static void delta_colour(double now, double before, double maxd, int rgb[3])
{
	double d = now - before;
	int c = maxd > 0 ? (int)lround(210 * fabs(d) / maxd) : 0;

	if (c > 210)
		c = 210;
	if (d > 0)
		rgb[0] = 255, rgb[1] = rgb[2] = 255 - c;
	else
		rgb[2] = 255, rgb[0] = rgb[1] = 255 - c;
}

struct draw {
	FILE *o;
	const struct tree *t;
	double scale;           /* pixels per count */
	unsigned width;
	int height, top;        /* the frames' area starts at TOP */
	bool inverted;
	const char *unit;
	/* differential */
	const struct tree *b;
	const struct pk__hash *bidx;
	uint32_t *bnode;        /* per node: the base's node, 0: none */
	double maxd;
};

static double share(uint64_t c, uint64_t total)
{
	return total ? (double)c * 100.0 / (double)total : 0;
}

static void frame_out(struct draw *d, uint32_t i, uint64_t x0)
{
	const struct node *nd = &d->t->v[i];
	const char *name = d->t->pool + nd->name;
	uint32_t len = nd->len;
	enum kind k = i ? kind_of(name, &len) : K_ROOT;
	double x = XPAD + (double)x0 * d->scale;
	double w = (double)nd->count * d->scale;
	int y = d->inverted ? d->top + (int)nd->depth * FRAME_H :
		d->height - FONT * 2 - 10 - ((int)nd->depth + 1) * FRAME_H;
	size_t fit = (size_t)(w / (FONT * FONT_W));
	int rgb[3];
	uint64_t total = d->t->v[0].count;

	if (d->b) {
		uint32_t bn = d->bnode[i];
		uint64_t btot = d->b->v[0].count;

		delta_colour(share(nd->count, total),
			     bn ? share(d->b->v[bn].count, btot) : 0, d->maxd,
			     rgb);
	} else {
		colour(k, name, len, rgb);
	}
	fprintf(d->o, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-w=\"%" PRIu64
		"\" data-d=\"%u\"><title>", x0, nd->count, nd->depth);
	put_esc(d->o, name, len);
	fprintf(d->o, " (%" PRIu64 " %s, %.2f%%", nd->count, d->unit,
		share(nd->count, total));
	if (d->b) {
		uint32_t bn = d->bnode[i];
		double before = bn ? share(d->b->v[bn].count,
					   d->b->v[0].count) : 0;

		fprintf(d->o, "; %+.2f%% from the base",
			share(nd->count, total) - before);
	}
	fprintf(d->o, ")</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
		"height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>"
		"<text x=\"%.1f\" y=\"%d\">", x, y, w, FRAME_H - 1,
		rgb[0], rgb[1], rgb[2], x + 3, y + FRAME_H - 5);
	if (fit >= 3) {
		if (len <= fit) {
			put_esc(d->o, name, len);
		} else {
			put_esc(d->o, name, fit - 2);
			fputs("..", d->o);
		}
	}
	fputs("</text></g>\n", d->o);
}

/* Every node wide enough, depth first, left to right. */
static int frames_out(struct draw *d)
{
	const struct tree *t = d->t;
	uint32_t *stack = pk__malloc(((size_t)t->n + 1) * sizeof(*stack));
	uint64_t *xs = pk__malloc(((size_t)t->n + 1) * sizeof(*xs));
	uint32_t sp = 0;

	if (!stack || !xs) {
		pk__free(stack);
		pk__free(xs);
		return -ENOMEM;
	}
	stack[sp] = 0;
	xs[sp++] = 0;
	while (sp) {
		uint32_t i = stack[--sp], first = sp;
		uint64_t off = xs[sp];

		frame_out(d, i, off);
		for (uint32_t k = t->v[i].kid; k; k = t->v[k].next) {
			if ((double)t->v[k].count * d->scale >= MIN_W) {
				stack[sp] = k;
				xs[sp++] = off;
			}
			off += t->v[k].count;
		}
		/* the leftmost child pops first */
		for (uint32_t a = first, z = sp; a + 1 < z; a++, z--) {
			uint32_t ts = stack[a];
			uint64_t tx = xs[a];

			stack[a] = stack[z - 1], xs[a] = xs[z - 1];
			stack[z - 1] = ts, xs[z - 1] = tx;
		}
	}
	pk__free(stack);
	pk__free(xs);
	return ferror(d->o) ? -EIO : 0;
}

/* The graph's own script: hover, zoom, search (no library, no network). */
static const char script[] =
"\"use strict\";\n"
"var W, XPAD = 10, FW = 7.08, TOTAL, frames, details, matched, unz;\n"
"var zx = 0, zw = 0, zd = 0;\n"
"function nameOf(g) {\n"
"  return g.querySelector(\"title\").textContent.replace(/ \\([^()]*\\)$/, \"\");\n"
"}\n"
"function fit(s, w) {\n"
"  var n = Math.floor(w / FW);\n"
"  if (n < 3) return \"\";\n"
"  return s.length <= n ? s : s.slice(0, n - 2) + \"..\";\n"
"}\n"
"function layout() {\n"
"  var scale = (W - 2 * XPAD) / zw;\n"
"  frames.forEach(function (g) {\n"
"    var x = +g.getAttribute(\"data-x\"), w = +g.getAttribute(\"data-w\");\n"
"    var d = +g.getAttribute(\"data-d\"), r = g.querySelector(\"rect\");\n"
"    var t = g.querySelector(\"text\"), nx, nw;\n"
"    if (d < zd && x <= zx && x + w >= zx + zw) {\n"
"      nx = XPAD; nw = W - 2 * XPAD; g.setAttribute(\"class\", \"f parent\");\n"
"    } else if (d >= zd && x >= zx && x + w <= zx + zw) {\n"
"      nx = XPAD + (x - zx) * scale; nw = w * scale;\n"
"      g.setAttribute(\"class\", \"f\");\n"
"    } else {\n"
"      g.style.display = \"none\"; return;\n"
"    }\n"
"    g.style.display = nw < 0.1 ? \"none\" : \"\";\n"
"    r.setAttribute(\"x\", nx.toFixed(1));\n"
"    r.setAttribute(\"width\", nw.toFixed(1));\n"
"    t.setAttribute(\"x\", (nx + 3).toFixed(1));\n"
"    t.textContent = fit(nameOf(g), nw);\n"
"  });\n"
"}\n"
"function zoom(g) {\n"
"  zx = +g.getAttribute(\"data-x\"); zw = +g.getAttribute(\"data-w\");\n"
"  zd = +g.getAttribute(\"data-d\");\n"
"  unz.style.opacity = \"1\";\n"
"  layout();\n"
"}\n"
"function unzoom() {\n"
"  zx = 0; zw = TOTAL; zd = 0; unz.style.opacity = \"0\"; layout();\n"
"}\n"
"function resetSearch() {\n"
"  frames.forEach(function (g) {\n"
"    var r = g.querySelector(\"rect\"), f = r.getAttribute(\"data-fill\");\n"
"    if (f) { r.setAttribute(\"fill\", f); r.removeAttribute(\"data-fill\"); }\n"
"  });\n"
"  matched.textContent = \" \";\n"
"}\n"
"function search(term) {\n"
"  var re, spans = [], sum = 0, end = -1;\n"
"  try { re = new RegExp(term); } catch (e) { matched.textContent = \"Bad expression\"; return; }\n"
"  resetSearch();\n"
"  frames.forEach(function (g) {\n"
"    if (+g.getAttribute(\"data-d\") === 0 || !re.test(nameOf(g))) return;\n"
"    var r = g.querySelector(\"rect\");\n"
"    r.setAttribute(\"data-fill\", r.getAttribute(\"fill\"));\n"
"    r.setAttribute(\"fill\", \"rgb(230,0,230)\");\n"
"    spans.push([+g.getAttribute(\"data-x\"), +g.getAttribute(\"data-w\")]);\n"
"  });\n"
"  spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
"  spans.forEach(function (s) {\n"
"    if (s[0] >= end) { sum += s[1]; end = s[0] + s[1]; }\n"
"    else if (s[0] + s[1] > end) { sum += s[0] + s[1] - end; end = s[0] + s[1]; }\n"
"  });\n"
"  matched.textContent = \"Matched: \" + (TOTAL ? sum * 100 / TOTAL : 0).toFixed(2) + \"%\";\n"
"}\n"
"function ask() {\n"
"  var t = prompt(\"Search for (a regular expression):\", \"\");\n"
"  if (t === null) return;\n"
"  if (t === \"\") resetSearch(); else search(t);\n"
"}\n"
"function init() {\n"
"  var svg = document.documentElement;\n"
"  W = +svg.getAttribute(\"width\"); TOTAL = +svg.getAttribute(\"data-total\");\n"
"  zw = TOTAL;\n"
"  frames = Array.prototype.slice.call(document.querySelectorAll(\"g.f\"));\n"
"  details = document.getElementById(\"details\");\n"
"  matched = document.getElementById(\"matched\");\n"
"  unz = document.getElementById(\"unzoom\");\n"
"  frames.forEach(function (g) {\n"
"    g.addEventListener(\"click\", function (e) { zoom(g); e.stopPropagation(); });\n"
"    g.addEventListener(\"mouseover\", function () {\n"
"      details.textContent = g.querySelector(\"title\").textContent;\n"
"    });\n"
"    g.addEventListener(\"mouseout\", function () { details.textContent = \" \"; });\n"
"  });\n"
"  unz.addEventListener(\"click\", unzoom);\n"
"  document.getElementById(\"search\").addEventListener(\"click\", ask);\n"
"  window.addEventListener(\"keydown\", function (e) {\n"
"    if (e.keyCode === 114 || ((e.ctrlKey || e.metaKey) && e.keyCode === 70)) {\n"
"      e.preventDefault(); ask();\n"
"    } else if (e.key === \"Escape\") { resetSearch(); unzoom(); }\n"
"  });\n"
"}\n"
"window.addEventListener(\"load\", init);\n";

/* The base's node of every node, and the largest change of share. */
static int diff_base(struct draw *d, const struct tree *t, const struct tree *b,
		     struct pk__hash *bidx)
{
	uint64_t tt = t->v[0].count, bt = b->v[0].count;

	if (index_tree(b, bidx) ||
	    !(d->bnode = pk__calloc(t->n + 1, sizeof(*d->bnode))))
		return -ENOMEM;
	/* a node comes after its parent: walk in creation order */
	for (uint32_t i = 0; i < t->n; i++) {
		for (uint32_t k = t->v[i].kid; k; k = t->v[k].next) {
			uint32_t bp = d->bnode[i];

			d->bnode[k] = i && !bp ? 0 :
				base_child(b, bidx, bp, t->pool + t->v[k].name,
					   t->v[k].len);
		}
	}
	for (uint32_t i = 1; i < t->n; i++) {
		double before = d->bnode[i] ?
			share(b->v[d->bnode[i]].count, bt) : 0;
		double delta = fabs(share(t->v[i].count, tt) - before);

		if (delta > d->maxd)
			d->maxd = delta;
	}
	return 0;
}

int pk_flame_svg(struct pk_folded *f, FILE *out, const struct pk_flame_opts *opts)
{
	PK_OPTS(pk_flame_opts, def);
	const struct pk_flame_opts *o = opts ? opts : &def;
	struct tree t = { 0 }, b = { 0 };
	struct pk__hash bidx = { 0 };
	struct draw d = { .o = out, .t = &t };
	char *text = NULL, *btext = NULL;
	const char *title;
	int err;

	if (!PK_OPTS_VALID(opts, pk_flame_opts))
		return -EINVAL;
	d.width = o->width ? o->width : 1200;
	if (d.width < 2 * XPAD + 10)
		return -EINVAL;
	d.inverted = o->inverted;
	d.unit = o->count_name ? o->count_name : "samples";
	title = o->title ? o->title : o->inverted ? "Icicle Graph" :
		"Flame Graph";
	err = tree_build(f, &t, &text);
	if (!err && o->base) {
		d.b = &b;
		d.bidx = &bidx;
		err = tree_build(o->base, &b, &btext);
		if (!err)
			err = diff_base(&d, &t, &b, &bidx);
	}
	if (err)
		goto out;
	d.scale = t.v[0].count ? (double)(d.width - 2 * XPAD) /
				 (double)t.v[0].count : 0;
	d.height = ((int)t.depth + 1) * FRAME_H + FONT * 3 + FONT * 2 + 10;
	d.top = FONT * 3;
	if (o->subtitle) {
		d.height += FONT + 4;
		d.top += FONT + 4;
	}
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%u\" height=\"%d\" viewBox=\"0 0 %u %d\" "
		"data-total=\"%" PRIu64 "\">\n", d.width, d.height, d.width,
		d.height, t.v[0].count);
	fputs("<style type=\"text/css\">\n"
	      "text { font-family: Verdana, sans-serif; font-size: 12px; "
	      "fill: rgb(0,0,0); }\n"
	      "g.f text { pointer-events: none; }\n"
	      "g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; "
	      "cursor: pointer; }\n"
	      "g.parent { opacity: 0.5; }\n"
	      "#title { font-size: 17px; text-anchor: middle; }\n"
	      "#search, #unzoom { cursor: pointer; }\n"
	      "#unzoom { opacity: 0; }\n"
	      "#matched { text-anchor: end; }\n"
	      "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n", out);
	fputs(script, out);
	fprintf(out, "]]></script>\n<rect x=\"0\" y=\"0\" width=\"%u\" "
		"height=\"%d\" fill=\"rgb(248,248,248)\"/>\n", d.width,
		d.height);
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"%d\">", d.width / 2,
		FONT * 2);
	put_esc(out, title, strlen(title));
	fputs("</text>\n", out);
	if (o->subtitle) {
		fprintf(out, "<text x=\"%u\" y=\"%d\" "
			"style=\"text-anchor: middle; fill: rgb(120,120,120)\">",
			d.width / 2, FONT * 3 + 2);
		put_esc(out, o->subtitle, strlen(o->subtitle));
		fputs("</text>\n", out);
	}
	fprintf(out, "<text id=\"unzoom\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%u\" y=\"%d\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%d\"> </text>\n",
		XPAD, FONT * 2, d.width - XPAD - 60, FONT * 2, XPAD,
		d.height - FONT / 2 - 4, d.width - XPAD, d.height - FONT / 2 - 4);
	err = frames_out(&d);
	if (!err && fputs("</svg>\n", out) < 0)
		err = -EIO;
out:
	tree_fini(&t);
	tree_fini(&b);
	pk__hash_fini(&bidx);
	pk__free(d.bnode);
	pk__free(text);
	pk__free(btext);
	return err ? err : ferror(out) ? -EIO : 0;
}
