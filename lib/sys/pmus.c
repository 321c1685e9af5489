/* SPDX-License-Identifier: MIT */
/* The PMUs of /sys/bus/event_source/devices, read once. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include <perfkit/features.h>

#define PMU_DIR "/sys/bus/event_source/devices"

struct pmu {
	char *name;
	int type;
};

static struct pmu *pmus;
static int nr_pmus;
static pthread_once_t pmus_once = PTHREAD_ONCE_INIT;

static int cmp_pmu(const void *a, const void *b)
{
	return strcmp(((const struct pmu *)a)->name,
		      ((const struct pmu *)b)->name);
}

static int add_pmu(const char *name, int *cap)
{
	char path[512];
	uint64_t type;

	snprintf(path, sizeof(path), PMU_DIR "/%s/type", name);
	if (pk_read_file_u64(path, &type) || type > INT32_MAX)
		return 0;
	if (nr_pmus == *cap) {
		int ncap = *cap ? *cap * 2 : 16;
		struct pmu *n = pk_realloc(pmus, (size_t)ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pmus = n;
		*cap = ncap;
	}
	pmus[nr_pmus].name = pk_strdup(name);
	if (!pmus[nr_pmus].name)
		return -ENOMEM;
	pmus[nr_pmus++].type = (int)type;
	return 0;
}

static void read_pmus(void)
{
	DIR *dir = opendir(PMU_DIR);
	struct dirent *d;
	int cap = 0;

	if (!dir) {
		pk_debug("no PMUs: cannot open " PMU_DIR "\n");
		return;
	}
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.' && add_pmu(d->d_name, &cap))
			break;
	closedir(dir);
	if (nr_pmus)
		qsort(pmus, (size_t)nr_pmus, sizeof(*pmus), cmp_pmu);
}

int pk_pmu_nr(void)
{
	pthread_once(&pmus_once, read_pmus);
	return nr_pmus;
}

const char *pk_pmu_name(int idx)
{
	return idx >= 0 && idx < pk_pmu_nr() ? pmus[idx].name : NULL;
}

int pk_pmu_type(int idx)
{
	return idx >= 0 && idx < pk_pmu_nr() ? pmus[idx].type : -EINVAL;
}

int pk_pmu_find(const char *name)
{
	for (int i = 0; i < pk_pmu_nr(); i++)
		if (!strcmp(pmus[i].name, name))
			return pmus[i].type;
	return -ENOENT;
}
