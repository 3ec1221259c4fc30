// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader's reading of parameter locations, which tells the encoder
 * which functions' parameters are not where the ABI puts them.
 *
 * pahole 1.30 looks, while the DIE is walked, for the register a parameter
 * arrives in (param__analyze). pahole 1.32 notes what each parameter's
 * location says while walking (param__locate), and analyzes it once types
 * are resolved and their sizes known (params__analyze, from cu__resolve):
 * an out-of-line copy's parameters hand theirs to their origin's, then
 * each function's parameters are walked along the ABI's registers. The
 * location list sections a unit reads are noted for the page release
 * (loc_note).
 */
#include <stdlib.h>

#include "dwarf_loader_priv.h"

#define MAX_PARAM_OPS 8

/*
 * Which register does a parameter's location say it arrives in? pahole's
 * rules: DW_OP_regN counts only in the first location, DW_OP_entry_value(
 * DW_OP_regN) in any; a trailing DW_OP_stack_value is ignored; the walk
 * stops at the expected register. reg is the DW_OP_regN atom, or -1.
 */
struct param_reg_walk {
	const struct dr_cu *dc;
	int expected;
	int loc;
	int reg;
	const uint8_t *end; /* of the furthest expression read */
};

/*
 * One expression of a parameter's location list: counted (@loc), how far it
 * reaches noted (@end), up to @max of its operations decoded into @ops.
 * Returns their number, or -1 to stop the walk where libdw stops (at an
 * expression it cannot decode).
 */
static int loc_expr_decode(const struct dr_cu *dc, int *loc, const uint8_t **end,
			   const uint8_t *expr, size_t len, struct dr_op *ops, int max)
{
	int n;

	(*loc)++;
	if (expr + len > *end)
		*end = expr + len;
	n = dr_expr__decode(dc, expr, len, ops, max);
	return n < 0 ? -1 : n;
}

static int param_reg_expr(void *ctx, const uint8_t *expr, size_t len)
{
	struct param_reg_walk *w = ctx;
	struct dr_op ops[MAX_PARAM_OPS], eop;
	int n = loc_expr_decode(w->dc, &w->loc, &w->end, expr, len, ops, MAX_PARAM_OPS);

	if (n < 0)
		return -1;
	if (n > 1 && n <= MAX_PARAM_OPS && ops[n - 1].atom == DW_OP_stack_value)
		n--;
	if (n != 1)
		return 0;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		if (w->loc != 0)
			return 0;
		w->reg = ops[0].atom;
	} else if (ops[0].atom == DW_OP_entry_value || ops[0].atom == DW_OP_GNU_entry_value) {
		if (dr_expr__decode(w->dc, ops[0].block, ops[0].block_len, &eop, 1) != 1)
			return 0;
		w->reg = eop.atom;
	} else {
		return 0;
	}
	return w->reg == w->expected;
}

/* @end, if in a location list section, is how far the unit read it */
static void loc_note(struct cu_loader *l, const uint8_t *end)
{
	const struct dr_section *secs[2] = { &l->dl->secs.loc, &l->dl->secs.loclists };
	int i;

	for (i = 0; i < 2; i++) {
		const struct dr_section *sec = secs[i];

		if (sec->data && end > sec->data && end <= sec->data + sec->size &&
		    (uint64_t)(end - sec->data) > l->cu->loc_end[i])
			l->cu->loc_end[i] = end - sec->data;
	}
}

void param__analyze(struct cu_loader *l, const struct dr_die *die, int idx, struct cu_param *p)
{
	struct param_reg_walk w = { .dc = l->dc, .loc = -1, .reg = -1 };
	const struct dr_attr *a;

	/* (pahole counts registers on machines it has no map for, to no effect) */
	if (!l->dl->machine.param_regs || idx >= l->dl->machine.nr_param_regs ||
	    !(a = dr_die__attr(die, DW_AT_location)))
		return;
	w.expected = l->dl->machine.param_regs[idx];
	dr_attr__for_each_location(l->dc, a, param_reg_expr, &w);
	if (w.reg >= 0 && w.reg != w.expected)
		p->unexpected_reg = true;
	loc_note(l, w.end);
}

