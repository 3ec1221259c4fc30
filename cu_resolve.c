// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader's resolution of a walked unit. References are stored as
 * CU-relative DIE offsets (keys) while walking and turned into type table
 * indexes here; anything that is not a table entry (unspecified types,
 * missing DIEs) resolves to void, and a reference to no DIE at all is an
 * error. Then: no reference cycle without a struct or union in it, the
 * sizes that need types (DWARF 4 bitfields, variables), pahole 1.32's
 * parameter analysis (param_locations.c) and each function's flags.
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf_loader_priv.h"

/* pahole's tag__size: an array's is its element count times its element's */
static uint64_t type_size(const struct cu *cu, uint32_t idx, uint8_t addr_size)
{
	uint64_t count = 1; /* the arrays' element counts on the way, multiplied */
	uint32_t steps;

	for (steps = 0; idx && idx < cu->nr_types && steps <= MAX_REF_CHAIN; steps++) {
		const struct cu_type *t = &cu->types[idx];

		switch (t->tag) {
		case DW_TAG_pointer_type:
		case DW_TAG_reference_type:
		case DW_TAG_rvalue_reference_type:
		case DW_TAG_subroutine_type:
			return count * addr_size;
		case DW_TAG_base_type:
		case DW_TAG_enumeration_type:
			return count * t->size;
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
		case DW_TAG_interface_type:
			return t->size == 1 && t->nr == 0 ? 0 : count * t->size;
		case DW_TAG_array_type:
			count *= t->size;
			break;
		default:
			break;
		}
		idx = t->type;
	}
	return 0;
}

uint64_t cu__type_size(const struct cu *cu, uint32_t idx)
{
	return type_size(cu, idx, cu->addr_size);
}

static bool type_is_struct(const struct cu *cu, uint32_t idx)
{
	uint32_t steps = 0;

	while (idx && idx < cu->nr_types && steps++ <= MAX_REF_CHAIN) {
		const struct cu_type *t = &cu->types[idx];

		if (t->tag == DW_TAG_structure_type || t->tag == DW_TAG_class_type)
			return true;
		if (t->tag != DW_TAG_const_type && t->tag != DW_TAG_typedef)
			return false;
		idx = t->type;
	}
	return false;
}

/* a reference that is not a type entry: void, as pahole makes it, if it
 * points at a DIE at all; anything else is corrupt input */
static uint32_t ref_resolve(struct cu_loader *l, uint32_t key)
{
	uint32_t idx = map__find(l, key);
	uint64_t off = l->cu_start + key;
	struct dr_cu *dc;

	/* (a type unit's references were checked against its unit when read) */
	if (!idx && key && !(key & TU_KEY_INFO) && !l->err.ref_die &&
	    (!(dc = dr_cu__of(l->dc, off)) || dr_die__at(dc, off, &l->tmp) != 1))
		l->err.ref_die = off;
	return idx;
}

/*
 * Reference kinds only point at other types; in C, a chain of them can only
 * loop back through a struct or union. A cycle without one (a const that is
 * its own type) would send libbpf's dedup into unbounded recursion, and so
 * would a chain too long for its stack: both are errors. Each chain is
 * walked once: a type's chain length, once known, ends the walk of any
 * chain that reaches it.
 */
static int cu_check_cycles(struct cu_loader *l)
{
	struct cu *cu = l->cu;
	uint8_t *state = calloc(cu->nr_types, 1); /* 0 new, 1 on the path, 2 done */
	uint32_t *len = calloc(cu->nr_types, sizeof(*len)); /* once done: its chain's */
	uint32_t i, j, n, base;
	int err = 0;

	if (!state || !len) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 1; i < cu->nr_types && !err; i++) {
		for (n = 0, j = i; j && state[j] == 0; j = cu->types[j].type, n++) {
			uint16_t tag = cu->types[j].tag;

			if (cu_tag_has_members(tag) || tag == DW_TAG_enumeration_type ||
			    tag == DW_TAG_base_type)
				break;
			state[j] = 1;
		}
		if (j && state[j] == 1) {
			l->err.die = cu->types[j].die_off;
			err = -ELOOP;
			break;
		}
		base = j && state[j] == 2 ? len[j] : 0;
		if ((uint64_t)base + n > MAX_REF_CHAIN) {
			l->err.die = cu->types[i].die_off;
			l->err.chain_too_long = true;
			err = -ELOOP;
		}
		for (j = i; j && state[j] == 1; j = cu->types[j].type, n--) {
			len[j] = base + n;
			state[j] = 2;
		}
	}
