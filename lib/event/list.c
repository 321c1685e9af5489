/* SPDX-License-Identifier: MIT */
/* pk_event_foreach (the tables behind `perfkit list`) and error text. */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "event/pmu.h"
#include "event/tables.h"
#include <perfkit/event.h>

struct walk {
	const char *glob;
	pk_event_fn fn;
	void *arg;
	int n;
};

static int visit(struct walk *w, const struct pk_event_info *in)
{
	if (w->glob && fnmatch(w->glob, in->name, 0) &&
	    (!in->alias || fnmatch(w->glob, in->alias, 0)))
		return 0;
	w->n++;
	return w->fn(in, w->arg);
}

static int walk_syms(struct walk *w, uint32_t type)
{
	for (int i = 0; i < pk__nr_sym_events; i++) {
		const struct pk_sym_event *s = &pk__sym_events[i];
		struct pk_event_info in = {
			.cls = type == PERF_TYPE_HARDWARE ? PK_EVCLASS_HARDWARE
							  : PK_EVCLASS_SOFTWARE,
			.name = s->name, .alias = s->alias,
			.desc = type == PERF_TYPE_HARDWARE ? "Hardware event"
							   : "Software event",
			.type = s->type, .config = s->config,
		};
		int r;

		if (s->type != type || s->tool)
			continue;
		r = visit(w, &in);
		if (r)
			return r;
	}
	return 0;
}

static int walk_tools(struct walk *w)
{
	for (int i = 0; i < pk__nr_sym_events; i++) {
		const struct pk_sym_event *s = &pk__sym_events[i];
		struct pk_event_info in = {
			.cls = PK_EVCLASS_TOOL, .name = s->name,
			.desc = "Tool event", .type = s->type,
			.config = s->config,
		};
		int r;

		if (!s->tool)
			continue;
		r = visit(w, &in);
		if (r)
			return r;
	}
	return 0;
}

static int walk_cache(struct walk *w)
{
	for (int t = 0; t < PERF_COUNT_HW_CACHE_MAX; t++)
		for (int op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!pk__cache_op_valid(t, op))
				continue;
			for (int res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX;
			     res++) {
				char name[96];
				struct pk_event_info in = {
					.cls = PK_EVCLASS_HW_CACHE,
					.name = name,
					.desc = "Hardware cache event",
					.type = PERF_TYPE_HW_CACHE,
					.config = (uint64_t)t |
						  (uint64_t)op << 8 |
						  (uint64_t)res << 16,
				};
				int r;

				if (res)
					snprintf(name, sizeof(name), "%s-%s-%s",
						 pk__cache_types[t][0],
						 pk__cache_ops[op][0],
						 pk__cache_results[res][0]);
				else
					snprintf(name, sizeof(name), "%s-%s",
						 pk__cache_types[t][0],
						 pk__cache_ops[op][1]);
				r = visit(w, &in);
				if (r)
					return r;
			}
		}
	return 0;
}

struct tp_names {
	char **v;
	long long *ids;
	int nr, cap;
};

