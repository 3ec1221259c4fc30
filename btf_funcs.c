// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_funcs - the encoder's functions: saved as their CUs are written,
 * emitted once every type is merged (the stream's order is in
 * btf_encoder_single.c).
 *
 * Saving. The loader workers match each function to its ELF symbol
 * (funcs__match, from btf_encoder__prepare_cu) and check its parameters
 * fit (funcs__check); the writer, in CU order, saves
 * those it keeps (func_save): return and parameter types as the batch's ids,
 * names and tag values as string offsets, added to the string section then,
 * which fixes the string order pahole's gives (in a batch, as the numbers
 * of the names the batch's thread adds then: enc__func_name). A prefix match records its
 * DWARF name as the symbol's alias, and the first CU to do so wins: that
 * order-dependent write stays with the writer.
 *
 * Emitting. The instances are sorted by ELF function (funcs__sort, stably,
 * so CU order stays among one function's instances), their types and names
 * mapped to the merged BTF (btf_encoder__merge), then each group becomes one
 * FUNC_PROTO + FUNC + decl tags, or nothing: under consistent_func a group
 * whose prototypes differ (types_match, funcs_match) or which uses registers
 * unexpectedly is left out; pahole 1.32 has more reasons, and chooses the
 * instance encoded (canonical_func). A function whose FUNC_PROTO would be the
 * very copy of an earlier function's (same ids, same names) refers to that
 * one (func_proto), which leaves the dedup's result as it was.
 */
#include <bpf/btf.h>
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "btf_encoder_priv.h"
#include "cu.h"
#include "d2b_conf.h"
#include "d2b_util.h"
#include "elf_symtab.h"
#include "msort.h"

static int saved_funcs_cmp(const void *a, const void *b)
{
	const struct func_state *fa = a, *fb = b;

	return elf_function__cmp(fa->elf, fb->elf);
}

/*
 * The saved functions by ELF function, stably (CU order stays among one
 * function's instances): by rank, a counting sort, where the ELF functions
 * have ranks (the order is then consistent and a stable sort has but one
 * result, glibc's merge sort's), else with that merge sort. A fifth of the
 * collector's serial tail went into the merge sort's name comparisons.
 */
int funcs__sort(struct btf_encoder *enc)
{
	uint32_t i, nr_ranks = (uint32_t)elf_symtab__nr_functions(enc->es), *next;
	struct func_state *sorted;

	if (!elf_symtab__ranked(enc->es))
		return msort(enc->funcs, enc->nr_funcs, sizeof(*enc->funcs), saved_funcs_cmp);
	next = calloc((size_t)nr_ranks + 1, sizeof(*next));
	sorted = malloc(((size_t)enc->nr_funcs ?: 1) * sizeof(*sorted));
	if (!next || !sorted) {
		free(next);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < enc->nr_funcs; i++)
		next[enc->funcs[i].elf->rank + 1]++;
	for (i = 0; i < nr_ranks; i++)
		next[i + 1] += next[i];
	for (i = 0; i < enc->nr_funcs; i++)
		sorted[next[enc->funcs[i].elf->rank]++] = enc->funcs[i];
	free(next);
	free(enc->funcs);
	enc->funcs = sorted;
	enc->cap_funcs = enc->nr_funcs;
	return 0;
}

static bool func_has_arg_names(const struct cu *cu, const struct cu_func *fn)
{
	uint32_t i;

	for (i = 0; i < fn->nr_params; i++) {
		const struct cu_param *p = &cu->params[fn->first_param + i];

		if (!p->vararg && !p->name)
			return false;
	}
	return true;
}

/* a function pahole would save if it matches an ELF function */
static bool func_savable(const struct cu *cu, const struct cu_func *fn)
{
	return !fn->declaration && fn->name && func_has_arg_names(cu, fn);
}

/*
 * The workers look up each function's ELF symbol (a binary search over the
 * sorted symbols: read-only, so any number at once), which used to be a
 * tenth of the collector's time; only what must be in CU order, a prefix
 * match's alias, is left to the writer (funcs__save).
 */
void funcs__match(const struct btf_encoder *enc, struct cu *cu)
{
	bool suffixes = enc->conf->gen_optimized && elf_symtab__has_suffixes(enc->es);
	uint32_t i;

	if (!elf_symtab__nr_functions(enc->es))
		return;
	for (i = 0; i < cu->nr_funcs; i++) {
		struct cu_func *fn = &cu->funcs[i];

		if (!func_savable(cu, fn) || fn->nr_params > 0xffff)
			continue;
		fn->elf = elf_symtab__find_function(enc->es, fn->name, 0);
		if (!fn->elf && suffixes) {
			fn->elf = elf_symtab__find_function(enc->es, fn->name, strlen(fn->name));
			fn->by_prefix = fn->elf != NULL;
		}
	}
}

/* the parameters a function to save has: BTF counts them in 16 bits */
int funcs__check(const struct btf_encoder *enc, const struct cu *cu)
{
	uint32_t i;

	if (!elf_symtab__nr_functions(enc->es))
		return 0;
	for (i = 0; i < cu->nr_funcs; i++) {
		const struct cu_func *fn = &cu->funcs[i];

		if (func_savable(cu, fn) && fn->nr_params > 0xffff) {
			pr_warn("%s: CU %#" PRIx64 ": DIE %#" PRIx64
				": %u parameters; BTF allows 65535\n",
				enc->path, cu->off, fn->die_off, fn->nr_params);
			return -E2BIG;
		}
	}
	return 0;
}

static int func_save(struct btf_encoder *enc, const struct cu *cu, const struct cu_func *fn,
		     struct elf_function *elf)
{
	struct func_state *st;
	uint32_t i;

	if (d2b_grow(&enc->funcs, &enc->cap_funcs, enc->nr_funcs + 1, sizeof(*enc->funcs)) ||
	    d2b_grow(&enc->params, &enc->cap_params, (uint64_t)enc->nr_params + fn->nr_params,
		     sizeof(*enc->params)) ||
	    d2b_grow(&enc->annots, &enc->cap_annots, (uint64_t)enc->nr_annots + fn->nr_annots,
		     sizeof(*enc->annots)))
		return -ENOMEM;
	st = &enc->funcs[enc->nr_funcs++];
	*st = (struct func_state){
		.elf = elf,
		.batch = enc->nr_batches,
		.ret_type = enc->ids[fn->ret_type],
		.first_param = enc->nr_params,
		.nr_params = fn->nr_params,
		.first_annot = enc->nr_annots,
		.nr_annots = fn->nr_annots,
		.addr = fn->addr,
		.unexpected_reg = fn->unexpected_reg,
		.optimized_parms = fn->optimized_parms,
		.reordered_parm = fn->reordered_parm,
		.signature_changed = fn->signature_changed,
	};
	for (i = 0; i < fn->nr_params; i++) {
		const struct cu_param *p = &cu->params[fn->first_param + i];
		int err;

		/* pahole 1.32 drops a reordered copy's optimized-out parameters
		 * here, names and all (the copy is left out in the end) */
		if (enc->conf->pahole >= 132 && fn->reordered_parm && !p->vararg &&
		    (!p->has_loc || p->optimized)) {
			st->nr_params--;
			continue;
		}
		/*
		 * pahole adds the parameter names to the string section now:
		 * libbpf keeps a from-scratch BTF's strings in insertion order
		 * through dedup, so this fixes where they land in the output.
		 */
		err = p->vararg ? 0 : enc__func_name(enc, p->name);
		if (err < 0)
			return err;
		enc->params[enc->nr_params++] = (struct saved_param){
			.name_off = (uint32_t)err,
			.type = p->vararg ? 0 : enc->ids[p->type],
		};
		err = enc__batch_use(enc, enc->params[enc->nr_params - 1].type);
		if (err)
			return err;
	}
	/* then, likewise, the decl tag values */
	if (enc__batch_use(enc, st->ret_type))
		return -ENOMEM;
	for (i = 0; i < fn->nr_annots; i++) {
		const struct cu_annot *an = &cu->annots[fn->annot_first + i];
		int err = enc__func_name(enc, an->value);

		if (err < 0)
			return err;
		enc->annots[enc->nr_annots++] =
			(struct saved_annot){ (uint32_t)err, an->component_idx };
	}
	return 0;
}

int funcs__save(struct btf_encoder *enc, const struct cu *cu)
{
	bool have_syms = elf_symtab__nr_functions(enc->es) > 0;
	uint32_t i;
	int err, uncertain = 0;

	packed_memo__reset(&enc->packed);
	for (i = 0; i < cu->nr_funcs; i++) {
		const struct cu_func *fn = &cu->funcs[i];
		struct elf_function *elf;

		/* (funcs__check turned those with too many parameters away) */
		if (!have_syms || !func_savable(cu, fn))
			continue;
		elf = fn->elf;
		if (!elf)
			continue;
		/* a prefix match's DWARF name becomes the symbol's alias: the first CU's */
		if (fn->by_prefix && !elf->alias && !(elf->alias = strdup(fn->name)))
			return -ENOMEM;
		/* (asked of every function saved, in order, as pahole asks it) */
		if (enc->conf->pahole >= 132) {
			uncertain = func__uncertain_param_loc(cu, fn, &enc->packed);
			if (uncertain < 0)
				return uncertain;
		}
		err = func_save(enc, cu, fn, elf);
		if (err)
			return err;
		enc->funcs[enc->nr_funcs - 1].uncertain_loc = uncertain;
	}
	return 0;
}

static int match_kind(const struct btf_type *t)
{
	if (btf_is_fwd(t))
		return btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
	return btf_kind(t);
}

static bool names_equal(const struct btf_encoder *enc, const struct btf_type *a,
			const struct btf_type *b)
{
	return !strcmp(enc__str_at(enc, a->name_off), enc__str_at(enc, b->name_off));
}

/*
 * pahole 1.30's types__match. The order of its checks is part of the result:
 * equal ids match; then void matches only void; then, where the kinds
 * differ, one CONST is dropped (@a's first) and the walk goes on. So
 * "const volatile void *" and "volatile const void *" do not match: after
 * the pointers and one const each, "const void" meets "void". 1.30 compares
 * two FUNC_PROTOs' return types and not their parameters; 1.32 (@params)
 * compares both.
 */
static bool types_match(const struct btf_encoder *enc, uint32_t a, uint32_t b, bool params)
{
	int depth;

	for (depth = 0; depth < 512; depth++) {
		const struct btf_type *ta, *tb;
		int ka, kb;

		if (a == b)
			return true;
		if (!a || !b)
			return false;
		ta = enc__type(enc, a);
		tb = enc__type(enc, b);
		if (!ta || !tb)
			return false;
		ka = match_kind(ta);
		kb = match_kind(tb);
		if (ka != kb) {
			if (ka == BTF_KIND_CONST)
				a = ta->type;
			else if (kb == BTF_KIND_CONST)
				b = tb->type;
			else
				return false;
			continue;
		}
		switch (ka) {
		case BTF_KIND_INT:
			return ta->size == tb->size &&
			       *(const uint32_t *)(ta + 1) == *(const uint32_t *)(tb + 1) &&
			       names_equal(enc, ta, tb);
		case BTF_KIND_FLOAT:
			return ta->size == tb->size && names_equal(enc, ta, tb);
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			return names_equal(enc, ta, tb);
		case BTF_KIND_PTR:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			a = ta->type;
			b = tb->type;
			continue;
		case BTF_KIND_ARRAY:
			if (btf_array(ta)->nelems != btf_array(tb)->nelems)
				return false;
			a = btf_array(ta)->type;
			b = btf_array(tb)->type;
			continue;
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *pa = btf_params(ta), *pb = btf_params(tb);
			uint16_t i, vlen = btf_vlen(ta);

			/* v1.30 compares the return types in place of the parameters */
			if (vlen != btf_vlen(tb))
				return false;
			if (!params) {
				a = ta->type;
				b = tb->type;
				continue;
			}
			if (!types_match(enc, ta->type, tb->type, params))
				return false;
			for (i = 0; i < vlen; i++)
				if (!types_match(enc, pa[i].type, pb[i].type, params))
					return false;
			return true;
		}
		default:
			return false;
		}
	}
	return false;
}

