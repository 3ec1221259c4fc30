// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarves_emit_ordered.c - load units in parallel, emit them strictly in id order.
 *
 * DESIGN
 *
 * The problem. Loading a compilation unit (parsing its DWARF) is independent
 * per unit and parallelises well; encoding it into the one BTF encoder is not
 * and must happen in unit-id order, so that every -j gives the same bytes.
 * A plain bounded queue between the two does not work: when an early unit is
 * slow, the queue fills with later units the collector cannot use yet, the
 * workers block on the full queue, and nobody loads the unit the collector
 * waits for (head-of-line blocking, possibly a deadlock).
 *
 * The algorithm. The thread that calls emit_ordered__run() is the collector;
 * it starts nr_workers worker threads (at most one per unit) and then, for
 * id = 0, 1, 2, ..., waits until unit id is LOADED, calls ops->emit() on it
 * and marks it PROCESSED.
 * Workers hand themselves ids in increasing order (next_claim++), but only
 * ids below next_emit + window: the bound is on ids, not on queue slots.
 *
 *   slot state:  UNPROCESSED --claim--> LOADING --load ok--> LOADED
 *                LOADED --collector--> PROCESSED (emit() owns the unit)
 *                LOADED --stop--> discard() at shutdown
 *                LOADING --load error--> UNPROCESSED, slot.err set, no claims
 *
 * Invariants (all read under eo->lock):
 *
 *  I1. next_emit <= next_claim <= nr_units, and next_claim - next_emit <=
 *      window. Ids in [next_emit, next_claim) are LOADING or LOADED (or
 *      failed: UNPROCESSED with err set, after which nothing is claimed),
 *      ids >= next_claim are UNPROCESSED, ids below next_emit are PROCESSED.
 *  I2. in_flight == number of slots LOADING or LOADED <= next_claim -
 *      next_emit <= window. Memory held by loaded units is thus bounded by
 *      window units, whatever the thread timing.
 *  I3. No deadlock, even when unit next_emit is very slow: a worker waits
 *      only while next_claim - next_emit >= window >= 1, i.e. only once unit
 *      next_emit has been claimed, so it is LOADING or LOADED. A LOADING unit
 *      belongs to a running worker that waits for nothing before it
 *      publishes the result (load() runs unlocked); the collector then emits
 *      it, and next_emit++ reopens the window, or it sees the failure or
 *      stop. A failed load claims nothing more, and every id below it is
 *      claimed already, so it never leaves the collector waiting. Conversely,
 *      while next_emit is unclaimed the window has room, so any free worker
 *      claims it. No thread holds eo->lock across load(), emit() or
 *      discard(); only the on_in_flight test hook runs under it.
 *
 * Wakeups. Two condition variables so no thread waits for a signal meant for
 * the other side: the collector waits on unit_loaded (signalled when slot
 * next_emit becomes LOADED, broadcast on stop); workers wait on window_open
 * (broadcast when next_emit advances or on stop). Every wait re-checks its
 * predicate in a loop.
 *
 * Errors. The error reported is the first in unit order, as if -j1 loaded
 * and emitted one unit after the other: whatever the number of workers and
 * the timing, a run with several bad units reports the same one. A failed
 * load() marks its slot (err, back to UNPROCESSED) and ends all claiming:
 * every id below it is claimed already, and none above it will be emitted.
 * The collector goes on emitting up to that id, so an earlier unit's
 * error, from its load() or its emit(), still comes first; on reaching a
 * failed slot, or on an emit() error, it records the error and its unit id
 * (only the collector does, under the lock) and sets stop. Workers exit
 * after their current load(); the collector joins them and hands every
 * LOADED, not emitted unit to discard().
 *
 * Tuning. None here: the window, the number of workers and how much nicer
 * they run than the collector (the thread the run waits for) are chosen by
 * the caller. -j1 is nr_workers == 1 through this same code.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "d2b_util.h"
#include "dwarves_emit_ordered.h"

