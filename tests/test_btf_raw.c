// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_btf_raw - btf_raw against libbpf's btf__add_* calls.
 *
 * The encoder's writer builds its BTF with btf_raw, which must give the
 * bytes libbpf's btf__add_* and btf__add_str calls give. Here one script
 * of calls runs twice: through libbpf on a from-scratch BTF, and through
 * btf_raw (names interned with btf_raw__add_str first, as the encoder does)
 * then btf_raw__to_btf. Every call must return the same (ids, 0, or the
 * same -errno for invalid arguments: sizes, bitfields, offsets in unions,
 * enum values past 32 bits, missing names, linkages, component indexes),
 * and the two BTFs must have the same raw bytes, before and after
 * btf__dedup (which keeps a from-scratch BTF's strings as they were added).
 * The script runs as BTF of its own and as split BTF on a base that
 * already holds some of its strings (in either byte order), with enough
 * types to make the writer's arrays and string set grow several times.
 * Each also stays raw, as a module's split BTF does: btf_raw__raw_data
 * must give libbpf's bytes (in libbpf's byte order), and split BTF is
 * deduplicated by btf_dedup to what btf__dedup makes of libbpf's, the
 * functions' and sections' records (btf_raw__add_record) included. Last,
 * the script's BTF is appended to a BTF that already holds types and
 * strings, by btf__add_btf to libbpf's and by btf_raw__append_records to a
 * btf_raw (as a batch is merged), to the same bytes.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../btf_base.h"
#include "../btf_dedup.h"
#include "../btf_raw.h"

static int failures;

struct pair {
	struct btf *l; /* libbpf */
	struct btf_base *bb; /* split BTF: its base */
	struct btf_raw *r;
	const char *what;
	int step;
};

static void expect(struct pair *p, int got_l, int got_r)
{
	p->step++;
	if (got_l != got_r && failures++ < 20) {
		fprintf(stderr, "test_btf_raw: %s, call %d: libbpf %d, btf_raw %d\n", p->what,
			p->step, got_l, got_r);
	}
}

/* @s's offset in the raw BTF (0 for NULL: no name) */
static uint32_t n(struct pair *p, const char *s)
{
	int off = s ? btf_raw__add_str(p->r, s) : 0;

	if (off < 0) {
		fprintf(stderr, "test_btf_raw: %s: btf_raw__add_str(\"%s\"): %d\n", p->what, s,
			off);
		failures++;
		return 0;
	}
	return (uint32_t)off;
}

static void fields(struct pair *p, const struct btf_raw_field *f, const char *const *names,
		   uint32_t nr)
{
	int err = 0;
	uint32_t i;

	for (i = 0; i < nr && !err; i++)
		err = btf__add_field(p->l, names[i], (int)f[i].type, f[i].bit_offset,
				     f[i].bit_size);
	expect(p, err, btf_raw__add_fields(p->r, f, nr));
}

