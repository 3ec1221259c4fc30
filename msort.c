// SPDX-License-Identifier: GPL-2.0-only
/*
 * msort - glibc-compatible stable merge sort and binary search; see msort.h.
 *
 * Split n into n/2 (left) and n - n/2 (right), sort both, merge taking from
 * the left while cmp(left, right) <= 0. With a comparator that is a total
 * order any stable sort gives the same result; with pahole's inconsistent
 * comparators only this exact recursion does.
 *
 * Elements of more than MSORT_INDIRECT bytes are sorted as glibc sorts
 * them: an array of pointers goes through the same recursion, comparing
 * what they point to, and the elements are then moved once into that
 * order. The comparisons, and so the result, are the same; what is saved
 * is copying every element at every level of the merge.
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

/* the same recursion on pointers to the elements (see above) */
static void msort_rec_indirect(const struct msort_ctx *c, const void **b, size_t n)
{
	const void **b1, **b2, **t = (const void **)c->tmp;
	size_t n1, n2;

	if (n <= 1)
		return;
	n1 = n / 2;
	n2 = n - n1;
	b1 = b;
	b2 = b + n1;
	msort_rec_indirect(c, b1, n1);
	msort_rec_indirect(c, b2, n2);
	while (n1 > 0 && n2 > 0) {
		if (c->cmp(*b1, *b2) <= 0) {
			*t++ = *b1++;
			n1--;
		} else {
			*t++ = *b2++;
			n2--;
		}
	}
	if (n1 > 0)
		memcpy(t, b1, n1 * sizeof(*b1));
	memcpy(b, c->tmp, (n - n2) * sizeof(*b));
}

#define MSORT_INDIRECT 32 /* glibc's limit for sorting elements in place */

static int msort_indirect(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	struct msort_ctx c = { .size = sizeof(void *), .cmp = cmp };
	const void **ptrs;
	char *sorted;
	size_t i;

	if (n > (size_t)-1 / (2 * sizeof(*ptrs) + size))
		return -ENOMEM;
	ptrs = malloc(n * (2 * sizeof(*ptrs) + size));
	if (!ptrs)
		return -ENOMEM;
	c.tmp = (char *)(ptrs + n);
	sorted = (char *)(ptrs + 2 * n);
	for (i = 0; i < n; i++)
		ptrs[i] = (const char *)base + i * size;
	msort_rec_indirect(&c, ptrs, n);
	for (i = 0; i < n; i++)
		memcpy(sorted + i * size, ptrs[i], size);
	memcpy(base, sorted, n * size);
	free(ptrs);
	return 0;
}

int msort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	struct msort_ctx c = { .size = size, .cmp = cmp };

	if (n <= 1)
		return 0;
	if (size > MSORT_INDIRECT)
		return msort_indirect(base, n, size, cmp);
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
