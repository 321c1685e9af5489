/* SPDX-License-Identifier: MIT */
/*
 * Internal: the report's tables. Strings and resolved locations are
 * interned (an index each); hist entries live per event; every callchain
 * node of every entry lives in one array, as a trie (one frame a node:
 * perf's merged nodes are its runs of one child and no hits, made when
 * printing).
 */
#ifndef PK_REPORT_INT_H
#define PK_REPORT_INT_H
#include <stdbool.h>
#include <stdint.h>
#include "base/hash.h"
#include <perfkit/report.h>

struct pk_rbi;

/* A resolved location: an entry's symbol, a callchain node's function. */
struct rp_sym {
	const char *dso;      /* short name; NULL: no mapping ("[unknown]") */
	const char *name;     /* NULL: unresolved */
	uint64_t start;       /* symbol start, or the raw address */
	uint64_t addr;        /* the address within the DSO (unresolved) */
	uint32_t dso_idx;     /* the DSO's order of first sight */
	char level;           /* pk__rp_level()'s */
	bool inlined;
	bool object;          /* a data object (perf: name+offset) */
	uint32_t node_key;    /* callchain nodes: perf matches an inlined
				 function by its name alone (the first
				 inlined location of that name), others by
				 DSO and start (the location itself) */
	uint64_t size;        /* the symbol's (with the symbol_size key) */
	uint32_t namelen;     /* perf's length of the name, 0: strlen */
};

struct rp_node {
	uint32_t sym, parent, child, next; /* child/next: 0 for none */
	uint32_t hint;                     /* the child last gone to */
	uint32_t nkids;                    /* over FEW_KIDS: in nodeidx */
	uint64_t hit, cumul;               /* ending here; through here */
};

struct rp_entry {
	const char *comm;
	int32_t pid, tid;
	uint32_t sym;
	uint64_t addr;                     /* unresolved: the entry's address */
	uint64_t self, acc, nr_self, nr_acc;
	uint32_t root;                     /* callchain root node, 0: none */
	uint32_t max_depth;                /* longest chain appended */
	char level;                        /* pk__rp_level() as first seen */
	bool guest;                        /* a VM guest's thread (its own
					      name, apart from the host's) */
	bool shown;                        /* a sample the filters let by */
	bool unlisted;                     /* let by, then hidden by perf's
					      --symbol-filter or
					      --socket-filter: its samples
					      count in the relative
					      "Samples" still */
	int32_t cpu, socket;               /* -1: not recorded */
	uint64_t weight, wsum;             /* the samples' weight; its sum */
	uint64_t sys, us;                  /* self period in kernel, user */
	uint64_t symsize;                  /* the symbol's size */
	const char *srcline, *srcfile, *trace; /* interned, with their keys */
	const char *parent;
	bool gone;                         /* merged into its twin (perf's
					      collapse): not shown */
	/* branch mode: the branch's source and target (rp_sym ids), its
	 * cycles and flags (RP_BR_*) */
	uint32_t bfrom, bto;
	uint16_t cycles;
	uint8_t bflags;
	/* memory mode: the data address, its location (rp_sym id) and
	 * offset in its symbol, the data source, the instruction latency */
	uint64_t daddr, doff, data_src;
	uint32_t dsym;
	uint16_t ins_lat;
};
enum { RP_BR_MISPRED = 1, RP_BR_PREDICTED = 2, RP_BR_IN_TX = 4,
       RP_BR_ABORT = 8 };

struct rp_hists {
	struct rp_entry *e;
	uint32_t n, cap;
	struct pk__hash idx;               /* key -> entry index + 1 */
	uint64_t total, nr_samples;
	uint64_t total_shown, nr_shown;    /* what the filters let through */
	/* intree.c: perf's tree of entries, once an inlined frame is seen */
	struct pk_rbi *t;                  /* a node per entry */
	uint32_t root, tn, tcap;           /* tn: entries in the tree */
	bool collapsed;
};

