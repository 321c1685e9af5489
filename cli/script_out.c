/* SPDX-License-Identifier: MIT */
/*
 * perfkit script's sample lines, byte for byte as perf script (6.1)
 * prints them: comm, tid, [cpu], time, period, event name padded to the
 * longest, tracepoint payload, ip sym+off (dso) or the callchain below.
 * Text goes through one large buffer written with write(2).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <perfkit/itrace.h>
#include <perfkit/perfdata.h>
#include <perfkit/pt_insn.h>
#include <perfkit/session.h>
#include <perfkit/symbol.h>
#include <perfkit/tracefmt.h>
#include <perfkit/unwind.h>
#include "cli.h"
#include "script.h"

#define OB_CAP (2u << 20)
#define MAX_STACK 127 /* perf script's scripting_max_stack */

struct ob {
	char *b;
	size_t len;
	int err;
	/* where the text goes instead of standard output (report's
	 * exports read it): non-zero stops the output */
	int (*sink)(void *ctx, const char *buf, size_t len);
	void *sink_ctx;
	unsigned long flushes;	/* how many times the buffer went out */
};

/* Formatted "ip sym+off (dso)" texts by (pid, ip, cpumode, fields) and
 * the session's generation for that process: one cache line pair per
 * entry, the text inline when short (most are), else in an arena. */
#define LC_BITS 15
#define LC_SIZE (1 << LC_BITS)
#define LC_ARENA (8u << 20)
#define LC_INLINE 96
struct lcent {
	uint64_t ip, gen;
	uint32_t pid, off, len;
	uint16_t f;
	uint8_t cpumode, valid;
	char text[LC_INLINE];
} __attribute__((aligned(64)));

struct lcache {
	struct lcent *e;
	char *arena;
	uint32_t used;
};

/* the fields whose text comes from a synthesized sample's ip or bytes
 * besides its bare address */
#define IP_TEXT_FIELDS (SF_SYM | SF_DSO | SF_SRCLINE | SF_INSN | SF_INSNLEN | \
			SF_IPC | SF_CALLINDENT | SF_BRSTACK | SF_BRSTACKSYM | \
			SF_BRSTACKOFF | SF_SYNTH | SF_TRACE)

/* A synthesized sample's whole line (LN_BITS of them): fields that
 * depend on nothing but the context, the ip, the target and the flags */
#define LN_BITS 13
#define LN_FIELDS (SF_COMM | SF_TID | SF_PID | SF_TIME | SF_CPU | SF_EVNAME | \
		   SF_IP | SF_SYM | SF_DSO | SF_ADDR | SF_SYMOFFSET | \
		   SF_PERIOD | SF_FLAGS)
struct lnent {
	uint64_t id, ip, addr;
	uint32_t flags;
	uint16_t len;
	char text[224];	/* (whole 32-byte pieces: ln_put) */
} __attribute__((aligned(32)));

enum { ARCH_OTHER, ARCH_X86, ARCH_ARM64 };

struct evinfo {
	int type;
	char *name;
	bool callchain;
	bool bts;		/* perf's is_bts_event */
	uint64_t sample_type;	/* the attr's */
	uint64_t period;	/* the attr's (no PERF_SAMPLE_PERIOD) */
	uint64_t regs_intr, regs_user;	/* the attr's register masks */
};

/* A guest's cpumode (perf_guest: samples of the guest machine). */
static bool guest_mode(uint16_t cm)
{
	return cm == PERF_RECORD_MISC_GUEST_KERNEL ||
	       cm == PERF_RECORD_MISC_GUEST_USER;
}

struct out {
	struct script_opts *o;
	struct pk_perfdata *pd;
	struct pk_session *sess;
	struct pk_tracefmt *tf; /* the file's tracepoint formats */
	bool tf_tried;
	bool aux_said;          /* the AUX area is not decoded: said */
	struct ob ob;
	struct evinfo *ev;
	unsigned nr_ev;
	int name_width;
	int mem_width;          /* widest data_src text so far */
	int arch;               /* ARCH_*: the file's, for register names */
	bool pipe, use_callchain, ready;
	uint64_t fields[ST_MAX];
	struct lcache lc;
	struct pk_unwind *uw;   /* --call-graph dwarf samples */
	uint64_t *uips;         /* the unwound frames of the sample */
	int nr_uips;            /* how many (0 none) */
	int max_stack;
	struct pk_frame *frames; /* the callchain of the sample */
	unsigned cap_frames;
	/* the instruction trace's decoder (it adds its events to the file's
	 * list) and the synthesized sample being printed */
	struct pk_itrace *it;
	const struct pk_itrace_sample *cur;
	struct pk_sample ism;   /* a synthesized sample's fields (the rest
				   stay zero) */
	int spacing;            /* callindent's column (perf's static) */
	struct headc {
		char text[128];
		size_t len;
		uint32_t tid, pid;
		uint64_t f;
		int attr;
		uint64_t period;
		char comm[32];
		bool valid;
	} hc;
	bool aux_file;          /* the file has HEADER_AUXTRACE */
	/* --show-*-events: a record shown once the session applied it (the
	 * thread names it changes), kept until the next record */
	struct pk_record side;
	void *side_buf;
	size_t side_cap;
	bool have_side;
	bool pt_info;           /* an Intel PT AUXTRACE_INFO was read */
	bool filtering;         /* a sample filter is set */
	/* the thread name of the last synthesized sample's tid, as of the
	 * records read so far (REC_EPOCH counts them) */
	uint64_t rec_epoch, cc_epoch;
	uint32_t cc_tid;
	const char *cc_comm;
	bool cc_guest;		/* ... of a guest's sample */
	char cc_gcomm[32];	/* ... its name there (perf's guest code) */
	bool cc_valid;
	/* where print_sample put a synthesized sample's bare address (its
	 * only text from the ip), and the last such line of an instruction
	 * sample: the next one that differs only in its ip (and size) is
	 * that line with its address in place */
	size_t ip_at;
	/* whole lines of synthesized samples by their ip, target and flags
	 * within one context (what else they show: ln_ctx, numbered ln_id) */
	struct lnent *ln;
	uint64_t ln_id;
	struct lnctx {
		int attr, name_width, mem_width;
		int32_t pid, tid, cpu;
		uint64_t time, period, epoch;
		uint16_t cpumode, addr_cpumode;
	} ln_ctx;
	struct itmpl {
		bool valid;
		int attr, name_width;
		int32_t pid, tid, cpu;
		uint64_t time, period, addr, epoch;
		uint64_t time_mask, addr_mask;
		uint32_t flags, flags_mask;
		uint16_t cpumode, addr_cpumode;
		uint16_t len, at;
		char line[240];
	} tl;
	/* --reltime's first time shown, --deltatime's previous one */
	uint64_t initial_time, previous_time;
	/* --switch-on/--switch-off: their events (-1 none) and whether the
	 * output is off now (perf's evswitch) */
	int sw_on, sw_off;
	bool discarding;
	/* -d: the last sample's time and how many went back in time */
	uint64_t last_time, nr_unordered;
	/* --per-event-dump: one file per event */
	struct evdump {
		FILE *f;
		char *name;
		uint64_t bytes, samples;
	} *dumps;
	/* AUX records, and those that lost data, had gaps, collided */
	uint64_t aux_n, aux_lost, aux_partial, aux_collision;
};


/* ---- output buffer ---- */

