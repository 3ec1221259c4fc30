/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_batches - deduplicate the encoder's BTF in batches of whole CUs, each
 * in its own thread while the encoder goes on, and merge the results.
 *
 * The collector (btf_encoder_single) fills one batch at a time and hands it
 * over with btf_batches__add(); each batch's thread deduplicates it and then
 * appends it, in batch order, to the merged BTF. After the last,
 * btf_batches__merge() waits for every batch and returns that BTF, on which
 * the encoder adds its functions and DATASECs and runs the final
 * btf__dedup; meanwhile btf_batches__merged() says which batches are
 * merged, whose ids and strings can be mapped already. Only the collector
 * calls these functions.
 */
#ifndef BTF_BATCHES_H
#define BTF_BATCHES_H

#include <stdbool.h>
#include <stdint.h>

#include "tuning.h"

struct btf;
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
 * Hand over @raw, the BTF of whole CUs, and start its thread, which makes it
 * a libbpf BTF (btf_raw__to_btf) and deduplicates it (after waiting while
 * max_running dedups run). @ids (taken over too, malloc'ed or NULL) are its
 * type ids that the encoder will refer to later, in any order, repeats
 * allowed. Returns its batch number, or -errno (and frees @raw and @ids).
 */
int btf_batches__add(struct btf_batches *bb, struct btf_raw *raw, uint32_t *ids, uint32_t nr_ids);

/* Could btf_batches__add() start a dedup now, without waiting for one to end? */
bool btf_batches__can_add(struct btf_batches *bb);

/*
 * Is batch @k merged (and so every batch before it)? 0 once it is: from
 * then on btf_batches__type_id() and __str_off() answer for it, while later
 * batches still merge. If not yet, -EAGAIN, or with @wait it waits.
 * -ECANCELED if a batch failed (btf_batches__merge() reports which).
 */
int btf_batches__merged(struct btf_batches *bb, uint32_t k, bool wait);

/*
 * Wait for every batch and return the from-scratch BTF they were appended
 * to: its string section is every batch's in order, as one encoder writing
 * all batches into one BTF would have made it. NULL with *@err on failure
 * (a batch's dedup or merge failed: its message printed).
 */
struct btf *btf_batches__merge(struct btf_batches *bb, const char *path, int *err);

/* After the merge (every thread joined) */
void btf_batches__stats(const struct btf_batches *bb, struct btf_batches_stats *st);

/* Once batch @k is merged: the merged BTF's id of one of its @ids (0 stays 0) */
uint32_t btf_batches__type_id(const struct btf_batches *bb, uint32_t k, uint32_t id);
/* ... and the merged string offset of batch @k's string offset @off */
uint32_t btf_batches__str_off(const struct btf_batches *bb, uint32_t k, uint32_t off);

#endif /* BTF_BATCHES_H */
