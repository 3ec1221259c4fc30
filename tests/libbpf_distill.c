// SPDX-License-Identifier: GPL-2.0-only
/*
 * libbpf_distill - libbpf's own btf__distill_base and btf__relocate, for
 * the tests to check dwarf2btf's distilled BTF against (tests/distill.sh,
 * tests/boot.sh).
 *
 *   libbpf_distill distill BASE SPLIT OUT_BASE OUT_SPLIT
 *       SPLIT (raw split BTF on the raw BASE) distilled: the distilled base
 *       and the split BTF on it, as btf__raw_data writes them
 *   libbpf_distill relocate DIST_BASE SPLIT BASE OUT
 *       SPLIT (on the distilled DIST_BASE) relocated onto BASE, as the
 *       kernel relocates a module's BTF when it loads it
 *
 * Built against Debian 12's libbpf 1.1, which has neither function: both
 * are weak here, and the program runs on Debian trixie's libbpf 1.5, the
 * one pahole 1.30 runs on, through the same ld.so (tests/fetch.sh
 * pahole130's tree). Exit status 0, or 1 with one line on stderr.
 */
#include <bpf/btf.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int btf__distill_base(const struct btf *src_btf, struct btf **new_base_btf,
		      struct btf **new_split_btf) __attribute__((weak));
int btf__relocate(struct btf *btf, const struct btf *base_btf) __attribute__((weak));

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "libbpf_distill: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

static int write_btf(const struct btf *btf, const char *path)
{
	const void *data;
	uint32_t size;
	FILE *f;

	data = btf__raw_data(btf, &size);
	f = data ? fopen(path, "wb") : NULL;
	if (!f || fwrite(data, 1, size, f) != size) {
		if (f)
			fclose(f);
		return fail("cannot write", path);
	}
	return fclose(f) ? fail("cannot write", path) : 0;
}

static int distill(char **argv)
{
	struct btf *base, *split, *new_base, *new_split;

	base = btf__parse_raw(argv[0]);
	if (!base)
		return fail("cannot read", argv[0]);
	split = btf__parse_raw_split(argv[1], base);
	if (!split)
		return fail("cannot read", argv[1]);
	if (btf__distill_base(split, &new_base, &new_split))
		return fail("btf__distill_base failed on", argv[1]);
	return write_btf(new_base, argv[2]) || write_btf(new_split, argv[3]);
}

static int relocate(char **argv)
{
	struct btf *dist, *split, *base;

	dist = btf__parse_raw(argv[0]);
	if (!dist)
		return fail("cannot read", argv[0]);
	split = btf__parse_raw_split(argv[1], dist);
	if (!split)
		return fail("cannot read", argv[1]);
	base = btf__parse_raw(argv[2]);
	if (!base)
		return fail("cannot read", argv[2]);
	if (btf__relocate(split, base))
		return fail("btf__relocate failed on", argv[1]);
	return write_btf(split, argv[3]);
}

int main(int argc, char **argv)
{
	if (!btf__distill_base || !btf__relocate) {
		fprintf(stderr, "libbpf_distill: this libbpf has no btf__distill_base (1.5 has)\n");
		return 1;
	}
	if (argc == 6 && !strcmp(argv[1], "distill"))
		return distill(argv + 2);
	if (argc == 6 && !strcmp(argv[1], "relocate"))
		return relocate(argv + 2);
	fprintf(stderr, "usage: libbpf_distill distill BASE SPLIT OUT_BASE OUT_SPLIT\n"
			"       libbpf_distill relocate DIST_BASE SPLIT BASE OUT\n");
	return 2;
}
