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
 * How. A description is a row of 32-bit words. All of it but the BTF ids
 * of the types a component references outside itself (and of the array
 * index type) is known when the unit is loaded, so the loader's worker
 * describes every component (type_dups__describe_cu: the words with those
 * ids left 0, where they go and which type each is, and a hash of the
 * rest), in parallel with the other units, and the collector only fills
 * the ids in. type_dups__find() goes down cu->sccs: a component whose
 * outside references were all found gets its ids filled in and is looked
 * up; if it is there, its types get the known types' ids, and if not it is
 * entered at once, the ids filled in by type_dups__add() once the encoder
 * has given them. type_dups__add() then enters the CU's new components
 * that reference its other new types. The table is open addressing on a
 * 64-bit hash of the description (the worker's hash of the words, then
 * the ids; its high half places an entry, its low half is kept as a check,
 * 8 bytes a slot); the descriptions and ids are kept in one array; both are
 * emptied, not freed, for the next batch.
 *
 * One thread (the collector) uses a struct type_dups; no locking.
 * type_dups__describe_cu() reads only its unit and writes only its
 * scc_descs, on the worker that loaded it, before the unit is handed over;
 * they go into the unit's ring when it has one and there is room (see
 * dwarf_loader.c), else they come from malloc.
 */
#include <dwarf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "d2b_util.h"
#include "dwarf_loader.h"
#include "type_dups.h"
#include "unit_ring.h"

struct pending {
	uint32_t scc; /* the component's place in cu->sccs */
	uint32_t entry; /* and its entry in descs[] */
};

/*
 * An entry, in descs[]: the number of words of its description, the high
 * half of its hash (where it goes when the table grows), the words, the
 * number of its types, their ids (in the component's order; 0 while
 * pending: the CU being encoded has yet to give them).
 */
struct slot {
	uint32_t check; /* the hash's low half, made odd; 0: free */
	uint32_t entry;
};

struct type_dups {
	struct slot *slots;
	uint32_t cap, nr; /* cap: 0 or a power of two */
	uint32_t *descs;
	uint32_t nr_descs, cap_descs;

	/* per CU */
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
	free(td->desc);
	free(td->pending);
	free(td);
}

void type_dups__clear(struct type_dups *td)
{
	if (td->nr)
		memset(td->slots, 0, td->cap * sizeof(*td->slots));
	td->nr = 0;
	td->nr_descs = 0;
}

/* ------------------------------------------------------------------ */
/* descriptions, made on the workers                                    */

#define DESC_SKIP 0xffffffffu /* a component with decl tags: not described */
/* at most, for a type of @nr members, values or parameters: its words, its patches' */
#define DESC_WORDS(nr) (10 + 7 * (uint64_t)(nr))
#define PATCH_WORDS(nr) (4 + 2 * (uint64_t)(nr))
#define PATCH_INDEX 0xffffffffu /* a patch for the array index type */

/* the descriptions of a CU being made (type_dups__describe_cu) */
struct describer {
	const char *str_lo, *str_hi;
	uint32_t *local; /* [type]: 1 + its place in the component described */
	uint32_t *w; /* what becomes cu->scc_descs */
	uint32_t nr;
	uint32_t start; /* where in w the component's description starts */
	uint32_t *patches; /* the component's: (word, type or PATCH_INDEX) pairs */
	uint32_t nr_patches;
};

static inline void put64(uint32_t **w, uint64_t v)
{
	*(*w)++ = (uint32_t)v;
	*(*w)++ = (uint32_t)(v >> 32);
}

