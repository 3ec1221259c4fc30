// SPDX-License-Identifier: GPL-2.0-only
/*
 * dedup_fail - a struct check's failure proved before its is_equiv walk
 * (dedup_equiv.c), in libbpf 1.1's rules, and the proof kept for the
 * checks after it.
 *
 * The problem. A module's struct is checked against its base copy by
 * libbpf's depth-first walk, which pairs each canonical type it reaches
 * with the module's type at the same place. Where the module holds exact
 * repeats (two `void *` records; two arrays of one type but of different
 * lengths at two uses), the walk fails only where it meets the second of
 * them, after pairing most of what the struct reaches; and every later
 * struct that reaches the same place fails there again. In 7.2's ah4.ko,
 * 311 of 1,037 checks fail, and their walks were most of the dedup.
 *
 * What makes a walk fail. A walk from a pair reaches a pair when the
 * pair's parent is expanded (paired afresh, its children met in turn). A
 * reached pair that is not passed over (its two ids resolve alike) is
 * either paired afresh, where a mismatch of kind, name, size, members or
 * length fails the walk ("fails alone"); or meets its canonical type paired
 * already: with the same type, or one identical to it, it passes, with
 * another it fails. So a walk that reaches a chain of pairs, each the
 * parent of the next, not passed over, with the canonical type each
 * declaration resolves to unchanged, reaches the chain's end or fails:
 * where a pair of the chain meets its canonical type paired with a type
 * identical to its own, that type's own pairing reached the same children,
 * if the two are identical with the very same member ids ("strict" twins:
 * any two identical arrays; structs whose members' ids are equal). A type
 * with an identical type of other member ids (a "loose" twin, found once
 * per dedup) would reach other children, so a chain holds no such type but
 * at its end. Hence a proof that a walk reaching pair p fails:
 *   - a chain from p to a pair that fails alone; or
 *   - a chain from p to a pair L, and two chains from L to pairs (x1, c)
 *     and (x2, c) with x1 and x2 not identical: the walk pairs c with one
 *     type and meets it with another (identity is an equivalence).
 * A proof stays true while each of its pairs is not passed over and its
 * declarations resolve as they did: the map only grows between checks, so
 * each use checks that again (proof_holds).
 *
 * The search. dedup__fails_fast walks the same pairs breadth first, each
 * pair met as is_equiv meets it, and stops at the first failure: a pair
 * that fails alone, a canonical type met with a type not identical to its
 * pairing, or a pair that begins a proof kept from an earlier check. The
 * breadth-first tree gives the chains from the struct's own pair, so the
 * depth-first walk, which reaches every pair this one expanded, fails too;
 * a type with a loose twin on the way makes the search give up (0: not
 * proved), and then, as where it finds no failure, the walk itself runs.
 * Each failure found becomes a proof, and each pair on its chain from the
 * struct's pair is marked with it (marks, one per module type), so a later
 * search that meets one of them stops there.
 *
 * Only for split BTF: a module's checks that pass are short (they meet
 * base types its earlier structs were mapped to), but a vmlinux batch's
 * walk whole graphs, and the search would walk each twice (7.2 vmlinux,
 * -j1: 2.6 s -> 3.7 s of CPU). Not for libbpf 1.7.0: its identical_types
 * takes any two types alike to 16 levels as identical, pointers too, and
 * its twins are not worked out here. Off where a split type refers to a
 * base type: the twins are only worked out among the split types.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf_dedup_priv.h"
#include "btf_raw.h"
#include "d2b_util.h"
#include "dedup_compare.h"

#define NO_PARENT UINT32_MAX

enum fail_step {
	STEP_ON, /* the pair passes (or its children are queued) */
	STEP_ALONE, /* the pair fails alone */
	STEP_CONFLICT, /* its canonical type was paired with a type not identical */
	STEP_MARKED, /* it begins a kept proof */
	STEP_UNKNOWN, /* a loose twin, or a kind the walk refuses: nothing proved */
};

/* a pair as a chain holds it: the canonical id as met, and as it resolved */
struct fail_pair {
	uint32_t cand, canon, fwd;
};