/* every kind the encoder writes, valid and not; @k makes names differ per round */
static void script(struct pair *p, int k)
{
	char name[64], member[64];
	int first = (int)btf__type_cnt(p->l), i;

	snprintf(name, sizeof(name), "type_%d", k);
	snprintf(member, sizeof(member), "member_%d", k);
	/*
	 * The encoder interns a name before the add; libbpf checks the
	 * arguments first. So the names of the invalid calls below are
	 * interned on both sides first: only then are the strings the same.
	 */
	for (i = 0; i < 5; i++) {
		const char *s = (const char *[]){ "e", "x", "D", "H", "p" }[i];

		expect(p, btf__add_str(p->l, s), btf_raw__add_str(p->r, s));
	}
	expect(p, btf__add_int(p->l, "int", 4, BTF_INT_SIGNED),
	       btf_raw__add_int(p->r, n(p, "int"), 4, BTF_INT_SIGNED));
	expect(p, btf__add_int(p->l, "_Bool", 1, BTF_INT_BOOL),
	       btf_raw__add_int(p->r, n(p, "_Bool"), 1, BTF_INT_BOOL));
	expect(p, btf__add_int(p->l, "__int128", 16, 0),
	       btf_raw__add_int(p->r, n(p, "__int128"), 16, 0));
	expect(p, btf__add_int(p->l, "int", 3, 0), btf_raw__add_int(p->r, n(p, "int"), 3, 0));
	expect(p, btf__add_int(p->l, "int", 32, 0), btf_raw__add_int(p->r, n(p, "int"), 32, 0));
	expect(p, btf__add_int(p->l, "int", 4, 8), btf_raw__add_int(p->r, n(p, "int"), 4, 8));
	expect(p, btf__add_int(p->l, "", 4, 0), btf_raw__add_int(p->r, n(p, ""), 4, 0));
	expect(p, btf__add_float(p->l, "long double", 16),
	       btf_raw__add_float(p->r, n(p, "long double"), 16));
	expect(p, btf__add_float(p->l, "float", 12), btf_raw__add_float(p->r, n(p, "float"), 12));
	expect(p, btf__add_float(p->l, "float", 6), btf_raw__add_float(p->r, n(p, "float"), 6));
	expect(p, btf__add_ptr(p->l, first), btf_raw__add_ref(p->r, 0, BTF_KIND_PTR, first));
	expect(p, btf__add_const(p->l, first + 1),
	       btf_raw__add_ref(p->r, 0, BTF_KIND_CONST, first + 1));
	expect(p, btf__add_volatile(p->l, 0), btf_raw__add_ref(p->r, 0, BTF_KIND_VOLATILE, 0));
	expect(p, btf__add_restrict(p->l, first),
	       btf_raw__add_ref(p->r, 0, BTF_KIND_RESTRICT, first));
	expect(p, btf__add_ptr(p->l, -1), btf_raw__add_ref(p->r, 0, BTF_KIND_PTR, 0xffffffffu));
	expect(p, btf__add_typedef(p->l, name, first),
	       btf_raw__add_ref(p->r, n(p, name), BTF_KIND_TYPEDEF, first));
	expect(p, btf__add_typedef(p->l, "", first),
	       btf_raw__add_ref(p->r, n(p, ""), BTF_KIND_TYPEDEF, first));
	expect(p, btf__add_type_tag(p->l, "user", first),
	       btf_raw__add_ref(p->r, n(p, "user"), BTF_KIND_TYPE_TAG, first));
	expect(p, btf__add_array(p->l, first, first + 1, 17),
	       btf_raw__add_array(p->r, first, first + 1, 17));

	/*
	 * a struct: bitfields, an offset past 24 bits that is not one, an
	 * empty name (each name interned after the struct's, as libbpf does)
	 */
	expect(p, btf__add_struct(p->l, name, 1 << 22),
	       btf_raw__add_composite(p->r, n(p, name), false, 1 << 22));
	{
		const char *names[] = { member, "b", NULL, "d", "e" };
		struct btf_raw_field f[] = {
			{ n(p, names[0]), first, 0, 0 },
			{ n(p, names[1]), first, 35, 3 },
			{ 0, first, 38, 1 },
			{ n(p, names[3]), first + 1, 0x2000000, 0 },
			{ n(p, names[4]), 0, 64, 0 },
		};

		fields(p, f, names, 5);
		expect(p, btf__add_struct(p->l, NULL, 8),
		       btf_raw__add_composite(p->r, 0, false, 8));
		fields(p, f, names, 0);
	}
	/* invalid members: a bitfield without a size, one over 255 bits, or too far */
	{
		const char *names[] = { "x" };
		struct btf_raw_field f1[] = { { n(p, "x"), first, 3, 0 } };
		struct btf_raw_field f2[] = { { n(p, "x"), first, 0, 256 } };
		struct btf_raw_field f3[] = { { n(p, "x"), first, 0x1000000, 1 } };

		expect(p, btf__add_struct(p->l, "s", 4),
		       btf_raw__add_composite(p->r, n(p, "s"), false, 4));
		fields(p, f1, names, 1);
		fields(p, f2, names, 1);
		fields(p, f3, names, 1);
	}
	/* a union: members at 0, then one that is not (its name interned before) */
	expect(p, btf__add_str(p->l, "u3"), btf_raw__add_str(p->r, "u3"));
	expect(p, btf__add_union(p->l, "un", 8), btf_raw__add_composite(p->r, n(p, "un"), true, 8));
	{
		const char *names[] = { "u1", "u2", "u3" };
		struct btf_raw_field f[] = {
			{ n(p, "u1"), first, 0, 0 },
			{ n(p, "u2"), first, 0, 5 },
			{ n(p, "u3"), first, 8, 0 },
		};

		fields(p, f, names, 2);
		fields(p, f + 2, names + 2, 1);
	}
	/* enums: a negative value sets kflag; values past 32 bits are refused */
	expect(p, btf__add_enum(p->l, "e32", 4),
	       btf_raw__add_enum(p->r, n(p, "e32"), false, 4, false));
	expect(p, btf__add_enum_value(p->l, "A", 1), btf_raw__add_enum_value(p->r, n(p, "A"), 1));
	expect(p, btf__add_enum_value(p->l, "B", 0xffffffffll),
	       btf_raw__add_enum_value(p->r, n(p, "B"), 0xffffffffll));
	expect(p, btf__add_enum_value(p->l, "C", -5), btf_raw__add_enum_value(p->r, n(p, "C"), -5));
	expect(p, btf__add_enum_value(p->l, "D", 0x100000000ll),
	       btf_raw__add_enum_value(p->r, n(p, "D"), 0x100000000ll));
	expect(p, btf__add_enum_value(p->l, "", 1), btf_raw__add_enum_value(p->r, n(p, ""), 1));
	expect(p, btf__add_enum(p->l, NULL, 8), btf_raw__add_enum(p->r, 0, false, 8, false));
	expect(p, btf__add_enum(p->l, "e", 3), btf_raw__add_enum(p->r, n(p, "e"), false, 3, false));
	expect(p, btf__add_enum64(p->l, "e64", 8, true),
	       btf_raw__add_enum(p->r, n(p, "e64"), true, 8, true));
	expect(p, btf__add_enum64_value(p->l, "F", 0xfedcba9876543210ull),
	       btf_raw__add_enum64_value(p->r, n(p, "F"), 0xfedcba9876543210ull));
	expect(p, btf__add_enum64(p->l, "u64", 8, false),
	       btf_raw__add_enum(p->r, n(p, "u64"), true, 8, false));
	expect(p, btf__add_enum64_value(p->l, "G", 1),
	       btf_raw__add_enum64_value(p->r, n(p, "G"), 1));
	expect(p, btf__add_enum_value(p->l, "H", 1), btf_raw__add_enum_value(p->r, n(p, "H"), 1));
	expect(p, btf__add_fwd(p->l, "fs", BTF_FWD_STRUCT),
	       btf_raw__add_fwd(p->r, n(p, "fs"), false));
	expect(p, btf__add_fwd(p->l, "fu", BTF_FWD_UNION),
	       btf_raw__add_fwd(p->r, n(p, "fu"), true));
	expect(p, btf__add_fwd(p->l, "", BTF_FWD_UNION), btf_raw__add_fwd(p->r, n(p, ""), true));
	/* a function prototype: named, unnamed and vararg parameters */
	expect(p, btf__add_func_param(p->l, "p", first),
	       btf_raw__add_func_param(p->r, n(p, "p"), first));
	expect(p, btf__add_func_proto(p->l, first), btf_raw__add_func_proto(p->r, first));
	expect(p, btf__add_func_param(p->l, member, first),
	       btf_raw__add_func_param(p->r, n(p, member), first));
	expect(p, btf__add_func_param(p->l, NULL, first + 1),
	       btf_raw__add_func_param(p->r, 0, first + 1));
	expect(p, btf__add_func_param(p->l, NULL, 0), btf_raw__add_func_param(p->r, 0, 0));
	/* variables and decl tags */
	expect(p, btf__add_var(p->l, "v", BTF_VAR_GLOBAL_ALLOCATED, first),
	       btf_raw__add_var(p->r, n(p, "v"), BTF_VAR_GLOBAL_ALLOCATED, first));
	expect(p, btf__add_var(p->l, "w", BTF_VAR_STATIC, first),
	       btf_raw__add_var(p->r, n(p, "w"), BTF_VAR_STATIC, first));
	expect(p, btf__add_var(p->l, "w", 7, first), btf_raw__add_var(p->r, n(p, "w"), 7, first));
	expect(p, btf__add_var(p->l, "", BTF_VAR_STATIC, first),
	       btf_raw__add_var(p->r, n(p, ""), BTF_VAR_STATIC, first));
	expect(p, btf__add_decl_tag(p->l, "tag", first, -1),
	       btf_raw__add_decl_tag(p->r, n(p, "tag"), first, -1));
	expect(p, btf__add_decl_tag(p->l, name, first, 2),
	       btf_raw__add_decl_tag(p->r, n(p, name), first, 2));
	expect(p, btf__add_decl_tag(p->l, "tag", first, -2),
	       btf_raw__add_decl_tag(p->r, n(p, "tag"), first, -2));
	/* a function and a section, as the encoder appends them after the merge */
	expect(p, btf__add_func(p->l, name, BTF_FUNC_GLOBAL, first + 21),
	       btf_raw__add_record(
		       p->r,
		       &(struct btf_type){ n(p, name),
					   BTF_RAW_INFO(BTF_KIND_FUNC, 0, BTF_FUNC_GLOBAL),
					   { first + 21 } },
		       sizeof(struct btf_type)));
	expect(p, btf__add_datasec_var_info(p->l, first, 0, 4),
	       btf_raw__add_datasec_var_info(p->r, first, 0, 4));
	expect(p, btf__add_datasec(p->l, ".data", 64),
	       btf_raw__add_record(p->r,
				   &(struct btf_type){ n(p, ".data"),
						       BTF_RAW_INFO(BTF_KIND_DATASEC, 0, 0),
						       { 64 } },
				   sizeof(struct btf_type)));
	expect(p, btf__add_datasec_var_info(p->l, first + 22, 8, 4),
	       btf_raw__add_datasec_var_info(p->r, first + 22, 8, 4));
	expect(p, btf__add_datasec_var_info(p->l, first + 23, 16, 8),
	       btf_raw__add_datasec_var_info(p->r, first + 23, 16, 8));
	expect(p, btf__add_datasec_var_info(p->l, -1, 0, 4),
	       btf_raw__add_datasec_var_info(p->r, 0xffffffffu, 0, 4));
	/* strings with no type of their own (as the saved functions' parameter names) */
	for (i = 0; i < 3; i++) {
		snprintf(member, sizeof(member), "param_%d_%d", k, i);
		expect(p, btf__add_str(p->l, member), btf_raw__add_str(p->r, member));
	}
	/*
	 * the copy of the array index type a new batch starts with (type
	 * first: libbpf is not given its own strings, which may move)
	 */
	expect(p, btf__add_int(p->l, "int", 4, BTF_INT_SIGNED),
	       btf_raw__add_int_copy(p->r, p->r, first));
}

