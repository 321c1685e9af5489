/* SPDX-License-Identifier: MIT */
/*
 * Kernel-text printer: the object, trace options, command names, TGIDs and
 * kernel symbols (the lookups the kernel's trace output makes).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>
#include "ftrace/ktext.h"

struct kt_optname { const char *name; int bit; bool def; };

static const struct kt_optname opt_names[] = {
	{ "print-parent", KT_PRINT_PARENT, true },
	{ "sym-offset", KT_SYM_OFFSET, false },
	{ "sym-addr", KT_SYM_ADDR, false },
	{ "verbose", KT_VERBOSE, false },
	{ "raw", KT_RAW, false },
	{ "hex", KT_HEX, false },
	{ "bin", KT_BIN, false },
	{ "fields", KT_FIELDS, false },
	{ "context-info", KT_CONTEXT_INFO, true },
	{ "latency-format", KT_LATENCY_FMT, false },
	{ "record-tgid", KT_RECORD_TGID, false },
	{ "irq-info", KT_IRQ_INFO, true },
	{ "markers", KT_MARKERS, true },
	{ "annotate", KT_ANNOTATE, true },
	{ "printk-msg-only", KT_PRINTK_MSGONLY, false },
	{ "trace_printk", KT_TRACE_PRINTK, true },
	{ "record-cmd", KT_RECORD_CMD, true },
	{ "hash-ptr", KT_HASH_PTR, true },
	{ "funcgraph-cpu", KT_G_CPU, true },
	{ "funcgraph-overhead", KT_G_OVERHEAD, true },
	{ "funcgraph-proc", KT_G_PROC, false },
	{ "funcgraph-duration", KT_G_DURATION, true },
	{ "funcgraph-abstime", KT_G_ABSTIME, false },
	{ "funcgraph-irqs", KT_G_IRQS, true },
	{ "funcgraph-tail", KT_G_TAIL, false },
	{ "funcgraph-overrun", KT_G_OVERRUN, false },
	{ "funcgraph-retval", KT_G_RETVAL, false },
	{ "funcgraph-retval-hex", KT_G_RETVAL_HEX, false },
};

/* Options that exist but change nothing in the printed text. */
static const char *const noop_opts[] = {
	"overwrite", "disable_on_free", "event-fork", "function-fork",
	"function-trace", "stacktrace", "userstacktrace", "sym-userobj",
	"block", "pause-on-trace", "copy_trace_marker", "trace_printk_dest",
	"func_stack_trace", "func-no-repeats", "display-graph", "sleep-time",
	"graph-time", "bitmask-list", "funcgraph-retaddr", "funcgraph-args",
	"test_nop_accept", "test_nop_refuse", "blk_classic", "blk_cgroup",
	"blk_cgname", "func-args",
};

static uint64_t default_flags(void)
{
	uint64_t f = 0;
	for (size_t i = 0; i < PK_ARRAY_SIZE(opt_names); i++)
		if (opt_names[i].def)
			f |= KT_F(opt_names[i].bit);
	return f;
}

static int set_one(struct pk_ktext *kt, const char *name, size_t len)
{
	bool on = true;

	if (len > 2 && !strncmp(name, "no", 2)) {
		/* "nop"-like names do not exist; "no" prefixes negate */
		name += 2;
		len -= 2;
		on = false;
	}
	for (size_t i = 0; i < PK_ARRAY_SIZE(opt_names); i++) {
		if (strlen(opt_names[i].name) == len &&
		    !strncmp(opt_names[i].name, name, len)) {
			if (on)
				kt->flags |= KT_F(opt_names[i].bit);
			else
				kt->flags &= ~KT_F(opt_names[i].bit);
			return 0;
		}
	}
	for (size_t i = 0; i < PK_ARRAY_SIZE(noop_opts); i++)
		if (strlen(noop_opts[i]) == len &&
		    !strncmp(noop_opts[i], name, len))
			return 0;
	pk_warn("kernel text: unknown trace option '%.*s'", (int)len, name);
	return PK_ERR_SYNTAX;
}

