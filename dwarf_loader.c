// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader - DWARF compilation units to the encoder's model (struct cu).
 *
 * Design
 * ------
 * dwarf_loader__new() runs once, on the main thread: it maps the ELF with
 * libelf, finds the debug sections (loader_sections.c) and indexes the
 * units of .debug_info (unit_index.c); unit i has id i. After that the
 * loader is read-only.
 *
 * dwarf_loader__load_cu() runs on worker threads, one unit per call, with a
 * struct dr_cu of its own: it walks that unit's DIE tree in one sequential
 * pass and only follows intra-unit references. No libdw; the one shared
 * mutable things are the list of idle loaders (struct cu_loader, under
 * dl->idle_lock), which keeps a worker's buffers from one unit to the next,
 * and the units' ring (unit_ring, locked inside): any number of units can
 * load concurrently. A unit is built in its loader's buffers, then copied
 * out as one block of its exact size (cu_pack), since it may wait in the
 * emit window for a while: into the ring every worker shares, where units
 * follow one another and their space comes back in unit order as the
 * writer frees them, so that the memory they take follows the window, not
 * the number of workers (from malloc, each one's arena would keep its own
 * high-water mark of them).
 *
 * Files (their shared structs and functions: dwarf_loader_priv.h)
 * -----
 * dwarf_loader.c       this API: opening, the pool of loaders, packing, errors
 * loader_sections.c    debug sections: mapping, relocation, page release
 * unit_index.c         the unit headers and type units, indexed at open
 * unit_walk.c          a unit's readers, merged mode, type units, languages
 * die_walk.c           the DIE walk: types, functions, variables
 * cu_tables.c          what a unit is built in: key map, vectors, type table
 * die_annotations.c    btf_decl_tag and btf_type_tag annotations
 * param_locations.c    parameter locations, pahole 1.32's analysis of them
 * cu_resolve.c         references to table indexes, cycles, sizes
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dwarf_loader_priv.h"
#include "tuning.h"
#include "unit_ring.h"

static void loaders_free(struct dwarf_loader *dl);

/* ---------------------------------------------------------------------- */
/* opening                                                                */

static bool elf_has_lto_note(Elf *elf)
{
	Elf_Scn *scn = NULL;

	/* the kernel's LINUX_ELFNOTE_LTO_INFO: owner "Linux", type 0x101 */
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const char *owner = (const char *)data->d_buf + name_off;

			if (nh.n_type == 0x101 && nh.n_namesz == 6 && !memcmp(owner, "Linux", 6) &&
			    nh.n_descsz >= 4 && *(const uint32_t *)((char *)data->d_buf + desc_off))
				return true;
		}
	}
	return false;
}

struct dwarf_loader *dwarf_loader__new(const char *path, const struct d2b_conf *conf, int *err)
{
	struct dwarf_loader *dl;
	GElf_Ehdr eh;

