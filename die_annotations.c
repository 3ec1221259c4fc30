// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader's BTF annotations: btf_decl_tag (on types, members,
 * functions, parameters, variables) and btf_type_tag (on pointers).
 *
 * clang writes an annotation as a DW_TAG_LLVM_annotation child of the DIE
 * it annotates; gcc 15 and later as a DW_TAG_GNU_annotation DIE of its own,
 * in a chain that the annotated DIE's DW_AT_GNU_annotation starts. pahole
 * 1.30 reads clang's only, 1.32 both (annot__die_tag, gnu_annots_walk).
 * A scope's annotations are collected in a vector and appended to the
 * unit's array in one piece (annots__flush). A pointer's btf_type_tag
 * entries come before it in the type table.
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf_loader_priv.h"

#ifndef DW_AT_GNU_annotation /* gcc 15+ */
#define DW_AT_GNU_annotation 0x2139
#endif

/* a btf_decl_tag / btf_type_tag annotation: returns its value or NULL */
static const char *annotation_value(struct cu_loader *l, const struct dr_die *die, const char *want)
{
	const struct dr_attr *a;
	const char *name = attr__name(l, die);

	if (!name || strcmp(name, want) || !(a = dr_die__attr(die, DW_AT_const_value)))
		return NULL;
	return dr_attr__string(l->dc, a);
}

int annot__add(struct cu_loader *l, const struct dr_die *die, int component, struct vec *annots)
{
	struct cu_annot a = { .component_idx = component };

	if (l->dl->conf->skip_decl_tag || !(a.value = annotation_value(l, die, "btf_decl_tag")))
		return 0;
	return vec_push(annots, &a, sizeof(a));
}

/* an annotation DIE the release reads: clang's; from 1.32 also gcc's */
bool annot__die_tag(const struct cu_loader *l, uint16_t tag)
{
	return tag == DW_TAG_LLVM_annotation ||
	       (tag == DW_TAG_GNU_annotation && l->dl->conf->pahole >= 132);
}

/*
 * gcc (15 and later) writes an annotation as a DW_TAG_GNU_annotation DIE of
 * its own, which the annotated DIE's DW_AT_GNU_annotation names; that one's
 * names the next, and so on. Calls @fn for each, in chain order, until it
 * returns non-zero (returned). pahole 1.32 reads these; 1.30 does not.
 */
static int gnu_annots_walk(struct cu_loader *l, const struct dr_die *die,
			   int (*fn)(struct cu_loader *l, const struct dr_die *annot, void *ctx),
			   void *ctx)
{
	const struct dr_die *from = die;
	unsigned int n, k = 0;
	int ret;

	if (l->dl->conf->pahole < 132 || !dr_die__attr(die, DW_AT_GNU_annotation))
		return 0;
	if (!l->annot_dies && !(l->annot_dies = malloc(2 * sizeof(*l->annot_dies))))
		return -ENOMEM;
	for (n = 0;; n++) {
		const struct dr_attr *a = dr_die__attr(from, DW_AT_GNU_annotation);
		struct dr_die *next = &l->annot_dies[k];
		uint64_t off;

		if (!a || dr_attr__ref(l->dc, a, &off) || dr_die__at(l->dc, off, next) != 1 ||
		    next->ab->tag != DW_TAG_GNU_annotation)
			return 0;
		if (n == MAX_DIE_DEPTH) { /* a chain that comes back on itself */
			l->err.die = die->off;
			return -ELOOP;
		}
		ret = fn(l, next, ctx);
		if (ret)
			return ret;
		from = next;
		k ^= 1;
	}
}

struct annots_ctx {
	int component;
	struct vec *annots;
};

static int gnu_decl_tag(struct cu_loader *l, const struct dr_die *annot, void *ctx)
{
	struct annots_ctx *c = ctx;

	return annot__add(l, annot, c->component, c->annots);
}

/* the btf_decl_tags a gcc annotation chain gives @die */
int gnu_annots__of(struct cu_loader *l, const struct dr_die *die, int component, struct vec *annots)
{
	struct annots_ctx c = { component, annots };

	return gnu_annots_walk(l, die, gnu_decl_tag, &c);
}

/* annotations that are children of @die, with component index @component */
int annots__of(struct cu_loader *l, struct dr_die *die, int component, struct vec *annots)
{
	struct dr_die child;
	int ret, err = 0;

	for_each_child(l, die, &child, ret) {
		if (annot__die_tag(l, child.ab->tag))
			err = annot__add(l, &child, component, annots);
		if (err)
			return err;
	}
	return ret;
}

int annots__flush(struct cu_loader *l, struct vec *annots, uint32_t *first, uint32_t *nr)
{
	*nr = annots->nr;
	return vec__flush(annots, &l->cu->annots, &l->cap_annots, &l->nr_annots,
			  sizeof(struct cu_annot), first);
}

/* pahole 1.32: one btf_type_tag of a gcc chain on a pointer (die__process_pointer) */
struct gnu_type_tags {
	uint32_t pointee; /* key of the pointer's DW_AT_type */
	uint32_t first, last; /* types[] of the first and last tag added, 0: none yet */
};

static int gnu_type_tag(struct cu_loader *l, const struct dr_die *annot, void *ctx)
{
	struct gnu_type_tags *g = ctx;
	struct cu_type tt = { .tag = D2B_TAG_TYPE_TAG, .type = g->pointee };
	uint32_t idx;

	if (!(tt.name = annotation_value(l, annot, "btf_type_tag")))
		return 1; /* the chain's type tags end here */
	/* a chain can be shared by several pointers: entries of their own, no key */
	idx = type__add_unnamed(l, annot->off, &tt);
	if (!idx)
		return -ENOMEM;
	if (g->last) {
		l->cu->types[g->last].type = idx;
		l->cu->types[g->last].flags |= CU_TYPE_REF_INDEX;
	} else {
		g->first = idx;
	}
	g->last = idx;
	return 0;
}

/*
 * A pointer and its btf_type_tags, which come before it: clang's child
 * DIEs, in source order, each the type of the next; else (pahole 1.32)
 * gcc's chain, in chain order, each the type of the one before (so both
 * give PTR -> the tag nearest the '*' -> ... -> the pointee).
 */
int die__process_pointer(struct cu_loader *l, struct dr_die *die, struct cu_type *t)
{
	struct gnu_type_tags g = { .pointee = t->type };
	struct dr_die child;
	uint32_t prev = t->type;
	int ret;

	if (!l->dl->conf->skip_type_tag) {
		for_each_child(l, die, &child, ret) {
			struct cu_type tt = { .tag = D2B_TAG_TYPE_TAG };

			if (!annot__die_tag(l, child.ab->tag) ||
			    !(tt.name = annotation_value(l, &child, "btf_type_tag")))
				continue;
			tt.type = prev;
			if (!type__add(l, child.off, &tt))
				return -ENOMEM;
			prev = die_key(l, child.off);
		}
		if (ret < 0)
			return ret;
		if (prev == t->type) {
			ret = gnu_annots_walk(l, die, gnu_type_tag, &g);
			if (ret < 0)
				return ret;
			if (g.first) {
				t->type = g.first;
				t->flags |= CU_TYPE_REF_INDEX;
				return type__add(l, die->off, t) ? 0 : -ENOMEM;
			}
		}
	}
	t->type = prev;
	return type__add(l, die->off, t) ? 0 : -ENOMEM;
}