static bool funcs_match(const struct btf_encoder *enc, const struct func_state *a,
			const struct func_state *b)
{
	bool params = enc->conf->pahole >= 132; /* see types_match */
	uint32_t i;

	if (a->nr_params != b->nr_params || !types_match(enc, a->ret_type, b->ret_type, params))
		return false;
	for (i = 0; i < a->nr_params; i++)
		if (!types_match(enc, enc->params[a->first_param + i].type,
				 enc->params[b->first_param + i].type, params))
			return false;
	return true;
}

/* a decl tag whose value is at string offset @off, as btf__add_decl_tag writes it */
static int add_decl_tag_off(struct btf_encoder *enc, uint32_t off, int ref, int component_idx)
{
	struct {
		struct btf_type t;
		struct btf_decl_tag tag;
	} rec = { { off, BTF_RAW_INFO(BTF_KIND_DECL_TAG, 0, 0), { (uint32_t)ref } },
		  { component_idx } };

	if (!off || !*enc__str_at(enc, off)) /* (libbpf's check: no empty value) */
		return -EINVAL;
	return enc__add_record(enc, &rec.t, sizeof(rec.tag));
}

/* a decl tag of value @value: btf__add_decl_tag */
static int add_decl_tag(struct btf_encoder *enc, const char *value, int ref, int component_idx)
{
	int off = enc__tail_str(enc, value);

	return off < 0 ? off : add_decl_tag_off(enc, (uint32_t)off, ref, component_idx);
}

