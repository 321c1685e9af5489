/* SPDX-License-Identifier: MIT */
/*
 * Feature sections: every section is walked with bounds checks; strings,
 * numbers and string lists are kept for the accessors, build ids and event
 * names go to the reader, and pk_perfdata_feat_describe() prints perf's
 * --header lines. A damaged section is reported and ignored.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "perfdata/pd.h"

static const char *const feat_names[PK_HEADER_MAX] = {
	[PK_HEADER_TRACING_DATA] = "tracing_data", [PK_HEADER_BUILD_ID] = "build_id",
	[PK_HEADER_HOSTNAME] = "hostname", [PK_HEADER_OSRELEASE] = "osrelease",
	[PK_HEADER_VERSION] = "version", [PK_HEADER_ARCH] = "arch",
	[PK_HEADER_NRCPUS] = "nrcpus", [PK_HEADER_CPUDESC] = "cpudesc",
	[PK_HEADER_CPUID] = "cpuid", [PK_HEADER_TOTAL_MEM] = "total_mem",
	[PK_HEADER_CMDLINE] = "cmdline", [PK_HEADER_EVENT_DESC] = "event_desc",
	[PK_HEADER_CPU_TOPOLOGY] = "cpu_topology",
	[PK_HEADER_NUMA_TOPOLOGY] = "numa_topology",
	[PK_HEADER_BRANCH_STACK] = "branch_stack",
	[PK_HEADER_PMU_MAPPINGS] = "pmu_mappings",
	[PK_HEADER_GROUP_DESC] = "group_desc", [PK_HEADER_AUXTRACE] = "auxtrace",
	[PK_HEADER_STAT] = "stat", [PK_HEADER_CACHE] = "cache",
	[PK_HEADER_SAMPLE_TIME] = "sample_time",
	[PK_HEADER_MEM_TOPOLOGY] = "mem_topology", [PK_HEADER_CLOCKID] = "clockid",
	[PK_HEADER_DIR_FORMAT] = "dir_format",
	[PK_HEADER_BPF_PROG_INFO] = "bpf_prog_info", [PK_HEADER_BPF_BTF] = "bpf_btf",
	[PK_HEADER_COMPRESSED] = "compressed",
	[PK_HEADER_CPU_PMU_CAPS] = "cpu_pmu_caps",
	[PK_HEADER_CLOCK_DATA] = "clock_data",
	[PK_HEADER_HYBRID_TOPOLOGY] = "hybrid_topology",
	[PK_HEADER_PMU_CAPS] = "pmu_caps",
};

const char *pk_perfdata_feat_name(int feat)
{
	return feat > 0 && feat < PK_HEADER_MAX ? feat_names[feat] : NULL;
}

struct fc {                    /* cursor over one section */
	struct pk_perfdata *pd;
	const unsigned char *p, *end, *start;
	uint64_t base;             /* file offset of start */
	int feat;
	bool bad;
};

static bool fc_need(struct fc *c, uint64_t n)
{
	if (c->bad)
		return false;
	if ((uint64_t)(c->end - c->p) < n) {
		pk__pd_warn(c->pd, "feature %s at %#llx: truncated at %#llx (needs %llu more bytes)",
			feat_names[c->feat], (unsigned long long)c->base,
			(unsigned long long)(c->base + (c->p - c->start)),
			(unsigned long long)n);
		c->bad = true;
		return false;
	}
	return true;
}

static uint32_t fc_u32(struct fc *c)
{
	uint32_t v = 0;

	if (fc_need(c, 4)) {
		v = pd32(c->pd, rd32(c->p));
		c->p += 4;
	}
	return v;
}

static uint64_t fc_u64(struct fc *c)
{
	uint64_t v = 0;

	if (fc_need(c, 8)) {
		v = pd64(c->pd, rd64(c->p));
		c->p += 8;
	}
	return v;
}

