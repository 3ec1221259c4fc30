/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_check - structural checks on BTF that dwarf2btf reads (the base of
 * --btf_base) before anything walks it.
 */
#ifndef BTF_CHECK_H
#define BTF_CHECK_H

#include <stddef.h>
#include <stdint.h>

/* each type's record offset and kind, by id, as btf_check__raw found them */
struct btf_check_ids {
	const uint32_t *offs; /* [id]: the record's offset in the type section, 1 <= id <= nr */
	const uint8_t *kinds; /* [id]: its kind, 0 <= id <= nr ([0], void's, BTF_KIND_UNKN) */
	uint32_t nr; /* types, not counting void */
	void *map; /* what holds them: one mapping of map_size bytes */
	size_t map_size;
};

/*
 * Check the raw BTF @data (@size bytes, either byte order): header and
 * section bounds, the string section, every type's kind, vlen, kflag and
 * unused bits, sizes, name offsets, referenced ids, and loops of reference
 * types. Returns 0 with *@ids filled in (the caller's, for
 * btf_check_ids__free); -ENOMSG if @data is no BTF at all (no magic, or not 4
 * bytes); -EINVAL: either way with what is wrong in @why ("type 12: PTR
 * refers to type 1048575, past the last type, 30"); or -ENOMEM.
 */
int btf_check__raw(const void *data, size_t size, struct btf_check_ids *ids, char *why,
		   size_t why_size);

void btf_check_ids__free(struct btf_check_ids *ids);

#endif /* BTF_CHECK_H */
