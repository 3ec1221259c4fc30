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

static uint64_t type_hash_combine(uint64_t h, uint64_t value)
{
	return h * 31 + value;
}

uint64_t type_hash_common(const struct btf_type *t)
{
	return type_hash_combine(type_hash_combine(type_hash_combine(0, t->name_off), t->info),
				 t->size);
}

bool type_equal_common(const struct btf_type *a, const struct btf_type *b)
{
	return a->name_off == b->name_off && a->info == b->info && a->size == b->size;
}

uint64_t type_hash_int_tag(const struct btf_type *t)
{
	return type_hash_combine(type_hash_common(t), *(const uint32_t *)(t + 1));
}

bool type_equal_int_tag(const struct btf_type *a, const struct btf_type *b)
{
	return type_equal_common(a, b) && *(const uint32_t *)(a + 1) == *(const uint32_t *)(b + 1);
}

uint64_t type_hash_enum(const struct btf_type *t)
{
	return type_hash_combine(0, t->name_off);
}

bool type_equal_enum(const struct btf_type *a, const struct btf_type *b)
{
	uint32_t i, n = btf_vlen(a);

	if (!type_equal_common(a, b))
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

bool type_is_enum_fwd(const struct btf_type *t)
{
	return btf_is_any_enum(t) && btf_vlen(t) == 0;
}

bool type_compat_enum(const struct btf_type *a, const struct btf_type *b)
{
	if (!type_is_enum_fwd(a) && !type_is_enum_fwd(b))
		return type_equal_enum(a, b);
	return a->name_off == b->name_off && btf_is_any_enum(a) && btf_is_any_enum(b);
}

uint64_t type_hash_struct(const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	uint64_t h = type_hash_common(t);
	uint32_t i;

	for (i = 0; i < btf_vlen(t); i++)
		h = type_hash_combine(type_hash_combine(h, m[i].name_off), m[i].offset);
	return h;
}

bool type_shallow_equal_struct(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_member *x = btf_members(a), *y = btf_members(b);
	uint32_t i;

	if (!type_equal_common(a, b))
		return false;
	for (i = 0; i < btf_vlen(a); i++)
		if (x[i].name_off != y[i].name_off || x[i].offset != y[i].offset)
			return false;
	return true;
}

uint64_t type_hash_typedef(const struct btf_type *t)
{
	return type_hash_combine(type_hash_combine(0, t->name_off), t->info);
}

uint64_t type_hash_array(const struct btf_type *t)
{
	const struct btf_array *a = btf_array(t);

	return type_hash_combine(
		type_hash_combine(type_hash_combine(type_hash_common(t), a->type), a->index_type),
		a->nelems);
}

bool type_equal_array(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_array *x = btf_array(a), *y = btf_array(b);

	return type_equal_common(a, b) && x->type == y->type && x->index_type == y->index_type &&
	       x->nelems == y->nelems;
}

bool type_compat_array(const struct btf_type *a, const struct btf_type *b)
{
	return type_equal_common(a, b) && btf_array(a)->nelems == btf_array(b)->nelems;
}

uint64_t type_hash_fnproto(const struct btf_type *t)
{
	const struct btf_param *p = btf_params(t);
	uint64_t h = type_hash_common(t);
	uint32_t i;

	for (i = 0; i < btf_vlen(t); i++)
		h = type_hash_combine(type_hash_combine(h, p[i].name_off), p[i].type);
	return h;
}

bool type_equal_fnproto(const struct btf_type *a, const struct btf_type *b)
{
	const struct btf_param *x = btf_params(a), *y = btf_params(b);
	uint32_t i;

	if (!type_equal_common(a, b))
		return false;
	for (i = 0; i < btf_vlen(a); i++)
		if (x[i].name_off != y[i].name_off || x[i].type != y[i].type)
			return false;
	return true;
}

/* FUNC_PROTOs alike but for their return and parameter types */
bool type_compat_fnproto(const struct btf_type *a, const struct btf_type *b)
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
uint64_t type_hash_struct_phase(const struct btf_type *t)
{
	return btf_is_typedef(t) ? type_hash_typedef(t) : type_hash_struct(t);
}

bool type_equal_struct_phase(const struct btf_type *t, const struct btf_type *cand)
{
	if (btf_is_typedef(t))
		return t->name_off == cand->name_off && t->info == cand->info;
	return type_shallow_equal_struct(t, cand);
}

/* the hash a base type is filed under (1.7.0 too files typedefs so) */
int type_hash_base(const struct btf_type *t, uint64_t *h)
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
		*h = type_hash_common(t);
		return 1;
	case BTF_KIND_INT:
	case BTF_KIND_DECL_TAG:
		*h = type_hash_int_tag(t);
		return 1;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		*h = type_hash_enum(t);
		return 1;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		*h = type_hash_struct(t);
		return 1;
	case BTF_KIND_ARRAY:
		*h = type_hash_array(t);
		return 1;
	case BTF_KIND_FUNC_PROTO:
		*h = type_hash_fnproto(t);
		return 1;
	default:
		return -EINVAL;
	}
}

bool type_equiv_prim(const struct btf_type *a, const struct btf_type *b)
{
	switch (btf_kind(a)) {
	case BTF_KIND_INT:
		return type_equal_int_tag(a, b);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return type_compat_enum(a, b);
	default: /* FWD, FLOAT */
		return type_equal_common(a, b);
	}
}
