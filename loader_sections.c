// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf_loader's debug sections: checked against the file's size, mapped
 * with libelf, decompressed where compressed (zlib, GNU's .zdebug_X and
 * zstd: see struct sec_contents), a relocatable file's relocated into private
 * copies (in place where decompressed), and their pages dropped from the
 * resident set as the units that read them are done.
 *
 * Memory: the encoder's writer thread calls dwarf_loader__release_cu() for
 * each unit it is done with, in unit order, and the loader's releaser
 * thread then drops the pages of the debug sections that unit read from
 * the process's resident set (struct mapped_section, struct releaser).
 * Only pages of libelf's read-only mapping of the file are dropped: they
 * come back from the file if read again.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "dwarf_loader_priv.h"
#include "elf_symtab.h"
#include "str_canon.h"
#include "tuning.h"

#ifndef ELFCOMPRESS_ZSTD /* the gABI's; glibc 2.36's <elf.h> predates it */
#define ELFCOMPRESS_ZSTD 2
#endif

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

/*
 * Compressed debug sections, in the three forms pahole's libdw reads:
 * SHF_COMPRESSED with ELFCOMPRESS_ZLIB (libelf's elf_compress), with
 * ELFCOMPRESS_ZSTD (libzstd here: Debian 12's libelf 0.188 predates zstd),
 * and GNU's .zdebug_X ("ZLIB", the size in 8 big-endian bytes, a zlib
 * stream; libelf's elf_compress_gnu), read as .debug_X. Each is
 * decompressed into a private heap buffer, libelf's or the loader's
 * (dl->bufs), which a relocatable file's relocations then change in place:
 * never a file mapping, so never a page dropped (file_mapped). A bad
 * header, a bad stream, a size other than the header's or an unknown
 * ch_type is an error naming the section (where libdw skips the section).
 */
struct sec_contents {
	const uint8_t *data;
	size_t size;
	uint8_t *buf; /* malloc'd here (ELFCOMPRESS_ZSTD), or NULL */
	bool private; /* decompressed: a heap buffer, relocated in place */
};

/* the Elf32_Chdr or Elf64_Chdr that starts @raw, in the file's class and byte order */
static int chdr_read(const struct dwarf_loader *dl, const Elf_Data *raw, uint32_t *type,
		     uint64_t *size, size_t *hdr_len)
{
	bool is64 = gelf_getclass(dl->elf) == ELFCLASS64;
	uint32_t w[2]; /* ch_type, then ch_reserved (64-bit) or ch_size (32-bit) */
	uint64_t size64;

	*hdr_len = is64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
	if (!raw->d_buf || raw->d_size < *hdr_len)
		return -EINVAL;
	memcpy(w, raw->d_buf, sizeof(w));
	if (is64)
		memcpy(&size64, (const uint8_t *)raw->d_buf + 8, sizeof(size64));
	if (dl->secs.swap) {
		w[0] = __builtin_bswap32(w[0]);
		w[1] = __builtin_bswap32(w[1]);
		size64 = is64 ? __builtin_bswap64(size64) : 0;
	}
	*type = w[0];
	*size = is64 ? size64 : w[1];
	return 0;
}

/* an ELFCOMPRESS_ZSTD section's @ch_size bytes, exactly, into a new buffer, c->buf */
static int zstd_contents(const struct dwarf_loader *dl, const char *name, const Elf_Data *raw,
			 size_t hdr_len, uint64_t ch_size, struct sec_contents *c)
{
	const uint8_t *src = (const uint8_t *)raw->d_buf + hdr_len;
	size_t len = raw->d_size - hdr_len, n;
	unsigned long long framed = ZSTD_getFrameContentSize(src, len);
	uint8_t *buf;

	/* one frame that gives its size: a ch_size that lies is refused unallocated */
	if (framed != ZSTD_CONTENTSIZE_UNKNOWN && framed != ZSTD_CONTENTSIZE_ERROR &&
	    ZSTD_findFrameCompressedSize(src, len) == len && framed != ch_size) {
		pr_warn("%s: %s: cannot decompress: ch_size is %" PRIu64
			", its zstd frame holds %llu bytes\n",
			dl->path, name, ch_size, framed);
		return -EINVAL;
	}
	if (ch_size >= SIZE_MAX || !(buf = malloc(ch_size ? ch_size : 1))) {
		pr_warn("%s: %s: cannot decompress: %" PRIu64 " bytes: %s\n", dl->path, name,
			ch_size, strerror(ENOMEM));
		return -ENOMEM;
	}
	n = ZSTD_decompress(buf, ch_size, src, len);
	if (ZSTD_isError(n) || n != ch_size) {
		pr_warn("%s: %s: cannot decompress: %s%s\n", dl->path, name,
			ZSTD_isError(n) ? "zstd: " : "",
			ZSTD_isError(n) ? ZSTD_getErrorName(n) : "fewer bytes than its ch_size");
		free(buf);
		return -EINVAL;
	}
	*c = (struct sec_contents){ .data = buf, .size = ch_size, .buf = buf, .private = true };
	return 0;
}

