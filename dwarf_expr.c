// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_expr - DWARF location expressions (dr_expr__decode) and the
 * location lists of DWARF 4 (.debug_loc) and 5 (.debug_loclists) walked
 * entry by entry (dr_attr__for_each_location); see dwarf_reader.h.
 *
 * Each operation is decoded with the operand its users need (the first; for
 * the deref_type operations, the type), and the block of DW_OP_entry_value,
 * DW_OP_implicit_value and the const_type operations: what parameter
 * locations (param_locations.c), variable addresses and DWARF 2 member
 * offsets (die_walk.c) need. Every read is bounds-checked through the
 * reader's cursor (dwarf_reader_rd.h); a truncated or unknown operation,
 * or a malformed list, is -EINVAL.
 */
#include <dwarf.h>
#include <errno.h>

#include "dwarf_reader.h"
#include "dwarf_reader_rd.h"

int dr_expr__decode(const struct dr_cu *cu, const uint8_t *expr, size_t len, struct dr_op *ops,
		    int max)
{
	struct rd r = { .p = expr, .end = expr + len, .swap = cu->secs->swap };
	uint8_t osz = cu->unit->offset_size, asz = cu->unit->addr_size;
	int n = 0;

	while (r.p < r.end && !r.bad) {
		struct dr_op op = { .atom = *r.p++ };
		uint8_t a = op.atom;

		if ((a >= DW_OP_lit0 && a <= DW_OP_reg31) ||
		    (a >= DW_OP_dup && a <= DW_OP_plus && a != DW_OP_pick)) {
			/* no operand */
		} else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
			op.number = (uint64_t)rd_sleb(&r);
		} else {
			/* clang-format off */
			switch (a) {
			case DW_OP_addr: op.number = rd_fixed(&r, asz); break;
			case DW_OP_deref: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra:
			case DW_OP_xor: case DW_OP_eq: case DW_OP_ge: case DW_OP_gt:
			case DW_OP_le: case DW_OP_lt: case DW_OP_ne: case DW_OP_nop:
			case DW_OP_push_object_address: case DW_OP_form_tls_address:
			case DW_OP_call_frame_cfa: case DW_OP_stack_value:
			case DW_OP_GNU_push_tls_address: case DW_OP_GNU_uninit:
				break;
			case DW_OP_const1u: case DW_OP_const1s: case DW_OP_pick:
			case DW_OP_deref_size: case DW_OP_xderef_size:
				op.number = rd_fixed(&r, 1); break;
			case DW_OP_const2u: case DW_OP_const2s: case DW_OP_bra: case DW_OP_skip:
			case DW_OP_call2:
				op.number = rd_fixed(&r, 2); break;
			case DW_OP_const4u: case DW_OP_const4s: case DW_OP_call4:
			case DW_OP_GNU_parameter_ref:
				op.number = rd_fixed(&r, 4); break;
			case DW_OP_const8u: case DW_OP_const8s: op.number = rd_fixed(&r, 8); break;
			case DW_OP_constu: case DW_OP_plus_uconst: case DW_OP_regx: case DW_OP_piece:
			case DW_OP_addrx: case DW_OP_constx: case DW_OP_convert:
			case DW_OP_reinterpret: case DW_OP_GNU_convert: case DW_OP_GNU_reinterpret:
			case DW_OP_GNU_addr_index: case DW_OP_GNU_const_index:
				op.number = rd_uleb(&r); break;
			case DW_OP_consts: case DW_OP_fbreg: op.number = (uint64_t)rd_sleb(&r); break;
			case DW_OP_bregx: op.number = rd_uleb(&r); rd_sleb(&r); break;
			case DW_OP_bit_piece: case DW_OP_regval_type: case DW_OP_GNU_regval_type:
				op.number = rd_uleb(&r); rd_uleb(&r); break;
			case DW_OP_call_ref: case DW_OP_GNU_variable_value:
				op.number = rd_fixed(&r, osz); break;
			case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
				op.number = rd_fixed(&r, osz); rd_sleb(&r); break;
			case DW_OP_deref_type: case DW_OP_xderef_type: case DW_OP_GNU_deref_type:
				rd_fixed(&r, 1); op.number = rd_uleb(&r); break;
			case DW_OP_implicit_value: case DW_OP_entry_value: case DW_OP_GNU_entry_value:
				op.block_len = (size_t)rd_uleb(&r);
				op.block = r.p;
				rd_skip(&r, op.block_len);
				break;
			case DW_OP_const_type: case DW_OP_GNU_const_type:
				op.number = rd_uleb(&r);
				op.block_len = (size_t)rd_fixed(&r, 1);
				op.block = r.p;
				rd_skip(&r, op.block_len);
				break;
			default:
				return -EINVAL;
			}
			/* clang-format on */
		}
		if (r.bad)
			return -EINVAL;
		if (n < max)
			ops[n] = op;
		n++;
	}
	return r.bad ? -EINVAL : n;
}

