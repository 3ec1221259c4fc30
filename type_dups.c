// SPDX-License-Identifier: GPL-2.0-only
/*
 * type_dups - types of a CU that repeat, exactly, a type already in the BTF
 * being built (one batch, or the one split BTF), found before they are
 * encoded.
 *
 * Why. Every CU brings its own copy of the types it uses from the headers:
 * on Debian's 6.1 vmlinux the encoder's stream is 3.4 M types, btf__dedup
 * keeps 95 K. Both the collector (one libbpf add call per type, member and
 * parameter, and a name look-up for each) and the dedups (every type hashed
 * and compared) pay for every copy. About half of the stream's types, with
 * a third of its members, parameters and enumerators, are exact repeats of
 * a type earlier in the same batch, with repeats for references; this
 * module finds those, and the encoder refers to the earlier type instead.
 *
 * Exact. A CU type repeats a known type if everything the encoder turns
 * into its BTF bytes is the same: tag, flags, encoding, size, count, name,
 * and for each member, enumerator or parameter its name, value, offsets and
 * flags; every type it references is itself a found repeat (or void), and
 * the references are compared as BTF ids, so the whole graph below the type
 * is the same graph. Names are the same string if they are the same address
 * in .debug_str or the same short inline string (the encoder's own caches
 * make the same assumption); any other name must be the same pointer. The
 * comparison is of the full description, never of a hash alone.
 *
 * Not considered: types on or above a reference cycle within the CU (a
 * struct reached again through its own pointers: such graphs are only
 * equal up to isomorphism, which is btf__dedup's job), types with decl tags
 * (the tags refer to their own copy), and arrays before the BTF has its
 * array index type. A type that references one of these, or a type the CU
 * adds, is added too.
 *
 * Why the output stays pahole's. btf__dedup maps every type to the first
 * type of its equivalence class and keeps the string section as built. An
 * exact repeat T of an earlier type C is in C's class under every rule
 * libbpf applies: for integers, forwards, enums and floats the bytes are
 * equal; for references, arrays and prototypes the referenced types are
 * the same ids; for structs and unions the members are equal and reach the
 * same graph. So dropping T and pointing its users at C leaves the classes
 * and their first members, in order, as they were; T's names are C's names,
 * already in the string section, so no string moves. The byte comparisons
 * with pahole 1.30 (kernel and module tests) check this on real kernels,
 * as for the batches (btf_batches.c).
 *
 * How. The loader lists each CU's acyclic types, each after all it
 * references (cu->acyclic, built on the worker while the unit is in its
 * cache). type_dups__find() goes down that list: a type whose references
 * were all found is described (a row of 32-bit words, references as BTF
 * ids) and looked up; if it is there, ids[i] is the known type's id, and if
 * not it is entered at once, its id filled in by type_dups__add() once the
 * encoder has given it one. type_dups__add() then describes and enters the
 * CU's new types that reference its other new types. The table is open
 * addressing on a 64-bit hash of the description, the descriptions kept in
 * one array; both are emptied, not freed, for the next batch.
 *
 * One thread (the collector) uses a struct type_dups; no locking.
 */
#include <dwarf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "d2b_util.h"
#include "dwarf_loader.h"
#include "type_dups.h"

struct pending {
	uint32_t type; /* of the CU */
	uint32_t slot;
};

struct slot {
	uint64_t hash; /* 0: free */
	uint32_t id; /* 0: a type of the CU being encoded (struct pending) */
	uint32_t desc; /* its description: descs[desc] words, then the words */
};

struct type_dups {
	const char *str_lo, *str_hi;

	struct slot *slots;
	uint32_t cap, nr; /* cap: 0 or a power of two */
	uint32_t *descs;
	uint32_t nr_descs, cap_descs;

	/* per CU */
	uint32_t *desc; /* the description being built */
	uint32_t cap_desc;
	struct pending *pending; /* entered by type_dups__find, id to come */
	uint32_t nr_pending, cap_pending;
};

struct type_dups *type_dups__new(void)
{
	return calloc(1, sizeof(struct type_dups));
}

void type_dups__free(struct type_dups *td)
{
	if (!td)
		return;
	free(td->slots);
	free(td->descs);
	free(td->desc);
	free(td->pending);
	free(td);
}

void type_dups__set_str_section(struct type_dups *td, const char *lo, const char *hi)
{
	td->str_lo = lo;
	td->str_hi = hi;
}

