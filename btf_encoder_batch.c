// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_encoder_batch - the writer's batches. A batch is opened with a fresh
 * BTF and a copy of the array index type (enc__batch_start), collects its
 * CUs (enc__batch_add_cu) and the ids its functions and variables use
 * (enc__batch_use, btf_encoder_records.c), and is handed to btf_batches
 * (enc__batch_close), whose thread for it appends its CUs' records
 * (fill_run) before deduplicating it.
 *
 * What the writer did, the batch's thread does, in the same order: for each
 * CU, its types, the array index type "int" where the plan adds it, its type
 * decl tags, the names its saved functions use (which enter the string
 * section there: func_save, btf_funcs.c), its VARs. So the batch is the BTF
 * the writer would have built, byte for byte, its string section included,
 * and its names are interned with caches of its own, on its own thread. The
 * saved functions keep their names' numbers in the batch (enc__func_name);
 * the thread finds each one's string offset (.ext_offs), which the merge
 * maps to the merged BTF.
 *
 * Memory: a batch's CUs' records wait for its thread (the writer does not
 * wait for them), at most one batch being filled and max_running handed
 * over, as the batches' BTFs did.
 */
#include <errno.h>
#include <stdlib.h>

#include "btf_batches.h"
#include "btf_encoder_priv.h"
#include "btf_raw.h"
#include "cu.h"
#include "d2b_util.h"

/* what the writer built of each batch: an INT record (the array index type "int") */
#define INT_RECORD_LEN (sizeof(struct btf_type) + sizeof(uint32_t))

static void fill_free(struct batch_fill *fl)
{
	uint32_t i;

	if (!fl)
		return;
	for (i = 0; i < fl->nr_cus; i++)
		free(fl->cus[i].f);
	free(fl->cus);
	free(fl->ext);
	name_chunks__free(fl->chunks);
	free(fl->ext_offs);
	free(fl);
}

/* the names CU @c's saved functions use, interned into @to as the writer did */
static int fill_ext(struct batch_fill *fl, const struct name_sink *to, const struct batch_cu *c,
		    uint32_t *e)
{
	int off;

	for (; *e < c->ext_end; (*e)++) {
		off = names__intern(to, fl->ext[*e]);
		if (off < 0)
			return off;
		fl->ext_offs[*e] = (uint32_t)off;
	}
	return 0;
}

/* CU @c appended to to->raw as the writer appends a CU (write_cu) */
static int fill_cu(struct batch_fill *fl, const struct name_sink *to, const struct batch_cu *c,
		   uint32_t *e)
{
	int err, off;

	if (btf_raw__type_cnt(to->raw) != c->pl.first_new)
		return -EINVAL; /* the plan and the BTF disagree: a bug */
	err = cu_btf__append(to, c->f, CU_BTF_TYPES, &c->pl);
	if (!err && c->pl.add_index_int) {
		off = names__intern(to, "int");
		err = off < 0 ? off : btf_raw__add_int(to->raw, (uint32_t)off, 4, BTF_INT_SIGNED);
		err = err < 0 ? err : 0;
	}
	if (!err)
		err = cu_btf__append(to, c->f, CU_BTF_TAGS, &c->pl);
	if (!err)
		err = fill_ext(fl, to, c, e);
	if (!err)
		err = cu_btf__append(to, c->f, CU_BTF_VARS, &c->pl);
	return err;
}

/* on the batch's thread: its CUs appended to @raw; 0 or -errno */
static int fill_run(void *ctx, struct btf_raw *raw)
{
	struct batch_fill *fl = ctx;
	struct name_caches *nc = name_pool__take(fl->pool);
	struct name_sink to = { raw, nc, fl->lo, fl->hi };
	uint32_t i, e = 0;
	int err = 0;

	fl->ext_offs = malloc(((size_t)fl->nr_ext ?: 1) * sizeof(*fl->ext_offs));
	if (!nc || !fl->ext_offs || btf_raw__reserve(raw, &fl->room))
		err = -ENOMEM;
	for (i = 0; i < fl->nr_cus && !err; i++) {
		err = fill_cu(fl, &to, &fl->cus[i], &e);
		free(fl->cus[i].f);
		fl->cus[i].f = NULL;
	}
	if (nc)
		name_pool__put(fl->pool, nc);
	/* (what the merge needs is .ext_offs) */
	free(fl->ext);
	fl->ext = NULL;
	name_chunks__free(fl->chunks);
	fl->chunks = NULL;
	return err;
}

