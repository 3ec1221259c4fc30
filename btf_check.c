// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_check - structural checks on BTF read from a file, before it is used.
 *
 * Debian 12's libbpf 1.1 makes a struct btf of any bytes with a valid
 * header: btf__new does not validate types, and btf__dedup then follows
 * whatever ids and name offsets they hold (a PTR to type 0xfffff in a base
 * crashed it). The kernel's BTF verifier, and libbpf from 1.3 on, check the
 * structure first; so does this, with the subset of the kernel's checks
 * that keeps the walks of libbpf and of dwarf2btf (btf_dedup, which reads
 * the base where it lies) in bounds and finite:
 *
 *  - header: magic (either byte order), version 1, no flags, a header
 *    length that fits, type and string sections inside the data, not
 *    overlapping, the type section 4-byte aligned;
 *  - strings: non-empty, starting and ending with NUL, so every name offset
 *    inside them reads a terminated string;
 *  - each type: a kind libbpf 1.1 knows (up to ENUM64), no unused info
 *    bits, the vlen and kflag its kind allows, its record inside the type
 *    section, name offsets inside the strings, names where the kind needs
 *    one (and none where it must not have one), sizes its kind allows;
 *  - every type id referred to is void or an existing type, and where a
 *    type of data is meant (a member, parameter, return, array element or
 *    index, what a pointer, qualifier, typedef or type tag refers to), not
 *    a VAR, DATASEC or DECL_TAG: libbpf's dedup, and btf_dedup's, fail on
 *    one only when a struct's check pairs it with another of its kind and
 *    name, and btf_dedup stops some checks before libbpf would get there;
 *  - no loop of reference types (pointers, qualifiers, typedefs, type
 *    tags, array elements), which would send a walk round forever.
 *
 * Struct member offsets are checked against the struct's size. The checks
 * are stricter than nothing and looser than the kernel's: the kernel also
 * resolves sizes through structs and rejects what it cannot load, which is
 * no concern of a base.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/btf.h>
#include <sys/mman.h>

#include "btf_check.h"
#include "d2b_util.h"

struct check {
	const uint8_t *types; /* the type section */
	const char *strs;
	uint32_t types_len, strs_len;
	bool swap;
	uint32_t nr; /* types, not counting void */
	uint32_t *off; /* [id]: record offset in the type section, id >= 1 */
	uint8_t *kind; /* [id]: its kind, id >= 1 */
	uint8_t *state; /* [id]: check_loops' state, 0 at first */
	char *why;
	size_t why_size;
};

/*
 * A word of the BTF. The type checks take @swap as an argument, not from
 * struct check, so that each is compiled for either byte order.
 */
