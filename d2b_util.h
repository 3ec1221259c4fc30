/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * d2b_util - the few helpers every module shares: diagnostics on stderr and
 * one overflow-checked growth helper for arrays.
 */
#ifndef D2B_UTIL_H
#define D2B_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define pr_warn(fmt, ...) fprintf(stderr, "dwarf2btf: " fmt, ##__VA_ARGS__)

/*
 * Make room for @need elements of @elem_sz bytes in *@arr whose capacity is
 * *@cap. Grows geometrically; *@arr and *@cap change only on success.
 * Returns 0 or -ENOMEM (also on size overflow).
 */
static inline int d2b_grow(void *arr, uint32_t *cap, uint64_t need, size_t elem_sz)
{
	void **p = arr;
	uint64_t new_cap;
	void *n;

	if (need <= *cap)
		return 0;
	new_cap = *cap ? (uint64_t)*cap * 2 : 16;
	while (new_cap < need)
		new_cap *= 2;
	if (new_cap > UINT32_MAX || new_cap > SIZE_MAX / elem_sz)
		return -ENOMEM;
	n = realloc(*p, new_cap * elem_sz);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = (uint32_t)new_cap;
	return 0;
}

#endif /* D2B_UTIL_H */
