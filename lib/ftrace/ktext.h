/* SPDX-License-Identifier: MIT */
/*
 * Internal: the kernel-text printer (what tracefs's "trace" and
 * "trace_pipe" files print). ktext.c holds the object, options, command
 * names and symbols; ktext_line.c the per-event line (context columns,
 * raw/hex/bin/fields); ktext_hdr.c the headers; ktext_graph.c the
 * function_graph layout; ktext_td.c and ktext_live.c feed it from a
 * trace.dat file or from tracefs.
 */
#ifndef PK_FTRACE_KTEXT_H
#define PK_FTRACE_KTEXT_H
#include <perfkit/ftrace.h>
#include <event-parse.h>
#include <trace-seq.h>
#include "base/base.h"
#include "base/comm.h"
#include "symbol/ksyms.h"
#include "tracedat/rbpage.h"
#include "tracefmt/events.h"
#include "tracefmt/tep.h"

/* Trace options the printer knows (bit numbers). */
enum kt_opt {
	KT_PRINT_PARENT, KT_SYM_OFFSET, KT_SYM_ADDR, KT_VERBOSE, KT_RAW,
	KT_HEX, KT_BIN, KT_FIELDS, KT_CONTEXT_INFO, KT_LATENCY_FMT,
	KT_RECORD_TGID, KT_IRQ_INFO, KT_MARKERS, KT_ANNOTATE,
	KT_PRINTK_MSGONLY, KT_TRACE_PRINTK, KT_RECORD_CMD, KT_HASH_PTR,
	KT_G_CPU, KT_G_OVERHEAD, KT_G_PROC, KT_G_DURATION, KT_G_ABSTIME,
	KT_G_IRQS, KT_G_TAIL, KT_G_OVERRUN, KT_G_RETVAL, KT_G_RETVAL_HEX,
	KT_NR_OPTS,
};
#define KT_F(o) (1ull << (o))

enum kt_tracer { KT_NOP, KT_FUNCTION, KT_GRAPH };

/* Where the printer's metadata comes from. */
struct kt_src {
	const char *hdr_page;   /* events/header_page text (may be NULL) */
	size_t hdr_page_len;
	int nr_fmts;
	const char *const *fmt_sys;
	const char *const *fmt_text;
	const size_t *fmt_len;
	const bool *fmt_skip;   /* formats not to parse (NULL: none) */
	/* kallsyms: KALLSYMS_LEN bytes that outlive the printer, or with
	 * KALLSYMS_OWN a pk__malloc'ed text it takes; printk: pk__malloc'ed,
	 * NUL-terminated, taken. pk__kt_new() frees what it takes on error
	 * too. cmdlines, uname: NUL-terminated, only read. */
	const char *kallsyms;
	size_t kallsyms_len;
	bool kallsyms_own;
	char *printk;
	const char *cmdlines, *uname;
	const char *tgids;      /* saved_tgids stored in the file (NULL:
				   none), used unless the options give one */
	const char *clock;
	int long_size;
	bool big;
	int nr_cpus;
	bool untrusted;         /* from a file: parse in a child first */
};


struct kt_gcpu { int last_pid, depth, depth_irq; uint64_t enter[64]; };

struct pk_ktext {
	struct tf_tep tt;         /* the libtraceevent handle */
	struct tep_handle *tep;   /* tt.tep */
	/* payloads: the formats compiled, libtraceevent for the rest */
	struct tf_tep_fmt *fx;    /* per format: text and system (owned) */
	int nr_fx;
	struct tf_events evs;
	struct tf_env env;
	struct tf_out out;
	/* kallsyms and printk texts: ENV's printk table points in the
	 * latter, libtraceevent gets both with its first payload (tep_texts)
	 * and pk__kt_ksyms() parses the former on first use */
	const char *ks_text;      /* kallsyms (ks_own: KT's) */
	size_t ks_len;
	bool ks_own;
	char *env_printk;
	bool tep_texts;
	struct trace_seq s;
	uint64_t flags;
	enum kt_tracer tracer;
	bool tracer_given;
	bool in_ns;
	bool pipe;                /* trace_pipe: LOST EVENTS lines */
	bool big;
	int long_size;
	int nr_online, cpu_digits;
	struct pk_rb_layout layout;
	/* names */
	struct pk__comms comms;   /* pid -> comm */
	struct pk__hash tgids;    /* pid -> tgid */
	struct pk_ksyms ksyms;    /* kernel symbols: pk__kt_ksyms() */
	bool ksyms_parsed;
	uint64_t irq_start, irq_end;  /* __irqentry_text_* */
	/* ftrace event ids */
	int id_function, id_print, id_bprint, id_bputs, id_raw_data;
	int id_gent, id_gret, id_kstack, id_ustack, id_repeats;
	/* state */
	uint64_t time_start;
	unsigned long idx;
	bool annotate;            /* some CPU lost events: mark buffer starts */
	uint8_t started[512];     /* CPUs whose first event was printed */
	struct kt_gcpu *gcpu;     /* per CPU (function_graph) */
	int nr_gcpu;
	char release[80], preempt[64];
	char *clock;
	/* live source */
	struct pk_tracefs *tfs;
	char *instance;
	uint8_t *scratch;
	size_t scratch_max;
};

