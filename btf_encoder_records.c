// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_encoder_records - the BTF the encoder appends to, and reads back:
 * the writer's batch (a btf_raw of its own), the merged BTF (a btf_raw to
 * the end, or under --exact, where libbpf deduplicates, libbpf's btf), and
 * the base of split BTF, whose types and strings are read from the base
 * itself. The stream's types (btf_encoder_single.c), the functions
 * (btf_funcs.c) and the merge (btf_encoder_merge.c) all add their records
 * through these helpers, which call nothing of theirs: they are the
 * encoder's lowest layer.
 *
 * The writer's batches (btf_encoder_batch.c) record here the ids their
 * functions and variables use (enc__batch_use) and the names their saved
 * functions keep (enc__func_name). Which dedup the BTF gets, btf_dedup's
 * or libbpf's, is enc__dedup_release's and enc__own_dedup's.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf_base.h"
#include "btf_batches.h"
#include "btf_dedup.h"
#include "btf_encoder_priv.h"
#include "btf_raw.h"
#include "d2b_conf.h"
#include "d2b_util.h"

/*
 * The BTF is deduplicated by btf_dedup, reproducing libbpf's btf__dedup:
 * split BTF as the libbpf the pahole release reproduced is built with does,
 * BTF that is not split as libbpf 1.1 does (its batches too).
 */
enum btf_dedup_libbpf enc__dedup_release(const struct d2b_conf *conf, bool split)
{
	return split && conf->pahole >= 132 ? BTF_DEDUP_LIBBPF_1_7_0 : BTF_DEDUP_LIBBPF_1_1;
}

/*
 * Under --exact the dedup is libbpf's own btf__dedup (the path btf_dedup must
 * equal), and libbpf builds the BTF; except where libbpf 1.7.0's decisions are
 * reproduced, which only btf_dedup makes.
 */
bool enc__own_dedup(const struct btf_encoder *enc)
{
	return !enc->conf->exact ||
	       enc__dedup_release(enc->conf, enc->base) == BTF_DEDUP_LIBBPF_1_7_0;
}

/* ---------------------------------------------------------------------- */
/* the merged BTF                                                         */

/* type @id of the merged BTF; a base type is read from the base itself */
const struct btf_type *enc__type(const struct btf_encoder *enc, uint32_t id)
{
	if (enc->base && id < btf_base__type_cnt(enc->base))
		return btf_base__type(enc->base, id);
	return enc->btf ? btf__type_by_id(enc->btf, id) : btf_raw__type(enc->raw, id);
}

/* the merged BTF's type @id, to be changed: one added after the merge */
struct btf_type *enc__type_mut(struct btf_encoder *enc, uint32_t id)
{
	return enc->btf ? (struct btf_type *)btf__type_by_id(enc->btf, id)
			: btf_raw__type(enc->raw, id);
}

/* the string at @off of the merged BTF; a base string is read from the base */
const char *enc__str_at(const struct btf_encoder *enc, uint32_t off)
{
	if (enc->base && off < btf_base__str_len(enc->base))
		return btf_base__str(enc->base, off);
	return enc->btf ? btf__str_by_offset(enc->btf, off) : btf_raw__str(enc->raw, off);
}

/* the id the merged BTF's next type gets */
uint32_t enc__type_cnt(const struct btf_encoder *enc)
{
	return enc->btf ? btf__type_cnt(enc->btf) : btf_raw__type_cnt(enc->raw);
}

/*
 * The offset of name @s in the merged BTF, as btf__add_str gives it: the
 * base's copy (looked up in btf_base, not by libbpf: see btf_base.c), or
 * the merged BTF's, added if new. Or -errno.
 */
int enc__tail_str(struct btf_encoder *enc, const char *s)
{
	int off;

	if (!enc->btf)
		return btf_raw__add_str(enc->raw, s);
	off = enc->base ? btf_base__find_str(enc->base, s) : -ENOENT;
	return off >= 0 ? off : btf__add_str(enc->btf, s);
}

