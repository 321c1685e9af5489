/* SPDX-License-Identifier: MIT */
/*
 * Dynamic events (kprobes, kretprobes, uprobes, uretprobes, event probes,
 * synthetic events) in the kernel's own syntax, each removed again at
 * restore; and the kernel's error_log line for a refused write.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <perfkit/tracefs.h>
#include "base/base.h"
#include "tracefs/tracefs.h"

static const char *const dyn_files[] = {
	"kprobe_events", "uprobe_events", "dynamic_events", "synthetic_events",
};

bool pk__tfs_is_dynevent_file(const char *b)
{
	for (size_t i = 0; i < PK_ARRAY_SIZE(dyn_files); i++)
		if (!strcmp(b, dyn_files[i]))
			return true;
	return false;
}

const char *pk_dynevent_kind_name(enum pk_dynevent_kind k)
{
	static const char *const n[] = {
		[PK_DYN_KPROBE] = "kprobe", [PK_DYN_KRETPROBE] = "kretprobe",
		[PK_DYN_UPROBE] = "uprobe", [PK_DYN_URETPROBE] = "uretprobe",
		[PK_DYN_EPROBE] = "eprobe", [PK_DYN_SYNTH] = "synthetic",
	};
	return (unsigned)k < PK_ARRAY_SIZE(n) ? n[k] : "?";
}

static const char *default_group(enum pk_dynevent_kind k)
{
	switch (k) {
	case PK_DYN_KPROBE: case PK_DYN_KRETPROBE: return "kprobes";
	case PK_DYN_UPROBE: case PK_DYN_URETPROBE: return "uprobes";
	case PK_DYN_EPROBE: return "eprobes";
	default: return "synthetic";
	}
}

/* Whether PLACE is a user-space place, PATH:OFFSET (a kernel module's
 * place is MOD:SYMBOL: no slash, no such file). */
static bool user_place(const char *place, size_t len)
{
	char buf[PATH_MAX];
	const char *c = memrchr(place, ':', len);

	if (!c || (size_t)(c - place) >= sizeof(buf))
		return false;
	snprintf(buf, sizeof(buf), "%.*s", (int)(c - place), place);
	return strchr(buf, '/') || access(buf, F_OK) == 0;
}

/* "[GROUP/]EVENT" of LEN bytes into D. */
static int set_name(struct pk_dynevent *d, const char *s, size_t len)
{
	const char *sl = memchr(s, '/', len);
	size_t gl = sl ? (size_t)(sl - s) : 0;
	const char *ev = sl ? sl + 1 : s;
	size_t el = len - (size_t)(ev - s);

	if (gl >= sizeof(d->group) || el >= sizeof(d->event))
		return -EINVAL;
	if (sl)
		snprintf(d->group, sizeof(d->group), "%.*s", (int)gl, s);
	snprintf(d->event, sizeof(d->event), "%.*s", (int)el, ev);
	return 0;
}

int pk_dynevent_parse(const char *def, struct pk_dynevent *d)
{
	const char *s = def, *name = NULL, *place;
	size_t nl = 0, pl;
	char c;

	memset(d, 0, sizeof(*d));
	while (isspace((unsigned char)*s))
		s++;
	c = *s;
	const char *after = s + 1;
	if (c == 'r')
		while (isdigit((unsigned char)*after))   /* maxactive */
			after++;
	if (!strchr("prse", c) || !c || (*after != ':' && *after != ' ' &&
					  *after != '\t')) {
		/* synthetic_events' syntax: NAME FIELD[; FIELD...] */
		size_t n = strcspn(s, " \t");
		if (!n || strchr("-!", *s) || n >= sizeof(d->event))
			return -EINVAL;
		d->kind = PK_DYN_SYNTH;
		snprintf(d->event, sizeof(d->event), "%.*s", (int)n, s);
		snprintf(d->group, sizeof(d->group), "synthetic");
		snprintf(d->file, sizeof(d->file), "synthetic_events");
		return 0;
	}
	if (*after == ':') {
		name = after + 1;
		nl = strcspn(name, " \t");
	}
	place = (name ? name + nl : after);
	place += strspn(place, " \t");
	pl = strcspn(place, " \t");
	if (!pl)
		return -EINVAL;
	switch (c) {
	case 'e':
		d->kind = PK_DYN_EPROBE;
		break;
	case 's':
		d->kind = PK_DYN_SYNTH;
		break;
	default:
		if (user_place(place, pl)) {
			bool ret = c == 'r' || (pl > 7 && !memcmp(place + pl - 7,
							     "%return", 7));
			d->kind = ret ? PK_DYN_URETPROBE : PK_DYN_UPROBE;
		} else {
			bool ret = c == 'r' || memmem(place, pl, "%return", 7);
			d->kind = ret ? PK_DYN_KRETPROBE : PK_DYN_KPROBE;
		}
	}
	if (name && nl && set_name(d, name, nl))
		return -EINVAL;
	if (d->kind == PK_DYN_SYNTH && !*d->event)
		return -EINVAL;
	if (!*d->group)
		snprintf(d->group, sizeof(d->group), "%s",
			 default_group(d->kind));
	snprintf(d->file, sizeof(d->file), "%s",
		 d->kind == PK_DYN_KPROBE || d->kind == PK_DYN_KRETPROBE ?
		 "kprobe_events" : d->kind == PK_DYN_UPROBE ||
		 d->kind == PK_DYN_URETPROBE ? "uprobe_events" :
		 "dynamic_events");
	return 0;
}