int pk__kt_set_options(struct pk_ktext *kt, const char *list)
{
	const char *p = list;

	while (p && *p) {
		size_t len = strcspn(p, ", \t\n");
		int e;
		if (len && (e = set_one(kt, p, len)))
			return e;
		p += len;
		p += strspn(p, ", \t\n");
	}
	return 0;
}

bool pk__kt_clock_in_ns(const char *clock)
{
	static const char *const ns[] = { "local", "global", "perf", "mono",
					   "mono_raw", "boot", "tai" };
	if (!clock || !*clock)
		return true;
	for (size_t i = 0; i < PK_ARRAY_SIZE(ns); i++)
		if (!strcmp(clock, ns[i]))
			return true;
	return false;
}

/* ---- command names and TGIDs ---- */

/* "PID COMM" lines (saved_cmdlines). */
int pk__kt_parse_cmdlines(struct pk_ktext *kt, const char *text)
{
	return text ? pk__comms_parse(&kt->comms, text, strlen(text),
				      PK_COMMS_KERNEL) : 0;
}

/* "PID TGID" lines (saved_tgids). */
int pk__kt_parse_tgids(struct pk_ktext *kt, const char *text)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		char *sp, *e2;
		long pid = strtol(p, &sp, 10), tgid = strtol(sp, &e2, 10);
		bool added;
		uint64_t *v;

		if (sp > p && e2 > sp && pid > 0 && pid < (1 << 30) &&
		    tgid >= 0 && tgid < (1 << 30)) {
			v = pk__hash_put(&kt->tgids, (uint64_t)pid, &added);
			if (!v)
				return -ENOMEM;
			*v = (uint64_t)tgid;
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	return 0;
}

/* The kernel's trace_find_cmdline(). */
const char *pk__kt_comm(struct pk_ktext *kt, int pid, char buf[16])
{
	const char *c;

	if (pid == 0)
		return "<idle>";
	if (pid < 0)
		return "<XXX>";
	c = pk__comms_get(&kt->comms, pid, NULL);
	if (!c)
		return "<...>";
	snprintf(buf, 16, "%s", c);
	return buf;
}

int pk__kt_tgid(const struct pk_ktext *kt, int pid)
{
	uint64_t *v = pid > 0 ? pk__hash_get(&kt->tgids, (uint64_t)pid) : NULL;

	return v ? (int)*v : 0;
}

/* ---- kernel symbols ---- */

/* The kernel symbols, parsed from the kallsyms text on first use (a
 * trace that names no kernel address never pays for them); empty when
 * there is no text or no memory. */
const struct pk_ksyms *pk__kt_ksyms(struct pk_ktext *kt)
{
	if (kt->ksyms_parsed)
		return &kt->ksyms;
	kt->ksyms_parsed = true;
	if (!kt->ks_len || pk__ksyms_parse(&kt->ksyms, kt->ks_text, kt->ks_len))
		return &kt->ksyms;
	kt->irq_start = pk__ksyms_addr(&kt->ksyms, "__irqentry_text_start");
	kt->irq_end = pk__ksyms_addr(&kt->ksyms, "__irqentry_text_end");
	return &kt->ksyms;
}

/* The symbol the kernel names IP by, or -1 (also past the last one by
 * more than 16 MiB when it is no module's). */
static long holding_sym(struct pk_ktext *kt, uint64_t ip)
{
	const struct pk_ksyms *k = pk__kt_ksyms(kt);
	long i = pk__ksyms_first(k, ip);
	const struct pk_ksym *y = i < 0 ? NULL : &k->v[i];

	if (!y || (i == (long)k->n - 1 && !y->mod &&
		   ip - y->addr > (1u << 24)))
		return -1;
	return i;
}

