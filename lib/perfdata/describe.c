/* SPDX-License-Identifier: MIT */
/* perf report -D's one-line descriptions of records. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "perfdata/pd.h"

static const char *str_in(const struct perf_event_header *h, size_t off,
			  char *tmp, size_t tlen)
{
	size_t n = h->size > off ? h->size - off : 0;

	if (n >= tlen)
		n = tlen - 1;
	memcpy(tmp, (const char *)h + off, n);
	tmp[n] = 0;
	return tmp;
}

#define U32(o) rd32((const char *)h + (o))
#define U64(o) rd64((const char *)h + (o))
#define NEED(n) do { if (h->size < (n)) { pk__pd_sbf(s, " (record too short)\n"); return; } } while (0)

static const char *const x86_regs[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS",
	"SS", "DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13",
	"R14", "R15",
};

static void regs(struct pd_sb *s, const char *what, uint64_t abi, uint64_t mask,
		 const uint64_t *r)
{
	static const char *const abis[] = { "none", "32-bit", "64-bit" };
	unsigned i = 0;

	if (!r)
		return;
	pk__pd_sbf(s, "... %s regs: mask 0x%" PRIx64 " ABI %s\n", what, mask,
	    abi < 3 ? abis[abi] : "unknown");
	for (int b = 0; b < 64; b++) {
		if (!(mask >> b & 1))
			continue;
		pk__pd_sbf(s, ".... %-5s 0x%016" PRIx64 "\n",
		    b < (int)PK_ARRAY_SIZE(x86_regs) ? x86_regs[b] : "unknown",
		    rd64(&r[i++]));
	}
}

static void sample(struct pk_perfdata *pd, const struct pk_record *rec,
		   struct pd_sb *s)
{
	const struct perf_event_header *h = rec->hdr;
	const struct perf_event_attr *attr;
	struct pk_sample sm;
	uint64_t t;

	if (pk_sample_parse(pd, rec, &sm)) {
		pk__pd_sbf(s, "(IP, 0x%x): (bad sample: %s)\n", h->misc,
		    pk_perfdata_errmsg(pd));
		return;
	}
	attr = pk_perfdata_attr(pd, rec->attr >= 0 ? (unsigned)rec->attr : 0);
	t = sm.sample_type;
	pk__pd_sbf(s, "(IP, 0x%x): %d/%d: %#" PRIx64 " period: %" PRIu64
	    " addr: %#" PRIx64 "\n", h->misc, (int)sm.pid, (int)sm.tid, sm.ip,
	    sm.period, sm.addr);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		pk__pd_sbf(s, "... FP chain: nr:%" PRIu64 "\n", sm.callchain.nr);
		for (uint64_t i = 0; i < sm.callchain.nr; i++)
			pk__pd_sbf(s, "..... %2d: %016" PRIx64 "\n", (int)i,
			    rd64(&sm.callchain.ips[i]));
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		pk__pd_sbf(s, "... branch stack: nr:%" PRIu64 "\n", sm.branch.nr);
		for (uint64_t i = 0; i < sm.branch.nr; i++) {
			struct perf_branch_entry e;

			memcpy(&e, &sm.branch.entries[i], sizeof(e));
			pk__pd_sbf(s, "..... %2" PRIu64 ": %016" PRIx64 " -> %016"
			    PRIx64 " %hu cycles %s%s%s%s %x \n", i,
			    (uint64_t)e.from, (uint64_t)e.to,
			    (unsigned short)e.cycles, e.mispred ? "M" : " ",
			    e.predicted ? "P" : " ", e.abort ? "A" : " ",
			    e.in_tx ? "T" : " ", (unsigned)e.reserved);
		}
	}
	if (t & PERF_SAMPLE_REGS_USER)
		regs(s, "user", sm.regs_user.abi, sm.regs_user.mask,
		     sm.regs_user.regs);
	if (t & PERF_SAMPLE_REGS_INTR)
		regs(s, "intr", sm.regs_intr.abi, sm.regs_intr.mask,
		     sm.regs_intr.regs);
	if (t & PERF_SAMPLE_STACK_USER)
		pk__pd_sbf(s, "... ustack: size %" PRIu64 ", offset 0x%x\n",
		    sm.stack_user.size,
		    sm.stack_user.data ? (unsigned)((const char *)
				sm.stack_user.data - (const char *)h) : 0);
	if (t & PERF_SAMPLE_WEIGHT_STRUCT)
		pk__pd_sbf(s, "... weight: %" PRIu64 ",0x%x,0x%x\n",
		    sm.weight & 0xffffffff,
		    (unsigned)(sm.weight >> 32 & 0xffff),
		    (unsigned)(sm.weight >> 48));
	else if (t & PERF_SAMPLE_WEIGHT)
		pk__pd_sbf(s, "... weight: %" PRIu64 "\n", sm.weight);
	if (t & PERF_SAMPLE_DATA_SRC)
		pk__pd_sbf(s, " . data_src: 0x%" PRIx64 "\n", sm.data_src);
	if (t & PERF_SAMPLE_PHYS_ADDR)
		pk__pd_sbf(s, " .. phys_addr: 0x%" PRIx64 "\n", sm.phys_addr);
	if (t & PERF_SAMPLE_TRANSACTION)
		pk__pd_sbf(s, "... transaction: %" PRIx64 "\n", sm.transaction);
	if (t & PERF_SAMPLE_READ) {
		uint64_t rf = attr ? attr->read_format : 0;
		unsigned st = sm.read.stride, idp = 1;

		pk__pd_sbf(s, "... sample_read:\n");
		if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED)
			pk__pd_sbf(s, "...... time enabled %016" PRIx64 "\n",
			    sm.read.time_enabled);
		if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING)
			pk__pd_sbf(s, "...... time running %016" PRIx64 "\n",
			    sm.read.time_running);
		if (rf & PERF_FORMAT_GROUP)
			pk__pd_sbf(s, ".... group nr %" PRIu64 "\n", sm.read.nr);
		for (uint64_t i = 0; sm.read.values && i < sm.read.nr; i++) {
			const uint64_t *v = sm.read.values + i * st;

			pk__pd_sbf(s, "..... id %016" PRIx64 ", value %016" PRIx64,
			    (rf & PERF_FORMAT_ID) ? rd64(&v[idp]) : 0,
			    rd64(&v[0]));
			if (rf & PERF_FORMAT_LOST)
				pk__pd_sbf(s, ", lost %" PRIu64, rd64(&v[st - 1]));
			pk__pd_sbf(s, "\n");
		}
	}
}

static void mmap2(const struct perf_event_header *h, struct pd_sb *s)
{
	char fn[4096];
	uint32_t prot, flags;

	NEED(72);
	prot = U32(64);
	flags = U32(68);
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		unsigned n = ((const unsigned char *)h)[40];

		pk__pd_sbf(s, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 " <",
		    (int)U32(8), (int)U32(12), U64(16), U64(24), U64(32));
		for (unsigned i = 0; i < n && i < 20; i++)
			pk__pd_sbf(s, "%02x", ((const unsigned char *)h)[44 + i]);
		pk__pd_sbf(s, ">]: ");
	} else {
		pk__pd_sbf(s, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64
		    " %02x:%02x %" PRIu64 " %" PRIu64 "]: ", (int)U32(8),
		    (int)U32(12), U64(16), U64(24), U64(32), U32(40), U32(44),
		    U64(48), U64(56));
	}
	pk__pd_sbf(s, "%c%c%c%c %s\n", prot & PROT_READ ? 'r' : '-',
	    prot & PROT_WRITE ? 'w' : '-', prot & PROT_EXEC ? 'x' : '-',
	    flags & MAP_SHARED ? 's' : 'p', str_in(h, 72, fn, sizeof(fn)));
}

static void kernel_rec(struct pk_perfdata *pd, const struct pk_record *rec,
		       struct pd_sb *s)
{
	const struct perf_event_header *h = rec->hdr;
	char tmp[4096];
	struct pk_sample sm;

	switch (h->type) {
	case PERF_RECORD_MMAP:
		NEED(40);
		pk__pd_sbf(s, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64
		    "]: %c %s\n", (int)U32(8), (int)U32(12), U64(16), U64(24),
		    U64(32), h->misc & PERF_RECORD_MISC_MMAP_DATA ? 'r' : 'x',
		    str_in(h, 40, tmp, sizeof(tmp)));
		return;
	case PERF_RECORD_MMAP2:
		mmap2(h, s);
		return;
	case PERF_RECORD_COMM:
		NEED(16);
		pk__pd_sbf(s, "%s: %s:%d/%d\n",
		    h->misc & PERF_RECORD_MISC_COMM_EXEC ? " exec" : "",
		    str_in(h, 16, tmp, 17), (int)U32(8), (int)U32(12));
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		NEED(24);
		pk__pd_sbf(s, "(%d:%d):(%d:%d)\n", (int)U32(8), (int)U32(16),
		    (int)U32(12), (int)U32(20));
		return;
	case PERF_RECORD_LOST:
		NEED(24);
		pk__pd_sbf(s, ": id:%" PRIu64 ": lost:%" PRIu64 "\n", U64(8), U64(16));
		return;
	case PERF_RECORD_LOST_SAMPLES:
		NEED(16);
		pk_sample_parse(pd, rec, &sm);
		pk__pd_sbf(s, ": id:%" PRIu64 ": lost samples :%" PRIu64 "\n", sm.id,
		    U64(8));
		return;
	case PERF_RECORD_SAMPLE:
		sample(pd, rec, s);
		return;
	case PERF_RECORD_AUX: {
		uint64_t f;

		NEED(32);
		f = U64(24);
		pk__pd_sbf(s, " offset: %#" PRIx64 " size: %#" PRIx64 " flags: %#"
		    PRIx64 " [%s%s%s]\n", U64(8), U64(16), f,
		    f & PERF_AUX_FLAG_TRUNCATED ? "T" : "",
		    f & PERF_AUX_FLAG_OVERWRITE ? "O" : "",
		    f & PERF_AUX_FLAG_PARTIAL ? "P" : "");
		return;
	}
	case PERF_RECORD_ITRACE_START:
		NEED(16);
		pk__pd_sbf(s, " pid: %u tid: %u\n", U32(8), U32(12));
		return;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		bool out = h->misc & PERF_RECORD_MISC_SWITCH_OUT;
		const char *io = !out ? "IN         " :
			!(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) ?
			"OUT        " : "OUT preempt";

		if (h->type == PERF_RECORD_SWITCH) {
			pk__pd_sbf(s, " %s\n", io);
			return;
		}
		NEED(16);
		pk__pd_sbf(s, " %s  %s pid/tid: %5d/%-5d\n", io, out ? "next" : "prev",
		    (int)U32(8), (int)U32(12));
		return;
	}
	case PERF_RECORD_NAMESPACES: {
		static const char *const ns[] = { "net", "uts", "ipc", "pid",
			"user", "mnt", "cgroup" };
		uint64_t nr;

		NEED(24);
		nr = U64(16);
		pk__pd_sbf(s, " %d/%d - nr_namespaces: %" PRIu64 "\n\t\t[", (int)U32(8),
		    (int)U32(12), nr);
		for (uint64_t i = 0; i < nr && 24 + 16 * i + 16 <= h->size; i++) {
			pk__pd_sbf(s, "%" PRIu64 "/%s: %" PRIu64 "/%#" PRIx64 "%s", i,
			    i < 7 ? ns[i] : "unknown", U64(24 + 16 * i),
			    U64(32 + 16 * i), i + 1 == nr ? "" : ", ");
			if ((i + 1) % 4 == 0 && i + 1 < nr)
				pk__pd_sbf(s, "\n\t\t ");
		}
		pk__pd_sbf(s, "]\n");
		return;
	}
	case PERF_RECORD_KSYMBOL:
		NEED(24);
		pk__pd_sbf(s, " addr %" PRIx64 " len %u type %u flags 0x%x name %s\n",
		    U64(8), U32(16), U32(20) & 0xffff, U32(20) >> 16,
		    str_in(h, 24, tmp, sizeof(tmp)));
		return;
	case PERF_RECORD_BPF_EVENT:
		NEED(24);
		pk__pd_sbf(s, " type %u, flags %u, id %u\n", U32(8) & 0xffff,
		    U32(8) >> 16, U32(12));
		return;
	case PERF_RECORD_CGROUP:
		NEED(16);
		pk__pd_sbf(s, " cgroup: %" PRIu64 " %s\n", U64(8),
		    str_in(h, 16, tmp, sizeof(tmp)));
		return;
	case PERF_RECORD_TEXT_POKE:
		NEED(16);
		pk__pd_sbf(s, " %" PRIx64 " old len %u new len %u\n", U64(8),
		    U32(16) & 0xffff, U32(16) >> 16);
		return;
	default:
		pk__pd_sbf(s, ": unhandled!\n");
	}
}

#define NO_CPU (-1000000)

/* Adds CPU to a "0-3,5" list being built (LAST/START track the run). */
static void cpu_list_add(struct pd_sb *s, int cpu, int *start, int *last)
{
	if (*last != NO_CPU && cpu == *last + 1) {
		*last = cpu;
		return;
	}
	if (*start != NO_CPU)
		pk__pd_sbf(s, *last > *start ? "%d-%d," : "%d,", *start, *last);
	*start = *last = cpu;
}

