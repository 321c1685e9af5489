/* SPDX-License-Identifier: MIT */
/*
 * Internal: a compiled event formatter. An event format file (fields and
 * `print fmt:`) is parsed once into a small expression tree and a list of
 * conversions; pk__tf_print() then formats a record's payload straight into an
 * output buffer (no stdio, no allocation per record).
 *
 * Two styles: with TF_PLUGINS the payload is what libtraceevent plus the
 * plugins trace-cmd loads print (sched_switch/wakeup, hrtimer, futex,
 * kmem; events of other plugins are left to the caller); without it, what
 * libtraceevent prints from the print fmt alone. Both follow
 * libtraceevent's reading of the print fmt exactly (its operator-tree
 * rotation, unknown symbolic names as -1, "(nil)", %s of a long as a
 * printk string ...): ftrace_tfdiff checks this record by record. The
 * third style, TF_KERNEL, is the kernel's own text (the "trace" file): C
 * precedence, %c, a bare %p as the kernel prints it, the enum names the
 * kernel resolves itself; ftrace_ktext checks it against the kernel.
 *
 * Use: pk__tf_compile() each format once (tf_event), fill a tf_env (long
 * size, byte order, pk__tf_comms_parse(), and load_syms / load_printk
 * callbacks that call pk__tf_syms_parse() / pk__tf_printk_parse() on first use),
 * then pk__tf_print() each record into a tf_out; on TF_FALLBACK print that
 * record another way. One env may serve several threads printing at once
 * when symbols and printk strings are loaded first and env->frozen is set
 * (the sched plugin then registers no comms: pk__tf_plugin_register() does,
 * in record order, on one thread).
 *
 * Anything the compiler does not understand makes pk__tf_compile() leave the
 * event without a program (tf_event.ok false); anything a record does that
 * we cannot reproduce exactly (a string running past the record, a
 * division by zero, a value whose sign would matter) makes pk__tf_print()
 * return TF_FALLBACK: the caller formats that record another way.
 */
#ifndef PK_TRACEFMT_FMT_H
#define PK_TRACEFMT_FMT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/bigbuf.h"
struct tep_handle;
#include "symbol/ksyms.h"

#define TF_FALLBACK 1

/* pk__tf_compile() flags: TF_PLUGINS (trace-cmd's text), TF_KERNEL (the
 * kernel's own text: C precedence, %c, %p as the kernel prints it with
 * hash-ptr off, the enum names it knows; no plugins) */
enum { TF_PLUGINS = 1, TF_KERNEL = 2 };

/* field flags */
enum {
	TFF_SIGNED = 1, TFF_ARRAY = 2, TFF_DYN = 4, TFF_REL = 8,
	TFF_CHAR = 16, TFF_LONG = 32,
};

struct tf_field {
	char *name;
	char *type;
	uint32_t off, size;
	uint32_t elem;          /* element size of arrays */
	uint8_t flags;
};

struct tf_node;
struct tf_conv;
struct tf_env;
struct tf_out;

/* Which plugin replaces the print fmt (with TF_PLUGINS). */
enum tf_plugin {
	TFP_NONE, TFP_FALLBACK, TFP_SCHED_SWITCH, TFP_SCHED_WAKEUP,
	TFP_HRTIMER_START, TFP_HRTIMER_EXPIRE, TFP_FUTEX,
	TFP_KMEM,               /* "(func+0xoff) " then the print fmt */
	TFP_BPRINT,             /* ftrace:bprint (libtraceevent itself) */
};

struct tf_event {
	int id;
	char *name, *system;
	size_t name_len;
	struct tf_field *fields;
	int nr_fields;
	int common_pid;         /* field index or -1 */
	/* print program */
	struct tf_node *nodes;
	int nr_nodes;
	struct tf_conv *convs;
	int nr_convs;
	char *text;             /* literal pieces, NUL separated */
	bool ok;                /* print fmt compiled */
	bool kernel;            /* compiled with TF_KERNEL */
	enum tf_plugin plugin;
	int pf[8];              /* plugin field indexes */
	const char *why;        /* why !ok (static string) */
};

/* A printk string (trace_printk formats, tracepoint_string()s). */
struct tf_pstr { uint64_t addr; const char *s; uint32_t len; bool odd; };


struct tf_env {
	bool big;
	int long_size;
	/* kallsyms: loaded on first use through LOAD_SYMS (may be NULL) */
	int (*load_syms)(struct tf_env *env);
	void *priv;
	bool syms_loaded;
	struct pk_ksyms syms;   /* the kernel symbol table */
	/* printk strings: loaded on first use through LOAD_PRINTK */
	int (*load_printk)(struct tf_env *env);
	bool printk_loaded;
	struct tf_pstr *pstrs;
	size_t nr_pstrs;
	struct tf_event **bfmts;        /* per printk string: compiled */
	/* pid -> comm: a libtraceevent handle's table, made on first use
	 * (pk__tf_comm_tep()). Its rules decide which name a pid shows:
	 * names registered before the first lookup pile up (a pid may get
	 * two), those after it are refused for a pid that has one; trace-cmd
	 * prints through the same rules. */
	struct tep_handle *ctep;
	char sym_name[16][520]; /* NUL-terminated copies (pk__tf_sym_cstr) */
	unsigned sym_next;
	/* Optional, in place of the kallsyms table: the symbol holding ADDR
	 * (perf's resolver: its machine's kernel map) into *S (name and
	 * start; the name lives until the next call); false: none */
	bool (*find_sym)(struct tf_env *env, uint64_t addr, struct pk_ksym *s);
	struct pk_ksym found;   /* find_sym's answer */
	/* TF_KERNEL events: %pS / %ps (OFFSET false) of ADDR as the kernel
	 * prints them, appended to O (0 or -ENOMEM); NULL: as libtraceevent */
	int (*kernel_sym)(struct tf_env *env, struct tf_out *o, uint64_t addr,
			  bool offset);
	/* set while several threads print: printing registers no comms
	 * (the reader registers them in record order: pk__tf_plugin_register) */
	bool frozen;
};

