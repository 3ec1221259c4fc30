// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_unit_ring - the loaded units' ring, against a model of what it holds.
 *
 * 1. Random allocations and releases, releases mostly in allocation order
 *    (as the writer frees units) and sometimes out of it (as the discard
 *    path may): every block lies in the ring, 16-byte aligned, where a
 *    model of the ring (the blocks not yet reclaimed, in order, with their
 *    offsets) puts it, and overlaps no other block out (each is filled with
 *    its own pattern, checked when it is released); an allocation is
 *    refused only when the model finds no room either.
 * 2. Space comes back: a block released before the one ahead of it is not
 *    used again until that one is released too; and the edges: a block
 *    exactly as big as the room fits and 16 bytes more does not, a full
 *    ring gives nothing, a block of 0 bytes in the last 16 bytes is owned.
 * 3. Threads: loaders allocate and fill blocks, a writer checks and
 *    releases them in order (ThreadSanitizer runs it in the sanitizer
 *    builds).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit_ring.h"

static int failures;

#define FAIL(...)                                                        \
	do {                                                             \
		if (failures++ < 20)                                     \
			fprintf(stderr, "test_unit_ring: " __VA_ARGS__); \
	} while (0)

struct blk {
	unsigned char *p;
	size_t n;
	uint32_t pat; /* the block's own: its bytes are pat_byte(pat, i) */
};

static unsigned char pat_byte(uint32_t pat, size_t i)
{
	return (unsigned char)((pat * 2654435761u + (uint32_t)i * 40503u) >> 24);
}

static void fill(struct blk *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		b->p[i] = pat_byte(b->pat, i);
}

static void check(const struct blk *b, const char *what)
{
	size_t i;

	for (i = 0; i < b->n; i++) {
		if (b->p[i] != pat_byte(b->pat, i)) {
			FAIL("%s: block of %zu bytes overwritten at %zu\n", what, b->n, i);
			return;
		}
	}
}

#define CAP (256u << 10)
#define HDR 16

/* bytes a block of @n takes, header included (the ring's rule) */
static size_t need_of(size_t n)
{
	return (HDR + n + 15) & ~(size_t)15;
}

/*
 * The model: every block allocated and not yet reclaimed, released or not,
 * in allocation order, with its offset. The ring reclaims from the oldest
 * while released, so the space in use runs from the oldest's offset (head)
 * to the end of the newest (tail), going around; free are [tail, cap) and
 * [0, head), or [tail, head) once it wrapped.
 */
struct model_blk {
	size_t off, need;
	int released;
	struct blk b;
};

struct model {
	struct model_blk q[1024];
	size_t first, nr; /* a circular queue */
};

static struct model_blk *model_at(struct model *m, size_t i)
{
	return &m->q[(m->first + i) % 1024];
}

/* where a block of @need goes, or (size_t)-1 if it cannot */
static size_t model_place(struct model *m, size_t need)
{
	size_t head, tail;

	if (!m->nr)
		return need <= CAP ? 0 : (size_t)-1;
	head = model_at(m, 0)->off;
	tail = (model_at(m, m->nr - 1)->off + model_at(m, m->nr - 1)->need) % CAP;
	if (tail > head)
		return CAP - tail >= need ? tail : head >= need ? 0 : (size_t)-1;
	if (tail == head)
		return (size_t)-1; /* full */
	return head - tail >= need ? tail : (size_t)-1;
}

