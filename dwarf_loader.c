// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader - DWARF compilation units to the encoder's model (struct cu).
 *
 * Design
 * ------
 * dwarf_loader__new() runs once, on the main thread: it maps the ELF with
 * libelf, finds the debug sections and indexes the units of .debug_info
 * (dwarf_reader.c); unit i has id i. After that the loader is read-only.
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
 * Memory: the encoder's writer thread calls dwarf_loader__release_cu() for
 * each unit it is done with, in unit order, and the loader's releaser
 * thread then drops the pages of the debug sections that unit read from
 * the process's resident set (struct mapped_section, struct releaser).
 *
 * Table order follows pahole's loader so that the encoder can emit the same
 * pre-dedup type stream: a type entry is appended when its DIE is done, after
 * the types nested in it; a pointer's btf_type_tag entries come before it.
 * References are stored as CU-relative DIE offsets while walking and turned
 * into table indexes at the end (cu_resolve); anything that is not a table
 * entry (unspecified types, missing DIEs) resolves to void. Values are read
 * with libdw's dwarf_form*() semantics, which pahole's output depends on.
 *
 * Files whose units refer to each other (DW_FORM_ref_addr: LTO) or that
 * carry the kernel's LTO note are read as pahole reads them: all units, in
 * order, into one merged CU (id 0, loaded by one worker), keyed by absolute
 * .debug_info offsets. Type units (.debug_types, DWARF 5 DW_UT_type) are
 * indexed by signature at open; a unit that names a signature gets the type
 * unit's types walked into its own CU after its DIEs (type_units_walk).
 */
#include <dwarf.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf_features.h"
#include "d2b_util.h"
#include "dwarf_loader.h"
#include "dwarf_reader.h"
#include "elf_reloc.h"
#include "elf_symtab.h"
#include "msort.h"
#include "str_canon.h"
#include "tuning.h"
#include "unit_ring.h"

#ifndef DW_TAG_GNU_annotation /* gcc 15+'s btf_type_tag / btf_decl_tag */
#define DW_TAG_GNU_annotation 0x6001
#endif
#ifndef DW_AT_GNU_annotation
#define DW_AT_GNU_annotation 0x2139
#endif
#ifndef DW_TAG_LLVM_annotation
#define DW_TAG_LLVM_annotation 0x6000
#endif

#define MAX_DIE_DEPTH 512
#define MAX_PARAM_OPS 8

/*
 * A debug section read straight from libelf's read-only private mapping of
 * the file (not a decompressed or relocated copy), whose pages can thus be
 * dropped from the resident set with MADV_DONTNEED: they come back from the
 * file if read again. Pages before .released are dropped; those before
 * .requested will be (struct releaser).
 */
struct mapped_section {
	const struct dr_section *sec;
	bool mapped;
	uint64_t requested; /* the caller of dwarf_loader__release_cu's */
	uint64_t released; /* the releaser thread's */
};

enum { REL_INFO, REL_ABBREV, REL_LOC, REL_LOCLISTS, NR_REL };

/*
 * The pages are dropped on a thread of its own: an madvise() costs its
 * caller the unmapping and a TLB flush on every CPU the process runs on,
 * up to a quarter of the encoder's writer's CPU time if the writer made
 * the calls, and the writer is one of the encode phase's two serial stages
 * (Documentation/performance.md, "Tuning knobs"). dwarf_loader__release_cu
 * only moves the targets and wakes the thread; the pages go a little later.
 */
struct releaser {
	pthread_t thread;
	bool running; /* set before the thread runs, cleared after the join */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	uint64_t to[NR_REL]; /* lock: drop each section's pages up to there */
	bool pending; /* lock: .to moved since the thread last took it */
	bool stop; /* lock */
};

struct dwarf_loader {
	const char *path;
	int fd;
	Elf *elf;
	const struct d2b_conf *conf;
	bool relocatable; /* ET_REL */
	bool strs_canonical; /* ET_REL: its references into .debug_str made canonical */
	struct dr_sections secs;
	/* ET_REL: relocated private copies of debug sections, to free */
	uint8_t *reloc_copies[8];
	unsigned int nr_reloc_copies;
	size_t sec_index[8]; /* ELF section index of each dr_sections member */
	/* sections released as the units that read them are done
	 * (dwarf_loader__release_cu, then the releaser thread) */
	struct mapped_section rel[NR_REL];
	struct releaser releaser;
	/* .debug_info is the file's bytes at info_file_off (the index reads
	 * unit headers with pread) */
	bool info_in_file;
	uint64_t info_file_off;
	struct dr_unit *units; /* read-only after __new */
	bool *cu_excluded;
	/* [id]: why the load of unit id failed, written by the worker that
	 * loaded it, read after the workers are joined (dwarf_loader__report) */
	char **load_errs;
	unsigned int nr_cus;
	/* cross-unit references: all units are read as one merged CU, id 0 */
	bool merged;
	/* .debug_types (DWARF 4 type units): its own section set and units */
	struct dr_sections types_secs;
	struct dr_unit *tunits;
	unsigned int nr_tunits;
	/* every type unit (.debug_info DW_UT_type and .debug_types), by signature */
	struct type_unit *sigs;
	unsigned int nr_sigs;
	/* the machine: its parameter registers and relocations */
	struct elf_machine machine;
	/* loaders between units, kept for their buffers (loader_take) */
	pthread_mutex_t idle_lock;
	struct cu_loader *idle; /* under idle_lock */
	/* the loaded units' blocks (cu_pack), or NULL: malloc's (locked inside) */
	struct unit_ring *ring;
};

static void loaders_free(struct dwarf_loader *dl);

struct type_unit {
	uint64_t signature;
	const struct dr_unit *unit;
	const struct dr_sections *secs;
	uint32_t key_bits; /* TU_KEY_INFO or TU_KEY_TYPES */
};

/*
 * Map keys (DIE offsets, see struct cu_loader) of type unit DIEs: the
 * offset in the unit's section with one of these bits. Units then stay
 * below 1 GiB, which dwarf_loader__new() checks when there are type units.
 */
#define TU_KEY_INFO 0x80000000u
#define TU_KEY_TYPES 0xc0000000u
#define TU_KEY_LIMIT 0x40000000u

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

/* a truncated file: headers or section contents past its end */
static int loader_check_size(struct dwarf_loader *dl, GElf_Ehdr *eh)
{
	Elf_Scn *scn = NULL;
	struct stat st;
	size_t nr, shstrndx;
	bool shstrndx_ok;

	if (fstat(dl->fd, &st) < 0)
		return -errno;
	if (elf_getshdrnum(dl->elf, &nr) ||
	    eh->e_shoff + (uint64_t)nr * eh->e_shentsize > (uint64_t)st.st_size ||
	    (!nr && eh->e_shoff)) {
		pr_warn("%s: truncated ELF file: section headers past its end\n", dl->path);
		return -EINVAL;
	}
	shstrndx_ok = !elf_getshdrstrndx(dl->elf, &shstrndx);
	while ((scn = elf_nextscn(dl->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > (uint64_t)st.st_size) {
			const char *name = shstrndx_ok ? elf_strptr(dl->elf, shstrndx, sh.sh_name) : NULL;

			pr_warn("%s: %s: extends past the end of the file (truncated?)\n", dl->path,
				name ? name : "section");
			return -EINVAL;
		}
	}
	return 0;
}

static int loader_map_sections(struct dwarf_loader *dl, GElf_Ehdr *eh)
{
	static const struct {
		const char *name;
		size_t off;
	} wanted[] = {
		{ ".debug_info", offsetof(struct dr_sections, info) },
		{ ".debug_abbrev", offsetof(struct dr_sections, abbrev) },
		{ ".debug_str", offsetof(struct dr_sections, str) },
		{ ".debug_line_str", offsetof(struct dr_sections, line_str) },
		{ ".debug_str_offsets", offsetof(struct dr_sections, str_offsets) },
		{ ".debug_addr", offsetof(struct dr_sections, addr) },
		{ ".debug_loc", offsetof(struct dr_sections, loc) },
		{ ".debug_loclists", offsetof(struct dr_sections, loclists) },
	};
	Elf_Scn *scn = NULL;
	size_t shstrndx, i;

	if (elf_getshdrstrndx(dl->elf, &shstrndx)) {
		pr_warn("%s: cannot find the section name table: %s\n", dl->path, elf_errmsg(-1));
		return -EINVAL;
	}
	dl->secs.swap = (eh->e_ident[EI_DATA] == ELFDATA2MSB) !=
			(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	while ((scn = elf_nextscn(dl->elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(dl->elf, shstrndx, sh.sh_name))) {
			pr_warn("%s: section %zu: cannot read its header or name: %s\n", dl->path,
				elf_ndxscn(scn), elf_errmsg(-1));
			return -EINVAL;
		}
		if (!strcmp(name, ".debug_types") && sh.sh_size && sh.sh_type != SHT_NOBITS) {
			/* a relocatable file has one per COMDAT group, to relocate */
			if (eh->e_type == ET_REL || dl->types_secs.info.data) {
				pr_warn("%s: .debug_types: type units in a relocatable file "
					"are not supported\n",
					dl->path);
				return -ENOTSUP;
			}
			if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
				pr_warn("%s: %s: cannot decompress: %s\n", dl->path, name,
					elf_errmsg(-1));
				return -EINVAL;
			}
			data = elf_getdata(scn, NULL);
			if (!data) {
				pr_warn("%s: %s: cannot read: %s\n", dl->path, name,
					elf_errmsg(-1));
				return -EINVAL;
			}
			dl->types_secs.info.data = data->d_buf;
			dl->types_secs.info.size = data->d_size;
			continue;
		}
		for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
			struct dr_section *s = (void *)((char *)&dl->secs + wanted[i].off);

			if (strcmp(name, wanted[i].name) || sh.sh_type == SHT_NOBITS)
				continue;
			if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
				pr_warn("%s: %s: cannot decompress: %s\n", dl->path, name,
					elf_errmsg(-1));
				return -EINVAL;
			}
			data = elf_getdata(scn, NULL);
			if (!data) {
				pr_warn("%s: %s: cannot read: %s\n", dl->path, name, elf_errmsg(-1));
				return -EINVAL;
			}
			s->data = data->d_buf;
			s->size = data->d_size;
			dl->sec_index[i] = elf_ndxscn(scn);
		}
	}
	dr_section__trim_strings(&dl->secs.str);
	dr_section__trim_strings(&dl->secs.line_str);
	if (dl->types_secs.info.data) {
		struct dr_section types = dl->types_secs.info;

		dl->types_secs = dl->secs;
		dl->types_secs.info = types;
		dl->types_secs.types = true;
	}
	if (!dl->secs.info.data || !dl->secs.info.size || !dl->secs.abbrev.data) {
		/* pahole 1.32 encodes nothing and succeeds (encode_pipeline.c) */
		if (dl->conf->pahole < 132)
			pr_warn("%s: no DWARF debug info (.debug_info)\n", dl->path);
		return -ENODATA;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* relocatable files (kernel modules)                                     */

/*
 * Is [@p, @p + @size) inside one read-only mapping of a file? libelf maps
 * the file when it can; when mmap fails it reads sections into memory, and
 * relocated or decompressed sections are copies: MADV_DONTNEED must reach
 * none of those.
 */
static bool file_mapped(const uint8_t *p, size_t size)
{
	FILE *maps = fopen("/proc/self/maps", "re");
	unsigned long lo, hi, ino;
	bool found = false, ret = false;
	char line[512], perms[8];

	if (!maps)
		return false;
	/* start-end perms offset major:minor inode [path] */
	while (!found && fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s %*x %*x:%*x %lu", &lo, &hi, perms, &ino) != 4 ||
		    (uintptr_t)p < lo || (uintptr_t)p >= hi)
			continue;
		found = true;
		ret = ino && perms[1] == '-' && (uintptr_t)p + size <= hi;
	}
	fclose(maps);
	return ret;
}

