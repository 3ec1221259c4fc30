// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader's attribute readers: a DIE's attributes as the DIE walk
 * (die_walk.c) and the annotations (die_annotations.c) read them. A
 * reference becomes a key (die_key), a DW_FORM_ref_sig8 one the key of its
 * type unit's DIE, which is queued to be walked after the unit; an
 * attribute can be followed through DW_AT_abstract_origin and
 * DW_AT_specification. What cannot be read is recorded as the unit's first
 * error of its kind (l->err), as libdw reads it as absent.
 */
#include <stdlib.h>

#include "dwarf_loader_priv.h"

/*
 * The key of the type a DW_FORM_ref_sig8 @a names: its DIE in the type unit,
 * which is queued to be walked after the unit. 0 (void) if there is no such
 * type unit and @strict is false, as for a skeleton DIE, which then stays
 * a type of its own.
 */
uint32_t attr__sig_ref(struct cu_loader *l, struct dr_cu *acu, const struct dr_attr *a, bool strict)
{
	struct dwarf_loader *dl = l->dl;
	struct type_unit key = {}, *tu;
	uint32_t i;

	if (dr_attr__sig8(acu, a, &key.signature))
		return 0;
	/* no type units: dl->sigs is NULL, which bsearch must not get */
	tu = dl->nr_sigs ? bsearch(&key, dl->sigs, dl->nr_sigs, sizeof(*dl->sigs), type_unit__cmp)
			 : NULL;
	while (tu && tu > dl->sigs && tu[-1].signature == key.signature)
		tu--;
	if (!tu) {
		if (strict && !l->err.sig)
			l->err.sig = key.signature;
		return 0;
	}
	i = (uint32_t)(tu - dl->sigs);
	if (!l->tu.queued && !(l->tu.queued = calloc(dl->nr_sigs, 1))) {
		l->err.oom = true;
		return 0;
	}
	if (!l->tu.queued[i]) {
		if (d2b_grow(&l->tu.queue, &l->tu.cap, (uint64_t)l->tu.nr + 1,
			     sizeof(*l->tu.queue))) {
			l->err.oom = true;
			return 0;
		}
		l->tu.queue[l->tu.nr++] = i;
		l->tu.queued[i] = 1;
	}
	return (uint32_t)(tu->unit->type_off | tu->key_bits);
}

/*
 * Attribute @at of @die or of the DIEs its DW_AT_abstract_origin or
 * DW_AT_specification lead to. Not finding it is no error, but an origin
 * that is no DIE is a dangling reference, as bad as any other.
 */
const struct dr_attr *attr__integrate(struct cu_loader *l, const struct dr_die *die, uint16_t at,
				      struct dr_cu **acu)
{
	bool bad_ref = false;
	const struct dr_attr *a = dr_die__attr_integrate(l->dc, die, at, &l->tmp, acu, &bad_ref);

	if (bad_ref && !l->err.ref_die)
		l->err.ref_die = die->off;
	return a;
}

/* the key of the DIE @at refers to (through origin/specification), 0 if none */
uint32_t attr__ref(struct cu_loader *l, const struct dr_die *die, uint16_t at)
{
	struct dr_cu *acu = l->dc;
	const struct dr_attr *a = dr_die__attr(die, at);
	uint64_t off;

	/* (most DIEs have their own: no origin to follow) */
	if (!a && !(a = attr__integrate(l, die, at, &acu)))
		return 0;
	if (a->form == DW_FORM_ref_sig8)
		return attr__sig_ref(l, acu, a, true);
	if (dr_attr__ref(acu, a, &off)) {
		if (!l->err.ref_die)
			l->err.ref_die = die->off;
		return 0;
	}
	return die_key(l, off);
}

uint64_t attr__udata(struct cu_loader *l, const struct dr_die *die, uint16_t at, uint64_t def)
{
	const struct dr_attr *a = dr_die__attr(die, at);
	uint64_t v;

	if (!a || dr_attr__udata(l->dc, a, &v))
		return def;
	return v;
}

/*
 * A present attribute whose value cannot be read: a string or address index
 * past its table, an offset past its section, a form of the wrong class.
 * libdw reads it as absent (an anonymous type, a function without address);
 * it is malformed DWARF, reported with the first such DIE of the unit.
 */
void attr__bad(struct cu_loader *l, const struct dr_die *die, uint16_t at)
{
	if (!l->err.attr_die) {
		l->err.attr_die = die->off;
		l->err.attr = at;
	}
}

const char *attr__name(struct cu_loader *l, const struct dr_die *die)
{
	struct dr_cu *acu = l->dc;
	const struct dr_attr *a = dr_die__attr(die, DW_AT_name);
	const char *name;

	/* (most DIEs name themselves: no origin to follow) */
	if (!a && !(a = attr__integrate(l, die, DW_AT_name, &acu)))
		return NULL;
	name = dr_attr__string(acu, a);
	if (!name)
		attr__bad(l, die, DW_AT_name);
	return name;
}
