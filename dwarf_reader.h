/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_reader - a small, bounds-checked DWARF 2-5 DIE reader.
 *
 * Why not libdw for the DIE walk: libdw 0.188 looks attributes up by
 * rescanning a DIE's attribute list for every dwarf_attr() call and finds a
 * sibling by re-parsing the subtree before it; its CU lookups and
 * location-list caches are shared, unlocked state. This reader decodes a
 * DIE's attributes once, remembers where each subtree ends, and has no shared
 * mutable state at all: struct dr_sections is read-only once the loader has
 * mapped (and, in a module, relocated) the sections, and a struct dr_cu
 * belongs to the one thread reading that unit.
 *
 * Every read is checked against its section's end; malformed input gives
 * -EINVAL (never a read out of bounds) and the caller reports the CU and DIE
 * offset.
 */
#ifndef DWARF_READER_H
#define DWARF_READER_H

#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct dr_section {
	const uint8_t *data;
	size_t size;
};

/* the debug sections of one ELF file */
struct dr_sections {
	struct dr_section info, abbrev, str, line_str, str_offsets, addr, loc, loclists;
	bool swap; /* file byte order differs from ours */
	bool types; /* "info" is .debug_types: DWARF 4 type unit headers */
};

struct dr_unit {
	uint64_t off; /* unit header offset in .debug_info */
	uint64_t end; /* first byte after the unit */
	uint64_t die_off; /* offset of the unit DIE */
	uint64_t abbrev_off;
	uint64_t signature; /* type units: the type signature */
	uint64_t type_off; /* type units: .debug_info offset of the type DIE */
	uint16_t version;
	uint8_t unit_type;
	uint8_t addr_size;
	uint8_t offset_size;
};

#define DR_SIZE_VARIABLE 0xff

struct dr_spec {
	uint16_t at;
	uint16_t form;
	uint8_t size; /* the value's bytes in this unit, or DR_SIZE_VARIABLE */
	uint32_t offset; /* from the first value, if the abbreviation is fixed-size */
	int64_t implicit; /* DW_FORM_implicit_const value */
};

#define DR_AT_INDEXED 128 /* the DWARF 2-5 attribute codes */

struct dr_abbrev {
	uint32_t tag;
	bool children;
	uint16_t nr_specs;
	uint32_t fixed_size; /* all values' bytes if every size is fixed, else UINT32_MAX */
	/* for an attribute code below DR_AT_INDEXED: 1 + its first spec's index,
	 * or 0 if the abbreviation has none (most look-ups find none) */
	uint8_t idx[DR_AT_INDEXED];
	struct dr_spec *specs;
};

/* a unit being read; owned by one thread */
struct dr_cu {
	const struct dr_sections *secs;
	const struct dr_unit *unit;
	struct dr_abbrev *abbrevs; /* indexed by code */
	uint32_t nr_abbrevs;
	struct dr_spec *spec_pool;
	uint64_t str_offsets_base, addr_base, loclists_base;
	/* files read as one merged unit (DW_FORM_ref_addr): the reader of the
	 * unit that holds .debug_info offset @off, or NULL; else unset */
	struct dr_cu *(*unit_of)(void *ctx, uint64_t off);
	void *unit_of_ctx;
};

#define DR_MAX_ATTRS 64

struct dr_attr {
	uint16_t at, form;
	const uint8_t *p; /* value bytes */
	int64_t implicit;
};

struct dr_die {
	uint64_t off; /* offset in .debug_info */
	const struct dr_abbrev *ab;
	const uint8_t *values; /* the first attribute value */
	const uint8_t *children; /* first byte after the attributes */
	const uint8_t *subtree_end; /* after the children's terminator, once known */
	/* decoded attributes: nr_attrs of them, or, for a fixed-size abbreviation
	 * (lazy), each filled in by its first dr_die__attr() */
	uint16_t nr_attrs;
	bool lazy;
	struct dr_attr attrs[DR_MAX_ATTRS];
};

