// SPDX-License-Identifier: GPL-2.0-only
/*
 * str_canon - one offset per distinct string of a relocatable file's
 * .debug_str; see str_canon.h.
 *
 * An open-addressing table of offsets, keyed by the contents of the string
 * at each: a slot is the string's offset and a check made of its hash, so
 * most probes that miss compare no bytes. A hit is always confirmed by
 * comparing the strings, so a hash collision costs time, never a wrong
 * offset. The table holds the distinct strings only (23.7 K for
 * mlx5_core.ko's 969 K references), so it stays in the cache.
 */
#include <stdlib.h>
#include <string.h>

#include "str_canon.h"

struct canon_slot {
	uint32_t check; /* the hash's low half, made odd; 0: free */
	uint32_t off;
};

struct str_canon {
	const char *data;
	size_t size;
	struct canon_slot *slots;
	uint32_t cap, nr; /* cap: a power of two, at most 1/2 full */
};

struct str_canon *str_canon__new(const char *data, size_t size)
{
	struct str_canon *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	sc->data = data;
	sc->size = size;
	sc->cap = 1u << 12;
	sc->slots = calloc(sc->cap, sizeof(*sc->slots));
	if (!sc->slots) {
		free(sc);
		return NULL;
	}
	return sc;
}

void str_canon__free(struct str_canon *sc)
{
	if (!sc)
		return;
	free(sc->slots);
	free(sc);
}

/* @n bytes at @s, 8 at a time (@end: the section's, how far a load may read) */
static uint64_t str_hash(const char *s, size_t n, const char *end)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n, w;
	size_t i;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	/* the last 0-7 bytes: one load where 8 can be read, the rest masked off */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && end - s >= 8) {
		memcpy(&w, s, 8);
		w &= n ? ~0ull >> (64 - 8 * n) : 0;
	} else {
		for (w = 0, i = 0; i < n; i++)
			w |= (uint64_t)(unsigned char)s[i] << (8 * i);
	}
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ h >> 32;
}

/* the first free slot of @slots (@cap of them) from the one @hash places */
static uint32_t free_slot(const struct canon_slot *slots, uint32_t cap, uint64_t hash)
{
	uint32_t h;

	for (h = (uint32_t)(hash >> 32) & (cap - 1); slots[h].check; h = (h + 1) & (cap - 1))
		;
	return h;
}

static int table_grow(struct str_canon *sc)
{
	uint32_t cap = sc->cap * 2, i;
	struct canon_slot *slots;

	if (cap > UINT32_MAX / 4)
		return -1;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (i = 0; i < sc->cap; i++) {
		const char *s = sc->data + sc->slots[i].off;

		if (!sc->slots[i].check)
			continue;
		slots[free_slot(slots, cap, str_hash(s, strlen(s), sc->data + sc->size))] =
			sc->slots[i];
	}
	free(sc->slots);
	sc->slots = slots;
	sc->cap = cap;
	return 0;
}

uint64_t str_canon__offset(struct str_canon *sc, uint64_t off)
{
	const char *s, *end;
	uint64_t hash;
	uint32_t h, check;
	size_t n;

	if (off >= sc->size || off > UINT32_MAX)
		return off;
	s = sc->data + off;
	end = memchr(s, 0, sc->size - off);
	if (!end)
		return off;
	n = (size_t)(end - s);
	hash = str_hash(s, n, sc->data + sc->size);
	check = (uint32_t)hash | 1;
	for (h = (uint32_t)(hash >> 32) & (sc->cap - 1);; h = (h + 1) & (sc->cap - 1)) {
		const struct canon_slot *c = &sc->slots[h];

		if (!c->check)
			break;
		if (c->check == check && !strcmp(sc->data + c->off, s))
			return c->off;
	}
	/* new: at most half full, so that misses end soon */
	if (sc->nr + 1 > sc->cap / 2) {
		if (table_grow(sc))
			return off;
		h = free_slot(sc->slots, sc->cap, hash);
	}
	sc->slots[h] = (struct canon_slot){ check, (uint32_t)off };
	sc->nr++;
	return off;
}
