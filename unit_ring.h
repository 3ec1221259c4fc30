/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit_ring - memory for the loaded units, one ring that every loader
 * thread shares.
 *
 * A unit is allocated by the worker that loaded it, waits in the emit
 * window, and is freed by the encoder's writer once written: units are
 * allocated about in unit order and freed in unit order. From malloc, each
 * loader thread's arena kept its own high-water mark of the units it
 * loaded, so memory grew with the number of loaders, not with the window
 * (Documentation/performance.md, "Memory per thread"). Here the units
 * follow one another in one mapping, the space of the oldest is used again
 * once it and every unit before it are freed, and what the ring holds is
 * bounded by its size, chosen for the window. A block that does not fit
 * is not the ring's: unit_ring__alloc returns NULL and the caller takes it
 * from malloc.
 *
 * Any thread may allocate and release; one mutex covers the ring's state
 * (a few hundred nanoseconds per unit). A block's contents are its
 * owner's.
 */
#ifndef UNIT_RING_H
#define UNIT_RING_H

#include <stdbool.h>
#include <stddef.h>

struct unit_ring;

/* a ring of at least @size bytes; NULL: no memory */
struct unit_ring *unit_ring__new(size_t size);
/* every block must have been released */
void unit_ring__free(struct unit_ring *ur);

/* @n bytes, 16-byte aligned; NULL when they do not fit now */
void *unit_ring__alloc(struct unit_ring *ur, size_t n);
/* is @p a block of @ur? (the unit test checks its blocks with it) */
bool unit_ring__owns(const struct unit_ring *ur, const void *p);
/* give back block @p (of @ur) */
void unit_ring__release(struct unit_ring *ur, void *p);

#endif /* UNIT_RING_H */
