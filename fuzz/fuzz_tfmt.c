/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the event format compiler and formatter (tfparse.c,
 * tfeval.c, tfplug.c, tfsyms.c). The input is a format file, then (after
 * a NUL) record bytes and (after another NUL) kallsyms text; the format is
 * compiled in both styles and printed over the record.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "base/base.h"
#include "tracefmt/fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *z = memchr(data, 0, size);
	size_t flen = z ? (size_t)(z - data) : size;
	const uint8_t *rec = z ? z + 1 : data + size;
	size_t rlen = (size_t)(data + size - rec);
	const uint8_t *z2 = memchr(rec, 0, rlen);
	const char *ks = "";
	size_t klen = 0;

	if (z2) {
		ks = (const char *)z2 + 1;
		klen = (size_t)(data + size - (const uint8_t *)ks);
		rlen = (size_t)(z2 - rec);
	}
	/* the record in its own allocation: reads past it are caught */
	uint8_t *r = pk__malloc(rlen ? rlen : 1);
	char *k = pk__malloc(klen + 1);
	if (!r || !k) {
		pk__free(r);
		pk__free(k);
		return 0;
	}
	memcpy(r, rec, rlen);
	memcpy(k, ks, klen);
	k[klen] = 0;
	for (unsigned flags = 0; flags <= TF_PLUGINS; flags++) {
		struct tf_event ev;
		struct tf_env env = { .long_size = 8 };
		struct tf_out o = { 0 };
		if (pk__tf_compile(&ev, (const char *)data, flen, "sys", 8,
			       flags) == 0) {
			pk__tf_syms_parse(&env, k, klen);
			pk__tf_comms_parse(&env, k, klen);
			pk__tf_print(&ev, &env, r, (uint32_t)rlen, &o);
			pk__tf_plugin_comms(&ev, &env, r, (uint32_t)rlen);
		}
		pk__tf_event_fini(&ev);
		pk__tf_env_fini(&env);
		pk__tf_out_fini(&o);
	}
	pk__free(r);
	pk__free(k);
	return 0;
}
