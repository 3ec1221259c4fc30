// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_batches - batches of whole CUs deduplicated in parallel with the
 * encoder, then merged in batch order for one final, small dedup.
 *
 * Why the bytes stay pahole's. btf__dedup keeps the first type of every
 * equivalence class, in order, and (for a from-scratch BTF) keeps the string
 * section as it was built; btf_dedup, which deduplicates the batches and
 * then the merged BTF, decides as it does. Deduplicating consecutive
 * batches first removes only later members of classes, so the merged
 * stream holds the same first members in the same order, and the final
 * dedup maps the rest onto them.
 * libbpf's equivalence is a heuristic (forward declarations, hypothetical
 * maps), so this is checked, not assumed: the byte comparisons with pahole
 * 1.30 on Debian's 6.1 and 6.12 kernels run batched, and the stress test
 * compares batch sizes from one CU per batch to a single batch.
 * Documentation/performance.md ("Tuning knobs") has the measurements behind
 * the batch size.
 *
 * A batch refers to no other batch: the encoder gives each one its own copy
 * of the array index type. Later types (functions, DATASECs) refer into the
 * batches; the ids they need are passed to btf_batches__add. A batch is
 * deduplicated by btf_dedup, libbpf 1.1's algorithm, straight from the
 * arrays the encoder's writer built (btf_raw), which also says where each
 * of those ids went, on the batch's own thread, off the writer's path; the
 * encoder may leave the batch's records to that thread too (struct
 * btf_batch_fill), which fills the batch first. Its
 * deduplicated records go straight into the merged btf_raw
 * (btf_raw__append_records), so no string is looked up twice.
 *
 * The merge: each batch's thread, once its dedup is done, waits for the
 * batch before it to be merged, then appends its own to the merged BTF, so
 * the merging overlaps the encoding and a batch's memory goes as soon as it
 * is merged. It adds the batch's string section, in order, before its
 * types, so a string lands where its first insertion in a single BTF would
 * have put it; batch string offsets map through struct str_pair. The types
 * then get the bytes btf__add_btf would give them (test_btf_raw compares).
 *
 * Threads and locking. A batch is the collector's until pthread_create() in
 * btf_batches__add, its thread's until pthread_join() (in a later
 * btf_batches__add once it is merged, or in btf_batches__finish or __free),
 * the collector's again after. The merged BTF (.out) belongs
 * to the thread of batch .nr_merged (set under .lock, in batch order), and
 * to the collector once every thread is joined. A batch's merge results
 * (.type_shift, .new_ids, .strs), written by its thread before it counts
 * itself in .nr_merged, are read by the collector once .nr_merged is past
 * it (batch_merged). Shared, under .lock: the
 * count of dedups running, at most max_running at once (the collector waits
 * for one to end before it starts another, so memory holds at most that
 * many unmerged batches however fast the encoder is), .nr_merged and
 * .failed.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "btf_batches.h"
#include "btf_dedup.h"
#include "btf_raw.h"
#include "d2b_util.h"
#include "tuning.h"

struct str_pair {
	uint32_t from, to;
};

struct btf_batches;

struct batch {
	struct btf_batches *bb;
	uint32_t k; /* its number */
	struct btf_raw *raw; /* as the encoder wrote it; once deduplicated, its strings alone */
	const struct btf_batch_fill *fill; /* the encoder's, run first on the thread; or NULL */
	void *types; /* after the dedup: the deduplicated type records */
	uint32_t types_len;
	uint32_t *ids; /* sorted and unique once its thread started */
	uint32_t *new_ids; /* after the thread: ids[i]'s id in the deduped batch */
	uint32_t nr_ids;
	pthread_t thread;
	bool running; /* thread started, not joined */
	int err;
	const char *what; /* after the thread: the step that failed */

	/* set by the merge */
	uint32_t type_shift; /* merged id = deduped id + type_shift */
	struct str_pair *strs; /* by .from */
	uint32_t nr_strs;
};

struct btf_batches {
	struct batch **b; /* the collector's; each batch as described above */
	uint32_t nr, cap;
	uint32_t nr_joined; /* the collector's: the threads of batches below it are joined */
	unsigned int max_running;
	struct btf_raw *out; /* the merged BTF: see "Threads and locking" */
	pthread_mutex_t lock;
	pthread_cond_t ended; /* signalled when a batch is merged or failed */
	unsigned int running; /* under lock */
	uint32_t nr_merged; /* under lock: batches merged into out, or failed */
	bool failed; /* under lock: a batch failed, out is not to be touched */
	double cpu_s; /* under lock: the CPU time of the batches' threads, summed */
	double wait_s; /* the collector's: its time waiting for a dedup to end */
};

