/* SPDX-License-Identifier: MIT */
/* perfkit script's sample output (perf script's default and -F fields). */
#ifndef PK_CLI_SCRIPT_H
#define PK_CLI_SCRIPT_H
#include <stdbool.h>
#include <stdint.h>
#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include <perfkit/session.h>
#include "cli.h"

/* Output fields (perf's PERF_OUTPUT_* names). */
enum {
	SF_COMM = 1 << 0, SF_TID = 1 << 1, SF_PID = 1 << 2, SF_TIME = 1 << 3,
	SF_CPU = 1 << 4, SF_EVNAME = 1 << 5, SF_TRACE = 1 << 6, SF_IP = 1 << 7,
	SF_SYM = 1 << 8, SF_DSO = 1 << 9, SF_ADDR = 1 << 10,
	SF_SYMOFFSET = 1 << 11, SF_SRCLINE = 1 << 12, SF_PERIOD = 1 << 13,
	SF_FLAGS = 1 << 14, SF_CALLINDENT = 1 << 15, SF_DATA_SRC = 1 << 16,
	SF_WEIGHT = 1 << 17, SF_INS_LAT = 1 << 18, SF_PHYS_ADDR = 1 << 19,
	SF_DATA_PAGE_SIZE = 1 << 20, SF_CODE_PAGE_SIZE = 1 << 21,
	SF_INSN = 1 << 22, SF_INSNLEN = 1 << 23, SF_SYNTH = 1 << 24,
	SF_IPC = 1 << 25, SF_BRSTACK = 1 << 26, SF_BRSTACKSYM = 1 << 27,
	SF_BRSTACKOFF = 1 << 28, SF_IREGS = 1 << 29, SF_UREGS = 1u << 30,
};
/* past an int: machine_pid, vcpu (sets of fields are uint64_t) */
#define SF_MACHINE_PID (1ull << 31)
#define SF_VCPU (1ull << 32)

/* perf's output types: attr types 0..5, synth, other. */
enum { ST_HW, ST_SW, ST_TRACE, ST_HWCACHE, ST_RAW, ST_BREAK, ST_SYNTH,
       ST_OTHER, ST_MAX };

struct script_fields {
	struct {
		uint64_t fields, user_set_fields;
		bool user_set, wildcard;
	} t[ST_MAX];
};

struct script_filter {
	uint64_t tstart, tend;           /* --time, 0: open */
	const char *time_str;            /* script's --time, several ranges
					    or percentages: */
	struct cli_time_ranges tr;       /* ... its ranges (n > 1: these) */
	uint64_t *cpus;                  /* --cpu bitmap (1024 cpus) */
	int *pids, nr_pids, *tids, nr_tids;
	char **comms;
	int nr_comms;
	/* --dsos: a sample's DSO by its short or long name (a sample in no
	 * mapping passes); --symbols (-S): its symbol by name, or its address
	 * when the word is a hex number (perf's addr_list), within
	 * --addr-range bytes after one */
	char **dsos, **syms;
	int nr_dsos, nr_syms;
	uint64_t *addrs;
	int nr_addrs;
	bool syms_set;                   /* -S given (even empty: none pass) */
	long addr_range;
};

struct script_opts {
	const char *input;
	bool ns, hide_callchain, file_order, bad;
	int max_stack;                   /* --max-stack; -1: perf's 127 */
	struct script_fields f;
	struct script_filter filt;
	/* the instruction trace: --itrace's letters (itrace.set false:
	 * perf script's default), --no-itrace */
	struct pk_itrace_opts itrace;
	bool no_itrace;
	/* --xed: instructions' bytes shown disassembled, laid out as perf
	 * script piped through xed -F insn: -A -64 */
	bool xed;
	/* --guestkallsyms: the default guest's kallsyms (perf_guest on) */
	const char *guest_kallsyms;
	/* --guest-code: a VM's code is its process's (perf_guest on) */
	bool guest_code;
	int pad_dso;                     /* --call-trace: dso names to 50 */
	/* --reltime: times from the first sample shown; --deltatime: from
	 * the previous one shown */
	bool reltime, deltatime;
	/* --per-event-dump: each event's samples to INPUT.EVENT.dump */
	bool per_event_dump;
	/* --switch-on/--switch-off: events that start and stop the output
	 * (perf's evswitch); --show-on-off-events: those shown too */
	const char *switch_on, *switch_off;
	bool show_on_off;
	/* --stop-bt: callchains end at the first of these symbols */
	char **stop_bt;
	int nr_stop_bt;
	/* symbol sources: --symfs (a root for the DSOs' paths), --kallsyms */
	const char *symfs, *kallsyms;
	/* -d, --debug-mode: no samples, only the misordered times counted */
	bool debug_mode;
	int exit_status;                 /* perf's, where not 1 (254: an
					    evswitch event not found) */
	/* --show-*-events: the side-band records shown among the samples,
	 * one bit per SO_SHOW_* (1 << (code - SO_SHOW_TASK)) */
	unsigned show;
	/* -D: each record to DUMP first (its text on stdout, through the
	 * sink), then its sample line; the trace is not decoded */
	int (*dump)(void *ctx, struct pk_session *s,
		    const struct pk_record *rec);
	void *dump_ctx;
	/* the text to SINK instead of standard output (non-zero: stop) */
	int (*sink)(void *ctx, const char *buf, size_t len);
	void *sink_ctx;
};

