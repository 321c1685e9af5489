/* SPDX-License-Identifier: MIT */
/* function_graph and kernel_stack output as trace-cmd 3.1 prints them. */
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>
#include "base/base.h"
#include "ftrace/fgraph.h"

#define GRAPH_INDENT 2

static int field(struct trace_seq *s, struct tep_event *ev,
		 struct tep_record *rec, const char *name,
		 unsigned long long *v)
{
	return tep_get_field_val(s, ev, name, rec, v, 0);
}

/* The mark before a duration: $ > 1 s, # > 1 ms, ! > 100 us, + > 10 us. */
static void overhead(struct trace_seq *s, unsigned long long d)
{
	const char *m = "  ";

	if (d == ~0ULL)
		m = "  ";
	else if (d > 1000000000ULL)
		m = "$ ";
	else if (d > 1000000ULL)
		m = "# ";
	else if (d > 100000ULL)
		m = "! ";
	else if (d > 10000ULL)
		m = "+ ";
	trace_seq_puts(s, m);
}

/* "U.NNN us " padded to the column, then "|  ". */
static void duration(struct trace_seq *s, unsigned long long d)
{
	char num[48];
	int len = snprintf(num, sizeof(num), "%llu", d / 1000);

	if (len < 7)
		len += snprintf(num + len, sizeof(num) - len, ".%03llu",
				d % 1000);
	trace_seq_puts(s, num);
	trace_seq_puts(s, " us ");
	for (int i = len; i < 7; i++)
		trace_seq_putc(s, ' ');
	trace_seq_puts(s, "|  ");
}

static void indent(struct trace_seq *s, unsigned long long depth)
{
	for (unsigned long long i = 0; i < depth * GRAPH_INDENT && i < 4096;
	     i++)
		trace_seq_putc(s, ' ');
}

static void func_name(struct trace_seq *s, struct tep_handle *tep,
		      unsigned long long addr, const char *tail)
{
	const char *f = tep_find_function(tep, addr);

	if (f)
		trace_seq_printf(s, "%s%s", f, tail);
	else
		trace_seq_printf(s, "%llx%s", addr, tail);
}

/* The exit record that makes the entry REC a leaf, or NULL. */
static bool leaf_exit(struct td_fgraph *fg, struct tep_handle *tep,
		      struct tep_record *rec, unsigned long long func,
		      struct tep_record *out, struct tep_event **xev)
{
	const struct pk_tracedat_event *p = fg->peek;
	struct tep_event *x = tep_find_event_by_name(tep, "ftrace",
						     "funcgraph_exit");
	unsigned long long v;

	if (!p || !x || p->buffer != 0 || p->size < 4)
		return false;
	memset(fg->buf, 0, sizeof(fg->buf));
	memcpy(fg->buf, p->data, PK_MIN(p->size, sizeof(fg->buf)));
	*out = (struct tep_record){ .ts = p->ts, .cpu = p->cpu,
				    .data = fg->buf,
				    .size = (int)PK_MIN(p->size, sizeof(fg->buf)) };
	if (tep_data_type(tep, out) != x->id ||
	    tep_data_pid(tep, out) != tep_data_pid(tep, rec))
		return false;
	if (field(NULL, x, out, "func", &v) || v != func)
		return false;
	*xev = x;
	return true;
}

static int ent_handler(struct trace_seq *s, struct tep_record *rec,
		       struct tep_event *ev, void *ctx)
{
	struct td_fgraph *fg = ctx;
	struct tep_handle *tep = ev->tep;
	unsigned long long func, depth, call, ret;
	struct tep_record xr;
	struct tep_event *x;

	if (field(s, ev, rec, "func", &func) ||
	    field(s, ev, rec, "depth", &depth))
		return trace_seq_putc(s, '!');
	if (leaf_exit(fg, tep, rec, func, &xr, &x) &&
	    !field(s, x, &xr, "rettime", &ret) &&
	    !field(s, x, &xr, "calltime", &call)) {
		fg->consumed = true;
		overhead(s, ret - call);
		duration(s, ret - call);
		indent(s, depth);
		func_name(s, tep, func, "();");
		return 0;
	}
	overhead(s, ~0ULL);
	trace_seq_puts(s, "           |  ");
	indent(s, depth);
	func_name(s, tep, func, "() {");
	return 0;
}

static int ret_handler(struct trace_seq *s, struct tep_record *rec,
		       struct tep_event *ev, void *ctx)
{
	unsigned long long call, ret, depth;

	(void)ctx;
	if (field(s, ev, rec, "rettime", &ret) ||
	    field(s, ev, rec, "calltime", &call))
		return trace_seq_putc(s, '!');
	overhead(s, ret - call);
	duration(s, ret - call);
	if (field(s, ev, rec, "depth", &depth))
		return trace_seq_putc(s, '!');
	indent(s, depth);
	trace_seq_putc(s, '}');
	return 0;
}

void pk__td_fgraph_register(struct tep_handle *tep, struct td_fgraph *fg)
{
	tep_register_event_handler(tep, -1, "ftrace", "funcgraph_entry",
				   ent_handler, fg);
	tep_register_event_handler(tep, -1, "ftrace", "funcgraph_exit",
				   ret_handler, fg);
}
