// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_dedup_cands - dedup_cands' candidate order against a model of
 * libbpf's hashmap.
 *
 * The model is libbpf's multimap as btf__dedup uses it: hashmap__append
 * puts an entry at the head of its bucket's chain, after doubling the
 * buckets (from 4) where the entry would fill them past three quarters,
 * which moves every entry, bucket by bucket and each chain from its head,
 * to the head of its new bucket; a look-up walks the key's bucket from
 * its head. Entries are pseudo-random (fixed seed): keys from a small set,
 * so chains are long, and a group per entry. The first entries are the
 * "base": one table files them at once (cand_table__add), the other counts
 * them (cand_table__count) and files each group's only when the group is
 * first used (cand_table__add_past, with cand_table__grows_at), as
 * btf_dedup does. Then both add the rest, looking up between adds. Every
 * look-up of a key and group must walk both tables in the model's order,
 * restricted to the group. A mismatch prints the case and fails.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dedup_cands.h"

struct ent {
	uint64_t key;
	uint32_t group, id;
	struct ent *next;
};

/* libbpf's hashmap, as btf_dedup uses it */
struct model {
	struct ent **buckets;
	size_t cap, sz;
	int bits;
};

static size_t hash_bits(uint64_t h, int bits)
{
	return bits ? (size_t)((h * 11400714819323198485llu) >> (64 - bits)) : 0;
}

static void model_append(struct model *m, struct ent *e)
{
	size_t h, i;

	if (!m->cap || (m->sz + 1) * 4 / 3 > m->cap) {
		int bits = m->bits < 2 ? 2 : m->bits + 1;
		size_t cap = (size_t)1 << bits;
		struct ent **nb = calloc(cap, sizeof(*nb)), *cur, *next;

		if (!nb)
			exit(2);
		for (i = 0; i < m->cap; i++)
			for (cur = m->buckets[i]; cur; cur = next) {
				next = cur->next;
				h = hash_bits(cur->key, bits);
				cur->next = nb[h];
				nb[h] = cur;
			}
		free(m->buckets);
		m->buckets = nb;
		m->cap = cap;
		m->bits = bits;
	}
	h = hash_bits(e->key, m->bits);
	e->next = m->buckets[h];
	m->buckets[h] = e;
	m->sz++;
}

#define NR_BASE 3000
#define NR_ALL 9000
#define NR_KEYS 40
#define NR_GROUPS 3

static struct ent ents[NR_ALL];
static int failures;

/* the ids of @key and @group in @t's order, into @ids: their number */
static int table_walk(struct cand_table *t, uint64_t key, uint32_t group, uint32_t *ids)
{
	struct cand_key *k = cand_table__find(t, key, group);
	uint32_t e;
	int n = 0;

	if (!k)
		return 0;
	cand_table__normalize(t, k);
	for (e = k->head; e; e = t->ents[e - 1].next)
		ids[n++] = t->ents[e - 1].id;
	return n;
}

static void check(struct model *m, struct cand_table *eager, struct cand_table *lazy, uint64_t key,
		  uint32_t group, int step)
{
	static uint32_t want[NR_ALL], a[NR_ALL], b[NR_ALL];
	int n = 0, na, nb;
	struct ent *e;

	for (e = m->cap ? m->buckets[hash_bits(key, m->bits)] : NULL; e; e = e->next)
		if (e->key == key && e->group == group)
			want[n++] = e->id;
	na = table_walk(eager, key, group, a);
	nb = table_walk(lazy, key, group, b);
	if (na != n || nb != n || memcmp(a, want, n * sizeof(*a)) ||
	    memcmp(b, want, n * sizeof(*b))) {
		fprintf(stderr,
			"step %d key %llu group %u: %d in libbpf's order, %d filed at once, %d filed later\n",
			step, (unsigned long long)key, group, n, na, nb);
		failures++;
	}
}

int main(void)
{
	struct cand_table eager = { 0 }, lazy = { 0 };
	bool filed[NR_GROUPS] = { 0 };
	struct model m = { 0 };
	uint32_t i, j, g;

	srand(46);
	for (i = 0; i < NR_ALL; i++)
		ents[i] = (struct ent){ (uint64_t)(rand() % NR_KEYS) * 0x100000001b3ull,
					(uint32_t)(rand() % NR_GROUPS), i + 1, NULL };
	for (i = 0; i < NR_ALL; i++) {
		g = ents[i].group;
		if (i >= NR_BASE && !filed[g]) { /* a group's base entries, before its first use */
			filed[g] = true;
			for (j = 0; j < NR_BASE; j++)
				if (ents[j].group == g &&
				    cand_table__add_past(&lazy, ents[j].key, g, ents[j].id,
							 cand_table__grows_at(j)))
					return 2;
		}
		if (i >= NR_BASE)
			check(&m, &eager, &lazy, ents[i].key, g, (int)i);
		model_append(&m, &ents[i]);
		if (cand_table__add(&eager, ents[i].key, g, ents[i].id) ||
		    (i >= NR_BASE && cand_table__add(&lazy, ents[i].key, g, ents[i].id)))
			return 2;
		if (i + 1 == NR_BASE)
			cand_table__count(&lazy, NR_BASE);
		/* (libbpf's growths, counted from the entries) */
		if (eager.grows != cand_table__grows_at(i)) {
			fprintf(stderr, "entry %u: %u growths, counted %u\n", i, eager.grows,
				cand_table__grows_at(i));
			failures++;
		}
	}
	for (g = 0; g < NR_GROUPS; g++)
		for (j = 0; filed[g] && j < NR_KEYS; j++)
			check(&m, &eager, &lazy, (uint64_t)j * 0x100000001b3ull, g, NR_ALL);
	if (lazy.grows != eager.grows) {
		fprintf(stderr, "%u growths filed later, %u at once\n", lazy.grows, eager.grows);
		failures++;
	}
	cand_table__free(&eager);
	cand_table__free(&lazy);
	free(m.buckets);
	if (failures)
		return 1;
	printf("dedup_cands: %d entries, %d of them counted first, in libbpf's order\n", NR_ALL,
	       NR_BASE);
	return 0;
}
