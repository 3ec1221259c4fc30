// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_msort - msort() against the C library's qsort().
 *
 * pahole 1.30's output depends on the order glibc's qsort() leaves elements
 * in when the comparator is not a consistent order (its ELF function
 * table, compared by name or by name prefix). msort() repeats glibc's
 * merge sort so dwarf2btf does not depend on the C library it runs on.
 * Debian 12's glibc (2.36) sorts with that merge sort, so here the two
 * must leave every array in the same order, for element sizes sorted in
 * place and sizes sorted through pointers (over 32 bytes), with a total
 * order, with many equal keys (stability), and with a comparator that is
 * not an order at all. Each array is a pseudo-random one from a fixed
 * seed; a mismatch prints the case and fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../msort.h"

/* an element of any size: its key first, its original index next */
struct head {
	uint32_t key;
	uint32_t idx;
};

static int by_key(const void *a, const void *b)
{
	const struct head *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* not an order: equal when the keys are close, else by key (not transitive) */
static int by_key_near(const void *a, const void *b)
{
	const struct head *x = a, *y = b;
	uint32_t d = x->key > y->key ? x->key - y->key : y->key - x->key;

	return d < 3 ? 0 : x->key < y->key ? -1 : 1;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static int check(size_t n, size_t size, uint32_t key_range, int (*cmp)(const void *, const void *),
		 const char *cmp_name)
{
	char *a = malloc(n * size + 1), *b = malloc(n * size + 1);
	size_t i;
	int err, ret = 0;

	if (!a || !b) {
		fprintf(stderr, "test_msort: out of memory\n");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		struct head h = { next_rand() % key_range, (uint32_t)i };
		size_t k;

		memcpy(a + i * size, &h, sizeof(h));
		for (k = sizeof(h); k < size; k++)
			a[i * size + k] = (char)next_rand();
	}
	memcpy(b, a, n * size);
	err = msort(a, n, size, cmp);
	qsort(b, n, size, cmp);
	if (err || memcmp(a, b, n * size)) {
		fprintf(stderr, "test_msort: %zu elements of %zu bytes, keys < %u, %s: %s\n", n,
			size, key_range, cmp_name,
			err ? "msort failed" : "order differs from qsort");
		ret = 1;
	}
	free(a);
	free(b);
	return ret;
}

int main(void)
{
	static const size_t sizes[] = { 8, 16, 32, 40, 56, 100 };
	static const size_t counts[] = { 0, 1, 2, 3, 7, 64, 1000, 65537 };
	static const uint32_t ranges[] = { 4, 1000, 1u << 30 };
	int failed = 0, cases = 0;
	size_t s, c, r;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
			for (r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
				failed += check(counts[c], sizes[s], ranges[r], by_key, "by key");
				failed += check(counts[c], sizes[s], ranges[r], by_key_near,
						"by near key (no order)");
				cases += 2;
			}
	printf("test_msort: %d of %d cases as qsort\n", cases - failed, cases);
	return failed ? 1 : 0;
}
