// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_base - the base BTF of split BTF, read without libbpf copying it.
 *
 * libbpf 1.1 finds a string of split BTF in its base first, and to find
 * one it makes the base modifiable: it copies the base's types and
 * strings and hashes every string, one allocation each. For a kernel
 * module that is most of the work (callgrind on 7.2's ah4.ko: 115 M of
 * 249 M instructions, copying and freeing). So the encoder does not give
 * libbpf the base. Its strings are indexed here, once (an open-addressing
 * table of offsets), and libbpf builds the split BTF on a stand-in: as
 * many types (FWDs) and a string section as long, so every id and string
 * offset of the split BTF is the same, holding one long string that no
 * name equals, so that libbpf's look-ups there find nothing. The encoder
 * then never hands libbpf a name the base holds (btf_base__find_str tells
 * it which), and reads base types and strings from the real base.
 *
 * --exact keeps libbpf's own path: the split BTF built on the real base.
 * The tests compare the two on every module they have.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "btf_base.h"
#include "btf_raw.h"
#include "d2b_util.h"

struct btf_base {
	struct btf *base;
	struct btf *stand_in; /* or NULL: libbpf gets the base */
	const char *strs; /* the base's string section */
	char *strs_copy; /* without a stand-in: strs, copied (libbpf moves its own) */
	uint32_t str_len, type_cnt;
	uint32_t *slots; /* string offset + 1 by hash; 0: free */
	uint32_t mask;
};

/* the base's string section: its header read in either byte order */
static int strs_read(struct btf_base *b)
{
	const struct btf_header *hdr;
	uint32_t size;

	hdr = btf__raw_data(b->base, &size);
	if (!hdr || size < sizeof(*hdr))
		return -ENOMEM;
	b->str_len = hdr->magic == BTF_MAGIC ? hdr->str_len : __builtin_bswap32(hdr->str_len);
	b->strs = btf__str_by_offset(b->base, 0);
	return b->strs ? 0 : -EINVAL;
}

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
 * As many FWDs as the base has types, and a string section as long. Built
 * in a mapping of its own: libbpf copies it, and it goes back at once
 * rather than staying in the malloc arena, a small module's peak.
 */
static struct btf *stand_in_new(const struct btf_base *b)
{
	size_t types = (size_t)(b->type_cnt - 1) * sizeof(struct btf_type);
	size_t size = sizeof(struct btf_header) + types + b->str_len;
	struct btf_header *hdr;
	struct btf_type *t;
	struct btf *btf;
	char *strs;
	uint32_t i;

	hdr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hdr == MAP_FAILED)
		return NULL;
	*hdr = (struct btf_header){ .magic = BTF_MAGIC,
				    .version = BTF_VERSION,
				    .hdr_len = sizeof(*hdr),
				    .type_len = (uint32_t)types,
				    .str_off = (uint32_t)types,
				    .str_len = b->str_len };
	t = (struct btf_type *)(hdr + 1);
	for (i = 0; i + 1 < b->type_cnt; i++)
		t[i].info = BTF_RAW_INFO(BTF_KIND_FWD, 0, 0);
	strs = (char *)t + types;
	if (b->str_len > 2)
		memset(strs + 1, 'a', b->str_len - 2);
	btf = btf__new(hdr, (uint32_t)size);
	munmap(hdr, size);
	return btf;
}

struct btf_base *btf_base__new(struct btf *base, bool stand_in, int *err)
{
	struct btf_base *b = calloc(1, sizeof(*b));

	*err = -ENOMEM;
	if (!b)
		return NULL;
	b->base = base;
	b->type_cnt = btf__type_cnt(base);
	*err = strs_read(b);
	/*
	 * Without a stand-in libbpf looks strings up in the base: it makes it
	 * modifiable, and each look-up may move its strings (libbpf stages the
	 * string it looks for at their end). So they are read from a copy.
	 */
	if (!*err && !stand_in) {
		b->strs_copy = malloc(b->str_len ? b->str_len : 1);
		if (b->strs_copy)
			b->strs = memcpy(b->strs_copy, b->strs, b->str_len);
		else
			*err = -ENOMEM;
	}
	if (!*err)
		*err = strs_index(b);
	if (!*err && stand_in) {
		b->stand_in = stand_in_new(b);
		*err = b->stand_in ? 0 : -ENOMEM;
	}
	if (*err) {
		btf_base__free(b);
		return NULL;
	}
	return b;
}

void btf_base__free(struct btf_base *b)
{
	if (!b)
		return;
	btf__free(b->stand_in);
	free(b->strs_copy);
	free(b->slots);
	free(b);
}

struct btf *btf_base__btf(const struct btf_base *b)
{
	return b->base;
}

struct btf *btf_base__libbpf(const struct btf_base *b)
{
	return b->stand_in ? b->stand_in : b->base;
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
	return btf__type_by_id(b->base, id);
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