	elf_version(EV_CURRENT);
	dl = calloc(1, sizeof(*dl));
	if (!dl) {
		*err = -ENOMEM;
		return NULL;
	}
	dl->fd = -1;
	pthread_mutex_init(&dl->idle_lock, NULL);
	dl->path = path;
	dl->conf = conf;
	/* (no blocking on a FIFO: refused below, as any file that is not regular) */
	dl->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (dl->fd < 0) {
		*err = -errno;
		pr_warn("%s: %s\n", path, strerror(errno));
		goto out_free;
	}
	*err = d2b_regular_file(dl->fd, path);
	if (*err)
		goto out_free;
	dl->elf = elf_begin(dl->fd, ELF_C_READ_MMAP, NULL);
	if (!dl->elf || elf_kind(dl->elf) != ELF_K_ELF || !gelf_getehdr(dl->elf, &eh)) {
		pr_warn("%s: not an ELF file\n", path);
		*err = -EINVAL;
		goto out_free;
	}
	elf_machine__init(&dl->machine, eh.e_machine);
	*err = loader__check_size(dl, &eh);
	loader__find_image(dl);
	if (!*err)
		*err = loader__map_sections(dl, &eh);
	dl->relocatable = eh.e_type == ET_REL;
	if (!*err && eh.e_type == ET_REL)
		*err = loader__relocate(dl);
	if (*err)
		goto out_free;
	/* as pahole: cross-unit references, or the kernel's LTO note, make all
	 * units one CU, keyed by 32-bit .debug_info offsets */
	dl->merged = dr_abbrev__uses_form(&dl->secs, DW_FORM_ref_addr) || elf_has_lto_note(dl->elf);
	if (dl->merged && dl->secs.info.size > UINT32_MAX) {
		pr_warn("%s: .debug_info: over 4 GiB with cross-unit references\n", path);
		*err = -EFBIG;
		goto out_free;
	}
	section_map__init(dl, &dl->rel[REL_INFO], &dl->secs.info);
	/* (a mapped section is the file's image's bytes) */
	dl->info_in_file = dl->rel[REL_INFO].mapped;
	dl->info_file_off = dl->info_in_file ? (uint64_t)(dl->secs.info.data - dl->image) : 0;
	*err = loader__index_units(dl);
	if (*err)
		goto out_free;
	section_map__init(dl, &dl->rel[REL_ABBREV], &dl->secs.abbrev);
	section_map__init(dl, &dl->rel[REL_LOC], &dl->secs.loc);
	section_map__init(dl, &dl->rel[REL_LOCLISTS], &dl->secs.loclists);
	*err = releaser__start(dl);
	if (*err)
		goto out_free;
	/* (the one merged CU keeps its arrays apart; without a ring, malloc serves) */
	if (!dl->merged) {
		size_t units = (size_t)(conf->window ? conf->window : 1) + RING_SLACK_UNITS;

		dl->ring = unit_ring__new(units * RING_UNIT_BYTES);
	}
	return dl;

out_free:
	dwarf_loader__free(dl);
	return NULL;
}

void dwarf_loader__free(struct dwarf_loader *dl)
{
	unsigned int i;

	if (!dl)
		return;
	releaser__stop(dl);
	if (dl->elf)
		elf_end(dl->elf);
	if (dl->fd >= 0)
		close(dl->fd);
	for (i = 0; i <= LOADER_NR_SECS; i++)
		free(dl->bufs[i]);
	free(dl->units);
	free(dl->tunits);
	free(dl->sigs);
	free(dl->cu_excluded);
	for (i = 0; dl->load_errs && i < dl->nr_cus; i++)
		free(dl->load_errs[i]);
	free(dl->load_errs);
	loaders_free(dl);
	pthread_mutex_destroy(&dl->idle_lock);
	unit_ring__free(dl->ring);
	free(dl);
}

void dwarf_loader__end_loads(struct dwarf_loader *dl)
{
	pthread_mutex_lock(&dl->idle_lock);
	loaders_free(dl);
	pthread_mutex_unlock(&dl->idle_lock);
	/* every unit was written and freed: the ring's pages go too */
	unit_ring__free(dl->ring);
	dl->ring = NULL;
}

void dwarf_loader__str_section(const struct dwarf_loader *dl, const char **data, size_t *size)
{
	/* a linker merges equal strings, loader__relocate makes their references one */
	bool merged = !dl->relocatable || dl->strs_canonical;

	*data = merged ? (const char *)dl->secs.str.data : NULL;
	*size = merged ? dl->secs.str.size : 0;
}

unsigned int dwarf_loader__nr_cus(const struct dwarf_loader *dl)
{
	return dl->merged && dl->nr_cus ? 1 : dl->nr_cus;
}

/* ---------------------------------------------------------------------- */
/* the pool of loaders                                                    */

static void cu_arrays_free(struct cu *cu)
{
	free(cu->types);
	free(cu->members);
	free(cu->enumerators);
	free(cu->params);
	free(cu->annots);
	free(cu->funcs);
	free(cu->vars);
}

/*
 * A loader for the next unit: an idle one, with the buffers it grew for
 * earlier units, or a new one. Each worker thus keeps about one loader;
 * they go when the dwarf_loader does.
 */
