/* SPDX-License-Identifier: MIT */
/*
 * Repairs the header of a perf.data file whose writer never finished
 * (perf record killed with SIGKILL leaves data_size 0 and a feature bitmap
 * whose sections were never written): data_size becomes the bytes of the
 * complete records, and the feature bitmap is cleared, so that Linux perf
 * reads the file too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "perfdata/pd.h"

int pk_perfdata_repair(const char *path, uint64_t *data_size)
{
	PK_OPTS(pk_perfdata_opts, o, .file_order = true);
	struct pk_perfdata *pd;
	struct pk_record rec;
	uint64_t end, zero[4] = { 0 }, size;
	int fd, err, r = 0;

	pd = pk_perfdata_open(path, &o);
	if (!pd)
		return -errno;
	if (pd->pipe || !pd->data_to_eof) {
		pk_perfdata_free(pd);
		return pd->pipe ? -EINVAL : 0;
	}
	end = pd->data_off;
	while ((err = pk_perfdata_next(pd, &rec)) == 0)
		if (!rec.compressed)
			end = pd->pos;
	/* stop at the damage, if any: what precedes it stays */
	size = end - pd->data_off;
	pk_perfdata_free(pd);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pwrite(fd, &size, 8, 48) != 8 || pwrite(fd, zero, 32, 72) != 32)
		r = -errno;
	close(fd);
	if (data_size)
		*data_size = size;
	(void)err;
	return r;
}