/* "name" or "name+0xoff/0xsize [mod]" of symbol I holding IP. */
static int sym_text(const struct pk_ktext *kt, long i, uint64_t ip,
		    bool offset, char *buf, size_t len)
{
	const struct pk_ksym *y = &kt->ksyms.v[i];

	if (!offset)
		return snprintf(buf, len, "%s", y->name);
	return snprintf(buf, len, "%s+0x%llx/0x%llx%s%s%s", y->name,
			(unsigned long long)(ip - y->addr),
			(unsigned long long)pk__ksyms_size(&kt->ksyms,
							   (size_t)i),
			y->mod ? " [" : "", y->mod ? pk__ksym_mod(y) : "",
			y->mod ? "]" : "");
}

/* trace_seq_print_sym(): "name" or "name+0xoff/0xsize [mod]". */
void pk__kt_print_sym(struct pk_ktext *kt, struct trace_seq *s, uint64_t ip,
		  bool offset)
{
	long i = holding_sym(kt, ip);
	char buf[1200];

	if (i < 0) {
		trace_seq_printf(s, "0x%08llx", (unsigned long long)ip);
		return;
	}
	sym_text(kt, i, ip, offset, buf, sizeof(buf));
	trace_seq_puts(s, buf);
}

/* The formatter's %pS / %ps: the kernel's sprint_symbol() and
 * sprint_symbol_no_offset(). */
static int env_kernel_sym(struct tf_env *env, struct tf_out *o,
			  uint64_t addr, bool offset)
{
	struct pk_ktext *kt = env->priv;
	long i = holding_sym(kt, addr);
	char buf[1200];
	int n = i < 0 ? snprintf(buf, sizeof(buf), "0x%llx",
				 (unsigned long long)addr)
		      : sym_text(kt, i, addr, offset, buf, sizeof(buf));

	/* %ps names the module too */
	if (i >= 0 && !offset && kt->ksyms.v[i].mod && n >= 0 &&
	    n < (int)sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " [%s]",
			      pk__ksym_mod(&kt->ksyms.v[i]));

	n = PK_MIN(n, (int)sizeof(buf) - 1);
	if (n < 0 || tf_out_reserve(o, (size_t)n))
		return -ENOMEM;
	memcpy(o->p + o->len, buf, (size_t)n);
	o->len += (size_t)n;
	return 0;
}

/* seq_print_ip_sym() with the sym-offset/sym-addr flags. */
void pk__kt_print_ip(struct pk_ktext *kt, struct trace_seq *s, uint64_t ip)
{
	if (!ip) {
		trace_seq_putc(s, '0');
		return;
	}
	pk__kt_print_sym(kt, s, ip, kt->flags & KT_F(KT_SYM_OFFSET));
	if (kt->flags & KT_F(KT_SYM_ADDR))
		trace_seq_printf(s, kt->long_size == 4 ? " <%08llx>"
						       : " <%016llx>",
				 (unsigned long long)ip);
}

/* Whether IP is inside a text symbol. */
bool pk__kt_is_text(struct pk_ktext *kt, uint64_t ip)
{
	const struct pk_ksyms *k = pk__kt_ksyms(kt);
	long i = pk__ksyms_first(k, ip);

	return i >= 0 && pk__ksym_is_text(k->v[i].type);
}

/* "%ps" */
void pk__kt_print_ps(struct pk_ktext *kt, struct trace_seq *s, uint64_t ip)
{
	const struct pk_ksyms *k = pk__kt_ksyms(kt);
	long i = pk__ksyms_first(k, ip);

	if (i < 0)
		trace_seq_printf(s, "0x%llx", (unsigned long long)ip);
	else
		trace_seq_puts(s, k->v[i].name);
}

/* ---- object ---- */

static int find_id(struct tep_handle *tep, const char *name)
{
	struct tep_event *e = tep_find_event_by_name(tep, "ftrace", name);
	return e ? e->id : -1;
}

