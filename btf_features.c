// SPDX-License-Identifier: GPL-2.0-only
/*
 * btf_features - pahole's --btf_features semantics.
 *
 * The first --btf_features resets every feature-driven setting to "off"
 * (cancelling earlier --skip_* / --btf_gen_* flags); later ones only add.
 * "default" turns on every standard feature; a leading "+" means default plus
 * the list. Unknown names are ignored (reported with -V) unless
 * --btf_features_strict. The table order is the order
 * --supported_btf_features prints.
 *
 * btf_features__apply_option() maps every encoding option of the command
 * line (the legacy --btf_gen_* / --skip_encoding_btf_* flags included) to
 * its setting, for dwarf2btf.c and for the stress test, which takes the
 * same flags.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "btf_features.h"

struct btf_feature {
	const char *name;
	size_t offset; /* of the bool in struct d2b_conf */
	bool on_value; /* value that means "feature on" */
	bool is_default; /* part of "default" */
	unsigned int since; /* first pahole release that has it */
	unsigned int supported; /* first release reproduced with it, 0: none */
};

/* a feature of pahole 1.30, and one of @since that dwarf2btf does from release @sup */
/* clang-format off */
#define FEATURE(n, field, on, def) FEATURE_SINCE(n, field, on, def, 130, 130)
#define FEATURE_SINCE(n, field, on, def, since, sup) \
	{ n, __builtin_offsetof(struct d2b_conf, field), on, def, since, sup }
/* clang-format on */

/*
 * A feature dwarf2btf does not do for the release reproduced is neither
 * listed nor enabled, as pahole treats a feature its libbpf lacks:
 * attributes is pahole 1.30's only with libbpf 1.6, which Debian's 1.30 is
 * not built with, so it is 1.32's only (btf_funcs.c, arena_tags, writes
 * its records); true_signature and force_cu_merging (pahole 1.32, in no
 * kernel's flags) are not implemented. A feature newer than the release
 * reproduced is an unknown name.
 */
static const struct btf_feature btf_features[] = {
	FEATURE("encode_force", encode_force, true, true),
	FEATURE("var", skip_vars, false, true),
	FEATURE("float", gen_floats, true, true),
	FEATURE("decl_tag", skip_decl_tag, false, true),
	FEATURE("type_tag", skip_type_tag, false, true),
	FEATURE("enum64", skip_enum64, false, true),
	FEATURE("optimized_func", gen_optimized, true, true),
	FEATURE("consistent_func", skip_inconsistent_proto, true, true),
	FEATURE("decl_tag_kfuncs", decl_tag_kfuncs, true, true),
	FEATURE("reproducible_build", reproducible_build, true, false),
	FEATURE("distilled_base", distilled_base, true, false),
	FEATURE("global_var", global_var, true, false),
	FEATURE_SINCE("attributes", attributes, true, false, 130, 132),
	FEATURE_SINCE("true_signature", true_signature, true, false, 132, 0),
	FEATURE_SINCE("force_cu_merging", force_cu_merging, true, false, 132, 0),
};

#define NR_FEATURES (sizeof(btf_features) / sizeof(btf_features[0]))

static bool *feature_field(struct d2b_conf *conf, const struct btf_feature *f)
{
	return (bool *)((char *)conf + f->offset);
}

void btf_features__defaults(struct d2b_conf *conf)
{
	conf->encode_force = false;
	conf->skip_vars = false;
	conf->gen_floats = false;
	conf->skip_decl_tag = false;
	conf->skip_type_tag = false;
	conf->skip_enum64 = false;
	conf->gen_optimized = false;
	conf->skip_inconsistent_proto = false;
	conf->decl_tag_kfuncs = false;
	conf->reproducible_build = false;
	conf->distilled_base = false;
	conf->global_var = false;
	conf->attributes = false;
	conf->true_signature = false;
	conf->force_cu_merging = false;
	conf->pahole = PAHOLE_RELEASE_DEFAULT;
}

int btf_features__set_release(struct d2b_conf *conf, const char *value)
{
	if (!strcmp(value, "1.30"))
		conf->pahole = 130;
	else if (!strcmp(value, "1.32"))
		conf->pahole = 132;
	else
		return -EINVAL;
	return 0;
}

/* the feature is one the release reproduced has */
static bool feature_known(const struct d2b_conf *conf, const struct btf_feature *f)
{
	return conf->pahole >= f->since;
}