static int tp_collect(const char *sys, const char *ev, long long id,
		      void *arg)
{
	struct tp_names *t = arg;
	char *s;

	if (t->nr == t->cap) {
		int cap = t->cap ? t->cap * 2 : 256;
		char **v = pk__realloc(t->v, (size_t)cap * sizeof(*v));
		long long *ids;

		if (!v)
			return -ENOMEM;
		t->v = v;
		ids = pk__realloc(t->ids, (size_t)cap * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		t->ids = ids;
		t->cap = cap;
	}
	s = pk__malloc(strlen(sys) + strlen(ev) + 2);
	if (!s)
		return -ENOMEM;
	sprintf(s, "%s:%s", sys, ev);
	t->ids[t->nr] = id;
	t->v[t->nr++] = s;
	return 0;
}

static int cmp_idx(const void *a, const void *b, void *names)
{
	char **v = names;

	return strcmp(v[*(const int *)a], v[*(const int *)b]);
}

static int walk_tracepoints(struct walk *w)
{
	struct tp_names t = { 0 };
	int *ord = NULL, r;

	if (!pk__tracefs())
		return 0;
	r = pk__tracepoint_glob("*", "*", tp_collect, &t);
	if (r >= 0 && t.nr) {
		ord = pk__calloc((size_t)t.nr, sizeof(*ord));
		if (!ord)
			r = -ENOMEM;
	}
	if (r >= 0) {
		r = 0;
		for (int i = 0; i < t.nr; i++)
			ord[i] = i;
		if (t.nr)
			qsort_r(ord, (size_t)t.nr, sizeof(*ord), cmp_idx, t.v);
		for (int i = 0; i < t.nr && !r; i++) {
			struct pk_event_info in = {
				.cls = PK_EVCLASS_TRACEPOINT,
				.name = t.v[ord[i]],
				.desc = "Tracepoint event",
				.type = PERF_TYPE_TRACEPOINT,
				.config = (uint64_t)t.ids[ord[i]],
			};

			r = visit(w, &in);
		}
	}
	for (int i = 0; i < t.nr; i++)
		pk__free(t.v[i]);
	pk__free(t.v);
	pk__free(t.ids);
	pk__free(ord);
	return r == -ENOENT ? 0 : r;
}

static int walk_pmu(struct walk *w, struct pk_pmu *p, unsigned int classes)
{
	char name[512], enc[64];
	int r = 0;

	if (pk__pmu_load(p))
		return 0;
	if ((classes & PK_EVCLASS_PMU_EVENT) && p->has_default) {
		/* perf lists a PMU with a default config as an event */
		struct pk_event_info in = {
			.cls = PK_EVCLASS_PMU_EVENT, .name = name,
			.pmu = p->name, .desc = "Kernel PMU event",
			.type = p->type, .config = p->default_config,
		};

		snprintf(name, sizeof(name), "%s//", p->name);
		r = visit(w, &in);
	}
	for (int i = 0; (classes & PK_EVCLASS_PMU_EVENT) && !r &&
			i < p->nr_aliases; i++) {
		struct pk_event_info in = {
			.cls = PK_EVCLASS_PMU_EVENT, .name = name,
			.alias = p->aliases[i].name, .pmu = p->name,
			.desc = "Kernel PMU event",
			.encoding = p->aliases[i].terms, .type = p->type,
		};

		snprintf(name, sizeof(name), "%s/%s/", p->name,
			 p->aliases[i].name);
		r = visit(w, &in);
	}
	for (int i = 0; (classes & PK_EVCLASS_PMU_FORMAT) && !r &&
			i < p->nr_formats; i++) {
		const struct pk_pmu_format *f = &p->formats[i];
		static const char *const fields[] = { "config", "config1",
						      "config2" };
		struct pk_event_info in = {
			.cls = PK_EVCLASS_PMU_FORMAT, .name = name,
			.pmu = p->name, .desc = "PMU format term",
			.encoding = enc, .type = p->type,
		};
		size_t n = (size_t)snprintf(enc, sizeof(enc), "%s:",
					    fields[f->field]);

		for (int b = 0; b < 64 && n < sizeof(enc); b++) {
			int e = b;

			if (!(f->mask & (1ULL << b)))
				continue;
			while (e < 63 && (f->mask & (1ULL << (e + 1))))
				e++;
			n += (size_t)(e > b ?
				snprintf(enc + n, sizeof(enc) - n, "%s%d-%d",
					 enc[n - 1] == ':' ? "" : ",", b, e) :
				snprintf(enc + n, sizeof(enc) - n, "%s%d",
					 enc[n - 1] == ':' ? "" : ",", b));
			b = e;
		}
		snprintf(name, sizeof(name), "%s/%s=N/", p->name, f->name);
		r = visit(w, &in);
	}
	return r;
}

static int walk_syntax(struct walk *w)
{
	static const struct pk_event_info rows[] = {
		{ PK_EVCLASS_SYNTAX, "rNNN", NULL, NULL,
		  "Raw event descriptor", NULL, PERF_TYPE_RAW, 0 },
		{ PK_EVCLASS_SYNTAX, "cpu/t1=v1[,t2=v2,t3 ...]/modifier", NULL,
		  NULL, "Raw event descriptor", NULL, 0, 0 },
		{ PK_EVCLASS_SYNTAX, "mem:<addr>[/len][:access]", NULL, NULL,
		  "Hardware breakpoint", NULL, PERF_TYPE_BREAKPOINT, 0 },
		{ PK_EVCLASS_SYNTAX, "TYPE:CONFIG", NULL, NULL,
		  "Numeric type and config", NULL, 0, 0 },
	};

	for (size_t i = 0; i < PK_ARRAY_SIZE(rows); i++) {
		int r = w->fn(&rows[i], w->arg);

		w->n++;
		if (r)
			return r;
	}
	return 0;
}

int pk_event_foreach(unsigned int classes, const char *glob, pk_event_fn fn,
		     void *arg)
{
	struct walk w = { glob, fn, arg, 0 };
	struct pk_pmu *pmus = NULL;
	int r = 0, n;

	if (!fn)
		return -EINVAL;
	if (classes & PK_EVCLASS_HARDWARE)
		r = walk_syms(&w, PERF_TYPE_HARDWARE);
	if (!r && (classes & PK_EVCLASS_SOFTWARE))
		r = walk_syms(&w, PERF_TYPE_SOFTWARE);
	if (!r && (classes & PK_EVCLASS_HW_CACHE))
		r = walk_cache(&w);
	if (!r && (classes & PK_EVCLASS_TRACEPOINT))
		r = walk_tracepoints(&w);
	if (!r && (classes & (PK_EVCLASS_PMU_EVENT | PK_EVCLASS_PMU_FORMAT))) {
		n = pk__pmu_all(&pmus);
		if (n < 0)
			return n;
		for (int i = 0; i < n && !r; i++)
			r = walk_pmu(&w, &pmus[i], classes);
	}
	if (!r && (classes & PK_EVCLASS_TOOL))
		r = walk_tools(&w);
	if (!r && (classes & PK_EVCLASS_SYNTAX) && !glob)
		r = walk_syntax(&w);
	return r ? r : w.n;
}

int pk_parse_error_snprintf(char *buf, size_t size, const char *str,
			    const struct pk_parse_error *err)
{
	const int max = 40; /* perf cuts long strings around the error */
	int len = (int)strlen(str), pos = err->pos < 0 ? 0 : err->pos;
	int off = 0, caret;
	const char *pre = "";

	if (pos > len)
		pos = len;
	if (len > max && pos > max - 10) {
		off = pos - (max - 10);
		pre = "..";
	}
	caret = (int)strlen("event syntax error: '") + (int)strlen(pre) +
		(pos - off);
	return snprintf(buf, size, "event syntax error: '%s%.*s'\n%*s\\___ %s",
			pre, max, str + off, caret, "", err->msg);
}