/* perf_header_string: u32 len (padded), then a NUL-terminated string. */
static char *fc_str(struct fc *c)
{
	uint32_t len = fc_u32(c);
	char *s;

	if (!fc_need(c, len))
		return NULL;
	s = pk__strndup((const char *)c->p, len);
	c->p += len;
	if (!s)
		c->bad = true;
	return s;
}

static void fc_skip(struct fc *c, uint64_t n)
{
	if (fc_need(c, n))
		c->p += n;
}

static int add_strv(struct pk_perfdata *pd, int feat, unsigned list,
		    char *s)
{
	char **n = pk__realloc(pd->strv[feat][list],
			      (pd->nr_strv[feat][list] + 1) * sizeof(*n));

	if (!n) {
		pk__free(s);
		return -ENOMEM;
	}
	pd->strv[feat][list] = n;
	n[pd->nr_strv[feat][list]++] = s;
	return 0;
}

static int str_list(struct fc *c, unsigned list)
{
	uint32_t nr = fc_u32(c);

	if (!c->bad && nr > (uint64_t)(c->end - c->p) / 4) {
		fc_need(c, (uint64_t)nr * 4);
		return 0;
	}
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		char *s = fc_str(c);

		if (s && add_strv(c->pd, c->feat, list, s))
			return -ENOMEM;
	}
	return 0;
}

int pk__pd_add_build_id(struct pk_perfdata *pd, const unsigned char *p,
		    uint64_t size, uint64_t off)
{
	struct pk_build_id *n, *b;
	char *name;
	uint16_t hsize;

	if (size < 8 + 4 + 24) {
		pk__pd_warn(pd, "build id record at %#llx is too short",
			(unsigned long long)off);
		return 0;
	}
	hsize = rd32(p + 4) >> 16;
	(void)hsize;
	n = pk__realloc(pd->bids, (pd->nr_bids + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	pd->bids = n;
	b = &n[pd->nr_bids];
	memset(b, 0, sizeof(*b));
	b->misc = pd16(pd, (uint16_t)(rd32(p + 4) & 0xffff));
	b->pid = (int32_t)pd32(pd, rd32(p + 8));
	memcpy(b->id, p + 12, 20);
	b->id_size = 20;
	/* newer perf: build_id[20] then u8 size, 3 reserved */
	if (b->misc & (1 << 15) /* PERF_RECORD_MISC_BUILD_ID_SIZE */ &&
	    p[32] && p[32] <= 20)
		b->id_size = p[32];
	name = pk__strndup((const char *)p + 36, size - 36);
	if (!name)
		return -ENOMEM;
	b->filename = name;
	pd->nr_bids++;
	return 0;
}

/* Zero bytes short of an 8-byte record header: the padding that aligns
 * a pipe-mode FEATURE record whose entries are not 8-byte multiples. */
static bool fc_padding(const struct fc *c)
{
	if (c->end - c->p >= 8)
		return false;
	for (const unsigned char *q = c->p; q < c->end; q++)
		if (*q)
			return false;
	return true;
}

static int build_ids(struct fc *c)
{
	while (c->p < c->end && !c->bad) {
		uint16_t sz;

		if (fc_padding(c))
			break;
		if (!fc_need(c, 8))
			break;
		sz = pd16(c->pd, (uint16_t)(rd32(c->p + 4) >> 16));
		if (sz < 36 || !fc_need(c, sz)) {
			if (!c->bad)
				pk__pd_warn(c->pd, "build id entry at %#llx has size %u",
					(unsigned long long)(c->base +
							     (c->p - c->start)),
					sz);
			c->bad = true;
			break;
		}
		if (pk__pd_add_build_id(c->pd, c->p, sz,
				    c->base + (c->p - c->start)))
			return -ENOMEM;
		c->p += sz;
	}
	return 0;
}

static int event_desc(struct fc *c)
{
	struct pk_perfdata *pd = c->pd;
	uint32_t nr = fc_u32(c), asz = fc_u32(c);

	if (c->bad)
		return 0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > 4096) {
		pk__pd_warn(pd, "event_desc: attr size %u is invalid", asz);
		return 0;
	}
	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		uint32_t nr_ids;
		char *name;

		fc_skip(c, asz);
		nr_ids = fc_u32(c);
		name = fc_str(c);
		if (!name)
			break;
		fc_skip(c, (uint64_t)nr_ids * 8);
		if (i < pd->nr_attrs && !pd->attrs[i].name)
			pd->attrs[i].name = name;
		else
			pk__free(name);
	}
	return 0;
}

