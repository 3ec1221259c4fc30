// SPDX-License-Identifier: GPL-2.0-only
/*
 * btfdiff - explain why two BTF files are not byte-identical.
 *
 * The tests compare our BTF with the reference pahole's using cmp(1); when
 * that fails, a byte offset says nothing about the cause. btfdiff says what
 * differs, independent of type-id numbering:
 *
 * 1. Facts: type count, string section size and raw size of each side.
 * 2. Semantic diff: every type is rendered to a canonical one-line
 *    description without type ids. A reference to a named type (STRUCT,
 *    UNION, ENUM, ENUM64, TYPEDEF, FWD, FUNC, VAR, INT, FLOAT, DATASEC) is
 *    rendered as "KIND 'name'"; a reference to an anonymous type is expanded
 *    in parentheses, recursively, up to DESC_DEPTH_MAX levels ("..." below),
 *    so cycles through anonymous types terminate. The two multisets of
 *    descriptions are sorted and merge-walked: "- desc" is only in A,
 *    "+ desc" only in B.
 * 3. Order diff: when the multisets are equal but the bytes are not, the
 *    first id whose descriptions differ, the first differing type record
 *    (e.g. name offsets), the first differing string and header fields.
 * 4. A one-line summary.
 *
 * With --base, A and B are split BTF on top of BASE: only their own types
 * (ids >= btf__type_cnt(base)) are compared; references into the base render
 * like any other reference.
 *
 * Cost: one description per type (a vmlinux has ~100k) plus one sort per
 * side. A description is capped at DESC_MAX bytes with an explicit
 * "...(truncated)" marker; rendering stops at the cap, which also bounds the
 * work spent on deeply nested anonymous types.
 *
 * Exit status: 0 byte-identical, 1 different, 2 usage, load or memory error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define DESC_MAX (64 * 1024) /* bytes per description, then truncated */
#define DESC_DEPTH_MAX 32 /* nesting of expanded anonymous types */
#define ORDER_CONTEXT 2 /* types shown around an order diff */
#define STR_SHOW_MAX 200 /* chars shown of a differing string */

enum { EXIT_SAME = 0, EXIT_DIFF = 1, EXIT_ERROR = 2 };

/* Growable, NUL-terminated text; errors and truncation are sticky. */
struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
	bool truncated;
	int err;
};

struct btf_side {
	const char *path;
	struct btf *btf;
	const char *raw; /* btf__raw_data(), owned by btf */
	__u32 raw_sz;
	struct btf_header hdr;
	__u32 start_id; /* first compared id */
	__u32 nr; /* number of compared types */
	char **descs; /* [i] describes start_id + i */
	char **sorted; /* the same pointers, sorted */
};

struct diff_ctx {
	struct btf *base;
	unsigned long max; /* lines per category */
	struct strbuf sb; /* scratch for one description */
	struct btf_side a, b;
	size_t only_a, only_b;
	bool semantic; /* --semantic: exit 0 when only order differs */
	__u32 order_id; /* 0: same order */
	__u32 rec_id; /* 0: type records agree */
	bool strs_differ;
	__u32 str_off;
	bool hdr_differ;
};

/* Per-kind facts: name, referenced by name only, record layout. */
struct kind_info {
	const char *name;
	bool named; /* a reference renders as "KIND 'name'" */
	__u8 extra; /* fixed bytes after struct btf_type */
	__u8 vlen_sz; /* bytes per vlen entry after that */
};

