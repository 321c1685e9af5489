/* SPDX-License-Identifier: MIT */
/*
 * Kernel-text printer: the function_graph tracer's layout (CPU, task,
 * duration and overhead mark, "func() {" nesting, leaf calls on one line,
 * context-switch banners, irq markers, other events as comments).
 */
#include <string.h>
#include "base/bytes.h"
#include "ftrace/ktext.h"

#define INDENT 2
#define PROC_LEN 14
enum { FILL_NONE, FILL_FULL, FILL_START, FILL_END };

static bool gval(struct pk_ktext *kt, const struct pk_tracedat_event *ev,
		 const char *name, uint64_t *v)
{
	struct tep_event *e = tep_find_event(kt->tep, pk__kt_type(kt, ev->data,
							       ev->size));
	const struct tep_format_field *f = e ? tep_find_field(e, name) : NULL;

	if (!f || f->size <= 0 || f->size > 8 ||
	    (uint32_t)(f->offset + f->size) > ev->size)
		return false;
	*v = pk_ldn((const uint8_t *)ev->data + f->offset, (unsigned)f->size,
		    kt->big);
	return true;
}

static struct kt_gcpu *gcpu(struct pk_ktext *kt, int cpu)
{
	if (cpu < 0 || cpu > 65535)
		return NULL;
	if (cpu >= kt->nr_gcpu) {
		int n = cpu + 1;
		struct kt_gcpu *g = pk__realloc(kt->gcpu, (size_t)n * sizeof(*g));
		if (!g)
			return NULL;
		for (int i = kt->nr_gcpu; i < n; i++) {
			memset(&g[i], 0, sizeof(g[i]));
			g[i].last_pid = -1;
			g[i].depth_irq = -1;
		}
		kt->gcpu = g;
		kt->nr_gcpu = n;
	}
	return &kt->gcpu[cpu];
}

static void put_cpu(struct pk_ktext *kt, struct trace_seq *s, int cpu)
{
	trace_seq_printf(s, " %*d) ", kt->cpu_digits, cpu);
}

static void put_proc(struct pk_ktext *kt, struct trace_seq *s, int pid)
{
	char buf[16], comm[16], pid_str[16];
	int len, spaces = 0;

	snprintf(comm, sizeof(comm), "%s", pk__kt_comm(kt, pid, buf));
	comm[7] = 0;
	snprintf(pid_str, sizeof(pid_str), "%d", pid);
	len = (int)(strlen(comm) + strlen(pid_str) + 1);
	if (len < PROC_LEN)
		spaces = PROC_LEN - len;
	for (int i = 0; i < spaces / 2; i++)
		trace_seq_putc(s, ' ');
	trace_seq_printf(s, "%s-%s", comm, pid_str);
	for (int i = 0; i < spaces - spaces / 2; i++)
		trace_seq_putc(s, ' ');
}

static void verif_pid(struct pk_ktext *kt, struct trace_seq *s, int pid,
		      int cpu)
{
	struct kt_gcpu *g = gcpu(kt, cpu);
	int prev;

	if (!g || g->last_pid == pid)
		return;
	prev = g->last_pid;
	g->last_pid = pid;
	if (prev == -1)
		return;
	trace_seq_puts(s, " ------------------------------------------\n");
	put_cpu(kt, s, cpu);
	put_proc(kt, s, prev);
	trace_seq_puts(s, " => ");
	put_proc(kt, s, pid);
	trace_seq_puts(s, "\n ------------------------------------------\n\n");
}

static void abs_time(struct trace_seq *s, uint64_t t)
{
	trace_seq_printf(s, "%5llu.%06llu |  ",
			 (unsigned long long)(t / 1000000000ull),
			 (unsigned long long)(t % 1000000000ull / 1000));
}

