// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader's DIE walk: one unit's DIE tree, in one sequential pass,
 * into the CU being built (cu_tables.c).
 *
 * Table order follows pahole's loader so that the encoder can emit the same
 * pre-dedup type stream: a type entry is appended when its DIE is done, after
 * the types nested in it; a pointer's btf_type_tag entries come before it
 * (die_annotations.c). References are stored as CU-relative DIE offsets
 * (keys, die_key) while walking and turned into table indexes at the end
 * (cu_resolve.c). Values are read with libdw's dwarf_form*() semantics,
 * which pahole's output depends on. Nesting is bounded (MAX_DIE_DEPTH):
 * hostile input can nest without end.
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf_loader_priv.h"

/*
 * Enter one level of DIE nesting (a struct's members, a scope's children):
 * bound the depth, as hostile input can nest without end, and get the
 * child DIE of this depth, which is too large to keep on the stack at every
 * level (allocated once per depth and unit).
 */
static struct dr_die *scope_enter(struct cu_loader *l, const struct dr_die *die, int *err)
{
	struct dr_die **child;

	if (++l->depth > MAX_DIE_DEPTH) {
		l->err.die = die->off;
		l->err.too_deep = true;
		*err = -ELOOP;
		return NULL;
	}
	child = &l->scope_dies[l->depth];
	if (!*child)
		*child = malloc(sizeof(**child));
	if (!*child) {
		l->depth--;
		*err = -ENOMEM;
	}
	return *child;
}

static void scope_leave(struct cu_loader *l)
{
	l->depth--;
}

static int die_process(struct cu_loader *l, struct dr_die *die);

/* a subrange's element count: its upper bound plus one, or its count, or 0 */
static uint32_t subrange_nelems(struct cu_loader *l, struct dr_die *child)
{
	const struct dr_attr *a;
	uint64_t v;

	if ((a = dr_die__attr(child, DW_AT_upper_bound))) {
		if (!dr_attr__udata(l->dc, a, &v))
			return (uint32_t)(v + 1);
	} else if ((a = dr_die__attr(child, DW_AT_count))) {
		if (!dr_attr__udata(l->dc, a, &v))
			return (uint32_t)v;
	}
	return 0;
}

/*
 * An array type. pahole 1.30 encodes one ARRAY of the product of its
 * dimensions; 1.32 encodes one ARRAY per dimension, the innermost first,
 * so that the entry the DIE names (the outermost) comes last.
 */
static int die_process_array(struct cu_loader *l, struct dr_die *die, struct cu_type *t)
{
	bool per_dim = l->dl->conf->pahole >= 132;
	struct cu *cu = l->cu;
	struct dr_die child;
	uint32_t first = cu->nr_types, i, j, n = 1;
	int ret = 0;

	t->type = attr__ref(l, die, DW_AT_type);
	t->size = 0;
	cu->has_arrays = true;
	if (die->ab->children) {
		for_each_child(l, die, &child, ret) {
			if (child.ab->tag != DW_TAG_subrange_type &&
			    child.ab->tag != DW_TAG_enumeration_type)
				continue;
			t->size = subrange_nelems(l, &child);
			n *= (uint32_t)t->size;
			/* 1.32: an entry per dimension, outermost first (reversed below) */
			if (per_dim && !type__add_unnamed(l, die->off, t))
				return -ENOMEM;
		}
		if (ret < 0)
			return ret;
	}
	if (!per_dim || cu->nr_types == first) {
		t->size = die->ab->children ? n : 0;
		return type__add(l, die->off, t) ? 0 : -ENOMEM;
	}
	/* innermost first: each further one is an array of the one before */
	for (i = first, j = cu->nr_types - 1; i < j; i++, j--) {
		uint64_t size = cu->types[i].size;

		cu->types[i].size = cu->types[j].size;
		cu->types[j].size = size;
	}
	for (i = first + 1; i < cu->nr_types; i++) {
		cu->types[i].type = i - 1;
		cu->types[i].flags |= CU_TYPE_REF_INDEX;
	}
	return map__add(l, die_key(l, die->off), cu->nr_types - 1) ? -ENOMEM : 0;
}