static const struct kind_info kind_infos[] = {
	[BTF_KIND_UNKN] = { "UNKN", false, 0, 0 },
	[BTF_KIND_INT] = { "INT", true, sizeof(__u32), 0 },
	[BTF_KIND_PTR] = { "PTR", false, 0, 0 },
	[BTF_KIND_ARRAY] = { "ARRAY", false, sizeof(struct btf_array), 0 },
	[BTF_KIND_STRUCT] = { "STRUCT", true, 0, sizeof(struct btf_member) },
	[BTF_KIND_UNION] = { "UNION", true, 0, sizeof(struct btf_member) },
	[BTF_KIND_ENUM] = { "ENUM", true, 0, sizeof(struct btf_enum) },
	[BTF_KIND_FWD] = { "FWD", true, 0, 0 },
	[BTF_KIND_TYPEDEF] = { "TYPEDEF", true, 0, 0 },
	[BTF_KIND_VOLATILE] = { "VOLATILE", false, 0, 0 },
	[BTF_KIND_CONST] = { "CONST", false, 0, 0 },
	[BTF_KIND_RESTRICT] = { "RESTRICT", false, 0, 0 },
	[BTF_KIND_FUNC] = { "FUNC", true, 0, 0 },
	[BTF_KIND_FUNC_PROTO] = { "FUNC_PROTO", false, 0, sizeof(struct btf_param) },
	[BTF_KIND_VAR] = { "VAR", true, sizeof(struct btf_var), 0 },
	[BTF_KIND_DATASEC] = { "DATASEC", true, 0, sizeof(struct btf_var_secinfo) },
	[BTF_KIND_FLOAT] = { "FLOAT", true, 0, 0 },
	[BTF_KIND_DECL_TAG] = { "DECL_TAG", false, sizeof(struct btf_decl_tag), 0 },
	[BTF_KIND_TYPE_TAG] = { "TYPE_TAG", false, 0, 0 },
	[BTF_KIND_ENUM64] = { "ENUM64", true, 0, sizeof(struct btf_enum64) },
};

static const struct kind_info *kind_info_get(__u16 kind)
{
	static const struct kind_info unknown = { "UNKNOWN_KIND", false, 0, 0 };

	if (kind >= sizeof(kind_infos) / sizeof(kind_infos[0]))
		return &unknown;
	return &kind_infos[kind];
}

static const char *kind_name(__u16 kind)
{
	return kind_info_get(kind)->name;
}

static size_t type_rec_size(const struct btf_type *t)
{
	const struct kind_info *ki = kind_info_get(btf_kind(t));

	return sizeof(*t) + ki->extra + (size_t)btf_vlen(t) * ki->vlen_sz;
}

static int strbuf_grow(struct strbuf *sb, size_t need)
{
	size_t cap = sb->cap ? sb->cap : 256;
	char *buf;

	while (cap < need)
		cap *= 2;
	if (cap > DESC_MAX + 1)
		cap = DESC_MAX + 1;
	buf = realloc(sb->buf, cap);
	if (!buf)
		return -ENOMEM;
	sb->buf = buf;
	sb->cap = cap;
	return 0;
}

static void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->err || sb->truncated)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			sb->err = -EINVAL;
			return;
		}
		if (sb->len + n < sb->cap) {
			sb->len += n;
			return;
		}
		if (sb->len + n > DESC_MAX) {
			sb->buf[sb->len] = '\0';
			sb->truncated = true;
			return;
		}
		sb->err = strbuf_grow(sb, sb->len + n + 1);
		if (sb->err)
			return;
	}
}

static void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	sb->truncated = false;
	sb->buf[0] = '\0';
}

/* Exact-size copy of the text, with a marker if it was truncated. */
static char *strbuf_detach_copy(const struct strbuf *sb)
{
	static const char mark[] = "...(truncated)";
	size_t extra = sb->truncated ? sizeof(mark) - 1 : 0;
	char *s = malloc(sb->len + extra + 1);

	if (!s)
		return NULL;
	memcpy(s, sb->buf, sb->len);
	memcpy(s + sb->len, mark, extra);
	s[sb->len + extra] = '\0';
	return s;
}

static const char *type_name(const struct btf *btf, __u32 off)
{
	const char *s = btf__name_by_offset(btf, off);

	return s ? s : "<bad name>";
}

/* FUNC (vlen) and VAR linkage: static, global, extern. */
static const char *linkage_name(__u32 linkage)
{
	static const char *const names[] = { "static", "global", "extern" };

	return linkage < 3 ? names[linkage] : "unknown";
}

