// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader - DWARF compilation units to the encoder's model (struct cu).
 *
 * Design
 * ------
 * dwarf_loader__new() runs once, on the main thread: it opens the ELF with
 * libelf/libdw, walks the unit headers with dwarf_next_unit() and creates
 * the DIE of every unit with dwarf_offdie(). That interns every CU in libdw's
 * CU tree up front, serially, so the workers later only read it.
 *
 * dwarf_loader__load_cu() runs on worker threads, one unit per call. It walks
 * that unit's DIE tree and only follows intra-unit references
 * (dwarf_formref_die() on DW_FORM_ref*, which does not search the CU tree).
 * Per-CU libdw state (abbreviation hash, the unit's expression cache) is only
 * touched by the one thread that owns the unit. The one libdw facility that
 * is shared between units is the cache behind location *lists* (the fake
 * location CU), so the parameter-register analysis that reads them runs
 * under dl->loc_lock. Nothing else is locked.
 *
 * Table order follows pahole's loader so that the encoder can emit the same
 * pre-dedup type stream: a type entry is appended when its DIE is done, after
 * the types nested in it; a pointer's btf_type_tag entries come before it.
 * References are stored as CU-relative DIE offsets while walking and turned
 * into table indexes at the end (cu_resolve); anything that is not a table
 * entry (unspecified types, missing DIEs) resolves to void.
 *
 * Units that use DW_FORM_ref_addr (cross-CU references, clang LTO) and
 * .debug_types units are rejected with a clear error for now.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "btf_features.h"
#include "d2b_util.h"
#include "dwarf_loader.h"

#ifndef DW_TAG_LLVM_annotation
#define DW_TAG_LLVM_annotation 0x6000
#endif

#define MAX_DIE_DEPTH 512

struct dwarf_loader {
	const char *path;
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	const struct d2b_conf *conf;
	Dwarf_Die *cu_dies; /* read-only after __new */
	unsigned int nr_cus;
	bool *cu_excluded;
	uint8_t addr_size;
	/* x86-64 ABI: registers holding the first parameters (DW_OP_regN) */
	const int *param_regs;
	int nr_param_regs;
	/* guards libdw's location-list parsing (shared fake-CU cache) */
	pthread_mutex_t loc_lock;
};

static const int x86_64_param_regs[] = { DW_OP_reg5, DW_OP_reg4, DW_OP_reg1,
					 DW_OP_reg2, DW_OP_reg8, DW_OP_reg9 };
static const int aarch64_param_regs[] = { DW_OP_reg0, DW_OP_reg1, DW_OP_reg2, DW_OP_reg3,
					  DW_OP_reg4, DW_OP_reg5, DW_OP_reg6, DW_OP_reg7 };
static const int s390_param_regs[] = { DW_OP_reg2, DW_OP_reg3, DW_OP_reg4, DW_OP_reg5,
				       DW_OP_reg6 };

/* ---------------------------------------------------------------------- */
/* languages                                                              */

static const struct {
	const char *name;
	int lang;
} languages[] = {
	{ "c89", DW_LANG_C89 },		  { "c", DW_LANG_C },
	{ "ada83", DW_LANG_Ada83 },	  { "c_plus_plus", DW_LANG_C_plus_plus },
	{ "cobol74", DW_LANG_Cobol74 },	  { "cobol85", DW_LANG_Cobol85 },
	{ "fortran77", DW_LANG_Fortran77 }, { "fortran90", DW_LANG_Fortran90 },
	{ "pascal83", DW_LANG_Pascal83 }, { "modula2", DW_LANG_Modula2 },
	{ "java", DW_LANG_Java },	  { "c99", DW_LANG_C99 },
	{ "ada95", DW_LANG_Ada95 },	  { "fortran95", DW_LANG_Fortran95 },
	{ "pli", DW_LANG_PLI },		  { "objc", DW_LANG_ObjC },
	{ "objc_plus_plus", DW_LANG_ObjC_plus_plus }, { "upc", DW_LANG_UPC },
	{ "d", DW_LANG_D },		  { "python", DW_LANG_Python },
	{ "opencl", DW_LANG_OpenCL },	  { "go", DW_LANG_Go },
	{ "modula3", DW_LANG_Modula3 },	  { "haskell", DW_LANG_Haskell },
	{ "c_plus_plus_03", DW_LANG_C_plus_plus_03 },
	{ "c_plus_plus_11", DW_LANG_C_plus_plus_11 },
	{ "ocaml", DW_LANG_OCaml },	  { "rust", DW_LANG_Rust },
	{ "c11", DW_LANG_C11 },		  { "swift", DW_LANG_Swift },
	{ "julia", DW_LANG_Julia },	  { "dylan", DW_LANG_Dylan },
	{ "c_plus_plus_14", DW_LANG_C_plus_plus_14 },
	{ "fortran03", DW_LANG_Fortran03 }, { "fortran08", DW_LANG_Fortran08 },
	{ "renderscript", DW_LANG_RenderScript }, { "bliss", DW_LANG_BLISS },
	{ "asm", DW_LANG_Mips_Assembler },
	{ "mips_assembler", DW_LANG_Mips_Assembler },
};

static bool lang_excluded(const char *list, int lang)
{
	const char *p = list;
	size_t i, len;

	while (p && *p) {
		len = strcspn(p, ",");
		for (i = 0; i < sizeof(languages) / sizeof(languages[0]); i++) {
			if (languages[i].lang == lang && strlen(languages[i].name) == len &&
			    !strncasecmp(p, languages[i].name, len))
				return true;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

/* ---------------------------------------------------------------------- */
/* opening                                                                */

/* decode one (U|S)LEB128 value's bytes, bounded by @end; returns the next byte */
static const uint8_t *uleb(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	unsigned int shift = 0;

	*v = 0;
	while (p < end) {
		uint8_t b = *p++;

		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return p;
}

/* .debug_abbrev: does any abbreviation use DW_FORM_ref_addr? */
static int abbrev_uses_ref_addr(Elf *elf, bool *found)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	*found = false;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -EINVAL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		const char *name;
		const uint8_t *p, *end;

		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".debug_abbrev") || sh.sh_type == SHT_NOBITS)
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
			return -EINVAL;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return 0;
		p = data->d_buf;
		end = p + data->d_size;
		/* tables: (code, tag, children, (attr, form[, implicit])*, 0 0)*, 0 */
		while (p < end) {
			uint64_t code, v;

			p = uleb(p, end, &code);
			if (!code)
				continue;
			p = uleb(p, end, &v); /* tag */
			p++;				       /* children */
			for (;;) {
				uint64_t at, form;

				p = uleb(p, end, &at);
				p = uleb(p, end, &form);
				if (p >= end || (!at && !form))
					break;
				if (form == DW_FORM_ref_addr)
					*found = true;
				if (form == DW_FORM_implicit_const)
					p = uleb(p, end, &v);
			}
		}
		return 0;
	}
	return 0;
}

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

static void loader_set_arch(struct dwarf_loader *dl, GElf_Ehdr *eh)
{
	switch (eh->e_machine) {
	case EM_X86_64:
		dl->param_regs = x86_64_param_regs;
		dl->nr_param_regs = 6;
		break;
	case EM_AARCH64:
	case EM_ARM:
		dl->param_regs = aarch64_param_regs;
		dl->nr_param_regs = 8;
		break;
	case EM_S390:
		dl->param_regs = s390_param_regs;
		dl->nr_param_regs = 5;
		break;
	default:
		dl->param_regs = NULL;
		dl->nr_param_regs = 0;
	}
}

static int loader_index_units(struct dwarf_loader *dl)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	uint32_t cap = 0;
	uint64_t sig;

	if (dwarf_next_unit(dl->dwarf, 0, &next, &hsize, NULL, NULL, NULL, NULL, &sig, NULL) == 0) {
		pr_warn("%s: .debug_types units are not supported yet\n", dl->path);
		return -ENOTSUP;
	}
	while (dwarf_next_unit(dl->dwarf, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL,
			       NULL) == 0) {
		Dwarf_Die die;
		int lang;

		if (d2b_grow(&dl->cu_dies, &cap, dl->nr_cus + 1, sizeof(*dl->cu_dies)) ||
		    d2b_grow(&dl->cu_excluded, &(uint32_t){ cap / 2 }, 0, 1))
			return -ENOMEM;
		if (!dwarf_offdie(dl->dwarf, off + hsize, &die)) {
			pr_warn("%s: .debug_info: bad unit header at offset %#" PRIx64 ": %s\n",
				dl->path, (uint64_t)off, dwarf_errmsg(-1));
			return -EINVAL;
		}
		dl->cu_dies[dl->nr_cus++] = die;
		(void)lang;
		off = next;
	}
	dl->cu_excluded = calloc(dl->nr_cus ? dl->nr_cus : 1, sizeof(bool));
	if (!dl->cu_excluded)
		return -ENOMEM;
	for (unsigned int i = 0; i < dl->nr_cus; i++) {
		Dwarf_Die *die = &dl->cu_dies[i];
		Dwarf_Attribute attr;
		Dwarf_Word lang;
		int tag = dwarf_tag(die);

		if (tag == DW_TAG_partial_unit || tag == DW_TAG_skeleton_unit ||
		    tag == DW_TAG_type_unit) {
			dl->cu_excluded[i] = true;
			continue;
		}
		if (dl->conf->lang_exclude && dwarf_attr(die, DW_AT_language, &attr) &&
		    !dwarf_formudata(&attr, &lang) && lang_excluded(dl->conf->lang_exclude, lang))
			dl->cu_excluded[i] = true;
	}
	return 0;
}