/* an SHF_COMPRESSED section's contents: zstd here, zlib by libelf */
static int chdr_contents(const struct dwarf_loader *dl, Elf_Scn *scn, const char *name,
			 struct sec_contents *c)
{
	Elf_Data *raw = elf_rawdata(scn, NULL);
	uint64_t ch_size;
	uint32_t type;
	size_t hdr_len;

	if (!raw) {
		pr_warn("%s: %s: cannot read: %s\n", dl->path, name, elf_errmsg(-1));
		return -EINVAL;
	}
	if (chdr_read(dl, raw, &type, &ch_size, &hdr_len)) {
		pr_warn("%s: %s: cannot decompress: %zu bytes, too short for a compression header\n",
			dl->path, name, raw->d_size);
		return -EINVAL;
	}
	if (type == ELFCOMPRESS_ZSTD)
		return zstd_contents(dl, name, raw, hdr_len, ch_size, c);
	if (type != ELFCOMPRESS_ZLIB) {
		pr_warn("%s: %s: cannot decompress: unknown compression type %" PRIu32 "\n",
			dl->path, name, type);
		return -EINVAL;
	}
	/* libelf checks the stream gives ch_size bytes exactly */
	if (elf_compress(scn, 0, 0) < 0) {
		pr_warn("%s: %s: cannot decompress: %s\n", dl->path, name, elf_errmsg(-1));
		return -EINVAL;
	}
	c->private = true;
	return 0;
}

/*
 * A debug section's contents, decompressed if SHF_COMPRESSED or @gnu (a
 * .zdebug_X section, @name), into @c; or -errno, with one line naming the
 * file and the section.
 */
static int section_contents(const struct dwarf_loader *dl, Elf_Scn *scn, const GElf_Shdr *sh,
			    const char *name, bool gnu, struct sec_contents *c)
{
	Elf_Data *data;
	int err;

	*c = (struct sec_contents){ 0 };
	if (sh->sh_flags & SHF_COMPRESSED) {
		err = chdr_contents(dl, scn, name, c);
		if (err || c->buf)
			return err;
	} else if (gnu) {
		if (elf_compress_gnu(scn, 0, 0) < 0) {
			pr_warn("%s: %s: cannot decompress: %s\n", dl->path, name, elf_errmsg(-1));
			return -EINVAL;
		}
		c->private = true;
	}
	data = elf_getdata(scn, NULL);
	if (!data) {
		pr_warn("%s: %s: cannot read: %s\n", dl->path, name, elf_errmsg(-1));
		return -EINVAL;
	}
	c->data = data->d_buf;
	c->size = data->d_size;
	return 0;
}

/* @s, dr_sections member @slot ([LOADER_NR_SECS]: .debug_types), is @c */
static void section_set(struct dwarf_loader *dl, unsigned int slot, struct dr_section *s,
			const struct sec_contents *c)
{
	/* (a second section of the same name replaces the first, as libdw's) */
	free(dl->bufs[slot]);
	dl->bufs[slot] = c->buf;
	if (slot < LOADER_NR_SECS)
		dl->sec_private[slot] = c->private;
	s->data = c->data;
	s->size = c->size;
}

/* the DWARF name of section @name: .debug_X for GNU's compressed .zdebug_X (@gnu) */
static const char *dwarf_section_name(const char *name, char *buf, size_t len, bool *gnu)
{
	*gnu = !strncmp(name, ".zdebug_", 8) && strlen(name) + 1 < len;
	if (!*gnu)
		return name;
	snprintf(buf, len, ".debug_%s", name + 8);
	return buf;
}