static void compare(struct pair *p, struct btf *a, struct btf *b, const char *when)
{
	const void *da, *db;
	uint32_t sa, sb;

	da = btf__raw_data(a, &sa);
	db = btf__raw_data(b, &sb);
	if (!da || !db || sa != sb || memcmp(da, db, sa)) {
		fprintf(stderr, "test_btf_raw: %s: raw BTF differs %s (%u and %u bytes)\n", p->what,
			when, sa, sb);
		failures++;
	}
}

/* @l's raw bytes and @r's laid out by btf_raw__raw_data in @l's byte order: the same */
static void compare_raw(struct pair *p, struct btf *l, struct btf_raw *r, const char *when)
{
	enum btf_endianness host =
		__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN;
	const void *dl, *dr;
	uint32_t sl, sr = 0;

	dl = btf__raw_data(l, &sl);
	dr = btf_raw__raw_data(r, btf__endianness(l) != host, &sr);
	if (!dl || !dr || sl != sr || memcmp(dl, dr, sl)) {
		fprintf(stderr, "test_btf_raw: %s: raw BTF differs %s (%u and %u bytes)\n", p->what,
			when, sl, sr);
		failures++;
	}
}

struct append_ctx {
	struct btf_raw *dst; /* holds every string of src */
	const struct btf *src;
};