/*
 * pahole 1.32's reading of a parameter's location (parameter__decode_location),
 * for every parameter: in the first location, DW_OP_regN, or DW_OP_bregN with
 * DW_OP_stack_value, names its register, DW_OP_fbreg says it is on the
 * stack, a constant says it is one; DW_OP_entry_value(DW_OP_regN) names the
 * register in any location; the first register found stays. An expression
 * of several operations is read one way for a parameter no larger than a
 * register (its first operation only) and another for an aggregate in two
 * registers (its pieces' first register, in any location): which one
 * applies is known once types are (params__analyze), so both are kept.
 */
struct param_loc_walk {
	const struct dr_cu *dc;
	struct cu_param *p;
	int loc;
	const uint8_t *end; /* of the furthest expression read */
};

static bool op_is_reg(uint8_t atom)
{
	return atom >= DW_OP_reg0 && atom <= DW_OP_reg31;
}

static bool op_is_const(uint8_t atom)
{
	return (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) || atom == DW_OP_constu ||
	       atom == DW_OP_consts;
}

static void loc_reg_set(int16_t *reg, int atom)
{
	if (*reg < 0)
		*reg = (int16_t)atom;
}

/* pahole's parameter__multi_exprs, both readings */
static void param_loc_multi(struct param_loc_walk *w, const struct dr_op *ops, int n)
{
	struct cu_param *p = w->p;
	int i;

	if (op_is_const(ops[0].atom)) {
		if (w->loc == 0)
			p->loc_const_value = true;
		return;
	}
	if (w->loc == 0 && op_is_reg(ops[0].atom)) {
		loc_reg_set(&p->loc_reg, ops[0].atom);
	} else if (w->loc == 0 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		for (i = 1; i < n; i++)
			if (ops[i].atom == DW_OP_stack_value)
				break;
		if (i < n)
			loc_reg_set(&p->loc_reg, ops[0].atom - DW_OP_breg0 + DW_OP_reg0);
	}
	/* (a leading DW_OP_piece is no register) */
	for (i = 0; i < n; i++)
		if (op_is_reg(ops[i].atom)) {
			loc_reg_set(&p->loc_reg_agg, ops[i].atom);
			break;
		}
}

static int param_loc_expr(void *ctx, const uint8_t *expr, size_t len)
{
	struct param_loc_walk *w = ctx;
	struct dr_op buf[MAX_PARAM_OPS], *ops = buf, eop;
	struct cu_param *p = w->p;
	bool stack_value;
	int n = loc_expr_decode(w->dc, &w->loc, &w->end, expr, len, ops, MAX_PARAM_OPS);
	int reg = -1;

	if (n <= 0)
		return n;
	if (n > MAX_PARAM_OPS) {
		ops = malloc((size_t)n * sizeof(*ops));
		if (!ops || dr_expr__decode(w->dc, expr, len, ops, n) != n) {
			free(ops);
			return -1;
		}
	}
	stack_value = ops[n - 1].atom == DW_OP_stack_value;
	if (n == 2 && stack_value)
		n = 1;
	if (n != 1) {
		param_loc_multi(w, ops, n);
	} else if (op_is_reg(ops[0].atom)) {
		if (w->loc == 0)
			reg = ops[0].atom;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		if (w->loc == 0 && stack_value)
			reg = ops[0].atom - DW_OP_breg0 + DW_OP_reg0;
	} else if (ops[0].atom == DW_OP_fbreg) {
		if (w->loc == 0)
			p->loc_stack = true;
	} else if (op_is_const(ops[0].atom)) {
		if (w->loc == 0)
			p->loc_const_value = true;
	} else if (ops[0].atom == DW_OP_entry_value || ops[0].atom == DW_OP_GNU_entry_value) {
		if (dr_expr__decode(w->dc, ops[0].block, ops[0].block_len, &eop, 1) == 1 &&
		    op_is_reg(eop.atom))
			reg = eop.atom;
	}
	if (reg >= 0) {
		loc_reg_set(&p->loc_reg, reg);
		loc_reg_set(&p->loc_reg_agg, reg);
	}
	if (ops != buf)
		free(ops);
	return 0;
}