/*
 * Drop the whole pages of [@p, @p + @size) from the resident set if they
 * are a file's read-only mapping (they come back from the file if read
 * again): the relocations, and the sections copied to be relocated, once
 * applied.
 */
static void file_pages_drop(const void *p, size_t size)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + size) & ~(page - 1);

	if (end > start && file_mapped(p, size))
		madvise((void *)start, end - start, MADV_DONTNEED);
}

/*
 * A relocatable file's DWARF points at its sections through relocations:
 * apply them, with libdwfl's section layout, to private copies of the debug
 * sections, as libdwfl does for pahole. Those from .debug_info and
 * .debug_str_offsets into .debug_str are made to point at the first string
 * with the same contents (str_canon.h), so that names compare by address
 * as in a linked file.
 */
static int loader_relocate(struct dwarf_loader *dl)
{
	struct dr_section *secs[] = { &dl->secs.info, &dl->secs.abbrev, &dl->secs.str,
				      &dl->secs.line_str, &dl->secs.str_offsets, &dl->secs.addr,
				      &dl->secs.loc, &dl->secs.loclists };
	bool copied[8] = { false };
	struct str_canon *strs = NULL;
	uint64_t *layout;
	Elf_Scn *scn = NULL;
	size_t nr_secs;
	int err = 0;

	if (elf_getshdrnum(dl->elf, &nr_secs))
		return -EINVAL;
	layout = calloc(nr_secs ? nr_secs : 1, sizeof(*layout));
	if (dl->secs.str.data)
		strs = str_canon__new((const char *)dl->secs.str.data, dl->secs.str.size);
	if (!layout || (dl->secs.str.data && !strs)) {
		free(layout);
		str_canon__free(strs);
		return -ENOMEM;
	}
	err = elf_rel_layout(dl->elf, layout, nr_secs);
	while (!err && (scn = elf_nextscn(dl->elf, scn))) {
		GElf_Shdr sh;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL))
			continue;
		for (i = 0; i < 8; i++) {
			struct dr_section *t = secs[i];
			uint8_t *copy;

			if (!t->data || dl->sec_index[i] != sh.sh_info)
				continue;
			/* one copy per section, however many relocation sections name it */
			if (!copied[i]) {
				if (!(copy = malloc(t->size ? t->size : 1))) {
					err = -ENOMEM;
					break;
				}
				memcpy(copy, t->data, t->size);
				file_pages_drop(t->data, t->size);
				t->data = copy;
				dl->reloc_copies[dl->nr_reloc_copies++] = copy;
				copied[i] = true;
			}
			err = elf_reloc__apply(
				dl->path, dl->elf, &dl->machine, scn, &sh, (uint8_t *)t->data,
				t->size, layout, nr_secs, dl->secs.swap,
				t == &dl->secs.info || t == &dl->secs.str_offsets ? strs : NULL,
				dl->sec_index[2]);
			if (!err) {
				Elf_Data *rdata = elf_getdata(scn, NULL);

				file_pages_drop(rdata->d_buf, rdata->d_size);
			}
			break;
		}
	}
	dl->strs_canonical = strs != NULL;
	str_canon__free(strs);
	free(layout);
	return err;
}

static int type_unit_cmp(const void *a, const void *b)
{
	const struct type_unit *x = a, *y = b;

	return x->signature < y->signature ? -1 : x->signature > y->signature;
}

static void section_map_init(struct mapped_section *ms, const struct dr_section *sec)
{
	ms->sec = sec;
	ms->mapped = sec->data && sec->size && file_mapped(sec->data, sec->size);
	ms->requested = ms->released = 0;
}

/*
 * The caller is done with every byte of the section before @to: true if
 * that is a step past .requested, or the section's end, and .requested
 * moved there (the releaser drops the pages up to it).
 */
static bool section_request(struct mapped_section *ms, uint64_t to)
{
	if (!ms->mapped || to <= ms->requested)
		return false;
	if (to > ms->sec->size)
		to = ms->sec->size;
	if (to - ms->requested < SECTION_RELEASE_STEP && to < ms->sec->size)
		return false;
	ms->requested = to;
	return true;
}