/* CONFIG_PREEMPT_* of the running kernel ("none", "voluntary", "full",
 * "lazy", "rt"), from /proc/config.gz; NULL when unknown. */
static const char *config_model(void)
{
	static const struct { const char *opt, *model; } m[] = {
		{ "CONFIG_PREEMPT_RT=y", "rt" },
		{ "CONFIG_PREEMPT_LAZY=y", "lazy" },
		{ "CONFIG_PREEMPT=y", "full" },
		{ "CONFIG_PREEMPT_VOLUNTARY=y", "voluntary" },
		{ "CONFIG_PREEMPT_NONE=y", "none" },
	};
	gzFile f = gzopen("/proc/config.gz", "rb");
	const char *found = NULL;
	int best = (int)PK_ARRAY_SIZE(m);
	char line[256];

	if (!f)
		return NULL;
	while (gzgets(f, line, sizeof(line))) {
		line[strcspn(line, "\n")] = 0;
		for (int i = 0; i < best; i++)
			if (!strcmp(line, m[i].opt)) {
				best = i;
				found = m[i].model;
			}
	}
	gzclose(f);
	return found;
}

/* preempt_model_str() of this host: "PREEMPT(none)", "PREEMPT_RT" ... */
static void host_preempt(char *buf, size_t len)
{
	struct utsname u;
	char *s = NULL, *cl = NULL;
	const char *model = NULL;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	if (strstr(u.version, "PREEMPT_RT")) {
		snprintf(buf, len, "PREEMPT_RT");
		return;
	}
	if (!strstr(u.version, "PREEMPT_DYNAMIC")) {
		snprintf(buf, len, "%s", strstr(u.version, "PREEMPT") ?
			 "PREEMPT" : "NONE");
		return;
	}
	if (pk__read_file("/sys/kernel/debug/sched/preempt", &s) > 0) {
		char *o = strchr(s, '('), *c = o ? strchr(o, ')') : NULL;
		if (c) {
			*c = 0;
			model = o + 1;
		}
	}
	if (!model && pk__read_file("/proc/cmdline", &cl) > 0) {
		char *p = strstr(cl, "preempt=");
		if (p && (p == cl || p[-1] == ' ')) {
			p += 8;
			p[strcspn(p, " \n")] = 0;
			model = p;
		}
	}
	if (!model)
		model = config_model();
	snprintf(buf, len, "PREEMPT(%s)", model ? model : "none");
	pk__free(s);
	pk__free(cl);
}

static void set_release(struct pk_ktext *kt, const char *uname_text,
			const char *given)
{
	struct utsname u;

	if (given) {
		snprintf(kt->release, sizeof(kt->release), "%s", given);
		return;
	}
	if (uname_text && *uname_text) {
		/* "sysname nodename release version machine" */
		const char *p = uname_text;
		for (int w = 0; w < 2 && p; w++) {
			p = strchr(p, ' ');
			if (p)
				p++;
		}
		if (p) {
			size_t n = strcspn(p, " \n");
			snprintf(kt->release, sizeof(kt->release), "%.*s",
				 (int)n, p);
			return;
		}
	}
	if (uname(&u) == 0)
		snprintf(kt->release, sizeof(kt->release), "%s", u.release);
}

/* The formatter's table: a view of the printer's own (parsed once). */
static int env_syms(struct tf_env *env)
{
	struct pk_ktext *kt = env->priv;

	env->syms = pk__ksyms_view(pk__kt_ksyms(kt));
	return 0;
}

static int env_printk(struct tf_env *env)
{
	struct pk_ktext *kt = env->priv;

	return kt->env_printk ? pk__tf_printk_parse(env, kt->env_printk,
						strlen(kt->env_printk)) : 0;
}