/* a name as 3 words: how it is compared, then its address or its bytes */
static inline __attribute__((always_inline)) void put_name(const struct describer *d, uint32_t **w,
							   const char *s)
{
	uint64_t bytes = 0;
	unsigned int i;

	if (!s) {
		*(*w)++ = 0;
		put64(w, 0);
		return;
	}
	if (s >= d->str_lo && s < d->str_hi) {
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
 * A reference at word *@w: inside the component by its place (high bit
 * set), void as 0, any other by the BTF id it will have, which only the
 * collector knows: a patch, the word left 0.
 */
static inline __attribute__((always_inline)) void put_ref(struct describer *d, uint32_t **w,
							  uint32_t ref)
{
	uint32_t pos = (uint32_t)(*w - d->w) - d->start;

	if (ref && !d->local[ref]) {
		d->patches[d->nr_patches++] = pos;
		d->patches[d->nr_patches++] = ref;
	}
	*(*w)++ = !ref ? 0 : d->local[ref] ? 0x80000000u | d->local[ref] : 0;
}

/*
 * Append type @i of @cu to the description at d->w + d->nr (room made by
 * type_dups__describe_cu: at most DESC_WORDS and PATCH_WORDS).
 */
static void describe(struct describer *d, const struct cu *cu, uint32_t i)
{
	const struct cu_type *t = &cu->types[i];
	uint32_t k, *w;

	w = d->w + d->nr;
	*w++ = t->tag | (uint32_t)t->flags << 16 | (uint32_t)t->encoding << 24;
	put_name(d, &w, t->name);
	put64(&w, t->size);
	put_ref(d, &w, t->type);
	*w++ = t->nr;
	if (t->tag == DW_TAG_array_type) {
		d->patches[d->nr_patches++] = (uint32_t)(w - d->w) - d->start;
		d->patches[d->nr_patches++] = PATCH_INDEX;
		*w++ = 0;
	}
	for (k = 0; k < t->nr; k++) {
		if (cu_tag_has_members(t->tag)) {
			const struct cu_member *m = &cu->members[t->first + k];

			put_name(d, &w, m->name);
			put_ref(d, &w, m->type);
			*w++ = m->bit_offset;
			*w++ = m->dw4_bit_offset;
			*w++ = m->bitfield_size | (uint32_t)m->has_dw4_bit_offset << 16;
		} else if (t->tag == DW_TAG_enumeration_type) {
			const struct cu_enumerator *e = &cu->enumerators[t->first + k];

			put_name(d, &w, e->name);
			put64(&w, e->value);
		} else if (t->tag == DW_TAG_subroutine_type) {
			const struct cu_param *p = &cu->params[t->first + k];

			put_name(d, &w, p->name);
			put_ref(d, &w, p->vararg ? 0 : p->type);
			*w++ = p->vararg;
		}
	}
	d->nr = (uint32_t)(w - d->w);
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

/*
 * The hash of a description from its template's hash and the values its
 * patches got: equal descriptions have equal templates (a word is a
 * reference outside the component, void, or inside it, whatever the
 * value) and equal patches, so equal hashes.
 */
static uint64_t desc_hash_patched(uint64_t h, const uint32_t *desc, const uint32_t *patches,
				  uint32_t nr_patches)
{
	uint32_t k;

	for (k = 0; k < nr_patches; k++)
		h = hash_step(h, desc[patches[2 * k]]);
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return h | 1;
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
		    !memcmp(&td->descs[s->entry + 2], td->desc, n * sizeof(*td->desc)))
			return s;
	}
}

/* the ids of the entry at descs[@entry], and their number */
static uint32_t *entry_ids(const struct type_dups *td, uint32_t entry, uint32_t *nr)
{
	uint32_t *e = &td->descs[entry + 2 + td->descs[entry]];

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
		if (!td->slots[i].check)
			continue;
		/* the entry keeps the hash's high half, which places it */
		for (h = td->descs[td->slots[i].entry + 1] & (cap - 1); slots[h].check;
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

	if (d2b_grow(&td->descs, &td->cap_descs, (uint64_t)td->nr_descs + 3 + n + nr,
		     sizeof(*td->descs)))
		return -ENOMEM;
	*s = (struct slot){ hash_check(hash), td->nr_descs };
	e = &td->descs[td->nr_descs];
	e[0] = n;
	e[1] = (uint32_t)(hash >> 32);
	memcpy(e + 2, td->desc, n * sizeof(*td->desc));
	e[2 + n] = nr;
	for (k = 0; k < nr; k++)
		e[3 + n + k] = ids ? ids[m[k]] : 0;
	td->nr_descs += 3 + n + nr;
	td->nr++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* on the worker                                                        */

int type_dups__describe_cu(struct cu *cu, const char *str_lo, const char *str_hi)
{
	struct describer d = { .str_lo = str_lo, .str_hi = str_hi };
	uint64_t words = 0, patch_words = 0;
	uint32_t w, nr, k, head, n;
	const uint32_t *m;
	int err = -ENOMEM;

	if (!cu->nr_scc_words)
		return 0;
	/* room for the most it can take, made once (growing it cost a copy a time) */
	for (k = 1; k < cu->nr_types; k++) {
		/* a component's 4 words of head, its types' words and patches */
		words += 4 + DESC_WORDS(cu->types[k].nr) + PATCH_WORDS(cu->types[k].nr);
		patch_words += PATCH_WORDS(cu->types[k].nr);
	}
	if (words > UINT32_MAX)
		return -ENOMEM;
	d.local = calloc(cu->nr_types, sizeof(*d.local));
	d.w = malloc(words * sizeof(*d.w));
	d.patches = malloc(patch_words * sizeof(*d.patches));
	if (!d.local || !d.w || !d.patches)
		goto out;
	for (w = 0; w < cu->nr_scc_words; w += 1 + nr) {
		nr = cu->sccs[w];
		m = &cu->sccs[w + 1];
		head = d.nr;
		d.nr += 4;
		if (scc_tagged(cu, m, nr)) {
			memset(d.w + head, 0, 4 * sizeof(*d.w));
			d.w[head] = DESC_SKIP;
			continue;
		}
		d.start = d.nr;
		d.nr_patches = 0;
		for (k = 0; k < nr; k++)
			d.local[m[k]] = k + 1;
		for (k = 0; k < nr; k++)
			describe(&d, cu, m[k]);
		for (k = 0; k < nr; k++)
			d.local[m[k]] = 0;
		n = d.nr - d.start;
		d.w[head] = n;
		d.w[head + 1] = d.nr_patches / 2;
		put64(&(uint32_t *){ d.w + head + 2 }, desc_hash(d.w + d.start, n));
		memcpy(d.w + d.nr, d.patches, d.nr_patches * sizeof(*d.w));
		d.nr += d.nr_patches;
	}
	/* the unit waits in the window: keep only what it needs, with it in its ring if it can */
	cu->scc_descs = cu->ring ? unit_ring__alloc(cu->ring, (size_t)d.nr * sizeof(*d.w)) : NULL;
	if (cu->scc_descs) {
		memcpy(cu->scc_descs, d.w, (size_t)d.nr * sizeof(*d.w));
	} else {
		cu->scc_descs = realloc(d.w, (size_t)d.nr * sizeof(*d.w)) ?: d.w;
		d.w = NULL;
	}
	cu->nr_scc_desc_words = d.nr;
	err = 0;
out:
	free(d.w);
	free(d.local);
	free(d.patches);
	return err;
}

/* ------------------------------------------------------------------ */
/* finding and adding, on the collector                                 */

/* one component's description as the worker left it */
struct scc_desc {
	uint32_t nr_words; /* DESC_SKIP: not described */
	uint32_t nr_patches;
	uint64_t hash; /* of the template */
	const uint32_t *words;
	const uint32_t *patches; /* (word, type or PATCH_INDEX) pairs */
};

/* the description at cu->scc_descs[*@pos]; *@pos moves past it */
static void scc_desc_next(const struct cu *cu, uint32_t *pos, struct scc_desc *sd)
{
	const uint32_t *h = cu->scc_descs + *pos;

	sd->nr_words = h[0];
	sd->nr_patches = h[1];
	sd->hash = h[2] | (uint64_t)h[3] << 32;
	sd->words = h + 4;
	sd->patches = sd->words + (sd->nr_words == DESC_SKIP ? 0 : sd->nr_words);
	*pos += 4 + (sd->nr_words == DESC_SKIP ? 0 : sd->nr_words + 2 * sd->nr_patches);
}

/* every type @sd references outside its component has an id below @limit */
static bool scc_ready(const struct scc_desc *sd, const uint32_t *ids, uint32_t limit)
{
	uint32_t k, ref;

	for (k = 0; k < sd->nr_patches; k++) {
		ref = sd->patches[2 * k + 1];
		if (ref != PATCH_INDEX && (!ids[ref] || ids[ref] >= limit))
			return false;
	}
	return true;
}

/* @sd's description into td->desc, with the ids; its hash */
static int scc_describe(struct type_dups *td, const struct scc_desc *sd, const uint32_t *ids,
			uint32_t index_id, uint64_t *hash)
{
	uint32_t k, ref;

	if (d2b_grow(&td->desc, &td->cap_desc, sd->nr_words, sizeof(*td->desc)))
		return -ENOMEM;
	memcpy(td->desc, sd->words, sd->nr_words * sizeof(*td->desc));
	for (k = 0; k < sd->nr_patches; k++) {
		ref = sd->patches[2 * k + 1];
		td->desc[sd->patches[2 * k]] = ref == PATCH_INDEX ? index_id : ids[ref];
	}
	td->nr_desc = sd->nr_words;
	*hash = desc_hash_patched(sd->hash, td->desc, sd->patches, sd->nr_patches);
	return 0;
}

int type_dups__find(struct type_dups *td, const struct cu *cu, uint32_t index_id, uint32_t *ids)
{
	uint32_t w, nr, k, pos = 0, *known, nr_known;
	struct scc_desc sd;
	const uint32_t *m;
	struct slot *s;
	uint64_t hash;

	memset(ids, 0, cu->nr_types * sizeof(*ids));
	td->nr_pending = 0;
	if (!index_id)
		return 0;
	if (d2b_grow(&td->pending, &td->cap_pending, cu->nr_scc_words, sizeof(*td->pending)))
		return -ENOMEM;
	for (w = 0; w < cu->nr_scc_words; w += 1 + nr) {
		nr = cu->sccs[w];
		m = &cu->sccs[w + 1];
		scc_desc_next(cu, &pos, &sd);
		if (sd.nr_words == DESC_SKIP || !scc_ready(&sd, ids, UINT32_MAX))
			continue;
		if (scc_describe(td, &sd, ids, index_id, &hash))
			return -ENOMEM;
		if ((td->nr + 1) * 2 > td->cap && table_grow(td))
			return -ENOMEM;
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
	uint32_t w, nr, k, pos = 0, *known, nr_known;
	struct scc_desc sd;
	const uint32_t *m;
	struct slot *s;
	uint64_t hash;

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
		scc_desc_next(cu, &pos, &sd);
		/* entered by type_dups__find if all it references was known then */
		if (ids[m[0]] < first_new || sd.nr_words == DESC_SKIP ||
		    scc_ready(&sd, ids, first_new))
			continue;
		if (scc_describe(td, &sd, ids, index_id, &hash))
			return -ENOMEM;
		if ((td->nr + 1) * 2 > td->cap && table_grow(td))
			return -ENOMEM;
		s = desc_slot(td, hash);
		if (!s->check && desc_enter(td, s, hash, m, nr, ids))
			return -ENOMEM;
	}
	return 0;
}
