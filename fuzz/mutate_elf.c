// SPDX-License-Identifier: GPL-2.0-only
/*
 * mutate_elf - libFuzzer's custom mutator for fuzz_encode: edits that keep
 * an ELF file's structure and change what it says.
 *
 * Random byte edits mostly break a unit's first header or LEB128 and stop
 * the reader there. These edits instead land on fields, as the structural
 * cases of tests/bad-input.sh do, with the values that sit on bounds:
 *
 *  - a section header field (offset, size, link, name, flags with
 *    SHF_COMPRESSED, entry size);
 *  - a symbol's field, or one symbol's address or name copied to another
 *    (ambiguous addresses, names defined twice);
 *  - a unit header field (length, version, unit type, address size,
 *    .debug_abbrev offset, type offset);
 *  - an abbreviation's tag, children flag, attribute or form;
 *  - a DIE's reference retargeted at itself, at another DIE (loops,
 *    chains, a reference into the middle of a DIE) or past its unit;
 *  - a string, address or section index or offset, or a constant (sizes,
 *    offsets, bounds), set to a bound;
 *  - one DIE's bytes copied over another's of the same length.
 *
 * Only ELF64 little-endian files with an uncompressed .debug_info are
 * edited this way; the other inputs, and one call in three, take
 * libFuzzer's own mutations. The file's size never changes.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <dwarf.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#define MAX_ABBREVS 1024
#define MAX_SLOTS 8192
#define MAX_DIES 8192

struct buf {
	uint8_t *p;
	size_t size;
};

struct slot {
	size_t pos; /* of the value in the file */
	uint8_t width; /* 0: LEB128, not edited */
	uint8_t kind;
};

enum { SLOT_REF, SLOT_REF_ADDR, SLOT_INDEX, SLOT_CONST };

struct walk {
	struct buf f;
	uint64_t rng;
	size_t info_off, info_size, abbrev_off, abbrev_size;
	size_t dies[MAX_DIES]; /* DIE offsets in .debug_info */
	unsigned int nr_dies;
	struct slot slots[MAX_SLOTS];
	unsigned int nr_slots;
	size_t unit_off, unit_end; /* of the unit a slot's value was met in */
};

static uint64_t rnd(struct walk *w, uint64_t n)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return n ? w->rng % n : 0;
}

static uint64_t get(const struct buf *f, size_t pos, unsigned int width)
{
	uint64_t v = 0;

	while (width--)
		v = v << 8 | f->p[pos + width];
	return v;
}

static void put(struct buf *f, size_t pos, unsigned int width, uint64_t v)
{
	for (; width--; v >>= 8)
		f->p[pos++] = (uint8_t)v;
}

/* a value on or near a bound: zero, one, the width's limits, @near and its neighbours */
static uint64_t bound(struct walk *w, uint64_t near, unsigned int width)
{
	static const uint64_t fixed[] = { 0,	      1,	  2,	      7,
					  8,	      0x7f,	  0x80,	      0xff,
					  0x100,      0xffff,	  0x10000,    0x7fffffff,
					  0x80000000, 0xffffffff, 1ull << 40, 1ull << 63 };
	uint64_t v;

	switch (rnd(w, 4)) {
	case 0:
		v = near - 1;
		break;
	case 1:
		v = near + 1;
		break;
	case 2:
		v = near;
		break;
	default:
		v = fixed[rnd(w, sizeof(fixed) / sizeof(fixed[0]))];
	}
	return width >= 8 ? v : v & ((1ull << (8 * width)) - 1);
}

static bool uleb(const struct buf *f, size_t *pos, size_t end, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (*pos < end) {
		uint8_t c = f->p[(*pos)++];

		if (shift < 64)
			*v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80))
			return true;
	}
	return false;
}

