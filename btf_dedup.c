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
 *      its hash;
 *   2. primitive types (INT, ENUM, ENUM64, FWD, FLOAT): equal to a
 *      candidate of their hash, or canonical; an enum declaration meeting
 *      a full enum resolves to it;
 *   3. structs and unions (and, in 1.7.0, typedefs), in id order: the
 *      first candidate of their hash whose type graph is equivalent
 *      (is_equiv: a paired walk recording which candidate type each
 *      canonical type stands for, the "hypothetical map"; dedup_equiv.c)
 *      is their canonical type, and the walk's pairings resolve forward
 *      declarations and map further structs;
 *   4. forward declarations still unresolved take the one canonical struct
 *      or union of their name, if there is just one;
 *   5. reference types, depth first: their referenced ids made canonical,
 *      then equal to a candidate, or canonical;
 *   6. canonical types kept in id order, every id remapped.
 * The strings are not touched: a BTF built by btf__add_* has them deduped
 * already, and btf__dedup leaves such a string section as it is.
 *
 * Which candidate wins depends on the order libbpf's hash map walks the
 * types filed under one hash: dedup_cands.c keeps that order.
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

#include "btf_base.h"
#include "btf_dedup.h"
#include "btf_dedup_priv.h"
#include "btf_raw.h"
#include "dedup_cands.h"
#include "dedup_compare.h"

static struct btf_type void_type;

/* the newest candidate of @key in libbpf's order (ents index + 1), 0 if none */
static uint32_t cands(struct dedup *d, uint64_t key)
{
	struct cand_key *k = cand_table__find(&d->table, key);

	if (!k)
		return 0;
	cand_table__normalize(&d->table, k);
	return k->head;
}

/* every candidate id @c of @key, newest first: for_each_cand(d, e, c, key) */
#define for_each_cand(d, e, c, key)                                        \
	for (e = cands(d, key); e && ((c = (d)->table.ents[e - 1].id), 1); \
	     e = (d)->table.ents[e - 1].next)

typedef bool (*type_equal_fn)(const struct btf_type *a, const struct btf_type *b);

/* the first candidate of @key that @equal says is type @id's, in libbpf's order; else @id */
static uint32_t first_equal(struct dedup *d, uint32_t id, uint64_t key, type_equal_fn equal)
{
	uint32_t e, c;

	for_each_cand(d, e, c, key) {
		if (equal(d->types[id], d->types[c]))
			return c;
	}
	return id;
}

/* @id's canonical type is @new_id; a canonical type is filed under @key. 0 or -ENOMEM */
static int map_type(struct dedup *d, uint32_t id, uint32_t new_id, uint64_t key)
{
	d->map[id] = new_id;
	return new_id == id ? cand_table__add(&d->table, key, id) : 0;
}

static int dedup_prep(struct dedup *d)
{
	uint64_t h;
	uint32_t id;
	int r;

	/* (the base's types filed at once: the table does not grow through them) */
	if (d->start_id > 1 && cand_table__reserve(&d->table, d->start_id))
		return -ENOMEM;
	for (id = 1; id < d->start_id; id++) {
		d->map[id] = id;
		r = dedup_compare__hash_base(d->types[id], &h);
		if (r < 0)
			return r;
		if (r && cand_table__add(&d->table, h, id))
			return -ENOMEM;
	}
	return 0;
}

static int dedup_prim_type(struct dedup *d, uint32_t id)
{
	struct btf_type *t = d->types[id];
	uint32_t new_id = id, e, c;
	uint64_t h;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		h = dedup_compare__hash_int_tag(t);
		new_id = first_equal(d, id, h, dedup_compare__equal_int_tag);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		h = dedup_compare__hash_enum(t);
		for_each_cand(d, e, c, h) {
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
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		h = dedup_compare__hash_common(t);
		new_id = first_equal(d, id, h, dedup_compare__equal_common);
		break;
	default:
		return 0;
	}
	return map_type(d, id, new_id, h);
}

