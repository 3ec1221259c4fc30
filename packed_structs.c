// SPDX-License-Identifier: GPL-2.0-only
/*
 * packed_structs - pahole 1.32's rule for structs passed on the stack.
 *
 * A struct passed by value past the register parameters goes on the stack,
 * where a packed or specially aligned struct is not where the DWARF
 * suggests; pahole 1.32 (upstream 4a1f0c9) leaves such functions out. DWARF
 * does not say a struct is packed: pahole infers it from the layout
 * (class__infer_packed_attributes). Here the same inference, on the loader's
 * model:
 *
 *   - a struct with a hole or tail padding (class__find_holes: pahole's walk
 *     over its members' bit ranges, bitfields included) is not packed; but
 *     each struct member of it at an offset its natural alignment does not
 *     divide is marked packed;
 *   - otherwise it is packed if a member's offset is not a multiple of the
 *     member type's natural alignment (pointers: the address size; base
 *     types and enums: their size; structs and unions: their members'
 *     largest; arrays: their element's; typedefs and qualifiers looked
 *     through), or its size not a multiple of the largest, or it has
 *     DW_AT_alignment 1 though some member needs more.
 *
 * pahole remembers an inference on the struct, and the marks the first
 * rule makes, for the rest of the CU: what a function's struct is inferred
 * to be can depend on functions before it. So the CU's functions are asked
 * in their order, and struct packed_memo holds what pahole's structs hold.
 * pahole's counters' widths are kept (holes: 8 bits, padding: 16).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>

#include "cu.h"
#include "d2b_util.h"
#include "packed_structs.h"

/*
 * Structs inside structs (by value) deeper than this, which only a corrupt
 * unit's struct that contains itself comes near, count as aligned to 1
 */
#define MAX_NESTING MAX_REF_CHAIN

/* pahole's member of a struct: offsets and sizes as its loader computes them */
struct member_layout {
	uint32_t byte_offset, bit_offset, bitfield_size, byte_size, bit_size;
};

static bool is_struct(const struct cu_type *t)
{
	return t->tag == DW_TAG_structure_type || t->tag == DW_TAG_class_type ||
	       t->tag == DW_TAG_interface_type;
}

/* tag__strip_typedefs_and_modifiers: what @idx refers to, through typedefs and qualifiers */
static uint32_t strip(const struct cu *cu, uint32_t idx)
{
	uint32_t steps = 0;

	while (idx && idx < cu->nr_types && steps++ <= MAX_REF_CHAIN) {
		uint16_t tag = cu->types[idx].tag;

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type)
			return idx;
		idx = cu->types[idx].type;
	}
	return 0;
}

static uint64_t natural_alignment(const struct cu *cu, uint32_t idx, uint32_t depth);

/* a struct's or union's: its members' largest */
static uint64_t members_alignment(const struct cu *cu, const struct cu_type *t, uint32_t depth)
{
	uint64_t a = 0, m;
	uint32_t i;

	for (i = 0; i < t->nr; i++) {
		uint32_t type = strip(cu, cu->members[t->first + i].type);

		if (!type)
			continue;
		m = natural_alignment(cu, type, depth + 1);
		if (a < m)
			a = m;
	}
	return a;
}

/*
 * tag__natural_alignment (1 for void and what it does not know) of @idx,
 * a member of structs @depth deep
 */
static uint64_t natural_alignment(const struct cu *cu, uint32_t idx, uint32_t depth)
{
	const struct cu_type *t;
	uint32_t steps = 0;
	uint64_t a = 1;

	/* an array's is its element's: arrays of arrays are a reference chain */
	while (idx && idx < cu->nr_types && cu->types[idx].tag == DW_TAG_array_type &&
	       steps++ <= MAX_REF_CHAIN)
		idx = strip(cu, cu->types[idx].type);
	if (!idx || idx >= cu->nr_types || depth > MAX_NESTING)
		return 1;
	t = &cu->types[idx];
	switch (t->tag) {
	case DW_TAG_pointer_type:
		a = cu->addr_size;
		break;
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
		a = t->size;
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_interface_type:
	case DW_TAG_union_type:
		a = members_alignment(cu, t, depth);
		break;
	default:
		break;
	}
	return a ? a : 1;
}

/* member @m as pahole's loader lays it out (class_member__cache_byte_size) */
static void member_layout(const struct cu *cu, const struct cu_member *m, struct member_layout *ml)
{
	ml->bitfield_size = m->bitfield_size;
	ml->bit_offset = m->bit_offset;
	if (!m->bitfield_size) {
		ml->byte_size = (uint32_t)cu__type_size(cu, m->type);
		ml->byte_offset = m->bit_offset / 8;
	} else {
		ml->byte_size = m->dw4_byte_size ? m->dw4_byte_size
						 : (uint32_t)cu__type_size(cu, strip(cu, m->type));
		if (m->has_dw4_bit_offset) {
			/* DWARF 4: bit_offset is location * 8 plus the bit offset the
			 * loader turned around (little-endian) from DW_AT_bit_offset */
			uint32_t bits = m->bit_offset - ml->byte_size * 8 + m->dw4_bit_offset +
					m->bitfield_size;

			if (cu->big_endian)
				bits = m->bit_offset - m->dw4_bit_offset;
			ml->byte_offset = bits / 8;
		} else {
			ml->byte_offset = m->bit_offset / 8;
		}
	}
	ml->bit_size = ml->byte_size * 8;
}

