// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_emit_ordered.c - unit test for dwarves_emit_ordered.
 *
 * DESIGN
 *
 * Every scenario runs emit_ordered__run() over synthetic units: load()
 * mallocs a struct unit carrying its id after a pseudo-random delay, emit()
 * and discard() check and free it. A struct probe records what the callbacks
 * saw: the emit order, which thread ran emit/discard, allocations against
 * frees, the fate of every unit (never loaded / loaded / emitted / discarded),
 * the largest in-flight count reported by the on_in_flight hook and the
 * largest number of units the test itself saw between "load started" and
 * "emitted or discarded". The checks then compare that record with what the
 * contract promises; none depends on timing except the "returns promptly"
 * bound after an error, which has a margin of orders of magnitude.
 *
 * Delays come from rand_r() seeded per unit from the scenario seed, so a run
 * is reproducible whatever thread loads which unit. Every scenario is armed
 * with alarm(60): a deadlock kills the test (SIGALRM) instead of hanging it.
 *
 * Output: one "FAIL ..." line per failed check, then "N passed, M failed";
 * the exit status is 0 only when M == 0.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dwarves_emit_ordered.h"

#define UNIT_MAGIC 0x756e6974u
#define WATCHDOG_S 60
#define HOLD_TIMEOUT_MS 10000

struct tally {
	unsigned int passed;
	unsigned int failed;
};

static __attribute__((format(printf, 5, 6))) bool check(struct tally *t, bool ok, int line,
							const char *expr, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		t->passed++;
		return true;
	}
	t->failed++;
	printf("FAIL line %d: %s [", line, expr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("]\n");
	return false;
}

/* CHECK(tally, condition, label): label names the scenario in the failure line */
#define CHECK(t, cond, label) check(t, (cond), __LINE__, #cond, "%s", label)

/* What a scenario asks for. A zero error field means "inject no error". */
struct scenario {
	unsigned int nr_units;
	unsigned int nr_workers;
	unsigned int window; /* as passed; 0 is clamped to 1 by the library */
	unsigned int seed;
	unsigned int max_delay_us; /* load delay: 0..max_delay_us */
	unsigned int slow_id;
	unsigned int slow_us; /* 0: no slow unit */
	unsigned int fail_load_id;
	int fail_load_err;
	unsigned int fail_load_id2; /* > fail_load_id: fails too (0: none) */
	unsigned int fail_emit_id;
	int fail_emit_err;
	unsigned int hold_loads; /* emit(0) waits until this many loads are done */
	bool no_failed_id; /* pass failed_id == NULL */
	bool count_threads; /* load() counts the process's threads */
};

enum unit_fate {
	FATE_NONE = 0, /* never loaded, or load() failed */
	FATE_LOADED,
	FATE_EMITTED,
	FATE_DISCARDED,
};

struct unit {
	unsigned int id;
	unsigned int magic;
};

/* What the callbacks saw. Fields without "atomic" are written by one thread. */
struct probe {
	const struct scenario *sc;
	pthread_t collector;
	unsigned char *fate; /* [nr_units]: load writes, collector reads */
	atomic_uint loads_started;
	atomic_uint loads_done;
	atomic_uint allocs;
	atomic_uint frees;
	atomic_uint live; /* load started .. emitted or discarded */
	atomic_uint live_max;
	atomic_uint hook_calls;
	atomic_uint hook_max;
	atomic_uint threads_max; /* sc->count_threads: the most load() saw */
	atomic_uint calls; /* any callback */
	/* collector only */
	unsigned int next_expected;
	unsigned int emits;
	unsigned int discards;
	unsigned int order_errors;
	unsigned int wrong_thread;
	unsigned int bad_units;
	unsigned int hold_timeouts;
};

struct outcome {
	int ret;
	unsigned int failed_id;
	double secs;
};