/* A filter: a comma-separated list cut into its words. */
struct rp_list {
	char *buf;
	const char **w;
	unsigned n;
};

/* The browser's zoom and symbol filter (view.c): the entries of one DSO
 * (short name), thread, and symbols holding a text; NULL, false: all. */
struct rp_zoom {
	const char *dso, *sym;
	int32_t tid;
	bool thread;                       /* tid is set */
};

/* The raw memo's key: see memo.c. */
struct rp_raw {
	uint64_t ip, genu, genk;
	const char *comm;
	int32_t pid, tid;
	uint32_t attr, nr, ips_off, memo;
	uint16_t mode;
};

/* pk__rp_sym_of's cache: an address's interned location. */
struct rp_fcache {
	uint64_t ip, gen;
	uint32_t pid, id;
	uint16_t mode;
};
enum { RP_FCACHE_BITS = 16, RP_FCACHE = 1 << RP_FCACHE_BITS };

/* The generation of a process's maps, asked once per sample. */
struct rp_gen {
	uint64_t gen, sample;
	uint32_t pid;
};

enum {
	RK_COMM = 1, RK_PID = 2, RK_DSO = 4, RK_SYM = 8, RK_CPU = 16,
	RK_SOCKET = 32, RK_PERIOD = 64, RK_WEIGHT = 128, RK_LWEIGHT = 256,
	RK_SRCFILE = 512, RK_SRCLINE = 1024, RK_TRACE = 2048, RK_PARENT = 4096,
	RK_SYMSIZE = 8192,
	/* branch mode's (branch.c) */
	RK_DSO_FROM = 1 << 14, RK_DSO_TO = 1 << 15, RK_SYM_FROM = 1 << 16,
	RK_SYM_TO = 1 << 17, RK_CYCLES = 1 << 18, RK_MISPRED = 1 << 19,
	RK_IN_TX = 1 << 20, RK_ABORT = 1 << 21,
	/* memory mode's (mem.c) */
	RK_MEM = 1 << 22, RK_SNOOP = 1 << 23, RK_TLB = 1 << 24,
	RK_LOCKED = 1 << 25, RK_BLOCKED = 1 << 26, RK_DADDR_SYM = 1 << 27,
	RK_DADDR_DSO = 1 << 28, RK_INS_LAT = 1 << 29,
};
#define RK_MEMORY (RK_MEM | RK_SNOOP | RK_TLB | RK_LOCKED | RK_BLOCKED | \
		   RK_DADDR_SYM | RK_DADDR_DSO | RK_INS_LAT)
#define RK_BRANCH (RK_DSO_FROM | RK_DSO_TO | RK_SYM_FROM | RK_SYM_TO | \
		   RK_CYCLES | RK_MISPRED | RK_IN_TX | RK_ABORT)
#define RP_MAX_KEYS 16
/* Output fields that are no sort key (perf's hpp fields), above RK_*. */
enum {
	RF_OVERHEAD = 1 << 30, RF_SYS, RF_US, RF_CHILDREN, RF_SAMPLE, RF_PERIOD,
	RF_IPC,  /* perf's empty IPC column (ipc_null) that comes with a -s
		    list saying "symbol": also a sort key (the symbol
		    compared as perf's sort__sym_cmp) */
};
#define RP_MAX_FIELDS 32

struct pk_tracefmt;

/* An event group of HEADER_GROUP_DESC: attrs LEAD .. LEAD + NR - 1. */
struct rp_group {
	char *name;                        /* "{anon_group}" or the name */
	uint32_t lead, nr;
};

/* A group being printed: its rows (the leader's entries and, for what
 * only members have, zero copies) and each member's entry of each row
 * (MEM[row * NMEM + m], NULL where it has none; m 0 the leader). */
struct rp_grp_rows {
	unsigned lead, nmem;
	bool relative;          /* of what the filters let by */
	unsigned sort_idx;      /* the member compared first (perf's
				   --group-sort-idx); 0: the leader */
	const struct rp_entry *rows;
	const struct rp_entry **mem;
};