/* @off of ctx's src in its dst */
static uint32_t str_in(void *ctx, uint32_t off, int *err)
{
	struct append_ctx *a = ctx;
	int got;

	if (!off)
		return 0;
	got = btf_raw__add_str(a->dst, btf__str_by_offset(a->src, off));
	if (got <= 0)
		*err = got ? got : -EINVAL;
	return got <= 0 ? 0 : (uint32_t)got;
}

/*
 * @src appended to two copies of a BTF holding types and strings, after
 * its strings in order (as btf_batches merges a batch): by btf__add_btf to
 * libbpf's, and by btf_raw__append_records to a btf_raw
 */
static void append(struct pair *p, struct btf *src)
{
	const struct btf_header *hdr;
	struct append_ctx a = { btf_raw__new(NULL), src };
	struct btf *dst = btf__new_empty();
	const char *raw, *s, *strs;
	uint32_t size;
	int name;

	raw = btf__raw_data(src, &size);
	hdr = (const void *)raw;
	strs = raw + hdr->hdr_len + hdr->str_off;
	if (!dst || !a.dst) {
		expect(p, 0, -ENOMEM);
		goto out;
	}
	name = btf_raw__add_str(a.dst, "type_2");
	expect(p, btf__add_int(dst, "type_2", 4, 0), btf_raw__add_int(a.dst, name, 4, 0));
	expect(p, btf__add_ptr(dst, 1), btf_raw__add_ref(a.dst, 0, BTF_KIND_PTR, 1));
	for (s = strs + 1; s < strs + hdr->str_len; s += strlen(s) + 1)
		expect(p, btf__add_str(dst, s), btf_raw__add_str(a.dst, s));
	expect(p, 3, btf__add_btf(dst, src));
	expect(p, 0,
	       btf_raw__append_records(a.dst, raw + hdr->hdr_len + hdr->type_off, hdr->type_len,
				       btf_raw__type_cnt(a.dst) - 1, str_in, &a));
	compare_raw(p, dst, a.dst, "appended");
out:
	btf__free(dst);
	btf_raw__free(a.dst);
}