#ifndef offsetofend
#define offsetofend(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
#endif

struct emit_ordered_slot {
	enum cu_state state;
	void *unit; /* set while LOADED; NULL once taken by the collector */
	int err; /* load() error, 0 if none */
};

struct emit_ordered {
	/* Immutable while workers run: read without the lock. */
	const struct emit_ordered_ops *ops;
	void *ctx;
	void (*on_in_flight)(void *ctx, unsigned int in_flight);
	unsigned int nr_units;
	unsigned int window; /* >= 1 */
	int worker_nice;

	pthread_mutex_t lock; /* guards every field below */
	pthread_cond_t
		unit_loaded; /* collector waits: slots[next_emit] LOADED or failed, or stop */
	pthread_cond_t window_open; /* workers wait: room in the window or stop */

	struct emit_ordered_slot *slots; /* [nr_units]; each entry guarded by lock */
	unsigned int next_claim; /* lock: next id a worker may load */
	unsigned int next_emit; /* lock: next id the collector emits */
	unsigned int in_flight; /* lock: slots LOADING or LOADED */
	bool stop; /* lock: no new claims, no further emits */
	bool claims_done; /* lock: a load failed, no new claims */
	int err; /* lock: first error, 0 if none */
	unsigned int failed_id; /* lock: unit that caused err */
};

/*
 * Copy the caller's options into @out, accepting shorter (older) structs that
 * still carry nr_workers and window, and longer ones whose extra bytes are 0.
 */
static int emit_ordered_opts_read(const struct emit_ordered_opts *opts,
				  struct emit_ordered_opts *out)
{
	size_t min_sz = offsetofend(struct emit_ordered_opts, window);
	size_t i;

	if (!opts || opts->sz < min_sz)
		return -EINVAL;
	for (i = sizeof(*out); i < opts->sz; i++)
		if (((const char *)opts)[i])
			return -EINVAL;

	memset(out, 0, sizeof(*out));
	memcpy(out, opts, opts->sz < sizeof(*out) ? opts->sz : sizeof(*out));
	out->sz = sizeof(*out);
	if (!out->nr_workers)
		return -EINVAL;
	if (!out->window)
		out->window = 1;
	return 0;
}

/* Caller holds eo->lock. */
static void emit_ordered_set_in_flight(struct emit_ordered *eo, unsigned int in_flight)
{
	eo->in_flight = in_flight;
	if (eo->on_in_flight)
		eo->on_in_flight(eo->ctx, in_flight);
}

/* Caller holds eo->lock. Records the first error and stops every thread. */
static void emit_ordered_fail(struct emit_ordered *eo, int err, unsigned int id)
{
	if (!eo->err) {
		eo->err = err;
		eo->failed_id = id;
	}
	eo->stop = true;
	pthread_cond_broadcast(&eo->window_open);
	pthread_cond_broadcast(&eo->unit_loaded);
}

/* Caller holds eo->lock. Subtraction: next_emit + window may overflow. */
static bool emit_ordered_window_full(const struct emit_ordered *eo)
{
	return eo->next_claim - eo->next_emit >= eo->window;
}

/*
 * Worker side: wait for an id inside the window and claim it. Returns false
 * when the worker should exit (stop, or every id already claimed).
 */
static bool emit_ordered_claim(struct emit_ordered *eo, unsigned int *id)
{
	bool claimed = false;

	pthread_mutex_lock(&eo->lock);
	while (!eo->stop && !eo->claims_done && eo->next_claim < eo->nr_units &&
	       emit_ordered_window_full(eo))
		pthread_cond_wait(&eo->window_open, &eo->lock);
	if (!eo->stop && !eo->claims_done && eo->next_claim < eo->nr_units) {
		*id = eo->next_claim++;
		eo->slots[*id].state = CU__LOADING;
		emit_ordered_set_in_flight(eo, eo->in_flight + 1);
		claimed = true;
	}
	pthread_mutex_unlock(&eo->lock);
	return claimed;
}