struct btf_batches *btf_batches__new(unsigned int max_running)
{
	struct btf_batches *bb = calloc(1, sizeof(*bb));

	if (!bb)
		return NULL;
	bb->max_running = max_running ? max_running : 1;
	bb->out = btf_raw__new(NULL);
	if (!bb->out) {
		free(bb);
		return NULL;
	}
	pthread_mutex_init(&bb->lock, NULL);
	pthread_cond_init(&bb->ended, NULL);
	return bb;
}

static void batch_join(struct batch *b)
{
	if (b->running)
		pthread_join(b->thread, NULL);
	b->running = false;
}

void btf_batches__free(struct btf_batches *bb)
{
	uint32_t k;

	if (!bb)
		return;
	for (k = 0; k < bb->nr; k++) {
		struct batch *b = bb->b[k];

		batch_join(b);
		btf_raw__free(b->raw);
		free(b->types);
		free(b->ids);
		free(b->new_ids);
		free(b->strs);
		free(b);
	}
	free(bb->b);
	btf_raw__free(bb->out);
	pthread_mutex_destroy(&bb->lock);
	pthread_cond_destroy(&bb->ended);
	free(bb);
}

/*
 * The ids the encoder handed over, in any order and repeated: in order, once
 * each. A bitmap over the batch's types (16 KiB for 131 K of them) costs a
 * fiftieth of qsort's comparisons.
 */