static void desc_type_add(struct diff_ctx *ctx, const struct btf *btf, const struct btf_type *t,
			  int depth);

/* Append a reference to @id as seen from a description at @depth. */
static void desc_ref_add(struct diff_ctx *ctx, const struct btf *btf, __u32 id, int depth)
{
	const struct btf_type *t;

	if (!id) {
		strbuf_addf(&ctx->sb, "VOID");
		return;
	}
	t = btf__type_by_id(btf, id);
	if (!t) {
		strbuf_addf(&ctx->sb, "<bad id>");
		return;
	}
	if (kind_info_get(btf_kind(t))->named && t->name_off) {
		strbuf_addf(&ctx->sb, "%s '%s'", kind_name(btf_kind(t)),
			    type_name(btf, t->name_off));
		return;
	}
	if (depth + 1 >= DESC_DEPTH_MAX) {
		strbuf_addf(&ctx->sb, "...");
		return;
	}
	strbuf_addf(&ctx->sb, "(");
	desc_type_add(ctx, btf, t, depth + 1);
	strbuf_addf(&ctx->sb, ")");
}

static void desc_members_add(struct diff_ctx *ctx, const struct btf *btf, const struct btf_type *t,
			     int depth)
{
	const struct btf_member *m = btf_members(t);
	__u16 i, vlen = btf_vlen(t);

	strbuf_addf(&ctx->sb, " size=%u vlen=%u {", t->size, vlen);
	for (i = 0; i < vlen && !ctx->sb.truncated; i++) {
		strbuf_addf(&ctx->sb, "%s '%s' bit_off=%u", i ? ";" : "",
			    type_name(btf, m[i].name_off), btf_member_bit_offset(t, i));
		if (btf_member_bitfield_size(t, i))
			strbuf_addf(&ctx->sb, " bitfield=%u", btf_member_bitfield_size(t, i));
		strbuf_addf(&ctx->sb, " ");
		desc_ref_add(ctx, btf, m[i].type, depth);
	}
	strbuf_addf(&ctx->sb, " }");
}

static void desc_enum_add(struct diff_ctx *ctx, const struct btf *btf, const struct btf_type *t)
{
	const struct btf_enum *e = btf_enum(t);
	const struct btf_enum64 *e64 = btf_enum64(t);
	__u16 i, vlen = btf_vlen(t);
	bool is64 = btf_kind(t) == BTF_KIND_ENUM64;
	__u64 v;

	strbuf_addf(&ctx->sb, " size=%u vlen=%u {", t->size, vlen);
	for (i = 0; i < vlen && !ctx->sb.truncated; i++) {
		v = is64 ? btf_enum64_value(&e64[i]) : (__u64)(__u32)e[i].val;
		strbuf_addf(&ctx->sb,
			    " '%s'=", type_name(btf, is64 ? e64[i].name_off : e[i].name_off));
		if (!btf_kflag(t))
			strbuf_addf(&ctx->sb, "%llu", (unsigned long long)v);
		else if (is64)
			strbuf_addf(&ctx->sb, "%lld", (long long)v);
		else
			strbuf_addf(&ctx->sb, "%d", e[i].val);
	}
	strbuf_addf(&ctx->sb, " }");
}

static void desc_params_add(struct diff_ctx *ctx, const struct btf *btf, const struct btf_type *t,
			    int depth)
{
	const struct btf_param *p = btf_params(t);
	__u16 i, vlen = btf_vlen(t);

	strbuf_addf(&ctx->sb, " (");
	for (i = 0; i < vlen && !ctx->sb.truncated; i++) {
		strbuf_addf(&ctx->sb, "%s'%s' ", i ? ", " : "", type_name(btf, p[i].name_off));
		desc_ref_add(ctx, btf, p[i].type, depth);
	}
	strbuf_addf(&ctx->sb, ") -> ");
	desc_ref_add(ctx, btf, t->type, depth);
}

