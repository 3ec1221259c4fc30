/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_dedup_priv - what btf_dedup.c and dedup_equiv.c share: one dedup's
 * state, and the maps it keeps by type id.
 *
 * map[id]: UNPROCESSED, IN_PROGRESS (a reference type on the depth-first
 * walk) or the id @id was mapped to, which is itself mapped on until a
 * canonical type maps to itself (resolve_id). hypot_map and hypot_list:
 * the pairings of the is_equiv walk under way (dedup_equiv.c), each held
 * complemented (hypot_of, hypot_set), so that the zeroed arena starts with
 * every id UNPROCESSED; after the last phase the same array, as id_map,
 * holds the compacted id of each canonical type.
 */
#ifndef BTF_DEDUP_PRIV_H
#define BTF_DEDUP_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <bpf/btf.h>

#include "dedup_cands.h"

struct btf_type;
struct dedup_fail;

#define MAX_NR_TYPES 0x7fffffffu
#define UNPROCESSED UINT32_MAX
#define IN_PROGRESS (UINT32_MAX - 1)

/* a base type's place in its bucket's chain: the next id in it, and its group */
struct dedup_base_link {
	uint32_t next, group;
};

/*
 * The base's types by group (dedup_compare__group), each group filed in
 * the candidate table only when a type of the group looks for candidates:
 * a small module looks at few of a vmlinux's groups. head[group & mask]
 * and links[id].next chain a bucket's ids in id order, links[id].group is
 * each one's group (one read per id a chain walks), and a bit in filed, by
 * id, says it is filed (and so is the rest of its group). unfiled: the
 * base's VAR and DATASEC ids, in order, which libbpf does not file (an
 * entry's place in libbpf's order counts the others).
 */
struct dedup_base {
	uint32_t *head, *unfiled;
	struct dedup_base_link *links; /* by id */
	uint8_t *filed;
	uint32_t mask, nr_unfiled;
};

struct dedup {
	void *arena; /* (d2b_map_array) the arrays by id and the base's, zeroed */
	size_t arena_size;
	struct btf_type **types; /* by id; the base's are only read */
	uint8_t *kinds; /* by id: each type's kind, read without its record */
	uint32_t nr, start_id;
	uint32_t *map, *hypot_list;
	union {
		uint32_t *hypot_map; /* ~ the type paired with each id (hypot_of) */
		uint32_t *id_map; /* (once compacted) each id's new id */
	};
	size_t hypot_cnt, hypot_cap;
	bool hypot_adjust_canon;
	bool v170;
	struct dedup_fail *fail; /* the failures proved (dedup_fail.c), or NULL */
	struct cand_table table;
	struct dedup_base base;
};

_Static_assert(UNPROCESSED == ~0u, "a zeroed hypot_map reads UNPROCESSED");

/* the type paired with @id on the walk under way, or UNPROCESSED */
static inline uint32_t hypot_of(const struct dedup *d, uint32_t id)
{
	return ~d->hypot_map[id];
}

/* @id paired with @to (or UNPROCESSED: with none) */
static inline void hypot_set(struct dedup *d, uint32_t id, uint32_t to)
{
	d->hypot_map[id] = ~to;
}

static inline bool is_mapped(const struct dedup *d, uint32_t id)
{
	return d->map[id] <= MAX_NR_TYPES;
}

static inline uint32_t resolve_id(const struct dedup *d, uint32_t id)
{
	while (is_mapped(d, id) && d->map[id] != id)
		id = d->map[id];
	return id;
}

/* the type a declaration @id resolves to (itself where it does not) */
static inline uint32_t dedup__resolve_fwd_id(const struct dedup *d, uint32_t id)
{
	uint32_t r;

	if (d->kinds[id] != BTF_KIND_FWD)
		return id;
	r = resolve_id(d, id);
	return d->kinds[r] == BTF_KIND_FWD ? id : r;
}

/* dedup_equiv.c: libbpf's is_equiv walk and what it pairs */

/* whether struct or union @t's check against @cand can succeed at all */
bool dedup__members_may_be_equiv(const struct dedup *d, const struct btf_type *t,
				 const struct btf_type *cand);
/*
 * A pair is_equiv pairs afresh, checked as it checks one: 0 where the two
 * types cannot be equivalent, -EINVAL for a kind it does not walk; else
 * each pair of their referenced ids met by @meet in is_equiv's order, until
 * one returns <= 0 (which is returned), and 1.
 */
typedef int (*dedup_meet_fn)(struct dedup *d, uint32_t cand_id, uint32_t canon_id, void *ctx);
int dedup__pair_check(struct dedup *d, uint32_t cand_id, uint32_t canon_id, dedup_meet_fn meet,
		      void *ctx);
/* 1.1: whether the walk takes @b for @a, paired before: identical arrays or structs */
bool dedup__identical(const struct dedup *d, uint32_t a, uint32_t b);
/* the walk pairs canonical type @canon with @cand; -ENOMEM */
int dedup__hypot_add(struct dedup *d, uint32_t canon, uint32_t cand);
/* a new walk: no pairings, no adjusted canonical type */
void dedup__hypot_clear(struct dedup *d);
/* >0: the graphs of @cand_id and @canon_id are equivalent; 0: not; -errno */
int dedup__is_equiv(struct dedup *d, uint32_t cand_id, uint32_t canon_id);
/* an equivalence found: what its walk paired resolves declarations and structs */
void dedup__merge_hypot(struct dedup *d);

/*
 * dedup_fail.c: a struct check's failure proved before its walk, in 1.1's
 * rules. dedup__fail_new: @d's loose twins found, where the proofs apply
 * (d->fail stays NULL where they do not); -ENOMEM. dedup__fails_fast: 1
 * where dedup__is_equiv(@d, @cand_id, @canon_id) would return 0, 0 where
 * that is not proved, -ENOMEM; the walk's pairings cleared after.
 */
int dedup__fail_new(struct dedup *d);
int dedup__fails_fast(struct dedup *d, uint32_t cand_id, uint32_t canon_id);
void dedup__fail_free(struct dedup *d);

#endif /* BTF_DEDUP_PRIV_H */
