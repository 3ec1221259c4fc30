// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_raw - BTF built in plain arrays (btf_raw.h has the why).
 *
 * Layout: .types holds the type records back to back, as in a raw BTF's
 * type section, .offs[i] where type start_id + i begins; .strs the string
 * section this BTF adds (for split BTF, offsets start at the base's string
 * section size, str_start). .slots is a hash set of .strs's strings:
 * open addressing, linear probing, at most half full.
 *
 * The checks are libbpf 1.1's for the same call: byte sizes, type ids up
 * to INT_MAX, required names, enum values that fit 32 bits, bitfields,
 * offsets in unions. Members, values and parameters increment the last
 * type's vlen as libbpf does; the encoder checks vlen's 16 bits before.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "btf_base.h"
#include "btf_raw.h"
#include "d2b_util.h"

#define MAX_TYPE_ID 0x7fffffffu /* libbpf's BTF_MAX_NR_TYPES */

struct str_slot {
	uint32_t off1; /* offset in .strs plus one; 0: free */
	uint32_t hash;
};

struct btf_raw {
	struct btf_base *bb; /* split BTF: the base, or NULL */
	uint32_t start_id; /* the first id this BTF adds */
	char *types;
	uint32_t types_len, types_cap;
	uint32_t *offs; /* [id - start_id]: the type's offset in .types */
	uint32_t nr_types, cap_offs;
	char *strs;
	uint32_t strs_len, strs_cap;
	uint32_t str_start; /* the offset of .strs[0] */
	struct str_slot *slots;
	uint32_t nr_slots, cap_slots; /* cap: a power of two */
	char *raw; /* btf_raw__raw_data's */
	uint32_t raw_len;
};

struct btf_raw *btf_raw__new(struct btf_base *base)
{
	struct btf_raw *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (base) {
		r->bb = base;
		r->start_id = btf_base__type_cnt(base);
		r->str_start = btf_base__str_len(base);
		return r;
	}
	r->start_id = 1;
	/* "" at offset 0, as in every BTF that is not split */
	if (d2b_grow(&r->strs, &r->strs_cap, 1, 1)) {
		free(r);
		return NULL;
	}
	r->strs[r->strs_len++] = 0;
	return r;
}

void btf_raw__free(struct btf_raw *r)
{
	if (!r)
		return;
	if (r->types)
		munmap(r->types, r->types_cap);
	free(r->offs);
	free(r->strs);
	free(r->slots);
	free(r->raw);
	free(r);
}

void btf_raw__drop_types(struct btf_raw *r)
{
	if (r->types)
		munmap(r->types, r->types_cap);
	r->types = NULL;
	r->types_len = r->types_cap = r->nr_types = r->cap_offs = 0;
	free(r->offs);
	r->offs = NULL;
	free(r->slots);
	r->slots = NULL;
	r->nr_slots = r->cap_slots = 0;
}

void btf_raw__clear_types(struct btf_raw *r)
{
	r->types_len = r->nr_types = 0;
}

void btf_raw__room(const struct btf_raw *r, struct btf_raw_room *room)
{
	*room = (struct btf_raw_room){ r->types_len, r->nr_types, r->strs_len };
}

/*
 * The type records have a mapping of their own (d2b_map: in huge pages
 * where the kernel gives them). A vmlinux batch writes 5-6 MiB of them
 * into memory the batch before gave back (btf_raw__drop_types), and with 4 KiB
 * pages the writer takes a page fault every 4 KiB: 40% of a run's faults
 * (Documentation/performance.md, "Tuning knobs", D2B_HUGE).
 */

/* .types moved to a mapping of at least @n bytes (n > types_cap): 0 or -ENOMEM */
static int types_remap(struct btf_raw *r, uint64_t n)
{
	size_t sz;
	char *a;

	if (n > UINT32_MAX - D2B_HUGE) /* (rounded up, its size stays a uint32_t) */
		return -ENOMEM;
	a = d2b_map(n, &sz);
	if (!a)
		return -ENOMEM;
	if (r->types) {
		memcpy(a, r->types, r->types_len);
		munmap(r->types, r->types_cap);
	}
	r->types = a;
	r->types_cap = (uint32_t)sz;
	return 0;
}

