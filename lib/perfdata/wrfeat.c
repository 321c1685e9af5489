/* SPDX-License-Identifier: MIT */
/* perf.data writer: feature sections, and this machine's values. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "perfdata/wr.h"

#define NAME_ALIGN 64

static bool valid_feat(int f)
{
	return f > 0 && f < PK_HEADER_MAX;
}

static struct pk_buf *feat_reset(struct pk_pdwriter *w, int f)
{
	w->feat[f].len = 0;
	w->has_feat[f] = true;
	return &w->feat[f];
}

static int put_u32(struct pk_buf *b, uint32_t v)
{
	return pk__buf_append(b, &v, 4);
}

static int put_u64(struct pk_buf *b, uint64_t v)
{
	return pk__buf_append(b, &v, 8);
}

/* perf_header_string: u32 length (NUL included, padded to 64). */
int pk__wr_put_str(struct pk_buf *b, const char *s)
{
	static const char zero[NAME_ALIGN];
	size_t n = strlen(s) + 1, len = (n + NAME_ALIGN - 1) / NAME_ALIGN *
					NAME_ALIGN;

	if (put_u32(b, (uint32_t)len) || pk__buf_append(b, s, n - 1) ||
	    pk__buf_append(b, zero, len - n + 1))
		return -ENOMEM;
	return 0;
}

int pk_pdwriter_feat_str(struct pk_pdwriter *w, int feat, const char *s)
{
	if (!w || !s || !valid_feat(feat))
		return -EINVAL;
	return pk__wr_put_str(feat_reset(w, feat), s);
}

int pk_pdwriter_feat_raw(struct pk_pdwriter *w, int feat, const void *data,
			 size_t size)
{
	if (!w || (!data && size) || !valid_feat(feat))
		return -EINVAL;
	return pk__buf_append(feat_reset(w, feat), data, size) ? -ENOMEM : 0;
}

int pk_pdwriter_feat_cmdline(struct pk_pdwriter *w, int argc,
			     char *const *argv)
{
	struct pk_buf *b;

	if (!w || argc < 0)
		return -EINVAL;
	b = feat_reset(w, PK_HEADER_CMDLINE);
	if (put_u32(b, (uint32_t)argc))
		return -ENOMEM;
	for (int i = 0; i < argc; i++)
		if (pk__wr_put_str(b, argv[i]))
			return -ENOMEM;
	return 0;
}

int pk_pdwriter_feat_u64(struct pk_pdwriter *w, int feat,
			 const uint64_t *v, unsigned nr)
{
	struct pk_buf *b;

	if (!w || !v || !valid_feat(feat))
		return -EINVAL;
	b = feat_reset(w, feat);
	switch (feat) {
	case PK_HEADER_NRCPUS: /* given online, avail; stored avail, online */
		if (nr != 2)
			return -EINVAL;
		return put_u32(b, (uint32_t)v[1]) || put_u32(b, (uint32_t)v[0])
			? -ENOMEM : 0;
	case PK_HEADER_CLOCK_DATA: /* u32 version, u32 clockid, u64 tod, clk */
		if (nr != 4)
			return -EINVAL;
		return put_u32(b, (uint32_t)v[0]) || put_u32(b, (uint32_t)v[1]) ||
		       put_u64(b, v[2]) || put_u64(b, v[3]) ? -ENOMEM : 0;
	case PK_HEADER_COMPRESSED:
		for (unsigned i = 0; i < nr; i++)
			if (put_u32(b, (uint32_t)v[i]))
				return -ENOMEM;
		return 0;
	default:
		for (unsigned i = 0; i < nr; i++)
			if (put_u64(b, v[i]))
				return -ENOMEM;
		return 0;
	}
}

int pk_pdwriter_feat_topology(struct pk_pdwriter *w,
			      const char *const *cores, unsigned nr_cores,
			      const char *const *threads, unsigned nr_threads)
{
	struct pk_buf *b;

	if (!w || (nr_cores && !cores) || (nr_threads && !threads))
		return -EINVAL;
	b = feat_reset(w, PK_HEADER_CPU_TOPOLOGY);
	if (put_u32(b, nr_cores))
		return -ENOMEM;
	for (unsigned i = 0; i < nr_cores; i++)
		if (pk__wr_put_str(b, cores[i]))
			return -ENOMEM;
	if (put_u32(b, nr_threads))
		return -ENOMEM;
	for (unsigned i = 0; i < nr_threads; i++)
		if (pk__wr_put_str(b, threads[i]))
			return -ENOMEM;
	return 0;
}