static bool protos_equal(const struct btf_encoder *enc, const struct func_state *a,
			 const struct func_state *b)
{
	return a->ret_type == b->ret_type && a->nr_params == b->nr_params &&
	       (!a->nr_params || !memcmp(&enc->params[a->first_param], &enc->params[b->first_param],
					 a->nr_params * sizeof(*enc->params)));
}

/* the table twice as large (4,096 slots at first) */
static int proto_table__grow(struct proto_table *t)
{
	uint32_t i, j, cap = t->cap ? 2 * t->cap : 4096, mask = cap - 1;
	struct proto_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		if (!t->slots[i].hash)
			continue;
		j = (t->slots[i].hash >> 1) & mask;
		while (slots[j].hash)
			j = (j + 1) & mask;
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

/* a new FUNC_PROTO for @st, with its parameters */
static int func_proto_add(struct btf_encoder *enc, const struct func_state *st)
{
	uint32_t i;
	int proto, err;

	proto = enc__add_record(
		enc,
		&(struct btf_type){ 0, BTF_RAW_INFO(BTF_KIND_FUNC_PROTO, 0, 0), { st->ret_type } },
		0);
	if (proto < 0)
		return proto;
	for (i = 0; i < st->nr_params; i++) {
		const struct saved_param *p = &enc->params[st->first_param + i];

		err = enc__add_func_param_off(enc, proto, p->name_off, p->type);
		if (err)
			return err;
	}
	return proto;
}

/*
 * The FUNC_PROTO of @st: one that an earlier function added, if it has the
 * very same return type and parameters (names and types, by id: what the
 * final dedup finds the same), else a new one. Nothing but its FUNC refers
 * to a function's FUNC_PROTO, so the dedup would have mapped this one onto
 * that one's class, and it adds no string: the output is the same, with
 * fewer types for the dedup (20,628 of 42,010 in the 6.1 vmlinux).
 * (--exact takes func_proto_add for every function instead.)
 */
static int func_proto(struct btf_encoder *enc, struct proto_table *t, const struct func_state *st)
{
	struct proto_slot *slot;
	uint64_t h = st->ret_type * 0x9e3779b97f4a7c15ull + st->nr_params;
	uint32_t i, mask, hash;
	int proto, err;

	for (i = 0; i < st->nr_params; i++) {
		const struct saved_param *p = &enc->params[st->first_param + i];

		h = (h ^ p->name_off) * 0x9e3779b97f4a7c15ull;
		h = (h ^ p->type) * 0x9e3779b97f4a7c15ull;
	}
	hash = (uint32_t)(h >> 32) | 1;
	if (4 * (t->nr + 1) > 3 * t->cap && (err = proto_table__grow(t)))
		return err;
	mask = t->cap - 1;
	for (i = (hash >> 1) & mask;; i = (i + 1) & mask) {
		slot = &t->slots[i];
		if (!slot->hash)
			break;
		if (slot->hash == hash && protos_equal(enc, &enc->funcs[slot->func], st)) {
			enc->stats.nr_protos_shared++;
			return slot->id;
		}
	}
	proto = func_proto_add(enc, st);
	if (proto < 0)
		return proto;
	*slot = (struct proto_slot){ hash, (uint32_t)(st - enc->funcs), proto };
	t->nr++;
	return proto;
}

/* a kfunc's "bpf_kfunc" and "bpf_fastcall" decl tags on FUNC @id */
static int kfunc_tags(struct btf_encoder *enc, const struct func_state *st, int id)
{
	int err;

	if (!st->elf->kfunc || enc->conf->skip_decl_tag)
		return 0;
	err = add_decl_tag(enc, "bpf_kfunc", id, -1);
	if (err >= 0 && (st->elf->kfunc_flags & KF_FASTCALL))
		err = add_decl_tag(enc, "bpf_fastcall", id, -1);
	return err < 0 ? err : 0;
}

/*
 * @st's FUNC and its decl tags (1.30: the kfunc tags first; 1.32: last);
 * its FUNC_PROTO shared through @protos, or (NULL) its own
 */
static int emit_func(struct btf_encoder *enc, struct proto_table *protos,
		     const struct func_state *st)
{
	const char *name = st->elf->alias ? st->elf->alias : st->elf->name;
	bool kfunc_tags_last = enc->conf->pahole >= 132;
	uint32_t i;
	int proto, id, err, off;

	proto = protos ? func_proto(enc, protos, st) : func_proto_add(enc, st);
	if (proto < 0)
		return proto;
	off = enc__tail_str(enc, name);
	if (off < 0)
		return off;
	id = enc__add_record(enc,
			     &(struct btf_type){ (uint32_t)off,
						 BTF_RAW_INFO(BTF_KIND_FUNC, 0, BTF_FUNC_STATIC),
						 { (uint32_t)proto } },
			     0);
	if (id < 0)
		return id;
	enc->stats.nr_funcs++;
	if (!kfunc_tags_last && (err = kfunc_tags(enc, st, id)))
		return err;
	for (i = 0; i < st->nr_annots; i++) {
		const struct saved_annot *an = &enc->annots[st->first_annot + i];

		err = add_decl_tag_off(enc, an->value_off, id, an->component_idx);
		if (err < 0)
			return err;
	}
	return kfunc_tags_last ? kfunc_tags(enc, st, id) : 0;
}

/*
 * pahole 1.32's attributes feature: a pointer into a BPF arena becomes
 * PTR -> TYPE_TAG "address_space(1)" -> the pointee, the TYPE_TAG with
 * kind_flag 1 (an attribute, not a btf_type_tag). libbpf 1.1 has no call
 * for that (btf__add_type_attr is 1.6): the flag is set on the type just
 * added. btf__dedup hashes and compares a TYPE_TAG's info word, kind_flag
 * included, so it stays apart from a plain tag of the same name.
 */
static int arena_ptr(struct btf_encoder *enc, const char *kfunc, uint32_t *type)
{
	const struct btf_type *t = enc__type(enc, *type);
	uint32_t pointee;
	int tag, ptr, off;

	if (!t || !btf_is_ptr(t)) {
		pr_warn("%s: kfunc %s: an arena pointer that is no pointer (type %u)\n", enc->path,
			kfunc, *type);
		return -EINVAL;
	}
	pointee = t->type;
	off = enc__tail_str(enc, "address_space(1)");
	if (off < 0)
		return off;
	tag = enc__add_record(enc,
			      &(struct btf_type){ (uint32_t)off,
						  BTF_RAW_INFO(BTF_KIND_TYPE_TAG, 0, 0),
						  { pointee } },
			      0);
	if (tag < 0)
		return tag;
	enc__type_mut(enc, (uint32_t)tag)->info |= 1u << 31;
	ptr = enc__add_record(
		enc, &(struct btf_type){ 0, BTF_RAW_INFO(BTF_KIND_PTR, 0, 0), { (uint32_t)tag } },
		0);
	if (ptr < 0)
		return ptr;
	*type = (uint32_t)ptr;
	return 0;
}

/* a kfunc's arena pointers (KF_ARENA_*), as pahole 1.32 tags them with attributes */
static int arena_tags(struct btf_encoder *enc, struct func_state *st)
{
	uint32_t flags = st->elf->kfunc_flags;
	int err = 0;

	if (flags & KF_ARENA_RET)
		err = arena_ptr(enc, st->elf->name, &st->ret_type);
	if (!err && (flags & KF_ARENA_ARG1))
		err = st->nr_params > 0
			      ? arena_ptr(enc, st->elf->name, &enc->params[st->first_param].type)
			      : -EINVAL;
	if (!err && (flags & KF_ARENA_ARG2))
		err = st->nr_params > 1 ? arena_ptr(enc, st->elf->name,
						    &enc->params[st->first_param + 1].type)
					: -EINVAL;
	return err;
}

/*
 * pahole 1.32: a function whose parameters were optimized out is left out
 * where its BTF would not be its ABI: the compiler changed the signature
 * (clang's DW_CC_nocall) or the instance is a ".constprop"/".isra" clone.
 */
static bool func_optimized_abi(const struct func_state *st)
{
	return st->optimized_parms && (st->signature_changed ||
				       (st->addr && elf_function__optimized_at(st->elf, st->addr)));
}

/*
 * pahole 1.32: of @n instances of one function, the one to encode: the
 * first whose address is one of its symbols' (the definition the linker
 * kept: a weak one elsewhere has another address) and whose ABI is intact,
 * else the first at such an address, else the first with an address at
 * all (a function split in hot and cold parts has DW_AT_ranges, no
 * DW_AT_low_pc), else the first.
 */
static const struct func_state *canonical_func(const struct func_state *first, uint32_t n)
{
	const struct func_state *at_sym = NULL, *with_addr = NULL;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (!with_addr && first[i].addr)
			with_addr = &first[i];
		if (!elf_function__has_addr(first->elf, first[i].addr))
			continue;
		if (!at_sym)
			at_sym = &first[i];
		if (!func_optimized_abi(&first[i]))
			return &first[i];
	}
	return at_sym ? at_sym : with_addr ? with_addr : first;
}

