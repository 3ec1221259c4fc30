// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_reader - bounds-checked DWARF 2-5 reading; see dwarf_reader.h.
 *
 * A DIE is decoded in one pass: the abbreviation gives the attribute specs,
 * and the position of every attribute value is recorded in struct dr_die, so
 * later lookups scan a small array instead of re-decoding forms. Walking
 * children records where the subtree ends (dr_die.subtree_end), so moving to
 * the next sibling never re-parses a subtree that was already walked; a
 * subtree that was not walked is skipped through DW_AT_sibling when it points
 * forward inside the unit, else by parsing over it. An abbreviation whose
 * forms all have a fixed size in its unit (most: member, type, variable
 * DIEs) has the values' offsets precomputed (dr_spec.offset), so such a DIE
 * is placed with one bounds check and no per-form decoding, and each of its
 * attributes is only located when asked for (most DIEs of function bodies,
 * call sites and local variables, never are).
 *
 * Value semantics follow libdw 0.188's dwarf_form*() where pahole's output
 * depends on them: dwarf_formudata() zero-extends data1/2/4/8 and returns a
 * sign-extended sdata as unsigned; dwarf_formsdata() sign-extends data1/2/4/8.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "d2b_util.h"
#include "dwarf_reader.h"
#include "dwarf_reader_rd.h"

/* ---------------------------------------------------------------------- */
/* units and abbreviations                                                */

int dr_unit__next(const struct dr_sections *secs, uint64_t *off, const uint8_t *hdr,
		  struct dr_unit *u)
{
	const uint8_t *base;
	uint64_t avail, len;
	struct rd r;

	if (*off >= secs->info.size)
		return 0;
	if (!hdr && !secs->info.data)
		return -EINVAL;
	/* the section's bytes from *off, or their copy: as many as parsed */
	avail = secs->info.size - *off;
	base = hdr ? hdr : secs->info.data + *off;
	r = (struct rd){ .p = base,
			 .end = base +
				(hdr && avail > DR_UNIT_HEADER_MAX ? DR_UNIT_HEADER_MAX : avail),
			 .swap = secs->swap };
	memset(u, 0, sizeof(*u));
	u->off = *off;
	len = rd_fixed(&r, 4);
	u->offset_size = 4;
	if (len == 0xffffffff) {
		len = rd_fixed(&r, 8);
		u->offset_size = 8;
	} else if (len >= 0xfffffff0) {
		return -EINVAL;
	}
	if (r.bad || len > avail - (uint64_t)(r.p - base) || len < 2)
		return -EINVAL;
	u->end = *off + (uint64_t)(r.p - base) + len;
	if ((uint64_t)(r.end - base) > u->end - *off)
		r.end = base + (u->end - *off);
	u->version = (uint16_t)rd_fixed(&r, 2);
	if (u->version < 2 || u->version > 5)
		return -EINVAL;
	if (u->version >= 5) {
		u->unit_type = (uint8_t)rd_fixed(&r, 1);
		u->addr_size = (uint8_t)rd_fixed(&r, 1);
		u->abbrev_off = rd_fixed(&r, u->offset_size);
		if (u->unit_type < DW_UT_compile || u->unit_type > DW_UT_split_type)
			return -EINVAL; /* its header's layout is unknown */
		if (u->unit_type == DW_UT_skeleton || u->unit_type == DW_UT_split_compile) {
			rd_skip(&r, 8);
		} else if (u->unit_type == DW_UT_type || u->unit_type == DW_UT_split_type) {
			u->signature = rd_fixed(&r, 8);
			u->type_off = u->off + rd_fixed(&r, u->offset_size);
		}
	} else {
		u->unit_type = secs->types ? DW_UT_type : DW_UT_compile;
		u->abbrev_off = rd_fixed(&r, u->offset_size);
		u->addr_size = (uint8_t)rd_fixed(&r, 1);
		if (secs->types) {
			u->signature = rd_fixed(&r, 8);
			u->type_off = u->off + rd_fixed(&r, u->offset_size);
		}
	}
	if (r.bad || (u->addr_size != 4 && u->addr_size != 8))
		return -EINVAL;
	u->die_off = *off + (uint64_t)(r.p - base);
	*off = u->end;
	return 1;
}

/*
 * Skip one abbreviation's tag, children flag and specs; the number of specs.
 * *@uses (if given) is set when one of them has form @form.
 */
static uint64_t abbrev_skip(struct rd *r, uint16_t form, bool *uses)
{
	uint64_t n = 0;

	rd_uleb(r);
	rd_skip(r, 1);
	for (;;) {
		uint64_t at = rd_uleb(r), f = rd_uleb(r);

		if (r->bad || (!at && !f))
			return n;
		if (uses && f == form)
			*uses = true;
		if (f == DW_FORM_implicit_const)
			rd_sleb(r);
		n++;
	}
}

