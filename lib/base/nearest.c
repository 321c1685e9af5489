/* SPDX-License-Identifier: MIT */
/* "Did you mean": the known name nearest to a mistyped word (pk_nearest). */
#include <stdlib.h>
#include <string.h>
#include "base/base.h"

#define NEAREST_MAX 128

/* Optimal string alignment distance of A and B (lengths below
 * NEAREST_MAX): insertions, deletions, substitutions and swaps of two
 * neighbours each cost one. */
static int osa_distance(const char *a, int la, const char *b, int lb)
{
	int d[3][NEAREST_MAX + 1];
	int *pp = d[0], *p = d[1], *c = d[2];

	for (int j = 0; j <= lb; j++)
		p[j] = j;
	for (int i = 1; i <= la; i++) {
		c[0] = i;
		for (int j = 1; j <= lb; j++) {
			int sub = p[j - 1] + (a[i - 1] != b[j - 1]);
			int v = PK_MIN(PK_MIN(p[j] + 1, c[j - 1] + 1), sub);

			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1])
				v = PK_MIN(v, pp[j - 2] + 1);
			c[j] = v;
		}
		int *t = pp;

		pp = p;
		p = c;
		c = t;
	}
	return p[lb];
}

/* The most edits a likely typo of a LEN-byte word has. */
static int typo_limit(int len)
{
	return PK_MIN(1 + len / 4, len - 1);
}

void pk_nearest_init(struct pk_nearest *n, const char *word)
{
	n->word = word;
	n->name[0] = '\0';
	n->dist = typo_limit((int)strnlen(word, NEAREST_MAX)) + 1;
}

void pk_nearest_add(struct pk_nearest *n, const char *name)
{
	int lw = (int)strlen(n->word), ln = (int)strlen(name), dist;

	if (lw >= NEAREST_MAX || ln >= NEAREST_MAX ||
	    abs(lw - ln) >= n->dist)
		return;
	dist = osa_distance(n->word, lw, name, ln);
	if (dist > 0 && dist < n->dist) {
		n->dist = dist;
		memcpy(n->name, name, (size_t)ln + 1);
	}
}
