/* SPDX-License-Identifier: MIT */
/* lib/base's index red-black tree: random inserts and erases keep a valid
 * red-black tree with the keys in order; known shapes of the kernel's
 * rebalancing (the root after inserts in order). */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"
#include "base/rbidx.h"
#include "test.h"

#define NK 600

static struct pk_rbi t[NK];
static unsigned key[NK];
static uint32_t root;

/* The black height below H, or -1 when a rule is broken. */
static int check(uint32_t h, uint32_t parent, unsigned lo, unsigned hi)
{
	int a, b;

	if (!h)
		return 1;
	if (t[h - 1].p != parent || key[h - 1] < lo || key[h - 1] > hi)
		return -1;
	if (t[h - 1].red && ((t[h - 1].l && t[t[h - 1].l - 1].red) ||
			     (t[h - 1].r && t[t[h - 1].r - 1].red)))
		return -1;
	a = check(t[h - 1].l, h, lo, key[h - 1]);
	b = check(t[h - 1].r, h, key[h - 1], hi);
	if (a < 0 || a != b)
		return -1;
	return a + !t[h - 1].red;
}

static int count(uint32_t h)
{
	return h ? 1 + count(t[h - 1].l) + count(t[h - 1].r) : 0;
}

static void add(uint32_t i)
{
	uint32_t link = root, parent = 0;
	bool l = false;

	while (link) {
		parent = link;
		l = key[i] < key[parent - 1];
		link = l ? t[parent - 1].l : t[parent - 1].r;
	}
	pk__rbi_insert(t, &root, i, parent, l);
}

static void test_random(void)
{
	bool in[NK] = { false };
	int n = 0, bad = 0;

	srand(7);
	root = 0;
	for (uint32_t i = 0; i < NK; i++)
		key[i] = (unsigned)rand() % 200; /* with equal keys */
	for (int step = 0; step < 20000 && !bad; step++) {
		uint32_t i = (uint32_t)rand() % NK;

		if (in[i]) {
			pk__rbi_erase(t, &root, i);
			n--;
		} else {
			add(i);
			n++;
		}
		in[i] = !in[i];
		if (root && t[root - 1].red)
			bad = 1;
		if (check(root, 0, 0, ~0u) < 0 || count(root) != n)
			bad = 2;
	}
	t_check(!bad, "rbidx_random", "broken tree (%d)", bad);
}

static void test_shape(void)
{
	/* keys 0..6 in order: the kernel's tree has 1 at the root, 0 and 3
	 * under it, 5 under 3 with 4 and 6 red under 5 */
	root = 0;
	memset(t, 0, sizeof(t));
	for (uint32_t i = 0; i < 7; i++) {
		key[i] = i;
		add(i);
	}
	t_check(key[root - 1] == 1 && t[1].l == 1 && t[1].r == 4 &&
		t[3].r == 6 && t[5].l == 5 && t[5].r == 7 && t[4].red &&
		t[6].red && !t[5].red, "rbidx_shape", "root %u", key[root - 1]);
	/* erasing the root: its successor (2) takes its place */
	pk__rbi_erase(t, &root, 1);
	t_check(key[root - 1] == 2 && check(root, 0, 0, ~0u) > 0,
		"rbidx_erase_root", "root %u", key[root - 1]);
}

int main(void)
{
	test_shape();
	test_random();
	return t_exit();
}
