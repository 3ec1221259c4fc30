// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader's units on a worker: the reader (struct dr_cu) of a unit,
 * set up from its unit DIE, the unit left out or walked (die_walk.c), then
 * the type units it names; and the languages --lang_exclude names.
 *
 * Files whose units refer to each other (DW_FORM_ref_addr: LTO) or that
 * carry the kernel's LTO note are read as pahole reads them: all units, in
 * order, into one merged CU (id 0, loaded by one worker), keyed by absolute
 * .debug_info offsets; a reference into another unit gets that unit's
 * reader (unit_of). A unit that names a type signature gets the type
 * unit's types walked into its own CU after its DIEs (type_units__walk).
 */
#include <stdlib.h>
#include <strings.h>

#include "dwarf_loader_priv.h"

/* ---------------------------------------------------------------------- */
/* languages                                                              */

static const struct {
	const char *name;
	int lang;
} languages[] = {
	{ "c89", DW_LANG_C89 },
	{ "c", DW_LANG_C },
	{ "ada83", DW_LANG_Ada83 },
	{ "c_plus_plus", DW_LANG_C_plus_plus },
	{ "cobol74", DW_LANG_Cobol74 },
	{ "cobol85", DW_LANG_Cobol85 },
	{ "fortran77", DW_LANG_Fortran77 },
	{ "fortran90", DW_LANG_Fortran90 },
	{ "pascal83", DW_LANG_Pascal83 },
	{ "modula2", DW_LANG_Modula2 },
	{ "java", DW_LANG_Java },
	{ "c99", DW_LANG_C99 },
	{ "ada95", DW_LANG_Ada95 },
	{ "fortran95", DW_LANG_Fortran95 },
	{ "pli", DW_LANG_PLI },
	{ "objc", DW_LANG_ObjC },
	{ "objc_plus_plus", DW_LANG_ObjC_plus_plus },
	{ "upc", DW_LANG_UPC },
	{ "d", DW_LANG_D },
	{ "python", DW_LANG_Python },
	{ "opencl", DW_LANG_OpenCL },
	{ "go", DW_LANG_Go },
	{ "modula3", DW_LANG_Modula3 },
	{ "haskell", DW_LANG_Haskell },
	{ "c_plus_plus_03", DW_LANG_C_plus_plus_03 },
	{ "c_plus_plus_11", DW_LANG_C_plus_plus_11 },
	{ "ocaml", DW_LANG_OCaml },
	{ "rust", DW_LANG_Rust },
	{ "c11", DW_LANG_C11 },
	{ "swift", DW_LANG_Swift },
	{ "julia", DW_LANG_Julia },
	{ "dylan", DW_LANG_Dylan },
	{ "c_plus_plus_14", DW_LANG_C_plus_plus_14 },
	{ "fortran03", DW_LANG_Fortran03 },
	{ "fortran08", DW_LANG_Fortran08 },
	{ "renderscript", DW_LANG_RenderScript },
	{ "bliss", DW_LANG_BLISS },
	{ "asm", DW_LANG_Mips_Assembler },
	{ "mips_assembler", DW_LANG_Mips_Assembler },
};

/* is there a language named (in any case) by the @len bytes at @name? its DW_LANG in *@lang */
static bool lang_find(const char *name, size_t len, int *lang)
{
	size_t i;

	for (i = 0; len && i < sizeof(languages) / sizeof(languages[0]); i++)
		if (strlen(languages[i].name) == len &&
		    !strncasecmp(name, languages[i].name, len)) {
			*lang = languages[i].lang;
			return true;
		}
	return false;
}

int dwarf_loader__lang_check(const char *list, size_t *bad_len)
{
	const char *p;
	size_t len;
	int lang;

	for (p = list; p && *p; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		if (len && !lang_find(p, len, &lang)) {
			*bad_len = len;
			return (int)(p - list);
		}
	}
	return -1;
}