/* Drop an unterminated tail from a string section, so every offset in it
 * starts a NUL-terminated string. */
void dr_section__trim_strings(struct dr_section *s);

/* does any abbreviation in .debug_abbrev use @form? */
bool dr_abbrev__uses_form(const struct dr_sections *secs, uint16_t form);

/* the most bytes a unit header takes (a 64-bit DWARF 5 type unit's) */
#define DR_UNIT_HEADER_MAX 40

/*
 * Walk the unit headers: *@off is advanced; returns 1 for a unit, 0 at the
 * end, -EINVAL. @hdr, if not NULL, is a copy of the section's bytes from
 * *@off on, as many as it has up to DR_UNIT_HEADER_MAX, read instead of
 * the section's own (which the caller need not have touched).
 */
int dr_unit__next(const struct dr_sections *secs, uint64_t *off, const uint8_t *hdr,
		  struct dr_unit *u);

/* Set up @cu for @unit (parses its abbreviation table). 0 or -errno. */
int dr_cu__init(struct dr_cu *cu, const struct dr_sections *secs, const struct dr_unit *unit);
void dr_cu__release(struct dr_cu *cu);

/* Parse the DIE at .debug_info offset @off. 1 for a DIE, 0 for a null entry, -EINVAL */
int dr_die__at(struct dr_cu *cu, uint64_t off, struct dr_die *die);
/* First child of @die: 1 found, 0 none, -EINVAL */
int dr_die__child(struct dr_cu *cu, struct dr_die *die, struct dr_die *child);
/* Next sibling of @die (in place): 1 found, 0 none, -EINVAL */
int dr_die__sibling(struct dr_cu *cu, struct dr_die *die);

/*
 * Attribute @at of @die, or NULL. Inline: the loader asks for some ten
 * attributes of every DIE it reads (56 M calls for a kernel).
 */
static inline const struct dr_attr *dr_die__attr(const struct dr_die *die, uint16_t at)
{
	const struct dr_spec *sp;
	struct dr_attr *a;
	uint16_t i;

	if (!die->ab)
		return NULL;
	/* (a DIE's abbreviation has at most DR_MAX_ATTRS specs: all indexed) */
	_Static_assert(DR_MAX_ATTRS < UINT8_MAX, "dr_abbrev.idx holds spec indexes");
	if (at < DR_AT_INDEXED) {
		if (!die->ab->idx[at])
			return NULL;
		i = die->ab->idx[at] - 1;
	} else {
		for (i = 0; i < die->ab->nr_specs && die->ab->specs[i].at != at; i++)
			;
		if (i == die->ab->nr_specs)
			return NULL;
	}
	if (!die->lazy)
		return i < die->nr_attrs ? &die->attrs[i] : NULL;
	/* the caller's DIE: its attrs[] are a cache, filled here */
	sp = &die->ab->specs[i];
	a = (struct dr_attr *)&die->attrs[i];
	a->at = at;
	a->form = sp->form;
	a->implicit = sp->implicit;
	a->p = die->values + sp->offset;
	return a;
}

/*
 * Like dr_die__attr, but follows DW_AT_abstract_origin, then
 * DW_AT_specification, as libdw's dwarf_attr_integrate() does. @tmp holds
 * the DIE the attribute was found in, *@acu (if not NULL) the unit to
 * decode the attribute with: @cu, or another unit through cu->unit_of.
 * *@bad_ref is set when @die's own origin or specification names no DIE.
 */
const struct dr_attr *dr_die__attr_integrate(struct dr_cu *cu, const struct dr_die *die,
					     uint16_t at, struct dr_die *tmp, struct dr_cu **acu,
					     bool *bad_ref);
/* the reader for the unit holding .debug_info offset @off: @cu, another unit
 * through cu->unit_of, or NULL */
struct dr_cu *dr_cu__of(struct dr_cu *cu, uint64_t off);

