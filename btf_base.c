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
 * here, once (an open-addressing table of offsets, each slot's spare bits
 * holding some of the string's hash, so that a probe reads a string only
 * where it likely matches), for btf_raw's look-ups.
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
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf_base.h"
#include "btf_check.h"
#include "d2b_util.h"

struct btf_base {
	const void *data; /* the raw BTF: header, types, strings */
	size_t size;
	const uint8_t *types; /* its type section, in the host's byte order */
	struct btf_check_ids ids; /* [id]: type id's record offset in .types, and kind */
	const char *strs; /* its string section */
	uint32_t str_len, type_cnt;
	/*
	 * by hash: 0 free, or a string's offset + 1 in the bits of off_mask
	 * and its hash in the others (where the section is under 16 MiB)
	 */
	uint32_t *slots; /* (d2b_map_array, slots_size bytes) */
	size_t slots_size;
	uint32_t mask, off_mask;
	int ptr_size; /* for libbpf: 4 or 8, or 0 (libbpf guesses) */
	struct btf *btf; /* libbpf's copy, once asked for; or NULL */
	void *types_copy; /* .types where it is a copy; or NULL */
	/* what holds .data: the file's mapping (elf, fd) or a buffer read (buf) */
	Elf *elf;
	int fd;
	void *buf;
};

/* the slot of the string at @off, of hash @h, where the offsets take @off_mask */
static uint32_t slot_of(uint32_t off_mask, uint32_t off, uint32_t h)
{
	return (off + 1) | (h & ~off_mask);
}

/* whether @slot holds the string @s, of hash @h */
static bool slot_holds(const struct btf_base *b, uint32_t slot, const char *s, uint32_t h)
{
	return !((slot ^ h) & ~b->off_mask) && !strcmp(b->strs + (slot & b->off_mask) - 1, s);
}

/*
 * The index being filled: its slots and masks in locals of their own,
 * which the stores to the slots cannot change as they could a struct
 * btf_base's (a vmlinux has some 10^5 strings)
 */
struct str_index {
	uint32_t *slots;
	uint32_t mask, off_mask;
};

/* a string found, filed once the slots of the STRS_AHEAD after it are fetched */
struct str_ahead {
	uint32_t off, h;
};

#define STRS_AHEAD 8

/* the string at @off, of hash @h, in the first free slot from its own */
static void str_file(struct str_index x, struct str_ahead a)
{
	uint32_t i;

	for (i = a.h & x.mask; x.slots[i]; i = (i + 1) & x.mask)
		;
	x.slots[i] = slot_of(x.off_mask, a.off, a.h);
}

/*
 * Every string of @strs (@len bytes, ending with a NUL) in @x's slots, each
 * hashed where it is found, its first slot fetched, and filed STRS_AHEAD
 * strings later (the slots are read at random, each fetched meanwhile).
 * -EAGAIN where the slots would be over half full.
 */
static int strs_file(struct str_index x, const char *strs, uint32_t len)
{
	struct str_ahead ahead[STRS_AHEAD];
	uint32_t n = 0, off, slen, k, max = (x.mask + 1) / 2;

	for (off = 0; off < len; off += slen + 1) {
		struct str_ahead *a = &ahead[n % STRS_AHEAD];

		slen = (uint32_t)strlen(strs + off);
		if (!slen) /* ("" is 0, found without the index) */
			continue;
		if (n >= STRS_AHEAD)
			str_file(x, *a);
		if (++n > max)
			return -EAGAIN;
		a->off = off;
		a->h = d2b_mem_hash(strs + off, slen);
		__builtin_prefetch(&x.slots[a->h & x.mask]);
	}
	for (k = n > STRS_AHEAD ? n - STRS_AHEAD : 0; k < n; k++)
		str_file(x, ahead[k % STRS_AHEAD]);
	return 0;
}

/*
 * Every string of the section in the slots, by hash: each in the first free
 * slot from its own, filed in the section's order, so that of two copies of
 * a string a look-up meets the first first, as libbpf's index keeps it.
 * Sized for twice as many strings as types, a quarter full where there are
 * as many (a vmlinux has about as many: 2 MiB, one huge page, for 7.2's
 * 119,000), so that a probe seldom reads a second slot; doubled, from the
 * start, where over half would be full.
 */
static int strs_index(struct btf_base *b)
{
	uint32_t slots = 1024;
	int err;

	b->off_mask = b->str_len < 0xffffff ? 0xffffff : 0xffffffff;
	while (slots < 4ull * b->type_cnt)
		slots *= 2;
	for (;;) {
		/* (zeroed, in a huge page where there is one: btf_base__new's largest array) */
		b->slots = d2b_map_array(slots * sizeof(*b->slots), &b->slots_size);
		if (!b->slots)
			return -ENOMEM;
		b->mask = slots - 1;
		/* (the section ends with a NUL: btf_check) */
		err = strs_file((struct str_index){ b->slots, b->mask, b->off_mask }, b->strs,
				b->str_len);
		if (err != -EAGAIN)
			return err;
		munmap(b->slots, b->slots_size);
		b->slots = NULL;
		if (slots > UINT32_MAX / 2)
			return -ENOMEM;
		slots *= 2;
	}
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

	*err = -ENOMEM;
	if (!b)
		return NULL;
	b->fd = -1;
	b->data = data;
	b->size = size;
	*err = btf_check__raw(data, size, &b->ids, why, why_size);
	b->type_cnt = b->ids.nr + 1;
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
	btf_check_ids__free(&b->ids);
	if (b->slots)
		munmap(b->slots, b->slots_size);
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

int btf_base__find_str_hashed(const struct btf_base *b, const char *s, uint32_t h)
{
	uint32_t i;

	for (i = h & b->mask; b->slots[i]; i = (i + 1) & b->mask)
		if (slot_holds(b, b->slots[i], s, h))
			return (int)((b->slots[i] & b->off_mask) - 1);
	return -ENOENT;
}

int btf_base__find_str(const struct btf_base *b, const char *s)
{
	uint32_t len;

	return *s ? btf_base__find_str_hashed(b, s, d2b_str_hash(s, &len)) : 0;
}

const struct btf_type *btf_base__type(const struct btf_base *b, uint32_t id)
{
	return (const struct btf_type *)(b->types + b->ids.offs[id]);
}

/*
 * Four ids a step (GCC vectors: the offsets widened and added to the
 * section's address in a vector's lanes, stored as the pointers' bits)
 */
void btf_base__types(const struct btf_base *b, const struct btf_type **types)
{
	typedef uint32_t offs4 __attribute__((vector_size(16)));
	typedef uintptr_t addrs4 __attribute__((vector_size(4 * sizeof(uintptr_t))));
	const uint32_t *offs = b->ids.offs;
	const uint8_t *at = b->types;
	const addrs4 base = { (uintptr_t)at, (uintptr_t)at, (uintptr_t)at, (uintptr_t)at };
	uint32_t id, n = b->type_cnt;

	_Static_assert(sizeof(*types) == sizeof(uintptr_t), "a pointer's bits in a uintptr_t");
	for (id = 1; id + 4 <= n; id += 4) {
		offs4 o;
		addrs4 a;

		memcpy(&o, offs + id, sizeof(o));
		a = __builtin_convertvector(o, addrs4) + base;
		memcpy(types + id, &a, sizeof(a));
	}
	for (; id < n; id++)
		types[id] = (const struct btf_type *)(at + offs[id]);
}

const uint8_t *btf_base__kinds(const struct btf_base *b)
{
	return b->ids.kinds;
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