/* One event being printed, with the next ones for lookahead. */
struct kt_ev {
	const struct pk_tracedat_event *ev;
	const struct pk_tracedat_event *next;      /* merged order (or NULL) */
	const struct pk_tracedat_event *next_cpu;  /* same CPU (or NULL) */
	bool consumed_next_cpu;   /* out: next_cpu was printed with it */
};

/* ktext.c */
int pk__kt_new(const struct kt_src *src, const struct pk_ktext_opts *o,
	   struct pk_ktext **out);
int pk__kt_set_options(struct pk_ktext *kt, const char *list);
const char *pk__kt_comm(struct pk_ktext *kt, int pid, char buf[16]);
int pk__kt_tgid(const struct pk_ktext *kt, int pid);
int pk__kt_parse_cmdlines(struct pk_ktext *kt, const char *text);
int pk__kt_parse_tgids(struct pk_ktext *kt, const char *text);
void pk__kt_print_sym(struct pk_ktext *kt, struct trace_seq *s, uint64_t ip,
		  bool offset);
void pk__kt_print_ip(struct pk_ktext *kt, struct trace_seq *s, uint64_t ip);
bool pk__kt_is_text(struct pk_ktext *kt, uint64_t ip);
/* KT's kernel symbols, parsed from its kallsyms text on first use (empty
 * without one); irq_start/irq_end set with them. */
const struct pk_ksyms *pk__kt_ksyms(struct pk_ktext *kt);
void pk__kt_print_ps(struct pk_ktext *kt, struct trace_seq *s, uint64_t ip);
bool pk__kt_clock_in_ns(const char *clock);
void pk__kt_detect_tracer(struct pk_ktext *kt, const uint8_t *types);

/* ktext_line.c */
int pk__kt_type(const struct pk_ktext *kt, const void *data, uint32_t size);
int pk__kt_pid(const struct pk_ktext *kt, const void *data, uint32_t size);
void pk__kt_lat_flags(struct trace_seq *s, const uint8_t *data);
void pk__kt_payload(struct pk_ktext *kt, struct trace_seq *s,
		const struct pk_tracedat_event *ev);
void pk__kt_event_text(struct pk_ktext *kt, struct trace_seq *s,
		   const struct pk_tracedat_event *ev);
void pk__kt_line(struct pk_ktext *kt, struct trace_seq *s, struct kt_ev *k);
uint64_t pk__kt_ulong(const struct pk_ktext *kt, const void *p);

/* ktext_hdr.c */
void pk__kt_header(struct pk_ktext *kt, FILE *out, unsigned long entries,
	       unsigned long total, bool empty);

/* ktext_graph.c */
int pk__kt_graph_line(struct pk_ktext *kt, struct trace_seq *s, struct kt_ev *k);
void pk__kt_graph_header(struct pk_ktext *kt, FILE *out);

/* ktext_td.c */
int pk__kt_print_range(struct pk_ktext *kt, FILE *out,
		   const struct pk_tracedat_event *q, bool *done,
		   size_t from, size_t to, size_t n, long *printed);

/* Writes the sequence to OUT and resets it. */
int pk__kt_flush_seq(struct pk_ktext *kt, FILE *out);
/* Gives libtraceevent the kallsyms and printk texts, once (before the
 * first payload it prints). 0 or -ENOMEM. */
int pk__kt_tep_texts(struct pk_ktext *kt);

#endif