/* a proof: pool[start..start + n), its chain, then the two for a conflict */
struct fail_proof {
	uint32_t start, n;
};

/* a pair the search queued: its ids and the queued pair it is a child of */
struct fail_queued {
	uint32_t cand, canon, parent;
};

/* (cand, canon) begins proof - 1's chain at pair at; proof 0: none */
struct fail_mark {
	uint32_t canon, proof, at;
};

struct dedup_fail {
	uint8_t *loose; /* by split id: has a loose twin */
	struct fail_mark *marks; /* by split id */
	struct fail_pair *pool;
	struct fail_proof *proofs;
	struct fail_queued *queue;
	uint32_t nr_pool, cap_pool, nr_proofs, cap_proofs, nr_queue, cap_queue;
};

struct twin_key {
	uint64_t h;
	uint32_t id;
};

static int twin_key_cmp(const void *a, const void *b)
{
	const struct twin_key *x = a, *y = b;

	return x->h < y->h ? -1 : x->h > y->h;
}

/* a struct's hash, equal for identical structs: its members' ids, or their own hash */
static uint64_t twin_hash(const struct dedup *d, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	uint64_t h = dedup_compare__hash_struct(t);
	uint32_t i;

	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_type *mt = d->types[m[i].type];

		if (btf_is_array(mt))
			h = h * 31 + dedup_compare__hash_array(mt);
		else if (btf_is_composite(mt))
			h = h * 37 + dedup_compare__hash_struct(mt);
		else
			h = h * 41 + m[i].type;
	}
	return h;
}

static bool same_members(const struct btf_type *x, const struct btf_type *y)
{
	const struct btf_member *mx = btf_members(x), *my = btf_members(y);
	uint32_t i;

	for (i = 0; i < btf_vlen(x); i++)
		if (mx[i].type != my[i].type)
			return false;
	return true;
}

/*
 * Whether struct @t has an array or struct member: only then can a struct
 * identical to it have other member ids
 */
static bool has_nested(const struct dedup *d, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	uint32_t i;

	for (i = 0; i < btf_vlen(t); i++)
		if (btf_is_array(d->types[m[i].type]) || btf_is_composite(d->types[m[i].type]))
			return true;
	return false;
}

/* loose[]: the split structs identical to another of other member ids */
static int find_loose(struct dedup *d, struct dedup_fail *f)
{
	uint32_t id, n = 0, i, j, k;
	struct twin_key *keys = malloc((d->nr - d->start_id + 1) * sizeof(*keys));

	if (!keys)
		return -ENOMEM;
	for (id = d->start_id; id < d->nr; id++)
		if (btf_is_composite(d->types[id]) && has_nested(d, d->types[id]))
			keys[n++] = (struct twin_key){ twin_hash(d, d->types[id]), id };
	qsort(keys, n, sizeof(*keys), twin_key_cmp);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && keys[j].h == keys[i].h; j++)
			;
		for (k = i; k < j; k++) {
			uint32_t l, a = keys[k].id;

			for (l = k + 1; l < j; l++) {
				uint32_t b = keys[l].id;

				if (dedup__identical(d, a, b) &&
				    !same_members(d->types[a], d->types[b])) {
					f->loose[a - d->start_id] = 1;
					f->loose[b - d->start_id] = 1;
				}
			}
		}
	}
	free(keys);
	return 0;
}

static int refers_to_base(uint32_t *id, void *ctx)
{
	const struct dedup *d = ctx;

	return *id && *id < d->start_id;
}

int dedup__fail_new(struct dedup *d)
{
	struct dedup_fail *f;
	uint32_t id, nr = d->nr - d->start_id + 1;

	if (d->v170 || d->start_id == 1)
		return 0;
	for (id = d->start_id; id < d->nr; id++)
		if (btf_raw__visit_ids(d->types[id], refers_to_base, d))
			return 0;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	d->fail = f;
	f->loose = calloc(nr, sizeof(*f->loose));
	f->marks = calloc(nr, sizeof(*f->marks));
	if (!f->loose || !f->marks)
		return -ENOMEM;
	return find_loose(d, f);
}

