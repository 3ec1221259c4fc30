/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * d2b_conf - the encoder configuration: the command line's settings and
 * those dwarf2btf.c derives from them (nr_cpus, window, batch_types), filled
 * by dwarf2btf.c (btf_features.h for the feature rules) and read-only once
 * the encoding starts, on every thread.
 */
#ifndef D2B_CONF_H
#define D2B_CONF_H

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
	bool true_signature; /* pahole 1.32 */
	bool force_cu_merging; /* pahole 1.32 */

	/* other settings */
	unsigned int pahole; /* the pahole release reproduced: 130 or 132 */
	bool features_seen; /* a --btf_features was parsed */
	bool features_strict;
	int verbose;
	unsigned int nr_jobs; /* worker threads, >= 1 */
	unsigned int nr_cpus; /* CPUs it may run on (0: not known): threads that run at once */
	unsigned int window; /* max units loaded, not yet encoded */
	unsigned int batch_types; /* types per dedup batch (btf_batches.c); 0: one BTF */
	bool exact; /* --exact: no shortcut, pahole's whole stream to one btf__dedup */
	const char *lang_exclude; /* comma-separated, or NULL */
	const char *detached; /* --btf_encode_detached path, or NULL */
	const char *btf_base;
};

/* the pahole release reproduced unless asked otherwise, as --numeric_version prints it */
#define PAHOLE_RELEASE_DEFAULT 130

#endif /* D2B_CONF_H */