out:
	free(state);
	free(len);
	return err;
}

int cu__resolve(struct cu_loader *l)
{
	struct cu *cu = l->cu;
	bool big_endian = l->dl->secs.swap != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	uint32_t i, pass;
	int err;

	/* skeletons, possibly of skeletons (in type units): to a fixpoint */
	for (pass = 0; pass < l->tu.nr_aliases / 2; pass++) {
		bool changed = false;

		for (i = 0; i < l->tu.nr_aliases; i += 2) {
			uint32_t idx = map__find(l, l->tu.aliases[i + 1]);

			if (idx && map__find(l, l->tu.aliases[i]) != idx) {
				if (map__add(l, l->tu.aliases[i], idx))
					return -ENOMEM;
				changed = true;
			}
		}
		if (!changed)
			break;
	}

	for (i = 1; i < cu->nr_types; i++)
		if (!(cu->types[i].flags & CU_TYPE_REF_INDEX))
			cu->types[i].type = ref_resolve(l, cu->types[i].type);
	for (i = 0; i < l->nr_members; i++)
		cu->members[i].type = ref_resolve(l, cu->members[i].type);
	for (i = 0; i < l->nr_params; i++)
		cu->params[i].type = ref_resolve(l, cu->params[i].type);
	for (i = 0; i < cu->nr_vars; i++)
		cu->vars[i].type = ref_resolve(l, cu->vars[i].type);
	for (i = 0; i < cu->nr_funcs; i++)
		cu->funcs[i].ret_type = ref_resolve(l, cu->funcs[i].ret_type);
	if (l->err.ref_die)
		return -EBADMSG;
	err = cu_check_cycles(l);
	if (err)
		return err;

	for (i = 0; i < l->nr_members; i++) {
		struct cu_member *m = &cu->members[i];
		uint32_t bits;

		if (!m->has_dw4_bit_offset)
			continue;
		/*
		 * DWARF <= 4: bit_offset counts from the most significant bit of
		 * the member's storage (DW_AT_byte_size, else its type's size),
		 * which is the first on a big-endian machine; no size, no offset
		 */
		bits = (uint32_t)((m->dw4_byte_size ? m->dw4_byte_size
						    : type_size(cu, m->type, l->addr_size)) *
				  8);
		if (!bits)
			continue;
		if (big_endian)
			m->bit_offset += m->dw4_bit_offset;
		else
			m->bit_offset = m->bit_offset + bits - m->dw4_bit_offset - m->bitfield_size;
	}
	for (i = 0; i < cu->nr_vars; i++)
		cu->vars[i].size = type_size(cu, cu->vars[i].type, l->addr_size);
	if (l->dl->conf->pahole >= 132) {
		err = params__analyze(l);
		if (err)
			return err;
	}
	for (i = 0; i < cu->nr_funcs; i++) {
		struct cu_func *fn = &cu->funcs[i];
		bool unexpected = false, has_struct = false;
		uint32_t p;

		for (p = fn->first_param; p < fn->first_param + fn->nr_params; p++) {
			unexpected |= cu->params[p].unexpected_reg;
			has_struct |= type_is_struct(cu, cu->params[p].type);
		}
		fn->unexpected_reg = unexpected && !has_struct;
	}
	for (i = 1; i < cu->nr_types; i++) {
		const struct cu_type *t = &cu->types[i];

		if (t->tag == DW_TAG_base_type && t->name && !strcmp(t->name, "int")) {
			cu->int_type = i;
			break;
		}
	}
	return 0;
}
