// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_encoder_names - the encoder's names. Interning a name means hashing it
 * and comparing it with the names in its bucket (btf_raw__add_str), so the
 * encoder keeps the string offsets itself (enc__str), in two caches of its
 * own (names__intern, into the BTF of a struct name_sink):
 *  - by address, for names in .debug_str, read-only while we run, where
 *    equal strings have one address: the linker merged them in a linked
 *    file, and the loader made a module's references one per string
 *    (str_canon.h);
 *  - by content, for names of 1 to 7 bytes, which compilers put inline in
 *    .debug_info (DW_FORM_string) rather than in .debug_str.
 * Other names are rare and are interned every time. A name is interned
 * before the type that has it is added, as libbpf's btf__add_* did, so the
 * string section holds the names in pahole's order.
 *
 * Both caches are open-addressing tables of (key, offset) pairs, at most
 * half full, probed linearly. A pair of them (struct name_caches) belongs
 * to the BTF whose offsets it holds, and to the one thread that fills that
 * BTF: the writer's for one BTF (enc__str), a batch's own on the batch's
 * thread (btf_encoder_batch.c), which names a batch's records there, and
 * gives them back to a pool for the next batch, where their tables stay
 * as they grew (some 10^5 slots), cleared, rather than growing from
 * nothing in every batch (name_pool__take).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "btf_encoder_priv.h"
#include "btf_encoder_single.h"
#include "btf_raw.h"
#include "d2b_util.h"

void btf_encoder__set_str_section(struct btf_encoder *enc, const char *data, size_t size)
{
	enc->str_lo = data;
	enc->str_hi = data ? data + size : NULL;
}

static uint32_t addr_hash(const struct addr_cache *c, const void *key)
{
	/* Fibonacci hashing: neighbouring addresses land far apart (hashing by
	 * position made long probe runs of neighbouring names) */
	uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 40) & (c->cap - 1);
}

/* @key's slot: its entry, or the free slot it would take; c->cap > 0 */
static struct addr_slot *addr_cache_slot(const struct addr_cache *c, const void *key)
{
	uint32_t h;

	for (h = addr_hash(c, key); c->slots[h].key && c->slots[h].key != key;
	     h = (h + 1) & (c->cap - 1))
		;
	return &c->slots[h];
}

/* @key's value, or NULL if it has none */
static const uintptr_t *addr_cache_find(const struct addr_cache *c, const void *key)
{
	const struct addr_slot *slot;

	if (!c->cap)
		return NULL;
	slot = addr_cache_slot(c, key);
	return slot->key ? &slot->val : NULL;
}

static void addr_cache_clear(struct addr_cache *c)
{
	if (c->cap)
		memset(c->slots, 0, c->cap * sizeof(*c->slots));
	c->nr = 0;
}

/* start loading @key's slot: look-ups are cache misses, several overlap */
static void addr_cache_prefetch(const struct addr_cache *c, const void *key)
{
	if (c->cap)
		__builtin_prefetch(&c->slots[addr_hash(c, key)]);
}

/* add @key, which has no value yet */
static int addr_cache_add(struct addr_cache *c, const void *key, uintptr_t val)
{
	if ((c->nr + 1) * 2 > c->cap) {
		struct addr_cache n = { .cap = c->cap ? c->cap * 2 : 1 << 12 };
		uint32_t i;

		n.slots = calloc(n.cap, sizeof(*n.slots));
		if (!n.slots)
			return -ENOMEM;
		for (i = 0; i < c->cap; i++)
			if (c->slots[i].key)
				*addr_cache_slot(&n, c->slots[i].key) = c->slots[i];
		free(c->slots);
		c->slots = n.slots;
		c->cap = n.cap;
	}
	*addr_cache_slot(c, key) = (struct addr_slot){ key, val };
	c->nr++;
	return 0;
}

/* start loading @s's cache slot, ahead of its names__intern */
void names__prefetch(const struct name_sink *to, const char *s)
{
	if (names__in_section(to->lo, to->hi, s))
		addr_cache_prefetch(&to->nc->strs, s);
}

/* @s as a cache key if it has 1-7 bytes (its bytes, NUL-padded), else 0 */
static uintptr_t short_key(const char *s)
{
	uintptr_t key = 0;
	unsigned int i;

	for (i = 0; i < sizeof(key); i++) {
		if (!s[i])
			return key;
		key |= (uintptr_t)(unsigned char)s[i] << (8 * i);
	}
	return 0;
}

/* the BTF string offset of @s in to->raw (0 for no name), adding it if new; or -errno */
int names__intern(const struct name_sink *to, const char *s)
{
	struct addr_cache *c = &to->nc->strs;
	const uintptr_t *cached;
	const void *key = s;
	int off;

	/* (a cached name is not read: "" has offset 0 like no name) */
	if (!names__in_section(to->lo, to->hi, s)) {
		if (!s || !*s)
			return 0;
		key = (const void *)short_key(s);
		if (!key)
			return btf_raw__add_str(to->raw, s);
		c = &to->nc->short_strs;
	}
	cached = addr_cache_find(c, key);
	if (cached)
		return (int)*cached;
	off = *s ? btf_raw__add_str(to->raw, s) : 0;
	if (off < 0)
		return off;
	if (addr_cache_add(c, key, (uintptr_t)off))
		return -ENOMEM;
	return off;
}

/* the writer's own: its BTF, its caches */
int enc__str(struct btf_encoder *enc, const char *s)
{
	struct name_sink to = { enc->raw, &enc->names, enc->str_lo, enc->str_hi };

	return names__intern(&to, s);
}

/* the cached names forgotten */
void name_caches__clear(struct name_caches *nc)
{
	addr_cache_clear(&nc->strs);
	addr_cache_clear(&nc->short_strs);
}

/* ... and their memory given back */
void name_caches__free(struct name_caches *nc)
{
	free(nc->strs.slots);
	free(nc->short_strs.slots);
	nc->strs = nc->short_strs = (struct addr_cache){ 0 };
}

/*
 * Caches kept for the next batch's thread: their tables stay as they grew
 * (a batch's names fill some 10^5 slots), cleared, instead of growing from
 * nothing in every batch.
 */
void name_pool__free(struct d2b_idle_pool *pool)
{
	struct name_caches *nc;

	if (!pool)
		return;
	while ((nc = d2b_idle_pool__take(pool))) {
		name_caches__free(nc);
		free(nc);
	}
	d2b_idle_pool__free(pool);
}

struct name_caches *name_pool__take(struct d2b_idle_pool *pool)
{
	struct name_caches *nc = d2b_idle_pool__take(pool);

	if (!nc)
		return calloc(1, sizeof(*nc));
	name_caches__clear(nc);
	return nc;
}

void name_pool__put(struct d2b_idle_pool *pool, struct name_caches *nc)
{
	d2b_idle_pool__put(pool, nc);
}
