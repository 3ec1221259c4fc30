// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_encoder_merge - the end of the batches (btf_batches.c deduplicates
 * each on a thread of its own and appends it to the merged BTF). While the
 * writer runs, a batch is opened with a fresh BTF, given a copy of the
 * array index type, and handed over once it holds BTF_BATCH_TYPES types or
 * more at a CU boundary (enc__batch_start, enc__batch_close, both called
 * by write_cu, btf_encoder_records.c); the ids a batch's functions and
 * variables will need are recorded with it (enc__batch_use).
 *
 * At the end, btf_encoder__merge hands over the last batch, and while the
 * last dedups run it sorts the saved functions and variables (neither order
 * depends on type ids) and maps each batch's saved functions to the merged
 * BTF's ids and string offsets as soon as that batch is merged; then the
 * variables. Without batches (split BTF, --exact) it only sorts, and where
 * libbpf deduplicates (--exact, enc__own_dedup) makes the BTF libbpf's.
 *
 * The merged BTF is a btf_raw (enc->raw) to the end, or under --exact, where
 * libbpf deduplicates, libbpf's (enc->btf): the functions and DATASECs are
 * added to whichever it is, and read back from it, by the enc__ helpers of
 * btf_encoder_records.c; a base type or string is read from the base.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf_base.h"
#include "btf_batches.h"
#include "btf_encoder_priv.h"
#include "btf_encoder_single.h"
#include "btf_raw.h"
#include "d2b_util.h"
#include "elf_symtab.h"
#include "msort.h"

/* ---------------------------------------------------------------------- */
/* the merge                                                              */

/* @id, a type of batch @k, in the merged BTF */
static int merged_type(const struct btf_encoder *enc, uint32_t k, uint32_t *id)
{
	uint32_t merged = btf_batches__type_id(enc->batches, k, *id);

	if (*id && !merged)
		return -EINVAL; /* not handed over with the batch: a bug */
	*id = merged;
	return 0;
}

/* @off, a string offset of batch @k, in the merged BTF */
static int merged_str(const struct btf_encoder *enc, uint32_t k, uint32_t *off)
{
	uint32_t merged = btf_batches__str_off(enc->batches, k, *off);

	if (*off && !merged)
		return -EINVAL;
	*off = merged;
	return 0;
}

/*
 * @n, the number of a name batch @k's saved functions use (enc__func_name),
 * as its string offset in the merged BTF
 */
static int merged_name(const struct btf_encoder *enc, uint32_t k, uint32_t *n)
{
	const struct batch_fill *fl = enc->fills[k];

	if (*n > fl->nr_ext)
		return -EINVAL;
	*n = *n ? fl->ext_offs[*n - 1] : 0;
	return merged_str(enc, k, n);
}

static int merged_func(struct btf_encoder *enc, struct func_state *st)
{
	uint32_t j;
	int err = merged_type(enc, st->batch, &st->ret_type);

	for (j = 0; j < st->nr_params && !err; j++) {
		struct saved_param *p = &enc->params[st->first_param + j];

		err = merged_type(enc, st->batch, &p->type)
			      ?: merged_name(enc, st->batch, &p->name_off);
	}
	for (j = 0; j < st->nr_annots && !err; j++)
		err = merged_name(enc, st->batch, &enc->annots[st->first_annot + j].value_off);
	return err;
}

/*
 * The saved functions by batch, to map each batch's to the merged BTF as
 * soon as it is merged: batch k's are enc->funcs[idx[i]] for i from
 * end[k - 1] (0 for k = 0) to end[k]; .i is the next to map.
 */
struct funcs_by_batch {
	uint32_t *idx, *end;
	uint32_t i;
};

/* a counting sort: the functions are in ELF order by now, not in CU order */
static int funcs_by_batch__new(const struct btf_encoder *enc, uint32_t nr_batches,
			       struct funcs_by_batch *fb)
{
	uint32_t *start, i;

	*fb = (struct funcs_by_batch){ 0 };
	start = calloc((size_t)nr_batches + 1, sizeof(*start));
	fb->idx = malloc(((size_t)enc->nr_funcs ?: 1) * sizeof(*fb->idx));
	if (!start || !fb->idx) {
		free(start);
		free(fb->idx);
		fb->idx = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < enc->nr_funcs; i++)
		start[enc->funcs[i].batch + 1]++;
	for (i = 0; i < nr_batches; i++)
		start[i + 1] += start[i];
	for (i = 0; i < enc->nr_funcs; i++)
		fb->idx[start[enc->funcs[i].batch]++] = i;
	fb->end = start; /* each start moved on to its batch's end */
	return 0;
}

