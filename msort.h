/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * msort - a stable top-down merge sort that makes exactly the comparisons
 * glibc's qsort() makes (glibc 2.39 and later, and 2.36 and earlier, sort
 * with this merge sort). pahole 1.30 sorts with comparators that are not a
 * consistent order (its ELF function table) and relies on qsort's stability
 * (its saved functions); reproducing its output means reproducing glibc's
 * exact sequence of splits and merges, independent of the C library we run
 * on.
 */
#ifndef MSORT_H
#define MSORT_H

#include <stddef.h>

/* Returns 0 or -ENOMEM. */
int msort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* glibc's bsearch(): the same probe sequence, @cmp(key, element) */
void *msort_bsearch(const void *key, const void *base, size_t n, size_t size,
		    int (*cmp)(const void *, const void *));

#endif /* MSORT_H */