bool dr_abbrev__uses_form(const struct dr_sections *secs, uint16_t form)
{
	struct rd r = rd_at(&secs->abbrev, 0, secs->swap);
	bool uses = false;

	/* tables: (code, tag, children, (attr, form[, implicit])*, 0 0)*, 0 */
	while (!r.bad && r.p < r.end && !uses)
		if (rd_uleb(&r))
			abbrev_skip(&r, form, &uses);
	return uses;
}

#define MAX_ABBREV_CODE 65536

/* the bytes a value of @form takes in unit @u, or DR_SIZE_VARIABLE */
static uint8_t form_size(const struct dr_unit *u, uint16_t form)
{
	switch (form) {
	case DW_FORM_addr:
		return u->addr_size;
	case DW_FORM_flag:
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_strx2:
	case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4:
	case DW_FORM_ref4:
	case DW_FORM_strx4:
	case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_sec_offset:
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:
		return u->offset_size;
	case DW_FORM_ref_addr:
		return u->version <= 2 ? u->addr_size : u->offset_size;
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	default:
		return DR_SIZE_VARIABLE;
	}
}

int dr_cu__init(struct dr_cu *cu, const struct dr_sections *secs, const struct dr_unit *unit)
{
	struct rd r = rd_at(&secs->abbrev, unit->abbrev_off, secs->swap), r2;
	uint64_t nr_specs = 0, max_code = 0, code;
	struct dr_spec *spec;

	memset(cu, 0, sizeof(*cu));
	cu->secs = secs;
	cu->unit = unit;
	/* pass 1: sizes */
	r2 = r;
	for (;;) {
		code = rd_uleb(&r2);
		if (!code || r2.bad)
			break;
		if (code > MAX_ABBREV_CODE)
			return -EINVAL;
		if (code > max_code)
			max_code = code;
		nr_specs += abbrev_skip(&r2, 0, NULL);
	}
	if (r2.bad)
		return -EINVAL;
	cu->nr_abbrevs = (uint32_t)max_code + 1;
	cu->abbrevs = calloc(cu->nr_abbrevs, sizeof(*cu->abbrevs));
	cu->spec_pool = calloc(nr_specs ? nr_specs : 1, sizeof(*cu->spec_pool));
	if (!cu->abbrevs || !cu->spec_pool) {
		dr_cu__release(cu);
		return -ENOMEM;
	}
	/* pass 2: fill */
	spec = cu->spec_pool;
	while ((code = rd_uleb(&r)) != 0) {
		struct dr_abbrev *ab = &cu->abbrevs[code];

		if (ab->specs) { /* a code defined twice: its specs would overrun */
			dr_cu__release(cu);
			return -EINVAL;
		}
		ab->tag = (uint32_t)rd_uleb(&r);
		ab->children = rd_fixed(&r, 1) != 0;
		ab->specs = spec;
		for (;;) {
			uint64_t at = rd_uleb(&r), form = rd_uleb(&r);

			if (!at && !form)
				break;
			spec->at = (uint16_t)at;
			spec->form = (uint16_t)form;
			spec->size = form_size(unit, spec->form);
			spec->implicit = form == DW_FORM_implicit_const ? rd_sleb(&r) : 0;
			spec->offset = ab->fixed_size;
			if (at < DR_AT_INDEXED && !ab->idx[at] && ab->nr_specs < UINT8_MAX)
				ab->idx[at] = (uint8_t)(ab->nr_specs + 1);
			if (spec->size == DR_SIZE_VARIABLE)
				ab->fixed_size = UINT32_MAX;
			else if (ab->fixed_size != UINT32_MAX)
				ab->fixed_size += spec->size;
			spec++;
			ab->nr_specs++;
		}
	}
	return 0;
}

void dr_cu__release(struct dr_cu *cu)
{
	free(cu->abbrevs);
	free(cu->spec_pool);
	cu->abbrevs = NULL;
	cu->spec_pool = NULL;
}

/* ---------------------------------------------------------------------- */
/* DIEs                                                                   */