/* attribute values, with libdw's dwarf_form*() semantics; 0 or -EINVAL */
static inline int dr_attr__udata(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *v);
int dr_attr__sdata(const struct dr_cu *cu, const struct dr_attr *a, int64_t *v);
/* an address: DW_FORM_addr, or an index into .debug_addr (DW_FORM_addrx*) */
int dr_attr__addr(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *v);
bool dr_attr__flag(const struct dr_attr *a);
static inline const char *dr_attr__string(const struct dr_cu *cu, const struct dr_attr *a);
/* DW_FORM_ref* and DW_FORM_ref_addr: the referenced .debug_info offset */
static inline int dr_attr__ref(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *off);
/* DW_FORM_ref_sig8: the type signature */
int dr_attr__sig8(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *sig);
/* exprloc/block forms: the bytes */
int dr_attr__block(const struct dr_cu *cu, const struct dr_attr *a, const uint8_t **p, size_t *len);

/* .debug_addr entry @idx of the unit */
int dr_cu__addrx(const struct dr_cu *cu, uint64_t idx, uint64_t *addr);

/*
 * Location expressions. dr_expr walks the operations of one expression.
 */
struct dr_op {
	uint8_t atom;
	uint64_t number; /* the operand used (addresses, indexes, constants, types) */
	const uint8_t *block; /* entry_value, implicit_value, const_type block */
	size_t block_len;
};

/* Decode the operations of @expr into @ops (at most @max); returns the count or -EINVAL */
int dr_expr__decode(const struct dr_cu *cu, const uint8_t *expr, size_t len, struct dr_op *ops,
		    int max);

/*
 * Call @fn for every expression of the location attribute @a (one for
 * exprloc, each entry of a location list), in order, until it returns
 * non-zero. Returns fn's last value, or -EINVAL.
 */
int dr_attr__for_each_location(const struct dr_cu *cu, const struct dr_attr *a,
			       int (*fn)(void *ctx, const uint8_t *expr, size_t len), void *ctx);

/*
 * The three decoders the loader calls most (24 M calls for a kernel), inline
 * for the forms a kernel's DIEs use, in the file's own byte order; every
 * other case goes to the general decoder (*_form, dwarf_reader.c). No bounds
 * check is needed for these: an attribute's value bytes were checked to lie
 * inside its unit when its DIE was parsed (dr_die__attr's values).
 */
int dr_attr__udata_form(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *v);
const char *dr_attr__string_form(const struct dr_cu *cu, const struct dr_attr *a);
int dr_attr__ref_form(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *off);

static inline uint32_t dr__load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline int dr_attr__udata(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *v)
{
	uint16_t v2;

	switch (a->form) {
	case DW_FORM_data1:
		*v = a->p[0];
		return 0;
	case DW_FORM_implicit_const:
		*v = (uint64_t)a->implicit;
		return 0;
	case DW_FORM_data2:
		if (cu->secs->swap)
			break;
		memcpy(&v2, a->p, sizeof(v2));
		*v = v2;
		return 0;
	case DW_FORM_data4:
		if (cu->secs->swap)
			break;
		*v = dr__load32(a->p);
		return 0;
	}
	return dr_attr__udata_form(cu, a, v);
}

static inline const char *dr_attr__string(const struct dr_cu *cu, const struct dr_attr *a)
{
	const struct dr_section *str = &cu->secs->str;
	uint32_t off;

	if (a->form != DW_FORM_strp || cu->unit->offset_size != 4 || cu->secs->swap)
		return dr_attr__string_form(cu, a);
	off = dr__load32(a->p);
	return str->data && off < str->size ? (const char *)str->data + off : NULL;
}

static inline int dr_attr__ref(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *off)
{
	uint32_t v;

	if (a->form != DW_FORM_ref4 || cu->secs->swap)
		return dr_attr__ref_form(cu, a, off);
	v = dr__load32(a->p);
	if (v >= cu->unit->end - cu->unit->off)
		return -EINVAL;
	*off = cu->unit->off + v;
	return 0;
}

#endif /* DWARF_READER_H */