struct dwarf_loader *dwarf_loader__new(const char *path, const struct d2b_conf *conf, int *err)
{
	struct dwarf_loader *dl;
	GElf_Ehdr eh;
	bool ref_addr;

	elf_version(EV_CURRENT);
	dl = calloc(1, sizeof(*dl));
	if (!dl) {
		*err = -ENOMEM;
		return NULL;
	}
	dl->fd = -1;
	dl->path = path;
	dl->conf = conf;
	pthread_mutex_init(&dl->loc_lock, NULL);
	dl->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (dl->fd < 0) {
		*err = -errno;
		pr_warn("%s: %s\n", path, strerror(errno));
		goto out_free;
	}
	dl->elf = elf_begin(dl->fd, ELF_C_READ_MMAP, NULL);
	if (!dl->elf || elf_kind(dl->elf) != ELF_K_ELF || !gelf_getehdr(dl->elf, &eh)) {
		pr_warn("%s: not an ELF file\n", path);
		*err = -EINVAL;
		goto out_free;
	}
	if (eh.e_type == ET_REL) {
		pr_warn("%s: relocatable objects (kernel modules) are not supported yet\n", path);
		*err = -ENOTSUP;
		goto out_free;
	}
	dl->addr_size = gelf_getclass(dl->elf) == ELFCLASS32 ? 4 : 8;
	loader_set_arch(dl, &eh);
	dl->dwarf = dwarf_begin_elf(dl->elf, DWARF_C_READ, NULL);
	if (!dl->dwarf) {
		pr_warn("%s: no DWARF debug info: %s\n", path, dwarf_errmsg(-1));
		*err = -ENODATA;
		goto out_free;
	}
	*err = abbrev_uses_ref_addr(dl->elf, &ref_addr);
	if (*err) {
		pr_warn("%s: .debug_abbrev: cannot read\n", path);
		goto out_free;
	}
	if (ref_addr || elf_has_lto_note(dl->elf)) {
		pr_warn("%s: cross-CU references (DW_FORM_ref_addr or LTO) are not supported yet\n",
			path);
		*err = -ENOTSUP;
		goto out_free;
	}
	*err = loader_index_units(dl);
	if (*err)
		goto out_free;
	return dl;

out_free:
	dwarf_loader__free(dl);
	return NULL;
}