/* the section named @name: offset and size in the file */
static bool section(const struct buf *f, const char *name, size_t *off, size_t *size, size_t *hdr)
{
	uint64_t shoff = get(f, 0x28, 8), str;
	unsigned int i, entsize = (unsigned int)get(f, 0x3a, 2), nr = (unsigned int)get(f, 0x3c, 2),
			strndx = (unsigned int)get(f, 0x3e, 2);

	if (entsize != 64 || strndx >= nr || shoff > f->size || nr > (f->size - shoff) / 64)
		return false;
	str = get(f, shoff + strndx * 64 + 24, 8);
	for (i = 0; i < nr; i++) {
		size_t h = shoff + i * 64;
		uint64_t n = str + get(f, h, 4), o = get(f, h + 24, 8), s = get(f, h + 32, 8);

		if (n >= f->size || f->size - n <= strlen(name) ||
		    memcmp(f->p + n, name, strlen(name) + 1) || get(f, h + 4, 4) == 8 /* NOBITS */)
			continue;
		if (o > f->size || s > f->size - o)
			return false;
		*off = o;
		*size = s;
		if (hdr)
			*hdr = h;
		return true;
	}
	return false;
}

/* the size of an attribute value of @form at *@pos; false where it cannot be read */
static bool form_skip(struct walk *w, uint64_t form, size_t *pos, size_t end, unsigned int ver,
		      unsigned int osz, unsigned int asz, uint8_t *width, int *kind)
{
	uint64_t n;

	*width = 0;
	*kind = -1;
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return true;
	case DW_FORM_addr:
		*width = (uint8_t)asz;
		*kind = SLOT_INDEX;
		break;
	case DW_FORM_data1:
	case DW_FORM_flag:
		*width = 1;
		*kind = SLOT_CONST;
		break;
	case DW_FORM_data2:
		*width = 2;
		*kind = SLOT_CONST;
		break;
	case DW_FORM_data4:
		*width = 4;
		*kind = SLOT_CONST;
		break;
	case DW_FORM_data8:
	case DW_FORM_ref_sig8:
		*width = 8;
		*kind = SLOT_CONST;
		break;
	case DW_FORM_data16:
		*width = 16;
		break;
	case DW_FORM_ref1:
		*width = 1;
		*kind = SLOT_REF;
		break;
	case DW_FORM_ref2:
		*width = 2;
		*kind = SLOT_REF;
		break;
	case DW_FORM_ref4:
		*width = 4;
		*kind = SLOT_REF;
		break;
	case DW_FORM_ref8:
		*width = 8;
		*kind = SLOT_REF;
		break;
	case DW_FORM_ref_addr:
		*width = (uint8_t)(ver == 2 ? asz : osz);
		*kind = SLOT_REF_ADDR;
		break;
	case DW_FORM_strx1:
	case DW_FORM_addrx1:
		*width = 1;
		*kind = SLOT_INDEX;
		break;
	case DW_FORM_strx2:
	case DW_FORM_addrx2:
		*width = 2;
		*kind = SLOT_INDEX;
		break;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:
		*width = 3;
		*kind = SLOT_INDEX;
		break;
	case DW_FORM_strx4:
	case DW_FORM_addrx4:
		*width = 4;
		*kind = SLOT_INDEX;
		break;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_sec_offset:
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_strp_alt:
	case DW_FORM_GNU_ref_alt:
		*width = (uint8_t)osz;
		*kind = SLOT_INDEX;
		break;
	case DW_FORM_string:
		while (*pos < end && w->f.p[*pos])
			(*pos)++;
		return ++*pos <= end;
	case DW_FORM_block1:
		n = *pos < end ? w->f.p[(*pos)++] : 0;
		goto block;
	case DW_FORM_block2:
		n = *pos + 2 <= end ? get(&w->f, *pos, 2) : 0;
		*pos += 2;
		goto block;
	case DW_FORM_block4:
		n = *pos + 4 <= end ? get(&w->f, *pos, 4) : 0;
		*pos += 4;
		goto block;
	case DW_FORM_block:
	case DW_FORM_exprloc:
		if (!uleb(&w->f, pos, end, &n))
			return false;
block:
		if (*pos > end || n > end - *pos)
			return false;
		*pos += n;
		return true;
	case DW_FORM_udata:
	case DW_FORM_sdata:
	case DW_FORM_ref_udata:
	case DW_FORM_strx:
	case DW_FORM_addrx:
	case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		return uleb(&w->f, pos, end, &n);
	case DW_FORM_indirect:
		return uleb(&w->f, pos, end, &n) && n != DW_FORM_indirect &&
		       form_skip(w, n, pos, end, ver, osz, asz, width, kind);
	default:
		return false;
	}
	*pos += *width;
	return *pos <= end;
}