/* drop the pages from the one holding .released to the one holding @to (excluded) */
static void section_release(struct mapped_section *ms, uint64_t to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start, end;

	if (to <= ms->released)
		return;
	start = ((uintptr_t)ms->sec->data + ms->released) & ~(page - 1);
	end = ((uintptr_t)ms->sec->data + to) & ~(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
	ms->released = to;
}

static void *releaser_run(void *arg)
{
	struct dwarf_loader *dl = arg;
	struct releaser *r = &dl->releaser;
	uint64_t to[NR_REL];
	unsigned int i;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->pending && !r->stop)
			pthread_cond_wait(&r->wake, &r->lock);
		if (r->stop)
			break; /* elf_end's munmap drops what is left */
		memcpy(to, r->to, sizeof(to));
		r->pending = false;
		pthread_mutex_unlock(&r->lock);
		for (i = 0; i < NR_REL; i++)
			section_release(&dl->rel[i], to[i]);
		pthread_mutex_lock(&r->lock);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/*
 * Start the releaser if a section can be released and is a step long (a
 * module's few pages stay until the loader is freed, its thread not
 * started); or -errno.
 */
static int releaser_start(struct dwarf_loader *dl)
{
	struct releaser *r = &dl->releaser;
	unsigned int i;
	int err;

	for (i = 0; i < NR_REL; i++)
		if (dl->rel[i].mapped && dl->rel[i].sec->size >= SECTION_RELEASE_STEP)
			break;
	if (i == NR_REL)
		return 0;
	if (pthread_mutex_init(&r->lock, NULL))
		return -ENOMEM;
	if (pthread_cond_init(&r->wake, NULL)) {
		pthread_mutex_destroy(&r->lock);
		return -ENOMEM;
	}
	err = pthread_create(&r->thread, NULL, releaser_run, dl);
	if (err) {
		pthread_cond_destroy(&r->wake);
		pthread_mutex_destroy(&r->lock);
		return -err;
	}
	r->running = true;
	return 0;
}

/* the releaser stopped and joined (called just before elf_end unmaps the file) */
static void releaser_stop(struct dwarf_loader *dl)
{
	struct releaser *r = &dl->releaser;

	if (!r->running)
		return;
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	r->running = false;
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
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
	return msort(dl->sigs, dl->nr_sigs, sizeof(*dl->sigs), type_unit_cmp);
}

/*
 * Every unit header of .debug_info (read with pread, see unit_read), then
 * the type units. A compile unit's unit DIE (its tag and language, for
 * --lang_exclude) is read by the worker that loads it, which reads its
 * abbreviations anyway (unit_walk): here on the main thread, before the
 * first unit loads, it would be a third of the open phase.
 */
static int loader_index_units(struct dwarf_loader *dl)
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
	*err = loader_check_size(dl, &eh);
	if (!*err)
		*err = loader_map_sections(dl, &eh);
	dl->relocatable = eh.e_type == ET_REL;
	if (!*err && eh.e_type == ET_REL)
		*err = loader_relocate(dl);
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
	section_map_init(&dl->rel[REL_INFO], &dl->secs.info);
	if (dl->rel[REL_INFO].mapped) {
		size_t size;
		uintptr_t raw = (uintptr_t)elf_rawfile(dl->elf, &size);
		uintptr_t data = (uintptr_t)dl->secs.info.data;

		dl->info_in_file = raw && data >= raw && dl->secs.info.size <= size &&
				   data - raw <= size - dl->secs.info.size;
		dl->info_file_off = dl->info_in_file ? data - raw : 0;
	}
	*err = loader_index_units(dl);
	if (*err)
		goto out_free;
	section_map_init(&dl->rel[REL_ABBREV], &dl->secs.abbrev);
	section_map_init(&dl->rel[REL_LOC], &dl->secs.loc);
	section_map_init(&dl->rel[REL_LOCLISTS], &dl->secs.loclists);
	*err = releaser_start(dl);
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
	releaser_stop(dl);
	if (dl->elf)
		elf_end(dl->elf);
	if (dl->fd >= 0)
		close(dl->fd);
	while (dl->nr_reloc_copies)
		free(dl->reloc_copies[--dl->nr_reloc_copies]);
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

/*
 * Units are emitted in order and workers only read units after the last
 * emitted one, so once unit @cu is emitted, .debug_info up to its end is
 * done with, and so are .debug_abbrev up to the next unit's table and the
 * location lists up to the furthest one @cu read: units lay these out in
 * their own order, and were one not to, a page dropped too early is only
 * read again from the file.
 */
void dwarf_loader__release_cu(struct dwarf_loader *dl, const struct cu *cu)
{
	struct releaser *r = &dl->releaser;
	unsigned int id = cu->id, i;
	bool moved;

	if (id >= dl->nr_cus || !r->running)
		return;
	if (dl->merged) {
		moved = section_request(&dl->rel[REL_INFO], dl->secs.info.size);
		moved |= section_request(&dl->rel[REL_ABBREV], dl->secs.abbrev.size);
	} else {
		moved = section_request(&dl->rel[REL_INFO], dl->units[id].end);
		moved |= section_request(&dl->rel[REL_ABBREV],
					 id + 1 < dl->nr_cus ? dl->units[id + 1].abbrev_off
							     : dl->secs.abbrev.size);
	}
	moved |= section_request(&dl->rel[REL_LOC], cu->loc_end[0]);
	moved |= section_request(&dl->rel[REL_LOCLISTS], cu->loc_end[1]);
	if (!moved)
		return;
	pthread_mutex_lock(&r->lock);
	for (i = 0; i < NR_REL; i++)
		r->to[i] = dl->rel[i].requested;
	r->pending = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
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
	/* a linker merges equal strings, loader_relocate makes their references one */
	bool merged = !dl->relocatable || dl->strs_canonical;

	*data = merged ? (const char *)dl->secs.str.data : NULL;
	*size = merged ? dl->secs.str.size : 0;
}

unsigned int dwarf_loader__nr_cus(const struct dwarf_loader *dl)
{
	return dl->merged && dl->nr_cus ? 1 : dl->nr_cus;
}

/* ---------------------------------------------------------------------- */
/* per-unit walk                                                          */

/*
 * A scope's members, parameters or annotations are collected here while its
 * children (which may hold nested types with items of their own) are walked,
 * then appended to the unit's array in one piece, so every type's and
 * function's items are contiguous. Vectors come from the loader's stack
 * (vec_take) and keep their storage for the next scope.
 */
struct vec {
	void *data;
	uint32_t nr, cap; /* items, bytes */
};

struct map_slot {
	uint32_t key, val; /* key 0: free */
};

struct cu_loader {
	/* per unit: zeroed by loader_take() */
	struct dwarf_loader *dl;
	struct cu *cu; /* &work */
	struct dr_cu *dc; /* the unit being walked */
	struct dr_cu *dcs; /* one per unit when merged, else just one */
	uint8_t *dc_state; /* of dcs[]: 0 unset, 1 ready, 2 bad abbrevs, 3 bad unit DIE */
	uint64_t cu_start; /* .debug_info offset of the unit; 0 when merged */
	/* the first unit's DW_AT_producer names clang (pahole 1.32 reads DW_CC_nocall) */
	bool producer_clang, producer_read;
	uint32_t key_bits; /* TU_KEY_* while walking a type unit, else 0 */
	uint8_t addr_size;
	/* type units this unit refers to, in order of first reference (sigs[]
	 * indexes; tu_queued[i]: sigs[i] is in the queue), walked after it */
	uint32_t *tu_queue, tu_queue_nr, tu_queue_cap, tu_walked;
	uint8_t *tu_queued;
	/* skeleton type DIEs (DW_AT_signature): key -> the type unit type's key */
	uint32_t *aliases, nr_aliases, cap_aliases;
	uint32_t nr_members, nr_enums, nr_params, nr_annots;
	uint64_t err_die; /* DIE the first error is about */
	unsigned int bad_root_tag; /* -EPROTO: the unit's root DIE's tag */
	uint64_t bad_ref_die; /* first DIE with a reference outside its unit */
	uint64_t bad_attr_die; /* -ERANGE: first DIE with a value outside its section */
	uint16_t bad_attr; /* and that value's attribute */
	uint64_t bad_sig; /* first type signature with no type unit */
	bool oom; /* an allocation failed where no error could be returned */
	int depth;
	bool too_deep;
	struct dr_die tmp; /* scratch for attribute integration */

	/*
	 * Kept from unit to unit (see loader_take), so that a worker grows
	 * its buffers once, to its biggest unit, rather than for every unit:
	 * the CU being built, whose arrays cu_pack() copies out at their exact
	 * size; the child DIE of each depth (scope_enter); a stack of vectors
	 * (vec_take).
	 */
	struct cu work;
	uint32_t cap_types, cap_members, cap_enums, cap_params, cap_annots, cap_funcs, cap_vars;
	/* DIE key -> types[] index, open addressing; emptied for the next unit
	 * through map_used, the slots this one filled (a new table for every
	 * unit cost a calloc and a rehash at each doubling) */
	struct map_slot *map;
	uint32_t *map_used; /* map_nr of them, room for map_cap / 2 */
	uint32_t map_cap, map_nr;
	struct dr_die *scope_dies[MAX_DIE_DEPTH + 1];
	struct dr_die *annot_dies; /* two, for walking gcc annotation chains (1.32) */
	struct vec **vecs;
	uint32_t nr_vecs, cap_vecs;
	struct cu_loader *next_idle; /* in dl->idle */
};

/* the map key of the DIE at @off in the unit being walked */
static uint32_t die_key(const struct cu_loader *l, uint64_t off)
{
	return (uint32_t)(off - l->cu_start) | l->key_bits;
}

/*
 * The key of the type a DW_FORM_ref_sig8 @a names: its DIE in the type unit,
 * which is queued to be walked after the unit. 0 (void) if there is no such
 * type unit and @strict is false, as for a skeleton DIE, which then stays
 * a type of its own.
 */
static uint32_t sig_ref(struct cu_loader *l, struct dr_cu *acu, const struct dr_attr *a,
			bool strict)
{
	struct dwarf_loader *dl = l->dl;
	struct type_unit key = {}, *tu;
	uint32_t i;

	if (dr_attr__sig8(acu, a, &key.signature))
		return 0;
	/* no type units: dl->sigs is NULL, which bsearch must not get */
	tu = dl->nr_sigs ? bsearch(&key, dl->sigs, dl->nr_sigs, sizeof(*dl->sigs), type_unit_cmp)
			 : NULL;
	while (tu && tu > dl->sigs && tu[-1].signature == key.signature)
		tu--;
	if (!tu) {
		if (strict && !l->bad_sig)
			l->bad_sig = key.signature;
		return 0;
	}
	i = (uint32_t)(tu - dl->sigs);
	if (!l->tu_queued && !(l->tu_queued = calloc(dl->nr_sigs, 1))) {
		l->oom = true;
		return 0;
	}
	if (!l->tu_queued[i]) {
		if (d2b_grow(&l->tu_queue, &l->tu_queue_cap, (uint64_t)l->tu_queue_nr + 1,
			     sizeof(*l->tu_queue))) {
			l->oom = true;
			return 0;
		}
		l->tu_queue[l->tu_queue_nr++] = i;
		l->tu_queued[i] = 1;
	}
	return (uint32_t)(tu->unit->type_off | tu->key_bits);
}

/*
 * Attribute @at of @die or of the DIEs its DW_AT_abstract_origin or
 * DW_AT_specification lead to. Not finding it is no error, but an origin
 * that is no DIE is a dangling reference, as bad as any other.
 */
static const struct dr_attr *attr_integrate(struct cu_loader *l, const struct dr_die *die,
					    uint16_t at, struct dr_cu **acu)
{
	bool bad_ref = false;
	const struct dr_attr *a = dr_die__attr_integrate(l->dc, die, at, &l->tmp, acu, &bad_ref);

	if (bad_ref && !l->bad_ref_die)
		l->bad_ref_die = die->off;
	return a;
}

/* the key of the DIE @at refers to (through origin/specification), 0 if none */
static uint32_t rel_ref(struct cu_loader *l, const struct dr_die *die, uint16_t at)
{
	struct dr_cu *acu = l->dc;
	const struct dr_attr *a = dr_die__attr(die, at);
	uint64_t off;

	/* (most DIEs have their own: no origin to follow) */
	if (!a && !(a = attr_integrate(l, die, at, &acu)))
		return 0;
	if (a->form == DW_FORM_ref_sig8)
		return sig_ref(l, acu, a, true);
	if (dr_attr__ref(acu, a, &off)) {
		if (!l->bad_ref_die)
			l->bad_ref_die = die->off;
		return 0;
	}
	return die_key(l, off);
}

static uint64_t attr_udata(struct cu_loader *l, const struct dr_die *die, uint16_t at,
			   uint64_t def)
{
	const struct dr_attr *a = dr_die__attr(die, at);
	uint64_t v;

	if (!a || dr_attr__udata(l->dc, a, &v))
		return def;
	return v;
}

static bool attr_flag(const struct dr_die *die, uint16_t at)
{
	const struct dr_attr *a = dr_die__attr(die, at);

	return a && dr_attr__flag(a);
}

/*
 * A present attribute whose value cannot be read: a string or address index
 * past its table, an offset past its section, a form of the wrong class.
 * libdw reads it as absent (an anonymous type, a function without address);
 * it is malformed DWARF, reported with the first such DIE of the unit.
 */
static void attr_bad(struct cu_loader *l, const struct dr_die *die, uint16_t at)
{
	if (!l->bad_attr_die) {
		l->bad_attr_die = die->off;
		l->bad_attr = at;
	}
}

static const char *attr_name(struct cu_loader *l, const struct dr_die *die)
{
	struct dr_cu *acu = l->dc;
	const struct dr_attr *a = dr_die__attr(die, DW_AT_name);
	const char *name;

	/* (most DIEs name themselves: no origin to follow) */
	if (!a && !(a = attr_integrate(l, die, DW_AT_name, &acu)))
		return NULL;
	name = dr_attr__string(acu, a);
	if (!name)
		attr_bad(l, die, DW_AT_name);
	return name;
}

static uint32_t map_hash(uint32_t key, uint32_t cap)
{
	return (key * 2654435761u) & (cap - 1);
}

static int map_grow(struct cu_loader *l)
{
	uint32_t ncap = l->map_cap ? l->map_cap * 2 : 1024, i, h;
	struct map_slot *nm = calloc(ncap, sizeof(*nm));
	uint32_t *nu = malloc(ncap / 2 * sizeof(*nu));

	if (!nm || !nu) {
		free(nm);
		free(nu);
		return -ENOMEM;
	}
	for (i = 0; i < l->map_nr; i++) {
		struct map_slot e = l->map[l->map_used[i]];

		for (h = map_hash(e.key, ncap); nm[h].key; h = (h + 1) & (ncap - 1))
			;
		nm[h] = e;
		nu[i] = h;
	}
	free(l->map);
	free(l->map_used);
	l->map = nm;
	l->map_used = nu;
	l->map_cap = ncap;
	return 0;
}

static int map_add(struct cu_loader *l, uint32_t key, uint32_t val)
{
	uint32_t h;

	if ((l->map_nr + 1) * 2 > l->map_cap && map_grow(l))
		return -ENOMEM;
	for (h = map_hash(key, l->map_cap); l->map[h].key; h = (h + 1) & (l->map_cap - 1))
		if (l->map[h].key == key)
			break;
	if (!l->map[h].key)
		l->map_used[l->map_nr++] = h;
	l->map[h] = (struct map_slot){ key, val };
	return 0;
}

static uint32_t map_find(const struct cu_loader *l, uint32_t key)
{
	uint32_t h;

	if (!key || !l->map_cap)
		return 0;
	for (h = map_hash(key, l->map_cap); l->map[h].key; h = (h + 1) & (l->map_cap - 1))
		if (l->map[h].key == key)
			return l->map[h].val;
	return 0;
}

/* empty the table for the next unit */
static void map_clear(struct cu_loader *l)
{
	uint32_t i;

	for (i = 0; i < l->map_nr; i++)
		l->map[l->map_used[i]].key = 0;
	l->map_nr = 0;
}

static inline int vec_push(struct vec *v, const void *item, size_t sz)
{
	/* (in bytes: the next user of the vector may hold items of another size) */
	if (d2b_grow(&v->data, &v->cap, ((uint64_t)v->nr + 1) * sz, 1))
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
	v->nr = 0;
	return 0;
}

/*
 * An empty vector from the loader's stack, or NULL (ENOMEM). Vectors are
 * given back in reverse order of taking: l->nr_vecs = (its value before).
 */
static struct vec *vec_take(struct cu_loader *l)
{
	uint32_t cap = l->cap_vecs;
	struct vec *v;

	if (d2b_grow(&l->vecs, &l->cap_vecs, (uint64_t)l->nr_vecs + 1, sizeof(*l->vecs)))
		return NULL;
	if (l->cap_vecs > cap) /* new slots hold no vector yet */
		memset(&l->vecs[cap], 0, (l->cap_vecs - cap) * sizeof(*l->vecs));
	v = l->vecs[l->nr_vecs];
	if (!v) {
		v = calloc(1, sizeof(*v));
		if (!v)
			return NULL;
		l->vecs[l->nr_vecs] = v;
	}
	l->nr_vecs++;
	v->nr = 0;
	return v;
}

/* append a type entry for @die; returns its index or 0 on ENOMEM */
/* append @t to the types, where no DIE reference leads (its index, 0 on ENOMEM) */
static uint32_t type_add_unnamed(struct cu_loader *l, uint64_t die_off, struct cu_type *t)
{
	struct cu *cu = l->cu;
	uint32_t idx = cu->nr_types;

	if (d2b_grow(&cu->types, &l->cap_types, idx + 1, sizeof(*cu->types)))
		return 0;
	t->die_off = die_off;
	cu->types[idx] = *t;
	cu->nr_types++;
	return idx;
}

/* append @t, which the DIE at @die_off names (its index, 0 on ENOMEM) */
static uint32_t type_add(struct cu_loader *l, uint64_t die_off, struct cu_type *t)
{
	uint32_t idx = type_add_unnamed(l, die_off, t);

	if (idx && map_add(l, die_key(l, die_off), idx)) {
		l->cu->nr_types--;
		return 0;
	}
	return idx;
}

/* a btf_decl_tag / btf_type_tag annotation: returns its value or NULL */
static const char *annotation_value(struct cu_loader *l, const struct dr_die *die,
				    const char *want)
{
	const struct dr_attr *a;
	const char *name = attr_name(l, die);

	if (!name || strcmp(name, want) || !(a = dr_die__attr(die, DW_AT_const_value)))
		return NULL;
	return dr_attr__string(l->dc, a);
}

static int annot_add(struct cu_loader *l, const struct dr_die *die, int component,
		     struct vec *annots)
{
	struct cu_annot a = { .component_idx = component };

	if (l->dl->conf->skip_decl_tag || !(a.value = annotation_value(l, die, "btf_decl_tag")))
		return 0;
	return vec_push(annots, &a, sizeof(a));
}

/* an annotation DIE the release reads: clang's; from 1.32 also gcc's */
static bool annot_die_tag(const struct cu_loader *l, uint16_t tag)
{
	return tag == DW_TAG_LLVM_annotation ||
	       (tag == DW_TAG_GNU_annotation && l->dl->conf->pahole >= 132);
}

/*
 * gcc (15 and later) writes an annotation as a DW_TAG_GNU_annotation DIE of
 * its own, which the annotated DIE's DW_AT_GNU_annotation names; that one's
 * names the next, and so on. Calls @fn for each, in chain order, until it
 * returns non-zero (returned). pahole 1.32 reads these; 1.30 does not.
 */
static int gnu_annots_walk(struct cu_loader *l, const struct dr_die *die,
			   int (*fn)(struct cu_loader *l, const struct dr_die *annot, void *ctx),
			   void *ctx)
{
	const struct dr_die *from = die;
	unsigned int n, k = 0;
	int ret;

	if (l->dl->conf->pahole < 132 || !dr_die__attr(die, DW_AT_GNU_annotation))
		return 0;
	if (!l->annot_dies && !(l->annot_dies = malloc(2 * sizeof(*l->annot_dies))))
		return -ENOMEM;
	for (n = 0;; n++) {
		const struct dr_attr *a = dr_die__attr(from, DW_AT_GNU_annotation);
		struct dr_die *next = &l->annot_dies[k];
		uint64_t off;

		if (!a || dr_attr__ref(l->dc, a, &off) || dr_die__at(l->dc, off, next) != 1 ||
		    next->ab->tag != DW_TAG_GNU_annotation)
			return 0;
		if (n == MAX_DIE_DEPTH) { /* a chain that comes back on itself */
			l->err_die = die->off;
			return -ELOOP;
		}
		ret = fn(l, next, ctx);
		if (ret)
			return ret;
		from = next;
		k ^= 1;
	}
}

struct annots_ctx {
	int component;
	struct vec *annots;
};

static int gnu_decl_tag(struct cu_loader *l, const struct dr_die *annot, void *ctx)
{
	struct annots_ctx *c = ctx;

	return annot_add(l, annot, c->component, c->annots);
}

/* the btf_decl_tags a gcc annotation chain gives @die */
static int gnu_annots_of(struct cu_loader *l, const struct dr_die *die, int component,
			 struct vec *annots)
{
	struct annots_ctx c = { component, annots };

	return gnu_annots_walk(l, die, gnu_decl_tag, &c);
}

/*
 * Iterate the children of @parent: for (ret = child_first(); ret > 0; ret =
 * child_next()). When the loop ends, @parent knows where its subtree ends.
 */
static int child_first(struct cu_loader *l, struct dr_die *parent, struct dr_die *child)
{
	return dr_die__child(l->dc, parent, child);
}

static int child_next(struct cu_loader *l, struct dr_die *parent, struct dr_die *child)
{
	int ret = dr_die__sibling(l->dc, child);

	if (ret == 0)
		parent->subtree_end = child->subtree_end;
	return ret;
}

#define for_each_child(l, parent, child, ret)                                   \
	for (ret = child_first(l, parent, child); ret > 0; ret = child_next(l, parent, child))

/* annotations that are children of @die, with component index @component */
static int annots_of(struct cu_loader *l, struct dr_die *die, int component, struct vec *annots)
{
	struct dr_die child;
	int ret, err = 0;

	for_each_child(l, die, &child, ret) {
		if (annot_die_tag(l, child.ab->tag))
			err = annot_add(l, &child, component, annots);
		if (err)
			return err;
	}
	return ret;
}

static int annots_flush(struct cu_loader *l, struct vec *annots, uint32_t *first, uint32_t *nr)
{
	*nr = annots->nr;
	return vec_flush(annots, &l->cu->annots, &l->cap_annots, &l->nr_annots,
			 sizeof(struct cu_annot), first);
}

/*
 * Enter one level of DIE nesting (a struct's members, a scope's children):
 * bound the depth, as hostile input can nest without end, and get the
 * child DIE of this depth, which is too large to keep on the stack at every
 * level (allocated once per depth and unit).
 */
static struct dr_die *scope_enter(struct cu_loader *l, const struct dr_die *die, int *err)
{
	struct dr_die **child;

	if (++l->depth > MAX_DIE_DEPTH) {
		l->err_die = die->off;
		l->too_deep = true;
		*err = -ELOOP;
		return NULL;
	}
	child = &l->scope_dies[l->depth];
	if (!*child)
		*child = malloc(sizeof(**child));
	if (!*child) {
		l->depth--;
		*err = -ENOMEM;
	}
	return *child;
}

static void scope_leave(struct cu_loader *l)
{
	l->depth--;
}

static int die_process(struct cu_loader *l, struct dr_die *die);

/* pahole 1.32: one btf_type_tag of a gcc chain on a pointer (die_process_pointer) */
struct gnu_type_tags {
	uint32_t pointee; /* key of the pointer's DW_AT_type */
	uint32_t first, last; /* types[] of the first and last tag added, 0: none yet */
};

static int gnu_type_tag(struct cu_loader *l, const struct dr_die *annot, void *ctx)
{
	struct gnu_type_tags *g = ctx;
	struct cu_type tt = { .tag = D2B_TAG_TYPE_TAG, .type = g->pointee };
	uint32_t idx;

	if (!(tt.name = annotation_value(l, annot, "btf_type_tag")))
		return 1; /* the chain's type tags end here */
	/* a chain can be shared by several pointers: entries of their own, no key */
	idx = type_add_unnamed(l, annot->off, &tt);
	if (!idx)
		return -ENOMEM;
	if (g->last) {
		l->cu->types[g->last].type = idx;
		l->cu->types[g->last].flags |= CU_TYPE_REF_INDEX;
	} else {
		g->first = idx;
	}
	g->last = idx;
	return 0;
}

/*
 * A pointer and its btf_type_tags, which come before it: clang's child
 * DIEs, in source order, each the type of the next; else (pahole 1.32)
 * gcc's chain, in chain order, each the type of the one before (so both
 * give PTR -> the tag nearest the '*' -> ... -> the pointee).
 */
static int die_process_pointer(struct cu_loader *l, struct dr_die *die, struct cu_type *t)
{
	struct gnu_type_tags g = { .pointee = t->type };
	struct dr_die child;
	uint32_t prev = t->type;
	int ret;

	if (!l->dl->conf->skip_type_tag) {
		for_each_child(l, die, &child, ret) {
			struct cu_type tt = { .tag = D2B_TAG_TYPE_TAG };

			if (!annot_die_tag(l, child.ab->tag) ||
			    !(tt.name = annotation_value(l, &child, "btf_type_tag")))
				continue;
			tt.type = prev;
			if (!type_add(l, child.off, &tt))
				return -ENOMEM;
			prev = die_key(l, child.off);
		}
		if (ret < 0)
			return ret;
		if (prev == t->type) {
			ret = gnu_annots_walk(l, die, gnu_type_tag, &g);
			if (ret < 0)
				return ret;
			if (g.first) {
				t->type = g.first;
				t->flags |= CU_TYPE_REF_INDEX;
				return type_add(l, die->off, t) ? 0 : -ENOMEM;
			}
		}
	}
	t->type = prev;
	return type_add(l, die->off, t) ? 0 : -ENOMEM;
}

/* a subrange's element count: its upper bound plus one, or its count, or 0 */
static uint32_t subrange_nelems(struct cu_loader *l, struct dr_die *child)
{
	const struct dr_attr *a;
	uint64_t v;

	if ((a = dr_die__attr(child, DW_AT_upper_bound))) {
		if (!dr_attr__udata(l->dc, a, &v))
			return (uint32_t)(v + 1);
	} else if ((a = dr_die__attr(child, DW_AT_count))) {
		if (!dr_attr__udata(l->dc, a, &v))
			return (uint32_t)v;
	}
	return 0;
}

/*
 * An array type. pahole 1.30 encodes one ARRAY of the product of its
 * dimensions; 1.32 encodes one ARRAY per dimension, the innermost first,
 * so that the entry the DIE names (the outermost) comes last.
 */
static int die_process_array(struct cu_loader *l, struct dr_die *die, struct cu_type *t)
{
	bool per_dim = l->dl->conf->pahole >= 132;
	struct cu *cu = l->cu;
	struct dr_die child;
	uint32_t first = cu->nr_types, i, j, n = 1;
	int ret = 0;

	t->type = rel_ref(l, die, DW_AT_type);
	t->size = 0;
	cu->has_arrays = true;
	if (die->ab->children) {
		for_each_child(l, die, &child, ret) {
			if (child.ab->tag != DW_TAG_subrange_type &&
			    child.ab->tag != DW_TAG_enumeration_type)
				continue;
			t->size = subrange_nelems(l, &child);
			n *= (uint32_t)t->size;
			/* 1.32: an entry per dimension, outermost first (reversed below) */
			if (per_dim && !type_add_unnamed(l, die->off, t))
				return -ENOMEM;
		}
		if (ret < 0)
			return ret;
	}
	if (!per_dim || cu->nr_types == first) {
		t->size = die->ab->children ? n : 0;
		return type_add(l, die->off, t) ? 0 : -ENOMEM;
	}
	/* innermost first: each further one is an array of the one before */
	for (i = first, j = cu->nr_types - 1; i < j; i++, j--) {
		uint64_t size = cu->types[i].size;

		cu->types[i].size = cu->types[j].size;
		cu->types[j].size = size;
	}
	for (i = first + 1; i < cu->nr_types; i++) {
		cu->types[i].type = i - 1;
		cu->types[i].flags |= CU_TYPE_REF_INDEX;
	}
	return map_add(l, die_key(l, die->off), cu->nr_types - 1) ? -ENOMEM : 0;
}

static int die_process_params(struct cu_loader *l, struct dr_die *die, uint32_t *first,
			      uint32_t *nr)
{
	uint32_t mark = l->nr_vecs;
	struct vec *params = vec_take(l);
	struct dr_die child;
	int ret;

	if (!params)
		return -ENOMEM;
	for_each_child(l, die, &child, ret) {
		struct cu_param p = {};

		if (child.ab->tag == DW_TAG_formal_parameter) {
			p.name = attr_name(l, &child);
			p.type = rel_ref(l, &child, DW_AT_type);
		} else if (child.ab->tag == DW_TAG_unspecified_parameters) {
			p.vararg = true;
		} else {
			continue;
		}
		if (vec_push(params, &p, sizeof(p))) {
			ret = -ENOMEM;
			break;
		}
	}
	*nr = params->nr;
	if (ret >= 0)
		ret = vec_flush(params, &l->cu->params, &l->cap_params, &l->nr_params,
				sizeof(struct cu_param), first);
	l->nr_vecs = mark;
	return ret;
}

static int die_process_enum(struct cu_loader *l, struct dr_die *die, struct cu_type *t)
{
	const struct dr_attr *a;
	struct dr_die child;
	struct dr_cu *dc;
	uint64_t off;
	int ret;

	t->size = attr_udata(l, die, DW_AT_byte_size, 0);
	a = dr_die__attr(die, DW_AT_type);
	if (a && !dr_attr__ref(l->dc, a, &off) && (dc = dr_cu__of(l->dc, off)) &&
	    dr_die__at(dc, off, &l->tmp) == 1 && l->tmp.ab->tag == DW_TAG_base_type) {
		const struct dr_attr *e = dr_die__attr(&l->tmp, DW_AT_encoding);
		uint64_t enc = 0;

		if (e)
			dr_attr__udata(dc, e, &enc);
		if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
			t->flags |= CU_TYPE_SIGNED_ENUM;
	}
	t->first = l->nr_enums;
	for_each_child(l, die, &child, ret) {
		struct cu_enumerator e;

		if (child.ab->tag != DW_TAG_enumerator)
			continue;
		e.name = attr_name(l, &child);
		e.value = attr_udata(l, &child, DW_AT_const_value, 0);
		if (d2b_grow(&l->cu->enumerators, &l->cap_enums, l->nr_enums + 1,
			     sizeof(*l->cu->enumerators)))
			return -ENOMEM;
		l->cu->enumerators[l->nr_enums++] = e;
		t->nr++;
	}
	if (ret < 0)
		return ret;
	return type_add(l, die->off, t) ? 0 : -ENOMEM;
}

static uint64_t member_byte_offset(struct cu_loader *l, const struct dr_die *die)
{
	const struct dr_attr *a = dr_die__attr(die, DW_AT_data_member_location);
	const uint8_t *block;
	struct dr_op op;
	size_t len;
	uint64_t v;

	if (!a)
		return 0;
	if (!dr_attr__udata(l->dc, a, &v))
		return v;
	/* DWARF 2 style: DW_OP_plus_uconst N */
	if (!dr_attr__block(l->dc, a, &block, &len) &&
	    dr_expr__decode(l->dc, block, len, &op, 1) >= 1 && op.atom == DW_OP_plus_uconst)
		return op.number;
	return 0;
}

static int member_add(struct cu_loader *l, const struct dr_die *die, struct vec *members)
{
	struct cu_member m = {};
	const struct dr_attr *a;
	uint32_t bits;
	int64_t sv;
	uint64_t v;

	m.name = attr_name(l, die);
	m.type = rel_ref(l, die, DW_AT_type);
	bits = (uint32_t)attr_udata(l, die, DW_AT_bit_size, 0);
	m.bitfield_size = bits > 0xffff ? 0xffff : (uint16_t)bits;
	if ((a = dr_die__attr(die, DW_AT_data_bit_offset)) && !dr_attr__udata(l->dc, a, &v)) {
		m.bit_offset = (uint32_t)v;
	} else {
		m.bit_offset = (uint32_t)(member_byte_offset(l, die) * 8);
		/* (pahole: a member that is no bitfield keeps its byte offset) */
		if (m.bitfield_size && (a = dr_die__attr(die, DW_AT_bit_offset)) &&
		    !dr_attr__sdata(l->dc, a, &sv)) {
			m.has_dw4_bit_offset = true;
			m.dw4_bit_offset = (uint32_t)sv;
			v = attr_udata(l, die, DW_AT_byte_size, 0);
			m.dw4_byte_size = v > 0xff ? 0 : (uint8_t)v;
		}
	}
	return vec_push(members, &m, sizeof(m));
}

static int die_process_class(struct cu_loader *l, struct dr_die *die, struct cu_type *t)
{
	uint32_t mark = l->nr_vecs;
	struct vec *members = vec_take(l), *annots = vec_take(l);
	struct dr_die *child;
	int ret, err = 0;

	if (!members || !annots) {
		l->nr_vecs = mark;
		return -ENOMEM;
	}
	child = scope_enter(l, die, &err);
	if (!child) {
		l->nr_vecs = mark;
		return err;
	}
	t->size = attr_udata(l, die, DW_AT_byte_size, 0);
	for_each_child(l, die, child, ret) {
		switch (child->ab->tag) {
		case DW_TAG_member:
			/* C++ static members: declarations without location */
			if (t->tag != DW_TAG_union_type && attr_flag(child, DW_AT_declaration))
				break;
			err = annots_of(l, child, (int)members->nr, annots);
			if (!err)
				err = gnu_annots_of(l, child, (int)members->nr, annots);
			if (!err)
				err = member_add(l, child, members);
			break;
		case DW_TAG_LLVM_annotation:
		case DW_TAG_GNU_annotation:
			if (annot_die_tag(l, child->ab->tag))
				err = annot_add(l, child, -1, annots);
			break;
		case DW_TAG_subprogram:
		case DW_TAG_variable:
		case DW_TAG_inheritance:
		case DW_TAG_template_type_parameter:
		case DW_TAG_template_value_parameter:
			break;
		default:
			err = die_process(l, child);
		}
		if (err)
			break;
	}
	if (!err)
		err = ret;
	scope_leave(l);
	/* pahole 1.32: a struct's own gcc annotations, after its members' */
	if (!err && t->tag != DW_TAG_union_type)
		err = gnu_annots_of(l, die, -1, annots);
	t->nr = members->nr;
	if (!err)
		err = vec_flush(members, &l->cu->members, &l->cap_members, &l->nr_members,
				sizeof(struct cu_member), &t->first);
	if (!err)
		err = annots_flush(l, annots, &t->annot_first, &t->nr_annots);
	l->nr_vecs = mark;
	if (err)
		return err;
	return type_add(l, die->off, t) ? 0 : -ENOMEM;
}

static int die_process_typedef(struct cu_loader *l, struct dr_die *die, struct cu_type *t)
{
	uint32_t mark = l->nr_vecs;
	struct vec *annots = vec_take(l);
	int err;

	if (!annots)
		return -ENOMEM;
	err = annots_of(l, die, -1, annots);
	if (!err)
		err = annots_flush(l, annots, &t->annot_first, &t->nr_annots);
	l->nr_vecs = mark;
	if (err)
		return err;
	return type_add(l, die->off, t) ? 0 : -ENOMEM;
}

/*
 * Which register does a parameter's location say it arrives in? pahole's
 * rules: DW_OP_regN counts only in the first location, DW_OP_entry_value(
 * DW_OP_regN) in any; a trailing DW_OP_stack_value is ignored; the walk
 * stops at the expected register. reg is the DW_OP_regN atom, or -1.
 */
struct param_reg_walk {
	const struct dr_cu *dc;
	int expected;
	int loc;
	int reg;
	const uint8_t *end; /* of the furthest expression read */
};

/*
 * One expression of a parameter's location list: counted (@loc), how far it
 * reaches noted (@end), up to @max of its operations decoded into @ops.
 * Returns their number, or -1 to stop the walk where libdw stops (at an
 * expression it cannot decode).
 */
static int loc_expr_decode(const struct dr_cu *dc, int *loc, const uint8_t **end,
			   const uint8_t *expr, size_t len, struct dr_op *ops, int max)
{
	int n;

	(*loc)++;
	if (expr + len > *end)
		*end = expr + len;
	n = dr_expr__decode(dc, expr, len, ops, max);
	return n < 0 ? -1 : n;
}

static int param_reg_expr(void *ctx, const uint8_t *expr, size_t len)
{
	struct param_reg_walk *w = ctx;
	struct dr_op ops[MAX_PARAM_OPS], eop;
	int n = loc_expr_decode(w->dc, &w->loc, &w->end, expr, len, ops, MAX_PARAM_OPS);

	if (n < 0)
		return -1;
	if (n > 1 && n <= MAX_PARAM_OPS && ops[n - 1].atom == DW_OP_stack_value)
		n--;
	if (n != 1)
		return 0;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		if (w->loc != 0)
			return 0;
		w->reg = ops[0].atom;
	} else if (ops[0].atom == DW_OP_entry_value || ops[0].atom == DW_OP_GNU_entry_value) {
		if (dr_expr__decode(w->dc, ops[0].block, ops[0].block_len, &eop, 1) != 1)
			return 0;
		w->reg = eop.atom;
	} else {
		return 0;
	}
	return w->reg == w->expected;
}

