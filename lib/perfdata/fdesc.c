/* SPDX-License-Identifier: MIT */
/* perf script --header's text for each feature section (-I's topology
 * text in ftopo.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "perfdata/pd.h"


struct bitname {
	uint64_t bit;
	const char *name;
};

static const struct bitname sample_bits[] = {
	{ PERF_SAMPLE_IP, "IP" }, { PERF_SAMPLE_TID, "TID" },
	{ PERF_SAMPLE_TIME, "TIME" }, { PERF_SAMPLE_ADDR, "ADDR" },
	{ PERF_SAMPLE_READ, "READ" }, { PERF_SAMPLE_CALLCHAIN, "CALLCHAIN" },
	{ PERF_SAMPLE_ID, "ID" }, { PERF_SAMPLE_CPU, "CPU" },
	{ PERF_SAMPLE_PERIOD, "PERIOD" }, { PERF_SAMPLE_STREAM_ID, "STREAM_ID" },
	{ PERF_SAMPLE_RAW, "RAW" }, { PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK" },
	{ PERF_SAMPLE_REGS_USER, "REGS_USER" },
	{ PERF_SAMPLE_STACK_USER, "STACK_USER" },
	{ PERF_SAMPLE_IDENTIFIER, "IDENTIFIER" },
	{ PERF_SAMPLE_REGS_INTR, "REGS_INTR" },
	{ PERF_SAMPLE_DATA_SRC, "DATA_SRC" }, { PERF_SAMPLE_WEIGHT, "WEIGHT" },
	{ PERF_SAMPLE_PHYS_ADDR, "PHYS_ADDR" }, { PERF_SAMPLE_AUX, "AUX" },
	{ PERF_SAMPLE_CGROUP, "CGROUP" },
	{ PERF_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE" },
	{ PERF_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE" },
	{ PERF_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT" }, { 0, NULL },
};

static const struct bitname read_bits[] = {
	{ PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED" },
	{ PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING" },
	{ PERF_FORMAT_ID, "ID" }, { PERF_FORMAT_GROUP, "GROUP" },
	{ PERF_FORMAT_LOST, "LOST" }, { 0, NULL },
};

static const char *const branch_names[] = {
	"USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL",
	"ABORT_TX", "IN_TX", "NO_TX", "COND", "CALL_STACK", "IND_JUMP",
	"CALL", "NO_FLAGS", "NO_CYCLES", "TYPE_SAVE", "HW_INDEX", "PRIV_SAVE",
};

static void bits(struct pd_sb *s, const char *name, uint64_t v,
		 const struct bitname *t)
{
	bool first = true;

	if (!v)
		return;
	pk__pd_sbf(s, ", %s = ", name);
	for (; t->name; t++)
		if (v & t->bit) {
			pk__pd_sbf(s, "%s%s", first ? "" : "|", t->name);
			first = false;
		}
}

#define U(name, v) do { if (v) pk__pd_sbf(s, ", %s = %" PRIu64, name, (uint64_t)(v)); } while (0)
#define X(name, v) do { if (v) pk__pd_sbf(s, ", %s = %#" PRIx64, name, (uint64_t)(v)); } while (0)

/* perf_event_attr__fprintf's fields, non-zero only, in its order. */
static void attr_fields(struct pd_sb *s, const struct perf_event_attr *a)
{
	U("type", a->type);
	U("size", a->size);
	X("config", a->config);
	U("{ sample_period, sample_freq }", a->sample_period);
	bits(s, "sample_type", a->sample_type, sample_bits);
	bits(s, "read_format", a->read_format, read_bits);
	U("disabled", a->disabled); U("inherit", a->inherit);
	U("pinned", a->pinned); U("exclusive", a->exclusive);
	U("exclude_user", a->exclude_user);
	U("exclude_kernel", a->exclude_kernel);
	U("exclude_hv", a->exclude_hv); U("exclude_idle", a->exclude_idle);
	U("mmap", a->mmap); U("comm", a->comm); U("freq", a->freq);
	U("inherit_stat", a->inherit_stat);
	U("enable_on_exec", a->enable_on_exec); U("task", a->task);
	U("watermark", a->watermark); U("precise_ip", a->precise_ip);
	U("mmap_data", a->mmap_data); U("sample_id_all", a->sample_id_all);
	U("exclude_host", a->exclude_host);
	U("exclude_guest", a->exclude_guest);
	U("exclude_callchain_kernel", a->exclude_callchain_kernel);
	U("exclude_callchain_user", a->exclude_callchain_user);
	U("mmap2", a->mmap2); U("comm_exec", a->comm_exec);
	U("use_clockid", a->use_clockid);
	U("context_switch", a->context_switch);
	U("write_backward", a->write_backward);
	U("namespaces", a->namespaces); U("ksymbol", a->ksymbol);
	U("bpf_event", a->bpf_event); U("aux_output", a->aux_output);
	U("cgroup", a->cgroup); U("text_poke", a->text_poke);
	U("build_id", a->build_id); U("inherit_thread", a->inherit_thread);
	U("remove_on_exec", a->remove_on_exec); U("sigtrap", a->sigtrap);
	U("{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	U("bp_type", a->bp_type);
	X("{ bp_addr, config1 }", a->bp_addr);
	X("{ bp_len, config2 }", a->bp_len);
	if (a->branch_sample_type) {
		bool first = true;

		pk__pd_sbf(s, ", branch_sample_type = ");
		for (unsigned b = 0; b < PK_ARRAY_SIZE(branch_names); b++)
			if (a->branch_sample_type >> b & 1) {
				pk__pd_sbf(s, "%s%s", first ? "" : "|",
				    branch_names[b]);
				first = false;
			}
	}
	X("sample_regs_user", a->sample_regs_user);
	U("sample_stack_user", a->sample_stack_user);
	if (a->clockid)
		pk__pd_sbf(s, ", clockid = %d", a->clockid);
	X("sample_regs_intr", a->sample_regs_intr);
	U("aux_watermark", a->aux_watermark);
	U("sample_max_stack", a->sample_max_stack);
	U("aux_sample_size", a->aux_sample_size);
	U("sig_data", a->sig_data);
}

static void event_desc(const struct pk_perfdata *pd, struct pd_sb *s)
{
	for (unsigned i = 0; i < pd->nr_attrs; i++) {
		const struct pd_attr *a = &pd->attrs[i];

		if (a->added)	/* (perf: the file's events only) */
			continue;
		pk__pd_sbf(s, "# event : name = %s, ", a->name ? a->name : "");
		if (a->nr_ids) {
			pk__pd_sbf(s, ", id = {");
			for (unsigned k = 0; k < a->nr_ids; k++)
				pk__pd_sbf(s, "%s %" PRIu64, k ? "," : "", a->ids[k]);
			pk__pd_sbf(s, " }");
		}
		attr_fields(s, &a->attr);
		pk__pd_sbf(s, "\n");
	}
}

static void tstamp(struct pd_sb *s, uint64_t t)
{
	pk__pd_sbf(s, "%" PRIu64 ".%06" PRIu64, t / 1000000000, t % 1000000000 / 1000);
}

/* One BPF program's lines (perf's bpf_event__print_bpf_prog_info), its
 * functions named with its BTF object from BPF_BTF when there. */
static void bpf_prog(const struct pk_perfdata *pd,
		     const struct pk_bpf_prog_entry *e, struct pd_sb *s)
{
	uint32_t nr = pk_bpf_prog_nr_funcs(e), len;
	const void *body, *btf = NULL;
	uint64_t size, addr;
	size_t bsize = 0;
	char name[512];

	if (pk_bpf_prog_btf_id(e) &&
	    !pk_perfdata_feat_raw(pd, PK_HEADER_BPF_BTF, &body, &size))
		pk_bpf_btf_find(body, (size_t)size, pk_bpf_prog_btf_id(e), &btf,
				&bsize);
	if (nr == 1) {
		pk_bpf_prog_func(e, 0, btf, bsize, &addr, &len, name, sizeof(name));
		pk__pd_sbf(s, "# bpf_prog_info %u: %s addr 0x%" PRIx64 " size %u\n",
			   pk_bpf_prog_id(e), name, addr, len);
		return;
	}
	pk__pd_sbf(s, "# bpf_prog_info %u:\n", pk_bpf_prog_id(e));
	for (uint32_t i = 0; i < nr; i++) {
		pk_bpf_prog_func(e, i, btf, bsize, &addr, &len, name, sizeof(name));
		pk__pd_sbf(s, "# \tsub_prog %u: %s addr 0x%" PRIx64 " size %u\n",
			   i, name, addr, len);
	}
}

/* HEADER_BPF_PROG_INFO: each program by id (perf reads none from a file
 * of the other byte order) */
static void bpf_progs(const struct pk_perfdata *pd, struct pd_sb *s)
{
	struct pk_bpf_prog_entry e;
	const void *body;
	uint64_t size;
	size_t off = 4;

	if (pd->swapped || pk_perfdata_feat_raw(pd, PK_HEADER_BPF_PROG_INFO,
					     &body, &size))
		return;
	while (!pk_bpf_prog_entry_decode(body, (size_t)size, &off, &e))
		bpf_prog(pd, &e, s);
}

/* HEADER_BPF_BTF: each object's id (none from the other byte order) */
static void bpf_btfs(const struct pk_perfdata *pd, struct pd_sb *s)
{
	const char *body;
	uint64_t size, at = 4;
	uint32_t nr, v[2];

	if (pd->swapped || pk_perfdata_feat_raw(pd, PK_HEADER_BPF_BTF, (const void **)&body,
				 &size) || size < 4)
		return;
	memcpy(&nr, body, 4);
	for (uint32_t i = 0; i < nr && size - at >= 8; i++) {
		memcpy(v, body + at, 8);
		if (v[1] > size - at - 8)
			break;
		pk__pd_sbf(s, "# btf info of id %u\n", v[0]);
		at += 8 + (uint64_t)v[1];
	}
}

static int describe(const struct pk_perfdata *pd, int feat, bool full,
		    char *buf, size_t len)
{
	static const char *const str_label[PK_HEADER_MAX] = {
		[PK_HEADER_HOSTNAME] = "hostname",
		[PK_HEADER_OSRELEASE] = "os release",
		[PK_HEADER_VERSION] = "perf version",
		[PK_HEADER_ARCH] = "arch", [PK_HEADER_CPUDESC] = "cpudesc",
		[PK_HEADER_CPUID] = "cpuid",
	};
	static const char *const info_only[PK_HEADER_MAX] = {
		[PK_HEADER_CPU_TOPOLOGY] = "CPU_TOPOLOGY",
		[PK_HEADER_NUMA_TOPOLOGY] = "NUMA_TOPOLOGY",
		[PK_HEADER_CACHE] = "CACHE",
		[PK_HEADER_MEM_TOPOLOGY] = "MEM_TOPOLOGY",
		[PK_HEADER_HYBRID_TOPOLOGY] = "HYBRID_TOPOLOGY",
	};
	struct pd_sb s = { buf, len, 0 };
	const char *const *v;
	uint64_t x, y;
	unsigned n;

	if (len)
		buf[0] = 0;
	if (!pk_perfdata_has_feat(pd, feat))
		return -ENOENT;
	if (str_label[feat]) {
		pk__pd_sbf(&s, "# %s : %s\n", str_label[feat],
		    pd->str_feat[feat] ? pd->str_feat[feat] : "");
		return (int)s.pos;
	}
	if (info_only[feat] && full) {
		int err = pk__pd_describe_topo(pd, feat, &s);

		return err ? err : (int)s.pos;
	}
	if (info_only[feat]) {
		pk__pd_sbf(&s, "# %s info available, use -I to display\n",
		    info_only[feat]);
		return (int)s.pos;
	}
	switch (feat) {
	case PK_HEADER_NRCPUS:
		if (!pk_perfdata_feat_u64(pd, feat, 0, &x) &&
		    !pk_perfdata_feat_u64(pd, feat, 1, &y))
			pk__pd_sbf(&s, "# nrcpus online : %" PRIu64
			    "\n# nrcpus avail : %" PRIu64 "\n", x, y);
		break;
	case PK_HEADER_TOTAL_MEM:
		if (!pk_perfdata_feat_u64(pd, feat, 0, &x))
			pk__pd_sbf(&s, "# total memory : %" PRIu64 " kB\n", x);
		break;
	case PK_HEADER_CMDLINE:
		n = pk_perfdata_feat_strv(pd, feat, 0, &v);
		pk__pd_sbf(&s, "# cmdline : ");
		for (unsigned i = 0; i < n; i++)
			pk__pd_sbf(&s, "%s ", v[i]);
		pk__pd_sbf(&s, "\n");
		break;
	case PK_HEADER_EVENT_DESC:
		event_desc(pd, &s);
		break;
	case PK_HEADER_PMU_MAPPINGS:
		n = pk_perfdata_feat_strv(pd, feat, 0, &v);
		pk__pd_sbf(&s, "# pmu mappings: ");
		for (unsigned i = 0; i < n; i++)
			pk__pd_sbf(&s, "%s%s", i ? ", " : "", v[i]);
		pk__pd_sbf(&s, "\n");
		break;
	case PK_HEADER_SAMPLE_TIME:
		if (pk_perfdata_feat_u64(pd, feat, 0, &x) ||
		    pk_perfdata_feat_u64(pd, feat, 1, &y))
			break;
		pk__pd_sbf(&s, "# time of first sample : ");
		tstamp(&s, x);
		pk__pd_sbf(&s, "\n# time of last sample : ");
		tstamp(&s, y);
		pk__pd_sbf(&s, "\n# sample duration : %10.3f ms\n",
		    (double)(y - x) / 1e6);
		break;
	case PK_HEADER_CLOCKID:
		if (!pk_perfdata_feat_u64(pd, feat, 0, &x))
			pk__pd_sbf(&s, "# clockid frequency: %" PRIu64 " MHz\n",
			    x ? 1000 / x : 0);
		break;
	case PK_HEADER_BPF_PROG_INFO:
		bpf_progs(pd, &s);
		break;
	case PK_HEADER_BPF_BTF:
		bpf_btfs(pd, &s);
		break;
	case PK_HEADER_BRANCH_STACK:
		pk__pd_sbf(&s, "# contains samples with branch stack\n");
		break;
	case PK_HEADER_AUXTRACE:
		pk__pd_sbf(&s, "# contains AUX area data (e.g. instruction trace)\n");
		break;
	case PK_HEADER_STAT:
		pk__pd_sbf(&s, "# contains stat data\n");
		break;
	case PK_HEADER_DIR_FORMAT:
		if (!pk_perfdata_feat_u64(pd, feat, 0, &x))
			pk__pd_sbf(&s, "# directory data version : %" PRIu64 "\n", x);
		break;
	case PK_HEADER_COMPRESSED:
		if (!pk_perfdata_feat_u64(pd, feat, 1, &x) &&
		    !pk_perfdata_feat_u64(pd, feat, 2, &y)) {
			uint64_t r = 0;

			pk_perfdata_feat_u64(pd, feat, 3, &r);
			pk__pd_sbf(&s, "# compressed : %s, level = %" PRIu64
			    ", ratio = %" PRIu64 "\n",
			    x == 1 ? "Zstd" : "Unknown", y, r);
		}
		break;
	case PK_HEADER_GROUP_DESC:
	case PK_HEADER_CPU_PMU_CAPS:
	case PK_HEADER_PMU_CAPS:
		n = pk_perfdata_feat_strv(pd, feat, 0, &v);
		for (unsigned i = 0; i < n; i++)
			pk__pd_sbf(&s, "# %s%s\n", feat == PK_HEADER_GROUP_DESC ?
			    "group: " : "", v[i]);
		break;
	default:
		break;
	}
	return (int)s.pos;
}

int pk_perfdata_feat_describe(const struct pk_perfdata *pd, int feat,
			      char *buf, size_t len)
{
	return describe(pd, feat, false, buf, len);
}

int pk_perfdata_feat_describe_full(const struct pk_perfdata *pd, int feat,
				   char *buf, size_t len)
{
	return describe(pd, feat, true, buf, len);
}