static void ob_flush(struct ob *o)
{
	size_t off = 0;

	if (o->sink && o->len && !o->err)
		o->err = o->sink(o->sink_ctx, o->b, o->len);
	while (!o->sink && off < o->len && !o->err) {
		ssize_t n = write(1, o->b + off, o->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			o->err = n < 0 ? -errno : -EIO;
		else
			off += (size_t)n;
	}
	o->len = 0;
	o->flushes++;
}

static inline char *ob_room(struct ob *o, size_t n)
{
	if (o->len + n > OB_CAP)
		ob_flush(o);
	return o->b + o->len;
}

static inline void ob_put(struct ob *o, const char *s, size_t n)
{
	if (n > OB_CAP / 2) {
		ob_flush(o);
		memcpy(o->b, s, OB_CAP / 2); /* absurdly long: cut */
		o->len = OB_CAP / 2;
		return;
	}
	memcpy(ob_room(o, n), s, n);
	o->len += n;
}

static inline void ob_str(struct ob *o, const char *s)
{
	ob_put(o, s, strlen(s));
}

static inline void ob_ch(struct ob *o, char c)
{
	*ob_room(o, 1) = c;
	o->len++;
}

/* S right-aligned in WIDTH ("%*s"); LEFT: "%-*s". */
/* ob_put for writers outside this file. */
static void ob_put_cb(void *o, const char *s, size_t n)
{
	ob_put(o, s, n);
}

static void ob_pad(struct ob *o, const char *s, int width, bool left)
{
	size_t n = strlen(s);
	size_t pad = (size_t)width > n ? (size_t)width - n : 0;
	char *p = ob_room(o, n + pad);

	if (!left) {
		memset(p, ' ', pad);
		memcpy(p + pad, s, n);
	} else {
		memcpy(p, s, n);
		memset(p + n, ' ', pad);
	}
	o->len += n + pad;
}

/* The 8 hex digits of X, most significant first (in memory order), as
 * 8 bytes: nibbles spread to bytes, then made ASCII, all at once. */
static inline uint64_t hex8(uint32_t x)
{
	uint64_t y = x;

	y = (y | (y << 16)) & 0x0000ffff0000ffffull;
	y = (y | (y << 8)) & 0x00ff00ff00ff00ffull;
	y = (y | (y << 4)) & 0x0f0f0f0f0f0f0f0full;
	/* '0'..'9', and 'a'.. for the bytes over 9 */
	y += 0x3030303030303030ull +
	     (((y + 0x0606060606060606ull) >> 4) & 0x0101010101010101ull) * 39;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	y = __builtin_bswap64(y);
#endif
	return y;
}

/* "%16" PRIx64 at P: addresses, line after line. */
static inline uint64_t lead_mask(int k)	/* the first K of 8 bytes */
{
	return k >= 8 ? ~0ull : k <= 0 ? 0 : (1ull << (8 * k)) - 1;
}

static inline void hex16_at(char *p, uint64_t v)
{
	uint64_t hi = hex8((uint32_t)(v >> 32)), lo = hex8((uint32_t)v);
	int sp = 16 - (v ? (64 - __builtin_clzll(v) + 3) / 4 : 1);
	uint64_t mh = lead_mask(sp), ml = lead_mask(sp - 8);
	const uint64_t blank = 0x2020202020202020ull;

	/* the leading zeros as spaces, without a branch or a call */
	hi = (hi & ~mh) | (blank & mh);
	lo = (lo & ~ml) | (blank & ml);
	memcpy(p, &hi, 8);
	memcpy(p + 8, &lo, 8);
}

static inline void ob_hex16(struct ob *o, uint64_t v)
{
	hex16_at(ob_room(o, 16), v);
	o->len += 16;
}

/* Unsigned V in BASE (10/16), right-aligned to WIDTH with FILL ('0' or
 * ' '), or left-aligned with LEFT. */
static inline void ob_num(struct ob *o, uint64_t v, unsigned base, int width,
			  char fill, bool left)
{
	static const char dig[] = "0123456789abcdef";
	char tmp[24];
	int n = 0;

	if (base == 16 && width == 16 && fill == ' ' && !left) {
		ob_hex16(o, v);
		return;
	}
	if (base == 16) {	/* shifts, not divisions */
		do {
			tmp[n++] = dig[v & 15];
			v >>= 4;
		} while (v);
	} else {
		do {
			tmp[n++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
	}
	char *p = ob_room(o, (size_t)(n > width ? n : width));
	int pad = width > n ? width - n : 0;
	int k = 0;

	if (!left)
		for (; k < pad; k++)
			p[k] = fill;
	for (int i = n - 1; i >= 0; i--)
		p[k++] = tmp[i];
	if (left)
		for (int i = 0; i < pad; i++)
			p[k++] = ' ';
	o->len += (size_t)k;
}

static void ob_int(struct ob *o, int64_t v, int width, bool left)
{
	char tmp[24];

	if (v >= 0) {
		ob_num(o, (uint64_t)v, 10, width, ' ', left);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%" PRId64, v);
	ob_pad(o, tmp, width, left);
}

/* ---- setup: perf's per-type field checks ---- */

/* A kernel address in a tracepoint's payload, named as perf names it:
 * the symbol of its kernel map holding it. */
static const char *kernel_sym(void *ctx, uint64_t addr, uint64_t *start)
{
	struct out *s = ctx;
	struct pk_location loc;

	if (pk_session_resolve(s->sess, 0, addr, PERF_RECORD_MISC_KERNEL,
			       &loc) || !loc.sym)
		return NULL;
	*start = addr - loc.symoff;
	return loc.sym;
}

/* The tracepoint formats, read from the session's tracing data the
 * first time it has some. */
static struct pk_tracefmt *tracefmt(struct out *s)
{
	const void *td;
	size_t size;

	if (s->tf || s->tf_tried ||
	    pk_session_tracing_data(s->sess, &td, &size))
		return s->tf;
	s->tf_tried = true;
	s->tf = pk_tracefmt_new(td, size);
	if (!s->tf)
		cli_error("script", "cannot read the tracing data: %s",
			  strerror(errno));
	else
		pk_tracefmt_set_ksym(s->tf, kernel_sym, s);
	return s->tf;
}

static const char *ev_name(struct out *s, unsigned i)
{
	const char *n = pk_perfdata_attr_name(s->pd, i);
	const struct perf_event_attr *a = pk_perfdata_attr(s->pd, i);

	if (!n && a->type == PERF_TYPE_TRACEPOINT && tracefmt(s))
		n = pk_tracefmt_name(s->tf, a->config);
	return n ? n : "unknown";
}

/* perf's evsel__check_attr for the first event of each type: fields the
 * samples cannot give are dropped, or an error when the user asked. */
static int check_type(struct out *s, int t, const struct perf_event_attr *a,
		      const char *name)
{
	/* AUX: a field a file with an AUX area trace may show though the
	 * event lacks it (perf's allow_user_set: synthesized samples have
	 * it) */
	static const struct { uint64_t f; uint64_t st; const char *what, *field; bool aux; } req[] = {
		{ SF_IP, PERF_SAMPLE_IP, "IP", "ip", false },
		{ SF_ADDR, PERF_SAMPLE_ADDR, "ADDR", "addr", true },
		{ SF_TID | SF_PID, PERF_SAMPLE_TID, "TID", "tid", false },
		{ SF_TIME, PERF_SAMPLE_TIME, "TIME", "time", false },
		{ SF_CPU, PERF_SAMPLE_CPU, "CPU", "cpu", true },
		{ SF_DATA_SRC, PERF_SAMPLE_DATA_SRC, "DATA_SRC", "data_src",
		  true },
		{ SF_WEIGHT, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
		  "WEIGHT", "weight", true },
		{ SF_INS_LAT, PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT",
		  "ins_lat", false },
		{ SF_IREGS, PERF_SAMPLE_REGS_INTR, "IREGS", "iregs", true },
		{ SF_UREGS, PERF_SAMPLE_REGS_USER, "UREGS", "uregs", false },
		{ SF_PHYS_ADDR, PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR",
		  "phys_addr", true },
		{ SF_DATA_PAGE_SIZE, PERF_SAMPLE_DATA_PAGE_SIZE,
		  "DATA_PAGE_SIZE", "data_page_size", false },
		{ SF_CODE_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE,
		  "CODE_PAGE_SIZE", "code_page_size", false },
	};
	uint64_t *f = &s->fields[t];

	if (!*f)
		return 0;
	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		if (!(*f & req[i].f) || (a->sample_type & req[i].st))
			continue;
		if (s->o->f.t[t].user_set_fields & req[i].f) {
			if (s->aux_file && req[i].aux)
				continue;
			fprintf(stderr, "Samples for '%s' event do not have %s attribute set. Cannot print '%s' field.\n",
				name, req[i].what, req[i].field);
			return -EINVAL;
		}
		*f &= ~req[i].f;
	}
	if ((*f & (SF_SYM | SF_DSO)) &&
	    !(a->sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR))) {
		fprintf(stderr, "Display of symbols requested but neither sample IP nor sample address\navailable. Hence, no addresses to convert to symbols.\n");
		return -EINVAL;
	}
	if ((*f & SF_SYMOFFSET) && !(*f & SF_SYM)) {
		fprintf(stderr, "Display of offsets requested but symbol is notselected.\n");
		return -EINVAL;
	}
	return 0;
}

/* The file's architecture as perf_env__arch names it (the host's when
 * the file does not say). */
static int file_arch(struct pk_perfdata *pd)
{
	const char *a = pk_perfdata_feat_str(pd, PK_HEADER_ARCH);
	struct utsname u;

	if (!a && !uname(&u))
		a = u.machine;
	if (!a)
		return ARCH_OTHER;
	if (!strcmp(a, "x86_64") || (a[0] == 'i' && strstr(a, "86")))
		return ARCH_X86;
	return !strcmp(a, "aarch64") || !strcmp(a, "arm64") ? ARCH_ARM64 :
	       ARCH_OTHER;
}

/* G: the recorded samples get call chains from the decoded flow. */
static bool late_chains(const struct out *s)
{
	return s->it && s->o->itrace.set && s->o->itrace.add_callchain;
}

/* perf's evswitch__init: the events of --switch-on and --switch-off by
 * name; output off until the first "on" event. */
static int evswitch_find(struct out *s, const char *what, const char *name)
{
	for (unsigned i = 0; i < s->nr_ev; i++)
		if (!strcmp(s->ev[i].name, name))
			return (int)i;
	fprintf(stderr, "ERROR: %s event not found (%s)\n"
		"HINT:  use 'perf evlist' to see the available event names\n",
		what, name);
	s->o->exit_status = 254;
	return -ENOENT;
}

static int evswitch_init(struct out *s)
{
	s->sw_on = s->sw_off = -1;
	if (s->o->switch_on &&
	    (s->sw_on = evswitch_find(s, "switch-on", s->o->switch_on)) < 0)
		return -ENOENT;
	if (s->o->switch_off &&
	    (s->sw_off = evswitch_find(s, "switch-off", s->o->switch_off)) < 0)
		return -ENOENT;
	s->discarding = s->sw_on >= 0;
	return 0;
}

/* perf's evswitch__discard: whether the sample of event ATTR is left
 * out; the on and off events themselves only with --show-on-off-events. */
static bool evswitch_discard(struct out *s, int attr)
{
	if (s->sw_on >= 0 && s->discarding) {
		if (attr != s->sw_on)
			return true;
		s->discarding = false;
		return !s->o->show_on_off;
	}
	if (s->sw_off >= 0 && !s->discarding && attr == s->sw_off) {
		s->discarding = true;
		return !s->o->show_on_off;
	}
	return false;
}

/* --per-event-dump: INPUT.EVENT.dump for each event, made at the start
 * (perf makes one for every event, samples or not). */
static int dumps_open(struct out *s)
{
	const char *in = s->o->input ? s->o->input : "perf.data";

	s->dumps = calloc(s->nr_ev ? s->nr_ev : 1, sizeof(*s->dumps));
	if (!s->dumps)
		return -ENOMEM;
	for (unsigned i = 0; i < s->nr_ev; i++) {
		struct evdump *d = &s->dumps[i];

		if (asprintf(&d->name, "%s.%s.dump", in, s->ev[i].name) < 0) {
			d->name = NULL;
			return -ENOMEM;
		}
		d->f = fopen(d->name, "w");
		if (!d->f) {
			fprintf(stderr, "Failed to open %s\n", d->name);
			return -errno;
		}
	}
	return 0;
}

/* The text of the sample just printed (from START) to its event's file. */
static void dump_put(struct out *s, int attr, size_t start)
{
	struct evdump *d = &s->dumps[attr];
	size_t n = s->ob.len - start;

	if (fwrite(s->ob.b + start, 1, n, d->f) != n)
		s->ob.err = -EIO;
	d->bytes += n;
	d->samples++;
	s->ob.len = start;
}

/* perf's closing lines: each file's size as fstat saw it before the
 * file was closed (what stdio had written: whole buffers). */
static void dumps_close(struct out *s)
{
	for (unsigned i = 0; s->dumps && i < s->nr_ev; i++) {
		struct evdump *d = &s->dumps[i];
		struct stat st;
		uint64_t blk = BUFSIZ, size;

		if (!d->f)
			break;
		if (!fstat(fileno(d->f), &st) && st.st_blksize > 0)
			blk = (uint64_t)st.st_blksize;
		size = d->bytes - d->bytes % blk;
		printf("[ perf script: Wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
		       size / 1024.0 / 1024.0, d->name, d->samples);
		fclose(d->f);
	}
	for (unsigned i = 0; s->dumps && i < s->nr_ev; i++)
		free(s->dumps[i].name);
	free(s->dumps);
	fflush(stdout);
}

static int setup(struct out *s)
{
	unsigned n = pk_perfdata_nr_attrs(s->pd);

	int first[ST_MAX];
	bool any_cc = false;

	for (int t = 0; t < ST_MAX; t++)
		first[t] = -1;

	s->ev = calloc(n ? n : 1, sizeof(*s->ev));
	if (!s->ev)
		return -ENOMEM;
	s->arch = file_arch(s->pd);
	s->nr_ev = n;
	for (int t = 0; t < ST_MAX; t++)
		s->fields[t] = s->o->f.t[t].fields;
	for (unsigned i = 0; i < n; i++) {
		const struct perf_event_attr *a = pk_perfdata_attr(s->pd, i);
		struct evinfo *e = &s->ev[i];
		int len;

		e->type = script_type_of(a->type);
		e->name = strdup(ev_name(s, i));
		if (!e->name)
			return -ENOMEM;
		e->callchain = (a->sample_type & PERF_SAMPLE_CALLCHAIN) != 0 ||
			       late_chains(s);	/* (perf: every event's) */
		any_cc |= e->callchain;
		e->bts = a->type == PERF_TYPE_HARDWARE &&
			 (a->config & PERF_COUNT_HW_BRANCH_INSTRUCTIONS) &&
			 a->sample_period == 1 && !a->freq;
		e->period = a->sample_period;
		e->sample_type = a->sample_type;
		e->regs_intr = a->sample_regs_intr;
		e->regs_user = a->sample_regs_user;
		len = (int)strlen(e->name);
		if (len > s->name_width)
			s->name_width = len;
		/* perf checks the first event of each output type, dummy
		 * events left out (find_first_output_type); synthesized
		 * ones when made */
		if (first[e->type] >= 0 || (a->type == PERF_TYPE_SOFTWARE &&
					    a->config == PERF_COUNT_SW_DUMMY))
			continue;
		first[e->type] = (int)i;
	}
	/* ... in the order of the types, as perf */
	for (int t = 0; t < ST_MAX; t++) {
		const struct perf_event_attr *a;

		if (first[t] < 0)
			continue;
		a = pk_perfdata_attr(s->pd, (unsigned)first[t]);
		if (s->o->filt.cpus && !(a->sample_type & PERF_SAMPLE_CPU)) {
			fprintf(stderr, "File does not contain CPU events. Remove -C option to proceed.\n");
			return -EINVAL;
		}
		if (check_type(s, t, a, s->ev[first[t]].name))
			return -EINVAL;
	}
	/* callchains shown only when some event has them (perf) */
	s->use_callchain = !s->o->hide_callchain && (any_cc || (s->pipe && !n));
	if (s->use_callchain && !s->o->f.t[ST_TRACE].user_set) {
		for (unsigned i = 0; i < n; i++)
			if (s->ev[i].type == ST_TRACE && s->ev[i].callchain) {
				s->fields[ST_TRACE] |= SF_IP | SF_SYM | (s->pipe ? 0 :
						SF_SYMOFFSET | SF_DSO);
				break;
			}
	}
	{
		const struct script_filter *fl = &s->o->filt;

		s->filtering = fl->tstart || fl->tend || fl->cpus ||
			       fl->nr_pids || fl->nr_tids || fl->nr_comms ||
			       fl->nr_dsos || fl->syms_set ||
			       s->o->reltime || s->o->deltatime ||
			       s->o->switch_on || s->o->switch_off ||
			       s->o->per_event_dump || s->o->debug_mode ||
			       s->o->nr_stop_bt;
	}
	if (evswitch_init(s) || (s->o->per_event_dump && dumps_open(s)))
		return -EINVAL;
	s->ready = true;
	return 0;
}

/* ---- one sample ---- */

/* data_src, weight and ins_lat after the address: the data_src text is
 * left-aligned to the longest printed so far, as perf does. */
static void put_mem(struct out *s, uint64_t f, const struct pk_sample *sm)
{
	struct ob *o = &s->ob;
	bool wstruct = sm->sample_type & PERF_SAMPLE_WEIGHT_STRUCT;

	if (f & SF_DATA_SRC) {
		char t[160];
		int k = 17;     /* "%16lx ": a u64 never needs more */

		ob_num(o, sm->data_src, 16, 16, ' ', false);
		ob_ch(o, ' ');
		size_t n = pk_mem_describe(sm->data_src, t, sizeof(t));
		/* perf formats the whole field into 100 bytes */
		if (k + n > 99)
			n = (size_t)(99 - k);
		ob_put(o, t, n < sizeof(t) ? n : 0);
		k += (int)n;
		if (k > s->mem_width)
			s->mem_width = k;
		for (int i = k; i < s->mem_width; i++)
			ob_ch(o, ' ');
	}
	if (f & SF_WEIGHT)
		ob_num(o, wstruct ? (uint32_t)sm->weight : sm->weight, 10, 16,
		       ' ', false);
	if (f & SF_INS_LAT)
		ob_num(o, (uint16_t)(sm->weight >> 32), 10, 16, ' ', false);
}

/* phys_addr and the page sizes at the end of the line. */
static void put_mem_tail(struct out *s, uint64_t f, const struct pk_sample *sm)
{
	struct ob *o = &s->ob;
	char t[32];
	size_t n;

	if (f & SF_PHYS_ADDR)
		ob_num(o, sm->phys_addr, 16, 16, ' ', false);
	if (f & SF_DATA_PAGE_SIZE) {
		ob_ch(o, ' ');
		n = script_page_size(sm->data_page_size, t, sizeof(t));
		ob_put(o, t, n < sizeof(t) ? n : 0);
	}
	if (f & SF_CODE_PAGE_SIZE) {
		ob_ch(o, ' ');
		n = script_page_size(sm->code_page_size, t, sizeof(t));
		ob_put(o, t, n < sizeof(t) ? n : 0);
	}
}

/* The time perf shows for T: --reltime's from the first shown,
 * --deltatime's from the previous one. */
static uint64_t shown_time(struct out *s, uint64_t t)
{
	uint64_t prev = s->previous_time;

	if (s->o->reltime) {
		if (!s->initial_time)
			s->initial_time = t;
		return t - s->initial_time;
	}
	if (!s->o->deltatime)
		return t;
	s->previous_time = t;
	return prev ? t - prev : 0;
}

static void put_time(struct out *s, uint64_t t0)
{
	struct ob *o = &s->ob;
	uint64_t t = shown_time(s, t0);
	uint64_t secs = t / 1000000000ull, ns = t % 1000000000ull;

	if (s->o->ns) {
		ob_num(o, secs, 10, 5, ' ', false);
		ob_ch(o, '.');
		ob_num(o, ns, 10, 9, '0', false);
	} else {
		char tmp[40];
		int n = 0;
		uint64_t v = secs;
		char d[24];
		int k = 0;

		do {
			d[k++] = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		while (k)
			tmp[n++] = d[--k];
		tmp[n++] = '.';
		v = ns / 1000;
		for (int i = 5; i >= 0; i--, v /= 10)
			tmp[n + i] = (char)('0' + v % 10);
		n += 6;
		tmp[n] = '\0';
		ob_pad(o, tmp, 12, false);
	}
	ob_put(o, ": ", 2);
}

/* " sym+0xoff (dso)" per the print options. */
static void put_symdso(struct out *s, uint64_t f, const struct pk_location *l)
{
	struct ob *o = &s->ob;

	if (f & SF_SYM) {
		ob_ch(o, ' ');
		if (l->sym) {
			ob_str(o, l->sym);
			if (f & SF_SYMOFFSET) {
				ob_put(o, "+0x", 3);
				ob_num(o, l->symoff, 16, 0, ' ', false);
			}
		} else {
			ob_put(o, "[unknown]", 9);
		}
	}
	if (f & SF_DSO) {
		ob_put(o, " (", 2);
		ob_str(o, l->dso);
		ob_ch(o, ')');
	}
}

/* An unwound user frame: perf shows the functions inlined there as
 * frames of their own, one line each, with the line of each call as
 * their srcline. */
static void put_inlines(struct out *s, uint64_t f, const struct pk_location *l,
			const struct pk_inline_frame *fr, int n)
{
	struct ob *o = &s->ob;

	for (int k = 0; k < n; k++) {
		struct pk_location li = *l;
		bool real = !strcmp(fr[k].name, l->sym);

		if (k) {
			ob_ch(o, '\n');
			if (f & SF_IP)
				ob_ch(o, '\t');
		}
		if (f & SF_IP)
			ob_num(o, l->dso_addr, 16, 16, ' ', false);
		li.sym = fr[k].name;
		put_symdso(s, real ? f : f & ~SF_DSO, &li);
		if ((f & SF_SRCLINE) && fr[k].file) {
			const char *b = strrchr(fr[k].file, '/');

			ob_put(o, "\n  ", 3);
			ob_str(o, b ? b + 1 : fr[k].file);
			ob_ch(o, ':');
			ob_num(o, fr[k].line, 10, 0, ' ', false);
		}
		if (!real)
			ob_put(o, " (inlined)", 10);
	}
}

/* "%16lx sym+off (dso)" of one address (PRINT_ADDR: the address to
 * show), from the cache when the session resolves it the same way.
 * UNWOUND: a frame of the DWARF unwinder, which perf expands into the
 * functions inlined at the address. */
static void put_frame(struct out *s, uint64_t f, uint32_t pid, uint64_t ip,
		      uint16_t cpumode, bool dso_addr, uint64_t gen, bool unwound)
{
	struct ob *o = &s->ob;
	struct lcache *lc = &s->lc;
	struct pk_location l;
	uint64_t h = (ip ^ ((uint64_t)pid << 32) ^ ((uint64_t)cpumode << 60) ^ f) *
		     0x9e3779b97f4a7c15ull;
	struct lcent *e = &lc->e[(h >> (64 - LC_BITS)) ^ unwound];
	uint8_t cmkey = (uint8_t)(cpumode | (unwound ? 0x80 : 0) |
				  (dso_addr ? 0x40 : 0));
	struct pk_inline_frame nm[64];
	int ni = 0;
	size_t start, len;

	if (!(f & (SF_SYM | SF_DSO | SF_SRCLINE)) && !dso_addr) {
		ob_num(o, ip, 16, 16, ' ', false);	/* the address alone */
		return;
	}
	if (e->ip == ip && e->gen == gen && e->pid == pid &&
	    e->cpumode == cmkey && e->f == f && e->valid) {
		if (e->len <= LC_INLINE) { /* fixed-size copy: inlined */
			memcpy(ob_room(o, LC_INLINE), e->text, LC_INLINE);
			o->len += e->len;
		} else {
			ob_put(o, lc->arena + e->off, e->len);
		}
		return;
	}
	pk_session_resolve(s->sess, pid, ip, cpumode, &l);
	start = ob_room(o, 4096) - o->b;
	if (unwound && l.sym)
		ni = pk_session_inlines(s->sess, pid, ip, nm, 64);
	if (ni > 0) {
		put_inlines(s, f, &l, nm, ni);
	} else {
	if (f & SF_IP)
		ob_num(o, dso_addr ? l.dso_addr : ip, 16, 16, ' ', false);
	put_symdso(s, f, &l);
	if (f & SF_SRCLINE) {
		char line[512];

		/* as perf: nothing at all where the line is unknown */
		if (!pk_session_srcline(s->sess, pid, ip, cpumode, line,
					sizeof(line))) {
			ob_put(o, "\n  ", 3);
			ob_str(o, line);
		}
	}
	}
	len = o->len - start;
	if (o->len < start || len > 4096)
		return; /* flushed or long: not cached */
	if (len > LC_INLINE) {
		if (lc->used + len > LC_ARENA) { /* full: forget the long ones */
			for (size_t i = 0; i < LC_SIZE; i++)
				if (lc->e[i].len > LC_INLINE)
					lc->e[i].valid = 0;
			lc->used = 0;
		}
		memcpy(lc->arena + lc->used, o->b + start, len);
		e->off = lc->used;
		lc->used += (uint32_t)len;
	} else {
		memcpy(e->text, o->b + start, len);
	}
	e->ip = ip;
	e->gen = gen;
	e->pid = pid;
	e->len = (uint32_t)len;
	e->f = (uint16_t)f;
	e->cpumode = cmkey;
	e->valid = 1;
}

/* --stop-bt: whether the frame at IP ends the callchain shown (its
 * symbol is one of the list; perf prints it, then stops). */
static bool stop_bt(struct out *s, uint32_t pid, uint64_t ip, uint16_t cm)
{
	struct pk_location l;

	if (!s->o->nr_stop_bt || pk_session_resolve(s->sess, pid, ip, cm, &l) ||
	    !l.sym)
		return false;
	for (int i = 0; i < s->o->nr_stop_bt; i++)
		if (!strcmp(s->o->stop_bt[i], l.sym))
			return true;
	return false;
}

/* The recorded callchain; true when --stop-bt ended it. */
static bool put_chain(struct out *s, uint64_t f, const struct pk_sample *sm,
		      uint16_t misc, uint64_t ugen, uint64_t kgen)
{
	struct ob *o = &s->ob;
	uint64_t want = sm->callchain.nr < (uint64_t)s->max_stack ?
			sm->callchain.nr : (uint64_t)s->max_stack;
	int n;

	if (want > s->cap_frames) {
		void *nf = realloc(s->frames, want * sizeof(*s->frames));

		if (!nf)
			return false;
		s->frames = nf;
		s->cap_frames = (unsigned)want;
	}
	n = pk_session_callchain_in(sm, misc, (unsigned)want, s->frames);
	for (int i = 0; i < n; i++) {
		uint16_t cm = s->frames[i].cpumode;

		if (f & SF_IP)
			ob_ch(o, '\t');
		put_frame(s, f, sm->pid, s->frames[i].ip, cm, true,
			  cm == PERF_RECORD_MISC_USER ? ugen :
			  cm == PERF_RECORD_MISC_KERNEL ? kgen : 0, false);
		ob_ch(o, '\n');
		if (stop_bt(s, sm->pid, s->frames[i].ip, cm))
			return true;
	}
	return false;
}

/* Unwinds a sample's user stack (REGS_USER + STACK_USER) into s->uips:
 * 0, or negative where perf's unwinder fails (no ip or sp among the
 * registers, --max-stack 0): perf then prints the sample on one line. */
static int unwind(struct out *s, const struct pk_sample *sm)
{
	s->nr_uips = 0;
	if (!(sm->sample_type & PERF_SAMPLE_REGS_USER) ||
	    !(sm->sample_type & PERF_SAMPLE_STACK_USER))
		return 0;
	if (!s->uw && !(s->uw = pk_unwind_new(s->sess)))
		return 0;
	if (!s->uips && !(s->uips = malloc(((size_t)s->max_stack + 1) *
					   sizeof(*s->uips))))
		return 0;
	s->nr_uips = pk_unwind_sample(s->uw, sm->pid, sm, s->uips,
				      s->max_stack);
	if (s->nr_uips < 0) {
		s->nr_uips = 0;
		return -EINVAL;
	}
	return 0;
}

/* perf 6.1 appends the user frames it unwound to whatever the callchain
 * gave, each part up to --max-stack. */
static void put_unwound(struct out *s, uint64_t f, const struct pk_sample *sm,
			uint64_t ugen)
{
	for (int i = 0; i < s->nr_uips; i++) {
		uint64_t ip = s->uips[i];

		if (!ip)
			continue;
		if (f & SF_IP)
			ob_ch(&s->ob, '\t');
		put_frame(s, f, sm->pid, ip, PERF_RECORD_MISC_USER, true,
			  ugen, true);
		ob_ch(&s->ob, '\n');
		if (stop_bt(s, sm->pid, ip, PERF_RECORD_MISC_USER))
			return;
	}
}

static void put_callchain(struct out *s, uint64_t f, const struct pk_sample *sm,
			  uint16_t misc)
{
	uint64_t ugen = pk_session_generation(s->sess, sm->pid,
					      PERF_RECORD_MISC_USER);

	if (!put_chain(s, f, sm, misc, ugen,
		       pk_session_generation(s->sess, sm->pid,
					     PERF_RECORD_MISC_KERNEL)))
		put_unwound(s, f, sm, ugen);
}

/* perf's names of branch flag sets (sample_flags_to_name). */
static const char *flags_name(uint32_t f)
{
	static const struct { uint32_t f; const char *name; } t[] = {
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL, "call" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_RETURN, "return" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_CONDITIONAL, "jcc" },
		{ PK_IP_FLAG_BRANCH, "jmp" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL | PK_IP_FLAG_INTERRUPT,
		  "int" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_RETURN | PK_IP_FLAG_INTERRUPT,
		  "iret" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL | PK_IP_FLAG_SYSCALLRET,
		  "syscall" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_RETURN | PK_IP_FLAG_SYSCALLRET,
		  "sysret" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_ASYNC, "async" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL | PK_IP_FLAG_ASYNC |
		  PK_IP_FLAG_INTERRUPT, "hw int" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_TX_ABORT, "tx abrt" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_TRACE_BEGIN, "tr strt" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_TRACE_END, "tr end" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL | PK_IP_FLAG_VMENTRY,
		  "vmentry" },
		{ PK_IP_FLAG_BRANCH | PK_IP_FLAG_CALL | PK_IP_FLAG_VMEXIT,
		  "vmexit" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].f == f)
			return t[i].name;
	return NULL;
}

/* perf's flags text (perf_sample__sprintf_flags) into BUF. */
static void flags_text(uint32_t flags, char *buf, size_t len)
{
	static const char chars[] = "bcrosyiABExghDt";
	const uint32_t xf = PK_IP_FLAG_IN_TX | PK_IP_FLAG_INTR_DISABLE |
			    PK_IP_FLAG_INTR_TOGGLE;
	const char *name;
	char xs[8] = "";
	size_t pos = 0, i;

	/* in a transaction, interrupts off / toggled: "(xDt)" after a name */
	if (flags & xf)
		snprintf(xs, sizeof(xs), "(%s%s%s)",
			 flags & PK_IP_FLAG_IN_TX ? "x" : "",
			 flags & PK_IP_FLAG_INTR_DISABLE ? "D" : "",
			 flags & PK_IP_FLAG_INTR_TOGGLE ? "t" : "");
	if ((name = flags_name(flags & ~xf))) {
		snprintf(buf, len, "%-15s%6s", name, xs);
		return;
	}
	if ((flags & PK_IP_FLAG_TRACE_BEGIN) &&
	    (name = flags_name(flags & ~(xf | PK_IP_FLAG_TRACE_BEGIN)))) {
		snprintf(buf, len, "tr strt %-7s%6s", name, xs);
		return;
	}
	if ((flags & PK_IP_FLAG_TRACE_END) &&
	    (name = flags_name(flags & ~(xf | PK_IP_FLAG_TRACE_END)))) {
		snprintf(buf, len, "tr end  %-7s%6s", name, xs);
		return;
	}
	for (i = 0; i < 32 && pos + 1 < len; i++, flags >>= 1)
		if (flags & 1)
			buf[pos++] = i < sizeof(chars) - 1 ? chars[i] : '?';
	for (; pos + 1 < len && pos < 21; pos++)
		buf[pos] = ' ';
	buf[pos] = 0;
}

static void put_flags(struct out *s)
{
	char t[64];

	/* perf's flags column; samples outside of branch traces have none */
	if (!s->cur) {
		ob_pad(&s->ob, "", 2 + 21 + 1, false);
		return;
	}
	flags_text(s->cur->flags, t, sizeof(t));
	ob_put(&s->ob, "  ", 2);
	ob_pad(&s->ob, t, 21, true);
	ob_ch(&s->ob, ' ');
}

/* perf's ptw_is_prt: printable ASCII characters, then only NULs. */
static bool ptw_printable(uint64_t v)
{
	int i = 0;

	for (; i < 8; i++) {
		unsigned c = (unsigned)(v >> (8 * i)) & 0xff;

		if (!c)
			break;
		if (c < 0x20 || c > 0x7e)
			return false;
	}
	return i == 8 || !(v >> (8 * i));
}

/* An evt sample's text: the CFE type's name (its number when perf names
 * none), IP, vector, then each EVD by name or number. */
static int evt_text(const struct pk_itrace_sample *is, char *t, size_t len)
{
	static const char *const cfe[] = { NULL, "INTR", "IRET", "SMI",
		"RSM", "SIPI", "INIT", "VMENTRY", "VMEXIT", "VMEXIT_INTR",
		"SHUTDOWN" };
	static const char *const evd[] = { "PFA", "VMXQ", "VMXR" };
	unsigned ty = is->u.evt.type;
	size_t n;

	if (ty < sizeof(cfe) / sizeof(cfe[0]) && cfe[ty])
		n = (size_t)snprintf(t, len, " cfe: %s IP: %u vector: %u",
				     cfe[ty], is->u.evt.ip, is->u.evt.vector);
	else
		n = (size_t)snprintf(t, len, " cfe: %u IP: %u vector: %u", ty,
				     is->u.evt.ip, is->u.evt.vector);
	for (unsigned i = 0; i < is->u.evt.nevd && n < len; i++) {
		unsigned et = is->u.evt.evd_type[i] & 0x3f;

		if (et < 3)
			n += (size_t)snprintf(t + n, len - n, " %s: %#" PRIx64,
					      evd[et], is->u.evt.evd[i]);
		else
			n += (size_t)snprintf(t + n, len - n,
					      " EVD_%u: %#" PRIx64, et,
					      is->u.evt.evd[i]);
	}
	return (int)(n < len ? n : len - 1);
}

/* The texts of the ptwrite and power samples (with perf's closing
 * space). */
static int synth_text(const struct pk_itrace_sample *is, char *t, size_t len)
{
	char str[9] = "";

	switch (is->kind) {
	case PK_ITRACE_PTWRITE:
		if (ptw_printable(is->u.ptwrite.payload))
			for (int i = 0; i < 8; i++)
				str[i] = (char)(is->u.ptwrite.payload >> (8 * i));
		return snprintf(t, len, " IP: %u payload: %#" PRIx64 " %s ",
				is->u.ptwrite.ip, is->u.ptwrite.payload, str);
	case PK_ITRACE_MWAIT:
		return snprintf(t, len, " hints: %#x extensions: %#x ",
				is->u.mwait.hints, is->u.mwait.ext);
	case PK_ITRACE_PWRE:
		return snprintf(t, len, " hw: %u cstate: %u sub-cstate: %u ",
				is->u.pwre.hw, is->u.pwre.cstate,
				is->u.pwre.subcstate);
	case PK_ITRACE_EXSTOP:
		return snprintf(t, len, " IP: %u ", is->u.exstop.ip);
	case PK_ITRACE_PWRX:
		return snprintf(t, len,
				" deepest cstate: %u last cstate: %u wake reason: %#x ",
				is->u.pwrx.deepest, is->u.pwrx.last,
				is->u.pwrx.wake);
	case PK_ITRACE_EVT:
		return evt_text(is, t, len);
	case PK_ITRACE_IFLAG:
		return snprintf(t, len, " IFLAG: %d->%d %s branch",
				!is->u.iflag.iflag, is->u.iflag.iflag,
				is->u.iflag.via_branch ? "via" : "non");
	default:
		return 0;
	}
}

/* The payload of a synthesized psb/cbr... sample, padded as perf pads
 * it (perf_sample__fprintf_pt_spacing: to 34 columns). */
static void put_synth(struct out *s, const struct pk_itrace_sample *is)
{
	char t[192];
	int n = 0;

	if (is->kind == PK_ITRACE_PSB)
		n = snprintf(t, sizeof(t), " psb offs: %#" PRIx64, is->u.psb.offset);
	else if (is->kind == PK_ITRACE_CBR && is->u.cbr.max_nonturbo)
		n = snprintf(t, sizeof(t), " cbr: %2u freq: %4u MHz (%3u%%)",
			     is->u.cbr.cbr, (is->u.cbr.freq_khz + 500) / 1000,
			     (5 + 1000u * is->u.cbr.cbr /
			      is->u.cbr.max_nonturbo) / 10);
	else if (is->kind == PK_ITRACE_CBR)
		n = snprintf(t, sizeof(t), " cbr: %2u freq: %4u MHz",
			     is->u.cbr.cbr, (is->u.cbr.freq_khz + 500) / 1000);
	else
		n = synth_text(is, t, sizeof(t));
	if (n <= 0)
		return;
	ob_pad(&s->ob, t, 34, true);
}

/* perf's callindent: "(dso)\t" when neither ip nor addr is shown, the
 * called or returning function (or its address) indented by the call
 * depth, padded to a column that changes as little as it can. */
static void put_callindent(struct out *s, uint64_t f,
			   const struct pk_sample *sm, uint16_t cpumode)
{
	const struct pk_itrace_sample *is = s->cur;
	struct ob *o = &s->ob;
	struct pk_location l, al;
	const char *name = NULL;
	uint64_t ip = 0;
	int depth = is->depth, len = 0;
	char t[64];

	if (depth < 0)		/* a thread without a call stack */
		depth = 0;
	else if (is->flags & PK_IP_FLAG_RETURN)
		depth++;	/* popped already: the call's depth */
	pk_session_resolve(s->sess, sm->pid, sm->ip, cpumode, &l);
	if (is->flags & (PK_IP_FLAG_CALL | PK_IP_FLAG_TRACE_BEGIN)) {
		pk_session_resolve(s->sess, sm->pid, sm->addr, is->addr_cpumode,
				   &al);
		if (sm->addr && al.sym)
			name = al.sym;
		else
			ip = sm->addr;
	} else if (is->flags & (PK_IP_FLAG_RETURN | PK_IP_FLAG_TRACE_END)) {
		if (l.sym)
			name = l.sym;
		else
			ip = sm->ip;
	}
	if ((f & SF_DSO) && !(f & (SF_IP | SF_ADDR))) {
		ob_ch(o, '(');
		ob_pad(o, l.dso, s->o->pad_dso, true);
		ob_put(o, ")\t", 2);
	}
	if (name) {
		ob_pad(o, "", depth * 4, false);
		ob_str(o, name);
		len = depth * 4 + (int)strlen(name);
	} else if (ip) {
		snprintf(t, sizeof(t), "%16" PRIx64, ip);
		ob_pad(o, "", depth * 4, false);
		ob_str(o, t);
		len = depth * 4 + (int)strlen(t);
	}
	if (len > s->spacing || (len && len < s->spacing - 52))
		s->spacing = (len + 4 + 31) / 32 * 32;
	if (len < s->spacing)
		ob_pad(o, "", s->spacing - len, false);
}

/* perf's " \t IPC: 0.11 (50/445) " of a synthesized sample with cycles */
static void put_ipc(struct out *s, uint64_t f, const struct pk_itrace_sample *is)
{
	char b[96];
	unsigned ipc;
	int n;

	if (!(f & SF_IPC) || !is || !is->ipc_cyc_cnt || !is->ipc_insn_cnt)
		return;
	ipc = (unsigned)(is->ipc_insn_cnt * 100 / is->ipc_cyc_cnt);
	n = snprintf(b, sizeof(b), " \t IPC: %u.%02u (%llu/%llu) ", ipc / 100,
		     ipc % 100, (unsigned long long)is->ipc_insn_cnt,
		     (unsigned long long)is->ipc_cyc_cnt);
	ob_put(&s->ob, b, (size_t)n);
}

/* perf script --xed: its output through xed -F insn: -A -64, which puts
 * two tabs and the disassembly (64-bit mode) in place of "insn:" and the
 * bytes (xed's spelling of an undecodable one: GENERAL_ERROR). */
static void put_xed(struct out *s, const struct pk_itrace_sample *is)
{
	struct pk_pt_insn in = { .ip = is->ip, .mode = PK_PT_MODE_64 };
	char b[160];

	in.size = is->insn_len < sizeof(in.raw) ? is->insn_len :
		  (uint8_t)sizeof(in.raw);
	memcpy(in.raw, is->insn, in.size);
	if (pk_pt_insn_disasm_att(&in, b, sizeof(b)))
		snprintf(b, sizeof(b), "GENERAL_ERROR");
	ob_put(&s->ob, " \t\t", 3);
	ob_str(&s->ob, b);
}

/* perf's names of the file's architecture's registers by number (x86:
 * PERF_REG_X86_*, an XMM register's two halves under one name; arm64),
 * NULL for none ("(null)" as perf's printf shows it). */
static const char *reg_name(const struct out *s, unsigned r)
{
	static const char *const x86[] = {
		"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS",
		"CS", "SS", "DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11",
		"R12", "R13", "R14", "R15",
	};
	static const char *const xmm[] = {
		"XMM0", "XMM1", "XMM2", "XMM3", "XMM4", "XMM5", "XMM6", "XMM7",
		"XMM8", "XMM9", "XMM10", "XMM11", "XMM12", "XMM13", "XMM14",
		"XMM15",
	};
	static const char *const arm64[] = {
		"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9",
		"x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18",
		"x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27",
		"x28", "x29", "lr", "sp", "pc",
	};

	if (s->arch == ARCH_ARM64)
		return r < sizeof(arm64) / sizeof(arm64[0]) ? arm64[r] : NULL;
	if (s->arch != ARCH_X86)
		return NULL;
	if (r < sizeof(x86) / sizeof(x86[0]))
		return x86[r];
	return r >= 32 && r < 64 ? xmm[(r - 32) / 2] : NULL;
}

/* perf_sample__fprintf_regs: " ABI:2 " and "%5s:0x%x " for each bit of
 * the attr's MASK (the values in order); nothing without values. */
static void put_regs(struct out *s, uint64_t abi, uint64_t mask,
		     const uint64_t *regs, unsigned nr)
{
	char b[64];
	unsigned i = 0;
	int n;

	if (!regs)
		return;
	n = snprintf(b, sizeof(b), " ABI:%" PRIu64 " ", abi);
	ob_put(&s->ob, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
	for (unsigned r = 0; r < 64; r++) {
		const char *name;

		if (!(mask >> r & 1))
			continue;
		name = reg_name(s, r);
		n = snprintf(b, sizeof(b), "%5s:0x%" PRIx64 " ",
			     name ? name : "(null)", i < nr ? regs[i] : 0);
		i++;
		ob_put(&s->ob, b, (size_t)n < sizeof(b) ? (size_t)n :
			sizeof(b) - 1);
	}
}

/* " insn: 31 ed" */
static void put_insn(struct out *s, uint64_t f, const struct pk_itrace_sample *is)
{
	static const char hex[] = "0123456789abcdef";

	if (f & SF_INSNLEN) {
		ob_put(&s->ob, " ilen: ", 7);
		ob_num(&s->ob, is->insn_len, 10, 0, ' ', false);
	}
	if (!(f & SF_INSN) || !is->insn_len)
		return;
	if (s->o->xed) {
		put_xed(s, is);
		return;
	}
	ob_put(&s->ob, " insn:", 6);
	for (int i = 0; i < is->insn_len && i < 16; i++) {
		char b[3] = { ' ', hex[is->insn[i] >> 4], hex[is->insn[i] & 15] };

		ob_put(&s->ob, b, 3);
	}
}

/* perf_sample__fprintf_start: [VM:pid VCPU:n] comm, pid/tid, [cpu],
 * time. CC: the callchain follows (the comm is not padded then). */
static void put_start(struct out *s, uint64_t f, const struct pk_sample *sm,
		      const char *comm, bool cc)
{
	struct ob *o = &s->ob;

	if (sm->machine_pid && (f & (SF_MACHINE_PID | SF_VCPU))) {
		char t[40];
		int n = 0;

		if (f & SF_MACHINE_PID)
			n = snprintf(t, sizeof(t), "VM:%5d ", (int)sm->machine_pid);
		if (f & SF_VCPU)
			snprintf(t + n, sizeof(t) - (size_t)n, "VCPU:%03d ",
				 (int)sm->vcpu);
		ob_str(o, t);
	}
	if (f & SF_COMM) {
		if ((f & SF_IP) && cc) {
			ob_str(o, comm);
			ob_ch(o, ' ');
		} else {
			ob_pad(o, comm, 16, false);
			ob_ch(o, ' ');
		}
	}
	if ((f & SF_PID) && (f & SF_TID)) {
		ob_int(o, (int32_t)sm->pid, 5, false);
		ob_ch(o, '/');
		ob_int(o, (int32_t)sm->tid, 5, true);
		ob_ch(o, ' ');
	} else if (f & (SF_PID | SF_TID)) {
		ob_int(o, (int32_t)((f & SF_PID) ? sm->pid : sm->tid), 5, false);
		ob_ch(o, ' ');
	}
	if (f & SF_CPU) {
		ob_ch(o, '[');
		if ((int32_t)sm->cpu < 0) {	/* "%03d" of -1: "-01" */
			char t[16];

			snprintf(t, sizeof(t), "%03d", (int)(int32_t)sm->cpu);
			ob_str(o, t);
		} else {
			ob_int(o, (int32_t)sm->cpu, 3, false);
			if (sm->cpu < 100) { /* "%03d" */
				char *p = o->b + o->len - 3;

				for (int i = 0; i < 2 && p[i] == ' '; i++)
					p[i] = '0';
			}
		}
		ob_put(o, "] ", 2);
	}
	if (f & SF_TIME)
		put_time(s, sm->time);
}

/* perf's process_sample_event before the output: the time ranges, -d's
 * count (nothing shown), --cpu, the task, DSO and symbol filters, then
 * --switch-on/off. */
static bool sample_shown(struct out *s, const struct pk_record *rec, int attr,
			 const struct pk_sample *sm, const char *comm)
{
	const struct script_filter *flt = &s->o->filt;

	if (!script_filter_time_pass(flt, sm))
		return false;
	if (s->o->debug_mode) {
		if (sm->time < s->last_time) {
			fprintf(stderr, "Samples misordered, previous: %" PRIu64
				" this: %" PRIu64 "\n", s->last_time, sm->time);
			s->nr_unordered++;
		}
		s->last_time = sm->time;
		return false;
	}
	if (!script_filter_pass(flt, sm, comm))
		return false;
	if (flt->nr_dsos || flt->syms_set) {
		struct pk_location l;
		uint16_t cm = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		bool mapped = !pk_session_resolve(s->sess, sm->pid, sm->ip, cm, &l);

		if (!script_filter_loc(flt, mapped ? &l : NULL, sm->ip))
			return false;
	}
	return !evswitch_discard(s, attr);
}

/* Prints one sample as event ATTR's with thread name COMM (NULL: never
 * named). */
static int print_sample(struct out *s, const struct pk_record *rec, int attr,
			const struct pk_sample *sm, const char *comm)
{
	struct ob *o = &s->ob;
	const struct evinfo *e;
	char commbuf[16];
	uint64_t f;

	e = &s->ev[attr];
	f = s->fields[e->type];
	if (!comm) {
		snprintf(commbuf, sizeof(commbuf), ":%d", (int)sm->tid);
		comm = commbuf;
	}
	if (s->filtering && !sample_shown(s, rec, attr, sm, comm))
		return 0;
	if (!f)
		return 0;
	size_t dstart = o->len;

	if (s->dumps) {
		ob_room(o, 4096);	/* (a flush in the sample: none) */
		dstart = o->len;
	}

	bool cc = s->use_callchain && e->callchain;
	/* a synthesized sample's head (comm, tid, period, event) without a
	 * time or CPU repeats line after line: kept, copied */
	struct headc *hc = &s->hc;
	bool hcache = s->cur && !(f & (SF_TIME | SF_CPU)) &&
		      (f & (SF_COMM | SF_TID | SF_PID | SF_PERIOD | SF_EVNAME));
	size_t hstart = o->len;

	if (hcache && hc->valid && hc->tid == sm->tid && hc->pid == sm->pid &&
	    hc->attr == attr && hc->period == sm->period && hc->f == f &&
	    !strcmp(hc->comm, comm)) {
		memcpy(ob_room(o, sizeof(hc->text)), hc->text, hc->len);
		o->len += hc->len;
		goto head_done;
	}
	if (f & (SF_COMM | SF_PID | SF_TID | SF_CPU | SF_TIME))
		put_start(s, f, sm, comm, cc);
	if (f & SF_PERIOD) {
		/* without PERF_SAMPLE_PERIOD perf shows the attr's period */
		ob_num(o, (sm->sample_type & PERF_SAMPLE_PERIOD) ? sm->period :
		       e->period, 10, 10, ' ', false);
		ob_ch(o, ' ');
	}
	if (f & SF_EVNAME) {
		ob_pad(o, e->name, s->name_width, false);
		ob_put(o, ": ", 2);
	}
	if (hcache && o->len >= hstart && o->len - hstart <= sizeof(hc->text)) {
		hc->len = o->len - hstart;
		memcpy(hc->text, o->b + hstart, hc->len);
		hc->tid = sm->tid;
		hc->pid = sm->pid;
		hc->attr = attr;
		hc->period = sm->period;
		hc->f = f;
		/* by its text: a thread's name changes in place */
		hc->valid = strlen(comm) < sizeof(hc->comm);
		if (hc->valid)
			strcpy(hc->comm, comm);
	}
head_done:
	if (f & SF_FLAGS)
		put_flags(s);

	bool bts = e->bts;

	if (s->cur && (f & SF_SYNTH) && e->type == ST_SYNTH)
		put_synth(s, s->cur);
	/* (perf_sample__fprintf_bts: branch samples show ip, target, ipc
	 * and bytes, none of the fields below) */
	if ((f & SF_TRACE) && !bts && (sm->sample_type & PERF_SAMPLE_RAW) &&
	    tracefmt(s)) {
		size_t len;
		const char *t = pk_tracefmt_print(s->tf,
			pk_perfdata_attr(s->pd, (unsigned)attr)->config,
			(int)sm->cpu, sm->raw.data, sm->raw.size, &len);

		if (t)
			ob_put(o, t, len);
	}
	if ((f & SF_ADDR) && !bts)
		ob_num(o, sm->addr, 16, 16, ' ', false);
	if ((f & (SF_DATA_SRC | SF_WEIGHT | SF_INS_LAT)) && !bts)
		put_mem(s, f, sm);
	if ((f & SF_IP) && cc && unwind(s, sm))
		cc = false; /* perf: no callchain when its unwinder fails */
	if (bts && s->cur && (f & SF_CALLINDENT))
		put_callindent(s, f, sm, rec->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	if (f & SF_IP) {
		if (cc) {
			ob_ch(o, '\n');
			put_callchain(s, f, sm, rec->misc);
		} else if (!(f & (SF_SYM | SF_DSO | SF_SRCLINE))) {
			ob_ch(o, ' ');
			if (s->cur && !bts && !s->filtering &&
			    !(f & IP_TEXT_FIELDS))
				s->ip_at = o->len;
			ob_hex16(o, sm->ip);	/* the address alone */
		} else {
			ob_ch(o, ' ');
			uint16_t cm = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;

			put_frame(s, f, sm->pid, sm->ip, cm, false,
				  pk_session_generation(s->sess, sm->pid, cm), false);
		}
	}
	if (bts && ((f & SF_ADDR) || !s->o->f.t[e->type].user_set)) {
		/* the target's maps: the kernel's for its addresses */
		uint16_t cm = sm->addr >> 63 ? PERF_RECORD_MISC_KERNEL :
			      PERF_RECORD_MISC_USER;

		if (s->cur && (sm->addr >> 63 ||	/* (a guest's) */
			       guest_mode(s->cur->addr_cpumode)))
			cm = s->cur->addr_cpumode;

		ob_put(o, " => ", 4);
		put_frame(s, (f & (SF_SYM | SF_SYMOFFSET | SF_DSO)) | SF_IP,
			  sm->pid, sm->addr,
			  cm, false, pk_session_generation(s->sess, sm->pid, cm),
			  false);
	}
	if ((f & SF_IREGS) && !bts)
		put_regs(s, sm->regs_intr.abi, e->regs_intr, sm->regs_intr.regs,
			 sm->regs_intr.nr);
	if ((f & SF_UREGS) && !bts)
		put_regs(s, sm->regs_user.abi, e->regs_user, sm->regs_user.regs,
			 sm->regs_user.nr);
	if ((f & (SF_BRSTACK | SF_BRSTACKSYM | SF_BRSTACKOFF)) && !bts)
		script_put_brstack(s->sess, f, sm, ob_put_cb, o);
	if (bts && (f & SF_IPC))
		put_ipc(s, f, s->cur);
	if (s->cur && (f & (SF_INSN | SF_INSNLEN)))
		put_insn(s, f, s->cur);
	if ((f & (SF_PHYS_ADDR | SF_DATA_PAGE_SIZE | SF_CODE_PAGE_SIZE)) &&
	    !bts)	/* (after the bytes, as perf) */
		put_mem_tail(s, f, sm);
	if (!bts && (f & SF_IPC))
		put_ipc(s, f, s->cur);
	ob_ch(o, '\n');
	if (s->dumps && o->len >= dstart)
		dump_put(s, attr, dstart);
	return o->err;
}

/* The session's sample callback. */
static int sample(void *ctx, struct pk_session *sess,
		  const struct pk_session_sample *ss)
{
	struct out *s = ctx;
	int err;

	(void)sess;
	if (!s->ready && (err = setup(s)))
		return err;
	if ((unsigned)ss->attr >= s->nr_ev)
		return 0;
	{
		/* a synthesized event's sample read from a file (perf
		 * inject's): its payload as the decoder's */
		const struct perf_event_attr *a =
			pk_perfdata_attr(s->pd, (unsigned)ss->attr);
		struct pk_itrace_sample is;

		struct pk_sample late;
		const struct pk_sample *sm = ss->sample;

		memset(&is, 0, sizeof(is));
		if (a->type == PK_TYPE_SYNTH &&
		    (ss->sample->sample_type & PERF_SAMPLE_RAW) &&
		    !pk_itrace_synth_decode(a->config, ss->sample->raw.data,
					    ss->sample->raw.size, &is))
			s->cur = &is;
		/* G, L: a recorded sample's chain and branches from the trace */
		if (s->o->itrace.set &&
		    cli_itrace_late(s->it, &s->o->itrace, sm, &late))
			sm = &late;
		err = print_sample(s, ss->rec, ss->attr, sm, ss->comm);
		s->cur = NULL;
	}
	if (s->o->dump)
		ob_flush(&s->ob); /* right after the record's dump */
	/* a sample's AUX area data (sample mode), after its line */
	if (s->o->dump && s->pt_info && ss->sample->aux.size) {
		printf("\n");
		script_dump_pt(ss->sample->aux.data, (size_t)ss->sample->aux.size);
	}
	return err;
}

/* -D: the record's dump before the session applies it. */
static int dump_record(void *ctx, struct pk_session *sess,
		       const struct pk_record *rec)
{
	struct out *s = ctx;

	return s->o->dump(s->o->dump_ctx, sess, rec);
}

static void bad_record(void *ctx, struct pk_session *sess,
		       const struct pk_record *rec, int err)
{
	struct out *s = ctx;

	(void)sess, (void)rec, (void)err;
	cli_error("script", "%s", pk_perfdata_errmsg(s->pd));
}

/* perf's line for a decoder error (perf_event__fprintf_auxtrace_error). */
static void print_trace_error(struct out *s, const struct pk_itrace_sample *is)
{
	char t[256];
	int n;

	n = snprintf(t, sizeof(t), " instruction trace error type %d",
		     is->u.error.type);
	if (is->has_time && is->time)
		n += snprintf(t + n, sizeof(t) - (size_t)n, " time %" PRIu64 ".%09" PRIu64,
			      is->time / 1000000000u, is->time % 1000000000u);
	else
		n += snprintf(t + n, sizeof(t) - (size_t)n, " time 0");
	n += snprintf(t + n, sizeof(t) - (size_t)n, " cpu %d pid %d tid %d ip %#"
		      PRIx64 " code %d: %s\n", (int)is->cpu, (int)is->pid,
		      (int)is->tid, is->ip, is->u.error.code, is->u.error.msg);
	ob_put(&s->ob, t, (size_t)n < sizeof(t) ? (size_t)n : sizeof(t) - 1);
}

/* (the sample was just stored field by field: its fields are read one by
 * one too, as a wider load of several would wait for the stores) */
#define FIELDWISE __attribute__((optimize("no-tree-slp-vectorize")))

/* Whether IS's line is the template's but for the address. */
static FIELDWISE bool tl_match(const struct out *s,
			       const struct pk_itrace_sample *is)
{
	const struct itmpl *t = &s->tl;

	/* (flags, target and time count where they show) */
	return t->valid && t->attr == is->attr && t->tid == is->tid &&
	       t->time == (is->time & t->time_mask) &&
	       t->period == is->period &&
	       t->pid == is->pid && t->cpu == is->cpu &&
	       t->flags == (is->flags & t->flags_mask) &&
	       t->addr == (is->addr & t->addr_mask) &&
	       t->cpumode == is->cpumode &&
	       t->addr_cpumode == is->addr_cpumode &&
	       t->epoch == s->rec_epoch && t->name_width == s->name_width &&
	       is->kind == PK_ITRACE_INSTRUCTIONS;
}

static inline __attribute__((always_inline)) void tl_put(struct out *s,
						       uint64_t ip)
{
	struct ob *o = &s->ob;
	char *p = ob_room(o, sizeof(s->tl.line));

	if (s->tl.len <= 32)	/* (a fixed-size copy: inlined) */
		memcpy(p, s->tl.line, 32);
	else
		memcpy(p, s->tl.line, s->tl.len);
	hex16_at(p + s->tl.at, ip);
	o->len += s->tl.len;
}

/* After IS was printed from START on (FL: the flushes then): its line
 * as the template when its ip shows only as the address at ip_at. */
static void tl_keep(struct out *s, const struct pk_itrace_sample *is,
		    size_t start, unsigned long fl)
{
	struct ob *o = &s->ob;
	struct itmpl *t = &s->tl;
	size_t at = s->ip_at, len = o->len - start;

	s->ip_at = SIZE_MAX;
	if (at == SIZE_MAX || fl != o->flushes || o->len <= start ||
	    at < start || at + 16 > o->len || len > sizeof(t->line))
		return;
	memcpy(t->line, o->b + start, len);
	t->len = (uint16_t)len;
	t->at = (uint16_t)(at - start);
	t->attr = is->attr;
	t->pid = is->pid;
	t->tid = is->tid;
	t->cpu = is->cpu;
	uint64_t f = s->fields[s->ev[is->attr].type];

	t->time_mask = f & SF_TIME ? ~0ull : 0;
	t->addr_mask = f & SF_ADDR ? ~0ull : 0;
	t->flags_mask = f & SF_FLAGS ? ~0u : 0;
	t->time = is->time & t->time_mask;
	t->period = is->period;
	t->addr = is->addr & t->addr_mask;
	t->flags = is->flags & t->flags_mask;
	t->cpumode = is->cpumode;
	t->addr_cpumode = is->addr_cpumode;
	t->epoch = s->rec_epoch;
	t->name_width = s->name_width;
	t->valid = true;
}

/* Whether IS's line may be kept by the line cache: its context checked
 * (a new one forgets all lines). */
static FIELDWISE bool ln_ctx(struct out *s, const struct pk_itrace_sample *is)
{
	const struct evinfo *e = &s->ev[is->attr];
	uint64_t f = s->fields[e->type];
	struct lnctx *c;
	uint64_t t;

	if ((is->kind != PK_ITRACE_BRANCHES &&
	     is->kind != PK_ITRACE_INSTRUCTIONS) || (f & ~LN_FIELDS) ||
	    (s->use_callchain && e->callchain) || s->filtering)
		return false;
	if (!s->ln) {
		s->ln = calloc((size_t)1 << LN_BITS, sizeof(*s->ln));
		if (!s->ln)
			return false;
	}
	c = &s->ln_ctx;
	t = f & SF_TIME ? is->time : 0;
	if (!s->ln_id || c->attr != is->attr || c->tid != is->tid ||
	    c->time != t || c->period != is->period ||
	    c->epoch != s->rec_epoch || c->pid != is->pid ||
	    c->cpu != is->cpu || c->cpumode != is->cpumode ||
	    c->addr_cpumode != is->addr_cpumode ||
	    c->name_width != s->name_width || c->mem_width != s->mem_width) {
		c->attr = is->attr;
		c->name_width = s->name_width;
		c->mem_width = s->mem_width;
		c->pid = is->pid;
		c->tid = is->tid;
		c->cpu = is->cpu;
		c->time = t;
		c->period = is->period;
		c->epoch = s->rec_epoch;
		c->cpumode = is->cpumode;
		c->addr_cpumode = is->addr_cpumode;
		s->ln_id++;
	}
	return true;
}

static inline struct lnent *ln_at(struct out *s, uint64_t ip, uint64_t addr,
				  uint32_t flags)
{
	uint64_t h = (ip * 0x9e3779b97f4a7c15ull) ^
		     (addr * 0xc2b2ae3d27d4eb4full) ^ flags;

	return &s->ln[(h ^ (h >> 29)) & ((1u << LN_BITS) - 1)];
}

/* The line cache's entry for IS when its line may be kept (NULL when
 * not): the context checked first (a new one forgets all lines). */
static struct lnent *ln_slot(struct out *s, const struct pk_itrace_sample *is)
{
	return ln_ctx(s, is) ? ln_at(s, is->ip, is->addr, is->flags) : NULL;
}

static inline bool ln_hit(const struct out *s, const struct lnent *l,
			  uint64_t ip, uint64_t addr, uint32_t flags)
{
	return l->id == s->ln_id && l->ip == ip && l->addr == addr &&
	       l->flags == flags;
}

/* A kept line out: in whole 32-byte pieces (inlined moves, no call; the
 * entry's text and the buffer's room both reach past the line). */
static inline void ln_put(struct ob *o, const struct lnent *l)
{
	char *p = ob_room(o, sizeof(l->text) + 32);

	for (size_t i = 0; i < l->len; i += 32)
		memcpy(p + i, l->text + i, 32);
	o->len += l->len;
}

/* After IS's line was printed from START on (FL: the flushes then). */
static void ln_keep(struct out *s, struct lnent *l,
		    const struct pk_itrace_sample *is, size_t start,
		    unsigned long fl)
{
	const struct ob *o = &s->ob;
	size_t len = o->len - start;

	if (fl != o->flushes || o->len <= start || len > sizeof(l->text))
		return;
	memcpy(l->text, o->b + start, len);
	l->len = (uint16_t)len;
	l->id = s->ln_id;
	l->ip = is->ip;
	l->addr = is->addr;
	l->flags = is->flags;
}

/* A synthesized sample from the instruction trace. */
static int itrace_sample(void *ctx, const struct pk_itrace_sample *is)
{
	struct out *s = ctx;
	struct pk_sample *sm = &s->ism;
	struct pk_record rec;
	unsigned attr;
	unsigned long fl = 0;
	size_t start = 0;
	struct lnent *ln;
	bool keep;
	int err;

	if (!s->ready && (err = setup(s)))
		return err;
	if (is->kind == PK_ITRACE_ERROR) {
		print_trace_error(s, is);
		return s->ob.err;
	}
	if (is->attr < 0 || (unsigned)is->attr >= s->nr_ev)
		return 0;
	/* a guest's sample without a guest option: perf's lookup in its
	 * machine is filtered (HIST_FILTER__GUEST), perf script skips it */
	if (guest_mode(is->cpumode) && !s->o->guest_kallsyms &&
	    !s->o->guest_code)
		return 0;
	if (tl_match(s, is)) {
		tl_put(s, is->ip);
		return s->ob.err;
	}
	attr = (unsigned)is->attr;
	ln = ln_slot(s, is);
	if (ln && ln_hit(s, ln, is->ip, is->addr, is->flags)) {
		ln_put(&s->ob, ln);
		return s->ob.err;
	}
	keep = is->kind == PK_ITRACE_INSTRUCTIONS;
	if (keep || ln) {
		ob_room(&s->ob, 2 * sizeof(s->tl.line));
		fl = s->ob.flushes;
		start = s->ob.len;
		s->ip_at = SIZE_MAX;
	}
	memset(&rec, 0, sizeof(rec));
	pk_itrace_sample_fill(is, s->ev[attr].sample_type, sm);
	rec.misc = is->cpumode;
	rec.attr = (int)attr;
	s->cur = is;
	if (!s->cc_valid || s->cc_tid != (uint32_t)is->tid ||
	    s->cc_epoch != s->rec_epoch || s->cc_guest != guest_mode(is->cpumode)) {
		/* a guest's sample: perf's new thread in the guest machine */
		s->cc_guest = guest_mode(is->cpumode);
		s->cc_comm = s->cc_guest ?
			pk_session_guest_comm(s->sess, (uint32_t)is->pid,
					      s->cc_gcomm,
					      sizeof(s->cc_gcomm)) :
			pk_session_comm(s->sess, (uint32_t)is->tid);
		s->cc_tid = (uint32_t)is->tid;
		s->cc_epoch = s->rec_epoch;
		s->cc_valid = true;
	}
	err = print_sample(s, &rec, (int)attr, sm, s->cc_comm);
	s->cur = NULL;
	if (ln && !err)
		ln_keep(s, ln, is, start, fl);
	if (keep && !err)
		tl_keep(s, is, start, fl);
	return err;
}

/* A run of instruction samples (the same but for their ip and size):
 * through the template when the first's line made one. */
static int itrace_run(void *ctx, const struct pk_itrace_sample *is,
		      const struct pk_itrace_run *r)
{
	struct out *s = ctx;
	struct pk_itrace_sample t;
	unsigned k = 0, n = r->n;
	int err = 0;

	if (is->kind == PK_ITRACE_INSTRUCTIONS) {
		/* the template when the first made one, for those whose
		 * target and flags show as its (or do not show) */
		if (!tl_match(s, is)) {
			if ((err = itrace_sample(s, is)) || n < 2)
				return err;
			k = 1;
		}
		if (tl_match(s, is)) {
			const struct itmpl *tp = &s->tl;

			t = *is;
			for (; k < n && !err; k++) {
				uint64_t a = r->addr ? r->addr[k] : is->addr;
				uint32_t fl = r->flags ? r->flags[k] : is->flags;

				if ((a & tp->addr_mask) == tp->addr &&
				    (fl & tp->flags_mask) == tp->flags) {
					tl_put(s, r->ip[k]);
					continue;
				}
				t.ip = r->ip[k];
				t.addr = a;
				t.flags = fl;
				t.insn_len = r->insn_len[k];
				err = itrace_sample(s, &t);
			}
			return err ? err : s->ob.err;
		}
	}
	/* whole lines by ip, target and flags where kept, else one by one */
	bool lines = s->ready && is->attr >= 0 &&
		     (unsigned)is->attr < s->nr_ev && ln_ctx(s, is);

	t = *is;
	for (; k < n; k++) {
		uint64_t ip = r->ip[k], a = r->addr ? r->addr[k] : is->addr;
		uint32_t fl = r->flags ? r->flags[k] : is->flags;

		if (lines) {
			struct lnent *l = ln_at(s, ip, a, fl);

			if (ln_hit(s, l, ip, a, fl)) {
				ln_put(&s->ob, l);
				continue;
			}
		}
		t.ip = ip;
		t.addr = a;
		t.flags = fl;
		t.insn_len = r->insn_len[k];
		if ((err = itrace_sample(s, &t)))
			return err;
	}
	return s->ob.err;
}

/* The decoder of the file's instruction trace, unless --no-itrace. */
static int itrace_open(struct out *s)
{
	/* a pipe's trace shows only in its records: a decoder for it too */
	if (s->o->no_itrace || s->o->sink || s->o->dump ||
	    (!s->pipe && !pk_perfdata_has_feat(s->pd, PK_HEADER_AUXTRACE)))
		return 0;
	if (!s->o->itrace.sz) {	/* perf script's default letters */
		memset(&s->o->itrace, 0, sizeof(s->o->itrace));
		s->o->itrace.sz = sizeof(s->o->itrace);
	}
	for (int t = 0; t < ST_MAX; t++) {
		if (s->o->f.t[t].fields & (SF_INSN | SF_INSNLEN))
			s->o->itrace.insn_bytes = true;
		if (s->o->f.t[t].fields & SF_IPC)
			s->o->itrace.ipc = true;
	}
	/* perf keeps the thread stacks when hardware events (branches,
	 * instructions) show callindent, however it was asked for */
	if (s->o->f.t[ST_HW].fields & SF_CALLINDENT)
		s->o->itrace.thread_stack = true;
	s->o->itrace.shown = true;
	s->it = pk_itrace_new(s->pd, s->sess, &s->o->itrace, itrace_sample, s);
	pk_itrace_set_run_cb(s->it, itrace_run);
	if (!s->it)
		return errno == ENOMEM ? -ENOMEM : 0;
	if (script_filter_itrace(&s->o->filt, s->it))
		return -ENOMEM;
	/* the trace is read ahead, as perf reads a file's by its index (a
	 * pipe's bytes are all read already) */
	if (pk_itrace_read_ahead(s->it))
		cli_error("script", "%s: cannot read the AUX area trace ahead: "
			  "decoding it as it comes", s->o->input ? s->o->input :
			  "perf.data");
	return 0;
}

/* The AUX area trace (Intel PT...) is not decoded yet: said once, not
 * dropped without a word. */
static void aux_unread(struct out *s)
{
	if (s->aux_said)
		return;
	s->aux_said = true;
	cli_error("script", "%s: the AUX area trace (e.g. Intel PT) is not "
		  "decoded yet: only the other events' samples follow",
		  s->o->input ? s->o->input : "perf.data");
}

/* ---- --show-*-events: side-band records among the samples ---- */

static unsigned show_bit(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_COMM: case PERF_RECORD_FORK: case PERF_RECORD_EXIT:
		return SO_SHOW_BIT(SO_SHOW_TASK);
	case PERF_RECORD_MMAP: case PERF_RECORD_MMAP2:
		return SO_SHOW_BIT(SO_SHOW_MMAP);
	case PERF_RECORD_SWITCH: case PERF_RECORD_SWITCH_CPU_WIDE:
		return SO_SHOW_BIT(SO_SHOW_SWITCH);
	case PERF_RECORD_NAMESPACES:
		return SO_SHOW_BIT(SO_SHOW_NS);
	case PERF_RECORD_LOST:
		return SO_SHOW_BIT(SO_SHOW_LOST);
	case PK_RECORD_FINISHED_ROUND:
		return SO_SHOW_BIT(SO_SHOW_ROUND);
	case PERF_RECORD_KSYMBOL: case PERF_RECORD_BPF_EVENT:
		return SO_SHOW_BIT(SO_SHOW_BPF);
	case PERF_RECORD_CGROUP:
		return SO_SHOW_BIT(SO_SHOW_CGROUP);
	case PERF_RECORD_TEXT_POKE:
		return SO_SHOW_BIT(SO_SHOW_TEXT_POKE);
	}
	return 0;
}

/* perf's evlist__id2evsel for a record: its id's event, else the first
 * event when there is one or the file has no sample_id_all. */
static int side_attr(const struct out *s, const struct pk_record *rec)
{
	if (rec->attr >= 0)
		return rec->attr;
	if (s->nr_ev == 1 || (s->nr_ev &&
			      !pk_perfdata_attr(s->pd, 0)->sample_id_all))
		return 0;
	return -1;
}

/* The sample perf makes of a side-band record: its sample_id's fields
 * (-1 where the attr has none), or without sample_id_all CPU 0, the
 * record's own time (fork/exit) and thread. PID/TID: the thread the
 * record is about (perf's print_event_with_time arguments). */
static void side_sample(const struct out *s, const struct pk_record *rec,
			int attr, struct pk_sample *sm, int32_t *pid,
			int32_t *tid)
{
	const uint8_t *p = (const uint8_t *)(rec->hdr + 1);
	const struct perf_event_attr *a = attr >= 0 ?
		pk_perfdata_attr(s->pd, (unsigned)attr) : NULL;
	struct pk_sample ps;
	uint32_t u[3] = { 0 };
	uint64_t t = 0;

	memset(sm, 0, sizeof(*sm));
	sm->pid = sm->tid = sm->cpu = (uint32_t)-1;
	sm->time = (uint64_t)-1;
	if (a && a->sample_id_all && !pk_sample_parse(s->pd, rec, &ps)) {
		if (a->sample_type & PERF_SAMPLE_TID)
			sm->pid = ps.pid, sm->tid = ps.tid;
		if (a->sample_type & PERF_SAMPLE_TIME)
			sm->time = ps.time;
		if (a->sample_type & PERF_SAMPLE_CPU)
			sm->cpu = ps.cpu;
		sm->machine_pid = ps.machine_pid;
		sm->vcpu = ps.vcpu;
	}
	*pid = (int32_t)sm->pid;
	*tid = (int32_t)sm->tid;
	switch (rec->type) {
	case PERF_RECORD_COMM: case PERF_RECORD_MMAP: case PERF_RECORD_MMAP2:
	case PERF_RECORD_NAMESPACES:
		if (rec->size >= 16) {
			memcpy(u, p, 8);
			*pid = (int32_t)u[0];
			*tid = (int32_t)u[1];
		}
		break;
	case PERF_RECORD_FORK: case PERF_RECORD_EXIT:
		if (rec->size >= 32) {
			memcpy(u, p, 12);
			memcpy(&t, p + 16, 8);
			*pid = (int32_t)u[0];
			*tid = (int32_t)u[2];
		}
		break;
	}
	if (a && !a->sample_id_all) {
		sm->cpu = 0;
		sm->time = t;
		sm->pid = (uint32_t)*pid;
		sm->tid = (uint32_t)*tid;
	}
}

/* perf script's line of a side-band record: the start of a sample line
 * by its event's fields (none for a finished round), then its text. */
static void show_record(struct out *s, const struct pk_record *rec)
{
	const struct script_filter *flt = &s->o->filt;
	struct pk_sample sm;
	int32_t pid, tid;
	int attr, n;
	char text[8192], commbuf[16];

	if (!s->ready && setup(s))
		return;
	attr = rec->type == PK_RECORD_FINISHED_ROUND ? -1 : side_attr(s, rec);
	side_sample(s, rec, attr, &sm, &pid, &tid);
	if (flt->cpus && sm.cpu != (uint32_t)-1 &&
	    (sm.cpu >= 1024 || !(flt->cpus[sm.cpu / 64] & (1ull << (sm.cpu % 64)))))
		return;
	if (attr >= 0 && (unsigned)attr < s->nr_ev) {
		const struct evinfo *e = &s->ev[attr];
		const char *comm = tid == -1 ? ":-1" :
				   pk_session_comm(s->sess, (uint32_t)tid);

		if (!comm) {
			snprintf(commbuf, sizeof(commbuf), ":%d", (int)tid);
			comm = commbuf;
		}
		put_start(s, s->fields[e->type], &sm, comm,
			  s->use_callchain && e->callchain);
	}
	n = pk_record_describe(s->pd, rec, text, sizeof(text));
	if (n > 0)
		ob_put(&s->ob, text, (size_t)n < sizeof(text) ? (size_t)n :
		       sizeof(text) - 1);
}

/* The record kept until the session applied it, shown now. */
static void show_pending(struct out *s)
{
	if (!s->have_side)
		return;
	s->have_side = false;
	show_record(s, &s->side);
}

/* A record to show: an exit before the session forgets the thread, the
 * others once applied (a comm's new name, a fork's child). */
static int show_side(struct out *s, const struct pk_record *rec)
{
	if (rec->type == PERF_RECORD_EXIT ||
	    rec->type == PK_RECORD_FINISHED_ROUND) {
		show_record(s, rec);
		return 0;
	}
	if (rec->size > s->side_cap) {
		void *b = realloc(s->side_buf, rec->size);

		if (!b)
			return -ENOMEM;
		s->side_buf = b;
		s->side_cap = rec->size;
	}
	memcpy(s->side_buf, rec->hdr, rec->size);
	s->side = *rec;
	s->side.hdr = s->side_buf;
	s->have_side = true;
	return 0;
}

/* Every record: the AUX records' flags counted (perf's closing
 * warnings), then -D's dump, or the trace's decoder, or (a pipe whose
 * trace cannot be decoded) the word that it is not. */
static int on_record(void *ctx, struct pk_session *sess,
		     const struct pk_record *rec)
{
	struct out *s = ctx;
	int err;

	s->rec_epoch++;		/* (thread names may change with it) */
	if (rec->type == PERF_RECORD_AUX && rec->size >= 32) {
		uint64_t fl;

		memcpy(&fl, (const char *)rec->hdr + 24, 8);
		s->aux_n++;
		s->aux_lost += (fl & PERF_AUX_FLAG_TRUNCATED) != 0;
		s->aux_partial += (fl & PERF_AUX_FLAG_PARTIAL) != 0;
		s->aux_collision += (fl & PERF_AUX_FLAG_COLLISION) != 0;
	}
	if (rec->type == PK_RECORD_AUXTRACE_INFO && rec->size >= 12) {
		uint32_t t;

		memcpy(&t, (const char *)rec->hdr + 8, 4);
		s->pt_info = t == 1;	/* PERF_AUXTRACE_INTEL_PT */
	}
	if (s->o->dump)
		return dump_record(ctx, sess, rec);
	if (s->pt_info && rec->type < PK_RECORD_HEADER_ATTR &&
	    (s->o->show & SO_SHOW_BIT(SO_SHOW_ROUND))) {
		/* --show-round-events leaves the records unsorted, and perf's
		 * Intel PT decoder refuses that at its first event */
		ob_flush(&s->ob);
		fprintf(stderr, "Intel Processor Trace requires ordered events\n"
			"%#" PRIx64 " [%#x]: failed to process type: %u [%s]\n",
			rec->offset, rec->size, rec->type, strerror(EINVAL));
		return -EINVAL;
	}
	show_pending(s);
	/* the trace decoded up to the record first (perf's auxtrace
	 * handler runs before the tool's) */
	if (s->it && (err = pk_itrace_record(s->it, rec)))
		return err;
	if ((s->o->show & show_bit(rec->type)) && show_side(s, rec))
		return -ENOMEM;
	if (!s->it && s->pipe && !s->o->sink &&
	    rec->type == PK_RECORD_AUXTRACE_INFO)
		aux_unread(s);
	return 0;
}

/* perf_session__warn_about_errors' lines on the AUX area. */
static void aux_warnings(const struct out *s)
{
	if (s->aux_lost)
		fprintf(stderr, "Warning:\nAUX data lost %" PRIu64 " times out of %" PRIu64 "!\n\n",
			s->aux_lost, s->aux_n);
	if (s->aux_partial) {
		FILE *f = fopen("/sys/module/kvm_intel/parameters/vmm_exclusive", "r");
		int c = f ? fgetc(f) : 0;

		if (f)
			fclose(f);
		fprintf(stderr, "Warning:\nAUX data had gaps in it %" PRIu64 " times out of %" PRIu64 "!\n\n"
			"Are you running a KVM guest in the background?%s\n\n",
			s->aux_partial, s->aux_n, c == 'Y' || c == '1' ?
			"\nReloading kvm_intel module with vmm_exclusive=0\n"
			"will reduce the gaps to only guest's timeslices." : "");
	}
	if (s->aux_collision)
		fprintf(stderr, "Warning:\nAUX data detected collision  %" PRIu64 " times out of %" PRIu64 "!\n\n",
			s->aux_collision, s->aux_n);
}

int script_samples(struct script_opts *o, struct pk_perfdata *pd)
{
	struct out s = { .o = o, .pd = pd,
			 .max_stack = o->max_stack < 0 ? MAX_STACK : o->max_stack };
	PK_OPTS(pk_tool, tool, .sample = sample, .bad_record = bad_record);
	struct pk_perfdata_info in;
	int err;

	if (script_filter_file(&o->filt, pd, o->reltime))
		return -EINVAL;
	pk_perfdata_info(pd, &in);
	s.pipe = in.pipe;
	s.aux_file = pk_perfdata_has_feat(pd, PK_HEADER_AUXTRACE);
	{
		PK_OPTS(pk_session_opts, so,
			.guest_kallsyms = o->guest_kallsyms,
			.guest_code = o->guest_code,
			.kallsyms = o->kallsyms);
		char *bid = NULL, *dbg = NULL;

		/* --symfs DIR: perf's files under DIR, its build-id cache
		 * DIR/.debug, no local kallsyms but --kallsyms' */
		if (o->symfs && (asprintf(&bid, "%s/.debug", o->symfs) < 0 ||
				 asprintf(&dbg, "%s/usr/lib/debug", o->symfs) < 0))
			bid = dbg = NULL;
		if (o->symfs) {
			so.root = o->symfs;
			so.buildid_dir = bid;
			so.debug_dir = dbg;
			/* ("/": perf's symfs is empty, local kallsyms read) */
			if (!o->kallsyms && o->symfs[strspn(o->symfs, "/")])
				so.kallsyms = "";
		}
		s.sess = bid || !o->symfs ? pk_session_new(&so) : NULL;
		free(bid);
		free(dbg);
	}
	if (s.sess && itrace_open(&s)) {
		pk_session_free(s.sess);
		s.sess = NULL;
	}
	tool.record = on_record;
	if (!o->dump && !s.it && !in.pipe && !o->sink && !o->no_itrace &&
	    pk_perfdata_has_feat(pd, PK_HEADER_AUXTRACE))
		aux_unread(&s);
	s.ob.b = pk_huge_alloc(OB_CAP);
	s.ob.sink = o->sink;
	s.ob.sink_ctx = o->sink_ctx;
	s.lc.e = pk_huge_alloc(LC_SIZE * sizeof(*s.lc.e));
	s.lc.arena = malloc(LC_ARENA);

	if (!s.sess || !s.ob.b || !s.lc.e || !s.lc.arena) {
		pk_huge_free(s.lc.e, LC_SIZE * sizeof(*s.lc.e));
		free(s.lc.arena);
		cli_error("script", "out of memory");
		pk_session_free(s.sess);
		pk_huge_free(s.ob.b, OB_CAP);
		return 1;
	}
	err = pk_session_run(s.sess, pd, &tool, &s);
	show_pending(&s);
	if (o->debug_mode)
		fprintf(stderr, "Misordered timestamps: %" PRIu64 "\n",
			s.nr_unordered);
	free(s.side_buf);
	if (!err && s.it)
		err = pk_itrace_flush(s.it);
	ob_flush(&s.ob);
	if (s.dumps)
		dumps_close(&s);
	if (!o->sink || o->dump) {	/* (not under report's exports) */
		cli_kernel_unresolved(s.sess);
		aux_warnings(&s);
	}
	if (s.it && pk_itrace_nr_errors(s.it))	/* perf's closing warning */
		fprintf(stderr, "Warning:\n%" PRIu64 " instruction trace errors\n",
			pk_itrace_nr_errors(s.it));
	cli_itrace_unsynthesized("script", o->input ? o->input : "perf.data",
				 s.it);
	tracefmt(&s); /* bad tracing data is said even without samples */
	if (err && err != -EINVAL)
		cli_error("script", "%s (%s)",
			  err < 0 && err > -4096 && err != PK_ERR_TRUNC &&
			  err != PK_ERR_FORMAT ? strerror(-err) :
			  pk_perfdata_errmsg(pd), pk_strerror(err));
	for (unsigned i = 0; i < s.nr_ev; i++)
		free(s.ev[i].name);
	free(s.ev);
	pk_huge_free(s.ob.b, OB_CAP);
	pk_huge_free(s.lc.e, LC_SIZE * sizeof(*s.lc.e));
	free(s.lc.arena);
	pk_tracefmt_free(s.tf);
	pk_unwind_free(s.uw);
	free(s.uips);
	free(s.frames);
	free(s.ln);
	pk_itrace_free(s.it);
	pk_session_free(s.sess);
	return !err && !s.ob.err ? 0 : 1;
}