/* Worker side: publish the result of load() for @id. */
static void emit_ordered_publish(struct emit_ordered *eo, unsigned int id, int err, void *unit)
{
	struct emit_ordered_slot *slot = &eo->slots[id];

	/* load() must return -errno; keep the result negative whatever it did */
	if (err > 0)
		err = -err;

	pthread_mutex_lock(&eo->lock);
	if (err) {
		slot->state = CU__UNPROCESSED;
		slot->err = err;
		emit_ordered_set_in_flight(eo, eo->in_flight - 1);
		/* the collector reports it on reaching it (see Errors) */
		eo->claims_done = true;
		pthread_cond_broadcast(&eo->window_open);
	} else {
		slot->unit = unit;
		slot->state = CU__LOADED;
	}
	/* the collector only ever waits for slot next_emit */
	if (id == eo->next_emit)
		pthread_cond_signal(&eo->unit_loaded);
	pthread_mutex_unlock(&eo->lock);
}

static void *emit_ordered_worker(void *arg)
{
	struct emit_ordered *eo = arg;
	unsigned int id;

	d2b_thread_nicer(eo->worker_nice);

	while (emit_ordered_claim(eo, &id)) {
		void *unit = NULL;
		int err;

		err = eo->ops->load(eo->ctx, id, &unit);
		emit_ordered_publish(eo, id, err, unit);
	}
	return NULL;
}

/*
 * Collector side: wait until unit @id is LOADED and take it. Returns false if
 * its load failed (the error is then recorded) or the run stopped first; the
 * unit, if loaded, stays in its slot for discard.
 */
static bool emit_ordered_take(struct emit_ordered *eo, unsigned int id, void **unit)
{
	struct emit_ordered_slot *slot = &eo->slots[id];
	bool taken = false;

	pthread_mutex_lock(&eo->lock);
	while (slot->state != CU__LOADED && !slot->err && !eo->stop)
		pthread_cond_wait(&eo->unit_loaded, &eo->lock);
	if (!eo->stop && slot->err) {
		emit_ordered_fail(eo, slot->err, id);
	} else if (!eo->stop) {
		*unit = slot->unit;
		slot->unit = NULL;
		taken = true;
	}
	pthread_mutex_unlock(&eo->lock);
	return taken;
}

/* Collector side: unit @id went through emit(), which returned @err. */
static void emit_ordered_retire(struct emit_ordered *eo, unsigned int id, int err)
{
	if (err > 0)
		err = -err;

	pthread_mutex_lock(&eo->lock);
	eo->slots[id].state = CU__PROCESSED;
	eo->next_emit++;
	emit_ordered_set_in_flight(eo, eo->in_flight - 1);
	if (err)
		emit_ordered_fail(eo, err, id);
	else
		pthread_cond_broadcast(&eo->window_open);
	pthread_mutex_unlock(&eo->lock);
}

static void emit_ordered_collect(struct emit_ordered *eo)
{
	unsigned int id;
	void *unit;
	int err;

	for (id = 0; id < eo->nr_units; id++) {
		if (!emit_ordered_take(eo, id, &unit))
			return;
		err = eo->ops->emit(eo->ctx, id, unit);
		emit_ordered_retire(eo, id, err);
		if (err)
			return;
	}
}

/*
 * Start up to @nr workers. Fewer is fine as long as one started: they share
 * the same claim loop. Returns 0 with *@nr_started >= 1, or -errno.
 */
static int emit_ordered_start(struct emit_ordered *eo, pthread_t *threads, unsigned int nr,
			      unsigned int *nr_started)
{
	unsigned int k;
	int err = 0;

	for (k = 0; k < nr; k++) {
		err = pthread_create(&threads[k], NULL, emit_ordered_worker, eo);
		if (err)
			break;
	}
	*nr_started = k;
	return k ? 0 : -err;
}