static void desc_secinfos_add(struct diff_ctx *ctx, const struct btf *btf, const struct btf_type *t,
			      int depth)
{
	const struct btf_var_secinfo *v = btf_var_secinfos(t);
	__u16 i, vlen = btf_vlen(t);

	strbuf_addf(&ctx->sb, " size=%u vlen=%u {", t->size, vlen);
	for (i = 0; i < vlen && !ctx->sb.truncated; i++) {
		strbuf_addf(&ctx->sb, "%s ", i ? ";" : "");
		desc_ref_add(ctx, btf, v[i].type, depth);
		strbuf_addf(&ctx->sb, " off=%u size=%u", v[i].offset, v[i].size);
	}
	strbuf_addf(&ctx->sb, " }");
}

/* Append the full description of @t: "KIND 'name' [kflag=1] details". */
static void desc_type_add(struct diff_ctx *ctx, const struct btf *btf, const struct btf_type *t,
			  int depth)
{
	struct strbuf *sb = &ctx->sb;
	__u16 kind = btf_kind(t);
	bool has_ref = false;

	if (sb->truncated || sb->err)
		return;
	strbuf_addf(sb, "%s '%s'%s", kind_name(kind), type_name(btf, t->name_off),
		    btf_kflag(t) ? " kflag=1" : "");
	switch (kind) {
	case BTF_KIND_INT:
		strbuf_addf(sb, " size=%u bits_off=%u nr_bits=%u enc=%#x", t->size,
			    btf_int_offset(t), btf_int_bits(t), btf_int_encoding(t));
		break;
	case BTF_KIND_FLOAT:
		strbuf_addf(sb, " size=%u", t->size);
		break;
	case BTF_KIND_ARRAY:
		strbuf_addf(sb, " [%u] of ", btf_array(t)->nelems);
		desc_ref_add(ctx, btf, btf_array(t)->type, depth);
		strbuf_addf(sb, " index ");
		desc_ref_add(ctx, btf, btf_array(t)->index_type, depth);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		desc_members_add(ctx, btf, t, depth);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		desc_enum_add(ctx, btf, t);
		break;
	case BTF_KIND_FUNC_PROTO:
		desc_params_add(ctx, btf, t, depth);
		break;
	case BTF_KIND_DATASEC:
		desc_secinfos_add(ctx, btf, t, depth);
		break;
	case BTF_KIND_FWD:
		break;
	case BTF_KIND_FUNC:
		strbuf_addf(sb, " linkage=%s", linkage_name(btf_vlen(t)));
		has_ref = true;
		break;
	case BTF_KIND_VAR:
		strbuf_addf(sb, " linkage=%s", linkage_name(btf_var(t)->linkage));
		has_ref = true;
		break;
	case BTF_KIND_DECL_TAG:
		strbuf_addf(sb, " component_idx=%d", btf_decl_tag(t)->component_idx);
		has_ref = true;
		break;
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		has_ref = true;
		break;
	default:
		strbuf_addf(sb, " info=%#x size_or_type=%u", t->info, t->size);
		break;
	}
	if (has_ref) {
		strbuf_addf(sb, " -> ");
		desc_ref_add(ctx, btf, t->type, depth);
	}
}

/* Render every compared type of @side into side->descs and side->sorted. */
static int side_describe(struct diff_ctx *ctx, struct btf_side *side)
{
	const struct btf_type *t;
	__u32 i;

	side->descs = calloc(side->nr ? side->nr : 1, sizeof(*side->descs));
	side->sorted = calloc(side->nr ? side->nr : 1, sizeof(*side->sorted));
	if (!side->descs || !side->sorted)
		return -ENOMEM;
	for (i = 0; i < side->nr; i++) {
		t = btf__type_by_id(side->btf, side->start_id + i);
		if (!t)
			return -EINVAL;
		strbuf_reset(&ctx->sb);
		desc_type_add(ctx, side->btf, t, 0);
		if (ctx->sb.err)
			return ctx->sb.err;
		side->descs[i] = strbuf_detach_copy(&ctx->sb);
		if (!side->descs[i])
			return -ENOMEM;
		side->sorted[i] = side->descs[i];
	}
	return 0;
}