static void slot_add(struct walk *w, size_t pos, uint8_t width, int kind)
{
	if (kind >= 0 && width && width <= 8 && w->nr_slots < MAX_SLOTS)
		w->slots[w->nr_slots++] = (struct slot){ pos, width, (uint8_t)kind };
}

/*
 * One unit's DIEs from @pos to @end: their offsets and the positions of
 * their fixed-size values. Stops quietly where the DWARF does not read.
 */
static void unit_walk(struct walk *w, size_t pos, size_t end, size_t abbrev, unsigned int ver,
		      unsigned int osz, unsigned int asz)
{
	size_t codes[MAX_ABBREVS], specs[MAX_ABBREVS], aend = w->abbrev_off + w->abbrev_size;
	unsigned int nr = 0, i;
	uint64_t code, v;

	/* the abbreviation table: each code's spec list */
	for (abbrev += w->abbrev_off; abbrev < aend && nr < MAX_ABBREVS;) {
		if (!uleb(&w->f, &abbrev, aend, &code) || !code)
			break;
		if (!uleb(&w->f, &abbrev, aend, &v) || ++abbrev > aend)
			return;
		codes[nr] = code;
		specs[nr++] = abbrev;
		do {
			uint64_t at, form;

			if (!uleb(&w->f, &abbrev, aend, &at) || !uleb(&w->f, &abbrev, aend, &form))
				return;
			if (form == DW_FORM_implicit_const && !uleb(&w->f, &abbrev, aend, &v))
				return;
			if (!at && !form)
				break;
		} while (1);
	}
	while (pos < end) {
		size_t die = pos, sp;

		if (!uleb(&w->f, &pos, end, &code))
			return;
		if (!code)
			continue;
		for (i = 0; i < nr && codes[i] != code; i++)
			;
		if (i == nr)
			return;
		if (w->nr_dies < MAX_DIES)
			w->dies[w->nr_dies++] = die;
		for (sp = specs[i];;) {
			uint64_t at, form;
			uint8_t width;
			int kind;

			uleb(&w->f, &sp, aend, &at);
			uleb(&w->f, &sp, aend, &form);
			if (form == DW_FORM_implicit_const)
				uleb(&w->f, &sp, aend, &v);
			if (!at && !form)
				break;
			if (!form_skip(w, form, &pos, end, ver, osz, asz, &width, &kind))
				return;
			slot_add(w, pos - width, width, kind);
		}
	}
}

/* every unit of .debug_info: its header's fields are slots too (kind SLOT_CONST) */
static void info_walk(struct walk *w)
{
	size_t pos = w->info_off, end = w->info_off + w->info_size;

	while (pos + 11 <= end) {
		size_t start = pos, hdr = pos;
		uint64_t len = get(&w->f, pos, 4), abbrev;
		unsigned int osz = 4, ver, asz, ut = DW_UT_compile;

		pos += 4;
		if (len == 0xffffffff) {
			if (pos + 8 > end)
				return;
			len = get(&w->f, pos, 8);
			pos += 8;
			osz = 8;
		}
		if (len > end - pos || len < 2)
			return;
		slot_add(w, start, (uint8_t)(osz == 8 ? 8 : 4), SLOT_CONST);
		hdr = pos;
		ver = (unsigned int)get(&w->f, pos, 2);
		slot_add(w, pos, 2, SLOT_CONST);
		pos += 2;
		if (ver >= 5) {
			ut = w->f.p[pos];
			slot_add(w, pos, 1, SLOT_CONST);
			asz = w->f.p[pos + 1];
			slot_add(w, pos + 1, 1, SLOT_CONST);
			pos += 2;
			abbrev = get(&w->f, pos, osz);
			slot_add(w, pos, (uint8_t)osz, SLOT_INDEX);
			pos += osz;
			if (ut == DW_UT_skeleton || ut == DW_UT_split_compile)
				pos += 8;
			else if (ut == DW_UT_type || ut == DW_UT_split_type) {
				slot_add(w, pos, 8, SLOT_CONST);
				slot_add(w, pos + 8, (uint8_t)osz, SLOT_REF);
				pos += 8 + osz;
			}
		} else {
			abbrev = get(&w->f, pos, osz);
			slot_add(w, pos, (uint8_t)osz, SLOT_INDEX);
			pos += osz;
			asz = w->f.p[pos];
			slot_add(w, pos, 1, SLOT_CONST);
			pos++;
		}
		if (pos > hdr + len || abbrev >= w->abbrev_size)
			return;
		if (ver >= 2 && ver <= 5 && (asz == 4 || asz == 8))
			unit_walk(w, pos, hdr + len, (size_t)abbrev, ver, osz, asz);
		pos = hdr + len;
	}
}

