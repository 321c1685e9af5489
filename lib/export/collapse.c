// SPDX-License-Identifier: MIT
/*
 * perf script's text to collapsed stacks, by the rules of FlameGraph's
 * stackcollapse-perf.pl with its default options (and its --pid, --tid,
 * --kernel, --jit): a sample's header line names its process (the first
 * field up to the pid, spaces made '_') and, when it ends with the event,
 * its period (1 otherwise) and event (only the first event type seen
 * counts); its frame lines "ADDR FUNC (DSO)" are pushed leaf first; the
 * blank line after them adds the stack, root first under the process
 * name, with the period. Functions lose a "+0x..." offset, what follows
 * their first '(' (not "(anonymous namespace)"; not in Go's "pkg.(*T).M"
 * names), quotes, and have ';' made ':'; "[unknown]" takes the DSO's base
 * name in brackets. Each rule is that script's regular expression, matched
 * the way Perl matches it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/export.h>
#include "base/base.h"

struct buf {
	char *b;
	size_t len, cap;
};

struct pk_collapse {
	struct pk_folded *into;
	struct pk_collapse_opts o;
	struct buf line;        /* the line being read */
	struct buf pname;       /* the sample's process, "" before one */
	bool have_pname;
	struct buf stack;       /* frames as read, each NUL-ended */
	uint32_t *group;        /* where each frame line's functions start */
	uint32_t ngroup, capgroup;
	struct buf out;         /* the stack joined, root first */
	uint64_t period;
	char event[256];
	bool have_event;
	uint64_t skipped;
	int err;
};

static int put(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		char *nb;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (!(nb = pk__realloc(b->b, cap)))
			return -ENOMEM;
		b->b = nb;
		b->cap = cap;
	}
	memcpy(b->b + b->len, p, n);
	b->len += n;
	b->b[b->len] = '\0';
	return 0;
}

struct pk_collapse *pk_collapse_new(struct pk_folded *into,
				    const struct pk_collapse_opts *opts)
{
	struct pk_collapse *c;

	if (!into || !PK_OPTS_VALID(opts, pk_collapse_opts)) {
		errno = EINVAL;
		return NULL;
	}
	if (!(c = pk__zalloc(sizeof(*c)))) {
		errno = ENOMEM;
		return NULL;
	}
	c->into = into;
	if (opts)
		memcpy(&c->o, opts, opts->sz < sizeof(c->o) ? opts->sz :
		       sizeof(c->o));
	return c;
}

void pk_collapse_free(struct pk_collapse *c)
{
	if (!c)
		return;
	pk__free(c->line.b);
	pk__free(c->pname.b);
	pk__free(c->stack.b);
	pk__free(c->group);
	pk__free(c->out.b);
	pk__free(c);
}

const char *pk_collapse_event(const struct pk_collapse *c)
{
	return c->have_event ? c->event : "";
}

uint64_t pk_collapse_skipped(const struct pk_collapse *c)
{
	return c->skipped;
}

/* Perl's \s (space, \t, \n, \v, \f, \r) and \w (ASCII: no locale). */
static bool sp(char ch)
{
	return ch == ' ' || (ch >= '\t' && ch <= '\r');
}

