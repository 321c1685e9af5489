/* SPDX-License-Identifier: MIT */
/* perf record's AUX area sizes for Intel PT: defaults by privilege, the
 * snapshot size, sample mode's, and the checks with perf's messages. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include "base/base.h"
#include "ring/ring.h"

static size_t round_pow2(size_t n)
{
	size_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

size_t pk_ring_aux_pt_ref_size(size_t user_snap, size_t area,
			       size_t psb_bytes)
{
	const size_t max = 256u << 10;
	size_t n = psb_bytes && psb_bytes <= max / 2 ? psb_bytes * 2 : max;

	if (user_snap <= (64u << 10) || n >= area || n >= user_snap / 2)
		return 0;
	return n;
}

/* perf's defaults where nothing was given. */
static void defaults(bool priv, size_t ps, size_t *data, size_t *aux)
{
	if (priv) {
		*aux = (4u << 20) / ps;
		return;
	}
	*aux = (128u << 10) / ps;
	if (!*data)
		*data = (256u << 10) / ps;
}

static int snapshot_sizes(bool priv, size_t ps, size_t *data, size_t *aux,
			  size_t *snap, char *msg, size_t size)
{
	if (!*snap && !*aux)
		defaults(priv, ps, data, aux);
	else if (!*aux && !priv && !*data)
		*data = (256u << 10) / ps;
	if (!*snap)
		*snap = *aux * ps;
	if (!*aux)
		*aux = round_pow2((*snap + ps - 1) / ps);
	if (*snap > *aux * ps) {
		snprintf(msg, size, "Snapshot size %zu must not be greater than "
			 "AUX area tracing mmap size %zu", *snap, *aux * ps);
		return -EINVAL;
	}
	return 0;
}

/* perf's check of the area's size: MIN bytes at least, a power of 2 */
static int check_area(size_t aux, size_t ps, size_t min, char *msg,
		      size_t size)
{
	if (aux * ps < min || (aux & (aux - 1))) {
		snprintf(msg, size, "Invalid mmap size for Intel Processor "
			 "Trace: must be at least %zuKiB and a power of 2",
			 min / 1024);
		return -EINVAL;
	}
	return 0;
}

int pk_ring_aux_pt_sizes(bool priv, bool snapshot, size_t *data, size_t *aux,
			 size_t *snap, char *msg, size_t size)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE), min = snapshot ? 4096 : 8192;
	int err = 0;

	if (!data || !aux || !snap || (!msg && size))
		return -EINVAL;
	if (size)
		*msg = 0;
	if (snapshot)
		err = snapshot_sizes(priv, ps, data, aux, snap, msg, size);
	else if (!*aux)
		defaults(priv, ps, data, aux);
	return err ? err : check_area(*aux, ps, min, msg, size);
}

int pk_ring_aux_pt_sample_sizes(bool priv, size_t max_sample,
				size_t *data, size_t *aux, char *msg,
				size_t size)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);

	if (!data || !aux || (!msg && size))
		return -EINVAL;
	if (size)
		*msg = 0;
	if (!*aux && !priv && !*data)
		*data = (256u << 10) / ps;
	if (!*aux)
		*aux = round_pow2((max_sample + ps - 1) / ps);
	if (max_sample > *aux * ps) {
		snprintf(msg, size, "Sample size %zu must not be greater than "
			 "AUX area tracing mmap size %zu", max_sample, *aux * ps);
		return -EINVAL;
	}
	return check_area(*aux, ps, 4096, msg, size);
}