static struct cu_loader *loader_take(struct dwarf_loader *dl)
{
	struct cu_loader *l;
	struct cu work;

	pthread_mutex_lock(&dl->idle_lock);
	l = dl->idle;
	if (l)
		dl->idle = l->next_idle;
	pthread_mutex_unlock(&dl->idle_lock);
	if (!l && !(l = calloc(1, sizeof(*l))))
		return NULL;
	memset(l, 0, offsetof(struct cu_loader, work));
	work = (struct cu){
		.types = l->work.types,
		.members = l->work.members,
		.enumerators = l->work.enumerators,
		.params = l->work.params,
		.annots = l->work.annots,
		.funcs = l->work.funcs,
		.vars = l->work.vars,
	};
	l->work = work;
	l->nr_vecs = 0;
	l->dl = dl;
	l->cu = &l->work;
	l->addr_size = 8;
	return l;
}

/* the per-unit allocations go, the loader waits for the next unit */
static void loader_give(struct dwarf_loader *dl, struct cu_loader *l)
{
	free(l->dcs);
	free(l->dc_state);
	free(l->tu.queue);
	free(l->tu.queued);
	free(l->tu.aliases);
	map__clear(l);
	pthread_mutex_lock(&dl->idle_lock);
	l->next_idle = dl->idle;
	dl->idle = l;
	pthread_mutex_unlock(&dl->idle_lock);
}

static void loader_destroy(struct cu_loader *l)
{
	uint32_t i;

	for (i = 0; i <= MAX_DIE_DEPTH; i++)
		free(l->scope_dies[i]);
	free(l->annot_dies);
	for (i = 0; i < l->cap_vecs && l->vecs[i]; i++) {
		free(l->vecs[i]->data);
		free(l->vecs[i]);
	}
	free(l->vecs);
	cu_arrays_free(&l->work);
	free(l->map.slots);
	free(l->map.used);
	free(l);
}

static void loaders_free(struct dwarf_loader *dl)
{
	while (dl->idle) {
		struct cu_loader *l = dl->idle;

		dl->idle = l->next_idle;
		loader_destroy(l);
	}
}

/* ---------------------------------------------------------------------- */
/* loading a unit                                                         */

static void *cu_pack_place(char **p, const void *src, size_t bytes)
{
	void *dst = *p;

	if (!bytes)
		return NULL;
	memcpy(dst, src, bytes);
	*p += bytes;
	return dst;
}

/*
 * The CU built in l->work, as a struct cu of its own. Loaded units wait in
 * the emit window, so each is copied out at its exact size into one block
 * (the struct, then its arrays): the worker's buffers grow once, and units
 * come and go from the units' ring (or, with no room there, from malloc)
 * as single blocks. The one merged CU of
 * an LTO kernel, which can be hundreds of MiB, is not held twice: it takes
 * the buffers themselves.
 */
