/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_features - the encoder configuration and pahole's --btf_features rules.
 *
 * struct d2b_conf holds every setting the command line can change. Settings
 * driven by a BTF feature are listed in one table (btf_features.c) with the
 * field they set, so --btf_features, --supported_btf_features and the legacy
 * flags all go through the same code.
 */
#ifndef BTF_FEATURES_H
#define BTF_FEATURES_H

#include <stdbool.h>

struct d2b_conf {
	/* feature-driven settings (see btf_features.c) */
	bool encode_force;
	bool skip_vars;
	bool gen_floats;
	bool skip_decl_tag;
	bool skip_type_tag;
	bool skip_enum64;
	bool gen_optimized;
	bool skip_inconsistent_proto;
	bool decl_tag_kfuncs;
	bool reproducible_build; /* accepted, no effect: always reproducible */
	bool distilled_base;
	bool global_var;
	bool attributes;
	bool true_signature;   /* pahole 1.32 */
	bool force_cu_merging; /* pahole 1.32 */

	/* other settings */
	unsigned int pahole; /* the pahole release reproduced: 130 or 132 */
	bool features_seen; /* a --btf_features was parsed */
	bool features_strict;
	int verbose;
	unsigned int nr_jobs; /* worker threads, >= 1 */
	unsigned int nr_cpus; /* CPUs it may run on (0: not known): threads that run at once */
	unsigned int window;  /* max units loaded, not yet encoded */
	unsigned int batch_types; /* types per dedup batch (btf_batches.c); 0: one BTF */
	bool exact; /* --exact: no shortcut, pahole's whole stream to one btf__dedup */
	const char *lang_exclude; /* comma-separated, or NULL */
	const char *detached;	  /* --btf_encode_detached path, or NULL */
	const char *btf_base;

	/* test hooks (tests/stress_kernel.c); the command line never sets them */
	void (*test_before_load)(void *ctx, unsigned int id); /* on a worker */
	void (*test_on_in_flight)(void *ctx, unsigned int in_flight);
	void *test_ctx;
};

/* the pahole releases reproduced, as --numeric_version prints them */
#define PAHOLE_RELEASE_DEFAULT 130
#define PAHOLE_RELEASE_NEWEST 132

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