struct pk_report {
	struct pk_session *sess;
	struct pk_perfdata *pd;
	struct pk_report_new_opts o;
	uint32_t keys[RP_MAX_KEYS];        /* sort keys in order (RK_*) */
	unsigned nkeys, keymask;
	uint32_t fields[RP_MAX_FIELDS];    /* -F: RK_* and RF_* in order */
	unsigned nfields;
	uint32_t order[RP_MAX_FIELDS];     /* -F: what entries sort by */
	unsigned norder;
	struct rp_hists *h;                /* per attr */
	unsigned nh;
	struct rp_sym *sym;
	uint32_t nsym, capsym;
	struct pk__hash symidx;
	char **str;                        /* interned strings */
	uint32_t nstr, capstr;
	struct pk__hash stridx;
	/* tids whose samples took perf's default name ":TID" (value 1:
	 * their first COMM renames those entries; 0: no longer) */
	struct pk__hash deftid;
	struct rp_node *node;
	uint32_t nnode, capnode;
	/* top.c, perf's aging of callchain nodes (pk_report_decay), for the
	 * NBIAS nodes made before the last one: perf's node sum (its hit and
	 * its children's hits, not theirs below) less the node's own sum
	 * (pk__rp_cumul adds it), and whether a chain ended there once (the
	 * split stays when its hits age to nothing) */
	int64_t *node_bias;
	uint8_t *node_split;
	uint32_t nbias;
	struct pk__hash nodeidx;           /* parent << 32 | sym -> node */
	uint32_t *chain, capchain;         /* the sample being added */
	uint64_t *chain_ip;                /* each frame's address */
	const char **chain_src;            /* an inlined frame's "file:line"
					      (--children with srcline) */
	uint32_t *seen;                    /* entries it added to */
	struct pk_unwind *uw;
	uint64_t *uips;
	struct pk_frame *frames;
	uint32_t capframes;
	uint64_t lost;
	uint32_t *inl_first;               /* name's string index -> the
					      first inlined location + 1 */
	uint32_t capinl;
	uint64_t nadded;                   /* pk_report_add calls */
	const char *last_comm;             /* the session's, and its copy */
	const char *last_comm_str;
	struct rp_fcache *fcache;
	struct rp_gen gen[2];              /* kernel, user */
	struct rp_list comms, dsos, syms, pids, tids;
	struct rp_zoom zoom;               /* the browser's (view.c) */
	/* memo.c: samples of one kind replayed */
	struct rp_memo *memo;
	uint32_t nmemo, capmemo;
	struct pk__hash memo_idx;          /* key hash -> memo */
	uint32_t *memo_pool;               /* chains and (entry, end) pairs */
	size_t npool, cappool;
	uint64_t memo_hash;                /* the kind being noted */
	bool memo_rec;                     /* noting the sample's steps */
	bool memo_off;
	bool intree;                       /* entries go by perf's tree */
	const char *sort_str;              /* -s as given (memory mode) */
	bool ipc;                          /* perf's IPC column (ipc_null) */
	const char *mispred_out;           /* perf's last "Branch
					      Mispredicted" text */
	bool cumul_stale;                  /* node cumul to sum again */
	uint32_t memo_last;                /* the sample's memo, or MAX */
	struct rp_raw *raw;                /* the raw memo */
	uint32_t nraw, capraw;
	struct pk__hash raw_idx;
	uint64_t *raw_pool;                /* callchain addresses */
	size_t nraw_ips, capraw_ips;
	uint64_t raw_hash;                 /* the sample's, when new */
	const uint64_t *raw_ips;
	bool raw_pending;
	struct rp_raw raw_cur;
	uint32_t last_end;                 /* pk__rp_chain_append's end */
	const char *kernel_dso;            /* the kernel's DSO column text
					      while top prints, else NULL */
	bool color;                        /* top's colored percentages */
	struct pk_tracefmt *tf;            /* the trace key's formats */
	bool tf_tried;
	void *parent_re;                   /* regex_t of the parent key */
	struct rp_group *groups;
	unsigned ngroups;
	bool groups_loaded;
	const struct rp_grp_rows *gp;      /* the group being printed */
	int32_t *sockets;                  /* socket of each cpu, -1 unknown */
	uint32_t nsockets;
	bool sockets_loaded;
};

