/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_raw - BTF types and strings appended to plain arrays, deduplicated
 * by btf_dedup and written out as they are; handed to libbpf in one piece
 * only where libbpf deduplicates (--exact).
 *
 * The encoder's writer adds about 1.4 M types and 3.4 M members to the
 * batches of vmlinux; through libbpf's btf__add_* each call costs 100-170
 * instructions and each new string 850 (its hash map allocates an entry),
 * two thirds of the writer's time. Here a type is a few stores and a string
 * an open-addressing look-up. A vmlinux batch, deduplicated on its own
 * thread, is appended to the merged btf_raw (btf_raw__append_records); a
 * module's split BTF is the writer's btf_raw to the end. A BTF libbpf
 * deduplicates is handed over whole (btf_raw__to_btf).
 *
 * Same bytes: every btf_raw__add_* writes the record libbpf's btf__add_*
 * writes and returns what it returns, for the arguments the encoder passes
 * (names as string offsets, 0 for none; a required name missing is -EINVAL
 * as there). Strings get the offsets libbpf's btf__add_str would give:
 * appended in order of first insertion, equal strings once, and for split
 * BTF a string the base holds at the base's offset. btf_raw__to_btf()
 * re-adds the strings in that order to a from-scratch libbpf BTF, so it is
 * the BTF the same btf__add_* calls would have built, string section
 * included (which btf__dedup keeps as built: see btf_batches.c), and
 * btf_raw__raw_data lays out the bytes btf__raw_data gives for it.
 *
 * One thread at a time: a btf_raw is its writer's; for split BTF the base's
 * strings are looked up in btf_base's index.
 */
#ifndef BTF_RAW_H
#define BTF_RAW_H

#include <stdbool.h>
#include <stdint.h>

struct btf;
struct btf_base;
struct btf_raw;
struct btf_type;

/* an empty BTF, or split BTF on @base (which must outlive it); NULL: no memory */
struct btf_raw *btf_raw__new(struct btf_base *base);
void btf_raw__free(struct btf_raw *r);
/* @r's type records and string index go: only its string section is left to read */
void btf_raw__drop_types(struct btf_raw *r);

/* @r's type records gone, their memory kept for the next ones */
void btf_raw__clear_types(struct btf_raw *r);

/* how much a BTF holds: its type records' bytes, types and string bytes */
struct btf_raw_room {
	uint32_t types_len, nr_types, strs_len;
};

void btf_raw__room(const struct btf_raw *r, struct btf_raw_room *room);
/*
 * Make room for @room and an eighth more at once, rather than growing by
 * doubling as types are added: each doubling copies the arrays into new
 * memory, whose pages fault in (the type records have a mapping of their
 * own, in huge pages where the kernel gives them; the other arrays come
 * from malloc, and one past its mmap threshold would be new pages every
 * time). 0 or -ENOMEM.
 */
int btf_raw__reserve(struct btf_raw *r, const struct btf_raw_room *room);

/* the id the next type gets, as btf__type_cnt() */
uint32_t btf_raw__type_cnt(const struct btf_raw *r);

/* the string offset of @s, added if new (0 for ""); or -errno */
int btf_raw__add_str(struct btf_raw *r, const char *s);

/* each: the new type's id (or 0 for a member, value or parameter), or -errno */
int btf_raw__add_int(struct btf_raw *r, uint32_t name, uint32_t byte_sz, int encoding);
int btf_raw__add_float(struct btf_raw *r, uint32_t name, uint32_t byte_sz);
/* PTR, CONST, VOLATILE, RESTRICT (no name), TYPEDEF, TYPE_TAG (named) */
int btf_raw__add_ref(struct btf_raw *r, uint32_t name, int kind, uint32_t ref);
int btf_raw__add_array(struct btf_raw *r, uint32_t index_type, uint32_t elem_type,
		       uint32_t nr_elems);
int btf_raw__add_composite(struct btf_raw *r, uint32_t name, bool is_union, uint32_t byte_sz);
/* the members of the struct or union just added, as libbpf's btf__add_field for each */
struct btf_raw_field {
	uint32_t name, type, bit_offset, bit_size;
};
int btf_raw__add_fields(struct btf_raw *r, const struct btf_raw_field *f, uint32_t n);
/* ENUM (@is_signed false) or ENUM64 */
int btf_raw__add_enum(struct btf_raw *r, uint32_t name, bool is64, uint32_t byte_sz,
		      bool is_signed);