/* pahole 1.32's parameter__new: what its own DIE says */
void param__locate(struct cu_loader *l, const struct dr_die *die, int idx, struct cu_param *p)
{
	struct param_loc_walk w = { .dc = l->dc, .p = p, .loc = -1 };
	const struct dr_attr *a;
	uint64_t off;

	p->idx = (uint16_t)idx;
	p->loc_reg = p->loc_reg_agg = -1;
	p->key = die_key(l, die->off);
	if (!dr_die__attr(die, DW_AT_type) && (a = dr_die__attr(die, DW_AT_abstract_origin)) &&
	    !dr_attr__ref(l->dc, a, &off))
		p->origin = die_key(l, off);
	p->has_const_value = dr_die__attr(die, DW_AT_const_value) != NULL;
	a = dr_die__attr(die, DW_AT_location);
	p->has_loc = a != NULL;
	if (a) {
		dr_attr__for_each_location(l->dc, a, param_loc_expr, &w);
		loc_note(l, w.end);
	}
}

/*
 * clang marks a function whose ABI it changed (a parameter dropped, say)
 * DW_CC_nocall; pahole 1.32 reads that from the function's abstract origin
 * if it has one, and never for an inline instance.
 */
bool func__signature_changed(struct cu_loader *l, const struct dr_die *die)
{
	const struct dr_attr *a;
	struct dr_cu *dc = l->dc;
	uint64_t v, off;

	if ((a = dr_die__attr(die, DW_AT_inline)) && !dr_attr__udata(l->dc, a, &v) && v)
		return false;
	if ((a = dr_die__attr(die, DW_AT_abstract_origin))) {
		if (dr_attr__ref(l->dc, a, &off) || !(dc = dr_cu__of(l->dc, off)) ||
		    dr_die__at(dc, off, &l->tmp) != 1)
			return false;
		die = &l->tmp;
	}
	a = dr_die__attr(die, DW_AT_calling_convention);
	return a && !dr_attr__udata(dc, a, &v) && v == DW_CC_nocall;
}

/* ---------------------------------------------------------------------- */
/* pahole 1.32: the analysis, once types are resolved                     */

/* pahole 1.32's get_type_byte_size: a pointer's is the address size; a type
 * with a byte size has it (an array has none); anything else, its type's */
static uint32_t param_type_size(const struct cu *cu, uint32_t idx, uint8_t addr_size)
{
	uint32_t steps = 0;

	while (idx && idx < cu->nr_types && steps++ <= MAX_REF_CHAIN) {
		const struct cu_type *t = &cu->types[idx];

		if (t->tag == DW_TAG_pointer_type)
			return addr_size;
		if (t->size && t->tag != DW_TAG_array_type && t->tag != D2B_TAG_TYPE_TAG)
			return (uint32_t)t->size;
		idx = t->type;
	}
	return 0;
}

/* index entries (key << 32 | param): by key (each DIE one parameter, so one entry) */
static int key_idx_cmp(const void *a, const void *b)
{
	uint32_t x = (uint32_t)(*(const uint64_t *)a >> 32),
		 y = (uint32_t)(*(const uint64_t *)b >> 32);

	return x < y ? -1 : x > y;
}

/*
 * pahole 1.32 (ftype__recode_dwarf_types): each parameter of an out-of-line
 * copy (DW_AT_abstract_origin, no type of its own) hands what its location
 * says to its origin's parameter, in function order, and marks its
 * function reordered if the two are at different places.
 */
static int params_share(struct cu_loader *l)
{
	struct cu *cu = l->cu;
	uint64_t *index = malloc(((size_t)l->nr_params + 1) * sizeof(*index));
	uint32_t i, p, n = 0;

	if (!index)
		return -ENOMEM;
	for (p = 0; p < l->nr_params; p++)
		if (cu->params[p].key)
			index[n++] = (uint64_t)cu->params[p].key << 32 | p;
	qsort(index, n, sizeof(*index), key_idx_cmp);
	for (i = 0; i < cu->nr_funcs; i++) {
		struct cu_func *fn = &cu->funcs[i];

		for (p = fn->first_param; p < fn->first_param + fn->nr_params; p++) {
			const struct cu_param *pos = &cu->params[p];
			uint64_t key = (uint64_t)pos->origin << 32, *hit;
			struct cu_param *opos;

			if (!pos->origin ||
			    !(hit = bsearch(&key, index, n, sizeof(*index), key_idx_cmp)))
				continue;
			opos = &cu->params[(uint32_t)*hit];
			if (pos->idx != opos->idx)
				fn->reordered_parm = true;
			opos->has_loc |= pos->has_loc;
			opos->has_const_value |= pos->has_const_value;
			opos->loc_const_value |= pos->loc_const_value;
			opos->loc_stack |= pos->loc_stack;
			if (pos->loc_reg >= 0)
				opos->loc_reg = pos->loc_reg;
		}
	}
	free(index);
	return 0;
}

