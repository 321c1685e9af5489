// SPDX-License-Identifier: MIT
/*
 * What the report reads of the file's header sections itself: the socket
 * of each CPU (HEADER_CPU_TOPOLOGY's ids after the sibling lists) and the
 * event groups (HEADER_GROUP_DESC: name, leader, members).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "report/report_int.h"
#include <perfkit/perfdata.h>

/* Skips a string list of the topology section at *P (count, then
 * length-prefixed strings); false when it runs past END. */
static bool skip_strs(const uint8_t **p, const uint8_t *end)
{
	uint32_t n, len;

	if (end - *p < 4)
		return false;
	memcpy(&n, *p, 4);
	*p += 4;
	while (n--) {
		if (end - *p < 4)
			return false;
		memcpy(&len, *p, 4);
		*p += 4;
		if ((uint64_t)(end - *p) < len)
			return false;
		*p += len;
	}
	return true;
}

/* The socket ids that follow the sibling lists of HEADER_CPU_TOPOLOGY. */
static void load_sockets(struct pk_report *r)
{
	const void *data;
	const uint8_t *p, *end;
	uint64_t size, ncpu = 0;

	r->nsockets = 0;
	if (pk_perfdata_feat_raw(r->pd, PK_HEADER_CPU_TOPOLOGY, &data, &size) ||
	    pk_perfdata_feat_u64(r->pd, PK_HEADER_NRCPUS, 1, &ncpu) ||
	    ncpu > 65536)
		return;
	p = data;
	end = p + size;
	/* perf 6.1 keeps the ids only when the die lists follow them */
	if (!skip_strs(&p, end) || !skip_strs(&p, end) ||
	    (uint64_t)(end - p) <= ncpu * 8)
		return;
	r->sockets = pk__calloc(ncpu + 1, sizeof(*r->sockets));
	if (!r->sockets)
		return;
	for (uint64_t c = 0; c < ncpu; c++)
		memcpy(&r->sockets[c], p + c * 8 + 4, 4);
	r->nsockets = (uint32_t)ncpu;
}

/* perf's socket of CPU: from the file's topology, -1 where unknown. */
int32_t pk__rp_socket_of(struct pk_report *r, int32_t cpu)
{
	if (!r->sockets_loaded) {
		r->sockets_loaded = true;
		load_sockets(r);
	}
	return cpu >= 0 && (uint32_t)cpu < r->nsockets ? r->sockets[cpu] : -1;
}

/* A u32 at *P, moved past; false when it runs past END. */
static bool get_u32(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
	if (end - *p < 4)
		return false;
	memcpy(v, *p, 4);
	*p += 4;
	return true;
}

/* One group of HEADER_GROUP_DESC at *P: 0, -EINVAL (cut short), -ENOMEM. */
static int get_group(const uint8_t **p, const uint8_t *end, struct rp_group *g)
{
	uint32_t len;

	if (!get_u32(p, end, &len) || (uint64_t)(end - *p) < len)
		return -EINVAL;
	g->name = pk__strndup((const char *)*p, strnlen((const char *)*p, len));
	if (!g->name)
		return -ENOMEM;
	*p += len;
	if (!get_u32(p, end, &g->lead) || !get_u32(p, end, &g->nr))
		return -EINVAL;
	return 0;
}

int pk__rp_load_groups(struct pk_report *r)
{
	const void *data;
	const uint8_t *p, *end;
	uint64_t size;
	uint32_t nr;
	int err = 0;

	if (r->groups_loaded)
		return 0;
	r->groups_loaded = true;
	if (pk_perfdata_feat_raw(r->pd, PK_HEADER_GROUP_DESC, &data, &size))
		return 0;
	p = data;
	end = p + size;
	if (!get_u32(&p, end, &nr) || nr > size)
		return 0;
	r->groups = pk__calloc(nr + 1, sizeof(*r->groups));
	if (!r->groups)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr && !err; i++) {
		err = get_group(&p, end, &r->groups[i]);
		if (!err || r->groups[i].name)
			r->ngroups++;
	}
	return err == -ENOMEM ? err : 0;
}

const struct rp_group *pk__rp_group_of(const struct pk_report *r, unsigned a)
{
	for (unsigned i = 0; i < r->ngroups; i++)
		if (a >= r->groups[i].lead &&
		    a - r->groups[i].lead < r->groups[i].nr &&
		    r->groups[i].nr > 1)
			return &r->groups[i];
	return NULL;
}
