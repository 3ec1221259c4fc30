/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dedup_compare - libbpf's hashes and comparisons of BTF types, for
 * btf_dedup. type_hash_*: the hash a type is filed and looked up under;
 * type_equal_*: the same record (referenced ids included where libbpf
 * compares them); type_compat_*: alike but for referenced ids.
 */
#ifndef DEDUP_COMPARE_H
#define DEDUP_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

struct btf_type;

uint64_t type_hash_common(const struct btf_type *t);
bool type_equal_common(const struct btf_type *a, const struct btf_type *b);
uint64_t type_hash_int_tag(const struct btf_type *t);
bool type_equal_int_tag(const struct btf_type *a, const struct btf_type *b);
uint64_t type_hash_enum(const struct btf_type *t);
bool type_equal_enum(const struct btf_type *a, const struct btf_type *b);
bool type_is_enum_fwd(const struct btf_type *t);
bool type_compat_enum(const struct btf_type *a, const struct btf_type *b);
uint64_t type_hash_struct(const struct btf_type *t);
bool type_shallow_equal_struct(const struct btf_type *a, const struct btf_type *b);
uint64_t type_hash_typedef(const struct btf_type *t);
uint64_t type_hash_array(const struct btf_type *t);
bool type_equal_array(const struct btf_type *a, const struct btf_type *b);
bool type_compat_array(const struct btf_type *a, const struct btf_type *b);
uint64_t type_hash_fnproto(const struct btf_type *t);
bool type_equal_fnproto(const struct btf_type *a, const struct btf_type *b);
/* FUNC_PROTOs alike but for their return and parameter types */
bool type_compat_fnproto(const struct btf_type *a, const struct btf_type *b);
/* a struct's own hash in the struct phase (1.7.0: typedefs too) */
uint64_t type_hash_struct_phase(const struct btf_type *t);
bool type_equal_struct_phase(const struct btf_type *t, const struct btf_type *cand);
/* INT, ENUM, ENUM64, FWD or FLOAT @a and @b (of one kind) alike in a struct's check */
bool type_equiv_prim(const struct btf_type *a, const struct btf_type *b);
/* the hash a base type is filed under (1.7.0 too files typedefs so) */
int type_hash_base(const struct btf_type *t, uint64_t *h);

#endif /* DEDUP_COMPARE_H */