static void mark_of(struct trace_seq *s, uint64_t d)
{
	static const struct { uint64_t v; char c; } m[] = {
		{ 1000000000ULL, '$' }, { 100000000ULL, '@' },
		{ 10000000ULL, '*' }, { 1000000ULL, '#' },
		{ 100000ULL, '!' }, { 10000ULL, '+' },
	};
	char c = ' ';
	for (size_t i = 0; i < PK_ARRAY_SIZE(m); i++)
		if (d > m[i].v) {
			c = m[i].c;
			break;
		}
	trace_seq_printf(s, "%c ", c);
}

/* trace_print_graph_duration() */
static void dur_num(struct trace_seq *s, uint64_t d)
{
	char us[24], ns[8];
	int len = snprintf(us, sizeof(us), "%llu",
			   (unsigned long long)(d / 1000));

	trace_seq_puts(s, us);
	if (len < 7) {
		size_t sl = PK_MIN(sizeof(ns) - 3, (size_t)(8 - len));
		snprintf(ns, sl, "%03llu", (unsigned long long)(d % 1000));
		trace_seq_printf(s, ".%s", ns);
		len += (int)strlen(ns) + 1;
	}
	trace_seq_puts(s, " us ");
	for (int i = len; i < 8; i++)
		trace_seq_putc(s, ' ');
}

static void duration(struct pk_ktext *kt, struct trace_seq *s, uint64_t d,
		     int fill)
{
	if (!(kt->flags & KT_F(KT_G_DURATION)) ||
	    !(kt->flags & KT_F(KT_CONTEXT_INFO)))
		return;
	switch (fill) {
	case FILL_FULL: trace_seq_puts(s, "              |  "); return;
	case FILL_START: trace_seq_puts(s, "  "); return;
	case FILL_END: trace_seq_puts(s, " |"); return;
	}
	if (kt->flags & KT_F(KT_G_OVERHEAD))
		mark_of(s, d);
	else
		trace_seq_puts(s, "  ");
	dur_num(s, d);
	trace_seq_puts(s, "|  ");
}

/* The columns before the duration (abstime, CPU, task, lat flags). */
static void columns(struct pk_ktext *kt, struct trace_seq *s,
		    const struct pk_tracedat_event *ev, int pid)
{
	if (kt->flags & KT_F(KT_G_ABSTIME))
		abs_time(s, ev->ts);
	if (kt->flags & KT_F(KT_G_CPU))
		put_cpu(kt, s, ev->cpu);
	if (kt->flags & KT_F(KT_G_PROC)) {
		put_proc(kt, s, pid);
		trace_seq_puts(s, " | ");
	}
	if (kt->flags & KT_F(KT_LATENCY_FMT)) {
		trace_seq_putc(s, ' ');
		pk__kt_lat_flags(s, ev->data);
		trace_seq_puts(s, " | ");
	}
}

static bool in_irq_text(struct pk_ktext *kt, uint64_t a)
{
	pk__kt_ksyms(kt);
	return kt->irq_end > kt->irq_start && a >= kt->irq_start &&
	       a < kt->irq_end;
}

static void graph_irq(struct pk_ktext *kt, struct trace_seq *s,
		      const struct pk_tracedat_event *ev, uint64_t addr,
		      bool entry)
{
	if (!in_irq_text(kt, addr))
		return;
	if (kt->flags & KT_F(KT_CONTEXT_INFO))
		columns(kt, s, ev, pk__kt_pid(kt, ev->data, ev->size));
	duration(kt, s, 0, FILL_START);
	trace_seq_puts(s, entry ? "==========>" : "<==========");
	duration(kt, s, 0, FILL_END);
	trace_seq_putc(s, '\n');
}

static void prologue(struct pk_ktext *kt, struct trace_seq *s,
		     const struct pk_tracedat_event *ev, int type,
		     uint64_t addr)
{
	int pid = pk__kt_pid(kt, ev->data, ev->size);

	verif_pid(kt, s, pid, ev->cpu);
	if (type)
		graph_irq(kt, s, ev, addr, type == 1);
	if (!(kt->flags & KT_F(KT_CONTEXT_INFO)))
		return;
	columns(kt, s, ev, pid);
}