/*
 * The script through libbpf and through btf_raw, compared; split BTF on
 * @base, through btf_base. With @convert, btf_raw's BTF is handed to libbpf
 * (btf_raw__to_btf) and both are deduplicated by btf__dedup; else its raw
 * bytes are compared, and split BTF is deduplicated by btf_dedup, to what
 * btf__dedup makes of libbpf's.
 */
static void run(const char *what, struct btf *base, int rounds, bool convert)
{
	struct pair p = { .what = what };
	struct btf *conv = NULL;
	void *base_raw = NULL;
	const void *data;
	char why[160];
	uint32_t size;
	int k, err = 0;

	/* (btf_base reads the base's bytes where they are: a copy libbpf cannot move) */
	data = base ? btf__raw_data(base, &size) : NULL;
	base_raw = data ? malloc(size) : NULL;
	if (base_raw)
		memcpy(base_raw, data, size);
	p.l = base ? btf__new_empty_split(base) : btf__new_empty();
	p.bb = base_raw ? btf_base__new(base_raw, size, why, sizeof(why), &err) : NULL;
	p.r = base && !p.bb ? NULL : btf_raw__new(p.bb);
	if (!p.l || !p.r) {
		fprintf(stderr, "test_btf_raw: %s: no memory\n", what);
		failures++;
		return;
	}
	for (k = 0; k < rounds; k++)
		script(&p, k);
	expect(&p, (int)btf__type_cnt(p.l), (int)btf_raw__type_cnt(p.r));
	if (convert) {
		conv = btf_raw__to_btf(p.r, &err);
		p.r = NULL;
		if (!conv) {
			fprintf(stderr, "test_btf_raw: %s: btf_raw__to_btf: %d\n", what, err);
			failures++;
			goto out;
		}
		compare(&p, p.l, conv, "as built");
		err = btf__dedup(p.l, NULL);
		expect(&p, err, btf__dedup(conv, NULL));
		compare(&p, p.l, conv, "after btf__dedup");
	} else {
		compare_raw(&p, p.l, p.r, "as built");
		if (p.bb) {
			expect(&p, btf__dedup(p.l, NULL),
			       btf_dedup__raw(p.r, p.bb, BTF_DEDUP_LIBBPF_1_1));
			compare_raw(&p, p.l, p.r, "after btf_dedup");
		}
	}
	if (!base && convert)
		append(&p, p.l);
out:
	btf__free(conv);
	btf__free(p.l);
	btf_raw__free(p.r);
	btf_base__free(p.bb);
	free(base_raw);
}

int main(void)
{
	struct btf *base = btf__new_empty();

	run("own BTF", NULL, 3000, true);
	run("own BTF, raw", NULL, 300, false);
	/* a base holding some of the script's names, and "" */
	if (!base || btf__add_int(base, "int", 4, BTF_INT_SIGNED) < 0 ||
	    btf__add_str(base, "member_7") < 0 || btf__add_str(base, "tag") < 0 ||
	    btf__add_str(base, "type_2") < 0) {
		fprintf(stderr, "test_btf_raw: cannot build the base\n");
		return 1;
	}
	run("split BTF", base, 300, true);
	run("split BTF, raw", base, 300, false);
	/* a base in the other byte order (a big-endian kernel's, encoded here) */
	if (btf__set_endianness(base, btf__endianness(base) == BTF_LITTLE_ENDIAN
					      ? BTF_BIG_ENDIAN
					      : BTF_LITTLE_ENDIAN)) {
		fprintf(stderr, "test_btf_raw: cannot swap the base's byte order\n");
		return 1;
	}
	run("split BTF, base swapped", base, 30, true);
	run("split BTF, base swapped, raw", base, 30, false);
	btf__free(base);
	if (failures) {
		fprintf(stderr, "test_btf_raw: %d failures\n", failures);
		return 1;
	}
	printf("test_btf_raw: libbpf and btf_raw agree\n");
	return 0;
}
