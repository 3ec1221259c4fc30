// SPDX-License-Identifier: GPL-2.0-only
/*
 * dedup_equiv - libbpf's is_equiv for btf_dedup: whether a struct's type
 * graph is equivalent to a candidate's.
 *
 * The walk pairs each canonical type it reaches with the candidate's type
 * at the same place (hypot_map, its pairings listed in hypot_list). A
 * canonical type met again must be paired with the same type, or, where it
 * is not, identical to it: 1.1 accepts arrays and structs with the very
 * same member ids, 1.7.0 any two types alike down to 16 levels. A
 * declaration matches the struct or union it declares; one in the base
 * that would have to resolve marks the walk (hypot_adjust_canon): the
 * struct is then not mapped to that candidate, and btf_dedup.c tries the
 * next. A walk that succeeds resolves declarations and maps further
 * structs by what it paired (dedup__merge_hypot). The checks of one pair
 * (dedup__pair_check) are dedup_fail.c's too, which meets the same pairs
 * breadth first.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>

#include "btf_dedup_priv.h"
#include "dedup_compare.h"

#define IDENTICAL_DEPTH 16 /* 1.7.0's limit on the identical-types walk */

/* 1.1: identical ARRAYs (ids included) */
static bool identical_arrays(const struct dedup *d, uint32_t a, uint32_t b)
{
	const struct btf_type *x = d->types[a], *y = d->types[b];

	return btf_is_array(x) && btf_is_array(y) && dedup_compare__equal_array(x, y);
}

/* 1.1: identical STRUCTs or UNIONs, member ids equal or identical */
static bool identical_structs(const struct dedup *d, uint32_t a, uint32_t b)
{
	const struct btf_type *x = d->types[a], *y = d->types[b];
	const struct btf_member *mx, *my;
	uint32_t i;

	if (!btf_is_composite(x) || btf_kind(x) != btf_kind(y) ||
	    !dedup_compare__shallow_equal_struct(x, y))
		return false;
	mx = btf_members(x);
	my = btf_members(y);
	for (i = 0; i < btf_vlen(x); i++)
		if (mx[i].type != my[i].type && !identical_arrays(d, mx[i].type, my[i].type) &&
		    !identical_structs(d, mx[i].type, my[i].type))
			return false;
	return true;
}

bool dedup__identical(const struct dedup *d, uint32_t a, uint32_t b)
{
	return identical_arrays(d, a, b) || identical_structs(d, a, b);
}

/*
 * 1.7.0: the two types are alike down to @depth levels of referenced ids.
 * Its ARRAY case compares the first array's ids with themselves, so two
 * arrays of the same size, name and length are identical: kept so.
 */
static bool identical_types(const struct dedup *d, uint32_t a, uint32_t b, int depth)
{
	const struct btf_type *x, *y;
	uint32_t i;

	for (;;) {
		x = d->types[a];
		y = d->types[b];
		if (depth <= 0 || btf_kind(x) != btf_kind(y))
			return false;
		switch (btf_kind(x)) {
		case BTF_KIND_UNKN:
			return true;
		case BTF_KIND_INT:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_FWD:
		case BTF_KIND_FLOAT:
			return dedup_compare__equiv_prim(x, y);
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_PTR:
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_FUNC:
		case BTF_KIND_TYPE_TAG:
			if (x->info != y->info || x->name_off != y->name_off)
				return false;
			a = x->type;
			b = y->type;
			continue; /* the same depth */
		case BTF_KIND_ARRAY:
			return dedup_compare__compat_array(x, y);
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION: {
			const struct btf_member *mx = btf_members(x), *my = btf_members(y);

			if (!dedup_compare__shallow_equal_struct(x, y))
				return false;
			for (i = 0; i < btf_vlen(x); i++)
				if (mx[i].type != my[i].type &&
				    !identical_types(d, mx[i].type, my[i].type, depth - 1))
					return false;
			return true;
		}
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *px = btf_params(x), *py = btf_params(y);

			if (!dedup_compare__compat_fnproto(x, y))
				return false;
			if (x->type != y->type && !identical_types(d, x->type, y->type, depth - 1))
				return false;
			for (i = 0; i < btf_vlen(x); i++)
				if (px[i].type != py[i].type &&
				    !identical_types(d, px[i].type, py[i].type, depth - 1))
					return false;
			return true;
		}
		default:
			return false;
		}
	}
}

