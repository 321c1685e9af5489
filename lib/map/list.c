/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include "base/base.h"
#include "map/list.h"

/* Upper bound on the entries one list may expand to. */
#define PK_LIST_MAX_ENTRIES (1 << 20)

static int parse_num(const char **s, int max, int *val)
{
	long v = 0;

	if (!isdigit((unsigned char)**s))
		return -EINVAL;
	while (isdigit((unsigned char)**s)) {
		v = v * 10 + (**s - '0');
		if (v > max)
			return -EINVAL;
		(*s)++;
	}
	*val = (int)v;
	return 0;
}

static int push(int **arr, int *nr, int *cap, int v)
{
	if (*nr == *cap) {
		int ncap = *cap ? *cap * 2 : 16;
		int *n;

		if (ncap > PK_LIST_MAX_ENTRIES)
			return -EINVAL;
		n = pk__realloc(*arr, (size_t)ncap * sizeof(int));
		if (!n)
			return -ENOMEM;
		*arr = n;
		*cap = ncap;
	}
	(*arr)[(*nr)++] = v;
	return 0;
}

static int parse_item(const char **s, int max, bool ranges, int **arr,
		      int *nr, int *cap)
{
	int lo, hi, err = parse_num(s, max, &lo);

	if (err)
		return err;
	hi = lo;
	if (**s == '-') {
		if (!ranges)
			return -EINVAL;
		(*s)++;
		err = parse_num(s, max, &hi);
		if (err || hi < lo)
			return -EINVAL;
	}
	for (long v = lo; v <= hi && !err; v++)
		err = push(arr, nr, cap, (int)v);
	return err;
}

int pk__int_list_parse(const char *str, int max, bool ranges, int **out,
		       int *nr)
{
	const char *s = str;
	int *arr = NULL, n = 0, cap = 0, err = 0;

	*out = NULL;
	*nr = 0;
	if (!s || !*s || *s == '\n')
		return -EINVAL;
	for (;;) {
		err = parse_item(&s, max, ranges, &arr, &n, &cap);
		if (err)
			break;
		if (*s == ',') {
			s++;
			continue;
		}
		if (*s == '\n')
			s++;
		if (*s)
			err = -EINVAL;
		break;
	}
	if (err) {
		pk__free(arr);
		return err;
	}
	*out = arr;
	*nr = n;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int pk__int_sort_uniq(int *arr, int nr)
{
	int j = 0;

	if (nr <= 1)
		return nr;
	qsort(arr, (size_t)nr, sizeof(int), cmp_int);
	for (int i = 1; i < nr; i++)
		if (arr[i] != arr[j])
			arr[++j] = arr[i];
	return j + 1;
}