/* Collector side: flag -> broadcast -> join. */
static void emit_ordered_stop(struct emit_ordered *eo, pthread_t *threads, unsigned int nr)
{
	unsigned int k;

	pthread_mutex_lock(&eo->lock);
	eo->stop = true;
	pthread_cond_broadcast(&eo->window_open);
	pthread_mutex_unlock(&eo->lock);

	for (k = 0; k < nr; k++)
		pthread_join(threads[k], NULL);
}

/*
 * Called after every worker was joined: the collector owns all state now, so
 * no lock is needed and discard() runs unlocked like every callback.
 */
static void emit_ordered_discard(struct emit_ordered *eo)
{
	struct emit_ordered_slot *slot;
	unsigned int id;

	for (id = eo->next_emit; id < eo->next_claim; id++) {
		slot = &eo->slots[id];
		if (slot->state != CU__LOADED)
			continue;
		if (eo->ops->discard)
			eo->ops->discard(eo->ctx, id, slot->unit);
		slot->unit = NULL;
		slot->state = CU__UNPROCESSED;
		emit_ordered_set_in_flight(eo, eo->in_flight - 1);
	}
}

static int emit_ordered_init(struct emit_ordered *eo, unsigned int nr_units)
{
	int err;

	/* calloc() fails on nr_units * sizeof overflow */
	eo->slots = calloc(nr_units, sizeof(*eo->slots));
	if (!eo->slots)
		return -ENOMEM;
	err = pthread_mutex_init(&eo->lock, NULL);
	if (err)
		goto out_free_slots;
	err = pthread_cond_init(&eo->unit_loaded, NULL);
	if (err)
		goto out_destroy_lock;
	err = pthread_cond_init(&eo->window_open, NULL);
	if (err)
		goto out_destroy_unit_loaded;
	return 0;

out_destroy_unit_loaded:
	pthread_cond_destroy(&eo->unit_loaded);
out_destroy_lock:
	pthread_mutex_destroy(&eo->lock);
out_free_slots:
	free(eo->slots);
	return -err;
}

static void emit_ordered_destroy(struct emit_ordered *eo)
{
	pthread_cond_destroy(&eo->window_open);
	pthread_cond_destroy(&eo->unit_loaded);
	pthread_mutex_destroy(&eo->lock);
	free(eo->slots);
}

int emit_ordered__run(unsigned int nr_units, const struct emit_ordered_ops *ops, void *ctx,
		      const struct emit_ordered_opts *opts, unsigned int *failed_id)
{
	struct emit_ordered_opts o;
	struct emit_ordered eo = {};
	unsigned int nr_started;
	pthread_t *threads;
	int err;

	if (!ops || !ops->load || !ops->emit)
		return -EINVAL;
	err = emit_ordered_opts_read(opts, &o);
	if (err)
		return err;
	if (!nr_units)
		return 0;

	eo.ops = ops;
	eo.ctx = ctx;
	eo.on_in_flight = o.on_in_flight;
	eo.nr_units = nr_units;
	eo.window = o.window;
	eo.worker_nice = o.worker_nice;

	/*
	 * No more workers than units: one with nothing to claim would only
	 * cost its start, and a kernel build runs a bare -j (one per CPU) on
	 * every module, most of which have a few units.
	 */
	if (o.nr_workers > nr_units)
		o.nr_workers = nr_units;
	threads = calloc(o.nr_workers, sizeof(*threads));
	if (!threads)
		return -ENOMEM;
	err = emit_ordered_init(&eo, nr_units);
	if (err)
		goto out_free_threads;
	err = emit_ordered_start(&eo, threads, o.nr_workers, &nr_started);
	if (err)
		goto out_destroy;

	emit_ordered_collect(&eo);
	emit_ordered_stop(&eo, threads, nr_started);
	emit_ordered_discard(&eo);

	err = eo.err;
	if (err && failed_id)
		*failed_id = eo.failed_id;
out_destroy:
	emit_ordered_destroy(&eo);
out_free_threads:
	free(threads);
	return err;
}