/* @end, if in a location list section, is how far the unit read it */
static void loc_note(struct cu_loader *l, const uint8_t *end)
{
	const struct dr_section *secs[2] = { &l->dl->secs.loc, &l->dl->secs.loclists };
	int i;

	for (i = 0; i < 2; i++) {
		const struct dr_section *sec = secs[i];

		if (sec->data && end > sec->data && end <= sec->data + sec->size &&
		    (uint64_t)(end - sec->data) > l->cu->loc_end[i])
			l->cu->loc_end[i] = end - sec->data;
	}
}

static void param_analyze(struct cu_loader *l, const struct dr_die *die, int idx,
			  struct cu_param *p)
{
	struct param_reg_walk w = { .dc = l->dc, .loc = -1, .reg = -1 };
	const struct dr_attr *a;

	/* (pahole counts registers on machines it has no map for, to no effect) */
	if (!l->dl->machine.param_regs || idx >= l->dl->machine.nr_param_regs ||
	    !(a = dr_die__attr(die, DW_AT_location)))
		return;
	w.expected = l->dl->machine.param_regs[idx];
	dr_attr__for_each_location(l->dc, a, param_reg_expr, &w);
	if (w.reg >= 0 && w.reg != w.expected)
		p->unexpected_reg = true;
	loc_note(l, w.end);
}

