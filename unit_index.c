// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader's unit index, built by dwarf_loader__new() on the main
 * thread and read-only after it: the header of every unit of .debug_info
 * (dl->units, unit i having id i), which of them are left out before they
 * are read, and the type units (.debug_types, DWARF 5 DW_UT_type) indexed
 * by signature (dl->sigs), so that a unit that names a signature gets the
 * type unit's types walked into its own CU (unit_walk.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "dwarf_loader_priv.h"
#include "msort.h"

int type_unit__cmp(const void *a, const void *b)
{
	const struct type_unit *x = a, *y = b;

	return x->signature < y->signature ? -1 : x->signature > y->signature;
}

/*
 * The unit header at *@off of @secs' "info" section (@name in messages)
 * appended to *@units (room for *@cap), *@off moved past the unit: 1, 0 at
 * the end of the section, or -errno (reported).
 */
static int unit_read(struct dwarf_loader *dl, const struct dr_sections *secs, const char *name,
		     uint64_t *off, struct dr_unit **units, unsigned int *nr, uint32_t *cap)
{
	uint8_t hdr[DR_UNIT_HEADER_MAX];
	const uint8_t *copy = NULL;
	uint64_t at = *off;
	struct dr_unit u;
	int ret;

	/*
	 * From the file, when the section is its mapping: a header read from
	 * the mapping cost a page fault for every unit (10 us each on a
	 * paravirtualized guest), taken again when a worker reads the unit.
	 */
	if (secs == &dl->secs && dl->info_in_file && at < secs->info.size) {
		size_t n = secs->info.size - at < sizeof(hdr) ? (size_t)(secs->info.size - at)
							      : sizeof(hdr);

		if (pread(dl->fd, hdr, n, (off_t)(dl->info_file_off + at)) == (ssize_t)n)
			copy = hdr;
	}
	ret = dr_unit__next(secs, off, copy, &u);
	if (ret < 0)
		pr_warn("%s: %s: bad unit header at offset %#" PRIx64 "\n", dl->path, name, at);
	if (ret <= 0)
		return ret;
	if (d2b_grow(units, cap, (uint64_t)*nr + 1, sizeof(**units)))
		return -ENOMEM;
	(*units)[(*nr)++] = u;
	return 1;
}

/*
 * Index the type units by signature: DWARF 5 DW_UT_type units in
 * .debug_info and DWARF 4 units in .debug_types. A linked file holds each
 * signature once; should one repeat, the first unit found is used.
 */
static int loader_index_type_units(struct dwarf_loader *dl)
{
	uint32_t cap_tunits = 0, cap_sigs = 0;
	uint64_t off = 0;
	unsigned int i;
	int ret;

	if (dl->types_secs.info.data) {
		while ((ret = unit_read(dl, &dl->types_secs, ".debug_types", &off, &dl->tunits,
					&dl->nr_tunits, &cap_tunits)) > 0)
			;
		if (ret)
			return ret;
	}
	for (i = 0; i < dl->nr_cus + dl->nr_tunits; i++) {
		bool in_types = i >= dl->nr_cus;
		const struct dr_unit *u = in_types ? &dl->tunits[i - dl->nr_cus] : &dl->units[i];

		if (u->unit_type != DW_UT_type)
			continue;
		/* the type DIE: after the unit DIE, inside the unit */
		if (u->type_off <= u->die_off || u->type_off >= u->end) {
			pr_warn("%s: %s: type unit at offset %#" PRIx64 ": type offset %#" PRIx64
				" is outside the unit\n",
				dl->path, in_types ? ".debug_types" : ".debug_info", u->off,
				u->type_off);
			return -EINVAL;
		}
		if (d2b_grow(&dl->sigs, &cap_sigs, (uint64_t)dl->nr_sigs + 1, sizeof(*dl->sigs)))
			return -ENOMEM;
		dl->sigs[dl->nr_sigs++] = (struct type_unit){
			.signature = u->signature,
			.unit = u,
			.secs = in_types ? &dl->types_secs : &dl->secs,
			.key_bits = in_types ? TU_KEY_TYPES : TU_KEY_INFO,
		};
	}
	if (dl->nr_sigs &&
	    (dl->secs.info.size >= TU_KEY_LIMIT || dl->types_secs.info.size >= TU_KEY_LIMIT)) {
		pr_warn("%s: .debug_info or .debug_types: 1 GiB or more with type units\n",
			dl->path);
		return -EFBIG;
	}
	/* msort is stable: the first unit of a repeated signature stays first */
	return msort(dl->sigs, dl->nr_sigs, sizeof(*dl->sigs), type_unit__cmp);
}

/*
 * Every unit header of .debug_info (read with pread, see unit_read), then
 * the type units. A compile unit's unit DIE (its tag and language, for
 * --lang_exclude) is read by the worker that loads it, which reads its
 * abbreviations anyway (unit__walk): here on the main thread, before the
 * first unit loads, it would be a third of the open phase.
 */
int loader__index_units(struct dwarf_loader *dl)
{
	uint32_t cap = 0, cap_excluded = 0;
	uint64_t off = 0;
	int ret;

	while ((ret = unit_read(dl, &dl->secs, ".debug_info", &off, &dl->units, &dl->nr_cus,
				&cap)) > 0) {
		unsigned int i = dl->nr_cus - 1;

		if (d2b_grow(&dl->cu_excluded, &cap_excluded, dl->nr_cus, sizeof(bool)))
			return -ENOMEM;
		/* partial, skeleton, type units */
		dl->cu_excluded[i] = dl->units[i].unit_type != DW_UT_compile;
	}
	if (ret)
		return ret;
	dl->load_errs = calloc(dl->nr_cus ? dl->nr_cus : 1, sizeof(*dl->load_errs));
	if (!dl->load_errs)
		return -ENOMEM;
	return loader_index_type_units(dl);
}
