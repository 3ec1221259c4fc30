// SPDX-License-Identifier: GPL-2.0-only
/*
 * type_dups - types of a CU that repeat, exactly, types already in the BTF
 * being built (one batch, or the one split BTF), found before they are
 * encoded.
 *
 * Why. Every CU brings its own copy of the types it uses from the headers:
 * on Debian's 6.1 vmlinux the encoder's stream is 3.4 M types, btf__dedup
 * keeps 95 K. Both the collector (one libbpf add call per type, member and
 * parameter, and a name look-up for each) and the dedups (every type hashed
 * and compared) pay for every copy. Most of the stream's types are exact
 * repeats of types earlier in the same batch; this module finds those, and
 * the encoder refers to the earlier types instead of adding copies.
 *
 * Exact. The unit of comparison is a strongly connected component of the
 * CU's reference graph (cu->sccs, from the loader): a type alone, or a
 * cycle such as a struct and the pointers through which it reaches itself.
 * Two components are the same if they list alike (the loader lists a cycle
 * breadth first from its one struct or union with the least tag and name)
 * and, type by type, everything the encoder turns into BTF bytes is the
 * same: tag, flags, encoding, size, count, name, and each member's,
 * enumerator's or parameter's name, value, offsets and flags; a reference
 * inside the component by its place in the list, any other by BTF id, and
 * every type referenced outside the component must itself be a found
 * repeat (or void). So a found component and its earlier copy are the same
 * graph, node for node, down to the types both reference. Names are the
 * same string if they are the same address in .debug_str or the same
 * short inline string (the encoder's own caches make the same assumption);
 * any other name must be the same pointer. The comparison is of the full
 * description, never of a hash alone.
 *
 * Not considered: components with a type that has decl tags (the tags
 * refer to their own copy), cycles the loader does not list (no single
 * least struct, or over SCC_MAX_TYPES types), and arrays before the BTF has
 * its array index type. A type that references one of these, or a type the
 * CU adds, is added too.
 *
 * Why the output stays pahole's. btf__dedup maps every type to the first
 * type of its equivalence class and keeps the string section as built. An
 * exact repeat T of an earlier type C is in C's class under every rule
 * libbpf applies: for integers, forwards, enums and floats the bytes are
 * equal; for references, arrays and prototypes the referenced types are
 * equivalent by induction; for structs and unions the members are equal,
 * and the graphs below are the same graph (libbpf's hypothetical walk from
 * T and C pairs each node with its copy, cycles included). So dropping T
 * and pointing its users at C leaves the classes and their first members,
 * in order, as they were; T's names are C's names, already in the string
 * section, so no string moves. The byte comparisons with pahole 1.30
 * (kernel and module tests) check this on real kernels, as for the batches
 * (btf_batches.c), and the fixture test checks that repeats were found.
 *
 * How. type_dups__find() goes down cu->sccs: a component whose outside
 * references were all found is described (a row of 32-bit words) and
 * looked up; if it is there, its types get the known types' ids, and if not
 * it is entered at once, the ids filled in by type_dups__add() once the
 * encoder has given them. type_dups__add() then describes and enters the
 * CU's new components that reference its other new types. The table is
 * open addressing on a 64-bit hash of the description (its high half
 * places an entry, its low half is kept as a check, 8 bytes a slot); the
 * descriptions and ids are kept in one array; both are emptied, not freed,
 * for the next batch.
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
	uint32_t scc; /* the component's place in cu->sccs */
	uint32_t entry; /* and its entry in descs[] */
};

/*
 * An entry, in descs[]: the number of words of its description, the words,
 * the number of its types, their ids (in the component's order; 0 while
 * pending: the CU being encoded has yet to give them).
 */
struct slot {
	uint32_t check; /* the hash's low half, made odd; 0: free */
	uint32_t entry;
};

struct type_dups {
	const char *str_lo, *str_hi;

	struct slot *slots;
	uint32_t cap, nr; /* cap: 0 or a power of two */
	uint32_t *descs;
	uint32_t nr_descs, cap_descs;

