// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_dedup - libbpf's btf__dedup for split BTF, reproduced decision for
 * decision, for the libbpf releases pahole is built with.
 *
 * Why. pahole 1.32 is built with libbpf 1.7.0, whose split dedup differs
 * from Debian 12's libbpf 1.1: typedefs are deduplicated with the structs
 * (so a recursive typedef can be), but a typedef is looked up under a hash
 * that the base's typedefs were never filed under, so a module keeps its
 * typedefs, and every type that refers to them; and when a struct's check
 * meets a canonical type already paired with another candidate, the two
 * candidates still match if they are identical down to 16 levels (1.1:
 * arrays and structs with the very same member ids only). A module's bytes
 * from pahole 1.32 therefore need this dedup, not libbpf 1.1's. For 1.1's
 * own algorithm (1.5's too, which pahole 1.30 is built with), it spares
 * libbpf's copy of the whole base BTF for the dedup: the base is only read.
 *
 * The algorithm is libbpf's (see its essay above btf__dedup):
 *   1. every base type is canonical, filed in the candidate table under
 *      its hash (here: each group of them when a type of the group first
 *      looks for candidates, in the place libbpf's order gives it);
 *   2. primitive types (INT, ENUM, ENUM64, FWD, FLOAT): equal to a
 *      candidate of their hash, or canonical; an enum declaration meeting
 *      a full enum resolves to it;
 *   3. structs and unions (and, in 1.7.0, typedefs), in id order: the
 *      first candidate of their hash whose type graph is equivalent
 *      (is_equiv: a paired walk recording which candidate type each
 *      canonical type stands for, the "hypothetical map"; dedup_equiv.c)
 *      is their canonical type, and the walk's pairings resolve forward
 *      declarations and map further structs (in a module, in 1.1's rules,
 *      a check that must fail is found so without the walk: dedup_fail.c);
 *   4. forward declarations still unresolved take the one canonical struct
 *      or union of their name, if there is just one;
 *   5. reference types, depth first: their referenced ids made canonical,
 *      then equal to a candidate, or canonical;
 *   6. canonical types kept in id order, every id remapped.
 * The strings are not touched: a BTF built by btf__add_* has them deduped
 * already, and btf__dedup leaves such a string section as it is.
 *
 * Which candidate wins depends on the order libbpf's hash map walks the
 * types filed under one hash: dedup_cands.c keeps that order. Types are
 * filed by hash and group (dedup_compare__group), as a type is never found
 * alike to one of another group; so a base type need not be filed before
 * a type of its group is looked for, and a module looks at few of a
 * vmlinux's groups (7.2's ah4.ko: 3,331 of its 119,407 types).
 *
 * Checked against libbpf 1.1's btf__dedup itself (--exact takes it) on
 * every module the tests have, and against pahole 1.32 for 1.7.0.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "btf_base.h"
#include "btf_dedup.h"
#include "btf_dedup_priv.h"
#include "btf_raw.h"
#include "d2b_util.h"
#include "dedup_cands.h"
#include "dedup_compare.h"

static struct btf_type void_type;

/* libbpf's place of base type @id among the types it files (all but VAR and DATASEC) */
static uint32_t base_filed_index(const struct dedup_base *b, uint32_t id)
{
	uint32_t lo = 0, hi = b->nr_unfiled, mid;

	/* (lo: the unfiled ids before @id) */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (b->unfiled[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return id - 1 - lo;
}

/* the first base id of @group from chain link @id on, or 0 */
static uint32_t base_in_group(const struct dedup_base *b, uint32_t id, uint32_t group)
{
	while (id && b->links[id].group != group)
		id = b->links[id].next;
	return id;
}

/* every base id @id of @group, in id order (its bucket's chain): none with no buckets */
#define for_each_base_of_group(b, id, group)                                                   \
	for (id = base_in_group(b, (b)->head ? (b)->head[(group) & (b)->mask] : 0, group); id; \
	     id = base_in_group(b, (b)->links[id].next, group))

/*
 * The base's types of @group filed, where not yet, as libbpf filed them
 * first of all (in id order, each with the growths its place saw): before
 * any chain of the group is read or added to. 0, -EINVAL or -ENOMEM
 */
static int base_file(struct dedup *d, uint32_t group)
{
	struct dedup_base *b = &d->base;
	uint32_t id;
	uint64_t h;

	for_each_base_of_group(b, id, group) {
		const struct btf_type *t = d->types[id];

		if (b->filed[id / 8] & 1u << id % 8) /* (the group's first: all were) */
			return 0;
		b->filed[id / 8] |= (uint8_t)(1u << id % 8);
		/* (a kind btf_check lets through, never VAR or DATASEC here) */
		if (dedup_compare__hash_base(t, &h) <= 0)
			return -EINVAL;
		if (cand_table__add_past(&d->table, h, group, id,
					 cand_table__grows_at(base_filed_index(b, id))))
			return -ENOMEM;
	}
	return 0;
}

/* the newest candidate of @key and @group in libbpf's order (ents index + 1), 0 if none */
static uint32_t cands(struct dedup *d, uint64_t key, uint32_t group)
{
	struct cand_key *k = cand_table__find(&d->table, key, group);

	if (!k)
		return 0;
	cand_table__normalize(&d->table, k);
	return k->head;
}

/* every candidate id @c of @key and @group, newest first: for_each_cand(d, e, c, key, group) */
#define for_each_cand(d, e, c, key, group)                                        \
	for (e = cands(d, key, group); e && ((c = (d)->table.ents[e - 1].id), 1); \
	     e = (d)->table.ents[e - 1].next)

typedef bool (*type_equal_fn)(const struct btf_type *a, const struct btf_type *b);

/* the first candidate of @key that @equal says is type @id's, in libbpf's order; else @id */
static uint32_t first_equal(struct dedup *d, uint32_t id, uint64_t key, uint32_t group,
			    type_equal_fn equal)
{
	uint32_t e, c;

	for_each_cand(d, e, c, key, group) {
		if (equal(d->types[id], d->types[c]))
			return c;
	}
	return id;
}

/* @id's canonical type is @new_id; a canonical type is filed under @key and @group. 0 or -ENOMEM */
static int map_type(struct dedup *d, uint32_t id, uint32_t new_id, uint64_t key, uint32_t group)
{
	d->map[id] = new_id;
	return new_id == id ? cand_table__add(&d->table, key, group, id) : 0;
}

/*
 * The base's types put in buckets by group, none filed yet, all counted as
 * libbpf's hashmap counts them. 0 or -ENOMEM
 */
static int dedup_prep(struct dedup *d)
{
	struct dedup_base *b = &d->base;
	uint32_t id, nr = d->start_id - 1, *head = b->head;
	struct dedup_base_link *links = b->links;
	struct btf_type *const *types = d->types;
	const uint8_t *kinds = d->kinds;

	if (!nr)
		return 0;
	/* (from the last id down: each bucket's chain in id order) */
	for (id = d->start_id - 1; id; id--) {
		uint32_t bucket;

		if (kinds[id] == BTF_KIND_VAR || kinds[id] == BTF_KIND_DATASEC) {
			b->unfiled[b->nr_unfiled++] = id;
			continue;
		}
		links[id].group = dedup_compare__group(types[id]);
		bucket = links[id].group & b->mask;
		links[id].next = head[bucket];
		head[bucket] = id;
	}
	for (id = 0; id < b->nr_unfiled / 2; id++) {
		uint32_t x = b->unfiled[id];

		b->unfiled[id] = b->unfiled[b->nr_unfiled - 1 - id];
		b->unfiled[b->nr_unfiled - 1 - id] = x;
	}
	cand_table__count(&d->table, nr - b->nr_unfiled);
	return 0;
}

static int dedup_prim_type(struct dedup *d, uint32_t id)
{
	struct btf_type *t = d->types[id];
	uint32_t new_id = id, e, c, group;
	uint64_t h;
	int err;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		break;
	default:
		return 0;
	}
	group = dedup_compare__group(t);
	err = base_file(d, group);
	if (err)
		return err;
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		h = dedup_compare__hash_int_tag(t);
		new_id = first_equal(d, id, h, group, dedup_compare__equal_int_tag);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		h = dedup_compare__hash_enum(t);
		for_each_cand(d, e, c, h, group) {
			const struct btf_type *cand = d->types[c];

			if (dedup_compare__equal_enum(t, cand)) {
				new_id = c;
				break;
			}
			if (dedup_compare__compat_enum(t, cand)) {
				if (dedup_compare__is_enum_fwd(t)) {
					new_id = c;
					break;
				}
				/* the canonical declaration resolves to this enum */
				d->map[c] = id;
			}
		}
		break;
	default: /* FWD, FLOAT */
		h = dedup_compare__hash_common(t);
		new_id = first_equal(d, id, h, group, dedup_compare__equal_common);
		break;
	}
	return map_type(d, id, new_id, h, group);
}

static int dedup_struct_type(struct dedup *d, uint32_t id)
{
	const struct btf_type *t = d->types[id];
	uint32_t new_id = id, e, cand_id, group;
	uint64_t h;
	int eq;

	if (is_mapped(d, id))
		return 0;
	if (!btf_is_composite(t) && !(d->v170 && btf_is_typedef(t)))
		return 0;
	group = dedup_compare__group(t);
	eq = base_file(d, group);
	if (eq)
		return eq;
	h = dedup_compare__hash_struct_phase(t);
	for_each_cand(d, e, cand_id, h, group) {
		/* a declaration of the same hash must not become its duplicate */
		if (!dedup_compare__equal_struct_phase(t, d->types[cand_id]))
			continue;
		/* (is_equiv would fail: @id unmapped, @cand_id canonical, the rest equal) */
		if (btf_is_composite(t) && !dedup__members_may_be_equiv(d, t, d->types[cand_id]))
			continue;
		dedup__hypot_clear(d);
		eq = dedup__fails_fast(d, id, cand_id);
		if (eq < 0)
			return eq;
		if (eq)
			continue;
		eq = dedup__is_equiv(d, id, cand_id);
		if (eq < 0)
			return eq;
		if (!eq)
			continue;
		dedup__merge_hypot(d);
		if (d->hypot_adjust_canon)
			continue;
		new_id = cand_id;
		break;
	}
	return map_type(d, id, new_id, h, group);
}

/* whether @id is a canonical struct or union named at @name_off */
static bool named_canon(const struct dedup *d, uint32_t id, uint32_t name_off)
{
	return (d->kinds[id] == BTF_KIND_STRUCT || d->kinds[id] == BTF_KIND_UNION) &&
	       d->map[id] == id && d->types[id]->name_off == name_off;
}

/*
 * The base's canonical structs and unions named at @name_off: *@count
 * counts them, *@first is the first. A named one is in the bucket of its
 * group (dedup_compare__group), where the chain is in id order. An unnamed
 * one's group is not by its name, and none is filed where the base has no
 * buckets: for those every base id is looked at.
 */
static void base_count_named(const struct dedup *d, uint32_t name_off, uint32_t *count,
			     uint32_t *first)
{
	static const uint32_t kinds[] = { BTF_KIND_STRUCT, BTF_KIND_UNION };
	const struct dedup_base *b = &d->base;
	uint32_t id, i, g;

	if (!name_off || !b->head) {
		for (id = 1; id < d->start_id; id++)
			if (named_canon(d, id, name_off) && !(*count)++)
				*first = id;
		return;
	}
	for (i = 0; i < 2; i++) {
		g = dedup_compare__group_of((uint64_t)name_off << 5 | kinds[i]);
		for_each_base_of_group(b, id, g)
			if (named_canon(d, id, name_off) && (!(*count)++ || id < *first))
				*first = id;
	}
}

/*
 * Declarations left: the one canonical struct or union of their name. Only
 * the names of split declarations still canonical are looked for: names
 * files each once, under a number n, and counts[n] counts the canonical
 * structs and unions of the name, first[n] the first of them: the base's
 * found by name, the split types' in a walk.
 */
static int dedup_resolve_fwds(struct dedup *d)
{
	uint32_t id, i, *first = NULL, *counts = NULL;
	struct cand_table names = { 0 };
	struct cand_key *k;
	int err = 0;

	for (id = d->start_id; id < d->nr && !err; id++)
		if (d->kinds[id] == BTF_KIND_FWD && d->map[id] == id &&
		    !cand_table__find(&names, d->types[id]->name_off, 0))
			err = cand_table__add(&names, d->types[id]->name_off, 0, names.nr_ents);
	if (!err && names.nr_ents) {
		first = malloc(names.nr_ents * sizeof(*first));
		counts = calloc(names.nr_ents, sizeof(*counts));
		err = first && counts ? 0 : -ENOMEM;
	}
	for (i = 0; i < names.nr_keys && counts && !err; i++) {
		uint32_t n;

		if (!(k = &names.keys[i])->head)
			continue;
		n = names.ents[k->head - 1].id;
		base_count_named(d, (uint32_t)k->key, &counts[n], &first[n]);
	}
	for (id = d->start_id; id < d->nr && counts && !err; id++) {
		uint32_t n;

		if (!named_canon(d, id, d->types[id]->name_off) ||
		    !(k = cand_table__find(&names, d->types[id]->name_off, 0)))
			continue;
		n = names.ents[k->head - 1].id;
		if (!counts[n]++)
			first[n] = id;
	}
	for (id = d->start_id; id < d->nr && counts && !err; id++) {
		const struct btf_type *t = d->types[id];
		uint32_t n;

		if (d->kinds[id] != BTF_KIND_FWD || d->map[id] != id)
			continue;
		n = names.ents[cand_table__find(&names, t->name_off, 0)->head - 1].id;
		if (counts[n] != 1) /* none, or not one */
			continue;
		if (btf_kind(d->types[first[n]]) ==
		    (btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT))
			d->map[id] = first[n];
	}
	free(first);
	free(counts);
	cand_table__free(&names);
	return err;
}

static int64_t dedup_ref_type(struct dedup *d, uint32_t id);

/* the id at @ref made its canonical type's, reference types deduplicated first */
static int ref_canon(struct dedup *d, uint32_t *ref)
{
	int64_t r = dedup_ref_type(d, *ref);

	if (r < 0)
		return (int)r;
	*ref = (uint32_t)r;
	return 0;
}

/* the canonical id of @id, deduplicating reference types on the way */
static int64_t dedup_ref_type(struct dedup *d, uint32_t id)
{
	uint32_t new_id, k, group;
	struct btf_type *t;
	uint64_t h;
	int err;

	if (d->map[id] == IN_PROGRESS)
		return -ELOOP;
	if (is_mapped(d, id))
		return resolve_id(d, id);
	t = d->types[id];
	d->map[id] = IN_PROGRESS;
	switch (btf_kind(t)) {
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF: /* 1.7.0 deduplicated it with the structs */
	case BTF_KIND_FUNC:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_DECL_TAG:
		err = ref_canon(d, &t->type);
		break;
	case BTF_KIND_ARRAY:
		err = ref_canon(d, &btf_array(t)->type);
		if (!err)
			err = ref_canon(d, &btf_array(t)->index_type);
		break;
	case BTF_KIND_FUNC_PROTO:
		err = ref_canon(d, &t->type);
		for (k = 0; !err && k < btf_vlen(t); k++)
			err = ref_canon(d, &btf_params(t)[k].type);
		break;
	default:
		return -EINVAL;
	}
	/* (its group as its references are now) */
	group = dedup_compare__group(t);
	if (!err)
		err = base_file(d, group);
	if (err)
		return err;
	switch (btf_kind(t)) {
	case BTF_KIND_DECL_TAG:
		h = dedup_compare__hash_int_tag(t);
		new_id = first_equal(d, id, h, group, dedup_compare__equal_int_tag);
		break;
	case BTF_KIND_ARRAY:
		h = dedup_compare__hash_array(t);
		new_id = first_equal(d, id, h, group, dedup_compare__equal_array);
		break;
	case BTF_KIND_FUNC_PROTO:
		h = dedup_compare__hash_fnproto(t);
		new_id = first_equal(d, id, h, group, dedup_compare__equal_fnproto);
		break;
	default:
		h = dedup_compare__hash_common(t);
		new_id = first_equal(d, id, h, group, dedup_compare__equal_common);
		break;
	}
	err = map_type(d, id, new_id, h, group);
	if (err)
		return err;
	return new_id;
}

static int remap_id(const struct dedup *d, uint32_t *id)
{
	uint32_t new_id = d->id_map[resolve_id(d, *id)];

	if (new_id > MAX_NR_TYPES)
		return -EINVAL;
	*id = new_id;
	return 0;
}

static int remap_one(uint32_t *id, void *ctx)
{
	return remap_id(ctx, id);
}

/* every type id @t refers to, remapped to its compacted canonical id */
static int remap_type(const struct dedup *d, struct btf_type *t)
{
	return btf_raw__visit_ids(t, remap_one, (void *)d);
}

static int dedup_run(struct dedup *d)
{
	uint32_t id;
	int64_t r;
	int err;

	err = dedup_prep(d);
	if (!err)
		err = dedup__fail_new(d);
	for (id = d->start_id; id < d->nr && !err; id++)
		err = dedup_prim_type(d, id);
	for (id = d->start_id; id < d->nr && !err; id++)
		err = dedup_struct_type(d, id);
	if (!err)
		err = dedup_resolve_fwds(d);
	for (id = d->start_id; id < d->nr && !err; id++) {
		r = dedup_ref_type(d, id);
		if (r < 0)
			err = (int)r;
	}
	return err;
}

/*
 * map[id] = id for id < @n: the base's ids, a vmlinux's 10^5 of them, four
 * at a time (a GCC vector: one store each where the target has vectors)
 */
static void map_identity(uint32_t *map, uint32_t n)
{
	typedef uint32_t ids4 __attribute__((vector_size(16)));
	ids4 v = { 0, 1, 2, 3 };
	const ids4 four = { 4, 4, 4, 4 };
	uint32_t id;

	for (id = 0; id + 4 <= n; id += 4, v += four)
		memcpy(map + id, &v, sizeof(v));
	for (; id < n; id++)
		map[id] = id;
}

/* the canonical types, in id order, remapped: @d's hypot_map becomes id_map */
static int dedup_compact(struct dedup *d, uint8_t *out, uint32_t *len)
{
	uint32_t id, next = d->start_id, size, pos = 0;
	int err;

	map_identity(d->id_map, d->start_id);
	for (id = d->start_id; id < d->nr; id++)
		d->id_map[id] = d->map[id] == id ? next++ : UNPROCESSED;
	for (id = d->start_id; id < d->nr; id++) {
		if (d->map[id] != id)
			continue;
		size = btf_raw__record_size(d->types[id]);
		memcpy(out + pos, d->types[id], size);
		err = remap_type(d, (struct btf_type *)(out + pos));
		if (err)
			return err;
		pos += size;
	}
	*len = pos;
	return 0;
}

/* the next @n bytes of @d's arena from *@at, 8-aligned */
static void *arena_take(struct dedup *d, size_t *at, size_t n)
{
	void *p = (uint8_t *)d->arena + *at;

	*at += (n + 7) & ~(size_t)7;
	return p;
}

/*
 * The arrays by id, and the base's buckets, in one zeroed mapping: for a
 * module, some 4 MiB for the vmlinux's ids, which huge pages fault in at
 * once where 4 KiB pages took a thousand faults (d2b_map_array).
 */
static int arena_new(struct dedup *d)
{
	uint32_t nr_base = d->start_id - 1, buckets = 1024;
	size_t at = 0, size;
	int i;

	while (buckets < nr_base)
		buckets *= 2;
	/* (twice: the sizes, then the arrays) */
	for (i = 0; i < 2; i++) {
		at = 0;
		d->types = arena_take(d, &at, d->nr * sizeof(*d->types));
		d->map = arena_take(d, &at, d->nr * sizeof(*d->map));
		d->hypot_map = arena_take(d, &at, d->nr * sizeof(*d->hypot_map));
		d->kinds = arena_take(d, &at, d->nr);
		if (nr_base) {
			d->base.head = arena_take(d, &at, buckets * sizeof(*d->base.head));
			d->base.filed = arena_take(d, &at, d->start_id / 8 + 1);
			d->base.links = arena_take(d, &at, d->start_id * sizeof(*d->base.links));
			d->base.unfiled =
				arena_take(d, &at, d->start_id * sizeof(*d->base.unfiled));
			d->base.mask = buckets - 1;
		}
		if (!i && !(d->arena = d2b_map_array(at, &size)))
			return -ENOMEM;
	}
	d->arena_size = size;
	return 0;
}

/* @d over @types (@len bytes, whole records) on @base (or none) */
static int dedup_new(struct dedup *d, const struct btf_base *base, void *types, uint32_t len,
		     enum btf_dedup_libbpf release)
{
	uint32_t id, pos, nr = 0;

	for (pos = 0; pos + sizeof(struct btf_type) <= len; nr++)
		pos += btf_raw__record_size((const struct btf_type *)((uint8_t *)types + pos));
	if (pos != len)
		return -EINVAL;
	d->v170 = release == BTF_DEDUP_LIBBPF_1_7_0;
	d->start_id = base ? btf_base__type_cnt(base) : 1;
	d->nr = d->start_id + nr;
	if (arena_new(d))
		return -ENOMEM;
	d->types[0] = &void_type;
	if (base)
		btf_base__types(base, (const struct btf_type **)d->types);
	for (id = d->start_id, pos = 0; id < d->nr; id++) {
		d->types[id] = (struct btf_type *)((uint8_t *)types + pos);
		pos += btf_raw__record_size(d->types[id]);
	}
	/* (the base's types canonical from the start; their kinds as btf_check found them) */
	if (base)
		memcpy(d->kinds, btf_base__kinds(base), d->start_id);
	map_identity(d->map, d->start_id);
	for (id = d->start_id; id < d->nr; id++) {
		d->kinds[id] = (uint8_t)btf_kind(d->types[id]);
		d->map[id] = UNPROCESSED;
		if (btf_is_var(d->types[id]) || btf_is_datasec(d->types[id]))
			d->map[id] = id;
	}
	/* (hypot_map: every id UNPROCESSED, as the arena is zeroed: hypot_of) */
	return 0;
}

static void dedup_free(struct dedup *d)
{
	cand_table__free(&d->table);
	if (d->arena)
		munmap(d->arena, d->arena_size);
	free(d->hypot_list);
	dedup__fail_free(d);
}

/* the whole dedup of @types on @base (or none) into @out (@len bytes or more) */
static int dedup_records(struct dedup *d, const struct btf_base *base, void *types, uint32_t len,
			 enum btf_dedup_libbpf release, void *out, uint32_t *out_len)
{
	int err = dedup_new(d, base, types, len, release);

	if (!err)
		err = dedup_run(d);
	if (!err)
		err = dedup_compact(d, out, out_len);
	return err;
}

int btf_dedup__records(void *types, uint32_t len, enum btf_dedup_libbpf release, void **out,
		       uint32_t *out_len, uint32_t **ids)
{
	struct dedup d = { 0 };
	uint32_t id;
	int err;

	*out = malloc(len ? len : 1);
	err = *out ? dedup_records(&d, NULL, types, len, release, *out, out_len) : -ENOMEM;
	*ids = err ? NULL : malloc(d.nr * sizeof(**ids));
	if (!err && !*ids)
		err = -ENOMEM;
	/* (each id's canonical type, as the compaction numbered it) */
	for (id = 0; !err && id < d.nr; id++)
		(*ids)[id] = d.id_map[resolve_id(&d, id)];
	if (err) {
		free(*out);
		*out = NULL;
	}
	dedup_free(&d);
	return err;
}

int btf_dedup__raw(struct btf_raw *r, const struct btf_base *base, enum btf_dedup_libbpf release)
{
	struct dedup d = { 0 };
	const char *strs;
	uint32_t types_len, strs_len;
	uint8_t *out;
	void *types;
	int err;

	/* (the types are rewritten in place: reference ids made canonical) */
	btf_raw__sections(r, &types, &types_len, &strs, &strs_len);
	out = malloc(types_len ? types_len : 1);
	err = out ? dedup_records(&d, base, types, types_len, release, out, &types_len) : -ENOMEM;
	if (!err)
		err = btf_raw__set_types(r, out, types_len);
	dedup_free(&d);
	free(out);
	return err;
}
