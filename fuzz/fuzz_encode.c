// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_encode - libFuzzer target over the whole pipeline.
 *
 * Each input is an ELF file. It is written to a memfd and encoded through
 * /proc/self/fd/N by encode_pipeline__run(), exactly as `dwarf2btf -J
 * --btf_encode_detached=FILE` would encode it, twice:
 *
 *  1. the kernel 6.12 flag set (encode_force,var,float,enum64,decl_tag,
 *     type_tag,optimized_func,consistent_func,decl_tag_kfuncs) plus
 *     global_var, so variables of every section are encoded, at -j1;
 *  2. plain -J defaults (no encode_force: the error paths for invalid names
 *     are taken) with --lang_exclude=rust, at -j2, and one dedup batch per
 *     CU (btf_batches.c), so inputs of several CUs take every merge path;
 *
 * and each once more with --exact (no shortcut): where both succeed, their
 * outputs must be the same bytes, or the target aborts (a shortcut's bug).
 * An input with a .BTF section is also encoded a third way: as the first,
 * split on its own .BTF as the base (btf_dedup against libbpf's dedup).
 *
 * Each input is also read as a --btf_base (raw BTF, or an ELF file's .BTF)
 * by btf_base__open(); a base it accepts gets a split BTF of
 * copies of its first types and pointers to them, deduplicated against it
 * as a module's BTF is, by btf_dedup (libbpf 1.1's way and 1.7.0's) and by
 * libbpf: a base that passes the checks must crash neither, and btf_dedup
 * must give libbpf 1.1's bytes.
 *
 * fuzz/mutate_elf.c is the libFuzzer binary's custom mutator.
 *
 * Errors are expected and ignored (they go to stderr: run libFuzzer with
 * -close_fd_mask=2 to silence them); crashes, sanitizer reports, leaks and
 * hangs are the findings. Nothing survives from one input to the next but
 * the output directory made once per process; the output file is removed
 * after each run.
 *
 * Built as the libFuzzer binary fuzz_encode (cmake -DDWARF2BTF_FUZZ=ON with
 * clang), and with fuzz/replay_main.c as fuzz_replay, which runs the
 * committed corpus (fuzz/corpus) in CTest without libFuzzer.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "btf_base.h"
#include "btf_batches.h"
#include "btf_dedup.h"
#include "btf_features.h"
#include "btf_raw.h"
#include "d2b_util.h"
#include "dwarves_emit_ordered.h"
#include "encode_pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KERNEL_6_12_FEATURES                                                              \
	"encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func," \
	"decl_tag_kfuncs"

static char out_dir[64];
static char out_path[96];
static char exact_path[96];

static void cleanup_out_dir(void)
{
	unlink(out_path);
	unlink(exact_path);
	rmdir(out_dir);
}

static int setup_once(void)
{
	static int done;
	const char *tmp = getenv("TMPDIR");

	if (done)
		return 0;
	libbpf_set_print(NULL);
	snprintf(out_dir, sizeof(out_dir), "%s/fuzz_encode.XXXXXX",
		 tmp && strlen(tmp) < 32 ? tmp : "/tmp");
	if (!mkdtemp(out_dir)) {
		perror("fuzz_encode: mkdtemp");
		return -1;
	}
	snprintf(out_path, sizeof(out_path), "%s/out.btf", out_dir);
	snprintf(exact_path, sizeof(exact_path), "%s/exact.btf", out_dir);
	atexit(cleanup_out_dir);
	done = 1;
	return 0;
}

/* 0 if @path encodes (to @out), else an error */
static int encode_one(const char *path, int variant, bool exact, const char *out)
{
	struct d2b_conf conf = { .nr_jobs = 1 };

	btf_features__defaults(&conf);
	if (variant != 1) {
		btf_features__parse(&conf, KERNEL_6_12_FEATURES);
		btf_features__parse(&conf, "global_var");
		if (variant == 2) /* split BTF on the input's own .BTF */
			conf.btf_base = path;
	} else {
		conf.nr_jobs = 2;
		conf.lang_exclude = "rust";
	}
	conf.window = emit_ordered_window(conf.nr_jobs);
	/* the command line's dedup batches, or one per CU: every merge path */
	conf.batch_types = variant != 1 ? BTF_BATCH_TYPES : 1;
	if (exact) { /* as the command line sets --exact */
		conf.exact = true;
		conf.batch_types = 0;
	}
	conf.detached = out;
	return encode_pipeline__run(path, &conf);
}

/* whether the files @a and @b hold the same bytes, or neither exists (no BTF to write) */
static bool same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca, cb;

	if (!fa && !fb)
		return true;
	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		same = ca == cb;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* libbpf's @l and btf_raw's @r: the same raw bytes (and both made), or abort */
static void same_raw(struct btf *l, struct btf_raw *r)
{
	enum btf_endianness host =
		__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN;
	uint32_t sl, sr = 0;
	const void *dl = btf__raw_data(l, &sl);
	const void *dr = r ? btf_raw__raw_data(r, btf__endianness(l) != host, &sr) : NULL;

	if (!dl || !dr || sl != sr || memcmp(dl, dr, sl)) {
		fprintf(stderr, "fuzz_encode: btf_dedup and libbpf's btf__dedup differ\n");
		abort();
	}
}

/* split BTF on @bb: copies of its first @n types, then a pointer to each; NULL: no memory */
static struct btf_raw *split_copies(struct btf_base *bb, uint32_t n)
{
	struct btf_raw *r = btf_raw__new(bb);
	uint32_t id;

	for (id = 1; r && id <= n; id++) {
		const struct btf_type *t = btf_base__type(bb, id);

		if (btf_raw__add_record(r, t, btf_raw__record_size(t)) < 0 ||
		    btf_raw__add_ref(r, 0, BTF_KIND_PTR, id) < 0) {
			btf_raw__free(r);
			return NULL;
		}
	}
	return r;
}

/*
 * @path as a base: checked, then a split BTF of copies of its first types
 * and pointers to them, deduplicated against it by btf_dedup (as libbpf 1.1
 * and as 1.7.0) and by libbpf, whose result 1.1's must equal. Whether the
 * base was accepted.
 */
static bool base_both(const char *path)
{
	struct btf_raw *own = NULL, *own170 = NULL;
	struct btf *base, *split = NULL;
	struct btf_base *bb;
	uint32_t id, n;
	int err;

	bb = btf_base__open(path, &err);
	if (!bb)
		return false;
	base = btf_base__btf(bb, &err);
	/* made modifiable now, by libbpf, not under btf__add_type's feet */
	if (base)
		btf__find_str(base, "");
	n = btf_base__type_cnt(bb) - 1;
	n = n < 256 ? n : 256;
	if (base) {
		split = btf__new_empty_split(base);
		own = split_copies(bb, n);
		own170 = split_copies(bb, n);
	}
	for (id = 1; split && id <= n; id++)
		if (btf__add_type(split, base, btf__type_by_id(base, id)) < 0 ||
		    btf__add_ptr(split, (int)id) < 0)
			break;
	if (split && id > n) {
		err = own ? btf_dedup__raw(own, bb, BTF_DEDUP_LIBBPF_1_1) : -ENOMEM;
		if (own170)
			btf_dedup__raw(own170, bb, BTF_DEDUP_LIBBPF_1_7_0);
		if (!btf__dedup(split, NULL) && !err)
			same_raw(split, own);
	}
	btf_raw__free(own);
	btf_raw__free(own170);
	btf__free(split);
	btf_base__free(bb);
	return true;
}

/* the default path, then --exact: where both succeed, the same bytes */
static void encode_both(const char *path, int variant)
{
	if (!encode_one(path, variant, false, out_path) &&
	    !encode_one(path, variant, true, exact_path) && !same_file(out_path, exact_path)) {
		fprintf(stderr, "fuzz_encode: variant %d: the default path and --exact differ\n",
			variant);
		abort();
	}
	unlink(out_path);
	unlink(exact_path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	int fd;

	if (setup_once())
		abort();
	fd = memfd_create("fuzz_encode.o", MFD_CLOEXEC);
	if (fd < 0) {
		perror("fuzz_encode: memfd_create");
		abort();
	}
	if (d2b_write_all(fd, data, size)) {
		perror("fuzz_encode: write");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	encode_both(path, 0);
	encode_both(path, 1);
	if (base_both(path))
		encode_both(path, 2);
	close(fd);
	return 0;
}