	/* per CU */
	uint32_t *local; /* [type]: 1 + its place in the component described */
	uint32_t cap_local;
	uint32_t *desc; /* the description being built */
	uint32_t nr_desc, cap_desc;
	struct pending *pending; /* entered by type_dups__find, ids to come */
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
	free(td->local);
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

/* a reference: inside the component by its place (high bit set), else by id */
static uint32_t ref_word(const struct type_dups *td, const uint32_t *ids, uint32_t ref)
{
	return td->local[ref] ? 0x80000000u | td->local[ref] : ids[ref];
}

/* append type @i of @cu to td->desc; 0 or -ENOMEM */
static int describe(struct type_dups *td, const struct cu *cu, uint32_t i, const uint32_t *ids,
		    uint32_t index_id)
{
	const struct cu_type *t = &cu->types[i];
	uint32_t k, *w;

	if (d2b_grow(&td->desc, &td->cap_desc, td->nr_desc + 10 + (uint64_t)t->nr * 7,
		     sizeof(*td->desc)))
		return -ENOMEM;
	w = td->desc + td->nr_desc;
	*w++ = t->tag | (uint32_t)t->flags << 16 | (uint32_t)t->encoding << 24;
	put_name(td, &w, t->name);
	put64(&w, t->size);
	*w++ = ref_word(td, ids, t->type);
	*w++ = t->nr;
	if (t->tag == DW_TAG_array_type)
		*w++ = index_id;
	for (k = 0; k < t->nr; k++) {
		if (cu_tag_has_members(t->tag)) {
			const struct cu_member *m = &cu->members[t->first + k];

			put_name(td, &w, m->name);
			*w++ = ref_word(td, ids, m->type);
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
			*w++ = p->vararg ? 0 : ref_word(td, ids, p->type);
			*w++ = p->vararg;
		}
	}
	td->nr_desc = (uint32_t)(w - td->desc);
	return 0;
}

/*
 * Every reference of type @t leaves its component (td->local) for a type
 * that has an id below @limit, or void.
 */
static bool refs_below(const struct type_dups *td, const struct cu *cu, const struct cu_type *t,
		       const uint32_t *ids, uint32_t limit)
{
	uint32_t k, ref;

	for (k = 0; cu_type_ref(cu, t, k, &ref); k++)
		if (ref && !td->local[ref] && (!ids[ref] || ids[ref] >= limit))
			return false;
	return true;
}

/* a type of the component @m[0..@nr) has decl tags (they refer to their own copy) */
static bool scc_tagged(const struct cu *cu, const uint32_t *m, uint32_t nr)
{
	uint32_t k;

	for (k = 0; k < nr; k++)
		if (cu->types[m[k]].nr_annots)
			return true;
	return false;
}

/*
 * Mark the component @m[0..@nr) in td->local (scc_unmark clears it), and
 * whether all its types reference outside it has an id below @limit.
 */
static bool scc_ready(struct type_dups *td, const struct cu *cu, const uint32_t *m, uint32_t nr,
		      const uint32_t *ids, uint32_t limit)
{
	uint32_t k;

	for (k = 0; k < nr; k++)
		td->local[m[k]] = k + 1;
	for (k = 0; k < nr; k++)
		if (!refs_below(td, cu, &cu->types[m[k]], ids, limit))
			return false;
	return true;
}

static void scc_unmark(struct type_dups *td, const uint32_t *m, uint32_t nr)
{
	uint32_t k;

	for (k = 0; k < nr; k++)
		td->local[m[k]] = 0;
}

/* describe the component @m[0..@nr), marked, into td->desc; 0 or -ENOMEM */
static int scc_describe(struct type_dups *td, const struct cu *cu, const uint32_t *m, uint32_t nr,
			const uint32_t *ids, uint32_t index_id)
{
	uint32_t k;

	td->nr_desc = 0;
	for (k = 0; k < nr; k++)
		if (describe(td, cu, m[k], ids, index_id))
			return -ENOMEM;
	return 0;
}

/* one step of a lane: @x in, multiplied, the high half folded down */
static uint64_t hash_step(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x9e3779b97f4a7c15ull;
	return h ^ h >> 32;
}

static uint64_t words64(const uint32_t *w)
{
	return w[0] | (uint64_t)w[1] << 32;
}

/*
 * The description's hash: two lanes of two words a step, so that the
 * multiplications overlap (one word a step made a chain of dependent
 * multiplications, a tenth of the collector's time), then splitmix64's
 * finalizer. Any hash gives the same entries: it only places them.
 */
static uint64_t desc_hash(const uint32_t *w, uint32_t n)
{
	uint64_t a = 0xcbf29ce484222325ull ^ n, b = 0x2545f4914f6cdd1dull;
	uint32_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		a = hash_step(a, words64(w + i));
		b = hash_step(b, words64(w + i + 2));
	}
	if (i + 2 <= n) {
		a = hash_step(a, words64(w + i));
		i += 2;
	}
	if (i < n)
		b = hash_step(b, w[i]);
	a ^= b * 0xbf58476d1ce4e5b9ull;
	a ^= a >> 29;
	a *= 0xbf58476d1ce4e5b9ull;
	a ^= a >> 32;
	return a | 1;
}