static void atomic_max(atomic_uint *max, unsigned int v)
{
	unsigned int cur = atomic_load(max);

	while (v > cur && !atomic_compare_exchange_weak(max, &cur, v))
		;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned int effective_window(const struct scenario *sc)
{
	return sc->window ? sc->window : 1;
}

static void load_delay(const struct scenario *sc, unsigned int id)
{
	unsigned int seed = sc->seed * 2654435761u + id;
	unsigned int us = 0;

	if (sc->slow_us && id == sc->slow_id)
		us = sc->slow_us;
	else if (sc->max_delay_us)
		us = rand_r(&seed) % (sc->max_delay_us + 1);
	if (us)
		usleep(us);
}

/* the calling process's threads (/proc/self/task), or 0 if unreadable */
static unsigned int nr_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	unsigned int n = 0;
	struct dirent *e;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int t_load(void *ctx, unsigned int id, void **unitp)
{
	struct probe *p = ctx;
	const struct scenario *sc = p->sc;
	struct unit *u;

	atomic_fetch_add(&p->calls, 1);
	atomic_fetch_add(&p->loads_started, 1);
	atomic_max(&p->live_max, atomic_fetch_add(&p->live, 1) + 1);
	load_delay(sc, id);
	if (sc->count_threads)
		atomic_max(&p->threads_max, nr_threads());
	if (sc->fail_load_err &&
	    (id == sc->fail_load_id || (sc->fail_load_id2 && id == sc->fail_load_id2)))
		goto out_fail;
	u = malloc(sizeof(*u));
	if (!u)
		goto out_fail;
	atomic_fetch_add(&p->allocs, 1);
	u->id = id;
	u->magic = UNIT_MAGIC;
	p->fate[id] = FATE_LOADED;
	*unitp = u;
	atomic_fetch_add(&p->loads_done, 1);
	return 0;

out_fail:
	atomic_fetch_sub(&p->live, 1);
	return sc->fail_load_err ? sc->fail_load_err : -ENOMEM;
}

/* Collector side: check a unit handed to emit() or discard(), then free it. */
static void t_consume(struct probe *p, unsigned int id, void *unit, enum unit_fate fate)
{
	struct unit *u = unit;

	if (!pthread_equal(pthread_self(), p->collector))
		p->wrong_thread++;
	if (!u || u->id != id || u->magic != UNIT_MAGIC || p->fate[id] != FATE_LOADED)
		p->bad_units++;
	p->fate[id] = fate;
	atomic_fetch_sub(&p->live, 1);
	if (u)
		u->magic = 0;
	free(u);
	atomic_fetch_add(&p->frees, 1);
}

/* emit(0) blocks until hold_loads units are loaded: proves emit runs unlocked */
static void t_hold(struct probe *p)
{
	double deadline = now_s() + HOLD_TIMEOUT_MS / 1000.0;

	while (atomic_load(&p->loads_done) < p->sc->hold_loads) {
		if (now_s() > deadline) {
			p->hold_timeouts++;
			return;
		}
		usleep(100);
	}
}

static int t_emit(void *ctx, unsigned int id, void *unit)
{
	struct probe *p = ctx;
	const struct scenario *sc = p->sc;

	atomic_fetch_add(&p->calls, 1);
	if (id != p->next_expected)
		p->order_errors++;
	p->next_expected = id + 1;
	p->emits++;
	if (id == 0 && sc->hold_loads)
		t_hold(p);
	t_consume(p, id, unit, FATE_EMITTED);
	if (sc->fail_emit_err && id == sc->fail_emit_id)
		return sc->fail_emit_err;
	return 0;
}

static void t_discard(void *ctx, unsigned int id, void *unit)
{
	struct probe *p = ctx;

	atomic_fetch_add(&p->calls, 1);
	p->discards++;
	t_consume(p, id, unit, FATE_DISCARDED);
}

static void t_on_in_flight(void *ctx, unsigned int in_flight)
{
	struct probe *p = ctx;

	atomic_fetch_add(&p->hook_calls, 1);
	atomic_max(&p->hook_max, in_flight);
}

static const struct emit_ordered_ops t_ops = {
	.load = t_load,
	.emit = t_emit,
	.discard = t_discard,
};

static int probe_init(struct probe *p, const struct scenario *sc)
{
	memset(p, 0, sizeof(*p));
	p->sc = sc;
	p->collector = pthread_self();
	p->fate = calloc(sc->nr_units ? sc->nr_units : 1, 1);
	return p->fate ? 0 : -ENOMEM;
}

static struct outcome scenario_run(const struct scenario *sc, struct probe *p)
{
	struct emit_ordered_opts opts = {
		.sz = sizeof(opts),
		.nr_workers = sc->nr_workers,
		.window = sc->window,
		.on_in_flight = t_on_in_flight,
	};
	struct outcome o = { .failed_id = ~0u };
	double t0;

	if (probe_init(p, sc)) {
		o.ret = -ENOMEM;
		return o;
	}
	alarm(WATCHDOG_S);
	t0 = now_s();
	o.ret = emit_ordered__run(sc->nr_units, &t_ops, p, &opts,
				  sc->no_failed_id ? NULL : &o.failed_id);
	o.secs = now_s() - t0;
	alarm(0);
	return o;
}

static void scenario_label(const struct scenario *sc, char *buf, size_t sz)
{
	snprintf(buf, sz, "n=%u workers=%u window=%u seed=%u delay<=%uus", sc->nr_units,
		 sc->nr_workers, sc->window, sc->seed, sc->max_delay_us);
}

static unsigned int fate_count(const struct probe *p, enum unit_fate fate)
{
	unsigned int id, nr = 0;

	for (id = 0; id < p->sc->nr_units; id++)
		nr += p->fate[id] == fate;
	return nr;
}

/* Checks that hold for every run, failed or not. */
static void check_common(struct tally *t, const struct probe *p, const char *label)
{
	unsigned int window = effective_window(p->sc);

	CHECK(t, p->order_errors == 0, label);
	CHECK(t, p->wrong_thread == 0, label);
	CHECK(t, p->bad_units == 0, label);
	CHECK(t, p->hold_timeouts == 0, label);
	CHECK(t, atomic_load(&p->allocs) == atomic_load(&p->frees), label);
	CHECK(t, fate_count(p, FATE_LOADED) == 0, label);
	CHECK(t, fate_count(p, FATE_EMITTED) == p->emits, label);
	CHECK(t, fate_count(p, FATE_DISCARDED) == p->discards, label);
	CHECK(t, atomic_load(&p->live) == 0, label);
	CHECK(t, atomic_load(&p->hook_max) <= window, label);
	CHECK(t, atomic_load(&p->live_max) <= window, label);
	CHECK(t, atomic_load(&p->loads_started) <= p->sc->nr_units, label);
}

static void check_clean(struct tally *t, const struct probe *p, const struct outcome *o,
			const char *label)
{
	unsigned int n = p->sc->nr_units;

	check_common(t, p, label);
	CHECK(t, o->ret == 0, label);
	CHECK(t, p->emits == n, label);
	CHECK(t, p->next_expected == n, label);
	CHECK(t, p->discards == 0, label);
	CHECK(t, atomic_load(&p->loads_started) == n, label);
	CHECK(t, atomic_load(&p->allocs) == n, label);
}

/*
 * load(fail_load_id) failed: every unit before it was emitted (the first
 * error in unit order is reported), nothing from it on.
 */
static void check_load_failure(struct tally *t, const struct probe *p, const struct outcome *o,
			       const char *label)
{
	const struct scenario *sc = p->sc;
	unsigned int window = effective_window(sc);
	unsigned int id = sc->fail_load_id;

	check_common(t, p, label);
	CHECK(t, o->ret == sc->fail_load_err, label);
	CHECK(t, sc->no_failed_id || o->failed_id == id, label);
	CHECK(t, p->next_expected == id, label);
	CHECK(t, p->emits == id, label);
	/* id was claimed only once next_emit > id - window */
	CHECK(t, id < window || p->emits >= id + 1 - window, label);
	CHECK(t, atomic_load(&p->loads_started) <= id + window, label);
}

/* emit(fail_emit_id) failed: 0..id emitted, every later loaded unit discarded. */
static void check_emit_failure(struct tally *t, const struct probe *p, const struct outcome *o,
			       const char *label)
{
	const struct scenario *sc = p->sc;
	unsigned int id = sc->fail_emit_id;

	check_common(t, p, label);
	CHECK(t, o->ret == sc->fail_emit_err, label);
	CHECK(t, sc->no_failed_id || o->failed_id == id, label);
	CHECK(t, p->emits == id + 1, label);
	CHECK(t, p->discards == atomic_load(&p->allocs) - (id + 1), label);
	CHECK(t, atomic_load(&p->loads_started) <= id + effective_window(sc), label);
}

static void probe_fini(struct probe *p)
{
	free(p->fate);
	p->fate = NULL;
}

/* Run @sc and apply the checks that match the error it injects. */
static struct outcome scenario_check(struct tally *t, const struct scenario *sc)
{
	struct probe p;
	struct outcome o;
	char label[128];

	scenario_label(sc, label, sizeof(label));
	o = scenario_run(sc, &p);
	if (!CHECK(t, p.fate != NULL, label))
		return o;
	if (sc->fail_emit_err && (!sc->fail_load_err || sc->fail_emit_id < sc->fail_load_id))
		check_emit_failure(t, &p, &o, label);
	else if (sc->fail_load_err)
		check_load_failure(t, &p, &o, label);
	else
		check_clean(t, &p, &o, label);
	probe_fini(&p);
	return o;
}

/* 1 + 2: order and window bound over a grid of workers and windows. */
static void test_order_grid(struct tally *t)
{
	static const unsigned int workers[] = { 1, 2, 3, 4, 8, 16, 64 };
	const unsigned int n = 200;
	const unsigned int windows[] = { 1, 2, 4, 16, n + 7 };
	unsigned int i, j, seed = 1;

	for (i = 0; i < sizeof(workers) / sizeof(workers[0]); i++) {
		for (j = 0; j < sizeof(windows) / sizeof(windows[0]); j++) {
			struct scenario sc = {
				.nr_units = n,
				.nr_workers = workers[i],
				.window = windows[j],
				.seed = seed++,
				.max_delay_us = 200,
			};

			scenario_check(t, &sc);
		}
	}
}

/* 3: a very slow unit 0 must neither deadlock nor break the window. */
static void test_slow_first(struct tally *t)
{
	struct scenario sc = {
		.nr_units = 100,
		.nr_workers = 16,
		.window = 4,
		.seed = 3,
		.max_delay_us = 50,
		.slow_id = 0,
		.slow_us = 200000,
	};
	struct probe p;
	struct outcome o;

	o = scenario_run(&sc, &p);
	if (!CHECK(t, p.fate != NULL, "slow unit 0"))
		return;
	check_clean(t, &p, &o, "slow unit 0");
	/* while unit 0 sleeps, the other workers fill the window, no further */
	CHECK(t, atomic_load(&p.hook_max) == 4, "slow unit 0");
	probe_fini(&p);
}

/*
 * emit() runs unlocked: while emit(0) blocks, two workers still claim and load
 * the rest of the window, one unit after the other; claiming takes the lock.
 */
static void test_emit_unlocked(struct tally *t)
{
	struct scenario sc = {
		.nr_units = 50,
		.nr_workers = 2,
		.window = 8,
		.seed = 5,
		.max_delay_us = 2000,
		.hold_loads = 8,
	};

	scenario_check(t, &sc);
}

/* 4: load() of unit 37 of 200 fails with -EIO. */
static void test_load_error(struct tally *t)
{
	static const unsigned int workers[] = { 1, 4, 16 };
	static const unsigned int windows[] = { 1, 8, 64 };
	unsigned int i, j;

	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++) {
			struct scenario sc = {
				.nr_units = 200,
				.nr_workers = workers[i],
				.window = windows[j],
				.seed = 40 + i * 3 + j,
				.max_delay_us = 200,
				.fail_load_id = 37,
				.fail_load_err = -EIO,
				.no_failed_id = i == 1 && j == 1,
			};
			struct outcome o = scenario_check(t, &sc);

			CHECK(t, o.secs < 1.0, "load error: returned promptly");
		}
	}
}

