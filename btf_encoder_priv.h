/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_encoder's private interface: the structs its files share and the
 * functions one of them calls in another. Its layers, each calling only
 * those below it:
 *   btf_encoder_single.c  the encoder: the stream, the writer, the end;
 *                         btf_encoder_merge.c: the batches' merge
 *   btf_encoder_batch.c   the writer's batches, filled on their threads
 *   btf_encoder_cu.c      a CU's type records, built on its loader worker,
 *                         appended where the plan puts them
 *   btf_funcs.c           the functions (saved as CUs are written, emitted
 *                         at the end); btf_encoder_vars.c: the variables
 *                         and DATASECs
 *   btf_encoder_records.c the BTF records are added to and read back from
 *                         (merged, batch, base); what a batch's functions keep
 *   btf_encoder_names.c   the name caches
 * The public API is btf_encoder_single.h.
 * Everything here is the collector's or its writer's, as marked on each
 * field, but the builders' and the name caches' pools, each with a lock,
 * and a struct batch_fill, which goes to its batch's thread.
 */
#ifndef BTF_ENCODER_PRIV_H
#define BTF_ENCODER_PRIV_H

#include <bpf/btf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "btf_batches.h"
#include "btf_dedup.h"
#include "btf_encoder_single.h"
#include "btf_raw.h"
#include "d2b_util.h"
#include "packed_structs.h"
#include "tuning.h"

struct btf_base;
struct d2b_conf;
struct cu;
struct cu_btf;
struct cu_var;
struct elf_function;

/*
 * A saved function keeps string offsets, not the DWARF's string pointers:
 * its names were added when it was saved, and .debug_info (where short names
 * live) has been released from memory by the time functions are emitted.
 */
struct saved_param {
	uint32_t name_off; /* 0: no name (vararg) */
	uint32_t type;
};

struct saved_annot {
	uint32_t value_off;
	int32_t component_idx;
};

struct func_state {
	struct elf_function *elf;
	uint32_t batch; /* types and string offsets are the batch's until merged */
	uint32_t ret_type;
	uint32_t first_param, nr_params; /* into enc->params */
	uint32_t first_annot, nr_annots; /* into enc->annots */
	uint64_t addr; /* its DW_AT_low_pc */
	bool unexpected_reg;
	bool optimized_parms, reordered_parm, signature_changed; /* pahole 1.32 */
	bool uncertain_loc; /* pahole 1.32: a packed struct on the stack (packed_structs.c) */
};

/* a FUNC_PROTO that emit_func added: the function that has it, its id */
struct proto_slot {
	uint32_t hash; /* 0: free; the slot from its upper 31 bits */
	uint32_t func; /* into enc->funcs */
	int id;
};

/* funcs__emit's FUNC_PROTOs by content (func_proto): at most 3/4 full */
struct proto_table {
	struct proto_slot *slots;
	uint32_t cap, nr; /* cap: 0 or a power of two */
};

struct secinfo {
	uint32_t type;
	uint32_t offset;
	uint32_t size;
	uint32_t batch;
};

struct sec_vars {
	struct secinfo *recs;
	uint32_t nr, cap;
};

/*
 * Values by key: an address inside .debug_str (read-only while we run, so
 * an address always names the same string), or a short name's bytes; open
 * addressing, Fibonacci hashed. The writer's names' BTF string offsets
 * (btf_encoder_names.c).
 */
struct addr_slot {
	const void *key; /* NULL: free */
	uintptr_t val;
};

struct addr_cache {
	struct addr_slot *slots;
	uint32_t cap, nr; /* cap: 0 or a power of two */
};

/* a BTF's names' string offsets: by .debug_str address, and by content */
struct name_caches {
	struct d2b_idle link; /* in the batches' pool, idle (name_pool__take) */
	struct addr_cache strs; /* BTF string offset of a name in .debug_str */
	struct addr_cache short_strs; /* the same, for names of 1-7 bytes, by content */
};

/* a struct cu_btf's records: the types, their decl tags, the VARs (with theirs) */
enum cu_btf_part { CU_BTF_TYPES, CU_BTF_TAGS, CU_BTF_VARS, CU_BTF_PARTS };

/* where the plan puts a CU's records */
struct cu_btf_place {
	uint32_t first_new; /* the id of its type 1 */
	uint32_t array_index_id;
	uint32_t add_index_int; /* 1: "int" comes between the types and the rest */
};