static int cu_pack(struct cu_loader *l, struct cu **cup)
{
	struct cu *w = &l->work, *cu;
	size_t bytes[7] = {
		(size_t)w->nr_types * sizeof(*w->types),
		(size_t)l->nr_members * sizeof(*w->members),
		(size_t)l->nr_enums * sizeof(*w->enumerators),
		(size_t)l->nr_params * sizeof(*w->params),
		(size_t)l->nr_annots * sizeof(*w->annots),
		(size_t)w->nr_funcs * sizeof(*w->funcs),
		(size_t)w->nr_vars * sizeof(*w->vars),
	};
	size_t total = sizeof(*cu);
	void *ring;
	char *p;
	int i;

	/* each array starts 8-aligned after the struct */
	_Static_assert(sizeof(struct cu) % 8 == 0 && sizeof(struct cu_type) % 8 == 0 &&
			       sizeof(struct cu_member) % 8 == 0 &&
			       sizeof(struct cu_enumerator) % 8 == 0 &&
			       sizeof(struct cu_param) % 8 == 0 &&
			       sizeof(struct cu_annot) % 8 == 0 &&
			       sizeof(struct cu_func) % 8 == 0 && sizeof(struct cu_var) % 8 == 0,
		       "cu arrays packed 8-aligned");
	w->nr_annots = l->nr_annots; /* (copied with the struct, either way) */
	if (l->dl->merged) {
		cu = malloc(sizeof(*cu));
		if (!cu)
			return -ENOMEM;
		*cu = *w;
		cu->own_arrays = true;
		memset(w, 0, sizeof(*w));
		l->cap_types = l->cap_members = l->cap_enums = l->cap_params = 0;
		l->cap_annots = l->cap_funcs = l->cap_vars = 0;
		*cup = cu;
		return 0;
	}
	for (i = 0; i < 7; i++)
		total += bytes[i];
	ring = l->dl->ring ? unit_ring__alloc(l->dl->ring, total) : NULL;
	cu = ring ? ring : malloc(total);
	if (!cu)
		return -ENOMEM;
	*cu = *w;
	cu->ring = ring ? l->dl->ring : NULL;
	cu->bytes = total;
	p = (char *)(cu + 1);
	cu->types = cu_pack_place(&p, w->types, bytes[0]);
	cu->members = cu_pack_place(&p, w->members, bytes[1]);
	cu->enumerators = cu_pack_place(&p, w->enumerators, bytes[2]);
	cu->params = cu_pack_place(&p, w->params, bytes[3]);
	cu->annots = cu_pack_place(&p, w->annots, bytes[4]);
	cu->funcs = cu_pack_place(&p, w->funcs, bytes[5]);
	cu->vars = cu_pack_place(&p, w->vars, bytes[6]);
	*cup = cu;
	return 0;
}

/*
 * Why unit @id failed to load: kept, not printed, so that of several bad
 * units the one reported is the first in unit order whatever the timing
 * (dwarves_emit_ordered.c, "Errors"). Printed at once if it cannot be kept.
 */
__attribute__((format(printf, 3, 4))) static void load_err(struct dwarf_loader *dl, unsigned int id,
							   const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int len;

	va_start(ap, fmt);
	len = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (len < 0) {
		va_start(ap, fmt);
		fputs("dwarf2btf: ", stderr);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		return;
	}
	dwarf_loader__keep_err(dl, id, msg);
}

void dwarf_loader__keep_err(struct dwarf_loader *dl, unsigned int id, char *msg)
{
	free(dl->load_errs[id]);
	dl->load_errs[id] = msg;
}

void dwarf_loader__report(const struct dwarf_loader *dl, unsigned int id)
{
	if (id < dl->nr_cus && dl->load_errs[id])
		pr_warn("%s", dl->load_errs[id]);
}

/* the message of unit @id's load, failed with @err, recorded (load_err) */
static void load_cu_failed(struct dwarf_loader *dl, unsigned int id, const struct cu_loader *l,
			   int err)
{
	const struct cu *cu = l->cu;

	if (err == -ELOOP && l->err.too_deep)
		load_err(dl, id, "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": nesting deeper than %d\n",
			 dl->path, cu->off, l->err.die, MAX_DIE_DEPTH);
	else if (err == -ELOOP && l->err.chain_too_long)
		load_err(dl, id,
			 "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": chain of reference types "
			 "longer than %d\n",
			 dl->path, cu->off, l->err.die, MAX_REF_CHAIN);
	else if (err == -ELOOP)
		load_err(dl, id, "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": type refers to itself\n",
			 dl->path, cu->off, l->err.die);
	else if (err == -ENOENT)
		load_err(dl, id,
			 "%s: CU %#" PRIx64 ": type signature %#" PRIx64 ": no such type unit\n",
			 dl->path, cu->off, l->err.sig);
	else if (err == -EBADMSG)
		load_err(dl, id,
			 "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": reference to no DIE of %s\n",
			 dl->path, cu->off, l->err.ref_die,
			 dl->merged ? ".debug_info" : "its unit");
	else if (err == -ERANGE)
		load_err(dl, id,
			 "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": %s: index or offset outside "
			 "its section\n",
			 dl->path, cu->off, l->err.attr_die,
			 l->err.attr == DW_AT_name     ? "DW_AT_name"
			 : l->err.attr == DW_AT_low_pc ? "DW_AT_low_pc"
						       : "DW_AT_location");
	else if (err == -EPROTO)
		load_err(dl, id, "%s: CU %#" PRIx64 ": root DIE of tag %#x is no unit DIE\n",
			 dl->path, cu->off, l->err.root_tag);
	else if (err == -EINVAL && l->err.die == cu->off && !l->dc)
		load_err(dl, id, "%s: CU %#" PRIx64 ": bad abbreviation table or unit DIE\n",
			 dl->path, cu->off);
	else if (err == -EINVAL)
		load_err(dl, id, "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": malformed DWARF\n",
			 dl->path, cu->off, l->err.die);
	else
		load_err(dl, id, "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": %s\n", dl->path, cu->off,
			 l->err.die, strerror(-err));
}

