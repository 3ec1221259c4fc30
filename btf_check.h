/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_check - structural checks on BTF that dwarf2btf reads (the base of
 * --btf_base) before anything walks it.
 */
#ifndef BTF_CHECK_H
#define BTF_CHECK_H

#include <stddef.h>
#include <stdint.h>

/*
 * Check the raw BTF @data (@size bytes, either byte order): header and
 * section bounds, the string section, every type's kind, vlen, kflag and
 * unused bits, sizes, name offsets, referenced ids, and loops of reference
 * types. Returns 0 with *@nr types (not counting void) and *@offs
 * (malloc'd, the caller's) each one's record offset in the type section,
 * by id from 1; -ENOMSG if @data is no BTF at all (no magic, or not 4
 * bytes); -EINVAL: either way with what is wrong in @why ("type 12: PTR
 * refers to type 1048575, past the last type, 30"); or -ENOMEM.
 */
int btf_check__raw(const void *data, size_t size, uint32_t **offs, uint32_t *nr, char *why,
		   size_t why_size);

#endif /* BTF_CHECK_H */
