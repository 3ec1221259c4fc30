/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_batches - deduplicate the encoder's BTF in batches of whole CUs, each
 * in its own thread while the encoder goes on, and merge the results.
 *
 * The encoder (btf_encoder_merge.c) fills one batch at a time and hands it
 * over with btf_batches__add(); each batch's thread deduplicates it and then
 * appends it, in batch order, to the merged BTF. btf_batches__finish() hands
 * over the last, calls the encoder back for each batch as soon as it is
 * merged (whose ids and strings can then be mapped), and returns that BTF,
 * to which the encoder adds its functions and DATASECs before the final
 * dedup (btf_dedup). Only the collector calls these functions.
 */
#ifndef BTF_BATCHES_H
#define BTF_BATCHES_H

#include <stdint.h>

#include "tuning.h"

struct btf_raw;
struct btf_batches;

/*
 * How many batch dedups may run at once at -j@nr_jobs on @nr_cpus CPUs
 * (tuning.h: BTF_BATCH_DEDUPS and the constants with it say why)
 */
static inline unsigned int btf_batches__max_running(unsigned int nr_jobs, unsigned int nr_cpus)
{
	unsigned int busy = nr_cpus && nr_cpus < nr_jobs ? nr_cpus : nr_jobs;
	unsigned int n = (busy + BTF_BATCH_JOBS_PER_DEDUP - 1) / BTF_BATCH_JOBS_PER_DEDUP;

	if (busy <= BTF_BATCH_SINGLE_UPTO)
		return 1;
	if (n > BTF_BATCH_DEDUPS_MAX)
		n = BTF_BATCH_DEDUPS_MAX;
	return n > BTF_BATCH_DEDUPS ? n : BTF_BATCH_DEDUPS;
}

struct btf_batches_stats {
	uint32_t nr_batches;
	unsigned int max_running;
	double cpu_s; /* the batches' threads' CPU time, summed */
	double wait_s; /* the collector's time waiting for a dedup to end */
};

/* at most @max_running dedups at once (see btf_batches.c) */
struct btf_batches *btf_batches__new(unsigned int max_running);
/* joins the threads still running */
void btf_batches__free(struct btf_batches *bb);

/*
 * What fills a batch's BTF on the batch's thread, before its dedup: @fn(@ctx,
 * raw) appends the rest of the batch to raw; 0 or -errno. @ctx is the
 * caller's, to keep until the batch is merged or failed.
 */
struct btf_batch_fill {
	int (*fn)(void *ctx, struct btf_raw *raw);
	void *ctx;
};

/*
 * Hand over @raw, the BTF of whole CUs (or its start, which @fill, if not
 * NULL, completes; @fill must outlive the batch's thread), and start its
 * thread, which deduplicates it (btf_dedup, straight from @raw; the
 * collector waits first while max_running dedups run) and appends it to
 * the merged BTF. @ids (taken over too, malloc'ed or NULL) are its type ids
 * that the encoder will refer to later, in any order, repeats allowed.
 * Returns its batch number, or -errno (and frees @raw and @ids).
 */
int btf_batches__add(struct btf_batches *bb, struct btf_raw *raw, const struct btf_batch_fill *fill,
		     uint32_t *ids, uint32_t nr_ids);

/* what btf_batches__finish() calls, on the calling thread */
struct btf_batches_finish_ops {
	/*
	 * Work that needs no batch merged, while the last batch dedups or
	 * waits for a dedup to end: @nr_batches in all. 0 or -errno.
	 */
	int (*prepare)(void *ctx, uint32_t nr_batches);
	/*
	 * Batch @k is merged: btf_batches__type_id() and __str_off() answer
	 * for it, while later batches still merge. Called for k = 0, 1, ... in
	 * order, each as soon as it can be. 0 or -errno.
	 */
	int (*merged)(void *ctx, uint32_t k);
};

/*
 * The end of the stream. Hand over @last (the last batch, with its @fill
 * and @ids, taken as btf_batches__add() takes them; NULL if there is none),
 * then wait for every batch and return the BTF they were appended to: its
 * string section is every batch's in order, as one encoder writing all
 * batches into one BTF would have made it. The last
 * batch's dedup, which nothing else overlaps, starts first if it can;
 * @ops->prepare and @ops->merged for the batches merged so far fill the
 * wait for it, or for a dedup to end so that it can start. NULL with *@err
 * on failure (a batch's dedup or merge, or a call of @ops, failed), its
 * message printed, naming @path.
 */
struct btf_raw *btf_batches__finish(struct btf_batches *bb, struct btf_raw *last,
				    const struct btf_batch_fill *fill, uint32_t *ids,
				    uint32_t nr_ids, const struct btf_batches_finish_ops *ops,
				    void *ctx, const char *path, int *err);

/* After the merge (every thread joined) */
void btf_batches__stats(const struct btf_batches *bb, struct btf_batches_stats *st);

/* Once batch @k is merged: the merged BTF's id of one of its @ids (0 stays 0) */
uint32_t btf_batches__type_id(const struct btf_batches *bb, uint32_t k, uint32_t id);
/* ... and the merged string offset of batch @k's string offset @off */
uint32_t btf_batches__str_off(const struct btf_batches *bb, uint32_t k, uint32_t off);

#endif /* BTF_BATCHES_H */