/* memo.c */
/* With the sample (template T of event ATTR, callchain r->chain[0..N)):
 * 1 when a sample like it was seen and its PERIOD is added the same way;
 * 0 when it must go the long way (noted then when it is memoizable:
 * pk__rp_memo_note each entry it adds to, in order, the sample's own
 * entry first, then pk__rp_memo_done). */
int pk__rp_memo_replay(struct pk_report *r, struct rp_hists *h,
		       unsigned attr, const struct rp_entry *t, uint32_t n,
		       uint64_t period);
int pk__rp_memo_push(struct pk_report *r, const uint32_t *v, uint32_t n);
/* Before anything is resolved: 1 when a sample with the same addresses
 * in the same maps was seen and SS (interned command name COMM) was
 * replayed, totals included; 0: it goes the long way, then
 * pk__rp_raw_done when it is through. */
int pk__rp_raw_replay(struct pk_report *r, struct rp_hists *h,
		      const struct pk_session_sample *ss, const char *comm,
		      uint64_t period);
void pk__rp_raw_done(struct pk_report *r);
void pk__rp_memo_note(struct pk_report *r, const struct rp_hists *h,
		      const struct rp_entry *e, uint32_t end);
void pk__rp_memo_done(struct pk_report *r);
void pk__rp_memo_fini(struct pk_report *r);
/* Sums the nodes' cumul from their hits (before reading them). */
void pk__rp_cumul(struct pk_report *r);
/* The name of E's thread as perf's pid key shows it: its last. */
const char *pk__rp_thread_comm(const struct pk_report *r,
			       const struct rp_entry *e);
/* E's periods and callchain into INTO, E gone (perf's collapse of two
 * entries: INTO keeps its depth). 0 or -ENOMEM. */
int pk__rp_merge(struct pk_report *r, struct rp_entry *into,
		 struct rp_entry *e);
/* Forgets every memo (the nodes they name are gone: top's aging). */
void pk__rp_memo_reset(struct pk_report *r);
/* print_chain.c: the last trie node of the run (perf's callchain node,
 * its frames merged) that starts at N. */
uint32_t pk__rp_run_end(const struct pk_report *r, uint32_t n);
/* Whether trie node N ends a run of perf's callchain node: a chain ends
 * there, or did before its hits aged to nothing (top). */
static inline bool pk__rp_node_ends(const struct pk_report *r, uint32_t n)
{
	return r->node[n].hit || (n < r->nbias && r->node_split[n]);
}
/* perf's level of a location in CPUMODE (its addr_location's): 'k' the
 * kernel, 'g' a VM guest's kernel, 'u' a guest's user space, 'H' the
 * hypervisor, '.' user space. */
static inline char pk__rp_level(uint16_t cpumode)
{
	switch (cpumode) {
	case PERF_RECORD_MISC_KERNEL: return 'k';
	case PERF_RECORD_MISC_GUEST_KERNEL: return 'g';
	case PERF_RECORD_MISC_GUEST_USER: return 'u';
	case PERF_RECORD_MISC_HYPERVISOR: return 'H';
	default: return '.';
	}
}
/* hist.c */
/* Room in *V for element N (*CAP of SIZE bytes now; FIRST the first
 * capacity): 0 or -ENOMEM. */
int pk__rp_grow(void **v, uint32_t *cap, uint32_t n, size_t size,
		uint32_t first);
uint64_t pk__rp_mix(uint64_t a, uint64_t b);
const char *pk__rp_intern(struct pk_report *r, const char *s, uint32_t *idx);
/* filter.c */
int pk__rp_filters_init(struct pk_report *r);
void pk__rp_filters_fini(struct pk_report *r);
/* Whether the filters let a sample of PID/TID named COMM at SYM through. */
bool pk__rp_shown(const struct pk_report *r, const char *comm, int32_t pid,
		  int32_t tid, uint32_t sym);