/*
 * pahole 1.32's reading of a parameter's location (parameter__decode_location),
 * for every parameter: in the first location, DW_OP_regN, or DW_OP_bregN with
 * DW_OP_stack_value, names its register, DW_OP_fbreg says it is on the
 * stack, a constant says it is one; DW_OP_entry_value(DW_OP_regN) names the
 * register in any location; the first register found stays. An expression
 * of several operations is read one way for a parameter no larger than a
 * register (its first operation only) and another for an aggregate in two
 * registers (its pieces' first register, in any location): which one
 * applies is known once types are (params_analyze), so both are kept.
 */
struct param_loc_walk {
	const struct dr_cu *dc;
	struct cu_param *p;
	int loc;
	const uint8_t *end; /* of the furthest expression read */
};

static bool op_is_reg(uint8_t atom)
{
	return atom >= DW_OP_reg0 && atom <= DW_OP_reg31;
}

static bool op_is_const(uint8_t atom)
{
	return (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) || atom == DW_OP_constu ||
	       atom == DW_OP_consts;
}

static void loc_reg_set(int16_t *reg, int atom)
{
	if (*reg < 0)
		*reg = (int16_t)atom;
}

/* pahole's parameter__multi_exprs, both readings */
static void param_loc_multi(struct param_loc_walk *w, const struct dr_op *ops, int n)
{
	struct cu_param *p = w->p;
	int i;

	if (op_is_const(ops[0].atom)) {
		if (w->loc == 0)
			p->loc_const_value = true;
		return;
	}
	if (w->loc == 0 && op_is_reg(ops[0].atom)) {
		loc_reg_set(&p->loc_reg, ops[0].atom);
	} else if (w->loc == 0 && ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		for (i = 1; i < n; i++)
			if (ops[i].atom == DW_OP_stack_value)
				break;
		if (i < n)
			loc_reg_set(&p->loc_reg, ops[0].atom - DW_OP_breg0 + DW_OP_reg0);
	}
	/* (a leading DW_OP_piece is no register) */
	for (i = 0; i < n; i++)
		if (op_is_reg(ops[i].atom)) {
			loc_reg_set(&p->loc_reg_agg, ops[i].atom);
			break;
		}
}