void type_dups__clear(struct type_dups *td)
{
	if (td->nr)
		memset(td->slots, 0, td->cap * sizeof(*td->slots));
	td->nr = 0;
	td->nr_descs = 0;
}

static bool is_composite(uint16_t tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
	       tag == DW_TAG_union_type || tag == DW_TAG_interface_type;
}

/* ------------------------------------------------------------------ */
/* descriptions                                                         */

static void put64(uint32_t **w, uint64_t v)
{
	*(*w)++ = (uint32_t)v;
	*(*w)++ = (uint32_t)(v >> 32);
}

/* a name as 3 words: how it is compared, then its address or its bytes */
static void put_name(const struct type_dups *td, uint32_t **w, const char *s)
{
	uint64_t bytes = 0;
	unsigned int i;

	if (!s) {
		*(*w)++ = 0;
		put64(w, 0);
		return;
	}
	if (s >= td->str_lo && s < td->str_hi) {
		*(*w)++ = 1;
		put64(w, (uintptr_t)s);
		return;
	}
	for (i = 0; i < sizeof(bytes) && s[i]; i++)
		bytes |= (uint64_t)(unsigned char)s[i] << (8 * i);
	if (i < sizeof(bytes)) {
		*(*w)++ = 2; /* up to 7 bytes, by content */
		put64(w, bytes);
		return;
	}
	*(*w)++ = 3;
	put64(w, (uintptr_t)s);
}

/*
 * Describe type @i of @cu into td->desc, references through @ids; returns
 * the number of words, or -ENOMEM.
 */
static int describe(struct type_dups *td, const struct cu *cu, uint32_t i, const uint32_t *ids,
		    uint32_t index_id)
{
	const struct cu_type *t = &cu->types[i];
	uint32_t k, *w;

	if (d2b_grow(&td->desc, &td->cap_desc, 10 + (uint64_t)t->nr * 7, sizeof(*td->desc)))
		return -ENOMEM;
	w = td->desc;
	*w++ = t->tag | (uint32_t)t->flags << 16 | (uint32_t)t->encoding << 24;
	put_name(td, &w, t->name);
	put64(&w, t->size);
	*w++ = ids[t->type];
	*w++ = t->nr;
	if (t->tag == DW_TAG_array_type)
		*w++ = index_id;
	for (k = 0; k < t->nr; k++) {
		if (is_composite(t->tag)) {
			const struct cu_member *m = &cu->members[t->first + k];

			put_name(td, &w, m->name);
			*w++ = ids[m->type];
			*w++ = m->bit_offset;
			*w++ = m->dw4_bit_offset;
			*w++ = m->bitfield_size | (uint32_t)m->has_dw4_bit_offset << 16;
		} else if (t->tag == DW_TAG_enumeration_type) {
			const struct cu_enumerator *e = &cu->enumerators[t->first + k];

			put_name(td, &w, e->name);
			put64(&w, e->value);
		} else if (t->tag == DW_TAG_subroutine_type) {
			const struct cu_param *p = &cu->params[t->first + k];

			put_name(td, &w, p->name);
			*w++ = p->vararg ? 0 : ids[p->type];
			*w++ = p->vararg;
		}
	}
	return (int)(w - td->desc);
}

static uint64_t desc_hash(const uint32_t *w, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = (h ^ w[i]) * 0x100000001b3ull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h | 1;
}

/* the slot of the description td->desc[0..@n) with @hash: its entry or a free one */
static struct slot *desc_slot(const struct type_dups *td, uint64_t hash, uint32_t n)
{
	uint32_t h = (uint32_t)(hash >> 32) & (td->cap - 1);
	struct slot *s;

	for (;; h = (h + 1) & (td->cap - 1)) {
		s = &td->slots[h];
		if (!s->hash)
			return s;
		if (s->hash == hash && td->descs[s->desc] == n &&
		    !memcmp(&td->descs[s->desc + 1], td->desc, n * sizeof(*td->desc)))
			return s;
	}
}

static int table_grow(struct type_dups *td)
{
	struct type_dups n = { .cap = td->cap ? td->cap * 2 : 1 << 12 };
	uint32_t i;

	if (n.cap > UINT32_MAX / 2)
		return -ENOMEM;
	n.slots = calloc(n.cap, sizeof(*n.slots));
	if (!n.slots)
		return -ENOMEM;
	for (i = 0; i < td->cap; i++) {
		const struct slot *s = &td->slots[i];
		uint32_t h = (uint32_t)(s->hash >> 32) & (n.cap - 1);

		if (!s->hash)
			continue;
		while (n.slots[h].hash)
			h = (h + 1) & (n.cap - 1);
		n.slots[h] = *s;
	}
	free(td->slots);
	td->slots = n.slots;
	td->cap = n.cap;
	return 0;
}