/* The compiled formatter's side: the formats in the kernel's reading. */
static int setup_compiled(struct pk_ktext *kt, const struct kt_src *src)
{
	kt->env.big = src->big;
	kt->env.long_size = src->long_size;
	kt->env.priv = kt;
	kt->env.load_syms = env_syms;
	kt->env.load_printk = env_printk;
	kt->env.kernel_sym = env_kernel_sym;
	return pk__tf_events_init(&kt->evs, kt->fx, kt->nr_fx, src->long_size,
			      TF_KERNEL);
}

static int setup_tep(struct pk_ktext *kt, const struct kt_src *src)
{
	struct tf_tep_fmt *f = pk__calloc((size_t)src->nr_fmts + 1, sizeof(*f));
	int e = f ? 0 : -ENOMEM;

	kt->fx = f;
	kt->nr_fx = f ? src->nr_fmts : 0;
	for (int i = 0; !e && i < src->nr_fmts; i++) {
		char *t, *sys;
		if (src->fmt_skip && src->fmt_skip[i])
			continue;
		t = pk__strndup(src->fmt_text[i], src->fmt_len[i]);
		sys = pk__strdup(src->fmt_sys[i]);
		f[i] = (struct tf_tep_fmt){ t, t ? strlen(t) : 0, sys };
		if (!t || !sys)
			e = -ENOMEM;
	}
	struct tf_tep_src ts = {
		.who = "kernel text", .big = src->big,
		.long_size = src->long_size, .nr_cpus = src->nr_cpus,
		.fmts = f, .nr_fmts = src->nr_fmts,
		.untrusted = src->untrusted,
		/* kallsyms and printk: on the first payload it prints
		 * (pk__kt_tep_texts) */
	};
	if (!e)
		e = pk__tf_tep_init(&kt->tt, &ts, NULL);
	if (!e)
		e = setup_compiled(kt, src);
	if (e)
		return e;
	kt->tep = kt->tt.tep;
	kt->id_function = find_id(kt->tep, "function");
	kt->id_print = find_id(kt->tep, "print");
	kt->id_bprint = find_id(kt->tep, "bprint");
	kt->id_bputs = find_id(kt->tep, "bputs");
	kt->id_raw_data = find_id(kt->tep, "raw_data");
	kt->id_gent = find_id(kt->tep, "funcgraph_entry");
	kt->id_gret = find_id(kt->tep, "funcgraph_exit");
	kt->id_kstack = find_id(kt->tep, "kernel_stack");
	kt->id_ustack = find_id(kt->tep, "user_stack");
	kt->id_repeats = find_id(kt->tep, "func_repeats");
	trace_seq_init(&kt->s);
	return 0;
}

int pk__kt_tep_texts(struct pk_ktext *kt)
{
	if (kt->tep_texts)
		return 0;
	kt->tep_texts = true;
	return pk__tf_tep_texts(&kt->tt, &(struct tf_tep_src){
		.kallsyms = kt->ks_text, .kallsyms_len = kt->ks_len,
		.printk = kt->env_printk,
		.printk_len = kt->env_printk ? strlen(kt->env_printk) : 0,
	});
}

int pk__kt_new(const struct kt_src *src, const struct pk_ktext_opts *o,
	   struct pk_ktext **out)
{
	struct pk_ktext *kt = pk__zalloc(sizeof(*kt));
	int e;

