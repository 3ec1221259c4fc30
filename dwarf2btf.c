// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf2btf - encode an ELF file's DWARF as BTF, byte-identical to pahole
 * -J for the same flags (1.30, or 1.32 when asked), and identical for every
 * -j.
 *
 * This file is the command line: parse pahole-compatible options into
 * struct d2b_conf and hand the input to encode_pipeline__run(). Errors are
 * printed once where they happen, with file and CU/DIE context; here they
 * only become the exit status.
 */
#include <bpf/libbpf.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf_batches.h"
#include "btf_features.h"
#include "d2b_util.h"
#include "dwarf_loader.h"
#include "dwarves_emit_ordered.h"
#include "encode_pipeline.h"
#include "tmpfiles.h"

#ifndef DWARF2BTF_VERSION /* CMakeLists.txt: the project's version */
#define DWARF2BTF_VERSION "unknown"
#endif

/* the environment variable that selects the pahole release reproduced */
#define RELEASE_ENV "DWARF2BTF_PAHOLE_VERSION"

enum {
	OPT_DETACHED = 256,
	OPT_ENCODING, /* btf_features__apply_option() knows it by name */
	OPT_SUPPORTED,
	OPT_VERSION,
	OPT_NUMERIC_VERSION,
	OPT_EXACT,
	OPT_RELEASE,
};

static const struct option long_options[] = {
	{ "btf_encode", no_argument, NULL, 'J' },
	{ "btf_encode_detached", required_argument, NULL, OPT_DETACHED },
	{ "jobs", optional_argument, NULL, 'j' },
	{ "btf_features", required_argument, NULL, OPT_ENCODING },
	{ "btf_features_strict", required_argument, NULL, OPT_ENCODING },
	{ "supported_btf_features", no_argument, NULL, OPT_SUPPORTED },
	{ "btf_gen_floats", no_argument, NULL, OPT_ENCODING },
	{ "btf_gen_optimized", no_argument, NULL, OPT_ENCODING },
	{ "skip_encoding_btf_inconsistent_proto", no_argument, NULL, OPT_ENCODING },
	{ "skip_encoding_btf_vars", no_argument, NULL, OPT_ENCODING },
	{ "skip_encoding_btf_decl_tag", no_argument, NULL, OPT_ENCODING },
	{ "skip_encoding_btf_type_tag", no_argument, NULL, OPT_ENCODING },
	{ "skip_encoding_btf_enum64", no_argument, NULL, OPT_ENCODING },
	{ "btf_encode_force", no_argument, NULL, OPT_ENCODING },
	{ "btf_gen_all", no_argument, NULL, OPT_ENCODING },
	{ "lang_exclude", required_argument, NULL, OPT_ENCODING },
	{ "reproducible_build", no_argument, NULL, OPT_ENCODING },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "numeric_version", no_argument, NULL, OPT_NUMERIC_VERSION },
	{ "btf_base", required_argument, NULL, OPT_ENCODING },
	{ "exact", no_argument, NULL, OPT_EXACT },
	{ "pahole_version", required_argument, NULL, OPT_RELEASE },
	{ "verbose", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{},
};