/* the unit around file position @pos: its start and end in .debug_info */
static void unit_of(struct walk *w, size_t pos)
{
	size_t u = w->info_off, end = w->info_off + w->info_size;

	w->unit_off = u;
	w->unit_end = end;
	while (u + 4 <= end) {
		uint64_t len = get(&w->f, u, 4);
		size_t next = u + 4 + (size_t)len;

		if (len >= 0xfffffff0 || len > end - u - 4)
			return;
		if (pos < next) {
			w->unit_off = u;
			w->unit_end = next;
			return;
		}
		u = next;
	}
}

static bool mutate_slot(struct walk *w)
{
	struct slot *s;
	uint64_t v;

	if (!w->nr_slots)
		return false;
	s = &w->slots[rnd(w, w->nr_slots)];
	v = get(&w->f, s->pos, s->width);
	if ((s->kind == SLOT_REF || s->kind == SLOT_REF_ADDR) && w->nr_dies && rnd(w, 4)) {
		size_t die = w->dies[rnd(w, w->nr_dies)];

		unit_of(w, s->pos);
		switch (rnd(w, 4)) {
		case 0: /* the DIE holding the reference, or near it: a loop */
			for (die = 0; die < w->nr_dies && w->dies[die] <= s->pos; die++)
				;
			die = die ? w->dies[die - 1] : w->unit_off;
			break;
		case 1: /* into the middle of a DIE */
			die++;
			break;
		case 2: /* the unit's end */
			die = w->unit_end;
			break;
		default:
			break;
		}
		v = s->kind == SLOT_REF ? die - w->unit_off : die - w->info_off;
	} else {
		v = bound(w, s->kind == SLOT_INDEX && rnd(w, 2) ? w->info_size : v, s->width);
	}
	put(&w->f, s->pos, s->width, v);
	return true;
}

/* a copy of one DIE's bytes over another's of the same length */
static bool mutate_die_copy(struct walk *w)
{
	unsigned int a, b;
	size_t len;

	if (w->nr_dies < 3)
		return false;
	a = (unsigned int)rnd(w, w->nr_dies - 1);
	b = (unsigned int)rnd(w, w->nr_dies - 1);
	len = w->dies[a + 1] - w->dies[a];
	if (a == b || w->dies[a + 1] < w->dies[a] || w->dies[b + 1] - w->dies[b] != len)
		return false;
	memmove(w->f.p + w->dies[b], w->f.p + w->dies[a], len);
	return true;
}