static uint32_t hash_check(uint64_t hash)
{
	return (uint32_t)hash | 1;
}

/* the slot of td->desc, hash @hash: its entry or a free one */
static struct slot *desc_slot(const struct type_dups *td, uint64_t hash)
{
	uint32_t h = (uint32_t)(hash >> 32) & (td->cap - 1), n = td->nr_desc;
	uint32_t check = hash_check(hash);
	struct slot *s;

	for (;; h = (h + 1) & (td->cap - 1)) {
		s = &td->slots[h];
		if (!s->check)
			return s;
		if (s->check == check && td->descs[s->entry] == n &&
		    !memcmp(&td->descs[s->entry + 1], td->desc, n * sizeof(*td->desc)))
			return s;
	}
}

/* the ids of the entry at descs[@entry], and their number */
static uint32_t *entry_ids(const struct type_dups *td, uint32_t entry, uint32_t *nr)
{
	uint32_t *e = &td->descs[entry + 1 + td->descs[entry]];

	*nr = e[0];
	return e + 1;
}

static int table_grow(struct type_dups *td)
{
	uint32_t cap = td->cap ? td->cap * 2 : 1 << 12, i, h;
	struct slot *slots;

	if (cap > UINT32_MAX / 2)
		return -ENOMEM;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < td->cap; i++) {
		const uint32_t *e = &td->descs[td->slots[i].entry];

		if (!td->slots[i].check)
			continue;
		/* the slot keeps half the hash: the other half again */
		for (h = (uint32_t)(desc_hash(e + 1, e[0]) >> 32) & (cap - 1); slots[h].check;
		     h = (h + 1) & (cap - 1))
			;
		slots[h] = td->slots[i];
	}
	free(td->slots);
	td->slots = slots;
	td->cap = cap;
	return 0;
}