/* "PMU pmu capabilities: name=value, ..." from NR string pairs; PMU
 * NULL: its name follows the pairs (PMU_CAPS). */
static int pmu_caps(struct fc *c, const char *pmu, uint32_t nr)
{
	struct pk_buf b = { 0 };
	int r = 0;
	char *t, *name = NULL;

	for (uint32_t k = 0; k < nr && !c->bad; k++) {
		char *n = fc_str(c), *v = fc_str(c);

		if (n && v)
			r |= pk__buf_printf(&b, "%s%s=%s", k ? ", " : "", n, v);
		pk__free(n);
		pk__free(v);
	}
	if (!pmu)
		pmu = name = fc_str(c);
	if (c->bad || !pmu) {
		pk__buf_fini(&b);
		pk__free(name);
		return 0;
	}
	t = pk__malloc(strlen(pmu) + b.len + 24);
	if (t)
		sprintf(t, "%s pmu capabilities: %.*s", pmu, (int)b.len,
			b.data ? b.data : "");
	pk__buf_fini(&b);
	pk__free(name);
	if (r) {
		pk__free(t);
		return -ENOMEM;
	}
	if (!t || add_strv(c->pd, c->feat, 0, t))
		return -ENOMEM;
	return 0;
}

/* "{leader,member,...}" per group, names from the attrs. */
static int group_desc(struct fc *c)
{
	struct pk_perfdata *pd = c->pd;
	uint32_t nr = fc_u32(c);

	for (uint32_t i = 0; i < nr && !c->bad; i++) {
		char *name = fc_str(c), *t;
		uint32_t lead = fc_u32(c), n = fc_u32(c);
		struct pk_buf b = { 0 };
		int r = 0;

		if (c->bad) {
			pk__free(name);
			break;
		}
		if (name && *name && strcmp(name, "{anon_group}"))
			r |= pk__buf_printf(&b, "%s", name);
		r |= pk__buf_printf(&b, "{");
		for (uint32_t k = 0; k < n && lead + k < pd->nr_attrs; k++) {
			const char *an = pd->attrs[lead + k].name;

			r |= pk__buf_printf(&b, "%s%s", k ? "," : "",
					   an ? an : "");
		}
		r |= pk__buf_printf(&b, "}");
		pk__free(name);
		t = r ? NULL : pk__strndup(b.data, b.len);
		pk__buf_fini(&b);
		if (!t || add_strv(pd, c->feat, 0, t))
			return -ENOMEM;
	}
	return 0;
}