int funcs__emit(struct btf_encoder *enc)
{
	struct proto_table protos = { 0 };
	uint32_t i, j;
	int err = 0;

	/* (sorted by sort_funcs_and_vars) */
	enc->stats.nr_funcs_saved = enc->nr_funcs;
	for (i = 0; i < enc->nr_funcs; i = j) {
		const struct func_state *first = &enc->funcs[i];
		bool unexpected = first->unexpected_reg, inconsistent = false;
		bool reordered = first->reordered_parm, uncertain = first->uncertain_loc;

		for (j = i + 1; j < enc->nr_funcs && !saved_funcs_cmp(first, &enc->funcs[j]); j++) {
			unexpected |= enc->funcs[j].unexpected_reg;
			reordered |= enc->funcs[j].reordered_parm;
			uncertain |= enc->funcs[j].uncertain_loc;
			if (!inconsistent && !funcs_match(enc, first, &enc->funcs[j]))
				inconsistent = true;
		}
		if (enc->conf->pahole >= 132) {
			/* 1.32: whatever consistent_func says, unexpected registers,
			 * reordered parameters, a packed struct on the stack, a
			 * changed ABI, ambiguous addresses */
			if (unexpected || reordered || uncertain || first->elf->ambiguous_addr ||
			    (enc->conf->skip_inconsistent_proto && inconsistent))
				continue;
			first = canonical_func(first, j - i);
			if (func_optimized_abi(first))
				continue;
			/* (kfuncs are read only with decl_tag_kfuncs, which pahole also asks) */
			if (first->elf->kfunc && enc->conf->attributes) {
				err = arena_tags(enc, &enc->funcs[first - enc->funcs]);
				if (err)
					break;
			}
		} else if (enc->conf->skip_inconsistent_proto && (unexpected || inconsistent)) {
			continue;
		}
		err = emit_func(enc, enc->conf->exact ? NULL : &protos, first);
		if (err)
			break;
	}
	free(protos.slots);
	return err;
}