static int param_loc_expr(void *ctx, const uint8_t *expr, size_t len)
{
	struct param_loc_walk *w = ctx;
	struct dr_op buf[MAX_PARAM_OPS], *ops = buf, eop;
	struct cu_param *p = w->p;
	bool stack_value;
	int n = loc_expr_decode(w->dc, &w->loc, &w->end, expr, len, ops, MAX_PARAM_OPS);
	int reg = -1;

	if (n <= 0)
		return n;
	if (n > MAX_PARAM_OPS) {
		ops = malloc((size_t)n * sizeof(*ops));
		if (!ops || dr_expr__decode(w->dc, expr, len, ops, n) != n) {
			free(ops);
			return -1;
		}
	}
	stack_value = ops[n - 1].atom == DW_OP_stack_value;
	if (n == 2 && stack_value)
		n = 1;
	if (n != 1) {
		param_loc_multi(w, ops, n);
	} else if (op_is_reg(ops[0].atom)) {
		if (w->loc == 0)
			reg = ops[0].atom;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		if (w->loc == 0 && stack_value)
			reg = ops[0].atom - DW_OP_breg0 + DW_OP_reg0;
	} else if (ops[0].atom == DW_OP_fbreg) {
		if (w->loc == 0)
			p->loc_stack = true;
	} else if (op_is_const(ops[0].atom)) {
		if (w->loc == 0)
			p->loc_const_value = true;
	} else if (ops[0].atom == DW_OP_entry_value || ops[0].atom == DW_OP_GNU_entry_value) {
		if (dr_expr__decode(w->dc, ops[0].block, ops[0].block_len, &eop, 1) == 1 &&
		    op_is_reg(eop.atom))
			reg = eop.atom;
	}
	if (reg >= 0) {
		loc_reg_set(&p->loc_reg, reg);
		loc_reg_set(&p->loc_reg_agg, reg);
	}
	if (ops != buf)
		free(ops);
	return 0;
}

/* pahole 1.32's parameter__new: what its own DIE says */
static void param_locate(struct cu_loader *l, const struct dr_die *die, int idx,
			 struct cu_param *p)
{
	struct param_loc_walk w = { .dc = l->dc, .p = p, .loc = -1 };
	const struct dr_attr *a;
	uint64_t off;

	p->idx = (uint16_t)idx;
	p->loc_reg = p->loc_reg_agg = -1;
	p->key = die_key(l, die->off);
	if (!dr_die__attr(die, DW_AT_type) && (a = dr_die__attr(die, DW_AT_abstract_origin)) &&
	    !dr_attr__ref(l->dc, a, &off))
		p->origin = die_key(l, off);
	p->has_const_value = dr_die__attr(die, DW_AT_const_value) != NULL;
	a = dr_die__attr(die, DW_AT_location);
	p->has_loc = a != NULL;
	if (a) {
		dr_attr__for_each_location(l->dc, a, param_loc_expr, &w);
		loc_note(l, w.end);
	}
}

/*
 * clang marks a function whose ABI it changed (a parameter dropped, say)
 * DW_CC_nocall; pahole 1.32 reads that from the function's abstract origin
 * if it has one, and never for an inline instance.
 */
static bool func_signature_changed(struct cu_loader *l, const struct dr_die *die)
{
	const struct dr_attr *a;
	struct dr_cu *dc = l->dc;
	uint64_t v, off;

	if ((a = dr_die__attr(die, DW_AT_inline)) && !dr_attr__udata(l->dc, a, &v) && v)
		return false;
	if ((a = dr_die__attr(die, DW_AT_abstract_origin))) {
		if (dr_attr__ref(l->dc, a, &off) || !(dc = dr_cu__of(l->dc, off)) ||
		    dr_die__at(dc, off, &l->tmp) != 1)
			return false;
		die = &l->tmp;
	}
	a = dr_die__attr(die, DW_AT_calling_convention);
	return a && !dr_attr__udata(dc, a, &v) && v == DW_CC_nocall;
}

/* a subprogram being read: its own parameters and annotations */
struct fn_scope {
	struct vec *params, *annots;
};

static int die_process_body(struct cu_loader *l, struct dr_die *die, struct fn_scope *fs);

static int die_process_function(struct cu_loader *l, struct dr_die *die)
{
	struct cu *cu = l->cu;
	uint32_t mark = l->nr_vecs;
	struct fn_scope fs = { vec_take(l), vec_take(l) };
	const struct dr_attr *a;
	struct cu_func fn = {};
	int err;

	if (!fs.params || !fs.annots) {
		l->nr_vecs = mark;
		return -ENOMEM;
	}
	fn.name = attr_name(l, die);
	fn.ret_type = rel_ref(l, die, DW_AT_type);
	fn.declaration = attr_flag(die, DW_AT_declaration);
	fn.die_off = die->off;
	if ((a = dr_die__attr(die, DW_AT_low_pc)) && dr_attr__addr(l->dc, a, &fn.addr)) {
		fn.addr = 0;
		attr_bad(l, die, DW_AT_low_pc);
	}
	if (l->producer_clang && l->dl->conf->pahole >= 132)
		fn.signature_changed = func_signature_changed(l, die);
	err = die_process_body(l, die, &fs);
	/* pahole 1.32: the function's own gcc annotations, after its children's */
	if (!err)
		err = gnu_annots_of(l, die, -1, fs.annots);
	fn.nr_params = fs.params->nr;
	if (!err)
		err = vec_flush(fs.params, &cu->params, &l->cap_params, &l->nr_params,
				sizeof(struct cu_param), &fn.first_param);
	if (!err)
		err = annots_flush(l, fs.annots, &fn.annot_first, &fn.nr_annots);
	l->nr_vecs = mark;
	if (err)
		return err;
	if (d2b_grow(&cu->funcs, &l->cap_funcs, cu->nr_funcs + 1, sizeof(*cu->funcs)))
		return -ENOMEM;
	cu->funcs[cu->nr_funcs++] = fn;
	return 0;
}

static int param_add(struct cu_loader *l, struct dr_die *die, struct fn_scope *fs)
{
	struct cu_param p = {};
	int idx = (int)fs->params->nr;
	int err;

	if (die->ab->tag == DW_TAG_unspecified_parameters) {
		p.vararg = true;
	} else {
		p.name = attr_name(l, die);
		p.type = rel_ref(l, die, DW_AT_type);
		if (l->dl->conf->pahole >= 132)
			param_locate(l, die, idx, &p);
		else
			param_analyze(l, die, idx, &p);
		err = annots_of(l, die, idx, fs->annots);
		if (!err)
			err = gnu_annots_of(l, die, idx, fs->annots);
		if (err)
			return err;
	}
	return vec_push(fs->params, &p, sizeof(p));
}

/*
 * Children of a subprogram, lexical block or inlined subroutine. @fs is the
 * function whose parameters and annotations are collected (only for the
 * subprogram's own children), NULL inside nested scopes.
 */
static int die_process_body(struct cu_loader *l, struct dr_die *die, struct fn_scope *fs)
{
	struct dr_die *child;
	int ret, err = 0;

	if (!die->ab->children)
		return 0;
	child = scope_enter(l, die, &err);
	if (!child)
		return err;
	for_each_child(l, die, child, ret) {
		switch (child->ab->tag) {
		case DW_TAG_formal_parameter:
		case DW_TAG_unspecified_parameters:
			if (fs)
				err = param_add(l, child, fs);
			break;
		case DW_TAG_LLVM_annotation:
		case DW_TAG_GNU_annotation:
			if (fs && annot_die_tag(l, child->ab->tag))
				err = annot_add(l, child, -1, fs->annots);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_inlined_subroutine:
			err = die_process_body(l, child, NULL);
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
			err = die_process(l, child);
		}
		if (err)
			break;
	}
	scope_leave(l);
	return err ? err : ret;
}

/* the static address of a variable: first location op DW_OP_addr/addrx */
static bool var_location(struct cu_loader *l, const struct dr_die *die, uint64_t *addr)
{
	const struct dr_attr *a = dr_die__attr(die, DW_AT_location);
	const uint8_t *expr;
	struct dr_op op;
	size_t len;

	/* only exprloc: a location list is not static storage */
	if (!a || dr_attr__block(l->dc, a, &expr, &len) ||
	    dr_expr__decode(l->dc, expr, len, &op, 1) < 1)
		return false;
	if (op.atom == DW_OP_addr) {
		*addr = op.number;
		return true;
	}
	if (op.atom != DW_OP_addrx && op.atom != DW_OP_GNU_addr_index)
		return false;
	if (dr_cu__addrx(l->dc, op.number, addr)) {
		attr_bad(l, die, DW_AT_location);
		return false;
	}
	return true;
}

