/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dwarf_reader's cursor: bounds-checked reads of fixed-size and LEB128
 * values from one section, shared by dwarf_reader.c (units, DIEs,
 * attribute values) and dwarf_expr.c (location expressions and lists).
 * A read past the end sets the cursor's bad flag and returns 0; callers
 * check the flag once after a run of reads. Not an API: only the reader's
 * two files include it.
 */
#ifndef DWARF_READER_RD_H
#define DWARF_READER_RD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "dwarf_reader.h"

/* cursor over one section */
struct rd {
	const uint8_t *p, *end;
	bool swap;
	bool bad;
};

static inline uint64_t rd_fixed(struct rd *r, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	/* little-endian unless swapped on a little-endian host, and vice versa */
	if (r->swap != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)) {
		for (i = 0; i < n; i++)
			v = (v << 8) | r->p[i];
	} else if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && (n == 2 || n == 4 || n == 8)) {
		/* the host's own order: one unaligned load */
		uint16_t v2;
		uint32_t v4;

		if (n == 8) {
			memcpy(&v, r->p, 8);
		} else if (n == 4) {
			memcpy(&v4, r->p, 4);
			v = v4;
		} else {
			memcpy(&v2, r->p, 2);
			v = v2;
		}
	} else {
		for (i = 0; i < n; i++)
			v |= (uint64_t)r->p[i] << (8 * i);
	}
	r->p += n;
	return v;
}

/*
 * A LEB128 number's 7-bit groups, low first: their value, with the bits read
 * in *shift and the last byte in *last (the sign, for rd_sleb); 0, a last
 * byte of 0 and r->bad if it runs past the end
 */
static inline uint64_t rd_leb_bits(struct rd *r, unsigned int *shift, uint8_t *last)
{
	uint64_t v = 0;
	uint8_t b;

	*shift = 0;
	do {
		if (r->bad || r->p >= r->end) {
			r->bad = true;
			*last = 0;
			return 0;
		}
		b = *r->p++;
		if (*shift < 64)
			v |= (uint64_t)(b & 0x7f) << *shift;
		*shift += 7;
	} while (b & 0x80);
	*last = b;
	return v;
}

static __attribute__((noinline)) __attribute__((unused)) uint64_t rd_uleb_long(struct rd *r)
{
	unsigned int shift;
	uint8_t last;

	return rd_leb_bits(r, &shift, &last);
}

/* most LEB128 values in DWARF (codes, attributes, forms) fit in one byte */
static inline uint64_t rd_uleb(struct rd *r)
{
	if (__builtin_expect(r->p < r->end && !r->bad && *r->p < 0x80, 1))
		return *r->p++;
	return rd_uleb_long(r);
}

static inline int64_t rd_sleb(struct rd *r)
{
	unsigned int shift;
	uint8_t last;
	uint64_t v = rd_leb_bits(r, &shift, &last);

	if (shift < 64 && (last & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

static inline void rd_skip(struct rd *r, uint64_t n)
{
	if (r->bad || (uint64_t)(r->end - r->p) < n) {
		r->bad = true;
		return;
	}
	r->p += n;
}

static inline struct rd rd_at(const struct dr_section *s, uint64_t off, bool swap)
{
	struct rd r = { .p = s->data, .end = s->data, .swap = swap };

	/* no section: an empty cursor (NULL + 0 would be undefined) */
	if (!s->data || off > s->size) {
		r.bad = true;
	} else {
		r.end += s->size;
		r.p += off;
	}
	return r;
}

/* a cursor over the unit's bytes in .debug_info, starting at @p */
static inline struct rd rd_unit(const struct dr_cu *cu, const uint8_t *p)
{
	const struct dr_section *info = &cu->secs->info;
	struct rd r = { .p = p, .end = info->data + cu->unit->end, .swap = cu->secs->swap };

	if (p < info->data + cu->unit->off || p > r.end)
		r.bad = true;
	return r;
}

/* a cursor at attribute value @a */
static inline struct rd attr_rd(const struct dr_cu *cu, const struct dr_attr *a)
{
	return rd_unit(cu, a->p);
}

#endif /* DWARF_READER_RD_H */