static void cpu_list_end(struct pd_sb *s, int start, int last)
{
	if (start != NO_CPU)
		pk__pd_sbf(s, last > start ? "%d-%d" : "%d", start, last);
}

/* perf_record_cpu_map_data at P, N bytes. */
static void cpu_map(struct pd_sb *s, const unsigned char *p, size_t n)
{
	int start = NO_CPU, last = NO_CPU;
	uint16_t type, nr, lsz;

	if (n < 4)
		return;
	memcpy(&type, p, 2);
	memcpy(&nr, p + 2, 2);
	if (type == 0) {
		for (unsigned i = 0; i < nr && 4 + 2 * i + 2 <= n; i++) {
			int16_t c; /* -1: any cpu */

			memcpy(&c, p + 4 + 2 * i, 2);
			cpu_list_add(s, c, &start, &last);
		}
	} else if (type == 1 && n >= 6) {
		memcpy(&lsz, p + 4, 2);
		for (unsigned i = 0; i < nr; i++) {
			size_t off = lsz == 8 ? 10 + 8 * i : 6 + 4 * i;
			uint64_t w;

			if (off + lsz > n || (lsz != 4 && lsz != 8))
				break;
			w = lsz == 8 ? rd64(p + off) : rd32(p + off);
			for (unsigned b = 0; b < lsz * 8u; b++)
				if (w >> b & 1)
					cpu_list_add(s, i * lsz * 8 + b, &start,
						     &last);
		}
	} else if (type == 2 && n >= 8) {
		uint16_t a, b;

		memcpy(&a, p + 4, 2);
		memcpy(&b, p + 6, 2);
		if (p[2])
			cpu_list_add(s, -1, &start, &last);
		for (unsigned c = a; c <= b; c++)
			cpu_list_add(s, c, &start, &last);
	}
	cpu_list_end(s, start, last);
}