/* ------------------------------------------------------------------ */
/* finding and adding                                                   */

/* every type @t references is void or has an id, below @limit */
static bool refs_below(const struct cu *cu, const struct cu_type *t, const uint32_t *ids,
		       uint32_t limit)
{
	uint32_t k, ref;

	if (t->type && (!ids[t->type] || ids[t->type] >= limit))
		return false;
	for (k = 0; k < t->nr; k++) {
		if (is_composite(t->tag))
			ref = cu->members[t->first + k].type;
		else if (t->tag == DW_TAG_subroutine_type && !cu->params[t->first + k].vararg)
			ref = cu->params[t->first + k].type;
		else
			return true;
		if (ref && (!ids[ref] || ids[ref] >= limit))
			return false;
	}
	return true;
}

/* enter td->desc[0..@n), hash @hash, in free slot @s: id @id (0: pending) */
static int desc_enter(struct type_dups *td, struct slot *s, uint64_t hash, uint32_t n, uint32_t id)
{
	if (d2b_grow(&td->descs, &td->cap_descs, (uint64_t)td->nr_descs + 1 + n,
		     sizeof(*td->descs)))
		return -ENOMEM;
	*s = (struct slot){ hash, id, td->nr_descs };
	td->descs[td->nr_descs++] = n;
	memcpy(&td->descs[td->nr_descs], td->desc, n * sizeof(*td->desc));
	td->nr_descs += n;
	td->nr++;
	return 0;
}

int type_dups__find(struct type_dups *td, const struct cu *cu, uint32_t index_id, uint32_t *ids)
{
	uint32_t i, k;
	uint64_t hash;
	struct slot *s;
	int n;

	memset(ids, 0, cu->nr_types * sizeof(*ids));
	td->nr_pending = 0;
	if (!index_id)
		return 0;
	/* no growth while slots are pending */
	while ((uint64_t)(td->nr + cu->nr_acyclic) * 2 > td->cap)
		if (table_grow(td))
			return -ENOMEM;
	if (d2b_grow(&td->pending, &td->cap_pending, cu->nr_acyclic, sizeof(*td->pending)))
		return -ENOMEM;
	for (k = 0; k < cu->nr_acyclic; k++) {
		const struct cu_type *t = &cu->types[cu->acyclic[k]];

		i = cu->acyclic[k];
		if (t->nr_annots || !refs_below(cu, t, ids, UINT32_MAX))
			continue;
		n = describe(td, cu, i, ids, index_id);
		if (n < 0)
			return n;
		hash = desc_hash(td->desc, (uint32_t)n);
		s = desc_slot(td, hash, (uint32_t)n);
		if (s->hash) {
			ids[i] = s->id; /* 0 if a repeat within the CU: it is added */
			continue;
		}
		if (desc_enter(td, s, hash, (uint32_t)n, 0))
			return -ENOMEM;
		td->pending[td->nr_pending++] = (struct pending){ i, (uint32_t)(s - td->slots) };
	}
	return 0;
}

int type_dups__add(struct type_dups *td, const struct cu *cu, uint32_t index_id,
		   const uint32_t *ids, uint32_t first_new)
{
	uint32_t i, k;
	uint64_t hash;
	struct slot *s;
	int n;

	if (!index_id)
		return 0;
	for (k = 0; k < td->nr_pending; k++)
		td->slots[td->pending[k].slot].id = ids[td->pending[k].type];
	/* the CU's new types that reference new types (the others are pending) */
	for (k = 0; k < cu->nr_acyclic; k++) {
		const struct cu_type *t = &cu->types[cu->acyclic[k]];

		i = cu->acyclic[k];
		if (ids[i] < first_new || t->nr_annots || refs_below(cu, t, ids, first_new))
			continue;
		if ((td->nr + 1) * 2 > td->cap && table_grow(td))
			return -ENOMEM;
		n = describe(td, cu, i, ids, index_id);
		if (n < 0)
			return n;
		hash = desc_hash(td->desc, (uint32_t)n);
		s = desc_slot(td, hash, (uint32_t)n);
		if (!s->hash && desc_enter(td, s, hash, (uint32_t)n, ids[i]))
			return -ENOMEM;
	}
	return 0;
}