/* 5: emit() of unit 10 fails: loaded units after it are discarded. */
static void test_emit_error(struct tally *t)
{
	static const unsigned int workers[] = { 1, 4, 16 };
	static const unsigned int windows[] = { 1, 8, 64 };
	unsigned int i, j;

	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++) {
			struct scenario sc = {
				.nr_units = 200,
				.nr_workers = workers[i],
				.window = windows[j],
				.seed = 50 + i * 3 + j,
				.max_delay_us = 200,
				.fail_emit_id = 10,
				.fail_emit_err = -ENOSPC,
			};
			struct outcome o = scenario_check(t, &sc);

			CHECK(t, o.secs < 1.0, "emit error: returned promptly");
		}
	}
}

/* 6a: nr_units == 0 succeeds and calls nothing. */
static void test_empty(struct tally *t)
{
	struct scenario sc = { .nr_units = 0, .nr_workers = 4, .window = 2 };
	struct probe p;
	struct outcome o;

	o = scenario_run(&sc, &p);
	if (!CHECK(t, p.fate != NULL, "empty"))
		return;
	CHECK(t, o.ret == 0, "empty");
	CHECK(t, atomic_load(&p.calls) == 0, "empty");
	CHECK(t, atomic_load(&p.hook_calls) == 0, "empty");
	probe_fini(&p);
}