/* a CU of a batch, for the batch's thread to append (btf_encoder_batch.c) */
struct batch_cu {
	struct cu_btf *f;
	struct cu_btf_place pl;
	uint32_t ext_end; /* the names its saved functions use end here in .ext */
};

struct name_chunk;

/*
 * A batch's CUs and the names its saved functions use, which its thread
 * appends and interns (btf_encoder_batch.c). The writer's until the batch
 * is handed over, its thread's then (which fills .ext_offs and lets the
 * rest go), the collector's once the batch is merged.
 */
struct batch_fill {
	const char *lo, *hi; /* .debug_str, for the names' caches */
	struct d2b_idle_pool *pool; /* the encoder's name caches (name_pool__take) */
	struct batch_cu *cus;
	uint32_t nr_cus, cap_cus;
	const char **ext; /* in the order the functions were saved */
	uint32_t nr_ext, cap_ext;
	struct name_chunk *chunks; /* copies of .ext's names outside .debug_str */
	uint32_t *ext_offs; /* [i]: .ext[i]'s string offset in the batch */
	struct btf_raw_room room; /* what the batch's BTF will hold */
	struct btf_batch_fill run; /* for btf_batches: the batch thread's work on this */
};

/*
 * One CU as the collector planned it, for the writer: the ids of its types
 * and what else the writer adds.
 */
struct cu_plan {
	struct cu *cu;
	uint32_t *ids; /* [i]: BTF id of the CU's type i (0: void) */
	uint32_t cap_ids;
	uint32_t first_new; /* the first id the CU adds */
	uint32_t end; /* btf__type_cnt() once the CU is written */
	uint32_t array_index_id;
	int err; /* planning failed: report it in order and stop */
	bool excluded; /* nothing to write */
	bool start_batch; /* the CU starts a new batch */
	bool add_index_int; /* the CU adds the array index type "int" */
	bool index_type_new; /* the CU gives the BTF its array index type */
	bool close_batch; /* the batch is full after the CU */
};

/* the collector's view of the BTF being filled: ids it will have */
struct planner {
	bool batch_open; /* a batch is being filled (always, without batches) */
	bool has_index_type; /* the BTF has the array index type */
	bool have_index_copy; /* later batches start with a copy of it */
	uint32_t array_index_id;
	uint32_t next_id; /* btf__type_cnt() once the CUs planned so far are written */
};

/*
 * The writer thread and the ring of plans between it and the collector:
 * the collector fills slots[(head + nr) % WRITER_SLOTS], the writer
 * empties slots[head]; a slot's contents belong to whichever side holds it.
 */
struct writer {
	pthread_t thread;
	bool running; /* collector only */
	void (*done)(void *ctx, struct cu *cu); /* the writer is done with a CU */
	void *done_ctx;
	pthread_mutex_t lock;
	pthread_cond_t changed; /* a slot filled or emptied, or the end */
	struct cu_plan slots[WRITER_SLOTS];
	unsigned int head, nr; /* lock */
	bool end; /* lock: no more plans */
	int err; /* lock: the writer's first error */
};

struct btf_encoder {
	const struct d2b_conf *conf;
	struct elf_symtab *es;
	const char *path;
	struct btf_base *base; /* split BTF: the base; NULL otherwise */
	/* the merged BTF (or the one BTF), once the writer is done; NULL where it stays raw */
	struct btf *btf;
	struct btf_batches *batches; /* NULL: one BTF (split BTF) */
	uint32_t nr_batches; /* handed over */
	uint32_t *batch_ids; /* the batch's ids that functions and DATASECs use */
	uint32_t nr_batch_ids, cap_batch_ids;
	struct btf_raw *index_type; /* a copy of the array index type, for new batches */
	struct batch_fill **fills; /* every batch's handed over, by number */
	uint32_t nr_fills, cap_fills;
	uint32_t nr_types_encoded; /* over all batches, less their copies */
	const char *str_lo, *str_hi; /* .debug_str, for the caches; or NULL */
	struct d2b_idle_pool *cu_btf_pool; /* the workers' builders (its own lock) */
	struct d2b_idle_pool *name_pool; /* the batches' threads' caches (its own lock) */
	struct name_caches names; /* the writer's, for its own BTF (enc__str) */
	struct planner plan; /* collector */
	struct writer w;
	/* the writer's, from here on */
	/* the batch being filled, or the one BTF (the merged one where btf is NULL); NULL between batches */
	struct btf_raw *raw;
	struct batch_fill *fill; /* the batch's CUs, for its thread */
	uint32_t batch_end; /* the batch's type count once its thread appended them */
	const uint32_t *ids; /* the plan's ids of the CU being written */
	uint32_t array_index_id; /* and its array index type */

