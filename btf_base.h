/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_base - the base BTF of split BTF (--btf_base) as the encoder reads
 * it: its strings indexed here, and what libbpf builds the split BTF on.
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
 * strings indexed. With @stand_in, libbpf gets a stand-in base to build
 * split BTF on (btf_base__libbpf): as many types and as long a string
 * section, but strings libbpf finds none of, so that it never copies and
 * hashes the real one; the encoder then looks base strings up here, and
 * reads base types and strings through btf_base__type and __str. NULL
 * with *@err (-ENOMEM).
 */
struct btf_base *btf_base__new(struct btf *base, bool stand_in, int *err);
void btf_base__free(struct btf_base *b);

/* the real base */
struct btf *btf_base__btf(const struct btf_base *b);
/* the base split BTF is built on with libbpf: the stand-in, or the real base */
struct btf *btf_base__libbpf(const struct btf_base *b);
/* the offset of string @s in the base (its first copy), or -ENOENT */
int btf_base__find_str(const struct btf_base *b, const char *s);
/* the base's type @id (0 < id < its type count) and string at @off (within its section) */
const struct btf_type *btf_base__type(const struct btf_base *b, uint32_t id);
const char *btf_base__str(const struct btf_base *b, uint32_t off);
/* the base's type count (btf__type_cnt) and string section size */
uint32_t btf_base__type_cnt(const struct btf_base *b);
uint32_t btf_base__str_len(const struct btf_base *b);

#endif /* BTF_BASE_H */
