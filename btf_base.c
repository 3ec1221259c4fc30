// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_base - the base BTF of split BTF, read where it lies.
 *
 * libbpf 1.1 finds a string of split BTF in its base first, and to find
 * one it makes the base modifiable: it copies the base's types and
 * strings and hashes every string, one allocation each. For a kernel
 * module that is most of the work (callgrind on 7.2's ah4.ko: 115 M of
 * 249 M instructions, copying and freeing). So libbpf never builds a
 * module's split BTF: btf_raw does, btf_dedup deduplicates it and
 * btf_raw__raw_data writes it. Nor does libbpf read the base: btf__new
 * would copy it (5 MB for a vmlinux) and walk every type once more. The
 * base is checked by btf_check, which gives each type's record offset;
 * its types are read in the file's mapping (in a copy only where they are
 * of the other byte order, or misaligned), and its strings are indexed
 * here, once (an open-addressing table of offsets), for btf_raw's
 * look-ups.
 *
 * --exact in 1.30 mode keeps libbpf's own path: the split BTF built by
 * libbpf on its own copy of the base (btf_base__btf, made when asked) and
 * deduplicated by btf__dedup. The tests compare the two on every module
 * they have.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf_base.h"
#include "btf_check.h"
#include "d2b_util.h"

struct btf_base {
	const void *data; /* the raw BTF: header, types, strings */
	size_t size;
	const uint8_t *types; /* its type section, in the host's byte order */
	const uint32_t *offs; /* [id]: type id's record offset in .types, 0 < id < type_cnt */
	const char *strs; /* its string section */
	uint32_t str_len, type_cnt;
	uint32_t *slots; /* string offset + 1 by hash; 0: free */
	uint32_t mask;
	int ptr_size; /* for libbpf: 4 or 8, or 0 (libbpf guesses) */
	struct btf *btf; /* libbpf's copy, once asked for; or NULL */
	void *types_copy; /* .types where it is a copy; or NULL */
	/* what holds .data: the file's mapping (elf, fd) or a buffer read (buf) */
	Elf *elf;
	int fd;
	void *buf;
};

static int strs_index(struct btf_base *b)
{
	uint32_t nr = 0, slots = 1024, off, i, len;
	const char *p = b->strs, *end = b->strs + b->str_len;

	/* half full at most: the strings counted first (one NUL each) */
	while (p < end && (p = memchr(p, 0, (size_t)(end - p)))) {
		nr++;
		p++;
	}
	while (slots < 2ull * nr)
		slots *= 2;
	b->slots = calloc(slots, sizeof(*b->slots));
	if (!b->slots)
		return -ENOMEM;
	b->mask = slots - 1;
	for (off = 0; off < b->str_len; off += len + 1) {
		uint32_t h = d2b_str_hash(b->strs + off, &len);

		for (i = h & b->mask; b->slots[i]; i = (i + 1) & b->mask)
			if (!strcmp(b->strs + b->slots[i] - 1, b->strs + off))
				break;
		if (!b->slots[i]) /* (else a later copy: the first stays) */
			b->slots[i] = off + 1;
	}
	return 0;
}

/*
 * The sections of b->data, which btf_check passed: of the other byte
 * order, the header and the type section are swapped word for word
 * (d2b_bswap32_words), the types in a copy.
 */
static int sections_read(struct btf_base *b)
{
	struct btf_header hdr; /* (copied: an ELF section may be misaligned) */
	const uint8_t *types;
	bool swap;

	memcpy(&hdr, b->data, sizeof(hdr));
	swap = hdr.magic != BTF_MAGIC;
	if (swap)
		d2b_bswap32_words(&hdr.hdr_len, 5);
	types = (const uint8_t *)b->data + hdr.hdr_len + hdr.type_off;
	b->str_len = hdr.str_len;
	b->strs = (const char *)b->data + hdr.hdr_len + hdr.str_off;
	b->types = types;
	if (!swap && !((uintptr_t)types % 4))
		return 0;
	b->types_copy = malloc(hdr.type_len ? hdr.type_len : 1);
	if (!b->types_copy)
		return -ENOMEM;
	memcpy(b->types_copy, types, hdr.type_len);
	if (swap)
		d2b_bswap32_words(b->types_copy, hdr.type_len / 4);
	b->types = b->types_copy;
	return 0;
}

struct btf_base *btf_base__new(const void *data, size_t size, char *why, size_t why_size, int *err)
{
	struct btf_base *b = calloc(1, sizeof(*b));
	uint32_t *offs = NULL, nr = 0;