void dwarf_loader__free(struct dwarf_loader *dl)
{
	if (!dl)
		return;
	if (dl->dwarf)
		dwarf_end(dl->dwarf);
	if (dl->elf)
		elf_end(dl->elf);
	if (dl->fd >= 0)
		close(dl->fd);
	pthread_mutex_destroy(&dl->loc_lock);
	free(dl->cu_dies);
	free(dl->cu_excluded);
	free(dl);
}

unsigned int dwarf_loader__nr_cus(const struct dwarf_loader *dl)
{
	return dl->nr_cus;
}

/* ---------------------------------------------------------------------- */
/* per-unit walk                                                          */

struct cu_loader {
	struct dwarf_loader *dl;
	struct cu *cu;
	uint64_t cu_start; /* .debug_info offset of the unit */
	uint32_t cap_types, cap_members, cap_enums, cap_params, cap_annots, cap_funcs, cap_vars;
	uint32_t nr_members, nr_enums, nr_params, nr_annots;
	/* DIE offset (CU-relative) -> types[] index, open addressing */
	uint32_t *map_keys, *map_vals, map_cap, map_nr;
	uint64_t err_die; /* DIE the first error is about */
	int depth;
};

static uint32_t rel_ref(struct cu_loader *l, Dwarf_Die *die, int at)
{
	Dwarf_Attribute attr;
	Dwarf_Die ref;

	if (!dwarf_attr_integrate(die, at, &attr) || !dwarf_formref_die(&attr, &ref))
		return 0;
	return (uint32_t)(dwarf_dieoffset(&ref) - l->cu_start);
}

static uint64_t attr_udata(Dwarf_Die *die, int at, uint64_t def)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;

	if (!dwarf_attr(die, at, &attr) || dwarf_formudata(&attr, &v))
		return def;
	return v;
}

static bool attr_flag(Dwarf_Die *die, int at)
{
	Dwarf_Attribute attr;
	bool v = false;

	return dwarf_attr(die, at, &attr) && !dwarf_formflag(&attr, &v) && v;
}

static const char *attr_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr_integrate(die, DW_AT_name, &attr))
		return NULL;
	return dwarf_formstring(&attr);
}

