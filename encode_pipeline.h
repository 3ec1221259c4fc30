/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * encode_pipeline - encode one ELF file's DWARF as BTF and write it, as
 * `dwarf2btf -J` does: to conf->detached, or into @path when that is NULL.
 */
#ifndef ENCODE_PIPELINE_H
#define ENCODE_PIPELINE_H

struct d2b_conf;

/*
 * Returns 0 or -errno. Every error was already reported on stderr with the
 * file and the CU/DIE or section it concerns; on error no output file is
 * left and an in-place target is unchanged.
 */
int encode_pipeline__run(const char *path, const struct d2b_conf *conf);

/*
 * Calls a test makes along the way (tests/stress_kernel.c); the command
 * line runs without them.
 */
struct encode_hooks {
	void (*before_load)(void *ctx, unsigned int id); /* on a worker, before a unit's load */
	void (*on_in_flight)(void *ctx, unsigned int in_flight); /* after every change of it */
	void *ctx;
};

/* encode_pipeline__run(), calling @hooks */
int encode_pipeline__run_hooked(const char *path, const struct d2b_conf *conf,
				const struct encode_hooks *hooks);

#endif /* ENCODE_PIPELINE_H */