static inline uint32_t get32(bool swap, const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static int fail(struct check *c, uint32_t id, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;

	if (id)
		n = (size_t)snprintf(c->why, c->why_size, "type %u: ", id);
	if (n < c->why_size) {
		va_start(ap, fmt);
		vsnprintf(c->why + n, c->why_size - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* the bytes a record of @kind with @vlen entries takes after its 12 */
static int64_t extra_size(int kind, uint32_t vlen)
{
	/* by kind, up to ENUM64: the bytes after the 12, and those of each entry */
	static const uint8_t fixed[BTF_KIND_ENUM64 + 1] = {
		[BTF_KIND_INT] = 4,
		[BTF_KIND_VAR] = 4,
		[BTF_KIND_DECL_TAG] = 4,
		[BTF_KIND_ARRAY] = 12,
	};
	static const uint8_t entry[BTF_KIND_ENUM64 + 1] = {
		[BTF_KIND_STRUCT] = 12, [BTF_KIND_UNION] = 12, [BTF_KIND_DATASEC] = 12,
		[BTF_KIND_ENUM64] = 12, [BTF_KIND_ENUM] = 8,   [BTF_KIND_FUNC_PROTO] = 8,
	};

	if (kind < 0 || kind > BTF_KIND_ENUM64)
		return 0;
	return fixed[kind] + (int64_t)vlen * entry[kind];
}

static const char *kind_name(int kind)
{
	static const char *const names[] = {
		"UNKN", "INT",	   "PTR",      "ARRAY",	   "STRUCT",   "UNION",	 "ENUM",
		"FWD",	"TYPEDEF", "VOLATILE", "CONST",	   "RESTRICT", "FUNC",	 "FUNC_PROTO",
		"VAR",	"DATASEC", "FLOAT",    "DECL_TAG", "TYPE_TAG", "ENUM64",
	};

	return kind >= 0 && kind <= BTF_KIND_ENUM64 ? names[kind] : "?";
}

/*
 * Each check below passes inline and fails in a call of its own: the
 * checks of a type are compiled into one loop per byte order, and what
 * names a failure is only worked out when there is one.
 */
#define D2B_INLINE inline __attribute__((always_inline))
#define D2B_COLD __attribute__((noinline, cold))

static D2B_COLD int name_fail(struct check *c, uint32_t id, uint32_t off, const char *what)
{
	if (off >= c->strs_len)
		return fail(c, id, "%s name offset %u past the strings (%u bytes)", what, off,
			    c->strs_len);
	return fail(c, id, "%s has no name", what);
}

/* a name offset: inside the strings; @need: not the empty string */
static D2B_INLINE int check_name(struct check *c, uint32_t id, uint32_t off, bool need,
				 const char *what)
{
	if (off < c->strs_len && (!need || c->strs[off]))
		return 0;
	return name_fail(c, id, off, what);
}

static D2B_COLD int ref_fail(struct check *c, uint32_t id, uint32_t ref, const char *what)
{
	if (ref > c->nr)
		return fail(c, id, "%s refers to type %u, past the last type, %u", what, ref,
			    c->nr);
	return fail(c, id, "%s refers to type %u, a %s", what, ref, kind_name(c->kind[ref]));
}

static D2B_INLINE int check_ref(struct check *c, uint32_t id, uint32_t ref, const char *what)
{
	return ref <= c->nr ? 0 : ref_fail(c, id, ref, what);
}

/* the kinds no reference to a type of data may name (c->kind[0], void's, is 0) */
#define NOT_DATA_KINDS (1u << BTF_KIND_VAR | 1u << BTF_KIND_DATASEC | 1u << BTF_KIND_DECL_TAG)

/* a reference a struct's check walks (btf_dedup.c's is_equiv): to a type of data */
static D2B_INLINE int check_type_ref(struct check *c, uint32_t id, uint32_t ref, const char *what)
{
	if (ref <= c->nr && !(NOT_DATA_KINDS >> c->kind[ref] & 1))
		return 0;
	return ref_fail(c, id, ref, what);
}

/* the kinds whose records a walk follows to the type they refer to */
#define CHAIN_KINDS                                                                 \
	(1u << BTF_KIND_PTR | 1u << BTF_KIND_TYPEDEF | 1u << BTF_KIND_VOLATILE |    \
	 1u << BTF_KIND_CONST | 1u << BTF_KIND_RESTRICT | 1u << BTF_KIND_TYPE_TAG | \
	 1u << BTF_KIND_ARRAY)

/* check_loops' states of an id, in c->state */
#define LOOP_ON_WALK 1u /* on the walk under way */
#define LOOP_ENDS 2u /* its chain ends */
#define LOOP_WALK_FROM 4u /* a walk starts here */

/*
 * The reference a chain of reference types follows, from @id of a kind
 * in CHAIN_KINDS: a type of data. Along a loop the ids cannot fall at
 * every step, so a loop has a step from an id to one no lower, both of
 * CHAIN_KINDS; check_loops walks from each id with such a step.
 */
static D2B_INLINE int check_chain_ref(struct check *c, uint32_t id, uint32_t ref, const char *what)
{
	int err = check_type_ref(c, id, ref, what);

	if (!err && ref >= id && CHAIN_KINDS >> c->kind[ref] & 1)
		c->state[id] = LOOP_WALK_FROM;
	return err;
}

/* INT @t, type @id: its size and its encoding word */
static D2B_INLINE int check_int(struct check *c, uint32_t id, const uint8_t *t, bool swap)
{
	uint32_t info = get32(swap, t + 4), sz = get32(swap, t + 8), d = get32(swap, t + 12);
	uint32_t bits = d & 0xff, off = (d >> 16) & 0xff, enc = d >> 24;

	if ((info & 0xffff) || info >> 31 || (d & 0xff00))
		return fail(c, id, "INT with vlen, kflag or unused bits");
	if (sz != 1 && sz != 2 && sz != 4 && sz != 8 && sz != 16)
		return fail(c, id, "INT of %u bytes", sz);
	if (bits > 128 || off + bits > sz * 8 || (enc & ~7u) || __builtin_popcount(enc) > 1)
		return fail(c, id, "INT bits %u at %u, encoding %#x, in %u bytes", bits, off, enc,
			    sz);
	return 0;
}

/* the members of STRUCT or UNION @t, type @id: named, typed, inside it */
static D2B_INLINE int check_members(struct check *c, uint32_t id, const uint8_t *t, bool swap)
{
	uint32_t info = get32(swap, t + 4), sz = get32(swap, t + 8), vlen = info & 0xffff, i;
	bool kflag = info >> 31;
	const uint8_t *v = t + 12;
	int err;

	for (i = 0; i < vlen; i++, v += 12) {
		uint32_t off = get32(swap, v + 8), bit = kflag ? off & 0xffffff : off;

		if ((err = check_name(c, id, get32(swap, v), false, "member")) ||
		    (err = check_type_ref(c, id, get32(swap, v + 4), "member")))
			return err;
		if (bit > (uint64_t)sz * 8 || (kflag && (off >> 24) > 128))
			return fail(c, id, "%s member %u at bit %u past its %u bytes",
				    kind_name((int)((info >> 24) & 0x1f)), i, bit, sz);
	}
	return 0;
}

static D2B_INLINE int check_type(struct check *c, uint32_t id, bool swap)
{
	const uint8_t *t = c->types + c->off[id];
	uint32_t name = get32(swap, t), info = get32(swap, t + 4), sz = get32(swap, t + 8);
	int kind = (int)((info >> 24) & 0x1f);
	uint32_t vlen = info & 0xffff, i;
	bool kflag = info >> 31;
	const uint8_t *v = t + 12;
	int err;

	switch (kind) {
	case BTF_KIND_INT:
		err = check_int(c, id, t, swap);
		return err ? err : check_name(c, id, name, false, kind_name(kind));
	case BTF_KIND_PTR:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
		if (vlen || kflag || name)
			return fail(c, id, "%s with vlen, kflag or a name", kind_name(kind));
		return check_chain_ref(c, id, sz, kind_name(kind));
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_TYPE_TAG: /* (kflag: an attribute, newer libbpf) */
		if (vlen || (kflag && kind == BTF_KIND_TYPEDEF))
			return fail(c, id, "%s with vlen or kflag", kind_name(kind));
		err = check_name(c, id, name, true, kind_name(kind));
		return err ? err : check_chain_ref(c, id, sz, kind_name(kind));
	case BTF_KIND_ARRAY:
		if (vlen || kflag || name || sz)
			return fail(c, id, "ARRAY with vlen, kflag, name or size");
		err = check_chain_ref(c, id, get32(swap, v), "ARRAY element");
		return err ? err : check_type_ref(c, id, get32(swap, v + 4), "ARRAY index");
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		err = check_name(c, id, name, false, kind_name(kind));
		return err ? err : check_members(c, id, t, swap);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
			return fail(c, id, "%s of %u bytes", kind_name(kind), sz);
		if ((err = check_name(c, id, name, false, kind_name(kind))))
			return err;
		for (i = 0; i < vlen; i++, v += kind == BTF_KIND_ENUM ? 8 : 12)
			if ((err = check_name(c, id, get32(swap, v), true, "enumerator")))
				return err;
		return 0;
	case BTF_KIND_FWD:
		if (vlen)
			return fail(c, id, "FWD with vlen");
		return check_name(c, id, name, true, kind_name(kind));
	case BTF_KIND_FUNC:
		if (vlen > BTF_FUNC_EXTERN || kflag)
			return fail(c, id, "FUNC with linkage %u or kflag", vlen);
		if ((err = check_name(c, id, name, true, kind_name(kind))) ||
		    (err = check_ref(c, id, sz, kind_name(kind))))
			return err;
		if (!sz || c->kind[sz] != BTF_KIND_FUNC_PROTO)
			return fail(c, id, "FUNC of type %u, no FUNC_PROTO", sz);
		return 0;
	case BTF_KIND_FUNC_PROTO:
		if (kflag || name)
			return fail(c, id, "FUNC_PROTO with kflag or a name");
		if ((err = check_type_ref(c, id, sz, "FUNC_PROTO return")))
			return err;
		for (i = 0; i < vlen; i++, v += 8)
			if ((err = check_name(c, id, get32(swap, v), false, "parameter")) ||
			    (err = check_type_ref(c, id, get32(swap, v + 4), "parameter")))
				return err;
		return 0;
	case BTF_KIND_VAR:
		if (vlen || kflag || get32(swap, v) > BTF_VAR_GLOBAL_EXTERN)
			return fail(c, id, "VAR with vlen, kflag or linkage %u", get32(swap, v));
		err = check_name(c, id, name, true, kind_name(kind));
		return err ? err : check_ref(c, id, sz, kind_name(kind));
	case BTF_KIND_DATASEC:
		if (kflag || (err = check_name(c, id, name, true, kind_name(kind))))
			return kflag ? fail(c, id, "DATASEC with kflag") : err;
		for (i = 0; i < vlen; i++, v += 12)
			if ((err = check_ref(c, id, get32(swap, v), "DATASEC entry")))
				return err;
		return 0;
	case BTF_KIND_FLOAT:
		if (vlen || kflag || (sz != 2 && sz != 4 && sz != 8 && sz != 12 && sz != 16))
			return fail(c, id, "FLOAT of %u bytes, or with vlen or kflag", sz);
		return check_name(c, id, name, true, kind_name(kind));
	case BTF_KIND_DECL_TAG:
		if (vlen || (int32_t)get32(swap, v) < -1)
			return fail(c, id, "DECL_TAG with vlen or component %d",
				    (int32_t)get32(swap, v));
		err = check_name(c, id, name, true, kind_name(kind));
		return err ? err : check_ref(c, id, sz, kind_name(kind));
	default:
		return fail(c, id, "unknown kind %d", kind);
	}
}

/* the target of a reference type that a walk follows, or 0 */
static uint32_t chain_next(const struct check *c, uint32_t id)
{
	const uint8_t *t = c->types + c->off[id];

	if (!(CHAIN_KINDS >> c->kind[id] & 1))
		return 0;
	return get32(c->swap, c->kind[id] == BTF_KIND_ARRAY ? t + 12 : t + 8);
}

/* the walk from @id: each id it meets LOOP_ENDS, or the loop it runs into */
static int walk_from(struct check *c, uint32_t id)
{
	uint8_t *state = c->state;
	uint32_t cur, back;

	for (cur = id; cur && !(state[cur] & (LOOP_ON_WALK | LOOP_ENDS)); cur = chain_next(c, cur))
		state[cur] |= LOOP_ON_WALK;
	if (cur && state[cur] & LOOP_ON_WALK)
		return fail(c, cur, "a loop of reference types");
	for (back = id; back && state[back] & LOOP_ON_WALK; back = chain_next(c, back))
		state[back] ^= LOOP_ON_WALK | LOOP_ENDS;
	return 0;
}

/*
 * No loop among reference types: a walk from each id check_chain_ref
 * marked LOOP_WALK_FROM, each chain walked once (LOOP_ENDS: it ends).
 * Every loop has such an id, so a loop is found where there is one. The
 * states are read eight at a time (c->state has eight past the last id's):
 * one id in some 60 starts a walk.
 */
static int check_loops(struct check *c)
{
	const uint64_t from8 = 0x0101010101010101ull * LOOP_WALK_FROM;
	uint32_t id, k;
	uint64_t w;
	int err;

	for (id = 0; id <= c->nr; id += 8) {
		memcpy(&w, c->state + id, 8);
		if (!(w & from8))
			continue;
		for (k = id; k < id + 8 && k <= c->nr; k++)
			if (c->state[k] & LOOP_WALK_FROM && (err = walk_from(c, k)))
				return err;
	}
	return 0;
}

void btf_check_ids__free(struct btf_check_ids *ids)
{
	if (ids->map)
		munmap(ids->map, ids->map_size);
	*ids = (struct btf_check_ids){ 0 };
}

int btf_check__raw(const void *data, size_t size, struct btf_check_ids *ids, char *why,
		   size_t why_size)
{
	const uint8_t *d = data;
	struct check c = { .why = why, .why_size = why_size };
	uint32_t hdr_len, type_off, type_len, str_off, str_len, pos, cap = 0;
	uint16_t magic = 0;
	int err = 0;

	*ids = (struct btf_check_ids){ 0 };
	why[0] = 0;
	/* -ENOMSG: not even the magic, so no BTF at all */
	memcpy(&magic, d, size < 2 ? 0 : 2);
	if (size < 4 || (magic != BTF_MAGIC && magic != __builtin_bswap16(BTF_MAGIC))) {
		fail(&c, 0, "no BTF magic");
		return -ENOMSG;
	}
	if (size < sizeof(struct btf_header))
		return fail(&c, 0, "%zu bytes, shorter than a BTF header", size);
	c.swap = magic != BTF_MAGIC;
	hdr_len = get32(c.swap, d + 4);
	type_off = get32(c.swap, d + 8);
	type_len = get32(c.swap, d + 12);
	str_off = get32(c.swap, d + 16);
	str_len = get32(c.swap, d + 20);
	if (d[2] != BTF_VERSION || d[3])
		return fail(&c, 0, "version %u, flags %#x", d[2], d[3]);
	if (hdr_len < sizeof(struct btf_header) || hdr_len > size)
		return fail(&c, 0, "header length %u in %zu bytes", hdr_len, size);
	size -= hdr_len;
	/* (an empty type section, as a distilled base can have, overlaps nothing) */
	if ((uint64_t)type_off + type_len > size || (uint64_t)str_off + str_len > size ||
	    (type_len && (type_off < str_off ? (uint64_t)type_off + type_len > str_off
					     : (uint64_t)str_off + str_len > type_off)) ||
	    type_off % 4 || type_len % 4)
		return fail(&c, 0, "type section %u+%u and string section %u+%u in %zu bytes",
			    type_off, type_len, str_off, str_len, size);
	c.types = d + hdr_len + type_off;
	c.types_len = type_len;
	c.strs = (const char *)d + hdr_len + str_off;
	c.strs_len = str_len;
	if (!str_len || c.strs[0] || c.strs[str_len - 1])
		return fail(&c, 0, "the string section does not start and end with NUL");
	/*
	 * Offsets, kinds and loop states (eight more) of as many records as
	 * fit, at most, in one zeroed mapping (the pages past the last id's
	 * untouched; each failure breaks out, to unmap it)
	 */
	cap = type_len / 12 + 2;
	ids->map = d2b_map_array((size_t)cap * (sizeof(*c.off) + 2) + 8, &ids->map_size);
	if (!ids->map)
		return -ENOMEM;
	c.off = ids->map;
	c.kind = (uint8_t *)(c.off + cap);
	c.state = c.kind + cap;
	for (pos = 0; pos < type_len;) {
		uint32_t info, kind;
		int64_t extra;

		if (type_len - pos < 12) {
			err = fail(&c, c.nr + 1, "cut short by the end of the type section");
			break;
		}
		info = get32(c.swap, c.types + pos + 4);
		kind = (info >> 24) & 0x1f;
		if (info & 0x60ff0000 || !kind || kind > BTF_KIND_ENUM64) {
			err = fail(&c, c.nr + 1, "kind %u, info %#x", kind, info);
			break;
		}
		extra = extra_size((int)kind, info & 0xffff);
		if (extra > type_len - pos - 12) {
			err = fail(&c, c.nr + 1, "%s of %u entries past the type section",
				   kind_name((int)kind), info & 0xffff);
			break;
		}
		c.off[++c.nr] = pos;
		c.kind[c.nr] = (uint8_t)kind;
		pos += 12 + (uint32_t)extra;
	}
	for (pos = 1; !err && pos <= c.nr; pos++)
		err = c.swap ? check_type(&c, pos, true) : check_type(&c, pos, false);
	if (!err)
		err = check_loops(&c);
	if (err) {
		btf_check_ids__free(ids);
		return err;
	}
	ids->offs = c.off;
	ids->kinds = c.kind;
	ids->nr = c.nr;
	return 0;
}