static int die_process_variable(struct cu_loader *l, struct dr_die *die)
{
	struct cu *cu = l->cu;
	struct cu_var v = {};
	const struct dr_attr *a = dr_die__attr(die, DW_AT_specification);
	struct dr_die *spec = NULL, *adie = die;
	struct dr_cu *dc = l->dc, *spec_dc = NULL;
	uint32_t mark = l->nr_vecs;
	struct vec *annots;
	uint64_t off;
	int err = 0;

	/* as pahole: a concrete instance of a variable (LTO's out-of-line copy
	 * of an early-debug declaration) is not integrated with its abstract
	 * origin, and without a name of its own it is no VAR */
	if (dr_die__attr(die, DW_AT_abstract_origin) && !dr_die__attr(die, DW_AT_name))
		return 0;
	if (a && !dr_attr__ref(l->dc, a, &off) && (spec_dc = dr_cu__of(l->dc, off))) {
		spec = malloc(sizeof(*spec));
		if (!spec)
			return -ENOMEM;
		if (dr_die__at(spec_dc, off, spec) != 1) {
			free(spec);
			spec = NULL;
		}
	}
	v.die_off = die->off;
	v.declaration = attr_flag(die, DW_AT_declaration) && !spec;
	v.artificial = attr_flag(die, DW_AT_artificial);
	v.has_addr = var_location(l, die, &v.addr);
	v.name = attr_name(l, die);
	/*
	 * As pahole, a definition with a specification is the declaration it
	 * completes, but for its address: its linkage, decl tags and type
	 * are the declaration's. The type differs where the definition
	 * completes an array (extern void *refs[]; void *refs[] = {...}):
	 * the declaration's has no size, and no VAR is made.
	 */
	if (spec) {
		/* the specification's attributes and children are read with its own unit's reader */
		l->dc = spec_dc;
		v.type = rel_ref(l, spec, DW_AT_type);
		v.external = attr_flag(spec, DW_AT_external);
		adie = spec;
	} else {
		v.type = rel_ref(l, die, DW_AT_type);
		v.external = attr_flag(die, DW_AT_external);
	}
	annots = vec_take(l);
	err = annots ? annots_of(l, adie, -1, annots) : -ENOMEM;
	l->dc = dc;
	if (!err)
		err = annots_flush(l, annots, &v.annot_first, &v.nr_annots);
	l->nr_vecs = mark;
	free(spec);
	if (err)
		return err;
	if (d2b_grow(&cu->vars, &l->cap_vars, cu->nr_vars + 1, sizeof(*cu->vars)))
		return -ENOMEM;
	cu->vars[cu->nr_vars++] = v;
	return 0;
}

/*
 * A skeleton type DIE stands for the type its DW_AT_signature names: its key
 * becomes an alias of the type unit's type (resolved in cu_resolve). Returns
 * true if @die is one (*@err = 0 or -ENOMEM), false to process it as a type
 * of its own: no signature, or none of this file's type units has it.
 */
static bool skeleton_alias(struct cu_loader *l, const struct dr_die *die, int *err)
{
	const struct dr_attr *a = dr_die__attr(die, DW_AT_signature);
	uint32_t target;

	*err = 0;
	if (!a || !(target = sig_ref(l, l->dc, a, false)))
		return false;
	if (d2b_grow(&l->aliases, &l->cap_aliases, (uint64_t)l->nr_aliases + 2,
		     sizeof(*l->aliases)))
		*err = -ENOMEM;
	else {
		l->aliases[l->nr_aliases++] = die_key(l, die->off);
		l->aliases[l->nr_aliases++] = target;
	}
	return true;
}