/*
 * the units [@first, @last) walked into l->cu (several: merged), then the
 * type units they refer to, and the references resolved: 0, 1 if the one
 * unit is left out (--lang_exclude), or -errno
 */
static int load_cu_walk(struct dwarf_loader *dl, struct cu_loader *l, unsigned int first,
			unsigned int last)
{
	struct dr_die *cu_die = malloc(sizeof(*cu_die));
	unsigned int i;
	int err = 0;

	if (!cu_die)
		return -ENOMEM;
	for (i = first; i < last && !err; i++) {
		if (!dl->cu_excluded[i])
			err = unit__walk(l, i, cu_die);
		if (err > 0 && dl->merged)
			err = 0; /* that unit is left out, the others are walked */
	}
	if (!err && l->tu.nr)
		err = type_units__walk(l, cu_die);
	free(cu_die);
	if (err)
		return err;
	if (l->err.oom)
		return -ENOMEM;
	if (l->err.sig)
		return -ENOENT;
	if (l->err.ref_die)
		return -EBADMSG;
	if (l->err.attr_die)
		return -ERANGE;
	return cu__resolve(l);
}

int dwarf_loader__load_cu(struct dwarf_loader *dl, unsigned int id, struct cu **cup)
{
	unsigned int i, first = id, last = id + 1, nr_dcs = 1;
	struct cu_loader *l;
	struct cu *cu;
	int err = -ENOMEM;

	if (dl->merged) {
		first = 0;
		last = nr_dcs = dl->nr_cus;
	}
	l = loader_take(dl);
	if (!l)
		return -ENOMEM;
	cu = l->cu;
	cu->id = id;
	cu->off = dl->units[id].die_off;
	cu->excluded = !dl->merged && dl->cu_excluded[id];
	/* index 0: void */
	if (d2b_grow(&cu->types, &l->cap_types, 1, sizeof(*cu->types)))
		goto out_free;
	memset(&cu->types[0], 0, sizeof(cu->types[0]));
	cu->nr_types = 1;
	if (cu->excluded)
		goto out_done;
	l->dcs = calloc(nr_dcs, sizeof(*l->dcs));
	l->dc_state = calloc(nr_dcs, sizeof(*l->dc_state));
	if (!l->dcs || !l->dc_state)
		goto out_free;
	err = load_cu_walk(dl, l, first, last);
	if (err > 0) { /* the one unit is left out */
		cu->excluded = true;
		goto out_done;
	}
	if (err) {
		load_cu_failed(dl, id, l, err);
		goto out_free;
	}
	cu->addr_size = (uint8_t)l->addr_size;
	cu->nr_param_regs = (uint8_t)dl->machine.nr_param_regs;
	cu->big_endian = dl->secs.swap != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
out_done:
	err = cu_pack(l, cup);
out_free:
	for (i = 0; l->dc_state && i < nr_dcs; i++)
		if (l->dc_state[i] == 1 || l->dc_state[i] == 3)
			dr_cu__release(&l->dcs[i]);
	loader_give(dl, l);
	return err;
}

void cu__free(struct cu *cu)
{
	if (!cu)
		return;
	free(cu->btf);
	if (cu->own_arrays)
		cu_arrays_free(cu);
	if (cu->ring)
		unit_ring__release(cu->ring, cu);
	else
		free(cu);
}
