/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dedup_cands - types filed by hash, each hash's walked newest first as
 * libbpf's hash map walks them (dedup_cands.c). Owned by one thread.
 */
#ifndef DEDUP_CANDS_H
#define DEDUP_CANDS_H

#include <stddef.h>
#include <stdint.h>

/* the types filed under one hash: a chain through cand_table.ents */
struct cand_key {
	uint64_t key;
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

/* @key's chain, or NULL */
struct cand_key *cand_table__find(struct cand_table *t, uint64_t key);
/* @k's chain put in libbpf's walking order, newest first from k->head */
void cand_table__normalize(struct cand_table *t, struct cand_key *k);
/* room for @n entries (and their keys) at once: 0 or -ENOMEM */
int cand_table__reserve(struct cand_table *t, uint32_t n);
/* file @id under @key, as libbpf's hashmap__append: 0 or -ENOMEM */
int cand_table__add(struct cand_table *t, uint64_t key, uint32_t id);
/* its memory freed; empty again */
void cand_table__free(struct cand_table *t);

#endif /* DEDUP_CANDS_H */
