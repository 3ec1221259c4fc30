/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_base - the base BTF of split BTF (--btf_base) as the encoder reads
 * it: checked, its strings indexed, its types and strings read in place.
 */
#ifndef BTF_BASE_H
#define BTF_BASE_H

#include <stddef.h>
#include <stdint.h>

struct btf;
struct btf_type;
struct btf_base;

/*
 * The raw BTF @data (@size bytes, either byte order; it must outlive the
 * result) as a base: checked by btf_check (what is wrong in @why), its
 * strings indexed. NULL with *@err: -ENOMSG (no BTF at all), -EINVAL (in
 * @why) or -ENOMEM.
 */
struct btf_base *btf_base__new(const void *data, size_t size, char *why, size_t why_size, int *err);
/*
 * The --btf_base @path: an ELF file's .BTF (read in the file's mapping) or
 * raw BTF, as btf_base__new. NULL with *@err and one line on failure.
 */
struct btf_base *btf_base__open(const char *path, int *err);
void btf_base__free(struct btf_base *b);

/* the base as libbpf's BTF, made on the first call (--exact); NULL with *@err */
struct btf *btf_base__btf(struct btf_base *b, int *err);
/* the offset of string @s in the base (its first copy), or -ENOENT */
int btf_base__find_str(const struct btf_base *b, const char *s);
/* the same for a non-empty @s whose d2b_str_hash is @h, hashed already */
int btf_base__find_str_hashed(const struct btf_base *b, const char *s, uint32_t h);
/* the base's type @id (0 < id < its type count) and string at @off (within its section) */
const struct btf_type *btf_base__type(const struct btf_base *b, uint32_t id);
const char *btf_base__str(const struct btf_base *b, uint32_t off);
/* @types[id] = the base's type @id, for 0 < id < its type count */
void btf_base__types(const struct btf_base *b, const struct btf_type **types);
/* the kinds of the base's types by id, 0 <= id < its type count ([0], void's, 0) */
const uint8_t *btf_base__kinds(const struct btf_base *b);
/* the base's type count (btf__type_cnt) and string section size */
uint32_t btf_base__type_cnt(const struct btf_base *b);
uint32_t btf_base__str_len(const struct btf_base *b);

#endif /* BTF_BASE_H */