void dedup__fail_free(struct dedup *d)
{
	struct dedup_fail *f = d->fail;

	if (!f)
		return;
	free(f->loose);
	free(f->marks);
	free(f->pool);
	free(f->proofs);
	free(f->queue);
	free(f);
	d->fail = NULL;
}

/* whether a walk that reaches pair @p of a chain still reaches the next */
static bool pair_holds(const struct dedup *d, const struct fail_pair *p)
{
	return resolve_id(d, p->cand) != resolve_id(d, p->canon) &&
	       dedup__resolve_fwd_id(d, p->canon) == p->fwd;
}

static bool proof_holds(const struct dedup *d, const struct fail_proof *pr, uint32_t at)
{
	const struct fail_pair *p = d->fail->pool + pr->start;
	uint32_t i;

	for (i = at; i < pr->n; i++)
		if (!pair_holds(d, p + i))
			return false;
	return true;
}

static int queue_push(struct dedup_fail *f, uint32_t cand, uint32_t canon, uint32_t parent)
{
	if (d2b_grow(&f->queue, &f->cap_queue, (uint64_t)f->nr_queue + 1, sizeof(*f->queue)))
		return -ENOMEM;
	f->queue[f->nr_queue++] = (struct fail_queued){ cand, canon, parent };
	return 0;
}

/* a child pair of queued pair *@ctx, queued */
static int meet_queue(struct dedup *d, uint32_t cand_id, uint32_t canon_id, void *ctx)
{
	return queue_push(d->fail, cand_id, canon_id, *(uint32_t *)ctx) ?: 1;
}

/* queued pair @q met as is_equiv meets a pair */
static int step(struct dedup *d, uint32_t q)
{
	struct dedup_fail *f = d->fail;
	uint32_t cand_id = f->queue[q].cand, canon_id = f->queue[q].canon, hypot;
	int eq;

	if (resolve_id(d, cand_id) == resolve_id(d, canon_id))
		return STEP_ON;
	if (cand_id >= d->start_id) {
		const struct fail_mark *m = &f->marks[cand_id - d->start_id];

		if (m->proof && m->canon == canon_id &&
		    proof_holds(d, &f->proofs[m->proof - 1], m->at))
			return STEP_MARKED;
	}
	canon_id = dedup__resolve_fwd_id(d, canon_id);
	hypot = hypot_of(d, canon_id);
	if (hypot <= MAX_NR_TYPES)
		return hypot == cand_id || dedup__identical(d, hypot, cand_id) ? STEP_ON
									       : STEP_CONFLICT;
	if (cand_id >= d->start_id && f->loose[cand_id - d->start_id])
		return STEP_UNKNOWN;
	if (dedup__hypot_add(d, canon_id, cand_id))
		return -ENOMEM;
	eq = dedup__pair_check(d, cand_id, canon_id, meet_queue, &q);
	if (eq == -EINVAL)
		return STEP_UNKNOWN; /* (is_equiv's error, its own to give) */
	return eq < 0 ? eq : eq ? STEP_ON : STEP_ALONE;
}

/* the queued pair that paired @canon (as resolved) with @cand, before @q */
static uint32_t paired_at(const struct dedup *d, uint32_t q, uint32_t cand, uint32_t canon)
{
	const struct dedup_fail *f = d->fail;
	uint32_t i;

	for (i = 0; i < q; i++) {
		const struct fail_queued *e = &f->queue[i];

		if (e->cand == cand && resolve_id(d, e->cand) != resolve_id(d, e->canon) &&
		    dedup__resolve_fwd_id(d, e->canon) == canon)
			return i;
	}
	return NO_PARENT;
}

static uint32_t depth_of(const struct dedup_fail *f, uint32_t q)
{
	uint32_t n = 0;

	for (; q != NO_PARENT; q = f->queue[q].parent)
		n++;
	return n;
}

/* the @n pairs of the chain that ends at queued pair @q, into @out */
static void chain_fill(const struct dedup *d, struct fail_pair *out, uint32_t q, uint32_t n)
{
	const struct dedup_fail *f = d->fail;

	while (n--) {
		const struct fail_queued *e = &f->queue[q];

		out[n] =
			(struct fail_pair){ e->cand, e->canon, dedup__resolve_fwd_id(d, e->canon) };
		q = e->parent;
	}
}