/* (an eighth more, exactly: not rounded up to a power of two as d2b_grow would) */
int btf_raw__reserve(struct btf_raw *r, const struct btf_raw_room *room)
{
	uint64_t types = room->types_len + room->types_len / 8ull;

	if ((types > r->types_cap && types_remap(r, types)) ||
	    d2b_reserve(&r->offs, &r->cap_offs, room->nr_types + room->nr_types / 8ull,
			sizeof(*r->offs)) ||
	    d2b_reserve(&r->strs, &r->strs_cap, room->strs_len + room->strs_len / 8ull, 1))
		return -ENOMEM;
	return 0;
}

uint32_t btf_raw__type_cnt(const struct btf_raw *r)
{
	return r->start_id + r->nr_types;
}

/* ---------------------------------------------------------------------- */
/* strings                                                                */

/* @s's slot: its entry, or the free slot it would take; cap_slots > 0 */
static struct str_slot *str_slot(const struct btf_raw *r, const char *s, uint32_t hash)
{
	uint32_t mask = r->cap_slots - 1, i;

	for (i = hash & mask; r->slots[i].off1; i = (i + 1) & mask)
		if (r->slots[i].hash == hash && !strcmp(r->strs + r->slots[i].off1 - 1, s))
			break;
	return &r->slots[i];
}