static int map_grow(struct cu_loader *l)
{
	uint32_t ncap = l->map_cap ? l->map_cap * 2 : 1024, i;
	uint32_t *nk = calloc(ncap, sizeof(*nk)), *nv = calloc(ncap, sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (i = 0; i < l->map_cap; i++) {
		uint32_t k = l->map_keys[i], h;

		if (!k)
			continue;
		for (h = (k * 2654435761u) & (ncap - 1); nk[h]; h = (h + 1) & (ncap - 1))
			;
		nk[h] = k;
		nv[h] = l->map_vals[i];
	}
	free(l->map_keys);
	free(l->map_vals);
	l->map_keys = nk;
	l->map_vals = nv;
	l->map_cap = ncap;
	return 0;
}

static int map_add(struct cu_loader *l, uint32_t key, uint32_t val)
{
	uint32_t h;

	if ((l->map_nr + 1) * 2 > l->map_cap && map_grow(l))
		return -ENOMEM;
	for (h = (key * 2654435761u) & (l->map_cap - 1); l->map_keys[h];
	     h = (h + 1) & (l->map_cap - 1))
		if (l->map_keys[h] == key)
			break;
	if (!l->map_keys[h])
		l->map_nr++;
	l->map_keys[h] = key;
	l->map_vals[h] = val;
	return 0;
}

static uint32_t map_find(const struct cu_loader *l, uint32_t key)
{
	uint32_t h;

	if (!key || !l->map_cap)
		return 0;
	for (h = (key * 2654435761u) & (l->map_cap - 1); l->map_keys[h];
	     h = (h + 1) & (l->map_cap - 1))
		if (l->map_keys[h] == key)
			return l->map_vals[h];
	return 0;
}

/*
 * A scope's members, parameters or annotations are collected here while its
 * children (which may hold nested types with items of their own) are walked,
 * then appended to the unit's array in one piece, so every type's and
 * function's items are contiguous.
 */
struct vec {
	void *data;
	uint32_t nr, cap;
};

static int vec_push(struct vec *v, const void *item, size_t sz)
{
	if (d2b_grow(&v->data, &v->cap, (uint64_t)v->nr + 1, sz))
		return -ENOMEM;
	memcpy((char *)v->data + (size_t)v->nr * sz, item, sz);
	v->nr++;
	return 0;
}

/* append @v to *@arr (capacity *@cap, length *@nr); *@first = where it went */
static int vec_flush(struct vec *v, void *arr, uint32_t *cap, uint32_t *nr, size_t sz,
		     uint32_t *first)
{
	void **a = arr;

	*first = *nr;
	if (v->nr) {
		if (d2b_grow(a, cap, (uint64_t)*nr + v->nr, sz))
			return -ENOMEM;
		memcpy((char *)*a + (size_t)*nr * sz, v->data, (size_t)v->nr * sz);
		*nr += v->nr;
	}
	free(v->data);
	v->data = NULL;
	return 0;
}

/* append a type entry for @die (NULL: no DIE); returns its index or 0 on ENOMEM */
static uint32_t type_add(struct cu_loader *l, Dwarf_Die *die, struct cu_type *t)
{
	struct cu *cu = l->cu;
	uint32_t idx = cu->nr_types;

	if (d2b_grow(&cu->types, &l->cap_types, idx + 1, sizeof(*cu->types)))
		return 0;
	if (die) {
		t->die_off = dwarf_dieoffset(die);
		if (map_add(l, (uint32_t)(t->die_off - l->cu_start), idx))
			return 0;
	}
	cu->types[idx] = *t;
	cu->nr_types++;
	return idx;
}

/* a btf_decl_tag / btf_type_tag annotation child: returns its value or NULL */
static const char *annotation_value(Dwarf_Die *die, const char *want)
{
	Dwarf_Attribute attr;
	const char *name = attr_name(die);

	if (!name || strcmp(name, want) || !dwarf_attr(die, DW_AT_const_value, &attr))
		return NULL;
	return dwarf_formstring(&attr);
}

static int annot_add(struct cu_loader *l, Dwarf_Die *die, int component, struct vec *annots)
{
	struct cu_annot a = { .component_idx = component };

	if (l->dl->conf->skip_decl_tag || !(a.value = annotation_value(die, "btf_decl_tag")))
		return 0;
	return vec_push(annots, &a, sizeof(a));
}

/* annotations that are children of @die, with component index @component */
static int annots_of(struct cu_loader *l, Dwarf_Die *die, int component, struct vec *annots)
{
	Dwarf_Die child;
	int err = 0;

	if (dwarf_child(die, &child))
		return 0;
	do {
		if (dwarf_tag(&child) == DW_TAG_LLVM_annotation)
			err = annot_add(l, &child, component, annots);
	} while (!err && dwarf_siblingof(&child, &child) == 0);
	return err;
}

static int annots_flush(struct cu_loader *l, struct vec *annots, uint32_t *first, uint32_t *nr)
{
	*nr = annots->nr;
	return vec_flush(annots, &l->cu->annots, &l->cap_annots, &l->nr_annots,
			 sizeof(struct cu_annot), first);
}

static int die_process(struct cu_loader *l, Dwarf_Die *die);

static int die_process_pointer(struct cu_loader *l, Dwarf_Die *die, struct cu_type *t)
{
	Dwarf_Die child;
	uint32_t prev = t->type;

	if (!l->dl->conf->skip_type_tag && dwarf_child(die, &child) == 0) {
		do {
			struct cu_type tt = { .tag = D2B_TAG_TYPE_TAG };

			if (dwarf_tag(&child) != DW_TAG_LLVM_annotation ||
			    !(tt.name = annotation_value(&child, "btf_type_tag")))
				continue;
			tt.type = prev;
			if (!type_add(l, &child, &tt))
				return -ENOMEM;
			prev = (uint32_t)(dwarf_dieoffset(&child) - l->cu_start);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	t->type = prev;
	return type_add(l, die, t) ? 0 : -ENOMEM;
}

static uint64_t array_nelems(Dwarf_Die *die)
{
	Dwarf_Die child;
	uint32_t n = 1;

	if (dwarf_child(die, &child))
		return 0;
	do {
		Dwarf_Attribute attr;
		Dwarf_Word v;
		uint32_t dim = 0;

		if (dwarf_tag(&child) != DW_TAG_subrange_type &&
		    dwarf_tag(&child) != DW_TAG_enumeration_type)
			continue;
		if (dwarf_attr(&child, DW_AT_upper_bound, &attr)) {
			if (!dwarf_formudata(&attr, &v))
				dim = (uint32_t)(v + 1);
		} else if (dwarf_attr(&child, DW_AT_count, &attr)) {
			if (!dwarf_formudata(&attr, &v))
				dim = (uint32_t)v;
		}
		n *= dim;
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

static int die_process_params(struct cu_loader *l, Dwarf_Die *die, uint32_t *first, uint32_t *nr)
{
	Dwarf_Die child;

	*first = l->nr_params;
	*nr = 0;
	if (dwarf_child(die, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child);
		struct cu_param p = {};

		if (tag == DW_TAG_formal_parameter) {
			p.name = attr_name(&child);
			p.type = rel_ref(l, &child, DW_AT_type);
		} else if (tag == DW_TAG_unspecified_parameters) {
			p.vararg = true;
		} else {
			continue;
		}
		if (d2b_grow(&l->cu->params, &l->cap_params, l->nr_params + 1,
			     sizeof(*l->cu->params)))
			return -ENOMEM;
		l->cu->params[l->nr_params++] = p;
		(*nr)++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int die_process_enum(struct cu_loader *l, Dwarf_Die *die, struct cu_type *t)
{
	Dwarf_Die child, base;
	Dwarf_Attribute attr;

	t->size = attr_udata(die, DW_AT_byte_size, 0);
	if (dwarf_attr(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, &base)) {
		uint64_t enc = attr_udata(&base, DW_AT_encoding, 0);

		if (dwarf_tag(&base) == DW_TAG_base_type &&
		    (enc == DW_ATE_signed || enc == DW_ATE_signed_char))
			t->flags |= CU_TYPE_SIGNED_ENUM;
	}
	t->first = l->nr_enums;
	if (dwarf_child(die, &child) == 0) {
		do {
			struct cu_enumerator e;

			if (dwarf_tag(&child) != DW_TAG_enumerator)
				continue;
			e.name = attr_name(&child);
			e.value = attr_udata(&child, DW_AT_const_value, 0);
			if (d2b_grow(&l->cu->enumerators, &l->cap_enums, l->nr_enums + 1,
				     sizeof(*l->cu->enumerators)))
				return -ENOMEM;
			l->cu->enumerators[l->nr_enums++] = e;
			t->nr++;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return type_add(l, die, t) ? 0 : -ENOMEM;
}

static uint64_t member_byte_offset(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Block block;

	if (!dwarf_attr(die, DW_AT_data_member_location, &attr))
		return 0;
	if (!dwarf_formudata(&attr, &v))
		return v;
	/* DWARF 2 style: DW_OP_plus_uconst N */
	if (!dwarf_formblock(&attr, &block) && block.length > 1 &&
	    block.data[0] == DW_OP_plus_uconst) {
		uleb(block.data + 1, block.data + block.length, &v);
		return v;
	}
	return 0;
}

static int member_add(Dwarf_Die *die, struct cu_loader *l, struct vec *members)
{
	struct cu_member m = {};
	Dwarf_Attribute attr;
	Dwarf_Sword sv;
	Dwarf_Word v;

	m.name = attr_name(die);
	m.type = rel_ref(l, die, DW_AT_type);
	m.bitfield_size = (uint32_t)attr_udata(die, DW_AT_bit_size, 0);
	if (dwarf_attr(die, DW_AT_data_bit_offset, &attr) && !dwarf_formudata(&attr, &v)) {
		m.bit_offset = v;
	} else {
		m.bit_offset = member_byte_offset(die) * 8;
		if (dwarf_attr(die, DW_AT_bit_offset, &attr) && !dwarf_formsdata(&attr, &sv)) {
			m.has_dw4_bit_offset = true;
			m.dw4_bit_offset = sv;
		}
	}
	return vec_push(members, &m, sizeof(m));
}

static int die_process_class(struct cu_loader *l, Dwarf_Die *die, struct cu_type *t)
{
	struct vec members = {}, annots = {};
	Dwarf_Die child;
	int err = 0;

	t->size = attr_udata(die, DW_AT_byte_size, 0);
	if (dwarf_child(die, &child) == 0) {
		do {
			switch (dwarf_tag(&child)) {
			case DW_TAG_member:
				/* C++ static members: declarations without location */
				if (t->tag != DW_TAG_union_type && attr_flag(&child, DW_AT_declaration))
					break;
				err = annots_of(l, &child, (int)members.nr, &annots);
				if (!err)
					err = member_add(&child, l, &members);
				break;
			case DW_TAG_LLVM_annotation:
				err = annot_add(l, &child, -1, &annots);
				break;
			case DW_TAG_subprogram:
			case DW_TAG_variable:
			case DW_TAG_inheritance:
			case DW_TAG_template_type_parameter:
			case DW_TAG_template_value_parameter:
				break;
			default:
				err = die_process(l, &child);
			}
		} while (!err && dwarf_siblingof(&child, &child) == 0);
	}
	t->nr = members.nr;
	if (!err)
		err = vec_flush(&members, &l->cu->members, &l->cap_members, &l->nr_members,
				sizeof(struct cu_member), &t->first);
	if (!err)
		err = annots_flush(l, &annots, &t->annot_first, &t->nr_annots);
	free(members.data);
	free(annots.data);
	if (err)
		return err;
	return type_add(l, die, t) ? 0 : -ENOMEM;
}

static int die_process_typedef(struct cu_loader *l, Dwarf_Die *die, struct cu_type *t)
{
	struct vec annots = {};
	int err;

	err = annots_of(l, die, -1, &annots);
	if (!err)
		err = annots_flush(l, &annots, &t->annot_first, &t->nr_annots);
	free(annots.data);
	if (err)
		return err;
	return type_add(l, die, t) ? 0 : -ENOMEM;
}

/*
 * Which register does a parameter's location say it arrives in? Returns the
 * DW_OP_regN atom, or -1 if none is found. DW_OP_regN counts only in the
 * first location; DW_OP_entry_value(DW_OP_regN) in any; a trailing
 * DW_OP_stack_value is ignored; the walk stops at the expected register.
 */
static int param_reg(struct dwarf_loader *dl, Dwarf_Attribute *attr, int expected)
{
	Dwarf_Addr base, start, end;
	Dwarf_Op *expr, *eops;
	size_t len, elen;
	ptrdiff_t off = 0;
	int loc = -1, ret = -1;

	pthread_mutex_lock(&dl->loc_lock);
	while ((off = dwarf_getlocations(attr, off, &base, &start, &end, &expr, &len)) > 0) {
		Dwarf_Attribute eattr;

		loc++;
		if (len > 1 && expr[len - 1].atom == DW_OP_stack_value)
			len--;
		if (len != 1)
			continue;
		if (expr->atom >= DW_OP_reg0 && expr->atom <= DW_OP_reg31) {
			if (loc != 0)
				continue;
			ret = expr->atom;
		} else if (expr->atom == DW_OP_entry_value || expr->atom == DW_OP_GNU_entry_value) {
			if (dwarf_getlocation_attr(attr, expr, &eattr) ||
			    dwarf_getlocation(&eattr, &eops, &elen) || elen != 1)
				continue;
			ret = eops->atom;
		} else {
			continue;
		}
		if (ret == expected)
			break;
	}
	pthread_mutex_unlock(&dl->loc_lock);
	return ret;
}

static void param_analyze(struct cu_loader *l, Dwarf_Die *die, int idx, struct cu_param *p)
{
	Dwarf_Attribute attr;
	int expected, actual;

	if (idx >= l->dl->nr_param_regs || !dwarf_attr(die, DW_AT_location, &attr))
		return;
	expected = l->dl->param_regs[idx];
	actual = param_reg(l->dl, &attr, expected);
	if (actual >= 0 && actual != expected)
		p->unexpected_reg = true;
}

/* a subprogram being read: its own parameters and annotations */
struct fn_scope {
	struct vec params, annots;
};

static int die_process_body(struct cu_loader *l, Dwarf_Die *die, struct fn_scope *fs);

static int die_process_function(struct cu_loader *l, Dwarf_Die *die)
{
	struct cu *cu = l->cu;
	struct fn_scope fs = {};
	struct cu_func fn = {};
	int err;

	fn.name = attr_name(die);
	fn.ret_type = rel_ref(l, die, DW_AT_type);
	fn.declaration = attr_flag(die, DW_AT_declaration);
	fn.die_off = dwarf_dieoffset(die);
	err = die_process_body(l, die, &fs);
	fn.nr_params = fs.params.nr;
	if (!err)
		err = vec_flush(&fs.params, &cu->params, &l->cap_params, &l->nr_params,
				sizeof(struct cu_param), &fn.first_param);
	if (!err)
		err = annots_flush(l, &fs.annots, &fn.annot_first, &fn.nr_annots);
	free(fs.params.data);
	free(fs.annots.data);
	if (err)
		return err;
	if (d2b_grow(&cu->funcs, &l->cap_funcs, cu->nr_funcs + 1, sizeof(*cu->funcs)))
		return -ENOMEM;
	cu->funcs[cu->nr_funcs++] = fn;
	return 0;
}

static int param_add(struct cu_loader *l, Dwarf_Die *die, struct fn_scope *fs)
{
	struct cu_param p = {};
	int idx = (int)fs->params.nr;
	int err;

	if (dwarf_tag(die) == DW_TAG_unspecified_parameters) {
		p.vararg = true;
	} else {
		p.name = attr_name(die);
		p.type = rel_ref(l, die, DW_AT_type);
		param_analyze(l, die, idx, &p);
		err = annots_of(l, die, idx, &fs->annots);
		if (err)
			return err;
	}
	return vec_push(&fs->params, &p, sizeof(p));
}

/*
 * Children of a subprogram, lexical block or inlined subroutine. @fs is the
 * function whose parameters and annotations are collected (only for the
 * subprogram's own children), NULL inside nested scopes.
 */
static int die_process_body(struct cu_loader *l, Dwarf_Die *die, struct fn_scope *fs)
{
	Dwarf_Die child;
	int err = 0;

	if (dwarf_child(die, &child))
		return 0;
	if (++l->depth > MAX_DIE_DEPTH) {
		l->err_die = dwarf_dieoffset(die);
		return -ELOOP;
	}
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_formal_parameter:
		case DW_TAG_unspecified_parameters:
			if (fs)
				err = param_add(l, &child, fs);
			break;
		case DW_TAG_LLVM_annotation:
			if (fs)
				err = annot_add(l, &child, -1, &fs->annots);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_inlined_subroutine:
			err = die_process_body(l, &child, NULL);
			break;
		case DW_TAG_variable:
		case DW_TAG_label:
		case DW_TAG_call_site:
		case DW_TAG_call_site_parameter:
		case DW_TAG_GNU_call_site:
		case DW_TAG_GNU_call_site_parameter:
		case DW_TAG_template_type_parameter:
		case DW_TAG_template_value_parameter:
		case DW_TAG_dwarf_procedure:
			break;
		default:
			err = die_process(l, &child);
		}
	} while (!err && dwarf_siblingof(&child, &child) == 0);
	l->depth--;
	return err;
}

static int var_location(Dwarf_Die *die, uint64_t *addr)
{
	Dwarf_Attribute attr, res;
	Dwarf_Op *ops;
	size_t n;
	Dwarf_Addr a;

	/* exprloc only: cached per unit by libdw, so no shared state */
	if (!dwarf_attr(die, DW_AT_location, &attr) || dwarf_getlocation(&attr, &ops, &n) || !n)
		return 0;
	if (ops[0].atom == DW_OP_addr) {
		*addr = ops[0].number;
		return 1;
	}
	if (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) {
		if (dwarf_getlocation_attr(&attr, &ops[0], &res) || dwarf_formaddr(&res, &a))
			return 0;
		*addr = a;
		return 1;
	}
	return 0;
}

static int die_process_variable(struct cu_loader *l, Dwarf_Die *die)
{
	struct cu *cu = l->cu;
	struct cu_var v = {};
	Dwarf_Attribute attr;
	Dwarf_Die spec, *adie = die;
	struct vec annots = {};
	bool has_spec = dwarf_attr(die, DW_AT_specification, &attr) &&
			dwarf_formref_die(&attr, &spec);
	int err = 0;

	v.die_off = dwarf_dieoffset(die);
	v.declaration = attr_flag(die, DW_AT_declaration) && !has_spec;
	v.artificial = attr_flag(die, DW_AT_artificial);
	v.has_addr = var_location(die, &v.addr) == 1;
	v.name = attr_name(die);
	v.type = rel_ref(l, die, DW_AT_type);
	if (has_spec) {
		v.external = attr_flag(&spec, DW_AT_external);
		adie = &spec;
	} else {
		v.external = attr_flag(die, DW_AT_external);
	}
	err = annots_of(l, adie, -1, &annots);
	if (!err)
		err = annots_flush(l, &annots, &v.annot_first, &v.nr_annots);
	free(annots.data);
	if (err)
		return err;
	if (d2b_grow(&cu->vars, &l->cap_vars, cu->nr_vars + 1, sizeof(*cu->vars)))
		return -ENOMEM;
	cu->vars[cu->nr_vars++] = v;
	return 0;
}

/* one DIE anywhere but directly under a subprogram's own parameter list */
static int die_process(struct cu_loader *l, Dwarf_Die *die)
{
	struct cu_type t = {};
	int tag = dwarf_tag(die);

	t.tag = (uint16_t)tag;
	switch (tag) {
	case DW_TAG_base_type:
		t.name = attr_name(die);
		t.size = attr_udata(die, DW_AT_byte_size, 0);
		t.encoding = (uint8_t)attr_udata(die, DW_AT_encoding, 0);
		return type_add(l, die, &t) ? 0 : -ENOMEM;
	case DW_TAG_pointer_type:
		t.type = rel_ref(l, die, DW_AT_type);
		return die_process_pointer(l, die, &t);
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
	case DW_TAG_string_type:
		t.type = rel_ref(l, die, DW_AT_type);
		return type_add(l, die, &t) ? 0 : -ENOMEM;
	case DW_TAG_typedef:
		t.name = attr_name(die);
		t.type = rel_ref(l, die, DW_AT_type);
		return die_process_typedef(l, die, &t);
	case DW_TAG_array_type:
		t.type = rel_ref(l, die, DW_AT_type);
		t.size = array_nelems(die);
		l->cu->has_arrays = true;
		return type_add(l, die, &t) ? 0 : -ENOMEM;
	case DW_TAG_subroutine_type:
		t.type = rel_ref(l, die, DW_AT_type);
		if (die_process_params(l, die, &t.first, &t.nr))
			return -ENOMEM;
		return type_add(l, die, &t) ? 0 : -ENOMEM;
	case DW_TAG_enumeration_type:
		t.name = attr_name(die);
		if (attr_flag(die, DW_AT_declaration))
			t.flags |= CU_TYPE_DECLARATION;
		return die_process_enum(l, die, &t);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type:
		t.name = attr_name(die);
		if (attr_flag(die, DW_AT_declaration))
			t.flags |= CU_TYPE_DECLARATION;
		return die_process_class(l, die, &t);
	case DW_TAG_subprogram:
		return die_process_function(l, die);
	default:
		/* unspecified types, variables in scopes, labels...: not in the table */
		return 0;
	}
}

static int cu_walk(struct cu_loader *l, Dwarf_Die *cu_die)
{
	Dwarf_Die child;
	int err = 0;

	if (dwarf_child(cu_die, &child))
		return 0;
	do {
		if (dwarf_tag(&child) == DW_TAG_variable)
			err = die_process_variable(l, &child);
		else
			err = die_process(l, &child);
		if (err && !l->err_die)
			l->err_die = dwarf_dieoffset(&child);
	} while (!err && dwarf_siblingof(&child, &child) == 0);
	return err;
}

/* ---------------------------------------------------------------------- */
/* resolution                                                             */

static uint64_t type_size(const struct cu *cu, uint32_t idx, uint8_t addr_size, int depth)
{
	const struct cu_type *t;

	if (!idx || idx >= cu->nr_types || depth > MAX_DIE_DEPTH)
		return 0;
	t = &cu->types[idx];
	switch (t->tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_subroutine_type:
		return addr_size;
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
		return t->size;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type:
		return t->size == 1 && t->nr == 0 ? 0 : t->size;
	case DW_TAG_array_type:
		return type_size(cu, t->type, addr_size, depth + 1) * t->size;
	default:
		return type_size(cu, t->type, addr_size, depth + 1);
	}
}

static bool type_is_struct(const struct cu *cu, uint32_t idx)
{
	int depth = 0;

	while (idx && idx < cu->nr_types && depth++ < MAX_DIE_DEPTH) {
		const struct cu_type *t = &cu->types[idx];

		if (t->tag == DW_TAG_structure_type || t->tag == DW_TAG_class_type)
			return true;
		if (t->tag != DW_TAG_const_type && t->tag != DW_TAG_typedef)
			return false;
		idx = t->type;
	}
	return false;
}

static void cu_resolve(struct cu_loader *l)
{
	struct cu *cu = l->cu;
	uint32_t i;

	for (i = 1; i < cu->nr_types; i++)
		cu->types[i].type = map_find(l, cu->types[i].type);
	for (i = 0; i < l->nr_members; i++)
		cu->members[i].type = map_find(l, cu->members[i].type);
	for (i = 0; i < l->nr_params; i++)
		cu->params[i].type = map_find(l, cu->params[i].type);
	for (i = 0; i < cu->nr_vars; i++)
		cu->vars[i].type = map_find(l, cu->vars[i].type);
	for (i = 0; i < cu->nr_funcs; i++)
		cu->funcs[i].ret_type = map_find(l, cu->funcs[i].ret_type);

	for (i = 0; i < l->nr_members; i++) {
		struct cu_member *m = &cu->members[i];
		int64_t bits;

		if (!m->has_dw4_bit_offset)
			continue;
		/* DWARF <= 4: bit_offset counts from the MSB of the member's storage */
		bits = (int64_t)type_size(cu, m->type, l->dl->addr_size, 0) * 8;
		m->bit_offset = (uint64_t)((int64_t)m->bit_offset + bits - m->dw4_bit_offset -
					   (int64_t)m->bitfield_size);
	}
	for (i = 0; i < cu->nr_vars; i++)
		cu->vars[i].size = type_size(cu, cu->vars[i].type, l->dl->addr_size, 0);
	for (i = 0; i < cu->nr_funcs; i++) {
		struct cu_func *fn = &cu->funcs[i];
		bool unexpected = false, has_struct = false;
		uint32_t p;

		for (p = fn->first_param; p < fn->first_param + fn->nr_params; p++) {
			unexpected |= cu->params[p].unexpected_reg;
			has_struct |= type_is_struct(cu, cu->params[p].type);
		}
		fn->unexpected_reg = unexpected && !has_struct;
	}
	for (i = 1; i < cu->nr_types; i++) {
		const struct cu_type *t = &cu->types[i];

		if (t->tag == DW_TAG_base_type && t->name && !strcmp(t->name, "int")) {
			cu->int_type = i;
			break;
		}
	}
}

int dwarf_loader__load_cu(struct dwarf_loader *dl, unsigned int id, struct cu **cup)
{
	struct cu_loader l = { .dl = dl };
	struct cu *cu;
	int err;

	cu = calloc(1, sizeof(*cu));
	if (!cu)
		return -ENOMEM;
	l.cu = cu;
	cu->id = id;
	cu->off = dwarf_dieoffset(&dl->cu_dies[id]);
	l.cu_start = dwarf_cuoffset(&dl->cu_dies[id]) ? cu->off - dwarf_cuoffset(&dl->cu_dies[id]) : 0;
	cu->excluded = dl->cu_excluded[id];
	/* index 0: void */
	err = -ENOMEM;
	if (d2b_grow(&cu->types, &l.cap_types, 1, sizeof(*cu->types)))
		goto out_err;
	memset(&cu->types[0], 0, sizeof(cu->types[0]));
	cu->nr_types = 1;
	if (!cu->excluded) {
		err = cu_walk(&l, &dl->cu_dies[id]);
		if (err)
			goto out_err;
		cu_resolve(&l);
	}
	free(l.map_keys);
	free(l.map_vals);
	*cup = cu;
	return 0;

out_err:
	if (err == -ELOOP)
		pr_warn("%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": nesting deeper than %d\n", dl->path,
			cu->off, l.err_die, MAX_DIE_DEPTH);
	else
		pr_warn("%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": %s\n", dl->path, cu->off,
			l.err_die, strerror(-err));
	free(l.map_keys);
	free(l.map_vals);
	cu__free(cu);
	return err;
}

void cu__free(struct cu *cu)
{
	if (!cu)
		return;
	free(cu->types);
	free(cu->members);
	free(cu->enumerators);
	free(cu->params);
	free(cu->annots);
	free(cu->funcs);
	free(cu->vars);
	free(cu);
}