	struct func_state *funcs;
	uint32_t nr_funcs, cap_funcs;
	struct saved_param *params;
	uint32_t nr_params, cap_params;
	struct saved_annot *annots;
	uint32_t nr_annots, cap_annots;

	struct sec_vars *secs; /* per ELF section index */
	struct packed_memo packed; /* the writer's: the CU's structs inferred packed or not */
	struct btf_encoder_stats stats;
};

/* ---- btf_encoder_names.c: the names ------------------------------------ */

/* @s lies in [@lo, @hi), the .debug_str whose strings stay put while the encoder runs */
static inline bool names__in_section(const char *lo, const char *hi, const char *s)
{
	return s >= lo && s < hi;
}

/* where names are interned: a BTF, its caches, and the .debug_str they key by address */
struct name_sink {
	struct btf_raw *raw;
	struct name_caches *nc;
	const char *lo, *hi;
};

/* the BTF string offset of @s in to->raw (0 for no name), adding it if new; or -errno */
int names__intern(const struct name_sink *to, const char *s);
/* start loading @s's cache slot, ahead of its names__intern */
void names__prefetch(const struct name_sink *to, const char *s);
/* names__intern into the writer's own BTF (enc->raw), with its caches */
int enc__str(struct btf_encoder *enc, const char *s);
/* the cached names forgotten */
void name_caches__clear(struct name_caches *nc);
/* ... and their memory given back */
void name_caches__free(struct name_caches *nc);
/* caches for the batches' threads in a pool (d2b_idle_pool__new), taken cleared and put back */
void name_pool__free(struct d2b_idle_pool *pool);
/* NULL: no memory */
struct name_caches *name_pool__take(struct d2b_idle_pool *pool);
void name_pool__put(struct d2b_idle_pool *pool, struct name_caches *nc);

/*
 * The writer's adds: the name interned first (enc__str, as libbpf interned it
 * before adding the type), then the type, named by offset.
 */
