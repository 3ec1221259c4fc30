/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_features - pahole's --btf_features rules, applied to a struct
 * d2b_conf (d2b_conf.h). Settings driven by a BTF feature are listed in one
 * table (btf_features.c) with the field they set, so --btf_features,
 * --supported_btf_features and the legacy flags all go through the same
 * code.
 */
#ifndef BTF_FEATURES_H
#define BTF_FEATURES_H

#include "d2b_conf.h"

/*
 * plain -J defaults: vars, decl/type tags and enum64 on, the rest off; the
 * release reproduced PAHOLE_RELEASE_DEFAULT
 */
void btf_features__defaults(struct d2b_conf *conf);
/*
 * Reproduce the pahole release @value names ("1.30" or "1.32"), before any
 * feature is parsed: the features a release knows differ. Returns 0, or
 * -EINVAL for any other value.
 */
int btf_features__set_release(struct d2b_conf *conf, const char *value);
/*
 * Apply one --btf_features=@list. Returns 0, or -EINVAL for an unknown name
 * when conf->features_strict (after printing it).
 */
int btf_features__parse(struct d2b_conf *conf, const char *list);
/*
 * Apply the encoding option --@name, with its argument @value (NULL for a
 * flag), as the command line does: --btf_features, --btf_features_strict,
 * --lang_exclude, --btf_base and the legacy --btf_gen_* /
 * --skip_encoding_btf_* / --btf_encode_force / --btf_gen_all /
 * --reproducible_build flags. Returns 0, btf_features__parse()'s error, or
 * -ENOENT for any other name (or a flag given a value, or the reverse).
 */
int btf_features__apply_option(struct d2b_conf *conf, const char *name, const char *value);
/* print the release's supported feature names, comma-separated, in table order */
void btf_features__print_supported(const struct d2b_conf *conf);

#endif /* BTF_FEATURES_H */