static bool wd(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

static size_t span(const char *s, size_t n, bool (*cls)(char))
{
	size_t i = 0;

	while (i < n && cls(s[i]))
		i++;
	return i;
}

static bool dg(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool sl(char ch)
{
	return ch == '/';
}

/* Perl's truth of a captured string: not "" and not "0". */
static bool truthy(const char *s, size_t n)
{
	return n && !(n == 1 && s[0] == '0');
}

/* Digits to a count (Perl numifies; saturated). */
static uint64_t num(const char *s, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX :
		    v * 10 + (uint64_t)(s[i] - '0');
	return v;
}

/*
 * The header rule on L (N bytes): ^(\S.+?)\s+(\d+), any slashes, (\d+)*,
 * \s+ (the pid, then the tid when written "pid/tid"): the comm's end in *CE,
 * the pid and tid digits (*TN 0: none). Lazy: the first end that lets the
 * rest match; greedy digits and slashes match whenever anything does.
 */
static bool header(const char *l, size_t n, size_t *ce, size_t *p0,
		   size_t *pn, size_t *t0, size_t *tn)
{
	if (n < 2 || sp(l[0]) || l[0] == '\n')
		return false;
	for (size_t e = 2; e < n; e++) {
		size_t i = e, w, d1, s, d2;

		if (l[e - 1] == '\n')
			return false;	/* '.' stops at a newline */
		if (!(w = span(l + i, n - i, sp)))
			continue;
		i += w;
		if (!(d1 = span(l + i, n - i, dg)))
			continue;
		*p0 = i;
		*pn = d1;
		i += d1;
		s = span(l + i, n - i, sl);
		i += s;
		d2 = span(l + i, n - i, dg);
		if (!span(l + i + d2, n - i - d2, sp))
			continue;
		*ce = e;
		*t0 = i;
		*tn = d2;
		return true;
	}
	return false;
}

/* (\S+):\s*$ from T: one token ending in ':' then blanks to the end. */
static bool last_token(const char *l, size_t n, size_t t, size_t *tl)
{
	size_t k = t;

	while (k < n && !sp(l[k]))
		k++;
	if (k - t < 2 || l[k - 1] != ':' || span(l + k, n - k, sp) != n - k)
		return false;
	*tl = k - t - 1;
	return true;
}

/* /:\s*(\d+)*\s+(\S+):\s*$/: the leftmost ':' where it matches; the
 * period digits (*DN 0: none) and the event. */
static bool event_of(const char *l, size_t n, size_t *d0, size_t *dn,
		     size_t *e0, size_t *en)
{
	for (size_t p = 0; p < n; p++) {
		size_t q, w, r, d, t;

		if (l[p] != ':')
			continue;
		q = p + 1;
		w = span(l + q, n - q, sp);
		r = q + w;
		d = span(l + r, n - r, dg);
		if (d && span(l + r + d, n - r - d, sp)) {
			t = r + d + span(l + r + d, n - r - d, sp);
			if (last_token(l, n, t, en)) {
				*d0 = r, *dn = d, *e0 = t;
				return true;
			}
		}
		if (w && last_token(l, n, r, en)) {
			*d0 = r, *dn = 0, *e0 = r;
			return true;
		}
	}
	return false;
}

/*
 * /^\s*(\w+)\s*(.+) \((.*)\)/: a frame line. Perl's order: the longest
 * \w+, the longest \s*, then (.+) up to the last " (" that a ')' follows
 * and (.*) to the last ')'. The function in [*F0, *F1), the DSO in
 * [*M0, *M1).
 */
static bool frame(const char *l, size_t n, size_t *f0, size_t *f1,
		  size_t *m0, size_t *m1)
{
	size_t lead = span(l, n, sp), wmax = span(l + lead, n - lead, wd);

	if (memchr(l, '\n', n))
		return false;
	for (size_t wl = wmax; wl >= 1; wl--) {
		size_t a = lead + wl, smax = 0;

		while (a + smax < n && sp(l[a + smax]))
			smax++;
		for (size_t s = smax + 1; s-- > 0;) {
			size_t r = a + s, close = 0;
			bool have = false;

			/* the last ')' of the rest */
			for (size_t k = n; k > r; k--)
				if (l[k - 1] == ')') {
					close = k - 1;
					have = true;
					break;
				}
			if (!have)
				return false;	/* no shorter prefix helps */
			/* the last " (" at r + 1 or later, before it */
			for (size_t i = close >= 2 ? close - 2 + 1 : 0;
			     i-- > r + 1;)
				if (l[i] == ' ' && l[i + 1] == '(') {
					*f0 = r, *f1 = i;
					*m0 = i + 2, *m1 = close;
					return true;
				}
		}
	}
	return false;
}

/* One function of a frame, tidied as stackcollapse-perf.pl does, onto
 * the stack. INLINED: one after the first of an "a->b" frame. */
static int push_func(struct pk_collapse *c, const char *f, size_t fl,
		     const char *mod, size_t ml, bool inlined)
{
	struct buf b = { 0 };
	int err;

	if (fl == 9 && !memcmp(f, "[unknown]", 9)) {
		if (!(ml == 9 && !memcmp(mod, "[unknown]", 9))) {
			const char *base = mod;

			for (size_t i = 0; i < ml; i++)
				if (mod[i] == '/')
					base = mod + i + 1;
			err = put(&b, "[", 1);
			if (!err)
				err = put(&b, base, (size_t)(mod + ml - base));
			if (!err)
				err = put(&b, "]", 1);
		} else {
			err = put(&b, "[unknown]", 9);
		}
	} else {
		err = put(&b, f, fl);
	}
	if (err)
		goto out;
	for (size_t i = 0; i < b.len; i++)
		if (b.b[i] == ';')
			b.b[i] = ':';
	/* unless it looks like a Go method (/\.\(.*\)\./), cut at the first
	 * '(' that does not open "(anonymous namespace)" */
	{
		bool go = false;

		for (size_t i = 0; i + 1 < b.len && !go; i++) {
			if (b.b[i] != '.' || b.b[i + 1] != '(')
				continue;
			for (size_t j = i + 2; j + 1 < b.len && !go; j++)
				go = b.b[j] == ')' && b.b[j + 1] == '.';
		}
		for (size_t i = 0; !go && i < b.len; i++)
			if (b.b[i] == '(' &&
			    !(b.len - i - 1 >= 20 &&
			      !memcmp(b.b + i + 1, "anonymous namespace)", 20))) {
				b.len = i;
				break;
			}
	}
	{
		size_t k = 0;

		for (size_t i = 0; i < b.len; i++)
			if (b.b[i] != '"' && b.b[i] != '\'')
				b.b[k++] = b.b[i];
		b.len = k;
	}
	/* Java: "Lorg/..." loses its L */
	if (c->pname.len >= 4 && !memcmp(c->pname.b, "java", 4) && b.len &&
	    b.b[0] == 'L' && memchr(b.b, '/', b.len)) {
		memmove(b.b, b.b + 1, b.len - 1);
		b.len--;
	}
	if (inlined) {
		if (!memmem(b.b, b.len, "_[i]", 4))
			err = put(&b, "_[i]", 4);
	} else if (c->o.kinds && ml && (mod[0] == '[' || (ml >= 7 &&
		   !memcmp(mod + ml - 7, "vmlinux", 7))) &&
		   !memmem(mod, ml, "unknown", 7)) {
		err = put(&b, "_[k]", 4);
	} else if (c->o.kinds && ml == 7 && !memcmp(mod, "inlined", 7)) {
		err = put(&b, "_[i]", 4);
	} else if (c->o.kinds && ml) {
		/* a JIT map: /tmp/perf-PID.map */
		const char *m = memmem(mod, ml, "/tmp/perf-", 10);
		size_t i = m ? (size_t)(m - mod) + 10 : ml, d = 0;

		while (i + d < ml && dg(mod[i + d]))
			d++;
		if (m && d && i + d + 4 <= ml &&
		    !memcmp(mod + i + d, ".map", 4) &&
		    !memmem(b.b, b.len, "_[j]", 4))
			err = put(&b, "_[j]", 4);
	}
	if (!err)
		err = put(&c->stack, b.b ? b.b : "", b.len);
	if (!err)
		err = put(&c->stack, "", 1);	/* its NUL */
out:
	pk__free(b.b);
	return err;
}

/* A frame line: its functions ("a->b": b inlined in a) onto the stack as
 * one group. */
static int on_frame(struct pk_collapse *c, const char *l, size_t n)
{
	size_t f0, f1, m0, m1, fl, k, cut[65], nc = 0;
	const char *f;
	int err = 0;

	if (!c->have_pname || !frame(l, n, &f0, &f1, &m0, &m1))
		return 0;
	f = l + f0;
	fl = f1 - f0;
	/* s/\+0x[\da-f]+$// */
	for (k = fl; k > 0 && (dg(f[k - 1]) || (f[k - 1] >= 'a' &&
					      f[k - 1] <= 'f')); k--)
		;
	if (k < fl && k >= 3 && !memcmp(f + k - 3, "+0x", 3))
		fl = k - 3;
	if (fl && f[0] == '(')
		return 0;	/* process names */
	if (c->ngroup == c->capgroup) {
		uint32_t cap = c->capgroup ? c->capgroup * 2 : 64;
		uint32_t *g = pk__realloc(c->group, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		c->group = g;
		c->capgroup = cap;
	}
	c->group[c->ngroup++] = (uint32_t)c->stack.len;
	/* split /->/ (Perl drops the empty fields at the end) */
	cut[nc++] = 0;
	for (size_t i = 0; i + 1 < fl && nc < 64; i++)
		if (f[i] == '-' && f[i + 1] == '>')
			cut[nc++] = i + 2, i++;
	cut[nc] = fl + 2;
	while (nc > 0 && cut[nc] - 2 == cut[nc - 1])
		nc--;	/* an empty last field */
	for (size_t g = 0; g < nc && !err; g++)
		err = push_func(c, f + cut[g], cut[g + 1] - 2 - cut[g],
				l + m0, m1 - m0, g > 0);
	return err;
}

/* The blank line after a sample: its stack, root first under the process
 * name. */
static int on_blank(struct pk_collapse *c)
{
	int err;

	if (!c->have_pname || !truthy(c->pname.b, c->pname.len))
		return 0;
	c->out.len = 0;
	err = put(&c->out, c->pname.b, c->pname.len);
	for (uint32_t g = c->ngroup; g-- > 0 && !err;) {
		size_t end = g + 1 < c->ngroup ? c->group[g + 1] :
			     c->stack.len;

		for (size_t p = c->group[g]; p < end && !err;) {
			size_t len = strlen(c->stack.b + p);

			err = put(&c->out, ";", 1);
			if (!err)
				err = put(&c->out, c->stack.b + p, len);
			p += len + 1;
		}
	}
	if (!err)
		err = pk_folded_add(c->into, c->out.b, c->out.len, c->period);
	if (err == -EINVAL)
		err = 0;
	c->stack.len = 0;
	c->ngroup = 0;
	c->have_pname = false;
	c->pname.len = 0;
	return err;
}

static int on_header(struct pk_collapse *c, const char *l, size_t n,
		     size_t ce, size_t p0, size_t pn, size_t t0, size_t tn)
{
	size_t d0, dn, e0, en;
	const char *pid = l + p0, *tid = l + t0;
	size_t pl = pn, tl = tn;
	int err;

	if (!truthy(tid, tl)) {
		tid = pid, tl = pl;
		pid = "?", pl = 1;
	}
	bool counted = false;

	if (event_of(l, n, &d0, &dn, &e0, &en)) {
		if (!c->have_event) {
			size_t k = en < sizeof(c->event) - 1 ? en :
				   sizeof(c->event) - 1;

			memcpy(c->event, l + e0, k);
			c->event[k] = '\0';
			c->have_event = true;
		} else if (strlen(c->event) != en ||
			   memcmp(c->event, l + e0, en)) {
			c->skipped++;
			return 0;	/* another event type */
		}
		if ((counted = truthy(l + d0, dn)))
			c->period = num(l + d0, dn);
	}
	if (!counted)	/* Perl: not $period */
		c->period = 1;
	c->pname.len = 0;
	err = put(&c->pname, l, ce);
	if (!err && (c->o.tid || c->o.pid)) {
		err = put(&c->pname, "-", 1);
		if (!err)
			err = put(&c->pname, pid, pl);
		if (!err && c->o.tid)
			err = put(&c->pname, "/", 1);
		if (!err && c->o.tid)
			err = put(&c->pname, tid, tl);
	}
	for (size_t i = 0; !err && i < c->pname.len; i++)
		if (c->pname.b[i] == ' ')
			c->pname.b[i] = '_';
	c->have_pname = !err;
	return err;
}

static int on_line(struct pk_collapse *c, const char *l, size_t n)
{
	size_t ce, p0, pn, t0, tn;

	if (n && l[0] == '#')
		return 0;
	if (!n)
		return on_blank(c);
	if (header(l, n, &ce, &p0, &pn, &t0, &tn))
		return on_header(c, l, n, ce, p0, pn, t0, tn);
	return on_frame(c, l, n);
}

int pk_collapse_feed(struct pk_collapse *c, const char *buf, size_t len)
{
	const char *end = buf + len;

	while (buf < end && !c->err) {
		const char *nl = memchr(buf, '\n', (size_t)(end - buf));
		size_t n = (size_t)((nl ? nl : end) - buf);

		if (!nl)	/* the rest waits for its newline */
			return c->err = put(&c->line, buf, n);
		if (c->line.len) {
			c->err = put(&c->line, buf, n);
			if (!c->err)
				c->err = on_line(c, c->line.b, c->line.len);
			c->line.len = 0;
		} else {
			c->err = on_line(c, buf, n);
		}
		buf = nl + 1;
	}
	return c->err;
}

int pk_collapse_end(struct pk_collapse *c)
{
	if (!c->err && c->line.len) {
		c->err = on_line(c, c->line.b, c->line.len);
		c->line.len = 0;
	}
	return c->err;
}