/* dwarf2btf does the feature for the release reproduced */
static bool feature_supported(const struct d2b_conf *conf, const struct btf_feature *f)
{
	return f->supported && conf->pahole >= f->supported;
}

static void features_reset(struct d2b_conf *conf)
{
	size_t i;

	for (i = 0; i < NR_FEATURES; i++)
		*feature_field(conf, &btf_features[i]) = !btf_features[i].on_value;
}

static void features_enable_default(struct d2b_conf *conf)
{
	size_t i;

	for (i = 0; i < NR_FEATURES; i++)
		if (btf_features[i].is_default && feature_supported(conf, &btf_features[i]))
			*feature_field(conf, &btf_features[i]) = btf_features[i].on_value;
}

static int feature_enable(struct d2b_conf *conf, const char *name)
{
	size_t i;

	if (!strcmp(name, "default")) {
		features_enable_default(conf);
		return 0;
	}
	for (i = 0; i < NR_FEATURES; i++) {
		if (strcmp(name, btf_features[i].name) || !feature_known(conf, &btf_features[i]))
			continue;
		if (feature_supported(conf, &btf_features[i]))
			*feature_field(conf, &btf_features[i]) = btf_features[i].on_value;
		else if (conf->verbose)
			fprintf(stderr, "dwarf2btf: BTF feature '%s' is not supported, ignored\n",
				name);
		return 0;
	}
	if (conf->features_strict) {
		fprintf(stderr, "dwarf2btf: unknown BTF feature '%s'\n", name);
		return -EINVAL;
	}
	if (conf->verbose)
		fprintf(stderr, "dwarf2btf: ignoring unknown BTF feature '%s'\n", name);
	return 0;
}

int btf_features__parse(struct d2b_conf *conf, const char *list)
{
	char *copy, *tok, *save = NULL;
	int err = 0;

	if (!conf->features_seen) {
		features_reset(conf);
		conf->features_seen = true;
	}
	if (list[0] == '+') {
		features_enable_default(conf);
		list++;
	}
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		err = feature_enable(conf, tok);
		if (err)
			break;
	}
	free(copy);
	return err;
}

void btf_features__print_supported(const struct d2b_conf *conf)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < NR_FEATURES; i++) {
		if (!feature_supported(conf, &btf_features[i]))
			continue;
		printf("%s%s", sep, btf_features[i].name);
		sep = ",";
	}
	printf("\n");
}

/* legacy flags: each sets one bool (NULL: accepted, no effect) */
struct legacy_flag {
	const char *name;
	ssize_t offset; /* of the bool in struct d2b_conf, or -1 */
};

#define LEGACY(n, field)                                      \
	{                                                     \
		n, __builtin_offsetof(struct d2b_conf, field) \
	}

static const struct legacy_flag legacy_flags[] = {
	LEGACY("btf_gen_floats", gen_floats),
	LEGACY("btf_gen_optimized", gen_optimized),
	LEGACY("skip_encoding_btf_inconsistent_proto", skip_inconsistent_proto),
	LEGACY("skip_encoding_btf_vars", skip_vars),
	LEGACY("skip_encoding_btf_decl_tag", skip_decl_tag),
	LEGACY("skip_encoding_btf_type_tag", skip_type_tag),
	LEGACY("skip_encoding_btf_enum64", skip_enum64),
	LEGACY("btf_encode_force", encode_force),
	LEGACY("reproducible_build", reproducible_build),
	{ "btf_gen_all", -1 }, /* as in pahole 1.27+ */
};

int btf_features__apply_option(struct d2b_conf *conf, const char *name, const char *value)
{
	size_t i;

	if (!strcmp(name, "btf_features") && value)
		return btf_features__parse(conf, value);
	if (!strcmp(name, "btf_features_strict") && value) {
		conf->features_strict = true;
		return btf_features__parse(conf, value);
	}
	if (!strcmp(name, "lang_exclude") && value) {
		conf->lang_exclude = value;
		return 0;
	}
	if (!strcmp(name, "btf_base") && value) {
		conf->btf_base = value;
		return 0;
	}
	for (i = 0; i < sizeof(legacy_flags) / sizeof(legacy_flags[0]); i++) {
		if (strcmp(name, legacy_flags[i].name) || value)
			continue;
		if (legacy_flags[i].offset >= 0)
			*(bool *)((char *)conf + legacy_flags[i].offset) = true;
		return 0;
	}
	return -ENOENT;
}
