// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_encoder_cu - a CU's BTF, built on the loader worker that loaded it
 * (btf_encoder__prepare_cu) and appended in CU order (cu_btf__append) by
 * its batch's thread (btf_encoder_batch.c), or by the writer for one BTF.
 *
 * The records need to know neither the CU's place in the stream nor the
 * string section, so any number of workers build them at once: a CU's
 * struct cu_btf holds its type records as the writer would add them, with
 * ids and names of their own.
 *  - Ids: the CU's type i has id i (its types[] index; void 0), the array
 *    index type is CU_BTF_INDEX_TYPE, and the records after the types (the
 *    type decl tags, then the VARs with their decl tags) follow from
 *    cu->nr_types on. The append maps them as the collector's plan says: i
 *    to first_new + i - 1, the array index type to the plan's, a later
 *    record one further on where the plan puts "int" between the types and
 *    the decl tags.
 *  - Names: a record's name (member, value, parameter name) is the number,
 *    from 1 on, of its place in the order the records name them (no name,
 *    or "", is 0); names[k - 1] is the name: in .debug_str, which stays
 *    put while the encoder runs, or a copy in the struct cu_btf (cu_btf_of).
 *    The append adds the records one by one and interns each name as it
 *    meets it (names__intern), which is the order in which the writer
 *    built and named the records itself: the string section is the same,
 *    and so is every byte.
 * The checks the writer made on the way are made here, with the same
 * messages: a CU that fails them fails to load (the first such unit is
 * reported, encode_pipeline.c), and so does one whose function has more
 * parameters than BTF counts (funcs__check), in the order the writer met
 * them.
 *
 * A builder (its btf_raw and arrays, grown for the largest CU so far) is
 * taken from the encoder's pool (a d2b_idle_pool, its own lock) for each
 * CU and put back: as many builders as workers build at once.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "btf_encoder_priv.h"
#include "btf_raw.h"
#include "cu.h"
#include "d2b_conf.h"
#include "d2b_util.h"

/* the array index type's id in a struct cu_btf, the highest BTF allows */
#define CU_BTF_INDEX_TYPE 0x7fffffffu

struct cu_btf_var {
	int shndx;
	uint32_t id; /* the VAR's, as the cu_btf numbers it */
	uint32_t offset, size;
};

/* one malloc'ed block: the struct, then vars[], names[], recs */
struct cu_btf {
	uint32_t nr_types; /* cu->nr_types: the first id after the types */
	uint32_t len[CU_BTF_PARTS]; /* bytes of records, each part's */
	uint32_t nr[CU_BTF_PARTS]; /* records, each part's */
	uint32_t nr_vars, nr_names;
	struct cu_btf_var *vars;
	const char **names;
	char *recs;
};

struct cu_btf_builder {
	struct d2b_idle link; /* in the pool, idle */
	struct btf_raw *raw; /* the records, the CU's ids */
	const char **names;
	uint32_t nr_names, cap_names;
	struct cu_btf_var *vars;
	uint32_t nr_vars, cap_vars;
	struct btf_raw_field *fields; /* encode_struct's members */
	uint32_t cap_fields;
	uint32_t part_end[CU_BTF_PARTS]; /* the records' bytes at each part's end */
	uint32_t part_nr[CU_BTF_PARTS];
};

static void builder_free(struct cu_btf_builder *b)
{
	btf_raw__free(b->raw);
	free(b->names);
	free(b->vars);
	free(b->fields);
	free(b);
}

void cu_btf_pool__free(struct d2b_idle_pool *pool)
{
	struct cu_btf_builder *b;

	if (!pool)
		return;
	while ((b = d2b_idle_pool__take(pool)))
		builder_free(b);
	d2b_idle_pool__free(pool);
}

static struct cu_btf_builder *builder_take(struct d2b_idle_pool *pool)
{
	struct cu_btf_builder *b = d2b_idle_pool__take(pool);

	if (b)
		return b;
	b = calloc(1, sizeof(*b));
	if (b)
		b->raw = btf_raw__new(NULL);
	if (b && !b->raw) {
		free(b);
		b = NULL;
	}
	return b;
}

/* ---------------------------------------------------------------------- */
/* building, on the worker                                                */

/* @s's name number (0: no name), or -ENOMEM */
static inline int name_of(struct cu_btf_builder *b, const char *s)
{
	if (!s || !*s)
		return 0;
	if (b->nr_names == b->cap_names &&
	    d2b_grow(&b->names, &b->cap_names, (uint64_t)b->nr_names + 1, sizeof(*b->names)))
		return -ENOMEM;
	b->names[b->nr_names++] = s;
	return (int)b->nr_names;
}

