// SPDX-License-Identifier: GPL-2.0-only
/*
 * dedup_compare - the hashes and comparisons of BTF types that libbpf's
 * btf__dedup makes, field for field (btf_dedup.c says where each is used).
 * A hash is libbpf's exactly (h * 31 + field, over 64 bits): which types
 * share a hash decides which candidates a type is compared with.
 */
#include <bpf/btf.h>
#include <errno.h>

#include "dedup_compare.h"

static uint64_t hash_combine(uint64_t h, uint64_t value)
{
	return h * 31 + value;
}

uint64_t dedup_compare__hash_common(const struct btf_type *t)
{
	return hash_combine(hash_combine(hash_combine(0, t->name_off), t->info), t->size);
}

bool dedup_compare__equal_common(const struct btf_type *a, const struct btf_type *b)
{
	return a->name_off == b->name_off && a->info == b->info && a->size == b->size;
}

uint64_t dedup_compare__hash_int_tag(const struct btf_type *t)
{
	return hash_combine(dedup_compare__hash_common(t), *(const uint32_t *)(t + 1));
}

bool dedup_compare__equal_int_tag(const struct btf_type *a, const struct btf_type *b)
{
	return dedup_compare__equal_common(a, b) &&
	       *(const uint32_t *)(a + 1) == *(const uint32_t *)(b + 1);
}

uint64_t dedup_compare__hash_enum(const struct btf_type *t)
{
	return hash_combine(0, t->name_off);
}

bool dedup_compare__equal_enum(const struct btf_type *a, const struct btf_type *b)
{
	uint32_t i, n = btf_vlen(a);

	if (!dedup_compare__equal_common(a, b))
		return false;
	if (btf_kind(a) == BTF_KIND_ENUM) {
		const struct btf_enum *x = btf_enum(a), *y = btf_enum(b);

		for (i = 0; i < n; i++)
			if (x[i].name_off != y[i].name_off || x[i].val != y[i].val)
				return false;
	} else {
		const struct btf_enum64 *x = btf_enum64(a), *y = btf_enum64(b);

		for (i = 0; i < n; i++)
			if (x[i].name_off != y[i].name_off || x[i].val_lo32 != y[i].val_lo32 ||
			    x[i].val_hi32 != y[i].val_hi32)
				return false;
	}
	return true;
}

bool dedup_compare__is_enum_fwd(const struct btf_type *t)
{
	return btf_is_any_enum(t) && btf_vlen(t) == 0;
}

bool dedup_compare__compat_enum(const struct btf_type *a, const struct btf_type *b)
{
	if (!dedup_compare__is_enum_fwd(a) && !dedup_compare__is_enum_fwd(b))
		return dedup_compare__equal_enum(a, b);
	return a->name_off == b->name_off && btf_is_any_enum(a) && btf_is_any_enum(b);
}

uint64_t dedup_compare__hash_struct(const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	uint64_t h = dedup_compare__hash_common(t);
	uint32_t i;

	for (i = 0; i < btf_vlen(t); i++)
		h = hash_combine(hash_combine(h, m[i].name_off), m[i].offset);
	return h;
}

bool dedup_compare__shallow_equal_struct(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_member *x = btf_members(a), *y = btf_members(b);
	uint32_t i;

	if (!dedup_compare__equal_common(a, b))
		return false;
	for (i = 0; i < btf_vlen(a); i++)
		if (x[i].name_off != y[i].name_off || x[i].offset != y[i].offset)
			return false;
	return true;
}

uint64_t dedup_compare__hash_typedef(const struct btf_type *t)
{
	return hash_combine(hash_combine(0, t->name_off), t->info);
}

uint64_t dedup_compare__hash_array(const struct btf_type *t)
{
	const struct btf_array *a = btf_array(t);

	return hash_combine(
		hash_combine(hash_combine(dedup_compare__hash_common(t), a->type), a->index_type),
		a->nelems);
}

bool dedup_compare__equal_array(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_array *x = btf_array(a), *y = btf_array(b);

	return dedup_compare__equal_common(a, b) && x->type == y->type &&
	       x->index_type == y->index_type && x->nelems == y->nelems;
}