static void time_conv(const struct perf_event_header *h, struct pd_sb *s)
{
	struct pk_time_conv tc;

	if (pk_record_time_conv_parse(h, &tc)) {
		pk__pd_sbf(s, " (record too short)\n");
		return;
	}
	pk__pd_sbf(s, "\n... Time Shift      %" PRIu64 "\n... Time Muliplier  %"
	    PRIu64 "\n... Time Zero       %" PRIu64 "\n", tc.time_shift,
	    tc.time_mult, tc.time_zero);
	if (h->size >= 56)
		pk__pd_sbf(s, "... Time Cycles     %" PRIu64 "\n... Time Mask       %#"
		    PRIx64 "\n... Cap Time Zero   %d\n... Cap Time Short  %d\n",
		    tc.time_cycles, tc.time_mask, tc.cap_user_time_zero,
		    tc.cap_user_time_short);
	pk__pd_sbf(s, ": unhandled!\n");
}

static void event_update(const struct perf_event_header *h, struct pd_sb *s)
{
	char tmp[1024];
	uint64_t type;

	NEED(24);
	type = U64(8);
	pk__pd_sbf(s, "\n... id:    %" PRIu64 "\n", U64(16));
	switch (type) {
	case 0:
		pk__pd_sbf(s, "... unit:  %s\n", str_in(h, 24, tmp, sizeof(tmp)));
		break;
	case 1: {
		double d;

		NEED(32);
		memcpy(&d, (const char *)h + 24, 8);
		pk__pd_sbf(s, "... scale: %f\n", d);
		break;
	}
	case 2:
		pk__pd_sbf(s, "... name:  %s\n", str_in(h, 24, tmp, sizeof(tmp)));
		break;
	case 3:
		pk__pd_sbf(s, "... ");
		cpu_map(s, (const unsigned char *)h + 24, h->size - 24);
		pk__pd_sbf(s, "\n");
		break;
	default:
		pk__pd_sbf(s, "... unknown type\n");
	}
}

