/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_distill - a module's split BTF and the base it is split on, distilled
 * as libbpf 1.5's btf__distill_base does (--btf_features=distilled_base):
 * a small base of what the module refers to, written as .BTF.base, and the
 * module's BTF made split on it, written as .BTF. The kernel relocates the
 * pair onto the running kernel's BTF.
 */
#ifndef BTF_DISTILL_H
#define BTF_DISTILL_H

#include <stdbool.h>
#include <stdint.h>

struct btf_base;
struct btf_distill;

/*
 * Distill the split BTF @split (raw BTF of @size bytes, either byte order,
 * split on @base) into *@out. Returns 0, -EINVAL where @split is no split
 * BTF on @base or refers to a base type of a kind libbpf does not distill
 * (the message in @why), or -ENOMEM. @base must outlive the call only.
 */
int btf_distill__new(const struct btf_base *base, const void *split, uint32_t size,
		     struct btf_distill **out, char *why, size_t why_size);
void btf_distill__free(struct btf_distill *d);

/*
 * The raw bytes of the distilled base and of the split BTF on it, as
 * btf__raw_data gives them, 32-bit fields byte-swapped if @swap (a target
 * of the other byte order); @d's until it is freed. NULL: no memory.
 */
const void *btf_distill__base_data(struct btf_distill *d, bool swap, uint32_t *size);
const void *btf_distill__split_data(struct btf_distill *d, bool swap, uint32_t *size);

#endif /* BTF_DISTILL_H */