/* An output buffer; tf_out_reserve() before writing. */
struct tf_out {
	char *p;
	size_t len, cap;
	struct pk_bigbuf mem;
};

int pk__tf_out_grow(struct tf_out *o, size_t need);
static inline int tf_out_reserve(struct tf_out *o, size_t n)
{
	return o->cap - o->len >= n ? 0 : pk__tf_out_grow(o, n);
}
void pk__tf_out_fini(struct tf_out *o);

/*
 * Parses the format file TEXT (LEN bytes) of SYSTEM into EV. Returns 0 (the
 * print program may still be missing: EV->ok), or a negative error when the
 * name, ID or fields cannot be read. FLAGS: TF_PLUGINS.
 */
int pk__tf_compile(struct tf_event *ev, const char *text, size_t len,
	       const char *system, int long_size, unsigned flags);
void pk__tf_event_fini(struct tf_event *ev);
int pk__tf_find_field(const struct tf_event *ev, const char *name);

/*
 * Appends the payload of the record DATA (SIZE bytes) to OUT. 0, TF_FALLBACK
 * (OUT unchanged) or -ENOMEM.
 */
int pk__tf_print(const struct tf_event *ev, struct tf_env *env,
	     const uint8_t *data, uint32_t size, struct tf_out *out);

/* env: symbols (tfsyms.c) */
int pk__tf_syms_parse(struct tf_env *env, const char *text, size_t len);
/* libtraceevent's symbol of ADDR (pk__ksyms_tep), or NULL; its name is
 * S->len bytes of the kallsyms text, which TEXT must outlive ENV for */
const struct pk_ksym *pk__tf_sym_find(struct tf_env *env, uint64_t addr);
/* The name of S NUL-terminated (valid for the next 15 calls). */
const char *pk__tf_sym_cstr(struct tf_env *env, const struct pk_ksym *s);
/* env: printk strings ("0xADDR : \"text\"" lines); TEXT outlives ENV */
int pk__tf_printk_parse(struct tf_env *env, const char *text, size_t len);
const struct tf_pstr *pk__tf_printk_find(struct tf_env *env, uint64_t addr);
/* Compiles the conversions of a bare format string FMT into EV (no
 * arguments: bprint takes them from the record). 0 or -ENOMEM; EV->ok. */
int pk__tf_compile_fmt(struct tf_event *ev, const char *fmt, size_t len,
		   int long_size);
/* env: comms, as libtraceevent keeps them (saved_cmdlines text, then
 * what the sched plugins register while printing) */
int pk__tf_comms_parse(struct tf_env *env, const char *text, size_t len);
/* PID's name ("<idle>" for 0, "<...>" unknown); the strings stay valid
 * until pk__tf_env_fini(). The first lookup of a pid other than 0 fixes
 * the names registered so far (see tf_env.ctep). */
const char *pk__tf_comm(struct tf_env *env, int pid, size_t *len);
/* Registers COMM (LEN bytes) for PID as tep_register_comm() does. 0 or
 * -ENOMEM. */
int pk__tf_comm_add(struct tf_env *env, int pid, const char *comm, size_t len);
/* The handle holding ENV's comms (made now if need be), for a full
 * libtraceevent set-up to build on (tf_tep_src.into): one table, as under
 * trace-cmd. NULL: no memory. */
struct tep_handle *pk__tf_comm_tep(struct tf_env *env);
void pk__tf_env_fini(struct tf_env *env);

/* helpers shared by tfeval.c and tfplug.c */
uint64_t pk__tf_field_u64(const struct tf_env *env, const struct tf_field *f,
		      const uint8_t *data);
char *pk__tf_put_u64(char *p, uint64_t v);          /* decimal */
char *pk__tf_put_hex(char *p, uint64_t v, bool upper);
int pk__tf_plugin_print(const struct tf_event *ev, struct tf_env *env,
		    const uint8_t *data, uint32_t size, struct tf_out *out);
void pk__tf_plugin_bind(struct tf_event *ev);
/* Registers the comms a sched plugin would for this record. */
void pk__tf_plugin_comms(const struct tf_event *ev, struct tf_env *env,
		     const uint8_t *data, uint32_t size);
/* The same without printing; also when ENV is frozen. */
void pk__tf_plugin_register(const struct tf_event *ev, struct tf_env *env,
			const uint8_t *data, uint32_t size);
/* Whether printing EV may look up kernel symbols. */
bool pk__tf_uses_syms(const struct tf_event *ev);

#endif