/*
 * 6b: no more workers than units: with 64 asked for and 3 units, a load that
 * has slept 20 ms (long after the threads were started) sees at most 3
 * threads more than the process had before. Not counted under
 * ThreadSanitizer, whose runtime may start a thread of its own during the
 * run (CI saw one more).
 */
static void test_few_units(struct tally *t)
{
	struct scenario sc = { .nr_units = 3,
			       .nr_workers = 64,
			       .window = 8,
			       .slow_id = 0,
			       .slow_us = 20000,
			       .count_threads = true };
	unsigned int before = nr_threads();
	struct probe p;
	struct outcome o;

	o = scenario_run(&sc, &p);
	if (!CHECK(t, p.fate != NULL, "few units"))
		return;
	CHECK(t, o.ret == 0, "few units");
	CHECK(t, p.emits == 3, "few units");
#ifdef __SANITIZE_THREAD__
	(void)before;
#else
	CHECK(t, before >= 1 && atomic_load(&p.threads_max) > before, "few units: threads counted");
	CHECK(t, atomic_load(&p.threads_max) <= before + 3,
	      "few units: no more workers than units");
#endif
	probe_fini(&p);
}

/* An opts struct from a newer caller: one more field than we know. */
struct opts_v2 {
	struct emit_ordered_opts base;
	unsigned long extra;
};