int dedup__hypot_add(struct dedup *d, uint32_t from, uint32_t to)
{
	if (d->hypot_cnt == d->hypot_cap) {
		size_t cap = d->hypot_cap + (d->hypot_cap / 2 > 16 ? d->hypot_cap / 2 : 16);
		uint32_t *list = realloc(d->hypot_list, cap * sizeof(*list));

		if (!list)
			return -ENOMEM;
		d->hypot_list = list;
		d->hypot_cap = cap;
	}
	d->hypot_list[d->hypot_cnt++] = from;
	hypot_set(d, from, to);
	return 0;
}

void dedup__hypot_clear(struct dedup *d)
{
	size_t i;

	for (i = 0; i < d->hypot_cnt; i++)
		hypot_set(d, d->hypot_list[i], UNPROCESSED);
	d->hypot_cnt = 0;
	d->hypot_adjust_canon = false;
}

/* a type's kind as is_equiv matches it: a declaration as what it declares */
static int equiv_kind(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_FWD:
		return btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
	case BTF_KIND_ENUM64:
		return BTF_KIND_ENUM;
	default:
		return btf_kind(t);
	}
}

/*
 * Whether dedup__is_equiv(@a, @b) can succeed: only if @a is @b, or they have the
 * same name and equiv_kind. (Every way it succeeds implies that: the same
 * canonical type, as every mapping joins types so alike, an enum
 * declaration an ENUM64 among them; the type paired with @b earlier in the
 * walk, or one identical to it, whose name and kind were matched with @b's
 * before the walk went deeper; or the check of the pair itself, whose
 * kinds must be the same but for a declaration.)
 */
static bool may_be_equiv(const struct dedup *d, uint32_t a, uint32_t b)
{
	const struct btf_type *x = d->types[a], *y = d->types[b];

	return a == b || (x->name_off == y->name_off && equiv_kind(x) == equiv_kind(y));
}

/*
 * Whether struct or union @t's check against @cand can succeed: only if
 * every pair of their members may_be_equiv. Where one cannot, is_equiv
 * fails all the same, after walking the members before it. In a module
 * whose structs keep failing against their copies, that walk was most of
 * the time (xfs.ko). (Asked of every pair a walk meets, it cost more than
 * it saved in a small module's walks, which mostly succeed.)
 */
bool dedup__members_may_be_equiv(const struct dedup *d, const struct btf_type *t,
				 const struct btf_type *cand)
{
	const struct btf_member *x = btf_members(t), *y = btf_members(cand);
	uint32_t i;

	for (i = 0; i < btf_vlen(t); i++)
		if (!may_be_equiv(d, x[i].type, y[i].type))
			return false;
	return true;
}

/*
 * dedup__is_equiv(@d, @cand_id, @canon_id) where the walk has paired
 * @canon_id with @cand_id already (most of a walk's pairs): 1, as it would
 * return, without the call
 */
static int is_equiv_next(struct dedup *d, uint32_t cand_id, uint32_t canon_id)
{
	if (d->kinds[canon_id] != BTF_KIND_FWD && hypot_of(d, canon_id) == cand_id)
		return 1;
	return dedup__is_equiv(d, cand_id, canon_id);
}

static int meet_members(struct dedup *d, const struct btf_type *cand, const struct btf_type *canon,
			dedup_meet_fn meet, void *ctx)
{
	const struct btf_member *x = btf_members(cand), *y = btf_members(canon);
	uint32_t i;
	int eq;

	if (!dedup_compare__shallow_equal_struct(cand, canon))
		return 0;
	for (i = 0; i < btf_vlen(cand); i++) {
		eq = meet(d, x[i].type, y[i].type, ctx);
		if (eq <= 0)
			return eq;
	}
	return 1;
}

static int meet_params(struct dedup *d, const struct btf_type *cand, const struct btf_type *canon,
		       dedup_meet_fn meet, void *ctx)
{
	const struct btf_param *x = btf_params(cand), *y = btf_params(canon);
	uint32_t i;
	int eq;

	if (!dedup_compare__compat_fnproto(cand, canon))
		return 0;
	eq = meet(d, cand->type, canon->type, ctx);
	for (i = 0; eq > 0 && i < btf_vlen(cand); i++)
		eq = meet(d, x[i].type, y[i].type, ctx);
	return eq;
}

