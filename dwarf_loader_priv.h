/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_loader's private interface: the structs its files share and the
 * functions one of them calls in another (dwarf_loader.c lists the files).
 * The public API is dwarf_loader.h.
 *
 * struct dwarf_loader is written by dwarf_loader__new() on the main thread
 * and read-only after it, but for the fields marked as a lock's and for
 * the releaser's targets. A struct cu_loader belongs to the one worker
 * loading a unit with it, from loader_take() to loader_give().
 */
#ifndef DWARF_LOADER_PRIV_H
#define DWARF_LOADER_PRIV_H

#include <dwarf.h>
#include <gelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "d2b_conf.h"
#include "d2b_util.h"
#include "dwarf_loader.h"
#include "dwarf_reader.h"
#include "elf_reloc.h"

#ifndef DW_TAG_GNU_annotation /* gcc 15+'s btf_type_tag / btf_decl_tag */
#define DW_TAG_GNU_annotation 0x6001
#endif
#ifndef DW_TAG_LLVM_annotation
#define DW_TAG_LLVM_annotation 0x6000
#endif

/* the debug sections loader__map_sections reads into struct dr_sections */
#define LOADER_NR_SECS 8

/* DIEs nested deeper are refused (die_walk.c); so are annotation chains longer */
#define MAX_DIE_DEPTH 512

/*
 * A debug section read straight from libelf's read-only private mapping of
 * the file (not a decompressed or relocated copy), whose pages can thus be
 * dropped from the resident set with MADV_DONTNEED: they come back from the
 * file if read again. Pages before .released are dropped; those before
 * .requested will be (struct releaser).
 */
struct mapped_section {
	const struct dr_section *sec;
	bool mapped;
	uint64_t requested; /* the caller of dwarf_loader__release_cu's */
	uint64_t released; /* the releaser thread's */
};

enum { REL_INFO, REL_ABBREV, REL_LOC, REL_LOCLISTS, NR_REL };

/*
 * The pages are dropped on a thread of its own: an madvise() costs its
 * caller the unmapping and a TLB flush on every CPU the process runs on,
 * up to a quarter of the encoder's writer's CPU time if the writer made
 * the calls, and the writer is one of the encode phase's two serial stages
 * (Documentation/performance.md, "Tuning knobs"). dwarf_loader__release_cu
 * only moves the targets and wakes the thread; the pages go a little later.
 */
struct releaser {
	pthread_t thread;
	bool running; /* set before the thread runs, cleared after the join */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uint64_t to[NR_REL]; /* lock: drop each section's pages up to there */
	bool pending; /* lock: .to moved since the thread last took it */
	bool stop; /* lock */
};

struct dwarf_loader {
	const char *path;
	int fd;
	Elf *elf;
	const struct d2b_conf *conf;
	/* libelf's image of the whole file (elf_rawfile), and whether it is
	 * the file's own read-only mapping (its pages can be dropped) */
	const uint8_t *image;
	size_t image_size;
	bool image_mapped;
	bool relocatable; /* ET_REL */
	bool strs_canonical; /* ET_REL: its references into .debug_str made canonical */
	struct dr_sections secs;
	/* [i]: the malloc'd bytes dr_sections member i (loader__map_sections'
	 * order; [LOADER_NR_SECS] .debug_types) points at, to free, or NULL:
	 * a decompressed (ELFCOMPRESS_ZSTD) or relocated copy of the section */
	uint8_t *bufs[LOADER_NR_SECS + 1];
	/* [i]: member i is a private heap buffer (decompressed, by libelf or
	 * into bufs[i]), relocated in place, never a file mapping */
	bool sec_private[LOADER_NR_SECS];
	size_t sec_index[LOADER_NR_SECS]; /* ELF section index of each dr_sections member */
	/* sections released as the units that read them are done
	 * (dwarf_loader__release_cu, then the releaser thread) */
	struct mapped_section rel[NR_REL];
	struct releaser releaser;
	/* .debug_info is the file's bytes at info_file_off (the index reads
	 * unit headers with pread) */
	bool info_in_file;
	uint64_t info_file_off;
	struct dr_unit *units; /* read-only after __new */
	bool *cu_excluded;
	/* [id]: why the load of unit id failed, written by the worker that
	 * loaded it, read after the workers are joined (dwarf_loader__report) */
	char **load_errs;
	unsigned int nr_cus;
	/* cross-unit references: all units are read as one merged CU, id 0 */
	bool merged;
	/* .debug_types (DWARF 4 type units): its own section set and units */
	struct dr_sections types_secs;
	struct dr_unit *tunits;
	unsigned int nr_tunits;
	/* every type unit (.debug_info DW_UT_type and .debug_types), by signature */
	struct type_unit *sigs;
	unsigned int nr_sigs;
	/* the machine: its parameter registers and relocations */
	struct elf_machine machine;
	/* loaders between units, kept for their buffers (loader_take) */
	pthread_mutex_t idle_lock;
	struct cu_loader *idle; /* under idle_lock */
	/* the loaded units' blocks (cu_pack), or NULL: malloc's (locked inside) */
	struct unit_ring *ring;
};