static int walk(struct fc *c)
{
	struct pk_perfdata *pd = c->pd;
	int f = c->feat;
	uint32_t nr;
	int r = 0;

	switch (f) {
	case PK_HEADER_HOSTNAME: case PK_HEADER_OSRELEASE: case PK_HEADER_VERSION:
	case PK_HEADER_ARCH: case PK_HEADER_CPUDESC: case PK_HEADER_CPUID:
		pd->str_feat[f] = fc_str(c);
		break;
	case PK_HEADER_NRCPUS: {
		uint32_t avail = fc_u32(c), online = fc_u32(c);

		pd->u64_feat[f][0] = online;
		pd->u64_feat[f][1] = avail;
		pd->nr_u64_feat[f] = c->bad ? 0 : 2;
		break;
	}
	case PK_HEADER_TOTAL_MEM: case PK_HEADER_CLOCKID: case PK_HEADER_DIR_FORMAT:
		pd->u64_feat[f][0] = fc_u64(c);
		pd->nr_u64_feat[f] = c->bad ? 0 : 1;
		break;
	case PK_HEADER_SAMPLE_TIME:
		pd->u64_feat[f][0] = fc_u64(c);
		pd->u64_feat[f][1] = fc_u64(c);
		pd->nr_u64_feat[f] = c->bad ? 0 : 2;
		break;
	case PK_HEADER_COMPRESSED:
		for (int i = 0; i < 5; i++)
			pd->u64_feat[f][i] = fc_u32(c);
		pd->nr_u64_feat[f] = c->bad ? 0 : 5;
		break;
	case PK_HEADER_CLOCK_DATA:
		pd->u64_feat[f][0] = fc_u32(c);
		pd->u64_feat[f][1] = fc_u32(c);
		pd->u64_feat[f][2] = fc_u64(c);
		pd->u64_feat[f][3] = fc_u64(c);
		pd->nr_u64_feat[f] = c->bad ? 0 : 4;
		break;
	case PK_HEADER_CMDLINE:
		r = str_list(c, 0);
		break;
	case PK_HEADER_CPU_TOPOLOGY:
		r = str_list(c, 0);
		if (!r)
			r = str_list(c, 1);
		/* optional core/socket ids and die lists follow */
		break;
	case PK_HEADER_BUILD_ID:
		r = build_ids(c);
		break;
	case PK_HEADER_EVENT_DESC:
		r = event_desc(c);
		break;
	case PK_HEADER_NUMA_TOPOLOGY:
		nr = fc_u32(c);
		for (uint32_t i = 0; i < nr && !c->bad; i++) {
			fc_skip(c, 4 + 16);
			pk__free(fc_str(c));
		}
		break;
	case PK_HEADER_PMU_MAPPINGS:
		nr = fc_u32(c);
		for (uint32_t i = 0; i < nr && !c->bad; i++) {
			char buf[32], *s, *n;
			uint32_t type = fc_u32(c);

			n = fc_str(c);
			if (!n)
				break;
			snprintf(buf, sizeof(buf), " = %u", type);
			s = pk__malloc(strlen(n) + strlen(buf) + 1);
			if (!s) {
				pk__free(n);
				return -ENOMEM;
			}
			strcpy(s, n);
			strcat(s, buf);
			pk__free(n);
			if (add_strv(pd, f, 0, s))
				return -ENOMEM;
		}
		break;
	case PK_HEADER_GROUP_DESC:
		r = group_desc(c);
		break;
	case PK_HEADER_CACHE:
		fc_u32(c);
		nr = fc_u32(c);
		for (uint32_t i = 0; i < nr && !c->bad; i++) {
			fc_skip(c, 16);
			for (int k = 0; k < 3; k++)
				pk__free(fc_str(c));
		}
		break;
	case PK_HEADER_MEM_TOPOLOGY: {
		uint64_t count;

		fc_u64(c);
		fc_u64(c);
		count = fc_u64(c);
		for (uint64_t i = 0; i < count && !c->bad; i++) {
			uint64_t bits;

			fc_u64(c);
			bits = fc_u64(c);
			if (bits > (uint64_t)(c->end - c->p) * 8) {
				fc_need(c, bits / 8 + 8);
				break;
			}
			fc_skip(c, (bits + 63) / 64 * 8);
		}
		break;
	}
	case PK_HEADER_BPF_BTF:
		nr = fc_u32(c);
		for (uint32_t i = 0; i < nr && !c->bad; i++) {
			uint32_t sz;

			fc_u32(c);
			sz = fc_u32(c);
			fc_skip(c, sz);
		}
		break;
	case PK_HEADER_HYBRID_TOPOLOGY:
		nr = fc_u32(c);
		for (uint32_t i = 0; i < nr && !c->bad; i++) {
			pk__free(fc_str(c));
			pk__free(fc_str(c));
		}
		break;
	case PK_HEADER_CPU_PMU_CAPS:
		r = pmu_caps(c, "cpu", fc_u32(c));
		break;
	case PK_HEADER_PMU_CAPS:
		nr = fc_u32(c);
		for (uint32_t i = 0; i < nr && !c->bad && !r; i++)
			r = pmu_caps(c, NULL, fc_u32(c));
		break;
	case PK_HEADER_AUXTRACE:
		while (c->p < c->end && !c->bad) {
			uint64_t n = fc_u64(c);

			if (n > (uint64_t)(c->end - c->p) / 16) {
				fc_need(c, n * 16);
				break;
			}
			fc_skip(c, n * 16);
		}
		break;
	case PK_HEADER_BPF_PROG_INFO: /* kept raw: layout tied to libbpf */
	case PK_HEADER_TRACING_DATA: /* kept raw: for the tracepoint parser */
	case PK_HEADER_BRANCH_STACK: case PK_HEADER_STAT:
	default:
		break;
	}
	return r;
}