int dedup__pair_check(struct dedup *d, uint32_t cand_id, uint32_t canon_id, dedup_meet_fn meet,
		      void *ctx)
{
	const struct btf_type *cand = d->types[cand_id], *canon = d->types[canon_id];
	uint16_t cand_kind = btf_kind(cand), canon_kind = btf_kind(canon);
	int eq;

	if (cand->name_off != canon->name_off)
		return 0;
	if ((cand_kind == BTF_KIND_FWD || canon_kind == BTF_KIND_FWD) && cand_kind != canon_kind) {
		uint16_t real_kind, fwd_kind;

		if (cand_kind == BTF_KIND_FWD) {
			real_kind = canon_kind;
			fwd_kind = btf_kflag(cand) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
		} else {
			real_kind = cand_kind;
			fwd_kind = btf_kflag(canon) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
			/* a base declaration would have to resolve */
			if (fwd_kind == real_kind && canon_id < d->start_id)
				d->hypot_adjust_canon = true;
		}
		return fwd_kind == real_kind;
	}
	if (cand_kind != canon_kind)
		return 0;
	switch (cand_kind) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		return dedup_compare__equiv_prim(cand, canon);
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC:
	case BTF_KIND_TYPE_TAG:
		if (cand->info != canon->info)
			return 0;
		return meet(d, cand->type, canon->type, ctx);
	case BTF_KIND_ARRAY:
		if (!dedup_compare__compat_array(cand, canon))
			return 0;
		eq = meet(d, btf_array(cand)->index_type, btf_array(canon)->index_type, ctx);
		if (eq <= 0)
			return eq;
		return meet(d, btf_array(cand)->type, btf_array(canon)->type, ctx);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return meet_members(d, cand, canon, meet, ctx);
	case BTF_KIND_FUNC_PROTO:
		return meet_params(d, cand, canon, meet, ctx);
	default:
		return -EINVAL;
	}
}

static int is_equiv_meet(struct dedup *d, uint32_t cand_id, uint32_t canon_id, void *ctx)
{
	(void)ctx;
	return is_equiv_next(d, cand_id, canon_id);
}

/* >0: the graphs of @cand_id and @canon_id are equivalent; 0: not; -errno */
int dedup__is_equiv(struct dedup *d, uint32_t cand_id, uint32_t canon_id)
{
	uint32_t hypot;

	if (resolve_id(d, cand_id) == resolve_id(d, canon_id))
		return 1;
	canon_id = dedup__resolve_fwd_id(d, canon_id);
	hypot = hypot_of(d, canon_id);
	if (hypot <= MAX_NR_TYPES) {
		if (hypot == cand_id)
			return 1;
		if (d->v170)
			return identical_types(d, hypot, cand_id, IDENTICAL_DEPTH);
		return dedup__identical(d, hypot, cand_id);
	}
	if (dedup__hypot_add(d, canon_id, cand_id))
		return -ENOMEM;
	return dedup__pair_check(d, cand_id, canon_id, is_equiv_meet, NULL);
}

/* an equivalence found: what its walk paired resolves declarations and structs */
void dedup__merge_hypot(struct dedup *d)
{
	size_t i;

	for (i = 0; i < d->hypot_cnt; i++) {
		uint32_t canon = d->hypot_list[i];
		uint32_t t_id = resolve_id(d, hypot_of(d, canon)), c_id = resolve_id(d, canon);
		uint16_t t_kind = d->kinds[t_id], c_kind = d->kinds[c_id];

		if (t_kind != BTF_KIND_FWD && c_kind == BTF_KIND_FWD)
			d->map[c_id] = t_id;
		if (d->hypot_adjust_canon)
			continue;
		if (t_kind == BTF_KIND_FWD && c_kind != BTF_KIND_FWD)
			d->map[t_id] = c_id;
		if ((t_kind == BTF_KIND_STRUCT || t_kind == BTF_KIND_UNION) &&
		    c_kind != BTF_KIND_FWD && is_mapped(d, c_id) && !is_mapped(d, t_id))
			d->map[t_id] = c_id;
	}
}