struct type_unit {
	uint64_t signature;
	const struct dr_unit *unit;
	const struct dr_sections *secs;
	uint32_t key_bits; /* TU_KEY_INFO or TU_KEY_TYPES */
};

/*
 * Map keys (DIE offsets, see struct cu_loader) of type unit DIEs: the
 * offset in the unit's section with one of these bits. Units then stay
 * below 1 GiB, which dwarf_loader__new() checks when there are type units.
 */
#define TU_KEY_INFO 0x80000000u
#define TU_KEY_TYPES 0xc0000000u
#define TU_KEY_LIMIT 0x40000000u

/*
 * A scope's members, parameters or annotations are collected here while its
 * children (which may hold nested types with items of their own) are walked,
 * then appended to the unit's array in one piece, so every type's and
 * function's items are contiguous. Vectors come from the loader's stack
 * (vec__take) and keep their storage for the next scope.
 */
struct vec {
	void *data;
	uint32_t nr, cap; /* items, bytes */
};

struct map_slot;

/* a unit's first errors, each kept until dwarf_loader.c reports the unit's */
struct load_errors {
	uint64_t die; /* DIE the first error is about */
	unsigned int root_tag; /* -EPROTO: the unit's root DIE's tag */
	uint64_t ref_die; /* first DIE with a reference outside its unit */
	uint64_t attr_die; /* -ERANGE: first DIE with a value outside its section */
	uint16_t attr; /* and that value's attribute */
	uint64_t sig; /* first type signature with no type unit */
	bool oom; /* an allocation failed where no error could be returned */
	bool too_deep; /* DIEs nested over MAX_DIE_DEPTH, from die */
	bool chain_too_long; /* -ELOOP: a reference chain over MAX_REF_CHAIN, from die */
};

/* the type units a unit refers to (unit_walk.c) */
struct tu_refs {
	/* in order of first reference (sigs[] indexes; queued[i]: sigs[i] is
	 * in the queue), walked after the unit */
	uint32_t *queue, nr, cap, walked;
	uint8_t *queued;
	/* skeleton type DIEs (DW_AT_signature): key -> the type unit type's key */
	uint32_t *aliases, nr_aliases, cap_aliases;
};

/*
 * DIE key -> types[] index, open addressing (cu_tables.c); emptied for the
 * next unit through used[], the slots this one filled (a new table for
 * every unit cost a calloc and a rehash at each doubling)
 */
struct key_map {
	struct map_slot *slots;
	uint32_t *used; /* nr of them, room for cap / 2 */
	uint32_t cap, nr;
};

struct cu_loader {
	/* per unit: zeroed by loader_take() */
	struct dwarf_loader *dl;
	struct cu *cu; /* &work */
	struct dr_cu *dc; /* the unit being walked */
	struct dr_cu *dcs; /* one per unit when merged, else just one */
	uint8_t *dc_state; /* of dcs[]: 0 unset, 1 ready, 2 bad abbrevs, 3 bad unit DIE */
	uint64_t cu_start; /* .debug_info offset of the unit; 0 when merged */
	/* the first unit's DW_AT_producer names clang (pahole 1.32 reads DW_CC_nocall) */
	bool producer_clang, producer_read;
	uint32_t key_bits; /* TU_KEY_* while walking a type unit, else 0 */
	uint8_t addr_size;
	struct tu_refs tu;
	uint32_t nr_members, nr_enums, nr_params, nr_annots;
	struct load_errors err;
	int depth;
	struct dr_die tmp; /* scratch for attribute integration */

	/*
	 * Kept from unit to unit (see loader_take), so that a worker grows
	 * its buffers once, to its biggest unit, rather than for every unit:
	 * the CU being built, whose arrays cu_pack() copies out at their exact
	 * size; the child DIE of each depth (scope_enter); a stack of vectors
	 * (vec__take).
	 */
	struct cu work;
	uint32_t cap_types, cap_members, cap_enums, cap_params, cap_annots, cap_funcs, cap_vars;
	struct key_map map;
	struct dr_die *scope_dies[MAX_DIE_DEPTH + 1];
	struct dr_die *annot_dies; /* two, for walking gcc annotation chains (1.32) */
	struct vec **vecs;
	uint32_t nr_vecs, cap_vecs;
	struct cu_loader *next_idle; /* in dl->idle */
};

/* the map key of the DIE at @off in the unit being walked */
static inline uint32_t die_key(const struct cu_loader *l, uint64_t off)
{
	return (uint32_t)(off - l->cu_start) | l->key_bits;
}