static int die_process_params(struct cu_loader *l, struct dr_die *die, uint32_t *first,
			      uint32_t *nr)
{
	uint32_t mark = l->nr_vecs;
	struct vec *params = vec__take(l);
	struct dr_die child;
	int ret;

	if (!params)
		return -ENOMEM;
	for_each_child(l, die, &child, ret) {
		struct cu_param p = {};

		if (child.ab->tag == DW_TAG_formal_parameter) {
			p.name = attr__name(l, &child);
			p.type = attr__ref(l, &child, DW_AT_type);
		} else if (child.ab->tag == DW_TAG_unspecified_parameters) {
			p.vararg = true;
		} else {
			continue;
		}
		if (vec_push(params, &p, sizeof(p))) {
			ret = -ENOMEM;
			break;
		}
	}
	*nr = params->nr;
	if (ret >= 0)
		ret = vec__flush(params, &l->cu->params, &l->cap_params, &l->nr_params,
				 sizeof(struct cu_param), first);
	l->nr_vecs = mark;
	return ret;
}

static int die_process_enum(struct cu_loader *l, struct dr_die *die, struct cu_type *t)
{
	const struct dr_attr *a;
	struct dr_die child;
	struct dr_cu *dc;
	uint64_t off;
	int ret;

	t->size = attr__udata(l, die, DW_AT_byte_size, 0);
	a = dr_die__attr(die, DW_AT_type);
	if (a && !dr_attr__ref(l->dc, a, &off) && (dc = dr_cu__of(l->dc, off)) &&
	    dr_die__at(dc, off, &l->tmp) == 1 && l->tmp.ab->tag == DW_TAG_base_type) {
		const struct dr_attr *e = dr_die__attr(&l->tmp, DW_AT_encoding);
		uint64_t enc = 0;

		if (e)
			dr_attr__udata(dc, e, &enc);
		if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
			t->flags |= CU_TYPE_SIGNED_ENUM;
	}
	t->first = l->nr_enums;
	for_each_child(l, die, &child, ret) {
		struct cu_enumerator e;

		if (child.ab->tag != DW_TAG_enumerator)
			continue;
		e.name = attr__name(l, &child);
		e.value = attr__udata(l, &child, DW_AT_const_value, 0);
		if (d2b_grow(&l->cu->enumerators, &l->cap_enums, l->nr_enums + 1,
			     sizeof(*l->cu->enumerators)))
			return -ENOMEM;
		l->cu->enumerators[l->nr_enums++] = e;
		t->nr++;
	}
	if (ret < 0)
		return ret;
	return type__add(l, die->off, t) ? 0 : -ENOMEM;
}

static uint64_t member_byte_offset(struct cu_loader *l, const struct dr_die *die)
{
	const struct dr_attr *a = dr_die__attr(die, DW_AT_data_member_location);
	const uint8_t *block;
	struct dr_op op;
	size_t len;
	uint64_t v;

	if (!a)
		return 0;
	if (!dr_attr__udata(l->dc, a, &v))
		return v;
	/* DWARF 2 style: DW_OP_plus_uconst N */
	if (!dr_attr__block(l->dc, a, &block, &len) &&
	    dr_expr__decode(l->dc, block, len, &op, 1) >= 1 && op.atom == DW_OP_plus_uconst)
		return op.number;
	return 0;
}

