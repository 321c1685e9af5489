/* SPDX-License-Identifier: MIT */
/* Kernel-text printer: the headers of the "trace" file. */
#include "ftrace/ktext.h"

static const char *tracer_name(const struct pk_ktext *kt)
{
	return kt->tracer == KT_GRAPH ? "function_graph"
	       : kt->tracer == KT_FUNCTION ? "function" : "nop";
}

/* print_trace_header(): the latency header. */
static void lat_trace_header(struct pk_ktext *kt, FILE *out,
			     unsigned long entries, unsigned long total)
{
	fprintf(out, "# %s latency trace v1.1.5 on %s\n", tracer_name(kt),
		kt->release);
	fputs("# -----------------------------------"
	      "---------------------------------\n", out);
	fprintf(out, "# latency: %lu us, #%lu/%lu, CPU#%d | (M:%s VP:%d, KP:%d, "
		"SP:%d HP:%d #P:%d)\n", 0ul, entries, total, 0, kt->preempt,
		0, 0, 0, 0, kt->nr_online);
	fputs("#    -----------------\n", out);
	fprintf(out, "#    | task: %.16s-%d (uid:%d nice:%ld policy:%ld "
		"rt_prio:%ld)\n", "", 0, 0, 0l, 0l, 0l);
	fputs("#    -----------------\n", out);
	fputs("#\n", out);
}

static void lat_help(FILE *out)
{
	fputs("#                    _------=> CPU#            \n"
	      "#                   / _-----=> irqs-off/BH-disabled\n"
	      "#                  | / _----=> need-resched    \n"
	      "#                  || / _---=> hardirq/softirq \n"
	      "#                  ||| / _--=> preempt-depth   \n"
	      "#                  |||| / _-=> migrate-disable \n"
	      "#                  ||||| /     delay           \n"
	      "#  cmd     pid     |||||| time  |   caller     \n"
	      "#     \\   /        ||||||  \\    |    /       \n", out);
}

static void event_info(struct pk_ktext *kt, FILE *out, unsigned long entries,
		       unsigned long total)
{
	fprintf(out, "# entries-in-buffer/entries-written: %lu/%lu   #P:%d\n",
		entries, total, kt->nr_online);
	fputs("#\n", out);
}

static void func_help(struct pk_ktext *kt, FILE *out, unsigned long entries,
		      unsigned long total)
{
	bool tgid = kt->flags & KT_F(KT_RECORD_TGID);

	event_info(kt, out, entries, total);
	fprintf(out, "#           TASK-PID    %s CPU#     TIMESTAMP  FUNCTION\n",
		tgid ? "   TGID   " : "");
	fprintf(out, "#              | |      %s   |         |         |\n",
		tgid ? "     |    " : "");
}

static void func_help_irq(struct pk_ktext *kt, FILE *out,
			  unsigned long entries, unsigned long total)
{
	static const char sp[] = "            ";
	int prec = kt->flags & KT_F(KT_RECORD_TGID) ? 12 : 2;

	event_info(kt, out, entries, total);
	fprintf(out, "#                            %.*s  _-----=> irqs-off/BH-disabled\n", prec, sp);
	fprintf(out, "#                            %.*s / _----=> need-resched\n", prec, sp);
	fprintf(out, "#                            %.*s| / _---=> hardirq/softirq\n", prec, sp);
	fprintf(out, "#                            %.*s|| / _--=> preempt-depth\n", prec, sp);
	fprintf(out, "#                            %.*s||| / _-=> migrate-disable\n", prec, sp);
	fprintf(out, "#                            %.*s|||| /     delay\n", prec, sp);
	fprintf(out, "#           TASK-PID  %.*s CPU#  |||||  TIMESTAMP  FUNCTION\n", prec, "     TGID   ");
	fprintf(out, "#              | |    %.*s   |   |||||     |         |\n", prec, "       |    ");
}

/* print_lat_header() of the function_graph tracer. */
static void graph_lat_header(struct pk_ktext *kt, FILE *out)
{
	static const char sp[] = "                                     ";
	int size = 0;

	if (kt->flags & KT_F(KT_G_ABSTIME))
		size += 16;
	if (kt->flags & KT_F(KT_G_CPU))
		size += 4;
	if (kt->flags & KT_F(KT_G_PROC))
		size += 17;
	fprintf(out, "#%.*s  _-----=> irqs-off        \n", size, sp);
	fprintf(out, "#%.*s / _----=> need-resched    \n", size, sp);
	fprintf(out, "#%.*s| / _---=> hardirq/softirq \n", size, sp);
	fprintf(out, "#%.*s|| / _--=> preempt-depth   \n", size, sp);
	fprintf(out, "#%.*s||| /                      \n", size, sp);
}

void pk__kt_graph_header(struct pk_ktext *kt, FILE *out)
{
	bool lat = kt->flags & KT_F(KT_LATENCY_FMT);
	uint64_t f = kt->flags;

	if (lat)
		graph_lat_header(kt, out);
	fputc('#', out);
	if (f & KT_F(KT_G_ABSTIME))
		fputs("     TIME       ", out);
	if (f & KT_F(KT_G_CPU))
		fputs(" CPU", out);
	if (f & KT_F(KT_G_PROC))
		fputs("  TASK/PID       ", out);
	if (lat)
		fputs("||||   ", out);
	if (f & KT_F(KT_G_DURATION))
		fputs("  DURATION   ", out);
	fputs("               FUNCTION CALLS\n", out);
	fputc('#', out);
	if (f & KT_F(KT_G_ABSTIME))
		fputs("     |         ", out);
	if (f & KT_F(KT_G_CPU))
		fputs(" |  ", out);
	if (f & KT_F(KT_G_PROC))
		fputs("   |    |      ", out);
	if (lat)
		fputs("||||   ", out);
	if (f & KT_F(KT_G_DURATION))
		fputs("   |   |      ", out);
	fputs("               |   |   |   |\n", out);
}

void pk__kt_header(struct pk_ktext *kt, FILE *out, unsigned long entries,
	       unsigned long total, bool empty)
{
	uint64_t f = kt->flags;

	fprintf(out, "# tracer: %s\n#\n", tracer_name(kt));
	if (!(f & KT_F(KT_CONTEXT_INFO)))
		return;
	if (kt->tracer == KT_GRAPH) {
		if (f & KT_F(KT_LATENCY_FMT)) {
			if (empty)
				return;
			lat_trace_header(kt, out, entries, total);
		}
		pk__kt_graph_header(kt, out);
		return;
	}
	if (f & KT_F(KT_LATENCY_FMT)) {
		if (empty)
			return;
		lat_trace_header(kt, out, entries, total);
		if (!(f & KT_F(KT_VERBOSE)))
			lat_help(out);
		return;
	}
	if (f & KT_F(KT_VERBOSE))
		return;
	if (f & KT_F(KT_IRQ_INFO))
		func_help_irq(kt, out, entries, total);
	else
		func_help(kt, out, entries, total);
}