/* one DIE anywhere but directly under a subprogram's own parameter list */
static int die_process(struct cu_loader *l, struct dr_die *die)
{
	struct cu_type t = {};
	uint32_t tag = die->ab->tag;
	int err;

	t.tag = (uint16_t)tag;
	switch (tag) {
	case DW_TAG_base_type:
		t.name = attr_name(l, die);
		t.size = attr_udata(l, die, DW_AT_byte_size, 0);
		t.encoding = (uint8_t)attr_udata(l, die, DW_AT_encoding, 0);
		return type_add(l, die->off, &t) ? 0 : -ENOMEM;
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
		return type_add(l, die->off, &t) ? 0 : -ENOMEM;
	case DW_TAG_typedef:
		t.name = attr_name(l, die);
		t.type = rel_ref(l, die, DW_AT_type);
		return die_process_typedef(l, die, &t);
	case DW_TAG_array_type:
		return die_process_array(l, die, &t);
	case DW_TAG_subroutine_type:
		t.type = rel_ref(l, die, DW_AT_type);
		err = die_process_params(l, die, &t.first, &t.nr);
		if (err)
			return err;
		return type_add(l, die->off, &t) ? 0 : -ENOMEM;
	case DW_TAG_enumeration_type:
		if (skeleton_alias(l, die, &err))
			return err;
		t.name = attr_name(l, die);
		if (attr_flag(die, DW_AT_declaration))
			t.flags |= CU_TYPE_DECLARATION;
		return die_process_enum(l, die, &t);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_interface_type:
		if (skeleton_alias(l, die, &err))
			return err;
		t.name = attr_name(l, die);
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

static int cu_walk(struct cu_loader *l, struct dr_die *cu_die)
{
	struct dr_die *child = malloc(sizeof(*child));
	int ret, err = 0;

	if (!child)
		return -ENOMEM;
	for_each_child(l, cu_die, child, ret) {
		if (child->ab->tag == DW_TAG_variable)
			err = die_process_variable(l, child);
		else
			err = die_process(l, child);
		if (err) {
			if (!l->err_die)
				l->err_die = child->off;
			break;
		}
	}
	if (!err && ret < 0) {
		l->err_die = child->off;
		err = ret;
	}
	free(child);
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

/* a reference that is not a type entry: void, as pahole makes it, if it
 * points at a DIE at all; anything else is corrupt input */
static uint32_t ref_resolve(struct cu_loader *l, uint32_t key)
{
	uint32_t idx = map_find(l, key);
	uint64_t off = l->cu_start + key;
	struct dr_cu *dc;

	/* (a type unit's references were checked against its unit when read) */
	if (!idx && key && !(key & TU_KEY_INFO) && !l->bad_ref_die &&
	    (!(dc = dr_cu__of(l->dc, off)) || dr_die__at(dc, off, &l->tmp) != 1))
		l->bad_ref_die = off;
	return idx;
}

/*
 * Reference kinds only point at other types; in C, a chain of them can only
 * loop back through a struct or union. A cycle without one (a const that is
 * its own type) would send libbpf's dedup into unbounded recursion.
 */
static int cu_check_cycles(struct cu_loader *l)
{
	struct cu *cu = l->cu;
	uint8_t *state = calloc(cu->nr_types, 1); /* 0 new, 1 on the path, 2 done */
	uint32_t i, j;

	if (!state)
		return -ENOMEM;
	for (i = 1; i < cu->nr_types; i++) {
		for (j = i; j && state[j] == 0; j = cu->types[j].type) {
			uint16_t tag = cu->types[j].tag;

			if (cu_tag_has_members(tag) || tag == DW_TAG_enumeration_type ||
			    tag == DW_TAG_base_type)
				break;
			state[j] = 1;
		}
		if (j && state[j] == 1) {
			l->err_die = cu->types[j].die_off;
			free(state);
			return -ELOOP;
		}
		for (j = i; j && state[j] == 1; j = cu->types[j].type)
			state[j] = 2;
	}
	free(state);
	return 0;
}

/* pahole 1.32's get_type_byte_size: a pointer's is the address size; a type
 * with a byte size has it (an array has none); anything else, its type's */
static uint32_t param_type_size(const struct cu *cu, uint32_t idx, uint8_t addr_size)
{
	int depth = 0;

	while (idx && idx < cu->nr_types && depth++ < MAX_DIE_DEPTH) {
		const struct cu_type *t = &cu->types[idx];

		if (t->tag == DW_TAG_pointer_type)
			return addr_size;
		if (t->size && t->tag != DW_TAG_array_type && t->tag != D2B_TAG_TYPE_TAG)
			return (uint32_t)t->size;
		idx = t->type;
	}
	return 0;
}

/* index entries (key << 32 | param): by key (each DIE one parameter, so one entry) */
static int key_idx_cmp(const void *a, const void *b)
{
	uint32_t x = (uint32_t)(*(const uint64_t *)a >> 32), y = (uint32_t)(*(const uint64_t *)b >> 32);

	return x < y ? -1 : x > y;
}

/*
 * pahole 1.32 (ftype__recode_dwarf_types): each parameter of an out-of-line
 * copy (DW_AT_abstract_origin, no type of its own) hands what its location
 * says to its origin's parameter, in function order, and marks its
 * function reordered if the two are at different places.
 */
static int params_share(struct cu_loader *l)
{
	struct cu *cu = l->cu;
	uint64_t *index = malloc(((size_t)l->nr_params + 1) * sizeof(*index));
	uint32_t i, p, n = 0;

	if (!index)
		return -ENOMEM;
	for (p = 0; p < l->nr_params; p++)
		if (cu->params[p].key)
			index[n++] = (uint64_t)cu->params[p].key << 32 | p;
	qsort(index, n, sizeof(*index), key_idx_cmp);
	for (i = 0; i < cu->nr_funcs; i++) {
		struct cu_func *fn = &cu->funcs[i];

		for (p = fn->first_param; p < fn->first_param + fn->nr_params; p++) {
			const struct cu_param *pos = &cu->params[p];
			uint64_t key = (uint64_t)pos->origin << 32, *hit;
			struct cu_param *opos;

			if (!pos->origin ||
			    !(hit = bsearch(&key, index, n, sizeof(*index), key_idx_cmp)))
				continue;
			opos = &cu->params[(uint32_t)*hit];
			if (pos->idx != opos->idx)
				fn->reordered_parm = true;
			opos->has_loc |= pos->has_loc;
			opos->has_const_value |= pos->has_const_value;
			opos->loc_const_value |= pos->loc_const_value;
			opos->loc_stack |= pos->loc_stack;
			if (pos->loc_reg >= 0)
				opos->loc_reg = pos->loc_reg;
		}
	}
	free(index);
	return 0;
}

/* the register a parameter of @slots registers from @reg_idx on may be in */
static bool reg_in_window(const struct elf_machine *m, int reg, int reg_idx, int slots)
{
	int i;

	for (i = 0; i < slots && reg_idx + i < m->nr_param_regs; i++)
		if (m->param_regs && reg == m->param_regs[reg_idx + i])
			return true;
	return false;
}

/*
 * pahole 1.32's function__analyze_parameter_locations, without the
 * true_signature parts: walk the parameters along the ABI's registers, an
 * aggregate of up to two registers taking both (but on s390), a larger one
 * passed in memory. gcc's, and clang's where it changed the ABI: a
 * parameter in a register other than the next one is unexpected, one
 * whose location names no register (or gcc's constant, without one) is
 * optimized out. clang's otherwise: only unexpected registers, looked for
 * among the registers the parameter's slots cover.
 */
static void func_analyze(struct cu_loader *l, struct cu_func *fn)
{
	const struct elf_machine *m = &l->dl->machine;
	struct cu *cu = l->cu;
	bool agg2 = m->machine != EM_S390, clang = l->producer_clang && !fn->signature_changed;
	uint32_t asz = l->addr_size, p;
	int reg_idx = 0;

	for (p = fn->first_param; p < fn->first_param + fn->nr_params; p++) {
		struct cu_param *pos = &cu->params[p];
		uint32_t size = param_type_size(cu, pos->type, (uint8_t)asz);
		int slots = !agg2 || size <= asz ? 1 : (int)((size + asz - 1) / asz);
		bool in_memory = size > (agg2 ? 2 * asz : asz);
		bool avail = reg_idx < m->nr_param_regs;
		int expected = avail && m->param_regs ? m->param_regs[reg_idx] : -1;

		if (pos->vararg)
			continue;
		if (clang) {
			if (in_memory)
				continue;
			if (!avail)
				break;
			if (pos->loc_reg >= 0 && !reg_in_window(m, pos->loc_reg, reg_idx, slots))
				pos->unexpected_reg = true;
			reg_idx += slots;
			continue;
		}
		if (pos->has_loc) {
			if (!avail)
				continue; /* takes no register */
			if (pos->loc_reg < 0)
				pos->optimized = true;
			else if (expected >= 0 && expected != pos->loc_reg)
				pos->unexpected_reg = true;
		} else if (pos->has_const_value && !l->producer_clang) {
			pos->optimized = true;
		}
		reg_idx += in_memory ? 1 : slots;
	}
	for (p = fn->first_param; p < fn->first_param + fn->nr_params; p++)
		if (!cu->params[p].vararg && (cu->params[p].optimized || !cu->params[p].has_loc))
			fn->optimized_parms = true;
}

/* pahole 1.32's parameter analysis (see param_locate, params_share, func_analyze) */
static int params_analyze(struct cu_loader *l)
{
	struct cu *cu = l->cu;
	bool agg2 = l->dl->machine.machine != EM_S390;
	uint32_t i;
	int err;

	for (i = 0; i < l->nr_params; i++) {
		struct cu_param *p = &cu->params[i];

		if (!p->key)
			continue;
		if (agg2 && param_type_size(cu, p->type, l->addr_size) > l->addr_size)
			p->loc_reg = p->loc_reg_agg;
	}
	err = params_share(l);
	if (err)
		return err;
	for (i = 0; i < cu->nr_funcs; i++)
		func_analyze(l, &cu->funcs[i]);
	return 0;
}

static int cu_resolve(struct cu_loader *l)
{
	struct cu *cu = l->cu;
	bool big_endian = l->dl->secs.swap != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	uint32_t i, pass;
	int err;

	/* skeletons, possibly of skeletons (in type units): to a fixpoint */
	for (pass = 0; pass < l->nr_aliases / 2; pass++) {
		bool changed = false;

		for (i = 0; i < l->nr_aliases; i += 2) {
			uint32_t idx = map_find(l, l->aliases[i + 1]);

			if (idx && map_find(l, l->aliases[i]) != idx) {
				if (map_add(l, l->aliases[i], idx))
					return -ENOMEM;
				changed = true;
			}
		}
		if (!changed)
			break;
	}

	for (i = 1; i < cu->nr_types; i++)
		if (!(cu->types[i].flags & CU_TYPE_REF_INDEX))
			cu->types[i].type = ref_resolve(l, cu->types[i].type);
	for (i = 0; i < l->nr_members; i++)
		cu->members[i].type = ref_resolve(l, cu->members[i].type);
	for (i = 0; i < l->nr_params; i++)
		cu->params[i].type = ref_resolve(l, cu->params[i].type);
	for (i = 0; i < cu->nr_vars; i++)
		cu->vars[i].type = ref_resolve(l, cu->vars[i].type);
	for (i = 0; i < cu->nr_funcs; i++)
		cu->funcs[i].ret_type = ref_resolve(l, cu->funcs[i].ret_type);
	if (l->bad_ref_die)
		return -EBADMSG;
	err = cu_check_cycles(l);
	if (err)
		return err;

	for (i = 0; i < l->nr_members; i++) {
		struct cu_member *m = &cu->members[i];
		uint32_t bits;

		if (!m->has_dw4_bit_offset)
			continue;
		/*
		 * DWARF <= 4: bit_offset counts from the most significant bit of
		 * the member's storage (DW_AT_byte_size, else its type's size),
		 * which is the first on a big-endian machine; no size, no offset
		 */
		bits = (uint32_t)((m->dw4_byte_size ? m->dw4_byte_size
						    : type_size(cu, m->type, l->addr_size, 0)) *
				  8);
		if (!bits)
			continue;
		if (big_endian)
			m->bit_offset += m->dw4_bit_offset;
		else
			m->bit_offset = m->bit_offset + bits - m->dw4_bit_offset - m->bitfield_size;
	}
	for (i = 0; i < cu->nr_vars; i++)
		cu->vars[i].size = type_size(cu, cu->vars[i].type, l->addr_size, 0);
	if (l->dl->conf->pahole >= 132) {
		err = params_analyze(l);
		if (err)
			return err;
	}
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
	return 0;
}

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
static int unit_walk(struct cu_loader *l, unsigned int i, struct dr_die *cu_die)
{
	struct dwarf_loader *dl = l->dl;

	l->cu->off = dl->units[i].die_off;
	l->cu_start = dl->merged ? 0 : dl->units[i].off;
	l->dc = unit_dc(l, i, cu_die);
	if (!l->dc) {
		l->err_die = l->cu->off;
		return -EINVAL;
	}
	if (dr_die__at(l->dc, l->cu->off, cu_die) != 1) {
		l->err_die = l->cu->off;
		return -EINVAL;
	}
	/* pahole 1.30 fails on a unit whose root is no unit DIE */
	if (cu_die->ab->tag != DW_TAG_compile_unit && cu_die->ab->tag != DW_TAG_partial_unit &&
	    cu_die->ab->tag != DW_TAG_type_unit && cu_die->ab->tag != DW_TAG_skeleton_unit) {
		l->err_die = l->cu->off;
		l->bad_root_tag = cu_die->ab->tag;
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
	return cu_walk(l, cu_die);
}

/*
 * Walk the type units the units walked so far refer to, and those they refer
 * to in turn, into the same CU: each CU gets its own copy of the types, as
 * it would without type units, and libbpf's dedup merges them. (pahole 1.30
 * does not follow type signatures: see Documentation/compat.md.)
 */
static int type_units_walk(struct cu_loader *l, struct dr_die *tu_die)
{
	struct dr_cu *dc = l->dc, tdc;
	uint64_t cu_off = l->cu->off;
	int err = 0;

	while (!err && l->tu_walked < l->tu_queue_nr) {
		const struct type_unit *tu = &l->dl->sigs[l->tu_queue[l->tu_walked++]];

		l->cu->off = tu->unit->die_off;
		if (dr_cu__init(&tdc, tu->secs, tu->unit)) {
			l->err_die = tu->unit->die_off;
			err = -EINVAL;
			break;
		}
		if (dr_die__at(&tdc, tu->unit->die_off, tu_die) != 1) {
			l->err_die = tu->unit->die_off;
			err = -EINVAL;
		} else {
			cu_bases(&tdc, tu_die);
			l->dc = &tdc;
			l->cu_start = 0;
			l->key_bits = tu->key_bits;
			err = cu_walk(l, tu_die);
			l->key_bits = 0;
		}
		dr_cu__release(&tdc);
	}
	l->dc = dc;
	if (!err)
		l->cu->off = cu_off;
	return err;
}

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
	free(l->tu_queue);
	free(l->tu_queued);
	free(l->aliases);
	map_clear(l);
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
	free(l->map);
	free(l->map_used);
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
	free(dl->load_errs[id]);
	dl->load_errs[id] = msg;
}

void dwarf_loader__report(const struct dwarf_loader *dl, unsigned int id)
{
	if (id < dl->nr_cus && dl->load_errs[id])
		pr_warn("%s", dl->load_errs[id]);
}

int dwarf_loader__load_cu(struct dwarf_loader *dl, unsigned int id, struct cu **cup)
{
	unsigned int i, first = id, last = id + 1, nr_dcs = 1;
	struct cu_loader *l;
	struct dr_die *cu_die = NULL;
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
	cu_die = malloc(sizeof(*cu_die));
	if (!l->dcs || !l->dc_state || !cu_die)
		goto out_free;
	for (i = first, err = 0; i < last && !err; i++) {
		if (!dl->cu_excluded[i])
			err = unit_walk(l, i, cu_die);
		if (err > 0 && dl->merged)
			err = 0; /* that unit is left out, the others are walked */
	}
	if (err > 0) { /* the one unit is left out */
		cu->excluded = true;
		goto out_done;
	}
	if (!err && l->tu_queue_nr)
		err = type_units_walk(l, cu_die);
	if (!err && l->oom)
		err = -ENOMEM;
	if (!err && l->bad_sig)
		err = -ENOENT;
	if (!err && l->bad_ref_die)
		err = -EBADMSG;
	if (!err && l->bad_attr_die)
		err = -ERANGE;
	if (!err)
		err = cu_resolve(l);
	if (err)
		goto out_warn;
out_done:
	err = cu_pack(l, cup);
	goto out_free;

out_warn:
	if (err == -ELOOP && l->too_deep)
		load_err(dl, id, "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": nesting deeper than %d\n",
			 dl->path, cu->off, l->err_die, MAX_DIE_DEPTH);
	else if (err == -ELOOP)
		load_err(dl, id, "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": type refers to itself\n",
			 dl->path, cu->off, l->err_die);
	else if (err == -ENOENT)
		load_err(dl, id,
			 "%s: CU %#" PRIx64 ": type signature %#" PRIx64 ": no such type unit\n",
			 dl->path, cu->off, l->bad_sig);
	else if (err == -EBADMSG)
		load_err(dl, id,
			 "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": reference to no DIE of %s\n",
			 dl->path, cu->off, l->bad_ref_die,
			 dl->merged ? ".debug_info" : "its unit");
	else if (err == -ERANGE)
		load_err(dl, id,
			 "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": %s: index or offset outside "
			 "its section\n",
			 dl->path, cu->off, l->bad_attr_die,
			 l->bad_attr == DW_AT_name     ? "DW_AT_name" :
			 l->bad_attr == DW_AT_low_pc   ? "DW_AT_low_pc" :
							 "DW_AT_location");
	else if (err == -EPROTO)
		load_err(dl, id, "%s: CU %#" PRIx64 ": root DIE of tag %#x is no unit DIE\n",
			 dl->path, cu->off, l->bad_root_tag);
	else if (err == -EINVAL && l->err_die == cu->off && !l->dc)
		load_err(dl, id, "%s: CU %#" PRIx64 ": bad abbreviation table or unit DIE\n",
			 dl->path, cu->off);
	else if (err == -EINVAL)
		load_err(dl, id, "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": malformed DWARF\n",
			 dl->path, cu->off, l->err_die);
	else
		load_err(dl, id, "%s: CU %#" PRIx64 ": DIE %#" PRIx64 ": %s\n", dl->path, cu->off,
			 l->err_die, strerror(-err));
out_free:
	free(cu_die);
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
	if (cu->own_arrays)
		cu_arrays_free(cu);
	if (cu->ring)
		unit_ring__release(cu->ring, cu);
	else
		free(cu);
}
