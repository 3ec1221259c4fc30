// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_raw_records - one BTF type record, read in place: its size, its
 * string offsets and its type ids, in the order libbpf visits them.
 *
 * btf_raw.c's set, append and copy to libbpf walk records with them, and
 * so do the dedup (btf_dedup.c) and the distilled base (btf_distill.c),
 * which rewrite records in arrays of their own.
 */
#include <bpf/btf.h>

#include "btf_raw.h"

uint32_t btf_raw__record_size(const struct btf_type *t)
{
	uint32_t vlen = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return sizeof(*t) + sizeof(uint32_t);
	case BTF_KIND_ARRAY:
		return sizeof(*t) + sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return sizeof(*t) + vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return sizeof(*t) + vlen * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return sizeof(*t) + vlen * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return sizeof(*t) + vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return sizeof(*t) + vlen * sizeof(struct btf_var_secinfo);
	default:
		return sizeof(*t);
	}
}

void btf_raw__map_names(struct btf_type *t, uint32_t (*map)(void *ctx, uint32_t off, int *err),
			void *ctx, int *err)
{
	uint32_t i, stride = 0, n = btf_vlen(t);
	char *e = (char *)(t + 1);

	t->name_off = map ? map(ctx, t->name_off, err) : 0;
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		stride = sizeof(struct btf_member);
		break;
	case BTF_KIND_ENUM:
		stride = sizeof(struct btf_enum);
		break;
	case BTF_KIND_ENUM64:
		stride = sizeof(struct btf_enum64);
		break;
	case BTF_KIND_FUNC_PROTO:
		stride = sizeof(struct btf_param);
		break;
	default:
		n = 0;
	}
	/* (each of those records starts with its name_off) */
	for (i = 0; i < n; i++) {
		uint32_t *off = (uint32_t *)(e + (size_t)i * stride);

		*off = map ? map(ctx, *off, err) : 0;
	}
}

int btf_raw__visit_ids(struct btf_type *t, int (*fn)(uint32_t *id, void *ctx), void *ctx)
{
	uint32_t i, n = btf_vlen(t);
	int err = 0;

	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		return fn(&t->type, ctx);
	case BTF_KIND_ARRAY:
		err = fn(&btf_array(t)->type, ctx);
		return err ? err : fn(&btf_array(t)->index_type, ctx);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; i < n && !err; i++)
			err = fn(&btf_members(t)[i].type, ctx);
		return err;
	case BTF_KIND_FUNC_PROTO:
		err = fn(&t->type, ctx);
		for (i = 0; i < n && !err; i++)
			err = fn(&btf_params(t)[i].type, ctx);
		return err;
	case BTF_KIND_DATASEC:
		for (i = 0; i < n && !err; i++)
			err = fn(&btf_var_secinfos(t)[i].type, ctx);
		return err;
	default:
		return 0;
	}
}