static int member_add(struct cu_loader *l, const struct dr_die *die, struct vec *members)
{
	struct cu_member m = {};
	const struct dr_attr *a;
	uint32_t bits;
	int64_t sv;
	uint64_t v;

	m.name = attr__name(l, die);
	m.type = attr__ref(l, die, DW_AT_type);
	bits = (uint32_t)attr__udata(l, die, DW_AT_bit_size, 0);
	m.bitfield_size = bits > 0xffff ? 0xffff : (uint16_t)bits;
	if ((a = dr_die__attr(die, DW_AT_data_bit_offset)) && !dr_attr__udata(l->dc, a, &v)) {
		m.bit_offset = (uint32_t)v;
	} else {
		m.bit_offset = (uint32_t)(member_byte_offset(l, die) * 8);
		/* (pahole: a member that is no bitfield keeps its byte offset) */
		if (m.bitfield_size && (a = dr_die__attr(die, DW_AT_bit_offset)) &&
		    !dr_attr__sdata(l->dc, a, &sv)) {
			m.has_dw4_bit_offset = true;
			m.dw4_bit_offset = (uint32_t)sv;
			v = attr__udata(l, die, DW_AT_byte_size, 0);
			m.dw4_byte_size = v > 0xff ? 0 : (uint8_t)v;
		}
	}
	return vec_push(members, &m, sizeof(m));
}

static int die_process_class(struct cu_loader *l, struct dr_die *die, struct cu_type *t)
{
	uint32_t mark = l->nr_vecs;
	struct vec *members = vec__take(l), *annots = vec__take(l);
	struct dr_die *child;
	int ret, err = 0;

	if (!members || !annots) {
		l->nr_vecs = mark;
		return -ENOMEM;
	}
	child = scope_enter(l, die, &err);
	if (!child) {
		l->nr_vecs = mark;
		return err;
	}
	t->size = attr__udata(l, die, DW_AT_byte_size, 0);
	if (t->tag == DW_TAG_structure_type && attr__udata(l, die, DW_AT_alignment, 0) == 1)
		t->flags |= CU_TYPE_ALIGNED_1;
	for_each_child(l, die, child, ret) {
		switch (child->ab->tag) {
		case DW_TAG_member:
			/* C++ static members: declarations without location */
			if (t->tag != DW_TAG_union_type && attr__flag(child, DW_AT_declaration))
				break;
			err = annots__of(l, child, (int)members->nr, annots);
			if (!err)
				err = gnu_annots__of(l, child, (int)members->nr, annots);
			if (!err)
				err = member_add(l, child, members);
			break;
		case DW_TAG_LLVM_annotation:
		case DW_TAG_GNU_annotation:
			if (annot__die_tag(l, child->ab->tag))
				err = annot__add(l, child, -1, annots);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_variable:
		case DW_TAG_inheritance:
		case DW_TAG_template_type_parameter:
		case DW_TAG_template_value_parameter:
			break;
		default:
			err = die_process(l, child);
		}
		if (err)
			break;
	}
	if (!err)
		err = ret;
	scope_leave(l);
	/* pahole 1.32: a struct's own gcc annotations, after its members' */
	if (!err && t->tag != DW_TAG_union_type)
		err = gnu_annots__of(l, die, -1, annots);
	t->nr = members->nr;
	if (!err)
		err = vec__flush(members, &l->cu->members, &l->cap_members, &l->nr_members,
				 sizeof(struct cu_member), &t->first);
	if (!err)
		err = annots__flush(l, annots, &t->annot_first, &t->nr_annots);
	l->nr_vecs = mark;
	if (err)
		return err;
	return type__add(l, die->off, t) ? 0 : -ENOMEM;
}

static int die_process_typedef(struct cu_loader *l, struct dr_die *die, struct cu_type *t)
{
	uint32_t mark = l->nr_vecs;
	struct vec *annots = vec__take(l);
	int err;

	if (!annots)
		return -ENOMEM;
	err = annots__of(l, die, -1, annots);
	if (!err)
		err = annots__flush(l, annots, &t->annot_first, &t->nr_annots);
	l->nr_vecs = mark;
	if (err)
		return err;
	return type__add(l, die->off, t) ? 0 : -ENOMEM;
}

