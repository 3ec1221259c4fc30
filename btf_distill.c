// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_distill - libbpf 1.5's btf__distill_base, decision for decision.
 *
 * pahole 1.30 (and 1.32), asked for distilled_base and writing a module's
 * split BTF in place, calls btf__distill_base on the deduplicated split BTF
 * and writes the two BTFs it returns: the new split BTF as .BTF, the
 * distilled base as .BTF.base. libbpf 1.7's function is the same as 1.5's.
 * It works in three steps, reproduced here in the same order, because the
 * order decides every id and every string offset:
 *
 * 1. Mark. Every base type the split BTF refers to is marked, and so is
 *    every base type a marked one refers to, except through a named struct
 *    or union (their distilled form has no members). A marked type must be
 *    INT, FLOAT, FWD, ARRAY, STRUCT, UNION, TYPEDEF, ENUM, ENUM64, PTR,
 *    CONST, RESTRICT, VOLATILE, FUNC_PROTO or TYPE_TAG; any other kind
 *    fails the whole distillation (-EINVAL). The marked set is what is
 *    reachable, so it does not depend on the walk's order: libbpf recurses,
 *    here an explicit stack walks it (a base's chains are input data).
 *
 * 2. The distilled base, in base id order over the marked types: INT,
 *    FLOAT and FWD as they are; a named STRUCT or UNION as one of the same
 *    name and size with no members (kflag 0); a named ENUM or ENUM64 as an
 *    ENUM of the same name and size with no values (kflag 0). Strings are
 *    added as they come, "" first; each type gets the next id.
 *
 * 3. The new split BTF, on the distilled base: first every type of the old
 *    split BTF, in order; then, in base id order over the marked types,
 *    every one step 2 did not take (anonymous STRUCT, UNION, ENUM and
 *    ENUM64, and ARRAY, TYPEDEF, PTR, CONST, RESTRICT, VOLATILE,
 *    FUNC_PROTO and TYPE_TAG), as it is. A string the distilled base holds
 *    is the base's; others are added to the split's section in order of
 *    first use (btf_raw__add_str, as libbpf's btf__add_str). Last, every
 *    type id in the new split BTF is rewritten: a marked base type's to
 *    the id it got, an old split id shifted down by as many ids as the base
 *    lost.
 *
 * The distilled base is read back as a btf_base (btf_base__new) so that
 * the new split's btf_raw finds its strings there, as libbpf's split BTF
 * looks in its base first.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf_base.h"
#include "btf_distill.h"
#include "btf_raw.h"
#include "d2b_util.h"

struct btf_distill {
	struct btf_raw *base; /* the distilled base */
	struct btf_raw *split; /* the split BTF on it */
	struct btf_base *base_view; /* .base read back, for .split's strings */
	void *base_copy; /* the bytes base_view reads */
};

/* the split BTF given, in the host's byte order */
struct src_split {
	const struct btf_base *base;
	uint32_t start_id; /* the base's type count: the first split id */
	uint32_t base_str_len;
	uint8_t *types; /* a copy: records in the host's byte order */
	uint32_t *offs; /* [id - start_id]: record offset in .types */
	uint32_t nr_types;
	const char *strs; /* the split's own strings (offsets from base_str_len) */
	uint32_t strs_len;
};

struct distill_run {
	struct src_split src;
	int *id_map; /* [base id]: 0 unmarked, the id given, or -1 marked */
	uint32_t *stack; /* step 1's base ids to walk */
	uint32_t nr_stack, cap_stack;
	struct btf_raw *dst; /* what step 2 or 3 adds to */
	uint32_t diff_id; /* ids the base lost */
	char *why;
	size_t why_size;
};

/* ---------------------------------------------------------------------- */
/* the split BTF given                                                    */

static int src_parse(struct distill_run *run, const void *data, uint32_t size)
{
	struct src_split *s = &run->src;
	struct btf_header hdr;
	uint32_t pos, cap = 0;
	bool swap;

	if (size < sizeof(hdr))
		goto bad;
	memcpy(&hdr, data, sizeof(hdr));
	swap = hdr.magic != BTF_MAGIC;
	if (swap) {
		hdr.magic = __builtin_bswap16(hdr.magic);
		d2b_bswap32_words(&hdr.hdr_len, 5);
	}
	if (hdr.magic != BTF_MAGIC || hdr.hdr_len < sizeof(hdr) || hdr.type_len % 4 ||
	    (uint64_t)hdr.hdr_len + hdr.type_off + hdr.type_len > size ||
	    (uint64_t)hdr.hdr_len + hdr.str_off + hdr.str_len > size)
		goto bad;
	s->types = malloc(hdr.type_len ? hdr.type_len : 1);
	if (!s->types)
		return -ENOMEM;
	memcpy(s->types, (const char *)data + hdr.hdr_len + hdr.type_off, hdr.type_len);
	if (swap)
		d2b_bswap32_words(s->types, hdr.type_len / 4);
	s->strs = (const char *)data + hdr.hdr_len + hdr.str_off;
	s->strs_len = hdr.str_len;
	for (pos = 0; pos < hdr.type_len;) {
		const struct btf_type *t = (const void *)(s->types + pos);

		if (hdr.type_len - pos < sizeof(*t) || btf_raw__record_size(t) > hdr.type_len - pos)
			goto bad;
		if (d2b_grow(&s->offs, &cap, (uint64_t)s->nr_types + 1, sizeof(*s->offs)))
			return -ENOMEM;
		s->offs[s->nr_types++] = pos;
		pos += btf_raw__record_size(t);
	}
	if ((uint64_t)s->start_id + s->nr_types > INT32_MAX)
		goto bad;
	return 0;
bad:
	snprintf(run->why, run->why_size, "not a split BTF");
	return -EINVAL;
}

/* the string at @off, or NULL */
static const char *src_str(const struct src_split *s, uint32_t off)
{
	if (off < s->base_str_len)
		return btf_base__str(s->base, off);
	off -= s->base_str_len;
	if (off >= s->strs_len || !memchr(s->strs + off, 0, s->strs_len - off))
		return NULL;
	return s->strs + off;
}

/* ---------------------------------------------------------------------- */
/* 1. mark                                                                */

static bool kind_distillable(int kind)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_FWD:
	case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_TYPE_TAG:
		return true;
	default:
		return false;
	}
}