static void form_skip(const struct dr_cu *cu, struct rd *r, uint16_t *form, int depth)
{
	uint8_t size = form_size(cu->unit, *form);

	if (size != DR_SIZE_VARIABLE) {
		rd_skip(r, size);
		return;
	}
	switch (*form) {
	case DW_FORM_string: {
		const uint8_t *nul = r->bad ? NULL : memchr(r->p, 0, (size_t)(r->end - r->p));

		if (!nul)
			r->bad = true;
		else
			r->p = nul + 1;
		break;
	}
	/* clang-format off */
	case DW_FORM_block1: rd_skip(r, rd_fixed(r, 1)); break;
	case DW_FORM_block2: rd_skip(r, rd_fixed(r, 2)); break;
	case DW_FORM_block4: rd_skip(r, rd_fixed(r, 4)); break;
	case DW_FORM_block: case DW_FORM_exprloc: rd_skip(r, rd_uleb(r)); break;
	case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		rd_uleb(r); break;
	/* clang-format on */
	case DW_FORM_sdata:
		rd_sleb(r);
		break;
	case DW_FORM_indirect:
		*form = (uint16_t)rd_uleb(r);
		if (depth > 4)
			r->bad = true;
		else
			form_skip(cu, r, form, depth + 1);
		break;
	default:
		r->bad = true;
	}
}

/* decode the values of @die, whose abbreviation @ab has variable-size forms */
static __attribute__((noinline)) int
die_parse_values(struct dr_cu *cu, struct rd r, const struct dr_abbrev *ab, struct dr_die *die)
{
	uint16_t i;

	die->nr_attrs = ab->nr_specs;
	die->lazy = false;
	for (i = 0; i < ab->nr_specs; i++) {
		struct dr_attr *a = &die->attrs[i];

		a->at = ab->specs[i].at;
		a->form = ab->specs[i].form;
		a->implicit = ab->specs[i].implicit;
		if (a->form == DW_FORM_indirect) {
			a->form = (uint16_t)rd_uleb(&r);
			if (a->form == DW_FORM_indirect || a->form == DW_FORM_implicit_const)
				return -EINVAL;
		}
		a->p = r.p;
		form_skip(cu, &r, &a->form, 0);
	}
	if (r.bad)
		return -EINVAL;
	die->children = r.p;
	die->subtree_end = ab->children ? NULL : r.p;
	return 1;
}

/* decode the DIE at @p (in the unit); 1 DIE, 0 null entry, -EINVAL */
static int die_parse(struct dr_cu *cu, const uint8_t *p, struct dr_die *die)
{
	struct rd r = rd_unit(cu, p);
	const struct dr_abbrev *ab;
	uint64_t code;

	die->off = (uint64_t)(p - cu->secs->info.data);
	code = rd_uleb(&r);
	if (r.bad)
		return -EINVAL;
	if (!code) {
		die->ab = NULL;
		die->nr_attrs = 0;
		die->lazy = false;
		die->children = r.p;
		die->subtree_end = r.p;
		return 0;
	}
	if (code >= cu->nr_abbrevs || !cu->abbrevs[code].tag)
		return -EINVAL;
	ab = &cu->abbrevs[code];
	if (ab->nr_specs > DR_MAX_ATTRS)
		return -EINVAL;
	die->ab = ab;
	die->values = r.p;
	/* most DIEs: every value of a fixed size, all in bounds, no decoding */
	if (ab->fixed_size == UINT32_MAX || ab->fixed_size > (uint64_t)(r.end - r.p))
		return die_parse_values(cu, r, ab, die);
	die->nr_attrs = 0;
	die->lazy = true;
	die->children = r.p + ab->fixed_size;
	die->subtree_end = ab->children ? NULL : die->children;
	return 1;
}

int dr_die__at(struct dr_cu *cu, uint64_t off, struct dr_die *die)
{
	if (off < cu->unit->die_off || off >= cu->unit->end)
		return -EINVAL;
	return die_parse(cu, cu->secs->info.data + off, die);
}

int dr_die__child(struct dr_cu *cu, struct dr_die *die, struct dr_die *child)
{
	int ret;

	if (!die->ab || !die->ab->children)
		return 0;
	ret = die_parse(cu, die->children, child);
	if (ret == 0)
		die->subtree_end = child->subtree_end;
	return ret;
}

/* the end of @die's subtree, parsing over it if it was not walked */
static const uint8_t *die_subtree_end(struct dr_cu *cu, struct dr_die *die)
{
	const struct dr_attr *sib;
	const uint8_t *p;
	struct dr_die d;
	uint64_t off;
	long depth = 1;

	if (die->subtree_end)
		return die->subtree_end;
	sib = dr_die__attr(die, DW_AT_sibling);
	if (sib && !dr_attr__ref(cu, sib, &off) && off > die->off && off < cu->unit->end)
		return die->subtree_end = cu->secs->info.data + off;
	p = die->children;
	while (depth > 0) {
		int ret = die_parse(cu, p, &d);

		if (ret < 0)
			return NULL;
		if (ret == 0)
			depth--;
		else if (d.ab->children)
			depth++;
		p = d.children;
	}
	return die->subtree_end = p;
}