/*
 * Type record @t (its header and the @extra bytes that follow it, its name
 * an offset) appended to the merged BTF: the record the btf__add_* call of
 * its kind writes, without libbpf looking the name up (btf__add_type of the
 * record unnamed, then named). Its id, or -errno.
 */
int enc__add_record(struct btf_encoder *enc, const struct btf_type *t, size_t extra)
{
	struct {
		struct btf_type t;
		uint32_t extra;
	} rec = { *t, 0 };
	int id;

	if (!enc->btf)
		return btf_raw__add_record(enc->raw, t, (uint32_t)(sizeof(*t) + extra));
	if (extra)
		memcpy(&rec.extra, t + 1, sizeof(rec.extra));
	rec.t.name_off = 0;
	id = btf__add_type(enc->btf, enc->btf, &rec.t);
	if (id > 0)
		enc__type_mut(enc, (uint32_t)id)->name_off = t->name_off;
	return id;
}

/* a parameter of the last FUNC_PROTO @proto, named by offset @off */
int enc__add_func_param_off(struct btf_encoder *enc, int proto, uint32_t off, uint32_t type)
{
	struct btf_type *t;
	int err;

	if (!enc->btf)
		return btf_raw__add_func_param(enc->raw, off, type);
	err = btf__add_func_param(enc->btf, NULL, type);
	if (err)
		return err;
	t = enc__type_mut(enc, (uint32_t)proto);
	btf_params(t)[btf_vlen(t) - 1].name_off = off;
	return 0;
}

/* a secinfo of the DATASEC just added to the merged BTF */
int enc__add_datasec_var_info(struct btf_encoder *enc, uint32_t type, uint32_t offset,
			      uint32_t size)
{
	if (!enc->btf)
		return btf_raw__add_datasec_var_info(enc->raw, type, offset, size);
	return btf__add_datasec_var_info(enc->btf, (int)type, offset, size);
}

/* ---------------------------------------------------------------------- */
/* the writer's batches                                                   */

/* Type @id of the batch is used by a function or DATASEC: keep track of it. */
int enc__batch_use(struct btf_encoder *enc, uint32_t id)
{
	if (!enc->batches || !id)
		return 0;
	if (d2b_grow(&enc->batch_ids, &enc->cap_batch_ids, (uint64_t)enc->nr_batch_ids + 1,
		     sizeof(*enc->batch_ids)))
		return -ENOMEM;
	enc->batch_ids[enc->nr_batch_ids++] = id;
	return 0;
}

/*
 * Copies of names, in chunks that stay where they are: a name keeps its
 * address while more are copied.
 */
struct name_chunk {
	struct name_chunk *next;
	size_t used, cap;
	char data[];
};

#define NAME_CHUNK_BYTES (64 * 1024 - sizeof(struct name_chunk))

static const char *name_copy(struct name_chunk **chunks, const char *s)
{
	size_t n = strlen(s) + 1;
	struct name_chunk *c = *chunks;

	if (!c || c->cap - c->used < n) {
		size_t cap = n > NAME_CHUNK_BYTES ? n : NAME_CHUNK_BYTES;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		*c = (struct name_chunk){ *chunks, 0, cap };
		*chunks = c;
	}
	memcpy(c->data + c->used, s, n);
	c->used += n;
	return c->data + c->used - n;
}

void name_chunks__free(struct name_chunk *c)
{
	while (c) {
		struct name_chunk *next = c->next;

		free(c);
		c = next;
	}
}

/*
 * A batch's names are interned on its thread, after the CU is gone: one
 * outside .debug_str is copied now, while the DWARF it is in is at hand.
 */
int enc__func_name(struct btf_encoder *enc, const char *s)
{
	struct batch_fill *fl = enc->fill;

	if (!enc->batches)
		return enc__str(enc, s);
	if (!s || !*s)
		return 0;
	if (!names__in_section(fl->lo, fl->hi, s) && !(s = name_copy(&fl->chunks, s)))
		return -ENOMEM;
	if (d2b_grow(&fl->ext, &fl->cap_ext, (uint64_t)fl->nr_ext + 1, sizeof(*fl->ext)))
		return -ENOMEM;
	fl->ext[fl->nr_ext++] = s;
	return (int)fl->nr_ext;
}