#define add_named(enc, add, name, ...)                                               \
	({                                                                           \
		int __off = enc__str(enc, name);                                     \
		__off < 0 ? __off : add((enc)->raw, (uint32_t)__off, ##__VA_ARGS__); \
	})

/* ---- btf_encoder_cu.c: a CU's records ---------------------------------- */

/* the builders' pool (d2b_idle_pool__new) gone, with its builders */
void cu_btf_pool__free(struct d2b_idle_pool *pool);
/* part @part of @f appended to to->raw, named into it and placed by @pl */
int cu_btf__append(const struct name_sink *to, const struct cu_btf *f, enum cu_btf_part part,
		   const struct cu_btf_place *pl);
/* a copy of @f's INT type @id, with its name, appended to @dst; its id or -errno */
int cu_btf__copy_type(struct btf_raw *dst, const struct cu_btf *f, uint32_t id);
/* the bytes of @f's records */
uint32_t cu_btf__len(const struct cu_btf *f);
/* how many records @f has after its types */
uint32_t cu_btf__nr_after_types(const struct cu_btf *f);
/* its VARs: how many, and VAR @i's section, id as placed by @pl, offset and size */
uint32_t cu_btf__nr_vars(const struct cu_btf *f);
void cu_btf__var(const struct cu_btf *f, uint32_t i, const struct cu_btf_place *pl, int *shndx,
		 uint32_t *id, uint32_t *offset, uint32_t *size);

/* ---- btf_encoder_batch.c: the writer's batches ------------------------- */

/* a new batch (a fresh BTF, the array index type); 0 or -errno */
int enc__batch_start(struct btf_encoder *enc);
/*
 * the array index type, which @f of the CU planned as @p gives the BTF,
 * kept for the later batches; 0 or -errno
 */
int enc__batch_keep_index_type(struct btf_encoder *enc, const struct cu_btf *f,
			       const struct cu_plan *p);
/* the CU planned as @p, its functions saved, left to the batch's thread; 0 or -errno */
int enc__batch_add_cu(struct btf_encoder *enc, const struct cu_plan *p,
		      const struct cu_btf_place *pl);
/* the batch handed over for its dedup; 0 or -errno */
int enc__batch_close(struct btf_encoder *enc);
/* the last batch, if one is open (enc->raw), for btf_batches__finish: *@run its fill, or NULL */
int enc__batch_last(struct btf_encoder *enc, const struct btf_batch_fill **run);
/* every batch's fill gone */
void enc__batch_fills_free(struct btf_encoder *enc);

/* ---- btf_encoder_records.c: the BTF the encoder builds ------------------ */

/* the dedup the BTF gets: split or not, and the release reproduced */
enum btf_dedup_libbpf enc__dedup_release(const struct d2b_conf *conf, bool split);
/* the final dedup is btf_dedup's, not libbpf's (--exact) */
bool enc__own_dedup(const struct btf_encoder *enc);

/* type @id of the merged BTF; a base type is read from the base itself */
const struct btf_type *enc__type(const struct btf_encoder *enc, uint32_t id);
/* the merged BTF's type @id, to be changed: one added after the merge */
struct btf_type *enc__type_mut(struct btf_encoder *enc, uint32_t id);
/* the string at @off of the merged BTF; a base string is read from the base */
const char *enc__str_at(const struct btf_encoder *enc, uint32_t off);
/* the id the merged BTF's next type gets */
uint32_t enc__type_cnt(const struct btf_encoder *enc);
/* name @s's offset in the merged BTF, as btf__add_str gives it; or -errno */
int enc__tail_str(struct btf_encoder *enc, const char *s);
/* record @t (and @extra bytes after it) appended to the merged BTF: its id, or -errno */
int enc__add_record(struct btf_encoder *enc, const struct btf_type *t, size_t extra);
/* a parameter of the last FUNC_PROTO @proto, named by offset @off */
int enc__add_func_param_off(struct btf_encoder *enc, int proto, uint32_t off, uint32_t type);
/* a secinfo of the DATASEC just added to the merged BTF */
int enc__add_datasec_var_info(struct btf_encoder *enc, uint32_t type, uint32_t offset,
			      uint32_t size);

/* type @id of the batch is used by a function or DATASEC: keep track of it */
int enc__batch_use(struct btf_encoder *enc, uint32_t id);
/*
 * The writer: what a saved function keeps for name @s: its string offset in
 * the one BTF; in a batch, its number among the names the batch's functions
 * use (from 1; 0 for no name), whose offsets the batch's thread finds
 * (struct batch_fill). Or -errno.
 */
int enc__func_name(struct btf_encoder *enc, const char *s);
/* the copies enc__func_name made */
void name_chunks__free(struct name_chunk *c);

/* ---- btf_encoder_vars.c ------------------------------------------------ */

/*
 * 1 if @v becomes a VAR (in section *@shndx at *@offset), 0 if not, -EINVAL
 * if it is invalid (reported if @report)
 */
int var__encodable(const struct btf_encoder *enc, const struct cu *cu, const struct cu_var *v,
		   bool report, int *shndx, uint64_t *offset);
/* the writer: VAR @type recorded with its section, for its DATASEC; 0 or -errno */
int vars__add_secinfo(struct btf_encoder *enc, int shndx, uint32_t type, uint32_t offset,
		      uint32_t size);
/* the end: one DATASEC per section with VARs; 0 or -errno */
int datasecs__emit(struct btf_encoder *enc);

/* ---- btf_funcs.c ------------------------------------------------------- */

/* the worker: each function's ELF function (struct cu_func's elf, by_prefix) */
void funcs__match(const struct btf_encoder *enc, struct cu *cu);
/* the worker: -E2BIG (reported) if a function to save has more parameters than BTF counts */
int funcs__check(const struct btf_encoder *enc, const struct cu *cu);
/* the writer: save @cu's functions (func_save); 0 or -errno */
int funcs__save(struct btf_encoder *enc, const struct cu *cu);
/* the saved functions by ELF function, stably; 0 or -errno */
int funcs__sort(struct btf_encoder *enc);
/* the saved functions, sorted and mapped to the merged BTF, as FUNCs; 0 or -errno */
int funcs__emit(struct btf_encoder *enc);

#endif /* BTF_ENCODER_PRIV_H */