static void test_random(void)
{
	struct unit_ring *ur = unit_ring__new(CAP);
	static struct model m;
	unsigned int seed = 12345, step, ok = 0, full = 0;
	unsigned char *base = NULL;
	size_t i;

	if (!ur) {
		FAIL("unit_ring__new failed\n");
		return;
	}
	for (step = 0; step < 200000 && failures < 20; step++) {
		unsigned int r = rand_r(&seed);
		size_t out = 0;

		for (i = 0; i < m.nr; i++)
			out += !model_at(&m, i)->released;
		if (out && (r % 3 == 0 || m.nr >= 1000)) {
			/* release: the oldest out most often, else any out */
			size_t k = r % 16 ? 0 : (size_t)rand_r(&seed) % out, j;
			struct model_blk *mb = NULL;

			for (i = 0, j = 0; i < m.nr; i++) {
				if (model_at(&m, i)->released)
					continue;
				if (j++ == k) {
					mb = model_at(&m, i);
					break;
				}
			}
			check(&mb->b, "random");
			unit_ring__release(ur, mb->b.p);
			mb->released = 1;
			while (m.nr && model_at(&m, 0)->released) {
				m.first = (m.first + 1) % 1024;
				m.nr--;
			}
		} else {
			size_t n = r % 7 ? (size_t)rand_r(&seed) % 4096
					 : (size_t)rand_r(&seed) % (CAP / 3);
			size_t want = model_place(&m, need_of(n));
			unsigned char *p = unit_ring__alloc(ur, n);
			struct model_blk *mb;

			if (!p) {
				if (want != (size_t)-1)
					FAIL("step %u: %zu bytes refused, the model puts them at %zu\n",
					     step, n, want);
				full++;
				continue;
			}
			if (!base)
				base = p - HDR; /* the first block, in an empty ring, is at 0 */
			ok++;
			if (!unit_ring__owns(ur, p) || ((uintptr_t)p & 15))
				FAIL("block %p not the ring's or not 16-aligned\n", (void *)p);
			if ((size_t)(p - HDR - base) != want)
				FAIL("step %u: %zu bytes placed at %zu, the model says %zu\n", step,
				     n, (size_t)(p - HDR - base), want);
			if (!m.nr)
				m.first = 0;
			mb = model_at(&m, m.nr++);
			*mb = (struct model_blk){
				(size_t)(p - HDR - base), need_of(n), 0, { p, n, step }
			};
			fill(&mb->b);
		}
	}
	for (i = 0; i < m.nr; i++) {
		if (model_at(&m, i)->released)
			continue;
		check(&model_at(&m, i)->b, "random, at the end");
		unit_ring__release(ur, model_at(&m, i)->b.p);
	}
	if (!ok || !full)
		FAIL("random: %u allocations, %u refused: both should happen\n", ok, full);
	/* empty again: the whole ring, less a header, in one block */
	{
		void *p = unit_ring__alloc(ur, CAP - HDR);

		if (!p)
			FAIL("empty ring refused a block of its whole size\n");
		else
			unit_ring__release(ur, p);
		if (unit_ring__alloc(ur, CAP))
			FAIL("a block bigger than the ring was given\n");
	}
	unit_ring__free(ur);
}

/* three blocks of @third from an empty ring, in a row; false (reported) if refused */
static bool three(struct unit_ring *ur, size_t third, void **a, void **b, void **c,
		  const char *what)
{
	*a = unit_ring__alloc(ur, third);
	*b = unit_ring__alloc(ur, third);
	*c = unit_ring__alloc(ur, third);
	if (*a && *b && *c)
		return true;
	FAIL("%s: three thirds refused\n", what);
	return false;
}

static void test_order(void)
{
	struct unit_ring *ur = unit_ring__new(CAP);
	size_t third = CAP / 3 - 2 * HDR; /* three of these fill the ring but for a little */
	void *a, *b, *c, *d;

	if (!ur) {
		FAIL("unit_ring__new failed\n");
		return;
	}
	if (!three(ur, third, &a, &b, &c, "order"))
		return;
	if (unit_ring__alloc(ur, third))
		FAIL("order: a fourth third fit in a full ring\n");
	unit_ring__release(ur, b); /* a is still out: b's space stays taken */
	d = unit_ring__alloc(ur, third);
	if (d)
		FAIL("order: b's space used while a, before it, is out\n");
	unit_ring__release(ur, a); /* now a and b come back */
	d = unit_ring__alloc(ur, third);
	if (!d)
		FAIL("order: a's and b's space did not come back\n");
	else if (d != a)
		FAIL("order: the block after a wrap should start at the ring's start\n");
	if (d)
		unit_ring__release(ur, d);
	unit_ring__release(ur, c);

	/* the edges: a block exactly as big as the room before head fits, 16 bytes more not */
	if (!three(ur, third, &a, &b, &c, "edges"))
		return;
	unit_ring__release(ur, a); /* head at b, (char *)b - HDR - base bytes before it */
	d = unit_ring__alloc(ur, (size_t)((char *)b - (char *)a) + 16 - HDR);
	if (d)
		FAIL("edges: a block 16 bytes bigger than the room before head was given\n");
	d = unit_ring__alloc(ur, (size_t)((char *)b - (char *)a) - HDR);
	if (d != a)
		FAIL("edges: a block exactly the room before head was not put there\n");
	if (unit_ring__alloc(ur, 0))
		FAIL("edges: a full ring gave a block\n");
	if (d)
		unit_ring__release(ur, d);
	unit_ring__release(ur, b);
	unit_ring__release(ur, c);

	/* a block of 0 bytes in the ring's last 16 bytes: it points at the
	 * ring's end, and is still the ring's */
	a = unit_ring__alloc(ur, CAP - 2 * HDR);
	b = unit_ring__alloc(ur, 0);
	if (!a || !b || (char *)b != (char *)a - HDR + CAP || !unit_ring__owns(ur, b))
		FAIL("edges: a block of 0 bytes at the ring's end not given, or not owned\n");
	if (b)
		unit_ring__release(ur, b);
	if (a)
		unit_ring__release(ur, a);
	unit_ring__free(ur);
}