/* enter td->desc, hash @hash, in free slot @s, for component @m[0..@nr) (@ids NULL: pending) */
static int desc_enter(struct type_dups *td, struct slot *s, uint64_t hash, const uint32_t *m,
		      uint32_t nr, const uint32_t *ids)
{
	uint32_t n = td->nr_desc, *e, k;

	if (d2b_grow(&td->descs, &td->cap_descs, (uint64_t)td->nr_descs + 2 + n + nr,
		     sizeof(*td->descs)))
		return -ENOMEM;
	*s = (struct slot){ hash_check(hash), td->nr_descs };
	e = &td->descs[td->nr_descs];
	e[0] = n;
	memcpy(e + 1, td->desc, n * sizeof(*td->desc));
	e[1 + n] = nr;
	for (k = 0; k < nr; k++)
		e[2 + n + k] = ids ? ids[m[k]] : 0;
	td->nr_descs += 2 + n + nr;
	td->nr++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* finding and adding                                                   */

/*
 * Read the CU's types and members in order first: the look-up visits them
 * in component order, which the hardware cannot predict, and the unit was
 * loaded on another CPU, so every first touch would be a cache miss.
 */
static void cu_prefetch(const struct cu *cu)
{
	const struct cu_type *t, *end = cu->types + cu->nr_types;
	uint32_t sum = 0, nr_members = 0, k;

	for (t = cu->types; t < end; t++)
		if (cu_tag_has_members(t->tag) && t->first + t->nr > nr_members)
			nr_members = t->first + t->nr;
	for (k = 0; k < nr_members; k++)
		sum += cu->members[k].type;
	__asm__ volatile("" : : "r"(sum));
}

int type_dups__find(struct type_dups *td, const struct cu *cu, uint32_t index_id, uint32_t *ids)
{
	uint32_t w, nr, k, *known, nr_known;
	const uint32_t *m;
	struct slot *s;
	uint64_t hash;
	bool ready;
	int ret;

	memset(ids, 0, cu->nr_types * sizeof(*ids));
	td->nr_pending = 0;
	if (!index_id)
		return 0;
	if (d2b_grow(&td->pending, &td->cap_pending, cu->nr_scc_words, sizeof(*td->pending)) ||
	    d2b_grow(&td->local, &td->cap_local, cu->nr_types, sizeof(*td->local)))
		return -ENOMEM;
	memset(td->local, 0, cu->nr_types * sizeof(*td->local));
	cu_prefetch(cu);
	for (w = 0; w < cu->nr_scc_words; w += 1 + nr) {
		nr = cu->sccs[w];
		m = &cu->sccs[w + 1];
		if (scc_tagged(cu, m, nr))
			continue;
		ready = scc_ready(td, cu, m, nr, ids, UINT32_MAX);
		ret = ready ? scc_describe(td, cu, m, nr, ids, index_id) : 0;
		scc_unmark(td, m, nr);
		if (ret)
			return ret;
		if (!ready)
			continue;
		if ((td->nr + 1) * 2 > td->cap && table_grow(td))
			return -ENOMEM;
		hash = desc_hash(td->desc, td->nr_desc);
		s = desc_slot(td, hash);
		if (s->check) {
			known = entry_ids(td, s->entry, &nr_known);
			/* (a pending entry: a repeat within the CU, added) */
			for (k = 0; known[0] && k < nr; k++)
				ids[m[k]] = known[k];
			continue;
		}
		if (desc_enter(td, s, hash, m, nr, NULL))
			return -ENOMEM;
		td->pending[td->nr_pending++] = (struct pending){ w, s->entry };
	}
	return 0;
}

int type_dups__add(struct type_dups *td, const struct cu *cu, uint32_t index_id,
		   const uint32_t *ids, uint32_t first_new)
{
	uint32_t w, nr, k, *known, nr_known;
	const uint32_t *m;
	struct slot *s;
	uint64_t hash;
	bool ready;
	int ret;

	if (!index_id)
		return 0;
	for (k = 0; k < td->nr_pending; k++) {
		m = &cu->sccs[td->pending[k].scc + 1];
		known = entry_ids(td, td->pending[k].entry, &nr_known);
		for (w = 0; w < nr_known; w++)
			known[w] = ids[m[w]];
	}
	/* the CU's new components that reference its other new types */
	for (w = 0; w < cu->nr_scc_words; w += 1 + nr) {
		nr = cu->sccs[w];
		m = &cu->sccs[w + 1];
		if (ids[m[0]] < first_new || scc_tagged(cu, m, nr))
			continue;
		/* entered by type_dups__find if all it references was known then */
		ready = scc_ready(td, cu, m, nr, ids, first_new);
		ret = ready ? 0 : scc_describe(td, cu, m, nr, ids, index_id);
		scc_unmark(td, m, nr);
		if (ret)
			return ret;
		if (ready)
			continue;
		if ((td->nr + 1) * 2 > td->cap && table_grow(td))
			return -ENOMEM;
		hash = desc_hash(td->desc, td->nr_desc);
		s = desc_slot(td, hash);
		if (!s->check && desc_enter(td, s, hash, m, nr, ids))
			return -ENOMEM;
	}
	return 0;
}