int btf_raw__add_enum_value(struct btf_raw *r, uint32_t name, int64_t value);
int btf_raw__add_enum64_value(struct btf_raw *r, uint32_t name, uint64_t value);
int btf_raw__add_fwd(struct btf_raw *r, uint32_t name, bool is_union);
int btf_raw__add_func_proto(struct btf_raw *r, uint32_t ret_type);
int btf_raw__add_func_param(struct btf_raw *r, uint32_t name, uint32_t type);
int btf_raw__add_var(struct btf_raw *r, uint32_t name, int linkage, uint32_t type);
int btf_raw__add_decl_tag(struct btf_raw *r, uint32_t value, uint32_t ref, int component_idx);
/* a secinfo of the DATASEC just added */
int btf_raw__add_datasec_var_info(struct btf_raw *r, uint32_t type, uint32_t offset,
				  uint32_t byte_sz);
/*
 * record @t (@size bytes, names as offsets @r holds) appended as it is, as
 * btf__add_type appends an unnamed copy that is then named: its id
 */
int btf_raw__add_record(struct btf_raw *r, const struct btf_type *t, uint32_t size);

/* type @id that @r added (writable: its owner's), or NULL */
struct btf_type *btf_raw__type(const struct btf_raw *r, uint32_t id);
/* the string at offset @off (for split BTF, the base's below its end), or NULL */
const char *btf_raw__str(const struct btf_raw *r, uint32_t off);

/* a copy of INT type @id of @src, with its name, appended to @r; its id or -errno */
int btf_raw__add_int_copy(struct btf_raw *r, const struct btf_raw *src, uint32_t id);

/*
 * @r's type records (writable: what rewrites them owns @r) and string
 * section (offsets from the base's end for split BTF), as they are
 */
void btf_raw__sections(struct btf_raw *r, void **types, uint32_t *types_len, const char **strs,
		       uint32_t *strs_len);

/* a type record's info word */
#define BTF_RAW_INFO(kind, kflag, vlen) \
	(((uint32_t)(kflag) << 31) | ((uint32_t)(kind) << 24) | (uint32_t)(vlen))

/* the bytes of the type record at @t: struct btf_type and what follows it */
uint32_t btf_raw__record_size(const struct btf_type *t);

/*
 * @r's type records replaced by @types (@len bytes, whole records; the
 * string section stays): a deduplicated copy. 0 or -ENOMEM.
 */
int btf_raw__set_types(struct btf_raw *r, const void *types, uint32_t len);

/*
 * @r as the raw BTF btf__raw_data gives for the BTF the same calls build
 * (header, type records, strings; for split BTF only what it adds), each
 * 32-bit field byte-swapped if @swap (a target of the other byte order).
 * @r's until it is freed or asked again; NULL: no memory.
 */
const void *btf_raw__raw_data(struct btf_raw *r, bool swap, uint32_t *size);

/*
 * The libbpf BTF (split on the base given to btf_raw__new) that the same
 * btf__add_* and btf__add_str calls would have built; NULL with *@err.
 * Frees @r, its arrays as soon as they are copied.
 */
struct btf *btf_raw__to_btf(struct btf_raw *r, int *err);

/*
 * fn(&id, @ctx) for every type id type record @t refers to, in libbpf's
 * btf_type_visit_type_ids order; 0, or the first nonzero fn returned
 */
int btf_raw__visit_ids(struct btf_type *t, int (*fn)(uint32_t *id, void *ctx), void *ctx);

/*
 * Every string offset of type record @t (its name, its members', values' or
 * parameters'), in libbpf's btf_type_visit_str_offs order, set to @map(@ctx,
 * offset, @err), or to 0 without @map; a @map that cannot map an offset
 * sets *@err.
 */
void btf_raw__map_names(struct btf_type *t, uint32_t (*map)(void *ctx, uint32_t off, int *err),
			void *ctx, int *err);

/*
 * Append the type records @types (@len bytes, whole records) to @r, as
 * btf__add_btf would append the BTF holding them: every nonzero type id
 * plus @shift, every nonzero string offset @str(@ctx, offset, &err) (an
 * offset @r holds the string at; @str sets err, and keeps it, for one it
 * cannot map). No string is looked up. 0 or -errno (then @r holds some of
 * them).
 */
int btf_raw__append_records(struct btf_raw *r, const void *types, uint32_t len, uint32_t shift,
			    uint32_t (*str)(void *ctx, uint32_t off, int *err), void *ctx);

/*
 * The same, every type id @id(&id, @id_ctx)'d instead of shifted (an @id
 * that fails stops the append with its error)
 */
int btf_raw__append_mapped(struct btf_raw *r, const void *types, uint32_t len,
			   int (*id)(uint32_t *id, void *ctx), void *id_ctx,
			   uint32_t (*str)(void *ctx, uint32_t off, int *err), void *str_ctx);

#endif /* BTF_RAW_H */