static void usage(FILE *f, const struct d2b_conf *conf)
{
	fprintf(f,
		"dwarf2btf %s, reproducing pahole v1.%u\n"
		"Usage: dwarf2btf -J [OPTION...] FILE\n"
		"Encode the DWARF of FILE as BTF, byte for byte as pahole -J does.\n"
		"\n"
		"  -J, --btf_encode               encode BTF into FILE's .BTF section (atomically;\n"
		"                                 $LLVM_OBJCOPY, default llvm-objcopy, adds it)\n"
		"      --btf_encode_detached=OUT  write raw BTF to OUT\n"
		"  -j[N], --jobs[=N]              N worker threads, 1 to 1024 (bare or 0: the CPUs\n"
		"                                 it may use; default 1); the value is attached\n"
		"      --btf_features=LIST        features: default, +LIST, or a list (see\n"
		"                                 --supported_btf_features); unknown names ignored\n"
		"      --btf_features_strict=LIST as --btf_features, unknown names are errors\n"
		"      --supported_btf_features   print the supported features\n"
		"      --btf_gen_floats           encode floating point types as FLOAT\n"
		"      --btf_gen_optimized        match optimized (.isra, .constprop) symbols\n"
		"      --skip_encoding_btf_inconsistent_proto  drop inconsistent functions\n"
		"      --skip_encoding_btf_vars   no VARs / DATASECs\n"
		"      --skip_encoding_btf_decl_tag  no decl tags\n"
		"      --skip_encoding_btf_type_tag  no type tags\n"
		"      --skip_encoding_btf_enum64 no ENUM64 (64-bit enums become 32-bit)\n"
		"      --btf_encode_force         skip invalid variables instead of failing\n"
		"      --btf_gen_all              accepted, no effect (as in pahole 1.27+)\n"
		"      --lang_exclude=LIST        skip CUs in these languages (or\n"
		"                                 $PAHOLE_LANG_EXCLUDE)\n"
		"      --reproducible_build       accepted, no effect: output is always\n"
		"                                 reproducible\n"
		"      --btf_base=FILE            encode split BTF against FILE's BTF (modules)\n"
		"      --exact                    verification: no shortcut, the whole stream\n"
		"                                 through one dedup, as pahole (slower)\n"
		"      --pahole_version=RELEASE   reproduce pahole 1.30 (default) or 1.32 (or\n"
		"                                 $" RELEASE_ENV ")\n"
		"  -V, --verbose                  per-phase times and counts on stderr\n"
		"      --version                  print the pahole release reproduced\n"
		"      --numeric_version          the same, as a number\n"
		"  -h, --help                     this help\n"
		"Long options are written in full: pahole has options that a prefix would\n"
		"name here (--lang is not --lang_exclude).\n",
		DWARF2BTF_VERSION, conf->pahole - 100);
}

/*
 * The pahole release reproduced, from $DWARF2BTF_PAHOLE_VERSION and then
 * --pahole_version (the last one given): read before the other options,
 * whose meaning depends on it (the features a release knows, --version).
 */
static int parse_release(int argc, char **argv, struct d2b_conf *conf)
{
	const char *value = getenv(RELEASE_ENV), *from = "$" RELEASE_ENV;
	static const char opt[] = "--pahole_version";
	int i;

	if (value && !*value)
		value = NULL;
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (strncmp(argv[i], opt, sizeof(opt) - 1))
			continue;
		if (argv[i][sizeof(opt) - 1] == '=') {
			value = argv[i] + sizeof(opt);
		} else if (!argv[i][sizeof(opt) - 1] && i + 1 < argc) {
			value = argv[++i];
		} else {
			continue; /* another option, or no value: getopt says so */
		}
		from = opt;
	}
	if (value && btf_features__set_release(conf, value)) {
		pr_warn("unknown pahole release '%s' in %s (1.30 or 1.32)\n", value, from);
		return -EINVAL;
	}
	return 0;
}

/*
 * The CPUs this process may run on (its affinity, as nproc counts them: a
 * container's cpuset, taskset), else every online CPU.
 */
static unsigned int nr_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)n : 1;
}

/* -j's value; bare (or 0): @cpus, the CPUs it may run on */
static int parse_jobs(const char *arg, unsigned int cpus, unsigned int *jobs)
{
	char *end;
	unsigned long n;

	if (!arg) {
		*jobs = cpus;
		return 0;
	}
	n = strtoul(arg, &end, 10);
	if (*end || end == arg || n > 1024) {
		pr_warn("invalid -j value '%s': 1 to 1024, or 0 for every CPU\n", arg);
		return -EINVAL;
	}
	*jobs = n ? (unsigned int)n : cpus;
	return 0;
}

/*
 * getopt_long takes any unambiguous prefix of a long option; pahole has
 * options of its own such prefixes would name (--lang, whose meaning is the
 * opposite of --lang_exclude's): long options must be written in full.
 */
static int check_long_names(int argc, char **argv)
{
	int i, o;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *name = argv[i] + 2;
		size_t len = strcspn(name, "=");

		if (strncmp(argv[i], "--", 2))
			continue;
		for (o = 0; long_options[o].name; o++)
			if (strlen(long_options[o].name) == len &&
			    !strncmp(long_options[o].name, name, len))
				break;
		if (!long_options[o].name) {
			pr_warn("unrecognized option '--%.*s' (see --help)\n", (int)len, name);
			return -EINVAL;
		}
		if (long_options[o].has_arg == no_argument && name[len]) {
			pr_warn("option '--%.*s' takes no value (see --help)\n", (int)len, name);
			return -EINVAL;
		}
		/* a required value given as the next word is no option */
		if (long_options[o].has_arg == required_argument && !name[len])
			i++;
	}
	return 0;
}

