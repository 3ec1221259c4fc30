/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dedup_compare - libbpf's hashes and comparisons of BTF types, for
 * btf_dedup. dedup_compare__hash_*: the hash a type is filed and looked up
 * under; dedup_compare__equal_*: the same record (referenced ids included
 * where libbpf compares them); dedup_compare__compat_*: alike but for
 * referenced ids.
 */
#ifndef DEDUP_COMPARE_H
#define DEDUP_COMPARE_H

#include <bpf/btf.h>
#include <stdbool.h>
#include <stdint.h>

uint64_t dedup_compare__hash_common(const struct btf_type *t);
bool dedup_compare__equal_common(const struct btf_type *a, const struct btf_type *b);
uint64_t dedup_compare__hash_int_tag(const struct btf_type *t);
bool dedup_compare__equal_int_tag(const struct btf_type *a, const struct btf_type *b);
uint64_t dedup_compare__hash_enum(const struct btf_type *t);
bool dedup_compare__equal_enum(const struct btf_type *a, const struct btf_type *b);
bool dedup_compare__is_enum_fwd(const struct btf_type *t);
bool dedup_compare__compat_enum(const struct btf_type *a, const struct btf_type *b);
uint64_t dedup_compare__hash_struct(const struct btf_type *t);
bool dedup_compare__shallow_equal_struct(const struct btf_type *a, const struct btf_type *b);
uint64_t dedup_compare__hash_typedef(const struct btf_type *t);
uint64_t dedup_compare__hash_array(const struct btf_type *t);
bool dedup_compare__equal_array(const struct btf_type *a, const struct btf_type *b);
bool dedup_compare__compat_array(const struct btf_type *a, const struct btf_type *b);
uint64_t dedup_compare__hash_fnproto(const struct btf_type *t);
bool dedup_compare__equal_fnproto(const struct btf_type *a, const struct btf_type *b);
/* FUNC_PROTOs alike but for their return and parameter types */
bool dedup_compare__compat_fnproto(const struct btf_type *a, const struct btf_type *b);
/* a struct's own hash in the struct phase (1.7.0: typedefs too) */
uint64_t dedup_compare__hash_struct_phase(const struct btf_type *t);
bool dedup_compare__equal_struct_phase(const struct btf_type *t, const struct btf_type *cand);
/* INT, ENUM, ENUM64, FWD or FLOAT @a and @b (of one kind) alike in a struct's check */
bool dedup_compare__equiv_prim(const struct btf_type *a, const struct btf_type *b);
/* the hash a base type is filed under (1.7.0 too files typedefs so) */
int dedup_compare__hash_base(const struct btf_type *t, uint64_t *h);
/* dedup_compare__group of an unnamed @t, of @kind (ENUM64 as ENUM), out of line */
uint32_t dedup_compare__group_unnamed(const struct btf_type *t, uint32_t kind);

/* the group of the key @x a type is grouped by */
static inline uint32_t dedup_compare__group_of(uint64_t x)
{
	return (uint32_t)(x * 0x9e3779b97f4a7c15ull >> 32);
}

/*
 * @t's group: two types that a comparison above finds alike (equal,
 * compatible, or alike in the struct phase) are of one group. Named: of
 * the same name and kind (ENUM64 as ENUM); unnamed, of the same info and
 * size, and an array of the same element and length, a prototype of the
 * same first parameter, a struct or union of the same first member's name
 * and offset; enums and typedefs by name and kind alone, as compat_enum
 * and a typedef's struct-phase check look no further.
 * (Inline: a module's dedup groups every type of its base, 10^5 of them.)
 */
static inline uint32_t dedup_compare__group(const struct btf_type *t)
{
	uint32_t kind = btf_kind(t) == BTF_KIND_ENUM64 ? BTF_KIND_ENUM : btf_kind(t);

	if (t->name_off || kind == BTF_KIND_ENUM || kind == BTF_KIND_TYPEDEF)
		return dedup_compare__group_of((uint64_t)t->name_off << 5 | kind);
	return dedup_compare__group_unnamed(t, kind);
}

#endif /* DEDUP_COMPARE_H */
