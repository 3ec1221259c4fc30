/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_dedup - deduplicate BTF (vmlinux's batches and their merge, a
 * module's split BTF on vmlinux's) as a given libbpf release's btf__dedup
 * does, type for type.
 */
#ifndef BTF_DEDUP_H
#define BTF_DEDUP_H

#include <stdint.h>

struct btf_base;
struct btf_raw;

/*
 * The libbpf releases whose btf__dedup is reproduced: 1.1 (Debian 12's;
 * its algorithm is 1.5's, which pahole 1.30 is built with in Debian) and
 * 1.7.0 (Debian's for pahole 1.32).
 */
enum btf_dedup_libbpf {
	BTF_DEDUP_LIBBPF_1_1,
	BTF_DEDUP_LIBBPF_1_7_0,
};

/*
 * Deduplicate the BTF whose type records are @types (@len bytes, whole
 * records: ids from 1, no base; rewritten in place), with its strings
 * built by btf__add_* (each once), as @release's btf__dedup would: into
 * *@out (malloc'd, *@out_len bytes of records), with *@ids (malloc'd, by
 * old id from 0) each type's id there. 0, or -errno as btf_dedup__raw.
 */
int btf_dedup__records(void *types, uint32_t len, enum btf_dedup_libbpf release, void **out,
		       uint32_t *out_len, uint32_t **ids);

/*
 * Deduplicate the BTF @r (split BTF built on @base, against the base; or
 * @base NULL), as @release's btf__dedup would: @r's type records replaced by
 * the result, its string section as it is (a BTF built with btf__add_*
 * holds each string once, and btf__dedup keeps it then). 0, or -errno:
 * -ENOMEM, -ELOOP (a loop of reference types), -EINVAL (a kind btf__dedup
 * refuses). Caller-serialized: writes @r, reads the base.
 */
int btf_dedup__raw(struct btf_raw *r, const struct btf_base *base, enum btf_dedup_libbpf release);

#endif /* BTF_DEDUP_H */