/* A new batch: a fresh BTF, its own string offsets, the array index type. */
int enc__batch_start(struct btf_encoder *enc)
{
	int id;

	enc->raw = btf_raw__new(NULL);
	enc->fill = calloc(1, sizeof(*enc->fill));
	if (!enc->raw || !enc->fill)
		return -ENOMEM;
	enc->fill->lo = enc->str_lo;
	enc->fill->hi = enc->str_hi;
	enc->fill->pool = enc->name_pool;
	enc->fill->run = (struct btf_batch_fill){ fill_run, enc->fill };
	if (enc->index_type) {
		id = btf_raw__add_int_copy(enc->raw, enc->index_type, 1);
		if (id < 0)
			return id;
		enc->nr_types_encoded--; /* the copy is not part of the stream */
	}
	btf_raw__room(enc->raw, &enc->fill->room);
	enc->batch_end = btf_raw__type_cnt(enc->raw);
	return 0;
}

/* Later batches get a copy of the array index type: no batch refers to another. */
int enc__batch_keep_index_type(struct btf_encoder *enc, const struct cu_btf *f,
			       const struct cu_plan *p)
{
	int id, off;

	if (!enc->batches)
		return 0;
	enc->index_type = btf_raw__new(NULL);
	if (!enc->index_type)
		return -ENOMEM;
	if (p->add_index_int) {
		off = btf_raw__add_str(enc->index_type, "int");
		id = off < 0 ? off
			     : btf_raw__add_int(enc->index_type, (uint32_t)off, 4, BTF_INT_SIGNED);
	} else {
		id = cu_btf__copy_type(enc->index_type, f, p->cu->int_type);
	}
	return id < 0 ? id : 0;
}

int enc__batch_add_cu(struct btf_encoder *enc, const struct cu_plan *p,
		      const struct cu_btf_place *pl)
{
	struct batch_fill *fl = enc->fill;
	struct cu_btf *f = p->cu->btf;

	if (d2b_grow(&fl->cus, &fl->cap_cus, (uint64_t)fl->nr_cus + 1, sizeof(*fl->cus)))
		return -ENOMEM;
	fl->cus[fl->nr_cus++] = (struct batch_cu){ f, *pl, fl->nr_ext };
	p->cu->btf = NULL; /* the batch's now */
	fl->room.types_len += cu_btf__len(f) + (pl->add_index_int ? INT_RECORD_LEN : 0);
	fl->room.nr_types = p->end - 1;
	enc->batch_end = p->end;
	return 0;
}

/* the open batch's fill, numbered as the batch it goes with */
static int fill_keep(struct btf_encoder *enc)
{
	if (d2b_grow(&enc->fills, &enc->cap_fills, (uint64_t)enc->nr_fills + 1,
		     sizeof(*enc->fills)))
		return -ENOMEM;
	enc->fills[enc->nr_fills++] = enc->fill;
	enc->fill = NULL;
	return 0;
}

/* Hand the batch over for its dedup. */
int enc__batch_close(struct btf_encoder *enc)
{
	const struct btf_batch_fill *run = &enc->fill->run;
	int k, err;

	err = fill_keep(enc);
	if (err)
		return err;
	enc->nr_types_encoded += enc->batch_end - 1;
	k = btf_batches__add(enc->batches, enc->raw, run, enc->batch_ids, enc->nr_batch_ids);
	enc->raw = NULL;
	enc->batch_ids = NULL;
	enc->nr_batch_ids = enc->cap_batch_ids = 0;
	if (k < 0)
		return k;
	enc->nr_batches++;
	return 0;
}

int enc__batch_last(struct btf_encoder *enc, const struct btf_batch_fill **run)
{
	*run = NULL;
	if (!enc->raw)
		return 0;
	*run = &enc->fill->run;
	enc->nr_types_encoded += enc->batch_end - 1;
	return fill_keep(enc);
}

void enc__batch_fills_free(struct btf_encoder *enc)
{
	uint32_t k;

	for (k = 0; k < enc->nr_fills; k++)
		fill_free(enc->fills[k]);
	free(enc->fills);
	enc->fills = NULL;
	enc->nr_fills = enc->cap_fills = 0;
	fill_free(enc->fill);
	enc->fill = NULL;
}
