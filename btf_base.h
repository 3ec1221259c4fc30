/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_base - the base BTF of split BTF (--btf_base) as the encoder reads
 * it: its strings indexed, its types and strings read in place.
 */
#ifndef BTF_BASE_H
#define BTF_BASE_H

#include <stdbool.h>
#include <stdint.h>

struct btf;
struct btf_type;
struct btf_base;

/*
 * @base (which must outlive the result, and is only read) with its
 * strings indexed. @libbpf_splits: libbpf builds split BTF on @base
 * (--exact), and its look-ups move the base's strings, so they are read
 * from a copy. NULL with *@err (-ENOMEM).
 */
struct btf_base *btf_base__new(struct btf *base, bool libbpf_splits, int *err);
void btf_base__free(struct btf_base *b);

/* the base, as libbpf's BTF */
struct btf *btf_base__btf(const struct btf_base *b);
/* the offset of string @s in the base (its first copy), or -ENOENT */
int btf_base__find_str(const struct btf_base *b, const char *s);
/* the base's type @id (0 < id < its type count) and string at @off (within its section) */
const struct btf_type *btf_base__type(const struct btf_base *b, uint32_t id);
const char *btf_base__str(const struct btf_base *b, uint32_t off);
/* the base's type count (btf__type_cnt) and string section size */
uint32_t btf_base__type_cnt(const struct btf_base *b);
uint32_t btf_base__str_len(const struct btf_base *b);

#endif /* BTF_BASE_H */