static void stat_config(const struct perf_event_header *h, struct pd_sb *s)
{
	uint64_t v[4] = { 0, 0, 0, 0 }, nr;

	NEED(16);
	nr = U64(8);
	for (uint64_t i = 0; i < nr && 16 + 16 * i + 16 <= h->size; i++)
		if (U64(16 + 16 * i) < 4)
			v[U64(16 + 16 * i)] = U64(24 + 16 * i);
	/* tags: 0 aggr_mode, 1 interval, 2 scale */
	pk__pd_sbf(s, "\n... aggr_mode %d\n... scale     %d\n... interval  %u\n",
	    (int)v[0], (int)v[2], (unsigned)v[1]);
}

/* The u64 after the filter string (at u64 index AT of N), perf's
 * cap_event_trace, when the record has it. */
static void cap_event_trace(const unsigned char *p, size_t n, size_t at,
			    struct pd_sb *s)
{
	if (at < n)
		pk__pd_sbf(s, "  Cap Event Trace     %d\n",
			   (int)!!rd64((const char *)p + 8 * at));
}

/* perf's intel_pt_print_info: the Intel PT fields of an AUXTRACE_INFO
 * record (u64s after the type and a reserved u32), as far as the record
 * has them; perf reads none of a record too short for the per-cpu one. */