/* the name numbered first, then the record, named by number */
#define add_numbered(b, add, name, ...)                                            \
	({                                                                         \
		int __off = name_of(b, name);                                      \
		__off < 0 ? __off : add((b)->raw, (uint32_t)__off, ##__VA_ARGS__); \
	})

static int encode_base_type(const struct btf_encoder *enc, struct cu_btf_builder *b,
			    const struct cu_type *t)
{
	const char *name = t->name;
	uint64_t size = t->size;
	int encoding = 0;

	if (t->encoding == DW_ATE_signed || t->encoding == DW_ATE_signed_char)
		encoding = BTF_INT_SIGNED;
	else if (t->encoding == DW_ATE_boolean)
		encoding = BTF_INT_BOOL;
	else if (t->encoding == DW_ATE_float && enc->conf->gen_floats)
		return add_numbered(b, btf_raw__add_float, name,
				    size > UINT32_MAX ? 0 : (uint32_t)size);

	/* DWARF 5 DW_ATE_unsigned_24 and friends: BTF has no use for them */
	if (!size || (size & (size - 1)) || size > 16) {
		name = "__SANITIZED_FAKE_INT__";
		size = 4;
	}
	return add_numbered(b, btf_raw__add_int, name, (uint32_t)size, encoding);
}

static int encode_enum(const struct btf_encoder *enc, struct cu_btf_builder *b, const struct cu *cu,
		       const struct cu_type *t)
{
	uint64_t size = t->size ? t->size : 4;
	bool is_enum32 = size <= 4 || enc->conf->skip_enum64;
	uint32_t i;
	int off, id, err;

	off = name_of(b, t->name);
	if (off < 0)
		return off;
	if (t->flags & CU_TYPE_DECLARATION)
		return btf_raw__add_enum(b->raw, (uint32_t)off, false, 4, false);
	/* (sizes as libbpf's 32-bit arguments take them) */
	id = btf_raw__add_enum(b->raw, (uint32_t)off, !is_enum32, (uint32_t)size,
			       !is_enum32 && (t->flags & CU_TYPE_SIGNED_ENUM));
	if (id < 0)
		return id;
	for (i = 0; i < t->nr; i++) {
		const struct cu_enumerator *e = &cu->enumerators[t->first + i];

		err = name_of(b, e->name);
		if (err < 0)
			return err;
		off = err;
		if (!is_enum32)
			err = btf_raw__add_enum64_value(b->raw, (uint32_t)off, e->value);
		else if (enc->conf->skip_enum64)
			err = btf_raw__add_enum_value(b->raw, (uint32_t)off, (uint32_t)e->value);
		else
			err = btf_raw__add_enum_value(b->raw, (uint32_t)off, (int64_t)e->value);
		if (err)
			return err;
	}
	return id;
}

static int encode_struct(struct cu_btf_builder *b, const struct cu *cu, const struct cu_type *t)
{
	/* a CU without members has none: no pointer arithmetic on NULL */
	const struct cu_member *members = t->nr ? &cu->members[t->first] : NULL;
	bool is_union = t->tag == DW_TAG_union_type;
	uint32_t i;
	int id, err;

	if (t->flags & CU_TYPE_DECLARATION)
		return add_numbered(b, btf_raw__add_fwd, t->name, is_union);
	if (d2b_grow(&b->fields, &b->cap_fields, t->nr, sizeof(*b->fields)))
		return -ENOMEM;
	id = add_numbered(b, btf_raw__add_composite, t->name, is_union, (uint32_t)t->size);
	if (id < 0)
		return id;
	for (i = 0; i < t->nr; i++) {
		err = name_of(b, members[i].name);
		if (err < 0)
			return err;
		b->fields[i] =
			(struct btf_raw_field){ (uint32_t)err, members[i].type,
						members[i].bit_offset, members[i].bitfield_size };
	}
	err = btf_raw__add_fields(b->raw, b->fields, t->nr);
	return err ? err : id;
}

static int encode_func_proto(struct cu_btf_builder *b, const struct cu *cu, const struct cu_type *t)
{
	uint32_t i;
	int id, err;

	id = btf_raw__add_func_proto(b->raw, t->type);
	if (id < 0)
		return id;
	for (i = 0; i < t->nr; i++) {
		const struct cu_param *p = &cu->params[t->first + i];

		err = p->vararg ? 0 : name_of(b, p->name);
		if (err < 0)
			return err;
		err = btf_raw__add_func_param(b->raw, (uint32_t)err, p->vararg ? 0 : p->type);
		if (err)
			return err;
	}
	return id;
}

static int encode_type(const struct btf_encoder *enc, struct cu_btf_builder *b, const struct cu *cu,
		       const struct cu_type *t)
{
	uint32_t ref = t->type;

	switch (t->tag) {
	case DW_TAG_base_type:
		return encode_base_type(enc, b, t);
	case DW_TAG_pointer_type:
		return btf_raw__add_ref(b->raw, 0, BTF_KIND_PTR, ref);
	case DW_TAG_const_type:
		return btf_raw__add_ref(b->raw, 0, BTF_KIND_CONST, ref);
	case DW_TAG_volatile_type:
		return btf_raw__add_ref(b->raw, 0, BTF_KIND_VOLATILE, ref);
	case DW_TAG_restrict_type:
		return btf_raw__add_ref(b->raw, 0, BTF_KIND_RESTRICT, ref);
	case DW_TAG_typedef:
		return add_numbered(b, btf_raw__add_ref, t->name, BTF_KIND_TYPEDEF, ref);
	case D2B_TAG_TYPE_TAG:
		return add_numbered(b, btf_raw__add_ref, t->name, BTF_KIND_TYPE_TAG, ref);
	case DW_TAG_array_type:
		return btf_raw__add_array(b->raw, CU_BTF_INDEX_TYPE, ref, (uint32_t)t->size);
	case DW_TAG_subroutine_type:
		return encode_func_proto(b, cu, t);
	case DW_TAG_enumeration_type:
		return encode_enum(enc, b, cu, t);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type:
		return encode_struct(b, cu, t);
	default:
		pr_warn("%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": unsupported DW_TAG %#x\n",
			enc->path, cu->off, t->die_off, t->tag);
		return -ENOTSUP;
	}
}

/* the CU's types, type i at id i; 0 or -errno (reported) */
static int encode_types(const struct btf_encoder *enc, struct cu_btf_builder *b,
			const struct cu *cu)
{
	uint32_t i;

	for (i = 1; i < cu->nr_types; i++) {
		const struct cu_type *t = &cu->types[i];
		int id;

		/* BTF counts members, values and parameters in 16 bits */
		if (t->nr > 0xffff) {
			pr_warn("%s: CU %#" PRIx64 ": DIE %#" PRIx64
				": %u members, values or parameters; BTF allows 65535\n",
				enc->path, cu->off, t->die_off, t->nr);
			return -E2BIG;
		}
		id = encode_type(enc, b, cu, t);

		if (id == -ENOTSUP)
			return id;
		if (id < 0) {
			pr_warn("%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": cannot encode %s: %s\n",
				enc->path, cu->off, t->die_off,
				t->name && *t->name ? t->name : "(anon)", strerror(-id));
			return id;
		}
		if ((uint32_t)id != i) {
			pr_warn("%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": BTF id %d, expected %u\n",
				enc->path, cu->off, t->die_off, id, i);
			return -EINVAL;
		}
	}
	return 0;
}

static int encode_type_decl_tags(struct cu_btf_builder *b, const struct cu *cu)
{
	uint32_t i, a;
	int err;

	/* (most CUs have none: then no pass over their types for them) */
	for (i = 1; cu->nr_annots && i < cu->nr_types; i++) {
		const struct cu_type *t = &cu->types[i];

		for (a = 0; a < t->nr_annots; a++) {
			const struct cu_annot *an = &cu->annots[t->annot_first + a];

			err = add_numbered(b, btf_raw__add_decl_tag, an->value, i,
					   an->component_idx);
			if (err < 0)
				return err;
		}
	}
	return 0;
}

/* @v's VAR and decl tags, if it becomes one; 0 or -errno (-EINVAL reported) */
static int encode_var(const struct btf_encoder *enc, struct cu_btf_builder *b, const struct cu *cu,
		      const struct cu_var *v)
{
	uint64_t offset;
	uint32_t a;
	int shndx, id, err;

	err = var__encodable(enc, cu, v, true, &shndx, &offset);
	if (err <= 0)
		return err;
	id = add_numbered(b, btf_raw__add_var, v->name,
			  v->external ? BTF_VAR_GLOBAL_ALLOCATED : BTF_VAR_STATIC, v->type);
	if (id < 0)
		return id;
	for (a = 0; a < v->nr_annots; a++) {
		const struct cu_annot *an = &cu->annots[v->annot_first + a];

		err = add_numbered(b, btf_raw__add_decl_tag, an->value, (uint32_t)id, -1);
		if (err < 0)
			return err;
	}
	if (d2b_grow(&b->vars, &b->cap_vars, (uint64_t)b->nr_vars + 1, sizeof(*b->vars)))
		return -ENOMEM;
	b->vars[b->nr_vars++] =
		(struct cu_btf_var){ shndx, (uint32_t)id, (uint32_t)offset, (uint32_t)v->size };
	return 0;
}

/* part @part ends: its records counted */
static void part_end(struct cu_btf_builder *b, enum cu_btf_part part)
{
	void *types;
	const char *strs;
	uint32_t len, strs_len;

	btf_raw__sections(b->raw, &types, &len, &strs, &strs_len);
	b->part_end[part] = len;
	b->part_nr[part] = btf_raw__type_cnt(b->raw) - 1;
}

/* @cu's records into @b; 0 or -errno (reported) */
static int build(const struct btf_encoder *enc, struct cu_btf_builder *b, const struct cu *cu)
{
	uint32_t i;
	int err;

	err = encode_types(enc, b, cu);
	if (err)
		return err;
	part_end(b, CU_BTF_TYPES);
	err = encode_type_decl_tags(b, cu);
	if (err)
		goto out_err;
	part_end(b, CU_BTF_TAGS);
	/* (the writer saves the functions here) */
	err = funcs__check(enc, cu);
	if (err)
		return err;
	for (i = 0; i < cu->nr_vars; i++) {
		err = encode_var(enc, b, cu, &cu->vars[i]);
		if (err == -EINVAL)
			return err;
		if (err)
			goto out_err;
	}
	part_end(b, CU_BTF_VARS);
	return 0;

out_err:
	pr_warn("%s: CU %#" PRIx64 ": cannot encode: %s\n", enc->path, cu->off, strerror(-err));
	return err;
}

/*
 * @b's records as one block for the writer; NULL: no memory. A name outside
 * .debug_str is copied into it: the records are named after the CU is
 * gone, maybe once the pages of .debug_info it read have left memory
 * (loader_sections.c), and the copy is at hand.
 */
static struct cu_btf *cu_btf_of(const struct btf_encoder *enc, struct cu_btf_builder *b,
				const struct cu *cu)
{
	size_t vars = (size_t)b->nr_vars * sizeof(*b->vars);
	size_t names = (size_t)b->nr_names * sizeof(*b->names), copied = 0;
	uint32_t len, strs_len, k;
	const char *strs;
	struct cu_btf *f;
	void *types;
	char *copy;

	for (k = 0; k < b->nr_names; k++)
		if (!names__in_section(enc->str_lo, enc->str_hi, b->names[k]))
			copied += strlen(b->names[k]) + 1;
	btf_raw__sections(b->raw, &types, &len, &strs, &strs_len);
	_Static_assert(sizeof(struct cu_btf) % 8 == 0 && sizeof(struct cu_btf_var) % 8 == 0,
		       "cu_btf arrays 8-aligned");
	f = malloc(sizeof(*f) + vars + names + len + copied);
	if (!f)
		return NULL;
	f->nr_types = cu->nr_types;
	for (k = 0; k < CU_BTF_PARTS; k++) {
		f->len[k] = b->part_end[k] - (k ? b->part_end[k - 1] : 0);
		f->nr[k] = b->part_nr[k] - (k ? b->part_nr[k - 1] : 0);
	}
	f->nr_vars = b->nr_vars;
	f->nr_names = b->nr_names;
	f->vars = (struct cu_btf_var *)(f + 1);
	f->names = (const char **)((char *)f->vars + vars);
	f->recs = (char *)f->names + names;
	if (vars)
		memcpy(f->vars, b->vars, vars);
	if (len)
		memcpy(f->recs, types, len);
	copy = f->recs + len;
	for (k = 0; k < b->nr_names; k++) {
		const char *s = b->names[k];
		size_t n;

		if (names__in_section(enc->str_lo, enc->str_hi, s)) {
			f->names[k] = s;
			continue;
		}
		n = strlen(s) + 1;
		f->names[k] = memcpy(copy, s, n);
		copy += n;
	}
	return f;
}

int btf_encoder__prepare_cu(const struct btf_encoder *enc, struct cu *cu)
{
	struct cu_btf_builder *b;
	int err;

	cu->btf = NULL;
	if (cu->excluded)
		return 0;
	funcs__match(enc, cu);
	b = builder_take(enc->cu_btf_pool);
	if (!b)
		goto out_nomem;
	btf_raw__clear_types(b->raw);
	b->nr_names = b->nr_vars = 0;
	err = build(enc, b, cu);
	if (!err)
		cu->btf = cu_btf_of(enc, b, cu);
	d2b_idle_pool__put(enc->cu_btf_pool, b);
	if (err) /* (reported) */
		return err;
	if (cu->btf)
		return 0;
out_nomem:
	pr_warn("%s: CU %#" PRIx64 ": cannot encode: %s\n", enc->path, cu->off, strerror(ENOMEM));
	return -ENOMEM;
}

/* ---------------------------------------------------------------------- */
/* appending, on the writer                                               */

struct append {
	const struct name_sink *to;
	const struct cu_btf *f;
	const struct cu_btf_place *pl;
};

static int id_map(uint32_t *id, void *ctx)
{
	const struct append *a = ctx;
	uint32_t l = *id;

	if (l == CU_BTF_INDEX_TYPE)
		*id = a->pl->array_index_id;
	else if (l)
		*id = a->pl->first_new + l - 1 + (l >= a->f->nr_types ? a->pl->add_index_int : 0);
	return 0;
}

/* names are met in number order: the slots of those a few on are loaded meanwhile */
#define NAME_PREFETCH 8

static uint32_t name_map(void *ctx, uint32_t k, int *err)
{
	const struct append *a = ctx;
	int off;

	if (!k || *err)
		return 0;
	if (k + NAME_PREFETCH <= a->f->nr_names)
		names__prefetch(a->to, a->f->names[k + NAME_PREFETCH - 1]);
	off = names__intern(a->to, a->f->names[k - 1]);
	if (off < 0) {
		*err = off;
		return 0;
	}
	return (uint32_t)off;
}

static uint32_t part_start(const struct cu_btf *f, enum cu_btf_part part)
{
	uint32_t start = 0, k;

	for (k = 0; k < part; k++)
		start += f->len[k];
	return start;
}

int cu_btf__append(const struct name_sink *to, const struct cu_btf *f, enum cu_btf_part part,
		   const struct cu_btf_place *pl)
{
	struct append a = { to, f, pl };
	uint32_t before = btf_raw__type_cnt(to->raw);
	int err;

	err = btf_raw__append_mapped(to->raw, f->recs + part_start(f, part), f->len[part], id_map,
				     &a, name_map, &a);
	if (err)
		return err;
	return btf_raw__type_cnt(to->raw) - before == f->nr[part] ? 0 : -EINVAL;
}

static int id_keep(uint32_t *id, void *ctx)
{
	return 0;
}

static uint32_t name_add(void *ctx, uint32_t k, int *err)
{
	const struct append *a = ctx;
	int off;

	if (!k || *err)
		return 0;
	off = btf_raw__add_str(a->to->raw, a->f->names[k - 1]);
	if (off < 0)
		*err = off;
	return off < 0 ? 0 : (uint32_t)off;
}

int cu_btf__copy_type(struct btf_raw *dst, const struct cu_btf *f, uint32_t id)
{
	const struct name_sink to = { .raw = dst };
	const struct append a = { &to, f, NULL };
	const char *p = f->recs;
	uint32_t i;

	if (!id || id >= f->nr_types)
		return -EINVAL;
	for (i = 1; i < id; i++)
		p += btf_raw__record_size((const struct btf_type *)p);
	if (!btf_is_int((const struct btf_type *)p))
		return -EINVAL;
	return btf_raw__append_mapped(dst, p, btf_raw__record_size((const struct btf_type *)p),
				      id_keep, NULL, name_add, (void *)&a);
}

uint32_t cu_btf__len(const struct cu_btf *f)
{
	return f->len[CU_BTF_TYPES] + f->len[CU_BTF_TAGS] + f->len[CU_BTF_VARS];
}

uint32_t cu_btf__nr_after_types(const struct cu_btf *f)
{
	return f->nr[CU_BTF_TAGS] + f->nr[CU_BTF_VARS];
}

uint32_t cu_btf__nr_vars(const struct cu_btf *f)
{
	return f->nr_vars;
}

void cu_btf__var(const struct cu_btf *f, uint32_t i, const struct cu_btf_place *pl, int *shndx,
		 uint32_t *id, uint32_t *offset, uint32_t *size)
{
	const struct cu_btf_var *v = &f->vars[i];
	const struct append a = { NULL, f, pl };

	*shndx = v->shndx;
	*id = v->id;
	id_map(id, (void *)&a);
	*offset = v->offset;
	*size = v->size;
}