	*out = NULL;
	if (!kt) {
		if (src->kallsyms_own)
			pk__free((char *)src->kallsyms);
		pk__free(src->printk);
		return -ENOMEM;
	}
	kt->ks_text = src->kallsyms;
	kt->ks_len = src->kallsyms ? src->kallsyms_len : 0;
	kt->ks_own = src->kallsyms_own;
	kt->env_printk = src->printk;
	kt->flags = default_flags();
	kt->big = src->big;
	kt->long_size = src->long_size;
	kt->nr_online = o && o->nr_online > 0 ? o->nr_online : src->nr_cpus;
	kt->cpu_digits = snprintf(NULL, 0, "%d",
				  PK_MAX(src->nr_cpus, 1) - 1);
	kt->time_start = o ? o->time_start : 0;
	kt->pipe = o && o->no_header;
	pk__rb_layout_default(&kt->layout, src->long_size, src->big);
	if (src->hdr_page && src->hdr_page_len)
		pk__rb_layout_parse(&kt->layout, src->hdr_page,
				   src->hdr_page_len, src->big);
	kt->clock = pk__strdup(o && o->clock ? o->clock
				: src->clock ? src->clock : "local");
	e = kt->clock ? 0 : -ENOMEM;
	if (!e && o && o->tracer) {
		kt->tracer_given = true;
		if (!strcmp(o->tracer, "function"))
			kt->tracer = KT_FUNCTION;
		else if (!strcmp(o->tracer, "function_graph"))
			kt->tracer = KT_GRAPH;
		else if (strcmp(o->tracer, "nop")) {
			pk_warn("kernel text: tracer '%s' has no layout here "
				"(nop, function, function_graph)", o->tracer);
			e = PK_ERR_SYNTAX;
		}
	}
	kt->in_ns = kt->clock && pk__kt_clock_in_ns(kt->clock);
	/* a file with saved_tgids was recorded with record-tgid on */
	if (src->tgids)
		kt->flags |= KT_F(KT_RECORD_TGID);
	if (!e && o)
		e = pk__kt_set_options(kt, o->options);
	if (!e)
		e = setup_tep(kt, src);
	if (!e && src->cmdlines)
		e = pk__kt_parse_cmdlines(kt, src->cmdlines);
	if (!e && o && o->tgids)
		e = pk__kt_parse_tgids(kt, o->tgids);
	else if (!e && src->tgids)
		e = pk__kt_parse_tgids(kt, src->tgids);
	set_release(kt, src->uname, o ? o->release : NULL);
	if (o && o->preempt)
		snprintf(kt->preempt, sizeof(kt->preempt), "%s", o->preempt);
	else
		host_preempt(kt->preempt, sizeof(kt->preempt));
	if (e) {
		pk_ktext_free(kt);
		return e;
	}
	*out = kt;
	return 0;
}

void pk__kt_detect_tracer(struct pk_ktext *kt, const uint8_t *types)
{
#define SEEN(id) ((id) >= 0 && (types[(id) / 8] & (1 << ((id) % 8))))
	if (kt->tracer_given)
		return;
	if (SEEN(kt->id_gent) || SEEN(kt->id_gret))
		kt->tracer = KT_GRAPH;
	else if (SEEN(kt->id_function))
		kt->tracer = KT_FUNCTION;
#undef SEEN
}

int pk__kt_flush_seq(struct pk_ktext *kt, FILE *out)
{
	struct trace_seq *s = &kt->s;
	int e = 0;

	if (s->len && fwrite(s->buffer, 1, s->len, out) != s->len)
		e = -EIO;
	trace_seq_reset(s);
	return e;
}

void pk_ktext_free(struct pk_ktext *kt)
{
	if (!kt)
		return;
	if (kt->tep)
		trace_seq_destroy(&kt->s);
	pk__tf_tep_fini(&kt->tt);
	pk__tf_events_fini(&kt->evs);
	pk__tf_env_fini(&kt->env);
	pk__tf_out_fini(&kt->out);
	for (int i = 0; i < kt->nr_fx; i++) {
		pk__free((char *)kt->fx[i].text);
		pk__free((char *)kt->fx[i].system);
	}
	pk__free(kt->fx);
	if (kt->ks_own)
		pk__free((char *)kt->ks_text);
	pk__free(kt->env_printk);
	pk__comms_fini(&kt->comms);
	pk__hash_fini(&kt->tgids);
	pk__ksyms_fini(&kt->ksyms);
	pk__free(kt->gcpu);
	pk__free(kt->clock);
	pk__free(kt->instance);
	pk__free(kt->scratch);
	pk__free(kt);
}
