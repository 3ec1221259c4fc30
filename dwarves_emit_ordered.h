/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarves_emit_ordered - load units in parallel, emit them strictly in id order.
 *
 * N worker threads call ops->load() for unit ids 0..nr_units-1; the calling
 * thread (the collector) calls ops->emit() for every unit, one at a time, in
 * increasing id order. A unit id is handed to a worker only while
 * id < next_emit + window, so at most `window` units are loading or loaded
 * but not yet emitted, and the unit the collector waits for is always being
 * loaded or ready: a slow unit can delay the pipeline but never deadlock it.
 * -j1 and -jN run this same code.
 *
 * Unit states: CU__UNPROCESSED -> CU__LOADING -> CU__LOADED -> CU__PROCESSED.
 */
#ifndef DWARVES_EMIT_ORDERED_H
#define DWARVES_EMIT_ORDERED_H

#include <stddef.h>

#include "tuning.h"

enum cu_state {
	CU__UNPROCESSED = 0,
	CU__LOADING,
	CU__LOADED,
	CU__PROCESSED,
};

struct emit_ordered_ops {
	/*
	 * Load unit @id; store the result in *@unit. Runs on a worker thread,
	 * unlocked, concurrently with other load() calls and with emit().
	 * Returns 0 or -errno; on error *@unit is ignored (load must have
	 * released what it allocated).
	 */
	int (*load)(void *ctx, unsigned int id, void **unit);
	/*
	 * Consume unit @id. Runs on the collector (the thread that called
	 * emit_ordered__run), for id 0, 1, 2, ... in order. Owns @unit
	 * afterwards. Returns 0 or -errno; an error stops the run.
	 */
	int (*emit)(void *ctx, unsigned int id, void *unit);
	/*
	 * Free a unit that was loaded but will not be emitted because the run
	 * stopped on an error. Runs on the collector. May be NULL.
	 */
	void (*discard)(void *ctx, unsigned int id, void *unit);
};

/* the window dwarf2btf runs with at -j@nr_jobs (tuning.h) */
static inline unsigned int emit_ordered_window(unsigned int nr_jobs)
{
	return EMIT_ORDERED_WINDOW_BASE + nr_jobs * EMIT_ORDERED_WINDOW_PER_JOB;
}

struct emit_ordered_opts {
	size_t sz; /* sizeof(struct emit_ordered_opts) */
	unsigned int nr_workers; /* >= 1 */
	unsigned int window; /* >= 1: max units loading or loaded, not emitted */
	/* test hook: called with the number of units in flight after each change */
	void (*on_in_flight)(void *ctx, unsigned int in_flight);
	/* the workers run this much nicer than the collector (0: as nice) */
	int worker_nice;
};

/*
 * Run the pipeline over @nr_units units, with opts->nr_workers workers but
 * no more than @nr_units. Blocks until every unit was emitted or the first
 * error stopped all threads. Returns 0, or the first error in
 * unit order (-errno) from load() or emit(), the one a single thread loading
 * and emitting unit after unit would meet, whatever the workers and timing;
 * *@failed_id (if not NULL) is set to the unit that failed. Not reentrant on
 * the same @ctx; thread-safe otherwise.
 */
int emit_ordered__run(unsigned int nr_units, const struct emit_ordered_ops *ops, void *ctx,
		      const struct emit_ordered_opts *opts, unsigned int *failed_id);

#endif /* DWARVES_EMIT_ORDERED_H */