/* the register a parameter of @slots registers from @reg_idx on may be in */
static bool reg_in_window(const struct elf_machine *m, int reg, int reg_idx, int slots)
{
	int i;

	for (i = 0; i < slots && reg_idx + i < m->nr_param_regs; i++)
		if (m->param_regs && reg == m->param_regs[reg_idx + i])
			return true;
	return false;
}

/*
 * pahole 1.32's function__analyze_parameter_locations, without the
 * true_signature parts: walk the parameters along the ABI's registers, an
 * aggregate of up to two registers taking both (but on s390), a larger one
 * passed in memory. gcc's, and clang's where it changed the ABI: a
 * parameter in a register other than the next one is unexpected, one
 * whose location names no register (or gcc's constant, without one) is
 * optimized out. clang's otherwise: only unexpected registers, looked for
 * among the registers the parameter's slots cover.
 */
static void func_analyze(struct cu_loader *l, struct cu_func *fn)
{
	const struct elf_machine *m = &l->dl->machine;
	struct cu *cu = l->cu;
	bool agg2 = m->machine != EM_S390, clang = l->producer_clang && !fn->signature_changed;
	uint32_t asz = l->addr_size, p;
	int reg_idx = 0;

	for (p = fn->first_param; p < fn->first_param + fn->nr_params; p++) {
		struct cu_param *pos = &cu->params[p];
		uint32_t size = param_type_size(cu, pos->type, (uint8_t)asz);
		int slots = !agg2 || size <= asz ? 1 : (int)((size + asz - 1) / asz);
		bool in_memory = size > (agg2 ? 2 * asz : asz);
		bool avail = reg_idx < m->nr_param_regs;
		int expected = avail && m->param_regs ? m->param_regs[reg_idx] : -1;

		if (pos->vararg)
			continue;
		if (clang) {
			if (in_memory)
				continue;
			if (!avail)
				break;
			if (pos->loc_reg >= 0 && !reg_in_window(m, pos->loc_reg, reg_idx, slots))
				pos->unexpected_reg = true;
			reg_idx += slots;
			continue;
		}
		if (pos->has_loc) {
			if (!avail)
				continue; /* takes no register */
			if (pos->loc_reg < 0)
				pos->optimized = true;
			else if (expected >= 0 && expected != pos->loc_reg)
				pos->unexpected_reg = true;
		} else if (pos->has_const_value && !l->producer_clang) {
			pos->optimized = true;
		}
		reg_idx += in_memory ? 1 : slots;
	}
	for (p = fn->first_param; p < fn->first_param + fn->nr_params; p++)
		if (!cu->params[p].vararg && (cu->params[p].optimized || !cu->params[p].has_loc))
			fn->optimized_parms = true;
}

/* pahole 1.32's parameter analysis (see param__locate, params_share, func_analyze) */
int params__analyze(struct cu_loader *l)
{
	struct cu *cu = l->cu;
	bool agg2 = l->dl->machine.machine != EM_S390;
	uint32_t i;
	int err;

	for (i = 0; i < l->nr_params; i++) {
		struct cu_param *p = &cu->params[i];

		if (!p->key)
			continue;
		if (agg2 && param_type_size(cu, p->type, l->addr_size) > l->addr_size)
			p->loc_reg = p->loc_reg_agg;
	}
	err = params_share(l);
	if (err)
		return err;
	for (i = 0; i < cu->nr_funcs; i++)
		func_analyze(l, &cu->funcs[i]);
	return 0;
}