/* a subprogram being read: its own parameters and annotations */
struct fn_scope {
	struct vec *params, *annots;
};

static int die_process_body(struct cu_loader *l, struct dr_die *die, struct fn_scope *fs);

static int die_process_function(struct cu_loader *l, struct dr_die *die)
{
	struct cu *cu = l->cu;
	uint32_t mark = l->nr_vecs;
	struct fn_scope fs = { vec__take(l), vec__take(l) };
	const struct dr_attr *a;
	struct cu_func fn = {};
	int err;

	if (!fs.params || !fs.annots) {
		l->nr_vecs = mark;
		return -ENOMEM;
	}
	fn.name = attr__name(l, die);
	fn.ret_type = attr__ref(l, die, DW_AT_type);
	fn.declaration = attr__flag(die, DW_AT_declaration);
	fn.die_off = die->off;
	if ((a = dr_die__attr(die, DW_AT_low_pc)) && dr_attr__addr(l->dc, a, &fn.addr)) {
		fn.addr = 0;
		attr__bad(l, die, DW_AT_low_pc);
	}
	if (l->producer_clang && l->dl->conf->pahole >= 132)
		fn.signature_changed = func__signature_changed(l, die);
	err = die_process_body(l, die, &fs);
	/* pahole 1.32: the function's own gcc annotations, after its children's */
	if (!err)
		err = gnu_annots__of(l, die, -1, fs.annots);
	fn.nr_params = fs.params->nr;
	if (!err)
		err = vec__flush(fs.params, &cu->params, &l->cap_params, &l->nr_params,
				 sizeof(struct cu_param), &fn.first_param);
	if (!err)
		err = annots__flush(l, fs.annots, &fn.annot_first, &fn.nr_annots);
	l->nr_vecs = mark;
	if (err)
		return err;
	if (d2b_grow(&cu->funcs, &l->cap_funcs, cu->nr_funcs + 1, sizeof(*cu->funcs)))
		return -ENOMEM;
	cu->funcs[cu->nr_funcs++] = fn;
	return 0;
}

static int param_add(struct cu_loader *l, struct dr_die *die, struct fn_scope *fs)
{
	struct cu_param p = {};
	int idx = (int)fs->params->nr;
	int err;

	if (die->ab->tag == DW_TAG_unspecified_parameters) {
		p.vararg = true;
	} else {
		p.name = attr__name(l, die);
		p.type = attr__ref(l, die, DW_AT_type);
		if (l->dl->conf->pahole >= 132)
			param__locate(l, die, idx, &p);
		else
			param__analyze(l, die, idx, &p);
		err = annots__of(l, die, idx, fs->annots);
		if (!err)
			err = gnu_annots__of(l, die, idx, fs->annots);
		if (err)
			return err;
	}
	return vec_push(fs->params, &p, sizeof(p));
}

/*
 * Children of a subprogram, lexical block or inlined subroutine. @fs is the
 * function whose parameters and annotations are collected (only for the
 * subprogram's own children), NULL inside nested scopes.
 */
static int die_process_body(struct cu_loader *l, struct dr_die *die, struct fn_scope *fs)
{
	struct dr_die *child;
	int ret, err = 0;

	if (!die->ab->children)
		return 0;
	child = scope_enter(l, die, &err);
	if (!child)
		return err;
	for_each_child(l, die, child, ret) {
		switch (child->ab->tag) {
		case DW_TAG_formal_parameter:
		case DW_TAG_unspecified_parameters:
			if (fs)
				err = param_add(l, child, fs);
			break;
		case DW_TAG_LLVM_annotation:
		case DW_TAG_GNU_annotation:
			if (fs && annot__die_tag(l, child->ab->tag))
				err = annot__add(l, child, -1, fs->annots);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_inlined_subroutine:
			err = die_process_body(l, child, NULL);
			break;
		case DW_TAG_variable:
		case DW_TAG_label:
		case DW_TAG_call_site:
		case DW_TAG_call_site_parameter:
		case DW_TAG_GNU_call_site:
		case DW_TAG_GNU_call_site_parameter:
		case DW_TAG_template_type_parameter:
		case DW_TAG_template_value_parameter:
		case DW_TAG_dwarf_procedure:
			break;
		default:
			err = die_process(l, child);
		}
		if (err)
			break;
	}
	scope_leave(l);
	return err ? err : ret;
}