/* the lowest queued pair above (or at) both @q and @r; their depths below it */
static uint32_t chains_part(const struct dedup_fail *f, uint32_t q, uint32_t r, uint32_t *a,
			    uint32_t *b)
{
	uint32_t dq = depth_of(f, q), dr = depth_of(f, r);

	*a = *b = 0;
	for (; dq > dr; dq--, (*a)++)
		q = f->queue[q].parent;
	for (; dr > dq; dr--, (*b)++)
		r = f->queue[r].parent;
	for (; q != r; (*a)++, (*b)++) {
		q = f->queue[q].parent;
		r = f->queue[r].parent;
	}
	return q;
}

/*
 * Keep the proof found at queued pair @q: it fails alone (@how
 * STEP_ALONE), or its canonical type was paired at queued pair @other
 * (STEP_CONFLICT), or it begins the kept proof of mark @m (STEP_MARKED).
 * Each pair of its chain from the struct's own pair is marked with it.
 */
static int proof_keep(struct dedup *d, uint32_t q, int how, uint32_t other, struct fail_mark m)
{
	struct dedup_fail *f = d->fail;
	uint32_t top = q, a = 0, b = 0, tail = 0, n, i, start = f->nr_pool;
	struct fail_pair *p;

	if (how == STEP_CONFLICT)
		top = chains_part(f, q, other, &a, &b);
	else if (how == STEP_MARKED)
		tail = f->proofs[m.proof - 1].n - m.at - 1;
	n = depth_of(f, top);
	if (d2b_grow(&f->pool, &f->cap_pool, (uint64_t)f->nr_pool + n + a + b + tail, sizeof(*p)) ||
	    d2b_grow(&f->proofs, &f->cap_proofs, (uint64_t)f->nr_proofs + 1, sizeof(*f->proofs)))
		return -ENOMEM;
	p = f->pool + start;
	chain_fill(d, p, top, n);
	chain_fill(d, p + n, q, a);
	chain_fill(d, p + n + a, other, b);
	if (tail)
		memcpy(p + n, f->pool + f->proofs[m.proof - 1].start + m.at + 1, tail * sizeof(*p));
	f->nr_pool += n + a + b + tail;
	f->proofs[f->nr_proofs++] = (struct fail_proof){ start, n + a + b + tail };
	for (i = 0; i < n; i++)
		if (p[i].cand >= d->start_id)
			f->marks[p[i].cand - d->start_id] =
				(struct fail_mark){ p[i].canon, f->nr_proofs, i };
	return 0;
}

int dedup__fails_fast(struct dedup *d, uint32_t cand_id, uint32_t canon_id)
{
	struct dedup_fail *f = d->fail;
	uint32_t q, other = NO_PARENT;
	struct fail_mark m = { 0 };
	int r = STEP_ON;

	if (!f)
		return 0;
	f->nr_queue = 0;
	if (queue_push(f, cand_id, canon_id, NO_PARENT))
		return -ENOMEM;
	for (q = 0; q < f->nr_queue && r == STEP_ON; q++)
		r = step(d, q);
	if (r == STEP_CONFLICT || r == STEP_MARKED) {
		const struct fail_queued *e = &f->queue[--q];
		uint32_t canon;

		if (r == STEP_MARKED) {
			m = f->marks[e->cand - d->start_id];
		} else {
			canon = dedup__resolve_fwd_id(d, e->canon);
			other = paired_at(d, q, hypot_of(d, canon), canon);
		}
		if (r == STEP_CONFLICT && other == NO_PARENT)
			r = STEP_UNKNOWN;
		else if (proof_keep(d, q, r, other, m))
			r = -ENOMEM;
	} else if (r == STEP_ALONE && proof_keep(d, q - 1, r, NO_PARENT, m)) {
		r = -ENOMEM;
	}
	dedup__hypot_clear(d);
	if (r < 0)
		return r;
	return r == STEP_ALONE || r == STEP_CONFLICT || r == STEP_MARKED;
}