/* an abbreviation's tag, children flag, attribute or form: one-byte codes only */
static bool mutate_abbrev(struct walk *w)
{
	static const uint8_t tags[] = { 0x01, 0x04, 0x05, 0x0b, 0x0d, 0x0f, 0x10, 0x11, 0x13,
					0x15, 0x16, 0x17, 0x18, 0x1d, 0x21, 0x24, 0x26, 0x28,
					0x2e, 0x34, 0x35, 0x37, 0x41, 0x42, 0x47 };
	static const uint8_t attrs[] = { 0x01, 0x02, 0x03, 0x0b, 0x0c, 0x0d, 0x11, 0x12, 0x1c,
					 0x20, 0x27, 0x2f, 0x31, 0x32, 0x37, 0x38, 0x3c, 0x3e,
					 0x3f, 0x47, 0x49, 0x69, 0x6b, 0x6e, 0x72, 0x73 };
	static const uint8_t forms[] = { 0x01, 0x05, 0x06, 0x07, 0x08, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
					 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x17, 0x18, 0x19, 0x1a,
					 0x1b, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x25, 0x29 };
	size_t pos = w->abbrev_off + rnd(w, w->abbrev_size);
	uint8_t c = w->f.p[pos];

	if (c & 0x80)
		return false;
	switch (rnd(w, 4)) {
	case 0:
		w->f.p[pos] = tags[rnd(w, sizeof(tags))];
		break;
	case 1:
		w->f.p[pos] = attrs[rnd(w, sizeof(attrs))];
		break;
	case 2:
		w->f.p[pos] = forms[rnd(w, sizeof(forms))];
		break;
	default:
		w->f.p[pos] = c <= 1 ? !c : c; /* a children flag */
	}
	return w->f.p[pos] != c;
}

/* a section header's field set to a bound (offset, size, link, name, flags, entsize) */
static bool mutate_shdr(struct walk *w)
{
	static const struct {
		uint8_t off, width;
	} fields[] = {
		{ 0, 4 }, { 4, 4 }, { 8, 8 }, { 24, 8 }, { 32, 8 }, { 40, 4 }, { 44, 4 }, { 56, 8 },
	};
	uint64_t shoff = get(&w->f, 0x28, 8), nr = get(&w->f, 0x3c, 2);
	unsigned int k = (unsigned int)rnd(w, sizeof(fields) / sizeof(fields[0]));
	size_t h;

	if (!nr || shoff > w->f.size || nr > (w->f.size - shoff) / 64)
		return false;
	h = shoff + rnd(w, nr) * 64 + fields[k].off;
	if (fields[k].off == 8 && rnd(w, 2)) /* SHF_COMPRESSED */
		put(&w->f, h, 8, get(&w->f, h, 8) ^ 0x800);
	else
		put(&w->f, h, fields[k].width,
		    bound(w, get(&w->f, h, fields[k].width), fields[k].width));
	return true;
}

/* a symbol's field set to a bound, or another symbol's address or name copied */
static bool mutate_symbol(struct walk *w)
{
	size_t off, size, a, b;

	if (!section(&w->f, ".symtab", &off, &size, NULL) || size < 48)
		return false;
	a = off + rnd(w, size / 24) * 24;
	b = off + rnd(w, size / 24) * 24;
	switch (rnd(w, 6)) {
	case 0:
		memcpy(w->f.p + a + 8, w->f.p + b + 8, 8);
		break; /* st_value */
	case 1:
		memcpy(w->f.p + a, w->f.p + b, 4);
		break; /* st_name */
	case 2:
		put(&w->f, a, 4, bound(w, get(&w->f, a, 4), 4));
		break;
	case 3:
		w->f.p[a + 4] = (uint8_t)rnd(w, 256);
		break; /* st_info */
	case 4:
		put(&w->f, a + 6, 2, bound(w, get(&w->f, a + 6, 2), 2));
		break;
	default:
		put(&w->f, a + 16, 8, bound(w, get(&w->f, a + 16, 8), 8));
		break;
	}
	return true;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static struct walk w; /* (large: not on the stack) */
	bool done = false;

	w.f = (struct buf){ data, size };
	w.rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
	w.nr_dies = w.nr_slots = 0;
	if (rnd(&w, 3) && size >= 64 && !memcmp(data, "\177ELF\2\1", 6) &&
	    section(&w.f, ".debug_info", &w.info_off, &w.info_size, NULL) &&
	    section(&w.f, ".debug_abbrev", &w.abbrev_off, &w.abbrev_size, NULL) && w.abbrev_size) {
		info_walk(&w);
		switch (rnd(&w, 8)) {
		case 0:
			done = mutate_shdr(&w);
			break;
		case 1:
			done = mutate_symbol(&w);
			break;
		case 2:
			done = mutate_abbrev(&w);
			break;
		case 3:
			done = mutate_die_copy(&w);
			break;
		default:
			done = mutate_slot(&w);
			break;
		}
	}
	return done ? size : LLVMFuzzerMutate(data, size, max_size);
}