static inline int vec_push(struct vec *v, const void *item, size_t sz)
{
	/* (in bytes: the next user of the vector may hold items of another size) */
	if (d2b_grow(&v->data, &v->cap, ((uint64_t)v->nr + 1) * sz, 1))
		return -ENOMEM;
	memcpy((char *)v->data + (size_t)v->nr * sz, item, sz);
	v->nr++;
	return 0;
}

/*
 * Iterate the children of @parent: for (ret = child_first(); ret > 0; ret =
 * child_next()). When the loop ends, @parent knows where its subtree ends.
 */
static inline int child_first(struct cu_loader *l, struct dr_die *parent, struct dr_die *child)
{
	return dr_die__child(l->dc, parent, child);
}

static inline int child_next(struct cu_loader *l, struct dr_die *parent, struct dr_die *child)
{
	int ret = dr_die__sibling(l->dc, child);

	if (ret == 0)
		parent->subtree_end = child->subtree_end;
	return ret;
}

#define for_each_child(l, parent, child, ret) \
	for (ret = child_first(l, parent, child); ret > 0; ret = child_next(l, parent, child))

/* loader_sections.c */
int loader__check_size(struct dwarf_loader *dl, GElf_Ehdr *eh);
/* dl->image, image_size and image_mapped, from dl->elf */
void loader__find_image(struct dwarf_loader *dl);
int loader__map_sections(struct dwarf_loader *dl, GElf_Ehdr *eh);
int loader__relocate(struct dwarf_loader *dl);
void section_map__init(const struct dwarf_loader *dl, struct mapped_section *ms,
		       const struct dr_section *sec);
int releaser__start(struct dwarf_loader *dl);
void releaser__stop(struct dwarf_loader *dl);

/* unit_index.c */
int type_unit__cmp(const void *a, const void *b);
int loader__index_units(struct dwarf_loader *dl);

/* unit_walk.c */
int unit__walk(struct cu_loader *l, unsigned int i, struct dr_die *cu_die);
int type_units__walk(struct cu_loader *l, struct dr_die *tu_die);

/* die_attrs.c */
uint32_t attr__sig_ref(struct cu_loader *l, struct dr_cu *acu, const struct dr_attr *a,
		       bool strict);
const struct dr_attr *attr__integrate(struct cu_loader *l, const struct dr_die *die, uint16_t at,
				      struct dr_cu **acu);
uint32_t attr__ref(struct cu_loader *l, const struct dr_die *die, uint16_t at);
uint64_t attr__udata(struct cu_loader *l, const struct dr_die *die, uint16_t at, uint64_t def);
/* (inline: the walk asks it of most DIEs; a call would cost 0.5% of xfs.ko's instructions) */
static inline bool attr__flag(const struct dr_die *die, uint16_t at)
{
	const struct dr_attr *a = dr_die__attr(die, at);

	return a && dr_attr__flag(a);
}

void attr__bad(struct cu_loader *l, const struct dr_die *die, uint16_t at);
const char *attr__name(struct cu_loader *l, const struct dr_die *die);

/* die_walk.c */
int cu__walk(struct cu_loader *l, struct dr_die *cu_die);

/* cu_tables.c */
int map__add(struct cu_loader *l, uint32_t key, uint32_t val);
uint32_t map__find(const struct cu_loader *l, uint32_t key);
void map__clear(struct cu_loader *l);
int vec__flush(struct vec *v, void *arr, uint32_t *cap, uint32_t *nr, size_t sz, uint32_t *first);
struct vec *vec__take(struct cu_loader *l);
uint32_t type__add_unnamed(struct cu_loader *l, uint64_t die_off, struct cu_type *t);
uint32_t type__add(struct cu_loader *l, uint64_t die_off, struct cu_type *t);

/* die_annotations.c */
int annot__add(struct cu_loader *l, const struct dr_die *die, int component, struct vec *annots);
bool annot__die_tag(const struct cu_loader *l, uint16_t tag);
int gnu_annots__of(struct cu_loader *l, const struct dr_die *die, int component,
		   struct vec *annots);
int annots__of(struct cu_loader *l, struct dr_die *die, int component, struct vec *annots);
int annots__flush(struct cu_loader *l, struct vec *annots, uint32_t *first, uint32_t *nr);
int die__process_pointer(struct cu_loader *l, struct dr_die *die, struct cu_type *t);

/* param_locations.c */
void param__analyze(struct cu_loader *l, const struct dr_die *die, int idx, struct cu_param *p);
void param__locate(struct cu_loader *l, const struct dr_die *die, int idx, struct cu_param *p);
bool func__signature_changed(struct cu_loader *l, const struct dr_die *die);
int params__analyze(struct cu_loader *l);

/* cu_resolve.c */
int cu__resolve(struct cu_loader *l);

#endif