/* Hides the entries perf's --symbol-filter, --socket-filter and -x
 * leave out (before the entries print). */
void pk__rp_filters_late(struct pk_report *r);
/* The same without the DSO and symbol filters. */
bool pk__rp_shown_task(const struct pk_report *r, const char *comm,
		       int32_t pid, int32_t tid);
/* chain.c */
/* The short name of DSO (perf's: the file's base name), interned; its
 * string index in *IDX (the order of first sight). NULL: ENOMEM. */
const char *pk__rp_dso_short(struct pk_report *r, const char *dso,
			     uint32_t *idx);
/* The index of the nodes of many children, made again (the nodes were
 * moved). 0 or -ENOMEM. */
int pk__rp_reindex_nodes(struct pk_report *r);
int pk__rp_chain_append(struct pk_report *r, struct rp_entry *e,
			const uint32_t *chain, uint32_t n, uint64_t period);
int pk__rp_resolve_chain(struct pk_report *r,
			 const struct pk_session_sample *ss);
/* The session's generation of PID's maps in CPUMODE, asked once per
 * sample (pk_report_add counts them: maps change between samples). */
uint64_t pk__rp_generation(struct pk_report *r, uint32_t pid, uint16_t cpumode);
uint32_t pk__rp_sym_of(struct pk_report *r, uint32_t pid, uint64_t ip,
		       uint16_t cpumode);
/* perf's location of a branch's address (ip__resolve_ams) in the machine
 * of a sample of cpumode MODE (a VM guest's or the host): in PID's maps,
 * else the kernel's, else none (level 'H', 'g' with a guest's kallsyms,
 * the address as is). UINT32_MAX: ENOMEM. */
uint32_t pk__rp_branch_sym(struct pk_report *r, uint32_t pid, uint64_t ip,
			   uint16_t mode);
/* hist.c: the entry like TMPL in H, made when new; NULL: ENOMEM. */
struct rp_entry *pk__rp_entry_get(struct pk_report *r, struct rp_hists *h,
				  const struct rp_entry *tmpl);
/* hist.c: TMPL as a new entry of H (the index's, unless a like one is
 * there); NULL: ENOMEM. */
struct rp_entry *pk__rp_entry_push(struct pk_report *r, struct rp_hists *h,
				   const struct rp_entry *tmpl);
/* intree.c */
/* The entry like TMPL that perf's tree of entries of H finds, or a new
 * one (a twin where perf's search misses the one there is); NULL:
 * ENOMEM. */
struct rp_entry *pk__rp_intree_get(struct pk_report *r, struct rp_hists *h,
				   const struct rp_entry *tmpl);
/* perf's collapse of every hists' entries (twins it finds merge into the
 * first), then the callchain nodes' sums: before reading the entries. */
int pk__rp_settle(struct pk_report *r);
/* print_chain.c: trie node P's children in perf's tree order (a new
 * array, NULL when none or ENOMEM), their count in *N. */
uint32_t *pk__rp_kids_in_order(const struct pk_report *r, uint32_t p,
			       uint32_t *n);
/* order.c: perf's comparison of a NEW entry with an OLD one in its trees
 * of entries (hist_entry__cmp): negative sends NEW left, 0 is one entry. */
int64_t pk__rp_entries_cmp(const struct pk_report *r,
			   const struct rp_entry *nw,
			   const struct rp_entry *old);
/* order.c: whether perf collapses the entries (hists__collapse_resort). */
bool pk__rp_need_collapse(const struct pk_report *r);
/* order.c: V's N entries into perf's output order. 0 or -ENOMEM. */
int pk__rp_order(const struct pk_report *r, struct rp_entry **v, uint32_t n);
/* Whether NW goes left of OLD in a tree of CTX's (equals go right). */
typedef bool (*pk__rp_left_fn)(const void *ctx, const void *nw,
			       const void *old);