int loader__map_sections(struct dwarf_loader *dl, GElf_Ehdr *eh)
{
	static const struct {
		const char *name;
		size_t off;
	} wanted[LOADER_NR_SECS] = {
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
	int err;

	if (elf_getshdrstrndx(dl->elf, &shstrndx)) {
		pr_warn("%s: cannot find the section name table: %s\n", dl->path, elf_errmsg(-1));
		return -EINVAL;
	}
	dl->secs.swap =
		(eh->e_ident[EI_DATA] == ELFDATA2MSB) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	while ((scn = elf_nextscn(dl->elf, scn))) {
		struct sec_contents c;
		char buf[32];
		GElf_Shdr sh;
		const char *name, *dname;
		bool gnu;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(dl->elf, shstrndx, sh.sh_name))) {
			pr_warn("%s: section %zu: cannot read its header or name: %s\n", dl->path,
				elf_ndxscn(scn), elf_errmsg(-1));
			return -EINVAL;
		}
		dname = dwarf_section_name(name, buf, sizeof(buf), &gnu);
		if (!strcmp(dname, ".debug_types") && sh.sh_size && sh.sh_type != SHT_NOBITS) {
			/* a relocatable file has one per COMDAT group, to relocate */
			if (eh->e_type == ET_REL || dl->types_secs.info.data) {
				pr_warn("%s: .debug_types: type units in a relocatable file "
					"are not supported\n",
					dl->path);
				return -ENOTSUP;
			}
			err = section_contents(dl, scn, &sh, name, gnu, &c);
			if (err)
				return err;
			section_set(dl, LOADER_NR_SECS, &dl->types_secs.info, &c);
			continue;
		}
		for (i = 0; i < LOADER_NR_SECS; i++) {
			struct dr_section *s = (void *)((char *)&dl->secs + wanted[i].off);

			if (strcmp(dname, wanted[i].name) || sh.sh_type == SHT_NOBITS)
				continue;
			err = section_contents(dl, scn, &sh, name, gnu, &c);
			if (err)
				return err;
			section_set(dl, i, s, &c);
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
 * Is [@p, @p + @size) inside one read-only mapping of a file? (Asked of
 * the file's image once, libelf's whole file.)
 */
static bool range_mapped(const uint8_t *p, size_t size)
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

void loader__find_image(struct dwarf_loader *dl)
{
	dl->image = (const uint8_t *)elf_rawfile(dl->elf, &dl->image_size);
	dl->image_mapped = dl->image && dl->image_size && range_mapped(dl->image, dl->image_size);
}

/*
 * Are [@p, @p + @size) bytes of the file's own read-only mapping? libelf
 * maps the file when it can; when mmap fails it reads the file into
 * memory, and relocated or decompressed sections are copies: MADV_DONTNEED
 * must reach none of those.
 */
static bool file_mapped(const struct dwarf_loader *dl, const uint8_t *p, size_t size)
{
	return dl->image_mapped && p >= dl->image && size <= dl->image_size &&
	       (size_t)(p - dl->image) <= dl->image_size - size;
}

/*
 * Drop the whole pages of [@p, @p + @size) from the resident set if they
 * are a file's read-only mapping (they come back from the file if read
 * again): the relocations, and the sections copied to be relocated, once
 * applied.
 */
static void file_pages_drop(const struct dwarf_loader *dl, const void *p, size_t size)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + size) & ~(page - 1);

	if (end > start && file_mapped(dl, p, size))
		madvise((void *)start, end - start, MADV_DONTNEED);
}

/*
 * A relocatable file's DWARF points at its sections through relocations:
 * apply them, with libdwfl's section layout, to private copies of the debug
 * sections (to the decompressed bytes themselves, already private), as
 * libdwfl does for pahole. Those from .debug_info and
 * .debug_str_offsets into .debug_str are made to point at the first string
 * with the same contents (str_canon.h), so that names compare by address
 * as in a linked file.
 */
int loader__relocate(struct dwarf_loader *dl)
{
	struct dr_section *secs[LOADER_NR_SECS] = { &dl->secs.info,	   &dl->secs.abbrev,
						    &dl->secs.str,	   &dl->secs.line_str,
						    &dl->secs.str_offsets, &dl->secs.addr,
						    &dl->secs.loc,	   &dl->secs.loclists };
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
		for (i = 0; i < LOADER_NR_SECS; i++) {
			struct dr_section *t = secs[i];
			uint8_t *copy;

			if (!t->data || dl->sec_index[i] != sh.sh_info)
				continue;
			/* one copy per section, however many relocation sections name
			 * it; none of one decompressed, already a private buffer */
			if (!dl->sec_private[i]) {
				if (!(copy = malloc(t->size ? t->size : 1))) {
					err = -ENOMEM;
					break;
				}
				memcpy(copy, t->data, t->size);
				file_pages_drop(dl, t->data, t->size);
				t->data = copy;
				dl->bufs[i] = copy;
				dl->sec_private[i] = true;
			}
			err = elf_reloc__apply(
				dl->path, dl->elf, &dl->machine, scn, &sh, (uint8_t *)t->data,
				t->size, layout, nr_secs, dl->secs.swap,
				t == &dl->secs.info || t == &dl->secs.str_offsets ? strs : NULL,
				dl->sec_index[2]);
			if (!err) {
				Elf_Data *rdata = elf_getdata(scn, NULL);

				file_pages_drop(dl, rdata->d_buf, rdata->d_size);
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

void section_map__init(const struct dwarf_loader *dl, struct mapped_section *ms,
		       const struct dr_section *sec)
{
	ms->sec = sec;
	ms->mapped = sec->data && sec->size && file_mapped(dl, sec->data, sec->size);
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
