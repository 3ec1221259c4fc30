// SPDX-License-Identifier: GPL-2.0-only
/*
 * What dwarf_loader builds a unit in, all of it the worker's struct
 * cu_loader's and kept from one unit to the next: the map from DIE keys to
 * type table indexes, the vectors a scope's items are collected in, and the
 * type table's appends. A type entry is appended when its DIE is done,
 * after the types nested in it (pahole's order); a DIE's key maps to its
 * entry, so that references, stored as keys while walking, can be resolved
 * to indexes at the end (cu_resolve.c).
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf_loader_priv.h"

struct map_slot {
	uint32_t key, val; /* key 0: free */
};

static uint32_t map_hash(uint32_t key, uint32_t cap)
{
	return (key * 2654435761u) & (cap - 1);
}

static int map_grow(struct cu_loader *l)
{
	uint32_t ncap = l->map.cap ? l->map.cap * 2 : 1024, i, h;
	struct map_slot *nm = calloc(ncap, sizeof(*nm));
	uint32_t *nu = malloc(ncap / 2 * sizeof(*nu));

	if (!nm || !nu) {
		free(nm);
		free(nu);
		return -ENOMEM;
	}
	for (i = 0; i < l->map.nr; i++) {
		struct map_slot e = l->map.slots[l->map.used[i]];

		for (h = map_hash(e.key, ncap); nm[h].key; h = (h + 1) & (ncap - 1))
			;
		nm[h] = e;
		nu[i] = h;
	}
	free(l->map.slots);
	free(l->map.used);
	l->map.slots = nm;
	l->map.used = nu;
	l->map.cap = ncap;
	return 0;
}

int map__add(struct cu_loader *l, uint32_t key, uint32_t val)
{
	uint32_t h;

	if ((l->map.nr + 1) * 2 > l->map.cap && map_grow(l))
		return -ENOMEM;
	for (h = map_hash(key, l->map.cap); l->map.slots[h].key; h = (h + 1) & (l->map.cap - 1))
		if (l->map.slots[h].key == key)
			break;
	if (!l->map.slots[h].key)
		l->map.used[l->map.nr++] = h;
	l->map.slots[h] = (struct map_slot){ key, val };
	return 0;
}

uint32_t map__find(const struct cu_loader *l, uint32_t key)
{
	uint32_t h;

	if (!key || !l->map.cap)
		return 0;
	for (h = map_hash(key, l->map.cap); l->map.slots[h].key; h = (h + 1) & (l->map.cap - 1))
		if (l->map.slots[h].key == key)
			return l->map.slots[h].val;
	return 0;
}

/* empty the table for the next unit */
void map__clear(struct cu_loader *l)
{
	uint32_t i;

	for (i = 0; i < l->map.nr; i++)
		l->map.slots[l->map.used[i]].key = 0;
	l->map.nr = 0;
}

/* append @v to *@arr (capacity *@cap, length *@nr); *@first = where it went */
int vec__flush(struct vec *v, void *arr, uint32_t *cap, uint32_t *nr, size_t sz, uint32_t *first)
{
	void **a = arr;

	*first = *nr;
	if (v->nr) {
		if (d2b_grow(a, cap, (uint64_t)*nr + v->nr, sz))
			return -ENOMEM;
		memcpy((char *)*a + (size_t)*nr * sz, v->data, (size_t)v->nr * sz);
		*nr += v->nr;
	}
	v->nr = 0;
	return 0;
}

/*
 * An empty vector from the loader's stack, or NULL (ENOMEM). Vectors are
 * given back in reverse order of taking: l->nr_vecs = (its value before).
 */
struct vec *vec__take(struct cu_loader *l)
{
	uint32_t cap = l->cap_vecs;
	struct vec *v;

	if (d2b_grow(&l->vecs, &l->cap_vecs, (uint64_t)l->nr_vecs + 1, sizeof(*l->vecs)))
		return NULL;
	if (l->cap_vecs > cap) /* new slots hold no vector yet */
		memset(&l->vecs[cap], 0, (l->cap_vecs - cap) * sizeof(*l->vecs));
	v = l->vecs[l->nr_vecs];
	if (!v) {
		v = calloc(1, sizeof(*v));
		if (!v)
			return NULL;
		l->vecs[l->nr_vecs] = v;
	}
	l->nr_vecs++;
	v->nr = 0;
	return v;
}

/* append @t to the types, where no DIE reference leads (its index, 0 on ENOMEM) */
uint32_t type__add_unnamed(struct cu_loader *l, uint64_t die_off, struct cu_type *t)
{
	struct cu *cu = l->cu;
	uint32_t idx = cu->nr_types;

	if (d2b_grow(&cu->types, &l->cap_types, idx + 1, sizeof(*cu->types)))
		return 0;
	t->die_off = die_off;
	cu->types[idx] = *t;
	cu->nr_types++;
	return idx;
}

/* append @t, which the DIE at @die_off names (its index, 0 on ENOMEM) */
uint32_t type__add(struct cu_loader *l, uint64_t die_off, struct cu_type *t)
{
	uint32_t idx = type__add_unnamed(l, die_off, t);

	if (idx && map__add(l, die_key(l, die_off), idx)) {
		l->cu->nr_types--;
		return 0;
	}
	return idx;
}