int pk_pdwriter_add_build_id(struct pk_pdwriter *w,
			     const struct pk_build_id *bid)
{
	static const char zero[NAME_ALIGN];
	struct pk_buf *b;
	size_t n, len;
	unsigned char id[24] = { 0 };
	struct perf_event_header h;
	int32_t pid;

	if (!w || !bid || !bid->filename || bid->id_size > 20)
		return -EINVAL;
	b = &w->feat[PK_HEADER_BUILD_ID];
	w->has_feat[PK_HEADER_BUILD_ID] = true;
	n = strlen(bid->filename) + 1;
	len = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
	memcpy(id, bid->id, bid->id_size ? bid->id_size : 20);
	id[20] = bid->id_size ? bid->id_size : 20;
	h.type = 0; /* perf's table entries leave the type 0 */
	h.misc = bid->misc | (1 << 15); /* PERF_RECORD_MISC_BUILD_ID_SIZE */
	h.size = (uint16_t)(sizeof(h) + 4 + 24 + len);
	pid = bid->pid;
	if (pk__buf_append(b, &h, sizeof(h)) || pk__buf_append(b, &pid, 4) ||
	    pk__buf_append(b, id, 24) ||
	    pk__buf_append(b, bid->filename, n - 1) ||
	    pk__buf_append(b, zero, len - n + 1))
		return -ENOMEM;
	return 0;
}

/* EVENT_DESC from the attrs (when any has a name). */
int pk__wr_feat_event_desc(struct pk_pdwriter *w)
{
	struct pk_buf *b;
	bool any = false;

	for (unsigned i = 0; i < w->nr_attrs; i++)
		any |= w->attrs[i].name != NULL;
	if (!any || w->has_feat[PK_HEADER_EVENT_DESC])
		return 0;
	b = feat_reset(w, PK_HEADER_EVENT_DESC);
	if (put_u32(b, w->nr_attrs) ||
	    put_u32(b, sizeof(struct perf_event_attr)))
		return -ENOMEM;
	for (unsigned i = 0; i < w->nr_attrs; i++) {
		struct perf_event_attr a = w->attrs[i].attr;

		a.size = sizeof(a);
		if (pk__buf_append(b, &a, sizeof(a)) ||
		    put_u32(b, w->attrs[i].nr_ids) ||
		    pk__wr_put_str(b, w->attrs[i].name ? w->attrs[i].name : "") ||
		    pk__buf_append(b, w->attrs[i].ids, w->attrs[i].nr_ids * 8ULL))
			return -ENOMEM;
	}
	return 0;
}

/* ---- this machine ---- */

