// SPDX-License-Identifier: GPL-2.0-only
/*
 * unit_ring - the loaded units' memory, one ring (unit_ring.h has the why).
 *
 * Layout: blocks follow one another from .head, the oldest not yet given
 * back, to .tail, where the next one goes, wrapping at .cap; .used counts
 * the bytes between them, so head == tail is empty when used is 0 and full
 * when it is cap. Each block starts with a header: its size (header
 * included, a multiple of RING_ALIGN) and whether it is still out. A block
 * that does not fit before the end of the ring starts again at offset 0,
 * and the end left over becomes a block that is not out (a pad). Releasing
 * a block marks it; then head moves past every block at head that is not
 * out, so the space of a block released early comes back once the blocks
 * before it are released too. Empty, the ring starts again at 0, where its
 * pages are warm.
 *
 * The ring is a d2b_map() mapping: huge pages where the kernel gives them,
 * faulted in once and then used again and again. Under AddressSanitizer
 * everything but the blocks out is poisoned, headers included (unpoisoned
 * only while the lock holder reads or writes one), so that a unit read or
 * written past either end is reported as a malloc'ed one would be.
 *
 * Locking: .lock covers head, tail, used and the headers; a block's bytes
 * belong to whoever holds it.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define RING_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RING_ASAN 1
#endif
#endif
#ifdef RING_ASAN
#include <sanitizer/asan_interface.h>
#define RING_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define RING_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define RING_POISON(p, n) ((void)(p), (void)(n))
#define RING_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#include "d2b_util.h"
#include "unit_ring.h"

#define RING_ALIGN 16

struct ring_hdr {
	uint64_t size; /* bytes, this header included */
	uint64_t out; /* 1 until released; 0 for a pad */
};

struct unit_ring {
	char *base;
	size_t cap;
	pthread_mutex_t lock;
	size_t head, tail, used; /* under .lock */
};

struct unit_ring *unit_ring__new(size_t size)
{
	struct unit_ring *ur = calloc(1, sizeof(*ur));

	if (!ur)
		return NULL;
	ur->base = d2b_map(size, &ur->cap);
	if (!ur->base) {
		free(ur);
		return NULL;
	}
	RING_POISON(ur->base, ur->cap);
	pthread_mutex_init(&ur->lock, NULL);
	return ur;
}

void unit_ring__free(struct unit_ring *ur)
{
	if (!ur)
		return;
	RING_UNPOISON(ur->base, ur->cap);
	munmap(ur->base, ur->cap);
	pthread_mutex_destroy(&ur->lock);
	free(ur);
}

/* write the header at offset @at (ur->lock held) */
static void hdr_put(struct unit_ring *ur, size_t at, uint64_t size, uint64_t out)
{
	struct ring_hdr *h = (struct ring_hdr *)(ur->base + at);

	RING_UNPOISON(h, sizeof(*h));
	*h = (struct ring_hdr){ size, out };
	RING_POISON(h, sizeof(*h));
}

/* read the header at offset @at (ur->lock held) */
static struct ring_hdr hdr_get(const struct unit_ring *ur, size_t at)
{
	const struct ring_hdr *h = (const struct ring_hdr *)(ur->base + at);
	struct ring_hdr v;

	RING_UNPOISON(h, sizeof(*h));
	v = *h;
	RING_POISON(h, sizeof(*h));
	return v;
}

void *unit_ring__alloc(struct unit_ring *ur, size_t n)
{
	size_t need, at, pad = 0;
	void *p = NULL;

	if (n > ur->cap)
		return NULL;
	need = (sizeof(struct ring_hdr) + n + RING_ALIGN - 1) & ~(size_t)(RING_ALIGN - 1);
	pthread_mutex_lock(&ur->lock);
	if (ur->used == ur->cap)
		goto out;
	if (ur->tail >= ur->head) {
		/* free: [tail, cap) and [0, head) */
		if (ur->cap - ur->tail >= need) {
			at = ur->tail;
		} else if (ur->head >= need) {
			pad = ur->cap - ur->tail;
			hdr_put(ur, ur->tail, pad, 0);
			at = 0;
		} else {
			goto out;
		}
	} else if (ur->head - ur->tail >= need) {
		at = ur->tail;
	} else {
		goto out;
	}
	hdr_put(ur, at, need, 1);
	ur->tail = at + need == ur->cap ? 0 : at + need;
	ur->used += pad + need;
	p = ur->base + at + sizeof(struct ring_hdr);
	RING_UNPOISON(p, n);
out:
	pthread_mutex_unlock(&ur->lock);
	return p;
}

/* (by its header: a block of 0 bytes can start at the ring's very end) */
bool unit_ring__owns(const struct unit_ring *ur, const void *p)
{
	uintptr_t h = (uintptr_t)p - sizeof(struct ring_hdr);

	return ur && h >= (uintptr_t)ur->base && h < (uintptr_t)ur->base + ur->cap;
}

void unit_ring__release(struct unit_ring *ur, void *p)
{
	size_t at = (size_t)((char *)p - ur->base) - sizeof(struct ring_hdr);
	struct ring_hdr h;

	pthread_mutex_lock(&ur->lock);
	h = hdr_get(ur, at);
	RING_POISON(p, h.size - sizeof(h));
	hdr_put(ur, at, h.size, 0);
	while (ur->used) {
		h = hdr_get(ur, ur->head);
		if (h.out)
			break;
		ur->used -= h.size;
		ur->head += h.size;
		if (ur->head == ur->cap)
			ur->head = 0;
	}
	if (!ur->used) /* (empty: start again at 0, where the pages are warm) */
		ur->head = ur->tail = 0;
	pthread_mutex_unlock(&ur->lock);
}