static void indent(struct trace_seq *s, uint64_t depth)
{
	for (uint64_t i = 0; i < depth * INDENT && i < 8192; i++)
		trace_seq_putc(s, ' ');
}

/* funcgraph-retval: "= 0x..." or a negative error in decimal. */
static void retval(struct pk_ktext *kt, struct trace_seq *s, uint64_t func,
		   uint64_t rv, bool leaf)
{
	bool hex = kt->flags & KT_F(KT_G_RETVAL_HEX);
	long long err = 0;

	if (kt->long_size == 4)
		rv &= 0xffffffffu;
	if (rv && !hex) {
		uint64_t x = rv;
		if (kt->long_size == 8 && (rv & (1ull << 31)) && !(rv >> 32))
			x = (uint64_t)(int64_t)(int32_t)rv;
		uint64_t lim = kt->long_size == 4 ? 0xfffff001ull
						  : (uint64_t)-4095;
		if (x >= lim)
			err = kt->long_size == 4 ? (int32_t)x : (int64_t)x;
	}
	if (leaf) {
		pk__kt_print_ps(kt, s, func);
		trace_seq_puts(s, "();");
	} else {
		trace_seq_puts(s, "} /* ");
		pk__kt_print_ps(kt, s, func);
	}
	if (hex || !err)
		trace_seq_printf(s, leaf ? " /* = 0x%llx */\n" : " = 0x%llx */\n",
				 (unsigned long long)rv);
	else
		trace_seq_printf(s, leaf ? " /* = %lld */\n" : " = %lld */\n",
				 err);
}

static bool is_leaf(struct pk_ktext *kt, struct kt_ev *k, uint64_t func)
{
	const struct pk_tracedat_event *n = k->next_cpu;
	uint64_t nf;

	return n && pk__kt_type(kt, n->data, n->size) == kt->id_gret &&
	       pk__kt_pid(kt, n->data, n->size) ==
	       pk__kt_pid(kt, k->ev->data, k->ev->size) &&
	       gval(kt, n, "func", &nf) && nf == func;
}

static bool want_retval(struct pk_ktext *kt, const struct pk_tracedat_event *x,
			uint64_t *rv)
{
	return (kt->flags & KT_F(KT_G_RETVAL)) && gval(kt, x, "retval", rv);
}

static void entry(struct pk_ktext *kt, struct trace_seq *s, struct kt_ev *k)
{
	const struct pk_tracedat_event *ev = k->ev;
	struct kt_gcpu *g = gcpu(kt, ev->cpu);
	uint64_t func = 0, depth = 0, call = 0, ret = 0, rv;

	gval(kt, ev, "func", &func);
	gval(kt, ev, "depth", &depth);
	/* check_irq_entry(): funcgraph-irqs off hides irq handlers */
	if (g && !(kt->flags & KT_F(KT_G_IRQS))) {
		if (g->depth_irq >= 0)
			return;
		if (in_irq_text(kt, func)) {
			g->depth_irq = (int)depth;
			return;
		}
	}
	prologue(kt, s, ev, 1, func);
	if (is_leaf(kt, k, func)) {
		const struct pk_tracedat_event *x = k->next_cpu;
		k->consumed_next_cpu = true;
		gval(kt, x, "calltime", &call);
		gval(kt, x, "rettime", &ret);
		if (g) {
			g->depth = (int)depth - 1;
			if (depth < PK_ARRAY_SIZE(g->enter))
				g->enter[depth] = 0;
		}
		duration(kt, s, ret - call, FILL_NONE);
		indent(s, depth);
		if (want_retval(kt, x, &rv)) {
			retval(kt, s, func, rv, true);
		} else {
			pk__kt_print_ps(kt, s, func);
			trace_seq_puts(s, "();\n");
		}
		graph_irq(kt, s, ev, func, false);
		return;
	}
	if (g) {
		g->depth = (int)depth;
		if (depth < PK_ARRAY_SIZE(g->enter))
			g->enter[depth] = func;
	}
	duration(kt, s, 0, FILL_FULL);
	indent(s, depth);
	pk__kt_print_ps(kt, s, func);
	trace_seq_puts(s, "() {\n");
}