/* the static address of a variable: first location op DW_OP_addr/addrx */
static bool var_location(struct cu_loader *l, const struct dr_die *die, uint64_t *addr)
{
	const struct dr_attr *a = dr_die__attr(die, DW_AT_location);
	const uint8_t *expr;
	struct dr_op op;
	size_t len;

	/* only exprloc: a location list is not static storage */
	if (!a || dr_attr__block(l->dc, a, &expr, &len) ||
	    dr_expr__decode(l->dc, expr, len, &op, 1) < 1)
		return false;
	if (op.atom == DW_OP_addr) {
		*addr = op.number;
		return true;
	}
	if (op.atom != DW_OP_addrx && op.atom != DW_OP_GNU_addr_index)
		return false;
	if (dr_cu__addrx(l->dc, op.number, addr)) {
		attr__bad(l, die, DW_AT_location);
		return false;
	}
	return true;
}

static int die_process_variable(struct cu_loader *l, struct dr_die *die)
{
	struct cu *cu = l->cu;
	struct cu_var v = {};
	const struct dr_attr *a = dr_die__attr(die, DW_AT_specification);
	struct dr_die *spec = NULL, *adie = die;
	struct dr_cu *dc = l->dc, *spec_dc = NULL;
	uint32_t mark = l->nr_vecs;
	struct vec *annots;
	uint64_t off;
	int err = 0;

	/* as pahole: a concrete instance of a variable (LTO's out-of-line copy
	 * of an early-debug declaration) is not integrated with its abstract
	 * origin, and without a name of its own it is no VAR */
	if (dr_die__attr(die, DW_AT_abstract_origin) && !dr_die__attr(die, DW_AT_name))
		return 0;
	if (a && !dr_attr__ref(l->dc, a, &off) && (spec_dc = dr_cu__of(l->dc, off))) {
		spec = malloc(sizeof(*spec));
		if (!spec)
			return -ENOMEM;
		if (dr_die__at(spec_dc, off, spec) != 1) {
			free(spec);
			spec = NULL;
		}
	}
	v.die_off = die->off;
	v.declaration = attr__flag(die, DW_AT_declaration) && !spec;
	v.artificial = attr__flag(die, DW_AT_artificial);
	v.has_addr = var_location(l, die, &v.addr);
	v.name = attr__name(l, die);
	/*
	 * As pahole, a definition with a specification is the declaration it
	 * completes, but for its address: its linkage, decl tags and type
	 * are the declaration's. The type differs where the definition
	 * completes an array (extern void *refs[]; void *refs[] = {...}):
	 * the declaration's has no size, and no VAR is made.
	 */
	if (spec) {
		/* the specification's attributes and children are read with its own unit's reader */
		l->dc = spec_dc;
		v.type = attr__ref(l, spec, DW_AT_type);
		v.external = attr__flag(spec, DW_AT_external);
		adie = spec;
	} else {
		v.type = attr__ref(l, die, DW_AT_type);
		v.external = attr__flag(die, DW_AT_external);
	}
	annots = vec__take(l);
	err = annots ? annots__of(l, adie, -1, annots) : -ENOMEM;
	l->dc = dc;
	if (!err)
		err = annots__flush(l, annots, &v.annot_first, &v.nr_annots);
	l->nr_vecs = mark;
	free(spec);
	if (err)
		return err;
	if (d2b_grow(&cu->vars, &l->cap_vars, cu->nr_vars + 1, sizeof(*cu->vars)))
		return -ENOMEM;
	cu->vars[cu->nr_vars++] = v;
	return 0;
}

