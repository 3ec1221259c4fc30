/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * btf_encoder_single - the one BTF encoder.
 *
 * Exactly one thread (the collector) owns a struct btf_encoder: it calls
 * btf_encoder__start_writer(), btf_encoder__encode_cu() for every unit in id
 * order, btf_encoder__end_writer(), then btf_encoder__merge(),
 * btf_encoder__finish(), btf_encoder__dedup() and btf_encoder__write_raw().
 * encode_cu plans each unit (its type ids) and hands it to the
 * encoder's own writer thread, which adds its BTF, in the same order, while
 * the collector plans the next. No function here is thread-safe but
 * btf_encoder__prepare_cu(), which the loader workers call on the units
 * they load. (The encoder hands finished batches to btf_batches, whose
 * threads touch nothing of the encoder's.)
 */
#ifndef BTF_ENCODER_SINGLE_H
#define BTF_ENCODER_SINGLE_H

#include <stddef.h>
#include <stdint.h>

#include "btf_batches.h"

struct btf_base;
struct btf_encoder;
struct cu;
struct d2b_conf;
struct elf_symtab;

struct btf_encoder_stats {
	uint32_t nr_cus;
	uint32_t nr_funcs_saved;
	uint32_t nr_funcs;
	uint32_t nr_vars;
	uint32_t nr_types_pre_dedup; /* the stream, including void */
	uint32_t nr_protos_shared; /* of those, functions' FUNC_PROTOs not added */
	uint32_t nr_types; /* after dedup, including void */
	double writer_cpu_s; /* CPU time of the writer thread */
	struct btf_batches_stats batches; /* all 0: one BTF, deduplicated once */
};

/*
 * @base: NULL, or the base BTF to encode split BTF against (kernel modules);
 * it must outlive the encoder. @path names the input in messages. Returns
 * NULL with *@err = -errno.
 */
struct btf_encoder *btf_encoder__new(const struct d2b_conf *conf, struct elf_symtab *es,
				     struct btf_base *base, const char *path, int *err);
void btf_encoder__free(struct btf_encoder *enc);
/*
 * Names inside [@data, @data + @size) stay valid and unchanged while the
 * encoder runs (the input's .debug_str): their string offsets are cached
 * by address. Optional; a speed-up only.
 */
void btf_encoder__set_str_section(struct btf_encoder *enc, const char *data, size_t size);

/*
 * On the worker that loaded @cu, what needs no order: look up the ELF
 * function of each of its functions that could be saved (struct cu_func's
 * elf and by_prefix), and build its BTF records (@cu->btf,
 * btf_encoder_cu.c). Reads only what btf_encoder__new() set up, and takes
 * a builder from the encoder's pool under its lock: thread-safe, for any
 * number of units at once. 0, or -errno with its message printed (through
 * d2b_msgs where the caller keeps it): @cu cannot be encoded.
 */
int btf_encoder__prepare_cu(const struct btf_encoder *enc, struct cu *cu);
/*
 * The writer thread; @done(@ctx, cu) gives back each unit it is done with,
 * on that thread. 0 or -errno.
 */
int btf_encoder__start_writer(struct btf_encoder *enc, void (*done)(void *ctx, struct cu *cu),
			      void *ctx);
/*
 * Hand @cu over: planned now, written by the writer, which gives it back.
 * -ECANCELED once the writer failed, or @cu cannot be planned: the writer
 * reports that when it reaches @cu, so the error reported is the first in
 * unit order; btf_encoder__end_writer() returns it.
 */
int btf_encoder__encode_cu(struct btf_encoder *enc, struct cu *cu);
/* Write what was handed over and stop the writer: its first error, or 0. */
int btf_encoder__end_writer(struct btf_encoder *enc);
/*
 * After the last CU: wait for the batches' dedups and merge them (see
 * btf_batches.c), and sort the saved functions and variables (without
 * batches, the only step; under --exact the BTF then becomes libbpf's).
 * 0 or -errno (printed).
 */
int btf_encoder__merge(struct btf_encoder *enc);
/* Emit the saved functions and the DATASECs. 0, 1 if the BTF holds nothing
 * but void (nothing to write), or -errno. The DWARF is not used after this. */
int btf_encoder__finish(struct btf_encoder *enc);
/*
 * The final dedup: btf_dedup's, with the decisions of the libbpf release
 * reproduced; under --exact libbpf's own btf__dedup, except for libbpf
 * 1.7.0's (split BTF as pahole 1.32). 0 or -errno (printed).
 */
int btf_encoder__dedup(struct btf_encoder *enc);
/* Write raw BTF atomically: a temporary file in the same directory, then
 * rename(2). On error nothing is left behind. 0 or -errno. */
int btf_encoder__write_raw(struct btf_encoder *enc, const char *path);

/* the final raw BTF (after finish), in the ELF's byte order; NULL on ENOMEM */
const void *btf_encoder__raw_data(struct btf_encoder *enc, size_t *size);

void btf_encoder__stats(const struct btf_encoder *enc, struct btf_encoder_stats *stats);

#endif /* BTF_ENCODER_SINGLE_H */