/* threads: NR_LOADERS fill blocks; the writer releases them in id order */
#define NR_LOADERS 4
#define NR_UNITS 20000
#define WINDOW 24

struct shared {
	struct unit_ring *ur;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int next_claim, next_write;
	struct blk blk[NR_UNITS];
	int ready[NR_UNITS];
};

static void *loader(void *arg)
{
	struct shared *sh = arg;
	for (;;) {
		unsigned int id;
		struct blk b;

		pthread_mutex_lock(&sh->lock);
		while (sh->next_claim < NR_UNITS && sh->next_claim - sh->next_write >= WINDOW)
			pthread_cond_wait(&sh->cond, &sh->lock);
		id = sh->next_claim++;
		pthread_mutex_unlock(&sh->lock);
		if (id >= NR_UNITS)
			return NULL;
		b.n = (size_t)(id * 2654435761u >> 8) % 20000; /* (the same every run) */
		b.pat = id;
		b.p = unit_ring__alloc(sh->ur, b.n);
		if (!b.p)
			b.p = malloc(b.n ? b.n : 1); /* as cu_pack does */
		fill(&b);
		pthread_mutex_lock(&sh->lock);
		sh->blk[id] = b;
		sh->ready[id] = 1;
		pthread_cond_broadcast(&sh->cond);
		pthread_mutex_unlock(&sh->lock);
	}
}

static void test_threads(void)
{
	static struct shared sh;
	pthread_t t[NR_LOADERS];
	unsigned int i, id, in_ring = 0;

	sh.ur = unit_ring__new(CAP);
	if (!sh.ur) {
		FAIL("unit_ring__new failed\n");
		return;
	}
	pthread_mutex_init(&sh.lock, NULL);
	pthread_cond_init(&sh.cond, NULL);
	for (i = 0; i < NR_LOADERS; i++)
		pthread_create(&t[i], NULL, loader, &sh);
	for (id = 0; id < NR_UNITS; id++) {
		struct blk b;

		pthread_mutex_lock(&sh.lock);
		while (!sh.ready[id])
			pthread_cond_wait(&sh.cond, &sh.lock);
		b = sh.blk[id];
		pthread_mutex_unlock(&sh.lock);
		check(&b, "threads");
		if (unit_ring__owns(sh.ur, b.p)) {
			in_ring++;
			unit_ring__release(sh.ur, b.p);
		} else {
			free(b.p);
		}
		pthread_mutex_lock(&sh.lock);
		sh.next_write = id + 1;
		pthread_cond_broadcast(&sh.cond);
		pthread_mutex_unlock(&sh.lock);
	}
	for (i = 0; i < NR_LOADERS; i++)
		pthread_join(t[i], NULL);
	/* a window of 24 blocks of 10 KB on average fits in 256 KiB most of the time */
	if (in_ring < NR_UNITS / 2)
		FAIL("threads: only %u of %u blocks came from the ring\n", in_ring, NR_UNITS);
	unit_ring__free(sh.ur);
}

int main(void)
{
	test_random();
	test_order();
	test_threads();
	if (failures) {
		fprintf(stderr, "test_unit_ring: %d failure(s)\n", failures);
		return 1;
	}
	printf("test_unit_ring: ok\n");
	return 0;
}
