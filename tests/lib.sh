# shellcheck shell=bash
# lib.sh - what the test scripts share: the reference tool, the cache, and
# the flag sets each kernel generation passes to pahole 1.30. Sourced.

CACHE=${DWARF2BTF_CACHE:-/var/cache/dwarf2btf}
PAHOLE=$CACHE/pahole-1.30/bin/pahole130

# Linux 6.1, scripts/pahole-flags.sh (the -j it also passes is ours to choose)
FLAGS_61="--btf_gen_floats --lang_exclude=rust --skip_encoding_btf_inconsistent_proto --btf_gen_optimized"
# Linux 6.12, scripts/Makefile.btf, without and with kfunc decl tags
FEATURES_612="encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func"
FLAGS_612_NOKFUNCS="--btf_features=$FEATURES_612 --lang_exclude=rust"
FLAGS_612="--btf_features=$FEATURES_612,decl_tag_kfuncs --lang_exclude=rust"