static int desc_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void side_free(struct btf_side *side)
{
	__u32 i;

	if (side->descs)
		for (i = 0; i < side->nr; i++)
			free(side->descs[i]);
	free(side->descs);
	free(side->sorted);
	btf__free(side->btf);
}

/* Raw bytes of @btf and a copy of their header; 0 or -errno. */
static int raw_header_get(const struct btf *btf, struct btf_header *hdr, const char **raw,
			  __u32 *raw_sz)
{
	const char *data;
	__u32 sz;

	data = btf__raw_data(btf, &sz);
	if (!data || sz < sizeof(*hdr))
		return -EINVAL;
	memcpy(hdr, data, sizeof(*hdr));
	if (raw)
		*raw = data;
	if (raw_sz)
		*raw_sz = sz;
	return 0;
}

static int side_load(struct diff_ctx *ctx, struct btf_side *side)
{
	int err;

	side->btf =
		ctx->base ? btf__parse_split(side->path, ctx->base) : btf__parse(side->path, NULL);
	if (!side->btf)
		return errno ? -errno : -EINVAL;
	err = raw_header_get(side->btf, &side->hdr, &side->raw, &side->raw_sz);
	if (err)
		return err;
	side->start_id = ctx->base ? btf__type_cnt(ctx->base) : 1;
	side->nr = btf__type_cnt(side->btf) - side->start_id;
	return 0;
}

/* Merge-walk the sorted descriptions; print and count one-sided ones. */
static void descs_compare(struct diff_ctx *ctx)
{
	struct btf_side *a = &ctx->a, *b = &ctx->b;
	__u32 i = 0, j = 0;
	int c;

	printf("== semantic diff (- only in A, + only in B)\n");
	while (i < a->nr || j < b->nr) {
		if (i == a->nr)
			c = 1;
		else if (j == b->nr)
			c = -1;
		else
			c = strcmp(a->sorted[i], b->sorted[j]);
		if (!c) {
			i++, j++;
		} else if (c < 0) {
			if (ctx->only_a++ < ctx->max)
				printf("- %s\n", a->sorted[i]);
			i++;
		} else {
			if (ctx->only_b++ < ctx->max)
				printf("+ %s\n", b->sorted[j]);
			j++;
		}
	}
	if (ctx->only_a > ctx->max)
		printf("- ... %zu more only in A\n", ctx->only_a - ctx->max);
	if (ctx->only_b > ctx->max)
		printf("+ ... %zu more only in B\n", ctx->only_b - ctx->max);
}

static void order_context_print(const struct btf_side *s, char tag, __u32 idx)
{
	__u32 i = idx > ORDER_CONTEXT ? idx - ORDER_CONTEXT : 0;

	for (; i < s->nr && i <= idx + ORDER_CONTEXT; i++)
		printf("  %c [%u]%s %s\n", tag, s->start_id + i, i == idx ? "*" : "", s->descs[i]);
}

/* Same multiset, same count: find the first id whose descriptions differ. */
static void order_compare(struct diff_ctx *ctx)
{
	const struct btf_side *a = &ctx->a, *b = &ctx->b;
	__u32 i;

	for (i = 0; i < a->nr; i++)
		if (strcmp(a->descs[i], b->descs[i]))
			break;
	if (i == a->nr) {
		printf("type order: same\n");
		return;
	}
	ctx->order_id = a->start_id + i;
	printf("first order difference at id %u: A: %s / B: %s\n", ctx->order_id, a->descs[i],
	       b->descs[i]);
	if (!ctx->max)
		return;
	order_context_print(a, 'A', i);
	order_context_print(b, 'B', i);
}