/* V's N items, in this order, into a red-black tree by LEFT, as perf's
 * trees are built; then V in the tree's order (its comparisons need not be
 * transitive: the tree's shape decides). 0 or -ENOMEM. */
int pk__rp_rb_sort(void **v, uint32_t n, pk__rp_left_fn left, const void *ctx);
int pk__rp_cmp_key(const struct pk_report *r, int key,
		   const struct rp_entry *a, const struct rp_entry *b);
/* print.c */
struct rp_cols {
	int comm, pid, dso, sym;
	int w[RP_MAX_KEYS];     /* the extended keys' widths, by position */
};
const char *pk__rp_dso_name(const struct rp_sym *s);
const char *pk__rp_dso_of(const struct pk_report *r, const struct rp_sym *s);
/* The symbol column's width for S (perf's: [x] and the name). */
int pk__rp_sym_len(const struct rp_sym *s);
int pk__rp_max(int a, int b);
/* One entry's line of perf report --stdio (its columns C wide, the
 * overhead in top's colors while r->color). */
void pk__rp_put_row(struct pk_report *r, FILE *f, const struct rp_entry *e,
		    const struct rp_cols *c, uint64_t total,
		    const struct pk_report_print_opts *po);
/* Whether KEY's column is left out (a filter of one value, perf's elide). */
bool pk__rp_elided(const struct pk_report *r, int key);
/* An entry's symbol as perf prints it, padded to W unless LAST. */
void pk__rp_put_sym(const struct rp_sym *s, const struct rp_entry *e, FILE *f,
		    int w, bool last);
/* keys.c: the sort keys (perf's -s); the extended keys (not comm, pid,
 * dso, sym): E's values from a sample, equality, hash, order (negative
 * when A goes first), the column's header, least width, text width and
 * text (padded to W but the last string column). */
int pk__rp_parse_sort(struct pk_report *r, const char *sort,
		      const char *fields);
int pk__rp_key_values(struct pk_report *r, const struct pk_session_sample *ss,
		      struct rp_entry *e, uint32_t nchain);
bool pk__rp_key_same(const struct pk_report *r, unsigned key,
		     const struct rp_entry *a, const struct rp_entry *b);
uint64_t pk__rp_key_hash(const struct pk_report *r, unsigned key,
			 const struct rp_entry *e, uint64_t h);
int pk__rp_key_cmp(const struct pk_report *r, unsigned key,
		   const struct rp_entry *a, const struct rp_entry *b);
const char *pk__rp_key_header(unsigned key);
int pk__rp_key_min_width(unsigned key);
int pk__rp_key_width(const struct pk_report *r, unsigned key,
		     const struct rp_entry *e);
void pk__rp_key_print(struct pk_report *r, unsigned key,
		      const struct rp_entry *e, FILE *f, int w, bool last);
/* A family of extended keys that keep their values in the entry's own
 * fields (branch.c, mem.c): equality, hash, perf's se_cmp of LEFT
 * against RIGHT (in its tree of entries LEFT is the entry there, RIGHT
 * the new one: negative sends it left; in the output order A above B
 * when se_cmp(A, B) > 0), the text's width and the text (padded to W
 * unless LAST). */
struct rp_key_ops {
	bool (*same)(const struct pk_report *r, unsigned key,
		     const struct rp_entry *a, const struct rp_entry *b);
	uint64_t (*hash)(const struct pk_report *r, unsigned key,
			 const struct rp_entry *e, uint64_t h);
	int64_t (*cmp)(const struct pk_report *r, unsigned key,
		       const struct rp_entry *left,
		       const struct rp_entry *right);
	int (*width)(const struct pk_report *r, unsigned key,
		     const struct rp_entry *e);
	void (*print)(struct pk_report *r, unsigned key,
		      const struct rp_entry *e, FILE *f, int w, bool last);
};
/* branch.c: the branch keys (RK_BRANCH) */
extern const struct rp_key_ops pk__rp_branch_keys;
/* mem.c: the memory keys (RK_MEMORY) */
extern const struct rp_key_ops pk__rp_mem_keys;
/* keys.c: KEY's family, or NULL for a key of keys.c's own. */
const struct rp_key_ops *pk__rp_key_family(unsigned key);
/* mem.c: perf's memory mode (--mem-mode): the sample's data address,
 * source and latency into TMPL. 0 or -ENOMEM. */