int dr_die__sibling(struct dr_cu *cu, struct dr_die *die)
{
	const uint8_t *next = die_subtree_end(cu, die);
	int ret;

	if (!next)
		return -EINVAL;
	ret = die_parse(cu, next, die);
	return ret;
}

struct dr_cu *dr_cu__of(struct dr_cu *cu, uint64_t off)
{
	if (off >= cu->unit->die_off && off < cu->unit->end)
		return cu;
	return cu->unit_of ? cu->unit_of(cu->unit_of_ctx, off) : NULL;
}

const struct dr_attr *dr_die__attr_integrate(struct dr_cu *cu, const struct dr_die *die,
					     uint16_t at, struct dr_die *tmp, struct dr_cu **acu,
					     bool *bad_ref)
{
	const struct dr_die *d = die;
	int chain;

	for (chain = 0; chain <= 16; chain++) {
		const struct dr_attr *a = dr_die__attr(d, at);
		uint64_t off;

		if (a) {
			if (acu)
				*acu = cu;
			return a;
		}
		a = dr_die__attr(d, DW_AT_abstract_origin);
		if (!a)
			a = dr_die__attr(d, DW_AT_specification);
		if (!a)
			return NULL;
		if (dr_attr__ref(cu, a, &off) || !(cu = dr_cu__of(cu, off)) ||
		    dr_die__at(cu, off, tmp) != 1) {
			if (!chain)
				*bad_ref = true;
			return NULL;
		}
		d = tmp;
	}
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* values                                                                 */

int dr_attr__udata_form(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *v)
{
	struct rd r = attr_rd(cu, a);

	/* clang-format off */
	switch (a->form) {
	case DW_FORM_data1: *v = rd_fixed(&r, 1); break;
	case DW_FORM_data2: *v = rd_fixed(&r, 2); break;
	case DW_FORM_data4: *v = rd_fixed(&r, 4); break;
	case DW_FORM_data8: *v = rd_fixed(&r, 8); break;
	case DW_FORM_sdata: *v = (uint64_t)rd_sleb(&r); break;
	case DW_FORM_udata: *v = rd_uleb(&r); break;
	case DW_FORM_implicit_const: *v = (uint64_t)a->implicit; break;
	case DW_FORM_sec_offset: *v = rd_fixed(&r, cu->unit->offset_size); break;
	default: return -EINVAL;
	}
	/* clang-format on */
	return r.bad ? -EINVAL : 0;
}

int dr_attr__sdata(const struct dr_cu *cu, const struct dr_attr *a, int64_t *v)
{
	struct rd r = attr_rd(cu, a);

	/* clang-format off */
	switch (a->form) {
	case DW_FORM_data1: *v = (int8_t)rd_fixed(&r, 1); break;
	case DW_FORM_data2: *v = (int16_t)rd_fixed(&r, 2); break;
	case DW_FORM_data4: *v = (int32_t)rd_fixed(&r, 4); break;
	case DW_FORM_data8: *v = (int64_t)rd_fixed(&r, 8); break;
	case DW_FORM_sdata: *v = rd_sleb(&r); break;
	case DW_FORM_udata: *v = (int64_t)rd_uleb(&r); break;
	case DW_FORM_implicit_const: *v = a->implicit; break;
	default: return -EINVAL;
	}
	/* clang-format on */
	return r.bad ? -EINVAL : 0;
}

int dr_attr__addr(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *v)
{
	struct rd r = attr_rd(cu, a);
	uint64_t idx;

	/* clang-format off */
	switch (a->form) {
	case DW_FORM_addr:
		*v = rd_fixed(&r, cu->unit->addr_size);
		return r.bad ? -EINVAL : 0;
	case DW_FORM_addrx1: idx = rd_fixed(&r, 1); break;
	case DW_FORM_addrx2: idx = rd_fixed(&r, 2); break;
	case DW_FORM_addrx3: idx = rd_fixed(&r, 3); break;
	case DW_FORM_addrx4: idx = rd_fixed(&r, 4); break;
	case DW_FORM_addrx:
	case DW_FORM_GNU_addr_index: idx = rd_uleb(&r); break;
	default: return -EINVAL;
	}
	/* clang-format on */
	return r.bad ? -EINVAL : dr_cu__addrx(cu, idx, v);
}

bool dr_attr__flag(const struct dr_attr *a)
{
	if (a->form == DW_FORM_flag_present)
		return true;
	return a->form == DW_FORM_flag && *a->p != 0;
}

/* string sections end with a NUL (dr_section__trim_strings), so any offset inside is a string */
static const char *section_string(const struct dr_section *s, uint64_t off)
{
	if (!s->data || off >= s->size)
		return NULL;
	return (const char *)s->data + off;
}

void dr_section__trim_strings(struct dr_section *s)
{
	while (s->size && s->data[s->size - 1] != '\0')
		s->size--;
}

const char *dr_attr__string_form(const struct dr_cu *cu, const struct dr_attr *a)
{
	const struct dr_sections *secs = cu->secs;
	struct rd r = attr_rd(cu, a), so;
	uint64_t idx;

	/* clang-format off */
	switch (a->form) {
	case DW_FORM_string:
		return r.bad || !memchr(r.p, 0, (size_t)(r.end - r.p)) ? NULL : (const char *)r.p;
	case DW_FORM_strp:
		return section_string(&secs->str, rd_fixed(&r, cu->unit->offset_size));
	case DW_FORM_line_strp:
		return section_string(&secs->line_str, rd_fixed(&r, cu->unit->offset_size));
	case DW_FORM_strx: case DW_FORM_GNU_str_index: idx = rd_uleb(&r); break;
	case DW_FORM_strx1: idx = rd_fixed(&r, 1); break;
	case DW_FORM_strx2: idx = rd_fixed(&r, 2); break;
	case DW_FORM_strx3: idx = rd_fixed(&r, 3); break;
	case DW_FORM_strx4: idx = rd_fixed(&r, 4); break;
	default: return NULL;
	}
	/* clang-format on */
	if (r.bad)
		return NULL;
	so = rd_at(&secs->str_offsets, cu->str_offsets_base + idx * cu->unit->offset_size,
		   secs->swap);
	idx = rd_fixed(&so, cu->unit->offset_size);
	return so.bad ? NULL : section_string(&secs->str, idx);
}

int dr_attr__ref_form(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *off)
{
	struct rd r = attr_rd(cu, a);
	uint64_t v;

	/* clang-format off */
	switch (a->form) {
	case DW_FORM_ref1: v = rd_fixed(&r, 1); break;
	case DW_FORM_ref2: v = rd_fixed(&r, 2); break;
	case DW_FORM_ref4: v = rd_fixed(&r, 4); break;
	case DW_FORM_ref8: v = rd_fixed(&r, 8); break;
	case DW_FORM_ref_udata: v = rd_uleb(&r); break;
	case DW_FORM_ref_addr:
		/* DWARF 2: address-sized; later: offset-sized, from .debug_info's start */
		v = rd_fixed(&r,
			     cu->unit->version == 2 ? cu->unit->addr_size : cu->unit->offset_size);
		if (r.bad || v >= cu->secs->info.size)
			return -EINVAL;
		*off = v;
		return 0;
	default:
		return -EINVAL; /* ref_sig8: see dr_attr__sig8 */
	}
	/* clang-format on */
	if (r.bad || v >= cu->unit->end - cu->unit->off)
		return -EINVAL;
	*off = cu->unit->off + v;
	return 0;
}

int dr_attr__sig8(const struct dr_cu *cu, const struct dr_attr *a, uint64_t *sig)
{
	struct rd r = attr_rd(cu, a);

	if (a->form != DW_FORM_ref_sig8)
		return -EINVAL;
	*sig = rd_fixed(&r, 8);
	return r.bad ? -EINVAL : 0;
}

int dr_attr__block(const struct dr_cu *cu, const struct dr_attr *a, const uint8_t **p, size_t *len)
{
	struct rd r = attr_rd(cu, a);
	uint64_t n;

	/* clang-format off */
	switch (a->form) {
	case DW_FORM_block1: n = rd_fixed(&r, 1); break;
	case DW_FORM_block2: n = rd_fixed(&r, 2); break;
	case DW_FORM_block4: n = rd_fixed(&r, 4); break;
	case DW_FORM_block: case DW_FORM_exprloc: n = rd_uleb(&r); break;
	default: return -EINVAL;
	}
	/* clang-format on */
	if (r.bad || n > (uint64_t)(r.end - r.p))
		return -EINVAL;
	*p = r.p;
	*len = (size_t)n;
	return 0;
}

int dr_cu__addrx(const struct dr_cu *cu, uint64_t idx, uint64_t *addr)
{
	struct rd r =
		rd_at(&cu->secs->addr, cu->addr_base + idx * cu->unit->addr_size, cu->secs->swap);

	*addr = rd_fixed(&r, cu->unit->addr_size);
	return r.bad ? -EINVAL : 0;
}