static char *cpuinfo_field(const char *info, const char *key)
{
	const char *p = info;
	size_t kl = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, kl) && (p[kl] == '\t' || p[kl] == ' ' ||
					     p[kl] == ':')) {
			const char *v = strchr(p, ':'), *e;

			if (!v)
				return NULL;
			v++;
			while (*v == ' ')
				v++;
			e = strchr(v, '\n');
			return pk__strndup(v, e ? (size_t)(e - v) : strlen(v));
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static void squeeze(char *s)
{
	char *d = s;

	for (char *p = s; *p; p++)
		if (!(isspace((unsigned char)*p) &&
		      (d == s || isspace((unsigned char)d[-1]))))
			*d++ = isspace((unsigned char)*p) ? ' ' : *p;
	while (d > s && d[-1] == ' ')
		d--;
	*d = 0;
}

static int host_cpu(struct pk_pdwriter *w)
{
	char *info = NULL, *desc, *ven, *fam, *mod, *step, id[256];
	int r = 0;

	if (pk__read_file("/proc/cpuinfo", &info) < 0)
		return 0;
	desc = cpuinfo_field(info, "model name");
	ven = cpuinfo_field(info, "vendor_id");
	fam = cpuinfo_field(info, "cpu family");
	mod = cpuinfo_field(info, "model");
	step = cpuinfo_field(info, "stepping");
	if (desc) {
		squeeze(desc);
		r = pk_pdwriter_feat_str(w, PK_HEADER_CPUDESC, desc);
	}
	if (!r && ven && fam && mod && step) {
		snprintf(id, sizeof(id), "%s,%s,%s,%s", ven, fam, mod, step);
		r = pk_pdwriter_feat_str(w, PK_HEADER_CPUID, id);
	}
	pk__free(desc);
	pk__free(ven);
	pk__free(fam);
	pk__free(mod);
	pk__free(step);
	pk__free(info);
	return r;
}

/* Die sibling lists and each cpu's die id (perf's third part). */
static int host_dies(struct pk_pdwriter *w, long ncpu)
{
	struct pk_buf *b = &w->feat[PK_HEADER_CPU_TOPOLOGY];
	char *dies[512] = { 0 }, path[128], *s;
	unsigned nd = 0, i;
	int r = 0;

	for (long c = 0; c < ncpu && c < 512; c++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/topology/die_cpus_list",
			 c);
		if (pk__read_file(path, &s) < 0)
			continue;
		s[strcspn(s, "\n")] = 0;
		for (i = 0; i < nd && strcmp(dies[i], s); i++)
			;
		if (i < nd)
			pk__free(s);
		else
			dies[nd++] = s;
	}
	if (put_u32(b, nd))
		r = -ENOMEM;
	for (i = 0; !r && i < nd; i++)
		r = pk__wr_put_str(b, dies[i]);
	for (long c = 0; !r && c < ncpu; c++) {
		uint64_t die = 0;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/topology/die_id", c);
		pk__read_file_u64(path, &die);
		r = put_u32(b, (uint32_t)die) ? -ENOMEM : 0;
	}
	for (i = 0; i < nd; i++)
		pk__free(dies[i]);
	return r;
}

static int host_topology(struct pk_pdwriter *w, long ncpu)
{
	char *cores[512] = { 0 }, *threads[512] = { 0 }, path[128], *s;
	unsigned nc = 0, nt = 0;
	int r;

	for (long c = 0; c < ncpu && c < 512; c++) {
		for (int k = 0; k < 2; k++) {
			char **v = k ? threads : cores;
			unsigned *n = k ? &nt : &nc, i;

			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%ld/topology/%s",
				 c, k ? "thread_siblings_list"
				      : "core_siblings_list");
			if (pk__read_file(path, &s) < 0)
				continue;
			s[strcspn(s, "\n")] = 0;
			for (i = 0; i < *n && strcmp(v[i], s); i++)
				;
			if (i < *n)
				pk__free(s);
			else
				v[(*n)++] = s;
		}
	}
	r = pk_pdwriter_feat_topology(w, (const char *const *)cores, nc,
				      (const char *const *)threads, nt);
	/* core and socket id of each cpu, as perf writes after the lists */
	for (long c = 0; !r && c < ncpu; c++) {
		uint64_t core = 0, sock = 0;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/topology/core_id", c);
		pk__read_file_u64(path, &core);
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%ld/topology/physical_package_id",
			 c);
		pk__read_file_u64(path, &sock);
		if (put_u32(&w->feat[PK_HEADER_CPU_TOPOLOGY], (uint32_t)core) ||
		    put_u32(&w->feat[PK_HEADER_CPU_TOPOLOGY], (uint32_t)sock))
			r = -ENOMEM;
	}
	for (unsigned i = 0; i < nc; i++)
		pk__free(cores[i]);
	for (unsigned i = 0; i < nt; i++)
		pk__free(threads[i]);
	return r ? r : host_dies(w, ncpu);
}

