// SPDX-License-Identifier: GPL-2.0-only
/*
 * msort - glibc-compatible stable merge sort and binary search; see msort.h.
 *
 * Split n into n/2 (left) and n - n/2 (right), sort both, merge taking from
 * the left while cmp(left, right) <= 0. With a comparator that is a total
 * order any stable sort gives the same result; with pahole's inconsistent
 * comparators only this exact recursion does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "msort.h"

struct msort_ctx {
	size_t size;
	char *tmp;
	int (*cmp)(const void *, const void *);
};

static void msort_rec(const struct msort_ctx *c, char *b, size_t n)
{
	size_t n1, n2, s = c->size;
	char *b1, *b2, *t = c->tmp;

	if (n <= 1)
		return;
	n1 = n / 2;
	n2 = n - n1;
	b1 = b;
	b2 = b + n1 * s;
	msort_rec(c, b1, n1);
	msort_rec(c, b2, n2);
	while (n1 > 0 && n2 > 0) {
		if (c->cmp(b1, b2) <= 0) {
			memcpy(t, b1, s);
			b1 += s;
			n1--;
		} else {
			memcpy(t, b2, s);
			b2 += s;
			n2--;
		}
		t += s;
	}
	if (n1 > 0)
		memcpy(t, b1, n1 * s);
	memcpy(b, c->tmp, (n - n2) * s);
}

int msort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	struct msort_ctx c = { .size = size, .cmp = cmp };

	if (n <= 1)
		return 0;
	if (size && n > (size_t)-1 / size)
		return -ENOMEM;
	c.tmp = malloc(n * size);
	if (!c.tmp)
		return -ENOMEM;
	msort_rec(&c, base, n);
	free(c.tmp);
	return 0;
}

void *msort_bsearch(const void *key, const void *base, size_t n, size_t size,
		    int (*cmp)(const void *, const void *))
{
	size_t l = 0, u = n;

	while (l < u) {
		size_t idx = (l + u) / 2;
		const char *p = (const char *)base + idx * size;
		int c = cmp(key, p);

		if (c < 0)
			u = idx;
		else if (c > 0)
			l = idx + 1;
		else
			return (void *)p;
	}
	return NULL;
}