/* the @len-byte expression of a list entry at @r, passed to @fn: fn's value, or -EINVAL */
static int loc_entry(struct rd *r, uint64_t len, int (*fn)(void *, const uint8_t *, size_t),
		     void *ctx)
{
	const uint8_t *expr = r->p;

	rd_skip(r, len);
	if (r->bad)
		return -EINVAL;
	return fn(ctx, expr, (size_t)len);
}

static int loc_v4_for_each(const struct dr_cu *cu, uint64_t off,
			   int (*fn)(void *, const uint8_t *, size_t), void *ctx)
{
	struct rd r = rd_at(&cu->secs->loc, off, cu->secs->swap);
	uint8_t asz = cu->unit->addr_size;
	uint64_t max = asz == 8 ? ~(uint64_t)0 : 0xffffffffu;

	for (;;) {
		uint64_t begin = rd_fixed(&r, asz), end = rd_fixed(&r, asz);
		int ret;

		if (r.bad)
			return -EINVAL;
		if (!begin && !end)
			return 0;
		if (begin == max)
			continue; /* base address selection */
		ret = loc_entry(&r, rd_fixed(&r, 2), fn, ctx);
		if (ret)
			return ret;
	}
}

static int loc_v5_for_each(const struct dr_cu *cu, uint64_t off,
			   int (*fn)(void *, const uint8_t *, size_t), void *ctx)
{
	struct rd r = rd_at(&cu->secs->loclists, off, cu->secs->swap);
	uint8_t asz = cu->unit->addr_size;

	for (;;) {
		uint8_t kind = (uint8_t)rd_fixed(&r, 1);
		int ret;

		/* clang-format off */
		switch (kind) {
		case DW_LLE_end_of_list:
			return r.bad ? -EINVAL : 0;
		case DW_LLE_base_addressx: rd_uleb(&r); continue;
		case DW_LLE_base_address: rd_fixed(&r, asz); continue;
		case DW_LLE_startx_endx: case DW_LLE_startx_length: case DW_LLE_offset_pair:
			rd_uleb(&r); rd_uleb(&r); break;
		case DW_LLE_default_location: break;
		case DW_LLE_start_end: rd_fixed(&r, asz); rd_fixed(&r, asz); break;
		case DW_LLE_start_length: rd_fixed(&r, asz); rd_uleb(&r); break;
		default: return -EINVAL;
		}
		/* clang-format on */
		ret = loc_entry(&r, rd_uleb(&r), fn, ctx);
		if (ret)
			return ret;
	}
}

int dr_attr__for_each_location(const struct dr_cu *cu, const struct dr_attr *a,
			       int (*fn)(void *ctx, const uint8_t *expr, size_t len), void *ctx)
{
	const uint8_t *expr;
	size_t len;
	uint64_t off;
	struct rd r, t;

	if (!dr_attr__block(cu, a, &expr, &len))
		return fn(ctx, expr, len);
	r = attr_rd(cu, a);
	/* clang-format off */
	switch (a->form) {
	case DW_FORM_sec_offset: off = rd_fixed(&r, cu->unit->offset_size); break;
	case DW_FORM_data4: off = rd_fixed(&r, 4); break;
	case DW_FORM_data8: off = rd_fixed(&r, 8); break;
	case DW_FORM_loclistx:
		t = rd_at(&cu->secs->loclists,
			  cu->loclists_base + rd_uleb(&r) * cu->unit->offset_size, cu->secs->swap);
		off = cu->loclists_base + rd_fixed(&t, cu->unit->offset_size);
		if (t.bad)
			return -EINVAL;
		break;
	default: return -EINVAL;
	}
	/* clang-format on */
	if (r.bad)
		return -EINVAL;
	if (cu->unit->version < 5)
		return loc_v4_for_each(cu, off, fn, ctx);
	return loc_v5_for_each(cu, off, fn, ctx);
}