static int run_invalid(struct probe *p, const struct emit_ordered_ops *ops,
		       const struct emit_ordered_opts *opts)
{
	unsigned int failed_id = ~0u;
	int ret;

	ret = emit_ordered__run(10, ops, p, opts, &failed_id);
	return failed_id == ~0u ? ret : -ERANGE;
}

/* 6c: invalid arguments are rejected with -EINVAL before any callback. */
static void test_invalid(struct tally *t)
{
	static const struct emit_ordered_ops no_load = { .emit = t_emit };
	static const struct emit_ordered_ops no_emit = { .load = t_load };
	struct scenario sc = { .nr_units = 10 };
	struct emit_ordered_opts opts = { .sz = sizeof(opts), .nr_workers = 2, .window = 2 };
	struct emit_ordered_opts bad = opts;
	struct opts_v2 v2 = { .base = opts, .extra = 1 };
	struct probe p;

	if (probe_init(&p, &sc))
		return;
	bad.nr_workers = 0;
	CHECK(t, run_invalid(&p, &t_ops, &bad) == -EINVAL, "nr_workers 0");
	CHECK(t, run_invalid(&p, NULL, &opts) == -EINVAL, "NULL ops");
	CHECK(t, run_invalid(&p, &no_load, &opts) == -EINVAL, "NULL load");
	CHECK(t, run_invalid(&p, &no_emit, &opts) == -EINVAL, "NULL emit");
	CHECK(t, run_invalid(&p, &t_ops, NULL) == -EINVAL, "NULL opts");
	bad = opts;
	bad.sz = 0;
	CHECK(t, run_invalid(&p, &t_ops, &bad) == -EINVAL, "opts sz 0");
	v2.base.sz = sizeof(v2);
	CHECK(t, run_invalid(&p, &t_ops, &v2.base) == -EINVAL, "unknown nonzero opts field");
	CHECK(t, atomic_load(&p.calls) == 0, "invalid: no callback");
	probe_fini(&p);
}