static void intel_pt_info(const struct perf_event_header *h, struct pd_sb *s)
{
	static const char *const fmt[] = {
		"  PMU Type            %" PRId64 "\n",
		"  Time Shift          %" PRIu64 "\n",
		"  Time Muliplier      %" PRIu64 "\n",	/* (sic) */
		"  Time Zero           %" PRIu64 "\n",
		"  Cap Time Zero       %" PRId64 "\n",
		"  TSC bit             %#" PRIx64 "\n",
		"  NoRETComp bit       %#" PRIx64 "\n",
		"  Have sched_switch   %" PRId64 "\n",
		"  Snapshot mode       %" PRId64 "\n",
		"  Per-cpu maps        %" PRId64 "\n",
		"  MTC bit             %#" PRIx64 "\n",
		"  MTC freq bits       %#" PRIx64 "\n",
		"  TSC:CTC numerator   %" PRIu64 "\n",
		"  TSC:CTC denominator %" PRIu64 "\n",
		"  CYC bit             %#" PRIx64 "\n",
		"  Max non-turbo ratio %" PRIu64 "\n",
		"  Filter string len.  %" PRIu64 "\n",
	};
	const unsigned char *p = (const unsigned char *)h + 16;
	size_t n = h->size >= 16 ? (h->size - 16) / 8 : 0;
	uint64_t v[17], len;

	if (n < 10)		/* up to the per-cpu maps: perf's minimum */
		return;
	for (size_t i = 0; i < 17 && i < n; i++)
		v[i] = rd64((const char *)p + 8 * i);
	for (size_t i = 0; i < 10; i++)
		pk__pd_sbf(s, fmt[i], v[i]);
	for (size_t i = 10; n >= 15 && i < 16 && i < n; i++)
		pk__pd_sbf(s, fmt[i], v[i]);	/* with the CYC bit */
	if (n < 17)		/* no filter string length */
		return;
	pk__pd_sbf(s, fmt[16], v[16]);
	len = v[16];
	if (!len) {
		pk__pd_sbf(s, "  %-20s\n", "Filter string");
		cap_event_trace(p, n, 17, s);
		return;
	}
	/* the string follows, NUL-padded to 8 bytes; perf stops at one
	 * that runs past the record or has no NUL where the padding ends */
	if (len > (n - 17) * 8 || (len + 8) / 8 * 8 > (n - 17) * 8 ||
	    p[8 * 17 + (len + 8) / 8 * 8 - 1])
		return;
	pk__pd_sbf(s, "  %-20s%s\n", "Filter string",
		   (const char *)(p + 8 * 17));
	cap_event_trace(p, n, 17 + (size_t)(len + 8) / 8, s);
}

