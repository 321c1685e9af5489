/* SPDX-License-Identifier: MIT */
/*
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json):
 * shared frames (one per name), then one "sampled" profile per name given,
 * each sample a list of frame indexes root first with its weight, in the
 * order given (speedscope's time-order view).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/hash.h"
#include <perfkit/export.h>

struct ssample {
	uint32_t profile, n;
	size_t off;              /* its frames in the frame-index vector */
	uint64_t weight;
};

struct pk_speedscope {
	struct pk__hash frames_by;   /* name hash -> index + 1 */
	char **frames;
	size_t nframes, capframes;
	char **profiles;
	size_t nprofiles, capprofiles;
	struct pk__hash profiles_by;
	uint32_t *idx;
	size_t nidx, capidx;
	struct ssample *samples;
	size_t nsamples, capsamples;
};

struct pk_speedscope *pk_speedscope_new(void)
{
	return pk__zalloc(sizeof(struct pk_speedscope));
}

void pk_speedscope_free(struct pk_speedscope *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nframes; i++)
		pk__free(s->frames[i]);
	for (size_t i = 0; i < s->nprofiles; i++)
		pk__free(s->profiles[i]);
	pk__free(s->frames);
	pk__free(s->profiles);
	pk__hash_fini(&s->frames_by);
	pk__hash_fini(&s->profiles_by);
	pk__free(s->idx);
	pk__free(s->samples);
	pk__free(s);
}

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* NAME's index in NAMES (added), found through BY. -ENOMEM. */
static int64_t intern(struct pk__hash *by, char ***names, size_t *n,
		      size_t *cap, const char *name)
{
	/* (equal hashes of two names: the next key is tried) */
	for (uint64_t k = fnv(name);; k++) {
		bool added;
		uint64_t *v = pk__hash_put(by, k, &added);

		if (!v)
			return -ENOMEM;
		if (!added && *v && !strcmp((*names)[*v - 1], name))
			return (int64_t)*v - 1;
		if (!added && *v)
			continue;
		if (!pk__grow((void **)names, cap, *n, 1, sizeof(**names)) ||
		    !((*names)[*n] = pk__strdup(name)))
			return -ENOMEM;
		*v = ++*n;
		return (int64_t)*n - 1;
	}
}

int64_t pk_speedscope_frame(struct pk_speedscope *s, const char *name)
{
	return intern(&s->frames_by, &s->frames, &s->nframes, &s->capframes,
		      name);
}

int64_t pk_speedscope_profile(struct pk_speedscope *s, const char *name)
{
	return intern(&s->profiles_by, &s->profiles, &s->nprofiles,
		      &s->capprofiles, name);
}

int pk_speedscope_sample(struct pk_speedscope *s, int64_t profile,
			 const uint32_t *frames, unsigned n, uint64_t weight)
{
	if (profile < 0 || (size_t)profile >= s->nprofiles)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (frames[i] >= s->nframes)
			return -EINVAL;
	if (!pk__grow((void **)&s->idx, &s->capidx, s->nidx, n, sizeof(*s->idx)) ||
	    !pk__grow((void **)&s->samples, &s->capsamples, s->nsamples, 1,
		  sizeof(*s->samples)))
		return -ENOMEM;
	memcpy(s->idx + s->nidx, frames, n * sizeof(*frames));
	s->samples[s->nsamples++] = (struct ssample){ (uint32_t)profile, n,
						      s->nidx, weight };
	s->nidx += n;
	return 0;
}

static void put_u64(FILE *f, uint64_t v)
{
	char num[24], *e = num + sizeof(num);

	do
		*--e = (char)('0' + v % 10);
	while (v /= 10);
	fwrite(e, 1, (size_t)(num + sizeof(num) - e), f);
}

int pk_speedscope_write(struct pk_speedscope *s, FILE *f, const char *name,
			const char *unit, const char *exporter)
{
	uint32_t *order = NULL;
	size_t *start = NULL;

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":", f);
	pk_json_str(f, exporter, strlen(exporter));
	fputs(",\n\"name\":", f);
	pk_json_str(f, name, strlen(name));
	fputs(",\n\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[", f);
	for (size_t i = 0; i < s->nframes; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		pk_json_str(f, s->frames[i], strlen(s->frames[i]));
		fputc('}', f);
	}
	fputs("]},\n\"profiles\":[", f);
	/* the samples by profile, in the order given (a counting sort) */
	if (s->nprofiles &&
	    (!(order = pk__malloc((s->nsamples + 1) * sizeof(*order))) ||
	     !(start = pk__zalloc((s->nprofiles + 1) * sizeof(*start))))) {
		pk__free(order);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->nsamples; i++)
		start[s->samples[i].profile + 1]++;
	for (size_t p = 0; p < s->nprofiles; p++)
		start[p + 1] += start[p];
	for (size_t i = 0; i < s->nsamples; i++)
		order[start[s->samples[i].profile]++] = (uint32_t)i;
	for (size_t p = 0, at = 0; p < s->nprofiles; p++) {
		size_t end = start[p];
		uint64_t total = 0;

		for (size_t i = at; i < end; i++)
			total += s->samples[order[i]].weight;
		fputs(p ? ",\n{\"type\":\"sampled\",\"name\":" :
		      "\n{\"type\":\"sampled\",\"name\":", f);
		pk_json_str(f, s->profiles[p], strlen(s->profiles[p]));
		fputs(",\"unit\":", f);
		pk_json_str(f, unit, strlen(unit));
		fputs(",\"startValue\":0,\"endValue\":", f);
		put_u64(f, total);
		fputs(",\n\"samples\":[", f);
		for (size_t i = at; i < end; i++) {
			const struct ssample *k = &s->samples[order[i]];

			fputs(i > at ? ",[" : "[", f);
			for (uint32_t j = 0; j < k->n; j++) {
				if (j)
					fputc(',', f);
				put_u64(f, s->idx[k->off + j]);
			}
			fputc(']', f);
		}
		fputs("],\n\"weights\":[", f);
		for (size_t i = at; i < end; i++) {
			if (i > at)
				fputc(',', f);
			put_u64(f, s->samples[order[i]].weight);
		}
		fputs("]}", f);
		at = end;
	}
	fputs("]}\n", f);
	pk__free(order);
	pk__free(start);
	return ferror(f) ? -EIO : 0;
}