int pk__pd_parse_feat(struct pk_perfdata *pd, int feat)
{
	struct pd_feat *s = &pd->feat[feat];
	struct fc c = {
		.pd = pd, .p = s->data, .end = s->data + s->size,
		.start = s->data, .base = s->offset, .feat = feat,
	};
	int r;

	/* a feature seen again (pipe mode) replaces the earlier one */
	pk__free(pd->str_feat[feat]);
	pd->str_feat[feat] = NULL;
	for (int l = 0; l < 3; l++) {
		for (unsigned i = 0; i < pd->nr_strv[feat][l]; i++)
			pk__free(pd->strv[feat][l][i]);
		pd->nr_strv[feat][l] = 0;
	}
	pd->nr_u64_feat[feat] = 0;
	r = walk(&c);

	if (c.bad && feat == PK_HEADER_BUILD_ID)
		return r;
	return r;
}

void pk__pd_free_feats(struct pk_perfdata *pd)
{
	for (int f = 0; f < PK_HEADER_MAX; f++) {
		pk__free(pd->str_feat[f]);
		for (int l = 0; l < 3; l++) {
			for (unsigned i = 0; i < pd->nr_strv[f][l]; i++)
				pk__free(pd->strv[f][l][i]);
			pk__free(pd->strv[f][l]);
		}
	}
	for (unsigned i = 0; i < pd->nr_bids; i++)
		pk__free((char *)pd->bids[i].filename);
	pk__free(pd->bids);
}

bool pk_perfdata_has_feat(const struct pk_perfdata *pd, int feat)
{
	return feat > 0 && feat < PK_HEADER_MAX && pd->feat[feat].present;
}

int pk_perfdata_feat_raw(const struct pk_perfdata *pd, int feat,
			 const void **data, uint64_t *size)
{
	if (!pk_perfdata_has_feat(pd, feat))
		return -ENOENT;
	*data = pd->feat[feat].data;
	*size = pd->feat[feat].size;
	return 0;
}

const char *pk_perfdata_feat_str(const struct pk_perfdata *pd, int feat)
{
	if (feat <= 0 || feat >= PK_HEADER_MAX)
		return NULL;
	return pd->str_feat[feat];
}

int pk_perfdata_feat_u64(const struct pk_perfdata *pd, int feat,
			 unsigned idx, uint64_t *val)
{
	if (feat <= 0 || feat >= PK_HEADER_MAX || !pd->nr_u64_feat[feat])
		return -ENOENT;
	if (idx >= pd->nr_u64_feat[feat])
		return -ERANGE;
	*val = pd->u64_feat[feat][idx];
	return 0;
}

unsigned pk_perfdata_feat_strv(const struct pk_perfdata *pd, int feat,
			       unsigned list, const char *const **v)
{
	if (feat <= 0 || feat >= PK_HEADER_MAX || list >= 3) {
		*v = NULL;
		return 0;
	}
	*v = (const char *const *)pd->strv[feat][list];
	return pd->nr_strv[feat][list];
}

unsigned pk_perfdata_nr_build_ids(const struct pk_perfdata *pd)
{
	return pd->nr_bids;
}

int pk_perfdata_build_id(const struct pk_perfdata *pd, unsigned idx,
			 struct pk_build_id *bid)
{
	if (idx >= pd->nr_bids)
		return -ERANGE;
	*bid = pd->bids[idx];
	return 0;
}