/* -D's ID_INDEX: the entries, with the guest extension's two fields */
static void describe_id_index(struct pd_sb *s, const struct perf_event_header *h)
{
	struct pk_id_index_entry e;
	struct pk_id_index_guest g;
	uint64_t nr;
	bool ext;

	NEED(16);
	nr = U64(8);
	pk__pd_sbf(s, " nr: %" PRIu64 "\n", nr);
	ext = nr && (uint64_t)(h->size - 16) / 48 >= nr;
	for (uint64_t i = 0; i < nr; i++) {
		if (pk_record_id_index_entry(h, h->size, i, &e, &g))
			return;
		pk__pd_sbf(s, " ... id: %" PRIu64 "  idx: %" PRIu64 "  cpu: %"
			   PRId64 "  tid: %" PRId64, e.id, e.idx, e.cpu, e.tid);
		if (ext)
			pk__pd_sbf(s, "  machine_pid: %" PRId64 "  vcpu: %"
				   PRIu64, (int64_t)g.machine_pid, g.vcpu);
		pk__pd_sbf(s, "\n");
	}
}

static void user_rec(const struct perf_event_header *h, struct pd_sb *s)
{
	switch (h->type) {
	case PK_RECORD_STAT_CONFIG:
		stat_config(h, s);
		pk__pd_sbf(s, ": unhandled!\n");
		return;
	case PK_RECORD_STAT:
		NEED(48);
		pk__pd_sbf(s, "\n... id %" PRIu64 ", cpu %d, thread %d\n... value %"
		    PRIu64 ", enabled %" PRIu64 ", running %" PRIu64
		    "\n: unhandled!\n", U64(8), (int)U32(16), (int)U32(20),
		    U64(24), U64(32), U64(40));
		return;
	case PK_RECORD_STAT_ROUND:
		NEED(24);
		pk__pd_sbf(s, "\n... time %" PRIu64 ", type %s\n: unhandled!\n",
		    U64(16), U64(8) == 1 ? "FINAL" : "INTERVAL");
		return;
	case PK_RECORD_ID_INDEX:
		describe_id_index(s, h);
		return;
	case PK_RECORD_FINISHED_ROUND:
		pk__pd_sbf(s, "\n");
		return;
	case PK_RECORD_FINISHED_INIT:
		pk__pd_sbf(s, ": unhandled!\n");
		return;
	case PK_RECORD_THREAD_MAP: {
		uint64_t nr;

		NEED(16);
		nr = U64(8);
		pk__pd_sbf(s, " nr: %" PRIu64 " thread:", nr);
		for (uint64_t i = 0; i < nr && 16 + i * 24 + 8 <= h->size; i++)
			pk__pd_sbf(s, "%s %" PRId64, i ? "," : "",
			    (int64_t)U64(16 + i * 24));
		pk__pd_sbf(s, "\n: unhandled!\n"); /* perf report has no handler */
		return;
	}
	case PK_RECORD_AUXTRACE:
		NEED(48);
		pk__pd_sbf(s, " size: %#" PRIx64 "  offset: %#" PRIx64 "  ref: %#"
		    PRIx64 "  idx: %u  tid: %d  cpu: %d\n", U64(8), U64(16),
		    U64(24), U32(32), (int)U32(36), (int)U32(40));
		return;
	case PK_RECORD_AUXTRACE_INFO:
		NEED(16);
		pk__pd_sbf(s, " type: %u\n", U32(8));
		if (U32(8) == 1)	/* PERF_AUXTRACE_INTEL_PT */
			intel_pt_info(h, s);
		return;
	case PK_RECORD_EVENT_UPDATE:
		event_update(h, s);
		return;
	case PK_RECORD_TIME_CONV:
		time_conv(h, s);
		return;
	case PK_RECORD_CPU_MAP:
		pk__pd_sbf(s, ": ");
		cpu_map(s, (const unsigned char *)h + 8, h->size - 8);
		pk__pd_sbf(s, "\n: unhandled!\n"); /* perf report has no handler */
		return;
	default:
		pk__pd_sbf(s, "\n");
	}
}

int pk_record_describe(struct pk_perfdata *pd, const struct pk_record *rec,
		       char *buf, size_t len)
{
	struct pd_sb s = { buf, len, 0 };
	const char *n = pk_record_name(rec->type);

	if (len)
		buf[0] = 0;
	if (n)
		pk__pd_sbf(&s, "PERF_RECORD_%s", n);
	else
		pk__pd_sbf(&s, "PERF_RECORD_%u", rec->type);
	if (rec->type < 64)
		kernel_rec(pd, rec, &s);
	else if (rec->type != PK_RECORD_HEADER_ATTR &&
		 rec->type != PK_RECORD_HEADER_FEATURE &&
		 rec->type != PK_RECORD_EVENT_TYPE) /* perf adds no text */
		user_rec(rec->hdr, &s);
	return (int)s.pos;
}