static void ret(struct pk_ktext *kt, struct trace_seq *s, struct kt_ev *k)
{
	const struct pk_tracedat_event *ev = k->ev;
	struct kt_gcpu *g = gcpu(kt, ev->cpu);
	uint64_t func = 0, depth = 0, call = 0, rt = 0, over = 0, rv;
	bool match = true;

	gval(kt, ev, "func", &func);
	gval(kt, ev, "depth", &depth);
	gval(kt, ev, "calltime", &call);
	gval(kt, ev, "rettime", &rt);
	gval(kt, ev, "overrun", &over);
	/* check_irq_return() */
	if (g && !(kt->flags & KT_F(KT_G_IRQS)) && g->depth_irq != -1) {
		if (g->depth_irq >= (int)depth)
			g->depth_irq = -1;
		return;
	}
	if (g) {
		g->depth = (int)depth - 1;
		if (depth < PK_ARRAY_SIZE(g->enter)) {
			if (g->enter[depth] != func)
				match = false;
			g->enter[depth] = 0;
		}
	}
	prologue(kt, s, ev, 0, 0);
	duration(kt, s, rt - call, FILL_NONE);
	indent(s, depth);
	if (want_retval(kt, ev, &rv)) {
		retval(kt, s, func, rv, false);
	} else if (match && !(kt->flags & KT_F(KT_G_TAIL))) {
		trace_seq_puts(s, "}\n");
	} else {
		trace_seq_puts(s, "} /* ");
		pk__kt_print_ps(kt, s, func);
		trace_seq_puts(s, " */\n");
	}
	if (kt->flags & KT_F(KT_G_OVERRUN))
		trace_seq_printf(s, " (Overruns: %u)\n", (unsigned)over);
	graph_irq(kt, s, ev, func, false);
}

static void comment(struct pk_ktext *kt, struct trace_seq *s,
		    struct kt_ev *k, int type)
{
	const struct pk_tracedat_event *ev = k->ev;
	struct kt_gcpu *g = gcpu(kt, ev->cpu);
	int depth = g ? g->depth : 0;
	unsigned start;

	prologue(kt, s, ev, 0, 0);
	duration(kt, s, 0, FILL_FULL);
	if (depth > 0)
		for (int i = 0; i < (depth + 1) * INDENT; i++)
			trace_seq_putc(s, ' ');
	trace_seq_puts(s, "/* ");
	start = s->len;
	if (type == kt->id_print) {
		/* the message only */
		const struct tep_event *e = tep_find_event(kt->tep, type);
		const struct tep_format_field *f = e ? tep_find_field(
			(struct tep_event *)e, "buf") : NULL;
		if (f && (uint32_t)f->offset <= ev->size)
			trace_seq_printf(s, "%.*s", (int)strnlen(
				(const char *)ev->data + f->offset,
				ev->size - (uint32_t)f->offset),
				(const char *)ev->data + f->offset);
	} else {
		pk__kt_event_text(kt, s, ev);
	}
	if (s->len > start && s->buffer[s->len - 1] == '\n')
		s->len--;
	trace_seq_puts(s, " */\n");
}

/* print_graph_function(): 1 when handled, 0 for the default path. */
int pk__kt_graph_line(struct pk_ktext *kt, struct trace_seq *s, struct kt_ev *k)
{
	int type = pk__kt_type(kt, k->ev->data, k->ev->size);

	if (type == kt->id_gent)
		entry(kt, s, k);
	else if (type == kt->id_gret)
		ret(kt, s, k);
	else if (type == kt->id_function || type == kt->id_kstack)
		return 0;
	else
		comment(kt, s, k, type);
	return 1;
}