/*
 * A skeleton type DIE stands for the type its DW_AT_signature names: its key
 * becomes an alias of the type unit's type (resolved in cu__resolve). Returns
 * true if @die is one (*@err = 0 or -ENOMEM), false to process it as a type
 * of its own: no signature, or none of this file's type units has it.
 */
static bool skeleton_alias(struct cu_loader *l, const struct dr_die *die, int *err)
{
	const struct dr_attr *a = dr_die__attr(die, DW_AT_signature);
	uint32_t target;

	*err = 0;
	if (!a || !(target = attr__sig_ref(l, l->dc, a, false)))
		return false;
	if (d2b_grow(&l->tu.aliases, &l->tu.cap_aliases, (uint64_t)l->tu.nr_aliases + 2,
		     sizeof(*l->tu.aliases)))
		*err = -ENOMEM;
	else {
		l->tu.aliases[l->tu.nr_aliases++] = die_key(l, die->off);
		l->tu.aliases[l->tu.nr_aliases++] = target;
	}
	return true;
}

/* one DIE anywhere but directly under a subprogram's own parameter list */
static int die_process(struct cu_loader *l, struct dr_die *die)
{
	struct cu_type t = {};
	uint32_t tag = die->ab->tag;
	int err;

	t.tag = (uint16_t)tag;
	switch (tag) {
	case DW_TAG_base_type:
		t.name = attr__name(l, die);
		t.size = attr__udata(l, die, DW_AT_byte_size, 0);
		t.encoding = (uint8_t)attr__udata(l, die, DW_AT_encoding, 0);
		return type__add(l, die->off, &t) ? 0 : -ENOMEM;
	case DW_TAG_pointer_type:
		t.type = attr__ref(l, die, DW_AT_type);
		return die__process_pointer(l, die, &t);
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
	case DW_TAG_string_type:
		t.type = attr__ref(l, die, DW_AT_type);
		return type__add(l, die->off, &t) ? 0 : -ENOMEM;
	case DW_TAG_typedef:
		t.name = attr__name(l, die);
		t.type = attr__ref(l, die, DW_AT_type);
		return die_process_typedef(l, die, &t);
	case DW_TAG_array_type:
		return die_process_array(l, die, &t);
	case DW_TAG_subroutine_type:
		t.type = attr__ref(l, die, DW_AT_type);
		err = die_process_params(l, die, &t.first, &t.nr);
		if (err)
			return err;
		return type__add(l, die->off, &t) ? 0 : -ENOMEM;
	case DW_TAG_enumeration_type:
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type:
		if (skeleton_alias(l, die, &err))
			return err;
		t.name = attr__name(l, die);
		if (attr__flag(die, DW_AT_declaration))
			t.flags |= CU_TYPE_DECLARATION;
		if (t.tag == DW_TAG_enumeration_type)
			return die_process_enum(l, die, &t);
		return die_process_class(l, die, &t);
	case DW_TAG_subprogram:
		return die_process_function(l, die);
	default:
		/* unspecified types, variables in scopes, labels...: not in the table */
		return 0;
	}
}

int cu__walk(struct cu_loader *l, struct dr_die *cu_die)
{
	struct dr_die *child = malloc(sizeof(*child));
	int ret, err = 0;

	if (!child)
		return -ENOMEM;
	for_each_child(l, cu_die, child, ret) {
		if (child->ab->tag == DW_TAG_variable)
			err = die_process_variable(l, child);
		else
			err = die_process(l, child);
		if (err) {
			if (!l->err.die)
				l->err.die = child->off;
			break;
		}
	}
	if (!err && ret < 0) {
		l->err.die = child->off;
		err = ret;
	}
	free(child);
	return err;
}
