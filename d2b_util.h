/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * d2b_util - the few helpers every module shares: diagnostics on stderr, one
 * overflow-checked growth helper for arrays, the helper threads' nice, and a
 * clock in seconds for -V.
 */
#ifndef D2B_UTIL_H
#define D2B_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * Diagnostics go to stderr, or, on a thread that sets d2b_msgs (a memory
 * stream), into it, to be printed later or dropped: encode_pipeline's open
 * reads the ELF symbols on a thread of its own and reports as if it had
 * not. Defined in encode_pipeline.c.
 */
extern __thread FILE *d2b_msgs;
#define pr_warn(fmt, ...) fprintf(d2b_msgs ? d2b_msgs : stderr, "dwarf2btf: " fmt, ##__VA_ARGS__)

/*
 * Make room for exactly @n elements of @elem_sz bytes in *@arr whose
 * capacity is *@cap, if it has less. *@arr and *@cap change only on
 * success. Returns 0 or -ENOMEM (also on size overflow).
 */
static inline int d2b_reserve(void *arr, uint32_t *cap, uint64_t n, size_t elem_sz)
{
	void **p = arr;
	void *grown;

	if (n <= *cap)
		return 0;
	if (n > UINT32_MAX || n > SIZE_MAX / elem_sz)
		return -ENOMEM;
	grown = realloc(*p, n * elem_sz);
	if (!grown)
		return -ENOMEM;
	*p = grown;
	*cap = (uint32_t)n;
	return 0;
}

/* d2b_reserve for @need elements, growing geometrically */
static inline int d2b_grow(void *arr, uint32_t *cap, uint64_t need, size_t elem_sz)
{
	uint64_t new_cap;

	if (need <= *cap)
		return 0;
	new_cap = *cap ? (uint64_t)*cap * 2 : 16;
	while (new_cap < need)
		new_cap *= 2;
	return d2b_reserve(arr, cap, new_cap, elem_sz);
}

/*
 * The collector (the main thread) and the encoder's writer are the threads
 * the run waits for; the loaders and the batch dedups only have to keep
 * ahead of them. So they run D2B_HELPER_NICE nicer: where the CPUs are busy
 * (-j above the number of CPUs, or other jobs of a parallel build), the
 * collector and the writer run first and the helpers take the rest.
 * Chosen by measurement (bench/tune.sh; Documentation/performance.md,
 * "Helper threads").
 */
#ifndef D2B_HELPER_NICE
#define D2B_HELPER_NICE 5
#endif

/*
 * Make the calling thread @delta nicer (Linux: nice is per thread). Best
 * effort: a failure only changes the timing, so it is ignored.
 */
static inline void d2b_thread_nicer(int delta)
{
	id_t tid = (id_t)syscall(SYS_gettid);
	int nice;

	if (delta <= 0)
		return;
	errno = 0;
	nice = getpriority(PRIO_PROCESS, tid);
	if (nice == -1 && errno)
		return;
	nice = nice + delta > 19 ? 19 : nice + delta;
	(void)setpriority(PRIO_PROCESS, tid, nice);
}

/* @clock (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, ...) in seconds; 0 if unreadable */
static inline double d2b_clock_s(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif /* D2B_UTIL_H */
