// SPDX-License-Identifier: GPL-2.0-only
/*
 * dedup_cands - btf_dedup's table of candidate types by hash, walked in the
 * order libbpf's hash map walks them.
 *
 * libbpf's hashmap puts a new entry at the head of its bucket's chain, and
 * growing the map (before the insertion that would fill it past three
 * quarters, from 4 buckets up, doubling) moves each chain's entries one by
 * one to the head of their new chain: the entries of one hash, always in
 * one bucket, are reversed by every growth. Here each hash has a chain of
 * its own, through one array of entries, and the table counts libbpf's
 * growths from the number of entries added; a chain is reversed, when next
 * used, if an odd number of growths passed since it was last. The same
 * order, without libbpf's allocation per entry.
 *
 * A chain is kept per hash and group (dedup_compare__group): types of
 * other groups that share the hash are never found alike, and the order
 * within a chain depends only on when its entries were added and on the
 * growths since. So entries can be counted first and filed later
 * (cand_table__count, cand_table__add_past): btf_dedup files a base
 * type's chain only when a type of its group looks for candidates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "d2b_util.h"
#include "dedup_cands.h"

static size_t slot_of(const struct cand_table *t, uint64_t key, uint32_t group)
{
	return (size_t)(((key ^ group) * 0x9e3779b97f4a7c15ull) >> 17) & (t->nr_keys - 1);
}

struct cand_key *cand_table__find(struct cand_table *t, uint64_t key, uint32_t group)
{
	size_t i;

	if (!t->nr_keys)
		return NULL;
	for (i = slot_of(t, key, group); t->keys[i].head; i = (i + 1) & (t->nr_keys - 1))
		if (t->keys[i].key == key && t->keys[i].group == group)
			return &t->keys[i];
	return NULL;
}

/* the keys moved to a table of @n slots (a power of two, more than now): 0 or -ENOMEM */
static int table_rehash(struct cand_table *t, size_t n)
{
	size_t old_n = t->nr_keys, i, j;
	struct cand_key *old = t->keys, *keys = calloc(n, sizeof(*keys));

	if (!keys)
		return -ENOMEM;
	t->keys = keys;
	t->nr_keys = n;
	for (i = 0; i < old_n; i++) {
		if (!old[i].head)
			continue;
		for (j = slot_of(t, old[i].key, old[i].group); keys[j].head; j = (j + 1) & (n - 1))
			;
		keys[j] = old[i];
	}
	free(old);
	return 0;
}

/* @k's chain in the order it had after @grows growths */
static void chain_normalize(struct cand_table *t, struct cand_key *k, uint32_t grows)
{
	uint32_t prev = 0, cur = k->head, next;

	if ((grows - k->grows) & 1) {
		while (cur) {
			next = t->ents[cur - 1].next;
			t->ents[cur - 1].next = prev;
			prev = cur;
			cur = next;
		}
		k->head = prev;
	}
	k->grows = grows;
}

void cand_table__normalize(struct cand_table *t, struct cand_key *k)
{
	chain_normalize(t, k, t->grows);
}

/* the slots for @n keys at most half full: a power of two, from 1024 */
static size_t slots_for(size_t n)
{
	size_t slots = 1024;

	while (slots < 2 * n)
		slots *= 2;
	return slots;
}

int cand_table__reserve(struct cand_table *t, uint32_t n)
{
	size_t slots = slots_for(n);

	if (slots > t->nr_keys && table_rehash(t, slots))
		return -ENOMEM;
	return d2b_grow(&t->ents, &t->cap_ents, n, sizeof(*t->ents)) ? -ENOMEM : 0;
}

int cand_table__add_past(struct cand_table *t, uint64_t key, uint32_t group, uint32_t id,
			 uint32_t grows)
{
	struct cand_key *k;
	size_t i;

	if (d2b_grow(&t->ents, &t->cap_ents, t->nr_ents + 1ull, sizeof(*t->ents)) ||
	    ((t->nr_used + 1) * 2 > t->nr_keys && table_rehash(t, slots_for(t->nr_used + 1))))
		return -ENOMEM;
	for (i = slot_of(t, key, group);
	     t->keys[i].head && (t->keys[i].key != key || t->keys[i].group != group);
	     i = (i + 1) & (t->nr_keys - 1))
		;
	k = &t->keys[i];
	if (!k->head) {
		k->key = key;
		k->group = group;
		k->grows = grows;
		t->nr_used++;
	}
	chain_normalize(t, k, grows);
	t->ents[t->nr_ents] = (struct cand_ent){ id, k->head };
	k->head = ++t->nr_ents;
	return 0;
}

/* libbpf's hashmap: one more entry, its buckets doubled first where it would be too full */
static void libbpf_count(struct cand_table *t)
{
	if (!t->libbpf_cap || (t->libbpf_sz + 1) * 4 / 3 > t->libbpf_cap) {
		t->libbpf_cap = t->libbpf_cap ? t->libbpf_cap * 2 : 4;
		t->grows++;
	}
	t->libbpf_sz++;
}

int cand_table__add(struct cand_table *t, uint64_t key, uint32_t group, uint32_t id)
{
	libbpf_count(t);
	return cand_table__add_past(t, key, group, id, t->grows);
}

void cand_table__count(struct cand_table *t, uint32_t n)
{
	while (n--)
		libbpf_count(t);
}

uint32_t cand_table__grows_at(uint32_t i)
{
	/* buckets: the least 4 * 2^n that (i + 1) * 4 / 3 fits, after 1 + n growths */
	uint64_t need = ((uint64_t)i + 1) * 4 / 3;

	return need <= 4 ? 1 : (uint32_t)(64 - __builtin_clzll(need - 1)) - 1;
}

void cand_table__free(struct cand_table *t)
{
	free(t->keys);
	free(t->ents);
	memset(t, 0, sizeof(*t));
}