/* script_fields.c */
void script_fields_init(struct script_fields *f);
/* Parses one -F argument. 0 or -EINVAL (message printed). */
int script_fields_parse(struct script_fields *f, const char *arg);
int script_type_of(uint32_t attr_type);

/* script_filter.c: --time, --cpu, --pid, --tid, --comm. 0 or -EINVAL. */
int script_filter_time(struct script_filter *f, const char *arg);
/* perf script's --time: ranges and percentages too (these made ranges
 * once the file is open: script_filter_file); the instruction trace
 * decoded for them (pk_itrace_set_time_ranges). 0 or -EINVAL (said). */
int script_filter_times(struct script_filter *f, const char *arg);
/* ... RELTIME: the ranges count from the first sample (--reltime). */
int script_filter_file(struct script_filter *f, struct pk_perfdata *pd,
		       bool reltime);
struct pk_itrace;
int script_filter_itrace(const struct script_filter *f, struct pk_itrace *it);
int script_filter_cpu(struct script_filter *f, const char *arg);
int script_filter_ints(int **v, int *n, const char *arg);
int script_filter_strs(char ***v, int *n, const char *arg);
/* -S's words: hex numbers to F's addresses, the rest to its symbols. */
int script_filter_syms(struct script_filter *f, const char *arg);
/* Whether a sample at LOC (NULL: in no mapping) at address IP passes the
 * --dsos and --symbols filters. */
struct pk_location;
bool script_filter_loc(const struct script_filter *f,
		       const struct pk_location *loc, uint64_t ip);
void script_filter_fini(struct script_filter *f);
/* Whether the sample SM of thread name COMM passes F. */
bool script_filter_pass(const struct script_filter *f,
			const struct pk_sample *sm, const char *comm);
/* The same for --time alone. */
bool script_filter_time_pass(const struct script_filter *f,
			     const struct pk_sample *sm);

/* Long options of the instruction trace (getopt codes). */
enum { SO_ITRACE = 0x200, SO_NO_ITRACE, SO_INSN_TRACE, SO_CALL_TRACE,
       SO_CALL_RET_TRACE, SO_SHOW_TASK, SO_SHOW_MMAP, SO_SHOW_SWITCH,
       SO_SHOW_NS, SO_SHOW_LOST, SO_SHOW_ROUND, SO_SHOW_BPF,
       SO_SHOW_CGROUP, SO_SHOW_TEXT_POKE, SO_XED, SO_GUEST_KALLSYMS,
       SO_GUEST_CODE, SO_MAX_STACK, SO_RELTIME, SO_DELTATIME, SO_DSOS, SO_ADDR_RANGE,
       SO_PER_EVENT_DUMP, SO_SHOW_ON_OFF, SO_SWITCH_ON, SO_SWITCH_OFF,
       SO_STOP_BT, SO_SYMFS, SO_KALLSYMS };
/* The bit of --show-*-events code C in script_opts.show. */
#define SO_SHOW_BIT(c) (1u << ((c) - SO_SHOW_TASK))

/* Takes option C (getopt code of cmd_script) with ARG: 0 when it was a
 * sample-output option (errors set o->bad), -1 otherwise. */
int script_option(struct script_opts *o, int c, const char *arg);

/* script_mem.c: perf's "|OP ...|BLK ..." text of a data_src value and
 * its page-size names; snprintf-like, return the length written. */
size_t script_page_size(uint64_t size, char *buf, size_t len);

/* script_brstack.c: SM's branch stack as -F F's brstack, brstacksym or
 * brstackoff shows it (perf's text, through PUT). */
void script_put_brstack(struct pk_session *sess, uint64_t f,
			const struct pk_sample *sm,
			void (*put)(void *, const char *, size_t), void *ctx);

/* script_out.c: prints every sample of PD; exit status. */
int script_samples(struct script_opts *o, struct pk_perfdata *pd);
/* cmd_script.c: perf's -D lines of Intel PT data (a packet a line) */
void script_dump_pt(const void *data, size_t len);

#endif