static void funcs_by_batch__free(struct funcs_by_batch *fb)
{
	free(fb->idx);
	free(fb->end);
}

/* the saved functions of batch @k, merged now: each batch's in turn, k = 0, 1, ... */
static int merged_funcs_of_batch(struct btf_encoder *enc, struct funcs_by_batch *fb, uint32_t k)
{
	int err = 0;

	for (; !err && fb->i < fb->end[k]; fb->i++)
		err = merged_func(enc, &enc->funcs[fb->idx[fb->i]]);
	return err;
}

static int merged_vars(struct btf_encoder *enc)
{
	size_t shndx, n = elf_symtab__nr_sections(enc->es);
	uint32_t i;
	int err = 0;

	for (shndx = 0; shndx < n && !err; shndx++)
		for (i = 0; i < enc->secs[shndx].nr && !err; i++)
			err = merged_type(enc, enc->secs[shndx].recs[i].batch,
					  &enc->secs[shndx].recs[i].type);
	return err;
}

static int secinfo_cmp(const void *a, const void *b)
{
	const struct secinfo *sa = a, *sb = b;

	return sa->offset < sb->offset ? -1 : sa->offset > sb->offset;
}

/*
 * The saved functions by ELF function, each section's variables by offset,
 * as btf_encoder__finish emits them. Neither order depends on type ids, so
 * this runs while the last batches are deduplicated.
 */
static int sort_funcs_and_vars(struct btf_encoder *enc)
{
	size_t shndx, n = elf_symtab__nr_sections(enc->es);
	int err;

	err = funcs__sort(enc);
	for (shndx = 0; shndx < n && !err; shndx++)
		err = msort(enc->secs[shndx].recs, enc->secs[shndx].nr,
			    sizeof(*enc->secs[shndx].recs), secinfo_cmp);
	return err;
}

/* btf_encoder__merge's calls from btf_batches__finish */
struct merge_ctx {
	struct btf_encoder *enc;
	struct funcs_by_batch fb;
};

static int merge_prepare(void *ctx, uint32_t nr_batches)
{
	struct merge_ctx *m = ctx;

	return sort_funcs_and_vars(m->enc) ?: funcs_by_batch__new(m->enc, nr_batches, &m->fb);
}

static int merge_batch_merged(void *ctx, uint32_t k)
{
	struct merge_ctx *m = ctx;

	return merged_funcs_of_batch(m->enc, &m->fb, k);
}

static const struct btf_batches_finish_ops merge_ops = {
	.prepare = merge_prepare,
	.merged = merge_batch_merged,
};

/*
 * The end of the stream: the last batch handed over, and every batch merged
 * (btf_batches__finish), with the saved functions, sorted meanwhile, mapped
 * to the merged BTF batch by batch, then the variables.
 */
int btf_encoder__merge(struct btf_encoder *enc)
{
	struct merge_ctx m = { .enc = enc };
	const struct btf_batch_fill *last;
	int err = 0;

	if (!enc->batches) {
		err = sort_funcs_and_vars(enc);
		if (!err && !enc__own_dedup(enc)) {
			enc->btf = btf_raw__to_btf(enc->raw, &err);
			enc->raw = NULL;
		}
		if (err)
			pr_warn("%s: cannot encode: %s\n", enc->path, strerror(-err));
		return err;
	}
	err = enc__batch_last(enc, &last);
	if (err) {
		pr_warn("%s: cannot encode: %s\n", enc->path, strerror(-err));
		return err;
	}
	enc->raw = btf_batches__finish(enc->batches, enc->raw, last, enc->batch_ids,
				       enc->nr_batch_ids, &merge_ops, &m, enc->path, &err);
	enc->batch_ids = NULL;
	enc->nr_batch_ids = enc->cap_batch_ids = 0;
	funcs_by_batch__free(&m.fb);
	if (!enc->raw)
		return err;
	btf_batches__stats(enc->batches, &enc->stats.batches);
	err = merged_vars(enc);
	if (err)
		pr_warn("%s: cannot merge the BTF batches: %s\n", enc->path, strerror(-err));
	return err;
}