static int batch_sort_ids(struct batch *b)
{
	uint32_t nr = btf_raw__type_cnt(b->raw), words = nr / 64 + 1, n = 0, i;
	uint64_t *seen, w;

	if (!b->nr_ids)
		return 0;
	seen = calloc(words, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (i = 0; i < b->nr_ids; i++) {
		if (b->ids[i] >= nr) { /* not the batch's: a bug */
			free(seen);
			return -EINVAL;
		}
		seen[b->ids[i] / 64] |= 1ull << (b->ids[i] % 64);
	}
	for (i = 0; i < words; i++)
		for (w = seen[i]; w; w &= w - 1)
			b->ids[n++] = i * 64 + (uint32_t)__builtin_ctzll(w);
	free(seen);
	b->nr_ids = n;
	return 0;
}

/*
 * btf_dedup's libbpf 1.1 dedup of the batch as the writer built it, the ids
 * handed over mapped to their deduplicated ones. The writer's type records
 * go; its string section stays for the merge.
 */
static void batch_dedup_run(struct batch *b)
{
	uint32_t types_len, strs_len, *map = NULL, i;
	const char *strs;
	void *types;

	if (b->fill) {
		b->what = "encoding";
		b->err = b->fill->fn(b->fill->ctx, b->raw);
		if (b->err)
			return;
	}
	b->what = "sorting ids";
	b->err = batch_sort_ids(b);
	if (b->err)
		return;
	b->what = "deduplication";
	btf_raw__sections(b->raw, &types, &types_len, &strs, &strs_len);
	b->err = btf_dedup__records(types, types_len, BTF_DEDUP_LIBBPF_1_1, &b->types,
				    &b->types_len, &map);
	if (b->err)
		return;
	btf_raw__drop_types(b->raw);
	b->new_ids = malloc(((size_t)b->nr_ids + 1) * sizeof(*b->new_ids));
	if (b->new_ids)
		for (i = 0; i < b->nr_ids; i++)
			b->new_ids[i] = map[b->ids[i]];
	else
		b->err = -ENOMEM;
	free(map);
}

/*
 * The index of the first of @n sorted values at @vals, @stride bytes apart,
 * that is not below @key; @n if none. Inline, not bsearch(): the merge looks
 * up every function's types and names, on the serial path.
 */
static uint32_t lower_bound(const void *vals, size_t stride, uint32_t n, uint32_t key)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (*(const uint32_t *)((const char *)vals + mid * stride) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* batch @b's string at @off in the merged BTF: its offset, or 0 if @off starts none */
static uint32_t batch_str_off(const struct batch *b, uint32_t off)
{
	uint32_t i;

	if (!off || !b->nr_strs)
		return 0;
	i = lower_bound(&b->strs[0].from, sizeof(*b->strs), b->nr_strs, off);
	return i < b->nr_strs && b->strs[i].from == off ? b->strs[i].to : 0;
}

/* add batch @b's strings to @out in order, recording where they went */
static int batch_merge_strs(struct batch *b, struct btf_raw *out)
{
	uint32_t types_len, strs_len;
	const char *strs, *s, *end;
	void *types;

	btf_raw__sections(b->raw, &types, &types_len, &strs, &strs_len);
	end = strs + strs_len;
	b->strs = malloc(((size_t)strs_len / 2 + 1) * sizeof(*b->strs));
	if (!b->strs)
		return -ENOMEM;
	for (s = strs + 1; s < end; s += strlen(s) + 1) {
		int off = btf_raw__add_str(out, s);

		if (off < 0)
			return off;
		b->strs[b->nr_strs++] = (struct str_pair){ (uint32_t)(s - strs), (uint32_t)off };
	}
	return 0;
}

/* (every string a type record names starts one of the batch's strings) */
static uint32_t batch_merge_str(void *ctx, uint32_t off, int *err)
{
	uint32_t to = batch_str_off(ctx, off);

	if (off && !to)
		*err = -EINVAL;
	return to;
}

/*
 * Append batch @b, deduplicated, to @out, as btf__add_btf would (strings
 * first, in order); its memory is freed.
 */
static void batch_merge(struct batch *b, struct btf_raw *out)
{
	b->what = "merging its strings";
	b->err = batch_merge_strs(b, out);
	btf_raw__free(b->raw);
	b->raw = NULL;
	if (b->err)
		return;
	b->type_shift = btf_raw__type_cnt(out) - 1;
	b->what = "merging its types";
	b->err = btf_raw__append_records(out, b->types, b->types_len, b->type_shift,
					 batch_merge_str, b);
	free(b->types);
	b->types = NULL;
}

static void *batch_dedup(void *arg)
{
	struct batch *b = arg;
	struct btf_batches *bb = b->bb;
	double cpu_s;
	bool failed;

	d2b_thread_nicer(D2B_HELPER_NICE);

	batch_dedup_run(b);
	/* merge in batch order: wait for the batch before this one */
	pthread_mutex_lock(&bb->lock);
	while (bb->nr_merged != b->k && !bb->failed)
		pthread_cond_wait(&bb->ended, &bb->lock);
	failed = bb->failed || b->err;
	pthread_mutex_unlock(&bb->lock);
	if (!failed)
		batch_merge(b, bb->out);
	cpu_s = d2b_clock_s(CLOCK_THREAD_CPUTIME_ID);
	pthread_mutex_lock(&bb->lock);
	bb->cpu_s += cpu_s;
	bb->failed |= b->err != 0;
	bb->nr_merged++;
	bb->running--;
	pthread_cond_broadcast(&bb->ended);
	pthread_mutex_unlock(&bb->lock);
	return NULL;
}

int btf_batches__add(struct btf_batches *bb, struct btf_raw *raw, const struct btf_batch_fill *fill,
		     uint32_t *ids, uint32_t nr_ids)
{
	struct batch *b;
	uint32_t merged;
	int err;

	/* threads hold their batch: batches do not move, the array of them may */
	b = malloc(sizeof(*b));
	if (!b || d2b_grow(&bb->b, &bb->cap, bb->nr + 1, sizeof(*bb->b))) {
		free(b);
		btf_raw__free(raw);
		free(ids);
		return -ENOMEM;
	}
	*b = (struct batch){
		.bb = bb, .k = bb->nr, .raw = raw, .fill = fill, .ids = ids, .nr_ids = nr_ids
	};
	pthread_mutex_lock(&bb->lock);
	if (bb->running >= bb->max_running) {
		double start = d2b_clock_s(CLOCK_MONOTONIC);

		while (bb->running >= bb->max_running)
			pthread_cond_wait(&bb->ended, &bb->lock);
		bb->wait_s += d2b_clock_s(CLOCK_MONOTONIC) - start;
	}
	bb->running++;
	merged = bb->nr_merged;
	pthread_mutex_unlock(&bb->lock);
	/*
	 * A merged batch's thread is ending or has ended: joined, its malloc
	 * arena is free for the new thread to take. A thread started while
	 * the last one is still ending would make an arena of its own, and
	 * each arena keeps its own high-water mark (Documentation/performance.md,
	 * "Memory per thread"). (After a failure threads end in any order: a
	 * join may wait for one, which ends without the collector.)
	 */
	for (; bb->nr_joined < merged; bb->nr_joined++)
		batch_join(bb->b[bb->nr_joined]);
	err = pthread_create(&b->thread, NULL, batch_dedup, b);
	if (err) {
		pthread_mutex_lock(&bb->lock);
		bb->running--;
		pthread_mutex_unlock(&bb->lock);
		free(b);
		btf_raw__free(raw);
		free(ids);
		return -err;
	}
	b->running = true;
	bb->b[bb->nr] = b;
	return (int)bb->nr++;
}

/* could btf_batches__add() start a dedup now, without waiting for one to end? */
static bool batches_can_add(struct btf_batches *bb)
{
	bool can;

	pthread_mutex_lock(&bb->lock);
	can = bb->running < bb->max_running;
	pthread_mutex_unlock(&bb->lock);
	return can;
}

/*
 * Is batch @k merged (and so every batch before it)? 0 once it is; if not
 * yet, -EAGAIN, or with @wait it waits. -ECANCELED if a batch failed
 * (batches_merge() reports which).
 */
static int batch_merged(struct btf_batches *bb, uint32_t k, bool wait)
{
	int err;

	pthread_mutex_lock(&bb->lock);
	while (wait && bb->nr_merged <= k && !bb->failed)
		pthread_cond_wait(&bb->ended, &bb->lock);
	err = bb->failed ? -ECANCELED : bb->nr_merged <= k ? -EAGAIN : 0;
	pthread_mutex_unlock(&bb->lock);
	return err;
}

/* every thread joined: the merged BTF, or NULL, *@err and the first failure's message */
static struct btf_raw *batches_merge(struct btf_batches *bb, const char *path, int *err)
{
	struct btf_raw *out;
	uint32_t k;

	*err = 0;
	for (k = 0; k < bb->nr; k++) {
		struct batch *b = bb->b[k];

		batch_join(b);
		/* the first failure: later batches were not merged */
		if (b->err && !*err) {
			pr_warn("%s: BTF batch %u: %s failed: %s\n", path, k, b->what,
				strerror(-b->err));
			*err = b->err;
		}
	}
	if (*err)
		return NULL;
	out = bb->out;
	bb->out = NULL;
	return out;
}

/* batch @k merged (or, without @wait, -EAGAIN if not yet), then ops->merged for it */
static int batch_map(struct btf_batches *bb, uint32_t k, bool wait,
		     const struct btf_batches_finish_ops *ops, void *ctx)
{
	return batch_merged(bb, k, wait) ?: ops->merged(ctx, k);
}

struct btf_raw *btf_batches__finish(struct btf_batches *bb, struct btf_raw *last,
				    const struct btf_batch_fill *fill, uint32_t *ids,
				    uint32_t nr_ids, const struct btf_batches_finish_ops *ops,
				    void *ctx, const char *path, int *err)
{
	uint32_t k = 0, nr = bb->nr + !!last;
	struct btf_raw *out;
	int map_err = 0;

	*err = 0;
	/* the last batch first, if its dedup can start at once */
	if (last && batches_can_add(bb)) {
		*err = btf_batches__add(bb, last, fill, ids, nr_ids);
		*err = *err < 0 ? *err : 0;
		last = NULL;
	}
	if (!*err)
		*err = ops->prepare(ctx, nr);
	/* until it can start, the batches merged meanwhile */
	while (!*err && !map_err && last && !batches_can_add(bb)) {
		map_err = batch_map(bb, k, false, ops, ctx);
		k += !map_err;
	}
	if (!*err && last) {
		*err = btf_batches__add(bb, last, fill, ids, nr_ids);
		*err = *err < 0 ? *err : 0;
		last = NULL;
	}
	if (*err) {
		btf_raw__free(last);
		if (last)
			free(ids);
		pr_warn("%s: cannot encode: %s\n", path, strerror(-*err));
		return NULL;
	}
	if (map_err == -EAGAIN)
		map_err = 0;
	for (; !map_err && k < nr; k++)
		map_err = batch_map(bb, k, true, ops, ctx);
	/* a batch's failure (map_err -ECANCELED) is reported here */
	out = batches_merge(bb, path, err);
	if (out && map_err) {
		pr_warn("%s: cannot merge the BTF batches: %s\n", path, strerror(-map_err));
		btf_raw__free(out);
		*err = map_err;
		return NULL;
	}
	return out;
}

void btf_batches__stats(const struct btf_batches *bb, struct btf_batches_stats *st)
{
	st->nr_batches = bb->nr;
	st->max_running = bb->max_running;
	st->cpu_s = bb->cpu_s;
	st->wait_s = bb->wait_s;
}

uint32_t btf_batches__type_id(const struct btf_batches *bb, uint32_t k, uint32_t id)
{
	const struct batch *b = bb->b[k];
	uint32_t i;

	if (!id)
		return 0;
	i = lower_bound(b->ids, sizeof(*b->ids), b->nr_ids, id);
	return i < b->nr_ids && b->ids[i] == id ? b->new_ids[i] + b->type_shift : 0;
}

uint32_t btf_batches__str_off(const struct btf_batches *bb, uint32_t k, uint32_t off)
{
	return batch_str_off(bb->b[k], off);
}
