/* SPDX-License-Identifier: MIT */
/*
 * The compiled event formatter against libtraceevent, record by record:
 * every record of the trace.dat files (the shared corpus, and the files
 * named in PK_TFDIFF_FILES, colon separated, which tests/live records) is
 * printed both ways and the payloads must be equal wherever the compiled
 * formatter prints one. Coverage is reported per file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>
#include <perfkit/ftrace.h>
#include "base/base.h"
#include "base/bytes.h"
#include "ftrace/report.h"
#include "test.h"

T_LSAN_LIBTRACEEVENT

struct diff {
	struct pk_tracedat *td;
	struct tf_env env;
	struct tf_event **evs;
	int *id2fmt;
	long fast, fb, same, bad;
	long *fbs;              /* per format: records left to tep */
	int shown;
};

static int load_syms(struct tf_env *env)
{
	struct diff *d = env->priv;
	size_t len;
	const char *k = pk_tracedat_item(d->td, PK_TD_KALLSYMS, &len);
	return k ? pk__tf_syms_parse(env, k, len) : 0;
}

static int load_printk(struct tf_env *env)
{
	struct diff *d = env->priv;
	size_t len;
	const char *k = pk_tracedat_item(d->td, PK_TD_PRINTK, &len);
	return k ? pk__tf_printk_parse(env, k, len) : 0;
}

static struct tf_event *event_of(struct diff *d, int fi)
{
	if (fi < 0)
		return NULL;
	if (!d->evs[fi]) {
		const struct td_format *f = &d->td->fmts[fi];
		d->evs[fi] = pk__zalloc(sizeof(struct tf_event));
		if (pk__tf_compile(d->evs[fi], f->text.p, f->text.len, f->system,
			       d->td->long_size, TF_PLUGINS) < 0)
			d->evs[fi]->ok = false, d->evs[fi]->plugin = TFP_FALLBACK;
	}
	return d->evs[fi];
}

static void one_file(const char *path, const char *name)
{
	struct diff d = { 0 };
	struct rep_tep t;
	struct pk_tracedat_event ev;
	struct tf_out o = { 0 }, ref = { 0 };
	char tname[256];
	int r;

	snprintf(tname, sizeof(tname), "tfdiff_%s", name);
	if (!(d.td = pk_tracedat_open(path))) {
		r = -errno;
		t_fail(tname, "open %s: %s", path, pk_strerror(r));
		return;
	}
	d.env.big = d.td->big;
	d.env.long_size = d.td->long_size;
	d.env.load_syms = load_syms;
	d.env.load_printk = load_printk;
	d.env.priv = &d;
	d.evs = pk__calloc((size_t)d.td->nr_fmts + 1, sizeof(*d.evs));
	d.fbs = pk__calloc((size_t)d.td->nr_fmts + 1, sizeof(long));
	d.id2fmt = pk__malloc(65536 * sizeof(int));
	memset(d.id2fmt, 0xff, 65536 * sizeof(int));
	for (int i = 0; i < d.td->nr_fmts; i++) {
		long id = pk__td_format_id(&d.td->fmts[i]);
		if (id >= 0 && id < 65536 && d.id2fmt[id] < 0)
			d.id2fmt[id] = i;
	}
	size_t cl;
	const char *c = pk_tracedat_item(d.td, PK_TD_CMDLINES, &cl);
	if (c)
		pk__tf_comms_parse(&d.env, c, cl);
	if ((r = pk__td_tep_init(&t, d.td, true, NULL, NULL)) < 0) {
		t_fail(tname, "libtraceevent setup: %s", pk_strerror(r));
		goto out;
	}
	pk_tracedat_rewind(d.td, NULL, 0);
	while ((r = pk_tracedat_next(d.td, &ev)) != 0) {
		if (r < 0)
			continue;
		int fi = ev.size >= 2 ? d.id2fmt[pk_ld16(ev.data, d.td->big)]
				      : -1;
		struct tf_event *te = event_of(&d, fi);
		const char *nm;
		o.len = ref.len = 0;
		t.fg.peek = NULL;
		pk__td_tep_payload(&t, &ev, &ref, &nm);
		if (!te || pk__tf_print(te, &d.env, ev.data, ev.size, &o)) {
			d.fb++;
			if (te && fi >= 0)
				d.fbs[fi]++;
			if (te)
				pk__tf_plugin_comms(te, &d.env, ev.data, ev.size);
			continue;
		}
		d.fast++;
		if (o.len && o.p[o.len - 1] == '\n')
			o.len--;        /* the report drops it, as from tep */
		if (o.len == ref.len && !memcmp(o.p, ref.p, o.len)) {
			d.same++;
			continue;
		}
		d.bad++;
		if (d.shown++ < 5)
			printf("# %s %s:%s\n#  tep:  %.*s\n#  fast: %.*s\n", name,
			       te->system, te->name, (int)ref.len, ref.p,
			       (int)o.len, o.p);
	}
	int nf = 0, nfb = 0;
	for (int i = 0; i < d.td->nr_fmts; i++) {
		struct tf_event *e = d.evs[i];
		if (!e)
			continue;
		if (e->plugin != TFP_FALLBACK &&
		    (e->ok || e->plugin != TFP_NONE)) {
			nf++;
			if (d.fbs[i])
				printf("# %s: %s:%s: %ld records left to "
				       "libtraceevent\n", name, e->system,
				       e->name, d.fbs[i]);
		} else {
			nfb++;
			printf("# %s: %s:%s left to libtraceevent (%s)\n", name,
			       e->system, e->name ? e->name : "?",
			       e->why ? e->why : "?");
		}
	}
	printf("# %s: %ld records, %ld compiled (%ld equal), %ld to "
	       "libtraceevent; formats %d compiled, %d not\n", name,
	       d.fast + d.fb, d.fast, d.same, d.fb, nf, nfb);
	t_check(d.bad == 0 && d.fast > 0, tname, "%ld of %ld differ", d.bad,
		d.fast);
	pk__td_tep_fini(&t);
out:
	for (int i = 0; i < d.td->nr_fmts; i++)
		if (d.evs[i]) {
			pk__tf_event_fini(d.evs[i]);
			pk__free(d.evs[i]);
		}
	pk__free(d.evs);
	pk__free(d.fbs);
	pk__free(d.id2fmt);
	pk__tf_env_fini(&d.env);
	pk__tf_out_fini(&o);
	pk__tf_out_fini(&ref);
	pk_tracedat_free(d.td);
}

int main(void)
{
	static const char *const corpus[] = { "gcc-x86-v7-zstd",
					      "rtapp-arm64-v6" };
	for (size_t i = 0; i < PK_ARRAY_SIZE(corpus); i++) {
		char rel[256];
		snprintf(rel, sizeof(rel), "corpus/trace-dat/%s.trace.dat",
			 corpus[i]);
		const char *p = t_shared_need(corpus[i], rel);
		if (p)
			one_file(p, corpus[i]);
	}
	const char *env = getenv("PK_TFDIFF_FILES");
	if (env && *env) {
		char *list = pk__strdup(env), *save = NULL;
		for (char *f = strtok_r(list, ":", &save); f;
		     f = strtok_r(NULL, ":", &save)) {
			const char *b = strrchr(f, '/');
			one_file(f, b ? b + 1 : f);
		}
		pk__free(list);
	}
	return t_exit();
}
