/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * type_dups - a CU's types that repeat, exactly, a type already encoded in
 * the same BTF, so that the encoder can refer to that one instead of adding
 * a copy for btf__dedup to remove. Design and the argument that the output
 * stays the same: type_dups.c.
 *
 * Per CU, on its loader's worker: type_dups__describe_cu(). Then, on the
 * collector: type_dups__find() before its types are encoded,
 * type_dups__add() after; type_dups__clear() when a new BTF (batch) starts.
 */
#ifndef TYPE_DUPS_H
#define TYPE_DUPS_H

#include <stdint.h>

struct cu;
struct type_dups;

struct type_dups *type_dups__new(void);
void type_dups__free(struct type_dups *td);

/*
 * On the worker that loaded @cu: describe its components into
 * cu->scc_descs (freed with the unit). Names inside [@str_lo, @str_hi)
 * (.debug_str) are the same string if the same address. 0 or -ENOMEM.
 */
int type_dups__describe_cu(struct cu *cu, const char *str_lo, const char *str_hi);

/* a new BTF: no type is known */
void type_dups__clear(struct type_dups *td);

/*
 * For each type i of @cu (1 <= i < nr_types): @ids[i] := the id of a known
 * type it repeats exactly, or 0 if it must be encoded. @index_id: the BTF's
 * array index type, 0 if it has none yet (then no type is found). Returns 0
 * or -ENOMEM; the types that repeat nothing keep ids[i] == 0.
 */
int type_dups__find(struct type_dups *td, const struct cu *cu, uint32_t index_id, uint32_t *ids);

/*
 * @cu's types now have the ids @ids[] (the found ones, and the encoded ones
 * from @first_new on): remember the encoded ones for the CUs after it. Call
 * after type_dups__find() on the same @cu and @index_id. 0 or -ENOMEM.
 */
int type_dups__add(struct type_dups *td, const struct cu *cu, uint32_t index_id,
		   const uint32_t *ids, uint32_t first_new);

#endif /* TYPE_DUPS_H */