/* is @lang in the comma-separated @list? ("asm" and "mips_assembler" are one) */
static bool lang_excluded(const char *list, int lang)
{
	const char *p;
	size_t len;
	int l;

	for (p = list; p && *p; p += len + (p[len] == ',')) {
		len = strcspn(p, ",");
		if (lang_find(p, len, &l) && l == lang)
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------------- */
/* unit readers                                                           */

static uint64_t unit_attr(struct dr_cu *dc, const struct dr_die *die, uint16_t at, uint64_t def)
{
	const struct dr_attr *a = dr_die__attr(die, at);
	uint64_t v;

	return a && !dr_attr__udata(dc, a, &v) ? v : def;
}

/* the unit's base offsets into .debug_str_offsets, .debug_addr, .debug_loclists */
static void cu_bases(struct dr_cu *dc, const struct dr_die *cu_die)
{
	uint8_t hdr = dc->unit->offset_size == 8 ? 16 : 8;

	if (dc->unit->version >= 5) {
		dc->str_offsets_base = hdr;
		dc->addr_base = hdr;
		dc->loclists_base = hdr + 4;
	}
	dc->str_offsets_base = unit_attr(dc, cu_die, DW_AT_str_offsets_base, dc->str_offsets_base);
	dc->addr_base = unit_attr(dc, cu_die, DW_AT_addr_base,
				  unit_attr(dc, cu_die, DW_AT_GNU_addr_base, dc->addr_base));
	dc->loclists_base = unit_attr(dc, cu_die, DW_AT_loclists_base, dc->loclists_base);
}

static struct dr_cu *unit_of(void *ctx, uint64_t off);

/*
 * The reader of unit @i, set up on first use: its abbreviations and the base
 * offsets from its unit DIE (@die, scratch). NULL if they are malformed.
 */
static struct dr_cu *unit_dc(struct cu_loader *l, unsigned int i, struct dr_die *die)
{
	struct dwarf_loader *dl = l->dl;
	unsigned int slot = dl->merged ? i : 0;
	struct dr_cu *dc = &l->dcs[slot];

	if (l->dc_state[slot])
		return l->dc_state[slot] == 1 ? dc : NULL;
	l->dc_state[slot] = 2;
	if (dr_cu__init(dc, &dl->secs, &dl->units[i]))
		return NULL;
	l->dc_state[slot] = 1; /* from here on dr_cu__release() is due */
	if (dr_die__at(dc, dl->units[i].die_off, die) != 1) {
		l->dc_state[slot] = 3;
		return NULL;
	}
	cu_bases(dc, die);
	if (dl->merged) {
		dc->unit_of = unit_of;
		dc->unit_of_ctx = l;
	}
	return dc;
}

/* merged mode: the reader of the unit holding .debug_info offset @off */
static struct dr_cu *unit_of(void *ctx, uint64_t off)
{
	struct cu_loader *l = ctx;
	const struct dr_unit *units = l->dl->units;
	unsigned int lo = 0, hi = l->dl->nr_cus;
	struct dr_die *die;
	struct dr_cu *dc;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (off < units[mid].off)
			hi = mid;
		else if (off >= units[mid].end)
			lo = mid + 1;
		else if (l->dc_state[mid] == 1)
			return &l->dcs[mid];
		else if (l->dc_state[mid])
			return NULL;
		else if (!(die = malloc(sizeof(*die))))
			return NULL;
		else {
			dc = unit_dc(l, mid, die);
			free(die);
			return dc;
		}
	}
	return NULL;
}

/* is the unit with unit DIE @die left out: not a compile unit, or --lang_exclude? */
static bool unit_root_excluded(const struct dwarf_loader *dl, const struct dr_cu *dc,
			       const struct dr_die *die)
{
	const struct dr_attr *a;
	uint64_t lang;

	if (die->ab->tag != DW_TAG_compile_unit)
		return true; /* (partial and skeleton units, skipped as pahole does) */
	return dl->conf->lang_exclude && (a = dr_die__attr(die, DW_AT_language)) &&
	       !dr_attr__udata(dc, a, &lang) && lang_excluded(dl->conf->lang_exclude, (int)lang);
}

/*
 * Walk unit @i into the CU being built; 1 (and nothing walked) if the unit
 * is left out. When merged, every unit's DIEs go into one CU: offsets are
 * absolute, references may cross units.
 */
int unit__walk(struct cu_loader *l, unsigned int i, struct dr_die *cu_die)
{
	struct dwarf_loader *dl = l->dl;

	l->cu->off = dl->units[i].die_off;
	l->cu_start = dl->merged ? 0 : dl->units[i].off;
	l->dc = unit_dc(l, i, cu_die);
	if (!l->dc) {
		l->err.die = l->cu->off;
		return -EINVAL;
	}
	if (dr_die__at(l->dc, l->cu->off, cu_die) != 1) {
		l->err.die = l->cu->off;
		return -EINVAL;
	}
	/* pahole 1.30 fails on a unit whose root is no unit DIE */
	if (cu_die->ab->tag != DW_TAG_compile_unit && cu_die->ab->tag != DW_TAG_partial_unit &&
	    cu_die->ab->tag != DW_TAG_type_unit && cu_die->ab->tag != DW_TAG_skeleton_unit) {
		l->err.die = l->cu->off;
		l->err.root_tag = cu_die->ab->tag;
		return -EPROTO;
	}
	if (!l->producer_read) {
		const struct dr_attr *a = dr_die__attr(cu_die, DW_AT_producer);
		const char *producer = a ? dr_attr__string(l->dc, a) : NULL;

		l->producer_clang = producer && strstr(producer, "clang");
		l->producer_read = true;
	}
	if (unit_root_excluded(dl, l->dc, cu_die))
		return 1;
	l->addr_size = l->dc->unit->addr_size;
	return cu__walk(l, cu_die);
}

/*
 * Walk the type units the units walked so far refer to, and those they refer
 * to in turn, into the same CU: each CU gets its own copy of the types, as
 * it would without type units, and libbpf's dedup merges them. (pahole 1.30
 * does not follow type signatures: see Documentation/compat.md.)
 */
int type_units__walk(struct cu_loader *l, struct dr_die *tu_die)
{
	struct dr_cu *dc = l->dc, tdc;
	uint64_t cu_off = l->cu->off;
	int err = 0;

	while (!err && l->tu.walked < l->tu.nr) {
		const struct type_unit *tu = &l->dl->sigs[l->tu.queue[l->tu.walked++]];

		l->cu->off = tu->unit->die_off;
		if (dr_cu__init(&tdc, tu->secs, tu->unit)) {
			l->err.die = tu->unit->die_off;
			err = -EINVAL;
			break;
		}
		if (dr_die__at(&tdc, tu->unit->die_off, tu_die) != 1) {
			l->err.die = tu->unit->die_off;
			err = -EINVAL;
		} else {
			cu_bases(&tdc, tu_die);
			l->dc = &tdc;
			l->cu_start = 0;
			l->key_bits = tu->key_bits;
			err = cu__walk(l, tu_die);
			l->key_bits = 0;
		}
		dr_cu__release(&tdc);
	}
	l->dc = dc;
	if (!err)
		l->cu->off = cu_off;
	return err;
}
