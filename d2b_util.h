/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * d2b_util - the few helpers every module shares: diagnostics on stderr, one
 * overflow-checked growth helper for arrays, big buffers in huge pages, the
 * helper threads' nice, and a clock in seconds for -V.
 */
#ifndef D2B_UTIL_H
#define D2B_UTIL_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * Diagnostics go to stderr, or, on a thread that sets d2b_msgs (a memory
 * stream), into it, to be printed later or dropped: encode_pipeline's open
 * reads the ELF symbols on a thread of its own and reports as if it had
 * not.
 */
extern __thread FILE *d2b_msgs;
#define pr_warn(fmt, ...) fprintf(d2b_msgs ? d2b_msgs : stderr, "dwarf2btf: " fmt, ##__VA_ARGS__)

/*
 * 0 if @fd (opened from @path with O_NONBLOCK, so that a FIFO does not
 * block) is a regular file, which it then reads blocking; else one line
 * naming @path and what it is, and -EINVAL (or -errno)
 */
int d2b_regular_file(int fd, const char *path);

/* @size bytes at @buf to @fd, however many write() calls it takes; 0 or -errno */
int d2b_write_all(int fd, const void *buf, size_t size);

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
 * An anonymous mapping of at least @n bytes (*@sz: its size), for a buffer
 * written afresh again and again: from D2B_HUGE up it is D2B_HUGE-aligned
 * and asks for transparent huge pages (MADV_HUGEPAGE, which the kernel's
 * "madvise" setting waits for), so that its pages fault in 2 MiB at a time
 * rather than 4 KiB (a fault costs microseconds in a virtual machine:
 * Documentation/performance.md, "Tuning knobs"); where the kernel gives none,
 * or below D2B_HUGE, whole pages. NULL if mmap fails.
 */
#define D2B_HUGE (2ul << 20)

void *d2b_map(size_t n, size_t *sz);

/*
 * d2b_map for an array written once all over: from half of D2B_HUGE up,
 * a whole huge page at least (one fault, where 4 KiB pages take 256 or more)
 */
static inline void *d2b_map_array(size_t n, size_t *sz)
{
	return d2b_map(n >= D2B_HUGE / 2 && n < D2B_HUGE ? D2B_HUGE : n, sz);
}

/*
 * Make the calling thread @delta nicer (Linux: nice is per thread). Best
 * effort: a failure only changes the timing, so it is ignored.
 */
void d2b_thread_nicer(int delta);

/*
 * Objects kept for reuse by any thread, a stack under its own lock; each
 * object starts with its link (struct d2b_idle as its first member).
 */
struct d2b_idle {
	struct d2b_idle *next;
};

struct d2b_idle_pool {
	pthread_mutex_t lock;
	struct d2b_idle *top; /* lock */
};

/* an empty pool, or NULL: no memory */
struct d2b_idle_pool *d2b_idle_pool__new(void);
/* @p gone (NULL allowed); the objects still in it are the caller's to take and free first */
void d2b_idle_pool__free(struct d2b_idle_pool *p);
/* an idle object, or NULL if none */
void *d2b_idle_pool__take(struct d2b_idle_pool *p);
void d2b_idle_pool__put(struct d2b_idle_pool *p, void *obj);

/*
 * A hash of the @n bytes at @s, 32 bits, that reads two words of them
 * whatever @n: the first and the last eight bytes (shorter: four, or the
 * first, middle and last byte), mixed with @n. Strings that differ only
 * in bytes these do not cover collide (of a vmlinux's 119 K, 1 in 40 share
 * a hash with another); the tables it indexes compare the strings
 * themselves. Its value depends on the host's byte order, so it only
 * indexes tables in memory (btf_base, btf_raw), never anything written out.
 */
static inline uint32_t d2b_mem_hash(const char *s, size_t n)
{
	uint64_t a = 0, b = 0, h;
	uint32_t a4, b4;

	if (n >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(&a4, s, 4);
		memcpy(&b4, s + n - 4, 4);
		a = a4;
		b = b4;
	} else if (n) {
		a = (unsigned char)s[0] | (unsigned char)s[n / 2] << 8 |
		    (uint64_t)(unsigned char)s[n - 1] << 16;
	}
	h = (a ^ n * 0x9e3779b97f4a7c15ull) * 0xbf58476d1ce4e5b9ull;
	h ^= h >> 31;
	h = (h ^ b) * 0x94d049bb133111ebull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(h ^ (h >> 32));
}

/* d2b_mem_hash of the string @s (after strlen's vector scan); *@len: its length */
static inline uint32_t d2b_str_hash(const char *s, uint32_t *len)
{
	size_t n = strlen(s);

	*len = (uint32_t)n;
	return d2b_mem_hash(s, n);
}

/*
 * @n 32-bit words at @p byte-swapped in place. Every field of a BTF type
 * record, and of its header after the 16-bit magic, is such a word, so a
 * type section or a header changes byte order this way.
 */
static inline void d2b_bswap32_words(void *p, size_t n)
{
	uint32_t *w = p;
	size_t i;

	for (i = 0; i < n; i++)
		w[i] = __builtin_bswap32(w[i]);
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