static int slots_grow(struct btf_raw *r)
{
	struct btf_raw n = { .strs = r->strs, .cap_slots = r->cap_slots ? r->cap_slots * 2 : 1024 };
	uint32_t i;

	if (n.cap_slots > (1u << 31))
		return -ENOMEM;
	n.slots = calloc(n.cap_slots, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (i = 0; i < r->cap_slots; i++) {
		uint32_t j, mask = n.cap_slots - 1;

		if (!r->slots[i].off1)
			continue;
		for (j = r->slots[i].hash & mask; n.slots[j].off1; j = (j + 1) & mask)
			;
		n.slots[j] = r->slots[i];
	}
	free(r->slots);
	r->slots = n.slots;
	r->cap_slots = n.cap_slots;
	return 0;
}

int btf_raw__add_str(struct btf_raw *r, const char *s)
{
	struct str_slot *slot;
	uint32_t len, hash;
	int off;

	if (!*s)
		return 0;
	hash = d2b_str_hash(s, &len);
	if ((r->nr_slots + 1) * 2 > r->cap_slots && slots_grow(r))
		return -ENOMEM;
	slot = str_slot(r, s, hash);
	if (slot->off1)
		return (int)(r->str_start + slot->off1 - 1);
	/* what this BTF does not hold, libbpf looks up in the base first */
	if (r->bb) {
		off = btf_base__find_str_hashed(r->bb, s, hash);
		if (off != -ENOENT)
			return off;
	}
	if ((uint64_t)r->str_start + r->strs_len + len + 1 > INT32_MAX ||
	    d2b_grow(&r->strs, &r->strs_cap, (uint64_t)r->strs_len + len + 1, 1))
		return -ENOMEM;
	/* (the slot stays valid: the set did not grow) */
	memcpy(r->strs + r->strs_len, s, len + 1);
	*slot = (struct str_slot){ r->strs_len + 1, hash };
	r->nr_slots++;
	r->strs_len += len + 1;
	return (int)(r->str_start + slot->off1 - 1);
}

const char *btf_raw__str(const struct btf_raw *r, uint32_t off)
{
	if (off < r->str_start)
		return r->bb ? btf_base__str(r->bb, off) : NULL;
	off -= r->str_start;
	return off < r->strs_len ? r->strs + off : NULL;
}

/* ---------------------------------------------------------------------- */
/* types                                                                  */

/* make room for @sz more bytes of types: 0 or -ENOMEM */
static __attribute__((noinline)) int types_grow(struct btf_raw *r, uint32_t sz)
{
	uint64_t need = (uint64_t)r->types_len + sz;

	if (need > INT32_MAX)
		return -ENOMEM;
	return types_remap(r, need > 2ull * r->types_cap ? need : 2ull * r->types_cap);
}

/* room for @sz more bytes of types; NULL: no memory */
static inline void *type_mem(struct btf_raw *r, uint32_t sz)
{
	if (__builtin_expect((uint64_t)r->types_len + sz > r->types_cap, 0) && types_grow(r, sz))
		return NULL;
	return r->types + r->types_len;
}

static __attribute__((noinline)) int offs_grow(struct btf_raw *r)
{
	if (btf_raw__type_cnt(r) >= MAX_TYPE_ID)
		return -ENOMEM;
	return d2b_grow(&r->offs, &r->cap_offs, (uint64_t)r->nr_types + 1, sizeof(*r->offs));
}

/* a new type of @sz bytes (its record written at type_mem()): its id */
static inline int type_commit(struct btf_raw *r, uint32_t sz)
{
	if (__builtin_expect(r->nr_types == r->cap_offs, 0) && offs_grow(r))
		return -ENOMEM;
	r->offs[r->nr_types++] = r->types_len;
	r->types_len += sz;
	return (int)btf_raw__type_cnt(r) - 1;
}

/* a new type: the common part, and @extra bytes after it (zeroed); NULL: no memory */
static inline struct btf_type *type_new(struct btf_raw *r, int kind, uint32_t name, bool kflag,
					uint32_t size_type, uint32_t extra)
{
	struct btf_type *t = type_mem(r, sizeof(*t) + extra);

	if (!t)
		return NULL;
	t->name_off = name;
	t->info = ((uint32_t)kflag << 31) | ((uint32_t)kind << 24);
	t->size = size_type;
	if (extra)
		memset(t + 1, 0, extra);
	return t;
}

static inline struct btf_type *last_type(const struct btf_raw *r)
{
	return r->nr_types ? (struct btf_type *)(r->types + r->offs[r->nr_types - 1]) : NULL;
}

/* the last type, if of @kind (or a struct or union for BTF_KIND_STRUCT) */
static inline struct btf_type *last_of_kind(const struct btf_raw *r, int kind)
{
	struct btf_type *t = last_type(r);

	if (!t)
		return NULL;
	if (kind == BTF_KIND_STRUCT)
		return btf_is_composite(t) ? t : NULL;
	return btf_kind(t) == kind ? t : NULL;
}

/* one more member, value or parameter of @t; @kflag set if true */
static inline void vlen_inc(struct btf_type *t, bool kflag)
{
	t->info = ((uint32_t)(kflag || btf_kflag(t)) << 31) | ((uint32_t)btf_kind(t) << 24) |
		  (btf_vlen(t) + 1);
}

/* append @sz bytes of a member, value or parameter to the last type */
static inline void *member_mem(struct btf_raw *r, uint32_t sz)
{
	void *m = type_mem(r, sz);

	if (m)
		r->types_len += sz;
	return m;
}

int btf_raw__add_int(struct btf_raw *r, uint32_t name, uint32_t byte_sz, int encoding)
{
	struct btf_type *t;

	if (!name || !byte_sz || (byte_sz & (byte_sz - 1)) || byte_sz > 16 ||
	    (encoding & ~(BTF_INT_SIGNED | BTF_INT_CHAR | BTF_INT_BOOL)))
		return -EINVAL;
	t = type_new(r, BTF_KIND_INT, name, false, byte_sz, sizeof(uint32_t));
	if (!t)
		return -ENOMEM;
	*(uint32_t *)(t + 1) = ((uint32_t)encoding << 24) | (byte_sz * 8);
	return type_commit(r, sizeof(*t) + sizeof(uint32_t));
}

int btf_raw__add_float(struct btf_raw *r, uint32_t name, uint32_t byte_sz)
{
	if (!name ||
	    (byte_sz != 2 && byte_sz != 4 && byte_sz != 8 && byte_sz != 12 && byte_sz != 16))
		return -EINVAL;
	if (!type_new(r, BTF_KIND_FLOAT, name, false, byte_sz, 0))
		return -ENOMEM;
	return type_commit(r, sizeof(struct btf_type));
}

int btf_raw__add_ref(struct btf_raw *r, uint32_t name, int kind, uint32_t ref)
{
	if (ref > MAX_TYPE_ID || ((kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_TYPE_TAG) && !name))
		return -EINVAL;
	if (!type_new(r, kind, name, false, ref, 0))
		return -ENOMEM;
	return type_commit(r, sizeof(struct btf_type));
}

int btf_raw__add_array(struct btf_raw *r, uint32_t index_type, uint32_t elem_type,
		       uint32_t nr_elems)
{
	struct btf_type *t;
	struct btf_array *a;

	if (index_type > MAX_TYPE_ID || elem_type > MAX_TYPE_ID)
		return -EINVAL;
	t = type_new(r, BTF_KIND_ARRAY, 0, false, 0, sizeof(*a));
	if (!t)
		return -ENOMEM;
	a = btf_array(t);
	a->type = elem_type;
	a->index_type = index_type;
	a->nelems = nr_elems;
	return type_commit(r, sizeof(*t) + sizeof(*a));
}

int btf_raw__add_composite(struct btf_raw *r, uint32_t name, bool is_union, uint32_t byte_sz)
{
	if (!type_new(r, is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT, name, false, byte_sz, 0))
		return -ENOMEM;
	return type_commit(r, sizeof(struct btf_type));
}

int btf_raw__add_fields(struct btf_raw *r, const struct btf_raw_field *f, uint32_t n)
{
	struct btf_type *t = last_of_kind(r, BTF_KIND_STRUCT);
	bool any_bitfield = false;
	struct btf_member *m;
	uint32_t i;

	if (!t)
		return -EINVAL;
	m = type_mem(r, n * (uint32_t)sizeof(*m));
	if (!m)
		return -ENOMEM;
	t = last_type(r); /* (the types may have moved) */
	for (i = 0; i < n; i++) {
		bool is_bitfield = f[i].bit_size || f[i].bit_offset % 8;

		if (f[i].type > MAX_TYPE_ID ||
		    (is_bitfield &&
		     (!f[i].bit_size || f[i].bit_size > 255 || f[i].bit_offset > 0xffffff)) ||
		    (btf_is_union(t) && f[i].bit_offset))
			return -EINVAL;
		any_bitfield |= is_bitfield;
		m[i].name_off = f[i].name;
		m[i].type = f[i].type;
		m[i].offset = f[i].bit_offset | (f[i].bit_size << 24);
	}
	r->types_len += n * (uint32_t)sizeof(*m);
	t->info = ((uint32_t)(any_bitfield || btf_kflag(t)) << 31) | ((uint32_t)btf_kind(t) << 24) |
		  (btf_vlen(t) + n);
	return 0;
}

int btf_raw__add_enum(struct btf_raw *r, uint32_t name, bool is64, uint32_t byte_sz, bool is_signed)
{
	if (!byte_sz || (byte_sz & (byte_sz - 1)) || byte_sz > 8)
		return -EINVAL;
	if (!type_new(r, is64 ? BTF_KIND_ENUM64 : BTF_KIND_ENUM, name, is_signed, byte_sz, 0))
		return -ENOMEM;
	return type_commit(r, sizeof(struct btf_type));
}

int btf_raw__add_enum_value(struct btf_raw *r, uint32_t name, int64_t value)
{
	struct btf_enum *v;

	if (!last_of_kind(r, BTF_KIND_ENUM) || !name)
		return -EINVAL;
	if (value < INT32_MIN || value > UINT32_MAX)
		return -E2BIG;
	v = member_mem(r, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->name_off = name;
	v->val = (int32_t)value;
	vlen_inc(last_type(r), value < 0);
	return 0;
}

int btf_raw__add_enum64_value(struct btf_raw *r, uint32_t name, uint64_t value)
{
	struct btf_enum64 *v;

	if (!last_of_kind(r, BTF_KIND_ENUM64) || !name)
		return -EINVAL;
	v = member_mem(r, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->name_off = name;
	v->val_lo32 = (uint32_t)value;
	v->val_hi32 = (uint32_t)(value >> 32);
	vlen_inc(last_type(r), false);
	return 0;
}

int btf_raw__add_fwd(struct btf_raw *r, uint32_t name, bool is_union)
{
	if (!name)
		return -EINVAL;
	if (!type_new(r, BTF_KIND_FWD, name, is_union, 0, 0))
		return -ENOMEM;
	return type_commit(r, sizeof(struct btf_type));
}

int btf_raw__add_func_proto(struct btf_raw *r, uint32_t ret_type)
{
	if (ret_type > MAX_TYPE_ID)
		return -EINVAL;
	if (!type_new(r, BTF_KIND_FUNC_PROTO, 0, false, ret_type, 0))
		return -ENOMEM;
	return type_commit(r, sizeof(struct btf_type));
}

int btf_raw__add_func_param(struct btf_raw *r, uint32_t name, uint32_t type)
{
	struct btf_param *p;

	if (!last_of_kind(r, BTF_KIND_FUNC_PROTO) || type > MAX_TYPE_ID)
		return -EINVAL;
	p = member_mem(r, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->name_off = name;
	p->type = type;
	vlen_inc(last_type(r), false);
	return 0;
}

int btf_raw__add_var(struct btf_raw *r, uint32_t name, int linkage, uint32_t type)
{
	struct btf_type *t;

	if (!name || type > MAX_TYPE_ID ||
	    (linkage != BTF_VAR_STATIC && linkage != BTF_VAR_GLOBAL_ALLOCATED &&
	     linkage != BTF_VAR_GLOBAL_EXTERN))
		return -EINVAL;
	t = type_new(r, BTF_KIND_VAR, name, false, type, sizeof(struct btf_var));
	if (!t)
		return -ENOMEM;
	btf_var(t)->linkage = (uint32_t)linkage;
	return type_commit(r, sizeof(*t) + sizeof(struct btf_var));
}

int btf_raw__add_decl_tag(struct btf_raw *r, uint32_t value, uint32_t ref, int component_idx)
{
	struct btf_type *t;

	if (!value || ref > MAX_TYPE_ID || component_idx < -1)
		return -EINVAL;
	t = type_new(r, BTF_KIND_DECL_TAG, value, false, ref, sizeof(struct btf_decl_tag));
	if (!t)
		return -ENOMEM;
	btf_decl_tag(t)->component_idx = component_idx;
	return type_commit(r, sizeof(*t) + sizeof(struct btf_decl_tag));
}

int btf_raw__add_record(struct btf_raw *r, const struct btf_type *t, uint32_t size)
{
	void *m = type_mem(r, size);

	if (!m)
		return -ENOMEM;
	memcpy(m, t, size);
	return type_commit(r, size);
}

int btf_raw__add_datasec_var_info(struct btf_raw *r, uint32_t type, uint32_t offset,
				  uint32_t byte_sz)
{
	struct btf_var_secinfo *v;

	if (!last_of_kind(r, BTF_KIND_DATASEC) || type > MAX_TYPE_ID)
		return -EINVAL;
	v = member_mem(r, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->type = type;
	v->offset = offset;
	v->size = byte_sz;
	vlen_inc(last_type(r), false);
	return 0;
}

struct btf_type *btf_raw__type(const struct btf_raw *r, uint32_t id)
{
	if (id < r->start_id || id >= btf_raw__type_cnt(r))
		return NULL;
	return (struct btf_type *)(r->types + r->offs[id - r->start_id]);
}

int btf_raw__add_int_copy(struct btf_raw *r, const struct btf_raw *src, uint32_t id)
{
	const struct btf_type *t;
	const char *name;
	uint32_t data;
	int off;

	if (id < src->start_id || id >= btf_raw__type_cnt(src))
		return -EINVAL;
	t = (const struct btf_type *)(src->types + src->offs[id - src->start_id]);
	name = btf_raw__str(src, t->name_off);
	if (!btf_is_int(t) || !name)
		return -EINVAL;
	data = *(const uint32_t *)(t + 1);
	off = btf_raw__add_str(r, name);
	if (off < 0)
		return off;
	return btf_raw__add_int(r, (uint32_t)off, t->size, (int)BTF_INT_ENCODING(data));
}

void btf_raw__sections(struct btf_raw *r, void **types, uint32_t *types_len, const char **strs,
		       uint32_t *strs_len)
{
	*types = r->types;
	*types_len = r->types_len;
	*strs = r->strs;
	*strs_len = r->strs_len;
}

int btf_raw__set_types(struct btf_raw *r, const void *types, uint32_t len)
{
	const char *t = types;
	uint32_t pos;

	if (len > r->types_cap && types_remap(r, len))
		return -ENOMEM;
	memmove(r->types, types, len);
	r->types_len = len;
	r->nr_types = 0;
	for (pos = 0; pos < len; pos += btf_raw__record_size((const void *)(t + pos))) {
		if (r->nr_types == r->cap_offs && offs_grow(r))
			return -ENOMEM;
		r->offs[r->nr_types++] = pos;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* raw bytes                                                              */

const void *btf_raw__raw_data(struct btf_raw *r, bool swap, uint32_t *size)
{
	struct btf_header *hdr;
	char *p;

	free(r->raw);
	r->raw_len = (uint32_t)sizeof(*hdr) + r->types_len + r->strs_len;
	r->raw = malloc(r->raw_len);
	if (!r->raw)
		return NULL;
	hdr = (struct btf_header *)r->raw;
	*hdr = (struct btf_header){ .magic = BTF_MAGIC,
				    .version = BTF_VERSION,
				    .hdr_len = sizeof(*hdr),
				    .type_len = r->types_len,
				    .str_off = r->types_len,
				    .str_len = r->strs_len };
	p = r->raw + sizeof(*hdr);
	if (r->types_len)
		memcpy(p, r->types, r->types_len);
	if (r->strs_len)
		memcpy(p + r->types_len, r->strs, r->strs_len);
	if (swap) {
		d2b_bswap32_words(p, r->types_len / 4);
		hdr->magic = __builtin_bswap16(hdr->magic);
		d2b_bswap32_words(&hdr->hdr_len, 5);
	}
	*size = r->raw_len;
	return r->raw;
}

/* ---------------------------------------------------------------------- */
/* records appended: to libbpf's BTF, to another btf_raw                  */

static void names_zero(struct btf_type *t)
{
	btf_raw__map_names(t, NULL, NULL, NULL);
}

/*
 * The pages of records [*@done, @upto) of @r, copied to libbpf, leave the
 * resident set (their contents are not read again; btf_raw__free unmaps
 * them later), D2B_HUGE-aligned, so whole huge pages, at least
 * D2B_HUGE at a time: a batch and its copy are not held whole at once.
 * *@done moves to where the release ended.
 */
static void types_release(struct btf_raw *r, uint32_t *done, uint32_t upto)
{
	uintptr_t start, end;

	if (upto - *done < D2B_HUGE) /* (called for every record) */
		return;
	start = ((uintptr_t)r->types + *done + D2B_HUGE - 1) & ~(D2B_HUGE - 1);
	end = ((uintptr_t)r->types + upto) & ~(D2B_HUGE - 1);
	if (end <= start)
		return;
	madvise((void *)start, end - start, MADV_DONTNEED);
	*done = (uint32_t)(end - (uintptr_t)r->types);
}

/*
 * libbpf 1.1 appends a type record only through btf__add_type or
 * btf__add_btf, which look up every string the record names: in the BTF
 * it comes from, then with btf__add_str in the one it goes to, a hash and
 * a compare each (btf__add_btf cost 600 instructions a type on vmlinux).
 * The strings are already where they belong, so each record is added with
 * its names zeroed (nothing is looked up, so no BTF is read: the one being
 * filled stands in as the source) and then written over with the record as
 * it is. btf__add_type keeps type ids as they are, as split BTF needs.
 * Record @t (@sz bytes) so appended to @btf, its unnamed copy made in
 * *@scratch: its id in @btf, or -errno.
 */
static int add_as_is(struct btf *btf, const struct btf_type *t, uint32_t sz,
		     struct btf_type **scratch, uint32_t *cap)
{
	int id;

	if (d2b_grow(scratch, cap, sz, 1))
		return -ENOMEM;
	memcpy(*scratch, t, sz);
	names_zero(*scratch);
	id = btf__add_type(btf, btf, *scratch);
	if (id >= 0)
		memcpy((void *)btf__type_by_id(btf, (uint32_t)id), t, sz);
	return id;
}

struct btf *btf_raw__to_btf(struct btf_raw *r, int *err)
{
	struct btf_type *scratch = NULL;
	uint32_t off, i, cap = 0, released = 0;
	struct btf *btf = NULL, *base = NULL;
	int got = -ENOMEM;

	if (r->bb) {
		base = btf_base__btf(r->bb, &got);
		if (!base)
			goto fail;
	}
	btf = base ? btf__new_empty_split(base) : btf__new_empty();
	if (!btf) {
		got = -ENOMEM;
		goto fail;
	}
	/* the strings first, in order: libbpf's string section as it would have built it */
	for (off = base ? 0 : 1; off < r->strs_len; off += (uint32_t)strlen(r->strs + off) + 1) {
		got = btf__add_str(btf, r->strs + off);
		if (got != (int)(r->str_start + off))
			goto fail;
	}
	free(r->slots);
	r->slots = NULL;
	for (i = 0; i < r->nr_types; i++) {
		const char *t = r->types + r->offs[i];
		uint32_t sz = (i + 1 < r->nr_types ? r->offs[i + 1] : r->types_len) - r->offs[i];

		got = add_as_is(btf, (const struct btf_type *)t, sz, &scratch, &cap);
		if (got != (int)(r->start_id + i))
			goto fail;
		types_release(r, &released, r->offs[i] + sz);
	}
	free(scratch);
	btf_raw__free(r);
	return btf;

fail:
	/* a failed add or an offset that moved (a bug) */
	*err = got < 0 ? got : -EINVAL;
	free(scratch);
	btf__free(btf);
	btf_raw__free(r);
	return NULL;
}

static int id_shift(uint32_t *id, void *ctx)
{
	if (*id)
		*id += *(const uint32_t *)ctx;
	return 0;
}

int btf_raw__append_mapped(struct btf_raw *r, const void *types, uint32_t len,
			   int (*id)(uint32_t *id, void *ctx), void *id_ctx,
			   uint32_t (*str)(void *ctx, uint32_t off, int *err), void *str_ctx)
{
	uint32_t pos, sz;
	int type_id, err = 0;
	char *dst;

	if (!len)
		return 0;
	dst = type_mem(r, len);
	if (!dst)
		return -ENOMEM;
	memcpy(dst, types, len);
	/* (type_mem made room for all: type_commit moves past one record at a time) */
	for (pos = 0; pos < len && !err; pos += sz) {
		struct btf_type *t = (struct btf_type *)(dst + pos);

		sz = btf_raw__record_size(t);
		if (sz > len - pos)
			return -EINVAL;
		type_id = type_commit(r, sz);
		if (type_id < 0)
			return type_id;
		err = btf_raw__visit_ids(t, id, id_ctx);
		if (!err)
			btf_raw__map_names(t, str, str_ctx, &err);
	}
	return err;
}

int btf_raw__append_records(struct btf_raw *r, const void *types, uint32_t len, uint32_t shift,
			    uint32_t (*str)(void *ctx, uint32_t off, int *err), void *ctx)
{
	return btf_raw__append_mapped(r, types, len, id_shift, &shift, str, ctx);
}