static int dedup_struct_type(struct dedup *d, uint32_t id)
{
	const struct btf_type *t = d->types[id];
	uint32_t new_id = id, e, cand_id;
	uint64_t h;
	int eq;

	if (is_mapped(d, id))
		return 0;
	if (!btf_is_composite(t) && !(d->v170 && btf_is_typedef(t)))
		return 0;
	h = dedup_compare__hash_struct_phase(t);
	for_each_cand(d, e, cand_id, h) {
		/* a declaration of the same hash must not become its duplicate */
		if (!dedup_compare__equal_struct_phase(t, d->types[cand_id]))
			continue;
		/* (is_equiv would fail: @id unmapped, @cand_id canonical, the rest equal) */
		if (btf_is_composite(t) && !dedup__members_may_be_equiv(d, t, d->types[cand_id]))
			continue;
		dedup__hypot_clear(d);
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
	return map_type(d, id, new_id, h);
}

/* declarations left: the one canonical struct or union of their name */
static int dedup_resolve_fwds(struct dedup *d)
{
	struct cand_table names = { 0 };
	const struct cand_ent *one;
	struct cand_key *k;
	uint32_t id, nr = 0;
	int err;

	/* (the table sized at once for them) */
	for (id = 1; id < d->nr; id++)
		nr += (d->kinds[id] == BTF_KIND_STRUCT || d->kinds[id] == BTF_KIND_UNION) &&
		      d->map[id] == id;
	err = cand_table__reserve(&names, nr);
	for (id = 1; id < d->nr && !err; id++) {
		const struct btf_type *t = d->types[id];

		if (btf_is_composite(t) && d->map[id] == id)
			err = cand_table__add(&names, t->name_off, id);
	}
	for (id = d->start_id; id < d->nr && !err; id++) {
		const struct btf_type *t = d->types[id];

		if (!btf_is_fwd(t) || d->map[id] != id)
			continue;
		k = cand_table__find(&names, t->name_off);
		one = k ? &names.ents[k->head - 1] : NULL;
		if (!one || one->next) /* none, or not one */
			continue;
		if (btf_kind(d->types[one->id]) ==
		    (btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT))
			d->map[id] = one->id;
	}
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
	struct btf_type *t;
	uint32_t new_id, k;
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
		err = ref_canon(d, &t->type);
		if (err)
			return err;
		h = dedup_compare__hash_common(t);
		new_id = first_equal(d, id, h, dedup_compare__equal_common);
		break;
	case BTF_KIND_DECL_TAG:
		err = ref_canon(d, &t->type);
		if (err)
			return err;
		h = dedup_compare__hash_int_tag(t);
		new_id = first_equal(d, id, h, dedup_compare__equal_int_tag);
		break;
	case BTF_KIND_ARRAY:
		err = ref_canon(d, &btf_array(t)->type);
		if (!err)
			err = ref_canon(d, &btf_array(t)->index_type);
		if (err)
			return err;
		h = dedup_compare__hash_array(t);
		new_id = first_equal(d, id, h, dedup_compare__equal_array);
		break;
	case BTF_KIND_FUNC_PROTO:
		err = ref_canon(d, &t->type);
		for (k = 0; !err && k < btf_vlen(t); k++)
			err = ref_canon(d, &btf_params(t)[k].type);
		if (err)
			return err;
		h = dedup_compare__hash_fnproto(t);
		new_id = first_equal(d, id, h, dedup_compare__equal_fnproto);
		break;
	default:
		return -EINVAL;
	}
	err = map_type(d, id, new_id, h);
	if (err)
		return err;
	return new_id;
}

static int remap_id(const struct dedup *d, uint32_t *id)
{
	uint32_t new_id = d->hypot_map[resolve_id(d, *id)];

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

/* the canonical types, in id order, remapped: @d's hypot_map becomes the id map */
static int dedup_compact(struct dedup *d, uint8_t *out, uint32_t *len)
{
	uint32_t id, next = d->start_id, size, pos = 0;
	int err;

	for (id = 0; id < d->start_id; id++)
		d->hypot_map[id] = id;
	for (id = d->start_id; id < d->nr; id++)
		d->hypot_map[id] = d->map[id] == id ? next++ : UNPROCESSED;
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
	d->types = calloc(d->nr, sizeof(*d->types));
	d->map = malloc(d->nr * sizeof(*d->map));
	d->hypot_map = malloc(d->nr * sizeof(*d->hypot_map));
	d->kinds = malloc(d->nr);
	if (!d->types || !d->map || !d->hypot_map || !d->kinds)
		return -ENOMEM;
	d->types[0] = &void_type;
	for (id = 1; id < d->start_id; id++)
		d->types[id] = (struct btf_type *)btf_base__type(base, id);
	for (id = d->start_id, pos = 0; id < d->nr; id++) {
		d->types[id] = (struct btf_type *)((uint8_t *)types + pos);
		pos += btf_raw__record_size(d->types[id]);
	}
	d->map[0] = 0;
	d->kinds[0] = BTF_KIND_UNKN;
	for (id = 1; id < d->nr; id++) {
		d->kinds[id] = (uint8_t)btf_kind(d->types[id]);
		d->map[id] =
			btf_is_var(d->types[id]) || btf_is_datasec(d->types[id]) ? id : UNPROCESSED;
		d->hypot_map[id] = UNPROCESSED;
	}
	d->hypot_map[0] = UNPROCESSED;
	return 0;
}

static void dedup_free(struct dedup *d)
{
	cand_table__free(&d->table);
	free(d->types);
	free(d->kinds);
	free(d->map);
	free(d->hypot_map);
	free(d->hypot_list);
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
		(*ids)[id] = d.hypot_map[resolve_id(&d, id)];
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
