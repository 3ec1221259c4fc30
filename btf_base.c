// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_base - the base BTF of split BTF, read without libbpf copying it.
 *
 * libbpf 1.1 finds a string of split BTF in its base first, and to find
 * one it makes the base modifiable: it copies the base's types and
 * strings and hashes every string, one allocation each. For a kernel
 * module that is most of the work (callgrind on 7.2's ah4.ko: 115 M of
 * 249 M instructions, copying and freeing). So libbpf never builds a
 * module's split BTF: btf_raw does, btf_dedup deduplicates it and
 * btf_raw__raw_data writes it. The base's strings are indexed here, once
 * (an open-addressing table of offsets), for btf_raw's look-ups, and its
 * types and strings are read where they are.
 *
 * --exact keeps libbpf's own path: the split BTF built by libbpf on the
 * base and deduplicated by btf__dedup. The tests compare the two on every
 * module they have.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf_base.h"
#include "btf_raw.h"
#include "d2b_util.h"

struct btf_base {
	struct btf *base;
	const char *strs; /* the base's string section */
	char *strs_copy; /* libbpf splits: strs, copied (libbpf moves its own) */
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

struct btf_base *btf_base__new(struct btf *base, bool libbpf_splits, int *err)
{
	struct btf_base *b = calloc(1, sizeof(*b));

	*err = -ENOMEM;
	if (!b)
		return NULL;
	b->base = base;
	b->type_cnt = btf__type_cnt(base);
	*err = strs_read(b);
	/*
	 * Split BTF built by libbpf looks its strings up in the base: libbpf
	 * makes it modifiable, and each look-up may move its strings (libbpf
	 * stages the string it looks for at their end). So they are read from
	 * a copy.
	 */
	if (!*err && libbpf_splits) {
		b->strs_copy = malloc(b->str_len ? b->str_len : 1);
		if (b->strs_copy)
			b->strs = memcpy(b->strs_copy, b->strs, b->str_len);
		else
			*err = -ENOMEM;
	}
	if (!*err)
		*err = strs_index(b);
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
	free(b->strs_copy);
	free(b->slots);
	free(b);
}

struct btf *btf_base__btf(const struct btf_base *b)
{
	return b->base;
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