/* The lines of FILE now ("" when unreadable). */
static char *list_of(struct pk_tracefs *t, const char *file)
{
	char *s = NULL;
	if (pk_tracefs_read(t, NULL, file, &s) < 0)
		s = strdup("");
	return s;
}

/* The first line of AFTER that BEFORE lacks: the event the kernel made
 * (with the name it chose), into D. */
static void learn_name(struct pk_dynevent *d, const char *before, char *after)
{
	for (char *ln = strtok(after, "\n"); ln; ln = strtok(NULL, "\n")) {
		size_t n = strlen(ln);
		const char *p = before;
		bool old = false;
		while ((p = strstr(p, ln))) {
			if ((p == before || p[-1] == '\n') &&
			    (p[n] == '\n' || !p[n])) {
				old = true;
				break;
			}
			p += n;
		}
		if (old)
			continue;
		struct pk_dynevent k;
		if (!pk_dynevent_parse(ln, &k) && *k.event) {
			snprintf(d->group, sizeof(d->group), "%s", k.group);
			snprintf(d->event, sizeof(d->event), "%s", k.event);
		}
		return;
	}
}

int pk_tracefs_dynevent_add(struct pk_tracefs *t, const char *def,
			    struct pk_dynevent *out)
{
	struct pk_dynevent d;
	char p[PATH_MAX], undo[256], *before, *after;
	int e;

	if ((e = pk_dynevent_parse(def, &d)))
		return e;
	if (!pk_tracefs_has(t, NULL, d.file)) {
		if (d.kind == PK_DYN_SYNTH && pk_tracefs_has(t, NULL,
							     "dynamic_events"))
			return -EOPNOTSUPP;    /* "s:" form needed */
		if (!pk_tracefs_has(t, NULL, "dynamic_events") ||
		    !strcmp(d.file, "synthetic_events"))
			return -EOPNOTSUPP;
		snprintf(d.file, sizeof(d.file), "dynamic_events");
	}
	char *line = NULL;
	if (asprintf(&line, "%s\n", def) < 0)
		return -ENOMEM;
	before = list_of(t, d.file);
	e = pk_tracefs_append(t, NULL, d.file, line);
	free(line);
	after = e ? NULL : list_of(t, d.file);
	if (before && after)
		learn_name(&d, before, after);
	free(before);
	free(after);
	if (e)
		return e;
	if (!*d.event) {       /* cannot tell what to remove: remove it now */
		pk_warn("tracefs: dynamic event '%s': no name in %s", def,
			d.file);
		return -EINVAL;
	}
	if (!strcmp(d.file, "synthetic_events"))
		snprintf(undo, sizeof(undo), "!%s\n", d.event);
	else
		snprintf(undo, sizeof(undo), "-:%s/%s\n", d.group, d.event);
	if ((e = pk_tracefs_path(t, NULL, d.file, p, sizeof(p))) ||
	    (e = pk__tfs_push_undo(t, U_APPEND, p, undo)))
		return e;
	if (out)
		*out = d;
	return 0;
}

/* Collapses runs of blanks, trims both ends (in place). */
static char *squeeze(char *s)
{
	char *w = s, *r = s;
	while (isspace((unsigned char)*r))
		r++;
	for (; *r; r++)
		if (!isspace((unsigned char)*r) ||
		    (r[1] && !isspace((unsigned char)r[1])))
			*w++ = isspace((unsigned char)*r) ? ' ' : *r;
	*w = 0;
	return s;
}

void pk__tfs_note_error_log(struct pk_tracefs *t, const char *path,
			    const char *val)
{
	char el[PATH_MAX], *s, *want, *best = NULL;
	size_t dl = strlen(t->dir);
	const char *in;

	/* the error_log of the instance the file is in, else the top one */
	if (!strncmp(path, t->dir, dl) &&
	    !strncmp(path + dl, "/instances/", 11)) {
		in = path + dl + 11;
		snprintf(el, sizeof(el), "%s/instances/%.*s/error_log", t->dir,
			 (int)strcspn(in, "/"), in);
	} else {
		snprintf(el, sizeof(el), "%s/error_log", t->dir);
	}
	if (pk__read_file(el, &s) < 0)
		return;
	if (!(want = pk__strdup(val))) {
		pk__free(s);
		return;
	}
	squeeze(want);
	/* the last entry ("[ts] ...", "  Command: ...", "  ^") whose
	 * command is what was written */
	for (char *e = s; e && *e;) {
		char *next = strstr(e + 1, "\n[");
		char *cmd = strstr(e, "Command: ");
		if (*e == '\n')
			e++;
		if (cmd && (!next || cmd < next)) {
			size_t cl = strcspn(cmd + 9, "\n");
			char *c = pk__strndup(cmd + 9, cl);
			if (c && *squeeze(c) && *want &&
			    (strstr(want, c) || strstr(c, want)))
				best = e;
			pk__free(c);
		}
		e = next;
	}
	if (best) {
		char *end = strstr(best + 1, "\n[");
		size_t n = end ? (size_t)(end - best) : strlen(best);
		while (n && best[n - 1] == '\n')
			n--;
		t->errlog = pk__strndup(best, n);
	}
	pk__free(want);
	pk__free(s);
}

const char *pk_tracefs_error_log(const struct pk_tracefs *t)
{
	return t->errlog;
}