	*err = -ENOMEM;
	if (!b)
		return NULL;
	b->fd = -1;
	b->data = data;
	b->size = size;
	*err = btf_check__raw(data, size, &offs, &nr, why, why_size);
	b->offs = offs;
	b->type_cnt = nr + 1;
	if (!*err)
		*err = sections_read(b);
	if (!*err)
		*err = strs_index(b);
	if (*err) {
		btf_base__free(b);
		return NULL;
	}
	return b;
}

/* @b made on @size bytes at @data for @path, with the one line of its failure */
static struct btf_base *base_new(const char *path, const void *data, size_t size, bool raw,
				 int *err)
{
	struct btf_base *b;
	char why[160];

	b = btf_base__new(data, size, why, sizeof(why), err);
	if (b)
		return b;
	if (*err == -ENOMSG && raw)
		pr_warn("%s: cannot read base BTF (--btf_base: raw BTF, or an ELF file with .BTF): "
			"neither\n",
			path);
	else if (*err == -ENOMEM)
		pr_warn("%s: cannot read base BTF (--btf_base): %s\n", path, strerror(ENOMEM));
	else
		pr_warn("%s: invalid base BTF (--btf_base): %s\n", path, why);
	return NULL;
}

/*
 * An ELF file's .BTF is read where libelf maps it, never copied: a kernel
 * build reads the vmlinux base (5 MB) once per module.
 */
struct btf_base *btf_base__open(const char *path, int *err)
{
	struct btf_base *b = NULL;
	Elf_Scn *scn = NULL;
	Elf *elf = NULL;
	void *buf = NULL;
	struct stat st;
	size_t shstrndx;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		*err = -errno;
		pr_warn("%s: cannot read base BTF (--btf_base): %s\n", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		*err = -EINVAL;
		pr_warn("%s: cannot read base BTF (--btf_base): not a regular file\n", path);
		goto out;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		if (elf_getshdrstrndx(elf, &shstrndx)) {
			*err = -EINVAL;
			pr_warn("%s: cannot read base BTF (--btf_base): %s\n", path,
				elf_errmsg(-1));
			goto out;
		}
		while ((scn = elf_nextscn(elf, scn))) {
			const char *name;
			Elf_Data *data;
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) ||
			    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".BTF"))
				continue;
			data = sh.sh_type == SHT_NOBITS ? NULL : elf_rawdata(scn, NULL);
			if (!data || !data->d_size)
				break;
			b = base_new(path, data->d_buf, data->d_size, false, err);
			if (b) /* as btf__parse sets it */
				b->ptr_size = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
			goto out;
		}
		*err = -ENOENT;
		pr_warn("%s: no .BTF section to use as base BTF (--btf_base)\n", path);
		goto out;
	}
	/* raw BTF, or what is neither */
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		*err = -ENOMEM;
		pr_warn("%s: cannot read base BTF (--btf_base): %s\n", path, strerror(ENOMEM));
		goto out;
	}
	if (pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
		*err = -EIO;
		pr_warn("%s: cannot read base BTF (--btf_base): short read\n", path);
	} else {
		b = base_new(path, buf, (size_t)st.st_size, true, err);
	}
out:
	if (b) { /* (it holds what holds its bytes) */
		b->elf = elf;
		b->fd = fd;
		b->buf = buf;
		return b;
	}
	free(buf);
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return NULL;
}

void btf_base__free(struct btf_base *b)
{
	if (!b)
		return;
	btf__free(b->btf);
	free(b->types_copy);
	free((void *)b->offs);
	free(b->slots);
	elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
	free(b->buf);
	free(b);
}

struct btf *btf_base__btf(struct btf_base *b, int *err)
{
	if (b->btf)
		return b->btf;
	b->btf = btf__new(b->data, (uint32_t)b->size);
	if (!b->btf) {
		*err = errno ? -errno : -EINVAL;
		return NULL;
	}
	if (b->ptr_size)
		btf__set_pointer_size(b->btf, (size_t)b->ptr_size);
	return b->btf;
}

int btf_base__find_str(const struct btf_base *b, const char *s)
{
	uint32_t len, i;

	if (!*s)
		return 0;
	for (i = d2b_str_hash(s, &len) & b->mask; b->slots[i]; i = (i + 1) & b->mask)
		if (!strcmp(b->strs + b->slots[i] - 1, s))
			return (int)(b->slots[i] - 1);
	return -ENOENT;
}

const struct btf_type *btf_base__type(const struct btf_base *b, uint32_t id)
{
	return (const struct btf_type *)(b->types + b->offs[id]);
}

const char *btf_base__str(const struct btf_base *b, uint32_t off)
{
	return off < b->str_len ? b->strs + off : NULL;
}

uint32_t btf_base__type_cnt(const struct btf_base *b)
{
	return b->type_cnt;
}

uint32_t btf_base__str_len(const struct btf_base *b)
{
	return b->str_len;
}
