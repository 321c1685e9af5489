/* SPDX-License-Identifier: MIT */
/* The library's hash table and the pid -> comm map on it (lib/base). */
#include <string.h>
#include "base/base.h"
#include "base/comm.h"
#include "base/hash.h"
#include "test.h"

static void test_hash(void)
{
	struct pk__hash h = { 0 };
	bool added, ok = true;
	size_t n = 0;

	for (uint64_t k = 0; k < 5000 && ok; k++) {
		uint64_t *v = pk__hash_put(&h, k << 32 | k, &added);
		ok = v && added;
		if (v)
			*v = k + 7;
	}
	for (uint64_t k = 0; k < 5000 && ok; k++) {
		uint64_t *v = pk__hash_get(&h, k << 32 | k);
		ok = v && *v == k + 7;
	}
	for (size_t i = 0; pk__hash_next(&h, &i);)
		n++;
	ok = ok && *pk__hash_put(&h, 0, &added) == 7 && !added;
	t_check(ok && n == 5000 && h.n == 5000 && !pk__hash_get(&h, 1),
		"hash_put_get", "ok=%d n=%zu", ok, n);
	pk__hash_fini(&h);
	t_check(!pk__hash_get(&h, 0), "hash_empty", "found in an empty table");
}

static const char cmdlines[] =
	"12 first\n"
	"0 swapper\n"
	"12 second\n"
	"\n"
	"13 a-name-longer-than-fifteen\n"
	"x14 bad\n"
	"15 after-bad\n";

static void test_comms(void)
{
	struct pk__comms t = { 0 }, k = { 0 };
	size_t len = 0;
	int rt = pk__comms_parse(&t, cmdlines, strlen(cmdlines), PK_COMMS_TEP);
	int rk = pk__comms_parse(&k, cmdlines, strlen(cmdlines),
				 PK_COMMS_KERNEL);
	const char *a = pk__comms_get(&t, 12, &len);

	/* libtraceevent: the first stays, whole names, stops at "x14" */
	t_check(!rt && a && !strcmp(a, "first") && len == 5 &&
		!pk__comms_get(&t, 0, NULL) && !pk__comms_get(&t, 15, NULL) &&
		!strcmp(pk__comms_get(&t, 13, NULL),
			"a-name-longer-than-fifteen"), "comms_tep_rule", "%s",
		a ? a : "-");
	/* the kernel: the last wins, 15 bytes, bad lines skipped */
	a = pk__comms_get(&k, 12, NULL);
	t_check(!rk && a && !strcmp(a, "second") &&
		!strcmp(pk__comms_get(&k, 13, &len), "a-name-longer-t") &&
		len == 15 && !strcmp(pk__comms_get(&k, 15, NULL), "after-bad") &&
		!pk__comms_get(&k, 0, NULL), "comms_kernel_rule", "%s",
		a ? a : "-");
	t_check(!pk__comms_set(&k, 12, "longer-name", 11, true) &&
		!strcmp(pk__comms_get(&k, 12, NULL), "longer-name") &&
		!pk__comms_set(&k, 12, "x", 1, false) &&
		!strcmp(pk__comms_get(&k, 12, NULL), "longer-name"),
		"comms_set_replace", "%s", pk__comms_get(&k, 12, NULL));
	pk__comms_fini(&t);
	pk__comms_fini(&k);
}

int main(void)
{
	test_hash();
	test_comms();
	return t_exit();
}
