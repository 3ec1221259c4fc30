/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dedup_cands - types filed by hash, each hash's walked newest first as
 * libbpf's hash map walks them (dedup_cands.c). Owned by one thread.
 */
#ifndef DEDUP_CANDS_H
#define DEDUP_CANDS_H

#include <stddef.h>
#include <stdint.h>

/* the types filed under one hash and group: a chain through cand_table.ents */
struct cand_key {
	uint64_t key;
	uint32_t group;
	uint32_t head; /* ents index + 1 of the newest (once normalized); 0: free slot */
	uint32_t grows; /* the table's growths the chain's order reflects */
};

struct cand_ent {
	uint32_t id;
	uint32_t next; /* ents index + 1; 0: the end */
};

struct cand_table {
	struct cand_key *keys; /* open addressing by key */
	struct cand_ent *ents;
	size_t nr_keys, nr_used; /* slots (a power of two), used slots */
	uint32_t nr_ents, cap_ents;
	size_t libbpf_sz, libbpf_cap; /* libbpf's hashmap: entries, buckets */
	uint32_t grows;
};

/* the chain of @key and @group, or NULL */
struct cand_key *cand_table__find(struct cand_table *t, uint64_t key, uint32_t group);
/* @k's chain put in libbpf's walking order, newest first from k->head */
void cand_table__normalize(struct cand_table *t, struct cand_key *k);
/* room for @n entries (and their keys) at once: 0 or -ENOMEM */
int cand_table__reserve(struct cand_table *t, uint32_t n);
/* file @id under @key and @group, as libbpf's hashmap__append: 0 or -ENOMEM */
int cand_table__add(struct cand_table *t, uint64_t key, uint32_t group, uint32_t id);
/*
 * @n entries counted as added to libbpf's hashmap, none of them filed yet:
 * each is filed later by cand_table__add_past, before its chain is used.
 */
void cand_table__count(struct cand_table *t, uint32_t n);
/* the growths libbpf's hashmap has had when its entry @i (from 0) is added */
uint32_t cand_table__grows_at(uint32_t i);
/*
 * file @id, the entry counted when the map had grown @grows times, under
 * @key and @group; the chain's earlier entries, in the order they were
 * counted, filed so already: 0 or -ENOMEM
 */
int cand_table__add_past(struct cand_table *t, uint64_t key, uint32_t group, uint32_t id,
			 uint32_t grows);
/* its memory freed; empty again */
void cand_table__free(struct cand_table *t);

#endif /* DEDUP_CANDS_H */