/* a type refers to type *@id: mark it if it is a base type (and walk it later) */
static int mark_ref(uint32_t *id, void *ctx)
{
	struct distill_run *run = ctx;
	const struct btf_type *t;

	if (!*id || *id >= run->src.start_id || run->id_map[*id])
		return 0;
	t = btf_base__type(run->src.base, *id);
	if (!kind_distillable(btf_kind(t))) {
		snprintf(run->why, run->why_size,
			 "refers to base type [%u] of kind %u, which cannot be distilled", *id,
			 btf_kind(t));
		return -EINVAL;
	}
	run->id_map[*id] = -1;
	/* a named struct or union is distilled without members: not walked */
	if ((btf_kind(t) == BTF_KIND_STRUCT || btf_kind(t) == BTF_KIND_UNION) && t->name_off)
		return 0;
	if (d2b_grow(&run->stack, &run->cap_stack, (uint64_t)run->nr_stack + 1,
		     sizeof(*run->stack)))
		return -ENOMEM;
	run->stack[run->nr_stack++] = *id;
	return 0;
}

static int mark(struct distill_run *run)
{
	uint32_t i;
	int err = 0;

	for (i = 0; i < run->src.nr_types && !err; i++)
		err = btf_raw__visit_ids((void *)(run->src.types + run->src.offs[i]), mark_ref,
					 run);
	while (!err && run->nr_stack) {
		/* (read only: the base's records may lie in a read-only mapping) */
		uint32_t id = run->stack[--run->nr_stack];

		err = btf_raw__visit_ids((struct btf_type *)btf_base__type(run->src.base, id),
					 mark_ref, run);
	}
	return err;
}

/* ---------------------------------------------------------------------- */
/* 2 and 3. the distilled base, the split BTF on it                       */

static uint32_t str_to_dst(void *ctx, uint32_t off, int *err)
{
	struct distill_run *run = ctx;
	const char *s;
	int r;

	if (!off)
		return 0; /* (libbpf keeps no name as it is) */
	s = src_str(&run->src, off);
	r = s ? btf_raw__add_str(run->dst, s) : -EINVAL;
	if (r < 0) {
		*err = r;
		return 0;
	}
	return (uint32_t)r;
}

/* @t (of @run's source) appended to run->dst as it is, its names mapped */
static int add_as_is(struct distill_run *run, const struct btf_type *t)
{
	uint32_t size = btf_raw__record_size(t);
	struct btf_type *copy = malloc(size);
	int err = 0, id;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, t, size);
	btf_raw__map_names(copy, str_to_dst, run, &err);
	id = err ? err : btf_raw__add_record(run->dst, copy, size);
	free(copy);
	return id;
}