/* Same descriptions in the same order: compare the raw type records. */
static void records_compare(struct diff_ctx *ctx)
{
	const struct btf_type *ta = NULL, *tb = NULL;
	__u32 i;

	for (i = 0; i < ctx->a.nr; i++) {
		ta = btf__type_by_id(ctx->a.btf, ctx->a.start_id + i);
		tb = btf__type_by_id(ctx->b.btf, ctx->b.start_id + i);
		if (type_rec_size(ta) != type_rec_size(tb) || memcmp(ta, tb, type_rec_size(ta)))
			break;
	}
	if (i == ctx->a.nr)
		return;
	ctx->rec_id = ctx->a.start_id + i;
	printf("type records differ at id %u (name_off A=%u B=%u): %s\n", ctx->rec_id, ta->name_off,
	       tb->name_off, ctx->a.descs[i]);
}

static void string_print(const struct btf_side *s, char tag, __u32 off)
{
	const char *strs = s->raw + s->hdr.hdr_len + s->hdr.str_off;
	__u32 len = s->hdr.str_len;

	if (off >= len) {
		printf("  %c: <end of section, %u bytes>\n", tag, len);
		return;
	}
	len = strnlen(strs + off, len - off);
	printf("  %c: \"%.*s\"%s\n", tag, len > STR_SHOW_MAX ? STR_SHOW_MAX : len, strs + off,
	       len > STR_SHOW_MAX ? "..." : "");
}

static bool side_sections_valid(const struct btf_side *s)
{
	__u64 end = (__u64)s->hdr.hdr_len + s->hdr.str_off + s->hdr.str_len;

	return end <= s->raw_sz;
}

/* Find the first string that differs, print it from both sides. */
static void strings_compare(struct diff_ctx *ctx)
{
	const struct btf_side *a = &ctx->a, *b = &ctx->b;
	struct btf_header base_hdr;
	const char *sa, *sb;
	__u32 i, n, base_len = 0;

	if (!side_sections_valid(a) || !side_sections_valid(b))
		return;
	sa = a->raw + a->hdr.hdr_len + a->hdr.str_off;
	sb = b->raw + b->hdr.hdr_len + b->hdr.str_off;
	n = a->hdr.str_len < b->hdr.str_len ? a->hdr.str_len : b->hdr.str_len;
	for (i = 0; i < n && sa[i] == sb[i]; i++)
		;
	if (i == n && a->hdr.str_len == b->hdr.str_len) {
		printf("string sections: same\n");
		return;
	}
	while (i > 0 && sa[i - 1] != '\0')
		i--;
	if (ctx->base && !raw_header_get(ctx->base, &base_hdr, NULL, NULL))
		base_len = base_hdr.str_len;
	ctx->strs_differ = true;
	ctx->str_off = i + base_len;
	printf("string sections differ at offset %u:\n", ctx->str_off);
	string_print(a, 'A', i);
	string_print(b, 'B', i);
}

static void facts_print(const struct btf_side *s, char tag)
{
	printf("%c: %u types from id %u, strings %u bytes, raw %u bytes: %s\n", tag, s->nr,
	       s->start_id, s->hdr.str_len, s->raw_sz, s->path);
}

static void summary_print(const struct diff_ctx *ctx, bool same)
{
	if (same) {
		printf("btfdiff: identical\n");
		return;
	}
	printf("btfdiff: %zu only in A, %zu only in B", ctx->only_a, ctx->only_b);
	if (ctx->order_id)
		printf(", order differs at id %u", ctx->order_id);
	if (ctx->rec_id)
		printf(", type records differ at id %u", ctx->rec_id);
	if (ctx->strs_differ)
		printf(", strings differ at offset %u", ctx->str_off);
	if (ctx->hdr_differ)
		printf(", headers differ");
	printf("\n");
}

