/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cu - the model of one compilation unit: what dwarf_loader reads from its
 * DWARF and btf_encoder_single encodes, mirroring what pahole's loader
 * gives its encoder.
 *
 *  - types[]: the type table. Index 0 is void; entries are in DIE order with
 *    nested types inserted before the type that contains them and a pointer's
 *    btf_type_tag entries inserted before the pointer. Unspecified types are
 *    not entries: references to them, and to anything that is not a type,
 *    read as void. Every reference is an index into this table.
 *  - funcs[]: every DW_TAG_subprogram, in DIE order, with its name, return
 *    type and parameters inherited through abstract_origin/specification.
 *  - vars[]: top-level DW_TAG_variables, in DIE order.
 *
 * A struct cu is one block (its arrays inside, or apart: .own_arrays),
 * written by the worker thread that loads it (dwarf_loader__load_cu, then
 * btf_encoder__prepare_cu's ELF matches and BTF records) and read-only once handed to the
 * collector; cu__free() ends it, on whichever thread holds it then. Its
 * strings belong to the loader (dwarf_loader.h).
 */
#ifndef CU_H
#define CU_H

#include <dwarf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Longest chain of reference types (pointers, qualifiers, typedefs, array
 * elements, prototypes' returns) a unit may hold: libbpf's dedup follows
 * one recursively (100,000 overflowed a ThreadSanitizer build's stack,
 * 1,000,000 a plain build's); C code has chains of a few links. The loader
 * refuses a unit with a longer chain, or with one that loops back without
 * a struct or union in it (cu_resolve.c), so a walk along types[].type
 * from any entry meets a struct, union, enum, base type or void within
 * MAX_REF_CHAIN + 1 steps; the walks are bounded by that, as a guard.
 */
#define MAX_REF_CHAIN 4096

/* types[] entry tags beyond DWARF's own */
#define D2B_TAG_TYPE_TAG 0x6000 /* DW_TAG_LLVM_annotation btf_type_tag */

enum cu_type_flags {
	CU_TYPE_DECLARATION = 1 << 0,
	CU_TYPE_SIGNED_ENUM = 1 << 1, /* enum's DW_AT_type is a signed base type */
	/* while loading: type is already a types[] index, not a DIE key (an
	 * entry no DIE names refers to it, or it refers to one: pahole 1.32's
	 * array dimensions and gcc's btf_type_tag chains) */
	CU_TYPE_REF_INDEX = 1 << 2,
	/* a struct's DW_AT_alignment is 1 (pahole 1.32's packed inference) */
	CU_TYPE_ALIGNED_1 = 1 << 3,
};

/* a types[] entry with this tag has members[] (struct, union, class, interface) */
static inline bool cu_tag_has_members(uint16_t tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
	       tag == DW_TAG_union_type || tag == DW_TAG_interface_type;
}

struct cu_type {
	uint16_t tag; /* DW_TAG_* or D2B_TAG_TYPE_TAG */
	uint8_t flags; /* enum cu_type_flags */
	uint8_t encoding; /* DW_ATE_* of base types */
	const char *name; /* may be NULL (anonymous) */
	uint64_t size; /* DW_AT_byte_size; array: element count */
	uint32_t type; /* referenced type index, 0 = void */
	uint32_t first; /* first member/enumerator/param index */
	uint32_t nr; /* number of members/enumerators/params */
	uint32_t annot_first; /* decl tags (struct, union, typedef) */
	uint32_t nr_annots;
	uint64_t die_off; /* DIE offset, for error messages */
};

struct cu_member {
	const char *name;
	uint32_t type;
	/* modulo 2^32, as BTF stores it (btf__add_field takes a __u32) */
	uint32_t bit_offset;
	/* DWARF <= 4 DW_AT_bit_offset (modulo 2^32) of a bitfield, converted
	 * once type sizes are known; with the member's own DW_AT_byte_size (0:
	 * none, or above 255), which takes the type's size's place */
	uint32_t dw4_bit_offset;
	/* DW_AT_bit_size; 0xffff for any larger size, which BTF (255 at most)
	 * rejects all the same */
	uint16_t bitfield_size;
	bool has_dw4_bit_offset;
	uint8_t dw4_byte_size;
};

struct cu_enumerator {
	const char *name;
	uint64_t value; /* as dwarf_formudata reads it */
};

struct cu_param {
	const char *name;
	uint32_t type;
	bool vararg; /* DW_TAG_unspecified_parameters */
	bool unexpected_reg; /* passed in another register than the ABI's */
	/* pahole 1.32's location analysis (param_locations.c, params__analyze) */
	uint32_t origin; /* while loading: its DW_AT_abstract_origin's DIE key, or 0 */
	uint32_t key; /* while loading: its own DIE key */
	uint16_t idx; /* its place among its function's parameters */
	int16_t loc_reg; /* DW_OP_regN its location names first, -1: none */
	int16_t loc_reg_agg; /* the same, read as an aggregate in two registers would be */
	bool has_loc, has_const_value, loc_stack, loc_const_value;
	bool optimized;
};

struct cu_annot {
	const char *value;
	int32_t component_idx;
};

struct elf_function;

struct cu_func {
	const char *name;
	uint32_t ret_type;
	uint32_t first_param, nr_params; /* into params[], vararg included */
	uint32_t annot_first, nr_annots;
	bool declaration;
	bool unexpected_reg;
	/* pahole 1.32: a parameter optimized out or without a location; the
	 * parameters of an out-of-line copy in another order than its abstract
	 * origin's; clang's DW_CC_nocall (the ABI changed) */
	bool optimized_parms, reordered_parm, signature_changed;
	/* its ELF function, matched on the worker (btf_encoder__prepare_cu): by
	 * the name up to a '.' suffix if by_prefix; NULL if none or not tried */
	bool by_prefix;
	struct elf_function *elf;
	uint64_t addr; /* DW_AT_low_pc, 0 if none */
	uint64_t die_off;
};

struct cu_var {
	const char *name;
	uint32_t type;
	uint32_t annot_first, nr_annots;
	uint64_t addr;
	uint64_t size; /* size of the type, as pahole's tag__size */
	bool external;
	bool declaration; /* declaration without DW_AT_specification */
	bool artificial;
	bool has_addr; /* first location op is DW_OP_addr/addrx */
	uint64_t die_off;
};

struct unit_ring;
struct cu_btf;

struct cu {
	unsigned int id;
	uint64_t off; /* CU offset in .debug_info */
	bool excluded; /* language excluded: contributes nothing */
	struct cu_type *types;
	uint32_t nr_types;
	struct cu_member *members;
	struct cu_enumerator *enumerators;
	struct cu_param *params;
	struct cu_annot *annots;
	uint32_t nr_annots; /* of types, functions and variables */
	struct cu_func *funcs;
	uint32_t nr_funcs;
	struct cu_var *vars;
	uint32_t nr_vars;
	/* first types[] index of base type "int", 0 if none; CU has arrays */
	uint32_t int_type;
	bool has_arrays;
	/* the unit's address size; the machine's parameter registers, as
	 * pahole counts them (elf_reloc.c) */
	uint8_t addr_size, nr_param_regs;
	bool big_endian; /* the file's byte order */
	/* how far the unit read .debug_loc [0] and .debug_loclists [1] */
	uint64_t loc_end[2];
	/* the arrays are allocated apart, not in the struct's own block */
	bool own_arrays;
	/* the block is this ring's, not malloc's (dwarf_loader.c, cu_pack) */
	struct unit_ring *ring;
	size_t bytes; /* the block's size: the struct and its arrays */
	/* its BTF records (btf_encoder__prepare_cu): one malloc'ed block, or NULL */
	struct cu_btf *btf;
};

/* the size of type @idx, as pahole's tag__size gives it (cu_resolve.c) */
uint64_t cu__type_size(const struct cu *cu, uint32_t idx);

/* free @cu (NULL allowed), whichever thread holds it (dwarf_loader.c) */
void cu__free(struct cu *cu);

#endif /* CU_H */