/* the distilled form of a named struct, union or enum: its name and size alone */
static int add_sized(struct distill_run *run, const struct btf_type *t)
{
	const char *name = src_str(&run->src, t->name_off);
	int off = name ? btf_raw__add_str(run->dst, name) : -EINVAL;

	if (off < 0)
		return off;
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
		return btf_raw__add_composite(run->dst, (uint32_t)off, false, t->size);
	case BTF_KIND_UNION:
		return btf_raw__add_composite(run->dst, (uint32_t)off, true, t->size);
	default: /* an ENUM64 too is distilled as an ENUM */
		return btf_raw__add_enum(run->dst, (uint32_t)off, false, t->size, false);
	}
}

/* what the distilled base holds of a marked type: 1 all of it, 0 its name and size, -1 none */
static int base_takes(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_FWD:
		return 1;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return t->name_off ? 0 : -1;
	default:
		return -1;
	}
}

/* the marked types that go to the distilled base (@to_base) or the split BTF, numbered */
static int add_marked(struct distill_run *run, bool to_base)
{
	uint32_t i, next = btf_raw__type_cnt(run->dst);
	int err;

	for (i = 1; i < run->src.start_id; i++) {
		const struct btf_type *t;
		int takes;

		if (!run->id_map[i])
			continue;
		t = btf_base__type(run->src.base, i);
		takes = base_takes(t);
		if (to_base != (takes >= 0))
			continue;
		err = takes == 0 ? add_sized(run, t) : add_as_is(run, t);
		if (err < 0)
			return err;
		run->id_map[i] = (int)next++;
	}
	return 0;
}

/* a type id of the new split BTF, from the old numbering to the new */
static int id_renumber(uint32_t *id, void *ctx)
{
	struct distill_run *run = ctx;

	if (*id && *id < run->src.start_id)
		*id = (uint32_t)run->id_map[*id];
	else if (*id >= run->src.start_id)
		*id -= run->diff_id;
	return 0;
}

static int split_build(struct distill_run *run, struct btf_distill *d)
{
	uint32_t i, n, size;
	const void *raw;
	int err;

	raw = btf_raw__raw_data(d->base, false, &size);
	d->base_copy = raw ? malloc(size) : NULL;
	if (!d->base_copy)
		return -ENOMEM;
	memcpy(d->base_copy, raw, size);
	d->base_view = btf_base__new(d->base_copy, size, run->why, run->why_size, &err);
	if (!d->base_view)
		return err;
	d->split = btf_raw__new(d->base_view);
	if (!d->split)
		return -ENOMEM;
	run->dst = d->split;
	for (i = 0; i < run->src.nr_types; i++) {
		err = add_as_is(run, (const void *)(run->src.types + run->src.offs[i]));
		if (err < 0)
			return err;
	}
	err = add_marked(run, false);
	if (err)
		return err;
	run->diff_id = run->src.start_id - btf_raw__type_cnt(d->base);
	n = btf_raw__type_cnt(d->split);
	for (i = btf_raw__type_cnt(d->base); i < n; i++)
		btf_raw__visit_ids(btf_raw__type(d->split, i), id_renumber, run);
	return 0;
}

int btf_distill__new(const struct btf_base *base, const void *split, uint32_t size,
		     struct btf_distill **out, char *why, size_t why_size)
{
	struct distill_run run = { .why = why, .why_size = why_size };
	struct btf_distill *d = calloc(1, sizeof(*d));
	int err;

	why[0] = 0;
	run.src.base = base;
	run.src.start_id = btf_base__type_cnt(base);
	run.src.base_str_len = btf_base__str_len(base);
	run.id_map = calloc(run.src.start_id, sizeof(*run.id_map));
	err = d && run.id_map ? src_parse(&run, split, size) : -ENOMEM;
	if (!err)
		err = mark(&run);
	if (!err) {
		d->base = btf_raw__new(NULL);
		run.dst = d->base;
		err = d->base ? add_marked(&run, true) : -ENOMEM;
	}
	if (!err)
		err = split_build(&run, d);
	free(run.id_map);
	free(run.stack);
	free(run.src.types);
	free(run.src.offs);
	if (err) {
		if (!why[0])
			snprintf(why, why_size, "%s", strerror(-err));
		btf_distill__free(d);
		return err;
	}
	*out = d;
	return 0;
}

void btf_distill__free(struct btf_distill *d)
{
	if (!d)
		return;
	btf_raw__free(d->split); /* (before the base it is split on) */
	btf_base__free(d->base_view);
	free(d->base_copy);
	btf_raw__free(d->base);
	free(d);
}

const void *btf_distill__base_data(struct btf_distill *d, bool swap, uint32_t *size)
{
	return btf_raw__raw_data(d->base, swap, size);
}

const void *btf_distill__split_data(struct btf_distill *d, bool swap, uint32_t *size)
{
	return btf_raw__raw_data(d->split, swap, size);
}