/* 6d: window 0 is clamped to 1; discard may be NULL on a clean run. */
static void test_window_zero(struct tally *t)
{
	struct scenario sc = {
		.nr_units = 50,
		.nr_workers = 8,
		.window = 0,
		.seed = 7,
		.max_delay_us = 20,
	};
	struct outcome o = scenario_check(t, &sc);

	CHECK(t, o.ret == 0, "window 0");
}

static void test_no_discard(struct tally *t)
{
	static const struct emit_ordered_ops ops = { .load = t_load, .emit = t_emit };
	struct scenario sc = { .nr_units = 30, .nr_workers = 3, .window = 2, .seed = 9 };
	struct emit_ordered_opts opts = {
		.sz = offsetof(struct emit_ordered_opts, on_in_flight),
		.nr_workers = sc.nr_workers,
		.window = sc.window,
	};
	struct probe p;
	int ret;

	if (probe_init(&p, &sc))
		return;
	alarm(WATCHDOG_S);
	ret = emit_ordered__run(sc.nr_units, &ops, &p, &opts, NULL);
	alarm(0);
	CHECK(t, ret == 0, "no discard, short opts");
	CHECK(t, p.emits == sc.nr_units && p.order_errors == 0, "no discard, short opts");
	CHECK(t, atomic_load(&p.hook_calls) == 0, "no discard, short opts");
	probe_fini(&p);
}

/*
 * 8: several bad units: the one reported is the first in unit order, not
 * the first to fail. Unit 40's load is slow and fails; unit 45's fails at
 * once, long before; with an emit() error at 20 that one comes first.
 */
static void test_error_order(struct tally *t)
{
	unsigned int i, j;

	for (i = 0; i < 3; i++) {
		for (j = 0; j < 2; j++) {
			struct scenario sc = {
				.nr_units = 100,
				.nr_workers = 1 + 3 * i,
				.window = 16,
				.seed = 77 + i,
				.max_delay_us = 100,
				.slow_id = 40,
				.slow_us = 50000,
				.fail_load_id = 40,
				.fail_load_err = -EIO,
				.fail_load_id2 = 45,
				.fail_emit_id = 20,
				.fail_emit_err = j ? -ENOSPC : 0,
			};

			scenario_check(t, &sc);
		}
	}
}

/* 7: random shapes; one run in four injects a load or emit error. */
static void test_stress(struct tally *t)
{
	unsigned int seed = 12345, i;

	for (i = 0; i < 200; i++) {
		struct scenario sc = {
			.nr_units = rand_r(&seed) % 301,
			.nr_workers = 1 + rand_r(&seed) % 64,
			.window = 1 + rand_r(&seed) % 32,
			.seed = 1000 + i,
			.max_delay_us = 50,
		};

		if (sc.nr_units && i % 8 == 3) {
			sc.fail_load_id = rand_r(&seed) % sc.nr_units;
			sc.fail_load_err = -EIO;
		} else if (sc.nr_units && i % 8 == 7) {
			sc.fail_emit_id = rand_r(&seed) % sc.nr_units;
			sc.fail_emit_err = -EFBIG;
		}
		scenario_check(t, &sc);
	}
}

/* SIGALRM: a scenario ran past WATCHDOG_S, most likely a deadlock. */
static void watchdog_fired(int sig)
{
	static const char msg[] = "FAIL watchdog: a scenario did not finish (deadlock?)\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(EXIT_FAILURE);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = watchdog_fired };
	struct tally t = {};

	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGALRM, &sa, NULL);

	test_empty(&t);
	test_few_units(&t);
	test_invalid(&t);
	test_window_zero(&t);
	test_no_discard(&t);
	test_order_grid(&t);
	test_slow_first(&t);
	test_emit_unlocked(&t);
	test_load_error(&t);
	test_emit_error(&t);
	test_error_order(&t);
	test_stress(&t);

	printf("%u passed, %u failed\n", t.passed, t.failed);
	return t.failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