bool dedup_compare__compat_array(const struct btf_type *a, const struct btf_type *b)
{
	return dedup_compare__equal_common(a, b) && btf_array(a)->nelems == btf_array(b)->nelems;
}

uint64_t dedup_compare__hash_fnproto(const struct btf_type *t)
{
	const struct btf_param *p = btf_params(t);
	uint64_t h = dedup_compare__hash_common(t);
	uint32_t i;

	for (i = 0; i < btf_vlen(t); i++)
		h = hash_combine(hash_combine(h, p[i].name_off), p[i].type);
	return h;
}

bool dedup_compare__equal_fnproto(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_param *x = btf_params(a), *y = btf_params(b);
	uint32_t i;

	if (!dedup_compare__equal_common(a, b))
		return false;
	for (i = 0; i < btf_vlen(a); i++)
		if (x[i].name_off != y[i].name_off || x[i].type != y[i].type)
			return false;
	return true;
}

/* FUNC_PROTOs alike but for their return and parameter types */
bool dedup_compare__compat_fnproto(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_param *x = btf_params(a), *y = btf_params(b);
	uint32_t i;

	if (a->name_off != b->name_off || a->info != b->info)
		return false;
	for (i = 0; i < btf_vlen(a); i++)
		if (x[i].name_off != y[i].name_off)
			return false;
	return true;
}

/* a struct's own hash in the struct phase (1.7.0: typedefs too) */
uint64_t dedup_compare__hash_struct_phase(const struct btf_type *t)
{
	return btf_is_typedef(t) ? dedup_compare__hash_typedef(t) : dedup_compare__hash_struct(t);
}

bool dedup_compare__equal_struct_phase(const struct btf_type *t, const struct btf_type *cand)
{
	if (btf_is_typedef(t))
		return t->name_off == cand->name_off && t->info == cand->info;
	return dedup_compare__shallow_equal_struct(t, cand);
}

/* the hash a base type is filed under (1.7.0 too files typedefs so) */
int dedup_compare__hash_base(const struct btf_type *t, uint64_t *h)
{
	switch (btf_kind(t)) {
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
		return 0;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		*h = dedup_compare__hash_common(t);
		return 1;
	case BTF_KIND_INT:
	case BTF_KIND_DECL_TAG:
		*h = dedup_compare__hash_int_tag(t);
		return 1;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		*h = dedup_compare__hash_enum(t);
		return 1;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		*h = dedup_compare__hash_struct(t);
		return 1;
	case BTF_KIND_ARRAY:
		*h = dedup_compare__hash_array(t);
		return 1;
	case BTF_KIND_FUNC_PROTO:
		*h = dedup_compare__hash_fnproto(t);
		return 1;
	default:
		return -EINVAL;
	}
}

bool dedup_compare__equiv_prim(const struct btf_type *a, const struct btf_type *b)
{
	switch (btf_kind(a)) {
	case BTF_KIND_INT:
		return dedup_compare__equal_int_tag(a, b);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return dedup_compare__compat_enum(a, b);
	default: /* FWD, FLOAT */
		return dedup_compare__equal_common(a, b);
	}
}

uint32_t dedup_compare__group_unnamed(const struct btf_type *t, uint32_t kind)
{
	uint64_t x = hash_combine((uint64_t)t->info << 32 | t->size, kind);

	/* (an array's element and length, a prototype's or a struct's first entry) */
	if (kind == BTF_KIND_ARRAY)
		x = hash_combine(hash_combine(x, btf_array(t)->type), btf_array(t)->nelems);
	else if (kind == BTF_KIND_FUNC_PROTO && btf_vlen(t))
		x = hash_combine(hash_combine(x, btf_params(t)->type), btf_params(t)->name_off);
	else if (btf_is_composite(t) && btf_vlen(t))
		x = hash_combine(hash_combine(x, btf_members(t)->name_off), btf_members(t)->offset);
	return dedup_compare__group_of(x);
}