/* Everything after loading; returns EXIT_SAME/EXIT_DIFF or -errno. */
static int btf_diff(struct diff_ctx *ctx)
{
	__u32 i, n = ctx->a.raw_sz;
	bool same;
	int err;

	if (n > ctx->b.raw_sz)
		n = ctx->b.raw_sz;
	for (i = 0; i < n && ctx->a.raw[i] == ctx->b.raw[i]; i++)
		;
	same = i == n && ctx->a.raw_sz == ctx->b.raw_sz;
	printf("== facts\n");
	facts_print(&ctx->a, 'A');
	facts_print(&ctx->b, 'B');
	if (same) {
		printf("bytes: identical\n");
		goto out;
	}
	printf("bytes: differ at offset %u\n", i);

	err = side_describe(ctx, &ctx->a);
	if (!err)
		err = side_describe(ctx, &ctx->b);
	if (err)
		return err;
	qsort(ctx->a.sorted, ctx->a.nr, sizeof(char *), desc_cmp);
	qsort(ctx->b.sorted, ctx->b.nr, sizeof(char *), desc_cmp);
	descs_compare(ctx);
	if (ctx->only_a || ctx->only_b)
		goto out;

	printf("== order diff\n");
	order_compare(ctx);
	if (!ctx->order_id)
		records_compare(ctx);
	strings_compare(ctx);
	ctx->hdr_differ = memcmp(&ctx->a.hdr, &ctx->b.hdr, sizeof(ctx->a.hdr));
	if (ctx->hdr_differ)
		printf("headers differ (flags %#x/%#x, hdr_len %u/%u, "
		       "type_len %u/%u)\n",
		       ctx->a.hdr.flags, ctx->b.hdr.flags, ctx->a.hdr.hdr_len, ctx->b.hdr.hdr_len,
		       ctx->a.hdr.type_len, ctx->b.hdr.type_len);
out:
	summary_print(ctx, same);
	if (ctx->semantic && !ctx->only_a && !ctx->only_b)
		return EXIT_SAME;
	return same ? EXIT_SAME : EXIT_DIFF;
}

static void usage_print(FILE *f)
{
	fprintf(f, "usage: btfdiff [--base BASE] [--max N] [--semantic] A B\n"
		   "Explain why two BTF files (raw or ELF .BTF) differ.\n"
		   "Exit: 0 identical (--semantic: the same types, functions and\n"
		   "variables, in any order), 1 different, 2 error.\n");
}

static int args_parse(struct diff_ctx *ctx, int argc, char **argv, const char **base_path)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "max", required_argument, NULL, 'm' },
		{ "semantic", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "b:m:sh", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			*base_path = optarg;
			break;
		case 'm':
			errno = 0;
			ctx->max = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-')
				return -EINVAL;
			break;
		case 's':
			ctx->semantic = true;
			break;
		default:
			return -EINVAL;
		}
	}
	if (argc - optind != 2)
		return -EINVAL;
	ctx->a.path = argv[optind];
	ctx->b.path = argv[optind + 1];
	return 0;
}

int main(int argc, char **argv)
{
	struct diff_ctx ctx = { .max = 50 };
	const char *base_path = NULL;
	const char *failed;
	char msg[128];
	int err = 0, ret = EXIT_ERROR;

	if (args_parse(&ctx, argc, argv, &base_path)) {
		usage_print(stderr);
		return EXIT_ERROR;
	}
	failed = base_path;
	if (base_path) {
		ctx.base = btf__parse(base_path, NULL);
		err = ctx.base ? 0 : (errno ? -errno : -EINVAL);
	}
	if (!err) {
		failed = ctx.a.path;
		err = side_load(&ctx, &ctx.a);
	}
	if (!err) {
		failed = ctx.b.path;
		err = side_load(&ctx, &ctx.b);
	}
	if (err) {
		libbpf_strerror(err, msg, sizeof(msg));
		fprintf(stderr, "btfdiff: failed to load '%s': %s\n", failed, msg);
		goto out_free;
	}
	ret = strbuf_grow(&ctx.sb, 4096);
	if (!ret)
		ret = btf_diff(&ctx);
	if (ret < 0) {
		fprintf(stderr, "btfdiff: %s\n", strerror(-ret));
		ret = EXIT_ERROR;
	}
out_free:
	free(ctx.sb.buf);
	side_free(&ctx.b);
	side_free(&ctx.a);
	btf__free(ctx.base);
	fflush(stdout);
	return ret;
}