/* Returns 0 to run, 1 to exit successfully (version, help), -errno on error. */
static int parse_args(int argc, char **argv, struct d2b_conf *conf, bool *encode)
{
	int c, idx = 0, err;

	err = check_long_names(argc, argv);
	if (!err)
		err = parse_release(argc, argv, conf);
	if (err)
		return err;
	opterr = 0; /* one line of ours instead of getopt's and the usage */
	while ((c = getopt_long(argc, argv, ":Jj::Vh", long_options, &idx)) != -1) {
		err = 0;
		/* clang-format off */
		switch (c) {
		case 'J': *encode = true; break;
		case OPT_DETACHED: *encode = true; conf->detached = optarg; break;
		case 'j':
			err = parse_jobs(optarg, conf->nr_cpus, &conf->nr_jobs);
			break;
		case OPT_ENCODING:
			err = btf_features__apply_option(conf, long_options[idx].name, optarg);
			break;
		case OPT_SUPPORTED:
			btf_features__print_supported(conf);
			return 1;
		case OPT_VERSION: printf("v1.%u\n", conf->pahole - 100); return 1;
		case OPT_NUMERIC_VERSION: printf("%u\n", conf->pahole); return 1;
		case OPT_EXACT: conf->exact = true; break;
		case OPT_RELEASE: break; /* parse_release() */
		case 'V': conf->verbose++; break;
		case 'h': usage(stdout, conf); return 1;
		case ':': /* (long options are all known: check_long_names) */
			if (!strncmp(argv[optind - 1], "--", 2))
				pr_warn("option '%s' needs a value (see --help)\n",
					argv[optind - 1]);
			else
				pr_warn("option '-%c' needs a value (see --help)\n", optopt);
			return -EINVAL;
		default:
			pr_warn("unrecognized option '-%c' (see --help)\n", optopt);
			return -EINVAL;
		}
		/* clang-format on */
		if (err)
			return err;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct d2b_conf conf = { .nr_jobs = 1 };
	const char *lang_from = "--lang_exclude";
	bool encode = false;
	int err;

	btf_features__defaults(&conf);
	conf.nr_cpus = nr_cpus();
	err = parse_args(argc, argv, &conf, &encode);
	if (err)
		return err > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	if (!conf.lang_exclude) {
		conf.lang_exclude = getenv("PAHOLE_LANG_EXCLUDE");
		lang_from = "$PAHOLE_LANG_EXCLUDE";
	}
	if (conf.lang_exclude) {
		size_t len;
		int bad = dwarf_loader__lang_check(conf.lang_exclude, &len);

		if (bad >= 0) {
			pr_warn("unknown language \"%.*s\" in %s\n", (int)len,
				conf.lang_exclude + bad, lang_from);
			return EXIT_FAILURE;
		}
	}
	/* window: units loaded ahead of the encoder; see Documentation/design.md */
	conf.window = emit_ordered_window(conf.nr_jobs);
	conf.batch_types = conf.exact ? 0 : BTF_BATCH_TYPES;
	if (optind != argc - 1) {
		int i;

		/* "-j 4": -j's value is optional, so it must be attached */
		for (i = optind; i < argc; i++)
			if (argv[i][0] && strspn(argv[i], "0123456789") == strlen(argv[i])) {
				pr_warn("'%s' is not a file: write -j%s or --jobs=%s\n", argv[i],
					argv[i], argv[i]);
				return EXIT_FAILURE;
			}
		pr_warn("expected exactly one input file (see --help)\n");
		return EXIT_FAILURE;
	}
	if (!encode) {
		pr_warn("only BTF encoding (-J) is supported\n");
		return EXIT_FAILURE;
	}
	/* libbpf's own messages are noise next to ours, except with -V */
	if (!conf.verbose)
		libbpf_set_print(NULL);
	tmpfiles__init();
	err = encode_pipeline__run(argv[optind], &conf);
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}
