// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader's debug sections: checked against the file's size, mapped
 * with libelf (decompressed where compressed), a relocatable file's
 * relocated into private copies, and their pages dropped from the
 * resident set as the units that read them are done.
 *
 * Memory: the encoder's writer thread calls dwarf_loader__release_cu() for
 * each unit it is done with, in unit order, and the loader's releaser
 * thread then drops the pages of the debug sections that unit read from
 * the process's resident set (struct mapped_section, struct releaser).
 * Only pages of libelf's read-only mapping of the file are dropped: they
 * come back from the file if read again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf_loader_priv.h"
#include "elf_symtab.h"
#include "str_canon.h"
#include "tuning.h"

/* ---------------------------------------------------------------------- */
/* mapping                                                                */

/* a truncated file: headers or section contents past its end */
int loader__check_size(struct dwarf_loader *dl, GElf_Ehdr *eh)
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
			const char *name =
				shstrndx_ok ? elf_strptr(dl->elf, shstrndx, sh.sh_name) : NULL;

			pr_warn("%s: %s: extends past the end of the file (truncated?)\n", dl->path,
				name ? name : "section");
			return -EINVAL;
		}
	}
	return 0;
}

/* a debug section's contents, decompressed; NULL (and one line) if unreadable */
static Elf_Data *section_contents(const struct dwarf_loader *dl, Elf_Scn *scn, const GElf_Shdr *sh,
				  const char *name)
{
	Elf_Data *data;

	if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
		pr_warn("%s: %s: cannot decompress: %s\n", dl->path, name, elf_errmsg(-1));
		return NULL;
	}
	data = elf_getdata(scn, NULL);
	if (!data)
		pr_warn("%s: %s: cannot read: %s\n", dl->path, name, elf_errmsg(-1));
	return data;
}

int loader__map_sections(struct dwarf_loader *dl, GElf_Ehdr *eh)
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
	dl->secs.swap =
		(eh->e_ident[EI_DATA] == ELFDATA2MSB) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
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
			data = section_contents(dl, scn, &sh, name);
			if (!data)
				return -EINVAL;
			dl->types_secs.info.data = data->d_buf;
			dl->types_secs.info.size = data->d_size;
			continue;
		}
		for (i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
			struct dr_section *s = (void *)((char *)&dl->secs + wanted[i].off);

			if (strcmp(name, wanted[i].name) || sh.sh_type == SHT_NOBITS)
				continue;
			data = section_contents(dl, scn, &sh, name);
			if (!data)
				return -EINVAL;
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
int loader__relocate(struct dwarf_loader *dl)
{
	struct dr_section *secs[] = { &dl->secs.info,	  &dl->secs.abbrev,	 &dl->secs.str,
				      &dl->secs.line_str, &dl->secs.str_offsets, &dl->secs.addr,
				      &dl->secs.loc,	  &dl->secs.loclists };
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
	err = elf_reloc__layout(dl->elf, layout, nr_secs);
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

/* ---------------------------------------------------------------------- */
/* page release                                                           */

void section_map__init(struct mapped_section *ms, const struct dr_section *sec)
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
int releaser__start(struct dwarf_loader *dl)
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
void releaser__stop(struct dwarf_loader *dl)
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
