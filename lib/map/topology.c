/* SPDX-License-Identifier: MIT */
/* CPU topology from sysfs: socket, die, core and NUMA node of a CPU. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfkit/map.h>
#include "base/base.h"

static int topo_field(int cpu, const char *name)
{
	char path[128];
	uint64_t v = 0;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, name);
	if (pk__read_file_u64(path, &v) < 0)
		return 0;
	return (int)v;
}

/* The M of the cpuN/nodeM link, or -ENOENT when cpuN does not exist. */
static int topo_node(int cpu)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int node = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	dir = opendir(path);
	if (!dir)
		return -ENOENT;
	while ((d = readdir(dir))) {
		char *end;
		long n;

		if (strncmp(d->d_name, "node", 4))
			continue;
		n = strtol(d->d_name + 4, &end, 10);
		if (end != d->d_name + 4 && !*end) {
			node = (int)n;
			break;
		}
	}
	closedir(dir);
	return node;
}

int pk_cpu_topo_read(int cpu, struct pk_cpu_topo *out)
{
	int node;

	if (cpu < 0)
		return -EINVAL;
	node = topo_node(cpu);
	if (node < 0)
		return node;
	out->node = node;
	out->socket = topo_field(cpu, "physical_package_id");
	out->die = topo_field(cpu, "die_id");
	out->core = topo_field(cpu, "core_id");
	return 0;
}