/* class__find_holes: pahole's count of byte holes (8 bits) and tail padding (16 bits) */
static void find_holes(const struct cu *cu, const struct cu_type *t, uint8_t *nr_holes,
		       uint16_t *padding)
{
	uint32_t cur_bitfield_end = (uint32_t)t->size * 8, cur_bitfield_size = 0;
	uint32_t last_seen_bit = 0, bit_start, bit_end, i;
	bool in_bitfield = false;
	int byte_holes;

	*nr_holes = 0;
	for (i = 0; i < t->nr; i++) {
		struct member_layout m;

		member_layout(cu, &cu->members[t->first + i], &m);
		bit_start = m.bit_offset;
		bit_end = bit_start + (m.bitfield_size ? m.bitfield_size : m.byte_size * 8);
		byte_holes = 0;
		if (in_bitfield)
			last_seen_bit = bit_start < cur_bitfield_end ? bit_start : cur_bitfield_end;
		if (m.bitfield_size) {
			uint32_t aligned_start = m.byte_offset * 8;

			if (last_seen_bit < aligned_start && aligned_start <= bit_start) {
				byte_holes = (int)(m.byte_offset - last_seen_bit / 8);
				last_seen_bit = aligned_start;
			}
		} else {
			byte_holes = (int)(bit_start / 8 - last_seen_bit / 8);
		}
		last_seen_bit = bit_end;
		if (m.bitfield_size) {
			in_bitfield = true;
			if (bit_end > cur_bitfield_end || m.bit_size > cur_bitfield_size) {
				cur_bitfield_size = m.bit_size;
				cur_bitfield_end = m.byte_offset * 8 + cur_bitfield_size;
				if (bit_end > cur_bitfield_end)
					cur_bitfield_end += cur_bitfield_size;
			}
		} else {
			in_bitfield = false;
			cur_bitfield_size = 0;
			cur_bitfield_end = bit_end;
		}
		if (byte_holes > 0)
			(*nr_holes)++;
	}
	if (in_bitfield)
		last_seen_bit =
			t->size * 8 < cur_bitfield_end ? (uint32_t)t->size * 8 : cur_bitfield_end;
	*padding = (uint16_t)(t->size - last_seen_bit / 8);
}

static struct packed_entry *memo_find(struct packed_memo *memo, uint32_t idx)
{
	uint32_t i;

	for (i = 0; i < memo->nr; i++)
		if (memo->e[i].idx == idx)
			return &memo->e[i];
	return NULL;
}

static int memo_set(struct packed_memo *memo, uint32_t idx, bool packed)
{
	struct packed_entry *e = memo_find(memo, idx);

	if (!e) {
		if (d2b_grow(&memo->e, &memo->cap, memo->nr + 1ull, sizeof(*memo->e)))
			return -ENOMEM;
		e = &memo->e[memo->nr++];
		e->idx = idx;
	}
	e->packed = packed;
	return 0;
}

/* type__check_structs_at_unnatural_alignments: struct members out of place, packed */
static int mark_misplaced(const struct cu *cu, const struct cu_type *t, struct packed_memo *memo)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < t->nr && !err; i++) {
		const struct cu_member *cm = &cu->members[t->first + i];
		uint32_t type = strip(cu, cm->type);
		struct member_layout m;

		if (!type || !is_struct(&cu->types[type]))
			continue;
		member_layout(cu, cm, &m);
		if (m.byte_offset % natural_alignment(cu, type, 0))
			err = memo_set(memo, type, true);
	}
	return err;
}

/* class__infer_packed_attributes, remembered; -ENOMEM, or 0 or 1 */
static int infer_packed(const struct cu *cu, uint32_t idx, struct packed_memo *memo)
{
	const struct cu_type *t = &cu->types[idx];
	const struct packed_entry *e = memo_find(memo, idx);
	uint64_t max_align = 1, a;
	uint16_t padding;
	uint8_t nr_holes;
	bool packed = false;
	uint32_t i;
	int err;

	if (e)
		return e->packed;
	find_holes(cu, t, &nr_holes, &padding);
	if (padding || nr_holes) {
		err = mark_misplaced(cu, t, memo);
		return err ? err : memo_set(memo, idx, false);
	}
	for (i = 0; i < t->nr && !packed; i++) {
		const struct cu_member *cm = &cu->members[t->first + i];
		struct member_layout m;

		a = natural_alignment(cu, strip(cu, cm->type), 0);
		if (a == 1)
			continue;
		if (max_align < (uint16_t)a)
			max_align = (uint16_t)a;
		member_layout(cu, cm, &m);
		packed = m.byte_offset % a != 0;
	}
	if (!packed)
		packed = (max_align != 1 && (t->flags & CU_TYPE_ALIGNED_1)) || t->size % max_align;
	err = memo_set(memo, idx, packed);
	return err ? err : packed;
}

int func__uncertain_param_loc(const struct cu *cu, const struct cu_func *fn,
			      struct packed_memo *memo)
{
	uint32_t i, n = 0;
	int r;

	for (i = 0; i < fn->nr_params; i++)
		n += !cu->params[fn->first_param + i].vararg;
	if (n < cu->nr_param_regs)
		return 0;
	for (i = 0, n = 0; i < fn->nr_params; i++) {
		const struct cu_param *p = &cu->params[fn->first_param + i];
		const struct cu_type *t;

		if (p->vararg || n++ < cu->nr_param_regs)
			continue;
		if (!p->type || p->type >= cu->nr_types)
			continue;
		t = &cu->types[p->type];
		if (!is_struct(t) || !t->name)
			continue;
		r = infer_packed(cu, p->type, memo);
		if (r)
			return r;
	}
	return 0;
}

void packed_memo__reset(struct packed_memo *m)
{
	m->nr = 0;
}

void packed_memo__free(struct packed_memo *m)
{
	free(m->e);
	m->e = NULL;
	m->nr = m->cap = 0;
}