static uint64_t meminfo_kb(const char *text, const char *key)
{
	const char *p = text ? strstr(text, key) : NULL;

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

static int host_numa(struct pk_pdwriter *w)
{
	struct pk_buf *b = feat_reset(w, PK_HEADER_NUMA_TOPOLOGY);
	unsigned nr = 0;
	char path[128], *mem, *cpus;
	int r = 0;

	if (put_u32(b, 0))
		return -ENOMEM;
	for (unsigned n = 0; n < 1024 && !r; n++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%u/cpulist", n);
		if (pk__read_file(path, &cpus) < 0)
			break;
		cpus[strcspn(cpus, "\n")] = 0;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%u/meminfo", n);
		mem = NULL;
		pk__read_file(path, &mem);
		if (put_u32(b, n) || put_u64(b, meminfo_kb(mem, "MemTotal:")) ||
		    put_u64(b, meminfo_kb(mem, "MemFree:")) || pk__wr_put_str(b, cpus))
			r = -ENOMEM;
		pk__free(mem);
		pk__free(cpus);
		nr++;
	}
	memcpy(b->data, &nr, 4);
	return r;
}

int pk_pdwriter_feat_host(struct pk_pdwriter *w)
{
	struct utsname u;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t v[2] = { (uint64_t)sysconf(_SC_NPROCESSORS_ONLN),
			  (uint64_t)ncpu };
	char *mi = NULL;
	int r;

	if (!w)
		return -EINVAL;
	if (uname(&u))
		return -errno;
	if ((r = pk_pdwriter_feat_str(w, PK_HEADER_HOSTNAME, u.nodename)) ||
	    (r = pk_pdwriter_feat_str(w, PK_HEADER_OSRELEASE, u.release)) ||
	    (r = pk_pdwriter_feat_str(w, PK_HEADER_ARCH, u.machine)) ||
	    (r = pk_pdwriter_feat_str(w, PK_HEADER_VERSION, "0.1.perfkit")) ||
	    (r = pk_pdwriter_feat_u64(w, PK_HEADER_NRCPUS, v, 2)))
		return r;
	if ((r = host_cpu(w)))
		return r;
	if (pk__read_file("/proc/meminfo", &mi) >= 0) {
		v[0] = meminfo_kb(mi, "MemTotal:");
		pk__free(mi);
		if ((r = pk_pdwriter_feat_u64(w, PK_HEADER_TOTAL_MEM, v, 1)))
			return r;
	}
	if ((r = host_topology(w, ncpu)) || (r = host_numa(w)))
		return r;
	return pk_pdwriter_feat_caches(w, NULL);
}

int pk_pdwriter_feat_pmu_mappings(struct pk_pdwriter *w, int nr,
				  const uint32_t *types,
				  const char *const *names)
{
	struct pk_buf *b;

	if (!w || nr < 0 || (nr && (!types || !names)))
		return -EINVAL;
	b = feat_reset(w, PK_HEADER_PMU_MAPPINGS);
	if (put_u32(b, (uint32_t)nr))
		return -ENOMEM;
	for (int i = 0; i < nr; i++)
		if (put_u32(b, types[i]) || pk__wr_put_str(b, names[i]))
			return -ENOMEM;
	return 0;
}

/* NR caps NAMES[i] = VALUES[i] appended to B. 0 or -ENOMEM. */
static int put_caps(struct pk_buf *b, int nr, const char *const *names,
		    const char *const *values)
{
	if (put_u32(b, (uint32_t)nr))
		return -ENOMEM;
	for (int i = 0; i < nr; i++)
		if (pk__wr_put_str(b, names[i]) || pk__wr_put_str(b, values[i]))
			return -ENOMEM;
	return 0;
}

int pk_pdwriter_feat_cpu_pmu_caps(struct pk_pdwriter *w, int nr,
				  const char *const *names,
				  const char *const *values)
{
	if (!w || nr < 0 || (nr && (!names || !values)))
		return -EINVAL;
	return put_caps(feat_reset(w, PK_HEADER_CPU_PMU_CAPS), nr, names,
			values);
}

int pk_pdwriter_feat_pmu_caps(struct pk_pdwriter *w, const char *pmu, int nr,
			      const char *const *names,
			      const char *const *values)
{
	struct pk_buf *b = w ? &w->feat[PK_HEADER_PMU_CAPS] : NULL;
	uint32_t count;

	if (!w || (pmu && (nr < 0 || (nr && (!names || !values)))))
		return -EINVAL;
	if (!pmu || !w->has_feat[PK_HEADER_PMU_CAPS])
		if (put_u32(feat_reset(w, PK_HEADER_PMU_CAPS), 0))
			return -ENOMEM;
	if (!pmu)
		return 0;
	if (put_caps(b, nr, names, values) || pk__wr_put_str(b, pmu))
		return -ENOMEM;
	memcpy(&count, b->data, 4);
	count++;
	memcpy(b->data, &count, 4);
	return 0;
}