int pk__rp_mem_values(struct pk_report *r, const struct pk_session_sample *ss,
		      struct rp_entry *tmpl);
/* branch.c: perf's branch mode (-b). The sample's branches, each an
 * entry of period 1 (its target the entry's symbol). 0 or -ENOMEM. */
int pk__rp_branch_add(struct pk_report *r, struct rp_hists *h,
		      const struct pk_session_sample *ss, struct rp_entry *tmpl);
/* Compiles the parent regex when the parent key is in: 0, -EINVAL (bad
 * regex), -ENOMEM. */
int pk__rp_keys_init(struct pk_report *r);
void pk__rp_keys_fini(struct pk_report *r);
/* header.c: the file's CPU sockets and event groups */
int32_t pk__rp_socket_of(struct pk_report *r, int32_t cpu);
int pk__rp_load_groups(struct pk_report *r);
/* The group (of more than one event) attr A is in, or NULL. */
const struct rp_group *pk__rp_group_of(const struct pk_report *r, unsigned a);
/* hist.c: the hists of ATTR (grown to it), NULL: ENOMEM; whether A and
 * B are one entry under the sort keys; the entry of H like TMPL, or
 * NULL. */
struct rp_hists *pk__rp_hists_of(struct pk_report *r, int attr);
bool pk__rp_same(const struct pk_report *r, const struct rp_entry *a,
		 const struct rp_entry *b);
const struct rp_entry *pk__rp_entry_find(const struct pk_report *r,
					 const struct rp_hists *h,
					 const struct rp_entry *tmpl);
/* print.c: the browser's lines (view.c): perf report --stdio's samples
 * lines and column headers, then V's N entries' rows, of NR_SAMPLES
 * samples worth TOTAL, widths of the entries in the zoom. */
void pk__rp_put_lines(struct pk_report *r, FILE *f, unsigned a,
		      struct rp_entry *const *v, uint32_t n,
		      uint64_t nr_samples, uint64_t total,
		      const struct pk_report_print_opts *po);
/* view.c: whether E is in the browser's zoom (always, when none). */
bool pk__rp_in_zoom(const struct pk_report *r, const struct rp_entry *e);
/* print.c: H's total_shown and nr_shown, of the entries the filters let
 * by (perf counts them at print). */
void pk__rp_count_shown(struct rp_hists *h);
/* print_chain.c */
/* E's callchain: percentages of TOTAL, the graph threshold a share of
 * BASE (what the filters let by, with --percentage relative). */
int pk__rp_print_chain(struct pk_report *r, FILE *f,
		       const struct rp_entry *e, uint64_t total, uint64_t base,
		       const struct pk_report_print_opts *po);
/* Whether trie node N of E's tree is a merged node's frame other than
 * its last (perf merges runs of one child and no hits). */
bool pk__rp_in_run(const struct pk_report *r, const struct rp_entry *e,
		   uint32_t n);
/* The browser's callchain rows under trie node P (E's root or a row) as
 * perf's browser nests them: a merged node's first frame holds its other
 * frames, its last the children worth the threshold (a share MIN_ABS of
 * the period, or of the parent's with fractal), sorted as printed; a
 * new array in *V (NULL when none). Returns the count or -ENOMEM. */
int pk__rp_chain_rows(const struct pk_report *r, const struct rp_entry *e,
		      uint32_t p, uint64_t min_abs,
		      const struct pk_report_print_opts *po, uint32_t **v);
/* A callchain node's function as the callchains print it. */
void pk__rp_chain_name(const struct pk_report *r, uint32_t sym, FILE *f);
#endif
